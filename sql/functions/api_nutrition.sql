-- /nutrition/*: the food diary and daily totals.

-- POST /nutrition/entries. From a food: per-serving × servings; from a favorite: exactly
-- its snapshot; from a custom meal: its totals × servings; else manual values. A repeated
-- client_id returns the first entry (200, app.replayed_key).
create or replace function api.entry_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_replayed text;
  v_entry app.food_entries;
  v_food record;
  v_favorite app.favorites;
  v_meal jsonb;
  v_problems jsonb;
begin
  v_replayed := app.replayed_key('app.food_entries', v_user_id, v_body);
  if v_replayed is not null then
    return app.entry_json(app.find_entry(v_user_id, jsonb_build_object('id', v_replayed)));
  end if;
  v_problems := jsonb_build_object(
    'entry_date', app.field_problem(v_body, 'entry_date', 'app.calendar_date', false),
    'meal_type', app.field_problem(v_body, 'meal_type', 'app.meal_type', false),
    'source', app.field_problem(v_body, 'source', 'app.entry_source'),
    'barcode', app.field_problem(v_body, 'barcode', 'app.barcode', false),
    'name', app.field_problem(v_body, 'name', 'app.food_name', false),
    'servings', app.field_problem(v_body, 'servings', 'app.servings', false),
    'portion_id', app.field_problem(v_body, 'portion_id', 'integer', false));
  -- A member the way of logging does not read is refused, never dropped: a portion is a
  -- food's, and a favorite is logged as it was saved.
  if v_body ->> 'food_item_id' is null and v_body ->> 'portion_id' is not null then
    v_problems := v_problems || '{"portion_id": "is taken only with food_item_id"}';
  end if;
  if v_body ->> 'favorite_id' is not null and v_body ->> 'servings' is not null then
    v_problems := v_problems || '{"servings": "is not taken with favorite_id: a favorite is logged as it was saved"}';
  end if;
  v_entry.user_id := v_user_id;

  if v_body ->> 'favorite_id' is not null then
    if app.input_problem(v_body -> 'favorite_id', 'uuid') is null then
      select f.* into v_favorite from app.favorites as f
       where f.user_id = v_user_id and f.id = app.read_uuid(v_body, 'favorite_id');
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
    if app.input_problem(v_body -> 'custom_meal_id', 'uuid') is null then
      select app.custom_meal_json(row(m.*)::app.custom_meals) into v_meal from app.custom_meals as m
       where m.user_id = v_user_id and m.id = app.read_uuid(v_body, 'custom_meal_id');
    end if;
    if v_meal is null then
      v_problems := v_problems || '{"custom_meal_id": "is not one of your meals"}';
    elsif app.field_problem(v_body, 'servings', 'app.servings', false) is null then
      v_entry.servings := coalesce(app.read_number(v_body, 'servings'), 1);
      v_entry.name := v_meal ->> 'name';
      v_entry.calories := (v_meal -> 'totals' ->> 'calories')::numeric * v_entry.servings;
      v_entry.protein_g := (v_meal -> 'totals' ->> 'protein_g')::numeric * v_entry.servings;
      v_entry.carbs_g := (v_meal -> 'totals' ->> 'carbs_g')::numeric * v_entry.servings;
      v_entry.fat_g := (v_meal -> 'totals' ->> 'fat_g')::numeric * v_entry.servings;
      v_entry.custom_meal_id := app.read_uuid(v_body, 'custom_meal_id');
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
      -- Kept as given: the values are what was eaten, servings says of how many.
      v_entry.servings := app.read_number(v_body, 'servings');
      v_entry.calories := app.read_number(v_body, 'calories');
      v_entry.protein_g := coalesce(app.read_number(v_body, 'protein_g'), 0);
      v_entry.carbs_g := coalesce(app.read_number(v_body, 'carbs_g'), 0);
      v_entry.fat_g := coalesce(app.read_number(v_body, 'fat_g'), 0);
    end if;
  end if;
  perform app.raise_if_invalid(v_problems);

  v_entry.client_id := app.read_uuid(v_body, 'client_id');
  v_entry.entry_date := coalesce(app.read_date(v_body, 'entry_date'), app.user_today(v_user_id));
  v_entry.meal_type := app.read_text(v_body, 'meal_type');
  v_entry.name := coalesce(btrim(app.read_text(v_body, 'name')), v_entry.name);
  v_entry.source := app.read_text(v_body, 'source');
  v_entry.barcode := coalesce(app.read_text(v_body, 'barcode'), v_entry.barcode);
  select e.* into v_entry from app.write_food_entries(v_user_id, array[v_entry]) as e;
  return app.entry_json(v_entry);
end
$$;

-- GET /nutrition/entries?date= (one day) or ?from=&to= (app.date_range_parameter: without
-- to, today in the user's zone; without from, the day of `to`), at most a year, by day and
-- then as logged, paged by ?limit=&cursor=.
create or replace function api.entries_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_day date := app.date_parameter(p_args, 'date');
  v_range record := app.date_range_within(case when v_day is null then p_args
                                               else jsonb_build_object('from', v_day, 'to', v_day) end, v_user_id, 0, 366);
  v_page record := app.page_parameters(p_args, 'uuid');
  v_after app.food_entries;
begin
  if v_page.cursor_uuid is not null then
    select e.* into v_after from app.food_entries as e where e.user_id = v_user_id and e.id = v_page.cursor_uuid;
    if v_after.id is null then
      perform app.raise_unknown_cursor();
    end if;
  end if;
  return app.page(coalesce((
    select jsonb_agg(app.entry_json(row(e.*)::app.food_entries) order by e.entry_date, e.created_at, e.id)
      from (select * from app.food_entries as x
             where x.user_id = v_user_id and x.entry_date between v_range.from_date and v_range.to_date
               and (v_after.id is null
                    or (x.entry_date, x.created_at, x.id) > (v_after.entry_date, v_after.created_at, v_after.id))
             order by x.entry_date, x.created_at, x.id
             limit v_page.page_size + 1) as e), '[]'), v_page.page_size);
end
$$;

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
  -- The body's values are read before the update: Citus refuses calls that are not
  -- immutable inside a write's coalesce; the columns stay the fallback, read at the write.
  v_entry_date date;
  v_meal_type text;
  v_name text;
  v_servings numeric;
  v_calories numeric;
  v_protein_g numeric;
  v_carbs_g numeric;
  v_fat_g numeric;
  v_now timestamptz := now();
begin
  perform app.check_if_match(v_user_id, 'diary_entry', v_entry.id::text, p_args);
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
  v_servings := app.read_number(v_body, 'servings');
  if v_servings is not null then
    v_scale := v_servings / v_entry.servings;
  end if;
  v_entry_date := app.read_date(v_body, 'entry_date');
  v_meal_type := app.read_text(v_body, 'meal_type');
  v_name := btrim(app.read_text(v_body, 'name'));
  v_calories := app.read_number(v_body, 'calories');
  v_protein_g := app.read_number(v_body, 'protein_g');
  v_carbs_g := app.read_number(v_body, 'carbs_g');
  v_fat_g := app.read_number(v_body, 'fat_g');
  update app.food_entries
     set entry_date = coalesce(v_entry_date, entry_date),
         meal_type = coalesce(v_meal_type, meal_type),
         name = coalesce(v_name, name),
         servings = coalesce(v_servings, servings),
         calories = coalesce(v_calories, calories * v_scale),
         protein_g = coalesce(v_protein_g, protein_g * v_scale),
         carbs_g = coalesce(v_carbs_g, carbs_g * v_scale),
         fat_g = coalesce(v_fat_g, fat_g * v_scale),
         updated_at = v_now
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
  perform app.check_if_match(v_user_id, 'diary_entry', v_entry.id::text, p_args);
  delete from app.food_entries where user_id = v_user_id and id = v_entry.id;
  return null;
end
$$;

-- GET /nutrition/daily?date=: totals against the effective targets, what remains, per meal.
create or replace function api.nutrition_daily(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_date date := coalesce(app.date_parameter(p_args, 'date'), app.user_today(v_user_id));
  v_targets jsonb;
  v_totals jsonb;
begin
  -- The day's totals and the targets are the user's rows: the user's change counter and the
  -- day (a default day moves at midnight) version the answer.
  if app.not_modified(p_args, app.etag(format('u%s-%s', app.user_version(v_user_id), v_date))) then
    return null;
  end if;
  v_targets := app.effective_targets(v_user_id);
  v_totals := app.daily_totals(v_user_id, v_date);
  return jsonb_build_object(
    'date', v_date,
    'totals', v_totals,
    'water', app.water_day_totals(v_user_id, v_date),
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

-- POST /nutrition/water {amount_ml, recorded_at?, entry_date?, source?, client_id?}: a drink.
-- It counts on entry_date, by default the local date of recorded_at in the account's zone.
create or replace function api.water_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_entry app.water_entries;
  v_replayed text;
  -- Read before the insert: Citus takes no call of a stable function in the values of a
  -- write sent to the user's worker.
  v_client_id uuid;
  v_recorded_at timestamptz;
  v_entry_date date;
  v_amount numeric;
  v_source text;
begin
  v_replayed := app.replayed_key('app.water_entries', v_user_id, v_body);
  if v_replayed is not null then
    return app.water_entry_json(app.find_water_entry(v_user_id, jsonb_build_object('id', v_replayed)));
  end if;
  perform app.raise_if_invalid(app.water_entry_problems(v_body, true));
  v_client_id := app.read_uuid(v_body, 'client_id');
  v_recorded_at := coalesce(app.read_timestamp(v_body, 'recorded_at'), now());
  v_entry_date := coalesce(app.read_date(v_body, 'entry_date'),
                           (v_recorded_at at time zone app.user_timezone(v_user_id))::date);
  v_amount := app.read_number(v_body, 'amount_ml');
  v_source := coalesce(app.read_text(v_body, 'source'), 'manual');
  insert into app.water_entries (user_id, client_id, entry_date, recorded_at, amount_ml, source)
  values (v_user_id, v_client_id, v_entry_date, v_recorded_at, v_amount, v_source)
  returning * into v_entry;
  return app.water_entry_json(v_entry);
end
$$;

-- GET /nutrition/water?date=: a day's water (default today) with its entries in the order
-- they were drunk.
create or replace function api.water_day(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_date date := coalesce(app.date_parameter(p_args, 'date'), app.user_today(v_user_id));
begin
  return jsonb_build_object('date', v_date) || app.water_day_totals(v_user_id, v_date) || jsonb_build_object(
    'items', coalesce((select jsonb_agg(app.water_entry_json(row(w.*)::app.water_entries) order by w.recorded_at, w.id)
                         from app.water_entries as w where w.user_id = v_user_id and w.entry_date = v_date), '[]'));
end
$$;

-- PATCH /nutrition/water/{id} {amount_ml?, recorded_at?, entry_date?, source?}. A new
-- recorded_at without entry_date keeps the entry's day.
create or replace function api.water_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_entry app.water_entries := app.find_water_entry(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
  -- Read before the update: Citus takes no call of a stable function inside a write's coalesce.
  v_amount numeric;
  v_recorded_at timestamptz;
  v_entry_date date;
  v_source text;
begin
  perform app.check_if_match(v_user_id, 'water_entry', v_entry.id::text, p_args);
  perform app.raise_if_invalid(app.water_entry_problems(v_body, false));
  v_amount := app.read_number(v_body, 'amount_ml');
  v_recorded_at := app.read_timestamp(v_body, 'recorded_at');
  v_entry_date := app.read_date(v_body, 'entry_date');
  v_source := app.read_text(v_body, 'source');
  update app.water_entries
     set amount_ml = coalesce(v_amount, amount_ml),
         recorded_at = coalesce(v_recorded_at, recorded_at),
         entry_date = coalesce(v_entry_date, entry_date),
         source = coalesce(v_source, source),
         updated_at = now()
   where user_id = v_user_id and id = v_entry.id
  returning * into v_entry;
  return app.water_entry_json(v_entry);
end
$$;

create or replace function api.water_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_entry app.water_entries := app.find_water_entry(v_user_id, p_args);
begin
  perform app.check_if_match(v_user_id, 'water_entry', v_entry.id::text, p_args);
  delete from app.water_entries where user_id = v_user_id and id = v_entry.id;
  return null;
end
$$;
