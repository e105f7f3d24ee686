-- Body measurements (docs/health.md): the standard measures and the account's own types,
-- the checks of an entry, its JSON, and a measure's series. Weight, body fat and height
-- are a weigh-in's values (app.body_metrics): a series of them reads the weigh-ins.

-- The measure of an entry's body: {measure} (a standard measure) or {type_id} (one of the
-- account's types), exactly one. Problems name the member.
create or replace function app.measurement_target_problems(p_user_id uuid, p_body jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  v_measure app.measures;
begin
  if (p_body ? 'measure') = (p_body ? 'type_id') then
    return jsonb_build_object('measure', 'give either measure (a standard measure) or type_id (one of your own)');
  end if;
  if p_body ? 'measure' then
    if app.input_problem(p_body -> 'measure', 'string') is not null then
      return jsonb_build_object('measure', app.input_problem(p_body -> 'measure', 'string'));
    end if;
    select m.* into v_measure from app.measures as m where m.id = p_body ->> 'measure';
    return jsonb_build_object('measure', case
      when v_measure.id is null then 'must be one of the standard measures (GET /user/measures)'
      when v_measure.weigh_in_member is not null then 'is a weigh-in''s value: record it with POST /user/metrics' end);
  end if;
  return jsonb_build_object('type_id', coalesce(app.input_problem(p_body -> 'type_id', 'uuid'), case
    when not exists (select from app.measurement_types as t
                      where t.user_id = p_user_id and t.id = app.read_uuid(p_body, 'type_id'))
      then 'must be one of your measurement types' end));
end
$$;

-- The problem with p_body's value for the measure or type: the number, then its range (the
-- standard measure's, or the type's when it has one). p_required: the member must be there.
create or replace function app.measurement_value_problem(p_user_id uuid, p_measure text, p_type_id uuid,
                                                         p_body jsonb, p_required boolean)
returns text
language plpgsql
stable
as $$
declare
  v_problem text := app.field_problem(p_body, 'value', 'app.measurement_value', p_required);
  v_value numeric;
  v_min numeric;
  v_max numeric;
begin
  if v_problem is not null or not (p_body ? 'value') then
    return v_problem;
  end if;
  v_value := app.read_number(p_body, 'value');
  if p_measure is not null then
    select m.min_value, m.max_value into v_min, v_max from app.measures as m where m.id = p_measure;
  else
    select t.min_value, t.max_value into v_min, v_max from app.measurement_types as t
     where t.user_id = p_user_id and t.id = p_type_id;
  end if;
  if v_min is not null and v_max is not null and (v_value < v_min or v_value > v_max) then
    return format('must be between %s and %s', v_min, v_max);
  elsif v_value < v_min then
    return format('must be at least %s', v_min);
  elsif v_value > v_max then
    return format('must be at most %s', v_max);
  end if;
  return null;
end
$$;

-- Problems with the rest of an entry: its time (not in the future) and source. On a
-- create (p_creating) absent members take their defaults; on a change a member sent must
-- not be null.
create or replace function app.measurement_time_problems(p_body jsonb, p_creating boolean)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'recorded_at', coalesce(app.field_problem(p_body, 'recorded_at', 'app.timestamp_value',
                                              not p_creating and p_body ? 'recorded_at'),
                            app.future_time_problem(p_body, 'recorded_at')),
    'source', app.field_problem(p_body, 'source', 'app.measurement_source', not p_creating and p_body ? 'source'))
$$;

-- The problems with a measurement type's body: name (unique for the account, any case),
-- unit, and the optional range, which must hold every entry of the type (p_type_id, when
-- the type exists). p_creating: name and unit are required.
create or replace function app.measurement_type_problems(p_user_id uuid, p_type_id uuid, p_body jsonb,
                                                         p_creating boolean)
returns jsonb
language plpgsql
stable
as $$
declare
  v_type app.measurement_types;
  v_min numeric;
  v_max numeric;
  v_problems jsonb;
