-- Program rules: validation, splits, blocks and phases, starting loads, short on time (a
-- property over random sessions), skips that shift, combined sessions, adherence,
-- warnings, the timeline, and isolation between users.
begin;
\ir support/helpers.psql
select plan(54);

select pg_temp.sign_up('a', 'programs-a@example.com', 'a good password');
select pg_temp.sign_up('b', 'programs-b@example.com', 'a good password');
select pg_temp.sign_up('c', 'programs-c@example.com', 'a good password');
select pg_temp.sign_up('p', 'programs-p@example.com', 'a good password');

-- Exercise name → number of sets of a planned session.
create function pg_temp.set_counts(p_next jsonb) returns jsonb language sql as $$
  select jsonb_object_agg(e ->> 'exercise_name', jsonb_array_length(e -> 'sets')) from jsonb_array_elements(p_next -> 'exercises') as e
$$;
create function pg_temp.total_sets(p_next jsonb) returns integer language sql as $$
  select coalesce(sum(jsonb_array_length(e -> 'sets')), 0)::integer from jsonb_array_elements(p_next -> 'exercises') as e
$$;
-- Logs a planned session as planned (20 kg where there is no load yet), with p_tempo on
-- every set and p_warmups warm-up sets added to the first exercise.
create function pg_temp.as_planned(p_next jsonb, p_tempo text default null, p_warmups integer default 0) returns jsonb language sql as $$
  select jsonb_build_object('exercises', jsonb_agg(jsonb_build_object(
    'exercise_id', e -> 'exercise_id',
    'sets', (select jsonb_agg(w.item order by w.k) from (
               select jsonb_build_object('reps', 5, 'weight_kg', 20, 'set_type', 'warmup', 'tempo', '6-0-1-0') as item, k
                 from generate_series(1, case when i = 1 then p_warmups else 0 end) as k
               union all
               select jsonb_build_object('reps', s -> 'reps', 'weight_kg', coalesce(nullif(s -> 'weight_kg', 'null'), '20'),
                                         'tempo', p_tempo), 100 + n
                 from jsonb_array_elements(e -> 'sets') with ordinality as x (s, n)) as w)) order by i))
    from jsonb_array_elements(p_next -> 'exercises') with ordinality as y (e, i)
$$;

set local role liftbase_api;

-- Validation --------------------------------------------------------------------------------------
select is(pg_temp.error_of('program_create', 'a', '{"goal": "power", "training_age": "expert", "days_per_week": 7, "split": ["arms"]}'),
  '{"state": "LB422", "code": "validation_failed", "fields": {"goal": "must be strength or hypertrophy",
    "training_age": "must be novice, intermediate or advanced", "days_per_week": "must be a whole number from 2 to 6",
    "split": "must be a list of 1 to 6 template ids (push, pull, legs, upper, lower, full_body)"}}',
  'every bad field at once, each with its rule');
select is(pg_temp.error_of('program_create', 'a', '{}') -> 'fields',
  '{"goal": "is required", "training_age": "is required", "days_per_week": "is required"}', 'required fields');
select is(pg_temp.error_of('program_create', 'a', '{"goal": "strength", "training_age": "novice", "days_per_week": 3.5, "split": "upper"}') -> 'fields',
  '{"days_per_week": "must be a whole number from 2 to 6", "split": "must be a list of 1 to 6 template ids (push, pull, legs, upper, lower, full_body)"}',
  'fractional days and a split that is not a list');
select is(pg_temp.error_of('program_get', 'a', null) ->> 'code', 'program_not_found', 'no program yet: 404');
select is(pg_temp.error_of('program_next', 'a', null) ->> 'code', 'program_not_found', 'nor a next session');
reset role;
select is((select count(*)::integer from app.programs), 0, 'nothing was written');
set local role liftbase_api;

-- Splits, blocks and phases --------------------------------------------------------------------------
select is(pg_temp.call('program_create', 'a', '{"goal": "strength", "training_age": "novice", "days_per_week": 2}') -> 'split',
  '["full_body"]', '2 days: full body');
select is(pg_temp.call('program_create', 'a', '{"goal": "strength", "training_age": "novice", "days_per_week": 3}') -> 'split',
  '["full_body"]', '3 days: full body');
select is(pg_temp.call('program_create', 'a', '{"goal": "strength", "training_age": "novice", "days_per_week": 4}') -> 'split',
  '["upper", "lower"]', '4 days: upper/lower');
