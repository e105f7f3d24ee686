-- The reporting schema: who may read what (migration 0014, sql/functions/reporting_views.sql)
-- and every report's values on an empty database and on a small hand-checked fixture.
begin;
\ir support/helpers.psql
select plan(28);

-- Permissions ------------------------------------------------------------------------------

select set_eq(
  $$select c.relname::text from pg_class as c join pg_namespace as n on n.oid = c.relnamespace
     where n.nspname = 'reporting' and c.relkind = 'v'$$,
  array['daily_active_users', 'onboarding_funnel', 'metrics_acknowledgement_rate',
        'nutrition_target_adherence', 'weekly_training_volume', 'import_outcomes', 'security_events'],
  'the reporting schema has the seven documented views');

select is(
  (select array_agg(c.relname order by c.relname) from pg_class as c join pg_namespace as n on n.oid = c.relnamespace
    where n.nspname = 'reporting' and c.relkind = 'v'
      and not (has_table_privilege('liftbase_reporter', c.oid, 'select')
               and coalesce(obj_description(c.oid, 'pg_class'), '') <> ''
               and pg_get_userbyid(c.relowner) = 'liftbase_reporting_owner')),
  null,
  'every reporting view is owned by liftbase_reporting_owner, commented, and selectable by the reporter');

select is(
  (select array_agg(c.relname || '.' || a.attname order by c.relname, a.attnum)
     from pg_class as c join pg_namespace as n on n.oid = c.relnamespace and n.nspname = 'reporting'
     join pg_attribute as a on a.attrelid = c.oid and a.attnum > 0
    where c.relkind = 'v' and col_description(c.oid, a.attnum) is null),
  null,
  'every column of every reporting view is commented');

select is(
  (select array_agg(n.nspname || '.' || c.relname || ':' || p.privilege_type order by 1)
     from pg_class as c
     join pg_namespace as n on n.oid = c.relnamespace and n.nspname in ('app', 'auth', 'liftbase_meta', 'staging')
    cross join lateral (values ('SELECT'), ('INSERT'), ('UPDATE'), ('DELETE')) as p (privilege_type)
    where c.relkind in ('r', 'p', 'v', 'm', 'f')
      and has_table_privilege('liftbase_reporter', c.oid, p.privilege_type)),
  null,
  'the reporter has no privilege on any app, auth or bookkeeping table');

select is(
  (select array_agg(c.relname || ':' || p.privilege_type order by 1)
     from pg_class as c join pg_namespace as n on n.oid = c.relnamespace and n.nspname = 'reporting'
    cross join lateral (values ('SELECT'), ('INSERT'), ('UPDATE'), ('DELETE')) as p (privilege_type)
    where has_table_privilege('liftbase_api', c.oid, p.privilege_type)),
  null,
  'the API role has no privilege on any reporting view');

select ok(not has_schema_privilege('liftbase_api', 'reporting', 'usage'), 'the API role cannot even use the reporting schema');

select is(
  (select array_agg(r order by r) from unnest(array['liftbase_owner', 'liftbase_api', 'liftbase_reporter']) as r
    where pg_has_role(r, 'liftbase_reporting_owner', 'member')),
  null,
  'no Liftbase role is a member of liftbase_reporting_owner, so none acts with its policies');

select is(
  (select array_agg(p.polrelid::regclass::text || ':' || p.polname order by 1) from pg_policy as p
    where 'liftbase_reporting_owner'::regrole = any (p.polroles)
      and not (p.polcmd = 'r' and p.polroles = array['liftbase_reporting_owner'::regrole::oid])),
  null,
  'every policy naming the reporting owner is select-only and for that role alone');

select is(
  (select array_agg(c.oid::regclass::text || ':' || p.privilege_type order by 1)
     from pg_class as c join pg_namespace as n on n.oid = c.relnamespace and n.nspname in ('app', 'auth')
    cross join lateral (values ('INSERT'), ('UPDATE'), ('DELETE'), ('TRUNCATE')) as p (privilege_type)
    where c.relkind in ('r', 'p') and has_table_privilege('liftbase_reporting_owner', c.oid, p.privilege_type)),
  null,
  'the reporting owner can write nothing');

select is(
  (select array_agg(p.oid::regprocedure::text) from pg_proc as p
    where p.prosecdef and p.proowner = 'liftbase_reporting_owner'::regrole
      and (has_function_privilege('liftbase_api', p.oid, 'execute') or has_function_privilege('public', p.oid, 'execute'))),
  null,
  'the API role cannot run the reporting owner''s SECURITY DEFINER functions');

select ok(not has_column_privilege('liftbase_reporting_owner', 'auth.users', 'email', 'select')
          and not has_column_privilege('liftbase_reporting_owner', 'auth.users', 'password_hash', 'select'),
  'the reporting owner reads no email or password hash');

