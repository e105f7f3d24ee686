-- Training rules: validation (422 naming each field), templates, one in-progress session,
-- isolation between users, plans, the exercise importer, the weekly summary across a
-- time-zone boundary. Run as the API role after the accounts are made.
begin;
\ir support/helpers.psql
select plan(33);

select pg_temp.sign_up('a', 'train-a@example.com', 'training a');
select pg_temp.sign_up('b', 'train-b@example.com', 'training b');

set local role liftbase_api;

-- 422 cases -----------------------------------------------------------------------------------------
select is(pg_temp.error_of('sessions_create', 'a', '{"exercises": []}') -> 'fields',
  '{"exercises": "a completed session needs at least one exercise"}', 'a completed session needs exercises');
select is(pg_temp.error_of('sessions_create', 'a', '{"exercises": [{"exercise_name": " ", "sets": [{"reps": 5, "weight_kg": 50}]}]}') -> 'fields',
  '{"exercises[0].exercise_name": "must be 1 to 120 characters"}', 'an exercise needs a name');
select is(pg_temp.error_of('sessions_create', 'a', '{"exercises": [{"exercise_name": "Squat", "sets": []}]}') -> 'fields',
  '{"exercises[0].sets": "needs at least one set"}', 'an exercise of a completed session needs a set');
select is(pg_temp.error_of('sessions_create', 'a', '{"exercises": [{"exercise_name": "Squat", "sets": [{"reps": -1, "weight_kg": 50}]}]}') -> 'fields',
  '{"exercises[0].sets[0].reps": "must be a whole number from 0 to 1000"}', 'reps cannot be negative');
select is(pg_temp.error_of('sessions_create', 'a', '{"exercises": [{"exercise_name": "Squat", "sets": [{"reps": 5, "weight_kg": 50, "rpe": 10.5}]}]}') -> 'fields',
  '{"exercises[0].sets[0].rpe": "must be 1 to 10 in steps of 0.5"}', 'RPE 10.5 is refused');
select is(pg_temp.error_of('sessions_create', 'a', '{"exercises": [{"exercise_name": "Squat", "sets": [{"reps": 5, "weight_kg": 50, "rpe": 7.3}]}]}') -> 'fields',
  '{"exercises[0].sets[0].rpe": "must be 1 to 10 in steps of 0.5"}', 'RPE goes in steps of 0.5');
select is(pg_temp.error_of('sessions_create', 'a',
    '{"status": "finished", "exercises": [{"exercise_id": "00000000-0000-0000-0000-000000000000", "sets": [{"reps": 5, "set_type": "heavy"}]}]}') -> 'fields',
  '{"status": "must be completed or in_progress", "exercises[0].exercise_id": "is not a known exercise",
    "exercises[0].sets[0].weight_kg": "is required", "exercises[0].sets[0].set_type": "must be one of warmup, working, dropset, failure"}',
  'every bad field is listed at once');
reset role;  -- count as the superuser, whom row-level security does not filter
select is((select count(*)::integer from app.training_sessions), 0, 'and nothing was written');
set local role liftbase_api;

-- Templates ----------------------------------------------------------------------------------------
select is(jsonb_array_length(pg_temp.call('templates_list', 'a', null) -> 'items'), 6, 'six built-in templates');
select is((select array_agg(t ->> 'id' order by t ->> 'id') from jsonb_array_elements(pg_temp.call('templates_list', 'a', null) -> 'items') as t),
  array['full_body', 'legs', 'lower', 'pull', 'push', 'upper'], 'push, pull, legs, upper, lower, full_body');
select is((select count(*)::integer from jsonb_array_elements(pg_temp.call('templates_list', 'a', null) -> 'items') as t,
                  jsonb_array_elements(t -> 'exercises') as e where e ->> 'exercise_id' is null), 0,
  'every template exercise links to the catalog');
select is(pg_temp.error_of('template_get', 'a', null, '{"id": "arms"}') ->> 'code', 'template_not_found', 'an unknown template is 404');

-- One in-progress session ----------------------------------------------------------------------------
create temporary table started as select pg_temp.call('sessions_create', 'a', '{"status": "in_progress", "name": "Evening"}') as session;
select is((select session ->> 'status' from started), 'in_progress', 'an empty in-progress session can start');
select is(pg_temp.error_of('sessions_create', 'a', '{"status": "in_progress"}'),
  jsonb_build_object('state', 'LB409', 'code', 'session_in_progress', 'session_id', (select session -> 'id' from started)),
  'starting another is 409 naming the one in progress');
select is(pg_temp.call('session_in_progress', 'a', null) ->> 'id', (select session ->> 'id' from started), 'the resume banner finds it');
select ok(pg_temp.call('session_in_progress', 'a', null) ? 'resume_timestamp', 'with its resume_timestamp');
select is(pg_temp.error_of('session_update', 'a', '{"status": "completed"}', jsonb_build_object('id', (select session ->> 'id' from started))) -> 'fields',
  '{"exercises": "a completed session needs at least one exercise"}', 'an empty session cannot be finished');
