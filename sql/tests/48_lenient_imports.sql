-- Lenient, lossless workout imports: in every layout the apps have written, each row that
-- recorded a measure is imported with every measure it recorded; a row that recorded none
-- (a rest timer, an empty set, a hold of 0 s) is skipped and listed; a row that cannot be
-- read, or that a value rule refuses, is an error naming its line while the rest of the
-- file imports; a row whose measures its exercise's type does not take goes to a variant
-- of that exercise. A file most of whose rows cannot be read, or any problem when all or
-- nothing is asked (strict), still refuses the whole file. Run as the API role.
begin;
\ir support/helpers.psql
select plan(40);

select pg_temp.sign_up('early', 'lenient-early@example.com', 'lenient early');
select pg_temp.sign_up('modern', 'lenient-modern@example.com', 'lenient modern');
select pg_temp.sign_up('hevy', 'lenient-hevy@example.com', 'lenient hevy');
select pg_temp.sign_up('fit', 'lenient-fit@example.com', 'lenient fit');
select pg_temp.sign_up('strict', 'lenient-strict@example.com', 'lenient strict');

create temporary table files (name text primary key, body jsonb);
insert into files values
  -- Strong's early layout: kilograms in `kg`, a distance in `km`; one slip of the thumb
  -- (3310 reps) and a Pallof press held for 30 s where the catalog counts reps.
  ('strong early', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'kg', 'Reps', 'km', 'Seconds', 'Notes'],
     '2016-03-01 07:00:00|Legs|Barbell Squat|1|100|5|0|0|',
     '2016-03-01 07:00:00|Legs|Barbell Squat|2|100|3310|0|0|',
     '2016-03-01 07:00:00|Legs|Treadmill Run|1|0|0|5.2|1800|easy pace',
     '2016-03-01 07:00:00|Legs|Pallof Press|1|0|0|0|30|',
     '2016-03-01 07:00:00|Legs|Pallof Press|2|10|12|0|0|')),
  -- Strong 2017: no Duration and no RPE; a date that is no date.
  ('strong 2017', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Reps', 'Distance', 'Seconds', 'Notes', 'Workout Notes'],
     '2017-06-01 18:00:00|Push|Overhead Press|1|40|8|0|0|easy|',
     '2017-06-01 18:00:00|Push|Overhead Press|2|42.5|6|0|0||',
     '2017-06-31 18:00:00|Push|Overhead Press|3|45|5|0|0||')),
  -- Strong 2025: a Duration, reps written as 10.0, rest-timer rows, an empty set, a hold as
  -- m:ss, and 10.5 reps.
  ('strong 2025', pg_temp.csv(array['Date', 'Workout Name', 'Duration', 'Exercise Name', 'Set Order', 'Weight', 'Reps', 'Distance', 'Seconds', 'Notes', 'Workout Notes', 'RPE'],
     '2025-05-02 07:00:00|Upper|1h 2m|Barbell Bench Press|1|80|10.0|0|0|||',
     '2025-05-02 07:00:00|Upper|1h 2m|Barbell Bench Press|Rest Timer|||0|120|||',
     '2025-05-02 07:00:00|Upper|1h 2m|Barbell Bench Press|2|80|8.0|0|0|||8.5',
     '2025-05-02 07:00:00|Upper|1h 2m|Barbell Bench Press|3|80|10.5|0|0|||',
     '2025-05-02 07:00:00|Upper|1h 2m|Plank|1|0|0|0|0|||',
     '2025-05-02 07:00:00|Upper|1h 2m|Plank|2|0|0|0|1:30|||',
     '2025-05-02 07:00:00|Upper|1h 2m|Plank|Rest Timer|||0|60|||')),
  -- Strong's newest layout: the workout's number, its length in seconds, the units in
  -- brackets.
  ('strong newest', pg_temp.csv(array['Workout #', 'Date', 'Workout Name', 'Duration (sec)', 'Exercise Name', 'Set Order', 'Weight (kg)', 'Reps', 'RPE', 'Distance (meters)', 'Seconds', 'Notes', 'Workout Notes'],
     '1|2025-09-01 06:00:00|Pull|3720|Barbell Row|1|62.5|8||0|0||',
     '1|2025-09-01 06:00:00|Pull|3720|Barbell Row|Rest Timer|||||90||',
     '1|2025-09-01 06:00:00|Pull|3720|Rowing Machine|1|0|0||2000|480||')),
  -- Hevy in kilograms: reps logged for a plank the catalog times, and a whole workout of
  -- empty sets (no session is made for it).
  ('hevy kg', pg_temp.csv(array['title', 'start_time', 'end_time', 'description', 'exercise_title', 'superset_id', 'exercise_notes', 'set_index', 'set_type', 'weight_kg', 'reps', 'distance_km', 'duration_seconds', 'rpe'],
     'Core|9 Feb 2026, 18:00|9 Feb 2026, 18:40||Plank|||0|normal||12|||',
     'Core|9 Feb 2026, 18:00|9 Feb 2026, 18:40||Plank|||1|normal|||||',
     'Core|9 Feb 2026, 18:00|9 Feb 2026, 18:40||Plank|||2|normal||||60|',
     'Core|9 Feb 2026, 18:00|9 Feb 2026, 18:40||Pull-Up|||0|warmup||6|||',
     'Nothing|10 Feb 2026, 18:00|10 Feb 2026, 18:40||Plank|||0|normal|||||')),
  -- Hevy in pounds and miles.
  ('hevy lbs', pg_temp.csv(array['title', 'start_time', 'end_time', 'description', 'exercise_title', 'superset_id', 'exercise_notes', 'set_index', 'set_type', 'weight_lbs', 'reps', 'distance_miles', 'duration_seconds', 'rpe'],
     'Run|11 Feb 2026, 07:00|11 Feb 2026, 07:30||Treadmill Run|||0|normal|||3.1|1500|',
     'Run|11 Feb 2026, 07:00|11 Feb 2026, 07:30||Barbell Bench Press|||0|normal|135|5|||')),
  -- FitNotes 2016 in pounds: side planks that recorded 0:00:00 (and a stray 0.0 distance).
  ('fitnotes 2016', pg_temp.csv(array['Date', 'Exercise', 'Category', 'Weight (lbs)', 'Reps', 'Distance', 'Distance Unit', 'Time', 'Comment'],
     '2016-05-01|Flat Barbell Bench Press|Chest|185.0|5||||',
     '2016-05-01|Side Plank|Abs|0.0|0|0.0||0:00:00|',
     '2016-05-01|Side Plank|Abs|0.0|0|||0:00:45|',
     '2016-05-01|Side Plank|Abs|0.0|0|||0:00:00|')),
  -- FitNotes 2025: a plain Weight with its Weight Unit, no Comment, and a name holding an
  -- unquoted comma on one line only (the other lines keep their width).
  ('fitnotes 2025', pg_temp.csv(array['Date', 'Exercise', 'Category', 'Weight', 'Weight Unit', 'Reps', 'Distance', 'Distance Unit', 'Time'],
     '2025-04-29|Flat Barbell Bench Press (Each Side) (Smith Machine)|Chest|7.5|kgs|20|||',
     '2025-04-29|Overhead Press (Each Side| Dumbbells)|Shoulders|8.0|kgs|5|||',
     '2025-04-29|Barbell Curl|Biceps|30|lbs|10|||')),
  -- Most rows unreadable: not this format, whatever its header says.
  ('mostly bad', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Reps'],
     '2024-02-01 10:00|Odd|Barbell Squat|1|100|5', 'yesterday|Odd|Barbell Squat|2|100|5',
     'today|Odd|Barbell Squat|3|100|5'));
