-- Importing a Liftbase export (`liftbase-export` version 1 or 2, docs/export-format.md) into an
-- account. UUID ids are kept (primary keys lead with user_id, so another account's ids are
-- free here), which makes a re-import of the same document skip every row it already
-- holds; an own exercise named (case-insensitively) like one the account already has is
-- that one, and references to it are followed there. Integer ids (body metrics, target
-- snapshots, health metrics) come from sequences of this server, so they are re-created
-- and their references followed by natural keys
-- (recorded_at; computed_at and reason; computed_at and version). Catalog ids the server
-- lacks become null, the name snapshots stay. Import runs are history and not re-created;
-- session totals are recomputed. Members this reader does not know are ignored. An own
-- measurement type named like one the account holds is that one, as for own exercises.
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
  v_held_times timestamptz[];
  v_held_reasons text[];
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
      select p_user_id, r ->> 'sex', app.read_date(r, 'date_of_birth'), app.read_integer(r, 'age_years'),
             app.read_date(r, 'age_recorded_on'), app.read_number(r, 'height_cm'), r ->> 'activity_level',
             coalesce(app.read_timestamp(r, 'created_at'), now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'goals' then
      -- A goal the account has is kept.
      select count(*) filter (where app.save_goal(p_user_id, r ->> 'goal_type', app.read_number(r, 'goal_rate_per_week'), false,
                                                  app.read_timestamp(r, 'created_at')))
        into v_count
        from jsonb_array_elements(v_rows) as r;
      imported := imported + v_count;
      skipped_duplicates := skipped_duplicates + jsonb_array_length(v_rows) - v_count;
      return;
    when 'target_override' then
      insert into app.target_overrides (user_id, calories, protein_g, carbs_g, fat_g, water_ml)
      select p_user_id, app.read_integer(r, 'calories'), app.read_integer(r, 'protein_g'), app.read_integer(r, 'carbs_g'),
             app.read_integer(r, 'fat_g'), app.read_integer(r, 'water_ml')
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'equipment_selection' then
      insert into app.user_equipment (user_id, equipment_id, selected_at)
      select p_user_id, r ->> 'equipment_id', coalesce(app.read_timestamp(r, 'selected_at'), now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'exclusions' then
      insert into app.user_exclusions (user_id, exercise_ids, muscles)
      select p_user_id, coalesce(app.read_uuid_list(r, 'exercise_ids'), '{}'), coalesce(app.read_text_list(r, 'muscles'), '{}')
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'setup' then
      insert into app.user_setup (user_id, completed_at)
      select p_user_id, coalesce(app.read_timestamp(r, 'completed_at'), now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'body_metrics' then
      -- The rows held are read first and the insert selects from the settings row: Citus
      -- plans no subquery on the written table correlated with the document's rows, and
      -- copies a plain insert ... select to the shard, which row-level security refuses
      -- (docs/scaling.md). The integer keys are new, so no conflict is ever skipped.
      select coalesce(array_agg(b.recorded_at), '{}') into v_held_times
        from app.body_metrics as b where b.user_id = p_user_id;
      insert into app.body_metrics (user_id, recorded_at, weight_kg, body_fat_pct, height_cm, created_at, source)
      select u.user_id, app.read_timestamp(r, 'recorded_at'), app.read_number(r, 'weight_kg'), app.read_number(r, 'body_fat_pct'),
             app.read_number(r, 'height_cm'), coalesce(app.read_timestamp(r, 'created_at'), now()),
             app.imported_source(r ->> 'source')
        from app.user_settings as u
       cross join jsonb_array_elements(v_rows) as r
       where u.user_id = p_user_id
         and coalesce(app.read_timestamp(r, 'recorded_at') not in (select h from unnest(v_held_times) as h), true)
      on conflict do nothing;
    when 'target_snapshots' then
      -- As body metrics.
      select coalesce(array_agg(t.computed_at), '{}'), coalesce(array_agg(t.reason), '{}') into v_held_times, v_held_reasons
        from app.target_snapshots as t where t.user_id = p_user_id;
      insert into app.target_snapshots (user_id, computed_at, reason, formula_version, bmr_formula, calories, protein_g,
                                        carbs_g, fat_g, warnings, input_parameters)
      select p_user_id, app.read_timestamp(r, 'computed_at'), r ->> 'reason', app.read_integer(r, 'formula_version'),
             r ->> 'bmr_formula', app.read_integer(r, 'calories'), app.read_integer(r, 'protein_g'), app.read_integer(r, 'carbs_g'),
             app.read_integer(r, 'fat_g'), coalesce(r -> 'warnings', '[]'), coalesce(r -> 'input_parameters', '{}')
        from app.user_settings as u
       cross join jsonb_array_elements(v_rows) as r
       where u.user_id = p_user_id
         and coalesce((app.read_timestamp(r, 'computed_at'), r ->> 'reason')
                        not in (select h.computed_at, h.reason
                                  from unnest(v_held_times, v_held_reasons) as h (computed_at, reason)),
                      true)
      on conflict do nothing;
    when 'user_exercises' then
      insert into app.user_exercises (user_id, id, name, category, mechanic, equipment, primary_muscles,
                                      secondary_muscles, created_at, tracking_type)
      select p_user_id, app.read_uuid(r, 'id'), r ->> 'name', coalesce(r ->> 'category', 'strength'), r ->> 'mechanic',
             coalesce(r ->> 'equipment', 'other'),
             array(select jsonb_array_elements_text(coalesce(r -> 'primary_muscles', '[]'))),
             array(select jsonb_array_elements_text(coalesce(r -> 'secondary_muscles', '[]'))),
             coalesce(app.read_timestamp(r, 'created_at'), now()), coalesce(app.read_text(r, 'tracking_type'), 'weight_reps')
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'user_foods' then
      insert into app.user_foods (user_id, id, name, brand, barcode, energy_kcal, protein_g, fat_g, carbs_g, fiber_g,
                                  sugars_g, sodium_mg, saturated_fat_g, serving_label, serving_g, created_at)
      select p_user_id, app.read_uuid(r, 'id'), r ->> 'name', r ->> 'brand', r ->> 'barcode', app.read_number(r, 'energy_kcal'),
             coalesce(app.read_number(r, 'protein_g'), 0), coalesce(app.read_number(r, 'fat_g'), 0),
             coalesce(app.read_number(r, 'carbs_g'), 0), app.read_number(r, 'fiber_g'), app.read_number(r, 'sugars_g'),
             app.read_number(r, 'sodium_mg'), app.read_number(r, 'saturated_fat_g'), coalesce(r ->> 'serving_label', '100 g'),
             coalesce(app.read_number(r, 'serving_g'), 100), coalesce(app.read_timestamp(r, 'created_at'), now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'favorites' then
      insert into app.favorites (user_id, id, name, calories, protein_g, carbs_g, fat_g, food_id, user_food_id,
                                 servings, created_at)
      select p_user_id, app.read_uuid(r, 'id'), r ->> 'name', app.read_number(r, 'calories'), app.read_number(r, 'protein_g'),
             app.read_number(r, 'carbs_g'), app.read_number(r, 'fat_g'),
             (select f.id from app.foods as f where f.id = app.read_uuid(r, 'food_id')), app.read_uuid(r, 'user_food_id'),
             app.read_number(r, 'servings'), coalesce(app.read_timestamp(r, 'created_at'), now())
        from jsonb_array_elements(v_rows) as r
      on conflict do nothing;
    when 'food_entries' then
      -- A catalog food the server lacks becomes null; the entry keeps its name and values.
      select count(*) into v_count
        from app.write_food_entries(p_user_id,
               array(select jsonb_populate_record(null::app.food_entries,
                              r || jsonb_build_object('food_id', (select f.id from app.foods as f
                                                                   where f.id = app.read_uuid(r, 'food_id'))))
                       from jsonb_array_elements(v_rows) as r));
      imported := imported + v_count;
      skipped_duplicates := skipped_duplicates + jsonb_array_length(v_rows) - v_count;
      return;
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
  v_held_times timestamptz[];
  v_held_versions integer[];
begin
  -- The metrics held are read first (as the body metrics of app.import_liftbase_section).
  select coalesce(array_agg(h.computed_at), '{}'), coalesce(array_agg(h.version), '{}') into v_held_times, v_held_versions
    from app.health_metrics as h where h.user_id = p_user_id;
  insert into app.health_metrics (user_id, computed_at, version, bmi, bmr, tdee, inputs, snapshot_id)
  select t.user_id, app.read_timestamp(m, 'computed_at'), app.read_integer(m, 'version'), app.read_number(m, 'bmi'),
         app.read_integer(m, 'bmr'), app.read_integer(m, 'tdee'), coalesce(m -> 'inputs', '{}'), t.id
    from jsonb_array_elements(v_metrics) as m
    join jsonb_array_elements(coalesce(p_document -> 'target_snapshots', '[]')) as s on s ->> 'id' = m ->> 'snapshot_id'
    join app.target_snapshots as t
      on t.user_id = p_user_id and t.computed_at = app.read_timestamp(s, 'computed_at') and t.reason = s ->> 'reason'
   where coalesce((app.read_timestamp(m, 'computed_at'), app.read_integer(m, 'version'))
                    not in (select h.computed_at, h.version
                              from unnest(v_held_times, v_held_versions) as h (computed_at, version)),
                  true)
  on conflict do nothing;
  get diagnostics v_count = row_count;
  imported := imported + v_count;
  skipped_duplicates := skipped_duplicates + jsonb_array_length(v_metrics) - v_count;

  insert into app.metrics_acknowledgements (user_id, health_metric_id, version, acknowledged_at)
  select p_user_id, h.id, app.read_integer(a, 'version'), app.read_timestamp(a, 'acknowledged_at')
    from jsonb_array_elements(v_acknowledgements) as a
    join jsonb_array_elements(v_metrics) as m on m ->> 'id' = a ->> 'health_metric_id'
    join app.health_metrics as h
      on h.user_id = p_user_id and h.computed_at = app.read_timestamp(m, 'computed_at') and h.version = app.read_integer(m, 'version')
  on conflict do nothing;
  get diagnostics v_count = row_count;
  imported := imported + v_count;
  skipped_duplicates := skipped_duplicates + jsonb_array_length(v_acknowledgements) - v_count;
end
$$;

-- Own exercises are one per name (case-insensitive) in an account, so a document's own
-- exercise whose name the account already holds under another id is skipped, and is that
-- exercise: {document id: account id} for each such one, read after the document's own
-- exercises are inserted. PL/pgSQL: Citus cannot plan a SQL function's statement with
-- parameters on a distributed table (docs/scaling.md).
create or replace function app.import_liftbase_exercise_map(p_user_id uuid, p_document jsonb)
returns jsonb
language plpgsql
stable
as $$
begin
  return (
    select coalesce(jsonb_object_agg(lower(r ->> 'id'), u.id), '{}')
      from jsonb_array_elements(case when jsonb_typeof(p_document -> 'user_exercises') = 'array'
                                     then p_document -> 'user_exercises' else '[]' end) as r
      join app.user_exercises as u on u.user_id = p_user_id and lower(u.name) = lower(r ->> 'name')
     where u.id <> app.read_uuid(r, 'id')
  );
end
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
  v_held uuid[];
begin
  with inserted as (
    insert into app.plans (user_id, id, name, created_at, last_used_at)
    select p_user_id, app.read_uuid(p, 'id'), p ->> 'name', coalesce(app.read_timestamp(p, 'created_at'), now()),
           app.read_timestamp(p, 'last_used_at')
      from jsonb_array_elements(coalesce(p_document -> 'plans', '[]')) as p
    on conflict do nothing
    returning id)
  select coalesce(array_agg(id), '{}') into v_new from inserted;
  insert into app.plan_exercises (user_id, plan_id, position, exercise_id, user_exercise_id, exercise_name, sets, reps,
                                  reps_max, weight_kg, assistance_kg, duration_seconds, distance_m, rest_seconds,
                                  superset_group, group_rest_seconds)
  select w.user_id, w.id, app.read_integer(e, 'position'),
         (select x.id from app.exercises as x where x.id = app.read_uuid(e, 'exercise_id')), app.read_uuid(e, 'user_exercise_id'),
         e ->> 'exercise_name', app.read_integer(e, 'sets'), app.read_integer(e, 'reps'), app.read_integer(e, 'reps_max'),
         app.read_number(e, 'weight_kg'), app.read_number(e, 'assistance_kg'), app.read_integer(e, 'duration_seconds'),
         app.read_number(e, 'distance_m'), app.read_integer(e, 'rest_seconds'), app.read_integer(e, 'group'), app.read_integer(e, 'group_rest_seconds')
    from app.plans as w
    join jsonb_array_elements(coalesce(p_document -> 'plans', '[]')) as p on app.read_uuid(p, 'id') = w.id
   cross join jsonb_array_elements(coalesce(p -> 'exercises', '[]')) as e
   where w.user_id = p_user_id and w.id = any (v_new);
  imported := imported + cardinality(v_new);
  skipped_duplicates := skipped_duplicates + jsonb_array_length(coalesce(p_document -> 'plans', '[]')) - cardinality(v_new);

  with inserted as (
    insert into app.custom_meals (user_id, id, name, created_at)
    select p_user_id, app.read_uuid(m, 'id'), m ->> 'name', coalesce(app.read_timestamp(m, 'created_at'), now())
      from jsonb_array_elements(coalesce(p_document -> 'custom_meals', '[]')) as m
    on conflict do nothing
    returning id)
  select coalesce(array_agg(id), '{}') into v_new from inserted;
  insert into app.custom_meal_items (user_id, meal_id, position, name, food_id, user_food_id, portion_seq, servings,
                                     calories, protein_g, carbs_g, fat_g)
  select w.user_id, w.id, app.read_integer(i, 'position'), i ->> 'name',
         (select f.id from app.foods as f where f.id = app.read_uuid(i, 'food_id')), app.read_uuid(i, 'user_food_id'),
         app.read_integer(i, 'portion_seq'), app.read_number(i, 'servings'), app.read_number(i, 'calories'),
         app.read_number(i, 'protein_g'), app.read_number(i, 'carbs_g'), app.read_number(i, 'fat_g')
    from app.custom_meals as w
    join jsonb_array_elements(coalesce(p_document -> 'custom_meals', '[]')) as m on app.read_uuid(m, 'id') = w.id
   cross join jsonb_array_elements(coalesce(m -> 'items', '[]')) as i
   where w.user_id = p_user_id and w.id = any (v_new);
  imported := imported + cardinality(v_new);
  skipped_duplicates := skipped_duplicates + jsonb_array_length(coalesce(p_document -> 'custom_meals', '[]')) - cardinality(v_new);

  -- Every set of a session not held fits its exercise's tracking type
  -- (app.set_fit_problems), named by its path; checked on the document before the write, as
  -- the writer refuses a set that does not fit without saying which.
  select coalesce(array_agg(w.id), '{}') into v_held
    from app.training_sessions as w
   where w.user_id = p_user_id
     and w.id = any (array(select app.read_uuid(s, 'id')
                             from jsonb_array_elements(coalesce(p_document -> 'training_sessions', '[]')) as s));
  select coalesce(jsonb_agg(jsonb_build_object('line', null, 'message',
           format('training_sessions[%s].exercises[%s].sets[%s].%s: %s', x.n - 1, y.k - 1, z.m - 1, f.key, f.value))
           order by x.n, y.k, z.m, f.key), '[]')
    into v_errors
    from jsonb_array_elements(coalesce(p_document -> 'training_sessions', '[]')) with ordinality as x (s, n)
   cross join jsonb_array_elements(coalesce(x.s -> 'exercises', '[]')) with ordinality as y (e, k)
   cross join jsonb_array_elements(coalesce(y.e -> 'sets', '[]')) with ordinality as z (t, m)
   cross join lateral jsonb_each_text(app.set_fit_problems(
           app.exercise_tracking_type(p_user_id,
             (select w.id from app.exercises as w where w.id = app.read_uuid(y.e, 'exercise_id')),
             app.read_uuid(y.e, 'user_exercise_id')),
           app.set_measures(app.read_number(z.t, 'weight_kg'), app.read_number(z.t, 'assistance_kg'),
                            app.read_integer(z.t, 'reps'), app.read_integer(z.t, 'duration_seconds'),
                            app.read_number(z.t, 'distance_m')))) as f
   where not app.read_uuid(x.s, 'id') = any (v_held);
  if v_errors <> '[]' then
    raise exception using errcode = 'LBIMP', message = 'the document breaks a rule', detail = v_errors::text;
  end if;
  -- The sessions through the one session writer, as rows of its tables (members the tables
  -- do not have are left out; the totals are the writer's). A catalog exercise the server
  -- lacks becomes null, its name stays.
  v_new := app.write_sessions(p_user_id,
    array(select jsonb_populate_record(null::app.training_sessions, s || jsonb_build_object('user_id', p_user_id))
            from jsonb_array_elements(coalesce(p_document -> 'training_sessions', '[]')) as s),
    array(select jsonb_populate_record(null::app.session_exercises, jsonb_build_object(
                   'user_id', p_user_id, 'session_id', s -> 'id', 'position', e -> 'position',
                   'exercise_id', (select x.id from app.exercises as x where x.id = app.read_uuid(e, 'exercise_id')),
                   'user_exercise_id', e -> 'user_exercise_id', 'exercise_name', e -> 'exercise_name',
                   'notes', e -> 'notes', 'superset_group', e -> 'group', 'group_rest_seconds', e -> 'group_rest_seconds'))
            from jsonb_array_elements(coalesce(p_document -> 'training_sessions', '[]')) as s
           cross join jsonb_array_elements(coalesce(s -> 'exercises', '[]')) as e),
    array(select jsonb_populate_record(null::app.session_sets,
                   x || jsonb_build_object('user_id', p_user_id, 'session_id', s -> 'id', 'exercise_position', e -> 'position'))
            from jsonb_array_elements(coalesce(p_document -> 'training_sessions', '[]')) as s
           cross join jsonb_array_elements(coalesce(s -> 'exercises', '[]')) as e
           cross join jsonb_array_elements(coalesce(e -> 'sets', '[]')) as x));
  -- The rule of a completed session is app.session_is_complete's, checked on the rows as
  -- written (set-based); only sessions that break it are described, by app.session_problems.
  select coalesce(jsonb_agg(jsonb_build_object('line', null, 'message', app.import_liftbase_session_problem(p_user_id, s))
                            order by n), '[]')
    into v_errors
    from jsonb_array_elements(coalesce(p_document -> 'training_sessions', '[]')) with ordinality as x (s, n)
   where app.read_uuid(s, 'id') = any (v_new)
     and (select w.status from app.training_sessions as w
           where w.user_id = p_user_id and w.id = app.read_uuid(s, 'id')) = 'completed'
     and not app.session_is_complete(p_user_id, app.read_uuid(s, 'id'));
  if v_errors <> '[]' then
    raise exception using errcode = 'LBIMP', message = 'the document breaks a rule', detail = v_errors::text;
  end if;
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
  v_slots app.program_sessions[];
begin
  if jsonb_typeof(v_programs) <> 'array' then
    v_programs := '[]';
  end if;
  -- The program that may stay active: the document's newest active one, if the account has none.
  if not exists (select from app.programs as p where p.user_id = p_user_id and p.status = 'active') then
    select app.read_uuid(p, 'id') into v_active_id
      from jsonb_array_elements(v_programs) as p
     where p ->> 'status' = 'active'
     order by app.read_timestamp(p, 'created_at') desc nulls last
     limit 1;
  end if;
  with inserted as (
    insert into app.programs (user_id, id, goal, training_age, days_per_week, split, status, started_on, created_at,
                              ended_at)
    select p_user_id, app.read_uuid(p, 'id'), p ->> 'goal', p ->> 'training_age', app.read_integer(p, 'days_per_week'),
           array(select jsonb_array_elements_text(coalesce(p -> 'split', '[]'))),
           case when p ->> 'status' = 'active' and app.read_uuid(p, 'id') is distinct from v_active_id then 'ended'
                else coalesce(p ->> 'status', 'ended') end,
           app.read_date(p, 'started_on'), coalesce(app.read_timestamp(p, 'created_at'), now()),
           case when p ->> 'status' = 'active' and app.read_uuid(p, 'id') is distinct from v_active_id then now()
                else app.read_timestamp(p, 'ended_at') end
      from jsonb_array_elements(v_programs) as p
    on conflict do nothing
    returning id)
  select coalesce(array_agg(id), '{}') into v_new from inserted;

  insert into app.program_phases (user_id, program_id, position, block_position, block, phase, first_week,
                                  last_week, main_reps, main_rpe, accessory_reps_low, accessory_reps_high,
                                  accessory_rpe, set_factor, load_factor)
  select w.user_id, w.id, app.read_integer(f, 'position'), app.read_integer(f, 'block_position'), f ->> 'block',
         f ->> 'phase', app.read_integer(f, 'first_week'), app.read_integer(f, 'last_week'), app.read_integer(f, 'main_reps'),
         app.read_number(f, 'main_rpe'), app.read_integer(f, 'accessory_reps_low'), app.read_integer(f, 'accessory_reps_high'),
         app.read_number(f, 'accessory_rpe'), app.read_number(f, 'set_factor'), app.read_number(f, 'load_factor')
    from app.programs as w
    join jsonb_array_elements(v_programs) as p on app.read_uuid(p, 'id') = w.id
   cross join jsonb_array_elements(coalesce(p -> 'phases', '[]')) as f
   where w.user_id = p_user_id and w.id = any (v_new);

  -- The slots are read from the document into rows first (Citus folds some of the readers
  -- into comparisons the worker rejects when they run inside the insert sent there).
  select coalesce(array_agg(r::app.program_sessions), '{}')
    into v_slots
    from (select p_user_id, app.read_uuid(p, 'id'), app.read_uuid(s, 'id'), app.read_integer(s, 'slot'),
                 array(select jsonb_array_elements_text(coalesce(s -> 'templates', '[]'))), coalesce(s ->> 'status', 'planned'),
                 coalesce(app.read_number(s, 'volume_factor'), 1), coalesce(app.read_integer(s, 'shifted'), 0),
                 app.read_uuid(s, 'successor_id'), coalesce(s ->> 'mode', 'normal'), coalesce(s -> 'dropped_sets', '[]'),
                 app.read_uuid(s, 'training_session_id'), app.read_timestamp(s, 'done_at')
            from jsonb_array_elements(v_programs) as p
           cross join jsonb_array_elements(coalesce(p -> 'sessions', '[]')) as s
           where app.read_uuid(p, 'id') = any (v_new)) as r;
  insert into app.program_sessions as n (user_id, program_id, id, slot, templates, status, volume_factor, shifted,
                                         successor_id, mode, dropped_sets, training_session_id, done_at)
  select w.user_id, w.id, x.id, x.slot, x.templates, x.status, x.volume_factor, x.shifted, x.successor_id, x.mode,
         x.dropped_sets,
         (select t.id from app.training_sessions as t where t.user_id = w.user_id and t.id = x.training_session_id),
         x.done_at
    from app.programs as w
    join unnest(v_slots) as x on x.program_id = w.id
   where w.user_id = p_user_id and w.id = any (v_new);
  -- The slot key is deferred (a skip renumbers slots in one statement): check it now, so
  -- that a document repeating a slot is refused here as one error, not at commit.
  set constraints app.program_sessions_slot_key immediate;
  set constraints app.program_sessions_slot_key deferred;

  insert into app.program_exercise_state (user_id, program_id, exercise_id, load_kg, reps, misses, rpe_week,
                                          rpe_week_top, rpe_target, duration_seconds)
  select w.user_id, w.id, e.id, app.read_number(x, 'load_kg'),
         coalesce(app.read_integer_list(x, 'reps'), '{}'),
         coalesce(app.read_integer(x, 'misses'), 0), app.read_integer(x, 'rpe_week'), app.read_number(x, 'rpe_week_top'),
         app.read_number(x, 'rpe_target'), app.read_integer(x, 'duration_seconds')
    from app.programs as w
    join jsonb_array_elements(v_programs) as p on app.read_uuid(p, 'id') = w.id
   cross join jsonb_array_elements(coalesce(p -> 'exercise_state', '[]')) as x
    join app.exercises as e on e.id = app.read_uuid(x, 'exercise_id')
   where w.user_id = p_user_id and w.id = any (v_new);

  imported := imported + cardinality(v_new);
  skipped_duplicates := skipped_duplicates + jsonb_array_length(v_programs) - cardinality(v_new);
end
$$;

-- The measurement types and body measurements of a document (version 2). Types keep their
-- ids; one named like a type the account holds already is that one, and its entries land
-- there. Entries get ids of this server; one the account holds (same time, measure and
-- value) is skipped.
create or replace function app.import_liftbase_measurements(p_user_id uuid, p_document jsonb,
  inout imported integer, inout skipped_duplicates integer)
language plpgsql
as $$
declare
  v_types jsonb := coalesce(p_document -> 'measurement_types', '[]');
  v_entries jsonb := coalesce(p_document -> 'body_measurements', '[]');
  v_type_ids uuid[];
  v_type_names text[];
  v_type_units text[];
  v_type_minimums numeric[];
  v_type_maximums numeric[];
  v_type_times timestamptz[];
  v_type_map jsonb;
  v_held_ids text[];
  v_held_names text[];
  v_times timestamptz[];
  v_measures text[];
  v_entry_types uuid[];
  v_values numeric[];
  v_sources text[];
  v_created timestamptz[];
  v_held text[];
  v_count integer;
begin
  if jsonb_typeof(v_types) <> 'array' then
    v_types := '[]';
  end if;
  if jsonb_typeof(v_entries) <> 'array' then
    v_entries := '[]';
  end if;
  -- The types held, by id and name: a document's type that is one of them is not written
  -- (so the count is of rows written, on Citus too).
  select coalesce(array_agg(t.id::text), '{}'), coalesce(array_agg(lower(t.name)), '{}') into v_held_ids, v_held_names
    from app.measurement_types as t where t.user_id = p_user_id;
  -- The document's rows are read into arrays first, and each insert selects from the user's
  -- settings row: Citus then sends it whole to the user's worker, where a reader of the
  -- document in the insert's values fails ("integer = boolean"), and COPY (an insert from a
  -- plain list) meets row-level security (docs/scaling.md).
  select coalesce(array_agg(app.read_uuid(r, 'id') order by n), '{}'), coalesce(array_agg(btrim(r ->> 'name') order by n), '{}'),
         coalesce(array_agg(btrim(r ->> 'unit') order by n), '{}'),
         coalesce(array_agg(app.read_number(r, 'min_value') order by n), '{}'),
         coalesce(array_agg(app.read_number(r, 'max_value') order by n), '{}'),
         coalesce(array_agg(coalesce(app.read_timestamp(r, 'created_at'), now()) order by n), '{}')
    into v_type_ids, v_type_names, v_type_units, v_type_minimums, v_type_maximums, v_type_times
    from jsonb_array_elements(v_types) with ordinality as x (r, n)
   where lower(btrim(r ->> 'name')) <> all (v_held_names) and coalesce(r ->> 'id', '') <> all (v_held_ids);
  -- A type whose id or name (in any case) the account holds already is skipped.
  insert into app.measurement_types (user_id, id, name, unit, min_value, max_value, created_at)
  select u.user_id, t.id, t.name, t.unit, t.min_value, t.max_value, t.created_at
    from app.user_settings as u
   cross join unnest(v_type_ids, v_type_names, v_type_units, v_type_minimums, v_type_maximums, v_type_times)
         as t (id, name, unit, min_value, max_value, created_at)
   where u.user_id = p_user_id
  on conflict do nothing;
  get diagnostics v_count = row_count;
  imported := imported + v_count;
  skipped_duplicates := skipped_duplicates + jsonb_array_length(v_types) - v_count;
  -- The document's type ids, each to the account's type: of that id (one renamed since the
  -- export), else of that name.
  select coalesce(jsonb_object_agg(r ->> 'id', coalesce(by_id.id, by_name.id)), '{}') into v_type_map
    from jsonb_array_elements(v_types) as r
    left join app.measurement_types as by_id on by_id.user_id = p_user_id and by_id.id::text = r ->> 'id'
    left join app.measurement_types as by_name
      on by_name.user_id = p_user_id and lower(by_name.name) = lower(btrim(r ->> 'name'))
   where r ->> 'id' is not null and coalesce(by_id.id, by_name.id) is not null;

  -- Entries: a measure this server lacks (or a weigh-in's), an entry of no type of the
  -- document, and one the account holds (same time, measure and value) are left out. The
  -- entries held are read first, as for body metrics; each is keyed by its time as a number
  -- (its text would depend on the zone of the session, which differs on a Citus worker).
  select coalesce(array_agg(concat_ws('|', extract(epoch from b.recorded_at), coalesce(b.measure, b.type_id::text),
                                      trim_scale(b.value))), '{}')
    into v_held
    from app.body_measurements as b where b.user_id = p_user_id;
  select coalesce(array_agg(app.read_timestamp(r, 'recorded_at') order by n), '{}'),
         coalesce(array_agg(r ->> 'measure' order by n), '{}'),
         coalesce(array_agg(app.read_uuid(v_type_map, r ->> 'type_id') order by n), '{}'),
         coalesce(array_agg(app.read_number(r, 'value') order by n), '{}'),
         coalesce(array_agg(app.imported_source(r ->> 'source') order by n), '{}'),
         coalesce(array_agg(coalesce(app.read_timestamp(r, 'created_at'), now()) order by n), '{}')
    into v_times, v_measures, v_entry_types, v_values, v_sources, v_created
    from jsonb_array_elements(v_entries) with ordinality as x (r, n)
   where (exists (select from app.measures as m where m.id = r ->> 'measure' and m.weigh_in_member is null)
          or (r ->> 'measure' is null and v_type_map ? (r ->> 'type_id')))
     and concat_ws('|', extract(epoch from app.read_timestamp(r, 'recorded_at')),
                   coalesce(r ->> 'measure', v_type_map ->> (r ->> 'type_id')),
                   trim_scale(app.read_number(r, 'value'))) <> all (v_held);
  insert into app.body_measurements (user_id, recorded_at, measure, type_id, value, source, created_at)
  select u.user_id, e.recorded_at, e.measure, e.type_id, e.value, e.source, e.created_at
    from app.user_settings as u
   cross join unnest(v_times, v_measures, v_entry_types, v_values, v_sources, v_created)
         as e (recorded_at, measure, type_id, value, source, created_at)
   where u.user_id = p_user_id
  -- Identity keys never conflict: the clause makes Citus insert through an intermediate
  -- result, not COPY, which row-level security refuses (docs/scaling.md).
  on conflict do nothing;
  get diagnostics v_count = row_count;
  imported := imported + v_count;
  skipped_duplicates := skipped_duplicates + jsonb_array_length(v_entries) - v_count;
end
$$;

-- The water entries of a document (version 2), with ids of this server; one the account
-- holds already (same day, recorded_at and amount) is skipped. Read into arrays first and
-- inserted selecting from the settings row, as the measurements.
create or replace function app.import_liftbase_water(p_user_id uuid, p_document jsonb,
  inout imported integer, inout skipped_duplicates integer)
language plpgsql
as $$
declare
  v_entries jsonb := coalesce(p_document -> 'water_entries', '[]');
  v_dates date[];
  v_times timestamptz[];
  v_amounts numeric[];
  v_sources text[];
  v_created timestamptz[];
  v_count integer;
begin
  if jsonb_typeof(v_entries) <> 'array' then
    v_entries := '[]';
  end if;
  select coalesce(array_agg(coalesce(app.read_date(r, 'entry_date'),
                                     (app.read_timestamp(r, 'recorded_at') at time zone app.user_timezone(p_user_id))::date)
                            order by n), '{}'),
         coalesce(array_agg(app.read_timestamp(r, 'recorded_at') order by n), '{}'),
         coalesce(array_agg(app.read_number(r, 'amount_ml') order by n), '{}'),
         coalesce(array_agg(app.imported_source(r ->> 'source') order by n), '{}'),
         coalesce(array_agg(coalesce(app.read_timestamp(r, 'created_at'), now()) order by n), '{}')
    into v_dates, v_times, v_amounts, v_sources, v_created
    from jsonb_array_elements(v_entries) with ordinality as x (r, n)
    -- An entry the account holds (same day, time and amount): one index look-up each.
    left join app.water_entries as w
      on w.user_id = p_user_id and w.entry_date = app.read_date(r, 'entry_date')
     and w.recorded_at = app.read_timestamp(r, 'recorded_at') and w.amount_ml = app.read_number(r, 'amount_ml')
   where w.id is null;
  insert into app.water_entries (user_id, entry_date, recorded_at, amount_ml, source, created_at)
  select u.user_id, e.entry_date, e.recorded_at, e.amount_ml, e.source, e.created_at
    from app.user_settings as u
   cross join unnest(v_dates, v_times, v_amounts, v_sources, v_created)
         as e (entry_date, recorded_at, amount_ml, source, created_at)
   where u.user_id = p_user_id
  -- As for the measurements: an upsert clause keeps Citus from COPY.
  on conflict do nothing;
  get diagnostics v_count = row_count;
  imported := imported + v_count;
  skipped_duplicates := skipped_duplicates + jsonb_array_length(v_entries) - v_count;
end
$$;

-- The health samples of a document (version 2), by the platform's sample id: one the
-- account holds already is skipped; the days they fall on are computed again. Read into
-- arrays first and inserted selecting from the settings row, as the measurements.
create or replace function app.import_liftbase_health(p_user_id uuid, p_document jsonb,
  inout imported integer, inout skipped_duplicates integer)
language plpgsql
as $$
declare
  v_samples jsonb := coalesce(p_document -> 'health_samples', '[]');
  v_platforms text[];
  v_ids text[];
  v_types text[];
  v_values numeric[];
  v_starts timestamptz[];
  v_ends timestamptz[];
  v_apps text[];
  v_devices text[];
  v_days date[];
  v_created timestamptz[];
  v_count integer;
begin
  if jsonb_typeof(v_samples) <> 'array' then
    v_samples := '[]';
  end if;
  -- One writer of the user's samples at a time (app.health_samples_sync takes turns too).
  perform app.lock_health_samples(p_user_id);
  select coalesce(array_agg(r ->> 'platform' order by n), '{}'), coalesce(array_agg(r ->> 'sample_id' order by n), '{}'),
         coalesce(array_agg(r ->> 'type' order by n), '{}'), coalesce(array_agg(app.read_number(r, 'value') order by n), '{}'),
         coalesce(array_agg(app.read_timestamp(r, 'start_at') order by n), '{}'),
         coalesce(array_agg(app.read_timestamp(r, 'end_at') order by n), '{}'),
         coalesce(array_agg(r ->> 'source_app' order by n), '{}'), coalesce(array_agg(r ->> 'device' order by n), '{}'),
         coalesce(array_agg(app.read_date(r, 'day') order by n), '{}'),
         coalesce(array_agg(coalesce(app.read_timestamp(r, 'created_at'), now()) order by n), '{}')
    into v_platforms, v_ids, v_types, v_values, v_starts, v_ends, v_apps, v_devices, v_days, v_created
    from jsonb_array_elements(v_samples) with ordinality as x (r, n)
    -- The samples held are left out (so the count is of rows written, on Citus too, where
    -- an insert through an intermediate result counts the rows it tried): one index look-up
    -- each.
    left join app.health_samples as h
      on h.user_id = p_user_id and h.platform::text = r ->> 'platform' and h.sample_id = r ->> 'sample_id'
   where h.id is null;
  insert into app.health_samples (user_id, platform, sample_id, type, value, start_at, end_at, source_app, device, day,
                                  created_at)
  select u.user_id, h.platform, h.sample_id, h.type, h.value, h.start_at, h.end_at, h.source_app, h.device, h.day,
         h.created_at
    from app.user_settings as u
   cross join unnest(v_platforms, v_ids, v_types, v_values, v_starts, v_ends, v_apps, v_devices, v_days, v_created)
         as h (platform, sample_id, type, value, start_at, end_at, source_app, device, day, created_at)
   where u.user_id = p_user_id
  on conflict do nothing;
  get diagnostics v_count = row_count;
  imported := imported + v_count;
  skipped_duplicates := skipped_duplicates + jsonb_array_length(v_samples) - v_count;
  if v_count > 0 then
    perform app.refresh_health_days(p_user_id, v_types, v_days);
  end if;
end
$$;

-- The members of a document (docs/export-format.md) that an import reads, with
-- the kind each is read as (app_input.sql): sections at the top, then the lists inside
-- their items ("training_sessions.exercises.sets"). Settings are checked apart, as PATCH
-- /settings checks them; stored JSON (warnings, inputs, dropped_sets) is kept as it is.
create or replace function app.import_liftbase_members()
returns table (section text, member text, kind text)
language sql
immutable
as $$
  select m.section, m.member, m.kind
    from (values
      ('profile', 'sex', 'string'), ('profile', 'date_of_birth', 'date'), ('profile', 'age_years', 'integer'),
      ('profile', 'age_recorded_on', 'date'), ('profile', 'height_cm', 'number'), ('profile', 'activity_level', 'string'),
      ('profile', 'created_at', 'timestamp'),
      ('goals', 'goal_type', 'string'), ('goals', 'goal_rate_per_week', 'number'), ('goals', 'created_at', 'timestamp'),
      ('target_override', 'calories', 'integer'), ('target_override', 'protein_g', 'integer'),
      ('target_override', 'carbs_g', 'integer'), ('target_override', 'fat_g', 'integer'),
      ('target_override', 'water_ml', 'integer'),
      ('body_metrics', 'id', 'integer'), ('body_metrics', 'recorded_at', 'timestamp'), ('body_metrics', 'weight_kg', 'number'),
      ('body_metrics', 'body_fat_pct', 'number'), ('body_metrics', 'height_cm', 'number'),
      ('body_metrics', 'created_at', 'timestamp'), ('body_metrics', 'source', 'string'),
      ('measurement_types', 'id', 'uuid'), ('measurement_types', 'name', 'string'), ('measurement_types', 'unit', 'string'),
      ('measurement_types', 'min_value', 'number'), ('measurement_types', 'max_value', 'number'),
      ('measurement_types', 'created_at', 'timestamp'),
      ('body_measurements', 'recorded_at', 'timestamp'), ('body_measurements', 'measure', 'string'),
      ('body_measurements', 'type_id', 'uuid'), ('body_measurements', 'value', 'number'),
      ('body_measurements', 'source', 'string'), ('body_measurements', 'created_at', 'timestamp'),
      ('water_entries', 'entry_date', 'date'), ('water_entries', 'recorded_at', 'timestamp'),
      ('water_entries', 'amount_ml', 'number'), ('water_entries', 'source', 'string'),
      ('water_entries', 'created_at', 'timestamp'),
      ('health_samples', 'platform', 'string'), ('health_samples', 'sample_id', 'string'),
      ('health_samples', 'type', 'string'), ('health_samples', 'value', 'number'),
      ('health_samples', 'start_at', 'timestamp'), ('health_samples', 'end_at', 'timestamp'),
      ('health_samples', 'source_app', 'string'), ('health_samples', 'device', 'string'),
      ('health_samples', 'day', 'date'), ('health_samples', 'created_at', 'timestamp'),
      ('target_snapshots', 'id', 'integer'), ('target_snapshots', 'computed_at', 'timestamp'),
      ('target_snapshots', 'reason', 'string'), ('target_snapshots', 'formula_version', 'integer'),
      ('target_snapshots', 'bmr_formula', 'string'), ('target_snapshots', 'calories', 'integer'),
      ('target_snapshots', 'protein_g', 'integer'), ('target_snapshots', 'carbs_g', 'integer'),
      ('target_snapshots', 'fat_g', 'integer'),
      ('health_metrics', 'id', 'integer'), ('health_metrics', 'snapshot_id', 'integer'),
      ('health_metrics', 'computed_at', 'timestamp'), ('health_metrics', 'version', 'integer'),
      ('health_metrics', 'bmi', 'number'), ('health_metrics', 'bmr', 'integer'), ('health_metrics', 'tdee', 'integer'),
      ('metrics_acknowledgements', 'health_metric_id', 'integer'), ('metrics_acknowledgements', 'version', 'integer'),
      ('metrics_acknowledgements', 'acknowledged_at', 'timestamp'),
      ('equipment_selection', 'equipment_id', 'string'), ('equipment_selection', 'selected_at', 'timestamp'),
      ('exclusions', 'exercise_ids', 'uuid[]'), ('exclusions', 'muscles', 'string[]'),
      ('setup', 'completed_at', 'timestamp'),
      ('user_exercises', 'id', 'uuid'), ('user_exercises', 'name', 'string'), ('user_exercises', 'category', 'string'),
      ('user_exercises', 'mechanic', 'string'), ('user_exercises', 'equipment', 'string'),
      ('user_exercises', 'primary_muscles', 'string[]'), ('user_exercises', 'secondary_muscles', 'string[]'),
      ('user_exercises', 'created_at', 'timestamp'), ('user_exercises', 'tracking_type', 'string'),
      ('plans', 'id', 'uuid'), ('plans', 'name', 'string'), ('plans', 'created_at', 'timestamp'),
      ('plans', 'last_used_at', 'timestamp'),
      ('plans.exercises', 'position', 'integer'), ('plans.exercises', 'exercise_id', 'uuid'),
      ('plans.exercises', 'user_exercise_id', 'uuid'), ('plans.exercises', 'exercise_name', 'string'),
      ('plans.exercises', 'sets', 'integer'), ('plans.exercises', 'reps', 'integer'),
      ('plans.exercises', 'reps_max', 'integer'), ('plans.exercises', 'assistance_kg', 'number'),
      ('plans.exercises', 'duration_seconds', 'integer'), ('plans.exercises', 'distance_m', 'number'),
      ('plans.exercises', 'weight_kg', 'number'), ('plans.exercises', 'rest_seconds', 'integer'),
      ('plans.exercises', 'group', 'integer'), ('plans.exercises', 'group_rest_seconds', 'integer'),
      ('user_foods', 'id', 'uuid'), ('user_foods', 'name', 'string'), ('user_foods', 'brand', 'string'),
      ('user_foods', 'barcode', 'string'), ('user_foods', 'energy_kcal', 'number'), ('user_foods', 'protein_g', 'number'),
      ('user_foods', 'fat_g', 'number'), ('user_foods', 'carbs_g', 'number'), ('user_foods', 'fiber_g', 'number'),
      ('user_foods', 'sugars_g', 'number'), ('user_foods', 'sodium_mg', 'number'),
      ('user_foods', 'saturated_fat_g', 'number'), ('user_foods', 'serving_label', 'string'),
      ('user_foods', 'serving_g', 'number'), ('user_foods', 'created_at', 'timestamp'),
      ('favorites', 'id', 'uuid'), ('favorites', 'name', 'string'), ('favorites', 'calories', 'number'),
      ('favorites', 'protein_g', 'number'), ('favorites', 'carbs_g', 'number'), ('favorites', 'fat_g', 'number'),
      ('favorites', 'food_id', 'uuid'), ('favorites', 'user_food_id', 'uuid'), ('favorites', 'servings', 'number'),
      ('favorites', 'created_at', 'timestamp'),
      ('custom_meals', 'id', 'uuid'), ('custom_meals', 'name', 'string'), ('custom_meals', 'created_at', 'timestamp'),
      ('custom_meals.items', 'position', 'integer'), ('custom_meals.items', 'name', 'string'),
      ('custom_meals.items', 'food_id', 'uuid'), ('custom_meals.items', 'user_food_id', 'uuid'),
      ('custom_meals.items', 'portion_seq', 'integer'), ('custom_meals.items', 'servings', 'number'),
      ('custom_meals.items', 'calories', 'number'), ('custom_meals.items', 'protein_g', 'number'),
      ('custom_meals.items', 'carbs_g', 'number'), ('custom_meals.items', 'fat_g', 'number'),
      ('programs', 'id', 'uuid'), ('programs', 'goal', 'string'), ('programs', 'training_age', 'string'),
      ('programs', 'days_per_week', 'integer'), ('programs', 'split', 'string[]'), ('programs', 'status', 'string'),
      ('programs', 'started_on', 'date'), ('programs', 'created_at', 'timestamp'), ('programs', 'ended_at', 'timestamp'),
      ('programs.phases', 'position', 'integer'), ('programs.phases', 'block_position', 'integer'),
      ('programs.phases', 'block', 'string'), ('programs.phases', 'phase', 'string'),
      ('programs.phases', 'first_week', 'integer'), ('programs.phases', 'last_week', 'integer'),
      ('programs.phases', 'main_reps', 'integer'), ('programs.phases', 'main_rpe', 'number'),
      ('programs.phases', 'accessory_reps_low', 'integer'), ('programs.phases', 'accessory_reps_high', 'integer'),
      ('programs.phases', 'accessory_rpe', 'number'), ('programs.phases', 'set_factor', 'number'),
      ('programs.phases', 'load_factor', 'number'),
      ('programs.sessions', 'id', 'uuid'), ('programs.sessions', 'slot', 'integer'),
      ('programs.sessions', 'templates', 'string[]'), ('programs.sessions', 'status', 'string'),
      ('programs.sessions', 'volume_factor', 'number'), ('programs.sessions', 'shifted', 'integer'),
      ('programs.sessions', 'successor_id', 'uuid'), ('programs.sessions', 'mode', 'string'),
      ('programs.sessions', 'training_session_id', 'uuid'), ('programs.sessions', 'done_at', 'timestamp'),
      ('programs.exercise_state', 'exercise_id', 'uuid'), ('programs.exercise_state', 'load_kg', 'number'),
      ('programs.exercise_state', 'reps', 'integer[]'), ('programs.exercise_state', 'misses', 'integer'),
      ('programs.exercise_state', 'rpe_week', 'integer'), ('programs.exercise_state', 'rpe_week_top', 'number'),
      ('programs.exercise_state', 'rpe_target', 'number'), ('programs.exercise_state', 'duration_seconds', 'integer'),
      ('training_sessions', 'id', 'uuid'), ('training_sessions', 'client_id', 'uuid'),
      ('training_sessions', 'import_key', 'string'), ('training_sessions', 'session_date', 'date'),
      ('training_sessions', 'name', 'string'), ('training_sessions', 'notes', 'string'),
      ('training_sessions', 'status', 'string'), ('training_sessions', 'started_at', 'timestamp'),
      ('training_sessions', 'finished_at', 'timestamp'), ('training_sessions', 'created_at', 'timestamp'),
      ('training_sessions.exercises', 'position', 'integer'), ('training_sessions.exercises', 'exercise_id', 'uuid'),
      ('training_sessions.exercises', 'user_exercise_id', 'uuid'),
      ('training_sessions.exercises', 'exercise_name', 'string'), ('training_sessions.exercises', 'notes', 'string'),
      ('training_sessions.exercises', 'group', 'integer'), ('training_sessions.exercises', 'group_rest_seconds', 'integer'),
      ('training_sessions.exercises.sets', 'position', 'integer'), ('training_sessions.exercises.sets', 'reps', 'integer'),
      ('training_sessions.exercises.sets', 'weight_kg', 'number'), ('training_sessions.exercises.sets', 'rpe', 'number'),
      ('training_sessions.exercises.sets', 'rir', 'integer'), ('training_sessions.exercises.sets', 'set_type', 'string'),
      ('training_sessions.exercises.sets', 'tempo', 'string'),
      ('training_sessions.exercises.sets', 'rest_seconds', 'integer'),
      ('training_sessions.exercises.sets', 'duration_seconds', 'integer'),
      ('training_sessions.exercises.sets', 'distance_m', 'number'),
      ('training_sessions.exercises.sets', 'assistance_kg', 'number'),
      ('food_entries', 'id', 'uuid'), ('food_entries', 'client_id', 'uuid'), ('food_entries', 'import_key', 'string'),
      ('food_entries', 'entry_date', 'date'), ('food_entries', 'meal_type', 'string'), ('food_entries', 'name', 'string'),
      ('food_entries', 'food_id', 'uuid'), ('food_entries', 'user_food_id', 'uuid'),
      ('food_entries', 'portion_seq', 'integer'), ('food_entries', 'servings', 'number'),
      ('food_entries', 'favorite_id', 'uuid'), ('food_entries', 'custom_meal_id', 'uuid'),
      ('food_entries', 'calories', 'number'), ('food_entries', 'protein_g', 'number'),
      ('food_entries', 'carbs_g', 'number'), ('food_entries', 'fat_g', 'number'), ('food_entries', 'source', 'string'),
      ('food_entries', 'barcode', 'string'), ('food_entries', 'created_at', 'timestamp')
    ) as m (section, member, kind)
$$;

-- Every member of the document that is not of its kind, and every section or list that is
-- not one, as import errors named by their path ("training_sessions[3].session_date: must
-- be a date (YYYY-MM-DD) from 1900-01-01 to 2999-12-31"), ordered by path. The one-row
-- sections (profile, goals, target_override, exclusions, setup) are objects or null, every
-- other section and inner list a list (or null), every item an object. Checked before
-- anything is written, so a date PostgreSQL would read (infinity, today, epoch...) never
-- reaches a table.
-- One query per depth (sections, their items' lists, those items' lists), each streaming
-- the items once: a row per item with the problems of all its members (a five-year
-- document has 60,000 sets), its members' checks written out from the description above.
create or replace function app.import_liftbase_value_problems(p_document jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  -- Per section: an array of 'member: problem' for an item (nulls where all is well).
  v_checks text := (
    select 'case section '
           || string_agg(format('when %L then case when jsonb_typeof(item) <> ''object'' then array['': must be an object''] '
                                || 'else array[%s] end', c.section, c.checks), ' ' order by c.section)
           || ' end'
      from (select m.section,
                   string_agg(format('%L || %s', m.member || ': ',
                                     case m.kind when 'string' then format('app.input_string_problem(item -> %L)', m.member)
                                                 when 'number' then format('app.input_number_problem(item -> %L)', m.member)
                                                 when 'integer' then format('app.input_integer_problem(item -> %L)', m.member)
                                                 when 'date' then format('app.input_date_problem(item -> %L)', m.member)
                                                 when 'timestamp' then format('app.input_timestamp_problem(item -> %L)', m.member)
                                                 when 'uuid' then format('app.input_uuid_problem(item -> %L)', m.member)
                                                 else format('app.input_problem(item -> %L, %L)', m.member, m.kind) end),
                              ', ' order by m.member)
                   -- An inner list of the item that is not a list.
                   || coalesce(', ' || (select string_agg(format('%L || case when jsonb_typeof(item -> %L) not in (''array'', ''null'') '
                                                         || 'then ''must be a list'' end',
                                                         substring(l.section from '[^.]+$') || ': ',
                                                         substring(l.section from '[^.]+$')), ', ')
                                  from (select distinct x.section from app.import_liftbase_members() as x) as l
                                 where l.section like m.section || '.%' and l.section not like m.section || '.%.%'), '')
                     as checks
              from app.import_liftbase_members() as m
             group by m.section) as c);
  -- The items of each depth, with their section and path: each from the document again.
  v_depths text[] := array[
    $d$select s.section, s.name || case when s.single then '' else format('[%s]', e.n - 1) end as path, e.item
         from lists as s
        cross join lateral jsonb_array_elements(case when jsonb_typeof($1 -> s.name) = 'array' then $1 -> s.name
                                                     when s.single and jsonb_typeof($1 -> s.name) = 'object'
                                                       then jsonb_build_array($1 -> s.name)
                                                     else '[]' end) with ordinality as e (item, n)
        where s.parent = ''$d$,
    $d$select s2.section, format('%s[%s].%s[%s]', s1.name, e1.n - 1, s2.name, e2.n - 1) as path, e2.item
         from lists as s1
        cross join lateral jsonb_array_elements(case when jsonb_typeof($1 -> s1.name) = 'array' then $1 -> s1.name
                                                     else '[]' end) with ordinality as e1 (item, n)
         join lists as s2 on s2.parent = s1.section
        cross join lateral jsonb_array_elements(case when jsonb_typeof(e1.item -> s2.name) = 'array' then e1.item -> s2.name
                                                     else '[]' end) with ordinality as e2 (item, n)
        where s1.parent = ''$d$,
    $d$select s3.section, format('%s[%s].%s[%s].%s[%s]', s1.name, e1.n - 1, s2.name, e2.n - 1, s3.name, e3.n - 1) as path,
              e3.item
         from lists as s1
        cross join lateral jsonb_array_elements(case when jsonb_typeof($1 -> s1.name) = 'array' then $1 -> s1.name
                                                     else '[]' end) with ordinality as e1 (item, n)
         join lists as s2 on s2.parent = s1.section
        cross join lateral jsonb_array_elements(case when jsonb_typeof(e1.item -> s2.name) = 'array' then e1.item -> s2.name
                                                     else '[]' end) with ordinality as e2 (item, n)
         join lists as s3 on s3.parent = s2.section
        cross join lateral jsonb_array_elements(case when jsonb_typeof(e2.item -> s3.name) = 'array' then e2.item -> s3.name
                                                     else '[]' end) with ordinality as e3 (item, n)
        where s1.parent = ''$d$];
  v_problems jsonb := '[]';
  v_found jsonb;
begin
  -- The sections themselves.
  select coalesce(jsonb_agg(jsonb_build_object('line', null, 'message', l.name || ': '
                              || case when l.single then 'must be an object' else 'must be a list' end)), '[]')
    into v_problems
    from (select distinct m.section as name, m.section in ('profile', 'goals', 'target_override', 'exclusions', 'setup') as single
            from app.import_liftbase_members() as m where m.section not like '%.%') as l
   where jsonb_typeof(p_document -> l.name) not in ('null', case when l.single then 'object' else 'array' end);
  for i in 1 .. 3 loop
    execute format($q$
      with lists as (
        select distinct m.section, regexp_replace(m.section, '\.?[^.]+$', '') as parent,
               substring(m.section from '[^.]+$') as name,
               m.section in ('profile', 'goals', 'target_override', 'exclusions', 'setup') as single
          from app.import_liftbase_members() as m
      )
      select coalesce(jsonb_agg(jsonb_build_object('line', null, 'message',
                                  i.path || case when p.problem like ': %%' then p.problem else '.' || p.problem end)), '[]')
        from (%s) as i
       cross join lateral unnest(%s) as p (problem)
       where p.problem is not null
    $q$, v_depths[i], v_checks) into v_found using p_document;
    v_problems := v_problems || v_found;
  end loop;
  return coalesce((select jsonb_agg(e order by e ->> 'message') from jsonb_array_elements(v_problems) as e), '[]');
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
-- The statements below are planned once per import for row counts the planner cannot
-- know (jsonb_array_elements): past the JIT threshold, compiling their expressions (the
-- readers inlined into them) took longer than running them; a five-year document imported
-- in 8 s instead of 6.
set jit = off
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
  v_message text;
  v_detail text;
begin
  imported := 0;
  skipped_duplicates := 0;
  errors := '[]';
  if p_document ->> 'format' is distinct from 'liftbase-export' or coalesce(p_document ->> 'version', '') not in ('1', '2') then
    errors := jsonb_build_array(jsonb_build_object('line', null,
      'message', 'the document must be a liftbase-export of version 1 or 2'));
    return;
  end if;
  -- Settings are read apart from the other sections: a value of another kind is named,
  -- never read as no settings.
  if jsonb_typeof(p_document -> 'settings') not in ('object', 'null') then
    errors := jsonb_build_array(jsonb_build_object('line', null, 'message', 'settings: must be an object'));
    errors := errors || app.import_liftbase_value_problems(p_document);
    return;
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('line', null, 'message', 'settings.' || p.key || ': ' || p.value)
                            order by p.key), '[]')
    into errors from jsonb_each_text(jsonb_strip_nulls(app.settings_problems(v_settings))) as p;
  errors := errors || app.import_liftbase_value_problems(p_document);
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
      from app.import_liftbase_measurements(p_user_id, v_document, imported, skipped_duplicates) as s;
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
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_water(p_user_id, v_document, imported, skipped_duplicates) as s;
    select s.imported, s.skipped_duplicates into imported, skipped_duplicates
      from app.import_liftbase_health(p_user_id, v_document, imported, skipped_duplicates) as s;
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
                              v_column = column_name, v_constraint = constraint_name, v_datatype = pg_datatype_name,
                                v_message = message_text;
      imported := 0;
      skipped_duplicates := 0;
      errors := jsonb_build_array(jsonb_build_object('line', null, 'message',
        app.import_error_message(v_state, v_schema, v_table, v_column, v_constraint, v_datatype, v_message)));
  end;
end
$$;

grant execute on function
  app.import_liftbase_members(),
  app.import_liftbase_value_problems(jsonb),
  app.import_liftbase_section(uuid, text, jsonb, integer, integer),
  app.import_liftbase_metrics(uuid, jsonb, integer, integer),
  app.import_liftbase_measurements(uuid, jsonb, integer, integer),
  app.import_liftbase_water(uuid, jsonb, integer, integer),
  app.import_liftbase_health(uuid, jsonb, integer, integer),
  app.import_liftbase_exercise_map(uuid, jsonb),
  app.import_liftbase_remap_parents(jsonb, jsonb),
  app.import_liftbase_remap_exercises(jsonb, jsonb),
  app.import_liftbase_session_problem(uuid, jsonb),
  app.import_liftbase_nested(uuid, jsonb, integer, integer),
  app.import_liftbase_programs(uuid, jsonb, integer, integer),
  app.import_liftbase(uuid, jsonb, boolean)
to liftbase_api;
