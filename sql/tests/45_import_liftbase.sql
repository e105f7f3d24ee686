-- Importing a Liftbase export document (docs/export-format.md, version 1) into a fresh
-- account: every section lands, integer ids are re-created with their references followed,
-- catalog ids the server lacks become null, session totals are recomputed, and importing the
-- same document again adds nothing. Run as the API role.
begin;
select plan(12);

create temporary table tokens (name text primary key, token text);
insert into tokens select 'fresh', auth.start_session((auth.create_account('lb-import@example.com', 'liftbase import', null)).id);
grant select on tokens to liftbase_api;

create function pg_temp.call(p_function text, p_token_name text, p_body jsonb, p_args jsonb default '{}')
returns jsonb language plpgsql as $$
declare
  v_result jsonb;
begin
  perform set_config('liftbase.user_id', '', true);
  perform set_config('liftbase.response_status', '', true);
  execute format('select api.%I($1, $2, $3)', p_function) into v_result
    using (select token from tokens where name = p_token_name), p_body, p_args;
  return v_result;
end $$;

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
  '{"imported": 14, "skipped_duplicates": 0, "errors": []}', 'a dry run counts the rows it would import');
select is((select count(*) from app.training_sessions), 0::bigint, 'and writes none');
-- profile, goals, 2 body metrics, 1 snapshot, 1 health metric, 1 acknowledgement, 1 equipment,
-- setup, 1 user exercise, 1 favorite, 1 plan, 1 session, 1 food entry = 14.
select is(pg_temp.call('import_liftbase', 'fresh', (select d from document)),
  '{"imported": 14, "skipped_duplicates": 0, "errors": []}', 'every row of the document is imported');
select is(pg_temp.call('import_liftbase', 'fresh', (select d from document)),
  '{"imported": 0, "skipped_duplicates": 14, "errors": []}', 'importing the same document again adds nothing');
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
  '[{"line": null, "message": "the document must be a liftbase-export of version 1"}]', 'other documents are refused');

select * from finish();
rollback;
