-- Plans that hold under skew and after the fifth call. One user owns most rows of the diary,
-- the foods logged, the sessions, sets and weigh-ins; the tables are analyzed, and every
-- statement runs with its generic plan (plan_cache_mode = force_generic_plan, what the
-- pooled connections use from the sixth call on). Twice: first among two small users (a
-- cached plan's estimate of "a user's rows" is then a third of each table, where a generic
-- plan turns to sequential scans for everyone), then among 300 more (the estimate is then a
-- small user's few rows, where a generic plan reads all of the heavy user's rows to sort
-- them or to filter them).
--   1. EXPLAIN of the hot statements' shapes, prepared with a generic plan as the API role,
--      uses the user's index and scans no user-owned table.
--   2. Every hot read, called seven times as the server calls it, scans no user-owned table
--      sequentially; the small user's reads fetch a handful of rows, the heavy user's no
--      more than what their page or window holds, each read's own bound (rows fetched from
--      user-owned tables, counted in pg_stat_xact_user_tables).
--   3. The change feed, a page after a cursor and the first page, reads a page of changes
--      and each of their entities by its key.
--   4. A write: saving a session of the heavy user's exercises reads what the session
--      touches and each exercise's record holders, not the exercise's sessions.
begin;
\ir support/helpers.psql
select plan(17);

insert into app.foods (id, source, source_id, name, energy_kcal, protein_g, fat_g, carbs_g, serving_label, serving_g)
select md5('skew:' || n)::uuid, 'off', 'skew-' || n, case when n % 10 = 0 then 'Skewfruit, kind ' else 'Skew food ' end || n,
       50 + n % 400, 5, 5, 10, '100 g', 100
  from generate_series(1, 1200) as n;
select pg_temp.sign_up('heavy', 'skew-heavy@example.com', 'skew heavy password');
select pg_temp.sign_up('small', 'skew-small@example.com', 'skew small password');
select pg_temp.sign_up('other', 'skew-other@example.com', 'skew other password');
select pg_temp.call('onboarding_complete', t.name, '{"goal_type": "maintaining", "goal_rate_per_week": 0, "height_cm": 180,
  "weight_kg": 80, "age_years": 35, "sex": "male", "activity_level": "moderate", "timezone": "UTC"}')
  from tokens as t;
select set_config('test.heavy', (select user_id::text from tokens where name = 'heavy'), true),
       set_config('test.small', (select user_id::text from tokens where name = 'small'), true);

-- The heavy user: 20 entries a day from 1,000 foods over 1,500 days (30,000), 1,200 sessions
-- of 3 exercises × 4 sets over the same days, a weigh-in a day and 400 target snapshots. The
-- others: a day or two.
insert into app.food_entries (user_id, entry_date, meal_type, name, food_id, servings, calories, protein_g, carbs_g, fat_g,
                              source, created_at)
select u.id, current_date - d, 'lunch', 'Skew food', md5('skew:' || (1 + (d * 20 + k) % 1000))::uuid, 1, 100, 5, 10, 5, 'search',
       current_date - d + k * interval '1 minute'
  from (select current_setting('test.heavy')::uuid as id) as u, generate_series(0, 1499) as d, generate_series(1, 20) as k
union all
select t.user_id, current_date - d, 'lunch', 'Skew food', md5('skew:' || (10 * k))::uuid, 1, 100, 5, 10, 5, 'search', now()
  from tokens as t, generate_series(0, 1) as d, generate_series(1, 3) as k
 where t.name <> 'heavy';
create temporary table skew_sessions as
select u.user_id, gen_random_uuid() as id, current_date - (n * 5 / 4) as session_date
  from tokens as u, generate_series(1, 1200) as n
 where u.name = 'heavy' or n <= 2;
insert into app.training_sessions (user_id, id, session_date, name, status, started_at, finished_at)
select s.user_id, s.id, s.session_date, 'Skew', 'completed', s.session_date + time '18:00', s.session_date + time '19:00'
  from skew_sessions as s;
