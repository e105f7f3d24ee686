-- The reporting schema: views that aggregate across all users, for SQL-level reporting
-- and `liftbase report`. Read by liftbase_reporter only; owned by liftbase_reporting_owner,
-- whose select-only policies let a view see every user's rows (migration 0014 explains the
-- access path). The views are created as that owner, so this file switches to it and
-- back to liftbase_owner at the end (the migrator records the file as liftbase_owner).
--
-- Conventions `liftbase report` relies on: the COMMENT ON VIEW is the report's one-line
-- description (first line) and its rule; the first column of type date, if any, is the
-- report's date dimension, filtered by --from/--to; rows sort by the first two columns.
-- Days are the user's own (diary date, session date, the user's time zone) where the
-- data has one, else UTC.

-- The roles and settings are changed by set_config, not SET LOCAL: on Citus a SET LOCAL is
-- repeated on the workers' connections of the transaction, as the whole text of this file.
-- The reporting schema is read on the coordinator only: on Citus its views and functions are
-- not created on the workers (citus.enable_ddl_propagation; on a single node a placeholder
-- setting, gone at commit).
select set_config('role', 'liftbase_reporting_owner', true),
       set_config('citus.enable_ddl_propagation', 'off', true);

-- Views and functions made here are private until granted.
alter default privileges for role liftbase_reporting_owner revoke execute on functions from public;

-- Re-created whole each time the file changes, so that a view may change its columns.
drop view if exists reporting.daily_active_users, reporting.onboarding_funnel,
  reporting.metrics_acknowledgement_rate, reporting.nutrition_target_adherence,
  reporting.weekly_training_volume, reporting.import_outcomes, reporting.security_events;

-- Daily active users ----------------------------------------------------------------------

create view reporting.daily_active_users as
with activity as (
  select e.user_id, e.entry_date as day, 'food' as kind from app.food_entries as e
  union all
  select t.user_id, t.session_date, 'training' from app.training_sessions as t
  union all
  -- Body-stats entries carry an instant: their day is the one in the user's time zone.
  select b.user_id, (b.recorded_at at time zone coalesce(s.timezone, 'UTC'))::date, 'body_metrics'
    from app.body_metrics as b
    left join app.user_settings as s on s.user_id = b.user_id
)
select a.day,
       count(distinct a.user_id) as active_users,
       count(distinct a.user_id) filter (where a.kind = 'food') as food_loggers,
       count(distinct a.user_id) filter (where a.kind = 'training') as training_loggers,
       count(distinct a.user_id) filter (where a.kind = 'body_metrics') as body_metrics_loggers
  from activity as a
 group by a.day;

comment on view reporting.daily_active_users is
'Users active per day: logged food, a training session or body stats.
A user is active on a day when they have a diary entry dated that day, a training session (any status) dated that day, or a body-stats entry recorded that day in their time zone. Sign-ins do not count: sessions are deleted at logout and expiry, so their history is incomplete.';
comment on column reporting.daily_active_users.day is
'The day (diary and session dates; body stats in the user''s time zone)';
comment on column reporting.daily_active_users.active_users is 'Distinct users with any activity that day';
comment on column reporting.daily_active_users.food_loggers is 'Distinct users with a diary entry dated that day';
comment on column reporting.daily_active_users.training_loggers is
'Distinct users with a training session dated that day';
comment on column reporting.daily_active_users.body_metrics_loggers is
'Distinct users who recorded body stats that day';

-- Onboarding funnel -----------------------------------------------------------------------

-- The steps are counted from app.user_settings, which every account has from its creation
-- (auth.create_account): on Citus a user's rows are co-located with it, so each step's
-- lookup runs on the user's own shard, which a lookup from auth.users (a reference table)
-- cannot. Registrations are counted from auth.users itself.
create view reporting.onboarding_funnel as
with registered as (
  select (u.created_at at time zone 'UTC')::date as cohort_day, count(*) as registered
    from auth.users as u
   group by 1),
steps as (
  select (u.created_at at time zone 'UTC')::date as cohort_day,
         count(*) filter (where exists (select from app.user_profiles as p where p.user_id = st.user_id)) as onboarded,
         count(*) filter (where exists (select from app.user_setup as s where s.user_id = st.user_id)) as set_up,
         count(*) filter (where exists (select from app.food_entries as e where e.user_id = st.user_id)) as logged_food,
         count(*) filter (where exists (select from app.training_sessions as t
                                         where t.user_id = st.user_id and t.status = 'completed')) as logged_workout
    from app.user_settings as st
    join auth.users as u on u.id = st.user_id
   group by 1)
