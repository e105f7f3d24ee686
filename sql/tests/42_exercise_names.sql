-- One identity per exercise: the words of a name, the equipment of its qualifier, how a
-- name resolves (exact, alias, rule, similar, new), the traits of a new name, the aliases
-- the built-in catalog loads, and an import that lands other apps' names on the catalog.
begin;
\ir support/helpers.psql
select plan(29);

select pg_temp.sign_up('names', 'names@example.com', 'names pass');

-- Words and qualifiers ---------------------------------------------------------------------------------
select is(app.exercise_name_words('Pull-Up'), app.exercise_name_words('pull up'), 'Pull-Up and pull up are the same words');
select is(app.exercise_name_words('Bench Press (Barbell)'), array['barbell', 'bench', 'press'],
  'the words of a name, sorted, its qualifier''s among them');
select is(app.exercise_name_words('Lateral Raises & the Biceps'), array['bicep', 'lateral', 'raise'],
  'plurals and little words do not count');
select is(array[app.exercise_name_equipment('Squat (Smith Machine)'), app.exercise_name_equipment('Curl (EZ Bar)'),
                app.exercise_name_equipment('Row (Dumbbell)'), app.exercise_name_equipment('Pull Up (Band)'),
                app.exercise_name_equipment('Pull Up (Assisted)'), app.exercise_name_equipment('Deadlift')],
  array['machine', 'e_z_curl_bar', 'dumbbell', 'bands', null, null], 'a qualifier names the equipment, when it gives one');

-- Resolution -------------------------------------------------------------------------------------------
insert into app.user_exercises (user_id, name) values ((select user_id from tokens where name = 'names'), 'Zercher Carry');
update app.exercises set aliases = array['flat barbell bench press', 'bench press (barbell)'] where name = 'Barbell Bench Press';
set local role liftbase_api;
select pg_temp.call('me', 'names', null);
create temporary table resolved as
  select r.name, r.exercise_name, r.how, r.exercise_id is not null as catalog, r.user_exercise_id is not null as own
    from app.resolve_exercise_names((select user_id from tokens where name = 'names'),
      array['barbell squat', 'zercher carry', 'Bench Press (Barbell)', 'Flat Barbell Bench Press', 'Pull Up', 'Squat (Barbell)',
            'Lat Pulldown (Cable)', 'Lat Pulldown (Dumbbell)', 'Incline Dumbbell Bench Presses', 'Spider Curl (Dumbbell)',
            ' ', 'Pull Up']) as r;
select is((select count(*) from resolved), 10::bigint, 'each name once, blank names left out');
select is((select jsonb_build_object('name', exercise_name, 'how', how, 'catalog', catalog) from resolved where name = 'barbell squat'),
  '{"name": "Barbell Squat", "how": "exact", "catalog": true}', 'exact: the catalog''s name, whatever its case');
select is((select jsonb_build_object('name', exercise_name, 'how', how, 'own', own) from resolved where name = 'zercher carry'),
  '{"name": "Zercher Carry", "how": "exact", "own": true}', 'exact: the user''s own exercise');
select is((select array_agg(exercise_name || ':' || how order by name) from resolved
            where name in ('Bench Press (Barbell)', 'Flat Barbell Bench Press')),
  array['Barbell Bench Press:alias', 'Barbell Bench Press:alias'], 'alias: other apps'' names of a catalog exercise');
select is((select array_agg(exercise_name || ':' || how order by name) from resolved
            where name in ('Pull Up', 'Squat (Barbell)', 'Lat Pulldown (Cable)')),
  array['Lat Pulldown:rule', 'Pull-Up:rule', 'Barbell Squat:rule'],
  'rule: the same words in any order, or the base name of the qualifier''s equipment');
select is((select how from resolved where name = 'Lat Pulldown (Dumbbell)'), 'new',
  'a qualifier of other equipment than the catalog''s is not that exercise');
select is((select exercise_name || ':' || how from resolved where name = 'Incline Dumbbell Bench Presses'),
  'Incline Dumbbell Bench Press:rule', 'a plural is the same name');
select is((select how from resolved where name = 'Spider Curl (Dumbbell)'), 'new', 'a name the catalog lacks is new');
select is((select exercise_name || ':' || how from app.resolve_exercise_names((select user_id from tokens where name = 'names'),
                                                                           array['Barbel Bench Press']) as r),
  'Barbell Bench Press:similar', 'similar: a misspelling close enough to a catalog name');
reset role;

