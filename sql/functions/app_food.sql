-- Foods as the API shows them: catalog foods and the user's own, one shape.

-- A catalog food or one of the user's own foods, by id. Null fields when there is none.
-- PL/pgSQL so that the query is planned once per connection (a SQL function returning one
-- row is never inlined, and was planned again on every diary insert).
create or replace function app.find_food(p_user_id uuid, p_id uuid,
  out id uuid, out is_user_food boolean, out name text, out brand text, out food_group text, out barcode text,
  out source text, out energy_kcal numeric, out protein_g numeric, out fat_g numeric, out carbs_g numeric,
  out fiber_g numeric, out sugars_g numeric, out sodium_mg numeric, out saturated_fat_g numeric,
  out serving_label text, out serving_g numeric)
language plpgsql
stable
as $$
begin
  select f.id, f.is_user_food, f.name, f.brand, f.food_group, f.barcode, f.source, f.energy_kcal, f.protein_g, f.fat_g,
         f.carbs_g, f.fiber_g, f.sugars_g, f.sodium_mg, f.saturated_fat_g, f.serving_label, f.serving_g
    into id, is_user_food, name, brand, food_group, barcode, source, energy_kcal, protein_g, fat_g, carbs_g, fiber_g,
         sugars_g, sodium_mg, saturated_fat_g, serving_label, serving_g
    from (select c.id, false as is_user_food, c.name, c.brand, c.food_group, c.barcode, c.source, c.energy_kcal,
                 c.protein_g, c.fat_g, c.carbs_g, c.fiber_g, c.sugars_g, c.sodium_mg, c.saturated_fat_g,
                 c.serving_label, c.serving_g
            from app.foods as c where c.id = p_id
          union all
          select u.id, true, u.name, u.brand, null, u.barcode, 'user', u.energy_kcal, u.protein_g, u.fat_g, u.carbs_g,
                 u.fiber_g, u.sugars_g, u.sodium_mg, u.saturated_fat_g, u.serving_label, u.serving_g
            from app.user_foods as u where u.user_id = p_user_id and u.id = p_id
           limit 1) as f;
end
$$;

-- Nutrients of p_grams of a food with the given per-100 g values.
create or replace function app.nutrients_for(p_grams numeric, p_energy numeric, p_protein numeric, p_carbs numeric,
                                             p_fat numeric, p_fiber numeric, p_sugars numeric, p_sodium numeric,
                                             p_saturated numeric)
returns jsonb
language sql
-- Stable, not immutable: jsonb_build_object is stable, and only a function declared no
-- stricter than its body is inlined into the query that calls it (per-row calls cost ~0.1 ms).
stable
as $$
  -- trim_scale: the exact value without the trailing zeros numeric division leaves.
  select jsonb_build_object(
    'calories', trim_scale(p_energy * p_grams / 100), 'protein_g', trim_scale(p_protein * p_grams / 100),
    'carbs_g', trim_scale(p_carbs * p_grams / 100), 'fat_g', trim_scale(p_fat * p_grams / 100),
    'fiber_g', trim_scale(p_fiber * p_grams / 100), 'sugars_g', trim_scale(p_sugars * p_grams / 100),
    'sodium_mg', trim_scale(p_sodium * p_grams / 100), 'saturated_fat_g', trim_scale(p_saturated * p_grams / 100))
$$;

-- The API shape of a food from its values: per-100 g and per-serving values, and its
-- portions. An expression only (no table access), so callers that already hold the row
-- (search) build it without another lookup.
create or replace function app.food_values_json(
  p_id uuid, p_is_user_food boolean, p_name text, p_brand text, p_food_group text, p_barcode text, p_source text,
  p_energy numeric, p_protein numeric, p_fat numeric, p_carbs numeric, p_fiber numeric, p_sugars numeric,
  p_sodium numeric, p_saturated numeric, p_serving_label text, p_serving_g numeric, p_portions jsonb)
