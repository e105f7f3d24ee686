-- The change feed (GET /sync/changes, docs/sync.md) and the version of every user-owned
-- entity (ETag, If-Match).
--
-- One rule for every entity: each write to a table that holds an entity (or a part of one:
-- the sets of a session, the items of a meal) bumps the user's change counter,
-- app.sync_state.last_seq, and stores the new value as the entity's version in
-- app.sync_changes, one row per entity (the log is compacted: an entity appears once, at
-- its latest change). A deleted entity keeps its row as a tombstone (op 'delete') until
-- app.prune_sync_tombstones removes it.
--
-- Why the feed cannot skip a change: the counter is bumped with an upsert of the user's
-- app.sync_state row, which holds that row's lock until the transaction ends. A second
-- writer of the same user waits for it, and reads the committed counter after the first
-- commits (PostgreSQL makes a commit visible before it releases the transaction's locks).
-- So one user's versions are handed out in commit order: whenever a reader's snapshot sees
-- version v, it sees every version below v too (or that entity's later one). A page read
-- up to version v and a next page asked for "after v" therefore miss nothing. Sequences
-- would not do: their values are taken before commit, and a reader could see 12 while 11
-- is still to commit.

create table app.sync_state (
  user_id    uuid primary key references auth.users (id) on delete cascade,
  -- The user's change counter: the version given to the latest change.
  last_seq   bigint not null default 0,
  -- Tombstones up to this version were pruned: a cursor below it may have missed a delete.
  pruned_seq bigint not null default 0
);
comment on table app.sync_state is
  'Per-user change counter (its row lock orders one user''s writes by commit) and the prune horizon of tombstones';

create table app.sync_changes (
  user_id    uuid not null references auth.users (id) on delete cascade,
  entity     text not null,
  entity_id  text not null,
  -- The entity's version: the user's counter at its latest change.
  seq        bigint not null,
  op         text not null check (op in ('upsert', 'delete')),
  changed_at timestamptz not null default now(),
  primary key (user_id, entity, entity_id)
);
comment on table app.sync_changes is
  'The latest change of each entity of a user (the change feed, compacted), with deletes as tombstones';
create unique index sync_changes_seq_key on app.sync_changes (user_id, seq);
create index sync_changes_tombstones_idx on app.sync_changes (user_id, changed_at) where op = 'delete';

alter table app.sync_state enable row level security;
alter table app.sync_state force row level security;
create policy own_rows on app.sync_state using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));
alter table app.sync_changes enable row level security;
alter table app.sync_changes force row level security;
create policy own_rows on app.sync_changes using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));
grant select on app.sync_state, app.sync_changes to liftbase_api;

-- Records that the statement changed p_ids (entity ids as text) of p_entity for p_user_id:
-- one counter bump for all of them, each id's row set to its new version. p_deleted says,
-- per id, whether the entity is gone (a tombstone) or still there.
create function app.record_sync_changes(p_user_id uuid, p_entity text, p_ids text[], p_deleted boolean[])
returns void
language plpgsql
as $$
declare
  v_count integer := cardinality(p_ids);
  v_last bigint;
begin
  if v_count = 0 then
    return;
  end if;
  insert into app.sync_state as s (user_id, last_seq) values (p_user_id, v_count)
  on conflict (user_id) do update set last_seq = s.last_seq + v_count
  returning s.last_seq into v_last;
  insert into app.sync_changes as c (user_id, entity, entity_id, seq, op, changed_at)
  select p_user_id, p_entity, i.id, v_last - v_count + i.n,
         case when p_deleted[i.n] then 'delete' else 'upsert' end, now()
    from unnest(p_ids) with ordinality as i (id, n)
  on conflict (user_id, entity, entity_id) do update
    set seq = excluded.seq, op = excluded.op, changed_at = excluded.changed_at;
end
$$;

-- The statement trigger of every table holding an entity or a part of one. Arguments:
-- the entity, the column naming the entity's id in this table ('' for an entity a user has
-- one of: goal, settings...; its id is the user's), the table holding the entity itself
-- and the type of its id (to tell a delete from a change of a part). Acts as each user in
-- turn (row-level security) and gives the request's user back; skips a user whose account
-- is being deleted (the cascade of DELETE /me reaches these tables after auth.users).
create function app.track_sync_changes() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_entity text := tg_argv[0];
  v_id_column text := tg_argv[1];
  v_root text := tg_argv[2];
  v_id_type text := tg_argv[3];
  v_acting text := current_setting('liftbase.user_id', true);
  v_user record;
  v_deleted boolean[];
  v_users uuid[] := '{}';
  v_ids text[] := '{}';
