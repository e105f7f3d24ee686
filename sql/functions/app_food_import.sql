-- Importers' finishing steps: staging tables (filled by COPY) → the food catalog.
-- Idempotent: foods are keyed by (source, source_id); re-running updates, never duplicates.
-- An update's updated_at is excluded.updated_at (the column's default, now()): Citus takes
-- no stable call, nor a variable, in DO UPDATE SET.

-- What the catalog's triggers keep (migrations 0015 and 0018), done by the importers on
-- Citus, where those triggers are dropped (app.on_citus): the words of every food name and a
-- new catalog version. Nothing on a single node.
create or replace function app.catalog_changed_on_citus()
returns void
language plpgsql
as $$
begin
  if not app.on_citus() then
    return;
  end if;
  insert into app.food_name_words (word)
  select distinct w from app.foods as f cross join lateral app.name_words(f.name) as w
  on conflict do nothing;
  update app.food_catalog_version set version = version + 1;
end
$$;

-- USDA SR28: FOOD_DES + FD_GROUP + NUT_DATA (nutrients 208 energy kcal, 203 protein,
-- 204 fat, 205 carbohydrate, 291 fiber, 269 sugars, 307 sodium mg, 606 saturated fat)
-- + WEIGHT (household portions; the first is the default serving).
create or replace function app.finish_usda_import()
returns jsonb
language plpgsql
as $$
declare
  v_foods integer;
  v_portions integer;
begin
  insert into app.foods as f (id, source, source_id, name, food_group, energy_kcal, protein_g, fat_g, carbs_g,
                              fiber_g, sugars_g, sodium_mg, saturated_fat_g, serving_label, serving_g)
  select md5('usda-sr28:' || d.ndb_no)::uuid, 'usda-sr28', d.ndb_no, d.long_desc, g.fdgrp_desc,
         coalesce(n.energy, 0), coalesce(n.protein, 0), coalesce(n.fat, 0), coalesce(n.carbs, 0),
         n.fiber, n.sugars, n.sodium, n.saturated_fat,
         coalesce(w.amount::numeric::text || ' ' || w.msre_desc, '100 g'), coalesce(w.gm_wgt::numeric, 100)
    from staging.usda_food_des as d
    left join staging.usda_fd_group as g on g.fdgrp_cd = d.fdgrp_cd
    left join (
      select x.ndb_no,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '208') as energy,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '203') as protein,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '204') as fat,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '205') as carbs,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '291') as fiber,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '269') as sugars,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '307') as sodium,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '606') as saturated_fat
        from staging.usda_nut_data as x
       where x.nutr_no in ('208', '203', '204', '205', '291', '269', '307', '606')
       group by x.ndb_no
    ) as n on n.ndb_no = d.ndb_no
    left join (
      select distinct on (y.ndb_no) y.ndb_no, y.amount, y.msre_desc, y.gm_wgt
        from staging.usda_weight as y
       where y.gm_wgt::numeric > 0
       order by y.ndb_no, y.seq::integer
    ) as w on w.ndb_no = d.ndb_no
   where coalesce(d.long_desc, '') <> ''
  on conflict (source, source_id) do update
    set name = excluded.name, food_group = excluded.food_group, energy_kcal = excluded.energy_kcal,
        protein_g = excluded.protein_g, fat_g = excluded.fat_g, carbs_g = excluded.carbs_g,
        fiber_g = excluded.fiber_g, sugars_g = excluded.sugars_g, sodium_mg = excluded.sodium_mg,
        saturated_fat_g = excluded.saturated_fat_g, serving_label = excluded.serving_label,
        serving_g = excluded.serving_g, updated_at = excluded.updated_at;
  get diagnostics v_foods = row_count;

  -- A subquery, not USING: Citus joins no distributed table with a local one in a DELETE.
  delete from app.food_portions as p
   where p.food_id in (select md5('usda-sr28:' || d.ndb_no)::uuid from staging.usda_food_des as d);
  insert into app.food_portions (food_id, seq, label, gram_weight)
  select md5('usda-sr28:' || y.ndb_no)::uuid, y.seq::integer, y.amount::numeric::text || ' ' || y.msre_desc,
         y.gm_wgt::numeric
    from staging.usda_weight as y
   where y.gm_wgt::numeric > 0
     and exists (select from app.foods as f where f.id = md5('usda-sr28:' || y.ndb_no)::uuid);
  get diagnostics v_portions = row_count;

  perform app.catalog_changed_on_citus();
  return jsonb_build_object('foods', v_foods, 'portions', v_portions);
end
$$;

-- A number from a staging text field, or null when it is empty or not a number.
create or replace function app.staged_number(p_text text)
returns numeric
language sql
immutable
as $$ select case when btrim(p_text) ~ '^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$' then btrim(p_text)::numeric end $$;

