-- Catalog rules every schema change must keep (docs/architecture.md, scale-out and RLS):
-- user-owned tables force row-level security, have a policy, and lead their primary key
-- and unique constraints with user_id; the API role cannot touch auth's tables.
begin;
\ir support/helpers.psql
select plan(18);

create temporary view user_owned_tables as
select c.oid, c.relname, c.relrowsecurity, c.relforcerowsecurity
  from pg_class as c
  join pg_namespace as n on n.oid = c.relnamespace
 where n.nspname = 'app' and c.relkind in ('r', 'p')
   and exists (select from pg_attribute as a where a.attrelid = c.oid and a.attname = 'user_id' and not a.attisdropped);

select cmp_ok((select count(*) from user_owned_tables)::integer, '>=', 2,
  'the catalog check sees the user-owned tables');

select is(
  (select array_agg(relname order by relname) from user_owned_tables
    where not (relrowsecurity and relforcerowsecurity)),
  null,
  'every user-owned table has row-level security enabled and forced');

select is(
  (select array_agg(t.relname order by t.relname) from user_owned_tables as t
    where not exists (select from pg_policy as p where p.polrelid = t.oid)),
  null,
  'every user-owned table has a policy');

select is(
  (select array_agg(t.relname || ':' || i.indexrelid::regclass::text order by t.relname) from user_owned_tables as t
    join pg_index as i on i.indrelid = t.oid and i.indisunique
   where i.indkey[0] = 0
      or (select a.attname from pg_attribute as a where a.attrelid = t.oid and a.attnum = i.indkey[0]) <> 'user_id'),
  null,
  'every primary key and unique index of a user-owned table leads with user_id');

select is(
  (select array_agg(t.relname || ':' || con.conname order by t.relname) from user_owned_tables as t
    join pg_constraint as con on con.conrelid = t.oid and con.contype = 'f'
    join pg_class as target on target.oid = con.confrelid
   where target.oid in (select oid from user_owned_tables)
     and (select a.attname from pg_attribute as a where a.attrelid = t.oid and a.attnum = con.conkey[1]) <> 'user_id'),
  null,
  'every foreign key between user-owned tables includes user_id first');

select is(
  (select array_agg(t.relname order by t.relname) from user_owned_tables as t
    where not exists (select from pg_constraint as con where con.conrelid = t.oid and con.contype = 'p')),
  null,
  'every user-owned table has a primary key');

select is(
  (select array_agg(c.relname || ':' || p.privilege_type order by c.relname)
     from pg_class as c
     join pg_namespace as n on n.oid = c.relnamespace and n.nspname = 'auth'
    cross join lateral (values ('SELECT'), ('INSERT'), ('UPDATE'), ('DELETE')) as p (privilege_type)
    where c.relkind = 'r' and has_table_privilege('liftbase_api', c.oid, p.privilege_type)),
  null,
  'the API role has no privilege on any auth table');

-- An api function that authenticates inside a single SQL statement would read user-owned
-- rows before the user is set (RLS evaluates it once per statement, first): those that
-- authenticate must be PL/pgSQL and do it in a statement of its own.
select is(
  (select array_agg(p.proname order by p.proname)
     from pg_proc as p
     join pg_namespace as n on n.oid = p.pronamespace and n.nspname = 'api'
     join pg_language as l on l.oid = p.prolang
    where p.prosrc like '%auth.authenticate%'
      and (l.lanname = 'sql' or p.prosrc like '%(auth.authenticate(%')),
  null,
  'every api function authenticates in a statement of its own, never inside another call');

-- One request, one authentication: an api function that called another would authenticate
-- twice and tie two routes' answers together. Shared work is an app function.
select is(
  (select array_agg(distinct format('api.%s calls api.%s', p.proname, m[1]))
     from pg_proc as p
     join pg_namespace as n on n.oid = p.pronamespace and n.nspname = 'api'
    cross join lateral regexp_matches(p.prosrc, '\mapi\.([a-z_0-9]+)\s*\(', 'g') as m),
  null,
  'no api function calls another api function');

-- pg_restore creates domains before it loads table data in name order: a domain check that
-- calls a function reading a table can fail a restore. Such functions are immutable; the
-- one stable exception, app.is_timezone_name, reads the server's time zone database only.
select is(
  (select array_agg(distinct format('%s: %s', t.typname, d.refobjid::regprocedure))
     from pg_constraint as c
     join pg_type as t on t.oid = c.contypid
     join pg_namespace as n on n.oid = t.typnamespace and n.nspname in ('app', 'auth', 'api')
     join pg_depend as d on d.classid = 'pg_constraint'::regclass and d.objid = c.oid
                        and d.refclassid = 'pg_proc'::regclass
     join pg_proc as p on p.oid = d.refobjid
    where c.contype = 'c' and p.provolatile <> 'i' and p.oid <> 'app.is_timezone_name(text)'::regprocedure),
  null,
  'every function a domain check calls is immutable');
select ok(app.are_muscles(array(select name from app.muscles)) and (select count(*) from app.muscles) = 17
          and not app.are_muscles(array['gluteus']) and not app.are_muscles(array[null]),
  'the muscle list of the domain check is the muscles table');
select ok(app.are_templates(array(select id from app.templates)) and (select count(*) from app.templates) = 6
          and not app.are_templates(array['arms']),
  'the template list of the domain check is the templates table');

