-- Rules that live in one named function each, with hand-worked examples: which sets are
-- working sets and which ones progression reads, weekly volume per muscle (the API and the
-- report agree), replaying a client_id, date ranges and pages, and DELETE /me's password.
begin;
\ir support/helpers.psql
select plan(50);

select pg_temp.sign_up('a', 'rules-a@example.com', 'rules a pass');
select pg_temp.sign_up('b', 'rules-b@example.com', 'rules b pass');

-- The status the last call set for its answer (null: the endpoint's own), unlike the shared
-- pg_temp.status(), which reads null as 200: a replay must be told apart from a creation.
create function pg_temp.status_set() returns text language sql as $$
  select nullif(current_setting('liftbase.response_status', true), '')
$$;

-- The plan of a query, one text.
create function pg_temp.plan_of(p_query text) returns text language plpgsql as $$
declare
  v_line text;
  v_plan text := '';
begin
  for v_line in execute 'explain (verbose, costs off) ' || p_query loop
    v_plan := v_plan || v_line || E'\n';
  end loop;
  return v_plan;
end $$;

-- Working sets and progression sets -----------------------------------------------------------

select is(array(select t from unnest(array['warmup', 'working', 'dropset', 'failure']) as t where app.counts_as_working_set(t)),
  array['working', 'dropset', 'failure'], 'a working set is any set but a warm-up');
select is(array(select t from unnest(array['warmup', 'working', 'dropset', 'failure']) as t where app.counts_for_progression(t)),
  array['working', 'failure'], 'progression reads working sets and sets to failure, not drop sets');

select ok(pg_temp.plan_of('select count(*) from app.session_sets as x where app.counts_as_working_set(x.set_type)')
            like '%<> ''warmup''%'
          and pg_temp.plan_of('select count(*) from app.session_sets as x where app.counts_for_progression(x.set_type)')
            like '%''{working,failure}''%',
  'both rules are inlined into the queries that use them');

select is(
  (select array_agg(p.oid::regprocedure::text order by 1) from pg_proc as p
     join pg_namespace as n on n.oid = p.pronamespace and n.nspname in ('api', 'app', 'auth', 'reporting')
    where p.prosrc ~* $$set_type\s*(<>|!=)\s*'warmup'|set_type\s+(not\s+)?in\s*\($$
      and p.oid not in ('app.counts_as_working_set(text)'::regprocedure, 'app.counts_for_progression(text)'::regprocedure)),
  null,
  'no other function decides by itself which sets are working sets');

set local role liftbase_api;

-- A Monday of bench press: warm-up 20 × 10 (RPE 5), working 60 × 5 (RPE 8), drop set 40 × 8
-- (RPE 9), to failure 60 × 3 (RPE 10). Working sets: 3 of 4; volume 60·5 + 40·8 + 60·3 =
-- 300 + 320 + 180 = 800 kg; RPE of the working sets 8, 9, 10: mean 9.
create temporary table sessions as
select 'monday' as name, pg_temp.call('sessions_create', 'a', jsonb_build_object(
  'session_date', '2026-03-02',
  'exercises', jsonb_build_array(jsonb_build_object('exercise_name', 'Barbell Bench Press', 'sets', '[
      {"reps": 10, "weight_kg": 20, "rpe": 5, "set_type": "warmup"}, {"reps": 5, "weight_kg": 60, "rpe": 8},
      {"reps": 8, "weight_kg": 40, "rpe": 9, "set_type": "dropset"},
      {"reps": 3, "weight_kg": 60, "rpe": 10, "set_type": "failure"}]'::jsonb)))) as session;
select is((select jsonb_build_array(i -> 'set_count', i -> 'working_sets', i -> 'volume_kg')
             from jsonb_array_elements(pg_temp.call('sessions_list', 'a', null) -> 'items') as i),
  '[4, 3, 800]'::jsonb, 'the session''s totals: 4 sets, 3 working, 800 kg');
select is((select jsonb_build_array(s -> 'working_sets', s -> 'volume_kg')
             from pg_temp.call('weekly_summary', 'a', null, '{"week_start": "2026-03-02"}') as s),
  '[3, 800]'::jsonb, 'the weekly summary counts the same 3 working sets and 800 kg');
select is((select jsonb_build_array(r -> 'sets_with_rpe', r -> 'mean_rpe')
             from pg_temp.call('analytics_rpe_distribution', 'a', null, '{"from": "2026-03-02", "to": "2026-03-08"}') as r),
  '[3, 9.00]'::jsonb, 'the RPE distribution reads the 3 working sets: mean (8 + 9 + 10) / 3 = 9');

-- Weekly volume: the API and the report -------------------------------------------------------

-- Own exercises with known muscles. Week of Monday 2026-03-09, user a: press (chest,
-- triceps) 3 working sets + a warm-up on Monday, 2 drop sets on Wednesday; curl (biceps) 2
-- sets. Press: 5 sets → chest 5, triceps 2.5; curl → biceps 2; working sets 7. User b: press
-- 1 set → chest 1, triceps 0.5. The report sums users: chest 6 (2 users), triceps 3, biceps 2.
create temporary table exercises as
select 'a press' as name, pg_temp.call('exercise_create', 'a', '{"name": "Rule Press", "primary_muscles": ["chest"],
                                                              "secondary_muscles": ["triceps"]}') ->> 'id' as id
union all
select 'a curl', pg_temp.call('exercise_create', 'a', '{"name": "Rule Curl", "primary_muscles": ["biceps"]}') ->> 'id'
union all
select 'b press', pg_temp.call('exercise_create', 'b', '{"name": "Rule Press", "primary_muscles": ["chest"],
                                                      "secondary_muscles": ["triceps"]}') ->> 'id';
insert into sessions select 'volume monday', pg_temp.call('sessions_create', 'a', jsonb_build_object(
  'session_date', '2026-03-09',
  'exercises', jsonb_build_array(
    jsonb_build_object('exercise_id', (select id from exercises where name = 'a press'), 'sets', '[
      {"reps": 10, "weight_kg": 20, "set_type": "warmup"}, {"reps": 5, "weight_kg": 60}, {"reps": 5, "weight_kg": 60},
      {"reps": 5, "weight_kg": 60}]'::jsonb),
    jsonb_build_object('exercise_id', (select id from exercises where name = 'a curl'), 'sets', '[
      {"reps": 10, "weight_kg": 15}, {"reps": 10, "weight_kg": 15}]'::jsonb))));
insert into sessions select 'volume wednesday', pg_temp.call('sessions_create', 'a', jsonb_build_object(
  'session_date', '2026-03-11',
  'exercises', jsonb_build_array(jsonb_build_object('exercise_id', (select id from exercises where name = 'a press'), 'sets', '[
      {"reps": 8, "weight_kg": 40, "set_type": "dropset"}, {"reps": 8, "weight_kg": 30, "set_type": "dropset"}]'::jsonb))));
insert into sessions select 'volume b', pg_temp.call('sessions_create', 'b', jsonb_build_object(
  'session_date', '2026-03-10',
  'exercises', jsonb_build_array(jsonb_build_object('exercise_id', (select id from exercises where name = 'b press'),
    'sets', '[{"reps": 5, "weight_kg": 50}]'::jsonb))));

select is(
  (select w from jsonb_array_elements(pg_temp.call('analytics_volume', 'a', null, '{"from": "2026-03-09", "to": "2026-03-15"}')
                                      -> 'weeks') as w),
  '{"week_start": "2026-03-09", "week_end": "2026-03-15", "working_sets": 7,
    "sets": {"biceps": 2, "chest": 5, "triceps": 2.5},
    "flags": {"biceps": "below_target", "chest": "below_target", "triceps": "below_target"}}'::jsonb,
  '/analytics/volume answers those rows, flagged below the 10–20 sets of a hypertrophy goal');
select ok(pg_temp.plan_of($$select * from app.weekly_muscle_volume('00000000-0000-0000-0000-000000000000', '2026-03-09', '2026-03-15')$$)
            not like '%Function Scan on app.weekly_muscle_volume%',
  'app.weekly_muscle_volume is inlined into the query that calls it');
reset role;
select is(
  (select array_agg(row(v.week, v.working_sets, v.muscle, v.sets)::text order by v.muscle)
     from app.weekly_muscle_volume((select user_id from tokens where name = 'a'), '2026-03-09', '2026-03-15') as v),
  array['(2026-03-09,7,biceps,2)', '(2026-03-09,7,chest,5)', '(2026-03-09,7,triceps,2.5)'],
  'app.weekly_muscle_volume: press 5 sets → chest 5, triceps 2.5; curl 2 sets → biceps 2; 7 working sets');
set local role liftbase_reporter;
select is(
  (select array_agg(v::text order by v.muscle) from reporting.weekly_training_volume as v where v.week = '2026-03-09'),
  array['(2026-03-09,biceps,2.0,1)', '(2026-03-09,chest,6.0,2)', '(2026-03-09,triceps,3.0,2)'],
  'the report sums each user''s weekly volume: chest 5 + 1, triceps 2.5 + 0.5, biceps 2');
reset role;
select ok(not has_function_privilege('liftbase_reporter', 'app.weekly_muscle_volume(uuid, date, date)', 'execute')
          and not has_function_privilege('liftbase_reporter', 'app.muscle_credits(text[], text[])', 'execute'),
  'the reporter reaches weekly volume through the report only');

-- Replaying a client_id -----------------------------------------------------------------------

set local role liftbase_api;
create temporary table replays (name text primary key, answer jsonb, status text);
insert into replays select 'entry first', pg_temp.call('entry_create', 'a',
  '{"client_id": "0f0e0d0c-0b0a-4909-8807-060504030201", "name": "Oats", "calories": 380, "source": "manual"}'), pg_temp.status_set();
insert into replays select 'entry again', pg_temp.call('entry_create', 'a',
  '{"client_id": "0f0e0d0c-0b0a-4909-8807-060504030201", "name": "Other", "calories": 1, "source": "manual"}'), pg_temp.status_set();
select is((select array_agg(status order by name desc) from replays where name like 'entry%'), array[null, '200'],
  'a diary entry: created, then its replay answered 200');
select ok((select count(distinct answer ->> 'id') = 1 and bool_and(answer ->> 'name' = 'Oats') from replays where name like 'entry%'),
  'the replay answers the first entry as it was, and writes nothing');
insert into replays select 'session first', pg_temp.call('sessions_create', 'a',
  '{"client_id": "1f0e0d0c-0b0a-4909-8807-060504030201", "session_date": "2026-03-16", "name": "First",
    "exercises": [{"exercise_name": "Barbell Squat", "sets": [{"reps": 5, "weight_kg": 100}]}]}'), pg_temp.status_set();
insert into replays select 'session again', pg_temp.call('sessions_create', 'a',
  '{"client_id": "1f0e0d0c-0b0a-4909-8807-060504030201", "session_date": "2026-03-17", "name": "Other",
    "exercises": [{"exercise_name": "Barbell Squat", "sets": [{"reps": 5, "weight_kg": 100}]}]}'), pg_temp.status_set();
select is((select array_agg(status order by name desc) from replays where name like 'session%'), array[null, '200'],
  'a session: created, then its replay answered 200');
select ok((select count(distinct answer ->> 'id') = 1 and bool_and(answer ->> 'name' = 'First') from replays where name like 'session%'),
  'the replay answers the first session');
-- A planned session is logged into a session of its own: a client_id used before is a 409.
create temporary table programs as
select pg_temp.call('program_create', 'a', '{"goal": "strength", "training_age": "novice", "days_per_week": 3}') as program;
select is(pg_temp.error_of('program_session_log', 'a',
            '{"client_id": "1f0e0d0c-0b0a-4909-8807-060504030201",
              "exercises": [{"exercise_name": "Barbell Squat", "sets": [{"reps": 5, "weight_kg": 100}]}]}',
            jsonb_build_object('id', pg_temp.call('program_next', 'a', null) ->> 'id')) ->> 'code',
  'conflict', 'logging a planned session with a client_id used before: 409 conflict');
select is(pg_temp.error_of('entry_create', 'a', '{"client_id": "not a uuid", "name": "Oats", "calories": 380, "source": "manual"}')
            -> 'fields', '{"client_id": "must be a UUID"}',
  'a diary entry''s client_id that is no UUID is a 422 naming it, as on every create');
-- Every create asks app.replayed_key before writing; a writer reached without it does not
-- add a second row for a taken client_id: the unique index refuses it.
reset role;
select throws_ok(format($$select app.save_session(%L, null, %L)$$, (select user_id from tokens where name = 'a'),
                        '{"client_id": "1f0e0d0c-0b0a-4909-8807-060504030201", "session_date": "2026-03-18",
                          "exercises": [{"exercise_name": "Barbell Squat", "sets": [{"reps": 5, "weight_kg": 100}]}]}'),
  '23505', null, 'a session written past the replay rule with a taken client_id is refused, not duplicated');
select is(app.replayed_key('app.training_sessions', (select user_id from tokens where name = 'a'),
                           '{"client_id": "1f0e0d0c-0b0a-4909-8807-060504030201"}'),
  (select answer ->> 'id' from replays where name = 'session first'), 'app.replayed_key finds the first session');
select is(app.replayed_key('app.food_entries', (select user_id from tokens where name = 'b'),
                           '{"client_id": "0f0e0d0c-0b0a-4909-8807-060504030201"}'),
  null, 'another user''s client_id is not a replay');
select throws_ok($$select app.replayed_key('app.exercises', gen_random_uuid(), '{"client_id": "0f0e0d0c-0b0a-4909-8807-060504030201"}')$$,
  'app.replayed_key: app.exercises is not a table whose creates replay',
  'a table the rule does not know is a mistake it names');
select is((select array_agg(c.table_name::text order by c.table_name) from information_schema.columns as c
            where c.table_schema = 'app' and c.column_name = 'client_id'
              and (select p.prosrc from pg_proc as p where p.oid = 'app.replayed_key(regclass, uuid, jsonb)'::regprocedure)
                  !~ format('from app\.%s as t', c.table_name)),
  null, 'every table with a client_id is one app.replayed_key reads');

-- One writer per table: only the named function's body inserts into it, so every write of
-- a diary entry, a goal or a session goes through the same statements (and their triggers).
create function pg_temp.inserters(p_table text) returns text[] language sql as $$
  select array_agg(p.oid::regprocedure::text order by 1)
    from pg_proc as p join pg_namespace as n on n.oid = p.pronamespace
   where n.nspname in ('api', 'app', 'auth') and p.prosrc ~* ('insert\s+into\s+' || replace(p_table, '.', '\.') || '\M')
$$;
select is(pg_temp.inserters('app.food_entries'), array['app.write_food_entries(uuid,app.food_entries[])'],
  'diary entries are written by app.write_food_entries alone');
select is(pg_temp.inserters('app.goals'), array['app.save_goal(uuid,text,numeric,boolean,timestamp with time zone)'],
  'goals are written by app.save_goal alone');
select is(pg_temp.inserters('app.training_sessions'),
  array['app.write_sessions(uuid,app.training_sessions[],app.session_exercises[],app.session_sets[])'],
  'sessions are written by app.write_sessions alone');
select is(pg_temp.inserters('app.session_exercises') || pg_temp.inserters('app.session_sets'),
  array['app.write_session_children(uuid,uuid[],app.session_exercises[],app.session_sets[])',
        'app.write_session_children(uuid,uuid[],app.session_exercises[],app.session_sets[])'],
  'their exercises and sets by app.write_session_children alone');

-- Date ranges and pages -----------------------------------------------------------------------

select is((select row(r.from_date, r.to_date)::text from app.date_range_parameter('{"from": "2026-03-10"}') as r),
  '(2026-03-10,)', 'an open range keeps an open end');
select is((select row(r.from_date, r.to_date)::text
             from app.date_range_parameter('{"to": "2026-03-10"}', (select user_id from tokens where name = 'a'), 6) as r),
  '(2026-03-04,2026-03-10)', 'without from: p_default_days (6) before to');
select is((select row(r.from_date = app.user_today(u.user_id), r.to_date = app.user_today(u.user_id))::text
             from tokens as u, app.date_range_parameter('{}', u.user_id, 0) as r where u.name = 'a'),
  '(t,t)', 'without from and to, 0 days: the user''s today');
select is((select row(p.page_size, p.cursor_number, p.cursor_uuid)::text
             from app.page_parameters('{"limit": "5", "cursor": "42"}', 'number') as p),
  '(5,42,)', 'a page: limit and a number cursor');
select is((select row(p.page_size, p.cursor_number, p.cursor_uuid)::text
             from app.page_parameters('{"cursor": "0f0e0d0c-0b0a-4909-8807-060504030201"}', 'uuid') as p),
  '(50,,0f0e0d0c-0b0a-4909-8807-060504030201)', 'the default limit, a UUID cursor');
select is((select p.page_size from app.page_parameters('{"cursor": "whatever"}', 'none', 20) as p), 20,
  'a list that gives out no cursor reads none');

set local role liftbase_api;
select is(pg_temp.error_of('entries_list', 'a', null, '{"from": "2026-03-10", "to": "2026-03-01"}') ->> 'code',
  'invalid_parameter', 'GET /nutrition/entries with from after to: 400, not an empty list');
select is(pg_temp.error_of('sessions_list', 'a', null, '{"from": "2026-03-10", "to": "2026-03-01"}') ->> 'code',
  'invalid_parameter', 'GET /training/sessions with from after to: 400, not an empty list');
select is(pg_temp.error_of('analytics_weight', 'a', null, '{"from": "2026-03-10", "to": "2026-03-01"}') ->> 'code',
  'invalid_parameter', 'and analytics, as before');
-- One range limit: a year, the same answer from the diary as from analytics.
select is(pg_temp.error_of('entries_list', 'a', null, '{"from": "2025-01-01", "to": "2026-01-03"}') - 'state',
  jsonb_build_object('code', 'range_too_large', 'fields', jsonb_build_object('from', 'must be at most 366 days before to')),
  'GET /nutrition/entries over more than a year: 400 range_too_large naming from');
select is(pg_temp.error_of('analytics_rpe_distribution', 'a', null, '{"from": "2025-01-01", "to": "2026-01-03"}') - 'state',
  jsonb_build_object('code', 'range_too_large', 'fields', jsonb_build_object('from', 'must be at most 366 days before to')),
  'and GET /analytics/rpe-distribution: the same error');
select is(pg_temp.error_of('entries_list', 'a', null, '{"date": "2026-13-01"}') ->> 'state', 'LB400',
  'a bad ?date= is still a 400');
select is(jsonb_array_length(pg_temp.call('entries_list', 'a', null,
            jsonb_build_object('from', (select app.user_today(user_id) from tokens where name = 'a') - 1)) -> 'items'),
  1, 'entries ?from= alone: from that day to today (the Oats logged today)');
select is(jsonb_array_length(pg_temp.call('sessions_list', 'a', null, '{"from": "2026-03-09", "to": "2026-03-11"}') -> 'items'),
  2, 'sessions ?from=&to=: the two sessions of those days');
select is((select jsonb_build_array(jsonb_array_length(p -> 'items'), p ->> 'next_cursor' is not null)
             from pg_temp.call('sessions_list', 'a', null, '{"limit": "2"}') as p),
  '[2, true]'::jsonb, 'sessions page through the one reader: 2 of 4 and a cursor');
select is(pg_temp.error_of('sessions_list', 'a', null, '{"cursor": "42"}') ->> 'code', 'invalid_parameter',
  'a number is not a session cursor');
select is(pg_temp.error_of('body_metrics_list', 'a', null, '{"limit": "201"}') ->> 'code', 'invalid_parameter',
  'limit above 200 is a 400');

-- DELETE /me ------------------------------------------------------------------------------------

select is(pg_temp.error_of('me_delete', 'b', null),
  '{"state": "LB422", "code": "validation_failed", "fields": {"password": "is required"}}'::jsonb,
  'DELETE /me without a body: 422 naming password as required, not 403 invalid_password');
select is(pg_temp.error_of('me_delete', 'b', '{}') -> 'fields', '{"password": "is required"}'::jsonb,
  'nor with a body without password');
select is(pg_temp.error_of('me_delete', 'b', '{"password": 12345678}') -> 'fields', '{"password": "must be a string"}'::jsonb,
  'a password that is not a string is named too');
select is(pg_temp.call('me_delete', 'b', '{"password": "not the password"}') -> 'error' ->> 'code', 'invalid_password',
  'a wrong password is still 403 invalid_password');
select is(pg_temp.error_of('me_delete', 'b', '{"password": "rules b pass"}'), null, 'the right password deletes the account');

-- Every bad query parameter is named in fields, as a bad body member is.
select is(array(
  select c.function || ' ' || coalesce(pg_temp.error_of(c.function, 'a', null, c.args) ->> 'code', 'no error') || ' '
         || coalesce((pg_temp.error_of(c.function, 'a', null, c.args) -> 'fields')::text, 'no fields')
    from (values ('exercises_list', '{"muscle": "wings"}'::jsonb), ('exercises_list', '{"category": "juggling"}'),
                 ('exercises_list', '{"equipment": "hoverboard"}'), ('export_json', '{"format": "csv"}'),
                 ('analytics_nutrition', '{"bucket": "year"}'), ('analytics_nutrition', '{"bucket": "day", "from": "1900-01-01"}'),
                 ('exercise_substitutions', jsonb_build_object('id', gen_random_uuid(), 'goal', 'fun')),
                 ('program_next', '{"mode": "leisurely"}')) as c (function, args)
   order by 1),
  array[
    'analytics_nutrition invalid_bucket {"bucket": "must be day, week or month"}',
    'analytics_nutrition range_too_large {"from": "must leave at most 2000 days up to to"}',
    'exercise_substitutions invalid_goal {"goal": "must be strength or hypertrophy"}',
    'exercises_list invalid_parameter {"category": "must be one of strength, stretching, plyometrics, powerlifting, olympic weightlifting, strongman, cardio"}',
    'exercises_list invalid_parameter {"equipment": "is not an id of GET /equipment"}',
    'exercises_list invalid_parameter {"muscle": "is not one of the 17 muscles"}',
    'export_json invalid_parameter {"format": "must be json (CSV files are at /export/{name}.csv)"}',
    'program_next invalid_parameter {"mode": "must be normal or short_on_time"}'],
  'a bad query parameter of exercises, export, analytics, substitutions or the program is named in fields');
reset role;

select * from finish();
rollback;
