-- Two-factor sign-in: TOTP (RFC 6238) with one-time recovery codes, and the challenge a
-- login answers with when the account has it. The rules are auth_two_factor.sql's.

-- An account's TOTP secret (20 random bytes, as authenticator apps take them). Unconfirmed
-- until a code of it is given back (enrolment); last_step is the 30-second step of the last
-- code accepted, so that no code works twice.
create table auth.totp_factors (
  user_id      uuid primary key references auth.users (id) on delete cascade,
  secret       bytea not null check (length(secret) = 20),
  created_at   timestamptz not null default now(),
  confirmed_at timestamptz,
  last_step    bigint
);

-- Ten one-time codes per confirmed factor, shown once; only their SHA-256 is kept.
create table auth.recovery_codes (
  user_id   uuid not null references auth.totp_factors (user_id) on delete cascade,
  code_hash bytea not null check (length(code_hash) = 32),
  used_at   timestamptz,
  primary key (user_id, code_hash)
);

-- The second step of a login: the password was right, a code is still owed. Short-lived,
-- single use, and ended after a few wrong codes.
create table auth.login_challenges (
  token_hash  bytea primary key check (length(token_hash) = 32),
  user_id     uuid not null references auth.users (id) on delete cascade,
  created_at  timestamptz not null default now(),
  expires_at  timestamptz not null,
  attempts    integer not null default 0,
  refreshable boolean not null default false
);
create index login_challenges_user_idx on auth.login_challenges (user_id);
