-- Short-lived access tokens with a refresh token that rotates on every use (POST
-- /auth/token). The rules are auth_refresh_tokens.sql's.

-- A sign-in that asked for a refresh token: one row, whatever the number of rotations. The
-- refresh token names its family and carries a secret; only the SHA-256 of the family's
-- current secret is kept, so a token of the family with another secret is one that was
-- already spent, used a second time (it was stolen, or the client that held it was), and
-- ends the family.
create table auth.token_families (
  id             uuid primary key default gen_random_uuid(),
  user_id        uuid not null references auth.users (id) on delete cascade,
  secret_hash    bytea not null check (length(secret_hash) = 32),
  created_at     timestamptz not null default now(),
  rotated_at     timestamptz not null default now(),
  expires_at     timestamptz not null
);
create index token_families_user_idx on auth.token_families (user_id);

-- The family an access token belongs to, which ends with it; null for the sliding 30-day
-- sessions that clients which do not ask for a refresh token keep getting.
alter table auth.sessions add column family_id uuid references auth.token_families (id) on delete cascade;
create index sessions_family_idx on auth.sessions (family_id) where family_id is not null;

-- Login, registration and sessions take the client (for the security log) and whether it
-- wants a refresh token: their arguments change.
drop function if exists auth.login(text, text);
drop function if exists auth.register(text, text, text, text);
drop function if exists auth.start_session(uuid);
