-- Ordinary users for benchmarks, the crowd a heavy user's reads run among: :users accounts
-- (default 1,000), each with a month of use: 4 diary entries a day from 60 catalog foods,
-- 12 completed sessions (3 catalog exercises × 4 sets) and 10 weigh-ins. Set-based; the
-- diary's triggers and app.refresh_session_totals keep what they keep, as for any write.
-- Run as a superuser on a benchmark database with a food catalog (synthetic_foods.sql):
--   psql [-v users=1000] -f Scripts/lib/synthetic_users.sql
\set ON_ERROR_STOP on
\if :{?users}
\else
  \set users 1000
\endif

create temporary table synthetic_users as
with created as (
  insert into auth.users (email, password_hash)
  select 'ordinary-' || n || '@bench.example.com', 'not-a-login' from generate_series(1, :users) as n
  returning id
)
select id from created;
insert into app.user_settings (user_id) select id from synthetic_users;

-- Values of one serving of each food, by the rule of an entry made from a food.
create temporary table synthetic_foods as
select f.id, f.n, m.* from (select id, row_number() over (order by id) as n from app.foods order by id limit 2000) as f
 cross join lateral app.food_macros(null, f.id, null, 1) as m;

insert into app.food_entries (user_id, entry_date, meal_type, name, food_id, servings, calories, protein_g, carbs_g,
                              fat_g, source, created_at, updated_at)
select u.id, current_date - d, (array['breakfast', 'lunch', 'dinner', 'snack'])[k], f.name, f.id, 1, f.calories,
       f.protein_g, f.carbs_g, f.fat_g, 'search', current_date - d + time '08:00' + k * interval '3 hours', now()
  from synthetic_users as u
 cross join generate_series(1, 30) as d
 cross join generate_series(1, 4) as k
  join synthetic_foods as f on f.n = 1 + abs(hashtext(u.id::text || ':food:' || (d * 4 + k) % 60)) % 2000;

create temporary table synthetic_sessions as
select u.id as user_id, gen_random_uuid() as id, current_date - 2 * n as session_date, n
  from synthetic_users as u cross join generate_series(1, 12) as n;
insert into app.training_sessions (user_id, id, session_date, name, status, started_at, finished_at)
select s.user_id, s.id, s.session_date, 'Workout', 'completed', s.session_date + time '18:00', s.session_date + time '19:00'
  from synthetic_sessions as s;
insert into app.session_exercises (user_id, session_id, position, exercise_id, exercise_name)
select s.user_id, s.id, p.position, e.id, e.name
  from synthetic_sessions as s
 cross join (values (1, 'Barbell Bench Press'), (2, 'Barbell Squat'), (3, 'Barbell Row')) as p (position, name)
  join app.exercises as e on e.name = p.name;
insert into app.session_sets (user_id, session_id, exercise_position, position, reps, weight_kg, rpe, set_type)
select s.user_id, s.id, p, k, 8, 40 + 5 * p + s.n, case when k > 2 then 8 end, 'working'
  from synthetic_sessions as s cross join generate_series(1, 3) as p cross join generate_series(1, 4) as k;
select count(app.refresh_session_totals(s.user_id, s.id)) from synthetic_sessions as s;

insert into app.body_metrics (user_id, recorded_at, weight_kg)
select u.id, current_date - 3 * n + time '07:00', 70 + abs(hashtext(u.id::text)) % 30 - n * 0.1
  from synthetic_users as u cross join generate_series(1, 10) as n;

analyze app.food_entries, app.training_sessions, app.session_exercises, app.session_sets, app.body_metrics;
