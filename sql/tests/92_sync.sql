-- Many devices, one account (docs/sync.md): versions and conditional requests, offline
-- creates (client_id, recorded_at), and the change feed, ending in a seeded simulation of
-- two devices (seed 0.92, 1,000 operations) whose local copies, rebuilt only from the feed,
-- end equal to the server.
begin;
\ir support/helpers.psql
select plan(37);
select setseed(0.92);

select pg_temp.sign_up('a', 'sync-a@example.com', 'sync a password');
select pg_temp.sign_up('b', 'sync-b@example.com', 'sync b password');

-- One request: no status and no headers left from the call before.
create function pg_temp.req(p_function text, p_token_name text, p_body jsonb, p_args jsonb default '{}')
returns jsonb language plpgsql as $$
begin
  perform set_config('liftbase.response_headers', '', true);
  return pg_temp.call(p_function, p_token_name, p_body, p_args);
end $$;
create function pg_temp.header(p_name text) returns text language sql as $$
  select nullif(current_setting('liftbase.response_headers', true), '')::jsonb ->> p_name $$;
create function pg_temp.error_with_args(p_function text, p_token_name text, p_body jsonb, p_args jsonb) returns jsonb
language sql as $$ select pg_temp.error_of(p_function, p_token_name, p_body, p_args) $$;

-- Every create replays by client_id: an api function named as a create (..._create,
-- ..._add) that does not ask the shared rule is listed. But a personal API key: its secret
-- is kept hashed only, so a repeat could not answer it again (a client that lost the answer
-- revokes that key and makes another).
create function pg_temp.creates_without_replay() returns text[] language sql as $$
  select array_agg(p.proname::text order by p.proname)
    from pg_proc as p join pg_namespace as n on n.oid = p.pronamespace and n.nspname = 'api'
   where p.proname ~ '_(create|add)$' and p.prosrc !~ 'app\.replayed_key\('
     and p.proname <> 'api_key_create'
$$;
select is(pg_temp.creates_without_replay(), null, 'every api create replays a repeated client_id (app.replayed_key)');
create function api.planted_create(p_token text, p_body jsonb, p_args jsonb) returns jsonb language sql as $$ select null::jsonb $$;
select is(pg_temp.creates_without_replay(), array['planted_create'], 'a planted create without the rule is listed');
drop function api.planted_create(text, jsonb, jsonb);

-- Offline weigh-ins ------------------------------------------------------------------------
select pg_temp.req('settings_update', 'a', '{"timezone": "Pacific/Auckland"}');
create temporary table weigh_in (body jsonb);
grant select on weigh_in to liftbase_api;
insert into weigh_in values (jsonb_build_object('client_id', gen_random_uuid(), 'weight_kg', 81.5,
  'recorded_at', to_char((now() - interval '1 day') at time zone 'Pacific/Auckland', 'YYYY-MM-DD"T"HH24:MI:SS') || '+12:00'));
-- Auckland is +12 or +13: the offset given names the moment; its day follows in the zone.
select pg_temp.req('body_metrics_add', 'a', (select body from weigh_in));
select is(pg_temp.status(), '200', 'a weigh-in uploaded later is created (201 is the endpoint''s status, SQL sets none)');
select pg_temp.req('body_metrics_add', 'a', (select body from weigh_in));
select is(pg_temp.status(), '200', 'the same weigh-in sent again answers 200 (a replay)');
select is(pg_temp.rows_of('app.body_metrics', (select user_id from tokens where name = 'a')), 1::bigint,
  'sent twice, it counts once');
select is((select array_agg(d.day || ':' || d.weigh_ins) from app.body_weight_days as d
            where d.user_id = (select user_id from tokens where name = 'a')),
          array[(((select app.read_timestamp(body, 'recorded_at') from weigh_in) at time zone 'Pacific/Auckland')::date) || ':1'],
  'it lands on its own day in the user''s zone, not on the day of the upload');
select is(pg_temp.error_of('body_metrics_add', 'a', jsonb_build_object('weight_kg', 80,
            'recorded_at', to_char(now() at time zone 'UTC' + interval '1 hour', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))) -> 'fields',
  '{"recorded_at": "must not be later than now (5 minutes of clock skew allowed)"}', 'a weigh-in an hour in the future is a 422');
select ok(pg_temp.error_of('body_metrics_add', 'a', jsonb_build_object('weight_kg', 80,
            'recorded_at', to_char(now() at time zone 'UTC' + interval '2 minutes', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))) is null,
  'two minutes ahead is clock skew, accepted');
