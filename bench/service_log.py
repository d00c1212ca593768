"""Reading the services' JSON logs (`--log-format json`) in the bench scripts.

    entries(path)               each line that is a JSON object, as a dict (other lines skipped)
    at(entry)                   an entry's time, in seconds since the epoch
    step_commits(log, result)   adload's force and expire steps (rows of its result's "rounds") with campaignd's
                                commit of each: [(row, seconds)], from campaignd's log at debug
"""
import datetime
import json
import sys


def entries(path):
    for line in open(path):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            yield entry


def at(entry):
    return datetime.datetime.fromisoformat(entry["time"]).timestamp()


def step_commits(log, result):
    rounds = [x for x in json.load(open(result))["rounds"] if x["step"] in ("force", "expire")]
    changes = [(e["op"], at(e)) for e in entries(log)
               if e.get("message") == "campaign changed" and e.get("op") in ("forced", "expired")]
    # adload's steps in order are the first forces and expires campaignd committed (its baseline's expire comes after).
    if len(changes) < len(rounds):
        sys.exit(f"campaignd's log holds {len(changes)} forces and expires for {len(rounds)} steps")
    for step, (op, _) in zip(rounds, changes):
        if (step["step"] == "force") != (op == "forced"):
            sys.exit("adload's steps and campaignd's changes are not in the same order")
    return [(step, t) for step, (_, t) in zip(rounds, changes)]
