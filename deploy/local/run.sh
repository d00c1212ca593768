#!/usr/bin/env bash
# Starts the whole system on this machine with its embedded defaults (SQLite, loopback endpoints): one campaignd
# and EDGES deliveryd edges, each with its own data folder under RUN_DIR, and shows it working.
#
#   deploy/local/run.sh            # start, show, keep running until Ctrl-C
#   deploy/local/run.sh --once     # start, show, stop
#
# Environment: EDGES (default 2), RUN_DIR (default .build-local), CONFIG (debug or release, default debug).
set -euo pipefail
cd "$(dirname "$0")/../.."
ONCE=0
[ "${1:-}" = "--once" ] && ONCE=1
EDGES=${EDGES:-2}
RUN_DIR=${RUN_DIR:-.build-local}
CONFIG=${CONFIG:-debug}

deploy/local/ensure-deps.sh
echo "== building ($CONFIG)"
swift build -c "$CONFIG" --product campaignd >/dev/null
swift build -c "$CONFIG" --product deliveryd >/dev/null
swift build -c "$CONFIG" --product adctl >/dev/null
BIN=$(swift build -c "$CONFIG" --show-bin-path)

rm -rf "$RUN_DIR"
mkdir -p "$RUN_DIR"
pids=()
stop() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop EXIT INT TERM

wait_ready() {  # file, seconds
  for _ in $(seq $(( $2 * 10 ))); do [ -s "$1" ] && return 0; sleep 0.1; done
  echo "gave up waiting for $1" >&2
  return 1
}

echo "== starting campaignd"
"$BIN/campaignd" --data-dir "$RUN_DIR/campaignd" --ready-file "$RUN_DIR/campaignd.ready" \
  >"$RUN_DIR/campaignd.log" 2>&1 &
pids+=($!)
wait_ready "$RUN_DIR/campaignd.ready" 20
cat "$RUN_DIR/campaignd.ready"

for i in $(seq "$EDGES"); do
  echo "== starting edge-$i"
  "$BIN/deliveryd" --edge-id "edge-$i" --region local --cache-dir "$RUN_DIR/edge-$i" \
    --client-endpoint "tcp://127.0.0.1:$(( 7200 + 10 * (i - 1) ))" --http-address "127.0.0.1:$(( 8200 + 10 * (i - 1) ))" \
    --ready-file "$RUN_DIR/edge-$i.ready" >"$RUN_DIR/edge-$i.log" 2>&1 &
  pids+=($!)
  wait_ready "$RUN_DIR/edge-$i.ready" 20
  cat "$RUN_DIR/edge-$i.ready"
done

echo "== the admin API (adctl discover)"
"$BIN/adctl" discover
echo "== edge-1's client API (rpc.discover)"
"$BIN/adctl" discover --endpoint tcp://127.0.0.1:7200

if [ "$ONCE" = 1 ]; then
  echo "== stopping"
  exit 0
fi
echo "== running; logs in $RUN_DIR; Ctrl-C stops everything"
wait
