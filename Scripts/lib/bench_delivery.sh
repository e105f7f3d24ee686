# The delivery step of Scripts/bench (`Scripts/bench --delivery`; docs/webhooks.md
# "Throughput"): how many webhook deliveries one `liftbase deliver` sends per second to a
# receiver on this machine (Tests/Fixtures/delivery/sinks.py, answering 204). Sourced by
# Scripts/bench once the cluster is migrated (PGHOST, PGDATABASE, DATABASE_URL, binary and
# work set). One subscription and one diary entry make the first delivery through the API;
# the rest are copies of it, so the figure is the worker's: claim, POST, record.
#   BENCH_DELIVERIES (default 1000)  BENCH_DELIVERY_BATCH (default 100)

deliveries=${BENCH_DELIVERIES:-1000}
delivery_batch=${BENCH_DELIVERY_BATCH:-100}

mkdir -p "$work/receiver"
python3 Tests/Fixtures/delivery/sinks.py http "$work/receiver" >"$work/receiver.out" 2>&1 &
receiver_pid=$!
trap 'kill "$receiver_pid" 2>/dev/null; cleanup' EXIT
for _ in $(seq 1 50); do grep -q ready "$work/receiver.out" 2>/dev/null && break; sleep 0.1; done
receiver_port=$(awk '{print $2}' "$work/receiver.out")

token=$(psql -tAX -c "select auth.start_session((auth.create_account('delivery@bench.example.com', 'delivery bench 1', null)).id)")
PGOPTIONS="-c role=liftbase_api" psql -qtAX -o /dev/null -v ON_ERROR_STOP=1 -v t="$token" -v url="http://127.0.0.1:$receiver_port/ok" <<'SQL'
select api.webhook_create(:'t', jsonb_build_object('url', :'url', 'events', '["diary.changed"]'::jsonb), '{}');
select api.entry_create(:'t', '{"name": "Pear", "calories": 60, "source": "manual"}', '{}');
SQL
psql -qX -v ON_ERROR_STOP=1 -v n="$deliveries" <<'SQL'
insert into auth.outbox (user_id, channel, kind, recipient, subscription_id, payload)
select o.user_id, o.channel, o.kind, o.recipient, o.subscription_id, o.payload
  from auth.outbox as o, generate_series(2, :n)
 where o.channel = 'webhook';
SQL
started=$(date +%s%N)
LIFTBASE_WEBHOOKS_ALLOW_PRIVATE=on LOG_LEVEL=error "$binary" deliver --once --batch "$delivery_batch" >/dev/null
elapsed_ms=$(( ($(date +%s%N) - started) / 1000000 ))
delivered=$(psql -tAX -c "select count(*) from auth.outbox where delivered_at is not null")
received=$(find "$work/receiver" -name 'request-*.json' | wc -l)
[ "$delivered" -eq "$deliveries" ] && [ "$received" -eq "$deliveries" ] \
  || { echo "delivery: $delivered recorded delivered, $received received, of $deliveries" >&2; exit 1; }
echo "delivery: $deliveries webhooks by one worker (batch $delivery_batch) in $elapsed_ms ms:" \
  "$(( deliveries * 1000 / elapsed_ms )) per second"
