-- The distribution on Citus (docs/scaling.md): what `liftbase migrate` runs after the
-- migrations and function files when the citus extension is installed, its steps, the
-- Citus-only trigger functions and their triggers. On a single node nothing
-- here runs: the functions are only created. Every statement that names a Citus function or
-- catalog is dynamic SQL, since they exist only where Citus is installed.

-- `liftbase migrate` on Citus, every time (idempotent): the tables distributed (each step
-- below says how).
create or replace function liftbase_meta.distribute_on_citus()
returns text
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  -- Citus's catalog, named in dynamic SQL: it exists only where Citus is installed.
  citus_tables text := 'pg_dist_partition';
  v_result text;
  v_done boolean;
begin
  if not exists (select from pg_extension where extname = 'citus') then
    return 'not on Citus: nothing to distribute';
  end if;
  -- The triggers are the function files' (each declared beside its function, some only on
  -- one kind of deployment), applied before this runs: the tables are distributed with the
  -- triggers Citus runs.
  v_result := liftbase_meta.distribute_tables_on_citus();
  perform liftbase_meta.drop_catalog_shard_triggers_on_citus();
  -- A table added after the first distribution: the names the catalog lacks (migration 0074).
  execute format('select exists (select from %s where logicalrelid = %L::regclass)', citus_tables,
                 'app.exercise_unmatched_names') into v_done;
  if not v_done then
    execute format('select create_reference_table(%L)', 'app.exercise_unmatched_names');
  end if;
  return v_result;
end
$function$;

comment on function liftbase_meta.distribute_on_citus() is
  'On Citus: distributes the tables (distribute_tables_on_citus), then drops the catalog version triggers left on the catalog''s shards by clusters distributed before (drop_catalog_shard_triggers_on_citus). Idempotent; liftbase migrate calls it when the citus extension is installed.';

