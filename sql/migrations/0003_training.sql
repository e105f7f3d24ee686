-- Training: the exercise library, equipment, templates, normalized sessions (sessions →
-- exercises → sets) so that SQL reporting and analytics can read them, saved plans,
-- the user's equipment selection, exclusions and setup state.

create extension if not exists pg_trgm with schema public;

-- Reference data ---------------------------------------------------------------------------------

-- The 17 muscles of the exercise vocabulary.
create table app.muscles (name text primary key);
insert into app.muscles (name) values
  ('abdominals'), ('abductors'), ('adductors'), ('biceps'), ('calves'), ('chest'), ('forearms'), ('glutes'),
  ('hamstrings'), ('lats'), ('lower back'), ('middle back'), ('neck'), ('quadriceps'), ('shoulders'), ('traps'),
  ('triceps');

create table app.equipment (
  id   text primary key,
  name text not null unique
);
insert into app.equipment (id, name) values
  ('barbell', 'Barbell'), ('dumbbell', 'Dumbbell'), ('cable', 'Cable'), ('machine', 'Machine'),
  ('body_only', 'Body only'), ('kettlebells', 'Kettlebells'), ('bands', 'Bands'), ('e_z_curl_bar', 'E-Z curl bar'),
  ('medicine_ball', 'Medicine ball'), ('exercise_ball', 'Exercise ball'), ('foam_roll', 'Foam roll'), ('other', 'Other');

-- Every element of a text array names a muscle of the vocabulary.
create function app.are_muscles(p_names text[]) returns boolean
language sql stable as $$
  select coalesce(bool_and(exists (select from app.muscles as m where m.name = n)), true) from unnest(p_names) as n
$$;
grant execute on function app.are_muscles(text[]) to liftbase_api;

create domain app.exercise_category as text
  check (value in ('strength', 'stretching', 'plyometrics', 'powerlifting', 'olympic weightlifting', 'strongman', 'cardio'));
comment on domain app.exercise_category is 'must be one of strength, stretching, plyometrics, powerlifting, olympic weightlifting, strongman, cardio';
create domain app.exercise_mechanic as text check (value in ('compound', 'isolation'));
comment on domain app.exercise_mechanic is 'must be compound or isolation';
create domain app.exercise_name as text check (length(btrim(value)) between 1 and 120 and value = btrim(value));
comment on domain app.exercise_name is 'must be 1 to 120 characters';
create domain app.muscle_list as text[] check (app.are_muscles(value));
comment on domain app.muscle_list is 'must list muscles of the vocabulary (abdominals, abductors, adductors, biceps, calves, chest, forearms, glutes, hamstrings, lats, lower back, middle back, neck, quadriceps, shoulders, traps, triceps)';

-- The built-in catalog and imported exercises (reference data: no user_id). Ids of
-- built-ins derive from their names, so every installation has the same ones.
create table app.exercises (
  id                uuid primary key default gen_random_uuid(),
  name              app.exercise_name not null,
  category          app.exercise_category not null,
  mechanic          app.exercise_mechanic,
  equipment         text not null references app.equipment (id),
  primary_muscles   app.muscle_list not null check (cardinality(primary_muscles) >= 1),
  secondary_muscles app.muscle_list not null default '{}',
  -- 1 = main lift, 2 = secondary compound, 3 = accessory: short-on-time trims 3 first.
  priority_tier     integer not null check (priority_tier between 1 and 3),
  competition_lift  boolean not null default false,
  movement_pattern  text,
  force             text,
  level             text,
  instructions      text[] not null default '{}',
  source            text not null check (source in ('builtin', 'free-exercise-db')),
  external_id       text
);
create unique index exercises_name_key on app.exercises (lower(name));
create index exercises_name_trgm_idx on app.exercises using gin (lower(name) gin_trgm_ops);
create index exercises_primary_muscles_idx on app.exercises using gin ((primary_muscles::text[]));

grant select on app.muscles, app.equipment, app.exercises to liftbase_api;
revoke insert, update, delete on app.muscles, app.equipment, app.exercises from liftbase_api;

insert into app.exercises (id, name, category, mechanic, equipment, primary_muscles, secondary_muscles,
                           priority_tier, competition_lift, movement_pattern, source)
