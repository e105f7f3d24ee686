-- Health samples (docs/health.md): a batch upserts by the platform's sample id, takes the
-- platform's deletions, leaves out (and names) what it cannot take, converts units, and
-- computes each touched day again: two sources of steps are not added up, heart rate is a
-- mean, weight the day's last, sleep counts on the morning it ends.
begin;
\ir support/helpers.psql
select plan(24);

select pg_temp.sign_up('a', 'health-a@example.com', 'health a password');
select pg_temp.sign_up('b', 'health-b@example.com', 'health b password');
set local role liftbase_api;
select pg_temp.call('settings_update', 'a', '{"timezone": "Europe/Berlin"}');

create temporary table answers (key text primary key, answer jsonb);
grant all on answers to liftbase_api;
create function pg_temp.day_of(p_type text, p_day date) returns jsonb language sql as $$
  select jsonb_build_object('value', d.value, 'source', d.source, 'samples', d.samples)
    from app.health_days as d where d.type = p_type::app.health_sample_type and d.day = p_day
$$;

-- A phone and a watch both count the morning's steps; a second hour on the phone.
insert into answers select 'first', pg_temp.call('health_samples_sync', 'a', '{"platform": "apple_health", "samples": [
  {"sample_id": "p1", "type": "steps", "value": 4000, "unit": "count", "start": "2024-05-01T06:00:00Z", "end": "2024-05-01T07:00:00Z", "source_app": "Health", "device": "iPhone"},
  {"sample_id": "w1", "type": "steps", "value": 3500, "unit": "count", "start": "2024-05-01T06:00:00Z", "end": "2024-05-01T07:00:00Z", "source_app": "Health", "device": "Apple Watch"},
  {"sample_id": "p2", "type": "steps", "value": 1000, "unit": "count", "start": "2024-05-01T16:00:00Z", "end": "2024-05-01T17:00:00Z", "source_app": "Health", "device": "iPhone"},
  {"sample_id": "e1", "type": "active_energy", "value": 418.4, "unit": "kJ", "start": "2024-05-01T06:00:00Z", "end": "2024-05-01T07:00:00Z"},
  {"sample_id": "s1", "type": "sleep", "start": "2024-04-30T21:30:00Z", "end": "2024-05-01T04:30:00Z", "source_app": "Sleep Cycle"},
  {"sample_id": "h1", "type": "resting_heart_rate", "value": 52, "unit": "bpm", "start": "2024-05-01T05:00:00Z", "end": "2024-05-01T05:00:00Z"},
  {"sample_id": "h2", "type": "resting_heart_rate", "value": 56, "unit": "count/min", "start": "2024-05-01T05:00:00Z", "end": "2024-05-01T05:00:00Z", "device": "Oura"},
  {"sample_id": "k1", "type": "weight", "value": 180, "unit": "lb", "start": "2024-05-01T05:00:00Z", "end": "2024-05-01T05:00:00Z"},
  {"sample_id": "k2", "type": "weight", "value": 81.2, "unit": "kg", "start": "2024-05-01T18:00:00Z", "end": "2024-05-01T18:00:00Z"},
  {"sample_id": "x1", "type": "steps", "value": 10, "unit": "kg", "start": "2024-05-01T06:00:00Z", "end": "2024-05-01T07:00:00Z"},
  {"sample_id": "x2", "type": "blood_glucose", "value": 5, "unit": "mmol/L", "start": "2024-05-01T06:00:00Z", "end": "2024-05-01T07:00:00Z"},
  {"sample_id": "x3", "type": "resting_heart_rate", "value": 400, "unit": "bpm", "start": "2024-05-01T06:00:00Z", "end": "2024-05-01T07:00:00Z"}]}');
select is((select answer - 'rejected' from answers where key = 'first'), '{"new": 9, "changed": 0, "unchanged": 0, "deleted": 0}',
  'the samples it can take are written');
select is((select jsonb_agg(r -> 'index' order by (r ->> 'index')::integer) from answers, jsonb_array_elements(answer -> 'rejected') as r
            where key = 'first'), '[9, 10, 11]', 'and the others are named by their place');
select is((select answer -> 'rejected' -> 0 from answers where key = 'first'),
  '{"index": 9, "sample_id": "x1", "problem": {"unit": "must be count for steps"}}', 'with what keeps each out');

select is((select answer -> 'rejected' -> 1 -> 'problem' from answers where key = 'first'),
  '{"type": "must be one of steps, active_energy, resting_energy, sleep, resting_heart_rate, heart_rate_variability, weight, body_fat"}',
  'a type this server does not keep is left out too');
-- A malformed sample is a client's mistake: the batch is refused, naming it.
select is(pg_temp.error_of('health_samples_sync', 'a', '{"platform": "apple_health", "samples": [
  {"sample_id": "ok", "type": "steps", "value": 1, "unit": "count", "start": "2024-05-01T06:00:00Z", "end": "2024-05-01T07:00:00Z"},
  [null], {"sample_id": 7, "type": "steps", "start": "yesterday", "end": "2024-05-01T07:00:00Z", "value": "many"}]}') -> 'fields',
  '{"samples[1]": "must be an object", "samples[2].sample_id": "must be a string", "samples[2].start": "must be a timestamp with an offset (RFC 3339, e.g. 2024-05-01T06:30:00Z) from 1900 to 2999",
    "samples[2].value": "must be a number"}',
  'a malformed sample refuses the batch, named by its place and member');

select is(pg_temp.day_of('steps', '2024-05-01'), '{"value": 5000, "source": "Health / iPhone", "samples": 2}',
  'steps: the source with the most that day, alone (not the watch''s added to the phone''s)');
