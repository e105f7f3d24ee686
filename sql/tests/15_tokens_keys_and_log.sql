-- Refresh tokens that rotate and end their family when one is used twice
-- (auth_refresh_tokens.sql), personal API keys with their scopes (auth_api_keys.sql), and
-- the security log that keeps what happened to an account (auth_security_log.sql).
begin;
\ir support/helpers.psql
select plan(58);

create function pg_temp.login(p_email text, p_agent text default 'LiftApp/1.0', p_refreshable boolean default true)
returns jsonb language sql as $$
  select pg_temp.call('auth_login', null, jsonb_build_object('email', p_email, 'password', 'a long password',
                                                             'refreshable', p_refreshable),
                      jsonb_build_object('client_address', '203.0.113.5', 'user_agent', p_agent)) $$;
create function pg_temp.refresh(p_refresh_token text) returns jsonb language sql as $$
  select pg_temp.call('auth_token', null, jsonb_build_object('refresh_token', p_refresh_token),
                      '{"client_address": "198.51.100.7", "user_agent": "Thief/1.0"}') $$;
-- Who a token is, or the error auth.authenticate raises.
create function pg_temp.who(p_token text) returns text language plpgsql as $$
begin
  return auth.authenticate(p_token)::text;
exception when others then
  return sqlstate;
end $$;
create function pg_temp.events(p_email text) returns text[] language sql as $$
  select array_agg(e.kind order by e.id) from auth.security_events as e
    join auth.users as u on u.id = e.user_id where u.email = p_email $$;

select pg_temp.sign_up('ada', 'ada@example.com', 'a long password');
select pg_temp.sign_up('bob', 'bob@example.com', 'a long password');

-- Refresh tokens --------------------------------------------------------------------------------
create temporary table first_sign_in as select pg_temp.login('ada@example.com') as answer;
select ok((select answer ->> 'refresh_token' like 'lbr\_%' and answer ->> 'token_type' = 'Bearer'
             and answer ? 'user' from first_sign_in),
  'a login that asks for it gets a refresh token beside its access token');
select is((select (answer ->> 'expires_in')::integer from first_sign_in), 900, 'the access token lasts 15 minutes');
select is(pg_temp.who((select answer ->> 'token' from first_sign_in)),
  (select id::text from auth.users where email = 'ada@example.com'), 'the access token signs requests');
select ok((select s.expires_at <= now() + interval '15 minutes' from auth.sessions as s
            where s.token_hash = auth.token_hash((select answer ->> 'token' from first_sign_in))),
  'and expires with its lifetime');
update auth.sessions set last_seen_at = now() - interval '10 minutes'
 where token_hash = auth.token_hash((select answer ->> 'token' from first_sign_in));
select pg_temp.who((select answer ->> 'token' from first_sign_in));
select ok((select s.expires_at <= now() + interval '15 minutes' from auth.sessions as s
            where s.token_hash = auth.token_hash((select answer ->> 'token' from first_sign_in))),
  'use does not extend an access token, as it does a session token');

create temporary table second_turn as select pg_temp.refresh((select answer ->> 'refresh_token' from first_sign_in)) as answer;
select ok((select answer ->> 'refresh_token' <> (select answer ->> 'refresh_token' from first_sign_in)
             and answer ->> 'token' is not null from second_turn),
  'a refresh gives a new access token and a new refresh token');
select is(pg_temp.who((select answer ->> 'token' from second_turn)),
  (select id::text from auth.users where email = 'ada@example.com'), 'the new access token works');
create temporary table third_turn as select pg_temp.refresh((select answer ->> 'refresh_token' from second_turn)) as answer;
select ok((select answer ? 'refresh_token' from third_turn), 'and so does its refresh token, once');

create temporary table replayed as select pg_temp.refresh((select answer ->> 'refresh_token' from first_sign_in)) as answer;
select is((select answer -> 'error' ->> 'code' from replayed), 'refresh_token_reused', 'a spent refresh token used again is refused');
select is(pg_temp.status(), '401', 'answered 401');
select is(pg_temp.refresh((select answer ->> 'refresh_token' from third_turn)) -> 'error' ->> 'code',
  'invalid_refresh_token', 'and its whole family is revoked: the latest refresh token too');
