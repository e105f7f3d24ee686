-- The API on Citus (docs/scaling.md "Each incompatibility met"). Like 0060 and 0061, every
-- statement that names a Citus function is dynamic SQL, and on a single node the
-- distribution is never called.

-- The change feed's helpers (0047) act as another user with set_config, which the workers
-- never see: auth.act_as also issues the SET LOCAL that Citus sends them.
create or replace function app.record_sync_change(p_user_id uuid, p_entity text, p_id text, p_op text)
returns void
language plpgsql
as $fn$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_other_user boolean := v_acting is distinct from p_user_id::text;
  v_seq bigint;
begin
  if v_other_user then
    perform auth.act_as(p_user_id);
  end if;
  -- An update first: the user's row is there but for a first write, and a plain update
  -- is cheaper than an upsert's speculative insert.
  update app.sync_state as s set last_seq = s.last_seq + 1 where s.user_id = p_user_id returning s.last_seq into v_seq;
  if v_seq is null then
    insert into app.sync_state as s (user_id, last_seq) values (p_user_id, 1)
    on conflict (user_id) do update set last_seq = s.last_seq + 1
    returning s.last_seq into v_seq;
  end if;
  insert into app.sync_changes as c (user_id, entity, entity_id, seq, op, changed_at)
  values (p_user_id, p_entity, p_id, v_seq, p_op, now())
  on conflict (user_id, entity, entity_id) do update
    set seq = excluded.seq, op = excluded.op, changed_at = excluded.changed_at;
  perform set_config('liftbase.sync_last', p_entity || '/' || p_id || '/' || p_op || '/' || statement_timestamp(), true);
  if v_other_user then
    perform auth.act_as(nullif(v_acting, '')::uuid);
  end if;
end
$fn$;

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

-- The distribution, continued: 0061's steps, then those below.
alter function liftbase_meta.distribute_on_citus() rename to drop_reference_table_writers_on_citus;

-- Citus cannot plan a statement that joins distributed tables while its parameters are
-- unbound ("could not create distributed plan"): a generic plan. Left to itself PostgreSQL
-- then takes a custom plan (Citus prices its generic plans out), but the functions that
-- force a generic plan on a single node (plan_cache_mode = force_generic_plan, so that a
-- plan is made once per connection) would fail, and so would every function they call (the
-- setting holds for the call). On Citus they get the default back. The function files are
-- applied again on every migrate, which restores the setting; the distribution runs after
-- them and takes it away again.
create or replace function liftbase_meta.reset_forced_generic_plans()
returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_function regprocedure;
  v_count integer := 0;
begin
  for v_function in
    select p.oid::regprocedure
      from pg_proc as p
      join pg_namespace as n on n.oid = p.pronamespace
     where n.nspname in ('app', 'auth', 'api')
       and 'plan_cache_mode=force_generic_plan' = any (p.proconfig)
     order by p.oid
  loop
    execute format('alter function %s reset plan_cache_mode', v_function);
    v_count := v_count + 1;
  end loop;
  return v_count;
end
$function$;

create or replace function liftbase_meta.distribute_on_citus()
returns text
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_result text := liftbase_meta.drop_reference_table_writers_on_citus();
begin
  if not exists (select from pg_extension where extname = 'citus') then
    return v_result;
  end if;
  perform liftbase_meta.reset_forced_generic_plans();
  return v_result;
end
$function$;

comment on function liftbase_meta.distribute_on_citus() is
  'On Citus: distributes the tables (distribute_tables_on_citus), drops the reference tables'' triggers that write other tables (drop_reference_table_writers_on_citus), lets the functions that force a generic plan take custom plans. Idempotent; liftbase migrate calls it when the citus extension is installed.';

revoke execute on function liftbase_meta.distribute_on_citus() from public;
revoke execute on function liftbase_meta.drop_reference_table_writers_on_citus() from public;
revoke execute on function liftbase_meta.reset_forced_generic_plans() from public;
