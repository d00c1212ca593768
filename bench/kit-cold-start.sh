#!/usr/bin/env bash
# LaunchAdKit's cold start: the time from `launch` (the SDK opening its state folder) to the launch's decision, as
# adsim prints it (the `ms` of its `show` event), against a real deliveryd (release builds, loopback, one live
# campaign whose creative is the 20 KB tall PNG):
#   cached   cache-first, the creative already on disk (the folder warmed by one launch before);
#   fresh    fresh, an empty folder: the launch query over HTTP, then the creative's download and sha256 check;
#   rtt      the reference in the same run: one bare `curl` POST of the same launch query to the same /rpc
#            (a new connection each time, as the SDK's first call of a process makes).
# Prints each round, then the medians and the ratio fresh/rtt.
#
#   bench/kit-cold-start.sh [ROUNDS]      (default 11)
#
# BIN=DIR takes every binary from DIR (deploy/local/cluster.sh); ADSIM_BIN=DIR takes adsim alone from another (a release
# adsim beside debug servers, say).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-11}
for tool in curl python3; do command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 1; }; done
. deploy/local/cluster.sh
build_bin release campaignd deliveryd adctl adsim
ADSIM_BIN=${ADSIM_BIN:-$BIN}
mkdir -p .build-bench
RUN=$(mktemp -d "$PWD/.build-bench/kit-XXXX")
trap stop_cluster EXIT

start_campaignd "$RUN" campaignd 0
write_creatives "$RUN"
upload_creatives "$ADMIN" "$RUN"
start_edge "$RUN" edge "$RUN/campaignd.ready" 0
wait_ready "$RUN/edge.ready"
HTTP=$(field "$RUN/edge.ready" http)
"$BIN/adctl" --endpoint "$ADMIN" campaign create --name "cold start" --app shop --starts now --ends +2h --creative "${SHAS[0]}" \
  --jump-url https://shop.example.com/1 --wait >/dev/null

adsim() {
  "$ADSIM_BIN/adsim" --edge "http://$HTTP" --app shop --platform ios --app-version 5.2.0 --device "$1" --state-dir "$RUN/$1" \
    --screen 1179x2556 --json --policy "$2" launch --speed 100
}
# The decision's milliseconds: the `show` event's, or fail when the launch showed nothing. It reads the whole
# timeline first: adsim killed by SIGPIPE for writing its later events to a closed pipe would fail the round.
decision() { python3 -c '
import json, sys
for line in sys.stdin.read().splitlines():
    event = json.loads(line)
    if event["event"] == "show": print(event["ms"]); sys.exit(0)
sys.exit("no ad shown")'; }
QUERY='{"jsonrpc":"2.0","id":1,"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","deviceId":"curl","screen":{"width":1179,"height":2556}}}'

printf 'round\tcached_ms\tfresh_ms\trtt_ms\n' | tee "$RUN/rounds.tsv"
for round in $(seq "$ROUNDS"); do
  adsim "warm-$round" cache-first >/dev/null   # caches the answer and the creative
  cached=$(adsim "warm-$round" cache-first | decision)
  fresh=$(adsim "empty-$round" fresh | decision)
  rtt=$(curl -s -o /dev/null -w '%{time_total}' -H 'Content-Type: application/json' -d "$QUERY" "http://$HTTP/rpc" \
        | python3 -c 'import sys; print(round(float(sys.stdin.read()) * 1000, 2))')
  printf '%s\t%s\t%s\t%s\n' "$round" "$cached" "$fresh" "$rtt" | tee -a "$RUN/rounds.tsv"
done
python3 - "$RUN/rounds.tsv" <<'PY'
import statistics, sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().split("\n")[1:] if line]
med = lambda i: statistics.median(float(r[i]) for r in rows)
cached, fresh, rtt = med(1), med(2), med(3)
print(f"medians over {len(rows)} rounds: cached {cached:.1f} ms, fresh {fresh:.1f} ms, bare query (curl) {rtt:.2f} ms; fresh/rtt {fresh / rtt:.1f}")
PY
