-- Onboarding, profile, goals, targets and health metrics.
--
-- Each validated field has ONE rule, a domain whose comment is the message shown to
-- people. app.field_problem() checks request fields against these domains, and the
-- columns use the same domains, so onboarding, /user/profile, /user/metrics and
-- /user/goals can never disagree.

create function app.is_timezone_name(p_name text)
returns boolean
language plpgsql
stable
as $$
begin
  -- IANA names only (Area/City, or UTC): no abbreviations or POSIX offsets like 'UTC+5'.
  if p_name is null or p_name !~ '^(UTC|[A-Z][A-Za-z_-]+(/[A-Za-z0-9_+-]+){1,2})$' then
    return false;
  end if;
  perform now() at time zone p_name;
  return true;
exception when invalid_parameter_value then
  return false;
end
$$;
grant execute on function app.is_timezone_name(text) to liftbase_api;

create domain app.height_cm as numeric check (value between 100 and 250);
comment on domain app.height_cm is 'must be between 100 and 250';
create domain app.weight_kg as numeric check (value between 30 and 300);
comment on domain app.weight_kg is 'must be between 30 and 300';
create domain app.body_fat_pct as numeric check (value between 3 and 60);
comment on domain app.body_fat_pct is 'must be between 3 and 60';
create domain app.age_years as integer check (value between 13 and 120);
comment on domain app.age_years is 'must be a whole number between 13 and 120';
create domain app.goal_rate as numeric check (value between -2 and 2);
comment on domain app.goal_rate is 'must be between -2.0 and 2.0';
create domain app.sex as text check (value in ('male', 'female'));
comment on domain app.sex is 'must be male or female';
create domain app.activity_level as text
  check (value in ('sedentary', 'light', 'moderate', 'active', 'very_active'));
comment on domain app.activity_level is 'must be one of sedentary, light, moderate, active, very_active';
create domain app.goal_type as text check (value in ('cutting', 'maintaining', 'bulking'));
comment on domain app.goal_type is 'must be one of cutting, maintaining, bulking';
create domain app.unit_system as text check (value in ('metric', 'imperial'));
comment on domain app.unit_system is 'must be metric or imperial';
create domain app.timezone_name as text check (app.is_timezone_name(value));
comment on domain app.timezone_name is 'must be an IANA time zone name such as Europe/Berlin';
create domain app.calendar_date as date;
comment on domain app.calendar_date is 'must be a date (YYYY-MM-DD)';
create domain app.target_calories as integer check (value between 800 and 10000);
comment on domain app.target_calories is 'must be a whole number between 800 and 10000';
create domain app.macro_grams as integer check (value between 0 and 2000);
comment on domain app.macro_grams is 'must be a whole number between 0 and 2000';

-- The goal rate must agree with the goal: cutting loses (≤ 0), bulking gains (≥ 0),
-- maintaining holds (= 0). Used by the table and by the request checks alike.
create function app.goal_rate_problem(p_goal_type text, p_rate numeric)
returns text
language sql
immutable
as $$
  select case
    when p_goal_type = 'cutting' and p_rate > 0 then 'must be 0 or less when cutting'
    when p_goal_type = 'bulking' and p_rate < 0 then 'must be 0 or more when bulking'
    when p_goal_type = 'maintaining' and p_rate <> 0 then 'must be 0 when maintaining'
  end
$$;
grant execute on function app.goal_rate_problem(text, numeric) to liftbase_api;

alter table app.user_settings
  drop constraint user_settings_unit_system_check,
  alter column unit_system type app.unit_system,
  alter column timezone type app.timezone_name;

alter table app.goals
  drop constraint goals_goal_type_check,
  alter column goal_type type app.goal_type,
  alter column goal_rate_per_week type app.goal_rate,
  add constraint goals_rate_matches_type check (app.goal_rate_problem(goal_type, goal_rate_per_week) is null);

