# Sourced by the bench scripts: builds the reference limit server and the C load client of ../shared/bench/zmq-limit
# (or LIMIT_SRC) into .build-bench, and sets OUT to that folder.
# LIMIT_PAD=N (9 to 460 bytes) builds the limit with N more bytes in its answer (a "pad" member of N - 9 x's at the end
# of its result), to compare the edge with a limit that writes as many bytes as the edge's answers (the limit builds
# its answer, with an id of up to 256 bytes, in a buffer of 1 KiB: hence the bound).
LIMIT_SRC=${LIMIT_SRC:-../shared/bench/zmq-limit}
OUT=.build-bench
mkdir -p "$OUT"
cp "$LIMIT_SRC"/*.c "$LIMIT_SRC"/*.h "$LIMIT_SRC"/Makefile "$OUT"/
if [ -n "${LIMIT_PAD:-}" ]; then
  [[ "$LIMIT_PAD" =~ ^[0-9]+$ ]] && [ "$LIMIT_PAD" -ge 9 ] && [ "$LIMIT_PAD" -le 460 ] \
    || { echo "LIMIT_PAD must be a number of bytes, 9 to 460" >&2; exit 2; }
  grep -q '\\"ttl\\":300}}"' "$OUT/common.h" || { echo "LIMIT_PAD: the limit's answer is not the one expected" >&2; exit 2; }
  pad=$(printf '%*s' $(( LIMIT_PAD - 9 )) '' | tr ' ' x)
  sed -i "s/\\\\\"ttl\\\\\":300}}\"/\\\\\"ttl\\\\\":300,\\\\\"pad\\\\\":\\\\\"$pad\\\\\"}}\"/" "$OUT/common.h"
fi
make -s -C "$OUT" >/dev/null
