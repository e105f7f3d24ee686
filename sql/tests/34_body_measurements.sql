-- Body measurements (docs/health.md): a weigh-in corrected or deleted moves the targets, the
-- metrics, the daily and trend weights and the expenditure estimate in the same
-- transaction; measurement entries of standard measures and own types keep to their
-- ranges, are corrected and deleted, and a measure's series reads one range of a user's rows.
begin;
\ir support/helpers.psql
select plan(48);

select pg_temp.sign_up('a', 'measures-a@example.com', 'measures a password');
select pg_temp.sign_up('b', 'measures-b@example.com', 'measures b password');
set local role liftbase_api;
select pg_temp.call('onboarding_complete', 'a',
  '{"goal_type": "cutting", "goal_rate_per_week": -0.5, "height_cm": 180, "weight_kg": 80, "age_years": 30,
    "sex": "male", "activity_level": "moderate", "timezone": "Europe/Berlin"}');

-- Weigh-ins: correct and delete ----------------------------------------------------------------
create temporary table w (key text primary key, id bigint);
grant all on w to liftbase_api;
insert into w select 'first', (select id from app.body_metrics where user_id = (select user_id from tokens where name = 'a'));
-- A mistyped weigh-in of 800 is refused by its domain; 90 is a plausible typo of 80.
select is(pg_temp.error_of('body_metrics_add', 'a', '{"weight_kg": 800}') -> 'fields' ->> 'weight_kg',
  'must be between 30 and 300', 'a weigh-in out of range is refused');
insert into w select 'typo', (pg_temp.call('body_metrics_add', 'a', '{"weight_kg": 90, "source": "scale"}') -> 'entry' ->> 'id')::bigint;
select is((select source from app.body_metrics where id = (select id from w where key = 'typo')), 'scale',
  'a weigh-in keeps its source');
select is((select calories from app.target_snapshots where user_id = (select user_id from tokens where name = 'a')
            order by computed_at desc, id desc limit 1), 2364, 'targets follow the typo: (10·90 + 1125 − 150 + 5)·1.55 − 550');
select is((select weight_kg from app.body_weight_days where user_id = (select user_id from tokens where name = 'a')), 85::numeric,
  'the day''s weight is the mean of 80 and 90');

select is(pg_temp.call('body_metric_update', 'a', '{"weight_kg": 81}', jsonb_build_object('id', (select id from w where key = 'typo')::text))
            -> 'snapshot' ->> 'calories', '2225', 'the correction answers the targets of 81 kg: 1790·1.55 − 550 = 2224.5');
select is((select calories from app.target_snapshots where user_id = (select user_id from tokens where name = 'a')
            order by computed_at desc, id desc limit 1), 2225, 'and they are the stored targets');
select is((select bmr from app.health_metrics where user_id = (select user_id from tokens where name = 'a')
            order by computed_at desc, id desc limit 1), 1790, 'the metrics too (BMR 10·81 + 6.25·180 − 150 + 5)');
select is((select weight_kg from app.body_weight_days where user_id = (select user_id from tokens where name = 'a')), 80.5::numeric,
  'the day''s weight follows the correction in the same transaction');
select is((api.analytics_weight((select token from tokens where name = 'a'), null, '{}') -> 'items' -> 0 ->> 'weight_kg')::numeric,
  80.5, 'and so does /analytics/weight');
select is(pg_temp.call('body_metric_update', 'a', '{"weight_kg": 81}', jsonb_build_object('id', (select id from w where key = 'typo')::text))
            -> 'entry' ->> 'weight_kg', '81', 'the same correction again');
select is((select count(*) from app.target_snapshots where user_id = (select user_id from tokens where name = 'a')), 3::bigint,
  'changes nothing and records no new snapshot');

select is(pg_temp.error_of('body_metric_update', 'a', '{"weight_kg": null, "recorded_at": "2999-01-01T00:00:00Z", "source": "fitbit"}',
            jsonb_build_object('id', (select id from w where key = 'typo')::text)) -> 'fields',
  '{"weight_kg": "is required", "recorded_at": "must not be later than now (5 minutes of clock skew allowed)",
    "source": "must be one of manual, scale, apple_health, health_connect, import"}',
  'a correction is checked member by member');
