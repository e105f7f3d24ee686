-- The food diary, daily totals, favorites and custom meals.

create or replace function app.entry_json(p_entry app.food_entries)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'id', p_entry.id, 'client_id', p_entry.client_id, 'entry_date', p_entry.entry_date, 'meal_type', p_entry.meal_type,
    'name', p_entry.name, 'food_item_id', coalesce(p_entry.food_id, p_entry.user_food_id),
    'portion_id', p_entry.portion_seq, 'servings', p_entry.servings, 'favorite_id', p_entry.favorite_id,
    'custom_meal_id', p_entry.custom_meal_id, 'calories', p_entry.calories, 'protein_g', p_entry.protein_g,
    'carbs_g', p_entry.carbs_g, 'fat_g', p_entry.fat_g, 'source', p_entry.source, 'barcode', p_entry.barcode,
    'created_at', p_entry.created_at, 'updated_at', p_entry.updated_at)
$$;

-- Problems with food given as values (a manual entry, a favorite, a meal item): a name,
-- calories, and the three macros, which p_macros_required says whether to demand.
create or replace function app.food_values_problems(p_item jsonb, p_path text, p_macros_required boolean)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    p_path || 'name', app.field_problem(p_item, 'name', 'app.food_name'),
    p_path || 'calories', app.field_problem(p_item, 'calories', 'app.kcal'),
    p_path || 'protein_g', app.field_problem(p_item, 'protein_g', 'app.grams', p_macros_required),
    p_path || 'carbs_g', app.field_problem(p_item, 'carbs_g', 'app.grams', p_macros_required),
    p_path || 'fat_g', app.field_problem(p_item, 'fat_g', 'app.grams', p_macros_required))
$$;

-- A custom meal's totals: the sum of its items.
create or replace function app.custom_meal_json(p_meal app.custom_meals)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'id', p_meal.id, 'name', p_meal.name, 'created_at', p_meal.created_at, 'updated_at', p_meal.updated_at,
    'items', coalesce(jsonb_agg(jsonb_build_object(
               'name', i.name, 'food_item_id', coalesce(i.food_id, i.user_food_id), 'portion_id', i.portion_seq,
               'servings', i.servings, 'calories', i.calories, 'protein_g', i.protein_g, 'carbs_g', i.carbs_g,
               'fat_g', i.fat_g) order by i.position) filter (where i.position is not null), '[]'),
    'totals', jsonb_build_object('calories', coalesce(sum(i.calories), 0), 'protein_g', coalesce(sum(i.protein_g), 0),
                                 'carbs_g', coalesce(sum(i.carbs_g), 0), 'fat_g', coalesce(sum(i.fat_g), 0)))
    from (select p_meal.id as meal_id) as m
    left join app.custom_meal_items as i on i.user_id = p_meal.user_id and i.meal_id = m.meal_id
$$;

-- Name and macros for an entry or a meal item from {food_item_id, portion_id?, servings?}:
-- per-serving × servings. Problems are named under p_path.
create or replace function app.food_item_values(p_user_id uuid, p_item jsonb, p_path text,
  out problems jsonb, out name text, out food_id uuid, out user_food_id uuid, out portion_seq integer,
  out servings numeric, out calories numeric, out protein_g numeric, out carbs_g numeric, out fat_g numeric,
  out barcode text)
language plpgsql
stable
as $$
declare
  v_macros record;
