#!/usr/bin/env bash
# launch.query on a real edge against the reference limit, in one run: campaignd and deliveryd (release builds)
# with 100 live campaigns across 10 apps, then the C load client of ../shared/bench/zmq-limit drives the limit
# server and deliveryd alternately in the throughput shape (-s 4 -w 256) and the latency shape (-s 1 -w 1).
# The client's requests are DESIGN launch queries over 10,000 device ids (app "shop", iOS 5.2.0, cn-east, zh-CN).
# Also records deliveryd's resident memory before and after a long run (MEMORY_SECONDS, default 60).
# CLIENT=adload drives both servers with adload instead (same shapes: 4 connections x 64, 1 x 1), whose population
# spreads over the 10 apps, both platforms, several versions, screens, regions and locales, with a mix of
# 90% queries (20% of them hot starts), 4% prefetches and 6% impression reports.
# COMPARE_BIN=/path/to/another/deliveryd starts a second edge from that build on the same campaignd and drives it in
# every round next to this build's (label "compare"), for paired runs of two builds: right after it in odd rounds and
# right before it in even ones, so that neither build always has the same place after the limit.
# SCHED_TRACES=N (needs perf, as root) ends with N pairs of scheduling traces under adload's mix, the limit's then
# the edge's (bench/sched-trace.sh): per-thread CPU, switches and waits for a CPU, and the cores' idle share.
#
#   bench/launch-vs-limit.sh [ROUNDS] [SECONDS]      (defaults: 5 rounds of 5 s per run)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECS=${2:-5}
MEMORY_SECONDS=${MEMORY_SECONDS:-60}
CLIENT=${CLIENT:-c}
. bench/limit.sh
. deploy/local/cluster.sh
. bench/launch-campaigns.sh
build_bin release campaignd deliveryd adctl adload
RUN=$(mktemp -d "$OUT/launch-XXXX")
trap stop_cluster EXIT

start_campaignd "$RUN" campaignd 0

seed_launch_campaigns "$ADMIN" "$RUN"

start_edge "$RUN" edge "$RUN/campaignd.ready" 0
EDGE_PID=$LAST_PID
wait_ready "$RUN/edge.ready"
EDGE=$(field "$RUN/edge.ready" client)
wait_applied "$EDGE" 100 3
echo "edge ready: $("$BIN/adctl" --endpoint "$EDGE" call edge.status)"
COMPARE=""
if [ -n "${COMPARE_BIN:-}" ]; then
  DELIVERYD=$COMPARE_BIN start_edge "$RUN" compare "$RUN/campaignd.ready" 0
  wait_ready "$RUN/compare.ready"
  COMPARE=$(field "$RUN/compare.ready" client)
  wait_applied "$COMPARE" 100 3
  echo "compare edge ready ($COMPARE_BIN)"
fi
echo "sample answer: $("$BIN/adctl" --endpoint "$EDGE" call launch.query '{"app":"shop","platform":"ios","appVersion":"5.2.0","region":"cn-east","locale":"zh-CN","deviceId":"d-1","screen":{"width":1179,"height":2556}}' | cut -c1-160)..."

TOTAL=$(( ROUNDS * (SECS + 2) * 6 + ${SCHED_TRACES:-0} * 20 + MEMORY_SECONDS + 60 ))
PORT=$(( 20000 + RANDOM % 20000 ))
"$OUT"/zmq_limit_server -e "tcp://127.0.0.1:$PORT" -t "$TOTAL" >"$RUN/limit.log" &
pids+=($!)
sleep 0.3
LOG="$OUT/launch-vs-limit.log"
: >"$LOG"
# drive ENDPOINT SOCKETS TOTAL_WINDOW SECONDS LABEL: one run of the chosen client, one RESULT line.
drive() {
  if [ "$CLIENT" = adload ]; then
    "$BIN/adload" --endpoint "$1" --connections "$2" --window $(( $3 / $2 )) --duration "$4" --quiet --json \
      --apps shop,app1,app2,app3,app4,app5,app6,app7,app8,app9 --mix query=90,prefetch=4,report=6 \
      | bench/adload-result.py "$5" || true
  else
    "$OUT"/zmq_load -e "$1" -s "$2" -w "$3" -d "$4" -l "$5" || true
  fi
}
for round in $(seq "$ROUNDS"); do
  for shape in "4 256 thr" "1 1 lat"; do
    set -- $shape
    drive "tcp://127.0.0.1:$PORT" "$1" "$2" "$SECS" "limit-$3-$round" | tee -a "$LOG" | cut -c1-140
    # The edges in this round's order, each as ENDPOINT=LABEL (an endpoint holds no "=").
    edges=("$EDGE=deliveryd")
    if [ -n "$COMPARE" ]; then
      if [ $(( round % 2 )) -eq 0 ]; then edges=("$COMPARE=compare" "${edges[@]}"); else edges+=("$COMPARE=compare"); fi
    fi
    for edge in "${edges[@]}"; do
      drive "${edge%%=*}" "$1" "$2" "$SECS" "${edge#*=}-$3-$round" | tee -a "$LOG" | cut -c1-140
    done
  done
done

for _ in $(seq "${SCHED_TRACES:-0}"); do
  bench/sched-trace.sh limit "tcp://127.0.0.1:$PORT" "$BIN/adload" | tee -a "$LOG"
  bench/sched-trace.sh deliveryd "$EDGE" "$BIN/adload" | tee -a "$LOG"
done

rss() { awk '/VmRSS/ {print $2}' "/proc/$EDGE_PID/status"; }
BEFORE=$(rss)
if [ "$MEMORY_SECONDS" -gt 0 ]; then
  drive "$EDGE" 4 256 "$MEMORY_SECONDS" "deliveryd-memory" | tee -a "$LOG" | cut -c1-140
fi
AFTER=$(rss)
echo "deliveryd resident memory: ${BEFORE} KiB before, ${AFTER} KiB after a ${MEMORY_SECONDS} s run"

# The run's folder keeps its own copy of the log (each run overwrites $LOG), for its per-round figures.
cp "$LOG" "$RUN/launch-vs-limit.log"
echo "log: $RUN/launch-vs-limit.log"
if [ -n "$COMPARE" ]; then bench/ratios.py "$LOG" limit deliveryd compare; else bench/ratios.py "$LOG" limit deliveryd; fi
