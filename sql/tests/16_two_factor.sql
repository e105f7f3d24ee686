-- Two-factor sign-in (auth_two_factor.sql): TOTP as RFC 6238 computes it, enrolment and its
-- confirmation, the login's second step with a code or a recovery code, each used once,
-- challenges that end, and turning it off.
begin;
\ir support/helpers.psql
select plan(35);

create function pg_temp.secret(p_email text) returns bytea language sql as $$
  select f.secret from auth.totp_factors as f join auth.users as u on u.id = f.user_id where u.email = p_email $$;
-- The code of the account's secret p_steps steps from now.
create function pg_temp.code(p_email text, p_steps integer default 0) returns text language sql as $$
  select auth.totp_code(pg_temp.secret(p_email), auth.totp_step(now()) + p_steps) $$;
create function pg_temp.login(p_refreshable boolean default false) returns jsonb language sql as $$
  select pg_temp.call('auth_login', null, jsonb_build_object('email', 'two@example.com', 'password', 'a long password',
                                                             'refreshable', p_refreshable)) $$;
create function pg_temp.second_step(p_challenge text, p_body jsonb) returns jsonb language sql as $$
  select pg_temp.call('auth_login_two_factor', null, jsonb_build_object('challenge', p_challenge) || p_body) $$;

-- RFC 6238's test vectors (SHA1, its 8-digit codes cut to 6) and RFC 4648's base32.
select is(auth.totp_code(convert_to('12345678901234567890', 'UTF8'), auth.totp_step(to_timestamp(59))), '287082',
  'TOTP at 59 s is RFC 6238''s');
select is(auth.totp_code(convert_to('12345678901234567890', 'UTF8'), auth.totp_step(to_timestamp(1111111109))),
  '081804', 'at 1111111109 s too, its leading zero kept');
select is(auth.totp_code(convert_to('12345678901234567890', 'UTF8'), auth.totp_step(to_timestamp(20000000000))),
  '353130', 'and past 2038');
select is(auth.base32(convert_to('12345678901234567890', 'UTF8')), 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
  'secrets are base32 as RFC 4648 writes it');

select pg_temp.sign_up('two', 'two@example.com', 'a long password');

-- Enrolment ----------------------------------------------------------------------------------------
select is(pg_temp.call('two_factor_enrol', 'two', '{"password": "wrong password"}') -> 'error' ->> 'code',
  'invalid_password', 'enrolling takes the password');
select is((select count(*)::integer from auth.login_failures where email_key = 'two@example.com'), 1,
  'and a wrong one counts towards the login lockout');
delete from auth.login_failures;
create temporary table enrolment as select pg_temp.call('two_factor_enrol', 'two', '{"password": "a long password"}') as answer;
select is((select answer ->> 'secret' from enrolment), auth.base32(pg_temp.secret('two@example.com')),
  'enrolling gives the secret');
select is((select answer ->> 'otpauth_uri' from enrolment),
  'otpauth://totp/Liftbase:two%40example.com?secret=' || auth.base32(pg_temp.secret('two@example.com'))
  || '&issuer=Liftbase&algorithm=SHA1&digits=6&period=30', 'and its otpauth URI for an authenticator app');
select ok(pg_temp.login() ? 'token', 'until it is confirmed, a login signs in as before');
select is(pg_temp.call('two_factor_confirm', 'two', jsonb_build_object('code', pg_temp.code('two@example.com', 5)))
            -> 'error' ->> 'code', 'invalid_code', 'a code of another time does not confirm it');
create temporary table confirmed as
  select pg_temp.call('two_factor_confirm', 'two', jsonb_build_object('code', pg_temp.code('two@example.com'))) as answer;
select is((select jsonb_array_length(answer -> 'recovery_codes') from confirmed), 10,
  'a current code confirms it and gives ten recovery codes');
select is(pg_temp.call('two_factor_get', 'two', null), jsonb_build_object(
  'enabled', true, 'enabled_at', (select confirmed_at from auth.totp_factors where secret = pg_temp.secret('two@example.com')),
  'recovery_codes_left', 10), 'two-factor sign-in is on');
select is(pg_temp.error_of('two_factor_enrol', 'two', '{"password": "a long password"}') ->> 'code', 'two_factor_enabled',
  'and is not enrolled again while on');

-- The login's second step -----------------------------------------------------------------------
create temporary table challenged as select pg_temp.login(p_refreshable => true) as answer;
select is((select array(select jsonb_object_keys(answer) order by 1) from challenged),
  array['challenge', 'expires_in', 'two_factor_required'], 'a login now answers a challenge, not a token');
select is(pg_temp.status(), '202', 'with 202');
select is(pg_temp.second_step((select answer ->> 'challenge' from challenged),
                              jsonb_build_object('code', pg_temp.code('two@example.com'))) -> 'error' ->> 'code',
  'invalid_code', 'the code that confirmed the enrolment is spent');
create temporary table signed_in as
  select pg_temp.second_step((select answer ->> 'challenge' from challenged),
                             jsonb_build_object('code', pg_temp.code('two@example.com', 1))) as answer;
