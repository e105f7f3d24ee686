-- Operator functions behind `liftbase user ...` and `liftbase outbox ...`. They run as the
-- owner through the CLI's administrative connection; the API role cannot call them.
-- PL/pgSQL: Citus cannot plan a SQL function's statement with its parameters left in.

create or replace function auth.admin_find_user(p_email text)
returns auth.users
language plpgsql
stable
as $$
declare
  v_user auth.users;
begin
  select u.* into v_user from auth.users as u where lower(u.email) = lower(btrim(coalesce(p_email, '')));
  if v_user.id is null then
    perform app.raise_error(404, 'user_not_found', format('No account with email %s.', p_email));
  end if;
  return v_user;
end
$$;

-- `liftbase user create`: the operator vouches for the address, which is taken as verified.
create or replace function auth.admin_create_user(p_email text, p_password text, p_display_name text)
returns jsonb
language plpgsql
as $$
declare
  v_user auth.users := auth.create_account(p_email, p_password, p_display_name);
begin
  -- Set before the write: Citus takes no stable call in a write of a reference table.
  v_user.email_verified_at := now();
  update auth.users set email_verified_at = v_user.email_verified_at where id = v_user.id;
  return auth.user_json(v_user);
end
$$;

create or replace function auth.admin_users()
returns table (id uuid, email text, display_name text, created_at timestamptz,
               disabled_at timestamptz, active_sessions bigint, last_seen_at timestamptz)
language plpgsql
stable
as $$
begin
  return query
  select u.id, u.email, u.display_name, u.created_at, u.disabled_at,
         count(s.token_hash) filter (where s.expires_at > now()),
         max(s.last_seen_at)
    from auth.users as u
    left join auth.sessions as s on s.user_id = u.id
   group by u.id
   order by u.created_at, u.email;
end
$$;

create or replace function auth.admin_show_user(p_email text)
returns jsonb
language plpgsql
stable
as $$
declare
  v_user auth.users := auth.admin_find_user(p_email);
begin
  return auth.user_json(v_user) || jsonb_build_object(
    'disabled_at', v_user.disabled_at,
    'active_sessions', (select count(*) from auth.sessions as s
                         where s.user_id = v_user.id and s.expires_at > now()),
    'last_seen_at', (select max(s.last_seen_at) from auth.sessions as s where s.user_id = v_user.id),
    'recent_failed_logins', (select count(*) from auth.login_failures as f
                              where f.email_key = lower(v_user.email)
                                and f.failed_at > now() - auth.lockout_window()));
end
$$;

-- Disabling also ends every session of the account (auth.end_sessions_of_disabled_account).
create or replace function auth.admin_set_disabled(p_email text, p_disabled boolean)
returns jsonb
language plpgsql
as $$
declare
  v_user auth.users := auth.admin_find_user(p_email);
  -- Read first: Citus takes no stable call (now()) inside a CASE or COALESCE of a write.
  v_disabled_at timestamptz := case when p_disabled then coalesce(v_user.disabled_at, now()) end;
begin
  update auth.users
     set disabled_at = v_disabled_at, updated_at = now()
   where id = v_user.id
  returning * into v_user;
  -- On Citus the triggers on auth.users that do this are dropped (app.on_citus).
  if app.on_citus() then
    if v_user.disabled_at is not null then
      perform auth.end_sessions(v_user.id);
    end if;
    perform app.refresh_me_document(v_user.id);
  end if;
  return auth.user_json(v_user);
end
$$;

create or replace function auth.admin_delete_user(p_email text)
returns void
language plpgsql
as $$
declare
  v_user_id uuid := (auth.admin_find_user(p_email)).id;
begin
  -- On Citus the trigger on auth.users that queues account.deleted is dropped (app.on_citus).
  -- The cascade then deletes from every shard and from the coordinator's tables, which
  -- Citus does only over one connection per node, set before the transaction's first
  -- read of a distributed table (the subscriptions).
  if app.on_citus() then
    perform set_config('citus.multi_shard_modify_mode', 'sequential', true);
    perform app.queue_account_deleted(v_user_id);
  end if;
  delete from auth.users where id = v_user_id;
end
$$;

create or replace function auth.admin_reset_password(p_email text, p_new_password text)
returns void
language sql
as $$ select auth.set_password((auth.admin_find_user(p_email)).id, p_new_password) $$;

-- Mails not yet delivered (pending or dead), with their payload: for an operator who
-- delivers by hand (no worker running) and then acknowledges.
create or replace function auth.outbox_pending()
returns table (id bigint, kind text, recipient text, payload jsonb, created_at timestamptz)
language plpgsql
stable
as $$
begin
  return query
  select o.id, o.kind, o.recipient, o.payload, o.created_at
    from auth.outbox as o
   where o.delivered_at is null and o.channel = 'email'
   order by o.id;
end
$$;

-- Marks a message delivered; false when there is no such pending message. A delivered
-- message keeps no secret: its token (usable for an hour) is removed from the payload.
create or replace function auth.outbox_ack(p_id bigint)
returns boolean
language plpgsql
as $$
begin
  update auth.outbox as o set delivered_at = now(), dead_at = null, lease_until = null, payload = o.payload - 'token'
   where o.id = p_id and o.delivered_at is null and o.channel = 'email';
  return found;
end
$$;