set local role liftbase_reporter;
select throws_ok('select count(*) from app.food_entries', '42501', null, 'the reporter cannot read app tables');
select throws_ok('select count(*) from auth.users', '42501', null, 'the reporter cannot read auth tables');
reset role;
set local role liftbase_api;
select throws_ok('select count(*) from reporting.import_outcomes', '42501', null, 'the API role cannot read reports');
reset role;

-- Empty database -----------------------------------------------------------------------------

delete from auth.users;
set local role liftbase_reporter;
select is(
  (select array[(select count(*) from reporting.daily_active_users), (select count(*) from reporting.onboarding_funnel),
                (select count(*) from reporting.metrics_acknowledgement_rate),
                (select count(*) from reporting.nutrition_target_adherence),
                (select count(*) from reporting.weekly_training_volume), (select count(*) from reporting.import_outcomes)]),
  array[0, 0, 0, 0, 0, 0]::bigint[],
  'every report runs on an empty database and returns no rows');
reset role;

-- Fixture ------------------------------------------------------------------------------------
-- a: registered 2030-01-06 10:00 UTC, New York time, onboarded and set up, target 2000 kcal.
-- b: registered 2030-01-06 23:30 UTC, computed target 2500 kcal overridden to 1800.
-- c: registered 2030-01-07 00:30 UTC, never onboarded (no target).

insert into auth.users (id, email, password_hash, created_at) values
  ('00000000-0000-0000-0000-00000000000a', 'report-a@example.com', 'x', '2030-01-06 10:00+00'),
  ('00000000-0000-0000-0000-00000000000b', 'report-b@example.com', 'x', '2030-01-06 23:30+00'),
  ('00000000-0000-0000-0000-00000000000c', 'report-c@example.com', 'x', '2030-01-07 00:30+00');
create temporary table ids (name text primary key, id uuid);
insert into ids select chr(96 + n), ('00000000-0000-0000-0000-00000000000' || chr(96 + n))::uuid from generate_series(1, 3) as n;

-- Every account has its settings from its creation (auth.create_account).
insert into app.user_settings (user_id, timezone) values
  ((select id from ids where name = 'a'), 'America/New_York'), ((select id from ids where name = 'b'), 'UTC'),
  ((select id from ids where name = 'c'), 'UTC');
insert into app.user_profiles (user_id, sex, date_of_birth, height_cm, activity_level)
select id, 'female', '1990-01-01', 170, 'moderate' from ids where name in ('a', 'b');
insert into app.goals (user_id, goal_type, goal_rate_per_week) select id, 'maintaining', 0 from ids where name in ('a', 'b');
insert into app.user_setup (user_id) select id from ids where name = 'a';

insert into app.target_snapshots (user_id, computed_at, reason, formula_version, bmr_formula, calories, protein_g,
                                  carbs_g, fat_g, input_parameters)
select id, case name when 'a' then '2030-01-06 10:05+00'::timestamptz else '2030-01-06 23:45+00' end, 'onboarding', 1,
       'mifflin_st_jeor', case name when 'a' then 2000 else 2500 end, 120, 200, 60, '{}'
  from ids where name in ('a', 'b');
insert into app.target_overrides (user_id, calories) select id, 1800 from ids where name = 'b';

-- Health metrics: a's of 2030-01-06 and 2030-01-08 acknowledged, b's of 2030-01-06 not.
insert into app.health_metrics (user_id, computed_at, version, bmi, bmr, tdee, inputs, snapshot_id)
select s.user_id, m.at, 1, 22.0, 1400, 2000, '{}', s.id
  from app.target_snapshots as s
  join (values ('a', '2030-01-06 10:05+00'::timestamptz), ('a', '2030-01-08 12:00+00'), ('b', '2030-01-06 23:45+00')) as m (name, at)
    on s.user_id = (select id from ids where name = m.name);
insert into app.metrics_acknowledgements (user_id, health_metric_id, version)
select h.user_id, h.id, 1 from app.health_metrics as h where h.user_id = (select id from ids where name = 'a');

-- Diary (kcal): a 1000+900 | 2100 | 2200 against 2000; b 2000 | 1700 | 1620 against 1800; c 500 without target.
insert into app.food_entries (user_id, entry_date, name, calories, protein_g, carbs_g, fat_g, source)
select (select id from ids where name = f.name), f.day, 'fixture food', f.kcal, 0, 0, 0, 'manual'
  from (values ('a', date '2030-01-07', 1000), ('a', '2030-01-07', 900), ('a', '2030-01-08', 2100), ('a', '2030-01-09', 2200),
               ('b', '2030-01-07', 2000), ('b', '2030-01-08', 1700), ('b', '2030-01-09', 1620),
               ('c', '2030-01-08', 500)) as f (name, day, kcal);

