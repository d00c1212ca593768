#!/usr/bin/env bash
# What idle edges spend: campaignd and EDGES deliveryd processes (release builds) on loopback, with no change made,
# then what each thread of the edges spent over SECONDS, by thread name, a second and per edge a second (the
# kernel's per-thread counters, bench/thread-cpu.py). The cost every edge has before any change: timers, heartbeats
# and their acknowledgements. Then, over as long again, how busy the machine is at each moment of the second
# (bench/busy-by-phase.py): what recurs each second at once on every process (the heartbeat) shows as a burst.
#
#   bench/idle-cpu.sh [EDGES] [SECONDS]      (defaults: 10 edges, 20 s)
#   RELAYS=4 bench/idle-cpu.sh 200 10        (the edges behind 4 relays, edge i behind relay i mod 4, as in
#                                             bench/propagation.sh; the relays' and campaignd's threads are counted too)
#   BIN=DIR bench/idle-cpu.sh ...            (the binaries in DIR instead of this checkout's release builds)
set -euo pipefail
cd "$(dirname "$0")/.."
EDGES=${1:-10}
SECONDS_IDLE=${2:-20}
OUT=.build-bench
mkdir -p "$OUT"
. deploy/local/cluster.sh
RELAYS=${RELAYS:-0}
build_bin release campaignd deliveryd $([ "$RELAYS" -gt 0 ] && echo relayd || true)
RUN=$(mktemp -d "$OUT/idle-XXXX")
trap 'stop_cluster; rm -rf "$RUN"' EXIT
start_campaignd "$RUN" campaignd 0
start_relays "$RUN" "$RELAYS"
edges=()
for i in $(seq "$EDGES"); do
  start_edge "$RUN" "edge-$i" "$(edge_upstream "$RUN" "$RELAYS" "$i")" 0
  edges+=("${pids[-1]}")
done
for i in $(seq "$EDGES"); do wait_ready "$RUN/edge-$i.ready"; done
# Past the start: the first snapshot, save and acknowledgement.
sleep 3
echo "campaignd, $RELAYS relays and $EDGES edges idle for $SECONDS_IDLE s; $(nproc) cores"
# With relays, every process is counted (the heartbeat's acknowledgements cost the relays and campaignd too).
counted=("${edges[@]}")
[ "$RELAYS" -gt 0 ] && counted=("${pids[@]}")
python3 bench/thread-cpu.py snap "$RUN/before.json" "${counted[@]}"
sleep "$SECONDS_IDLE"
python3 bench/thread-cpu.py snap "$RUN/after.json" "${counted[@]}"
python3 bench/thread-cpu.py diff "$RUN/before.json" "$RUN/after.json" "$SECONDS_IDLE" second
python3 bench/busy-by-phase.py "$SECONDS_IDLE"
