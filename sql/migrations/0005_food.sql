-- Food: the catalog (reference data: USDA SR28, FoodData Central, Open Food Facts) with
-- nutrients per 100 g and portions, the user's own foods, the diary, favorites (snapshots)
-- and custom meals.

-- Reference data ---------------------------------------------------------------------------------

create table app.foods (
  id              uuid primary key,  -- md5(source:source_id): the same food keeps its id across imports
  source          text not null check (source in ('usda-sr28', 'fdc', 'off')),
  source_id       text not null,
  name            text not null check (length(name) between 1 and 500),
  brand           text,
  food_group      text,
  barcode         text,
  energy_kcal     numeric not null check (energy_kcal >= 0),
  protein_g       numeric not null default 0 check (protein_g >= 0),
  fat_g           numeric not null default 0 check (fat_g >= 0),
  carbs_g         numeric not null default 0 check (carbs_g >= 0),
  fiber_g         numeric check (fiber_g >= 0),
  sugars_g        numeric check (sugars_g >= 0),
  sodium_mg       numeric check (sodium_mg >= 0),
  saturated_fat_g numeric check (saturated_fat_g >= 0),
  -- The default serving: the first household portion, else 100 g.
  serving_label   text not null default '100 g',
  serving_g       numeric not null default 100 check (serving_g > 0),
  search_vector   tsvector generated always as (
                    to_tsvector('english', name || ' ' || coalesce(brand, '') || ' ' || coalesce(food_group, ''))) stored,
  updated_at      timestamptz not null default now(),
  unique (source, source_id)
);
create index foods_name_trgm_idx on app.foods using gin (lower(name) gin_trgm_ops);
create index foods_search_idx on app.foods using gin (search_vector);
create index foods_barcode_idx on app.foods (barcode) where barcode is not null;

create table app.food_portions (
  food_id     uuid not null references app.foods (id) on delete cascade,
  seq         integer not null,
  label       text not null,
  gram_weight numeric not null check (gram_weight > 0),
  primary key (food_id, seq)
);

grant select on app.foods, app.food_portions to liftbase_api;
revoke insert, update, delete on app.foods, app.food_portions from liftbase_api;

-- Rules ---------------------------------------------------------------------------------------------

create domain app.kcal as numeric check (value between 0 and 20000);
comment on domain app.kcal is 'must be between 0 and 20000';
create domain app.grams as numeric check (value between 0 and 5000);
comment on domain app.grams is 'must be between 0 and 5000';
create domain app.servings as numeric check (value > 0 and value <= 100);
comment on domain app.servings is 'must be more than 0 and at most 100';
create domain app.meal_type as text check (value in ('breakfast', 'lunch', 'dinner', 'snack'));
comment on domain app.meal_type is 'must be one of breakfast, lunch, dinner, snack';
create domain app.entry_source as text check (value in ('manual', 'search', 'barcode', 'favorite', 'ai', 'import'));
comment on domain app.entry_source is 'must be one of manual, search, barcode, favorite, ai, import';
create domain app.barcode as text check (value ~ '^[0-9]{6,14}$');
comment on domain app.barcode is 'must be 6 to 14 digits';
create domain app.food_name as text check (length(btrim(value)) between 1 and 200);
comment on domain app.food_name is 'must be 1 to 200 characters';

-- User-owned tables --------------------------------------------------------------------------------

create table app.user_foods (
  user_id         uuid not null references auth.users (id) on delete cascade,
  id              uuid not null default gen_random_uuid(),
  name            app.food_name not null,
  brand           text,
  barcode         app.barcode,
  energy_kcal     app.kcal not null,
  protein_g       app.grams not null default 0,
  fat_g           app.grams not null default 0,
  carbs_g         app.grams not null default 0,
  fiber_g         app.grams,
  sugars_g        app.grams,
  sodium_mg       numeric check (sodium_mg >= 0),
  saturated_fat_g app.grams,
  serving_label   text not null default '100 g',
  serving_g       numeric not null default 100 check (serving_g > 0 and serving_g <= 5000),
  created_at      timestamptz not null default now(),
  primary key (user_id, id)
);
create index user_foods_barcode_idx on app.user_foods (user_id, barcode) where barcode is not null;
create index user_foods_name_trgm_idx on app.user_foods using gin (lower(name) gin_trgm_ops);

