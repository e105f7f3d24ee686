-- Progression: loadable weights, per-exercise increments, the strategies (each a function
-- of its own, testable alone) and which one an exercise follows.

-- The sets progression reads: those done as prescribed, working sets and sets taken to
-- failure. Progression asks whether the prescribed load was lifted for the prescribed
-- reps; a drop set deliberately lowers the load after that work, so its reps at a lower
-- load would read as a miss (and its load would lower the top set). Warm-ups never count.
-- Narrower than a working set for volume (app.counts_as_working_set), which counts drop
-- sets as the real work they are. A SQL expression, so it is inlined into each query.
create or replace function app.counts_for_progression(p_set_type text)
returns boolean
language sql
immutable
parallel safe
as $$ select p_set_type in ('working', 'failure') $$;

-- The smallest load change the equipment allows. Barbells (1.25 kg plates a side), EZ
-- bars, machines, cables and everything else: 2.5 kg; dumbbells come in 2 kg steps,
-- kettlebells in 4 kg steps.
create or replace function app.load_step(p_equipment text)
returns numeric
language sql
immutable
as $$
  select case p_equipment when 'dumbbell' then 2.0 when 'kettlebells' then 4.0 else 2.5 end
$$;

-- p_load on the equipment's steps: the nearest loadable weight, or the one at or below it
-- (p_down) so that a reduction never rounds back up to the load it reduces.
create or replace function app.loadable(p_load numeric, p_step numeric, p_down boolean default false)
returns numeric
language sql
immutable
as $$
  select case when p_load is null then null
              when p_down then greatest(floor(p_load / p_step), 0) * p_step
              else round(p_load / p_step) * p_step end
$$;

-- Load added on progress: 5 kg for the lower body (an exercise working quadriceps,
-- hamstrings, glutes, calves, adductors or abductors, or a squat, hinge or lunge), else
-- 2.5 kg. Never less than the equipment's step, so that progress is loadable.
create or replace function app.load_increment(p_primary_muscles text[], p_movement_pattern text, p_equipment text)
returns numeric
language sql
immutable
as $$
  select greatest(app.load_step(p_equipment),
    case when p_primary_muscles && array['quadriceps', 'hamstrings', 'glutes', 'calves', 'adductors', 'abductors']
           or p_movement_pattern in ('squat', 'hinge', 'lunge')
         then 5.0 else 2.5 end)
$$;

