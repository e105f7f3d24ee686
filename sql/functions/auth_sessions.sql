-- Sessions: who the request is, registration, login with lockout, logout.

-- Makes p_user_id the user of this transaction (null: no user): RLS policies compare
-- user_id with it. The only place that sets it (auth.authenticate inlines the single-node
-- half, see there); callers that act as another user give the previous one back with
-- auth.act_as(nullif(v_previous, '')::uuid).
-- On Citus (citus.propagate_set_commands = 'local', docs/scaling.md) the workers' policies
-- see the user only as a SET LOCAL, which Citus sends to the workers of the transaction
-- block; set_config() alone stays on the node that ran it. On a single node that setting is
-- absent and the EXECUTE is skipped.
-- PL/pgSQL, not SQL: a SQL function that cannot be inlined (this one returns void) is parsed
-- and planned again on every call, which cost more than the rest of authenticating.
create or replace function auth.act_as(p_user_id uuid)
returns void
language plpgsql
as $$
begin
  perform set_config('liftbase.user_id', coalesce(p_user_id::text, ''), true);
  if current_setting('citus.propagate_set_commands', true) = 'local' then
    execute format('set local liftbase.user_id = %L', coalesce(p_user_id::text, ''));
  end if;
end
$$;

-- Resolves a bearer token to its user, or raises 401. Extends the sliding expiry, written
-- at most once a minute per session so that reads stay reads.
-- Every request runs this first, so a valid token costs one statement with a cached plan:
-- the session by its primary key (auth.token_hash is inlined), which also makes the user
-- the transaction's (as auth.act_as does; a call of it would be one more statement). The
-- account is not read: a disabled account has no session (the triggers below). The same
-- read tells whether this is Citus, where auth.act_as then adds the SET LOCAL the workers
-- need (one more statement there only). Security definer, because the API role cannot
-- read auth.sessions; the fixed search_path keeps a caller's path from choosing what the
-- names here mean (about 3 µs of a call, kept).
create or replace function auth.authenticate(p_token text)
returns uuid
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_user_id text;
  v_stale boolean;
  v_on_citus boolean;
begin
  select set_config('liftbase.user_id', s.user_id::text, true), s.last_seen_at < now() - interval '1 minute',
         current_setting('citus.propagate_set_commands', true) = 'local'
    into v_user_id, v_stale, v_on_citus
    from auth.sessions as s
   where s.token_hash = auth.token_hash(p_token)
     and s.expires_at > now();
  if v_user_id is null then
    -- No token finds no session (the hash of null is null, and no token hashes as '' does).
    if p_token is null or p_token = '' then
      perform app.raise_error(401, 'missing_token', 'A bearer token is required.');
    end if;
    -- A personal API key is looked up only when no session has the token.
    if p_token like 'lbk\_%' then
      return auth.authenticate_api_key(p_token);
    end if;
    perform app.raise_error(401, 'invalid_token', 'The session token is invalid or has expired.');
  end if;
  if v_on_citus then
    -- On Citus no trigger ends the sessions of an account disabled outside
    -- auth.admin_set_disabled (0065): the account is read here instead.
    if exists (select from auth.users as u where u.id = v_user_id::uuid and u.disabled_at is not null) then
      perform app.raise_error(401, 'invalid_token', 'The session token is invalid or has expired.');
    end if;
    perform auth.act_as(v_user_id::uuid);
  end if;
  if v_stale then
    -- A session token's expiry slides with use; an access token of a refresh-token family
    -- keeps its own (auth_refresh_tokens.sql).
    update auth.sessions
       set last_seen_at = now(),
           expires_at = case when family_id is null then now() + auth.session_lifetime() else expires_at end
     where token_hash = auth.token_hash(p_token);
  end if;
  return v_user_id;
end
$$;

-- Disabling an account ends its sessions (trigger of auth.users, 0064).
create or replace function auth.end_sessions_of_disabled_account()
returns trigger
language plpgsql
as $$
begin
  perform auth.end_sessions(new.id);
  return null;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
-- 'single node': on Citus a trigger on a reference table runs on every node's copy, and
-- one that writes another table is refused; there the functions that make the change do
-- this work (docs/scaling.md).
select liftbase_meta.keep_trigger($$CREATE TRIGGER users_end_sessions_when_disabled AFTER UPDATE OF disabled_at ON auth.users FOR EACH ROW WHEN ((new.disabled_at IS NOT NULL)) EXECUTE FUNCTION auth.end_sessions_of_disabled_account()$$, 'single node');

-- No session starts for a disabled account (trigger of auth.sessions, 0064). The account's
-- row is locked (shared) to the end of the transaction: a concurrent disabling waits for
-- this session to commit and then ends it, or this waits for the disabling and refuses.
create or replace function auth.refuse_session_of_disabled_account()
returns trigger
language plpgsql
as $$
begin
  perform auth.refuse_if_disabled(new.user_id);
  return new;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
