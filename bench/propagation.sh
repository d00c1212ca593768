#!/usr/bin/env bash
# Force/expire propagation on one machine: campaignd and EDGES deliveryd processes (release builds) on loopback, each
# edge with its own cache folder, then `adload propagation` forces and expires a campaign REPEATS times and measures,
# from the admin answer, when each edge's launch answer shows it, and (rows "applied", from each edge's edge.status once
# every edge shows it) when each edge applied it by its own clock, the same clock on one machine: the first less the
# probe's own way back and its wait for the next probe. Each applied time is checked against the edge's probes (after
# the send of the last probe it answered without the change, before the first answer with it came back), and the
# readings outside are counted. Prints adload's table (percentiles over edges and repeats), how long adload took to
# send its first probes, that count, and each round's last edge and admin answer, and keeps its JSON in
# .build-bench/propagation-EDGES[-relays-N].json. With RELAYS=N, N relayd stand between campaignd and the edges
# (edge i behind relay i mod N), so what is measured crosses one relay.
#
#   bench/propagation.sh [EDGES] [REPEATS]      (defaults: 10 edges, 20 repeats)
#   PROBE_MS=0 bench/propagation.sh 50 10       (each edge probed with no pause; default: every 1 ms)
#   PROBE_OVER=http bench/propagation.sh ...    (the probes go to each edge's HTTP POST /rpc, as apps call it, on a
#                                                kept-alive connection; default: its ZeroMQ client socket)
#   PROBE_FROM=call bench/propagation.sh ...    (the probes of each step begin when the admin call is sent, not at its
#                                                answer: the same delays, and a count of the edges ahead of the answer)
#   IN_FLIGHT=8 bench/propagation.sh ...        (adload's --probes-in-flight: a probe to each edge every PROBE_MS
#                                                whatever came back, up to 8 unanswered, as phones launching on their
#                                                own; default 1: the next probe after the last one's answer)
#   SPREAD=1 bench/propagation.sh ...           (adload's --spread-first-probes: each step's first probes spread over
#                                                PROBE_MS, edge i's at i/N of it, not sent to every edge at once)
#   PROBE_SAMPLE=50 RELAYS=4 bench/propagation.sh 200 10
#                                               (adload's --probe-sample: each step's probes go to 50 of the edges,
#                                                the same ones each step, drawn by a seeded shuffle; every edge still
#                                                applies each change and is asked when (the applied rows are all 200's),
#                                                the seen rows are the 50's; default: every edge probed)
#   STEP_PAUSE_MS=1000 bench/propagation.sh ... (adload's --step-pause: a second's wait before each force and expire,
#                                                so that the step before's saves and acknowledgements are through)
#   RELAYS=4 bench/propagation.sh 200 10        (200 edges behind 4 relays)
#   TRACE=1 RELAYS=4 bench/propagation.sh 200 10 (every process logs JSON, at debug for a line each change applied;
#                                                then, for each force and expire, when the relays and the edges
#                                                applied it, in ms from campaignd's log line of the change: where the
#                                                time goes, apart from the probes and the admin answer; those lines
#                                                cost each process more)
#   CPU=1 RELAYS=4 bench/propagation.sh 200 10  (also what each service's threads spent in CPU over adload's run,
#                                                by program and thread name, a change and per process a change; the
#                                                edges' edge.status answers after each step count too)
#   HEARTBEATS=1 RELAYS=4 bench/propagation.sh 200 10
#                                               (campaignd alone logs JSON at debug, a line a heartbeat: then, for each
#                                                force and expire, how long after campaignd's last heartbeat its change
#                                                was committed, beside the round's last edge, and the steps with the
#                                                next heartbeat in their first 100 ms apart from the others)
#   SCHED=1 RELAYS=4 bench/propagation.sh 200 10
#                                               (campaignd logs JSON at debug, and `perf` traces the scheduler over
#                                                adload's run (root): then bench/sched-window.py says where both cores
#                                                went in the 100 ms after each force and expire's commit, by program
#                                                and thread, how long the threads waited for a CPU once woken, and
#                                                each relay's fan-out: when the edges behind it were woken with the
#                                                change; the trace costs the machine a little)
#   RELAY_NICE=0 RELAYS=4 bench/propagation.sh ...
#                                               (the relays' nice; default -10 (root): on one machine with 200 edges a
#                                                relay waits for the CPU behind them while it passes a change on to the
#                                                last of its 50, where on a machine of its own it would not; 0 runs them
#                                                as the edges)
#   WORK=/dev/shm bench/propagation.sh ...      (the services' folders on tmpfs: no disk under their saves)
#   BIN=DIR bench/propagation.sh ...            (the binaries in DIR instead of this checkout's release builds)
#   SAVE_DELAY_MS=1000 bench/propagation.sh ... (the edges' --state-save-delay: each saves and acknowledges a change
#                                                that long after applying it; unset, deliveryd's default)
#   NULL_EDGES=1 RELAYS=4 bench/propagation.sh 200 10
#                                               (the floor: bench/null-edge.c in place of each deliveryd, a process that
#                                                follows the same update stream and answers the same probes as cheaply
#                                                as libzmq allows, with no decoding, saving or acknowledging; built with
#                                                gcc against libzmq; the campaignd and relays are the real ones)
set -euo pipefail
cd "$(dirname "$0")/.."
EDGES=${1:-10}
REPEATS=${2:-20}
RELAYS=${RELAYS:-0}
RELAY_NICE=${RELAY_NICE:--10}
TRACE=${TRACE:-0}
LOGS=()
[ "$TRACE" = 1 ] && LOGS=(--log-format json --log-level debug)
CAMPAIGND_LOGS=("${LOGS[@]}")
if [ "${HEARTBEATS:-0}" = 1 ] || [ "${SCHED:-0}" = 1 ]; then CAMPAIGND_LOGS=(--log-format json --log-level debug); fi
OUT=.build-bench
NAME=propagation-$EDGES$([ "$RELAYS" -gt 0 ] && echo "-relays-$RELAYS" || true)
mkdir -p "$OUT"
. deploy/local/cluster.sh
build_bin release campaignd deliveryd adload $([ "$RELAYS" -gt 0 ] && echo relayd || true)
if [ "${NULL_EDGES:-0}" = 1 ]; then
  [ "${PROBE_OVER:-zmq}" = zmq ] || { echo "NULL_EDGES=1 answers probes over ZeroMQ only" >&2; exit 1; }
  gcc -O2 -Wall -o "$OUT/null-edge" bench/null-edge.c -lzmq
