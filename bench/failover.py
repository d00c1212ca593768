#!/usr/bin/env python3
"""Failover time of two campaignd over one PostgreSQL: RUNS times, kill -9 the leader and time until the other
campaignd leads (its log line "leading: ..."; it publishes its first heartbeat right after), then restart the killed
one as the follower. Prints each time and the distribution (min, median, p90, max) as one RESULT line.

    bench/failover.py [RUNS]          # default 20; BIN = the folder of campaignd (default .build/debug)

It starts its own PostgreSQL cluster (Debian's postgresql) on a free port in a temporary folder, as the postgres
user when run as root, and removes it after."""
import glob, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
BIN = os.environ.get("BIN", ".build/debug")
PG = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))[-1]
ROOT = os.geteuid() == 0


def server_user():
    """Under root, PostgreSQL's programs run as postgres, or as launchad-pg (made if need be) where there is none."""
    for name in ("postgres", "launchad-pg"):
        if subprocess.run(["id", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            return name
    subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", "launchad-pg"], check=True)
    return "launchad-pg"


PG_USER = server_user() if ROOT else None


def pg(*args):
    command = ["runuser", "-u", PG_USER, "--"] if ROOT else []
    subprocess.run(command + [f"{PG}/{args[0]}", *args[1:]], check=True, stdout=subprocess.DEVNULL)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
if ROOT:
    shutil.chown(work, PG_USER)
port = free_port()
pg("initdb", "-D", f"{work}/data", "-U", "campaignd", "--auth=trust", "-E", "UTF8", "--no-sync")
pg("pg_ctl", "-D", f"{work}/data", "-l", f"{work}/server.log", "-w", "-o", f"-p {port} -k {work} -c listen_addresses=127.0.0.1", "start")
pg("createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "campaignd", "campaigns")
database = f"postgres://campaignd@127.0.0.1:{port}/campaigns"
processes = {}


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


times = []
try:
    start("a", 0)
    if not wait_for(lambda: leads(processes["a"][1]) == 1, 30):
        sys.exit("a never led")
    start("b", 0)
    leader, follower = "a", "b"
    for run in range(1, RUNS + 1):
        time.sleep(1.5)  # the follower is polling for the lock, as in service
        process, _ = processes[leader]
        before = leads(processes[follower][1])
        killed = time.monotonic()
        process.send_signal(signal.SIGKILL)
        if not wait_for(lambda: leads(processes[follower][1]) > before, 10):
            sys.exit(f"run {run}: {follower} did not take over within 10 s")
        elapsed = time.monotonic() - killed
        process.wait()
        times.append(elapsed * 1000)
        print(f"run {run}: {follower} led {elapsed * 1000:.0f} ms after the kill", flush=True)
        start(leader, run)
        leader, follower = follower, leader
finally:
    for process, _ in processes.values():
        process.kill()
    pg("pg_ctl", "-D", f"{work}/data", "-m", "immediate", "stop")
    shutil.rmtree(work, ignore_errors=True)

ordered = sorted(times)
print(f"RESULT label=failover runs={len(times)} min_ms={ordered[0]:.0f} p50_ms={statistics.median(ordered):.0f} "
      f"p90_ms={ordered[int(0.9 * (len(ordered) - 1))]:.0f} max_ms={ordered[-1]:.0f}")
