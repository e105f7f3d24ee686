-- Analytics: weekly volume by the overlap rule (warm-ups and unfinished sessions excluded),
-- estimated one-rep maxes against hand calculations (RPE chart and Epley), the RPE
-- distribution, nutrition and workouts per bucket, the weight trend against a hand-computed
-- series, and bad parameters. Run as the API role after the accounts are made.
begin;
\ir support/helpers.psql
select plan(53);

select pg_temp.sign_up('a', 'analytics-a@example.com', 'analytics a');
select pg_temp.sign_up('b', 'analytics-b@example.com', 'analytics b');

-- The sets of one week's muscle (null when the muscle is not listed).
create function pg_temp.muscle_sets(p_volume jsonb, p_week text, p_muscle text) returns numeric
language sql as $$
  select (w -> 'sets' ->> p_muscle)::numeric from jsonb_array_elements(p_volume -> 'weeks') as w where w ->> 'week_start' = p_week
$$;
create function pg_temp.muscle_flag(p_volume jsonb, p_week text, p_muscle text) returns text
language sql as $$
  select w -> 'flags' ->> p_muscle from jsonb_array_elements(p_volume -> 'weeks') as w where w ->> 'week_start' = p_week
$$;

-- Body weights are written as the owner: the API appends them only with a full profile.
insert into app.body_metrics (user_id, recorded_at, weight_kg)
select (select user_id from tokens where name = 'a'), w.at, w.kg
  from (values ('2026-03-01 08:00+00'::timestamptz, 80.0), ('2026-03-02 08:00+00', 81.0), ('2026-03-03 07:00+00', 79.0),
               ('2026-03-03 20:00+00', 79.0), ('2026-03-05 08:00+00', 80.5)) as w (at, kg);

set local role liftbase_api;

-- Sessions: a Monday with bench press (a warm-up and 3 working sets) and squats (2 sets),
-- a Wednesday of the same week with 18 bench sets, an in-progress session that must not
-- count, a session of the next week with RPE, and one of user b.
create temporary table sessions as
select 'monday' as name, pg_temp.call('sessions_create', 'a', jsonb_build_object(
  'session_date', '2026-03-02', 'started_at', '2026-03-02T18:00:00Z', 'finished_at', '2026-03-02T19:10:00Z',
  'exercises', jsonb_build_array(
    jsonb_build_object('exercise_name', 'Barbell Bench Press', 'sets', '[
      {"reps": 10, "weight_kg": 40, "set_type": "warmup"},
      {"reps": 5, "weight_kg": 100}, {"reps": 3, "weight_kg": 110}, {"reps": 8, "weight_kg": 90}]'::jsonb),
    jsonb_build_object('exercise_name', 'Barbell Squat', 'sets', '[{"reps": 5, "weight_kg": 140}, {"reps": 5, "weight_kg": 140}]'::jsonb)))) as session;
insert into sessions select 'wednesday', pg_temp.call('sessions_create', 'a', jsonb_build_object(
  'session_date', '2026-03-04', 'started_at', '2026-03-04T18:00:00Z', 'finished_at', '2026-03-04T18:50:00Z',
  'exercises', jsonb_build_array(jsonb_build_object('exercise_name', 'Barbell Bench Press',
    'sets', (select jsonb_agg('{"reps": 10, "weight_kg": 60}'::jsonb) from generate_series(1, 18))))));
