#!/usr/bin/env bash
# Builds the package and its tests under a sanitizer, in a build folder of their own, and runs the tests; the
# services the tests start as child processes are the sanitized builds too. Every report, from the test runner or
# a child, is written to .build-asan/reports or .build-tsan/reports and summed up at the end; the script fails
# when there is one.
#
#   deploy/local/sanitize.sh address|thread [swift test flags, e.g. --filter HostileInputTests]
#   deploy/local/sanitize.sh address|thread --build-only     (only the build, e.g. beside other work in CI)
set -euo pipefail
cd "$(dirname "$0")/../.."
# The thread build also compiles the project's lock (Sources/Locking) as a pthread mutex, which ThreadSanitizer
# intercepts, instead of Swift's Mutex, whose futexes it cannot see: -D LAUNCHAD_TSAN.
case "${1:-}" in
  address) scratch=.build-asan; flags=() ;;
  thread) scratch=.build-tsan; flags=(-Xswiftc -DLAUNCHAD_TSAN) ;;
  *) echo "usage: deploy/local/sanitize.sh address|thread [swift test flags...]" >&2; exit 2 ;;
esac
sanitizer=$1
shift
deploy/local/ensure-deps.sh
swift build --build-tests --sanitize="$sanitizer" "${flags[@]}" --scratch-path "$scratch"
[ "${1:-}" != "--build-only" ] || exit 0

reports="$scratch/reports"
rm -rf "$reports"
mkdir -p "$reports"
# Keep going after a report (so one run finds them all) and write each process's reports to its own file.
# Leak checking is off: Swift's runtime keeps metadata and caches for the life of the process by design.
# A smaller quarantine keeps memory bounds in the tests meaningful (they scale by LAUNCHAD_SANITIZER).
export LAUNCHAD_SANITIZER="$sanitizer"
export ASAN_OPTIONS="log_path=$PWD/$reports/asan:detect_leaks=0:halt_on_error=0:quarantine_size_mb=32:${ASAN_OPTIONS:-}"
# The suppressions name only code that is not the project's, each with its reason (see the file).
export TSAN_OPTIONS="log_path=$PWD/$reports/tsan:halt_on_error=0:second_deadlock_stack=1:suppressions=$PWD/deploy/local/tsan-suppressions.txt:${TSAN_OPTIONS:-}"
status=0
# One test at a time: a sanitizer slows everything several times, and tests with timing bounds that run side by
# side on a small machine would then fail for that reason alone.
swift test --skip-build --no-parallel --sanitize="$sanitizer" "${flags[@]}" --scratch-path "$scratch" "$@" || status=$?

count=$(cat "$reports"/* 2>/dev/null | grep -c '^SUMMARY: ' || true)
if [ "$count" -gt 0 ]; then
  echo "sanitize.sh: $count $sanitizer sanitizer report(s), in $reports:"
  cat "$reports"/* | grep '^SUMMARY: ' | sort | uniq -c | sort -rn
  [ "$status" -ne 0 ] || status=1
else
  echo "sanitize.sh: no $sanitizer sanitizer reports"
fi
exit "$status"
