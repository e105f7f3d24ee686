-- Importing a Liftbase export document (docs/export-format.md, version 1) into a fresh
-- account: every section lands, integer ids are re-created with their references followed,
-- catalog ids the server lacks become null, session totals are recomputed, and importing the
-- same document again adds nothing. Programs: an account keeps its own active program, links
-- to sessions it does not hold become null, state of an unknown exercise is left out, and a
-- document the program tables refuse is one error. Run as the API role.
begin;
\ir support/helpers.psql
select plan(24);

select pg_temp.sign_up('fresh', 'lb-import@example.com', 'liftbase import');
select pg_temp.sign_up('mover', 'lb-mover@example.com', 'liftbase import');
select pg_temp.sign_up('empty', 'lb-empty@example.com', 'liftbase import');

create temporary table document as select jsonb_build_object(
  'format', 'liftbase-export', 'version', 1, 'exported_at', '2026-01-01T00:00:00+00:00',
  'user', jsonb_build_object('id', '11111111-1111-1111-1111-111111111111', 'email', 'old@example.com'),
  'settings', jsonb_build_object('unit_system', 'imperial', 'timezone', 'Europe/Berlin', 'biometric_enabled', true),
  'profile', jsonb_build_object('sex', 'female', 'date_of_birth', '1990-04-01', 'age_years', null, 'age_recorded_on', null,
                                'height_cm', 170, 'activity_level', 'moderate', 'created_at', '2025-01-01T08:00:00+00:00'),
  'goals', jsonb_build_object('goal_type', 'cutting', 'goal_rate_per_week', -0.5, 'created_at', '2025-01-01T08:00:00+00:00'),
  'target_override', null,
  'body_metrics', jsonb_build_array(
    jsonb_build_object('id', 7, 'recorded_at', '2025-01-01T08:00:00+00:00', 'weight_kg', 70.5, 'body_fat_pct', null,
                       'height_cm', 170, 'created_at', '2025-01-01T08:00:00+00:00'),
    jsonb_build_object('id', 9, 'recorded_at', '2025-02-01T08:00:00+00:00', 'weight_kg', 69, 'body_fat_pct', 24,
                       'height_cm', null, 'created_at', '2025-02-01T08:00:00+00:00')),
  'target_snapshots', jsonb_build_array(jsonb_build_object('id', 41, 'computed_at', '2025-01-01T08:00:00+00:00',
    'reason', 'onboarding', 'formula_version', 1, 'bmr_formula', 'mifflin_st_jeor', 'calories', 1800, 'protein_g', 155,
    'carbs_g', 170, 'fat_g', 50, 'warnings', '[]'::jsonb, 'input_parameters', '{"weight_kg": 70.5}'::jsonb)),
  'health_metrics', jsonb_build_array(jsonb_build_object('id', 77, 'snapshot_id', 41, 'computed_at', '2025-01-01T08:00:00+00:00',
    'version', 1, 'bmi', 24.4, 'bmr', 1450, 'tdee', 2248, 'inputs', '{"weight_kg": 70.5}'::jsonb)),
  'metrics_acknowledgements', jsonb_build_array(jsonb_build_object('health_metric_id', 77, 'version', 1,
    'acknowledged_at', '2025-01-02T08:00:00+00:00')),
  'equipment_selection', jsonb_build_array(jsonb_build_object('equipment_id', 'barbell', 'selected_at', '2025-01-01T08:00:00+00:00')),
  'exclusions', null,
  'setup', jsonb_build_object('completed_at', '2025-01-01T08:05:00+00:00'),
  'user_exercises', jsonb_build_array(jsonb_build_object('id', '22222222-2222-2222-2222-222222222222', 'name', 'Sled Drag',
    'category', 'strongman', 'mechanic', null, 'equipment', 'other', 'primary_muscles', '["quadriceps"]'::jsonb,
    'secondary_muscles', '[]'::jsonb, 'created_at', '2025-01-01T08:00:00+00:00')),
  'plans', jsonb_build_array(jsonb_build_object('id', '33333333-3333-3333-3333-333333333333', 'name', 'Garage',
    'created_at', '2025-01-03T08:00:00+00:00', 'last_used_at', null, 'exercises', jsonb_build_array(
      jsonb_build_object('position', 1, 'exercise_id', null, 'user_exercise_id', '22222222-2222-2222-2222-222222222222',
                         'exercise_name', 'Sled Drag', 'sets', 3, 'reps', 1, 'weight_kg', 80, 'rest_seconds', 120)))),
  'user_foods', '[]'::jsonb,
  'favorites', jsonb_build_array(jsonb_build_object('id', '44444444-4444-4444-4444-444444444444', 'name', 'Porridge',
    'calories', 350, 'protein_g', 12, 'carbs_g', 60, 'fat_g', 7, 'food_id', '99999999-9999-9999-9999-999999999999',
    'user_food_id', null, 'servings', null, 'created_at', '2025-01-04T08:00:00+00:00')),
  'custom_meals', '[]'::jsonb,
  'import_runs', jsonb_build_array(jsonb_build_object('id', '55555555-5555-5555-5555-555555555555', 'format', 'strong')),
  'training_sessions', jsonb_build_array(jsonb_build_object('id', '66666666-6666-6666-6666-666666666666', 'client_id', null,
    'session_date', '2025-01-05', 'name', 'Legs', 'notes', null, 'status', 'completed',
    'started_at', '2025-01-05T07:00:00+00:00', 'finished_at', '2025-01-05T08:00:00+00:00',
    'created_at', '2025-01-05T08:00:02+00:00', 'exercises', jsonb_build_array(
      jsonb_build_object('position', 1, 'exercise_id', md5('liftbase-exercise:barbell squat')::uuid, 'user_exercise_id', null,
        'exercise_name', 'Barbell Squat', 'notes', null, 'sets', jsonb_build_array(
          jsonb_build_object('position', 1, 'reps', 5, 'weight_kg', 60, 'rpe', null, 'rir', null, 'set_type', 'warmup', 'tempo', null, 'rest_seconds', null),
          jsonb_build_object('position', 2, 'reps', 5, 'weight_kg', 100, 'rpe', 8, 'rir', 2, 'set_type', 'working', 'tempo', '3-1-1-0', 'rest_seconds', 180))),
      jsonb_build_object('position', 2, 'exercise_id', null, 'user_exercise_id', '22222222-2222-2222-2222-222222222222',
        'exercise_name', 'Sled Drag', 'notes', 'outside', 'sets', jsonb_build_array(
          jsonb_build_object('position', 1, 'reps', 1, 'weight_kg', 80, 'rpe', null, 'rir', null, 'set_type', 'working', 'tempo', null, 'rest_seconds', null)))))),
  'food_entries', jsonb_build_array(jsonb_build_object('id', '77777777-7777-7777-7777-777777777777', 'client_id', null,
    'entry_date', '2025-01-05', 'meal_type', 'breakfast', 'name', 'Porridge', 'food_id', null, 'user_food_id', null,
    'portion_seq', null, 'servings', null, 'favorite_id', '44444444-4444-4444-4444-444444444444', 'custom_meal_id', null,
    'calories', 350, 'protein_g', 12, 'carbs_g', 60, 'fat_g', 7, 'source', 'favorite', 'barcode', null,
    'created_at', '2025-01-05T07:30:00+00:00'))) as d;