create table app.favorites (
  user_id      uuid not null references auth.users (id) on delete cascade,
  id           uuid not null default gen_random_uuid(),
  name         app.food_name not null,
  calories     app.kcal not null,
  protein_g    app.grams not null,
  carbs_g      app.grams not null,
  fat_g        app.grams not null,
  food_id      uuid references app.foods (id) on delete set null,
  user_food_id uuid,
  servings     app.servings,
  created_at   timestamptz not null default now(),
  primary key (user_id, id),
  foreign key (user_id, user_food_id) references app.user_foods (user_id, id) on delete set null (user_food_id)
);

create table app.custom_meals (
  user_id    uuid not null references auth.users (id) on delete cascade,
  id         uuid not null default gen_random_uuid(),
  name       app.food_name not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (user_id, id)
);

create table app.custom_meal_items (
  user_id      uuid not null,
  meal_id      uuid not null,
  position     integer not null,
  name         app.food_name not null,
  food_id      uuid references app.foods (id) on delete set null,
  user_food_id uuid,
  portion_seq  integer,
  servings     app.servings,
  calories     app.kcal not null,
  protein_g    app.grams not null,
  carbs_g      app.grams not null,
  fat_g        app.grams not null,
  primary key (user_id, meal_id, position),
  foreign key (user_id, meal_id) references app.custom_meals (user_id, id) on delete cascade,
  foreign key (user_id, user_food_id) references app.user_foods (user_id, id) on delete set null (user_food_id)
);

create table app.food_entries (
  user_id        uuid not null references auth.users (id) on delete cascade,
  id             uuid not null default gen_random_uuid(),
  client_id      uuid,
  entry_date     date not null,
  meal_type      app.meal_type not null default 'snack',
  name           app.food_name not null,
  food_id        uuid references app.foods (id) on delete set null,
  user_food_id   uuid,
  portion_seq    integer,
  servings       app.servings,
  favorite_id    uuid,
  custom_meal_id uuid,
  calories       app.kcal not null,
  protein_g      app.grams not null,
  carbs_g        app.grams not null,
  fat_g          app.grams not null,
  source         app.entry_source not null,
  barcode        app.barcode,
  created_at     timestamptz not null default now(),
  updated_at     timestamptz not null default now(),
  primary key (user_id, id),
  foreign key (user_id, user_food_id) references app.user_foods (user_id, id) on delete set null (user_food_id),
  foreign key (user_id, favorite_id) references app.favorites (user_id, id) on delete set null (favorite_id),
  foreign key (user_id, custom_meal_id) references app.custom_meals (user_id, id) on delete set null (custom_meal_id)
);
create unique index food_entries_client_key on app.food_entries (user_id, client_id);
create index food_entries_day_idx on app.food_entries (user_id, entry_date, created_at);
-- "Foods the user logged before rank higher" in search.
create index food_entries_food_idx on app.food_entries (user_id, food_id) where food_id is not null;

do $$
declare
  v_table text;
begin
  foreach v_table in array array['user_foods', 'favorites', 'custom_meals', 'custom_meal_items', 'food_entries']
  loop
    execute format('alter table app.%I enable row level security', v_table);
    execute format('alter table app.%I force row level security', v_table);
    execute format('create policy own_rows on app.%I using (user_id = (select app.current_user_id()))
                    with check (user_id = (select app.current_user_id()))', v_table);
  end loop;
end
$$;

-- Staging for the importers: `liftbase import` streams the files into these with COPY,
-- then one SQL function merges them into the catalog, in the same transaction. Owner
-- only; emptied at the start of every import (which holds an advisory lock).
create schema if not exists staging authorization liftbase_owner;
create unlogged table staging.usda_food_des (
  ndb_no text, fdgrp_cd text, long_desc text, shrt_desc text, comname text, manufacname text, survey text,
  ref_desc text, refuse text, sciname text, n_factor text, pro_factor text, fat_factor text, cho_factor text);
create unlogged table staging.usda_fd_group (fdgrp_cd text, fdgrp_desc text);
create unlogged table staging.usda_nut_data (
  ndb_no text, nutr_no text, nutr_val text, num_data_pts text, std_error text, src_cd text, deriv_cd text,
  ref_ndb_no text, add_nutr_mark text, num_studies text, min text, max text, df text, low_eb text, up_eb text,
  stat_cmt text, addmod_date text, cc text);
create unlogged table staging.usda_weight (
  ndb_no text, seq text, amount text, msre_desc text, gm_wgt text, num_data_pts text, std_dev text);
