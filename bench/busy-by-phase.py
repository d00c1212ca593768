#!/usr/bin/env python3
"""How busy the machine's CPUs are at each moment of the second: /proc/stat read every 10 ms for SECONDS, each
reading's busy share (all CPUs, everything but idle and iowait) put in the 10 ms bin of the second it fell in (by the
wall clock), and each bin's mean printed. Work that recurs each second at the same moment (heartbeats reaching every
process at once) shows as a run of busy bins; work spread over the second shows as a flat floor.

    busy-by-phase.py SECONDS
"""
import os
import sys
import time


def counters():
    with open("/proc/stat") as f:
        values = [int(x) for x in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    seconds = float(sys.argv[1])
    if not 1 <= seconds <= 600:
        sys.exit("SECONDS must be 1 to 600")
    bins = [[] for _ in range(100)]
    busy0, total0 = counters()
    end = time.time() + seconds
    while (now := time.time()) < end:
        time.sleep(0.01 - now % 0.01)
        busy1, total1 = counters()
        if total1 > total0:
            # The reading covers the 10 ms before it: its bin is the one that just ended.
            bins[int(((time.time() - 0.005) % 1.0) * 100)].append((busy1 - busy0) / (total1 - total0))
        busy0, total0 = busy1, total1
    means = [100 * sum(b) / len(b) if b else float("nan") for b in bins]
    print(f"busy % of all CPUs by 10 ms of the second, over {seconds:g} s (mean of the readings in each bin):")
    for start in range(0, 100, 20):
        print(f"{start * 10:4d} ms: " + " ".join(f"{m:3.0f}" for m in means[start:start + 20]))
    readings = [u for b in bins for u in b]
    mean = 100 * sum(readings) / max(1, len(readings))
    # The longest run of bins (around the second's end too) at least half busy and twice the mean: the burst, when it
    # is two bins or more (one busy bin is as likely a stray reading).
    hot = [m >= max(50, 2 * mean) for m in means]
    best, best_start = 0, None
    for start in range(100):
        length = 0
        while length < 100 and hot[(start + length) % 100]:
            length += 1
        if length > best:
            best, best_start = length, start
    print(f"mean {mean:.1f} %", end="")
    if best < 2:
        print("; no burst (no two bins in a row at least half busy and twice the mean)")
    else:
        burst = [means[(best_start + i) % 100] for i in range(best)]
        cpu_ms = sum(burst) / 100 * 10 * (os.cpu_count() or 1)
        print(f"; a burst each second from {best_start * 10} ms, {best * 10} ms long, {sum(burst) / best:.0f} % busy on average "
              f"(about {cpu_ms:.0f} ms of CPU)")


if __name__ == "__main__":
    main()
