-- Personal API keys (POST /me/api-keys): bearer tokens for scripts and integrations, read
-- only or read and write, never for account or security changes. The rules are
-- auth_api_keys.sql's.
create table auth.api_keys (
  user_id      uuid not null references auth.users (id) on delete cascade,
  id           uuid not null default gen_random_uuid(),
  name         text not null check (name = btrim(name) and length(name) between 1 and 100),
  token_hash   bytea not null unique check (length(token_hash) = 32),
  scope        text not null check (scope in ('read', 'read_write')),
  created_at   timestamptz not null default now(),
  last_used_at timestamptz,
  expires_at   timestamptz,
  primary key (user_id, id)
);
