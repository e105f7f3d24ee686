-- Export: the JSON document holds every row the user owns (checked table by table from
-- the catalog, so a new user-owned table fails here until it is exported or excluded
-- with a reason), nothing of another user, is deterministic with its members in the
-- documented order (user and settings included), and the CSV files have their exact
-- layouts and RFC 4180 quoting.
begin;
\ir support/helpers.psql
select plan(21);

\ir fixtures/full_account.psql

select pg_temp.sign_up('a', 'export-a@example.com', 'password-a', 'Export A');
select pg_temp.sign_up('b', 'export-b@example.com', 'password-b', 'Export B');
select pg_temp.fill_account(user_id, 'AAA-only') from tokens where name = 'a';
select pg_temp.fill_account(user_id, 'BBB-only') from tokens where name = 'b';

-- Where each user-owned table's rows are in the document: a JSON path matching one item
-- per row. Tables with user_id left out of the export are listed with the reason.
create temporary table export_paths (table_name text primary key, path jsonpath, excluded_because text);
insert into export_paths values
  ('app.user_settings', '$.settings', null),
  ('app.user_profiles', '$.profile ? (@ != null)', null),
  ('app.goals', '$.goals ? (@ != null)', null),
  ('app.target_overrides', '$.target_override ? (@ != null)', null),
  ('app.body_metrics', '$.body_metrics[*]', null),
  ('app.measurement_types', '$.measurement_types[*]', null),
  ('app.body_measurements', '$.body_measurements[*]', null),
  ('app.water_entries', '$.water_entries[*]', null),
  ('app.health_samples', '$.health_samples[*]', null),
  ('app.progress_photos', '$.progress_photos[*]', null),
  ('app.progress_photo_images', null, 'the images leave through their archive (GET /progress-photos/archive), which keeps the export within an import''s size'),
  ('app.health_days', null, 'derived from the health samples, which the export holds: each day''s value per type'),
  ('app.target_snapshots', '$.target_snapshots[*]', null),
  ('app.health_metrics', '$.health_metrics[*]', null),
  ('app.metrics_acknowledgements', '$.metrics_acknowledgements[*]', null),
  ('app.user_equipment', '$.equipment_selection[*]', null),
  ('app.user_exclusions', '$.exclusions ? (@ != null)', null),
  ('app.user_setup', '$.setup ? (@ != null)', null),
  ('app.user_exercises', '$.user_exercises[*]', null),
  ('app.plans', '$.plans[*]', null),
  ('app.plan_exercises', '$.plans[*].exercises[*]', null),
  ('app.training_sessions', '$.training_sessions[*]', null),
  ('app.session_exercises', '$.training_sessions[*].exercises[*]', null),
  ('app.session_sets', '$.training_sessions[*].exercises[*].sets[*]', null),
  ('app.user_foods', '$.user_foods[*]', null),
  ('app.favorites', '$.favorites[*]', null),
  ('app.custom_meals', '$.custom_meals[*]', null),
  ('app.custom_meal_items', '$.custom_meals[*].items[*]', null),
  ('app.food_entries', '$.food_entries[*]', null),
  ('app.import_runs', '$.import_runs[*]', null),
  ('app.programs', '$.programs[*]', null),
  ('app.program_phases', '$.programs[*].phases[*]', null),
  ('app.program_sessions', '$.programs[*].sessions[*]', null),
  ('app.program_exercise_state', '$.programs[*].exercise_state[*]', null),
  ('app.body_weight_days', null, 'derived from the weigh-ins (body_metrics), which the export holds: daily and trend weight'),
  ('app.sync_state', null, 'the change counter of the change feed: bookkeeping of this server, rebuilt by any import'),
  ('app.sync_changes', null, 'the change feed: versions of the rows the export holds, and tombstones of deleted ones'),
  ('app.food_usage', null, 'derived from the diary (food_entries), which the export holds: foods logged, for search'),
  ('app.exercise_records', null, 'derived from the sessions, which the export holds: personal records per exercise'),
  ('app.exercise_name_aliases', null, 'names merged into another exercise: the merge moved their rows, which the export holds under the exercise kept; the names only steer this server''s later imports'),
  ('auth.sessions', null, 'session tokens are credentials of this server, not user data'),
  ('auth.password_resets', null, 'reset tokens are credentials of this server, not user data'),
  ('auth.email_verifications', null, 'verification tokens are credentials of this server, not user data'),
  ('auth.token_families', null, 'refresh tokens are credentials of this server, not user data'),
  ('auth.api_keys', null, 'API keys are credentials of this server, not user data'),
  ('auth.security_events', null, 'this server''s record of access to the account, not data the user entered'),
  ('auth.totp_factors', null, 'a two-factor secret is a credential of this server, not user data'),
  ('auth.recovery_codes', null, 'recovery codes are credentials of this server, not user data'),
  ('auth.login_challenges', null, 'a login''s second step, minutes long: a credential, not user data'),
  ('auth.external_identities', null, 'identities at this server''s sign-in providers: signed in again with the provider on another server'),
  ('app.webhook_queue', null, 'webhook events on their way to the outbox (Citus only), deliveries are not exported'),
  ('app.webhook_subscriptions', null, 'endpoints with this server''s signing secrets: credentials, subscribed again on another server'),
  ('auth.outbox', null, 'messages queued for delivery to the user, not data the user entered');

