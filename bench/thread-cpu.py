#!/usr/bin/env python3
"""CPU time by program and thread name, from the kernel's per-thread counters (/proc/PID/task/TID/schedstat: time on
a CPU in ns, and how many times the thread was put on one).

    thread-cpu.py snap OUT PID...            writes the counters of every thread of PID... to OUT (JSON)
    thread-cpu.py diff BEFORE AFTER COUNT [UNIT]
                                             prints what each program's threads spent between the two, per UNIT
                                             (COUNT of them between the snapshots; default: change), and per process
                                             of that program per UNIT

Threads are grouped by their program (the executable's name) and their name (Swift's concurrency pool, libzmq's I/O
threads and the services' own threads are named). A thread that ended between the two snapshots is not counted.
"""
import collections
import json
import os
import sys


def snap(out, pids):
    threads = {}
    for pid in pids:
        try:
            program = os.path.basename(os.readlink(f"/proc/{pid}/exe"))
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue  # gone
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    name = f.read().strip()
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    ran, _, runs = (int(v) for v in f.read().split())
            except OSError:
                continue
            threads[f"{pid}/{tid}"] = {"pid": pid, "program": program, "name": name, "ns": ran, "runs": runs}
    with open(out, "w") as f:
        json.dump(threads, f)


def diff(before_path, after_path, count, unit="change"):
    with open(before_path) as f:
        before = json.load(f)
    with open(after_path) as f:
        after = json.load(f)
    ns, runs = collections.Counter(), collections.Counter()
    processes = collections.defaultdict(set)
    for key, thread in after.items():
        start = before.get(key, {"ns": 0, "runs": 0})
        group = (thread["program"], thread["name"])
        ns[group] += thread["ns"] - start["ns"]
        runs[group] += thread["runs"] - start["runs"]
        processes[thread["program"]].add(thread["pid"])
    total = sum(ns.values())
    print(f"CPU of the services over the run, {total / 1e9:.2f} s, {total / 1e6 / count:.1f} ms a {unit} "
          f"({count} {unit}s):")
    print(f"| program | thread | ms a {unit} | per process, ms a {unit} | runs a {unit}, per process | share |")
    print("|---|---|---|---|---|---|")
    for (program, name), spent in ns.most_common():
        if spent == 0 or spent < total / 1000:
            continue
        processes_count = len(processes[program])
        print(f"| {program} | {name} | {spent / 1e6 / count:.1f} | {spent / 1e6 / count / processes_count:.3f} | "
              f"{runs[(program, name)] / count / processes_count:.1f} | {100 * spent / total:.1f} % |")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "snap":
        snap(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) in (5, 6) and sys.argv[1] == "diff":
        diff(sys.argv[2], sys.argv[3], int(sys.argv[4]), *sys.argv[5:])
    else:
        sys.exit(__doc__)
