# Sourced by the bench scripts that run the services themselves: the release binaries, a campaignd started in a
# folder, the three creative shapes uploaded to it, and reading the ready files. The caller keeps `pids` (an array
# of what to kill on exit) and its own trap.
#
# BIN=DIR uses the release binaries there instead of building them; SCRATCH=DIR builds in another scratch folder
# (say .build-release, beside a debug build running in .build).

# The value of KEY in the JSON file FILE (a ready file).
field() { python3 -c "import json,sys; print(json.load(open('$1'))['$2'])"; }

# Waits up to 30 s for the ready file FILE; ends the script when it does not come.
wait_ready() {
  for _ in $(seq 300); do [ -s "$1" ] && return 0; sleep 0.1; done
  echo "no ready file $1" >&2
  exit 1
}

# Sets BIN to the release binaries of PRODUCT..., built unless BIN is set already.
release_bin() {
  [ -n "${BIN:-}" ] && return 0
  local scratch=()
  [ -n "${SCRATCH:-}" ] && scratch=(--scratch-path "$SCRATCH")
  for product in "$@"; do swift build -c release "${scratch[@]}" --product "$product" >/dev/null; done
  BIN=$(swift build -c release "${scratch[@]}" --show-bin-path)
}

# Starts campaignd on loopback with its data in DIR/campaignd, its log in DIR/campaignd.log and its ready file
# DIR/campaignd.ready, and any further ARGS (such as --database URL); waits until it is ready and sets ADMIN to its
# admin endpoint.
start_campaignd() {
  local dir=$1
  shift
  "$BIN/campaignd" --data-dir "$dir/campaignd" --admin-endpoint tcp://127.0.0.1:0 --sync-endpoint tcp://127.0.0.1:0 \
    --updates-endpoint tcp://127.0.0.1:0 --http-address 127.0.0.1:0 --ready-file "$dir/campaignd.ready" "$@" >"$dir/campaignd.log" 2>&1 &
  pids+=($!)
  wait_ready "$dir/campaignd.ready"
  ADMIN=$(field "$dir/campaignd.ready" admin)
}

# Starts deliveryd as edge NAME (region bench, loopback endpoints) following the campaignd or relay whose ready file is
# UPSTREAM, with its cache folder DIR/NAME, its log DIR/NAME.log, its ready file DIR/NAME.ready and any further ARGS;
# adds it to pids without waiting for it (wait_ready DIR/NAME.ready).
start_edge() {
  local dir=$1 name=$2 upstream=$3
  shift 3
  "$BIN/deliveryd" --edge-id "$name" --region bench --cache-dir "$dir/$name" \
    --campaign-sync "$(field "$upstream" sync)" --campaign-updates "$(field "$upstream" updates)" \
    --client-endpoint tcp://127.0.0.1:0 --http-address 127.0.0.1:0 --ready-file "$dir/$name.ready" "$@" >"$dir/$name.log" 2>&1 &
  pids+=($!)
}

# Starts relayd as relay NAME (region bench, loopback endpoints) following the campaignd or relay whose ready file is
# UPSTREAM, with its cache folder DIR/NAME, its log DIR/NAME.log, its ready file DIR/NAME.ready and any further ARGS;
# adds it to pids without waiting for it (wait_ready DIR/NAME.ready). It runs at nice RELAY_NICE (default 0).
start_relay() {
  local dir=$1 name=$2 upstream=$3
  shift 3
  nice -n "${RELAY_NICE:-0}" "$BIN/relayd" --relay-id "$name" --region bench --cache-dir "$dir/$name" \
    --upstream-sync "$(field "$upstream" sync)" --upstream-updates "$(field "$upstream" updates)" \
    --sync-endpoint tcp://127.0.0.1:0 --updates-endpoint tcp://127.0.0.1:0 --http-address 127.0.0.1:0 \
    --ready-file "$dir/$name.ready" "$@" >"$dir/$name.log" 2>&1 &
  pids+=($!)
}

# Starts COUNT relays relay-0 … relay-(COUNT-1) in DIR following the campaignd of DIR/campaignd.ready, with any further
# ARGS, and waits until all are ready (none when COUNT is 0).
start_relays() {
  local dir=$1 count=$2
  shift 2
  for r in $(seq 0 $((count - 1))); do start_relay "$dir" "relay-$r" "$dir/campaignd.ready" "$@"; done
  for r in $(seq 0 $((count - 1))); do wait_ready "$dir/relay-$r.ready"; done
}

# The ready file of edge I's upstream among COUNT relays started by start_relays in DIR: relay (I mod COUNT), or
# campaignd when COUNT is 0.
edge_upstream() {
  if [ "$2" -gt 0 ]; then echo "$1/relay-$(($3 % $2)).ready"; else echo "$1/campaignd.ready"; fi
}

# Writes DIR/tall.png, DIR/classic.png and DIR/wide.png: PNGs of three phone screen shapes, 20 KB each.
write_creatives() {
  python3 - "$1" <<'PY'
import struct, sys, zlib
for name, (w, h) in {"tall": (1179, 2556), "classic": (1080, 1920), "wide": (1242, 2208)}.items():
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = lambda k, d: struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d))
    open(f"{sys.argv[1]}/{name}.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + b"x" * 20000 + chunk(b"IEND", b""))
PY
}

# Uploads DIR's three shapes (see write_creatives) to the campaignd at ADMIN; sets SHAS to their sha256s, in the
# order tall, classic, wide.
upload_creatives() {
  SHAS=()
  for name in tall classic wide; do
    SHAS+=($("$BIN/adctl" --endpoint "$1" creative upload "$2/$name.png" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sha256"])'))
  done
}

# Starts a PostgreSQL cluster of its own (Debian's postgresql) in DIR/pg on a free loopback port, with its defaults
# (fsync and synchronous commit on), as the postgres user (or launchad-pg, made if need be) when run as root; sets
# DATABASE to the URL of its database `campaigns`. The caller's exit trap runs stop_postgres DIR.
start_postgres() {
  PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  PG_USER=postgres
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    PG_USER=launchad-pg
    id "$PG_USER" >/dev/null 2>&1 || useradd --system --user-group --no-create-home --shell /usr/sbin/nologin "$PG_USER"
  fi
  mkdir -p "$1/pg"
  [ "$(id -u)" -ne 0 ] || { chmod 755 "$1"; chown "$PG_USER" "$1/pg"; }
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  as_pg "$PG_BIN/initdb" -D "$1/pg/data" -U campaignd --auth=trust -E UTF8 >/dev/null
  as_pg "$PG_BIN/pg_ctl" -D "$1/pg/data" -l "$1/pg/server.log" -w -o "-p $port -k $1/pg -c listen_addresses=127.0.0.1" start >/dev/null
  as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U campaignd campaigns
  DATABASE=postgres://campaignd@127.0.0.1:$port/campaigns
}

# Stops the cluster start_postgres started in DIR, if any.
stop_postgres() {
  [ -d "$1/pg/data" ] && as_pg "$PG_BIN/pg_ctl" -D "$1/pg/data" -m fast stop >/dev/null 2>&1 || true
}

# Runs a command as PostgreSQL's user when root (PostgreSQL refuses root), as is otherwise.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi; }
