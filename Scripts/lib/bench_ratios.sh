# The per-request SQL step of Scripts/bench (`Scripts/bench --sql` runs only this and needs
# no server; docs/benchmarks.md, "What a request costs in SQL"): one connection,
# `pgbench -M prepared -c1` as liftbase_api, the mean time of `select 1` (a round trip
# that does nothing), of `select auth.authenticate(token)` and of GET /me's statement, and
# each one's ratio to `select 1`. The three run in turn, five rounds. A ratio is taken
# within each round, from runs seconds apart, so that a busy spell of a shared machine
# moves both of its terms alike; the median of the five is the figure, printed with their
# range.
# One client's time is latency, not work: `select 1` measured 0.022 ms while the other
# core was busy and 0.15 ms on a quiet machine, likely the wait for an idle core of this
# virtual machine to wake. So each round also runs every call with two clients a core, to
# keep the cores busy, and prints the cores' time over the calls made: the database's and
# pgbench's work a call (pgbench's own share is in every term, so these ratios are lower
# bounds). The goals apply to the one-client ratios.
# Sourced by Scripts/bench once the cluster is migrated (PGHOST, PGDATABASE set).
#   BENCH_RATIO_SECONDS (default 3 per run)

ratio_seconds=${BENCH_RATIO_SECONDS:-3}
psql -qX -o /dev/null -v ON_ERROR_STOP=1 <<'SQL'
with users as (
  insert into auth.users (email, password_hash) values ('ratios@bench.example.com', 'not-a-login') returning id
), settings as (
  insert into app.user_settings (user_id) select id from users
)
insert into auth.sessions (token_hash, user_id, expires_at) select auth.token_hash('ratios'), id, now() + interval '1 day' from users;
select api.onboarding_complete('ratios', '{"goal_type":"maintaining","goal_rate_per_week":0,"height_cm":180,"weight_kg":80,"age_years":30,"sex":"male","activity_level":"moderate","timezone":"UTC"}', '{}');
SQL
echo "select 1;" > "$work/ratio_select1.sql"
echo "select auth.authenticate(:token);" > "$work/ratio_authenticate.sql"
echo "select r::text, current_setting('liftbase.response_status', true), current_setting('liftbase.response_headers', true) from api.me(:token, app.request_body(null, 'me'), '{}'::jsonb) as r;" \
  > "$work/ratio_me.sql"
rounds=5
cores=$(nproc)
declare -A ratio_ms busy_ms
for round in $(seq 1 $rounds); do
  for call in select1 authenticate me; do
    read -r tps _ < <(pgbench_run "$work/ratio_$call.sql" ratios 1 "$ratio_seconds")
    ratio_ms[$call]="${ratio_ms[$call]:-} $(python3 -c "print(f'{1000 / $tps:.4f}')")"
    read -r tps _ < <(pgbench_run "$work/ratio_$call.sql" ratios $((2 * cores)) "$ratio_seconds")
    busy_ms[$call]="${busy_ms[$call]:-} $(python3 -c "print(f'{1000 * $cores / $tps:.4f}')")"
  done
done
printf "\nSQL per request (pgbench -M prepared as liftbase_api, %s rounds of %s s each): one client,\n" \
  "$rounds" "$ratio_seconds"
printf "and %s clients on %s cores (the cores' time a call):\n" "$((2 * cores))" "$cores"
python3 - "${ratio_ms[select1]}" "${ratio_ms[authenticate]}" "${ratio_ms[me]}" \
  "${busy_ms[select1]}" "${busy_ms[authenticate]}" "${busy_ms[me]}" <<'PY'
import statistics, sys
select1, authenticate, me, busy_select1, busy_authenticate, busy_me = (
    [float(ms) for ms in arg.split()] for arg in sys.argv[1:])
print(f"{'':<32} {'one client':-^38} {'busy cores':-^30}")
print(f"{'call':<32} {'mean ms':>9} {'ratio':>7} {'rounds':>12} {'target':>7} {'ms':>9} {'ratio':>7} {'rounds':>12}")
def row(times, base):
    ratios = [t / s for t, s in zip(times, base)]
    return f"{statistics.median(times):>9.4f} {statistics.median(ratios):>7.2f} {min(ratios):>5.2f}–{max(ratios):<6.2f}"
print(f"{'select 1':<32} {statistics.median(select1):>9.4f} {'':>28} {statistics.median(busy_select1):>9.4f}")
for label, times, busy, target in (
        ("select auth.authenticate(token)", authenticate, busy_authenticate, "≤ 1.5"),
        ("GET /me's statement (api.me)", me, busy_me, "≤ 2.0")):
    print(f"{label:<32} {row(times, select1)} {target:>7} {row(busy, busy_select1)}")
PY
