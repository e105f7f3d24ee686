-- Health metrics and daily targets: the formulas (version 1) and how they are recorded.

create or replace function app.activity_factor(p_activity_level text)
returns numeric
language sql
immutable
as $$
  select case p_activity_level
    when 'sedentary' then 1.2 when 'light' then 1.375 when 'moderate' then 1.55
    when 'active' then 1.725 when 'very_active' then 1.9
  end
$$;

-- Daily targets from an energy expenditure (kcal/day) and the inputs {sex, weight_kg,
-- goal_type, goal_rate_per_week}: calories = expenditure + rate × 7700 / 7, floored at
-- 1200 (female) / 1500 (male) with a warning; protein 2.2 g/kg when cutting else 1.8 g/kg;
-- fat 25 % of calories; carbohydrate the rest. Rounding: kcal and grams to whole numbers,
-- each from unrounded inputs, carbohydrate from the rounded calories, protein and fat.
-- Shared by the formula targets (app.compute_targets) and adaptive targets.
create or replace function app.targets_from_tdee(p_tdee numeric, p_inputs jsonb)
returns jsonb
language plpgsql
immutable
as $$
declare
  v_sex text := p_inputs ->> 'sex';
  v_weight numeric := (p_inputs ->> 'weight_kg')::numeric;
  v_floor integer := case v_sex when 'female' then 1200 else 1500 end;
  v_calories integer := round(p_tdee + (p_inputs ->> 'goal_rate_per_week')::numeric * 7700 / 7);
  v_protein integer;
  v_fat integer;
  v_warnings jsonb := '[]';
begin
  if v_calories < v_floor then
    v_warnings := v_warnings || jsonb_build_object(
      'code', 'calorie_floor_applied',
      'message', format('Calories were raised from %s to the %s kcal floor for %s users.', v_calories, v_floor, v_sex));
    v_calories := v_floor;
  end if;
  v_protein := round(v_weight * case when p_inputs ->> 'goal_type' = 'cutting' then 2.2 else 1.8 end);
  v_fat := round(v_calories * 0.25 / 9);
  return jsonb_build_object(
    'calories', v_calories,
    'protein_g', v_protein,
    'fat_g', v_fat,
    'carbs_g', greatest(0, round((v_calories - 4 * v_protein - 9 * v_fat) / 4.0)),
    'warnings', v_warnings);
end
$$;

-- Formulas, version 1, from one set of inputs:
--   {sex, age_years, height_cm, weight_kg, body_fat_pct?, activity_level, goal_type, goal_rate_per_week}
-- BMI = kg/m²; BMR Mifflin-St Jeor, or Katch-McArdle when body fat is known; TDEE = BMR ×
-- activity factor; the targets from the TDEE by app.targets_from_tdee. BMI rounds to 0.1.
create or replace function app.compute_targets(p_inputs jsonb)
returns jsonb
language plpgsql
immutable
as $$
declare
  v_sex text := p_inputs ->> 'sex';
  v_age numeric := (p_inputs ->> 'age_years')::numeric;
  v_height numeric := (p_inputs ->> 'height_cm')::numeric;
  v_weight numeric := (p_inputs ->> 'weight_kg')::numeric;
  v_body_fat numeric := (p_inputs ->> 'body_fat_pct')::numeric;
  v_formula text;
  v_bmr numeric;
  v_tdee numeric;
begin
  if v_body_fat is not null then
    v_formula := 'katch_mcardle';
    v_bmr := 370 + 21.6 * v_weight * (1 - v_body_fat / 100);
  else
    v_formula := 'mifflin_st_jeor';
    v_bmr := 10 * v_weight + 6.25 * v_height - 5 * v_age + case v_sex when 'male' then 5 else -161 end;
  end if;
  v_tdee := v_bmr * app.activity_factor(p_inputs ->> 'activity_level');
  return jsonb_build_object(
    'formula_version', 1,
    'bmr_formula', v_formula,
    'bmi', round(v_weight / (v_height / 100) ^ 2, 1),
    'bmr', round(v_bmr),
    'tdee', round(v_tdee),
    'activity_factor', app.activity_factor(p_inputs ->> 'activity_level'))
    || app.targets_from_tdee(v_tdee, p_inputs);