begin
  select t.* into v_type from app.measurement_types as t where t.user_id = p_user_id and t.id = p_type_id;
  v_problems := jsonb_build_object(
    'name', coalesce(app.field_problem(p_body, 'name', 'app.measurement_type_name', p_creating or p_body ? 'name'),
                     case when exists (select from app.measurement_types as t
                                        where t.user_id = p_user_id and lower(t.name) = lower(btrim(p_body ->> 'name'))
                                          and t.id is distinct from p_type_id)
                          then 'is the name of another of your measurement types' end),
    'unit', app.field_problem(p_body, 'unit', 'app.measurement_unit', p_creating or p_body ? 'unit'),
    'min_value', app.field_problem(p_body, 'min_value', 'app.measurement_value', false),
    'max_value', app.field_problem(p_body, 'max_value', 'app.measurement_value', false));
  if jsonb_strip_nulls(v_problems) ?| array['min_value', 'max_value'] then
    return v_problems;
  end if;
  v_min := case when p_body ? 'min_value' then app.read_number(p_body, 'min_value') else v_type.min_value end;
  v_max := case when p_body ? 'max_value' then app.read_number(p_body, 'max_value') else v_type.max_value end;
  return v_problems || jsonb_build_object('max_value', case
    when v_min >= v_max then 'must be above min_value'
    when exists (select from app.body_measurements as b
                  where b.user_id = p_user_id and b.type_id = p_type_id
                    and (b.value < v_min or b.value > v_max))
      then 'must hold every entry of the type: one lies outside the range' end);
end
$$;

-- The user's measurement type {id} of the path, or 404 measurement_type_not_found.
create or replace function app.find_measurement_type(p_user_id uuid, p_args jsonb)
returns app.measurement_types
language plpgsql
stable
as $$
declare
  v_type app.measurement_types;
begin
  select t.* into v_type from app.measurement_types as t
   where t.user_id = p_user_id and t.id = app.id_parameter(p_args, 'id');
  if v_type.id is null then
    perform app.raise_error(404, 'measurement_type_not_found', 'No such measurement type.');
  end if;
  return v_type;
end
$$;

-- The user's measurement entry {id} of the path, or 404 measurement_not_found.
create or replace function app.find_measurement(p_user_id uuid, p_args jsonb)
returns app.body_measurements
language plpgsql
stable
as $$
declare
  v_entry app.body_measurements;
begin
  select b.* into v_entry from app.body_measurements as b
   where b.user_id = p_user_id and b.id = app.number_id_parameter(p_args, 'id');
  if v_entry.id is null then
    perform app.raise_error(404, 'measurement_not_found', 'No such measurement.');
  end if;
  return v_entry;
end
$$;

create or replace function app.measurement_json(p_entry app.body_measurements)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object('id', p_entry.id, 'measure', p_entry.measure, 'type_id', p_entry.type_id,
                            'value', p_entry.value, 'recorded_at', p_entry.recorded_at, 'source', p_entry.source,
                            'created_at', p_entry.created_at, 'updated_at', p_entry.updated_at)
$$;

create or replace function app.measurement_type_json(p_type app.measurement_types)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object('id', p_type.id, 'name', p_type.name, 'unit', p_type.unit,
                            'min_value', p_type.min_value, 'max_value', p_type.max_value,
                            'created_at', p_type.created_at, 'updated_at', p_type.updated_at)
$$;

-- The standard measures and the account's own types, each in its order.
create or replace function app.measures_json(p_user_id uuid)
returns jsonb
language plpgsql
stable
as $$
begin
  return jsonb_build_object(
    'measures', (select jsonb_agg(jsonb_build_object('id', m.id, 'name', m.name, 'unit', m.unit,
                                                     'min_value', m.min_value, 'max_value', m.max_value,
                                                     'weigh_in_member', m.weigh_in_member) order by m.label_order)
                   from app.measures as m),
    'types', coalesce((select jsonb_agg(app.measurement_type_json(row(t.*)::app.measurement_types)
                                        order by lower(t.name), t.id)
                         from app.measurement_types as t where t.user_id = p_user_id), '[]'));
