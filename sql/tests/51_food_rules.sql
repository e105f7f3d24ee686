-- Search ranking and typo tolerance, barcodes, isolation, idempotent client_id, manual
-- entries, daily totals and custom meals, as the API role, on fixture foods.
begin;
\ir support/helpers.psql
select plan(31);

insert into app.foods (id, source, source_id, name, food_group, barcode, energy_kcal, protein_g, fat_g, carbs_g, serving_label, serving_g)
values
  (md5('t:1')::uuid, 'off', 't1', 'Bananas, raw', 'Fruits', null, 89, 1.09, 0.33, 22.84, '1 medium', 118),
  (md5('t:2')::uuid, 'off', 't2', 'Banana bread', 'Baked products', null, 326, 4.3, 10.5, 54.6, '1 slice', 60),
  (md5('t:3')::uuid, 'off', 't3', 'Pepper, banana, raw', 'Vegetables', null, 27, 1.66, 0.45, 5.35, '1 pepper', 33),
  (md5('t:4')::uuid, 'off', 't4', 'Bananas', 'Fruits', '0000000000017', 90, 1.1, 0.3, 23, '100 g', 100),
  (md5('t:5')::uuid, 'off', 't5', 'Zorblax bar, roasted', 'Snacks', '4006381333931', 165, 31, 3.6, 0, '1 breast', 140),
  (md5('t:6')::uuid, 'off', 't6', 'Crunchy zorblax bar, raw', 'Snacks', null, 120, 22.5, 2.6, 0, '100 g', 100),
  (md5('t:7')::uuid, 'off', 't7', 'Zorblax, smoked, bar pieces', 'Snacks', null, 260, 25, 13, 9, '100 g', 100),
  (md5('t:8')::uuid, 'off', 't8', 'Soup, zorblax bar noodle', 'Soups', null, 60, 3, 2, 7, '1 cup', 240);

select pg_temp.sign_up('a', 'food-a@example.com', 'food a password');
select pg_temp.sign_up('b', 'food-b@example.com', 'food b password');

set local role liftbase_api;

-- Search ---------------------------------------------------------------------------------------------
select is((pg_temp.names(pg_temp.call('food_search', 'a', null, '{"q": "bananas"}')))[1:2], array['Bananas', 'Bananas, raw'],
  'an exact name ranks first, then names that start with the query');
select ok(pg_temp.names(pg_temp.call('food_search', 'a', null, '{"q": "bananna"}')) @> array['Bananas, raw'],
  'a typo still finds bananas');
select is((pg_temp.names(pg_temp.call('food_search', 'a', null, '{"q": "zorblax bar"}')))[1], 'Zorblax bar, roasted',
  'a prefix match ranks above a word match');
-- Among the foods that match "zorblax bar" by words only (not as a prefix), log the
-- second for user a: it then leads that tier for a, and only for a.
create function pg_temp.word_matches(p_page jsonb) returns text[]
language sql immutable as $$
  select array(select i ->> 'id' from jsonb_array_elements(p_page -> 'items') with ordinality as x (i, n)
                where lower(i ->> 'name') not like 'zorblax bar%' order by n)
$$;
create temporary table second_match as
select (pg_temp.word_matches(pg_temp.call('food_search', 'b', null, '{"q": "zorblax bar", "limit": "100"}')))[2] as id;
select isnt((select id from second_match), null, 'the query has at least two word matches');
select pg_temp.call('entry_create', 'a', jsonb_build_object('food_item_id', (select id from second_match), 'source', 'search'));
select is((pg_temp.word_matches(pg_temp.call('food_search', 'a', null, '{"q": "zorblax bar", "limit": "100"}')))[1],
  (select id from second_match), 'a logged food ranks first within its tier');
select is((pg_temp.word_matches(pg_temp.call('food_search', 'b', null, '{"q": "zorblax bar", "limit": "100"}')))[2],
  (select id from second_match), 'another user''s history does not change the ranking');
select is(pg_temp.error_of('food_search', 'a', null, '{"q": "b"}') ->> 'code', 'query_too_short', 'q shorter than 2 is 422');
select ok(pg_temp.call('food_search', 'a', null, '{"q": "bananas"}') -> 'items' -> 0 ? 'per_serving',
  'results carry per-serving values');
create temporary table own as select pg_temp.call('food_create', 'a',
  '{"name": "Grandma''s banana muffin", "barcode": "12345678", "calories": 400, "protein_g": 6, "carbs_g": 50, "fat_g": 18, "serving_g": 80}') as food;
select ok(pg_temp.names(pg_temp.call('food_search', 'a', null, '{"q": "banana muffin"}')) @> array['Grandma''s banana muffin'],
  'the owner finds an own food');
select ok(not pg_temp.names(pg_temp.call('food_search', 'b', null, '{"q": "banana muffin"}')) @> array['Grandma''s banana muffin'],
  'nobody else does');

-- Barcodes ---------------------------------------------------------------------------------------------
select is(pg_temp.call('food_barcode', 'a', null, '{"code": "4006381333931"}') ->> 'name', 'Zorblax bar, roasted', 'a catalog barcode');
select is(pg_temp.call('food_barcode', 'a', null, '{"code": "12345678"}') ->> 'name', 'Grandma''s banana muffin', 'an own food''s barcode');
select is(pg_temp.error_of('food_barcode', 'b', null, '{"code": "12345678"}') ->> 'code', 'food_not_found', 'is 404 for others');

