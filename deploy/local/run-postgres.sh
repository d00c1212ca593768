#!/usr/bin/env bash
# Starts the PostgreSQL pair on this machine: a PostgreSQL cluster of its own (Debian's postgresql package, on
# port 7400, in RUN_DIR), two campaignd sharing it (admin 7100 and 7110, sync 7101 and 7111, updates 7102 and 7112,
# HTTP 8100 and 8110) and one edge following both; then kills the leader and shows the other taking over.
#
#   deploy/local/run-postgres.sh           # start, show a failover, keep running until Ctrl-C
#   deploy/local/run-postgres.sh --once    # start, show a failover, stop
#
# Environment: RUN_DIR (default .build-local-pg), CONFIG (debug or release, default debug).
set -euo pipefail
cd "$(dirname "$0")/../.."
ONCE=0
case "${1:-}" in
  --once) ONCE=1 ;;
  "") ;;
  -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: deploy/local/run-postgres.sh [--once]" >&2; exit 2 ;;
esac
RUN_DIR=$(realpath -m "${RUN_DIR:-.build-local-pg}")
CONFIG=${CONFIG:-debug}
deploy/local/ensure-deps.sh
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
# PostgreSQL refuses to run as root: as root, its programs run as the postgres user (or launchad-pg, made if need be).
PG_USER=postgres
if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
  PG_USER=launchad-pg
  id "$PG_USER" >/dev/null 2>&1 || useradd --system --user-group --no-create-home --shell /usr/sbin/nologin "$PG_USER"
fi
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi; }

echo "== building ($CONFIG)"
for product in campaignd deliveryd adctl; do swift build -c "$CONFIG" --product "$product" >/dev/null; done
BIN=$(swift build -c "$CONFIG" --show-bin-path)

rm -rf "$RUN_DIR"
mkdir -p "$RUN_DIR/pg"
[ "$(id -u)" -ne 0 ] || chown "$PG_USER" "$RUN_DIR/pg"
pids=()
stop() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  as_pg "$PG_BIN/pg_ctl" -D "$RUN_DIR/pg/data" -m fast stop >/dev/null 2>&1 || true
}
trap stop EXIT INT TERM
wait_ready() { for _ in $(seq $(( $2 * 10 ))); do [ -s "$1" ] && return 0; sleep 0.1; done; echo "gave up waiting for $1" >&2; return 1; }

echo "== starting PostgreSQL on 127.0.0.1:7400"
as_pg "$PG_BIN/initdb" -D "$RUN_DIR/pg/data" -U campaignd --auth=trust -E UTF8 >/dev/null
as_pg "$PG_BIN/pg_ctl" -D "$RUN_DIR/pg/data" -l "$RUN_DIR/pg/server.log" -w \
  -o "-p 7400 -k $RUN_DIR/pg -c listen_addresses=127.0.0.1" start >/dev/null
as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p 7400 -U campaignd campaigns
DATABASE=postgres://campaignd@127.0.0.1:7400/campaigns

start_campaignd() {  # name, port offset
  "$BIN/campaignd" --database "$DATABASE" --data-dir "$RUN_DIR/$1" \
    --admin-endpoint "tcp://127.0.0.1:$(( 7100 + $2 ))" --sync-endpoint "tcp://127.0.0.1:$(( 7101 + $2 ))" \
    --updates-endpoint "tcp://127.0.0.1:$(( 7102 + $2 ))" --http-address "127.0.0.1:$(( 8100 + $2 ))" \
    --ready-file "$RUN_DIR/$1.ready" >"$RUN_DIR/$1.log" 2>&1 &
  pids+=($!)
  wait_ready "$RUN_DIR/$1.ready" 30
}
echo "== starting campaignd-a and campaignd-b on one database"
start_campaignd campaignd-a 0
A_PID=${pids[-1]}
start_campaignd campaignd-b 10
"$BIN/deliveryd" --edge-id edge-1 --region local --cache-dir "$RUN_DIR/edge-1" \
  --campaign-sync tcp://127.0.0.1:7101,tcp://127.0.0.1:7111 --campaign-updates tcp://127.0.0.1:7102,tcp://127.0.0.1:7112 \
  --client-endpoint tcp://127.0.0.1:7200 --http-address 127.0.0.1:8200 --ready-file "$RUN_DIR/edge-1.ready" \
  >"$RUN_DIR/edge-1.log" 2>&1 &
pids+=($!)
wait_ready "$RUN_DIR/edge-1.ready" 30
ADCTL=("$BIN/adctl" --endpoint tcp://127.0.0.1:7100,tcp://127.0.0.1:7110)

python3 - "$RUN_DIR/splash.png" <<'PY'
import struct, sys, zlib
ihdr = struct.pack(">IIBBBBB", 1179, 2556, 8, 2, 0, 0, 0)
chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b""))
PY
SHA=$("${ADCTL[@]}" creative upload "$RUN_DIR/splash.png" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sha256"])')
echo "== a campaign through either campaignd, applied by the edge"
"${ADCTL[@]}" campaign create --name "Failover demo" --app shop --starts now --ends +1h --creative "$SHA" --wait
echo "== kill -9 of campaignd-a (the leader); campaignd-b takes over"
kill -KILL "$A_PID"
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
