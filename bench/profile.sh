#!/usr/bin/env bash
# A profile of the edge's hot path: what one launch query costs deliveryd over ZeroMQ (launch.query) and over HTTP
# (POST /rpc), beside the reference limit server of ../shared/bench/zmq-limit (a ZeroMQ server that does no work),
# each over a fixed number of requests (REQUESTS, default 20,000), so that what a run costs once is amortized:
#   - instructions a request (callgrind), split into decode, decide and write (query-microbench's in-process stages,
#     each the difference of a run of 2×REQUESTS and one of REQUESTS; decode is its whole dispatch less the other
#     two) and transport (the real server's total less the whole dispatch), the total from callgrind on the running server (`callgrind_control -d` cuts a dump after each part;
#     an idle dump is subtracted at the rate it accrues), and the server's instructions by object file (libzmq, libc,
#     Swift's runtime, NIO, deliveryd), exclusive and inclusive at the calls between them;
#   - heap allocations a request: calls to malloc and its kin in the same dumps, the first REQUESTS (every device new
#     to the edge, connections new) against the next (warm);
#   - syscalls a request: `perf stat -e raw_syscalls:sys_enter` on the warm server (every thread, no slowdown) at one
#     request in flight and at 256 (4 sockets × 64, HTTP 64 connections), less the idle rate; and `strace -c -f` for
#     the split by syscall (ptrace slows the server, so its batches at 256 in flight are larger than in life);
#   - adload's methods on the same edge under callgrind, each alone and then its mix (bench/launch-vs-limit.sh's
#     CLIENT=adload): queries over the 10 apps, prefetches, and reports (95% of the requests of 1,000 devices; the rest,
#     and each device's first, queries), instructions and allocator calls a request;
#   - where both cores' time goes under load: `perf record -a` (cpu-clock, no hardware counters in this VM) for 4 s of
#     6 at 256 in flight, by zmq_load and by adload's mix, on the edge and on the limit: the server by thread and
#     object, the load client, the cores idle, each also in microseconds of a core a request.
# The servers are release builds started through deploy/local/cluster.sh on 100 live campaigns across 10 apps (as in
# bench/launch-vs-limit.sh); the queries are zmq_load's (bench/http-count.py sends the same over HTTP). Instruction,
# allocation and syscall counts do not follow the host's load; the perf runs' rates only turn shares into time a request
# (bench/launch-vs-limit.sh measures throughput). valgrind runs SHA-256 without the CPU's SHA instructions, so a report's
# instructions (its events' fingerprints) are more than it executes in life.
#
#   bench/profile.sh [REQUESTS]        (as root, for perf; SCRATCH=.build-release or BIN=DIR as in cluster.sh)
#
# Needs valgrind (callgrind, callgrind_control), strace, perf, objcopy, gcc with libzmq3-dev, python3:
#   apt-get install -y valgrind strace linux-perf binutils gcc libzmq3-dev python3
# Writes its dumps and logs to .build-bench/profile-XXXX and a summary to .build-bench/profile.log.
set -euo pipefail
cd "$(dirname "$0")/.."
REQUESTS=${1:-20000}
for tool in valgrind callgrind_control strace perf objcopy gcc python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y valgrind strace linux-perf binutils gcc python3)" >&2; exit 1; }
done
. bench/limit.sh
. deploy/local/cluster.sh
. bench/launch-campaigns.sh
build_bin release campaignd deliveryd adctl adload query-microbench
RUN=$(mktemp -d "$PWD/$OUT/profile-XXXX")
LOG="$OUT/profile.log"
trap stop_cluster EXIT
exec > >(tee "$LOG") 2>&1
echo "profile of $(git rev-parse --short HEAD 2>/dev/null || echo "an unknown commit")$(git diff --quiet HEAD -- Sources 2>/dev/null || echo ' (Sources changed, or no git)'), $(date -u +%FT%TZ), $REQUESTS requests a part"

