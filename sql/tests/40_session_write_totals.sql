-- A session write keeps its totals without reading back what it wrote: the exercises are
-- inserted with app.exercise_totals of the sets in the same statement, and the set rule is
-- checked with app.set_fits on those sets. This file holds both to the rules they stand in
-- for (fixed seed, run as the API role):
--   A. app.set_fits agrees with app.set_fit_problems (no problem) for every tracking type
--      and every combination of measures given;
--   B. after random creates and replaces of sessions of every tracking type, with warm-ups,
--      timed and distance sets, app.refresh_session_totals (the totals from the rows
--      stored) changes no exercise and no session row, one session at a time or all of a
--      user's at once (app.refresh_sessions_totals, as an import does);
--   C. the kept totals equal what the sets say, computed here without app.exercise_totals:
--      working sets, the sums of time and distance, the heaviest load and the best set.
begin;
\ir support/helpers.psql
select plan(8);
select setseed(0.2026);

-- A.
select is(
  (select count(*)::integer
     from unnest(array['weight_reps', 'reps_only', 'bodyweight_reps', 'assisted_bodyweight', 'duration',
                       'weight_duration', 'distance_duration', 'weight_distance', null]) as t (tracking_type),
          generate_series(0, 31) as m (mask)
    where app.set_fits(t.tracking_type,
                       case when m.mask & 1 > 0 then 50 end, case when m.mask & 2 > 0 then 10 end,
                       case when m.mask & 4 > 0 then 8 end, case when m.mask & 8 > 0 then 60 end,
                       case when m.mask & 16 > 0 then 400 end)
          is distinct from
          (app.set_fit_problems(t.tracking_type,
             app.set_measures(case when m.mask & 1 > 0 then 50 end, case when m.mask & 2 > 0 then 10 end,
                              case when m.mask & 4 > 0 then 8 end, case when m.mask & 8 > 0 then 60 end,
                              case when m.mask & 16 > 0 then 400 end)) = '{}')),
  0, 'A: app.set_fits agrees with app.set_fit_problems for every type and every combination of measures');

select pg_temp.sign_up('writer', 'session-write-totals@example.com', 'session write totals');

-- A random set that fits p_tracking_type: every required measure, each allowed one half the
-- time; any set type, warm-ups included; an RPE or an RIR now and then (the best set's
-- estimate reads the RPE chart).
create function pg_temp.random_set(p_tracking_type text) returns jsonb
language sql volatile as $$
  select jsonb_strip_nulls(jsonb_build_object(
    'reps', case app.set_field_rule(p_tracking_type, 'reps')
              when 'required' then 1 + floor(random() * 15)::integer
              when 'allowed' then case when random() < 0.5 then 1 + floor(random() * 15)::integer end end,
    'weight_kg', case app.set_field_rule(p_tracking_type, 'weight_kg')
                   when 'required' then round((random() * 200)::numeric, 1)
                   when 'allowed' then case when random() < 0.5 then round((random() * 40)::numeric, 1) end end,
    'assistance_kg', case when app.set_field_rule(p_tracking_type, 'assistance_kg') = 'allowed' and random() < 0.5
                          then round((1 + random() * 40)::numeric, 1) end,
    'duration_seconds', case app.set_field_rule(p_tracking_type, 'duration_seconds')
                          when 'required' then 10 + floor(random() * 3000)::integer
                          when 'allowed' then case when random() < 0.5 then 10 + floor(random() * 3000)::integer end end,
    'distance_m', case app.set_field_rule(p_tracking_type, 'distance_m')
                    when 'required' then round((20 + random() * 8000)::numeric, 1)
                    when 'allowed' then case when random() < 0.5 then round((20 + random() * 8000)::numeric, 1) end end,
    'rpe', case when random() < 0.4 then (12 + floor(random() * 9)) / 2.0 end,
    'rir', case when random() < 0.2 then floor(random() * 5)::integer end,
    'set_type', pg_temp.pick('["warmup", "working", "working", "dropset", "failure"]')))
$$;

-- A random session of 1 to 5 catalog exercises of any tracking type, 1 to 6 sets each.
create function pg_temp.random_session() returns jsonb
language plpgsql volatile as $$
declare
  v_exercises jsonb := '[]';
  v_exercise app.exercises;
begin
  for i in 1 .. 1 + floor(random() * 5)::integer loop
    select e.* into v_exercise from app.exercises as e where e.source = 'builtin' order by random() limit 1;
    v_exercises := v_exercises || jsonb_build_array(jsonb_build_object('exercise_id', v_exercise.id,
      'sets', (select jsonb_agg(pg_temp.random_set(v_exercise.tracking_type))
                 from generate_series(1, 1 + floor(random() * 6)::integer))));
  end loop;
  return jsonb_build_object('name', 'Random', 'exercises', v_exercises);
end
$$;

