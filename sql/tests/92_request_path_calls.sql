-- The request path plans once per connection. A SQL function that is not inlined into its
-- caller (one reading a table, one declared stricter than its body, one using a subquery
-- argument more than once, a security definer) is parsed and planned again on every call:
-- 0.05 to 4 ms each, more than the rest of many requests. So authenticating and the hot
-- reads call only PL/pgSQL functions (whose plans are cached) and inlined SQL ones: with
-- track_functions = 'all', a function that runs as a call of its own is counted in
-- pg_stat_xact_user_functions, an inlined one is not.
begin;
\ir support/helpers.psql
select plan(2);

set local track_functions = 'all';
select pg_temp.sign_up('reader', 'request-path@example.com', 'request path password');
select pg_temp.call('onboarding_complete', 'reader', '{"goal_type": "maintaining", "goal_rate_per_week": 0,
  "height_cm": 180, "weight_kg": 80, "age_years": 35, "sex": "male", "activity_level": "moderate", "timezone": "UTC"}');
select pg_temp.call('entry_create', 'reader', '{"name": "Oats", "calories": 380, "protein_g": 13, "carbs_g": 60,
  "fat_g": 7, "source": "manual", "meal_type": "breakfast"}');
select pg_temp.call('sessions_create', 'reader', jsonb_build_object('name', 'Push', 'exercises', jsonb_build_array(
  jsonb_build_object('exercise_name', 'Barbell Bench Press', 'sets', jsonb_build_array(
    jsonb_build_object('reps', 5, 'weight_kg', 100, 'set_type', 'working'))))));

-- Calls so far of every SQL-language function of app, auth and api.
create temporary table sql_function_calls as
select p.oid, p.oid::regprocedure::text as function, coalesce(pg_stat_get_xact_function_calls(p.oid), 0) as calls
  from pg_proc as p
 where p.pronamespace in ('app'::regnamespace, 'auth'::regnamespace, 'api'::regnamespace)
   and p.prolang = (select l.oid from pg_language as l where l.lanname = 'sql');

-- The SQL functions that ran as calls of their own since the snapshot.
create function pg_temp.sql_functions_called() returns text[] language sql as $$
  select coalesce(array_agg(c.function order by c.function), '{}')
    from sql_function_calls as c
   where coalesce(pg_stat_get_xact_function_calls(c.oid), 0) > c.calls
$$;

select is(pg_temp.sql_functions_called(), '{}', 'the snapshot itself calls none');

select pg_temp.call('me', 'reader', null);
select pg_temp.call('metrics_today', 'reader', null);
select pg_temp.call('nutrition_daily', 'reader', null);
select pg_temp.call('entries_list', 'reader', null);
select pg_temp.call('sessions_list', 'reader', null);
select pg_temp.call('analytics_volume', 'reader', null);
select pg_temp.call('food_search', 'reader', null, '{"q": "oats"}');
select is(pg_temp.sql_functions_called(), '{}',
  'authenticating and the hot reads call no SQL function that is planned on every call');

select * from finish();
rollback;
