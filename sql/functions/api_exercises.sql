-- Exercise library, equipment selection, exclusions.

-- Problems with a JSON list of muscle names.
create or replace function app.muscles_problem(p_value jsonb, p_required boolean)
returns text
language sql
stable
as $$
  select case
    when p_value is null or p_value = 'null' then case when p_required then 'is required' end
    when jsonb_typeof(p_value) <> 'array' then 'must be a list of muscles'
    when exists (select from jsonb_array_elements(p_value) as m where jsonb_typeof(m) <> 'string')
      or not app.are_muscles(array(select jsonb_array_elements_text(p_value)))
      then obj_description('app.muscle_list'::regtype, 'pg_type')
  end
$$;

create or replace function app.exercise_problems(p_body jsonb, p_creating boolean)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'name', case when p_creating or p_body ? 'name'
                 then app.field_problem(jsonb_build_object('name', btrim(p_body ->> 'name')), 'name', 'app.exercise_name') end,
    'category', app.field_problem(p_body, 'category', 'app.exercise_category', false),
    'mechanic', app.field_problem(p_body, 'mechanic', 'app.exercise_mechanic', false),
    'equipment', case when p_body ->> 'equipment' is not null
                       and not exists (select from app.equipment as e where e.id = p_body ->> 'equipment')
                      then 'must be one of ' || (select string_agg(e.id, ', ' order by e.id) from app.equipment as e) end,
    'primary_muscles', app.muscles_problem(p_body -> 'primary_muscles', p_creating),
    'secondary_muscles', app.muscles_problem(p_body -> 'secondary_muscles', false))
$$;

create or replace function app.exercise_name_taken(p_user_id uuid, p_name text, p_except uuid)
returns boolean
language sql
stable
as $$
  select exists (select from app.exercises as e where lower(e.name) = lower(btrim(p_name)))
      or exists (select from app.user_exercises as u
                  where u.user_id = p_user_id and lower(u.name) = lower(btrim(p_name)) and u.id is distinct from p_except)
$$;

create or replace function app.user_exercise_json(p_exercise app.user_exercises)
returns jsonb
language sql
-- Stable, not immutable: jsonb_build_object is stable, and only a function declared no
-- stricter than its body is inlined into the query that calls it (per-row calls cost ~0.1 ms).
stable
as $$
  select app.exercise_json(p_exercise.id, p_exercise.name, p_exercise.category, p_exercise.mechanic, p_exercise.equipment,
                           p_exercise.primary_muscles, p_exercise.secondary_muscles, 3, false, null, true)
$$;

grant execute on function
  app.muscles_problem(jsonb, boolean),
  app.exercise_problems(jsonb, boolean),
  app.exercise_name_taken(uuid, text, uuid),
  app.user_exercise_json(app.user_exercises)
to liftbase_api;

-- GET /exercises?q=&muscle=&equipment=&category=&limit=&cursor=: catalog plus the user's
-- own; q matches names by trigram similarity (typos too), best first.
create or replace function api.exercises_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_limit integer := app.page_limit(p_args);
  v_offset integer := coalesce(app.page_cursor(p_args), 0);
  v_q text := lower(btrim(p_args ->> 'q'));
  v_rows jsonb;
begin
  if p_args ? 'muscle' and not app.are_muscles(array[p_args ->> 'muscle']) then
    perform app.raise_error(400, 'invalid_parameter', 'muscle is not one of the 17 muscles.');
  end if;
  select coalesce(jsonb_agg(app.exercise_json(x.id, x.name, x.category, x.mechanic, x.equipment, x.primary_muscles,
                                              x.secondary_muscles, x.priority_tier, x.competition_lift,
                                              x.movement_pattern, x.is_user_created) order by x.rank desc, x.name), '[]')
    into v_rows
    from (select v.*, case when v_q is null then 0
                           else greatest(similarity(lower(v.name), v_q), word_similarity(v_q, lower(v.name)))
                                + case when lower(v.name) like v_q || '%' then 1 else 0 end end as rank
            from app.visible_exercises(v_user_id) as v
           where (v_q is null or lower(v.name) like '%' || v_q || '%' or v_q <% lower(v.name) or lower(v.name) % v_q)
             and (p_args ->> 'muscle' is null or p_args ->> 'muscle' = any (v.primary_muscles || v.secondary_muscles))
             and (p_args ->> 'equipment' is null or v.equipment = p_args ->> 'equipment')
             and (p_args ->> 'category' is null or v.category = p_args ->> 'category')
           order by rank desc, v.name
           offset v_offset limit v_limit + 1) as x;
  return jsonb_build_object(
    'items', coalesce((select jsonb_agg(i) from jsonb_array_elements(v_rows) with ordinality as r (i, n) where n <= v_limit), '[]'),
    'next_cursor', case when jsonb_array_length(v_rows) > v_limit then (v_offset + v_limit)::text end);
end
$$;

create or replace function api.exercise_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_exercise app.user_exercises;
begin
  perform app.raise_if_invalid(app.exercise_problems(v_body, true));
  if app.exercise_name_taken(v_user_id, v_body ->> 'name', null) then
    perform app.raise_error(409, 'exercise_exists', 'An exercise with this name exists already.');
  end if;
  insert into app.user_exercises (user_id, name, category, mechanic, equipment, primary_muscles, secondary_muscles)
  values (v_user_id, btrim(v_body ->> 'name'), coalesce(v_body ->> 'category', 'strength'), v_body ->> 'mechanic',
          coalesce(v_body ->> 'equipment', 'other'),
          array(select jsonb_array_elements_text(v_body -> 'primary_muscles')),
          array(select jsonb_array_elements_text(coalesce(v_body -> 'secondary_muscles', '[]'))))
  returning * into v_exercise;
  return app.user_exercise_json(v_exercise);
