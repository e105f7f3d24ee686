-- Users numbered :first to :last with a year of use each, for the scale step of
-- Scripts/bench (Scripts/lib/bench_scale.sh): account scale-N@bench.example.com with the
-- session token "scale-N" (made here, no bcrypt), onboarded through the API; a year of
-- diary (4 entries a day from 60 catalog foods), of training (Monday, Wednesday, Friday:
-- 3 catalog exercises × 4 working sets) and a weigh-in a week. Set-based: one statement per
-- table for the whole range, the diary's and the weigh-ins' triggers seeing every row as for
-- any write, and the session totals kept by one statement over the range's sessions (the
-- sums app.refresh_session_totals keeps, for sets that are all working sets of load × reps).
-- Run as a superuser on a benchmark database with a food catalog (synthetic_foods.sql):
--   psql -v first=1 -v last=10000 -f Scripts/lib/synthetic_scale.sql
-- With -v log_after=1 the change log (docs/sync.md) of the diary, the sessions and the
-- weigh-ins is written here, set-based, after the rows: only for a bulk load with those
-- tables' change-log and webhook row triggers disabled (Scripts/lib/bench_scale.sh). The
-- log holds the entities the triggers would log, one row each, numbered with the user's
-- next versions in the order the rows were made; the counter ends at the last. (The
-- triggers would number them in statement order, a session once per statement writing it.)
\set ON_ERROR_STOP on

create temporary table scale_users as
with created as (
  insert into auth.users (email, password_hash)
  select 'scale-' || n || '@bench.example.com', 'not-a-login' from generate_series(:first, :last) as n
  returning id, split_part(email, '@', 1) as token
)
select id, token from created;
insert into app.user_settings (user_id) select id from scale_users;
insert into auth.sessions (token_hash, user_id, expires_at)
select auth.token_hash(token), id, now() + interval '1 day' from scale_users;

-- Onboarding through the API (goal, profile, first metrics and targets).
select count(api.onboarding_complete(u.token, jsonb_build_object(
         'goal_type', 'maintaining', 'goal_rate_per_week', 0, 'height_cm', 160 + abs(hashtext(u.token)) % 35,
         'weight_kg', 60 + abs(hashtext(u.token || ':kg')) % 40, 'age_years', 20 + abs(hashtext(u.token || ':age')) % 45,
         'sex', (array['male', 'female'])[1 + abs(hashtext(u.token || ':sex')) % 2], 'activity_level', 'moderate',
         'timezone', 'UTC'), '{}'))
  from scale_users as u;
select set_config('liftbase.user_id', '', false);

-- Values of one serving of each of 2,000 catalog foods, by the rule of an entry made from a food.
create temporary table scale_foods as
select f.id, f.n, m.* from (select id, row_number() over (order by id) as n from app.foods order by id limit 2000) as f
 cross join lateral app.food_macros(null, f.id, null, 1) as m;

insert into app.food_entries (user_id, entry_date, meal_type, name, food_id, servings, calories, protein_g, carbs_g,
                              fat_g, source, created_at, updated_at)
select u.id, current_date - d, (array['breakfast', 'lunch', 'dinner', 'snack'])[k], f.name, f.id, 1, f.calories,
       f.protein_g, f.carbs_g, f.fat_g, 'search', current_date - d + time '08:00' + k * interval '3 hours', now()
  from scale_users as u
 cross join generate_series(0, 364) as d
 cross join generate_series(1, 4) as k
  join scale_foods as f on f.n = 1 + abs(hashtext(u.id::text || ':food:' || (d * 4 + k) % 60)) % 2000;

create temporary table scale_sessions as
select u.id as user_id, gen_random_uuid() as id, d::date as session_date, row_number() over (partition by u.id order by d) as n
  from scale_users as u
 cross join generate_series(current_date - 364, current_date - 1, interval '1 day') as d
 where extract(isodow from d) in (1, 3, 5);
insert into app.training_sessions (user_id, id, session_date, name, status, started_at, finished_at)
select s.user_id, s.id, s.session_date, 'Workout', 'completed', s.session_date + time '18:00', s.session_date + time '19:00'
  from scale_sessions as s;
