-- FitNotes (Android) training export, through the same pipeline as Strong and Hevy
-- (app.import_workouts). FitNotes keeps days, not workouts: every row of one date is one
-- session, without a name or times. Its layout changed between versions, so every column
-- is found by its header name and unit, never by position:
--   Date,Exercise,Category,Weight (kgs),Reps,Distance,Distance Unit,Time,Comment
--   Date,Exercise,Category,Weight (lbs),Reps,Distance,Distance Unit,Time
--   Date,Exercise,Category,Weight,Weight Unit,Reps,Distance,Distance Unit,Time,Comment

-- "2024-05-01": FitNotes' dates, of the years 1900–2999 as every date Liftbase takes.
create or replace function app.import_iso_date(p_text text)
returns date
language sql
immutable
as $$
  select app.import_local_time(m[1]::integer, m[2]::integer, m[3]::integer, 0, 0, 0)::date
    from regexp_match(p_text, '^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})$') as m
$$;

-- One workout row per set: Date, Exercise, Category (not kept: the catalog and the rows
-- decide an exercise's muscles and type), the weight (Weight (kgs) | Weight (lbs) | Weight
-- with Weight Unit; blank or 0 on cardio and bodyweight rows, which the exercise's type then
-- reads as none), Reps (blank on cardio rows), Distance with Distance Unit (km, m, mi, ft,
-- yd), Time as a clock (h:mm:ss or m:ss), Comment (optional; the comments of an exercise's
-- sets of a day become its notes, in file order). Sets keep file order; all are working sets.
create or replace function app.import_fitnotes_rows(p_document jsonb)
returns setof app.import_set_row
language plpgsql
stable
as $$
declare
  v_header jsonb := coalesce(p_document -> 'header', '[]');
  v_weight record := app.import_weight_column(v_header);
  c_date integer := app.import_column(v_header, array['Date']);
  c_exercise integer := app.import_column(v_header, array['Exercise']);
  c_weight_unit integer := app.import_column(v_header, array['Weight Unit']);
  c_reps integer := app.import_column(v_header, array['Reps']);
  c_distance integer := app.import_column(v_header, array['Distance']);
  c_distance_unit integer := app.import_column(v_header, array['Distance Unit']);
  c_time integer := app.import_column(v_header, array['Time']);
  c_comment integer := app.import_column(v_header, array['Comment']);
  -- A distance means nothing without its unit; a plain Weight nothing without its unit.
  v_missing text := (app.import_missing_columns(v_header, array['Date', 'Exercise', 'Reps']
    || case when v_weight.column_index is null then array['Weight (kgs)'] else '{}' end
    || case when v_weight.column_index = app.import_column(v_header, array['Weight']) then array['Weight Unit']
            else '{}' end
    || case when c_distance is not null then array['Distance Unit'] else '{}' end)).problem;
begin
  if v_missing is not null then
    return next app.import_line_problem(1, v_missing);
    return;
  end if;
  return query
  with cells as materialized (
    select app.read_integer(x.item, 'line') as line, x.item ->> 'problem' as line_problem,
           app.import_cell(x.item -> 'fields', c_date) as date_text,
           app.import_cell(x.item -> 'fields', c_exercise) as exercise,
           app.import_cell(x.item -> 'fields', v_weight.column_index) as weight,
           app.import_cell(x.item -> 'fields', c_weight_unit) as weight_unit,
           app.import_cell(x.item -> 'fields', c_reps) as reps,
           app.import_cell(x.item -> 'fields', c_distance) as distance,
           app.import_cell(x.item -> 'fields', c_distance_unit) as distance_unit,
           app.import_cell(x.item -> 'fields', c_time) as time_text,
           app.import_cell(x.item -> 'fields', c_comment) as comment
      from jsonb_array_elements(coalesce(p_document -> 'rows', '[]')) as x (item)),
  dates as materialized (
    select d.date_text, app.import_iso_date(d.date_text) as day
      from (select distinct c.date_text from cells as c) as d),
  typed as materialized (
    select c.*, d.day,
           case when c_weight_unit is null then v_weight.kg_per_unit else app.import_kg_per_unit(c.weight_unit) end
             as kg_per_unit,
           app.import_metres_per_unit(c.distance_unit) as metres_per_unit,
           app.import_seconds(c.time_text) as seconds
      from cells as c
      left join dates as d on d.date_text = c.date_text),
  -- Comments are per set; an exercise of a day keeps each distinct one, in file order.
  notes as (
    select n.date_text, n.exercise_key, string_agg(n.comment, '; ' order by n.first_line) as notes
      from (select c.date_text, lower(c.exercise) as exercise_key, c.comment, min(c.line) as first_line
              from cells as c where c.comment is not null group by 1, 2, 3) as n
     group by n.date_text, n.exercise_key)
  select r.line, 'fitnotes|' || coalesce(r.date_text, ''), null::timestamp, null::timestamp, null::text, null::text,
         r.exercise, n.notes, r.line, 'working',
         app.import_weight_kg(r.weight, coalesce(r.kg_per_unit, 1)),
         case when r.reps is null then 0 else app.import_whole_number(r.reps) end,
         null::numeric,
         coalesce(
           r.line_problem,
           case
             when r.day is null then 'Date must be a date like 2024-05-01'
             when r.exercise is null then 'Exercise is required'
             when r.weight is not null and not app.import_is_number(r.weight) then 'the weight must be a number'
             when r.reps is not null and app.import_whole_number(r.reps) is null then 'Reps must be a whole number'
             when r.distance is not null and not app.import_is_number(r.distance) then 'Distance must be a number'
             when r.time_text is not null and r.seconds is null then 'Time must be a clock time like 0:25:00'
             when r.seconds >= 1e9 then 'Time must be at most 24:00:00'
           end,
           app.import_unit_problem(r.weight, r.weight_unit, 'Weight', 'Weight Unit',
                                   case when c_weight_unit is null then 1 else r.kg_per_unit end, 'kgs, lbs'),
           app.import_unit_problem(r.distance, r.distance_unit, 'Distance', 'Distance Unit', r.metres_per_unit,
                                   'km, m, mi, ft, yd')),
         case when r.seconds < 1e9 then nullif(round(r.seconds), 0)::integer end,
         app.import_distance_m(r.distance, r.metres_per_unit),
         null::text, r.day, null::numeric, null::integer, null::text
    from typed as r
    left join notes as n on n.date_text = r.date_text and n.exercise_key = lower(r.exercise);
end
$$;

grant execute on function
  app.import_iso_date(text),
  app.import_fitnotes_rows(jsonb)
to liftbase_api;
