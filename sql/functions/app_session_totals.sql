-- The totals kept on sessions and their exercises (working sets, bests, estimated one-rep
-- maxes, time and distance), worked out from the sets, and the rules they rest on.

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
                 coalesce(sum(x.distance_m) filter (where x.duration_seconds is not null), 0)::numeric
                   as paced_distance_m
            from unnest(p_sets) as x
           where app.counts_as_working_set(x.set_type)) as w
    left join (
      select x.position, app.e1rm_kg(x.weight_kg, x.reps, c.percent) as e1rm_kg, x.weight_kg::numeric as weight_kg,
             x.reps::integer as reps, app.effective_rpe(x.rpe, x.rir) as rpe, app.e1rm_method(c.percent) as method
        from unnest(p_sets) as x
       cross join lateral (select app.rpe_chart_percent(x.reps, app.effective_rpe(x.rpe, x.rir)) as percent) as c
       where app.counts_as_working_set(x.set_type) and x.reps >= 1 and x.weight_kg > 0
         and app.takes_e1rm(p_tracking_type)
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

grant execute on function
  app.takes_e1rm(text),
  app.rpe_chart_percent(integer, numeric),
  app.exercise_totals(app.session_sets[], text),
  app.refresh_session_totals(uuid, uuid),
  app.refresh_sessions_totals(uuid, uuid[]),
  app.refresh_session_row_totals(uuid, uuid),
  app.e1rm_kg(numeric, integer, numeric),
  app.e1rm_method(numeric),
  app.effective_rpe(numeric, integer)
to liftbase_api;
