-- A row too wide to mend is reported by the importers from its `problem` member
-- (app.import_rejoin_split_names marks it): the separate list of those rows that the
-- function also returned is no longer read, and goes. Its result changes, so the function
-- file makes it again.
drop function if exists app.import_rejoin_split_names(jsonb, text, text[], text[]);