-- An optional nutrient: kept when it is a sensible value, unknown (null) otherwise.
create or replace function app.nonnegative(p_value numeric)
returns numeric
language sql
immutable
as $$ select case when p_value >= 0 then p_value end $$;

-- FoodData Central CSV: food + food_nutrient (by nutrient id: energy 1008, else 2047/2048
-- Atwater; protein 1003, fat 1004, carbohydrate 1005, fiber 1079, sugars 2000, sodium 1093,
-- saturated fat 1258) + food_portion + branded_food (barcode = gtin_upc) when present.
create or replace function app.finish_fdc_import()
returns jsonb
language plpgsql
as $$
declare
  v_foods integer;
  v_portions integer;
begin
  insert into app.foods as f (id, source, source_id, name, brand, food_group, barcode, energy_kcal, protein_g, fat_g,
                              carbs_g, fiber_g, sugars_g, sodium_mg, saturated_fat_g, serving_label, serving_g)
  select md5('fdc:' || d.fdc_id)::uuid, 'fdc', d.fdc_id, left(btrim(d.description), 500),
         nullif(btrim(coalesce(nullif(b.brand_name, ''), b.brand_owner)), ''),
         coalesce(nullif(b.branded_food_category, ''), d.data_type),
         nullif(btrim(b.gtin_upc), ''),
         greatest(coalesce(n.energy, n.atwater_general, n.atwater_specific, 0), 0),
         greatest(coalesce(n.protein, 0), 0), greatest(coalesce(n.fat, 0), 0), greatest(coalesce(n.carbs, 0), 0),
         app.nonnegative(n.fiber), app.nonnegative(n.sugars), app.nonnegative(n.sodium),
         app.nonnegative(n.saturated_fat),
         coalesce(p.label, case when app.staged_number(b.serving_size) > 0
                                 and lower(b.serving_size_unit) in ('g', 'grm', 'ml', 'mlt')
                                then coalesce(nullif(b.household_serving_fulltext, ''),
                                              app.staged_number(b.serving_size)::text || ' g') end,
                  '100 g'),
         coalesce(p.grams, case when app.staged_number(b.serving_size) > 0
                                 and lower(b.serving_size_unit) in ('g', 'grm', 'ml', 'mlt')
                                then app.staged_number(b.serving_size) end, 100)
    from staging.fdc_food as d
    left join staging.fdc_branded_food as b on b.fdc_id = d.fdc_id
    left join (
      select x.fdc_id,
             max(app.staged_number(x.amount)) filter (where x.nutrient_id = '1008') as energy,
             max(app.staged_number(x.amount)) filter (where x.nutrient_id = '2047') as atwater_general,
             max(app.staged_number(x.amount)) filter (where x.nutrient_id = '2048') as atwater_specific,
             max(app.staged_number(x.amount)) filter (where x.nutrient_id = '1003') as protein,
             max(app.staged_number(x.amount)) filter (where x.nutrient_id = '1004') as fat,
             max(app.staged_number(x.amount)) filter (where x.nutrient_id = '1005') as carbs,
             max(app.staged_number(x.amount)) filter (where x.nutrient_id = '1079') as fiber,
             max(app.staged_number(x.amount)) filter (where x.nutrient_id = '2000') as sugars,
             max(app.staged_number(x.amount)) filter (where x.nutrient_id = '1093') as sodium,
             max(app.staged_number(x.amount)) filter (where x.nutrient_id = '1258') as saturated_fat
        from staging.fdc_food_nutrient as x
       where x.nutrient_id in ('1008', '2047', '2048', '1003', '1004', '1005', '1079', '2000', '1093', '1258')
       group by x.fdc_id
    ) as n on n.fdc_id = d.fdc_id
    left join (
      select distinct on (y.fdc_id) y.fdc_id, app.staged_number(y.gram_weight) as grams,
             coalesce(nullif(btrim(y.portion_description), ''),
                      btrim(coalesce(app.staged_number(y.amount)::text, '1') || ' '
                            || coalesce(y.modifier, ''))) as label
        from staging.fdc_food_portion as y
       where app.staged_number(y.gram_weight) > 0
       order by y.fdc_id, app.staged_number(y.seq_num) nulls last, y.id
    ) as p on p.fdc_id = d.fdc_id
   where coalesce(btrim(d.description), '') <> '' and coalesce(btrim(d.fdc_id), '') <> ''
  on conflict (source, source_id) do update
    set name = excluded.name, brand = excluded.brand, food_group = excluded.food_group, barcode = excluded.barcode,
        energy_kcal = excluded.energy_kcal, protein_g = excluded.protein_g, fat_g = excluded.fat_g,
        carbs_g = excluded.carbs_g, fiber_g = excluded.fiber_g, sugars_g = excluded.sugars_g,
        sodium_mg = excluded.sodium_mg, saturated_fat_g = excluded.saturated_fat_g,
        serving_label = excluded.serving_label, serving_g = excluded.serving_g, updated_at = excluded.updated_at;
  get diagnostics v_foods = row_count;

  delete from app.food_portions as fp
   where fp.food_id in (select md5('fdc:' || d.fdc_id)::uuid from staging.fdc_food as d);
  insert into app.food_portions (food_id, seq, label, gram_weight)
  select md5('fdc:' || y.fdc_id)::uuid,
         row_number() over (partition by y.fdc_id order by app.staged_number(y.seq_num) nulls last, y.id),
         coalesce(nullif(btrim(y.portion_description), ''),
                  btrim(coalesce(app.staged_number(y.amount)::text, '1') || ' ' || coalesce(y.modifier, ''))),
         app.staged_number(y.gram_weight)
    from staging.fdc_food_portion as y
   where app.staged_number(y.gram_weight) > 0
     and exists (select from app.foods as f where f.id = md5('fdc:' || y.fdc_id)::uuid);
  get diagnostics v_portions = row_count;
  perform app.catalog_changed_on_citus();
  return jsonb_build_object('foods', v_foods, 'portions', v_portions);
