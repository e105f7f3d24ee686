-- The settings object (GET/PATCH /settings, /me, the export) and its rules.

-- ISO day number of a weekday name, to keep day lists in calendar order.
create or replace function app.weekday_number(p_day text)
returns integer
language sql
immutable
as $$
  select array_position(array['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'], p_day)
$$;

-- The settings object of one settings row: the one shape, kept on the row as
-- settings_document (0050) by app.keep_settings_document.
create or replace function app.settings_values_json(p_settings app.user_settings)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'unit_system', p_settings.unit_system,
    'timezone', p_settings.timezone,
    'reminders', jsonb_build_object(
      'meals', jsonb_build_object('enabled', p_settings.meal_reminders_enabled,
                                  'times', to_jsonb(p_settings.meal_reminder_times::text[])),
      'workouts', jsonb_build_object('enabled', p_settings.workout_reminders_enabled,
                                     'days', to_jsonb(p_settings.workout_reminder_days::text[]),
                                     'time', p_settings.workout_reminder_time)),
    'biometric_enabled', p_settings.biometric_enabled,
    -- google_fit: the old name of health_connect, shown for the clients that read it.
    'health_sync', jsonb_build_object('apple_health', p_settings.apple_health_sync,
                                      'health_connect', p_settings.health_connect_sync,
                                      'google_fit', p_settings.health_connect_sync))
$$;

-- The fingerprint of app.settings_values_json's definition, kept with each document: a
-- document built by another definition (an earlier release) is not served. Declared
-- immutable although it reads the catalog, so that a statement calling it computes it once,
-- when planned: a plan cached by a connection is made again when either function is
-- replaced. PL/pgSQL: a SQL function reading a table would be planned on each evaluation.
create or replace function app.settings_document_shape()
returns text
language plpgsql
immutable
as $$
begin
  return (select md5(p.prosrc) from pg_catalog.pg_proc as p
           where p.oid = 'app.settings_values_json(app.user_settings)'::regprocedure);
end
$$;

-- Keeps settings_document: built when the settings are written (rarely), read on every
-- GET /me.
create or replace function app.keep_settings_document()
returns trigger
language plpgsql
as $$
declare
  -- NEW as the table's own row type: on Citus the trigger fires on a shard, whose rows
  -- are of that shard's type, which app.settings_values_json does not take.
  v_settings app.user_settings := new;
begin
  new.settings_document := app.settings_values_json(v_settings);
  new.settings_document_shape := app.settings_document_shape();
  return new;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_settings_document BEFORE INSERT OR UPDATE ON app.user_settings FOR EACH ROW EXECUTE FUNCTION app.keep_settings_document()$$);

-- The user's settings object: the document kept on the row, or built from a row whose
-- document is missing (written before 0050) or of another shape (app.settings_document_shape).
-- PL/pgSQL, not SQL: a SQL function that reads a table is planned anew on every call, and
-- this one runs on every GET /me.
create or replace function app.settings_json(p_user_id uuid)
returns jsonb
language plpgsql
stable
as $$
begin
  return (select case when s.settings_document_shape = app.settings_document_shape() then s.settings_document
                      -- row(s.*): on Citus the statement runs on a shard, whose rows are of
                      -- that shard's type; the row constructor casts to the table's.
                      else app.settings_values_json(row(s.*)::app.user_settings) end
            from app.user_settings as s
           where s.user_id = p_user_id);
end
$$;

-- The problem with a member that must be true or false when present (null is not allowed:
-- these settings always have a value).
create or replace function app.boolean_problem(p_object jsonb, p_field text)
returns text
language sql
immutable
as $$
  select case when p_object ? p_field and jsonb_typeof(p_object -> p_field) <> 'boolean'
              then 'must be true or false' end
$$;

-- The problem with a member that must be a JSON object when present.
create or replace function app.object_problem(p_object jsonb, p_field text)
returns text
language sql
immutable
as $$
  select case when p_object ? p_field and jsonb_typeof(p_object -> p_field) <> 'object' then 'must be an object' end
$$;

-- The problem with a list of p_domain strings (each checked against the domain, whose
-- comment is the message), or null when it is fine or absent.
create or replace function app.list_problem(p_object jsonb, p_field text, p_domain regtype, p_maximum integer)
returns text
language plpgsql
stable
as $$
declare
  v_item jsonb;
  v_problem text;
begin
  if not p_object ? p_field then
    return null;
  end if;
  if jsonb_typeof(p_object -> p_field) <> 'array' then
    return 'must be a list';
  end if;
  if jsonb_array_length(p_object -> p_field) > p_maximum then
    return format('must have at most %s items', p_maximum);
  end if;
  for v_item in select value from jsonb_array_elements(p_object -> p_field) loop
    v_problem := app.field_problem(jsonb_build_object('item', v_item), 'item', p_domain, true);
    if v_problem is not null then
      return 'each item ' || v_problem;
    end if;
  end loop;
  return null;
end
$$;

