-- Errors and response shaping shared by every api function.
--
-- Errors are raised with SQLSTATE LBnnn, which the HTTP layer answers with status nnn.
-- MESSAGE is for people; DETAIL is JSON: {"code": "snake_case", "fields": {...}}.

-- The common error: its code, and the fields at fault when there are any (raised by
-- app.raise_error_with, the one place that makes an error).
create or replace function app.raise_error(p_status integer, p_code text, p_message text, p_fields jsonb default null)
returns void
language plpgsql
as $$
begin
  perform app.raise_error_with(p_status, p_code, p_message,
                               case when p_fields is null then '{}'::jsonb
                                    else jsonb_build_object('fields', p_fields) end);
end
$$;

-- Raises one 422 naming every bad field at once. p_fields maps field → problem or null;
-- the nulls (fields that passed) are dropped.
create or replace function app.raise_if_invalid(p_fields jsonb)
returns void
language plpgsql
as $$
declare
  v_problems jsonb := jsonb_strip_nulls(p_fields);
begin
  if v_problems <> '{}'::jsonb then
    perform app.raise_error(422, 'validation_failed', 'Some fields are invalid.', v_problems);
  end if;
end
$$;

-- Overrides the endpoint's success status for this request (transaction-local).
create or replace function app.set_response_status(p_status integer)
returns void
language sql
as $$ select set_config('liftbase.response_status', p_status::text, true) $$;

-- Adds a response header for this request (transaction-local), e.g. Retry-After, ETag, and
-- returns the request's headers so far (JSON text). SQL, one expression: inlined into the
-- statement or the PL/pgSQL assignment that calls it, so a hot read sets its ETag without
-- a call of its own (app.not_modified).
create or replace function app.with_response_header(p_name text, p_value text)
returns text
language sql
as $$
  select set_config(
    'liftbase.response_headers',
    (coalesce(nullif(current_setting('liftbase.response_headers', true), ''), '{}')::jsonb
      || jsonb_build_object(p_name, p_value))::text,
    true)
$$;

-- The same as a statement of its own (PERFORM).
create or replace function app.set_response_header(p_name text, p_value text)
returns void
language plpgsql
as $$
begin
  perform app.with_response_header(p_name, p_value);
end
$$;

-- An error answer that does NOT roll the transaction back: for the rare rule whose
-- bookkeeping must persist although the request fails (failed logins for the lockout).
create or replace function app.error_response(p_status integer, p_code text, p_message text)
returns jsonb
language plpgsql
as $$
begin
  perform app.set_response_status(p_status);
  return jsonb_build_object('error', jsonb_build_object('code', p_code, 'message', p_message));
end
$$;

-- The request body as jsonb, read one way for every route (the statement of every endpoint
-- calls it): no body at all is null, a body is a JSON object (a CSV import arrives as the
-- object the HTTP layer makes of the file), and anything else is a 400 before any api
-- function sees it: malformed JSON (malformed_json), a JSON value that is not an object
-- ("x", [1], 3, null: body_must_be_object), a \u0000 in a string (invalid_text: text
-- cannot hold NUL, as the HTTP layer answers a NUL byte), a number beyond what numeric
-- holds (malformed_json) and nesting deeper than the parser's stack (body_too_deep; the
-- HTTP layer refuses more than 512 levels first). Then a member the route p_function does not
-- take (app.request_members) is a 422 unknown_field naming each such member in `fields`, before
-- the api function reads anything.
create or replace function app.request_body(p_text text, p_function text)
returns jsonb
language plpgsql
immutable
as $$
declare
  v_body jsonb;
  v_unknown text[];
begin
  if p_text is null then
    return null;
  end if;
  begin
    v_body := p_text::jsonb;
  exception
    when untranslatable_character then
      perform app.raise_error(400, 'invalid_text', 'The request body holds a NUL character (\u0000).');
    when invalid_text_representation or character_not_in_repertoire or numeric_value_out_of_range then
      perform app.raise_error(400, 'malformed_json', 'The request body is not valid JSON.');
    when statement_too_complex then
      perform app.raise_error(400, 'body_too_deep', 'The request body is nested too deeply.');
  end;
  if jsonb_typeof(v_body) <> 'object' then
    perform app.raise_error(400, 'body_must_be_object', 'The request body must be a JSON object.');
  end if;
  v_unknown := app.unknown_members(v_body, app.request_members(p_function));
  if v_unknown <> '{}' then
    perform app.raise_error(422, 'unknown_field', 'The body has members this request does not take.',
                            (select jsonb_object_agg(u, 'is not a member this request takes') from unnest(v_unknown) as u));
  end if;
  return v_body;