-- Catalogs and auth.users as reference tables, the auth lookups on the coordinator, every
-- app table with a user_id distributed by it and co-located, the keys Citus refuses made
-- again in a form it takes. Idempotent.
create or replace function liftbase_meta.distribute_tables_on_citus()
returns text
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  -- Catalogs every user's rows point at: one copy on every node. auth.users is here too:
  -- its unique index keeps an email unique across the cluster (a reference table has one
  -- shard), and every user table's foreign key to it stays a local check on each worker.
  reference_tables constant text[] := array[
    'auth.users', 'app.muscles', 'app.equipment', 'app.exercises', 'app.templates',
    'app.template_exercises', 'app.foods', 'app.food_portions', 'app.food_name_words',
    'app.food_catalog_version', 'app.rpe_chart', 'app.tracking_type_exceptions', 'app.measures'];
  -- Looked up by something other than the user (a token's hash, an email, an id): they stay
  -- on the coordinator, where one indexed read answers, as Citus-managed local tables (so
  -- that their foreign keys to auth.users still hold).
  coordinator_tables constant text[] := array[
    'auth.sessions', 'auth.password_resets', 'auth.outbox', 'auth.login_failures', 'auth.invitations',
    'auth.email_verifications', 'auth.token_families', 'auth.api_keys', 'auth.security_events', 'auth.totp_factors',
    'auth.recovery_codes', 'auth.login_challenges', 'auth.external_identities'];
  -- Every other table of app with a user_id is distributed by it, co-located with this one.
  anchor constant text := 'app.user_settings';
  -- Citus's catalog, named in dynamic SQL: it exists only where Citus is installed, and
  -- plpgsql_check checks the statements it can read.
  citus_tables text := 'pg_dist_partition';
  pending text[];
  distributed_tables text[];
  foreign_keys jsonb;
  foreign_key jsonb;
  nulled_column text;
  definition text;
  done text[] := array[]::text[];
  skipped text[] := array[]::text[];
begin
  if not exists (select from pg_extension where extname = 'citus') then
    return 'citus is not installed in this database: nothing to distribute';
  end if;

  select coalesce(array_agg(c.oid::regclass::text order by c.oid::regclass::text <> anchor, c.oid::regclass::text),
                  array[]::text[])
    into distributed_tables
    from pg_class as c
    join pg_namespace as n on n.oid = c.relnamespace
   where n.nspname = 'app' and c.relkind = 'r' and c.relpersistence = 'p'
     and exists (select from pg_attribute as a
                  where a.attrelid = c.oid and a.attname = 'user_id' and not a.attisdropped);

  -- What Citus does not manage yet.
  execute format('select coalesce(array_agg(name), array[]::text[])
                    from unnest($1) as name
                   where not exists (select from %s as p where p.logicalrelid = name::regclass)', citus_tables)
     into pending
    using reference_tables || coordinator_tables || distributed_tables;
  -- A request's API function runs on the coordinator, and a statement in it that names the
  -- user's shard is sent whole to the worker holding it, function calls included; when such
  -- a function reads another table of the same user or a catalog, Citus runs that read from
  -- the worker (nested execution), which it refuses unless told otherwise. Every such read
  -- is the same user's shard group or a reference table, both on that worker, so Citus
  -- executes it locally in the same transaction (what the setting warns about is reads of
  -- other nodes, which a per-user request does not make). Citus sets it on every node.
  execute format('alter database %I set citus.allow_nested_distributed_execution = on', current_database());
  -- The user of a transaction (auth.act_as) is a SET LOCAL, which the policies on the
  -- shards read: Citus sends it to every worker the transaction uses.
  execute format('alter database %I set citus.propagate_set_commands = local', current_database());

  if cardinality(pending) = 0 then
    return format('already distributed; %s function(s) propagated', liftbase_meta.propagate_functions_on_citus());
  end if;

  -- Citus converts the tables of a foreign-key graph together, and a local table with
  -- row-level security in that graph cannot be converted ("cannot create policy"). So
  -- every foreign key that touches a table still to convert is dropped, the tables are
  -- converted one by one, and the keys are made again (distributed → reference,
  -- co-located distributed → distributed and coordinator → reference are all allowed).
  select coalesce(jsonb_agg(jsonb_build_object(
           'table', k.conrelid::regclass::text, 'name', k.conname, 'parent', k.confrelid::regclass::text,
           'definition', pg_get_constraintdef(k.oid)) order by k.conrelid::regclass::text, k.conname), '[]')
    into foreign_keys
    from pg_constraint as k
   where k.contype = 'f'
     and (k.conrelid::regclass::text = any (pending) or k.confrelid::regclass::text = any (pending));
  for definition in
    select format('alter table %s drop constraint %I', k.conrelid::regclass, k.conname)
      from pg_constraint as k
     where k.contype = 'f'
       and (k.conrelid::regclass::text = any (pending) or k.confrelid::regclass::text = any (pending))
  loop
    execute definition;
  end loop;

  -- Citus refuses subqueries in the policies of a distributed table. The single-node
  -- policies compare user_id with (select app.current_user_id()), so that PostgreSQL
  -- evaluates the setting once per statement; on Citus the call itself is used (a stable
  -- function: the planner still uses the index), on the coordinator's table and its shards.
  for definition in
    select format('alter policy %I on %s using (%s)%s', p.polname, p.polrelid::regclass,
                  replace(pg_get_expr(p.polqual, p.polrelid), '( SELECT app.current_user_id() AS current_user_id)', 'app.current_user_id()'),
                  case when p.polwithcheck is null then '' else format(' with check (%s)',
                    replace(pg_get_expr(p.polwithcheck, p.polrelid), '( SELECT app.current_user_id() AS current_user_id)', 'app.current_user_id()')) end)
      from pg_policy as p
     where p.polrelid::regclass::text = any (pending)
       and (pg_get_expr(p.polqual, p.polrelid) like '%( SELECT app.current_user_id() AS current_user_id)%'
            or pg_get_expr(p.polwithcheck, p.polrelid) like '%( SELECT app.current_user_id() AS current_user_id)%')
  loop
    execute definition;
  end loop;

  -- The triggers on the catalogs and on the users' tables read and write only rows of the
  -- same catalog or the same user (co-located), which is what Citus calls safe.
  set local citus.enable_unsafe_triggers = on;
  -- Foreign keys to reference tables can be added in the same transaction as the
  -- distribution only when Citus uses one connection per node throughout.
  set local citus.multi_shard_modify_mode = 'sequential';
  foreach definition in array reference_tables loop
    if definition = any (pending) then
      execute format('select create_reference_table(%L)', definition);
      done := done || definition;
    end if;
  end loop;
  foreach definition in array coordinator_tables loop
    if definition = any (pending) then
      execute format('select citus_add_local_table_to_metadata(%L)', definition);
      done := done || definition;
    end if;
  end loop;
  foreach definition in array distributed_tables loop
    if definition = any (pending) then
      execute format('select create_distributed_table(%L, %L, colocate_with => %L)',
                     definition, 'user_id', case when definition = anchor then 'default' else anchor end);
      done := done || definition;
    end if;
  end loop;

  for foreign_key in select value from jsonb_array_elements(foreign_keys) loop
    definition := foreign_key ->> 'definition';
    -- Citus takes no key from a coordinator table to a distributed one: the webhook
    -- deliveries' key to their subscription (auth.outbox, 0048) is left out, so on Citus
    -- deleting a subscription leaves its queued deliveries (they find no URL and fail).
    if foreign_key ->> 'table' = any (coordinator_tables) and foreign_key ->> 'parent' = any (distributed_tables) then
      skipped := skipped || (foreign_key ->> 'name');
      continue;
    end if;
    -- Citus refuses ON DELETE SET NULL on a key that holds the distribution column, even
    -- when (as here) only the other column is set to null. The key stays, without the
    -- action, and a row trigger on the referenced table nulls the references first (same
    -- user, so the same shard group), declared with liftbase_meta.null_references_on_delete
    -- below: a key without its trigger would stop nulling its references on Citus.
    nulled_column := substring(definition from 'ON DELETE SET NULL \((\w+)\)$');
    if nulled_column is not null then
      definition := regexp_replace(definition, ' ON DELETE SET NULL \(\w+\)$', '');
      if not exists (select from pg_trigger as t
                      where t.tgrelid = (foreign_key ->> 'parent')::regclass
                        and t.tgname = left(foreign_key ->> 'name', 50) || '_set_null') then
        raise exception 'the key % sets % to null on delete: on Citus, declare the trigger %',
          foreign_key ->> 'name', nulled_column, left(foreign_key ->> 'name', 50) || '_set_null'
          using hint = 'beside liftbase_meta.null_references_on_delete in liftbase_meta_distribution.sql, ''citus'' only';
      end if;
    end if;
    execute format('alter table %s add constraint %I %s', foreign_key ->> 'table', foreign_key ->> 'name', definition);
  end loop;
  perform liftbase_meta.propagate_functions_on_citus();
  return format('distributed: %s%s', array_to_string(done, ', '),
                case when cardinality(skipped) > 0 then format('; keys left out: %s', array_to_string(skipped, ', ')) else '' end);
end
$function$;

comment on function liftbase_meta.distribute_tables_on_citus() is
  'On Citus: catalogs and auth.users as reference tables, the auth lookups on the coordinator, every app table with a user_id distributed by it and co-located. Idempotent; distribute_on_citus calls it.';

-- Citus creates a function on the workers too when everything it depends on is there. A
-- function that takes or returns a table's row type and was created while that table was
-- still local stayed on the coordinator; a statement that Citus sends to a worker (a query
-- on reference tables, a policy or trigger on a shard) fails there when it calls one. This
-- creates the missing ones on every node (and on nodes added later); replacing them later
-- replaces them everywhere. Returns how many it propagated.
create or replace function liftbase_meta.propagate_functions_on_citus()
returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  citus_objects text := 'pg_dist_object';
  citus_tables text := 'pg_dist_partition';
  missing regprocedure;
  propagated integer := 0;
begin
  -- Dynamic SQL: Citus's catalogs exist only where it is installed (and plpgsql_check
  -- checks the statements it can read).
  for missing in execute format($query$
    select p.oid::regprocedure
      from pg_proc as p
      join pg_namespace as n on n.oid = p.pronamespace
     where n.nspname in ('app', 'auth', 'api', 'liftbase_meta')
       and p.prokind in ('f', 'a')
       and not exists (select from %s as o
                        where o.classid = 'pg_proc'::regclass and o.objid = p.oid)
       -- Functions of a table that stays local (the food search cache) are only ever
       -- called on the coordinator, and Citus cannot create them elsewhere.
       and not exists (select from pg_depend as d
                         join pg_class as c on c.reltype = d.refobjid
                        where d.classid = 'pg_proc'::regclass and d.objid = p.oid
                          and d.refclassid = 'pg_type'::regclass
                          and not exists (select from %s as t where t.logicalrelid = c.oid))
     order by p.oid
  $query$, citus_objects, citus_tables)
  loop
    execute format('select create_distributed_function(%L)', missing::text);
    propagated := propagated + 1;
  end loop;
  return propagated;
end
$function$;

-- The catalog version triggers (single node only, app_food_import.sql) stayed on the
-- reference tables' shards of clusters distributed while they still had them (one on
-- every node; Citus does not pass the drop of a statement trigger on truncate to the
-- shards): each insert into the catalog then ran them on every node's copy, inside the
-- coordinator's transaction, and ended in a distributed deadlock. The triggers of a shard are
-- named after the table's, with the shard's id appended. Run on every node (the coordinator
-- holds a copy too) in a connection of its own, which sees only committed shards: a node
-- without them has nothing to do.
create or replace function liftbase_meta.drop_catalog_shard_triggers_on_citus()
returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
begin
  -- Named in dynamic SQL: Citus's functions exist only where it is installed.
  execute format('select count(*) from %s(%L)', 'run_command_on_all_nodes', $command$
    do $do$
    declare
      v_trigger record;
    begin
      set local citus.enable_manual_changes_to_shards = on;
      for v_trigger in
        select t.tgname, t.tgrelid::regclass as relation
          from pg_trigger as t
         where t.tgname ~ '^(foods|food_portions)_catalog_version_[0-9]+$'
      loop
        execute format('drop trigger %I on %s', v_trigger.tgname, v_trigger.relation);
      end loop;
    end
    $do$
  $command$);
