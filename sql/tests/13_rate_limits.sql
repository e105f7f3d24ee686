-- Rate limits of the sensitive routes (auth_rate_limits.sql): the abuse they stop (a flood
-- of reset mails, of sign-ups, of logins from one address), their headers, windows that
-- lapse, the setting that changes them, and an address as a limit counts it.
begin;
\ir support/helpers.psql
select plan(34);

-- The defaults, whatever the test database sets for the rest of the suite.
set local liftbase.rate_limits = '';

create function pg_temp.headers() returns jsonb language sql as $$
  select coalesce(nullif(current_setting('liftbase.response_headers', true), ''), '{}')::jsonb $$;
-- A request as the HTTP layer makes it: no headers yet, from `p_address`.
create function pg_temp.request(p_function text, p_body jsonb, p_address text) returns jsonb
language plpgsql as $$
begin
  perform set_config('liftbase.response_headers', '', true);
  return pg_temp.call(p_function, null, p_body, jsonb_build_object('client_address', p_address));
end $$;
create temporary table answers (n integer, email text, status text, body jsonb, headers jsonb);

-- Password reset mails -----------------------------------------------------------------------
select pg_temp.sign_up('ann', 'ann@example.com', 'a long password');
-- Verified: an address that is not yet gets one reset mail, whatever the limits.
update auth.users set email_verified_at = now() where email = 'ann@example.com';
insert into answers
select n, e, pg_temp.status(), r, pg_temp.headers()
  from generate_series(1, 60) as n
 cross join lateral (values ('ann@example.com'), ('nobody@example.com')) as m (e)
 cross join lateral pg_temp.request('auth_password_forgot', jsonb_build_object('email', e),
                                    case when e like 'ann%' then '198.51.100.' else '198.51.101.' end || n) as r;
select is((select count(*)::integer from auth.outbox where recipient = 'ann@example.com' and kind = 'password_reset'), 3,
  '60 forgot requests for one address, each from another client, queue 3 reset mails (forgot_per_email)');
select is((select array_agg(distinct status) from answers where n <= 3), '{200}',
  'the first 3 for each address are accepted (204 once the HTTP layer answers no body)');
select is((select array_agg(distinct status) from answers where n > 3), '{429}', 'the other 57 are answered 429');
select is((select count(distinct (status, body, headers))::integer from answers group by n order by 1 desc limit 1), 1,
  'an address with an account and one without are answered alike, headers and all, request by request');
select is((select body from answers where n = 4 and email = 'ann@example.com'),
  '{"error": {"code": "rate_limited", "message": "Too many requests. Try again later."}}', 'the 429 names rate_limited');
select ok((select (headers ->> 'Retry-After')::integer between 3590 and 3600 from answers where n = 4 limit 1),
  'with Retry-After: the seconds until the window ends');
select is((select headers ->> 'RateLimit-Policy' from answers where n = 60 limit 1),
  '"forgot_per_address";q=10;w=3600, "forgot_per_email";q=3;w=3600', 'RateLimit-Policy names each policy counted');
select matches((select headers ->> 'RateLimit' from answers where n = 2 and email = 'ann@example.com'),
  '^"forgot_per_address";r=9;t=36\d\d, "forgot_per_email";r=1;t=36\d\d$', 'RateLimit: what is left of each, and when it resets');

-- One client asking for many addresses: forgot_per_address.
truncate answers;
insert into answers
select n, null, pg_temp.status(), r, pg_temp.headers()
  from generate_series(1, 12) as n
 cross join lateral pg_temp.request('auth_password_forgot', jsonb_build_object('email', 'someone' || n || '@example.com'),
                                    '203.0.113.7') as r;
select is(array(select status from answers order by n), array['200', '200', '200', '200', '200', '200', '200', '200',
  '200', '200', '429', '429'], 'one client is accepted 10 times an hour, whichever addresses it asks for');

-- The window lapses: counting starts again.
update auth.rate_counts set window_start = window_start - interval '1 hour';
select is((select count(*)::integer from auth.rate_counts where window_start <= now() - interval '1 hour'), 135,
  'lapsed rows wait for the next request of their policy (120 + 1 addresses, 2 + 12 emails)');
select pg_temp.request('auth_password_forgot', '{"email": "fresh@example.com"}', '203.0.113.99');
select is((select count(*)::integer from auth.rate_counts where window_start <= now() - interval '1 hour'), 135 - 8,
  'each request sweeps four lapsed rows of each policy it counts');
select pg_temp.request('auth_password_forgot', '{"email": "ann@example.com"}', '203.0.113.7');
select is(pg_temp.status(), '200', 'an hour later the client and the address are accepted again');
select is((select count(*)::integer from auth.outbox where recipient = 'ann@example.com' and kind = 'password_reset'), 4,
  'and one more mail is queued');
select is(pg_temp.headers() ->> 'RateLimit', '"forgot_per_address";r=9;t=3600, "forgot_per_email";r=2;t=3600',
  'counted from 1 in the new window');