grant select on document to liftbase_api;

set local role liftbase_api;

select is(pg_temp.call('import_liftbase', 'fresh', (select d from document), '{"dry_run": "true"}'),
  '{"imported": 14, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'a dry run counts the rows it would import');
select is((select count(*) from app.training_sessions), 0::bigint, 'and writes none');
-- profile, goals, 2 body metrics, 1 snapshot, 1 health metric, 1 acknowledgement, 1 equipment,
-- setup, 1 user exercise, 1 favorite, 1 plan, 1 session, 1 food entry = 14.
select is(pg_temp.call('import_liftbase', 'fresh', (select d from document)),
  '{"imported": 14, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'every row of the document is imported');
select is(pg_temp.call('import_liftbase', 'fresh', (select d from document)),
  '{"imported": 0, "skipped_duplicates": 14, "skipped": [], "errors": [], "warnings": []}', 'importing the same document again adds nothing');
select is((select unit_system || ' ' || timezone from app.user_settings), 'imperial Europe/Berlin', 'settings are taken');
select is((select jsonb_build_object('sets', s.set_count, 'working', s.working_sets, 'volume', s.volume_kg, 'exercises', s.exercise_count,
                                     'id', s.id, 'created', s.created_at = '2025-01-05T08:00:02+00:00')
             from app.training_sessions as s),
  '{"sets": 3, "working": 2, "volume": 580, "exercises": 2, "id": "66666666-6666-6666-6666-666666666666", "created": true}',
  'sessions keep their ids and history; totals are recomputed (100×5 + 80×1 = 580 kg)');
select is((select array_agg(x.set_type || ':' || x.weight_kg || 'x' || x.reps || ':' || coalesce(x.tempo, '-') order by x.exercise_position, x.position)
             from app.session_sets as x),
  array['warmup:60x5:-', 'working:100x5:3-1-1-0', 'working:80x1:-'], 'sets come back as exported');
select is((select count(*) from app.session_exercises where user_exercise_id = '22222222-2222-2222-2222-222222222222'),
  1::bigint, 'references to the user''s own exercises hold');
select is((select h.snapshot_id = t.id and a.health_metric_id = h.id
             from app.health_metrics as h, app.target_snapshots as t, app.metrics_acknowledgements as a),
  true, 're-created integer ids: the health metric points at the new snapshot, the acknowledgement at the new metric');
select is((select food_id from app.favorites), null, 'a catalog food the server lacks becomes null (the snapshot stays)');
select is((select favorite_id from app.food_entries), '44444444-4444-4444-4444-444444444444'::uuid, 'diary rows keep their favorite');
select is(pg_temp.call('import_liftbase', 'fresh', '{"format": "something-else", "version": 1}') -> 'errors',
  '[{"line": null, "message": "the document must be a liftbase-export of version 1 or 2"}]', 'other documents are refused');
select is(pg_temp.call('import_liftbase', 'fresh', '{"format": "liftbase-export"}') -> 'errors',
  '[{"line": null, "message": "the document must be a liftbase-export of version 1 or 2"}]', 'and so is one without a version');

-- Programs ----------------------------------------------------------------------------------------
-- An ended program and an active one; the active one's first slot links to the session of
-- the document (its squat only), its second to a session the document does not hold, and its state names
-- the squat and an exercise this catalog lacks.
reset role;
create function pg_temp.program(p_id text, p_status text, p_created_at text, p_ended_at text, p_sessions jsonb, p_state jsonb)
returns jsonb language sql as $$
  select jsonb_build_object('id', p_id, 'goal', 'strength', 'training_age', 'novice', 'days_per_week', 2,
    'split', '["full_body"]'::jsonb, 'status', p_status, 'started_on', left(p_created_at, 10), 'created_at', p_created_at,
    'ended_at', p_ended_at,
    'phases', jsonb_build_array(
      jsonb_build_object('position', 1, 'block_position', 1, 'block', 'Linear progression', 'phase', 'linear', 'first_week', 1,
        'last_week', 1, 'main_reps', 5, 'main_rpe', 8.0, 'accessory_reps_low', 8, 'accessory_reps_high', 12,
        'accessory_rpe', 8.0, 'set_factor', 1.0, 'load_factor', 1.0),
      jsonb_build_object('position', 2, 'block_position', 1, 'block', 'Linear progression', 'phase', 'deload', 'first_week', 2,
        'last_week', 2, 'main_reps', 5, 'main_rpe', 6.0, 'accessory_reps_low', 8, 'accessory_reps_high', 12,
        'accessory_rpe', 6.0, 'set_factor', 0.5, 'load_factor', 0.9)),
    'sessions', p_sessions, 'exercise_state', p_state)
$$;
create function pg_temp.slot(p_id text, p_slot integer, p_status text, p_training_session_id text) returns jsonb language sql as $$
  select jsonb_build_object('id', p_id, 'slot', p_slot, 'templates', '["full_body"]'::jsonb, 'status', p_status,
    'volume_factor', 1, 'shifted', 0, 'successor_id', null, 'mode', 'normal', 'dropped_sets', '[]'::jsonb,
    'training_session_id', p_training_session_id,
    'done_at', case when p_status <> 'planned' then '2025-01-05T08:00:05+00:00' end)
$$;
create temporary table program_document as select jsonb_build_object('format', 'liftbase-export', 'version', 1,
  'training_sessions', (select (d -> 'training_sessions') #- '{0,exercises,1}' from document),
  'programs', jsonb_build_array(
    pg_temp.program('aaaaaaaa-0000-0000-0000-000000000001', 'ended', '2024-12-01T08:00:00+00:00', '2025-01-01T08:00:00+00:00',
      jsonb_build_array(pg_temp.slot('bbbbbbbb-0000-0000-0000-000000000001', 1, 'planned', null)), '[]'),
    pg_temp.program('aaaaaaaa-0000-0000-0000-000000000002', 'active', '2025-01-01T08:00:00+00:00', null,
      jsonb_build_array(pg_temp.slot('bbbbbbbb-0000-0000-0000-000000000002', 1, 'completed', '66666666-6666-6666-6666-666666666666'),
                        pg_temp.slot('bbbbbbbb-0000-0000-0000-000000000003', 2, 'completed', '88888888-8888-8888-8888-888888888888'),
                        pg_temp.slot('bbbbbbbb-0000-0000-0000-000000000004', 3, 'planned', null),
                        pg_temp.slot('bbbbbbbb-0000-0000-0000-000000000005', 4, 'planned', null)),
      jsonb_build_array(
        jsonb_build_object('exercise_id', md5('liftbase-exercise:barbell squat')::uuid, 'load_kg', 105, 'reps', '[5]'::jsonb,
                           'misses', 1, 'rpe_week', null, 'rpe_week_top', null, 'rpe_target', null),
        jsonb_build_object('exercise_id', '99999999-9999-9999-9999-999999999999', 'load_kg', 40, 'reps', '[5]'::jsonb,
                           'misses', 0, 'rpe_week', null, 'rpe_week_top', null, 'rpe_target', null))))) as d;
grant select on program_document to liftbase_api;
set local role liftbase_api;

select is(pg_temp.call('program_create', 'mover', '{"goal": "hypertrophy", "training_age": "novice", "days_per_week": 4}') ->> 'status',
  'active', 'the account has an active program of its own');
-- 1 session + 2 programs = 3 (a program counts once, with everything in it).
select is(pg_temp.call('import_liftbase', 'mover', (select d from program_document)),
  '{"imported": 3, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'a program counts once with its phases, sessions and state');
select is((select jsonb_agg(jsonb_build_object('goal', p.goal, 'status', p.status, 'ended_recently', p.ended_at > now() - interval '1 minute',
                                               'ended_at', case when p.ended_at < now() - interval '1 minute' then p.ended_at end)
                            order by p.created_at)
             from app.programs as p),
  '[{"goal": "strength", "status": "ended", "ended_recently": false, "ended_at": "2025-01-01T08:00:00+00:00"},
    {"goal": "strength", "status": "ended", "ended_recently": true, "ended_at": null},
    {"goal": "hypertrophy", "status": "active", "ended_recently": null, "ended_at": null}]',
  'the account keeps its active program; the document''s active one is stored as ended at the import');
select is((select jsonb_agg(jsonb_build_object('slot', s.slot, 'status', s.status, 'linked', s.training_session_id) order by s.slot)
             from app.program_sessions as s where s.program_id = 'aaaaaaaa-0000-0000-0000-000000000002'),
  '[{"slot": 1, "status": "completed", "linked": "66666666-6666-6666-6666-666666666666"},
    {"slot": 2, "status": "completed", "linked": null}, {"slot": 3, "status": "planned", "linked": null},
    {"slot": 4, "status": "planned", "linked": null}]',
  'sessions keep their ids and slots; a link to a session the account does not hold becomes null');
select is((select array_agg(e.name::text || ' ' || x.load_kg || ' kg, ' || x.misses || ' miss')
             from app.program_exercise_state as x join app.exercises as e on e.id = x.exercise_id
            where x.program_id = 'aaaaaaaa-0000-0000-0000-000000000002'),
  array['Barbell Squat 105 kg, 1 miss'], 'progression state of an exercise this catalog lacks is left out');
select is((select count(*) from app.program_phases where program_id::text like 'aaaaaaaa-%'), 4::bigint, 'phases come with their programs');
select is(pg_temp.call('import_liftbase', 'mover', (select d from program_document)),
  '{"imported": 0, "skipped_duplicates": 3, "skipped": [], "errors": [], "warnings": []}', 'importing the programs again adds nothing');

select is(pg_temp.call('import_liftbase', 'empty', (select d - 'training_sessions' from program_document)) -> 'imported', '2'::jsonb,
  'an account without an active program takes the document''s');
select is((select jsonb_build_object('id', p -> 'id', 'next_slot', (select s.slot from app.program_sessions as s where s.id = (p -> 'current' ->> 'next_session_id')::uuid))
             from pg_temp.call('program_get', 'empty', null) as p),
  '{"id": "aaaaaaaa-0000-0000-0000-000000000002", "next_slot": 3}',
  'which is its program, going on at the first planned slot');

reset role;
create temporary table repeated_slot as select jsonb_set(d, '{programs,1,sessions,1,slot}', '1') as d from program_document;
grant select on repeated_slot to liftbase_api;
set local role liftbase_api;
select is((select pg_temp.call('import_liftbase', 'fresh', d) from repeated_slot) - 'errors' - 'error',
  '{"imported": 0, "skipped_duplicates": 0, "skipped": [], "warnings": []}', 'a document repeating a slot of a program is refused whole');
select is((select pg_temp.call('import_liftbase', 'fresh', d) #>> '{errors,0,message}' from repeated_slot),
  'programs: two rows have the same program_id and slot',
  'named in words (not by the constraint), inside the import (not at commit)');

select * from finish();
rollback;