end
$$;

-- One measure's values from p_from to p_to (the user's local dates, both included), oldest
-- first: {measure, type_id, unit, points: [{recorded_at, value}]}. A weigh-in's measure is
-- read from the weigh-ins that hold it. Each read is one index range of the user's rows.
create or replace function app.measurement_series(p_user_id uuid, p_measure text, p_type_id uuid,
                                                  p_from date, p_to date)
returns jsonb
language plpgsql
stable
as $$
declare
  v_zone text := app.user_timezone(p_user_id);
  v_start timestamptz := p_from::timestamp at time zone v_zone;
  v_end timestamptz := (p_to + 1)::timestamp at time zone v_zone;
  v_measure app.measures;
  v_unit text;
  v_points jsonb;
begin
  if p_measure is not null then
    select m.* into v_measure from app.measures as m where m.id = p_measure;
    v_unit := v_measure.unit;
  else
    select t.unit into v_unit from app.measurement_types as t where t.user_id = p_user_id and t.id = p_type_id;
  end if;
  if v_measure.weigh_in_member is not null then
    select jsonb_agg(jsonb_build_object('recorded_at', w.recorded_at, 'value', w.value) order by w.recorded_at, w.id)
      into v_points
      from (select b.recorded_at, b.id,
                   case v_measure.weigh_in_member when 'weight_kg' then b.weight_kg::numeric
                                                  when 'body_fat_pct' then b.body_fat_pct::numeric
                                                  else b.height_cm::numeric end as value
              from app.body_metrics as b
             where b.user_id = p_user_id and b.recorded_at >= v_start and b.recorded_at < v_end) as w
     where w.value is not null;
  elsif p_measure is not null then
    select jsonb_agg(jsonb_build_object('recorded_at', b.recorded_at, 'value', b.value) order by b.recorded_at, b.id)
      into v_points
      from app.body_measurements as b
     where b.user_id = p_user_id and b.measure = p_measure and b.recorded_at >= v_start and b.recorded_at < v_end;
  else
    select jsonb_agg(jsonb_build_object('recorded_at', b.recorded_at, 'value', b.value) order by b.recorded_at, b.id)
      into v_points
      from app.body_measurements as b
     where b.user_id = p_user_id and b.type_id = p_type_id and b.recorded_at >= v_start and b.recorded_at < v_end;
  end if;
  return jsonb_build_object('measure', p_measure, 'type_id', p_type_id, 'unit', v_unit, 'from', p_from, 'to', p_to,
                            'points', coalesce(v_points, '[]'));
end
$$;

-- The source of an imported row: as the document says, or `import` for one this server
-- does not know (a newer or another app's value), so that one odd row never refuses a
-- file; a row without one was typed by its person. The values are the domain's
-- (app.measurement_source; sql/tests/34_body_measurements.sql holds them equal).
create or replace function app.imported_source(p_source text)
returns text
language sql
immutable
as $$
  select case when p_source is null then 'manual'
              when p_source in ('manual', 'scale', 'apple_health', 'health_connect', 'import') then p_source
              else 'import' end
$$;

grant execute on function
  app.imported_source(text),
  app.measurement_target_problems(uuid, jsonb),
  app.measurement_value_problem(uuid, text, uuid, jsonb, boolean),
  app.measurement_time_problems(jsonb, boolean),
  app.measurement_type_problems(uuid, uuid, jsonb, boolean),
  app.find_measurement_type(uuid, jsonb),
  app.find_measurement(uuid, jsonb),
  app.measurement_json(app.body_measurements),
  app.measurement_type_json(app.measurement_types),
  app.measures_json(uuid),
  app.measurement_series(uuid, text, uuid, date, date)
to liftbase_api;
