-- The signed-in user's own account (GET/PATCH/DELETE /me). Each reads the user of the
-- transaction, set by auth.authenticate(), never a user id passed in.

-- PL/pgSQL so that its query is planned once per connection (a security definer SQL
-- function is never inlined, and was planned again on every GET /me).
create or replace function auth.current_account()
returns jsonb
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  -- row(u.*): on Citus the read runs on a copy of the reference table, whose rows are of
  -- that copy's type; the row constructor casts to the table's.
  return (select auth.user_json(row(u.*)::auth.users) from auth.users as u where u.id = app.current_user_id());
end
$$;

create or replace function auth.update_current_account(p_changes jsonb)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_user auth.users;
  v_display_name text;
begin
  perform app.raise_if_invalid(jsonb_build_object(
    'display_name', coalesce(app.field_problem(p_changes, 'display_name', 'text', false),
                             auth.display_name_problem(app.read_text(p_changes, 'display_name')))));
  -- Read before the update: Citus takes no call of a stable function (the reader) inside
  -- case in a write.
  v_display_name := btrim(app.read_text(p_changes, 'display_name'));
  update auth.users
     set display_name = case when p_changes ? 'display_name' then v_display_name else display_name end,
         updated_at = now()
   where id = app.current_user_id()
  returning * into v_user;
  return auth.user_json(v_user);
end
$$;

-- After auth.update_current_account, by its caller: on Citus, where the triggers on auth.users
-- that record a display name change and build the kept GET /me answer again are dropped
-- (app.on_citus), the change log's profile entry, and the kept answer forgotten (GET /me
-- builds it until the next write keeps it again). Not in auth.update_current_account: run
-- by its owner, this would write the user's shards as another user than the API role that
-- wrote the rest of the request (onboarding's goal, settings and profile), which Citus
-- refuses (SQLSTATE 25001). Invoker's rights: the API role writes, under row-level security.
create or replace function auth.note_display_name_change(p_changes jsonb)
returns void
language plpgsql
as $$
declare
  v_user_id uuid := app.current_user_id();
begin
  if app.on_citus() and p_changes ? 'display_name' then
    perform app.record_sync_change(v_user_id, 'profile', v_user_id::text, 'upsert');
    update app.sync_state set me_document = null where user_id = v_user_id;
  end if;
end
$$;

-- Deletes the account and, through ON DELETE CASCADE, every row the user owns.
-- A wrong password is answered and counted towards the lockout (auth.password_refusal).
create or replace function auth.delete_current_account(p_password text)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_user auth.users;
  v_refusal jsonb;
begin
  select u.* into v_user from auth.users as u where u.id = app.current_user_id();
  v_refusal := auth.password_refusal(v_user.id, p_password);
  if v_refusal is not null then
    return v_refusal;
  end if;
  -- On Citus the trigger on auth.users that queues account.deleted is dropped (app.on_citus).
  -- The cascade then deletes from every shard and from the coordinator's tables, which
  -- Citus does only over one connection per node, set before the transaction's first
  -- read of a distributed table (the subscriptions).
  if app.on_citus() then
    perform set_config('citus.multi_shard_modify_mode', 'sequential', true);
    perform app.queue_account_deleted(v_user.id);
  end if;
  delete from auth.users where id = v_user.id;
  return null;
end
$$;

grant execute on function
  auth.current_account(),
  auth.update_current_account(jsonb),
  auth.note_display_name_change(jsonb),
  auth.delete_current_account(text)
to liftbase_api;
-- What auth.note_display_name_change runs as the API role (row-level security keeps it to
-- the acting user's rows).
grant execute on function app.record_sync_change(uuid, text, text, text) to liftbase_api;
