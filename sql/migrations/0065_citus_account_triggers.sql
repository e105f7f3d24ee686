-- On Citus, the triggers 0063 and 0064 put on the account tables (reference tables) go the
-- way of 0061's: a trigger on a reference table runs on every node's copy, from the
-- workers, inside the coordinator's transaction, and one that writes another table is
-- refused there. The functions that make those writes do the work on the coordinator
-- instead (app.on_citus()):
-- - auth.users, users_me_document: GET /me's kept answer after a display name change
--   (auth.update_current_account) or a disable or enable (auth.admin_set_disabled);
-- - auth.users, users_end_sessions_when_disabled: the sessions of a disabled account
--   (auth.admin_set_disabled);
-- - auth.sessions, sessions_of_enabled_accounts: no session for a disabled account
--   (auth.start_session, through auth.refuse_if_disabled).
-- The distribution, continued: 0062's steps, then this one.
alter function liftbase_meta.distribute_on_citus() rename to prepare_api_on_citus;

create or replace function liftbase_meta.distribute_on_citus()
returns text
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_result text := liftbase_meta.prepare_api_on_citus();
begin
  if not exists (select from pg_extension where extname = 'citus') then
    return v_result;
  end if;
  -- Citus takes trigger statements on its tables only with this.
  set local citus.enable_unsafe_triggers = on;
  drop trigger if exists users_me_document on auth.users;
  drop trigger if exists users_end_sessions_when_disabled on auth.users;
  drop trigger if exists sessions_of_enabled_accounts on auth.sessions;
  return v_result;
end
$function$;

comment on function liftbase_meta.distribute_on_citus() is
  'On Citus: distributes the tables (distribute_tables_on_citus), drops the reference tables'' triggers that write other tables (drop_reference_table_writers_on_citus and this function), lets the functions that force a generic plan take custom plans (prepare_api_on_citus). Idempotent; liftbase migrate calls it when the citus extension is installed.';

revoke execute on function liftbase_meta.distribute_on_citus() from public;
revoke execute on function liftbase_meta.prepare_api_on_citus() from public;