select r.cohort_day, r.registered, coalesce(s.onboarded, 0) as onboarded, coalesce(s.set_up, 0) as set_up,
       coalesce(s.logged_food, 0) as logged_food, coalesce(s.logged_workout, 0) as logged_workout
  from registered as r
  left join steps as s on s.cohort_day = r.cohort_day;

comment on view reporting.onboarding_funnel is
'Onboarding funnel by registration day: registered, onboarded, set up, first food entry, first workout.
Each step counts the users of the cohort (registered that UTC day, disabled accounts included) who have reached it by now; steps are not required to happen in order.';
comment on column reporting.onboarding_funnel.cohort_day is 'Registration day (UTC)';
comment on column reporting.onboarding_funnel.registered is 'Accounts created that day';
comment on column reporting.onboarding_funnel.onboarded is
'Of those, completed onboarding (profile, goal, first targets)';
comment on column reporting.onboarding_funnel.set_up is 'Of those, completed training setup (equipment and exclusions)';
comment on column reporting.onboarding_funnel.logged_food is 'Of those, logged at least one diary entry';
comment on column reporting.onboarding_funnel.logged_workout is 'Of those, completed at least one training session';

-- Metrics acknowledgement rate ------------------------------------------------------------

create view reporting.metrics_acknowledgement_rate as
select (h.computed_at at time zone 'UTC')::date as day,
       count(*) as metrics_computed,
       count(a.health_metric_id) as acknowledged,
       round(100.0 * count(a.health_metric_id) / count(*), 1) as acknowledged_pct
  from app.health_metrics as h
  left join app.metrics_acknowledgements as a on a.user_id = h.user_id and a.health_metric_id = h.id
 group by 1;

comment on view reporting.metrics_acknowledgement_rate is
'Health metrics computed per day and how many of them users acknowledged.
Each computed set of health metrics (onboarding, body stats, goal or profile changes, the daily recompute) counts once on the UTC day it was computed; it is acknowledged when the user acknowledged that set, whenever they did.';
comment on column reporting.metrics_acknowledgement_rate.day is 'Day the metrics were computed (UTC)';
comment on column reporting.metrics_acknowledgement_rate.metrics_computed is 'Health metric sets computed';
comment on column reporting.metrics_acknowledgement_rate.acknowledged is 'Of those, acknowledged by their user';
comment on column reporting.metrics_acknowledgement_rate.acknowledged_pct is
'acknowledged / metrics_computed, percent to 0.1';

-- Nutrition target adherence --------------------------------------------------------------

-- Adherence needs every user's daily totals and effective targets. Those rules live in
-- app.daily_totals() and app.effective_targets(), which read tables; a function called
-- from a view runs with the rights of whoever queries the view, so the reporter could not
-- run them. This function runs them as liftbase_reporting_owner (SECURITY DEFINER) and
-- returns only per-day counts, so no per-user value reaches the reporter.
create or replace function reporting.nutrition_adherence_by_day()
returns table (day date, users_logged bigint, users_with_target bigint, users_within_target bigint)
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  select d.entry_date,
         count(*),
         count(t.calories),
         count(*) filter (where abs(d.calories - t.calories) <= 0.10 * t.calories)
    from (select u.user_id, u.entry_date,
                 (app.daily_totals(u.user_id, u.entry_date) ->> 'calories')::numeric as calories
            from (select distinct e.user_id, e.entry_date from app.food_entries as e) as u) as d
    left join (select x.user_id, (app.effective_targets(x.user_id) ->> 'calories')::numeric as calories
                 from (select distinct e.user_id from app.food_entries as e) as x) as t on t.user_id = d.user_id
   group by d.entry_date
$$;

revoke all on function reporting.nutrition_adherence_by_day() from public;
grant execute on function reporting.nutrition_adherence_by_day() to liftbase_reporter;

create view reporting.nutrition_target_adherence as
select a.day, a.users_logged, a.users_with_target, a.users_within_target,
       round(100.0 * a.users_within_target / nullif(a.users_with_target, 0), 1) as within_target_pct
  from reporting.nutrition_adherence_by_day() as a;

