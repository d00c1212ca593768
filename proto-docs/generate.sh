#!/usr/bin/env bash
# Writes each socket's OpenRPC document (what rpc.discover answers) into proto-docs/openrpc/, and the markets' rules
# table into proto-docs/README.md. The test suite fails
# when a document here and the running code disagree, so run this after changing a method.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product campaignd >/dev/null
swift build --product deliveryd >/dev/null
swift build --product adctl >/dev/null
BIN=$(swift build --show-bin-path)
RUN=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$RUN"' EXIT
"$BIN/campaignd" --data-dir "$RUN/c" --admin-endpoint tcp://127.0.0.1:0 --sync-endpoint tcp://127.0.0.1:0 \
  --updates-endpoint tcp://127.0.0.1:0 --http-address 127.0.0.1:0 --ready-file "$RUN/c.json" >/dev/null 2>&1 &
"$BIN/deliveryd" --cache-dir "$RUN/e" --client-endpoint tcp://127.0.0.1:0 --http-address 127.0.0.1:0 \
  --ready-file "$RUN/e.json" >/dev/null 2>&1 &
for _ in $(seq 100); do [ -s "$RUN/c.json" ] && [ -s "$RUN/e.json" ] && break; sleep 0.1; done
field() { python3 -c "import json; print(json.load(open('$1'))['$2'])"; }
pretty() { python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin), indent=2, sort_keys=True, ensure_ascii=False))"; }
"$BIN/adctl" discover --json --endpoint "$(field "$RUN/c.json" admin)" | pretty >proto-docs/openrpc/campaignd-admin.json
"$BIN/adctl" discover --json --endpoint "$(field "$RUN/c.json" sync)" | pretty >proto-docs/openrpc/campaignd-sync.json
"$BIN/adctl" discover --json --endpoint "$(field "$RUN/e.json" client)" | pretty >proto-docs/openrpc/deliveryd-client.json
# The markets' rules, as the code holds them (MarketRules.all), between their markers in README.md.
"$BIN/adctl" app rules --markdown >"$RUN/rules.md"
python3 - "$RUN/rules.md" <<'PY'
import re, sys
table = open(sys.argv[1]).read().strip()
path = "proto-docs/README.md"
text = open(path).read()
text = re.sub(r"(<!-- market-rules -->\n)(?:.*?\n)?(<!-- /market-rules -->)", lambda m: m.group(1) + table + "\n" + m.group(2), text, flags=re.S)
open(path, "w").write(text)
PY
ls -l proto-docs/openrpc
