-- The settings document kept on the row (0050) is what the settings say: after random
-- PATCHes it equals the object built from the row's columns, and a row that has none (one
-- written before the document was kept) or one of another shape (an earlier release's)
-- reads the same object. Fixed seed, API role.
begin;
\ir support/helpers.psql
select plan(4);
select setseed(0.5050);

select pg_temp.sign_up('d', 'settings-document@example.com', 'settings document');

create temporary table answers (n integer, answer jsonb);
grant all on answers to liftbase_api;
set local role liftbase_api;
insert into answers
select n, pg_temp.call('settings_update', 'd', jsonb_strip_nulls(jsonb_build_object(
         'unit_system', case when random() < 0.5 then pg_temp.pick('["metric", "imperial"]') end,
         'timezone', case when random() < 0.3 then pg_temp.pick('["UTC", "Europe/Berlin", "America/New_York"]') end,
         'biometric_enabled', case when random() < 0.5 then to_jsonb(random() < 0.5) end,
         'reminders', jsonb_build_object(
           'meals', jsonb_build_object('enabled', random() < 0.5,
                                       'times', (select coalesce(jsonb_agg(lpad((6 + floor(random() * 15))::text, 2, '0') || ':'
                                                                           || (pg_temp.pick('["00", "15", "30", "45"]') #>> '{}')), '[]')
                                                   from generate_series(1, floor(random() * 4)::integer))),
           'workouts', jsonb_build_object('enabled', random() < 0.5,
                                          'days', (select coalesce(jsonb_agg(pg_temp.pick('["monday", "tuesday", "friday", "sunday"]')), '[]')
                                                     from generate_series(1, floor(random() * 3)::integer)))),
         'health_sync', jsonb_build_object('google_fit', random() < 0.5))))
  from generate_series(1, 40) as n;
reset role;

select is((select count(*)::integer from app.user_settings as s
            where s.user_id = (select user_id from tokens where name = 'd')
              and (s.settings_document is distinct from app.settings_values_json(s)
                   or s.settings_document_shape is distinct from app.settings_document_shape())),
          0, 'after 40 random PATCHes the kept document is the object the columns make');
select is(pg_temp.call('me', 'd', null) -> 'settings', (select answer from answers order by n desc limit 1),
          'GET /me answers the settings the last PATCH answered');

-- A row without a document (as written before 0050): the same object, built on read.
create temporary table before_clearing as select app.settings_json(user_id) as settings from tokens where name = 'd';
alter table app.user_settings disable trigger user_settings_document;
update app.user_settings set settings_document = null, settings_document_shape = null where user_id = (select user_id from tokens where name = 'd');
alter table app.user_settings enable trigger user_settings_document;
select is(pg_temp.call('me', 'd', null) -> 'settings', (select settings from before_clearing),
          'a row without a kept document answers the same settings');

-- A document another definition of the shape built (an earlier release) is not served.
alter table app.user_settings disable trigger user_settings_document;
update app.user_settings set settings_document = '{"stale": true}', settings_document_shape = 'another definition'
 where user_id = (select user_id from tokens where name = 'd');
alter table app.user_settings enable trigger user_settings_document;
select is(pg_temp.call('me', 'd', null) -> 'settings', (select settings from before_clearing),
          'a document of another shape is not served: the settings are built from the row');

select * from finish();
rollback;
