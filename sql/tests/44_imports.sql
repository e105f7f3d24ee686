-- Imports of other apps' exports (Strong, Hevy, Cronometer), given as the document the HTTP
-- layer makes of a CSV body: column mapping by header name, pounds to kg, set types, the
-- user's wall clock, matching exercises by name, idempotent re-import, all-or-nothing with
-- problems named by line, dry runs, and the run records. Run as the API role.
begin;
\ir support/helpers.psql
select plan(41);

select pg_temp.sign_up('a', 'import-a@example.com', 'import a');
select pg_temp.sign_up('b', 'import-b@example.com', 'import b');
update app.user_settings set timezone = 'America/New_York'
 where user_id = (select id from auth.users where email = 'import-a@example.com');

create temporary table strong_current as select pg_temp.csv(
  array['Date', 'Workout Name', 'Duration', 'Exercise Name', 'Set Order', 'Weight', 'Reps', 'Distance', 'Seconds', 'Notes', 'Workout Notes', 'RPE'],
  '2024-01-05 18:00:00|Push|1h 5m|barbell bench press|W|40|10|0|0|||',
  '2024-01-05 18:00:00|Push|1h 5m|barbell bench press|1|100|5|0|0|paused|felt good|8',
  '2024-01-05 18:00:00|Push|1h 5m|Zercher Carry|1|60|1|0|0|||',
  '2024-01-05 18:00:00|Push|1h 5m|barbell bench press|2|100|5|0|0|||8.5',
  '2024-01-05 18:00:00|Push|1h 5m|barbell bench press|D|70|12|0|0|||',
  '2024-01-05 18:00:00|Push|1h 5m|barbell bench press|F|60|9|0|0|||',
  '2024-01-07 09:30:00|Legs|45m|Barbell Squat|1||20|0|0|||') as d;
grant select on strong_current to liftbase_api;

set local role liftbase_api;

-- Strong, current layout -----------------------------------------------------------------------------
select is(pg_temp.call('import_strong', 'a', (select d from strong_current), '{"dry_run": "true"}') - 'exercises',
  '{"imported": 7, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'a dry run reports what it would import');
select is((select count(*) from app.training_sessions), 0::bigint, 'a dry run writes no session');
select is((select count(*) from app.user_exercises), 0::bigint, 'a dry run creates no exercise');
select is(pg_temp.call('import_strong', 'a', (select d from strong_current)) - 'exercises',
  '{"imported": 7, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'Strong: every set row is imported');
select is(pg_temp.call('import_strong', 'a', (select d from strong_current)) - 'exercises',
  '{"imported": 0, "skipped_duplicates": 7, "skipped": [], "errors": [], "warnings": []}', 'importing the same file again adds nothing');
select is((select count(*) from app.training_sessions), 2::bigint, 'one session per workout, also after a re-import');
select is((select jsonb_agg(jsonb_build_object('date', s.session_date, 'name', s.name, 'notes', s.notes,
                 'started', to_char(s.started_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI'),
                 'minutes', extract(epoch from s.finished_at - s.started_at) / 60) order by s.session_date)
             from app.training_sessions as s),
  '[{"date": "2024-01-05", "name": "Push", "notes": "felt good", "started": "2024-01-05 23:00", "minutes": 65},
    {"date": "2024-01-07", "name": "Legs", "notes": null, "started": "2024-01-07 14:30", "minutes": 45}]',
  'times are the user''s wall clock (New York, UTC-5); Duration sets the end; Workout Notes the notes');
select is((select array_agg(e.exercise_name::text || ':' || (e.exercise_id is not null) || ':' || (e.user_exercise_id is not null)
                            || ':' || coalesce(e.notes, '-') order by s.session_date, e.position)
             from app.session_exercises as e join app.training_sessions as s on s.id = e.session_id),
  array['Barbell Bench Press:true:false:paused', 'Zercher Carry:false:true:-', 'Barbell Squat:true:false:-'],
  'exercises match the catalog by name whatever the case; an unknown name becomes the user''s own exercise');
select is((select array_agg(x.set_type || ':' || x.weight_kg || 'x' || x.reps || coalesce('@' || x.rpe, '') order by x.position)
             from app.session_sets as x join app.training_sessions as s on s.id = x.session_id
            where s.name = 'Push' and x.exercise_position = 1),
  array['warmup:40x10', 'working:100x5@8', 'working:100x5@8.5', 'dropset:70x12', 'failure:60x9'],
  'Set Order W, numbers, D and F become warm-up, working, drop and failure sets, in file order');
-- Push: working sets exclude the warm-up: 100×5 + 100×5 + 70×12 + 60×9 + 60×1 = 500+500+840+540+60 = 2440 kg.
select is((select jsonb_build_object('exercises', s.exercise_count, 'sets', s.set_count, 'working', s.working_sets, 'volume', s.volume_kg)
             from app.training_sessions as s where s.name = 'Push'),
  '{"exercises": 2, "sets": 6, "working": 5, "volume": 2440}', 'session totals are kept as for any session');
select is((select x.weight_kg from app.session_sets as x join app.training_sessions as s on s.id = x.session_id where s.name = 'Legs'),
  0::app.load_kg, 'an empty weight is body weight, 0 kg');

-- Strong, an older layout: no Duration, Notes or RPE; weights in pounds ----------------------------------
select is(pg_temp.call('import_strong', 'a', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'lb', 'Reps'],
    '2023-03-01 07:00|Old Day|Deadlift (Barbell)|1|135|5', '2023-03-01 07:00|Old Day|Deadlift (Barbell)|2|225.5|3')) - 'exercises',
  '{"imported": 2, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'an older Strong layout imports');
-- 135 lb × 0.45359237 = 61.2349699… → 61.23 kg; 225.5 lb × 0.45359237 = 102.285079… → 102.29 kg.
select is((select array_agg(x.weight_kg::numeric order by x.position) from app.session_sets as x
             join app.training_sessions as s on s.id = x.session_id where s.name = 'Old Day'),
  array[61.23, 102.29]::numeric[], 'pounds are converted to kg (to 10 g)');
select is((select finished_at from app.training_sessions where name = 'Old Day'), null, 'without Duration the end is unknown');

-- All or nothing, problems by line ---------------------------------------------------------------------
select is(pg_temp.call('import_strong', 'a', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Reps'],
    '2024-02-01 10:00|Bad|Barbell Squat|1|100|5', '2024-02-01 10:00|Bad|Barbell Squat|X|100|5',
    '2024-02-31 10:00|Bad|Barbell Squat|3|100|5', '2024-02-01 10:00|Bad|Barbell Squat|4|heavy|5')) - 'exercises',
  '{"error": {"code": "import_invalid", "message": "The file has problems; nothing was imported."},
    "imported": 0, "skipped_duplicates": 0, "skipped": [], "errors": [
     {"line": 3, "message": "Set Order must be a number, or W (warm-up), D (drop set) or F (failure)"},
     {"line": 4, "message": "Date must be a date and time like 2024-05-01 06:30:00"},
     {"line": 5, "message": "the weight must be a number"}], "warnings": []}',
  'every bad row is named by its line');
