-- The outbox and webhooks (docs/webhooks.md): subscriptions and their checks, events queued
-- with the write, what workers claim (leases, skip locked) and record (backoff with jitter,
-- dead letters), Standard Webhooks signatures, the operator's functions, and an account's
-- deletion leaving only its account.deleted deliveries.
begin;
\ir support/helpers.psql
select plan(47);

select pg_temp.sign_up('a', 'hooks-a@example.com', 'hooks a password');
select pg_temp.sign_up('b', 'hooks-b@example.com', 'hooks b password');
create temporary table seen (name text primary key, value jsonb);
grant select on seen to liftbase_api;

-- Signatures: the example of the Standard Webhooks specification, which Python's hmac
-- gives too:
--   key = base64.b64decode('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')
--   base64.b64encode(hmac.new(key, b'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}',
--                             hashlib.sha256).digest())  ->  g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=
select is(auth.webhook_signature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330,
                                 '{"test": 2432232314}'),
  'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=', 'the signature of the specification''s example');

-- Backoff: 30 s × 2^(attempt − 1), at most 6 hours, ±20 %.
select is(auth.delivery_backoff(1, 0), interval '24 seconds', 'first retry: 30 s − 20 %');
select is(auth.delivery_backoff(1, 1), interval '36 seconds', '... to 30 s + 20 %');
select is(auth.delivery_backoff(4, 0.5), interval '4 minutes', 'the fourth: 4 minutes at the middle of the jitter');
select is(auth.delivery_backoff(30, 0.5), interval '6 hours', 'capped at 6 hours');
select ok((select bool_and(auth.delivery_backoff(n) between interval '30 seconds' * power(2, n - 1) * 0.8
                                                        and interval '30 seconds' * power(2, n - 1) * 1.2)
             from generate_series(1, 9) as n, generate_series(1, 50)), 'random jitter stays within ±20 %');
select ok((select count(distinct auth.delivery_backoff(3)) > 40 from generate_series(1, 50)), '... and differs from try to try');

-- Subscriptions ------------------------------------------------------------------------------
select is(pg_temp.error_of('webhook_create', 'a', '{"url": "ftp://example.com/x", "events": ["diary.changed"]}') -> 'fields',
  jsonb_build_object('url', 'must be an http or https URL of printable ASCII, at most 2,048 bytes'), 'a URL that is not http(s) is a 422 naming url');
select is(pg_temp.error_of('webhook_create', 'a', jsonb_build_object('url', 'https://example.com/' || repeat('a', 2029), 'events', '["diary.changed"]'::jsonb)) -> 'fields',
  jsonb_build_object('url', 'must be an http or https URL of printable ASCII, at most 2,048 bytes'), 'a URL over 2,048 bytes is a 422');
select is(pg_temp.error_of('webhook_create', 'a', jsonb_build_object('url', 'https://exa mple.com/' || chr(15), 'events', '["diary.changed"]'::jsonb)) -> 'fields',
  jsonb_build_object('url', 'must be an http or https URL of printable ASCII, at most 2,048 bytes'), 'a URL with a space or a control character is a 422');
select is(pg_temp.error_of('webhook_create', 'a', '{"url": "https://example.com/x", "events": ["diary.changed", "session.started"]}') -> 'fields',
  jsonb_build_object('events', 'must be a list of 1 to 5 of workout.logged, diary.changed, metrics.updated, goal.changed, account.deleted'),
  'an unknown event is a 422 naming events');
select is(pg_temp.error_of('webhook_create', 'a', '{"url": "https://example.com/x", "events": []}') -> 'fields' ->> 'events',
  'must be a list of 1 to 5 of workout.logged, diary.changed, metrics.updated, goal.changed, account.deleted', 'no event is a 422 too');

insert into seen values ('hook', pg_temp.call('webhook_create', 'a', '{"client_id": "0e7c4cf4-40f5-4d36-9d4b-6b0c1d2e3f40", "url": "https://example.com/hooks", "events": ["account.deleted", "workout.logged", "diary.changed", "goal.changed", "metrics.updated"]}'));
select matches((select value ->> 'secret' from seen where name = 'hook'), '^whsec_[A-Za-z0-9+/]{32}$', 'a new subscription shows its secret: 24 random bytes');
select is((select value -> 'events' from seen where name = 'hook'),
  '["workout.logged", "diary.changed", "metrics.updated", "goal.changed", "account.deleted"]', '... and its events in the documented order');
select is(pg_temp.call('webhook_create', 'a', '{"client_id": "0e7c4cf4-40f5-4d36-9d4b-6b0c1d2e3f40", "url": "https://other.example.com", "events": ["diary.changed"]}'),
  (select value from seen where name = 'hook'), 'a repeated client_id answers the first subscription, secret included');
select is(pg_temp.status(), '200', '... with 200');
select is(pg_temp.call('webhooks_list', 'a', null) -> 'items',
  jsonb_build_array((select value - 'secret' from seen where name = 'hook')), 'the list shows it without its secret');
