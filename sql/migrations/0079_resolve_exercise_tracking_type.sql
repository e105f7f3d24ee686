-- app.resolve_exercise now also answers the tracking type of the exercise it links
-- (sql/functions/app_exercises.sql): a function's result columns cannot change in place, so
-- the old one goes and the function file makes the new one.
drop function if exists app.resolve_exercise(uuid, jsonb);
