# The per-request SQL step of Scripts/bench (`Scripts/bench --sql` runs only this and needs
# no server; docs/benchmarks.md, "What a request costs in SQL"): one connection,
# `pgbench -M prepared -c1` as liftbase_api, the mean time of `select 1` (a round trip
# that does nothing), of `select auth.authenticate(token)` and of GET /me's statement, and
# each one's ratio to `select 1`. The three run in turn, three rounds, and the median round
# of each is printed, so that a busy moment on a shared machine moves all three alike.
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
echo "select r::text, current_setting('liftbase.response_status', true), current_setting('liftbase.response_headers', true) from api.me(:token, app.request_body(null), '{}'::jsonb) as r;" \
  > "$work/ratio_me.sql"
declare -A ratio_ms
for round in 1 2 3; do
  for call in select1 authenticate me; do
    read -r tps _ < <(pgbench_run "$work/ratio_$call.sql" ratios 1 "$ratio_seconds")
    ratio_ms[$call]="${ratio_ms[$call]:-} $(python3 -c "print(f'{1000 / $tps:.4f}')")"
  done
done
median() { tr ' ' '\n' <<< "$1" | grep . | sort -n | sed -n 2p; }
select1=$(median "${ratio_ms[select1]}")
printf "\nSQL per request, one connection (pgbench -M prepared -c1 as liftbase_api, median of 3 runs of %s s):\n" "$ratio_seconds"
printf "%-32s %9s %7s %7s\n" call "mean ms" ratio target
for call in "select1|select 1|" "authenticate|select auth.authenticate(token)|1.5" "me|GET /me's statement (api.me)|2.0"; do
  IFS='|' read -r key label target <<< "$call"
  ms=$(median "${ratio_ms[$key]}")
  printf "%-32s %9s %7s %7s\n" "$label" "$ms" "$(python3 -c "print(f'{$ms / $select1:.2f}')")" "${target:+≤ $target}"
done
