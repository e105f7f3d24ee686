-- Writing imported workouts and diary rows. Rows are written set-based (a file may hold tens
-- of thousands of sets); the column domains enforce the value rules, and only when they
-- refuse a row are the rows checked one by one to name the lines at fault.

-- The tracking type one imported row shows by what it recorded (p_name_type: the type the
-- catalog rule's exceptions give its exercise's name, app.derived_tracking_type): an
-- assistance → assisted_bodyweight; a distance → weight_distance with a load, else
-- distance_duration; a time and no reps → weight_duration with a load, else duration; reps
-- of a name the exceptions call bodyweight or assisted work (weighted dips, assisted
-- pull-ups) → that; reps with a load → weight_reps, reps alone → bodyweight_reps; a load
-- alone → weight_reps. Null for a row that recorded nothing.
create or replace function app.import_row_tracking_type(p_name_type text, p_weight_kg numeric, p_reps integer,
  p_duration_seconds integer, p_distance_m numeric, p_assistance_kg numeric)
returns text
language sql
immutable
as $$
  select case
    when p_assistance_kg is not null then 'assisted_bodyweight'
    when p_distance_m is not null and coalesce(p_weight_kg, 0) > 0 then 'weight_distance'
    when p_distance_m is not null then 'distance_duration'
    when p_duration_seconds is not null and coalesce(p_reps, 0) = 0 and coalesce(p_weight_kg, 0) > 0 then 'weight_duration'
    when p_duration_seconds is not null and coalesce(p_reps, 0) = 0 then 'duration'
    when coalesce(p_reps, 0) > 0 and p_name_type in ('bodyweight_reps', 'assisted_bodyweight') then p_name_type
    when coalesce(p_reps, 0) > 0 and coalesce(p_weight_kg, 0) = 0 then 'bodyweight_reps'
    when coalesce(p_reps, 0) > 0 or coalesce(p_weight_kg, 0) > 0 then 'weight_reps'
  end
$$;

-- The tracking type of each exercise (by lower-case name) of workout rows: the catalog's
-- or the user's own exercise's (app.resolve_exercise); for a name neither holds (it
-- becomes an own exercise) the type most of its rows show (app.import_row_tracking_type),
-- reps without a load counting as weight_reps when other rows of the name give a load
-- (an unloaded set of a lift). Rows of another type than their exercise's are moved to a
-- variant before the write (app.import_workouts).
create or replace function app.import_exercise_types(p_user_id uuid, p_rows app.import_set_row[])
returns table (exercise_key text, tracking_type text)
language sql
stable
as $$
  with names as materialized (
    select n.exercise_key, app.derived_tracking_type(n.exercise_key, 'strength', 'other') as name_type
      from (select distinct lower(r.exercise_name) as exercise_key from unnest(p_rows) as r
             where r.exercise_name is not null) as n),
  -- Rows grouped by which measures they recorded: the type a row shows depends on nothing
  -- else, so it is worked out once per group, not once per row.
  recorded as (
    select lower(r.exercise_name) as exercise_key, coalesce(r.weight_kg, 0) > 0 as load,
           coalesce(r.reps, 0) > 0 as reps,
           r.duration_seconds is not null as duration, r.distance_m is not null as distance,
           r.assistance_kg is not null as assistance, count(*) as rows
      from unnest(p_rows) as r
     where r.exercise_name is not null
     group by 1, 2, 3, 4, 5, 6),
  shown as (
    select g.exercise_key, g.rows,
           app.import_row_tracking_type(n.name_type, case when g.load then 1 end, case when g.reps then 1 end,
                                        case when g.duration then 1 end, case when g.distance then 1 end,
                                        case when g.assistance then 1 end) as row_type
      from recorded as g join names as n on n.exercise_key = g.exercise_key),
  weighed as (
    select w.exercise_key, w.rows,
           case when w.row_type = 'bodyweight_reps'
                     and bool_or(w.row_type = 'weight_reps') over (partition by w.exercise_key)
                then 'weight_reps' else w.row_type end as row_type
      from shown as w),
  most as (
    select distinct on (t.exercise_key) t.exercise_key, t.row_type
      from (select w.exercise_key, w.row_type, sum(w.rows) as rows from weighed as w
             where w.row_type is not null group by w.exercise_key, w.row_type) as t
     order by t.exercise_key, t.rows desc, t.row_type)
  select n.exercise_key,
         -- An exercise the name links to keeps its type; a name that links to none becomes an own
         -- exercise of the type its rows show.
         case when x.exercise_id is not null or x.user_exercise_id is not null then x.tracking_type
              else coalesce(m.row_type, 'weight_reps') end
    from names as n
    left join most as m on m.exercise_key = n.exercise_key
   cross join lateral app.resolve_exercise(p_user_id, jsonb_build_object('exercise_name', n.exercise_key)) as x
