-- Webhook subscriptions (docs/webhooks.md): their checks, answers and deliveries.

-- Problems with a POST /webhooks body: url (http or https, at most 2,048 bytes) and events
-- (a non-empty list of the five events).
create or replace function app.webhook_problems(p_body jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  v_events_problem text;
begin
  if p_body -> 'events' is null or p_body -> 'events' = 'null'::jsonb then
    v_events_problem := 'is required';
  elsif app.input_problem(p_body -> 'events', 'string[]') is not null then
    v_events_problem := obj_description('app.webhook_events'::regtype, 'pg_type');
  else
    begin
      perform app.read_text_list(p_body, 'events')::app.webhook_events;
    exception when check_violation then
      v_events_problem := obj_description('app.webhook_events'::regtype, 'pg_type');
    end;
  end if;
  return jsonb_build_object('url', app.field_problem(p_body, 'url', 'app.webhook_url'), 'events', v_events_problem);
end
$$;

-- A subscription as GET /webhooks lists it (never its secret).
create or replace function app.webhook_json(p_subscription app.webhook_subscriptions)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object('id', p_subscription.id, 'url', p_subscription.url,
                            'events', to_jsonb(p_subscription.events), 'created_at', p_subscription.created_at)
$$;

-- Makes a subscription of the user (events once each, in the documented order) with a new
-- secret; answers it with the secret (the only answer that shows it).
create or replace function app.create_webhook(p_user_id uuid, p_body jsonb)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_subscription app.webhook_subscriptions;
  -- Read before the insert: Citus takes no subquery in an insert's values.
  v_events text[] := array(select e from unnest(array['workout.logged', 'diary.changed', 'metrics.updated',
                                                      'goal.changed', 'account.deleted']) with ordinality as k (e, n)
                            where e = any (app.read_text_list(p_body, 'events')) order by n);
begin
  insert into app.webhook_subscriptions (user_id, client_id, url, events, secret)
  values (p_user_id, app.read_uuid(p_body, 'client_id'), app.read_text(p_body, 'url'), v_events,
          auth.new_webhook_secret())
  returning * into v_subscription;
  return app.webhook_json(v_subscription) || jsonb_build_object('secret', v_subscription.secret);
end
$$;

-- A subscription answered again for a repeated client_id: the same answer as its create,
-- with the secret (a device that lost the first answer needs it).
create or replace function app.replayed_webhook(p_user_id uuid, p_id uuid)
returns jsonb
language sql
stable
as $$
  select app.webhook_json(row(s.*)::app.webhook_subscriptions) || jsonb_build_object('secret', s.secret)
    from app.webhook_subscriptions as s where s.user_id = p_user_id and s.id = p_id
$$;

-- A page of the subscription's deliveries, newest first: {items: [{id, event, status,
-- attempts, last_status, last_error, created_at, last_attempt_at, next_attempt_at,
-- delivered_at}], next_cursor}. status: pending, delivered or dead. The outbox is the
-- owner's: read here for the user only. The cursor bounds the index scan (the largest
-- bigint when there is none): as `p_after is null or x.id < p_after`, a filter the planned
-- statement cannot bound by, a later page passed over every newer delivery.
create or replace function app.webhook_deliveries(p_user_id uuid, p_subscription_id uuid, p_after bigint,
                                                  p_limit integer)
returns jsonb
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', o.id::text, 'event', o.kind,
           'status', case when o.delivered_at is not null then 'delivered' when o.dead_at is not null then 'dead'
                          else 'pending' end,
           'attempts', o.attempts, 'last_status', o.last_status, 'last_error', o.last_error,
           'created_at', o.created_at, 'last_attempt_at', o.last_attempt_at,
           'next_attempt_at', case when o.delivered_at is null and o.dead_at is null then o.next_attempt_at end,
           'delivered_at', o.delivered_at) order by o.id desc), '[]')
    from (select * from auth.outbox as x
           where x.user_id = p_user_id and x.subscription_id = p_subscription_id
             and x.id < coalesce(p_after, 9223372036854775807)
           order by x.id desc
           limit p_limit + 1) as o
$$;

grant execute on function
  app.webhook_problems(jsonb),
  app.webhook_json(app.webhook_subscriptions),
  app.create_webhook(uuid, jsonb),
  app.replayed_webhook(uuid, uuid),
  app.webhook_deliveries(uuid, uuid, bigint, integer)
to liftbase_api;

