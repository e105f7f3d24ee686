-- Analytics rules shared by the /analytics endpoints: parameters, buckets, estimated
-- one-rep maxes, the weight trend and the user's training goal.

-- app.effective_rpe, app.e1rm_kg and app.e1rm_method are in migration 0011: session
-- exercises store values computed by them.

-- The training goal that volume flags and substitutions follow: the active program's goal
-- (strength or hypertrophy); without a program, hypertrophy, the goal the 10–20 weekly sets
-- guideline is for.
-- PL/pgSQL: a SQL function that reads a table is planned anew on every call.
create or replace function app.training_goal(p_user_id uuid)
returns text
language plpgsql
stable
as $$
begin
  return coalesce((select p.goal from app.programs as p where p.user_id = p_user_id and p.status = 'active'),
                  'hypertrophy');
end
$$;

-- ?bucket=day|week|month (default day). Weeks start on Monday.
create or replace function app.bucket_parameter(p_args jsonb)
returns text
language plpgsql
immutable
as $$
begin
  if coalesce(p_args ->> 'bucket', 'day') not in ('day', 'week', 'month') then
    perform app.raise_error(400, 'invalid_bucket', 'bucket must be day, week or month.',
                            jsonb_build_object('bucket', 'must be day, week or month'));
  end if;
  return coalesce(p_args ->> 'bucket', 'day');
end
$$;

-- The first day of the day, week (from Monday) or month of a date. Calendar arithmetic on
-- a timestamp without time zone: the server's TimeZone plays no part.
create or replace function app.bucket_start(p_bucket text, p_day date)
returns date
language sql
immutable
parallel safe
as $$ select date_trunc(p_bucket, p_day::timestamp)::date $$;

-- The date range of ?from=&to= (app.date_range_parameter: without from, p_default_days
-- before `to`; without to, the user's today), widened to whole buckets (a week from Monday
-- to Sunday, a calendar month).
create or replace function app.bucket_range(p_user_id uuid, p_args jsonb, p_bucket text, p_default_days integer,
  out from_date date, out to_date date)
language plpgsql
stable
as $$
declare
  v_range record := app.date_range_parameter(p_args, p_user_id, p_default_days);
  v_buckets numeric;
begin
  from_date := app.bucket_start(p_bucket, v_range.from_date);
  to_date := (app.bucket_start(p_bucket, v_range.to_date) + ('1 ' || p_bucket)::interval - interval '1 day')::date;
  -- Every bucket of the range is answered, data or not: a bound keeps one request from
  -- building an answer of millions of buckets (2,000 days is five and a half years).
  v_buckets := case p_bucket when 'day' then to_date - from_date + 1
                             when 'week' then (to_date - from_date + 1) / 7
                             else (extract(year from to_date) - extract(year from from_date)) * 12
                                  + extract(month from to_date) - extract(month from from_date) + 1 end;
  if v_buckets > 2000 then
    perform app.raise_error(400, 'range_too_large', format('A range may hold at most 2000 %ss.', p_bucket),
                            jsonb_build_object('from', format('must leave at most 2000 %ss up to to', p_bucket)));
  end if;
end
$$;

-- Kept for the servers of the previous release while an upgrade runs (docs/upgrades.md):
-- nothing of this release calls it, and a later migration drops it. The rule is
-- app.date_range_within's.
create or replace function app.analytics_range(p_user_id uuid, p_args jsonb, p_default_days integer,
  p_max_days integer, out from_date date, out to_date date)
language plpgsql
stable
as $$
declare
  v_range record := app.date_range_within(p_args, p_user_id, p_default_days, p_max_days);
begin
  from_date := v_range.from_date;
  to_date := v_range.to_date;
end
$$;

-- The best estimated one-rep max of each completed session dated p_from..p_to with the
-- set it came from (kept whole per session exercise by the session writer, app.write_session_children), of the
-- exercise and its catalog family (app.exercise_family: a near-duplicate is the same lift),
-- as the items of /analytics/e1rm, and the method every session used (or mixed). The range drives
-- the read: each session of it looks up its own exercises (a lateral subquery by primary
-- key), so a cached plan never starts from every session the exercise was ever trained in.
create or replace function app.e1rm_series(p_user_id uuid, p_exercise_id uuid, p_from date, p_to date,
  out items jsonb, out method text)
