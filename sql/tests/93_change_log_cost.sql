-- The change log's row triggers (migration 0047, docs/sync.md "The cost on the write
-- path"): one version per entity and statement, nothing for an update that changes
-- nothing, a part removed from an entity that stays is a change of it, and a savepoint
-- rolled back takes its skip with it; a statement that comes back to entities it recorded
-- (an import) gives each one version, and a delete after an upsert in it still leaves a
-- tombstone; a statement of many entities reserves versions in blocks beyond its first 64,
-- each user's from that user's counter, and a block rolled back gives its versions again.
begin;
\ir support/helpers.psql
select plan(21);

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

-- An import is one statement that writes its sessions, then their exercises, then their
-- sets, then their totals: each session is recorded once, however the writes interleave.
insert into seen values ('before import', pg_temp.counter());
select is(pg_temp.call('import_strong', 'a', pg_temp.csv(array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Weight', 'Reps'],
    '2024-04-01 10:00|A|Barbell Squat|1|100|5', '2024-04-01 10:00|A|Barbell Row|1|60|8',
    '2024-04-03 10:00|B|Barbell Squat|1|102|5', '2024-04-03 10:00|B|Barbell Row|1|62|8',
    '2024-04-05 10:00|C|Barbell Squat|1|104|5', '2024-04-05 10:00|C|Barbell Row|1|64|8')) ->> 'imported',
  '6', 'three workouts of two exercises are imported');
select is((select array_agg(c.seq - (select value::bigint from seen where name = 'before import') order by c.seq)
             from app.sync_changes as c
            where c.entity = 'session' and c.seq > (select value::bigint from seen where name = 'before import')),
  array[1, 2, 3]::bigint[], 'an import of three sessions gives each one version, and takes three');
select is(pg_temp.counter() - (select value::bigint from seen where name = 'before import'), 3::bigint,
  '... and nothing else of the counter');
select is((select array_agg(t.set_count order by t.session_date) from app.training_sessions as t
            where t.import_key is not null), array[2, 2, 2],
  '... with each session''s totals kept (two sets each)');

-- In one statement, an entity written, then another, then the first deleted: the delete
-- is a change of its own (a tombstone at a new version); only the same op is left as it is.
insert into seen values ('before churn', pg_temp.counter());
do $$
declare
  v_id app.body_metrics.id%type;
begin
  insert into app.body_metrics (user_id, recorded_at, weight_kg)
  values ((select user_id from tokens where name = 'a'), '2024-05-01 08:00+00', 80) returning id into v_id;
  update app.user_settings set unit_system = 'imperial' where user_id = (select user_id from tokens where name = 'a');
  delete from app.body_metrics where id = v_id;
  insert into seen values ('churned', v_id::text);
end
$$;
select is((select op || ':' || (seq - (select value::bigint from seen where name = 'before churn'))
             from app.sync_changes where entity_id = (select value from seen where name = 'churned')),
  'delete:3', 'a weigh-in written and deleted in one statement leaves its tombstone at a version after the write''s');

-- A statement of 200 entities: its first 64 versions bump the counter one by one, the rest
-- come from blocks reserved under the same lock, so the counter's row is updated far fewer
-- times than there are entities; every entity still has a version of its own, and the feed
-- after the statement's start holds them all.
insert into seen values ('before many', pg_temp.counter());
insert into seen values ('updates before many', pg_stat_get_xact_tuples_updated('app.sync_state'::regclass));
insert into app.body_metrics (user_id, recorded_at, weight_kg)
select (select user_id from tokens where name = 'a'), timestamptz '2024-06-01 08:00+00' + n * interval '1 day', 80
  from generate_series(1, 200) as n;
create temporary table many as
select c.seq - (select value::bigint from seen where name = 'before many') as version
  from app.sync_changes as c
 where c.user_id = (select user_id from tokens where name = 'a') and c.entity = 'body_metric'
   and c.seq > (select value::bigint from seen where name = 'before many');
