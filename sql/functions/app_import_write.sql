-- Writing imported workouts and diary rows. Rows are written set-based (a file may hold tens
-- of thousands of sets); the column domains enforce the value rules, and only when they
-- refuse a row are the rows checked one by one to name the lines at fault.

-- The tracking type of each exercise (by lower-case name) of workout rows: the catalog's
-- or the user's own exercise's (app.resolve_exercise); for a name neither holds (it
-- becomes an own exercise) the type its rows show: a distance → weight_distance when a
-- load is given, else distance_duration; a time and no reps → weight_duration or duration;
-- an assistance given (Liftbase's workouts.csv) → assisted_bodyweight; a name the catalog
-- rule's exceptions call bodyweight or assisted (weighted dips, assisted pull-ups) → that;
-- otherwise weight_reps.
create or replace function app.import_exercise_types(p_user_id uuid, p_rows app.import_set_row[])
returns table (exercise_key text, tracking_type text)
language sql
stable
as $$
  select g.exercise_key,
         coalesce(app.exercise_tracking_type_or_null(p_user_id, x.exercise_id, x.user_exercise_id),
                  case when g.assistance then 'assisted_bodyweight'
                       when g.distance and g.load then 'weight_distance'
                       when g.distance then 'distance_duration'
                       when g.duration and not g.reps and g.load then 'weight_duration'
                       when g.duration and not g.reps then 'duration'
                       when app.derived_tracking_type(g.exercise_key, 'strength', 'other')
                              in ('bodyweight_reps', 'assisted_bodyweight')
                         then app.derived_tracking_type(g.exercise_key, 'strength', 'other')
                       else 'weight_reps' end)
    from (select lower(r.exercise_name) as exercise_key, bool_or(r.distance_m is not null) as distance,
                 bool_or(r.duration_seconds is not null) as duration, bool_or(coalesce(r.reps, 0) > 0) as reps,
                 bool_or(coalesce(r.weight_kg, 0) > 0) as load, bool_or(r.assistance_kg is not null) as assistance
            from unnest(p_rows) as r where r.exercise_name is not null group by lower(r.exercise_name)) as g
   cross join lateral app.resolve_exercise(p_user_id, jsonb_build_object('exercise_name', g.exercise_key)) as x
$$;

-- Workout rows as the sets their exercise's type takes: a 0 that stands for "not used" in
-- a measure the type does not take (or in the added load of bodyweight_reps) is none; the
-- load of an assisted_bodyweight exercise is its assistance, unless the row gives its
-- assistance apart (Liftbase's workouts.csv), when a load is one. p_exercise_keys and
-- p_tracking_types pair each exercise key with its type (app.import_exercise_types), read
-- before any write: the write reads no table through them (on Citus it runs on the worker).
create or replace function app.type_import_sets(p_rows app.import_set_row[], p_exercise_keys text[],
  p_tracking_types text[])
returns table (line integer, tracking_type text, weight_kg numeric, assistance_kg numeric, reps integer,
               duration_seconds integer, distance_m numeric)
language sql
immutable
as $$
  select r.line, t.tracking_type,
         case when t.tracking_type = 'assisted_bodyweight' and r.assistance_kg is null then null
              when r.weight_kg = 0 and app.set_field_rule(t.tracking_type, 'weight_kg') <> 'required' then null
              else r.weight_kg end,
         coalesce(r.assistance_kg, case when t.tracking_type = 'assisted_bodyweight' then nullif(r.weight_kg, 0) end),
         case when r.reps = 0 and app.set_field_rule(t.tracking_type, 'reps') = 'refused' then null else r.reps end,
         r.duration_seconds, r.distance_m
    from unnest(p_rows) as r
    join unnest(p_exercise_keys, p_tracking_types) as t (exercise_key, tracking_type)
      on t.exercise_key = lower(r.exercise_name)
$$;

-- The same for the user's exercises as they are now.
create or replace function app.import_typed_sets(p_user_id uuid, p_rows app.import_set_row[])
returns table (line integer, tracking_type text, weight_kg numeric, assistance_kg numeric, reps integer,
               duration_seconds integer, distance_m numeric)
language sql
stable
as $$
  select s.*
    from (select array_agg(t.exercise_key) as exercise_keys, array_agg(t.tracking_type) as tracking_types
            from app.import_exercise_types(p_user_id, p_rows) as t) as k
   cross join lateral app.type_import_sets(p_rows, k.exercise_keys, k.tracking_types) as s
$$;

-- Per-line problems of workout rows with the values the session tables refuse, each named
-- with the domain's own message, and the measures their exercise's type does not take.
create or replace function app.import_set_problems(p_user_id uuid, p_rows app.import_set_row[])
returns jsonb
language sql
stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('line', r.line, 'message', p.message) order by r.line, p.k), '[]')
    from unnest(p_rows) as r
    left join app.import_typed_sets(p_user_id, p_rows) as t on t.line = r.line
   cross join lateral (values
     (1, 'workout name: ' || app.field_problem(jsonb_build_object('v', r.session_name), 'v', 'app.session_name', false)),
     (2, 'workout notes: ' || app.field_problem(jsonb_build_object('v', r.session_notes), 'v', 'app.short_text', false)),
     (3, 'exercise name: ' || app.field_problem(jsonb_build_object('v', r.exercise_name), 'v', 'app.exercise_name')),
     (4, 'exercise notes: ' || app.field_problem(jsonb_build_object('v', r.exercise_notes), 'v', 'app.short_text', false)),
     (5, 'reps: ' || app.field_problem(jsonb_build_object('v', r.reps), 'v', 'app.reps')),
     (6, 'weight: ' || app.field_problem(jsonb_build_object('v', r.weight_kg), 'v', 'app.load_kg') || ' kg'),
     (7, 'RPE: ' || app.field_problem(jsonb_build_object('v', r.rpe), 'v', 'app.rpe', false)),
     (8, case when r.finished_local < r.started_local then 'the workout must not end before it starts' end),
     (9, 'seconds: ' || app.field_problem(jsonb_build_object('v', r.duration_seconds), 'v', 'app.duration_seconds', false)),
     (10, 'distance: ' || app.field_problem(jsonb_build_object('v', r.distance_m), 'v', 'app.distance_m', false)),
     (11, 'assistance: ' || app.field_problem(jsonb_build_object('v', r.assistance_kg), 'v', 'app.assistance_kg', false)
          || ' kg'),
     (12, 'superset rest: '
          || app.field_problem(jsonb_build_object('v', r.group_rest_seconds), 'v', 'app.rest_seconds', false)),
     (13, (select string_agg(f.key || ' ' || f.value, '; ' order by f.key)
             from jsonb_each_text(app.set_fit_problems(t.tracking_type,
                    app.set_measures(t.weight_kg, t.assistance_kg, t.reps, t.duration_seconds, t.distance_m))) as f)
          || ' (' || r.exercise_name || ' is tracked as ' || t.tracking_type || ')'))
     as p (k, message)
   where p.message is not null
