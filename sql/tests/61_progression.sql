-- Progression rules: each strategy on scripted hit / miss / partial logs, increments,
-- loadable weights, then the same rules driven through logged program sessions. Every
-- expected load is worked out by hand in the comment next to it.
begin;
\ir support/helpers.psql
select plan(55);

-- Loadable weights and increments ------------------------------------------------------------------
select is(app.loadable(101, 2.5), 100.0, '101 kg on a barbell: 100 (nearest 2.5)');
select is(app.loadable(101.3, 2.5), 102.5, '101.3 kg: 40.52 steps → 41 → 102.5');
select is(app.loadable(57, 2.0), 58.0, 'dumbbells step 2 kg: 57 → 28.5 steps → 29 → 58');
select is(app.loadable(56.25, 2.5, true), 55.0, 'a reduction rounds down: 56.25 → 55');
select is(app.load_step('kettlebells'), 4.0, 'kettlebells step 4 kg');
select is((select app.load_increment(primary_muscles, movement_pattern, equipment) from app.exercises where name = 'Barbell Squat'), 5.0,
  'squat (lower body): 5 kg');
select is((select app.load_increment(primary_muscles, movement_pattern, equipment) from app.exercises where name = 'Barbell Deadlift'), 5.0,
  'deadlift (hinge): 5 kg');
select is((select app.load_increment(primary_muscles, movement_pattern, equipment) from app.exercises where name = 'Barbell Bench Press'), 2.5,
  'bench press (upper body): 2.5 kg');
select is((select app.load_increment(primary_muscles, movement_pattern, equipment) from app.exercises where name = 'Dumbbell Lateral Raise'), 2.5,
  'lateral raise: 2.5 kg (above the 2 kg dumbbell step)');
select is(app.equivalent_load(100, 5, 3, 2.5), 105.0, '100 × 5 as triples: 100 × (1 + 5/30) / (1 + 3/30) = 106.06 → 105');

-- Strategy choice ------------------------------------------------------------------------------------
select is(array[app.progression_strategy('novice', 1, true, 'weight_reps'), app.progression_strategy('intermediate', 1, false, 'weight_reps'),
                app.progression_strategy('advanced', 2, true, 'weight_reps'), app.progression_strategy('novice', 2, false, 'weight_reps'),
                app.progression_strategy('intermediate', 3, false, 'weight_reps')],
  array['linear', 'rpe_weekly', 'rpe_weekly', 'double', 'double'],
  'load × reps: main lifts by training age (novice linear, else weekly RPE); everything else double progression');
select is(array(select app.progression_strategy('novice', 1, true, t)
                  from unnest(array['reps_only', 'bodyweight_reps', 'assisted_bodyweight', 'duration', 'weight_duration',
                                    'distance_duration', 'weight_distance']) with ordinality as x (t, n) order by n),
  array['reps', 'reps', 'reps', 'duration', 'duration', 'hold', 'hold'],
  'other types, main lift or not: reps-only, bodyweight and assisted add reps; timed adds seconds; distance holds');

-- Reps and duration progression ------------------------------------------------------------------
select is(app.progress_reps(8, '{10,9,6}'), '{11,10,8}', 'reps: one past each set, never below the bottom (6 + 1 → 8)');
select is(app.progress_reps(8, '{20,20}'), '{21,21}', 'reps: no top to the range');
select is(app.progress_duration(45, '{45,50,45}'), 50, 'duration: every set held 45 s → 50 s');
select is(app.progress_duration(45, '{45,40,45}'), 45, 'duration: one set short → holds at 45 s');

-- Novice linear ------------------------------------------------------------------------------------
select is((select row(l.load_kg, l.misses)::text from app.progress_linear(100, 0, 5, '{5,5,5}', 5, 2.5) as l), '(105.0,0)',
  'linear, hit: 100 + 5');
select is((select row(l.load_kg, l.misses)::text from app.progress_linear(100, 0, 5, '{5,5,4}', 5, 2.5) as l), '(100,1)',
  'linear, partial (one set short): hold, one miss');
