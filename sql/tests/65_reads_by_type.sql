-- Reads that respect the tracking type: e1RM only from load × reps, muscle volume without
-- cardio, the weekly summary and workouts with time and distance, cardio per week and per
-- exercise, and personal records per type (paged). Every expected value is worked out by
-- hand next to it. Run as the API role after the accounts are made.
begin;
\ir support/helpers.psql
select plan(17);

select pg_temp.sign_up('a', 'reads-a@example.com', 'reads by type a');
set local role liftbase_api;

-- Monday 2 March: squats 100 × 5 and 110 × 3; weighted pull-ups +20 × 5 and 8 at bodyweight;
-- a plank of 60 s and one of 75 s; a 5 km run in 25 min. Thursday 5 March: squats 120 × 1, a
-- 3 km run in 14 min, a farmer's walk of 60 kg over 40 m. Monday 9 March: a 2 km run in 9 min.
select pg_temp.call('sessions_create', 'a', '{"session_date": "2026-03-02", "exercises": [
  {"exercise_name": "Barbell Squat", "sets": [{"reps": 5, "weight_kg": 100}, {"reps": 3, "weight_kg": 110}]},
  {"exercise_name": "Pull-Up", "sets": [{"reps": 5, "weight_kg": 20}, {"reps": 8}]},
  {"exercise_name": "Plank", "sets": [{"duration_seconds": 60}, {"duration_seconds": 75}]},
  {"exercise_name": "Treadmill Run", "sets": [{"duration_seconds": 1500, "distance_m": 5000}]}]}');
select pg_temp.call('sessions_create', 'a', '{"session_date": "2026-03-05", "exercises": [
  {"exercise_name": "Barbell Squat", "sets": [{"reps": 1, "weight_kg": 120}]},
  {"exercise_name": "Treadmill Run", "sets": [{"duration_seconds": 840, "distance_m": 3000}]},
  {"exercise_name": "Farmer''s Walk", "sets": [{"weight_kg": 60, "distance_m": 40}]}]}');
select pg_temp.call('sessions_create', 'a', '{"session_date": "2026-03-09", "exercises": [
  {"exercise_name": "Treadmill Run", "sets": [{"duration_seconds": 540, "distance_m": 2000}]}]}');

-- e1RM and volume -------------------------------------------------------------------------------
select is((select count(*) from app.session_exercises where exercise_name = 'Pull-Up' and best_e1rm_kg is not null), 0::bigint,
  'no e1RM from a bodyweight set with added load: +20 kg is not a fraction of a one-rep max');
select is(pg_temp.call('analytics_e1rm', 'a', null, jsonb_build_object('exercise_id', (select id from app.exercises where name = 'Pull-Up'),
                                                                       'from', '2026-03-01', 'to', '2026-03-31')) -> 'items',
  '[]', 'so the pull-up has no e1RM series');
create temporary table volume as
  select pg_temp.call('analytics_volume', 'a', null, '{"from": "2026-03-02", "to": "2026-03-08"}') -> 'weeks' -> 0 as week;
select is((select (week ->> 'working_sets')::integer from volume), 10,
  'the week''s working sets count every set: 3 squat, 2 pull-up, 2 plank, 2 run, 1 walk');
select is((select week -> 'sets' ->> 'abdominals' from volume), '2.5',
  'the planks are hard sets for the abdominals: 2 × 1, and the walk''s 0.5 (secondary)');
select is((select array[week -> 'sets' ->> 'quadriceps', week -> 'sets' ->> 'calves'] from volume), array['3', null],
  'the runs credit no muscle (cardio minutes are not hard sets): quadriceps 3 from the squats alone, no calves');

-- The weekly summary and workouts ---------------------------------------------------------------
select is(pg_temp.call('weekly_summary', 'a', null, '{"week_start": "2026-03-02"}') - 'days' - 'week_start' - 'week_end'
          - 'duration_minutes' - 'sessions' - 'working_sets' - 'volume_kg',
  '{"set_duration_seconds": 2475, "distance_m": 8040}',
  'the week: 60 + 75 + 1500 + 840 = 2475 s of timed sets, 5000 + 3000 + 40 = 8040 m');
