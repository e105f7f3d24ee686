-- Tracking types: the catalog rule, and sets that fit their exercise's type (one test per
-- type, accepted and refused), own exercises setting and changing their type. Run as the
-- API role after the accounts are made.
begin;
\ir support/helpers.psql
select plan(45);

select pg_temp.sign_up('a', 'tracking-a@example.com', 'tracking a');

-- A session with one exercise (by catalog name) and one set; its answer or its error fields.
create function pg_temp.one_set(p_exercise text, p_set jsonb) returns jsonb language sql as $$
  select jsonb_build_object('exercises', jsonb_build_array(jsonb_build_object('exercise_name', p_exercise,
                                                                              'sets', jsonb_build_array(p_set))))
$$;
create function pg_temp.fields(p_exercise text, p_set jsonb) returns jsonb language sql as $$
  select pg_temp.error_of('sessions_create', 'a', pg_temp.one_set(p_exercise, p_set)) -> 'fields'
$$;
create function pg_temp.stored(p_exercise text, p_set jsonb) returns jsonb language sql as $$
  select pg_temp.call('sessions_create', 'a', pg_temp.one_set(p_exercise, p_set)) -> 'exercises' -> 0 -> 'sets' -> 0
$$;

-- The rule over the built-ins --------------------------------------------------------------------------
select is((select tracking_type::text from app.exercises where name = 'Plank'), 'duration', 'a plank is timed');
select is((select tracking_type::text from app.exercises where name = 'Farmer''s Walk'), 'weight_distance', 'a carry is load over distance');
select is((select tracking_type::text from app.exercises where name = 'Treadmill Run'), 'distance_duration', 'cardio is distance and time');
select is((select tracking_type::text from app.exercises where name = 'Pull-Up'), 'bodyweight_reps', 'body only is bodyweight plus load');
select is((select tracking_type::text from app.exercises where name = 'Box Jump'), 'reps_only', 'plyometrics are reps');
select is((select tracking_type::text from app.exercises where name = 'Barbell Squat'), 'weight_reps', 'a barbell lift is load and reps');
select is(app.derived_tracking_type('Assisted Pull-Up', 'strength', 'machine')::text, 'assisted_bodyweight',
  'an assisted movement takes assistance');
select is(app.derived_tracking_type('Sledgehammer Swings', 'strongman', 'other')::text, 'reps_only',
  'the longest matching exception wins');

set local role liftbase_api;

-- One type at a time: accepted, and refused naming the field -------------------------------------------
select is(pg_temp.stored('Barbell Squat', '{"reps": 5, "weight_kg": 100}') ->> 'weight_kg', '100', 'weight_reps: load and reps');
select is(pg_temp.fields('Barbell Squat', '{"reps": 5}'), '{"exercises[0].sets[0].weight_kg": "is required"}',
  'weight_reps: no load is 422 naming weight_kg');
select is(pg_temp.fields('Barbell Squat', '{"reps": 5, "weight_kg": 100, "duration_seconds": 30}'),
  '{"exercises[0].sets[0].duration_seconds": "is not taken by weight_reps exercises"}', 'weight_reps: no duration');
select is(pg_temp.stored('Box Jump', '{"reps": 10}') ->> 'weight_kg', null, 'reps_only: reps, no load');
select is(pg_temp.fields('Box Jump', '{"reps": 10, "weight_kg": 0}'),
  '{"exercises[0].sets[0].weight_kg": "is not taken by reps_only exercises"}', 'reps_only: a load of 0 is refused too');
select is(pg_temp.stored('Pull-Up', '{"reps": 8}') ->> 'reps', '8', 'bodyweight_reps: reps alone, no 0 kg needed');
select is(pg_temp.stored('Pull-Up', '{"reps": 5, "weight_kg": 20}') ->> 'weight_kg', '20', 'bodyweight_reps: the load is added');
select is(pg_temp.fields('Pull-Up', '{"weight_kg": 20}'), '{"exercises[0].sets[0].reps": "is required"}',
  'bodyweight_reps: reps are required');
select is(pg_temp.fields('Pull-Up', '{"reps": 5, "assistance_kg": 20}'),
  '{"exercises[0].sets[0].assistance_kg": "is not taken by bodyweight_reps exercises"}', 'bodyweight_reps: no assistance');