select is((select row(l.load_kg, l.misses)::text from app.progress_linear(100, 1, 5, '{5,4,3}', 5, 2.5) as l), '(90.0,0)',
  'linear, second miss in a row: 100 × 0.9 = 90, count restarts');
select is((select row(l.load_kg, l.misses)::text from app.progress_linear(62.5, 1, 5, '{3,3,3}', 2.5, 2.5) as l), '(55.0,0)',
  'linear, second miss at 62.5: 56.25 rounded down to 55');
select is((select row(l.load_kg, l.misses)::text from app.progress_linear(100, 1, 5, '{5,5,5}', 5, 2.5) as l), '(105.0,0)',
  'linear, a hit after a miss: up and misses reset');
select is((select row(l.load_kg, l.misses)::text from app.progress_linear(20, 0, 8, '{8,8}', 2.5, 2.0) as l), '(22.0,0)',
  'linear on dumbbells: 20 + 2.5 = 22.5 → 11.25 steps → 22');

-- Intermediate weekly RPE --------------------------------------------------------------------------
select is(app.progress_rpe_weekly(100, 7, 8, 2.5, 2.5), 102.5, 'weekly RPE below target (7 < 8): +2.5');
select is(app.progress_rpe_weekly(100, 8, 8, 2.5, 2.5), 100::numeric, 'at target: hold');
select is(app.progress_rpe_weekly(100, 8.5, 8, 2.5, 2.5), 100::numeric, 'half a point above: hold');
select is(app.progress_rpe_weekly(100, 9, 8, 2.5, 2.5), 97.5, 'a point above: −2.5');
select is(app.progress_rpe_weekly(100, null, 8, 2.5, 2.5), 100::numeric, 'no RPE logged: hold');
select is(app.progress_rpe_weekly(140, 6.5, 7.5, 5, 2.5), 145.0, 'lower body below target: +5');

-- Double progression -------------------------------------------------------------------------------
select is((select row(d.load_kg, d.reps)::text from app.progress_double(20, 10, 15, '{12,11,10}', 2.5, 2.5) as d), '(20,"{13,12,11}")',
  'double, partial: each set one rep more, load holds');
select is((select row(d.load_kg, d.reps)::text from app.progress_double(20, 10, 15, '{15,15,15}', 2.5, 2.5) as d), '(22.5,"{10,10,10}")',
  'double, every set at the top: +2.5 and back to 10 reps');
select is((select row(d.load_kg, d.reps)::text from app.progress_double(20, 10, 15, '{15,15,14}', 2.5, 2.5) as d), '(20,"{15,15,15}")',
  'double, one set short of the top: no load yet');
select is((select row(d.load_kg, d.reps)::text from app.progress_double(20, 10, 15, '{8,7}', 2.5, 2.5) as d), '(20,"{10,10}")',
  'double, miss below the range: targets return to the bottom');
select is((select row(d.load_kg, d.reps)::text from app.progress_double(12, 8, 12, '{12,12,12}', 2.5, 2.0) as d), '(14.0,"{8,8,8}")',
  'double on dumbbells: 12 + 2.5 = 14.5 → 7.25 steps → 14');
select is(app.double_rep_targets('{13,12}', 10, 12, 3), '{12,12,12}', 'stored targets stay inside the phase range, the last repeats');

-- Through logged program sessions ------------------------------------------------------------------
select pg_temp.sign_up('novice', 'prog-novice@example.com', 'a good password');
select pg_temp.sign_up('inter', 'prog-inter@example.com', 'a good password');

