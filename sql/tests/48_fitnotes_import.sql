-- FitNotes (Android) training exports: columns found by header name and unit in each of
-- its layouts, one session per day without a name or times, cardio rows with a distance in
-- its unit and a clock time, bodyweight rows weighing 0 read as no added load, comments as
-- exercise notes, dry run, re-import, all or nothing, and a name split by an unquoted
-- comma. Run as the API role.
begin;
\ir support/helpers.psql
select plan(26);

select pg_temp.sign_up('fit', 'fitnotes-a@example.com', 'fitnotes a');
select pg_temp.sign_up('other', 'fitnotes-b@example.com', 'fitnotes b');

create temporary table files (name text primary key, body jsonb);
insert into files values
  -- The current layout, kilograms.
  ('kgs', pg_temp.csv(array['Date', 'Exercise', 'Category', 'Weight (kgs)', 'Reps', 'Distance', 'Distance Unit', 'Time', 'Comment'],
     '2024-03-02|Barbell Squat|Legs|100.0|5||||Felt strong',
     '2024-03-02|Barbell Squat|Legs|105.0|5||||',
     '2024-03-02|Pull-Up|Back|0.0|10||||',
     '2024-03-02|Pull-Up|Back|10.0|6||||',
     '2024-03-02|Rowing Machine|Cardio|||2000|m|0:08:30|',
     '2024-03-02|Plank|Core|0.0|0|||0:01:00|',
     '2024-03-04|Treadmill Run|Cardio|0.0|0|3.1|mi|0:25:00|easy',
     '2024-03-04|Barbell Squat|Legs|110|3||||Felt strong',
     '2024-03-04|Barbell Squat|Legs|110|3||||new belt',
     '2024-03-04|Elliptical|Cardio|||||20:00|',
     '2024-03-04|Sled Push|Conditioning|40||100|ft||')),
  -- An older layout in pounds, without comments.
  ('lbs', pg_temp.csv(array['Date', 'Exercise', 'Category', 'Weight (lbs)', 'Reps', 'Distance', 'Distance Unit', 'Time'],
     '2024-03-06|Barbell Bench Press|Chest|225|5|||')),
  -- A layout with the unit beside each weight, and the columns in another order.
  ('units', pg_temp.csv(array['Exercise', 'Date', 'Reps', 'Weight', 'Weight Unit', 'Category', 'Time', 'Distance Unit', 'Distance', 'Comment'],
     'Barbell Bench Press|2024-03-08|5|80|kgs|Chest||||',
     'Barbell Curl|2024-03-08|10|30|lbs|Arms||||',
     'Treadmill Run|2024-03-08|||||0:30:00|km|5.5|')),
  ('bad', pg_temp.csv(array['Date', 'Exercise', 'Category', 'Weight (kgs)', 'Reps', 'Distance', 'Distance Unit', 'Time', 'Comment'],
     '2024-03-10|Treadmill Run|Cardio|||5|furlongs|0:25:00|',
     '2024-03-10|Treadmill Run|Cardio|||5||0:25:00|',
     '2024-03-10|Plank|Core|||||a while|',
     '2024-13-10|Barbell Squat|Legs|100|5||||',
     '2024-03-10|Kettlebell Swing|Legs|16|heavy||||',
     '2024-03-10|Barbell Squat|Legs|100|5||||')),
  ('comma', pg_temp.csv(array['Date', 'Exercise', 'Category', 'Weight (kgs)', 'Reps', 'Distance', 'Distance Unit', 'Time', 'Comment'],
     '2024-03-12|Squat (Pause| 3s)|Legs|100|5||||')),
  ('comment-comma', pg_temp.csv(array['Date', 'Exercise', 'Category', 'Weight (kgs)', 'Reps', 'Distance', 'Distance Unit', 'Time', 'Comment'],
     '2024-03-12|Barbell Squat|Legs|100|5||||slow| deep'));
grant select on files to liftbase_api;

-- Each set of the user's imported sessions as date, exercise, measures (nulls left out) and notes.
create function pg_temp.sets(p_name text) returns jsonb language sql as $$
  select jsonb_agg(jsonb_strip_nulls(jsonb_build_object('date', s.session_date, 'exercise', e.exercise_name,
           'kg', x.weight_kg, 'reps', x.reps, 'seconds', x.duration_seconds, 'm', x.distance_m, 'notes', e.notes))
           order by s.session_date, e.position, x.position)
    from app.training_sessions as s
    join app.session_exercises as e on e.user_id = s.user_id and e.session_id = s.id
    join app.session_sets as x on x.user_id = e.user_id and x.session_id = e.session_id and x.exercise_position = e.position
   where s.user_id = (select user_id from tokens where name = p_name)
$$;

set local role liftbase_api;

