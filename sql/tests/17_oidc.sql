-- Sign-in with an OpenID Connect provider (auth_oidc.sql): the rules SQL owns once the HTTP
-- layer has verified an ID token's signature, issuer, audience and expiry (the Swift suite
-- tests that with keys of its own): the nonce, a token used once, and accounts named by the
-- provider's subject, linked by an address only when both sides verified it.
begin;
\ir support/helpers.psql
select plan(25);

-- A sign-in with claims as the HTTP layer hands them over (oidc_claims in p_args).
create function pg_temp.oidc(p_claims jsonb, p_nonce text default 'n-1', p_body jsonb default '{}') returns jsonb
language sql as $$
  select pg_temp.call('auth_oidc', null,
                      jsonb_build_object('id_token', 'header.payload.signature', 'nonce', p_nonce) || p_body,
                      jsonb_build_object('provider', p_claims ->> 'provider', 'client_address', '203.0.113.9',
                                         'oidc_claims', p_claims::text)) $$;
-- Claims of a token: each call a token of its own unless p_token says which.
create function pg_temp.claims(p_sub text, p_email text, p_verified boolean default true, p_token text default null,
                               p_nonce text default 'n-1') returns jsonb
language sql volatile as $$
  select jsonb_strip_nulls(jsonb_build_object(
    'provider', 'apple', 'sub', p_sub, 'email', p_email, 'email_verified', p_verified, 'nonce', p_nonce,
    'exp', extract(epoch from now() + interval '10 minutes')::bigint,
    'token_sha256', encode(sha256(convert_to(coalesce(p_token, gen_random_uuid()::text), 'UTF8')), 'hex'))) $$;
create function pg_temp.user_of(p_email text) returns uuid language sql as $$
  select id from auth.users where lower(email) = lower(p_email) $$;

-- pg_temp.call reads the tokens this makes; a sign-in with a provider names none.
select pg_temp.sign_up('ann', 'ann@example.com', 'a long password');

select is(pg_temp.call('auth_oidc', null, '{"id_token": "t", "nonce": "n-1"}', '{"provider": "apple"}') -> 'error' ->> 'code',
  'invalid_id_token', 'a statement without verified claims signs nobody in');
select is(pg_temp.error_of('auth_oidc', null, '{"nonce": "n-1"}', '{"provider": "apple"}') -> 'fields' ->> 'id_token',
  'is required', 'an id_token is required');

-- New people -----------------------------------------------------------------------------------
create temporary table first_sign_in as select pg_temp.oidc(pg_temp.claims('apple-001', 'new@example.com', p_token => 't-1')) as answer;
select ok((select answer ? 'token' from first_sign_in), 'a new subject with a new address signs up and in');
select is(pg_temp.status(), '201', 'answered 201, as a registration');
select isnt((select email_verified_at from auth.users where email = 'new@example.com'), null,
  'the address is verified when the provider says so');
select is((select count(*)::integer from auth.external_identities where provider = 'apple' and subject = 'apple-001'), 1,
  'the identity is kept by its subject');
select is(pg_temp.oidc(pg_temp.claims('apple-001', 'new@example.com', p_token => 't-1')) -> 'error' ->> 'code',
  'id_token_replayed', 'a token works once');
select is(pg_temp.oidc(pg_temp.claims('apple-001', 'changed@example.com')) -> 'user' ->> 'email', 'new@example.com',
  'the subject names the account at every later sign-in, whatever address the token carries');
select is(pg_temp.status(), '200', 'answered 200');
select ok(pg_temp.oidc(pg_temp.claims('apple-001', null, p_nonce => encode(sha256(convert_to('raw nonce', 'UTF8')), 'hex')),
                       'raw nonce') ? 'token', 'a nonce is taken as sent or as its SHA-256 (Sign in with Apple)');
select is(pg_temp.oidc(pg_temp.claims('apple-001', null), 'another nonce') -> 'error' ->> 'code', 'invalid_id_token',
  'a token for another nonce is refused');