comment on view reporting.nutrition_target_adherence is
'Users per diary day whose logged calories were within ±10 % of their calorie target.
A user-day counts when the user has at least one diary entry that day. It is within target when |total − target| ≤ 10 % of target, with the day''s total from app.daily_totals() (as GET /nutrition/daily) and the target from app.effective_targets() (override, else latest computed). Targets keep no history of overrides, so every day is compared with the target in effect now.';
comment on column reporting.nutrition_target_adherence.day is 'Diary date';
comment on column reporting.nutrition_target_adherence.users_logged is 'Users with at least one diary entry that day';
comment on column reporting.nutrition_target_adherence.users_with_target is 'Of those, users with a calorie target';
comment on column reporting.nutrition_target_adherence.users_within_target is
'Of those, users whose calories were within ±10 % of it';
comment on column reporting.nutrition_target_adherence.within_target_pct is
'users_within_target / users_with_target, percent to 0.1 (empty without targets)';

-- Security events -------------------------------------------------------------------------

-- The oldest time the log keeps. A function of the owner's: a function a view calls is
-- called with the reader's rights, and the reporter has none in auth.
create or replace function reporting.security_log_start()
returns timestamptz
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$ select now() - auth.security_log_retention() $$;
grant execute on function reporting.security_log_start() to liftbase_reporter;

create view reporting.security_events as
select (e.occurred_at at time zone 'UTC')::date as day, e.kind, count(*) as events,
       count(distinct e.user_id) as accounts, count(distinct e.client_address) as client_addresses
  from auth.security_events as e
 where e.occurred_at >= reporting.security_log_start()
 group by 1, 2;
comment on view reporting.security_events is
'Security events per day and kind: sign-ins and failed ones, new devices, password and two-factor changes, API keys, reused refresh tokens.
One row per UTC day and kind of auth.security_events within the retention (liftbase.security_log_retention, 180 days unless set). Counts only: each account reads its own events, with addresses and clients, at GET /me/security-events.';
comment on column reporting.security_events.day is 'Day of the events (UTC)';
comment on column reporting.security_events.kind is
  'sign_in, new_device, sign_in_failed, password_changed, password_reset, two_factor_enabled, two_factor_disabled, '
  'recovery_code_used, identity_linked, refresh_token_reused, api_key_created or api_key_revoked';
comment on column reporting.security_events.events is 'Events of the kind that day';
comment on column reporting.security_events.accounts is 'Accounts they happened to';
comment on column reporting.security_events.client_addresses is 'Client addresses they came from';

-- Weekly training volume by muscle --------------------------------------------------------

-- Weekly volume is the rule /analytics/volume answers by, app.weekly_muscle_volume, run for
-- every user who completed a session. Like the adherence function above, it runs as
-- liftbase_reporting_owner (the function reads tables) and returns only sums over users.
-- Credits are 1 and 0.5, so one decimal holds every sum exactly.
create or replace function reporting.training_volume_by_week()
returns table (week date, muscle text, sets numeric, users bigint)
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  select v.week, v.muscle, round(sum(v.sets)::numeric, 1), count(distinct u.user_id)
    from (select distinct s.user_id from app.training_sessions as s where s.status = 'completed') as u
   cross join lateral app.weekly_muscle_volume(u.user_id, '-infinity', 'infinity') as v
   where v.muscle is not null
   group by 1, 2
$$;

revoke all on function reporting.training_volume_by_week() from public;
grant execute on function reporting.training_volume_by_week() to liftbase_reporter;

create view reporting.weekly_training_volume as
select w.week, w.muscle, w.sets, w.users
  from reporting.training_volume_by_week() as w;

comment on view reporting.weekly_training_volume is
'Working sets per muscle and ISO week (Monday), across completed sessions.
Summed over users from app.weekly_muscle_volume() (as GET /analytics/volume): each working set (app.counts_as_working_set(): any set but a warm-up) of a completed session credits its exercise''s muscles by app.muscle_credits(): 1 set per primary muscle, 0.5 per secondary. Sets of an exercise with no known muscles (a deleted custom exercise) credit nothing. --from/--to select weeks by their Monday.';
comment on column reporting.weekly_training_volume.week is 'Monday of the week of the session date';
comment on column reporting.weekly_training_volume.muscle is 'Muscle of the vocabulary (app.muscles)';
comment on column reporting.weekly_training_volume.sets is 'Sets credited to the muscle';
comment on column reporting.weekly_training_volume.users is 'Distinct users who trained the muscle that week';

-- Import outcomes -------------------------------------------------------------------------

