-- Water (docs/health.md): the target from the latest weight or its override, entries on
-- the local day they were logged on (kept when the time zone changes later), the day's
-- totals in /nutrition/daily and /nutrition/water, corrections, replays.
begin;
\ir support/helpers.psql
select plan(17);

select pg_temp.sign_up('a', 'water-a@example.com', 'water a password');
select pg_temp.sign_up('b', 'water-b@example.com', 'water b password');
set local role liftbase_api;
select pg_temp.call('onboarding_complete', 'a',
  '{"goal_type": "maintaining", "goal_rate_per_week": 0, "height_cm": 180, "weight_kg": 80, "age_years": 30,
    "sex": "male", "activity_level": "moderate", "timezone": "Europe/Berlin"}');

-- Target ----------------------------------------------------------------------------------------
select is(pg_temp.call('targets_get', 'a', null) ->> 'water_ml', '2800', 'the target is 35 ml per kg of 80 kg');
select pg_temp.call('body_metrics_add', 'a', '{"weight_kg": 81}');
select is(pg_temp.call('targets_get', 'a', null) ->> 'water_ml', '2850', 'and follows the latest weigh-in (2835, to 50 ml)');
select is(pg_temp.call('targets_put', 'a', '{"water_ml": 3000}') -> 'source' ->> 'water_ml', 'override', 'an override');
select is(pg_temp.call('nutrition_daily', 'a', null, '{"date": "2024-03-11"}') -> 'water' ->> 'target_ml', '3000',
  'wins over the weight');
select is(pg_temp.error_of('targets_put', 'a', '{"water_ml": 100}') -> 'fields' ->> 'water_ml',
  'must be a whole number between 500 and 10000', 'an override keeps to its range');
select is(pg_temp.call('targets_put', 'a', '{"water_ml": null}') ->> 'water_ml', '2850', 'null clears it');

-- Entries and days ----------------------------------------------------------------------------
-- 23:30 UTC is 00:30 the next day in Berlin: the drink counts on the 11th.
create temporary table w (key text primary key, entry jsonb);
grant all on w to liftbase_api;
insert into w select 'late', pg_temp.call('water_create', 'a', '{"amount_ml": 500, "recorded_at": "2024-03-10T23:30:00Z"}');
select is((select entry ->> 'entry_date' from w where key = 'late'), '2024-03-11', 'a drink counts on its local day');
-- The account moves to New York: 03:00 UTC on the 11th is 22:00 on the 10th there.
select pg_temp.call('settings_update', 'a', '{"timezone": "America/New_York"}');
insert into w select 'new york', pg_temp.call('water_create', 'a', '{"amount_ml": 250, "recorded_at": "2024-03-11T03:00:00Z", "source": "apple_health"}');
select is((select entry ->> 'entry_date' from w where key = 'new york'), '2024-03-10', 'in the new zone, the new zone''s day');
select is(pg_temp.call('water_day', 'a', null, '{"date": "2024-03-11"}') ->> 'total_ml', '500',
  'the earlier drink stays on the day it was logged on after the zone changed');
select is(pg_temp.call('nutrition_daily', 'a', null, '{"date": "2024-03-10"}') -> 'water',
  '{"total_ml": 250, "target_ml": 2850, "remaining_ml": 2600, "entries": 1}', '/nutrition/daily shows the day''s water');

select is(pg_temp.error_of('water_create', 'a', '{"amount_ml": 0}') -> 'fields' ->> 'amount_ml',
  'must be more than 0 and at most 5000 (ml in one entry)', 'an empty glass is refused');
select is(pg_temp.error_of('water_create', 'a', '{"amount_ml": 6000}') -> 'fields' ->> 'amount_ml',
  'must be more than 0 and at most 5000 (ml in one entry)', 'and so is a bathtub');

-- A correction of the time keeps the day; the day is changed by naming it.
select is(pg_temp.call('water_update', 'a', '{"amount_ml": 300, "recorded_at": "2024-03-11T05:00:00Z"}',
            jsonb_build_object('id', (select entry ->> 'id' from w where key = 'new york'))) ->> 'entry_date',
  '2024-03-10', 'a new time keeps the entry''s day');
select is(pg_temp.call('water_day', 'a', null, '{"date": "2024-03-10"}') ->> 'total_ml', '300', 'the day''s total follows');
select is(pg_temp.error_of('water_delete', 'b', null, jsonb_build_object('id', (select entry ->> 'id' from w where key = 'late'))) ->> 'code',
  'water_entry_not_found', 'another account''s entry is not found');

-- A replay of a create answers the first entry and writes nothing.
insert into w select 'first', pg_temp.call('water_create', 'a', '{"amount_ml": 200, "client_id": "5f0c0000-0000-4000-8000-000000000001"}');
insert into w select 'replay', pg_temp.call('water_create', 'a', '{"amount_ml": 200, "client_id": "5f0c0000-0000-4000-8000-000000000001"}');
select is((select entry ->> 'id' from w where key = 'replay'), (select entry ->> 'id' from w where key = 'first'),
  'a repeated client_id answers the first entry');
select is((select count(*) from app.water_entries where client_id = '5f0c0000-0000-4000-8000-000000000001'), 1::bigint,
  'and writes nothing');

select * from finish();
rollback;
