-- Exercise search, own exercises, equipment selection, exclusions and preferences, as the
-- API role.
begin;
\ir support/helpers.psql
select plan(22);

select pg_temp.sign_up('a', 'lib-a@example.com', 'library a');
select pg_temp.sign_up('b', 'lib-b@example.com', 'library b');

create function pg_temp.error_code(p_function text, p_token_name text, p_body jsonb, p_args jsonb default '{}')
returns text language plpgsql as $$
declare
  v_detail text;
begin
  perform pg_temp.call(p_function, p_token_name, p_body, p_args);
  return null;
exception when others then
  get stacked diagnostics v_detail = pg_exception_detail;
  return coalesce(v_detail::jsonb ->> 'code', sqlerrm);
end $$;

set local role liftbase_api;

-- Search ------------------------------------------------------------------------------------------
select ok(array_length(pg_temp.names(pg_temp.call('exercises_list', 'a', null, '{"limit": "200"}')), 1) >= 120,
  'the catalog has at least 120 exercises');
select is((pg_temp.names(pg_temp.call('exercises_list', 'a', null, '{"q": "barbell squat"}')))[1], 'Barbell Squat',
  'an exact name ranks first');
select is((pg_temp.names(pg_temp.call('exercises_list', 'a', null, '{"q": "barbel sqaut"}')))[1], 'Barbell Squat',
  'typos still find it');
select is((select count(*)::integer from jsonb_array_elements(pg_temp.call('exercises_list', 'a', null, '{"muscle": "chest", "limit": "200"}') -> 'items') as i
            where not (i -> 'primary_muscles' ? 'chest' or i -> 'secondary_muscles' ? 'chest')), 0,
  'the muscle filter keeps exercises that work the muscle');
select is((select count(*)::integer from jsonb_array_elements(pg_temp.call('exercises_list', 'a', null, '{"equipment": "kettlebells", "limit": "200"}') -> 'items') as i
            where i ->> 'equipment' <> 'kettlebells'), 0, 'the equipment filter');
select is((select count(*)::integer from jsonb_array_elements(pg_temp.call('exercises_list', 'a', null, '{"category": "powerlifting", "limit": "200"}') -> 'items') as i
            where (i ->> 'competition_lift')::boolean), 7, 'the category filter; the competition lifts are powerlifting');
select is(pg_temp.error_code('exercises_list', 'a', null, '{"muscle": "spleen"}'), 'invalid_parameter', 'an unknown muscle is a bad parameter');

-- Own exercises -------------------------------------------------------------------------------------
create temporary table own as select pg_temp.call('exercise_create', 'a',
  '{"name": "Sandbag Carry", "category": "strongman", "equipment": "other", "primary_muscles": ["forearms"], "secondary_muscles": ["traps"]}') as exercise;
select is((select exercise ->> 'is_user_created' from own), 'true', 'an own exercise is marked user-created');
select is((pg_temp.names(pg_temp.call('exercises_list', 'a', null, '{"q": "sandbag"}')))[1], 'Sandbag Carry', 'its owner finds it');
select is(pg_temp.names(pg_temp.call('exercises_list', 'b', null, '{"q": "sandbag carry"}')) @> array['Sandbag Carry'], false,
  'nobody else does');
select is(pg_temp.error_code('exercise_create', 'a', '{"name": "barbell squat", "primary_muscles": ["quadriceps"]}'), 'exercise_exists',
  'a name of the catalog is taken');
select is(pg_temp.call('exercise_update', 'a', '{"name": "Sandbag Bear Hug Carry"}', jsonb_build_object('id', (select exercise ->> 'id' from own))) ->> 'name',
  'Sandbag Bear Hug Carry', 'the owner renames it');
select is(pg_temp.error_code('exercise_update', 'b', '{"name": "Mine"}', jsonb_build_object('id', (select exercise ->> 'id' from own))),
  'exercise_not_found', 'another user gets 404');
select is(pg_temp.error_code('exercise_update', 'a', '{"name": "Mine"}', jsonb_build_object('id', md5('liftbase-exercise:barbell squat')::uuid)),
  'builtin_exercise', 'built-ins cannot be changed');
select is(pg_temp.call('exercise_delete', 'a', null, jsonb_build_object('id', (select exercise ->> 'id' from own))), null, 'the owner deletes it');

-- Equipment, exclusions, preferences ----------------------------------------------------------------
select is((select array_agg(i ->> 'id' order by i ->> 'id') from jsonb_array_elements(
             pg_temp.call('equipment_select', 'a', '{"equipment_ids": ["dumbbell", "bands", "dumbbell"]}') -> 'items') as i
            where (i ->> 'is_selected')::boolean), array['bands', 'dumbbell'], 'the equipment selection is saved at once');
select is(pg_temp.error_code('equipment_select', 'a', '{"equipment_ids": ["hovercraft"]}'), 'validation_failed', 'unknown equipment is refused');
select is((select count(*)::integer from jsonb_array_elements(pg_temp.call('equipment_list', 'b', null) -> 'items') as i
            where (i ->> 'is_selected')::boolean), 0, 'another user''s selection is separate');
select is(pg_temp.call('exclusions_put', 'a', jsonb_build_object('exercise_ids', jsonb_build_array(md5('liftbase-exercise:barbell deadlift')::uuid),
                                                                 'muscles', '["lower back"]'::jsonb)),
  jsonb_build_object('exercise_ids', jsonb_build_array(md5('liftbase-exercise:barbell deadlift')::uuid), 'muscles', '["lower back"]'::jsonb),
  'exclusions are saved');
select is(pg_temp.error_code('exclusions_put', 'a', '{"exercise_ids": ["not-a-uuid"], "muscles": ["spleen"]}'), 'validation_failed',
  'unknown exercises and muscles are refused');
select pg_temp.call('plan_create', 'a', '{"name": "Bands", "exercises": [{"name": "Push-Up", "sets": 3, "reps": 12}]}');
select pg_temp.call('setup_complete', 'a', null);
select is(pg_temp.call('preferences_delete', 'a', null), null, 'preferences are reset');
select is(pg_temp.call('setup_get', 'a', null), '{"plan_count": 0, "equipment_count": 0, "has_completed_setup": false}',
  'equipment, plans and setup state are gone');

select * from finish();
rollback;
