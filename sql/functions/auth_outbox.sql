-- The outbox's delivery rules (docs/webhooks.md, docs/operations.md "Outbox"): what a
-- delivery worker claims and records, the backoff, Standard Webhooks signatures, and the
-- operator's `liftbase outbox` functions. Run by the owner: nothing here is granted to the
-- API role (the outbox holds reset tokens and webhook secrets).

-- How many tries a message gets before it is a dead letter: the worker's
-- LIFTBASE_DELIVERY_MAX_ATTEMPTS, which it sets on its connection as
-- liftbase.delivery_max_attempts; 8 when unset.
create or replace function auth.delivery_max_attempts()
returns integer
language sql
stable
as $$
  select coalesce(nullif(current_setting('liftbase.delivery_max_attempts', true), '')::integer, 8)
$$;

-- The wait before try p_attempt + 1 after try p_attempt failed: 30 s × 2^(attempt − 1),
-- at most 6 hours, times a jitter of ±20 % (p_jitter in [0, 1): 0 is −20 %, 1 is +20 %)
-- so that messages failing together do not come back together.
create or replace function auth.delivery_backoff(p_attempt integer, p_jitter double precision default random())
returns interval
language sql
immutable
as $$
  select least(interval '30 seconds' * power(2, least(greatest(p_attempt, 1) - 1, 30)), interval '6 hours')
         * (0.8 + 0.4 * p_jitter)
$$;

-- Standard Webhooks (https://www.standardwebhooks.com): the signature of a delivery,
-- 'v1,' and the base64 of HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>", keyed
-- with the base64-decoded part of the secret after 'whsec_'.
create or replace function auth.webhook_signature(p_secret text, p_id text, p_timestamp bigint, p_body text)
returns text
language sql
immutable
as $$
  select 'v1,' || encode(public.hmac(convert_to(p_id || '.' || p_timestamp || '.' || p_body, 'UTF8'),
                                     decode(substr(p_secret, length('whsec_') + 1), 'base64'), 'sha256'), 'base64')
$$;

-- A new subscription's secret: 'whsec_' and the base64 of 24 random bytes.
create or replace function auth.new_webhook_secret()
returns text
language sql
volatile
as $$ select 'whsec_' || encode(public.gen_random_bytes(24), 'base64') $$;

-- For delivery workers: up to p_limit due messages (not delivered, not dead, due, not
-- leased), taken with `for update skip locked` so that workers never take the same row at
-- once, each leased to p_worker for p_lease and its try counted. A row whose lease lapsed
-- after its last try (the worker died) becomes a dead letter instead. Answers what the
-- worker sends:
--   kind 'email':   email_to, email_template (its files: docs/webhooks.md "Mail
--                   templates") and email_variables (for password_reset: token, expires_at,
--                   email; the worker builds the link from LIFTBASE_PUBLIC_URL);
--   kind 'webhook': webhook_url, webhook_body (the exact bytes to POST, JSON) and the
--                   three Standard Webhooks headers, signed for this try.
-- The worker delivers and calls auth.outbox_record(id, attempt, ...) with the attempt
-- given here. p_channels: the channels this worker sends (one without a mail relay takes
-- no mail, which then waits instead of using up its tries).
create or replace function auth.outbox_claim(p_worker text, p_limit integer, p_lease interval,
                                             p_channels text[] default array['email', 'webhook'])
returns table (id bigint, attempt integer, kind text, idempotency_key text, event text,
               email_to text, email_template text, email_variables jsonb,
               webhook_url text, webhook_body text, webhook_id text, webhook_timestamp text, webhook_signature text)
language plpgsql
as $$
declare
  v_max integer := auth.delivery_max_attempts();
  v_now timestamptz := clock_timestamp();
  v_acting text := current_setting('liftbase.user_id', true);
  v_row auth.outbox;
  v_url text;
  v_secret text;
begin
  -- On Citus the users' webhook events wait in app.webhook_queue (migration 0062).
  if app.on_citus() then
    perform auth.outbox_take_webhook_queue();
  end if;
  update auth.outbox as o
     set dead_at = v_now, lease_until = null, locked_by = null,
         last_error = coalesce(o.last_error, 'the worker stopped during the last try')
   where o.delivered_at is null and o.dead_at is null and o.attempts >= v_max and o.lease_until <= v_now;
  for v_row in
    with due as (
      select o.id from auth.outbox as o
       where o.delivered_at is null and o.dead_at is null and o.next_attempt_at <= v_now
         and (o.lease_until is null or o.lease_until <= v_now) and o.attempts < v_max
         and o.channel = any (p_channels)
       order by o.next_attempt_at, o.id
       limit greatest(p_limit, 0)
         for update skip locked),
    claimed as (
      update auth.outbox as o
         set attempts = o.attempts + 1, lease_until = v_now + p_lease, locked_by = p_worker, last_attempt_at = v_now
        from due
       where o.id = due.id
      returning o.*)
    select c.* from claimed as c order by c.next_attempt_at, c.id
  loop
    v_url := v_row.webhook_url;
    v_secret := v_row.webhook_secret;
    if v_row.channel = 'webhook' and v_secret is null then
      -- The subscription is the user's row (forced row-level security): read it as them.
      perform auth.act_as(v_row.user_id);
      select s.url, s.secret into v_url, v_secret
        from app.webhook_subscriptions as s
       where s.user_id = v_row.user_id and s.id = v_row.subscription_id;
      perform auth.act_as(nullif(v_acting, '')::uuid);
    end if;
    id := v_row.id;
    attempt := v_row.attempts;
    kind := v_row.channel;
    idempotency_key := v_row.idempotency_key;
    event := v_row.kind;
    email_to := case when v_row.channel = 'email' then v_row.recipient end;
    email_template := case when v_row.channel = 'email' then v_row.kind end;
    email_variables := case when v_row.channel = 'email'
                            then (v_row.payload - 'email') || jsonb_build_object('email', v_row.recipient) end;
    webhook_url := case when v_row.channel = 'webhook' then v_url end;
    webhook_body := case when v_row.channel = 'webhook' then v_row.payload::text end;
    webhook_id := case when v_row.channel = 'webhook' then v_row.idempotency_key end;
    webhook_timestamp := case when v_row.channel = 'webhook' then extract(epoch from v_now)::bigint::text end;
    webhook_signature := case when v_row.channel = 'webhook'
                              then auth.webhook_signature(v_secret, v_row.idempotency_key,
                                                          extract(epoch from v_now)::bigint, v_row.payload::text) end;
    return next;
  end loop;
end
$$;

-- For delivery workers: the outcome of try p_attempt of message p_id. Success marks it
-- delivered (a reset mail then forgets its token), whichever try it was. A failure of the
-- message's current try (a late report of an older, lapsed try is ignored) sets it due
-- again after the backoff, or dead after the last try. p_status is the HTTP status or SMTP
-- reply code (null when none came), p_error what went wrong (kept to 1,000 characters).
-- Answers the message's state: 'delivered', 'retry', 'dead', or 'ignored' (no such
-- message, already delivered, or a report of a lapsed try).
create or replace function auth.outbox_record(p_id bigint, p_attempt integer, p_ok boolean, p_status integer,
                                              p_error text)
