-- Analytics: the RPE chart that estimated one-rep maxes read, and the indexes that keep
-- the analytics reads cheap over years of training.

-- Percent of the one-rep max that a set of `reps` at `rpe` represents. Source: the RPE
-- chart of Reactive Training Systems (Mike Tuchscherer, "The Reactive Training Manual",
-- 2008), as reproduced in most RPE-based programs: reps 1–12, RPE 6.5–10 in half steps.
-- Each cell depends only on reps + (10 − RPE), the reps the set was short of failure, so
-- the rows below are one sequence shifted by half a step per row. Sets outside the chart
-- fall back to Epley (app.e1rm_kg).
create table app.rpe_chart (
  reps    integer not null check (reps between 1 and 12),
  rpe     numeric(3, 1) not null check (rpe between 6.5 and 10),
  percent numeric(4, 1) not null check (percent > 0 and percent <= 100),
  primary key (reps, rpe)
);
insert into app.rpe_chart (reps, rpe, percent)
select r.reps, c.rpe, r.percent
  from (values
    (10.0, '{100.0,95.5,92.2,89.2,86.3,83.7,81.1,78.6,76.2,73.9,70.7,68.0}'::numeric[]),
    (9.5,  '{97.8,93.9,90.7,87.8,85.0,82.4,79.9,77.4,75.1,72.3,69.4,66.7}'),
    (9.0,  '{95.5,92.2,89.2,86.3,83.7,81.1,78.6,76.2,73.9,70.7,68.0,65.3}'),
    (8.5,  '{93.9,90.7,87.8,85.0,82.4,79.9,77.4,75.1,72.3,69.4,66.7,64.0}'),
    (8.0,  '{92.2,89.2,86.3,83.7,81.1,78.6,76.2,73.9,70.7,68.0,65.3,62.6}'),
    (7.5,  '{90.7,87.8,85.0,82.4,79.9,77.4,75.1,72.3,69.4,66.7,64.0,61.3}'),
    (7.0,  '{89.2,86.3,83.7,81.1,78.6,76.2,73.9,70.7,68.0,65.3,62.6,59.9}'),
    (6.5,  '{87.8,85.0,82.4,79.9,77.4,75.1,72.3,69.4,66.7,64.0,61.3,58.6}')
  ) as c (rpe, percents)
 cross join lateral unnest(c.percents) with ordinality as r (percent, reps);
grant select on app.rpe_chart to liftbase_api;
revoke insert, update, delete on app.rpe_chart from liftbase_api;

-- Estimated one-rep max of a set: weight ÷ the RPE chart's percentage when the set has an
-- RPE the chart covers (p_chart_percent: app.rpe_chart's percent for the set's reps and
-- RPE, joined by the caller; null when the chart has no cell), else Epley: weight × (1 +
-- reps / 30). Defined here, not in a repeatable file, because session exercises store
-- their best value: a change of formula is a migration that recomputes them.
create function app.e1rm_kg(p_weight numeric, p_reps integer, p_chart_percent numeric)
returns numeric
language sql
immutable
parallel safe
as $$ select coalesce(p_weight * 100 / p_chart_percent, p_weight * (1 + p_reps / 30.0)) $$;

create function app.e1rm_method(p_chart_percent numeric)
returns text
language sql
immutable
parallel safe
as $$ select case when p_chart_percent is null then 'epley' else 'rpe_chart' end $$;

-- The RPE of a set: as logged, else from reps in reserve (RPE 10 = no rep left).
create function app.effective_rpe(p_rpe numeric, p_rir integer)
returns numeric
language sql
immutable
parallel safe
as $$ select coalesce(p_rpe, 10 - p_rir) $$;

grant execute on function app.e1rm_kg(numeric, integer, numeric), app.e1rm_method(numeric),
  app.effective_rpe(numeric, integer) to liftbase_api;

-- Per exercise of a session, kept like the session totals of 0004 (by
-- app.refresh_session_totals, in the transaction that writes the sets): its working sets,
-- and its best working set by estimated one-rep max. Volume per muscle and e1RM history
-- then read one row per exercise instead of every set of years of training.
alter table app.session_exercises
  add column working_sets integer not null default 0,
  add column best_set_position integer,
  add column best_e1rm_kg numeric;
update app.session_exercises as e
   set working_sets = t.working
  from (select x.user_id, x.session_id, x.exercise_position, count(*) as working
          from app.session_sets as x where x.set_type <> 'warmup'
         group by x.user_id, x.session_id, x.exercise_position) as t
 where t.user_id = e.user_id and t.session_id = e.session_id and t.exercise_position = e.position;
update app.session_exercises as e
   set best_set_position = b.position, best_e1rm_kg = b.e1rm
  from (select distinct on (x.user_id, x.session_id, x.exercise_position)
               x.user_id, x.session_id, x.exercise_position, x.position,
               app.e1rm_kg(x.weight_kg, x.reps, c.percent) as e1rm
          from app.session_sets as x
          left join app.rpe_chart as c on c.reps = x.reps and c.rpe = app.effective_rpe(x.rpe, x.rir)
         where x.set_type <> 'warmup' and x.reps >= 1 and x.weight_kg > 0
         order by x.user_id, x.session_id, x.exercise_position, 5 desc, x.position) as b
 where b.user_id = e.user_id and b.session_id = e.session_id and b.exercise_position = e.position;

-- e1RM and RPE analytics look up an own exercise's history as 0003 does a catalog one's.
create index session_exercises_user_exercise_idx on app.session_exercises (user_id, user_exercise_id)
  where user_exercise_id is not null;
