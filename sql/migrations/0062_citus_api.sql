-- The API on Citus (docs/scaling.md "Each incompatibility met"). Like 0060 and 0061, every
-- statement that names a Citus function is dynamic SQL, and on a single node the
-- distribution is never called.

-- The change feed's helpers (0047) act as another user with set_config, which the workers
-- never see: auth.act_as also issues the SET LOCAL that Citus sends them.
create or replace function app.record_sync_change(p_user_id uuid, p_entity text, p_id text, p_op text)
returns void
language plpgsql
as $fn$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_other_user boolean := v_acting is distinct from p_user_id::text;
  v_seq bigint;
begin
  if v_other_user then
    perform auth.act_as(p_user_id);
  end if;
  -- An update first: the user's row is there but for a first write, and a plain update
  -- is cheaper than an upsert's speculative insert.
  update app.sync_state as s set last_seq = s.last_seq + 1 where s.user_id = p_user_id returning s.last_seq into v_seq;
  if v_seq is null then
    insert into app.sync_state as s (user_id, last_seq) values (p_user_id, 1)
    on conflict (user_id) do update set last_seq = s.last_seq + 1
    returning s.last_seq into v_seq;
  end if;
  insert into app.sync_changes as c (user_id, entity, entity_id, seq, op, changed_at)
  values (p_user_id, p_entity, p_id, v_seq, p_op, now())
  on conflict (user_id, entity, entity_id) do update
    set seq = excluded.seq, op = excluded.op, changed_at = excluded.changed_at;
  perform set_config('liftbase.sync_last', p_entity || '/' || p_id || '/' || p_op || '/' || statement_timestamp(), true);
  if v_other_user then
    perform auth.act_as(nullif(v_acting, '')::uuid);
  end if;
end
$fn$;

create or replace function app.sync_entity_exists(p_user_id uuid, p_entity text, p_id text)
returns boolean
language plpgsql
as $fn$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_exists boolean;
begin
  perform auth.act_as(p_user_id);
  if p_entity = 'session' then
    v_exists := exists (select from app.training_sessions as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'custom_meal' then
    v_exists := exists (select from app.custom_meals as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'plan' then
    v_exists := exists (select from app.plans as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'program' then
    v_exists := exists (select from app.programs as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'health_metric' then
    v_exists := exists (select from app.health_metrics as e where e.user_id = p_user_id and e.id = p_id::bigint);
  else
    raise exception 'app.sync_entity_exists: % has no parts', p_entity;
  end if;
  perform auth.act_as(nullif(v_acting, '')::uuid);
  return v_exists;
end
$fn$;

-- The distribution, continued: 0061's steps, then those below.
alter function liftbase_meta.distribute_on_citus() rename to drop_reference_table_writers_on_citus;

-- Citus cannot plan a statement that joins distributed tables while its parameters are
-- unbound ("could not create distributed plan"): a generic plan. Left to itself PostgreSQL
-- then takes a custom plan (Citus prices its generic plans out), but the functions that
-- force a generic plan on a single node (plan_cache_mode = force_generic_plan, so that a
-- plan is made once per connection) would fail, and so would every function they call (the
-- setting holds for the call). On Citus they get the default back. The function files are
-- applied again on every migrate, which restores the setting; the distribution runs after
-- them and takes it away again.
create or replace function liftbase_meta.reset_forced_generic_plans()
returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_function regprocedure;
  v_count integer := 0;
begin
  for v_function in
    select p.oid::regprocedure
      from pg_proc as p
      join pg_namespace as n on n.oid = p.pronamespace
     where n.nspname in ('app', 'auth', 'api')
       and 'plan_cache_mode=force_generic_plan' = any (p.proconfig)
     order by p.oid
  loop
    execute format('alter function %s reset plan_cache_mode', v_function);
    v_count := v_count + 1;
  end loop;
  return v_count;
end
$function$;

create or replace function liftbase_meta.distribute_on_citus()
returns text
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_result text := liftbase_meta.drop_reference_table_writers_on_citus();
begin
  if not exists (select from pg_extension where extname = 'citus') then
    return v_result;
  end if;
  perform liftbase_meta.reset_forced_generic_plans();
  return v_result;
end
$function$;

comment on function liftbase_meta.distribute_on_citus() is
  'On Citus: distributes the tables (distribute_tables_on_citus), drops the reference tables'' triggers that write other tables (drop_reference_table_writers_on_citus), lets the functions that force a generic plan take custom plans. Idempotent; liftbase migrate calls it when the citus extension is installed.';

revoke execute on function liftbase_meta.distribute_on_citus() from public;
revoke execute on function liftbase_meta.drop_reference_table_writers_on_citus() from public;
revoke execute on function liftbase_meta.reset_forced_generic_plans() from public;

-- Webhook events on Citus. The events are queued by row triggers on the users' tables
-- (0048), which on Citus run on the shard, on a worker; auth.outbox is a coordinator table
-- that a worker cannot write inside the coordinator's transaction. There the events wait in
-- app.webhook_queue instead, distributed with the user's rows (so the trigger's insert is
-- local to the shard), and the delivery worker's claim (auth.outbox_claim) moves them to
-- the outbox first. The queue's key to the subscription cascades: deleting a subscription
-- takes its waiting events with it. On a single node the queue stays empty: events go to
-- auth.outbox in the writing transaction, as before.
create table app.webhook_queue (
  user_id         uuid not null references auth.users (id) on delete cascade,
  id              uuid not null default gen_random_uuid(),
  subscription_id uuid not null,
  event           text not null,
  recipient       text not null,
  event_key       text,
  payload         jsonb not null,
  queued_at       timestamptz not null default now(),
  primary key (user_id, id),
  foreign key (user_id, subscription_id) references app.webhook_subscriptions (user_id, id) on delete cascade
);
comment on table app.webhook_queue is 'On Citus: webhook events waiting for the delivery worker to move them to auth.outbox (docs/scaling.md)';
create unique index webhook_queue_event_key on app.webhook_queue (user_id, subscription_id, event_key);
alter table app.webhook_queue enable row level security;
alter table app.webhook_queue force row level security;
create policy own_rows on app.webhook_queue using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));
-- The owner (the delivery worker's login, and the security definer functions that queue
-- events) moves every user's events.
create policy delivery on app.webhook_queue to liftbase_owner using (true) with check (true);

create or replace function app.enqueue_webhook_event(p_user_id uuid, p_event text, p_data jsonb, p_event_key text default null)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $fn$
begin
  if not exists (select from app.webhook_subscriptions as s where s.user_id = p_user_id) then
    return;
  end if;
  if app.on_citus() then
    insert into app.webhook_queue (user_id, subscription_id, event, recipient, event_key, payload)
    select p_user_id, s.id, p_event, s.url, p_event_key,
           jsonb_build_object('type', p_event,
                              'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                              'data', p_data)
      from app.webhook_subscriptions as s
     where s.user_id = p_user_id and p_event = any (s.events)
    on conflict (user_id, subscription_id, event_key) do nothing;
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

-- On Citus the outbox has no key to the subscriptions (0060): deleting one deletes its
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
revoke execute on function auth.outbox_take_webhook_queue() from public;