# valgrind 3.19 cannot read the DWARF 5 that Swift writes: callgrind runs copies without debug sections.
nodebug() { objcopy --strip-debug "$BIN/$1" "$RUN/$1-nodebug"; }
nodebug deliveryd
CALLGRIND=(valgrind --tool=callgrind --compress-strings=no --compress-pos=no)
# The servers start uninstrumented (their start and first sync then take seconds, not minutes) and count from the
# first part on; functions already on a stack then have no inclusive cost, which the split does not need.
SERVER_CALLGRIND=("${CALLGRIND[@]}" --instr-atstart=no)
now() { date +%s.%N; }

start_campaignd "$RUN" campaignd 0
seed_launch_campaigns "$ADMIN" "$RUN"
LIMIT_PORT=$(free_port)

# zload ENDPOINT SOCKETS WINDOW COUNT LABEL: COUNT launch queries by zmq_load (its RESULT line to the run's log).
zload() { "$OUT"/zmq_load -e "$1" -s "$2" -w "$3" -n "$4" -W 0 -d 600 -l "$5" >>"$RUN/load.log" || true; }
# aload ENDPOINT MIX [ARGS...]: REQUESTS requests of adload's MIX at 256 in flight (its JSON to the run's log).
MIX_APPS=shop,app1,app2,app3,app4,app5,app6,app7,app8,app9
aload() {
  "$BIN/adload" --endpoint "$1" --connections 4 --window 64 --requests "$REQUESTS" --warmup 0 --duration 600 --quiet --json \
    --apps "$MIX_APPS" --mix "$2" "${@:3}" >>"$RUN/load.log" || true
}
# hload HOST:PORT CONNECTIONS COUNT: COUNT POST /rpc launch queries.
hload() { bench/http-count.py "$1" "$3" "$2" >>"$RUN/load.log"; }
# cut_part PID NAME WHO: callgrind's dump of the part since the last cut, as RUN/NAME.cg, and that part's seconds.
declare -A SECONDS_OF
PART_START=0
cut_part() {
  local pid=$1 name=$2 file
  callgrind_control --dump="$name" "$pid" >/dev/null 2>&1
  file=$(ls -t "$RUN"/"$3".cg.* | head -1)
  SECONDS_OF[$name]=$(python3 -c "print($(now) - $PART_START)")
  mv "$file" "$RUN/$name.cg"
  PART_START=$(now)
}
# parts PID PREFIX ZMQ_ENDPOINT HTTP_ADDRESS: the parts of a server under callgrind, each cut as its own dump.
parts() {
  local pid=$1 who=$2 zmq=$3 http=$4
  callgrind_control --instr=on "$pid" >/dev/null 2>&1
  callgrind_control -z "$pid" >/dev/null 2>&1
  PART_START=$(now)
  zload "$zmq" 1 1 "$REQUESTS" "$who-cold"; cut_part "$pid" "$who-zmq-cold" "$who"
  zload "$zmq" 1 1 "$REQUESTS" "$who-1"; cut_part "$pid" "$who-zmq-1" "$who"
  zload "$zmq" 4 256 "$REQUESTS" "$who-256"; cut_part "$pid" "$who-zmq-256" "$who"
  if [ -n "$http" ]; then
    hload "$http" 1 "$REQUESTS"; cut_part "$pid" "$who-http-cold" "$who"
    hload "$http" 1 "$REQUESTS"; cut_part "$pid" "$who-http-1" "$who"
    hload "$http" 64 "$REQUESTS"; cut_part "$pid" "$who-http-64" "$who"
    # adload's methods one at a time, then its mix, over the 10 apps (reports: 95% of the requests of 1,000 devices,
    # less each device's first, a query whose answer the reports name).
    aload "$zmq" query=100; cut_part "$pid" "$who-mix-query" "$who"
    aload "$zmq" prefetch=100; cut_part "$pid" "$who-mix-prefetch" "$who"
    aload "$zmq" query=5,report=95 --devices 1000; cut_part "$pid" "$who-mix-report" "$who"
    aload "$zmq" query=90,prefetch=4,report=6; cut_part "$pid" "$who-mix" "$who"
  fi
  sleep 20; cut_part "$pid" "$who-idle" "$who"
}
# split NAME [ARGS...]: callgrind-split.py on part NAME of its server, less that server's idle rate.
split() {
  local name=$1 who=${1%%-*}
  shift
  bench/callgrind-split.py "$RUN/$name.cg" "$REQUESTS" --idle "$RUN/$who-idle.cg" \
    --idle-scale "$(python3 -c "print(${SECONDS_OF[$name]} / ${SECONDS_OF[$who-idle]})")" "$@"
}

