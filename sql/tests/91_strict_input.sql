-- Bad input never reaches a table and never fails as a 500: a body is a JSON object
-- (app.request_body), each member is read as its kind by the readers of app_input.sql (a
-- date is YYYY-MM-DD from 1900 to 2999, never PostgreSQL's free-form input), parameters
-- are read one way (app_ranges_and_pages.sql: every list pages by limit 1–200 and a cursor),
-- a Strong file Liftbase wrote imports back, and the user's dates do not move with the
-- server's TimeZone. Run as the API role.
begin;
\ir support/helpers.psql
select plan(53);

select pg_temp.sign_up('a', 'strict-a@example.com', 'strict a pass', 'Ann');
select pg_temp.sign_up('b', 'strict-b@example.com', 'strict b pass');

-- Every page of a list, following next_cursor: the ids in order (null when a page was
-- larger than asked, or the cursors did not end).
create function pg_temp.all_pages(p_function text, p_token_name text, p_args jsonb) returns jsonb
language plpgsql as $$
declare
  v_page jsonb;
  v_ids jsonb := '[]';
  v_args jsonb := p_args;
begin
  for i in 1 .. 100 loop
    v_page := pg_temp.call(p_function, p_token_name, null, v_args);
    if jsonb_array_length(v_page -> 'items') > (p_args ->> 'limit')::integer then
      return null;
    end if;
    v_ids := v_ids || coalesce((select jsonb_agg(x -> 'id') from jsonb_array_elements(v_page -> 'items') as x), '[]');
    if v_page ->> 'next_cursor' is null then
      return v_ids;
    end if;
    v_args := p_args || jsonb_build_object('cursor', v_page ->> 'next_cursor');
  end loop;
  return null;
end $$;

-- The sessions of a user, as rows.
create function pg_temp.session_count(p_token_name text) returns bigint language sql as $$
  select count(*) from app.training_sessions where user_id = (select user_id from tokens where name = p_token_name)
$$;

set local role liftbase_api;

-- A body is a JSON object -------------------------------------------------------------------------
create function pg_temp.body_error(p_text text) returns jsonb language plpgsql as $$
declare
  v_state text;
  v_detail text;
begin
  perform app.request_body(p_text);
  return null;
exception when others then
  get stacked diagnostics v_state = returned_sqlstate, v_detail = pg_exception_detail;
  return jsonb_build_object('state', v_state, 'code', case when v_detail like '{%' then v_detail::jsonb ->> 'code' end);
end $$;
select is((select array_agg(distinct pg_temp.body_error(v)::text)
             from unnest(array['"x"', '[1]', '3', 'null', '[null, null]', 'true', '"{}"']) as v),
  array['{"code": "body_must_be_object", "state": "LB400"}'], 'a JSON body that is not an object is 400 body_must_be_object');
select is(app.request_body(null), null, 'no body at all stays null');
select is(app.request_body('{"a": [1]}'), '{"a": [1]}'::jsonb, 'an object is the body');
select is(pg_temp.body_error('{"a": "\u0000"}'), '{"code": "invalid_text", "state": "LB400"}', 'a \u0000 in a string is 400 invalid_text');
select is(pg_temp.body_error('{"a": 1e1000000}'), '{"code": "malformed_json", "state": "LB400"}',
  'a number beyond what PostgreSQL holds is 400 malformed_json, not a class-22 error');

-- Every api function is behind the same reader: none answers a body that is not an object.
-- (A photo upload takes its body as bytes, not JSON: it is not behind the reader.)
create function pg_temp.api_function_errors(p_body text) returns text[] language plpgsql as $$
declare
  v_function text;
  v_errors text[] := '{}';
  v_state text;
  v_detail text;
begin
  for v_function in select p.proname from pg_proc as p join pg_namespace as n on n.oid = p.pronamespace
                     where n.nspname = 'api' and p.proargtypes[1] = 'jsonb'::regtype order by 1 loop
    begin
      execute format('select api.%I($1, app.request_body($2), ''{}'')', v_function)
        using (select token from tokens where name = 'a'), p_body;
      v_errors := v_errors || (v_function || ': answered');
    exception when others then
      get stacked diagnostics v_state = returned_sqlstate, v_detail = pg_exception_detail;
      if v_state <> 'LB400' or v_detail not like '%"body_must_be_object"%' then
        v_errors := v_errors || (v_function || ': ' || v_state);
      end if;
    end;
  end loop;
  return v_errors;
end $$;
select is(pg_temp.api_function_errors('"x"'), '{}', 'every api function, as the statement calls it, refuses "x" with 400');
select is(pg_temp.api_function_errors('[null, null]'), '{}', 'and [null, null]');

select pg_temp.call('exclusions_put', 'a', jsonb_build_object('muscles', '["biceps"]'::jsonb,
  'exercise_ids', jsonb_build_array((select id from app.exercises where name = 'Barbell Squat'))));
create function pg_temp.put_exclusions(p_body text) returns text language plpgsql as $$
begin
  perform api.exclusions_put((select token from tokens where name = 'a'), app.request_body(p_body), '{}');
  return 'answered';
exception when others then
  return sqlstate;
end $$;
select is(array[pg_temp.put_exclusions('"x"'), pg_temp.put_exclusions('[null, null]')], array['LB400', 'LB400'],
  'PUT /user/exclusions with "x" or [null, null] is refused');
select is((select muscles::text[] from app.user_exclusions where user_id = (select user_id from tokens where name = 'a')),
  array['biceps'], 'and the exclusions stay as they were');
select is(pg_temp.call('exclusions_put', 'b', null) - 'exercise_ids', '{"muscles": []}',
  '(a body of no members at all clears them: that is what PUT means)');
select is(pg_temp.error_of('exclusions_put', 'a', '{"exercise_ids": [null, null]}') -> 'fields',
  '{"exercise_ids": "each item must be a UUID"}', 'a list of nulls is no list of exercise ids');

-- Wrong JSON types are refused, not coerced ------------------------------------------------------
select is(pg_temp.error_of('me_update', 'a', '{"display_name": [1, 2]}') -> 'fields', '{"display_name": "must be a string"}',
  'PATCH /me {"display_name": [1, 2]} is 422');
select is(pg_temp.error_of('me_update', 'a', '{"display_name": true}') -> 'fields', '{"display_name": "must be a string"}',
  'and true');
select is(pg_temp.call('me', 'a', null) #>> '{user,display_name}', 'Ann', 'the name stays as it was');
select is(pg_temp.error_of('sessions_create', 'a', '{"name": 5, "notes": {"a": 1}, "status": true, "exercises": [
            {"exercise_name": ["Squat"], "notes": 1, "sets": [{"reps": "5", "weight_kg": "100", "rpe": 8.3, "set_type": 1, "tempo": 3}]}]}')
          -> 'fields',
  '{"name": "must be a string", "notes": "must be a string", "status": "must be a string",
    "exercises[0].notes": "must be a string", "exercises[0].exercise_name": "must be a string",
    "exercises[0].sets[0].reps": "must be a whole number", "exercises[0].sets[0].weight_kg": "must be a number",
    "exercises[0].sets[0].rpe": "must be 1 to 10 in steps of 0.5", "exercises[0].sets[0].set_type": "must be a string",
    "exercises[0].sets[0].tempo": "must be a string"}',
  'a session names every member of the wrong type at once');
