-- Round trip: an account exported (GET /export?format=json), imported into a fresh account
-- (POST /import/liftbase) and exported again gives the same document, apart from what
-- docs/export-format.md allows to differ: exported_at, user, import_runs and the integer ids
-- an import re-creates (body metrics, target snapshots, health metrics and the references
-- to them). The source has a program with a logged and a skipped session and rows imported
-- from Strong and Cronometer; after the move the program goes on where it stood and the
-- same Strong and Cronometer files are still recognised.
begin;
\ir support/helpers.psql
select plan(12);
\ir fixtures/full_account.psql

select pg_temp.sign_up('source', 'roundtrip-source@example.com', 'password-source', 'Source');
select pg_temp.sign_up('copy', 'roundtrip-copy@example.com', 'password-copy', 'Copy');
select pg_temp.sign_up('third', 'roundtrip-third@example.com', 'password-third', 'Third');
select pg_temp.fill_account(user_id, 'RT') from tokens where name = 'source';

create temporary table files (format text primary key, body jsonb);
insert into files values
  ('strong', pg_temp.csv(array['Date', 'Workout Name', 'Duration', 'Exercise Name', 'Set Order', 'Weight', 'Reps', 'Distance',
                               'Seconds', 'Notes', 'Workout Notes', 'RPE'],
     '2024-02-01 18:00:00|Legs|50m|Barbell Squat|1|90|5|0|0|||8',
     '2024-02-01 18:00:00|Legs|50m|Barbell Squat|2|90|5|0|0|||8.5')),
  ('cronometer', pg_temp.csv(array['Day', 'Group', 'Food Name', 'Energy (kcal)', 'Protein (g)', 'Carbs (g)', 'Fat (g)'],
     '2024-02-01|Breakfast|Oatmeal|170.55|5.92|30.47|2.93',
     '2024-02-01|Breakfast|Oatmeal|170.55|5.92|30.47|2.93'));
grant select on files to liftbase_api;

-- The document without what may differ after a round trip. Progress photos are listed, not
-- imported: their images travel in an archive of their own (docs/photos.md).
create function pg_temp.comparable(p_document jsonb) returns jsonb language sql as $$
  select p_document - 'exported_at' - 'user' - 'import_runs' - 'progress_photos'
    || jsonb_build_object(
         'body_metrics', (select coalesce(jsonb_agg(b - 'id' order by n), '[]')
                            from jsonb_array_elements(p_document -> 'body_metrics') with ordinality as x (b, n)),
         'body_measurements', (select coalesce(jsonb_agg(b - 'id' order by n), '[]')
                                 from jsonb_array_elements(p_document -> 'body_measurements') with ordinality as x (b, n)),
         'water_entries', (select coalesce(jsonb_agg(w - 'id' order by n), '[]')
                             from jsonb_array_elements(p_document -> 'water_entries') with ordinality as x (w, n)),
         'target_snapshots', (select coalesce(jsonb_agg(t - 'id' order by n), '[]')
                                from jsonb_array_elements(p_document -> 'target_snapshots') with ordinality as x (t, n)),
         'health_metrics', (select coalesce(jsonb_agg(h - 'id' - 'snapshot_id' order by n), '[]')
                              from jsonb_array_elements(p_document -> 'health_metrics') with ordinality as x (h, n)),
         'metrics_acknowledgements', (select coalesce(jsonb_agg(a - 'health_metric_id' order by n), '[]')
                                        from jsonb_array_elements(p_document -> 'metrics_acknowledgements') with ordinality as x (a, n)))
$$;

set local role liftbase_api;
select is(pg_temp.call('import_strong', 'source', (select body from files where format = 'strong')) -> 'imported', '2',
  'the source imports a Strong workout');
select is(pg_temp.call('import_cronometer', 'source', (select body from files where format = 'cronometer')) -> 'imported', '2',
  'and Cronometer servings');

