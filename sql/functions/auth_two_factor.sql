-- Two-factor sign-in (auth.totp_factors, auth.recovery_codes, auth.login_challenges: 0088).
--
-- TOTP as RFC 6238 says, as every authenticator app reads it: HMAC-SHA1 of the 30-second
-- step since the epoch, 6 digits; a code of the step before or after is taken too (clocks
-- drift), and no code is taken twice: a step at or before the last one accepted is refused.
-- Enrolment: a secret and its otpauth:// URI (password required), confirmed by a code of
-- it, which turns two-factor sign-in on and gives ten one-time recovery codes, shown once.
-- Login with it on answers 202 with a challenge instead of a token; POST
-- /auth/login/two-factor spends the challenge with a code or a recovery code. Turning it off
-- takes the password and a code.

-- Wrong codes a challenge takes before it ends (a new login makes another).
create or replace function auth.challenge_attempts()
returns integer
language sql
immutable
as $$ select 5 $$;

-- RFC 4648 base32, no padding: a 20-byte secret is 32 characters, as authenticator apps
-- take it.
create or replace function auth.base32(p_bytes bytea)
returns text
language sql
immutable
as $$
  select string_agg(substr('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567',
                           ('0' || rpad(substr(b.bits, i, 5), 5, '0'))::bit(6)::integer + 1, 1), '' order by i)
    from (select string_agg(get_byte(p_bytes, n)::bit(8)::text, '' order by n) as bits
            from generate_series(0, length(p_bytes) - 1) as n) as b,
         generate_series(1, length(b.bits), 5) as i
$$;

-- p_text percent-encoded but for URI's unreserved characters (RFC 3986), for the URI's label.
create or replace function auth.uri_component(p_text text)
returns text
language sql
immutable
as $$
  select string_agg(case when c ~ '^[A-Za-z0-9._~-]$' then c
                         else (select string_agg('%' || upper(lpad(to_hex(get_byte(convert_to(c, 'UTF8'), k)), 2, '0')),
                                                 '' order by k)
                                 from generate_series(0, octet_length(c) - 1) as k) end, '' order by n)
    from regexp_split_to_table(p_text, '') with ordinality as t (c, n)
$$;

-- The 30-second step of p_at.
create or replace function auth.totp_step(p_at timestamptz)
returns bigint
language sql
immutable
as $$ select floor(extract(epoch from p_at) / 30)::bigint $$;

-- The 6-digit code of p_secret for step p_step (RFC 4226's dynamic truncation).
create or replace function auth.totp_code(p_secret bytea, p_step bigint)
returns text
language plpgsql
immutable
as $$
declare
  v_hmac bytea := public.hmac(int8send(p_step), p_secret, 'sha1');
  v_offset integer := get_byte(v_hmac, 19) & 15;
begin
  return lpad(((((get_byte(v_hmac, v_offset) & 127)::bigint << 24) | (get_byte(v_hmac, v_offset + 1) << 16)
                | (get_byte(v_hmac, v_offset + 2) << 8) | get_byte(v_hmac, v_offset + 3)) % 1000000)::text, 6, '0');
end
$$;

-- Whether p_code is a code of the account's factor (confirmed, or the one being enrolled
-- when p_enrolling) not used before; taking it makes it and every earlier one used. The
-- factor's row is locked, so that two requests cannot both take one code.
create or replace function auth.take_totp_code(p_user_id uuid, p_code text, p_enrolling boolean default false)
returns boolean
language plpgsql
as $$
declare
  v_secret bytea;
  v_last_step bigint;
  v_now bigint := auth.totp_step(now());
  v_code text := regexp_replace(coalesce(p_code, ''), '\s', '', 'g');
begin
  select f.secret, f.last_step into v_secret, v_last_step
    from auth.totp_factors as f
   where f.user_id = p_user_id and (f.confirmed_at is not null) <> p_enrolling
     for update;
  if v_secret is null or v_code !~ '^[0-9]{6}$' then
    return false;
  end if;
  for v_step in v_now - 1 .. v_now + 1 loop
    if v_step > coalesce(v_last_step, -1) and auth.totp_code(v_secret, v_step) = v_code then
      update auth.totp_factors set last_step = v_step where user_id = p_user_id;
      return true;
    end if;
  end loop;
  return false;
end
$$;

-- Recovery codes are read without spaces, dashes or case.
create or replace function auth.recovery_code_hash(p_code text)
returns bytea
language sql
stable
as $$ select auth.token_hash(lower(regexp_replace(coalesce(p_code, ''), '[\s-]', '', 'g'))) $$;

