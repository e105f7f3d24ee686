# What the diary insert pays for the summaries its triggers keep (docs/benchmarks.md "The
# write: a diary insert"), sourced by `Scripts/bench --write-cost` once the server is up:
# Scripts/bench's diary insert scenario (wrk against the server, pgbench on the same SQL,
# one user, the bench's concurrency) with every trigger on, then without the change log's
# row triggers (app.track_sync_change, the sync feed), then without the food usage
# summary's (app.keep_food_usage, search's "logged before"), in turns,
# BENCH_WRITE_COST_ROUNDS times (default 3). Same binary, same database, same catalog:
# only the triggers differ. Every trigger is enabled again at the end.
rounds=${BENCH_WRITE_COST_ROUNDS:-3}
# set_triggers FUNCTION enable|disable: the triggers of app tables that call FUNCTION.
set_triggers() {
  psql -qX -v ON_ERROR_STOP=1 -o /dev/null <<SQL
do \$\$
declare t record;
begin
  for t in select c.relname as table_name, g.tgname as trigger_name
             from pg_trigger as g join pg_class as c on c.oid = g.tgrelid
            where g.tgfoid = '$1'::regproc loop
    execute format('alter table app.%I $2 trigger %I', t.table_name, t.trigger_name);
  end loop;
end \$\$;
SQL
}
make_entry_scripts
printf "the diary insert's summaries: POST diary entry, one user, %s connections, %s s per run\n\n" "$connections" "$seconds"
printf "%-6s %-20s %9s %8s %8s %10s %8s %8s %6s\n" round triggers "http/s" "p50 ms" "p99 ms" "pgbench/s" "p50 ms" \
  "p99 ms" ratio
for round in $(seq 1 "$rounds"); do
  for without in none app.track_sync_change app.keep_food_usage; do
    [ "$without" != none ] && set_triggers "$without" disable
    read -r http_rps http_p50 http_p99 < <(wrk_run /api/v1/nutrition/entries "$work/entry.lua")
    read -r pg_rps pg_p50 pg_p99 < <(pgbench_run "$work/entry.sql")
    [ "$without" != none ] && set_triggers "$without" enable
    case $without in
      none) label="all" ;;
      app.track_sync_change) label="no change log" ;;
      *) label="no usage summary" ;;
    esac
    printf "%-6s %-20s %9s %8s %8s %10s %8s %8s %6s\n" "$round" "$label" "$http_rps" "$http_p50" "$http_p99" \
      "$pg_rps" "$pg_p50" "$pg_p99" "$(python3 -c "print(f'{$http_rps / $pg_rps:.2f}')")"
  done
done
