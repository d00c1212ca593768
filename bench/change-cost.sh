#!/usr/bin/env bash
# What one change costs each tier in CPU time: campaignd, a relayd and EDGES deliveryd behind it (release builds) on
# loopback. A campaign is forced and unforced in turn CHANGES times, each change applied, saved and acknowledged by
# every edge before the next (`adctl ... --wait`), as in the rounds of bench/propagation.sh. Each process's
# utime+stime (/proc/PID/stat) over the changes, less what it spends idle (heartbeats, acknowledgements) over as long
# (measured first, for IDLE seconds), divided by CHANGES. campaignd's figure includes answering adctl (the write and
# --wait's polls of edge.list).
#
#   bench/change-cost.sh [EDGES] [CHANGES]      (defaults: 10 edges, 200 changes; IDLE=20 seconds)
#   PERF=1 bench/change-cost.sh 10 200          (also `perf record -g` edge 1 during the changes, PERF_HZ a second
#                                                (default 999), into
#                                                .build-bench/change-cost.perf.data; the top of its report goes to
#                                                .build-bench/change-cost-perf.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/local/cluster.sh
EDGES=${1:-10}
CHANGES=${2:-200}
IDLE=${IDLE:-20}
OUT=.build-bench
mkdir -p "$OUT"
build_bin release campaignd relayd deliveryd adctl
RUN=$(mktemp -d "$OUT/change-cost-XXXX")
trap 'stop_cluster; rm -rf "$RUN"' EXIT

start_campaignd "$RUN" campaignd 0
start_relay "$RUN" relay-1 "$RUN/campaignd.ready" 0
wait_ready "$RUN/relay-1.ready"
for i in $(seq "$EDGES"); do
  start_edge "$RUN" "edge-$i" "$RUN/relay-1.ready" 0
done
for i in $(seq "$EDGES"); do wait_ready "$RUN/edge-$i.ready"; done
# pids: campaignd, the relay, then the edges.
names=(campaignd relayd $(for i in $(seq "$EDGES"); do echo "edge-$i"; done))

write_creatives "$RUN"
upload_creatives "$ADMIN" "$RUN"
ID=$("$BIN/adctl" --endpoint "$ADMIN" --json campaign create --name cost --app shop --starts now --ends +6h \
  --creative "${SHAS[1]}" --wait --wait-timeout 30 | python3 -c 'import json,sys; print(json.load(sys.stdin)["campaign"]["id"])')

# CPU ticks (utime + stime) of every process, in the order of names.
ticks() { for p in "${pids[@]}"; do awk '{print $14 + $15}' "/proc/$p/stat"; done | paste -sd' '; }
now() { date +%s.%N; }

t0=$(now); idle0=$(ticks)
sleep "$IDLE"
t1=$(now); idle1=$(ticks)
if [ "${PERF:-0}" = 1 ]; then
  perf record -F ${PERF_HZ:-999} -g -o "$OUT/change-cost.perf.data" -p "${pids[2]}" >/dev/null 2>&1 &
  perf_pid=$!
fi
t2=$(now); busy0=$(ticks)
for n in $(seq "$CHANGES"); do
  if [ $((n % 2)) = 1 ]; then op=force; else op=unforce; fi
  "$BIN/adctl" --endpoint "$ADMIN" campaign "$op" "$ID" --wait --wait-timeout 30 >/dev/null
done
t3=$(now); busy1=$(ticks)
if [ "${PERF:-0}" = 1 ]; then
  kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
  perf report -i "$OUT/change-cost.perf.data" --stdio --no-children --percent-limit 0.7 2>/dev/null | head -400 >"$OUT/change-cost-perf.txt"
fi

python3 - "$(getconf CLK_TCK)" "$CHANGES" "$t0" "$t1" "$t2" "$t3" "$idle0" "$idle1" "$busy0" "$busy1" "${names[*]}" "$(nproc)" <<'PY'
import statistics, sys
hz, changes = int(sys.argv[1]), int(sys.argv[2])
t0, t1, t2, t3 = map(float, sys.argv[3:7])
idle0, idle1, busy0, busy1 = ([int(x) for x in a.split()] for a in sys.argv[7:11])
names = sys.argv[11].split()
def ms(i):
    idle_rate = (idle1[i] - idle0[i]) / hz / (t1 - t0)
    return ((busy1[i] - busy0[i]) / hz - idle_rate * (t3 - t2)) * 1000 / changes, idle_rate * 1000
rows = [ms(i) for i in range(len(names))]
print(f"{changes} changes in {t3 - t2:.1f} s ({(t3 - t2) * 1000 / changes:.0f} ms each, applied and acknowledged everywhere); {sys.argv[12]} cores")
print("| process | CPU ms per change | idle CPU ms per second |")
print("|---|---|---|")
for name, (per, idle) in zip(names[:2], rows[:2]):
    print(f"| {name} | {per:.2f} | {idle:.2f} |")
edges = rows[2:]
per = [e[0] for e in edges]
print(f"| edge (mean of {len(edges)}; min {min(per):.2f}, max {max(per):.2f}) | {statistics.mean(per):.2f} | {statistics.mean(e[1] for e in edges):.2f} |")
PY