-- Diary ---------------------------------------------------------------------------------------------
select is(pg_temp.error_of('entry_create', 'a', '{"name": "Mystery", "calories": -5, "fat_g": -1, "source": "manual"}') -> 'fields',
  '{"calories": "must be between 0 and 20000", "fat_g": "must be between 0 and 5000"}', 'manual values must not be negative');
select is(pg_temp.error_of('entry_create', 'a', '{"source": "telepathy", "calories": 10}') -> 'fields',
  '{"source": "must be one of manual, search, barcode, favorite, ai, import", "name": "is required"}', 'source and name are checked');
select is((pg_temp.call('entry_create', 'a', '{"client_id": "7d7b6b86-3c44-4a4c-9e5a-0d0e7f5bd3a1", "name": "Oats", "calories": 380,
    "protein_g": 13, "carbs_g": 60, "fat_g": 7, "source": "manual", "meal_type": "breakfast", "entry_date": "2026-04-01"}') ->> 'id') =
  (pg_temp.call('entry_create', 'a', '{"client_id": "7d7b6b86-3c44-4a4c-9e5a-0d0e7f5bd3a1", "name": "Oats", "calories": 380,
    "source": "manual", "entry_date": "2026-04-01"}') ->> 'id'), true, 'a repeated client_id returns the first entry');
select is(jsonb_array_length(pg_temp.call('entries_list', 'a', null, '{"date": "2026-04-01"}') -> 'items'), 1, 'and adds nothing');
select is(pg_temp.call('entry_create', 'a', jsonb_build_object('food_item_id', md5('t:1')::uuid, 'servings', 2, 'meal_type', 'breakfast',
    'source', 'barcode', 'barcode', '0000000000017', 'entry_date', '2026-04-01')) ->> 'barcode', '0000000000017', 'source and barcode are stored');
select is(pg_temp.call('nutrition_daily', 'a', null, '{"date": "2026-04-01"}') -> 'totals',
  jsonb_build_object('calories', 380 + 89 * 1.18 * 2, 'protein_g', 13 + 1.09 * 1.18 * 2, 'carbs_g', 60 + 22.84 * 1.18 * 2, 'fat_g', 7 + 0.33 * 1.18 * 2),
  'daily totals add the day''s entries');
select is(pg_temp.call('nutrition_daily', 'a', null, '{"date": "2026-04-01"}') -> 'meals' -> 'breakfast' ->> 'entries', '2', 'per meal');
select is(pg_temp.call('nutrition_daily', 'a', null, '{"date": "2026-04-01"}') ->> 'targets', null, 'no targets before onboarding');

-- Custom meals and isolation ----------------------------------------------------------------------------
create temporary table meals as select pg_temp.call('custom_meal_create', 'a', jsonb_build_object('name', 'Banana oats',
  'items', jsonb_build_array(jsonb_build_object('food_item_id', md5('t:1')::uuid, 'servings', 1),
                             '{"name": "Oats", "calories": 190, "protein_g": 6.5, "carbs_g": 30, "fat_g": 3.5}'::jsonb))) as meal;
select is((select meal -> 'totals' from meals),
  jsonb_build_object('calories', 89 * 1.18 + 190, 'protein_g', 1.09 * 1.18 + 6.5, 'carbs_g', 22.84 * 1.18 + 30, 'fat_g', 0.33 * 1.18 + 3.5),
  'a custom meal''s totals are computed from its items');
select is((pg_temp.call('entry_create', 'a', jsonb_build_object('custom_meal_id', (select meal ->> 'id' from meals), 'servings', 2,
    'source', 'manual')) ->> 'calories')::numeric, (89 * 1.18 + 190) * 2, 'logging a meal scales its totals');
select is(pg_temp.error_of('entry_create', 'b', jsonb_build_object('custom_meal_id', (select meal ->> 'id' from meals), 'source', 'manual')) -> 'fields',
  '{"custom_meal_id": "is not one of your meals"}', 'another user cannot log it');
select is(pg_temp.error_of('entry_delete', 'b', null,
    jsonb_build_object('id', (pg_temp.call('entries_list', 'a', null, '{"date": "2026-04-01"}') -> 'items' -> 0 ->> 'id'))) ->> 'code',
  'entry_not_found', 'nor delete another user''s entry (404)');

select is(pg_temp.error_of('food_get', 'b', null, jsonb_build_object('id', (select food ->> 'id' from own))) ->> 'code',
  'food_not_found', 'another user''s own food is 404');
create temporary table favs as select pg_temp.call('favorite_create', 'a',
  '{"name": "Usual coffee", "calories": 40, "protein_g": 2, "carbs_g": 4, "fat_g": 1.5}') as favorite;
select is(jsonb_array_length(pg_temp.call('favorites_list', 'a', null) -> 'items'), 1, 'the owner lists the favorite');
select is(jsonb_array_length(pg_temp.call('favorites_list', 'b', null) -> 'items'), 0, 'another user''s favorites are not listed');
select is(pg_temp.error_of('favorite_delete', 'b', null, jsonb_build_object('id', (select favorite ->> 'id' from favs))) ->> 'code',
  'favorite_not_found', 'nor deletable (404)');
select is(pg_temp.error_of('entry_create', 'b', jsonb_build_object('favorite_id', (select favorite ->> 'id' from favs), 'source', 'favorite')) -> 'fields',
  '{"favorite_id": "is not one of your favorites"}', 'nor loggable');
select is(pg_temp.error_of('favorite_create', 'a', '{"entry_id": "00000000-0000-4000-8000-000000000000", "calories": 40}')
            -> 'fields',
  '{"calories": "is not taken with entry_id: the favorite is the entry''s snapshot"}',
  'values beside an entry_id are refused, not dropped');

select * from finish();
rollback;
