-- Favorites and custom meals: their JSON shapes, finding a meal, writing its items.

-- A custom meal's totals: the sum of its items. PL/pgSQL: Citus cannot plan a SQL
-- function whose parameters filter a distributed table (it was never inlined: it reads
-- a table).
create or replace function app.custom_meal_json(p_meal app.custom_meals)
returns jsonb
language plpgsql
stable
as $$
begin
  return (
    select jsonb_build_object(
      'id', p_meal.id, 'name', p_meal.name, 'created_at', p_meal.created_at, 'updated_at', p_meal.updated_at,
      'items', coalesce(jsonb_agg(jsonb_build_object(
                 'name', i.name, 'food_item_id', coalesce(i.food_id, i.user_food_id), 'portion_id', i.portion_seq,
                 'servings', i.servings, 'calories', i.calories, 'protein_g', i.protein_g, 'carbs_g', i.carbs_g,
                 'fat_g', i.fat_g) order by i.position) filter (where i.position is not null), '[]'),
      'totals', jsonb_build_object('calories', coalesce(sum(i.calories), 0), 'protein_g', coalesce(sum(i.protein_g), 0),
                                   'carbs_g', coalesce(sum(i.carbs_g), 0), 'fat_g', coalesce(sum(i.fat_g), 0)))
      from (select p_meal.id as meal_id) as m
      left join app.custom_meal_items as i on i.user_id = p_meal.user_id and i.meal_id = m.meal_id);
end
$$;

grant execute on function app.custom_meal_json(app.custom_meals) to liftbase_api;

-- Favorites: snapshots of a name and its macros; later edits of the food never change them.
create or replace function app.favorite_json(p_favorite app.favorites)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object('id', p_favorite.id, 'name', p_favorite.name, 'calories', p_favorite.calories,
                            'protein_g', p_favorite.protein_g, 'carbs_g', p_favorite.carbs_g, 'fat_g', p_favorite.fat_g,
                            'food_item_id', coalesce(p_favorite.food_id, p_favorite.user_food_id),
                            'servings', p_favorite.servings, 'created_at', p_favorite.created_at)
$$;
grant execute on function app.favorite_json(app.favorites) to liftbase_api;

-- Custom meals: items from foods (per-serving × servings, computed now) or free values.
create or replace function app.save_custom_meal_items(p_user_id uuid, p_meal_id uuid, p_items jsonb)
returns void
language plpgsql
as $$
declare
  v_problems jsonb := '{}';
  v_item jsonb;
  v_food record;
  v_path text;
  i integer;
begin
  if jsonb_typeof(p_items) is distinct from 'array' or jsonb_array_length(p_items) = 0 then
    perform app.raise_if_invalid('{"items": "must list at least one item"}');
  end if;
  delete from app.custom_meal_items where user_id = p_user_id and meal_id = p_meal_id;
  for i in 0 .. jsonb_array_length(p_items) - 1 loop
    v_item := p_items -> i;
    v_path := format('items[%s].', i);
    if jsonb_typeof(v_item) <> 'object' then
      v_problems := v_problems || jsonb_build_object(format('items[%s]', i), 'must be an object');
    elsif v_item ? 'food_item_id' then
      select f.* into v_food from app.food_item_values(p_user_id, v_item, v_path) as f;
      v_problems := v_problems || v_food.problems;
      if v_food.problems = '{}' then
        insert into app.custom_meal_items (user_id, meal_id, position, name, food_id, user_food_id, portion_seq,
                                           servings, calories, protein_g, carbs_g, fat_g)
        values (p_user_id, p_meal_id, i, v_food.name, v_food.food_id, v_food.user_food_id, v_food.portion_seq,
                v_food.servings, v_food.calories, v_food.protein_g, v_food.carbs_g, v_food.fat_g);
      end if;
    else
      v_problems := v_problems || app.food_values_problems(v_item, v_path, true);
      if jsonb_strip_nulls(v_problems) = '{}' then
        insert into app.custom_meal_items (user_id, meal_id, position, name, calories, protein_g, carbs_g, fat_g)
        values (p_user_id, p_meal_id, i, btrim(app.read_text(v_item, 'name')), app.read_number(v_item, 'calories'),
                app.read_number(v_item, 'protein_g'), app.read_number(v_item, 'carbs_g'),
                app.read_number(v_item, 'fat_g'));
      end if;
    end if;
  end loop;
  perform app.raise_if_invalid(v_problems);
end
$$;
grant execute on function app.save_custom_meal_items(uuid, uuid, jsonb) to liftbase_api;

create or replace function app.find_custom_meal(p_user_id uuid, p_args jsonb)
returns app.custom_meals
language plpgsql
stable
as $$
declare
  v_meal app.custom_meals;
begin
  select m.* into v_meal from app.custom_meals as m
   where m.user_id = p_user_id and m.id = app.id_parameter(p_args, 'id');
  if v_meal.id is null then
    perform app.raise_error(404, 'meal_not_found', 'No such meal.');
  end if;
  return v_meal;
end
$$;
grant execute on function app.find_custom_meal(uuid, jsonb) to liftbase_api;
