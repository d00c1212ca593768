#!/usr/bin/env bash
# Starts the PostgreSQL pair on this machine: a PostgreSQL cluster of its own (Debian's postgresql package, on
# port 7400, in RUN_DIR), two campaignd sharing it (admin 7100 and 7110, sync 7101 and 7111, updates 7102 and 7112,
# HTTP 8100 and 8110) and one edge following both; then kills the leader and shows the other taking over.
#
#   deploy/local/run-postgres.sh           # start, show a failover, keep running until Ctrl-C
#   deploy/local/run-postgres.sh --once    # start, show a failover, stop
#
# Environment: RUN_DIR (default .build-local-pg), CONFIG (debug or release, default debug), BIN (binaries built
# already, not built again). The processes start through deploy/local/cluster.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
ONCE=0
case "${1:-}" in
  --once) ONCE=1 ;;
  "") ;;
  -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: deploy/local/run-postgres.sh [--once]" >&2; exit 2 ;;
esac
RUN_DIR=$(realpath -m "${RUN_DIR:-.build-local-pg}")
CONFIG=${CONFIG:-debug}
deploy/local/ensure-deps.sh
. deploy/local/cluster.sh
echo "== building ($CONFIG)"
build_bin "$CONFIG" campaignd deliveryd adctl

rm -rf "$RUN_DIR"
mkdir -p "$RUN_DIR"
trap stop_cluster EXIT INT TERM

echo "== starting PostgreSQL on 127.0.0.1:7400"
start_postgres "$RUN_DIR" 7400
echo "== starting campaignd-a and campaignd-b on one database"
start_campaignd "$RUN_DIR" campaignd-a 7100 --database "$DATABASE"
A_PID=$LAST_PID
start_campaignd "$RUN_DIR" campaignd-b 7110 --database "$DATABASE"
start_edge "$RUN_DIR" edge-1 "$RUN_DIR/campaignd-a.ready,$RUN_DIR/campaignd-b.ready" 7200
wait_ready "$RUN_DIR/edge-1.ready"
ADCTL=("$BIN/adctl" --endpoint tcp://127.0.0.1:7100,tcp://127.0.0.1:7110)

write_png "$RUN_DIR/splash.png" 1179 2556
SHA=$("${ADCTL[@]}" creative upload "$RUN_DIR/splash.png" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sha256"])')
echo "== a campaign through either campaignd, applied by the edge"
"${ADCTL[@]}" campaign create --name "Failover demo" --app shop --starts now --ends +1h --creative "$SHA" --wait
echo "== kill -9 of campaignd-a (the leader); campaignd-b takes over"
kill -KILL "$A_PID"
wait "$A_PID" 2>/dev/null || true  # reaped here: no "Killed" line from the shell
sleep 1
grep -h "leading" "$RUN_DIR/campaignd-b.log" || true
"${ADCTL[@]}" campaign force 1 --wait
"${ADCTL[@]}" edges

if [ "$ONCE" = 1 ]; then
  echo "== stopping"
  exit 0
fi
echo "== running; logs in $RUN_DIR; Ctrl-C stops everything"
wait
