-- A disabled account has no session: disabling ends them (as `liftbase user disable` did
-- by hand), and none can be started for it. auth.authenticate then finds a request's user
-- from the session alone, without reading the account: one indexed read per request
-- instead of two (docs/benchmarks.md). Both rules are triggers, so that no path (a
-- function, an operator's UPDATE) can leave a disabled account a working token.

-- The bodies are auth_sessions.sql's (the functions are applied after the migrations).
create function auth.end_sessions_of_disabled_account() returns trigger
language plpgsql
as $$
begin
  return null;
end
$$;
create function auth.refuse_session_of_disabled_account() returns trigger
language plpgsql
as $$
begin
  return new;
end
$$;

create trigger users_end_sessions_when_disabled after update of disabled_at on auth.users
  for each row when (new.disabled_at is not null)
  execute function auth.end_sessions_of_disabled_account();
create trigger sessions_of_enabled_accounts before insert on auth.sessions
  for each row execute function auth.refuse_session_of_disabled_account();

-- Until now a session of a disabled account was refused when used; from here on there is none.
delete from auth.sessions as s using auth.users as u where u.id = s.user_id and u.disabled_at is not null;