end
$function$;

-- Row triggers in place of the statement triggers with transition tables, which Citus does
-- not run on distributed tables: declared for Citus only, as their single-node
-- counterparts are declared for a single node only.

-- The diary's food usage, one entry at a time (app.keep_food_usage on a single node). The
-- catalog food's name is read first: Citus refuses a subquery in an insert's values.
create or replace function liftbase_meta.keep_food_usage_per_row()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_food uuid;
  v_name text;
begin
  if tg_op = 'UPDATE' and old.user_id = new.user_id and old.food_id is not distinct from new.food_id
     and old.user_food_id is not distinct from new.user_food_id then
    return null;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    v_food := coalesce(old.food_id, old.user_food_id);
    if v_food is not null then
      update app.food_usage as u set entries = u.entries - 1
       where u.user_id = old.user_id and u.food_id = v_food and u.entries > 1;
      if not found then
        delete from app.food_usage as u where u.user_id = old.user_id and u.food_id = v_food;
      end if;
    end if;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    v_food := coalesce(new.food_id, new.user_food_id);
    if v_food is not null then
      if new.food_id is not null then
        select f.name into v_name from app.foods as f where f.id = new.food_id;
      end if;
      insert into app.food_usage as u (user_id, food_id, name, entries)
      values (new.user_id, v_food, v_name, 1)
      on conflict (user_id, food_id) do update set entries = u.entries + 1;
    end if;
  end if;
  return null;