-- Request input is read one way (sql/functions/app_input.sql): a body member or a path or
-- query parameter cast by PostgreSQL itself takes free-form input ('infinity', 'today',
-- 'January 8, 1999' as a date, '5' as a number) or fails as a 500. Every cast of a ->> or
-- #>> of a value (or of the text elements of a JSON list) to another type than text, in an
-- api or app function, is listed unless it is a reader itself or reads JSON the server
-- built, named below with its function.
create function pg_temp.raw_input_casts() returns text[] language sql stable as $$
  with allowed (function, source, why) as (
    values
      ('api.analytics_nutrition', 'v_targets', 'app.effective_targets: the stored targets'),
      ('api.nutrition_daily', 'v_targets', 'app.effective_targets: the stored targets'),
      ('api.nutrition_daily', 'v_totals', 'app.daily_totals: sums of the diary'),
      ('api.entry_create', 'v_meal', 'app.custom_meal_json: a stored meal'),
      ('app.compute_targets', 'p_inputs', 'app.current_inputs: the stored profile'),
      ('app.targets_from_tdee', 'p_inputs', 'app.current_inputs: the stored profile'),
      ('app.metrics_explanations', 'i', 'the inputs stored with the health metrics'),
      ('app.record_targets', 'v_result', 'app.compute_targets: computed here'),
      ('app.record_adaptive_targets', 'v_result', 'app.targets_from_tdee: computed here'),
      ('app.record_adaptive_targets', 'p_estimate', 'app.expenditure_estimate: computed here'),
      ('app.program_session_json', 'x', 'sets built by app.program_plan'),
      ('app.trim_for_time', 'x', 'sets built by app.program_plan'),
      ('api.health_samples_sync', 'r', 'samples checked and read by app.health_sample_read')
  ),
  casts as (
    select p.oid::regproc::text as function, m[1] as cast_text, m[2] as source
      from pg_proc as p
      join pg_namespace as n on n.oid = p.pronamespace and n.nspname in ('api', 'app')
     cross join lateral regexp_matches(p.prosrc,
       '(\(\s*([a-z_][a-z_0-9]*)[^()]*?(?:->>|#>>)[^()]*\)\s*::\s*"?(?!text\M|jsonb?\M|character varying\M|varchar\M)[a-z_."]+'
       || '|cast\s*\(\s*([a-z_][a-z_0-9]*)[^()]*?(?:->>|#>>)[^()]*\s+as\s+(?!text\M|jsonb?\M)[a-z_."]+'
       || '|jsonb_array_elements_text\s*\([^;]*?\)\s*::\s*(?!text\M)[a-z_."]+)', 'gi') as r (m0)
     cross join lateral (select array[r.m0[1], coalesce(r.m0[2], r.m0[3])]) as x (m)
     where p.oid::regproc::text !~ '^app\.(read_[a-z_]+|input_[a-z_]+|id_parameter|number_id_parameter|date_parameter)$'
  )
  select array_agg(format('%s: %s', c.function, c.cast_text) order by c.function, c.cast_text)
    from casts as c
   where not exists (select from allowed as a where a.function = c.function and a.source = c.source)
$$;
select is(pg_temp.raw_input_casts(), null,
  'no api or app function casts a body member or a parameter itself: they are read by the readers of app_input.sql');
-- The check must see an offender: one planted here (and rolled back with the test).
create function app.planted_raw_cast(p_body jsonb) returns date language sql as $$ select (p_body ->> 'session_date')::date $$;
select is(pg_temp.raw_input_casts(), array['app.planted_raw_cast: (p_body ->> ''session_date'')::date'],
  'a planted cast of a body member is listed');
drop function app.planted_raw_cast(jsonb);

-- Functions are granted to the roles that call them, never left to PUBLIC (PostgreSQL grants
-- EXECUTE to PUBLIC on every new function; the owner role's default privileges revoke it).
create function pg_temp.public_functions() returns text[] language sql as $$
  select array_agg(p.oid::regprocedure::text order by p.oid::regprocedure::text)
    from pg_proc as p
    join pg_namespace as n on n.oid = p.pronamespace
   where n.nspname in ('app', 'api', 'auth', 'reporting', 'liftbase_meta')
     and has_function_privilege('public', p.oid, 'execute')
     and not exists (select from pg_depend as d
                      where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
$$;
select is(pg_temp.public_functions(), null, 'no function of Liftbase''s schemas may be executed by PUBLIC');

-- A security definer function runs with its owner's rights: with the caller's search_path it
-- could be made to call the caller's objects instead of ours.
create function pg_temp.definers_without_search_path() returns text[] language sql as $$
  select array_agg(p.oid::regprocedure::text order by p.oid::regprocedure::text)
    from pg_proc as p
    join pg_namespace as n on n.oid = p.pronamespace
   where n.nspname in ('app', 'api', 'auth', 'reporting', 'liftbase_meta') and p.prosecdef
     and not exists (select from unnest(p.proconfig) as c (setting) where c.setting like 'search_path=%')
$$;
select is(pg_temp.definers_without_search_path(), null, 'every security definer function sets its search_path');

-- Both checks must see an offender: planted here (and rolled back with the test).
create function app.planted_definer() returns integer language sql security definer as $$ select 1 $$;
grant execute on function app.planted_definer() to public;
select is(pg_temp.public_functions(), array['app.planted_definer()'], 'a planted function PUBLIC may execute is listed');
select is(pg_temp.definers_without_search_path(), array['app.planted_definer()'],
  'a planted security definer function without a search_path is listed');

select * from finish();
rollback;
