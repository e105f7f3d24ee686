-- List parameters shared by every list endpoint: limit 1–200 (default 50) and an opaque
-- cursor (the id of the last item of the previous page). Bad values are a 400.

create or replace function app.page_limit(p_args jsonb)
returns integer
language plpgsql
immutable
as $$
declare
  v_limit text := p_args ->> 'limit';
begin
  if v_limit is null then
    return 50;
  end if;
  if v_limit !~ '^\d{1,3}$' or v_limit::integer not between 1 and 200 then
    perform app.raise_error(400, 'invalid_parameter', 'limit must be a whole number from 1 to 200.');
  end if;
  return v_limit::integer;
end
$$;

create or replace function app.page_cursor(p_args jsonb)
returns bigint
language plpgsql
immutable
as $$
declare
  v_cursor text := p_args ->> 'cursor';
begin
  if v_cursor is null or v_cursor = '' then
    return null;
  end if;
  if v_cursor !~ '^\d{1,18}$' then
    perform app.raise_error(400, 'invalid_parameter', 'cursor is not one this API gave out.');
  end if;
  return v_cursor::bigint;
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

grant execute on function app.page_limit(jsonb), app.page_cursor(jsonb), app.page(jsonb, integer) to liftbase_api;