-- Traits of a new name ----------------------------------------------------------------------------------
select is((select array_agg(jsonb_build_object('c', t.category, 'e', t.equipment, 'm', t.primary_muscles) order by n.k)
             from unnest(array['Spider Curl (Dumbbell)', 'Lying Leg Curl (Machine)', 'Tricep Kickback (Cable)',
                               'Cable Kickback', 'Landmine Row', 'Running (Outdoor)', 'Hip Adductor', 'Mystery Move'])
                  with ordinality as n (name, k)
            cross join lateral app.exercise_traits_from_name(n.name) as t),
  array['{"c": "strength", "e": "dumbbell", "m": ["biceps"]}', '{"c": "strength", "e": "machine", "m": ["hamstrings"]}',
        '{"c": "strength", "e": "cable", "m": ["triceps"]}', '{"c": "strength", "e": "cable", "m": ["glutes"]}',
        '{"c": "strength", "e": "other", "m": ["middle back", "lats"]}', '{"c": "cardio", "e": "other", "m": ["quadriceps"]}',
        '{"c": "strength", "e": "other", "m": ["adductors"]}', '{"c": "strength", "e": "other", "m": []}']::jsonb[],
  'a new name''s words say its category, equipment and muscles; the specific rule before the general');

-- Loading the catalog's aliases -------------------------------------------------------------------------
select is(app.load_exercise_aliases('[{"alias": "Pull Up (Weighted)", "exercise": "weighted pull-up"},
                                      {"alias": "Chin Up", "exercise": "Chin-Up"},
                                      {"alias": "Bench Press (Barbell)", "exercise": "Barbell Bench Press"},
                                      {"alias": "Nothing", "exercise": "No Such Exercise"},
                                      {"alias": "Squat (Barbell)", "exercise": "-"}]'),
  '{"aliases": 3, "exercises": 3, "unknown": 1, "unmatched": 1}',
  'aliases load by exercise name; one naming no exercise is counted, one the catalog lacks kept apart');
select is((select array_agg(name) from app.exercise_unmatched_names), array['squat (barbell)'], '… lower case');
set local role liftbase_api;
select is((select how from app.resolve_exercise_names((select user_id from tokens where name = 'names'), array['Squat (Barbell)'])),
  'new', 'a name the catalog lacks is no catalog exercise, however close its words come');
reset role;
select is((select jsonb_object_agg(name, aliases) from app.exercises where cardinality(aliases) > 0),
  '{"Weighted Pull-Up": ["pull up (weighted)"], "Chin-Up": ["chin up"], "Barbell Bench Press": ["bench press (barbell)"]}',
  '… lower case, and every other exercise loses the aliases it had');
select is(app.load_exercise_aliases('[]') - 'unknown', '{"aliases": 0, "exercises": 0, "unmatched": 0}', 'an empty list leaves none');

-- An import lands other apps' names on the catalog -----------------------------------------------------
select app.load_exercise_aliases('[{"alias": "Bench Press (Barbell)", "exercise": "Barbell Bench Press"}]');
set local role liftbase_api;
create temporary table answer as
  select pg_temp.call('import_strong', 'names', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Reps'],
            '2024-06-01 07:00|Push|Bench Press (Barbell)|1|100|5', '2024-06-01 07:00|Push|Squat (Barbell)|1|120|5',
            '2024-06-01 07:00|Push|Pull Up|1||8', '2024-06-01 07:00|Push|Spider Curl (Dumbbell)|1|12|10',
            '2024-06-01 07:00|Push|Zercher Carry|1|60|1')) as body;
select is((select body -> 'exercises' from answer),
  (select jsonb_agg(x order by x ->> 'name') from (values
     (jsonb_build_object('name', 'Bench Press (Barbell)', 'exercise_name', 'Barbell Bench Press', 'how', 'alias',
        'exercise_id', (select id from app.exercises where name = 'Barbell Bench Press'), 'user_exercise_id', null)),
     (jsonb_build_object('name', 'Pull Up', 'exercise_name', 'Pull-Up', 'how', 'rule',
        'exercise_id', (select id from app.exercises where name = 'Pull-Up'), 'user_exercise_id', null)),
     (jsonb_build_object('name', 'Spider Curl (Dumbbell)', 'exercise_name', 'Spider Curl (Dumbbell)', 'how', 'new',
        'exercise_id', null, 'user_exercise_id', (select id from app.user_exercises where name = 'Spider Curl (Dumbbell)'))),
     (jsonb_build_object('name', 'Squat (Barbell)', 'exercise_name', 'Barbell Squat', 'how', 'rule',
        'exercise_id', (select id from app.exercises where name = 'Barbell Squat'), 'user_exercise_id', null)),
     (jsonb_build_object('name', 'Zercher Carry', 'exercise_name', 'Zercher Carry', 'how', 'exact',
        'exercise_id', null, 'user_exercise_id', (select id from app.user_exercises where name = 'Zercher Carry')))) as v (x)),
  'the answer names each exercise of the file with what it resolved to and how (a new one with the id it was given)');