select is(pg_temp.stored('Plank', '{"duration_seconds": 60}') ->> 'duration_seconds', '60', 'duration: a 60-second plank');
select is(pg_temp.fields('Plank', '{"reps": 1, "weight_kg": 0}'),
  '{"exercises[0].sets[0].reps": "is not taken by duration exercises", "exercises[0].sets[0].weight_kg": "is not taken by duration exercises", "exercises[0].sets[0].duration_seconds": "is required"}',
  'duration: reps and load are refused, the duration required');
select is(pg_temp.fields('Plank', '{"duration_seconds": 86401}'),
  '{"exercises[0].sets[0].duration_seconds": "must be a whole number of seconds from 1 to 86400 (24 hours)"}',
  'duration: beyond 24 hours is 422');
select is(pg_temp.stored('Treadmill Run', '{"distance_m": 5000, "duration_seconds": 1500}') ->> 'distance_m', '5000',
  'distance_duration: 5 km in 25 minutes');
select is(pg_temp.fields('Treadmill Run', '{"distance_m": 0.05, "duration_seconds": 1500}'),
  '{"exercises[0].sets[0].distance_m": "must be between 0.1 and 1000000 metres (1,000 km)"}', 'distance below 0.1 m is 422');
select is(pg_temp.fields('Treadmill Run', '{"distance_m": 5000}'), '{"exercises[0].sets[0].duration_seconds": "is required"}',
  'distance_duration: the time is required');
select is(pg_temp.stored('Farmer''s Walk', '{"weight_kg": 40, "distance_m": 30}') - array['rpe', 'rir', 'tempo', 'rest_seconds'],
  '{"reps": null, "weight_kg": 40, "set_type": "working", "distance_m": 30, "assistance_kg": null, "duration_seconds": null}',
  'weight_distance: 40 kg over 30 m');
select is(pg_temp.fields('Farmer''s Walk', '{"weight_kg": 40}'), '{"exercises[0].sets[0].distance_m": "is required"}',
  'weight_distance: the distance is required');

-- Own exercises: weight_duration and assisted_bodyweight, and changing the type ---------------------------
create temporary table own as select
  pg_temp.call('exercise_create', 'a', '{"name": "Weighted Wall Sit", "primary_muscles": ["quadriceps"], "tracking_type": "weight_duration"}') as held,
  pg_temp.call('exercise_create', 'a', '{"name": "Band Pull-Up", "primary_muscles": ["lats"], "tracking_type": "assisted_bodyweight"}') as helped,
  pg_temp.call('exercise_create', 'a', '{"name": "Ring Row", "primary_muscles": ["lats"], "equipment": "body_only"}') as derived;
select is((select derived ->> 'tracking_type' from own), 'bodyweight_reps', 'an own exercise without a type takes the rule''s');
select is(pg_temp.stored('Weighted Wall Sit', '{"weight_kg": 20, "duration_seconds": 45}') ->> 'duration_seconds', '45',
  'weight_duration: load and time');
select is(pg_temp.fields('Weighted Wall Sit', '{"duration_seconds": 45}'), '{"exercises[0].sets[0].weight_kg": "is required"}',
  'weight_duration: the load is required');
select is(pg_temp.stored('Band Pull-Up', '{"reps": 6, "assistance_kg": 20}') - array['rpe', 'rir', 'tempo', 'rest_seconds', 'set_type'],
  '{"reps": 6, "weight_kg": null, "distance_m": null, "assistance_kg": 20, "duration_seconds": null}',
  'assisted_bodyweight: the help is stored apart from the load');
select is(pg_temp.fields('Band Pull-Up', '{"reps": 6, "weight_kg": 20}'),
  '{"exercises[0].sets[0].weight_kg": "is not taken by assisted_bodyweight exercises"}', 'assisted_bodyweight: no added load');
select is(pg_temp.error_of('exercise_update', 'a', '{"tracking_type": "duration"}', jsonb_build_object('id', (select helped ->> 'id' from own))) ->> 'code',
  'tracking_type_conflict', 'a type its recorded sets would not fit is 409');
select is(pg_temp.call('exercise_update', 'a', '{"tracking_type": "bodyweight_reps"}', jsonb_build_object('id', (select derived ->> 'id' from own))) ->> 'tracking_type',
  'bodyweight_reps', 'a type with no sets against it changes');
select is(pg_temp.error_of('exercise_create', 'a', '{"name": "Odd", "primary_muscles": ["lats"], "tracking_type": "laps"}') -> 'fields',
  '{"tracking_type": "must be one of weight_reps, reps_only, bodyweight_reps, assisted_bodyweight, duration, weight_duration, distance_duration, weight_distance"}',
  'an unknown type is 422');