create temporary table tables_with_user_id as
select format('%I.%I', n.nspname, c.relname) as table_name
  from pg_class as c
  join pg_namespace as n on n.oid = c.relnamespace
 where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname !~ '^pg_'
   and c.relkind in ('r', 'p')
   and exists (select from pg_attribute as a where a.attrelid = c.oid and a.attname = 'user_id' and not a.attisdropped);

create function pg_temp.export_text(p_token_name text, p_function text default 'export_json', p_args jsonb default '{}')
returns text language plpgsql as $$
declare
  v_text text;
begin
  perform set_config('liftbase.user_id', '', true);
  execute format('select string_agg(chunk, %L order by n) from api.%I($1, null, $2) with ordinality as c (chunk, n)', '', p_function)
    into v_text using (select token from tokens where name = p_token_name), p_args;
  return v_text;
end $$;

-- The member names of a JSON object as they come in the text, depth first, nested ones as
-- parent.child (json, not jsonb, keeps the order of the text).
create function pg_temp.member_names(p_object json, p_prefix text default '') returns text[]
language plpgsql immutable as $$
declare
  v_names text[] := '{}';
  v_key text;
  v_value json;
begin
  for v_key, v_value in select e.key, e.value from json_each(p_object) with ordinality as e (key, value, n) order by e.n loop
    v_names := v_names || (p_prefix || v_key);
    if json_typeof(v_value) = 'object' then
      v_names := v_names || pg_temp.member_names(v_value, p_prefix || v_key || '.');
    end if;
  end loop;
  return v_names;
end $$;

create temporary table documents (name text primary key, doc jsonb, body text);
grant all on documents to liftbase_api;
set local role liftbase_api;
insert into documents select 'a', pg_temp.export_text('a')::jsonb, pg_temp.export_text('a');
insert into documents select 'a again', null, pg_temp.export_text('a');
insert into documents select 'b', pg_temp.export_text('b')::jsonb, null;
reset role;

select is(
  (select array_agg(t.table_name order by t.table_name) from tables_with_user_id as t
    where not exists (select from export_paths as p where p.table_name = t.table_name)),
  null,
  'every table with a user_id is exported or excluded with a reason (docs/export-format.md)');

select is(
  (select array_agg(p.table_name order by p.table_name) from export_paths as p
    where p.path is not null and pg_temp.rows_of(p.table_name, (select user_id from tokens where name = 'a')) = 0),
  null,
  'the fixture gives the account rows in every exported table');