select md5('liftbase-exercise:' || lower(e.name))::uuid, e.name, e.category, e.mechanic, e.equipment,
       e.primary_muscles, e.secondary_muscles, e.tier, e.competition, e.pattern, 'builtin'
  from (values
  -- chest and pressing
  ('Barbell Bench Press', 'powerlifting', 'compound', 'barbell', '{chest}'::text[], '{shoulders,triceps}'::text[], 1, true, 'horizontal_push'),
  ('Pause Bench Press', 'powerlifting', 'compound', 'barbell', '{chest}', '{shoulders,triceps}', 1, true, 'horizontal_push'),
  ('Close-Grip Bench Press', 'strength', 'compound', 'barbell', '{triceps}', '{chest,shoulders}', 2, false, 'horizontal_push'),
  ('Incline Barbell Bench Press', 'strength', 'compound', 'barbell', '{chest}', '{shoulders,triceps}', 2, false, 'horizontal_push'),
  ('Decline Barbell Bench Press', 'strength', 'compound', 'barbell', '{chest}', '{triceps,shoulders}', 2, false, 'horizontal_push'),
  ('Floor Press', 'strength', 'compound', 'barbell', '{chest}', '{triceps,shoulders}', 2, false, 'horizontal_push'),
  ('Larsen Press', 'strength', 'compound', 'barbell', '{chest}', '{shoulders,triceps}', 2, false, 'horizontal_push'),
  ('Dumbbell Bench Press', 'strength', 'compound', 'dumbbell', '{chest}', '{shoulders,triceps}', 2, false, 'horizontal_push'),
  ('Incline Dumbbell Bench Press', 'strength', 'compound', 'dumbbell', '{chest}', '{shoulders,triceps}', 2, false, 'horizontal_push'),
  ('Machine Chest Press', 'strength', 'compound', 'machine', '{chest}', '{shoulders,triceps}', 2, false, 'horizontal_push'),
  ('Push-Up', 'strength', 'compound', 'body_only', '{chest}', '{shoulders,triceps}', 2, false, 'horizontal_push'),
  ('Chest Dip', 'strength', 'compound', 'body_only', '{chest}', '{triceps,shoulders}', 2, false, 'horizontal_push'),
  ('Dumbbell Fly', 'strength', 'isolation', 'dumbbell', '{chest}', '{shoulders}', 3, false, 'chest_isolation'),
  ('Incline Dumbbell Fly', 'strength', 'isolation', 'dumbbell', '{chest}', '{shoulders}', 3, false, 'chest_isolation'),
  ('Cable Crossover', 'strength', 'isolation', 'cable', '{chest}', '{shoulders}', 3, false, 'chest_isolation'),
  ('Low-to-High Cable Fly', 'strength', 'isolation', 'cable', '{chest}', '{shoulders}', 3, false, 'chest_isolation'),
  ('Pec Deck', 'strength', 'isolation', 'machine', '{chest}', '{shoulders}', 3, false, 'chest_isolation'),
  -- shoulders
  ('Overhead Press', 'strength', 'compound', 'barbell', '{shoulders}', '{triceps,traps}', 1, false, 'vertical_push'),
  ('Push Press', 'strength', 'compound', 'barbell', '{shoulders}', '{triceps,quadriceps}', 2, false, 'vertical_push'),
  ('Seated Dumbbell Shoulder Press', 'strength', 'compound', 'dumbbell', '{shoulders}', '{triceps}', 2, false, 'vertical_push'),
  ('Arnold Press', 'strength', 'compound', 'dumbbell', '{shoulders}', '{triceps}', 2, false, 'vertical_push'),
  ('Machine Shoulder Press', 'strength', 'compound', 'machine', '{shoulders}', '{triceps}', 2, false, 'vertical_push'),
  ('Landmine Press', 'strength', 'compound', 'barbell', '{shoulders}', '{chest,triceps}', 2, false, 'vertical_push'),
  ('Dumbbell Lateral Raise', 'strength', 'isolation', 'dumbbell', '{shoulders}', '{}', 3, false, 'shoulder_isolation'),
  ('Cable Lateral Raise', 'strength', 'isolation', 'cable', '{shoulders}', '{}', 3, false, 'shoulder_isolation'),
  ('Dumbbell Front Raise', 'strength', 'isolation', 'dumbbell', '{shoulders}', '{}', 3, false, 'shoulder_isolation'),
  ('Reverse Dumbbell Fly', 'strength', 'isolation', 'dumbbell', '{shoulders}', '{middle back}', 3, false, 'shoulder_isolation'),
  ('Reverse Pec Deck', 'strength', 'isolation', 'machine', '{shoulders}', '{middle back}', 3, false, 'shoulder_isolation'),
  ('Face Pull', 'strength', 'isolation', 'cable', '{shoulders}', '{middle back,traps}', 3, false, 'shoulder_isolation'),
  ('Upright Row', 'strength', 'compound', 'barbell', '{shoulders}', '{traps,biceps}', 3, false, 'shoulder_isolation'),
  -- triceps
  ('Triceps Pushdown', 'strength', 'isolation', 'cable', '{triceps}', '{}', 3, false, 'elbow_extension'),
  ('Overhead Cable Triceps Extension', 'strength', 'isolation', 'cable', '{triceps}', '{}', 3, false, 'elbow_extension'),
  ('Skull Crusher', 'strength', 'isolation', 'e_z_curl_bar', '{triceps}', '{}', 3, false, 'elbow_extension'),
  ('Dumbbell Overhead Triceps Extension', 'strength', 'isolation', 'dumbbell', '{triceps}', '{}', 3, false, 'elbow_extension'),
  ('Triceps Kickback', 'strength', 'isolation', 'dumbbell', '{triceps}', '{}', 3, false, 'elbow_extension'),
  ('Bench Dip', 'strength', 'compound', 'body_only', '{triceps}', '{chest,shoulders}', 3, false, 'elbow_extension'),
  ('Triceps Dip', 'strength', 'compound', 'body_only', '{triceps}', '{chest,shoulders}', 2, false, 'horizontal_push'),
  -- hinges and back
  ('Barbell Deadlift', 'powerlifting', 'compound', 'barbell', '{glutes,hamstrings,lower back}', '{quadriceps,traps,forearms,middle back}', 1, true, 'hinge'),
  ('Sumo Deadlift', 'powerlifting', 'compound', 'barbell', '{glutes,hamstrings}', '{quadriceps,adductors,lower back,traps}', 1, true, 'hinge'),
  ('Deficit Deadlift', 'powerlifting', 'compound', 'barbell', '{glutes,hamstrings,lower back}', '{quadriceps,traps,forearms}', 2, false, 'hinge'),
  ('Trap Bar Deadlift', 'strength', 'compound', 'other', '{quadriceps,glutes}', '{hamstrings,lower back,traps}', 2, false, 'hinge'),
  ('Romanian Deadlift', 'strength', 'compound', 'barbell', '{hamstrings}', '{glutes,lower back}', 2, false, 'hinge'),
  ('Stiff-Legged Deadlift', 'strength', 'compound', 'barbell', '{hamstrings}', '{glutes,lower back}', 2, false, 'hinge'),
  ('Dumbbell Romanian Deadlift', 'strength', 'compound', 'dumbbell', '{hamstrings}', '{glutes,lower back}', 2, false, 'hinge'),
  ('Rack Pull', 'strength', 'compound', 'barbell', '{lower back,traps}', '{glutes,hamstrings,forearms}', 2, false, 'hinge'),
  ('Good Morning', 'strength', 'compound', 'barbell', '{hamstrings}', '{glutes,lower back}', 2, false, 'hinge'),
  ('Kettlebell Swing', 'strength', 'compound', 'kettlebells', '{glutes,hamstrings}', '{lower back,shoulders}', 2, false, 'hinge'),
  ('Cable Pull-Through', 'strength', 'compound', 'cable', '{glutes}', '{hamstrings}', 3, false, 'hinge'),
  ('Back Extension', 'strength', 'isolation', 'body_only', '{lower back}', '{glutes,hamstrings}', 3, false, 'hinge'),
  ('Barbell Row', 'strength', 'compound', 'barbell', '{middle back,lats}', '{biceps,shoulders,lower back}', 2, false, 'horizontal_pull'),
  ('Pendlay Row', 'strength', 'compound', 'barbell', '{middle back,lats}', '{biceps,lower back}', 2, false, 'horizontal_pull'),
  ('One-Arm Dumbbell Row', 'strength', 'compound', 'dumbbell', '{lats,middle back}', '{biceps,shoulders}', 2, false, 'horizontal_pull'),
  ('Chest-Supported Dumbbell Row', 'strength', 'compound', 'dumbbell', '{middle back,lats}', '{biceps}', 2, false, 'horizontal_pull'),
  ('Seated Cable Row', 'strength', 'compound', 'cable', '{middle back,lats}', '{biceps}', 2, false, 'horizontal_pull'),
  ('T-Bar Row', 'strength', 'compound', 'other', '{middle back,lats}', '{biceps,lower back}', 2, false, 'horizontal_pull'),
  ('Machine Row', 'strength', 'compound', 'machine', '{middle back,lats}', '{biceps}', 2, false, 'horizontal_pull'),
  ('Inverted Row', 'strength', 'compound', 'body_only', '{middle back,lats}', '{biceps}', 2, false, 'horizontal_pull'),
  ('Pull-Up', 'strength', 'compound', 'body_only', '{lats}', '{biceps,middle back}', 2, false, 'vertical_pull'),
  ('Chin-Up', 'strength', 'compound', 'body_only', '{lats,biceps}', '{middle back}', 2, false, 'vertical_pull'),
  ('Weighted Pull-Up', 'strength', 'compound', 'other', '{lats}', '{biceps,middle back}', 2, false, 'vertical_pull'),
  ('Lat Pulldown', 'strength', 'compound', 'cable', '{lats}', '{biceps,middle back}', 2, false, 'vertical_pull'),
  ('Close-Grip Lat Pulldown', 'strength', 'compound', 'cable', '{lats}', '{biceps,middle back}', 2, false, 'vertical_pull'),
  ('Straight-Arm Pulldown', 'strength', 'isolation', 'cable', '{lats}', '{triceps}', 3, false, 'vertical_pull'),
  ('Dumbbell Pullover', 'strength', 'isolation', 'dumbbell', '{lats}', '{chest,triceps}', 3, false, 'vertical_pull'),
  ('Barbell Shrug', 'strength', 'isolation', 'barbell', '{traps}', '{forearms}', 3, false, 'shrug'),
  ('Dumbbell Shrug', 'strength', 'isolation', 'dumbbell', '{traps}', '{forearms}', 3, false, 'shrug'),
  -- arms
  ('Barbell Curl', 'strength', 'isolation', 'barbell', '{biceps}', '{forearms}', 3, false, 'elbow_flexion'),
  ('EZ-Bar Curl', 'strength', 'isolation', 'e_z_curl_bar', '{biceps}', '{forearms}', 3, false, 'elbow_flexion'),
  ('Dumbbell Curl', 'strength', 'isolation', 'dumbbell', '{biceps}', '{forearms}', 3, false, 'elbow_flexion'),
  ('Hammer Curl', 'strength', 'isolation', 'dumbbell', '{biceps}', '{forearms}', 3, false, 'elbow_flexion'),
  ('Incline Dumbbell Curl', 'strength', 'isolation', 'dumbbell', '{biceps}', '{forearms}', 3, false, 'elbow_flexion'),
  ('Concentration Curl', 'strength', 'isolation', 'dumbbell', '{biceps}', '{}', 3, false, 'elbow_flexion'),
  ('Preacher Curl', 'strength', 'isolation', 'e_z_curl_bar', '{biceps}', '{forearms}', 3, false, 'elbow_flexion'),
  ('Cable Curl', 'strength', 'isolation', 'cable', '{biceps}', '{forearms}', 3, false, 'elbow_flexion'),
  ('Reverse Curl', 'strength', 'isolation', 'barbell', '{forearms}', '{biceps}', 3, false, 'elbow_flexion'),
  ('Wrist Curl', 'strength', 'isolation', 'barbell', '{forearms}', '{}', 3, false, 'wrist'),
  ('Reverse Wrist Curl', 'strength', 'isolation', 'barbell', '{forearms}', '{}', 3, false, 'wrist'),
  -- squats, lunges, legs
  ('Barbell Squat', 'powerlifting', 'compound', 'barbell', '{quadriceps}', '{glutes,hamstrings,lower back,adductors}', 1, true, 'squat'),
  ('Low-Bar Squat', 'powerlifting', 'compound', 'barbell', '{quadriceps,glutes}', '{hamstrings,lower back,adductors}', 1, true, 'squat'),
  ('Pause Squat', 'powerlifting', 'compound', 'barbell', '{quadriceps}', '{glutes,hamstrings,lower back}', 1, true, 'squat'),
  ('Front Squat', 'strength', 'compound', 'barbell', '{quadriceps}', '{glutes,abdominals}', 2, false, 'squat'),
  ('Box Squat', 'strength', 'compound', 'barbell', '{quadriceps,glutes}', '{hamstrings,lower back}', 2, false, 'squat'),
  ('Safety Bar Squat', 'strength', 'compound', 'other', '{quadriceps}', '{glutes,hamstrings,lower back}', 2, false, 'squat'),
  ('Goblet Squat', 'strength', 'compound', 'kettlebells', '{quadriceps}', '{glutes}', 2, false, 'squat'),
  ('Hack Squat', 'strength', 'compound', 'machine', '{quadriceps}', '{glutes}', 2, false, 'squat'),
  ('Leg Press', 'strength', 'compound', 'machine', '{quadriceps}', '{glutes,hamstrings}', 2, false, 'squat'),
  ('Pistol Squat', 'strength', 'compound', 'body_only', '{quadriceps}', '{glutes,hamstrings}', 3, false, 'squat'),
  ('Bulgarian Split Squat', 'strength', 'compound', 'dumbbell', '{quadriceps}', '{glutes,hamstrings}', 2, false, 'lunge'),
  ('Walking Lunge', 'strength', 'compound', 'dumbbell', '{quadriceps}', '{glutes,hamstrings}', 2, false, 'lunge'),
  ('Reverse Lunge', 'strength', 'compound', 'dumbbell', '{quadriceps}', '{glutes,hamstrings}', 2, false, 'lunge'),
  ('Barbell Lunge', 'strength', 'compound', 'barbell', '{quadriceps}', '{glutes,hamstrings}', 2, false, 'lunge'),
  ('Step-Up', 'strength', 'compound', 'dumbbell', '{quadriceps}', '{glutes}', 2, false, 'lunge'),
  ('Leg Extension', 'strength', 'isolation', 'machine', '{quadriceps}', '{}', 3, false, 'knee_extension'),
  ('Lying Leg Curl', 'strength', 'isolation', 'machine', '{hamstrings}', '{calves}', 3, false, 'knee_flexion'),
  ('Seated Leg Curl', 'strength', 'isolation', 'machine', '{hamstrings}', '{}', 3, false, 'knee_flexion'),
  ('Nordic Hamstring Curl', 'strength', 'isolation', 'body_only', '{hamstrings}', '{}', 3, false, 'knee_flexion'),
  ('Hip Thrust', 'strength', 'compound', 'barbell', '{glutes}', '{hamstrings}', 2, false, 'hip_extension'),
  ('Glute Bridge', 'strength', 'isolation', 'body_only', '{glutes}', '{hamstrings}', 3, false, 'hip_extension'),
  ('Hip Abduction Machine', 'strength', 'isolation', 'machine', '{abductors}', '{glutes}', 3, false, 'hip_isolation'),
  ('Hip Adduction Machine', 'strength', 'isolation', 'machine', '{adductors}', '{}', 3, false, 'hip_isolation'),
  ('Standing Calf Raise', 'strength', 'isolation', 'machine', '{calves}', '{}', 3, false, 'calf'),
  ('Seated Calf Raise', 'strength', 'isolation', 'machine', '{calves}', '{}', 3, false, 'calf'),
  ('Leg Press Calf Raise', 'strength', 'isolation', 'machine', '{calves}', '{}', 3, false, 'calf'),
  -- core and neck
  ('Plank', 'strength', 'isolation', 'body_only', '{abdominals}', '{}', 3, false, 'core'),
  ('Side Plank', 'strength', 'isolation', 'body_only', '{abdominals}', '{}', 3, false, 'core'),
  ('Hanging Leg Raise', 'strength', 'isolation', 'body_only', '{abdominals}', '{}', 3, false, 'core'),
  ('Cable Crunch', 'strength', 'isolation', 'cable', '{abdominals}', '{}', 3, false, 'core'),
  ('Crunch', 'strength', 'isolation', 'body_only', '{abdominals}', '{}', 3, false, 'core'),
  ('Decline Sit-Up', 'strength', 'isolation', 'body_only', '{abdominals}', '{}', 3, false, 'core'),
  ('Ab Wheel Rollout', 'strength', 'compound', 'other', '{abdominals}', '{lats,shoulders}', 3, false, 'core'),
  ('Russian Twist', 'strength', 'isolation', 'medicine_ball', '{abdominals}', '{}', 3, false, 'core'),
  ('Pallof Press', 'strength', 'isolation', 'cable', '{abdominals}', '{}', 3, false, 'core'),
  ('Dead Bug', 'strength', 'isolation', 'body_only', '{abdominals}', '{}', 3, false, 'core'),
  ('Bird Dog', 'strength', 'isolation', 'body_only', '{lower back}', '{glutes,abdominals}', 3, false, 'core'),
  ('Turkish Get-Up', 'strength', 'compound', 'kettlebells', '{shoulders}', '{abdominals,glutes}', 3, false, 'core'),
  ('Plate Neck Flexion', 'strength', 'isolation', 'other', '{neck}', '{}', 3, false, 'neck'),
  ('Plate Neck Extension', 'strength', 'isolation', 'other', '{neck}', '{}', 3, false, 'neck'),
  -- power, plyometrics, strongman, cardio
  ('Power Clean', 'olympic weightlifting', 'compound', 'barbell', '{hamstrings}', '{quadriceps,glutes,traps,shoulders,calves}', 2, false, 'olympic'),
  ('Hang Clean', 'olympic weightlifting', 'compound', 'barbell', '{quadriceps}', '{hamstrings,glutes,traps,shoulders}', 2, false, 'olympic'),
  ('Snatch', 'olympic weightlifting', 'compound', 'barbell', '{quadriceps}', '{hamstrings,glutes,shoulders,traps}', 2, false, 'olympic'),
  ('Clean and Jerk', 'olympic weightlifting', 'compound', 'barbell', '{quadriceps}', '{shoulders,triceps,glutes,hamstrings}', 2, false, 'olympic'),
  ('Box Jump', 'plyometrics', 'compound', 'other', '{quadriceps}', '{glutes,calves,hamstrings}', 3, false, 'plyometric'),
  ('Broad Jump', 'plyometrics', 'compound', 'body_only', '{quadriceps}', '{glutes,hamstrings,calves}', 3, false, 'plyometric'),
  ('Farmer''s Walk', 'strongman', 'compound', 'dumbbell', '{forearms}', '{traps,abdominals,glutes}', 3, false, 'carry'),
  ('Sled Push', 'strongman', 'compound', 'other', '{quadriceps}', '{glutes,calves}', 3, false, 'carry'),
  ('Tire Flip', 'strongman', 'compound', 'other', '{quadriceps}', '{glutes,hamstrings,lower back}', 3, false, 'hinge'),
  ('Rowing Machine', 'cardio', 'compound', 'machine', '{quadriceps}', '{middle back,lats,biceps,hamstrings}', 3, false, 'cardio'),
  ('Stationary Bike', 'cardio', 'compound', 'machine', '{quadriceps}', '{hamstrings,calves}', 3, false, 'cardio'),
  ('Treadmill Run', 'cardio', 'compound', 'machine', '{quadriceps}', '{hamstrings,calves,glutes}', 3, false, 'cardio')
  ) as e (name, category, mechanic, equipment, primary_muscles, secondary_muscles, tier, competition, pattern);

