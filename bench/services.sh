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
# DIR/campaignd.ready; waits until it is ready and sets ADMIN to its admin endpoint.
start_campaignd() {
  "$BIN/campaignd" --data-dir "$1/campaignd" --admin-endpoint tcp://127.0.0.1:0 --sync-endpoint tcp://127.0.0.1:0 \
    --updates-endpoint tcp://127.0.0.1:0 --http-address 127.0.0.1:0 --ready-file "$1/campaignd.ready" >"$1/campaignd.log" 2>&1 &
  pids+=($!)
  wait_ready "$1/campaignd.ready"
  ADMIN=$(field "$1/campaignd.ready" admin)
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
