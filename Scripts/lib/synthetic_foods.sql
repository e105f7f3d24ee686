-- A synthetic catalog for benchmarks: :count branded foods with a realistic word mix
-- (brands, product words, flavours, qualifiers), unique 13-digit barcodes and plausible
-- nutrients. Run as a superuser on a benchmark database: psql -v count=1000000 -f ...
\set ON_ERROR_STOP on
set maintenance_work_mem = '512MB';

create temporary table words (kind text, word text, n integer);
insert into words
select 'brand', w, row_number() over () from unnest(array[
  'Green Valley', 'Sunrise Farms', 'Nordic Kitchen', 'Happy Cow', 'Golden Harvest', 'Blue Ocean', 'Mountain Peak',
  'Urban Bakery', 'Nature''s Best', 'Fit Life', 'Old Mill', 'Red Barn', 'Silver Spoon', 'True North', 'Pure Origin',
  'Little Acorn', 'Daily Fresh', 'Prairie Gold', 'Coastal Catch', 'Vital Foods', 'Maple Grove', 'Wild Meadow',
  'Iron Oak', 'Bright Start', 'Field & Farm', 'Kettle Creek', 'Harvest Moon', 'Sunny Side', 'Alpine Dairy', 'Spice Route']) as w;
insert into words
select 'base', w, row_number() over () from unnest(array[
  'chicken breast', 'greek yogurt', 'banana', 'oat bar', 'cheddar cheese', 'brown rice', 'penne pasta', 'almond milk',
  'salmon fillet', 'protein shake', 'granola', 'sourdough bread', 'apple juice', 'peanut butter', 'tofu', 'beef jerky',
  'dark chocolate', 'turkey slices', 'cottage cheese', 'rice cakes', 'hummus', 'tortilla chips', 'orange juice',
  'whole milk', 'skyr', 'muesli', 'egg noodles', 'tuna chunks', 'black beans', 'sweet potato fries', 'bagel',
  'ice cream', 'frozen pizza', 'ham', 'mozzarella', 'lentil soup', 'cereal', 'croissant', 'kefir', 'trail mix']) as w;
insert into words
select 'flavour', w, row_number() over () from unnest(array[
  'original', 'vanilla', 'strawberry', 'honey', 'smoked', 'spicy', 'garlic', 'lemon', 'chocolate', 'cinnamon',
  'roasted', 'barbecue', 'sea salt', 'mixed berry', 'coconut', 'maple', 'herb', 'mango', 'peach', 'plain']) as w;
insert into words
select 'qualifier', w, row_number() over () from unnest(array[
  'organic', 'low fat', 'high protein', 'no added sugar', 'family size', 'light', 'classic', 'unsweetened',
  'whole grain', 'gluten free', 'sliced', 'mini', 'reduced sodium', 'extra', 'fresh']) as w;

insert into app.foods (id, source, source_id, name, brand, food_group, barcode, energy_kcal, protein_g, fat_g, carbs_g,
                       fiber_g, sugars_g, sodium_mg, saturated_fat_g, serving_label, serving_g)
select md5('synthetic:' || g)::uuid, 'off', 'synthetic-' || g,
       initcap(b.word) || ', ' || f.word || case when g % 3 = 0 then ', ' || q.word else '' end,
       br.word, 'Synthetic', lpad((2000000000000 + g)::text, 13, '0'),
       round((20 + random() * 580)::numeric, 1), round((random() * 40)::numeric, 1), round((random() * 35)::numeric, 1),
       round((random() * 80)::numeric, 1), round((random() * 10)::numeric, 1), round((random() * 30)::numeric, 1),
       round((random() * 900)::numeric), round((random() * 12)::numeric, 1), '1 serving', round((20 + random() * 230)::numeric)
  from generate_series(1, :count) as g
  join words as b on b.kind = 'base' and b.n = 1 + (g * 7) % 40
  join words as f on f.kind = 'flavour' and f.n = 1 + (g * 13) % 20
  join words as q on q.kind = 'qualifier' and q.n = 1 + (g * 17) % 15
  join words as br on br.kind = 'brand' and br.n = 1 + (g * 31) % 30
on conflict (source, source_id) do nothing;
-- As after a real import: statistics, and the full-text index's pending entries merged.
vacuum (analyze) app.foods, app.food_name_words;
