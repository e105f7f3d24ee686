-- Formulas against hand-computed values, metrics found right after onboarding whatever the
-- time zones, acknowledgement, recomputation, and target overrides.
begin;
\ir support/helpers.psql
select plan(30);

-- Formulas (version 1), computed by hand --------------------------------------------------------
-- Male, Mifflin-St Jeor: 10·80 + 6.25·180 − 5·30 + 5 = 1780; × 1.55 = 2759;
-- 2759 − 0.5·7700/7 = 2209 kcal; protein 2.2·80 = 176; fat 2209·0.25/9 = 61; carbs (2209 − 704 − 549)/4 = 239.
select is(app.compute_targets('{"sex": "male", "age_years": 30, "height_cm": 180, "weight_kg": 80,
    "activity_level": "moderate", "goal_type": "cutting", "goal_rate_per_week": -0.5}')
    - 'activity_factor',
  '{"formula_version": 1, "bmr_formula": "mifflin_st_jeor", "bmi": 24.7, "bmr": 1780, "tdee": 2759,
    "calories": 2209, "protein_g": 176, "fat_g": 61, "carbs_g": 239, "warnings": []}',
  'male, Mifflin-St Jeor, cutting');
-- Female, Mifflin-St Jeor: 600 + 1031.25 − 125 − 161 = 1345.25; × 1.375 = 1849.72; protein 1.8·60 = 108;
-- fat 1850·0.25/9 = 51; carbs (1850 − 432 − 459)/4 = 239.75 → 240; BMI 60/1.65² = 22.04.
select is(app.compute_targets('{"sex": "female", "age_years": 25, "height_cm": 165, "weight_kg": 60,
    "activity_level": "light", "goal_type": "maintaining", "goal_rate_per_week": 0}')
    - 'activity_factor',
  '{"formula_version": 1, "bmr_formula": "mifflin_st_jeor", "bmi": 22.0, "bmr": 1345, "tdee": 1850,
    "calories": 1850, "protein_g": 108, "fat_g": 51, "carbs_g": 240, "warnings": []}',
  'female, Mifflin-St Jeor, maintaining');
-- Male with body fat, Katch-McArdle: lean mass 90·0.8 = 72 kg; 370 + 21.6·72 = 1925.2; × 1.725 = 3320.97;
-- + 0.25·1100 = 3595.97 → 3596; protein 1.8·90 = 162; fat 3596·0.25/9 = 99.9 → 100; carbs (3596 − 648 − 900)/4 = 512.
select is(app.compute_targets('{"sex": "male", "age_years": 40, "height_cm": 185, "weight_kg": 90, "body_fat_pct": 20,
    "activity_level": "active", "goal_type": "bulking", "goal_rate_per_week": 0.25}')
    - 'activity_factor',
  '{"formula_version": 1, "bmr_formula": "katch_mcardle", "bmi": 26.3, "bmr": 1925, "tdee": 3321,
    "calories": 3596, "protein_g": 162, "fat_g": 100, "carbs_g": 512, "warnings": []}',
  'male, Katch-McArdle, bulking');
-- Female with body fat: lean mass 49 kg; 370 + 1058.4 = 1428.4; × 1.9 = 2713.96 → 2714;
-- protein 126; fat 2714·0.25/9 = 75.4 → 75; carbs (2714 − 504 − 675)/4 = 383.75 → 384.
select is(app.compute_targets('{"sex": "female", "age_years": 35, "height_cm": 170, "weight_kg": 70, "body_fat_pct": 30,
    "activity_level": "very_active", "goal_type": "maintaining", "goal_rate_per_week": 0}')
    - 'activity_factor',
  '{"formula_version": 1, "bmr_formula": "katch_mcardle", "bmi": 24.2, "bmr": 1428, "tdee": 2714,
    "calories": 2714, "protein_g": 126, "fat_g": 75, "carbs_g": 384, "warnings": []}',
  'female, Katch-McArdle, maintaining');
-- Calorie floor: 450 + 937.5 − 300 − 161 = 926.5; × 1.2 = 1111.8; − 1100 = 12 → floored to 1200 (female).
select is(app.compute_targets('{"sex": "female", "age_years": 60, "height_cm": 150, "weight_kg": 45,
    "activity_level": "sedentary", "goal_type": "cutting", "goal_rate_per_week": -1}') -> 'calories',
  '1200', 'the female calorie floor is 1200');
select is(app.compute_targets('{"sex": "female", "age_years": 60, "height_cm": 150, "weight_kg": 45,
    "activity_level": "sedentary", "goal_type": "cutting", "goal_rate_per_week": -1}') -> 'warnings' -> 0 ->> 'code',
  'calorie_floor_applied', 'and applying it is a warning');
