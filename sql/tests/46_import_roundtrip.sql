-- Round trip: an account exported (GET /export?format=json), imported into a fresh account
-- (POST /import/liftbase) and exported again gives the same document, apart from what
-- docs/export-format.md allows to differ: exported_at, user, import_runs and the integer ids
-- an import re-creates (body metrics, target snapshots, health metrics and the references
-- to them). Needs the export (app.export_document) and its full-account fixture; a schema
-- without them skips the test.
begin;
select to_regprocedure('app.export_document(uuid)') is not null as has_export \gset
\if :has_export
select plan(4);
\ir fixtures/full_account.psql

create temporary table tokens (name text primary key, user_id uuid, token text);
insert into tokens select 'source', u.id, auth.start_session(u.id)
  from auth.create_account('roundtrip-source@example.com', 'password-source', 'Source') as u;
insert into tokens select 'copy', u.id, auth.start_session(u.id)
  from auth.create_account('roundtrip-copy@example.com', 'password-copy', 'Copy') as u;
select pg_temp.fill_account(user_id, 'RT') from tokens where name = 'source';
grant select on tokens to liftbase_api;

create function pg_temp.exported(p_name text) returns jsonb language plpgsql as $$
declare
  v_document jsonb;
begin
  perform set_config('liftbase.user_id', '', true);
  select string_agg(chunk, '' order by n)::jsonb into v_document
    from api.export_json((select token from tokens where name = p_name), null, '{}') with ordinality as c (chunk, n);
  return v_document;
end $$;

-- The document without what may differ after a round trip.
create function pg_temp.comparable(p_document jsonb) returns jsonb language sql as $$
  select p_document - 'exported_at' - 'user' - 'import_runs'
    || jsonb_build_object(
         'body_metrics', (select coalesce(jsonb_agg(b - 'id' order by n), '[]')
                            from jsonb_array_elements(p_document -> 'body_metrics') with ordinality as x (b, n)),
         'target_snapshots', (select coalesce(jsonb_agg(t - 'id' order by n), '[]')
                                from jsonb_array_elements(p_document -> 'target_snapshots') with ordinality as x (t, n)),
         'health_metrics', (select coalesce(jsonb_agg(h - 'id' - 'snapshot_id' order by n), '[]')
                              from jsonb_array_elements(p_document -> 'health_metrics') with ordinality as x (h, n)),
         'metrics_acknowledgements', (select coalesce(jsonb_agg(a - 'health_metric_id' order by n), '[]')
                                        from jsonb_array_elements(p_document -> 'metrics_acknowledgements') with ordinality as x (a, n)))
$$;

set local role liftbase_api;
create temporary table documents as select pg_temp.exported('source') as original;
select ok((select jsonb_array_length(original -> 'training_sessions') > 0 and jsonb_array_length(original -> 'food_entries') > 0
             from documents), 'the source account has sessions and diary rows to carry');
select is((select (api.import_liftbase((select token from tokens where name = 'copy'), original, '{}')) -> 'errors' from documents),
  '[]'::jsonb, 'the export imports without problems');
select is((select pg_temp.comparable(pg_temp.exported('copy'))),
          (select pg_temp.comparable(original) from documents),
  'exporting the imported account gives the original document');
select is((select (api.import_liftbase((select token from tokens where name = 'copy'), original, '{}')) -> 'imported' from documents),
  '0'::jsonb, 'importing it again adds nothing');
select * from finish();
\else
select plan(1);
select skip('the export (app.export_document) is not part of this schema', 1);
select * from finish();
\endif
rollback;
