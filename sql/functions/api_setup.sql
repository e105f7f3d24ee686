-- /setup: whether training setup is done.

create or replace function api.setup_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  return app.setup_json(v_user_id);
end
$$;

create or replace function api.setup_complete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  insert into app.user_setup (user_id) values (v_user_id) on conflict (user_id) do nothing;
  return app.setup_json(v_user_id);
end
$$;