select is(pg_temp.error_of('sessions_create', 'a', jsonb_build_object('session_date', '2024-01-02', 'status', 'in_progress',
            'started_at', to_char(now() at time zone 'UTC' + interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))) -> 'fields' -> 'started_at',
  '"must not be later than now (5 minutes of clock skew allowed)"', 'a session cannot start tomorrow');
select is(pg_temp.error_of('favorite_create', 'a', '{"client_id": "nope", "name": "x", "calories": 1, "protein_g": 0, "carbs_g": 0, "fat_g": 0}') -> 'fields',
  '{"client_id": "must be a UUID"}', 'a client_id that is no UUID is a 422 naming it');
select pg_temp.req('favorite_create', 'a', '{"client_id": "6b0c9f0e-3d1c-4c59-9a57-2a3f4bde0c11", "name": "Oats", "calories": 150, "protein_g": 5, "carbs_g": 27, "fat_g": 3}');
select is(pg_temp.req('favorite_create', 'a', '{"client_id": "6b0c9f0e-3d1c-4c59-9a57-2a3f4bde0c11", "name": "Other", "calories": 9, "protein_g": 0, "carbs_g": 0, "fat_g": 0}') ->> 'name',
  'Oats', 'a repeated favorite answers the first one');
select is(pg_temp.status(), '200', '... with 200');

-- Versions and conditional requests -------------------------------------------------------
create temporary table ids (name text primary key, id text);
grant select on ids to liftbase_api;
insert into ids select 's', pg_temp.req('sessions_create', 'a', '{"session_date": "2024-01-02", "status": "in_progress"}') ->> 'id';
select pg_temp.req('session_get', 'a', null, jsonb_build_object('id', (select id from ids where name = 's')));
insert into ids values ('etag', pg_temp.header('ETag'));
select matches((select id from ids where name = 'etag'), '^"[0-9]+"$', 'a single-entity GET answers an ETag: its version');
select is(pg_temp.req('session_get', 'a', null, jsonb_build_object('id', (select id from ids where name = 's'),
            'if_none_match', (select id from ids where name = 'etag'))), null, 'If-None-Match with it: no body');
select is(pg_temp.status(), '304', '... and 304');
select is(pg_temp.error_of('session_update', 'a', '{"name": "Push"}', jsonb_build_object('id', (select id from ids where name = 's'),
            'if_match', 'yesterday')) -> 'fields', '{"if_match": "must be an entity tag (\"<version>\") or a list of them"}',
  'an If-Match that is no entity tag is a 400 naming it');
select pg_temp.req('session_update', 'a', '{"name": "Push"}', jsonb_build_object('id', (select id from ids where name = 's'),
  'if_match', (select id from ids where name = 'etag')));
select isnt(pg_temp.header('ETag'), (select id from ids where name = 'etag'), 'a write with the current If-Match succeeds, with a new ETag');
select is(pg_temp.error_of('session_update', 'a', '{"name": "Pull"}', jsonb_build_object('id', (select id from ids where name = 's'),
            'if_match', (select id from ids where name = 'etag'))) - 'etag',
  jsonb_build_object('state', 'LB412', 'code', 'precondition_failed',
                     'version', app.entity_version((select user_id from tokens where name = 'a'), 'session', (select id from ids where name = 's')))::jsonb,
  'a stale If-Match is a 412 precondition_failed with the current version');
select is(pg_temp.req('session_get', 'a', null, jsonb_build_object('id', (select id from ids where name = 's'))) ->> 'name', 'Push',
  '... and writes nothing');
select ok(pg_temp.error_of('session_delete', 'a', null, jsonb_build_object('id', (select id from ids where name = 's'),
            'if_match', (select id from ids where name = 'etag'))) ->> 'code' = 'precondition_failed', 'a DELETE honours If-Match too');

select pg_temp.req('me', 'a', null);
insert into ids values ('me', pg_temp.header('ETag'));
select is(pg_temp.req('me', 'a', null, jsonb_build_object('if_none_match', (select id from ids where name = 'me'))), null,
  'GET /me answers 304 while nothing changed');
select pg_temp.req('me_update', 'a', '{"display_name": "Ann"}');
select is(pg_temp.req('me', 'a', null, jsonb_build_object('if_none_match', (select id from ids where name = 'me'))) -> 'user' ->> 'display_name',
  'Ann', '... and answers again once the display name changed');
