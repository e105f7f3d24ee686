-- The daily and trend weights (app.body_weight_days, migration 0022), which /analytics/weight
-- and the expenditure estimate read instead of every weigh-in, are what the weigh-ins say.
-- Property (seed 0.2022, 150 random operations on two users): after every operation each
-- user's days are the weigh-ins grouped by local day in the user's current time zone, with
-- the day's mean and the trend over all the days up to it (app.weight_trend, the rule the
-- read used before). The operations: weigh-ins of today and dated back, several a day, as
-- the user (the API role) and through the Liftbase importer's section; a change of time zone
-- through the API (every day moves); weigh-ins deleted by the operator (as the owner, no
-- user). Then app.rebuild_body_weight_days rebuilds the same rows.
begin;
\ir support/helpers.psql
select plan(5);
select setseed(0.2022);

select pg_temp.sign_up('a', 'weights-a@example.com', 'weights a password');
select pg_temp.sign_up('b', 'weights-b@example.com', 'weights b password');

-- What the weigh-ins say (the test runs as a superuser: all rows).
create temporary view days_by_weigh_ins as
select d.user_id, d.day, d.weigh_ins, d.weight_kg, app.weight_trend(d.weight_kg) over (partition by d.user_id order by d.day) as trend_kg
  from (select b.user_id, (b.recorded_at at time zone coalesce(s.timezone, 'UTC'))::date as day, count(*)::integer as weigh_ins,
               avg(b.weight_kg) as weight_kg
          from app.body_metrics as b left join app.user_settings as s on s.user_id = b.user_id
         group by 1, 2) as d;
create function pg_temp.day_differences() returns bigint language sql as $$
  select count(*) from ((select * from days_by_weigh_ins except select user_id, day, weigh_ins, weight_kg, trend_kg from app.body_weight_days)
                        union all
                        (select user_id, day, weigh_ins, weight_kg, trend_kg from app.body_weight_days except select * from days_by_weigh_ins)) as d
$$;

create function pg_temp.operate(p_step integer) returns text language plpgsql as $$
declare
  v_name text := case when random() < 0.5 then 'a' else 'b' end;
  v_user_id uuid := (select user_id from tokens where name = v_name);
  v_kind text := (array['weigh in', 'weigh in', 'weigh in', 'weigh in dated back', 'weigh in dated back', 'import',
                        'time zone', 'delete'])[1 + floor(random() * 8)::integer];
  v_at timestamptz := now() - case when v_kind = 'weigh in' then random() * interval '20 hours'
                                   else random() * interval '60 days' end;
begin
  if v_kind in ('weigh in', 'weigh in dated back') then
    perform set_config('role', 'liftbase_api', true);
    perform set_config('liftbase.user_id', v_user_id::text, true);
    insert into app.body_metrics (user_id, recorded_at, weight_kg)
    values (v_user_id, v_at, round((70 + random() * 20)::numeric, 1));
  elsif v_kind = 'import' then
    perform set_config('role', 'liftbase_api', true);
    perform set_config('liftbase.user_id', v_user_id::text, true);
    perform app.import_liftbase_section(v_user_id, 'body_metrics', (
      select jsonb_agg(jsonb_build_object('recorded_at', v_at - k * interval '9 hours', 'weight_kg', round((70 + random() * 20)::numeric, 1)))
        from generate_series(1, 1 + floor(random() * 4)::integer) as k), 0, 0);
  elsif v_kind = 'time zone' then
    perform set_config('role', 'liftbase_api', true);
    perform pg_temp.call('settings_update', v_name, jsonb_build_object('timezone',
      (array['Pacific/Kiritimati', 'America/Los_Angeles', 'Europe/Berlin', 'UTC', 'Asia/Kathmandu'])[1 + floor(random() * 5)::integer]));
  else
    perform set_config('role', 'liftbase_owner', true);
    delete from app.body_metrics where id = (select id from app.body_metrics where user_id = v_user_id order by random() limit 1);
  end if;
  perform set_config('role', 'none', true);
  perform set_config('liftbase.user_id', '', true);
  return v_kind;
end $$;
grant execute on function pg_temp.call(text, text, jsonb, jsonb) to liftbase_api;

create temporary table steps as
select n, pg_temp.operate(n) as kind, pg_temp.day_differences() as differences from generate_series(1, 150) as n order by n;

select is((select count(distinct kind)::integer from steps), 5, 'the 150 operations include every kind');
select ok((select count(*) from app.body_weight_days) > 40 and (select max(weigh_ins) from app.body_weight_days) > 1,
  'the users end with many days, some of several weigh-ins');
select is((select (array_agg(n || ' ' || kind order by n))[1:5] from steps where differences > 0), null,
  'after every operation each user''s days are their weigh-ins by local day, with the mean and the trend up to it');

select set_config('test.user_a', (select user_id::text from tokens where name = 'a'), true);
set local role liftbase_owner;
select app.rebuild_body_weight_days(current_setting('test.user_a')::uuid);
select app.rebuild_body_weight_days();
reset role;
select is(pg_temp.day_differences(), 0::bigint, 'rebuilt for one user and for all, they are what the weigh-ins say');
select is((select count(*)::integer from app.body_weight_days), (select count(*)::integer from days_by_weigh_ins),
  'one row per user and day');

select * from finish();
rollback;
