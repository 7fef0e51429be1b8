#!/usr/bin/env python3
"""The DRAM model against DRAMsim3 on request streams of our own.

dram_vs_dramsim3.py DRAMSIM3_TREE DRAMSIM3_REPLAY DRAM_REPLAY WORKDIR TABLE [KEY=VALUE...]

DRAMSIM3_TREE is an extracted DRAMsim3 source tree: the devices are its
configs/DDR3_4Gb_x8_1600.ini and configs/DDR4_8Gb_x8_2400.ini with 32768 rows
per bank, one rank, 1 or 2 channels, open page; the [dram] keys given to the
model are the same figures (DRAMsim3's row-hit cap is 4, its write buffer
drains from full or, with its command queues empty, from more than 8 writes;
its per-bank command queues are the model's bank queues). The drain rule is
the model's default. KEY=VALUE pairs are further [dram] keys for the model
(to try another rule: write_drain=idle bank_queue_size=0 is the one-level
controller with the drain to write_low).
Each stream runs through both replay drivers; TABLE gets one row per run and
the verdict against the bounds: read latency within 10%, bandwidth within
5%, row hits within 2 points. Exit status 1 if any row is out of bounds, 3 if
a run fails."""
import configparser
import os
import random
import subprocess
import sys

DEVICES = {"DDR3-1600": "DDR3_4Gb_x8_1600.ini", "DDR4-2400": "DDR4_8Gb_x8_2400.ini"}
ROWS = 32768
CHANNELS = (1, 2)
GAPS = (1, 4, 10, 20)
REQUESTS = 20000
BOUND_LATENCY_PCT, BOUND_BANDWIDTH_PCT, BOUND_HIT_POINTS = 10.0, 5.0, 2.0