-- Dry run, import, re-import -------------------------------------------------------------------------
select is(pg_temp.call('import_fitnotes', 'fit', (select body from files where name = 'kgs'), '{"dry_run": "true"}') - 'exercises',
  '{"imported": 11, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'a dry run reports what it would import');
select is((select count(*) from app.training_sessions), 0::bigint, 'and writes nothing');
select is(pg_temp.call('import_fitnotes', 'fit', (select body from files where name = 'kgs')) - 'exercises',
  '{"imported": 11, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'FitNotes: every set row is imported');
select is(pg_temp.call('import_fitnotes', 'fit', (select body from files where name = 'kgs')) - 'exercises',
  '{"imported": 0, "skipped_duplicates": 11, "skipped": [], "errors": [], "warnings": []}', 'importing the same file again adds nothing');
select is((select jsonb_agg(jsonb_build_object('date', session_date, 'name', name, 'started', started_at, 'finished', finished_at,
                                               'status', status) order by session_date) from app.training_sessions),
  '[{"date": "2024-03-02", "name": null, "started": null, "finished": null, "status": "completed"},
    {"date": "2024-03-04", "name": null, "started": null, "finished": null, "status": "completed"}]',
  'one completed session per day, without a name or times (FitNotes keeps none)');
select is(pg_temp.sets('fit'),
  '[{"date": "2024-03-02", "exercise": "Barbell Squat", "kg": 100, "reps": 5, "notes": "Felt strong"},
    {"date": "2024-03-02", "exercise": "Barbell Squat", "kg": 105, "reps": 5, "notes": "Felt strong"},
    {"date": "2024-03-02", "exercise": "Pull-Up", "reps": 10},
    {"date": "2024-03-02", "exercise": "Pull-Up", "kg": 10, "reps": 6},
    {"date": "2024-03-02", "exercise": "Rowing Machine", "m": 2000, "seconds": 510},
    {"date": "2024-03-02", "exercise": "Plank", "seconds": 60},
    {"date": "2024-03-04", "exercise": "Treadmill Run", "m": 4989, "seconds": 1500, "notes": "easy"},
    {"date": "2024-03-04", "exercise": "Barbell Squat", "kg": 110, "reps": 3, "notes": "Felt strong; new belt"},
    {"date": "2024-03-04", "exercise": "Barbell Squat", "kg": 110, "reps": 3, "notes": "Felt strong; new belt"},
    {"date": "2024-03-04", "exercise": "Elliptical", "seconds": 1200},
    {"date": "2024-03-04", "exercise": "Sled Push", "kg": 40, "m": 30.5}]',
  'sets in file order: a bodyweight row''s 0 is no added load (never 0 kg), cardio rows keep distance (m, mi, ft) and clock time, '
  || 'a measure the type does not take is none; the comments of a day''s exercise are its notes');
select is((select weight_kg from app.session_sets as x join app.session_exercises as e using (user_id, session_id)
            where e.position = x.exercise_position and e.exercise_name = 'Pull-Up' and x.reps = 10), null,
  'the bodyweight pull-up has no weight at all');
select is((select jsonb_object_agg(name, tracking_type) from app.user_exercises), '{"Elliptical": "duration"}',
  'a new name takes the type its rows show (a time and nothing else: duration); catalog names are matched');

-- Other layouts ---------------------------------------------------------------------------------------
select is(pg_temp.call('import_fitnotes', 'other', (select body from files where name = 'lbs')) -> 'imported', '1',
  'an older layout in pounds imports');
select is(pg_temp.call('import_fitnotes', 'other', (select body from files where name = 'units')) -> 'imported', '3',
  'so does a layout with Weight Unit, its columns in another order');
select is(pg_temp.sets('other'),
  '[{"date": "2024-03-06", "exercise": "Barbell Bench Press", "kg": 102.06, "reps": 5},
    {"date": "2024-03-08", "exercise": "Barbell Bench Press", "kg": 80, "reps": 5},
    {"date": "2024-03-08", "exercise": "Barbell Curl", "kg": 13.61, "reps": 10},
    {"date": "2024-03-08", "exercise": "Treadmill Run", "m": 5500, "seconds": 1800}]',
  'pounds become kg (225 lb = 102.06 kg), row by row where a Weight Unit column says so');

-- Problems ----------------------------------------------------------------------------------------------
select is(pg_temp.call('import_fitnotes', 'other', (select body from files where name = 'bad')) - 'exercises',
  '{"error": {"code": "import_invalid", "message": "The file has problems; nothing was imported."}, "imported": 0,
    "skipped_duplicates": 0, "skipped": [], "errors": [
      {"line": 2, "message": "Distance Unit \"furlongs\" is not a known unit (km, m, mi, ft, yd)"},
      {"line": 3, "message": "Distance Unit is required with a Distance (km, m, mi, ft, yd)"},
      {"line": 4, "message": "Time must be a clock time like 0:25:00"},
      {"line": 5, "message": "Date must be a date like 2024-05-01"},
      {"line": 6, "message": "Reps must be a whole number"}], "warnings": []}',
  'an unknown or missing distance unit, a time that is no clock, a bad date or number: each named by line and column');
