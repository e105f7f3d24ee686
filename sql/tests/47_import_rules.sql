-- The rules a Liftbase document import shares with the rest of the API: own exercises are
-- one per name (a document's own exercise is the account's one of the same name, wherever
-- it is referred to), a completed session holds exercises with sets (app.session_is_complete,
-- described by app.session_problems), settings are checked as PATCH /settings checks them,
-- and a row the tables refuse is described for people, never in the database's words.
-- Run as the API role.
begin;
\ir support/helpers.psql
select plan(20);

select pg_temp.sign_up('owner', 'rules-owner@example.com', 'import rules');
select pg_temp.sign_up('plain', 'rules-plain@example.com', 'import rules');
-- The account already has "sled drag" of its own, under an id of its own.
insert into app.user_exercises (user_id, id, name)
select id, 'eeeeeeee-0000-0000-0000-000000000001', 'sled drag' from auth.users where email = 'rules-owner@example.com';

-- A document of one session (its exercises given), with the plan and exclusions below.
create function pg_temp.document(p_exercises jsonb, p_status text default 'completed') returns jsonb language sql as $$
  select jsonb_build_object('format', 'liftbase-export', 'version', 1,
    'user_exercises', jsonb_build_array(jsonb_build_object('id', '22222222-2222-2222-2222-222222222222', 'name', 'Sled Drag',
      'category', 'strongman', 'mechanic', null, 'equipment', 'other', 'primary_muscles', '["quadriceps"]'::jsonb,
      'secondary_muscles', '[]'::jsonb, 'created_at', '2025-01-01T08:00:00+00:00')),
    'exclusions', jsonb_build_object('exercise_ids', '["22222222-2222-2222-2222-222222222222"]'::jsonb, 'muscles', '[]'::jsonb),
    'plans', jsonb_build_array(jsonb_build_object('id', '33333333-3333-3333-3333-333333333333', 'name', 'Garage',
      'created_at', '2025-01-03T08:00:00+00:00', 'last_used_at', null, 'exercises', jsonb_build_array(
        jsonb_build_object('position', 1, 'exercise_id', null, 'user_exercise_id', '22222222-2222-2222-2222-222222222222',
                           'exercise_name', 'Sled Drag', 'sets', 3, 'reps', 1, 'weight_kg', 80, 'rest_seconds', 120)))),
    'training_sessions', jsonb_build_array(jsonb_build_object('id', '66666666-6666-6666-6666-666666666666', 'client_id', null,
      'session_date', '2025-01-05', 'name', 'Legs', 'notes', null, 'status', p_status,
      'started_at', '2025-01-05T07:00:00+00:00', 'finished_at', case when p_status = 'completed' then '2025-01-05T08:00:00+00:00' end,
      'created_at', '2025-01-05T08:00:02+00:00', 'exercises', p_exercises)))
$$;
create function pg_temp.sled(p_user_exercise_id text, p_sets jsonb) returns jsonb language sql as $$
  select jsonb_build_object('position', 1, 'exercise_id', null, 'user_exercise_id', p_user_exercise_id,
    'exercise_name', 'Sled Drag', 'notes', null, 'sets', p_sets)
$$;
create function pg_temp.set(p_reps integer) returns jsonb language sql as $$
  select jsonb_build_object('position', 1, 'reps', p_reps, 'weight_kg', 80, 'rpe', null, 'rir', null, 'set_type', 'working',
                            'tempo', null, 'rest_seconds', null)
$$;

set local role liftbase_api;

-- Own exercises by name ---------------------------------------------------------------------------
-- user exercise skipped (the account has it), exclusions, plan and session imported.
select is(pg_temp.call('import_liftbase', 'owner',
            pg_temp.document(jsonb_build_array(pg_temp.sled('22222222-2222-2222-2222-222222222222', jsonb_build_array(pg_temp.set(1)))))),
  '{"imported": 3, "skipped_duplicates": 1, "skipped": [], "errors": [], "warnings": []}',
  'a document''s own exercise named like one the account has (in another case) is that one, not a failure');
select is((select array_agg(id::text || ' ' || name) from app.user_exercises),
  array['eeeeeeee-0000-0000-0000-000000000001 sled drag'], 'the account keeps its one exercise of that name');
select is((select user_exercise_id from app.session_exercises), 'eeeeeeee-0000-0000-0000-000000000001'::uuid,
  'the session''s exercise refers to the account''s exercise');
select is((select user_exercise_id from app.plan_exercises), 'eeeeeeee-0000-0000-0000-000000000001'::uuid,
  'so does the plan''s');
select is((select exercise_ids from app.user_exclusions), array['eeeeeeee-0000-0000-0000-000000000001'::uuid],
  'and the exclusions');

-- Errors for people ---------------------------------------------------------------------------------
select is(pg_temp.call('import_liftbase', 'plain',
            pg_temp.document(jsonb_build_array(pg_temp.sled('99999999-0000-0000-0000-000000000009', jsonb_build_array(pg_temp.set(1)))))),
  '{"error": {"code": "import_invalid", "message": "The file has problems; nothing was imported."}, "imported": 0,
    "skipped_duplicates": 0, "skipped": [], "errors": [{"line": null,
    "message": "training_sessions: user_exercise_id names a row that is neither in the document nor in this account"}],
    "warnings": []}',
  'a reference to an own exercise neither the document nor the account holds is named in words');
