"""The Python reader (python/cgmtrace) on the golden traces, against
tracetool's own output as the independent reference: `tracetool info --json`
for the streams, `tracetool dump` (the x86 view's printer, which walks the
records without the cursor the reader uses) for every instruction, access
and event, and the program section's instruction count (tracegen's)."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

import cgmtrace
from tracetool_text import BIN, X86_TRACES, dump_instructions, golden, parse_event, tool

try:
    import numpy
except ImportError:
    numpy = None
try:
    import pandas
except ImportError:
    pandas = None


class Streams(unittest.TestCase):
    def test_streams_are_those_tracetool_lists(self):
        for name in X86_TRACES + ["v1-small.cgt"]:
            info = json.loads(tool("info", "--json", golden(name)).stdout)
            with cgmtrace.open(golden(name)) as t:
                self.assertEqual(t.version, info["version"])
                self.assertEqual(t.complete, info["complete"])
                self.assertEqual(t.file_bytes, info["file_bytes"])
                self.assertEqual(t.program, info.get("program", {}))
                self.assertEqual(len(t.streams), len(info["streams"]))
                for s, want in zip(t.streams, info["streams"]):
                    self.assertEqual((s.id, s.kind_name, s.records, s.instructions, s.chunks),
                                     (want["id"], want["kind"], want["records"],
                                      want["instructions"], want["chunks"]), name)
                    if s.kind_name == "x86_thread":
                        self.assertEqual(s.thread_id, want["thread_id"])
                    if s.kind_name == "gpu_workgroup":
                        self.assertEqual(list(s.group), want["group"])

    def test_v1_small_counts_are_those_its_writer_wrote(self):
        # tests/unit/formats/test_trace_golden.c: 20 events, 5000 records, 500 GPU records
        with cgmtrace.open(golden("v1-small.cgt")) as t:
            self.assertEqual([(s.id, s.records) for s in t.streams],
                             [(1, 20), (2, 5000), (3, 500), (4, 1)])
            self.assertEqual(sum(1 for _ in t.stream(2).raw_records()), 5000)
            self.assertRaises(KeyError, t.stream, 99)

    def test_events_decode_as_tracetool_prints_them(self):
        want = [parse_event(line.split(" ", 1)[1])
                for line in tool("dump", "-s", "1", golden("v1-small.cgt")).stdout.splitlines()
                if not line.startswith("#")]
        with cgmtrace.open(golden("v1-small.cgt")) as t:
            got = [cgmtrace.decode_event(rec) for _, rec in t.stream(1).raw_records()]
        self.assertEqual(len(got), 20)
        self.assertEqual(got, want)
        self.assertIsNone(cgmtrace.decode_event(b"\x40\x00"))


class Instructions(unittest.TestCase):
    def test_every_instruction_as_tracetool_dumps_it(self):
        for name in X86_TRACES:
            with cgmtrace.open(golden(name)) as t:
                for s in t.streams:
                    if s.kind_name != "x86_thread":
                        continue
                    got = list(s)
                    want = dump_instructions(golden(name), s.id)
                    self.assertEqual(len(got), len(want), name)
                    for k, (g, w) in enumerate(zip(got, want)):
                        self.assertEqual(g, w, "%s stream %d item %d" % (name, s.id, k))

    def test_instruction_count_is_tracegens(self):
        for name in X86_TRACES:
            with cgmtrace.open(golden(name)) as t:
                n = sum(1 for s in t.streams if s.kind_name == "x86_thread"
                        for ip, _, _ in s if ip is not None)
                self.assertEqual(n, int(t.program["instructions"]), name)

    def test_signed_fields_and_syscall_events(self):
        with cgmtrace.open(golden("v2-x86-hello.cgt")) as t:
            calls = [(t.disasm(ip), ev) for ip, _, evs in t.stream(1000) for ev in evs]
        syscalls = [c for c in calls if c[1].name == "syscall"]
        # hello's ioctl(TCGETS) on a non-terminal fails with -ENOTTY (-25)
        self.assertIn(cgmtrace.Event("syscall", {"nr": 16, "result": -25, "blocked": 0}),
                      [ev for _, ev in syscalls])
        # each system call's event follows its syscall instruction
        self.assertTrue(all(d == "syscall" for d, _ in syscalls))
        self.assertEqual(calls[-1][1].name, "thread_exit")

    def test_a_stream_without_instructions_is_refused(self):
        with cgmtrace.open(golden("v1-small.cgt")) as t:
            with self.assertRaises(cgmtrace.TraceError) as e:
                list(t.stream(2))
            self.assertIn("x86.static", str(e.exception))
            with self.assertRaises(cgmtrace.TraceError) as e:
                list(t.stream(3))
            self.assertIn("not an x86 thread", str(e.exception))

    @unittest.skipUnless(numpy, "needs NumPy (Debian's python3-numpy)")
    def test_arrays_hold_the_same_instructions(self):
        with cgmtrace.open(golden("v2-x86-hello.cgt")) as t:
            s = t.stream(1000)
            items = [x for x in s if x[0] is not None]
            chunks = list(s.arrays(chunk=1000))
        self.assertEqual([len(c["ip"]) for c in chunks], [1000] * 5 + [462])
        ip = numpy.concatenate([c["ip"] for c in chunks])
        nacc = numpy.concatenate([c["naccess"] for c in chunks])
        nev = numpy.concatenate([c["nevent"] for c in chunks])
        addr = numpy.concatenate([c["acc_addr"] for c in chunks])
        size = numpy.concatenate([c["acc_size"] for c in chunks])
        write = numpy.concatenate([c["acc_write"] for c in chunks])
        self.assertEqual(ip.tolist(), [x[0] for x in items])
        self.assertEqual(nacc.tolist(), [len(x[1]) for x in items])
        self.assertEqual(nev.tolist(), [len(x[2]) for x in items])
        accs = [a for x in items for a in x[1]]
        self.assertEqual(list(zip(addr.tolist(), size.tolist(), write.tolist())),
                         [tuple(a) for a in accs])
        # hello's counts by `tracetool stats`: 1141 reads, 793 writes
        self.assertEqual((int((~write).sum()), int(write.sum())), (1141, 793))


class BadInput(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_not_a_trace(self):
        path = os.path.join(self.dir, "junk.cgt")
        with open(path, "wb") as f:
            f.write(b"not a trace at all" * 10)
        with self.assertRaises(cgmtrace.TraceError) as e:
            cgmtrace.open(path)
        self.assertIn(path, str(e.exception))

    def test_corrupt_chunk_raises_the_librarys_message(self):
        path = os.path.join(self.dir, "corrupt.cgt")
        with open(golden("v2-x86-hello.cgt"), "rb") as f:
            data = bytearray(f.read())
        # the thread stream's last chunk: every stream's blocks lie before
        # the index, and the thread's chunks follow the static table's
        at = len(data) - 4096
        data[at] ^= 0xff
        with open(path, "wb") as f:
            f.write(bytes(data))
        self.assertNotEqual(tool("verify", path, check=False).returncode, 0)
        with self.assertRaises(cgmtrace.TraceError) as e:
            cgmtrace.verify(path)
        self.assertIn("offset", str(e.exception))
        with cgmtrace.open(path) as t:
            with self.assertRaises(cgmtrace.TraceError) as e:
                for s in t.streams:
                    for _ in s.raw_records():
                        pass
            msg = str(e.exception)
            self.assertIn(path, msg)
            self.assertIn("offset", msg)
            bad = [s for s in t.streams if s.kind_name == "x86_thread"][0]
            with self.assertRaises(cgmtrace.TraceError) as e2:
                list(bad)
        # the message is the one tracetool prints for the same stream
        p = tool("dump", "-s", str(bad.id), path, check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(str(e2.exception), p.stderr)


class Statistics(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.stats = os.path.join(cls.dir, "stats.json")
        cls.windows = os.path.join(cls.dir, "windows.jsonl")
        subprocess.run([os.path.join(BIN, "replay"), "-q", "-o", cls.stats, "--windows", "2000",
                        "--windows-out", cls.windows, golden("v2-x86-hello.cgt")], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_stats_and_windows(self):
        stats = cgmtrace.read_stats(self.stats)
        windows = cgmtrace.read_windows(self.windows)
        with open(self.stats) as f:
            self.assertEqual(stats, json.load(f))
        self.assertGreater(len(windows), 1)
        self.assertEqual([w["window"] for w in windows], list(range(len(windows))))
        # a counter's windows add up to its value over the run (replay/README.md)
        self.assertEqual(sum(w["instructions"] for w in windows), stats["instructions"])
        self.assertEqual(stats["instructions"], 5462)
        flat = cgmtrace.flatten(stats)
        self.assertEqual(flat["instructions"], 5462)

    @unittest.skipUnless(pandas, "needs pandas")
    def test_windows_frame(self):
        frame = cgmtrace.windows_frame(self.windows)
        self.assertEqual(int(frame["instructions"].sum()), 5462)

    def test_bad_windows_line_names_the_line(self):
        path = os.path.join(self.dir, "bad.jsonl")
        with open(path, "w") as f:
            f.write('{"window": 0}\n{oops\n')
        with self.assertRaises(ValueError) as e:
            cgmtrace.read_windows(path)
        self.assertIn(path + ":2", str(e.exception))


if __name__ == "__main__":
    unittest.main()
