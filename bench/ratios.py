#!/usr/bin/env python3
"""Median figures and same-run ratios from RESULT lines (label=WHO-SHAPE-ROUND), as the bench scripts print them.

    bench/ratios.py LOG BASELINE WHO [WHO ...]

For each shape (thr: the throughput shape, lat: one request in flight) and each WHO, prints the medians over rounds
and the median of the per-round ratios against BASELINE measured in the same round.
"""
import statistics
import sys

SHAPES = {"thr": "4 sockets, 256 in flight", "lat": "1 socket, 1 in flight"}


def main(path, baseline, names):
    runs = {}
    for line in open(path):
        if not line.startswith("RESULT"):
            continue
        fields = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
        parts = fields.get("label", "").split("-")
        if len(parts) != 3:
            continue
        who, shape, rnd = parts
        runs[(who, shape, rnd)] = {k: float(fields.get(k, 0)) for k in ("rps", "p50_us", "p99_us", "errors")}

    def med(values):
        return statistics.median(values) if values else float("nan")

    print()
    print("| who | shape | median rps | median p50 µs | median p99 µs | rps ratio | p50 ratio | p99 ratio | errors |")
    print("|---|---|---|---|---|---|---|---|---|")
    for shape, shape_name in SHAPES.items():
        rounds = sorted({r for (_, s, r) in runs if s == shape}, key=int)
        for who in [baseline] + names:
            pairs = [(runs[(who, shape, r)], runs[(baseline, shape, r)]) for r in rounds
                     if (who, shape, r) in runs and (baseline, shape, r) in runs]
            if not pairs:
                continue
            ratio = lambda key: med([a[key] / b[key] for a, b in pairs if b[key]])
            print(f"| {who} | {shape_name} | {med([a['rps'] for a, _ in pairs]):,.0f} | {med([a['p50_us'] for a, _ in pairs]):.1f} | "
                  f"{med([a['p99_us'] for a, _ in pairs]):.1f} | {ratio('rps'):.2f} | {ratio('p50_us'):.2f} | {ratio('p99_us'):.2f} | "
                  f"{int(sum(a['errors'] for a, _ in pairs))} |")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
