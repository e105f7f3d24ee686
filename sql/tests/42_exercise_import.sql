-- The free-exercise-db importer on a small fixture in that format: merges by name
-- (case-insensitively), never duplicates, keeps built-in curation, skips broken entries.
begin;
\ir support/helpers.psql
select plan(8);

create temporary table fixture as select '[
  {"id": "Barbell_Squat", "name": "barbell squat", "force": "push", "level": "beginner", "mechanic": "compound",
   "equipment": "barbell", "primaryMuscles": ["quadriceps"], "secondaryMuscles": ["calves", "glutes"],
   "instructions": ["Unrack the bar.", "Squat."], "category": "strength", "images": []},
  {"id": "Zercher_Squat", "name": "Zercher Squat", "force": "push", "level": "expert", "mechanic": "compound",
   "equipment": "barbell", "primaryMuscles": ["quadriceps"], "secondaryMuscles": ["glutes", "abdominals"],
   "instructions": ["Hold the bar in the crooks of the elbows."], "category": "strength", "images": []},
  {"id": "Band_Thing", "name": "Band Thing", "force": null, "level": "beginner", "mechanic": null,
   "equipment": "bands", "primaryMuscles": ["spleen"], "secondaryMuscles": [],
   "instructions": [], "category": "strength", "images": []},
  {"id": "Zercher_Squat_2", "name": "ZERCHER SQUAT", "force": "push", "level": "expert", "mechanic": "compound",
   "equipment": "barbell", "primaryMuscles": ["quadriceps"], "secondaryMuscles": [], "instructions": [],
   "category": "strength", "images": []}
]'::jsonb as entries;

create temporary table counts as select (select count(*) from app.exercises) as before;

select is(app.import_exercises((select entries from fixture)) - 'read',
  '{"inserted": 1, "updated": 1, "skipped": 2}', 'one new, one merged into a built-in, a bad and a duplicate entry skipped');
select is((select count(*) from app.exercises) - (select before from counts), 1::bigint, 'one exercise more');
select is((select secondary_muscles::text[] from app.exercises where name = 'Barbell Squat'),
  array['glutes', 'hamstrings', 'lower back', 'adductors'], 'a built-in keeps its curated muscles');
select is((select instructions from app.exercises where name = 'Barbell Squat'),
  array['Unrack the bar.', 'Squat.'], 'and gains the file''s instructions');
select is((select equipment || ' ' || priority_tier || ' ' || source from app.exercises where lower(name) = 'zercher squat'),
  'barbell 2 free-exercise-db', 'a new entry maps equipment, tier and source');
select is(app.import_exercises((select entries from fixture)) - 'read',
  '{"inserted": 0, "updated": 2, "skipped": 2}', 're-importing the same file adds nothing');
select is((select count(*) from app.exercises) - (select before from counts), 1::bigint, 'still one exercise more');
select is((select count(*)::integer from app.exercises where name = 'Band Thing'), 0, 'an entry with unknown muscles is skipped');

select * from finish();
rollback;