-- 'single node': on Citus a trigger on a reference table runs on every node's copy, and
-- one that writes another table is refused; there the functions that make the change do
-- this work (docs/scaling.md).
select liftbase_meta.keep_trigger($$CREATE TRIGGER sessions_of_enabled_accounts BEFORE INSERT ON auth.sessions FOR EACH ROW EXECUTE FUNCTION auth.refuse_session_of_disabled_account()$$, 'single node');

-- Raises what login answers a disabled account; locks the account row so that a disable
-- cannot commit between this check and the session's insert.
create or replace function auth.refuse_if_disabled(p_user_id uuid)
returns void
language plpgsql
as $$
begin
  perform from auth.users as u where u.id = p_user_id and u.disabled_at is null for share;
  if not found then
    -- What login answers a disabled account (this is that login losing a race).
    perform app.raise_error(403, 'account_disabled', 'This account is disabled.');
  end if;
end
$$;

-- A new token of p_user_id: a sliding 30-day session, or the access token of refresh-token
-- family p_family_id, which lasts auth.access_token_lifetime().
create or replace function auth.start_session(p_user_id uuid, p_family_id uuid default null)
returns text
language plpgsql
as $$
declare
  v_token text := auth.new_token();
  v_lifetime interval := case when p_family_id is null then auth.session_lifetime()
                              else auth.access_token_lifetime() end;
begin
  -- On Citus the trigger on auth.sessions that checks this is dropped (app.on_citus).
  if app.on_citus() then
    perform auth.refuse_if_disabled(p_user_id);
  end if;
  insert into auth.sessions (token_hash, user_id, expires_at, family_id)
  values (auth.token_hash(v_token), p_user_id, now() + v_lifetime, p_family_id);
  return v_token;
end
$$;

-- Validates and creates an account with its settings row. Shared by registration and
-- `liftbase user create`.
create or replace function auth.create_account(p_email text, p_password text, p_display_name text)
returns auth.users
language plpgsql
as $$
declare
  v_user auth.users;
begin
  perform app.raise_if_invalid(jsonb_build_object(
    'email', auth.email_problem(p_email),
    'password', auth.password_problem(p_password),
    'display_name', auth.display_name_problem(p_display_name)));
  insert into auth.users (email, password_hash, display_name)
  values (btrim(p_email), auth.hash_password(p_password), btrim(p_display_name))
  on conflict ((lower(email))) do nothing
  returning * into v_user;
  if v_user.id is null then
    perform app.raise_error(409, 'email_taken', 'An account with this email already exists.');
  end if;
  perform auth.act_as(v_user.id);
  insert into app.user_settings (user_id) values (v_user.id);
  return v_user;
end
$$;

-- p_client is the request's (auth.client_of), for the security log; p_refreshable asks for
-- an access token and a refresh token (auth.sign_in).
create or replace function auth.register(p_email text, p_password text, p_display_name text,
                                         p_invitation text default null, p_client jsonb default '{}',
                                         p_refreshable boolean default false)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_user auth.users;
  v_refusal jsonb := auth.registration_refusal(p_email, p_invitation);
begin
  if v_refusal is not null then
    return v_refusal;
  end if;
  -- Answered, not raised: the request's rate-limit count stays (auth.spend_rate_budgets),
  -- and no password is hashed for an address that is taken. Two sign-ups of one new
  -- address at once: the second is raised 409 by auth.create_account.
  if exists (select from auth.users as u where lower(u.email) = lower(btrim(p_email))) then
    return app.error_response(409, 'email_taken', 'An account with this email already exists.');
  end if;
  v_user := auth.create_account(p_email, p_password, p_display_name);
  -- An invitation for the address is spent by the sign-up, and shows the address to be its
  -- owner's (it was mailed there); any other account is sent a verification mail.
  if auth.spend_invitation(p_invitation, v_user.email) then
    v_user.email_verified_at := now();
    update auth.users set email_verified_at = v_user.email_verified_at where id = v_user.id;
  else
    perform auth.queue_email_verification(v_user);
  end if;
  if auth.requires_verified_email() and v_user.email_verified_at is null then
    return jsonb_build_object('user', auth.user_json(v_user), 'token', null);
  end if;
  return auth.sign_in(v_user, p_client, '{"method": "registration"}', p_refreshable);
end
$$;

-- 429 too_many_attempts with Retry-After while the lockout window holds threshold failures
-- of the email (wrong passwords, and wrong codes of two-factor sign-in): until the oldest of
-- them leaves it. Null when the email is not locked.
create or replace function auth.lockout_answer(p_email_key text)
returns jsonb
language plpgsql
as $$
declare
  v_locked_until timestamptz;
