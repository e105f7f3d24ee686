-- The tracking type of stored exercises is app.exercise_tracking_type's alone (and
-- app.exercise_tracking_types' for many); the lookup without its free-text default is gone.
drop function if exists app.exercise_tracking_type_or_null(uuid, uuid, uuid);
