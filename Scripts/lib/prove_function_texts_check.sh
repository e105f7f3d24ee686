#!/usr/bin/env bash
# Proves Scripts/lib/check_function_texts.sh once for each kind of offender, by planting one
# in the migrated database it is given (PG* variables) and taking it away again:
#   - a function only a migration defines;
#   - a function two function files define;
#   - a function whose text in force is not its file's.
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
"$check" >/dev/null
echo "function texts: each of the three offenders planted is found"