insert into app.session_exercises (user_id, session_id, position, exercise_id, exercise_name)
select s.user_id, s.id, p.position, e.id, e.name
  from scale_sessions as s
 cross join (values (1, 'Barbell Bench Press'), (2, 'Barbell Squat'), (3, 'Barbell Row')) as p (position, name)
  join app.exercises as e on e.name = p.name;
insert into app.session_sets (user_id, session_id, exercise_position, position, reps, weight_kg, rpe, set_type)
select s.user_id, s.id, p, k, 8, 40 + 5 * p + s.n * 0.25, case when k > 2 then 8 end, 'working'
  from scale_sessions as s cross join generate_series(1, 3) as p cross join generate_series(1, 4) as k;

-- The kept totals: per session exercise its working sets and bests, per session its sums.
update app.session_exercises as e
   set working_sets = t.sets, max_weight_kg = t.max_weight, max_reps = t.max_reps,
       best_set_position = b.position, best_e1rm_kg = b.e1rm, best_weight_kg = b.weight_kg, best_reps = b.reps,
       best_rpe = b.rpe, best_e1rm_method = b.method
  from (select x.user_id, x.session_id, x.exercise_position, count(*) as sets, max(x.weight_kg) as max_weight,
               max(x.reps) as max_reps
          from app.session_sets as x join scale_sessions as s on s.user_id = x.user_id and s.id = x.session_id
         group by 1, 2, 3) as t,
       lateral (select x.position, app.e1rm_kg(x.weight_kg, x.reps, c.percent) as e1rm, x.weight_kg, x.reps,
                       app.effective_rpe(x.rpe, x.rir) as rpe, app.e1rm_method(c.percent) as method
                  from app.session_sets as x
                  left join app.rpe_chart as c on c.reps = x.reps and c.rpe = app.effective_rpe(x.rpe, x.rir)
                 where x.user_id = t.user_id and x.session_id = t.session_id and x.exercise_position = t.exercise_position
                 order by 2 desc, x.position limit 1) as b
 where e.user_id = t.user_id and e.session_id = t.session_id and e.position = t.exercise_position;
update app.training_sessions as s
   set exercise_count = 3, set_count = t.sets, working_sets = t.sets, volume_kg = t.volume
  from (select x.user_id, x.session_id, count(*) as sets, sum(x.weight_kg * x.reps) as volume
          from app.session_sets as x join scale_sessions as s on s.user_id = x.user_id and s.id = x.session_id
         group by 1, 2) as t
 where s.user_id = t.user_id and s.id = t.session_id;

insert into app.body_metrics (user_id, recorded_at, weight_kg)
select u.id, current_date - 7 * w + time '07:00', 60 + abs(hashtext(u.id::text)) % 40 - w * 0.05
  from scale_users as u cross join generate_series(1, 52) as w;

\if :{?log_after}
with entities as (
  select e.user_id, 'diary_entry' as entity, e.id::text as entity_id, e.created_at as made_at
    from app.food_entries as e join scale_users as u on u.id = e.user_id
  union all
  select s.user_id, 'session', s.id::text, s.started_at
    from app.training_sessions as s join scale_users as u on u.id = s.user_id
  union all
  select b.user_id, 'body_metric', b.id::text, b.recorded_at
    from app.body_metrics as b join scale_users as u on u.id = b.user_id
)
insert into app.sync_changes (user_id, entity, entity_id, seq, op, changed_at)
select e.user_id, e.entity, e.entity_id,
       s.last_seq + row_number() over (partition by e.user_id order by e.made_at, e.entity, e.entity_id), 'upsert', now()
  from entities as e join app.sync_state as s on s.user_id = e.user_id;
update app.sync_state as s
   set last_seq = c.last_seq
  from (select c.user_id, max(c.seq) as last_seq
          from app.sync_changes as c join scale_users as u on u.id = c.user_id group by 1) as c
 where s.user_id = c.user_id;
\endif
