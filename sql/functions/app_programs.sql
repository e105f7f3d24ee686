-- Programs: phase plans, splits, the schedule (skips and combined sessions), per-set
-- targets, short-on-time trimming, and the JSON shapes. The progression strategies
-- themselves are in app_progression.sql.

-- The blocks and phases of a program, by goal and training age. Main lifts take
-- main_reps at main_rpe; the other exercises climb the accessory range. Deloads halve the
-- sets and take 10 % off the loads; they never move the progression (app.apply_program_log).
create or replace function app.program_phase_plan(p_goal text, p_training_age text)
returns table (phase_position integer, block_position integer, block text, phase text, first_week integer,
               last_week integer, main_reps integer, main_rpe numeric, accessory_reps_low integer,
               accessory_reps_high integer, accessory_rpe numeric, set_factor numeric, load_factor numeric)
language sql
immutable
as $$
  select v.phase_position, v.block_position, v.block, v.phase, v.first_week, v.last_week, v.main_reps, v.main_rpe,
         v.accessory_reps_low, v.accessory_reps_high, v.accessory_rpe, v.set_factor, v.load_factor
    from (values
      ('strength', 'novice', 1, 1, 'Linear progression', 'linear', 1, 6, 5, 8.0, 8, 12, 8.0, 1.0, 1.0),
      ('strength', 'novice', 2, 1, 'Linear progression', 'deload', 7, 7, 5, 6.0, 8, 12, 6.0, 0.5, 0.9),
      ('strength', 'intermediate', 1, 1, 'Volume', 'accumulation', 1, 3, 6, 7.5, 8, 12, 8.0, 1.0, 1.0),
      ('strength', 'intermediate', 2, 2, 'Strength', 'intensification', 4, 6, 4, 8.5, 6, 10, 8.0, 1.0, 1.0),
      ('strength', 'intermediate', 3, 2, 'Strength', 'deload', 7, 7, 4, 6.0, 6, 10, 6.0, 0.5, 0.9),
      ('strength', 'advanced', 1, 1, 'Volume', 'accumulation', 1, 3, 6, 7.5, 8, 12, 8.0, 1.0, 1.0),
      ('strength', 'advanced', 2, 2, 'Strength', 'intensification', 4, 6, 4, 8.5, 6, 10, 8.0, 1.0, 1.0),
      ('strength', 'advanced', 3, 3, 'Peak', 'realization', 7, 8, 2, 9.0, 6, 8, 7.5, 0.7, 1.0),
      ('strength', 'advanced', 4, 3, 'Peak', 'deload', 9, 9, 3, 6.0, 6, 8, 6.0, 0.5, 0.9),
      ('hypertrophy', 'novice', 1, 1, 'Foundation', 'linear', 1, 6, 8, 7.5, 10, 15, 8.0, 1.0, 1.0),
      ('hypertrophy', 'novice', 2, 1, 'Foundation', 'deload', 7, 7, 8, 6.0, 10, 15, 6.0, 0.5, 0.9),
      ('hypertrophy', 'intermediate', 1, 1, 'Hypertrophy', 'accumulation', 1, 4, 8, 7.5, 10, 15, 8.5, 1.0, 1.0),
      ('hypertrophy', 'intermediate', 2, 1, 'Hypertrophy', 'deload', 5, 5, 8, 6.0, 10, 15, 6.0, 0.5, 0.9),
      ('hypertrophy', 'advanced', 1, 1, 'Hypertrophy', 'accumulation', 1, 4, 8, 8.0, 10, 15, 9.0, 1.0, 1.0),
      ('hypertrophy', 'advanced', 2, 2, 'Overreach', 'intensification', 5, 6, 6, 8.5, 8, 12, 9.0, 1.0, 1.0),
      ('hypertrophy', 'advanced', 3, 2, 'Overreach', 'deload', 7, 7, 6, 6.0, 8, 12, 6.0, 0.5, 0.9)
    ) as v (goal, training_age, phase_position, block_position, block, phase, first_week, last_week, main_reps,
            main_rpe, accessory_reps_low, accessory_reps_high, accessory_rpe, set_factor, load_factor)
   where v.goal = p_goal and v.training_age = p_training_age
$$;

-- The rotation when the request names none: 2–3 days full body, 4 upper/lower, 5 push,
-- pull, legs, upper, lower, 6 push/pull/legs twice.
create or replace function app.default_split(p_days_per_week integer)
returns text[]
language sql
immutable
as $$
  select case when p_days_per_week <= 3 then array['full_body']
              when p_days_per_week = 4 then array['upper', 'lower']
              when p_days_per_week = 5 then array['push', 'pull', 'legs', 'upper', 'lower']
              else array['push', 'pull', 'legs'] end