select is(
  (select array_agg(format('%s: %s rows, %s exported', p.table_name,
                           pg_temp.rows_of(p.table_name, (select user_id from tokens where name = 'a')),
                           (select count(*) from jsonb_path_query(d.doc, p.path))) order by p.table_name)
     from export_paths as p, documents as d
    where d.name = 'a' and p.path is not null
      and pg_temp.rows_of(p.table_name, (select user_id from tokens where name = 'a'))
          <> (select count(*) from jsonb_path_query(d.doc, p.path))),
  null,
  'the document holds one item per row of the user, table by table');

select ok((select body from documents where name = 'a') !~ 'BBB-only'
          and (select doc from documents where name = 'b')::text !~ 'AAA-only',
  'nothing of another user is in a document');
select ok(not exists (
    select from app.training_sessions as t, documents as d
     where d.name = 'a' and t.user_id = (select user_id from tokens where name = 'b') and d.body like '%' || t.id || '%'),
  'no id of another user is in a document');

select is((select doc -> 'user' ->> 'email' from documents where name = 'a'), 'export-a@example.com', 'the document names its account');
select is((select jsonb_build_object('format', doc -> 'format', 'version', doc -> 'version') from documents where name = 'a'),
  '{"format": "liftbase-export", "version": 2}', 'format and version head the document');
select is((select array_agg(k order by n) from documents as d, json_object_keys(d.body::json) with ordinality as o (k, n) where d.name = 'a'),
  array['format', 'version', 'exported_at', 'user', 'settings', 'profile', 'goals', 'target_override', 'body_metrics',
        'measurement_types', 'body_measurements', 'target_snapshots', 'health_metrics', 'metrics_acknowledgements', 'equipment_selection', 'exclusions', 'setup',
        'user_exercises', 'plans', 'user_foods', 'favorites', 'custom_meals', 'import_runs', 'programs',
        'training_sessions', 'food_entries', 'water_entries', 'health_samples', 'progress_photos'],
  'members come in the documented order, the long arrays last');
select is((select pg_temp.member_names(body::json -> 'user') from documents where name = 'a'),
  array['id', 'email', 'created_at', 'display_name', 'email_verified'],
  'the user''s members come in the documented order');
select is((select pg_temp.member_names(body::json -> 'settings') from documents where name = 'a'),
  array['timezone', 'reminders', 'reminders.meals', 'reminders.meals.times', 'reminders.meals.enabled',
        'reminders.workouts', 'reminders.workouts.days', 'reminders.workouts.time', 'reminders.workouts.enabled',
        'health_sync', 'health_sync.google_fit', 'health_sync.apple_health', 'health_sync.health_connect', 'unit_system',
        'biometric_enabled'],
  'the settings'' members come in the documented order, nested ones too');
select is(
  (select regexp_replace(body, '"exported_at":"[^"]*"', '') from documents where name = 'a again'),
  (select regexp_replace(body, '"exported_at":"[^"]*"', '') from documents where name = 'a'),
  'two exports of the same rows differ only in exported_at');
