#!/usr/bin/env python3
"""Verdict line for the validation scripts: judge.py REFERENCE MEASURED BOUND_PERCENT [WHY_NOT_JUDGED]

Prints "ok +1.23%" or "FAIL +4.56%" for the measured count against the
reference's; with a fourth argument the figure is reported, not judged, and
the reason follows it. Exit status 0 always: the scripts read the word."""
import sys

ref, got, bound = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
why = sys.argv[4] if len(sys.argv) > 4 else ""
d = 100.0 * (got - ref) / ref if ref else 0.0
ok = abs(d) <= bound or bool(why)
print("%s %+.2f%%%s" % ("ok" if ok else "FAIL", d, " (not judged: %s)" % why if why else ""))
