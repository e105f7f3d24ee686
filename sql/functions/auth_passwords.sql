-- Password forgot / reset / change.

-- Queues a single-use reset token (valid one hour) in the outbox when the account exists
-- (only its first while its address is not verified). Answers the same either way, so the
-- endpoint does not reveal which emails have accounts.
create or replace function auth.password_forgot(p_email text)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_user auth.users;
  v_token text;
  v_expires_at timestamptz := now() + interval '1 hour';
begin
  select u.* into v_user
    from auth.users as u
   where lower(u.email) = lower(btrim(coalesce(p_email, ''))) and u.disabled_at is null;
  if v_user.id is null then
    return;
  end if;
  -- An address not verified yet gets one reset mail, not a stream of them.
  if v_user.email_verified_at is null
     and exists (select from auth.password_resets as r where r.user_id = v_user.id) then
    return;
  end if;
  v_token := auth.new_token();
  insert into auth.password_resets (token_hash, user_id, expires_at)
  values (auth.token_hash(v_token), v_user.id, v_expires_at);
  insert into auth.outbox (user_id, kind, recipient, payload)
  values (v_user.id, 'password_reset', v_user.email,
          jsonb_build_object('token', v_token, 'expires_at', v_expires_at));
end
$$;

-- Sets the password of p_user_id and revokes its sessions and refresh tokens, except those
-- of p_keep_token_hash's sign-in. Personal API keys stay: the account revokes them itself.
create or replace function auth.set_password(p_user_id uuid, p_new_password text, p_keep_token_hash bytea default null)
returns void
language plpgsql
as $$
declare
  v_email text;
  v_hash text;
begin
  perform app.raise_if_invalid(jsonb_build_object('new_password', auth.password_problem(p_new_password)));
  -- Hashed first: Citus takes no volatile call (the salt) in a write of a reference table.
  v_hash := auth.hash_password(p_new_password);
  update auth.users
     set password_hash = v_hash, updated_at = now()
   where id = p_user_id
  returning email into v_email;
  perform auth.end_sessions(p_user_id, p_keep_token_hash);
  -- A new password ends any lockout on the account.
  delete from auth.login_failures where email_key = lower(v_email);
end
$$;

-- Spends a reset token: sets the password and revokes every session and API key of the
-- account. Sets a new password with a reset token. A token that is unknown, used or expired is
-- answered 400, not raised: the request's rate-limit count (auth.spend_rate_budgets) stays.
-- Null on success. p_client is the request's, for the security log.
create or replace function auth.password_reset(p_token text, p_new_password text, p_client jsonb default '{}')
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_reset auth.password_resets;
begin
  select r.* into v_reset
    from auth.password_resets as r
   where r.token_hash = auth.token_hash(coalesce(p_token, ''))
     and r.used_at is null
     and r.expires_at > now()
     for update;
  if v_reset.token_hash is null then
    return app.error_response(400, 'invalid_or_expired_token', 'The reset token is invalid, used or expired.');
  end if;
  perform auth.set_password(v_reset.user_id, p_new_password);
  -- Single use: this token and any other outstanding one of the account.
  update auth.password_resets set used_at = now()
   where user_id = v_reset.user_id and used_at is null;
  -- A reset is how an account is taken back: the API keys made before it go too, since a
  -- stolen session could have made one (a password change keeps them).
  delete from auth.api_keys where user_id = v_reset.user_id;
  perform auth.log_security_event(v_reset.user_id, 'password_reset', p_client);
  return null;
end
$$;

-- Changes the password of the token's user; every other session of the account ends. A
-- wrong current password is answered and counted towards the lockout (auth.password_refusal):
-- a session someone took cannot be used to guess the password. Null on success.
create or replace function auth.password_change(p_token text, p_current_password text, p_new_password text,
                                                p_client jsonb default '{}')
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_refusal jsonb;
begin
  perform auth.refuse_api_key(p_token);
  v_refusal := auth.password_refusal(v_user_id, p_current_password);
  if v_refusal is not null then
    return v_refusal;
  end if;
  perform auth.set_password(v_user_id, p_new_password, auth.token_hash(p_token));
  perform auth.log_security_event(v_user_id, 'password_changed', p_client);
  return null;
end
$$;

grant execute on function
  auth.password_forgot(text),
  auth.password_reset(text, text, jsonb),
  auth.password_change(text, text, text, jsonb)
to liftbase_api;
