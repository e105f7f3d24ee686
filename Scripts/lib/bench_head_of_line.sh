# The head-of-line step of Scripts/bench (docs/benchmarks.md, "A blocked write and its
# neighbours"): does a write that waits on a row lock hold up other accounts' reads? Sourced
# by Scripts/bench once the server runs ($base, $token, $work set).
#
# Five rounds, while wrk keeps GET /me at $connections connections, so that the pool's
# connections are busy and what arrives queues. In each round, a transaction of psql locks
# the user row of a second account; that account's PATCH /me (which waits on the row) and
# 50 GET /me of the bench account are sent at the same moment, on 51 connections, as
# requests that arrive together are; the lock is let go 3 s later. The same rounds without
# the lock and its write come first. It prints the slowest GET /me of each round, and wrk's
# rate and slowest: a read that shared a pipeline with the blocked write would wait until
# the lock is let go.

blocked=$(curl -sf -X POST "$base/api/v1/auth/register" -H "Content-Type: application/json" \
  -d '{"email":"blocked@example.com","password":"bench password"}' |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
hold=3

# burst WITH_WRITE → the slowest of the 50 GET /me in ms, and the write's status (or -).
burst() {
  python3 - "$base" "$token" "$blocked" "$1" <<'PY'
import http.client, sys, threading, time, urllib.parse
base, token, blocked, with_write = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "true"
url = urllib.parse.urlparse(base)
connections = [http.client.HTTPConnection(url.hostname, url.port, timeout=60) for _ in range(51)]
for connection in connections:
    connection.connect()
start = threading.Barrier(len(connections))
times, write_status = [], ["-"]
def read(connection):
    start.wait()
    began = time.perf_counter()
    connection.request("GET", "/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    response = connection.getresponse()
    response.read()
    assert response.status == 200, response.status
    times.append((time.perf_counter() - began) * 1000)
def write(connection):
    start.wait()
    if not with_write:
        return
    connection.request("PATCH", "/api/v1/me", body='{"display_name":"Blocked"}',
                       headers={"Authorization": f"Bearer {blocked}", "Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    write_status[0] = str(response.status)
threads = [threading.Thread(target=read, args=(c,)) for c in connections[1:]]
threads.append(threading.Thread(target=write, args=(connections[0],)))
for thread in threads:
    thread.start()
for thread in threads[:-1]:
    thread.join()
slowest = max(times)
threads[-1].join()
print(f"{slowest:.1f} {write_status[0]}")
PY
}

# background_load SECONDS: wrk's GET /me load, its summary left in $work/load.txt.
background_load() {
  wrk -t2 -c"$connections" -d"${1}s" --timeout 30s -H "Authorization: Bearer $token" "$base/api/v1/me" > "$work/load.txt"
}
# load_summary → "req/s slowest_ms" of the last background load.
load_summary() {
  python3 - "$work/load.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
ms = lambda value, unit: float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
slowest = ms(*re.search(r"^\s*Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s|m)\b", text, re.M).groups())
print(f"{rps:.0f} {slowest:.1f}")
PY
}

background_load $(( 5 * (hold + 1) )) &
load_pid=$!
sleep 1
alone=()
for round in 1 2 3 4 5; do
  read -r slowest _ < <(burst false)
  alone+=("$slowest")
  sleep "$hold"
done
wait "$load_pid"
read -r alone_rps alone_max < <(load_summary)

background_load $(( 5 * (hold + 1) )) &
load_pid=$!
sleep 1
beside=()
for round in 1 2 3 4 5; do
  psql -qX -o /dev/null -v ON_ERROR_STOP=1 -v token="$blocked" -v hold="$hold" <<'SQL' &
begin;
select from auth.users where id = (select user_id from auth.sessions where token_hash = auth.token_hash(:'token')) for update;
select pg_sleep(:hold);
commit;
SQL
  lock_pid=$!
  sleep 0.3
  read -r slowest status < <(burst true)
  wait "$lock_pid"
  [ "$status" = 200 ] || { echo "the blocked write answered $status" >&2; exit 1; }
  beside+=("$slowest")
done
wait "$load_pid"
read -r beside_rps beside_max < <(load_summary)

printf "\n50 GET /me sent at once beside GET /me at %s connections: the slowest of each of 5 rounds,\n" "$connections"
printf "and the load's rate and slowest (ms):\n"
printf "%-46s %-36s %8s %9s\n" "" "bursts" "load/s" "slowest"
printf "%-46s %-36s %8s %9s\n" "alone" "${alone[*]}" "$alone_rps" "$alone_max"
printf "%-46s %-36s %8s %9s\n" "beside a PATCH /me waiting $hold s on a row lock" "${beside[*]}" "$beside_rps" "$beside_max"
