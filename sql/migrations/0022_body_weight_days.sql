-- Each user's daily weights and trend weight, kept beside the weigh-ins: the trend of any
-- day depends on every weigh-in before it (exponential smoothing from the first weight), so
-- /analytics/weight, even over its last 30 days, and the adaptive expenditure estimate read
-- every weigh-in the user ever made (1,800 over five years) to answer a window.
--
-- One row per user and local day (the user's time zone, app.user_settings): the day's
-- weigh-ins, their mean and the trend up to that day. Kept by triggers in the transaction of
-- every write of app.body_metrics (the API, the Liftbase importer, an account's deletion)
-- and rebuilt when the user's time zone changes (days are local dates);
-- app.rebuild_body_weight_days (sql/functions/app_analytics.sql) rebuilds it for an
-- operator. A weigh-in of today changes one row; one dated back recomputes the trend of the
-- days after it.
create table app.body_weight_days (
  user_id   uuid not null references auth.users (id) on delete cascade,
  day       date not null,
  weigh_ins integer not null check (weigh_ins > 0),
  weight_kg numeric not null,
  trend_kg  numeric not null,
  primary key (user_id, day)
);
comment on table app.body_weight_days is
  'Mean weight and trend weight per user and local day, kept by triggers on app.body_metrics and app.user_settings';

alter table app.body_weight_days enable row level security;
alter table app.body_weight_days force row level security;
create policy own_rows on app.body_weight_days using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));

-- The trend rule, kept to 10 decimal places: computed exactly, each day added a digit, and
-- five years of weigh-ins made a trend of 1,800 digits (a stored one would grow as much).
-- sql/functions/app_analytics.sql, the rule's home, defines it again in the same words; it is
-- here so that the days filled below are rounded as every later write rounds them.
create or replace function app.weight_trend_step(p_trend numeric, p_weight numeric)
returns numeric
language sql
immutable
parallel safe
as $$ select case when p_trend is null then p_weight else round(p_trend + 0.1 * (p_weight - p_trend), 10) end $$;

-- Recomputes a user's given days from their weigh-ins (a day left without any goes), then
-- the trend of every day from the first of them on. The user's settings row is locked first:
-- two writes for one user (or a write and a time zone change) take turns, so neither
-- recomputes from weigh-ins the other is still adding. Runs as the user (row-level security).
create function app.refresh_body_weight_days(p_user_id uuid, p_days date[])
returns void
language plpgsql
as $$
declare
  v_zone text;
  v_day date;
  v_from date := (select min(d) from unnest(p_days) as d);
  v_trend numeric;
  v_row record;
begin
  select coalesce(s.timezone, 'UTC') into v_zone from app.user_settings as s where s.user_id = p_user_id for no key update;
  v_zone := coalesce(v_zone, 'UTC');
  foreach v_day in array p_days loop
    select count(*)::integer as weigh_ins, avg(b.weight_kg) as weight_kg into v_row
      from app.body_metrics as b
     where b.user_id = p_user_id
       and b.recorded_at >= (v_day::timestamp at time zone v_zone) and b.recorded_at < ((v_day + 1)::timestamp at time zone v_zone);
    if v_row.weigh_ins = 0 then
      delete from app.body_weight_days as w where w.user_id = p_user_id and w.day = v_day;
    else
      insert into app.body_weight_days as w (user_id, day, weigh_ins, weight_kg, trend_kg)
      values (p_user_id, v_day, v_row.weigh_ins, v_row.weight_kg, v_row.weight_kg)
      on conflict (user_id, day) do update set weigh_ins = excluded.weigh_ins, weight_kg = excluded.weight_kg;
    end if;
  end loop;
  select w.trend_kg into v_trend from app.body_weight_days as w
   where w.user_id = p_user_id and w.day < v_from order by w.day desc limit 1;
  for v_row in select w.day, w.weight_kg, w.trend_kg from app.body_weight_days as w
                where w.user_id = p_user_id and w.day >= v_from order by w.day loop
    v_trend := app.weight_trend_step(v_trend, v_row.weight_kg);
    if v_row.trend_kg is distinct from v_trend then
      update app.body_weight_days as w set trend_kg = v_trend where w.user_id = p_user_id and w.day = v_row.day;
    end if;
  end loop;
