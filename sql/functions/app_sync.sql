-- Versions, conditional requests and the change feed (docs/sync.md).
--
-- Every entity's version is one number: the user's change counter at the entity's latest
-- write, kept in app.sync_changes by the triggers of migration 0045. Its ETag is that
-- number in quotes. The HTTP layer copies the If-None-Match and If-Match request headers
-- verbatim into the arguments as if_none_match and if_match.

-- How far in the future a client's clock may put the time of an event (a weigh-in's
-- recorded_at, a session's start and end): clocks of phones drift; a time later than this
-- is a mistake, not drift.
create or replace function app.clock_skew()
returns interval
language sql
immutable
as $$ select interval '5 minutes' $$;

-- The 422 problem of a client-given event time beyond now plus the clock skew, or null.
create or replace function app.future_time_problem(p_body jsonb, p_field text)
returns text
language sql
stable
as $$
  select case when app.input_problem(p_body -> p_field, 'timestamp') is null
                   and app.read_timestamp(p_body, p_field) > now() + app.clock_skew()
              then 'must not be later than now (5 minutes of clock skew allowed)' end
$$;

-- The version of one entity of the user, or null when it has none (never written, or gone).
-- PL/pgSQL, not SQL: a SQL function that reads a table is never inlined and plans its
-- statement again in every statement that calls it, where PL/pgSQL keeps the plan; and
-- Citus cannot plan a SQL function's statement with parameters (docs/scaling.md).
create or replace function app.entity_version(p_user_id uuid, p_entity text, p_id text)
returns bigint
language plpgsql
stable
as $$
begin
  return (
    select c.seq from app.sync_changes as c
     where c.user_id = p_user_id and c.entity = p_entity and c.entity_id = p_id and c.op = 'upsert'
  );
end
$$;

-- The user's change counter: the version of everything the user owns, for the answers that
-- show many entities at once (GET /me, GET /nutrition/daily).
-- PL/pgSQL so that GET /me and /nutrition/daily plan it once per connection.
create or replace function app.user_version(p_user_id uuid)
returns bigint
language plpgsql
stable
as $$
begin
  return coalesce((select s.last_seq from app.sync_state as s where s.user_id = p_user_id), 0);
end
$$;

-- The entity tags of an If-None-Match or If-Match header ('*' stays '*'), each as its
-- quoted opaque tag (a weak W/ prefix dropped: GET compares weakly, and Liftbase hands out
-- only strong tags). Null when the header is absent; a value that is not a list of entity
-- tags is a 400 naming it.
create or replace function app.entity_tags(p_args jsonb, p_name text)
returns text[]
language plpgsql
immutable
as $$
declare
  v_header text := btrim(p_args ->> p_name);
begin
  if v_header is null then
    return null;
  end if;
  if v_header = '*' then
    return array['*'];
  end if;
  if v_header !~ '^(W/)?"[\x21\x23-\x7e]*"(\s*,\s*(W/)?"[\x21\x23-\x7e]*")*$' then
    perform app.raise_parameter_problem(p_name, 'must be an entity tag ("<version>") or a list of them');
  end if;
  return array(select m[1] from regexp_matches(v_header, '(?:W/)?("[^"]*")', 'g') as m);
end
$$;

-- The ETag of a version.
create or replace function app.etag(p_version text)
returns text
language sql
immutable
as $$ select '"' || p_version || '"' $$;

-- A GET's conditional answer: sets the ETag header of p_tag, and answers true (with status
-- 304, and the caller answers no body) when If-None-Match names it or is '*'. Every
-- conditional GET passes here: the header is set by an assignment (evaluated without
-- starting the executor, which PERFORM starts), and the If-None-Match header is parsed
-- only when the request has one.
create or replace function app.not_modified(p_args jsonb, p_tag text)
returns boolean
language plpgsql
as $$
declare
  v_tags text[];
  v_headers text;
begin
  if p_args ? 'if_none_match' then
    v_tags := app.entity_tags(p_args, 'if_none_match');
  end if;
  if p_tag is null then
    return false;
  end if;
  v_headers := app.with_response_header('ETag', p_tag);
  if p_tag = any (v_tags) or '*' = any (v_tags) then
    perform app.set_response_status(304);
    return true;
  end if;
  return false;
end
$$;

-- The same for one entity: its version is the tag.
create or replace function app.entity_not_modified(p_user_id uuid, p_entity text, p_id text, p_args jsonb)
returns boolean
language sql
as $$ select app.not_modified(p_args, app.etag(app.entity_version(p_user_id, p_entity, p_id)::text)) $$;