insert into app.session_exercises (user_id, session_id, position, exercise_id, exercise_name)
select s.user_id, s.id, p.position, e.id, e.name
  from skew_sessions as s
 cross join (values (1, 'Barbell Bench Press'), (2, 'Barbell Squat'), (3, 'Barbell Row')) as p (position, name)
  join app.exercises as e on e.name = p.name;
insert into app.session_sets (user_id, session_id, exercise_position, position, reps, weight_kg, rpe, set_type)
select s.user_id, s.id, p, k, 5, 100, 7 + k % 3, case when k = 1 then 'warmup' else 'working' end
  from skew_sessions as s, generate_series(1, 3) as p, generate_series(1, 4) as k;
select count(app.refresh_session_totals(s.user_id, s.id)) from skew_sessions as s;
insert into app.body_metrics (user_id, recorded_at, weight_kg)
select t.user_id, current_date - d + time '07:00', 80 + (d % 7) / 10.0
  from tokens as t, generate_series(1, 1500) as d
 where t.name = 'heavy' or d <= 3;
-- Each of the heavy user's weigh-ins recomputed their targets and metrics (the last 400 here).
select count(app.record_targets(current_setting('test.heavy')::uuid, 'metrics')) from generate_series(1, 400);
analyze app.food_entries, app.food_usage, app.training_sessions, app.session_exercises, app.session_sets,
        app.body_metrics, app.body_weight_days, app.health_metrics, app.target_snapshots;

select ok((select count(*) from app.food_entries where user_id = current_setting('test.heavy')::uuid)
          > 0.99 * (select count(*) from app.food_entries)
          and (select count(*) from app.session_sets where user_id = current_setting('test.heavy')::uuid)
          > 0.99 * (select count(*) from app.session_sets),
  'one user owns nearly every row of the diary and of the sets');

-- 1. The statements' shapes, with a generic plan, as the API role acting as the small user.
create function pg_temp.generic_plan(p_statement text, p_types text, p_values text) returns text
language plpgsql as $$
declare
  v_line text;
  v_plan text := '';
begin
  perform set_config('liftbase.user_id', current_setting('test.small'), true);
  execute format('prepare skew_statement (%s) as %s', p_types, p_statement);
  for v_line in execute format('explain execute skew_statement (%s)', p_values) loop
    v_plan := v_plan || v_line || E'\n';
  end loop;
  deallocate skew_statement;
  return v_plan;
end $$;
grant execute on function pg_temp.generic_plan(text, text, text) to liftbase_api;

set local plan_cache_mode = force_generic_plan;
set local role liftbase_api;
create temporary table shapes as
select s.what, s.index_name, s.table_name,
       pg_temp.generic_plan(s.statement, s.types, format('%L, %L, %L', current_setting('test.small'), current_date - 7, current_date)) as plan
  from (values
    ('a day of the diary', 'food_entries_day_idx', 'food_entries',
     'select sum(e.calories) from app.food_entries as e where e.user_id = $1 and e.entry_date between $2 and $3', 'uuid, date, date'),
    ('logged foods by name', 'food_usage_name_idx', 'food_usage',
     'select u.food_id from app.food_usage as u where u.user_id = $1 and u.name_key ~>=~ $2::text and u.name_key ~<~ ($3::text || chr(1114111))',
     'uuid, text, text'),
    ('sessions of a range', 'training_sessions_recent_idx', 'training_sessions',
     'select count(*) from app.training_sessions as s where s.user_id = $1 and s.status = ''completed'' and s.session_date between $2 and $3',
     'uuid, date, date'),
    ('weights of a range', 'body_weight_days_pkey', 'body_weight_days',
     'select * from app.daily_weights($1) as d where d.day between $2 and $3', 'uuid, date, date')
  ) as s (what, index_name, table_name, statement, types);
reset role;
select is((select array_agg(what order by what) from shapes
            where plan !~ ('(Index (Only )?Scan using|Bitmap Index Scan on) ' || index_name) or plan ~ ('Seq Scan on ' || table_name)),
  null, 'each hot statement''s generic plan reads the user''s index, not the table');

