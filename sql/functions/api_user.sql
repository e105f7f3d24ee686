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
    return jsonb_build_object(
      'entry', (select app.body_metric_json(row(b.*)::app.body_metrics) from app.body_metrics as b
                 where b.user_id = v_user_id and b.id = v_replayed::bigint),
      'snapshot', (select app.snapshot_json(t) from app.latest_target_snapshot(v_user_id) as t where t.id is not null),
      'metrics', (select app.metrics_json(h) from app.latest_health_metrics(v_user_id) as h where h.id is not null));
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
    'fat_g', app.field_problem(v_body, 'fat_g', 'app.macro_grams', false)));
  -- updated_at from excluded (its default, now()): Citus takes no stable call in DO UPDATE SET.
  insert into app.target_overrides as o (user_id, calories, protein_g, carbs_g, fat_g)
  values (v_user_id, app.read_integer(v_body, 'calories'), app.read_integer(v_body, 'protein_g'),
          app.read_integer(v_body, 'carbs_g'), app.read_integer(v_body, 'fat_g'))
  on conflict (user_id) do update
    set calories = case when v_body ? 'calories' then excluded.calories else o.calories end,
        protein_g = case when v_body ? 'protein_g' then excluded.protein_g else o.protein_g end,
        carbs_g = case when v_body ? 'carbs_g' then excluded.carbs_g else o.carbs_g end,
        fat_g = case when v_body ? 'fat_g' then excluded.fat_g else o.fat_g end,
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
