-- The exercise library: catalog and the user's own exercises read as one, their checks and
-- shapes, and the equipment catalog.

-- Catalog exercises and the current user's own, in one shape.
create or replace function app.visible_exercises(p_user_id uuid)
returns table (id uuid, name text, category text, mechanic text, equipment text, primary_muscles text[],
               secondary_muscles text[], priority_tier integer, competition_lift boolean, movement_pattern text,
               is_user_created boolean, tracking_type text)
language sql
stable
as $$
  select e.id, e.name, e.category, e.mechanic, e.equipment, e.primary_muscles, e.secondary_muscles,
         e.priority_tier, e.competition_lift, e.movement_pattern, false, e.tracking_type
    from app.exercises as e
  union all
  select u.id, u.name, u.category, u.mechanic, u.equipment, u.primary_muscles, u.secondary_muscles,
         3, false, null, true, u.tracking_type
    from app.user_exercises as u
   where u.user_id = p_user_id
$$;
-- On Citus: the same query in PL/pgSQL (liftbase_meta.on_citus_as_plpgsql says why).
select liftbase_meta.on_citus_as_plpgsql('app.visible_exercises(uuid)');

create or replace function app.exercise_json(p_id uuid, p_name text, p_category text, p_mechanic text, p_equipment text,
                                             p_primary text[], p_secondary text[], p_tier integer,
                                             p_competition boolean, p_pattern text, p_user_created boolean,
                                             p_tracking_type text)
returns jsonb
language sql
-- Stable, not immutable: jsonb_build_object is stable, and only a function declared no
-- stricter than its body is inlined into the query that calls it (per-row calls cost ~0.1 ms).
stable
as $$
  select jsonb_build_object('id', p_id, 'name', p_name, 'category', p_category, 'mechanic', p_mechanic,
                            'equipment', p_equipment, 'primary_muscles', to_jsonb(p_primary),
                            'secondary_muscles', to_jsonb(p_secondary), 'priority_tier', p_tier,
                            'competition_lift', p_competition, 'movement_pattern', p_pattern,
                            'is_user_created', p_user_created, 'tracking_type', p_tracking_type)
$$;

-- Resolves {exercise_id} or {exercise_name} of a request to (catalog id, own id, name,
-- tracking type). A name that matches a catalog or own exercise (case-insensitively) links
-- to it; any other name is kept as free text. Unknown ids resolve to nulls (the caller
-- reports them). The tracking type is read with the row that links, as
-- app.exercise_tracking_type would answer for it (a free text name is weight_reps): a
-- writer of a request's exercises then asks no second time.
create or replace function app.resolve_exercise(p_user_id uuid, p_item jsonb,
  out exercise_id uuid, out user_exercise_id uuid, out exercise_name text, out tracking_type text)
language plpgsql
stable
as $$
declare
  v_id uuid;
  v_name text;
  v_type text;
begin
  tracking_type := 'weight_reps';
  if p_item ->> 'exercise_id' is not null then
    -- A name beside the id is not read, but is refused as any bad name would be (its writer
    -- then names it: app.exercise_reference_problems).
    if app.field_problem(p_item, 'exercise_name', 'app.exercise_name', false) is not null
       or app.field_problem(p_item, 'name', 'app.exercise_name', false) is not null then
      perform app.raise_if_invalid(jsonb_build_object(
        'exercise_name', app.field_problem(p_item, 'exercise_name', 'app.exercise_name', false),
        'name', app.field_problem(p_item, 'name', 'app.exercise_name', false)));
    end if;
    v_id := app.read_uuid(p_item, 'exercise_id');
    select e.id, e.name, e.tracking_type into exercise_id, exercise_name, v_type
      from app.exercises as e where e.id = v_id;
    if exercise_name is null then
      select u.id, u.name, u.tracking_type into user_exercise_id, exercise_name, v_type
        from app.user_exercises as u where u.user_id = p_user_id and u.id = v_id;
    end if;
    tracking_type := coalesce(v_type, tracking_type);
    return;
  end if;
  exercise_name := btrim(coalesce(app.read_text(p_item, 'exercise_name'), app.read_text(p_item, 'name')));
  select e.id, e.name, e.tracking_type into v_id, v_name, v_type
    from app.exercises as e where lower(e.name) = lower(exercise_name);
  if v_id is not null then
    exercise_id := v_id;
    exercise_name := v_name;
    tracking_type := v_type;
    return;
  end if;
  select u.id, u.name, u.tracking_type into v_id, v_name, v_type from app.user_exercises as u
   where u.user_id = p_user_id and lower(u.name) = lower(exercise_name);
  if v_id is not null then
    user_exercise_id := v_id;
    exercise_name := v_name;
    tracking_type := v_type;
  end if;