select is(pg_temp.status(), '422', 'answered 422');
select is((select count(*) from app.plans), 0::bigint, 'and nothing is imported');
select is(pg_temp.call('import_liftbase', 'plain',
            pg_temp.document(jsonb_build_array(pg_temp.sled(null, jsonb_build_array(pg_temp.set(-1)))))) #>> '{errors,0,message}',
  'reps must be a whole number from 0 to 1000', 'a value a domain refuses is named with the domain''s rule');
select is(pg_temp.call('import_liftbase', 'plain',
            pg_temp.document(jsonb_build_array(pg_temp.sled(null, jsonb_build_array(pg_temp.set(1))),
                                               jsonb_build_object('position', 1, 'exercise_name', 'Row', 'sets', '[]'::jsonb)))),
  '{"error": {"code": "import_invalid", "message": "The file has problems; nothing was imported."}, "imported": 0,
    "skipped_duplicates": 0, "skipped": [], "errors": [{"line": null, "message": "training_sessions: two rows have the same session_id and position"}],
    "warnings": []}',
  'two exercises in one position of a session are named by the fields they share');
select is(pg_temp.call('import_liftbase', 'plain',
            jsonb_set(pg_temp.document('[]'), '{training_sessions,0,session_date}', '"2025-02-30"')) #>> '{errors,0,message}',
  'training_sessions[0].session_date: must be a date (YYYY-MM-DD) from 1900-01-01 to 2999-12-31',
  'a value of the wrong form is named by its path, without the database''s text');

-- Completed sessions ---------------------------------------------------------------------------------
select is(pg_temp.call('import_liftbase', 'plain', pg_temp.document('[]')) -> 'errors',
  '[{"line": null, "message": "training session 66666666-6666-6666-6666-666666666666 of 2025-01-05: exercises: a completed session needs at least one exercise"}]',
  'a completed session without exercises is refused, in the words of the sessions API');
select is(pg_temp.call('import_liftbase', 'plain', pg_temp.document(jsonb_build_array(pg_temp.sled(null, '[]')))) -> 'errors',
  '[{"line": null, "message": "training session 66666666-6666-6666-6666-666666666666 of 2025-01-05: exercises[0].sets: needs at least one set"}]',
  'so is one with an exercise without sets');
select is((select count(*) from app.training_sessions), 0::bigint, 'neither is imported');
select is(pg_temp.call('import_liftbase', 'plain', pg_temp.document('[]', 'in_progress')) -> 'imported', '4'::jsonb,
  'a session in progress may still be empty');

-- Settings ---------------------------------------------------------------------------------------------
select is(pg_temp.call('import_liftbase', 'plain', jsonb_build_object('format', 'liftbase-export', 'version', 1,
            'settings', jsonb_build_object('timezone', 'Mars/Olympus', 'biometric_enabled', 'yes'))) -> 'errors',
  '[{"line": null, "message": "settings.biometric_enabled: must be true or false"},
    {"line": null, "message": "settings.timezone: must be an IANA time zone name such as Europe/Berlin"}]',
  'settings are checked as PATCH /settings checks them, every bad member named');
select is((select timezone from app.user_settings), 'UTC', 'and not taken');
select is(pg_temp.call('import_liftbase', 'plain', jsonb_build_object('format', 'liftbase-export', 'version', 1,
            'settings', jsonb_build_object('unit_system', 'imperial', 'timezone', 'Asia/Tokyo',
              'reminders', jsonb_build_object('workouts', jsonb_build_object('enabled', true, 'days', '["friday", "monday"]'::jsonb,
                                                                              'time', '07:30')),
              'health_sync', jsonb_build_object('apple_health', true, 'google_fit', false)))) -> 'errors',
  '[]', 'valid settings import');
select is((select pg_temp.call('settings_get', 'plain', null) - 'reminders' || jsonb_build_object('workouts',
                    pg_temp.call('settings_get', 'plain', null) #> '{reminders,workouts}')),
  '{"unit_system": "imperial", "timezone": "Asia/Tokyo", "biometric_enabled": false,
    "health_sync": {"apple_health": true, "health_connect": false, "google_fit": false},
    "workouts": {"enabled": true, "days": ["monday", "friday"], "time": "07:30"}}',
  'through the settings writer: every member it knows is taken');
select is(pg_temp.call('import_liftbase', 'plain',
            jsonb_build_object('format', 'liftbase-export', 'version', 1, 'body_metrics', jsonb_build_array(
              jsonb_build_object('id', 1, 'recorded_at', '2025-01-01T08:00:00+00:00', 'weight_kg', 'heavy')))) #>> '{errors,0,message}',
  'body_metrics[0].weight_kg: must be a number',
  'a number that is not one is named by its path, without the database''s text');

select * from finish();
rollback;
