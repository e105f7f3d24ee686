-- GET / PATCH /settings.

create or replace function api.settings_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  if app.entity_not_modified(v_user_id, 'settings', v_user_id::text, p_args) then
    return null;
  end if;
  return app.settings_json(v_user_id);
end
$$;

-- Merges the body into the settings (nested objects merge member by member); 422 lists
-- every bad member at once and changes nothing.
create or replace function api.settings_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
  v_body jsonb := coalesce(p_body, '{}');
begin
  v_user_id := auth.authenticate(p_token);
  perform app.check_if_match(v_user_id, 'settings', v_user_id::text, p_args);
  perform app.raise_if_invalid(app.settings_problems(v_body));
  perform app.save_settings(v_user_id, v_body);
  return app.settings_json(v_user_id);
end
$$;
