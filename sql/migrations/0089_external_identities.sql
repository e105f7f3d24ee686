-- Sign in with Apple, Google or any OpenID Connect provider (POST /auth/oidc/{provider}).
-- The server checks an ID token's signature against its provider's keys; the account rules
-- are auth_oidc.sql's.

-- An account's identity at a provider: its subject (the provider's stable id of the person),
-- never its email, names the account at every later sign-in.
create table auth.external_identities (
  provider     text not null check (provider ~ '^[a-z0-9_-]{1,40}$'),
  subject      text not null check (length(subject) between 1 and 255),
  user_id      uuid not null references auth.users (id) on delete cascade,
  email        text,
  created_at   timestamptz not null default now(),
  last_used_at timestamptz not null default now(),
  primary key (provider, subject)
);
create index external_identities_user_idx on auth.external_identities (user_id);

-- ID tokens already spent, until they expire: a token presented twice is refused.
create table auth.id_token_uses (
  token_hash bytea primary key check (length(token_hash) = 32),
  expires_at timestamptz not null
);
create index id_token_uses_expiry_idx on auth.id_token_uses (expires_at);
