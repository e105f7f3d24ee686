-- Personal API keys (auth.api_keys, 0087): bearer tokens an account makes for its scripts
-- and integrations. A key is `lbk_` and 256 random bits, shown once and kept as its SHA-256;
-- it has a name, a scope, an optional expiry and the time it was last used.
-- - Scope `read` reads; a request that may write (every route but GET: the statement wraps
--   the token in auth.writable_token, LiftbaseCore's Endpoint.statement) is refused 403
--   insufficient_scope before it runs. Scope `read_write` does what the account does,
-- - except account and security changes (password, logout, keys, the security log,
--   deleting the account), which refuse every key: 403 api_key_not_allowed.
-- A key outlives a password change (scripts keep running), not a reset (how an account is
-- taken back); the account revokes it.

-- At most this many keys per account.
create or replace function auth.api_key_limit()
returns integer
language sql
immutable
as $$ select 50 $$;

-- The user of key p_token, made the transaction's (auth.authenticate calls this when no
-- session has the token), or 401. The last-used time is written at most once a minute, as
-- a session's is.
create or replace function auth.authenticate_api_key(p_token text)
returns uuid
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_user_id uuid;
  v_stale boolean;
begin
  select k.user_id, coalesce(k.last_used_at < now() - interval '1 minute', true) into v_user_id, v_stale
    from auth.api_keys as k
    join auth.users as u on u.id = k.user_id
   where k.token_hash = auth.token_hash(p_token)
     and (k.expires_at is null or k.expires_at > now())
     and u.disabled_at is null;
  if v_user_id is null then
    perform app.raise_error(401, 'invalid_token', 'The session token is invalid or has expired.');
  end if;
  perform auth.act_as(v_user_id);
  if v_stale then
    update auth.api_keys set last_used_at = now() where token_hash = auth.token_hash(p_token);
  end if;
  return v_user_id;
end
$$;

-- The token of a request that may write, as it came, unless it is a read-only key: 403.
-- Anything else (no token, a session, a key of no account) is auth.authenticate's to judge.
-- SQL, so that it is inlined into every write's statement: a session's token costs a LIKE
-- (about 0.1 µs, where a call of the key check would cost 3 µs on every write).
create or replace function auth.writable_token(p_token text)
returns text
language sql
stable
as $$ select case when p_token like 'lbk\_%' then auth.writable_key(p_token) else p_token end $$;

-- auth.writable_token for a token that looks like a key: 403 when it is a read-only one.
create or replace function auth.writable_key(p_token text)
returns text
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  if exists (select from auth.api_keys as k where k.token_hash = auth.token_hash(p_token) and k.scope = 'read') then
    perform app.raise_error(403, 'insufficient_scope', 'This API key may only read.');
  end if;
  return p_token;
end
$$;

-- 403 when p_token is an API key: the account's security is changed by the account signed
-- in, never by a key.
create or replace function auth.refuse_api_key(p_token text)
returns void
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  if p_token like 'lbk\_%' and exists (select from auth.api_keys as k where k.token_hash = auth.token_hash(p_token)) then
    perform app.raise_error(403, 'api_key_not_allowed',
                            'An API key cannot change the account''s security: sign in to do this.');
  end if;
end
$$;

-- A key's public shape, from its row as JSON: everything but its secret's hash (and the
-- account, which is the caller's). JSON, not the row type: on Citus a function of a
-- coordinator table's row type is not propagated.
create or replace function auth.api_key_json(p_key jsonb)
returns jsonb
language sql
immutable
as $$ select p_key - 'user_id' - 'token_hash' $$;

-- The problems of a new key's body ({password, name, scope, expires_at}) by member, null
-- ones for members without any.
create or replace function auth.api_key_problems(p_body jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  v_name text := app.field_problem(p_body, 'name', 'text');
  v_scope text := app.field_problem(p_body, 'scope', 'text');
  v_expires_at text := app.field_problem(p_body, 'expires_at', 'app.timestamp_value', false);
begin
  if v_name is null and length(btrim(p_body ->> 'name')) not between 1 and 100 then
    v_name := 'must be 1 to 100 characters';
  end if;
  if v_scope is null and p_body ->> 'scope' not in ('read', 'read_write') then
    v_scope := 'must be read or read_write';
  end if;
  if v_expires_at is null and (p_body ->> 'expires_at')::timestamptz <= now() then
    v_expires_at := 'must be in the future';
  end if;
  return jsonb_build_object('name', v_name, 'scope', v_scope, 'expires_at', v_expires_at,
                            'password', app.field_problem(p_body, 'password', 'text'));
end
$$;

-- POST /me/api-keys: the new key, with its secret this once. The password is asked again
-- (a wrong one answered and counted: auth.password_refusal), so that a session someone
-- took for minutes cannot become a key that outlives it.
create or replace function auth.create_api_key(p_user_id uuid, p_body jsonb, p_client jsonb)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_token text := 'lbk_' || auth.new_token();
  v_key auth.api_keys;
  v_refusal jsonb;
begin
  perform app.raise_if_invalid(auth.api_key_problems(p_body));
  v_refusal := auth.password_refusal(p_user_id, p_body ->> 'password');
  if v_refusal is not null then
    return v_refusal;
  end if;
  -- One account's keys are made one at a time, so that two at once cannot pass the limit.
  perform from auth.users as u where u.id = p_user_id for update;
  if (select count(*) from auth.api_keys as k where k.user_id = p_user_id) >= auth.api_key_limit() then
    perform app.raise_error(409, 'too_many_api_keys',
                            format('An account has at most %s API keys: revoke one first.', auth.api_key_limit()));
  end if;
  insert into auth.api_keys (user_id, name, token_hash, scope, expires_at)
  values (p_user_id, btrim(app.read_text(p_body, 'name')), auth.token_hash(v_token), app.read_text(p_body, 'scope'),
          app.read_text(p_body, 'expires_at')::timestamptz)
  returning * into v_key;
  perform auth.log_security_event(p_user_id, 'api_key_created', p_client,
                                  jsonb_build_object('api_key_id', v_key.id, 'name', v_key.name, 'scope', v_key.scope));
  return auth.api_key_json(to_jsonb(v_key)) || jsonb_build_object('key', v_token);
end
$$;

-- GET /me/api-keys: the account's keys, newest first, without their secrets.
create or replace function auth.api_keys_of(p_user_id uuid)
returns jsonb
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  return (select coalesce(jsonb_agg(auth.api_key_json(to_jsonb(k)) order by k.created_at desc, k.id), '[]')
            from auth.api_keys as k where k.user_id = p_user_id);
end
$$;

-- DELETE /me/api-keys/{id}: the key stops working at once; 404 when the account has no
-- such key.
create or replace function auth.revoke_api_key(p_user_id uuid, p_id uuid, p_client jsonb)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_key auth.api_keys;
begin
  delete from auth.api_keys as k where k.user_id = p_user_id and k.id = p_id returning * into v_key;
  if v_key.id is null then
    perform app.raise_error(404, 'api_key_not_found', 'No such API key.');
  end if;
  perform auth.log_security_event(p_user_id, 'api_key_revoked', p_client,
                                  jsonb_build_object('api_key_id', v_key.id, 'name', v_key.name));
end
$$;

grant execute on function
  auth.writable_token(text),
  auth.writable_key(text),
  auth.refuse_api_key(text),
  auth.create_api_key(uuid, jsonb, jsonb),
  auth.api_keys_of(uuid),
  auth.revoke_api_key(uuid, uuid, jsonb)
to liftbase_api;
