"""replay's statistics: the JSON of a run (-o), its windows (--windows-out)
and per-launch lines (--kernels-out), as dicts and, with pandas, frames."""

import json


def read_stats(path):
    """A run's JSON (replay -o FILE) as a dict."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_windows(path):
    """A JSON-lines file (replay --windows-out or --kernels-out): a list of
    dicts, one per line."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except ValueError as e:
                raise ValueError("%s:%d: %s" % (path, n, e)) from None
    return out


def flatten(tree, prefix=""):
    """A nested dict of statistics as {"a.b.c": value}; list items are
    numbered ("caches.0.hits")."""
    out = {}
    items = tree.items() if isinstance(tree, dict) else enumerate(tree)
    for key, value in items:
        path = "%s%s%s" % (prefix, "." if prefix else "", key)
        if isinstance(value, (dict, list)):
            out.update(flatten(value, path))
        else:
            out[path] = value
    return out


def windows_frame(windows):
    """Windows (a path or read_windows' list) as a pandas DataFrame, a row
    per window and a column per flattened statistic. Needs pandas."""
    import pandas as pd
    if isinstance(windows, str):
        windows = read_windows(windows)
    return pd.DataFrame([flatten(w) for w in windows])
