-- Request parameters (the path's and the query's, all strings), each read one way by
-- every endpoint: an id, a date, a date range (?from=&to=), and a page (?limit=&cursor=).
-- A bad value is a 400 naming the parameter: code invalid_parameter, fields {name: problem}.
-- An id in the path addresses a resource: one that is not a UUID names no row and is
-- answered like an unknown id, 404 with the resource's code (session_not_found...). An id
-- in the query is a parameter: not a UUID is a 400, a UUID of no row a 404.

-- The 400 of a bad parameter.
create or replace function app.raise_parameter_problem(p_name text, p_problem text)
returns void
language plpgsql
as $$
begin
  perform app.raise_error(400, 'invalid_parameter', format('%s %s.', p_name, p_problem),
                          jsonb_build_object(p_name, p_problem));
end
$$;

-- {<p_name>} of the path as the id of a row: its UUID, or null when the text is none, which
-- the caller answers 404 like an id of no row.
create or replace function app.id_parameter(p_args jsonb, p_name text default 'id')
returns uuid
language sql
immutable
as $$ select case when app.is_uuid(p_args ->> p_name) then (p_args ->> p_name)::uuid end $$;

-- {<p_name>} of the path as the id of a row numbered by an identity column (a weigh-in, a
-- measurement): the number, or null when the text is none (answered 404 like an unknown id).
create or replace function app.number_id_parameter(p_args jsonb, p_name text default 'id')
returns bigint
language sql
immutable
as $$ select case when p_args ->> p_name ~ '^[0-9]{1,18}$' then (p_args ->> p_name)::bigint end $$;

-- ?<p_name>= as a date (YYYY-MM-DD, a calendar date from 1900-01-01 to 2999-12-31, as in
-- bodies: app.is_input_date), or null when absent (a 400 when p_required).
create or replace function app.date_parameter(p_args jsonb, p_name text, p_required boolean default false)
returns date
language plpgsql
stable
as $$
begin
  if p_args ->> p_name is null then
    if p_required then
      perform app.raise_parameter_problem(p_name, 'is required (YYYY-MM-DD)');
    end if;
    return null;
  end if;
  if not app.is_input_date(p_args ->> p_name) then
    perform app.raise_parameter_problem(p_name, 'must be a date (YYYY-MM-DD) from 1900-01-01 to 2999-12-31');
  end if;
  return (p_args ->> p_name)::date;
end
$$;

-- ?from=&to=, the range of every endpoint that reads one. Without to: the user's today
-- (p_user_id given) or open; without from: p_default_days before to, or open. from after
-- to is a 400, never an empty answer: a client that swapped the two must hear of it, and
-- an empty list would look like "nothing logged".
create or replace function app.date_range_parameter(p_args jsonb, p_user_id uuid default null,
  p_default_days integer default null, out from_date date, out to_date date)
language plpgsql
stable
as $$
begin
  from_date := app.date_parameter(p_args, 'from');
  to_date := app.date_parameter(p_args, 'to');
  if to_date is null and p_user_id is not null then
    to_date := app.user_today(p_user_id);
  end if;
  from_date := coalesce(from_date, to_date - p_default_days);
  if from_date > to_date then
    perform app.raise_parameter_problem('from', 'must not be after to');
  end if;
end
$$;

-- ?from=&to= of a read that follows every day of its range (a year of analytics, a diary's
-- entries): app.date_range_parameter, at most p_max_days apart (366: a year), else 400
-- range_too_large naming from. Without a limit such a read would grow with every year of the
-- user's history; a wider view is asked for a year at a time.
create or replace function app.date_range_within(p_args jsonb, p_user_id uuid, p_default_days integer,
  p_max_days integer, out from_date date, out to_date date)
language plpgsql
stable
as $$
declare
  v_range record := app.date_range_parameter(p_args, p_user_id, p_default_days);
begin
  from_date := v_range.from_date;
  to_date := v_range.to_date;
  if to_date - from_date > p_max_days then
    perform app.raise_error(400, 'range_too_large', format('from and to may be at most %s days apart.', p_max_days),
                            jsonb_build_object('from', format('must be at most %s days before to', p_max_days)));
  end if;
end
$$;

