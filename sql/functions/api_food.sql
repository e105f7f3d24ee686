-- Food search, barcode lookup, food items.

-- GET /food/search?q=&limit=: catalog and the user's own foods, ranked by app.food_match
-- (exact name > prefix > word similarity > any other match); within a tier, foods the user
-- logged before come first, then the score, then the name. Typo-tolerant through pg_trgm.
--
-- The catalog's page comes from app.catalog_food_search (remembered across users); the
-- user's part is added here on every request: foods they logged and their own foods that
-- match, ranked by the same rule (own foods match by name and brand, as catalog foods
-- do). A page of the catalog's best p foods plus every food of the user's that matches
-- holds the best p of all: the user's part only moves foods up.
-- Returns json, not jsonb: the remembered items are joined as text (see 0018).
create or replace function api.food_search(p_token text, p_body jsonb, p_args jsonb)
returns json
language plpgsql
-- The page's query has array parameters that custom plans fold in as constants, so the
-- planner kept choosing a custom plan: planning it (with app.food_match inlined twice) cost
-- more than running it. One generic plan per connection instead.
set plan_cache_mode = force_generic_plan
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_q text := lower(btrim(coalesce(p_args ->> 'q', '')));
  v_limit integer := least((app.page_parameters(p_args, 'none', 20)).page_size, 100);
  v_words tsquery;
  v_catalog app.food_search_results;
  v_logged uuid[];
  v_ids uuid[];
  v_items json[];
