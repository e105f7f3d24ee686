-- Timed, distance, bodyweight, assisted and superset sets through a Hevy import, the
-- Liftbase JSON export, an import of that document into another account and its export,
-- and workouts.csv read back by the Strong importer into a fresh account: nothing is lost
-- (every set field, the superset and the rest after it, the types of new exercises).
begin;
\ir support/helpers.psql
select plan(16);

select pg_temp.sign_up('source', 'tracking-rt-source@example.com', 'password-source');
select pg_temp.sign_up('copy', 'tracking-rt-copy@example.com', 'password-copy');
select pg_temp.sign_up('strong', 'tracking-rt-strong@example.com', 'password-strong');
select pg_temp.sign_up('variant', 'tracking-rt-variant@example.com', 'password-variant');

create temporary table files (format text primary key, body jsonb);
insert into files values
  ('hevy', pg_temp.csv(array['title', 'start_time', 'end_time', 'description', 'exercise_title', 'superset_id', 'exercise_notes',
                             'set_index', 'set_type', 'weight_kg', 'reps', 'distance_km', 'duration_seconds', 'rpe'],
     'Mixed|12 Jan 2026, 18:05|12 Jan 2026, 19:10||Plank|||0|normal||||60|',
     'Mixed|12 Jan 2026, 18:05|12 Jan 2026, 19:10||Plank|||1|normal||||45.4|',
     'Mixed|12 Jan 2026, 18:05|12 Jan 2026, 19:10||Treadmill Run|||0|normal|||5|1500|',
     'Mixed|12 Jan 2026, 18:05|12 Jan 2026, 19:10||Farmer''s Walk|||0|normal|40||0.03||',
     'Mixed|12 Jan 2026, 18:05|12 Jan 2026, 19:10||Pull-Up|||0|normal||8|||',
     'Mixed|12 Jan 2026, 18:05|12 Jan 2026, 19:10||Pull-Up|||1|normal|10|6|||9',
     'Mixed|12 Jan 2026, 18:05|12 Jan 2026, 19:10||Assisted Pull-Up|||0|normal|20|8|||',
     'Mixed|12 Jan 2026, 18:05|12 Jan 2026, 19:10||Dumbbell Curl|0||0|normal|12|10|||',
     'Mixed|12 Jan 2026, 18:05|12 Jan 2026, 19:10||Triceps Pushdown|0||0|normal|25|12|||',
     'Mixed|12 Jan 2026, 18:05|12 Jan 2026, 19:10||Dumbbell Curl|0||1|normal|12|9|||',
     'Mixed|12 Jan 2026, 18:05|12 Jan 2026, 19:10||Wall Balls|||0|normal|9|15|||')),
  ('hevy-bad', pg_temp.csv(array['title', 'start_time', 'end_time', 'description', 'exercise_title', 'superset_id', 'exercise_notes',
                                 'set_index', 'set_type', 'weight_kg', 'reps', 'distance_km', 'duration_seconds', 'rpe'],
     'Bad|13 Jan 2026, 18:05|13 Jan 2026, 19:10||Plank|||0|normal|20|10|||'));
grant select on files to liftbase_api;

-- The sessions of a document, without the ids an import re-creates.
create function pg_temp.sessions(p_document jsonb) returns jsonb language sql as $$
  select jsonb_agg(s - 'id' - 'created_at' || jsonb_build_object('exercises',
           (select jsonb_agg(e - 'user_exercise_id' order by n) from jsonb_array_elements(s -> 'exercises') with ordinality as y (e, n)))
           order by s ->> 'session_date')
    from jsonb_array_elements(p_document -> 'training_sessions') as s
$$;

set local role liftbase_api;
select is(pg_temp.call('import_hevy', 'source', (select body from files where format = 'hevy')) -> 'imported', '11',
  'a Hevy file with timed, distance, bodyweight, assisted and superset rows imports');
create temporary table answers as
  select pg_temp.call('session_get', 'source', null,
           jsonb_build_object('id', (select s.id from app.training_sessions as s where s.name = 'Mixed'))) as session;
select is((select jsonb_agg(jsonb_build_object('name', e ->> 'exercise_name', 'group', e -> 'group', 'sets',
             (select jsonb_agg(jsonb_strip_nulls(x - 'set_type' - 'rest_seconds' - 'tempo' - 'rir')) from jsonb_array_elements(e -> 'sets') as x)))
             from answers, jsonb_array_elements(session -> 'exercises') as e),
  '[{"name": "Plank", "group": null, "sets": [{"duration_seconds": 60}, {"duration_seconds": 45}]},
    {"name": "Treadmill Run", "group": null, "sets": [{"distance_m": 5000, "duration_seconds": 1500}]},
    {"name": "Farmer''s Walk", "group": null, "sets": [{"weight_kg": 40, "distance_m": 30}]},
    {"name": "Pull-Up", "group": null, "sets": [{"reps": 8}, {"reps": 6, "weight_kg": 10, "rpe": 9}]},
    {"name": "Assisted Pull-Up", "group": null, "sets": [{"reps": 8, "assistance_kg": 20}]},
    {"name": "Dumbbell Curl", "group": 1, "sets": [{"reps": 10, "weight_kg": 12}, {"reps": 9, "weight_kg": 12}]},
    {"name": "Triceps Pushdown", "group": 1, "sets": [{"reps": 12, "weight_kg": 25}]},
    {"name": "Wall Balls", "group": null, "sets": [{"reps": 15, "weight_kg": 9}]}]'::jsonb,
  'GET session answers each set in the measures of its type, and the superset');
