#!/usr/bin/env bash
# Proves Scripts/lib/check_function_texts.sh once for each kind of offender, by planting one
# in the migrated database it is given (PG* variables) and taking it away again:
#   - a function only a migration defines;
#   - a function two function files define;
#   - a function whose text in force is not its file's;
#   - a trigger only a migration declares;
#   - a trigger declared in another file than its function's, or twice;
#   - a trigger declared otherwise than PostgreSQL prints it (made again on every migrate);
# and that applying the function files again waits on no writer of a table with triggers.
set -euo pipefail
cd "$(dirname "$0")/../.."

check=Scripts/lib/check_function_texts.sh
expect() {
  local what=$1 line=$2 output
  shift 2
  if output=$("$@" 2>&1); then
    echo "the function text check passed with $what planted" >&2
    exit 1
  fi
  grep -qxF "$line" <<<"$output" || { echo "the function text check missed $what: $output" >&2; exit 1; }
}
as_owner() { psql -q -X -v ON_ERROR_STOP=1 -c "set role liftbase_owner" -c "$1" >/dev/null; }

as_owner "create function app.planted_offender() returns integer language sql as 'select 1'"
trap 'as_owner "drop function if exists app.planted_offender()"' EXIT
expect "a function only a migration defines" \
  "app.planted_offender(): defined by no function file (its text is only in a migration)" "$check"
as_owner "drop function app.planted_offender()"

copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp sql/functions/*.sql "$copy/"
cp sql/functions/auth_sessions.sql "$copy/zz_planted.sql"
expect "a function two files define" "app.current_user_id(): defined by auth_sessions.sql and zz_planted.sql" \
  "$check" "$copy"

as_owner "create or replace function app.current_user_id() returns uuid language sql stable parallel safe
          as \$\$ select nullif(current_setting('liftbase.user_id', true), '')::uuid /* planted */ \$\$"
trap 'rm -rf "$copy"; psql -q -X -c "set role liftbase_owner" -f sql/functions/auth_sessions.sql >/dev/null' EXIT
expect "a text in force that is not its file's" \
  "app.current_user_id(): the text in force is not its function file's (replaced after the files ran)" "$check"
psql -q -X -v ON_ERROR_STOP=1 -c "set role liftbase_owner" -f sql/functions/auth_sessions.sql >/dev/null
trap 'rm -rf "$copy"' EXIT

as_owner "create trigger planted_trigger after insert on app.goals for each row execute function app.track_sync_change('goal')"
trap 'rm -rf "$copy"; as_owner "drop trigger if exists planted_trigger on app.goals"' EXIT
expect "a trigger only a migration declares" \
  "app.goals planted_trigger (trigger): declared by no function file (it is only in a migration)" "$check"
as_owner "drop trigger planted_trigger on app.goals"
trap 'rm -rf "$copy"' EXIT

declaration=$(grep -m1 "^select liftbase_meta.keep_trigger(\$\$CREATE TRIGGER user_settings_document " sql/functions/app_settings.sql)
rm "$copy/zz_planted.sql"
grep -vxF "$declaration" sql/functions/app_settings.sql > "$copy/app_settings.sql"
echo "$declaration" >> "$copy/app_fields.sql"
expect "a trigger declared in another file than its function's" \
  "app.user_settings user_settings_document (trigger): declared in app_fields.sql, its function app.keep_settings_document() is in app_settings.sql" \
  "$check" "$copy"
cp sql/functions/app_fields.sql sql/functions/app_settings.sql "$copy/"
echo "$declaration" >> "$copy/app_settings.sql"
expect "a trigger declared twice" \
  "app.user_settings user_settings_document (trigger): declared 2 times, in app_settings.sql" "$check" "$copy"
cp sql/functions/app_settings.sql "$copy/"
sed -i 's/CREATE TRIGGER user_settings_document BEFORE INSERT/CREATE TRIGGER user_settings_document before insert/' \
  "$copy/app_settings.sql"
expect "a trigger declared otherwise than PostgreSQL prints it" \
  "app.user_settings user_settings_document (trigger): made again when the files were applied (declare it as pg_get_triggerdef prints it)" \
  "$check" "$copy"

# A writer of every table with a trigger, in a transaction left open: applying the files
# again must not wait for it (making a trigger would).
tables=$(psql -tAX -c "select string_agg(distinct t.tgrelid::regclass::text, ', ')
                         from pg_trigger as t join pg_class as c on c.oid = t.tgrelid
                        where not t.tgisinternal and c.relnamespace::regnamespace::text in ('app', 'auth')")
psql -q -X -c "set application_name = 'liftbase_writer'" -c "begin" -c "lock table $tables in row exclusive mode" \
  -c "select pg_sleep(120)" >/dev/null 2>&1 &
writer=$!
stop_writer() {
  psql -q -X -c "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'liftbase_writer'" >/dev/null
  wait "$writer" 2>/dev/null || true
}
trap 'rm -rf "$copy"; stop_writer' EXIT
for _ in $(seq 1 100); do
  [ "$(psql -tAX -c "select count(*) from pg_stat_activity where application_name = 'liftbase_writer' and query like '%pg_sleep%'")" = 1 ] && break
  sleep 0.1
done
PGOPTIONS="${PGOPTIONS:-} -c lock_timeout=5s" "$check" >/dev/null \
  || { echo "applying the function files again waited on a writer of a table with triggers" >&2; exit 1; }
stop_writer
trap 'rm -rf "$copy"' EXIT

"$check" >/dev/null
echo "function texts: each of the seven offenders planted is found; applying the files again waits on no writer of the $(tr ',' '\n' <<<"$tables" | wc -l) tables with triggers"