fi
RUN=$(mktemp -d "${WORK:-$OUT}/propagation-XXXX")
trap 'stop_cluster; rm -rf "$RUN"' EXIT

start_campaignd "$RUN" campaignd 0 "${CAMPAIGND_LOGS[@]}"
: >"$RUN/edges.txt"
# The upstream of edge i: campaignd, or relay (i mod RELAYS).
start_relays "$RUN" "$RELAYS" "${LOGS[@]}"
for i in $(seq "$EDGES"); do
  if [ "${NULL_EDGES:-0}" = 1 ]; then
    "$OUT/null-edge" "$(field "$(edge_upstream "$RUN" "$RELAYS" "$i")" updates)" "$RUN/edge-$i.ready" 2>"$RUN/edge-$i.log" &
    pids+=($!)
  else
    start_edge "$RUN" "edge-$i" "$(edge_upstream "$RUN" "$RELAYS" "$i")" 0 ${SAVE_DELAY_MS:+--state-save-delay "$SAVE_DELAY_MS"} "${LOGS[@]}"
  fi
done
for i in $(seq "$EDGES"); do wait_ready "$RUN/edge-$i.ready"; echo "$(field "$RUN/edge-$i.ready" client) $(field "$RUN/edge-$i.ready" http)" >>"$RUN/edges.txt"; done
echo "campaignd, $RELAYS relays and $EDGES edges running; $(nproc) cores"
# Who campaignd serves: the TCP connections its sync and updates sockets hold (an edge or relay holds two on sync:
# its session's and its acknowledgements' or reports').
peers() { ss -Htn state established "( sport = :${1##*:} )" 2>/dev/null | wc -l; }
echo "campaignd's connections: sync $(peers "$(field "$RUN/campaignd.ready" sync)"), updates $(peers "$(field "$RUN/campaignd.ready" updates)")"
[ "${CPU:-0}" = 1 ] && python3 bench/thread-cpu.py snap "$RUN/cpu-before.json" "${pids[@]}"
if [ "${SCHED:-0}" = 1 ]; then
  command -v perf >/dev/null || { echo "SCHED=1 needs perf (linux-perf)" >&2; exit 1; }
  for p in "${pids[@]}"; do echo "$p $(cat /proc/$p/comm)"; done >"$RUN/pids.txt"
  OFFSET=$(python3 -c "import time; print(time.time() - time.clock_gettime(time.CLOCK_MONOTONIC))")
  perf record -q -k CLOCK_MONOTONIC -e sched:sched_switch -e sched:sched_wakeup -a -o "$RUN/sched.data" >/dev/null 2>&1 &
  perf_pid=$!
  sleep 1
