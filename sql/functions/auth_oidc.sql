-- Sign in with Apple, Google or any OpenID Connect provider the operator configures
-- (POST /auth/oidc/{provider}; docs/security.md). The HTTP layer checks the ID token's
-- signature against the provider's published keys, its issuer, its audience (the operator's
-- client ids) and its expiry, as cryptography and fetching keys are its to do; it hands SQL
-- the claims it verified as p_args' oidc_claims, which no client can set (the query
-- parameter of that name is refused). The account rules are here:
-- - the nonce the client made for this sign-in must be the token's (as sent, or as its
--   SHA-256 in hex, which Sign in with Apple asks clients to send);
-- - a token works once (auth.id_token_uses, until it expires);
-- - the provider's subject names the account, never an email. A new subject is linked to an
--   existing account only when the provider says it verified the address and the account's
--   own address is verified too (an account someone made for an address they never
--   verified is not handed to its owner with its maker still in it); otherwise an address
--   taken by an account is refused, and a new one makes an account, as registration would.

-- The verified claims, or null when the statement came without them (never from the HTTP
-- layer, which refuses the request first).
create or replace function auth.oidc_claims(p_args jsonb)
returns jsonb
language plpgsql
immutable
as $$
begin
  return (p_args ->> 'oidc_claims')::jsonb;
exception when invalid_text_representation then
  return null;
end
$$;

-- Whether the token's nonce is the one the client made: as it was sent, or its SHA-256 hex.
create or replace function auth.nonce_matches(p_claimed text, p_nonce text)
returns boolean
language sql
immutable
as $$
  select p_claimed is not null and p_nonce is not null
     and (p_claimed = p_nonce or p_claimed = encode(sha256(convert_to(p_nonce, 'UTF8')), 'hex'))
$$;

-- The account a provider's subject names, or the account of the token's address when both
-- the provider and the account verified it (the identity is then linked to it); null when
-- there is none.
create or replace function auth.oidc_linked_account(p_claims jsonb, p_client jsonb)
returns uuid
language plpgsql
as $$
declare
  v_user_id uuid;
  v_email text := nullif(btrim(p_claims ->> 'email'), '');
begin
  update auth.external_identities set last_used_at = now()
   where provider = p_claims ->> 'provider' and subject = p_claims ->> 'sub'
  returning user_id into v_user_id;
  if v_user_id is not null or v_email is null or not coalesce((p_claims ->> 'email_verified')::boolean, false) then
    return v_user_id;
  end if;
  select u.id into v_user_id
    from auth.users as u
   where lower(u.email) = lower(v_email) and u.email_verified_at is not null;
  if v_user_id is not null then
    insert into auth.external_identities (provider, subject, user_id, email)
    values (p_claims ->> 'provider', p_claims ->> 'sub', v_user_id, v_email);
    perform auth.log_security_event(v_user_id, 'identity_linked', p_client,
                                    jsonb_build_object('provider', p_claims ->> 'provider'));
  end if;
  return v_user_id;
end
$$;

-- A new account for a provider's identity, registration's rules passed: its password is
-- random and unknown (a reset mail sets one), its address verified when the provider says so
-- or an invitation for it is spent (as at registration).
create or replace function auth.oidc_new_account(p_claims jsonb, p_invitation text)
returns uuid
language plpgsql
as $$
declare
  v_email text := btrim(p_claims ->> 'email');
  v_user auth.users := auth.create_account(v_email, auth.new_token(), null);
  v_invited boolean := auth.spend_invitation(p_invitation, v_email);
begin
  if v_invited or coalesce((p_claims ->> 'email_verified')::boolean, false) then
    update auth.users set email_verified_at = now() where id = v_user.id;
  else
    perform auth.queue_email_verification(v_user);
  end if;
  insert into auth.external_identities (provider, subject, user_id, email)
  values (p_claims ->> 'provider', p_claims ->> 'sub', v_user.id, v_email);
  perform app.set_response_status(201);
  return v_user.id;
end
$$;

-- POST /auth/oidc/{provider}: signs in (or up) with verified claims, answered as a login.
-- Failures are answered, not raised: the token stays spent and the request's rate-limit
-- count stays.
create or replace function auth.oidc_sign_in(p_claims jsonb, p_nonce text, p_invitation text, p_refreshable boolean,
                                             p_client jsonb)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_user_id uuid;
  v_user auth.users;
  v_email text := nullif(btrim(p_claims ->> 'email'), '');
  v_refusal jsonb;
begin
  if p_claims ->> 'sub' is null or p_claims ->> 'provider' is null or p_claims ->> 'token_sha256' is null then
    return app.error_response(401, 'invalid_id_token', 'The ID token was not verified.');
  end if;
  if not auth.nonce_matches(p_claims ->> 'nonce', p_nonce) then
    return app.error_response(401, 'invalid_id_token', 'The ID token was not issued for this nonce.');
  end if;
  delete from auth.id_token_uses
   where token_hash in (select u.token_hash from auth.id_token_uses as u where u.expires_at <= now()
                         order by u.expires_at limit 4);
  insert into auth.id_token_uses (token_hash, expires_at)
  values (decode(p_claims ->> 'token_sha256', 'hex'), to_timestamp((p_claims ->> 'exp')::double precision))
  on conflict do nothing;
  if not found then
    return app.error_response(401, 'id_token_replayed', 'This ID token was used before: sign in with the provider again.');
  end if;
  v_user_id := auth.oidc_linked_account(p_claims, p_client);
  if v_user_id is null then
    if v_email is null then
      return app.error_response(422, 'email_required',
        'The provider gave no email address: allow sharing it, or register with an email and password.');
    end if;
    if exists (select from auth.users as u where lower(u.email) = lower(v_email)) then
      return app.error_response(409, 'email_taken',
        'An account with this email exists: sign in with its password (the address was not verified by both sides).');
    end if;
    v_refusal := auth.registration_refusal(v_email, p_invitation);
    if v_refusal is not null then
      return v_refusal;
    end if;
    v_user_id := auth.oidc_new_account(p_claims, p_invitation);
  end if;
  select u.* into v_user from auth.users as u where u.id = v_user_id;
  if v_user.disabled_at is not null then
    return app.error_response(403, 'account_disabled', 'This account is disabled.');
  end if;
  -- The operator's rule for every way in (auth.requires_verified_email): an address neither
  -- the provider nor a mailed link verified signs in no more than a password would.
  if v_user.email_verified_at is null and auth.requires_verified_email() then
    return app.error_response(403, 'email_not_verified',
                              'Verify this account''s email address first: follow the link of the mail sent to it.');
  end if;
  if auth.two_factor_enabled(v_user.id) then
    return auth.login_challenge(v_user.id, p_refreshable);
  end if;
  return auth.sign_in(v_user, p_client, jsonb_build_object('method', 'oidc', 'provider', p_claims ->> 'provider'),
                      p_refreshable);
end
$$;

grant execute on function
  auth.oidc_claims(jsonb),
  auth.oidc_sign_in(jsonb, text, text, boolean, jsonb)
to liftbase_api;