-- The body of every webhook delivery (docs/webhooks.md): the event's type, when it happened
-- (the transaction's time, in UTC with microseconds) and its data.
create or replace function app.webhook_envelope(p_event text, p_data jsonb)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object('type', p_event,
                            'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                            'data', p_data)
$$;

-- account.deleted for p_user_id's subscriptions that hear it: queued before the account's row
-- goes, with the url and secret copied and no user or subscription, so that the cascade
-- (which takes the subscriptions and their pending deliveries) leaves it. Called by the
-- trigger on auth.users (migration 0048) and, on Citus, where that trigger is dropped, by
-- the functions that delete accounts.
create or replace function app.queue_account_deleted(p_user_id uuid)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_payload jsonb := app.webhook_envelope('account.deleted', jsonb_build_object('user_id', p_user_id));
begin
  perform auth.act_as(p_user_id);
  insert into auth.outbox (channel, kind, recipient, webhook_url, webhook_secret, payload)
  select 'webhook', 'account.deleted', s.url, s.url, s.secret, v_payload
    from app.webhook_subscriptions as s
   where s.user_id = p_user_id and 'account.deleted' = any (s.events);
  perform auth.act_as(nullif(v_acting, '')::uuid);
end
$$;

create or replace function app.webhook_account_deleted() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  perform app.queue_account_deleted(old.id);
  return old;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
-- 'single node': on Citus a trigger on a reference table runs on every node's copy, and
-- one that writes another table is refused; there the functions that make the change do
-- this work (docs/scaling.md).
select liftbase_meta.keep_trigger($$CREATE TRIGGER users_webhook_account_deleted BEFORE DELETE ON auth.users FOR EACH ROW EXECUTE FUNCTION app.webhook_account_deleted()$$, 'single node');

-- The row triggers behind the events (docs/webhooks.md "Events"; migration 0048 made the
-- triggers). A statement that changes many rows queues one event per subscription: the
-- key names the statement.
create or replace function app.webhook_event_trigger() returns trigger
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
  -- Each event's branch reads the columns of its own table: plpgsql_check, which checks
  -- every branch against the trigger's table, skips them.
  perform 'PRAGMA:disable:check';
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
  perform 'PRAGMA:enable:check';
  return null;
end
$fn$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
select liftbase_meta.keep_trigger($$CREATE TRIGGER body_metrics_webhook AFTER INSERT OR DELETE OR UPDATE ON app.body_metrics FOR EACH ROW EXECUTE FUNCTION app.webhook_event_trigger('metrics.updated')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_webhook_delete AFTER DELETE ON app.food_entries FOR EACH ROW EXECUTE FUNCTION app.webhook_event_trigger('diary.changed')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_webhook_insert AFTER INSERT ON app.food_entries FOR EACH ROW EXECUTE FUNCTION app.webhook_event_trigger('diary.changed')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_webhook_update AFTER UPDATE ON app.food_entries FOR EACH ROW WHEN ((old.* IS DISTINCT FROM new.*)) EXECUTE FUNCTION app.webhook_event_trigger('diary.changed')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER goals_webhook AFTER INSERT OR UPDATE ON app.goals FOR EACH ROW EXECUTE FUNCTION app.webhook_event_trigger('goal.changed')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER health_metrics_webhook AFTER INSERT OR DELETE OR UPDATE ON app.health_metrics FOR EACH ROW EXECUTE FUNCTION app.webhook_event_trigger('metrics.updated')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER training_sessions_webhook_insert AFTER INSERT ON app.training_sessions FOR EACH ROW WHEN (((new.status)::text = 'completed'::text)) EXECUTE FUNCTION app.webhook_event_trigger('workout.logged')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER training_sessions_webhook_update AFTER UPDATE OF status ON app.training_sessions FOR EACH ROW WHEN ((((new.status)::text = 'completed'::text) AND ((old.status)::text IS DISTINCT FROM 'completed'::text))) EXECUTE FUNCTION app.webhook_event_trigger('workout.logged')$$);

create or replace function app.enqueue_webhook_event(p_user_id uuid, p_event text, p_data jsonb,
                                                     p_event_key text default null)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $fn$
declare
  v_payload jsonb;
begin
  if not exists (select from app.webhook_subscriptions as s where s.user_id = p_user_id) then
    return;
  end if;
  v_payload := app.webhook_envelope(p_event, p_data);
  if app.on_citus() then
    insert into app.webhook_queue (user_id, subscription_id, event, recipient, event_key, payload)
    select p_user_id, s.id, p_event, s.url, p_event_key, v_payload
      from app.webhook_subscriptions as s
     where s.user_id = p_user_id and p_event = any (s.events)
    on conflict (user_id, subscription_id, event_key) do nothing;
    return;
  end if;
  insert into auth.outbox (user_id, channel, kind, recipient, subscription_id, event_key, payload)
  select p_user_id, 'webhook', p_event, s.url, s.id, p_event_key, v_payload
    from app.webhook_subscriptions as s
   where s.user_id = p_user_id and p_event = any (s.events)
  on conflict (subscription_id, event_key) do nothing;
end
$fn$;

-- On Citus the outbox has no key to the subscriptions (migration 0060): deleting one deletes its
-- deliveries here (api.webhook_delete), as the key's cascade does on a single node.
create or replace function app.forget_webhook_deliveries(p_user_id uuid, p_subscription_id uuid)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $fn$
begin
  delete from auth.outbox as o where o.user_id = p_user_id and o.subscription_id = p_subscription_id;
end
$fn$;
revoke execute on function app.forget_webhook_deliveries(uuid, uuid) from public;
grant execute on function app.forget_webhook_deliveries(uuid, uuid) to liftbase_api;
