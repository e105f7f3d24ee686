-- Exercise substitutions: specificity scores against hand calculations, filtering by the
-- selected equipment and by exclusions (exercises and muscles), the strength-goal warning
-- for a competition lift, own exercises as candidates, and the 400/404 answers.
begin;
\ir support/helpers.psql
select plan(28);

select pg_temp.sign_up('a', 'swap-a@example.com', 'swap a password');
select pg_temp.sign_up('b', 'swap-b@example.com', 'swap b password');

-- Substitutions of a catalog exercise by name, for a goal.
create function pg_temp.swaps(p_token_name text, p_exercise text, p_goal text) returns jsonb
language sql as $$
  select pg_temp.call('exercise_substitutions', p_token_name, null,
           jsonb_build_object('id', md5('liftbase-exercise:' || lower(p_exercise))::uuid, 'goal', p_goal)) -> 'items'
$$;
create function pg_temp.item(p_items jsonb, p_name text) returns jsonb
language sql as $$ select i from jsonb_array_elements(p_items) as i where i ->> 'name' = p_name $$;

set local role liftbase_api;

-- Barbell Bench Press: horizontal_push, barbell, chest; shoulders, triceps; a competition lift.
-- strength = 0.5 pattern + 0.25 primary + 0.1 secondary + 0.15 equipment;
-- hypertrophy = 0.35 pattern + 0.45 primary + 0.15 secondary + 0.05 equipment.
create temporary table strength as select pg_temp.swaps('a', 'Barbell Bench Press', 'strength') as items;
create temporary table hypertrophy as select pg_temp.swaps('a', 'Barbell Bench Press', 'hypertrophy') as items;
select is((select (pg_temp.item(items, 'Pause Bench Press') ->> 'specificity_score')::numeric from strength), 1.00,
  'same pattern, muscles and equipment score 1');
select is((select pg_temp.item(items, 'Pause Bench Press') -> 'warning' from strength), 'null',
  'another competition lift carries no warning');
select is((select (pg_temp.item(items, 'Dumbbell Bench Press') ->> 'specificity_score')::numeric from strength), 0.85,
  'dumbbells for strength: 0.5 + 0.25 + 0.1 = 0.85');
select is((select pg_temp.item(items, 'Dumbbell Bench Press') -> 'warning' ->> 'code' from strength), 'competition_lift_replaced',
  'replacing the competition lift for strength warns');
select is((select (pg_temp.item(items, 'Dumbbell Bench Press') ->> 'specificity_score')::numeric from hypertrophy), 0.95,
  'dumbbells for hypertrophy: 0.35 + 0.45 + 0.15 = 0.95');
select is((select pg_temp.item(items, 'Dumbbell Bench Press') -> 'warning' from hypertrophy), 'null',
  'no warning for a hypertrophy goal');
select is((select (pg_temp.item(items, 'Dumbbell Fly') ->> 'specificity_score')::numeric from hypertrophy), 0.53,
  'a fly (other pattern, chest; shoulders): 0.45 + 0.15 × 1/2 = 0.525 → 0.53');
select is((select (pg_temp.item(items, 'Close-Grip Bench Press') ->> 'specificity_score')::numeric from strength), 0.68,
  'close grip (triceps; chest, shoulders): 0.5 + 0.1 × 1/3 + 0.15 = 0.68');
select is((select jsonb_agg((i ->> 'specificity_score')::numeric order by n) = jsonb_agg((i ->> 'specificity_score')::numeric order by (i ->> 'specificity_score')::numeric desc, n)
             from strength, jsonb_array_elements(items) with ordinality as x (i, n)), true, 'best first');
select is((select count(*)::integer from strength, jsonb_array_elements(items) as i where i ->> 'name' = 'Barbell Bench Press'), 0,
  'never the exercise itself');
select is((select count(*)::integer from jsonb_array_elements(pg_temp.swaps('a', 'Barbell Squat', 'hypertrophy')) as i
            where i ->> 'category' in ('cardio', 'stretching')), 0, 'no cardio for a squat, though a run works the quadriceps');

-- Equipment: with dumbbells selected, only dumbbell and body-only exercises.
select ok(pg_temp.call('equipment_select', 'a', '{"equipment_ids": ["dumbbell"]}') is not null, 'user a selects dumbbells');
select is((select array_agg(distinct i ->> 'equipment' order by i ->> 'equipment')
             from jsonb_array_elements(pg_temp.swaps('a', 'Barbell Bench Press', 'hypertrophy')) as i),
  array['body_only', 'dumbbell'], 'only exercises for the selected equipment or none');
