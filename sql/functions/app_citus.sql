-- What differs when the database is distributed with Citus (docs/scaling.md).

-- Whether this database is distributed: the distribution (liftbase_meta.distribute_on_citus)
-- sets citus.propagate_set_commands for it, and drops the reference tables' triggers that
-- write other tables, whose work the functions that check this do instead.
create or replace function app.on_citus()
returns boolean
language sql
stable
as $$ select coalesce(current_setting('citus.propagate_set_commands', true) = 'local', false) $$;

grant execute on function app.on_citus() to liftbase_api;