select is(pg_temp.day_of('active_energy', '2024-05-01') ->> 'value', '100', 'kJ are kcal × 4.184');
select is(pg_temp.day_of('sleep', '2024-05-01') ->> 'value', '420',
  'a night without a value is as long as it lasted, and counts on the morning after');
select is(pg_temp.day_of('resting_heart_rate', '2024-05-01'), '{"value": 54.0, "source": "all", "samples": 2}',
  'resting heart rate: the day''s mean over every source');
select is(pg_temp.day_of('weight', '2024-05-01') ->> 'value', '81.2', 'weight: the day''s last');

-- Of a sample id repeated in a batch the last one counts, also when it is left out.
select is(pg_temp.call('health_samples_sync', 'a', '{"platform": "apple_health", "samples": [
  {"sample_id": "twice", "type": "steps", "value": 10, "unit": "count", "start": "2024-05-02T06:00:00Z", "end": "2024-05-02T07:00:00Z"},
  {"sample_id": "twice", "type": "steps", "value": 10, "unit": "kg", "start": "2024-05-02T06:00:00Z", "end": "2024-05-02T07:00:00Z"}]}')
    - 'rejected', '{"new": 0, "changed": 0, "unchanged": 0, "deleted": 0}', 'the last of a repeated sample id counts');

-- The same batch again changes nothing; a corrected sample is changed, its day computed again.
select is(pg_temp.call('health_samples_sync', 'a', '{"platform": "apple_health", "samples": [
  {"sample_id": "p1", "type": "steps", "value": 4000, "unit": "count", "start": "2024-05-01T06:00:00Z", "end": "2024-05-01T07:00:00Z", "source_app": "Health", "device": "iPhone"}]}') - 'rejected',
  '{"new": 0, "changed": 0, "unchanged": 1, "deleted": 0}', 'a sample as held is left');
select is(pg_temp.call('health_samples_sync', 'a', '{"platform": "apple_health", "samples": [
  {"sample_id": "p1", "type": "steps", "value": 2000, "unit": "count", "start": "2024-05-01T06:00:00Z", "end": "2024-05-01T07:00:00Z", "source_app": "Health", "device": "iPhone"}]}') ->> 'changed',
  '1', 'a changed sample is updated by its id');
select is(pg_temp.day_of('steps', '2024-05-01'), '{"value": 3500, "source": "Health / Apple Watch", "samples": 1}',
  'and the day follows: now the watch has the most');

-- The platform's deletions leave the samples and their days.
select is(pg_temp.call('health_samples_sync', 'a', '{"platform": "apple_health", "deleted": ["w1", "k2", "no-such-sample"]}') ->> 'deleted',
  '2', 'deletions by sample id');
select is(pg_temp.day_of('steps', '2024-05-01') ->> 'value', '3000', 'the day without the deleted samples');
select is(pg_temp.day_of('weight', '2024-05-01') ->> 'value', '81.6466', 'the weight left: 180 lb in kg');
select is(pg_temp.call('health_samples_sync', 'a', '{"platform": "health_connect", "deleted": ["p1"]}') ->> 'deleted', '0',
  'a deletion of one platform leaves the other''s samples of that id');

-- Weight samples are weigh-ins too: the targets follow a scale that writes to the platform (a
-- minute after onboarding, within the clock skew: the test's transaction has one now()).
select pg_temp.call('onboarding_complete', 'b',
  '{"goal_type": "maintaining", "goal_rate_per_week": 0, "height_cm": 180, "weight_kg": 80, "age_years": 30,
    "sex": "male", "activity_level": "moderate"}');
select pg_temp.call('health_samples_sync', 'b', jsonb_build_object('platform', 'health_connect', 'samples', jsonb_build_array(
  jsonb_build_object('sample_id', 'scale-1', 'type', 'weight', 'value', 90, 'unit', 'kg', 'start', now() + interval '1 minute',
                     'end', now() + interval '1 minute', 'source_app', 'Withings'))));
select is((select jsonb_build_object('weight_kg', weight_kg, 'source', source) from app.body_metrics
            where user_id = (select user_id from tokens where name = 'b') order by recorded_at desc limit 1),
  '{"weight_kg": 90, "source": "health_connect"}', 'a weight sample is a weigh-in of its platform');
select is(pg_temp.call('targets_get', 'b', null) -> 'computed' ->> 'calories', '2914',
  'and the targets follow it at once: (10·90 + 1125 − 150 + 5)·1.55');
select pg_temp.call('health_samples_sync', 'b', '{"platform": "health_connect", "deleted": ["scale-1"]}');
select is((select count(*) from app.body_metrics where user_id = (select user_id from tokens where name = 'b')), 1::bigint,
  'the platform''s deletion of the sample deletes the weigh-in');
select is(pg_temp.call('targets_get', 'b', null) -> 'computed' ->> 'calories', '2759', 'and the targets are those of 80 kg again');

select is(pg_temp.call('health_daily', 'a', null, '{"type": "steps", "from": "2024-04-30", "to": "2024-05-02"}') -> 'items',
  '[{"date": "2024-05-01", "value": 3000, "source": "Health / iPhone", "samples": 2}]', 'the days of a range');
select is(pg_temp.error_of('health_samples_sync', 'a', jsonb_build_object('platform', 'apple_health', 'samples',
            (select jsonb_agg('{}'::jsonb) from generate_series(1, 5001)))) -> 'fields' ->> 'samples',
  'must hold at most 5000 samples (send more in further calls)', 'a batch holds at most 5,000 samples');

select * from finish();
rollback;
