#!/usr/bin/env python3
"""bench/pacing.sh's table: per paced campaign, delivered against its goal, the traffic its app offered, each tenth
of the window against a tenth of the goal, the shares pacing published, and the contract.

    bench/pacing-report.py SAMPLES PUBLISHED START END APP=PACED:FALLBACK...

SAMPLES: lines "UNIX-TIME JSON" of campaign.stats of every campaign, about every second, the last one after the
flight's last reports arrived. PUBLISHED: lines "published ID COUNT". START and END: the flight, in Unix seconds.

A tenth is what the reported impressions grew by between two tenths' boundaries (linear between the samples around a
boundary; the last tenth ends at the last sample, so it also takes the counts reported after the flight). The
boundaries are shifted by the delay from an answer to its reported impression: adload's devices report the last answer
they had, so at the flight's start they still report the fallback they were answered before it (for up to 20 s: a
device is asked again for one app every DEVICES x apps / queries a second), and reports reach campaignd a report
interval or two later. That delay is measured, not assumed: the fallback impressions reported in the flight's first
fifth for the apps whose paced campaign never published a share (served to every device all along, so each of those
impressions is of an answer from before the flight), over the app's impressions a second.
"""
import json
import sys

samples_path, published_path, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
campaigns = []
for pair in sys.argv[5:]:
    app, ids = pair.split("=")
    paced, fallback = (int(x) for x in ids.split(":"))
    campaigns.append((app, paced, fallback))

samples = []  # (time, {id: impressions}, {id: pacing line})
for line in open(samples_path):
    stamp, _, text = line.partition(" ")
    answer = json.loads(text)
    samples.append((float(stamp), {s["id"]: s["impressions"] for s in answer["stats"]},
                    {p["id"]: p for p in answer.get("pacing") or []}))
published = {}
for line in open(published_path):
    _, cid, count = line.split()
    published[int(cid)] = int(count)


def at(cid, when):
    """Impressions of campaign cid reported by time `when`, linear between the samples around it."""
    before = None
    for stamp, counts, _ in samples:
        value = counts.get(cid, 0)
        if stamp >= when:
            if before is None or stamp == before[0]:
                return value
            share = (when - before[0]) / (stamp - before[0])
            return before[1] + share * (value - before[1])
        before = (stamp, value)
    return before[1] if before else 0


def final(cid):
    return samples[-1][1].get(cid, 0)


window = end - start


def rate_of(cid, fallback):
    """The app's impressions a second over the flight (the paced campaign's and its fallback's)."""
    return ((at(cid, end) - at(cid, start)) + (at(fallback, end) - at(fallback, start))) / window


# The answer-to-report delay: how many seconds of the app's traffic its fallback still got after the flight began, for
# the campaigns served to every device all along (no share published).
delays = [(at(fallback, start + window / 5) - at(fallback, start)) / rate_of(cid, fallback)
          for _, cid, fallback in campaigns if published.get(cid, 0) == 0 and rate_of(cid, fallback) > 0]
delay = sorted(delays)[len(delays) // 2] if delays else 0.0
print(f"answer-to-report delay {delay:.1f} s (median of {len(delays)} campaigns never throttled: "
      f"{' '.join(f'{d:.1f}' for d in sorted(delays))}); the tenths' boundaries are shifted by it")
print(f"{'campaign':>8} {'pacing':>6} {'traffic':>7} {'goal':>7} {'delivered':>9} {'/goal':>6} {'met at':>6} {'shares':>6}  tenths (x a tenth of the goal)  contract")
failures = 0
for app, cid, fallback in campaigns:
    line = next((p for _, _, lines in samples for p in [lines.get(cid)] if p), None)
    if line is None:
        print(f"{cid:>8} {app}: no pacing line was ever read")
        failures += 1
        continue
    goal = line["goal"]["impressions"]
    pacing = line["pacing"]
    delivered = final(cid)
    # What the app offered over the window: every impression reported in it, the paced campaign's and the fallback's.
    traffic = rate_of(cid, fallback) * window / goal if goal else 0
    bounds = [start + delay + window * k / 10 for k in range(11)]
    points = [at(cid, b) for b in bounds[:-1]] + [delivered]
    tenths = [(points[k + 1] - points[k]) / (goal / 10) for k in range(10)]
    met = next((s for s, counts, _ in samples if counts.get(cid, 0) >= 0.998 * goal), None)
    met_text = f"{(met - start) / window:.2f}" if met is not None else "-"
    checks = []
    over = delivered > 1.05 * goal
    checks.append("OVER" if over else "not over")
    enough = traffic >= 1.5
    if enough:
        short = delivered < 0.95 * goal
        checks.append("SHORT" if short else ">=95%")
        failures += short
        if pacing == "even":
            uneven = any(t < 0.75 or t > 1.25 for t in tenths)
            checks.append("UNEVEN" if uneven else "tenths ok")
            failures += uneven
    else:
        checks.append("too little traffic to judge the rest")
    failures += over
    print(f"{cid:>8} {pacing:>6} {traffic:>6.2f}x {goal:>7} {delivered:>9} {delivered / goal:>6.3f} {met_text:>6} {published.get(cid, 0):>6}  "
          f"{' '.join(f'{t:.2f}' for t in tenths)}  {', '.join(checks)}")
print(f"contract: {'met' if failures == 0 else f'{failures} failure(s)'} (never >5% over; with traffic >= 1.5x the need, >=95% and, for even, tenths within 0.75 to 1.25)")
