-- Workout sessions: validation (every bad field named by its path), writing the
-- normalized rows, and the JSON shapes.

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
    when 'weight_kg' then case app.set_field_rule(p_tracking_type, 'weight_kg') when 'required' then 'allowed'
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
-- each in a statement that reads no table (app.raise_if_sets_misfit): on Citus each call
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
create or replace function app.exercise_tracking_types(p_user_id uuid, p_exercise_ids uuid[], p_user_exercise_ids uuid[])
returns text[]
language plpgsql
stable
as $$
begin
  return array(select app.exercise_tracking_type(p_user_id, x.exercise_id, x.user_exercise_id)
                 from unnest(p_exercise_ids, p_user_exercise_ids) with ordinality as x (exercise_id, user_exercise_id, n)
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

-- Refuses (check_violation) when a set of the sessions breaks the set rule; the writers
-- then name the fields (app.set_problems). Each exercise's tracking type is asked once
-- (app.exercise_tracking_types), before the statement that reads every set.
create or replace function app.raise_if_sets_misfit(p_user_id uuid, p_session_ids uuid[])
returns void
language plpgsql
as $$
declare
  v_sessions uuid[];
  v_positions integer[];
  v_exercise_ids uuid[];
  v_user_exercise_ids uuid[];
  v_types text[];
begin
  select coalesce(array_agg(e.session_id), '{}'), coalesce(array_agg(e.position), '{}'),
         coalesce(array_agg(e.exercise_id), '{}'), coalesce(array_agg(e.user_exercise_id), '{}')
    into v_sessions, v_positions, v_exercise_ids, v_user_exercise_ids
    from unnest(p_session_ids) as i (session_id)
    join app.session_exercises as e on e.user_id = p_user_id and e.session_id = i.session_id;
  v_types := app.exercise_tracking_types(p_user_id, v_exercise_ids, v_user_exercise_ids);
  if exists (
    -- The sessions drive the read (their sets by primary key), whatever the plan guesses
    -- of an array it cannot see.
    select from unnest(v_sessions, v_positions, v_types) as t (session_id, position, tracking_type)
      join app.session_sets as s
        on s.user_id = p_user_id and s.session_id = t.session_id and s.exercise_position = t.position
     where not app.set_fits(t.tracking_type, s.weight_kg, s.assistance_kg, s.reps, s.duration_seconds, s.distance_m)) then
    raise exception using errcode = 'check_violation', message = 'a set does not fit its exercise''s tracking type';
  end if;
end
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

-- Every problem with a session body. A completed session needs at least one exercise,
-- each with a name and at least one set; an in-progress one may still be empty.
create or replace function app.session_problems(p_user_id uuid, p_body jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  v_problems jsonb := jsonb_build_object(
    'session_date', app.field_problem(p_body, 'session_date', 'app.calendar_date', false),
    'name', app.field_problem(p_body, 'name', 'app.session_name', false),
    'notes', app.field_problem(p_body, 'notes', 'app.short_text', false),
    'status', app.field_problem(p_body, 'status', 'app.session_status', false),
    'started_at', coalesce(app.field_problem(p_body, 'started_at', 'app.timestamp_value', false),
                           app.future_time_problem(p_body, 'started_at')),
    'finished_at', coalesce(app.field_problem(p_body, 'finished_at', 'app.timestamp_value', false),
                            app.future_time_problem(p_body, 'finished_at')),
    'client_id', app.field_problem(p_body, 'client_id', 'app.uuid_value', false));
  v_completed boolean := coalesce(p_body ->> 'status', 'completed') = 'completed';
  v_exercises jsonb := coalesce(p_body -> 'exercises', '[]');
  v_exercise jsonb;
  v_path text;
  v_type text;
  i integer;
  j integer;
begin
  if jsonb_typeof(v_exercises) <> 'array' then
    return v_problems || jsonb_build_object('exercises', 'must be a list');
  end if;
  if v_completed and jsonb_array_length(v_exercises) = 0 then
    v_problems := v_problems || jsonb_build_object('exercises', 'a completed session needs at least one exercise');
  end if;
  for i in 0 .. jsonb_array_length(v_exercises) - 1 loop
    v_exercise := v_exercises -> i;
    v_path := format('exercises[%s]', i);
    if jsonb_typeof(v_exercise) <> 'object' then
      v_problems := v_problems || jsonb_build_object(v_path, 'must be an object');
      continue;
    end if;
    v_problems := v_problems || app.exercise_reference_problems(p_user_id, v_exercise, v_path)
      || jsonb_build_object(v_path || '.notes', app.field_problem(v_exercise, 'notes', 'app.short_text', false),
                            v_path || '.group', app.field_problem(v_exercise, 'group', 'app.superset_group', false),
                            v_path || '.group_rest_seconds',
                            app.field_problem(v_exercise, 'group_rest_seconds', 'app.rest_seconds', false));
    if jsonb_typeof(coalesce(v_exercise -> 'sets', '[]')) <> 'array' then
      v_problems := v_problems || jsonb_build_object(v_path || '.sets', 'must be a list');
      continue;
    end if;
    if v_completed and jsonb_array_length(coalesce(v_exercise -> 'sets', '[]')) = 0 then
      v_problems := v_problems || jsonb_build_object(v_path || '.sets', 'needs at least one set');
    end if;
    v_type := null;
    if jsonb_strip_nulls(app.exercise_reference_problems(p_user_id, v_exercise, v_path)) = '{}' then
      v_type := (app.resolve_exercise(p_user_id, v_exercise)).tracking_type;
    end if;
    for j in 0 .. jsonb_array_length(coalesce(v_exercise -> 'sets', '[]')) - 1 loop
      v_problems := v_problems || app.set_problems(v_exercise -> 'sets' -> j, format('%s.sets[%s]', v_path, j),
                                                   coalesce(v_type, 'weight_reps'));
    end loop;
  end loop;
  if jsonb_strip_nulls(v_problems) = '{}' then
    if app.read_timestamp(p_body, 'finished_at') < app.read_timestamp(p_body, 'started_at') then
      v_problems := v_problems || jsonb_build_object('finished_at', 'must not be before started_at');
    end if;
  end if;
  return v_problems;
end
$$;

-- Writes the exercises and sets of p_exercises under a session, with each exercise's
-- totals (app.exercise_totals of the sets just written), and refuses (check_violation) when
-- a set breaks the set rule, as app.raise_if_sets_misfit does. One statement, planned once
-- per connection (PL/pgSQL): the sets are read from the request once and handed to the
-- exercises' insert and to their own, so nothing written is read back and no exercise row
-- is written twice.
create or replace function app.write_session_exercises(p_user_id uuid, p_session_id uuid, p_exercises jsonb)
returns void
language plpgsql
as $$
declare
  v_fits boolean;
begin
  with items as (
    select x.n as position, x.item, r.exercise_id, r.user_exercise_id, r.exercise_name,
           r.tracking_type
      from jsonb_array_elements(p_exercises) with ordinality as x (item, n)
     cross join lateral app.resolve_exercise(p_user_id, x.item) as r
  ), sets as (
    -- The sets as rows of app.session_sets (columns in the table's order), not yet written.
    select p_user_id as user_id, p_session_id as session_id, x.n as exercise_position, s.m as position,
           app.read_integer(s.item, 'reps') as reps, app.read_number(s.item, 'weight_kg') as weight_kg,
           app.read_number(s.item, 'rpe') as rpe, app.read_integer(s.item, 'rir') as rir,
           coalesce(app.read_text(s.item, 'set_type'), 'working') as set_type, app.read_text(s.item, 'tempo') as tempo,
           app.read_integer(s.item, 'rest_seconds') as rest_seconds,
           app.read_integer(s.item, 'duration_seconds') as duration_seconds,
           app.read_number(s.item, 'distance_m') as distance_m, app.read_number(s.item, 'assistance_kg') as assistance_kg
      from jsonb_array_elements(p_exercises) with ordinality as x (item, n)
     cross join lateral jsonb_array_elements(coalesce(x.item -> 'sets', '[]')) with ordinality as s (item, m)
  ), sets_by_exercise as (
    select w.exercise_position, array_agg(w::app.session_sets) as sets from sets as w group by w.exercise_position
  ), exercises as (
    -- Each insert selects from the session's row and names its target with an alias, so
    -- that Citus sends it whole to the worker holding the user (an insert from a plain
    -- select is copied there, which row-level security refuses), in this order (the sets'
    -- foreign key), and names the shard in RETURNING.
    insert into app.session_exercises as n (user_id, session_id, position, exercise_id, user_exercise_id, exercise_name, notes,
                                       superset_group, group_rest_seconds, working_sets, max_weight_kg, max_reps,
                                       max_duration_seconds, max_distance_m, best_pace_s_per_km, duration_seconds,
                                       distance_m, paced_seconds, paced_distance_m, best_set_position, best_e1rm_kg,
                                       best_weight_kg, best_reps, best_rpe, best_e1rm_method)
    select w.user_id, w.id, i.position, i.exercise_id, i.user_exercise_id, i.exercise_name,
           app.read_text(i.item, 'notes'), app.read_integer(i.item, 'group'), app.read_integer(i.item, 'group_rest_seconds'),
           t.*
      from app.training_sessions as w
     cross join items as i
      left join sets_by_exercise as g on g.exercise_position = i.position
     cross join lateral app.exercise_totals(coalesce(g.sets, '{}'), i.tracking_type) as t
     where w.user_id = p_user_id and w.id = p_session_id
    returning n.position
  ), written_sets as (
    insert into app.session_sets as n (user_id, session_id, exercise_position, position, reps, weight_kg, rpe, rir, set_type,
                                       tempo, rest_seconds, duration_seconds, distance_m, assistance_kg)
    select w.user_id, w.id, s.exercise_position, s.position, s.reps, s.weight_kg, s.rpe, s.rir, s.set_type, s.tempo,
           s.rest_seconds, s.duration_seconds, s.distance_m, s.assistance_kg
      from app.training_sessions as w
     cross join sets as s
     where w.user_id = p_user_id and w.id = p_session_id
    returning n.position
  )
  select coalesce(bool_and(app.set_fits(i.tracking_type, w.weight_kg, w.assistance_kg, w.reps, w.duration_seconds,
                                        w.distance_m)), true)
    into v_fits
    from sets as w
    join items as i on i.position = w.exercise_position;
  if not v_fits then
    raise exception using errcode = 'check_violation', message = 'a set does not fit its exercise''s tracking type';
  end if;
end
$$;

-- Which sets give an estimated one-rep max: load × reps (weight_reps) only. A bodyweight
-- set's weight_kg is the load added to the body, an assisted one's is none, and timed or
-- distance work has no reps: none of them is a fraction of a one-rep max (docs/training.md).
create or replace function app.takes_e1rm(p_tracking_type text)
returns boolean
language sql
immutable
parallel safe
as $$ select p_tracking_type = 'weight_reps' $$;

-- The chart's percentage of a one-rep max for reps at an RPE, or null. PL/pgSQL: a read of
-- the chart inside app.exercise_totals keeps Citus from running it (a SQL function that
-- reads a table and takes parameters, which Citus cannot plan); a call keeps the totals'
-- function free of tables, and its plan is kept per connection.
create or replace function app.rpe_chart_percent(p_reps integer, p_rpe numeric)
returns numeric
language plpgsql
stable
as $$
begin
  return (select c.percent from app.rpe_chart as c where c.reps = p_reps and c.rpe = p_rpe);
end
$$;

-- The totals kept on each session exercise, from its sets (p_sets, in any order) and its
-- tracking type: the count and the maxima and sums of its working sets (the records and
-- cardio measures, migration 0036) and its best working set by estimated one-rep max, for
-- an exercise that takes one (app.takes_e1rm; migrations 0011 and 0017). The one rule:
-- app.write_session_exercises applies it to the sets it writes, app.refresh_session_totals
-- to the sets stored. One row; SQL returning a table, so that it is inlined into the
-- statement that calls it.
create or replace function app.exercise_totals(p_sets app.session_sets[], p_tracking_type text)
returns table (working_sets integer, max_weight_kg numeric, max_reps integer, max_duration_seconds integer,
               max_distance_m numeric, best_pace_s_per_km numeric, duration_seconds integer, distance_m numeric,
               paced_seconds integer, paced_distance_m numeric, best_set_position integer, best_e1rm_kg numeric,
               best_weight_kg numeric, best_reps integer, best_rpe numeric, best_e1rm_method text)
language sql
stable
as $$
  select w.working_sets, w.max_weight_kg, w.max_reps, w.max_duration_seconds, w.max_distance_m, w.best_pace_s_per_km,
         w.duration_seconds, w.distance_m, w.paced_seconds, w.paced_distance_m,
         b.position, b.e1rm_kg, b.weight_kg, b.reps, b.rpe, b.method
    from (select count(*)::integer as working_sets, max(x.weight_kg)::numeric as max_weight_kg,
                 max(x.reps)::integer as max_reps, max(x.duration_seconds)::integer as max_duration_seconds,
                 max(x.distance_m)::numeric as max_distance_m,
                 min(app.pace_s_per_km(x.duration_seconds, x.distance_m)) filter (where x.distance_m >= 100)
                   as best_pace_s_per_km,
                 coalesce(sum(x.duration_seconds), 0)::integer as duration_seconds,
                 coalesce(sum(x.distance_m), 0)::numeric as distance_m,
                 coalesce(sum(x.duration_seconds) filter (where x.distance_m is not null), 0)::integer as paced_seconds,
                 coalesce(sum(x.distance_m) filter (where x.duration_seconds is not null), 0)::numeric as paced_distance_m
            from unnest(p_sets) as x
           where app.counts_as_working_set(x.set_type)) as w
    left join (
      select x.position, app.e1rm_kg(x.weight_kg, x.reps, c.percent) as e1rm_kg, x.weight_kg::numeric as weight_kg,
             x.reps::integer as reps, app.effective_rpe(x.rpe, x.rir) as rpe, app.e1rm_method(c.percent) as method
        from unnest(p_sets) as x
       cross join lateral (select app.rpe_chart_percent(x.reps, app.effective_rpe(x.rpe, x.rir)) as percent) as c
       where app.counts_as_working_set(x.set_type) and x.reps >= 1 and x.weight_kg > 0 and app.takes_e1rm(p_tracking_type)
       order by 2 desc, x.position
       limit 1) as b on true
$$;

-- The totals kept on the session row (see migration 0004) and on each of its exercises
-- (app.exercise_totals), from the rows stored.
create or replace function app.refresh_session_totals(p_user_id uuid, p_session_id uuid)
returns void
language plpgsql
as $$
begin
  perform app.refresh_sessions_totals(p_user_id, array[p_session_id]);
end
$$;

-- The same for many sessions of the user at once (an import's). The exercises' totals are
-- one statement, so their statement triggers (app.keep_exercise_records) run once for all
-- of the sessions, not once for each. Each exercise's row reads its own sets by primary
-- key, with no join for the planner to order: in an import the user's new rows are not in
-- the statistics yet, and a join of the exercises to themselves became a loop over every
-- exercise of the import for each one.
create or replace function app.refresh_sessions_totals(p_user_id uuid, p_session_ids uuid[])
returns void
language plpgsql
as $$
declare
  v_sessions uuid[];
  v_positions integer[];
  v_exercise_ids uuid[];
  v_user_exercise_ids uuid[];
  v_types text[];
begin
  select coalesce(array_agg(e.session_id), '{}'), coalesce(array_agg(e.position), '{}'),
         coalesce(array_agg(e.exercise_id), '{}'), coalesce(array_agg(e.user_exercise_id), '{}')
    into v_sessions, v_positions, v_exercise_ids, v_user_exercise_ids
    from unnest(p_session_ids) as i (session_id)
    join app.session_exercises as e on e.user_id = p_user_id and e.session_id = i.session_id;
  v_types := app.exercise_tracking_types(p_user_id, v_exercise_ids, v_user_exercise_ids);
  update app.session_exercises as e
     set (working_sets, max_weight_kg, max_reps, max_duration_seconds, max_distance_m, best_pace_s_per_km,
          duration_seconds, distance_m, paced_seconds, paced_distance_m, best_set_position, best_e1rm_kg,
          best_weight_kg, best_reps, best_rpe, best_e1rm_method) = (
         select t.working_sets, t.max_weight_kg, t.max_reps, t.max_duration_seconds, t.max_distance_m,
                t.best_pace_s_per_km, t.duration_seconds, t.distance_m, t.paced_seconds, t.paced_distance_m,
                t.best_set_position, t.best_e1rm_kg, t.best_weight_kg, t.best_reps, t.best_rpe, t.best_e1rm_method
           from app.exercise_totals(
                  coalesce((select array_agg(row(x.*)::app.session_sets) from app.session_sets as x
                             where x.user_id = p_user_id and x.session_id = e.session_id
                               and x.exercise_position = e.position), '{}'),
                  k.tracking_type) as t)
    from unnest(v_sessions, v_positions, v_types) as k (session_id, position, tracking_type)
   where e.user_id = p_user_id and e.session_id = k.session_id and e.position = k.position;
  perform app.refresh_session_row_totals(p_user_id, i) from unnest(p_session_ids) as i;
end
$$;

-- The totals kept on the session row (migration 0004), from its exercises and sets. One
-- plan for every user: a custom plan for a user the statistics do not know yet (one who
-- just imported years of sessions) guesses one row for them and may read their rows by any
-- index that leads with the user, walking all their sessions' exercises for each session
-- (3,200 workouts: 2 ms a call instead of 0.1 ms); the generic plan takes the primary keys.
create or replace function app.refresh_session_row_totals(p_user_id uuid, p_session_id uuid)
returns void
language plpgsql
set plan_cache_mode = force_generic_plan
as $$
begin
  update app.training_sessions as s
     set exercise_count = (select count(*) from app.session_exercises as e
                            where e.user_id = p_user_id and e.session_id = p_session_id),
         set_count = t.sets, working_sets = t.working, volume_kg = coalesce(t.volume, 0),
         set_duration_seconds = coalesce(t.seconds, 0), distance_m = coalesce(t.distance, 0)
    from (select count(*) as sets, count(*) filter (where app.counts_as_working_set(x.set_type)) as working,
                 sum(x.weight_kg * x.reps) filter (where app.counts_as_working_set(x.set_type)) as volume,
                 sum(x.duration_seconds) filter (where app.counts_as_working_set(x.set_type)) as seconds,
                 sum(x.distance_m) filter (where app.counts_as_working_set(x.set_type)) as distance
            from app.session_sets as x where x.user_id = p_user_id and x.session_id = p_session_id) as t
   where s.user_id = p_user_id and s.id = p_session_id;
end
$$;
-- On Citus: planned for each call (liftbase_meta.on_citus_plan_each_call says why).
select liftbase_meta.on_citus_plan_each_call('app.refresh_session_row_totals(uuid, uuid)');

-- A completed session has at least one exercise and every exercise at least one set.
create or replace function app.session_is_complete(p_user_id uuid, p_session_id uuid)
returns boolean
language plpgsql
stable
as $$
begin
  return exists (select from app.session_exercises as e where e.user_id = p_user_id and e.session_id = p_session_id)
     and not exists (
       select from app.session_exercises as e
        where e.user_id = p_user_id and e.session_id = p_session_id
          and not exists (select from app.session_sets as s
                           where s.user_id = e.user_id and s.session_id = e.session_id and s.exercise_position = e.position));
end
$$;

-- At most one in-progress session per user: 409 naming the one there is (other than p_except).
create or replace function app.raise_if_session_in_progress(p_user_id uuid, p_except uuid default null)
returns void
language plpgsql
as $$
declare
  v_blocking uuid;
begin
  select s.id into v_blocking from app.training_sessions as s
   where s.user_id = p_user_id and s.status = 'in_progress' and s.id is distinct from p_except;
  if v_blocking is not null then
    perform app.raise_error_with(409, 'session_in_progress', 'Another session is in progress: finish or delete it first.',
                                 jsonb_build_object('session_id', v_blocking));
  end if;
end
$$;

-- Creates (p_session_id null) or replaces a session from a request body. The rows are
-- written first; only when the database refuses them is the body checked field by field,
-- so the common, valid request pays for no validation beyond the column rules themselves.
-- Returns the session's id. A create's caller has asked app.replayed_key first, which holds
-- the client_id's lock until the transaction ends.
create or replace function app.save_session(p_user_id uuid, p_session_id uuid, p_body jsonb)
returns uuid
language plpgsql
as $$
declare
  v_id uuid := coalesce(p_session_id, gen_random_uuid());
  v_status text;
  v_session_date date;
  v_name text;
  v_notes text;
  v_started_at timestamptz;
  v_finished_at timestamptz;
  v_client_id uuid;
begin
  -- The status decides what is checked below: a bad one is named with every other problem,
  -- as is a client_id of the wrong type (a replace never reads it, but must not take it).
  if app.field_problem(p_body, 'status', 'app.session_status', false) is not null
     or app.field_problem(p_body, 'client_id', 'app.uuid_value', false) is not null then
    perform app.raise_if_invalid(app.session_problems(p_user_id, p_body));
  end if;
  -- A start or end the device gives may lie in the past, not beyond the clock skew.
  if app.future_time_problem(p_body, 'started_at') is not null or app.future_time_problem(p_body, 'finished_at') is not null then
    perform app.raise_if_invalid(app.session_problems(p_user_id, p_body));
  end if;
  v_status := coalesce(app.read_text(p_body, 'status'), 'completed');
  if v_status = 'in_progress' then
    perform app.raise_if_session_in_progress(p_user_id, p_session_id);
  end if;
  begin
    -- The members are read into variables first: a statement holding the readers would be
    -- planned afresh on every call (its custom plans fold each reader over the body's value,
    -- and the generic plan never looks cheaper than that), one holding variables only once.
    v_session_date := app.read_date(p_body, 'session_date');
    v_name := app.read_text(p_body, 'name');
    v_notes := app.read_text(p_body, 'notes');
    v_started_at := app.read_timestamp(p_body, 'started_at');
    v_finished_at := app.read_timestamp(p_body, 'finished_at');
    v_client_id := app.read_uuid(p_body, 'client_id');
    if p_session_id is null then
      -- A session without a date is dated by its start in the user's zone, else today.
      -- Worked out before the insert: Citus takes no subquery in an insert's values.
      if v_session_date is null then
        v_session_date := coalesce((v_started_at at time zone
                                     (select st.timezone from app.user_settings as st where st.user_id = p_user_id))::date,
                                   app.user_today(p_user_id));
      end if;
      insert into app.training_sessions (user_id, id, client_id, session_date, name, notes, status, started_at, finished_at)
      values (p_user_id, v_id, v_client_id, v_session_date, v_name, v_notes, v_status, v_started_at, v_finished_at);
    else
      update app.training_sessions
         set session_date = coalesce(v_session_date, session_date),
             name = v_name, notes = v_notes, status = v_status,
             started_at = coalesce(v_started_at, started_at),
             finished_at = coalesce(v_finished_at, finished_at),
             updated_at = now()
       where user_id = p_user_id and id = p_session_id;
      delete from app.session_exercises where user_id = p_user_id and session_id = p_session_id;
    end if;
    -- The exercises come with their totals; the session row's follow.
    perform app.write_session_exercises(p_user_id, v_id, coalesce(p_body -> 'exercises', '[]'));
    perform app.refresh_session_row_totals(p_user_id, v_id);
    if v_status = 'completed' and not app.session_is_complete(p_user_id, v_id) then
      perform app.raise_if_invalid(app.session_problems(p_user_id, p_body));
    end if;
  exception
    when unique_violation then
      raise;
    when others then
      -- Name every bad field (a reader refusing one value above names only that one); if
      -- the checks find none, the original error stands.
      perform app.raise_if_invalid(app.session_problems(p_user_id, p_body));
      raise;
  end;
  return v_id;
end
$$;

-- One logged set as the API shows it. One expression, inlined wherever it is used.
create or replace function app.set_json(p_set app.session_sets)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'reps', p_set.reps, 'weight_kg', p_set.weight_kg, 'rpe', p_set.rpe, 'rir', p_set.rir, 'set_type', p_set.set_type,
    'tempo', p_set.tempo, 'rest_seconds', p_set.rest_seconds, 'duration_seconds', p_set.duration_seconds,
    'distance_m', p_set.distance_m, 'assistance_kg', p_set.assistance_kg)
$$;

create or replace function app.sets_json(p_user_id uuid, p_session_id uuid, p_position integer)
returns jsonb
language sql
stable
as $$
  select coalesce(jsonb_agg(app.set_json(row(s.*)::app.session_sets) order by s.position), '[]')
    from app.session_sets as s
   where s.user_id = p_user_id and s.session_id = p_session_id and s.exercise_position = p_position
$$;

-- A session with its exercises and sets. PL/pgSQL with the sets aggregated in the same
-- statement: planned once per connection, where a SQL function (and app.sets_json for each
-- exercise) is planned on every call.
create or replace function app.session_json(p_session app.training_sessions)
returns jsonb
language plpgsql
stable
-- The session's fields are parameters a custom plan folds in: the planner sometimes kept
-- choosing custom plans, planning the statement on every call.
set plan_cache_mode = force_generic_plan
as $$
begin
  return jsonb_build_object(
    'id', p_session.id, 'client_id', p_session.client_id, 'session_date', p_session.session_date,
    'name', p_session.name, 'notes', p_session.notes, 'status', p_session.status,
    'started_at', p_session.started_at, 'finished_at', p_session.finished_at,
    'created_at', p_session.created_at, 'updated_at', p_session.updated_at,
    'exercises', coalesce((
      select jsonb_agg(jsonb_build_object(
               'exercise_id', coalesce(e.exercise_id, e.user_exercise_id), 'exercise_name', e.exercise_name,
               'notes', e.notes, 'group', e.superset_group, 'group_rest_seconds', e.group_rest_seconds,
               'sets', coalesce((select jsonb_agg(app.set_json(row(s.*)::app.session_sets) order by s.position)
                                   from app.session_sets as s
                                  where s.user_id = e.user_id and s.session_id = e.session_id
                                    and s.exercise_position = e.position), '[]')) order by e.position)
        from app.session_exercises as e
       where e.user_id = p_session.user_id and e.session_id = p_session.id), '[]'));
end
$$;
-- On Citus: planned for each call (liftbase_meta.on_citus_plan_each_call says why).
select liftbase_meta.on_citus_plan_each_call('app.session_json(app.training_sessions)');

create or replace function app.find_session(p_user_id uuid, p_args jsonb)
returns app.training_sessions
language plpgsql
stable
as $$
declare
  -- Read first: in the statement, the reader would be folded over each call's arguments and
  -- the statement planned on every call.
  v_id uuid := app.id_parameter(p_args, 'id');
  v_session app.training_sessions;
begin
  select s.* into v_session from app.training_sessions as s where s.user_id = p_user_id and s.id = v_id;
  if v_session.id is null then
    perform app.raise_error(404, 'session_not_found', 'No such session.');
  end if;
  return v_session;
end
$$;

grant execute on function
  app.takes_e1rm(text),
  app.rpe_chart_percent(integer, numeric),
  app.exercise_totals(app.session_sets[], text),
  app.refresh_session_totals(uuid, uuid),
  app.refresh_sessions_totals(uuid, uuid[]),
  app.refresh_session_row_totals(uuid, uuid),
  app.raise_if_session_in_progress(uuid, uuid),
  app.set_field_rule(text, text),
  app.set_fit_problems(text, text[]),
  app.target_field_rule(text, text),
  app.target_fit_problems(text, text[]),
  app.target_problems(jsonb, text, text),
  app.target_set(text, integer, numeric, numeric, integer, numeric),
  app.set_measures(numeric, numeric, integer, integer, numeric),
  app.exercise_tracking_types(uuid, uuid[], uuid[]),
  app.exercise_tracking_type(uuid, uuid, uuid),
  app.raise_if_sets_misfit(uuid, uuid[]),
  app.set_problems(jsonb, text, text),
  app.session_problems(uuid, jsonb),
  app.write_session_exercises(uuid, uuid, jsonb),
  app.session_is_complete(uuid, uuid),
  app.save_session(uuid, uuid, jsonb),
  app.set_fits(text, numeric, numeric, integer, integer, numeric),
  app.set_json(app.session_sets),
  app.sets_json(uuid, uuid, integer),
  app.session_json(app.training_sessions),
  app.find_session(uuid, jsonb)
to liftbase_api;

-- The weekly summary: the completed sessions of the 7 days from p_start, per day and in all:
-- sessions, minutes, working sets, volume (kg × reps of working sets), the seconds of timed
-- working sets (holds, runs) and the distance covered, from the totals
-- app.refresh_session_totals keeps on each session row. Only the week's sessions are read
-- (an index range of the user's sessions by date), never the sets, whatever the history.
create or replace function app.weekly_summary(p_user_id uuid, p_start date)
returns jsonb
language plpgsql
stable
as $$
begin
  return (
    with days as (
      select d::date as day,
             count(s.id) as sessions,
             coalesce(sum(extract(epoch from s.finished_at - s.started_at) / 60), 0) as duration_minutes,
             coalesce(sum(s.working_sets), 0) as working_sets,
             coalesce(sum(s.volume_kg), 0) as volume_kg,
             coalesce(sum(s.set_duration_seconds), 0) as set_duration_seconds,
             coalesce(sum(s.distance_m), 0) as distance_m
        -- Days as timestamps without time zone: the server's TimeZone plays no part.
        from generate_series(p_start::timestamp, (p_start + 6)::timestamp, interval '1 day') as d
        left join app.training_sessions as s
          on s.user_id = p_user_id and s.session_date = d::date and s.status = 'completed'
         and s.session_date between p_start and p_start + 6
       group by d
    )
    select jsonb_build_object(
      'week_start', p_start, 'week_end', p_start + 6,
      'sessions', sum(sessions), 'duration_minutes', round(sum(duration_minutes)),
      'working_sets', sum(working_sets), 'volume_kg', sum(volume_kg),
      'set_duration_seconds', sum(set_duration_seconds), 'distance_m', sum(distance_m),
      'days', jsonb_agg(jsonb_build_object('date', day, 'sessions', sessions,
                                           'duration_minutes', round(duration_minutes),
                                           'working_sets', working_sets, 'volume_kg', volume_kg,
                                           'set_duration_seconds', set_duration_seconds, 'distance_m', distance_m)
                        order by day))
      from days);
end
$$;
grant execute on function app.weekly_summary(uuid, date) to liftbase_api;

create or replace function app.template_json(p_template app.templates)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object('id', p_template.id, 'name', p_template.name, 'description', p_template.description,
    -- Sets in the shape of logged ones, with the measures the exercise's type takes
    -- (app.target_set); the load is the lifter's to choose.
    'exercises', (select jsonb_agg(jsonb_build_object(
                           'exercise_id', e.id, 'exercise_name', e.name, 'tracking_type', e.tracking_type,
                           'reps_max', t.reps_max,
                           'sets', (select jsonb_agg(s.one_set)
                                      from (select app.target_set(e.tracking_type, t.reps, null, null, t.duration_seconds,
                                                                  t.distance_m)
                                                   || jsonb_build_object('weight_kg', null, 'set_type', 'working',
                                                                         'rest_seconds', t.rest_seconds) as one_set
                                              from generate_series(1, t.sets)) as s)) order by t.position)
                    from app.template_exercises as t join app.exercises as e on e.id = t.exercise_id
                   where t.template_id = p_template.id))
$$;
grant execute on function app.template_json(app.templates) to liftbase_api;

-- Estimated one-rep max of a set: weight ÷ the RPE chart's percentage when the set has an
-- RPE the chart covers (p_chart_percent: app.rpe_chart's percent for the set's reps and
-- RPE, joined by the caller; null when the chart has no cell), else Epley: weight × (1 +
-- reps / 30). Session exercises store their best value: a change of formula needs a
-- migration that recomputes them too.
create or replace function app.e1rm_kg(p_weight numeric, p_reps integer, p_chart_percent numeric)
returns numeric
language sql
immutable
parallel safe
as $$ select coalesce(p_weight * 100 / p_chart_percent, p_weight * (1 + p_reps / 30.0)) $$;

create or replace function app.e1rm_method(p_chart_percent numeric)
returns text
language sql
immutable
parallel safe
as $$ select case when p_chart_percent is null then 'epley' else 'rpe_chart' end $$;

-- The RPE of a set: as logged, else from reps in reserve (RPE 10 = no rep left).
create or replace function app.effective_rpe(p_rpe numeric, p_rir integer)
returns numeric
language sql
immutable
parallel safe
as $$ select coalesce(p_rpe, 10 - p_rir) $$;
grant execute on function app.e1rm_kg(numeric, integer, numeric), app.e1rm_method(numeric),
  app.effective_rpe(numeric, integer) to liftbase_api;