end
$$;

-- The statement of a server older than app.request_body(text, text) during a rolling
-- upgrade: its body unchecked for members, as it was. Goes in a later release.
create or replace function app.request_body(p_text text)
returns jsonb
language plpgsql
immutable
as $$
begin
  return app.request_body(p_text, null);
end
$$;

grant execute on function
  app.raise_error(integer, text, text, jsonb),
  app.raise_if_invalid(jsonb),
  app.set_response_status(integer),
  app.with_response_header(text, text),
  app.set_response_header(text, text),
  app.error_response(integer, text, text),
  app.request_body(text, text),
  app.request_body(text)
to liftbase_api;

-- Raises an error: SQLSTATE LB and the status, the message, and a DETAIL of p_extra's members
-- (the fields at fault, the id of the in-progress session that blocks a new one...) with the
-- code.
create or replace function app.raise_error_with(p_status integer, p_code text, p_message text, p_extra jsonb)
returns void
language plpgsql
as $$
begin
  raise exception using
    errcode = 'LB' || lpad(p_status::text, 3, '0'),
    message = p_message,
    detail = (p_extra || jsonb_build_object('code', p_code))::text;
end
$$;
grant execute on function app.raise_error_with(integer, text, text, jsonb) to liftbase_api;

-- The replay rule of every create: the body's optional client_id names the row on the device.
-- A client_id the user has used before in p_table is a retry after a lost answer: nothing is
-- written, the first row's id is returned (as text: body metrics have bigint ids) and the
-- status is 200. A client_id that is no UUID is a 422 naming it. The first upload and a
-- racing retry of the same client_id are serialized by a transaction-level advisory lock on
-- (user, client_id), taken before the look-up: the retry waits for the first to commit and
-- then finds its row, so no path ends in a unique violation and the create itself inserts
-- plainly. Each table is read by a static statement of its own, so plpgsql_check and
-- docs/routes.md see the read; a table with a client_id column (0003, 0005, 0046, 0048)
-- that is not listed here is a mistake this raises.
create or replace function app.replayed_key(p_table regclass, p_user_id uuid, p_body jsonb)
returns text
language plpgsql
as $$
declare
  v_problem text := app.input_problem(p_body -> 'client_id', 'uuid');
  v_client_id uuid;
  v_id text;
begin
  if v_problem is not null then
    perform app.raise_if_invalid(jsonb_build_object('client_id', v_problem));
  end if;
  v_client_id := app.read_uuid(p_body, 'client_id');
  if v_client_id is null then
    return null;
  end if;
  perform pg_advisory_xact_lock(hashtextextended(p_user_id::text || v_client_id::text, p_table::oid::bigint));
  case p_table
    when 'app.food_entries'::regclass then
      select t.id::text into v_id from app.food_entries as t where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.training_sessions'::regclass then
      select t.id::text into v_id from app.training_sessions as t
       where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.body_metrics'::regclass then
      select t.id::text into v_id from app.body_metrics as t where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.favorites'::regclass then
      select t.id::text into v_id from app.favorites as t where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.custom_meals'::regclass then
      select t.id::text into v_id from app.custom_meals as t where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.progress_photos'::regclass then
      select t.id::text into v_id from app.progress_photos as t
       where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.plans'::regclass then
      select t.id::text into v_id from app.plans as t where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.user_foods'::regclass then
      select t.id::text into v_id from app.user_foods as t where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.user_exercises'::regclass then
      select t.id::text into v_id from app.user_exercises as t
       where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.programs'::regclass then
      select t.id::text into v_id from app.programs as t where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.measurement_types'::regclass then
      select t.id::text into v_id from app.measurement_types as t
       where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.body_measurements'::regclass then
      select t.id::text into v_id from app.body_measurements as t
       where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.water_entries'::regclass then
      select t.id::text into v_id from app.water_entries as t where t.user_id = p_user_id and t.client_id = v_client_id;
    when 'app.webhook_subscriptions'::regclass then
      select t.id::text into v_id from app.webhook_subscriptions as t
       where t.user_id = p_user_id and t.client_id = v_client_id;
    else
      raise exception 'app.replayed_key: % is not a table whose creates replay', p_table;
  end case;
  if v_id is not null then
    perform app.set_response_status(200);
  end if;
  return v_id;
end
$$;
grant execute on function app.replayed_key(regclass, uuid, jsonb) to liftbase_api;