begin
  -- The rows before and after the statement (a transition table exists only for its event).
  if tg_op in ('INSERT', 'UPDATE') then
    select v_users || array_agg(n.user_id), v_ids || array_agg(coalesce(to_jsonb(n) ->> nullif(v_id_column, ''), n.user_id::text))
      into v_users, v_ids from new_rows as n;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    select v_users || array_agg(o.user_id), v_ids || array_agg(coalesce(to_jsonb(o) ->> nullif(v_id_column, ''), o.user_id::text))
      into v_users, v_ids from old_rows as o;
  end if;
  for v_user in
    select t.user_id, array_agg(distinct t.id) as ids
      from unnest(v_users, v_ids) as t (user_id, id)
     group by 1
     order by 1
  loop
    continue when not exists (select from auth.users as u where u.id = v_user.user_id);
    perform set_config('liftbase.user_id', v_user.user_id::text, true);
    -- Only a delete can end an entity: an insert or an update leaves it (or its parent) there.
    if v_id_column = '' or tg_op <> 'DELETE' then
      v_deleted := array_fill(false, array[cardinality(v_user.ids)]);
    else
      execute format('select array_agg(not exists (select from %s as e where e.user_id = $1 and e.id = i.id::%s) order by i.n)
                        from unnest($2) with ordinality as i (id, n)', v_root, v_id_type)
        into v_deleted using v_user.user_id, v_user.ids;
    end if;
    perform app.record_sync_changes(v_user.user_id, v_entity, v_user.ids, v_deleted);
  end loop;
  perform set_config('liftbase.user_id', coalesce(v_acting, ''), true);
  return null;
end
$$;

-- Three statement triggers per table (a trigger with transition tables takes one event).
create function pg_temp.track(p_table text, p_entity text, p_id_column text, p_root text, p_id_type text)
returns void language plpgsql as $$
declare
  v_args text := format('%L, %L, %L, %L', p_entity, p_id_column, p_root, p_id_type);
begin
  execute format('create trigger %I after insert on app.%I referencing new table as new_rows
                  for each statement execute function app.track_sync_changes(%s)', p_table || '_sync_insert', p_table, v_args);
  execute format('create trigger %I after update on app.%I referencing old table as old_rows new table as new_rows
                  for each statement execute function app.track_sync_changes(%s)', p_table || '_sync_update', p_table, v_args);
  execute format('create trigger %I after delete on app.%I referencing old table as old_rows
                  for each statement execute function app.track_sync_changes(%s)', p_table || '_sync_delete', p_table, v_args);
end $$;

select pg_temp.track(t.tab, t.entity, t.id_column, t.root, t.id_type)
  from (values
    ('training_sessions', 'session', 'id', 'app.training_sessions', 'uuid'),
    ('session_exercises', 'session', 'session_id', 'app.training_sessions', 'uuid'),
    ('session_sets', 'session', 'session_id', 'app.training_sessions', 'uuid'),
    ('food_entries', 'diary_entry', 'id', 'app.food_entries', 'uuid'),
    ('favorites', 'favorite', 'id', 'app.favorites', 'uuid'),
    ('custom_meals', 'custom_meal', 'id', 'app.custom_meals', 'uuid'),
    ('custom_meal_items', 'custom_meal', 'meal_id', 'app.custom_meals', 'uuid'),
    ('plans', 'plan', 'id', 'app.plans', 'uuid'),
    ('plan_exercises', 'plan', 'plan_id', 'app.plans', 'uuid'),
    ('user_foods', 'own_food', 'id', 'app.user_foods', 'uuid'),
    ('user_exercises', 'own_exercise', 'id', 'app.user_exercises', 'uuid'),
    ('body_metrics', 'body_metric', 'id', 'app.body_metrics', 'bigint'),
    ('health_metrics', 'health_metric', 'id', 'app.health_metrics', 'bigint'),
    ('metrics_acknowledgements', 'health_metric', 'health_metric_id', 'app.health_metrics', 'bigint'),
    ('programs', 'program', 'id', 'app.programs', 'uuid'),
    ('program_sessions', 'program', 'program_id', 'app.programs', 'uuid'),
    ('program_phases', 'program', 'program_id', 'app.programs', 'uuid'),
    ('program_exercise_state', 'program', 'program_id', 'app.programs', 'uuid'),
    ('goals', 'goal', '', '', ''),
    ('user_profiles', 'profile', '', '', ''),
    ('target_snapshots', 'targets', '', '', ''),
    ('target_overrides', 'targets', '', '', ''),
    ('user_settings', 'settings', '', '', ''),
    ('user_equipment', 'equipment', '', '', ''),
    ('user_exclusions', 'exclusions', '', '', '')) as t (tab, entity, id_column, root, id_type);

-- The profile shows the account's display name: a change of it (or of the email GET /me
-- shows) is a change of the profile.
create function app.track_account_changes() returns trigger
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_user_id uuid;
begin
  for v_user_id in
    select n.id from new_rows as n join old_rows as o on o.id = n.id
     where n.display_name is distinct from o.display_name or n.email is distinct from o.email
     order by n.id
  loop
    perform set_config('liftbase.user_id', v_user_id::text, true);
    perform app.record_sync_changes(v_user_id, 'profile', array[v_user_id::text], array[false]);
  end loop;
  perform set_config('liftbase.user_id', coalesce(v_acting, ''), true);
  return null;
end
$$;
create trigger users_sync_update after update on auth.users referencing old table as old_rows new table as new_rows
  for each statement execute function app.track_account_changes();

-- Every entity that exists now gets a first version (the policies lifted for this
-- transaction only: the owner sees no user's rows through forced row-level security).
do $$
declare
  v_table text;
begin
  foreach v_table in array array['sync_state', 'sync_changes', 'training_sessions', 'food_entries', 'favorites',
    'custom_meals', 'plans', 'user_foods', 'user_exercises', 'body_metrics', 'health_metrics', 'programs', 'goals',
    'user_profiles', 'target_snapshots', 'target_overrides', 'user_settings', 'user_equipment', 'user_exclusions'] loop
    execute format('alter table app.%I no force row level security', v_table);
  end loop;
  insert into app.sync_changes (user_id, entity, entity_id, seq, op)
  select e.user_id, e.entity, e.entity_id, row_number() over (partition by e.user_id order by e.entity, e.entity_id), 'upsert'
    from (select user_id, 'session' as entity, id::text as entity_id from app.training_sessions
          union all select user_id, 'diary_entry', id::text from app.food_entries
          union all select user_id, 'favorite', id::text from app.favorites
          union all select user_id, 'custom_meal', id::text from app.custom_meals
          union all select user_id, 'plan', id::text from app.plans
          union all select user_id, 'own_food', id::text from app.user_foods
          union all select user_id, 'own_exercise', id::text from app.user_exercises
          union all select user_id, 'body_metric', id::text from app.body_metrics
          union all select user_id, 'health_metric', id::text from app.health_metrics
          union all select user_id, 'program', id::text from app.programs
          union all select user_id, 'goal', user_id::text from app.goals
          union all select user_id, 'profile', user_id::text from app.user_profiles
          union all select distinct user_id, 'targets', user_id::text from app.target_snapshots
          union all select user_id, 'targets', user_id::text from app.target_overrides
            where not exists (select from app.target_snapshots as s where s.user_id = target_overrides.user_id)
          union all select user_id, 'settings', user_id::text from app.user_settings
          union all select distinct user_id, 'equipment', user_id::text from app.user_equipment
          union all select user_id, 'exclusions', user_id::text from app.user_exclusions) as e;
  insert into app.sync_state (user_id, last_seq)
  select c.user_id, max(c.seq) from app.sync_changes as c group by c.user_id;
  foreach v_table in array array['sync_state', 'sync_changes', 'training_sessions', 'food_entries', 'favorites',
    'custom_meals', 'plans', 'user_foods', 'user_exercises', 'body_metrics', 'health_metrics', 'programs', 'goals',
    'user_profiles', 'target_snapshots', 'target_overrides', 'user_settings', 'user_equipment', 'user_exclusions'] loop
    execute format('alter table app.%I force row level security', v_table);
  end loop;
end
$$;