$$;

-- The exercises of each imported session: one per exercise name (case-insensitive), in
-- order of first appearance in the file, with the first notes given for it; exercises that
-- share a superset key form a superset, groups numbered in order of first appearance, with
-- the rest after the group where the file gives it.
create or replace function app.import_exercise_positions(p_rows app.import_set_row[])
returns table (session_key text, exercise_key text, "position" integer, notes text, superset_group integer,
               group_rest_seconds integer)
language sql
immutable
as $$
  select g.session_key, g.exercise_key, row_number() over (partition by g.session_key order by g.first_line)::integer,
         g.notes,
         case when g.superset_key is not null then
           (select count(distinct k.superset_key)::integer
              from (select r.superset_key, min(r.line) as first_line from unnest(p_rows) as r
                     where r.session_key = g.session_key and r.superset_key is not null group by r.superset_key) as k
             where k.first_line <= (select min(r.line) from unnest(p_rows) as r
                                     where r.session_key = g.session_key and r.superset_key = g.superset_key)) end,
         g.group_rest_seconds
    from (select r.session_key, lower(r.exercise_name) as exercise_key, min(r.line) as first_line,
                 min(r.exercise_notes) as notes, min(r.superset_key) as superset_key,
                 max(r.group_rest_seconds) as group_rest_seconds
            from unnest(p_rows) as r group by r.session_key, lower(r.exercise_name)) as g