select is(pg_temp.call('program_create', 'a', '{"goal": "strength", "training_age": "novice", "days_per_week": 5}') -> 'split',
  '["push", "pull", "legs", "upper", "lower"]', '5 days: push, pull, legs, upper, lower');
select is(pg_temp.call('program_create', 'a', '{"goal": "strength", "training_age": "novice", "days_per_week": 6}') -> 'split',
  '["push", "pull", "legs"]', '6 days: push/pull/legs twice');
select is(pg_temp.call('program_create', 'a', '{"goal": "strength", "training_age": "novice", "days_per_week": 4, "split": ["push", "pull"]}') -> 'split',
  '["push", "pull"]', 'a valid split overrides');
reset role;
select is((select array_agg(status order by created_at) from app.programs), array['ended', 'ended', 'ended', 'ended', 'ended', 'active'],
  'each new program ends the previous one');
select is((select count(*)::integer from app.program_sessions as s join app.programs as p on p.id = s.program_id where p.status = 'active'), 28,
  'the schedule holds every slot: 7 weeks × 4 days');
set local role liftbase_api;

create temporary table hyp as select pg_temp.call('program_create', 'a', '{"goal": "hypertrophy", "training_age": "intermediate", "days_per_week": 4}') as program;
select is((select jsonb_agg(jsonb_build_array(f ->> 'phase', f -> 'first_week', f -> 'last_week', f -> 'set_factor', f -> 'load_factor'))
             from hyp, jsonb_array_elements(program -> 'blocks' -> 0 -> 'phases') as f),
  '[["accumulation", 1, 4, 1.0, 1.0], ["deload", 5, 5, 0.5, 0.9]]',
  'intermediate hypertrophy: four accumulation weeks, then a lighter deload week');
select is((select (program -> 'current') - 'next_session_id' from hyp), '{"week": 1, "block": "Hypertrophy", "phase": "accumulation"}',
  'it starts in week 1');
select is((select jsonb_agg(b ->> 'name' order by (b ->> 'position')::integer) from jsonb_array_elements(
             pg_temp.call('program_create', 'c', '{"goal": "strength", "training_age": "advanced", "days_per_week": 3}') -> 'blocks') as b),
  '["Volume", "Strength", "Peak"]', 'advanced strength: volume, strength and peak blocks');
select is((select count(*)::integer from app.program_phase_plan('strength', 'intermediate') as a
             join app.program_phase_plan('strength', 'intermediate') as b on b.first_week = a.last_week + 1
            where b.main_reps < a.main_reps), 1, 'strength blocks get heavier: fewer main reps from volume to strength');
select is((select count(*)::integer
             from (values ('strength'), ('hypertrophy')) as g (goal), (values ('novice'), ('intermediate'), ('advanced')) as t (age),
                  app.program_phase_plan(g.goal, t.age) as f
            where f.main_reps >= f.accessory_reps_low), 0, 'in every phase of every plan main lifts take fewer reps than accessories');

-- Targets per set -----------------------------------------------------------------------------------
create temporary table upper_day as select pg_temp.call('program_next', 'a', null) as next;
select is((select pg_temp.set_counts(next) from upper_day),
  '{"Barbell Bench Press": 4, "Barbell Row": 4, "Overhead Press": 3, "Lat Pulldown": 3, "Dumbbell Curl": 2, "Triceps Pushdown": 2}',
  'the upper day: the template''s sets');
select is((select jsonb_agg(distinct jsonb_build_array(e ->> 'exercise_name', s -> 'reps', s -> 'rpe'))
             from upper_day, jsonb_array_elements(next -> 'exercises') as e, jsonb_array_elements(e -> 'sets') as s
            where e ->> 'exercise_name' in ('Barbell Bench Press', 'Dumbbell Curl')),
  '[["Barbell Bench Press", 8, 7.5], ["Dumbbell Curl", 10, 8.5]]', 'main lift 8 reps at RPE 7.5, accessory from 10 reps at 8.5');

-- Starting loads from history: 100 × 5 on the squat, then a strength program of sixes:
-- 100 × (1 + 5/30) / (1 + 6/30) = 97.2 → 97.5.
select pg_temp.call('sessions_create', 'b', '{"session_date": "2026-01-05", "exercises": [{"exercise_name": "Barbell Squat",
  "sets": [{"reps": 8, "weight_kg": 60, "set_type": "warmup"}, {"reps": 5, "weight_kg": 100}, {"reps": 5, "weight_kg": 95}]}]}');