-- Every problem of a PATCH /settings body, keyed by the member's dotted path. Absent
-- members are fine (PATCH changes only what it names); null is refused where the setting
-- always has a value (only reminders.workouts.time may be null).
create or replace function app.settings_problems(p_body jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  v_reminders jsonb := case when jsonb_typeof(p_body -> 'reminders') = 'object' then p_body -> 'reminders'
                            else '{}' end;
  v_meals jsonb := case when jsonb_typeof(v_reminders -> 'meals') = 'object' then v_reminders -> 'meals' else '{}' end;
  v_workouts jsonb := case when jsonb_typeof(v_reminders -> 'workouts') = 'object' then v_reminders -> 'workouts'
                           else '{}' end;
  v_sync jsonb := case when jsonb_typeof(p_body -> 'health_sync') = 'object' then p_body -> 'health_sync' else '{}' end;
begin
  if jsonb_typeof(p_body) <> 'object' then
    return jsonb_build_object('body', 'must be an object');
  end if;
  return jsonb_build_object(
    'unit_system', case when p_body ? 'unit_system'
                        then app.field_problem(p_body, 'unit_system', 'app.unit_system', true) end,
    'timezone', case when p_body ? 'timezone' then app.field_problem(p_body, 'timezone', 'app.timezone_name', true) end,
    'reminders', app.object_problem(p_body, 'reminders'),
    'reminders.meals', app.object_problem(v_reminders, 'meals'),
    'reminders.meals.enabled', app.boolean_problem(v_meals, 'enabled'),
    'reminders.meals.times', app.list_problem(v_meals, 'times', 'app.clock_time', 10),
    'reminders.workouts', app.object_problem(v_reminders, 'workouts'),
    'reminders.workouts.enabled', app.boolean_problem(v_workouts, 'enabled'),
    'reminders.workouts.days', app.list_problem(v_workouts, 'days', 'app.weekday', 7),
    'reminders.workouts.time', app.field_problem(v_workouts, 'time', 'app.clock_time', false),
    'biometric_enabled', app.boolean_problem(p_body, 'biometric_enabled'),
    'health_sync', app.object_problem(p_body, 'health_sync'),
    'health_sync.apple_health', app.boolean_problem(v_sync, 'apple_health'),
    'health_sync.health_connect', app.boolean_problem(v_sync, 'health_connect'),
    'health_sync.google_fit', coalesce(app.boolean_problem(v_sync, 'google_fit'),
      case when v_sync ? 'google_fit' and v_sync ? 'health_connect'
                and v_sync -> 'google_fit' is distinct from v_sync -> 'health_connect'
           then 'is the old name of health_connect: send health_connect alone' end));
end
$$;

-- Applies a validated PATCH body: only the members it names change. Time and day lists
-- are stored sorted without repeats (times by clock, days monday first).
create or replace function app.save_settings(p_user_id uuid, p_body jsonb)
returns void
language plpgsql
as $$
declare
  v_meals jsonb := coalesce(p_body #> '{reminders,meals}', '{}');
  v_workouts jsonb := coalesce(p_body #> '{reminders,workouts}', '{}');
  v_sync jsonb := coalesce(p_body -> 'health_sync', '{}');
begin
  update app.user_settings as s
     set unit_system = coalesce(app.read_text(p_body, 'unit_system'), s.unit_system),
         timezone = coalesce(app.read_text(p_body, 'timezone'), s.timezone),
         meal_reminders_enabled = coalesce(app.read_boolean(v_meals, 'enabled'), s.meal_reminders_enabled),
         meal_reminder_times = case when v_meals ? 'times'
           then array(select distinct t from unnest(app.read_text_list(v_meals, 'times')) as t
                      order by t)::app.clock_time[]
           else s.meal_reminder_times end,
         workout_reminders_enabled = coalesce(app.read_boolean(v_workouts, 'enabled'), s.workout_reminders_enabled),
         workout_reminder_days = case when v_workouts ? 'days'
           then array(select d from (select distinct d from unnest(app.read_text_list(v_workouts, 'days')) as d) as days
                      order by app.weekday_number(d))::app.weekday[]
           else s.workout_reminder_days end,
         workout_reminder_time = case when v_workouts ? 'time'
           then app.read_text(v_workouts, 'time') else s.workout_reminder_time end,
         biometric_enabled = coalesce(app.read_boolean(p_body, 'biometric_enabled'), s.biometric_enabled),
         apple_health_sync = coalesce(app.read_boolean(v_sync, 'apple_health'), s.apple_health_sync),
         health_connect_sync = coalesce(app.read_boolean(v_sync, 'health_connect'), app.read_boolean(v_sync, 'google_fit'),
                                        s.health_connect_sync),
         updated_at = now()
   where s.user_id = p_user_id;
end
$$;

grant execute on function
  app.weekday_number(text),
  app.settings_values_json(app.user_settings),
  app.settings_document_shape(),
  app.settings_json(uuid),
  app.boolean_problem(jsonb, text),
  app.object_problem(jsonb, text),
  app.list_problem(jsonb, text, regtype, integer),
  app.settings_problems(jsonb),
  app.save_settings(uuid, jsonb)
to liftbase_api;