end
$$;

-- Problems with the exercise reference of a request item, named under p_path.
create or replace function app.exercise_reference_problems(p_user_id uuid, p_item jsonb, p_path text)
returns jsonb
language plpgsql
stable
as $$
declare
  v_problem text;
  v_kinds jsonb;
begin
  -- A name is checked whichever member names the exercise: one beside an id is never read,
  -- but a bad one is refused all the same.
  v_kinds := jsonb_build_object(p_path || '.exercise_name', app.field_problem(p_item, 'exercise_name', 'text', false),
                                p_path || '.name', app.field_problem(p_item, 'name', 'text', false));
  if p_item ? 'exercise_id' and p_item -> 'exercise_id' <> 'null' and jsonb_strip_nulls(v_kinds) = '{}' then
    v_kinds := jsonb_build_object(
      p_path || '.exercise_name', app.field_problem(p_item, 'exercise_name', 'app.exercise_name', false),
      p_path || '.name', app.field_problem(p_item, 'name', 'app.exercise_name', false));
  end if;
  if p_item ? 'exercise_id' and p_item -> 'exercise_id' <> 'null' then
    v_problem := app.field_problem(p_item, 'exercise_id', 'app.uuid_value');
    if v_problem is null and jsonb_strip_nulls(v_kinds) = '{}'
       and (app.resolve_exercise(p_user_id, p_item)).exercise_name is null then
      v_problem := 'is not a known exercise';
    end if;
    return v_kinds || jsonb_build_object(p_path || '.exercise_id', v_problem);
  end if;
  if jsonb_strip_nulls(v_kinds) <> '{}' then
    return v_kinds;
  end if;
  return jsonb_build_object(p_path || '.exercise_name',
    app.field_problem(jsonb_build_object('v', btrim(coalesce(app.read_text(p_item, 'exercise_name'),
                                                             app.read_text(p_item, 'name')))),
                      'v', 'app.exercise_name'));
end
$$;