select is(pg_temp.who((select answer ->> 'token' from third_turn)), 'LB401', 'and the latest access token');
select is((select e.client_address || ' ' || e.user_agent from auth.security_events as e
            where e.kind = 'refresh_token_reused' and e.user_id = (select id from auth.users where email = 'ada@example.com')),
  '198.51.100.7 Thief/1.0', 'the reuse is in the account''s security log, with who presented it');
select is(pg_temp.refresh('lbr_not-a-token') -> 'error' ->> 'code', 'invalid_refresh_token', 'a made-up refresh token is refused');
select is(pg_temp.error_of('auth_token', null, '{"refresh_token": 5}') ->> 'code', 'validation_failed',
  'a refresh token that is not a string is a 422');

create temporary table plain_sign_in as select pg_temp.login('ada@example.com', p_refreshable => false) as answer;
select is((select array(select jsonb_object_keys(answer) order by 1) from plain_sign_in), array['token', 'user'],
  'a login that does not ask gets the session token it always got');
select ok((select s.expires_at > now() + interval '29 days' and s.family_id is null from auth.sessions as s
            where s.token_hash = auth.token_hash((select answer ->> 'token' from plain_sign_in))),
  'which lasts 30 days, renewed while used');

set local liftbase.access_token_lifetime = '5 minutes';
select is((pg_temp.login('ada@example.com') ->> 'expires_in')::integer, 300, 'the operator sets the access token''s lifetime');
set local liftbase.access_token_lifetime = 'soon';
select throws_ok($$select auth.access_token_lifetime()$$, 'F0000', null, 'and a lifetime that is not one is refused');
set local liftbase.access_token_lifetime = '';

create temporary table logged_out as select pg_temp.login('ada@example.com') as answer;
select auth.logout((select answer ->> 'token' from logged_out));
select is(pg_temp.refresh((select answer ->> 'refresh_token' from logged_out)) -> 'error' ->> 'code',
  'invalid_refresh_token', 'logging out with an access token ends its refresh token too');

create temporary table kept as select pg_temp.login('ada@example.com') as answer;
create temporary table ended as select pg_temp.login('ada@example.com') as answer;
select auth.password_change((select answer ->> 'token' from kept), 'a long password', 'a new long password');
select ok(pg_temp.refresh((select answer ->> 'refresh_token' from kept)) ? 'refresh_token',
  'a password change keeps the refresh token of the sign-in that made it');
select is(pg_temp.refresh((select answer ->> 'refresh_token' from ended)) -> 'error' ->> 'code',
  'invalid_refresh_token', 'and ends every other');
select auth.set_password((select id from auth.users where email = 'ada@example.com'), 'a long password');
update tokens set token = auth.start_session(user_id) where name = 'ada';

-- API keys --------------------------------------------------------------------------------------
create temporary table read_key as select pg_temp.call('api_key_create', 'ada', '{"password": "a long password", "name": "Dashboard", "scope": "read"}') as answer;
select ok((select answer ->> 'key' like 'lbk\_%' and answer ->> 'scope' = 'read' from read_key),
  'a key is made and shown once, with its scope');
select is((select token_hash from auth.api_keys where name = 'Dashboard'),
  (select auth.token_hash(answer ->> 'key') from read_key), 'only its hash is kept');