select pg_temp.call('program_create', 'b', '{"goal": "strength", "training_age": "intermediate", "days_per_week": 3}');
select is((select e -> 'sets' -> 0 -> 'weight_kg' from jsonb_array_elements(pg_temp.call('program_next', 'b', null) -> 'exercises') as e
            where e ->> 'exercise_name' = 'Barbell Squat'), '97.5', 'the squat starts from the latest heaviest set, as sixes: 97.5');

-- Short on time: a property over random sessions ---------------------------------------------------
-- 300 random sessions of 1–40 sets with random tiers: no primary set (tier 1 or competition
-- lift) is ever dropped, tier 3 goes before tier 2, and what is kept and dropped is the session.
reset role;
select setseed(0.42);
create temporary table random_sessions as
select k, (select jsonb_agg(jsonb_build_object('id', k * 100 + n, 'priority_tier', 1 + floor(random() * 3)::integer,
                                               'competition_lift', random() < 0.15) order by n)
             from generate_series(1, 1 + (k * 7919) % 40) as n) as sets
  from generate_series(1, 300) as k;
create temporary table trimmed as select k, sets, app.trim_for_time(sets) as t from random_sessions;
grant select on trimmed to liftbase_api;
set local role liftbase_api;
select is((select count(*)::integer from trimmed, jsonb_array_elements(t -> 'dropped') as d
            where (d ->> 'priority_tier')::integer = 1 or (d ->> 'competition_lift')::boolean), 0,
  'short on time never drops a primary set (300 random sessions)');
select is((select count(*)::integer from trimmed
            where exists (select from jsonb_array_elements(t -> 'dropped') as d where d ->> 'priority_tier' = '2')
              and exists (select from jsonb_array_elements(t -> 'kept') as x
                           where x ->> 'priority_tier' = '3' and not (x ->> 'competition_lift')::boolean)), 0,
  'tier 2 sets go only once no tier 3 accessory is left');
select is((select count(*)::integer from trimmed
            where jsonb_array_length(t -> 'kept') + jsonb_array_length(t -> 'dropped') <> jsonb_array_length(sets)
               or (select jsonb_agg(x order by (x ->> 'id')::integer) from jsonb_array_elements((t -> 'kept') || (t -> 'dropped')) as x) <> sets), 0,
  'kept and dropped sets are exactly the session''s sets');
select is((select count(*)::integer from trimmed
            where jsonb_array_length(t -> 'kept') > greatest(ceil(jsonb_array_length(sets) / 2.0),
                    (select count(*) from jsonb_array_elements(sets) as s
                      where (s ->> 'priority_tier')::integer = 1 or (s ->> 'competition_lift')::boolean))), 0,
  'a short session keeps half the sets, or only the primary ones when they are more');
select cmp_ok((select count(*)::integer from trimmed where jsonb_array_length(t -> 'dropped') > 0), '>', 200, 'and most random sessions do lose sets');

-- Over real programs: every goal, age and day count, the short session keeps every primary
-- set the normal session has, records what it dropped, and the next session is normal.
create temporary table short_checks (n integer, normal jsonb, short jsonb, recorded jsonb);
grant all on short_checks to liftbase_api;
do $$
declare
  v_goal text;
  v_age text;
  v_days integer;
  v_normal jsonb;
  v_short jsonb;
begin
  foreach v_goal in array array['strength', 'hypertrophy'] loop
    foreach v_age in array array['novice', 'intermediate', 'advanced'] loop
      for v_days in 2 .. 6 loop
        perform pg_temp.call('program_create', 'p', jsonb_build_object('goal', v_goal, 'training_age', v_age, 'days_per_week', v_days));
        v_normal := pg_temp.call('program_next', 'p', null);
        v_short := pg_temp.call('program_next', 'p', null, '{"mode": "short_on_time"}');
        insert into short_checks values (v_days, v_normal, v_short,
          (select s.dropped_sets from app.program_sessions as s where s.id = (v_short ->> 'id')::uuid));
      end loop;
    end loop;
  end loop;
end $$;
select is((select count(*)::integer from short_checks,
                  jsonb_array_elements(normal -> 'exercises') as e, jsonb_array_elements(e -> 'sets') as s
            where ((e ->> 'priority_tier')::integer = 1 or (e ->> 'competition_lift')::boolean)
              and not exists (select from jsonb_array_elements(short -> 'exercises') as e2, jsonb_array_elements(e2 -> 'sets') as s2
                               where e2 ->> 'exercise_id' = e ->> 'exercise_id' and s2 = s)), 0,
  'every primary set of 30 programs'' next sessions is still there short on time');
