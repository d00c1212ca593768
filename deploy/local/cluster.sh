#!/usr/bin/env bash
# The one place that starts the system's processes on this machine, as shell functions: campaignd, edges
# (deliveryd), relays (relayd) and a PostgreSQL cluster of their own, each with its folder, log and ready file, and
# their cleanup. deploy/local/run.sh, deploy/local/run-postgres.sh and the bench/ scripts source it from the
# repository root:
#
#   . deploy/local/cluster.sh
#   build_bin release campaignd deliveryd adctl      # or BIN=DIR: binaries built elsewhere
#   trap stop_cluster EXIT
#   start_campaignd "$RUN" campaignd 0               # port 0: every endpoint on an ephemeral loopback port
#   start_edge "$RUN" edge-1 "$RUN/campaignd.ready" 0
#   wait_ready "$RUN/edge-1.ready"
#
# Each start_* adds its process to the array `pids`; stop_cluster ends them (TERM, then KILL after 10 s) and stops
# the PostgreSQL clusters start_postgres started. A fixed PORT lays a service out as DESIGN does: campaignd's admin
# socket on PORT, sync on PORT+1, updates on PORT+2 and HTTP on PORT+1000 (7100, 7101, 7102, 8100); a relay's sync and
# updates on PORT+1 and PORT+2 (7301, 7302, 8300); an edge's client socket on PORT and HTTP on PORT+1000 (7200, 8200).
# ARGS after the fixed ones go last on the command line: a flag there overrides the function's own.
#
# Environment: BIN (the binaries' folder; build_bin sets it unless set), SCRATCH (build_bin's scratch folder, say
# .build-release beside a debug build in .build), REGION (the services' region, default local), DELIVERYD (another
# deliveryd binary for start_edge, say a second build for paired runs), RELAY_NICE (relays' nice, default 0).
#
# Run rather than sourced, it starts and stops a PostgreSQL cluster for programs in other languages:
#   deploy/local/cluster.sh start-postgres DIR     # prints the database URL
#   deploy/local/cluster.sh stop-postgres DIR

[ -n "${pids+set}" ] || pids=()
PG_DIRS=()

# The value of KEY in the JSON file FILE (a ready file).
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

# Waits up to SECONDS (default 30) for the ready file FILE; ends the script when it does not come.
wait_ready() {
  local tries=$(( ${2:-30} * 10 ))
  for _ in $(seq "$tries"); do [ -s "$1" ] && return 0; sleep 0.1; done
  echo "no ready file $1 after ${2:-30} s (see ${1%.ready}.log)" >&2
  exit 1
}

# A free TCP port on loopback.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Builds PRODUCT... in CONFIG (debug or release) and sets BIN to their folder; does nothing when BIN is set already.
build_bin() {
  [ -n "${BIN:-}" ] && return 0
  local config=$1 scratch=()
  shift
  [ -n "${SCRATCH:-}" ] && scratch=(--scratch-path "$SCRATCH")
  for product in "$@"; do swift build -c "$config" "${scratch[@]}" --product "$product" >/dev/null; done
  BIN=$(swift build -c "$config" "${scratch[@]}" --show-bin-path)
}

# tcp://127.0.0.1:(PORT+OFFSET), or an ephemeral port when PORT is 0.
loopback() { if [ "$1" = 0 ]; then echo "tcp://127.0.0.1:0"; else echo "tcp://127.0.0.1:$(( $1 + $2 ))"; fi; }
# 127.0.0.1:(PORT+1000), or an ephemeral port when PORT is 0: a service's HTTP address.
http_address() { if [ "$1" = 0 ]; then echo "127.0.0.1:0"; else echo "127.0.0.1:$(( $1 + 1000 ))"; fi; }

# KEY of each ready file in the comma-separated list FILES, joined by commas: the endpoints of several upstreams.
upstream_field() {
  local files file out=()
  IFS=, read -ra files <<<"$1"
  for file in "${files[@]}"; do out+=("$(field "$file" "$2")"); done
  (IFS=,; echo "${out[*]}")
}

# Starts campaignd NAME with its data in DIR/NAME, its log DIR/NAME.log and its ready file DIR/NAME.ready, on PORT
# (see above), with any further ARGS (such as --database URL); waits until it is ready, then sets ADMIN to its admin
# endpoint and LAST_PID to its process.
start_campaignd() {
  local dir=$1 name=$2 port=$3
  shift 3
  "$BIN/campaignd" --data-dir "$dir/$name" --admin-endpoint "$(loopback "$port" 0)" --sync-endpoint "$(loopback "$port" 1)" \
    --updates-endpoint "$(loopback "$port" 2)" --http-address "$(http_address "$port")" --ready-file "$dir/$name.ready" \
    "$@" >"$dir/$name.log" 2>&1 &
  LAST_PID=$!
  pids+=($!)
  wait_ready "$dir/$name.ready"
  ADMIN=$(field "$dir/$name.ready" admin)
}

