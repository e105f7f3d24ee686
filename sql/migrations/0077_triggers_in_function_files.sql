-- Every trigger is now declared beside its function in the function files
-- (liftbase_meta.keep_trigger), a Citus-only or single-node-only one as such: the steps of
-- the distribution that dropped triggers on Citus have nothing left to do.
drop function if exists liftbase_meta.drop_reference_table_writers_on_citus();
drop function if exists liftbase_meta.drop_account_triggers_on_citus();
