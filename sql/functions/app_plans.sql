-- Saved workout plans and the setup state: validation, JSON shapes, lookup.

-- Every problem with a plan body. Each exercise prescribes sets and the targets its
-- exercise's type takes (app.target_problems): reps or a rep range (reps to reps_max), a
-- load, an assistance, a duration, a distance.

create or replace function app.plan_problems(p_user_id uuid, p_body jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  v_problems jsonb := jsonb_build_object('name', app.field_problem(p_body, 'name', 'app.plan_name'));
  v_exercises jsonb := coalesce(p_body -> 'exercises', '[]');
  v_item jsonb;
  v_path text;
  v_type text;
  i integer;
begin
  if jsonb_typeof(v_exercises) <> 'array' then
    return v_problems || jsonb_build_object('exercises', 'must be a list');
  end if;
  if jsonb_array_length(v_exercises) = 0 then
    v_problems := v_problems || jsonb_build_object('exercises', 'a plan needs at least one exercise');
  end if;
  for i in 0 .. jsonb_array_length(v_exercises) - 1 loop
    v_item := v_exercises -> i;
    v_path := format('exercises[%s]', i);
    if jsonb_typeof(v_item) <> 'object' then
      v_problems := v_problems || jsonb_build_object(v_path, 'must be an object');
      continue;
    end if;
    -- The targets follow the exercise's type (app.target_problems); an exercise that is not
    -- found is named as such, and its targets are read as weight_reps.
    v_type := null;
    if jsonb_strip_nulls(app.exercise_reference_problems(p_user_id, v_item, v_path)) = '{}' then
      v_type := (app.resolve_exercise(p_user_id, v_item)).tracking_type;
    end if;
    v_problems := v_problems || app.exercise_reference_problems(p_user_id, v_item, v_path)
      || app.target_problems(v_item, v_path, coalesce(v_type, 'weight_reps')) || jsonb_build_object(
      v_path || '.sets', app.field_problem(v_item, 'sets', 'app.plan_sets'),
      v_path || '.rest_seconds', app.field_problem(v_item, 'rest_seconds', 'app.rest_seconds', false),
      v_path || '.group', app.field_problem(v_item, 'group', 'app.superset_group', false),
      v_path || '.group_rest_seconds', app.field_problem(v_item, 'group_rest_seconds', 'app.rest_seconds', false));
  end loop;
  return v_problems;
end
$$;

-- PL/pgSQL: Citus cannot plan a SQL function's statement with its parameters left in.
create or replace function app.plan_json(p_plan app.plans, p_with_exercises boolean)
returns jsonb
language plpgsql
stable
as $$
begin
  return jsonb_build_object('id', p_plan.id, 'name', p_plan.name, 'created_at', p_plan.created_at,
                            'last_used_at', p_plan.last_used_at,
                            'exercise_count', (select count(*) from app.plan_exercises as e
                                                where e.user_id = p_plan.user_id and e.plan_id = p_plan.id))
         || case when p_with_exercises then jsonb_build_object('exercises', coalesce((
              select jsonb_agg(jsonb_build_object('exercise_id', coalesce(e.exercise_id, e.user_exercise_id),
                                                  'exercise_name', e.exercise_name, 'sets', e.sets, 'reps', e.reps,
                                                  'reps_max', e.reps_max, 'weight_kg', e.weight_kg,
                                                  'assistance_kg', e.assistance_kg,
                                                  'duration_seconds', e.duration_seconds,
                                                  'distance_m', e.distance_m, 'rest_seconds', e.rest_seconds,
                                                  'group', e.superset_group, 'group_rest_seconds', e.group_rest_seconds)
                               order by e.position)
                from app.plan_exercises as e where e.user_id = p_plan.user_id and e.plan_id = p_plan.id), '[]'))
            else '{}' end;
end
$$;

create or replace function app.find_plan(p_user_id uuid, p_args jsonb)
returns app.plans
language plpgsql
stable
as $$
declare
  v_plan app.plans;
begin
  select p.* into v_plan from app.plans as p where p.user_id = p_user_id and p.id = app.id_parameter(p_args, 'id');
  if v_plan.id is null then
    perform app.raise_error(404, 'plan_not_found', 'No such plan.');
  end if;
  return v_plan;
end
$$;

grant execute on function
  app.plan_problems(uuid, jsonb),
  app.plan_json(app.plans, boolean),
  app.find_plan(uuid, jsonb)
to liftbase_api;

-- The setup state (GET /setup, and the answer of POST /setup/complete).
create or replace function app.setup_json(p_user_id uuid)
returns jsonb
language plpgsql
stable
as $$
begin
  return jsonb_build_object(
    'has_completed_setup', exists (select from app.user_setup as s where s.user_id = p_user_id),
    'equipment_count', (select count(*) from app.user_equipment as e where e.user_id = p_user_id),
    'plan_count', (select count(*) from app.plans as p where p.user_id = p_user_id));
end
$$;
grant execute on function app.setup_json(uuid) to liftbase_api;