select is(pg_temp.status(), '422', 'a file with problems is answered 422');
select is(pg_temp.call('import_strong', 'a', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Reps', 'RPE'],
    '2024-02-02 10:00|Range|Brand New Lift|1|100|5|', '2024-02-02 10:00|Range|Barbell Squat|2|2500|5|',
    '2024-02-02 10:00|Range|Barbell Squat|3|100|5000|10.5'), '{"strict": "true"}') -> 'errors',
  '[{"line": 3, "message": "weight: must be between 0 and 2000 kg"},
    {"line": 4, "message": "reps: must be a whole number from 0 to 1000"},
    {"line": 4, "message": "RPE: must be 1 to 10 in steps of 0.5"}]',
  'values the set rules refuse are named by line with the rule''s message');
select is((select count(*) from app.training_sessions where name in ('Bad', 'Range')), 0::bigint, 'a refused file writes no session');
select is((select count(*) from app.user_exercises where name = 'Brand New Lift'), 0::bigint, '… and no exercise');
select is(pg_temp.call('import_strong', 'a', pg_temp.csv(array['Date', 'Exercise Name', 'Reps'], '2024-02-02 10:00|Squat|5')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Workout Name\", \"Set Order\", \"Weight\""}]', 'missing columns, the weight among them, are named at once on line 1');

