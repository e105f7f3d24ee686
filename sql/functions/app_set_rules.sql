-- The set rule and tracking types: what a set and a planned target of each tracking type
-- take, an exercise's tracking type, and the checks every writer of sets makes (a request's
-- sets named field by field, a stored session's refused whole).

-- The set rule: what a set of each tracking type takes. For each of the measures
-- weight_kg (the load lifted, or added to the body for bodyweight_reps), assistance_kg
-- (the load that helps, assisted_bodyweight only), reps, duration_seconds and distance_m:
-- 'required', 'allowed' or 'refused'. The one table every writer checks (docs/training.md).
create or replace function app.set_field_rule(p_tracking_type text, p_field text)
returns text
language sql
immutable
as $$
  select case p_tracking_type
    when 'weight_reps' then case p_field when 'weight_kg' then 'required' when 'reps' then 'required' else 'refused' end
    when 'reps_only' then case p_field when 'reps' then 'required' else 'refused' end
    when 'bodyweight_reps' then case p_field when 'reps' then 'required' when 'weight_kg' then 'allowed' else 'refused' end
    when 'assisted_bodyweight' then case p_field when 'reps' then 'required' when 'assistance_kg' then 'allowed' else 'refused' end
    when 'duration' then case p_field when 'duration_seconds' then 'required' else 'refused' end
    when 'weight_duration' then case p_field when 'weight_kg' then 'required' when 'duration_seconds' then 'required'
                                             else 'refused' end
    when 'distance_duration' then case p_field when 'duration_seconds' then 'required' when 'distance_m' then 'allowed'
                                               else 'refused' end
    when 'weight_distance' then case p_field when 'weight_kg' then 'required' when 'distance_m' then 'required'
                                             when 'duration_seconds' then 'allowed' else 'refused' end
  end
$$;

-- The measures of a set that break the rule for p_tracking_type, as {field: message}; a
-- null or absent member counts as not given.
create or replace function app.set_fit_problems(p_tracking_type text, p_given text[])
returns jsonb
language sql
immutable
as $$
  select coalesce(jsonb_object_agg(f.field,
           case when f.field = any (p_given) then 'is not taken by ' || p_tracking_type || ' exercises'
                else 'is required' end), '{}')
    from unnest(array['weight_kg', 'assistance_kg', 'reps', 'duration_seconds', 'distance_m']) as f (field)
   where (app.set_field_rule(p_tracking_type, f.field) = 'required' and not f.field = any (p_given))
      or (app.set_field_rule(p_tracking_type, f.field) = 'refused' and f.field = any (p_given))
$$;

-- The target rule: what a plan, template or program target of each tracking type takes,
-- the set rule (app.set_field_rule) with two differences. A required load may be left to
-- the day (using the target writes 0 kg for it, never for a type that does not require a
-- load); reps_max, the top of a rep range from reps, goes with reps. The one table plans,
-- templates and programs check (docs/training.md).
create or replace function app.target_field_rule(p_tracking_type text, p_field text)
returns text
language sql
immutable
as $$
  select case p_field
    when 'reps_max' then case app.set_field_rule(p_tracking_type, 'reps') when 'refused' then 'refused' else 'allowed' end
    when 'weight_kg' then case app.set_field_rule(p_tracking_type, 'weight_kg')
                            when 'required' then 'allowed'
                            else app.set_field_rule(p_tracking_type, 'weight_kg') end
    else app.set_field_rule(p_tracking_type, p_field) end
$$;

-- The measures of a target that break the target rule for p_tracking_type, as
-- {field: message} (the messages of app.set_fit_problems).
create or replace function app.target_fit_problems(p_tracking_type text, p_given text[])
returns jsonb
language sql
immutable
as $$
  select coalesce(jsonb_object_agg(f.field,
           case when f.field = any (p_given) then 'is not taken by ' || p_tracking_type || ' exercises'
                else 'is required' end), '{}')
    from unnest(array['weight_kg', 'assistance_kg', 'reps', 'reps_max', 'duration_seconds', 'distance_m']) as f (field)
   where (app.target_field_rule(p_tracking_type, f.field) = 'required' and not f.field = any (p_given))
      or (app.target_field_rule(p_tracking_type, f.field) = 'refused' and f.field = any (p_given))
$$;

