-- Writing a workout session from a request: validation (every bad field named by its path),
-- the one session in progress, the completed session's rule, and the writer of the rows.

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

-- The one writer of training sessions: the sessions API (app.save_session: POST and PUT
-- /training/sessions, a plan or a program's session logged), the workout imports
-- (app.import_workouts) and the Liftbase import write their sessions, exercises and sets
-- through it. The caller gives the rows with their keys drawn (Citus sends no statement
-- that calls a volatile function); a session whose id, client_id or import key the user
-- holds already is skipped with its rows. A session without a status is completed, one
-- without created_at is created now. Returns the ids of the sessions written.
create or replace function app.write_sessions(p_user_id uuid, p_sessions app.training_sessions[],
                                              p_exercises app.session_exercises[], p_sets app.session_sets[])
returns uuid[]
language plpgsql
as $$
declare
  v_written uuid[];
begin
  -- Written from the user's settings row: Citus sends such an insert whole to the user's
  -- worker (an insert from a plain select is copied there, which row-level security refuses).
  with written as (
    insert into app.training_sessions as n (user_id, id, client_id, import_key, session_date, name, notes, status,
                                            started_at, finished_at, created_at)
    select u.user_id, s.id, s.client_id, s.import_key, s.session_date, s.name, s.notes, coalesce(s.status, 'completed'),
           s.started_at, s.finished_at, coalesce(s.created_at, now())
      from app.user_settings as u
     cross join unnest(p_sessions) as s
     where u.user_id = p_user_id
    on conflict do nothing
    returning n.id)
  select coalesce(array_agg(w.id), '{}') into v_written from written as w;
  if cardinality(v_written) = cardinality(p_sessions) then
    perform app.write_session_children(p_user_id, v_written, p_exercises, p_sets);
  else
    -- The rows of the sessions written (a hashed lookup of the ids, not a scan of the list).
    perform app.write_session_children(p_user_id, v_written,
      array(select row(e.*)::app.session_exercises from unnest(p_exercises) as e
             where e.session_id in (select unnest(v_written))),
      array(select row(s.*)::app.session_sets from unnest(p_sets) as s
             where s.session_id in (select unnest(v_written))));
  end if;
  return v_written;
end
$$;

-- The exercises and sets (p_exercises, p_sets) of the sessions p_session_ids, each
-- exercise with its totals (app.exercise_totals of its sets, so nothing written is read back
-- and no exercise row is written twice), then the totals of the session rows. Refuses
-- (check_violation) when a set breaks the set rule of its exercise's tracking type, before
-- writing; the API and the imports then name the rows at fault in their own words. Each
-- exercise's type is asked once (app.exercise_tracking_type), in a statement that reads no
-- table: Citus sends the writes whole to the user's worker, where a function that reads
-- tables cannot run. A set without a set_type is a working set.
create or replace function app.write_session_children(p_user_id uuid, p_session_ids uuid[],
                                                      p_exercises app.session_exercises[], p_sets app.session_sets[])
returns void
language plpgsql
-- One plan per connection: a custom plan for each call's lists cost more than the write.
set plan_cache_mode = force_generic_plan
as $$
declare
  v_sets app.session_sets[];
  v_types text[];
  v_type_of jsonb;
  v_count integer;
begin
  if cardinality(p_session_ids) = 0 then
    return;
  end if;
  v_sets := array(select row(s.user_id, s.session_id, s.exercise_position, s.position, s.reps, s.weight_kg, s.rpe,
                             s.rir, coalesce(s.set_type, 'working'), s.tempo, s.rest_seconds, s.duration_seconds,
                             s.distance_m, s.assistance_kg)::app.session_sets
                    from unnest(p_sets) as s);
  v_types := array(select app.exercise_tracking_type(p_user_id, e.exercise_id, e.user_exercise_id)
                     from unnest(p_exercises) with ordinality as e order by e.ordinality);
  -- {"session id/position": tracking type}, for the sets to find their exercise's by key.
  v_type_of := (select coalesce(jsonb_object_agg(e.session_id || '/' || e.position, v_types[e.ordinality]), '{}')
                  from unnest(p_exercises) with ordinality as e);
  if exists (select from unnest(v_sets) as s
              where not app.set_fits(v_type_of ->> (s.session_id || '/' || s.exercise_position), s.weight_kg,
                                     s.assistance_kg, s.reps, s.duration_seconds, s.distance_m)) then
    raise exception using errcode = 'check_violation', message = 'a set does not fit its exercise''s tracking type';
  end if;
  -- One statement: each insert selects from the user's settings row, so that Citus sends it
  -- whole to the user's worker (an insert from a plain select is copied there, which
  -- row-level security refuses), in this order (the sets' foreign key). Each exercise's sets
  -- are handed to its totals as one list.
  with sets_by_exercise as (
    select s.session_id, s.exercise_position, array_agg(row(s.*)::app.session_sets) as sets
      from unnest(v_sets) as s group by s.session_id, s.exercise_position
  ), exercises as (
    insert into app.session_exercises as n (user_id, session_id, position, exercise_id, user_exercise_id, exercise_name,
                                            notes, superset_group, group_rest_seconds, working_sets, max_weight_kg,
                                            max_reps, max_duration_seconds, max_distance_m, best_pace_s_per_km,
                                            duration_seconds, distance_m, paced_seconds, paced_distance_m,
                                            best_set_position, best_e1rm_kg, best_weight_kg, best_reps, best_rpe,
                                            best_e1rm_method)
    select u.user_id, e.session_id, e.position, e.exercise_id, e.user_exercise_id, e.exercise_name, e.notes,
           e.superset_group, e.group_rest_seconds, t.*
      from app.user_settings as u
     cross join unnest(p_exercises) with ordinality as e
      left join sets_by_exercise as g on g.session_id = e.session_id and g.exercise_position = e.position
     cross join lateral app.exercise_totals(coalesce(g.sets, '{}'), v_types[e.ordinality]) as t
     where u.user_id = p_user_id
    returning n.position
  ), written_sets as (
    insert into app.session_sets as n (user_id, session_id, exercise_position, position, reps, weight_kg, rpe, rir,
                                       set_type, tempo, rest_seconds, duration_seconds, distance_m, assistance_kg)
    select u.user_id, s.session_id, s.exercise_position, s.position, s.reps, s.weight_kg, s.rpe, s.rir, s.set_type,
           s.tempo, s.rest_seconds, s.duration_seconds, s.distance_m, s.assistance_kg
      from app.user_settings as u
     cross join unnest(v_sets) as s
     where u.user_id = p_user_id
    returning n.position
  )
  select count(*) into v_count from written_sets;
  perform app.refresh_session_row_totals(p_user_id, i) from unnest(p_session_ids) as i;
end
$$;
-- On Citus: planned for each call (liftbase_meta.on_citus_plan_each_call says why).
select liftbase_meta.on_citus_plan_each_call('app.write_session_children(uuid, uuid[], app.session_exercises[], app.session_sets[])');

-- A request's exercises (p_exercises: [{exercise_id | exercise_name, notes, group,
-- group_rest_seconds, sets: [...]}]) as rows of session p_session_id for
-- app.write_session_children, each exercise resolved (app.resolve_exercise). The rows are
-- built by statements that read no table but through app.resolve_exercise, which Citus
-- runs on the coordinator.
create or replace function app.session_rows_of(p_user_id uuid, p_session_id uuid, p_exercises jsonb,
  out exercises app.session_exercises[], out sets app.session_sets[])
