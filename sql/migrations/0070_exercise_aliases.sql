-- One identity per exercise (docs/imports.md, "How names resolve"): the names other apps
-- give a catalog exercise ("Bench Press (Barbell)" in Strong and Hevy, "Flat Barbell Bench
-- Press" in FitNotes: the catalog's "Barbell Bench Press"), lower case. Loaded from
-- sql/data/exercise-aliases.tsv with the built-in catalogs (app.load_exercise_aliases). A
-- column of the catalog rather than a table of its own, so that it goes wherever the
-- catalog goes (one copy on every Citus node) and leaves with its exercise.
alter table app.exercises add column aliases text[] not null default '{}';
comment on column app.exercises.aliases is
  'Other names of the exercise (other apps'' names, common spellings), lower case: app.resolve_exercise_names';
create index exercises_aliases on app.exercises using gin (aliases);

-- A workout import answers how each exercise name of the file resolved: its signature
-- changes, and app_import_write.sql makes it again.
drop function if exists app.import_workouts(uuid, app.import_set_row[], boolean, boolean);
