#!/usr/bin/env bash
# Fuzzes the JSON-RPC codec and the params decoding of every public method with libFuzzer for SECONDS
# (default 60), checking the invariants of Sources/CodecFuzzing on every input.
#
#   fuzz/run.sh [SECONDS] [libFuzzer flags...]
#
# Starts from the committed seeds (fuzz/corpus) and the inputs earlier runs kept (.build-fuzz/corpus); a broken
# invariant or a crash is saved in .build-fuzz/artifacts/ and the script exits non-zero. Replay an input with
# `swift run codec-fuzz FILE` (no libFuzzer needed); add it to fuzz/corpus once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: fuzz/run.sh [SECONDS] [libFuzzer flags...]  (SECONDS: a whole number of seconds, at least 1)" >&2
  exit 2
fi
shift || true

scratch=.build-fuzz
started=$(date +%s)
swift build --product codec-fuzz --scratch-path "$scratch" -c release \
  -Xswiftc -sanitize=fuzzer -Xswiftc -D -Xswiftc FUZZING -Xswiftc -parse-as-library
echo "fuzz/run.sh: fuzz target built in $(( $(date +%s) - started )) s"

mkdir -p "$scratch/corpus" "$scratch/artifacts"
# Swift's own crash backtracer would take the signal before libFuzzer could save the input.
export SWIFT_BACKTRACE=enable=no
status=0
"$scratch/release/codec-fuzz" "$scratch/corpus" fuzz/corpus \
  -dict=fuzz/json.dict -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$scratch/artifacts/" "$@" \
  2>&1 | tee "$scratch/last-run.log" || status=$?
# The figures of the run: executions, edges covered, features, corpus.
echo "fuzz/run.sh: $(grep -E '^#[0-9]+' "$scratch/last-run.log" | tail -1)"
echo "fuzz/run.sh: files in $scratch/artifacts (crashes, broken invariants, timeouts, from any run): $(find "$scratch/artifacts" -type f | wc -l)"
exit "$status"
