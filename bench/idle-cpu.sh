#!/usr/bin/env bash
# What idle edges spend: campaignd and EDGES deliveryd processes (release builds) on loopback, with no change made,
# then what each thread of the edges spent over SECONDS, by thread name, a second and per edge a second (the
# kernel's per-thread counters, bench/thread-cpu.py). The cost every edge has before any change: timers, heartbeats
# and their acknowledgements.
#
#   bench/idle-cpu.sh [EDGES] [SECONDS]      (defaults: 10 edges, 20 s)
#   BIN=DIR bench/idle-cpu.sh ...            (the binaries in DIR instead of this checkout's release builds)
set -euo pipefail
cd "$(dirname "$0")/.."
EDGES=${1:-10}
SECONDS_IDLE=${2:-20}
OUT=.build-bench
mkdir -p "$OUT"
. bench/services.sh
release_bin campaignd deliveryd
RUN=$(mktemp -d "$OUT/idle-XXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$RUN"; }
trap cleanup EXIT
start_campaignd "$RUN"
edges=()
for i in $(seq "$EDGES"); do
  start_edge "$RUN" "edge-$i" "$RUN/campaignd.ready"
  edges+=("${pids[-1]}")
done
for i in $(seq "$EDGES"); do wait_ready "$RUN/edge-$i.ready"; done
# Past the start: the first snapshot, save and acknowledgement.
sleep 3
echo "campaignd and $EDGES edges idle for $SECONDS_IDLE s; $(nproc) cores"
python3 bench/thread-cpu.py snap "$RUN/before.json" "${edges[@]}"
sleep "$SECONDS_IDLE"
python3 bench/thread-cpu.py snap "$RUN/after.json" "${edges[@]}"
python3 bench/thread-cpu.py diff "$RUN/before.json" "$RUN/after.json" "$SECONDS_IDLE" second