end
$function$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_usage_per_row AFTER INSERT OR DELETE OR UPDATE ON app.food_entries FOR EACH ROW EXECUTE FUNCTION liftbase_meta.keep_food_usage_per_row()$$, 'citus');

-- Body weight days, one weigh-in at a time (app.keep_body_weight_days on a single node).
create or replace function liftbase_meta.keep_body_weight_days_per_row()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_zone text;
begin
  if tg_op in ('DELETE', 'UPDATE') then
    v_zone := app.user_timezone(old.user_id);
    perform app.refresh_body_weight_days(old.user_id, array[(old.recorded_at at time zone v_zone)::date]);
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    v_zone := app.user_timezone(new.user_id);
    perform app.refresh_body_weight_days(new.user_id, array[(new.recorded_at at time zone v_zone)::date]);
  end if;
  return null;
end
$function$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
select liftbase_meta.keep_trigger($$CREATE TRIGGER body_metrics_days_per_row AFTER INSERT OR DELETE OR UPDATE ON app.body_metrics FOR EACH ROW EXECUTE FUNCTION liftbase_meta.keep_body_weight_days_per_row()$$, 'citus');

-- Exercise records, one row at a time. On a shard a trigger's table is named after the
-- shard (training_sessions_102124), so the session table is told from the exercises' by the
-- name's stem.
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
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
select liftbase_meta.keep_trigger($$CREATE TRIGGER session_exercises_records_per_row AFTER INSERT OR DELETE OR UPDATE ON app.session_exercises FOR EACH ROW EXECUTE FUNCTION liftbase_meta.keep_exercise_records_per_row()$$, 'citus');
select liftbase_meta.keep_trigger($$CREATE TRIGGER training_sessions_records_per_row AFTER UPDATE ON app.training_sessions FOR EACH ROW EXECUTE FUNCTION liftbase_meta.keep_exercise_records_per_row()$$, 'citus');

