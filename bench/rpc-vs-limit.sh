#!/usr/bin/env bash
# The RPC layer against the reference limit, in one run: the C load client of ../shared/bench/zmq-limit drives the
# limit server and our rpc-bench-server alternately (limit, ours, limit, ours, ...) in the throughput shape
# (-s 4 -w 256) and the latency shape (-s 1 -w 1), and prints the median of the per-pair ratios.
#
#   bench/rpc-vs-limit.sh [ROUNDS] [SECONDS]      (defaults: 5 rounds of 5 s per run)
#
# Everything stays on loopback and stops by itself. Raw RESULT lines go to .build-bench/rpc-vs-limit.log.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECS=${2:-5}
. bench/limit.sh
swift build -c release --product rpc-bench-server >/dev/null
BIN=$(swift build -c release --show-bin-path)/rpc-bench-server

TOTAL=$(( ROUNDS * (SECS + 2) * 6 + 30 ))
PORT=$(( 20000 + RANDOM % 20000 ))
"$OUT"/zmq_limit_server -e "tcp://127.0.0.1:$PORT" -t "$TOTAL" >"$OUT/limit-server.log" &
LIMIT_PID=$!
"$BIN" --seconds "$TOTAL" >"$OUT/fast-server.log" 2>/dev/null &
FAST_PID=$!
"$BIN" --seconds "$TOTAL" --codable >"$OUT/codable-server.log" 2>/dev/null &
CODABLE_PID=$!
trap 'kill $LIMIT_PID $FAST_PID $CODABLE_PID 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  grep -q READY "$OUT/fast-server.log" && grep -q READY "$OUT/codable-server.log" && break
  sleep 0.1
done
FAST=$(sed -n 's/READY endpoint=//p' "$OUT/fast-server.log")
CODABLE=$(sed -n 's/READY endpoint=//p' "$OUT/codable-server.log")
LIMIT="tcp://127.0.0.1:$PORT"

LOG="$OUT/rpc-vs-limit.log"
: >"$LOG"
for round in $(seq "$ROUNDS"); do
  for shape in "4 256 thr" "1 1 lat"; do
    set -- $shape
    for target in "limit $LIMIT" "fast $FAST" "codable $CODABLE"; do
      set -- $shape $target
      "$OUT"/zmq_load -e "$5" -s "$1" -w "$2" -d "$SECS" -l "$4-$3-$round" | tee -a "$LOG" | cut -c1-140
    done
  done
done

bench/ratios.py "$LOG" limit fast codable