$$;

-- The words that tell a variant from the exercise whose type its rows do not fit, by the
-- type they show: "Plank (reps)" holds the reps a person logged for a timed plank.
create or replace function app.import_variant_label(p_tracking_type text)
returns text
language sql
immutable
as $$
  select case p_tracking_type
    when 'weight_reps' then 'weight and reps' when 'bodyweight_reps' then 'reps' when 'reps_only' then 'reps'
    when 'assisted_bodyweight' then 'assisted' when 'duration' then 'timed' when 'weight_duration' then 'weighted, timed'
    when 'distance_duration' then 'distance' when 'weight_distance' then 'weighted distance' end
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
-- names become user exercises), sets in set_order then file order. Times are the user's
-- wall clock.
--
-- Lenient unless p_strict (docs/imports.md): a row that cannot be read (its problem) is an
-- error and left out; a row the importer skips (its skip_reason) or that recorded no
-- measure is listed under skipped; the rest is imported. A row whose measures its
-- exercise's type does not take goes to a variant of that exercise ("Plank (reps)", an own
-- exercise of the type the row shows, with the muscles of the one it varies), so no
-- measure is lost. A row a column's domain refuses (3310 reps) is found by
-- app.import_set_problems, reported, and the rest written again. The whole file is refused
-- (refused, nothing written) for a problem of the file itself (a missing column, line 1),
-- when most rows cannot be read, and for any error when p_strict. Nothing is written when
-- p_dry_run; the answer is the same.
create or replace function app.import_workouts(p_user_id uuid, p_rows app.import_set_row[], p_dry_run boolean,
  p_strict boolean, out imported integer, out skipped_duplicates integer, out errors jsonb, out skipped jsonb,
  out refused boolean, out exercises jsonb)
