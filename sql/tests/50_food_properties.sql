-- Food and diary properties (fixed seed, ≥ 100 random cases each), as the API role, on a
-- small fixture catalog:
--   1. auto-fill from a food equals its stored per-serving values;
--   2. servings scale all four macros linearly;
--   3. a favorite's snapshot equals the entry it came from;
--   4. logging from a favorite reproduces the snapshot exactly.
begin;
\ir support/helpers.psql
select plan(7);
select setseed(0.0451);

-- Fixture foods with portions (the catalog is reference data, written by importers).
insert into app.foods (id, source, source_id, name, food_group, barcode, energy_kcal, protein_g, fat_g, carbs_g,
                       serving_label, serving_g)
select md5('fixture:' || n)::uuid, 'off', 'fixture-' || n, 'Fixture food ' || n, 'Fixtures', lpad(n::text, 13, '0'),
       round((random() * 900)::numeric, 2), round((random() * 90)::numeric, 2), round((random() * 90)::numeric, 2),
       round((random() * 90)::numeric, 2), 'serving', round((5 + random() * 300)::numeric, 1)
  from generate_series(1, 40) as n;
insert into app.food_portions (food_id, seq, label, gram_weight)
select md5('fixture:' || n)::uuid, s, s || ' piece', round((1 + random() * 200)::numeric, 1)
  from generate_series(1, 40) as n, generate_series(1, 3) as s;

select pg_temp.sign_up('props', 'food-props@example.com', 'property test');

set local role liftbase_api;

create temporary table logged (n integer primary key, food_id uuid, portion integer, servings numeric,
                               food jsonb, entry jsonb, entry_one jsonb);
insert into logged (n, food_id, portion, servings)
select n, md5('fixture:' || (1 + floor(random() * 40)::integer))::uuid,
       case when random() < 0.5 then 1 + floor(random() * 3)::integer end,
       round((0.25 + random() * 5)::numeric, 2)
  from generate_series(1, 120) as n;
update logged set food = api.food_get((select token from tokens), null, jsonb_build_object('id', food_id));
update logged set
  entry_one = api.entry_create((select token from tokens),
    jsonb_build_object('food_item_id', food_id, 'source', 'search', 'entry_date', '2026-02-01'), '{}'),
  entry = api.entry_create((select token from tokens),
    jsonb_strip_nulls(jsonb_build_object('food_item_id', food_id, 'portion_id', portion, 'servings', servings,
                                         'source', 'search', 'entry_date', '2026-02-02')), '{}');

select is((select count(*)::integer from logged
            where (entry_one ->> 'calories')::numeric <> (food -> 'per_serving' ->> 'calories')::numeric
               or (entry_one ->> 'protein_g')::numeric <> (food -> 'per_serving' ->> 'protein_g')::numeric
               or (entry_one ->> 'carbs_g')::numeric <> (food -> 'per_serving' ->> 'carbs_g')::numeric
               or (entry_one ->> 'fat_g')::numeric <> (food -> 'per_serving' ->> 'fat_g')::numeric), 0,
  'auto-fill from a food equals its per-serving values (120 cases)');

-- Per serving of the chosen portion (or the default serving), times servings.
select is((select count(*)::integer from logged as l
            cross join lateral (select coalesce((select (p ->> 'grams')::numeric from jsonb_array_elements(l.food -> 'portions') as p
                                                  where (p ->> 'id')::integer = l.portion),
                                                (l.food -> 'serving' ->> 'grams')::numeric) as grams) as g
            where (l.entry ->> 'calories')::numeric <> (l.food -> 'per_100g' ->> 'calories')::numeric * g.grams / 100 * l.servings
               or (l.entry ->> 'protein_g')::numeric <> (l.food -> 'per_100g' ->> 'protein_g')::numeric * g.grams / 100 * l.servings
               or (l.entry ->> 'carbs_g')::numeric <> (l.food -> 'per_100g' ->> 'carbs_g')::numeric * g.grams / 100 * l.servings
               or (l.entry ->> 'fat_g')::numeric <> (l.food -> 'per_100g' ->> 'fat_g')::numeric * g.grams / 100 * l.servings), 0,
  'servings (and portions) scale all four macros linearly (120 cases)');

-- Favorites from entries, and logging from favorites.
create temporary table favorites as
select n, entry, api.favorite_create((select token from tokens), jsonb_build_object('entry_id', entry ->> 'id'), '{}') as favorite
  from logged;
select is((select count(*)::integer from favorites
            where favorite ->> 'name' <> entry ->> 'name'
               or (favorite ->> 'calories')::numeric <> (entry ->> 'calories')::numeric
               or (favorite ->> 'protein_g')::numeric <> (entry ->> 'protein_g')::numeric
               or (favorite ->> 'carbs_g')::numeric <> (entry ->> 'carbs_g')::numeric
               or (favorite ->> 'fat_g')::numeric <> (entry ->> 'fat_g')::numeric), 0,
  'a favorite''s snapshot equals the entry it came from (120 cases)');

-- The food changes afterwards: favorites keep their snapshot.
reset role;
update app.foods set energy_kcal = energy_kcal + 100, protein_g = protein_g + 1 where source_id like 'fixture-%';
set local role liftbase_api;
-- A favorite is logged as it was saved: servings beside it are refused, not ignored.
select throws_ok(format('select api.entry_create(%L, %L, ''{}'')', (select token from tokens),
                        jsonb_build_object('favorite_id', (select favorite ->> 'id' from favorites where n = 1),
                                           'source', 'favorite', 'servings', 3)),
  'LB422', 'Some fields are invalid.', 'servings beside a favorite are refused: it is logged as it was saved');
create temporary table from_favorites as
select n, favorite, api.entry_create((select token from tokens),
         jsonb_build_object('favorite_id', favorite ->> 'id', 'source', 'favorite'), '{}') as entry
  from favorites;
select is((select count(*)::integer from from_favorites
            where entry ->> 'name' <> favorite ->> 'name'
               or (entry ->> 'calories')::numeric <> (favorite ->> 'calories')::numeric
               or (entry ->> 'protein_g')::numeric <> (favorite ->> 'protein_g')::numeric
               or (entry ->> 'carbs_g')::numeric <> (favorite ->> 'carbs_g')::numeric
               or (entry ->> 'fat_g')::numeric <> (favorite ->> 'fat_g')::numeric), 0,
  'logging from a favorite reproduces its snapshot exactly, after the food changed (120 cases)');
select is((select count(*)::integer from favorites as f
            where (api.food_get((select token from tokens), null, jsonb_build_object('id', f.entry ->> 'food_item_id'))
                    -> 'per_100g' ->> 'calories')::numeric
                  = (select (l.food -> 'per_100g' ->> 'calories')::numeric from logged as l where l.n = f.n)), 0,
  'while the food itself did change');

-- Editing servings rescales linearly too.
create temporary table rescaled as
select n, servings, entry, api.entry_update((select token from tokens), jsonb_build_object('servings', servings * 2),
                                            jsonb_build_object('id', entry ->> 'id')) as edited
  from logged where n <= 100;
select is((select count(*)::integer from rescaled
            where (edited ->> 'calories')::numeric <> (entry ->> 'calories')::numeric * 2
               or (edited ->> 'fat_g')::numeric <> (entry ->> 'fat_g')::numeric * 2), 0,
  'doubling servings doubles the macros (100 cases)');

select * from finish();
rollback;