$$;

-- Program weeks count training slots, not calendar days: slot n of a program with d days
-- per week is in week (n − 1) / d + 1, so a skip (which inserts a slot) moves later
-- sessions into later weeks.
create or replace function app.program_week(p_slot integer, p_days_per_week integer)
returns integer
language sql
immutable
as $$ select (p_slot - 1) / p_days_per_week + 1 $$;

-- The phase of a week; past the last phase (the schedule grew by skips) the last one.
-- PL/pgSQL here and in the other functions GET /program/next runs: their plans are
-- cached per connection, where a SQL function's would be planned on every call.
create or replace function app.program_phase_at(p_user_id uuid, p_program_id uuid, p_week integer)
returns app.program_phases
language plpgsql
stable
as $$
declare
  v_phase app.program_phases;
begin
  select f.* into v_phase from app.program_phases as f
   where f.user_id = p_user_id and f.program_id = p_program_id and f.first_week <= p_week
   order by f.position desc
   limit 1;
  return v_phase;
end
$$;

-- Problems with a POST /program body.
create or replace function app.program_problems(p_body jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  v_problem text;
begin
  if app.input_problem(p_body -> 'split', 'string[]') is not null then
    v_problem := obj_description('app.program_split'::regtype, 'pg_type');
  elsif app.read_text_list(p_body, 'split') is not null then
    begin
      perform app.read_text_list(p_body, 'split')::app.program_split;
    exception when check_violation then
      v_problem := obj_description('app.program_split'::regtype, 'pg_type');
    end;
  end if;
  return jsonb_build_object(
    'goal', app.field_problem(p_body, 'goal', 'app.program_goal'),
    'training_age', app.field_problem(p_body, 'training_age', 'app.training_age'),
    'days_per_week', app.field_problem(p_body, 'days_per_week', 'app.days_per_week'),
    'split', v_problem);
end
$$;

-- Creates the active program (ending the one there was): phases, every planned slot, and
-- starting loads from history. A starting load is the heaviest set done as prescribed
-- (app.counts_for_progression; 1–12 reps) of the latest completed session with the
-- exercise or its catalog family (app.exercise_family: a near-duplicate is the same lift),
-- converted to the first phase's target reps (Epley); without history the load
-- is left for the first log to set. Only load × reps exercises start from history: the
-- added load of a bodyweight exercise is no load to convert by Epley.
create or replace function app.create_program(p_user_id uuid, p_body jsonb)
returns uuid
language plpgsql
as $$
declare
  v_id uuid := gen_random_uuid();
  v_days integer := app.read_integer(p_body, 'days_per_week');
  v_split text[] := coalesce(app.read_text_list(p_body, 'split'), '{}');
  v_first app.program_phases;
  v_slots integer;
  v_slot_ids uuid[];
  v_exercise_ids uuid[];
  v_loads numeric[];
  v_main_reps integer[];
begin
  if cardinality(v_split) = 0 then
    v_split := app.default_split(v_days);
  end if;
  update app.programs set status = 'ended', ended_at = now() where user_id = p_user_id and status = 'active';
  -- clock_timestamp: programs created in one transaction keep their order.
  insert into app.programs (user_id, id, goal, training_age, days_per_week, split, started_on, created_at)
  values (p_user_id, v_id, p_body ->> 'goal', p_body ->> 'training_age', v_days, v_split, app.user_today(p_user_id),
          clock_timestamp());
  -- Each insert below selects from the program's row, with every value read before (the
  -- slots' keys drawn before, too), so that Citus sends it whole to the user's worker: an
  -- insert from a plain select would be copied there, which row-level security refuses,
  -- and a volatile call keeps Citus from sending a statement (docs/scaling.md).
  insert into app.program_phases as n (user_id, program_id, position, block_position, block, phase, first_week,
                                       last_week, main_reps, main_rpe, accessory_reps_low, accessory_reps_high,
                                       accessory_rpe, set_factor, load_factor)
  select g.user_id, g.id, f.*
    from app.programs as g
   cross join app.program_phase_plan(p_body ->> 'goal', p_body ->> 'training_age') as f
   where g.user_id = p_user_id and g.id = v_id;
  v_slots := v_days * (select max(f.last_week)
                         from app.program_phase_plan(p_body ->> 'goal', p_body ->> 'training_age') as f);
  v_slot_ids := array(select gen_random_uuid() from generate_series(1, v_slots));
  insert into app.program_sessions as n (user_id, program_id, id, slot, templates)
  select g.user_id, g.id, i.id, i.slot, array[v_split[(i.slot - 1) % cardinality(v_split) + 1]]
    from app.programs as g
   cross join unnest(v_slot_ids) with ordinality as i (id, slot)
   where g.user_id = p_user_id and g.id = v_id;
  v_first := app.program_phase_at(p_user_id, v_id, 1);
  select coalesce(array_agg(e.id), '{}'),
         coalesce(array_agg(app.equivalent_load(h.weight_kg, h.reps,
                                                case when m.main then v_first.main_reps
                                                     else v_first.accessory_reps_low end,
                                                app.load_step(e.equipment))), '{}'),
         coalesce(array_agg(case when m.main then v_first.main_reps end), '{}')
    into v_exercise_ids, v_loads, v_main_reps
    from app.exercises as e
   cross join lateral (select e.priority_tier = 1 or e.competition_lift as main,
                              app.exercise_family(e.id) as family) as m
    left join lateral (
      select s.weight_kg, s.reps
        from app.session_exercises as se
        join app.training_sessions as ts
          on ts.user_id = se.user_id and ts.id = se.session_id and ts.status = 'completed'
        join app.session_sets as s
          on s.user_id = se.user_id and s.session_id = se.session_id and s.exercise_position = se.position
       where se.user_id = p_user_id and se.exercise_id = any (m.family) and e.tracking_type = 'weight_reps'
         and app.counts_for_progression(s.set_type) and s.weight_kg > 0 and s.reps between 1 and 12
       order by ts.session_date desc, ts.created_at desc, s.weight_kg desc, s.reps desc
       limit 1) as h on true
   where e.id in (select t.exercise_id from app.template_exercises as t where t.template_id = any (v_split));
  insert into app.program_exercise_state as n (user_id, program_id, exercise_id, load_kg, reps)
  select g.user_id, g.id, x.exercise_id, x.load_kg, case when x.main_reps is null then '{}' else array[x.main_reps] end
    from app.programs as g
   cross join unnest(v_exercise_ids, v_loads, v_main_reps) as x (exercise_id, load_kg, main_reps)
   where g.user_id = p_user_id and g.id = v_id;
  return v_id;
end
$$;

create or replace function app.find_active_program(p_user_id uuid)
returns app.programs
language plpgsql
stable
as $$
declare
  v_program app.programs;
begin
  select p.* into v_program from app.programs as p where p.user_id = p_user_id and p.status = 'active';
  if v_program.id is null then
    perform app.raise_error(404, 'program_not_found', 'No active program: create one first.');
  end if;
  return v_program;
end
$$;

create or replace function app.find_program_session(p_user_id uuid, p_args jsonb)
returns app.program_sessions
language plpgsql
stable
as $$
declare
  v_session app.program_sessions;
begin
  select s.* into v_session from app.program_sessions as s
   where s.user_id = p_user_id and s.id = app.id_parameter(p_args, 'id');
  if v_session.id is null then
    perform app.raise_error(404, 'program_session_not_found', 'No such program session.');
  end if;
  return v_session;
end
$$;

-- A planned session of the active program, or 404 / 409.
create or replace function app.find_open_program_session(p_user_id uuid, p_args jsonb)
returns app.program_sessions
language plpgsql
stable
as $$
declare
  v_session app.program_sessions := app.find_program_session(p_user_id, p_args);
begin
  if v_session.status <> 'planned' then
    perform app.raise_error(409, 'program_session_closed', format('This session is already %s.', v_session.status));
  end if;
  if not exists (select from app.programs as p
                  where p.user_id = p_user_id and p.id = v_session.program_id and p.status = 'active') then
    perform app.raise_error(409, 'program_ended', 'This session belongs to a program that has ended.');
  end if;
  return v_session;
end
$$;
grant execute on function app.find_open_program_session(uuid, jsonb) to liftbase_api;

-- The first planned slot of a program (null when every slot is done).
create or replace function app.next_program_session(p_user_id uuid, p_program_id uuid)
returns app.program_sessions
language plpgsql
stable
as $$
declare
  v_session app.program_sessions;
begin
  select s.* into v_session from app.program_sessions as s
   where s.user_id = p_user_id and s.program_id = p_program_id and s.status = 'planned'
   order by s.slot
   limit 1;
  return v_session;
end
$$;

-- The exercises of a planned session with their targets. A combined session holds every
-- exercise of its templates once, with the sets of both workouts added up before its
-- volume factor applies. Sets = template sets × phase set factor × session volume factor,
-- rounded, at least one. Loads come from the progression state (null until known). The
-- targets follow the exercise's type (app.progression_strategy): reps for the load
-- strategies and the reps one (null for timed and distance work), a duration for timed
-- work (the state's, else the template's, else 30 s), the template's distance.
create or replace function app.program_plan(p_user_id uuid, p_session_id uuid)
returns table (exercise_position integer, exercise_id uuid, exercise_name text, priority_tier integer,
               competition_lift boolean, tracking_type text, strategy text, increment_kg numeric, reps integer[],
               load_kg numeric, rpe numeric, duration_seconds integer, distance_m numeric)
language plpgsql
stable
-- A session holds a handful of exercises. Left at the default of 1000 rows, the statement
-- building each set's targets (app.program_session_json) looked like a million sets and
-- crossed the JIT threshold: compiling it took 25 ms of a 30 ms GET /program/next.
rows 10
as $$
#variable_conflict use_column
begin
  return query
  with s as (
    select ps.slot, ps.templates, ps.volume_factor, ps.program_id, p.training_age,
           app.program_week(ps.slot, p.days_per_week) as week
      from app.program_sessions as ps
      join app.programs as p on p.user_id = ps.user_id and p.id = ps.program_id
     where ps.user_id = p_user_id and ps.id = p_session_id),
  ph as (select f.*, s.week from s cross join lateral app.program_phase_at(p_user_id, s.program_id, s.week) as f),
  te as (
    select t.exercise_id, min(o.n * 100 + t.position)::integer as ord, sum(t.sets) as sets,
           max(t.duration_seconds)::integer as duration_seconds, max(t.distance_m) as distance_m
      from s cross join unnest(s.templates) with ordinality as o (template_id, n)
      join app.template_exercises as t on t.template_id = o.template_id
     group by t.exercise_id)
  select te.ord, e.id, e.name::text, e.priority_tier::integer, e.competition_lift, e.tracking_type::text, x.strategy,
         x.increment,
         case x.strategy
           when 'double' then app.double_rep_targets(st.reps, ph.accessory_reps_low, ph.accessory_reps_high, x.sets)
           -- No top to the range: reps are the progress (app.progress_reps).
           when 'reps' then app.double_rep_targets(st.reps, x.reps_low, 1000, x.sets)
           when 'duration' then array_fill(null::integer, array[x.sets])
           when 'hold' then array_fill(null::integer, array[x.sets])
           else array_fill(ph.main_reps, array[x.sets]) end,
         app.loadable(case x.strategy
                        when 'rpe_weekly'
                          then app.equivalent_load(app.rpe_weekly_load(row(st.*)::app.program_exercise_state, ph.week,
                                                                       x.increment, x.step),
                                                   st.reps[1], ph.main_reps, x.step)
                        when 'linear' then app.equivalent_load(st.load_kg, st.reps[1], ph.main_reps, x.step)
                        else st.load_kg end * ph.load_factor,
                      x.step),
         case when x.main then ph.main_rpe else ph.accessory_rpe end,
         case x.strategy when 'duration' then coalesce(st.duration_seconds, te.duration_seconds, 30)
                         when 'hold' then te.duration_seconds end,
         te.distance_m
    from s
   cross join ph
   cross join te
    join app.exercises as e on e.id = te.exercise_id
    left join app.program_exercise_state as st
      on st.user_id = p_user_id and st.program_id = s.program_id and st.exercise_id = e.id
   cross join lateral (
     select app.progression_strategy(s.training_age, e.priority_tier, e.competition_lift, e.tracking_type) as strategy,
            e.priority_tier = 1 or e.competition_lift as main,
            case when e.priority_tier = 1 or e.competition_lift then ph.main_reps
                 else ph.accessory_reps_low end as reps_low,
            app.load_increment(e.primary_muscles, e.movement_pattern, e.equipment) as increment,
            app.load_step(e.equipment) as step,
            greatest(1, round(te.sets * ph.set_factor * s.volume_factor))::integer as sets) as x;
end
$$;

-- Short on time: a session of about half its sets. Primary sets (priority tier 1 and
-- competition lifts) are always kept, however many they are; accessories go first by
-- tier (3 before 2), within a tier from the last exercise's last set backwards.
-- p_sets: the session's sets in order, each with priority_tier and competition_lift.
create or replace function app.trim_for_time(p_sets jsonb)
returns jsonb
language sql
immutable
as $$
  with s as (
    select x.item, x.n, (x.item ->> 'priority_tier')::integer as tier,
           (x.item ->> 'priority_tier')::integer = 1
             or coalesce((x.item ->> 'competition_lift')::boolean, false) as main
      from jsonb_array_elements(p_sets) with ordinality as x (item, n)),
  budget as (select count(*) - ceil(count(*) / 2.0) as to_drop from s),
  ranked as (
    select s.item, s.n,
           case when not s.main
                then row_number() over (partition by s.main order by s.tier desc, s.n desc) end as drop_rank
      from s)
  select jsonb_build_object(
    'kept', coalesce(jsonb_agg(r.item order by r.n) filter (where r.drop_rank is null or r.drop_rank > b.to_drop),
                     '[]'),
    'dropped', coalesce(jsonb_agg(r.item order by r.n) filter (where r.drop_rank <= b.to_drop), '[]'))
    from ranked as r cross join budget as b
$$;

-- The seconds of a tempo's first phase (the eccentric); X (explosive) is 0.
create or replace function app.eccentric_seconds(p_tempo text)
returns integer
language sql
immutable
as $$ select case when split_part(p_tempo, '-', 1) ~ '^[0-9]+$' then split_part(p_tempo, '-', 1)::integer end $$;

-- Warnings of a session or block from its working-set counts: slow_eccentric when most
-- working sets of a hypertrophy program take 5 s or more to lower. Eccentrics that slow
-- cost load and reps without adding growth; 2–4 s is plenty.
create or replace function app.training_warnings(p_goal text, p_working_sets bigint, p_slow_eccentric_sets bigint)
returns jsonb
language sql
immutable
as $$
  select case when p_goal = 'hypertrophy' and p_slow_eccentric_sets * 2 > p_working_sets
              then jsonb_build_array(jsonb_build_object(
                     'code', 'slow_eccentric',
                     'message', format('%s of %s working sets lower the weight in 5 s or more: such slow eccentrics cost load and reps without adding growth; 2–4 s is enough.',
                                       p_slow_eccentric_sets, p_working_sets)))
              else '[]'::jsonb end
$$;

-- Warnings over the working sets (app.counts_as_working_set) of the given training sessions.
create or replace function app.sessions_warnings(p_user_id uuid, p_goal text, p_training_session_ids uuid[])
returns jsonb
language sql
stable
as $$
  select app.training_warnings(p_goal, count(*), count(*) filter (where app.eccentric_seconds(s.tempo) >= 5))
    from app.session_sets as s
   where s.user_id = p_user_id and s.session_id = any (p_training_session_ids)
     and app.counts_as_working_set(s.set_type)
$$;

-- A planned session with its targets per set; in short_on_time mode trimmed, with what
-- was dropped. The sets have the shape of logged sets, so a client can log them back.
create or replace function app.program_session_json(p_user_id uuid, p_session app.program_sessions)
returns jsonb
language plpgsql
stable
as $$
declare
  v_program app.programs;
  v_phase app.program_phases;
  v_exercises jsonb;
  v_parts jsonb;
  v_dropped jsonb := '[]';
begin
  select p.* into v_program from app.programs as p where p.user_id = p_user_id and p.id = p_session.program_id;
  v_phase := app.program_phase_at(p_user_id, v_program.id, app.program_week(p_session.slot, v_program.days_per_week));
  select coalesce(jsonb_agg(jsonb_build_object(
           'exercise_id', p.exercise_id, 'exercise_name', p.exercise_name, 'priority_tier', p.priority_tier,
           'competition_lift', p.competition_lift, 'strategy', p.strategy, 'increment_kg', p.increment_kg,
           'tracking_type', p.tracking_type,
           -- The measures the exercise's type takes (app.target_set).
           'sets', (select jsonb_agg(jsonb_build_object('set_number', n, 'rpe', p.rpe, 'set_type', 'working')
                                     || app.target_set(p.tracking_type, p.reps[n], p.load_kg, null, p.duration_seconds,
                                                       p.distance_m) order by n)
                      from generate_series(1, cardinality(p.reps)) as n)) order by p.exercise_position), '[]')
    into v_exercises
    from app.program_plan(p_user_id, p_session.id) as p;
  if p_session.mode = 'short_on_time' then
    v_parts := app.trim_for_time(coalesce((
      select jsonb_agg(x.item || jsonb_build_object('exercise_index', y.i, 'exercise_id', y.e -> 'exercise_id',
                                                    'exercise_name', y.e -> 'exercise_name',
                                                    'priority_tier', y.e -> 'priority_tier',
                                                    'competition_lift', y.e -> 'competition_lift') order by y.i, x.n)
        from jsonb_array_elements(v_exercises) with ordinality as y (e, i)
       cross join lateral jsonb_array_elements(y.e -> 'sets') with ordinality as x (item, n)), '[]'));
    v_dropped := v_parts -> 'dropped';
    v_exercises := coalesce((
      select jsonb_agg(y.e || jsonb_build_object('sets', k.sets) order by y.i)
        from jsonb_array_elements(v_exercises) with ordinality as y (e, i)
        join lateral (
          select jsonb_agg(x - array['exercise_index', 'exercise_id', 'exercise_name', 'priority_tier',
                                     'competition_lift']
                           order by (x ->> 'set_number')::integer) as sets
            from jsonb_array_elements(v_parts -> 'kept') as x
           where (x ->> 'exercise_index')::integer = y.i) as k on k.sets is not null), '[]');
  end if;
  return jsonb_build_object(
    'id', p_session.id, 'program_id', p_session.program_id, 'slot', p_session.slot,
    'week', app.program_week(p_session.slot, v_program.days_per_week), 'block', v_phase.block, 'phase', v_phase.phase,
    'name', (select string_agg(t.name, ' + ' order by o.n)
               from unnest(p_session.templates) with ordinality as o (id, n) join app.templates as t on t.id = o.id),
    'templates', to_jsonb(p_session.templates), 'mode', p_session.mode, 'volume_factor', p_session.volume_factor,
    'combined', p_session.volume_factor < 1, 'status', p_session.status,
    'exercises', v_exercises, 'dropped_sets', v_dropped);
end
$$;

-- Missed sessions shift rather than vanish. A skipped workout moves to the next slot and
-- every later slot moves one on (the program ends one slot later); its old slot keeps a
-- 'skipped' row for adherence. A workout shifts once: skipped again (or when the request
-- asks to combine), it is combined into the following planned session instead, so the
-- schedule cannot drift without end. The combined session holds both workouts at 60 %
-- volume: each exercise's sets (both workouts' sets added up when it appears in both)
-- × 0.6, rounded, at least one — about 1.2 sessions of work, not two. With no later
-- session to combine into, the workout shifts.
create or replace function app.skip_program_session(p_user_id uuid, p_session app.program_sessions, p_combine boolean)
returns void
language plpgsql
as $$
declare
  v_next app.program_sessions;