def device(tree, name, channels):
    """DRAMsim3's ini for the device (as a parser) and its geometry."""
    ini = configparser.ConfigParser(inline_comment_prefixes=(";",))
    ini.optionxform = str
    ini.read(os.path.join(tree, "configs", DEVICES[name]))
    s, t = ini["dram_structure"], ini["timing"]
    # The DDR3 files name the refresh interval REFI, a key DRAMsim3 does not
    # read (it would take its default, 7800): give it as tREFI.
    if "tREFI" not in t:
        t["tREFI"] = t["REFI"]
    s["rows"] = str(ROWS)
    banks = int(s["bankgroups"]) * int(s["banks_per_group"])
    page_bytes = int(s["columns"]) * int(s["device_width"]) // 8
    devices = int(ini["system"]["bus_width"]) // int(s["device_width"])
    sy = ini["system"]
    sy["channels"] = str(channels)
    sy["channel_size"] = str(page_bytes * ROWS // 1048576 * banks * devices)  # one rank
    sy["row_buf_policy"] = "OPEN_PAGE"
    ini["other"]["epoch_period"] = "1000000000"
    ini["other"]["output_level"] = "0"
    if "thermal" in ini:
        ini.remove_section("thermal")
    return ini


def model_keys(ini):
    """The same device as [dram] keys for the model."""
    s, t, sy = ini["dram_structure"], ini["timing"], ini["system"]
    g = lambda k: int(t[k])
    keys = {
        "tCK_ns": t["tCK"], "BL": s["BL"], "CL": t["CL"], "CWL": t["CWL"], "AL": t["AL"],
        "tRCD": t["tRCD"], "tRP": t["tRP"], "tRAS": t["tRAS"], "tRC": str(g("tRAS") + g("tRP")),
        "tWR": t["tWR"], "tRTP": t["tRTP"], "tWTR_L": t["tWTR_L"], "tWTR_S": t["tWTR_S"],
        "tRRD_L": t["tRRD_L"], "tRRD_S": t["tRRD_S"], "tCCD_L": t["tCCD_L"], "tCCD_S": t["tCCD_S"],
        "tFAW": t["tFAW"], "tRTRS": t["tRTRS"], "tRFC": t["tRFC"], "tREFI": t["tREFI"],
        "channels": sy["channels"], "ranks": "1", "bank_groups": s["bankgroups"],
        "banks_per_group": s["banks_per_group"], "rows": s["rows"], "columns": s["columns"],
        "bus_bits": sy["bus_width"], "page_policy": "open",
        "queue_size": sy["trans_queue_size"], "write_queue_size": sy["trans_queue_size"],
        "write_high": sy["trans_queue_size"], "write_low": "8", "hit_cap": "4",
        "bank_queue_size": sy["cmd_queue_size"],
    }
    # DRAMsim3 names fields two letters each, most significant first.
    names = {"ro": "row", "ch": "chan", "ra": "rank", "ba": "bank", "bg": "bg", "co": "col"}
    m = sy["address_mapping"]
    keys["mapping"] = ":".join(names[m[i:i + 2]] for i in range(0, len(m), 2))
    return keys


def geometry(ini):
    """Address bits: burst offset, columns of a row in bursts, the rest."""
    s, sy = ini["dram_structure"], ini["system"]
    burst = int(sy["bus_width"]) // 8 * int(s["BL"])
    cols = int(s["columns"]) // int(s["BL"])
    banks = int(s["bankgroups"]) * int(s["banks_per_group"]) * int(sy["channels"])
    return burst, cols, banks * ROWS * cols * burst


def stream(kind, gap, ini, seed):
    """REQUESTS lines of kind, one every gap cycles. No write is to a block
    one of the last 1024 reads read: DRAMsim3 stops serving reads when its
    write buffer is full and a write waits for an older read of its block."""
    rng = random.Random(seed)
    burst, cols, size = geometry(ini)
    lines = []
    row_base, left = 0, 0
    seq = [0, size // 2]  # seq_mix21: next read, next write
    recent = []  # the last reads' blocks
    for i in range(REQUESTS):
        write = False
        if kind == "seq_read":
            addr = i * burst
        elif kind == "random_read":
            addr = rng.randrange(size // burst) * burst
        elif kind == "mix21_random":  # two reads per write, random rows
            write = i % 3 == 2
            addr = rng.randrange(size // burst) * burst
            while write and addr in recent:
                addr = rng.randrange(size // burst) * burst
        elif kind == "mix21_rowhit":  # runs of 8 to one row, two reads per write
            if not left:
                row_base = rng.randrange(size // (cols * burst)) * cols * burst
                left = 8
            write = i % 3 == 2
            # reads in the row's first half, writes in its second
            addr = row_base + (rng.randrange(cols // 2) + (cols // 2 if write else 0)) * burst
            left -= 1
        elif kind == "seq_mix21":  # a sequential read stream and a sequential write stream
            write = i % 3 == 2
            addr = seq[write]
            seq[write] += burst
        if not write:
            recent = (recent + [addr])[-1024:]
        lines.append("0x%x %s %d\n" % (addr, "WRITE" if write else "READ", i * gap))
    return "".join(lines)


STREAMS = ("seq_read", "random_read", "mix21_random", "mix21_rowhit", "seq_mix21")


def parse(out):
    f = out.split()
    return {f[i]: float(f[i + 1]) for i in range(0, len(f) - 1, 2)}


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.stderr.write("%s failed:\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
        sys.exit(3)
    return parse(p.stdout.strip().splitlines()[-1])


def main():
    tree, d3bin, ourbin, work, table = sys.argv[1:6]
    extra = dict(a.split("=", 1) for a in sys.argv[6:])
    os.makedirs(work, exist_ok=True)
    rows, bad = [], 0
    for dev in DEVICES:
        for ch in CHANNELS:
            ini = device(tree, dev, ch)
            d3ini = os.path.join(work, "%s-%d.ini" % (dev, ch))
            with open(d3ini, "w") as f:
                ini.write(f)
            keys = model_keys(ini)
            keys.update(extra)
            ourini = os.path.join(work, "%s-%d.model.ini" % (dev, ch))
            with open(ourini, "w") as f:
                f.write("[dram]\n" + "".join("%s = %s\n" % kv for kv in keys.items()))
            for si, kind in enumerate(STREAMS):
                for gap in GAPS:
                    path = os.path.join(work, "%s-%d-%s-%d.trace" % (dev, ch, kind, gap))
                    with open(path, "w") as f:
                        f.write(stream(kind, gap, ini, 1000 * si + ch))
                    out = os.path.join(work, "out-%s-%d-%s-%d" % (dev, ch, kind, gap))
                    os.makedirs(out, exist_ok=True)
                    ref = run([d3bin, d3ini, path, out])
                    got = run([ourbin, ourini, path])
                    dbw = 100 * (got["bandwidth_gbps"] / ref["bandwidth_gbps"] - 1)
                    dlat = 100 * (got["avg_read_latency"] / ref["avg_read_latency"] - 1) \
                        if ref["avg_read_latency"] else 0.0
                    dhit = got["row_hit_pct"] - ref["row_hit_pct"]
                    ok = abs(dbw) <= BOUND_BANDWIDTH_PCT and abs(dlat) <= BOUND_LATENCY_PCT \
                        and abs(dhit) <= BOUND_HIT_POINTS
                    bad += not ok
                    rows.append("%-9s %2d %-12s %3d | %7.3f %7.3f %+6.1f%% | %7.1f %7.1f %+6.1f%% | "
                                "%5.1f %5.1f %+5.1f | %s\n"
                                % (dev, ch, kind, gap, got["bandwidth_gbps"], ref["bandwidth_gbps"], dbw,
                                   got["avg_read_latency"], ref["avg_read_latency"], dlat,
                                   got["row_hit_pct"], ref["row_hit_pct"], dhit, "ok" if ok else "OUT"))
                    sys.stdout.write(rows[-1])
                    sys.stdout.flush()
    head = ("# The DRAM model (\"model\") against DRAMsim3 (\"d3\"): tests/validate/dram_vs_dramsim3.py.\n"
            "# %d requests a stream, one every GAP DRAM cycles; bandwidth GB/s, read latency DRAM cycles\n"
            "# from entering the controller, row hits %% of column commands. Bounds: bandwidth %.0f%%,\n"
            "# read latency %.0f%%, row hits %.0f points.%s\n"
            "# device  ch stream       gap |  model      d3   diff  |  model      d3   diff  | "
            "model    d3  diff | verdict\n"
            % (REQUESTS, BOUND_BANDWIDTH_PCT, BOUND_LATENCY_PCT, BOUND_HIT_POINTS,
               (" Model keys added: " + " ".join("%s=%s" % kv for kv in extra.items())) if extra else ""))
    summary = "# %d of %d runs within bounds\n" % (len(rows) - bad, len(rows))
    with open(table, "w") as f:
        f.write(head + "".join(rows) + summary)
    sys.stdout.write(summary)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
