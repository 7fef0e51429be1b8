"""replay's energy statistics ([energy] enable = 1) against the run's own
counts: with a profile of 1 fJ per event and 0 passive, every element's
active energy is its events' count (added up here from the counters the
JSON prints); with only a passive rate, its passive energy is its waiting
cycles times the rate (the cycles the engine skipped while it slept
included, as the counters count them); parts and total add up; windows add
up to the run; and without it the JSON has no energy."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tracetool_text import BIN, golden

CACHES = ["l1i", "l1d", "l2", "l3", "gpu_l1v", "gpu_l2", "gpu_scalar"]
UNITS = ["salu", "valu", "smem", "vmem", "lds", "branch", "other"]


def profile(active, passive):
    sets = {"energy.enable": 1}
    for k in ("int", "mul", "div", "fp", "simd", "branch", "uop", "load", "store"):
        sets["energy.core." + k] = active
    sets["energy.core.passive"] = passive
    for c in CACHES:
        for k in ("read", "write", "tag", "fill", "writeback"):
            sets["energy.%s.%s" % (c, k)] = active
        sets["energy.%s.passive" % c] = passive
    for k in ("hop", "flit"):
        sets["energy.ring." + k] = active
    sets["energy.ring.passive"] = passive
    sets["energy.dram.idd"] = 0
    for k in ("activate", "read", "write", "precharge", "refresh"):
        sets["energy.dram." + k] = active
    sets["energy.dram.passive"] = passive
    for k in UNITS:
        sets["energy.cu." + k] = active
    sets["energy.cu.passive"] = passive
    out = []
    for k, v in sets.items():
        out += ["--set", "%s=%d" % (k, v)]
    return out


class Energy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def run_replay(self, name, *args):
        path = os.path.join(self.dir, name + ".json")
        subprocess.run([os.path.join(BIN, "replay"), "-q", "-o", path] + list(args), check=True)
        with open(path) as f:
            return json.load(f)

    def test_one_per_event_is_the_event_counts(self):
        for trace in ("v2-x86-hello.cgt", "v2-gpu-stream-copy.cgt"):
            s = self.run_replay("count", *profile(1, 0), golden(trace))
            e = s["energy"]
            with self.subTest(trace):
                for core, en in zip(s["cores"], e["cores"]):
                    self.assertEqual(en["active_fj"], core["uops"])
                    # every committed micro-op in one class (loads and stores counted when emitted)
                    self.assertEqual(sum(core["uops_by_class"].values()), core["uops"] - core["loads"] - core["stores"])
                    self.assertEqual(en["passive_fj"], 0)
                self.assertEqual([c["name"] for c in e["caches"]], [c["name"] for c in s["caches"]])
                for cache, en in zip(s["caches"], e["caches"]):
                    # each access a read or a write and a tag lookup; a GPU cache has no write-backs
                    # (and the scalar one no misses)
                    self.assertEqual(en["active_fj"], 2 * cache["accesses"] + cache.get("misses", 0) +
                                     cache.get("writebacks", 0))
                sw = s["network"]["switches"]
                self.assertEqual(e["network"]["active_fj"],
                                 sum(x["packets"] + x["west_link_busy"] + x["east_link_busy"] for x in sw))
                d, ed = s["dram"], e["dram"]
                # bursts: every column command is a row hit or a row miss
                self.assertEqual(ed["read_bursts"] + ed["write_bursts"], d["row_hits"] + d["row_misses"])
                self.assertEqual(ed["active_fj"], d["activates"] + ed["read_bursts"] + ed["write_bursts"] +
                                 d["precharges"] + d["refreshes"])
                for cu, en in zip(s.get("gpu", {}).get("compute_units", []), e.get("compute_units", [])):
                    # the vector units per active lane (at most 64 an instruction), the others per instruction
                    by, lanes = cu["instructions_by_unit"], cu["lanes_by_unit"]
                    vector = ("valu", "vmem", "lds")
                    self.assertEqual(en["active_fj"], sum(lanes[u] for u in vector) +
                                     sum(n for u, n in by.items() if u not in vector))
                    for u in vector:
                        self.assertLessEqual(lanes[u], 64 * by[u])
                        self.assertGreaterEqual(lanes[u], by[u] if by[u] else 0)
                self.assertEqual(len(e.get("compute_units", [])), len(s.get("gpu", {}).get("compute_units", [])))

    def test_passive_is_the_waiting_cycles_times_the_rate(self):
        s = self.run_replay("passive", *profile(0, 3), golden("v2-gpu-stream-copy.cgt"))
        e = s["energy"]
        for core, en in zip(s["cores"], e["cores"]):
            self.assertEqual(en["active_fj"], 0)
            self.assertEqual(en["passive_fj"], 3 * (core["cycles"] - core["commit_cycles"]))
        for en in e["caches"]:
            self.assertEqual(en["passive_fj"], 3 * s["cycles"])
        self.assertEqual(e["network"]["passive_fj"], 3 * s["cycles"])
        self.assertEqual(e["dram"]["passive_fj"], 3 * s["dram"]["cycles"])
        for cu, en in zip(s["gpu"]["compute_units"], e["compute_units"]):
            self.assertEqual(en["passive_fj"], 3 * cu["idle_cycles"])

    def test_cache_reads_and_writes(self):
        sets = profile(0, 0)
        for c in CACHES:
            sets += ["--set", "energy.%s.read=3" % c, "--set", "energy.%s.write=100" % c]
        for trace in ("v2-x86-hello.cgt", "v2-gpu-stream-copy.cgt"):
            s = self.run_replay("rw", *sets, golden(trace))
            for cache, en in zip(s["caches"], s["energy"]["caches"]):
                if cache["kind"] == "l1d":
                    writes = s["cores"][int(cache["name"][4:].split(".")[0])]["stores"]
                elif cache["kind"] == "gpu_l1v":
                    writes = cache["stores"]
                else:
                    writes = 0
                with self.subTest(trace=trace, cache=cache["name"]):
                    self.assertLessEqual(writes, cache["accesses"])
                    self.assertEqual(en["active_fj"], 3 * (cache["accesses"] - writes) + 100 * writes)

    def test_parts_total_and_power(self):
        s = self.run_replay("parts", *profile(5, 2), golden("v2-gpu-stream-copy.cgt"))
        e = s["energy"]
        cpu = sum(x["total_fj"] for x in e["cores"]) + sum(
            x["total_fj"] for x, c in zip(e["caches"], s["caches"]) if not c["kind"].startswith("gpu"))
        gpu = sum(x["total_fj"] for x in e["compute_units"]) + sum(
            x["total_fj"] for x, c in zip(e["caches"], s["caches"]) if c["kind"].startswith("gpu"))
        parts = e["parts"]
        self.assertEqual(parts["cpu"]["total_fj"], cpu)
        self.assertEqual(parts["gpu"]["total_fj"], gpu)
        self.assertEqual(parts["network"]["total_fj"], e["network"]["total_fj"])
        self.assertEqual(parts["dram"]["total_fj"], e["dram"]["total_fj"])
        self.assertEqual(e["total_fj"], sum(p["total_fj"] for p in parts.values()))
        for x in e["cores"] + e["caches"] + [e]:
            self.assertEqual(x["total_fj"], x.get("active_fj", x["total_fj"]) + x.get("passive_fj", 0))
            self.assertAlmostEqual(x["power_w"], x["total_fj"] / 1e15 / s["seconds"], delta=1e-12)

    def test_energy_delay_product_and_text(self):
        path = os.path.join(self.dir, "edp.json")
        p = subprocess.run([os.path.join(BIN, "replay"), "-o", path, "--set", "energy.enable=1",
                            golden("v2-gpu-stream-copy.cgt")], check=True, capture_output=True, text=True)
        with open(path) as f:
            s = json.load(f)
        e = s["energy"]
        self.assertGreater(e["total_fj"], 0)
        self.assertAlmostEqual(e["energy_delay_product_js"], e["total_fj"] / 1e15 * s["seconds"],
                               delta=1e-9 * e["energy_delay_product_js"])
        line = [x for x in (p.stdout + p.stderr).splitlines() if x.strip().startswith("energy:")]
        self.assertEqual(len(line), 1)
        self.assertIn("%.3f uJ" % (e["total_fj"] / 1e9), line[0])

    def test_dram_background_by_state(self):
        s = self.run_replay("idd", "--set", "energy.enable=1", golden("v2-gpu-stream-copy.cgt"))
        ed, d = s["energy"]["dram"], s["dram"]
        # DDR3-1600 preset: 2 channels of one rank, every rank-cycle in one state or the other
        self.assertEqual(ed["active_standby_cycles"] + ed["precharged_standby_cycles"], 2 * d["cycles"])
        # IDD3N 38 mA, IDD2N 32 mA, 1.35 V, 1.25 ns, 8 devices a rank: fJ per rank-cycle
        self.assertEqual(ed["active_standby_fj"], ed["active_standby_cycles"] * 513000)
        self.assertEqual(ed["precharged_standby_fj"], ed["precharged_standby_cycles"] * 432000)
        self.assertEqual(ed["passive_fj"], ed["active_standby_fj"] + ed["precharged_standby_fj"])
        self.assertEqual(ed["active_fj"], sum(ed[k + "_fj"] for k in
                                              ("activate", "precharge", "read", "write", "refresh")))

    def test_every_controllers_dram(self):
        s = self.run_replay("mc", "--set", "energy.enable=1", "--set", "memory.controllers=2",
                            golden("v2-gpu-stream-copy.cgt"))
        ed = s["energy"]["dram"]
        drams = [m.get("dram", s["dram"]) for m in s["memory_controllers"]]
        self.assertEqual(len(drams), 2)
        self.assertEqual(ed["read_bursts"] + ed["write_bursts"], sum(d["row_hits"] + d["row_misses"] for d in drams))
        self.assertEqual(ed["active_standby_cycles"] + ed["precharged_standby_cycles"],
                         sum(2 * d["cycles"] for d in drams))
        # DDR3-1600: (IDD5 235 - IDD2N 32) mA x tRFC 208 x 1.25 ns x 1.35 V x 8 devices = 570.024 nJ a REF
        self.assertGreater(sum(d["refreshes"] for d in drams), 0)
        self.assertEqual(ed["refresh_fj"], sum(d["refreshes"] for d in drams) * 570024000)

    def test_windows_add_up_to_the_run(self):
        windows = os.path.join(self.dir, "w.jsonl")
        s = self.run_replay("windows", *profile(7, 1), "--windows", "2000", "--windows-out", windows,
                            golden("v2-x86-hello.cgt"))
        with open(windows) as f:
            rows = [json.loads(line) for line in f]
        self.assertGreater(len(rows), 1)
        self.assertEqual(sum(r["energy"]["total_fj"] for r in rows), s["energy"]["total_fj"])
        self.assertEqual(sum(r["energy"]["cores"][0]["active_fj"] for r in rows),
                         s["energy"]["cores"][0]["active_fj"])

    def test_off_by_default(self):
        plain = self.run_replay("plain", golden("v2-x86-hello.cgt"))
        off = self.run_replay("off", "--set", "energy.enable=0", golden("v2-x86-hello.cgt"))
        self.assertNotIn("energy", plain)
        self.assertEqual(plain, off)


if __name__ == "__main__":
    unittest.main()