begin
  select s.* into v_next from app.program_sessions as s
   where s.user_id = p_user_id and s.program_id = p_session.program_id and s.status = 'planned'
     and s.slot > p_session.slot
   order by s.slot
   limit 1;
  if (p_session.shifted >= 1 or p_combine) and v_next.id is not null then
    update app.program_sessions
       set templates = v_next.templates || p_session.templates, volume_factor = least(volume_factor, 0.6)
     where user_id = p_user_id and id = v_next.id;
    update app.program_sessions set status = 'combined', successor_id = v_next.id, done_at = now()
     where user_id = p_user_id and id = p_session.id;
  else
    update app.program_sessions set slot = slot + 1
     where user_id = p_user_id and program_id = p_session.program_id and slot >= p_session.slot;
    update app.program_sessions set shifted = shifted + 1, mode = 'normal', dropped_sets = '[]'
     where user_id = p_user_id and id = p_session.id;
    insert into app.program_sessions (user_id, program_id, slot, templates, status, successor_id, done_at)
    values (p_user_id, p_session.program_id, p_session.slot, p_session.templates, 'skipped', p_session.id, now());
  end if;
end
$$;

-- Moves the progression state of each exercise of a planned session from the sets logged
-- for it (the sets app.counts_for_progression reads; exercises not logged keep their state). The load a
-- rule starts from is the state's, or the heaviest logged set while none is known.
-- Each strategy moves what its type progresses (app.progression_strategy): the load
-- strategies the load, 'reps' the reps (a load held), 'duration' the target seconds,
-- 'hold' nothing. Deload weeks never move the state.
create or replace function app.apply_program_log(p_user_id uuid, p_session app.program_sessions,
                                                 p_training_session_id uuid)
