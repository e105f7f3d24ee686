-- app.session_summary_json was replaced by the single query of api.sessions_list. Its drop
-- lived in app_sessions.sql, re-run on every change of that file; a function file holds
-- only what can be created again, so the drop is done once, here.
drop function if exists app.session_summary_json(app.training_sessions);