end
$$;

-- Open Food Facts (tab-separated export): per-100 g values, sodium given in grams,
-- the serving from serving_quantity (grams) when present. Products without a name or an
-- energy value are skipped.
create or replace function app.finish_off_import()
returns jsonb
language plpgsql
as $$
declare
  v_foods integer;
  v_rows integer := (select count(*) from staging.off_products);
begin
  insert into app.foods as f (id, source, source_id, name, brand, food_group, barcode, energy_kcal, protein_g, fat_g,
                              carbs_g, fiber_g, sugars_g, sodium_mg, saturated_fat_g, serving_label, serving_g)
  select distinct on (btrim(o.code))
         md5('off:' || btrim(o.code))::uuid, 'off', btrim(o.code), left(btrim(o.product_name), 500),
         nullif(btrim(split_part(o.brands, ',', 1)), ''), nullif(btrim(split_part(o.categories_en, ',', 1)), ''),
         case when btrim(o.code) ~ '^[0-9]{6,14}$' then btrim(o.code) end,
         app.staged_number(o."energy-kcal_100g"),
         greatest(coalesce(app.staged_number(o.proteins_100g), 0), 0),
         greatest(coalesce(app.staged_number(o.fat_100g), 0), 0),
         greatest(coalesce(app.staged_number(o.carbohydrates_100g), 0), 0),
         app.nonnegative(app.staged_number(o.fiber_100g)), app.nonnegative(app.staged_number(o.sugars_100g)),
         app.nonnegative(app.staged_number(o.sodium_100g) * 1000),
         app.nonnegative(app.staged_number(o."saturated-fat_100g")),
         case when app.staged_number(o.serving_quantity) > 0
              then coalesce(nullif(btrim(o.serving_size), ''), '1 serving') else '100 g' end,
         case when app.staged_number(o.serving_quantity) > 0 then app.staged_number(o.serving_quantity) else 100 end
    from staging.off_products as o
   where coalesce(btrim(o.code), '') <> '' and coalesce(btrim(o.product_name), '') <> ''
     and app.staged_number(o."energy-kcal_100g") >= 0
   order by btrim(o.code)
  on conflict (source, source_id) do update
    set name = excluded.name, brand = excluded.brand, food_group = excluded.food_group, barcode = excluded.barcode,
        energy_kcal = excluded.energy_kcal, protein_g = excluded.protein_g, fat_g = excluded.fat_g,
        carbs_g = excluded.carbs_g, fiber_g = excluded.fiber_g, sugars_g = excluded.sugars_g,
        sodium_mg = excluded.sodium_mg, saturated_fat_g = excluded.saturated_fat_g,
        serving_label = excluded.serving_label, serving_g = excluded.serving_g, updated_at = excluded.updated_at;
  get diagnostics v_foods = row_count;
  perform app.catalog_changed_on_citus();
  return jsonb_build_object('foods', v_foods, 'skipped', v_rows - v_foods);
end
$$;

create or replace function app.bump_food_catalog_version() returns trigger
language plpgsql as $$
begin
  update app.food_catalog_version set version = version + 1;
  return null;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
-- 'single node': on Citus a trigger on a reference table runs on every node's copy, and
-- one that writes another table is refused; there the functions that make the change do
-- this work (docs/scaling.md).
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_portions_catalog_version AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON app.food_portions FOR EACH STATEMENT EXECUTE FUNCTION app.bump_food_catalog_version()$$, 'single node');
select liftbase_meta.keep_trigger($$CREATE TRIGGER foods_catalog_version AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON app.foods FOR EACH STATEMENT EXECUTE FUNCTION app.bump_food_catalog_version()$$, 'single node');