returns void
language plpgsql
as $$
declare
  v_program app.programs;
  v_week integer;
  v_phase app.program_phases;
  v_plan record;
  v_state app.program_exercise_state;
  v_reps integer[];
  v_seconds integer[];
  v_duration integer;
  v_top numeric;
  v_top_rpe numeric;
  v_load numeric;
  v_misses integer;
  v_new_reps integer[];
  v_rpe_week integer;
  v_rpe_top numeric;
  v_rpe_target numeric;
  v_step numeric;
begin
  select p.* into v_program from app.programs as p where p.user_id = p_user_id and p.id = p_session.program_id;
  v_week := app.program_week(p_session.slot, v_program.days_per_week);
  v_phase := app.program_phase_at(p_user_id, v_program.id, v_week);
  if v_phase.phase = 'deload' then
    return;
  end if;
  for v_plan in select * from app.program_plan(p_user_id, p_session.id) loop
    continue when v_plan.strategy = 'hold';
    select array_agg(x.reps order by x.exercise_position, x.position), max(x.weight_kg),
           max(x.rpe) filter (where x.weight_kg = x.top),
           array_agg(x.duration_seconds order by x.exercise_position, x.position)
      into v_reps, v_top, v_top_rpe, v_seconds
      from (select s.reps, s.weight_kg, s.rpe, s.duration_seconds, s.exercise_position, s.position,
                   max(s.weight_kg) over () as top
              from app.session_exercises as e
              join app.session_sets as s
                on s.user_id = e.user_id and s.session_id = e.session_id and s.exercise_position = e.position
             where e.user_id = p_user_id and e.session_id = p_training_session_id and e.exercise_id = v_plan.exercise_id
               and app.counts_for_progression(s.set_type)) as x;
    continue when v_reps is null;
    v_state := null;
    select st.* into v_state from app.program_exercise_state as st
     where st.user_id = p_user_id and st.program_id = v_program.id and st.exercise_id = v_plan.exercise_id;
    v_step := app.load_step((select e.equipment from app.exercises as e where e.id = v_plan.exercise_id));
    v_misses := coalesce(v_state.misses, 0);
    v_rpe_week := v_state.rpe_week;
    v_rpe_top := v_state.rpe_week_top;
    v_rpe_target := v_state.rpe_target;
    v_duration := v_state.duration_seconds;
    case v_plan.strategy
      when 'linear' then
        select l.load_kg, l.misses into v_load, v_misses
          from app.progress_linear(app.equivalent_load(coalesce(v_state.load_kg, v_top), v_state.reps[1],
                                                       v_phase.main_reps, v_step),
                                   v_misses, v_phase.main_reps, v_reps, v_plan.increment_kg, v_step) as l;
        v_new_reps := array[v_phase.main_reps];
      when 'rpe_weekly' then
        v_load := app.equivalent_load(case when v_state.load_kg is null then v_top
                                           else app.rpe_weekly_load(v_state, v_week, v_plan.increment_kg, v_step) end,
                                      v_state.reps[1], v_phase.main_reps, v_step);
        if v_rpe_week is null or v_week > v_rpe_week then
          v_rpe_week := v_week;
          v_rpe_top := v_top_rpe;
          v_rpe_target := v_phase.main_rpe;
        else
          v_rpe_top := greatest(v_rpe_top, v_top_rpe);
        end if;
        v_new_reps := array[v_phase.main_reps];
      when 'reps' then
        v_load := coalesce(v_state.load_kg, v_top);
        v_new_reps := app.progress_reps(case when v_plan.priority_tier = 1 or v_plan.competition_lift
                                             then v_phase.main_reps
                                             else v_phase.accessory_reps_low end,
                                        array_remove(v_reps, null));
      when 'duration' then
        v_load := coalesce(v_state.load_kg, v_top);
        v_new_reps := coalesce(v_state.reps, '{}');
        v_duration := app.progress_duration(v_plan.duration_seconds, array_remove(v_seconds, null));
      else
        select d.load_kg, d.reps into v_load, v_new_reps
          from app.progress_double(coalesce(v_state.load_kg, v_top), v_phase.accessory_reps_low,
                                   v_phase.accessory_reps_high, v_reps, v_plan.increment_kg, v_step) as d;
    end case;
    insert into app.program_exercise_state (user_id, program_id, exercise_id, load_kg, reps, misses, rpe_week,
                                            rpe_week_top, rpe_target, duration_seconds, updated_at)
    values (p_user_id, v_program.id, v_plan.exercise_id, v_load, v_new_reps, v_misses, v_rpe_week, v_rpe_top,
            v_rpe_target, v_duration, now())
    on conflict (user_id, program_id, exercise_id) do update
      set load_kg = excluded.load_kg, reps = excluded.reps, misses = excluded.misses, rpe_week = excluded.rpe_week,
          rpe_week_top = excluded.rpe_week_top, rpe_target = excluded.rpe_target,
          duration_seconds = excluded.duration_seconds, updated_at = excluded.updated_at;
  end loop;