-- Supersets: kept by duplicate and by use-a-plan ------------------------------------------------------
create temporary table grouped as select pg_temp.call('sessions_create', 'a', '{"exercises": [
  {"exercise_name": "Dumbbell Curl", "group": 1, "sets": [{"reps": 10, "weight_kg": 12}]},
  {"exercise_name": "Triceps Pushdown", "group": 1, "group_rest_seconds": 90, "sets": [{"reps": 12, "weight_kg": 25}]},
  {"exercise_name": "Plank", "sets": [{"duration_seconds": 60}]}]}') as session;
select is((select jsonb_agg(jsonb_build_array(e -> 'group', e -> 'group_rest_seconds'))
             from grouped, jsonb_array_elements(session -> 'exercises') as e),
  '[[1, null], [1, 90], [null, null]]', 'a session groups exercises, with the rest after the group');
select is((select jsonb_agg(jsonb_build_array(e -> 'group', e -> 'group_rest_seconds', e -> 'sets' -> 0 -> 'duration_seconds'))
             from jsonb_array_elements(pg_temp.call('session_duplicate', 'a', null,
                    jsonb_build_object('id', (select session ->> 'id' from grouped))) -> 'exercises') as e),
  '[[1, null, null], [1, 90, null], [null, null, 60]]', 'duplicate keeps the groups and the timed set');
select is(pg_temp.error_of('sessions_create', 'a', '{"exercises": [{"exercise_name": "Dumbbell Curl", "group": 0, "sets": [{"reps": 10, "weight_kg": 12}]}]}') -> 'fields',
  '{"exercises[0].group": "must be a whole number from 1 to 100"}', 'a group outside 1 to 100 is 422');
create temporary table grouped_plan as select pg_temp.call('plan_create', 'a', '{"name": "Arms", "exercises": [
  {"exercise_name": "Dumbbell Curl", "sets": 2, "reps": 10, "weight_kg": 12, "group": 1},
  {"exercise_name": "Triceps Pushdown", "sets": 2, "reps": 12, "weight_kg": 25, "group": 1, "group_rest_seconds": 120}]}') as plan;
select is((select jsonb_agg(jsonb_build_array(e -> 'group', e -> 'group_rest_seconds')) from grouped_plan, jsonb_array_elements(plan -> 'exercises') as e),
  '[[1, null], [1, 120]]', 'a plan groups exercises');
select is((select jsonb_agg(jsonb_build_array(e -> 'group', e -> 'group_rest_seconds'))
             from jsonb_array_elements(pg_temp.call('plan_use', 'a', null, jsonb_build_object('id', (select plan ->> 'id' from grouped_plan))) -> 'exercises') as e),
  '[[1, null], [1, 120]]', 'using the plan keeps its groups');

-- One in-progress session at a time: end the one the previous plan started.
reset role;
delete from app.training_sessions where status = 'in_progress';
set local role liftbase_api;
create temporary table jump_plan as select pg_temp.call('plan_create', 'a', '{"name": "Jumps", "exercises": [
  {"exercise_name": "Box Jump", "sets": 1, "reps": 5}, {"exercise_name": "Pull-Up", "sets": 1, "reps": 8}]}') as plan;
select is((select jsonb_agg(e -> 'sets' -> 0 -> 'weight_kg')
             from jsonb_array_elements(pg_temp.call('plan_use', 'a', null, jsonb_build_object('id', (select plan ->> 'id' from jump_plan))) -> 'exercises') as e),
  '[null, null]', 'a plan''s load of 0 is no load for reps-only and bodyweight exercises, not "0 kg"');

-- Targets by type: a plan of every kind of work is used without a 422 ------------------------------------
reset role;
delete from app.training_sessions where status = 'in_progress';
set local role liftbase_api;
create temporary table typed_plan as select pg_temp.call('plan_create', 'a', '{"name": "Mixed", "exercises": [
  {"exercise_name": "Barbell Squat", "sets": 2, "reps": 8, "reps_max": 12, "weight_kg": 80},
  {"exercise_name": "Pull-Up", "sets": 1, "reps": 6, "reps_max": 10},
  {"exercise_name": "Band Pull-Up", "sets": 1, "reps": 5, "assistance_kg": 20},
  {"exercise_name": "Plank", "sets": 2, "duration_seconds": 60},
  {"exercise_name": "Weighted Wall Sit", "sets": 1, "weight_kg": 20, "duration_seconds": 45},
  {"exercise_name": "Treadmill Run", "sets": 1, "duration_seconds": 1500, "distance_m": 5000},
  {"exercise_name": "Farmer''s Walk", "sets": 1, "weight_kg": 40, "distance_m": 30}]}') as plan;
