-- Workout export layouts beyond the current ones: Strong's unit columns (Weight Unit,
-- Distance Unit), bodyweight and cardio rows with a blank weight in Strong and Hevy, and a
-- file of any format without a column it requires, refused once on line 1 naming it.
-- Run as the API role.
begin;
\ir support/helpers.psql
select plan(15);

select pg_temp.sign_up('units', 'layouts-units@example.com', 'layouts units');
select pg_temp.sign_up('blank', 'layouts-blank@example.com', 'layouts blank');
select pg_temp.sign_up('missing', 'layouts-missing@example.com', 'layouts missing');

-- Each set of the user's imported sessions: exercise, measures (nulls left out).
create function pg_temp.sets(p_name text) returns jsonb language sql as $$
  select jsonb_agg(jsonb_strip_nulls(jsonb_build_object('exercise', e.exercise_name, 'kg', x.weight_kg, 'reps', x.reps,
           'seconds', x.duration_seconds, 'm', x.distance_m)) order by s.session_date, e.position, x.position)
    from app.training_sessions as s
    join app.session_exercises as e on e.user_id = s.user_id and e.session_id = s.id
    join app.session_sets as x on x.user_id = e.user_id and x.session_id = e.session_id and x.exercise_position = e.position
   where s.user_id = (select user_id from tokens where name = p_name)
$$;

set local role liftbase_api;

-- Strong's unit columns ----------------------------------------------------------------------------------
select is(pg_temp.call('import_strong', 'units', pg_temp.csv(
            array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Weight Unit', 'Reps', 'RPE', 'Distance',
                  'Distance Unit', 'Seconds', 'Notes', 'Workout Notes', 'Workout Duration'],
            '2019-06-01 07:00:00|Morning|Barbell Squat|1|225|lbs|5||0||0|||',
            '2019-06-01 07:00:00|Morning|Barbell Squat|2|100|kg|5||0||0|||',
            '2019-06-01 07:00:00|Morning|Treadmill Run|1|0||0||3|mi|1500|||',
            '2019-06-01 07:00:00|Morning|Rowing Machine|1|0||0||2000|m|480|||',
            '2019-06-01 07:00:00|Morning|Sled Push|1|40|kg|0||60|ft|0|||')) -> 'imported',
  '5', 'a Strong file with Weight Unit and Distance Unit columns imports');
select is(pg_temp.sets('units'),
  '[{"exercise": "Barbell Squat", "kg": 102.06, "reps": 5}, {"exercise": "Barbell Squat", "kg": 100, "reps": 5},
    {"exercise": "Treadmill Run", "m": 4828, "seconds": 1500}, {"exercise": "Rowing Machine", "m": 2000, "seconds": 480},
    {"exercise": "Sled Push", "kg": 40, "m": 18.3}]',
  'each row in its own units: 225 lbs = 102.06 kg, 3 mi = 4828 m, 60 ft = 18.3 m');
select is(pg_temp.call('import_strong', 'units', pg_temp.csv(
            array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Weight Unit', 'Reps', 'Distance', 'Distance Unit', 'Seconds'],
            '2019-06-02 07:00:00|Run|Treadmill Run|1|0||0|5|leagues|1500',
            '2019-06-02 07:00:00|Run|Treadmill Run|2|0||0|5||1500',
            '2019-06-02 07:00:00|Run|Barbell Squat|1|100|stone|5|0||0',
            '2019-06-02 07:00:00|Run|Barbell Squat|2|100|kg|5|0||0')),
  '{"error": {"code": "import_invalid", "message": "The file has problems; nothing was imported."}, "imported": 0,
    "skipped_duplicates": 0, "skipped": [], "errors": [
      {"line": 2, "message": "Distance Unit \"leagues\" is not a known unit (km, m, mi, ft, yd)"},
      {"line": 3, "message": "Distance Unit is required with a Distance (km, m, mi, ft, yd)"},
      {"line": 4, "message": "Weight Unit \"stone\" is not a known unit (kg, lbs)"}], "warnings": []}',
  'a distance or weight in a unit Liftbase does not know, or in none, is named by line and column; nothing is imported');
select is((select count(*) from app.training_sessions where name = 'Run'), 0::bigint, 'not even the good rows');

