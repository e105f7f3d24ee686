-- Exercise substitutions: what to do instead of an exercise, for the user's equipment and
-- around their exclusions (injuries).

-- Share of two muscle lists in common (|A ∩ B| / |A ∪ B|); two empty lists agree fully.
create or replace function app.muscle_overlap(p_a text[], p_b text[])
returns numeric
language sql
immutable
parallel safe
as $$
  select case when cardinality(p_a) = 0 and cardinality(p_b) = 0 then 1.0
              else (select count(*) from (select unnest(p_a) intersect select unnest(p_b)) as i)::numeric
                   / (select count(*) from (select unnest(p_a) union select unnest(p_b)) as u) end
$$;

-- How well a candidate replaces an exercise, 0–1: the same movement pattern, the same
-- primary and secondary muscles, the same equipment, weighted by goal. Strength is
-- specific to the movement and the implement, so pattern and equipment weigh more;
-- hypertrophy is specific to the muscles worked.
create or replace function app.specificity_score(p_goal text, p_same_pattern boolean, p_primary_overlap numeric,
                                                 p_secondary_overlap numeric, p_same_equipment boolean)
returns numeric
language sql
immutable
parallel safe
as $$
  select round(case p_goal
                 when 'strength' then 0.5 * p_same_pattern::integer + 0.25 * p_primary_overlap
                                      + 0.1 * p_secondary_overlap + 0.15 * p_same_equipment::integer
                 else 0.35 * p_same_pattern::integer + 0.45 * p_primary_overlap
                      + 0.15 * p_secondary_overlap + 0.05 * p_same_equipment::integer end, 2)
$$;

grant execute on function
  app.muscle_overlap(text[], text[]),
  app.specificity_score(text, boolean, numeric, numeric, boolean)
to liftbase_api;

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
  v_limit integer := app.page_limit(p_args);
  v_source record;
begin
  if v_goal not in ('strength', 'hypertrophy') then
    perform app.raise_error(400, 'invalid_goal', 'goal must be strength or hypertrophy.');
  end if;
  select v.* into v_source from app.visible_exercises(v_user_id) as v
   where v.id = case when app.is_uuid(p_args ->> 'id') then (p_args ->> 'id')::uuid end;
  if v_source.id is null then
    perform app.raise_error(404, 'exercise_not_found', 'No such exercise.');
  end if;
  return jsonb_build_object(
    'exercise', app.exercise_json(v_source.id, v_source.name, v_source.category, v_source.mechanic, v_source.equipment,
                                  v_source.primary_muscles, v_source.secondary_muscles, v_source.priority_tier,
                                  v_source.competition_lift, v_source.movement_pattern, v_source.is_user_created),
    'goal', v_goal,
    'next_cursor', null,
    'items', coalesce((
      select jsonb_agg(app.exercise_json(c.id, c.name, c.category, c.mechanic, c.equipment, c.primary_muscles,
                                         c.secondary_muscles, c.priority_tier, c.competition_lift, c.movement_pattern,
                                         c.is_user_created)
                       || jsonb_build_object(
                            'specificity_score', c.score,
                            'warning', case when v_goal = 'strength' and v_source.competition_lift and not c.competition_lift
                                            then jsonb_build_object('code', 'competition_lift_replaced',
                                                   'message', format('%s is a competition lift: for a strength goal, %s trains it only in part.',
                                                                     v_source.name, c.name)) end)
                       order by c.score desc, c.name)
        from (select v.*, app.specificity_score(v_goal, v.movement_pattern is not distinct from v_source.movement_pattern
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
                      or exists (select from app.user_equipment as q where q.user_id = v_user_id and q.equipment_id = v.equipment))
                 and not (v.id = any (coalesce(x.exercise_ids, '{}')))
                 and not ((v.primary_muscles || v.secondary_muscles) && coalesce(x.muscles::text[], '{}'))
               order by score desc, v.name
               limit v_limit) as c), '[]'));
end
$$;
