#!/usr/bin/env bash
# Pacing with real processes (release builds): campaignd (--pacing-interval 2s), one relay and two edges below it
# (--report-interval 1s), and one adload per edge sending adload's mix of launch queries and impression reports
# (query=50,report=50, no hot starts, RATE requests a second into each edge). Six paced campaigns, each alone with a
# fallback campaign (no goal) in an app of its own, so each sees the traffic of its app only: even and asap, each with
# a goal of 1/3, 1 and 2 times what its app's traffic can deliver over the window, that is traffic at 3x, 1x and 0.5x
# what the goal needs. The app's impressions a second (at a share of 1) are measured first, in a calibration of
# CALIBRATION seconds on the fallback campaigns alone.
#
# The window is the flight (`per: campaign`, FLIGHT seconds): the processes run on the real clock, and a flight of a
# few minutes is a window that starts when the bench does; a day in an app's time zone ending soon would start hours
# before the bench, with nothing delivered in most of it, which is not the day the controller is meant for.
#
# During the flight campaign.stats is read every second; at the end it prints, per campaign, delivered/goal, the
# traffic offered (all impressions of the app over the goal), each tenth of the window against a tenth of the goal
# (from the reported counts, the boundaries shifted by the delay from an answer to its report, which
# bench/pacing-report.py measures on the fallbacks: devices report the last answer they had, the fallback's for up to
# 20 s into the flight), the shares pacing published (change.list, actor pacing),
# and the contract: never more than 5% over; with traffic at 1.5x the need or more, at least 95% delivered and, for
# even, every tenth within 0.75 to 1.25. The samples and logs stay in .build-bench/pacing-XXXX.
#
#   bench/pacing.sh [full|short]     (full: a flight of 300 s, about 7 minutes in all; short: 90 s, about 3)
#   Environment: FLIGHT (seconds), RATE (requests a second per edge, default 300), DEVICES (per edge, default 2 x
#   RATE: see below), CALIBRATION (seconds, default 10),
#   PACING_INTERVAL (2s), REPORT_INTERVAL (1s), BIN (binaries built elsewhere), STORE (sqlite, the default, or
#   postgres: campaignd on a PostgreSQL cluster of its own, started in the run's folder as deploy/local/cluster.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-full}
case $MODE in
  full) FLIGHT=${FLIGHT:-300} ;;
  short) FLIGHT=${FLIGHT:-90} ;;
  *) echo "usage: bench/pacing.sh [full|short]" >&2; exit 2 ;;
esac
RATE=${RATE:-300}
CALIBRATION=${CALIBRATION:-10}
PACING_INTERVAL=${PACING_INTERVAL:-2s}
REPORT_INTERVAL=${REPORT_INTERVAL:-1s}
# adload reports a device's last answer each time it draws the device for a report, however old the answer: with
# few devices for the rate (each queried about every DEVICES / (RATE / 2) seconds) an impression follows its answer
# by a few seconds, as an app's does, rather than by the minute 6,000 devices would take.
DEVICES=${DEVICES:-$((RATE * 2))}
# The devices' head start on each flight: every device has had an answer to report before the flight begins.
LEAD=8
. deploy/local/cluster.sh
build_bin release campaignd relayd deliveryd adctl adload
mkdir -p .build-bench
RUN=$(mktemp -d .build-bench/pacing-XXXX)
trap stop_cluster EXIT
STORE=${STORE:-sqlite}
case $STORE in
  sqlite) STORE_ARGS=() ;;
  postgres) start_postgres "$RUN"; STORE_ARGS=(--database "$DATABASE") ;;
  *) echo "STORE must be sqlite or postgres (got $STORE)" >&2; exit 2 ;;
esac
echo "pacing bench: $MODE, campaignd on $STORE, flight $FLIGHT s, $RATE requests/s per edge, pacing every $PACING_INTERVAL, reports every $REPORT_INTERVAL; load $(cut -d' ' -f1-3 /proc/loadavg); in $RUN"

start_campaignd "$RUN" campaignd 0 --pacing-interval "$PACING_INTERVAL" "${STORE_ARGS[@]}"
start_relays "$RUN" 1
EDGES=()
for e in 0 1; do start_edge "$RUN" "edge-$e" "$RUN/relay-0.ready" 0 --report-interval "$REPORT_INTERVAL"; done
for e in 0 1; do wait_ready "$RUN/edge-$e.ready"; EDGES+=("$(field "$RUN/edge-$e.ready" client)"); done
write_creatives "$RUN"
upload_creatives "$ADMIN" "$RUN"
CREATIVES="[{\"sha256\":\"${SHAS[0]}\"},{\"sha256\":\"${SHAS[1]}\"},{\"sha256\":\"${SHAS[2]}\"}]"

# PACINGS x MULTIPLES: the paced campaigns, each in app PACING-MULTIPLE (0.5 written 05).
PACINGS="even asap"
MULTIPLES="3 1 0.5"
APPS=()
for pacing in $PACINGS; do for multiple in $MULTIPLES; do APPS+=("$pacing-${multiple/./}x"); done; done
APP_LIST=$(IFS=,; echo "${APPS[*]}")