select is((select array(select jsonb_object_keys(i) order by 1)
             from jsonb_array_elements(pg_temp.call('api_keys_list', 'ada', null) -> 'items') as i),
  array['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'scope'], 'listed without its secret');
insert into tokens values ('ada read key', (select id from auth.users where email = 'ada@example.com'),
                           (select answer ->> 'key' from read_key));
select is(pg_temp.call('me', 'ada read key', null) -> 'user' ->> 'email', 'ada@example.com', 'a read key reads');
select isnt((select last_used_at from auth.api_keys where name = 'Dashboard'), null, 'and its last use is kept');
select pg_temp.call('program_create', 'ada', '{"goal": "strength", "training_age": "novice", "days_per_week": 2}');
select ok(pg_temp.call('program_next', 'ada read key', null) ? 'exercises', 'a read key reads the next session');
select is(pg_temp.error_of('program_next', 'ada read key', null, '{"mode": "short_on_time"}') ->> 'code',
  'insufficient_scope', 'but records no mode: the GET that would write asks auth.writable_token itself');
select throws_ok($$select auth.writable_token((select answer ->> 'key' from read_key))$$, 'LB403', 'This API key may only read.',
  'a request that may write, with a read key, is refused');
select lives_ok($$select api.body_metrics_add(auth.writable_token((select token from tokens where name = 'ada')),
                                               '{"weight_kg": 70}', '{}')$$,
  'while a session''s token passes as it is');

create temporary table write_key as select pg_temp.call('api_key_create', 'ada', '{"password": "a long password", "name": "Sync script", "scope": "read_write"}') as answer;
insert into tokens values ('ada write key', (select id from auth.users where email = 'ada@example.com'),
                           (select answer ->> 'key' from write_key));
select lives_ok($$select api.body_metrics_add(auth.writable_token((select token from tokens where name = 'ada write key')),
                                               '{"weight_kg": 71}', '{}')$$,
  'a read and write key writes');
select is(pg_temp.error_of('auth_password_change', 'ada write key',
                           '{"current_password": "a long password", "new_password": "another long one"}') ->> 'code',
  'api_key_not_allowed', 'no key changes the password');
select is(pg_temp.error_of('api_key_create', 'ada write key', '{"password": "a long password", "name": "More", "scope": "read"}') ->> 'code',
  'api_key_not_allowed', 'or makes keys');
select is(pg_temp.error_of('security_events_list', 'ada write key', null) ->> 'code', 'api_key_not_allowed',
  'or reads the security log');
select is(pg_temp.error_of('me_delete', 'ada write key', '{"password": "a long password"}') ->> 'code',
  'api_key_not_allowed', 'or deletes the account');
select is(pg_temp.error_of('auth_logout', 'ada write key', null) ->> 'code', 'api_key_not_allowed', 'or logs out');

select is(pg_temp.error_of('api_key_create', 'ada', '{"password": "a long password", "name": " ", "scope": "admin", "expires_at": "2020-01-01T00:00:00Z"}')
            -> 'fields', '{"name": "must be 1 to 100 characters", "scope": "must be read or read_write", "expires_at": "must be in the future"}',
  'a key''s name, scope and expiry are checked together');
select is(pg_temp.call('api_key_create', 'ada', '{"password": "a guess", "name": "Stolen", "scope": "read_write"}')
            -> 'error' ->> 'code', 'invalid_password', 'a key takes the password: a session alone makes none');
select is((select count(*)::integer from auth.login_failures where email_key = 'ada@example.com'), 1,
  'and a wrong one counts towards the login lockout');
delete from auth.login_failures;
update auth.api_keys set expires_at = now() - interval '1 second' where name = 'Sync script';
select is(pg_temp.who((select answer ->> 'key' from write_key)), 'LB401', 'an expired key signs nothing');
select pg_temp.call('api_key_delete', 'ada', null, jsonb_build_object('id', (select answer ->> 'id' from read_key)));
select is(pg_temp.who((select answer ->> 'key' from read_key)), 'LB401', 'a revoked key signs nothing from then on');
select is(pg_temp.error_of('api_key_delete', 'bob', null, jsonb_build_object('id', (select answer ->> 'id' from write_key))) ->> 'code',
  'api_key_not_found', 'nobody revokes another account''s key');

create temporary table bob_key as select pg_temp.call('api_key_create', 'bob', '{"password": "a long password", "name": "Bob''s", "scope": "read"}') as answer;
update auth.users set disabled_at = now() where email = 'bob@example.com';
select is(pg_temp.who((select answer ->> 'key' from bob_key)), 'LB401', 'a disabled account''s key signs nothing');
update auth.users set disabled_at = null where email = 'bob@example.com';
select pg_temp.sign_up('bob again', 'bob2@example.com', 'a long password');
select pg_temp.call('api_key_create', 'bob again', jsonb_build_object('password', 'a long password', 'name', 'key ' || n, 'scope', 'read'))
  from generate_series(1, 50) as n;
select is(pg_temp.error_of('api_key_create', 'bob again', '{"password": "a long password", "name": "one more", "scope": "read"}') ->> 'code',
  'too_many_api_keys', 'an account has at most 50 keys');

insert into auth.password_resets (token_hash, user_id, expires_at)
values (auth.token_hash('a reset token'), (select id from auth.users where email = 'bob@example.com'), now() + interval '1 hour');
select is((select count(*)::integer from auth.api_keys as k join auth.users as u on u.id = k.user_id
            where u.email = 'bob@example.com'), 1, 'bob has a key');
select auth.password_reset('a reset token', 'a new long password');
select is((select count(*)::integer from auth.api_keys as k join auth.users as u on u.id = k.user_id
            where u.email = 'bob@example.com'), 0,
  'a password reset, how an account is taken back, revokes its keys');

-- The security log ------------------------------------------------------------------------------
select pg_temp.sign_up('cy', 'cy@example.com', 'a long password');
select pg_temp.call('auth_login', null, '{"email": "cy@example.com", "password": "wrong password"}',
                    '{"client_address": "192.0.2.1", "user_agent": "Guesser"}');
select pg_temp.login('cy@example.com', 'Phone/1');
select pg_temp.login('cy@example.com', 'Phone/1');
select pg_temp.login('cy@example.com', 'Laptop/2');
select is(pg_temp.events('cy@example.com'), array['sign_in_failed', 'sign_in', 'sign_in', 'new_device', 'sign_in'],
  'failed and good sign-ins are logged, and a sign-in from a client never seen is a new device');
select is((select client_address || ' ' || user_agent from auth.security_events
            where kind = 'sign_in_failed' and user_id = (select id from auth.users where email = 'cy@example.com')),
  '192.0.2.1 Guesser', 'with the client''s address and agent');
select is((select count(*)::integer from auth.security_events as e join auth.users as u on u.id = e.user_id
            where u.email = 'ada@example.com' and e.kind in ('password_changed', 'api_key_created', 'api_key_revoked')),
  4, 'password changes and keys made and revoked are logged');

insert into tokens values ('cy session', (select id from auth.users where email = 'cy@example.com'),
                           (select pg_temp.login('cy@example.com', 'Phone/1') ->> 'token'));
create temporary table first_page as select pg_temp.call('security_events_list', 'cy session', null, '{"limit": "2"}') as answer;
select is((select array(select i ->> 'kind' from jsonb_array_elements(answer -> 'items') as i) from first_page),
  array['sign_in', 'sign_in'], 'the account reads its log, newest first');
select is((select array(select i ->> 'kind' from jsonb_array_elements(
             pg_temp.call('security_events_list', 'cy session', null,
                          jsonb_build_object('limit', '2', 'cursor', answer ->> 'next_cursor')) -> 'items') as i)
             from first_page),
  array['new_device', 'sign_in'], 'page by page');
select is(jsonb_array_length(pg_temp.call('security_events_list', 'bob again', null) -> 'items'), 50,
  'and only its own');

update auth.security_events set occurred_at = now() - interval '200 days'
 where kind = 'sign_in_failed' and user_id = (select id from auth.users where email = 'cy@example.com');
select is((select count(*)::integer from reporting.security_events where day < current_date - 180), 0,
  'an event past the retention is not shown');
select pg_temp.login('cy@example.com', 'Phone/1');
select is((pg_temp.events('cy@example.com'))[1], 'sign_in', 'and goes with the account''s next event');
-- An account that logs nothing new: the daily prune (liftbase security prune) drops its old events.
update auth.security_events set occurred_at = now() - interval '200 days'
 where kind = 'password_changed' and user_id = (select id from auth.users where email = 'ada@example.com');
create temporary table pruned as select auth.prune_security_events() as count;
select ok((select count > 0 from pruned)
          and not exists (select from auth.security_events where occurred_at < now() - interval '180 days'),
  'the daily prune drops idle accounts'' old events');
select isnt((select count(*) from auth.security_events where user_id = (select id from auth.users where email = 'ada@example.com')),
  0::bigint, 'and keeps their recent ones');
set local role liftbase_reporter;
select is((select accounts from reporting.security_events where kind = 'new_device'), 1::bigint,
  'the reporting role counts every account''s events per day and kind');
reset role;

select * from finish();
rollback;