select is(pg_temp.oidc(pg_temp.claims('apple-002', null)) -> 'error' ->> 'code', 'email_required',
  'a new subject without an address makes no account');

create temporary table unverified as select pg_temp.oidc(pg_temp.claims('apple-003', 'relay@example.com', false)) as answer;
select ok((select answer ? 'token' from unverified) and
          (select email_verified_at is null from auth.users where email = 'relay@example.com'),
  'an address the provider did not verify makes an account whose address waits for verification');
select is((select count(*)::integer from auth.outbox where recipient = 'relay@example.com' and kind = 'email_verification'), 1,
  'and is sent the verification mail');

set local liftbase.require_verified_email = 'on';
select is(pg_temp.oidc(pg_temp.claims('apple-004', 'unverified@example.com', false)) -> 'error' ->> 'code',
  'email_not_verified', 'when the operator requires verified addresses, one the provider did not verify signs in no more '
  'than a password would');
select ok(pg_temp.oidc(pg_temp.claims('apple-005', 'verified@example.com')) ? 'token',
  'and one the provider verified signs in');
reset liftbase.require_verified_email;

-- Existing accounts -------------------------------------------------------------------------------
update auth.users set email_verified_at = now() where email = 'ann@example.com';
create temporary table linked as select pg_temp.oidc(pg_temp.claims('google-ann', 'ANN@example.com')) as answer;
select is((select answer -> 'user' ->> 'id' from linked), pg_temp.user_of('ann@example.com')::text,
  'a verified address links the account of that verified address');
select is((select kind from auth.security_events where user_id = pg_temp.user_of('ann@example.com') and kind = 'identity_linked'),
  'identity_linked', 'which its security log says');
select pg_temp.sign_up('eve', 'eve@example.com', 'a long password');
update auth.users set email_verified_at = null where email = 'eve@example.com';
select is(pg_temp.oidc(pg_temp.claims('google-eve', 'eve@example.com')) -> 'error' ->> 'code', 'email_taken',
  'an account whose own address is unverified is not linked: its maker may not be its owner');
select is(pg_temp.oidc(pg_temp.claims('google-ann-2', 'ann@example.com', false)) -> 'error' ->> 'code', 'email_taken',
  'nor is any account by an address the provider did not verify');

set local liftbase.registration = 'closed';
select is(pg_temp.oidc(pg_temp.claims('apple-new', 'closed@example.com')) -> 'error' ->> 'code', 'registration_closed',
  'a server closed to sign-ups makes no account for a provider either');
select ok(pg_temp.oidc(pg_temp.claims('apple-001', null)) ? 'token', 'while linked identities still sign in');
reset liftbase.registration;
set local liftbase.registration = 'invite_only';
create temporary table invitation as select auth.create_invitation('invited@example.com', 3) ->> 'token' as token;
create temporary table invited as
  select pg_temp.oidc(pg_temp.claims('apple-invited', 'invited@example.com', false), 'n-1',
                      jsonb_build_object('invitation', (select token from invitation))) as answer;
select ok((select answer ? 'token' from invited)
          and (select email_verified_at is not null from auth.users where email = 'invited@example.com')
          and (select used_at is not null from auth.invitations where email = 'invited@example.com'),
  'by invitation only, an invitation lets a provider''s new person in, spent, and shows the address theirs');
reset liftbase.registration;

update auth.users set disabled_at = now() where email = 'ann@example.com';
select is(pg_temp.oidc(pg_temp.claims('google-ann', null)) -> 'error' ->> 'code', 'account_disabled',
  'a disabled account is refused');
update auth.users set disabled_at = null where email = 'ann@example.com';
insert into auth.totp_factors (user_id, secret, confirmed_at)
values (pg_temp.user_of('ann@example.com'), public.gen_random_bytes(20), now());
select ok(pg_temp.oidc(pg_temp.claims('google-ann', null)) ? 'challenge',
  'an account with two-factor sign-in owes a code after its provider too');

select * from finish();
rollback;
