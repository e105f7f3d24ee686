-- Foundation: extensions, default privileges, accounts, sessions, password resets, the
-- outbox, and the first user-owned tables (settings, goals) that /me reads.

create extension if not exists pgcrypto with schema public;

-- Functions are private unless granted: nothing the owner creates is executable by PUBLIC.
-- Every function in `api` is the public interface and executable by the API role.
alter default privileges for role liftbase_owner revoke execute on functions from public;
alter default privileges for role liftbase_owner in schema api grant execute on functions to liftbase_api;
-- Tables in `app` are reachable by the API role, always through row-level security
-- (sql/tests/00_catalog.sql checks that every such table forces it).
alter default privileges for role liftbase_owner in schema app
  grant select, insert, update, delete on tables to liftbase_api;
alter default privileges for role liftbase_owner in schema app
  grant usage, select on sequences to liftbase_api;

grant usage on schema api to liftbase_api;
grant usage on schema app to liftbase_api;
-- Only the functions of `auth` that are granted explicitly; none of its tables.
grant usage on schema auth to liftbase_api;
grant usage on schema reporting to liftbase_reporter;

-- The user id of the current request, set by auth.authenticate() for the transaction.
-- RLS policies call it inside a sub-select so it is evaluated once per statement.
create function app.current_user_id() returns uuid
language sql stable parallel safe
as $$ select nullif(current_setting('liftbase.user_id', true), '')::uuid $$;
grant execute on function app.current_user_id() to liftbase_api;

-- Accounts -------------------------------------------------------------------------------

create table auth.users (
  id            uuid primary key default gen_random_uuid(),
  email         text not null check (email = btrim(email) and length(email) between 3 and 254),
  password_hash text not null,
  display_name  text check (length(display_name) between 1 and 100),
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now(),
  disabled_at   timestamptz
);
-- Email is unique case-insensitively; lookups go through lower(email).
create unique index users_email_key on auth.users (lower(email));

-- Sessions: only the SHA-256 of the opaque token is stored.
create table auth.sessions (
  token_hash   bytea primary key check (length(token_hash) = 32),
  user_id      uuid not null references auth.users (id) on delete cascade,
  created_at   timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at   timestamptz not null
);
create index sessions_user_idx on auth.sessions (user_id);

-- Failed logins per normalized email, for the lockout window.
create table auth.login_failures (
  id        bigint generated always as identity primary key,
  email_key text not null,
  failed_at timestamptz not null default now()
);
create index login_failures_email_idx on auth.login_failures (email_key, failed_at desc);

create table auth.password_resets (
  token_hash bytea primary key check (length(token_hash) = 32),
  user_id    uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at    timestamptz
);
create index password_resets_user_idx on auth.password_resets (user_id);

-- Messages for a mailer to deliver (password reset links); acknowledged once sent.
create table auth.outbox (
  id         bigint generated always as identity primary key,
  user_id    uuid references auth.users (id) on delete cascade,
  kind       text not null,
  recipient  text not null,
  payload    jsonb not null default '{}',
  created_at timestamptz not null default now(),
  acked_at   timestamptz
);
create index outbox_pending_idx on auth.outbox (id) where acked_at is null;

-- User-owned tables ------------------------------------------------------------------------

create table app.user_settings (
  user_id     uuid primary key references auth.users (id) on delete cascade,
  unit_system text not null default 'metric' check (unit_system in ('metric', 'imperial')),
  timezone    text not null default 'UTC',
  updated_at  timestamptz not null default now()
);

-- One goal per user; a user without a goal still needs onboarding.
create table app.goals (
  user_id            uuid primary key references auth.users (id) on delete cascade,
  goal_type          text not null check (goal_type in ('cutting', 'maintaining', 'bulking')),
  goal_rate_per_week numeric(3, 2) not null,
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now()
);

alter table app.user_settings enable row level security;
alter table app.user_settings force row level security;
create policy own_rows on app.user_settings
  using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));

alter table app.goals enable row level security;
alter table app.goals force row level security;
create policy own_rows on app.goals
  using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));