select is((select tracking_type::text from app.user_exercises where name = 'Assisted Pull-Up'), 'assisted_bodyweight',
  'a new assisted exercise is assisted_bodyweight');
select is(pg_temp.call('import_hevy', 'variant', (select body from files where format = 'hevy-bad'), '{"strict": "true"}')
            -> 'imported', '1',
  'a row that does not fit its exercise''s type is imported, even when all or nothing is asked (to a variant)');

-- Hevy's CSV has no rest after a superset: give the group one, as PUT /training/sessions would.
reset role;
update app.session_exercises set group_rest_seconds = 90
 where exercise_name = 'Triceps Pushdown' and user_id = (select user_id from tokens where name = 'source');
set local role liftbase_api;

-- JSON export → import → export.
create temporary table documents as select pg_temp.exported('source') as original;
select is(pg_temp.call('import_liftbase', 'copy', (select original from documents)) -> 'errors', '[]',
  'the export imports into another account');
alter table documents add column copied jsonb;
update documents set copied = pg_temp.exported('copy');
select is(pg_temp.sessions(copied), pg_temp.sessions(original), 'and its export holds the same sessions, sets and groups')
  from documents;
select is((select jsonb_agg(u - 'id' - 'created_at' order by u ->> 'name') from documents, jsonb_array_elements(copied -> 'user_exercises') as u),
          (select jsonb_agg(u - 'id' - 'created_at' order by u ->> 'name') from documents, jsonb_array_elements(original -> 'user_exercises') as u),
  'own exercises keep their tracking types');
select ok((select original::text like '%"assistance_kg": 20%' and original::text like '%"distance_m": 5000%'
                  and original::text like '%"duration_seconds": 1500%' and original::text like '%"group": 1%' from documents),
  'the document holds assistance, distance, duration and the group');
select ok((select original::text like '%"group_rest_seconds": 90%' from documents), 'and the rest after the group');

-- workouts.csv → the Strong importer, into an account that has none of the own exercises.
-- The exercises of an account's imported sessions: name, group, rest after the group, the
-- exercise's type, and every field of every set. Read as the owner (across accounts).
create function pg_temp.workout(p_name text, p_import_key_like text) returns jsonb language sql as $$
  select jsonb_agg(jsonb_build_object('name', e.exercise_name, 'group', e.superset_group, 'group_rest', e.group_rest_seconds,
           'type', app.exercise_tracking_type(e.user_id, e.exercise_id, e.user_exercise_id),
           'sets', app.sets_json(e.user_id, e.session_id, e.position)) order by e.position)
    from app.training_sessions as s join app.session_exercises as e on e.user_id = s.user_id and e.session_id = s.id
   where s.user_id = (select user_id from tokens where name = p_name) and s.import_key like p_import_key_like
$$;
create temporary table csv as
  select string_agg(chunk, '' order by n) as text
    from api.export_workouts_csv((select token from tokens where name = 'source'), null, '{}') with ordinality as c (chunk, n);
create temporary table strong_file as
  select pg_temp.csv(string_to_array(split_part(text, E'\r\n', 1), ','),
           variadic (select array_agg(replace(l, ',', '|') order by k)
                       from unnest(string_to_array(rtrim(text, E'\r\n'), E'\r\n')) with ordinality as r (l, k) where k > 1)) as body
    from csv;
select ok((select text like '%Treadmill Run,1,0,0,5,1500,,,,,,%' and text like '%Assisted Pull-Up,1,0,8,0,0,,,,20,,%'
                  and text like '%Dumbbell Curl,1,12,10,0,0,,,,,1,%' and text like '%Triceps Pushdown,1,25,12,0,0,,,,,1,90%' from csv),
  'workouts.csv writes distance in km, seconds, the assistance, the superset and the rest after it');
select is(pg_temp.call('import_strong', 'strong', (select body from strong_file)) - 'exercises',
  '{"imported": 11, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}', 'a fresh account reads it back with the Strong importer');
reset role;
select is(pg_temp.workout('strong', 'strong|%'), pg_temp.workout('source', 'hevy|%'),
  'every exercise comes back with its group, rest after the group and type, every set with every field');
select is(jsonb_array_length(pg_temp.workout('strong', 'strong|%')), 8, 'all eight exercises');
select is((select jsonb_object_agg(name, tracking_type) from app.user_exercises
            where user_id = (select user_id from tokens where name = 'strong')),
  '{"Assisted Pull-Up": "assisted_bodyweight", "Wall Balls": "weight_reps"}',
  'an own exercise the file gives an assistance for is assisted, as it was');
set local role liftbase_api;

-- A Strong file without a required column is refused once, on line 1.
select is(pg_temp.call('import_strong', 'strong', pg_temp.csv(array['Date', 'Workout Name', 'Set Order', 'Weight', 'Reps', 'Seconds'],
            '2024-02-01 18:00:00|Legs|1|90|5|0', '2024-02-01 18:00:00|Legs|2|90|5|0')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Exercise Name\""}]', 'a Strong file without Exercise Name: one error, line 1');
select is(pg_temp.call('import_strong', 'strong', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight'],
            '2024-02-01 18:00:00|Legs|Barbell Squat|1|90', '2024-02-01 18:00:00|Legs|Barbell Squat|2|90')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Reps\""}]', 'a Strong file without Reps: one error, line 1, no set with 0 reps');

select * from finish();
rollback;
