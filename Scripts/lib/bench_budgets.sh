# Sourced by Scripts/bench --budgets, with the server running with its budgets on ($base,
# $token, $work, $binary, $port, wrk_run, make_entry_scripts): what the in-memory budgets per
# token and per address (docs/security.md) cost GET /me and a diary write. A second server
# runs beside the first with them off, and the two are driven in turns, round by round, the
# order swapped each round, so that both see the same machine, cluster and caches (runs of
# separate invocations differed by 20% with the same setting).
echo "== the server's budgets on and off, in turns (docs/security.md)"
off_port=$((port + 1))
LOG_LEVEL=warning LIFTBASE_PORT=$off_port LIFTBASE_RATE_LIMIT_PER_TOKEN=off LIFTBASE_RATE_LIMIT_PER_ADDRESS=off \
  "$binary" serve &
off_pid=$!
trap 'kill "$off_pid" 2>/dev/null; cleanup' EXIT
on_base=$base
off_base="http://127.0.0.1:$off_port"
for _ in $(seq 1 100); do curl -sf "$off_base/readyz" >/dev/null && break; sleep 0.1; done
curl -sf "$off_base/readyz" >/dev/null || { echo "the second server did not become ready" >&2; exit 1; }
make_entry_scripts
rounds=${BENCH_BUDGET_ROUNDS:-5}
printf "%-6s %-5s %14s %14s\n" round side "GET /me req/s" "diary req/s"
: > "$work/budgets.txt"
for round in $(seq 1 "$rounds"); do
  sides="on off"
  [ $((round % 2)) -eq 0 ] && sides="off on"
  for side in $sides; do
    if [ "$side" = on ]; then base=$on_base; else base=$off_base; fi
    read -r me_rps _ _ < <(wrk_run "/api/v1/me")
    read -r entry_rps _ _ < <(wrk_run "/api/v1/nutrition/entries" "$work/entry.lua")
    printf "%-6s %-5s %14s %14s\n" "$round" "$side" "$me_rps" "$entry_rps"
    echo "$side $me_rps $entry_rps" >> "$work/budgets.txt"
  done
done
base=$on_base
python3 - "$work/budgets.txt" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
def median(side, column):
    return statistics.median(float(r[column]) for r in rows if r[0] == side)
for name, column in (("GET /me", 1), ("diary write", 2)):
    on, off = median("on", column), median("off", column)
    print(f"{name:<12} median req/s: on {on:,.0f}, off {off:,.0f}: the budgets cost {100 * (off - on) / off:+.1f}%")
PY
kill "$off_pid" 2>/dev/null
