-- Importing a Liftbase export (`liftbase-export` version 1, docs/export-format.md) into an
-- account. UUID ids are kept (primary keys lead with user_id, so another account's ids are
-- free here), which makes a re-import of the same document skip every row it already
-- holds; an own exercise named (case-insensitively) like one the account already has is
-- that one, and references to it are followed there. Integer ids (body metrics, target
-- snapshots, health metrics) come from sequences of this server, so they are re-created
-- and their references followed by natural keys
-- (recorded_at; computed_at and reason; computed_at and version). Catalog ids the server
-- lacks become null, the name snapshots stay. Import runs are history and not re-created;
-- session totals are recomputed. Members a version-1 reader does not know are ignored.
-- Import keys travel with sessions and diary rows, so a Strong, Hevy or Cronometer file
-- imported before the move is still recognised after it.

-- Inserts p_rows into one simple table section, counting inserted and skipped rows.
create or replace function app.import_liftbase_section(p_user_id uuid, p_section text, p_rows jsonb,
  inout imported integer, inout skipped_duplicates integer)
language plpgsql
as $$
declare
  v_count integer;
  v_rows jsonb := coalesce(p_rows, '[]');
begin
  if jsonb_typeof(v_rows) = 'object' then
    v_rows := jsonb_build_array(v_rows);
  elsif jsonb_typeof(v_rows) <> 'array' then
    v_rows := '[]';
  end if;
  case p_section
    when 'profile' then
      insert into app.user_profiles (user_id, sex, date_of_birth, age_years, age_recorded_on, height_cm, activity_level,
                                     created_at)
      select p_user_id, r ->> 'sex', (r ->> 'date_of_birth')::date, (r ->> 'age_years')::integer,
             (r ->> 'age_recorded_on')::date, (r ->> 'height_cm')::numeric, r ->> 'activity_level',
             coalesce((r ->> 'created_at')::timestamptz, now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'goals' then
      insert into app.goals (user_id, goal_type, goal_rate_per_week, created_at)
      select p_user_id, r ->> 'goal_type', (r ->> 'goal_rate_per_week')::numeric,
             coalesce((r ->> 'created_at')::timestamptz, now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'target_override' then
      insert into app.target_overrides (user_id, calories, protein_g, carbs_g, fat_g)
      select p_user_id, (r ->> 'calories')::numeric, (r ->> 'protein_g')::numeric, (r ->> 'carbs_g')::numeric,
             (r ->> 'fat_g')::numeric
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'equipment_selection' then
      insert into app.user_equipment (user_id, equipment_id, selected_at)
      select p_user_id, r ->> 'equipment_id', coalesce((r ->> 'selected_at')::timestamptz, now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'exclusions' then
      insert into app.user_exclusions (user_id, exercise_ids, muscles)
      select p_user_id, array(select jsonb_array_elements_text(coalesce(r -> 'exercise_ids', '[]'))::uuid),
             array(select jsonb_array_elements_text(coalesce(r -> 'muscles', '[]')))
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'setup' then
      insert into app.user_setup (user_id, completed_at)
      select p_user_id, coalesce((r ->> 'completed_at')::timestamptz, now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'body_metrics' then
      insert into app.body_metrics (user_id, recorded_at, weight_kg, body_fat_pct, height_cm, created_at)
      select p_user_id, (r ->> 'recorded_at')::timestamptz, (r ->> 'weight_kg')::numeric, (r ->> 'body_fat_pct')::numeric,
             (r ->> 'height_cm')::numeric, coalesce((r ->> 'created_at')::timestamptz, now())
        from jsonb_array_elements(v_rows) as r
       where not exists (select from app.body_metrics as b
                          where b.user_id = p_user_id and b.recorded_at = (r ->> 'recorded_at')::timestamptz);
    when 'target_snapshots' then
      insert into app.target_snapshots (user_id, computed_at, reason, formula_version, bmr_formula, calories, protein_g,
                                        carbs_g, fat_g, warnings, input_parameters)
      select p_user_id, (r ->> 'computed_at')::timestamptz, r ->> 'reason', (r ->> 'formula_version')::integer,
             r ->> 'bmr_formula', (r ->> 'calories')::integer, (r ->> 'protein_g')::integer, (r ->> 'carbs_g')::integer,
             (r ->> 'fat_g')::integer, coalesce(r -> 'warnings', '[]'), coalesce(r -> 'input_parameters', '{}')
        from jsonb_array_elements(v_rows) as r
       where not exists (select from app.target_snapshots as t
                          where t.user_id = p_user_id and t.computed_at = (r ->> 'computed_at')::timestamptz
                            and t.reason = r ->> 'reason');
    when 'user_exercises' then
      insert into app.user_exercises (user_id, id, name, category, mechanic, equipment, primary_muscles, secondary_muscles,
                                      created_at)
      select p_user_id, (r ->> 'id')::uuid, r ->> 'name', coalesce(r ->> 'category', 'strength'), r ->> 'mechanic',
             coalesce(r ->> 'equipment', 'other'),
             array(select jsonb_array_elements_text(coalesce(r -> 'primary_muscles', '[]'))),
             array(select jsonb_array_elements_text(coalesce(r -> 'secondary_muscles', '[]'))),
             coalesce((r ->> 'created_at')::timestamptz, now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'user_foods' then
      insert into app.user_foods (user_id, id, name, brand, barcode, energy_kcal, protein_g, fat_g, carbs_g, fiber_g,
                                  sugars_g, sodium_mg, saturated_fat_g, serving_label, serving_g, created_at)
      select p_user_id, (r ->> 'id')::uuid, r ->> 'name', r ->> 'brand', r ->> 'barcode', (r ->> 'energy_kcal')::numeric,
             coalesce((r ->> 'protein_g')::numeric, 0), coalesce((r ->> 'fat_g')::numeric, 0),
             coalesce((r ->> 'carbs_g')::numeric, 0), (r ->> 'fiber_g')::numeric, (r ->> 'sugars_g')::numeric,
             (r ->> 'sodium_mg')::numeric, (r ->> 'saturated_fat_g')::numeric, coalesce(r ->> 'serving_label', '100 g'),
             coalesce((r ->> 'serving_g')::numeric, 100), coalesce((r ->> 'created_at')::timestamptz, now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'favorites' then
      insert into app.favorites (user_id, id, name, calories, protein_g, carbs_g, fat_g, food_id, user_food_id, servings,
                                 created_at)
      select p_user_id, (r ->> 'id')::uuid, r ->> 'name', (r ->> 'calories')::numeric, (r ->> 'protein_g')::numeric,
             (r ->> 'carbs_g')::numeric, (r ->> 'fat_g')::numeric,
             (select f.id from app.foods as f where f.id = (r ->> 'food_id')::uuid), (r ->> 'user_food_id')::uuid,
             (r ->> 'servings')::numeric, coalesce((r ->> 'created_at')::timestamptz, now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'food_entries' then
      insert into app.food_entries (user_id, id, client_id, import_key, entry_date, meal_type, name, food_id, user_food_id,
                                    portion_seq, servings, favorite_id, custom_meal_id, calories, protein_g, carbs_g, fat_g,
                                    source, barcode, created_at)
      select p_user_id, (r ->> 'id')::uuid, (r ->> 'client_id')::uuid, r ->> 'import_key', (r ->> 'entry_date')::date,
             coalesce(r ->> 'meal_type', 'snack'), r ->> 'name',
             (select f.id from app.foods as f where f.id = (r ->> 'food_id')::uuid), (r ->> 'user_food_id')::uuid,
             (r ->> 'portion_seq')::integer, (r ->> 'servings')::numeric, (r ->> 'favorite_id')::uuid,
             (r ->> 'custom_meal_id')::uuid, (r ->> 'calories')::numeric, (r ->> 'protein_g')::numeric,
             (r ->> 'carbs_g')::numeric, (r ->> 'fat_g')::numeric, r ->> 'source', r ->> 'barcode',
             coalesce((r ->> 'created_at')::timestamptz, now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
  end case;
  get diagnostics v_count = row_count;
  imported := imported + v_count;
  skipped_duplicates := skipped_duplicates + jsonb_array_length(v_rows) - v_count;
end
$$;

-- Health metrics and acknowledgements point at integer ids of the document: they are
-- followed to this account's rows through the natural keys of what they point at.
create or replace function app.import_liftbase_metrics(p_user_id uuid, p_document jsonb,
  inout imported integer, inout skipped_duplicates integer)
language plpgsql
as $$
declare
  v_count integer;
  v_metrics jsonb := coalesce(p_document -> 'health_metrics', '[]');
  v_acknowledgements jsonb := coalesce(p_document -> 'metrics_acknowledgements', '[]');
begin
  insert into app.health_metrics (user_id, computed_at, version, bmi, bmr, tdee, inputs, snapshot_id)
  select p_user_id, (m ->> 'computed_at')::timestamptz, (m ->> 'version')::integer, (m ->> 'bmi')::numeric,
         (m ->> 'bmr')::integer, (m ->> 'tdee')::integer, coalesce(m -> 'inputs', '{}'), t.id
    from jsonb_array_elements(v_metrics) as m
    join jsonb_array_elements(coalesce(p_document -> 'target_snapshots', '[]')) as s on s ->> 'id' = m ->> 'snapshot_id'
    join app.target_snapshots as t
      on t.user_id = p_user_id and t.computed_at = (s ->> 'computed_at')::timestamptz and t.reason = s ->> 'reason'
   where not exists (select from app.health_metrics as h
                      where h.user_id = p_user_id and h.computed_at = (m ->> 'computed_at')::timestamptz
                        and h.version = (m ->> 'version')::integer);
  get diagnostics v_count = row_count;
  imported := imported + v_count;
  skipped_duplicates := skipped_duplicates + jsonb_array_length(v_metrics) - v_count;

  insert into app.metrics_acknowledgements (user_id, health_metric_id, version, acknowledged_at)
  select p_user_id, h.id, (a ->> 'version')::integer, (a ->> 'acknowledged_at')::timestamptz
    from jsonb_array_elements(v_acknowledgements) as a
    join jsonb_array_elements(v_metrics) as m on m ->> 'id' = a ->> 'health_metric_id'
    join app.health_metrics as h
      on h.user_id = p_user_id and h.computed_at = (m ->> 'computed_at')::timestamptz and h.version = (m ->> 'version')::integer
  on conflict do nothing;
  get diagnostics v_count = row_count;
  imported := imported + v_count;
  skipped_duplicates := skipped_duplicates + jsonb_array_length(v_acknowledgements) - v_count;
end
$$;

-- Own exercises are one per name (case-insensitive) in an account, so a document's own
-- exercise whose name the account already holds under another id is skipped, and is that
-- exercise: {document id: account id} for each such one, read after the document's own
-- exercises are inserted.
create or replace function app.import_liftbase_exercise_map(p_user_id uuid, p_document jsonb)
returns jsonb
language sql
stable
as $$
  select coalesce(jsonb_object_agg(lower(r ->> 'id'), u.id), '{}')
    from jsonb_array_elements(case when jsonb_typeof(p_document -> 'user_exercises') = 'array'
                                   then p_document -> 'user_exercises' else '[]' end) as r
    join app.user_exercises as u on u.user_id = p_user_id and lower(u.name) = lower(r ->> 'name')
   where u.id <> (r ->> 'id')::uuid
$$;

-- Plans or sessions (p_parents) with each exercise's user_exercise_id followed through p_map.
create or replace function app.import_liftbase_remap_parents(p_parents jsonb, p_map jsonb)
returns jsonb
language sql
immutable
as $$
  select coalesce(jsonb_agg(case when jsonb_typeof(p -> 'exercises') = 'array' then jsonb_set(p, '{exercises}', (
             select coalesce(jsonb_agg(case when p_map ? lower(e ->> 'user_exercise_id')
                                            then jsonb_set(e, '{user_exercise_id}', p_map -> lower(e ->> 'user_exercise_id'))
                                            else e end order by m), '[]')
               from jsonb_array_elements(p -> 'exercises') with ordinality as y (e, m)))
           else p end order by n), '[]')
    from jsonb_array_elements(p_parents) with ordinality as x (p, n)
$$;

-- The document with its references to own exercises followed through p_map
-- (app.import_liftbase_exercise_map): in plans, sessions and the exclusions.
create or replace function app.import_liftbase_remap_exercises(p_document jsonb, p_map jsonb)
returns jsonb
language plpgsql
immutable
as $$
declare
  v_document jsonb := p_document;
begin
  if jsonb_typeof(p_document -> 'plans') = 'array' then
    v_document := jsonb_set(v_document, '{plans}', app.import_liftbase_remap_parents(p_document -> 'plans', p_map));
  end if;
  if jsonb_typeof(p_document -> 'training_sessions') = 'array' then
    v_document := jsonb_set(v_document, '{training_sessions}',
                            app.import_liftbase_remap_parents(p_document -> 'training_sessions', p_map));
  end if;
  if jsonb_typeof(p_document #> '{exclusions,exercise_ids}') = 'array' then
    v_document := jsonb_set(v_document, '{exclusions,exercise_ids}',
      (select coalesce(jsonb_agg(coalesce(p_map -> lower(i #>> '{}'), i) order by n), '[]')
         from jsonb_array_elements(p_document #> '{exclusions,exercise_ids}') with ordinality as x (i, n)));
  end if;
  return v_document;
end
$$;

-- Why a completed session of the document is refused, in the words of the sessions API:
-- app.session_problems of the session read as a request body. Exercise ids are left out of
-- that body, since a catalog id this server lacks is no problem here (the name stays).
create or replace function app.import_liftbase_session_problem(p_user_id uuid, p_session jsonb)
returns text
language sql
stable
as $$
  select format('training session %s of %s: ', p_session ->> 'id', p_session ->> 'session_date')
         || coalesce(string_agg(p.key || ': ' || p.value, '; ' order by p.key),
                     'a completed session needs at least one exercise, each with at least one set')
    from jsonb_each_text(jsonb_strip_nulls(app.session_problems(p_user_id, p_session || jsonb_build_object('exercises',
           (select coalesce(jsonb_agg(case when jsonb_typeof(e) = 'object' then e - 'exercise_id' - 'user_exercise_id'
                                           else e end order by n), '[]')
              from jsonb_array_elements(case when jsonb_typeof(p_session -> 'exercises') = 'array'
                                             then p_session -> 'exercises' else '[]' end) with ordinality as x (e, n))))))
           as p
$$;

-- Plans, custom meals and sessions with their children: the children of a parent already
-- held are skipped with it. Catalog exercise ids the server lacks become null.
create or replace function app.import_liftbase_nested(p_user_id uuid, p_document jsonb,
  inout imported integer, inout skipped_duplicates integer)
language plpgsql
as $$
declare
  v_new uuid[];
  v_errors jsonb;
begin
  with inserted as (
    insert into app.plans (user_id, id, name, created_at, last_used_at)
    select p_user_id, (p ->> 'id')::uuid, p ->> 'name', coalesce((p ->> 'created_at')::timestamptz, now()),
           (p ->> 'last_used_at')::timestamptz
      from jsonb_array_elements(coalesce(p_document -> 'plans', '[]')) as p
    on conflict do nothing
    returning id)
  select coalesce(array_agg(id), '{}') into v_new from inserted;
  insert into app.plan_exercises (user_id, plan_id, position, exercise_id, user_exercise_id, exercise_name, sets, reps,
                                  weight_kg, rest_seconds)
  select p_user_id, (p ->> 'id')::uuid, (e ->> 'position')::integer,
         (select x.id from app.exercises as x where x.id = (e ->> 'exercise_id')::uuid), (e ->> 'user_exercise_id')::uuid,
         e ->> 'exercise_name', (e ->> 'sets')::integer, (e ->> 'reps')::integer, coalesce((e ->> 'weight_kg')::numeric, 0),
         (e ->> 'rest_seconds')::integer
    from jsonb_array_elements(coalesce(p_document -> 'plans', '[]')) as p
   cross join jsonb_array_elements(coalesce(p -> 'exercises', '[]')) as e
   where (p ->> 'id')::uuid = any (v_new);
  imported := imported + cardinality(v_new);
  skipped_duplicates := skipped_duplicates + jsonb_array_length(coalesce(p_document -> 'plans', '[]')) - cardinality(v_new);

  with inserted as (
    insert into app.custom_meals (user_id, id, name, created_at)
    select p_user_id, (m ->> 'id')::uuid, m ->> 'name', coalesce((m ->> 'created_at')::timestamptz, now())
      from jsonb_array_elements(coalesce(p_document -> 'custom_meals', '[]')) as m
    on conflict do nothing
    returning id)
  select coalesce(array_agg(id), '{}') into v_new from inserted;
  insert into app.custom_meal_items (user_id, meal_id, position, name, food_id, user_food_id, portion_seq, servings,
                                     calories, protein_g, carbs_g, fat_g)
  select p_user_id, (m ->> 'id')::uuid, (i ->> 'position')::integer, i ->> 'name',
         (select f.id from app.foods as f where f.id = (i ->> 'food_id')::uuid), (i ->> 'user_food_id')::uuid,
         (i ->> 'portion_seq')::integer, (i ->> 'servings')::numeric, (i ->> 'calories')::numeric,
         (i ->> 'protein_g')::numeric, (i ->> 'carbs_g')::numeric, (i ->> 'fat_g')::numeric
    from jsonb_array_elements(coalesce(p_document -> 'custom_meals', '[]')) as m
   cross join jsonb_array_elements(coalesce(m -> 'items', '[]')) as i
   where (m ->> 'id')::uuid = any (v_new);
  imported := imported + cardinality(v_new);
  skipped_duplicates := skipped_duplicates + jsonb_array_length(coalesce(p_document -> 'custom_meals', '[]')) - cardinality(v_new);

  with inserted as (
    insert into app.training_sessions (user_id, id, client_id, import_key, session_date, name, notes, status, started_at,
                                       finished_at, created_at)
    select p_user_id, (s ->> 'id')::uuid, (s ->> 'client_id')::uuid, s ->> 'import_key', (s ->> 'session_date')::date,
           s ->> 'name', s ->> 'notes', coalesce(s ->> 'status', 'completed'), (s ->> 'started_at')::timestamptz,
           (s ->> 'finished_at')::timestamptz, coalesce((s ->> 'created_at')::timestamptz, now())
      from jsonb_array_elements(coalesce(p_document -> 'training_sessions', '[]')) as s
    on conflict do nothing
    returning id)
  select coalesce(array_agg(id), '{}') into v_new from inserted;
  insert into app.session_exercises (user_id, session_id, position, exercise_id, user_exercise_id, exercise_name, notes)
  select p_user_id, (s ->> 'id')::uuid, (e ->> 'position')::integer,
         (select x.id from app.exercises as x where x.id = (e ->> 'exercise_id')::uuid), (e ->> 'user_exercise_id')::uuid,
         e ->> 'exercise_name', e ->> 'notes'
    from jsonb_array_elements(coalesce(p_document -> 'training_sessions', '[]')) as s
   cross join jsonb_array_elements(coalesce(s -> 'exercises', '[]')) as e
   where (s ->> 'id')::uuid = any (v_new);
  insert into app.session_sets (user_id, session_id, exercise_position, position, reps, weight_kg, rpe, rir, set_type,
                                tempo, rest_seconds)
  select p_user_id, (s ->> 'id')::uuid, (e ->> 'position')::integer, (x ->> 'position')::integer,
         (x ->> 'reps')::integer, (x ->> 'weight_kg')::numeric, (x ->> 'rpe')::numeric, (x ->> 'rir')::integer,
         coalesce(x ->> 'set_type', 'working'), x ->> 'tempo', (x ->> 'rest_seconds')::integer
    from jsonb_array_elements(coalesce(p_document -> 'training_sessions', '[]')) as s
   cross join jsonb_array_elements(coalesce(s -> 'exercises', '[]')) as e
   cross join jsonb_array_elements(coalesce(e -> 'sets', '[]')) as x
   where (s ->> 'id')::uuid = any (v_new);
  -- The rule of a completed session is app.session_is_complete's, checked on the rows as
  -- written (set-based); only sessions that break it are described, by app.session_problems.
  select coalesce(jsonb_agg(jsonb_build_object('line', null, 'message', app.import_liftbase_session_problem(p_user_id, s))
                            order by n), '[]')
    into v_errors
    from jsonb_array_elements(coalesce(p_document -> 'training_sessions', '[]')) with ordinality as x (s, n)
   where (s ->> 'id')::uuid = any (v_new) and coalesce(s ->> 'status', 'completed') = 'completed'
     and not app.session_is_complete(p_user_id, (s ->> 'id')::uuid);
  if v_errors <> '[]' then
    raise exception using errcode = 'LBIMP', message = 'the document breaks a rule', detail = v_errors::text;
  end if;
  perform app.refresh_session_totals(p_user_id, i) from unnest(v_new) as i;
  imported := imported + cardinality(v_new);
  skipped_duplicates := skipped_duplicates
    + jsonb_array_length(coalesce(p_document -> 'training_sessions', '[]')) - cardinality(v_new);
end
$$;

-- Programs with their phases, schedule and progression state; children of a program
-- already held are skipped with it. Runs after the training sessions, which the schedule
-- links to: a link to a session this account does not hold becomes null, and state for a
-- catalog exercise the server lacks is left out (it only has a meaning for that
-- exercise). An account has one active program: when it already has one, it keeps it, and
-- an active program of the document is stored as ended at the time of the import.
create or replace function app.import_liftbase_programs(p_user_id uuid, p_document jsonb,
  inout imported integer, inout skipped_duplicates integer)
language plpgsql
as $$
declare
  v_programs jsonb := coalesce(p_document -> 'programs', '[]');
  v_active_id uuid;
  v_new uuid[];
begin
  if jsonb_typeof(v_programs) <> 'array' then
    v_programs := '[]';
  end if;
  -- The program that may stay active: the document's newest active one, if the account has none.
  if not exists (select from app.programs as p where p.user_id = p_user_id and p.status = 'active') then
    select (p ->> 'id')::uuid into v_active_id
      from jsonb_array_elements(v_programs) as p
     where p ->> 'status' = 'active'
     order by (p ->> 'created_at')::timestamptz desc nulls last
     limit 1;
  end if;
  with inserted as (
    insert into app.programs (user_id, id, goal, training_age, days_per_week, split, status, started_on, created_at,
                              ended_at)
    select p_user_id, (p ->> 'id')::uuid, p ->> 'goal', p ->> 'training_age', (p ->> 'days_per_week')::integer,
           array(select jsonb_array_elements_text(coalesce(p -> 'split', '[]'))),
           case when p ->> 'status' = 'active' and (p ->> 'id')::uuid is distinct from v_active_id then 'ended'
                else coalesce(p ->> 'status', 'ended') end,
           (p ->> 'started_on')::date, coalesce((p ->> 'created_at')::timestamptz, now()),
           case when p ->> 'status' = 'active' and (p ->> 'id')::uuid is distinct from v_active_id then now()
                else (p ->> 'ended_at')::timestamptz end
      from jsonb_array_elements(v_programs) as p
    on conflict do nothing
    returning id)
  select coalesce(array_agg(id), '{}') into v_new from inserted;

  insert into app.program_phases (user_id, program_id, position, block_position, block, phase, first_week, last_week,
                                  main_reps, main_rpe, accessory_reps_low, accessory_reps_high, accessory_rpe, set_factor,
                                  load_factor)
  select p_user_id, (p ->> 'id')::uuid, (f ->> 'position')::integer, (f ->> 'block_position')::integer, f ->> 'block',
         f ->> 'phase', (f ->> 'first_week')::integer, (f ->> 'last_week')::integer, (f ->> 'main_reps')::integer,
         (f ->> 'main_rpe')::numeric, (f ->> 'accessory_reps_low')::integer, (f ->> 'accessory_reps_high')::integer,
         (f ->> 'accessory_rpe')::numeric, (f ->> 'set_factor')::numeric, (f ->> 'load_factor')::numeric
    from jsonb_array_elements(v_programs) as p
   cross join jsonb_array_elements(coalesce(p -> 'phases', '[]')) as f
   where (p ->> 'id')::uuid = any (v_new);

  insert into app.program_sessions (user_id, program_id, id, slot, templates, status, volume_factor, shifted, successor_id,
                                    mode, dropped_sets, training_session_id, done_at)
  select p_user_id, (p ->> 'id')::uuid, (s ->> 'id')::uuid, (s ->> 'slot')::integer,
         array(select jsonb_array_elements_text(coalesce(s -> 'templates', '[]'))), coalesce(s ->> 'status', 'planned'),
         coalesce((s ->> 'volume_factor')::numeric, 1), coalesce((s ->> 'shifted')::integer, 0),
         (s ->> 'successor_id')::uuid, coalesce(s ->> 'mode', 'normal'), coalesce(s -> 'dropped_sets', '[]'),
         (select t.id from app.training_sessions as t
           where t.user_id = p_user_id and t.id = (s ->> 'training_session_id')::uuid),
         (s ->> 'done_at')::timestamptz
    from jsonb_array_elements(v_programs) as p
   cross join jsonb_array_elements(coalesce(p -> 'sessions', '[]')) as s
   where (p ->> 'id')::uuid = any (v_new);
  -- The slot key is deferred (a skip renumbers slots in one statement): check it now, so
  -- that a document repeating a slot is refused here as one error, not at commit.
  set constraints app.program_sessions_slot_key immediate;
  set constraints app.program_sessions_slot_key deferred;

  insert into app.program_exercise_state (user_id, program_id, exercise_id, load_kg, reps, misses, rpe_week, rpe_week_top,
                                          rpe_target)
  select p_user_id, (p ->> 'id')::uuid, e.id, (x ->> 'load_kg')::numeric,
         array(select jsonb_array_elements_text(coalesce(x -> 'reps', '[]'))::integer),
         coalesce((x ->> 'misses')::integer, 0), (x ->> 'rpe_week')::integer, (x ->> 'rpe_week_top')::numeric,
         (x ->> 'rpe_target')::numeric
    from jsonb_array_elements(v_programs) as p
   cross join jsonb_array_elements(coalesce(p -> 'exercise_state', '[]')) as x
    join app.exercises as e on e.id = (x ->> 'exercise_id')::uuid
   where (p ->> 'id')::uuid = any (v_new);

  imported := imported + cardinality(v_new);
  skipped_duplicates := skipped_duplicates + jsonb_array_length(v_programs) - cardinality(v_new);
end
$$;

-- The whole document, in dependency order. Rows count one each (a session or a plan with
-- everything in it counts once). Settings are checked as PATCH /settings checks them; a
-- completed session must hold what app.session_is_complete asks for. A value the tables
-- refuse rolls everything back and is reported as the one error, described for people
-- (app.import_error_message; a JSON document has no lines: `line` is null).
create or replace function app.import_liftbase(p_user_id uuid, p_document jsonb, p_dry_run boolean,
  out imported integer, out skipped_duplicates integer, out errors jsonb)
language plpgsql
as $$
declare
  v_settings jsonb := case when jsonb_typeof(p_document -> 'settings') = 'object' then p_document -> 'settings' else '{}' end;
  v_document jsonb := p_document;
  v_exercise_map jsonb;
  v_state text;
  v_schema text;
  v_table text;
  v_column text;
  v_constraint text;
  v_datatype text;
  v_detail text;
begin
  imported := 0;
  skipped_duplicates := 0;
  errors := '[]';
  if p_document ->> 'format' is distinct from 'liftbase-export' or p_document ->> 'version' is distinct from '1' then
    errors := jsonb_build_array(jsonb_build_object('line', null,
      'message', 'the document must be a liftbase-export of version 1'));
    return;
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('line', null, 'message', 'settings.' || p.key || ': ' || p.value)
                            order by p.key), '[]')
    into errors from jsonb_each_text(jsonb_strip_nulls(app.settings_problems(v_settings))) as p;
  if errors <> '[]' then
    return;
  end if;
  begin
    perform app.save_settings(p_user_id, v_settings);
    -- Own exercises come first: references to them elsewhere are followed to the ones the
    -- account already holds under the same name.
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'user_exercises', p_document -> 'user_exercises', imported,
                                       skipped_duplicates) as s;
    v_exercise_map := app.import_liftbase_exercise_map(p_user_id, p_document);
    if v_exercise_map <> '{}' then
      v_document := app.import_liftbase_remap_exercises(p_document, v_exercise_map);
    end if;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'profile', v_document -> 'profile', imported, skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'goals', v_document -> 'goals', imported, skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'target_override', v_document -> 'target_override', imported,
                                       skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'body_metrics', v_document -> 'body_metrics', imported,
                                       skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'target_snapshots', v_document -> 'target_snapshots', imported,
                                       skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_metrics(p_user_id, v_document, imported, skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'equipment_selection', v_document -> 'equipment_selection', imported,
                                       skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'exclusions', v_document -> 'exclusions', imported,
                                       skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'setup', v_document -> 'setup', imported, skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'user_foods', v_document -> 'user_foods', imported,
                                       skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'favorites', v_document -> 'favorites', imported,
                                       skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_nested(p_user_id, v_document, imported, skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_programs(p_user_id, v_document, imported, skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_section(p_user_id, 'food_entries', v_document -> 'food_entries', imported,
                                       skipped_duplicates) as s;
    if p_dry_run then
      raise exception using errcode = 'LBDRY', message = 'dry run: roll the import back';
    end if;
  exception
    when sqlstate 'LBDRY' then
      null;
    when sqlstate 'LBIMP' then
      get stacked diagnostics v_detail = pg_exception_detail;
      imported := 0;
      skipped_duplicates := 0;
      errors := v_detail::jsonb;
    when data_exception or integrity_constraint_violation then
      get stacked diagnostics v_state = returned_sqlstate, v_schema = schema_name, v_table = table_name,
                              v_column = column_name, v_constraint = constraint_name, v_datatype = pg_datatype_name;
      imported := 0;
      skipped_duplicates := 0;
      errors := jsonb_build_array(jsonb_build_object('line', null, 'message',
        app.import_error_message(v_state, v_schema, v_table, v_column, v_constraint, v_datatype)));
  end;
end
$$;

grant execute on function
  app.import_liftbase_section(uuid, text, jsonb, integer, integer),
  app.import_liftbase_metrics(uuid, jsonb, integer, integer),
  app.import_liftbase_exercise_map(uuid, jsonb),
  app.import_liftbase_remap_parents(jsonb, jsonb),
  app.import_liftbase_remap_exercises(jsonb, jsonb),
  app.import_liftbase_session_problem(uuid, jsonb),
  app.import_liftbase_nested(uuid, jsonb, integer, integer),
  app.import_liftbase_programs(uuid, jsonb, integer, integer),
  app.import_liftbase(uuid, jsonb, boolean)
to liftbase_api;