-- ON DELETE SET NULL (column) of a key between two user tables, as a trigger on the
-- referenced table (distribute_tables_on_citus): TG_ARGV is the referencing table and the
-- column to null.
create or replace function liftbase_meta.null_references_on_delete()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
begin
  execute format('update %s set %I = null where user_id = $1 and %I = $2', tg_argv[0], tg_argv[1], tg_argv[1])
    using old.user_id, old.id;
  return old;
end
$function$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_user_id_custom_meal_id_fkey_set_null BEFORE DELETE ON app.custom_meals FOR EACH ROW EXECUTE FUNCTION liftbase_meta.null_references_on_delete('app.food_entries', 'custom_meal_id')$$, 'citus');
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_user_id_favorite_id_fkey_set_null BEFORE DELETE ON app.favorites FOR EACH ROW EXECUTE FUNCTION liftbase_meta.null_references_on_delete('app.food_entries', 'favorite_id')$$, 'citus');
select liftbase_meta.keep_trigger($$CREATE TRIGGER program_sessions_user_id_training_session_id_fkey_set_null BEFORE DELETE ON app.training_sessions FOR EACH ROW EXECUTE FUNCTION liftbase_meta.null_references_on_delete('app.program_sessions', 'training_session_id')$$, 'citus');
select liftbase_meta.keep_trigger($$CREATE TRIGGER plan_exercises_user_id_user_exercise_id_fkey_set_null BEFORE DELETE ON app.user_exercises FOR EACH ROW EXECUTE FUNCTION liftbase_meta.null_references_on_delete('app.plan_exercises', 'user_exercise_id')$$, 'citus');
select liftbase_meta.keep_trigger($$CREATE TRIGGER session_exercises_user_id_user_exercise_id_fkey_set_null BEFORE DELETE ON app.user_exercises FOR EACH ROW EXECUTE FUNCTION liftbase_meta.null_references_on_delete('app.session_exercises', 'user_exercise_id')$$, 'citus');
select liftbase_meta.keep_trigger($$CREATE TRIGGER custom_meal_items_user_id_user_food_id_fkey_set_null BEFORE DELETE ON app.user_foods FOR EACH ROW EXECUTE FUNCTION liftbase_meta.null_references_on_delete('app.custom_meal_items', 'user_food_id')$$, 'citus');
select liftbase_meta.keep_trigger($$CREATE TRIGGER favorites_user_id_user_food_id_fkey_set_null BEFORE DELETE ON app.user_foods FOR EACH ROW EXECUTE FUNCTION liftbase_meta.null_references_on_delete('app.favorites', 'user_food_id')$$, 'citus');
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_user_id_user_food_id_fkey_set_null BEFORE DELETE ON app.user_foods FOR EACH ROW EXECUTE FUNCTION liftbase_meta.null_references_on_delete('app.food_entries', 'user_food_id')$$, 'citus');
select liftbase_meta.keep_trigger($$CREATE TRIGGER progress_photos_user_id_measurement_id_fkey_set_null BEFORE DELETE ON app.body_measurements FOR EACH ROW EXECUTE FUNCTION liftbase_meta.null_references_on_delete('app.progress_photos', 'measurement_id')$$, 'citus');

revoke execute on function liftbase_meta.distribute_on_citus(), liftbase_meta.distribute_tables_on_citus(),
  liftbase_meta.propagate_functions_on_citus(), liftbase_meta.drop_catalog_shard_triggers_on_citus() from public;
