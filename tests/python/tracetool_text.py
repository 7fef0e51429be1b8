"""What tracetool prints, read back for the Python tests: the independent
reference the reader and the exports are compared with."""

import os
import subprocess

import cgmtrace

ROOT = os.environ.get("CGM_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("CGM_BIN", os.path.join(ROOT, "bin"))
GOLDEN = os.path.join(ROOT, "traces", "golden")
X86_TRACES = ["v1-x86-hello.cgt", "v2-x86-hello.cgt", "v2-gpu-stream-copy.cgt"]


def golden(name):
    return os.path.join(GOLDEN, name)


def tool(*args, check=True):
    p = subprocess.run([os.path.join(BIN, "tracetool")] + list(args), capture_output=True,
                       text=True)
    if check and p.returncode:
        raise AssertionError("tracetool %s: %s" % (" ".join(args), p.stderr))
    return p


def parse_event(text):
    name, *fields = text.split()
    return cgmtrace.Event(name, {k: int(v, 0) for k, v in (f.split("=", 1) for f in fields)})


def dump_instructions(path, stream_id):
    """(ip, accesses, events) of every instruction as `tracetool dump` prints
    them: a PARTIAL record's "[insn I]" accesses go before those of
    instruction I of the next block, events with the instruction before
    them (or, before any, a first item whose ip is None)."""
    items, partial, before, in_partial, index = [], [], [], False, 0
    for line in tool("dump", "-s", str(stream_id), path).stdout.splitlines():
        if line.startswith("#"):
            continue
        if not line.startswith(" "):
            rest = line.split(" ", 1)[1]
            if rest.startswith(("block ", "partial ")):
                in_partial = rest.startswith("partial ")
                if not in_partial:
                    before, partial, index = partial, [], 0
                continue
            if not items:
                items.append([None, [], []])
            items[-1][2].append(parse_event(rest))
            continue
        words = line.split()
        if words[0] == "[insn":
            acc = cgmtrace.Access(int(words[3], 16), int(words[4]), words[2] == "W")
            if in_partial:
                partial.append((int(words[1].rstrip("]")), acc))
            else:
                items[-1][1].append(acc)
        elif words[0] in ("R", "W"):
            items[-1][1].append(cgmtrace.Access(int(words[1], 16), int(words[2]), words[0] == "W"))
        else:
            items.append([int(words[0], 16), [a for i, a in before if i == index], []])
            index += 1
    return [(ip, tuple(acc), tuple(ev)) for ip, acc, ev in items]


def dump_disassembly(path, stream_id):
    """(ip, "mnemonic operands") of every instruction `tracetool dump` prints."""
    out = []
    for line in tool("dump", "-s", str(stream_id), path).stdout.splitlines():
        if line.startswith("    0x"):
            ip, text = line.split(None, 1)
            out.append((int(ip, 16), text))
    return out


def stats_classes(path, stream_id):
    """The instruction mix `tracetool stats` prints for one stream: class -> count."""
    classes, mine = {}, False
    for line in tool("stats", path).stdout.splitlines():
        if line.startswith("stream ") or line.startswith("all streams"):
            mine = line.startswith("stream %d " % stream_id)
        elif mine and line.startswith("      ") and line.rstrip().endswith("%"):
            name, count, _ = line.split()
            classes[name] = int(count)
    return classes
