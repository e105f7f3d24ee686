-- The signed-in account: GET, PATCH and DELETE /me.

-- GET /me: the account, its settings, and whether onboarding is still to do (no goal yet).
create or replace function api.me(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  -- One version covers all it shows: the user's change counter (display name and email
  -- changes count as profile changes).
  if app.not_modified(p_args, app.etag('u' || app.user_version(v_user_id))) then
    return null;
  end if;
  return jsonb_build_object(
    'user', auth.current_account(),
    'settings', app.settings_json(v_user_id),
    'needs_onboarding', not exists (select from app.goals as g where g.user_id = v_user_id));
end
$$;

create or replace function api.me_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
begin
  perform auth.authenticate(p_token);
  return jsonb_build_object('user', auth.update_current_account(coalesce(p_body, '{}')));
end
$$;

-- DELETE /me {password}. The password is a required field like any other: without one the
-- answer is 422 naming it, not 403 calling a password that was never sent incorrect.
create or replace function api.me_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
begin
  perform auth.authenticate(p_token);
  perform app.raise_if_invalid(jsonb_build_object(
    'password', app.field_problem(p_body, 'password', 'text')));
  perform auth.delete_current_account(app.read_text(p_body, 'password'));
  return null;
end
$$;