echo "== callgrind on the servers (each part $REQUESTS requests; cold: the first, every device new)"
gcc -O2 -shared -fPIC -o "$RUN/sigsuspend-copy.so" bench/sigsuspend-copy.c   # see its header
cat >"$RUN/deliveryd-callgrind" <<EOF
#!/bin/sh
exec env LD_PRELOAD=$RUN/sigsuspend-copy.so ${SERVER_CALLGRIND[*]} --callgrind-out-file=$RUN/edge.cg.%p "$RUN/deliveryd-nodebug" "\$@"
EOF
chmod +x "$RUN/deliveryd-callgrind"
DELIVERYD="$RUN/deliveryd-callgrind" start_edge "$RUN" edge-cg "$RUN/campaignd.ready" 0
EDGE_CG=$LAST_PID
wait_ready "$RUN/edge-cg.ready" 300
wait_applied "$(field "$RUN/edge-cg.ready" client)" 100 3
parts "$EDGE_CG" edge "$(field "$RUN/edge-cg.ready" client)" "$(field "$RUN/edge-cg.ready" http)"
"${SERVER_CALLGRIND[@]}" --callgrind-out-file="$RUN/limit.cg.%p" "$OUT"/zmq_limit_server -e "tcp://127.0.0.1:$LIMIT_PORT" -t 3600 >"$RUN/limit-cg.log" 2>&1 &
LIMIT_CG=$!
pids+=($!)
sleep 3
parts "$LIMIT_CG" limit "tcp://127.0.0.1:$LIMIT_PORT" ""
kill "$EDGE_CG" "$LIMIT_CG" 2>/dev/null || true
for name in edge-zmq-cold edge-zmq-1 edge-zmq-256 edge-http-cold edge-http-1 edge-http-64 edge-mix-query edge-mix-prefetch edge-mix-report edge-mix limit-zmq-cold limit-zmq-1 limit-zmq-256; do
  echo "-- $name (${SECONDS_OF[$name]%.*} s under callgrind)"
  split "$name" --top 25 --stage "dispatch=JSONRPCDispatcher" >"$RUN/$name.txt"
  sed -n '1,/^functions by inclusive/p' "$RUN/$name.txt" | grep -v '^functions by'
done

