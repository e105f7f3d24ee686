-- Access tokens that last minutes, and refresh tokens that rotate (POST /auth/token), for
-- clients that ask for them at sign-in (`"refreshable": true`); the others keep the sliding
-- 30-day session token. docs/security.md says how a client moves from one to the other.
--
-- A refresh token is `lbr_<family id>_<secret>`. Its family (auth.token_families, 0086) keeps
-- the SHA-256 of its current secret only: using the token spends it and gives the client a
-- new secret and access token. A token of the family with another secret was spent before:
-- using it again ends the family, every access token of it included (OAuth 2.1's reuse
-- detection), and is written to the account's security log.

create or replace function auth.refresh_token_text(p_family_id uuid, p_secret text)
returns text
language sql
immutable
as $$ select 'lbr_' || replace(p_family_id::text, '-', '') || '_' || p_secret $$;

-- The family a refresh token names and its secret, or nulls when the text is not one.
create or replace function auth.refresh_token_parts(p_token text, out family_id uuid, out secret text)
language sql
immutable
as $$
  select m[1]::uuid, m[2] from regexp_match(p_token, '^lbr_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$') as m
$$;

-- The tokens of a family's new turn: an access token, and the refresh token that brings the
-- next turn. The caller has checked the account (an access token's insert refuses a
-- disabled one: auth.start_session).
create or replace function auth.next_family_tokens(p_user_id uuid, p_family_id uuid)
returns jsonb
language plpgsql
as $$
declare
  v_secret text := auth.new_token();
  v_expires_at timestamptz := now() + auth.refresh_token_lifetime();
begin
  update auth.token_families
     set secret_hash = auth.token_hash(v_secret), rotated_at = now(), expires_at = v_expires_at
   where id = p_family_id;
  -- The family's access tokens that have lapsed go: a family holds about one at a time.
  delete from auth.sessions where family_id = p_family_id and expires_at <= now();
  return jsonb_build_object('token', auth.start_session(p_user_id, p_family_id),
                            'token_type', 'Bearer',
                            'expires_in', extract(epoch from auth.access_token_lifetime())::integer,
                            'refresh_token', auth.refresh_token_text(p_family_id, v_secret));
end
$$;

-- A new family for a sign-in that asked for a refresh token; the account's lapsed families
-- go with it (an account holds about one per client it signed in with).
create or replace function auth.start_token_family(p_user_id uuid)
returns jsonb
language plpgsql
as $$
declare
  v_family_id uuid := gen_random_uuid();
begin
  delete from auth.token_families where user_id = p_user_id and expires_at <= now();
  insert into auth.token_families (id, user_id, secret_hash, expires_at)
  values (v_family_id, p_user_id, auth.token_hash(auth.new_token()), now());
  return auth.next_family_tokens(p_user_id, v_family_id);
end
$$;

-- POST /auth/token: a refresh token spent for the next access and refresh tokens. Failures
-- are answered, not raised, so that a reused token's revocation and its event are kept.
create or replace function auth.refresh_session(p_refresh_token text, p_client jsonb)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_token record := auth.refresh_token_parts(p_refresh_token);
  v_family auth.token_families;
begin
  select f.* into v_family
    from auth.token_families as f
   where f.id = v_token.family_id and f.expires_at > now()
     for update;
  if v_family.id is null then
    return app.error_response(401, 'invalid_refresh_token',
                              'The refresh token is invalid or has expired, or its sign-in has ended. Sign in again.');
  end if;
  if v_family.secret_hash <> auth.token_hash(v_token.secret) then
    delete from auth.token_families where id = v_family.id;
    perform auth.log_security_event(v_family.user_id, 'refresh_token_reused', p_client,
                                    jsonb_build_object('signed_in_at', v_family.created_at));
    return app.error_response(401, 'refresh_token_reused',
                              'This refresh token was used before: every token of its sign-in is revoked. Sign in again.');
  end if;
  perform auth.act_as(v_family.user_id);
  return auth.next_family_tokens(v_family.user_id, v_family.id);
end
$$;

-- Ends the account's sessions, refresh-token families and logins waiting for a code: all of
-- them, or all but the one p_keep_token_hash is a session of (a password changed by that
-- session keeps it).
create or replace function auth.end_sessions(p_user_id uuid, p_keep_token_hash bytea default null)
returns void
language plpgsql
as $$
declare
  v_kept_family uuid := (select s.family_id from auth.sessions as s where s.token_hash = p_keep_token_hash);
begin
  delete from auth.token_families where user_id = p_user_id and id is distinct from v_kept_family;
  delete from auth.sessions where user_id = p_user_id and token_hash is distinct from p_keep_token_hash;
  delete from auth.login_challenges where user_id = p_user_id;
end
$$;

-- A sign-in of p_user (a login, a registration, a login's second step, a provider's token):
-- the user made the transaction's, the sign-in written to the security log with p_detail
-- (its method), and the answer: the account and its token, and, when the client asked for
-- them, the short-lived access token's lifetime and a refresh token.
create or replace function auth.sign_in(p_user auth.users, p_client jsonb, p_detail jsonb, p_refreshable boolean)
returns jsonb
language plpgsql
as $$
begin
  perform auth.act_as(p_user.id);
  perform auth.log_sign_in(p_user.id, p_client, p_detail);
  if coalesce(p_refreshable, false) then
    return jsonb_build_object('user', auth.user_json(p_user)) || auth.start_token_family(p_user.id);
  end if;
  return jsonb_build_object('user', auth.user_json(p_user), 'token', auth.start_session(p_user.id));
end
$$;

grant execute on function auth.refresh_session(text, jsonb) to liftbase_api;