grant select on files to liftbase_api;

-- Each set of the user's sessions as exercise, measures (nulls left out) and set type.
create function pg_temp.sets(p_name text) returns jsonb language sql as $$
  select coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('exercise', e.exercise_name, 'kg', x.weight_kg,
           'reps', x.reps, 'seconds', x.duration_seconds, 'm', x.distance_m, 'rpe', x.rpe))
           order by s.session_date, s.name, e.position, x.position), '[]')
    from app.training_sessions as s
    join app.session_exercises as e on e.user_id = s.user_id and e.session_id = s.id
    join app.session_sets as x on x.user_id = e.user_id and x.session_id = e.session_id and x.exercise_position = e.position
   where s.user_id = (select user_id from tokens where name = p_name)
$$;
grant execute on function pg_temp.sets(text) to liftbase_api;

set local role liftbase_api;

-- Strong, early layout -----------------------------------------------------------------------------------
select is(pg_temp.call('import_strong', 'early', (select body from files where name = 'strong early'), '{"dry_run": "true"}') - 'exercises',
  '{"imported": 4, "skipped_duplicates": 0, "skipped": [], "warnings": [],
    "errors": [{"line": 3, "message": "reps: must be a whole number from 0 to 1000"}]}',
  'a dry run answers what the import would do: the row a value rule refuses is an error, the rest imports');
