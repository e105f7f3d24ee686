-- The signed-in account: GET, PATCH and DELETE /me.

-- GET /me: the account, its settings, and whether onboarding is still to do (no goal yet).
-- One indexed read: the user's change counter, which versions the answer (display name and
-- email changes count as profile changes), and the answer kept beside it (migration 0063,
-- app_me_document.sql); a user without a kept answer of the current shape has it built.
create or replace function api.me(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_version bigint;
  v_document jsonb;
begin
  -- The kept answer when today's definitions built it: app.me_document_shape() written
  -- out, so that replacing any of the three definitions makes this plan again.
  select s.last_seq,
         case when s.me_document_shape = md5(app.me_document_builder_shape() || auth.user_json_shape()
                                             || app.settings_document_shape())
              then s.me_document end
    into v_version, v_document
    from app.sync_state as s
   where s.user_id = v_user_id;
  if app.not_modified(p_args, app.etag('u' || coalesce(v_version, 0))) then
    return null;
  end if;
  return coalesce(v_document, app.current_me_document());
end
$$;

create or replace function api.me_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user jsonb;
begin
  perform auth.authenticate(p_token);
  v_user := auth.update_current_account(coalesce(p_body, '{}'));
  perform auth.note_display_name_change(coalesce(p_body, '{}'));
  return jsonb_build_object('user', v_user);
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
  perform auth.refuse_api_key(p_token);
  perform app.raise_if_invalid(jsonb_build_object(
    'password', app.field_problem(p_body, 'password', 'text')));
  return auth.delete_current_account(app.read_text(p_body, 'password'));
end
$$;

-- The account's personal API keys and security log (auth_api_keys.sql, auth_security_log.sql):
-- an API key reaches neither (auth.refuse_api_key).

-- GET /me/security-events?limit=&cursor=: the account's security log, newest first.
create or replace function api.security_events_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'number');
begin
  perform auth.refuse_api_key(p_token);
  return app.page(auth.security_events_page(v_user_id, v_page.cursor_number, v_page.page_size), v_page.page_size);
end
$$;

-- GET /me/api-keys?limit=&cursor=: the account's keys, newest first, without secrets.
create or replace function api.api_keys_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  perform auth.refuse_api_key(p_token);
  return app.page_of_list(auth.api_keys_of(v_user_id), p_args);
end
$$;

-- POST /me/api-keys: {name, scope, expires_at?}; the answer holds the key, this once.
create or replace function api.api_key_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  perform auth.refuse_api_key(p_token);
  return auth.create_api_key(v_user_id, p_body, auth.client_of(p_args));
end
$$;

-- DELETE /me/api-keys/{id}
create or replace function api.api_key_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  perform auth.refuse_api_key(p_token);
  perform auth.revoke_api_key(v_user_id, app.id_parameter(p_args), auth.client_of(p_args));
  return null;
end
$$;

-- Two-factor sign-in (auth_two_factor.sql): its state, enrolment, confirmation and turning
-- it off. The confirmation and turning off take a code: counted per address.

-- GET /me/two-factor
create or replace function api.two_factor_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  perform auth.refuse_api_key(p_token);
  return auth.two_factor_state(v_user_id);
end
$$;

-- POST /me/two-factor: {password}
create or replace function api.two_factor_enrol(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
begin
  perform auth.refuse_api_key(p_token);
  perform app.raise_if_invalid(jsonb_build_object('password', app.field_problem(p_body, 'password', 'text')));
  return auth.start_two_factor_enrolment(v_user_id, app.read_text(p_body, 'password'));
end
$$;

-- POST /me/two-factor/confirm: {code}
create or replace function api.two_factor_confirm(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_limited jsonb;
begin
  perform auth.refuse_api_key(p_token);
  v_limited := auth.spend_rate_budgets(array['two_factor_per_address'], array[auth.client_address_key(p_args)]);
  if v_limited is not null then
    return v_limited;
  end if;
  perform app.raise_if_invalid(jsonb_build_object('code', app.field_problem(p_body, 'code', 'text')));
  return auth.confirm_two_factor(v_user_id, app.read_text(p_body, 'code'), auth.client_of(p_args));
end
$$;

-- DELETE /me/two-factor: {password, code}, the code a current one or a recovery code.
create or replace function api.two_factor_disable(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_limited jsonb;
begin
  perform auth.refuse_api_key(p_token);
  v_limited := auth.spend_rate_budgets(array['two_factor_per_address'], array[auth.client_address_key(p_args)]);
  if v_limited is not null then
    return v_limited;
  end if;
  perform app.raise_if_invalid(jsonb_build_object(
    'password', app.field_problem(p_body, 'password', 'text'),
    'code', app.field_problem(p_body, 'code', 'text')));
  return auth.disable_two_factor(v_user_id, app.read_text(p_body, 'password'), app.read_text(p_body, 'code'),
                                 auth.client_of(p_args));
end
$$;