end
$$;

-- The inputs the formulas use now for a user: profile, latest body-stats entry, goal, and
-- age today in the user's time zone. Null when one of them is missing.
-- PL/pgSQL, not SQL: a SQL function that reads a table is never inlined and plans its
-- statement again in every statement that calls it, where PL/pgSQL keeps the plan; and
-- Citus cannot plan a SQL function's statement with parameters (docs/scaling.md).
create or replace function app.current_inputs(p_user_id uuid)
returns jsonb
language plpgsql
stable
as $$
begin
  return (
    select jsonb_build_object(
             'goal_type', g.goal_type,
             'goal_rate_per_week', g.goal_rate_per_week,
             'sex', p.sex,
             'age_years', app.age_on(p.date_of_birth, p.age_years, p.age_recorded_on, app.user_today(p_user_id)),
             'height_cm', p.height_cm,
             'weight_kg', m.weight_kg,
             'body_fat_pct', m.body_fat_pct,
             'activity_level', p.activity_level)
           || case when p.date_of_birth is not null
                   then jsonb_build_object('date_of_birth', p.date_of_birth) else '{}' end
      from app.user_profiles as p
      join app.goals as g on g.user_id = p.user_id
      join lateral (
        select b.weight_kg, b.body_fat_pct from app.body_metrics as b
         where b.user_id = p.user_id order by b.recorded_at desc, b.id desc limit 1
      ) as m on true
     where p.user_id = p_user_id
  );
end
$$;

-- Computes and appends a target snapshot and health metrics for the user from their
-- current inputs, in the caller's transaction. With p_only_if_changed, appends nothing
-- when the results equal the latest formula snapshot's (the one with health metrics), so
-- the daily recompute keeps a later adaptive snapshot while the formula inputs stand.
-- Returns {snapshot, metrics} or null.
create or replace function app.record_targets(p_user_id uuid, p_reason text, p_only_if_changed boolean default false)
returns jsonb
language plpgsql
as $$
declare
  v_inputs jsonb := app.current_inputs(p_user_id);
  v_result jsonb;
  v_snapshot app.target_snapshots;
  v_metrics app.health_metrics;
begin
  if v_inputs is null then
    return null;
  end if;
  v_result := app.compute_targets(v_inputs);
  if p_only_if_changed and exists (
    select from app.target_snapshots as s
      join app.health_metrics as h on h.user_id = s.user_id and h.snapshot_id = s.id
     where s.user_id = p_user_id
       and s.id = (app.latest_health_metrics(p_user_id)).snapshot_id
       and (s.calories, s.protein_g, s.carbs_g, s.fat_g, s.bmr_formula, h.bmi, h.bmr, h.tdee)
           = ((v_result ->> 'calories')::integer, (v_result ->> 'protein_g')::integer,
              (v_result ->> 'carbs_g')::integer, (v_result ->> 'fat_g')::integer, v_result ->> 'bmr_formula',
              (v_result ->> 'bmi')::numeric, (v_result ->> 'bmr')::integer, (v_result ->> 'tdee')::integer)) then
    return null;
  end if;

  insert into app.target_snapshots (user_id, reason, formula_version, bmr_formula, calories, protein_g, carbs_g,
                                    fat_g, warnings, input_parameters)
  values (p_user_id, p_reason, (v_result ->> 'formula_version')::integer, v_result ->> 'bmr_formula',
          (v_result ->> 'calories')::integer, (v_result ->> 'protein_g')::integer,
          (v_result ->> 'carbs_g')::integer, (v_result ->> 'fat_g')::integer, v_result -> 'warnings', v_inputs)
  returning * into v_snapshot;

  insert into app.health_metrics (user_id, version, bmi, bmr, tdee, inputs, snapshot_id)
  values (p_user_id, (v_result ->> 'formula_version')::integer, (v_result ->> 'bmi')::numeric,
          (v_result ->> 'bmr')::integer, (v_result ->> 'tdee')::integer,
          v_inputs || jsonb_build_object('bmr_formula', v_result ->> 'bmr_formula',
                                         'activity_factor', v_result -> 'activity_factor'),
          v_snapshot.id)
  returning * into v_metrics;

  return jsonb_build_object('snapshot', app.snapshot_json(v_snapshot), 'metrics', app.metrics_json(v_metrics));
