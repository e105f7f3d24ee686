-- Auth rules: registration, login and lockout, logout, password reset and change.
begin;
\ir support/helpers.psql
select plan(43);

-- Registration ------------------------------------------------------------------------------
create temporary table t (key text primary key, value text);

select lives_ok(
  $$insert into t select 'ann_token', auth.register('Ann@Example.com', 'correct horse', 'Ann') ->> 'token'$$,
  'register creates an account and a session');
select is((select count(*)::integer from auth.users where lower(email) = 'ann@example.com'), 1, 'one account');
select is((select count(*)::integer from auth.sessions s join auth.users u on u.id = s.user_id
            where u.email = 'Ann@Example.com'), 1, 'registration starts a session');
select isnt((select password_hash from auth.users where email = 'Ann@Example.com'), 'correct horse',
  'the password is not stored');
select matches((select password_hash from auth.users where email = 'Ann@Example.com'), '^\$2a\$',
  'the password is hashed with bcrypt');
select is((select encode(token_hash, 'hex') from auth.sessions s join auth.users u on u.id = s.user_id
            where u.email = 'Ann@Example.com'),
          (select encode(sha256(convert_to(value, 'UTF8')), 'hex') from t where key = 'ann_token'),
  'only the SHA-256 of the token is stored');

select is(auth.register(' ann@EXAMPLE.com', 'another password', null),
  '{"error": {"code": "email_taken", "message": "An account with this email already exists."}}',
  'email is unique case-insensitively: answered 409, not raised (the rate-limit count stays)');
-- As the owner, as auth.register runs it (on Citus a transaction writes auth.users as one user).
set local role liftbase_owner;
select throws_ok($$select auth.create_account('ann@EXAMPLE.com', 'another password', null)$$,
  'LB409', 'An account with this email already exists.', 'and raised when two sign-ups race past that check');
reset role;
select throws_ok($$select auth.register('not-an-email', 'short', null)$$,
  'LB422', 'Some fields are invalid.', 'bad email and password are rejected');
-- The DETAIL of a validation error names every bad field at once.
create function pg_temp.error_detail(p_sql text) returns jsonb language plpgsql as $$
declare v_detail text;
begin
  execute p_sql;
  return null;
exception when others then
  get stacked diagnostics v_detail = pg_exception_detail;
  return v_detail::jsonb;
end $$;

select is(pg_temp.error_detail($$select auth.register('not-an-email', 'short', repeat('x', 101))$$),
  '{"code": "validation_failed", "fields": {"email": "must be an email address",
    "password": "must be at least 8 characters", "display_name": "must be 1 to 100 characters"}}'::jsonb,
  'every bad field is listed');
select is(pg_temp.error_detail($$select auth.register('x@y.io', repeat('é', 40), null)$$) -> 'fields' ->> 'password',
  'must be at most 72 bytes', 'passwords longer than bcrypt reads are refused');

-- Authentication ------------------------------------------------------------------------------
select is(auth.authenticate((select value from t where key = 'ann_token')),
  (select id from auth.users where email = 'Ann@Example.com'), 'the token authenticates its user');
select is(app.current_user_id(), (select id from auth.users where email = 'Ann@Example.com'),
  'authenticate sets the user of the transaction');
select throws_ok($$select auth.authenticate('no such token')$$, 'LB401',
  'The session token is invalid or has expired.', 'an unknown token is refused');
select throws_ok($$select auth.authenticate(null)$$, 'LB401', 'A bearer token is required.', 'no token is refused');

update auth.sessions set expires_at = now() - interval '1 second', last_seen_at = now() - interval '31 days'
 where token_hash = auth.token_hash((select value from t where key = 'ann_token'));
select throws_ok(format('select auth.authenticate(%L)', (select value from t where key = 'ann_token')),
  'LB401', 'The session token is invalid or has expired.', 'an expired token is refused');

-- Login and lockout ---------------------------------------------------------------------------
select is(auth.login('ann@example.com', 'correct horse') -> 'user' ->> 'email', 'Ann@Example.com',
  'login is case-insensitive on email');
select is(auth.login('ann@example.com', 'wrong password') -> 'error' ->> 'code', 'invalid_credentials',
  'a wrong password is answered 401');
select is(current_setting('liftbase.response_status'), '401', 'with status 401');
select is(auth.login('nobody@example.com', 'whatever1') -> 'error' ->> 'code', 'invalid_credentials',
  'an unknown email is answered the same way');
