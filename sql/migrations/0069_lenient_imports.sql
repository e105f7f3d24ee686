-- Lenient imports (docs/imports.md): one odd row no longer costs a person the whole file.
--
-- An imported workout row may now carry the reason it is skipped instead of imported (a
-- rest-timer row of Strong's, a set that recorded no measure): such a row is no error and
-- is counted apart from the errors.
alter type app.import_set_row add attribute skip_reason text;

-- The importers answer the skipped rows and take a `strict` choice (all or nothing, as
-- before): their signatures change, and the function files make them again.
drop function if exists app.import_workouts(uuid, app.import_set_row[], boolean);
drop function if exists app.import_diary(uuid, text, jsonb, jsonb, boolean);
