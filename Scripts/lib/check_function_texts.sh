#!/usr/bin/env bash
# Every function of Liftbase's schemas has exactly one current text, in sql/functions, and it
# is the text in force; every trigger is declared beside its function (docs/architecture.md
# "Where a rule lives").
#
#   Scripts/lib/check_function_texts.sh [FUNCTIONS_DIR]   (default sql/functions; PG* variables
#                                                         or DATABASE_URL name a migrated database)
#
# In one transaction, rolled back: applies each function file again, with an event trigger
# noting which functions each one creates or replaces. Fails, naming each function, when one is
#   - defined by no function file (its text is only in a migration),
#   - defined by two function files,
#   - different once its file is applied again (the text in force was not its file's: a
#     migration or the Citus distribution replaced it after the files ran);
# and when a trigger is declared by no file, twice, in another file than its function's, or
# so that applying the files makes it again.
# Run after `liftbase migrate`, on a single node and on Citus, as a superuser (the event trigger).
set -euo pipefail
cd "$(dirname "$0")/../.."

functions=${1:-sql/functions}
connection=()
[ -n "${DATABASE_URL:-}" ] && connection=(-d "$DATABASE_URL")

script=$(mktemp)
trap 'rm -f "$script"' EXIT
{
  cat <<'SQL'
\set ON_ERROR_STOP 1
\set QUIET 1
\o /dev/null
begin;
set local client_min_messages = error;
set local check_function_bodies = off;
-- What defines a function's behaviour; arguments and result as PostgreSQL prints them, so
-- that the position of a default in its file does not count. (Grants and comments do not.)
create temp view liftbase_function_definition as
-- Functions are named by signature: a file may drop one and make it again (a new oid).
select p.oid::regprocedure::text as signature,
       md5(concat_ws(chr(1), p.prosrc, p.probin, p.proconfig::text, p.provolatile, p.prosecdef, p.proisstrict,
                     p.proleakproof, p.proparallel, p.procost, p.prorows, p.prolang, p.proretset,
                     pg_get_function_arguments(p.oid), pg_get_function_result(p.oid))) as definition
  from pg_proc as p
 where p.pronamespace in (select n.oid from pg_namespace as n
                           where n.nspname in ('app', 'api', 'auth', 'reporting', 'liftbase_meta'))
   and not exists (select from pg_depend as d
                    where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e');
create temp table liftbase_function_before as select * from liftbase_function_definition;
create temp table liftbase_function_file (file text, signature text);
-- Triggers by table and name; a trigger made again gets another oid or row version.
create temp view liftbase_trigger_state as
select t.tgrelid::regclass::text || ' ' || t.tgname as trigger, t.oid::text || '/' || t.xmin::text as made,
       t.tgfoid::regprocedure::text as function
  from pg_trigger as t
 where not t.tgisinternal
   and (select c.relnamespace from pg_class as c where c.oid = t.tgrelid)
       in (select n.oid from pg_namespace as n where n.nspname in ('app', 'auth', 'reporting', 'liftbase_meta'));
create temp table liftbase_trigger_before as select * from liftbase_trigger_state;
create temp table liftbase_trigger_file (file text, trigger text);
grant all on liftbase_function_definition, liftbase_function_before, liftbase_function_file, liftbase_trigger_state,
             liftbase_trigger_before, liftbase_trigger_file to public;
-- Made and dropped in this transaction; on Citus, kept off the workers.
set local citus.enable_ddl_propagation = off;
create function public.liftbase_note_function_definition() returns event_trigger language plpgsql as $$
begin
  insert into liftbase_function_file (file, signature)
  select current_setting('liftbase.function_file'), c.objid::regprocedure::text
    from pg_event_trigger_ddl_commands() as c
   where c.command_tag in ('CREATE FUNCTION', 'CREATE AGGREGATE', 'CREATE PROCEDURE');
end
$$;
create event trigger liftbase_note_function_definition on ddl_command_end
  execute function public.liftbase_note_function_definition();
set local role liftbase_owner;
SQL
  # In the order `liftbase migrate` applies them: liftbase_meta_* first (Migrator.swift).
  for file in "$functions"/liftbase_meta_*.sql $(ls "$functions"/*.sql | grep -v '/liftbase_meta_'); do
    name=$(basename "$file")
    cat <<SQL
set local liftbase.function_file = '$name';
set local liftbase.declared_triggers = '';
\\i $file
insert into liftbase_trigger_file (file, trigger)
select '$name', t from unnest(string_to_array(rtrim(current_setting('liftbase.declared_triggers'), E'\\n'), E'\\n')) as t
 where t <> '';
SQL
  done
  cat <<'SQL'
\o
\pset format unaligned
\pset tuples_only on
select problem from (
  select b.signature || ': defined by no function file (its text is only in a migration)' as problem
    from liftbase_function_before as b
   where not exists (select from liftbase_function_file as f where f.signature = b.signature)
  union all
  -- One file may make a function twice: its form on Citus (liftbase_meta.on_citus_as_plpgsql).
  select f.signature || ': defined by ' || string_agg(distinct f.file, ' and ')
    from liftbase_function_file as f group by f.signature having count(distinct f.file) > 1
  union all
  select b.signature || ': the text in force is not its function file''s (replaced after the files ran)'
    from liftbase_function_before as b join liftbase_function_definition as d using (signature)
   where d.definition <> b.definition
  union all
  select b.trigger || ' (trigger): declared by no function file (it is only in a migration)'
    from liftbase_trigger_before as b
   where not exists (select from liftbase_trigger_file as f where f.trigger = b.trigger)
  union all
  select f.trigger || ' (trigger): declared ' || count(*) || ' times, in ' || string_agg(distinct f.file, ' and ')
    from liftbase_trigger_file as f group by f.trigger having count(*) > 1
  union all
  select b.trigger || ' (trigger): declared in ' || t.file || ', its function ' || b.function || ' is in ' || f.file
    from liftbase_trigger_before as b
    join liftbase_trigger_file as t on t.trigger = b.trigger
    join liftbase_function_file as f on f.signature = b.function
   where t.file <> f.file
  union all
  select b.trigger || ' (trigger): made again when the files were applied (declare it as pg_get_triggerdef prints it)'
    from liftbase_trigger_before as b
   where not exists (select from liftbase_trigger_state as a where a.trigger = b.trigger and a.made = b.made)
) as problems
order by problem;
rollback;
SQL
} > "$script"

problems=$(psql -X -q "${connection[@]}" -f "$script")
if [ -n "$problems" ]; then
  echo "$problems"
  echo "function texts: $(echo "$problems" | wc -l) problem(s) (docs/architecture.md \"Where a rule lives\")" >&2
  exit 1
fi
echo "function texts: every function has one text, in its function file, and it is in force; every trigger is declared beside its function"
