-- The outbox delivers (docs/webhooks.md, docs/operations.md "Outbox"): one table for mails
-- and webhook deliveries, taken by delivery workers with `for update skip locked` under a
-- lease, retried with exponential backoff and jitter, dead after a number of tries; and
-- users' webhook subscriptions.

-- Subscriptions -------------------------------------------------------------------------------

create domain app.webhook_url as text
  check (value ~ '^[hH][tT][tT][pP][sS]?://' and octet_length(value) <= 2048);
comment on domain app.webhook_url is 'must be an http or https URL of at most 2,048 bytes';
create domain app.webhook_events as text[]
  check (cardinality(value) between 1 and 5
         and value <@ array['workout.logged', 'diary.changed', 'metrics.updated', 'goal.changed', 'account.deleted']);
comment on domain app.webhook_events is
  'must be a list of 1 to 5 of workout.logged, diary.changed, metrics.updated, goal.changed, account.deleted';

create table app.webhook_subscriptions (
  user_id    uuid not null references auth.users (id) on delete cascade,
  id         uuid not null default gen_random_uuid(),
  client_id  uuid,
  url        app.webhook_url not null,
  events     app.webhook_events not null,
  -- Standard Webhooks: 'whsec_' and the base64 of the key; shown once, at create.
  secret     text not null check (secret like 'whsec\_%'),
  created_at timestamptz not null default now(),
  primary key (user_id, id)
);
comment on table app.webhook_subscriptions is 'A user''s endpoints and the events each one hears (docs/webhooks.md)';
create unique index webhook_subscriptions_client_key on app.webhook_subscriptions (user_id, client_id);
alter table app.webhook_subscriptions enable row level security;
alter table app.webhook_subscriptions force row level security;
create policy own_rows on app.webhook_subscriptions using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));

-- The outbox ------------------------------------------------------------------------------------

