#!/usr/bin/env bash
# One scheduling trace of a server under adload's mix: adload drives ENDPOINT in the throughput shape (4 connections
# x 64) for 5 s, `perf sched` records one second in the middle, and one line sums it up: requests a second, how much
# of the two cores stayed idle, and for each busy thread (by name; the libzmq I/O threads of server and client
# together) its CPU per request, its context switches per 1,000 requests and its mean wait for a CPU once woken.
# Needs `perf` and the right to trace the scheduler (root). launch-vs-limit.sh runs it with SCHED_TRACES=N.
#
#   bench/sched-trace.sh LABEL ENDPOINT [ADLOAD]
set -euo pipefail
LABEL=$1
ENDPOINT=$2
ADLOAD=${3:-$(swift build -c release --show-bin-path)/adload}
command -v perf >/dev/null || { echo "sched-trace: perf is not installed" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$ADLOAD" --endpoint "$ENDPOINT" --connections 4 --window 64 --duration 5 --warmup 1 --quiet --json \
  --apps shop,app1,app2,app3,app4,app5,app6,app7,app8,app9 --mix query=90,prefetch=4,report=6 >"$WORK/load.json" &
load=$!
sleep 2.5
perf sched record -o "$WORK/sched.data" -- sleep 1 >/dev/null 2>&1
wait "$load"
perf sched latency -i "$WORK/sched.data" 2>/dev/null >"$WORK/latency.txt"
python3 - "$LABEL" "$WORK/load.json" "$WORK/latency.txt" "$(nproc)" <<'PY'
import json, re, sys
label, load, latency, cores = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
requests = json.load(open(load))["requestsPerSecond"]  # the run's rate, taken as the traced second's
busy, rows = 0.0, []
for line in open(latency):
    m = re.match(r"\s*(\S.*?)\s*\|\s*([\d.]+) ms\s*\|\s*(\d+)\s*\|\s*avg:\s*([\d.]+) ms", line)
    if not m:
        continue
    name, run, switches, wait = m.group(1).split(":")[0], float(m.group(2)), int(m.group(3)), float(m.group(4))
    busy += run
    if run > 20:  # the threads that matter; the rest is housekeeping
        rows.append(f"{name} {run * 1000 / requests:.2f} µs/req, {switches * 1000 / requests:.1f} sw/1k, wait {wait * 1000:.0f} µs")
idle = 100 * (1 - busy / (1000 * cores))
print(f"SCHED label={label} rps={requests:.0f} idle={idle:.0f}% | " + " | ".join(rows))
PY