select is(pg_temp.call('session_replace', 'a', '{"status": "in_progress", "exercises": [{"exercise_name": "Barbell Squat", "sets": [{"reps": 5, "weight_kg": 100}]}]}',
    jsonb_build_object('id', (select session ->> 'id' from started))) -> 'exercises' -> 0 ->> 'exercise_name', 'Barbell Squat',
  'PUT replaces its exercises, matching catalog names');
select is(pg_temp.call('session_update', 'a', '{"status": "completed"}', jsonb_build_object('id', (select session ->> 'id' from started))) ->> 'status',
  'completed', 'PATCH finishes it');
select is(pg_temp.call('session_in_progress', 'a', null), 'null', 'then nothing is in progress');

-- Isolation --------------------------------------------------------------------------------------------
select is(pg_temp.error_of('session_get', 'b', null, jsonb_build_object('id', (select session ->> 'id' from started))) ->> 'code',
  'session_not_found', 'another user''s session is 404');
select is(pg_temp.error_of('session_delete', 'b', null, jsonb_build_object('id', (select session ->> 'id' from started))) ->> 'code',
  'session_not_found', 'and cannot be deleted');
select is(jsonb_array_length(pg_temp.call('sessions_list', 'a', null) -> 'items'), 1, 'its owner lists it');
select is(jsonb_array_length(pg_temp.call('sessions_list', 'b', null) -> 'items'), 0, 'nor listed');

-- Plans --------------------------------------------------------------------------------------------
create temporary table plans as select pg_temp.call('plan_create', 'a',
  '{"name": "Home A", "exercises": [{"exercise_name": "Goblet Squat", "sets": 3, "reps": 10, "weight_kg": 24, "rest_seconds": 90},
                                    {"name": "Push-Up", "sets": 3, "reps": 15}]}') as plan;
select is((select plan ->> 'exercise_count' from plans), '2', 'a plan is saved with its exercises');
select is(pg_temp.call('plan_rename', 'a', '{"name": "Home B"}', jsonb_build_object('id', (select plan ->> 'id' from plans))) ->> 'name',
  'Home B', 'and renamed');
select is((select count(*)::integer from jsonb_array_elements(
             pg_temp.call('plan_use', 'a', null, jsonb_build_object('id', (select plan ->> 'id' from plans))) -> 'exercises') as e,
           jsonb_array_elements(e -> 'sets')), 6, 'using it starts an in-progress session with its 6 sets');
select isnt(pg_temp.call('plan_get', 'a', null, jsonb_build_object('id', (select plan ->> 'id' from plans))) ->> 'last_used_at', null,
  'and stamps last_used_at');
select is(pg_temp.error_of('plan_use', 'a', null, jsonb_build_object('id', (select plan ->> 'id' from plans))) ->> 'code',
  'session_in_progress', 'a second use while that session is in progress is 409');
select is(pg_temp.error_of('plan_get', 'b', null, jsonb_build_object('id', (select plan ->> 'id' from plans))) ->> 'code',
  'plan_not_found', 'another user''s plan is 404');
select is(pg_temp.call('setup_complete', 'a', null), '{"plan_count": 1, "equipment_count": 0, "has_completed_setup": true}',
  'setup state counts plans and equipment');

-- Weekly summary across a time-zone boundary ----------------------------------------------------------
-- Sunday 23:30 in Pago Pago (UTC−11) is Monday in UTC: the session belongs to the local week.
reset role;
update app.user_settings set timezone = 'Pacific/Pago_Pago'
 where user_id = (select user_id from auth.sessions where token_hash = auth.token_hash((select token from tokens where name = 'b')));
set local role liftbase_api;
select pg_temp.call('sessions_create', 'b', '{"started_at": "2026-03-08T23:30:00-11:00", "finished_at": "2026-03-09T00:30:00-11:00",
  "exercises": [{"exercise_name": "Barbell Squat", "sets": [{"reps": 5, "weight_kg": 100}, {"reps": 5, "weight_kg": 100},
                {"reps": 10, "weight_kg": 40, "set_type": "warmup"}]}]}');
select is(pg_temp.call('weekly_summary', 'b', null, '{"week_start": "2026-03-02"}') - 'days',
  '{"week_start": "2026-03-02", "week_end": "2026-03-08", "sessions": 1, "duration_minutes": 60, "working_sets": 2, "volume_kg": 1000, "set_duration_seconds": 0, "distance_m": 0}',
  'the session counts in the user''s local week, warm-ups excluded');
select is(pg_temp.call('weekly_summary', 'b', null, '{"week_start": "2026-03-09"}') ->> 'sessions', '0', 'not in the next one');

select * from finish();
rollback;
