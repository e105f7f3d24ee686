-- /meals/*: favorites and custom meals.

-- GET /meals/favorites?limit=&cursor=: newest first.
create or replace function api.favorites_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'uuid');
  v_after app.favorites;
begin
  if v_page.cursor_uuid is not null then
    select f.* into v_after from app.favorites as f where f.user_id = v_user_id and f.id = v_page.cursor_uuid;
    if v_after.id is null then
      perform app.raise_unknown_cursor();
    end if;
  end if;
  return app.page(coalesce((
    select jsonb_agg(app.favorite_json(row(f.*)::app.favorites) order by f.created_at desc, f.id desc)
      from (select * from app.favorites as x
             where x.user_id = v_user_id
               and (v_after.id is null or (x.created_at, x.id) < (v_after.created_at, v_after.id))
             order by x.created_at desc, x.id desc
             limit v_page.page_size + 1) as f), '[]'), v_page.page_size);
end
$$;

-- POST /meals/favorites {entry_id} or {name, calories, protein_g, carbs_g, fat_g,
-- food_item_id?, servings?}.
create or replace function api.favorite_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_entry app.food_entries;
  v_favorite app.favorites;
  v_food record;
  v_replayed text;
begin
  v_replayed := app.replayed_key('app.favorites', v_user_id, v_body);
  if v_replayed is not null then
    return (select app.favorite_json(row(f.*)::app.favorites) from app.favorites as f
             where f.user_id = v_user_id and f.id = v_replayed::uuid);
  end if;
  if v_body ? 'entry_id' then
    -- A favorite of an entry is the entry's snapshot: values beside it are refused, not dropped.
    perform app.raise_if_invalid(coalesce(
      (select jsonb_object_agg(k.key, 'is not taken with entry_id: the favorite is the entry''s snapshot')
         from jsonb_each(v_body) as k
        where k.key not in ('entry_id', 'client_id') and k.value <> 'null'), '{}'));
    if app.input_problem(v_body -> 'entry_id', 'uuid') is null then
      select e.* into v_entry from app.food_entries as e
       where e.user_id = v_user_id and e.id = app.read_uuid(v_body, 'entry_id');
    end if;
    if v_entry.id is null then
      perform app.raise_if_invalid('{"entry_id": "is not one of your diary entries"}');
    end if;
  else
    perform app.raise_if_invalid(app.food_values_problems(v_body, '', true) || jsonb_build_object(
      'servings', app.field_problem(v_body, 'servings', 'app.servings', false),
      'food_item_id', coalesce(app.field_problem(v_body, 'food_item_id', 'uuid', false),
                               case when app.read_uuid(v_body, 'food_item_id') is not null
                                     and (select f.id
                                            from app.find_food(v_user_id, app.read_uuid(v_body, 'food_item_id')) as f)
                                         is null
                                    then 'is not a known food' end)));
    select f.* into v_food from app.find_food(v_user_id, app.read_uuid(v_body, 'food_item_id')) as f;
    v_entry.name := btrim(app.read_text(v_body, 'name'));
    v_entry.calories := app.read_number(v_body, 'calories');
    v_entry.protein_g := app.read_number(v_body, 'protein_g');
    v_entry.carbs_g := app.read_number(v_body, 'carbs_g');
    v_entry.fat_g := app.read_number(v_body, 'fat_g');
    v_entry.servings := app.read_number(v_body, 'servings');
    v_entry.food_id := case when not v_food.is_user_food then v_food.id end;
    v_entry.user_food_id := case when v_food.is_user_food then v_food.id end;
  end if;
  insert into app.favorites (user_id, client_id, name, calories, protein_g, carbs_g, fat_g, food_id, user_food_id,
                             servings)
  values (v_user_id, app.read_uuid(v_body, 'client_id'), v_entry.name, v_entry.calories, v_entry.protein_g,
          v_entry.carbs_g, v_entry.fat_g, v_entry.food_id, v_entry.user_food_id, v_entry.servings)
  returning * into v_favorite;
  return app.favorite_json(v_favorite);
end
$$;

create or replace function api.favorite_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  if exists (select from app.favorites as f where f.user_id = v_user_id and f.id = app.id_parameter(p_args, 'id')) then
    perform app.check_if_match(v_user_id, 'favorite', app.id_parameter(p_args, 'id')::text, p_args);
  end if;
  delete from app.favorites where user_id = v_user_id and id = app.id_parameter(p_args, 'id');
  if not found then
    perform app.raise_error(404, 'favorite_not_found', 'No such favorite.');
  end if;
  return null;
end
$$;

-- GET /meals/custom?limit=&cursor=: by name.
create or replace function api.custom_meals_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'uuid');
  v_after app.custom_meals;
begin
  if v_page.cursor_uuid is not null then
    select m.* into v_after from app.custom_meals as m where m.user_id = v_user_id and m.id = v_page.cursor_uuid;
    if v_after.id is null then
      perform app.raise_unknown_cursor();
    end if;
  end if;
  return app.page(coalesce((
    select jsonb_agg(app.custom_meal_json(row(m.*)::app.custom_meals) order by m.name, m.id)
      from (select * from app.custom_meals as x
             where x.user_id = v_user_id
               and (v_after.id is null or (x.name, x.id) > (v_after.name, v_after.id))
             order by x.name, x.id
             limit v_page.page_size + 1) as m), '[]'), v_page.page_size);
end
$$;

create or replace function api.custom_meal_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_meal app.custom_meals;
  v_replayed text;
begin
  v_replayed := app.replayed_key('app.custom_meals', v_user_id, v_body);
  if v_replayed is not null then
    return app.custom_meal_json(app.find_custom_meal(v_user_id, jsonb_build_object('id', v_replayed)));
  end if;
  perform app.raise_if_invalid(jsonb_build_object('name', app.field_problem(v_body, 'name', 'app.food_name')));
  insert into app.custom_meals (user_id, client_id, name)
  values (v_user_id, app.read_uuid(v_body, 'client_id'), btrim(app.read_text(v_body, 'name'))) returning * into v_meal;
  perform app.save_custom_meal_items(v_user_id, v_meal.id, v_body -> 'items');
  return app.custom_meal_json(v_meal);
end
$$;

create or replace function api.custom_meal_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_meal app.custom_meals := app.find_custom_meal(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
  -- Read before the update: Citus refuses calls that are not immutable in a write's coalesce.
  v_name text := btrim(app.read_text(v_body, 'name'));
  v_now timestamptz := now();
begin
  perform app.check_if_match(v_user_id, 'custom_meal', v_meal.id::text, p_args);
  perform app.raise_if_invalid(jsonb_build_object('name', app.field_problem(v_body, 'name', 'app.food_name', false)));
  update app.custom_meals set name = coalesce(v_name, name), updated_at = v_now
   where user_id = v_user_id and id = v_meal.id;
  if v_body ? 'items' then
    perform app.save_custom_meal_items(v_user_id, v_meal.id, v_body -> 'items');
  end if;
  return app.custom_meal_json(app.find_custom_meal(v_user_id, p_args));
end
$$;

create or replace function api.custom_meal_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_meal app.custom_meals := app.find_custom_meal(v_user_id, p_args);
begin
  perform app.check_if_match(v_user_id, 'custom_meal', v_meal.id::text, p_args);
  delete from app.custom_meals where user_id = v_user_id and id = v_meal.id;
  return null;
end
$$;
