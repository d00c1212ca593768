"""Where the two cores go after each force and expire of a propagation run, from a scheduler trace.

    sched-window.py CAMPAIGND_LOG TIMEHIST PIDS OFFSET RESULT_JSON

CAMPAIGND_LOG: campaignd's JSON log at debug (its "campaign changed" lines give each step's commit, by the wall
clock); TIMEHIST: `perf sched timehist` of a trace taken with `-k CLOCK_MONOTONIC`; PIDS: lines "PID PROGRAM" of the
services; OFFSET: the wall clock less the monotonic one when the trace began; RESULT_JSON: adload's result (how many
steps were measured). Prints, summed over the steps, the CPU each program's threads spent in the WINDOW ms after the
commit (both cores give 2 ms each ms), then by 10 ms of the window; then how long the threads of adload, the edges and
the relays waited for a CPU once woken in the window; then each relay's fan-out: when the edges behind it were woken
with the change (their libzmq I/O thread's wake-up before their subscriber's first run), from the commit.
"""
import collections, os, re, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from service_log import step_commits

WINDOW = 0.100
log, hist, pids_file, offset, result = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
program = {int(p): name for p, name in (line.split() for line in open(pids_file))}
edges = [p for p, name in program.items() if name == "deliveryd"]
relays = [p for p, name in program.items() if name == "relayd"]
# Each step's commit on the trace's clock.
commits = [t - offset for _, t in step_commits(log, result)]

# Each line of the trace ends a run of a thread: when it ended, its thread and process, and how long it waited for a
# CPU once woken (0 when it was put back on the queue rather than woken) and ran.
line_pattern = re.compile(r"\s*([\d.]+)\s+\[\d+\]\s+(.*?)\[(\d+)(?:/(\d+))?\]\s+[\d.]+\s+([\d.]+)\s+([\d.]+)")
runs = collections.defaultdict(list)
for line in open(hist):
    m = line_pattern.match(line)
    if not m: continue
    end, comm, tid, pid, delay, ran = m.groups()
    end, delay, ran = float(end), float(delay) / 1000, float(ran) / 1000
    comm = comm.strip()
    pid = int(pid or tid)
    if comm == "adload" and int(tid) == pid: program.setdefault(pid, "adload")
    runs[(pid, "zmq-io" if comm.startswith("ZMQbg/IO") else comm)].append((end - ran, end, delay))
for key in runs: runs[key].sort()

def name(pid):
    return program.get(pid, "other")

total = collections.defaultdict(float)
bins = collections.defaultdict(lambda: collections.defaultdict(float))
# How long a thread waited for a CPU once woken, for the runs that began in the window: the probes' way (adload's
# threads, the edges' I/O and client threads) and the change's (the edges' and relays' subscribers and I/O threads).
waits = collections.defaultdict(list)
for commit in commits:
    for (pid, comm), intervals in runs.items():
        if comm == "<idle>": continue
        for start, end, delay in intervals:
            if end < commit or start > commit + WINDOW: continue
            total[(name(pid), comm)] += (min(end, commit + WINDOW) - max(start, commit)) * 1000
            if commit <= start < commit + WINDOW and delay > 0 and name(pid) in ("adload", "deliveryd", "relayd"):
                waits[(name(pid), comm)].append(delay * 1000)
            group = name(pid) if name(pid) != "deliveryd" else "edge " + {"sub-updates": "sub", "zmq-io": "io", "rpc-client": "client", "state-save": "save"}.get(comm, "rest")
            for k in range(int(WINDOW * 100)):
                low, high = commit + k * 0.01, commit + (k + 1) * 0.01
                overlap = min(end, high) - max(start, low)
                if overlap > 0: bins[k][group] += overlap * 1000
n = len(commits)
print(f"CPU ms a step in the {WINDOW * 1000:.0f} ms after campaignd's commit ({n} steps; both cores give {2 * WINDOW * 1000:.0f}):")
by_program = collections.defaultdict(float)
for (prog, comm), ms in sorted(total.items(), key=lambda x: -x[1]):
    by_program[prog] += ms / n
    if ms / n >= 1: print(f"  {prog:10s} {comm:18s} {ms / n:7.2f}")
print("  by program: " + ", ".join(f"{p} {v:.1f}" for p, v in sorted(by_program.items(), key=lambda x: -x[1])))
groups = sorted({g for k in bins for g in bins[k]})
print("by 10 ms of the window (CPU ms a step):")
print("  ms    " + " ".join(f"{g:>11s}" for g in groups))
for k in sorted(bins):
    print(f"  {k * 10:3d}   " + " ".join(f"{bins[k][g] / n:11.2f}" for g in groups))

print("waits for a CPU once woken, runs that began in the window (ms): threads, wake-ups a step, median, p90, max")
for (prog, comm), values in sorted(waits.items(), key=lambda x: -len(x[1])):
    if len(values) < n: continue
    values.sort()
    print(f"  {prog:10s} {comm:18s} {len(values) / n:7.1f} {statistics.median(values):7.2f} "
          f"{values[int(len(values) * 0.9)]:7.2f} {values[-1]:7.2f}")

def first_run(key, after):
    return next(((s, e, d) for s, e, d in runs.get(key, []) if s >= after), None)

# The relay an edge follows: edge i (the order the pids file lists them) behind relay i mod relays.
spreads, lasts = [], []
for commit in commits:
    woken = collections.defaultdict(list)
    for i, pid in enumerate(edges, start=1):
        sub = first_run((pid, "sub-updates"), commit)
        if not sub: continue
        handed = sub[0] - sub[2]
        io = next(((s - d) for s, e, d in runs.get((pid, "zmq-io"), []) if s <= handed + 2e-4 and e >= handed - 2e-4), handed)
        # An I/O thread already running before the commit (for a probe) took the change in the same run.
        if io < commit: io = handed
        woken[i % max(1, len(relays))].append((io - commit) * 1000)
    for relay, times in woken.items():
        spreads.append(max(times) - min(times))
        lasts.append(max(times))
if relays and spreads:
    print(f"relays' fan-out, {len(spreads)} (step, relay) pairs: from its first edge woken with the change to its last, median "
          f"{statistics.median(spreads):.1f} ms, p90 {sorted(spreads)[int(len(spreads) * 0.9)]:.1f}, max {max(spreads):.1f}; "
          f"its last edge woken at median {statistics.median(lasts):.1f} ms after the commit, max {max(lasts):.1f}")
