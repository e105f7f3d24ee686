-- Every sign-in is logged and answered by one function, auth.sign_in
-- (sql/functions/auth_refresh_tokens.sql); the answer alone is no longer a function.
drop function if exists auth.session_answer(auth.users, boolean);