select pg_temp.req('nutrition_daily', 'a', null);
insert into ids values ('daily', pg_temp.header('ETag'));
select is(pg_temp.req('nutrition_daily', 'a', null, jsonb_build_object('if_none_match', (select id from ids where name = 'daily'))), null,
  'GET /nutrition/daily answers 304 while nothing changed');
select pg_temp.req('entry_create', 'a', '{"name": "Apple", "calories": 80, "source": "manual"}');
select is(pg_temp.req('nutrition_daily', 'a', null, jsonb_build_object('if_none_match', (select id from ids where name = 'daily'))) -> 'totals' ->> 'calories',
  '80', '... and answers again once an entry was logged');

-- The feed --------------------------------------------------------------------------------
select is(pg_temp.error_of('sync_changes', 'a', null, '{"cursor": "abc"}') ->> 'code', 'invalid_parameter', 'a garbage cursor is a 400');
select is(pg_temp.error_of('sync_changes', 'a', null, '{"cursor": "999999"}') ->> 'code', 'invalid_parameter',
  'a cursor beyond any version given is a 400');
select is((select array_agg((c ->> 'entity') || ':' || (c ->> 'id')) from jsonb_array_elements(pg_temp.req('sync_changes', 'b', null) -> 'changes') as c),
  array['settings:' || (select user_id from tokens where name = 'b')], 'another user''s feed holds only that user''s rows');
select is((select count(*) from jsonb_array_elements(pg_temp.req('sync_changes', 'a', null, '{"limit": "500"}') -> 'changes') as c
            where c ->> 'op' = 'delete'), 0::bigint, 'without a cursor: the current state, no tombstones');
insert into ids values ('cursor', pg_temp.req('sync_changes', 'a', null, '{"limit": "500"}') ->> 'next_cursor');
select pg_temp.req('session_delete', 'a', null, jsonb_build_object('id', (select id from ids where name = 's')));
select is(pg_temp.req('sync_changes', 'a', null, jsonb_build_object('cursor', (select id from ids where name = 'cursor'))) -> 'changes',
  jsonb_build_array(jsonb_build_object('entity', 'session', 'id', (select id from ids where name = 's'), 'op', 'delete',
    'version', (select seq from app.sync_changes where entity_id = (select id from ids where name = 's')), 'data', null)),
  'a delete leaves a tombstone after the cursor');
-- Versions are handed out under the user's counter row lock, in the writes' order: the
-- counter equals the highest version (no request here records more than 64 entities, past
-- which a statement reserves versions in blocks), and no two changes share one.
select is((select s.last_seq from app.sync_state as s where s.user_id = (select user_id from tokens where name = 'a')),
          (select max(c.seq) from app.sync_changes as c where c.user_id = (select user_id from tokens where name = 'a')),
  'the counter is the latest version');
update app.sync_changes set changed_at = now() - interval '91 days' where op = 'delete';
select is(app.prune_sync_tombstones(), 1::bigint, 'tombstones older than 90 days are pruned');
select is(pg_temp.error_of('sync_changes', 'a', null, jsonb_build_object('cursor', (select id from ids where name = 'cursor'))) ->> 'code',
  'cursor_expired', 'a cursor older than the pruned tombstones is a 410 cursor_expired');
select is(pg_temp.error_of('sync_changes', 'a', null, jsonb_build_object('cursor', (select id from ids where name = 'cursor'))) ->> 'state',
  'LB410', '... with status 410');

-- Two devices ------------------------------------------------------------------------------
-- Each device keeps a local copy built only from the feed, and a cursor. 1,000 operations,
-- each from one device (or a pull of one page, limit 7, by one device), then both pull to
-- the end: each copy must equal the server's entries, favorites and settings.
create temporary table local_copy (device text, entity text, id text, data jsonb, primary key (device, entity, id));
create temporary table cursors (device text primary key, cursor text);
insert into cursors values ('phone', null), ('tablet', null);

create function pg_temp.pull(p_device text) returns boolean language plpgsql as $$
declare
  v_page jsonb := pg_temp.req('sync_changes', 'b', null,
    jsonb_strip_nulls(jsonb_build_object('limit', '7', 'cursor', (select cursor from cursors where device = p_device))));
  v_change jsonb;
begin
  for v_change in select c from jsonb_array_elements(v_page -> 'changes') as c loop
    if v_change ->> 'op' = 'delete' then
      delete from local_copy where device = p_device and entity = v_change ->> 'entity' and id = v_change ->> 'id';
    else
      insert into local_copy values (p_device, v_change ->> 'entity', v_change ->> 'id', v_change -> 'data')
      on conflict (device, entity, id) do update set data = excluded.data;
    end if;
  end loop;
  update cursors set cursor = v_page ->> 'next_cursor' where device = p_device;
  return (v_page ->> 'has_more')::boolean;
