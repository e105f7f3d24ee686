-- The distribution, continued (docs/scaling.md, "Each incompatibility met"):
--
-- 1. The catalog version triggers 0061 drops from app.foods and app.food_portions stayed on
--    those reference tables' shards (one on every node; Citus does not pass the drop of a
--    statement trigger on truncate to the shards): each insert into the catalog then ran
--    them on every node's copy, inside the coordinator's transaction, and ended in a
--    distributed deadlock. They are now dropped before the tables are distributed, so the
--    shards are made without them, and from the shards of a cluster distributed before.
-- 2. Citus cannot plan a SQL function whose parameters filter a distributed table ("could
--    not create distributed plan", "parameterized queries for SQL functions"), and it does
--    not inline them either. The set-returning SQL functions below stay SQL in the function
--    files, where a single node inlines them into the query that calls them; on Citus they
--    become PL/pgSQL running the same query. The function files are applied again when
--    they change, which makes them SQL again; the distribution runs after them and turns
--    them back.
alter function liftbase_meta.distribute_on_citus() rename to drop_account_triggers_on_citus;

-- The triggers of a reference table's shard are named after the table's, with the shard's
-- id appended. Run on every node (the coordinator holds a copy too) in a connection of its
-- own, which sees only committed shards: a node without them has nothing to do.
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

-- Each listed SQL function, when it is SQL, is made a PL/pgSQL function returning the same
-- query, each column cast to the declared type (a SQL function's result is cast, RETURN
-- QUERY's must match exactly; column names win over the output columns of the same name,
-- as in SQL).
create or replace function liftbase_meta.sql_functions_to_plpgsql_on_citus()
returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  functions constant regprocedure[] := array[
    'app.visible_exercises(uuid)'::regprocedure,
    'app.weekly_muscle_volume(uuid, date, date)'::regprocedure];
  v_function record;
  v_count integer := 0;
begin
  for v_function in
    select p.oid::regproc as name, pg_get_function_arguments(p.oid) as arguments,
           pg_get_function_result(p.oid) as result, p.provolatile, p.prosrc,
           (select string_agg(format('q.%I::%s', a.name, format_type(a.type, null)), ', ' order by a.n)
              from unnest(p.proargnames, p.proallargtypes, p.proargmodes) with ordinality as a (name, type, mode, n)
             where a.mode = 't') as columns,
           (select string_agg(quote_ident(a.name), ', ' order by a.n)
              from unnest(p.proargnames, p.proargmodes) with ordinality as a (name, mode, n)
             where a.mode = 't') as names
      from pg_proc as p
     where p.oid = any (functions) and p.prolang = (select l.oid from pg_language as l where l.lanname = 'sql')
     order by p.oid
  loop
    execute format('create or replace function %s(%s) returns %s language plpgsql %s as %L',
                   v_function.name, v_function.arguments, v_function.result,
                   case v_function.provolatile when 'i' then 'immutable' when 's' then 'stable' else 'volatile' end,
                   format(E'#variable_conflict use_column\nbegin\n  return query select %s from (\n%s\n) as q (%s);\nend\n',
                          v_function.columns, rtrim(v_function.prosrc, E' \n\t;'), v_function.names));
    v_count := v_count + 1;
  end loop;
  return v_count;
end
$function$;

create or replace function liftbase_meta.distribute_on_citus()
returns text
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_result text;
begin
  if exists (select from pg_extension where extname = 'citus') then
    -- Before the catalog is distributed (the first run): its shards are made without them.
    -- Afterwards the tables have none left, and this does nothing.
    set local citus.enable_unsafe_triggers = on;
    drop trigger if exists foods_catalog_version on app.foods;
    drop trigger if exists food_portions_catalog_version on app.food_portions;
  end if;
  v_result := liftbase_meta.drop_account_triggers_on_citus();
  if not exists (select from pg_extension where extname = 'citus') then
    return v_result;
  end if;
  perform liftbase_meta.drop_catalog_shard_triggers_on_citus();
  perform liftbase_meta.sql_functions_to_plpgsql_on_citus();
  return v_result;
end
$function$;

comment on function liftbase_meta.distribute_on_citus() is
  'On Citus: distributes the tables (distribute_tables_on_citus), drops the reference tables'' triggers that write other tables (drop_reference_table_writers_on_citus, drop_account_triggers_on_citus, and from the catalog''s shards drop_catalog_shard_triggers_on_citus), lets the functions that force a generic plan take custom plans (prepare_api_on_citus), makes the SQL functions Citus cannot plan PL/pgSQL (sql_functions_to_plpgsql_on_citus). Idempotent; liftbase migrate calls it when the citus extension is installed.';

revoke execute on function liftbase_meta.distribute_on_citus() from public;
revoke execute on function liftbase_meta.drop_account_triggers_on_citus() from public;
revoke execute on function liftbase_meta.drop_catalog_shard_triggers_on_citus() from public;
revoke execute on function liftbase_meta.sql_functions_to_plpgsql_on_citus() from public;
