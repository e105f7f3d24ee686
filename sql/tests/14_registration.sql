-- Registration the operator controls (auth_registration.sql): open, by invitation only or
-- closed; invitations made, spent, revoked and expired; verified addresses, the reset mail an
-- unverified one gets, and sign-in that waits for verification when the operator asks.
begin;
\ir support/helpers.psql
select plan(34);

create function pg_temp.register(p_email text, p_invitation text default null) returns jsonb language sql as $$
  select pg_temp.call('auth_register', null, jsonb_strip_nulls(jsonb_build_object(
    'email', p_email, 'password', 'a long password', 'invitation', p_invitation))) $$;
create function pg_temp.mails(p_email text, p_kind text) returns integer language sql as $$
  select count(*)::integer from auth.outbox where recipient = p_email and kind = p_kind $$;
create function pg_temp.token_of(p_email text, p_kind text) returns text language sql as $$
  select payload ->> 'token' from auth.outbox where recipient = p_email and kind = p_kind order by id desc limit 1 $$;

-- pg_temp.call reads the tokens this makes; calls without a token name none.
select pg_temp.sign_up('someone', 'someone@example.com', 'a long password');

-- Open (the default) ---------------------------------------------------------------------------
set local liftbase.registration = '';
create temporary table opened as select pg_temp.register('open@example.com') as answer;
select ok((select answer ? 'token' and answer ->> 'token' is not null from opened), 'open: anyone signs up and is signed in');
select is((select answer -> 'user' ->> 'email_verified' from opened), 'false', 'its address is not verified yet');
select is(pg_temp.mails('open@example.com', 'email_verification'), 1, 'a verification mail is queued');
select is(auth.verify_email(pg_temp.token_of('open@example.com', 'email_verification')), null,
  'its token verifies the address');
select isnt((select email_verified_at from auth.users where email = 'open@example.com'), null, 'now verified');
select is(auth.verify_email(pg_temp.token_of('open@example.com', 'email_verification')) -> 'error' ->> 'code',
  'invalid_or_expired_token', 'a verification token works once');
select is(auth.verify_email('a guess') -> 'error' ->> 'code', 'invalid_or_expired_token', 'a wrong one is answered 400');

-- Closed ----------------------------------------------------------------------------------------
set local liftbase.registration = 'closed';
select is(pg_temp.register('closed@example.com') -> 'error' ->> 'code', 'registration_closed', 'closed: no sign-up');
select is(pg_temp.status(), '403', 'answered 403');
select is((select count(*)::integer from auth.users where email = 'closed@example.com'), 0, 'and no account');
select ok(auth.admin_create_user('made@example.com', 'a long password', null) ->> 'email_verified' = 'true',
  'the operator still makes accounts, taken as verified');

-- By invitation only ----------------------------------------------------------------------------
set local liftbase.registration = 'invite_only';
select is(pg_temp.register('guest@example.com') -> 'error' ->> 'code', 'invitation_required',
  'invite_only: a sign-up without an invitation is refused');
create temporary table invitations as
select 'guest' as name, auth.create_invitation('Guest@Example.com', 7) as invitation
union all select 'other', auth.create_invitation('other@example.com', 7);
select is(pg_temp.mails('Guest@Example.com', 'invitation'), 1, 'an invitation is mailed');
select is(pg_temp.register('guest@example.com', (select invitation ->> 'token' from invitations where name = 'other'))
            -> 'error' ->> 'code', 'invalid_invitation', 'another address''s invitation does not let one in');
select ok(pg_temp.register('guest@example.com', (select invitation ->> 'token' from invitations where name = 'guest'))
            ? 'token', 'its own does, whatever the case of the address');
select isnt((select email_verified_at from auth.users where email = 'guest@example.com'), null,
  'the invitation shows the address to be its owner''s');
