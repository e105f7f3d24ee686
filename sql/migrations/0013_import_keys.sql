-- What POST /import/{format} needs beyond app.import_runs (0009): a natural key on the rows
-- an import creates, so that importing the same file again adds nothing, and the row type
-- every workout format (Strong, Hevy) is mapped to before one writer stores it.

-- The import key names the source of a row: for a session, format + start + workout name
-- (one workout of the exporting app); for a diary row, format + the row's values + its
-- occurrence among identical rows. Null for rows made in Liftbase itself.
alter table app.training_sessions add column import_key text;
create unique index training_sessions_import_key on app.training_sessions (user_id, import_key);

alter table app.food_entries add column import_key text;
create unique index food_entries_import_key on app.food_entries (user_id, import_key);

-- One set of an imported workout file, after the format's column mapping. `problem` is the
-- first thing wrong with the row as the format defines it (null when the row is usable);
-- value rules (reps, load, RPE ranges) stay with the domains of the session tables.
create type app.import_set_row as (
  line           integer,
  session_key    text,
  started_local  timestamp,
  finished_local timestamp,
  session_name   text,
  session_notes  text,
  exercise_name  text,
  exercise_notes text,
  set_order      integer,
  set_type       text,
  weight_kg      numeric,
  reps           integer,
  rpe            numeric,
  problem        text
);
