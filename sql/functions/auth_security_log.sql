-- The security log of each account (auth.security_events, 0085): what was done to reach or
-- change it, from where and with which client. The account reads it (GET
-- /me/security-events), the reporting role reads it (reporting.security_events); events
-- older than auth.security_log_retention() are swept as the account's next ones are written.

-- The kinds of event, each written by the function named beside it.
create or replace function auth.security_event_kinds()
returns text[]
language sql
immutable
as $$
  select array[
    'sign_in',              -- auth.log_sign_in: a login, a registration, a login's two-factor step
    'new_device',           -- auth.log_sign_in: the first sign-in with this client
    'sign_in_failed',       -- auth.login, auth.complete_login: a wrong password or code
    'password_changed',     -- auth.password_change
    'password_reset',       -- auth.password_reset
    'two_factor_enabled',   -- auth.confirm_two_factor
    'two_factor_disabled',  -- auth.disable_two_factor
    'recovery_code_used',   -- auth.complete_login: a recovery code instead of a code
    'identity_linked',      -- auth.oidc_linked_account: a provider's identity joined the account
    'refresh_token_reused', -- auth.refresh_session: a spent refresh token, used again
    'api_key_created',      -- auth.create_api_key
    'api_key_revoked'       -- auth.revoke_api_key
  ]
$$;

-- The client of a request, from what the HTTP layer put in p_args: its address (resolved
-- through the trusted proxies) and its User-Agent, cut to 200 characters.
create or replace function auth.client_of(p_args jsonb)
returns jsonb
language sql
immutable
as $$
  select jsonb_build_object('client_address', p_args ->> 'client_address',
                            'user_agent', left(p_args ->> 'user_agent', 200))
$$;

-- `liftbase security prune`: every account's events past the retention, for the accounts that
-- log nothing new (a write prunes its own account's, below): an idle account keeps no old
-- addresses. Account by account, each an index range; returns how many went.
create or replace function auth.prune_security_events()
returns bigint
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_cutoff timestamptz := now() - auth.security_log_retention();
  v_user_id uuid;
  v_count bigint;
  v_total bigint := 0;
begin
  for v_user_id in select u.id from auth.users as u order by u.id loop
    delete from auth.security_events as e where e.user_id = v_user_id and e.occurred_at < v_cutoff;
    get diagnostics v_count = row_count;
    v_total := v_total + v_count;
  end loop;
  return v_total;
end
$$;

-- Writes one event for p_user_id; the account's events past the retention go with it (a
-- few at a time, oldest first, so that a write never costs what a long-idle account holds).
create or replace function auth.log_security_event(p_user_id uuid, p_kind text, p_client jsonb,
                                                   p_detail jsonb default '{}')
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_cutoff timestamptz := now() - auth.security_log_retention();
begin
  if not p_kind = any (auth.security_event_kinds()) then
    raise exception 'no security event kind %', p_kind;
  end if;
  delete from auth.security_events as e
   where e.user_id = p_user_id
     and e.id in (select o.id from auth.security_events as o
                   where o.user_id = p_user_id and o.occurred_at < v_cutoff
                   order by o.occurred_at limit 16);
  insert into auth.security_events (user_id, kind, client_address, user_agent, detail)
  values (p_user_id, p_kind, p_client ->> 'client_address', p_client ->> 'user_agent', coalesce(p_detail, '{}'));
end
$$;

-- A sign-in, and before it new_device when the log holds sign-ins of the account but none
-- from this client (its User-Agent). An account's first sign-in is not a new device.
create or replace function auth.log_sign_in(p_user_id uuid, p_client jsonb, p_detail jsonb default '{}')
returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  if exists (select from auth.security_events as e where e.user_id = p_user_id and e.kind = 'sign_in')
     and not exists (select from auth.security_events as e
                      where e.user_id = p_user_id and e.kind = 'sign_in'
                        and e.user_agent is not distinct from p_client ->> 'user_agent') then
    perform auth.log_security_event(p_user_id, 'new_device', p_client);
  end if;
  perform auth.log_security_event(p_user_id, 'sign_in', p_client, p_detail);
end
$$;

-- One page of the account's events, newest first, after the event p_before (the cursor):
-- p_limit + 1 of them, so that app.page can tell whether another page follows.
create or replace function auth.security_events_page(p_user_id uuid, p_before bigint, p_limit integer)
returns jsonb
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  return (select coalesce(jsonb_agg(jsonb_build_object(
                   'id', e.id::text, 'kind', e.kind, 'occurred_at', e.occurred_at,
                   'client_address', e.client_address, 'user_agent', e.user_agent, 'detail', e.detail)
                 order by e.id desc), '[]')
            from (select * from auth.security_events as x
                   where x.user_id = p_user_id and x.id < coalesce(p_before, 9223372036854775807)
                     and x.occurred_at >= now() - auth.security_log_retention()
                   order by x.id desc
                   limit p_limit + 1) as e);
end
$$;

grant execute on function
  auth.client_of(jsonb),
  auth.security_events_page(uuid, bigint, integer)
to liftbase_api;
