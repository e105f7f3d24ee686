-- Merging two exercises (POST /exercises/{id}/merge): history, records, plans, program
-- progression and exclusions move in one transaction; e1RM, volume and a new program's
-- starting loads follow; the name merged away is remembered for the user's imports; what
-- does not fit, or a program still prescribes, is refused with nothing written.
begin;
\ir support/helpers.psql
select plan(26);

select pg_temp.sign_up('m', 'merge@example.com', 'merge pass');
select pg_temp.sign_up('other', 'merge-other@example.com', 'merge pass');

set local role liftbase_api;
-- An old history under the name of another app (an own exercise), and a timed own one.
select pg_temp.call('import_strong', 'm', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Reps', 'Seconds'],
  '2024-06-03 07:00|Push|Flat Bench (Comp)|1|100|5|', '2024-06-03 07:00|Push|Flat Bench (Comp)|2|105|3|',
  '2024-06-10 07:00|Push|Flat Bench (Comp)|1|110|2|', '2024-06-10 07:00|Push|Overhead Press|1|50|8|',
  '2024-06-10 07:00|Push|Wall Hold|1|||60'));
select pg_temp.call('plan_create', 'm', jsonb_build_object('name', 'Bench day', 'exercises', jsonb_build_array(
  jsonb_build_object('exercise_id', (select id from app.user_exercises where name = 'Flat Bench (Comp)'), 'sets', 3, 'reps', 5,
                     'weight_kg', 100))));
select pg_temp.call('exclusions_put', 'm', jsonb_build_object('exercise_ids',
  jsonb_build_array((select id from app.user_exercises where name = 'Flat Bench (Comp)')), 'muscles', '[]'::jsonb));
create temporary table ids as
  select (select id from app.user_exercises where name = 'Flat Bench (Comp)') as own_bench,
         (select id from app.user_exercises where name = 'Wall Hold') as wall_hold,
         (select id from app.exercises where name = 'Barbell Bench Press') as bench,
         (select id from app.exercises where name = 'Barbell Squat') as squat,
         (select id from app.exercises where name = 'Front Squat') as front_squat;
reset role;
grant select on ids to liftbase_api;
set local role liftbase_api;

-- Refusals, nothing written -------------------------------------------------------------------------------
select is(pg_temp.error_of('exercise_merge', 'm', '{}', jsonb_build_object('id', (select own_bench from ids))) -> 'fields',
  '{"into_id": "is required"}', 'into_id is required');
select is(pg_temp.error_of('exercise_merge', 'm', jsonb_build_object('into_id', (select own_bench from ids)),
                           jsonb_build_object('id', (select own_bench from ids))) -> 'fields',
  '{"into_id": "is the exercise itself"}', 'an exercise is not merged into itself');
select is(pg_temp.error_of('exercise_merge', 'm', jsonb_build_object('into_id', gen_random_uuid()),
                           jsonb_build_object('id', (select own_bench from ids))) -> 'fields',
  '{"into_id": "is not a known exercise"}', 'into_id must be an exercise');
select is(pg_temp.error_of('exercise_merge', 'other', jsonb_build_object('into_id', (select bench from ids)),
                           jsonb_build_object('id', (select own_bench from ids))) ->> 'code',
  'exercise_not_found', 'another user''s exercise is no exercise of yours');
select is(pg_temp.error_of('exercise_merge', 'm', jsonb_build_object('into_id', (select bench from ids)),
                           jsonb_build_object('id', (select wall_hold from ids))),
  '{"state": "LB409", "code": "tracking_type_conflict", "sets": 1, "plan_targets": 0}',
  'a timed exercise''s sets do not fit a lift tracked by weight and reps');
select is((select count(*) from app.user_exercises where name = 'Wall Hold'), 1::bigint, '… and nothing moved');

-- A merge --------------------------------------------------------------------------------------------------
select is(pg_temp.call('exercise_merge', 'm', jsonb_build_object('into_id', (select bench from ids)),
                       jsonb_build_object('id', (select own_bench from ids))) - 'exercise',
  '{"moved": {"sessions": 2, "plans": 1, "program_states": 0, "exclusions": 1}, "alias": "flat bench (comp)", "deleted": true}',
  'an own exercise merges into the catalog''s');
select is((select count(*) from app.user_exercises where name = 'Flat Bench (Comp)'), 0::bigint, 'the own exercise is gone');
select is((select array_agg(e.exercise_name || ':' || coalesce(e.exercise_id = (select bench from ids), false)
                            order by s.session_date, e.position)
             from app.session_exercises as e join app.training_sessions as s on s.user_id = e.user_id and s.id = e.session_id),
  array['Barbell Bench Press:true', 'Barbell Bench Press:true', 'Overhead Press:false', 'Wall Hold:false'],
  'its sessions are the catalog exercise''s, under its name');