select is((select count(distinct version) from many), 200::bigint, 'a statement of 200 weigh-ins gives each a version of its own');
select is((select array_agg(version order by version) from many where version <= 64), (select array_agg(n::bigint) from generate_series(1, 64) as n),
  '... the first 64 one after the other');
select ok(pg_temp.counter() - (select value::bigint from seen where name = 'before many') between 200 and 400,
  '... and the counter above them all, by less than as many again');
select cmp_ok(pg_stat_get_xact_tuples_updated('app.sync_state'::regclass)
              - (select value::bigint from seen where name = 'updates before many'), '<', 80::bigint,
  '... updated fewer than 80 times for 200 versions');
select is((select count(*) from jsonb_array_elements(pg_temp.call('sync_changes', 'a', null,
             jsonb_build_object('cursor', (select value from seen where name = 'before many'), 'limit', '500')) -> 'changes') as c
            where c ->> 'entity' = 'body_metric'), 200::bigint,
  'the feed after the statement''s start holds all 200');

-- One statement for two users, with a rolled-back block in the middle and changes recorded
-- for a user other than the acting one: each user's versions come from that user's own
-- counter (the setting names the user), versions handed out in the rolled-back block are
-- handed out again, none twice, and every counter stays at or above its user's versions.
select pg_temp.sign_up('b', 'cost-b@example.com', 'cost b password');
insert into seen values ('before mixed', pg_temp.counter());
do $$
declare
  v_a uuid := (select user_id from tokens where name = 'a');
  v_b uuid := (select user_id from tokens where name = 'b');
begin
  perform auth.act_as(v_a);
  insert into app.body_metrics (user_id, recorded_at, weight_kg)
  select v_a, timestamptz '2025-01-01 08:00+00' + n * interval '1 hour', 70 from generate_series(1, 100) as n;
  begin
    insert into app.body_metrics (user_id, recorded_at, weight_kg)
    select v_a, timestamptz '2025-03-01 08:00+00' + n * interval '1 hour', 71 from generate_series(1, 100) as n;
    raise exception using errcode = 'P0001', message = 'roll the block back';
  exception when raise_exception then
    null;
  end;
  perform auth.act_as(v_b);
  insert into app.body_metrics (user_id, recorded_at, weight_kg)
  select v_b, timestamptz '2025-01-01 08:00+00' + n * interval '1 hour', 60 from generate_series(1, 100) as n;
  -- Acting as b, a change of a's: the path for another user.
  insert into app.body_metrics (user_id, recorded_at, weight_kg) values (v_a, '2025-05-01 08:00+00', 72);
  perform auth.act_as(v_a);
  insert into app.body_metrics (user_id, recorded_at, weight_kg)
  select v_a, timestamptz '2025-06-01 08:00+00' + n * interval '1 hour', 73 from generate_series(1, 100) as n;
  perform auth.act_as(null);
end
$$;
select is((select array_agg(t.name || ':' || t.metrics || ':' || t.versions || ':' || (t.counter >= t.highest) order by t.name)
             from (select k.name, count(*) as metrics, count(distinct c.seq) as versions, max(c.seq) as highest,
                          app.user_version(k.user_id) as counter
                     from tokens as k
                     join app.body_metrics as m on m.user_id = k.user_id and m.recorded_at >= '2025-01-01'
                     join app.sync_changes as c on c.user_id = k.user_id and c.entity = 'body_metric' and c.entity_id = m.id::text
                    group by k.name, k.user_id) as t),
  array['a:201:201:true', 'b:100:100:true'],
  'two users, a rolled-back block and another user''s change in one statement: a version each, no counter behind');
select is((select count(*) from jsonb_array_elements(pg_temp.call('sync_changes', 'a', null,
             jsonb_build_object('cursor', (select value from seen where name = 'before mixed'), 'limit', '500')) -> 'changes') as c
            where c ->> 'entity' = 'body_metric'), 201::bigint,
  '... and a''s feed after the statement''s start holds all 201 of a''s');

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