select is(pg_temp.error_of('entry_create', 'a', '{"name": true, "calories": "500", "protein_g": [1], "meal_type": 3, "source": "manual"}')
          -> 'fields',
  '{"name": "must be a string", "calories": "must be a number", "protein_g": "must be a number", "meal_type": "must be a string"}',
  'so does a diary entry');
select is(pg_temp.error_of('targets_put', 'a', '{"calories": "2000", "protein_g": 150.5}') -> 'fields',
  '{"calories": "must be a whole number", "protein_g": "must be a whole number between 0 and 2000"}',
  'targets are whole numbers, not strings');
select is(pg_temp.error_of('settings_update', 'a', '{"timezone": 5, "biometric_enabled": "true"}') -> 'fields',
  '{"timezone": "must be a string", "biometric_enabled": "must be true or false"}', 'settings take JSON types only');
select is(pg_temp.error_of('auth_register', null, '{"email": 5, "password": "short", "display_name": true}') -> 'fields',
  '{"email": "must be a string", "password": "must be at least 8 characters", "display_name": "must be a string"}',
  'registration names members of the wrong type and a short password in one answer');
select is(pg_temp.error_of('auth_login', null, '{"email": ["strict-a@example.com"], "password": 12345678}') -> 'fields',
  '{"email": "must be a string", "password": "must be a string"}', 'a login of the wrong types is 422, not a failed login');