returns text
language plpgsql
as $$
declare
  v_row auth.outbox;
  v_now timestamptz := clock_timestamp();
  v_next timestamptz;
begin
  select o.* into v_row from auth.outbox as o where o.id = p_id for update;
  if v_row.id is null or v_row.delivered_at is not null then
    return 'ignored';
  end if;
  if p_ok then
    update auth.outbox as o
       set delivered_at = v_now, dead_at = null, lease_until = null, locked_by = null, last_status = p_status,
           last_error = null, payload = case when o.channel = 'email' then o.payload - 'token' else o.payload end
     where o.id = p_id;
    return 'delivered';
  end if;
  if v_row.attempts <> p_attempt or v_row.dead_at is not null then
    return 'ignored';
  end if;
  if v_row.attempts >= auth.delivery_max_attempts() then
    update auth.outbox as o
       set dead_at = v_now, lease_until = null, locked_by = null, last_status = p_status,
           last_error = left(p_error, 1000)
     where o.id = p_id;
    return 'dead';
  end if;
  -- Computed first: the backoff's jitter is volatile, which Citus refuses inside an update of
  -- its tables.
  v_next := v_now + auth.delivery_backoff(p_attempt);
  update auth.outbox as o
     set next_attempt_at = v_next, lease_until = null, locked_by = null,
         last_status = p_status, last_error = left(p_error, 1000)
   where o.id = p_id;
  return 'retry';
end
$$;

-- For a delivery worker that stops (SIGTERM) with messages claimed and not sent, or sent and
-- cut off before an answer: they are due again at once for any worker, and the try they
-- were given is given back, as it was never made (a receiver that did get a cut-off webhook
-- drops the repeat by its webhook-id). Only the messages still this worker's lease are
-- touched. Answers how many were released.
create or replace function auth.outbox_release(p_worker text, p_ids bigint[])
returns integer
language plpgsql
as $$
declare
  -- Read first: Citus refuses a volatile function in the condition of an update.
  v_now timestamptz := clock_timestamp();
  v_count integer;
