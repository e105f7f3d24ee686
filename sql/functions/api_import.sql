-- POST /import/{strong|hevy|fitnotes|cronometer|myfitnesspal|liftbase}?dry_run=: each authenticates and runs
-- app.import_run (app_import.sql), which records the run and shapes the answer.

create or replace function api.import_strong(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return app.import_run(v_user_id, 'strong', p_body, p_args);
end
$$;

create or replace function api.import_hevy(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return app.import_run(v_user_id, 'hevy', p_body, p_args);
end
$$;

create or replace function api.import_fitnotes(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return app.import_run(v_user_id, 'fitnotes', p_body, p_args);
end
$$;

create or replace function api.import_cronometer(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return app.import_run(v_user_id, 'cronometer', p_body, p_args);
end
$$;

create or replace function api.import_myfitnesspal(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return app.import_run(v_user_id, 'myfitnesspal', p_body, p_args);
end
$$;

create or replace function api.import_liftbase(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid;
begin
  v_user_id := auth.authenticate(p_token);
  return app.import_run(v_user_id, 'liftbase', p_body, p_args);
end
$$;