returns jsonb
language sql
-- Stable, not immutable: jsonb_build_object is stable, and only a function declared no
-- stricter than its body is inlined into the query that calls it (per-row calls cost ~0.1 ms).
stable
as $$
  select jsonb_build_object(
    'id', p_id, 'name', p_name, 'brand', p_brand, 'food_group', p_food_group, 'barcode', p_barcode,
    'source', p_source, 'is_user_food', p_is_user_food,
    'per_100g', app.nutrients_for(100, p_energy, p_protein, p_carbs, p_fat, p_fiber, p_sugars, p_sodium, p_saturated),
    'serving', jsonb_build_object('label', p_serving_label, 'grams', p_serving_g),
    'per_serving', app.nutrients_for(p_serving_g, p_energy, p_protein, p_carbs, p_fat, p_fiber, p_sugars, p_sodium,
                                     p_saturated),
    'portions', p_portions)
$$;

create or replace function app.food_portions_json(p_food_id uuid)
returns jsonb
language sql
stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('id', p.seq, 'label', p.label, 'grams', p.gram_weight)
                            order by p.seq), '[]')
    from app.food_portions as p where p.food_id = p_food_id
$$;

create or replace function app.food_json(p_user_id uuid, p_id uuid)
returns jsonb
language sql
stable
as $$
  select app.food_values_json(f.id, f.is_user_food, f.name, f.brand, f.food_group, f.barcode, f.source, f.energy_kcal,
                              f.protein_g, f.fat_g, f.carbs_g, f.fiber_g, f.sugars_g, f.sodium_mg, f.saturated_fat_g,
                              f.serving_label, f.serving_g, app.food_portions_json(f.id))
    from app.find_food(p_user_id, p_id) as f
   where f.id is not null
$$;

-- The four macros of `servings` servings of a food (a portion's grams, else the food's
-- default serving): per-serving × servings. Null when the food or portion is unknown.
-- PL/pgSQL so that its reads are planned once per connection, not on every call.
create or replace function app.food_macros(p_user_id uuid, p_food_id uuid, p_portion integer, p_servings numeric,
  out is_user_food boolean, out name text, out calories numeric, out protein_g numeric, out carbs_g numeric,
  out fat_g numeric, out barcode text)
language plpgsql
stable
as $$
declare
  v_food record;
  v_grams numeric;
begin
  select f.* into v_food from app.find_food(p_user_id, p_food_id) as f;
  if v_food.id is null then
    return;
  end if;
  v_grams := case when p_portion is null then v_food.serving_g
                  else (select p.gram_weight from app.food_portions as p
                         where p.food_id = v_food.id and p.seq = p_portion) end;
  if v_grams is null then
    return;
  end if;
  is_user_food := v_food.is_user_food;
  name := v_food.name;
  calories := trim_scale(v_food.energy_kcal * v_grams / 100 * p_servings);
  protein_g := trim_scale(v_food.protein_g * v_grams / 100 * p_servings);
  carbs_g := trim_scale(v_food.carbs_g * v_grams / 100 * p_servings);
  fat_g := trim_scale(v_food.fat_g * v_grams / 100 * p_servings);
  barcode := v_food.barcode;
end
$$;

grant execute on function
  app.food_values_json(uuid, boolean, text, text, text, text, text, numeric, numeric, numeric, numeric, numeric,
                       numeric, numeric, numeric, text, numeric, jsonb),
  app.food_portions_json(uuid),
  app.find_food(uuid, uuid),
  app.nutrients_for(numeric, numeric, numeric, numeric, numeric, numeric, numeric, numeric, numeric),
  app.food_json(uuid, uuid),
  app.food_macros(uuid, uuid, integer, numeric)
to liftbase_api;

-- Remembered search pages (0018) hold items in the shape above: applying this file again,
-- in a release that changes it, retires them.
update app.food_catalog_version set version = version + 1;