select is(pg_temp.sets('early'), '[]', '… and writes nothing');
select is(pg_temp.call('import_strong', 'early', (select body from files where name = 'strong early')) - 'exercises',
  '{"imported": 4, "skipped_duplicates": 0, "skipped": [], "warnings": [],
    "errors": [{"line": 3, "message": "reps: must be a whole number from 0 to 1000"}]}',
  'Strong''s early layout: one slip of the thumb costs that row, not the file');
select is(pg_temp.status(), '200', 'a file imported in part is answered 200');
select is(pg_temp.sets('early'),
  '[{"exercise": "Barbell Squat", "kg": 100, "reps": 5}, {"exercise": "Treadmill Run", "m": 5200, "seconds": 1800},
    {"exercise": "Pallof Press (timed)", "seconds": 30}, {"exercise": "Pallof Press", "kg": 10, "reps": 12}]',
  'the km column is a distance; a hold the catalog counts in reps goes to a timed variant');
select is((select jsonb_build_object('type', u.tracking_type, 'equipment', u.equipment, 'muscles', u.primary_muscles)
             from app.user_exercises as u where u.name = 'Pallof Press (timed)'),
  '{"type": "duration", "equipment": "cable", "muscles": ["abdominals"]}',
  'the variant is timed and works the muscles of the exercise it varies');
select is(pg_temp.call('import_strong', 'early', (select body from files where name = 'strong early')) - 'errors' - 'exercises',
  '{"imported": 0, "skipped_duplicates": 5, "skipped": [], "warnings": []}',
  'the same file again adds nothing: every row of a workout imported before is a duplicate');

-- Strong 2017 and 2025 --------------------------------------------------------------------------------------
select is(pg_temp.call('import_strong', 'modern', (select body from files where name = 'strong 2017')) - 'exercises',
  '{"imported": 2, "skipped_duplicates": 0, "skipped": [], "warnings": [],
    "errors": [{"line": 4, "message": "Date must be a date and time like 2024-05-01 06:30:00"}]}',
  'Strong 2017: a date that is no date is an error of its row');
select is(pg_temp.call('import_strong', 'modern', (select body from files where name = 'strong 2025')) - 'exercises',
  '{"imported": 3, "skipped_duplicates": 0, "warnings": [],
    "skipped": [{"line": 3, "message": "a rest timer row, not a set"},
                {"line": 6, "message": "no weight, reps, time or distance recorded"},
                {"line": 8, "message": "a rest timer row, not a set"}],
    "errors": [{"line": 5, "message": "Reps must be a whole number"}]}',
  'Strong 2025: rest timers and an empty set are skipped and listed, 10.5 reps is an error');
select is(pg_temp.sets('modern'),
  '[{"exercise": "Overhead Press", "kg": 40, "reps": 8}, {"exercise": "Overhead Press", "kg": 42.5, "reps": 6},
    {"exercise": "Barbell Bench Press", "kg": 80, "reps": 10}, {"exercise": "Barbell Bench Press", "kg": 80, "reps": 8, "rpe": 8.5},
    {"exercise": "Plank", "seconds": 90}]',
  '10.0 reps is 10; a hold written 1:30 is 90 s');