end
$$;
grant execute on function app.refresh_body_weight_days(uuid, date[]) to liftbase_api;

-- Weigh-ins written, changed or deleted: each user's days they fall on (in the user's zone),
-- recomputed acting as that user, and the request's own user given back at the end (as
-- app.keep_food_usage, migration 0020).
create function app.keep_body_weight_days() returns trigger
language plpgsql
as $$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_users refcursor;
  v_user record;
begin
  if tg_op = 'INSERT' then
    open v_users for select n.user_id, array_agg(distinct n.recorded_at) as times from new_entries as n group by 1;
  elsif tg_op = 'DELETE' then
    open v_users for select o.user_id, array_agg(distinct o.recorded_at) as times from old_entries as o group by 1;
  else
    open v_users for
      select c.user_id, array_agg(distinct c.recorded_at) as times
        from (select n.user_id, n.recorded_at from new_entries as n
              union all
              select o.user_id, o.recorded_at from old_entries as o) as c
       group by 1;
  end if;
  loop
    fetch v_users into v_user;
    exit when not found;
    perform set_config('liftbase.user_id', v_user.user_id::text, true);
    perform app.refresh_body_weight_days(v_user.user_id, array(
      select distinct (t at time zone coalesce((select s.timezone from app.user_settings as s where s.user_id = v_user.user_id), 'UTC'))::date
        from unnest(v_user.times) as t));
  end loop;
  close v_users;
  perform set_config('liftbase.user_id', coalesce(v_acting, ''), true);
  return null;
end
$$;

create trigger body_metrics_days_insert after insert on app.body_metrics
  referencing new table as new_entries for each statement execute function app.keep_body_weight_days();
create trigger body_metrics_days_update after update on app.body_metrics
  referencing old table as old_entries new table as new_entries for each statement execute function app.keep_body_weight_days();
create trigger body_metrics_days_delete after delete on app.body_metrics
  referencing old table as old_entries for each statement execute function app.keep_body_weight_days();

-- A new time zone moves every weigh-in to the day it falls on there: the user's days are
-- made again from all of their weigh-ins.
create function app.rezone_body_weight_days() returns trigger
language plpgsql
as $$
declare
  v_acting text := current_setting('liftbase.user_id', true);
begin
  perform set_config('liftbase.user_id', new.user_id::text, true);
  delete from app.body_weight_days as w where w.user_id = new.user_id;
  perform app.refresh_body_weight_days(new.user_id, array(
    select distinct (b.recorded_at at time zone new.timezone)::date from app.body_metrics as b where b.user_id = new.user_id));
  perform set_config('liftbase.user_id', coalesce(v_acting, ''), true);
  return null;
end
$$;
create trigger user_settings_weight_days after update of timezone on app.user_settings
  for each row when (old.timezone is distinct from new.timezone) execute function app.rezone_body_weight_days();

-- The weigh-ins as they stand, with the policies lifted for this transaction only (the owner
-- sees no user's rows through forced row-level security, as 0008 explains).
alter table app.body_weight_days no force row level security;
alter table app.body_metrics no force row level security;
alter table app.user_settings no force row level security;
do $$
declare
  v_user_id uuid;
begin
  for v_user_id in select distinct b.user_id from app.body_metrics as b loop
    perform app.refresh_body_weight_days(v_user_id, array(
      select distinct (b.recorded_at at time zone coalesce(s.timezone, 'UTC'))::date
        from app.body_metrics as b left join app.user_settings as s on s.user_id = b.user_id
       where b.user_id = v_user_id));
  end loop;
end
$$;
alter table app.body_weight_days force row level security;
alter table app.body_metrics force row level security;
alter table app.user_settings force row level security;
