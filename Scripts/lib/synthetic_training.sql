-- Five years of training for one user, for benchmarks: a push/pull/legs rotation three days
-- a week (a few sessions skipped), about 750 completed sessions of 8 catalog exercises ×
-- 10 sets (2 warm-ups, 8 working), about 60,000 sets; with -v days_per_week=4 (Monday,
-- Tuesday, Thursday, Friday) about 1,000 sessions and 80,000 sets, and with -v days=N the
-- last N days only (a newer user with the same habits). Loads follow a long progression
-- with 4-week rep blocks; half the working sets log an RPE, some RIR instead, a third a
-- tempo. Set-based; run as a superuser on a benchmark database:
--   psql -v user_id=UUID [-v days_per_week=3|4] [-v days=1826] -f Scripts/lib/synthetic_training.sql
\set ON_ERROR_STOP on
\if :{?days_per_week}
\else
  \set days_per_week 3
\endif
\if :{?days}
\else
  \set days 1826
\endif

create temporary table synthetic_program (day_type integer, position integer, exercise_name text, one_rm_kg numeric);
insert into synthetic_program (day_type, position, exercise_name, one_rm_kg)
select p.day_type, p.position, p.exercise_name, p.one_rm_kg
  from (values
    (0, 1, 'Barbell Bench Press', 120), (0, 2, 'Overhead Press', 70), (0, 3, 'Incline Dumbbell Bench Press', 40),
    (0, 4, 'Machine Chest Press', 110), (0, 5, 'Dumbbell Lateral Raise', 16), (0, 6, 'Cable Crossover', 30),
    (0, 7, 'Triceps Pushdown', 50), (0, 8, 'Skull Crusher', 45),
    (1, 1, 'Barbell Deadlift', 200), (1, 2, 'Pull-Up', 30), (1, 3, 'Barbell Row', 110), (1, 4, 'Lat Pulldown', 90),
    (1, 5, 'Seated Cable Row', 90), (1, 6, 'Face Pull', 35), (1, 7, 'Barbell Curl', 55), (1, 8, 'Hammer Curl', 24),
    (2, 1, 'Barbell Squat', 170), (2, 2, 'Romanian Deadlift', 150), (2, 3, 'Leg Press', 280),
    (2, 4, 'Bulgarian Split Squat', 40), (2, 5, 'Leg Extension', 90), (2, 6, 'Lying Leg Curl', 70),
    (2, 7, 'Standing Calf Raise', 140), (2, 8, 'Hanging Leg Raise', 10)
  ) as p (day_type, position, exercise_name, one_rm_kg);

-- Monday, Wednesday, Friday (or Monday, Tuesday, Thursday, Friday) over five years (or the
-- last :days days) up to yesterday, about 1 in 25 skipped.
create temporary table synthetic_sessions as
select md5(:'user_id' || ':synthetic-session:' || d::date)::uuid as id, d::date as session_date,
       (row_number() over (order by d) - 1) % 3 as day_type,
       -- training age in years, for the progression
       extract(epoch from d - (current_date - interval '5 years')) / (365.25 * 86400) as years
  from generate_series(greatest(current_date - interval '5 years', current_date - :days), current_date - interval '1 day',
                       interval '1 day') as d
 where extract(isodow from d) = any (case when :days_per_week = 4 then array[1, 2, 4, 5] else array[1, 3, 5] end)
   and abs(hashtext(:'user_id' || d::date::text)) % 25 <> 0;

insert into app.training_sessions (user_id, id, session_date, name, status, started_at, finished_at, created_at, updated_at)
select :'user_id', s.id, s.session_date, (array['Push', 'Pull', 'Legs'])[s.day_type + 1], 'completed',
       s.session_date + time '18:00', s.session_date + time '18:00' + (70 + abs(hashtext(s.id::text)) % 40) * interval '1 minute',
       s.session_date + time '19:30', s.session_date + time '19:30'
  from synthetic_sessions as s;

insert into app.session_exercises (user_id, session_id, position, exercise_id, exercise_name)
select :'user_id', s.id, p.position, e.id, e.name
  from synthetic_sessions as s
  join synthetic_program as p on p.day_type = s.day_type
  join app.exercises as e on e.name = p.exercise_name;

-- Working reps by 4-week block (5, 8, 10, 12); the load is the Epley weight for those
-- reps at about RPE 8, of a one-rep max that grows 25 % over the first years.
insert into app.session_sets (user_id, session_id, exercise_position, position, reps, weight_kg, rpe, rir, set_type, tempo,
                              rest_seconds)
select :'user_id', s.id, p.position, n,
       case when n = 1 then 10 when n = 2 then 5 else b.reps + (h % 3) - 1 end,
       greatest(0, round(p.one_rm_kg * (0.8 + 0.25 * (1 - exp(-s.years / 1.5)))
                         * case when n = 1 then 0.4 when n = 2 then 0.6 else 0.92 / (1 + (b.reps + 2) / 30.0) end / 2.5) * 2.5),
       case when n > 2 and h % 10 < 5 then 7 + (h / 10 % 5) * 0.5 end,
       case when n > 2 and h % 10 between 5 and 6 then 1 + h / 10 % 3 end,
       case when n <= 2 then 'warmup' when n = 10 and h % 4 = 0 then 'failure' else 'working' end,
       case when h % 3 = 0 then (array['3-1-1-0', '2-0-1-0', '4-0-1-0', '5-0-X-0'])[1 + h / 3 % 4] end,
       case when n <= 2 then 60 else 90 + (h % 5) * 30 end
  from synthetic_sessions as s
  join synthetic_program as p on p.day_type = s.day_type
 cross join lateral (select (array[5, 8, 10, 12])[1 + (extract(epoch from s.session_date::timestamp) / 86400 / 28)::integer % 4] as reps) as b
 cross join generate_series(1, 10) as n
 cross join lateral (select abs(hashtext(s.id::text || p.position || ':' || n)) as h) as r;

-- The totals kept on the session rows, by the one function that maintains them.
select set_config('synthetic.user_id', :'user_id', false);
do $$
declare
  v_session record;
begin
  for v_session in select t.user_id, t.id from app.training_sessions as t
                    where t.user_id = current_setting('synthetic.user_id')::uuid loop
    perform app.refresh_session_totals(v_session.user_id, v_session.id);
  end loop;
end
$$;

analyze app.training_sessions, app.session_exercises, app.session_sets;