$$;

-- Stores workout rows as completed sessions: one session per session_key (skipped whole
-- when an earlier import stored it), exercises in order of first appearance, matched to
-- the catalog or the user's exercises by name as app.resolve_exercise matches them (new
-- names become user exercises), sets in set_order then file order. Every row is a set of
-- an exercise, so each session is complete (app.session_is_complete) by construction.
-- Times are the user's wall clock. Nothing is written when p_dry_run, or when any row has
-- a problem; errors lists them by line.
create or replace function app.import_workouts(p_user_id uuid, p_rows app.import_set_row[], p_dry_run boolean,
  out imported integer, out skipped_duplicates integer, out errors jsonb)
language plpgsql
as $$
declare
  v_timezone text := coalesce((select s.timezone from app.user_settings as s where s.user_id = p_user_id), 'UTC');
  v_new app.import_set_row[];
  v_session_keys text[];
  v_session_ids uuid[];
  v_new_ids uuid[];
  v_exercise_keys text[];
  v_tracking_types text[];
  v_new_names text[];
  v_new_types text[];
  v_exercise_ids uuid[];
  v_user_exercise_ids uuid[];
  v_exercise_names text[];
  v_state text;
  v_schema text;
  v_table text;
  v_column text;
  v_constraint text;
  v_datatype text;
  v_message text;