-- Built-in templates, each exercise linked to the catalog.
create table app.templates (
  id          text primary key,
  name        text not null,
  description text not null
);
create table app.template_exercises (
  template_id  text not null references app.templates (id) on delete cascade,
  position     integer not null,
  exercise_id  uuid not null references app.exercises (id),
  sets         integer not null check (sets between 1 and 20),
  reps         integer not null check (reps between 1 and 100),
  rest_seconds integer not null,
  primary key (template_id, position)
);
grant select on app.templates, app.template_exercises to liftbase_api;
revoke insert, update, delete on app.templates, app.template_exercises from liftbase_api;

insert into app.templates (id, name, description) values
  ('push', 'Push', 'Chest, shoulders and triceps.'),
  ('pull', 'Pull', 'Back, rear shoulders and biceps.'),
  ('legs', 'Legs', 'Quadriceps, hamstrings, glutes and calves.'),
  ('upper', 'Upper', 'The upper body: pressing and pulling.'),
  ('lower', 'Lower', 'The lower body: squatting, hinging, single leg.'),
  ('full_body', 'Full body', 'One session for the whole body.');
insert into app.template_exercises (template_id, position, exercise_id, sets, reps, rest_seconds)
select t.template_id, t.position, e.id, t.sets, t.reps, t.rest_seconds
  from (values
    ('push', 1, 'Barbell Bench Press', 4, 6, 180), ('push', 2, 'Overhead Press', 3, 8, 150),
    ('push', 3, 'Incline Dumbbell Bench Press', 3, 10, 120), ('push', 4, 'Dumbbell Lateral Raise', 3, 15, 60),
    ('push', 5, 'Triceps Pushdown', 3, 12, 60),
    ('pull', 1, 'Barbell Deadlift', 3, 5, 180), ('pull', 2, 'Pull-Up', 3, 8, 120), ('pull', 3, 'Barbell Row', 3, 8, 120),
    ('pull', 4, 'Face Pull', 3, 15, 60), ('pull', 5, 'Barbell Curl', 3, 12, 60),
    ('legs', 1, 'Barbell Squat', 4, 6, 180), ('legs', 2, 'Romanian Deadlift', 3, 8, 150), ('legs', 3, 'Leg Press', 3, 12, 120),
    ('legs', 4, 'Lying Leg Curl', 3, 12, 60), ('legs', 5, 'Standing Calf Raise', 4, 15, 60),
    ('upper', 1, 'Barbell Bench Press', 4, 6, 180), ('upper', 2, 'Barbell Row', 4, 8, 120), ('upper', 3, 'Overhead Press', 3, 8, 150),
    ('upper', 4, 'Lat Pulldown', 3, 10, 90), ('upper', 5, 'Dumbbell Curl', 2, 12, 60), ('upper', 6, 'Triceps Pushdown', 2, 12, 60),
    ('lower', 1, 'Barbell Squat', 4, 6, 180), ('lower', 2, 'Romanian Deadlift', 3, 8, 150),
    ('lower', 3, 'Bulgarian Split Squat', 3, 10, 90), ('lower', 4, 'Leg Extension', 3, 12, 60), ('lower', 5, 'Seated Calf Raise', 3, 15, 60),
    ('full_body', 1, 'Barbell Squat', 3, 5, 180), ('full_body', 2, 'Barbell Bench Press', 3, 5, 180),
    ('full_body', 3, 'Barbell Row', 3, 8, 120), ('full_body', 4, 'Overhead Press', 2, 8, 120), ('full_body', 5, 'Hanging Leg Raise', 3, 12, 60)
  ) as t (template_id, position, exercise_name, sets, reps, rest_seconds)
  join app.exercises as e on e.name = t.exercise_name;

