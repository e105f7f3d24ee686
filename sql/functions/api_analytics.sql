-- GET /analytics/*: training volume per muscle, estimated one-rep maxes, RPE distribution,
-- nutrition and workouts per day/week/month, and the weight trend. Only completed
-- sessions count; session dates are the user's local dates.

-- GET /analytics/volume?from=&to=: working sets per muscle and week (Monday to Sunday),
-- by the overlap rule, as app.weekly_muscle_volume computes them for the weekly volume
-- report too: each week has `sets` {muscle: sets} and, for a hypertrophy goal, `flags`
-- {muscle: below_target | above_target} for trained muscles outside 10–20 weekly sets (a
-- muscle not trained that week is not listed: most of the 17 are rarely trained
-- directly). Default range: the 12 weeks up to today.
create or replace function api.analytics_volume(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_range record := app.bucket_range(v_user_id, p_args, 'week', 83);
  v_goal text := app.training_goal(v_user_id);
begin
  return jsonb_build_object(
    'from', v_range.from_date, 'to', v_range.to_date, 'goal', v_goal,
    'target_sets', case when v_goal = 'hypertrophy' then jsonb_build_object('min', 10, 'max', 20) end,
    'weeks', coalesce((
      -- Objects keyed by muscle, what a chart per muscle reads. Built as json and parsed
      -- into jsonb once: over years of weeks, half the cost of building jsonb piece by piece.
      select json_agg(json_build_object(
               'week_start', k.week, 'week_end', k.week + 6, 'working_sets', k.working_sets,
               'sets', coalesce(k.sets, '{}'), 'flags', coalesce(k.flags, '{}')) order by k.week)::jsonb
        from (select v.week, max(v.working_sets) as working_sets,
                     json_object_agg(v.muscle, v.sets) filter (where v.muscle is not null) as sets,
                     json_object_agg(v.muscle, case when v.sets < 10 then 'below_target' else 'above_target' end)
                       filter (where v_goal = 'hypertrophy' and (v.sets < 10 or v.sets > 20)) as flags
                from app.weekly_muscle_volume(v_user_id, v_range.from_date, v_range.to_date) as v
               group by v.week) as k
       where k.working_sets > 0), '[]'));
end
$$;

-- GET /analytics/e1rm?exercise_id=&from=&to=: the best estimated one-rep max of each
-- session with the set it came from and the method (rpe_chart or epley; app.e1rm_kg).
-- `method` of the whole answer is the one every session used, or mixed. Default range: the
-- 12 weeks up to today; at most a year (app.date_range_within).
create or replace function api.analytics_e1rm(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_exercise record := app.exercise_parameter(v_user_id, p_args, true);
  v_range record := app.date_range_within(p_args, v_user_id, 83, 366);
  v_series record := app.e1rm_series(v_user_id, v_exercise.exercise_id, v_range.from_date, v_range.to_date);
begin
  return jsonb_build_object(
    'exercise_id', v_exercise.exercise_id, 'exercise_name', v_exercise.exercise_name,
    'from', v_range.from_date, 'to', v_range.to_date,
    'method', v_series.method,
    'items', v_series.items);
end
$$;

-- GET /analytics/rpe-distribution?exercise_id=&from=&to=: working sets per RPE (logged,
-- or 10 − RIR), of one exercise or of all; sets without either are counted apart.
-- Default range: the 12 weeks up to today; at most a year (app.date_range_within).
create or replace function api.analytics_rpe_distribution(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_exercise record := app.exercise_parameter(v_user_id, p_args, false);
  v_range record := app.date_range_within(p_args, v_user_id, 83, 366);
begin
  return (
    with counts as (
      select c.rpe, c.sets
        from app.rpe_counts(v_user_id, v_exercise.exercise_id, v_range.from_date, v_range.to_date) as c
    ),
    rated as (
      select c.rpe, c.sets, sum(c.sets) over () as total from counts as c where c.rpe is not null
    )
    select jsonb_build_object(
      'exercise_id', v_exercise.exercise_id, 'exercise_name', v_exercise.exercise_name,
      'from', v_range.from_date, 'to', v_range.to_date,
      'sets_with_rpe', (select coalesce(sum(c.sets), 0) from counts as c where c.rpe is not null),
      'sets_without_rpe', (select coalesce(sum(c.sets), 0) from counts as c where c.rpe is null),
      'mean_rpe', (select round(sum(c.rpe * c.sets) / sum(c.sets), 2) from counts as c where c.rpe is not null),
      'items', coalesce((select jsonb_agg(jsonb_build_object('rpe', r.rpe, 'sets', r.sets,
                                                             'share', round(r.sets / r.total, 4))
                                          order by r.rpe)
                           from rated as r), '[]')));
end
$$;

-- GET /analytics/nutrition?bucket=day|week|month&from=&to=: diary totals per bucket and
-- the daily average over the days that have entries (a day without entries is unknown,
-- not zero), against the effective daily targets (app.effective_targets, as
-- /nutrition/daily). Default range: the 30 days up to today.
create or replace function api.analytics_nutrition(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_bucket text := app.bucket_parameter(p_args);
  v_range record := app.bucket_range(v_user_id, p_args, v_bucket, 29);
  v_targets jsonb := app.effective_targets(v_user_id);
begin
  return jsonb_build_object(
    'bucket', v_bucket, 'from', v_range.from_date, 'to', v_range.to_date,
    'targets', case when v_targets is not null then jsonb_build_object(
      'calories', v_targets -> 'calories', 'protein_g', v_targets -> 'protein_g',
      'carbs_g', v_targets -> 'carbs_g', 'fat_g', v_targets -> 'fat_g') end,
    'items', (
      with days as (
        select e.entry_date as day, sum(e.calories) as calories, sum(e.protein_g) as protein_g,
               sum(e.carbs_g) as carbs_g, sum(e.fat_g) as fat_g
          from app.food_entries as e
         where e.user_id = v_user_id and e.entry_date between v_range.from_date and v_range.to_date
         group by e.entry_date
      ),
      buckets as (
        select b::date as bucket_start, (b + ('1 ' || v_bucket)::interval - interval '1 day')::date as bucket_end
          from generate_series(v_range.from_date::timestamp, v_range.to_date::timestamp,
                               ('1 ' || v_bucket)::interval) as b
      ),
      totals as (
        select k.bucket_start, k.bucket_end, coalesce(d.logged_days, 0) as logged_days,
               coalesce(d.calories, 0) as calories, coalesce(d.protein_g, 0) as protein_g,
               coalesce(d.carbs_g, 0) as carbs_g, coalesce(d.fat_g, 0) as fat_g
          from buckets as k
          left join (select app.bucket_start(v_bucket, y.day) as bucket_start, count(*) as logged_days,
                            sum(y.calories) as calories, sum(y.protein_g) as protein_g,
                            sum(y.carbs_g) as carbs_g, sum(y.fat_g) as fat_g
                       from days as y group by 1) as d on d.bucket_start = k.bucket_start
      )
      select coalesce(jsonb_agg(jsonb_build_object(
               'bucket_start', t.bucket_start, 'bucket_end', t.bucket_end,
               'days', t.bucket_end - t.bucket_start + 1, 'logged_days', t.logged_days,
               'totals', jsonb_build_object('calories', t.calories, 'protein_g', t.protein_g,
                                            'carbs_g', t.carbs_g, 'fat_g', t.fat_g),
               'daily_average', a.average,
               'vs_target', case when v_targets is not null and t.logged_days > 0 then jsonb_build_object(
                 'calories', round(t.calories / t.logged_days - (v_targets ->> 'calories')::numeric, 1),
                 'protein_g', round(t.protein_g / t.logged_days - (v_targets ->> 'protein_g')::numeric, 1),
                 'carbs_g', round(t.carbs_g / t.logged_days - (v_targets ->> 'carbs_g')::numeric, 1),
                 'fat_g', round(t.fat_g / t.logged_days - (v_targets ->> 'fat_g')::numeric, 1)) end)
               order by t.bucket_start), '[]')
        from totals as t
       cross join lateral (
         select case when t.logged_days > 0 then jsonb_build_object(
                  'calories', round(t.calories / t.logged_days, 1), 'protein_g', round(t.protein_g / t.logged_days, 1),
                  'carbs_g', round(t.carbs_g / t.logged_days, 1), 'fat_g', round(t.fat_g / t.logged_days, 1))
                end as average
       ) as a));
end
$$;

-- GET /analytics/workouts?bucket=day|week|month&from=&to=: completed sessions, sets,
-- working sets, volume (kg × reps of working sets), duration, the seconds of timed working
-- sets and the distance per bucket, from the totals kept on the session rows. Default range: the 12 weeks up to today.
create or replace function api.analytics_workouts(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_bucket text := app.bucket_parameter(p_args);
  v_range record := app.bucket_range(v_user_id, p_args, v_bucket, 83);
begin
  return jsonb_build_object(
    'bucket', v_bucket, 'from', v_range.from_date, 'to', v_range.to_date,
    'items', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'bucket_start', k.bucket_start, 'bucket_end', k.bucket_end,
               'sessions', coalesce(t.sessions, 0), 'sets', coalesce(t.sets, 0),
               'working_sets', coalesce(t.working_sets, 0), 'volume_kg', coalesce(t.volume_kg, 0),
               'duration_minutes', coalesce(round(t.duration_minutes), 0),
               'set_duration_seconds', coalesce(t.set_duration_seconds, 0), 'distance_m', coalesce(t.distance_m, 0))
               order by k.bucket_start), '[]')
        from (select b::date as bucket_start, (b + ('1 ' || v_bucket)::interval - interval '1 day')::date as bucket_end
                from generate_series(v_range.from_date::timestamp, v_range.to_date::timestamp,
                                     ('1 ' || v_bucket)::interval) as b) as k
        left join (
          select app.bucket_start(v_bucket, s.session_date) as bucket_start, count(*) as sessions,
                 sum(s.set_count) as sets, sum(s.working_sets) as working_sets, sum(s.volume_kg) as volume_kg,
                 coalesce(sum(extract(epoch from s.finished_at - s.started_at) / 60), 0) as duration_minutes,
                 sum(s.set_duration_seconds) as set_duration_seconds, sum(s.distance_m) as distance_m
            from app.training_sessions as s
           where s.user_id = v_user_id and s.status = 'completed'
             and s.session_date between v_range.from_date and v_range.to_date
           group by 1) as t on t.bucket_start = k.bucket_start));
end
$$;

-- GET /analytics/weight?from=&to=: each day's weight and the trend weight (app.daily_weights).
create or replace function api.analytics_weight(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_range record := app.date_range_parameter(p_args);
begin
  return (
    select jsonb_build_object(
      'from', v_range.from_date, 'to', v_range.to_date, 'smoothing_factor', 0.1,
      'trend_change_kg', round(max(w.trend_kg) filter (where w.is_last) - max(w.trend_kg) filter (where w.is_first), 2),
      'items', coalesce(jsonb_agg(jsonb_build_object('date', w.day, 'weight_kg', round(w.weight_kg, 2),
                                                     'trend_kg', round(w.trend_kg, 2)) order by w.day), '[]'))
      from (select d.*, d.day = min(d.day) over () as is_first, d.day = max(d.day) over () as is_last
              from app.daily_weights(v_user_id) as d
             -- greatest and least skip a missing bound; unlike coalesce, row-level security
             -- lets them bound an index scan.
             where d.day between greatest(v_range.from_date, '-infinity') and least(v_range.to_date, 'infinity')) as w);
end
$$;

-- GET /analytics/timeline: every program (newest first) with its blocks and phases dated.
create or replace function api.analytics_timeline(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return jsonb_build_object('items', coalesce((
    select jsonb_agg(jsonb_build_object(
             'program_id', p.id, 'goal', p.goal, 'training_age', p.training_age, 'status', p.status,
             'started_on', p.started_on, 'ended_at', p.ended_at,
             'blocks', app.program_blocks_json(v_user_id, row(p.*)::app.programs))
             order by p.created_at desc)
      from app.programs as p where p.user_id = v_user_id), '[]'));
end
$$;

-- GET /analytics/records?exercise_id=&limit=&cursor=: personal records per exercise
-- (app.exercise_records: heaviest, best e1RM, most reps, longest, farthest, fastest pace,
-- each as its exercise's type allows), one exercise with ?exercise_id=, else a page of the
-- exercises trained, in the order of their ids. The records are kept per exercise in
-- app.exercise_records (migration 0051) by every write that changes them: a page is a range
-- of that table's primary key, whatever the user's history. Free-text exercises (linked to
-- no exercise) have none.
create or replace function api.analytics_records(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_exercise record := app.exercise_parameter(v_user_id, p_args, false);
  v_page record := app.page_parameters(p_args, 'uuid', 50, 200);
  v_items jsonb;
begin
  if v_page.cursor_uuid is not null
     and not exists (select from app.session_exercises as e
                      where e.user_id = v_user_id
                        and coalesce(e.exercise_id, e.user_exercise_id) = v_page.cursor_uuid) then
    perform app.raise_unknown_cursor();
  end if;
  select coalesce(jsonb_agg(r.item order by r.id), '[]') into v_items
    from (select k.exercise_key as id,
                 jsonb_build_object('exercise_id', k.exercise_key, 'exercise_name', x.name,
                                    'tracking_type', x.tracking_type)
                   || k.records as item
            from app.exercise_records as k
           cross join lateral (
             select coalesce((select e.name::text from app.exercises as e where e.id = k.exercise_key),
                             (select u.name::text from app.user_exercises as u
                               where u.user_id = v_user_id and u.id = k.exercise_key)) as name,
                    -- The key is a catalog id or an own one (never both): asked as either.
                    app.exercise_tracking_type(v_user_id, k.exercise_key, k.exercise_key) as tracking_type) as x
           where k.user_id = v_user_id
             and k.exercise_key > coalesce(v_page.cursor_uuid, '00000000-0000-0000-0000-000000000000')
             and (v_exercise.exercise_id is null or k.exercise_key = v_exercise.exercise_id)
           order by k.exercise_key
           limit v_page.page_size + 1) as r;
  return app.page(v_items, v_page.page_size, 'exercise_id');
end
$$;

-- GET /analytics/cardio?from=&to=: distance, time and pace of timed and distance work per
-- week (Monday to Sunday) and per exercise over the range (app.cardio_weeks), from the
-- totals kept on each session exercise. Time is the duration of the working sets; pace is
-- seconds per km over the sets with both a distance and a duration (null without any).
-- Default range: the 12 weeks up to today; at most a year (app.date_range_within).
create or replace function api.analytics_cardio(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_range record := app.date_range_within(p_args, v_user_id, 83, 366);
begin
  return (
    with c as (select * from app.cardio_weeks(v_user_id, v_range.from_date, v_range.to_date))
    select jsonb_build_object(
      'from', v_range.from_date, 'to', v_range.to_date,
      'weeks', coalesce((
        select jsonb_agg(jsonb_build_object(
                 'week_start', w.week, 'week_end', w.week + 6, 'duration_seconds', w.seconds, 'distance_m', w.distance,
                 'pace_s_per_km', app.pace_s_per_km(w.paced_seconds, w.paced_distance)) order by w.week)
          from (select c.week, sum(c.duration_seconds) as seconds, sum(c.distance_m) as distance,
                       sum(c.paced_seconds) as paced_seconds, sum(c.paced_distance_m) as paced_distance
                  from c group by c.week) as w), '[]'),
      'exercises', coalesce((
        select jsonb_agg(jsonb_build_object(
                 'exercise_id', x.exercise_id, 'exercise_name', x.exercise_name, 'sessions', x.sessions,
                 'duration_seconds', x.seconds, 'distance_m', x.distance,
                 'pace_s_per_km', app.pace_s_per_km(x.paced_seconds, x.paced_distance))
                 order by x.exercise_name, x.exercise_id)
          from (select c.exercise_id, min(c.exercise_name) as exercise_name, sum(c.sessions) as sessions,
                       sum(c.duration_seconds) as seconds, sum(c.distance_m) as distance,
                       sum(c.paced_seconds) as paced_seconds, sum(c.paced_distance_m) as paced_distance
                  from c group by c.exercise_id) as x), '[]')));
end
$$;