-- Blank weights: bodyweight and cardio rows -----------------------------------------------------------------
select is(pg_temp.call('import_strong', 'blank', pg_temp.csv(
            array['Date', 'Workout Name', 'Duration', 'Exercise Name', 'Set Order', 'Weight', 'Reps', 'Distance', 'Seconds', 'Notes', 'Workout Notes', 'RPE'],
            '2024-02-01 18:00:00|Mixed|1h|Pull-Up|1||8||||||',
            '2024-02-01 18:00:00|Mixed|1h|Treadmill Run|1|||5|1500|||',
            '2024-02-01 18:00:00|Mixed|1h|Plank|1||||60|||')) -> 'errors',
  '[]', 'Strong: bodyweight and cardio rows with a blank weight import');
select is(pg_temp.call('import_hevy', 'blank', pg_temp.csv(
            array['title', 'start_time', 'end_time', 'exercise_title', 'set_index', 'set_type', 'weight_kg', 'reps', 'distance_km', 'duration_seconds'],
            'Mixed|2 Feb 2024, 18:00|2 Feb 2024, 19:00|Chin-Up|0|normal||10||',
            'Mixed|2 Feb 2024, 18:00|2 Feb 2024, 19:00|Stationary Bike|0|normal|||12.5|1800',
            'Mixed|2 Feb 2024, 18:00|2 Feb 2024, 19:00|Side Plank|0|normal||||45')) -> 'errors',
  '[]', 'so do Hevy''s');
select is(pg_temp.sets('blank'),
  '[{"exercise": "Pull-Up", "reps": 8}, {"exercise": "Treadmill Run", "m": 5000, "seconds": 1500},
    {"exercise": "Plank", "seconds": 60},
    {"exercise": "Chin-Up", "reps": 10}, {"exercise": "Stationary Bike", "m": 12500, "seconds": 1800},
    {"exercise": "Side Plank", "seconds": 45}]',
  'a blank weight is no load: bodyweight sets have reps only, cardio sets distance and time, holds time');

-- A missing required column: once, on line 1, naming it ------------------------------------------------------
select is(pg_temp.call('import_strong', 'missing', pg_temp.csv(array['Date', 'Workout Name', 'Set Order', 'Weight', 'Reps'],
            '2024-02-01 18:00:00|Legs|1|90|5', '2024-02-01 18:00:00|Legs|2|90|5')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Exercise Name\""}]', 'Strong without Exercise Name');
select is(pg_temp.call('import_strong', 'missing', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Reps'],
            '2024-02-01 18:00:00|Legs|Barbell Squat|1|5')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Weight\""}]', 'Strong without a weight column');
select is(pg_temp.call('import_hevy', 'missing', pg_temp.csv(array['title', 'start_time', 'set_index', 'weight_kg', 'reps'],
            'Legs|1 Feb 2024, 18:00|0|90|5', 'Legs|1 Feb 2024, 18:00|1|90|5')) -> 'errors',
  '[{"line": 1, "message": "missing column \"exercise_title\""}]', 'Hevy without exercise_title');
select is(pg_temp.call('import_hevy', 'missing', pg_temp.csv(array['title', 'start_time', 'exercise_title', 'set_index', 'weight_lbs'],
            'Legs|1 Feb 2024, 18:00|Barbell Squat|0|200')) -> 'errors',
  '[{"line": 1, "message": "missing column \"reps\""}]', 'Hevy without reps (never a set of 0 reps)');
select is(pg_temp.call('import_fitnotes', 'missing', pg_temp.csv(array['Date', 'Category', 'Weight (lbs)', 'Reps'],
            '2024-02-01|Legs|200|5', '2024-02-01|Legs|200|5')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Exercise\""}]', 'FitNotes without Exercise');
select is(pg_temp.call('import_cronometer', 'missing', pg_temp.csv(array['Day', 'Group', 'Energy (kcal)'],
            '2024-02-01|Breakfast|300', '2024-02-01|Lunch|500')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Food Name\""}]', 'Cronometer without Food Name');
select is(pg_temp.call('import_myfitnesspal', 'missing', pg_temp.csv(array['Meal', 'Calories'], 'Breakfast|300')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Date\""}]', 'MyFitnessPal without Date');
select is((select count(*) from app.training_sessions) + (select count(*) from app.food_entries), 0::bigint,
  'none of them imports anything');

select * from finish();
rollback;
