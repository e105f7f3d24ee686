-- The names of other apps' exercises that the catalog does not have (decided "-" in
-- sql/data/exercise-names/catalog-matches.tsv): an import of such a name becomes the user's
-- own exercise even where its words or spelling come close to a catalog entry's (Hevy's
-- "Deadlift (Band)" is not the catalog's banded barbell deadlift). Loaded with the aliases
-- (app.load_exercise_aliases), lower case. A catalog table: one copy on every Citus node.
create table app.exercise_unmatched_names (
  name text primary key,
  constraint exercise_unmatched_names_lower_case check (name = lower(btrim(name)) and name <> '')
);
comment on table app.exercise_unmatched_names is
  'Other apps'' exercise names the catalog has no exercise for: app.resolve_exercise_names makes them own exercises';
grant select on app.exercise_unmatched_names to liftbase_api;
revoke insert, update, delete on app.exercise_unmatched_names from liftbase_api;

-- The distribution, continued: 0068's steps, then the new catalog table made a reference
-- table (0060 made the catalogs of its day ones; a table made since needs its own step).
alter function liftbase_meta.distribute_on_citus() rename to prepare_catalog_shards_on_citus;

create or replace function liftbase_meta.distribute_on_citus()
returns text
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_result text := liftbase_meta.prepare_catalog_shards_on_citus();
  -- Citus's catalog, named in dynamic SQL: it exists only where Citus is installed.
  citus_tables text := 'pg_dist_partition';
  v_done boolean;
begin
  if not exists (select from pg_extension where extname = 'citus') then
    return v_result;
  end if;
  execute format('select exists (select from %s where logicalrelid = %L::regclass)', citus_tables,
                 'app.exercise_unmatched_names') into v_done;
  if not v_done then
    execute format('select create_reference_table(%L)', 'app.exercise_unmatched_names');
  end if;
  return v_result;
end
$function$;

comment on function liftbase_meta.distribute_on_citus() is
  'On Citus: the steps of prepare_catalog_shards_on_citus (distribution, triggers, plans, SQL functions), then app.exercise_unmatched_names as a reference table. Idempotent; liftbase migrate calls it when the citus extension is installed.';

revoke execute on function liftbase_meta.distribute_on_citus() from public;
revoke execute on function liftbase_meta.prepare_catalog_shards_on_citus() from public;
