-- Rate limits of the sensitive routes (sign-up, login, password reset): counted here, in
-- the route's own statement, so that every server of a deployment shares them and a restart
-- keeps them. The policies and their defaults are auth.rate_limit's
-- (sql/functions/auth_rate_limits.sql); docs/security.md says what each protects.

-- One row per policy and what it counts (an address, an email), for the window it is in.
-- The key is a hash: the table keeps no address or email in clear.
create table auth.rate_counts (
  policy       text not null,
  key_hash     bytea not null check (length(key_hash) = 32),
  window_start timestamptz not null,
  hits         integer not null check (hits > 0),
  primary key (policy, key_hash)
);
-- The sweep of lapsed windows (auth.spend_rate_budgets) reads them oldest first.
create index rate_counts_window_idx on auth.rate_counts (policy, window_start);
comment on table auth.rate_counts is
  'Requests counted per rate-limit policy and key hash in the current window; lapsed rows are swept as requests come.';

-- A bad reset token is answered rather than raised (so that its rate-limit count stays):
-- the function now returns the answer, and a function's result type is not replaced.
drop function if exists auth.password_reset(text, text);
