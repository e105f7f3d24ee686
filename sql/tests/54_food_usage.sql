-- The foods each user logged (app.food_usage, migration 0020), which food search reads
-- instead of the diary, are what the diary says whatever writes it.
-- Property (seed 0.2020, 160 random operations on two users' diaries): after every
-- operation, each user's rows are exactly their diary entries counted by food (the API's
-- food_item_id: the catalog food, else the own food), with a catalog food's current name. The
-- operations: entries created, edited and deleted through the API (as the API role), edits
-- that change an entry's food and imports (the Liftbase importer's diary section, a
-- Cronometer file), as the user; an own food deleted by its user (its entries lose it), and
-- catalog foods added, renamed and deleted by the operator (as the owner, who acts as no
-- user: the foreign keys' actions do the work). Then app.rebuild_food_usage, for one user or
-- for all, rebuilds the same rows, and does so again (idempotent).
begin;
\ir support/helpers.psql
select plan(10);
select setseed(0.2020);

insert into app.foods (id, source, source_id, name, energy_kcal, protein_g, fat_g, carbs_g, serving_label, serving_g)
select md5('usage:' || n)::uuid, 'off', 'usage-' || n, 'Usage food ' || n, 100 + n, 5, 5, 10, '100 g', 100
  from generate_series(1, 12) as n;
select pg_temp.sign_up('a', 'usage-a@example.com', 'usage a password');
select pg_temp.sign_up('b', 'usage-b@example.com', 'usage b password');
select pg_temp.call('food_create', t.name, jsonb_build_object('name', 'Own food ' || t.name || n, 'calories', 200))
  from tokens as t, generate_series(1, 3) as n;

-- What the diary says, and what the summary holds (the test runs as a superuser: all rows).
create temporary view usage_by_diary as
select e.user_id, coalesce(e.food_id, e.user_food_id) as food_id, f.name, count(*)::integer as entries
  from app.food_entries as e
  left join app.foods as f on f.id = e.food_id
 where coalesce(e.food_id, e.user_food_id) is not null
 group by 1, 2, 3;
create function pg_temp.usage_differences() returns bigint language sql as $$
  select count(*) from ((select * from usage_by_diary except select user_id, food_id, name, entries from app.food_usage)
                        union all
                        (select user_id, food_id, name, entries from app.food_usage except select * from usage_by_diary)) as d
$$;

-- A random food a user may log: a catalog food, one of their own foods, or none (values).
create function pg_temp.some_food(p_user_id uuid) returns table (food_id uuid, user_food_id uuid)
language sql volatile as $$
  select case when r < 0.55 then (select id from app.foods where source_id like 'usage-%' order by random() limit 1) end,
         case when r >= 0.55 and r < 0.85 then (select id from app.user_foods where user_id = p_user_id order by random() limit 1) end
    from (select random() as r) as x
$$;
create function pg_temp.some_entry(p_user_id uuid) returns uuid language sql volatile as $$
  select id from app.food_entries where user_id = p_user_id order by random() limit 1 $$;

-- One random operation; returns what it did.
create function pg_temp.operate(p_step integer) returns text language plpgsql as $$
declare
  v_name text := case when random() < 0.5 then 'a' else 'b' end;
  v_user_id uuid := (select user_id from tokens where name = v_name);
  v_food record;
  v_entry uuid := pg_temp.some_entry(v_user_id);
  v_kind text := (array['create', 'create', 'create', 'create', 'edit', 'change food', 'change food', 'delete', 'delete',
                        'import', 'import', 'cronometer', 'delete own food', 'add catalog food', 'rename catalog food',
                        'delete catalog food'])[1 + floor(random() * 16)::integer];
begin
  select f.* into v_food from pg_temp.some_food(v_user_id) as f;
  if v_entry is null and v_kind in ('edit', 'change food', 'delete') then
    v_kind := 'create';
  end if;
  if v_kind = 'create' then
    perform set_config('role', 'liftbase_api', true);
    perform pg_temp.call('entry_create', v_name, case
      when coalesce(v_food.food_id, v_food.user_food_id) is null
        then jsonb_build_object('name', 'Step ' || p_step, 'calories', 300, 'source', 'manual')
      else jsonb_build_object('food_item_id', coalesce(v_food.food_id, v_food.user_food_id), 'servings', 1 + p_step % 3,
                              'source', 'search') end);
  elsif v_kind = 'edit' then
    perform set_config('role', 'liftbase_api', true);
    perform pg_temp.call('entry_update', v_name, jsonb_build_object('name', 'Edited ' || p_step, 'meal_type', 'dinner'),
                         jsonb_build_object('id', v_entry));
  elsif v_kind = 'change food' then
    -- The API keeps an entry's food; an edit of the row itself (by the user) may change it,
    -- for one entry or for all of a food's entries at once.
    perform set_config('role', 'liftbase_api', true);
    perform set_config('liftbase.user_id', v_user_id::text, true);
    if random() < 0.7 then
      update app.food_entries set food_id = v_food.food_id, user_food_id = v_food.user_food_id
       where user_id = v_user_id and id = v_entry;
    else
      update app.food_entries as e set food_id = v_food.food_id, user_food_id = v_food.user_food_id
       where e.user_id = v_user_id
         and coalesce(e.food_id, e.user_food_id) is not distinct from
             (select coalesce(x.food_id, x.user_food_id) from app.food_entries as x where x.user_id = v_user_id and x.id = v_entry);
    end if;
  elsif v_kind = 'delete' then
    perform set_config('role', 'liftbase_api', true);
    perform pg_temp.call('entry_delete', v_name, null, jsonb_build_object('id', v_entry));
  elsif v_kind = 'import' then
    -- The Liftbase importer's diary section: a few entries, some of them already there.
    perform set_config('role', 'liftbase_api', true);
    perform set_config('liftbase.user_id', v_user_id::text, true);
    perform app.import_liftbase_section(v_user_id, 'food_entries', (
      select jsonb_agg(jsonb_build_object(
               'id', case when k = 1 and v_entry is not null then v_entry else gen_random_uuid() end,
               'entry_date', '2025-06-0' || k, 'meal_type', 'lunch', 'name', 'Imported ' || p_step,
               'food_id', f.food_id, 'servings', 1, 'calories', 250,
               -- An entry may name both a catalog food and an own food; it counts for the first.
               'user_food_id', case when f.food_id is not null and random() < 0.4
                                    then (select id from app.user_foods where user_id = v_user_id order by random() limit 1)
                                    else f.user_food_id end,
               'protein_g', 10, 'carbs_g', 30, 'fat_g', 8, 'source', 'import'))
        from generate_series(1, 1 + floor(random() * 4)::integer) as k
       cross join lateral pg_temp.some_food(v_user_id) as f), 0, 0);
  elsif v_kind = 'cronometer' then
    perform set_config('role', 'liftbase_api', true);
    perform pg_temp.call('import_cronometer', v_name, pg_temp.csv(array['Day', 'Food Name', 'Energy (kcal)'],
                                                                  '2025-07-0' || (1 + p_step % 9) || '|Pear ' || p_step || '|57'));
  elsif v_kind = 'delete own food' then
    perform set_config('role', 'liftbase_api', true);
    perform set_config('liftbase.user_id', v_user_id::text, true);
    delete from app.user_foods where user_id = v_user_id and id = v_food.user_food_id;
    perform pg_temp.call('food_create', v_name, jsonb_build_object('name', 'Own food ' || p_step, 'calories', 210));
  elsif v_kind = 'add catalog food' then
    perform set_config('role', 'liftbase_owner', true);
    insert into app.foods (id, source, source_id, name, energy_kcal, serving_label, serving_g)
    values (md5('usage:step:' || p_step)::uuid, 'off', 'usage-step-' || p_step, 'Usage food, step ' || p_step, 90, '100 g', 100);
  elsif v_kind = 'rename catalog food' then
    perform set_config('role', 'liftbase_owner', true);
    update app.foods set name = 'Renamed food ' || p_step where id = v_food.food_id;
  else
    perform set_config('role', 'liftbase_owner', true);
    delete from app.foods where id = v_food.food_id;
  end if;
  perform set_config('role', 'none', true);
  perform set_config('liftbase.user_id', '', true);
  return v_kind;
end $$;
grant execute on function pg_temp.call(text, text, jsonb, jsonb), pg_temp.csv(text[], text[]) to liftbase_api;

create temporary table steps as
select n, pg_temp.operate(n) as kind, pg_temp.usage_differences() as differences
  from generate_series(1, 160) as n order by n;

select is((select count(distinct kind)::integer from steps), 10, 'the 160 operations include every kind of write');
select ok((select count(*) from app.food_usage) > 10 and (select count(*) from app.food_usage where name is null) > 0,
  'the diaries end with catalog and own foods logged');
select is((select (array_agg(n || ' ' || kind order by n))[1:5] from steps where differences > 0), null,
  'after every operation each user''s logged foods are their diary entries counted by food, under the catalog''s names');

create temporary table kept as select * from app.food_usage;
select set_config('test.user_a', (select user_id::text from tokens where name = 'a'), true);
set local role liftbase_owner;
select app.rebuild_food_usage(current_setting('test.user_a')::uuid);
reset role;
select is(pg_temp.usage_differences(), 0::bigint, 'rebuilt for one user, it is what the diary says');
set local role liftbase_owner;
select app.rebuild_food_usage();
select app.rebuild_food_usage();
reset role;
select is(pg_temp.usage_differences(), 0::bigint, 'rebuilt for every user, twice, it is what the diary says');
select is((select count(*) from ((select * from kept except select * from app.food_usage)
                                 union all (select * from app.food_usage except select * from kept)) as d), 0::bigint,
  'and what the writes had kept');

-- A logged food that search lifts onto its page has its item remembered like a page (page
-- size 0, keyed by the food): served again, and made afresh once the catalog changes.
insert into app.foods (id, source, source_id, name, energy_kcal, serving_label, serving_g)
select md5('usage:lift:' || n)::uuid, 'off', 'usage-lift-' || n, 'Liftfruit ' || n, 60 + n, '100 g', 100
  from generate_series(1, 30) as n;
select set_config('liftbase.user_id', '', true);
set local role liftbase_api;
select pg_temp.call('entry_create', 'a', jsonb_build_object('food_item_id', md5('usage:lift:29')::uuid, 'source', 'search'));
select is((pg_temp.names(pg_temp.call('food_search', 'a', null, '{"q": "liftfruit", "limit": "5"}')))[1], 'Liftfruit 29',
  'a logged food below the catalog''s page of five leads it');
reset role;
select is((select names from app.food_search_results where query = md5('usage:lift:29')::uuid::text and page_size = 0), '{}'::text[],
  'its item is remembered by food, as a page of size 0');
update app.food_search_results set items[1] = json_build_object('name', 'marked')
 where query = md5('usage:lift:29')::uuid::text and page_size = 0;
set local role liftbase_api;
select is((pg_temp.names(pg_temp.call('food_search', 'a', null, '{"q": "liftfruit", "limit": "5"}')))[1], 'marked',
  'and served again from there');
reset role;
update app.foods set energy_kcal = 99 where id = md5('usage:lift:29')::uuid;
set local role liftbase_api;
select is(pg_temp.call('food_search', 'a', null, '{"q": "liftfruit", "limit": "5"}') -> 'items' -> 0 -> 'per_100g' -> 'calories',
  '99'::jsonb, 'until the catalog changes: then it is made afresh');
reset role;

select * from finish();
rollback;
