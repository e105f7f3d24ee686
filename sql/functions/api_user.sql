-- /user/*: goals, profile, body stats, targets and exclusions.

create or replace function api.goals_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  if app.entity_not_modified(v_user_id, 'goal', v_user_id::text, p_args) then
    return null;
  end if;
  return app.goal_json(v_user_id);
end
$$;

-- PUT /user/goals: sets the goal and recomputes targets and metrics in the same transaction.
create or replace function api.goals_put(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_recorded jsonb;
begin
  perform app.check_if_match(v_user_id, 'goal', v_user_id::text, p_args);
  perform app.raise_if_invalid(app.goal_problems(v_body));
  if not exists (select from app.user_profiles as p where p.user_id = v_user_id) then
    perform app.raise_error(409, 'onboarding_required', 'Complete onboarding before setting goals.');
  end if;
  perform app.save_goal(v_user_id, app.read_text(v_body, 'goal_type'), app.read_number(v_body, 'goal_rate_per_week'), true);
  v_recorded := app.record_targets(v_user_id, 'goal');
  return jsonb_build_object('goals', app.goal_json(v_user_id), 'snapshot', v_recorded -> 'snapshot',
                            'metrics', v_recorded -> 'metrics');
end
$$;

create or replace function api.profile_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  if app.entity_not_modified(v_user_id, 'profile', v_user_id::text, p_args) then
    return null;
  end if;
  return app.profile_json(v_user_id);
end
$$;

-- PUT /user/profile: replaces the profile (same rules as onboarding) and, once the user
-- has a goal, recomputes targets and metrics.
create or replace function api.profile_put(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_recorded jsonb;
begin
  perform app.check_if_match(v_user_id, 'profile', v_user_id::text, p_args);
  perform app.raise_if_invalid(app.profile_problems(v_body));
  perform app.save_profile(v_user_id, v_body);
  v_recorded := app.record_targets(v_user_id, 'profile');
  return jsonb_build_object('profile', app.profile_json(v_user_id), 'snapshot', v_recorded -> 'snapshot',
                            'metrics', v_recorded -> 'metrics');
end
$$;

-- POST /user/metrics: appends a body-stats entry and recomputes in the same transaction.
create or replace function api.body_metrics_add(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_entry app.body_metrics;
  v_recorded jsonb;
  v_replayed text;
begin
  v_replayed := app.replayed_key('app.body_metrics', v_user_id, v_body);
  if v_replayed is not null then
    -- The weigh-in counted once: its entry, and the targets and metrics as they stand.
    return app.targets_as_they_stand(v_user_id) || jsonb_build_object(
      'entry', app.body_metric_json(app.find_body_metric(v_user_id, jsonb_build_object('id', v_replayed))));
  end if;
  -- recorded_at: when the weigh-in was taken (an upload may come days later); its day is
  -- that moment's date in the user's zone.
  perform app.raise_if_invalid(app.body_metric_problems(v_body, false)
    || jsonb_build_object('recorded_at', coalesce(app.field_problem(v_body, 'recorded_at', 'app.timestamp_value', false),
                                                  app.future_time_problem(v_body, 'recorded_at'))));
  v_entry := app.add_body_metric(v_user_id, v_body);
  v_recorded := app.record_targets(v_user_id, 'metrics');
  return jsonb_build_object('entry', app.body_metric_json(v_entry), 'snapshot', v_recorded -> 'snapshot',
                            'metrics', v_recorded -> 'metrics');
end
$$;

-- PATCH /user/metrics/{id}: corrects a weigh-in. The daily and trend weights follow
-- (triggers), and the targets and metrics are recomputed in the same transaction when the
-- correction changes them.
create or replace function api.body_metric_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_entry app.body_metrics := app.find_body_metric(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
begin
  perform app.check_if_match(v_user_id, 'body_metric', v_entry.id::text, p_args);
  perform app.raise_if_invalid(app.body_metric_change_problems(v_body));
  v_entry := app.update_body_metric(v_user_id, v_entry, v_body);
  perform app.record_targets(v_user_id, 'metrics', true);
  return app.targets_as_they_stand(v_user_id) || jsonb_build_object('entry', app.body_metric_json(v_entry));
end
$$;

-- DELETE /user/metrics/{id}: removes a weigh-in; what reads weight follows as on a
-- correction. The last one stays (409 last_weigh_in): targets are computed from it.
create or replace function api.body_metric_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_entry app.body_metrics := app.find_body_metric(v_user_id, p_args);
  v_was_latest boolean;
begin
  perform app.check_if_match(v_user_id, 'body_metric', v_entry.id::text, p_args);
  perform app.lock_weigh_ins(v_user_id);
  v_was_latest := v_entry.id = app.latest_height_weigh_in(v_user_id);
  if not exists (select from app.body_metrics as b where b.user_id = v_user_id and b.id <> v_entry.id) then
    perform app.raise_error(409, 'last_weigh_in',
                            'This is your only weigh-in, which targets are computed from: record another first.');
  end if;
  delete from app.body_metrics where user_id = v_user_id and id = v_entry.id;
  if v_was_latest then
    perform app.follow_latest_height(v_user_id);
  end if;
  perform app.record_targets(v_user_id, 'metrics', true);
  return null;
end
$$;

create or replace function api.body_metrics_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'number');
  v_limit integer := v_page.page_size;
  v_cursor bigint := v_page.cursor_number;
begin
  if v_cursor is not null
     and not exists (select from app.body_metrics as c where c.user_id = v_user_id and c.id = v_cursor) then
    perform app.raise_unknown_cursor();
  end if;
  return app.page(coalesce((
    select jsonb_agg(app.body_metric_json(row(b.*)::app.body_metrics) order by b.recorded_at desc, b.id desc)
      from (select * from app.body_metrics as e
             where e.user_id = v_user_id
               and (v_cursor is null or (e.recorded_at, e.id) < (
                     select c.recorded_at, c.id from app.body_metrics as c
                      where c.user_id = v_user_id and c.id = v_cursor))
             order by e.recorded_at desc, e.id desc
             limit v_limit + 1) as b), '[]'), v_limit);
end
$$;

create or replace function api.targets_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_targets jsonb := app.effective_targets(v_user_id);
begin
  if v_targets is null then
    perform app.raise_error(404, 'targets_not_found', 'No targets yet: complete onboarding first.');
  end if;
  if app.entity_not_modified(v_user_id, 'targets', v_user_id::text, p_args) then
    return null;
  end if;
  return v_targets;
end
$$;

-- PUT /user/targets: sets the given overrides; a field sent as null clears its override.
create or replace function api.targets_put(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
begin
  perform app.check_if_match(v_user_id, 'targets', v_user_id::text, p_args);
  perform app.raise_if_invalid(jsonb_build_object(
    'calories', app.field_problem(v_body, 'calories', 'app.target_calories', false),
    'protein_g', app.field_problem(v_body, 'protein_g', 'app.macro_grams', false),
    'carbs_g', app.field_problem(v_body, 'carbs_g', 'app.macro_grams', false),
    'fat_g', app.field_problem(v_body, 'fat_g', 'app.macro_grams', false),
    'water_ml', app.field_problem(v_body, 'water_ml', 'app.water_target_ml', false)));
  -- updated_at from excluded (its default, now()): Citus takes no stable call in DO UPDATE SET.
  insert into app.target_overrides as o (user_id, calories, protein_g, carbs_g, fat_g, water_ml)
  values (v_user_id, app.read_integer(v_body, 'calories'), app.read_integer(v_body, 'protein_g'),
          app.read_integer(v_body, 'carbs_g'), app.read_integer(v_body, 'fat_g'), app.read_integer(v_body, 'water_ml'))
  on conflict (user_id) do update
    set calories = case when v_body ? 'calories' then excluded.calories else o.calories end,
        protein_g = case when v_body ? 'protein_g' then excluded.protein_g else o.protein_g end,
        carbs_g = case when v_body ? 'carbs_g' then excluded.carbs_g else o.carbs_g end,
        fat_g = case when v_body ? 'fat_g' then excluded.fat_g else o.fat_g end,
        water_ml = case when v_body ? 'water_ml' then excluded.water_ml else o.water_ml end,
        updated_at = excluded.updated_at;
  return app.effective_targets(v_user_id);
end
$$;

-- PUT /user/exclusions {exercise_ids, muscles} (injuries): both lists replaced (a list left
-- out is empty).
create or replace function api.exclusions_put(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_ids_problem text := app.input_problem(v_body -> 'exercise_ids', 'uuid[]');
  v_row app.user_exclusions;
begin
  perform app.raise_if_invalid(jsonb_build_object(
    'exercise_ids', coalesce(v_ids_problem, case
      when exists (select from unnest(app.read_uuid_list(v_body, 'exercise_ids')) as i
                    where (app.resolve_exercise(v_user_id, jsonb_build_object('exercise_id', i))).exercise_name is null)
        then 'must list known exercises' end),
    'muscles', app.muscles_problem(v_body -> 'muscles', false)));
  -- updated_at from excluded (its default, now()): Citus takes no stable call in DO UPDATE SET.
  insert into app.user_exclusions as x (user_id, exercise_ids, muscles)
  values (v_user_id, coalesce(app.read_uuid_list(v_body, 'exercise_ids'), '{}'),
          coalesce(app.read_text_list(v_body, 'muscles'), '{}'))
  on conflict (user_id) do update
    set exercise_ids = excluded.exercise_ids, muscles = excluded.muscles, updated_at = excluded.updated_at
  returning * into v_row;
  return jsonb_build_object('exercise_ids', to_jsonb(v_row.exercise_ids), 'muscles', to_jsonb(v_row.muscles::text[]));
end
$$;

-- GET /user/measures: the standard measures and the account's own measurement types.
create or replace function api.measures_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return app.measures_json(v_user_id);
end
$$;

-- POST /user/measurement-types {name, unit, min_value?, max_value?}: a measure of one's own.
create or replace function api.measurement_type_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_type app.measurement_types;
  v_replayed text;
begin
  v_replayed := app.replayed_key('app.measurement_types', v_user_id, v_body);
  if v_replayed is not null then
    return app.measurement_type_json(app.find_measurement_type(v_user_id, jsonb_build_object('id', v_replayed)));
  end if;
  perform app.raise_if_invalid(app.measurement_type_problems(v_user_id, null, v_body, true));
  insert into app.measurement_types (user_id, client_id, name, unit, min_value, max_value)
  values (v_user_id, app.read_uuid(v_body, 'client_id'), btrim(app.read_text(v_body, 'name')),
          btrim(app.read_text(v_body, 'unit')), app.read_number(v_body, 'min_value'),
          app.read_number(v_body, 'max_value'))
  returning * into v_type;
  return app.measurement_type_json(v_type);
end
$$;

-- PATCH /user/measurement-types/{id}: name, unit, range (null clears a bound); a range must
-- hold the type's entries.
create or replace function api.measurement_type_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_type app.measurement_types := app.find_measurement_type(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
  -- Read before the update: Citus takes no call of a stable function inside a write's case.
  v_name text := btrim(app.read_text(v_body, 'name'));
  v_unit text := btrim(app.read_text(v_body, 'unit'));
  v_min numeric := app.read_number(v_body, 'min_value');
  v_max numeric := app.read_number(v_body, 'max_value');
begin
  perform app.check_if_match(v_user_id, 'measurement_type', v_type.id::text, p_args);
  perform app.raise_if_invalid(app.measurement_type_problems(v_user_id, v_type.id, v_body, false));
  update app.measurement_types
     set name = coalesce(v_name, name),
         unit = coalesce(v_unit, unit),
         min_value = case when v_body ? 'min_value' then v_min else min_value end,
         max_value = case when v_body ? 'max_value' then v_max else max_value end,
         updated_at = now()
   where user_id = v_user_id and id = v_type.id
  returning * into v_type;
  return app.measurement_type_json(v_type);
end
$$;

-- DELETE /user/measurement-types/{id}: the type and every entry of it.
create or replace function api.measurement_type_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_type app.measurement_types := app.find_measurement_type(v_user_id, p_args);
begin
  perform app.check_if_match(v_user_id, 'measurement_type', v_type.id::text, p_args);
  delete from app.measurement_types where user_id = v_user_id and id = v_type.id;
  return null;
end
$$;

-- POST /user/measurements {measure | type_id, value, recorded_at?, source?, client_id?}.
create or replace function api.measurement_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_target_problems jsonb;
  v_entry app.body_measurements;
  v_replayed text;
  v_client_id uuid;
  v_measure text;
  v_type_id uuid;
  v_value numeric;
  v_recorded_at timestamptz;
  v_source text;
begin
  v_replayed := app.replayed_key('app.body_measurements', v_user_id, v_body);
  if v_replayed is not null then
    return app.measurement_json(app.find_measurement(v_user_id, jsonb_build_object('id', v_replayed)));
  end if;
  v_target_problems := app.measurement_target_problems(v_user_id, v_body);
  perform app.raise_if_invalid(v_target_problems || app.measurement_time_problems(v_body, true)
    || jsonb_build_object('value', case when jsonb_strip_nulls(v_target_problems) = '{}'
                                        then app.measurement_value_problem(v_user_id, v_body ->> 'measure',
                                                                           app.read_uuid(v_body, 'type_id'), v_body, true)
                                        else app.field_problem(v_body, 'value', 'app.measurement_value') end));
  -- The values are read first: Citus sends the insert to the user's worker, which takes no
  -- call of a stable function in its values.
  v_client_id := app.read_uuid(v_body, 'client_id');
  v_measure := app.read_text(v_body, 'measure');
  v_type_id := app.read_uuid(v_body, 'type_id');
  v_value := app.read_number(v_body, 'value');
  v_recorded_at := coalesce(app.read_timestamp(v_body, 'recorded_at'), now());
  v_source := coalesce(app.read_text(v_body, 'source'), 'manual');
  insert into app.body_measurements (user_id, client_id, measure, type_id, value, recorded_at, source)
  values (v_user_id, v_client_id, v_measure, v_type_id, v_value, v_recorded_at, v_source)
  returning * into v_entry;
  return app.measurement_json(v_entry);
end
$$;

-- GET /user/measurements?measure=|type_id=&limit=&cursor=: entries newest first, of one
-- measure or all. One static statement per case, each an index range that stops at the
-- page (a plan for all three would keep to none of the indexes once it is generic).
create or replace function api.measurements_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'number');
  v_measure text := p_args ->> 'measure';
  v_type_id uuid;
  -- Before the cursor's entry; without one, before every entry.
  v_after_at timestamptz := 'infinity';
  v_after_id bigint := 0;
  v_rows jsonb;
begin
  if v_measure is not null
     and not exists (select from app.measures as m where m.id = v_measure and m.weigh_in_member is null) then
    perform app.raise_parameter_problem('measure', 'must be a standard measure other than a weigh-in''s (GET /user/measures)');
  end if;
  if p_args ->> 'type_id' is not null then
    if not app.is_uuid(p_args ->> 'type_id') then
      perform app.raise_parameter_problem('type_id', 'must be a UUID');
    end if;
    v_type_id := (app.find_measurement_type(v_user_id, jsonb_build_object('id', p_args ->> 'type_id'))).id;
  end if;
  if v_page.cursor_number is not null then
    select c.recorded_at, c.id into v_after_at, v_after_id from app.body_measurements as c
     where c.user_id = v_user_id and c.id = v_page.cursor_number;
    if not found then
      perform app.raise_unknown_cursor();
    end if;
  end if;
  if v_measure is not null then
    select jsonb_agg(app.measurement_json(row(b.*)::app.body_measurements) order by b.recorded_at desc, b.id desc)
      into v_rows
      from (select * from app.body_measurements as e
             where e.user_id = v_user_id and e.measure = v_measure and (e.recorded_at, e.id) < (v_after_at, v_after_id)
             order by e.recorded_at desc, e.id desc
             limit v_page.page_size + 1) as b;
  elsif v_type_id is not null then
    select jsonb_agg(app.measurement_json(row(b.*)::app.body_measurements) order by b.recorded_at desc, b.id desc)
      into v_rows
      from (select * from app.body_measurements as e
             where e.user_id = v_user_id and e.type_id = v_type_id and (e.recorded_at, e.id) < (v_after_at, v_after_id)
             order by e.recorded_at desc, e.id desc
             limit v_page.page_size + 1) as b;
  else
    select jsonb_agg(app.measurement_json(row(b.*)::app.body_measurements) order by b.recorded_at desc, b.id desc)
      into v_rows
      from (select * from app.body_measurements as e
             where e.user_id = v_user_id and (e.recorded_at, e.id) < (v_after_at, v_after_id)
             order by e.recorded_at desc, e.id desc
             limit v_page.page_size + 1) as b;
  end if;
  return app.page(coalesce(v_rows, '[]'), v_page.page_size);
end
$$;

-- PATCH /user/measurements/{id} {value?, recorded_at?, source?}: the measure stays (a body
-- naming one is refused as an unknown member).
create or replace function api.measurement_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_entry app.body_measurements := app.find_measurement(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
  -- Read before the update: Citus takes no call of a stable function inside a write's coalesce.
  v_value numeric;
  v_recorded_at timestamptz;
  v_source text;
begin
  perform app.check_if_match(v_user_id, 'measurement', v_entry.id::text, p_args);
  perform app.raise_if_invalid(app.measurement_time_problems(v_body, false)
    || jsonb_build_object('value', app.measurement_value_problem(v_user_id, v_entry.measure, v_entry.type_id, v_body,
                                                                 v_body ? 'value')));
  v_value := app.read_number(v_body, 'value');
  v_recorded_at := app.read_timestamp(v_body, 'recorded_at');
  v_source := app.read_text(v_body, 'source');
  update app.body_measurements
     set value = coalesce(v_value, value),
         recorded_at = coalesce(v_recorded_at, recorded_at),
         source = coalesce(v_source, source),
         updated_at = now()
   where user_id = v_user_id and id = v_entry.id
  returning * into v_entry;
  return app.measurement_json(v_entry);
end
$$;

create or replace function api.measurement_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_entry app.body_measurements := app.find_measurement(v_user_id, p_args);
begin
  perform app.check_if_match(v_user_id, 'measurement', v_entry.id::text, p_args);
  delete from app.body_measurements where user_id = v_user_id and id = v_entry.id;
  return null;
end
$$;

-- GET /user/measurement-series?measure=|type_id=&from=&to=: one measure's values over a
-- range of local dates (default the last 365 days, at most ten years), oldest first, for
-- a graph; weight, body fat and height from the weigh-ins.
create or replace function api.measurement_series(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_range record := app.date_range_within(p_args, v_user_id, 365, 3660);
  v_measure text := p_args ->> 'measure';
  v_type_id uuid;
begin
  if (v_measure is null) = (p_args ->> 'type_id' is null) then
    perform app.raise_parameter_problem('measure', 'or type_id, exactly one, is required');
  end if;
  if v_measure is not null and not exists (select from app.measures as m where m.id = v_measure) then
    perform app.raise_parameter_problem('measure', 'must be one of the standard measures (GET /user/measures)');
  end if;
  if p_args ->> 'type_id' is not null then
    if not app.is_uuid(p_args ->> 'type_id') then
      perform app.raise_parameter_problem('type_id', 'must be a UUID');
    end if;
    v_type_id := (app.find_measurement_type(v_user_id, jsonb_build_object('id', p_args ->> 'type_id'))).id;
  end if;
  return app.measurement_series(v_user_id, v_measure, v_type_id, v_range.from_date, v_range.to_date);
end
$$;