fi
"$BIN/adload" propagation --admin "$(field "$RUN/campaignd.ready" admin)" --edges-file "$RUN/edges.txt" \
  --repeats "$REPEATS" --timeout 30 --probe-interval "${PROBE_MS:-1}" --probe-from "${PROBE_FROM:-answer}" --probe-over "${PROBE_OVER:-zmq}" \
  --probes-in-flight "${IN_FLIGHT:-1}" $([ "${SPREAD:-0}" = 1 ] && echo --spread-first-probes) \
  --step-pause "${STEP_PAUSE_MS:-0}" ${PROBE_SAMPLE:+--probe-sample "$PROBE_SAMPLE"} --json >"$OUT/$NAME.json"
[ "${CPU:-0}" = 1 ] && python3 bench/thread-cpu.py snap "$RUN/cpu-after.json" "${pids[@]}"
if [ "${SCHED:-0}" = 1 ]; then
  kill -INT "$perf_pid"; wait "$perf_pid" || true
  perf sched timehist -i "$RUN/sched.data" >"$RUN/timehist.txt" 2>/dev/null
  python3 bench/sched-window.py "$RUN/campaignd.log" "$RUN/timehist.txt" "$RUN/pids.txt" "$OFFSET" "$OUT/$NAME.json"
fi
python3 - "$OUT/$NAME.json" "$RELAYS" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
probed = "each edge" if r['probedEdges'] == r['edges'] else f"each of {r['probedEdges']} edges (a sample; the applied rows are all {r['edges']})"
print(f"propagation over {r['edges']} edges behind {sys.argv[2]} relays, {r['repeats']} rounds, ms from the admin answer, {probed} probed every {r['probeIntervalSeconds']*1000:g} ms from the admin {r['probeFrom']}, over {r['probeOver']}, at most {r['probesInFlight']} in flight{', the first ones spread' if r['spreadFirstProbes'] else ''}")
print("| step | samples | p50 | p90 | p99 | max | mean |")
print("|---|---|---|---|---|---|---|")
for step in ("force", "expire", "all", "admin", "forceApplied", "expireApplied"):
    s = r[step]
    name = {"forceApplied": "force applied", "expireApplied": "expire applied"}.get(step, step)
    print(f"| {name} | {s['samples']} | {s['p50Milliseconds']:.2f} | {s['p90Milliseconds']:.2f} | {s['p99Milliseconds']:.2f} | "
          f"{s['maxMilliseconds']:.2f} | {s['meanMilliseconds']:.2f} |")
b = r['firstProbes']
print(f"adload's first probes to every edge, the last sent after p50 {b['p50Milliseconds']:.1f} ms, max {b['maxMilliseconds']:.1f} ms")
print(f"edges' applied times checked against their probes: {r['appliedChecked']}, outside them: {len(r['appliedOutsideProbes'])}"
      + "".join(f"\n  {x}" for x in r['appliedOutsideProbes'][:5]))