-- Body stats at 2030-01-10 03:00 UTC: 2030-01-09 in New York (a), 2030-01-10 in UTC (b).
insert into app.body_metrics (user_id, recorded_at, weight_kg)
select id, '2030-01-10 03:00+00', 70 from ids where name in ('a', 'b');

-- Training: own exercises with known muscles; 2030-01-07 and 2030-01-14 are Mondays.
insert into app.user_exercises (user_id, id, name, primary_muscles, secondary_muscles) values
  ((select id from ids where name = 'a'), '00000000-0000-0000-0001-000000000001', 'Fixture Press', '{chest}', '{triceps,shoulders}'),
  ((select id from ids where name = 'a'), '00000000-0000-0000-0001-000000000002', 'Fixture Squat', '{quadriceps}', '{glutes,chest}'),
  ((select id from ids where name = 'b'), '00000000-0000-0000-0001-000000000003', 'Fixture Fly', '{chest}', '{triceps}'),
  ((select id from ids where name = 'c'), '00000000-0000-0000-0001-000000000004', 'Fixture Curl', '{biceps}', '{}');
insert into app.training_sessions (user_id, id, session_date, status) values
  ((select id from ids where name = 'a'), '00000000-0000-0000-0002-000000000001', '2030-01-07', 'completed'),
  ((select id from ids where name = 'b'), '00000000-0000-0000-0002-000000000002', '2030-01-14', 'completed'),
  ((select id from ids where name = 'c'), '00000000-0000-0000-0002-000000000003', '2030-01-10', 'in_progress');
insert into app.session_exercises (user_id, session_id, position, user_exercise_id, exercise_name)
select t.user_id, t.id, x.position, x.exercise, 'fixture'
  from app.training_sessions as t
  join (values ('00000000-0000-0000-0002-000000000001'::uuid, 1, '00000000-0000-0000-0001-000000000001'::uuid),
               ('00000000-0000-0000-0002-000000000001', 2, '00000000-0000-0000-0001-000000000002'),
               ('00000000-0000-0000-0002-000000000002', 1, '00000000-0000-0000-0001-000000000003'),
               ('00000000-0000-0000-0002-000000000003', 1, '00000000-0000-0000-0001-000000000004')) as x (session, position, exercise)
    on x.session = t.id;
-- a: press warm-up + working + working + failure (3 count), squat 2 working; b: fly 2 drop sets;
-- c: 5 curls in a session still in progress (not counted).
insert into app.session_sets (user_id, session_id, exercise_position, position, reps, weight_kg, set_type)
select t.user_id, t.id, s.exercise, s.position, 5, 50, s.kind
  from app.training_sessions as t
  join (values ('00000000-0000-0000-0002-000000000001'::uuid, 1, 1, 'warmup'), ('00000000-0000-0000-0002-000000000001', 1, 2, 'working'),
               ('00000000-0000-0000-0002-000000000001', 1, 3, 'working'), ('00000000-0000-0000-0002-000000000001', 1, 4, 'failure'),
               ('00000000-0000-0000-0002-000000000001', 2, 1, 'working'), ('00000000-0000-0000-0002-000000000001', 2, 2, 'working'),
               ('00000000-0000-0000-0002-000000000002', 1, 1, 'dropset'), ('00000000-0000-0000-0002-000000000002', 1, 2, 'dropset'),
               ('00000000-0000-0000-0002-000000000003', 1, 1, 'working'), ('00000000-0000-0000-0002-000000000003', 1, 2, 'working'),
               ('00000000-0000-0000-0002-000000000003', 1, 3, 'working'), ('00000000-0000-0000-0002-000000000003', 1, 4, 'working'),
               ('00000000-0000-0000-0002-000000000003', 1, 5, 'working')) as s (session, exercise, position, kind)
    on s.session = t.id;
-- The per-exercise totals weekly volume reads, kept as every writer of sets keeps them.
select app.refresh_session_totals(t.user_id, t.id) from app.training_sessions as t;

-- Imports: 2030-01-07 23:59:59 and 2030-01-08 00:00:01 UTC fall on two days.
insert into app.import_runs (user_id, format, file_sha256, dry_run, imported, skipped_duplicates, error_count, created_at)
select (select id from ids where name = r.name), r.format, 'sha', r.dry, r.imported, r.skipped, r.errors, r.at
  from (values ('a', 'strong', false, 10, 2, 0, '2030-01-07 09:00+00'::timestamptz),
               ('a', 'strong', true, 10, 0, 3, '2030-01-07 10:00+00'),
               ('b', 'hevy', false, 5, 1, 1, '2030-01-07 23:59:59+00'),
               ('b', 'strong', false, 1, 0, 0, '2030-01-08 00:00:01+00')) as r (name, format, dry, imported, skipped, errors, at);

-- Populated database -------------------------------------------------------------------------

set local role liftbase_reporter;

