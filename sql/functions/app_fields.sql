-- Request field checks. Each field is checked against the domain that is its one rule
-- (sql/migrations/0002_onboarding.sql); the domain's comment is the message.

-- The problem with member p_field of p_body as a value of p_domain, or null when it is
-- fine. The member is first read as the kind of the domain's type (app_input.sql: a JSON
-- number for numeric domains, a string for text ones, a date YYYY-MM-DD for date ones...),
-- then checked against the domain, whose comment is the message. A plain type (text,
-- integer, uuid...) is checked as its kind only.
create or replace function app.field_problem(p_body jsonb, p_field text, p_domain regtype,
                                             p_required boolean default true)
returns text
language plpgsql
stable
as $$
declare
  v_value jsonb := p_body -> p_field;
  v_base regtype := (select coalesce(nullif(t.typbasetype, 0), t.oid)::regtype from pg_catalog.pg_type as t
                      where t.oid = p_domain);
  v_kind text := app.input_kind(p_domain);
  v_problem text;
begin
  if v_kind is null then
    raise exception 'app.field_problem: no request member is read as %', p_domain;
  end if;
  if v_value is null or v_value = 'null'::jsonb then
    return case when p_required then 'is required' end;
  end if;
  v_problem := app.input_problem(v_value, v_kind);
  if v_problem is not null then
    -- A number with a fraction for a whole-number domain: the domain says which numbers.
    if v_kind = 'integer' and jsonb_typeof(v_value) = 'number' and v_base <> p_domain then
      return obj_description(p_domain, 'pg_type');
    end if;
    return v_problem;
  end if;
  if v_base = p_domain then
    return null;
  end if;
  begin
    -- The text of a value of its kind casts exactly (whole numbers through numeric).
    execute format('select $1::%s::%s', case when v_kind = 'integer' then 'numeric' else v_base::text end, p_domain)
      using v_value #>> '{}';
  exception
    when check_violation or numeric_value_out_of_range then
      return obj_description(p_domain, 'pg_type');
  end;
  return null;
end
$$;

-- Whether a request value is a UUID (hexadecimal digits grouped 8-4-4-4-12), so that ids
-- from paths and bodies can be looked up (and answered 404 or 422) instead of failing a
-- cast. LIKE for the shape and a plain character class: a regular expression with counted
-- repetitions costs microseconds a value, and an import checks 100,000s of them.
-- False for null by `is not null` first, not by coalesce: the function is inlined, and
-- app.id_parameter with it, into `id = app.id_parameter(...)` of the lookups by id. In a
-- cached generic plan that condition stays an expression, and under row-level security
-- the planner bounds an index scan only by a condition it knows leaks nothing: a coalesce
-- anywhere in it made the lookup read every row of the user and filter them.
create or replace function app.is_uuid(p_text text)
returns boolean
language sql
immutable
as $$
  select p_text is not null and p_text like '________-____-____-____-____________' and p_text ~ '^[-0-9a-fA-F]+$'
         and length(replace(p_text, '-', '')) = 32
$$;

-- Age in whole years on p_on from a birth date, or from an age given on another date.
create or replace function app.age_on(p_date_of_birth date, p_age_years integer, p_age_recorded_on date, p_on date)
returns integer
language sql
immutable
as $$
  select case
    when p_date_of_birth is not null then extract(year from age(p_on, p_date_of_birth))::integer
    else p_age_years + extract(year from age(p_on, p_age_recorded_on))::integer
  end
$$;

-- Today's date where the user lives (never the server's TimeZone).
-- The user's time zone: their setting, or UTC for an account without settings yet (as the
-- setting's own default). PL/pgSQL so that its query is planned once per connection (a SQL
-- function reading a table is never inlined, and was planned again on every call).
create or replace function app.user_timezone(p_user_id uuid)
returns text
language plpgsql
stable
as $$
begin
  return coalesce((select s.timezone from app.user_settings as s where s.user_id = p_user_id), 'UTC');
end
$$;

create or replace function app.user_today(p_user_id uuid)
returns date
language plpgsql
stable
as $$
begin
  return (now() at time zone app.user_timezone(p_user_id))::date;
end
$$;

