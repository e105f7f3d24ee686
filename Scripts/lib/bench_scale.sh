# The scale step of Scripts/bench (`Scripts/bench --scale`; docs/benchmarks.md, "Scale"):
# does a user wait longer when 10,000 others have a year of history each? Sourced by
# Scripts/bench once the cluster is migrated (PGHOST, PGDATABASE and pgbench_run set). SQL
# only, like the history step: the hot reads run as the API role with `pgbench -M prepared`
# (the server's statement, each call with the token of a user drawn at random), first with
# one such user in the database, then with all of them (Scripts/lib/synthetic_scale.sql),
# at $scale_connections connections; it prints p50 and p99 of both and the ratio of the p50s,
# the database size and how long the load took.
#   BENCH_SCALE_USERS (default 10000)  BENCH_SCALE_BATCH (users per load, default 500)
#   BENCH_SCALE_SECONDS (default 5)  BENCH_SCALE_CONNECTIONS (default 16)
#   BENCH_SCALE_JOBS (batches loaded at once, default: the number of cores)

scale_users=${BENCH_SCALE_USERS:-10000}
scale_batch=${BENCH_SCALE_BATCH:-500}
scale_seconds=${BENCH_SCALE_SECONDS:-5}
scale_connections=${BENCH_SCALE_CONNECTIONS:-16}

echo "scale: a catalog of 50,000 foods..."
psql -qX -o /dev/null -v count=50000 -f Scripts/lib/synthetic_foods.sql
psql -qX -o /dev/null -v first=1 -v last=1 -f Scripts/lib/synthetic_scale.sql
psql -qX -o /dev/null -c "vacuum (analyze)"

today=$(psql -tAX -c "select current_date")
scale_reads=(
  "me|{}|GET /me"
  "metrics_today|{}|GET /profile/metrics/today"
  "nutrition_daily|{\"date\": \"$today\"}|GET /nutrition/daily"
  "sessions_list|{}|GET /training/sessions"
  "analytics_volume|{}|GET /analytics/volume"
)
# scale_sql FUNCTION ARGS_JSON USERS: a pgbench file for that call by a random user of 1..USERS.
scale_sql() {
  file="$work/scale_$1_$3.sql"
  printf '\\set n random(1, %s)\n' "$3" > "$file"
  printf "select r::text, current_setting('liftbase.response_status', true), current_setting('liftbase.response_headers', true) from api.%s('scale-' || :n, app.request_body(null, '%s'), '%s'::jsonb) as r;\n" \
    "$1" "$1" "$2" >> "$file"
}
# scale_measure USERS → one "p50 p99" per read, in the order of scale_reads
declare -A scale_p50 scale_p99
scale_measure() {
  for read in "${scale_reads[@]}"; do
    IFS='|' read -r function args label <<< "$read"
    scale_sql "$function" "$args" "$1"
    if ! (cd "$work" && PGOPTIONS="-c role=liftbase_api" pgbench -n -M prepared -t 1 -f "$file" liftbase_bench \
            > "$work/check.txt" 2>&1); then
      echo "$function failed:" >&2; cat "$work/check.txt" >&2; exit 1
    fi
    pgbench_run "$file" unused "$((scale_connections / 4))" 1 >/dev/null
    read -r _ p50 p99 < <(pgbench_run "$file" unused "$scale_connections" "$scale_seconds")
    scale_p50["$1:$function"]=$p50 scale_p99["$1:$function"]=$p99
  done
}
scale_measure 1

