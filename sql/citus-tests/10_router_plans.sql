-- On Citus (Scripts/citus up; run by Scripts/test against the coordinator): the statements
-- behind the hottest endpoints, for one user, are each one task on the node holding that
-- user's shard group: GET /me, a diary insert, a session insert and its records' read of
-- the given sessions, the sessions list, nutrition/daily and analytics/volume. They are
-- written as the API functions run them (sql/functions), with the user's id where the
-- functions have their variable, and planned as the API role with the user set, so
-- row-level security is part of each plan.
begin;
-- Citus notes that the temporary helpers stay on this node: nothing to see.
set local client_min_messages = error;
select plan(15);

create function pg_temp.tasks(p_statement text)
returns table (task_count integer, node text)
language plpgsql
as $$
declare
  v_plan json;
begin
  execute 'explain (format json) ' || p_statement into v_plan;
  -- Every distributed job in the plan counts (a subplan Citus runs first is a job too),
  -- so one task in all is a router plan.
  return query
    select (select sum(c::text::integer)::integer from jsonb_path_query(v_plan::jsonb, 'strict $.**."Task Count"') as c),
           substring(jsonb_path_query_first(v_plan::jsonb, 'strict $.**."Tasks"[0]."Node"') #>> '{}' from 'port=(\d+)');
end
$$;

-- The port of the node holding a user's rows (every user table is co-located with this one).
create function pg_temp.node_of(p_user_id uuid)
returns text
language sql
as $$
  select n.nodeport::text
    from pg_dist_placement as p
    join pg_dist_node as n on n.groupid = p.groupid
   where p.shardid = get_shard_id_for_distribution_column('app.user_settings', p_user_id)
$$;

-- Users whose rows live on different workers (one per worker), so "the right node"
-- means something.
create temporary table users_on (user_id uuid, node text);
insert into users_on
select distinct on (node) user_id, node
  from (select u as user_id, pg_temp.node_of(u) as node
          from (select gen_random_uuid() as u from generate_series(1, 50)) as g) as candidates;
select is((select count(*)::integer from users_on), (select count(*)::integer from pg_dist_node where groupid <> 0),
          'sample users, one on each worker');

create temporary table hot_statements (label text, statement text);
insert into hot_statements values
  ('GET /me: change counter', $s$select v.last_seq from app.sync_state as v where v.user_id = :u$s$),
  ('GET /me: settings', $s$select s.settings_document from app.user_settings as s where s.user_id = :u$s$),
  ('GET /me: needs onboarding', $s$select exists (select from app.goals as g where g.user_id = :u)$s$),
  ('diary insert', $s$insert into app.food_entries (user_id, id, entry_date, meal_type, name, calories, protein_g, carbs_g, fat_g, source, created_at, updated_at)
                      values (:u, gen_random_uuid(), '2026-11-20', 'lunch', 'Rice', 200, 4, 44, 0.5, 'manual', now(), now())$s$),
  ('session insert', $s$insert into app.training_sessions (user_id, id, session_date, status, created_at, updated_at, exercise_count, set_count, working_sets, volume_kg)
                        values (:u, gen_random_uuid(), '2026-11-20', 'completed', now(), now(), 1, 1, 1, 500)$s$),
  ('session insert: sets', $s$insert into app.session_sets (user_id, session_id, exercise_position, position, reps, weight_kg, set_type)
                              values (:u, gen_random_uuid(), 1, 1, 5, 100, 'working')$s$),
  ('sessions list', $s$select * from app.training_sessions as t where t.user_id = :u
                       order by t.session_date desc, t.created_at desc, t.id desc limit 21$s$),
  ('nutrition/daily', $s$select coalesce(sum(e.calories), 0), coalesce(sum(e.protein_g), 0)
                         from app.food_entries as e where e.user_id = :u and e.entry_date = '2026-11-20'$s$),
  ('analytics/volume', $s$
    with exercise_weeks as (
      select date_trunc('week', s.session_date)::date as week, coalesce(e.exercise_id, e.user_exercise_id) as exercise,
             sum(e.working_sets)::integer as sets
        from app.training_sessions as s
        join app.session_exercises as e on e.user_id = s.user_id and e.session_id = s.id
       where s.user_id = :u and s.status = 'completed' and s.session_date between '2026-01-01' and '2026-12-31'
       group by 1, 2)
    select w.week, w.sets, coalesce(ce.primary_muscles, ue.primary_muscles)
      from exercise_weeks as w
      left join app.exercises as ce on ce.id = w.exercise
      left join app.user_exercises as ue on ue.user_id = :u and ue.id = w.exercise$s$),
  -- (Casts spelled out: ":u" stands for the user.)
  ('session insert: exercise records', $s$
    select g.*
      from (select distinct i.id from unnest(array[cast('00000000-0000-4000-8000-000000000001' as uuid)]) as i (id)) as i
     cross join lateral (
           select x.max_weight_kg, x.best_e1rm_kg, t.id, t.session_date
             from app.training_sessions as t
             join app.session_exercises as x
               on x.user_id = t.user_id and x.session_id = t.id
              and coalesce(x.exercise_id, x.user_exercise_id) = cast('00000000-0000-4000-8000-000000000002' as uuid)
            where t.user_id = :u and t.id = i.id and t.status = 'completed'
           offset 0) as g$s$);

-- As a request runs them: the API role, with the user set (row-level security applies).
create temporary table outcomes (label text, user_id uuid, expected text, task_count integer, node text);
grant all on outcomes, users_on, hot_statements to liftbase_api;
do $$
declare
  v_user record;
  v_statement record;
  v_plan record;
begin
  for v_user in select * from users_on loop
    perform set_config('liftbase.user_id', v_user.user_id::text, true);
    set local role liftbase_api;
    for v_statement in select * from hot_statements where label not like 'session insert: sets' loop
      select * into v_plan from pg_temp.tasks(replace(v_statement.statement, ':u', quote_literal(v_user.user_id) || '::uuid'));
      insert into outcomes values (v_statement.label, v_user.user_id, v_user.node, v_plan.task_count, v_plan.node);
    end loop;
    reset role;
  end loop;
end
$$;

select is(task_count, 1, label || ': one task')
  from outcomes where user_id = (select user_id from users_on order by node limit 1)
 order by label;
select is(count(*)::integer, 0, 'every statement, for either user, runs on the worker holding that user')
  from outcomes where task_count <> 1 or node is distinct from expected;

-- The sets of a session land with the session (same user, same shard group), checked as the
-- owner: the API role inserts them through a function, and the row type is what matters.
select is((select task_count from pg_temp.tasks(replace(statement, ':u', quote_literal(user_id) || '::uuid'))),
          1, 'session insert: its sets are one task too')
  from hot_statements, (select user_id from users_on limit 1) as u
 where label = 'session insert: sets';

-- A token resolves on the coordinator in one indexed read: auth.sessions stays there
-- (a Citus local table) and auth.users is a reference table with a copy on it.
select is(task_count, 1, 'GET /me: the token lookup is one task')
  from pg_temp.tasks($s$select s.user_id from auth.sessions as s join auth.users as u on u.id = s.user_id
                         where s.token_hash = '\x00' and s.expires_at > now() and u.disabled_at is null$s$);
select is(node, (select nodeport::text from pg_dist_node where groupid = 0), 'GET /me: ... on the coordinator')
  from pg_temp.tasks($s$select s.user_id from auth.sessions as s join auth.users as u on u.id = s.user_id
                         where s.token_hash = '\x00' and s.expires_at > now() and u.disabled_at is null$s$);

-- And a statement across users is not routed (the test would pass for anything otherwise).
select cmp_ok(task_count, '>', 1, 'a statement across users fans out to every shard')
  from pg_temp.tasks('select count(*) from app.training_sessions');

select * from finish();
rollback;
