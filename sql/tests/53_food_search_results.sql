-- Remembered catalog pages of food search (0018, app.catalog_food_search): a page is
-- served again while the catalog is unchanged and for an hour; any change of foods or
-- portions, in any importer, makes the next search rank afresh; what is the user's own
-- (own foods, logged foods) is never shared through a page; expired pages are pruned.
begin;
\ir support/helpers.psql
select plan(19);

insert into app.foods (id, source, source_id, name, food_group, energy_kcal, protein_g, fat_g, carbs_g, serving_label, serving_g)
values
  (md5('q:1')::uuid, 'off', 'q1', 'Quillfruit, raw', 'Fruits', 61, 1.1, 0.5, 14.7, '1 fruit', 76),
  (md5('q:2')::uuid, 'off', 'q2', 'Quillfruit juice, canned', 'Beverages', 50, 0.3, 0.1, 12, '1 cup', 248),
  (md5('q:3')::uuid, 'off', 'q3', 'Dried quillfruit', 'Fruits', 290, 2.8, 1.2, 70, '100 g', 100);

select pg_temp.sign_up('a', 'cache-a@example.com', 'cache a password');
select pg_temp.sign_up('b', 'cache-b@example.com', 'cache b password');

create function pg_temp.search(p_token_name text, p_args jsonb) returns jsonb language plpgsql as $$
begin
  -- Each HTTP request starts without a user: so must each call here.
  perform set_config('liftbase.user_id', '', true);
  return api.food_search((select token from tokens where name = p_token_name), null, p_args)::jsonb;
end $$;
create function pg_temp.page(p_query text, p_size integer) returns app.food_search_results
language sql as $$ select r from app.food_search_results as r where r.query = p_query and r.page_size = p_size $$;
grant execute on function pg_temp.search(text, jsonb), pg_temp.names(jsonb) to liftbase_api;

-- Remembered, and served again ---------------------------------------------------------------------
set local role liftbase_api;
create temporary table first_page as select pg_temp.search('a', '{"q": "quillfruit"}') as page;
reset role;
select is((pg_temp.page('quillfruit', 20)).names, array['Quillfruit, raw', 'Quillfruit juice, canned', 'Dried quillfruit'],
  'a search remembers the catalog''s page, best first');
select is((pg_temp.page('quillfruit', 20)).catalog_version, (select version from app.food_catalog_version),
  'under the catalog''s current version');

-- Mark the remembered page: a second search that returns the mark was served from it.
update app.food_search_results set items[1] = json_build_object('name', 'marked'), names[1] = 'marked'
 where query = 'quillfruit';
set local role liftbase_api;
select is((pg_temp.names(pg_temp.search('b', '{"q": "quillfruit"}')))[1], 'marked',
  'the next search, by any user, is served from the remembered page');
reset role;

-- Any change of the catalog ranks afresh -----------------------------------------------------------
insert into app.foods (id, source, source_id, name, energy_kcal, serving_label, serving_g)
values (md5('q:4')::uuid, 'fdc', 'q4', 'Quillfruit', 60, '100 g', 100);
set local role liftbase_api;
select is(pg_temp.names(pg_temp.search('b', '{"q": "quillfruit"}')),
          array['Quillfruit', 'Quillfruit, raw', 'Quillfruit juice, canned', 'Dried quillfruit'],
  'a new food is found at once: the remembered page was not served');
reset role;
insert into app.food_portions (food_id, seq, label, gram_weight) values (md5('q:1')::uuid, 1, '1 cup, sliced', 165);
set local role liftbase_api;
select is(pg_temp.search('b', '{"q": "quillfruit"}') -> 'items' -> 1 -> 'portions',
          '[{"id": 1, "label": "1 cup, sliced", "grams": 165}]'::jsonb,
  'a new portion is shown at once');
reset role;
update app.foods set energy_kcal = 64 where id = md5('q:1')::uuid;
set local role liftbase_api;
select is(pg_temp.search('b', '{"q": "quillfruit"}') -> 'items' -> 1 -> 'per_100g' -> 'calories', '64'::jsonb,
  'an edited food is shown as edited');