create temporary table documents as select pg_temp.exported('source') as original;
select is(
  (select jsonb_build_object(
            'sessions', jsonb_array_length(original -> 'training_sessions'),
            'sessions_with_import_key', jsonb_path_query_array(original, '$.training_sessions[*] ? (@.import_key != null).name'),
            'entries_with_import_key', jsonb_array_length(jsonb_path_query_array(original, '$.food_entries[*] ? (@.import_key != null)')),
            'programs', jsonb_array_length(original -> 'programs'),
            'program_sessions_logged', jsonb_path_query_array(original,
              '$.programs[*].sessions[*] ? (@.training_session_id != null).status'),
            'program_sessions_skipped', jsonb_array_length(jsonb_path_query_array(original,
              '$.programs[*].sessions[*] ? (@.status == "skipped" && @.successor_id != null)')),
            'loads_in_state', jsonb_array_length(jsonb_path_query_array(original,
              '$.programs[*].exercise_state[*] ? (@.load_kg != null)')))
     from documents),
  '{"sessions": 4, "sessions_with_import_key": ["Legs"], "entries_with_import_key": 2, "programs": 1,
    "program_sessions_logged": ["completed"], "program_sessions_skipped": 1, "loads_in_state": 2}',
  'the source has sessions, diary rows, import keys and a program with a logged and a skipped session to carry');
select is((select pg_temp.call('import_liftbase', 'copy', original) -> 'errors' from documents),
  '[]'::jsonb, 'the export imports without problems');
select is((select pg_temp.comparable(pg_temp.exported('copy'))),
          (select pg_temp.comparable(original) from documents),
  'exporting the imported account gives the original document');
select is((select pg_temp.call('import_liftbase', 'copy', original) -> 'imported' from documents),
  '0'::jsonb, 'importing it again adds nothing');

-- The program goes on where it stood: same week, phase and next session, same targets.
select is(pg_temp.call('program_get', 'copy', null), pg_temp.call('program_get', 'source', null),
  'the imported program answers GET /program as the original');
select is(pg_temp.call('program_next', 'copy', null), pg_temp.call('program_next', 'source', null),
  'and GET /program/next with the same session and loads');
select is((select jsonb_agg(jsonb_build_object('exercise', e ->> 'exercise_name', 'weight_kg', e #> '{sets,0,weight_kg}')
                            order by e ->> 'exercise_name')
             from jsonb_array_elements(pg_temp.call('program_next', 'copy', null) -> 'exercises') as e
            where e ->> 'exercise_name' in ('Barbell Squat', 'Barbell Bench Press')),
  '[{"exercise": "Barbell Bench Press", "weight_kg": 80.0}, {"exercise": "Barbell Squat", "weight_kg": 105}]',
  'the next targets use the carried state: squat 100 + 5 kg after a hit, bench press held (80.5 kg on 2.5 kg steps) after a miss');

-- The import keys came along: the same files add nothing to the moved account.
select is(pg_temp.call('import_strong', 'copy', (select body from files where format = 'strong')) - 'exercises',
  '{"imported": 0, "skipped_duplicates": 2, "skipped": [], "errors": [], "warnings": []}', 'the Strong file imported before the move is recognised after it');
select is(pg_temp.call('import_cronometer', 'copy', (select body from files where format = 'cronometer')),
  '{"imported": 0, "skipped_duplicates": 2, "skipped": [], "errors": [], "warnings": []}', 'so are the Cronometer servings');

-- The other way round: the Strong workout already imported here under another id is the
-- same workout, so the document's copy of it is a duplicate.
select is(
  (select jsonb_build_object('strong', pg_temp.call('import_strong', 'third', (select body from files where format = 'strong')) -> 'imported',
                             'document', pg_temp.call('import_liftbase', 'third', original) - 'imported')
     from documents),
  '{"strong": 2, "document": {"skipped_duplicates": 1, "skipped": [], "errors": [], "warnings": []}}',
  'a document''s session whose import key the account already holds is skipped as a duplicate');

select * from finish();
rollback;
