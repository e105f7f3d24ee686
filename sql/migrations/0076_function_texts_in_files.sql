-- Every function's current text now lives in sql/functions (docs/architecture.md "Where a
-- rule lives"). The distribution on Citus was a chain of functions, each renamed by a later
-- migration and calling the one before it; liftbase_meta_citus.sql now holds
-- liftbase_meta.distribute_on_citus calling each step in turn. The links that only chained
-- go, and two steps that returned the chain's text return nothing now (a function's result
-- type cannot be replaced). The forms some functions take on Citus (custom plans, PL/pgSQL)
-- are said beside each function in its file instead of being applied by the distribution.
drop function liftbase_meta.prepare_catalog_shards_on_citus();
drop function liftbase_meta.prepare_api_on_citus();
drop function liftbase_meta.reset_forced_generic_plans();
drop function liftbase_meta.sql_functions_to_plpgsql_on_citus();
drop function liftbase_meta.drop_account_triggers_on_citus();
drop function liftbase_meta.drop_reference_table_writers_on_citus();