-- 2. The hot reads themselves, seven calls each, counted.
create temporary view user_table_reads as
select coalesce(sum(t.seq_scan), 0) as seq_scans, coalesce(sum(t.seq_tup_read + coalesce(t.idx_tup_fetch, 0)), 0) as rows_read
  from pg_stat_xact_user_tables as t
 where t.schemaname = 'app'
   and t.relname in ('food_entries', 'food_usage', 'training_sessions', 'session_exercises', 'session_sets', 'body_metrics',
                     'body_weight_days', 'health_metrics', 'target_snapshots');
create function pg_temp.reads_of(p_token_name text, p_function text, p_args jsonb) returns table (seq_scans bigint, rows_read bigint)
language plpgsql as $$
declare
  v_before record;
  v_after record;
begin
  select * into v_before from user_table_reads;
  for i in 1 .. 7 loop
    perform set_config('role', 'liftbase_api', true);
    perform pg_temp.call(p_function, p_token_name, null, p_args);
    perform set_config('role', 'none', true);
  end loop;
  select * into v_after from user_table_reads;
  seq_scans := v_after.seq_scans - v_before.seq_scans;
  rows_read := (v_after.rows_read - v_before.rows_read) / 7;
  return next;
end $$;
grant execute on function pg_temp.call(text, text, jsonb, jsonb) to liftbase_api;

-- Each hot read with the most rows a call may fetch for the heavy user: their page or window
-- (20 entries a day, about 67 sessions of 3 exercises and 12 sets in 12 weeks), never their
-- history (30,000 entries, 1,200 sessions, 14,400 sets, 1,500 weigh-ins).
create temporary table hot_read_bounds (function text, args jsonb, heavy_bound integer);
insert into hot_read_bounds values
  ('food_search', '{"q": "skew food"}', 150), ('food_search', '{"q": "skewfruit"}', 150), ('food_search', '{"q": "skwe food"}', 150),
  ('entries_list', jsonb_build_object('date', current_date), 25), ('nutrition_daily', '{}', 45),
  ('sessions_list', '{}', 55), ('session_last', '{}', 20), ('session_in_progress', '{}', 5),
  ('weekly_summary', jsonb_build_object('week_start', date_trunc('week', current_date)::date), 10),
  ('analytics_volume', '{}', 300), ('analytics_workouts', '{}', 80), ('analytics_nutrition', '{}', 650),
  ('analytics_e1rm', jsonb_build_object('exercise_id', md5('liftbase-exercise:barbell bench press')::uuid), 300),
  ('analytics_rpe_distribution', '{}', 900),
  ('analytics_rpe_distribution', jsonb_build_object('exercise_id', md5('liftbase-exercise:barbell bench press')::uuid), 600),
  ('analytics_weight', jsonb_build_object('from', current_date - 30), 40), ('metrics_today', '{}', 5),
  ('adaptive_expenditure', '{}', 650);

create temporary table hot_reads (phase text, function text, args jsonb, user_name text, heavy_bound integer, seq_scans bigint,
                                  rows_read bigint);
create function pg_temp.measure(p_phase text) returns void language sql as $$
  insert into hot_reads
  select p_phase, b.function, b.args, u.name, b.heavy_bound, m.*
    from hot_read_bounds as b
   cross join (values ('small'), ('heavy')) as u (name)
   cross join lateral pg_temp.reads_of(u.name, b.function, b.args) as m
$$;
select pg_temp.measure('among two small users');

-- Then 300 more small users, each with a day of diary, a month of training (12 sessions) and
-- a weigh-in.
reset plan_cache_mode;
create temporary table more_users as
with created as (insert into auth.users (email, password_hash)
                 select 'skew-' || n || '@example.com', 'not-a-login' from generate_series(1, 300) as n returning id)
select id from created;
insert into app.user_settings (user_id) select id from more_users;
insert into app.food_entries (user_id, entry_date, meal_type, name, food_id, calories, protein_g, carbs_g, fat_g, source)
select u.id, current_date, 'lunch', 'Skew food', md5('skew:' || (1 + abs(hashtext(u.id::text || k)) % 1200))::uuid, 100, 5, 10, 5, 'search'
  from more_users as u, generate_series(1, 4) as k;