select is(pg_temp.mails('guest@example.com', 'email_verification'), 0, 'so no verification mail is sent');
select is((select state from auth.pending_invitations() where email = 'Guest@Example.com'), null,
  'the invitation is spent');
select throws_ok($$select auth.create_invitation('guest@example.com', 7)$$, 'LB409',
  'An account with this email already exists.', 'an address with an account is not invited');

select auth.create_invitation('twice@example.com', 7);
create temporary table second as select auth.create_invitation('twice@example.com', 7) as invitation;
select is(array(select state from auth.pending_invitations() where email = 'twice@example.com' order by state),
  array['open', 'revoked'], 'a new invitation of an address revokes its open one');
select is(auth.revoke_invitations('TWICE@example.com'), 1, 'revoke stops the open one');
select is(pg_temp.register('twice@example.com', (select invitation ->> 'token' from second)) -> 'error' ->> 'code',
  'invalid_invitation', 'a revoked invitation lets no one in');
create temporary table late as select auth.create_invitation('late@example.com', 1) as invitation;
update auth.invitations set expires_at = now() - interval '1 second' where email = 'late@example.com';
select is(pg_temp.register('late@example.com', (select invitation ->> 'token' from late)) -> 'error' ->> 'code',
  'invalid_invitation', 'nor does an expired one');
select is((select state from auth.pending_invitations() where email = 'late@example.com'), 'expired', 'listed as expired');

-- Reset mail to an unverified address ------------------------------------------------------------
set local liftbase.registration = 'open';
select pg_temp.register('typo@example.com');
select auth.password_forgot('typo@example.com') from generate_series(1, 3);
select is(pg_temp.mails('typo@example.com', 'password_reset'), 1, 'an unverified address gets one reset mail, not three');
select auth.password_forgot('open@example.com') from generate_series(1, 2);
select is(pg_temp.mails('open@example.com', 'password_reset'), 2, 'a verified one gets each');

-- Another verification mail ---------------------------------------------------------------------
select pg_temp.call('auth_email_verification', null, '{"email": "TYPO@example.com"}');
select pg_temp.call('auth_email_verification', null, '{"email": "open@example.com"}');
select pg_temp.call('auth_email_verification', null, '{"email": "nobody@example.com"}');
select is(array[pg_temp.mails('typo@example.com', 'email_verification'), pg_temp.mails('open@example.com', 'email_verification'),
                pg_temp.mails('nobody@example.com', 'email_verification')], array[2, 1, 0],
  'another verification mail goes to an unverified account only (answered alike for every address)');

-- Sign-in that waits for verification -----------------------------------------------------------
set local liftbase.require_verified_email = 'on';
select is(pg_temp.register('strict@example.com') -> 'token', 'null', 'require_verified_email: a sign-up answers no token');
select is(pg_temp.call('auth_login', null, '{"email": "strict@example.com", "password": "a long password"}')
            -> 'error' ->> 'code', 'email_not_verified', 'and its login is refused');
select is(pg_temp.status(), '403', 'with 403');
select is(pg_temp.call('auth_login', null, '{"email": "strict@example.com", "password": "a wrong password"}')
            -> 'error' ->> 'code', 'invalid_credentials', 'a wrong password is still only a wrong password');
select auth.verify_email(pg_temp.token_of('strict@example.com', 'email_verification'));
select ok(pg_temp.call('auth_login', null, '{"email": "strict@example.com", "password": "a long password"}') ? 'token',
  'once verified, it signs in');

-- The settings ---------------------------------------------------------------------------------
set local liftbase.registration = 'invite-only';
select throws_ok('select auth.registration_mode()', 'F0000',
  'liftbase.registration = invite-only: must be open, invite_only or closed', 'an unknown registration is refused');
set local liftbase.require_verified_email = 'yes';
select throws_ok('select auth.requires_verified_email()', 'F0000',
  'liftbase.require_verified_email = yes: must be on or off', 'so is an unknown verification setting');

select * from finish();
rollback;
