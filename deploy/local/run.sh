#!/usr/bin/env bash
# Starts the whole system on this machine with its embedded defaults (SQLite, loopback endpoints): one campaignd
# and EDGES deliveryd edges, each with its own data folder under RUN_DIR, and shows it working.
#
#   deploy/local/run.sh                # start, show, keep running until Ctrl-C
#   deploy/local/run.sh --once         # start, show, stop
#   deploy/local/run.sh --edges 5      # five edges (edge-i: client port 7200+10(i-1), HTTP 8200+10(i-1))
#
# Environment: EDGES (default 2; --edges wins), RUN_DIR (default .build-local), CONFIG (debug or release,
# default debug), BIN (binaries built already, not built again). The processes start through deploy/local/cluster.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
usage() { echo "usage: deploy/local/run.sh [--once] [--edges N]" >&2; exit 2; }
ONCE=0
EDGES=${EDGES:-2}
while (($#)); do
  case "$1" in
    --once) ONCE=1 ;;
    --edges) (($# >= 2)) || usage; EDGES=$2; shift ;;
    --edges=*) EDGES=${1#--edges=} ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; usage ;;
  esac
  shift
done
# Ports are 7200 + 10 (i - 1) and 8200 + 10 (i - 1): up to 50 edges stay clear of each other and of campaignd.
if ! [[ "$EDGES" =~ ^[0-9]+$ ]] || ((EDGES < 1 || EDGES > 50)); then
  echo "run.sh: the number of edges must be a whole number from 1 to 50, not '$EDGES'" >&2
  exit 2
fi
RUN_DIR=${RUN_DIR:-.build-local}
CONFIG=${CONFIG:-debug}
case "$CONFIG" in debug | release) ;; *) echo "run.sh: CONFIG must be debug or release, not '$CONFIG'" >&2; exit 2 ;; esac

deploy/local/ensure-deps.sh
. deploy/local/cluster.sh
echo "== building ($CONFIG)"
build_bin "$CONFIG" campaignd deliveryd adctl

rm -rf "$RUN_DIR"
mkdir -p "$RUN_DIR"
trap stop_cluster EXIT INT TERM

echo "== starting campaignd"
start_campaignd "$RUN_DIR" campaignd 7100
cat "$RUN_DIR/campaignd.ready"

for i in $(seq "$EDGES"); do
  echo "== starting edge-$i"
  start_edge "$RUN_DIR" "edge-$i" "$RUN_DIR/campaignd.ready" $(( 7200 + 10 * (i - 1) ))
  wait_ready "$RUN_DIR/edge-$i.ready"
  cat "$RUN_DIR/edge-$i.ready"
done

ADCTL="$BIN/adctl"
EDGE1=tcp://127.0.0.1:7200
json_field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

echo "== uploading a creative (a 1179x2556 PNG header made on the spot)"
write_png "$RUN_DIR/splash.png" 1179 2556
"$ADCTL" creative upload "$RUN_DIR/splash.png"
SHA=$("$ADCTL" creative upload "$RUN_DIR/splash.png" --json | json_field '["sha256"]')

echo "== creating a campaign that is live now, for one hour (--wait: until every edge applied it)"
"$ADCTL" campaign create --name "Double 12 demo" --app shop --starts now --ends +1h --creative "$SHA" \
  --jump-url https://shop.example.com/1212 --wait
ID=1
# The edges fetch the creative right after applying the change.
wait_applied "$EDGE1" 1 1

QUERY='{"app":"shop","platform":"ios","appVersion":"5.2.0","region":"local","deviceId":"d-42","screen":{"width":1179,"height":2556}}'
echo "== a launch query to edge-1"
"$ADCTL" call --endpoint "$EDGE1" launch.query "$QUERY" | python3 -m json.tool
echo "== forcing it, then expiring it; the next query gets no ad and the id to delete"
"$ADCTL" campaign force "$ID" --wait
"$ADCTL" campaign expire "$ID" --wait
"$ADCTL" call --endpoint "$EDGE1" launch.query "$QUERY"
echo "== the edges, as campaignd sees them"
"$ADCTL" edges

if [ "$ONCE" = 1 ]; then
  echo "== stopping"
  exit 0
fi
echo "== running; logs in $RUN_DIR; Ctrl-C stops everything"
wait
