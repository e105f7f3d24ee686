-- The request path plans once per connection. A SQL function that is not inlined into its
-- caller (one reading a table, one declared stricter than its body, one using a subquery
-- argument more than once, a security definer) is parsed and planned again on every call:
-- 0.05 to 4 ms each, more than the rest of many requests. So authenticating and the hot
-- reads call only PL/pgSQL functions (whose plans are cached) and inlined SQL ones: with
-- track_functions = 'all', a function that runs as a call of its own is counted in
-- pg_stat_xact_user_functions, an inlined one is not.
begin;
\ir support/helpers.psql
select plan(3);

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

-- The hot writes, as a server's connection runs them after its first few calls (PL/pgSQL
-- plans a statement for the values of each of its first five runs, folding the readers over
-- them; from the sixth on it keeps one plan): a session (5 exercises of several sets, by name and by id), a diary entry
-- from a catalog food and one typed in, and the search a diary entry starts from.
insert into app.foods (id, source, source_id, name, energy_kcal, protein_g, fat_g, carbs_g)
values ('00000000-0000-4000-8000-000000000092', 'off', 'request-path-92', 'Request path oats', 380, 13, 7, 60);
create function pg_temp.hot_writes() returns void language plpgsql as $f$
begin
  perform pg_temp.call('sessions_create', 'reader', jsonb_build_object('name', 'Full body', 'exercises', (
  select jsonb_agg(jsonb_build_object('exercise_name', n, 'sets', jsonb_build_array(
           jsonb_build_object('reps', 5, 'weight_kg', 100, 'rpe', 8),
           jsonb_build_object('reps', 5, 'weight_kg', 60, 'set_type', 'warmup'))))
    from unnest(array['Barbell Squat', 'Barbell Bench Press', 'Barbell Row', 'Overhead Press', 'Romanian Deadlift']) as n)
  || jsonb_build_array(jsonb_build_object('exercise_id', (select id from app.exercises where name = 'Barbell Deadlift'),
                                          'sets', jsonb_build_array(jsonb_build_object('reps', 3, 'weight_kg', 140))))));
  perform pg_temp.call('entry_create', 'reader', '{"food_item_id": "00000000-0000-4000-8000-000000000092", "servings": 1.5,
  "meal_type": "lunch", "source": "search"}');
  perform pg_temp.call('entry_create', 'reader', '{"name": "Apple", "calories": 95, "protein_g": 0.5, "carbs_g": 25,
  "fat_g": 0.3, "source": "manual", "meal_type": "snack"}');
  perform pg_temp.call('food_search', 'reader', null, '{"q": "request path"}');
end
$f$;
select pg_temp.hot_writes() from generate_series(1, 6);
update sql_function_calls set calls = coalesce(pg_stat_get_xact_function_calls(oid), 0);
select pg_temp.hot_writes();
select is(pg_temp.sql_functions_called(), '{}',
  'a session create, diary inserts and the search before them call no SQL function that is planned on every call');

select * from finish();
rollback;
