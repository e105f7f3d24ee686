-- The security log of each account (GET /me/security-events, reporting.security_events):
-- sign-ins and failed ones, new devices, password and two-factor changes, API keys, refresh
-- tokens used twice. The rules are auth_security_log.sql's.

create table auth.security_events (
  user_id        uuid not null references auth.users (id) on delete cascade,
  id             bigint generated always as identity,
  occurred_at    timestamptz not null default now(),
  kind           text not null,
  -- Where the request came from, as the HTTP layer saw it (trusted proxies resolved), and
  -- its User-Agent, cut to 200 characters.
  client_address text,
  user_agent     text check (length(user_agent) <= 200),
  detail         jsonb not null default '{}' check (jsonb_typeof(detail) = 'object'),
  primary key (user_id, id)
);
-- Pages newest first, and the sweep of events past the retention, per account.
create index security_events_user_time_idx on auth.security_events (user_id, occurred_at);
comment on table auth.security_events is
  'Security events per account, kept liftbase.security_log_retention (180 days unless set); swept as events are written.';

-- Password reset and change take the client's address and agent for the log: their
-- arguments change.
drop function if exists auth.password_reset(text, text);
drop function if exists auth.password_change(text, text, text);

-- reporting.security_events reads the log (sql/functions/reporting_views.sql).
grant select on auth.security_events to liftbase_reporting_owner;