select is(app.compute_targets('{"sex": "male", "age_years": 60, "height_cm": 160, "weight_kg": 50,
    "activity_level": "sedentary", "goal_type": "cutting", "goal_rate_per_week": -2}') -> 'calories',
  '1500', 'the male calorie floor is 1500');

-- Found at once, whatever the time zones ----------------------------------------------------------
-- The server's TimeZone is 14 hours ahead of UTC, the user lives 11 hours behind it: their
-- dates differ, and the latest metrics must still be found right after onboarding.
set local timezone = 'Pacific/Kiritimati';
create temporary table t (key text primary key, token text);
insert into t select 'ann', auth.start_session((auth.create_account('tz-ann@example.com', 'zone test 1', null)).id);
select lives_ok($$select api.onboarding_complete((select token from t where key = 'ann'),
  '{"goal_type": "cutting", "goal_rate_per_week": -0.5, "height_cm": 180, "weight_kg": 80, "age_years": 30,
    "sex": "male", "activity_level": "moderate", "timezone": "Pacific/Pago_Pago"}', '{}')$$, 'onboarding');
select is(api.metrics_today((select token from t where key = 'ann'), null, '{}') -> 'metrics' ->> 'bmr', '1780',
  'the metrics are found immediately, in the same transaction as onboarding');
select is((api.metrics_today((select token from t where key = 'ann'), null, '{}') -> 'metrics' ->> 'is_recent')::boolean, true,
  'and are recent');
select is(api.metrics_today((select token from t where key = 'ann'), null, '{}') -> 'explanations' ->> 'bmr',
  'Mifflin-St Jeor for a 30-year-old male, 180 cm and 80 kg: 1780 kcal a day at rest.',
  'the explanation quotes the user''s own numbers');

-- Metrics computed at 23:59:59 in the user's zone (the next day in UTC and two days on in
-- the server's zone) are still the latest, and are found as such.
insert into t select 'bob', auth.start_session((auth.create_account('tz-bob@example.com', 'zone test 2', null)).id);
select api.onboarding_complete((select token from t where key = 'bob'),
  '{"goal_type": "maintaining", "goal_rate_per_week": 0, "height_cm": 170, "weight_kg": 70, "age_years": 40,
    "sex": "female", "activity_level": "light", "timezone": "Pacific/Pago_Pago"}', '{}');
update app.health_metrics set computed_at = '2026-03-01 23:59:59 Pacific/Pago_Pago'
 where user_id = (select user_id from auth.sessions where token_hash = auth.token_hash((select token from t where key = 'bob')));
select is((api.metrics_today((select token from t where key = 'bob'), null, '{}') -> 'metrics' ->> 'computed_at')::timestamptz,
  '2026-03-01 23:59:59 Pacific/Pago_Pago'::timestamptz, 'metrics from 23:59:59 local time are found, never filtered by date');
select is((api.metrics_today((select token from t where key = 'bob'), null, '{}') -> 'metrics' ->> 'is_recent')::boolean, false,
  'and are not recent');
insert into t select 'new', auth.start_session((auth.create_account('tz-new@example.com', 'zone test 3', null)).id);
select throws_ok(format('select api.metrics_today(%L, null, ''{}'')', (select token from t where key = 'new')),
  'LB404', 'No health metrics yet: complete onboarding first.', '404 only for a user who never had metrics');

-- Acknowledgement ----------------------------------------------------------------------------------
create temporary table ack (n integer primary key, answer jsonb);
insert into ack select 1, api.metrics_acknowledge((select token from t where key = 'ann'),
  jsonb_build_object('version', 1, 'metrics_computed_at',
    api.metrics_today((select token from t where key = 'ann'), null, '{}') -> 'metrics' -> 'computed_at'), '{}');
select is((select answer ->> 'acknowledged' from ack where n = 1), 'true', 'the latest metrics are acknowledged');
select pg_sleep(0.01);
insert into ack select 2, api.metrics_acknowledge((select token from t where key = 'ann'),
  jsonb_build_object('version', 1, 'metrics_computed_at',
    api.metrics_today((select token from t where key = 'ann'), null, '{}') -> 'metrics' -> 'computed_at'), '{}');
select is((select answer from ack where n = 2), (select answer from ack where n = 1),
  'acknowledging again is idempotent: the same acknowledged_at');
select is(api.metrics_today((select token from t where key = 'ann'), null, '{}') -> 'acknowledgement',
  (select answer -> 'acknowledgement' from ack where n = 1), 'GET shows the acknowledgement');
select throws_ok(format('select api.metrics_acknowledge(%L, %L, ''{}'')', (select token from t where key = 'ann'),
    '{"version": 1, "metrics_computed_at": "2020-01-01T00:00:00Z"}'),
  'LB409', 'These are not the latest metrics: fetch them again.', 'acknowledging anything but the latest is 409');
select throws_ok(format('select api.metrics_acknowledge(%L, %L, ''{}'')', (select token from t where key = 'ann'), '{}'),
  'LB422', 'Some fields are invalid.', 'version and metrics_computed_at are required');

-- New body stats recompute in the same transaction; the new metrics need a new acknowledgement.
select is(api.body_metrics_add((select token from t where key = 'ann'), '{"weight_kg": 78}', '{}') -> 'metrics' ->> 'bmr',
  '1760', 'POST /user/metrics recomputes (10 kg·2 less → 20 kcal less)');
select is((api.metrics_today((select token from t where key = 'ann'), null, '{}') ->> 'acknowledged')::boolean, false,
  'new metrics are not acknowledged yet');
select is(api.goals_put((select token from t where key = 'ann'), '{"goal_type": "maintaining", "goal_rate_per_week": 0}', '{}')
    -> 'snapshot' ->> 'calories', round(1760 * 1.55)::text, 'PUT /user/goals recomputes the targets');

-- The daily recompute appends only when something changed ---------------------------------------
select is(app.recompute_targets(array(select user_id from auth.sessions where token_hash = auth.token_hash((select token from t where key = 'ann')))),
  0, 'recompute appends nothing when nothing changed');
update app.user_profiles set age_recorded_on = age_recorded_on - interval '1 year'
 where user_id = (select user_id from auth.sessions where token_hash = auth.token_hash((select token from t where key = 'ann')));
select is(app.recompute_targets(array(select user_id from auth.sessions where token_hash = auth.token_hash((select token from t where key = 'ann')))),
  1, 'a birthday later, recompute appends new metrics');
select is(api.metrics_today((select token from t where key = 'ann'), null, '{}') -> 'metrics' ->> 'bmr', '1755',
  'with the new age (31: 5 kcal less)');

-- Target overrides ---------------------------------------------------------------------------------
select is(api.targets_put((select token from t where key = 'ann'), '{"calories": 2500, "protein_g": 180}', '{}')
    - 'computed' - 'overrides',
  jsonb_build_object('calories', 2500, 'protein_g', 180,
    'carbs_g', (select carbs_g from app.target_snapshots where user_id = app.current_user_id() order by id desc limit 1),
    'fat_g', (select fat_g from app.target_snapshots where user_id = app.current_user_id() order by id desc limit 1),
    -- Water from the latest weigh-in, 78 kg: 35 ml/kg is 2730 ml, 2750 to the nearest 50.
    'water_ml', 2750,
    'source', '{"calories": "override", "protein_g": "override", "carbs_g": "computed", "fat_g": "computed",
                "water_ml": "computed"}'::jsonb),
  'an override wins over the snapshot, field by field');
select is(api.targets_put((select token from t where key = 'ann'), '{"calories": null}', '{}') -> 'source' ->> 'calories',
  'computed', 'null clears an override');

-- "The latest" is by computed_at, whatever the ids: an import brings rows computed before
-- the ones already there, with higher ids. Targets, metrics and the unchanged-targets test
-- of the daily recompute all read the same row.
create temporary table ann as select user_id from auth.sessions where token_hash = auth.token_hash((select token from t where key = 'ann'));
select api.targets_put((select token from t where key = 'ann'), '{"protein_g": null}', '{}');
insert into app.target_snapshots (user_id, computed_at, reason, formula_version, bmr_formula, calories, protein_g, carbs_g,
                                  fat_g, warnings, input_parameters)
select user_id, '2020-01-01', 'onboarding', 1, 'mifflin_st_jeor', 1111, 11, 11, 11, '[]', '{}' from ann;
insert into app.health_metrics (user_id, computed_at, version, bmi, bmr, tdee, inputs, snapshot_id)
select user_id, '2020-01-01', 1, 20, 1111, 1111, '{}', (select max(id) from app.target_snapshots) from ann;
select isnt(app.effective_targets((select user_id from ann)) -> 'computed' ->> 'calories', '1111',
  'an older snapshot with a higher id is not the latest target');
select isnt(api.metrics_today((select token from t where key = 'ann'), null, '{}') -> 'metrics' ->> 'bmr', '1111',
  'nor are older metrics with a higher id the latest metrics');
select is(app.recompute_targets(array(select user_id from ann)), 0,
  'the daily recompute compares with the latest by computed_at: nothing changed, nothing appended');

select * from finish();
rollback;
