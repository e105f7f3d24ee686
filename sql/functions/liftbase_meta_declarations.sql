-- The helpers the function files call to declare what is not a function's text
-- (docs/architecture.md "Where a rule lives"), applied before every other function file:
-- - each trigger beside its function, in that function's file, as
--     select liftbase_meta.keep_trigger($$CREATE TRIGGER ... EXECUTE FUNCTION app.f()$$);
--   written as pg_get_triggerdef prints it;
-- - a function's other form on Citus, right after its definition.

-- Makes the trigger as declared when the live one differs or is missing, and leaves it alone
-- otherwise: applying the function files again (on every migrate after a migration) then
-- takes no lock on a hot table, where making a trigger takes SHARE ROW EXCLUSIVE, which
-- waits for every writer of the table and holds back the next ones until the files commit.
-- A declaration written otherwise than PostgreSQL prints it would be made again on every
-- run: Scripts/lib/check_function_texts.sh names it. p_only_on is 'single node' or 'citus'
-- for a trigger the other kind of deployment does not have (docs/scaling.md): there it is
-- dropped when present.
create or replace function liftbase_meta.keep_trigger(p_declaration text, p_only_on text default null)
returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_parts text[] := regexp_match(p_declaration, '^CREATE TRIGGER (\S+) .*? ON (\S+) ');
  v_table regclass;
  v_live text;
  v_wanted boolean;
begin
  if v_parts is null or p_only_on not in ('single node', 'citus') then
    raise exception 'liftbase_meta.keep_trigger: not a trigger as pg_get_triggerdef prints it, or an unknown deployment'
      using detail = format('%s (only on: %s)', p_declaration, p_only_on);
  end if;
  v_table := v_parts[2]::regclass;
  -- Which triggers each file declares, for the check of the function files.
  perform set_config('liftbase.declared_triggers',
                     coalesce(current_setting('liftbase.declared_triggers', true), '') || v_table::text || ' ' || v_parts[1] || E'\n', true);
  select pg_get_triggerdef(t.oid) into v_live from pg_trigger as t where t.tgrelid = v_table and t.tgname = v_parts[1];
  v_wanted := p_only_on is null
              or p_only_on = case when exists (select from pg_extension where extname = 'citus') then 'citus'
                                  else 'single node' end;
  -- As it should be: made as declared, or absent where this deployment has none.
  if v_live is not distinct from (case when v_wanted then p_declaration end) then
    return;
  end if;
  -- Citus takes trigger statements on its tables only with this.
  perform set_config('citus.enable_unsafe_triggers', 'on', true);
  if v_live is not null then
    execute format('drop trigger %I on %s', v_parts[1], v_table);
  end if;
  if v_wanted then
    execute p_declaration;
  end if;
end
$function$;

revoke execute on function liftbase_meta.keep_trigger(text, text) from public;

-- A function that needs another form on Citus says so right after its definition, so that
-- each kind of deployment has one text in force, the file's (Scripts/lib/check_function_texts.sh
-- checks it on both).

-- Citus cannot plan a statement that joins distributed tables while its parameters are
-- unbound ("could not create distributed plan"): a generic plan. Left to itself PostgreSQL
-- then takes a custom plan (Citus prices its generic plans out), but a function that forces
-- a generic plan on a single node (plan_cache_mode = force_generic_plan, so that a plan is
-- made once per connection) would fail, and so would every function it calls (the setting
-- holds for the call). On Citus it gets the default back.
create or replace function liftbase_meta.on_citus_plan_each_call(p_function regprocedure)
returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
begin
  if exists (select from pg_extension where extname = 'citus') then
    execute format('alter function %s reset plan_cache_mode', p_function);
  end if;
end
$function$;

-- Citus cannot plan a SQL function whose parameters filter a distributed table ("could not
-- create distributed plan", "parameterized queries for SQL functions"), and it does not
-- inline them either. A set-returning SQL function stays SQL on a single node, which inlines
-- it into the query that calls it; on Citus it becomes a PL/pgSQL function returning the
-- same query, each column cast to the declared type (a SQL function's result is cast, RETURN
-- QUERY's must match exactly; column names win over the output columns of the same name, as
-- in SQL).
create or replace function liftbase_meta.on_citus_as_plpgsql(p_function regprocedure)
returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_function record;
begin
  if not exists (select from pg_extension where extname = 'citus') then
    return;
  end if;
  select p.oid::regproc as name, pg_get_function_arguments(p.oid) as arguments,
         pg_get_function_result(p.oid) as result, p.provolatile, p.prosrc,
         (select string_agg(format('q.%I::%s', a.name, format_type(a.type, null)), ', ' order by a.n)
            from unnest(p.proargnames, p.proallargtypes, p.proargmodes) with ordinality as a (name, type, mode, n)
           where a.mode = 't') as columns,
         (select string_agg(quote_ident(a.name), ', ' order by a.n)
            from unnest(p.proargnames, p.proargmodes) with ordinality as a (name, mode, n)
           where a.mode = 't') as names
    into v_function
    from pg_proc as p
   where p.oid = p_function and p.prolang = (select l.oid from pg_language as l where l.lanname = 'sql');
  if not found then
    return;
  end if;
  execute format('create or replace function %s(%s) returns %s language plpgsql %s as %L',
                 v_function.name, v_function.arguments, v_function.result,
                 case v_function.provolatile when 'i' then 'immutable' when 's' then 'stable' else 'volatile' end,
                 format(E'#variable_conflict use_column\nbegin\n  return query select %s from (\n%s\n) as q (%s);\nend\n',
                        v_function.columns, rtrim(v_function.prosrc, E' \n\t;'), v_function.names));
end
$function$;

revoke execute on function liftbase_meta.on_citus_plan_each_call(regprocedure),
  liftbase_meta.on_citus_as_plpgsql(regprocedure) from public;