select is(pg_temp.call('webhooks_list', 'b', null) -> 'items', '[]', 'another user sees none of it');
select is(pg_temp.error_of('webhook_delete', 'b', null, jsonb_build_object('id', (select value ->> 'id' from seen where name = 'hook'))) ->> 'code',
  'webhook_not_found', 'nor deletes it');

-- Events, queued with the write ----------------------------------------------------------------
select pg_temp.call('entry_create', 'a', '{"name": "Apple", "calories": 80, "source": "manual", "entry_date": "2024-05-01"}');
select pg_temp.call('sessions_create', 'a', '{"session_date": "2024-05-01", "status": "completed", "exercises": [{"exercise_name": "Barbell Squat", "sets": [{"reps": 5, "weight_kg": 100}]}]}');
select pg_temp.call('entry_create', 'b', '{"name": "Pear", "calories": 60, "source": "manual"}');
select is((select array_agg(o.kind order by o.id) from auth.outbox as o where o.channel = 'webhook'),
  array['diary.changed', 'workout.logged'], 'a diary entry and a completed session each queue one delivery; b, with no subscription, none');
select is((select o.payload -> 'data' from auth.outbox as o where o.kind = 'diary.changed'), '{"date": "2024-05-01"}',
  'diary.changed names the day');
select pg_temp.call('session_update', 'a', '{"notes": "again"}',
  jsonb_build_object('id', (select o.payload -> 'data' ->> 'session_id' from auth.outbox as o where o.kind = 'workout.logged')));
select is((select count(*) from auth.outbox as o where o.kind = 'workout.logged'), 1::bigint, 'an edit of a logged session logs it no second time');

-- Claims and leases -----------------------------------------------------------------------------
select pg_temp.call('auth_password_forgot', null, '{"email": "hooks-b@example.com"}');
-- A worker without a mail relay claims webhooks only: the mail waits, its tries untouched.
savepoint webhooks_only;
select is((select array_agg(kind order by id) from auth.outbox_claim('worker-0', 10, interval '1 minute', array['webhook'])),
  array['webhook', 'webhook'], 'a worker claims only the channels it sends');
rollback to savepoint webhooks_only;
create temporary table claim1 as select * from auth.outbox_claim('worker-1', 10, interval '1 minute');
select is((select array_agg(kind || ':' || coalesce(event, '') order by id) from claim1),
  array['webhook:diary.changed', 'webhook:workout.logged', 'email:password_reset'], 'a worker claims every due message, oldest first');
select is((select count(*) from auth.outbox_claim('worker-2', 10, interval '1 minute')), 0::bigint,
  'a second claim gets none of the leased rows');
select is((select email_variables ->> 'email' || ' ' || email_template || ' ' || (email_variables ? 'token')::text from claim1 where kind = 'email'),
  'hooks-b@example.com password_reset true', 'a mail: recipient, template and its variables (the token among them)');
select is((select webhook_signature from claim1 where event = 'diary.changed'),
  (select auth.webhook_signature((select value ->> 'secret' from seen where name = 'hook'), c.webhook_id, c.webhook_timestamp::bigint, c.webhook_body)
     from claim1 as c where c.event = 'diary.changed'), 'a webhook comes signed with the subscription''s secret over id, timestamp and body');
select is((select webhook_id = idempotency_key and webhook_body::jsonb ->> 'type' = 'diary.changed' and webhook_url = 'https://example.com/hooks' from claim1 where event = 'diary.changed'),
  true, '... its webhook-id is the idempotency key, its body {type, timestamp, data}');

-- Outcomes ------------------------------------------------------------------------------------------
select is(auth.outbox_record((select id from claim1 where kind = 'email'), 1, true, 250, null), 'delivered', 'a sent mail is delivered');
select is((select payload ? 'token' from auth.outbox where id = (select id from claim1 where kind = 'email')), false, '... and forgets its token');
select is(auth.outbox_record((select id from claim1 where event = 'diary.changed'), 1, false, 503, 'Service Unavailable'), 'retry',
  'a failed try is retried');
select ok((select next_attempt_at between clock_timestamp() + interval '23 seconds' and clock_timestamp() + interval '37 seconds'
                  and lease_until is null and last_status = 503
             from auth.outbox where id = (select id from claim1 where event = 'diary.changed')), '... after 30 s ± 20 %, its lease given back');
select is(auth.outbox_record((select id from claim1 where event = 'diary.changed'), 1, false, 503, 'again'), 'retry',
  '(a report of the same try again changes nothing new)');
-- A worker killed mid-delivery: the lease lapses and the row is claimed again, a new try.
update auth.outbox set lease_until = clock_timestamp() - interval '1 second' where id = (select id from claim1 where event = 'workout.logged');
select is((select array_agg(attempt::text || ':' || event) from auth.outbox_claim('worker-2', 10, interval '1 minute')),
  array['2:workout.logged'], 'a lapsed lease (a worker killed mid-delivery): delivered again, as try 2');
select is(auth.outbox_record((select id from claim1 where event = 'workout.logged'), 1, false, null, 'timeout'), 'ignored',
  'a late failure of the lapsed try is ignored');