language plpgsql
stable
as $$
begin
  exercises := array(
    -- The table's columns in its order; the totals are the writer's.
    select row(p_user_id, p_session_id, x.n, r.exercise_id, r.user_exercise_id, r.exercise_name,
               app.read_text(x.item, 'notes'), 0, null, null, null, null, null, null,
               app.read_integer(x.item, 'group'), app.read_integer(x.item, 'group_rest_seconds'),
               null, null, null, null, null, 0, 0, 0, 0)::app.session_exercises
      from jsonb_array_elements(p_exercises) with ordinality as x (item, n)
     cross join lateral app.resolve_exercise(p_user_id, x.item) as r
     order by x.n);
  sets := array(
    -- The table's columns in its order.
    select row(p_user_id, p_session_id, x.n, s.m, app.read_integer(s.item, 'reps'), app.read_number(s.item, 'weight_kg'),
               app.read_number(s.item, 'rpe'), app.read_integer(s.item, 'rir'), app.read_text(s.item, 'set_type'),
               app.read_text(s.item, 'tempo'), app.read_integer(s.item, 'rest_seconds'),
               app.read_integer(s.item, 'duration_seconds'), app.read_number(s.item, 'distance_m'),
               app.read_number(s.item, 'assistance_kg'))::app.session_sets
      from jsonb_array_elements(p_exercises) with ordinality as x (item, n)
     cross join lateral jsonb_array_elements(coalesce(x.item -> 'sets', '[]')) with ordinality as s (item, m)
     order by x.n, s.m);
end
$$;

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
                           where s.user_id = e.user_id and s.session_id = e.session_id
                             and s.exercise_position = e.position));
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
  v_rows record;
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
                                     (select st.timezone from app.user_settings as st
                                       where st.user_id = p_user_id))::date,
                                   app.user_today(p_user_id));
      end if;
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
    v_rows := app.session_rows_of(p_user_id, v_id, coalesce(p_body -> 'exercises', '[]'));
    if p_session_id is null then
      -- The table's columns in its order; the totals are the writer's.
      if cardinality(app.write_sessions(p_user_id,
            array[row(p_user_id, v_id, v_client_id, v_session_date, v_name, v_notes, v_status, v_started_at,
                      v_finished_at, null, null, 0, 0, 0, 0, null, 0, 0)::app.training_sessions],
            v_rows.exercises, v_rows.sets)) = 0 then
        -- Its caller asked app.replayed_key first: a taken client_id here is a caller's mistake.
        raise exception using errcode = 'unique_violation', message = 'the session''s client_id is taken';
      end if;
    else
      perform app.write_session_children(p_user_id, array[v_id], v_rows.exercises, v_rows.sets);
    end if;
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

grant execute on function
  app.session_problems(uuid, jsonb),
  app.write_sessions(uuid, app.training_sessions[], app.session_exercises[], app.session_sets[]),
  app.write_session_children(uuid, uuid[], app.session_exercises[], app.session_sets[]),
  app.session_rows_of(uuid, uuid, jsonb),
  app.session_is_complete(uuid, uuid),
  app.raise_if_session_in_progress(uuid, uuid),
  app.save_session(uuid, uuid, jsonb)
to liftbase_api;
