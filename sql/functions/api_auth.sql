-- Accounts and auth endpoints. Every api function has the same signature:
--   (p_token text, p_body jsonb, p_args jsonb) returns jsonb
-- p_token is the bearer token or null, p_body the request body, p_args the path and
-- query parameters as a JSON object of strings. The HTTP layer calls exactly one of them
-- per request, in one statement.
--
-- Functions that need a user call auth.authenticate() in a statement of its own, before
-- any query reads user-owned rows: row-level security evaluates the request's user once
-- per statement, before a function called within that same statement could have set it
-- (sql/tests/00_catalog.sql checks this).

create or replace function api.auth_register(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language sql
as $$ select auth.register(p_body ->> 'email', p_body ->> 'password', p_body ->> 'display_name') $$;

create or replace function api.auth_login(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language sql
as $$ select auth.login(p_body ->> 'email', p_body ->> 'password') $$;

create or replace function api.auth_logout(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
begin
  perform auth.logout(p_token);
  return null;
end
$$;

create or replace function api.auth_password_forgot(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
begin
  perform auth.password_forgot(p_body ->> 'email');
  return null;
end
$$;

create or replace function api.auth_password_reset(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
begin
  perform auth.password_reset(p_body ->> 'token', p_body ->> 'new_password');
  return null;
end
$$;

create or replace function api.auth_password_change(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
begin
  perform auth.password_change(p_token, p_body ->> 'current_password', p_body ->> 'new_password');
  return null;
end
$$;
