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
  printf "select r::text, current_setting('liftbase.response_status', true), current_setting('liftbase.response_headers', true) from api.%s('scale-' || :n, app.request_body(null), '%s'::jsonb) as r;\n" \
    "$1" "$2" >> "$file"
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

started=$(date +%s)
for (( first = 2; first <= scale_users; first += scale_batch )); do
  last=$(( first + scale_batch - 1 < scale_users ? first + scale_batch - 1 : scale_users ))
  batch_started=$(date +%s)
  psql -qX -o /dev/null -v first="$first" -v last="$last" -f Scripts/lib/synthetic_scale.sql
  echo "scale: $last users loaded ($(( $(date +%s) - started )) s, this batch $(( $(date +%s) - batch_started )) s)"
done
psql -qX -o /dev/null -c "vacuum (analyze)"
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
