-- Diary imports of other apps (Cronometer, MyFitnessPal): a blank nutrient cell is unknown,
-- not invalid (the row is imported, the value counts as 0, the answer warns by line), while
-- a cell that is not a number still refuses the whole file; MyFitnessPal's nutrition summary
-- becomes one entry per day and meal. Run as the API role.
begin;
\ir support/helpers.psql
select plan(19);

select pg_temp.sign_up('c', 'diary-import-c@example.com', 'diary import c');
select pg_temp.sign_up('m', 'diary-import-m@example.com', 'diary import m');

create temporary table files (name text primary key, d jsonb);
insert into files values
  ('cronometer blanks', pg_temp.csv(
    array['Day', 'Time', 'Group', 'Food Name', 'Amount', 'Energy (kcal)', 'Protein (g)', 'Carbs (g)', 'Fat (g)'],
    '2023-03-01|07:00|Breakfast|Oats|40 g|150|5|27|3',
    '2023-03-01|07:05|Supplements|Creatine|5 g||||',
    '2023-03-01|12:00|Lunch|My Soup|1 bowl|220||30|',
    '2023-03-02|08:00|Breakfast|Eggs|2|140|12|1|10')),
  ('cronometer not a number', pg_temp.csv(
    array['Day', 'Group', 'Food Name', 'Energy (kcal)', 'Protein (g)'],
    '2023-03-03|Lunch|Toast|90|3', '2023-03-03|Lunch|Jam|n/a|0')),
  ('myfitnesspal', pg_temp.csv(
    array['Date', 'Meal', 'Calories', 'Fat (g)', 'Saturated Fat', 'Polyunsaturated Fat', 'Monounsaturated Fat',
          'Trans Fat', 'Cholesterol', 'Sodium (mg)', 'Potassium', 'Carbohydrates (g)', 'Fiber', 'Sugar', 'Protein (g)',
          'Vitamin A', 'Vitamin C', 'Calcium', 'Iron', 'Note'],
    '2023-01-15|Breakfast|420|12.5|4|1|5|0|210|380|300|55|6|12|22|10|5|15|20|',
    '2023-01-15|Lunch|650|20|6|2|8|0|90|900|500|70.5|8|10|45|0|0|0|0|ate out',
    '2023-01-15|Snacks|180|9|1|2|5|0|0|120|200|20|3|14||0|0|0|0|',
    '2023-01-16|Dinner|800|30|10|3|12|0.5|150|1100|700|80|9|8|55|0|0|0|0|')),
  ('cronometer commas', jsonb_build_object('file_sha256', 'commas', 'header',
    '["Day", "Group", "Food Name", "Amount", "Energy (kcal)", "Protein (g)", "Carbs (g)", "Fat (g)"]'::jsonb,
    'rows', '[{"line": 2, "fields": ["2023-04-01", "Lunch", "Rice", " cooked", "200 g", "260", "5.4", "56", "0.6"]},
              {"line": 3, "fields": ["2023-04-01", "Dinner", "Salmon", "150 g", "312", "30", "0", "19.5"]}]'::jsonb)),
  ('cronometer commas doubtful', jsonb_build_object('file_sha256', 'doubt', 'header',
    '["Day", "Group", "Food Name", "Energy (kcal)", "Protein (g)"]'::jsonb,
    'rows', '[{"line": 2, "fields": ["2023-04-02", "Lunch", "Soup", "tomato", "lots", "3"]}]'::jsonb)),
  ('myfitnesspal bad', pg_temp.csv(array['Date', 'Meal', 'Calories', 'Fat (g)', 'Carbohydrates (g)', 'Protein (g)'],
    '2023-01-17|Lunch|500|10|60|30', '2023-01-17|Dinner|lots|10|60|30', 'yesterday|Dinner|300|1|1|1'));
grant select on files to liftbase_api;
set local role liftbase_api;

-- Cronometer: blank nutrient cells -----------------------------------------------------------------
select is(pg_temp.call('import_cronometer', 'c', (select d from files where name = 'cronometer blanks')),
  '{"imported": 4, "skipped_duplicates": 0, "skipped": [], "errors": [],
    "warnings": [{"line": 3, "message": "Carbs (g), Energy (kcal), Fat (g), Protein (g) blank: counted as 0"},
                 {"line": 4, "message": "Fat (g), Protein (g) blank: counted as 0"}]}',
  'every serving is imported; each line with blank nutrient cells is a warning naming them');
select is((select jsonb_agg(jsonb_build_array(t.entry_date, t.calories, t.protein_g, t.carbs_g, t.fat_g) order by t.entry_date)
             from (select f.entry_date, sum(f.calories) as calories, sum(f.protein_g) as protein_g, sum(f.carbs_g) as carbs_g,
                          sum(f.fat_g) as fat_g
                     from app.food_entries as f group by f.entry_date) as t),
  '[["2023-03-01", 370, 5, 57, 3], ["2023-03-02", 140, 12, 1, 10]]',
  'daily totals are the sums of the file''s numbers for each day (150 + 220 kcal; blanks add nothing)');
