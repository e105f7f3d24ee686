-- A wrong password given to change the password or delete the account is answered and
-- counted towards the account's login lockout (auth.password_refusal), no longer raised:
-- the two functions now return the answer, and a function's result type is not replaced.
drop function if exists auth.password_change(text, text, text, jsonb);
drop function if exists auth.delete_current_account(text);