select is(
  (select (doc #> '{training_sessions,0}') - 'id' - 'created_at' from documents where name = 'a')
    #- '{exercises,0,exercise_id}',
  ('{"client_id": null, "import_key": null, "session_date": "2024-03-04", "name": "Push, \"heavy\" AAA-only", "notes": "felt good\nslept 8h",
    "status": "completed", "started_at": "2024-03-04T17:30:00+00:00", "finished_at": "2024-03-04T18:35:00+00:00",
    "exercises": [
      {"position": 1, "user_exercise_id": null, "exercise_name": "Barbell Bench Press", "notes": "pause, 1 s", "group": null, "group_rest_seconds": null,
       "sets": [{"position": 1, "reps": 10, "weight_kg": 40, "rpe": null, "rir": null, "set_type": "warmup", "tempo": null, "rest_seconds": null, "duration_seconds": null, "distance_m": null, "assistance_kg": null},
                {"position": 2, "reps": 5, "weight_kg": 80.5, "rpe": 8, "rir": null, "set_type": "working", "tempo": null, "rest_seconds": null, "duration_seconds": null, "distance_m": null, "assistance_kg": null},
                {"position": 3, "reps": 5, "weight_kg": 80.5, "rpe": 9.5, "rir": null, "set_type": "working", "tempo": null, "rest_seconds": null, "duration_seconds": null, "distance_m": null, "assistance_kg": null},
                {"position": 4, "reps": 12, "weight_kg": 60, "rpe": null, "rir": null, "set_type": "dropset", "tempo": null, "rest_seconds": null, "duration_seconds": null, "distance_m": null, "assistance_kg": null}]},
      {"position": 2, "exercise_id": null, "user_exercise_id": "' || (select id from app.user_exercises where name = 'Sled Push AAA-only') || '",
       "exercise_name": "Sled Push AAA-only", "notes": null, "group": null, "group_rest_seconds": null,
       "sets": [{"position": 1, "reps": 20, "weight_kg": 100, "rpe": null, "rir": null, "set_type": "working", "tempo": null, "rest_seconds": null, "duration_seconds": null, "distance_m": null, "assistance_kg": null}]}]}')::jsonb,
  'a session carries its exercises and sets in order, timestamps in UTC');

-- The fixture's program: full body 3 days a week for 7 weeks (21 slots), the first logged,
-- the second skipped (a 'skipped' slot left behind, the workout shifted to slot 3: 22 slots).
select is(
  (select jsonb_agg(jsonb_build_object('slot', s -> 'slot', 'status', s -> 'status', 'shifted', s -> 'shifted',
                                       'successor', (select x -> 'slot' from jsonb_array_elements(d.doc #> '{programs,0,sessions}') as x
                                                      where x -> 'id' = s -> 'successor_id'),
                                       'logged_on', (select t -> 'session_date' from jsonb_array_elements(d.doc -> 'training_sessions') as t
                                                      where t -> 'id' = s -> 'training_session_id'),
                                       'done', s -> 'done_at' <> 'null') order by n)
     from documents as d, jsonb_array_elements(d.doc #> '{programs,0,sessions}') with ordinality as x (s, n)
    where d.name = 'a' and n <= 4),
  '[{"slot": 1, "status": "completed", "shifted": 0, "successor": null, "logged_on": "2024-03-11", "done": true},
    {"slot": 2, "status": "skipped", "shifted": 0, "successor": 3, "logged_on": null, "done": true},
    {"slot": 3, "status": "planned", "shifted": 1, "successor": null, "logged_on": null, "done": false},
    {"slot": 4, "status": "planned", "shifted": 0, "successor": null, "logged_on": null, "done": false}]',
  'a program''s sessions come by slot, with the logged workout and the skip''s successor as ids of the document');
-- Loads by hand: the squat had no history, 3 × 5 at 100 kg hit the 5 reps → 100 + 5 (lower
-- body) = 105 kg; the bench press started at the 80.5 kg × 5 of the history and missed
-- (5, 4 reps) → holds with one miss. Row and leg raise follow double progression (no reps
-- stored until logged), the overhead press is a main lift at 5 reps with no load yet.
select is(
  (select jsonb_agg(jsonb_build_object('exercise', e.name, 'load_kg', x -> 'load_kg', 'reps', x -> 'reps', 'misses', x -> 'misses')
                    order by n)
     from documents as d, jsonb_array_elements(d.doc #> '{programs,0,exercise_state}') with ordinality as y (x, n)
     join app.exercises as e on e.id = (x ->> 'exercise_id')::uuid
    where d.name = 'a')
  || (select jsonb_build_array(jsonb_array_length(doc #> '{programs,0,sessions}'), jsonb_array_length(doc #> '{programs,0,phases}'),
                               doc #> '{programs,0,phases,1,phase}')
        from documents where name = 'a'),
  '[{"exercise": "Barbell Bench Press", "load_kg": 80.5, "reps": [5], "misses": 1},
    {"exercise": "Barbell Row", "load_kg": null, "reps": [], "misses": 0},
    {"exercise": "Barbell Squat", "load_kg": 105, "reps": [5], "misses": 0},
    {"exercise": "Hanging Leg Raise", "load_kg": null, "reps": [], "misses": 0},
    {"exercise": "Overhead Press", "load_kg": null, "reps": [5], "misses": 0},
    22, 2, "deload"]',
  'the progression state by exercise name, its loads as the program rules left them; phases and slots all there');

select is(pg_temp.error_of('export_json', 'a', null, '{"format": "xml"}') ->> 'state', 'LB400', 'an unknown format is a bad parameter');
select is(pg_temp.error_of('export_json', 'nobody', null, '{}') ->> 'state', 'LB401', 'the export needs a session');
select is(pg_temp.error_of('export_workouts_csv', 'nobody', null, '{}') ->> 'state', 'LB401', 'so do the CSV files');

-- CSV ------------------------------------------------------------------------------------
-- 17:30 UTC is 18:30 in Berlin; 65 minutes; the in-progress session is not a workout yet;
-- the program's logged workout follows (the template's name, 17:00 UTC, one hour).
select is(pg_temp.export_text('a', 'export_workouts_csv'),
  E'Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE,Assistance,Superset,Superset Rest Seconds\r\n' ||
  E'2024-03-04 18:30:00,"Push, ""heavy"" AAA-only",1h 5m,Barbell Bench Press,W,40,10,0,0,"pause, 1 s","felt good\nslept 8h",,,,\r\n' ||
  E'2024-03-04 18:30:00,"Push, ""heavy"" AAA-only",1h 5m,Barbell Bench Press,1,80.5,5,0,0,"pause, 1 s","felt good\nslept 8h",8,,,\r\n' ||
  E'2024-03-04 18:30:00,"Push, ""heavy"" AAA-only",1h 5m,Barbell Bench Press,2,80.5,5,0,0,"pause, 1 s","felt good\nslept 8h",9.5,,,\r\n' ||
  E'2024-03-04 18:30:00,"Push, ""heavy"" AAA-only",1h 5m,Barbell Bench Press,D,60,12,0,0,"pause, 1 s","felt good\nslept 8h",,,,\r\n' ||
  E'2024-03-04 18:30:00,"Push, ""heavy"" AAA-only",1h 5m,Sled Push AAA-only,1,100,20,0,0,,"felt good\nslept 8h",,,,\r\n' ||
  E'2024-03-11 18:00:00,Full body,1h,Barbell Squat,1,100,5,0,0,,,,,,\r\n' ||
  E'2024-03-11 18:00:00,Full body,1h,Barbell Squat,2,100,5,0,0,,,,,,\r\n' ||
  E'2024-03-11 18:00:00,Full body,1h,Barbell Squat,3,100,5,0,0,,,,,,\r\n' ||
  E'2024-03-11 18:00:00,Full body,1h,Barbell Bench Press,1,80,5,0,0,,,,,,\r\n' ||
  E'2024-03-11 18:00:00,Full body,1h,Barbell Bench Press,2,80,4,0,0,,,,,,\r\n',
  'workouts.csv: Strong''s header, one row per set, W/D for warm-ups and drop sets, quoting of commas, quotes and newlines');

select is(pg_temp.export_text('a', 'export_nutrition_csv'),
  E'Date,Meal,Name,Calories,Protein (g),Carbs (g),Fat (g),Servings,Source\r\n' ||
  E'2024-03-04,breakfast,"Oats, ""rolled"" AAA-only",370,13,60,7,1,favorite\r\n' ||
  E'2024-03-04,lunch,Breakfast AAA-only,249,9.9,34.8,7.1,,manual\r\n',
  'nutrition.csv: header and one row per diary entry');

select is(pg_temp.export_text('a', 'export_body_metrics_csv'),
  E'Date,Time,Weight (kg),Body Fat (%),Height (cm)\r\n' ||
  E'2024-03-01,08:00:00,70.5,24,\r\n' ||
  E'2024-03-08,08:00:00,70.1,,168\r\n',
  'body_metrics.csv: header and one row per entry, in the user''s time zone');

select is(app.csv_row('plain', 'a,b', 'say "hi"', E'two\nlines', E'cr\r', null, ''),
  E'plain,"a,b","say ""hi""","two\nlines","cr\r",,\r\n', 'RFC 4180 quoting: only fields that need it');

select * from finish();
rollback;
