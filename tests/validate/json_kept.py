#!/usr/bin/env python3
"""json_kept.py OLD.json NEW.json: every value of OLD is in NEW at the same path.

For replay's statistics, whose paths are an interface: a change may add keys
beside the old ones, never move, drop or change one. Objects may gain keys
(listed at the end as added, each path once with its array indices as [*]);
arrays must keep their length and match element by element; numbers and
strings must be equal. Prints the first differences and exits 1 when there
are any, else prints "kept: N values, M keys added" and exits 0."""
import json
import sys


def compare(old, new, path, out):
    if isinstance(old, dict):
        if not isinstance(new, dict):
            out["diff"].append("%s: an object became %s" % (path, type(new).__name__))
            return
        for k, v in old.items():
            if k not in new:
                out["diff"].append("%s.%s: missing" % (path, k))
            else:
                compare(v, new[k], "%s.%s" % (path, k), out)
        for k in new:
            if k not in old:
                out["added"].add("%s.%s" % (generic(path), k))
    elif isinstance(old, list):
        if not isinstance(new, list) or len(new) != len(old):
            out["diff"].append("%s: an array of %d became %s" % (path, len(old), describe(new)))
            return
        for i, (a, b) in enumerate(zip(old, new)):
            compare(a, b, "%s[%d]" % (path, i), out)
    else:
        out["values"] += 1
        if old != new or type(old) is not type(new):
            out["diff"].append("%s: %r became %r" % (path, old, new))


def generic(path):
    """The path with its array indices as [*]."""
    out, i = [], 0
    while i < len(path):
        if path[i] == "[":
            j = path.index("]", i)
            out.append("[*]")
            i = j + 1
        else:
            out.append(path[i])
            i += 1
    return "".join(out)


def describe(x):
    return "an array of %d" % len(x) if isinstance(x, list) else type(x).__name__


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: json_kept.py OLD.json NEW.json")
    with open(sys.argv[1]) as f:
        old = json.load(f)
    with open(sys.argv[2]) as f:
        new = json.load(f)
    out = {"diff": [], "added": set(), "values": 0}
    compare(old, new, "", out)
    for d in out["diff"][:20]:
        print("changed: " + d)
    if out["diff"]:
        print("%d differences" % len(out["diff"]))
        sys.exit(1)
    for a in sorted(out["added"]):
        print("added: " + a)
    print("kept: %d values, %d keys added" % (out["values"], len(out["added"])))


main()
