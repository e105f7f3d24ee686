-- The change log's row triggers (migration 0047, docs/sync.md "The cost on the write
-- path"): one version per entity and statement, nothing for an update that changes
-- nothing, a part removed from an entity that stays is a change of it, and a savepoint
-- rolled back takes its skip with it.
begin;
\ir support/helpers.psql
select plan(9);

select pg_temp.sign_up('a', 'cost-a@example.com', 'cost a password');
create function pg_temp.counter() returns bigint language sql as $$
  select app.user_version((select user_id from tokens where name = 'a')) $$;
create temporary table seen (name text primary key, value text);
grant select on seen to liftbase_api;

insert into seen values ('before', pg_temp.counter());
insert into seen select 's', pg_temp.call('sessions_create', 'a', jsonb_build_object('session_date', '2024-03-01', 'exercises',
  (select jsonb_agg(jsonb_build_object('exercise_name', x, 'sets',
            (select jsonb_agg(jsonb_build_object('reps', 5, 'weight_kg', 100)) from generate_series(1, 4))))
     from unnest(array['Barbell Squat', 'Barbell Bench Press', 'Barbell Row', 'Overhead Press', 'Romanian Deadlift']) as x))) ->> 'id';
select is(pg_temp.counter() - (select value::bigint from seen where name = 'before'), 1::bigint,
  'a session of 5 exercises × 4 sets (five statements on three tables) takes one version');
select is((select count(*) from app.sync_changes where entity_id = (select value from seen where name = 's')), 1::bigint,
  '... in one row of the log');

insert into seen values ('after create', pg_temp.counter());
update app.training_sessions set name = name where id = (select value::uuid from seen where name = 's');
select is(pg_temp.counter(), (select value::bigint from seen where name = 'after create'), 'an update that changes nothing takes no version');
update app.training_sessions set notes = 'heavy' where id = (select value::uuid from seen where name = 's');
select is(pg_temp.counter(), (select value::bigint from seen where name = 'after create') + 1,
  'a later statement of the same transaction gives a new version');

-- A set removed from a session that stays: the session changed (an upsert, a new version).
delete from app.session_sets where session_id = (select value::uuid from seen where name = 's') and position = 1
   and exercise_position = 1;
select is((select op || ':' || seq from app.sync_changes where entity_id = (select value from seen where name = 's')),
  'upsert:' || pg_temp.counter(), 'a part removed from an entity that stays is a change of the entity');

-- A savepoint rolled back: its rows and the note that skips the entity's later rows go together.
savepoint s;
update app.training_sessions set notes = 'light' where id = (select value::uuid from seen where name = 's');
rollback to savepoint s;
insert into seen values ('after rollback', pg_temp.counter());
update app.session_sets set reps = 6 where session_id = (select value::uuid from seen where name = 's');
select is(pg_temp.counter(), (select value::bigint from seen where name = 'after rollback') + 1,
  'after a savepoint rolled back, the entity is recorded again');

-- Deleting the session: one tombstone, its parts' rows add nothing.
insert into seen values ('before delete', pg_temp.counter());
select pg_temp.call('session_delete', 'a', null, jsonb_build_object('id', (select value from seen where name = 's')));
select is((select op || ':' || seq from app.sync_changes where entity_id = (select value from seen where name = 's')),
  'delete:' || pg_temp.counter(), 'a deleted session leaves one tombstone at the newest version');
select cmp_ok(pg_temp.counter() - (select value::bigint from seen where name = 'before delete'), '<=', 2::bigint,
  '... its exercises and sets cascading add no version of their own');

-- An account deleted: its cascade records nothing (the log goes with it).
select lives_ok($$select api.me_delete((select token from tokens where name = 'a'), '{"password": "cost a password"}', '{}')$$,
  'an account with a session, deleted, cascades through the row triggers');

select * from finish();
rollback;
