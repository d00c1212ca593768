#!/usr/bin/env bash
# LaunchAdKit's cold start: the time from `launch` (the SDK opening its state folder) to the launch's decision, as
# adsim prints it (the `ms` of its `show` event), against a real deliveryd (release builds, loopback, one live
# campaign whose creative is the 20 KB tall PNG). Each round, one device's folder warmed by a launch before (the
# answer and the creative on disk), then launched under each policy, and an empty folder:
#   cache-first  what is on disk, at once (the answer only updates the cache);
#   revalidate   the launch query within the revalidate budget, what is on disk shown when the answer still chooses it;
#   fresh        the launch query, then the creative (on disk already: no download) within the wait budget;
#   empty        fresh from an empty folder: the query, then the creative's download and sha256 check;
#   rtt          the reference in the same run: one bare `curl` POST of the same launch query to the same /rpc
#                (a new connection each time, as the SDK's first call of a process makes).
# Prints the host's load average, each round, then the medians and what revalidate and fresh add to cache-first.
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
# The decision's milliseconds: the `show` event's, or fail when the launch showed nothing.
# Reads adsim's whole output: leaving early would cut the pipe adsim still writes its last events to.
decision() { python3 -c '
import json, sys
shows = [event["ms"] for event in map(json.loads, sys.stdin.read().splitlines()) if event["event"] == "show"]
print(shows[0]) if shows else sys.exit("no ad shown")'; }
QUERY='{"jsonrpc":"2.0","id":1,"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","deviceId":"curl","screen":{"width":1179,"height":2556}}}'

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'round\tcache_first_ms\trevalidate_ms\tfresh_ms\tempty_ms\trtt_ms\n' | tee "$RUN/rounds.tsv"
for round in $(seq "$ROUNDS"); do
  adsim "warm-$round" cache-first >/dev/null   # caches the answer and the creative
  # The three policies in a turning order, so none always runs first after the warming launch.
  policies=(cache-first revalidate fresh)
  ms=()
  for i in 0 1 2; do slot=$(((round + i) % 3)); ms[slot]=$(adsim "warm-$round" "${policies[slot]}" | decision); done
  row="$round\t${ms[0]}\t${ms[1]}\t${ms[2]}\t$(adsim "empty-$round" fresh | decision)"
  rtt=$(curl -s -o /dev/null -w '%{time_total}' -H 'Content-Type: application/json' -d "$QUERY" "http://$HTTP/rpc" \
        | python3 -c 'import sys; print(round(float(sys.stdin.read()) * 1000, 2))')
  printf "$row\t%s\n" "$rtt" | tee -a "$RUN/rounds.tsv"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$RUN/rounds.tsv" <<'PY'
import statistics, sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().split("\n")[1:] if line]
med = lambda i: statistics.median(float(r[i]) for r in rows)
first, revalidate, fresh, empty, rtt = (med(i) for i in range(1, 6))
print(f"medians over {len(rows)} rounds: cache-first {first:.1f} ms, revalidate {revalidate:.1f} ms (+{revalidate - first:.1f}), "
      f"fresh {fresh:.1f} ms (+{fresh - first:.1f}), fresh from an empty folder {empty:.1f} ms, bare query (curl) {rtt:.2f} ms")
PY