select is((select count(*)::integer from auth.login_failures where email_key = 'ann@example.com'), 1,
  'the failure is recorded');
select auth.login('ann@example.com', 'wrong password') from generate_series(1, 4);
select is(auth.login('ann@example.com', 'correct horse') -> 'error' ->> 'code', 'too_many_attempts',
  'after 5 failures within 15 minutes even the right password is refused');
select is(current_setting('liftbase.response_status'), '429', 'with status 429');
select is(current_setting('liftbase.response_headers')::jsonb ->> 'Retry-After', '900',
  'and Retry-After until the oldest failure leaves the window');
update auth.login_failures set failed_at = now() - interval '16 minutes'
 where id = (select min(id) from auth.login_failures where email_key = 'ann@example.com');
select ok(auth.login('ann@example.com', 'correct horse') ? 'token',
  'once a failure leaves the window the account can log in again');

-- Password reset ------------------------------------------------------------------------------
select lives_ok($$select auth.password_forgot('nobody@example.com')$$, 'forgot for an unknown email says nothing');
select is((select count(*)::integer from auth.outbox where kind = 'password_reset'), 0, 'and queues nothing');
select auth.password_forgot('ANN@example.com');
insert into t select 'reset', payload ->> 'token' from auth.outbox where kind = 'password_reset';
select is(auth.password_reset('wrong', 'new password 1'), '{"error": {"code": "invalid_or_expired_token", "message": "The reset token is invalid, used or expired."}}'::jsonb,
  'an unknown reset token is answered 400 (not raised: the rate-limit count stays)');
select is(current_setting('liftbase.response_status'), '400', 'with its status');
select lives_ok(format('select auth.password_reset(%L, %L)', (select value from t where key = 'reset'), 'new password 1'),
  'a queued reset token sets the password');
select is((select count(*)::integer from auth.sessions s join auth.users u on u.id = s.user_id
            where u.email = 'Ann@Example.com'), 0, 'a reset revokes every session');
select is(auth.password_reset((select value from t where key = 'reset'), 'new password 2'), '{"error": {"code": "invalid_or_expired_token", "message": "The reset token is invalid, used or expired."}}'::jsonb,
  'a reset token is single-use');

select auth.password_forgot('ann@example.com');
update auth.password_resets set expires_at = now() - interval '1 second' where used_at is null;
select is(auth.password_reset((select payload ->> 'token' from auth.outbox order by id desc limit 1), 'new password 3'),
  '{"error": {"code": "invalid_or_expired_token", "message": "The reset token is invalid, used or expired."}}'::jsonb, 'a reset token expires');

-- Password change ----------------------------------------------------------------------------
insert into t select 'first', auth.login('ann@example.com', 'new password 1') ->> 'token';
insert into t select 'second', auth.login('ann@example.com', 'new password 1') ->> 'token';
select is(auth.password_change((select value from t where key = 'first'), 'not my password', 'new password 4')
            -> 'error' ->> 'code', 'invalid_password', 'a change needs the current password');
select is((select count(*)::integer from auth.login_failures where email_key = 'ann@example.com'), 1,
  'and a wrong one counts towards the login lockout: a session is no way to guess it');
select throws_ok(format('select auth.password_change(%L, %L, %L)', (select value from t where key = 'first'),
    'new password 1', 'short'),
  'LB422', 'Some fields are invalid.', 'the new password follows the password rule');
select lives_ok(format('select auth.password_change(%L, %L, %L)', (select value from t where key = 'first'),
    'new password 1', 'new password 4'), 'the password changes');
select lives_ok(format('select auth.authenticate(%L)', (select value from t where key = 'first')),
  'the session that changed it stays');
select throws_ok(format('select auth.authenticate(%L)', (select value from t where key = 'second')),
  'LB401', 'The session token is invalid or has expired.', 'every other session ends');
select ok(auth.login('ann@example.com', 'new password 4') ? 'token', 'the new password logs in');
select is(auth.login('ann@example.com', 'new password 1') -> 'error' ->> 'code', 'invalid_credentials',
  'the old one no longer does');

-- Logout ----------------------------------------------------------------------------------------
select lives_ok(format('select auth.logout(%L)', (select value from t where key = 'first')), 'logout');
select throws_ok(format('select auth.authenticate(%L)', (select value from t where key = 'first')),
  'LB401', 'The session token is invalid or has expired.', 'a logged-out token is refused');

select * from finish();
rollback;