select is(pg_temp.error_of('body_metric_update', 'b', '{"weight_kg": 70}', jsonb_build_object('id', (select id from w where key = 'typo')::text)) ->> 'code',
  'metric_not_found', 'another user''s weigh-in is not found');

select is(pg_temp.call('body_metric_delete', 'a', null, jsonb_build_object('id', (select id from w where key = 'typo')::text)), null,
  'a weigh-in is deleted');
select is((select calories from app.target_snapshots where user_id = (select user_id from tokens where name = 'a')
            order by computed_at desc, id desc limit 1), 2209, 'targets are back to those of 80 kg');
select is((select weight_kg from app.body_weight_days where user_id = (select user_id from tokens where name = 'a')), 80::numeric,
  'the day''s weight is the weigh-in left');
select is(pg_temp.error_of('body_metric_delete', 'a', null, jsonb_build_object('id', (select id from w where key = 'first')::text)) ->> 'code',
  'last_weigh_in', 'the only weigh-in stays: targets are computed from it');

-- The expenditure estimate reads the days up to yesterday: a weigh-in of yesterday noon
-- (local) mistyped, corrected, deleted; its trend weight follows each at once.
insert into w select 'yesterday', (pg_temp.call('body_metrics_add', 'a', jsonb_build_object('weight_kg', 95, 'recorded_at',
  ((app.user_today((select user_id from tokens where name = 'a')) - 1)::timestamp + interval '12 hours') at time zone 'Europe/Berlin'))
  -> 'entry' ->> 'id')::bigint;
select is(app.expenditure_estimate((select user_id from tokens where name = 'a')) ->> 'trend_weight_kg', '95.00',
  'the estimate reads the mistyped weigh-in');
select pg_temp.call('body_metric_update', 'a', '{"weight_kg": 80.4}', jsonb_build_object('id', (select id from w where key = 'yesterday')::text));
select is(app.expenditure_estimate((select user_id from tokens where name = 'a')) ->> 'trend_weight_kg', '80.40',
  'and the corrected one in the same transaction');
select pg_temp.call('body_metric_delete', 'a', null, jsonb_build_object('id', (select id from w where key = 'yesterday')::text));
select is(app.expenditure_estimate((select user_id from tokens where name = 'a')) ->> 'weigh_in_days', '0',
  'and none once it is deleted');

-- A height in a corrected weigh-in becomes the profile's while it is the latest with one.
select pg_temp.call('body_metric_update', 'a', '{"height_cm": 182}', jsonb_build_object('id', (select id from w where key = 'first')::text));
select is((select height_cm::numeric from app.user_profiles where user_id = (select user_id from tokens where name = 'a')), 182::numeric,
  'a corrected height becomes the profile''s');

-- The weigh-in's measures in app.measures keep their domains' ranges (the vocabulary shows
-- them, and a weight sample becomes a weigh-in within them): at each bound and just past it.
select is((select array_agg(m.id order by m.id) from app.measures as m
            where m.weigh_in_member is not null
              and (app.field_problem(jsonb_build_object('v', m.min_value), 'v', ('app.' || m.weigh_in_member)::regtype) is not null
                or app.field_problem(jsonb_build_object('v', m.max_value), 'v', ('app.' || m.weigh_in_member)::regtype) is not null
                or app.field_problem(jsonb_build_object('v', m.min_value - 0.01), 'v', ('app.' || m.weigh_in_member)::regtype) is null
                or app.field_problem(jsonb_build_object('v', m.max_value + 0.01), 'v', ('app.' || m.weigh_in_member)::regtype) is null)),
  null, 'the weigh-in''s measures have their domains'' ranges');

-- An imported row's source: one the domain takes as it is, another (a newer app's) as
-- `import`, none as `manual`.
select is((select array_agg(v order by v) from unnest(array['manual', 'scale', 'apple_health', 'health_connect', 'import',
                                                            'fitbit', 'Scale', '']) as v
            where (app.imported_source(v) = v)
                  is distinct from (app.field_problem(jsonb_build_object('s', v), 's', 'app.measurement_source') is null)),
  null, 'an imported source is kept exactly when the domain takes it');