language plpgsql
stable
-- One plan for every user, as app.rpe_counts.
set plan_cache_mode = force_generic_plan
as $$
declare
  v_family uuid[] := app.exercise_family(p_exercise_id);
begin
  -- Built as json and parsed into jsonb once: a fraction of the cost of building jsonb
  -- object by object.
  select coalesce(json_agg(json_build_object(
           'session_id', s.id, 'session_date', s.session_date, 'e1rm_kg', round(b.best_e1rm_kg, 1),
           'method', b.best_e1rm_method, 'weight_kg', b.best_weight_kg, 'reps', b.best_reps, 'rpe', b.best_rpe)
           order by s.session_date, s.id)::jsonb, '[]'),
         case when count(distinct b.best_e1rm_method) > 1 then 'mixed' else min(b.best_e1rm_method) end
    into items, method
    from app.training_sessions as s
   cross join lateral (
     select e.best_e1rm_kg, e.best_e1rm_method, e.best_weight_kg, e.best_reps, e.best_rpe
       from app.session_exercises as e
      where e.user_id = s.user_id and e.session_id = s.id and e.best_set_position is not null
        and (e.exercise_id = any (v_family) or e.user_exercise_id = p_exercise_id)
      order by e.best_e1rm_kg desc, e.position
      limit 1) as b
   where s.user_id = p_user_id and s.status = 'completed' and s.session_date between p_from and p_to;
end
$$;
-- On Citus: planned for each call (liftbase_meta.on_citus_plan_each_call says why).
select liftbase_meta.on_citus_plan_each_call('app.e1rm_series(uuid, uuid, date, date)');

-- Working sets (app.counts_as_working_set) of completed sessions dated p_from..p_to per
-- effective RPE (logged, or 10 − RIR; null when neither), of one exercise or, with a null
-- p_exercise_id, of all. The range drives the read: each session of it reads its own sets by
-- primary key (a lateral subquery, not flattened into a join that a plan could start from
-- the other end), all of them or those of the exercise's positions in it.
create or replace function app.rpe_counts(p_user_id uuid, p_exercise_id uuid, p_from date, p_to date)
returns table (rpe numeric, sets bigint)
language plpgsql
stable
-- One plan for every user: the shape above fixes the order of the read, and a custom plan
-- costed from the date histogram (where the crowd's recent sessions make any recent range
-- look like most of a long history) crosses the JIT threshold and compiles for a second.
set plan_cache_mode = force_generic_plan
as $$
begin
  if p_exercise_id is null then
    return query
      select app.effective_rpe(x.rpe, x.rir), count(*)
        from app.training_sessions as s
       cross join lateral (
         select x.rpe, x.rir from app.session_sets as x
          where x.user_id = s.user_id and x.session_id = s.id and app.counts_as_working_set(x.set_type)
         offset 0) as x
       where s.user_id = p_user_id and s.status = 'completed' and s.session_date between p_from and p_to
       group by 1;
  else
    return query
      select app.effective_rpe(x.rpe, x.rir), count(*)
        from app.training_sessions as s
       cross join lateral (
         select e.position from app.session_exercises as e
          where e.user_id = s.user_id and e.session_id = s.id
            and (e.exercise_id = p_exercise_id or e.user_exercise_id = p_exercise_id)
         offset 0) as e
       cross join lateral (
         select x.rpe, x.rir from app.session_sets as x
          where x.user_id = s.user_id and x.session_id = s.id and x.exercise_position = e.position
            and app.counts_as_working_set(x.set_type)
         offset 0) as x
       where s.user_id = p_user_id and s.status = 'completed' and s.session_date between p_from and p_to
       group by 1;
  end if;
end
$$;
-- On Citus: planned for each call (liftbase_meta.on_citus_plan_each_call says why).
select liftbase_meta.on_citus_plan_each_call('app.rpe_counts(uuid, uuid, date, date)');

-- The personal records of one exercise (p_key: its catalog or own id) over the completed
-- sessions, from the measures the session writer keeps on each session exercise
-- (never the sets): heaviest (the load; for bodyweight_reps the added load), best_e1rm
-- (load × reps only, app.takes_e1rm), most_reps, longest (a set's duration), farthest (a
-- set's distance), fastest_pace (seconds per km of a set of at least 100 m with a
-- duration). Each is {value, session_id, session_date} of the first session that set it,
-- or null when no set of the exercise has that measure: the exercise's type decides which
-- there are. Null when no completed session holds the exercise.
-- PL/pgSQL: its plan is cached per connection. The read is the exercise's session rows
-- (session_exercises_exercise_key_idx), one pass.
create or replace function app.exercise_records(p_user_id uuid, p_key uuid)
returns jsonb
language plpgsql
stable
as $$
begin
  return app.exercise_records_among(p_user_id, p_key, null);