# Starts deliveryd as edge NAME following the campaignd or relay whose ready file is UPSTREAM (or several, comma-
# separated: each campaignd of a PostgreSQL pair), with its cache folder DIR/NAME, its log DIR/NAME.log and its ready
# file DIR/NAME.ready, on PORT (see above), with any further ARGS; sets LAST_PID without waiting for it (many edges
# start at once: wait_ready DIR/NAME.ready after).
start_edge() {
  local dir=$1 name=$2 upstream=$3 port=$4
  shift 4
  "${DELIVERYD:-$BIN/deliveryd}" --edge-id "$name" --region "${REGION:-local}" --cache-dir "$dir/$name" \
    --campaign-sync "$(upstream_field "$upstream" sync)" --campaign-updates "$(upstream_field "$upstream" updates)" \
    --client-endpoint "$(loopback "$port" 0)" --http-address "$(http_address "$port")" --ready-file "$dir/$name.ready" \
    "$@" >"$dir/$name.log" 2>&1 &
  LAST_PID=$!
  pids+=($!)
}

# Starts relayd as relay NAME following the campaignd or relay whose ready file is UPSTREAM (or several, comma-
# separated), with its cache folder DIR/NAME, its log DIR/NAME.log and its ready file DIR/NAME.ready, on PORT (see
# above), at nice RELAY_NICE, with any further ARGS; sets LAST_PID without waiting for it.
start_relay() {
  local dir=$1 name=$2 upstream=$3 port=$4
  shift 4
  nice -n "${RELAY_NICE:-0}" "$BIN/relayd" --relay-id "$name" --region "${REGION:-local}" --cache-dir "$dir/$name" \
    --upstream-sync "$(upstream_field "$upstream" sync)" --upstream-updates "$(upstream_field "$upstream" updates)" \
    --sync-endpoint "$(loopback "$port" 1)" --updates-endpoint "$(loopback "$port" 2)" --http-address "$(http_address "$port")" \
    --ready-file "$dir/$name.ready" "$@" >"$dir/$name.log" 2>&1 &
  LAST_PID=$!
  pids+=($!)
}

# Starts COUNT relays relay-0 … relay-(COUNT-1) in DIR on ephemeral ports, following the campaignd of
# DIR/campaignd.ready, with any further ARGS, and waits until all are ready (none when COUNT is 0).
start_relays() {
  local dir=$1 count=$2
  shift 2
  for r in $(seq 0 $((count - 1))); do start_relay "$dir" "relay-$r" "$dir/campaignd.ready" 0 "$@"; done
  for r in $(seq 0 $((count - 1))); do wait_ready "$dir/relay-$r.ready"; done
}

# The ready file of edge I's upstream among COUNT relays started by start_relays in DIR: relay (I mod COUNT), or
# campaignd when COUNT is 0.   edge_upstream DIR COUNT I
edge_upstream() {
  if [ "$2" -gt 0 ]; then echo "$1/relay-$(($3 % $2)).ready"; else echo "$1/campaignd.ready"; fi
}

# Waits up to 60 s until the edge (or relay) at the ZeroMQ ENDPOINT has applied SEQ changes and holds CREATIVES
# creatives (its edge.status); ends the script when it does not.
wait_applied() {
  for _ in $(seq 600); do
    "$BIN/adctl" --endpoint "$1" call edge.status 2>/dev/null \
      | python3 -c 'import json,sys; s=json.load(sys.stdin); sys.exit(0 if s["seq"]>=int(sys.argv[1]) and s["creatives"]>=int(sys.argv[2]) else 1)' "$2" "$3" \
      && return 0
    sleep 0.1
  done
  echo "$1 did not apply $2 changes and $3 creatives in 60 s" >&2
  exit 1
}

# Writes FILE: a PNG of WIDTH x HEIGHT (its header, which is what campaignd reads) and FILLER bytes (default 0).
write_png() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
path, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
filler = int(sys.argv[4]) if len(sys.argv) > 4 else 0
chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + b"x" * filler + chunk(b"IEND", b""))
PY
}

