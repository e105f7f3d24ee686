-- Registration the operator controls: open, by invitation only, or closed; invitations
-- (`liftbase invite`); verified addresses (a mail's link, POST /auth/email/verify).
-- docs/security.md says how an operator chooses.

-- liftbase.registration: open (the default: anyone may sign up), invite_only (a sign-up
-- needs an invitation for its address) or closed. A value that is none of them is an
-- operator's mistake: refused (the server will not start on it), never quietly replaced.
create or replace function auth.registration_mode()
returns text
language plpgsql
stable
as $$
declare
  v_value text := coalesce(nullif(btrim(current_setting('liftbase.registration', true)), ''), 'open');
begin
  if v_value not in ('open', 'invite_only', 'closed') then
    raise exception using errcode = 'config_file_error',
      message = format('liftbase.registration = %s: must be open, invite_only or closed', v_value);
  end if;
  return v_value;
end
$$;

-- liftbase.require_verified_email: on, and an account signs in only once its address is
-- verified (sign-up then answers no token); off (the default), and an unverified account
-- may sign in and use the API but gets no reset mail beyond its first.
create or replace function auth.requires_verified_email()
returns boolean
language plpgsql
stable
as $$
declare
  v_value text := coalesce(nullif(btrim(current_setting('liftbase.require_verified_email', true)), ''), 'off');
begin
  if v_value not in ('on', 'off') then
    raise exception using errcode = 'config_file_error',
      message = format('liftbase.require_verified_email = %s: must be on or off', v_value);
  end if;
  return v_value = 'on';
end
$$;

-- Whether p_token is an invitation for p_email, unused, unrevoked and unexpired.
-- PL/pgSQL, and a boolean rather than the row: on Citus a SQL function's statement on a
-- coordinator table is not planned, and a function whose type is such a table's row is not
-- propagated to the workers.
create or replace function auth.invitation_is_open(p_token text, p_email text)
returns boolean
language plpgsql
stable
as $$
begin
  return exists (select from auth.invitations as i
                  where i.token_hash = auth.token_hash(coalesce(p_token, ''))
                    and lower(i.email) = lower(btrim(coalesce(p_email, '')))
                    and i.used_at is null and i.revoked_at is null and i.expires_at > now());
end
$$;

-- Spends invitation p_token for p_email when it is open (auth.invitation_is_open's rule):
-- whether it was. A sign-up that spends one has shown its address to be its owner's.
create or replace function auth.spend_invitation(p_token text, p_email text)
returns boolean
language plpgsql
as $$
begin
  if not auth.invitation_is_open(p_token, p_email) then
    return false;
  end if;
  update auth.invitations set used_at = now() where token_hash = auth.token_hash(p_token);
  return true;
end
$$;

-- Whether registration lets p_email sign up with p_invitation: null when it does, else the
-- answer (answered, not raised, so that the sign-up's rate-limit count stays).
create or replace function auth.registration_refusal(p_email text, p_invitation text)
returns jsonb
language plpgsql
as $$
begin
  case auth.registration_mode()
    when 'closed' then
      return app.error_response(403, 'registration_closed', 'This server takes no new accounts.');
    when 'invite_only' then
      if p_invitation is null then
        return app.error_response(403, 'invitation_required', 'This server takes new accounts by invitation only.');
      end if;
      if not auth.invitation_is_open(p_invitation, p_email) then
        return app.error_response(403, 'invalid_invitation',
                                  'The invitation is unknown, used, revoked, expired or for another address.');
      end if;
    else
      null;
  end case;
  return null;
end
$$;

-- Queues a verification mail for p_user's address: a single-use token valid a day.
create or replace function auth.queue_email_verification(p_user auth.users)
returns void
language plpgsql
as $$
declare
  v_token text := auth.new_token();
  v_expires_at timestamptz := now() + interval '1 day';
begin
  insert into auth.email_verifications (token_hash, user_id, expires_at)
  values (auth.token_hash(v_token), p_user.id, v_expires_at);
  insert into auth.outbox (user_id, kind, recipient, payload)
  values (p_user.id, 'email_verification', p_user.email,
          jsonb_build_object('token', v_token, 'expires_at', v_expires_at));
end
$$;

-- POST /auth/email/verify: the token of a verification mail marks its account's address
-- verified. An unknown, used or expired token is answered 400 (not raised: the rate-limit
-- count stays). Null on success.
create or replace function auth.verify_email(p_token text)
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_verification auth.email_verifications;
  -- Worked out before the write: Citus takes no stable call in a write of a reference table.
  v_now timestamptz := now();
begin
  select v.* into v_verification
    from auth.email_verifications as v
   where v.token_hash = auth.token_hash(coalesce(p_token, '')) and v.used_at is null and v.expires_at > now()
     for update;
  if v_verification.token_hash is null then
    return app.error_response(400, 'invalid_or_expired_token', 'The verification token is invalid, used or expired.');
  end if;
  update auth.email_verifications set used_at = v_now where user_id = v_verification.user_id and used_at is null;
  update auth.users set email_verified_at = coalesce(email_verified_at, v_now), updated_at = v_now
   where id = v_verification.user_id;
  return null;
end
$$;

-- POST /auth/email/verification: another verification mail for an account whose address is
-- not verified yet. Answers the same whatever the address, so it tells nobody which have
-- accounts.
create or replace function auth.resend_email_verification(p_email text)
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_user auth.users;
begin
  select u.* into v_user from auth.users as u
   where lower(u.email) = lower(btrim(coalesce(p_email, ''))) and u.disabled_at is null and u.email_verified_at is null;
  if v_user.id is not null then
    perform auth.queue_email_verification(v_user);
  end if;
end
$$;

-- `liftbase invite create EMAIL`: an invitation for one address, valid p_days, queued as a
-- mail (template invitation) and answered with its token, which the operator may pass on
-- by hand. An open invitation of the same address is revoked: one link works at a time.
create or replace function auth.create_invitation(p_email text, p_days integer)
returns jsonb
language plpgsql
as $$
declare
  v_email text := btrim(coalesce(p_email, ''));
  v_token text := auth.new_token();
  v_expires_at timestamptz := now() + make_interval(days => p_days);
begin
  perform app.raise_if_invalid(jsonb_build_object('email', auth.email_problem(v_email)));
  if exists (select from auth.users as u where lower(u.email) = lower(v_email)) then
    perform app.raise_error(409, 'email_taken', 'An account with this email already exists.');
  end if;
  update auth.invitations set revoked_at = now()
   where lower(email) = lower(v_email) and used_at is null and revoked_at is null;
  insert into auth.invitations (token_hash, email, expires_at) values (auth.token_hash(v_token), v_email, v_expires_at);
  insert into auth.outbox (kind, recipient, payload)
  values ('invitation', v_email, jsonb_build_object('token', v_token, 'expires_at', v_expires_at));
  return jsonb_build_object('email', v_email, 'token', v_token, 'expires_at', v_expires_at);
end
$$;

-- `liftbase invite list`: the invitations not used yet, newest first, with their state.
-- PL/pgSQL: on Citus a SQL function's statement on a coordinator table is not planned.
create or replace function auth.pending_invitations()
returns table (email text, created_at timestamptz, expires_at timestamptz, state text)
language plpgsql
stable
as $$
begin
  return query
  select i.email, i.created_at, i.expires_at,
         case when i.revoked_at is not null then 'revoked' when i.expires_at <= now() then 'expired' else 'open' end
    from auth.invitations as i
   where i.used_at is null
   order by i.created_at desc, i.email;
end
$$;

-- `liftbase invite revoke EMAIL`: every open invitation of the address stops working.
-- Returns how many did.
create or replace function auth.revoke_invitations(p_email text)
returns integer
language plpgsql
as $$
declare
  v_count integer;
begin
  update auth.invitations set revoked_at = now()
   where lower(email) = lower(btrim(coalesce(p_email, ''))) and used_at is null and revoked_at is null;
  get diagnostics v_count = row_count;
  return v_count;
end
$$;

grant execute on function
  auth.verify_email(text),
  auth.resend_email_verification(text)
to liftbase_api;
