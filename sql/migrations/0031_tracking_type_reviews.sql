-- Tracking types, second review of the name exceptions against the free-exercise-db
-- catalog: sled rows, flyes and extensions are reps with a load, sledgehammer swings are
-- reps, jumping rope is timed. Stored catalog entries take the corrected type when none
-- of their sets would stop fitting it. The library lists each exercise's type, so
-- app.visible_exercises gains a column (recreated by sql/functions/app_exercises.sql).

insert into app.tracking_type_exceptions (pattern, tracking_type, reason) values
  ('%sledgehammer%', 'reps_only', 'swings of a hammer: reps'),
  ('sled row', 'weight_reps', 'reps with the sled as load'),
  ('sled reverse flye', 'weight_reps', 'reps with the sled as load'),
  ('sled overhead triceps extension', 'weight_reps', 'reps with the sled as load'),
  ('%rope jumping%', 'duration', 'timed, no distance');

update app.exercises as e
   set tracking_type = app.derived_tracking_type(e.name, e.category, e.equipment)
 where (lower(e.name) like '%sled%' or lower(e.name) like '%rope jumping%')
   and e.tracking_type is distinct from app.derived_tracking_type(e.name, e.category, e.equipment)
   and not exists (select from app.session_exercises as x where x.exercise_id = e.id);

drop function if exists app.visible_exercises(uuid);
