-- Registration the operator controls: invitations (`liftbase invite create`) and verified
-- email addresses (POST /auth/email/verify). The rules are auth_registration.sql's.

-- When the account's address was shown to be its owner's (the link of a verification
-- mail followed). Accounts made before verification existed are taken as verified: they
-- were made under the rules of their day, and a setting that requires verification must not
-- lock them out.
alter table auth.users add column email_verified_at timestamptz;
update auth.users set email_verified_at = created_at;

-- An invitation to sign up with one address: single use, expiring. Only the SHA-256 of its
-- token is kept, as for sessions and reset tokens.
create table auth.invitations (
  token_hash  bytea primary key check (length(token_hash) = 32),
  email       text not null check (email = btrim(email) and length(email) between 3 and 254),
  created_at  timestamptz not null default now(),
  expires_at  timestamptz not null,
  used_at     timestamptz,
  revoked_at  timestamptz
);
create index invitations_email_idx on auth.invitations (lower(email));

-- A verification mail's token: single use, expiring.
create table auth.email_verifications (
  token_hash bytea primary key check (length(token_hash) = 32),
  user_id    uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at    timestamptz
);
create index email_verifications_user_idx on auth.email_verifications (user_id);

-- Registration takes an invitation now: the function's arguments change.
drop function if exists auth.register(text, text, text);
