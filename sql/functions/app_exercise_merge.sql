-- Merging two exercises (POST /exercises/{id}/merge, docs/imports.md "Merging two
-- exercises"): a person moves everything of one exercise of theirs to another, in one
-- transaction.

-- Moves the user's history, plans, program progression and exclusions of exercise p_from
-- (catalog or own) to p_into (catalog or own), and remembers p_from's name for the user
-- (app.exercise_name_aliases), so that their later imports of that name land on p_into.
-- An own exercise merged away is deleted; a catalog one stays in the catalog, without the
-- user's rows. Refused when:
--   p_into is not a known exercise, or is p_from (422);
--   a set or plan target of p_from does not take p_into's tracking type (409
--   tracking_type_conflict): the measures would not fit, and a merge never drops any;
--   p_from is a catalog exercise the user's active program prescribes (409
--   exercise_in_program): the program goes on prescribing it, so it must keep its state.
-- Records (app.exercise_records) follow through the triggers on the moved session rows,
-- and the change feed through its own. Returns {exercise, moved: {sessions, plans,
-- program_states, exclusions}, alias, deleted}.
create or replace function app.merge_exercise(p_user_id uuid, p_from uuid, p_into uuid)
returns jsonb
language plpgsql
as $$
declare
  v_from record;
  v_into record;
  v_into_exercise_id uuid;
  v_into_user_exercise_id uuid;
  v_misfit_sets bigint;
  v_misfit_plans bigint;
  v_sessions integer;
  v_plans integer;
  v_states integer := 0;
  v_exclusions integer;
  v_alias text;
begin
  select v.* into v_from from app.visible_exercises(p_user_id) as v where v.id = p_from;
  if v_from.id is null then
    perform app.raise_error(404, 'exercise_not_found', 'No such exercise.');
  end if;
  -- An import or another merge of the same own exercise waits for this one.
  perform from app.user_exercises as u where u.user_id = p_user_id and u.id = p_from for update;
  select v.* into v_into from app.visible_exercises(p_user_id) as v where v.id = p_into;
  perform app.raise_if_invalid(jsonb_build_object('into_id',
    case when p_into is null then 'is required'
         when v_into.id is null then 'is not a known exercise'
         when p_into = p_from then 'is the exercise itself' end));
  v_into_exercise_id := case when not v_into.is_user_created then v_into.id end;
  v_into_user_exercise_id := case when v_into.is_user_created then v_into.id end;

  select count(*) into v_misfit_sets
    from app.session_exercises as e
    join app.session_sets as s
      on s.user_id = e.user_id and s.session_id = e.session_id and s.exercise_position = e.position
   where e.user_id = p_user_id and (e.exercise_id = p_from or e.user_exercise_id = p_from)
     and not app.set_fits(v_into.tracking_type, s.weight_kg, s.assistance_kg, s.reps, s.duration_seconds, s.distance_m);
  select count(*) into v_misfit_plans
    from app.plan_exercises as p
   where p.user_id = p_user_id and (p.exercise_id = p_from or p.user_exercise_id = p_from)
     and app.target_fit_problems(v_into.tracking_type,
           app.set_measures(p.weight_kg, p.assistance_kg, p.reps, p.duration_seconds, p.distance_m)
           || case when p.reps_max is not null then array['reps_max'] else '{}' end) <> '{}';
  if v_misfit_sets > 0 or v_misfit_plans > 0 then
    perform app.raise_error_with(409, 'tracking_type_conflict',
      format('%s of %s do not fit %s, which is tracked as %s.',
             concat_ws(' and ', case when v_misfit_sets > 0 then v_misfit_sets || ' set(s)' end,
                       case when v_misfit_plans > 0 then v_misfit_plans || ' plan target(s)' end),
             v_from.name, v_into.name, v_into.tracking_type),
      jsonb_build_object('sets', v_misfit_sets, 'plan_targets', v_misfit_plans));
  end if;
  if not v_from.is_user_created and exists (
       select from app.programs as g
         join app.program_sessions as s on s.user_id = g.user_id and s.program_id = g.id
         join app.template_exercises as t on t.template_id = any (s.templates)
        where g.user_id = p_user_id and g.status = 'active' and t.exercise_id = p_from) then
    perform app.raise_error(409, 'exercise_in_program',
      format('Your active program prescribes %s: it keeps its progression, so it cannot be merged away.', v_from.name));
  end if;

  update app.session_exercises
     set exercise_id = v_into_exercise_id, user_exercise_id = v_into_user_exercise_id, exercise_name = v_into.name
   where user_id = p_user_id and (exercise_id = p_from or user_exercise_id = p_from);
  get diagnostics v_sessions = row_count;
  update app.plan_exercises
     set exercise_id = v_into_exercise_id, user_exercise_id = v_into_user_exercise_id, exercise_name = v_into.name
   where user_id = p_user_id and (exercise_id = p_from or user_exercise_id = p_from);
  get diagnostics v_plans = row_count;
  -- Progression state is kept per catalog exercise: a program that has none for p_into
  -- takes p_from's; one that has both keeps p_into's.
  if not v_from.is_user_created then
    if v_into_exercise_id is not null then
      update app.program_exercise_state as st set exercise_id = v_into_exercise_id
       where st.user_id = p_user_id and st.exercise_id = p_from
         and not exists (select from app.program_exercise_state as o
                          where o.user_id = st.user_id and o.program_id = st.program_id
                            and o.exercise_id = v_into_exercise_id);
      get diagnostics v_states = row_count;
    end if;
    delete from app.program_exercise_state as st where st.user_id = p_user_id and st.exercise_id = p_from;
  end if;
  update app.user_exclusions as x
     set exercise_ids = array(select distinct case when i = p_from then p_into else i end
                                from unnest(x.exercise_ids) as i),
         updated_at = now()
   where x.user_id = p_user_id and p_from = any (x.exercise_ids);
  get diagnostics v_exclusions = row_count;

  -- Names merged into p_from before now lead to p_into, and so does p_from's own name.
  v_alias := lower(btrim(v_from.name));
  update app.exercise_name_aliases
     set exercise_id = v_into_exercise_id, user_exercise_id = v_into_user_exercise_id
   where user_id = p_user_id and (exercise_id = p_from or user_exercise_id = p_from);
  insert into app.exercise_name_aliases as a (user_id, alias, exercise_id, user_exercise_id)
  select u.user_id, v_alias, v_into_exercise_id, v_into_user_exercise_id
    from app.user_settings as u where u.user_id = p_user_id
  on conflict (user_id, alias) do update
     set exercise_id = excluded.exercise_id, user_exercise_id = excluded.user_exercise_id,
         created_at = excluded.created_at;
  -- The into exercise's own name needs no alias.
  delete from app.exercise_name_aliases where user_id = p_user_id and alias = lower(btrim(v_into.name));
  if v_from.is_user_created then
    delete from app.user_exercises where user_id = p_user_id and id = p_from;
  end if;

  return jsonb_build_object(
    'exercise', app.exercise_json(v_into.id, v_into.name, v_into.category, v_into.mechanic, v_into.equipment,
                                  v_into.primary_muscles, v_into.secondary_muscles, v_into.priority_tier,
                                  v_into.competition_lift, v_into.movement_pattern, v_into.is_user_created,
                                  v_into.tracking_type),
    'moved', jsonb_build_object('sessions', v_sessions, 'plans', v_plans, 'program_states', v_states,
                                'exclusions', v_exclusions),
    'alias', v_alias,
    'deleted', v_from.is_user_created);
end
$$;

grant execute on function app.merge_exercise(uuid, uuid, uuid) to liftbase_api;
