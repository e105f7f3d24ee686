-- CSV exports (RFC 4180): CRLF line ends; a field with a comma, a quote, CR or LF is
-- quoted and its quotes doubled; null is an empty field. Rows come in file order, the
-- header first, one row of text each, for the server and the CLI to stream.

create or replace function app.csv_field(p_value text)
returns text
language sql
immutable
as $$
  select case
    when p_value is null then ''
    when p_value ~ '[",\r\n]' then '"' || replace(p_value, '"', '""') || '"'
    else p_value
  end
$$;

-- A whole line from its fields (headers, tests); the long exports inline the same
-- app.csv_field calls, which is much cheaper per row.
create or replace function app.csv_row(variadic p_fields text[])
returns text
language sql
immutable
as $$
  select string_agg(app.csv_field(f), ',' order by n) || E'\r\n' from unnest(p_fields) with ordinality as u (f, n)
$$;

-- Breakfast to snack: the order of a diary day in exports.
create or replace function app.meal_order(p_meal_type text)
returns integer
language sql
immutable
as $$ select array_position(array['breakfast', 'lunch', 'dinner', 'snack'], p_meal_type) $$;

-- Strong's duration text: "1h", "1h 5m", "45m"; null when the session has no times.
create or replace function app.strong_duration(p_started_at timestamptz, p_finished_at timestamptz)
returns text
language sql
immutable
as $$
  select case
    when p_started_at is null or p_finished_at is null then null
    when minutes >= 60 and minutes % 60 > 0 then (minutes / 60) || 'h ' || (minutes % 60) || 'm'
    when minutes >= 60 then (minutes / 60) || 'h'
    else minutes || 'm'
  end
    from (select (extract(epoch from p_finished_at - p_started_at) / 60)::integer as minutes) as d
$$;

-- Completed sessions, one row per set, in Strong's column layout, with three columns of
-- Liftbase's own after it: Assistance (kg), Superset (the exercise's group in its session)
-- and Superset Rest Seconds (the rest after the group), which /import/strong reads back, so
-- that every set field comes back. Set Order numbers the working sets of an exercise;
-- other set types are W (warm-up), D (drop set), F (failure) as Strong writes them. Rows are
-- joined with concat_ws over app.csv_field (inlined) rather than app.csv_row (a subquery per
-- call): a five-year history has 60,000 sets.
create or replace function app.workouts_csv(p_user_id uuid)
returns setof text
language plpgsql
stable
as $$
declare
  -- As text: on Citus a value of the app.timezone_name domain read from a worker is checked
  -- where it arrives, and the check's exception block (a savepoint Citus sends to the
  -- worker) fails on the connection still delivering the row.
  v_zone text := (select s.timezone::text from app.user_settings as s where s.user_id = p_user_id);
begin
  return next app.csv_row('Date', 'Workout Name', 'Duration', 'Exercise Name', 'Set Order', 'Weight', 'Reps',
                          'Distance', 'Seconds', 'Notes', 'Workout Notes', 'RPE', 'Assistance', 'Superset',
                          'Superset Rest Seconds');
  return query
    with workouts as materialized (
      -- What every row of a session repeats, formatted once per session.
      select t.id, t.session_date, t.started_at, t.created_at, t.name,
             -- concat_ws drops a null: a date to_char cannot write (an infinite one, which no
             -- request can give any more) stays an empty field, so every row keeps 15 fields.
             concat_ws(',',
               coalesce(to_char(coalesce(t.started_at at time zone v_zone, t.session_date::timestamp),
                                'YYYY-MM-DD HH24:MI:SS'), ''),
               app.csv_field(t.name), app.csv_field(app.strong_duration(t.started_at, t.finished_at))) as head,
             app.csv_field(t.notes) as notes
        from app.training_sessions as t
       where t.user_id = p_user_id and t.status = 'completed'
    )
    select concat_ws(',', w.head, app.csv_field(e.exercise_name),
             case s.set_type
               when 'warmup' then 'W' when 'dropset' then 'D' when 'failure' then 'F'
               else (count(*) filter (where s.set_type = 'working')
                       over (partition by s.session_id, s.exercise_position order by s.position))::text
             end,
             -- Weight: the load; Distance in km, Seconds; a measure the set does not hold is 0, as
             -- Strong writes it (its importer reads such a 0 as none). Assistance, Superset and
             -- Superset Rest Seconds are empty when the set or exercise has none.
             coalesce(s.weight_kg, 0)::text, coalesce(s.reps, 0)::text,
             coalesce(trim_scale(s.distance_m / 1000), 0)::text, coalesce(s.duration_seconds, 0)::text,
             app.csv_field(e.notes), w.notes, app.csv_field(s.rpe::text), coalesce(s.assistance_kg::text, ''),
             coalesce(e.superset_group::text, ''), coalesce(e.group_rest_seconds::text, ''))
           || E'\r\n'
      from workouts as w
      join app.session_exercises as e on e.user_id = p_user_id and e.session_id = w.id
      join app.session_sets as s
        on s.user_id = p_user_id and s.session_id = e.session_id and s.exercise_position = e.position
     order by w.session_date, w.started_at nulls last, w.created_at, w.name, w.id, e.position, s.position;
end
$$;

create or replace function app.nutrition_csv(p_user_id uuid)
returns setof text
language plpgsql
stable
as $$
begin
  return next app.csv_row('Date', 'Meal', 'Name', 'Calories', 'Protein (g)', 'Carbs (g)', 'Fat (g)', 'Servings',
                          'Source');
  return query
    select concat_ws(',', f.entry_date::text, f.meal_type, app.csv_field(f.name), f.calories::text, f.protein_g::text,
                     f.carbs_g::text, f.fat_g::text, app.csv_field(f.servings::text), f.source) || E'\r\n'
      from app.food_entries as f
     where f.user_id = p_user_id
     order by f.entry_date, app.meal_order(f.meal_type), f.created_at, f.name, f.id;
end
$$;

create or replace function app.body_metrics_csv(p_user_id uuid)
returns setof text
language plpgsql
stable
as $$
declare
  v_zone text := (select s.timezone::text from app.user_settings as s
                   where s.user_id = p_user_id); -- as text: see above
begin
  return next app.csv_row('Date', 'Time', 'Weight (kg)', 'Body Fat (%)', 'Height (cm)');
  return query
    select concat_ws(',', coalesce(to_char(m.recorded_at at time zone v_zone, 'YYYY-MM-DD'), ''),
                     coalesce(to_char(m.recorded_at at time zone v_zone, 'HH24:MI:SS'), ''),
                     m.weight_kg::text, app.csv_field(m.body_fat_pct::text), app.csv_field(m.height_cm::text))
                     || E'\r\n'
      from app.body_metrics as m
     where m.user_id = p_user_id
     order by m.recorded_at, m.created_at, m.id;
end
$$;

grant execute on function
  app.csv_field(text),
  app.csv_row(text[]),
  app.meal_order(text),
  app.strong_duration(timestamptz, timestamptz),
  app.workouts_csv(uuid),
  app.nutrition_csv(uuid),
  app.body_metrics_csv(uuid)
to liftbase_api;