language plpgsql
as $$
declare
  v_timezone text := app.user_timezone(p_user_id);
  v_rows app.import_set_row[];
  v_new app.import_set_row[];
  v_moved app.import_set_row[];
  v_variants jsonb := '[]';
  v_variants_tried boolean := false;
  v_problems_dropped boolean := false;
  v_problems jsonb;
  v_session_ids jsonb;
  v_session_rows app.training_sessions[];
  v_exercise_rows app.session_exercises[];
  v_set_rows app.session_sets[];
  v_exercise_keys text[];
  v_tracking_types text[];
  v_new_exercises jsonb;
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
  skipped := '[]';
  refused := false;
  exercises := '[]';
  select coalesce(jsonb_agg(jsonb_build_object('line', r.line, 'message', r.problem) order by r.line), '[]')
    into errors from unnest(p_rows) as r where r.problem is not null;
  select coalesce(jsonb_agg(jsonb_build_object('line', r.line, 'message',
                    coalesce(r.skip_reason, 'no weight, reps, time or distance recorded')) order by r.line), '[]')
    into skipped
    from unnest(p_rows) as r
   where r.problem is null and (r.skip_reason is not null or not app.import_row_has_measures(r));
  -- Most rows unreadable: of the rows that carry something (a rest-timer row is no row of
  -- data, and would make a file of unreadable sets look half read).
  if errors <> '[]' and (p_strict or exists (select from unnest(p_rows) as r where r.line = 1 and r.problem is not null)
                         or 2 * jsonb_array_length(errors)
                            > (select count(*) from unnest(p_rows) as r where r.skip_reason is null)) then
    refused := true;
    return;
  end if;
  select coalesce(array_agg(r order by r.line), '{}') into v_rows
    from unnest(p_rows) as r
   where r.problem is null and r.skip_reason is null and app.import_row_has_measures(r);
  select coalesce(array_agg(r order by r.line), '{}') into v_new
    from unnest(v_rows) as r
   where not exists (select from app.training_sessions as s
                      where s.user_id = p_user_id and s.import_key = r.session_key);
  skipped_duplicates := cardinality(v_rows) - cardinality(v_new);
  -- Each name of the file resolved once (app.resolve_exercise_names): the answer says to
  -- what and how, and each row takes the name of the exercise it resolved to.
  select coalesce(jsonb_agg(jsonb_build_object('name', r.name, 'exercise_name', coalesce(r.exercise_name, r.name),
                                               'exercise_id', r.exercise_id, 'user_exercise_id', r.user_exercise_id,
                                               'how', r.how) order by lower(r.name)), '[]')
    into exercises
    from app.resolve_exercise_names(p_user_id, array(select distinct r.exercise_name from unnest(v_rows) as r)) as r;
  select coalesce(array_agg(case when m.exercise_name is null or m.exercise_name = r.exercise_name then r
                                 else jsonb_populate_record(r, jsonb_build_object('exercise_name', m.exercise_name)) end
                            order by r.line), '{}')
    into v_new
    from unnest(v_new) as r
    left join jsonb_to_recordset(exercises) as m (name text, exercise_name text)
      on lower(m.name) = lower(btrim(r.exercise_name));
  -- At most three tries. A refused write is tried again once with the rows its exercise's
  -- type does not take moved to variants (app.import_rows_to_variants: rare, so the common
  -- file pays no pass for it), and once without the rows a value rule refuses.
  loop
    begin
      -- Names resolve as in every request (app.resolve_exercise: the catalog, then the
      -- user's own exercises, case-insensitively), once per distinct name; a name neither
      -- holds becomes an own exercise first. Every read is done before the writes, and each
      -- insert selects from a row of the user (the settings or the session), so that Citus
      -- sends it whole to the user's worker: an insert from a plain select would be copied
      -- there, which row-level security refuses (docs/scaling.md), with its new keys drawn
      -- before (Citus sends no statement that calls a volatile function). The single node
      -- pays a primary-key read.
      select coalesce(array_agg(t.exercise_key), '{}'), coalesce(array_agg(t.tracking_type), '{}')
        into v_exercise_keys, v_tracking_types
        from app.import_exercise_types(p_user_id, v_new) as t;
      v_new_exercises := app.import_new_exercises(p_user_id, v_new, v_exercise_keys, v_tracking_types);
      insert into app.user_exercises as n (user_id, id, name, tracking_type, category, mechanic, equipment,
                                           primary_muscles, secondary_muscles)
      select u.user_id, e.id, e.name, e.tracking_type, e.category, e.mechanic, e.equipment, e.primary_muscles,
             e.secondary_muscles
        from app.user_settings as u
       cross join jsonb_to_recordset(v_new_exercises)
         as e (id uuid, name text, tracking_type text, category text, mechanic text, equipment text,
               primary_muscles text[], secondary_muscles text[])
       where u.user_id = p_user_id;
      select coalesce(array_agg(x.exercise_id order by k.n), '{}'),
             coalesce(array_agg(x.user_exercise_id order by k.n), '{}'),
             coalesce(array_agg(x.exercise_name order by k.n), '{}')
        into v_exercise_ids, v_user_exercise_ids, v_exercise_names
        from unnest(v_exercise_keys) with ordinality as k (exercise_key, n)
       cross join lateral app.resolve_exercise(p_user_id, jsonb_build_object('exercise_name', k.exercise_key)) as x;

      -- {session key: new id}, looked up by key (a join of the rows with a list of keys
      -- would be planned without knowing either's size).
      select coalesce(jsonb_object_agg(k.session_key, gen_random_uuid()), '{}')
        into v_session_ids
        from (select distinct r.session_key from unnest(v_new) as r) as k;
      -- Through the one session writer, as rows of its tables (columns in the tables' order),
      -- each list made by a statement of its own.
      v_session_rows := array(
        -- A format without times (FitNotes) gives the date alone: the session has no start.
        select row(p_user_id, app.read_uuid(v_session_ids, s.session_key), null, s.session_date, s.name, s.notes,
                   null, s.started_local at time zone v_timezone, s.finished_local at time zone v_timezone,
                   null, null, 0, 0, 0, 0, s.session_key, 0, 0)::app.training_sessions
          from (select r.session_key, min(r.session_name) as name, min(r.session_notes) as notes,
                       coalesce(min(r.session_date), min(r.started_local)::date) as session_date,
                       min(r.started_local) as started_local, max(r.finished_local) as finished_local
                  from unnest(v_new) as r group by r.session_key) as s);
      v_exercise_rows := array(
        select row(p_user_id, app.read_uuid(v_session_ids, p.session_key), p.position, x.exercise_id,
                   x.user_exercise_id, x.exercise_name, p.notes, 0,
                   null, null, null, null, null, null, p.superset_group, p.group_rest_seconds,
                   null, null, null, null, null, 0, 0, 0, 0)::app.session_exercises
          from app.import_exercise_positions(v_new) as p
          join unnest(v_exercise_keys, v_exercise_ids, v_user_exercise_ids, v_exercise_names)
            as x (exercise_key, exercise_id, user_exercise_id, exercise_name) on x.exercise_key = p.exercise_key);
      v_set_rows := array(
        select row(p_user_id, app.read_uuid(v_session_ids, r.session_key), p.position,
                   row_number() over (partition by r.session_key, p.position order by r.set_order, r.line)::integer,
                   t.reps, t.weight_kg, r.rpe, null, r.set_type, null, null, t.duration_seconds, t.distance_m,
                   t.assistance_kg)::app.session_sets
          from unnest(v_new) as r
          join app.type_import_sets(v_new, v_exercise_keys, v_tracking_types) as t on t.line = r.line
          join app.import_exercise_positions(v_new) as p
            on p.session_key = r.session_key and p.exercise_key = lower(r.exercise_name));
      perform app.write_sessions(p_user_id, v_session_rows, v_exercise_rows, v_set_rows);
      imported := cardinality(v_new);

      if p_dry_run then
        raise exception using errcode = 'LBDRY', message = 'dry run: roll the import back';
      end if;
      exit;
    exception
      when sqlstate 'LBDRY' then
        exit;
      when data_exception or integrity_constraint_violation then
        if not v_variants_tried then
          v_variants_tried := true;
          v_moved := app.import_rows_to_variants(p_user_id, v_new);
          if v_moved is distinct from v_new then
            -- Each exercise some of whose rows went to a variant, and the variant.
            select coalesce(jsonb_agg(distinct jsonb_build_object('exercise_name', a.exercise_name, 'variant', b.exercise_name)),
                            '[]')
              into v_variants
              from unnest(v_new) as a join unnest(v_moved) as b on b.line = a.line
             where b.exercise_name <> a.exercise_name;
            v_new := v_moved;
            continue;
          end if;
        end if;
        v_problems := app.import_set_problems(p_user_id, v_new);
        if v_problems = '[]' or p_strict or v_problems_dropped then
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
        v_problems_dropped := true;
        select coalesce(array_agg(r order by r.line), '{}') into v_new
          from unnest(v_new) as r
         where not exists (select from jsonb_array_elements(v_problems) as p where app.read_integer(p, 'line') = r.line);
    end;
  end loop;
  errors := app.import_problems_in_order(errors);
  -- The names some of whose rows went to a variant are answered with it too (how:
  -- variant), and a name that became an own exercise with its id once it is written.
  select coalesce(jsonb_agg(e.item order by e.k), '[]') || coalesce((
           select jsonb_agg(x.item || jsonb_build_object('exercise_name', v.variant, 'exercise_id', null,
                                                         'user_exercise_id', null, 'how', 'variant')
                            order by x.item ->> 'name', v.variant)
             from jsonb_array_elements(exercises) as x (item)
             join jsonb_to_recordset(v_variants) as v (exercise_name text, variant text)
               on v.exercise_name = x.item ->> 'exercise_name'), '[]')
    into exercises
    from jsonb_array_elements(exercises) with ordinality as e (item, k);
  if not p_dry_run then
    select coalesce(jsonb_agg(case x.item ->> 'how'
                                when 'new' then x.item || jsonb_build_object('user_exercise_id', n.id)
                                when 'variant' then x.item || jsonb_build_object('exercise_id', v.exercise_id,
                                                                                 'user_exercise_id', v.user_exercise_id)
                                else x.item end order by x.k), '[]')
      into exercises
      from jsonb_array_elements(exercises) with ordinality as x (item, k)
      left join jsonb_to_recordset(v_new_exercises) as n (id uuid, name text)
        on x.item ->> 'how' = 'new' and lower(n.name) = lower(x.item ->> 'name')
      -- A variant's own exercise, by its name (no lookup for the other names).
      cross join lateral app.resolve_exercise(p_user_id, jsonb_build_object('exercise_name',
                           case when x.item ->> 'how' = 'variant' then x.item ->> 'exercise_name' end)) as v;
  end if;
end
$$;

-- Whether an imported row recorded any measure: a load or reps above 0, a time, a
-- distance or an assistance (apps write 0 in every measure a set does not use, and an
-- empty set, a hold of 0 s, is no set).
create or replace function app.import_row_has_measures(p_row app.import_set_row)
returns boolean
language sql
immutable
as $$
  select coalesce(p_row.weight_kg, 0) > 0 or coalesce(p_row.reps, 0) > 0 or p_row.duration_seconds is not null
      or p_row.distance_m is not null or p_row.assistance_kg is not null
$$;

-- Workout rows with each row its exercise's type does not take moved to a variant of that
-- exercise: the same name followed by the type the row shows (app.import_variant_label),
-- e.g. reps logged for a plank the catalog times go to "Plank (reps)". The variant is then
-- an exercise of its own, found or made like any other name (app.import_new_exercises).
create or replace function app.import_rows_to_variants(p_user_id uuid, p_rows app.import_set_row[])
returns app.import_set_row[]
language sql
stable
as $$
  with types as (
    select array_agg(t.exercise_key) as exercise_keys, array_agg(t.tracking_type) as tracking_types
      from app.import_exercise_types(p_user_id, p_rows) as t),
  misfits as (
    select s.line, s.tracking_type
      from types as k
     cross join lateral app.type_import_sets(p_rows, k.exercise_keys, k.tracking_types) as s
     where not app.set_fits(s.tracking_type, s.weight_kg, s.assistance_kg, s.reps, s.duration_seconds, s.distance_m)),
  -- A row that fits no type (reps and a time together) stays, and is reported by the write.
  shown as (
    select r.line, r.exercise_name, m.tracking_type,
           app.import_row_tracking_type(app.derived_tracking_type(lower(r.exercise_name), 'strength', 'other'),
                                        r.weight_kg, r.reps, r.duration_seconds, r.distance_m, r.assistance_kg)
             as row_type
      from misfits as m
      join unnest(p_rows) as r on r.line = m.line),
  renamed as (
    select s.line, s.exercise_name || ' (' || app.import_variant_label(s.row_type) || ')' as variant
      from shown as s where s.row_type <> s.tracking_type)
  select coalesce(array_agg(case when n.variant is null then r
                                 else jsonb_populate_record(r, jsonb_build_object('exercise_name', n.variant)) end
                            order by r.line), '{}')
    from unnest(p_rows) as r
    left join renamed as n on n.line = r.line
$$;

-- The own exercises an import makes, as [{id, name, tracking_type, category, mechanic,
-- equipment, primary_muscles, secondary_muscles}]: one per name that resolves to no
-- exercise yet, under the name as first written, of its type (p_exercise_keys,
-- p_tracking_types). A variant ("Plank (reps)") takes the category, equipment and muscles
-- of the exercise it varies, so volume and analytics count it; any other new name what its
-- words say of it (app.exercise_traits_from_name: a curl works the biceps). PL/pgSQL: Citus
-- cannot plan a SQL function whose parameters filter a distributed table.
create or replace function app.import_new_exercises(p_user_id uuid, p_rows app.import_set_row[],
  p_exercise_keys text[], p_tracking_types text[])
returns jsonb
language plpgsql
as $$
begin
  return (
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', gen_random_uuid(), 'name', n.name, 'tracking_type', t.tracking_type,
           'category', coalesce(c.category, o.category, f.category), 'mechanic', coalesce(c.mechanic, o.mechanic),
           'equipment', coalesce(c.equipment, o.equipment, f.equipment),
           'primary_muscles', coalesce(c.primary_muscles, o.primary_muscles, f.primary_muscles),
           'secondary_muscles', coalesce(c.secondary_muscles, o.secondary_muscles, '{}'))), '[]')
    from (select distinct on (lower(r.exercise_name)) r.exercise_name as name
            from unnest(p_rows) as r order by lower(r.exercise_name), r.line) as n
    join unnest(p_exercise_keys, p_tracking_types) as t (exercise_key, tracking_type) on t.exercise_key = lower(n.name)
   cross join lateral app.resolve_exercise(p_user_id, jsonb_build_object('exercise_name', n.name)) as x
    -- A variant's name is its base's followed by " (…)".
    left join lateral app.resolve_exercise(p_user_id, jsonb_build_object('exercise_name',
                        substring(n.name from '^(.*) \([^()]*\)$'))) as b on n.name ~ ' \([^()]*\)$'
    left join app.exercises as c on c.id = b.exercise_id
    left join app.user_exercises as o on o.user_id = p_user_id and o.id = b.user_exercise_id
   cross join lateral app.exercise_traits_from_name(n.name) as f
   where x.exercise_id is null and x.user_exercise_id is null);
end
$$;

grant execute on function
  app.import_row_tracking_type(text, numeric, integer, integer, numeric, numeric),
  app.import_exercise_types(uuid, app.import_set_row[]),
  app.import_variant_label(text),
  app.import_row_has_measures(app.import_set_row),
  app.import_rows_to_variants(uuid, app.import_set_row[]),
  app.import_new_exercises(uuid, app.import_set_row[], text[], text[]),
  app.type_import_sets(app.import_set_row[], text[], text[]),
  app.import_typed_sets(uuid, app.import_set_row[]),
  app.import_set_problems(uuid, app.import_set_row[]),
  app.import_exercise_positions(app.import_set_row[]),
  app.import_workouts(uuid, app.import_set_row[], boolean, boolean)
to liftbase_api;
