-- Every create now replays a client_id through app.replayed_key (sql/functions/app_responses.sql),
-- POST /nutrition/entries and POST /training/sessions included: the look-up without a lock,
-- which those two used beside an insert that skipped a taken client_id, is gone.
drop function if exists app.replayed_id(regclass, uuid, jsonb);