select is((select name || ':' || calories || '/' || protein_g || '/' || carbs_g || '/' || fat_g from app.food_entries
            where name = 'Creatine'), 'Creatine:0/0/0/0', 'a supplement with every nutrient blank is kept, at 0');
select is(pg_temp.call('import_cronometer', 'c', (select d from files where name = 'cronometer blanks')) -> 'skipped_duplicates',
  '4', 'the same file again adds nothing');
select is(pg_temp.call('import_cronometer', 'c', (select d from files where name = 'cronometer not a number'),
                       '{"strict": "true"}') -> 'errors',
  '[{"line": 3, "message": "Energy (kcal) must be a number"}]', 'a cell that is not a number is still an error, by line');
select is((select count(*) from app.food_entries where entry_date = '2023-03-03'), 0::bigint,
  '… and the file is refused whole, when all or nothing is asked');

-- Two rows that differ only in which nutrient cell is blank read alike once the blanks are
-- left out: each still gets a key of its own, so both are imported.
select is(pg_temp.call('import_cronometer', 'c', pg_temp.csv(
    array['Day', 'Group', 'Food Name', 'Energy (kcal)', 'Protein (g)', 'Carbs (g)'],
    '2023-03-05|Lunch|Shake|100||5', '2023-03-05|Lunch|Shake|100|5|')) -> 'imported',
  '2', 'rows alike but for which cell is blank are two entries');

-- An unquoted comma in a food name -------------------------------------------------------------------
select is(pg_temp.call('import_cronometer', 'c', (select d from files where name = 'cronometer commas')) - 'skipped_duplicates',
  '{"imported": 2, "skipped": [], "errors": [],
    "warnings": [{"line": 2, "message": "Food Name held an unquoted comma: read as \"Rice, cooked\""}]}',
  'a row one field too long is recovered when the numbers to its right then parse, with a warning');
select is((select name || ':' || calories from app.food_entries where entry_date = '2023-04-01' and meal_type = 'lunch'),
  'Rice, cooked:260', 'the name is put back whole and the values are where they belong');
select is(pg_temp.call('import_cronometer', 'c', (select d from files where name = 'cronometer commas doubtful')) -> 'errors',
  '[{"line": 2, "message": "the line has 6 fields where the header has 5"}]',
  'when the columns to the right still do not parse, the line is an error, not a guess');
select is((select count(*) from app.food_entries where entry_date = '2023-04-02'), 0::bigint, '… and nothing is written');

-- MyFitnessPal nutrition summary ---------------------------------------------------------------------
select is(pg_temp.call('import_myfitnesspal', 'm', (select d from files where name = 'myfitnesspal'), '{"dry_run": "true"}')
            - 'warnings', '{"imported": 4, "skipped_duplicates": 0, "skipped": [], "errors": []}', 'a dry run reports the day-and-meal rows');
select is((select count(*) from app.food_entries), 0::bigint, '… and writes none');
select is(pg_temp.call('import_myfitnesspal', 'm', (select d from files where name = 'myfitnesspal')),
  '{"imported": 4, "skipped_duplicates": 0, "skipped": [], "errors": [],
    "warnings": [{"line": 4, "message": "Protein (g) blank: counted as 0"}]}',
  'MyFitnessPal: one diary entry per day and meal; a blank cell is a warning');
select is((select array_agg(f.entry_date || ':' || f.meal_type || ':' || f.name || ':' || f.calories || '/' || f.protein_g
                            || '/' || f.carbs_g || '/' || f.fat_g || ':' || f.source order by f.entry_date, f.meal_type)
             from app.food_entries as f),
  array['2023-01-15:breakfast:Breakfast:420/22/55/12.5:import', '2023-01-15:lunch:Lunch:650/45/70.5/20:import',
        '2023-01-15:snack:Snacks:180/0/20/9:import', '2023-01-16:dinner:Dinner:800/55/80/30:import'],
  'named after the meal; Snacks is a snack; calories, protein, carbs and fat as written');
select is(pg_temp.call('import_myfitnesspal', 'm', (select d from files where name = 'myfitnesspal')) -> 'skipped_duplicates',
  '4', 're-importing the summary adds nothing');
select is(pg_temp.call('import_myfitnesspal', 'm', (select d from files where name = 'myfitnesspal bad')) -> 'errors',
  '[{"line": 3, "message": "Calories must be a number"}, {"line": 4, "message": "Date must be a date like 2020-07-15"}]',
  'MyFitnessPal rows are checked by line, in the file''s own column names');
select is((select count(*) from app.food_entries where entry_date = '2023-01-17'), 0::bigint, '… and a refused file writes nothing');
select is(pg_temp.call('import_myfitnesspal', 'm', pg_temp.csv(array['Date', 'Meal', 'Fat (g)'], '2023-01-18|Lunch|3')) -> 'errors',
  '[{"line": 1, "message": "missing column \"Calories\""}]', 'a file without a required column is refused once, on line 1');

select * from finish();
rollback;
