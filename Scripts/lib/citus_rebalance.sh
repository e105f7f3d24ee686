#!/usr/bin/env bash
# The rebalance check on the cluster of `Scripts/citus up` (run by Scripts/test; PGHOST,
# PGPORT, PGUSER and PGDATABASE point at the coordinator): seeds users, fingerprints every
# Citus-managed table (row count and a digest of its rows), adds a third worker, moves
# shards onto it with citus_rebalance_start() to completion, then requires the same
# fingerprints, shards on the new worker, and router plans still on the node of each user.
set -euo pipefail
cd "$(dirname "$0")/../.."

psql -qX -v ON_ERROR_STOP=1 -f sql/citus-tests/seed.sql

fingerprint() {
  psql -tAX -v ON_ERROR_STOP=1 <<'SQL'
select string_agg(format('%s=%s', t.logicalrelid,
         (xpath('/row/f/text()', query_to_xml(format(
            'select count(*) || '':'' || md5(coalesce(string_agg(r::text, ''|'' order by r::text), '''')) as f from %s as r',
            t.logicalrelid), false, true, '')))[1]), ' ' order by t.logicalrelid::text)
  from pg_dist_partition as t;
SQL
}

before=$(fingerprint)
rows_before=$(psql -tAX -c "select count(*) from app.session_sets")
started=$(date +%s)
Scripts/citus add-worker
psql -qX -v ON_ERROR_STOP=1 -c "select citus_rebalance_start()" >/dev/null
psql -qX -v ON_ERROR_STOP=1 -c "select citus_rebalance_wait()" >/dev/null
seconds=$(( $(date +%s) - started ))

status=$(psql -tAX -c "select state from citus_rebalance_status() order by job_id desc limit 1")
[ "$status" = "finished" ] || { echo "rebalance ended $status" >&2; exit 1; }
moved=$(psql -tAX <<'SQL'
select count(*) from pg_dist_placement as p join pg_dist_node as n on n.groupid = p.groupid
 where n.nodeport = (select max(nodeport) from pg_dist_node)
SQL
)
[ "$moved" -gt 0 ] || { echo "no shard moved to the new worker" >&2; exit 1; }
after=$(fingerprint)
[ "$before" = "$after" ] || { echo "rows changed in the rebalance:"; diff <(tr ' ' '\n' <<<"$before") <(tr ' ' '\n' <<<"$after"); exit 1; } >&2
pg_prove sql/citus-tests/10_router_plans.sql
echo "rebalance: $(wc -w <<<"$after") tables and $rows_before sets unchanged, $moved shard placements on the new worker, ${seconds} s"