echo "== syscalls a request (perf stat -e raw_syscalls:sys_enter on the warm server, every thread; less its idle rate)"
start_edge "$RUN" edge "$RUN/campaignd.ready" 0
EDGE_PID=$LAST_PID
wait_ready "$RUN/edge.ready"
EDGE=$(field "$RUN/edge.ready" client)
EDGE_HTTP=$(field "$RUN/edge.ready" http)
wait_applied "$EDGE" 100 3
"$OUT"/zmq_limit_server -e "tcp://127.0.0.1:$LIMIT_PORT" -t 3600 >"$RUN/limit.log" 2>&1 &
LIMIT_PID=$!
pids+=($!)
sleep 0.3
zload "$EDGE" 1 1 "$REQUESTS" warm; hload "$EDGE_HTTP" 1 "$REQUESTS"; zload "tcp://127.0.0.1:$LIMIT_PORT" 1 1 "$REQUESTS" warm
# syscalls PID SECONDS_FILE COMMAND...: the server's syscalls while COMMAND runs, and COMMAND's seconds in SECONDS_FILE.
syscalls() {
  local pid=$1 out=$2 start perf
  shift 2
  perf stat -e raw_syscalls:sys_enter -x, -p "$pid" -o "$out.perf" &
  perf=$!
  sleep 0.5
  start=$(now)
  "$@"
  python3 -c "print($(now) - $start)" >"$out.seconds"
  sleep 0.5
  kill -INT "$perf"; wait "$perf" || true
  awk -F, '/raw_syscalls/ {print $1}' "$out.perf"
}
# measure WHO PID KIND SHAPE COMMAND...: the server's syscalls a request while COMMAND sends REQUESTS queries (less
# IDLE_RATE), then strace's split of the same load by syscall.
measure() {
  local who=$1 pid=$2 kind=$3 shape=$4 count seconds strace
  shift 4
  count=$(syscalls "$pid" "$RUN/$who-$kind-$shape" "$@")
  seconds=$(cat "$RUN/$who-$kind-$shape.seconds")
  echo "  $who $kind, $shape in flight: $(python3 -c "print(round(($count - $IDLE_RATE * ($seconds + 1)) / $REQUESTS, 2))") a request ($count in $seconds s)"
  strace -c -f -S calls -p "$pid" -o "$RUN/$who-$kind-$shape.strace" 2>/dev/null &
  strace=$!
  sleep 1
  "$@"
  kill -INT "$strace"; wait "$strace" || true
  echo "    strace -c (slowed by ptrace), calls a request of those at 0.01 or more:"
  awk -v n="$REQUESTS" '$1 ~ /^[0-9.]+$/ && NF >= 5 && $4 / n >= 0.01 {printf "      %-16s %8.3f\n", $NF, $4 / n}' "$RUN/$who-$kind-$shape.strace"
}
for who in edge limit; do
  if [ $who = edge ]; then pid=$EDGE_PID; else pid=$LIMIT_PID; fi
  idle=$(syscalls "$pid" "$RUN/$who-idle" sleep 5)
  IDLE_RATE=$(python3 -c "print($idle / 6.0)")   # the half seconds before and after count too
  echo "  $who idle: $(python3 -c "print(round($IDLE_RATE, 1))") a second"
  if [ $who = edge ]; then
    measure edge "$pid" zmq 1 zload "$EDGE" 1 1 "$REQUESTS" edge-sys-1
    measure edge "$pid" zmq 256 zload "$EDGE" 4 256 "$REQUESTS" edge-sys-256
    measure edge "$pid" http 1 hload "$EDGE_HTTP" 1 "$REQUESTS"
    measure edge "$pid" http 64 hload "$EDGE_HTTP" 64 "$REQUESTS"
  else
    measure limit "$pid" zmq 1 zload "tcp://127.0.0.1:$LIMIT_PORT" 1 1 "$REQUESTS" limit-sys-1
    measure limit "$pid" zmq 256 zload "tcp://127.0.0.1:$LIMIT_PORT" 4 256 "$REQUESTS" limit-sys-256
  fi
done

echo "== where both cores go under load (perf record -a, cpu-clock, 4 s in the middle of 6 s at 256 in flight)"
# cores NAME SERVER_PID CLIENT...: both cores' samples while CLIENT loads the server, by who took them (the
# server by thread and object, the load client with its threads, the cores idle, the host's other work), each also as
# microseconds of a core a request: its share of the cores' time over the requests answered in it.
cores() {
  local name=$1 server=$2 client
  shift 2
  "$@" >"$RUN/$name.client" 2>"$RUN/$name.perf.log" &
  client=$!
  sleep 1
  perf record -a -e cpu-clock -F 999 -o "$RUN/$name.perf" -- sleep 4 >/dev/null 2>&1
  wait "$client" || true
  cat "$RUN/$name.client" >>"$RUN/load.log"
  echo "-- $name: both cores' samples, and each one's CPU a request (the two cores' 4 s over the requests in them)"
  perf script -i "$RUN/$name.perf" -F pid,tid,comm,ip,dso 2>/dev/null | python3 -c '
import collections, json, re, sys
server, client, results, samples = sys.argv[1], sys.argv[2], open(sys.argv[3]).read(), collections.Counter()
rate = re.search(r" rps=([0-9.]+)", results)
rate = float(rate.group(1)) if rate else json.loads(results)["requestsPerSecond"]
for line in sys.stdin:
    match = re.match(r"\s*(.*?)\s+(\d+)/\d+\s+\S+\s+\((.*)\)\s*$", line)
    if not match: continue
    comm, pid, dso = match.group(1), match.group(2), match.group(3).rsplit("/", 1)[-1]
    samples["server " + comm + " " + dso if pid == server else "load client" if pid == client else
            "idle" if pid == "0" else "other processes"] += 1
total = sum(samples.values())
print(f"    {rate:,.0f} requests a second")
cores = int(sys.argv[4])
for who, count in samples.most_common(14):
    print(f"    {100 * count / total:5.1f}%  {cores * 1e6 * count / total / rate:6.3f} µs  {who}")
' "$server" "$client" "$RUN/$name.client" "$(nproc)"
}
for target in "edge $EDGE $EDGE_PID" "limit tcp://127.0.0.1:$LIMIT_PORT $LIMIT_PID"; do
  set -- $target
  cores "$1" "$3" "$OUT"/zmq_load -e "$2" -s 4 -w 256 -W 0 -d 6 -l "$1-perf"
  cores "$1-mix" "$3" "$BIN/adload" --endpoint "$2" --connections 4 --window 64 --duration 6 --warmup 0 --quiet --json \
    --apps "$MIX_APPS" --mix query=90,prefetch=4,report=6
