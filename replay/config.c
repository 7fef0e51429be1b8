/* The configuration table and its INI reader and printer. */
#include "replay/config.h"
#include "cgm/bits.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgm/coh.h"
#include "cgm/dram.h"
#include "cgm/input.h"
#include "cgm/keys.h"
#include "cgm/nearest.h"
#include "replay/gpu/adsm.h"

/* The rows are the engine's (cgm/keys.h); the short names keep the table
 * readable. CGM_KEY_MODEL: a section whose keys a model's own parser
 * holds (the DRAM's); its row gives where the section is printed and the
 * key that sets its defaults. */
#define T_COUNT CGM_KEY_COUNT
#define T_BYTES CGM_KEY_BYTES
#define T_HZ CGM_KEY_HZ
#define T_CYCLES CGM_KEY_CYCLES
#define T_ENUM CGM_KEY_ENUM
#define T_MODEL CGM_KEY_MODEL
#define POW2 CGM_KEY_POW2

static const char *const predictor_names[] = { "bimodal", "gshare", "gselect", NULL };
static const char *const gpu_memory_names[] = { "hierarchy", "ideal", NULL };
static const char *const gpu_coherence_names[] = { "noncoherent", "coherent", NULL };
static const char *const gpu_connection_names[] = { "mc", "l3", NULL };
static const char *const coalescer_names[] = { "per-instruction", "l1-mshr", "hardware", NULL };
static const char *const copy_policy_names[] = { "launch", "batch", "lazy", "rolling", NULL };
static const char *const attach_names[] = { "integrated", "discrete", NULL };
static const char *const waitcnt_names[] = { "counts", "drain", NULL };
static const char *const full_mshr_names[] = { "wait", "nack", NULL };
static const char *const victim_policy_names[] = { "early", "serialized", NULL }; /* enum cgm_coh_victim_policy */
static const char *const no_yes_names[] = { "no", "yes", NULL };
/* The coherence protocols of cgm/coh_protocols.def, value = its id. */
static const char *const protocol_names[] = {
#define PROTOCOL(id) #id,
#define PROTOCOL_NAMED(id, name) name,
#include "cgm/coh_protocols.def"
#undef PROTOCOL_NAMED
#undef PROTOCOL
    NULL
};

#define OFF(f) offsetof(struct rp_config, f)
#define CACHE_KEYS(sec, fld, sz, w, lat, m)                                                        \
    { sec, "size", T_BYTES, OFF(fld.size), sz, 1024, 1ull << 30, NULL, "capacity" },            \
    { sec, "ways", T_COUNT, OFF(fld.ways), w, 1, 64, NULL, "associativity" },                    \
    { sec, "block", T_BYTES, OFF(fld.block), "64", 64, 64, NULL,                                 \
      "block size (the memory system moves 64-byte blocks)" },                                   \
    { sec, "latency", T_CYCLES, OFF(fld.latency), lat, 1, 1000, NULL,                             \
      "hit latency, CPU cycles (L2: from the request, L1 included; L3: the slice's access)" },    \
    { sec, "mshr", T_COUNT, OFF(fld.mshr), m, 1, 1024, NULL,                                     \
      "outstanding misses (L2: the core's, its L1s' included; an L1's below it, at most 64: that many blocks " \
      "missing, it takes no other; L3: memory reads per slice)" }

/* The GPU hierarchy's caches (seed 000 Table 4.1 and the settings of
 * M2S-CGM's cgm-config.ini, [GPU_V_Cache] and [GPU_L2_Cache]). */
#define GPU_CACHE_KEYS(sec, fld, sz, w, lat, m, co, what, per)                                    \
    { sec, "size", T_BYTES, OFF(fld.size), sz, 1024, 1ull << 30, NULL, what ": capacity" },      \
    { sec, "ways", T_COUNT, OFF(fld.ways), w, 1, 64, NULL, "associativity (64-byte blocks)" },    \
    { sec, "latency", T_CYCLES, OFF(fld.latency), lat, 1, 1000, NULL,                            \
      "GPU cycles: L1 from a request to a hit's answer; L2 from a message to its answer" },       \
    { sec, "mshr", T_COUNT, OFF(fld.mshr), m, 1, 1024, NULL, "outstanding misses, " per },         \
    { sec, "coalescer", T_COUNT, OFF(fld.coalescer), co, 1, 4096, NULL,                            \
      "requests parked behind outstanding misses, " per " (seed 000 Sec. 4.5's coalescer size)" }

/* [energy.*]: femtojoules per event and per cycle (replay/energy.c).
 * Defaults: M. Horowitz, "Computing's energy problem", ISSCC 2014 (45 nm):
 * an instruction's overhead in a simple core about 70 pJ, a 64-bit read of
 * a 32 KB SRAM 20 pJ and of a 1 MB one 100 pJ; a 32-bit integer add 0.1 pJ,
 * a 32-bit FP multiply 3.7 pJ and add 0.9 pJ (a compute unit's lane: the
 * arithmetic only, no instruction fetch or register file), an LDS lane half
 * a 64-bit read of a 32 KB SRAM. DRAM energy comes from the preset's IDD
 * currents (models/dram/dram_presets.c). Where no published figure fits
 * (passive rates), the default is 0. */
#define EFJ(sec, name, fld, def, doc) { sec, name, T_COUNT, OFF(energy.fld), def, 0, 1ull << 40, NULL, doc }
#define ENERGY_CACHE_KEYS(sec, k, access)                                                           \
    EFJ(sec, "read", cache[k][RP_E_READ], access, "fJ per access that reads (the data array)"),      \
    EFJ(sec, "write", cache[k][RP_E_WRITE], access, "fJ per access that writes (stores; the data array)"), \
    EFJ(sec, "tag", cache[k][RP_E_TAG], "0", "fJ per access's tag lookup (read and write include it by default)"), \
    EFJ(sec, "fill", cache[k][RP_E_FILL], "0", "fJ per miss (the block's fill)"),                    \
    EFJ(sec, "writeback", cache[k][RP_E_WRITEBACK], "0", "fJ per write-back"),                      \
    EFJ(sec, "passive", cache[k][RP_E_CACHE_PASSIVE], "0", "fJ per CPU cycle of the run")
