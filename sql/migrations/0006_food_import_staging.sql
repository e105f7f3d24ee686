-- Staging for the FoodData Central and Open Food Facts importers. Files differ between
-- releases, so `liftbase import` adds any further column of a file's header (as text)
-- before COPY; these are the columns the merge reads.
create unlogged table staging.fdc_food (fdc_id text, data_type text, description text, food_category_id text);
create unlogged table staging.fdc_nutrient (id text, name text, unit_name text, nutrient_nbr text);
create unlogged table staging.fdc_food_nutrient (id text, fdc_id text, nutrient_id text, amount text);
create unlogged table staging.fdc_food_portion (
  id text, fdc_id text, seq_num text, amount text, measure_unit_id text, portion_description text, modifier text,
  gram_weight text);
create unlogged table staging.fdc_branded_food (
  fdc_id text, brand_owner text, brand_name text, gtin_upc text, serving_size text, serving_size_unit text,
  household_serving_fulltext text, branded_food_category text);
create unlogged table staging.off_products (
  code text, product_name text, brands text, serving_size text, serving_quantity text, "energy-kcal_100g" text,
  proteins_100g text, carbohydrates_100g text, fat_100g text, fiber_100g text, sugars_100g text, sodium_100g text,
  "saturated-fat_100g" text, categories_en text);
