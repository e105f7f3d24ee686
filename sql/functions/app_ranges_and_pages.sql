-- Request parameters of lists and ranges, each read one way by every endpoint: a date, a
-- date range (?from=&to=), and a page (?limit=&cursor=). Bad values are a 400.

-- ?<p_name>= as a date (YYYY-MM-DD), or null when absent (a 400 when p_required).
create or replace function app.date_parameter(p_args jsonb, p_name text, p_required boolean default false)
returns date
language plpgsql
immutable
as $$
begin
  if p_args ->> p_name is null then
    if p_required then
      perform app.raise_error(400, 'invalid_parameter', format('%s is required (YYYY-MM-DD).', p_name));
    end if;
    return null;
  end if;
  if p_args ->> p_name !~ '^\d{4}-\d{2}-\d{2}$' then
    perform app.raise_error(400, 'invalid_parameter', format('%s must be a date (YYYY-MM-DD).', p_name));
  end if;
  return (p_args ->> p_name)::date;
exception when invalid_datetime_format or datetime_field_overflow then
  perform app.raise_error(400, 'invalid_parameter', format('%s must be a date (YYYY-MM-DD).', p_name));
  return null;
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
    perform app.raise_error(400, 'invalid_parameter', 'from must not be after to.');
  end if;
end
$$;

-- ?limit=&cursor= of a list: limit 1–p_max_limit (default p_default_limit), and the cursor
-- the list gave out (an opaque value: the last item's id, or an offset), read as p_cursor
-- says: 'number', 'uuid', or 'none' for a list that gives out no cursor (it is not read).
create or replace function app.page_parameters(p_args jsonb, p_cursor text, p_default_limit integer default 50,
  p_max_limit integer default 200, out page_size integer, out cursor_number bigint, out cursor_uuid uuid)
language plpgsql
immutable
as $$
declare
  v_limit text := p_args ->> 'limit';
  v_cursor text := nullif(p_args ->> 'cursor', '');
begin
  if v_limit is null then
    page_size := p_default_limit;
  elsif v_limit !~ '^\d{1,3}$' or v_limit::integer not between 1 and p_max_limit then
    perform app.raise_error(400, 'invalid_parameter', format('limit must be a whole number from 1 to %s.', p_max_limit));
  else
    page_size := v_limit::integer;
  end if;
  if v_cursor is null or p_cursor = 'none' then
    return;
  end if;
  if p_cursor = 'number' and v_cursor ~ '^\d{1,18}$' then
    cursor_number := v_cursor::bigint;
  elsif p_cursor = 'uuid' and app.is_uuid(v_cursor) then
    cursor_uuid := v_cursor::uuid;
  else
    perform app.raise_error(400, 'invalid_parameter', 'cursor is not one this API gave out.');
  end if;
end
$$;

-- {"items": [...first p_limit...], "next_cursor": id of the last item when there is more}.
-- p_rows holds up to p_limit + 1 items, each with an "id"; the extra one only says that
-- there is more, and is dropped (jsonb minus an index) rather than re-aggregated.
create or replace function app.page(p_rows jsonb, p_limit integer)
returns jsonb
language sql
immutable
as $$
  select case when jsonb_array_length(p_rows) > p_limit
              then jsonb_build_object('items', p_rows - p_limit, 'next_cursor', p_rows -> (p_limit - 1) ->> 'id')
              else jsonb_build_object('items', p_rows, 'next_cursor', null) end
$$;

grant execute on function
  app.date_parameter(jsonb, text, boolean),
  app.date_range_parameter(jsonb, uuid, integer),
  app.page_parameters(jsonb, text, integer, integer),
  app.page(jsonb, integer)
to liftbase_api;
