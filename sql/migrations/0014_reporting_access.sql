-- The access path of the reporting schema. Every user-owned table forces row-level
-- security with an own_rows policy for the current request's user, so a view owned by
-- liftbase_owner would see nothing (and giving liftbase_owner a wider policy would widen
-- every SECURITY DEFINER function it owns). Instead:
--
--   liftbase_reporter ──select──▶ reporting.* views ──owned by──▶ liftbase_reporting_owner
--                                                                 ──select + reporting_read──▶ app.*
--
-- * liftbase_reporting_owner (NOLOGIN, NOINHERIT, made by sql/bootstrap.sql) owns the views.
--   A view reads its tables with its owner's rights, so the owner gets SELECT on the tables
--   the reports read and a `reporting_read` policy FOR SELECT TO liftbase_reporting_owner
--   on each user-owned one. Policies are permissive and OR-ed with own_rows: other roles
--   are unaffected (a policy applies only to roles with the privileges of the named role;
--   no Liftbase role is a member of this one, and sql/tests/70_reporting.sql checks it).
-- * It gets nothing to write, and of auth.users only the columns the funnel counts.
-- * liftbase_reporter gets SELECT on the views only (sql/functions/reporting_views.sql),
--   never on a table; liftbase_api gets nothing in `reporting`.

grant usage on schema app, auth to liftbase_reporting_owner;
grant usage, create on schema reporting to liftbase_reporting_owner;

-- Registration time, never emails or password hashes.
grant select (id, created_at, disabled_at) on auth.users to liftbase_reporting_owner;

-- Catalogs (no row-level security): the muscles of catalog exercises.
grant select on app.exercises to liftbase_reporting_owner;

do $$
declare
  v_table text;
begin
  foreach v_table in array array['user_settings', 'goals', 'user_profiles', 'body_metrics', 'target_snapshots',
                                 'health_metrics', 'metrics_acknowledgements', 'target_overrides',
                                 'user_exercises', 'training_sessions', 'session_exercises', 'session_sets',
                                 'user_setup', 'food_entries', 'import_runs']
  loop
    execute format('grant select on app.%I to liftbase_reporting_owner', v_table);
    execute format('create policy reporting_read on app.%I as permissive for select to liftbase_reporting_owner
                    using (true)', v_table);
  end loop;
end
$$;
