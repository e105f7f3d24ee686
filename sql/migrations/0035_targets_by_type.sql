-- Targets by tracking type. A plan exercise and a built-in template's prescribe what their
-- exercise's sets take (app.target_field_rule, sql/functions/app_sessions.sql): reps or a
-- rep range (reps to reps_max), a load, an assistance, a duration, a distance. Using a plan
-- of a plank or a run then writes sets that fit (docs/training.md). Programs progress each
-- type its own way (app.progression_strategy, docs/programs.md): a timed exercise keeps its
-- target duration in the progression state.

alter table app.plan_exercises
  alter column reps drop not null,
  alter column weight_kg drop not null,
  alter column weight_kg drop default,
  add column reps_max app.reps,
  add column assistance_kg app.assistance_kg,
  add column duration_seconds app.duration_seconds,
  add column distance_m app.distance_m,
  add constraint plan_exercises_reps_range check (reps_max is null or (reps is not null and reps_max >= reps));

-- A planned load of 0 on an exercise whose type does not require a load meant no load (using
-- the plan wrote none): it is stored as none.
update app.plan_exercises as p
   set weight_kg = null
 where p.weight_kg = 0
   and coalesce((select e.tracking_type from app.exercises as e where e.id = p.exercise_id),
                (select u.tracking_type from app.user_exercises as u where u.user_id = p.user_id and u.id = p.user_exercise_id),
                'weight_reps') not in ('weight_reps', 'weight_duration', 'weight_distance');

alter table app.template_exercises
  alter column reps drop not null,
  add column reps_max integer check (reps_max between 1 and 100),
  add column duration_seconds app.duration_seconds,
  add column distance_m app.distance_m,
  add constraint template_exercises_reps_range check (reps_max is null or (reps is not null and reps_max >= reps));

alter table app.program_exercise_state
  add column duration_seconds app.duration_seconds;

-- Their shapes change: the files under sql/functions create them again.
drop function if exists app.progression_strategy(text, integer, boolean);
drop function if exists app.program_plan(uuid, uuid);
