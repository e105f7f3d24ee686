-- Rate limits of the sensitive routes: policies, the client's address, and the counters
-- (auth.rate_counts) that every server of a deployment shares. docs/security.md says what
-- each policy protects and how an operator changes it.

-- Every policy with its default quota and window (docs/security.md says what each protects).
create or replace function auth.rate_limit_defaults()
returns table (policy text, quota integer, window_length interval)
language sql
immutable
as $$
  values ('register_per_address', 10, interval '1 hour'),
         ('login_per_address', 60, interval '15 minutes'),
         ('forgot_per_address', 10, interval '1 hour'),
         ('forgot_per_email', 3, interval '1 hour'),
         ('reset_per_address', 20, interval '1 hour'),
         ('verify_per_address', 20, interval '1 hour'),
         ('verification_mail_per_address', 10, interval '1 hour'),
         ('verification_mail_per_email', 3, interval '1 hour'),
         ('two_factor_per_address', 30, interval '15 minutes')
$$;

-- A policy's quota per window: its default (auth.rate_limit_defaults), or the operator's value
-- in the setting liftbase.rate_limits, a list such as 'forgot_per_email=5/1 hour, login_per_address=100/15
-- minutes' ('all=…' sets every policy the list does not name). A value that is not such a
-- list is an operator's mistake: refused (the server will not start on it), never quietly
-- replaced by the default.
create or replace function auth.rate_limit(p_policy text, out quota integer, out window_length interval)
language plpgsql
stable
as $$
declare
  v_setting text := coalesce(current_setting('liftbase.rate_limits', true), '');
  v_entry text;
  v_name text;
  v_value text;
  v_chosen text;
  v_wildcard text;
begin
  select d.quota, d.window_length into quota, window_length
    from auth.rate_limit_defaults() as d
   where d.policy = p_policy;
  if quota is null then
    raise exception 'no rate-limit policy %', p_policy;
  end if;
  foreach v_entry in array regexp_split_to_array(btrim(v_setting), '\s*,\s*') loop
    continue when v_entry = '';
    v_name := btrim(split_part(v_entry, '=', 1));
    v_value := btrim(substr(v_entry, length(split_part(v_entry, '=', 1)) + 2));
    if v_entry !~ '^[a-z_]+\s*=\s*\d{1,9}\s*/\s*\S.*$'
       or not (v_name = 'all' or exists (select from auth.rate_limit_defaults() as d where d.policy = v_name)) then
      raise exception using errcode = 'config_file_error',
        message = format('liftbase.rate_limits = %s: each entry must be policy=quota/window, such as forgot_per_email=3/1 hour, '
                         || 'with a policy of docs/security.md or all', v_setting);
    end if;
    if v_name = p_policy then
      v_chosen := v_value;
    elsif v_name = 'all' then
      v_wildcard := v_value;
    end if;
  end loop;
  v_chosen := coalesce(v_chosen, v_wildcard);
  if v_chosen is not null then
    quota := btrim(split_part(v_chosen, '/', 1))::integer;
    window_length := auth.rate_limit_window(btrim(substr(v_chosen, strpos(v_chosen, '/') + 1)), v_setting);
    if quota < 1 then
      raise exception using errcode = 'config_file_error',
        message = format('liftbase.rate_limits = %s: a quota must be at least 1', v_setting);
    end if;
  end if;
end
$$;

-- A window of liftbase.rate_limits: an interval from a second to a week.
create or replace function auth.rate_limit_window(p_text text, p_setting text)
returns interval
language plpgsql
stable
as $$
declare
  v_window interval;
begin
  begin
    v_window := p_text::interval;
  exception when invalid_datetime_format or datetime_field_overflow or interval_field_overflow then
    v_window := null;
  end;
  if v_window is null or v_window < interval '1 second' or v_window > interval '7 days' then
    raise exception using errcode = 'config_file_error',
      message = format('liftbase.rate_limits = %s: a window must be an interval from 1 second to 7 days', p_setting);
  end if;
  return v_window;
end
$$;