-- Problems with profile fields: sex, age (age_years or date_of_birth), height, activity,
-- and the optional display_name, timezone, unit_system.
create or replace function app.profile_problems(p_body jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  v_problems jsonb := jsonb_build_object(
    'sex', app.field_problem(p_body, 'sex', 'app.sex'),
    'height_cm', app.field_problem(p_body, 'height_cm', 'app.height_cm'),
    'activity_level', app.field_problem(p_body, 'activity_level', 'app.activity_level'),
    'timezone', app.field_problem(p_body, 'timezone', 'app.timezone_name', false),
    'unit_system', app.field_problem(p_body, 'unit_system', 'app.unit_system', false),
    'display_name', coalesce(app.field_problem(p_body, 'display_name', 'text', false),
                             auth.display_name_problem(app.read_text(p_body, 'display_name'))));
  v_zone text := coalesce(p_body ->> 'timezone', 'UTC');
  v_birth_problem text;
begin
  if p_body ? 'date_of_birth' and p_body -> 'date_of_birth' <> 'null'::jsonb then
    v_birth_problem := app.field_problem(p_body, 'date_of_birth', 'app.calendar_date');
    if v_birth_problem is null and not app.is_timezone_name(v_zone) then
      v_zone := 'UTC';
    end if;
    if v_birth_problem is null
       and app.field_problem(jsonb_build_object('age', app.age_on(app.read_date(p_body, 'date_of_birth'), null, null,
             (now() at time zone v_zone)::date)), 'age', 'app.age_years') is not null then
      v_birth_problem := 'must give an age between 13 and 120';
    end if;
    v_problems := v_problems || jsonb_build_object('date_of_birth', v_birth_problem);
  else
    v_problems := v_problems || jsonb_build_object('age_years',
                                                   app.field_problem(p_body, 'age_years', 'app.age_years'));
  end if;
  return v_problems;
end
$$;

-- Problems with goal fields, including the sign of the rate for the goal type.
create or replace function app.goal_problems(p_body jsonb)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'goal_type', app.field_problem(p_body, 'goal_type', 'app.goal_type'),
    'goal_rate_per_week', coalesce(
      app.field_problem(p_body, 'goal_rate_per_week', 'app.goal_rate'),
      case when app.field_problem(p_body, 'goal_type', 'app.goal_type') is null
           then app.goal_rate_problem(app.read_text(p_body, 'goal_type'),
                                      app.read_number(p_body, 'goal_rate_per_week')) end))
$$;

-- Problems with a body-stats entry: weight, optional body fat and height.
create or replace function app.body_metric_problems(p_body jsonb, p_height_required boolean)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'weight_kg', app.field_problem(p_body, 'weight_kg', 'app.weight_kg'),
    'body_fat_pct', app.field_problem(p_body, 'body_fat_pct', 'app.body_fat_pct', false),
    'height_cm', app.field_problem(p_body, 'height_cm', 'app.height_cm', p_height_required),
    'source', app.field_problem(p_body, 'source', 'app.measurement_source', false))
$$;

-- Problems with a correction of a weigh-in (PATCH /user/metrics/{id}): only the members
-- sent; weight and the time may change but never be null, body fat and height may be
-- cleared with null.
create or replace function app.body_metric_change_problems(p_body jsonb)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'weight_kg', app.field_problem(p_body, 'weight_kg', 'app.weight_kg', p_body ? 'weight_kg'),
    'body_fat_pct', app.field_problem(p_body, 'body_fat_pct', 'app.body_fat_pct', false),
    'height_cm', app.field_problem(p_body, 'height_cm', 'app.height_cm', false),
    'recorded_at', coalesce(app.field_problem(p_body, 'recorded_at', 'app.timestamp_value', p_body ? 'recorded_at'),
                            app.future_time_problem(p_body, 'recorded_at')),
    'source', app.field_problem(p_body, 'source', 'app.measurement_source', p_body ? 'source'))
$$;

grant execute on function
  app.is_uuid(text),
  app.field_problem(jsonb, text, regtype, boolean),
  app.age_on(date, integer, date, date),
  app.user_timezone(uuid),
  app.user_today(uuid),
  app.profile_problems(jsonb),
  app.goal_problems(jsonb),
  app.body_metric_problems(jsonb, boolean),
  app.body_metric_change_problems(jsonb)
to liftbase_api;

create or replace function app.are_muscles(p_names text[]) returns boolean
language sql immutable parallel safe as $$
  select p_names <@ array['abdominals', 'abductors', 'adductors', 'biceps', 'calves', 'chest', 'forearms', 'glutes',
                          'hamstrings', 'lats', 'lower back', 'middle back', 'neck', 'quadriceps', 'shoulders',
                          'traps', 'triceps']::text[]
$$;

create or replace function app.are_templates(p_ids text[]) returns boolean
language sql immutable parallel safe as $$
  select p_ids <@ array['full_body', 'legs', 'lower', 'pull', 'push', 'upper']::text[]
$$;

create or replace function app.is_timezone_name(p_name text)
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

-- The goal rate must agree with the goal: cutting loses (≤ 0), bulking gains (≥ 0),
-- maintaining holds (= 0). Used by the table and by the request checks alike.
create or replace function app.goal_rate_problem(p_goal_type text, p_rate numeric)
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
