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

-- Working sets per exercise of a session, kept like the session totals of 0004 (by
-- app.refresh_session_totals, in the transaction that writes the sets): weekly volume per
-- muscle then reads one row per exercise instead of every set of the user's history.
alter table app.session_exercises add column working_sets integer not null default 0;
update app.session_exercises as e
   set working_sets = t.working
  from (select x.user_id, x.session_id, x.exercise_position, count(*) as working
          from app.session_sets as x where x.set_type <> 'warmup'
         group by x.user_id, x.session_id, x.exercise_position) as t
 where t.user_id = e.user_id and t.session_id = e.session_id and t.exercise_position = e.position;

-- e1RM and RPE analytics look up an own exercise's history as 0003 does a catalog one's.
create index session_exercises_user_exercise_idx on app.session_exercises (user_id, user_exercise_id)
  where user_exercise_id is not null;