-- Body stats that change slowly. Age is kept as a birth date when known, else as the age
-- given on a date, so that it advances (the daily `liftbase metrics recompute`).
create table app.user_profiles (
  user_id         uuid primary key references auth.users (id) on delete cascade,
  sex             app.sex not null,
  date_of_birth   date,
  age_years       app.age_years,
  age_recorded_on date,
  height_cm       app.height_cm not null,
  activity_level  app.activity_level not null,
  created_at      timestamptz not null default now(),
  updated_at      timestamptz not null default now(),
  check ((date_of_birth is not null) or (age_years is not null and age_recorded_on is not null))
);

-- Body-stats entries: append-only (the API role may insert and read, never change).
create table app.body_metrics (
  user_id      uuid not null references auth.users (id) on delete cascade,
  id           bigint generated always as identity,
  recorded_at  timestamptz not null default now(),
  weight_kg    app.weight_kg not null,
  body_fat_pct app.body_fat_pct,
  height_cm    app.height_cm,
  created_at   timestamptz not null default now(),
  primary key (user_id, id)
);
create index body_metrics_latest_idx on app.body_metrics (user_id, recorded_at desc, id desc);

-- Daily targets as computed, append-only; input_parameters echo every input used.
create table app.target_snapshots (
  user_id          uuid not null references auth.users (id) on delete cascade,
  id               bigint generated always as identity,
  computed_at      timestamptz not null default now(),
  reason           text not null check (reason in ('onboarding', 'metrics', 'goal', 'profile', 'recompute', 'adaptive')),
  formula_version  integer not null,
  bmr_formula      text not null check (bmr_formula in ('mifflin_st_jeor', 'katch_mcardle', 'adaptive')),
  calories         integer not null,
  protein_g        integer not null,
  carbs_g          integer not null,
  fat_g            integer not null,
  warnings         jsonb not null default '[]',
  input_parameters jsonb not null,
  primary key (user_id, id)
);
create index target_snapshots_latest_idx on app.target_snapshots (user_id, computed_at desc, id desc);

-- Health metrics as computed, append-only. Looked up by computed_at, never by date.
create table app.health_metrics (
  user_id     uuid not null references auth.users (id) on delete cascade,
  id          bigint generated always as identity,
  computed_at timestamptz not null default now(),
  version     integer not null,
  bmi         numeric(4, 1) not null,
  bmr         integer not null,
  tdee        integer not null,
  inputs      jsonb not null,
  snapshot_id bigint not null,
  primary key (user_id, id),
  foreign key (user_id, snapshot_id) references app.target_snapshots (user_id, id) on delete cascade
);
create index health_metrics_latest_idx on app.health_metrics (user_id, computed_at desc, id desc);

create table app.metrics_acknowledgements (
  user_id          uuid not null,
  health_metric_id bigint not null,
  version          integer not null,
  acknowledged_at  timestamptz not null default now(),
  primary key (user_id, health_metric_id),
  foreign key (user_id, health_metric_id) references app.health_metrics (user_id, id) on delete cascade
);

-- The user's own targets ("editable targets"); a null field falls back to the snapshot.
create table app.target_overrides (
  user_id    uuid primary key references auth.users (id) on delete cascade,
  calories   app.target_calories,
  protein_g  app.macro_grams,
  carbs_g    app.macro_grams,
  fat_g      app.macro_grams,
  updated_at timestamptz not null default now()
);

do $$
declare
  v_table text;
begin
  foreach v_table in array array['user_profiles', 'body_metrics', 'target_snapshots', 'health_metrics',
                                 'metrics_acknowledgements', 'target_overrides']
  loop
    execute format('alter table app.%I enable row level security', v_table);
    execute format('alter table app.%I force row level security', v_table);
    execute format('create policy own_rows on app.%I using (user_id = (select app.current_user_id()))
                    with check (user_id = (select app.current_user_id()))', v_table);
  end loop;
end
$$;

-- Append-only history: no updates or deletes through the API (account deletion cascades).
revoke update, delete on app.body_metrics, app.target_snapshots, app.health_metrics from liftbase_api;
