-- Reading request input, one way for every api function (and for the documents the imports
-- read). A request body is a JSON object or nothing (app.request_body); each member is read
-- as one of these kinds, and anything else is a 422 naming the member:
--
--   string     a JSON string
--   number     a JSON number
--   integer    a JSON number without a fraction, from -2147483648 to 2147483647
--   boolean    true or false
--   date       a string YYYY-MM-DD naming a real calendar date from 1900-01-01 to 2999-12-31
--   timestamp  a string in RFC 3339 form YYYY-MM-DDTHH:MM:SS[.fraction] ending in Z or an
--              offset ±HH:MM (up to ±14:59), its date as for a date, 00:00:00 to 23:59:59
--   uuid       a string of hexadecimal digits grouped 8-4-4-4-12
--   <kind>[]   a list of values of that kind (string[], integer[], uuid[])
--
-- The date bounds keep out what PostgreSQL's own input would take: infinity, epoch, today,
-- 'January 8, 1999', year 294276; no one trains or eats before 1900 or after 2999. Nothing
-- here is a PostgreSQL cast of free-form text. An absent member and JSON null read as null:
-- whether a member is required is the caller's rule (app.field_problem).
--
-- The checks collect every problem of a body into one 422 (app.field_problem, then
-- app.raise_if_invalid); the readers then turn the checked values into SQL values, and
-- raise a 422 naming the member themselves when a caller read a value it had not checked.
-- sql/tests/00_catalog.sql fails when an api or app function casts a body member or a
-- parameter itself instead of reading it here.

-- Days of a month of the Gregorian calendar.
create or replace function app.days_in_month(p_year integer, p_month integer)
returns integer
language sql
immutable
parallel safe
as $$
  select case p_month
    when 2 then case when p_year % 4 = 0 and (p_year % 100 <> 0 or p_year % 400 = 0) then 29 else 28 end
    when 4 then 30 when 6 then 30 when 9 then 30 when 11 then 30
    else 31 end
$$;

-- Whether text is a date YYYY-MM-DD of the calendar, from 1900-01-01 to 2999-12-31. The
-- shape is checked with LIKE and a plain character class (PostgreSQL's regular expressions
-- with counted repetitions cost microseconds a value, and an import checks 100,000s); the
-- parts are read as numbers only once they are digits (nested CASEs, whose order SQL keeps).
create or replace function app.is_input_date(p_text text)
returns boolean
language sql
immutable
parallel safe
as $$
  select case
    when p_text is null or p_text not like '____-__-__' or p_text !~ '^[0-9-]+$'
         or length(replace(p_text, '-', '')) <> 8
      then false
    else substr(p_text, 1, 4)::integer between 1900 and 2999
         and substr(p_text, 6, 2)::integer between 1 and 12
         and substr(p_text, 9, 2)::integer
             between 1 and app.days_in_month(substr(p_text, 1, 4)::integer, substr(p_text, 6, 2)::integer)
  end
$$;

-- Whether text is an RFC 3339 timestamp, YYYY-MM-DDTHH:MM:SS[.fraction] with Z or an
-- offset ±HH:MM (up to ±14:59), its date as app.is_input_date's.
create or replace function app.is_input_timestamp(p_text text)
returns boolean
language sql
immutable
parallel safe
as $$
  select case
    when p_text is null or p_text not like '____-__-__T__:__:__%' or substr(p_text, 12, 8) !~ '^[0-9:]+$'
      or length(replace(substr(p_text, 12, 8), ':', '')) <> 6
      or substr(p_text, 20) !~ '^(\.[0-9]+)?(Z|[+-][0-9][0-9]:[0-9][0-9])$'
      then false
    else app.is_input_date(left(p_text, 10))
         and substr(p_text, 12, 2)::integer <= 23 and substr(p_text, 15, 2)::integer <= 59
         and substr(p_text, 18, 2)::integer <= 59
         and (right(p_text, 1) = 'Z'
              or (substr(right(p_text, 5), 1, 2)::integer <= 14 and right(p_text, 2)::integer <= 59))
  end
$$;

-- The problem with one JSON value read as each kind (above), or null when it is one. JSON
-- null and a missing value (SQL null) are no problem here. None raises: a value is taken
-- apart only once its JSON type is known (nested CASEs, whose order SQL keeps). One small
-- function per kind, so that a reader inlined into a statement stays cheap to plan.
create or replace function app.input_string_problem(p_value jsonb)
returns text
language sql
immutable
parallel safe
as $$ select case when jsonb_typeof(p_value) not in ('string', 'null') then 'must be a string' end $$;

create or replace function app.input_number_problem(p_value jsonb)
returns text
language sql
immutable
parallel safe
as $$ select case when jsonb_typeof(p_value) not in ('number', 'null') then 'must be a number' end $$;

