-- Onboarding properties on random inputs (fixed seed, ≥ 100 cases each):
--   1. needs_onboarding is true exactly when the user has no goal;
--   2. body stats are accepted exactly inside the ranges; every rejection names its field;
--   3. a valid onboarding creates all records, an invalid one none;
--   4. the snapshot's input_parameters equal the submitted values;
--   5. onboarding and the individual endpoints accept and reject exactly the same values.
begin;
\ir support/helpers.psql
select plan(8);
select setseed(0.20261122);

-- A value near the edges of [p_low, p_high] or anywhere around it, with p_digits decimals.
create function pg_temp.around(p_low numeric, p_high numeric, p_digits integer) returns jsonb
language sql volatile as $$
  select to_jsonb(case floor(random() * 6)::integer
    when 0 then p_low when 1 then p_high
    when 2 then p_low - 1 / 10.0 ^ p_digits when 3 then p_high + 1 / 10.0 ^ p_digits
    else round((p_low - (p_high - p_low) / 4 + random() * (p_high - p_low) * 1.5)::numeric, p_digits) end)
$$;

-- A new account and a session token for it.
create function pg_temp.new_user() returns text
language plpgsql as $$
declare v_user auth.users := auth.create_account('prop-' || gen_random_uuid() || '@example.com', 'property test', null);
begin
  return auth.start_session(v_user.id);
end $$;

-- The rows a user owns in every onboarding table.
create function pg_temp.row_counts(p_token text) returns jsonb
language sql as $$
  select jsonb_build_object(
    'profiles', (select count(*) from app.user_profiles where user_id = s.user_id),
    'body_metrics', (select count(*) from app.body_metrics where user_id = s.user_id),
    'goals', (select count(*) from app.goals where user_id = s.user_id),
    'snapshots', (select count(*) from app.target_snapshots where user_id = s.user_id),
    'health_metrics', (select count(*) from app.health_metrics where user_id = s.user_id))
  from auth.sessions as s where s.token_hash = auth.token_hash(p_token)
$$;

-- A valid onboarding body with random values.
create function pg_temp.valid_body() returns jsonb
language plpgsql volatile as $$
declare
  v_goal text := pg_temp.pick('["cutting", "maintaining", "bulking"]') #>> '{}';
begin
  return jsonb_build_object(
    'goal_type', v_goal,
    'goal_rate_per_week', case v_goal when 'cutting' then -round((random() * 2)::numeric, 2)
                                      when 'bulking' then round((random() * 2)::numeric, 2) else 0 end,
    'height_cm', round((100 + random() * 150)::numeric, 1),
    'weight_kg', round((30 + random() * 270)::numeric, 1),
    'age_years', 13 + floor(random() * 108)::integer,
    'sex', pg_temp.pick('["male", "female"]'),
    'activity_level', pg_temp.pick('["sedentary", "light", "moderate", "active", "very_active"]'))
    || case when random() < 0.5 then jsonb_build_object('body_fat_pct', round((3 + random() * 57)::numeric, 1)) else '{}' end;
end $$;

create temporary table cases (n integer primary key, token text, body jsonb, outcome jsonb, counts_after jsonb);

-- Property 2 and 3: random body stats around their ranges, everything else valid.
insert into cases (n, token, body)
select n, pg_temp.new_user(),
       pg_temp.valid_body()
       || jsonb_build_object('height_cm', pg_temp.around(100, 250, 1), 'weight_kg', pg_temp.around(30, 300, 1),
                             'age_years', pg_temp.around(13, 120, 0))
       || case when random() < 0.3 then '{}'::jsonb else jsonb_build_object('body_fat_pct', pg_temp.around(3, 60, 1)) end
  from generate_series(1, 120) as n;
update cases set outcome = pg_temp.outcome_of('onboarding_complete', token, body);
update cases set counts_after = pg_temp.row_counts(token);

create temporary view expected as
select n, outcome,
       coalesce((select jsonb_agg(f order by f) from unnest(array[
         case when (body ->> 'height_cm')::numeric not between 100 and 250 then 'height_cm' end,
         case when (body ->> 'weight_kg')::numeric not between 30 and 300 then 'weight_kg' end,
         case when (body ->> 'age_years')::numeric not between 13 and 120 then 'age_years' end,
         case when (body ->> 'body_fat_pct')::numeric not between 3 and 60 then 'body_fat_pct' end]) as f
         where f is not null), '[]') as out_of_range,
       coalesce((select jsonb_agg(k order by k) from jsonb_object_keys(outcome -> 'detail' -> 'fields') as k), '[]') as rejected
  from cases;

select is((select count(*)::integer from expected where (out_of_range = '[]') <> (outcome ->> 'ok')::boolean), 0,
  'body stats are accepted exactly inside the ranges (120 random cases)');
select is((select count(*)::integer from expected where not (outcome ->> 'ok')::boolean and rejected <> out_of_range), 0,
  'every rejection names exactly the fields out of range');
select ok((select count(*) filter (where (outcome ->> 'ok')::boolean) between 10 and 110 from cases),
  'the random cases include both accepted and rejected onboardings');
select is((select count(*)::integer from cases where (outcome ->> 'ok')::boolean
             and (select count(*) from jsonb_each(outcome -> 'result') as e (k, v)
                   where k in ('profile', 'goals', 'snapshot', 'metrics') and v <> 'null') <> 4), 0,
  'a valid onboarding answers with profile, goals, snapshot and metrics');
select is((select count(*)::integer from cases where counts_after <> '{"profiles": 0, "body_metrics": 0, "goals": 0, "snapshots": 0, "health_metrics": 0}'), 0,
  'an invalid onboarding (and an undone valid one) leaves no row');

-- Property 3 and 4 on onboardings that are kept.
create temporary table kept (n integer primary key, token text, body jsonb, result jsonb);
insert into kept (n, token, body) select n, pg_temp.new_user(), pg_temp.valid_body() from generate_series(1, 100) as n;
update kept set result = api.onboarding_complete(token, body, '{}');
select is((select count(*)::integer from kept where pg_temp.row_counts(token)
             <> '{"profiles": 1, "body_metrics": 1, "goals": 1, "snapshots": 1, "health_metrics": 1}'), 0,
  'a valid onboarding creates profile, body metric, goal, snapshot and health metrics (100 cases)');
select is((select count(*)::integer from kept
            where (select jsonb_object_agg(k, v) from jsonb_each(result -> 'snapshot' -> 'input_parameters') as e (k, v)
                    where body ? k or v <> 'null') is distinct from body), 0,
  'the snapshot''s input_parameters equal the submitted values (100 cases)');

-- Property 1: after random onboardings, failed onboardings and goal-less users.
create temporary table people (token text, onboarded boolean);
insert into people select token, true from kept where n <= 40;
insert into people select token, false from cases where not (outcome ->> 'ok')::boolean;
insert into people select pg_temp.new_user(), false from generate_series(1, 30);
select is((select count(*)::integer from people as p
            where (api.me(p.token, null, '{}') ->> 'needs_onboarding')::boolean
                  <> not exists (select from app.goals as g join auth.sessions as s on s.user_id = g.user_id
                                  where s.token_hash = auth.token_hash(p.token))
               or (api.me(p.token, null, '{}') ->> 'needs_onboarding')::boolean = p.onboarded), 0,
  format('needs_onboarding is true exactly when the user has no goal (%s users)', (select count(*) from people)));

select * from finish();
rollback;