begin
  imported := 0;
  skipped_duplicates := 0;
  select coalesce(jsonb_agg(jsonb_build_object('line', r.line, 'message', r.problem) order by r.line), '[]')
    into errors from unnest(p_rows) as r where r.problem is not null;
  if errors <> '[]' then
    return;
  end if;
  select coalesce(array_agg(r order by r.line), '{}') into v_new
    from unnest(p_rows) as r
   where not exists (select from app.training_sessions as s where s.user_id = p_user_id and s.import_key = r.session_key);
  imported := cardinality(v_new);
  skipped_duplicates := cardinality(p_rows) - imported;
  begin
    -- Names resolve as in every request (app.resolve_exercise: the catalog, then the user's
    -- own exercises, case-insensitively), once per distinct name; a name neither holds
    -- becomes an own exercise first. Every read is done before the writes, and each insert
    -- selects from a row of the user (the settings or the session), so that Citus sends it
    -- whole to the user's worker: an insert from a plain select would be copied there, which
    -- row-level security refuses (docs/scaling.md), with its new keys drawn before (Citus
    -- sends no statement that calls a volatile function). The single node pays a
    -- primary-key read.
    select coalesce(array_agg(t.exercise_key), '{}'), coalesce(array_agg(t.tracking_type), '{}')
      into v_exercise_keys, v_tracking_types
      from app.import_exercise_types(p_user_id, v_new) as t;
    select coalesce(array_agg(gen_random_uuid()), '{}'), coalesce(array_agg(n.name), '{}'),
           coalesce(array_agg(t.tracking_type), '{}')
      into v_new_ids, v_new_names, v_new_types
      from (select distinct on (lower(r.exercise_name)) r.exercise_name as name
              from unnest(v_new) as r order by lower(r.exercise_name), r.line) as n
      join unnest(v_exercise_keys, v_tracking_types) as t (exercise_key, tracking_type) on t.exercise_key = lower(n.name)
     cross join lateral app.resolve_exercise(p_user_id, jsonb_build_object('exercise_name', n.name)) as x
     where x.exercise_id is null and x.user_exercise_id is null;
    insert into app.user_exercises as n (user_id, id, name, tracking_type)
    select u.user_id, e.id, e.name, e.tracking_type
      from app.user_settings as u
     cross join unnest(v_new_ids, v_new_names, v_new_types) as e (id, name, tracking_type)
     where u.user_id = p_user_id;
    select coalesce(array_agg(x.exercise_id order by k.n), '{}'), coalesce(array_agg(x.user_exercise_id order by k.n), '{}'),
           coalesce(array_agg(x.exercise_name order by k.n), '{}')
      into v_exercise_ids, v_user_exercise_ids, v_exercise_names
      from unnest(v_exercise_keys) with ordinality as k (exercise_key, n)
     cross join lateral app.resolve_exercise(p_user_id, jsonb_build_object('exercise_name', k.exercise_key)) as x;

    select coalesce(array_agg(k.session_key), '{}'), coalesce(array_agg(gen_random_uuid()), '{}')
      into v_session_keys, v_session_ids
      from (select distinct r.session_key from unnest(v_new) as r) as k;
    insert into app.training_sessions as n (user_id, id, session_date, name, notes, status, started_at, finished_at,
                                            import_key)
    select u.user_id, k.id, s.session_date, s.name, s.notes, 'completed', s.started_local at time zone v_timezone,
           s.finished_local at time zone v_timezone, s.session_key
      from app.user_settings as u
     cross join (
       -- A format without times (FitNotes) gives the date alone: the session has no start.
       select r.session_key, min(r.session_name) as name, min(r.session_notes) as notes,
              coalesce(min(r.session_date), min(r.started_local)::date) as session_date,
              min(r.started_local) as started_local, max(r.finished_local) as finished_local
         from unnest(v_new) as r group by r.session_key) as s
      join unnest(v_session_keys, v_session_ids) as k (session_key, id) on k.session_key = s.session_key
     where u.user_id = p_user_id;

    insert into app.session_exercises as n (user_id, session_id, position, exercise_id, user_exercise_id, exercise_name,
                                            notes, superset_group, group_rest_seconds)
    select s.user_id, s.id, p.position, x.exercise_id, x.user_exercise_id, x.exercise_name, p.notes, p.superset_group,
           p.group_rest_seconds
      from app.import_exercise_positions(v_new) as p
      join app.training_sessions as s on s.user_id = p_user_id and s.import_key = p.session_key
      join unnest(v_exercise_keys, v_exercise_ids, v_user_exercise_ids, v_exercise_names)
        as x (exercise_key, exercise_id, user_exercise_id, exercise_name) on x.exercise_key = p.exercise_key;

    insert into app.session_sets as n (user_id, session_id, exercise_position, position, reps, weight_kg, rpe, set_type,
                                       duration_seconds, distance_m, assistance_kg)
    select s.user_id, s.id, p.position,
           row_number() over (partition by s.user_id, s.id, p.position order by r.set_order, r.line)::integer,
           t.reps, t.weight_kg, r.rpe, r.set_type, t.duration_seconds, t.distance_m, t.assistance_kg
      from unnest(v_new) as r
      join app.type_import_sets(v_new, v_exercise_keys, v_tracking_types) as t on t.line = r.line
      join app.import_exercise_positions(v_new) as p on p.session_key = r.session_key and p.exercise_key = lower(r.exercise_name)
      join app.training_sessions as s on s.user_id = p_user_id and s.import_key = r.session_key;

    perform app.raise_if_sets_misfit(p_user_id, v_session_ids);
    perform app.refresh_sessions_totals(p_user_id, v_session_ids);

    if p_dry_run then
      raise exception using errcode = 'LBDRY', message = 'dry run: roll the import back';
    end if;
  exception
    when sqlstate 'LBDRY' then
      null;
    when data_exception or integrity_constraint_violation then
      errors := app.import_set_problems(p_user_id, v_new);
      -- A refusal no row check explains is described for people, never in the database's words.
      if errors = '[]' then
        get stacked diagnostics v_state = returned_sqlstate, v_schema = schema_name, v_table = table_name,
                                v_column = column_name, v_constraint = constraint_name, v_datatype = pg_datatype_name,
                                v_message = message_text;
        errors := jsonb_build_array(jsonb_build_object('line', null, 'message',
          app.import_error_message(v_state, v_schema, v_table, v_column, v_constraint, v_datatype, v_message)));
      end if;
      imported := 0;
      skipped_duplicates := 0;
  end;
end
$$;

grant execute on function
  app.import_exercise_types(uuid, app.import_set_row[]),
  app.type_import_sets(app.import_set_row[], text[], text[]),
  app.import_typed_sets(uuid, app.import_set_row[]),
  app.import_set_problems(uuid, app.import_set_row[]),
  app.import_exercise_positions(app.import_set_row[]),
  app.import_workouts(uuid, app.import_set_row[], boolean)
to liftbase_api;
