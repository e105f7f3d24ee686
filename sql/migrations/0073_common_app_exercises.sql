-- Curated exercises for common movements of Hevy's, Strong's and FitNotes' own lists that
-- the catalog lacked (docs/imports.md, "How names resolve"): without them, an imported
-- history of burpees, machine lateral raises or kettlebell presses became own exercises,
-- which a program, the substitutions and the other users' catalog know nothing of.
insert into app.exercises (id, name, category, mechanic, equipment, primary_muscles, secondary_muscles,
                           priority_tier, competition_lift, movement_pattern, source, tracking_type)
select md5('liftbase-exercise:' || lower(e.name))::uuid, e.name, e.category, e.mechanic, e.equipment,
       e.primary_muscles, e.secondary_muscles, e.tier, false, e.pattern, 'builtin', e.tracking_type
  from (values
  ('Dumbbell Deadlift', 'strength', 'compound', 'dumbbell', '{glutes,hamstrings}'::text[], '{lower back,quadriceps}'::text[], 2, 'hinge', 'weight_reps'),
  ('Machine Hip Thrust', 'strength', 'compound', 'machine', '{glutes}', '{hamstrings}', 2, 'hip_extension', 'weight_reps'),
  ('Machine Back Extension', 'strength', 'isolation', 'machine', '{lower back}', '{glutes,hamstrings}', 3, 'hip_extension', 'weight_reps'),
  ('Machine Glute Kickback', 'strength', 'isolation', 'machine', '{glutes}', '{hamstrings}', 3, 'hip_isolation', 'weight_reps'),
  ('Machine Lateral Raise', 'strength', 'isolation', 'machine', '{shoulders}', '{}', 3, 'shoulder_isolation', 'weight_reps'),
  ('Machine Lat Pulldown', 'strength', 'compound', 'machine', '{lats}', '{biceps,middle back}', 2, 'vertical_pull', 'weight_reps'),
  ('Machine Low Row', 'strength', 'compound', 'machine', '{middle back,lats}', '{biceps}', 2, 'horizontal_pull', 'weight_reps'),
  ('Kettlebell Curl', 'strength', 'isolation', 'kettlebells', '{biceps}', '{forearms}', 3, 'elbow_flexion', 'weight_reps'),
  ('Kettlebell Shoulder Press', 'strength', 'compound', 'kettlebells', '{shoulders}', '{triceps}', 2, 'vertical_push', 'weight_reps'),
  ('Lunge', 'strength', 'compound', 'body_only', '{quadriceps}', '{glutes,hamstrings}', 3, 'lunge', 'bodyweight_reps'),
  ('Kneeling Push-Up', 'strength', 'compound', 'body_only', '{chest}', '{shoulders,triceps}', 3, 'horizontal_push', 'bodyweight_reps'),
  ('Pike Push-Up', 'strength', 'compound', 'body_only', '{shoulders}', '{triceps,chest}', 3, 'vertical_push', 'bodyweight_reps'),
  ('Hanging Knee Raise', 'strength', 'isolation', 'body_only', '{abdominals}', '{}', 3, 'core', 'bodyweight_reps'),
  ('Burpee', 'plyometrics', 'compound', 'body_only', '{quadriceps}', '{chest,shoulders,calves}', 3, 'plyometric', 'reps_only'),
  ('Jumping Jack', 'cardio', 'compound', 'body_only', '{calves}', '{shoulders,quadriceps}', 3, 'cardio', 'reps_only'))
  as e (name, category, mechanic, equipment, primary_muscles, secondary_muscles, tier, pattern, tracking_type)
 where not exists (select from app.exercises as x where lower(x.name) = lower(e.name));