#define ENERGY_KEYS                                                                                 \
    { "energy", "enable", T_COUNT, OFF(energy.enable), "0", 0, 1, NULL,                              \
      "1: energy and power per element, per part and in total in the statistics (\"energy\")" },     \
    EFJ("energy.core", "int", core_class[RP_UC_INT], "70100", "fJ per committed integer micro-op (70 pJ + a 32-bit add)"), \
    EFJ("energy.core", "mul", core_class[RP_UC_MUL], "73100", "fJ per committed multiply (70 pJ + a 32-bit multiply)"), \
    EFJ("energy.core", "div", core_class[RP_UC_DIV], "70000", "fJ per committed divide (70 pJ; no published figure for the divide)"), \
    EFJ("energy.core", "fp", core_class[RP_UC_FP], "73700", "fJ per committed x87 micro-op (70 pJ + a 32-bit FP multiply)"), \
    EFJ("energy.core", "simd", core_class[RP_UC_SIMD], "73600", "fJ per committed SSE/AVX micro-op (70 pJ + four 32-bit FP adds)"), \
    EFJ("energy.core", "branch", core_class[RP_UC_BRANCH], "70000", "fJ per committed branch, jump, call or return"), \
    EFJ("energy.core", "uop", core_class[RP_UC_OTHER], "70000", "fJ per other committed micro-op (system calls, fences, nops, ...)"), \
    EFJ("energy.core", "load", core_load, "70000", "fJ per committed load micro-op (the L1 access apart)"), \
    EFJ("energy.core", "store", core_store, "70000", "fJ per committed store micro-op (the L1 access apart)"), \
    EFJ("energy.core", "passive", core_passive, "0", "fJ per cycle that committed nothing"),       \
    ENERGY_CACHE_KEYS("energy.l1i", RP_E_L1I, "20000"),                                               \
    ENERGY_CACHE_KEYS("energy.l1d", RP_E_L1D, "20000"),                                               \
    ENERGY_CACHE_KEYS("energy.l2", RP_E_L2, "100000"),                                                \
    ENERGY_CACHE_KEYS("energy.l3", RP_E_L3, "100000"),                                                \
    ENERGY_CACHE_KEYS("energy.gpu_l1v", RP_E_GPU_L1V, "20000"),                                       \
    ENERGY_CACHE_KEYS("energy.gpu_l2", RP_E_GPU_L2, "100000"),                                        \
    ENERGY_CACHE_KEYS("energy.gpu_scalar", RP_E_GPU_SCALAR, "20000"),                                 \
    EFJ("energy.ring", "hop", ring_hop, "0", "fJ per packet through a switch"),                     \
    EFJ("energy.ring", "flit", ring_flit, "0", "fJ per flit over a link (a link's busy cycle)"),    \
    EFJ("energy.ring", "passive", ring_passive, "0", "fJ per CPU cycle of the run"),                \
    { "energy.dram", "idd", T_COUNT, OFF(energy.dram_idd), "1", 0, 1, NULL,                          \
      "1: DRAM energy from the devices' IDD currents ([dram] VDD, IDD*) as DRAMPower; 0: from the rates below" }, \
    EFJ("energy.dram", "activate", dram_activate, "0", "with idd = 0: fJ per ACT"),                 \
    EFJ("energy.dram", "read", dram_read, "0", "with idd = 0: fJ per read burst"),                  \
    EFJ("energy.dram", "write", dram_write, "0", "with idd = 0: fJ per write burst"),               \
    EFJ("energy.dram", "precharge", dram_precharge, "0", "with idd = 0: fJ per PRE"),               \
    EFJ("energy.dram", "refresh", dram_refresh, "0", "with idd = 0: fJ per REF"),                   \
    EFJ("energy.dram", "passive", dram_passive, "0", "with idd = 0: fJ per DRAM cycle (background)"), \
    EFJ("energy.cu", "salu", cu[RP_E_SALU], "100", "fJ per scalar ALU instruction (a 32-bit add)"), \
    EFJ("energy.cu", "valu", cu[RP_E_VALU], "4600", "fJ per active lane of a vector ALU instruction (a 32-bit FP multiply-add)"), \
    EFJ("energy.cu", "smem", cu[RP_E_SMEM], "100", "fJ per scalar memory instruction (its address add; the cache's access apart)"), \
    EFJ("energy.cu", "vmem", cu[RP_E_VMEM], "100", "fJ per active lane of a vector memory instruction (its address add; the L1's apart)"), \
    EFJ("energy.cu", "lds", cu[RP_E_LDS], "10000", "fJ per active lane of an LDS instruction (32 bits of a 64 KB SRAM)"), \
    EFJ("energy.cu", "branch", cu[RP_E_BRANCH], "100", "fJ per branch instruction (a 32-bit add)"), \
    EFJ("energy.cu", "other", cu[RP_E_CU_OTHER], "0", "fJ per other wavefront instruction (barrier, waitcnt, end, ...)"), \
    EFJ("energy.cu", "passive", cu[RP_E_CU_PASSIVE], "0", "fJ per idle GPU cycle of the compute unit")

