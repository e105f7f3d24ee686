-- The personal records kept per exercise (app.exercise_records, migration 0051) are what the
-- sessions say: after random creates, replaces, status changes and deletes of sessions of
-- every tracking type, every exercise's kept row equals app.exercise_records computed from
-- the sessions, and no exercise without records has a row; `liftbase summaries rebuild`'s
-- function writes the same rows. Fixed seed, API role.
begin;
\ir support/helpers.psql
select plan(4);
select setseed(0.6565);

select pg_temp.sign_up('r', 'records-summary@example.com', 'records summary');

-- A random session of 1 to 4 exercises from a small pool (so that writes meet on the same
-- exercises), 1 to 4 sets each that fit the exercise's type.
create function pg_temp.random_session(p_status text default 'completed') returns jsonb
language plpgsql volatile as $$
declare
  v_exercises jsonb := '[]';
  v_exercise app.exercises;
begin
  for i in 1 .. 1 + floor(random() * 4)::integer loop
    select e.* into v_exercise from app.exercises as e
     where e.source = 'builtin' and e.name in ('Barbell Bench Press', 'Barbell Squat', 'Pull-Up', 'Plank', 'Running',
                                                'Rowing Machine', 'Farmer''s Walk', 'Assisted Dip', 'Barbell Row')
     order by random() limit 1;
    v_exercises := v_exercises || jsonb_build_array(jsonb_build_object('exercise_id', v_exercise.id,
      'sets', (select jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
                        'reps', case when app.set_field_rule(v_exercise.tracking_type, 'reps') <> 'refused'
                                     then 1 + floor(random() * 12)::integer end,
                        'weight_kg', case app.set_field_rule(v_exercise.tracking_type, 'weight_kg')
                                       when 'required' then round((random() * 150)::numeric, 1)
                                       when 'allowed' then case when random() < 0.5 then round((random() * 30)::numeric, 1) end end,
                        'duration_seconds', case when app.set_field_rule(v_exercise.tracking_type, 'duration_seconds') = 'required'
                                                   or (app.set_field_rule(v_exercise.tracking_type, 'duration_seconds') = 'allowed'
                                                       and random() < 0.5)
                                                 then 10 + floor(random() * 2000)::integer end,
                        'distance_m', case when app.set_field_rule(v_exercise.tracking_type, 'distance_m') = 'required'
                                             or (app.set_field_rule(v_exercise.tracking_type, 'distance_m') = 'allowed'
                                                 and random() < 0.6)
                                           then round((50 + random() * 5000)::numeric, 1) end,
                        'rpe', case when random() < 0.4 then (14 + floor(random() * 7)) / 2.0 end,
                        'set_type', case when random() < 0.2 then 'warmup' else 'working' end)))
                 from generate_series(1, 1 + floor(random() * 4)::integer))));
  end loop;
  return jsonb_build_object('name', 'Random', 'status', p_status,
                            'session_date', current_date - floor(random() * 400)::integer, 'exercises', v_exercises);
end
$$;

create temporary table sessions_made (id uuid);
grant all on sessions_made to liftbase_api;
set local role liftbase_api;
insert into sessions_made select (pg_temp.call('sessions_create', 'r', pg_temp.random_session()) ->> 'id')::uuid
  from generate_series(1, 60);
-- Replaces (new exercises, sets and date), deletes, and a session started and finished.
select count(pg_temp.call('session_replace', 'r', pg_temp.random_session(), jsonb_build_object('id', s.id)))
  from (select id from sessions_made order by random() limit 20) as s;
select count(pg_temp.call('session_delete', 'r', null, jsonb_build_object('id', s.id)))
  from (select id from sessions_made order by random() limit 15) as s;
insert into sessions_made select (pg_temp.call('sessions_create', 'r', pg_temp.random_session('in_progress')) ->> 'id')::uuid;
reset role;

-- Every exercise the user has sessions of or a kept row for: kept row against computed.
create function pg_temp.records_drift() returns integer language sql as $$
  select count(*)::integer
    from (select e.user_id, coalesce(e.exercise_id, e.user_exercise_id) as key from app.session_exercises as e
           where e.user_id = (select user_id from tokens where name = 'r')
          union
          select k.user_id, k.exercise_key from app.exercise_records as k
           where k.user_id = (select user_id from tokens where name = 'r')) as k
    left join app.exercise_records as r on r.user_id = k.user_id and r.exercise_key = k.key
   where k.key is not null and r.records is distinct from app.exercise_records(k.user_id, k.key)
$$;

select ok((select count(*) from app.exercise_records where user_id = (select user_id from tokens where name = 'r')) >= 5,
          'the sessions left hold records of several exercises');
select is(pg_temp.records_drift(), 0, 'after random creates, replaces and deletes the kept records are what the sessions say');

set local role liftbase_api;
select pg_temp.call('session_update', 'r', '{"status": "completed"}',
                    jsonb_build_object('id', (select id from sessions_made order by ctid desc limit 1)));
reset role;
select is(pg_temp.records_drift(), 0, 'finishing an in-progress session keeps them too');

-- The rebuild writes the same rows.
create temporary table kept as select * from app.exercise_records;
select app.rebuild_exercise_records((select user_id from tokens where name = 'r'));
select is((select count(*)::integer from (select * from kept except select * from app.exercise_records
                                          union all
                                          select * from app.exercise_records except select * from kept) as d),
          0, 'app.rebuild_exercise_records writes the rows that were kept');

select * from finish();
rollback;