end
$$;

-- The same records among the sessions p_sessions only (all of them when null): the kept
-- records (migration 0051) of an exercise gaining sessions are those among its previous
-- record holders and the new sessions (app.write_exercise_records).
create or replace function app.exercise_records_among(p_user_id uuid, p_key uuid, p_sessions uuid[])
returns jsonb
language plpgsql
stable
-- A custom plan drops the branch that does not run and so always looks cheaper: planned on
-- every call. One generic plan per connection instead.
set plan_cache_mode = force_generic_plan
as $$
begin
  return (
    select case when count(*) > 0 then jsonb_build_object(
      'heaviest', (array_agg(jsonb_build_object('weight_kg', s.max_weight_kg, 'session_id', s.id,
                                                'session_date', s.session_date)
                             order by s.max_weight_kg desc, s.session_date, s.id)
                    filter (where s.max_weight_kg > 0))[1],
      'best_e1rm', (array_agg(jsonb_build_object('e1rm_kg', round(s.best_e1rm_kg, 1), 'weight_kg', s.best_weight_kg,
                                                 'reps', s.best_reps, 'method', s.best_e1rm_method,
                                                 'session_id', s.id, 'session_date', s.session_date)
                              order by s.best_e1rm_kg desc, s.session_date, s.id)
                     filter (where s.best_e1rm_kg is not null))[1],
      'most_reps', (array_agg(jsonb_build_object('reps', s.max_reps, 'session_id', s.id, 'session_date', s.session_date)
                              order by s.max_reps desc, s.session_date, s.id) filter (where s.max_reps > 0))[1],
      'longest', (array_agg(jsonb_build_object('duration_seconds', s.max_duration_seconds, 'session_id', s.id,
                                               'session_date', s.session_date)
                            order by s.max_duration_seconds desc, s.session_date, s.id)
                   filter (where s.max_duration_seconds is not null))[1],
      'farthest', (array_agg(jsonb_build_object('distance_m', s.max_distance_m, 'session_id', s.id,
                                                'session_date', s.session_date)
                             order by s.max_distance_m desc, s.session_date, s.id)
                    filter (where s.max_distance_m is not null))[1],
      'fastest_pace', (array_agg(jsonb_build_object('seconds_per_km', s.best_pace_s_per_km, 'session_id', s.id,
                                                    'session_date', s.session_date)
                                 order by s.best_pace_s_per_km, s.session_date, s.id)
                        filter (where s.best_pace_s_per_km is not null))[1]) end
      -- Every completed session row of the exercise, or (p_sessions) those of the given
      -- sessions, each session by key: only one branch runs. The given sessions are read
      -- one by one, in a subquery that OFFSET 0 keeps from being merged into the join: the
      -- generic plan of the join (a single node's; Citus plans each call, migration 0062)
      -- read every session of the exercise by its index (1,200 for a heavy user,
      -- sql/tests/91_plans_under_skew.sql) and kept those it was given.
      from (select x.max_weight_kg, x.best_e1rm_kg, x.best_weight_kg, x.best_reps, x.best_e1rm_method, x.max_reps,
                   x.max_duration_seconds, x.max_distance_m, x.best_pace_s_per_km, t.id, t.session_date
              from app.session_exercises as x
              join app.training_sessions as t
                on t.user_id = x.user_id and t.id = x.session_id and t.status = 'completed'
             where p_sessions is null and x.user_id = p_user_id and coalesce(x.exercise_id, x.user_exercise_id) = p_key
            union all
            select g.*
              from (select distinct i.id from unnest(p_sessions) as i (id)) as i
             cross join lateral (
                   select x.max_weight_kg, x.best_e1rm_kg, x.best_weight_kg, x.best_reps, x.best_e1rm_method,
                          x.max_reps, x.max_duration_seconds, x.max_distance_m, x.best_pace_s_per_km, t.id,
                          t.session_date
                     from app.training_sessions as t
                     join app.session_exercises as x
                       on x.user_id = t.user_id and x.session_id = t.id
                      and coalesce(x.exercise_id, x.user_exercise_id) = p_key
                    where t.user_id = p_user_id and t.id = i.id and t.status = 'completed'
                   offset 0) as g
             where p_sessions is not null) as s);
end
$$;
-- On Citus: planned for each call (liftbase_meta.on_citus_plan_each_call says why).
select liftbase_meta.on_citus_plan_each_call('app.exercise_records_among(uuid, uuid, uuid[])');

-- Writes the kept records (app.exercise_records, migration 0051) of exercise p_key of one
-- user after a statement removed or changed its rows of sessions p_removed (their old
-- state) and added or changed those of p_added (their new state). A record changes only
-- when its holder goes or a new row beats it: when no removed session holds one, the
-- records are those among the holders and the added sessions (the cost of the write, not
-- of the exercise's history); when one does, they are recomputed from every session of the
-- exercise. Acts as the user (row-level security), giving the caller's user back at the end.
create or replace function app.write_exercise_records(p_user_id uuid, p_key uuid, p_removed uuid[], p_added uuid[])
returns void
language plpgsql
as $$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_stored jsonb;
  v_holders uuid[];
  v_records jsonb;
begin
  if p_key is null then
    return;
  end if;
  if v_acting is distinct from p_user_id::text then
    perform auth.act_as(p_user_id);
  end if;
  select r.records into v_stored from app.exercise_records as r where r.user_id = p_user_id and r.exercise_key = p_key;
  v_holders := array(select app.read_uuid(h.value, 'session_id') from jsonb_each(v_stored) as h
                      where h.value ->> 'session_id' is not null);
  if v_stored is not null and p_removed && v_holders then
    v_records := app.exercise_records(p_user_id, p_key);
  elsif cardinality(p_added) > 0 then
    -- An exercise with records keeps them (a session added in progress holds none).
    v_records := coalesce(app.exercise_records_among(p_user_id, p_key, v_holders || p_added), v_stored);
  else
    v_records := v_stored;
  end if;
  if v_records is null then
    delete from app.exercise_records as r where r.user_id = p_user_id and r.exercise_key = p_key;
  elsif v_records is distinct from v_stored then
    insert into app.exercise_records as r (user_id, exercise_key, records)
    values (p_user_id, p_key, v_records)
    on conflict (user_id, exercise_key) do update set records = excluded.records;
  end if;
  if v_acting is distinct from p_user_id::text then
    perform auth.act_as(nullif(v_acting, '')::uuid);
  end if;
end
$$;

-- The trigger of migration 0051: the exercises whose records a statement may have changed,
-- per user, recomputed once each. On app.session_exercises, the exercises of the rows
-- written, changed or deleted; on app.training_sessions, those of the sessions whose status
-- or date changed (most updates of a session change neither: its totals, its name).
create or replace function app.keep_exercise_records()
returns trigger
language plpgsql
as $$
declare
  v_touched record;
begin
  -- The rows of the dynamic statement below, for plpgsql_check.
  perform 'PRAGMA:type:v_touched (user_id uuid, key uuid, removed uuid[], added uuid[])';
  for v_touched in execute case
    when TG_TABLE_NAME = 'session_exercises' and TG_OP = 'INSERT' then
      'select n.user_id, coalesce(n.exercise_id, n.user_exercise_id) as key, ''{}''::uuid[] as removed,
              array_agg(distinct n.session_id) as added
         from new_rows as n group by 1, 2 order by 1, 2'
    when TG_TABLE_NAME = 'session_exercises' and TG_OP = 'DELETE' then
      'select o.user_id, coalesce(o.exercise_id, o.user_exercise_id) as key, array_agg(distinct o.session_id) as removed,
              ''{}''::uuid[] as added
         from old_rows as o group by 1, 2 order by 1, 2'
    when TG_TABLE_NAME = 'session_exercises' then
      'select c.user_id, c.key, coalesce(array_agg(distinct c.session_id) filter (where c.old), ''{}'') as removed,
              coalesce(array_agg(distinct c.session_id) filter (where not c.old), ''{}'') as added
         from (select n.user_id, coalesce(n.exercise_id, n.user_exercise_id) as key, n.session_id, false as old
                 from new_rows as n
               union all
               select o.user_id, coalesce(o.exercise_id, o.user_exercise_id), o.session_id, true from old_rows as o) as c
        group by 1, 2 order by 1, 2'
    else
      'select n.user_id, coalesce(e.exercise_id, e.user_exercise_id) as key, array_agg(distinct n.id) as removed,
              array_agg(distinct n.id) as added
         from new_rows as n
         join old_rows as o on o.user_id = n.user_id and o.id = n.id
         join app.session_exercises as e on e.user_id = n.user_id and e.session_id = n.id
        where (n.status, n.session_date) is distinct from (o.status, o.session_date)
        group by 1, 2 order by 1, 2'
  end
  loop
    perform app.write_exercise_records(v_touched.user_id, v_touched.key, v_touched.removed, v_touched.added);
  end loop;
  return null;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
-- 'single node': Citus runs no statement trigger with transition tables on a distributed
-- table; there liftbase_meta_distribution.sql declares a row trigger for it instead.
select liftbase_meta.keep_trigger($$CREATE TRIGGER session_exercises_records_delete AFTER DELETE ON app.session_exercises REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app.keep_exercise_records()$$, 'single node');
select liftbase_meta.keep_trigger($$CREATE TRIGGER session_exercises_records_insert AFTER INSERT ON app.session_exercises REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app.keep_exercise_records()$$, 'single node');
select liftbase_meta.keep_trigger($$CREATE TRIGGER session_exercises_records_update AFTER UPDATE ON app.session_exercises REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app.keep_exercise_records()$$, 'single node');
select liftbase_meta.keep_trigger($$CREATE TRIGGER training_sessions_records_update AFTER UPDATE ON app.training_sessions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app.keep_exercise_records()$$, 'single node');

-- Rebuilds the kept records from the sessions, for one user or (null) every user; the
-- number of rows written. Idempotent (`liftbase summaries rebuild`).
create or replace function app.rebuild_exercise_records(p_user_id uuid default null)
returns integer
language plpgsql
as $$
declare
  v_previous text := current_setting('liftbase.user_id', true);
  v_user_id uuid;
  v_rows integer := 0;
  v_count integer;
begin
  for v_user_id in select u.id from auth.users as u where p_user_id is null or u.id = p_user_id order by u.id loop
    perform auth.act_as(v_user_id);
    delete from app.exercise_records as r where r.user_id = v_user_id;
    insert into app.exercise_records (user_id, exercise_key, records)
    select v_user_id, k.key, x.records
      from (select distinct coalesce(e.exercise_id, e.user_exercise_id) as key from app.session_exercises as e
             where e.user_id = v_user_id and coalesce(e.exercise_id, e.user_exercise_id) is not null) as k
     cross join lateral (select app.exercise_records(v_user_id, k.key) as records) as x
     where x.records is not null;
    get diagnostics v_count = row_count;
    v_rows := v_rows + v_count;
  end loop;
  perform auth.act_as(nullif(v_previous, '')::uuid);
  return v_rows;
end
$$;

grant execute on function app.write_exercise_records(uuid, uuid, uuid[], uuid[]),
                          app.exercise_records_among(uuid, uuid, uuid[])
  to liftbase_api;

-- Cardio per week and per exercise over completed sessions dated p_from..p_to: the
-- distance, the time (the duration of timed working sets) and the pace (seconds per km
-- over the sets with both a distance and a duration), from the totals kept on each
-- session exercise (app.write_session_children). The range drives the read, as
-- app.e1rm_series: each session of it reads its own exercises by primary key.
create or replace function app.cardio_weeks(p_user_id uuid, p_from date, p_to date)
returns table (week date, exercise_id uuid, exercise_name text, sessions bigint, duration_seconds bigint,
               distance_m numeric, paced_seconds bigint, paced_distance_m numeric)
language plpgsql
stable
set plan_cache_mode = force_generic_plan
as $$
begin
  return query
    select app.bucket_start('week', s.session_date), coalesce(e.exercise_id, e.user_exercise_id),
           min(e.exercise_name)::text,
           count(distinct s.id), sum(e.duration_seconds)::bigint, sum(e.distance_m), sum(e.paced_seconds)::bigint,
           sum(e.paced_distance_m)
      from app.training_sessions as s
     cross join lateral (
       select x.exercise_id, x.user_exercise_id, x.exercise_name, x.duration_seconds, x.distance_m, x.paced_seconds,
              x.paced_distance_m
         from app.session_exercises as x
        where x.user_id = s.user_id and x.session_id = s.id and (x.duration_seconds > 0 or x.distance_m > 0)
       offset 0) as e
     where s.user_id = p_user_id and s.status = 'completed' and s.session_date between p_from and p_to
       and (s.set_duration_seconds > 0 or s.distance_m > 0)
     group by 1, 2;
end
$$;
-- On Citus: planned for each call (liftbase_meta.on_citus_plan_each_call says why).
select liftbase_meta.on_citus_plan_each_call('app.cardio_weeks(uuid, date, date)');

-- Seconds per km, or null without distance.
create or replace function app.pace_s_per_km(p_seconds numeric, p_distance_m numeric)
returns numeric
language sql
immutable
as $$ select case when p_distance_m > 0 then round(p_seconds * 1000 / p_distance_m, 1) end $$;

-- ?exercise_id= naming a catalog exercise or one of the user's own: (id, name). A missing
-- or malformed id is a 400 (a bad parameter); an unknown one a 404.
create or replace function app.exercise_parameter(p_user_id uuid, p_args jsonb, p_required boolean,
  out exercise_id uuid, out exercise_name text)
language plpgsql
stable
as $$
begin
  if p_args ->> 'exercise_id' is null then
    if p_required then
      perform app.raise_parameter_problem('exercise_id', 'is required');
    end if;
    return;
  end if;
  if not app.is_uuid(p_args ->> 'exercise_id') then
    perform app.raise_parameter_problem('exercise_id', 'must be a UUID');
  end if;
  select v.id, v.name into exercise_id, exercise_name
    from app.visible_exercises(p_user_id) as v where v.id = app.id_parameter(p_args, 'exercise_id');
  if exercise_id is null then
    perform app.raise_error(404, 'exercise_not_found', 'No such exercise.');
  end if;
end
$$;

-- The trend weight: exponential smoothing with factor 0.1, trend = trend + 0.1 × (raw −
-- trend), started at the first weight, kept to 10 decimal places (exact, each day added a
-- digit: 1,800 digits after five years). Applied day by day to app.body_weight_days
-- (migration 0022, which defines it in the same words), and as a window aggregate ordered
-- by day.
create or replace function app.weight_trend_step(p_trend numeric, p_weight numeric)
returns numeric
language sql
immutable
parallel safe
as $$ select case when p_trend is null then p_weight else round(p_trend + 0.1 * (p_weight - p_trend), 10) end $$;

create or replace aggregate app.weight_trend(numeric) (sfunc = app.weight_trend_step, stype = numeric);

-- Daily weights of a user (the mean of a day's entries, days in the user's time zone) with
-- the trend over the whole history, so a window's trend does not depend on where it starts.
-- Kept per day in app.body_weight_days (migration 0022) by the writes of the weigh-ins: a
-- window reads its own days. SQL, so it is inlined and a caller's range is an index range.
create or replace function app.daily_weights(p_user_id uuid)
returns table (day date, weight_kg numeric, trend_kg numeric)
language sql
stable
as $$
  select w.day, w.weight_kg, w.trend_kg from app.body_weight_days as w where w.user_id = p_user_id
$$;
-- On Citus: the same query in PL/pgSQL (liftbase_meta.on_citus_as_plpgsql says why). As SQL,
-- GET /analytics/weight and the expenditure estimate read no day there.
select liftbase_meta.on_citus_as_plpgsql('app.daily_weights(uuid)');

-- The daily weights (app.body_weight_days) rebuilt from the weigh-ins: for one user, or for
-- every user when p_user_id is null. Idempotent; what the triggers of migration 0022 keep
-- in every write's transaction, computed afresh. For the operator's CLI (it runs as the
-- owner): it acts as each user in turn, so row-level security applies as for any write.
-- Returns how many days it wrote.
create or replace function app.rebuild_body_weight_days(p_user_id uuid default null)
returns integer
language plpgsql
as $$
declare
  v_previous text := current_setting('liftbase.user_id', true);
  v_user_id uuid;
  v_days integer := 0;
begin
  for v_user_id in select u.id from auth.users as u where p_user_id is null or u.id = p_user_id order by u.id loop
    perform auth.act_as(v_user_id);
    delete from app.body_weight_days as w where w.user_id = v_user_id;
    perform app.refresh_body_weight_days(v_user_id, array(
      select distinct (b.recorded_at at time zone app.user_timezone(v_user_id))::date
        from app.body_metrics as b
       where b.user_id = v_user_id));
    v_days := v_days + (select count(*) from app.body_weight_days as w where w.user_id = v_user_id);
  end loop;
  perform auth.act_as(nullif(v_previous, '')::uuid);
  return v_days;
end
$$;

grant execute on function
  app.training_goal(uuid),
  app.analytics_range(uuid, jsonb, integer, integer),
  app.e1rm_series(uuid, uuid, date, date),
  app.rpe_counts(uuid, uuid, date, date),
  app.exercise_records(uuid, uuid),
  app.cardio_weeks(uuid, date, date),
  app.pace_s_per_km(numeric, numeric),
  app.bucket_parameter(jsonb),
  app.bucket_start(text, date),
  app.bucket_range(uuid, jsonb, text, integer),
  app.exercise_parameter(uuid, jsonb, boolean),
  app.weight_trend_step(numeric, numeric),
  app.weight_trend(numeric),
  app.daily_weights(uuid)
to liftbase_api;
-- Weekly volume (app.weekly_muscle_volume) buckets its weeks with it, for the report too.
grant execute on function app.bucket_start(text, date) to liftbase_reporting_owner;

-- Recomputes a user's given days from their weigh-ins (a day left without any goes), then
-- the trend of every day from the first of them on. The user's settings row is locked first:
-- two writes for one user (or a write and a time zone change) take turns, so neither
-- recomputes from weigh-ins the other is still adding. Runs as the user (row-level security).
create or replace function app.refresh_body_weight_days(p_user_id uuid, p_days date[])
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
  perform from app.user_settings as s where s.user_id = p_user_id for no key update;
  v_zone := app.user_timezone(p_user_id);
  foreach v_day in array p_days loop
    select count(*)::integer as weigh_ins, avg(b.weight_kg) as weight_kg into v_row
      from app.body_metrics as b
     where b.user_id = p_user_id
       and b.recorded_at >= (v_day::timestamp at time zone v_zone)
       and b.recorded_at < ((v_day + 1)::timestamp at time zone v_zone);
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
-- app.keep_food_usage does).
create or replace function app.keep_body_weight_days() returns trigger
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
      select distinct (t at time zone app.user_timezone(v_user.user_id))::date
        from unnest(v_user.times) as t));
  end loop;
  close v_users;
  perform set_config('liftbase.user_id', coalesce(v_acting, ''), true);
  return null;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
