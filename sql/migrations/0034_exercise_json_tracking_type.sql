-- app.exercise_json answers the exercise's tracking_type itself (the one shape of an exercise
-- in every answer: list, own exercise, substitutions), so its 11-argument form goes.
drop function if exists app.exercise_json(uuid, text, text, text, text, text[], text[], integer, boolean, text, boolean);