if r['probeFrom'] == 'call': print(f"edge answers showing the change before the admin answer arrived: {r['beforeAdminAnswer']}")
# Each round's last edge: whether the p99 is every round's or a few rounds'.
for step in ("force", "expire"):
    last = [x["maxMilliseconds"] for x in r["rounds"] if x["step"] == step]
    admin = [x["adminMilliseconds"] for x in r["rounds"] if x["step"] == step]
    print(f"{step}, each round's last edge (admin answer): " + ", ".join(f"{m:.0f} ({a:.0f})" for m, a in zip(last, admin))
          + f"; median {statistics.median(last):.1f}")
PY
# adload's changes: a create, a force and an expire each round, and its baseline campaign's create and expire.
[ "${CPU:-0}" = 1 ] && python3 bench/thread-cpu.py diff "$RUN/cpu-before.json" "$RUN/cpu-after.json" $((3 * REPEATS + 2))
if [ "${HEARTBEATS:-0}" = 1 ]; then
python3 - "$RUN/campaignd.log" "$OUT/$NAME.json" <<'PY'
import statistics, sys
sys.path.insert(0, "bench")
from service_log import at, entries, step_commits
steps = step_commits(sys.argv[1], sys.argv[2])
beats = [at(e) for e in entries(sys.argv[1]) if e.get("message") == "heartbeat published"]
if not beats: sys.exit("campaignd's log holds no heartbeat")
rows = []
for step, t in steps:
    before = [b for b in beats if b <= t]
    if not before: continue
    rows.append(((t - before[-1]) * 1000, step["maxMilliseconds"]))
# The heartbeat's burst (every edge woken at once; bench/idle-cpu.sh) takes the first 30 to 50 ms after it: a step
# whose change reaches the edges over 50 to 60 ms meets the next one when it begins in the last 100 ms of the second.
meets = [r for r in rows if r[0] >= 900]
apart = [r for r in rows if r[0] < 900]
print("each force and expire: ms after campaignd's last heartbeat, the round's last edge (ms from the admin answer)")
print("  " + ", ".join(f"{p:.0f}: {m:.0f}" for p, m in sorted(rows)))
for name, group in (("begun in the 100 ms before a heartbeat", meets), ("begun earlier in the second", apart)):
    if group:
        last = [m for _, m in group]
        print(f"{name}: {len(group)} steps, the last edge at median {statistics.median(last):.1f} ms, max {max(last):.1f}")
    else:
        print(f"{name}: no step")
PY
fi
[ "$TRACE" = 1 ] || exit 0
python3 - "$RUN" <<'PY'
import collections, glob, statistics, sys
sys.path.insert(0, "bench")
from service_log import at, entries as lines
run = sys.argv[1]
# campaignd's line for each force and expire, then when each relay and edge applied that seq (alone or in a batch).
changed = {int(e["seq"]): at(e) for e in lines(f"{run}/campaignd.log")
           if e.get("message") == "campaign changed" and e.get("op") in ("forced", "expired")}
def applied(pattern):
    found = collections.defaultdict(list)
    for path in glob.glob(f"{run}/{pattern}"):
        for e in lines(path):
            if e.get("message") == "applied a change": seqs = [int(e["seq"])]
            elif e.get("message") == "applied changes": seqs = range(int(e["from_seq"]), int(e["seq"]) + 1)
            else: continue
            for seq in seqs: found[seq].append(at(e))
    return found
relays, edges = applied("relay-*.log"), applied("edge-*.log")
rows = []
for seq, t0 in sorted(changed.items()):
    e = sorted((t - t0) * 1000 for t in edges.get(seq, []))
    if not e: continue
    r = sorted((t - t0) * 1000 for t in relays.get(seq, [])) or [float("nan")]
    rows.append((r[-1], e[0], e[len(e) // 2], e[min(len(e) - 1, int(len(e) * 0.99))], e[-1]))
if not rows: sys.exit("no change found in the logs")
print(f"when relays and edges applied each force and expire, ms from campaignd's log line of it (median over {len(rows)} changes):")
print("| last relay | first edge | edges p50 | edges p99 | last edge |")
print("|---|---|---|---|---|")
print("| " + " | ".join(f"{statistics.median(col):.1f}" for col in zip(*rows)) + " |")
PY
