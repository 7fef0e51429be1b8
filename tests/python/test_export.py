"""tracetool export: --text against `tracetool dump` and `tracetool stats`;
--champsim read back with a reader written from ChampSim's input_instr
layout (inc/trace_instruction.h: ip u64, is_branch and branch_taken u8,
destination_registers[2] and source_registers[4] u8, destination_memory[2]
and source_memory[4] u64; 64 bytes, no padding) and classified with
ChampSim's rules for telling branches apart from their registers."""

import lzma
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

from tracetool_text import (X86_TRACES, dump_disassembly, dump_instructions, golden,
                            parse_event, stats_classes, tool)

import cgmtrace

INPUT_INSTR = struct.Struct("<QBB2B4B2Q4Q")
SP, FLAGS, IP = 6, 25, 26     # ChampSim's REG_STACK_POINTER, REG_FLAGS, REG_INSTRUCTION_POINTER


def champsim_kind(dst, src):
    """ChampSim's branch classification (ooo_model_instr's constructor)."""
    writes_sp, writes_ip = SP in dst, IP in dst
    reads_sp, reads_flags, reads_ip = SP in src, FLAGS in src, IP in src
    reads_other = any(r not in (SP, FLAGS, IP) for r in src)
    if not reads_sp and not reads_flags and writes_ip and not reads_other:
        return "jump"
    if not reads_sp and not reads_ip and not reads_flags and writes_ip and reads_other:
        return "jump-indirect"
    if not reads_sp and reads_ip and not writes_sp and writes_ip and (reads_flags or reads_other):
        return "branch"
    if reads_sp and reads_ip and writes_sp and writes_ip and not reads_flags and not reads_other:
        return "call"
    if reads_sp and reads_ip and writes_sp and writes_ip and not reads_flags and reads_other:
        return "call-indirect"
    if reads_sp and not reads_ip and writes_sp and writes_ip:
        return "ret"
    return "other-branch" if writes_ip else None


def read_champsim(path):
    with lzma.open(path) as f:
        data = f.read()
    assert len(data) % INPUT_INSTR.size == 0, "not whole input_instr records"
    out = []
    for off in range(0, len(data), INPUT_INSTR.size):
        v = INPUT_INSTR.unpack_from(data, off)
        ip, is_branch, taken = v[0], v[1], v[2]
        dst = [r for r in v[3:5] if r]
        src = [r for r in v[5:9] if r]
        dmem = [a for a in v[9:11] if a]
        smem = [a for a in v[11:15] if a]
        out.append((ip, is_branch, taken, dst, src, dmem, smem))
    return out


class Text(unittest.TestCase):
    def test_text_holds_what_dump_shows(self):
        for name in X86_TRACES:
            lines = tool("export", "--text", golden(name)).stdout.splitlines()
            self.assertEqual(lines[0], "# cgmtrace-text 1")
            by_stream = {}
            for line in lines[1:]:
                kind, sid, rest = line.split(" ", 2)
                items = by_stream.setdefault(int(sid), [])
                if kind == "i":
                    ip, cls, *accs = rest.split(" ")
                    acc = []
                    for a in accs:
                        rw, addr, size = a.split(":")
                        acc.append(cgmtrace.Access(int(addr, 16), int(size), rw == "w"))
                    items.append([int(ip, 16), tuple(acc), [], cls])
                else:
                    self.assertEqual(kind, "e")
                    if not items:
                        items.append([None, (), [], None])
                    items[-1][2].append(parse_event(rest))
            self.assertTrue(by_stream, name)
            for sid, items in by_stream.items():
                want = dump_instructions(golden(name), sid)
                got = [(ip, acc, tuple(ev)) for ip, acc, ev, _ in items]
                self.assertEqual(got, want, "%s stream %d" % (name, sid))
                mix = {}
                for *_, cls in items:
                    if cls:
                        mix[cls] = mix.get(cls, 0) + 1
                self.assertEqual(mix, stats_classes(golden(name), sid))

    def test_one_stream_and_output_file(self):
        d = tempfile.mkdtemp()
        try:
            out = os.path.join(d, "t.txt")
            tool("export", "--text", "-s", "1000", "-o", out, golden("v2-x86-hello.cgt"))
            with open(out) as f:
                lines = f.read().splitlines()
            self.assertEqual(sum(1 for l in lines if l.startswith("i 1000 ")), 5462)
        finally:
            shutil.rmtree(d)


class ChampSim(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.path = os.path.join(cls.dir, "hello.xz")
        cls.result = tool("export", "--champsim", cls.path, "-s", "1000", golden("v2-x86-hello.cgt"))
        cls.records = read_champsim(cls.path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_the_file_is_xz(self):
        self.assertEqual(subprocess.run(["xz", "-t", self.path]).returncode, 0)

    def test_one_record_per_instruction_with_its_accesses(self):
        want = [x for x in dump_instructions(golden("v2-x86-hello.cgt"), 1000) if x[0] is not None]
        self.assertEqual(len(self.records), 5462)
        self.assertIn(": 5462 instructions, 1360 branches", self.result.stderr)
        self.assertEqual([r[0] for r in self.records], [w[0] for w in want])
        for r, (ip, acc, _) in zip(self.records, want):
            self.assertEqual(r[5], [a.addr for a in acc if a.write][:2], hex(ip))
            self.assertEqual(r[6], [a.addr for a in acc if not a.write][:4], hex(ip))

    def test_champsim_sees_the_branch_kinds_the_trace_recorded(self):
        mix = stats_classes(golden("v2-x86-hello.cgt"), 1000)
        kinds = {}
        for ip, is_branch, taken, dst, src, _, _ in self.records:
            k = champsim_kind(dst, src)
            self.assertEqual(bool(is_branch), k is not None, hex(ip))
            if k:
                kinds[k] = kinds.get(k, 0) + 1
        self.assertEqual(kinds, {k: mix[k] for k in kinds})
        self.assertEqual(sorted(kinds), sorted(k for k in mix if k in (
            "branch", "jump", "jump-indirect", "call", "call-indirect", "ret")))

    def test_taken_is_whether_the_next_instruction_is_the_target(self):
        disasm = dump_disassembly(golden("v2-x86-hello.cgt"), 1000)
        checked = 0
        for k, (r, (ip, text)) in enumerate(zip(self.records[:-1], disasm)):
            if champsim_kind(r[3], r[4]) != "branch":
                if r[1]:
                    self.assertEqual(r[2], 1, text)   # other branches are always taken
                continue
            target = int(text.split()[-1], 16)       # capstone's "jne 0x401240"
            self.assertEqual(r[2], int(self.records[k + 1][0] == target), "%x %s" % (ip, text))
            checked += 1
        self.assertEqual(checked, 980)

    def test_bad_requests(self):
        p = tool("export", "--champsim", self.path, golden("v2-x86-hello.cgt"), check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("-s ID", p.stderr)
        p = tool("export", "--champsim", os.path.join(self.dir, "x.xz"), "-s", "2147418112",
                 golden("v2-x86-hello.cgt"), check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no x86 thread stream 2147418112", p.stderr)
        p = tool("export", "--text", golden("v1-small.cgt"), check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("x86.static", p.stderr)
        p = tool("export", "--champsim", "/nonexistent/dir/x.xz", "-s", "1000",
                 golden("v2-x86-hello.cgt"), check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("/nonexistent/dir/x.xz", p.stderr)


if __name__ == "__main__":
    unittest.main()