# The bulk load. The change log's and the webhooks' row triggers of the five tables loaded
# are disabled while it runs and the log is written set-based after each batch's rows
# (synthetic_scale.sql, log_after): the entities they would log, one row each, at a
# fraction of the cost (one entity's bump and upsert take about 0.15 ms here, most of the
# load before). Users 1 and 2 are loaded with every trigger on; the check below compares
# every other user's log with user 2's. $scale_jobs batches run at once (default: one per
# core).
scale_jobs=${BENCH_SCALE_JOBS:-$(nproc)}
bulk_triggers=$(psql -tAX <<'SQL'
select string_agg(format('%s %I', t.tgrelid::regclass, t.tgname), ' ')
  from pg_trigger as t
 where t.tgrelid in ('app.food_entries'::regclass, 'app.training_sessions'::regclass, 'app.session_exercises'::regclass,
                     'app.session_sets'::regclass, 'app.body_metrics'::regclass)
   and t.tgfoid in ('app.track_sync_change'::regproc, 'app.webhook_event_trigger'::regproc)
SQL
)
set_bulk_triggers() { # set_bulk_triggers enable|disable
  read -ra pairs <<< "$bulk_triggers"
  for (( i = 0; i < ${#pairs[@]}; i += 2 )); do
    psql -qX -c "alter table ${pairs[i]} $1 trigger ${pairs[i + 1]}"
  done
}
psql -qX -o /dev/null -v first=2 -v last=2 -f Scripts/lib/synthetic_scale.sql
set_bulk_triggers disable
started=$(date +%s)
load_batch() {
  local batch_started
  batch_started=$(date +%s)
  psql -qX -o /dev/null -v first="$1" -v last="$2" -v log_after=1 -f Scripts/lib/synthetic_scale.sql
  echo "scale: users $1 to $2 loaded ($(( $(date +%s) - started )) s, this batch $(( $(date +%s) - batch_started )) s)"
}
running=0
for (( first = 3; first <= scale_users; first += scale_batch )); do
  last=$(( first + scale_batch - 1 < scale_users ? first + scale_batch - 1 : scale_users ))
  if (( running == scale_jobs )); then wait -n; running=$((running - 1)); fi
  load_batch "$first" "$last" &
  running=$((running + 1))
done
while (( running > 0 )); do wait -n; running=$((running - 1)); done
set_bulk_triggers enable
# Every user's log holds the entities user 2's does (its log written by the triggers), as
# many of each and no other, and the counter at the latest version (the log's unique index
# keeps versions from repeating). The versions themselves differ: the triggers bump a
# session once per statement that writes it, the set-based log once.
log_check=$(psql -tAX <<'SQL'
with users as (
  select u.id from auth.users as u where u.email like 'scale-%' and u.email <> 'scale-1@bench.example.com'
), logs as (
  select c.user_id, c.entity, count(*) as entries
    from app.sync_changes as c join users as u on u.id = c.user_id
   group by 1, 2
), expected as (
  select l.entity, l.entries from logs as l join auth.users as u on u.id = l.user_id
   where u.email = 'scale-2@bench.example.com'
)
select count(distinct user_id) from (
  select u.id as user_id from users as u cross join expected as e
    left join logs as l on l.user_id = u.id and l.entity = e.entity
   where coalesce(l.entries, 0) <> e.entries
  union all
  select l.user_id from logs as l where l.entity not in (select entity from expected)
  union all
  select u.id from users as u left join app.sync_state as s on s.user_id = u.id
   where s.last_seq is distinct from (select max(c.seq) from app.sync_changes as c where c.user_id = u.id)
) as differing
SQL
)
[ "$log_check" = 0 ] || { echo "scale: $log_check users' change logs differ from one the triggers wrote" >&2; exit 1; }
psql -qX -o /dev/null -c "vacuum (analyze)"
# The load and the vacuum leave gigabytes of dirty pages: written out now, so that the
# checkpoint writing them does not share the disk and the cores with the reads measured.
psql -qX -o /dev/null -c "checkpoint"
loaded=$(( $(date +%s) - started ))
IFS='|' read -r size entries sessions sets < <(psql -tAX -F '|' <<'SQL'
select pg_size_pretty(pg_database_size(current_database())), (select count(*) from app.food_entries),
       (select count(*) from app.training_sessions), (select count(*) from app.session_sets);
SQL
)
scale_measure "$scale_users"

printf "\nScale: %s users with a year each (%s diary entries, %s sessions, %s sets; database %s;\n" \
  "$scale_users" "$entries" "$sessions" "$sets" "$size"
printf "loaded in %s s; shared_buffers %s) against one such user alone. SQL only: pgbench -M prepared\n" \
  "$loaded" "$(psql -tAX -c 'show shared_buffers')"
printf "as liftbase_api, "
printf "a random user's token per call, %s connections, %s s per run (1 s warm-up first).\n\n" "$scale_connections" "$scale_seconds"
printf "%-30s %11s %11s %11s %11s %7s\n" "call" "1 user p50" "1 user p99" "all p50" "all p99" "ratio"
over=0
for read in "${scale_reads[@]}"; do
  IFS='|' read -r function args label <<< "$read"
  one=${scale_p50["1:$function"]} all=${scale_p50["$scale_users:$function"]}
  ratio=$(python3 -c "print(f'{$all / max($one, 0.01):.2f}')")
  mark=""
  if python3 -c "import sys; sys.exit(0 if $ratio > 1.5 else 1)"; then mark=" > 1.5"; over=$((over + 1)); fi
  printf "%-30s %11s %11s %11s %11s %7s%s\n" "$label" "$one" "${scale_p99["1:$function"]}" "$all" \
    "${scale_p99["$scale_users:$function"]}" "$ratio" "$mark"
done
printf "\nscale step: %s call(s) over 1.5× the one-user p50\n" "$over"