-- A write's precondition: with If-Match, the entity's current version must be one it
-- names ('*': any), else 412 precondition_failed with the current version and nothing is
-- written. The entity's version row is locked until the transaction ends, so a concurrent
-- writer that checked the same version waits and then fails the check (it reads the
-- version this write gives). Call it before writing.
-- It runs as the caller (the API role may lock its own version rows): on Citus each role
-- has its own connections to a worker, and a lock taken as another role would be held by
-- another connection of the same transaction, which the write's change-log trigger then
-- waits for (a distributed deadlock of the transaction with itself).
create or replace function app.check_if_match(p_user_id uuid, p_entity text, p_id text, p_args jsonb)
returns void
language plpgsql
security invoker
set search_path = pg_catalog, pg_temp
as $$
declare
  v_tags text[] := app.entity_tags(p_args, 'if_match');
  v_version bigint;
begin
  if v_tags is null then
    return;
  end if;
  select c.seq into v_version from app.sync_changes as c
   where c.user_id = p_user_id and c.entity = p_entity and c.entity_id = p_id and c.op = 'upsert'
     for update;
  if '*' = any (v_tags) and v_version is not null then
    return;
  end if;
  if v_version is null or not app.etag(v_version::text) = any (v_tags) then
    perform app.raise_error_with(412, 'precondition_failed',
      'The entity changed since the version If-Match names: read it again.',
      jsonb_build_object('version', v_version, 'etag', app.etag(v_version::text)));
  end if;
end
$$;

-- After a write: the ETag of the entity's new version.
create or replace function app.set_entity_etag(p_user_id uuid, p_entity text, p_id text)
returns void
language sql
as $$ select app.set_response_header('ETag', app.etag(app.entity_version(p_user_id, p_entity, p_id)::text))
       where app.entity_version(p_user_id, p_entity, p_id) is not null $$;

-- The answer of one entity's own GET (or of the list that shows it, for entities without
-- one), as the change feed gives it; null when it is gone. Each entity is read by its key:
-- a weigh-in's or a health metric's id is compared as a number (the feed holds it as text),
-- since comparing the column as text would read every weigh-in of the user for each one.
create or replace function app.sync_entity_json(p_user_id uuid, p_entity text, p_id text)
returns jsonb
language plpgsql
stable
as $$
declare
  v_args jsonb := jsonb_build_object('id', p_id);
  v_session app.training_sessions;
  v_meal app.custom_meals;
  v_plan app.plans;
  v_program app.programs;
  v_food_id uuid;
begin
  -- The entities whose answer reads other tables are read first and built by a call of
  -- their own: on Citus a function that reads tables, called inside a statement sent to
  -- the user's worker, would plan its reads there, inside the coordinator's transaction.
  if p_entity = 'session' then
    select s.* into v_session from app.training_sessions as s
     where s.user_id = p_user_id and s.id = app.id_parameter(v_args);
    return case when v_session.id is not null then app.session_json(v_session) end;
  elsif p_entity = 'custom_meal' then
    select m.* into v_meal from app.custom_meals as m where m.user_id = p_user_id and m.id = app.id_parameter(v_args);
    return case when v_meal.id is not null then app.custom_meal_json(v_meal) end;
  elsif p_entity = 'plan' then
    select p.* into v_plan from app.plans as p where p.user_id = p_user_id and p.id = app.id_parameter(v_args);
    return case when v_plan.id is not null then app.plan_json(v_plan, true) end;
  elsif p_entity = 'program' then
    select p.* into v_program from app.programs as p where p.user_id = p_user_id and p.id = app.id_parameter(v_args);
    return case when v_program.id is not null then app.program_json(p_user_id, v_program) end;
  elsif p_entity = 'own_food' then
    select f.id into v_food_id from app.user_foods as f where f.user_id = p_user_id and f.id = app.id_parameter(v_args);
    return case when v_food_id is not null then app.food_json(p_user_id, v_food_id) end;
  end if;
  return case p_entity
    when 'diary_entry' then (select app.entry_json(row(e.*)::app.food_entries) from app.food_entries as e
                              where e.user_id = p_user_id and e.id = app.id_parameter(v_args))
    when 'favorite' then (select app.favorite_json(row(f.*)::app.favorites) from app.favorites as f
                           where f.user_id = p_user_id and f.id = app.id_parameter(v_args))
    when 'own_exercise' then (select app.user_exercise_json(row(x.*)::app.user_exercises) from app.user_exercises as x
                               where x.user_id = p_user_id and x.id = app.id_parameter(v_args))
    when 'body_metric' then (select app.body_metric_json(row(b.*)::app.body_metrics) from app.body_metrics as b
                              where b.user_id = p_user_id and b.id = p_id::bigint)
    when 'measurement' then (select app.measurement_json(row(b.*)::app.body_measurements) from app.body_measurements as b
                              where b.user_id = p_user_id and b.id = p_id::bigint)
    when 'water_entry' then (select app.water_entry_json(row(w.*)::app.water_entries) from app.water_entries as w
                              where w.user_id = p_user_id and w.id = p_id::bigint)
    when 'progress_photo' then (select app.photo_json(row(p.*)::app.progress_photos) from app.progress_photos as p
                                 where p.user_id = p_user_id and p.id = p_id::bigint)
    when 'measurement_type' then (select app.measurement_type_json(row(t.*)::app.measurement_types)
                                    from app.measurement_types as t
                                   where t.user_id = p_user_id and t.id = app.id_parameter(v_args))
    when 'health_metric' then (select app.metrics_json(row(h.*)::app.health_metrics) from app.health_metrics as h
                                where h.user_id = p_user_id and h.id = p_id::bigint)
    when 'goal' then app.goal_json(p_user_id)
    when 'profile' then app.profile_json(p_user_id)
    when 'targets' then app.effective_targets(p_user_id)
    when 'settings' then app.settings_json(p_user_id)
    when 'equipment' then app.equipment_json(p_user_id)
    when 'exclusions' then (select jsonb_build_object('exercise_ids', to_jsonb(x.exercise_ids),
                                                      'muscles', to_jsonb(x.muscles::text[]))
                              from app.user_exclusions as x where x.user_id = p_user_id)
  end;