done
echo "== in-process stages (query-microbench under callgrind), instructions a query"
nodebug query-microbench
# query-microbench warms each measure up with a tenth of its count (at most 10,000) before counting it.
ops() { echo $(( $1 + ($1 / 10 < 10000 ? $1 / 10 : 10000) )); }
refs() { "${CALLGRIND[@]}" --callgrind-out-file="$RUN/qm.out" "$RUN/query-microbench-nodebug" "$@" 2>&1 | awk '/refs:/ {gsub(",", "", $NF); print $NF}'; }
declare -A STAGE
for stage in "all=all of it" "decide=decide" "write=answer written from the decision"; do
  name=${stage%%=*}
  small=$(refs "$REQUESTS" "${stage#*=}")
  large=$(refs $(( 2 * REQUESTS )) "${stage#*=}")
  STAGE[$name]=$(python3 -c "print(round(($large - $small) / ($(ops $(( 2 * REQUESTS ))) - $(ops "$REQUESTS")), 1))")
  echo "  $name (\"${stage#*=}\"): ${STAGE[$name]}"
done
# Decode is the rest of the whole dispatch: the message parsed, its params read (the compact path when the call is
# compact, as on a real edge) and validated, the answer's envelope.
STAGE[decode]=$(python3 -c "print(round(${STAGE[all]} - ${STAGE[decide]} - ${STAGE[write]}, 1))")
echo "  decode (the whole dispatch less decide and write): ${STAGE[decode]}"

echo "== instructions a request: decode / decide / write / transport / total; allocator calls a request"
jsonfield() { python3 -c "import json,sys; print(round(json.load(sys.stdin)['$1'], ${2:-1}))"; }
for name in edge-zmq-1 edge-zmq-256 edge-http-1 edge-http-64 limit-zmq-1 limit-zmq-256; do
  total=$(split "$name" --json | jsonfield total)
  cold=${name%-*}-cold
  allocations="$(split "$cold" --json | jsonfield allocations 2) cold, $(split "$name" --json | jsonfield allocations 2) warm"
  if [ "${name%%-*}" = edge ]; then
    transport=$(python3 -c "print(round($total - ${STAGE[all]}, 1))")
    echo "  $name: ${STAGE[decode]} / ${STAGE[decide]} / ${STAGE[write]} / $transport / $total; allocations $allocations"
  else
    echo "  $name: - / - / - / $total / $total; allocations $allocations"
  fi
done

echo "== adload's methods on the edge at 256 in flight (its 10 apps), instructions and allocator calls a request"
for name in edge-mix-query edge-mix-prefetch edge-mix-report edge-mix; do
  echo "  ${name#edge-}: $(split "$name" --json | jsonfield total) instructions, $(split "$name" --json | jsonfield allocations 2) allocations"
done

if grep -q "errors=[1-9]" "$RUN/load.log"; then echo "some requests failed: see $RUN/load.log"; fi
echo "dumps, reports and logs: $RUN"
