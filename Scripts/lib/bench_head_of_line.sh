# The head-of-line step of Scripts/bench (docs/benchmarks.md, "A blocked write and its
# neighbours"): does a write that waits on a row lock hold up other accounts' reads? Sourced
# by Scripts/bench once the server runs ($base, $token, $work set).
#
# Five rounds. In each, a transaction of psql locks the user row of a second account; that
# account's PATCH /me (which waits on the row) and 50 GET /me of the bench account are sent
# at the same moment, on 51 connections, as requests that arrive together are; the lock is
# let go 3 s later. The same rounds without the lock and its write come first. It prints the
# slowest GET /me of each: a read that shared a pipeline with the blocked write would wait
# until the lock is let go.

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

alone=()
for round in 1 2 3 4 5; do
  read -r slowest _ < <(burst false)
  alone+=("$slowest")
done
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

printf "\n50 GET /me sent at once, slowest of each of 5 rounds (ms):\n"
printf "%-44s %s\n" "alone" "${alone[*]}"
printf "%-44s %s\n" "beside a PATCH /me waiting $hold s on a row lock" "${beside[*]}"
