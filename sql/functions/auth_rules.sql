-- Account rules and token primitives: each rule lives here once, used by registration,
-- password change and reset, and the admin CLI alike.

-- Field rules return the problem as text, or null when the value is acceptable.
create or replace function auth.email_problem(p_email text)
returns text
language sql
immutable
as $$
  select case
    when p_email is null or btrim(p_email) = '' then 'is required'
    when length(btrim(p_email)) > 254 then 'must be at most 254 characters'
    when btrim(p_email) !~ '^[^@\s]+@[^@\s]+\.[^@\s]+$' then 'must be an email address'
  end
$$;

create or replace function auth.password_problem(p_password text)
returns text
language sql
immutable
as $$
  select case
    when p_password is null or p_password = '' then 'is required'
    when length(p_password) < 8 then 'must be at least 8 characters'
    -- bcrypt reads 72 bytes; a longer password would be silently truncated.
    when octet_length(p_password) > 72 then 'must be at most 72 bytes'
  end
$$;

create or replace function auth.display_name_problem(p_display_name text)
returns text
language sql
immutable
as $$
  select case
    when p_display_name is not null and length(btrim(p_display_name)) not between 1 and 100
      then 'must be 1 to 100 characters'
  end
$$;

-- Session lifetime, extended on use (sliding expiry).
create or replace function auth.session_lifetime()
returns interval
language sql
immutable
as $$ select interval '30 days' $$;

-- A length of time the operator may set for the database (liftbase.access_token_lifetime...):
-- p_default when unset, else an interval from p_least to p_most. Anything else is an
-- operator's mistake: refused (the server will not start on it), never quietly replaced.
create or replace function auth.interval_setting(p_name text, p_default interval, p_least interval, p_most interval)
returns interval
language plpgsql
stable
as $$
declare
  v_value text := nullif(btrim(current_setting(p_name, true)), '');
  v_interval interval;
begin
  if v_value is null then
    return p_default;
  end if;
  begin
    v_interval := v_value::interval;
  exception when others then
    v_interval := null;
  end;
  if v_interval is null or v_interval < p_least or v_interval > p_most then
    raise exception using errcode = 'config_file_error',
      message = format('%s = %s: must be a length of time from %s to %s', p_name, v_value, p_least, p_most);
  end if;
  return v_interval;
end
$$;

-- How long an access token of a refresh-token family lasts (not extended by use).
create or replace function auth.access_token_lifetime()
returns interval
language sql
stable
as $$ select auth.interval_setting('liftbase.access_token_lifetime', interval '15 minutes', interval '1 minute',
                                   interval '1 day') $$;

-- How long a refresh token lasts unused; each use gives a new one as long again.
create or replace function auth.refresh_token_lifetime()
returns interval
language sql
stable
as $$ select auth.interval_setting('liftbase.refresh_token_lifetime', interval '30 days', interval '1 hour',
                                   interval '365 days') $$;

-- How long an account's security events are kept.
create or replace function auth.security_log_retention()
returns interval
language sql
stable
as $$ select auth.interval_setting('liftbase.security_log_retention', interval '180 days', interval '1 day',
                                   interval '10 years') $$;
-- reporting.security_events shows the events within it (reporting.security_log_start).
grant execute on function auth.security_log_retention(), auth.interval_setting(text, interval, interval, interval)
  to liftbase_reporting_owner;

-- Failed logins allowed per email inside the window before logins are refused.
create or replace function auth.lockout_threshold()
returns integer
language sql
immutable
as $$ select 5 $$;

create or replace function auth.lockout_window()
returns interval
language sql
immutable
as $$ select interval '15 minutes' $$;

-- bcrypt cost: 10 unless the operator sets liftbase.bcrypt_cost (4..15) for the database. A
-- setting that is not such a number is an operator's mistake: refused (and the server will
-- not start on it), never quietly replaced by the default.
create or replace function auth.bcrypt_cost()
returns integer
language plpgsql
stable
as $$
declare
  v_value text := nullif(current_setting('liftbase.bcrypt_cost', true), '');
  v_cost integer;
begin
  if v_value is null then
    return 10;
  end if;
  if v_value ~ '^\s*\d{1,2}\s*$' then
    v_cost := btrim(v_value)::integer;
  end if;
  if v_cost is null or v_cost not between 4 and 15 then
    raise exception using errcode = 'config_file_error',
      message = format('liftbase.bcrypt_cost = %s: must be a whole number from 4 to 15', v_value);
  end if;
  return v_cost;
end
$$;

create or replace function auth.hash_password(p_password text)
returns text
language sql
volatile
as $$ select public.crypt(p_password, public.gen_salt('bf', auth.bcrypt_cost())) $$;

create or replace function auth.password_matches(p_password text, p_hash text)
returns boolean
language sql
immutable
as $$ select p_hash is not null and public.crypt(coalesce(p_password, ''), p_hash) = p_hash $$;

-- An opaque, URL-safe token of 256 random bits; only its SHA-256 is ever stored.
create or replace function auth.new_token()
returns text
language sql
volatile
as $$ select rtrim(translate(encode(public.gen_random_bytes(32), 'base64'), '+/', '-_'), '=') $$;

-- Stable, not immutable: convert_to is stable, and only a function declared no stricter
-- than its body is inlined (a call that is not inlined is planned anew each time).
create or replace function auth.token_hash(p_token text)
returns bytea
language sql
stable
as $$ select sha256(convert_to(p_token, 'UTF8')) $$;

-- The public shape of an account. Stable, as jsonb_build_object is, so that it is inlined.
create or replace function auth.user_json(p_user auth.users)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'id', p_user.id,
    'email', p_user.email,
    'display_name', p_user.display_name,
    'created_at', p_user.created_at,
    'disabled', p_user.disabled_at is not null,
    'email_verified', p_user.email_verified_at is not null)
$$;

-- The fingerprint of auth.user_json's definition: GET /me's kept answer holds an account
-- (app.me_document_shape). Here, beside the definition, so that replacing this file
-- replaces both and a plan cached with the old fingerprint is made again.
create or replace function auth.user_json_shape()
returns text
language plpgsql
immutable
as $$
begin
  return (select md5(p.prosrc) from pg_catalog.pg_proc as p
           where p.oid = 'auth.user_json(auth.users)'::regprocedure);
end
$$;
grant execute on function auth.user_json_shape() to liftbase_api;

-- Request checks share these rules: the profile's display name, and registration, which
-- names a member of the wrong type and a bad address or password in one answer.
grant execute on function
  auth.email_problem(text),
  auth.password_problem(text),
  auth.display_name_problem(text)
to liftbase_api;
