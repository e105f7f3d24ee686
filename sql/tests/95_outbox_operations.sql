-- The outbox as operators watch it (docs/operations.md "Alerts"): the counts /metrics shows,
-- which the API role reads through auth.outbox_metrics() only; what a stopping worker gives
-- back (auth.outbox_release); whose leases hold the due rows; dead letters listed first.
begin;
\ir support/helpers.psql
select plan(13);

-- The outbox may hold rows of other files' tests: this file looks at its own worker names
-- and at the differences it makes.
create temporary table before as select * from auth.outbox_metrics();

insert into auth.outbox (channel, kind, recipient, next_attempt_at)
values ('email', 'password_reset', 'due-1@example.com', now() - interval '90 seconds'),
       ('email', 'password_reset', 'due-2@example.com', now() - interval '10 seconds'),
       ('email', 'password_reset', 'later@example.com', now() + interval '1 hour');
insert into auth.outbox (channel, kind, recipient, webhook_url, webhook_secret, delivered_at)
values ('webhook', 'account.deleted', 'https://hooks.example.com', 'https://hooks.example.com', 'whsec_x', now());
insert into auth.outbox (channel, kind, recipient, attempts, dead_at, last_error)
values ('email', 'password_reset', 'dead@example.com', 8, now(), 'msmtp exited 69');

create temporary table metrics as
select m.channel, m.due - b.due as due, m.oldest_due_seconds, m.in_flight - b.in_flight as in_flight,
       m.retrying - b.retrying as retrying, m.delivered - b.delivered as delivered, m.dead - b.dead as dead
  from auth.outbox_metrics() as m join before as b using (channel);
select is((select array_agg(channel order by channel) from metrics), array['email', 'webhook'],
  'a row for each channel, even one without messages');
select is((select (due, in_flight, retrying, delivered, dead)::text from metrics where channel = 'email'),
  '(2,0,0,0,1)', 'email: two due, none in flight, one dead letter');
select ok((select oldest_due_seconds >= 90 from metrics where channel = 'email'),
  'the oldest due message''s age, in seconds');
select is((select delivered from metrics where channel = 'webhook'), 1::bigint, 'webhook: one delivered');

-- The API role reads the counts, never the outbox.
set local role liftbase_api;
select lives_ok($$select * from auth.outbox_metrics()$$, 'the API role may read the counts');
select throws_ok($$select count(*) from auth.outbox$$, '42501', null, '... but not the outbox itself');
reset role;
select ok(not has_function_privilege('liftbase_reporter', 'auth.outbox_metrics()', 'execute'),
  'no other role is granted the counts');

-- A worker that stops gives back what it claimed: due at once, the try not spent.
create temporary table claimed as
select id, attempt from auth.outbox_claim('stopping-worker', 10, interval '1 minute', array['email'])
 where email_to like 'due-%@example.com';
select is((select count(*) from claimed), 2::bigint, 'the worker claims the two due mails');
select is(auth.outbox_leases_elsewhere('another-worker')::text, '(stopping-worker,2)',
  'another worker learns whose leases hold them');
select is(auth.outbox_release('another-worker', (select array_agg(id) from claimed)), 0,
  'only the worker holding the lease gives it back');
select is(auth.outbox_release('stopping-worker', (select array_agg(id) from claimed)), 2, 'the stopping worker gives both back');
select is((select array_agg((attempts, lease_until is null, locked_by is null)::text)
             from auth.outbox where id in (select id from claimed)),
  array['(0,t,t)', '(0,t,t)'], '... unleased, their tries given back');

-- `liftbase outbox list --all`: dead letters first, then the rest, oldest first.
select ok((select max(ord) filter (where dead_at is not null) < min(ord) filter (where dead_at is null)
             from auth.outbox_list('all') with ordinality
                  as l (id, channel, kind, recipient, attempts, next_attempt_at, last_status, last_error,
                        created_at, delivered_at, dead_at, ord)),
  'the dead letters lead the list');

select * from finish();
rollback;
