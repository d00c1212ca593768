#!/usr/bin/env bash
# What the size of an answer and the server thread's time per request cost, in one run: the C load client of
# ../shared/bench/zmq-limit drives, in turn, the reference limit server (its ~300-byte reply), the same limit server
# built with its reply padded to the size of a real launch answer (~545 bytes), that padded server also spinning
# 0.5 µs and 1 µs per request on its thread (spin500, spin1000: a stand-in for a server's work), and our
# rpc-bench-server answering ~210 and ~540 bytes (--reply-padding 330), in the throughput shape (-s 4 -w 256).
# Prints the medians and the same-round ratios against the reference limit.
#
#   bench/reply-size.sh [ROUNDS] [SECONDS]      (defaults: 5 rounds of 5 s)
#
# The padded limit is built from a copy of the reference's sources in .build-bench/reply-size (the reference itself
# is left as it is). Raw RESULT lines go to .build-bench/reply-size.log.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECS=${2:-5}
. bench/limit.sh
PADDED="$OUT/reply-size"
mkdir -p "$PADDED"
cp "$LIMIT_SRC"/*.c "$LIMIT_SRC"/*.h "$LIMIT_SRC"/Makefile "$PADDED"/
# 233 more bytes inside the result object: 545 bytes with id 1.
python3 - "$PADDED/common.h" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
old = '\\"ttl\\":300}}"'
assert old in text, "the reference reply changed: update bench/reply-size.sh"
open(path, "w").write(text.replace(old, '\\"ttl\\":300,\\"pad\\":\\"' + "x" * 233 + '\\"}}"'))
# SPIN_NS in the environment: that many nanoseconds of busy waiting per request, before the reply.
path = path.replace("common.h", "zmq_limit_server.c")
text = open(path).read()
anchor = "        zmq_msg_t *payload = &parts[n - 1];\n"
assert anchor in text, "the reference server changed: update bench/reply-size.sh"
spin = ('        { const char *spin = getenv("SPIN_NS"); if (spin) { uint64_t until = now_ns() + (uint64_t)atoll(spin);\n'
        '          while (now_ns() < until) {} } }\n')
open(path, "w").write(text.replace(anchor, anchor + spin, 1))
PY
make -s -C "$PADDED" >/dev/null
swift build -c release --product rpc-bench-server >/dev/null
BIN=$(swift build -c release --show-bin-path)/rpc-bench-server

TOTAL=$(( ROUNDS * (SECS + 2) * 6 + 30 ))
PORT=$(( 20000 + RANDOM % 20000 ))
"$OUT"/zmq_limit_server -e "tcp://127.0.0.1:$PORT" -t "$TOTAL" >"$OUT/reply-size-limit.log" &
pids=($!)
"$PADDED"/zmq_limit_server -e "tcp://127.0.0.1:$(( PORT + 1 ))" -t "$TOTAL" >"$OUT/reply-size-padded.log" &
pids+=($!)
SPIN_NS=500 "$PADDED"/zmq_limit_server -e "tcp://127.0.0.1:$(( PORT + 2 ))" -t "$TOTAL" >/dev/null &
pids+=($!)
SPIN_NS=1000 "$PADDED"/zmq_limit_server -e "tcp://127.0.0.1:$(( PORT + 3 ))" -t "$TOTAL" >/dev/null &
pids+=($!)
"$BIN" --seconds "$TOTAL" >"$OUT/reply-size-rpc210.log" 2>/dev/null &
pids+=($!)
"$BIN" --seconds "$TOTAL" --reply-padding 330 >"$OUT/reply-size-rpc540.log" 2>/dev/null &
pids+=($!)
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
for _ in $(seq 50); do
  grep -q READY "$OUT/reply-size-rpc210.log" && grep -q READY "$OUT/reply-size-rpc540.log" && break
  sleep 0.1
done
grep -o 'reply_bytes=[0-9]*' "$OUT/reply-size-limit.log" "$OUT/reply-size-padded.log" || true

LOG="$OUT/reply-size.log"
: >"$LOG"
for round in $(seq "$ROUNDS"); do
  for target in "limit tcp://127.0.0.1:$PORT" "limit545 tcp://127.0.0.1:$(( PORT + 1 ))" \
                "spin500 tcp://127.0.0.1:$(( PORT + 2 ))" "spin1000 tcp://127.0.0.1:$(( PORT + 3 ))" \
                "rpc210 $(sed -n 's/READY endpoint=//p' "$OUT/reply-size-rpc210.log")" \
                "rpc540 $(sed -n 's/READY endpoint=//p' "$OUT/reply-size-rpc540.log")"; do
    set -- $target
    "$OUT"/zmq_load -e "$2" -s 4 -w 256 -d "$SECS" -l "$1-thr-$round" | tee -a "$LOG" | cut -c1-140
  done
done

bench/ratios.py "$LOG" limit limit545 spin500 spin1000 rpc210 rpc540