-- Whether p_code is an unused recovery code of the account; taking it uses it.
create or replace function auth.take_recovery_code(p_user_id uuid, p_code text)
returns boolean
language plpgsql
as $$
begin
  update auth.recovery_codes set used_at = now()
   where user_id = p_user_id and code_hash = auth.recovery_code_hash(p_code) and used_at is null;
  return found;
end
$$;

-- Ten new recovery codes (80 random bits each, as xxxx-xxxx-xxxx-xxxx), replacing any
-- others of the account.
create or replace function auth.new_recovery_codes(p_user_id uuid)
returns jsonb
language plpgsql
as $$
declare
  v_codes text[] := array(select regexp_replace(lower(auth.base32(public.gen_random_bytes(10))),
                                                '^(.{4})(.{4})(.{4})(.{4})$', '\1-\2-\3-\4')
                            from generate_series(1, 10));
begin
  delete from auth.recovery_codes where user_id = p_user_id;
  insert into auth.recovery_codes (user_id, code_hash)
  select p_user_id, auth.recovery_code_hash(c) from unnest(v_codes) as c;
  return to_jsonb(v_codes);
end
$$;

create or replace function auth.two_factor_enabled(p_user_id uuid)
returns boolean
language plpgsql
stable
as $$
begin
  return exists (select from auth.totp_factors as f where f.user_id = p_user_id and f.confirmed_at is not null);
end
$$;

-- GET /me/two-factor: whether it is on, since when, and how many recovery codes are left.
create or replace function auth.two_factor_state(p_user_id uuid)
returns jsonb
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_confirmed_at timestamptz := (select f.confirmed_at from auth.totp_factors as f where f.user_id = p_user_id);
begin
  return jsonb_build_object(
    'enabled', v_confirmed_at is not null,
    'enabled_at', v_confirmed_at,
    'recovery_codes_left', case when v_confirmed_at is not null then
      (select count(*) from auth.recovery_codes as r where r.user_id = p_user_id and r.used_at is null) end);
end
$$;

-- POST /me/two-factor: a new secret to enrol, with its otpauth:// URI (a QR code of it is
-- what an authenticator app scans). 409 when two-factor sign-in is on already (or turned on
-- by a confirmation that committed meanwhile). A wrong password is answered and counted
-- (auth.password_refusal).
create or replace function auth.start_two_factor_enrolment(p_user_id uuid, p_password text)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_secret bytea := public.gen_random_bytes(20);
  v_email text := (select u.email from auth.users as u where u.id = p_user_id);
  v_refusal jsonb := auth.password_refusal(p_user_id, p_password);
begin
  if v_refusal is not null then
    return v_refusal;
  end if;
  insert into auth.totp_factors as f (user_id, secret) values (p_user_id, v_secret)
  on conflict (user_id) do update set secret = excluded.secret, created_at = excluded.created_at, last_step = null
   where f.confirmed_at is null;
  if not found then
    perform app.raise_error(409, 'two_factor_enabled', 'Two-factor sign-in is on already: turn it off first.');
  end if;
  return jsonb_build_object(
    'secret', auth.base32(v_secret),
    'otpauth_uri', format('otpauth://totp/Liftbase:%s?secret=%s&issuer=Liftbase&algorithm=SHA1&digits=6&period=30',
                          auth.uri_component(v_email), auth.base32(v_secret)));
end
$$;

-- POST /me/two-factor/confirm: a code of the secret being enrolled turns two-factor sign-in
-- on and answers the recovery codes. A wrong code is answered, not raised: the request's
-- rate-limit count stays.
create or replace function auth.confirm_two_factor(p_user_id uuid, p_code text, p_client jsonb)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  if not exists (select from auth.totp_factors as f where f.user_id = p_user_id and f.confirmed_at is null) then
    perform app.raise_error(409, 'no_enrolment', 'Start with POST /me/two-factor: no secret is being enrolled.');
  end if;
  if not auth.take_totp_code(p_user_id, p_code, p_enrolling => true) then
    return app.error_response(422, 'invalid_code', 'The code is not one of this secret''s now.');
  end if;
  update auth.totp_factors set confirmed_at = now() where user_id = p_user_id;
  perform auth.log_security_event(p_user_id, 'two_factor_enabled', p_client);
  return jsonb_build_object('recovery_codes', auth.new_recovery_codes(p_user_id));
end
$$;