static const struct cgm_key keys[] = {
    { "cpu", "cores", T_COUNT, OFF(cores), "4", 1, 64, NULL, "cores" },
    { "cpu", "frequency", T_HZ, OFF(frequency), "4GHz", 1000000, 20000000000ull, NULL, "core clock" },
    { "cpu", "fetch_width", T_COUNT, OFF(fetch_width), "4", 1, 16, NULL, "instructions fetched per cycle" },
    { "cpu", "dispatch_width", T_COUNT, OFF(dispatch_width), "4", 1, 16, NULL, "micro-ops dispatched per cycle" },
    { "cpu", "issue_width", T_COUNT, OFF(issue_width), "6", 1, 16, NULL, "micro-ops issued per cycle" },
    { "cpu", "commit_width", T_COUNT, OFF(commit_width), "4", 1, 16, NULL, "micro-ops committed per cycle" },
    { "cpu", "fetch_queue", T_COUNT, OFF(fetch_queue), "32", 2, 1024, NULL,
      "micro-ops between fetch and dispatch (at least 2: a straddling access makes two)" },
    { "cpu", "fetch_lines", T_COUNT, OFF(fetch_lines), "4", 1, 64, NULL,
      "I-cache line fetches in flight at once (fetch is pipelined: it runs ahead of arriving lines)" },
    { "cpu", "rob_size", T_COUNT, OFF(rob_size), "128", 4, 4096, NULL, "reorder buffer entries" },
    { "cpu", "iq_size", T_COUNT, OFF(iq_size), "48", 1, 4096, NULL, "issue queue entries" },
    { "cpu", "lsq_size", T_COUNT, OFF(lsq_size), "48", 1, 4096, NULL, "load/store queue entries" },
    { "cpu", "alus", T_COUNT, OFF(alus), "4", 1, 16, NULL, "integer/FP/SIMD units (one op per cycle each)" },
    { "cpu", "mem_ports", T_COUNT, OFF(mem_ports), "2", 1, 16, NULL, "loads and stores issued per cycle" },
    { "cpu", "latency_int", T_CYCLES, OFF(lat_int), "1", 1, 1000, NULL, "integer ALU latency" },
    { "cpu", "latency_mul", T_CYCLES, OFF(lat_mul), "3", 1, 1000, NULL, "integer multiply latency" },
    { "cpu", "latency_div", T_CYCLES, OFF(lat_div), "20", 1, 1000, NULL, "integer divide latency (unpipelined)" },
    { "cpu", "latency_fp", T_CYCLES, OFF(lat_fp), "4", 1, 1000, NULL, "x87 latency" },
    { "cpu", "latency_simd", T_CYCLES, OFF(lat_simd), "3", 1, 1000, NULL, "SSE latency" },
    { "cpu", "latency_other", T_CYCLES, OFF(lat_other), "1", 1, 1000, NULL, "branches, nops, other" },
    { "cpu", "predictor", T_ENUM, OFF(predictor), "gshare", 0, 2, predictor_names,
      "branch predictor: counters indexed by address (bimodal), address xor history (gshare), or "
      "history bits above address bits (gselect)" },
    { "cpu", "predictor_entries", T_COUNT | POW2, OFF(predictor_entries), "4096", 2, 1u << 24, NULL,
      "2-bit counters (power of two)" },
    { "cpu", "history_bits", T_COUNT, OFF(history_bits), "12", 0, 24, NULL,
      "global history bits (gshare, gselect; gselect: fewer than log2 of the entries)" },
    { "cpu", "predictor_init", T_COUNT, OFF(predictor_init), "1", 0, 3, NULL,
      "initial counter value (0 strongly not taken .. 3 strongly taken)" },
    { "cpu", "mispredict_penalty", T_CYCLES, OFF(mispredict_penalty), "14", 0, 1000, NULL,
      "cycles from a mispredicted branch's resolution to fetch" },
    { "cpu", "syscall_latency", T_CYCLES, OFF(syscall_latency), "200", 0, 10000000, NULL,
      "system-call trap and return" },
    { "cpu", "quantum", T_CYCLES, OFF(quantum), "1000000", 1000, 1ull << 40, NULL,
      "time slice when threads outnumber cores" },
    CACHE_KEYS("cache.l1i", l1i, "32KiB", "8", "4", "16"),
    CACHE_KEYS("cache.l1d", l1d, "32KiB", "8", "4", "16"),
    CACHE_KEYS("cache.l2", l2, "256KiB", "8", "12", "16"),
    CACHE_KEYS("cache.l3", l3, "2MiB", "16", "20", "32"),
    { "cache.l3", "slices", T_COUNT | POW2, OFF(l3_slices), "4", 1, 64, NULL,
      "slices striped by block address (power of two); size is per slice" },
    { "coherence", "protocol", T_ENUM, OFF(coherence_protocol), "mesi", 0, CGM_COH_NPROTOCOLS - 1, protocol_names,
      "the protocol of the CPU's caches and the L3 directory (the GPU's caches run gpu.protocol; "
      "models/coh/README.md)" },
    { "network", "frequency", T_HZ, OFF(net_frequency), "2GHz", 1000000, 20000000000ull, NULL,
      "ring and system agent clock" },
    { "network", "queue_size", T_COUNT, OFF(net_queue), "8", 2, 1024, NULL, "packets per lane per input port" },
    { "network", "flit_bytes", T_BYTES, OFF(net_flit_bytes), "32", 1, 4096, NULL, "link width per cycle" },
    { "network", "latency", T_CYCLES, OFF(net_latency), "1", 1, 1000, NULL, "switch traversal, network cycles" },
    { "memory", "sa_latency", T_CYCLES, OFF(sa_latency), "4", 0, 10000, NULL,
      "system agent traversal, network cycles" },
    { "memory", "mc_queue", T_COUNT, OFF(mc_queue), "64", 1, 4096, NULL,
      "memory requests in flight at each memory controller" },
    { "memory", "controllers", T_COUNT, OFF(mem_controllers), "1", 1, 64, NULL,
      "memory controllers, each with DRAM of the [dram] keys behind a system agent on a ring switch of its "
      "own; physical addresses are spread over them by memory.interleave" },
    { "memory", "interleave", T_BYTES, OFF(mem_interleave), "64", 0, 1ull << 36, NULL,
      "consecutive bytes each controller holds (power of two, at least 64: 64 by block, 4KiB by page); "
      "0: one contiguous range per controller" },
    { "memory", "size", T_BYTES, OFF(mem_size), "256MiB", 1ull << 20, 1ull << 36, NULL,
      "physical memory modelled; guest pages are placed in it on first touch" },
    { "memory", "page_size", T_BYTES, OFF(page_size), "4KiB", 4096, 1ull << 30, NULL,
      "page size of the virtual-to-physical placement (power of two)" },
    { "tlb", "sets", T_COUNT | POW2, OFF(tlb_sets), "16", 1, 65536, NULL,
      "sets of each core's instruction and data TLB (power of two)" },
    { "tlb", "ways", T_COUNT, OFF(tlb_ways), "4", 1, 64, NULL, "TLB associativity" },
    { "tlb", "latency", T_CYCLES, OFF(tlb_latency), "1", 0, 1000, NULL,
      "TLB hit latency (overlapped with the L1 access: only the excess over it is charged)" },
    { "tlb", "walk_latency", T_CYCLES, OFF(walk_latency), "30", 0, 100000, NULL, "page walk on a TLB miss" },
    { "tlb", "soft_fault_latency", T_CYCLES, OFF(soft_fault_latency), "0", 0, 10000000, NULL,
      "extra cycles when the walk finds the page mapped" },
    { "tlb", "hard_fault_latency", T_CYCLES, OFF(hard_fault_latency), "0", 0, 100000000, NULL,
      "extra cycles for a page's first touch (the guest's page fault; 0: not charged)" },
    { "dram", "preset", T_MODEL, 0, "DDR3-1600", 0, 0, NULL, "the DRAM model's keys" },
    { "gpu", "compute_units", T_COUNT, OFF(gpu_cus), "8", 1, 64, NULL,
      "Southern Islands compute units (seed 000 Table 4.1)" },
    { "gpu", "frequency", T_HZ, OFF(gpu_frequency), "1GHz", 1000000, 20000000000ull, NULL,
      "GPU clock: compute units and GPU caches" },
    { "gpu", "memory", T_ENUM, OFF(gpu_memory), "hierarchy", 0, 1, gpu_memory_names,
      "hierarchy: vector L1s, L2 banks, hub, memory system ([gpu.l1], [gpu.l2]); ideal: "
      "[gpu.ideal_memory]" },
    { "gpu", "coherence", T_ENUM, OFF(gpu_coherence), "coherent", 0, 1, gpu_coherence_names,
      "hierarchy: the GPU on the CPU's pages (coherent) or on its own (noncoherent)" },
    { "gpu", "connection", T_ENUM, OFF(gpu_connection), "l3", 0, 1, gpu_connection_names,
      "hierarchy: GPU L2 misses go to the L3 or the memory controller (mc)" },
    { "gpu", "protocol", T_ENUM, OFF(gpu_protocol), "mesi", 0, CGM_COH_NPROTOCOLS - 1, protocol_names,
      "the protocol of the GPU's vector L1s and L2 banks (one with GPU controllers: models/coh/README.md)" },
    { "gpu", "link_bytes", T_BYTES, OFF(gpu_link_bytes), "32", 1, 4096, NULL,
      "hierarchy: the hub's link between the GPU L2 banks and the ring, bytes per GPU cycle each way" },
    { "gpu", "xbar_bytes", T_BYTES, OFF(gpu_xbar_bytes), "32", 1, 4096, NULL,
      "hierarchy: each crossbar port between the vector L1s and the L2 banks, bytes per GPU cycle each way "
      "(seed 000: 32)" },
    { "gpu", "hub_latency", T_CYCLES, OFF(gpu_hub_latency), "1", 0, 100000, NULL,
      "hierarchy: GPU cycles a packet spends crossing the hub (seed 000 Table 4.1: 1)" },
    { "gpu", "launch_latency", T_CYCLES, OFF(gpu_launch_latency), "0", 0, 100000000, NULL,
      "GPU cycles from a kernel's start to its first work-group's dispatch" },
    { "gpu", "dispatch_latency", T_CYCLES, OFF(gpu_dispatch_latency), "4", 0, 100000, NULL,
      "GPU cycles from a work-group's mapping onto a compute unit to its wavefronts' first fetch" },
    { "gpu", "copy_policy", T_ENUM, OFF(gpu_copy_policy), "launch", 0, 3, copy_policy_names,
      "buffers shared by pointer: launch (whole buffers the CPU wrote at a launch, the GPU's at gpu_done), or seed 004's "
      "batch, lazy, rolling (replay/gpu/adsm.h)" },
    { "gpu", "copy_block", T_BYTES, OFF(gpu_copy_block), "256KiB", 4096, 32ull << 20, NULL,
      "lazy, rolling: the block the copy protocol tracks and moves (4 KiB to 32 MiB)" },
    { "gpu", "fault_latency", T_CYCLES, OFF(gpu_fault_latency), "20000", 0, 100000000, NULL,
      "lazy, rolling: CPU cycles of a protection fault (signal, handler, mprotect) at a CPU access the protocol catches" },
    { "gpu", "rolling_size", T_COUNT, OFF(gpu_rolling_size), "2", 0, 1u << 20, NULL,
      "rolling: dirty blocks kept before the oldest goes to the GPU, plus rolling_growth per buffer allocated" },
    { "gpu", "rolling_growth", T_COUNT, OFF(gpu_rolling_growth), "2", 0, 1024, NULL,
      "rolling: blocks the rolling size grows by at each allocation (seed 004 Sec. 6.3.3: 2; 0: a fixed size)" },
    { "gpu", "attach", T_ENUM, OFF(gpu_attach), "integrated", 0, 1, attach_names,
      "integrated: copies are CPU loads, stores and flushes (seed 000); discrete: DMA over [pcie], L2 misses to [gpu.dram]" },
    { "pcie", "lanes", T_COUNT, OFF(pcie_lanes), "16", 1, 64, NULL, "discrete: lanes of the GPU's link" },
    { "pcie", "lane_mbps", T_COUNT, OFF(pcie_lane_mbps), "500", 1, 1000000, NULL,
      "discrete: MB/s per lane and direction (PCIe 2.0: 500)" },
    { "pcie", "latency", T_COUNT, OFF(pcie_latency), "1000", 0, 100000000, NULL,
      "discrete: nanoseconds from a byte's departure to its arrival (a transfer pays it once)" },
    { "pcie", "max_payload", T_BYTES, OFF(pcie_max_payload), "256", 16, 4096, NULL,
      "discrete: data bytes per packet" },
    { "pcie", "packet_overhead", T_BYTES, OFF(pcie_packet_overhead), "24", 0, 4096, NULL,
      "discrete: header and framing bytes per packet" },
    { "pcie", "dma_burst", T_BYTES, OFF(pcie_dma_burst), "128", 64, 4096, NULL,
      "discrete: bytes the DMA engine reads from the host's L3 or memory at once (seed 004 Sec. 3.4.1: 128)" },
    { "gpu.dram", "preset", T_MODEL, 0, "GDDR5", 0, 0, NULL,
      "discrete: the GPU's own memory, the DRAM model's keys as in [dram]" },
    { "gpu.scalar_cache", "latency", T_CYCLES, OFF(gpu_scalar_latency), "2", 1, 1000, NULL,
      "hierarchy: GPU cycles of a scalar load (every one hits, as in seed 000); the cache is busy as long" },
    { "gpu.scalar_cache", "compute_units", T_COUNT, OFF(gpu_scalar_share), "1", 1, 64, NULL,
      "hierarchy: compute units sharing one scalar cache (seed 000: 1; SI hardware: up to 4)" },
    /* [gpu.tlb], [gpu.iommu]: the memory system's rows (cgm/memsys_keys.def) */
#define XLAT_ROW(section_, key, kind, field, def_, min_, max_, doc_)                                       \
    { section_, #key, (kind) | CGM_KEY_U32, OFF(memsys.field), def_, min_, max_, NULL, doc_ },
#define NONE(key, kind, field, def_, min_, max_, doc_)
#define CGM_MEMSYS_KEY NONE
#define CGM_MEMSYS_GPU_KEY NONE
#define CGM_MEMSYS_XLAT_KEY XLAT_ROW
#include "cgm/memsys_keys.def"
#undef CGM_MEMSYS_KEY
#undef CGM_MEMSYS_GPU_KEY
#undef CGM_MEMSYS_XLAT_KEY
    { "gpu.cu", "simds", T_COUNT, OFF(cu.simds), "4", 1, 16, NULL,
      "SIMD units, each fed by its own wavefront pool (one pool issues per cycle, in turn)" },
    { "gpu.cu", "simd_lanes", T_COUNT, OFF(cu.simd_lanes), "16", 1, 64, NULL,
      "lanes per SIMD: a 64-lane vector instruction occupies its SIMD 64 / lanes cycles" },
    { "gpu.cu", "wavefronts_per_simd", T_COUNT, OFF(cu.wavefronts_per_simd), "10", 1, 64, NULL,
      "wavefront slots of each pool" },
    { "gpu.cu", "vgprs_per_simd", T_COUNT, OFF(cu.vgprs_per_simd), "256", 1, 65536, NULL,
      "vector registers (per lane) a SIMD's wavefronts share" },
    { "gpu.cu", "sgprs_per_simd", T_COUNT, OFF(cu.sgprs_per_simd), "512", 1, 65536, NULL,
      "scalar registers a SIMD's wavefronts share" },
    { "gpu.cu", "max_work_groups", T_COUNT, OFF(cu.max_work_groups), "40", 1, 1024, NULL,
      "work-groups resident at once" },
    { "gpu.cu", "lds_size", T_BYTES, OFF(cu.lds_size), "64KiB", 1024, 1ull << 20, NULL,
      "local data share the resident work-groups divide" },
    { "gpu.cu", "lds_alloc", T_BYTES, OFF(cu.lds_alloc), "64", 1, 65536, NULL,
      "LDS allocation granule (a work-group's LDS is rounded up to it)" },
    { "gpu.cu", "lds_banks", T_COUNT, OFF(cu.lds_banks), "32", 1, 64, NULL,
      "LDS banks of 4 bytes; a half-wavefront's accesses take one cycle per access to the busiest bank" },
    { "gpu.cu", "lds_latency", T_CYCLES, OFF(cu.lds_latency), "2", 0, 10000, NULL,
      "LDS access latency beyond its bank cycles" },
    { "gpu.cu", "lds_queue", T_COUNT, OFF(cu.lds_queue), "16", 1, 1024, NULL,
      "LDS instructions waiting for or in the LDS" },
    { "gpu.cu", "fetch_width", T_COUNT, OFF(cu.fetch_width), "4", 1, 64, NULL,
      "instructions fetched per pool per cycle (one per wavefront)" },
    { "gpu.cu", "fetch_buffer", T_COUNT, OFF(cu.fetch_buffer), "10", 1, 64, NULL,
      "fetched instructions a pool holds until issue" },
    { "gpu.cu", "fetch_latency", T_CYCLES, OFF(cu.fetch_latency), "5", 0, 1000, NULL,
      "cycles from fetch until the instruction may issue" },
    { "gpu.cu", "scalar_latency", T_CYCLES, OFF(cu.scalar_latency), "4", 1, 1000, NULL,
      "scalar ALU instruction (and s_waitcnt, s_barrier, s_endpgm, s_nop) from issue to completion" },
    { "gpu.cu", "branch_latency", T_CYCLES, OFF(cu.branch_latency), "4", 1, 1000, NULL,
      "branch from issue to completion" },
    { "gpu.cu", "vmem_buffer", T_COUNT, OFF(cu.vmem_buffer), "32", 1, 64, NULL,
      "vector memory instructions in flight in the vector memory unit" },
    { "gpu.cu", "vmem_requests_per_cycle", T_COUNT, OFF(cu.vmem_requests_per_cycle), "1", 1, 128, NULL,
      "block requests the vector memory unit sends per cycle" },
    { "gpu.cu", "coalescing", T_ENUM, OFF(cu.coalescer), "per-instruction", 0, 2, coalescer_names,
      "per-instruction: a request per block the lanes touch; l1-mshr: per lane, for the L1's MSHR (M2S-CGM); "
      "hardware: stores per 16-lane subwavefront (SI); also: coalescer" },
    { "gpu.cu", "nonblocking_stores", T_COUNT, OFF(cu.nonblocking_stores), "0", 0, 1, NULL,
      "1: a store gives its vector memory buffer entry back once its requests are sent, in program order "
      "(vmcnt still waits for it; seed 001 Sec. 3.5.3); 0: when answered" },
    { "gpu.cu", "waitcnt", T_ENUM, OFF(cu.waitcnt), "counts", 0, 1, waitcnt_names,
      "s_waitcnt waits for its vmcnt/lgkmcnt counts, or (drain, M2S-CGM) for every outstanding access" },
    GPU_CACHE_KEYS("gpu.l1", gpu_l1, "16KiB", "4", "1", "16", "32",
                   "vector L1 of each compute unit", "per compute unit"),
    { "gpu.l1", "virtual", T_ENUM, OFF(gpu_l1_virtual), "no", 0, 1, no_yes_names, /* seed 002 Sec. 2.5 */
      "hierarchy: yes: virtually indexed and tagged vector L1s; what needs the L2 is translated by one shared TLB" },
    GPU_CACHE_KEYS("gpu.l2", gpu_l2, "64KiB", "16", "3", "32", "64",
                   "L2 bank (striped by block)", "per bank"),
    { "gpu.l2", "banks", T_COUNT | CGM_KEY_POW2_OR_0, OFF(gpu_l2_banks), "0", 0, 64, NULL,
      "L2 banks, a power of two; 0: one per four compute units, at least one (seed 000 Sec. 4.4.1)" },
    { "gpu.l2", "interleave", T_BYTES | POW2, OFF(gpu_l2_interleave), "64", 64, 1ull << 26, NULL,
      "bytes of each stripe of the banks, a power of two (64: by block; 256 on SI, seed 001 Sec. 1.2.3)" },
    { "gpu.l2", "full_mshr", T_ENUM, OFF(gpu_l2_full_mshr), "wait", 0, 1, full_mshr_names,
      "a CU's request to a bank without a free MSHR or write-back entry: wait until one frees, or nack (the L1 "
      "retries 8 cycles later; seed 001 Sec. 3.5.1, 4.5.1)" },
    /* a bank's victims (seed 001 Ch. 6) */
    { "gpu.l2", "victim_policy", T_ENUM, OFF(gpu_l2_victim_policy), "early", 0, 1, victim_policy_names,
      "a miss whose victim must leave: early, fetch at once (the victim in the write-back queue); serialized, "
      "after it has left (seed 001 Fig. 6.2a)" },
    { "gpu.l2", "frc_entries", T_COUNT, OFF(gpu_l2_frc_entries), "0", 0, 512, NULL,
      "entries of each bank's Fetch-and-Replacement Cache (seed 001 Ch. 5-6): 0 none, else a power of two, "
      "4 to 512" },
    { "gpu.l2", "frc_ways", T_COUNT, OFF(gpu_l2_frc_ways), "8", 0, 512, NULL,
      "the FRC's ways, a power of two; 0 or at least frc_entries: fully associative (Sec. 6.4's 4 entries)" },
    { "gpu.l2", "frc_latency", T_CYCLES, OFF(gpu_l2_frc_latency), "1", 1, 1000, NULL,
      "GPU cycles the FRC's tag look-up (after the L2's) adds to a miss it takes" },
    { "gpu.l2", "frc_swap_latency", T_CYCLES, OFF(gpu_l2_frc_swap_latency), "3", 1, 1000, NULL,
      "GPU cycles from a block's arrival in the FRC to its swap with the L2's victim" },
    { "gpu.l2", "memory_controllers", T_COUNT, OFF(gpu_l2_mcs), "0", 0, 4, NULL,
      "1, 2 or 4: controllers of each bank's own, each with its [dram], a hub per bank (gpu.connection = mc; "
      "seed 001 Sec. 4.5.2); 0: memory.controllers" },
    { "gpu.ideal_memory", "latency", T_CYCLES, OFF(ideal_latency), "100", 0, 1000000, NULL,
      "GPU cycles from a vector request's transfer to its completion" },
    { "gpu.ideal_memory", "bytes_per_cycle", T_BYTES, OFF(ideal_bytes_per_cycle), "32", 1, 65536, NULL,
      "bytes per GPU cycle all vector requests share (32 at 1 GHz: seed 000 Table 4.1's 32 GB/s)" },
    { "gpu.ideal_memory", "scalar_latency", T_CYCLES, OFF(ideal_scalar_latency), "2", 0, 1000000, NULL,
      "scalar loads: a scalar cache that always hits (seed 000)" },
    ENERGY_KEYS,
    /* the memory system's own rows, into rp_config.memsys */
#define MEMSYS_ROW(key, kind, field, def_, min_, max_, doc_)                                              \
    { "memsys", #key, (kind) | CGM_KEY_U32, OFF(memsys.field), def_, min_, max_, NULL, doc_ },
#define SECTION_NONE(section_, key, kind, field, def_, min_, max_, doc_)
#define CGM_MEMSYS_KEY MEMSYS_ROW
#define CGM_MEMSYS_GPU_KEY MEMSYS_ROW
#define CGM_MEMSYS_XLAT_KEY SECTION_NONE
#include "cgm/memsys_keys.def"
#undef CGM_MEMSYS_KEY
#undef CGM_MEMSYS_GPU_KEY
#undef CGM_MEMSYS_XLAT_KEY
#undef MEMSYS_ROW
#undef SECTION_NONE
#undef XLAT_ROW
#undef NONE
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* Earlier names of keys, still read (and printed under the key's name). */
static const struct { const char *section, *name, *key; } aliases[] = {
    /* the compute unit's way of making requests, not the L1's coalescer (gpu.l1.coalescer) */
    { "gpu.cu", "coalescer", "coalescing" },
};

static void where(char *buf, size_t len, const char *source, int line)
{
    if (line > 0)
        snprintf(buf, len, "%s:%d", source, line);
    else
        snprintf(buf, len, "%s", source);
}

/* Formats a configuration error into err (truncated to errlen: the
 * location comes first, so a long value loses only its tail) and returns -1. */
__attribute__((format(printf, 3, 4)))
static int config_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* FNV-1a of "SECTION.KEY" (KEY NULL: of SECTION alone). */
static uint32_t name_hash(const char *section, const char *key)
{
    uint32_t h = 2166136261u;
    for (const char *p = section; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    if (key) {
        h = (h ^ '.') * 16777619u;
        for (const char *p = key; *p; p++)
            h = (h ^ (unsigned char)*p) * 16777619u;
    }
    return h;
}

/* The table's rows by name, open addressing (slot: row + 1, 0 empty): a
 * configuration file's keys are found in constant time each, as a sweep
 * starts replay with a file of every key once per point. Built on first
 * use; the table never changes. */
#define KEY_SLOTS 1024
_Static_assert(KEY_SLOTS >= 2 * NKEYS && (KEY_SLOTS & (KEY_SLOTS - 1)) == 0, "a power of two, at most half full");
static uint16_t key_slots[KEY_SLOTS];
static bool key_slots_built;

static const struct cgm_key *lookup_key(const char *section, const char *key)
{
    if (!key_slots_built) {
        key_slots_built = true;
        for (size_t i = 0; i < NKEYS; i++) {
            uint32_t h = name_hash(keys[i].section, keys[i].name) & (KEY_SLOTS - 1);
            while (key_slots[h])
                h = (h + 1) & (KEY_SLOTS - 1);
            key_slots[h] = (uint16_t)(i + 1);
        }
    }
    for (uint32_t h = name_hash(section, key) & (KEY_SLOTS - 1); key_slots[h]; h = (h + 1) & (KEY_SLOTS - 1)) {
        const struct cgm_key *k = &keys[key_slots[h] - 1];
        if (!strcmp(k->section, section) && !strcmp(k->name, key))
            return k;
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(aliases[i].section, section) && !strcmp(aliases[i].name, key))
            return lookup_key(section, aliases[i].key);
    return NULL;
}

/* The table's entry for SECTION.KEY, or NULL with an error naming AT
 * (SOURCE:LINE, written into AT for the caller's messages too). */
static const struct cgm_key *find_key(const char *section, const char *key, const char *source, int line,
                                  char at[512], char *err, size_t errlen)
{
    where(at, 512, source, line);
    const struct cgm_key *k = lookup_key(section, key);
    if (k)
        return k;
    bool section_known = false;
    for (size_t i = 0; i < NKEYS && !section_known; i++)
        section_known = !strcmp(keys[i].section, section);
    /* the nearest key of the section, or the nearest section (then its key
     * of the same name when there is one, else the nearest of its keys) */
    struct cgm_nearest near = { NULL, 0 };
    const char *near_section = section;
    if (!section_known) {
        struct cgm_nearest sec = { NULL, 0 };
        for (size_t i = 0; i < NKEYS; i++)
            if (!i || strcmp(keys[i].section, keys[i - 1].section))
                cgm_nearest_offer(&sec, section, keys[i].section);
        near_section = sec.best;
    }
    for (size_t i = 0; near_section && i < NKEYS; i++)
        if (!strcmp(keys[i].section, near_section))
            cgm_nearest_offer(&near, key, keys[i].name);
    char hint[256] = "";
    if (near.best && section_known)
        snprintf(hint, sizeof hint, " (did you mean %s?)", near.best);
    else if (near_section && !section_known && near.best)
        snprintf(hint, sizeof hint, " (did you mean %s.%s?)", near_section, near.best);
    else if (near_section && !section_known)
        snprintf(hint, sizeof hint, " (did you mean [%s]?)", near_section);
    if (!section_known)
        config_error(err, errlen, "%s: unknown section [%s] (key %s)%s", at, section, key, hint);
    else
        config_error(err, errlen, "%s: unknown key %s in [%s]%s", at, key, section, hint);
    return NULL;
}

/* A whole-number [dram] key as a row of this table (in TMP), so that sweeps
 * read and write it as they do every other number; NULL for [dram]'s
 * other keys. */
static const struct cgm_key *dram_number_key(const char *section, const char *key, struct cgm_key *tmp)
{
    unsigned min, max;
    if (!cgm_dram_config_uint_key(key, &min, &max))
        return NULL;
    *tmp = (struct cgm_key){ .section = section, .name = key, .type = T_COUNT, .min = min, .max = max };
    return tmp;
}

/* Whether SECTION holds the DRAM model's keys: [dram], the host's memory,
 * or [gpu.dram], a discrete GPU's own (one key table for both). */
static bool is_dram_section(const char *section)
{
    return !strcmp(section, "dram") || !strcmp(section, "gpu.dram");
}

static struct cgm_dram_config *dram_of(struct rp_config *c, const char *section)
{
    return strcmp(section, "dram") ? &c->gpu_dram : &c->dram;
}

int rp_config_apply(struct rp_config *c, const char *section, const char *key, const char *value,
                    const char *source, int line, char *err, size_t errlen)
{
    char at[512];
    if (is_dram_section(section)) {
        char why[256];
        where(at, sizeof at, source, line);
        if (cgm_dram_config_set_in(dram_of(c, section), section, key, value, why, sizeof why))
            return config_error(err, errlen, "%s: %s", at, why);
        return 0;
    }
    const struct cgm_key *k = find_key(section, key, source, line, at, err, errlen);
    if (!k)
        return -1;
    return cgm_key_set(k, c, value, at, err, errlen);
}

int rp_config_number(const char *section, const char *key, const char *text, uint64_t *value,
                     const char *source, int line, char *err, size_t errlen)
{
    char at[512];
    struct cgm_key tmp;
    const struct cgm_key *k;
    if (is_dram_section(section)) {
        where(at, sizeof at, source, line);
        k = dram_number_key(section, key, &tmp);
        if (!k)
            return config_error(err, errlen, "%s: %s.%s is not a key that takes a whole number", at, section, key);
    } else {
        k = find_key(section, key, source, line, at, err, errlen);
    }
    if (!k || CGM_KEY_TYPE(k) == T_ENUM || CGM_KEY_TYPE(k) == T_MODEL)
        return k ? config_error(err, errlen, "%s: %s.%s takes a name, not a number", at, section, key) : -1;
    return cgm_key_number(k, text, at, value, err, errlen);
}

void rp_config_defaults(struct rp_config *c)
{
    memset(c, 0, sizeof *c);
    char err[256];
    for (size_t i = 0; i < NKEYS; i++)
        if (rp_config_apply(c, keys[i].section, keys[i].name, keys[i].def, "default", 0, err, sizeof err))
            abort(); /* a bad default is a programming error */
}

/* The configuration file's lines, as inih reads them. inih splits a line
 * longer than its buffer and reads the rest as a line of its own (a long
 * comment could set a key), and reads an indented line as the previous
 * value's continuation: here a long line is an error, indentation is
 * only indentation, and a section or key given twice is an error. */
struct load_ctx {
    struct rp_config *c;
    FILE *f;
    int line;                    /* of the line inih is parsing */
    char *err;
    size_t errlen;
    bool failed;
    int error_line;              /* of the first error */
    /* "section" and "section.key" given so far (NKEYS does not count the
     * DRAM model's keys), found by name through seen_slots (as key_slots) */
    char seen[NKEYS + 256][2 * 64 + 2];
    int seen_line[NKEYS + 256];
    size_t nseen;
    uint16_t seen_slots[2 * KEY_SLOTS];
    bool first_pass;             /* only [dram] preset is applied */
};

static int load_error(struct load_ctx *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Keeps the first error, at the line being read. */
static int load_error(struct load_ctx *l, const char *fmt, ...)
{
    if (!l->failed) {
        int n = snprintf(l->err, l->errlen, "%d: ", l->line);
        va_list ap;
        va_start(ap, fmt);
        if (n > 0 && (size_t)n < l->errlen)
            vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
        va_end(ap);
        l->failed = true;
        l->error_line = l->line;
    }
    return 0;
}

/* Records NAME ("section" or "section.key") as given at this line; an
 * error when it was given before. */
static void once(struct load_ctx *l, const char *what, const char *name)
{
    _Static_assert(sizeof l->seen / sizeof l->seen[0] <= KEY_SLOTS, "seen_slots at most half full");
    const uint32_t mask = 2 * KEY_SLOTS - 1;
    uint32_t h = name_hash(name, NULL) & mask;
    for (; l->seen_slots[h]; h = (h + 1) & mask) {
        size_t i = l->seen_slots[h] - 1u;
        if (!strcmp(l->seen[i], name)) {
            load_error(l, "%s %s is given twice (first at line %d)", what, name, l->seen_line[i]);
            return;
        }
    }
    if (l->nseen < sizeof l->seen / sizeof l->seen[0]) {
        snprintf(l->seen[l->nseen], sizeof l->seen[0], "%s", name);
        l->seen_line[l->nseen++] = l->line;
        l->seen_slots[h] = (uint16_t)l->nseen;
    }
}

static char *read_line(char *str, int num, void *stream)
{
    struct load_ctx *l = stream;
    if (!fgets(str, num, l->f))
        return NULL;
    l->line++;
    size_t n = strlen(str);
    if (n && str[n - 1] != '\n') {
        int next = fgetc(l->f);
        if (next != EOF && next != '\n') {
            load_error(l, "the line is longer than %d characters", num - 2);
            while (next != EOF && next != '\n')
                next = fgetc(l->f);
            str[0] = 0;
            return str;
        }
    }
    size_t lead = strspn(str, " \t");
    memmove(str, str + lead, n - lead + 1);
    if (str[0] == '[' && !l->first_pass) {
        char name[64];
        size_t k = strcspn(str + 1, "]");
        if (k < sizeof name && str[1 + k] == ']') {
            snprintf(name, sizeof name, "%.*s", (int)k, str + 1);
            once(l, "section", name);
        }
    }
    return str;
}

/* [dram] preset (and [gpu.dram]'s) is applied before the file's other keys, wherever it is. */
static bool first_pass_key(const char *section, const char *name)
{
    return is_dram_section(section) && !strcasecmp(name, "preset");
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    struct load_ctx *l = user;
    char msg[512], dotted[2 * 64 + 2];
    const struct cgm_key *k = !is_dram_section(section) ? lookup_key(section, name) : NULL;
    snprintf(dotted, sizeof dotted, "%s.%s", section, k ? k->name : name); /* an alias is its key */
    if (!l->first_pass)
        once(l, "key", dotted);
    if (first_pass_key(section, name) != l->first_pass)
        return 1;
    /* The line is not known here; ini_parse returns it when we refuse. */
    if (rp_config_apply(l->c, section, name, value, "", 0, msg, sizeof msg)) {
        /* ini_parse goes on and reports the first refused line: keep the
         * first message so that line and message agree. */
        return load_error(l, "%s", msg + 2); /* drop the empty location ": " */
    }
    return 1;
}

int rp_config_load(struct rp_config *c, const char *path, char *err, size_t errlen)
{
    char why[512];
    FILE *f = cgm_fopen_input(path, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "configuration %s", why);
        return -1;
    }
    char msg[512] = "";
    struct load_ctx *l = calloc(1, sizeof *l);
    if (!l) {
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    /* Two passes, the "given twice" checks in the second only. */
    *l = (struct load_ctx){ .c = c, .f = f, .err = msg, .errlen = sizeof msg, .first_pass = true };
    int rc = ini_parse_stream(read_line, l, on_key, l);
    if (rc == 0 && !l->failed) {
        rewind(f);
        l->line = 0;
        l->first_pass = false;
        rc = ini_parse_stream(read_line, l, on_key, l);
    }
    fclose(f);
    /* the first error: one found here, or a line inih could not parse */
    bool failed = l->failed && !(rc > 0 && rc < l->error_line);
    free(l);
    if (rc == 0 && !failed)
        return 0;
    if (failed)
        snprintf(err, errlen, "%s:%s", path, msg);
    else if (rc > 0)
        snprintf(err, errlen, "%s:%d: malformed line (expected [section] or key = value)", path, rc);
    else
        snprintf(err, errlen, "%s: cannot read configuration", path);
    return -1;
}

int rp_config_set(struct rp_config *c, const char *assignment, char *err, size_t errlen)
{
    const char *eq = strchr(assignment, '=');
    const char *dot = NULL;
    for (const char *p = assignment; eq && p < eq; p++)
        if (*p == '.')
            dot = p;
    if (!eq || !dot || dot == assignment || dot + 1 == eq) {
        snprintf(err, errlen, "--set %s: expected SECTION.KEY=VALUE", assignment);
        return -1;
    }
    char section[64], key[64];
    size_t sl = (size_t)(dot - assignment), kl = (size_t)(eq - dot - 1);
    if (sl >= sizeof section || kl >= sizeof key) {
        snprintf(err, errlen, "--set %s: name too long", assignment);
        return -1;
    }
    memcpy(section, assignment, sl);
    section[sl] = 0;
    memcpy(key, dot + 1, kl);
    key[kl] = 0;
    return rp_config_apply(c, section, key, eq + 1, "--set", 0, err, errlen);
}

static int check_geometry(const char *name, uint64_t size, uint64_t ways, uint64_t block, char *err,
                          size_t errlen)
{
    uint64_t set_bytes = ways * block;
    if (size % set_bytes || !cgm_pow2(size / set_bytes)) {
        snprintf(err, errlen, "%s.size: %" PRIu64 " bytes is not a power-of-two number of sets of %" PRIu64
                 " ways x %" PRIu64 " bytes", name, size, ways, block);
        return -1;
    }
    return 0;
}

static int check_cache(const char *name, const struct rp_cache_cfg *k, char *err, size_t errlen)
{
    return check_geometry(name, k->size, k->ways, k->block, err, errlen);
}

int rp_config_check(const struct rp_config *c, char *err, size_t errlen)
{
    if (check_cache("cache.l1i", &c->l1i, err, errlen) || check_cache("cache.l1d", &c->l1d, err, errlen) ||
        check_cache("cache.l2", &c->l2, err, errlen) || check_cache("cache.l3", &c->l3, err, errlen) ||
        check_geometry("gpu.l1", c->gpu_l1.size, c->gpu_l1.ways, 64, err, errlen) ||
        check_geometry("gpu.l2", c->gpu_l2.size, c->gpu_l2.ways, 64, err, errlen))
        return -1;
    /* the rules the rows declare (powers of two) */
    if (cgm_keys_check(keys, NKEYS, c, err, errlen))
        return -1;
    if (c->gpu_l2_mcs && c->gpu_attach == RP_GPU_DISCRETE) {
        snprintf(err, errlen, "gpu.l2.memory_controllers: %" PRIu64 " with gpu.attach = discrete: the discrete GPU's "
                 "L2 misses go to its own memory ([gpu.dram]), leave it at 0", c->gpu_l2_mcs);
        return -1;
    }
    if (c->gpu_l2_mcs && (!cgm_pow2(c->gpu_l2_mcs) || c->gpu_connection != RP_GPU_TO_MC ||
                          c->mem_controllers != 1)) {
        snprintf(err, errlen, "gpu.l2.memory_controllers: %" PRIu64 " must be 0, 1, 2 or 4, with gpu.connection = mc "
                 "and memory.controllers left at 1 (it sets the controllers and their interleave)", c->gpu_l2_mcs);
        return -1;
    }
    const struct cgm_coh_protocol *gp = cgm_coh_protocols[c->gpu_protocol];
    if (!gp->ops[CGM_NODE_GPU_L1] || !gp->ops[CGM_NODE_GPU_L2]) {
        snprintf(err, errlen, "gpu.protocol: %s has no controllers for the GPU's caches (it is for "
                 "coherence.protocol; the GPU's run mesi beside it)", gp->name);
        return -1;
    }
    const struct cgm_coh_protocol *cp = cgm_coh_protocols[c->coherence_protocol];
    if (!cp->ops[CGM_NODE_CORE] || !cp->ops[CGM_NODE_SLICE]) {
        snprintf(err, errlen, "coherence.protocol: %s has no controllers for the cores' caches (it is for "
                 "gpu.protocol)", cp->name);
        return -1;
    }
    if ((c->gpu_copy_policy != RP_COPY_LAUNCH || c->gpu_attach == RP_GPU_DISCRETE) &&
        (c->gpu_memory != RP_GPU_MEM_HIERARCHY || c->gpu_coherence != RP_GPU_NONCOHERENT)) {
        snprintf(err, errlen, "gpu.%s: %s needs the GPU's data on pages of their own (gpu.memory = hierarchy, "
                 "gpu.coherence = noncoherent)", c->gpu_attach == RP_GPU_DISCRETE ? "attach" : "copy_policy",
                 c->gpu_attach == RP_GPU_DISCRETE ? "discrete" : copy_policy_names[c->gpu_copy_policy]);
        return -1;
    }
    if (cp->self_invalidating != gp->self_invalidating) {
        const struct cgm_coh_protocol *si = cp->self_invalidating ? cp : gp;
        snprintf(err, errlen, "%s: %s keeps no directory and runs every cache: set coherence.protocol and "
                 "gpu.protocol both to it", cp->self_invalidating ? "coherence.protocol" : "gpu.protocol", si->name);
        return -1;
    }
    if (cp->self_invalidating && c->gpu_connection != 1) {
        snprintf(err, errlen, "gpu.connection: %s writes the GPU's caches through to the L3: it needs gpu.connection = l3",
                 cp->name);
        return -1;
    }
    if (c->gpu_l1_virtual && (c->memsys.gpu_tlb_shared_entries % c->memsys.gpu_tlb_ways ||
                              !cgm_pow2(c->memsys.gpu_tlb_shared_entries / c->memsys.gpu_tlb_ways))) {
        snprintf(err, errlen, "gpu.tlb.shared_entries: %u entries are not a power of two sets of "
                 "gpu.tlb.ways = %u", c->memsys.gpu_tlb_shared_entries, c->memsys.gpu_tlb_ways);
        return -1;
    }
    if (c->predictor == RP_GSELECT && (1ull << c->history_bits) >= c->predictor_entries) {
        snprintf(err, errlen, "cpu.history_bits: %" PRIu64 " leaves no address bits in %" PRIu64
                 " gselect entries", c->history_bits, c->predictor_entries);
        return -1;
    }
    if (!cgm_pow2(c->page_size) || c->mem_size % c->page_size) {
        snprintf(err, errlen, "memory.page_size: %" PRIu64 " must be a power of two dividing memory.size",
                 c->page_size);
        return -1;
    }
    if (c->mem_interleave && (!cgm_pow2(c->mem_interleave) || c->mem_interleave < 64)) {
        snprintf(err, errlen, "memory.interleave: %" PRIu64 " must be 0 (contiguous ranges) or a power of two "
                 "of at least a 64-byte block", c->mem_interleave);
        return -1;
    }
    if (c->mem_interleave > c->mem_size / c->mem_controllers) {
        snprintf(err, errlen, "memory.interleave: %" PRIu64 " leaves some of memory.controllers = %" PRIu64
                 " without memory: runs of at most memory.size / memory.controllers (%" PRIu64 ") give each "
                 "one some", c->mem_interleave, c->mem_controllers, c->mem_size / c->mem_controllers);
        return -1;
    }
    char why[256];
    if (cgm_dram_config_validate(&c->dram, why, sizeof why)) {
        snprintf(err, errlen, "[dram]: %s", why);
        return -1;
    }
    if (cgm_dram_config_validate(&c->gpu_dram, why, sizeof why)) {
        snprintf(err, errlen, "[gpu.dram]: %s", why);
        return -1;
    }
    /* The memory system has one L1 latency and one MSHR file per core. */
    if (c->l1i.latency != c->l1d.latency) {
        snprintf(err, errlen, "cache.l1i.latency: must equal cache.l1d.latency (%" PRIu64
                 "): the memory system has one L1 latency", c->l1d.latency);
        return -1;
    }
    for (int k = 0; k < 2; k++) {
        uint64_t l1 = k ? c->l1d.mshr : c->l1i.mshr;
        if (l1 < c->l2.mshr && l1 > 64) {
            snprintf(err, errlen, "cache.%s.mshr: %" PRIu64 " below cache.l2.mshr (%" PRIu64 ") must be at most 64",
                     k ? "l1d" : "l1i", l1, c->l2.mshr);
            return -1;
        }
    }
    if (c->l2.latency <= c->l1d.latency) {
        snprintf(err, errlen, "cache.l2.latency: %" PRIu64 " must exceed cache.l1d.latency (%" PRIu64
                 "): it counts from the request, the L1 lookup included", c->l2.latency, c->l1d.latency);
        return -1;
    }
    return 0;
}

const char *rp_config_key_name(const char *section, const char *key)
{
    const struct cgm_key *k = !is_dram_section(section) ? lookup_key(section, key) : NULL;
    return k ? k->name : key;
}

int rp_config_format(const char *section, const char *key, uint64_t value, char *buf, size_t len)
{
    char err[256], at[512];
    struct cgm_key tmp;
    const struct cgm_key *k = is_dram_section(section) ? dram_number_key(section, key, &tmp)
                                                   : find_key(section, key, "", 0, at, err, sizeof err);
    if (!k || CGM_KEY_TYPE(k) == T_ENUM || CGM_KEY_TYPE(k) == T_MODEL)
        return -1;
    cgm_key_format(CGM_KEY_TYPE(k), value, buf, len);
    return 0;
}

void rp_config_print(const struct rp_config *c, FILE *out)
{
    const char *section = "";
    for (size_t i = 0; i < NKEYS; i++) {
        const struct cgm_key *k = &keys[i];
        if (strcmp(section, k->section)) {
            fprintf(out, "%s[%s]\n", i ? "\n" : "", k->section);
            section = k->section;
        }
        if (CGM_KEY_TYPE(k) == T_MODEL) {
            cgm_dram_config_print(strcmp(k->section, "dram") ? &c->gpu_dram : &c->dram, out);
            continue;
        }
        cgm_key_print(k, c, out);
    }
}