select is((select to_char(finished_at - started_at, 'HH24:MI') from app.training_sessions where name = 'Upper'), '01:02',
  'the workout lasts its Duration');

select is(pg_temp.call('import_strong', 'modern', (select body from files where name = 'strong newest')) - 'exercises',
  '{"imported": 2, "skipped_duplicates": 0, "errors": [], "warnings": [],
    "skipped": [{"line": 3, "message": "a rest timer row, not a set"}]}',
  'Strong''s newest layout: Weight (kg), Distance (meters), Duration (sec)');
select is((select jsonb_build_object('length', to_char(s.finished_at - s.started_at, 'HH24:MI'), 'sets',
                  (select jsonb_agg(jsonb_strip_nulls(jsonb_build_object('kg', x.weight_kg, 'reps', x.reps, 'm', x.distance_m,
                                                                         's', x.duration_seconds)) order by x.exercise_position)
                     from app.session_sets as x where x.user_id = s.user_id and x.session_id = s.id))
             from app.training_sessions as s where s.name = 'Pull'),
  '{"length": "01:02", "sets": [{"kg": 62.5, "reps": 8}, {"m": 2000, "s": 480}]}', '… read in its units');

-- Hevy --------------------------------------------------------------------------------------------------
create temporary table hevy_answer as select pg_temp.call('import_hevy', 'hevy', (select body from files where name = 'hevy kg')) as body;
select is((select body from hevy_answer) - 'exercises',
  '{"imported": 3, "skipped_duplicates": 0, "warnings": [], "errors": [],
    "skipped": [{"line": 3, "message": "no weight, reps, time or distance recorded"},
                {"line": 6, "message": "no weight, reps, time or distance recorded"}]}',
  'Hevy: reps logged for a timed exercise are never refused');
select is(pg_temp.sets('hevy'),
  '[{"exercise": "Plank (reps)", "reps": 12}, {"exercise": "Plank", "seconds": 60}, {"exercise": "Pull-Up", "reps": 6}]',
  '… they go to a variant that counts reps, beside the timed sets');
select is((select jsonb_agg(e - 'exercise_id' - 'user_exercise_id' order by e ->> 'how') from hevy_answer,
                  jsonb_array_elements(body -> 'exercises') as e where e ->> 'name' = 'Plank'),
  '[{"name": "Plank", "exercise_name": "Plank", "how": "exact"}, {"name": "Plank", "exercise_name": "Plank (reps)", "how": "variant"}]',
  'the answer names the variant the name''s reps went to');
select is((select (e ->> 'user_exercise_id')::uuid from hevy_answer, jsonb_array_elements(body -> 'exercises') as e
            where e ->> 'how' = 'variant'), (select id from app.user_exercises where name = 'Plank (reps)'), '… with its id');
select is((select jsonb_build_object('type', u.tracking_type, 'muscles', u.primary_muscles)
             from app.user_exercises as u where u.name = 'Plank (reps)'),
  (select jsonb_build_object('type', 'bodyweight_reps', 'muscles', e.primary_muscles) from app.exercises as e where e.name = 'Plank'),
  'a variant of reps without a load is bodyweight work, with the plank''s muscles');
select is((select count(*) from app.training_sessions where name = 'Nothing'), 0::bigint,
  'a workout none of whose rows recorded anything is not made');
select is(pg_temp.call('import_hevy', 'hevy', (select body from files where name = 'hevy lbs')) - 'exercises',
  '{"imported": 2, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'Hevy in pounds and miles');
select is((select jsonb_agg(jsonb_strip_nulls(jsonb_build_object('kg', x.weight_kg, 'm', x.distance_m, 's', x.duration_seconds))
                            order by x.exercise_position)
             from app.session_sets as x join app.training_sessions as s on s.user_id = x.user_id and s.id = x.session_id
            where s.name = 'Run'),
  '[{"m": 4989, "s": 1500}, {"kg": 61.23}]', '3.1 miles is 4,989.0 m (to 0.1 m), 135 lb is 61.23 kg');

-- FitNotes ------------------------------------------------------------------------------------------------
select is(pg_temp.call('import_fitnotes', 'fit', (select body from files where name = 'fitnotes 2016')) - 'exercises',
  '{"imported": 2, "skipped_duplicates": 0, "errors": [], "warnings": [],
    "skipped": [{"line": 3, "message": "no weight, reps, time or distance recorded"},
                {"line": 5, "message": "no weight, reps, time or distance recorded"}]}',
  'FitNotes 2016: holds of 0:00:00 are skipped, not refused');
