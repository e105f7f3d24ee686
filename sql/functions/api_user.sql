-- Onboarding, profile, goals, body metrics and targets endpoints.

-- POST /onboarding/complete: profile, body-stats entry, goal, target snapshot and health
-- metrics in this one transaction, so the metrics exist the moment it commits. The goal
-- row is written first: of concurrent onboardings of one user exactly one succeeds.
create or replace function api.onboarding_complete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_recorded jsonb;
begin
  if exists (select from app.goals as g where g.user_id = v_user_id) then
    perform app.raise_error(409, 'onboarding_already_completed', 'Onboarding was already completed.');
  end if;
  perform app.raise_if_invalid(
    app.profile_problems(v_body) || app.goal_problems(v_body) || app.body_metric_problems(v_body, true));

  insert into app.goals (user_id, goal_type, goal_rate_per_week)
  values (v_user_id, v_body ->> 'goal_type', (v_body ->> 'goal_rate_per_week')::numeric)
  on conflict (user_id) do nothing;
  if not found then
    perform app.raise_error(409, 'onboarding_already_completed', 'Onboarding was already completed.');
  end if;
  perform app.save_profile(v_user_id, v_body);
  perform app.add_body_metric(v_user_id, v_body);
  v_recorded := app.record_targets(v_user_id, 'onboarding');

  return jsonb_build_object(
    'profile', app.profile_json(v_user_id),
    'goals', app.goal_json(v_user_id),
    'snapshot', v_recorded -> 'snapshot',
    'metrics', v_recorded -> 'metrics');
end
$$;

create or replace function api.goals_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
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
  perform app.raise_if_invalid(app.goal_problems(v_body));
  if not exists (select from app.user_profiles as p where p.user_id = v_user_id) then
    perform app.raise_error(409, 'onboarding_required', 'Complete onboarding before setting goals.');
  end if;
  insert into app.goals as g (user_id, goal_type, goal_rate_per_week)
  values (v_user_id, v_body ->> 'goal_type', (v_body ->> 'goal_rate_per_week')::numeric)
  on conflict (user_id) do update
    set goal_type = excluded.goal_type, goal_rate_per_week = excluded.goal_rate_per_week, updated_at = now();
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
begin
  perform app.raise_if_invalid(app.body_metric_problems(v_body, false));
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
  v_limit integer := app.page_limit(p_args);
  v_cursor bigint := app.page_cursor(p_args);
begin
  return app.page(coalesce((
    select jsonb_agg(app.body_metric_json(b) order by b.recorded_at desc, b.id desc)
      from (select * from app.body_metrics as e
             where e.user_id = v_user_id
               and (v_cursor is null or (e.recorded_at, e.id) < (
                     select c.recorded_at, c.id from app.body_metrics as c where c.user_id = v_user_id and c.id = v_cursor))
             order by e.recorded_at desc, e.id desc
             limit v_limit + 1) as b), '[]'), v_limit);
end
$$;

-- Effective daily targets: the user's override where set, else the latest snapshot.
create or replace function app.effective_targets(p_user_id uuid)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'calories', coalesce(o.calories, s.calories),
    'protein_g', coalesce(o.protein_g, s.protein_g),
    'carbs_g', coalesce(o.carbs_g, s.carbs_g),
    'fat_g', coalesce(o.fat_g, s.fat_g),
    'source', jsonb_build_object(
      'calories', case when o.calories is not null then 'override' else 'computed' end,
      'protein_g', case when o.protein_g is not null then 'override' else 'computed' end,
      'carbs_g', case when o.carbs_g is not null then 'override' else 'computed' end,
      'fat_g', case when o.fat_g is not null then 'override' else 'computed' end),
    'computed', case when s.id is not null then jsonb_build_object(
      'snapshot_id', s.id, 'computed_at', s.computed_at, 'calories', s.calories, 'protein_g', s.protein_g,
      'carbs_g', s.carbs_g, 'fat_g', s.fat_g, 'warnings', s.warnings) end,
    'overrides', case when o.user_id is not null then jsonb_build_object(
      'calories', o.calories, 'protein_g', o.protein_g, 'carbs_g', o.carbs_g, 'fat_g', o.fat_g,
      'updated_at', o.updated_at) end)
    from (select p_user_id as user_id) as u
    left join lateral (select * from app.target_snapshots as t where t.user_id = u.user_id
                        order by t.computed_at desc, t.id desc limit 1) as s on true
    left join app.target_overrides as o on o.user_id = u.user_id
   where s.id is not null or o.user_id is not null
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
  perform app.raise_if_invalid(jsonb_build_object(
    'calories', app.field_problem(v_body, 'calories', 'app.target_calories', false),
    'protein_g', app.field_problem(v_body, 'protein_g', 'app.macro_grams', false),
    'carbs_g', app.field_problem(v_body, 'carbs_g', 'app.macro_grams', false),
    'fat_g', app.field_problem(v_body, 'fat_g', 'app.macro_grams', false)));
  insert into app.target_overrides as o (user_id, calories, protein_g, carbs_g, fat_g)
  values (v_user_id, (v_body ->> 'calories')::integer, (v_body ->> 'protein_g')::integer,
          (v_body ->> 'carbs_g')::integer, (v_body ->> 'fat_g')::integer)
  on conflict (user_id) do update
    set calories = case when v_body ? 'calories' then excluded.calories else o.calories end,
        protein_g = case when v_body ? 'protein_g' then excluded.protein_g else o.protein_g end,
        carbs_g = case when v_body ? 'carbs_g' then excluded.carbs_g else o.carbs_g end,
        fat_g = case when v_body ? 'fat_g' then excluded.fat_g else o.fat_g end,
        updated_at = now();
  return app.effective_targets(v_user_id);
end
$$;

-- The reporting owner runs it for the nutrition adherence report (reporting_views.sql).
grant execute on function app.effective_targets(uuid) to liftbase_api, liftbase_reporting_owner;