-- `liftbase import exercises FILE`: free-exercise-db entries merged by name (case-
-- insensitively), never duplicated. Built-in entries keep their curated fields and gain
-- the file's instructions; imported entries are updated from the file. New entries take
-- their tracking type from app.derived_tracking_type (docs/training.md); entries already
-- stored keep theirs (sets may be recorded against it).
create or replace function app.import_exercises(p_entries jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_inserted integer;
  v_updated integer;
begin
  with entries as (
    select distinct on (lower(btrim(x ->> 'name')))
           btrim(x ->> 'name') as name,
           coalesce(x ->> 'category', 'strength') as category,
           x ->> 'mechanic' as mechanic,
           case x ->> 'equipment'
             when 'body only' then 'body_only' when 'e-z curl bar' then 'e_z_curl_bar'
             when 'medicine ball' then 'medicine_ball' when 'exercise ball' then 'exercise_ball'
             when 'foam roll' then 'foam_roll'
             when 'barbell' then 'barbell' when 'dumbbell' then 'dumbbell' when 'cable' then 'cable'
             when 'machine' then 'machine' when 'kettlebells' then 'kettlebells' when 'bands' then 'bands'
             else 'other' end as equipment,
           array(select jsonb_array_elements_text(coalesce(x -> 'primaryMuscles', '[]'))) as primary_muscles,
           array(select jsonb_array_elements_text(coalesce(x -> 'secondaryMuscles', '[]'))) as secondary_muscles,
           x ->> 'force' as force,
           x ->> 'level' as level,
           array(select jsonb_array_elements_text(coalesce(x -> 'instructions', '[]'))) as instructions,
           x ->> 'id' as external_id
      from jsonb_array_elements(p_entries) with ordinality as e (x, n)
     where jsonb_typeof(x) = 'object' and coalesce(btrim(x ->> 'name'), '') <> ''
     order by lower(btrim(x ->> 'name')), n  -- the first of entries that share a name wins
  ),
  -- Entries that break a rule (unknown muscles, no primary muscle, bad category) are skipped.
  valid as (
    select * from entries as i
     where length(i.name) <= 120
       and cardinality(i.primary_muscles) >= 1
       and app.are_muscles(i.primary_muscles) and app.are_muscles(i.secondary_muscles)
       and i.category in ('strength', 'stretching', 'plyometrics', 'powerlifting', 'olympic weightlifting',
                          'strongman', 'cardio')
       and (i.mechanic is null or i.mechanic in ('compound', 'isolation'))
  ),
  updated as (
    update app.exercises as e
       set instructions = i.instructions, external_id = i.external_id, force = coalesce(e.force, i.force),
           level = coalesce(e.level, i.level),
           category = case when e.source = 'builtin' then e.category else i.category end,
           mechanic = case when e.source = 'builtin' then e.mechanic else i.mechanic end,
           equipment = case when e.source = 'builtin' then e.equipment else i.equipment end,
           primary_muscles = case when e.source = 'builtin' then e.primary_muscles else i.primary_muscles end,
           secondary_muscles = case when e.source = 'builtin' then e.secondary_muscles else i.secondary_muscles end
      from valid as i
     where lower(e.name) = lower(i.name)
    returning 1
  ),
  inserted as (
    insert into app.exercises (name, category, mechanic, equipment, primary_muscles, secondary_muscles, priority_tier,
                               force, level, instructions, source, external_id, tracking_type)
    select i.name, i.category, i.mechanic, i.equipment, i.primary_muscles, i.secondary_muscles,
           case when i.mechanic = 'compound' then 2 else 3 end, i.force, i.level, i.instructions, 'free-exercise-db',
           i.external_id, app.derived_tracking_type(i.name, i.category, i.equipment)
      from valid as i
     where not exists (select from app.exercises as e where lower(e.name) = lower(i.name))
    returning 1
  )
  select (select count(*) from inserted), (select count(*) from updated) into v_inserted, v_updated;

  return jsonb_build_object('read', jsonb_array_length(p_entries), 'inserted', v_inserted, 'updated', v_updated,
                            'skipped', jsonb_array_length(p_entries) - v_inserted - v_updated);
end
$$;

grant execute on function
  app.visible_exercises(uuid),
  app.exercise_json(uuid, text, text, text, text, text[], text[], integer, boolean, text, boolean, text),
  app.resolve_exercise(uuid, jsonb),
  app.exercise_reference_problems(uuid, jsonb, text)
to liftbase_api;

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
                 then coalesce(app.field_problem(p_body, 'name', 'text', false),
                               app.field_problem(jsonb_build_object('name', btrim(app.read_text(p_body, 'name'))),
                                                 'name', 'app.exercise_name')) end,
    'category', app.field_problem(p_body, 'category', 'app.exercise_category', false),
    'mechanic', app.field_problem(p_body, 'mechanic', 'app.exercise_mechanic', false),
    'equipment', coalesce(app.field_problem(p_body, 'equipment', 'text', false),
                          case when p_body ->> 'equipment' is not null
                                and not exists (select from app.equipment as e where e.id = p_body ->> 'equipment')
                               then 'must be one of '
                                    || (select string_agg(e.id, ', ' order by e.id) from app.equipment as e) end),
    'primary_muscles', app.muscles_problem(p_body -> 'primary_muscles', p_creating),
    'secondary_muscles', app.muscles_problem(p_body -> 'secondary_muscles', false),
    'tracking_type', app.field_problem(p_body, 'tracking_type', 'app.tracking_type', false))
$$;

-- Changing an own exercise's tracking type: 409 while a set recorded for it would stop
-- fitting the new type (app.set_fit_problems).
create or replace function app.raise_if_tracking_type_misfits(p_user_id uuid, p_user_exercise_id uuid,
                                                              p_tracking_type text)
returns void
language plpgsql
as $$
declare
  v_count integer;
begin
  select count(*) into v_count
    from app.session_sets as s
    join app.session_exercises as e
      on e.user_id = s.user_id and e.session_id = s.session_id and e.position = s.exercise_position
   where e.user_id = p_user_id and e.user_exercise_id = p_user_exercise_id
     and app.set_fit_problems(p_tracking_type,
                              app.set_measures(s.weight_kg, s.assistance_kg, s.reps, s.duration_seconds, s.distance_m))
         <> '{}';
  if v_count > 0 then
    perform app.raise_error_with(409, 'tracking_type_conflict',
      format('%s recorded sets of this exercise do not fit %s: change or delete them first.', v_count, p_tracking_type),
      jsonb_build_object('sets', v_count));
  end if;