select is((select count(*) from app.session_sets as x
             join app.session_exercises as e on e.user_id = x.user_id and e.session_id = x.session_id and e.position = x.exercise_position
            where e.exercise_id = (select bench from ids)), 3::bigint, 'with every set');
select is((select p.exercise_id = (select bench from ids) and p.exercise_name = 'Barbell Bench Press' from app.plan_exercises as p),
  true, 'the plan names the catalog exercise');
select is((select exercise_ids from app.user_exclusions), array[(select bench from ids)], 'so does the exclusion list');
select is((select array_agg(exercise_key) from app.exercise_records
            where exercise_key in ((select own_bench from ids), (select bench from ids))), array[(select bench from ids)],
  'records follow: one exercise holds them all');
select is((select records -> 'heaviest' ->> 'weight_kg' from app.exercise_records where exercise_key = (select bench from ids)), '110',
  '… with the heaviest set of the merged history');
select is((select jsonb_agg(i ->> 'e1rm_kg' order by i ->> 'session_date')
             from jsonb_array_elements((app.e1rm_series((select user_id from tokens where name = 'm'), (select bench from ids),
                                                        '2024-01-01', '2024-12-31')).items) as i),
  '["116.7", "117.3"]', 'the e1RM series runs across the merged history');
select is((select sum(v.sets) from app.weekly_muscle_volume((select user_id from tokens where name = 'm'), '2024-06-01', '2024-06-16') as v
            where v.muscle = 'chest'), 3::float8, 'weekly volume counts the merged sets for the chest');

-- The name is remembered for later imports ---------------------------------------------------------------
select is((pg_temp.call('import_strong', 'm', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Reps'],
            '2024-06-17 07:00|Push|Flat Bench (Comp)|1|112.5|2')) -> 'exercises' -> 0) - 'exercise_id',
  '{"name": "Flat Bench (Comp)", "exercise_name": "Barbell Bench Press", "user_exercise_id": null, "how": "alias"}',
  'a later import of the merged name lands on the exercise it was merged into');
select is((select count(*) from app.user_exercises where name = 'Flat Bench (Comp)'), 0::bigint, '… and makes no exercise');
select is((pg_temp.call('import_strong', 'other', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Reps'],
            '2024-06-17 07:00|Push|Flat Bench (Comp)|1|80|5')) -> 'exercises' -> 0) ->> 'how',
  'new', 'the name is the user''s alone: another user''s import of it makes their own exercise');
select pg_temp.call('exercise_create', 'm', '{"name": "Flat Bench (Comp)", "primary_muscles": ["chest"]}');
select is((select count(*) from app.exercise_name_aliases where user_id = (select user_id from tokens where name = 'm')), 0::bigint,
  'an own exercise made later under the merged name takes it back');

-- Programs ---------------------------------------------------------------------------------------------------
select pg_temp.call('program_create', 'm', '{"goal": "strength", "training_age": "novice", "days_per_week": 3}');
select ok((select st.load_kg > 0 from app.program_exercise_state as st where st.exercise_id = (select bench from ids)),
  'a new program starts the bench from the merged history');
select is(pg_temp.error_of('exercise_merge', 'm', jsonb_build_object('into_id', (select front_squat from ids)),
                           jsonb_build_object('id', (select squat from ids))) ->> 'code',
  'exercise_in_program', 'a catalog exercise the active program prescribes is not merged away');
reset role;
update app.programs set status = 'ended', ended_at = now();
set local role liftbase_api;
select is((select count(*) from app.program_exercise_state where exercise_id = (select squat from ids)), 1::bigint,
  'the ended program kept its squat progression');
select is(pg_temp.call('exercise_merge', 'm', jsonb_build_object('into_id', (select front_squat from ids)),
                       jsonb_build_object('id', (select squat from ids))) -> 'moved' -> 'program_states', '1',
  'once the program has ended, the squat merges and its progression moves');
select is((select array_agg(exercise_id) from app.program_exercise_state where exercise_id in ((select squat from ids), (select front_squat from ids))),
  array[(select front_squat from ids)], '… to the front squat');
select is((select count(*) from app.exercises where id = (select squat from ids)), 1::bigint,
  'a catalog exercise merged away stays in the catalog');

select * from finish();
rollback;
