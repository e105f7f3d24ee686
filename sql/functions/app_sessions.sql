-- Workout sessions as the API shows them: finding one, its JSON with sets, the weekly
-- summary and a template's JSON.

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

-- The weekly summary: the completed sessions of the 7 days from p_start, per day and in all:
-- sessions, minutes, working sets, volume (kg × reps of working sets), the seconds of timed
-- working sets (holds, runs) and the distance covered, from the totals the session writer
-- keeps on each session row (app.refresh_session_row_totals). Only the week's sessions are
-- read (an index range of the user's sessions by date), never the sets, whatever the history.
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
                                      from (select app.target_set(e.tracking_type, t.reps, null, null,
                                                                  t.duration_seconds, t.distance_m)
                                                   || jsonb_build_object('weight_kg', null, 'set_type', 'working',
                                                                         'rest_seconds', t.rest_seconds) as one_set
                                              from generate_series(1, t.sets)) as s)) order by t.position)
                    from app.template_exercises as t join app.exercises as e on e.id = t.exercise_id
                   where t.template_id = p_template.id))
$$;

grant execute on function
  app.set_json(app.session_sets),
  app.sets_json(uuid, uuid, integer),
  app.session_json(app.training_sessions),
  app.find_session(uuid, jsonb),
  app.weekly_summary(uuid, date),
  app.template_json(app.templates)
to liftbase_api;
