"""replay --timeline: the file against the trace-event format's rules (a JSON
object with traceEvents; every B has its E on its track, in stack order;
timestamps never go back on a track; X durations not negative), and its
totals against the run's own statistics (the registry's counters, computed
apart from the timeline): per core the memory-stall cycles, the system
calls and their cycles and the context switches; per compute unit the
work-groups and their cycles; the kernels' cycles; the copies' and
flushes' cycles; IPC over the windows adding up to the instructions.
And without --timeline the statistics are byte for byte the same."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tracetool_text import BIN, golden

BUILD = os.environ.get("CGM_BUILD", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
NONCOHERENT = ["--set", "gpu.coherence=noncoherent", "--set", "gpu.connection=mc"]


def replay(*args, check=True):
    p = subprocess.run([os.path.join(BIN, "replay"), "-q"] + list(args), capture_output=True, text=True)
    if check and p.returncode:
        raise AssertionError("replay %s: %s" % (" ".join(args), p.stderr))
    return p


def check_rules(test, doc):
    """The trace-event rules; returns the events."""
    test.assertIsInstance(doc, dict)
    events = doc["traceEvents"]
    last, stacks = {}, {}
    for k, e in enumerate(events):
        test.assertIn(e["ph"], "BEXCM", e)
        if e["ph"] == "M":
            continue
        track = (e["pid"], e.get("tid"), e["name"] if e["ph"] == "C" else None)
        test.assertGreaterEqual(e["ts"], last.get(track, 0.0), "event %d goes back on its track" % k)
        last[track] = e["ts"]
        stack = stacks.setdefault(track, [])
        if e["ph"] == "B":
            stack.append(e)
        elif e["ph"] == "E":
            test.assertTrue(stack, "event %d ends nothing" % k)
            test.assertLessEqual(stack.pop()["ts"], e["ts"])
        elif e["ph"] == "X":
            test.assertGreaterEqual(e["dur"], 0)
    for track, stack in stacks.items():
        test.assertEqual(stack, [], "slices left open on %s" % (track,))
    return events


def slices(events, pid, tid):
    """(begin, end) pairs of a track's B/E slices, in order."""
    out, open_ = [], []
    for e in events:
        if e["ph"] in "BE" and e["pid"] == pid and e.get("tid") == tid:
            if e["ph"] == "B":
                open_.append(e)
            else:
                out.append((open_.pop(), e))
    return out


