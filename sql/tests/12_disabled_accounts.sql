-- A disabled account has no session (0064), which is why auth.authenticate reads only the
-- session: disabling ends the sessions, by `liftbase user disable` or by an operator's
-- UPDATE, and no session starts for a disabled account.
begin;
\ir support/helpers.psql
select plan(9);

select pg_temp.sign_up('d', 'disabled-account@example.com', 'disabled account password');
create function pg_temp.sessions() returns integer language sql as $$
  select count(*)::integer from auth.sessions where user_id = (select user_id from tokens where name = 'd') $$;

set local role liftbase_api;
select isnt(pg_temp.call('me', 'd', null), null, 'an enabled account''s token works');
reset role;

select auth.admin_set_disabled('disabled-account@example.com', true);
select is(pg_temp.sessions(), 0, 'disabling ends the account''s sessions');
set local role liftbase_api;
select is(pg_temp.error_of('me', 'd', null) ->> 'code', 'invalid_token', 'and its token no longer works');
reset role;
select throws_ok($$select auth.start_session((select user_id from tokens where name = 'd'))$$,
  'LB403', 'This account is disabled.', 'no session starts for a disabled account');
select is(pg_temp.sessions(), 0, 'so it still has none');

select auth.admin_set_disabled('disabled-account@example.com', false);
update tokens set token = auth.start_session(user_id) where name = 'd';
set local role liftbase_api;
select isnt(pg_temp.call('me', 'd', null), null, 'enabled again, a new session works');
reset role;

-- An operator's UPDATE, not the admin function: the same rule.
update auth.users set disabled_at = now() where id = (select user_id from tokens where name = 'd');
select is(pg_temp.sessions(), 0, 'an UPDATE that disables the account ends its sessions');
set local role liftbase_api;
select is(pg_temp.error_of('me', 'd', null) ->> 'code', 'invalid_token', 'and its token no longer works');
reset role;

-- Login refuses a disabled account before any session (its own rule, unchanged).
select throws_ok($$select auth.login('disabled-account@example.com', 'disabled account password')$$,
  'LB403', 'This account is disabled.', 'login refuses a disabled account');

select * from finish();
rollback;
