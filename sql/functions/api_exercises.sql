-- /exercises: the exercise library (catalog and own exercises) and substitutions.

-- GET /exercises?q=&muscle=&equipment=&category=&limit=&cursor=: catalog plus the user's
-- own; q matches names by trigram similarity (typos too) and the catalog's aliases, best
-- first: an exercise q is another name of, then a curated entry holding q's words, above
-- the public list's variants (`bench press` finds Barbell Bench Press first).
create or replace function api.exercises_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'number');
  v_limit integer := v_page.page_size;
  v_offset integer := least(coalesce(v_page.cursor_number, 0), 1000000);
  v_q text := lower(btrim(p_args ->> 'q'));
  v_rows jsonb;
begin
  if p_args ? 'muscle' and not app.are_muscles(array[p_args ->> 'muscle']) then
    perform app.raise_parameter_problem('muscle', 'is not one of the 17 muscles');
  end if;
  -- A filter value that no exercise can have is a mistake to hear of, not an empty page.
  if p_args ? 'category' and app.field_problem(p_args, 'category', 'app.exercise_category') is not null then
    perform app.raise_parameter_problem('category', app.field_problem(p_args, 'category', 'app.exercise_category'));
  end if;
  if p_args ? 'equipment' and not exists (select from app.equipment as e where e.id = p_args ->> 'equipment') then
    perform app.raise_parameter_problem('equipment', 'is not an id of GET /equipment');
  end if;
  select coalesce(jsonb_agg(app.exercise_json(x.id, x.name, x.category, x.mechanic, x.equipment, x.primary_muscles,
                                              x.secondary_muscles, x.priority_tier, x.competition_lift,
                                              x.movement_pattern, x.is_user_created, x.tracking_type)
                            order by x.rank desc, x.name), '[]')
    into v_rows
    from (select v.*, case when v_q is null then 0
                           else greatest(similarity(lower(v.name), v_q), word_similarity(v_q, lower(v.name)))
                                + case when lower(v.name) like v_q || '%' then 1 else 0 end
                                -- The query is another name of the exercise (`bench press`, `ohp`).
                                + case when c.aliases @> array[v_q] then 2 else 0 end
                                -- A curated entry with every word of the query ranks above the
                                -- public list's variants of it.
                                + case when c.source = 'builtin' and word_similarity(v_q, lower(v.name)) = 1 then 1.5
                                       else 0 end end as rank
            from app.visible_exercises(v_user_id) as v
            left join app.exercises as c on c.id = v.id
           where (v_q is null or lower(v.name) like '%' || v_q || '%' or v_q <% lower(v.name) or lower(v.name) % v_q
                  or c.aliases @> array[v_q])
             and (p_args ->> 'muscle' is null or p_args ->> 'muscle' = any (v.primary_muscles || v.secondary_muscles))
             and (p_args ->> 'equipment' is null or v.equipment = p_args ->> 'equipment')
             and (p_args ->> 'category' is null or v.category = p_args ->> 'category')
           order by rank desc, v.name
           offset v_offset limit v_limit + 1) as x;
  return app.offset_page(v_rows, v_limit, v_offset);
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
  v_replayed text;
begin
  v_replayed := app.replayed_key('app.user_exercises', v_user_id, v_body);
  if v_replayed is not null then
    return app.user_exercise_json(app.find_user_exercise(v_user_id, jsonb_build_object('id', v_replayed)));
  end if;
  perform app.raise_if_invalid(app.exercise_problems(v_body, true));
  if app.exercise_name_taken(v_user_id, v_body ->> 'name', null) then
    perform app.raise_error(409, 'exercise_exists', 'An exercise with this name exists already.');
  end if;
  insert into app.user_exercises (user_id, client_id, name, category, mechanic, equipment, primary_muscles,
                                  secondary_muscles, tracking_type)
  values (v_user_id, app.read_uuid(v_body, 'client_id'), btrim(app.read_text(v_body, 'name')),
          coalesce(app.read_text(v_body, 'category'), 'strength'),
          app.read_text(v_body, 'mechanic'), coalesce(app.read_text(v_body, 'equipment'), 'other'),
          app.read_text_list(v_body, 'primary_muscles'),
          coalesce(app.read_text_list(v_body, 'secondary_muscles'), '{}'),
          coalesce(app.read_text(v_body, 'tracking_type'),
                   app.derived_tracking_type(btrim(app.read_text(v_body, 'name')),
                                             coalesce(app.read_text(v_body, 'category'), 'strength'),
                                             coalesce(app.read_text(v_body, 'equipment'), 'other'))))
  returning * into v_exercise;
  -- The name is an exercise of the user's own now: a name merged away before no longer
  -- steers their imports elsewhere.
  delete from app.exercise_name_aliases where user_id = v_user_id and alias = lower(btrim(v_exercise.name));
  return app.user_exercise_json(v_exercise);
end
$$;