select is((select jsonb_agg(jsonb_build_array(i -> 'set_duration_seconds', i -> 'distance_m') order by i ->> 'bucket_start')
             from jsonb_array_elements(pg_temp.call('analytics_workouts', 'a', null,
                    '{"bucket": "week", "from": "2026-03-02", "to": "2026-03-15"}') -> 'items') as i),
  '[[2475, 8040], [540, 2000]]', 'workouts per week carry the time and the distance');

-- Cardio ------------------------------------------------------------------------------------------
create temporary table cardio as select pg_temp.call('analytics_cardio', 'a', null, '{"from": "2026-03-01", "to": "2026-03-15"}') as r;
select is((select jsonb_agg(jsonb_build_array(w -> 'week_start', w -> 'duration_seconds', w -> 'distance_m', w -> 'pace_s_per_km'))
             from cardio, jsonb_array_elements(r -> 'weeks') as w),
  '[["2026-03-02", 2475, 8040, 292.5], ["2026-03-09", 540, 2000, 270.0]]',
  'per week: time, distance, pace over the sets with both (1500 + 840 s over 8 km = 292.5 s/km; the walk has no time)');
select is((select w -> 'pace_s_per_km' from cardio, jsonb_array_elements(r -> 'exercises') as w where w ->> 'exercise_name' = 'Treadmill Run'),
  '288.0', 'per exercise: the run, 2880 s over 10 km = 288 s/km');
select is((select w ->> 'duration_seconds' from cardio, jsonb_array_elements(r -> 'exercises') as w where w ->> 'exercise_name' = 'Plank'),
  '135', 'a timed exercise without distance: its time, no pace');

-- Records ------------------------------------------------------------------------------------------
create temporary table records as select pg_temp.call('analytics_records', 'a', null, '{}') as r;
create function pg_temp.records_of(p_name text) returns jsonb language sql as $$
  select i - 'exercise_id' - 'exercise_name' from records, jsonb_array_elements(r -> 'items') as i where i ->> 'exercise_name' = p_name
$$;
select is(pg_temp.records_of('Barbell Squat') - 'best_e1rm' - 'heaviest' - 'most_reps',
  '{"tracking_type": "weight_reps", "longest": null, "farthest": null, "fastest_pace": null}', 'a lift has no time or distance records');
select is(pg_temp.records_of('Barbell Squat') #>> '{heaviest,weight_kg}' || ' ' || (pg_temp.records_of('Barbell Squat') #>> '{best_e1rm,e1rm_kg}')
          || ' ' || (pg_temp.records_of('Barbell Squat') #>> '{most_reps,reps}'),
  '120 124.0 5', 'squat: heaviest 120; best e1RM 120 × (1 + 1/30) = 124 (110 × 3: 121, 100 × 5: 116.7); most reps 5');
select is(pg_temp.records_of('Pull-Up') - 'tracking_type' - 'most_reps' - 'heaviest',
  '{"best_e1rm": null, "longest": null, "farthest": null, "fastest_pace": null}', 'a bodyweight exercise: no e1RM');
select is(pg_temp.records_of('Treadmill Run') #>> '{fastest_pace,seconds_per_km}' || ' ' || (pg_temp.records_of('Treadmill Run') #>> '{farthest,distance_m}')
          || ' ' || (pg_temp.records_of('Treadmill Run') #>> '{longest,duration_seconds}'),
  '270.0 5000 1500', 'the run: fastest 2 km in 9 min (270 s/km), farthest 5 km, longest 25 min');
select is(pg_temp.records_of('Farmer''s Walk') -> 'fastest_pace', 'null', 'a carry of 40 m without time has no pace');
select is((select jsonb_array_length(r -> 'items') from records), 5, 'one item per exercise trained');

-- Paging: two at a time walks the same five in the same order.
select is((select array_agg(i ->> 'exercise_name' order by n)
             from (select i, n from jsonb_array_elements(pg_temp.call('analytics_records', 'a', null, '{"limit": "2"}') -> 'items') with ordinality as x (i, n)
                   union all
                   select i, 2 + n from jsonb_array_elements(pg_temp.call('analytics_records', 'a', null, jsonb_build_object('limit', '2', 'cursor',
                            pg_temp.call('analytics_records', 'a', null, '{"limit": "2"}') ->> 'next_cursor')) -> 'items') with ordinality as x (i, n)) as p),
  (select array_agg(i ->> 'exercise_name' order by n) from records, jsonb_array_elements(r -> 'items') with ordinality as x (i, n) where n <= 4),
  'the second page starts after the first');

select * from finish();
rollback;