select is(pg_temp.call('import_fitnotes', 'fit', (select body from files where name = 'fitnotes 2025')) - 'exercises',
  '{"imported": 3, "skipped_duplicates": 0, "skipped": [], "errors": [],
    "warnings": [{"line": 3, "message": "Exercise held an unquoted comma: read as \"Overhead Press (Each Side, Dumbbells)\""}]}',
  'FitNotes 2025 (Weight and Weight Unit, no Comment): only the line with a comma is mended');
select is(pg_temp.sets('fit'),
  '[{"exercise": "Flat Barbell Bench Press", "kg": 83.91, "reps": 5}, {"exercise": "Side Plank", "seconds": 45},
    {"exercise": "Flat Barbell Bench Press (Each Side) (Smith Machine)", "kg": 7.5, "reps": 20},
    {"exercise": "Overhead Press (Each Side, Dumbbells)", "kg": 8, "reps": 5}, {"exercise": "Barbell Curl", "kg": 13.61, "reps": 10}]',
  'every measure as recorded, pounds as kilograms');
select is(pg_temp.call('import_fitnotes', 'fit', pg_temp.csv(array['Date', 'Exercise', 'Category', 'Weight (kgs)', 'Reps', 'Distance', 'Distance Unit', 'Time', 'Comment'],
            '2024-03-12|Barbell Squat|Legs|100|5||||slow| deep', '2024-03-12|Barbell Squat|Legs|105|5||||',
            '2024-03-12|Barbell Squat|Legs|110|3||||')) - 'exercises',
  '{"imported": 2, "skipped_duplicates": 0, "skipped": [], "warnings": [],
    "errors": [{"line": 2, "message": "the line has 10 fields where the header has 9"}]}',
  'a line whose extra field cannot be put back is an error of that line alone');

-- Numbers that are no numbers ------------------------------------------------------------------------------
select is(pg_temp.call('import_strong', 'fit', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Reps', 'Seconds'],
            '2024-08-01 07:00|Odd|Barbell Squat|1|1,000|5|', '2024-08-01 07:00|Odd|Barbell Squat|2|100|5|3000000000s',
            '2024-08-01 07:00|Odd|Barbell Squat|3|62,5|5|', '2024-08-01 07:00|Odd|Push Ups|1||12|')) - 'exercises' - 'warnings',
  '{"imported": 2, "skipped_duplicates": 0, "skipped": [],
    "errors": [{"line": 2, "message": "the weight must be a number"},
               {"line": 3, "message": "Seconds must be a number of seconds or a time like 1:30"}]}',
  'a thousands separator is no decimal comma, and a time too large to be one is an error of its row');

-- What still refuses a whole file ---------------------------------------------------------------------------
select is(pg_temp.call('import_strong', 'strict', (select body from files where name = 'mostly bad')) - 'exercises',
  '{"error": {"code": "import_invalid", "message": "The file has problems; nothing was imported."},
    "imported": 0, "skipped_duplicates": 0, "skipped": [], "warnings": [],
    "errors": [{"line": 3, "message": "Date must be a date and time like 2024-05-01 06:30:00"},
               {"line": 4, "message": "Date must be a date and time like 2024-05-01 06:30:00"}]}',
  'a file most of whose rows cannot be read is refused whole');
select is(pg_temp.status(), '422', '… with 422');
select is(pg_temp.call('import_strong', 'strict', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Reps', 'Seconds'],
            'soon|Odd|Barbell Squat|1|100|5|', 'soon|Odd|Barbell Squat|Rest Timer|||90', 'later|Odd|Barbell Squat|2|100|5|',
            'later|Odd|Barbell Squat|Rest Timer|||90', '2024-08-02 07:00|Odd|Barbell Squat|1|100|5|')) ->> 'imported',
  '0', 'rest-timer rows do not make a file of unreadable sets look half read');