create or replace function api.exercise_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_exercise app.user_exercises := app.find_user_exercise(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
begin
  perform app.check_if_match(v_user_id, 'own_exercise', v_exercise.id::text, p_args);
  perform app.raise_if_invalid(app.exercise_problems(v_body, false));
  if v_body ? 'name' and app.exercise_name_taken(v_user_id, v_body ->> 'name', v_exercise.id) then
    perform app.raise_error(409, 'exercise_exists', 'An exercise with this name exists already.');
  end if;
  if app.read_text(v_body, 'tracking_type') is distinct from v_exercise.tracking_type
     and app.read_text(v_body, 'tracking_type') is not null then
    perform app.raise_if_tracking_type_misfits(v_user_id, v_exercise.id, app.read_text(v_body, 'tracking_type'));
  end if;
  update app.user_exercises
     set name = coalesce(btrim(app.read_text(v_body, 'name')), name),
         category = coalesce(app.read_text(v_body, 'category'), category),
         mechanic = case when v_body ? 'mechanic' then app.read_text(v_body, 'mechanic') else mechanic end,
         equipment = coalesce(app.read_text(v_body, 'equipment'), equipment),
         primary_muscles = coalesce(app.read_text_list(v_body, 'primary_muscles'), primary_muscles),
         secondary_muscles = case when v_body ? 'secondary_muscles'
                                  then coalesce(app.read_text_list(v_body, 'secondary_muscles'), '{}')
                                  else secondary_muscles end,
         tracking_type = coalesce(app.read_text(v_body, 'tracking_type'), tracking_type)
   where user_id = v_user_id and id = v_exercise.id;
  if v_body ? 'name' then
    delete from app.exercise_name_aliases
     where user_id = v_user_id and alias = lower(btrim(app.read_text(v_body, 'name')));
  end if;
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
  perform app.check_if_match(v_user_id, 'own_exercise', v_exercise.id::text, p_args);
  delete from app.user_exercises where user_id = v_user_id and id = v_exercise.id;
  return null;
end
$$;

-- GET /exercises/{id}/substitutions?goal=strength|hypertrophy: catalog and own exercises
-- that share the movement pattern or a primary muscle, best first. Only exercises for the
-- selected equipment (all equipment while none is selected) or for none (body only); never an excluded exercise or
-- one that works an excluded muscle, as primary or secondary (an injured muscle should
-- not be loaded at all). For a strength goal, replacing a competition lift with anything
-- but another competition lift carries a warning: the lift itself is what is tested.
create or replace function api.exercise_substitutions(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_goal text := coalesce(p_args ->> 'goal', app.training_goal(v_user_id));
  v_page record := app.page_parameters(p_args, 'number');
  v_offset integer := least(coalesce(v_page.cursor_number, 0), 1000000);
  v_source record;
  v_items jsonb;
begin
  if v_goal not in ('strength', 'hypertrophy') then
    perform app.raise_error(400, 'invalid_goal', 'goal must be strength or hypertrophy.',
                            jsonb_build_object('goal', 'must be strength or hypertrophy'));
  end if;
  select v.* into v_source from app.visible_exercises(v_user_id) as v
   where v.id = app.id_parameter(p_args, 'id');
  if v_source.id is null then
    perform app.raise_error(404, 'exercise_not_found', 'No such exercise.');
  end if;
  v_items := coalesce((
      select jsonb_agg(app.exercise_json(c.id, c.name, c.category, c.mechanic, c.equipment, c.primary_muscles,
                                         c.secondary_muscles, c.priority_tier, c.competition_lift, c.movement_pattern,
                                         c.is_user_created, c.tracking_type)
                       || jsonb_build_object(
                            'specificity_score', c.score,
                            'warning',
                              case when v_goal = 'strength' and v_source.competition_lift and not c.competition_lift
                                   then jsonb_build_object(
                                          'code', 'competition_lift_replaced',
                                          'message', format(
                                            '%s is a competition lift: for a strength goal, %s trains it only in part.',
                                            v_source.name, c.name)) end)
                       order by c.score desc, c.name, c.id)
        from (select v.*, app.specificity_score(v_goal,
                                                v.movement_pattern is not distinct from v_source.movement_pattern
                                                  and v.movement_pattern is not null,
                                                app.muscle_overlap(v.primary_muscles, v_source.primary_muscles),
                                                app.muscle_overlap(v.secondary_muscles, v_source.secondary_muscles),
                                                v.equipment = v_source.equipment) as score
                from app.visible_exercises(v_user_id) as v
                left join app.user_exclusions as x on x.user_id = v_user_id
               where v.id <> v_source.id
                 and (v.movement_pattern = v_source.movement_pattern or v.primary_muscles && v_source.primary_muscles)
                 -- A treadmill run shares the squat's primary muscle but replaces nothing.
                 and (v.category not in ('cardio', 'stretching') or v.category = v_source.category)
                 and (v.equipment = 'body_only'
                      or not exists (select from app.user_equipment as q where q.user_id = v_user_id)
                      or exists (select from app.user_equipment as q
                                  where q.user_id = v_user_id and q.equipment_id = v.equipment))
                 and not (v.id = any (coalesce(x.exercise_ids, '{}')))
                 and not ((v.primary_muscles || v.secondary_muscles) && coalesce(x.muscles::text[], '{}'))
               order by score desc, v.name, v.id
               offset v_offset limit v_page.page_size + 1) as c), '[]');
  return jsonb_build_object(
    'exercise', app.exercise_json(v_source.id, v_source.name, v_source.category, v_source.mechanic, v_source.equipment,
                                  v_source.primary_muscles, v_source.secondary_muscles, v_source.priority_tier,
                                  v_source.competition_lift, v_source.movement_pattern, v_source.is_user_created,
                                  v_source.tracking_type),
    'goal', v_goal) || app.offset_page(v_items, v_page.page_size, v_offset);
end
$$;

-- POST /exercises/{id}/merge {"into_id"}: everything of the user's exercise {id} (catalog or
-- own) moves to into_id, and their later imports of its name land there
-- (app.merge_exercise, app_exercise_merge.sql).
create or replace function api.exercise_merge(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return app.merge_exercise(v_user_id, app.id_parameter(p_args, 'id'),
                            app.read_uuid(coalesce(p_body, '{}'), 'into_id'));
end
$$;
