-- The liftbase-export document (docs/export-format.md), produced as text chunks in
-- document order: one chunk for everything small, then one per program, one per training
-- session and one per food entry, so neither the database nor the server ever holds the whole document
-- of a years-long account as one value. json (not jsonb) keeps members in the documented
-- order. Callers set TimeZone to UTC (timestamps are rendered in the session's zone) and
-- liftbase.user_id (row-level security); every query also names the user for its index.

create or replace function app.export_head(p_user_id uuid)
returns text
language plpgsql
stable
as $$
declare
  -- Read first: on Citus the statement below goes whole to the user's worker, which knows
  -- the user only when it was set for the transaction (auth.act_as), not for a session (the
  -- CLI's export).
  v_account jsonb := auth.current_account() - 'disabled';
begin
  return concat_ws(',',
    '{"format":"liftbase-export","version":2,"exported_at":' || to_json(now()),
    '"user":' || v_account::text,
    '"settings":' || app.settings_json(p_user_id)::text,
    '"profile":' || coalesce((
      select json_build_object('sex', p.sex, 'date_of_birth', p.date_of_birth, 'age_years', p.age_years,
               'age_recorded_on', p.age_recorded_on, 'height_cm', p.height_cm, 'activity_level', p.activity_level,
               'created_at', p.created_at)::text
        from app.user_profiles as p where p.user_id = p_user_id), 'null'),
    '"goals":' || coalesce((
      select json_build_object('goal_type', g.goal_type, 'goal_rate_per_week', g.goal_rate_per_week,
               'created_at', g.created_at)::text
        from app.goals as g where g.user_id = p_user_id), 'null'),
    '"target_override":' || coalesce((
      select json_build_object('calories', o.calories, 'protein_g', o.protein_g, 'carbs_g', o.carbs_g,
                               'fat_g', o.fat_g, 'water_ml', o.water_ml)::text
        from app.target_overrides as o where o.user_id = p_user_id), 'null'),
    '"body_metrics":' || coalesce((
      select json_agg(json_build_object('id', m.id, 'recorded_at', m.recorded_at, 'weight_kg', m.weight_kg,
               'body_fat_pct', m.body_fat_pct, 'height_cm', m.height_cm, 'created_at', m.created_at,
               'source', m.source)
               order by m.recorded_at, m.created_at, m.id)::text
        from app.body_metrics as m where m.user_id = p_user_id), '[]'),
    '"measurement_types":' || coalesce((
      select json_agg(json_build_object('id', t.id, 'name', t.name, 'unit', t.unit, 'min_value', t.min_value,
               'max_value', t.max_value, 'created_at', t.created_at)
               order by lower(t.name), t.created_at, t.id)::text
        from app.measurement_types as t where t.user_id = p_user_id), '[]'),
    '"body_measurements":' || coalesce((
      select json_agg(json_build_object('id', b.id, 'recorded_at', b.recorded_at, 'measure', b.measure,
               'type_id', b.type_id, 'value', b.value, 'source', b.source, 'created_at', b.created_at)
               order by b.recorded_at, b.measure, b.value, b.created_at, b.id)::text
        from app.body_measurements as b where b.user_id = p_user_id), '[]'),
    '"target_snapshots":' || coalesce((
      select json_agg(json_build_object('id', t.id, 'computed_at', t.computed_at, 'reason', t.reason,
               'formula_version', t.formula_version, 'bmr_formula', t.bmr_formula, 'calories', t.calories,
               'protein_g', t.protein_g, 'carbs_g', t.carbs_g, 'fat_g', t.fat_g, 'warnings', t.warnings,
               'input_parameters', t.input_parameters)
               order by t.computed_at, t.id)::text
        from app.target_snapshots as t where t.user_id = p_user_id), '[]'),
    '"health_metrics":' || coalesce((
      select json_agg(json_build_object('id', h.id, 'snapshot_id', h.snapshot_id, 'computed_at', h.computed_at,
               'version', h.version, 'bmi', h.bmi, 'bmr', h.bmr, 'tdee', h.tdee, 'inputs', h.inputs)
               order by h.computed_at, h.id)::text
        from app.health_metrics as h where h.user_id = p_user_id), '[]'),
    '"metrics_acknowledgements":' || coalesce((
      select json_agg(json_build_object('health_metric_id', a.health_metric_id, 'version', a.version,
               'acknowledged_at', a.acknowledged_at)
               order by a.acknowledged_at, a.health_metric_id)::text
        from app.metrics_acknowledgements as a where a.user_id = p_user_id), '[]'),
    '"equipment_selection":' || coalesce((
      select json_agg(json_build_object('equipment_id', e.equipment_id, 'selected_at', e.selected_at)
               order by e.equipment_id)::text
        from app.user_equipment as e where e.user_id = p_user_id), '[]'),
    '"exclusions":' || coalesce((
      select json_build_object('exercise_ids', x.exercise_ids, 'muscles', x.muscles)::text
        from app.user_exclusions as x where x.user_id = p_user_id), 'null'),
    '"setup":' || coalesce((
      select json_build_object('completed_at', s.completed_at)::text
        from app.user_setup as s where s.user_id = p_user_id), 'null'),
    '"user_exercises":' || coalesce((
      select json_agg(json_build_object('id', e.id, 'name', e.name, 'category', e.category, 'mechanic', e.mechanic,
               'equipment', e.equipment, 'primary_muscles', e.primary_muscles,
               'secondary_muscles', e.secondary_muscles, 'tracking_type', e.tracking_type, 'created_at', e.created_at)
               order by lower(e.name))::text
        from app.user_exercises as e where e.user_id = p_user_id), '[]'),
    '"plans":' || coalesce((
      select json_agg(json_build_object('id', p.id, 'name', p.name, 'created_at', p.created_at,
               'last_used_at', p.last_used_at,
               'exercises', coalesce((
                 select json_agg(json_build_object('position', x.position, 'exercise_id', x.exercise_id,
                          'user_exercise_id', x.user_exercise_id, 'exercise_name', x.exercise_name, 'sets', x.sets,
                          'reps', x.reps, 'reps_max', x.reps_max, 'weight_kg', x.weight_kg,
                          'assistance_kg', x.assistance_kg, 'duration_seconds', x.duration_seconds,
                          'distance_m', x.distance_m, 'rest_seconds', x.rest_seconds,
                          'group', x.superset_group, 'group_rest_seconds', x.group_rest_seconds)
                          order by x.position)
                   from app.plan_exercises as x where x.user_id = p_user_id and x.plan_id = p.id), '[]'))
               order by p.created_at, p.name, p.id)::text
        from app.plans as p where p.user_id = p_user_id), '[]'),
    '"user_foods":' || coalesce((
      select json_agg(json_build_object('id', f.id, 'name', f.name, 'brand', f.brand, 'barcode', f.barcode,
               'energy_kcal', f.energy_kcal, 'protein_g', f.protein_g, 'fat_g', f.fat_g, 'carbs_g', f.carbs_g,
               'fiber_g', f.fiber_g, 'sugars_g', f.sugars_g, 'sodium_mg', f.sodium_mg,
               'saturated_fat_g', f.saturated_fat_g, 'serving_label', f.serving_label, 'serving_g', f.serving_g,
               'created_at', f.created_at)
               order by f.created_at, f.name, f.id)::text
        from app.user_foods as f where f.user_id = p_user_id), '[]'),
    '"favorites":' || coalesce((
      select json_agg(json_build_object('id', f.id, 'name', f.name, 'calories', f.calories, 'protein_g', f.protein_g,
               'carbs_g', f.carbs_g, 'fat_g', f.fat_g, 'food_id', f.food_id, 'user_food_id', f.user_food_id,
               'servings', f.servings, 'created_at', f.created_at)
               order by f.created_at, f.name, f.id)::text
        from app.favorites as f where f.user_id = p_user_id), '[]'),
    '"custom_meals":' || coalesce((
      select json_agg(json_build_object('id', m.id, 'name', m.name, 'created_at', m.created_at,
               'items', coalesce((
                 select json_agg(json_build_object('position', i.position, 'name', i.name, 'food_id', i.food_id,
                          'user_food_id', i.user_food_id, 'portion_seq', i.portion_seq, 'servings', i.servings,
                          'calories', i.calories, 'protein_g', i.protein_g, 'carbs_g', i.carbs_g, 'fat_g', i.fat_g)
                          order by i.position)
                   from app.custom_meal_items as i where i.user_id = p_user_id and i.meal_id = m.id), '[]'))
               order by m.created_at, m.name, m.id)::text
        from app.custom_meals as m where m.user_id = p_user_id), '[]'),
    '"import_runs":' || coalesce((
      select json_agg(json_build_object('id', r.id, 'format', r.format, 'file_sha256', r.file_sha256,
               'dry_run', r.dry_run, 'imported', r.imported, 'skipped_duplicates', r.skipped_duplicates,
               'error_count', r.error_count, 'created_at', r.created_at)
               order by r.created_at, r.id)::text
        from app.import_runs as r where r.user_id = p_user_id), '[]'));
end
$$;

-- One program with its phases, its schedule and the progression state of its exercises.
-- The state is ordered by the catalog name of the exercise, not its id; `updated_at` is
-- bookkeeping and stays out, like every other updated_at.
create or replace function app.export_program(p_program app.programs)
returns text
language plpgsql
stable
as $$
begin
  return json_build_object('id', p_program.id, 'goal', p_program.goal, 'training_age', p_program.training_age,
    'days_per_week', p_program.days_per_week, 'split', p_program.split, 'status', p_program.status,
    'started_on', p_program.started_on, 'created_at', p_program.created_at, 'ended_at', p_program.ended_at,
    'phases', coalesce((
      select json_agg(json_build_object('position', f.position, 'block_position', f.block_position, 'block', f.block,
               'phase', f.phase, 'first_week', f.first_week, 'last_week', f.last_week, 'main_reps', f.main_reps,
               'main_rpe', f.main_rpe, 'accessory_reps_low', f.accessory_reps_low,
               'accessory_reps_high', f.accessory_reps_high, 'accessory_rpe', f.accessory_rpe,
               'set_factor', f.set_factor, 'load_factor', f.load_factor)
               order by f.position)
        from app.program_phases as f
       where f.user_id = p_program.user_id and f.program_id = p_program.id), '[]'),
    'sessions', coalesce((
      select json_agg(json_build_object('id', s.id, 'slot', s.slot, 'templates', s.templates, 'status', s.status,
               'volume_factor', s.volume_factor, 'shifted', s.shifted, 'successor_id', s.successor_id, 'mode', s.mode,
               'dropped_sets', s.dropped_sets, 'training_session_id', s.training_session_id, 'done_at', s.done_at)
               order by s.slot)
        from app.program_sessions as s
       where s.user_id = p_program.user_id and s.program_id = p_program.id), '[]'),
    'exercise_state', coalesce((
      select json_agg(json_build_object('exercise_id', x.exercise_id, 'load_kg', x.load_kg, 'reps', x.reps,
               'misses', x.misses, 'rpe_week', x.rpe_week, 'rpe_week_top', x.rpe_week_top, 'rpe_target', x.rpe_target,
               'duration_seconds', x.duration_seconds)
               order by lower(e.name), x.exercise_id)
        from app.program_exercise_state as x
        join app.exercises as e on e.id = x.exercise_id
       where x.user_id = p_program.user_id and x.program_id = p_program.id), '[]'))::text;
end
$$;

-- One training session with its exercises and sets, as its member of the document.
create or replace function app.export_session(p_session app.training_sessions)
returns text
language plpgsql
stable
as $$
begin
  return json_build_object('id', p_session.id, 'client_id', p_session.client_id, 'import_key', p_session.import_key,
    'session_date', p_session.session_date, 'name', p_session.name, 'notes', p_session.notes,
    'status', p_session.status, 'started_at', p_session.started_at, 'finished_at', p_session.finished_at,
    'created_at', p_session.created_at,
    'exercises', coalesce((
      select json_agg(json_build_object('position', e.position, 'exercise_id', e.exercise_id,
               'user_exercise_id', e.user_exercise_id, 'exercise_name', e.exercise_name, 'notes', e.notes,
               'group', e.superset_group, 'group_rest_seconds', e.group_rest_seconds,
               'sets', coalesce((
                 select json_agg(json_build_object('position', s.position, 'reps', s.reps, 'weight_kg', s.weight_kg,
                          'rpe', s.rpe, 'rir', s.rir, 'set_type', s.set_type, 'tempo', s.tempo,
                          'rest_seconds', s.rest_seconds, 'duration_seconds', s.duration_seconds,
                          'distance_m', s.distance_m, 'assistance_kg', s.assistance_kg)
                          order by s.position)
                   from app.session_sets as s
                  where s.user_id = e.user_id and s.session_id = e.session_id
                    and s.exercise_position = e.position), '[]'))
               order by e.position)
        from app.session_exercises as e
       where e.user_id = p_session.user_id and e.session_id = p_session.id), '[]'))::text;
end
$$;

create or replace function app.export_food_entry(p_entry app.food_entries)
returns text
language sql
stable
as $$
  select json_build_object('id', p_entry.id, 'client_id', p_entry.client_id, 'import_key', p_entry.import_key,
    'entry_date', p_entry.entry_date, 'meal_type', p_entry.meal_type, 'name', p_entry.name, 'food_id', p_entry.food_id,
    'user_food_id', p_entry.user_food_id, 'portion_seq', p_entry.portion_seq, 'servings', p_entry.servings,
    'favorite_id', p_entry.favorite_id, 'custom_meal_id', p_entry.custom_meal_id, 'calories', p_entry.calories,
    'protein_g', p_entry.protein_g, 'carbs_g', p_entry.carbs_g, 'fat_g', p_entry.fat_g, 'source', p_entry.source,
    'barcode', p_entry.barcode, 'created_at', p_entry.created_at)::text
$$;

-- The whole document, chunk by chunk; concatenated in order they are the JSON text.
-- PL/pgSQL hands its rows over through a tuplestore, which keeps work_mem in memory and
-- spills the rest to a temporary file: a long history costs disk, not memory.
create or replace function app.export_document(p_user_id uuid)
returns setof text
language plpgsql
stable
as $$
declare
  v_separator text;
  v_program app.programs;
  v_session app.training_sessions;
begin
  -- Programs and sessions are read here and written out by their own functions, one call
  -- each: on Citus those calls (which read the rows' children) are then statements of the
  -- coordinator, not functions run inside a statement sent to a worker.
  return next app.export_head(p_user_id) || ',"programs":[';
  v_separator := '';
  for v_program in
    select p.* from app.programs as p where p.user_id = p_user_id order by p.created_at, p.id
  loop
    return next v_separator || app.export_program(v_program);
    v_separator := ',';
  end loop;
  return next '],"training_sessions":[';
  v_separator := '';
  for v_session in
    select t.* from app.training_sessions as t
     where t.user_id = p_user_id
     order by t.session_date, t.started_at nulls last, t.created_at, t.name, t.id
  loop
    return next v_separator || app.export_session(v_session);
    v_separator := ',';
  end loop;
  return next '],"food_entries":[';
  return query
    select case when row_number() over w = 1 then '' else ',' end || app.export_food_entry(row(f.*)::app.food_entries)
      from app.food_entries as f
     where f.user_id = p_user_id
    window w as (order by f.entry_date, app.meal_order(f.meal_type), f.created_at, f.name, f.id)
     order by f.entry_date, app.meal_order(f.meal_type), f.created_at, f.name, f.id;
  return next '],"water_entries":[';
  return query
    select case when row_number() over w = 1 then '' else ',' end
           || json_build_object('id', e.id, 'entry_date', e.entry_date, 'recorded_at', e.recorded_at,
                                'amount_ml', e.amount_ml, 'source', e.source, 'created_at', e.created_at)::text
      from app.water_entries as e
     where e.user_id = p_user_id
    window w as (order by e.entry_date, e.recorded_at, e.amount_ml, e.created_at, e.id)
     order by e.entry_date, e.recorded_at, e.amount_ml, e.created_at, e.id;
  return next '],"health_samples":[';
  return query
    select case when row_number() over w = 1 then '' else ',' end
           || json_build_object('platform', h.platform, 'sample_id', h.sample_id, 'type', h.type, 'value', h.value,
                                'start_at', h.start_at, 'end_at', h.end_at, 'source_app', h.source_app,
                                'device', h.device, 'day', h.day, 'created_at', h.created_at)::text
      from app.health_samples as h
     where h.user_id = p_user_id
    window w as (order by h.day, h.type, h.start_at, h.platform, h.sample_id)
     order by h.day, h.type, h.start_at, h.platform, h.sample_id;
  -- What each photo is; the images leave through their archive (docs/photos.md).
  return next '],"progress_photos":[';
  return query
    select case when row_number() over w = 1 then '' else ',' end
           || json_build_object('id', p.id, 'taken_on', p.taken_on, 'pose', p.pose, 'measurement_id', p.measurement_id,
                                'content_type', p.content_type, 'byte_size', p.byte_size, 'sha256', p.sha256,
                                'file', app.photo_file_name(row(p.*)::app.progress_photos),
                                'created_at', p.created_at)::text
      from app.progress_photos as p
     where p.user_id = p_user_id
    window w as (order by p.taken_on, p.id)
     order by p.taken_on, p.id;
  return next ']}';
end
$$;

grant execute on function
  app.export_head(uuid),
  app.export_program(app.programs),
  app.export_session(app.training_sessions),
  app.export_food_entry(app.food_entries),
  app.export_document(uuid)
to liftbase_api;