begin
  if length(v_q) < 2 then
    perform app.raise_error(422, 'query_too_short', 'Search for at least 2 characters.',
                            jsonb_build_object('q', 'must be at least 2 characters'));
  end if;
  v_catalog := app.catalog_food_search(v_q, v_limit);
  v_words := plainto_tsquery('english', v_q);
  v_logged := app.logged_foods(v_user_id, v_q, v_catalog);
  -- The page first (the foods and the catalog's remembered items), then its items: on Citus
  -- the page's statement goes to the user's worker (it reads their own foods), and the
  -- items are built on the coordinator, where the remembered items are kept.
  select coalesce(array_agg(r.id order by r.tier desc, r.logged desc, r.score desc, r.name), '{}'),
         coalesce(array_agg(r.item order by r.tier desc, r.logged desc, r.score desc, r.name), '{}')
    into v_ids, v_items
    from (
      select c.id, c.item, c.tier, c.logged, c.score, c.name
        from (select p.id, p.item, p.tier, p.id = any (v_logged) as logged, p.score, p.name
                -- The items side by side with their ranks: the page's items are read once.
                from rows from (unnest(v_catalog.food_ids), unnest(v_catalog.tiers), unnest(v_catalog.scores),
                                unnest(v_catalog.names), unnest(v_catalog.items))
                     as p (id, tier, score, name, item)
              union all
              -- Logged catalog foods that are not on the catalog's page (app.logged_foods).
              select f.id, null, m.tier, true, m.score, f.name
                from app.foods as f
               cross join lateral app.food_match(v_q, f.name, f.search_vector, v_words, v_catalog.terms) as m
               where f.id = any (v_logged) and not f.id = any (v_catalog.food_ids) and m.matches
              union all
              select u.id, null, m.tier, u.id = any (v_logged), m.score, u.name
                from app.user_foods as u
               cross join lateral app.food_match(v_q, u.name,
                                                 to_tsvector('english', u.name || ' ' || coalesce(u.brand, '')),
                                                 v_words, v_catalog.terms) as m
               where u.user_id = v_user_id and m.matches) as c
       order by c.tier desc, c.logged desc, c.score desc, c.name
       limit v_limit
    ) as r;
  -- The page's own items are stored with it; those of the foods the user's part adds are
  -- taken for the foods that make the page only: a catalog food's remembered item
  -- (app.remembered_food_item), an own food's built.
  return json_build_object('items', coalesce((
    select json_agg(coalesce(p.item, app.remembered_food_item(p.id, v_catalog.catalog_version),
                             app.food_json(v_user_id, p.id)::json)
                    order by p.n)
      from unnest(v_ids, v_items) with ordinality as p (id, item, n)), '[]'), 'next_cursor', null);
end
$$;
-- On Citus: planned for each call (liftbase_meta.on_citus_plan_each_call says why).
select liftbase_meta.on_citus_plan_each_call('api.food_search(text, jsonb, jsonb)');

create or replace function api.food_barcode(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_id uuid;
begin
  -- The user's own food first: it is what they scanned and saved.
  select u.id into v_id from app.user_foods as u where u.user_id = v_user_id and u.barcode = p_args ->> 'code' limit 1;
  if v_id is null then
    select f.id into v_id from app.foods as f where f.barcode = p_args ->> 'code' order by f.updated_at desc limit 1;
  end if;
  if v_id is null then
    perform app.raise_error(404, 'food_not_found', 'No food with this barcode.');
  end if;
  return app.food_json(v_user_id, v_id);
end
$$;

create or replace function api.food_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_food jsonb;
begin
  v_food := app.food_json(v_user_id, app.id_parameter(p_args, 'id'));
  if v_food is null then
    perform app.raise_error(404, 'food_not_found', 'No such food.');
  end if;
  if app.entity_not_modified(v_user_id, 'own_food', app.id_parameter(p_args, 'id')::text, p_args) then
    return null;
  end if;
  return v_food;
end
$$;

-- POST /food/items: a food of the user's own (private), nutrients per 100 g.
create or replace function api.food_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_id uuid;
  v_replayed text;
  v_food app.user_foods;
begin
  v_replayed := app.replayed_key('app.user_foods', v_user_id, v_body);
  if v_replayed is not null then
    return app.food_json(v_user_id, v_replayed::uuid);
  end if;
  perform app.raise_if_invalid(jsonb_build_object(
    'name', app.field_problem(v_body, 'name', 'app.food_name'),
    'barcode', app.field_problem(v_body, 'barcode', 'app.barcode', false),
    'calories', app.field_problem(v_body, 'calories', 'app.kcal'),
    'protein_g', app.field_problem(v_body, 'protein_g', 'app.grams', false),
    'carbs_g', app.field_problem(v_body, 'carbs_g', 'app.grams', false),
    'fat_g', app.field_problem(v_body, 'fat_g', 'app.grams', false),
    'fiber_g', app.field_problem(v_body, 'fiber_g', 'app.grams', false),
    'sugars_g', app.field_problem(v_body, 'sugars_g', 'app.grams', false),
    'saturated_fat_g', app.field_problem(v_body, 'saturated_fat_g', 'app.grams', false),
    'sodium_mg', app.field_problem(v_body, 'sodium_mg', 'app.kcal', false),
    'serving_g', app.field_problem(v_body, 'serving_g', 'app.grams', false),
    'brand', app.field_problem(v_body, 'brand', 'text', false),
    'serving_label', app.field_problem(v_body, 'serving_label', 'text', false)));
  -- The values are read first: Citus inlines the readers into a write's values and folds
  -- them into expressions its workers reject (a simple CASE compared with booleans).
  v_food.name := btrim(app.read_text(v_body, 'name'));
  v_food.brand := app.read_text(v_body, 'brand');
  v_food.barcode := app.read_text(v_body, 'barcode');
  v_food.energy_kcal := app.read_number(v_body, 'calories');
  v_food.protein_g := coalesce(app.read_number(v_body, 'protein_g'), 0);
  v_food.carbs_g := coalesce(app.read_number(v_body, 'carbs_g'), 0);
  v_food.fat_g := coalesce(app.read_number(v_body, 'fat_g'), 0);
  v_food.fiber_g := app.read_number(v_body, 'fiber_g');
  v_food.sugars_g := app.read_number(v_body, 'sugars_g');
  v_food.sodium_mg := app.read_number(v_body, 'sodium_mg');
  v_food.saturated_fat_g := app.read_number(v_body, 'saturated_fat_g');
  v_food.serving_g := coalesce(app.read_number(v_body, 'serving_g'), 100);
  v_food.serving_label := coalesce(app.read_text(v_body, 'serving_label'), v_food.serving_g::text || ' g');
  insert into app.user_foods (user_id, client_id, name, brand, barcode, energy_kcal, protein_g, carbs_g, fat_g,
                              fiber_g, sugars_g, sodium_mg, saturated_fat_g, serving_label, serving_g)
  values (v_user_id, app.read_uuid(v_body, 'client_id'), v_food.name, v_food.brand, v_food.barcode, v_food.energy_kcal,
          v_food.protein_g, v_food.carbs_g, v_food.fat_g, v_food.fiber_g, v_food.sugars_g, v_food.sodium_mg,
          v_food.saturated_fat_g, v_food.serving_label, v_food.serving_g)
  returning id into v_id;
  return app.food_json(v_user_id, v_id);
end
$$;
