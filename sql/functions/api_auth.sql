-- Accounts and auth endpoints. Every api function has the same signature:
--   (p_token text, p_body jsonb, p_args jsonb) returns jsonb
-- p_token is the bearer token or null, p_body the request body, p_args the path and
-- query parameters as a JSON object of strings. The HTTP layer calls exactly one of them
-- per request, in one statement.
--
-- Functions that need a user call auth.authenticate() in a statement of its own, before
-- any query reads user-owned rows: row-level security evaluates the request's user once
-- per statement, before a function called within that same statement could have set it
-- (sql/tests/00_catalog.sql checks this).

-- The sensitive routes count each request against their rate limits first
-- (auth.spend_rate_budgets): a request over a limit is answered 429 with nothing else done,
-- and a failure after the count is answered, never raised, so that the count stays.
create or replace function api.auth_register(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_limited jsonb := auth.spend_rate_budgets(array['register_per_address'], array[auth.client_address_key(p_args)]);
begin
  if v_limited is not null then
    return v_limited;
  end if;
  perform app.raise_if_invalid(jsonb_build_object(
    'email', coalesce(app.field_problem(p_body, 'email', 'text', false),
                      auth.email_problem(app.read_text(p_body, 'email'))),
    'password', coalesce(app.field_problem(p_body, 'password', 'text', false),
                         auth.password_problem(app.read_text(p_body, 'password'))),
    'display_name', coalesce(app.field_problem(p_body, 'display_name', 'text', false),
                             auth.display_name_problem(app.read_text(p_body, 'display_name'))),
    'invitation', app.field_problem(p_body, 'invitation', 'text', false),
    'refreshable', app.field_problem(p_body, 'refreshable', 'boolean', false)));
  return auth.register(app.read_text(p_body, 'email'), app.read_text(p_body, 'password'),
                       app.read_text(p_body, 'display_name'), app.read_text(p_body, 'invitation'),
                       auth.client_of(p_args), app.read_boolean(p_body, 'refreshable'));
end
$$;

-- A wrong credential is a failed login (401, counted for the lockout); a member that is not
-- a string is a malformed request (422), answered before any login is tried.
create or replace function api.auth_login(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_limited jsonb := auth.spend_rate_budgets(array['login_per_address'], array[auth.client_address_key(p_args)]);
begin
  if v_limited is not null then
    return v_limited;
  end if;
  perform app.raise_if_invalid(jsonb_build_object(
    'email', app.field_problem(p_body, 'email', 'text', false),
    'password', app.field_problem(p_body, 'password', 'text', false),
    'refreshable', app.field_problem(p_body, 'refreshable', 'boolean', false)));
  return auth.login(app.read_text(p_body, 'email'), app.read_text(p_body, 'password'), auth.client_of(p_args),
                    app.read_boolean(p_body, 'refreshable'));
end
$$;

create or replace function api.auth_logout(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
begin
  perform auth.logout(p_token);
  return null;
end
$$;

-- Counted per address and per email asked for, whether or not it has an account: the
-- answer never tells which (at most forgot_per_email reset mails a window to one address).
create or replace function api.auth_password_forgot(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_limited jsonb;
begin
  perform app.raise_if_invalid(jsonb_build_object('email', app.field_problem(p_body, 'email', 'text', true)));
  v_limited := auth.spend_rate_budgets(array['forgot_per_address', 'forgot_per_email'],
                                       array[auth.client_address_key(p_args),
                                             lower(btrim(app.read_text(p_body, 'email')))]);
  if v_limited is not null then
    return v_limited;
  end if;
  perform auth.password_forgot(app.read_text(p_body, 'email'));
  return null;
end
$$;

create or replace function api.auth_password_reset(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_limited jsonb := auth.spend_rate_budgets(array['reset_per_address'], array[auth.client_address_key(p_args)]);
begin
  if v_limited is not null then
    return v_limited;
  end if;
  perform app.raise_if_invalid(jsonb_build_object(
    'token', app.field_problem(p_body, 'token', 'text', false),
    'new_password', app.field_problem(p_body, 'new_password', 'text', false)));
  return auth.password_reset(app.read_text(p_body, 'token'), app.read_text(p_body, 'new_password'),
                             auth.client_of(p_args));
end
$$;

create or replace function api.auth_password_change(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
begin
  perform app.raise_if_invalid(jsonb_build_object(
    'current_password', app.field_problem(p_body, 'current_password', 'text', false),
    'new_password', app.field_problem(p_body, 'new_password', 'text', false)));
  return auth.password_change(p_token, app.read_text(p_body, 'current_password'),
                              app.read_text(p_body, 'new_password'), auth.client_of(p_args));
end
$$;

-- POST /auth/email/verify: the token of a verification mail; a wrong one is counted as a
-- reset token is.
create or replace function api.auth_email_verify(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_limited jsonb := auth.spend_rate_budgets(array['verify_per_address'], array[auth.client_address_key(p_args)]);
begin
  if v_limited is not null then
    return v_limited;
  end if;
  perform app.raise_if_invalid(jsonb_build_object('token', app.field_problem(p_body, 'token', 'text')));
  return auth.verify_email(app.read_text(p_body, 'token'));
end
$$;

-- POST /auth/email/verification: another verification mail, counted per address and per
-- email asked for as a reset mail is; 202 whatever the email names.
create or replace function api.auth_email_verification(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_limited jsonb;
begin
  perform app.raise_if_invalid(jsonb_build_object('email', app.field_problem(p_body, 'email', 'text')));
  v_limited := auth.spend_rate_budgets(array['verification_mail_per_address', 'verification_mail_per_email'],
                                       array[auth.client_address_key(p_args),
                                             lower(btrim(app.read_text(p_body, 'email')))]);
  if v_limited is not null then
    return v_limited;
  end if;
  perform auth.resend_email_verification(app.read_text(p_body, 'email'));
  return null;
end
$$;

-- POST /auth/token: {refresh_token} spent for a new access token and refresh token
-- (auth_refresh_tokens.sql).
create or replace function api.auth_token(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
begin
  perform app.raise_if_invalid(jsonb_build_object(
    'refresh_token', app.field_problem(p_body, 'refresh_token', 'text')));
  return auth.refresh_session(app.read_text(p_body, 'refresh_token'), auth.client_of(p_args));
end
$$;

-- POST /auth/login/two-factor: {challenge, code} or {challenge, recovery_code}, the second
-- step of a login that answered 202 (auth_two_factor.sql); counted per address.
create or replace function api.auth_login_two_factor(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_limited jsonb := auth.spend_rate_budgets(array['two_factor_per_address'], array[auth.client_address_key(p_args)]);
begin
  if v_limited is not null then
    return v_limited;
  end if;
  perform app.raise_if_invalid(jsonb_build_object(
    'challenge', app.field_problem(p_body, 'challenge', 'text'),
    'code', coalesce(app.field_problem(p_body, 'code', 'text', false),
                     case when (p_body ->> 'code' is null) = (p_body ->> 'recovery_code' is null)
                          then 'give a code or a recovery_code, not both' end),
    'recovery_code', app.field_problem(p_body, 'recovery_code', 'text', false)));
  return auth.complete_login(app.read_text(p_body, 'challenge'), app.read_text(p_body, 'code'),
                             app.read_text(p_body, 'recovery_code'), auth.client_of(p_args));
end
$$;

-- POST /auth/oidc/{provider}: {id_token, nonce, refreshable?, invitation?}. The HTTP layer
-- verified the token and put its claims in p_args (auth_oidc.sql); counted as a login.
create or replace function api.auth_oidc(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_limited jsonb := auth.spend_rate_budgets(array['login_per_address'], array[auth.client_address_key(p_args)]);
begin
  if v_limited is not null then
    return v_limited;
  end if;
  perform app.raise_if_invalid(jsonb_build_object(
    'id_token', app.field_problem(p_body, 'id_token', 'text'),
    'nonce', app.field_problem(p_body, 'nonce', 'text'),
    'refreshable', app.field_problem(p_body, 'refreshable', 'boolean', false),
    'invitation', app.field_problem(p_body, 'invitation', 'text', false)));
  return auth.oidc_sign_in(auth.oidc_claims(p_args), app.read_text(p_body, 'nonce'), app.read_text(p_body, 'invitation'),
                           app.read_boolean(p_body, 'refreshable'), auth.client_of(p_args));
end
$$;
