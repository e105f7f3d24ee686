-- GET /me's answer, kept beside the user's change counter (app.sync_state.me_document,
-- migration 0063) and rebuilt whenever one of its sources is written: the account, the
-- settings, the goal's existence. api.me reads it in one indexed read.

-- GET /me's answer of one user, built from its sources; null when the account is gone.
-- Reads auth.users: called only by the definers below. Timestamps are written in UTC (the
-- server's sessions run in UTC), so that the writer's session zone never shows in a read.
-- One read per source: Citus plans no subquery of a distributed table (the goals)
-- correlated with a reference table (the account).
create or replace function app.me_document_of(p_user_id uuid)
returns jsonb
language plpgsql
stable
set timezone = 'UTC'
as $$
declare
  v_user auth.users;
begin
  select u.* into v_user from auth.users as u where u.id = p_user_id;
  if not found then
    return null;
  end if;
  return jsonb_build_object('user', auth.user_json(v_user),
                            'settings', app.settings_json(p_user_id),
                            'needs_onboarding', not exists (select from app.goals as g where g.user_id = p_user_id));
end
$$;

-- The fingerprint of app.me_document_of's definition (see app.me_document_shape).
create or replace function app.me_document_builder_shape()
returns text
language plpgsql
immutable
as $$
begin
  return (select md5(p.prosrc) from pg_catalog.pg_proc as p
           where p.oid = 'app.me_document_of(uuid)'::regprocedure);
end
$$;

-- The fingerprint of the answer's definition, kept with each answer: one built by another
-- definition (an earlier release's builder, account shape or settings shape) is not served.
-- Each of the three lives in the file of the definition it covers. api.me compares with
-- the same expression written out, so that its cached plan names all three and is made
-- again whenever one is replaced (a plan records the functions its statement names, not
-- those of a function inlined into it); sql/tests/83_me_document.sql checks they agree.
-- SQL and stable, so that it is inlined (immutable, it would be computed by a call of its
-- own when planned).
create or replace function app.me_document_shape()
returns text
language sql
stable
as $$ select md5(app.me_document_builder_shape() || auth.user_json_shape() || app.settings_document_shape()) $$;

-- Builds p_user_id's answer and keeps it on the user's counter row (made if the user has
-- none yet, with version 0, which is what a missing row means). As that user: the tables
-- are read and written under row-level security. Called by the triggers below, which run
-- as the owner.
create or replace function app.refresh_me_document(p_user_id uuid)
returns void
language plpgsql
as $$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_other_user boolean := v_acting is distinct from p_user_id::text;
  v_document jsonb;
begin
  if v_other_user then
    perform auth.act_as(p_user_id);
  end if;
  v_document := app.me_document_of(p_user_id);
  -- No answer: the account is gone in this transaction, and its counter row with it.
  if v_document is not null then
    insert into app.sync_state as s (user_id, me_document, me_document_shape)
    values (p_user_id, v_document, app.me_document_shape())
    on conflict (user_id) do update
      set me_document = excluded.me_document, me_document_shape = excluded.me_document_shape;
  end if;
  if v_other_user then
    perform auth.act_as(nullif(v_acting, '')::uuid);
  end if;
end
$$;

-- The trigger of the settings and the goals (0063): the row's user's answer is built again.
-- Security definer: the API role writes these tables and cannot write another column of
-- the counter row, nor read the account.
create or replace function app.keep_me_document()
returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_row record;
begin
  if tg_op = 'DELETE' then
    v_row := old;
  else
    v_row := new;
  end if;
  perform app.refresh_me_document(v_row.user_id);
  return null;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
select liftbase_meta.keep_trigger($$CREATE TRIGGER goals_me_document_delete AFTER DELETE ON app.goals FOR EACH ROW WHEN ((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text)) EXECUTE FUNCTION app.keep_me_document()$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER goals_me_document_insert AFTER INSERT ON app.goals FOR EACH ROW EXECUTE FUNCTION app.keep_me_document()$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_settings_me_document_delete AFTER DELETE ON app.user_settings FOR EACH ROW WHEN ((current_setting('liftbase.deleting_user'::text, true) IS DISTINCT FROM (old.user_id)::text)) EXECUTE FUNCTION app.keep_me_document()$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_settings_me_document_insert AFTER INSERT ON app.user_settings FOR EACH ROW EXECUTE FUNCTION app.keep_me_document()$$);
select liftbase_meta.keep_trigger($$CREATE TRIGGER user_settings_me_document_update AFTER UPDATE ON app.user_settings FOR EACH ROW WHEN ((old.* IS DISTINCT FROM new.*)) EXECUTE FUNCTION app.keep_me_document()$$);

-- The trigger of auth.users (0063): an update that changes the account's public shape
-- (email, display name, disabled...; a password change does not) builds the answer again.
create or replace function app.keep_me_document_of_account()
returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  -- As the table's own row type: on Citus the trigger fires on a copy of the reference
  -- table, whose rows are of that copy's type, which auth.user_json does not take.
  v_old auth.users := old;
  v_new auth.users := new;
begin
  if auth.user_json(v_old) is distinct from auth.user_json(v_new) then
    perform app.refresh_me_document(v_new.id);
  end if;
  return null;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
-- 'single node': on Citus a trigger on a reference table runs on every node's copy, and
-- one that writes another table is refused; there the functions that make the change do
-- this work (docs/scaling.md).
select liftbase_meta.keep_trigger($$CREATE TRIGGER users_me_document AFTER UPDATE ON auth.users FOR EACH ROW EXECUTE FUNCTION app.keep_me_document_of_account()$$, 'single node');

-- The signed-in user's answer built from its sources: GET /me's fallback for a user whose
-- kept answer is missing or of another shape. Security definer: it reads auth.users.
create or replace function app.current_me_document()
returns jsonb
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  return app.me_document_of(app.current_user_id());
end
$$;

grant execute on function
  app.me_document_shape(),
  app.me_document_builder_shape(),
  app.current_me_document()
to liftbase_api;