end
$$;

-- {snapshot, metrics}: the latest targets and metrics, or nulls before onboarding.
create or replace function app.targets_as_they_stand(p_user_id uuid)
returns jsonb
language plpgsql
stable
as $$
begin
  return jsonb_build_object(
    'snapshot', (select app.snapshot_json(t) from app.latest_target_snapshot(p_user_id) as t where t.id is not null),
    'metrics', (select app.metrics_json(h) from app.latest_health_metrics(p_user_id) as h where h.id is not null));
end
$$;

create or replace function app.snapshot_json(p_snapshot app.target_snapshots)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'id', p_snapshot.id,
    'computed_at', p_snapshot.computed_at,
    'reason', p_snapshot.reason,
    'formula_version', p_snapshot.formula_version,
    'bmr_formula', p_snapshot.bmr_formula,
    'calories', p_snapshot.calories,
    'protein_g', p_snapshot.protein_g,
    'carbs_g', p_snapshot.carbs_g,
    'fat_g', p_snapshot.fat_g,
    'warnings', p_snapshot.warnings,
    'input_parameters', p_snapshot.input_parameters)
$$;

create or replace function app.metrics_json(p_metrics app.health_metrics)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'id', p_metrics.id,
    'bmi', p_metrics.bmi,
    'bmr', p_metrics.bmr,
    'tdee', p_metrics.tdee,
    'computed_at', p_metrics.computed_at,
    'version', p_metrics.version,
    'is_recent', p_metrics.computed_at > now() - interval '24 hours')
$$;

grant execute on function
  app.activity_factor(text),
  app.targets_from_tdee(numeric, jsonb),
  app.compute_targets(jsonb),
  app.current_inputs(uuid),
  app.record_targets(uuid, text, boolean),
  app.targets_as_they_stand(uuid),
  app.snapshot_json(app.target_snapshots),
  app.metrics_json(app.health_metrics)
to liftbase_api;

-- Sentences that quote the user's own numbers. PL/pgSQL: one expression over the row, no
-- query (as a SQL function with a FROM it was planned again on every call).
create or replace function app.metrics_explanations(p_metrics app.health_metrics)
returns jsonb
language plpgsql
stable
as $$
declare
  i jsonb := p_metrics.inputs;
begin
  return jsonb_build_object(
    'bmi', format('BMI %s = %s kg / (%s m)².', p_metrics.bmi, i ->> 'weight_kg',
                  round((i ->> 'height_cm')::numeric / 100, 2)),
    'bmr', case i ->> 'bmr_formula'
      when 'katch_mcardle' then format(
        'Katch-McArdle: 370 + 21.6 × %s kg lean mass (%s kg at %s %% body fat) = %s kcal a day at rest.',
        round((i ->> 'weight_kg')::numeric * (1 - (i ->> 'body_fat_pct')::numeric / 100), 1),
        i ->> 'weight_kg', i ->> 'body_fat_pct', p_metrics.bmr)
      else format(
        'Mifflin-St Jeor for a %s-year-old %s, %s cm and %s kg: %s kcal a day at rest.',
        i ->> 'age_years', i ->> 'sex', i ->> 'height_cm', i ->> 'weight_kg', p_metrics.bmr)
      end,
    'tdee', format('BMR %s kcal × %s for a %s activity level = %s kcal a day.',
                   p_metrics.bmr, i ->> 'activity_factor', replace(i ->> 'activity_level', '_', ' '), p_metrics.tdee));
end
$$;

