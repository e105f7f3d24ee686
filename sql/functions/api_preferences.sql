-- /preferences.

-- DELETE /preferences: resets equipment, plans and setup state.
create or replace function api.preferences_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  delete from app.user_equipment where user_id = v_user_id;
  delete from app.plans where user_id = v_user_id;
  delete from app.user_setup where user_id = v_user_id;
  return null;
end
$$;
