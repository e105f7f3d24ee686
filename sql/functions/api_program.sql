-- /program/*: create a program, where it stands, the next session, log and skip.

-- POST /program: a new active program (the previous one ends).
create or replace function api.program_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_id uuid;
  v_client_id uuid;
  v_replayed text;
begin
  v_replayed := app.replayed_key('app.programs', v_user_id, v_body);
  if v_replayed is not null then
    return app.program_json(v_user_id, (select row(p.*)::app.programs from app.programs as p
                                         where p.user_id = v_user_id and p.id = v_replayed::uuid));
  end if;
  perform app.raise_if_invalid(app.program_problems(v_body));
  v_id := app.create_program(v_user_id, v_body);
  -- Read before the update: Citus sends no write holding a stable call in a CASE.
  v_client_id := app.read_uuid(v_body, 'client_id');
  update app.programs set client_id = v_client_id where user_id = v_user_id and id = v_id;
  return app.program_json(v_user_id, (select row(p.*)::app.programs from app.programs as p
                                       where p.user_id = v_user_id and p.id = v_id));
end
$$;

-- GET /program
create or replace function api.program_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_program app.programs;
begin
  v_program := app.find_active_program(v_user_id);
  if app.entity_not_modified(v_user_id, 'program', v_program.id::text, p_args) then
    return null;
  end if;
  return app.program_json(v_user_id, v_program);
end
$$;

-- GET /program/next?mode=normal|short_on_time. The mode is recorded on that session only
-- (with the sets short_on_time dropped); the sessions after it stay normal.
create or replace function api.program_next(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_mode text := coalesce(p_args ->> 'mode', 'normal');
  v_program app.programs;
  v_session app.program_sessions;
  v_next jsonb;
begin
  if v_mode not in ('normal', 'short_on_time') then
    perform app.raise_parameter_problem('mode', 'must be normal or short_on_time');
  end if;
  v_program := app.find_active_program(v_user_id);
  v_session := app.next_program_session(v_user_id, v_program.id);
  if v_session.id is null then
    perform app.raise_error(404, 'program_finished', 'Every session of the program is done: create a new program.');
  end if;
  if v_session.mode <> v_mode then
    -- A GET that records the mode: a read-only API key may not (auth_api_keys.sql).
    perform auth.writable_token(p_token);
    update app.program_sessions set mode = v_mode, dropped_sets = '[]'
     where user_id = v_user_id and id = v_session.id;
    v_session.mode := v_mode;
  end if;
  v_next := app.program_session_json(v_user_id, v_session);
  if v_mode = 'short_on_time' and v_session.dropped_sets is distinct from v_next -> 'dropped_sets' then
    perform auth.writable_token(p_token);
    update app.program_sessions set dropped_sets = v_next -> 'dropped_sets'
     where user_id = v_user_id and id = v_session.id;
  end if;
  return v_next;
end
$$;

-- POST /program/sessions/{id}/log: the actual sets (the body of POST /training/sessions,
-- written by the same writer) → the logged session, its warnings, and the next targets.
create or replace function api.program_session_log(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_session app.program_sessions := app.find_open_program_session(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
  v_goal text;
  v_training_id uuid;
  v_next app.program_sessions;
begin
  select p.goal into v_goal from app.programs as p where p.user_id = v_user_id and p.id = v_session.program_id;
  if app.replayed_key('app.training_sessions', v_user_id, v_body) is not null then
    -- The body's client_id names a session logged before: a planned session is logged into
    -- a session of its own.
    perform app.raise_error(409, 'conflict', 'client_id names a session logged before.');
  end if;
  v_training_id := app.save_session(v_user_id, null,
    jsonb_build_object('name', (select string_agg(t.name, ' + ' order by o.n)
                                  from unnest(v_session.templates) with ordinality as o (id, n)
                                  join app.templates as t on t.id = o.id))
    || v_body || '{"status": "completed"}');
  update app.program_sessions set status = 'completed', training_session_id = v_training_id, done_at = now()
   where user_id = v_user_id and id = v_session.id;
  perform app.apply_program_log(v_user_id, v_session, v_training_id);
  v_next := app.next_program_session(v_user_id, v_session.program_id);
  return jsonb_build_object(
    'program_session_id', v_session.id,
    'session', app.session_json(app.find_session(v_user_id, jsonb_build_object('id', v_training_id))),
    'warnings', app.sessions_warnings(v_user_id, v_goal, array[v_training_id]),
    'next', case when v_next.id is null then null else app.program_session_json(v_user_id, v_next) end);
end
$$;

-- POST /program/sessions/{id}/skip {combine?}: see app.skip_program_session for the rule.
-- Answers with the next session as it now stands.
create or replace function api.program_session_skip(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_session app.program_sessions := app.find_open_program_session(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
  v_next app.program_sessions;
begin
  perform app.raise_if_invalid(jsonb_build_object('combine', app.field_problem(v_body, 'combine', 'boolean', false)));
  perform app.skip_program_session(v_user_id, v_session, coalesce(app.read_boolean(v_body, 'combine'), false));
  v_next := app.next_program_session(v_user_id, v_session.program_id);
  return jsonb_build_object(
    'skipped_session_id', v_session.id,
    'outcome', (select case s.status when 'combined' then 'combined' else 'shifted' end
                  from app.program_sessions as s where s.user_id = v_user_id and s.id = v_session.id),
    'next', case when v_next.id is null then null else app.program_session_json(v_user_id, v_next) end);
end
$$;
