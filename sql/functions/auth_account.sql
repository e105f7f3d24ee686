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
  -- On Citus the trigger on auth.users that records this is dropped (app.on_citus).
  if app.on_citus() and p_changes ? 'display_name' then
    perform app.record_sync_change(v_user.id, 'profile', v_user.id::text, 'upsert');
    perform app.refresh_me_document(v_user.id);
  end if;
  return auth.user_json(v_user);
end
$$;

-- Deletes the account and, through ON DELETE CASCADE, every row the user owns.
create or replace function auth.delete_current_account(p_password text)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_user auth.users;
begin
  select u.* into v_user from auth.users as u where u.id = app.current_user_id();
  if not auth.password_matches(p_password, v_user.password_hash) then
    perform app.raise_error(403, 'invalid_password', 'The password is incorrect.');
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
end
$$;

grant execute on function
  auth.current_account(),
  auth.update_current_account(jsonb),
  auth.delete_current_account(text)
to liftbase_api;