-- Hevy -----------------------------------------------------------------------------------------------
select is(pg_temp.call('import_hevy', 'a', pg_temp.csv(
    array['title', 'start_time', 'end_time', 'description', 'exercise_title', 'superset_id', 'exercise_notes', 'set_index', 'set_type', 'weight_lbs', 'reps', 'distance_km', 'duration_seconds', 'rpe'],
    '"Pull day"|8 Apr 2026, 16:50|8 Apr 2026, 17:43|long day|Pull Up||strict|1|normal||5|||',
    '"Pull day"|8 Apr 2026, 16:50|8 Apr 2026, 17:43|long day|Pull Up||strict|0|warmup||8|||',
    '"Pull day"|8 Apr 2026, 16:50|8 Apr 2026, 17:43|long day|Barbell Row|||0|dropset|100|10||| 7',
    '"Pull day"|8 Apr 2026, 16:50|8 Apr 2026, 17:43|long day|Barbell Row|||1|failure|45|8|||')) - 'exercises',
  '{"imported": 4, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'Hevy: every set row is imported');
select is((select jsonb_build_object('date', s.session_date, 'started', to_char(s.started_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI'),
                                     'finished', to_char(s.finished_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI'), 'notes', s.notes)
             from app.training_sessions as s where s.name = '"Pull day"'),
  '{"date": "2026-04-08", "started": "2026-04-08 20:50", "finished": "2026-04-08 21:43", "notes": "long day"}',
  'Hevy dates like "8 Apr 2026, 16:50" are the user''s wall clock (New York, UTC-4 in April)');
-- 100 lb = 45.359237 → 45.36 kg; 45 lb = 20.41161665 → 20.41 kg.
select is((select array_agg(e.exercise_name || ':' || x.set_type || ':' || coalesce(x.weight_kg::text, 'bodyweight') || 'x' || x.reps
                            || coalesce('@' || x.rpe, '')
                            order by x.exercise_position, x.position)
             from app.session_sets as x join app.training_sessions as s on s.id = x.session_id
             join app.session_exercises as e on e.session_id = x.session_id and e.position = x.exercise_position
            where s.name = '"Pull day"'),
  array['Pull-Up:warmup:bodyweightx8', 'Pull-Up:working:bodyweightx5', 'Barbell Row:dropset:45.36x10@7', 'Barbell Row:failure:20.41x8'],
  'sets follow set_index; normal is a working set; weight_lbs is converted; "Pull Up" is the catalog''s "Pull-Up" (the same words)');
select is(pg_temp.call('import_hevy', 'a', pg_temp.csv(
    array['title', 'start_time', 'end_time', 'exercise_title', 'set_index', 'set_type', 'weight_kg', 'reps'],
    'Legs|9 Apr 2026, 10:00|9 Apr 2026, 09:00|Barbell Squat|0|normal|100|5',
    'Legs|Apr 9 2026, 10:00||Barbell Squat|1|normal|100|5', 'Legs|9 Apr 2026, 10:00||Barbell Squat|2|heavy|100|5')) -> 'errors',
  '[{"line": 3, "message": "start_time must be a date and time like 8 Apr 2026, 16:50"},
    {"line": 4, "message": "set_type must be one of normal, warmup, dropset, failure"}]',
  'Hevy rows are checked by line');
select is(pg_temp.call('import_hevy', 'a', pg_temp.csv(
    array['title', 'start_time', 'end_time', 'exercise_title', 'set_index', 'set_type', 'weight_kg', 'reps'],
    'Legs|9 Apr 2026, 10:00|9 Apr 2026, 09:00|Barbell Squat|0|normal|100|5')) -> 'errors',
  '[{"line": 2, "message": "the workout must not end before it starts"}]', 'an end before the start is named');

-- Cronometer ------------------------------------------------------------------------------------------
reset role;
create temporary table cronometer as select pg_temp.csv(
  array['Day', 'Time', 'Group', 'Food Name', 'Amount', 'Energy (kcal)', 'Carbs (g)', 'Fat (g)', 'Protein (g)', 'Category'],
  '2020-07-15|05:17|Drinks|Green Tea|600.00 g|6.00|0.00|0.00||Beverages',
  '2020-07-15||Breakfast|Oatmeal|45.00 g|170.55|30.47|2.93|5.92|Cereals',
  '2020-07-15||Breakfast|Oatmeal|45.00 g|170.55|30.47|2.93|5.92|Cereals',
  '2020-07-16|12:30|Lunch|Rice, cooked|200 g|260|56|0.6|5.4|Grains',
  '2020-07-16|19:00|Dinner|Salmon|150 g|312|0|19.5|30|Fish',
  '2020-07-16|21:00|Snacks|Almonds|28 g|164|6.1|14.2|6|Nuts') as d;
grant select on cronometer to liftbase_api;
set local role liftbase_api;
select is(pg_temp.call('import_cronometer', 'a', (select d from cronometer)),
  '{"imported": 6, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": [{"line": 2, "message": "Protein (g) blank: counted as 0"}]}',
  'Cronometer: one diary row per serving row, identical rows too; a blank nutrient is a warning');
select is(pg_temp.call('import_cronometer', 'a', (select d from cronometer)),
  '{"imported": 0, "skipped_duplicates": 6, "skipped": [], "errors": [], "warnings": [{"line": 2, "message": "Protein (g) blank: counted as 0"}]}',
  'importing the same servings again adds nothing');
select is((select array_agg(f.entry_date || ':' || f.meal_type || ':' || f.name || ':' || f.calories || '/' || f.protein_g || '/'
                            || f.carbs_g || '/' || f.fat_g || ':' || f.source order by f.entry_date, f.meal_type, f.name)
             from app.food_entries as f),
  array['2020-07-15:breakfast:Oatmeal:170.55/5.92/30.47/2.93:import', '2020-07-15:breakfast:Oatmeal:170.55/5.92/30.47/2.93:import',
        '2020-07-15:snack:Green Tea:6/0/0/0:import', '2020-07-16:dinner:Salmon:312/30/0/19.5:import',
        '2020-07-16:lunch:Rice, cooked:260/5.4/56/0.6:import', '2020-07-16:snack:Almonds:164/6/6.1/14.2:import'],
  'groups map to meals (others are snacks), an empty macro is 0, values are kept as written');
select is(pg_temp.call('import_cronometer', 'a', pg_temp.csv(array['Day', 'Food Name', 'Energy (kcal)', 'Protein (g)'],
    '2020-07-17|Bread|80|3', '2020-07-17|Cake|lots|3', '2020-07-17|Mystery Meal|25000|3', '2020-13-01|Soup|50|3'),
    '{"strict": "true"}') -> 'errors',
  '[{"line": 3, "message": "Energy (kcal) must be a number"}, {"line": 5, "message": "Day must be a date like 2020-07-15"}]',
  'Cronometer rows are checked by line');
select is(pg_temp.call('import_cronometer', 'a', pg_temp.csv(array['Day', 'Food Name', 'Energy (kcal)', 'Protein (g)'],
    '2020-07-17|Bread|80|3', '2020-07-17|Mystery Meal|25000|3'), '{"strict": "true"}') -> 'errors',
  '[{"line": 3, "message": "Energy (kcal): must be between 0 and 20000"}]', 'values the diary rules refuse are named by line');
select is((select count(*) from app.food_entries where entry_date = '2020-07-17'), 0::bigint, 'a refused Cronometer file writes nothing');
select is(pg_temp.call('import_cronometer', 'a', pg_temp.csv(array['Day', 'Food Name', 'Energy (kcal)'], '2020-07-18|Pear|57'),
                       '{"dry_run": "1"}'),
  '{"imported": 1, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'a Cronometer dry run reports the rows');
select is((select count(*) from app.food_entries where entry_date = '2020-07-18'), 0::bigint, '… and writes none');

-- Runs, isolation -----------------------------------------------------------------------------------
select is((select jsonb_agg(jsonb_build_array(r.format, r.dry_run, r.imported, r.skipped_duplicates, r.error_count) order by r.dry_run, r.imported, r.skipped_duplicates, r.error_count)
             from app.import_runs as r where r.format = 'cronometer'),
  '[["cronometer", false, 0, 0, 1], ["cronometer", false, 0, 0, 2], ["cronometer", false, 0, 6, 0], ["cronometer", false, 6, 0, 0], ["cronometer", true, 1, 0, 0]]',
  'every run is recorded: refused, duplicate and dry ones too');
-- Strong: dry, first, again, older layout, bad rows, refused values, missing columns (7);
-- Hevy: first, bad rows, end before start (3); Cronometer: the five above.
select is((select count(*) from app.import_runs), 15::bigint, 'fifteen runs so far');
select is(pg_temp.call('import_strong', 'b', (select d from strong_current)) - 'exercises',
  '{"imported": 7, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'another user imports the same file as new');
select is((select count(*) from app.training_sessions), 2::bigint, 'and sees only their own sessions');
select throws_ok($$ select pg_temp.call('import_strong', 'a', (select d from strong_current), '{"dry_run": "maybe"}') $$,
  'LB400', 'dry_run must be true or false.', 'dry_run takes true or false');
select throws_ok($$ select pg_temp.call('import_strong', 'a', '{"rows": []}') $$,
  'LB400', 'The import document lacks its header, rows or file hash.', 'a document without its parts is a 400');
select throws_ok($$ select pg_temp.call('import_strong', 'nobody', (select d from strong_current)) $$,
  'LB401', null, 'a token is required');
reset role;
select is((select count(*) from app.training_sessions), 6::bigint, 'the superuser sees both users'' sessions (4 of a, 2 of b)');

select * from finish();
rollback;