select is((select count(*)::integer from short_checks where jsonb_array_length(short -> 'dropped_sets') = 0
              or pg_temp.total_sets(short) + jsonb_array_length(short -> 'dropped_sets') <> pg_temp.total_sets(normal)), 0,
  'short sessions drop sets, and kept + dropped = the normal session');
select is((select count(*)::integer from short_checks where recorded is distinct from short -> 'dropped_sets'), 0,
  'the dropped sets are recorded on the session');
create temporary table after_short as
select pg_temp.call('program_session_log', 'p', pg_temp.as_planned(pg_temp.call('program_next', 'p', null, '{"mode": "short_on_time"}')),
                    jsonb_build_object('id', pg_temp.call('program_next', 'p', null, '{"mode": "short_on_time"}') ->> 'id')) -> 'next' as next;
select is((select array[next ->> 'mode', next ->> 'dropped_sets'] from after_short), array['normal', '[]'],
  'short on time affects that session only');

-- Skips shift the schedule; a second skip combines ---------------------------------------------------
-- User c: 4 days, upper/lower, 5 weeks (hypertrophy intermediate) = 20 slots.
select pg_temp.call('program_create', 'c', '{"goal": "hypertrophy", "training_age": "intermediate", "days_per_week": 4}');
create temporary table first_upper as select pg_temp.call('program_next', 'c', null) as next;
create temporary table skip1 as
select pg_temp.call('program_session_skip', 'c', null, jsonb_build_object('id', (select next ->> 'id' from first_upper))) as answer;
select is((select array[answer ->> 'outcome', answer -> 'next' ->> 'id', answer -> 'next' ->> 'slot', answer -> 'next' ->> 'name'] from skip1),
  array['shifted', (select next ->> 'id' from first_upper), '2', 'Upper'], 'a skipped session moves to the next slot; it does not vanish');
select is((select array_agg(s.status || ':' || array_to_string(s.templates, '+') order by s.slot)
             from app.program_sessions as s join app.programs as p on p.id = s.program_id and p.status = 'active'
            where s.slot <= 4),
  array['skipped:upper', 'planned:upper', 'planned:lower', 'planned:upper'], 'the later sessions shift one slot on');
select is((select count(*)::integer from app.program_sessions as s join app.programs as p on p.id = s.program_id and p.status = 'active'),
  21, 'and the program grows by one slot');
select is(pg_temp.call('program_get', 'c', null) -> 'adherence',
  '{"score": 0.00, "weeks": [{"week": 1, "score": 0.00, "planned": 1, "completed": 0}]}', 'the missed slot counts against week 1');

create temporary table skip2 as
select pg_temp.call('program_session_skip', 'c', null, jsonb_build_object('id', (select next ->> 'id' from first_upper))) as answer;
select is((select array[answer ->> 'outcome', answer -> 'next' ->> 'name', answer -> 'next' ->> 'slot', answer -> 'next' ->> 'combined']
             from skip2), array['combined', 'Lower + Upper', '3', 'true'],
  'skipped again, the session combines into the next one');
-- 60 %: lower 4, 3, 3, 3, 3 sets → 2, 2, 2, 2, 2; upper 4, 4, 3, 3, 2, 2 → 2, 2, 2, 2, 1, 1: 20 sets, not 34.
select is((select pg_temp.set_counts(answer -> 'next') from skip2),
  '{"Barbell Squat": 2, "Romanian Deadlift": 2, "Bulgarian Split Squat": 2, "Leg Extension": 2, "Seated Calf Raise": 2,
    "Barbell Bench Press": 2, "Barbell Row": 2, "Overhead Press": 2, "Lat Pulldown": 2, "Dumbbell Curl": 1, "Triceps Pushdown": 1}',
  'each exercise of the combined session keeps 60 % of its sets');
select is((select pg_temp.total_sets(answer -> 'next') from skip2), 20, 'reduced volume: 20 sets instead of 16 + 18');
select is(pg_temp.error_of('program_session_skip', 'c', null, jsonb_build_object('id', (select next ->> 'id' from first_upper))) ->> 'code',
  'program_session_closed', 'a combined session cannot be skipped or logged again');

-- Two full-body days combined on request: the same exercises add up before the 60 %:
-- squat, bench, row, leg raise 3 + 3 → 3.6 → 4; press 2 + 2 → 2.4 → 2.
select pg_temp.call('program_create', 'c', '{"goal": "strength", "training_age": "novice", "days_per_week": 3}');
select is(pg_temp.set_counts(pg_temp.call('program_session_skip', 'c', '{"combine": true}',
            jsonb_build_object('id', pg_temp.call('program_next', 'c', null) ->> 'id')) -> 'next'),
  '{"Barbell Squat": 4, "Barbell Bench Press": 4, "Barbell Row": 4, "Overhead Press": 2, "Hanging Leg Raise": 4}',
  'two full-body sessions combined: 18 sets, not 28');