select is(pg_temp.error_of('metrics_acknowledge', 'a', '{"version": 1, "metrics_computed_at": "now"}') -> 'fields',
  '{"metrics_computed_at": "must be a timestamp with an offset (RFC 3339, e.g. 2024-05-01T06:30:00Z) from 1900 to 2999"}',
  'a timestamp is RFC 3339, never "now"');

-- Dates: YYYY-MM-DD of the calendar, 1900 to 2999 -----------------------------------------------
select is((select array_agg(pg_temp.error_of('sessions_create', 'a', jsonb_build_object('session_date', d, 'status', 'in_progress'))
                              #>> '{fields,session_date}' order by d)
             from unnest(array['infinity', '-infinity', 'epoch', 'today', 'January 8, 1999', '294276-01-01', '2023-02-29',
                               '1899-12-31', '3000-01-01', '2024-1-5', '20240105', ' 2024-01-05']) as d),
  array_fill('must be a date (YYYY-MM-DD) from 1900-01-01 to 2999-12-31'::text, array[12]),
  'session_date refuses PostgreSQL''s free-form dates, impossible days and years outside 1900–2999');
select is(pg_temp.session_count('a'), 0::bigint, 'and no session was written');
select is((select array_agg(pg_temp.error_of('entry_create', 'a', jsonb_build_object('entry_date', d, 'name', 'Oats',
                              'calories', 300, 'source', 'manual')) #>> '{fields,entry_date}' order by d)
             from unnest(array['infinity', 'epoch', 'today', 'January 8, 1999', '294276-01-01']) as d),
  array_fill('must be a date (YYYY-MM-DD) from 1900-01-01 to 2999-12-31'::text, array[5]), 'so does entry_date');
select is(pg_temp.call('entry_create', 'a', '{"entry_date": "2024-02-29", "name": "Oats", "calories": 300, "source": "manual"}')
          ->> 'entry_date', '2024-02-29', 'a leap day is a date');
select is(pg_temp.error_of('entry_update', 'a', '{"entry_date": "infinity"}',
            jsonb_build_object('id', (select id from app.food_entries limit 1))) #>> '{fields,entry_date}',
  'must be a date (YYYY-MM-DD) from 1900-01-01 to 2999-12-31', 'and an edit of one');
select is((select array_agg(pg_temp.error_of('sessions_create', 'a', jsonb_build_object('started_at', t, 'status', 'in_progress'))
                              #>> '{fields,started_at}' order by t)
             from unnest(array['now', 'infinity', '2024-05-01 06:30:00+00', '2024-05-01T06:30:00', '2024-05-01T24:00:00Z',
                               '1899-12-31T23:00:00Z']) as t),
  array_fill('must be a timestamp with an offset (RFC 3339, e.g. 2024-05-01T06:30:00Z) from 1900 to 2999'::text, array[6]),
  'timestamps are RFC 3339 with an offset');
select is(pg_temp.call('sessions_create', 'a', '{"status": "in_progress", "started_at": "2024-05-01T06:30:00.25+02:00"}')
          ->> 'started_at', '2024-05-01T04:30:00.25+00:00', 'one with a fraction and an offset is read exactly');
select is(pg_temp.error_of('session_get', 'a', null, '{"id": "infinity"}') ->> 'code', 'session_not_found',
  'a path id that is not a UUID names no session: 404');
select is(pg_temp.error_of('analytics_e1rm', 'a', null, '{"exercise_id": "bench"}') -> 'fields', '{"exercise_id": "must be a UUID"}',
  'a query id that is not a UUID is a bad parameter, named');

-- A Liftbase document, read by the same readers
select is(pg_temp.call('import_liftbase', 'a', jsonb_build_object('format', 'liftbase-export', 'version', 1,
            'training_sessions', jsonb_build_array(jsonb_build_object('id', '77777777-7777-7777-7777-777777777777',
              'session_date', 'infinity', 'name', 'Forever', 'status', 'completed', 'started_at', 'epoch',
              'exercises', jsonb_build_array(jsonb_build_object('position', 1, 'exercise_name', 'Row',
                'sets', jsonb_build_array(jsonb_build_object('position', 1, 'reps', '5', 'weight_kg', 60)))))),
            'food_entries', jsonb_build_array(jsonb_build_object('id', '88888888-8888-8888-8888-888888888888',
              'entry_date', 'January 8, 1999', 'name', 'Oats', 'calories', 300, 'source', 'manual')),
            'profile', '[]'::jsonb)) -> 'errors',
  '[{"line": null, "message": "food_entries[0].entry_date: must be a date (YYYY-MM-DD) from 1900-01-01 to 2999-12-31"},
    {"line": null, "message": "profile: must be an object"},
    {"line": null, "message": "training_sessions[0].exercises[0].sets[0].reps: must be a whole number"},
    {"line": null, "message": "training_sessions[0].session_date: must be a date (YYYY-MM-DD) from 1900-01-01 to 2999-12-31"},
    {"line": null, "message": "training_sessions[0].started_at: must be a timestamp with an offset (RFC 3339, e.g. 2024-05-01T06:30:00Z) from 1900 to 2999"}]',
  'a Liftbase document names every value of the wrong kind by its path');
select is(pg_temp.session_count('a'), 1::bigint, 'and imports nothing (the one session is the one in progress above)');

-- Lists page by limit 1–200 and a working cursor --------------------------------------------------
select pg_temp.call('favorite_create', 'b', jsonb_build_object('name', 'Favorite ' || n, 'calories', n, 'protein_g', 1,
                                                               'carbs_g', 1, 'fat_g', 1))
  from generate_series(1, 60) as n;
select is(jsonb_array_length(pg_temp.call('favorites_list', 'b', null, '{"limit": "10"}') -> 'items'), 10,
  '60 favorites, ?limit=10: 10 come back');
select ok(pg_temp.call('favorites_list', 'b', null, '{"limit": "10"}') ->> 'next_cursor' is not null, 'with a next_cursor');
select is((select jsonb_agg(i order by i) from jsonb_array_elements(pg_temp.all_pages('favorites_list', 'b', '{"limit": "7"}')) as i),
          (select jsonb_agg(to_jsonb(id) order by to_jsonb(id)) from app.favorites),
  'following the cursors gives every favorite once (all made in one transaction: ties broken by id)');
select pg_temp.call('plan_create', 'b', jsonb_build_object('name', 'Plan ' || n, 'exercises',
         jsonb_build_array(jsonb_build_object('exercise_name', 'Barbell Squat', 'sets', 3, 'reps', 5))))
  from generate_series(1, 5) as n;
select pg_temp.call('plan_use', 'b', null, jsonb_build_object('id', (select id from app.plans where name = 'Plan 3')));
select is(pg_temp.all_pages('plans_list', 'b', '{"limit": "2"}') -> 0, (select to_jsonb(id) from app.plans where name = 'Plan 3'),
  'plans page by last use (the used one first)');
select is(jsonb_array_length(pg_temp.all_pages('plans_list', 'b', '{"limit": "2"}')), 5, 'and every plan once');
select pg_temp.call('custom_meal_create', 'b', jsonb_build_object('name', 'Meal ' || n, 'items',
         jsonb_build_array(jsonb_build_object('name', 'Rice', 'calories', 200, 'protein_g', 4, 'carbs_g', 44, 'fat_g', 1))))
  from generate_series(1, 5) as n;
select is(jsonb_array_length(pg_temp.all_pages('custom_meals_list', 'b', '{"limit": "3"}')), 5, 'custom meals page');
select pg_temp.call('entry_create', 'b', jsonb_build_object('entry_date', '2026-01-0' || (n % 3 + 1), 'name', 'Entry ' || n,
                                                            'calories', 100, 'source', 'manual'))
  from generate_series(1, 9) as n;
select is(jsonb_array_length(pg_temp.all_pages('entries_list', 'b', '{"limit": "4", "from": "2026-01-01", "to": "2026-01-31"}')), 9,
  'diary entries page');
select is((select array_agg(pg_temp.error_of(f, 'b', null, jsonb_build_object('limit', l)) -> 'fields' ->> 'limit' order by f, l)
             from unnest(array['favorites_list', 'plans_list', 'custom_meals_list', 'entries_list']) as f,
                  unnest(array['-5', '0', 'abc', '500']) as l),
  array_fill('must be a whole number from 1 to 200'::text, array[16]), 'a limit of -5, 0, abc or 500 is a 400 naming limit');
select is((select array_agg(pg_temp.error_of(f, 'b', null, jsonb_build_object('cursor', c)) ->> 'code' order by f, c)
             from unnest(array['favorites_list', 'plans_list', 'custom_meals_list', 'entries_list']) as f,
                  unnest(array['garbage', '00000000-0000-0000-0000-000000000000']) as c),
  array_fill('invalid_parameter'::text, array[8]), 'a cursor no list gave out is a 400, not an empty page');

-- A Strong file Liftbase wrote imports back -------------------------------------------------------
select pg_temp.call('sessions_create', 'b', '{"session_date": "2025-03-03", "exercises": [
  {"exercise_name": "Barbell Squat", "sets": [{"reps": 5, "weight_kg": 100}, {"reps": 5, "weight_kg": 102.5, "set_type": "warmup"}]}]}');
create temporary table strong_lines as
select n, replace(rtrim(l, E'\r\n'), ',', '|') as line
  from api.export_workouts_csv((select token from tokens where name = 'b'), null, '{}') with ordinality as x (l, n);
select is((select count(*) from strong_lines where array_length(string_to_array(line, '|'), 1) <> 15), 0::bigint,
  'every row of workouts.csv has the 15 fields of its header');
select is(pg_temp.call('import_strong', 'a', pg_temp.csv((select string_to_array(line, '|') from strong_lines where n = 1),
            variadic (select array_agg(line order by n) from strong_lines where n > 1))) - 'exercises',
  '{"imported": 2, "skipped_duplicates": 0, "skipped": [], "errors": [], "warnings": []}',
  'the workouts.csv of a session saved without a name imports back through /import/strong');
select is((select name from app.training_sessions where user_id = (select user_id from tokens where name = 'a')
                                                    and import_key is not null), null, 'as a session without a name');

-- The user's dates do not move with the server's TimeZone -----------------------------------------
-- Kiritimati is UTC+14 and Pago Pago UTC−11: their dates differ at every moment of the day.
set local timezone = 'Pacific/Kiritimati';
select pg_temp.call('settings_update', 'b', '{"timezone": "Pacific/Pago_Pago"}');
create temporary table pago_today as select (now() at time zone 'Pacific/Pago_Pago')::date as today;
select is((pg_temp.call('sessions_create', 'b', '{"exercises": [{"exercise_name": "Row", "sets": [{"reps": 5, "weight_kg": 60}]}]}')
           ->> 'session_date')::date, (select today from pago_today),
  'a session without a date is dated the user''s today, whatever the server''s zone');
select is(pg_temp.call('sessions_create', 'b', '{"started_at": "2026-03-08T23:30:00-11:00", "finished_at": "2026-03-09T00:30:00-11:00",
            "exercises": [{"exercise_name": "Row", "sets": [{"reps": 5, "weight_kg": 60}]}]}') ->> 'session_date',
  '2026-03-08', 'a session started late on the 8th in Pago Pago is of the 8th (Kiritimati was already on the 10th)');
select is((pg_temp.call('entry_create', 'b', '{"name": "Oats", "calories": 300, "source": "manual"}') ->> 'entry_date')::date,
  (select today from pago_today), 'a diary entry without a date is of the user''s today');
select is((pg_temp.call('nutrition_daily', 'b', null) ->> 'date')::date, (select today from pago_today),
  'GET /nutrition/daily is of the user''s today');
select is((select array_agg(d ->> 'date') from jsonb_array_elements(
             pg_temp.call('weekly_summary', 'b', null, '{"week_start": "2026-03-02"}') -> 'days') as d),
  array['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08'],
  'a week is its seven calendar days');
select is((select count(*) from api.export_json((select token from tokens where name = 'b'), null, '{}') as c
            where c ~ '"[0-9-]{10}T[0-9:.]+\+14:00"'), 0::bigint, 'the export writes no timestamp in the server''s zone');

-- What the fuzzer found the contract promises and SQL must keep: a required member given
-- as null is missing, and a member a route does not use is still refused in the wrong type.
select is(pg_temp.error_of('auth_password_forgot', 'a', '{"email": null}') -> 'fields', '{"email": "is required"}',
  'forgot with a null email is 422, not a silent 202');
select pg_temp.call('sessions_create', 'a', '{"session_date": "2024-05-02", "exercises": [{"exercise_name": "Squat", "sets": [{"reps": 5, "weight_kg": 100}]}]}');
select is(pg_temp.error_of('session_replace', 'a', '{"client_id": {}, "name": "Changed", "exercises": [{"exercise_name": "Squat", "sets": [{"reps": 5, "weight_kg": 100}]}]}',
                           jsonb_build_object('id', (select s.id from app.training_sessions as s where s.session_date = '2024-05-02'))) -> 'fields' -> 'client_id',
  '"must be a UUID"', 'a replace refuses a client_id of the wrong type, though it never reads one');
select is((select s.name from app.training_sessions as s where s.session_date = '2024-05-02'), null, 'and writes nothing');

select * from finish();
rollback;