-- A log body from a planned session: p_actual overrides, per exercise name, weight_kg,
-- reps (per set) and rpe; other exercises are logged as planned (20 kg while unloaded).
create function pg_temp.actual(p_next jsonb, p_actual jsonb) returns jsonb language sql as $$
  select jsonb_build_object('exercises', jsonb_agg(jsonb_build_object(
    'exercise_id', e -> 'exercise_id',
    'sets', (select jsonb_agg(jsonb_build_object(
                 'reps', coalesce(p_actual -> (e ->> 'exercise_name') -> 'reps' -> (n::integer - 1), s -> 'reps'),
                 'weight_kg', coalesce(p_actual -> (e ->> 'exercise_name') -> 'weight_kg', nullif(s -> 'weight_kg', 'null'), '20'),
                 'rpe', p_actual -> (e ->> 'exercise_name') -> 'rpe') order by n)
               from jsonb_array_elements(e -> 'sets') with ordinality as x (s, n))) order by i))
    from jsonb_array_elements(p_next -> 'exercises') with ordinality as y (e, i)
$$;

-- The targets of one exercise of a planned session: "load×reps,reps,...".
create function pg_temp.targets(p_next jsonb, p_name text) returns text language sql as $$
  select coalesce(e -> 'sets' -> 0 ->> 'weight_kg', '') || '×' || string_agg(s ->> 'reps', ',' order by (s ->> 'set_number')::integer)
    from jsonb_array_elements(p_next -> 'exercises') as e, jsonb_array_elements(e -> 'sets') as s
   where e ->> 'exercise_name' = p_name
   group by e
$$;

-- Logs the next session with p_actual and returns the next one.
create function pg_temp.log_next(p_token_name text, p_actual jsonb) returns jsonb language plpgsql as $$
declare
  v_next jsonb := pg_temp.call('program_next', p_token_name, null);
begin
  return pg_temp.call('program_session_log', p_token_name, pg_temp.actual(v_next, p_actual), jsonb_build_object('id', v_next ->> 'id')) -> 'next';
end $$;

-- Like log_next, with p_extra sets appended to one exercise's planned sets.
create function pg_temp.log_next_with(p_token_name text, p_name text, p_extra jsonb) returns jsonb language plpgsql as $$
declare
  v_next jsonb := pg_temp.call('program_next', p_token_name, null);
  v_body jsonb := pg_temp.actual(v_next, '{}');
  v_index text := (select (i - 1)::text from jsonb_array_elements(v_next -> 'exercises') with ordinality as y (e, i)
                    where e ->> 'exercise_name' = p_name);