-- DELETE /me/two-factor: the password and a code (or a recovery code) turn it off. A wrong
-- password is answered and counted (auth.password_refusal).
create or replace function auth.disable_two_factor(p_user_id uuid, p_password text, p_code text, p_client jsonb)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_refusal jsonb := auth.password_refusal(p_user_id, p_password);
begin
  if v_refusal is not null then
    return v_refusal;
  end if;
  if not auth.two_factor_enabled(p_user_id) then
    perform app.raise_error(409, 'two_factor_not_enabled', 'Two-factor sign-in is not on.');
  end if;
  -- A current code, else a recovery code: a code that is both is taken once.
  if not auth.take_totp_code(p_user_id, p_code) and not auth.take_recovery_code(p_user_id, p_code) then
    return app.error_response(422, 'invalid_code', 'The code is neither a current code nor an unused recovery code.');
  end if;
  delete from auth.totp_factors where user_id = p_user_id;
  perform auth.log_security_event(p_user_id, 'two_factor_disabled', p_client);
  return null;
end
$$;

-- What a login whose password was right answers when the account has two-factor sign-in:
-- 202 and a challenge for POST /auth/login/two-factor, which lasts five minutes. The
-- account's lapsed challenges go with it.
create or replace function auth.login_challenge(p_user_id uuid, p_refreshable boolean)
returns jsonb
language plpgsql
as $$
declare
  v_challenge text := auth.new_token();
begin
  delete from auth.login_challenges where user_id = p_user_id and expires_at <= now();
  insert into auth.login_challenges (token_hash, user_id, expires_at, refreshable)
  values (auth.token_hash(v_challenge), p_user_id, now() + interval '5 minutes', coalesce(p_refreshable, false));
  perform app.set_response_status(202);
  return jsonb_build_object('two_factor_required', true, 'challenge', v_challenge, 'expires_in', 300);
end
$$;

-- POST /auth/login/two-factor: the challenge and a code, or a recovery code, answered as a
-- login is. Failures are answered, not raised: a wrong code counts against the challenge
-- (auth.challenge_attempts, then it ends) and against the account's lockout as a wrong
-- password does (so that many challenges cannot buy many guesses), and is logged.
create or replace function auth.complete_login(p_challenge text, p_code text, p_recovery_code text, p_client jsonb)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_user_id uuid;
  v_attempts integer;
  v_refreshable boolean;
  v_user auth.users;
  v_email_key text;
  v_locked jsonb;
begin
  select c.user_id, c.attempts, c.refreshable into v_user_id, v_attempts, v_refreshable
    from auth.login_challenges as c
   where c.token_hash = auth.token_hash(coalesce(p_challenge, '')) and c.expires_at > now()
     for update;
  if v_user_id is null then
    return app.error_response(401, 'invalid_challenge', 'The challenge is unknown, used or expired: log in again.');
  end if;
  v_email_key := (select lower(u.email) from auth.users as u where u.id = v_user_id);
  v_locked := auth.lockout_answer(v_email_key);
  if v_locked is not null then
    return v_locked;
  end if;
  if not (case when p_recovery_code is not null then auth.take_recovery_code(v_user_id, p_recovery_code)
               else auth.take_totp_code(v_user_id, p_code) end) then
    if v_attempts + 1 >= auth.challenge_attempts() then
      delete from auth.login_challenges where token_hash = auth.token_hash(p_challenge);
    else
      update auth.login_challenges set attempts = attempts + 1 where token_hash = auth.token_hash(p_challenge);
    end if;
    insert into auth.login_failures (email_key) values (v_email_key);
    perform auth.log_security_event(v_user_id, 'sign_in_failed', p_client, '{"step": "two_factor"}');
    return app.error_response(401, 'invalid_code', 'The code is not a current code or an unused recovery code.');
  end if;
  delete from auth.login_challenges where token_hash = auth.token_hash(p_challenge);
  delete from auth.login_failures where email_key = v_email_key;
  select u.* into v_user from auth.users as u where u.id = v_user_id;
  if v_user.disabled_at is not null then
    perform app.raise_error(403, 'account_disabled', 'This account is disabled.');
  end if;
  if p_recovery_code is not null then
    perform auth.log_security_event(v_user_id, 'recovery_code_used', p_client);
  end if;
  return auth.sign_in(v_user, p_client, jsonb_build_object(
    'method', case when p_recovery_code is not null then 'recovery_code' else 'two_factor' end), v_refreshable);
end
$$;

grant execute on function
  auth.two_factor_state(uuid),
  auth.start_two_factor_enrolment(uuid, text),
  auth.confirm_two_factor(uuid, text, jsonb),
  auth.disable_two_factor(uuid, text, text, jsonb),
  auth.complete_login(text, text, text, jsonb)
to liftbase_api;
