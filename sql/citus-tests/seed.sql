-- Rows for the rebalance check (Scripts/lib/citus_rebalance.sh): :users accounts (default
-- 60), each with 3 completed sessions of one exercise and two sets, its settings and a goal.
-- Single-row inserts, each routed to the user's shard group. Run as a superuser on the
-- coordinator: psql [-v users=60] -f sql/citus-tests/seed.sql
\set ON_ERROR_STOP on
\if :{?users}
\else
  \set users 60
\endif
set client_min_messages = warning;
select set_config('seed.users', :'users', false) \g /dev/null

do $$
declare
  v_user uuid;
  v_session uuid;
begin
  for n in 1..current_setting('seed.users')::integer loop
    v_user := (auth.create_account(format('rebalance-%s-%s@example.com', n, gen_random_uuid()), 'seed password 1', null)).id;
    for s in 1..3 loop
      v_session := gen_random_uuid();
      insert into app.training_sessions (user_id, id, session_date, status, created_at, updated_at,
                                         exercise_count, set_count, working_sets, volume_kg)
      values (v_user, v_session, date '2026-11-01' + s, 'completed', now(), now(), 1, 2, 2, 1000);
      insert into app.session_exercises (user_id, session_id, position, exercise_name, working_sets)
      values (v_user, v_session, 1, 'Bench press', 2);
      insert into app.session_sets (user_id, session_id, exercise_position, position, reps, weight_kg, set_type)
      values (v_user, v_session, 1, 1, 5, 100, 'working'), (v_user, v_session, 1, 2, 5, 100 + s, 'working');
    end loop;
  end loop;
end
$$;
