-- The best working set of each session exercise is kept whole (load, reps, RPE as rated,
-- method), not only its position and e1RM (0011): the e1RM history of five years then reads
-- one row per session exercise and touches neither the sets nor the RPE chart.
--
-- 0011's own backfill ran as the owner, whom forced row-level security shows no rows
-- without a request's user (as 0008 explains for 0004): on a database that already had
-- sessions it filled nothing. Everything 0011 and this migration keep per session exercise
-- is filled here with the policy lifted for this transaction only.
alter table app.session_exercises
  add column best_weight_kg numeric,
  add column best_reps integer,
  add column best_rpe numeric,
  add column best_e1rm_method text;

alter table app.session_exercises no force row level security;
alter table app.session_sets no force row level security;

update app.session_exercises as e
   set working_sets = coalesce((select count(*) from app.session_sets as x
                                 where x.user_id = e.user_id and x.session_id = e.session_id
                                   and x.exercise_position = e.position and x.set_type <> 'warmup'), 0),
       best_set_position = b.position, best_e1rm_kg = b.e1rm, best_weight_kg = b.weight_kg, best_reps = b.reps,
       best_rpe = b.rpe, best_e1rm_method = b.method
  from app.session_exercises as e2
  left join lateral (
    select x.position, app.e1rm_kg(x.weight_kg, x.reps, c.percent) as e1rm, x.weight_kg, x.reps,
           app.effective_rpe(x.rpe, x.rir) as rpe, app.e1rm_method(c.percent) as method
      from app.session_sets as x
      left join app.rpe_chart as c on c.reps = x.reps and c.rpe = app.effective_rpe(x.rpe, x.rir)
     where x.user_id = e2.user_id and x.session_id = e2.session_id and x.exercise_position = e2.position
       and x.set_type <> 'warmup' and x.reps >= 1 and x.weight_kg > 0
     order by 2 desc, x.position
     limit 1) as b on true
 where e2.user_id = e.user_id and e2.session_id = e.session_id and e2.position = e.position;

alter table app.session_exercises force row level security;
alter table app.session_sets force row level security;
