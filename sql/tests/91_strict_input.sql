-- Bad input never reaches a table and never fails as a 500: a request body is a JSON object
-- or nothing (app.request_body), whichever api function the statement calls. Run as the
-- API role.
begin;
\ir support/helpers.psql
select plan(10);

select pg_temp.sign_up('a', 'strict-a@example.com', 'strict a pass', 'Ann');
select pg_temp.sign_up('b', 'strict-b@example.com', 'strict b pass');

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
create function pg_temp.api_function_errors(p_body text) returns text[] language plpgsql as $$
declare
  v_function text;
  v_errors text[] := '{}';
  v_state text;
  v_detail text;
begin
  for v_function in select p.proname from pg_proc as p join pg_namespace as n on n.oid = p.pronamespace
                     where n.nspname = 'api' order by 1 loop
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
select * from finish();
rollback;