begin
  problems := jsonb_strip_nulls(jsonb_build_object(
    p_path || 'servings', app.field_problem(p_item, 'servings', 'app.servings', false),
    p_path || 'portion_id', case when p_item ->> 'portion_id' !~ '^\d{1,9}$' then 'is not a portion of this food' end,
    p_path || 'food_item_id', case when not app.is_uuid(p_item ->> 'food_item_id') then 'is not a known food' end));
  if problems <> '{}' then
    return;
  end if;
  servings := coalesce((p_item ->> 'servings')::numeric, 1);
  portion_seq := (p_item ->> 'portion_id')::integer;
  select m.* into v_macros from app.food_macros(p_user_id, (p_item ->> 'food_item_id')::uuid, portion_seq, servings) as m;
  if v_macros.name is null then
    problems := case when portion_seq is not null
                       and exists (select from app.find_food(p_user_id, (p_item ->> 'food_item_id')::uuid) as f where f.id is not null)
                     then jsonb_build_object(p_path || 'portion_id', 'is not a portion of this food')
                     else jsonb_build_object(p_path || 'food_item_id', 'is not a known food') end;
    return;
  end if;
  name := v_macros.name;
  calories := v_macros.calories;
  protein_g := v_macros.protein_g;
  carbs_g := v_macros.carbs_g;
  fat_g := v_macros.fat_g;
  barcode := v_macros.barcode;
  if v_macros.is_user_food then
    user_food_id := (p_item ->> 'food_item_id')::uuid;
  else
    food_id := (p_item ->> 'food_item_id')::uuid;
  end if;
end
$$;

grant execute on function
  app.food_values_problems(jsonb, text, boolean),
  app.entry_json(app.food_entries),
  app.custom_meal_json(app.custom_meals),
  app.food_item_values(uuid, jsonb, text)
to liftbase_api;

-- POST /nutrition/entries. From a food: per-serving × servings; from a favorite: exactly
-- its snapshot; from a custom meal: its totals × servings; else manual values. A repeated
-- client_id returns the first entry (200).
create or replace function api.entry_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_entry app.food_entries;
  v_food record;
  v_favorite app.favorites;
  v_meal jsonb;
  v_problems jsonb;
