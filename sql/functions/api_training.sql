-- /training/*: workout sessions, templates and the weekly summary.

-- POST /training/sessions. Repeating a create with the same client_id returns the first
-- session (200, app.replayed_key) instead of a duplicate.
create or replace function api.sessions_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_id uuid := app.replayed_key('app.training_sessions', v_user_id, v_body);
begin
  if v_id is null then
    -- Two statements: the read must see what the write did (a stable function called in
    -- the same statement would read the snapshot from before it).
    v_id := app.save_session(v_user_id, null, v_body);
  end if;
  return app.session_json(app.find_session(v_user_id, jsonb_build_object('id', v_id)));
end
$$;

-- The hottest read of a training app: one index scan, totals kept on the session rows.
create or replace function api.sessions_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
-- A page is the first rows of an ordered scan of the user's sessions by date. The cached plan
-- is made for a user of a dozen sessions, for whom reading them all by bitmap and sorting
-- costs the same; for a user of a thousand it read and sorted every one (91_plans_under_skew).
set enable_bitmapscan = off
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_page record := app.page_parameters(p_args, 'uuid');
  v_limit integer := v_page.page_size;
  v_cursor uuid := v_page.cursor_uuid;
  v_range record := app.date_range_parameter(p_args);
  v_from date := v_range.from_date;
  v_to date := v_range.to_date;
begin
  if v_cursor is not null
     and not exists (select from app.training_sessions as c where c.user_id = v_user_id and c.id = v_cursor) then
    perform app.raise_unknown_cursor();
  end if;
  return app.page(coalesce((
    select jsonb_agg(jsonb_build_object(
             'id', s.id, 'session_date', s.session_date, 'name', s.name, 'status', s.status,
             'started_at', s.started_at, 'finished_at', s.finished_at, 'exercise_count', s.exercise_count,
             'set_count', s.set_count, 'working_sets', s.working_sets, 'volume_kg', s.volume_kg)
             order by s.session_date desc, s.created_at desc, s.id desc)
      from (select * from app.training_sessions as t
             where t.user_id = v_user_id
               and (v_from is null or t.session_date >= v_from)
               and (v_to is null or t.session_date <= v_to)
               and (v_cursor is null or (t.session_date, t.created_at, t.id) < (
                     select c.session_date, c.created_at, c.id from app.training_sessions as c
                      where c.user_id = v_user_id and c.id = v_cursor))
             order by t.session_date desc, t.created_at desc, t.id desc
             limit v_limit + 1) as s), '[]'), v_limit);
end
$$;

create or replace function api.session_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_session app.training_sessions;
begin
  v_session := app.find_session(v_user_id, p_args);
  if app.entity_not_modified(v_user_id, 'session', v_session.id::text, p_args) then
    return null;
  end if;
  return app.session_json(v_session);
end
$$;

-- PUT: replaces the session's fields and exercises.
create or replace function api.session_replace(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_session app.training_sessions := app.find_session(v_user_id, p_args);
begin
  perform app.check_if_match(v_user_id, 'session', v_session.id::text, p_args);
  perform app.save_session(v_user_id, v_session.id, coalesce(p_body, '{}'));
  return app.session_json(app.find_session(v_user_id, p_args));
end
$$;

-- PATCH {status?, name?, notes?, finished_at?}: finishing checks the completed-session rules.
create or replace function api.session_update(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_session app.training_sessions := app.find_session(v_user_id, p_args);
  v_body jsonb := coalesce(p_body, '{}');
  -- The body's values are read before the update: Citus refuses calls that are not
  -- immutable inside a write's coalesce or case; the columns stay the fallback.
  v_status text := app.read_text(v_body, 'status');
  v_name text := app.read_text(v_body, 'name');
  v_notes text := app.read_text(v_body, 'notes');
  v_finished_at timestamptz := app.read_timestamp(v_body, 'finished_at');
  v_now timestamptz := now();
begin
  perform app.check_if_match(v_user_id, 'session', v_session.id::text, p_args);
  perform app.raise_if_invalid(jsonb_build_object(
    'status', app.field_problem(v_body, 'status', 'app.session_status', false),
    'name', app.field_problem(v_body, 'name', 'app.session_name', false),
    'notes', app.field_problem(v_body, 'notes', 'app.short_text', false),
    'finished_at', app.field_problem(v_body, 'finished_at', 'app.timestamp_value', false)));
  if v_body ->> 'status' = 'in_progress' and v_session.status <> 'in_progress' then
    perform app.raise_if_session_in_progress(v_user_id);
  end if;
  if v_body ->> 'status' = 'completed' and v_session.status <> 'completed'
     and not app.session_is_complete(v_user_id, v_session.id) then
    perform app.raise_if_invalid(app.session_problems(v_user_id, app.session_json(v_session) || '{"status": "completed"}'));
  end if;
  update app.training_sessions
     set status = coalesce(v_status, status),
         name = case when v_body ? 'name' then v_name else name end,
         notes = case when v_body ? 'notes' then v_notes else notes end,
         finished_at = case when v_status = 'completed' and status <> 'completed'
                            then coalesce(v_finished_at, finished_at, v_now)
                            else coalesce(v_finished_at, finished_at) end,
         updated_at = v_now
   where user_id = v_user_id and id = v_session.id;
  return app.session_json(app.find_session(v_user_id, p_args));
end
$$;

create or replace function api.session_delete(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_session app.training_sessions := app.find_session(v_user_id, p_args);
begin
  perform app.check_if_match(v_user_id, 'session', v_session.id::text, p_args);
  delete from app.training_sessions where user_id = v_user_id and id = v_session.id;
  return null;
end
$$;

-- POST /training/sessions/{id}/duplicate: a completed copy dated today (the user's today).
create or replace function api.session_duplicate(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_source jsonb := app.session_json(app.find_session(v_user_id, p_args));
  v_id uuid;
begin
  v_id := app.save_session(v_user_id, null,
    jsonb_build_object('session_date', app.user_today(v_user_id), 'name', v_source -> 'name', 'notes', v_source -> 'notes',
                       'status', 'completed', 'exercises', v_source -> 'exercises'));
  return app.session_json(app.find_session(v_user_id, jsonb_build_object('id', v_id)));
end
$$;

-- The latest completed session, for "copy last workout".
create or replace function api.session_last(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_session app.training_sessions;
begin
  select s.* into v_session from app.training_sessions as s
   where s.user_id = v_user_id and s.status = 'completed'
   order by s.session_date desc, s.created_at desc, s.id desc
   limit 1;
  if v_session.id is null then
    perform app.raise_error(404, 'session_not_found', 'No completed session yet.');
  end if;
  return app.session_json(v_session);
end
$$;

-- The resumable session with its resume_timestamp (when it was last changed), or null.
create or replace function api.session_in_progress(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_session app.training_sessions;
begin
  -- The row is read first and the answer built by the next statement: on Citus a call of
  -- app.session_json inside the read would run on the worker, whose own reads from there
  -- fail inside the request's transaction.
  select s.* into v_session from app.training_sessions as s
   where s.user_id = v_user_id and s.status = 'in_progress';
  if v_session.id is null then
    return 'null'::jsonb;
  end if;
  return app.session_json(v_session) || jsonb_build_object('resume_timestamp', v_session.updated_at);
end
$$;

-- GET /training/summary/weekly?week_start=: completed sessions of the 7 days from
-- week_start (session dates are the user's local dates), app.weekly_summary.
create or replace function api.weekly_summary(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_start date := app.date_parameter(p_args, 'week_start', true);
begin
  return app.weekly_summary(v_user_id, v_start);
end
$$;

create or replace function api.templates_list(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
begin
  perform auth.authenticate(p_token);
  return app.page_of_list(coalesce((select jsonb_agg(app.template_json(row(t.*)::app.templates) order by t.id)
                                       from app.templates as t), '[]'),
                          p_args);
end
$$;

create or replace function api.template_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_template app.templates;
begin
  perform auth.authenticate(p_token);
  select t.* into v_template from app.templates as t where t.id = p_args ->> 'id';
  if v_template.id is null then
    perform app.raise_error(404, 'template_not_found', 'No such template.');
  end if;
  return app.template_json(v_template);
end
$$;