end
$$;

create or replace function app.find_user_exercise(p_user_id uuid, p_args jsonb)
returns app.user_exercises
language plpgsql
stable
as $$
declare
  v_exercise app.user_exercises;
begin
  if app.is_uuid(p_args ->> 'id') then
    select u.* into v_exercise from app.user_exercises as u where u.user_id = p_user_id and u.id = (p_args ->> 'id')::uuid;
    if v_exercise.id is null and exists (select from app.exercises as e where e.id = (p_args ->> 'id')::uuid) then
      perform app.raise_error(403, 'builtin_exercise', 'Built-in exercises cannot be changed.');
    end if;
  end if;
  if v_exercise.id is null then
    perform app.raise_error(404, 'exercise_not_found', 'No such exercise.');
  end if;
  return v_exercise;
end
$$;
grant execute on function app.find_user_exercise(uuid, jsonb) to liftbase_api;

create or replace function api.exercise_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_exercise app.user_exercises := app.find_user_exercise(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
begin
  perform app.raise_if_invalid(app.exercise_problems(v_body, false));
  if v_body ? 'name' and app.exercise_name_taken(v_user_id, v_body ->> 'name', v_exercise.id) then
    perform app.raise_error(409, 'exercise_exists', 'An exercise with this name exists already.');
  end if;
  update app.user_exercises
     set name = coalesce(btrim(v_body ->> 'name'), name),
         category = coalesce(v_body ->> 'category', category),
         mechanic = case when v_body ? 'mechanic' then v_body ->> 'mechanic' else mechanic end,
         equipment = coalesce(v_body ->> 'equipment', equipment),
         primary_muscles = case when v_body ? 'primary_muscles'
                                then array(select jsonb_array_elements_text(v_body -> 'primary_muscles'))
                                else primary_muscles end,
         secondary_muscles = case when v_body ? 'secondary_muscles'
                                  then array(select jsonb_array_elements_text(v_body -> 'secondary_muscles'))
                                  else secondary_muscles end
   where user_id = v_user_id and id = v_exercise.id;
  return app.user_exercise_json(app.find_user_exercise(v_user_id, p_args));
end
$$;

create or replace function api.exercise_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_exercise app.user_exercises := app.find_user_exercise(v_user_id, p_args);
begin
  delete from app.user_exercises where user_id = v_user_id and id = v_exercise.id;
  return null;
end
$$;

create or replace function api.equipment_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return (select jsonb_build_object('items', jsonb_agg(jsonb_build_object(
                   'id', e.id, 'name', e.name,
                   'is_selected', exists (select from app.user_equipment as u
                                           where u.user_id = v_user_id and u.equipment_id = e.id))
                   order by e.name), 'next_cursor', null)
            from app.equipment as e);
end
$$;

-- PUT /equipment/selection {equipment_ids}: the selection, replaced and persisted at once.
create or replace function api.equipment_select(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_ids jsonb := coalesce(p_body, '{}') -> 'equipment_ids';
begin
  perform app.raise_if_invalid(jsonb_build_object('equipment_ids', case
    when v_ids is null or jsonb_typeof(v_ids) <> 'array' then 'must be a list of equipment ids'
    when exists (select from jsonb_array_elements_text(v_ids) as i where not exists (select from app.equipment as e where e.id = i))
      then 'unknown: ' || (select string_agg(i, ', ') from jsonb_array_elements_text(v_ids) as i
                           where not exists (select from app.equipment as e where e.id = i)) end));
  delete from app.user_equipment where user_id = v_user_id;
  insert into app.user_equipment (user_id, equipment_id)
  select distinct v_user_id, i from jsonb_array_elements_text(v_ids) as i;
  return api.equipment_list(p_token, null, p_args);
end
$$;

-- PUT /user/exclusions {exercise_ids, muscles} (injuries).
create or replace function api.exclusions_put(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_ids jsonb := coalesce(v_body -> 'exercise_ids', '[]');
  v_row app.user_exclusions;
begin
  perform app.raise_if_invalid(jsonb_build_object(
    'exercise_ids', case
      when jsonb_typeof(v_ids) <> 'array' then 'must be a list of exercise ids'
      when exists (select from jsonb_array_elements(v_ids) as i
                    where jsonb_typeof(i) <> 'string'
                       or not app.is_uuid(i #>> '{}')
                       or (app.resolve_exercise(v_user_id, jsonb_build_object('exercise_id', i))).exercise_name is null)
        then 'must list known exercises' end,
    'muscles', app.muscles_problem(coalesce(v_body -> 'muscles', '[]'), false)));
  insert into app.user_exclusions as x (user_id, exercise_ids, muscles)
  values (v_user_id, array(select (jsonb_array_elements_text(v_ids))::uuid),
          array(select jsonb_array_elements_text(coalesce(v_body -> 'muscles', '[]'))))
  on conflict (user_id) do update set exercise_ids = excluded.exercise_ids, muscles = excluded.muscles, updated_at = now()
  returning * into v_row;
  return jsonb_build_object('exercise_ids', to_jsonb(v_row.exercise_ids), 'muscles', to_jsonb(v_row.muscles::text[]));
end
$$;
