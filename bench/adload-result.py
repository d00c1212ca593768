#!/usr/bin/env python3
"""Reads `adload --json` on stdin and prints it as one RESULT line like the C load client's, labelled argv[1]."""
import json
import sys

r = json.load(sys.stdin)
latency, errors = r["latency"], r["errors"]
failed = errors["timeouts"] + errors["invalid"] + sum(errors["byCode"].values())
print(f"RESULT label={sys.argv[1]} rps={r['requestsPerSecond']:.0f} p50_us={latency['p50Microseconds']} "
      f"p99_us={latency['p99Microseconds']} p999_us={latency['p999Microseconds']} errors={failed} "
      f"with_ad={r['withAd']} client_cpu_s={r['clientCPUSeconds']}")