# create JSON: campaign.create's answer's id.
create() { "$BIN/adctl" --endpoint "$ADMIN" call campaign.create "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["campaign"]["id"])'; }
utc() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
now=$(date +%s)
declare -A FALLBACK PACED
for app in "${APPS[@]}"; do
  FALLBACK[$app]=$(create "{\"name\":\"fallback $app\",\"app\":\"$app\",\"startsAt\":\"$(utc $((now - 60)))\",\"endsAt\":\"$(utc $((now + 86400)))\",\"priority\":10,\"creatives\":$CREATIVES}")
done
seq_now=$("$BIN/adctl" --endpoint "$ADMIN" call edge.list | python3 -c 'import json,sys; print(json.load(sys.stdin)["seq"])')
for e in 0 1; do wait_applied "${EDGES[$e]}" "$seq_now" 3; done

# load SECONDS LABEL: adload's mix into both edges at once for SECONDS; waits for both.
load() {
  local e loaders=()
  for e in 0 1; do
    "$BIN/adload" --endpoint "${EDGES[$e]}" --rate "$RATE" --connections 2 --window 64 --duration "$1" --devices "$DEVICES" \
      --apps "$APP_LIST" --mix query=50,report=50 --hot-share 0 --seed $((e + 1)) --quiet --json >"$RUN/adload-$2-$e.json" &
    loaders+=($!)
  done
  wait "${loaders[@]}"
}
# impressions: each campaign's impressions so far, as JSON {id: count}.
impressions() {
  "$BIN/adctl" --endpoint "$ADMIN" call campaign.stats '{}' \
    | python3 -c 'import json,sys; print(json.dumps({s["id"]: s["impressions"] for s in json.load(sys.stdin)["stats"]}))'
}

# Calibration: the fallback campaigns alone, so every report of an app is an impression its paced campaign could have had.
# The first 6 s are left out: devices without an answer yet report none, and the reports are a second or two late.
load $((CALIBRATION + 7)) calibration &
loading=$!
sleep 6
t0=$(date +%s.%N); before=$(impressions)
sleep "$CALIBRATION"
t1=$(date +%s.%N); after=$(impressions)
wait "$loading"
fallbacks=$(for app in "${APPS[@]}"; do echo -n "$app=${FALLBACK[$app]} "; done)
RATES=$(python3 - "$before" "$after" "$(python3 -c "print($t1 - $t0)")" $fallbacks <<'PY'
import json, sys
before, after, seconds = json.loads(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3])
for pair in sys.argv[4:]:
    app, cid = pair.split("=")
    print(f"{app}={(after.get(cid, 0) - before.get(cid, 0)) / seconds:.2f}")
PY
)
echo "calibration: impressions a second per app: $(echo $RATES)"

start=$(( $(date +%s) + LEAD ))
end=$(( start + FLIGHT ))
for pair in $RATES; do
  app=${pair%%=*}
  per_second=${pair#*=}
  pacing=${app%%-*}
  multiple=${app#*-}; multiple=${multiple%x}; multiple=${multiple/05/0.5}
  goal=$(python3 -c "print(max(1, round($per_second * $FLIGHT / $multiple)))")
  PACED[$app]=$(create "{\"name\":\"$pacing at ${multiple}x\",\"app\":\"$app\",\"startsAt\":\"$(utc $start)\",\"endsAt\":\"$(utc $end)\",\"priority\":90,
    \"goal\":{\"impressions\":$goal,\"per\":\"campaign\"},\"pacing\":\"$pacing\",\"creatives\":$CREATIVES}")
  echo "campaign ${PACED[$app]}: $pacing, goal $goal over $FLIGHT s, traffic ${multiple}x"
done

# Every second, campaign.stats of every campaign (totals, and the pacing lines of the live ones).
SAMPLES="$RUN/samples.jsonl"
(while :; do
  line=$("$BIN/adctl" --endpoint "$ADMIN" call campaign.stats '{}' 2>/dev/null | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))' || true)
  [ -n "$line" ] && echo "$(date +%s.%N) $line" >>"$SAMPLES"
  sleep 1
done) &
pids+=($!)
# The load goes on TAIL seconds past the flight: the last tenth, shifted by the answer-to-report delay, ends that much
# after the flight, and the devices still report the paced campaign's last answers meanwhile.
TAIL=12
echo "flight $(utc $start) to $(utc $end); load for $((LEAD + FLIGHT + TAIL)) s"
load $((start - $(date +%s) + FLIGHT + TAIL)) flight
sleep 5  # the last reports through the relay, then a last sample
kill "${pids[-1]}" 2>/dev/null || true
echo "$(date +%s.%N) $("$BIN/adctl" --endpoint "$ADMIN" call campaign.stats '{}' | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))')" >>"$SAMPLES"
for app in "${APPS[@]}"; do
  echo "published ${PACED[$app]} $("$BIN/adctl" --endpoint "$ADMIN" call change.list "{\"id\":${PACED[$app]},\"limit\":1000}" \
    | python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["changes"] if c.get("actor") == "pacing"))')" >>"$RUN/published"
done
cp "$SAMPLES" .build-bench/pacing-samples.jsonl
for e in 0 1; do
  bench/adload-result.py "edge-$e" <"$RUN/adload-flight-$e.json" | cut -c1-160 || true
done

paced=$(for app in "${APPS[@]}"; do echo -n "$app=${PACED[$app]}:${FALLBACK[$app]} "; done)
python3 bench/pacing-report.py "$SAMPLES" "$RUN/published" "$start" "$end" $paced | tee "$RUN/report.txt"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
