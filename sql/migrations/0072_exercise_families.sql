-- The catalog's own near-duplicates (the public list's "Bench Press - Powerlifting" and
-- "Barbell Bench Press - Medium Grip" are the curated "Barbell Bench Press") are aliases of
-- the entry they duplicate (sql/data/exercise-aliases.tsv). Such entries form a family:
-- the history of one exercise is read across it (an e1RM series, a new program's starting
-- loads). Kept with the aliases by app.load_exercise_aliases: the ids of the family, the
-- exercise's own among them; empty for an exercise that has none but itself. One column,
-- read by the exercise's primary key, so a read of a history costs no lookup by name.
alter table app.exercises add column family uuid[] not null default '{}';
comment on column app.exercises.family is
  'The catalog entries that are the same lift as this one (its near-duplicates and the entry they duplicate), this one among them; empty when none: app.exercise_family';
