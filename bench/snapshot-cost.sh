#!/usr/bin/env bash
# How long a snapshot of COUNT campaigns takes to answer, from campaignd and from a relayd following it (release
# builds, loopback): what a new epoch costs each upstream per follower. The campaigns are `adload seed`'s large app's
# mix. A client (Python with pyzmq, a DEALER on the sync socket) asks for the whole snapshot and then for all of it in
# pages of 1,000, 12 times each, and prints the medians of the last 10 (the time includes the client's own JSON
# parsing). COMPARE_BIN=DIR runs another build's services the same way in each round, right after this one's.
#
#   bench/snapshot-cost.sh [COUNT] [ROUNDS]       (defaults: 10,000 campaigns, 2 rounds)
#   COMPARE_BIN=/path/to/other/.build/release bench/snapshot-cost.sh
#
# Needs python3-zmq (apt-get install -y python3-zmq).
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${1:-10000}
ROUNDS=${2:-2}
. deploy/local/cluster.sh
python3 -c "import zmq" 2>/dev/null || { echo "needs python3-zmq: apt-get install -y python3-zmq" >&2; exit 1; }
build_bin release campaignd relayd adctl adload
mkdir -p .build-bench
builds=("$BIN")
[ -n "${COMPARE_BIN:-}" ] && builds+=("$COMPARE_BIN")
trap stop_cluster EXIT

for round in $(seq "$ROUNDS"); do
  for build in "${builds[@]}"; do
    BIN=$build
    RUN=$(mktemp -d .build-bench/snapshot-cost-XXXX)
    start_campaignd "$RUN" campaignd 0
    write_creatives "$RUN"
    upload_creatives "$ADMIN" "$RUN"
    "$BIN/adload" seed --admin "$ADMIN" --count "$COUNT" --creative "${SHAS[0]}" --creative "${SHAS[1]}" \
      --creative "${SHAS[2]}" >/dev/null 2>&1
    start_relay "$RUN" relay-1 "$RUN/campaignd.ready" 0
    wait_ready "$RUN/relay-1.ready"
    python3 - "round $round, $build" "$COUNT" "$(field "$RUN/campaignd.ready" sync)" "$(field "$RUN/relay-1.ready" sync)" <<'PY'
import json, statistics, sys, time, zmq
label, count, upstreams = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
context = zmq.Context()
for name, endpoint in zip(["campaignd", "relayd"], upstreams):
    socket = context.socket(zmq.DEALER)
    socket.connect(endpoint)
    def call(params, id):
        socket.send(json.dumps({"jsonrpc": "2.0", "id": id, "method": "sync.snapshot", "params": params}).encode())
        answer = json.loads(socket.recv())
        if "error" in answer:
            sys.exit(f"{name}: {answer['error']}")
        return answer["result"]
    # The relay may still be taking its own snapshot: wait until it holds every campaign.
    deadline = time.time() + 60
    while len(call({}, 0)["campaigns"]) < count:
        if time.time() > deadline:
            sys.exit(f"{name} does not hold {count} campaigns")
        time.sleep(0.5)
    whole, paged = [], []
    for index in range(12):
        start = time.perf_counter()
        call({}, index)
        whole.append(time.perf_counter() - start)
        start = time.perf_counter()
        after, pages = 0, 0
        while True:
            page = call({"after": after, "limit": 1000}, index)
            pages += 1
            if page.get("next") is None:
                break
            after = page["next"]
        paged.append(time.perf_counter() - start)
    print(f"{label}: {name} whole {statistics.median(whole[2:]) * 1000:.1f} ms, "
          f"in {pages} pages {statistics.median(paged[2:]) * 1000:.1f} ms")
    socket.close(linger=0)
PY
    stop_cluster
    rm -rf "$RUN"
  done
done