-- Problems with the target members of one plan exercise (or any object holding reps,
-- reps_max, weight_kg, assistance_kg, duration_seconds and distance_m) under p_path, for an
-- exercise of p_tracking_type: each value against its domain, then the target rule.
create or replace function app.target_problems(p_target jsonb, p_path text, p_tracking_type text)
returns jsonb
language plpgsql
stable
as $$
declare
  v_problems jsonb := jsonb_build_object(
    p_path || '.reps', app.field_problem(p_target, 'reps', 'app.reps', false),
    p_path || '.reps_max', app.field_problem(p_target, 'reps_max', 'app.reps', false),
    p_path || '.weight_kg', app.field_problem(p_target, 'weight_kg', 'app.load_kg', false),
    p_path || '.assistance_kg', app.field_problem(p_target, 'assistance_kg', 'app.assistance_kg', false),
    p_path || '.duration_seconds', app.field_problem(p_target, 'duration_seconds', 'app.duration_seconds', false),
    p_path || '.distance_m', app.field_problem(p_target, 'distance_m', 'app.distance_m', false));
  v_fit jsonb := app.target_fit_problems(p_tracking_type,
                   array(select k from jsonb_each(p_target) as m (k, v)
                          where v <> 'null' and k in ('weight_kg', 'assistance_kg', 'reps', 'reps_max',
                                                      'duration_seconds', 'distance_m')));
begin
  if jsonb_strip_nulls(v_problems) = '{}' and app.read_integer(p_target, 'reps_max') < app.read_integer(p_target, 'reps') then
    v_problems := jsonb_build_object(p_path || '.reps_max', 'must not be below reps');
  end if;
  return (select coalesce(jsonb_object_agg(p_path || '.' || f.key, f.value), '{}') from jsonb_each(v_fit) as f)
         || jsonb_strip_nulls(v_problems);
end
$$;