-- auth.outbox held reset mails acknowledged by hand (acked_at). Now every row is a message
-- of a channel ('email' or 'webhook') and kind (the mail's template, 'password_reset', or
-- the webhook's event), with its delivery state.
alter table auth.outbox
  add column channel         text not null default 'email' check (channel in ('email', 'webhook')),
  -- Unique per message and the same on every retry: the webhook-id header, a mail's
  -- Message-ID; receivers drop repeats by it (delivery is at least once).
  add column idempotency_key text not null default 'msg_' || replace(gen_random_uuid()::text, '-', ''),
  add column attempts        integer not null default 0,
  add column next_attempt_at timestamptz not null default now(),
  -- A worker's claim: until lease_until no other worker takes the row. A worker killed
  -- mid-delivery lets it lapse, and the row is delivered again.
  add column lease_until     timestamptz,
  add column locked_by       text,
  add column last_attempt_at timestamptz,
  add column last_status     integer,
  add column last_error      text,
  add column delivered_at    timestamptz,
  add column dead_at         timestamptz,
  -- A webhook delivery: its subscription (gone with it), or, for account.deleted, which
  -- outlives the account and its subscriptions, the url and secret copied.
  add column subscription_id uuid,
  add column webhook_url     text,
  add column webhook_secret  text,
  -- At most one delivery per subscription and key (one workout.logged per session).
  add column event_key       text,
  add constraint outbox_subscription_fkey foreign key (user_id, subscription_id)
    references app.webhook_subscriptions (user_id, id) on delete cascade,
  add constraint outbox_webhook_target check (
    channel = 'email' or subscription_id is not null or (webhook_url is not null and webhook_secret is not null));
update auth.outbox set delivered_at = acked_at where acked_at is not null;
alter table auth.outbox drop column acked_at;
create unique index outbox_idempotency_key on auth.outbox (idempotency_key);
create unique index outbox_event_key on auth.outbox (subscription_id, event_key);
-- What workers look for: undelivered, live rows by due time.
create index outbox_due_idx on auth.outbox (next_attempt_at) where delivered_at is null and dead_at is null;
-- GET /webhooks/{id}/deliveries: a subscription's newest first.
create index outbox_subscription_idx on auth.outbox (user_id, subscription_id, id desc) where subscription_id is not null;

-- Events ------------------------------------------------------------------------------------------

-- Queues p_event with p_data for each of the user's subscriptions that hears it, in the
-- writing transaction; p_event_key (when given) makes it once per subscription. For a
-- user without subscriptions this is one look-up of the subscriptions' primary key.
-- PL/pgSQL, not SQL: a SQL function called from a trigger plans its statement on every
-- call (0.3 ms), PL/pgSQL keeps the plans.
create function app.enqueue_webhook_event(p_user_id uuid, p_event text, p_data jsonb, p_event_key text default null)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $fn$
begin
  if not exists (select from app.webhook_subscriptions as s where s.user_id = p_user_id) then
    return;
  end if;
  insert into auth.outbox (user_id, channel, kind, recipient, subscription_id, event_key, payload)
  select p_user_id, 'webhook', p_event, s.url, s.id, p_event_key,
         jsonb_build_object('type', p_event,
                            'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                            'data', p_data)
    from app.webhook_subscriptions as s
   where s.user_id = p_user_id and p_event = any (s.events)
  on conflict (subscription_id, event_key) do nothing;
end
$fn$;

-- The row triggers behind the events (docs/webhooks.md "Events"). A statement that
-- changes many rows queues one event per subscription: the key names the statement.
create function app.webhook_event_trigger() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $fn$
declare
  v_event text := tg_argv[0];
  v_row record;
  v_statement text;
begin
  if tg_op = 'DELETE' then
    v_row := old;
  else
    v_row := new;
  end if;
  if current_setting('liftbase.deleting_user', true) = v_row.user_id::text
     or not exists (select from app.webhook_subscriptions as s where s.user_id = v_row.user_id) then
    return null;
  end if;
  -- One request's rows of many days or metrics queue one event per day or request.
  v_statement := pg_current_xact_id()::text || '/' || statement_timestamp();
  if v_event = 'workout.logged' then
    perform app.enqueue_webhook_event(v_row.user_id, v_event,
      jsonb_build_object('session_id', v_row.id, 'session_date', v_row.session_date, 'name', v_row.name,
                         'finished_at', v_row.finished_at),
      'session/' || v_row.id);
  elsif v_event = 'diary.changed' then
    perform app.enqueue_webhook_event(v_row.user_id, v_event, jsonb_build_object('date', v_row.entry_date),
      v_statement || '/' || v_row.entry_date);
  else
    perform app.enqueue_webhook_event(v_row.user_id, v_event, '{}', v_statement);
  end if;
  return null;
end
$fn$;

-- A session is logged when it is created completed or becomes completed (once per session).
create trigger training_sessions_webhook_insert after insert on app.training_sessions for each row
  when (new.status = 'completed') execute function app.webhook_event_trigger('workout.logged');
create trigger training_sessions_webhook_update after update of status on app.training_sessions for each row
  when (new.status = 'completed' and old.status is distinct from 'completed')
  execute function app.webhook_event_trigger('workout.logged');
create trigger food_entries_webhook_insert after insert on app.food_entries for each row
  execute function app.webhook_event_trigger('diary.changed');
create trigger food_entries_webhook_update after update on app.food_entries for each row
  when (old.* is distinct from new.*) execute function app.webhook_event_trigger('diary.changed');
create trigger food_entries_webhook_delete after delete on app.food_entries for each row
  execute function app.webhook_event_trigger('diary.changed');
create trigger body_metrics_webhook after insert or update or delete on app.body_metrics for each row
  execute function app.webhook_event_trigger('metrics.updated');
create trigger health_metrics_webhook after insert or update or delete on app.health_metrics for each row
  execute function app.webhook_event_trigger('metrics.updated');
create trigger goals_webhook after insert or update on app.goals for each row
  execute function app.webhook_event_trigger('goal.changed');

-- account.deleted: queued before the account's row goes, with the url and secret copied and
-- no user or subscription, so that the cascade (which takes the subscriptions and their
-- pending deliveries) leaves it.
create function app.webhook_account_deleted() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $fn$
declare
  v_acting text := current_setting('liftbase.user_id', true);
begin
  perform set_config('liftbase.user_id', old.id::text, true);
  insert into auth.outbox (channel, kind, recipient, webhook_url, webhook_secret, payload)
  select 'webhook', 'account.deleted', s.url, s.url, s.secret,
         jsonb_build_object('type', 'account.deleted',
                            'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                            'data', jsonb_build_object('user_id', old.id))
    from app.webhook_subscriptions as s
   where s.user_id = old.id and 'account.deleted' = any (s.events);
  perform set_config('liftbase.user_id', coalesce(v_acting, ''), true);
  return old;
end
$fn$;
create trigger users_webhook_account_deleted before delete on auth.users for each row
  execute function app.webhook_account_deleted();
