#!/usr/bin/env bash
# Is adload the bottleneck? Against the reference limit server of ../shared/bench/zmq-limit, in one run, the C load
# client and adload (release build) alternate in the throughput shape (4 sockets, 256 in flight in total) and the
# latency shape (1 socket, 1 in flight); prints the median ratio adload / C client of each shape.
#
#   bench/adload-vs-limit.sh [ROUNDS] [SECONDS]      (defaults: 5 rounds of 5 s per run)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECS=${2:-5}
. bench/limit.sh
swift build -c release --product adload >/dev/null
BIN=$(swift build -c release --show-bin-path)
PORT=$(( 20000 + RANDOM % 20000 ))
"$OUT"/zmq_limit_server -e "tcp://127.0.0.1:$PORT" -t $(( ROUNDS * 4 * (SECS + 2) + 30 )) >/dev/null &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
sleep 0.3
LOG="$OUT/adload-vs-limit.log"
: >"$LOG"
for round in $(seq "$ROUNDS"); do
  for shape in "4 256 64 thr" "1 1 1 lat"; do
    set -- $shape
    "$OUT"/zmq_load -e "tcp://127.0.0.1:$PORT" -s "$1" -w "$2" -d "$SECS" -l "c-$4-$round" | tee -a "$LOG" | cut -c1-150 || true
    "$BIN"/adload --endpoint "tcp://127.0.0.1:$PORT" --connections "$1" --window "$3" --duration "$SECS" --quiet --json \
      | bench/adload-result.py "adload-$4-$round" | tee -a "$LOG" || true
  done
done
bench/ratios.py "$LOG" c adload
