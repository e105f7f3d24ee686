# The change log's cost on the write path (docs/benchmarks.md "The write: a diary insert"),
# sourced by `Scripts/bench --write-cost` once the server is up: Scripts/bench's diary
# insert scenario (wrk against the server, pgbench on the same SQL, one user, the bench's
# concurrency) with the change log's row triggers (app.track_sync_change) enabled, then
# disabled, in turns, BENCH_WRITE_COST_ROUNDS times (default 3). Same binary, same
# database, same catalog: only the change log differs. The triggers are enabled again at
# the end.
rounds=${BENCH_WRITE_COST_ROUNDS:-3}
set_change_log() {
  psql -qX -v ON_ERROR_STOP=1 -o /dev/null <<SQL
do \$\$
declare t record;
begin
  for t in select c.relname as table_name, g.tgname as trigger_name
             from pg_trigger as g join pg_class as c on c.oid = g.tgrelid
            where g.tgfoid = 'app.track_sync_change'::regproc loop
    execute format('alter table app.%I $1 trigger %I', t.table_name, t.trigger_name);
  end loop;
end \$\$;
SQL
}
make_entry_scripts
printf "change log's write cost: POST diary entry, one user, %s connections, %s s per run\n\n" "$connections" "$seconds"
printf "%-8s %-12s %10s %9s %9s %10s %9s %9s %7s\n" round "change log" "http/s" "p50 ms" "p99 ms" "pgbench/s" "p50 ms" "p99 ms" ratio
for round in $(seq 1 "$rounds"); do
  for state in enable disable; do
    set_change_log "$state"
    read -r http_rps http_p50 http_p99 < <(wrk_run /api/v1/nutrition/entries "$work/entry.lua")
    read -r pg_rps pg_p50 pg_p99 < <(pgbench_run "$work/entry.sql")
    printf "%-8s %-12s %10s %9s %9s %10s %9s %9s %7s\n" "$round" "${state%e}ed" "$http_rps" "$http_p50" "$http_p99" \
      "$pg_rps" "$pg_p50" "$pg_p99" "$(python3 -c "print(f'{$http_rps / $pg_rps:.2f}')")"
  done
done
set_change_log enable