-- Set rules ---------------------------------------------------------------------------------------

create domain app.reps as integer check (value between 0 and 1000);
comment on domain app.reps is 'must be a whole number from 0 to 1000';
create domain app.load_kg as numeric check (value between 0 and 2000);
comment on domain app.load_kg is 'must be between 0 and 2000';
create domain app.rpe as numeric check (value between 1 and 10 and value * 2 = trunc(value * 2));
comment on domain app.rpe is 'must be 1 to 10 in steps of 0.5';
create domain app.rir as integer check (value between 0 and 10);
comment on domain app.rir is 'must be a whole number from 0 to 10';
create domain app.set_type as text check (value in ('warmup', 'working', 'dropset', 'failure'));
comment on domain app.set_type is 'must be one of warmup, working, dropset, failure';
-- Eccentric-pause-concentric-pause seconds, X for explosive: "3-1-1-0", "4-0-X-1".
create domain app.tempo as text check (value ~ '^[0-9X]{1,2}-[0-9X]{1,2}-[0-9X]{1,2}-[0-9X]{1,2}$');
comment on domain app.tempo is 'must look like 3-1-1-0 (seconds per phase, X for explosive)';
create domain app.rest_seconds as integer check (value between 0 and 3600);
comment on domain app.rest_seconds is 'must be a whole number of seconds from 0 to 3600';
create domain app.session_status as text check (value in ('completed', 'in_progress'));
comment on domain app.session_status is 'must be completed or in_progress';
create domain app.plan_sets as integer check (value between 1 and 20);
comment on domain app.plan_sets is 'must be a whole number from 1 to 20';
create domain app.short_text as text check (length(value) <= 2000);
comment on domain app.short_text is 'must be at most 2000 characters';

