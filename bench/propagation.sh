#!/usr/bin/env bash
# Force/expire propagation on one machine: campaignd and EDGES deliveryd processes (release builds) on loopback, each
# edge with its own cache folder, then `adload propagation` forces and expires a campaign REPEATS times and measures,
# from the admin answer, when each edge's launch answer shows it. Prints adload's table (percentiles over edges and
# repeats) and keeps its JSON in .build-bench/propagation-EDGES.json.
#
#   bench/propagation.sh [EDGES] [REPEATS]      (defaults: 10 edges, 20 repeats)
#   PROBE_MS=0 bench/propagation.sh 50 10       (each edge probed with no pause; default: every 1 ms)
set -euo pipefail
cd "$(dirname "$0")/.."
EDGES=${1:-10}
REPEATS=${2:-20}
OUT=.build-bench
mkdir -p "$OUT"
for product in campaignd deliveryd adload; do swift build -c release --product "$product" >/dev/null; done
BIN=$(swift build -c release --show-bin-path)
RUN=$(mktemp -d "$OUT/propagation-XXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$RUN"; }
trap cleanup EXIT
field() { python3 -c "import json,sys; print(json.load(open('$1'))['$2'])"; }
wait_ready() { for _ in $(seq 300); do [ -s "$1" ] && return 0; sleep 0.1; done; echo "no ready file $1" >&2; exit 1; }

"$BIN/campaignd" --data-dir "$RUN/campaignd" --admin-endpoint tcp://127.0.0.1:0 --sync-endpoint tcp://127.0.0.1:0 \
  --updates-endpoint tcp://127.0.0.1:0 --http-address 127.0.0.1:0 --ready-file "$RUN/campaignd.ready" >"$RUN/campaignd.log" 2>&1 &
pids+=($!)
wait_ready "$RUN/campaignd.ready"
: >"$RUN/edges.txt"
for i in $(seq "$EDGES"); do
  "$BIN/deliveryd" --edge-id "edge-$i" --region bench --cache-dir "$RUN/edge-$i" \
    --campaign-sync "$(field "$RUN/campaignd.ready" sync)" --campaign-updates "$(field "$RUN/campaignd.ready" updates)" \
    --client-endpoint tcp://127.0.0.1:0 --http-address 127.0.0.1:0 --ready-file "$RUN/edge-$i.ready" >"$RUN/edge-$i.log" 2>&1 &
  pids+=($!)
done
for i in $(seq "$EDGES"); do wait_ready "$RUN/edge-$i.ready"; field "$RUN/edge-$i.ready" client >>"$RUN/edges.txt"; done
echo "campaignd and $EDGES edges running; $(nproc) cores"
"$BIN/adload" propagation --admin "$(field "$RUN/campaignd.ready" admin)" --edges-file "$RUN/edges.txt" \
  --repeats "$REPEATS" --timeout 30 --probe-interval "${PROBE_MS:-1}" --json >"$OUT/propagation-$EDGES.json"
python3 - "$OUT/propagation-$EDGES.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"propagation over {r['edges']} edges, {r['repeats']} rounds, ms from the admin answer, each edge probed every {r['probeIntervalSeconds']*1000:g} ms")
print("| step | samples | p50 | p90 | p99 | max | mean |")
print("|---|---|---|---|---|---|---|")
for step in ("force", "expire", "all", "admin"):
    s = r[step]
    print(f"| {step} | {s['samples']} | {s['p50Milliseconds']:.2f} | {s['p90Milliseconds']:.2f} | {s['p99Milliseconds']:.2f} | "
          f"{s['maxMilliseconds']:.2f} | {s['meanMilliseconds']:.2f} |")
print(f"edge answers showing the change before the admin answer arrived: {r['beforeAdminAnswer']}")
PY