-- "The latest" of the user's health metrics and of their target snapshots, one ordering for
-- both and for every reader: by computed_at, then id (an import may bring rows computed
-- before the ones already there), never filtered by date: they are found the moment
-- onboarding commits, whatever the time zones. Null when there are none. PL/pgSQL so
-- that the query is planned once per connection (a SQL function that is not inlined, as no
-- function returning one row of a table is, is planned again on every call). The lists of
-- metrics (GET /profile/metrics/history) page in the same order.
create or replace function app.latest_health_metrics(p_user_id uuid)
returns app.health_metrics
language plpgsql
stable
as $$
begin
  return (select h from app.health_metrics as h
           where h.user_id = p_user_id
           order by h.computed_at desc, h.id desc
           limit 1);
end
$$;

create or replace function app.latest_target_snapshot(p_user_id uuid)
returns app.target_snapshots
language plpgsql
stable
as $$
begin
  return (select t from app.target_snapshots as t
           where t.user_id = p_user_id
           order by t.computed_at desc, t.id desc
           limit 1);
end
$$;

grant execute on function
  app.metrics_explanations(app.health_metrics),
  app.latest_health_metrics(uuid)
to liftbase_api;

-- The daily job (`liftbase metrics recompute`): recomputes each user's targets and metrics
-- (ages change) and appends only when a value changed. Returns how many users changed.
-- Runs as the owner through the CLI, acting as each user in turn so RLS still applies.
create or replace function app.recompute_targets(p_user_ids uuid[])
returns integer
language plpgsql
as $$
declare
  v_user_id uuid;
  v_changed integer := 0;
begin
  foreach v_user_id in array p_user_ids loop
    perform auth.act_as(v_user_id);
    if app.record_targets(v_user_id, 'recompute', true) is not null then
      v_changed := v_changed + 1;
    end if;
  end loop;
  perform auth.act_as(null);
  return v_changed;
end
$$;

-- Effective daily targets: the user's override where set, else the latest snapshot.
-- PL/pgSQL so that the query is planned once per connection, not on every call.
create or replace function app.effective_targets(p_user_id uuid)
returns jsonb
language plpgsql
stable
as $$
declare
  s app.target_snapshots := app.latest_target_snapshot(p_user_id);
begin
  return (select jsonb_build_object(
    'calories', coalesce(o.calories, s.calories),
    'protein_g', coalesce(o.protein_g, s.protein_g),
    'carbs_g', coalesce(o.carbs_g, s.carbs_g),
    'fat_g', coalesce(o.fat_g, s.fat_g),
    'water_ml', app.water_target_ml(p_user_id),
    'source', jsonb_build_object(
      'calories', case when o.calories is not null then 'override' else 'computed' end,
      'protein_g', case when o.protein_g is not null then 'override' else 'computed' end,
      'carbs_g', case when o.carbs_g is not null then 'override' else 'computed' end,
      'fat_g', case when o.fat_g is not null then 'override' else 'computed' end,
      'water_ml', case when o.water_ml is not null then 'override' else 'computed' end),
    'computed', case when s.id is not null then jsonb_build_object(
      'snapshot_id', s.id, 'computed_at', s.computed_at, 'calories', s.calories, 'protein_g', s.protein_g,
      'carbs_g', s.carbs_g, 'fat_g', s.fat_g, 'warnings', s.warnings) end,
    'overrides', case when o.user_id is not null then jsonb_build_object(
      'calories', o.calories, 'protein_g', o.protein_g, 'carbs_g', o.carbs_g, 'fat_g', o.fat_g,
      'water_ml', o.water_ml, 'updated_at', o.updated_at) end)
    from (select p_user_id as user_id) as u
    left join app.target_overrides as o on o.user_id = u.user_id
   where s.id is not null or o.user_id is not null);
end
$$;

-- The reporting owner runs it for the nutrition adherence report (reporting_views.sql).
grant execute on function app.latest_target_snapshot(uuid) to liftbase_api, liftbase_reporting_owner;
grant execute on function app.effective_targets(uuid) to liftbase_api, liftbase_reporting_owner;
