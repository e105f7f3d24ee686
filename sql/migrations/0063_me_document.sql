-- GET /me answers the account, its settings and whether onboarding is still to do, and
-- every request asks for it first; building that answer from three tables and a security
-- definer call on each request cost more than the request's one read. The answer changes
-- rarely, so it is kept, built when one of its sources is written (app.refresh_me_document,
-- sql/functions/app_me_document.sql), beside what versions it: the user's change counter,
-- whose row GET /me reads for its ETag anyway. GET /me is then one indexed read.
--
-- The sources and the triggers that keep the answer exact:
--   auth.users         the account (auth.user_json): users_me_document, on an update that
--                      changes it (a new account has no settings yet: their insert builds it);
--   app.user_settings  the settings: inserted, changed, deleted;
--   app.goals          whether one exists: inserted, deleted.
-- A user whose answer was never built (an account from before this migration, until its
-- next such write) or was built by another definition (me_document_shape, see
-- app.me_document_shape) gets it built on each read instead: the same answer, at the old cost.
-- No backfill: the builder is defined by the function files, applied after the migrations.
alter table app.sync_state add column me_document jsonb, add column me_document_shape text;

-- The bodies are app_me_document.sql's (the functions are applied after the migrations).
create function app.keep_me_document() returns trigger
language plpgsql
as $$
begin
  return null;
end
$$;
create function app.keep_me_document_of_account() returns trigger
language plpgsql
as $$
begin
  return null;
end
$$;

create trigger users_me_document after update on auth.users
  for each row execute function app.keep_me_document_of_account();
create trigger user_settings_me_document_insert after insert on app.user_settings
  for each row execute function app.keep_me_document();
create trigger user_settings_me_document_update after update on app.user_settings
  for each row when (old.* is distinct from new.*) execute function app.keep_me_document();
-- An account being deleted (auth.users' note_account_deletion names it) takes its counter
-- row with it: nothing to keep.
create trigger user_settings_me_document_delete after delete on app.user_settings
  for each row when (current_setting('liftbase.deleting_user', true) is distinct from old.user_id::text)
  execute function app.keep_me_document();
create trigger goals_me_document_insert after insert on app.goals
  for each row execute function app.keep_me_document();
create trigger goals_me_document_delete after delete on app.goals
  for each row when (current_setting('liftbase.deleting_user', true) is distinct from old.user_id::text)
  execute function app.keep_me_document();