select is((select count(*)::integer from jsonb_array_elements(pg_temp.swaps('b', 'Barbell Bench Press', 'hypertrophy')) as i
            where i ->> 'equipment' = 'barbell') > 0, true, 'user b, who selected nothing, gets every equipment');

-- Exclusions: an exercise, then a muscle (every candidate working the triceps goes).
select ok(pg_temp.call('exclusions_put', 'a', jsonb_build_object(
  'exercise_ids', jsonb_build_array(md5('liftbase-exercise:dumbbell bench press')::uuid), 'muscles', '[]'::jsonb)) is not null, 'exclude an exercise');
select is(pg_temp.item(pg_temp.swaps('a', 'Barbell Bench Press', 'hypertrophy'), 'Dumbbell Bench Press'), null,
  'an excluded exercise is never offered');
select ok(pg_temp.call('exclusions_put', 'a', '{"exercise_ids": [], "muscles": ["triceps"]}') is not null, 'exclude the triceps');
select is((select array_agg(i ->> 'name' order by i ->> 'name') from jsonb_array_elements(pg_temp.swaps('a', 'Barbell Bench Press', 'hypertrophy')) as i),
  array['Dumbbell Fly', 'Incline Dumbbell Fly'], 'only dumbbell exercises without the triceps remain');

-- Own exercises are candidates too; unknown ids and goals are refused.
select ok(pg_temp.call('exercise_create', 'b', '{"name": "Ring Push-Up", "equipment": "body_only",
  "primary_muscles": ["chest"], "secondary_muscles": ["shoulders"]}') is not null, 'user b creates an own exercise');
select is((select jsonb_build_array(i -> 'is_user_created', i -> 'specificity_score')
             from jsonb_array_elements(pg_temp.swaps('b', 'Barbell Bench Press', 'hypertrophy')) as i where i ->> 'name' = 'Ring Push-Up'),
  '[true, 0.53]', 'and it is offered (no pattern: 0.45 + 0.15 × 1/2)');
select is(pg_temp.error_of('exercise_substitutions', 'a', null, '{"id": "00000000-0000-0000-0000-000000000000"}') ->> 'code',
  'exercise_not_found', 'an unknown exercise is 404');
select is(pg_temp.error_of('exercise_substitutions', 'a', null, '{"id": "bench"}') ->> 'state', 'LB404', 'so is a malformed id');
select is(pg_temp.error_of('exercise_substitutions', 'a', null,
  jsonb_build_object('id', md5('liftbase-exercise:barbell bench press')::uuid, 'goal', 'power')),
  '{"state": "LB400", "code": "invalid_goal", "fields": {"goal": "must be strength or hypertrophy"}}',
  'an unknown goal is 400, naming goal');

-- Without ?goal=, the goal of the user's active program applies (hypertrophy without one).
create function pg_temp.warnings_without_goal(p_token_name text) returns integer
language sql as $$
  select count(*)::integer from jsonb_array_elements(pg_temp.call('exercise_substitutions', p_token_name, null,
           jsonb_build_object('id', md5('liftbase-exercise:barbell bench press')::uuid)) -> 'items') as i
   where i -> 'warning' <> 'null'::jsonb
$$;
select is(pg_temp.warnings_without_goal('b'), 0, 'no program: the hypertrophy goal, no warnings');
select ok(pg_temp.call('program_create', 'b', '{"goal": "strength", "training_age": "novice", "days_per_week": 3}') is not null,
  'user b starts a strength program');
select ok(pg_temp.warnings_without_goal('b') > 0, 'the strength program''s goal applies: swapping the bench press warns');

select is(jsonb_array_length(pg_temp.call('exercise_substitutions', 'b', null,
           jsonb_build_object('id', md5('liftbase-exercise:barbell bench press')::uuid, 'limit', '2')) -> 'items'), 2,
  'limit caps the candidates (best first)');
select is(pg_temp.error_of('exercise_substitutions', 'b', null,
           jsonb_build_object('id', md5('liftbase-exercise:barbell bench press')::uuid, 'limit', '0')) ->> 'state', 'LB400',
  'a limit outside 1-200 is 400');

select * from finish();
rollback;
