# Sourced by the bench scripts: builds the reference limit server and the C load client of ../shared/bench/zmq-limit
# (or LIMIT_SRC) into .build-bench, and sets OUT to that folder.
LIMIT_SRC=${LIMIT_SRC:-../shared/bench/zmq-limit}
OUT=.build-bench
mkdir -p "$OUT"
cp "$LIMIT_SRC"/*.c "$LIMIT_SRC"/*.h "$LIMIT_SRC"/Makefile "$OUT"/
make -s -C "$OUT" >/dev/null
