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
LIMIT_SRC=${LIMIT_SRC:-../shared/bench/zmq-limit}
OUT=.build-bench
mkdir -p "$OUT"
cp "$LIMIT_SRC"/*.c "$LIMIT_SRC"/*.h "$LIMIT_SRC"/Makefile "$OUT"/
make -s -C "$OUT" >/dev/null
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

python3 - "$LOG" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    if not line.startswith("RESULT"):
        continue
    fields = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
    who, shape, rnd = fields["label"].split("-")
    runs[(who, shape, int(rnd))] = {k: float(fields[k]) for k in ("rps", "p50_us", "p99_us", "errors")}
def med(xs):
    return statistics.median(xs) if xs else float("nan")
print()
print("| server | shape | median rps | median p50 µs | median p99 µs | rps ratio | p50 ratio | p99 ratio | errors |")
print("|---|---|---|---|---|---|---|---|---|")
for shape in ("thr", "lat"):
    rounds = sorted({r for (_, s, r) in runs if s == shape})
    for who in ("limit", "fast", "codable"):
        pairs = [(runs[(who, shape, r)], runs[("limit", shape, r)]) for r in rounds if (who, shape, r) in runs]
        rps = med([a["rps"] for a, _ in pairs]); p50 = med([a["p50_us"] for a, _ in pairs]); p99 = med([a["p99_us"] for a, _ in pairs])
        r_rps = med([a["rps"] / b["rps"] for a, b in pairs if b["rps"]])
        r_p50 = med([a["p50_us"] / b["p50_us"] for a, b in pairs if b["p50_us"]])
        r_p99 = med([a["p99_us"] / b["p99_us"] for a, b in pairs if b["p99_us"]])
        errors = int(sum(a["errors"] for a, _ in pairs))
        name = {"thr": "-s 4 -w 256", "lat": "-s 1 -w 1"}[shape]
        print(f"| {who} | {name} | {rps:,.0f} | {p50:.1f} | {p99:.1f} | {r_rps:.2f} | {r_p50:.2f} | {r_p99:.2f} | {errors} |")
PY
