-- Saved workout plans, setup state and preferences.

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
    v_problems := v_problems || app.exercise_reference_problems(p_user_id, v_item, v_path) || jsonb_build_object(
      v_path || '.sets', app.field_problem(v_item, 'sets', 'app.plan_sets'),
      v_path || '.reps', app.field_problem(v_item, 'reps', 'app.reps'),
      v_path || '.weight_kg', app.field_problem(v_item, 'weight_kg', 'app.load_kg', false),
      v_path || '.rest_seconds', app.field_problem(v_item, 'rest_seconds', 'app.rest_seconds', false));
  end loop;
  return v_problems;
end
$$;

create or replace function app.plan_json(p_plan app.plans, p_with_exercises boolean)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object('id', p_plan.id, 'name', p_plan.name, 'created_at', p_plan.created_at,
                            'last_used_at', p_plan.last_used_at,
                            'exercise_count', (select count(*) from app.plan_exercises as e
                                                where e.user_id = p_plan.user_id and e.plan_id = p_plan.id))
         || case when p_with_exercises then jsonb_build_object('exercises', coalesce((
              select jsonb_agg(jsonb_build_object('exercise_id', coalesce(e.exercise_id, e.user_exercise_id),
                                                  'exercise_name', e.exercise_name, 'sets', e.sets, 'reps', e.reps,
                                                  'weight_kg', e.weight_kg, 'rest_seconds', e.rest_seconds) order by e.position)
                from app.plan_exercises as e where e.user_id = p_plan.user_id and e.plan_id = p_plan.id), '[]'))
            else '{}' end
$$;

create or replace function app.find_plan(p_user_id uuid, p_args jsonb)
returns app.plans
language plpgsql
stable
as $$
declare
  v_plan app.plans;
begin
  if app.is_uuid(p_args ->> 'id') then
    select p.* into v_plan from app.plans as p where p.user_id = p_user_id and p.id = (p_args ->> 'id')::uuid;
  end if;
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

create or replace function api.plans_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return jsonb_build_object(
    'items', coalesce((select jsonb_agg(app.plan_json(p, false) order by p.last_used_at desc nulls last, p.created_at desc)
                         from app.plans as p where p.user_id = v_user_id), '[]'),
    'next_cursor', null);
end
$$;

create or replace function api.plan_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_plan app.plans;
begin
  perform app.raise_if_invalid(app.plan_problems(v_user_id, v_body));
  insert into app.plans (user_id, name) values (v_user_id, btrim(v_body ->> 'name')) returning * into v_plan;
  insert into app.plan_exercises (user_id, plan_id, position, exercise_id, user_exercise_id, exercise_name, sets, reps,
                                  weight_kg, rest_seconds)
  select v_user_id, v_plan.id, x.n, r.exercise_id, r.user_exercise_id, r.exercise_name, (x.item ->> 'sets')::integer,
         (x.item ->> 'reps')::integer, coalesce((x.item ->> 'weight_kg')::numeric, 0), (x.item ->> 'rest_seconds')::integer
    from jsonb_array_elements(v_body -> 'exercises') with ordinality as x (item, n)
   cross join lateral app.resolve_exercise(v_user_id, x.item) as r;
  return app.plan_json(v_plan, true);
end
$$;

create or replace function api.plan_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return app.plan_json(app.find_plan(v_user_id, p_args), true);
end
$$;

create or replace function api.plan_rename(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_plan app.plans := app.find_plan(v_user_id, p_args);
begin
  perform app.raise_if_invalid(jsonb_build_object('name', app.field_problem(coalesce(p_body, '{}'), 'name', 'app.plan_name')));
  update app.plans set name = btrim(p_body ->> 'name') where user_id = v_user_id and id = v_plan.id;
  return app.plan_json(app.find_plan(v_user_id, p_args), true);
end
$$;

create or replace function api.plan_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_plan app.plans := app.find_plan(v_user_id, p_args);
begin
  delete from app.plans where user_id = v_user_id and id = v_plan.id;
  return null;
end
$$;

-- POST /plans/{id}/use: stamps last_used_at and starts an in-progress session built from
-- the plan (each exercise with its sets of reps at the planned weight).
create or replace function api.plan_use(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_plan app.plans := app.find_plan(v_user_id, p_args);
  v_session_id uuid;
begin
  update app.plans set last_used_at = now() where user_id = v_user_id and id = v_plan.id;
  v_session_id := app.save_session(v_user_id, null, jsonb_build_object(
    'status', 'in_progress', 'name', v_plan.name, 'started_at', now(),
    'exercises', (select jsonb_agg(jsonb_build_object(
                           'exercise_id', coalesce(e.exercise_id, e.user_exercise_id), 'exercise_name', e.exercise_name,
                           'sets', (select jsonb_agg(s.one_set)
                                      from (select jsonb_build_object('reps', e.reps, 'weight_kg', e.weight_kg,
                                                                      'set_type', 'working', 'rest_seconds', e.rest_seconds) as one_set
                                              from generate_series(1, e.sets)) as s)) order by e.position)
                    from app.plan_exercises as e where e.user_id = v_user_id and e.plan_id = v_plan.id)));
  return app.session_json(app.find_session(v_user_id, jsonb_build_object('id', v_session_id)));
end
$$;

create or replace function api.setup_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return jsonb_build_object(
    'has_completed_setup', exists (select from app.user_setup as s where s.user_id = v_user_id),
    'equipment_count', (select count(*) from app.user_equipment as e where e.user_id = v_user_id),
    'plan_count', (select count(*) from app.plans as p where p.user_id = v_user_id));
end
$$;

create or replace function api.setup_complete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  insert into app.user_setup (user_id) values (v_user_id) on conflict (user_id) do nothing;
  return api.setup_get(p_token, null, p_args);
end
$$;

-- DELETE /preferences: resets equipment, plans and setup state.
create or replace function api.preferences_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  delete from app.user_equipment where user_id = v_user_id;
  delete from app.plans where user_id = v_user_id;
  delete from app.user_setup where user_id = v_user_id;
  return null;
end
$$;
