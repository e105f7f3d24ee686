-- /plans: saved workout plans.

-- GET /plans?limit=&cursor=: the last used first, then the newest of those never used.
create or replace function api.plans_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'uuid');
  v_after app.plans;
begin
  if v_page.cursor_uuid is not null then
    select p.* into v_after from app.plans as p where p.user_id = v_user_id and p.id = v_page.cursor_uuid;
    if v_after.id is null then
      perform app.raise_unknown_cursor();
    end if;
  end if;
  -- Never used sorts as used at -infinity: last in this descending order, like nulls last.
  return app.page(coalesce((
    select jsonb_agg(app.plan_json(p, false)
                     order by coalesce(p.last_used_at, '-infinity') desc, p.created_at desc, p.id desc)
      from (select * from app.plans as x
             where x.user_id = v_user_id
               and (v_after.id is null
                    or (coalesce(x.last_used_at, '-infinity'), x.created_at, x.id)
                       < (coalesce(v_after.last_used_at, '-infinity'), v_after.created_at, v_after.id))
             order by coalesce(x.last_used_at, '-infinity') desc, x.created_at desc, x.id desc
             limit v_page.page_size + 1) as p), '[]'), v_page.page_size);
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
  v_replayed text;
  v_exercises app.plan_exercises[];
begin
  v_replayed := app.replayed_key('app.plans', v_user_id, v_body);
  if v_replayed is not null then
    return app.plan_json(app.find_plan(v_user_id, jsonb_build_object('id', v_replayed)), true);
  end if;
  perform app.raise_if_invalid(app.plan_problems(v_user_id, v_body));
  insert into app.plans (user_id, client_id, name)
  values (v_user_id, app.read_uuid(v_body, 'client_id'), btrim(app.read_text(v_body, 'name'))) returning * into v_plan;
  -- A load the type requires and the plan leaves out is 0 kg, as it always was. The rows are
  -- read from the request first, then inserted selecting from the plan's row with the
  -- target aliased: Citus then sends the insert whole to the worker holding the user (an
  -- insert from a plain select is copied there, which row-level security refuses; readers
  -- inlined into an insert's values are folded into expressions its workers reject), as the
  -- session write does.
  v_exercises := array(
    -- The table's columns in its order.
    select row(v_user_id, v_plan.id, x.n, r.exercise_id, r.user_exercise_id, r.exercise_name,
               app.read_integer(x.item, 'sets'), app.read_integer(x.item, 'reps'),
               coalesce(app.read_number(x.item, 'weight_kg'),
                        case when app.set_field_rule(r.tracking_type, 'weight_kg') = 'required' then 0 end),
               app.read_integer(x.item, 'rest_seconds'), app.read_integer(x.item, 'group'),
               app.read_integer(x.item, 'group_rest_seconds'), app.read_integer(x.item, 'reps_max'),
               app.read_number(x.item, 'assistance_kg'), app.read_integer(x.item, 'duration_seconds'),
               app.read_number(x.item, 'distance_m'))::app.plan_exercises
      from jsonb_array_elements(v_body -> 'exercises') with ordinality as x (item, n)
     cross join lateral app.resolve_exercise(v_user_id, x.item) as r
     order by x.n);
  insert into app.plan_exercises as n (user_id, plan_id, position, exercise_id, user_exercise_id, exercise_name,
                                       sets, reps, weight_kg, rest_seconds, superset_group, group_rest_seconds,
                                       reps_max, assistance_kg, duration_seconds, distance_m)
  select w.user_id, w.id, e.position, e.exercise_id, e.user_exercise_id, e.exercise_name, e.sets, e.reps,
         e.weight_kg, e.rest_seconds, e.superset_group, e.group_rest_seconds, e.reps_max,
         e.assistance_kg, e.duration_seconds, e.distance_m
    from app.plans as w
   cross join unnest(v_exercises) as e
   where w.user_id = v_user_id and w.id = v_plan.id;
  return app.plan_json(v_plan, true);
end
$$;

create or replace function api.plan_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_plan app.plans;
begin
  v_plan := app.find_plan(v_user_id, p_args);
  if app.entity_not_modified(v_user_id, 'plan', v_plan.id::text, p_args) then
    return null;
  end if;
  return app.plan_json(v_plan, true);
end
$$;

create or replace function api.plan_rename(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_plan app.plans := app.find_plan(v_user_id, p_args);
  v_name text;
begin
  perform app.check_if_match(v_user_id, 'plan', v_plan.id::text, p_args);
  perform app.raise_if_invalid(jsonb_build_object('name', app.field_problem(p_body, 'name', 'app.plan_name')));
  -- Read before the update: Citus takes no stable call (the reader holds a CASE) in a write.
  v_name := btrim(app.read_text(p_body, 'name'));
  update app.plans set name = v_name where user_id = v_user_id and id = v_plan.id;
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
  perform app.check_if_match(v_user_id, 'plan', v_plan.id::text, p_args);
  delete from app.plans where user_id = v_user_id and id = v_plan.id;
  return null;
end
$$;

-- POST /plans/{id}/use: stamps last_used_at and starts an in-progress session built from
-- the plan (each exercise with its sets at the planned targets: reps, the bottom of a rep
-- range, the load, the assistance, the duration or the distance its type takes).
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
                           'group', e.superset_group, 'group_rest_seconds', e.group_rest_seconds,
                           -- Each set holds the targets the exercise's type takes (app.target_set).
                           'sets', (select jsonb_agg(s.one_set)
                                      from (select app.target_set(app.exercise_tracking_type(v_user_id, e.exercise_id,
                                                                                             e.user_exercise_id),
                                                                  e.reps, e.weight_kg, e.assistance_kg,
                                                                  e.duration_seconds, e.distance_m)
                                                   || jsonb_build_object('set_type', 'working',
                                                                         'rest_seconds', e.rest_seconds) as one_set
                                              from generate_series(1, e.sets)) as s)) order by e.position)
                    from app.plan_exercises as e where e.user_id = v_user_id and e.plan_id = v_plan.id)));
  return app.session_json(app.find_session(v_user_id, jsonb_build_object('id', v_session_id)));
end
$$;