create view reporting.import_outcomes as
select (r.created_at at time zone 'UTC')::date as day,
       r.format,
       count(*) as runs,
       count(*) filter (where r.dry_run) as dry_runs,
       coalesce(sum(r.imported) filter (where not r.dry_run), 0) as rows_imported,
       coalesce(sum(r.skipped_duplicates) filter (where not r.dry_run), 0) as rows_skipped,
       sum(r.error_count) as errors,
       count(*) filter (where r.error_count > 0) as runs_with_errors
  from app.import_runs as r
 group by 1, 2;

comment on view reporting.import_outcomes is
'Data imports per day and format: runs, rows imported and skipped, errors.
One row per UTC day and format of app.import_runs. Rows imported and skipped count real runs only (a dry run imports nothing); errors and runs_with_errors count every run.';
comment on column reporting.import_outcomes.day is 'Day of the import (UTC)';
comment on column reporting.import_outcomes.format is 'strong, hevy, cronometer or liftbase';
comment on column reporting.import_outcomes.runs is 'Import requests, dry runs included';
comment on column reporting.import_outcomes.dry_runs is 'Of those, dry runs';
comment on column reporting.import_outcomes.rows_imported is 'Rows imported by real runs';
comment on column reporting.import_outcomes.rows_skipped is 'Rows skipped as duplicates by real runs';
comment on column reporting.import_outcomes.errors is 'Problems found, all runs';
comment on column reporting.import_outcomes.runs_with_errors is 'Runs that found at least one problem';

-- On Citus (docs/scaling.md) -----------------------------------------------------------------

-- A view's owner reads its tables on a single node; Citus sends a view's reads to the
-- workers as the role querying it, and liftbase_reporter has no access to app or auth there.
-- On Citus each view that reads tables gets its query moved into a SECURITY DEFINER function
-- of liftbase_reporting_owner (reporting.<view>_on_citus), as the adherence and volume
-- functions above already are, and the view selects from it: the reporter still sees the
-- same columns and rows and nothing more, the workers are read as the owner (which Citus
-- gives LOGIN), through the owner's select-only policies. On a single node nothing changes.
do $citus$
declare
  v_view regclass;
  v_function text;
  v_columns text;
  v_query text;
  v_search_path text := current_setting('search_path');
begin
  -- The extension, not app.on_citus(): the first migrate applies this file before it
  -- distributes the tables.
  if not exists (select from pg_extension where extname = 'citus') then
    return;
  end if;
  -- pg_get_viewdef qualifies every name not on the search path: all of them.
  perform set_config('search_path', 'pg_catalog', true);
  for v_view in
    select distinct c.oid::regclass
      from pg_class as c
      join pg_rewrite as r on r.ev_class = c.oid
      join pg_depend as d on d.classid = 'pg_rewrite'::regclass and d.objid = r.oid
                         and d.refclassid = 'pg_class'::regclass
      join pg_class as t on t.oid = d.refobjid
     where c.relnamespace = 'reporting'::regnamespace and c.relkind = 'v'
       and t.relnamespace in ('app'::regnamespace, 'auth'::regnamespace) and t.relkind in ('r', 'p')
  loop
    v_function := format('reporting.%I', (select c.relname || '_on_citus' from pg_class as c where c.oid = v_view));
    select string_agg(format('%I %s', a.attname, format_type(a.atttypid, a.atttypmod)), ', ' order by a.attnum)
      into v_columns
      from pg_attribute as a
     where a.attrelid = v_view and a.attnum > 0 and not a.attisdropped;
    v_query := pg_get_viewdef(v_view);
    execute format('drop function if exists %s()', v_function);
    execute format('create function %s() returns table (%s) language sql stable security definer '
                   'set search_path = pg_catalog, pg_temp as %L', v_function, v_columns, v_query);
    execute format('revoke all on function %s() from public', v_function);
    execute format('grant execute on function %s() to liftbase_reporter', v_function);
    execute format('create or replace view %s as select * from %s()', v_view, v_function);
  end loop;
  perform set_config('search_path', v_search_path, true);
end
$citus$;

grant select on reporting.daily_active_users, reporting.onboarding_funnel, reporting.metrics_acknowledgement_rate,
  reporting.nutrition_target_adherence, reporting.weekly_training_volume, reporting.import_outcomes,
  reporting.security_events
  to liftbase_reporter;

select set_config('role', 'liftbase_owner', true), set_config('citus.enable_ddl_propagation', 'on', true);
