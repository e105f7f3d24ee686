-- Migration 0004 filled the session totals as the owner, whom forced row-level security
-- shows no rows without a request's user: on a database that already had sessions, the
-- totals stayed 0. Fill them again with the policy lifted for this transaction only.
alter table app.training_sessions no force row level security;
alter table app.session_exercises no force row level security;
alter table app.session_sets no force row level security;

update app.training_sessions as s
   set exercise_count = (select count(*) from app.session_exercises as e where e.user_id = s.user_id and e.session_id = s.id),
       set_count = coalesce(t.sets, 0), working_sets = coalesce(t.working, 0), volume_kg = coalesce(t.volume, 0)
  from (select s2.user_id, s2.id, count(x.*) as sets,
               count(x.*) filter (where x.set_type <> 'warmup') as working,
               sum(x.weight_kg * x.reps) filter (where x.set_type <> 'warmup') as volume
          from app.training_sessions as s2
          left join app.session_sets as x on x.user_id = s2.user_id and x.session_id = s2.id
         group by s2.user_id, s2.id) as t
 where t.user_id = s.user_id and t.id = s.id;

alter table app.training_sessions force row level security;
alter table app.session_exercises force row level security;
alter table app.session_sets force row level security;