-- User-owned tables ----------------------------------------------------------------------------

create table app.user_exercises (
  user_id           uuid not null references auth.users (id) on delete cascade,
  id                uuid not null default gen_random_uuid(),
  name              app.exercise_name not null,
  category          app.exercise_category not null default 'strength',
  mechanic          app.exercise_mechanic,
  equipment         text not null default 'other' references app.equipment (id),
  primary_muscles   app.muscle_list not null default '{}',
  secondary_muscles app.muscle_list not null default '{}',
  created_at        timestamptz not null default now(),
  primary key (user_id, id)
);
create unique index user_exercises_name_key on app.user_exercises (user_id, lower(name));

create table app.training_sessions (
  user_id      uuid not null references auth.users (id) on delete cascade,
  id           uuid not null default gen_random_uuid(),
  client_id    uuid,
  session_date date not null,
  name         text check (length(name) <= 200),
  notes        app.short_text,
  status       app.session_status not null,
  started_at   timestamptz,
  finished_at  timestamptz,
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now(),
  primary key (user_id, id),
  check (finished_at is null or started_at is null or finished_at >= started_at)
);
create unique index training_sessions_client_key on app.training_sessions (user_id, client_id);
-- At most one in-progress session per user.
create unique index training_sessions_one_in_progress on app.training_sessions (user_id) where status = 'in_progress';
create index training_sessions_recent_idx on app.training_sessions (user_id, session_date desc, created_at desc, id desc);

