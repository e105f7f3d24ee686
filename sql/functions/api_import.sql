-- POST /import/{strong|hevy|cronometer}?dry_run=: a CSV export of another app, sent by the
-- HTTP layer as {file_sha256, header, rows: [{line, fields}]}; POST /import/liftbase: a
-- Liftbase export document (JSON) as it is. Every run is recorded in
-- app.import_runs, failed and dry ones too. A file with problems imports nothing and is
-- answered 422 with the contract's shape plus the usual error object:
-- {"error": {"code": "import_invalid", ...}, "imported": 0, "skipped_duplicates": 0,
--  "errors": [{"line", "message"}]}. The answer is returned rather than raised so that the
-- run record survives.
create or replace function app.import_run(p_user_id uuid, p_format text, p_document jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_dry_run_text text := lower(coalesce(p_args ->> 'dry_run', 'false'));
  v_dry_run boolean;
  v_result record;
  v_rows app.import_set_row[];
begin
  if v_dry_run_text not in ('true', 'false', '1', '0') then
    perform app.raise_error(400, 'invalid_parameter', 'dry_run must be true or false.');
  end if;
  v_dry_run := v_dry_run_text in ('true', '1');
  if p_format = 'liftbase' then
    if jsonb_typeof(p_document) is distinct from 'object' then
      perform app.raise_error(400, 'malformed_import', 'The body must be a Liftbase export document.');
    end if;
  elsif jsonb_typeof(p_document) is distinct from 'object' or jsonb_typeof(p_document -> 'rows') is distinct from 'array'
     or jsonb_typeof(p_document -> 'header') is distinct from 'array' or p_document ->> 'file_sha256' is null then
    perform app.raise_error(400, 'malformed_import', 'The import document lacks its header, rows or file hash.');
  end if;
  if p_format = 'liftbase' then
    v_result := app.import_liftbase(p_user_id, p_document, v_dry_run);
  elsif p_format = 'cronometer' then
    v_result := app.import_cronometer(p_user_id, p_document, v_dry_run);
  else
    v_rows := case p_format when 'strong' then array(select app.import_strong_rows(p_document))
                            else array(select app.import_hevy_rows(p_document)) end;
    v_result := app.import_workouts(p_user_id, v_rows, v_dry_run);
  end if;
  insert into app.import_runs (user_id, format, file_sha256, dry_run, imported, skipped_duplicates, error_count)
  values (p_user_id, p_format,
          -- A JSON body reaches SQL parsed: its hash is that of its canonical jsonb text.
          coalesce(p_document ->> 'file_sha256', encode(sha256(convert_to(p_document::text, 'UTF8')), 'hex')), v_dry_run, v_result.imported,
          v_result.skipped_duplicates, jsonb_array_length(v_result.errors));
  if v_result.errors <> '[]' then
    perform app.set_response_status(422);
    return jsonb_build_object(
      'error', jsonb_build_object('code', 'import_invalid',
                                  'message', 'The file has problems; nothing was imported.'),
      'imported', 0, 'skipped_duplicates', 0, 'errors', v_result.errors);
  end if;
  return jsonb_build_object('imported', v_result.imported, 'skipped_duplicates', v_result.skipped_duplicates,
                            'errors', '[]'::jsonb);
end
$$;

create or replace function api.import_strong(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return app.import_run(v_user_id, 'strong', p_body, p_args);
end
$$;

create or replace function api.import_hevy(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return app.import_run(v_user_id, 'hevy', p_body, p_args);
end
$$;

create or replace function api.import_cronometer(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return app.import_run(v_user_id, 'cronometer', p_body, p_args);
end
$$;

create or replace function api.import_liftbase(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return app.import_run(v_user_id, 'liftbase', p_body, p_args);
end
$$;

grant execute on function app.import_run(uuid, text, jsonb, jsonb) to liftbase_api;
