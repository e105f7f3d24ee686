-- Distribution on Citus, continued (docs/scaling.md "Each incompatibility met"). Like 0060,
-- every statement that names a Citus function is dynamic SQL, and on a single node nothing
-- here does anything: the functions are only created.

-- On a shard a trigger's table is named after the shard (training_sessions_102124), so the
-- row trigger of 0060 tells the session table from the exercises' by the name's stem.
create or replace function liftbase_meta.keep_exercise_records_per_row()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_old_key uuid;
  v_new_key uuid;
  v_key uuid;
begin
  if tg_table_name ~ '^training_sessions(_[0-9]+)?$' then
    if (new.status, new.session_date) is not distinct from (old.status, old.session_date) then
      return null;
    end if;
    for v_key in
      select distinct coalesce(e.exercise_id, e.user_exercise_id)
        from app.session_exercises as e
       where e.user_id = new.user_id and e.session_id = new.id
    loop
      perform app.write_exercise_records(new.user_id, v_key, array[new.id], array[new.id]);
    end loop;
    return null;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    v_old_key := coalesce(old.exercise_id, old.user_exercise_id);
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    v_new_key := coalesce(new.exercise_id, new.user_exercise_id);
  end if;
  if tg_op = 'UPDATE' and v_old_key is not distinct from v_new_key then
    perform app.write_exercise_records(new.user_id, v_new_key, array[old.session_id], array[new.session_id]);
    return null;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    perform app.write_exercise_records(old.user_id, v_old_key, array[old.session_id], '{}'::uuid[]);
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    perform app.write_exercise_records(new.user_id, v_new_key, '{}'::uuid[], array[new.session_id]);
  end if;
  return null;
end
$function$;

-- The tables' distribution stays 0060's; the steps after it are this function's.
alter function liftbase_meta.distribute_on_citus() rename to distribute_tables_on_citus;

-- Triggers on a reference table run on every node's copy, so a trigger that writes another
-- table writes it from each worker, inside the coordinator's transaction, which Citus
-- refuses ("the backend has already been assigned a transaction id"). On Citus these go, and
-- the functions that make those writes do the work on the coordinator instead
-- (app.on_citus()):
-- - auth.users: the profile's change record (auth.update_current_account) and the
--   account.deleted webhook (auth.delete_current_account, auth.admin_delete_user);
--   users_note_deletion stays (it only sets a value on the node that runs it);
-- - app.foods and app.food_portions: the name words and the catalog version
--   (app.catalog_changed, called by the importers).
create or replace function liftbase_meta.distribute_on_citus()
returns text
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_result text := liftbase_meta.distribute_tables_on_citus();
begin
  if not exists (select from pg_extension where extname = 'citus') then
    return v_result;
  end if;
  -- Citus takes trigger statements on its tables only with this.
  set local citus.enable_unsafe_triggers = on;
  drop trigger if exists users_sync_update on auth.users;
  drop trigger if exists users_webhook_account_deleted on auth.users;
  drop trigger if exists foods_name_words_insert on app.foods;
  drop trigger if exists foods_name_words_update on app.foods;
  drop trigger if exists foods_catalog_version on app.foods;
  drop trigger if exists food_portions_catalog_version on app.food_portions;
  return v_result;
end
$function$;

comment on function liftbase_meta.distribute_on_citus() is
  'On Citus: distributes the tables (distribute_tables_on_citus), then drops the reference tables'' triggers that write other tables. Idempotent; liftbase migrate calls it when the citus extension is installed.';

revoke execute on function liftbase_meta.distribute_on_citus() from public;
revoke execute on function liftbase_meta.distribute_tables_on_citus() from public;
