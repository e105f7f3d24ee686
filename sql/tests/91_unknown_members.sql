-- A member a route does not take is a 422 unknown_field naming it by its path
-- (app.request_body with app.request_members, app_request_members.sql): at the top of a
-- body, inside a list's items, inside a nested object; a member not taken is not looked
-- into; the Liftbase import document and routes with no checked body are read as before.
begin;
\ir support/helpers.psql
select plan(14);

-- The DETAIL of app.request_body's error for p_text sent to p_function, or null when it takes it.
create function pg_temp.refusal(p_text text, p_function text) returns jsonb language plpgsql as $$
declare
  v_state text;
  v_detail text;
begin
  perform app.request_body(p_text, p_function);
  return null;
exception when others then
  get stacked diagnostics v_state = returned_sqlstate, v_detail = pg_exception_detail;
  return jsonb_build_object('state', v_state) || v_detail::jsonb;
end $$;

select is(app.request_body('{"calories": 120, "name": "Toast", "entry_date": "2026-03-02", "meal_type": "breakfast"}',
                           'entry_create'),
  '{"calories": 120, "name": "Toast", "entry_date": "2026-03-02", "meal_type": "breakfast"}',
  'a body of members the route takes is read as it came');
select is(pg_temp.refusal('{"calories": 120, "name": "Toast", "unknown_member": 5}', 'entry_create'),
  '{"state": "LB422", "code": "unknown_field", "fields": {"unknown_member": "is not a member this request takes"}}',
  'a member the route does not take is a 422 unknown_field naming it');
select is(pg_temp.refusal('{"meal_name": "lunch", "calories": 1, "micro_nutrients": {"iron_mg": 2}, "start_date": "x"}',
                          'entry_create') -> 'fields',
  '{"meal_name": "is not a member this request takes", "micro_nutrients": "is not a member this request takes", '
  '"start_date": "is not a member this request takes"}',
  'each one is named, and a member not taken is not looked into (micro_nutrients.iron_mg is not listed)');
select is(pg_temp.refusal('{"status": "completed", "exercises": [{"exercise_name": "Squat", "sets": '
                          '[{"reps": 5, "weight_kg": 100}, {"reps": 5, "weight": 100}]}]}', 'sessions_create') -> 'fields',
  '{"exercises[0].sets[1].weight": "is not a member this request takes"}',
  'a member of a list item is named by its path: a set''s weight where the route takes weight_kg');
select is(pg_temp.refusal('{"exercises": [{"exercise_name": "Squat", "sets": [], "rest": 90}]}', 'program_session_log')
            -> 'fields',
  '{"exercises[0].rest": "is not a member this request takes"}', 'a program''s logged session takes a session''s body');
select is(pg_temp.refusal('{"reminders": {"meals": {"enabled": true, "time": "08:00"}}}', 'settings_update') -> 'fields',
  '{"reminders.meals.time": "is not a member this request takes"}',
  'a member of a nested object is named by its path (the settings take reminders.meals.times)');
select is(pg_temp.refusal('{"name": "Oats", "items": [{"name": "Oats", "calories": 300, "serving": 1}]}',
                          'custom_meal_create') -> 'fields',
  '{"items[0].serving": "is not a member this request takes"}', 'a custom meal''s items are checked too');
select is(pg_temp.refusal('{"equipment_ids": ["barbell", "dumbbell"]}', 'equipment_select'), null,
  'the items of a list of values are no members');
select is(pg_temp.refusal('{"display_name": {"a": 1}}', 'me_update'), null,
  'an object where a value is taken is left to the member''s reader (it refuses it: must be a string)');
select is(pg_temp.refusal('{"email": "a@b.io", "password": "pw", "remember_me": true}', 'auth_login') -> 'fields',
  '{"remember_me": "is not a member this request takes"}', 'a route without a token checks its body too');
select is(pg_temp.refusal('{"format": "liftbase-export", "version": 1, "from_a_newer_version": []}', 'import_liftbase'),
  null, 'the Liftbase import document reads what it knows of a newer export and leaves the rest');
select is(app.request_members('import_strong'), null, 'a CSV import''s document is the HTTP layer''s, not checked');
select is(pg_temp.refusal('{"anything": 1}', 'me'), null, 'a route that takes no body ignores one');
select is(app.request_body('{"unknown_member": 5}'), '{"unknown_member": 5}',
  'the statement of a server from before the check (app.request_body of one argument) reads the body as it did');

select * from finish();
rollback;