end
$$;

-- Adherence per program week: of the slots that are due (done, skipped or combined; the
-- planned ones still ahead do not count yet), how many were completed.
create or replace function app.program_adherence(p_user_id uuid, p_program app.programs)
returns jsonb
language plpgsql
stable
as $$
begin
  return (
    select jsonb_build_object(
      'score', round(sum(w.completed)::numeric / nullif(sum(w.due), 0), 2),
      'weeks', coalesce(jsonb_agg(jsonb_build_object('week', w.week, 'planned', w.due, 'completed', w.completed,
                                                     'score', round(w.completed::numeric / w.due, 2))
                                  order by w.week), '[]'))
      from (select app.program_week(s.slot, p_program.days_per_week) as week,
                   count(*) filter (where s.status <> 'planned') as due,
                   count(*) filter (where s.status = 'completed') as completed
              from app.program_sessions as s
             where s.user_id = p_user_id and s.program_id = p_program.id
             group by 1
            having count(*) filter (where s.status <> 'planned') > 0) as w);
end
$$;

-- The blocks of a program with their phases, planned dates (program weeks from the start
-- date) and the warnings over the sessions completed in each block.
create or replace function app.program_blocks_json(p_user_id uuid, p_program app.programs)
returns jsonb
language plpgsql
stable
as $$
begin
  return (
    select coalesce(jsonb_agg(jsonb_build_object(
             'position', b.block_position, 'name', b.block, 'first_week', b.first_week, 'last_week', b.last_week,
             'start_date', p_program.started_on + (b.first_week - 1) * 7,
             'end_date', p_program.started_on + b.last_week * 7 - 1,
             'sessions_completed', cardinality(b.sessions),
             'warnings', app.sessions_warnings(p_user_id, p_program.goal, b.sessions),
             'phases', b.phases) order by b.block_position), '[]')
      from (select f.block_position, min(f.block) as block, min(f.first_week) as first_week,
                   max(f.last_week) as last_week,
                   jsonb_agg(jsonb_build_object(
                     'phase', f.phase, 'first_week', f.first_week, 'last_week', f.last_week,
                     'start_date', p_program.started_on + (f.first_week - 1) * 7,
                     'end_date', p_program.started_on + f.last_week * 7 - 1,
                     'main', jsonb_build_object('reps', f.main_reps, 'rpe', f.main_rpe),
                     'accessory', jsonb_build_object('reps_low', f.accessory_reps_low,
                                                     'reps_high', f.accessory_reps_high, 'rpe', f.accessory_rpe),
                     'set_factor', f.set_factor, 'load_factor', f.load_factor) order by f.position) as phases,
                   array(select s.training_session_id from app.program_sessions as s
                          where s.user_id = p_user_id and s.program_id = p_program.id and s.status = 'completed'
                            and s.training_session_id is not null
                            and app.program_week(s.slot, p_program.days_per_week) between min(f.first_week)
                                and case when max(f.last_week) = (select max(g.last_week) from app.program_phases as g
                                                                    where g.user_id = p_user_id
                                                                      and g.program_id = p_program.id)
                                         then 2147483647 else max(f.last_week) end) as sessions
              from app.program_phases as f
             where f.user_id = p_user_id and f.program_id = p_program.id
             group by f.block_position) as b);
