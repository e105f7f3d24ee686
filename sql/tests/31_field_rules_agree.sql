-- Property 5: onboarding and the individual endpoints (PUT /user/profile, PUT /user/goals,
-- POST /user/metrics) accept and reject exactly the same values, with the same messages
-- (120 random cases, fixed seed).
begin;
\ir support/helpers.psql
select plan(4);
select setseed(0.5150);

-- The field problems of an api call, its writes undone: {} when it succeeds.
create function pg_temp.field_problems_of(p_function text, p_token text, p_body jsonb) returns jsonb
language sql as $$
  select case when (o ->> 'ok')::boolean then '{}'::jsonb
              when o ->> 'state' = 'LB422' then o -> 'detail' -> 'fields'
              else jsonb_build_object('unexpected', o ->> 'state') end
    from pg_temp.outcome_of(p_function, p_token, p_body) as o
$$;

-- Field problems restricted to some fields.
create function pg_temp.only(p_problems jsonb, p_fields text[]) returns jsonb
language sql immutable as $$
  select coalesce(jsonb_object_agg(k, v), '{}') from jsonb_each(p_problems) as e (k, v) where k = any (p_fields)
$$;

-- One user who will try onboarding, one already onboarded for the individual endpoints.
create temporary table tokens as
select auth.start_session((auth.create_account('agree-new@example.com', 'property test', null)).id) as fresh,
       auth.start_session((auth.create_account('agree-old@example.com', 'property test', null)).id) as onboarded;
select api.onboarding_complete((select onboarded from tokens),
  '{"goal_type": "maintaining", "goal_rate_per_week": 0, "height_cm": 170, "weight_kg": 70, "age_years": 40,
    "sex": "female", "activity_level": "light"}', '{}');

-- Each field is valid or not at random; a case's noise decides how often it is not, so
-- some cases are entirely valid and others wrong in many fields at once.
create function pg_temp.field(p_noise numeric, p_valid jsonb, p_invalid jsonb) returns jsonb
language sql volatile as $$
  select case when random() < p_noise then pg_temp.pick(p_invalid) else pg_temp.pick(p_valid) end
$$;

create temporary table cases as
select n,
       jsonb_build_object(
         'goal_type', pg_temp.field(noise, '["cutting", "maintaining", "bulking"]', '["recomp", 3, ""]'),
         'goal_rate_per_week', pg_temp.field(noise, '[-2, -0.75, 0, 0.5, 2]', '[-2.01, 2.01, "0.5", true]'),
         'height_cm', pg_temp.field(noise, jsonb_build_array(100, 250, round((100 + random() * 150)::numeric, 1)),
                                           '[99.9, 250.1, "180", 0]'),
         'weight_kg', pg_temp.field(noise, jsonb_build_array(30, 300, round((30 + random() * 270)::numeric, 1)),
                                           '[29.9, 300.1, "70", -1]'),
         'body_fat_pct', pg_temp.field(noise, '[3, 60, 18.5, null]', '[2.9, 60.1, "20"]'),
         'sex', pg_temp.field(noise, '["male", "female"]', '["other", "", 1]'),
         'activity_level', pg_temp.field(noise, '["sedentary", "light", "moderate", "active", "very_active"]', '["extreme", "Light"]'),
         'timezone', pg_temp.field(noise, '["Europe/Berlin", "America/Argentina/Buenos_Aires", "UTC", "Pacific/Kiritimati"]',
                                          '["Mars/Olympus", "UTC+5", "EST", 5]'),
         'unit_system', pg_temp.field(noise, '["metric", "imperial"]', '["cubits", ""]'))
       || case when random() < 0.5
               then jsonb_build_object('age_years', pg_temp.field(noise, '[13, 120, 35]', '[12, 121, 30.5, "30"]'))
               else jsonb_build_object('date_of_birth', pg_temp.field(noise, '["1990-02-28", "2000-01-01", "1930-06-15"]',
                                                                       '["2020-01-01", "1899-12-31", "1990-02-30", "yesterday", 19900101]')) end
         as body
  from (select n, (array[0, 0.1, 0.3, 0.6])[1 + floor(random() * 4)::integer] as noise
          from generate_series(1, 120) as n) as c;

create temporary table outcomes as
select n, body,
       pg_temp.field_problems_of('onboarding_complete', (select fresh from tokens), body) as onboarding,
       pg_temp.field_problems_of('profile_put', (select onboarded from tokens), body) as profile,
       pg_temp.field_problems_of('goals_put', (select onboarded from tokens), body) as goals,
       pg_temp.field_problems_of('body_metrics_add', (select onboarded from tokens), body) as metrics
  from cases;

select is((select count(*)::integer from outcomes
            where pg_temp.only(onboarding, array['sex', 'height_cm', 'age_years', 'date_of_birth', 'activity_level',
                                                 'timezone', 'unit_system', 'display_name']) <> profile), 0,
  'PUT /user/profile rejects exactly the profile values onboarding rejects, with the same messages');
select is((select count(*)::integer from outcomes
            where pg_temp.only(onboarding, array['goal_type', 'goal_rate_per_week']) <> goals), 0,
  'PUT /user/goals rejects exactly the goal values onboarding rejects');
select is((select count(*)::integer from outcomes
            where pg_temp.only(onboarding, array['weight_kg', 'body_fat_pct', 'height_cm']) <> metrics), 0,
  'POST /user/metrics rejects exactly the body-stats values onboarding rejects');
select ok((select count(*) filter (where onboarding = '{}') > 0 and count(*) filter (where onboarding <> '{}') > 0
             and count(*) filter (where profile = '{}') > 0 and count(*) filter (where goals = '{}') > 0
             and count(*) filter (where metrics = '{}') > 0 from outcomes),
  'the random cases include accepted and rejected values for every endpoint');

select * from finish();
rollback;
