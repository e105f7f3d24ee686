-- /equipment: the equipment catalog and the user's selection.

create or replace function api.equipment_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return app.page_of_list(app.equipment_json(v_user_id) -> 'items', p_args);
end
$$;

-- PUT /equipment/selection {equipment_ids}: the selection, replaced and persisted at once.
create or replace function api.equipment_select(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_ids text[];
begin
  perform app.raise_if_invalid(jsonb_build_object('equipment_ids', case
    when v_body -> 'equipment_ids' is null or jsonb_typeof(v_body -> 'equipment_ids') <> 'array'
      then 'must be a list of equipment ids'
    when app.input_problem(v_body -> 'equipment_ids', 'string[]') is not null
      then app.input_problem(v_body -> 'equipment_ids', 'string[]')
    when exists (select from unnest(app.read_text_list(v_body, 'equipment_ids')) as i
                  where not exists (select from app.equipment as e where e.id = i))
      then 'unknown: ' || (select string_agg(i, ', ') from unnest(app.read_text_list(v_body, 'equipment_ids')) as i
                           where not exists (select from app.equipment as e where e.id = i)) end));
  -- The ids are read first, and the insert selects from the user's settings row: Citus
  -- then sends it whole to the user's worker (an insert selecting from the request alone
  -- is copied there, which row-level security refuses).
  v_ids := array(select distinct i from unnest(app.read_text_list(v_body, 'equipment_ids')) as i);
  delete from app.user_equipment where user_id = v_user_id;
  insert into app.user_equipment (user_id, equipment_id)
  select u.user_id, i
    from app.user_settings as u
   cross join unnest(v_ids) as i
   where u.user_id = v_user_id;
  return app.equipment_json(v_user_id);
end
$$;
