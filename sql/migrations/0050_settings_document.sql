-- GET /me answers the settings on every request, and building their JSON (five nested
-- objects: jsonb_build_object looks up the type of each of its arguments on every call and
-- sorts each object's keys) cost more than reading the row. The settings change rarely: the
-- document is kept on the row, built when the row is written (app.keep_settings_document,
-- sql/functions/app_settings.sql). A row written before this migration has none until its
-- next write; app.settings_json builds it on read then (no backfill: an update of every
-- row would count as a settings change of every user in the change feed). So does a row
-- whose document another definition of the shape built (settings_document_shape, see
-- app.settings_document_shape): a release that changes the shape serves no stale document.
alter table app.user_settings add column settings_document jsonb, add column settings_document_shape text;

-- The body is app_settings.sql's (the functions are applied after the migrations).
create function app.keep_settings_document() returns trigger
language plpgsql
as $$
begin
  return new;
end
$$;
create trigger user_settings_document before insert or update on app.user_settings
  for each row execute function app.keep_settings_document();