select is((pg_temp.error_of('program_session_skip', 'c', '{"combine": "yes"}',
            jsonb_build_object('id', pg_temp.call('program_next', 'c', null) ->> 'id')) -> 'fields'),
  '{"combine": "must be true or false"}', 'combine must be a boolean');

-- Warnings: slow eccentrics in a hypertrophy block ------------------------------------------------------
-- User a's hypertrophy program: the first session with a 5 s eccentric on every working set
-- (warm-ups excluded from the count), the second with 3 s.
create temporary table slow as
select pg_temp.call('program_session_log', 'a', pg_temp.as_planned(pg_temp.call('program_next', 'a', null), '5-0-1-0', 2),
                    jsonb_build_object('id', pg_temp.call('program_next', 'a', null) ->> 'id')) as answer;
select is((select answer -> 'warnings' -> 0 ->> 'code' from slow), 'slow_eccentric', 'a session with slow eccentrics warns');
select is((select answer -> 'session' -> 'exercises' -> 0 -> 'sets' -> 0 ->> 'set_type' from slow), 'warmup',
  'the log went through the session writer, warm-ups and all');
create temporary table brisk as
select pg_temp.call('program_session_log', 'a', pg_temp.as_planned(pg_temp.call('program_next', 'a', null), '3-0-1-0', 20),
                    jsonb_build_object('id', pg_temp.call('program_next', 'a', null) ->> 'id')) as answer;
select is((select answer -> 'warnings' from brisk), '[]', 'a 3 s eccentric does not (nor do 20 slow warm-ups: they are not working sets)');
-- The block: 18 slow and 16 brisk working sets: most are slow.
select is(pg_temp.call('program_get', 'a', null) -> 'blocks' -> 0 -> 'warnings' -> 0 ->> 'code', 'slow_eccentric',
  'the block summary warns when most of its working sets are slow');
select is(pg_temp.call('program_get', 'a', null) -> 'adherence' -> 'weeks', '[{"week": 1, "score": 1.00, "planned": 2, "completed": 2}]',
  'adherence: two of two due sessions done');
select pg_temp.call('session_delete', 'a', null, jsonb_build_object('id', (select answer -> 'session' ->> 'id' from brisk)));
select is((select array_agg(s.status || ':' || coalesce(s.training_session_id::text, 'none') order by s.slot)
             from app.program_sessions as s join app.programs as p on p.id = s.program_id and p.status = 'active' where s.slot <= 2),
  array['completed:' || (select answer -> 'session' ->> 'id' from slow), 'completed:none'],
  'deleting a logged workout keeps the program slot completed, without its link');
select is(app.training_warnings('strength', 10, 10), '[]', 'a strength block does not warn');
select is(app.training_warnings('hypertrophy', 10, 5), '[]', 'half the sets is not most');

-- Timeline and isolation ---------------------------------------------------------------------------
select is((select jsonb_agg(jsonb_build_array(p ->> 'goal', p ->> 'status', jsonb_array_length(p -> 'blocks')))
             from jsonb_array_elements(pg_temp.call('analytics_timeline', 'c', null) -> 'items') as p),
  '[["strength", "active", 1], ["hypertrophy", "ended", 1], ["strength", "ended", 3]]', 'the timeline lists programs, newest first, with blocks');
select is(pg_temp.error_of('program_session_log', 'b', '{}', jsonb_build_object('id', (select next ->> 'id' from upper_day))) ->> 'code',
  'program_session_not_found', 'another user''s program session is 404 to log');
select is(pg_temp.error_of('program_session_skip', 'b', '{}', jsonb_build_object('id', (select next ->> 'id' from upper_day))) ->> 'code',
  'program_session_not_found', 'and to skip');
select auth.authenticate((select token from tokens where name = 'b'));
select is((select array[count(*) filter (where user_id = app.current_user_id()), count(*) filter (where user_id <> app.current_user_id())]::integer[]
             from app.program_sessions), array[21, 0], 'row-level security: a user sees their own program rows only');
select set_config('liftbase.user_id', '', true);
select is((select count(*)::integer from app.programs), 0, 'and without a user, none');

select * from finish();
rollback;