reset role;
delete from app.foods where id = md5('q:4')::uuid;
set local role liftbase_api;
select is((pg_temp.names(pg_temp.search('b', '{"q": "quillfruit"}')))[1], 'Quillfruit, raw', 'a deleted food is gone');

-- The user's own part is never shared --------------------------------------------------------------
select set_config('liftbase.user_id', '', true);
select api.food_create((select token from tokens where name = 'a'), '{"name": "Quillfruit jam", "calories": 250}', '{}');
select ok(pg_temp.names(pg_temp.search('a', '{"q": "quillfruit"}')) @> array['Quillfruit jam'],
  'the owner finds their own food beside the remembered catalog page');
select ok(not pg_temp.names(pg_temp.search('b', '{"q": "quillfruit"}')) @> array['Quillfruit jam'],
  'another user served the same page does not');
select set_config('liftbase.user_id', '', true);
select api.entry_create((select token from tokens where name = 'b'),
                        jsonb_build_object('food_item_id', md5('q:2')::uuid, 'source', 'search'), '{}');
select is((pg_temp.names(pg_temp.search('b', '{"q": "quillfruit"}')))[1], 'Quillfruit juice, canned',
  'a food the user logged leads its tier for them');
select ok(array_position(pg_temp.names(pg_temp.search('a', '{"q": "quillfruit"}')), 'Quillfruit juice, canned')
          > array_position(pg_temp.names(pg_temp.search('a', '{"q": "quillfruit"}')), 'Quillfruit, raw'),
  'and only for them');
-- A page of one: the catalog's best is the raw fruit; b's logged juice is not on that page
-- but leads the same tier for b, so it is ranked in from the catalog.
select is(pg_temp.names(pg_temp.search('b', '{"q": "quillfruit", "limit": "1"}')), array['Quillfruit juice, canned'],
  'a logged food below the remembered page''s cut still leads its tier for its user');
select ok(not pg_temp.names(pg_temp.search('a', '{"q": "quillfruit", "limit": "1"}')) @> array['Quillfruit juice, canned'],
  'and not for another');
reset role;
select is((pg_temp.page('quillfruit', 1)).names, array['Quillfruit, raw'],
  'each page size is remembered on its own, ranked for no one in particular');
set local role liftbase_api;
-- Own foods match by the same rule as catalog foods: by name and brand.
select set_config('liftbase.user_id', '', true);
select api.food_create((select token from tokens where name = 'a'),
                       '{"name": "Morning jar", "brand": "Vellmoor Farms", "calories": 120}', '{}');
select is(pg_temp.names(pg_temp.search('a', '{"q": "vellmoor"}')), array['Morning jar'],
  'an own food is found by its brand, like a catalog food');
reset role;

-- An hour long ------------------------------------------------------------------------------------
update app.food_search_results set created_at = now() - interval '2 hours', names[1] = 'expired'
 where query = 'quillfruit' and page_size = 20;
insert into app.food_search_results (query, page_size, catalog_version, created_at, food_ids, tiers, scores, names, items)
select 'old query ' || n, 20, 1, now() - interval '3 hours', '{}', '{}', '{}', '{}', '{}' from generate_series(1, 15) as n;
set local role liftbase_api;
select pg_temp.search('b', '{"q": "quillfruit"}');
reset role;
select is((pg_temp.page('quillfruit', 20)).names[1], 'Quillfruit, raw', 'an expired page is ranked afresh');
select is((select count(*)::integer from app.food_search_results where created_at <= now() - interval '1 hour'), 5,
  'each new page removes up to ten expired ones');

-- A query too long for the cache's key is answered, not remembered.
set local role liftbase_api;
select is(json_array_length(api.food_search((select token from tokens where name = 'b'), null,
                                            jsonb_build_object('q', 'quillfruit ' || repeat('x', 3000))) -> 'items'),
          3, 'a 3,000-character query is answered: the three foods of its one known word');
reset role;
select is((select count(*)::integer from app.food_search_results where length(query) > 200), 0,
  'and not remembered');

select * from finish();
rollback;