end
$$;
grant execute on function app.raise_if_tracking_type_misfits(uuid, uuid, text) to liftbase_api;

-- PL/pgSQL, not SQL: a SQL function that reads a table is never inlined and plans its
-- statement again in every statement that calls it, where PL/pgSQL keeps the plan; and
-- Citus cannot plan a SQL function's statement with parameters (docs/scaling.md).
create or replace function app.exercise_name_taken(p_user_id uuid, p_name text, p_except uuid)
returns boolean
language plpgsql
stable
as $$
begin
  return (
    select exists (select from app.exercises as e where lower(e.name) = lower(btrim(p_name)))
        or exists (select from app.user_exercises as u
                    where u.user_id = p_user_id and lower(u.name) = lower(btrim(p_name))
                      and u.id is distinct from p_except)
  );
end
$$;

create or replace function app.user_exercise_json(p_exercise app.user_exercises)
returns jsonb
language sql
-- Stable, not immutable: jsonb_build_object is stable, and only a function declared no
-- stricter than its body is inlined into the query that calls it (per-row calls cost ~0.1 ms).
stable
as $$
  select app.exercise_json(p_exercise.id, p_exercise.name, p_exercise.category, p_exercise.mechanic,
                           p_exercise.equipment, p_exercise.primary_muscles, p_exercise.secondary_muscles, 3, false,
                           null, true, p_exercise.tracking_type)
$$;

grant execute on function
  app.muscles_problem(jsonb, boolean),
  app.exercise_problems(jsonb, boolean),
  app.exercise_name_taken(uuid, text, uuid),
  app.user_exercise_json(app.user_exercises)
to liftbase_api;

create or replace function app.find_user_exercise(p_user_id uuid, p_args jsonb)
returns app.user_exercises
language plpgsql
stable
as $$
declare
  v_exercise app.user_exercises;
begin
  select u.* into v_exercise from app.user_exercises as u
   where u.user_id = p_user_id and u.id = app.id_parameter(p_args, 'id');
  if v_exercise.id is null and exists (select from app.exercises as e where e.id = app.id_parameter(p_args, 'id')) then
    perform app.raise_error(403, 'builtin_exercise', 'Built-in exercises cannot be changed.');
  end if;
  if v_exercise.id is null then
    perform app.raise_error(404, 'exercise_not_found', 'No such exercise.');
  end if;
  return v_exercise;
end
$$;
grant execute on function app.find_user_exercise(uuid, jsonb) to liftbase_api;

-- The equipment catalog with the user's selection (GET /equipment, and the answer of
-- PUT /equipment/selection).
create or replace function app.equipment_json(p_user_id uuid)
returns jsonb
language plpgsql
stable
as $$
begin
  return (select jsonb_build_object('items', jsonb_agg(jsonb_build_object(
                   'id', e.id, 'name', e.name,
                   'is_selected', exists (select from app.user_equipment as u
                                           where u.user_id = p_user_id and u.equipment_id = e.id))
                   order by e.name), 'next_cursor', null)
            from app.equipment as e);
end
$$;
grant execute on function app.equipment_json(uuid) to liftbase_api;

-- The rule: an exception by name first, then by category, then by equipment.
create or replace function app.derived_tracking_type(p_name text, p_category text, p_equipment text)
returns app.tracking_type
language sql
stable
as $$
  select coalesce(
    (select x.tracking_type from app.tracking_type_exceptions as x
      where lower(p_name) like x.pattern order by length(x.pattern) desc, x.pattern limit 1),
    case
      when p_category = 'cardio' then 'distance_duration'
      when p_category = 'stretching' or p_equipment = 'foam_roll' then 'duration'
      when p_equipment = 'body_only' and p_category = 'plyometrics' then 'reps_only'
      when p_equipment = 'body_only' then 'bodyweight_reps'
      when p_equipment in ('bands', 'exercise_ball') then 'reps_only'
      when p_category = 'plyometrics' and p_equipment = 'other' then 'reps_only'
      else 'weight_reps'
    end)::app.tracking_type
$$;
grant execute on function app.derived_tracking_type(text, text, text) to liftbase_api;
