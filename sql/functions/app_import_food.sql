-- Importing another app's food diary: one diary row (source 'import') per row of the file.
-- p_columns names the file's columns for each value (a format's layout; absent keys are
-- columns the format lacks): day (YYYY-MM-DD), time, group (the meal: Breakfast, Lunch and
-- Dinner keep theirs; Snacks, Drinks and custom groups are a snack), name, amount, energy
-- (kcal), protein, carbs, fat (g). Apps leave a nutrient cell blank when they have no value
-- (supplements, custom foods): blank is unknown, not invalid, and counts as 0 in the diary,
-- which keeps no "unknown"; app.import_blank_warnings lists each one. A cell that holds
-- something else than a number is an error: that row is left out and the rest imported,
-- unless p_strict (all or nothing), or most rows have one, or a required column is missing
-- (refused: nothing written). A row a column's domain refuses (a name too long, 30000
-- kcal) is reported the same way, and the rest written again. Values are
-- stored without trailing zeros (6.00 is 6). Rows are told apart by their values (identical
-- rows of one file by their occurrence), so importing a file again adds nothing.
create or replace function app.import_diary(p_user_id uuid, p_format text, p_columns jsonb, p_document jsonb,
  p_dry_run boolean, p_strict boolean, out imported integer, out skipped_duplicates integer, out errors jsonb,
  out refused boolean)
language plpgsql
as $$
declare
  v_header jsonb := coalesce(p_document -> 'header', '[]');
  v_missing text := (app.import_missing_columns(v_header, array[p_columns ->> 'day', p_columns ->> 'name',
                                                                p_columns ->> 'energy'])).problem;
  c_day integer := app.import_column(v_header, array[p_columns ->> 'day']);
  c_time integer := app.import_column(v_header, array[p_columns ->> 'time']);
  c_group integer := app.import_column(v_header, array[p_columns ->> 'group']);
  c_name integer := app.import_column(v_header, array[p_columns ->> 'name']);
  c_amount integer := app.import_column(v_header, array[p_columns ->> 'amount']);
  c_energy integer := app.import_column(v_header, array[p_columns ->> 'energy']);
  c_protein integer := app.import_column(v_header, array[p_columns ->> 'protein']);
  c_carbs integer := app.import_column(v_header, array[p_columns ->> 'carbs']);
  c_fat integer := app.import_column(v_header, array[p_columns ->> 'fat']);
  v_rows jsonb;
  v_keys text[];
  v_existing_keys text[];
  v_new jsonb;
  v_state text;
  v_schema text;
  v_table text;
  v_column text;
  v_constraint text;
  v_datatype text;
  v_message text;
  v_problems jsonb;
