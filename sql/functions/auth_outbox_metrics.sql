-- The outbox as the server's /metrics shows it (docs/operations.md "Alerts"). The API role
-- may not read the outbox (it holds reset tokens and webhook secrets): this function, run as
-- its owner, answers counts only.
--
-- One row per channel (email, webhook), both always present: due (waiting for a worker now),
-- the age of the oldest due message in seconds (0 when none is due), in flight (leased by a
-- worker), retrying (pending after a failed try), delivered and dead (kept until
-- `liftbase outbox prune`).
create or replace function auth.outbox_metrics()
returns table (channel text, due bigint, oldest_due_seconds double precision, in_flight bigint,
               retrying bigint, delivered bigint, dead bigint)
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := clock_timestamp();
begin
  return query
  with pending as (
    select o.channel,
           o.next_attempt_at <= v_now and (o.lease_until is null or o.lease_until <= v_now) as is_due,
           o.lease_until > v_now as is_leased,
           o.attempts > 0 and (o.lease_until is null or o.lease_until <= v_now) as is_retrying,
           o.next_attempt_at
      from auth.outbox as o
     where o.delivered_at is null and o.dead_at is null),
  kept as (
    select o.channel, count(*) filter (where o.delivered_at is not null) as delivered,
           count(*) filter (where o.dead_at is not null) as dead
      from auth.outbox as o
     where o.delivered_at is not null or o.dead_at is not null
     group by o.channel)
  select c.channel,
         coalesce((select count(*) from pending as p where p.channel = c.channel and p.is_due), 0),
         coalesce((select extract(epoch from v_now - min(p.next_attempt_at))::double precision
                     from pending as p where p.channel = c.channel and p.is_due), 0),
         coalesce((select count(*) from pending as p where p.channel = c.channel and p.is_leased), 0),
         coalesce((select count(*) from pending as p where p.channel = c.channel and p.is_retrying), 0),
         coalesce((select k.delivered from kept as k where k.channel = c.channel), 0),
         coalesce((select k.dead from kept as k where k.channel = c.channel), 0)
    from unnest(array['email', 'webhook']) as c (channel)
   order by c.channel;
end
$$;

revoke execute on function auth.outbox_metrics() from public;
grant execute on function auth.outbox_metrics() to liftbase_api;