begin
  select f.failed_at + auth.lockout_window() into v_locked_until
    from auth.login_failures as f
   where f.email_key = p_email_key and f.failed_at > now() - auth.lockout_window()
   order by f.failed_at desc
  offset auth.lockout_threshold() - 1
   limit 1;
  if v_locked_until is null then
    return null;
  end if;
  perform app.set_response_header('Retry-After',
    greatest(1, ceil(extract(epoch from v_locked_until - now())))::integer::text);
  return app.error_response(429, 'too_many_attempts', 'Too many failed logins. Try again later.');
end
$$;

-- Null when p_password is the account's; else the answer, with the failure counted against
-- the account's lockout as a failed login is (or 429 while it is locked), so that a session
-- cannot be used to guess the password: the routes that ask for it again (two-factor, API
-- keys) answer it, and the count stays.
create or replace function auth.password_refusal(p_user_id uuid, p_password text)
returns jsonb
language plpgsql
as $$
declare
  v_user auth.users;
  v_locked jsonb;
begin
  select u.* into v_user from auth.users as u where u.id = p_user_id;
  v_locked := auth.lockout_answer(lower(v_user.email));
  if v_locked is not null then
    return v_locked;
  end if;
  if auth.password_matches(p_password, v_user.password_hash) then
    return null;
  end if;
  insert into auth.login_failures (email_key) values (lower(v_user.email));
  return app.error_response(403, 'invalid_password', 'The password is incorrect.');
end
$$;

-- Login. A failure is answered (not raised) so that the failed attempt is committed: the
-- lockout counts failures per email inside auth.lockout_window(), and the account's security
-- log keeps it. p_client and p_refreshable are auth.register's.
create or replace function auth.login(p_email text, p_password text, p_client jsonb default '{}',
                                      p_refreshable boolean default false)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_email_key text := lower(btrim(coalesce(p_email, '')));
  v_locked jsonb;
  v_user auth.users;
begin
  -- One login per email at a time, so concurrent guesses cannot all pass the count below.
  perform pg_advisory_xact_lock(hashtext('liftbase.login:' || v_email_key));
  v_locked := auth.lockout_answer(v_email_key);
  if v_locked is not null then
    return v_locked;
  end if;

  select u.* into v_user from auth.users as u where lower(u.email) = v_email_key;
  if v_user.id is null then
    -- Spend one bcrypt anyway, so an unknown email answers as slowly as a wrong password.
    perform auth.hash_password(coalesce(p_password, ''));
  end if;
  if v_user.id is null or not auth.password_matches(p_password, v_user.password_hash) then
    insert into auth.login_failures (email_key) values (v_email_key);
    if v_user.id is not null then
      perform auth.log_security_event(v_user.id, 'sign_in_failed', p_client);
    end if;
    return app.error_response(401, 'invalid_credentials', 'The email or password is incorrect.');
  end if;
  if v_user.disabled_at is not null then
    perform app.raise_error(403, 'account_disabled', 'This account is disabled.');
  end if;
  if v_user.email_verified_at is null and auth.requires_verified_email() then
    return app.error_response(403, 'email_not_verified',
                              'Verify this account''s email address first: follow the link of the mail sent to it.');
  end if;

  -- With two-factor sign-in a code is still owed: 202 and a challenge (auth_two_factor.sql).
  -- The failures stay until the code is given: a wrong code counts as a wrong password.
  if auth.two_factor_enabled(v_user.id) then
    return auth.login_challenge(v_user.id, p_refreshable);
  end if;
  delete from auth.login_failures where email_key = v_email_key;
  return auth.sign_in(v_user, p_client, '{"method": "password"}', p_refreshable);
end
$$;

-- Revokes the presented token, and the refresh token of its sign-in when it has one.
create or replace function auth.logout(p_token text)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  perform auth.authenticate(p_token);
  perform auth.refuse_api_key(p_token);
  delete from auth.token_families
   where id = (select s.family_id from auth.sessions as s where s.token_hash = auth.token_hash(p_token));
  delete from auth.sessions where token_hash = auth.token_hash(p_token);
end
$$;

grant execute on function
  auth.authenticate(text),
  auth.register(text, text, text, text, jsonb, boolean),
  auth.login(text, text, jsonb, boolean),
  auth.logout(text)
to liftbase_api;

-- The user id of the current request, set by auth.authenticate() for the transaction.
-- RLS policies call it inside a sub-select so it is evaluated once per statement.
create or replace function app.current_user_id() returns uuid
language sql stable parallel safe
as $$ select nullif(current_setting('liftbase.user_id', true), '')::uuid $$;
grant execute on function app.current_user_id() to liftbase_api;