insert into sessions select 'next week', pg_temp.call('sessions_create', 'a', jsonb_build_object(
  'session_date', '2026-03-10',
  'exercises', jsonb_build_array(jsonb_build_object('exercise_name', 'Barbell Bench Press', 'sets', '[
      {"reps": 5, "weight_kg": 100, "rpe": 8}, {"reps": 8, "weight_kg": 90, "rir": 2},
      {"reps": 15, "weight_kg": 60, "rpe": 9}, {"reps": 3, "weight_kg": 100, "rpe": 6}]'::jsonb))));
insert into sessions select 'unfinished', pg_temp.call('sessions_create', 'a', jsonb_build_object(
  'session_date', '2026-03-03', 'status', 'in_progress',
  'exercises', jsonb_build_array(jsonb_build_object('exercise_name', 'Barbell Bench Press', 'sets', '[{"reps": 5, "weight_kg": 200}]'::jsonb))));
insert into sessions select 'other user', pg_temp.call('sessions_create', 'b', jsonb_build_object(
  'session_date', '2026-03-02',
  'exercises', jsonb_build_array(jsonb_build_object('exercise_name', 'Barbell Bench Press', 'sets', '[{"reps": 5, "weight_kg": 300}]'::jsonb))));

-- Volume ------------------------------------------------------------------------------------------
create temporary table volume as
select pg_temp.call('analytics_volume', 'a', null, '{"from": "2026-03-03", "to": "2026-03-12"}') as v;
select is((select v ->> 'from' from volume), '2026-03-02', 'the range widens to the Monday of its first week');
select is((select v ->> 'to' from volume), '2026-03-15', 'and to the Sunday of its last');
-- Bench press (catalog: chest; shoulders, triceps), squat (quadriceps; glutes, hamstrings,
-- lower back, adductors): week of 2026-03-02 = 3 + 18 bench sets and 2 squat sets.
select is(pg_temp.muscle_sets((select v from volume), '2026-03-02', 'chest'), 21.0, 'chest: 1 per bench set, warm-up excluded (3 + 18)');
select is(pg_temp.muscle_sets((select v from volume), '2026-03-02', 'triceps'), 10.5, 'triceps: 0.5 per bench set');
select is(pg_temp.muscle_sets((select v from volume), '2026-03-02', 'shoulders'), 10.5, 'shoulders: 0.5 per bench set');
select is(pg_temp.muscle_sets((select v from volume), '2026-03-02', 'quadriceps'), 2.0, 'quadriceps: 1 per squat set');
select is(pg_temp.muscle_sets((select v from volume), '2026-03-02', 'adductors'), 1.0, 'adductors: 0.5 per squat set');
select is((select (w ->> 'working_sets')::integer from volume, jsonb_array_elements(v -> 'weeks') as w
            where w ->> 'week_start' = '2026-03-02'), 23, 'the week counts 23 working sets (the in-progress session not at all)');
select is(pg_temp.muscle_flag((select v from volume), '2026-03-02', 'chest'), 'above_target', '21 chest sets: above 20');
select is(pg_temp.muscle_flag((select v from volume), '2026-03-02', 'triceps'), null, '10.5 triceps sets: within 10–20');
select is(pg_temp.muscle_flag((select v from volume), '2026-03-02', 'quadriceps'), 'below_target', '2 quadriceps sets: below 10');
select is(pg_temp.muscle_sets((select v from volume), '2026-03-09', 'chest'), 4.0, 'the next week: 4 chest sets');
select is(pg_temp.muscle_sets(pg_temp.call('analytics_volume', 'b', null, '{"from": "2026-03-02", "to": "2026-03-08"}'), '2026-03-02', 'chest'),
  1.0, 'user b sees only their own set');

-- e1RM: Epley = w × (1 + reps / 30); RPE chart = w ÷ percent -------------------------------------
select is(round(app.e1rm_kg(100, 5, null), 3), 116.667, 'Epley: 100 kg × 5 → 116.667');
select is((select percent from app.rpe_chart where reps = 5 and rpe = 8), 81.1, 'the chart: 5 reps at RPE 8 are 81.1 %');
select is(round(app.e1rm_kg(100, 5, 81.1), 3), 123.305, 'RPE chart: 100 kg × 5 @ 8 → 100 ÷ 0.811 = 123.305');
select is((select count(*)::integer from app.rpe_chart where reps > 12 or rpe < 6.5), 0,
  'the chart has no cell for 15 reps or RPE 6: those sets use Epley');
select is((select count(*)::integer from (select reps - rpe from app.rpe_chart group by 1 having count(distinct percent) > 1) as d), 0,
  'every cell depends only on reps + (10 − RPE), as in the published chart');
create temporary table e1rm as
select pg_temp.call('analytics_e1rm', 'a', null,
  jsonb_build_object('exercise_id', md5('liftbase-exercise:barbell bench press')::uuid, 'from', '2026-03-01', 'to', '2026-03-31')) as r;
-- Monday: 100×5 → 116.67, 110×3 → 121.00, 90×8 → 114.00 (Epley); Wednesday 60×10 → 80.00;
-- next week: 100×5@8 → 123.30, 90×8 RIR 2 (RPE 8, 73.9 %) → 121.79, 60×15@9 → 90.00 (Epley),
-- 100×3@6 → 110.00 (Epley).
select is((select jsonb_agg(jsonb_build_array(i ->> 'session_date', (i ->> 'e1rm_kg')::numeric, i ->> 'method') order by i ->> 'session_date')
             from e1rm, jsonb_array_elements(r -> 'items') as i),
  '[["2026-03-02", 121.0, "epley"], ["2026-03-04", 80.0, "epley"], ["2026-03-10", 123.3, "rpe_chart"]]',
  'the best e1RM of each completed session with its method');
select is((select r ->> 'method' from e1rm), 'mixed', 'the answer says the methods were mixed');
select is((select i -> 'reps' from e1rm, jsonb_array_elements(r -> 'items') as i where i ->> 'session_date' = '2026-03-10'),
  '5', 'with the set it came from');
select is(pg_temp.call('analytics_e1rm', 'a', null,
  jsonb_build_object('exercise_id', md5('liftbase-exercise:barbell bench press')::uuid, 'from', '2026-03-01', 'to', '2026-03-05')) ->> 'method',
  'epley', 'without RPE the method is Epley');
select is(pg_temp.error_of('analytics_e1rm', 'a', null, '{}') ->> 'state', 'LB400', 'exercise_id is required');
select is(pg_temp.error_of('analytics_e1rm', 'a', null, '{"exercise_id": "bench"}') ->> 'state', 'LB400', 'a malformed exercise_id is 400');
select is(pg_temp.error_of('analytics_e1rm', 'a', null, '{"exercise_id": "00000000-0000-0000-0000-000000000000"}') ->> 'code',
  'exercise_not_found', 'an unknown exercise is 404');

-- Replacing a session refreshes what analytics read (the per-exercise totals of 0011).
create temporary table replaced as
select pg_temp.call('session_replace', 'a', jsonb_build_object('session_date', '2026-03-10',
  'exercises', jsonb_build_array(jsonb_build_object('exercise_name', 'Barbell Bench Press', 'sets', '[
      {"reps": 5, "weight_kg": 60, "set_type": "warmup"}, {"reps": 1, "weight_kg": 130, "rpe": 10}]'::jsonb))),
  jsonb_build_object('id', (select session ->> 'id' from sessions where name = 'next week'))) as session;
select is((select (i ->> 'e1rm_kg')::numeric from jsonb_array_elements(pg_temp.call('analytics_e1rm', 'a', null,
             jsonb_build_object('exercise_id', md5('liftbase-exercise:barbell bench press')::uuid, 'from', '2026-03-10')) -> 'items') as i),
  130.0, 'after a replace, the best set is the new single at RPE 10 (100 %)');
select is(pg_temp.muscle_sets(pg_temp.call('analytics_volume', 'a', null, '{"from": "2026-03-09", "to": "2026-03-15"}'), '2026-03-09', 'chest'),
  1.0, 'and the week counts its one working set');
select ok(pg_temp.call('session_replace', 'a', (select session from sessions where name = 'next week') - 'id' - 'created_at' - 'updated_at',
  jsonb_build_object('id', (select session ->> 'id' from sessions where name = 'next week'))) is not null, 'the session is put back');

-- RPE distribution ------------------------------------------------------------------------------------
create temporary table rpe as
select pg_temp.call('analytics_rpe_distribution', 'a', null,
  jsonb_build_object('exercise_id', md5('liftbase-exercise:barbell bench press')::uuid, 'from', '2026-03-01', 'to', '2026-03-31')) as r;
select is((select r -> 'items' from rpe),
  '[{"rpe": 6, "sets": 1, "share": 0.25}, {"rpe": 8, "sets": 2, "share": 0.5}, {"rpe": 9, "sets": 1, "share": 0.25}]',
  'sets per RPE (RIR 2 counts as RPE 8), warm-ups excluded');
select is((select (r ->> 'sets_without_rpe')::integer from rpe), 21, 'sets without RPE are counted apart');

-- A window, not the whole history ------------------------------------------------------------------
-- Without a range both reads answer the 12 weeks up to the user's today (the March sessions
-- above are older); a range is at most a year long.
select pg_temp.call('sessions_create', 'a', jsonb_build_object(
  'session_date', app.user_today((select user_id from tokens where name = 'a')) - 10,
  'exercises', jsonb_build_array(jsonb_build_object('exercise_name', 'Barbell Bench Press', 'sets', '[
      {"reps": 5, "weight_kg": 100, "rpe": 7}, {"reps": 5, "weight_kg": 102.5, "rpe": 8}]'::jsonb))));
create temporary table recent as
select pg_temp.call('analytics_e1rm', 'a', null, jsonb_build_object('exercise_id', md5('liftbase-exercise:barbell bench press')::uuid)) as e1rm,
       pg_temp.call('analytics_rpe_distribution', 'a', null) as rpe,
       app.user_today((select user_id from tokens where name = 'a')) as today;
select is((select jsonb_build_array(e1rm -> 'from', e1rm -> 'to', rpe -> 'from', rpe -> 'to') from recent),
  (select jsonb_build_array(today - 83, today, today - 83, today) from recent),
  'without from and to, e1RM and RPE distribution answer the 12 weeks up to today');
select is((select jsonb_agg(i -> 'session_date') from recent, jsonb_array_elements(e1rm -> 'items') as i),
  (select jsonb_build_array(today - 10) from recent), 'the e1RM series of that window holds its one session, not March''s');
select is((select rpe -> 'items' from recent), '[{"rpe": 7, "sets": 1, "share": 0.5}, {"rpe": 8, "sets": 1, "share": 0.5}]',
  'the RPE distribution of that window counts its two sets');
select is(pg_temp.call('analytics_rpe_distribution', 'a', null, '{"from": "2025-03-30", "to": "2026-03-31"}') ->> 'sets_with_rpe',
  '4', 'a range of a year (to 366 days after from) is answered');
select is(pg_temp.error_of('analytics_rpe_distribution', 'a', null, '{"from": "2025-03-29", "to": "2026-03-31"}') ->> 'code',
  'range_too_large', 'a day longer is 400 range_too_large');
select is(pg_temp.error_of('analytics_e1rm', 'a', null, jsonb_build_object('exercise_id', md5('liftbase-exercise:barbell bench press')::uuid,
                                                                           'from', '2020-01-01')) ->> 'code',
  'range_too_large', 'so is an e1RM series from years ago up to today');

-- Workouts per bucket ---------------------------------------------------------------------------------
create temporary table workouts as
select pg_temp.call('analytics_workouts', 'a', null, '{"bucket": "week", "from": "2026-03-02", "to": "2026-03-15"}') as r;
select is((select jsonb_agg(jsonb_build_array(i ->> 'bucket_start', (i ->> 'sessions')::integer, (i ->> 'sets')::integer,
                                              (i ->> 'working_sets')::integer, (i ->> 'volume_kg')::numeric,
                                              (i ->> 'duration_minutes')::integer) order by i ->> 'bucket_start')
             from workouts, jsonb_array_elements(r -> 'items') as i),
  '[["2026-03-02", 2, 24, 23, 13750, 120], ["2026-03-09", 1, 4, 4, 2420, 0]]',
  'per week: sessions, sets, working sets, volume (kg × reps of working sets), minutes');
select is(jsonb_array_length(pg_temp.call('analytics_workouts', 'a', null, '{"bucket": "day", "from": "2026-03-02", "to": "2026-03-08"}') -> 'items'),
  7, 'day buckets: one per day, empty days included');
select is((select (i ->> 'sessions')::integer from jsonb_array_elements(pg_temp.call('analytics_workouts', 'a', null,
             '{"bucket": "month", "from": "2026-03-10", "to": "2026-03-10"}') -> 'items') as i),
  3, 'a month bucket covers the whole month');
select is(pg_temp.error_of('analytics_workouts', 'a', null, '{"bucket": "year"}') ->> 'code', 'invalid_bucket', 'an unknown bucket is 400');
select is(pg_temp.error_of('analytics_workouts', 'a', null, '{"bucket": "day", "from": "1900-01-01", "to": "2999-12-31"}') ->> 'code',
  'range_too_large', 'a range of hundreds of thousands of days is 400');
select is(pg_temp.error_of('analytics_nutrition', 'a', null, '{"bucket": "day", "from": "2020-01-01", "to": "2025-06-24"}') ->> 'code',
  'range_too_large', '2,002 days is one bucket too many');
select is(pg_temp.error_of('analytics_nutrition', 'a', null, '{"bucket": "day", "from": "2020-01-01", "to": "2025-06-22"}'), null,
  '2,000 days are answered');
select is(pg_temp.error_of('analytics_volume', 'a', null, '{"from": "1900-01-01"}') ->> 'code', 'range_too_large',
  'volume weeks are bounded too');
select is(pg_temp.error_of('analytics_workouts', 'a', null, '{"from": "2026-02-30"}') ->> 'code', 'invalid_parameter', 'an impossible date is 400');
select is(pg_temp.error_of('analytics_workouts', 'a', null, '{"from": "2026-03-10", "to": "2026-03-01"}') ->> 'code',
  'invalid_parameter', 'from after to is 400');

-- Nutrition per bucket ----------------------------------------------------------------------------------
select count(pg_temp.call('entry_create', 'a', jsonb_build_object('name', 'Meal', 'source', 'manual', 'entry_date', d,
  'calories', c, 'protein_g', 100, 'carbs_g', 200, 'fat_g', 50)))
  from (values ('2026-03-02', 2000), ('2026-03-02', 500), ('2026-03-03', 1500), ('2026-03-10', 2200)) as e (d, c);
create temporary table nutrition as
select pg_temp.call('analytics_nutrition', 'a', null, '{"bucket": "week", "from": "2026-03-02", "to": "2026-03-15"}') as r;
select is((select jsonb_agg(jsonb_build_array(i ->> 'bucket_start', (i ->> 'logged_days')::integer,
                                              (i -> 'totals' ->> 'calories')::numeric, (i -> 'daily_average' ->> 'calories')::numeric,
                                              (i -> 'daily_average' ->> 'protein_g')::numeric) order by i ->> 'bucket_start')
             from nutrition, jsonb_array_elements(r -> 'items') as i),
  '[["2026-03-02", 2, 4000, 2000, 150], ["2026-03-09", 1, 2200, 2200, 100]]',
  'per week: totals, and averages over the days with entries');
select is((select r -> 'targets' from nutrition), 'null', 'no targets before onboarding');
select is((select i -> 'daily_average' from nutrition, jsonb_array_elements(pg_temp.call('analytics_nutrition', 'a', null,
             '{"bucket": "day", "from": "2026-03-04", "to": "2026-03-04"}') -> 'items') as i), 'null',
  'a day without entries has no average');

-- Weight trend: 80 → 80.1 (81) → 79.99 (79) → 80.041 (80.5); trend = trend + 0.1 × (raw − trend) ----
create temporary table weight as select pg_temp.call('analytics_weight', 'a', null, '{}') as r;
select is((select jsonb_agg(jsonb_build_array(i ->> 'date', (i ->> 'weight_kg')::numeric, (i ->> 'trend_kg')::numeric) order by i ->> 'date')
             from weight, jsonb_array_elements(r -> 'items') as i),
  '[["2026-03-01", 80.0, 80.0], ["2026-03-02", 81.0, 80.1], ["2026-03-03", 79.0, 79.99], ["2026-03-05", 80.5, 80.04]]',
  'raw and trend weight per day, a day''s entries averaged');
select is((select (i ->> 'trend_kg')::numeric from jsonb_array_elements(pg_temp.call('analytics_weight', 'a', null,
             '{"from": "2026-03-05"}') -> 'items') as i), 80.04, 'a window''s trend continues the whole history');
select is((select (r ->> 'trend_change_kg')::numeric from weight), 0.04, 'the trend change over the window');
select is(jsonb_array_length(pg_temp.call('analytics_weight', 'b', null, '{}') -> 'items'), 0, 'user b has no weights');

select * from finish();
rollback;