-- Dead letters: with 2 tries allowed, the second failure is the last.
set local liftbase.delivery_max_attempts = 2;
update auth.outbox set next_attempt_at = clock_timestamp() - interval '1 second' where id = (select id from claim1 where event = 'diary.changed');
select is((select attempt from auth.outbox_claim('worker-1', 10, interval '1 minute')), 2, 'the retry is due again: try 2');
select is(auth.outbox_record((select id from claim1 where event = 'diary.changed'), 2, false, 500, 'Internal Server Error'), 'dead',
  'its last try failed: a dead letter');
select is((select array_agg(kind) from auth.outbox_list('dead')), array['diary.changed'], 'the operator lists dead letters');
select is((select count(*) from auth.outbox_claim('worker-1', 10, interval '1 minute') where event = 'diary.changed'), 0::bigint, 'a dead letter is not claimed');
select ok(auth.outbox_retry((select id from claim1 where event = 'diary.changed')), 'the operator retries it');
select is((select attempt from auth.outbox_claim('worker-1', 10, interval '1 minute') where event = 'diary.changed'), 1, '... and it gets its tries again');
select ok(auth.outbox_drop((select id from claim1 where event = 'diary.changed')) and not auth.outbox_drop(-1), 'the operator drops a message');
reset liftbase.delivery_max_attempts;

-- Deliveries as the user sees them, and the account's end ---------------------------------------
-- A SQL function keeps its plan for the rest of the (sub)transaction that first called it:
-- this first call runs in a savepoint of its own, so the paging call below is planned
-- afresh, with the 2,000 deliveries in the statistics (as each request's transaction is).
savepoint first_deliveries;
select is((select array_agg(d ->> 'event' || ':' || (d ->> 'status') || ':' || (d ->> 'attempts'))
             from jsonb_array_elements(pg_temp.call('webhook_deliveries', 'a', null, jsonb_build_object('id', (select value ->> 'id' from seen where name = 'hook'))) -> 'items') as d),
  array['workout.logged:pending:2'], 'GET /webhooks/{id}/deliveries: each delivery with its state and tries');
release savepoint first_deliveries;

-- A later page starts at its cursor in the subscription's index: among 2,000 deliveries, the
-- page after the 31st oldest reads that page and the row that tells whether more follow.
insert into auth.outbox (user_id, channel, kind, recipient, subscription_id, event_key, payload, delivered_at, attempts)
select (select user_id from tokens where name = 'a'), 'webhook', 'diary.changed', 'https://example.com/hooks',
       (select (value ->> 'id')::uuid from seen where name = 'hook'), 'paging/' || n, '{}', now(), 1
  from generate_series(1, 2000) as n;
analyze auth.outbox;
create function pg_temp.outbox_rows_read() returns numeric language sql as $$
  select coalesce(sum(t.idx_tup_fetch + t.seq_tup_read), 0) from pg_stat_xact_user_tables as t where t.relid = 'auth.outbox'::regclass
$$;
create temporary table deliveries_page as
select o.id as cursor, null::jsonb as page, null::numeric as rows_read
  from auth.outbox as o where o.event_key like 'paging/%' order by o.id offset 30 limit 1;
do $$
declare
  v_before numeric := pg_temp.outbox_rows_read();
  v_page jsonb := pg_temp.call('webhook_deliveries', 'a', null,
    jsonb_build_object('id', (select value ->> 'id' from seen where name = 'hook'), 'cursor', (select cursor::text from deliveries_page), 'limit', '20'));
begin
  update deliveries_page set page = v_page, rows_read = pg_temp.outbox_rows_read() - v_before;
end $$;
select is((select array_agg((d.item ->> 'id')::bigint order by d.n)
             from deliveries_page, jsonb_array_elements(page -> 'items') with ordinality as d (item, n)),
  (select array_agg(o.id order by o.id desc) from (select o.id from auth.outbox as o, deliveries_page as p
                                                  where o.event_key like 'paging/%' and o.id < p.cursor order by o.id desc limit 20) as o),
  'a page of deliveries after a cursor: the 20 next older ones, newest first');
select cmp_ok((select rows_read from deliveries_page), '<=', 21::numeric,
  '... read from its cursor in the index: the page and one more, not the 1,970 newer ones');
select pg_temp.call('me_delete', 'a', '{"password": "hooks a password"}');
select is((select array_agg(o.kind || ':' || (o.user_id is null)::text || ':' || o.webhook_url) from auth.outbox as o where o.channel = 'webhook'),
  array['account.deleted:true:https://example.com/hooks'],
  'deleting the account deletes its subscriptions and pending deliveries; account.deleted stays, with its url');
select is((select c.webhook_signature = auth.webhook_signature((select value ->> 'secret' from seen where name = 'hook'), c.webhook_id,
                                                                 c.webhook_timestamp::bigint, c.webhook_body)
             from auth.outbox_claim('worker-1', 10, interval '1 minute') as c where c.event = 'account.deleted'),
  true, '... signed with the secret it kept');

select * from finish();
rollback;
