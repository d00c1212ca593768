#!/usr/bin/env python3
"""Where a callgrind dump's instructions went, per request (bench/profile.sh).

Reads a dump written with `--compress-strings=no --compress-pos=no` (one part of a run, cut by `callgrind_control
-d`) and prints, divided by REQUESTS and less an idle dump (--idle) scaled to the part's length (--idle-scale, its seconds over the idle dump's):
  - the instructions in all (callgrind's own total),
  - each object file's own instructions (exclusive: they add up to the total),
  - the instructions spent below calls from one object file into another (inclusive: deliveryd -> libzmq is what
    libzmq and the libc under it cost our code),
  - the calls to the C allocator (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) and to free,
  - the functions that cost most, inclusive and exclusive (Swift's names demangled by swift-demangle if on PATH),
  - with --stage NAME=PATTERN (repeatable), the inclusive instructions of the functions whose name contains PATTERN,
    counted at calls from other functions (so recursion is not counted twice).

    bench/callgrind-split.py DUMP REQUESTS [--idle IDLE_DUMP [--idle-scale S]] [--top K] [--stage NAME=PATTERN ...] [--json]
"""
import argparse
import collections
import json
import os
import shutil
import subprocess

ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign"}


def demangler(path):
    """Swift's names in the dump, demangled (swift-demangle --simplified) when the tool is on PATH."""
    names = set()
    with open(path) as dump:
        for line in dump:
            if line.startswith(("fn=", "cfn=")):
                names.add(line.split("=", 1)[1].strip())
    if not shutil.which("swift-demangle"):
        return {}
    names = sorted(name for name in names if name.startswith(("$s", "_$s")))
    out = subprocess.run(["swift-demangle", "--simplified"], input="\n".join(names), capture_output=True, text=True).stdout
    return dict(zip(names, out.split("\n")))


def read(path, stages):
    """The dump's counters: total, self by object, cross-object inclusive, allocator calls, by function, stages."""
    total = 0
    own = collections.Counter()          # object -> exclusive Ir
    across = collections.Counter()       # (caller object, callee object) -> inclusive Ir
    allocations = collections.Counter()  # allocator name -> calls
    fn_self = collections.Counter()
    fn_calls = collections.Counter()     # function -> inclusive Ir of its calls out
    staged = collections.Counter()
    ob = fn = cob = cfn = None
    pending_calls = None
    program = None
    names = demangler(path)
    with open(path) as dump:
        for line in dump:
            if line.startswith("cmd:"):
                program = os.path.basename(line.split()[1])
            if line[0].isdigit() or line[0] in "+-*":
                fields = line.split()
                cost = int(fields[1]) if len(fields) > 1 else 0
                if pending_calls is not None:
                    callee_ob = cob or ob
                    # Calls into the program itself are its start (main, thread entries) seen from libc, and valgrind
                    # files the frame below main under the program: neither is a cost of one object to another.
                    if callee_ob != ob and os.path.basename(callee_ob) != program and fn != "(below main)":
                        across[(ob, callee_ob)] += cost
                    fn_calls[fn] += cost
                    if cfn in ALLOCATORS or cfn == "free":
                        allocations[cfn] += pending_calls
                    for name, pattern in stages:
                        if pattern in cfn and pattern not in fn:
                            staged[name] += cost
                    pending_calls = cob = cfn = None
                else:
                    own[ob] += cost
                    fn_self[(ob, fn)] += cost
            elif line.startswith("ob="):
                ob = line[3:].strip()
            elif line.startswith("fn="):
                fn = line[3:].strip()
                fn = names.get(fn, fn)
            elif line.startswith("cob="):
                cob = line[4:].strip()
            elif line.startswith("cfn="):
                cfn = line[4:].strip()
                cfn = names.get(cfn, cfn)
            elif line.startswith("calls="):
                pending_calls = int(line[6:].split()[0])
            elif line.startswith("totals:") or line.startswith("summary:"):
                total = int(line.split()[1])
    inclusive = collections.Counter({key: cost + fn_calls[key[1]] for key, cost in fn_self.items()})
    return dict(total=total, own=own, across=across, allocations=allocations, fn_self=fn_self, inclusive=inclusive,
                staged=staged)


def minus(a, b, scale):
    """A less B times SCALE: the part less what the process spends idle in as long (an idle dump's counts scaled)."""
    return {key: (a[key] - round(b[key] * scale)) if isinstance(a[key], int) else collections.Counter(
        {k: v - round(b[key].get(k, 0) * scale) for k, v in a[key].items()}) for key in a}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dump")
    parser.add_argument("requests", type=int)
    parser.add_argument("--idle")
    parser.add_argument("--idle-scale", type=float, default=1.0, help="the part's seconds over the idle dump's")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--stage", action="append", default=[])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    stages = [tuple(stage.split("=", 1)) for stage in args.stage]
    counts = read(args.dump, stages)
    if args.idle:
        counts = minus(counts, read(args.idle, stages), args.idle_scale)
    n = args.requests
    short = os.path.basename
    if args.json:
        print(json.dumps({"total": counts["total"] / n,
                          "objects": {short(k): v / n for k, v in counts["own"].most_common()},
                          "allocations": sum(v for k, v in counts["allocations"].items() if k != "free") / n,
                          "frees": counts["allocations"]["free"] / n,
                          "stages": {k: v / n for k, v in counts["staged"].items()}}))
        return
    print(f"instructions a request: {counts['total'] / n:,.1f}")
    print("by object file, exclusive:")
    for obj, cost in counts["own"].most_common():
        if abs(cost) / n >= 1:
            print(f"  {cost / n:12,.1f}  {short(obj)}")
    print("calls from one object file into another, inclusive:")
    for (caller, callee), cost in counts["across"].most_common(args.top):
        print(f"  {cost / n:12,.1f}  {short(caller)} -> {short(callee)}")
    allocations = counts["allocations"]
    print(f"allocator calls a request: {sum(v for k, v in allocations.items() if k != 'free') / n:.2f} "
          f"({', '.join(f'{k} {v / n:.2f}' for k, v in allocations.most_common() if k != 'free')}); free {allocations['free'] / n:.2f}")
    for name, _ in stages:
        print(f"stage {name}: {counts['staged'][name] / n:,.1f} inclusive")
    for title, table in (("inclusive", counts["inclusive"]), ("exclusive", counts["fn_self"])):
        print(f"functions by {title} instructions a request:")
        for (obj, fn), cost in table.most_common(args.top):
            print(f"  {cost / n:12,.1f}  {short(obj)}  {fn}")


main()
