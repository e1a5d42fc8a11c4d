#!/usr/bin/env python3
"""Adds up the meson test logs (testlog.json) of CI's steps.

usage: totals.py NAME:RC:LOG ...   (RC: the step's exit status)
Prints a line per step, then the totals alone on the last line as
"N passed, N failed, N skipped".  A step that failed with no failing test
in its log (a build that broke, a fuzzer that crashed) counts as one
failure, so it cannot pass as green.
"""
import json
import os
import sys

total = {"pass": 0, "fail": 0, "skip": 0}
for arg in sys.argv[1:]:
    name, rc, log = arg.split(":", 2)
    n = {"pass": 0, "fail": 0, "skip": 0}
    if log and os.path.exists(log):
        for line in open(log):
            r = json.loads(line)["result"]
            n["pass" if r in ("OK", "EXPECTEDFAIL") else
              "skip" if r == "SKIP" else "fail"] += 1
    if int(rc) != 0 and n["fail"] == 0:
        n["fail"] = 1
    print(f"  {name:<10} exit {rc:>3}  {n['pass']} passed, {n['fail']} failed,"
          f" {n['skip']} skipped")
    for k in n:
        total[k] += n[k]
print(f"{total['pass']} passed, {total['fail']} failed, {total['skip']} skipped")