begin
  imported := 0;
  skipped_duplicates := 0;
  refused := false;
  if v_missing is not null then
    errors := jsonb_build_array(jsonb_build_object('line', 1, 'message', v_missing));
    refused := true;
    return;
  end if;
  -- Each row as the diary values it gives, its import key (identical rows of one file are
  -- told apart by their occurrence) and its first problem.
  with cells as materialized (
    select app.read_integer(x.item, 'line') as line, x.item ->> 'problem' as line_problem,
           app.import_cell(x.item -> 'fields', c_day) as day,
           app.import_cell(x.item -> 'fields', c_time) as time,
           app.import_cell(x.item -> 'fields', c_group) as grp,
           app.import_cell(x.item -> 'fields', c_name) as name,
           app.import_cell(x.item -> 'fields', c_amount) as amount,
           app.import_cell(x.item -> 'fields', c_energy) as energy,
           app.import_cell(x.item -> 'fields', c_protein) as protein,
           app.import_cell(x.item -> 'fields', c_carbs) as carbs,
           app.import_cell(x.item -> 'fields', c_fat) as fat
      from jsonb_array_elements(coalesce(p_document -> 'rows', '[]')) as x (item))
  select coalesce(jsonb_agg(jsonb_build_object(
           'line', r.line,
           'key', p_format || '|' || md5(concat_ws('|', r.day, r.time, r.grp, r.name, r.amount, r.energy,
             r.protein, r.carbs, r.fat)) || '|' || r.occurrence,
           'entry_date', r.entry_date,
           'meal_type', case lower(r.grp) when 'breakfast' then 'breakfast' when 'lunch' then 'lunch'
                                          when 'dinner' then 'dinner' else 'snack' end,
           'name', r.name, 'calories', coalesce(app.import_number(r.energy), 0),
           'protein_g', coalesce(app.import_number(r.protein), 0),
           'carbs_g', coalesce(app.import_number(r.carbs), 0), 'fat_g', coalesce(app.import_number(r.fat), 0),
           'problem', case
             when r.line_problem is not null then r.line_problem
             when r.entry_date is null then format('%s must be a date like 2020-07-15', p_columns ->> 'day')
             when r.name is null then format('%s is required', p_columns ->> 'name')
             when r.energy is not null and not app.import_is_number(r.energy)
               then format('%s must be a number', p_columns ->> 'energy')
             when r.protein is not null and not app.import_is_number(r.protein)
               then format('%s must be a number', p_columns ->> 'protein')
             when r.carbs is not null and not app.import_is_number(r.carbs)
               then format('%s must be a number', p_columns ->> 'carbs')
             when r.fat is not null and not app.import_is_number(r.fat)
               then format('%s must be a number', p_columns ->> 'fat')
           end) order by r.line), '[]')
    into v_rows
    -- Occurrences are counted among rows of the same key text (empty cells drop out of
    -- it), so two rows that differ only in which cell is empty still get keys of their own.
    from (select c.*, d.entry_date, row_number() over (
                   partition by concat_ws('|', c.day, c.time, c.grp, c.name, c.amount, c.energy, c.protein,
                                          c.carbs, c.fat)
                   order by c.line) as occurrence
            from cells as c
            -- Days repeat on every row of the day: each distinct one is checked once.
            left join (select x.day,
                              app.import_local_time(split_part(x.day, '-', 1)::integer,
                                                    split_part(x.day, '-', 2)::integer,
                                                    split_part(x.day, '-', 3)::integer, 0, 0, 0)::date as entry_date
                         from (select distinct c.day from cells as c
                                where c.day ~ '^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}$') as x) as d on d.day = c.day) as r;

  select coalesce(jsonb_agg(jsonb_build_object('line', r -> 'line', 'message', r ->> 'problem')
                            order by app.read_integer(r, 'line')), '[]')
    into errors from jsonb_array_elements(v_rows) as r where r ->> 'problem' is not null;
  if errors <> '[]' and (p_strict or 2 * jsonb_array_length(errors) > jsonb_array_length(v_rows)) then
    refused := true;
    return;
  end if;
  if errors <> '[]' then
    select coalesce(jsonb_agg(r), '[]') into v_rows
      from jsonb_array_elements(v_rows) as r where r ->> 'problem' is null;
  end if;
  -- The rows not imported before, as entries for app.write_food_entries (their ids drawn in
  -- the same pass). The keys already there are found by the user's import-key index, so the
  -- cost is the file's, not the diary's.
  select coalesce(array_agg(r ->> 'key'), '{}') into v_keys from jsonb_array_elements(v_rows) as r;
  select coalesce(array_agg(f.import_key), '{}') into v_existing_keys
    from app.food_entries as f
   where f.user_id = p_user_id and f.import_key = any (v_keys);
  select coalesce(jsonb_agg(r || jsonb_build_object('id', gen_random_uuid(), 'import_key', r -> 'key',
                                                    'source', 'import')), '[]')
    into v_new
    from jsonb_array_elements(v_rows) as r
   where not (r ->> 'key' = any (v_existing_keys));
  skipped_duplicates := jsonb_array_length(v_rows) - jsonb_array_length(v_new);
  -- At most two tries: the second without the rows the first found refused.
  for v_try in 1 .. 2 loop
    begin
      select count(*) into imported
        from app.write_food_entries(p_user_id, array(select jsonb_populate_record(null::app.food_entries, r)
                                                       from jsonb_array_elements(v_new) as r));
      if p_dry_run then
        raise exception using errcode = 'LBDRY', message = 'dry run: roll the import back';
      end if;
      exit;
    exception
      when sqlstate 'LBDRY' then
        exit;
      when data_exception or integrity_constraint_violation then
        select coalesce(jsonb_agg(jsonb_build_object('line', r -> 'line', 'message', p.message)
                                  order by app.read_integer(r, 'line'), p.k), '[]')
          into v_problems
          from jsonb_array_elements(v_new) as r
         cross join lateral (values
           (1, (p_columns ->> 'name') || ': ' || app.field_problem(r, 'name', 'app.food_name')),
           (2, (p_columns ->> 'energy') || ': ' || app.field_problem(r, 'calories', 'app.kcal')),
           (3, (p_columns ->> 'protein') || ': ' || app.field_problem(r, 'protein_g', 'app.grams')),
           (4, (p_columns ->> 'carbs') || ': ' || app.field_problem(r, 'carbs_g', 'app.grams')),
           (5, (p_columns ->> 'fat') || ': ' || app.field_problem(r, 'fat_g', 'app.grams'))) as p (k, message)
         where p.message is not null;
        if v_problems = '[]' or p_strict or v_try = 2 then
          -- A refusal no row check explains is described for people, never in the database's words.
          if v_problems = '[]' then
            get stacked diagnostics v_state = returned_sqlstate, v_schema = schema_name, v_table = table_name,
                                    v_column = column_name, v_constraint = constraint_name,
                                    v_datatype = pg_datatype_name, v_message = message_text;
            v_problems := jsonb_build_array(jsonb_build_object('line', null, 'message',
              app.import_error_message(v_state, v_schema, v_table, v_column, v_constraint, v_datatype, v_message)));
          end if;
          errors := errors || v_problems;
          imported := 0;
          skipped_duplicates := 0;
          refused := true;
          return;
        end if;
        errors := errors || v_problems;
        select coalesce(jsonb_agg(r), '[]') into v_new
          from jsonb_array_elements(v_new) as r
         where not exists (select from jsonb_array_elements(v_problems) as p
                            where app.read_integer(p, 'line') = app.read_integer(r, 'line'));
    end;
  end loop;
  errors := app.import_problems_in_order(errors);
end
$$;

grant execute on function app.import_diary(uuid, text, jsonb, jsonb, boolean, boolean) to liftbase_api;

-- The layouts of the diaries Liftbase imports, by format: which column holds which value
-- (app.import_diary). Cronometer's servings export has a row per food; MyFitnessPal's
-- "Nutrition Summary" a row per day and meal (named after the meal), with more nutrient
-- columns than the diary keeps.
create or replace function app.import_diary_columns(p_format text)
returns jsonb
language sql
immutable
as $$
  select case p_format
    when 'cronometer' then '{"day": "Day", "time": "Time", "group": "Group", "name": "Food Name", "amount": "Amount",
                             "energy": "Energy (kcal)", "protein": "Protein (g)", "carbs": "Carbs (g)",
                             "fat": "Fat (g)"}'::jsonb
    when 'myfitnesspal' then '{"day": "Date", "group": "Meal", "name": "Meal", "energy": "Calories",
                               "protein": "Protein (g)", "carbs": "Carbohydrates (g)", "fat": "Fat (g)"}'::jsonb
  end
$$;

grant execute on function app.import_diary_columns(text) to liftbase_api;