select is(array[app.imported_source('fitbit'), app.imported_source(null)], array['import', 'manual'],
  'another becomes import, none manual');

-- A correction of an older weigh-in leaves a height set later alone.
select pg_temp.call('profile_put', 'a', '{"sex": "male", "age_years": 30, "height_cm": 185, "activity_level": "moderate"}');
select pg_temp.call('body_metric_update', 'a', '{"weight_kg": 80.1}', jsonb_build_object('id', (select id from w where key = 'first')::text));
select is((select height_cm::numeric from app.user_profiles where user_id = (select user_id from tokens where name = 'a')), 185::numeric,
  'the profile''s later height stays when an older weigh-in is corrected');

-- Measurements -------------------------------------------------------------------------------------
select is(pg_temp.error_of('measurement_create', 'a', '{"measure": "weight", "value": 80}') -> 'fields' ->> 'measure',
  'is a weigh-in''s value: record it with POST /user/metrics', 'weight is a weigh-in''s');
select is(pg_temp.error_of('measurement_create', 'a', '{"measure": "waist", "value": 400}') -> 'fields' ->> 'value',
  'must be between 40 and 250', 'a measure keeps to its range');
select is(pg_temp.error_of('measurement_create', 'a', '{"value": 40}') -> 'fields' ->> 'measure',
  'give either measure (a standard measure) or type_id (one of your own)', 'an entry names its measure');
insert into w select 'waist', (pg_temp.call('measurement_create', 'a', '{"measure": "waist", "value": 84.5, "recorded_at": "2024-05-01T06:00:00Z"}') ->> 'id')::bigint;
select pg_temp.call('measurement_create', 'a', '{"measure": "waist", "value": 83, "recorded_at": "2024-06-01T06:00:00Z"}');
select pg_temp.call('measurement_create', 'a', '{"measure": "hips", "value": 99, "recorded_at": "2024-06-01T06:00:00Z"}');

create temporary table types (key text primary key, type jsonb);
grant all on types to liftbase_api;
insert into types select 'grip', pg_temp.call('measurement_type_create', 'a', '{"name": "Grip", "unit": "kg", "min_value": 0, "max_value": 150}');
select is(pg_temp.error_of('measurement_type_create', 'a', '{"name": "GRIP", "unit": "lb"}') -> 'fields' ->> 'name',
  'is the name of another of your measurement types', 'type names are unique in any case');
select is(pg_temp.error_of('measurement_create', 'a', jsonb_build_object('type_id', (select type ->> 'id' from types), 'value', 151))
            -> 'fields' ->> 'value', 'must be between 0 and 150', 'an own type keeps to its range');
select is(pg_temp.error_of('measurement_create', 'b', jsonb_build_object('type_id', (select type ->> 'id' from types), 'value', 40))
            -> 'fields' ->> 'type_id', 'must be one of your measurement types', 'another user''s type is not one''s own');
insert into w select 'grip', (pg_temp.call('measurement_create', 'a',
  jsonb_build_object('type_id', (select type ->> 'id' from types), 'value', 52, 'source', 'import', 'recorded_at', '2024-05-02T06:00:00Z')) ->> 'id')::bigint;
select is(pg_temp.error_of('measurement_type_update', 'a', '{"max_value": 50}', jsonb_build_object('id', (select type ->> 'id' from types)))
            -> 'fields' ->> 'max_value', 'must hold every entry of the type: one lies outside the range',
  'a type''s range must hold its entries');

select is(pg_temp.call('measurement_update', 'a', '{"value": 84}', jsonb_build_object('id', (select id from w where key = 'waist')::text)) ->> 'value',
  '84', 'an entry is corrected');
select is(pg_temp.error_of('measurement_update', 'a', '{"value": 10}', jsonb_build_object('id', (select id from w where key = 'waist')::text))
            -> 'fields' ->> 'value', 'must be between 40 and 250', 'a correction keeps to the measure''s range');

select is(pg_temp.call('measurements_list', 'a', null, '{"measure": "waist"}') -> 'items',
  (select jsonb_agg(app.measurement_json(row(b.*)::app.body_measurements) order by b.recorded_at desc)
     from app.body_measurements as b where b.measure = 'waist'),
  'the list of one measure, newest first');