create table app.session_exercises (
  user_id          uuid not null,
  session_id       uuid not null,
  position         integer not null,
  exercise_id      uuid references app.exercises (id),
  user_exercise_id uuid,
  exercise_name    app.exercise_name not null,
  notes            app.short_text,
  primary key (user_id, session_id, position),
  foreign key (user_id, session_id) references app.training_sessions (user_id, id) on delete cascade,
  foreign key (user_id, user_exercise_id) references app.user_exercises (user_id, id) on delete set null (user_exercise_id),
  check (exercise_id is null or user_exercise_id is null)
);
create index session_exercises_exercise_idx on app.session_exercises (user_id, exercise_id);

create table app.session_sets (
  user_id           uuid not null,
  session_id        uuid not null,
  exercise_position integer not null,
  position          integer not null,
  reps              app.reps not null,
  weight_kg         app.load_kg not null,
  rpe               app.rpe,
  rir               app.rir,
  set_type          app.set_type not null default 'working',
  tempo             app.tempo,
  rest_seconds      app.rest_seconds,
  primary key (user_id, session_id, exercise_position, position),
  foreign key (user_id, session_id, exercise_position)
    references app.session_exercises (user_id, session_id, position) on delete cascade
);

create table app.plans (
  user_id      uuid not null references auth.users (id) on delete cascade,
  id           uuid not null default gen_random_uuid(),
  name         text not null check (length(btrim(name)) between 1 and 120),
  created_at   timestamptz not null default now(),
  last_used_at timestamptz,
  primary key (user_id, id)
);

