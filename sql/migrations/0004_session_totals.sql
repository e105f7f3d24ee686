-- Session totals kept on the session row, so the session list (the hottest training read)
-- is one index scan instead of aggregating every session's sets. app.save_session() is
-- the only writer of exercises and sets, and refreshes these in the same transaction.

alter table app.training_sessions
  add column exercise_count integer not null default 0,
  add column set_count integer not null default 0,
  add column working_sets integer not null default 0,
  add column volume_kg numeric not null default 0;

update app.training_sessions as s
   set exercise_count = (select count(*) from app.session_exercises as e where e.user_id = s.user_id and e.session_id = s.id),
       set_count = coalesce(t.sets, 0), working_sets = coalesce(t.working, 0), volume_kg = coalesce(t.volume, 0)
  from (select x.user_id, x.session_id, count(*) as sets,
               count(*) filter (where x.set_type <> 'warmup') as working,
               sum(x.weight_kg * x.reps) filter (where x.set_type <> 'warmup') as volume
          from app.session_sets as x group by x.user_id, x.session_id) as t
 where t.user_id = s.user_id and t.session_id = s.id;