begin
  if app.is_uuid(v_body ->> 'client_id') then
    select e.* into v_entry from app.food_entries as e
     where e.user_id = v_user_id and e.client_id = (v_body ->> 'client_id')::uuid;
    if v_entry.id is not null then
      perform app.set_response_status(200);
      return app.entry_json(v_entry);
    end if;
  end if;
  v_problems := jsonb_build_object(
    'entry_date', app.field_problem(v_body, 'entry_date', 'app.calendar_date', false),
    'meal_type', app.field_problem(v_body, 'meal_type', 'app.meal_type', false),
    'source', app.field_problem(v_body, 'source', 'app.entry_source'),
    'barcode', app.field_problem(v_body, 'barcode', 'app.barcode', false),
    'client_id', app.field_problem(v_body, 'client_id', 'app.uuid_value', false),
    'name', app.field_problem(v_body, 'name', 'app.food_name', false));
  v_entry.user_id := v_user_id;

  if v_body ->> 'favorite_id' is not null then
    if app.is_uuid(v_body ->> 'favorite_id') then
      select f.* into v_favorite from app.favorites as f where f.user_id = v_user_id and f.id = (v_body ->> 'favorite_id')::uuid;
    end if;
    if v_favorite.id is null then
      v_problems := v_problems || '{"favorite_id": "is not one of your favorites"}';
    end if;
    v_entry.name := v_favorite.name;
    v_entry.calories := v_favorite.calories;
    v_entry.protein_g := v_favorite.protein_g;
    v_entry.carbs_g := v_favorite.carbs_g;
    v_entry.fat_g := v_favorite.fat_g;
    v_entry.favorite_id := v_favorite.id;
    v_entry.food_id := v_favorite.food_id;
    v_entry.user_food_id := v_favorite.user_food_id;
    v_entry.servings := v_favorite.servings;
  elsif v_body ->> 'custom_meal_id' is not null then
    v_problems := v_problems || jsonb_build_object('servings', app.field_problem(v_body, 'servings', 'app.servings', false));
    if app.is_uuid(v_body ->> 'custom_meal_id') then
      select app.custom_meal_json(m) into v_meal from app.custom_meals as m
       where m.user_id = v_user_id and m.id = (v_body ->> 'custom_meal_id')::uuid;
    end if;
    if v_meal is null then
      v_problems := v_problems || '{"custom_meal_id": "is not one of your meals"}';
    elsif app.field_problem(v_body, 'servings', 'app.servings', false) is null then
      v_entry.servings := coalesce((v_body ->> 'servings')::numeric, 1);
      v_entry.name := v_meal ->> 'name';
      v_entry.calories := (v_meal -> 'totals' ->> 'calories')::numeric * v_entry.servings;
      v_entry.protein_g := (v_meal -> 'totals' ->> 'protein_g')::numeric * v_entry.servings;
      v_entry.carbs_g := (v_meal -> 'totals' ->> 'carbs_g')::numeric * v_entry.servings;
      v_entry.fat_g := (v_meal -> 'totals' ->> 'fat_g')::numeric * v_entry.servings;
      v_entry.custom_meal_id := (v_body ->> 'custom_meal_id')::uuid;
    end if;
  elsif v_body ->> 'food_item_id' is not null then
    select f.* into v_food from app.food_item_values(v_user_id, v_body, '') as f;
    v_problems := v_problems || v_food.problems;
    v_entry.name := v_food.name;
    v_entry.calories := v_food.calories;
    v_entry.protein_g := v_food.protein_g;
    v_entry.carbs_g := v_food.carbs_g;
    v_entry.fat_g := v_food.fat_g;
    v_entry.food_id := v_food.food_id;
    v_entry.user_food_id := v_food.user_food_id;
    v_entry.portion_seq := v_food.portion_seq;
    v_entry.servings := v_food.servings;
    v_entry.barcode := v_food.barcode;
  else
    v_problems := v_problems || app.food_values_problems(v_body, '', false);
    if jsonb_strip_nulls(v_problems) = '{}' then
      v_entry.calories := (v_body ->> 'calories')::numeric;
      v_entry.protein_g := coalesce((v_body ->> 'protein_g')::numeric, 0);
      v_entry.carbs_g := coalesce((v_body ->> 'carbs_g')::numeric, 0);
      v_entry.fat_g := coalesce((v_body ->> 'fat_g')::numeric, 0);
    end if;
  end if;
  perform app.raise_if_invalid(v_problems);

  insert into app.food_entries (user_id, client_id, entry_date, meal_type, name, food_id, user_food_id, portion_seq,
                                servings, favorite_id, custom_meal_id, calories, protein_g, carbs_g, fat_g, source, barcode)
  values (v_user_id, (v_body ->> 'client_id')::uuid,
          coalesce((v_body ->> 'entry_date')::date, app.user_today(v_user_id)),
          coalesce(v_body ->> 'meal_type', 'snack'), coalesce(btrim(v_body ->> 'name'), v_entry.name),
          v_entry.food_id, v_entry.user_food_id, v_entry.portion_seq, v_entry.servings, v_entry.favorite_id,
          v_entry.custom_meal_id, v_entry.calories, v_entry.protein_g, v_entry.carbs_g, v_entry.fat_g,
          v_body ->> 'source', coalesce(v_body ->> 'barcode', v_entry.barcode))
  on conflict (user_id, client_id) do nothing
  returning * into v_entry;
  if not found then
    -- A retry raced the first upload of the same client_id: answer with the first.
    select e.* into v_entry from app.food_entries as e
     where e.user_id = v_user_id and e.client_id = (v_body ->> 'client_id')::uuid;
    perform app.set_response_status(200);
  end if;
  return app.entry_json(v_entry);
end
$$;

