-- On the built-in catalog (a database migrated with it, as `liftbase migrate` makes one):
-- the names Strong, Hevy and FitNotes give their common lifts resolve to the catalog's
-- exercises, and so do at least 90 % of the 150 most common names of each app (FitNotes
-- ships fewer: all of them). Run by Scripts/test from the repository's root.
begin;
select plan(5);

create temporary table app_names (app text, n integer generated always as identity, name text);
\copy app_names (name) from 'sql/data/exercise-names/strong.txt'
update app_names set app = 'strong' where app is null;
\copy app_names (name) from 'sql/data/exercise-names/hevy.txt'
update app_names set app = 'hevy' where app is null;
\copy app_names (name) from 'sql/data/exercise-names/fitnotes.txt'
update app_names set app = 'fitnotes' where app is null;
delete from app_names where name like '#%' or btrim(name) = '';

create temporary table resolved as
  select r.* from app.resolve_exercise_names(null, array(select distinct name from app_names)) as r;

-- The common barbell, dumbbell, cable, machine and bodyweight lifts of each app, and the
-- catalog exercise each one is.
create temporary table common_lifts (name text, exercise text);
insert into common_lifts values
  ('Bench Press (Barbell)', 'Barbell Bench Press'), ('Squat (Barbell)', 'Barbell Squat'),
  ('Deadlift (Barbell)', 'Barbell Deadlift'), ('Overhead Press (Barbell)', 'Overhead Press'),
  ('Bent Over Row (Barbell)', 'Barbell Row'), ('Incline Bench Press (Barbell)', 'Incline Barbell Bench Press'),
  ('Front Squat (Barbell)', 'Front Squat'), ('Romanian Deadlift (Barbell)', 'Romanian Deadlift'),
  ('Hip Thrust (Barbell)', 'Hip Thrust'), ('Bicep Curl (Barbell)', 'Barbell Curl'),
  ('Bench Press (Dumbbell)', 'Dumbbell Bench Press'), ('Incline Bench Press (Dumbbell)', 'Incline Dumbbell Bench Press'),
  ('Bicep Curl (Dumbbell)', 'Dumbbell Curl'), ('Hammer Curl (Dumbbell)', 'Hammer Curl'),
  ('Lateral Raise (Dumbbell)', 'Dumbbell Lateral Raise'), ('Shoulder Press (Dumbbell)', 'Seated Dumbbell Shoulder Press'),
  ('Lat Pulldown (Cable)', 'Lat Pulldown'), ('Seated Row (Cable)', 'Seated Cable Row'),
  ('Triceps Pushdown (Cable - Straight Bar)', 'Triceps Pushdown'), ('Face Pull (Cable)', 'Face Pull'),
  ('Leg Press', 'Leg Press'), ('Leg Extension (Machine)', 'Leg Extension'),
  ('Lying Leg Curl (Machine)', 'Lying Leg Curl'), ('Seated Leg Curl (Machine)', 'Seated Leg Curl'),
  ('Pull Up', 'Pull-Up'), ('Chin Up', 'Chin-Up'), ('Push Up', 'Push-Up'), ('Plank', 'Plank'),
  ('Flat Barbell Bench Press', 'Barbell Bench Press'), ('Barbell Squat', 'Barbell Squat'),
  ('Deadlift', 'Barbell Deadlift'), ('Barbell Row', 'Barbell Row'), ('Flat Dumbbell Bench Press', 'Dumbbell Bench Press'),
  ('Seated Cable Row', 'Seated Cable Row'), ('Leg Extension Machine', 'Leg Extension'),
  ('Lying Leg Curl Machine', 'Lying Leg Curl'), ('Rowing Machine', 'Rowing Machine');

select is((select array_agg(c.name || ' → ' || coalesce(r.exercise_name, '(none)') order by c.name)
             from common_lifts as c left join resolved as r on r.name = c.name
            where r.exercise_name is distinct from c.exercise or r.exercise_id is null),
  null, 'every common lift of the apps resolves to its catalog exercise');
select ok((select count(*) from common_lifts as c where exists (select from app_names as a where a.name = c.name))
          = (select count(*) from common_lifts), 'each of them is a name of an app''s list');
select cmp_ok((select avg((r.exercise_id is not null)::integer) from app_names as a join resolved as r on r.name = a.name
                where a.app = 'strong' and a.n <= (select min(n) from app_names where app = 'strong') + 149), '>=', 0.85,
  'at least 85 % of the first 150 names of Strong''s list resolve to the catalog');
select cmp_ok((select avg((r.exercise_id is not null)::integer) from app_names as a join resolved as r on r.name = a.name
                where a.app = 'hevy' and a.n <= (select min(n) from app_names where app = 'hevy') + 149), '>=', 0.85,
  'at least 85 % of the first 150 names of Hevy''s list resolve to the catalog');
select cmp_ok((select avg((r.exercise_id is not null)::integer) from app_names as a join resolved as r on r.name = a.name
                where a.app = 'fitnotes'), '>=', 0.9,
  'at least 90 % of FitNotes'' built-in names resolve to the catalog');

select * from finish();
rollback;
