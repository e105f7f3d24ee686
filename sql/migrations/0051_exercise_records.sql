-- Personal records per user and exercise (GET /analytics/records), kept in the transaction
-- of every write that changes them: the read is a page of these rows, never a pass over an
-- exercise's sessions. The records of an exercise are app.exercise_records's answer for it
-- (sql/functions/app_analytics.sql), recomputed for the exercises a statement touched by
-- app.keep_exercise_records (statement triggers below: a session's exercises written,
-- changed or deleted, a session's status or date changed); an exercise without records has
-- no row. app.rebuild_exercise_records rebuilds them (`liftbase summaries rebuild`).
create table app.exercise_records (
  user_id      uuid not null references auth.users (id) on delete cascade,
  -- The catalog or own exercise (coalesce(exercise_id, user_exercise_id) of the session rows).
  exercise_key uuid not null,
  records      jsonb not null,
  primary key (user_id, exercise_key)
);
comment on table app.exercise_records is
  'Personal records per user and exercise (app.exercise_records), kept by triggers on app.session_exercises and app.training_sessions';

alter table app.exercise_records enable row level security;
alter table app.exercise_records force row level security;
create policy own_rows on app.exercise_records using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));

-- The body is app_analytics.sql's (the functions are applied after the migrations).
create function app.keep_exercise_records() returns trigger
language plpgsql
as $$
begin
  return null;
end
$$;
create trigger session_exercises_records_insert after insert on app.session_exercises
  referencing new table as new_rows for each statement execute function app.keep_exercise_records();
create trigger session_exercises_records_update after update on app.session_exercises
  referencing old table as old_rows new table as new_rows for each statement execute function app.keep_exercise_records();
create trigger session_exercises_records_delete after delete on app.session_exercises
  referencing old table as old_rows for each statement execute function app.keep_exercise_records();
-- A session's status (only completed sessions hold records) or date (a record names it).
create trigger training_sessions_records_update after update on app.training_sessions
  referencing old table as old_rows new table as new_rows for each statement execute function app.keep_exercise_records();

-- The records as they stand, when the rule is there already (a database made before this
-- migration; a new one has no sessions), with the policies lifted for this transaction
-- only (the owner sees no user's rows through forced row-level security, as 0008 explains).
do $$
begin
  if to_regprocedure('app.exercise_records(uuid, uuid)') is not null then
    alter table app.exercise_records no force row level security;
    alter table app.session_exercises no force row level security;
    alter table app.training_sessions no force row level security;
    execute $sql$
      insert into app.exercise_records (user_id, exercise_key, records)
      select k.user_id, k.exercise_key, r.records
        from (select distinct e.user_id, coalesce(e.exercise_id, e.user_exercise_id) as exercise_key
                from app.session_exercises as e
               where coalesce(e.exercise_id, e.user_exercise_id) is not null) as k
       cross join lateral (select app.exercise_records(k.user_id, k.exercise_key) as records) as r
       where r.records is not null
    $sql$;
    alter table app.exercise_records force row level security;
    alter table app.session_exercises force row level security;
    alter table app.training_sessions force row level security;
  end if;
end
$$;
