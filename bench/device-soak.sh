#!/usr/bin/env bash
# A soak of the edge's memory for devices: campaignd and deliveryd (release builds) with 20 live campaigns of one
# app, half of them capped at 50 shows a day, loaded by adload with 80% queries, 10% prefetches and 10% impression
# reports over DEVICES devices for SECONDS. Every 10 s it samples deliveryd's resident set and its device metrics
# (bytes held, devices kept, devices forgotten); at the end it checks that the resident set over the last half of
# the run is flat within 10% and under the device budget plus the process's fixed size (its resident set once
# ready, before any load). BUDGET sets --device-memory-bytes (default: deliveryd's own, 256 MiB). The result is one
# RESULT line and PASS or FAIL; the samples stay in .build-bench/soak-*/samples.tsv.
#
#   bench/device-soak.sh [DEVICES] [SECONDS]      (defaults: 100000 devices, 600 s)
set -euo pipefail
cd "$(dirname "$0")/.."
DEVICES=${1:-100000}
SECS=${2:-600}
BUDGET=${BUDGET:-268435456}
# BIN=DIR uses the release binaries there instead of building them (deploy/local/cluster.sh).
. deploy/local/cluster.sh
build_bin release campaignd deliveryd adctl adload
OUT=.build-bench
mkdir -p "$OUT"
RUN=$(mktemp -d "$OUT/soak-XXXX")
trap stop_cluster EXIT

start_campaignd "$RUN" campaignd 0
write_creatives "$RUN"
upload_creatives "$ADMIN" "$RUN"
NOW=$(date -u -d '-1 minute' +%Y-%m-%dT%H:%M:%SZ)
END=$(date -u -d '+1 day' +%Y-%m-%dT%H:%M:%SZ)
# 20 campaigns of "shop" for everyone; the even ones capped at 50 shows a day, at the higher priority, so devices
# see them until capped and then the others.
for i in $(seq 0 19); do
  if [ $((i % 2)) = 0 ]; then cap=',"frequencyCap":{"shows":50,"hours":24}'; priority=70; else cap=''; priority=50; fi
  "$BIN/adctl" --endpoint "$ADMIN" call campaign.create "{\"name\":\"soak $i\",\"app\":\"shop\",\"startsAt\":\"$NOW\",\"endsAt\":\"$END\",
    \"priority\":$priority,\"weight\":$(( (i * 13) % 200 + 1 ))$cap,
    \"creatives\":[{\"sha256\":\"${SHAS[0]}\",\"weight\":2},{\"sha256\":\"${SHAS[1]}\"},{\"sha256\":\"${SHAS[2]}\"}]}" >/dev/null
done

start_edge "$RUN" edge "$RUN/campaignd.ready" 0 --device-memory-bytes "$BUDGET"
EDGE_PID=$LAST_PID
wait_ready "$RUN/edge.ready"
EDGE=$(field "$RUN/edge.ready" client)
HTTP=$(field "$RUN/edge.ready" http)
wait_applied "$EDGE" 20 3
rss() { awk '/VmRSS/ {print $2}' "/proc/$EDGE_PID/status"; }
FIXED=$(rss)
echo "edge ready, resident ${FIXED} KiB; budget $BUDGET bytes; $DEVICES devices for $SECS s"

SAMPLES="$RUN/samples.tsv"
printf 'seconds\trss_kib\tdevice_bytes\tdevices\tforgotten\tdevices_file_bytes\n' >"$SAMPLES"
sample() {
  python3 - "$HTTP" "$1" "$(rss)" "$RUN/edge/devices.bin" >>"$SAMPLES" <<'PY'
import os, sys, urllib.request
http, t, rss, file = sys.argv[1:5]
text = urllib.request.urlopen(f"http://{http}/metrics", timeout=5).read().decode()
values = {line.split(" ")[0]: line.split(" ")[-1] for line in text.splitlines() if line and not line.startswith("#")}
get = lambda name: int(float(values.get(name, "0")))
size = os.path.getsize(file) if os.path.exists(file) else 0
print(f"{t}\t{rss}\t{get('launchad_deliveryd_device_memory_bytes')}\t{get('launchad_deliveryd_devices')}\t{get('launchad_deliveryd_devices_forgotten_total')}\t{size}")
PY
}
"$BIN/adload" --endpoint "$EDGE" --connections 4 --window 64 --duration "$SECS" --devices "$DEVICES" --apps shop \
  --mix query=80,prefetch=10,report=10 --quiet --json >"$RUN/adload.json" &
LOAD_PID=$!
pids+=($LOAD_PID)
start=$(date +%s)
while kill -0 "$LOAD_PID" 2>/dev/null; do
  sleep 10
  kill -0 "$LOAD_PID" 2>/dev/null || break
  sample $(( $(date +%s) - start ))
  tail -1 "$SAMPLES"
done
wait "$LOAD_PID" || true
python3 - "$SAMPLES" "$FIXED" "$BUDGET" "$RUN/adload.json" "$DEVICES" "$SECS" <<'PY'
import json, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])][1:]
rows = [[int(x) for x in row] for row in rows]
fixed, budget, devices, secs = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[5]), int(sys.argv[6])
load = json.load(open(sys.argv[4]))
last = [r for r in rows if r[0] >= rows[-1][0] / 2]
low, high = min(r[1] for r in last), max(r[1] for r in last)
flat = (high - low) / low
limit_kib = fixed + budget // 1024
errors = load["errors"]
failed = errors["timeouts"] + errors["invalid"] + sum(errors["byCode"].values())
print(f"RESULT devices={devices} seconds={secs} rps={load['requestsPerSecond']:.0f} errors={failed} with_ad={load['withAd']} "
      f"fixed_kib={fixed} rss_first_kib={rows[0][1]} rss_last_half_kib={low}..{high} flat={flat:.3f} "
      f"rss_max_kib={max(r[1] for r in rows)} budget_plus_fixed_kib={limit_kib} device_bytes_max={max(r[2] for r in rows)} "
      f"devices_kept={rows[-1][3]} forgotten={rows[-1][4]} devices_file_max={max(r[5] for r in rows)}")
ok = flat <= 0.10 and max(r[1] for r in rows) <= limit_kib
print("PASS" if ok else "FAIL", "(flat within 10% over the last half, under the budget plus the fixed size)")
PY
echo "samples: $SAMPLES"
