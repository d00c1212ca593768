#!/usr/bin/env bash
# Admin write throughput and latency of each store engine, in the same run: one campaignd on SQLite (its data
# folder, synchronous = FULL) and one on a PostgreSQL cluster of its own (fsync and synchronous commit on), each
# given the same campaign.create load by `adload writes` (WRITERS concurrent writers, COUNT writes), ROUNDS times
# alternately. Prints each round and, per engine, the medians of writes/s, p50 and p99, and PostgreSQL's
# throughput as a ratio of SQLite's.
#
#   bench/admin-writes.sh [ROUNDS] [WRITERS] [COUNT]     # default 3 8 2000
#
# Release binaries (built unless BIN=DIR names them; see deploy/local/cluster.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/local/cluster.sh
ROUNDS=${1:-3}
WRITERS=${2:-8}
COUNT=${3:-2000}
build_bin release campaignd adctl adload
W=$(mktemp -d /tmp/launchad-writes.XXXXXX)
trap 'stop_cluster; rm -rf "$W"' EXIT
start_postgres "$W"
mkdir -p "$W/sqlite" "$W/postgres"
start_campaignd "$W/sqlite" campaignd 0
SQLITE_ADMIN=$ADMIN
start_campaignd "$W/postgres" campaignd 0 --database "$DATABASE"
POSTGRES_ADMIN=$ADMIN
write_creatives "$W"
upload_creatives "$SQLITE_ADMIN" "$W"
SQLITE_SHA=${SHAS[1]}
upload_creatives "$POSTGRES_ADMIN" "$W"
POSTGRES_SHA=${SHAS[1]}

for round in $(seq "$ROUNDS"); do
  for engine in sqlite postgres; do
    if [ "$engine" = sqlite ]; then admin=$SQLITE_ADMIN; sha=$SQLITE_SHA; else admin=$POSTGRES_ADMIN; sha=$POSTGRES_SHA; fi
    "$BIN/adload" writes --admin "$admin" --writers "$WRITERS" --count "$COUNT" --creative "$sha" --app "round$round" --timeout 30 --json \
      >"$W/$engine-$round.json"
    python3 - "$W/$engine-$round.json" "$engine" "$round" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"round {sys.argv[3]} {sys.argv[2]:8}: {r['writesPerSecond']:7.0f} writes/s  p50 {r['p50Milliseconds']:6.2f} ms  "
      f"p99 {r['p99Milliseconds']:6.2f} ms  ({r['answered']} answered, {sum(r['failed'].values())} failed)", flush=True)
PY
  done
done
python3 - "$W" "$ROUNDS" "$WRITERS" "$COUNT" <<'PY'
import json, statistics, sys
work, rounds, writers, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
medians = {}
for engine in ("sqlite", "postgres"):
    runs = [json.load(open(f"{work}/{engine}-{r}.json")) for r in range(1, rounds + 1)]
    m = {k: statistics.median(run[k] for run in runs) for k in ("writesPerSecond", "p50Milliseconds", "p99Milliseconds")}
    medians[engine] = m
    print(f"RESULT label=admin-writes-{engine} writers={writers} writes={count} rounds={rounds} writes_per_s={m['writesPerSecond']:.0f} "
          f"p50_ms={m['p50Milliseconds']:.2f} p99_ms={m['p99Milliseconds']:.2f}")
print(f"RESULT label=admin-writes-ratio postgres_over_sqlite={medians['postgres']['writesPerSecond'] / medians['sqlite']['writesPerSecond']:.2f}")
PY