select is(jsonb_array_length(pg_temp.call('measurements_list', 'a', null, '{"limit": "2"}') -> 'items'), 2, 'the list is paged');

-- The change feed and conditional writes see entries and types like every entity.
select is((select array_agg(distinct entity order by entity) from app.sync_changes
            where user_id = (select user_id from tokens where name = 'a') and entity like 'measurement%'),
  array['measurement', 'measurement_type'], 'entries and types are in the change feed');
select is(pg_temp.call('sync_changes', 'a', null, '{}') -> 'changes' @> jsonb_build_array(jsonb_build_object(
            'entity', 'measurement', 'id', (select id from w where key = 'grip')::text,
            'data', app.measurement_json((select b from app.body_measurements as b where b.id = (select id from w where key = 'grip'))))),
  true, 'the feed gives an entry as its list shows it');
select is(pg_temp.error_of('measurement_update', 'a', '{"value": 85}',
            jsonb_build_object('id', (select id from w where key = 'waist')::text, 'if_match', '"1"')) ->> 'code',
  'precondition_failed', 'a stale If-Match is refused');

-- Series: local dates of Europe/Berlin, both ends included; weight from the weigh-ins.
select is(pg_temp.call('measurement_series', 'a', null, '{"measure": "waist", "from": "2024-05-01", "to": "2024-06-01"}') -> 'points',
  '[{"recorded_at": "2024-05-01T06:00:00+00:00", "value": 84}, {"recorded_at": "2024-06-01T06:00:00+00:00", "value": 83}]',
  'a measure''s series, oldest first');
select is(jsonb_array_length(pg_temp.call('measurement_series', 'a', null, '{"measure": "waist", "from": "2024-05-02", "to": "2024-06-01"}') -> 'points'),
  1, 'the range bounds it');
select is(pg_temp.call('measurement_series', 'a', null, '{"measure": "weight"}') -> 'points' -> 0 ->> 'value', '80.1',
  'weight''s series reads the weigh-ins');
select is(pg_temp.error_of('measurement_series', 'a', null, '{"measure": "waist", "from": "2000-01-01", "to": "2024-01-01"}') ->> 'code',
  'range_too_large', 'a series is at most ten years');

-- A document's type named like one the account holds is that one; a measure this server
-- lacks is left out; the same document again adds nothing.
create temporary table document as select jsonb_build_object('format', 'liftbase-export', 'version', 2,
  'measurement_types', jsonb_build_array(jsonb_build_object('id', '0b5e9d3c-0000-4000-8000-000000000001', 'name', 'grip', 'unit', 'kg')),
  'body_measurements', jsonb_build_array(
    jsonb_build_object('recorded_at', '2024-07-01T06:00:00Z', 'type_id', '0b5e9d3c-0000-4000-8000-000000000001', 'value', 60),
    jsonb_build_object('recorded_at', '2024-07-01T06:00:00Z', 'measure', 'hips', 'value', 98.50, 'source', 'scale'),
    jsonb_build_object('recorded_at', '2024-07-01T06:00:00Z', 'measure', 'wingspan', 'value', 190))) as doc;
grant select on document to liftbase_api;
select is(pg_temp.call('import_liftbase', 'a', (select doc from document)) -> 'imported', '2',
  'an import brings the entries of measures this server has');
select is((select type_id::text from app.body_measurements where value = 60), (select type ->> 'id' from types),
  'an entry of a document''s type lands on the account''s type of that name');
select is(pg_temp.call('import_liftbase', 'a', (select doc from document)) -> 'imported', '0',
  'the same document again adds nothing');

-- Deleting a type deletes its entries.
select pg_temp.call('measurement_type_delete', 'a', null, jsonb_build_object('id', (select type ->> 'id' from types)));
select is((select count(*) from app.body_measurements where type_id is not null), 0::bigint, 'a type goes with its entries');
select is(pg_temp.call('measurement_delete', 'a', null, jsonb_build_object('id', (select id from w where key = 'waist')::text)), null,
  'an entry is deleted');

select * from finish();
rollback;