create temporary table written (id uuid);
grant all on written to liftbase_api;
set local role liftbase_api;
insert into written select (pg_temp.call('sessions_create', 'writer', pg_temp.random_session()) ->> 'id')::uuid
  from generate_series(1, 120);
-- A replace of every third one.
select count(pg_temp.call('session_replace', 'writer', pg_temp.random_session(), jsonb_build_object('id', w.id)))
  from (select id, row_number() over (order by id) as n from written) as w where w.n % 3 = 0;
reset role;

select ok((select count(distinct e.exercise_id) from app.session_exercises as e
            join app.exercises as c on c.id = e.exercise_id
           where e.session_id in (select id from written)) >= 1
          and (select count(distinct c.tracking_type) from app.session_exercises as e
                 join app.exercises as c on c.id = e.exercise_id
                where e.session_id in (select id from written)) >= 4
          and exists (select from app.session_sets as s where s.session_id in (select id from written)
                       and s.set_type = 'warmup'),
  'the sessions written hold exercises of several tracking types, and warm-ups');

-- B.
create temporary table kept_exercises as select * from app.session_exercises where session_id in (select id from written);
create temporary table kept_sessions as select * from app.training_sessions where id in (select id from written);
-- The rows of the written sessions' exercises, and of the sessions, that differ from the kept ones.
create function pg_temp.changed_exercises() returns integer language sql as $$
  select count(*)::integer from (
    select * from kept_exercises except select * from app.session_exercises
    union all
    select * from app.session_exercises where session_id in (select id from written) except select * from kept_exercises) as d $$;
create function pg_temp.changed_sessions() returns integer language sql as $$
  select count(*)::integer from (
    select * from kept_sessions except select * from app.training_sessions
    union all
    select * from app.training_sessions where id in (select id from written) except select * from kept_sessions) as d $$;
select count(app.refresh_session_totals(s.user_id, s.id)) from app.training_sessions as s where s.id in (select id from written);
select is(pg_temp.changed_exercises(), 0, 'B: refreshing the totals from the rows stored changes no session exercise');
select is(pg_temp.changed_sessions(), 0, 'B: nor any session row');
-- The totals wiped first, so that only a refresh of every session given brings them back.
update app.session_exercises
   set (working_sets, max_weight_kg, max_reps, max_duration_seconds, max_distance_m, best_pace_s_per_km,
        duration_seconds, distance_m, paced_seconds, paced_distance_m, best_set_position, best_e1rm_kg,
        best_weight_kg, best_reps, best_rpe, best_e1rm_method) =
       (0, null, null, null, null, null, 0, 0, 0, 0, null, null, null, null, null, null)
 where session_id in (select id from written);
update app.training_sessions set exercise_count = 0, set_count = 0, working_sets = 0, volume_kg = 0,
                                 set_duration_seconds = 0, distance_m = 0
 where id in (select id from written);
select cmp_ok(pg_temp.changed_exercises(), '>', 0, 'B: wiped, the totals differ from the kept ones');
select count(*) from (select app.refresh_sessions_totals(s.user_id, array_agg(s.id))
                       from app.training_sessions as s where s.id in (select id from written) group by s.user_id) as r;
select is(pg_temp.changed_exercises(), 0, 'B: refreshing every session of a user at once changes no session exercise');
select is(pg_temp.changed_sessions(), 0, 'B: nor any session row');

-- C.
select is((select count(*)::integer
             from app.session_exercises as e
             join app.exercises as c on c.id = e.exercise_id
             left join lateral (
               select count(*) as working, coalesce(sum(s.duration_seconds), 0) as seconds,
                      coalesce(sum(s.distance_m), 0) as distance, max(s.weight_kg) as heaviest
                 from app.session_sets as s
                where s.user_id = e.user_id and s.session_id = e.session_id and s.exercise_position = e.position
                  and s.set_type <> 'warmup') as w on true
             left join lateral (
               select s.position, coalesce(s.weight_kg * 100 / r.percent, s.weight_kg * (1 + s.reps / 30.0)) as e1rm
                 from app.session_sets as s
                 left join app.rpe_chart as r on r.reps = s.reps and r.rpe = coalesce(s.rpe, 10 - s.rir)
                where s.user_id = e.user_id and s.session_id = e.session_id and s.exercise_position = e.position
                  and s.set_type <> 'warmup' and s.reps >= 1 and s.weight_kg > 0 and c.tracking_type = 'weight_reps'
                order by 2 desc, s.position limit 1) as b on true
            where e.session_id in (select id from written)
              and (e.working_sets <> w.working or e.duration_seconds <> w.seconds or e.distance_m <> w.distance
                   or e.max_weight_kg is distinct from w.heaviest
                   or e.best_set_position is distinct from b.position or e.best_e1rm_kg is distinct from b.e1rm)),
          0, 'C: the kept totals are what the sets say');

select * from finish();
rollback;