begin
  update auth.outbox as o
     set attempts = greatest(o.attempts - 1, 0), lease_until = null, locked_by = null
   where o.id = any (p_ids) and o.locked_by = p_worker and o.lease_until > v_now
     and o.delivered_at is null and o.dead_at is null;
  get diagnostics v_count = row_count;
  return v_count;
end
$$;

-- For `liftbase deliver --once` that found nothing due: the workers whose leases hold due
-- messages now, and how many each holds.
create or replace function auth.outbox_leases_elsewhere(p_worker text)
returns table (worker text, messages bigint)
language plpgsql
stable
as $$
begin
  return query
  select o.locked_by, count(*)
    from auth.outbox as o
   where o.delivered_at is null and o.dead_at is null and o.lease_until > clock_timestamp()
     and o.locked_by is distinct from p_worker
   group by o.locked_by
   order by o.locked_by;
end
$$;

-- `liftbase outbox list [--dead | --all]`: messages by state ('pending': not delivered and
-- not dead; 'dead'; 'delivered'; 'all'), dead letters first, then oldest first. No secrets: reset tokens and
-- webhook bodies stay in the table. These operator functions are PL/pgSQL: Citus cannot plan
-- a SQL function's statement on its coordinator tables with the parameters left in.
create or replace function auth.outbox_list(p_state text default 'pending')
returns table (id bigint, channel text, kind text, recipient text, attempts integer, next_attempt_at timestamptz,
               last_status integer, last_error text, created_at timestamptz, delivered_at timestamptz,
               dead_at timestamptz)
language plpgsql
stable
as $$
begin
  return query
  select o.id, o.channel, o.kind, o.recipient, o.attempts, o.next_attempt_at, o.last_status, o.last_error,
         o.created_at, o.delivered_at, o.dead_at
    from auth.outbox as o
   where case p_state
           when 'pending' then o.delivered_at is null and o.dead_at is null
           when 'dead' then o.dead_at is not null
           when 'delivered' then o.delivered_at is not null
           when 'all' then true
         end
   order by o.dead_at is null, o.id;
end
$$;

-- `liftbase outbox retry ID`: a dead letter gets its tries again, due now; false when p_id
-- is no dead letter.
create or replace function auth.outbox_retry(p_id bigint)
returns boolean
language plpgsql
as $$
begin
  update auth.outbox as o
     set dead_at = null, attempts = 0, next_attempt_at = now(), lease_until = null, locked_by = null
   where o.id = p_id and o.dead_at is not null and o.delivered_at is null;
  return found;
end
$$;

-- `liftbase outbox drop ID`: removes an undelivered message (pending or dead); false when
-- there is none.
create or replace function auth.outbox_drop(p_id bigint)
returns boolean
language plpgsql
as $$
begin
  delete from auth.outbox as o where o.id = p_id and o.delivered_at is null;
  return found;
end
$$;

-- For the operator's cron (daily): removes delivered messages and dead letters older than
-- p_older_than (default 30 days); GET /webhooks/{id}/deliveries shows what is left.
create or replace function auth.outbox_prune(p_older_than interval default interval '30 days')
returns bigint
language plpgsql
as $$
declare
  v_count bigint;
begin
  delete from auth.outbox as o where coalesce(o.delivered_at, o.dead_at) < now() - p_older_than;
  get diagnostics v_count = row_count;
  return v_count;
end
$$;

-- On Citus: the queued events move to the outbox (auth.outbox_claim calls it first there).
-- Returns how many were moved. A statement across every shard: one round trip to each
-- worker per claim.
create or replace function auth.outbox_take_webhook_queue()
returns integer
language plpgsql
as $fn$
declare
  v_count integer;
begin
  with taken as (delete from app.webhook_queue as q returning q.*)
  insert into auth.outbox (user_id, channel, kind, recipient, subscription_id, event_key, payload, created_at)
  select t.user_id, 'webhook', t.event, t.recipient, t.subscription_id, t.event_key, t.payload, t.queued_at
    from taken as t
   order by t.queued_at
  on conflict (subscription_id, event_key) do nothing;
  get diagnostics v_count = row_count;
  return v_count;
end
$fn$;
revoke execute on function auth.outbox_take_webhook_queue() from public;