end
$$;

-- A program: its settings, blocks and phases, where it stands (the week, block and phase
-- of the next planned session) and adherence.
create or replace function app.program_json(p_user_id uuid, p_program app.programs)
returns jsonb
language plpgsql
stable
as $$
begin
  return (
    select jsonb_build_object(
      'id', p_program.id, 'goal', p_program.goal, 'training_age', p_program.training_age,
      'days_per_week', p_program.days_per_week, 'split', to_jsonb(p_program.split), 'status', p_program.status,
      'started_on', p_program.started_on, 'created_at', p_program.created_at, 'ended_at', p_program.ended_at,
      'weeks', (select max(f.last_week) from app.program_phases as f
                 where f.user_id = p_user_id and f.program_id = p_program.id),
      'current', (select jsonb_build_object('week', c.week, 'block', ph.block, 'phase', ph.phase,
                                            'next_session_id', c.next_id)
                    from (select app.program_week(coalesce(min(s.slot) filter (where s.status = 'planned'),
                                                           max(s.slot)),
                                                  p_program.days_per_week) as week,
                                 (array_agg(s.id order by s.slot) filter (where s.status = 'planned'))[1] as next_id
                            from app.program_sessions as s
                           where s.user_id = p_user_id and s.program_id = p_program.id) as c
                   cross join lateral app.program_phase_at(p_user_id, p_program.id, c.week) as ph),
      'blocks', app.program_blocks_json(p_user_id, p_program),
      'adherence', app.program_adherence(p_user_id, p_program)));
end
$$;

grant execute on function
  app.program_phase_plan(text, text),
  app.default_split(integer),
  app.program_week(integer, integer),
  app.program_phase_at(uuid, uuid, integer),
  app.program_problems(jsonb),
  app.create_program(uuid, jsonb),
  app.find_active_program(uuid),
  app.find_program_session(uuid, jsonb),
  app.next_program_session(uuid, uuid),
  app.program_plan(uuid, uuid),
  app.trim_for_time(jsonb),
  app.eccentric_seconds(text),
  app.training_warnings(text, bigint, bigint),
  app.sessions_warnings(uuid, text, uuid[]),
  app.program_session_json(uuid, app.program_sessions),
  app.skip_program_session(uuid, app.program_sessions, boolean),
  app.apply_program_log(uuid, app.program_sessions, uuid),
  app.program_adherence(uuid, app.programs),
  app.program_blocks_json(uuid, app.programs),
  app.program_json(uuid, app.programs)
to liftbase_api;
