-- A cheaper change log (docs/sync.md, "The cost on the write path"). Migration 0045 gave
-- every tracked table three statement triggers with transition tables: every statement
-- (even one that changed no row) called a PL/pgSQL function that turned rows into JSON,
-- looped over users, and bumped the user's counter once more. A session of 5 exercises ×
-- 4 sets took five bumps of the same entity. Here each table gets row triggers instead,
-- and an entity is recorded once per transaction:
--
-- * A statement (one request: the HTTP layer runs one SQL call per request) records an
--   entity at its first change: the user's counter is bumped (under the row lock of
--   app.sync_state, held to commit: the argument of 0045 stands, each committed version
--   was handed out under that lock) and the entity's row gets the new version. The
--   transaction-local setting liftbase.sync_last names the last entity recorded, its op
--   and the statement ('session/<id>/upsert/<statement_timestamp()>'); every later row of
--   the same entity in the statement is skipped: by the trigger's WHEN clause, without
--   calling a function, in every later statement of the request; by a string comparison
--   first thing in the function for the other rows of the same statement (WHEN is
--   evaluated as each row is written, before the statement's triggers run). Nothing of a transaction is visible before it commits, so one
--   version per entity and statement is enough; a later statement of the same transaction
--   (a test's, or a script's) gives a new version. A savepoint rolled back reverts the
--   setting with the rows it covered.
-- * An update that changes nothing is skipped (WHEN old is distinct from new).
-- * Rows of a user whose account is being deleted are skipped: a BEFORE DELETE trigger on
--   auth.users names the user in liftbase.deleting_user, and the cascade's row triggers
--   check it in their WHEN clause (a user deleted among several in one statement is
--   checked in the function).
-- * No dynamic SQL, no JSON: the id is read from the row by column name in static
--   branches; the counter's update and the entity's upsert are two static statements.
-- * Row triggers need no transition tables, which Citus does not support on distributed
--   tables.


do $$
declare
  v_table text;
begin
  foreach v_table in array array['training_sessions', 'session_exercises', 'session_sets', 'food_entries', 'favorites',
    'custom_meals', 'custom_meal_items', 'plans', 'plan_exercises', 'user_foods', 'user_exercises', 'body_metrics',
    'health_metrics', 'metrics_acknowledgements', 'programs', 'program_sessions', 'program_phases',
    'program_exercise_state', 'goals', 'user_profiles', 'target_snapshots', 'target_overrides', 'user_settings',
    'user_equipment', 'user_exclusions'] loop
    execute format('drop trigger %I on app.%I', v_table || '_sync_insert', v_table);
    execute format('drop trigger %I on app.%I', v_table || '_sync_update', v_table);
    execute format('drop trigger %I on app.%I', v_table || '_sync_delete', v_table);
  end loop;
end
$$;
drop trigger users_sync_update on auth.users;
drop function app.track_sync_changes();
drop function app.track_account_changes();
drop function app.record_sync_changes(uuid, text, text[], boolean[]);

-- Records a change of p_entity p_id (op 'upsert' or 'delete') for p_user_id: bumps the
-- user's counter (locking its row to commit) and gives the entity the new version, as
-- that user (row-level security); then names it in liftbase.sync_last, so the rest of
-- the transaction's rows of the entity are skipped.
create function app.record_sync_change(p_user_id uuid, p_entity text, p_id text, p_op text)
returns void
language plpgsql
as $fn$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_other_user boolean := v_acting is distinct from p_user_id::text;
  v_seq bigint;
begin
  if v_other_user then
    perform set_config('liftbase.user_id', p_user_id::text, true);
  end if;
  -- An update first: the user's row is there but for a first write, and a plain update
  -- is cheaper than an upsert's speculative insert.
  update app.sync_state as s set last_seq = s.last_seq + 1 where s.user_id = p_user_id returning s.last_seq into v_seq;
  if v_seq is null then
    insert into app.sync_state as s (user_id, last_seq) values (p_user_id, 1)
    on conflict (user_id) do update set last_seq = s.last_seq + 1
    returning s.last_seq into v_seq;
  end if;
  insert into app.sync_changes as c (user_id, entity, entity_id, seq, op, changed_at)
  values (p_user_id, p_entity, p_id, v_seq, p_op, now())
  on conflict (user_id, entity, entity_id) do update
    set seq = excluded.seq, op = excluded.op, changed_at = excluded.changed_at;
  perform set_config('liftbase.sync_last', p_entity || '/' || p_id || '/' || p_op || '/' || statement_timestamp(), true);
  if v_other_user then
    perform set_config('liftbase.user_id', coalesce(v_acting, ''), true);
  end if;
end
$fn$;

-- Whether p_entity p_id of p_user_id still exists (its root row), as that user.
create function app.sync_entity_exists(p_user_id uuid, p_entity text, p_id text)
returns boolean
language plpgsql
as $fn$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_exists boolean;
begin
  perform set_config('liftbase.user_id', p_user_id::text, true);
  if p_entity = 'session' then
    v_exists := exists (select from app.training_sessions as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'custom_meal' then
    v_exists := exists (select from app.custom_meals as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'plan' then
    v_exists := exists (select from app.plans as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'program' then
    v_exists := exists (select from app.programs as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'health_metric' then
    v_exists := exists (select from app.health_metrics as e where e.user_id = p_user_id and e.id = p_id::bigint);
  else
    raise exception 'app.sync_entity_exists: % has no parts', p_entity;
  end if;
  perform set_config('liftbase.user_id', coalesce(v_acting, ''), true);
  return v_exists;
end
$fn$;

-- The row trigger of every table holding an entity or a part of one. Arguments: the
-- entity and the column naming its id in this table ('' for an entity a user has one of:
-- goal, settings...; its id is the user's; 'id' for the entity's own table). The WHEN
-- clauses of the triggers (below) already skipped what this transaction recorded.
create function app.track_sync_change() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $fn$
declare
  v_entity text := tg_argv[0];
  v_column text := tg_argv[1];
  v_row record;
  v_id text;
  v_last text;
begin
  if tg_op = 'DELETE' then
    v_row := old;
  else
    v_row := new;
  end if;
  -- Static branches: a row's field is read by name, no JSON (each table takes one).
  if v_column = '' then
    v_id := v_row.user_id::text;
  elsif v_column = 'id' then
    v_id := v_row.id::text;
  elsif v_column = 'session_id' then
    v_id := v_row.session_id::text;
  elsif v_column = 'meal_id' then
    v_id := v_row.meal_id::text;
  elsif v_column = 'plan_id' then
    v_id := v_row.plan_id::text;
  elsif v_column = 'program_id' then
    v_id := v_row.program_id::text;
  elsif v_column = 'health_metric_id' then
    v_id := v_row.health_metric_id::text;
  else
    raise exception 'app.track_sync_change: unknown id column %', v_column;
  end if;
  -- WHEN clauses are evaluated as each row is written, before any of the statement's
  -- triggers ran: a statement writing several rows of one entity (the sets of a session)
  -- reaches here once per row, and all but the first stop at this comparison.
  -- (The same rules as the WHEN clauses: a root's delete always needs its tombstone.)
  v_last := current_setting('liftbase.sync_last', true);
  if v_last = v_entity || '/' || v_id || '/upsert/' || statement_timestamp() and (tg_op <> 'DELETE' or v_column <> 'id')
     or v_last = v_entity || '/' || v_id || '/delete/' || statement_timestamp() and tg_op = 'DELETE' then
    return null;
  end if;
  if coalesce(current_setting('liftbase.deleting_user', true), '') <> ''
     and not exists (select from auth.users as u where u.id = v_row.user_id) then
    -- The account is being deleted (with another in the same statement): nothing to record.
    return null;
  end if;
  if tg_op <> 'DELETE' or v_column = '' then
    perform app.record_sync_change(v_row.user_id, v_entity, v_id, 'upsert');
  elsif v_column = 'id' then
    perform app.record_sync_change(v_row.user_id, v_entity, v_id, 'delete');
  elsif app.sync_entity_exists(v_row.user_id, v_entity, v_id) then
    -- A part removed from an entity that stays: a change of it. (When the entity itself
    -- went, its own row's trigger records the tombstone.)
    perform app.record_sync_change(v_row.user_id, v_entity, v_id, 'upsert');
  end if;
  return null;
end
$fn$;

-- Three row triggers per table (WHEN may name only the row its event has).
create function pg_temp.track(p_table text, p_entity text, p_id_column text)
returns void language plpgsql as $fn$
declare
  v_args text := format('%L, %L', p_entity, p_id_column);
  -- The entity's key in liftbase.sync_last, of the new or the old row.
  v_new text := format('%L || %s::text || ''/''', p_entity || '/', 'new.' || quote_ident(coalesce(nullif(p_id_column, ''), 'user_id')));
  v_old text := replace(v_new, '|| new.', '|| old.');
  v_last text := 'current_setting(''liftbase.sync_last'', true)';
  v_now text := ' || ''/'' || statement_timestamp()';
  v_deleting text := 'current_setting(''liftbase.deleting_user'', true) is distinct from old.user_id::text';
  v_deleting_new text := replace(v_deleting, 'old.', 'new.');
begin
  execute format('create trigger %I after insert on app.%I for each row
                  when (%s and %s is distinct from %s || ''upsert''%s)
                  execute function app.track_sync_change(%s)',
                 p_table || '_sync_insert', p_table, v_deleting_new, v_last, v_new, v_now, v_args);
  execute format('create trigger %I after update on app.%I for each row
                  when (old.* is distinct from new.* and %s and %s is distinct from %s || ''upsert''%s)
                  execute function app.track_sync_change(%s)',
                 p_table || '_sync_update', p_table, v_deleting_new, v_last, v_new, v_now, v_args);
  execute format('create trigger %I after delete on app.%I for each row
                  when (%s and %s is distinct from %s || ''delete''%s and (%L = ''id'' or %s is distinct from %s || ''upsert''%s))
                  execute function app.track_sync_change(%s)',
                 p_table || '_sync_delete', p_table, v_deleting, v_last, v_old, v_now, p_id_column, v_last, v_old, v_now, v_args);
end $fn$;

select pg_temp.track(t.tab, t.entity, t.id_column)
  from (values
    ('training_sessions', 'session', 'id'),
    ('session_exercises', 'session', 'session_id'),
    ('session_sets', 'session', 'session_id'),
    ('food_entries', 'diary_entry', 'id'),
    ('favorites', 'favorite', 'id'),
    ('custom_meals', 'custom_meal', 'id'),
    ('custom_meal_items', 'custom_meal', 'meal_id'),
    ('plans', 'plan', 'id'),
    ('plan_exercises', 'plan', 'plan_id'),
    ('user_foods', 'own_food', 'id'),
    ('user_exercises', 'own_exercise', 'id'),
    ('body_metrics', 'body_metric', 'id'),
    ('health_metrics', 'health_metric', 'id'),
    ('metrics_acknowledgements', 'health_metric', 'health_metric_id'),
    ('programs', 'program', 'id'),
    ('program_sessions', 'program', 'program_id'),
    ('program_phases', 'program', 'program_id'),
    ('program_exercise_state', 'program', 'program_id'),
    ('goals', 'goal', ''),
    ('user_profiles', 'profile', ''),
    ('target_snapshots', 'targets', ''),
    ('target_overrides', 'targets', ''),
    ('user_settings', 'settings', ''),
    ('user_equipment', 'equipment', ''),
    ('user_exclusions', 'exclusions', '')) as t (tab, entity, id_column);

-- The profile shows the account's display name and GET /me its email: a change of either
-- is a change of the profile.
create function app.track_account_change() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $fn$
begin
  perform app.record_sync_change(new.id, 'profile', new.id::text, 'upsert');
  return null;
end
$fn$;
create trigger users_sync_update after update on auth.users for each row
  when ((old.display_name is distinct from new.display_name or old.email is distinct from new.email)
        and current_setting('liftbase.sync_last', true) is distinct from 'profile/' || new.id::text || '/upsert/' || statement_timestamp())
  execute function app.track_account_change();

-- An account being deleted: its rows go in the cascade, and their change log with them.
-- Naming it lets the cascade's row triggers skip (their WHEN clause) instead of recording.
create function app.note_account_deletion() returns trigger
language plpgsql
as $fn$
begin
  perform set_config('liftbase.deleting_user', old.id::text, true);
  return old;
end
$fn$;
create trigger users_note_deletion before delete on auth.users for each row
  execute function app.note_account_deletion();
