-- GET /export?format=json and the CSV exports. These return rows of text that the server
-- streams to the client in order (the endpoint table marks them as streamed); an error,
-- 401 included, is raised before the first row, so it is still answered as an error.

create or replace function api.export_json(p_token text, p_body jsonb, p_args jsonb)
returns setof text
language plpgsql
set "TimeZone" to 'UTC'
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  if coalesce(p_args ->> 'format', 'json') <> 'json' then
    perform app.raise_parameter_problem('format', 'must be json (CSV files are at /export/{name}.csv)');
  end if;
  return query select chunk from app.export_document(v_user_id) as chunk;
end
$$;

create or replace function api.export_workouts_csv(p_token text, p_body jsonb, p_args jsonb)
returns setof text
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return query select line from app.workouts_csv(v_user_id) as line;
end
$$;

create or replace function api.export_nutrition_csv(p_token text, p_body jsonb, p_args jsonb)
returns setof text
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return query select line from app.nutrition_csv(v_user_id) as line;
end
$$;

create or replace function api.export_body_metrics_csv(p_token text, p_body jsonb, p_args jsonb)
returns setof text
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return query select line from app.body_metrics_csv(v_user_id) as line;
end
$$;
