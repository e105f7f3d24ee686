-- The signed-in account: GET, PATCH and DELETE /me.

-- GET /me: the account, its settings, and whether onboarding is still to do (no goal yet).
create or replace function api.me(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_version bigint;
  v_settings jsonb;
  v_needs_onboarding boolean;
begin
  -- One statement for the three reads (each statement run has a fixed cost larger than
  -- these reads): the user's change counter (app.user_version), the settings
  -- (app.settings_json) and whether a goal exists yet.
  select coalesce((select v.last_seq from app.sync_state as v where v.user_id = v_user_id), 0),
         (select case when s.settings_document_shape = app.settings_document_shape() then s.settings_document
                      -- row(s.*): a shard's rows on Citus (app.settings_json)
                      else app.settings_values_json(row(s.*)::app.user_settings) end
            from app.user_settings as s where s.user_id = v_user_id),
         not exists (select from app.goals as g where g.user_id = v_user_id)
    into v_version, v_settings, v_needs_onboarding;
  -- One version covers all it shows: the user's change counter (display name and email
  -- changes count as profile changes).
  if app.not_modified(p_args, app.etag('u' || v_version)) then
    return null;
  end if;
  return jsonb_build_object('user', auth.current_account(), 'settings', v_settings,
                            'needs_onboarding', v_needs_onboarding);
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
