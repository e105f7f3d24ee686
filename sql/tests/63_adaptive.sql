-- Adaptive targets: on a synthetic 28-day log whose true expenditure is known (2,600 kcal;
-- the weight follows the energy balance at 7,700 kcal per kg, with day-to-day water noise),
-- the estimate lands within 5 %; recalculating writes an 'adaptive' snapshot that becomes
-- the effective target and that the daily recompute keeps; too little data is a 409.
begin;
\ir support/helpers.psql
select plan(16);

select pg_temp.sign_up('a', 'adaptive-a@example.com', 'adaptive a');
select pg_temp.sign_up('b', 'adaptive-b@example.com', 'adaptive b');

set local role liftbase_api;
select ok(pg_temp.call('onboarding_complete', 'a', '{"goal_type": "cutting", "goal_rate_per_week": -0.5, "height_cm": 180,
  "weight_kg": 90, "age_years": 35, "sex": "male", "activity_level": "light", "timezone": "Europe/Berlin"}') ? 'snapshot',
  'user a is onboarded');
reset role;

-- The log: 28 days before today (the user's today). Intake swings between about 1,600
-- and 2,400 kcal (mean 2,000 over the 28 days); the weight at the start of each day is
-- 90 kg plus the energy balance so far ÷ 7,700, plus up to ±0.4 kg of water; two days
-- have no diary, and the weight is taken on 24 of the 28 days.
create temporary table log as
select n, app.user_today((select user_id from tokens where name = 'a')) - 29 + n as day,
       round(2000 + 400 * sin(n * 1.3))::integer as intake
  from generate_series(1, 28) as n;
insert into app.food_entries (user_id, entry_date, name, calories, protein_g, carbs_g, fat_g, source)
select (select user_id from tokens where name = 'a'), l.day, 'Day total', l.intake, 150, 200, 60, 'manual'
  from log as l where l.n not in (9, 20);
insert into app.body_metrics (user_id, recorded_at, weight_kg)
select (select user_id from tokens where name = 'a'), (l.day + time '07:00') at time zone 'Europe/Berlin',
       round(90 + coalesce((select sum(p.intake - 2600) from log as p where p.n < l.n), 0) / 7700.0 + 0.4 * sin(l.n * 2.7)::numeric, 2)
  from log as l where l.n % 7 <> 3;
grant select on log to liftbase_api;

set local role liftbase_api;
create temporary table estimate as select pg_temp.call('adaptive_expenditure', 'a', null) as e;
select cmp_ok(abs((select (e ->> 'expenditure_kcal')::numeric from estimate) - 2600) / 2600, '<', 0.05::numeric,
  'the estimate is within 5 % of the true 2,600 kcal');
select is((select (e ->> 'mean_intake_kcal')::numeric from estimate),
  (select round(avg(intake)) from log where n not in (9, 20)), 'the intake is the mean of the logged days');
select is((select (e ->> 'logged_days')::integer from estimate), 26, '26 logged days');
select is((select (e ->> 'weigh_in_days')::integer from estimate), 24, '24 days with a weight');
select is((select (e ->> 'confidence')::numeric from estimate), 0.93, 'confidence 26 / 28');
select is((select e ->> 'confidence_level' from estimate), 'high', 'which is high');

create temporary table recalculated as select pg_temp.call('adaptive_recalculate', 'a', null) as r;
select is((select r -> 'snapshot' ->> 'reason' from recalculated), 'adaptive', 'recalculating writes an adaptive snapshot');
-- cutting 0.5 kg a week: 0.5 × 7700 / 7 = 550 kcal below the expenditure.
select is((select (r -> 'snapshot' ->> 'calories')::integer from recalculated),
  (select (e ->> 'expenditure_kcal')::integer - 550 from estimate), 'calories = expenditure − 550 for −0.5 kg a week');
select is((pg_temp.call('targets_get', 'a', null) ->> 'calories')::integer,
  (select (r -> 'snapshot' ->> 'calories')::integer from recalculated), 'and become the effective target');
reset role;
select is(app.recompute_targets(array[(select user_id from tokens where name = 'a')]), 0,
  'the daily recompute finds the formula inputs unchanged');
set local role liftbase_api;
select is((pg_temp.call('targets_get', 'a', null) ->> 'calories')::integer,
  (select (r -> 'snapshot' ->> 'calories')::integer from recalculated), 'and keeps the adaptive target');

select is(pg_temp.error_of('adaptive_recalculate', 'b', null) ->> 'code', 'onboarding_required',
  'without onboarding there is nothing to recalculate');
select ok(pg_temp.call('onboarding_complete', 'b', '{"goal_type": "maintaining", "goal_rate_per_week": 0, "height_cm": 165,
  "weight_kg": 60, "age_years": 30, "sex": "female", "activity_level": "moderate"}') ? 'snapshot', 'user b onboards');
select is(pg_temp.call('adaptive_expenditure', 'b', null) -> 'expenditure_kcal', 'null', 'with no log there is no estimate');
select is(pg_temp.error_of('adaptive_recalculate', 'b', null) ->> 'code', 'insufficient_data', 'and recalculating is 409');

select * from finish();
rollback;
