-- Every session is written by app.write_sessions and app.write_session_children
-- (sql/functions/app_session_writer.sql); the API's request is read into rows by
-- app.session_rows_of. The API's own writer of a session's exercises goes.
drop function if exists app.write_session_exercises(uuid, uuid, jsonb);
-- Its set check runs on the rows it is given, before they are read back: the check of
-- stored sessions the imports called goes too.
drop function if exists app.raise_if_sets_misfit(uuid, uuid[]);