-- 'single node': Citus runs no statement trigger with transition tables on a distributed
-- table; there liftbase_meta_distribution.sql declares a row trigger for it instead.
select liftbase_meta.keep_trigger($$CREATE TRIGGER body_metrics_days_delete AFTER DELETE ON app.body_metrics REFERENCING OLD TABLE AS old_entries FOR EACH STATEMENT EXECUTE FUNCTION app.keep_body_weight_days()$$, 'single node');
select liftbase_meta.keep_trigger($$CREATE TRIGGER body_metrics_days_insert AFTER INSERT ON app.body_metrics REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION app.keep_body_weight_days()$$, 'single node');
select liftbase_meta.keep_trigger($$CREATE TRIGGER body_metrics_days_update AFTER UPDATE ON app.body_metrics REFERENCING OLD TABLE AS old_entries NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION app.keep_body_weight_days()$$, 'single node');

-- A new time zone moves every weigh-in to the day it falls on there: the user's days are
-- made again from all of their weigh-ins.
create or replace function app.rezone_body_weight_days() returns trigger
language plpgsql
as $$
declare
  v_acting text := current_setting('liftbase.user_id', true);
begin
  perform set_config('liftbase.user_id', new.user_id::text, true);
  delete from app.body_weight_days as w where w.user_id = new.user_id;
  perform app.refresh_body_weight_days(new.user_id, array(
    select distinct (b.recorded_at at time zone new.timezone)::date from app.body_metrics as b
     where b.user_id = new.user_id));
  perform set_config('liftbase.user_id', coalesce(v_acting, ''), true);
  return null;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_settings_weight_days AFTER UPDATE OF timezone ON app.user_settings FOR EACH ROW WHEN (((old.timezone)::text IS DISTINCT FROM (new.timezone)::text)) EXECUTE FUNCTION app.rezone_body_weight_days()$$);
