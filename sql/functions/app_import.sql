-- Importing other apps' exports (POST /import/{format}). The HTTP layer only turns a CSV
-- body into {file_sha256, header: [...], rows: [{line, fields: [...]}]}; every mapping rule
-- (which column means what, units, set types, dates) lives here. A file is imported whole
-- or not at all: every row's problems are collected first and named by line.

-- The 0-based index of the first header cell equal (trimmed, case-insensitive) to one of
-- p_names, tried in order; null when the file has none of them.
create or replace function app.import_column(p_header jsonb, p_names text[])
returns integer
language sql
immutable
as $$
  select h.n - 1
    from unnest(p_names) with ordinality as w (name, k)
    join jsonb_array_elements_text(p_header) with ordinality as h (cell, n) on lower(btrim(h.cell)) = lower(w.name)
   order by w.k, h.n
   limit 1
$$;

-- A cell as text, trimmed; empty cells and absent columns are null.
create or replace function app.import_cell(p_fields jsonb, p_index integer)
returns text
language sql
immutable
as $$ select nullif(btrim(p_fields ->> p_index), '') $$;

-- A number cell with its decimal mark as a point: files written where a comma is the
-- decimal mark (and a semicolon separates fields) write 62,5 for 62.5. One or two digits
-- after the comma only: 1,000 is a thousand written with a separator, not a decimal, and
-- stays no number. Any other text is returned as it is.
create or replace function app.import_decimal_text(p_text text)
returns text
language sql
immutable
as $$ select case when p_text ~ '^[+-]?[0-9]*,[0-9]{1,2}$' then replace(p_text, ',', '.') else p_text end $$;

-- Whether a cell is a plain decimal number (the form every supported export writes).
create or replace function app.import_is_number(p_text text)
returns boolean
language sql
immutable
as $$ select app.import_decimal_text(p_text) ~ '^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$' $$;

