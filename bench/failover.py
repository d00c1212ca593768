#!/usr/bin/env python3
"""Failover time of two campaignd over one PostgreSQL under writes: RUNS times, start WRITES campaign.create calls
from 8 writers through both campaignd (`adload writes`), kill -9 the leader while they run, and time until the other
campaignd leads (its log line "leading: ..."; it publishes its first heartbeat right after); then let the writes end,
check that no two answered writes share a seq, and restart the killed one as the follower. Prints each run and the
distribution (min, median, p90, max) as one RESULT line, with the writes answered and unanswered over all runs.

    bench/failover.py [RUNS] [WRITES]   # default 20 1000; BIN = the folder of campaignd, adctl and adload (default .build/debug)

It starts its own PostgreSQL cluster (Debian's postgresql) on a free port in a temporary folder with
deploy/local/cluster.sh, as every script here does, and removes it after."""
import json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
WRITES = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
BIN = os.environ.get("BIN", ".build/debug")
CLUSTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "deploy", "local", "cluster.sh")


def postgres(command):
    """deploy/local/cluster.sh's start-postgres or stop-postgres on the run's folder; what it prints."""
    return subprocess.run([CLUSTER, command, work], check=True, stdout=subprocess.PIPE, text=True).stdout.strip()


def wait_for(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return False


def leads(log):
    with open(log) as f:
        return f.read().count("leading:")


work = tempfile.mkdtemp(prefix="launchad-failover-")
database = postgres("start-postgres")
processes = {}
endpoints = {}


def start(name, run):
    log = f"{work}/{name}-{run}.log"
    ready = f"{work}/{name}-{run}.ready"
    ipc = lambda kind: f"ipc://{work}/{name}-{run}-{kind}.sock"
    process = subprocess.Popen([f"{BIN}/campaignd", "--database", database, "--data-dir", f"{work}/{name}",
                                "--admin-endpoint", ipc("admin"), "--sync-endpoint", ipc("sync"), "--updates-endpoint", ipc("updates"),
                                "--http-address", "127.0.0.1:0", "--ready-file", ready],
                               stdout=open(log, "w"), stderr=subprocess.STDOUT)
    if not wait_for(lambda: os.path.exists(ready) and os.path.getsize(ready) > 0, 60):
        sys.exit(f"{name} did not start: see {log}")
    processes[name] = (process, log)
    endpoints[name] = json.load(open(ready))["admin"]


def png(path):
    """A PNG header (1080 x 1920) and filler: what campaignd accepts as a creative."""
    import struct, zlib
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1080, 1920, 8, 2, 0, 0, 0)) + b"x" * 2000 + chunk(b"IEND", b""))


times = []
answered = unanswered = 0
try:
    start("a", 0)
    if not wait_for(lambda: leads(processes["a"][1]) == 1, 30):
        sys.exit("a never led")
    start("b", 0)
    png(f"{work}/splash.png")
    upload = subprocess.run([f"{BIN}/adctl", "--endpoint", endpoints["a"], "--json", "creative", "upload", f"{work}/splash.png"],
                            check=True, capture_output=True, text=True)
    creative = json.loads(upload.stdout)["sha256"]
    leader, follower = "a", "b"
    for run in range(1, RUNS + 1):
        time.sleep(1.5)  # the follower is polling for the lock, as in service
        process, _ = processes[leader]
        writes = subprocess.Popen([f"{BIN}/adload", "writes", "--admin", f"{endpoints['a']},{endpoints['b']}", "--writers", "8",
                                   "--count", str(WRITES), "--creative", creative, "--app", f"run{run}", "--timeout", "3", "--json"],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(0.3)  # writes under way
        before = leads(processes[follower][1])
        killed = time.monotonic()
        process.send_signal(signal.SIGKILL)
        if not wait_for(lambda: leads(processes[follower][1]) > before, 10):
            sys.exit(f"run {run}: {follower} did not take over within 10 s")
        elapsed = time.monotonic() - killed
        process.wait()
        result = json.loads(writes.communicate(timeout=300)[0])
        if not result["seqsUnique"]:
            sys.exit(f"run {run}: two answered writes share a seq")
        answered += result["answered"]
        unanswered += result["attempted"] - result["answered"]
        times.append(elapsed * 1000)
        print(f"run {run}: {follower} led {elapsed * 1000:.0f} ms after the kill; {result['answered']} of {result['attempted']} writes answered",
              flush=True)
        start(leader, run)
        leader, follower = follower, leader
finally:
    for process, _ in processes.values():
        process.kill()
    postgres("stop-postgres")
    shutil.rmtree(work, ignore_errors=True)

ordered = sorted(times)
print(f"RESULT label=failover runs={len(times)} min_ms={ordered[0]:.0f} p50_ms={statistics.median(ordered):.0f} "
      f"p90_ms={ordered[int(0.9 * (len(ordered) - 1))]:.0f} max_ms={ordered[-1]:.0f} writes_answered={answered} writes_unanswered={unanswered}")