select is((select jsonb_agg(jsonb_build_array(e -> 'reps', e -> 'reps_max', e -> 'duration_seconds', e -> 'distance_m'))
             from typed_plan, jsonb_array_elements(plan -> 'exercises') as e),
  '[[8, 12, null, null], [6, 10, null, null], [5, null, null, null], [null, null, 60, null], [null, null, 45, null], [null, null, 1500, 5000], [null, null, null, 30]]',
  'a plan takes rep ranges, durations and distances');
select is((select jsonb_agg((e -> 'sets' -> 0) - array['rpe', 'rir', 'tempo', 'rest_seconds', 'set_type'])
             from jsonb_array_elements(pg_temp.call('plan_use', 'a', null, jsonb_build_object('id', (select plan ->> 'id' from typed_plan))) -> 'exercises') as e),
  '[{"reps": 8, "weight_kg": 80, "distance_m": null, "assistance_kg": null, "duration_seconds": null},
    {"reps": 6, "weight_kg": null, "distance_m": null, "assistance_kg": null, "duration_seconds": null},
    {"reps": 5, "weight_kg": null, "distance_m": null, "assistance_kg": 20, "duration_seconds": null},
    {"reps": null, "weight_kg": null, "distance_m": null, "assistance_kg": null, "duration_seconds": 60},
    {"reps": null, "weight_kg": 20, "distance_m": null, "assistance_kg": null, "duration_seconds": 45},
    {"reps": null, "weight_kg": null, "distance_m": 5000, "assistance_kg": null, "duration_seconds": 1500},
    {"reps": null, "weight_kg": 40, "distance_m": 30, "assistance_kg": null, "duration_seconds": null}]',
  'using it writes sets that fit each type: the bottom of a range, a 60 s plank, a 5 km run, a 30 m carry');
select is(pg_temp.error_of('plan_create', 'a', '{"name": "Bad", "exercises": [
  {"exercise_name": "Plank", "sets": 3, "reps": 10},
  {"exercise_name": "Treadmill Run", "sets": 1, "distance_m": 5000},
  {"exercise_name": "Barbell Squat", "sets": 3, "reps": 10, "reps_max": 8},
  {"exercise_name": "Box Jump", "sets": 3, "reps": 5, "weight_kg": 10},
  {"exercise_name": "Band Pull-Up", "sets": 3, "reps": 5, "weight_kg": 10}]}') -> 'fields',
  '{"exercises[0].reps": "is not taken by duration exercises", "exercises[0].reps_max": null, "exercises[0].duration_seconds": "is required",
    "exercises[1].duration_seconds": "is required", "exercises[2].reps_max": "must not be below reps",
    "exercises[3].weight_kg": "is not taken by reps_only exercises",
    "exercises[4].weight_kg": "is not taken by assisted_bodyweight exercises"}'::jsonb - 'exercises[0].reps_max',
  'a target the type does not take, a missing one, a range upside down: 422 naming each field');
select is(pg_temp.error_of('plan_create', 'a', '{"name": "Long", "exercises": [{"exercise_name": "Plank", "sets": 1, "duration_seconds": 90000}]}') -> 'fields',
  '{"exercises[0].duration_seconds": "must be a whole number of seconds from 1 to 86400 (24 hours)"}', 'a target beyond its domain is 422');
select is((select count(*) from app.templates as t, app.template_exercises as x join app.exercises as e on e.id = x.exercise_id
            where x.template_id = t.id
              and app.target_fit_problems(e.tracking_type, app.set_measures(null, null, x.reps, x.duration_seconds, x.distance_m)
                                          || case when x.reps_max is not null then array['reps_max'] else '{}' end) <> '{}'),
  0::bigint, 'every built-in template''s targets fit its exercise''s type');
select is((select jsonb_agg(s -> 'reps') from jsonb_array_elements(pg_temp.call('template_get', 'a', null, '{"id": "pull"}') -> 'exercises') as e,
                                           jsonb_array_elements(e -> 'sets') as s where e ->> 'exercise_name' = 'Pull-Up'),
  '[8, 8, 8]', 'a template answers the targets of its exercise''s type');

select * from finish();
rollback;