select is((select array_agg(e.exercise_name || ':' || (e.exercise_id is not null) order by e.position)
             from app.session_exercises as e where e.user_id = (select user_id from tokens where name = 'names')),
  array['Barbell Bench Press:true', 'Barbell Squat:true', 'Pull-Up:true', 'Spider Curl (Dumbbell):false', 'Zercher Carry:false'],
  'the sets land on the catalog''s exercises, under their names');
select is((select jsonb_build_object('type', u.tracking_type, 'equipment', u.equipment, 'muscles', u.primary_muscles)
             from app.user_exercises as u where u.name = 'Spider Curl (Dumbbell)'),
  '{"type": "weight_reps", "equipment": "dumbbell", "muscles": ["biceps"]}', 'a new name is no empty shell');
select is((select x.weight_kg is null and x.reps = 8 from app.session_sets as x
             join app.session_exercises as e on e.user_id = x.user_id and e.session_id = x.session_id and e.position = x.exercise_position
            where e.exercise_name = 'Pull-Up'), true, 'a pull-up is bodyweight work, not 0 kg of a lift');
reset role;
select is((select count(*) from app.weekly_muscle_volume((select user_id from tokens where name = 'names'), '2024-05-27', '2024-06-02')
            where muscle in ('chest', 'quadriceps', 'lats', 'biceps')), 4::bigint,
  'weekly volume counts the imported sets for the muscles of each exercise');


-- Families of the catalog's near-duplicates, and search -----------------------------------------------
insert into app.exercises (name, category, equipment, primary_muscles, source, tracking_type, priority_tier)
values ('Bench Press - Powerlifting', 'powerlifting', 'barbell', array['chest'], 'free-exercise-db', 'weight_reps', 2),
       ('Air Bike', 'strength', 'body_only', array['abdominals'], 'free-exercise-db', 'bodyweight_reps', 3);
select app.load_exercise_aliases('[{"alias": "bench press - powerlifting", "exercise": "Barbell Bench Press", "sources": "common"},
                                   {"alias": "bench press", "exercise": "Barbell Bench Press", "sources": "common"},
                                   {"alias": "air bike", "exercise": "Stationary Bike", "sources": "hevy"}]');
select is((select array_agg(x.name::text order by x.name) from app.exercises as e join app.exercises as x on x.id = any (e.family)
            where e.name = 'Bench Press - Powerlifting'),
  array['Barbell Bench Press', 'Bench Press - Powerlifting'], 'a near-duplicate of the common list is one family with its entry');
select is((select family from app.exercises where name = 'Stationary Bike'), '{}'::uuid[],
  'another app''s name that is a catalog name makes no family');
select is((select exercise_name || ':' || how from app.resolve_exercise_names((select user_id from tokens where name = 'names'),
                                                                           array['Air Bike'])),
  'Stationary Bike:alias', 'what an app means by a name wins over a catalog entry of the same name');
set local role liftbase_api;
select pg_temp.call('sessions_create', 'names', jsonb_build_object('session_date', '2024-07-01', 'status', 'completed',
  'exercises', jsonb_build_array(jsonb_build_object('exercise_id', (select id from app.exercises where name = 'Bench Press - Powerlifting'),
    'sets', jsonb_build_array(jsonb_build_object('reps', 3, 'weight_kg', 140))))));
select is((select jsonb_agg(i ->> 'e1rm_kg' order by i ->> 'session_date')
             from jsonb_array_elements((app.e1rm_series((select user_id from tokens where name = 'names'),
                                        (select id from app.exercises where name = 'Barbell Bench Press'), '2024-01-01', '2024-12-31')).items) as i),
  '["116.7", "154.0"]', 'the e1RM series of an exercise reads its family''s history');
select is((select array_agg(i ->> 'name' order by n) from jsonb_array_elements(pg_temp.call('exercises_list', 'names', null,
                                                                             '{"q": "bench press", "limit": "3"}') -> 'items')
                                                         with ordinality as x (i, n)),
  array['Barbell Bench Press', 'Close-Grip Bench Press', 'Decline Barbell Bench Press'],
  'search ranks the exercise the query names first, then curated entries with its words, above the public list''s variants');
reset role;

select * from finish();
rollback;