select is(pg_temp.status(), '422', 'answered 422');
select is((select count(*) from app.training_sessions where session_date = '2024-03-10'), 0::bigint,
  'and the good row of that file is not imported either');
select is(pg_temp.call('import_fitnotes', 'other', pg_temp.csv(array['Date', 'Category', 'Weight (kgs)', 'Distance'],
            '2024-03-10|Legs|100|', '2024-03-10|Legs|100|')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Exercise\", \"Reps\", \"Distance Unit\""}]',
  'a file without required columns is refused once, on line 1, naming them (a Distance needs its Distance Unit)');
select is(pg_temp.call('import_fitnotes', 'other', pg_temp.csv(array['Date', 'Exercise', 'Reps'], '2024-03-10|Barbell Squat|5')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Weight (kgs)\""}]', 'so is one without a weight column');
select is(pg_temp.call('import_fitnotes', 'other', pg_temp.csv(array['Date', 'Exercise', 'Weight', 'Reps'],
            '2024-03-10|Barbell Squat|100|5')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Weight Unit\""}]', 'and one with a plain Weight but no Weight Unit');
select is(pg_temp.call('import_fitnotes', 'other', pg_temp.csv(array['Date', 'Exercise', 'Weight', 'Weight Unit', 'Reps'],
            '2024-03-10|Barbell Squat|100|stone|5', '2024-03-10|Barbell Squat|100||5')) -> 'errors',
  '[{"line": 2, "message": "Weight Unit \"stone\" is not a known unit (kgs, lbs)"},
    {"line": 3, "message": "Weight Unit is required with a Weight (kgs, lbs)"}]', 'a weight unit it does not know is named by line');
select is(pg_temp.call('import_fitnotes', 'other', pg_temp.csv(array['Date', 'Exercise', 'Weight (kgs)', 'Reps'],
            '2024-03-10|Plank|20|10'), '{"strict": "true"}') - 'warnings' - 'exercises',
  '{"imported": 1, "skipped_duplicates": 0, "skipped": [], "errors": []}',
  'a row that does not fit its exercise''s type is no error, even when all or nothing is asked');
select is((select jsonb_agg(jsonb_build_array(e.exercise_name, x.weight_kg, x.reps))
             from app.session_exercises as e
             join app.session_sets as x on x.user_id = e.user_id and x.session_id = e.session_id and x.exercise_position = e.position
            where e.user_id = (select user_id from tokens where name = 'other') and e.exercise_name like 'Plank%'),
  '[["Plank (weight and reps)", 20, 10]]', '… it goes to a variant of the exercise that takes its measures');

-- An unquoted comma --------------------------------------------------------------------------------------
select is(pg_temp.call('import_fitnotes', 'other', (select body from files where name = 'comma')) - 'exercises',
  '{"imported": 1, "skipped_duplicates": 0, "skipped": [], "errors": [],
    "warnings": [{"line": 2, "message": "Exercise held an unquoted comma: read as \"Squat (Pause, 3s)\""}]}',
  'an exercise name split by an unquoted comma is put back, with a warning');
select is((select jsonb_agg(e.exercise_name) from app.session_exercises as e
            where e.user_id = (select user_id from tokens where name = 'other') and e.exercise_name like '%Squat%'),
  '["Pause Squat"]', 'under its whole name, which is the catalog''s pause squat');
select is(pg_temp.call('import_fitnotes', 'other', (select body from files where name = 'comment-comma')) -> 'errors',
  '[{"line": 2, "message": "the line has 10 fields where the header has 9"}]',
  'a row whose extra field cannot be put back without doubt (its Category would be a number) is an error');

-- Runs are recorded ---------------------------------------------------------------------------------------
select is((select array[count(*), count(*) filter (where error_count > 0)] from app.import_runs where format = 'fitnotes'),
  array[10, 6]::bigint[], 'every run of the account is recorded, the six refused ones with their problems');
select is(pg_temp.call('import_fitnotes', 'fit', (select body from files where name = 'kgs')) -> 'skipped_duplicates', '11',
  'a third import of the first file still adds nothing');
select is((select array_agg(dry_run order by created_at, dry_run desc) from app.import_runs where format = 'fitnotes'),
  array[true, false, false, false], 'the first account''s runs: the dry one marked dry');

select * from finish();
rollback;