-- ?limit=&cursor= of a list: limit 1–p_max_limit (default p_default_limit), and the cursor
-- the list gave out (an opaque value: the last item's id, or an offset), read as p_cursor
-- says: 'number', 'uuid', or 'none' for a list that gives out no cursor (it is not read).
-- A cursor of the right form that names no row of the list is the list's to refuse
-- (app.raise_unknown_cursor), with the same 400.
create or replace function app.page_parameters(p_args jsonb, p_cursor text, p_default_limit integer default 50,
  p_max_limit integer default 200, out page_size integer, out cursor_number bigint, out cursor_uuid uuid)
language plpgsql
stable
as $$
declare
  v_limit text := p_args ->> 'limit';
  v_cursor text := nullif(p_args ->> 'cursor', '');
begin
  -- Digits are checked before they are read as a number: never a failed cast.
  page_size := case when v_limit is null then p_default_limit
                    when v_limit ~ '^[0-9]{1,3}$' then v_limit::integer end;
  if page_size is null or page_size not between 1 and p_max_limit then
    perform app.raise_parameter_problem('limit', format('must be a whole number from 1 to %s', p_max_limit));
  end if;
  if v_cursor is null or p_cursor = 'none' then
    return;
  end if;
  cursor_number := case when p_cursor = 'number' and v_cursor ~ '^[0-9]{1,18}$' then v_cursor::bigint end;
  cursor_uuid := case when p_cursor = 'uuid' and app.is_uuid(v_cursor) then v_cursor::uuid end;
  if cursor_number is null and cursor_uuid is null then
    perform app.raise_unknown_cursor();
  end if;
end
$$;

-- The 400 of a cursor this API did not give out (or whose row is gone).
create or replace function app.raise_unknown_cursor()
returns void
language plpgsql
as $$
begin
  perform app.raise_parameter_problem('cursor', 'is not one this list gave out');
end
$$;

-- A page of a list built whole (a small catalog: templates, equipment), by ?limit= and an
-- offset cursor: {"items": [...], "next_cursor": the next offset when there is more}.
create or replace function app.page_of_list(p_items jsonb, p_args jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  v_page record := app.page_parameters(p_args, 'number');
  v_offset integer := least(coalesce(v_page.cursor_number, 0), 1000000);
begin
  return app.offset_page(coalesce((select jsonb_agg(i order by n)
                                     from jsonb_array_elements(p_items) with ordinality as x (i, n)
                                    where n > v_offset and n <= v_offset + v_page.page_size + 1), '[]'),
                         v_page.page_size, v_offset);
end
$$;

-- The pages of every list, cut the same way. A list reads one item more than its page,
-- p_rows (up to p_limit + 1 items, in the list's order); the extra one only says that
-- there is more, and is dropped (jsonb minus an index) rather than re-aggregated.
-- app.page: a keyset list, {"items": [...first p_limit...], "next_cursor": the member
-- p_cursor_member of the last item when there is more}; the list reads the rows after the
-- cursor's row by its own order (the part that is each table's: its key columns), and
-- refuses a cursor that names no row (app.raise_unknown_cursor).
-- app.offset_page: a list without a key to resume from (ranked results), whose cursor is
-- the offset of the next page.
-- PL/pgSQL: their callers pass a subquery, which a SQL function using its argument more than
-- once is never inlined with, and a SQL function not inlined is planned on every call.
create or replace function app.page(p_rows jsonb, p_limit integer, p_cursor_member text default 'id')
returns jsonb
language plpgsql
immutable
as $$
begin
  return case when jsonb_array_length(p_rows) > p_limit
              then jsonb_build_object('items', p_rows - p_limit,
                                      'next_cursor', p_rows -> (p_limit - 1) ->> p_cursor_member)
              else jsonb_build_object('items', p_rows, 'next_cursor', null) end;
end
$$;

create or replace function app.offset_page(p_rows jsonb, p_limit integer, p_offset integer)
returns jsonb
language plpgsql
immutable
as $$
begin
  return case when jsonb_array_length(p_rows) > p_limit
              then jsonb_build_object('items', p_rows - p_limit, 'next_cursor', (p_offset + p_limit)::text)
              else jsonb_build_object('items', p_rows, 'next_cursor', null) end;
end
$$;

grant execute on function
  app.raise_parameter_problem(text, text),
  app.id_parameter(jsonb, text),
  app.number_id_parameter(jsonb, text),
  app.raise_unknown_cursor(),
  app.date_parameter(jsonb, text, boolean),
  app.date_range_parameter(jsonb, uuid, integer),
  app.date_range_within(jsonb, uuid, integer, integer),
  app.page_parameters(jsonb, text, integer, integer),
  app.page_of_list(jsonb, jsonb),
  app.page(jsonb, integer, text),
  app.offset_page(jsonb, integer, integer)
to liftbase_api;
