-- Training volume, each rule in one place: which sets are working sets, how a set credits
-- the muscles of its exercise (the overlap rule), and weekly volume per muscle, which
-- /analytics/volume and the weekly training volume report both read.

-- A working set is any set that is not a warm-up: drop sets and sets to failure are real
-- work, so they count wherever work is counted (volume, the weekly summary and the session
-- totals, the best set by estimated one-rep max, the RPE distribution, training warnings,
-- reporting). Warm-ups only prepare for it. Progression reads a narrower set
-- (app.counts_for_progression). A SQL expression, so it is inlined into each query.
create or replace function app.counts_as_working_set(p_set_type text)
returns boolean
language sql
immutable
parallel safe
as $$ select p_set_type <> 'warmup' $$;

-- Which exercises' working sets are hard sets for the muscles they work: every tracking
-- type but distance_duration. A plank held near failure, a weighted carry, a set of
-- pull-ups are hard sets for their muscles; a run, a row or a ride is cardio, whose
-- minutes are not sets (they count in the cardio analytics, docs/training.md).
create or replace function app.counts_for_muscle_volume(p_tracking_type text)
returns boolean
language sql
immutable
parallel safe
as $$ select p_tracking_type is distinct from 'distance_duration' $$;

-- The overlap rule: a working set counts 1 set for each primary muscle of its exercise and
-- 0.5 for each secondary muscle.
create or replace function app.muscle_credits(p_primary text[], p_secondary text[])
returns table (muscle text, credit numeric)
language sql
immutable
parallel safe
as $$
  select m, 1.0 from unnest(p_primary) as m
  union all
  select m, 0.5 from unnest(p_secondary) as m where m <> all (p_primary)
$$;

-- A user's weekly volume (weeks from Monday) over completed sessions dated p_from..p_to:
-- one row per week and muscle with the sets credited to it (by the exercises whose sets
-- are hard sets, app.counts_for_muscle_volume), and the week's working sets of every
-- exercise. A week whose exercises credit no muscle (a deleted own exercise) has
-- one row with a null muscle, so its working sets still count. Working sets per session
-- exercise are kept by the session writer (app.write_session_children) as it writes the sets.
-- SQL, so it is inlined into the caller's query (the API's cached plan; the report's
-- SECURITY DEFINER function).
create or replace function app.weekly_muscle_volume(p_user_id uuid, p_from date, p_to date)
returns table (week date, working_sets bigint, muscle text, sets float8)
language sql
stable
as $$
  with exercise_weeks as (
    select app.bucket_start('week', s.session_date) as week, coalesce(e.exercise_id, e.user_exercise_id) as exercise,
           sum(e.working_sets)::integer as sets
      from app.training_sessions as s
      join app.session_exercises as e on e.user_id = s.user_id and e.session_id = s.id
     where s.user_id = p_user_id and s.status = 'completed'
       and s.session_date between p_from and p_to
     group by 1, 2
  ),
  -- The credits of each exercise trained, looked up once per exercise, not per week
  -- (materialized: inlined, the plan may call app.muscle_credits per exercise-week).
  exercise_credits as materialized (
    -- Credits are 1 and 0.5: exact in float8, whose sums cost a fraction of numeric's.
    select x.exercise, c.muscle, c.credit::float8 as credit
      from (select distinct w.exercise from exercise_weeks as w) as x
      left join app.exercises as ce on ce.id = x.exercise
      left join app.user_exercises as ue on ue.user_id = p_user_id and ue.id = x.exercise
     cross join lateral app.muscle_credits(coalesce(ce.primary_muscles, ue.primary_muscles),
                                           coalesce(ce.secondary_muscles, ue.secondary_muscles)) as c
     where app.counts_for_muscle_volume(coalesce(ce.tracking_type, ue.tracking_type))
  ),
  muscle_weeks as (
    select w.week, c.muscle, sum(c.credit * w.sets) as sets
      from exercise_weeks as w
      join exercise_credits as c on c.exercise = w.exercise
     group by 1, 2
  ),
  weeks as (
    select w.week, sum(w.sets) as working_sets from exercise_weeks as w group by 1
  )
  select k.week, k.working_sets, m.muscle, m.sets
    from weeks as k
    left join muscle_weeks as m on m.week = k.week
$$;
-- On Citus: the same query in PL/pgSQL (liftbase_meta.on_citus_as_plpgsql says why).
select liftbase_meta.on_citus_as_plpgsql('app.weekly_muscle_volume(uuid, date, date)');

grant execute on function
  app.counts_as_working_set(text),
  app.counts_for_muscle_volume(text),
  app.muscle_credits(text[], text[]),
  app.weekly_muscle_volume(uuid, date, date)
to liftbase_api, liftbase_reporting_owner;
-- The report reads weekly volume through reporting.training_volume_by_week, not the credits.
revoke execute on function app.muscle_credits(text[], text[]) from liftbase_reporter;