-- A plain decimal number cell as a number (no trailing zeros: a file's 6.00 is 6), or null.
create or replace function app.import_number(p_text text)
returns numeric
language sql
immutable
as $$ select case when app.import_is_number(p_text) then trim_scale(app.import_decimal_text(p_text)::numeric) end $$;

-- A count as apps write it: a whole number, also with a decimal point and zeros (a 2025
-- Strong export writes reps as 10.0); null for anything else (10.5, 1e3, words).
create or replace function app.import_whole_number(p_text text)
returns integer
language sql
immutable
as $$
  select case when app.import_decimal_text(p_text) ~ '^\+?[0-9]{1,9}(\.0*)?$'
              then trunc(app.import_decimal_text(p_text)::numeric)::integer end
$$;

-- A wall-clock time from its parts, or null when there is no such date or time, or its
-- year is outside 1900–2999 (the dates every request takes, app_input.sql).
create or replace function app.import_local_time(p_year integer, p_month integer, p_day integer,
  p_hour integer, p_minute integer, p_second integer)
returns timestamp
language plpgsql
immutable
as $$
begin
  if p_year not between 1900 and 2999 then
    return null;
  end if;
  return make_timestamp(p_year, p_month, p_day, p_hour, p_minute, p_second);
exception when datetime_field_overflow or invalid_datetime_format then
  return null;
end
$$;

-- "2024-12-22 12:00:00" (seconds optional, a T allowed): Strong's dates.
create or replace function app.import_iso_time(p_text text)
returns timestamp
language sql
immutable
as $$
  select app.import_local_time(m[1]::integer, m[2]::integer, m[3]::integer, m[4]::integer, m[5]::integer,
                               coalesce(m[6], '0')::integer)
    from regexp_match(p_text, '^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})[ T]([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?$') as m
$$;

-- "8 Apr 2026, 16:50": Hevy's dates (English month names, full or abbreviated).
create or replace function app.import_hevy_time(p_text text)
returns timestamp
language sql
immutable
as $$
  select app.import_local_time(m[3]::integer,
           array_position(array['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
                          lower(left(m[2], 3))),
           m[1]::integer, m[4]::integer, m[5]::integer, 0)
    from regexp_match(p_text, '^([0-9]{1,2}) ([A-Za-z]{3,9}),? ([0-9]{4}),? ([0-9]{1,2}):([0-9]{2})$') as m
$$;

-- Strong's Duration: "1h 5m", "45m", "1h", "30s", or a number of seconds.
create or replace function app.import_duration(p_text text)
returns interval
language sql
immutable
as $$
  select case
    when p_text ~ '^[0-9]{1,9}$' then make_interval(secs => p_text::integer)
    -- At most 6 digits a part: a larger number is no length of time an app writes, and
    -- would not fit an integer.
    when p_text ~ '^\s*([0-9]{1,6}\s*h)?\s*([0-9]{1,6}\s*min)?\s*([0-9]{1,6}\s*m)?\s*([0-9]{1,6}\s*s)?\s*$'
         and p_text ~ '[0-9]' then
      make_interval(hours => coalesce((regexp_match(p_text, '([0-9]+)\s*h'))[1]::integer, 0),
                    mins => coalesce((regexp_match(p_text, '([0-9]+)\s*m'))[1]::integer, 0),
                    secs => coalesce((regexp_match(p_text, '([0-9]+)\s*s'))[1]::integer, 0))
  end
$$;

-- Kilograms per unit of the weight column a workout file names. Strong's plain `Weight`,
-- the `kg` columns and FitNotes' `Weight (kgs)` are kilograms; `lb`/`lbs` columns and
-- `Weight (lbs)` are pounds (exactly 0.45359237 kg). A `Weight Unit` column beside a plain
-- `Weight` names the unit row by row (app.import_kg_per_unit).
create or replace function app.import_weight_column(p_header jsonb, out column_index integer, out kg_per_unit numeric)
language sql
immutable
as $$
  select coalesce(app.import_column(p_header, array['weight_kg', 'kg', 'weight', 'weight (kgs)', 'weight (kg)']),
                  app.import_column(p_header, array['weight_lbs', 'weight_lb', 'lbs', 'lb', 'weight (lbs)', 'weight (lb)'])),
         case when app.import_column(p_header, array['weight_kg', 'kg', 'weight', 'weight (kgs)', 'weight (kg)']) is not null
              then 1 else 0.45359237 end
$$;

-- Kilograms per unit of a weight unit cell (kg, kgs, lb, lbs, any case); null for any other.
create or replace function app.import_kg_per_unit(p_unit text)
returns numeric
language sql
immutable
as $$
  select case when lower(btrim(p_unit)) in ('kg', 'kgs', 'kilogram', 'kilograms') then 1
              when lower(btrim(p_unit)) in ('lb', 'lbs', 'pound', 'pounds') then 0.45359237 end
$$;

-- Metres per unit of a distance unit cell (km, m, mi, ft, yd and their spelled-out names,
-- any case); null for any other.
create or replace function app.import_metres_per_unit(p_unit text)
returns numeric
language sql
immutable
as $$
  select case
    when lower(btrim(p_unit)) in ('km', 'kms', 'kilometer', 'kilometers', 'kilometre', 'kilometres') then 1000
    when lower(btrim(p_unit)) in ('m', 'meter', 'meters', 'metre', 'metres') then 1
    when lower(btrim(p_unit)) in ('mi', 'mile', 'miles') then 1609.344
    when lower(btrim(p_unit)) in ('ft', 'foot', 'feet') then 0.3048
    when lower(btrim(p_unit)) in ('yd', 'yds', 'yard', 'yards') then 0.9144
  end
$$;

-- The distance column a workout file names and metres per unit of it: `Distance` (Strong:
-- kilometres, or row by row in a `Distance Unit` column, app.import_metres_per_unit), `km`
-- and `distance_km`, `mi`/`miles` and `distance_miles` (the early Strong layouts and
-- Hevy's exports in imperial units), `distance_m`/`distance_meters`, and the unit in
-- brackets of Strong's newest layout (`Distance (meters)`, `Distance (miles)`).
create or replace function app.import_distance_column(p_header jsonb, out column_index integer,
  out metres_per_unit numeric)
language sql
immutable
as $$
  select d.i, d.per_unit
    from (select) as one
    left join lateral (
      select c.i, c.per_unit
        from (values (1, array['distance', 'km', 'distance_km', 'distance (km)'], 1000::numeric),
                     (2, array['mi', 'miles', 'distance_miles', 'distance_mi', 'distance (mi)', 'distance (miles)'], 1609.344),
                     (3, array['distance_m', 'distance_meters', 'distance (m)', 'distance (meters)', 'distance (metres)'], 1))
           as k (n, names, per_unit)
       cross join lateral (select app.import_column(p_header, k.names) as i, k.per_unit) as c
       where c.i is not null
       order by k.n
       limit 1) as d on true
$$;

-- The problem of a value given in a unit column: none when the value is blank or 0 (the
-- unit then says nothing), else the unit must be one p_known names.
create or replace function app.import_unit_problem(p_value text, p_unit text, p_value_column text, p_unit_column text,
  p_per_unit numeric, p_known text)
returns text
language sql
immutable
as $$
  select case
    when p_value is null or app.import_number(p_value) = 0 or p_per_unit is not null then null
    when p_unit is null then format('%s is required with a %s (%s)', p_unit_column, p_value_column, p_known)
    else format('%s "%s" is not a known unit (%s)', p_unit_column, p_unit, p_known)
  end
$$;

-- A distance cell in metres (rounded to 0.1 m, 0 being none), p_metres_per_unit being the
-- cell's unit.
create or replace function app.import_distance_m(p_text text, p_metres_per_unit numeric)
returns numeric
language sql
immutable
as $$ select nullif(trim_scale(round(app.import_number(p_text) * p_metres_per_unit, 1)), 0) $$;

-- A clock time as FitNotes writes a duration ("0:25:00", "1:02:03", "25:00") in seconds,
-- or null when it is not one.
create or replace function app.import_clock_seconds(p_text text)
returns integer
language sql
immutable
as $$
  select case when m[1] is not null then m[1]::integer * 3600 + m[2]::integer * 60 + m[3]::integer
              else m[2]::integer * 60 + m[3]::integer end
    from regexp_match(btrim(p_text), '^(?:([0-9]{1,4}):)?([0-9]{1,4}):([0-5][0-9])$') as m
$$;

-- A length of time in seconds as the apps write one: a number of seconds (120, 95.5), a
-- clock (h:mm:ss or m:ss, FitNotes' 0:25:00) or Strong's words (1h 2m, 20s); null for
-- anything else.
create or replace function app.import_seconds(p_text text)
returns numeric
language sql
immutable
as $$
  select coalesce(app.import_number(p_text), app.import_clock_seconds(p_text),
                  extract(epoch from app.import_duration(p_text)))
$$;

-- A load in kg from a weight cell (empty: body weight, 0), rounded to 10 g, without the
-- trailing zeros rounding adds (a file's 100 is 100, not 100.00).
create or replace function app.import_weight_kg(p_text text, p_kg_per_unit numeric)
returns numeric
language sql
immutable
as $$
  select case when p_text is null then 0 else trim_scale(round(app.import_number(p_text) * p_kg_per_unit, 2)) end
$$;

-- A workout row that only carries a problem (a file missing a column, a bad header).
create or replace function app.import_line_problem(p_line integer, p_problem text)
returns app.import_set_row
language plpgsql
immutable
as $$
declare
  v_row app.import_set_row;
begin
  v_row.line := p_line;
  v_row.problem := p_problem;
  return v_row;
end
$$;

-- The problem of a file missing a required column, reported on its first line; null when
-- it has them all.
create or replace function app.import_missing_columns(p_header jsonb, p_required text[])
returns app.import_set_row
language sql
immutable
as $$
  select app.import_line_problem(1, 'missing column ' || string_agg('"' || r.name || '"', ', ' order by r.k))
    from unnest(p_required) with ordinality as r (name, k)
   where app.import_column(p_header, array[r.name]) is null
  having count(*) > 0
$$;

-- Strong's CSV (one row per set): Date, Workout Name (a blank one is a session without a
-- name, as Liftbase writes such a session in workouts.csv), Duration?, Exercise Name, Set Order
-- (a number, or W warm-up, D drop set, F failure), Weight | kg | lb, Weight Unit?, Reps,
-- Notes?, Workout Notes?, RPE?, Distance? (kilometres, or in Distance Unit?), Seconds?: a 0
-- or blank distance or time is none (Strong writes 0 in every measure a set does not use).
-- Liftbase's own workouts.csv adds Assistance (kg), Superset (the group of the exercise in
-- its session) and Superset Rest Seconds, read back here.
create or replace function app.import_strong_rows(p_document jsonb)
returns setof app.import_set_row
language plpgsql
stable
as $$
declare
  v_header jsonb := coalesce(p_document -> 'header', '[]');
  v_weight record := app.import_weight_column(v_header);
  -- A row value is "not null" only when every field is: ask for the problem itself.
  v_missing text := (app.import_missing_columns(v_header,
    array['Date', 'Workout Name', 'Exercise Name', 'Set Order', 'Reps']
    || case when v_weight.column_index is null then array['Weight'] else '{}' end)).problem;
  c_date integer := app.import_column(v_header, array['Date']);
  c_workout integer := app.import_column(v_header, array['Workout Name']);
  -- Strong's newest layout gives the workout's length in seconds as `Duration (sec)`.
  c_duration integer := app.import_column(v_header, array['Duration', 'Duration (sec)']);
  c_exercise integer := app.import_column(v_header, array['Exercise Name']);
  c_order integer := app.import_column(v_header, array['Set Order']);
  c_weight_unit integer := app.import_column(v_header, array['Weight Unit']);
  c_reps integer := app.import_column(v_header, array['Reps']);
  c_notes integer := app.import_column(v_header, array['Notes']);
  c_workout_notes integer := app.import_column(v_header, array['Workout Notes']);
  c_rpe integer := app.import_column(v_header, array['RPE']);
  v_distance record := app.import_distance_column(v_header);
  c_distance_unit integer := app.import_column(v_header, array['Distance Unit']);
  c_seconds integer := app.import_column(v_header, array['Seconds']);
  c_assistance integer := app.import_column(v_header, array['Assistance']);
  c_superset integer := app.import_column(v_header, array['Superset']);
  c_superset_rest integer := app.import_column(v_header, array['Superset Rest Seconds']);
begin
  if v_missing is not null then
    return next app.import_line_problem(1, v_missing);
    return;
  end if;
  -- Dates and durations repeat on every set of a workout: each distinct one is parsed once.
  return query
  with cells as materialized (
    select app.read_integer(x.item, 'line') as line,
           app.import_cell(x.item -> 'fields', c_date) as date,
           app.import_cell(x.item -> 'fields', c_workout) as workout,
           app.import_cell(x.item -> 'fields', c_duration) as duration,
           app.import_cell(x.item -> 'fields', c_exercise) as exercise,
           app.import_cell(x.item -> 'fields', c_order) as set_order,
           app.import_cell(x.item -> 'fields', v_weight.column_index) as weight,
           app.import_cell(x.item -> 'fields', c_weight_unit) as weight_unit,
           app.import_cell(x.item -> 'fields', c_reps) as reps,
           app.import_cell(x.item -> 'fields', c_notes) as notes,
           app.import_cell(x.item -> 'fields', c_workout_notes) as workout_notes,
           app.import_cell(x.item -> 'fields', c_rpe) as rpe,
           app.import_cell(x.item -> 'fields', v_distance.column_index) as distance,
           app.import_cell(x.item -> 'fields', c_distance_unit) as distance_unit,
           app.import_cell(x.item -> 'fields', c_seconds) as seconds,
           app.import_cell(x.item -> 'fields', c_assistance) as assistance,
           app.import_cell(x.item -> 'fields', c_superset) as superset,
           app.import_cell(x.item -> 'fields', c_superset_rest) as superset_rest
      from jsonb_array_elements(coalesce(p_document -> 'rows', '[]')) as x (item)),
  times as materialized (
    select d.date, app.import_iso_time(d.date) as started from (select distinct c.date from cells as c) as d),
  durations as materialized (
    select d.duration, app.import_duration(d.duration) as length
      from (select distinct c.duration from cells as c) as d),
  units as materialized (
    -- Without a unit column every row is in the unit its column names (Distance: km).
    select c.*,
           case when c_weight_unit is null then v_weight.kg_per_unit else app.import_kg_per_unit(c.weight_unit) end
             as kg_per_unit,
           case when c_distance_unit is null then v_distance.metres_per_unit
                else app.import_metres_per_unit(c.distance_unit) end as metres_per_unit
      from cells as c),
  typed as materialized (
    select c.*, t.started, u.length, app.import_seconds(c.seconds) as set_seconds,
           app.import_weight_kg(c.weight, coalesce(c.kg_per_unit, 1)) as weight_kg,
           app.import_weight_kg(c.assistance, coalesce(c.kg_per_unit, 1)) as assistance_kg
      from units as c
      left join times as t on t.date = c.date
      left join durations as u on u.duration = c.duration)
  -- Strong writes the rest between sets as rows of their own (Set Order "Rest Timer", the
  -- rest in Seconds): they are no sets, and are skipped.
  select r.line, 'strong|' || coalesce(r.date, '') || '|' || coalesce(r.workout, ''),
         r.started, r.started + r.length, r.workout, r.workout_notes, r.exercise, r.notes,
         r.line, case when r.set_order ~ '^[0-9]+$' then 'working' when upper(r.set_order) = 'W' then 'warmup'
                      when upper(r.set_order) = 'D' then 'dropset' when upper(r.set_order) = 'F' then 'failure' end,
         r.weight_kg,
         case when r.reps is null then 0 else app.import_whole_number(r.reps) end,
         app.import_number(r.rpe),
         case when lower(r.set_order) = 'rest timer' then null else coalesce(
           case
             when r.started is null then 'Date must be a date and time like 2024-05-01 06:30:00'
             when r.exercise is null then 'Exercise Name is required'
             when r.duration is not null and r.length is null then 'Duration must look like 1h 5m'
             when r.set_order is null or r.set_order !~* '^([0-9]+|W|D|F)$' then
               'Set Order must be a number, or W (warm-up), D (drop set) or F (failure)'
             when r.weight_kg is null then 'the weight must be a number'
             when r.reps is not null and app.import_whole_number(r.reps) is null then 'Reps must be a whole number'
             when r.rpe is not null and not app.import_is_number(r.rpe) then 'RPE must be a number'
             when r.distance is not null and not app.import_is_number(r.distance) then 'Distance must be a number'
             when r.seconds is not null and r.set_seconds is null then 'Seconds must be a number of seconds or a time like 1:30'
             when abs(r.set_seconds) >= 1e9 then 'Seconds must be at most 86400 (24 hours)'
             when r.assistance_kg is null then 'Assistance must be a number'
             when r.superset_rest is not null and r.superset_rest !~ '^[0-9]{1,9}$' then
               'Superset Rest Seconds must be a whole number'
           end,
           app.import_unit_problem(r.weight, r.weight_unit, 'Weight', 'Weight Unit', r.kg_per_unit, 'kg, lbs'),
           app.import_unit_problem(r.assistance, r.weight_unit, 'Assistance', 'Weight Unit', r.kg_per_unit, 'kg, lbs'),
           app.import_unit_problem(r.distance, r.distance_unit, 'Distance', 'Distance Unit', r.metres_per_unit,
                                   'km, m, mi, ft, yd')) end,
         case when abs(r.set_seconds) < 1e9 then nullif(round(r.set_seconds), 0)::integer end,
         app.import_distance_m(r.distance, r.metres_per_unit),
         r.superset,
         null::date,
         nullif(r.assistance_kg, 0),
         case when r.superset_rest ~ '^[0-9]{1,9}$' then r.superset_rest::integer end,
         case when lower(r.set_order) = 'rest timer' then 'a rest timer row, not a set' end
    from typed as r;
end
$$;

-- Hevy's CSV (one row per set): title, start_time, end_time, description, exercise_title,
-- exercise_notes, set_index (0-based), set_type (normal, warmup, dropset, failure),
-- weight_kg | weight_lbs, reps, rpe, distance_km | distance_miles?, duration_seconds?, superset_id? (the
-- exercises of a workout that share one form a superset). A 0 or blank distance or time is none.
create or replace function app.import_hevy_rows(p_document jsonb)
returns setof app.import_set_row
language plpgsql
stable
as $$
declare
  v_header jsonb := coalesce(p_document -> 'header', '[]');
  v_weight record := app.import_weight_column(v_header);
  -- A row value is "not null" only when every field is: ask for the problem itself.
  v_missing text := (app.import_missing_columns(v_header, array['title', 'start_time', 'exercise_title', 'set_index', 'reps']
    || case when v_weight.column_index is null then array['weight_kg'] else '{}' end)).problem;
  c_title integer := app.import_column(v_header, array['title']);
  c_start integer := app.import_column(v_header, array['start_time']);
  c_end integer := app.import_column(v_header, array['end_time']);
  c_description integer := app.import_column(v_header, array['description']);
  c_exercise integer := app.import_column(v_header, array['exercise_title']);
  c_exercise_notes integer := app.import_column(v_header, array['exercise_notes']);
  c_index integer := app.import_column(v_header, array['set_index']);
  c_type integer := app.import_column(v_header, array['set_type']);
  c_reps integer := app.import_column(v_header, array['reps']);
  c_rpe integer := app.import_column(v_header, array['rpe']);
  v_distance record := app.import_distance_column(v_header);
  c_seconds integer := app.import_column(v_header, array['duration_seconds']);
  c_superset integer := app.import_column(v_header, array['superset_id']);
begin
  if v_missing is not null then
    return next app.import_line_problem(1, v_missing);
    return;
  end if;
  -- Start and end times repeat on every set of a workout: each distinct one is parsed once.
  return query
  with cells as materialized (
    select app.read_integer(x.item, 'line') as line,
           app.import_cell(x.item -> 'fields', c_title) as title,
           app.import_cell(x.item -> 'fields', c_start) as start_text,
           app.import_cell(x.item -> 'fields', c_end) as end_text,
           app.import_cell(x.item -> 'fields', c_description) as description,
           app.import_cell(x.item -> 'fields', c_exercise) as exercise,
           app.import_cell(x.item -> 'fields', c_exercise_notes) as exercise_notes,
           app.import_cell(x.item -> 'fields', c_index) as set_index,
           app.import_cell(x.item -> 'fields', c_type) as set_type,
           app.import_cell(x.item -> 'fields', v_weight.column_index) as weight,
           app.import_cell(x.item -> 'fields', c_reps) as reps,
           app.import_cell(x.item -> 'fields', c_rpe) as rpe,
           app.import_cell(x.item -> 'fields', v_distance.column_index) as distance,
           app.import_cell(x.item -> 'fields', c_seconds) as seconds,
           app.import_cell(x.item -> 'fields', c_superset) as superset
      from jsonb_array_elements(coalesce(p_document -> 'rows', '[]')) as x (item)),
  times as materialized (
    select d.text, app.import_hevy_time(d.text) as local_time
      from (select c.start_text as text from cells as c union select c.end_text from cells as c) as d),
  typed as materialized (
    select c.*, s.local_time as started, e.local_time as finished, app.import_seconds(c.seconds) as set_seconds,
           app.import_weight_kg(c.weight, v_weight.kg_per_unit) as weight_kg
      from cells as c
      left join times as s on s.text = c.start_text
      left join times as e on e.text = c.end_text)
  select r.line, 'hevy|' || coalesce(r.start_text, '') || '|' || coalesce(r.title, ''),
         r.started, r.finished, r.title, r.description, r.exercise, r.exercise_notes,
         case when r.set_index ~ '^[0-9]{1,9}$' then r.set_index::integer end,
         case coalesce(lower(r.set_type), 'normal') when 'normal' then 'working' when 'warmup' then 'warmup'
              when 'dropset' then 'dropset' when 'failure' then 'failure' end,
         r.weight_kg,
         case when r.reps is null then 0 else app.import_whole_number(r.reps) end,
         app.import_number(r.rpe),
         case
           when r.started is null then 'start_time must be a date and time like 8 Apr 2026, 16:50'
           when r.end_text is not null and r.finished is null then 'end_time must be a date and time like 8 Apr 2026, 17:43'
           when r.title is null then 'title is required'
           when r.exercise is null then 'exercise_title is required'
           when r.set_index is null or r.set_index !~ '^[0-9]{1,9}$' then 'set_index must be a whole number'
           when coalesce(lower(r.set_type), 'normal') not in ('normal', 'warmup', 'dropset', 'failure') then
             'set_type must be one of normal, warmup, dropset, failure'
           when r.weight_kg is null then 'the weight must be a number'
           when r.reps is not null and app.import_whole_number(r.reps) is null then 'reps must be a whole number'
           when r.rpe is not null and not app.import_is_number(r.rpe) then 'rpe must be a number'
           when r.distance is not null and not app.import_is_number(r.distance) then 'the distance must be a number'
           when r.seconds is not null and r.set_seconds is null then 'duration_seconds must be a number'
           when abs(r.set_seconds) >= 1e9 then 'duration_seconds must be at most 86400 (24 hours)'
         end,
         case when abs(r.set_seconds) < 1e9 then nullif(round(r.set_seconds), 0)::integer end,
         app.import_distance_m(r.distance, v_distance.metres_per_unit),
         r.superset, null::date, null::numeric, null::integer, null::text
    from typed as r;
end
$$;

grant execute on function
  app.import_decimal_text(text),
  app.import_number(text),
  app.import_whole_number(text),
  app.import_seconds(text),
  app.import_distance_column(jsonb),
  app.import_column(jsonb, text[]),
  app.import_cell(jsonb, integer),
  app.import_is_number(text),
  app.import_local_time(integer, integer, integer, integer, integer, integer),
  app.import_iso_time(text),
  app.import_hevy_time(text),
  app.import_duration(text),
  app.import_weight_column(jsonb),
  app.import_kg_per_unit(text),
  app.import_metres_per_unit(text),
  app.import_unit_problem(text, text, text, text, numeric, text),
  app.import_distance_m(text, numeric),
  app.import_clock_seconds(text),
  app.import_weight_kg(text, numeric),
  app.import_line_problem(integer, text),
  app.import_missing_columns(jsonb, text[]),
  app.import_strong_rows(jsonb),
  app.import_hevy_rows(jsonb)
to liftbase_api;

-- POST /import/{strong|hevy|fitnotes|cronometer|myfitnesspal}?dry_run=: a CSV export of another app, sent by the
-- HTTP layer as {file_sha256, header, rows: [{line, fields}]}; POST /import/liftbase: a
-- Liftbase export document (JSON) as it is. Every run is recorded in
-- app.import_runs, failed and dry ones too. A file with problems imports nothing and is
-- answered 422 with the contract's shape plus the usual error object:
-- {"error": {"code": "import_invalid", ...}, "imported": 0, "skipped_duplicates": 0,
--  "errors": [{"line", "message"}]}. The answer is returned rather than raised so that the
-- run record survives.
-- The cells of a file's nutrient columns that the source app left blank, one warning per
-- line naming them: such a row is imported with those values counted as 0 (a blank is
-- unknown, not invalid).
create or replace function app.import_blank_warnings(p_document jsonb, p_columns text[])
returns jsonb
language sql
stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('line', w.line, 'message', w.blank || ' blank: counted as 0')
                            order by w.line), '[]')
    from (select app.read_integer(x.item, 'line') as line, string_agg(c.name, ', ' order by c.n) as blank
            from jsonb_array_elements(coalesce(p_document -> 'rows', '[]')) as x (item)
           cross join lateral (select c.name, c.n, app.import_column(p_document -> 'header', array[c.name]) as idx
                                 from unnest(p_columns) with ordinality as c (name, n)) as c
           where c.idx is not null and app.import_cell(x.item -> 'fields', c.idx) is null
           group by app.read_integer(x.item, 'line')) as w
$$;

-- Real files are not always well formed: a name holding an unquoted comma gives its row one
-- field too many. Where the comma can be put back without doubt (joined into p_name by a
-- comma and a space, as names are written: the CSV reader drops the spaces that begin an
-- unquoted field, so the file's own spacing is not known; every
-- column of p_numbers parses as a number or is blank, none of p_words is a number) the row
-- is recovered and a warning
-- says how it was read; a row that still has more fields than the header keeps them, with
-- a `problem` member naming its width, which the importers report as the row's error.
-- Returns the document so mended, and the warnings.
create or replace function app.import_rejoin_split_names(p_document jsonb, p_name text, p_numbers text[],
  p_words text[], out document jsonb, out warnings jsonb)
language plpgsql
stable
as $$
declare
  v_header jsonb := coalesce(p_document -> 'header', '[]');
  v_width integer := jsonb_array_length(coalesce(p_document -> 'header', '[]'));
  v_name integer := app.import_column(coalesce(p_document -> 'header', '[]'), array[p_name]);
  v_numbers integer[] := array(select c.i from unnest(p_numbers) as n (name)
                                cross join lateral (select app.import_column(v_header, array[n.name]) as i) as c
                                where c.i is not null);
  v_words integer[] := array(select c.i from unnest(p_words) as n (name)
                              cross join lateral (select app.import_column(v_header, array[n.name]) as i) as c
                              where c.i is not null);
begin
  with rows as (
    select x.n, x.item, app.read_integer(x.item, 'line') as line, jsonb_array_length(x.item -> 'fields') as width,
           case when v_name is not null and jsonb_array_length(x.item -> 'fields') = v_width + 1 then
             jsonb_set((x.item -> 'fields') - (v_name + 1), array[v_name::text],
                       to_jsonb(concat((x.item -> 'fields') ->> v_name, ', ', ltrim((x.item -> 'fields') ->> (v_name + 1)))))
           end as rejoined
      from jsonb_array_elements(coalesce(p_document -> 'rows', '[]')) with ordinality as x (item, n)),
  judged as (
    select r.*, r.rejoined is not null and not exists (
             select from unnest(v_numbers) as c (i)
              where app.import_cell(r.rejoined, c.i) is not null
                and not app.import_is_number(app.import_cell(r.rejoined, c.i)))
           and not exists (select from unnest(v_words) as c (i)
                            where app.import_is_number(app.import_cell(r.rejoined, c.i))) as recovered
      from rows as r)
  select jsonb_set(p_document, '{rows}', coalesce(jsonb_agg(
           case when j.recovered then jsonb_set(j.item, '{fields}', j.rejoined)
                when j.width > v_width then j.item || jsonb_build_object('problem',
                  format('the line has %s fields where the header has %s', j.width, v_width))
                else j.item end order by j.n), '[]')),
         coalesce(jsonb_agg(jsonb_build_object('line', j.line, 'message',
           format('%s held an unquoted comma: read as "%s"', p_name, j.rejoined ->> v_name)) order by j.n)
           filter (where j.recovered), '[]')
    into document, warnings
    from judged as j;
end
$$;

grant execute on function app.import_rejoin_split_names(jsonb, text, text[], text[]) to liftbase_api;

create or replace function app.import_run(p_user_id uuid, p_format text, p_document jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_dry_run boolean := app.import_flag(p_args, 'dry_run');
  v_strict boolean := app.import_flag(p_args, 'strict');
  v_result record;
  v_rows app.import_set_row[];
  -- Cells the source app left blank and the import read as unknown, rows recovered from an
  -- unquoted comma: {line, message}.
  v_warnings jsonb := '[]';
  v_columns jsonb;
  v_nutrients text[];
  v_rejoined record;
begin
  if p_format = 'liftbase' then
    if jsonb_typeof(p_document) is distinct from 'object' then
      perform app.raise_error(400, 'malformed_import', 'The body must be a Liftbase export document.');
    end if;
  elsif jsonb_typeof(p_document) is distinct from 'object' or jsonb_typeof(p_document -> 'rows') is distinct from 'array'
     or jsonb_typeof(p_document -> 'header') is distinct from 'array' or p_document ->> 'file_sha256' is null then
    perform app.raise_error(400, 'malformed_import', 'The import document lacks its header, rows or file hash.');
  end if;
  if p_format = 'liftbase' then
    select i.imported, i.skipped_duplicates, i.errors, '[]'::jsonb as skipped, i.errors <> '[]' as refused,
           '[]'::jsonb as exercises
      into v_result from app.import_liftbase(p_user_id, p_document, v_dry_run) as i;
  elsif p_format in ('cronometer', 'myfitnesspal') then
    v_columns := app.import_diary_columns(p_format);
    v_nutrients := array(select c.name from jsonb_each_text(v_columns) as c (key, name)
                          where c.key in ('energy', 'protein', 'carbs', 'fat') order by c.name);
    v_rejoined := app.import_rejoin_split_names(p_document, v_columns ->> 'name', v_nutrients, '{}');
    select d.imported, d.skipped_duplicates, d.errors, '[]'::jsonb as skipped, d.refused, '[]'::jsonb as exercises
      into v_result
      from app.import_diary(p_user_id, p_format, v_columns, v_rejoined.document, v_dry_run, v_strict) as d;
    select coalesce(jsonb_agg(w.item order by app.read_integer(w.item, 'line'), w.n), '[]') into v_warnings
      from jsonb_array_elements(v_rejoined.warnings || app.import_blank_warnings(v_rejoined.document, v_nutrients))
           with ordinality as w (item, n);
  elsif p_format = 'fitnotes' then
    -- FitNotes writes its exercise names unquoted: one holding a comma is put back where the
    -- numbers to its right then parse and its Category is a word.
    v_rejoined := app.import_rejoin_split_names(p_document, 'Exercise',
                    array['Weight (kgs)', 'Weight (kg)', 'Weight (lbs)', 'Weight (lb)', 'Weight', 'Reps', 'Distance'],
                    array['Category']);
    v_warnings := v_rejoined.warnings;
    select w.imported, w.skipped_duplicates, w.errors, w.skipped, w.refused, w.exercises
      into v_result
      from app.import_workouts(p_user_id, array(select app.import_fitnotes_rows(v_rejoined.document)), v_dry_run,
                               v_strict) as w;
  else
    v_rows := case p_format when 'strong' then array(select app.import_strong_rows(p_document))
                            else array(select app.import_hevy_rows(p_document)) end;
    select w.imported, w.skipped_duplicates, w.errors, w.skipped, w.refused, w.exercises
      into v_result from app.import_workouts(p_user_id, v_rows, v_dry_run, v_strict) as w;
  end if;
  insert into app.import_runs (user_id, format, file_sha256, dry_run, imported, skipped_duplicates, error_count)
  values (p_user_id, p_format,
          -- A JSON body reaches SQL parsed: its hash is that of its canonical jsonb text.
          coalesce(p_document ->> 'file_sha256', encode(sha256(convert_to(p_document::text, 'UTF8')), 'hex')), v_dry_run,
          case when v_result.refused then 0 else v_result.imported end,
          case when v_result.refused then 0 else v_result.skipped_duplicates end, jsonb_array_length(v_result.errors));
  if v_result.refused then
    perform app.set_response_status(422);
    return jsonb_build_object(
      'error', jsonb_build_object('code', 'import_invalid',
                                  'message', 'The file has problems; nothing was imported.'),
      'imported', 0, 'skipped_duplicates', 0, 'skipped', v_result.skipped, 'errors', v_result.errors,
      'warnings', v_warnings);
  end if;
  -- A workout file also answers how each of its exercise names resolved.
  return jsonb_build_object('imported', v_result.imported, 'skipped_duplicates', v_result.skipped_duplicates,
                            'skipped', v_result.skipped, 'errors', v_result.errors, 'warnings', v_warnings)
         || case when p_format in ('strong', 'hevy', 'fitnotes') then jsonb_build_object('exercises', v_result.exercises)
                 else '{}' end;
end
$$;

-- A yes-or-no query parameter of an import (dry_run, strict): true, false, 1 or 0; absent
-- is false.
create or replace function app.import_flag(p_args jsonb, p_name text)
returns boolean
language plpgsql
immutable
as $$
declare
  v_text text := lower(coalesce(p_args ->> p_name, 'false'));
begin
  if v_text not in ('true', 'false', '1', '0') then
    perform app.raise_parameter_problem(p_name, 'must be true or false');
  end if;
  return v_text in ('true', '1');
end
$$;

-- Problems {line, message} ordered by line (a problem of the whole file, line null, first),
-- in the order given within a line.
create or replace function app.import_problems_in_order(p_problems jsonb)
returns jsonb
language sql
immutable
as $$
  select coalesce(jsonb_agg(p.item order by app.read_integer(p.item, 'line') nulls first, p.n), '[]')
    from jsonb_array_elements(p_problems) with ordinality as p (item, n)
$$;

grant execute on function app.import_run(uuid, text, jsonb, jsonb) to liftbase_api;
grant execute on function
  app.import_flag(jsonb, text),
  app.import_problems_in_order(jsonb)
to liftbase_api;

grant execute on function app.import_blank_warnings(jsonb, text[]) to liftbase_api;
