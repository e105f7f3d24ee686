-- Adaptive targets: the energy a user actually expends, from what they ate and how their
-- weight moved (energy balance: 7,700 kcal per kg of body weight), and target snapshots
-- computed from that instead of from the BMR formulas.

-- The estimate over the 28 days before the user's today (today's diary is not finished).
-- Intake is the mean of the days that have diary entries (a day without any is unknown,
-- not a fast). The weight change per day is the slope of the least-squares line through the
-- window's daily weights: the smoothed trend weight lags a steady change by about nine
-- days ((1 − 0.1) / 0.1), which would understate the change in a short history.
--   expenditure = mean intake − slope (kg/day) × 7700
-- It needs 14 logged days and weights on 7 days spanning 14 days; the confidence grows
-- with the logged days: logged_days / 28 (low below 0.6, medium below 0.85, then high).
-- PL/pgSQL: Citus cannot plan a SQL function's statement with its parameters left in.
create or replace function app.expenditure_estimate(p_user_id uuid)
returns jsonb
language plpgsql
stable
as $$
begin
  return (
  with window_days as (
    select app.user_today(p_user_id) - 28 as first_day, app.user_today(p_user_id) - 1 as last_day
  ),
  intake as (
    select count(*) as logged_days, avg(d.calories) as mean_kcal
      from (select e.entry_date, sum(e.calories) as calories
              from app.food_entries as e, window_days as w
             where e.user_id = p_user_id and e.entry_date between w.first_day and w.last_day
             group by e.entry_date) as d
  ),
  weights as (
    select count(*) as weigh_in_days, max(d.day) - min(d.day) as span_days,
           regr_slope(d.weight_kg, d.day - w.first_day)::numeric as slope_kg_per_day,
           (array_agg(d.trend_kg order by d.day desc))[1] as trend_kg
      from app.daily_weights(p_user_id) as d, window_days as w
     where d.day between w.first_day and w.last_day
     group by w.first_day
  ),
  estimate as (
    select w.first_day, w.last_day, i.logged_days, i.mean_kcal, g.weigh_in_days, g.span_days, g.slope_kg_per_day,
           g.trend_kg,
           i.logged_days >= 14 and coalesce(g.weigh_in_days, 0) >= 7 and coalesce(g.span_days, 0) >= 14 as sufficient
      from window_days as w
     cross join intake as i
      left join weights as g on true
  )
  select jsonb_build_object(
    'from', e.first_day, 'to', e.last_day,
    'expenditure_kcal', case when e.sufficient then round(e.mean_kcal - e.slope_kg_per_day * 7700) end,
    'mean_intake_kcal', round(e.mean_kcal),
    'weight_change_kg_per_week', round(e.slope_kg_per_day * 7, 3),
    'trend_weight_kg', round(e.trend_kg, 2),
    'logged_days', e.logged_days,
    'weigh_in_days', coalesce(e.weigh_in_days, 0),
    'confidence', round(least(e.logged_days, 28) / 28.0, 2),
    'confidence_level', case when not e.sufficient then 'insufficient'
                             when e.logged_days / 28.0 < 0.6 then 'low'
                             when e.logged_days / 28.0 < 0.85 then 'medium'
                             else 'high' end,
    'kcal_per_kg', 7700)
    from estimate as e);
end
$$;

-- Targets from an expenditure instead of the formula TDEE: the same rules as version 1
-- (app.targets_from_tdee), recorded as an 'adaptive' snapshot whose input_parameters echo
-- the profile inputs and the estimate. The health metrics (BMI, BMR, formula TDEE) are
-- left as they are: they describe the formulas.
create or replace function app.record_adaptive_targets(p_user_id uuid, p_estimate jsonb)
returns app.target_snapshots
language plpgsql
as $$
declare
  v_inputs jsonb := app.current_inputs(p_user_id);
  v_result jsonb;
  v_snapshot app.target_snapshots;
begin
  if v_inputs is null then
    perform app.raise_error(409, 'onboarding_required', 'Complete onboarding before recalculating targets.');
  end if;
  if p_estimate ->> 'expenditure_kcal' is null then
    perform app.raise_error(409, 'insufficient_data',
      'Adaptive targets need 14 days of food logs and weights on 7 days spanning 14 days of the last 28.');
  end if;
  v_result := app.targets_from_tdee((p_estimate ->> 'expenditure_kcal')::numeric, v_inputs);
  insert into app.target_snapshots (user_id, reason, formula_version, bmr_formula, calories, protein_g, carbs_g,
                                    fat_g, warnings, input_parameters)
  values (p_user_id, 'adaptive', 1, 'adaptive', (v_result ->> 'calories')::integer, (v_result ->> 'protein_g')::integer,
          (v_result ->> 'carbs_g')::integer, (v_result ->> 'fat_g')::integer, v_result -> 'warnings',
          v_inputs || jsonb_build_object('expenditure', p_estimate))
  returning * into v_snapshot;
  return v_snapshot;
end
$$;

grant execute on function
  app.expenditure_estimate(uuid),
  app.record_adaptive_targets(uuid, jsonb)
to liftbase_api;