create table app.plan_exercises (
  user_id          uuid not null,
  plan_id          uuid not null,
  position         integer not null,
  exercise_id      uuid references app.exercises (id),
  user_exercise_id uuid,
  exercise_name    app.exercise_name not null,
  sets             app.plan_sets not null,
  reps             app.reps not null,
  weight_kg        app.load_kg not null default 0,
  rest_seconds     app.rest_seconds,
  primary key (user_id, plan_id, position),
  foreign key (user_id, plan_id) references app.plans (user_id, id) on delete cascade,
  foreign key (user_id, user_exercise_id) references app.user_exercises (user_id, id) on delete set null (user_exercise_id)
);

create table app.user_equipment (
  user_id      uuid not null references auth.users (id) on delete cascade,
  equipment_id text not null references app.equipment (id),
  selected_at  timestamptz not null default now(),
  primary key (user_id, equipment_id)
);

create table app.user_exclusions (
  user_id      uuid primary key references auth.users (id) on delete cascade,
  exercise_ids uuid[] not null default '{}',
  muscles      app.muscle_list not null default '{}',
  updated_at   timestamptz not null default now()
);

create table app.user_setup (
  user_id      uuid primary key references auth.users (id) on delete cascade,
  completed_at timestamptz not null default now()
);

do $$
declare
  v_table text;
begin
  foreach v_table in array array['user_exercises', 'training_sessions', 'session_exercises', 'session_sets', 'plans',
                                 'plan_exercises', 'user_equipment', 'user_exclusions', 'user_setup']
  loop
    execute format('alter table app.%I enable row level security', v_table);
    execute format('alter table app.%I force row level security', v_table);
    execute format('create policy own_rows on app.%I using (user_id = (select app.current_user_id()))
                    with check (user_id = (select app.current_user_id()))', v_table);
  end loop;
end
$$;

create domain app.timestamp_value as timestamptz;
comment on domain app.timestamp_value is 'must be a timestamp with offset (RFC 3339)';
create domain app.uuid_value as uuid;
comment on domain app.uuid_value is 'must be a UUID';
create domain app.session_name as text check (length(value) <= 200);
comment on domain app.session_name is 'must be at most 200 characters';
create domain app.plan_name as text check (length(btrim(value)) between 1 and 120);
comment on domain app.plan_name is 'must be 1 to 120 characters';