begin
  v_body := jsonb_set(v_body, array['exercises', v_index, 'sets'], (v_body #> array['exercises', v_index, 'sets']) || p_extra);
  return pg_temp.call('program_session_log', p_token_name, v_body, jsonb_build_object('id', v_next ->> 'id')) -> 'next';
end $$;

set local role liftbase_api;

-- Novice strength, full body three days a week: squat, bench, row 3 sets; press 2; leg raise 3.
select pg_temp.call('program_create', 'novice', '{"goal": "strength", "training_age": "novice", "days_per_week": 3}');
select is(pg_temp.targets(pg_temp.call('program_next', 'novice', null), 'Barbell Squat'), '×5,5,5',
  'novice squat: 3 × 5, no load before the first log (no history)');
create temporary table novice (n integer primary key, next jsonb);
grant all on novice to liftbase_api;
insert into novice values (1, pg_temp.log_next('novice',
  '{"Barbell Squat": {"weight_kg": 100}, "Barbell Bench Press": {"weight_kg": 60}, "Barbell Row": {"weight_kg": 50, "reps": [10, 9, 8]}}'));
select is(pg_temp.targets((select next from novice where n = 1), 'Barbell Squat'), '105.0×5,5,5', 'hit at 100: squat 105 (+5, lower body)');
select is(pg_temp.targets((select next from novice where n = 1), 'Barbell Bench Press'), '62.5×5,5,5', 'hit at 60: bench 62.5 (+2.5)');
select is(pg_temp.targets((select next from novice where n = 1), 'Barbell Row'), '50.0×11,10,9',
  'row (tier 2, double 8–12): 10, 9, 8 → 11, 10, 9 at 50');
insert into novice values (2, pg_temp.log_next('novice', '{"Barbell Squat": {"reps": [5, 5, 4]}, "Barbell Row": {"reps": [12, 12, 12]}}'));
select is(pg_temp.targets((select next from novice where n = 2), 'Barbell Squat'), '105.0×5,5,5', 'partial (5, 5, 4): squat holds at 105');
select is(pg_temp.targets((select next from novice where n = 2), 'Barbell Row'), '52.5×8,8,8', 'row at the top of the range: 52.5 × 8');
select is(pg_temp.targets((select next from novice where n = 2), 'Barbell Bench Press'), '65.0×5,5,5', 'bench hit as planned: 65');
insert into novice values (3, pg_temp.log_next('novice', '{"Barbell Squat": {"reps": [5, 4, 4]}}'));
select is(pg_temp.targets((select next from novice where n = 3), 'Barbell Squat'), '92.5×5,5,5',
  'second miss in a row: 105 × 0.9 = 94.5 → rounded down 92.5');
insert into novice values (4, pg_temp.log_next('novice', '{}'));
select is(pg_temp.targets((select next from novice where n = 4), 'Barbell Squat'), '97.5×5,5,5', 'and a hit climbs again: 97.5');
-- Progression reads the sets done as prescribed (app.counts_for_progression): 97.5 × 5, 5, 5
-- and a drop set of 70 × 4 is a hit (the drop set is not read) → 97.5 + 5 = 102.5; read, its
-- 4 reps would have been a miss. Then 102.5 × 5, 5, 5 and a set to failure of 102.5 × 3: read,
-- so the 3 reps are a miss and the squat holds at 102.5 (a hit would make it 107.5).
insert into novice values (5, pg_temp.log_next_with('novice', 'Barbell Squat', '[{"reps": 4, "weight_kg": 70, "set_type": "dropset"}]'));
select is(pg_temp.targets((select next from novice where n = 5), 'Barbell Squat'), '102.5×5,5,5',
  'a drop set after the prescribed sets is not a miss: 102.5');
insert into novice values (6, pg_temp.log_next_with('novice', 'Barbell Squat', '[{"reps": 3, "weight_kg": 102.5, "set_type": "failure"}]'));
select is(pg_temp.targets((select next from novice where n = 6), 'Barbell Squat'), '102.5×5,5,5',
  'a set to failure short of the reps is: the squat holds at 102.5');

-- Intermediate hypertrophy, two full-body days a week: bench 3 × 8 at RPE 7.5, weekly.
select pg_temp.call('program_create', 'inter', '{"goal": "hypertrophy", "training_age": "intermediate", "days_per_week": 2}');
create temporary table inter (n integer primary key, next jsonb);
grant all on inter to liftbase_api;
insert into inter values (1, pg_temp.log_next('inter', '{"Barbell Bench Press": {"weight_kg": 80, "rpe": 6.5}, "Barbell Squat": {"weight_kg": 100, "rpe": 9}}'));
select is(pg_temp.targets((select next from inter where n = 1), 'Barbell Bench Press'), '80.0×8,8,8', 'within week 1 the bench holds at 80');
insert into inter values (2, pg_temp.log_next('inter', '{"Barbell Bench Press": {"rpe": 7}, "Barbell Squat": {"rpe": 8}}'));
select is(pg_temp.targets((select next from inter where n = 2), 'Barbell Bench Press'), '82.5×8,8,8',
  'week 2: last week''s top bench RPE 7 < 7.5 → 82.5');
select is(pg_temp.targets((select next from inter where n = 2), 'Barbell Squat'), '95.0×8,8,8',
  'week 2: top squat RPE 9 ≥ 7.5 + 1 → 100 − 5 = 95');
insert into inter values (3, pg_temp.log_next('inter', '{"Barbell Bench Press": {"rpe": 9}, "Barbell Squat": {"rpe": 7.5}}'));
select is(pg_temp.targets((select next from inter where n = 3), 'Barbell Bench Press'), '82.5×8,8,8', 'mid-week: still 82.5');
insert into inter values (4, pg_temp.log_next('inter', '{"Barbell Bench Press": {"rpe": 8}, "Barbell Squat": {"rpe": 7.5}}'));
select is(pg_temp.targets((select next from inter where n = 4), 'Barbell Bench Press'), '80.0×8,8,8',
  'week 3: top RPE 9 that week ≥ 8.5 → 82.5 − 2.5 = 80');
select is(pg_temp.targets((select next from inter where n = 4), 'Barbell Squat'), '95.0×8,8,8', 'squat at target RPE holds at 95');

-- Other types through a program: the pull day with a plank (3 × 45 s) and a run (30 min over
-- 5 km) added to its template (rolled back with the test). Pull-Up (bodyweight, tier 2) adds
-- reps; the plank adds seconds; the run holds.
reset role;
insert into app.template_exercises (template_id, position, exercise_id, sets, reps, rest_seconds, duration_seconds, distance_m)
select 'pull', 6, id, 3, null::integer, 60, 45, null::numeric from app.exercises where name = 'Plank'
union all
select 'pull', 7, id, 1, null, 0, 1800, 5000 from app.exercises where name = 'Treadmill Run';
select pg_temp.sign_up('typed', 'prog-typed@example.com', 'a good password');
set local role liftbase_api;
select pg_temp.call('program_create', 'typed', '{"goal": "hypertrophy", "training_age": "novice", "days_per_week": 3, "split": ["pull"]}');
create temporary table typed (n integer primary key, next jsonb);
grant all on typed to liftbase_api;
insert into typed values (0, pg_temp.call('program_next', 'typed', null));
-- The measures of one exercise's sets of a planned session, as text.
create function pg_temp.measures(p_next jsonb, p_name text) returns text language sql as $$
  select string_agg(concat_ws('/', s ->> 'weight_kg', s ->> 'reps', s ->> 'duration_seconds', s ->> 'distance_m'), ','
                    order by (s ->> 'set_number')::integer)
    from jsonb_array_elements(p_next -> 'exercises') as e, jsonb_array_elements(e -> 'sets') as s
   where e ->> 'exercise_name' = p_name
$$;
select is(pg_temp.measures((select next from typed where n = 0), 'Plank') || ' | ' || pg_temp.measures((select next from typed where n = 0), 'Treadmill Run'),
  '45,45,45 | 1800/5000', 'targets by type: the plank 3 × 45 s, the run 30 min over 5 km, no reps or load');
-- The planned sets logged back as they are (their shape is a logged set's; the lifts at
-- 20 kg, no load being known yet), but the pull-ups done without load for 12, 11 and 9
-- reps, and the plank held 45, 50, 45 s.
create function pg_temp.logged_back(p_next jsonb) returns jsonb language sql as $$
  select jsonb_build_object('exercises', jsonb_agg(jsonb_build_object(
    'exercise_id', e -> 'exercise_id',
    'sets', (select jsonb_agg(case e ->> 'exercise_name'
                                when 'Pull-Up' then jsonb_build_object('reps', (array[12, 11, 9])[n])
                                when 'Plank' then jsonb_build_object('duration_seconds', (array[45, 50, 45])[n])
                                else s - 'set_number' || case when s -> 'reps' <> 'null' and s -> 'weight_kg' = 'null'
                                                              then '{"weight_kg": 20}'::jsonb else '{}' end end order by n)
               from jsonb_array_elements(e -> 'sets') with ordinality as x (s, n))) order by i))
    from jsonb_array_elements(p_next -> 'exercises') with ordinality as y (e, i)
$$;
insert into typed values (1, pg_temp.call('program_session_log', 'typed', pg_temp.logged_back((select next from typed where n = 0)),
                                          jsonb_build_object('id', (select next ->> 'id' from typed where n = 0))) -> 'next');
select is(pg_temp.measures((select next from typed where n = 1), 'Pull-Up'), '13,12,10',
  'bodyweight: 12, 11, 9 reps → 13, 12, 10 (one past each, at least 10), still no load');
select is(pg_temp.measures((select next from typed where n = 1), 'Plank'), '50,50,50', 'timed: every set held 45 s → 50 s');
select is(pg_temp.measures((select next from typed where n = 1), 'Treadmill Run'), '1800/5000', 'distance: the run holds');

select * from finish();
rollback;