create or replace function app.input_integer_problem(p_value jsonb)
returns text
language sql
immutable
parallel safe
as $$
  select case
    when p_value is null or jsonb_typeof(p_value) = 'null' then null
    when jsonb_typeof(p_value) <> 'number' then 'must be a whole number'
    when p_value::numeric <> trunc(p_value::numeric) or abs(p_value::numeric) > 2147483647 then 'must be a whole number'
  end
$$;

create or replace function app.input_boolean_problem(p_value jsonb)
returns text
language sql
immutable
parallel safe
as $$ select case when jsonb_typeof(p_value) not in ('boolean', 'null') then 'must be true or false' end $$;

create or replace function app.input_date_problem(p_value jsonb)
returns text
language sql
immutable
parallel safe
as $$
  select case
    when p_value is null or jsonb_typeof(p_value) = 'null' then null
    when jsonb_typeof(p_value) <> 'string' or not app.is_input_date(p_value #>> '{}')
      then 'must be a date (YYYY-MM-DD) from 1900-01-01 to 2999-12-31'
  end
$$;

create or replace function app.input_timestamp_problem(p_value jsonb)
returns text
language sql
immutable
parallel safe
as $$
  select case
    when p_value is null or jsonb_typeof(p_value) = 'null' then null
    when jsonb_typeof(p_value) <> 'string' or not app.is_input_timestamp(p_value #>> '{}')
      then 'must be a timestamp with an offset (RFC 3339, e.g. 2024-05-01T06:30:00Z) from 1900 to 2999'
  end
$$;

create or replace function app.input_uuid_problem(p_value jsonb)
returns text
language sql
immutable
parallel safe
as $$
  select case
    when p_value is null or jsonb_typeof(p_value) = 'null' then null
    when jsonb_typeof(p_value) <> 'string' or not app.is_uuid(p_value #>> '{}') then 'must be a UUID'
  end
$$;

-- Any kind by name, lists included (a null item is as wrong as any other non-value, and is
-- told what an object, a value of no kind, is told).
create or replace function app.input_problem(p_value jsonb, p_kind text)
returns text
language plpgsql
immutable
parallel safe
as $$
declare
  v_item jsonb;
  v_problem text;
begin
  if p_kind like '%[]' then
    if jsonb_typeof(p_value) is null or jsonb_typeof(p_value) = 'null' then
      return null;
    end if;
    if jsonb_typeof(p_value) <> 'array' then
      return 'must be a list';
    end if;
    for v_item in select e from jsonb_array_elements(p_value) as e loop
      v_problem := coalesce(app.input_problem(v_item, left(p_kind, -2)),
                            case when jsonb_typeof(v_item) = 'null' then app.input_problem('{}', left(p_kind, -2)) end);
      if v_problem is not null then
        return 'each item ' || v_problem;
      end if;
    end loop;
    return null;
  end if;
  return case p_kind
    when 'string' then app.input_string_problem(p_value)
    when 'number' then app.input_number_problem(p_value)
    when 'integer' then app.input_integer_problem(p_value)
    when 'boolean' then app.input_boolean_problem(p_value)
    when 'date' then app.input_date_problem(p_value)
    when 'timestamp' then app.input_timestamp_problem(p_value)
    when 'uuid' then app.input_uuid_problem(p_value)
  end;
end
$$;

-- The kind a column type or domain is read as: text as a string, numeric as a number, and
-- so on (null for a type no request member has).
-- PL/pgSQL so that the catalog read is planned once per connection, not on every call.
create or replace function app.input_kind(p_type regtype)
returns text
language plpgsql
stable
as $$
begin
  return (select case coalesce(nullif(t.typbasetype, 0), t.oid)
    when 'text'::regtype then 'string' when 'character varying'::regtype then 'string'
    when 'numeric'::regtype then 'number'
    when 'integer'::regtype then 'integer' when 'smallint'::regtype then 'integer' when 'bigint'::regtype then 'integer'
    when 'boolean'::regtype then 'boolean'
    when 'date'::regtype then 'date'
    when 'timestamp with time zone'::regtype then 'timestamp'
    when 'uuid'::regtype then 'uuid'
    when 'text[]'::regtype then 'string[]'
    when 'uuid[]'::regtype then 'uuid[]'
  end
    from pg_catalog.pg_type as t
   where t.oid = p_type);
end
$$;

-- The 422 of a member a caller read without checking it first. Stable, not volatile, so
-- that the readers below stay inlinable SQL: an import reads a value of every set of years
-- of training, and a function call per value would cost seconds.
create or replace function app.raise_input_problem(p_field text, p_value jsonb, p_kind text)
returns text
language plpgsql
stable
as $$
begin
  perform app.raise_if_invalid(jsonb_build_object(p_field, app.input_problem(p_value, p_kind)));
  return null;
end
$$;

-- The readers: member p_field of p_object as a SQL value, null when it is absent or null.
-- Stable rather than immutable: an immutable function with constant arguments may be run
-- while a statement is planned, and would then raise for a branch the statement never takes.
create or replace function app.read_text(p_object jsonb, p_field text)
returns text
language sql
stable
as $$
  select case when app.input_string_problem(p_object -> p_field) is null then p_object ->> p_field
              else app.raise_input_problem(p_field, p_object -> p_field, 'string') end
$$;

create or replace function app.read_number(p_object jsonb, p_field text)
returns numeric
language sql
stable
as $$
  -- Searched, not simple, CASE: Citus evaluates the calls in a write's values on the
  -- coordinator and folds a simple CASE's branches into comparisons with null booleans,
  -- which the workers reject (text = boolean).
  select case when jsonb_typeof(p_object -> p_field) = 'number' then (p_object -> p_field)::numeric
              when jsonb_typeof(p_object -> p_field) is null or jsonb_typeof(p_object -> p_field) = 'null' then null
              else app.raise_input_problem(p_field, p_object -> p_field, 'number')::numeric end
$$;

create or replace function app.read_integer(p_object jsonb, p_field text)
returns integer
language sql
stable
as $$
  select case when app.input_integer_problem(p_object -> p_field) is not null
                then app.raise_input_problem(p_field, p_object -> p_field, 'integer')::integer
              when jsonb_typeof(p_object -> p_field) = 'number' then (p_object -> p_field)::numeric::integer end
$$;

create or replace function app.read_boolean(p_object jsonb, p_field text)
returns boolean
language sql
stable
as $$
  select case when app.input_boolean_problem(p_object -> p_field) is null then (p_object ->> p_field)::boolean
              else app.raise_input_problem(p_field, p_object -> p_field, 'boolean')::boolean end
$$;

create or replace function app.read_date(p_object jsonb, p_field text)
returns date
language sql
stable
as $$
  select case when app.input_date_problem(p_object -> p_field) is null then (p_object ->> p_field)::date
              else app.raise_input_problem(p_field, p_object -> p_field, 'date')::date end
$$;

create or replace function app.read_timestamp(p_object jsonb, p_field text)
returns timestamptz
language sql
stable
as $$
  select case when app.input_timestamp_problem(p_object -> p_field) is null then (p_object ->> p_field)::timestamptz
              else app.raise_input_problem(p_field, p_object -> p_field, 'timestamp')::timestamptz end
$$;

create or replace function app.read_uuid(p_object jsonb, p_field text)
returns uuid
language sql
stable
as $$
  select case when app.input_uuid_problem(p_object -> p_field) is null then (p_object ->> p_field)::uuid
              else app.raise_input_problem(p_field, p_object -> p_field, 'uuid')::uuid end
$$;

-- Lists: plain PL/pgSQL (a list is read once per request, not once per row).
create or replace function app.read_text_list(p_object jsonb, p_field text)
returns text[]
language plpgsql
stable
as $$
begin
  if app.input_problem(p_object -> p_field, 'string[]') is not null then
    perform app.raise_input_problem(p_field, p_object -> p_field, 'string[]');
  end if;
  if jsonb_typeof(p_object -> p_field) = 'array' then
    return array(select jsonb_array_elements_text(p_object -> p_field));
  end if;
  return null;
end
$$;

create or replace function app.read_uuid_list(p_object jsonb, p_field text)
returns uuid[]
language plpgsql
stable
as $$
begin
  if app.input_problem(p_object -> p_field, 'uuid[]') is not null then
    perform app.raise_input_problem(p_field, p_object -> p_field, 'uuid[]');
  end if;
  if jsonb_typeof(p_object -> p_field) = 'array' then
    return array(select e::uuid from jsonb_array_elements_text(p_object -> p_field) as e);
  end if;
  return null;
end
$$;

create or replace function app.read_integer_list(p_object jsonb, p_field text)
returns integer[]
language plpgsql
stable
as $$
begin
  if app.input_problem(p_object -> p_field, 'integer[]') is not null then
    perform app.raise_input_problem(p_field, p_object -> p_field, 'integer[]');
  end if;
  if jsonb_typeof(p_object -> p_field) = 'array' then
    return array(select e::numeric::integer from jsonb_array_elements_text(p_object -> p_field) as e);
  end if;
  return null;
end
$$;

grant execute on function
  app.days_in_month(integer, integer),
  app.is_input_date(text),
  app.is_input_timestamp(text),
  app.input_string_problem(jsonb),
  app.input_number_problem(jsonb),
  app.input_integer_problem(jsonb),
  app.input_boolean_problem(jsonb),
  app.input_date_problem(jsonb),
  app.input_timestamp_problem(jsonb),
  app.input_uuid_problem(jsonb),
  app.input_problem(jsonb, text),
  app.input_kind(regtype),
  app.raise_input_problem(text, jsonb, text),
  app.read_text(jsonb, text),
  app.read_number(jsonb, text),
  app.read_integer(jsonb, text),
  app.read_boolean(jsonb, text),
  app.read_date(jsonb, text),
  app.read_timestamp(jsonb, text),
  app.read_uuid(jsonb, text),
  app.read_text_list(jsonb, text),
  app.read_uuid_list(jsonb, text),
  app.read_integer_list(jsonb, text)
to liftbase_api;