-- 01-07: a (food, training), b (food). 01-08: a, b, c (food). 01-09: a, b (food) + a's body
-- stats (New York). 01-10: b (body stats, UTC), c (session in progress). 01-14: b (training).
select is(
  (select array_agg(v::text order by v.day) from reporting.daily_active_users as v),
  array['(2030-01-07,2,2,1,0)', '(2030-01-08,3,3,0,0)', '(2030-01-09,2,2,0,1)', '(2030-01-10,2,0,1,1)',
        '(2030-01-14,1,0,1,0)'],
  'daily active users: any of food, training, body stats; body stats by the user''s local day');

-- 2030-01-06: a, b registered; both onboarded; a set up; both logged food and completed a workout.
-- 2030-01-07: c registered, logged food, has only a session in progress.
select is(
  (select array_agg(v::text order by v.cohort_day) from reporting.onboarding_funnel as v),
  array['(2030-01-06,2,2,1,2,2)', '(2030-01-07,1,0,0,1,0)'],
  'onboarding funnel by UTC registration day');

select is(
  (select array_agg(v::text order by v.day) from reporting.metrics_acknowledgement_rate as v),
  array['(2030-01-06,2,1,50.0)', '(2030-01-08,1,1,100.0)'],
  'metrics acknowledgement rate per day computed');

-- Targets: a 2000 (±200), b's override 1800 (±180).
-- 01-07: a 1900 in, b 2000 out (|200| > 180)     → 1 of 2
-- 01-08: a 2100 in, b 1700 in, c has no target     → 2 of 2, 3 logged
-- 01-09: a 2200 and b 1620 on the boundary, both in → 2 of 2
select is(
  (select array_agg(v::text order by v.day) from reporting.nutrition_target_adherence as v),
  array['(2030-01-07,2,2,1,50.0)', '(2030-01-08,3,2,2,100.0)', '(2030-01-09,2,2,2,100.0)'],
  'nutrition adherence: within ±10 % inclusive of the effective (overridden) target');

-- Week of 2030-01-07 (a): press 3 sets → chest 3, triceps 1.5, shoulders 1.5; squat 2 sets →
-- quadriceps 2, glutes 1, chest 1 (secondary) → chest 4. Week of 2030-01-14 (b): fly 2 drop
-- sets → chest 2, triceps 1. c's session is in progress: no biceps.
select is(
  (select array_agg(v::text order by v.week, v.muscle) from reporting.weekly_training_volume as v),
  array['(2030-01-07,chest,4.0,1)', '(2030-01-07,glutes,1.0,1)', '(2030-01-07,quadriceps,2.0,1)',
        '(2030-01-07,shoulders,1.5,1)', '(2030-01-07,triceps,1.5,1)',
        '(2030-01-14,chest,2.0,1)', '(2030-01-14,triceps,1.0,1)'],
  'weekly volume: app.weekly_muscle_volume summed over users; warm-ups and sessions in progress excluded');

select is(
  (select array_agg(v::text order by v.day, v.format) from reporting.import_outcomes as v),
  array['(2030-01-07,hevy,1,0,5,1,1,1)', '(2030-01-07,strong,2,1,10,2,3,1)', '(2030-01-08,strong,1,0,1,0,0,0)'],
  'import outcomes per UTC day and format; rows of dry runs not counted as imported');

select is(
  (select count(*) from reporting.daily_active_users where day between '2030-01-08' and '2030-01-09'),
  2::bigint,
  'a date range filters a report like the CLI does');
reset role;

-- The reporting policies widen nothing for the API role or the owner of SECURITY DEFINER functions.
set local role liftbase_api;
select set_config('liftbase.user_id', '00000000-0000-0000-0000-00000000000a', true);
select is((select count(*) from app.food_entries), 4::bigint, 'the API role still sees only the current user''s diary');
select is((select count(distinct user_id) from app.import_runs), 1::bigint, 'and only the current user''s imports');
reset role;
select set_config('liftbase.user_id', '', true);
set local role liftbase_owner;
select is((select count(*) from app.food_entries), 0::bigint, 'liftbase_owner (SECURITY DEFINER functions) sees no user''s rows without a user');
reset role;

-- The shared daily-totals rule agrees with what /nutrition/daily reports.
select is(app.daily_totals((select id from ids where name = 'a'), '2030-01-07') ->> 'calories', '1900',
  'app.daily_totals sums a day''s diary');
select is(app.daily_totals((select id from ids where name = 'c'), '2030-01-07') ->> 'calories', '0',
  'app.daily_totals is zero for a day without entries');

-- Every report is readable through the reporter's SECURITY DEFINER path only.
set local role liftbase_api;
select throws_ok('select * from reporting.nutrition_adherence_by_day()', '42501', null,
  'the API role cannot run the adherence function');
reset role;

select * from finish();
rollback;