create temporary table more_sessions as
select u.id as user_id, gen_random_uuid() as id, current_date - n * 2 as session_date from more_users as u, generate_series(1, 12) as n;
insert into app.training_sessions (user_id, id, session_date, name, status)
select s.user_id, s.id, s.session_date, 'Skew', 'completed' from more_sessions as s;
insert into app.session_exercises (user_id, session_id, position, exercise_id, exercise_name)
select s.user_id, s.id, 1, e.id, e.name from more_sessions as s join app.exercises as e on e.name = 'Barbell Bench Press';
insert into app.session_sets (user_id, session_id, exercise_position, position, reps, weight_kg, set_type)
select s.user_id, s.id, 1, k, 5, 60, 'working' from more_sessions as s, generate_series(1, 3) as k;
select count(app.refresh_session_totals(s.user_id, s.id)) from more_sessions as s;
insert into app.body_metrics (user_id, recorded_at, weight_kg) select id, now() - interval '1 day', 75 from more_users;
analyze app.food_entries, app.food_usage, app.training_sessions, app.session_exercises, app.session_sets,
        app.body_metrics, app.body_weight_days, app.health_metrics, app.target_snapshots;
set local plan_cache_mode = force_generic_plan;
select pg_temp.measure('among 302 users');

select is((select count(*)::integer from hot_reads), 72, 'eighteen hot reads, for each user, in each crowd');
select is((select array_agg(function || ' ' || args::text || ' (' || user_name || ')' order by function) from hot_reads
            where phase = 'among two small users' and seq_scans > 0),
  null, 'among two small users, no hot read scans a user-owned table sequentially, after its plans are cached');
select is((select array_agg(function || ' ' || args::text || ': ' || rows_read order by function) from hot_reads
            where phase = 'among two small users' and user_name = 'small' and rows_read > 100),
  null, 'the small user''s reads fetch a handful of rows, beside a user who owns nearly all of them');
select is((select array_agg(function || ' ' || args::text || ': ' || rows_read order by function) from hot_reads
            where phase = 'among two small users' and user_name = 'heavy' and rows_read > heavy_bound),
  null, 'the heavy user''s reads fetch what their page or window holds, not their history');
select is((select array_agg(function || ' ' || args::text || ' (' || user_name || ')' order by function) from hot_reads
            where phase = 'among 302 users' and seq_scans > 0),
  null, 'among 302 users, no hot read scans a user-owned table sequentially');
select is((select array_agg(function || ' ' || args::text || ': ' || rows_read order by function) from hot_reads
            where phase = 'among 302 users' and user_name = 'small' and rows_read > 100),
  null, 'the small user''s reads still fetch a handful of rows');
select is((select array_agg(function || ' ' || args::text || ': ' || rows_read order by function) from hot_reads
            where phase = 'among 302 users' and user_name = 'heavy' and rows_read > heavy_bound),
  null, 'and the heavy user''s, planned for a small user, still fetch only their page or window');

-- The weekly summary reads its week's sessions and never a set; a search, a page's worth of
-- the foods the user logged.
select is((select max(rows_read) from hot_reads where function = 'weekly_summary' and user_name = 'heavy') <= 10, true,
  'the weekly summary of the heavy user reads its week''s sessions only');
select is((select count(*)::integer from app.food_usage where user_id = current_setting('test.heavy')::uuid), 1000,
  'the heavy user logged 1,000 foods, of which a search reads at most a page''s worth (the bounds above)');

-- 3. The change feed. A page after a cursor: the heavy user's is the page of their last 100
-- weigh-ins (one statement wrote 1,500, so their changes follow one another), which once
-- read every weigh-in of the user for each one. The first page, without a cursor: the
-- user's current state from its oldest change (the heavy user's: mostly diary entries,
-- each of which a generic plan once looked for among all of the user's entries: the check
-- that an id is a UUID held a coalesce, which row-level security does not let bound an
-- index scan). Each reads a page of app.sync_changes by the user's version index and each
-- change's entity by its key: 101 changes and 100 entities at most, and the feed's own
-- table counts here.
create or replace temporary view user_table_reads as
select coalesce(sum(t.seq_scan), 0) as seq_scans, coalesce(sum(t.seq_tup_read + coalesce(t.idx_tup_fetch, 0)), 0) as rows_read
  from pg_stat_xact_user_tables as t
 where t.schemaname = 'app'
   and t.relname in ('food_entries', 'food_usage', 'training_sessions', 'session_exercises', 'session_sets', 'body_metrics',
                     'body_weight_days', 'health_metrics', 'target_snapshots', 'sync_changes');