select ok((select answer ? 'token' and answer ? 'refresh_token' from signed_in),
  'the next step''s code signs in, as the login asked (with a refresh token)');
select is(pg_temp.second_step((select answer ->> 'challenge' from challenged),
                              jsonb_build_object('code', pg_temp.code('two@example.com', 1))) -> 'error' ->> 'code',
  'invalid_challenge', 'a challenge works once');
select is(pg_temp.second_step((select pg_temp.login() ->> 'challenge'),
                              jsonb_build_object('code', pg_temp.code('two@example.com', 1))) -> 'error' ->> 'code',
  'invalid_code', 'and a code works once, whatever the challenge');
select is(pg_temp.second_step((select pg_temp.login() ->> 'challenge'),
                              jsonb_build_object('code', pg_temp.code('two@example.com', -2))) -> 'error' ->> 'code',
  'invalid_code', 'a code of a minute ago is refused');

create temporary table recovered as
  select pg_temp.second_step((select pg_temp.login() ->> 'challenge'),
                             jsonb_build_object('recovery_code', upper((select answer -> 'recovery_codes' ->> 3 from confirmed))))
  as answer;
select ok((select answer ? 'token' from recovered), 'a recovery code signs in, read without case');
select is((pg_temp.call('two_factor_get', 'two', null) ->> 'recovery_codes_left')::integer, 9, 'and is used up');
select is(pg_temp.second_step((select pg_temp.login() ->> 'challenge'),
                              jsonb_build_object('recovery_code', (select answer -> 'recovery_codes' ->> 3 from confirmed)))
            -> 'error' ->> 'code', 'invalid_code', 'a recovery code works once');
select is(pg_temp.error_of('auth_login_two_factor', null, jsonb_build_object(
            'challenge', 'c', 'code', '123456', 'recovery_code', 'a-b')) -> 'fields' ->> 'code',
  'give a code or a recovery_code, not both', 'a code and a recovery code together are refused');

delete from auth.login_failures;
create temporary table guessed as select pg_temp.login() ->> 'challenge' as challenge;
select pg_temp.second_step((select challenge from guessed), '{"code": "000000"}') from generate_series(1, 5);
select is(pg_temp.second_step((select challenge from guessed), jsonb_build_object('code', pg_temp.code('two@example.com', 1)))
            -> 'error' ->> 'code', 'invalid_challenge', 'five wrong codes end the challenge');
select is(pg_temp.login() -> 'error' ->> 'code', 'too_many_attempts',
  'and lock the account''s logins as five wrong passwords do: new challenges buy no new guesses');
delete from auth.login_failures;
create temporary table lapsed as select pg_temp.login() ->> 'challenge' as challenge;
update auth.login_challenges set expires_at = now() - interval '1 second';
select is(pg_temp.second_step((select challenge from lapsed), '{"code": "000000"}') -> 'error' ->> 'code',
  'invalid_challenge', 'and a challenge lasts five minutes');

-- Keys, turning it off, the log --------------------------------------------------------------------
insert into tokens values ('two key', (select id from auth.users where email = 'two@example.com'),
  (select pg_temp.call('api_key_create', 'two', '{"password": "a long password", "name": "k", "scope": "read_write"}')
     ->> 'key'));
select is(pg_temp.error_of('two_factor_disable', 'two key', '{"password": "a long password", "code": "000000"}') ->> 'code',
  'api_key_not_allowed', 'no API key touches it');
select is(pg_temp.call('two_factor_disable', 'two', '{"password": "wrong password", "code": "000000"}') -> 'error' ->> 'code',
  'invalid_password', 'turning it off takes the password');
select is(pg_temp.call('two_factor_disable', 'two', '{"password": "a long password", "code": "000000"}') -> 'error' ->> 'code',
  'invalid_code', 'and a code');
select is(pg_temp.call('two_factor_disable', 'two', jsonb_build_object(
            'password', 'a long password', 'code', (select answer -> 'recovery_codes' ->> 0 from confirmed))), null,
  'a recovery code will do');
select is(pg_temp.call('two_factor_get', 'two', null) ->> 'enabled', 'false', 'it is off');
select ok(pg_temp.login() ? 'token', 'and a login signs in at once again');
select ok((select array_agg(e.kind::text order by e.id) @> array['two_factor_enabled', 'recovery_code_used', 'sign_in_failed',
                                                                  'two_factor_disabled']
             from auth.security_events as e join auth.users as u on u.id = e.user_id where u.email = 'two@example.com'),
  'turning it on and off, recovery codes and wrong codes are in the security log');

-- Guessing codes from one address: 30 second steps in 15 minutes (two_factor_per_address).
set local liftbase.rate_limits = '';
select pg_temp.call('auth_login_two_factor', null, '{"challenge": "a guess", "code": "000000"}',
                    '{"client_address": "192.0.2.9"}') from generate_series(1, 30);
select is(pg_temp.call('auth_login_two_factor', null, '{"challenge": "a guess", "code": "000000"}',
                       '{"client_address": "192.0.2.9"}') -> 'error' ->> 'code', 'rate_limited',
  'the 31st second step from one address within 15 minutes is 429');

select * from finish();
rollback;