-- The load for p_to_reps that is as hard as p_load for p_from_reps (Epley's e1RM, from
-- app.e1rm_kg: the formula's one place), so a main lift keeps its effort when a phase
-- changes its reps.
create or replace function app.equivalent_load(p_load numeric, p_from_reps integer, p_to_reps integer, p_step numeric)
returns numeric
language sql
immutable
as $$
  select case when p_load is null or p_from_reps is null or p_from_reps = p_to_reps then p_load
              else app.loadable(app.e1rm_kg(p_load, p_from_reps, null) / app.e1rm_kg(1, p_to_reps, null), p_step) end
$$;

-- Novice linear progression, applied after every session: when every set done as
-- prescribed (app.counts_for_progression) reached the target reps, the load goes up by the
-- increment and misses reset; otherwise it is a miss and the load holds, until the second
-- miss in a row takes 10 % off (rounded down to the equipment's step) and starts counting
-- again.
create or replace function app.progress_linear(p_load numeric, p_misses integer, p_target_reps integer,
                                               p_reps integer[], p_increment numeric, p_step numeric,
                                               out load_kg numeric, out misses integer)
language sql
immutable
as $$
  select case when h.hit then app.loadable(p_load + p_increment, p_step)
              when p_misses + 1 >= 2 then app.loadable(p_load * 0.9, p_step, true)
              else p_load end,
         case when h.hit or p_misses + 1 >= 2 then 0 else p_misses + 1 end
    from (select cardinality(p_reps) > 0 and p_target_reps <= all (p_reps) as hit) as h
$$;

-- Intermediate (and advanced) weekly progression, applied once per week from the RPE of
-- the week's top sets (the prescribed sets at the heaviest load of each session; the highest
-- of them counts): below the target RPE the lifts moved faster than planned, so the load
-- goes up one increment; at the target or half a point above it holds; a full point or
-- more above the target takes one increment off. No RPE logged: the load holds.
create or replace function app.progress_rpe_weekly(p_load numeric, p_top_rpe numeric, p_target_rpe numeric,
                                                   p_increment numeric, p_step numeric)
returns numeric
language sql
immutable
as $$
  select case when p_load is null or p_top_rpe is null or p_target_rpe is null then p_load
              when p_top_rpe < p_target_rpe then app.loadable(p_load + p_increment, p_step)
              when p_top_rpe >= p_target_rpe + 1 then app.loadable(greatest(p_load - p_increment, 0), p_step, true)
              else p_load end
$$;

-- Double progression, applied after every session: each set's target climbs one rep past
-- what it did, within the rep range; once every set reaches the top of the range the
-- load goes up by the increment and every set starts again at the bottom.
create or replace function app.progress_double(p_load numeric, p_reps_low integer, p_reps_high integer,
                                               p_reps integer[], p_increment numeric, p_step numeric,
                                               out load_kg numeric, out reps integer[])
language sql
immutable
as $$
  select case when h.top then app.loadable(p_load + p_increment, p_step) else p_load end,
         case when h.top then array_fill(p_reps_low, array[cardinality(p_reps)])
              else array(select greatest(p_reps_low, least(p_reps_high, r + 1))
                           from unnest(p_reps) with ordinality as x (r, n)
                          order by n) end
    from (select cardinality(p_reps) > 0 and p_reps_high <= all (p_reps) as top) as h
$$;

-- The target reps of p_sets sets under double progression: the stored per-set targets
-- (the last one repeated for extra sets), kept inside this phase's range; the bottom of
-- the range when nothing is stored yet.
create or replace function app.double_rep_targets(p_stored integer[], p_reps_low integer, p_reps_high integer,
                                                  p_sets integer)
returns integer[]
language sql
immutable
as $$
  select array(select greatest(p_reps_low, least(p_reps_high,
                      coalesce(p_stored[least(n, cardinality(p_stored))], p_reps_low)))
                 from generate_series(1, p_sets) as n order by n)
$$;

-- What progresses follows the exercise's tracking type (docs/programs.md): load × reps
-- lifts add load, main lifts (priority tier 1 or competition lifts) by the training age
-- (novices each session, intermediate and advanced lifters weekly by RPE), every other
-- one by double progression; reps-only, bodyweight and assisted exercises add reps
-- ('reps': an added load or an assistance is held); timed ones add seconds ('duration', a
-- load held); distance work holds its targets ('hold': a run's distance and time, a
-- carry's load and distance are the lifter's to raise).
create or replace function app.progression_strategy(p_training_age text, p_priority_tier integer,
                                                    p_competition_lift boolean, p_tracking_type text)
returns text
language sql
immutable
as $$
  select case when p_tracking_type in ('reps_only', 'bodyweight_reps', 'assisted_bodyweight') then 'reps'
              when p_tracking_type in ('duration', 'weight_duration') then 'duration'
              when p_tracking_type in ('distance_duration', 'weight_distance') then 'hold'
              when p_priority_tier = 1 or p_competition_lift
              then case when p_training_age = 'novice' then 'linear' else 'rpe_weekly' end
              else 'double' end
$$;

-- Reps progression, applied after every session, for exercises without a load to add:
-- each set's next target is one rep past what it did, never below the bottom of the
-- range (there is no top: reps are the progress).
create or replace function app.progress_reps(p_reps_low integer, p_reps integer[])
returns integer[]
language sql
immutable
as $$
  select array(select greatest(p_reps_low, least(r + 1, 1000)) from unnest(p_reps) with ordinality as x (r, n)
                order by n)
$$;

-- Duration progression, applied after every session: when every set held the target,
-- the target grows by 5 seconds; otherwise it holds.
create or replace function app.progress_duration(p_target_seconds integer, p_seconds integer[])
returns integer
language sql
immutable
as $$
  select case when cardinality(p_seconds) > 0 and p_target_seconds <= all (p_seconds)
              then least(p_target_seconds + 5, 86400) else p_target_seconds end
$$;

-- The load of an RPE-driven lift for a session of p_week: the week the state collected is
-- settled (app.progress_rpe_weekly) once a later week begins.
create or replace function app.rpe_weekly_load(p_state app.program_exercise_state, p_week integer, p_increment numeric,
                                               p_step numeric)
returns numeric
language sql
immutable
as $$
  select case when p_state.rpe_week is not null and p_week > p_state.rpe_week
              then app.progress_rpe_weekly(p_state.load_kg, p_state.rpe_week_top, p_state.rpe_target, p_increment,
                                           p_step)
              else p_state.load_kg end
$$;

grant execute on function
  app.counts_for_progression(text),
  app.load_step(text),
  app.loadable(numeric, numeric, boolean),
  app.load_increment(text[], text, text),
  app.equivalent_load(numeric, integer, integer, numeric),
  app.progress_linear(numeric, integer, integer, integer[], numeric, numeric),
  app.progress_rpe_weekly(numeric, numeric, numeric, numeric, numeric),
  app.progress_double(numeric, integer, integer, integer[], numeric, numeric),
  app.double_rep_targets(integer[], integer, integer, integer),
  app.progression_strategy(text, integer, boolean, text),
  app.progress_reps(integer, integer[]),
  app.progress_duration(integer, integer[]),
  app.rpe_weekly_load(app.program_exercise_state, integer, numeric, numeric)
to liftbase_api;