-- Every policy, checked: what the server asks when it starts, so that a bad setting stops it
-- there rather than at the first sign-up.
create or replace function auth.rate_limits()
returns table (policy text, quota integer, window_length interval)
language sql
stable
as $$
  select d.policy, l.quota, l.window_length
    from auth.rate_limit_defaults() as d
   cross join lateral auth.rate_limit(d.policy) as l
   order by d.policy
$$;

-- The client's address as the HTTP layer gave it (p_args' client_address: the socket's
-- peer, or the first address before the trusted proxies of X-Forwarded-For), as what a
-- limit counts: an IPv4 address itself, an IPv6 address by its /64 network (one host is
-- given a whole /64). No address (a statement not sent by the HTTP layer) is ''.
create or replace function auth.client_address_key(p_args jsonb)
returns text
language plpgsql
immutable
as $$
declare
  v_address inet;
begin
  begin
    v_address := (p_args ->> 'client_address')::inet;
  exception when invalid_text_representation then
    return '';
  end;
  if v_address is null then
    return '';
  end if;
  return case when family(v_address) = 6 then network(set_masklen(v_address, 64))::text else host(v_address) end;
end
$$;

-- Counts this request against each policy for its key (p_policies[i] counts p_keys[i]) and
-- sets the RateLimit-Policy and RateLimit headers (IETF httpapi draft: "name";q=;w= and
-- "name";r=;t=). Answers null when the request is within every quota, or else the 429
-- answer with Retry-After, which the caller returns as it is (app.error_response: nothing is
-- rolled back, so the counts stay). Windows are fixed: a policy's count starts again at
-- the first request after its window has passed. A request refused counts too, so a
-- client that keeps asking stays refused until it pauses for a window.
create or replace function auth.spend_rate_budgets(p_policies text[], p_keys text[])
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now timestamptz := now();
  v_policy text;
  v_limit record;
  v_hits integer;
  v_window_start timestamptz;
  v_reset integer;
  v_policies text[] := '{}';
  v_states text[] := '{}';
  v_retry_after integer;
begin
  for i in 1 .. cardinality(p_policies) loop
    v_policy := p_policies[i];
    select l.quota, l.window_length into v_limit from auth.rate_limit(v_policy) as l;
    -- A few lapsed rows of the policy go with each request: the table holds about what
    -- the current windows count, with no job to run.
    delete from auth.rate_counts as c
     where (c.policy, c.key_hash) in (select o.policy, o.key_hash from auth.rate_counts as o
                                        where o.policy = v_policy and o.window_start <= v_now - v_limit.window_length
                                        order by o.window_start limit 4);
    insert into auth.rate_counts as c (policy, key_hash, window_start, hits)
    values (v_policy, sha256(convert_to(p_keys[i], 'UTF8')), v_now, 1)
    on conflict (policy, key_hash) do update
      set window_start = case when c.window_start <= excluded.window_start - v_limit.window_length
                              then excluded.window_start else c.window_start end,
          hits = case when c.window_start <= excluded.window_start - v_limit.window_length then 1 else c.hits + 1 end
    returning c.hits, c.window_start into v_hits, v_window_start;
    v_reset := greatest(1, ceil(extract(epoch from v_window_start + v_limit.window_length - v_now)))::integer;
    v_policies := v_policies || format('"%s";q=%s;w=%s', v_policy, v_limit.quota,
                                       extract(epoch from v_limit.window_length)::integer);
    v_states := v_states || format('"%s";r=%s;t=%s', v_policy, greatest(v_limit.quota - v_hits, 0), v_reset);
    if v_hits > v_limit.quota then
      v_retry_after := greatest(coalesce(v_retry_after, 0), v_reset);
    end if;
  end loop;
  perform app.set_response_header('RateLimit-Policy', array_to_string(v_policies, ', '));
  perform app.set_response_header('RateLimit', array_to_string(v_states, ', '));
  if v_retry_after is null then
    return null;
  end if;
  perform app.set_response_header('Retry-After', v_retry_after::text);
  return app.error_response(429, 'rate_limited', 'Too many requests. Try again later.');
end
$$;

grant execute on function
  auth.client_address_key(jsonb),
  auth.spend_rate_budgets(text[], text[]),
  auth.rate_limits()
to liftbase_api;