-- One set written from a target (using a plan, a template, a program's next session): the
-- measures p_tracking_type takes, every other one null. A load of 0 where the type does not
-- require one is no load; a required load not known yet stays null (a program's first
-- session: the lifter chooses it; a plan stores 0 kg for it). The bottom of a rep range is
-- the set's reps.
create or replace function app.target_set(p_tracking_type text, p_reps integer, p_weight_kg numeric,
                                          p_assistance_kg numeric, p_duration_seconds integer, p_distance_m numeric)
returns jsonb
language sql
immutable
as $$
  select jsonb_build_object(
    'reps', case when app.set_field_rule(p_tracking_type, 'reps') <> 'refused' then p_reps end,
    'weight_kg', case app.set_field_rule(p_tracking_type, 'weight_kg')
                   when 'required' then p_weight_kg
                   when 'allowed' then nullif(p_weight_kg, 0) end,
    'assistance_kg', case when app.set_field_rule(p_tracking_type, 'assistance_kg') <> 'refused' then p_assistance_kg end,
    'duration_seconds', case when app.set_field_rule(p_tracking_type, 'duration_seconds') <> 'refused' then p_duration_seconds end,
    'distance_m', case when app.set_field_rule(p_tracking_type, 'distance_m') <> 'refused' then p_distance_m end)
$$;

-- The measures a stored set holds, in the names of app.set_fit_problems.
create or replace function app.set_measures(p_weight_kg numeric, p_assistance_kg numeric, p_reps integer,
                                            p_duration_seconds integer, p_distance_m numeric)
returns text[]
language sql
immutable
as $$
  select array_remove(array[case when p_weight_kg is not null then 'weight_kg' end,
                            case when p_assistance_kg is not null then 'assistance_kg' end,
                            case when p_reps is not null then 'reps' end,
                            case when p_duration_seconds is not null then 'duration_seconds' end,
                            case when p_distance_m is not null then 'distance_m' end], null)
$$;

-- The tracking type of a session or plan exercise: its catalog or own exercise's; a free
-- text name (linked to neither) is weight_reps. The one rule of an exercise's tracking type
-- for stored rows; a request's exercise gets it from app.resolve_exercise, which reads it
-- with the row it links to. A statement over many exercises (an import's) asks here for
-- each in a statement that reads no table (app.refresh_sessions_totals): on Citus each call
-- is then a look-up of its own, not a call shipped inside a worker's query.
-- PL/pgSQL, not SQL: a SQL function that reads a table is never inlined and plans its
-- statement again in every statement that calls it, where PL/pgSQL keeps the plan; and
-- Citus cannot plan a SQL function's statement with parameters (docs/scaling.md).
create or replace function app.exercise_tracking_type(p_user_id uuid, p_exercise_id uuid, p_user_exercise_id uuid)
returns text
language plpgsql
stable
as $$
begin
  return (
    select coalesce((select e.tracking_type from app.exercises as e where e.id = p_exercise_id),
                    (select u.tracking_type from app.user_exercises as u
                      where u.user_id = p_user_id and u.id = p_user_exercise_id),
                    'weight_reps')
  );
end
$$;

-- The tracking types of exercises given by parallel arrays of catalog and own ids, in their
-- order (app.exercise_tracking_type of each).
create or replace function app.exercise_tracking_types(p_user_id uuid, p_exercise_ids uuid[],
                                                       p_user_exercise_ids uuid[])
returns text[]
language plpgsql
stable
as $$
begin
  return array(select app.exercise_tracking_type(p_user_id, x.exercise_id, x.user_exercise_id)
                 from unnest(p_exercise_ids, p_user_exercise_ids) with ordinality
                   as x (exercise_id, user_exercise_id, n)
                order by x.n);
end
$$;

-- Whether a set with these measures fits the set rule for p_tracking_type: no required
-- measure missing, no refused one given (app.set_fit_problems is then '{}'; a test holds the
-- two equal). One expression, so that it is inlined into the statement that checks every
-- set of a session, where app.set_fit_problems (an aggregate) would run and be planned as a
-- call of its own for each set.
create or replace function app.set_fits(p_tracking_type text, p_weight_kg numeric, p_assistance_kg numeric,
                                        p_reps integer, p_duration_seconds integer, p_distance_m numeric)
returns boolean
language sql
immutable
parallel safe
as $$
  select (p_weight_kg is not null or app.set_field_rule(p_tracking_type, 'weight_kg') is distinct from 'required')
     and (p_weight_kg is null or app.set_field_rule(p_tracking_type, 'weight_kg') is distinct from 'refused')
     and (p_assistance_kg is not null or app.set_field_rule(p_tracking_type, 'assistance_kg') is distinct from 'required')
     and (p_assistance_kg is null or app.set_field_rule(p_tracking_type, 'assistance_kg') is distinct from 'refused')
     and (p_reps is not null or app.set_field_rule(p_tracking_type, 'reps') is distinct from 'required')
     and (p_reps is null or app.set_field_rule(p_tracking_type, 'reps') is distinct from 'refused')
     and (p_duration_seconds is not null
          or app.set_field_rule(p_tracking_type, 'duration_seconds') is distinct from 'required')
     and (p_duration_seconds is null or app.set_field_rule(p_tracking_type, 'duration_seconds') is distinct from 'refused')
     and (p_distance_m is not null or app.set_field_rule(p_tracking_type, 'distance_m') is distinct from 'required')
     and (p_distance_m is null or app.set_field_rule(p_tracking_type, 'distance_m') is distinct from 'refused')
$$;

-- Problems with one set, under p_path ("exercises[0].sets[1]"), for an exercise of
-- p_tracking_type.
create or replace function app.set_problems(p_set jsonb, p_path text, p_tracking_type text default 'weight_reps')
returns jsonb
language plpgsql
stable
as $$
declare
  v_fit jsonb;
  v_problems jsonb;
begin
  if jsonb_typeof(p_set) is distinct from 'object' then
    return jsonb_build_object(p_path, 'must be an object');
  end if;
  v_fit := app.set_fit_problems(p_tracking_type,
             array(select k from jsonb_each(p_set) as m (k, v) where v <> 'null'));
  v_problems := jsonb_build_object(
    p_path || '.reps', app.field_problem(p_set, 'reps', 'app.reps', false),
    p_path || '.weight_kg', app.field_problem(p_set, 'weight_kg', 'app.load_kg', false),
    p_path || '.assistance_kg', app.field_problem(p_set, 'assistance_kg', 'app.assistance_kg', false),
    p_path || '.duration_seconds', app.field_problem(p_set, 'duration_seconds', 'app.duration_seconds', false),
    p_path || '.distance_m', app.field_problem(p_set, 'distance_m', 'app.distance_m', false),
    p_path || '.rpe', app.field_problem(p_set, 'rpe', 'app.rpe', false),
    p_path || '.rir', app.field_problem(p_set, 'rir', 'app.rir', false),
    p_path || '.set_type', app.field_problem(p_set, 'set_type', 'app.set_type', false),
    p_path || '.tempo', app.field_problem(p_set, 'tempo', 'app.tempo', false),
    p_path || '.rest_seconds', app.field_problem(p_set, 'rest_seconds', 'app.rest_seconds', false));
  -- A value problem names the field first; a missing or unwanted measure second.
  return (select coalesce(jsonb_object_agg(p_path || '.' || f.key, f.value), '{}') from jsonb_each(v_fit) as f)
         || jsonb_strip_nulls(v_problems);
end
$$;

grant execute on function
  app.set_field_rule(text, text),
  app.set_fit_problems(text, text[]),
  app.target_field_rule(text, text),
  app.target_fit_problems(text, text[]),
  app.target_problems(jsonb, text, text),
  app.target_set(text, integer, numeric, numeric, integer, numeric),
  app.set_measures(numeric, numeric, integer, integer, numeric),
  app.exercise_tracking_type(uuid, uuid, uuid),
  app.exercise_tracking_types(uuid, uuid[], uuid[]),
  app.set_fits(text, numeric, numeric, integer, integer, numeric),
  app.set_problems(jsonb, text, text)
to liftbase_api;
