#!/usr/bin/env bash
# The write path compared between versions of the SQL (docs/benchmarks.md, "Write path"):
#   Scripts/lib/bench_writes.sh LABEL=SQLDIR [LABEL=SQLDIR...]
# e.g. Scripts/lib/bench_writes.sh before=/tmp/old/sql after=sql
# Migrates each SQL folder into its own database of one throwaway cluster (default
# settings, fsync on, as Scripts/bench), makes the same accounts (known tokens, no bcrypt)
# and a small food catalog in each, then runs Scripts/bench's diary insert and session
# create SQL as liftbase_api with `pgbench -M prepared`: one user on 1 connection (the
# latency of one write), one user on 32 connections (Scripts/bench's figure: one user's
# writes wait on each other), and 16 users on 16 connections. The databases take turns,
# BENCH_WRITES_ROUNDS times (default 3), and the table gives the median of the rounds.
#   LIFTBASE_BINARY (default /tmp/liftbase-bin/liftbase) the migrator
#   BENCH_WRITES_SECONDS (default 10)
#   BENCH_WRITES_ONLY (default: all) run only the scenarios whose name matches this regex
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/lib/postgres.sh
[ $# -ge 1 ] || { echo "usage: Scripts/lib/bench_writes.sh LABEL=SQLDIR [LABEL=SQLDIR...]" >&2; exit 2; }
binary=${LIFTBASE_BINARY:-/tmp/liftbase-bin/liftbase}
seconds=${BENCH_WRITES_SECONDS:-10}
rounds=${BENCH_WRITES_ROUNDS:-3}

work=$(mktemp -d /tmp/liftbase-bench-writes.XXXXXX)
chmod 755 "$work"
trap 'pg_cluster_stop "$work/data"; rm -rf "$work"' EXIT
pg_cluster_start "$work/data" "$work/socket"
export PGHOST="$work/socket" PGUSER=postgres

labels=()
for argument in "$@"; do
  label=${argument%%=*} dir=$(cd "${argument#*=}" && pwd)
  labels+=("$label")
  psql -qX -d postgres -c "create database \"bench_$label\""
  DATABASE_URL="host=$PGHOST user=postgres dbname=bench_$label" LIFTBASE_SQL_DIR="$dir" LIFTBASE_BUILTIN_CATALOGS=off \
    "$binary" migrate >/dev/null
  psql -qX -o /dev/null -d "bench_$label" -v count=2000 -f Scripts/lib/synthetic_foods.sql
  # Accounts "bw-1" ... "bw-16" with their tokens as names, onboarded through the API.
  psql -qX -o /dev/null -v ON_ERROR_STOP=1 -d "bench_$label" <<'SQL'
with users as (
  insert into auth.users (email, password_hash)
  select 'bw-' || n || '@bench.example.com', 'not-a-login' from generate_series(1, 16) as n
  returning id, split_part(email, '@', 1) as token
), settings as (
  insert into app.user_settings (user_id) select id from users
)
insert into auth.sessions (token_hash, user_id, expires_at)
select auth.token_hash(token), id, now() + interval '1 day' from users;
select api.onboarding_complete('bw-' || n, '{"goal_type":"cutting","goal_rate_per_week":-0.5,"height_cm":180,"weight_kg":80,"age_years":30,"sex":"male","activity_level":"moderate","timezone":"Europe/Berlin"}', '{}')
  from generate_series(1, 16) as n;
SQL
done

# Scripts/bench's bodies: a diary entry from a catalog food with servings, a session of
# 5 exercises × 4 sets.
food=$(psql -tAX -d "bench_${labels[0]}" -c "select id from app.foods order by source, source_id limit 1")
entry="{\"food_item_id\":\"$food\",\"servings\":1.5,\"meal_type\":\"lunch\",\"source\":\"search\",\"entry_date\":\"2026-06-01\"}"
session=$(python3 - <<'PY'
import json
exercises = ["Barbell Squat", "Barbell Bench Press", "Barbell Row", "Overhead Press", "Romanian Deadlift"]
print(json.dumps({"name": "Bench session", "session_date": "2026-06-01", "exercises": [
    {"exercise_name": name, "sets": [{"reps": 5, "weight_kg": 100, "rpe": 8, "set_type": "working"} for _ in range(4)]}
    for name in exercises]}, separators=(",", ":")))
PY
)
write_sql() { # write_sql NAME FUNCTION BODY: one file for user bw-1, one for bw-N on connection N
  echo "select r::text, current_setting('liftbase.response_status', true), current_setting('liftbase.response_headers', true) from api.$2('bw-1', app.request_body('$3', '$2'), '{}'::jsonb) as r;" > "$work/$1.sql"
  sed -e "s/('bw-1',/('bw-' || :client_id + 1,/" "$work/$1.sql" > "$work/$1_users.sql"
}
write_sql entry entry_create "$entry"
write_sql session sessions_create "$session"
# The catalog foods are the same in every database (same generator, same ids), else the
# entry's food would be missing.
for label in "${labels[@]}"; do
  psql -tAX -d "bench_$label" -c "select count(*) from app.foods where id = '$food'" | grep -qx 1 ||
    { echo "food $food missing in bench_$label" >&2; exit 1; }
done

# run DATABASE SQLFILE CLIENTS → "tps p50_ms p99_ms"
run() {
  rm -f "$work"/log*
  (cd "$work" && PGOPTIONS="-c role=liftbase_api" pgbench -n -M prepared -c "$3" -j "$(( $3 < 2 ? $3 : 2 ))" -T "$seconds" \
    -f "$2" -l --log-prefix=log "$1" > "$work/pgbench.txt")
  python3 - "$work" <<'PY'
import glob, re, sys
work = sys.argv[1]
latencies = sorted(int(line.split()[2]) for path in glob.glob(f"{work}/log*") for line in open(path))
tps = float(re.search(r"tps = ([\d.]+)", open(f"{work}/pgbench.txt").read()).group(1))
pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] / 1000
print(f"{tps:.0f} {pick(0.50):.2f} {pick(0.99):.2f}")
PY
}

printf "write path: %s s per run, %s rounds (median), %s cores\n" "$seconds" "$rounds" "$(nproc)"
printf "%-32s %-10s %8s %8s %8s\n" scenario version tps "p50 ms" "p99 ms"
for scenario in "diary insert, 1 user @1:entry.sql:1" "diary insert, 1 user @32:entry.sql:32" \
                "diary insert, 16 users @16:entry_users.sql:16" "session create, 1 user @1:session.sql:1" \
                "session create, 1 user @32:session.sql:32" "session create, 16 users @16:session_users.sql:16"; do
  IFS=: read -r name file clients <<<"$scenario"
  [[ "$name" =~ ${BENCH_WRITES_ONLY:-.} ]] || continue
  for round in $(seq 1 "$rounds"); do
    for label in "${labels[@]}"; do
      run "bench_$label" "$work/$file" "$clients" >> "$work/results-$label"
    done
  done
  for label in "${labels[@]}"; do
    python3 - "$work/results-$label" "$name" "$label" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
tps, p50, p99 = (statistics.median(column) for column in zip(*rows))
print(f"{sys.argv[2]:<32} {sys.argv[3]:<10} {tps:8.0f} {p50:8.2f} {p99:8.2f}")
PY
    rm -f "$work/results-$label"
  done
done
