#!/usr/bin/env bash
# launch.query cost as an app's campaigns grow: 100, 1,000 and 10,000 campaigns of app "shop" (SIZES), each size on
# its own campaignd and edge (release builds), all in one run. The campaigns have a large app's mix (`adload seed`:
# a third target a platform, a fifth a region, a seventh a version range; priorities 0 to 100 and weights 1 to 1000
# spread over them), each with three creative shapes. Rounds alternate between the sizes, so drift of this shared
# machine reaches each size alike: adload with 4 connections x 64 in flight over 10,000 devices of "shop" (launch
# queries, 20% hot starts) for SECONDS a round. Prints each round, then per size the medians of throughput, p50 and
# p99, their ratios to the first size's, and each edge's resident memory before and after the load.
# SHARE=S (0 to 1) runs each size twice, label "Ns" beside N: a copy of its campaignd's database in which every campaign
# has the serve share S, as pacing would set it, and an edge of its own, in the same rounds; the summary then gives
# each size's shared/plain ratios. The share is written into the copy while its campaignd is stopped, with no goal, so
# the pacing loop leaves it as it is (pacing would publish share 1 for a goal it has not measured yet).
#
#   bench/scale.sh [ROUNDS] [SECONDS]      (defaults: 5 rounds of 5 s; SIZES="100 1000 10000"; SHARE unset)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECS=${2:-5}
SIZES=${SIZES:-100 1000 10000}
SHARE=${SHARE:-}
LABELS=""
for size in $SIZES; do LABELS="$LABELS $size${SHARE:+ ${size}s}"; done
. deploy/local/cluster.sh
build_bin release campaignd deliveryd adctl adload
mkdir -p .build-bench
RUN=$(mktemp -d .build-bench/scale-XXXX)
trap stop_cluster EXIT
write_creatives "$RUN"

declare -A EDGE EDGE_PID
for size in $SIZES; do
  dir="$RUN/$size"
  mkdir -p "$dir"
  start_campaignd "$dir" campaignd 0
  admin=$ADMIN
  upload_creatives "$admin" "$RUN"
  creatives=()
  for sha in "${SHAS[@]}"; do creatives+=(--creative "$sha"); done
  start=$(date +%s.%N)
  "$BIN/adload" seed --admin "$admin" --app shop --count "$size" "${creatives[@]}" 2>/dev/null
  echo "size $size: campaigns created in $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s"
  labels=$size
  if [ -n "$SHARE" ]; then
    # Stopped, copied, the copy's campaigns given the share; both started again on their data.
    kill -TERM "$LAST_PID"
    wait "$LAST_PID" || true
    cp -a "$dir" "$RUN/${size}s"
    python3 - "$RUN/${size}s/campaignd/campaigns.sqlite" "$SHARE" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
changed = db.execute("UPDATE campaigns SET body = json_set(body, '$.share', ?)", (float(sys.argv[2]),)).rowcount
db.commit()
print(f"share {sys.argv[2]} written into {changed} campaigns")
PY
    for d in "$dir" "$RUN/${size}s"; do rm -f "$d/campaignd.ready"; start_campaignd "$d" campaignd 0; done
    echo "size ${size}s: $("$BIN/adctl" --endpoint "$ADMIN" call campaign.list '{"app":"shop"}' \
      | python3 -c 'import json,sys; c=json.load(sys.stdin)["campaigns"]; print(sum(1 for x in c if x.get("share") is not None), "of", len(c), "campaigns have a share")')"
    labels="$size ${size}s"
  fi
  for label in $labels; do
    start_edge "$RUN/$label" edge "$RUN/$label/campaignd.ready" 0
    EDGE_PID[$label]=$LAST_PID
    wait_ready "$RUN/$label/edge.ready"
    EDGE[$label]=$(field "$RUN/$label/edge.ready" client)
    wait_applied "${EDGE[$label]}" "$size" 3
    echo "size $label: edge ready: $("$BIN/adctl" --endpoint "${EDGE[$label]}" call edge.status | cut -c1-200)"
  done
done

rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
LOG="$RUN/scale.log"
: >"$LOG"
for size in $LABELS; do echo "RSS size=$size when=before kib=$(rss "${EDGE_PID[$size]}")" | tee -a "$LOG"; done
for round in $(seq "$ROUNDS"); do
  for size in $LABELS; do
    "$BIN/adload" --endpoint "${EDGE[$size]}" --connections 4 --window 64 --duration "$SECS" --devices 10000 --apps shop --quiet --json \
      | bench/adload-result.py "size$size-$round" | tee -a "$LOG" | cut -c1-160 || true
  done
done
for size in $LABELS; do echo "RSS size=$size when=after kib=$(rss "${EDGE_PID[$size]}")" | tee -a "$LOG"; done
cp "$LOG" .build-bench/scale.log

python3 - "$LOG" $LABELS <<'PY'
import re, statistics, sys
log, sizes = sys.argv[1], sys.argv[2:]
rows = {s: [] for s in sizes}
rss = {}
for line in open(log):
    m = re.match(r"RESULT label=size(\d+s?)-\d+ rps=(\d+) p50_us=([\d.]+) p99_us=([\d.]+) .*errors=(\d+) with_ad=(\d+)", line)
    if m:
        rows[m[1]].append((float(m[2]), float(m[3]), float(m[4]), int(m[5])))
    m = re.match(r"RSS size=(\d+s?) when=(\w+) kib=(\d+)", line)
    if m:
        rss[(m[1], m[2])] = int(m[3]) / 1024
med = {s: tuple(statistics.median(r[i] for r in rows[s]) for i in range(3)) for s in sizes if rows[s]}
base = med[sizes[0]]
print(f"{'campaigns':>10} {'rounds':>6} {'rps':>9} {'p50 ms':>7} {'p99 ms':>7} {'rps/first':>9} {'p99/first':>9} {'RSS before':>10} {'RSS after':>9} errors")
for s in sizes:
    if s not in med: continue
    rps, p50, p99 = med[s]
    print(f"{s:>10} {len(rows[s]):>6} {rps:>9.0f} {p50/1000:>7.2f} {p99/1000:>7.2f} {rps/base[0]:>9.2f} {p99/base[2]:>9.2f} "
          f"{rss.get((s,'before'),0):>8.1f} M {rss.get((s,'after'),0):>7.1f} M {sum(r[3] for r in rows[s])}")
for s in sizes:
    if s.endswith("s") and s in med and s[:-1] in med:
        (rps, _, p99), (plain_rps, _, plain_p99) = med[s], med[s[:-1]]
        print(f"{s[:-1]} campaigns with a share against without: rps {rps / plain_rps:.2f}x, p99 {p99 / plain_p99:.2f}x")
PY
