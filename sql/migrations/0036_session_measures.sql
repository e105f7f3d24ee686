-- What timed, distance and bodyweight sets add up to, kept where the reads find it
-- (app.refresh_session_totals keeps them in the transaction that writes the sets):
-- - per session exercise, over its working sets: the heaviest load, the most reps, the
--   longest set, the farthest set, the fastest pace (seconds per km of a set of at least
--   100 m with a duration: a 30 m carry's "pace" is none), the total duration and
--   distance, and the duration and distance of the sets with both (the pace of a week or an
--   exercise) — the records and the cardio analytics read these rows, never the sets;
-- - per session: the total duration of its sets and the total distance (the weekly
--   summary and GET /analytics/workouts).
-- The best set by estimated one-rep max comes only from load × reps (weight_reps)
-- exercises from now on: bodyweight_reps sets carry only the load added to the body, whose
-- "e1RM" means nothing. Such bests kept so far are cleared.

alter table app.session_exercises
  add column max_weight_kg numeric,
  add column max_reps integer,
  add column max_duration_seconds integer,
  add column max_distance_m numeric,
  add column best_pace_s_per_km numeric,
  add column duration_seconds integer not null default 0,
  add column distance_m numeric not null default 0,
  add column paced_seconds integer not null default 0,
  add column paced_distance_m numeric not null default 0;

alter table app.training_sessions
  add column set_duration_seconds integer not null default 0,
  add column distance_m numeric not null default 0;

-- GET /analytics/records pages the exercises a user trained in the order of this key, one
-- index probe per exercise, and reads each exercise's session rows through it.
create index session_exercises_exercise_key_idx
  on app.session_exercises (user_id, (coalesce(exercise_id, user_exercise_id)), session_id);

alter table app.session_exercises no force row level security;
alter table app.session_sets no force row level security;
alter table app.training_sessions no force row level security;

update app.session_exercises as e
   set (max_weight_kg, max_reps, max_duration_seconds, max_distance_m, best_pace_s_per_km, duration_seconds, distance_m,
        paced_seconds, paced_distance_m) = (
     select max(s.weight_kg), max(s.reps), max(s.duration_seconds), max(s.distance_m),
            min(round(s.duration_seconds * 1000 / s.distance_m, 1)) filter (where s.distance_m >= 100),
            coalesce(sum(s.duration_seconds), 0), coalesce(sum(s.distance_m), 0),
            coalesce(sum(s.duration_seconds) filter (where s.distance_m is not null), 0),
            coalesce(sum(s.distance_m) filter (where s.duration_seconds is not null), 0)
       from app.session_sets as s
      where s.user_id = e.user_id and s.session_id = e.session_id and s.exercise_position = e.position
        and s.set_type <> 'warmup');

update app.session_exercises as e
   set best_set_position = null, best_e1rm_kg = null, best_weight_kg = null, best_reps = null, best_rpe = null,
       best_e1rm_method = null
 where e.best_set_position is not null
   and coalesce((select x.tracking_type from app.exercises as x where x.id = e.exercise_id),
                (select u.tracking_type from app.user_exercises as u where u.user_id = e.user_id and u.id = e.user_exercise_id),
                'weight_reps') <> 'weight_reps';

update app.training_sessions as t
   set (set_duration_seconds, distance_m) = (
     select coalesce(sum(e.duration_seconds), 0), coalesce(sum(e.distance_m), 0)
       from app.session_exercises as e where e.user_id = t.user_id and e.session_id = t.id);

alter table app.session_exercises force row level security;
alter table app.session_sets force row level security;
alter table app.training_sessions force row level security;
