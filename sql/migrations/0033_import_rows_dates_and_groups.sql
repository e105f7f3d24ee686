-- Imported workout rows carry what FitNotes and Liftbase's own workouts.csv add: a session
-- date without a start time (FitNotes writes days, no times), an explicit assistance (an
-- assisted set's help, so its exercise's type is known without a catalog entry) and the
-- rest after a superset.
alter type app.import_set_row
  add attribute session_date date,
  add attribute assistance_kg numeric,
  add attribute group_rest_seconds integer;

-- The exercises of imported sessions also answer the rest after their group.
drop function if exists app.import_exercise_positions(app.import_set_row[]);
-- Recovering a name split by an unquoted comma also checks the text columns to its right.
drop function if exists app.import_rejoin_split_names(jsonb, text, text[]);