select is((select count(*)::integer from auth.rate_counts as c
            where c.key_hash in (sha256(convert_to('ann@example.com', 'UTF8')), sha256(convert_to('203.0.113.7', 'UTF8')))),
  2, 'the table keeps hashes, not addresses or emails');

-- Sign-ups ------------------------------------------------------------------------------------
truncate answers;
insert into answers
select n, null, pg_temp.status(), r, pg_temp.headers()
  from generate_series(1, 60) as n
 cross join lateral pg_temp.request('auth_register', jsonb_build_object('email', 'new' || n || '@example.com',
                                                                        'password', 'a long password'), '192.0.2.1') as r;
select is((select count(*)::integer from answers where body ? 'token'), 10,
  '60 sign-ups from one address make 10 accounts (register_per_address)');
select is((select count(*)::integer from auth.users where email like 'new%@example.com'), 10, 'and no more');
select is((select array_agg(distinct status) from answers where n > 10), '{429}', 'the others are answered 429');
select ok(pg_temp.request('auth_register', '{"email": "new61@example.com", "password": "a long password"}', '192.0.2.2')
         ? 'token', 'another address is counted apart: it signs up');
select is(pg_temp.request('auth_register', '{"email": "new61@example.com", "password": "a long password"}', '192.0.2.3')
            -> 'error' ->> 'code', 'email_taken', 'a taken address is answered 409');
select is(pg_temp.headers() ->> 'RateLimit', '"register_per_address";r=9;t=3600',
  'and counted: the answer is not raised, so the count stays');

-- Logins --------------------------------------------------------------------------------------
truncate answers;
insert into answers
select n, null, pg_temp.status(), r, pg_temp.headers()
  from generate_series(1, 61) as n
 cross join lateral pg_temp.request('auth_login', jsonb_build_object('email', 'user' || n || '@example.com',
                                                                     'password', 'a guess'), '192.0.2.9') as r;
select is((select array_agg(distinct status) from answers where n <= 60), '{401}',
  'one client trying 60 accounts is answered 401 each time (no account is locked: one failure each)');
select is((select status from answers where n = 61), '429', 'and then 429 (login_per_address)');
select is(pg_temp.request('auth_login', '{"email": "ann@example.com", "password": "a long password"}', '192.0.2.9')
            -> 'error' ->> 'code', 'rate_limited', 'even with the right password');
select ok(pg_temp.request('auth_login', '{"email": "ann@example.com", "password": "a long password"}', '192.0.2.10') ? 'token',
  'from another address the account signs in');

-- Password resets: a wrong token is answered, so it is counted.
truncate answers;
insert into answers
select n, null, pg_temp.status(), r, pg_temp.headers()
  from generate_series(1, 21) as n
 cross join lateral pg_temp.request('auth_password_reset', jsonb_build_object('token', 'guess ' || n,
                                                                               'new_password', 'a long password'),
                                    '192.0.2.20') as r;
select is((select array_agg(distinct status) from answers where n <= 20), '{400}', '20 wrong reset tokens are answered 400');
select is((select status from answers where n = 21), '429', 'the 21st 429 (reset_per_address)');

-- Addresses as a limit counts them -------------------------------------------------------------
select is(auth.client_address_key('{"client_address": "2001:db8:1:2:aaaa::1"}'), '2001:db8:1:2::/64',
  'an IPv6 address counts as its /64, which one host is given whole');
select is(auth.client_address_key('{"client_address": "192.0.2.1"}'), '192.0.2.1', 'an IPv4 address counts as itself');
select is(auth.client_address_key('{}'), '', 'no address (a statement the HTTP layer did not send) counts as one');

-- The setting ----------------------------------------------------------------------------------
set local liftbase.rate_limits = 'all = 1000/1 minute, forgot_per_email=5/1 day';
select is(array(select format('%s %s %s', policy, quota, window_length) from auth.rate_limits() order by policy),
  array['forgot_per_address 1000 00:01:00', 'forgot_per_email 5 1 day', 'login_per_address 1000 00:01:00',
        'register_per_address 1000 00:01:00', 'reset_per_address 1000 00:01:00',
        'two_factor_per_address 1000 00:01:00', 'verification_mail_per_address 1000 00:01:00', 'verification_mail_per_email 1000 00:01:00',
        'verify_per_address 1000 00:01:00'],
  'liftbase.rate_limits sets a policy by name, and all the others with all');
set local liftbase.rate_limits = 'forgot_per_mail=5/1 hour';
select throws_like('select * from auth.rate_limits()', 'liftbase.rate_limits = forgot_per_mail=5/1 hour: each entry%',
  'a policy it does not know is refused, not ignored');
set local liftbase.rate_limits = 'forgot_per_email=5/1 fortnight';
select throws_like('select * from auth.rate_limits()', '%a window must be an interval from 1 second to 7 days',
  'a window that is no interval is refused');
set local liftbase.rate_limits = 'forgot_per_email=0/1 hour';
select throws_like('select * from auth.rate_limits()', '%a quota must be at least 1', 'a quota of 0 is refused');

select * from finish();
rollback;