-- GET /nutrition/entries?date= or ?from=&to= (default: today in the user's zone).
create or replace function api.entries_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_from date := coalesce(app.date_parameter(p_args, 'date'), app.date_parameter(p_args, 'from'), app.user_today(v_user_id));
  v_to date := coalesce(app.date_parameter(p_args, 'date'), app.date_parameter(p_args, 'to'), v_from);
begin
  if v_to - v_from > 366 then
    perform app.raise_error(400, 'invalid_parameter', 'from and to may be at most a year apart.');
  end if;
  return jsonb_build_object('items', coalesce((
    select jsonb_agg(app.entry_json(e) order by e.entry_date, e.created_at, e.id)
      from app.food_entries as e
     where e.user_id = v_user_id and e.entry_date between v_from and v_to), '[]'), 'next_cursor', null);
end
$$;

create or replace function app.find_entry(p_user_id uuid, p_args jsonb)
returns app.food_entries
language plpgsql
stable
as $$
declare
  v_entry app.food_entries;
begin
  if app.is_uuid(p_args ->> 'id') then
    select e.* into v_entry from app.food_entries as e where e.user_id = p_user_id and e.id = (p_args ->> 'id')::uuid;
  end if;
  if v_entry.id is null then
    perform app.raise_error(404, 'entry_not_found', 'No such diary entry.');
  end if;
  return v_entry;
end
$$;
grant execute on function app.find_entry(uuid, jsonb) to liftbase_api;

-- PATCH /nutrition/entries/{id}: meal, date, name; servings rescale an entry made from a
-- food or meal; a manual entry's values can be edited directly.
create or replace function api.entry_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_entry app.food_entries := app.find_entry(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
  v_manual boolean := v_entry.food_id is null and v_entry.user_food_id is null and v_entry.custom_meal_id is null
                      and v_entry.favorite_id is null;
  v_scale numeric := 1;
begin
  perform app.raise_if_invalid(jsonb_build_object(
    'entry_date', app.field_problem(v_body, 'entry_date', 'app.calendar_date', false),
    'meal_type', app.field_problem(v_body, 'meal_type', 'app.meal_type', false),
    'name', app.field_problem(v_body, 'name', 'app.food_name', false),
    'servings', case when v_body ? 'servings' and (v_entry.servings is null or v_entry.favorite_id is not null)
                     then 'can change only for entries made from a food or a meal'
                     else app.field_problem(v_body, 'servings', 'app.servings', false) end,
    'calories', case when v_body ? 'calories' and not v_manual then 'can change only on manual entries'
                     else app.field_problem(v_body, 'calories', 'app.kcal', false) end,
    'protein_g', case when v_body ? 'protein_g' and not v_manual then 'can change only on manual entries'
                      else app.field_problem(v_body, 'protein_g', 'app.grams', false) end,
    'carbs_g', case when v_body ? 'carbs_g' and not v_manual then 'can change only on manual entries'
                    else app.field_problem(v_body, 'carbs_g', 'app.grams', false) end,
    'fat_g', case when v_body ? 'fat_g' and not v_manual then 'can change only on manual entries'
                  else app.field_problem(v_body, 'fat_g', 'app.grams', false) end));
  if v_body ? 'servings' then
    v_scale := (v_body ->> 'servings')::numeric / v_entry.servings;
  end if;
  update app.food_entries
     set entry_date = coalesce((v_body ->> 'entry_date')::date, entry_date),
         meal_type = coalesce(v_body ->> 'meal_type', meal_type),
         name = coalesce(btrim(v_body ->> 'name'), name),
         servings = coalesce((v_body ->> 'servings')::numeric, servings),
         calories = coalesce((v_body ->> 'calories')::numeric, calories * v_scale),
         protein_g = coalesce((v_body ->> 'protein_g')::numeric, protein_g * v_scale),
         carbs_g = coalesce((v_body ->> 'carbs_g')::numeric, carbs_g * v_scale),
         fat_g = coalesce((v_body ->> 'fat_g')::numeric, fat_g * v_scale),
         updated_at = now()
   where user_id = v_user_id and id = v_entry.id
  returning * into v_entry;
  return app.entry_json(v_entry);
end
$$;

create or replace function api.entry_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_entry app.food_entries := app.find_entry(v_user_id, p_args);
begin
  delete from app.food_entries where user_id = v_user_id and id = v_entry.id;
  return null;
end
$$;

-- A user's diary totals for one day: the sums /nutrition/daily shows and the nutrition
-- adherence report compares with the target.
-- PL/pgSQL, not SQL: a SQL function that reads a table is planned anew on every call, and
-- this one runs on every /nutrition/daily and for every user-day of the adherence report.
create or replace function app.daily_totals(p_user_id uuid, p_date date)
returns jsonb
language plpgsql
stable
as $$
begin
  return (select jsonb_build_object('calories', coalesce(sum(e.calories), 0), 'protein_g', coalesce(sum(e.protein_g), 0),
                                    'carbs_g', coalesce(sum(e.carbs_g), 0), 'fat_g', coalesce(sum(e.fat_g), 0))
            from app.food_entries as e where e.user_id = p_user_id and e.entry_date = p_date);
end
$$;

grant execute on function app.daily_totals(uuid, date) to liftbase_api, liftbase_reporting_owner;

-- GET /nutrition/daily?date=: totals against the effective targets, what remains, per meal.
create or replace function api.nutrition_daily(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_date date := coalesce(app.date_parameter(p_args, 'date'), app.user_today(v_user_id));
  v_targets jsonb := app.effective_targets(v_user_id);
  v_totals jsonb := app.daily_totals(v_user_id, v_date);
begin
  return jsonb_build_object(
    'date', v_date,
    'totals', v_totals,
    'targets', case when v_targets is not null then jsonb_build_object(
      'calories', v_targets -> 'calories', 'protein_g', v_targets -> 'protein_g',
      'carbs_g', v_targets -> 'carbs_g', 'fat_g', v_targets -> 'fat_g') end,
    'remaining', case when v_targets is not null then jsonb_build_object(
      'calories', (v_targets ->> 'calories')::numeric - (v_totals ->> 'calories')::numeric,
      'protein_g', (v_targets ->> 'protein_g')::numeric - (v_totals ->> 'protein_g')::numeric,
      'carbs_g', (v_targets ->> 'carbs_g')::numeric - (v_totals ->> 'carbs_g')::numeric,
      'fat_g', (v_targets ->> 'fat_g')::numeric - (v_totals ->> 'fat_g')::numeric) end,
    'meals', (select jsonb_object_agg(m.meal, jsonb_build_object(
                       'calories', coalesce(t.calories, 0), 'protein_g', coalesce(t.protein_g, 0),
                       'carbs_g', coalesce(t.carbs_g, 0), 'fat_g', coalesce(t.fat_g, 0), 'entries', coalesce(t.entries, 0)))
                from unnest(array['breakfast', 'lunch', 'dinner', 'snack']) as m (meal)
                left join (select e.meal_type, sum(e.calories) as calories, sum(e.protein_g) as protein_g,
                                  sum(e.carbs_g) as carbs_g, sum(e.fat_g) as fat_g, count(*) as entries
                             from app.food_entries as e
                            where e.user_id = v_user_id and e.entry_date = v_date
                            group by e.meal_type) as t on t.meal_type = m.meal));
end
$$;

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

create or replace function api.favorites_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return jsonb_build_object('items', coalesce((select jsonb_agg(app.favorite_json(f) order by f.created_at desc)
                                                 from app.favorites as f where f.user_id = v_user_id), '[]'),
                            'next_cursor', null);
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
begin
  if v_body ? 'entry_id' then
    if app.is_uuid(v_body ->> 'entry_id') then
      select e.* into v_entry from app.food_entries as e where e.user_id = v_user_id and e.id = (v_body ->> 'entry_id')::uuid;
    end if;
    if v_entry.id is null then
      perform app.raise_if_invalid('{"entry_id": "is not one of your diary entries"}');
    end if;
  else
    perform app.raise_if_invalid(app.food_values_problems(v_body, '', true) || jsonb_build_object(
      'servings', app.field_problem(v_body, 'servings', 'app.servings', false),
      'food_item_id', case when v_body ->> 'food_item_id' is not null
                            and (not app.is_uuid(v_body ->> 'food_item_id')
                                 or (select f.id from app.find_food(v_user_id, (v_body ->> 'food_item_id')::uuid) as f) is null)
                           then 'is not a known food' end));
    select f.* into v_food from app.find_food(v_user_id, (v_body ->> 'food_item_id')::uuid) as f;
    v_entry.name := btrim(v_body ->> 'name');
    v_entry.calories := (v_body ->> 'calories')::numeric;
    v_entry.protein_g := (v_body ->> 'protein_g')::numeric;
    v_entry.carbs_g := (v_body ->> 'carbs_g')::numeric;
    v_entry.fat_g := (v_body ->> 'fat_g')::numeric;
    v_entry.servings := (v_body ->> 'servings')::numeric;
    v_entry.food_id := case when not v_food.is_user_food then v_food.id end;
    v_entry.user_food_id := case when v_food.is_user_food then v_food.id end;
  end if;
  insert into app.favorites (user_id, name, calories, protein_g, carbs_g, fat_g, food_id, user_food_id, servings)
  values (v_user_id, v_entry.name, v_entry.calories, v_entry.protein_g, v_entry.carbs_g, v_entry.fat_g,
          v_entry.food_id, v_entry.user_food_id, v_entry.servings)
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
  delete from app.favorites where user_id = v_user_id and app.is_uuid(p_args ->> 'id') and id = (p_args ->> 'id')::uuid;
  if not found then
    perform app.raise_error(404, 'favorite_not_found', 'No such favorite.');
  end if;
  return null;
end
$$;

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
    if v_item ? 'food_item_id' then
      select f.* into v_food from app.food_item_values(p_user_id, v_item, v_path) as f;
      v_problems := v_problems || v_food.problems;
      if v_food.problems = '{}' then
        insert into app.custom_meal_items (user_id, meal_id, position, name, food_id, user_food_id, portion_seq, servings,
                                           calories, protein_g, carbs_g, fat_g)
        values (p_user_id, p_meal_id, i, v_food.name, v_food.food_id, v_food.user_food_id, v_food.portion_seq,
                v_food.servings, v_food.calories, v_food.protein_g, v_food.carbs_g, v_food.fat_g);
      end if;
    else
      v_problems := v_problems || app.food_values_problems(v_item, v_path, true);
      if jsonb_strip_nulls(v_problems) = '{}' then
        insert into app.custom_meal_items (user_id, meal_id, position, name, calories, protein_g, carbs_g, fat_g)
        values (p_user_id, p_meal_id, i, btrim(v_item ->> 'name'), (v_item ->> 'calories')::numeric,
                (v_item ->> 'protein_g')::numeric, (v_item ->> 'carbs_g')::numeric, (v_item ->> 'fat_g')::numeric);
      end if;
    end if;
  end loop;
  perform app.raise_if_invalid(v_problems);
end
$$;
grant execute on function app.save_custom_meal_items(uuid, uuid, jsonb) to liftbase_api;

create or replace function api.custom_meals_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return jsonb_build_object('items', coalesce((select jsonb_agg(app.custom_meal_json(m) order by m.name)
                                                 from app.custom_meals as m where m.user_id = v_user_id), '[]'),
                            'next_cursor', null);
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
begin
  perform app.raise_if_invalid(jsonb_build_object('name', app.field_problem(v_body, 'name', 'app.food_name')));
  insert into app.custom_meals (user_id, name) values (v_user_id, btrim(v_body ->> 'name')) returning * into v_meal;
  perform app.save_custom_meal_items(v_user_id, v_meal.id, v_body -> 'items');
  return app.custom_meal_json(v_meal);
end
$$;

create or replace function app.find_custom_meal(p_user_id uuid, p_args jsonb)
returns app.custom_meals
language plpgsql
stable
as $$
declare
  v_meal app.custom_meals;
begin
  if app.is_uuid(p_args ->> 'id') then
    select m.* into v_meal from app.custom_meals as m where m.user_id = p_user_id and m.id = (p_args ->> 'id')::uuid;
  end if;
  if v_meal.id is null then
    perform app.raise_error(404, 'meal_not_found', 'No such meal.');
  end if;
  return v_meal;
end
$$;
grant execute on function app.find_custom_meal(uuid, jsonb) to liftbase_api;

create or replace function api.custom_meal_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_meal app.custom_meals := app.find_custom_meal(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
begin
  perform app.raise_if_invalid(jsonb_build_object('name', app.field_problem(v_body, 'name', 'app.food_name', false)));
  update app.custom_meals set name = coalesce(btrim(v_body ->> 'name'), name), updated_at = now()
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
  delete from app.custom_meals where user_id = v_user_id and id = v_meal.id;
  return null;
end
$$;