create temporary table feed_reads as
select t.name as user_name, a.page, m.*
  from tokens as t
 cross join lateral (values
   ('after a cursor', jsonb_build_object('cursor', (select greatest(max(c.seq) - 100, 0)::text from app.sync_changes as c
                                                    where c.user_id = t.user_id and c.entity = 'body_metric'))),
   ('first page', '{}'::jsonb)) as a (page, args)
 cross join lateral pg_temp.reads_of(t.name, 'sync_changes', a.args) as m
 where t.name in ('heavy', 'small');
select is((select count(*)::integer from jsonb_array_elements(pg_temp.call('sync_changes', 'heavy', null,
             jsonb_build_object('cursor', (select (max(c.seq) - 100)::text from app.sync_changes as c
                                          where c.user_id = current_setting('test.heavy')::uuid and c.entity = 'body_metric')))
             -> 'changes') as c where c ->> 'entity' = 'body_metric' and c -> 'data' ->> 'weight_kg' is not null), 100,
  'the heavy user''s page after the cursor is a page of 100 weigh-ins, each with its data');
select is((select array_agg(user_name || ', ' || page order by user_name, page) from feed_reads where seq_scans > 0), null,
  'the change feed scans no user-owned table sequentially');
select is((select array_agg(user_name || ', ' || page || ': ' || rows_read order by user_name, page) from feed_reads
            where rows_read > 210),
  null, 'a page of the change feed fetches its changes and their entities, not the user''s history');

-- 4. A write. Saving a session of the heavy user's three exercises keeps each exercise's
-- records (app.write_exercise_records) from the sessions holding them and the new one. With
-- a generic plan, the query reading those sessions once drove from the exercise's index,
-- read every one of its 1,200 sessions and kept the few it was given: 3,653 rows fetched
-- for this save, where it now fetches about 60.
create temporary table write_reads (moment text, rows_read bigint);
insert into write_reads select 'before', rows_read from user_table_reads;
select set_config('role', 'liftbase_api', true);
create temporary table saved as
select pg_temp.call('sessions_create', 'heavy', jsonb_build_object('name', 'Skew', 'session_date', current_date,
         'exercises', (select jsonb_agg(jsonb_build_object('exercise_name', e.name, 'sets',
                                jsonb_build_array(jsonb_build_object('reps', 5, 'weight_kg', 200, 'set_type', 'working'))))
                         from unnest(array['Barbell Bench Press', 'Barbell Squat', 'Barbell Row']) as e (name)))) as answer;
select set_config('role', 'none', true);
insert into write_reads select 'after', rows_read from user_table_reads;
select ok((select answer ? 'id' from saved), 'the heavy user saves a session of their three exercises');
select cmp_ok((select max(rows_read) filter (where moment = 'after') - max(rows_read) filter (where moment = 'before')
                 from write_reads), '<', 200::bigint,
  'saving it fetches the rows it writes and the records'' holders, not the exercises'' 1,200 sessions each');
-- And the records were kept from the right rows: the new session's 200 kg beats the 100 kg
-- of the 1,200 before it (a query that found none would keep the stored record).
select is((select (r.records -> 'heaviest' ->> 'weight_kg')::numeric || ' in ' || (r.records -> 'heaviest' ->> 'session_id')
             from app.exercise_records as r
            where r.user_id = current_setting('test.heavy')::uuid
              and r.exercise_key = md5('liftbase-exercise:barbell bench press')::uuid),
          '200 in ' || (select answer ->> 'id' from saved),
  'the bench press''s heaviest record is the new session''s');

select * from finish();
rollback;
