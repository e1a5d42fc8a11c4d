#!/usr/bin/env python3
"""Adds up meson test logs (testlog.json): the one count of the project.

usage: testlog-totals.py LOG                 one log, totals only
       testlog-totals.py NAME:RC:LOG ...     CI's steps (RC: exit status)
The last line is the totals alone, "N passed, N failed, N skipped".  With
steps, a line each comes first, and a step that failed with no failing test
in its log (a build that broke, a fuzzer that crashed) counts as one
failure, so it cannot pass as green.
"""
import json
import os
import sys


def count(log):
    n = {"pass": 0, "fail": 0, "skip": 0}
    if log and os.path.exists(log):
        for line in open(log):
            r = json.loads(line)["result"]
            n["pass" if r in ("OK", "EXPECTEDFAIL") else
              "skip" if r == "SKIP" else "fail"] += 1
    return n


total = {"pass": 0, "fail": 0, "skip": 0}
steps = [a.split(":", 2) if a.count(":") >= 2 else None for a in sys.argv[1:]]
for arg, step in zip(sys.argv[1:], steps):
    if step is None:
        n = count(arg)
    else:
        name, rc, log = step
        n = count(log)
        if int(rc) != 0 and n["fail"] == 0:
            n["fail"] = 1
        print(f"  {name:<10} exit {rc:>3}  {n['pass']} passed, {n['fail']} failed,"
              f" {n['skip']} skipped")
    for k in n:
        total[k] += n[k]
print(f"{total['pass']} passed, {total['fail']} failed, {total['skip']} skipped")