select is(pg_temp.call('import_strong', 'strict', (select body from files where name = 'strong early'), '{"strict": "true"}') - 'exercises',
  '{"error": {"code": "import_invalid", "message": "The file has problems; nothing was imported."},
    "imported": 0, "skipped_duplicates": 0, "skipped": [], "warnings": [],
    "errors": [{"line": 3, "message": "reps: must be a whole number from 0 to 1000"}]}',
  'strict: a value rule''s refusal refuses the whole file');
select is(pg_temp.call('import_strong', 'strict', (select body from files where name = 'strong 2025'), '{"strict": "1"}') -> 'errors',
  '[{"line": 5, "message": "Reps must be a whole number"}]', 'strict: so does a row that cannot be read');
select is(pg_temp.call('import_fitnotes', 'strict', pg_temp.csv(array['Date', 'Exercise', 'Category', 'Weight (kgs)', 'Reps', 'Distance', 'Distance Unit', 'Time', 'Comment'],
            '2024-03-12|Barbell Squat|Legs|100|5||||slow| deep', '2024-03-12|Barbell Squat|Legs|105|5||||'),
            '{"strict": "true"}') -> 'errors',
  '[{"line": 2, "message": "the line has 10 fields where the header has 9"}]', 'strict: and a line too wide');
select is(pg_temp.sets('strict'), '[]', 'nothing of the refused files is written');
select is((select count(*) from app.user_exercises where name like 'Pallof Press%'
             and user_id = (select user_id from tokens where name = 'strict')), 0::bigint, '… not even an exercise');
select is(pg_temp.error_of('import_strong', 'strict', (select body from files where name = 'strong 2017'), '{"strict": "maybe"}')
            ->> 'code', 'invalid_parameter', 'strict takes true, false, 1 or 0');
select is(pg_temp.call('import_strong', 'strict', (select body from files where name = 'strong 2025'), '{"strict": "true"}') -> 'skipped',
  '[{"line": 3, "message": "a rest timer row, not a set"}, {"line": 6, "message": "no weight, reps, time or distance recorded"},
    {"line": 8, "message": "a rest timer row, not a set"}]',
  'strict still answers the rows it would skip: they carry nothing to refuse');

-- Diaries -------------------------------------------------------------------------------------------------
select is(pg_temp.call('import_cronometer', 'fit', pg_temp.csv(array['Day', 'Food Name', 'Energy (kcal)', 'Protein (g)'],
            '2020-07-17|Bread|80|3', '2020-07-17|Cake|lots|3', '2020-07-17|Mystery Meal|25000|3', '2020-07-17|Soup|50|3')),
  '{"imported": 2, "skipped_duplicates": 0, "skipped": [], "warnings": [],
    "errors": [{"line": 3, "message": "Energy (kcal) must be a number"},
               {"line": 4, "message": "Energy (kcal): must be between 0 and 20000"}]}',
  'a diary: a cell that is no number and a value the diary refuses cost their rows only');
select is((select array_agg(f.name::text order by f.name) from app.food_entries as f
            where f.user_id = (select user_id from tokens where name = 'fit')),
  array['Bread', 'Soup'], '… the others are in the diary');
select is(pg_temp.call('import_myfitnesspal', 'fit', pg_temp.csv(array['Date', 'Meal', 'Calories', 'Fat (g)', 'Carbohydrates (g)', 'Protein (g)'],
            '2024-05-01|Breakfast|420|12|55|22', '2024-05-01|Lunch|lots|1|1|1', 'May 1|Dinner|600|20|60|40')) - 'errors',
  '{"error": {"code": "import_invalid", "message": "The file has problems; nothing was imported."},
    "imported": 0, "skipped_duplicates": 0, "skipped": [], "warnings": []}',
  'a diary most of whose rows cannot be read is refused whole');
select is((select count(*) from app.food_entries as f where f.user_id = (select user_id from tokens where name = 'fit')
             and f.entry_date = '2024-05-01'), 0::bigint, '… and writes nothing');

select * from finish();
rollback;