# Writes DIR/tall.png, DIR/classic.png and DIR/wide.png: PNGs of three phone screen shapes, 20 KB each.
write_creatives() {
  write_png "$1/tall.png" 1179 2556 20000
  write_png "$1/classic.png" 1080 1920 20000
  write_png "$1/wide.png" 1242 2208 20000
}

# Uploads DIR's three shapes (see write_creatives) to the campaignd at ADMIN; sets SHAS to their sha256s, in the
# order tall, classic, wide.   upload_creatives ADMIN DIR
upload_creatives() {
  SHAS=()
  for name in tall classic wide; do
    SHAS+=($("$BIN/adctl" --endpoint "$1" creative upload "$2/$name.png" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sha256"])'))
  done
}

# Sets PG_BIN to the newest PostgreSQL's programs (Debian's postgresql) and PG_USER to the user they run as: PostgreSQL
# refuses root, so under root the postgres user, or launchad-pg (made if need be) where there is none.
postgres_programs() {
  PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$PG_BIN" ] || { echo "PostgreSQL is not installed (no /usr/lib/postgresql/N/bin): run deploy/local/ensure-deps.sh" >&2; exit 1; }
  PG_USER=$(id -un)
  if [ "$(id -u)" -eq 0 ]; then
    PG_USER=postgres
    if ! id postgres >/dev/null 2>&1; then
      PG_USER=launchad-pg
      id "$PG_USER" >/dev/null 2>&1 || useradd --system --user-group --no-create-home --shell /usr/sbin/nologin "$PG_USER"
    fi
  fi
}

# Runs a command as PostgreSQL's user when root, as is otherwise.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi; }

# Starts a PostgreSQL cluster of its own in DIR/pg on loopback PORT (default: a free one), with its defaults (fsync and
# synchronous commit on); sets DATABASE to the URL of its database `campaigns` (user campaignd, no password). The
# cluster is stopped by stop_cluster, or stop_postgres DIR.
start_postgres() {
  local dir port=${2:-}
  dir=$(realpath -m "$1")
  postgres_programs
  mkdir -p "$dir/pg"
  # The server's user must reach its folder: a mktemp folder is the caller's alone.
  [ "$(id -u)" -ne 0 ] || { chmod 755 "$dir"; chown "$PG_USER" "$dir/pg"; }
  [ -n "$port" ] || port=$(free_port)
  # --no-sync: a throwaway cluster need not wait for initdb's files to reach the disk (the server still syncs).
  as_pg "$PG_BIN/initdb" -D "$dir/pg/data" -U campaignd --auth=trust -E UTF8 --no-sync >/dev/null
  as_pg "$PG_BIN/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w \
    -o "-p $port -k $dir/pg -c listen_addresses=127.0.0.1" start >/dev/null
  PG_DIRS+=("$dir")
  as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U campaignd campaigns
  DATABASE=postgres://campaignd@127.0.0.1:$port/campaigns
}

# Stops the cluster start_postgres started in DIR, if any.
stop_postgres() {
  local dir
  dir=$(realpath -m "$1")
  [ -n "${PG_BIN:-}" ] || postgres_programs
  if [ -d "$dir/pg/data" ]; then as_pg "$PG_BIN/pg_ctl" -D "$dir/pg/data" -m fast stop >/dev/null 2>&1 || true; fi
}

# Ends every process in pids (TERM; KILL for any still running 10 s later, so that cleanup never hangs on one) and
# stops the PostgreSQL clusters started; for the caller's EXIT trap. Safe to call twice.
stop_cluster() {
  if ((${#pids[@]})); then
    kill -TERM "${pids[@]}" 2>/dev/null || true
    # Its output goes nowhere: its sleep must not hold the caller's pipe open once the script is done.
    (sleep 10; kill -KILL "${pids[@]}" 2>/dev/null || true) >/dev/null 2>&1 &
    local watchdog=$!
    wait "${pids[@]}" 2>/dev/null || true
    kill "$watchdog" 2>/dev/null || true
  fi
  pids=()
  local dir
  for dir in "${PG_DIRS[@]}"; do stop_postgres "$dir"; done
  PG_DIRS=()
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case "${1:-} ${2:+dir}" in
    "start-postgres dir") start_postgres "$2" >/dev/null; echo "$DATABASE" ;;
    "stop-postgres dir") stop_postgres "$2" ;;
    *) echo "usage: deploy/local/cluster.sh start-postgres DIR | stop-postgres DIR  (or source it: see its head)" >&2; exit 2 ;;
  esac
fi