end
$$;

-- A page of the user's change feed after version p_after (0: from the start, the user's
-- current state), in version order: {changes: [{entity, id, op, version, data}],
-- next_cursor, has_more}. Reads one snapshot; why it cannot skip a change: migration 0045.
-- PL/pgSQL, not SQL: a SQL function that reads a table is never inlined and plans its
-- statement again in every statement that calls it, where PL/pgSQL keeps the plan; and
-- Citus cannot plan a SQL function's statement with parameters (docs/scaling.md).
-- The page is read first, then each change's entity is built from it: on Citus the read
-- goes to the user's worker and each entity's read is its own statement from the
-- coordinator (a function reading other tables inside a statement sent to a worker would
-- have that worker plan distributed reads, inside the coordinator's transaction).
create or replace function app.sync_page(p_user_id uuid, p_after bigint, p_limit integer)
returns jsonb
language plpgsql
stable
as $$
declare
  v_page app.sync_changes[];
begin
  select array_agg(row(c.*)::app.sync_changes order by c.seq) into v_page
    from (select c.* from app.sync_changes as c
           where c.user_id = p_user_id and c.seq > p_after
             -- From the start, a tombstone names nothing the client has: left out.
             and (p_after > 0 or c.op = 'upsert')
           order by c.seq
           limit p_limit + 1) as c;
  return (
    select jsonb_build_object(
      'changes', coalesce(jsonb_agg(jsonb_build_object(
                   'entity', p.entity, 'id', p.entity_id, 'op', p.op, 'version', p.seq,
                   'data', case when p.op = 'upsert' then app.sync_entity_json(p_user_id, p.entity, p.entity_id) end)
                   order by p.seq) filter (where p.n <= p_limit), '[]'),
      'next_cursor', coalesce(max(p.seq) filter (where p.n <= p_limit), p_after)::text,
      'has_more', count(*) > p_limit)
      from (select u.*, row_number() over (order by u.seq) as n from unnest(v_page) as u) as p
  );
end
$$;

grant execute on function
  app.clock_skew(),
  app.future_time_problem(jsonb, text),
  app.entity_version(uuid, text, text),
  app.user_version(uuid),
  app.entity_tags(jsonb, text),
  app.etag(text),
  app.not_modified(jsonb, text),
  app.entity_not_modified(uuid, text, text, jsonb),
  app.check_if_match(uuid, text, text, jsonb),
  app.set_entity_etag(uuid, text, text),
  app.sync_entity_json(uuid, text, text),
  app.sync_page(uuid, bigint, integer)
to liftbase_api;

-- How long a tombstone stays: a device offline for longer starts over (410 cursor_expired).
create or replace function app.sync_tombstone_retention()
returns interval
language sql
immutable
as $$ select interval '90 days' $$;

-- Removes tombstones older than p_older_than (default: the retention) and moves each
-- user's prune horizon up to the newest one removed; returns how many went. For the
-- operator's cron, as the owner (it acts as each user in turn: row-level security).
create or replace function app.prune_sync_tombstones(p_older_than interval default null)
returns bigint
language plpgsql
as $$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_user_id uuid;
  v_pruned bigint;
  v_count bigint;
  v_total bigint := 0;
begin
  for v_user_id in select u.id from auth.users as u order by u.id loop
    perform auth.act_as(v_user_id);
    with gone as (
      delete from app.sync_changes as c
       where c.user_id = v_user_id and c.op = 'delete'
         and c.changed_at < now() - coalesce(p_older_than, app.sync_tombstone_retention())
      returning c.seq)
    select max(g.seq), count(*) into v_pruned, v_count from gone as g;
    if v_count > 0 then
      update app.sync_state as s set pruned_seq = greatest(s.pruned_seq, v_pruned) where s.user_id = v_user_id;
      v_total := v_total + v_count;
    end if;
  end loop;
  perform auth.act_as(nullif(v_acting, '')::uuid);
  return v_total;
end
$$;

-- Records a change of p_entity p_id (op 'upsert' or 'delete') for p_user_id: gives the
-- entity the user's next version (bumping the counter, whose row stays locked to commit), as
-- that user (row-level security); then names it in liftbase.sync_last, so that the
-- triggers' WHEN clauses skip the entity's later rows in the request (docs/sync.md).
--
-- Every update of the counter's row leaves a version of the row that the transaction keeps
-- until it ends, and the next update walks past all of them: a statement that records
-- thousands of entities (an import) made each record slower than the one before (3,200
-- workouts: 12,804 bumps, the last at 0.28 ms; 20,000 diary entries: 0.38 ms on average;
-- docs/imports.md, "Performance"). So, within one statement:
-- * An entity is recorded once. liftbase.sync_last catches the rows of the entity recorded
--   last; an import comes back to each session after the others (its exercises, its sets,
--   its totals). An entity whose row has the statement's first version or a later one, with
--   the same op, was recorded by this statement (the counter's row lock, held since that
--   first version, lets no other transaction hand out a version of the user in between).
-- * The first 64 versions bump the counter by one each, so that a request's counter is its
--   latest version; beyond them the statement reserves as many again as it has used, so a
--   statement of n entities updates the row about 64 + log2(n / 64) times. The counter then
--   stays above the statement's latest version by what it did not use: versions are only
--   ever compared, and each is still handed out under the lock.
-- liftbase.sync_statement holds the user, the statement, its first version, the next
-- version to hand out and the highest it reserved.
create or replace function app.record_sync_change(p_user_id uuid, p_entity text, p_id text, p_op text)
returns void
language plpgsql
as $fn$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_other_user boolean := v_acting is distinct from p_user_id::text;
  v_statement text := p_user_id::text || '/' || statement_timestamp() || '/';
  v_recorded text := coalesce(current_setting('liftbase.sync_statement', true), '');
  v_first bigint;
  v_seq bigint;
  v_reserved bigint;
  v_step bigint := 1;
  v_seen_seq bigint;
  v_seen_op text;
begin
  if v_other_user then
    perform auth.act_as(p_user_id);
  elsif starts_with(v_recorded, v_statement) then
    v_recorded := substr(v_recorded, length(v_statement) + 1);
    v_first := split_part(v_recorded, '/', 1)::bigint;
    v_seq := split_part(v_recorded, '/', 2)::bigint;
    v_reserved := split_part(v_recorded, '/', 3)::bigint;
    -- The entity's row by its primary key, the statement's versions compared here: asked
    -- with seq >= v_first in the query, a planner that knows nothing of the table yet (a new
    -- database's first big import) takes the (user_id, seq) index and walks every row the
    -- statement wrote, once per row (50,000 servings: 126 s instead of 6 s).
    select c.seq, c.op into v_seen_seq, v_seen_op
      from app.sync_changes as c
     where c.user_id = p_user_id and c.entity = p_entity and c.entity_id = p_id;
    if v_seen_op = p_op and v_seen_seq >= v_first then
      perform set_config('liftbase.sync_last',
                         p_entity || '/' || p_id || '/' || p_op || '/' || statement_timestamp(), true);
      return;
    end if;
  end if;
  if v_seq is null or v_seq > v_reserved then
    if v_seq - v_first >= 64 then
      v_step := v_seq - v_first;
    end if;
    -- An update first: the user's row is there but for a first write, and a plain update
    -- is cheaper than an upsert's speculative insert.
    update app.sync_state as s set last_seq = s.last_seq + v_step where s.user_id = p_user_id
    returning s.last_seq into v_reserved;
    if v_reserved is null then
      insert into app.sync_state as s (user_id, last_seq) values (p_user_id, v_step)
      on conflict (user_id) do update set last_seq = s.last_seq + v_step
      returning s.last_seq into v_reserved;
    end if;
    v_seq := v_reserved - v_step + 1;
  end if;
  insert into app.sync_changes as c (user_id, entity, entity_id, seq, op, changed_at)
  values (p_user_id, p_entity, p_id, v_seq, p_op, now())
  on conflict (user_id, entity, entity_id) do update
    set seq = excluded.seq, op = excluded.op, changed_at = excluded.changed_at;
  perform set_config('liftbase.sync_last',
                     p_entity || '/' || p_id || '/' || p_op || '/' || statement_timestamp(), true);
  if v_other_user then
    perform auth.act_as(nullif(v_acting, '')::uuid);
  else
    perform set_config('liftbase.sync_statement',
                       v_statement || coalesce(v_first, v_seq) || '/' || (v_seq + 1) || '/' || v_reserved, true);
  end if;
end
$fn$;

-- The row trigger of every table holding an entity or a part of one (migration 0047 made
-- the triggers). Arguments: the entity and the column naming its id in this table ('' for
-- an entity a user has one of: goal, settings...; its id is the user's; 'id' for the
-- entity's own table). The WHEN clauses of the triggers already skipped what this
-- transaction recorded.
create or replace function app.track_sync_change() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $fn$
declare
  v_entity text := tg_argv[0];
  v_column text := tg_argv[1];
  v_row record;
  v_id text;
  v_last text;
begin
  if tg_op = 'DELETE' then
    v_row := old;
  else
    v_row := new;
  end if;
  -- Static branches: a row's field is read by name, no JSON (each table takes one). Each
  -- table has only its own branch's column, so plpgsql_check, which checks every branch
  -- against the trigger's table, skips these (the pragma costs about a microsecond).
  perform 'PRAGMA:disable:check';
  if v_column = '' then
    v_id := v_row.user_id::text;
  elsif v_column = 'id' then
    v_id := v_row.id::text;
  elsif v_column = 'session_id' then
    v_id := v_row.session_id::text;
  elsif v_column = 'meal_id' then
    v_id := v_row.meal_id::text;
  elsif v_column = 'plan_id' then
    v_id := v_row.plan_id::text;
  elsif v_column = 'program_id' then
    v_id := v_row.program_id::text;
  elsif v_column = 'health_metric_id' then
    v_id := v_row.health_metric_id::text;
  else
    raise exception 'app.track_sync_change: unknown id column %', v_column;
  end if;
  perform 'PRAGMA:enable:check';
  -- WHEN clauses are evaluated as each row is written, before any of the statement's
  -- triggers ran: a statement writing several rows of one entity (the sets of a session)
  -- reaches here once per row, and all but the first stop at this comparison.
  -- (The same rules as the WHEN clauses: a root's delete always needs its tombstone.)
  v_last := current_setting('liftbase.sync_last', true);
  if v_last = v_entity || '/' || v_id || '/upsert/' || statement_timestamp() and (tg_op <> 'DELETE' or v_column <> 'id')
     or v_last = v_entity || '/' || v_id || '/delete/' || statement_timestamp() and tg_op = 'DELETE' then
    return null;
  end if;
  if coalesce(current_setting('liftbase.deleting_user', true), '') <> ''
     and not exists (select from auth.users as u where u.id = v_row.user_id) then
    -- The account is being deleted (with another in the same statement): nothing to record.
    return null;
  end if;
  if tg_op <> 'DELETE' or v_column = '' then
    perform app.record_sync_change(v_row.user_id, v_entity, v_id, 'upsert');
  elsif v_column = 'id' then
    perform app.record_sync_change(v_row.user_id, v_entity, v_id, 'delete');
  elsif app.sync_entity_exists(v_row.user_id, v_entity, v_id) then
    -- A part removed from an entity that stays: a change of it. (When the entity itself
    -- went, its own row's trigger records the tombstone.)
    perform app.record_sync_change(v_row.user_id, v_entity, v_id, 'upsert');
  end if;
  return null;
end
$fn$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
select liftbase_meta.keep_trigger($$CREATE TRIGGER body_measurements_sync_delete AFTER DELETE ON app.body_measurements FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('measurement/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('measurement/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('measurement', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER body_measurements_sync_insert AFTER INSERT ON app.body_measurements FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('measurement/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('measurement', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER body_measurements_sync_update AFTER UPDATE ON app.body_measurements FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('measurement/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('measurement', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER body_metrics_sync_delete AFTER DELETE ON app.body_metrics FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('body_metric/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('body_metric/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('body_metric', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER body_metrics_sync_insert AFTER INSERT ON app.body_metrics FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('body_metric/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('body_metric', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER body_metrics_sync_update AFTER UPDATE ON app.body_metrics FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('body_metric/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('body_metric', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER custom_meal_items_sync_delete AFTER DELETE ON app.custom_meal_items FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('custom_meal/'::text || (old.meal_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('meal_id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('custom_meal/'::text || (old.meal_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('custom_meal', 'meal_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER custom_meal_items_sync_insert AFTER INSERT ON app.custom_meal_items FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('custom_meal/'::text || (new.meal_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('custom_meal', 'meal_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER custom_meal_items_sync_update AFTER UPDATE ON app.custom_meal_items FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('custom_meal/'::text || (new.meal_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('custom_meal', 'meal_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER custom_meals_sync_delete AFTER DELETE ON app.custom_meals FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('custom_meal/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('custom_meal/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('custom_meal', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER custom_meals_sync_insert AFTER INSERT ON app.custom_meals FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('custom_meal/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('custom_meal', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER custom_meals_sync_update AFTER UPDATE ON app.custom_meals FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('custom_meal/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('custom_meal', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER favorites_sync_delete AFTER DELETE ON app.favorites FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('favorite/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('favorite/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('favorite', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER favorites_sync_insert AFTER INSERT ON app.favorites FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('favorite/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('favorite', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER favorites_sync_update AFTER UPDATE ON app.favorites FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('favorite/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('favorite', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_sync_delete AFTER DELETE ON app.food_entries FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('diary_entry/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('diary_entry/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('diary_entry', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_sync_insert AFTER INSERT ON app.food_entries FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('diary_entry/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('diary_entry', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_sync_update AFTER UPDATE ON app.food_entries FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('diary_entry/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('diary_entry', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER goals_sync_delete AFTER DELETE ON app.goals FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('goal/'::text || (old.user_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND ((''::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('goal/'::text || (old.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('goal', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER goals_sync_insert AFTER INSERT ON app.goals FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('goal/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('goal', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER goals_sync_update AFTER UPDATE ON app.goals FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('goal/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('goal', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER health_metrics_sync_delete AFTER DELETE ON app.health_metrics FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('health_metric/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('health_metric/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('health_metric', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER health_metrics_sync_insert AFTER INSERT ON app.health_metrics FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('health_metric/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('health_metric', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER health_metrics_sync_update AFTER UPDATE ON app.health_metrics FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('health_metric/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('health_metric', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER measurement_types_sync_delete AFTER DELETE ON app.measurement_types FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('measurement_type/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('measurement_type/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('measurement_type', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER measurement_types_sync_insert AFTER INSERT ON app.measurement_types FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('measurement_type/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('measurement_type', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER measurement_types_sync_update AFTER UPDATE ON app.measurement_types FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('measurement_type/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('measurement_type', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER metrics_acknowledgements_sync_delete AFTER DELETE ON app.metrics_acknowledgements FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('health_metric/'::text || (old.health_metric_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('health_metric_id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('health_metric/'::text || (old.health_metric_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('health_metric', 'health_metric_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER metrics_acknowledgements_sync_insert AFTER INSERT ON app.metrics_acknowledgements FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('health_metric/'::text || (new.health_metric_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('health_metric', 'health_metric_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER metrics_acknowledgements_sync_update AFTER UPDATE ON app.metrics_acknowledgements FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('health_metric/'::text || (new.health_metric_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('health_metric', 'health_metric_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER plan_exercises_sync_delete AFTER DELETE ON app.plan_exercises FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('plan/'::text || (old.plan_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('plan_id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('plan/'::text || (old.plan_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('plan', 'plan_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER plan_exercises_sync_insert AFTER INSERT ON app.plan_exercises FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('plan/'::text || (new.plan_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('plan', 'plan_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER plan_exercises_sync_update AFTER UPDATE ON app.plan_exercises FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('plan/'::text || (new.plan_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('plan', 'plan_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER plans_sync_delete AFTER DELETE ON app.plans FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('plan/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('plan/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('plan', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER plans_sync_insert AFTER INSERT ON app.plans FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('plan/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('plan', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER plans_sync_update AFTER UPDATE ON app.plans FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('plan/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('plan', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER program_exercise_state_sync_delete AFTER DELETE ON app.program_exercise_state FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (old.program_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('program_id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (old.program_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('program', 'program_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER program_exercise_state_sync_insert AFTER INSERT ON app.program_exercise_state FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (new.program_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('program', 'program_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER program_exercise_state_sync_update AFTER UPDATE ON app.program_exercise_state FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (new.program_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('program', 'program_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER program_phases_sync_delete AFTER DELETE ON app.program_phases FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (old.program_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('program_id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (old.program_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('program', 'program_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER program_phases_sync_insert AFTER INSERT ON app.program_phases FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (new.program_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('program', 'program_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER program_phases_sync_update AFTER UPDATE ON app.program_phases FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (new.program_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('program', 'program_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER program_sessions_sync_delete AFTER DELETE ON app.program_sessions FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (old.program_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('program_id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (old.program_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('program', 'program_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER program_sessions_sync_insert AFTER INSERT ON app.program_sessions FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (new.program_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('program', 'program_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER program_sessions_sync_update AFTER UPDATE ON app.program_sessions FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (new.program_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('program', 'program_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER programs_sync_delete AFTER DELETE ON app.programs FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('program', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER programs_sync_insert AFTER INSERT ON app.programs FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('program', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER programs_sync_update AFTER UPDATE ON app.programs FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('program/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('program', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER progress_photos_sync_delete AFTER DELETE ON app.progress_photos FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('progress_photo/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('progress_photo/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('progress_photo', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER progress_photos_sync_insert AFTER INSERT ON app.progress_photos FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('progress_photo/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('progress_photo', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER progress_photos_sync_update AFTER UPDATE ON app.progress_photos FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('progress_photo/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('progress_photo', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER session_exercises_sync_delete AFTER DELETE ON app.session_exercises FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (old.session_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('session_id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (old.session_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('session', 'session_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER session_exercises_sync_insert AFTER INSERT ON app.session_exercises FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (new.session_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('session', 'session_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER session_exercises_sync_update AFTER UPDATE ON app.session_exercises FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (new.session_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('session', 'session_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER session_sets_sync_delete AFTER DELETE ON app.session_sets FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (old.session_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('session_id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (old.session_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('session', 'session_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER session_sets_sync_insert AFTER INSERT ON app.session_sets FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (new.session_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('session', 'session_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER session_sets_sync_update AFTER UPDATE ON app.session_sets FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (new.session_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('session', 'session_id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER target_overrides_sync_delete AFTER DELETE ON app.target_overrides FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('targets/'::text || (old.user_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND ((''::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('targets/'::text || (old.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('targets', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER target_overrides_sync_insert AFTER INSERT ON app.target_overrides FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('targets/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('targets', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER target_overrides_sync_update AFTER UPDATE ON app.target_overrides FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('targets/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('targets', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER target_snapshots_sync_delete AFTER DELETE ON app.target_snapshots FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('targets/'::text || (old.user_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND ((''::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('targets/'::text || (old.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('targets', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER target_snapshots_sync_insert AFTER INSERT ON app.target_snapshots FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('targets/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('targets', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER target_snapshots_sync_update AFTER UPDATE ON app.target_snapshots FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('targets/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('targets', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER training_sessions_sync_delete AFTER DELETE ON app.training_sessions FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('session', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER training_sessions_sync_insert AFTER INSERT ON app.training_sessions FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('session', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER training_sessions_sync_update AFTER UPDATE ON app.training_sessions FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('session/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('session', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_equipment_sync_delete AFTER DELETE ON app.user_equipment FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('equipment/'::text || (old.user_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND ((''::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('equipment/'::text || (old.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('equipment', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_equipment_sync_insert AFTER INSERT ON app.user_equipment FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('equipment/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('equipment', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_equipment_sync_update AFTER UPDATE ON app.user_equipment FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('equipment/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('equipment', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_exclusions_sync_delete AFTER DELETE ON app.user_exclusions FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('exclusions/'::text || (old.user_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND ((''::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('exclusions/'::text || (old.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('exclusions', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_exclusions_sync_insert AFTER INSERT ON app.user_exclusions FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('exclusions/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('exclusions', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_exclusions_sync_update AFTER UPDATE ON app.user_exclusions FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('exclusions/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('exclusions', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_exercises_sync_delete AFTER DELETE ON app.user_exercises FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('own_exercise/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('own_exercise/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('own_exercise', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_exercises_sync_insert AFTER INSERT ON app.user_exercises FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('own_exercise/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('own_exercise', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_exercises_sync_update AFTER UPDATE ON app.user_exercises FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('own_exercise/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('own_exercise', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_foods_sync_delete AFTER DELETE ON app.user_foods FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('own_food/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('own_food/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('own_food', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_foods_sync_insert AFTER INSERT ON app.user_foods FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('own_food/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('own_food', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_foods_sync_update AFTER UPDATE ON app.user_foods FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('own_food/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('own_food', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_profiles_sync_delete AFTER DELETE ON app.user_profiles FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('profile/'::text || (old.user_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND ((''::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('profile/'::text || (old.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('profile', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_profiles_sync_insert AFTER INSERT ON app.user_profiles FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('profile/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('profile', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_profiles_sync_update AFTER UPDATE ON app.user_profiles FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('profile/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('profile', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_settings_sync_delete AFTER DELETE ON app.user_settings FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('settings/'::text || (old.user_id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND ((''::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('settings/'::text || (old.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('settings', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_settings_sync_insert AFTER INSERT ON app.user_settings FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('settings/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('settings', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_settings_sync_update AFTER UPDATE ON app.user_settings FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('settings/'::text || (new.user_id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('settings', '')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER water_entries_sync_delete AFTER DELETE ON app.water_entries FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('water_entry/'::text || (old.id)::text) || '/'::text) || 'delete'::text) || '/'::text) || statement_timestamp())) AND (('id'::text = 'id'::text) OR (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('water_entry/'::text || (old.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp()))))) EXECUTE FUNCTION app.track_sync_change('water_entry', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER water_entries_sync_insert AFTER INSERT ON app.water_entries FOR EACH ROW WHEN (((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('water_entry/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('water_entry', 'id')$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER water_entries_sync_update AFTER UPDATE ON app.water_entries FOR EACH ROW WHEN (((old.* IS DISTINCT FROM new.*) AND (current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (new.user_id)::text) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((((('water_entry/'::text || (new.id)::text) || '/'::text) || 'upsert'::text) || '/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_sync_change('water_entry', 'id')$$);

-- Whether the user's entity p_id (one with parts: a session, custom meal, plan, program or
-- health metric) still exists, read as that user (row-level security).
create or replace function app.sync_entity_exists(p_user_id uuid, p_entity text, p_id text)
returns boolean
language plpgsql
as $fn$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_exists boolean;
begin
  perform auth.act_as(p_user_id);
  if p_entity = 'session' then
    v_exists := exists (select from app.training_sessions as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'custom_meal' then
    v_exists := exists (select from app.custom_meals as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'plan' then
    v_exists := exists (select from app.plans as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'program' then
    v_exists := exists (select from app.programs as e where e.user_id = p_user_id and e.id = p_id::uuid);
  elsif p_entity = 'health_metric' then
    v_exists := exists (select from app.health_metrics as e where e.user_id = p_user_id and e.id = p_id::bigint);
  else
    raise exception 'app.sync_entity_exists: % has no parts', p_entity;
  end if;
  perform auth.act_as(nullif(v_acting, '')::uuid);
  return v_exists;
end
$fn$;

-- The profile shows the account's display name and GET /me its email: a change of either
-- is a change of the profile.
create or replace function app.track_account_change() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $fn$
begin
  perform app.record_sync_change(new.id, 'profile', new.id::text, 'upsert');
  return null;
end
$fn$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
-- 'single node': on Citus a trigger on a reference table runs on every node's copy, and
-- one that writes another table is refused; there the functions that make the change do
-- this work (docs/scaling.md).
select liftbase_meta.keep_trigger($$CREATE TRIGGER users_sync_update AFTER UPDATE ON auth.users FOR EACH ROW WHEN ((((old.display_name IS DISTINCT FROM new.display_name) OR (old.email IS DISTINCT FROM new.email)) AND (current_setting('liftbase.sync_last'::text, true) IS DISTINCT FROM ((('profile/'::text || (new.id)::text) || '/upsert/'::text) || statement_timestamp())))) EXECUTE FUNCTION app.track_account_change()$$, 'single node');

-- An account being deleted: its rows go in the cascade, and their change log with them.
-- Naming it lets the cascade's row triggers skip (their WHEN clause) instead of recording.
create or replace function app.note_account_deletion() returns trigger
language plpgsql
as $fn$
begin
  perform set_config('liftbase.deleting_user', old.id::text, true);
  return old;
end
$fn$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
select liftbase_meta.keep_trigger($$CREATE TRIGGER users_note_deletion BEFORE DELETE ON auth.users FOR EACH ROW EXECUTE FUNCTION app.note_account_deletion()$$);