class Timeline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        threads = os.path.join(cls.dir, "sync_mt.cgt")
        subprocess.run([os.path.join(BIN, "tracegen"), "-o", threads, "--",
                        os.path.join(BUILD, "traces", "x86", "musl", "sync_mt")],
                       check=True, stdout=subprocess.DEVNULL)
        cls.cases = {
            "hello": [golden("v2-x86-hello.cgt")],
            "threads": [threads],
            "gpu": [golden("v2-gpu-stream-copy.cgt")],
            "gpu-noncoherent": NONCOHERENT + [golden("v2-gpu-stream-copy.cgt")],
        }
        cls.runs = {}
        for name, args in cls.cases.items():
            stats = os.path.join(cls.dir, name + ".json")
            tl = os.path.join(cls.dir, name + ".tl.json")
            replay("-o", stats, "--timeline", tl, "--timeline-stall", "1", "--timeline-window", "3000",
                   *args)
            with open(stats) as f, open(tl) as g:
                cls.runs[name] = (json.load(f), json.load(g), stats)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_rules(self):
        for name, (_, doc, _) in self.runs.items():
            with self.subTest(name):
                check_rules(self, doc)
                self.assertEqual(doc["otherData"]["dropped"], 0)

    def test_cores_against_their_statistics(self):
        for name, (stats, doc, _) in self.runs.items():
            events = doc["traceEvents"]
            for core in stats["cores"]:
                i = core["id"]
                x = lambda tid: [e for e in events if e["ph"] == "X" and e["pid"] == 1 and e["tid"] == tid]
                stalls, calls = x(3 * i + 2), x(3 * i + 1)
                with self.subTest(name, core=i):
                    self.assertEqual(sum(e["args"]["cycles"] for e in stalls),
                                     core["stall_cycles"]["memory"])
                    self.assertEqual(len(calls), core["syscalls"])
                    self.assertEqual(sum(e["args"]["cycles"] for e in calls), core["stall_cycles"]["syscall"])
                    self.assertEqual(len(slices(events, 1, 3 * i)), core["context_switches"])
        # the threaded guest runs on more than one core
        stats, doc, _ = self.runs["threads"]
        self.assertGreater(sum(1 for c in stats["cores"] if c["context_switches"]), 1)

    def test_system_calls_are_named_by_their_events(self):
        _, doc, _ = self.runs["hello"]
        calls = [e for e in doc["traceEvents"] if e["ph"] == "X" and "nr" in e.get("args", {})]
        # hello's ioctl(TCGETS) on a non-terminal: nr 16, -ENOTTY (tracetool dump shows it)
        self.assertIn((16, -25), [(e["args"]["nr"], e["args"]["result"]) for e in calls])
        self.assertTrue(all(e["name"] == "syscall %d" % e["args"]["nr"] for e in calls))

    def test_gpu_against_its_statistics(self):
        for name in ("gpu", "gpu-noncoherent"):
            stats, doc, _ = self.runs[name]
            events = doc["traceEvents"]
            gpu = stats["gpu"]
            with self.subTest(name):
                kernels = slices(events, 2, 0)
                self.assertEqual([e["args"]["cycles"] for _, e in kernels], [k["cycles"] for k in gpu["kernels"]])
                self.assertEqual([b["name"] for b, _ in kernels],
                                 ["%s (launch %d)" % (k["name"], k["launch"]) for k in gpu["kernels"]])
                for cu in gpu["compute_units"]:
                    groups = [p for tid in range(100000 + 1000 * cu["id"], 100000 + 1000 * (cu["id"] + 1))
                              for p in slices(events, 2, tid)]
                    self.assertEqual(len(groups), cu["work_groups"])
                    self.assertEqual(sum(e["args"]["cycles"] for _, e in groups), cu["work_group_cycles"])
                jobs = [p for tid in range(1000, 2000) for p in slices(events, 2, tid)]
                self.assertEqual(len(jobs), gpu["copies"]["jobs"])
                self.assertEqual(sum(e["args"]["cycles"] for _, e in jobs), gpu["copies"]["system_cycles"])
        self.assertGreater(self.runs["gpu-noncoherent"][0]["gpu"]["copies"]["jobs"], 0)

    def test_ipc_counter_adds_up_to_the_instructions(self):
        for name, (stats, doc, _) in self.runs.items():
            ipc = [e for e in doc["traceEvents"] if e["ph"] == "C" and e["name"] == "IPC"]
            ghz = stats["cycles"] / stats["seconds"] / 1e9
            ends = [e["ts"] for e in ipc[1:]] + [stats["cycles"] / ghz / 1e3]
            total = sum(e["args"]["ipc"] * (end - e["ts"]) * ghz * 1e3 for e, end in zip(ipc, ends))
            with self.subTest(name):
                self.assertGreater(len(ipc), 1)
                self.assertAlmostEqual(total / stats["instructions"], 1.0, places=5)
                self.assertEqual(ipc[0]["ts"], 0)

    def test_statistics_unchanged_by_the_timeline(self):
        for name, args in self.cases.items():
            plain = os.path.join(self.dir, name + ".plain.json")
            replay("-o", plain, *args)
            with open(plain, "rb") as f, open(self.runs[name][2], "rb") as g:
                self.assertEqual(f.read(), g.read(), name)

    def test_bounded(self):
        tl = os.path.join(self.dir, "bounded.json")
        p = replay("-o", os.path.join(self.dir, "bounded.stats.json"), "--timeline", tl,
                   "--timeline-max-events", "25", "--timeline-stall", "1", golden("v2-gpu-stream-copy.cgt"))
        self.assertIn("--timeline-max-events", p.stderr)
        with open(tl) as f:
            doc = json.load(f)
        events = check_rules(self, doc)
        self.assertLessEqual(sum(1 for e in events if e["ph"] != "M"), 25)
        self.assertEqual(doc["otherData"]["events"], sum(1 for e in events if e["ph"] != "M"))
        self.assertGreater(doc["otherData"]["dropped"], 0)

    def test_bad_options(self):
        for args in (["--timeline-stall", "0"], ["--timeline-window", "x"], ["--timeline-max-events", "-1"]):
            p = replay("--timeline", os.path.join(self.dir, "x.json"), *args, golden("v2-x86-hello.cgt"),
                       check=False)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(args[0], p.stderr)
        p = replay("--timeline-stall", "5", golden("v2-x86-hello.cgt"), check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("goes with --timeline", p.stderr)
        p = replay("--timeline", "/nonexistent/dir/t.json", golden("v2-x86-hello.cgt"), check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("/nonexistent/dir/t.json", p.stderr)


if __name__ == "__main__":
    unittest.main()