end $$;

create function pg_temp.operate() returns void language plpgsql as $$
declare
  v_kind text := (array['pull', 'pull', 'create entry', 'create entry', 'edit entry', 'delete entry', 'favorite',
                        'unfavorite', 'settings', 'weigh in'])[1 + floor(random() * 10)::integer];
  v_device text := case when random() < 0.5 then 'phone' else 'tablet' end;
  v_entry text := (select e.id::text from app.food_entries as e where e.user_id = (select user_id from tokens where name = 'b')
                    order by e.id offset floor(random() * 5) limit 1);
  v_favorite text := (select f.id::text from app.favorites as f where f.user_id = (select user_id from tokens where name = 'b')
                       order by f.id limit 1);
begin
  if v_kind = 'pull' then
    perform pg_temp.pull(v_device);
  elsif v_kind = 'create entry' then
    perform pg_temp.req('entry_create', 'b', jsonb_build_object('name', 'Food ' || v_device, 'calories', floor(random() * 900),
                                                                'source', 'manual', 'client_id', gen_random_uuid()));
  elsif v_kind = 'edit entry' and v_entry is not null then
    perform pg_temp.req('entry_update', 'b', jsonb_build_object('calories', floor(random() * 900)), jsonb_build_object('id', v_entry));
  elsif v_kind = 'delete entry' and v_entry is not null then
    perform pg_temp.req('entry_delete', 'b', null, jsonb_build_object('id', v_entry));
  elsif v_kind = 'favorite' and v_entry is not null then
    perform pg_temp.req('favorite_create', 'b', jsonb_build_object('entry_id', v_entry));
  elsif v_kind = 'unfavorite' and v_favorite is not null then
    perform pg_temp.req('favorite_delete', 'b', null, jsonb_build_object('id', v_favorite));
  elsif v_kind = 'settings' then
    perform pg_temp.req('settings_update', 'b', jsonb_build_object('unit_system', case when random() < 0.5 then 'metric' else 'imperial' end));
  elsif v_kind = 'weigh in' then
    perform pg_temp.req('body_metrics_add', 'b', jsonb_build_object('weight_kg', 70 + floor(random() * 10)));
  end if;
end $$;

select pg_temp.operate() from generate_series(1, 1000);
do $$ begin while pg_temp.pull('phone') loop end loop; while pg_temp.pull('tablet') loop end loop; end $$;

-- The server's state, read from the tables themselves (not from the feed).
create temporary view server_state as
select 'diary_entry' as entity, e.id::text as id, app.entry_json(e) as data from app.food_entries as e
 where e.user_id = (select user_id from tokens where name = 'b')
union all
select 'favorite', f.id::text, app.favorite_json(f) from app.favorites as f where f.user_id = (select user_id from tokens where name = 'b')
union all
select 'body_metric', m.id::text, app.body_metric_json(m) from app.body_metrics as m where m.user_id = (select user_id from tokens where name = 'b')
union all
select 'settings', s.user_id::text, app.settings_json(s.user_id) from app.user_settings as s where s.user_id = (select user_id from tokens where name = 'b');

select set_config('liftbase.user_id', (select user_id::text from tokens where name = 'b'), true);
select cmp_ok((select count(*) from server_state where entity = 'diary_entry'), '>', 5::bigint, 'the simulation left entries to compare');
select ok((select count(*) from app.sync_changes where user_id = (select user_id from tokens where name = 'b') and op = 'delete') > 10,
  'and deleted some');
select is((select count(*) from ((select entity, id, data from local_copy where device = 'phone' and entity in ('diary_entry', 'favorite', 'body_metric', 'settings')
                                  except select * from server_state)
                                 union all (select * from server_state except select entity, id, data from local_copy where device = 'phone')) as d),
  0::bigint, 'the phone''s copy, rebuilt from the feed alone, equals the server');
select is((select count(*) from ((select entity, id, data from local_copy where device = 'tablet' and entity in ('diary_entry', 'favorite', 'body_metric', 'settings')
                                  except select * from server_state)
                                 union all (select * from server_state except select entity, id, data from local_copy where device = 'tablet')) as d),
  0::bigint, 'so does the tablet''s');

select * from finish();
rollback;
