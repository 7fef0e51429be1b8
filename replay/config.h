/* The replay configuration: one table of every key (section, name, type,
 * unit, range, default), read from an INI file with libinih and from
 * --set overrides, printed back as INI. */
#ifndef REPLAY_CONFIG_H
#define REPLAY_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cgm/dram.h"
#include "cgm/memsys.h"

enum rp_predictor { RP_BIMODAL, RP_GSHARE, RP_GSELECT };

struct rp_cache_cfg {
    uint64_t size, ways, block, latency, mshr;
};

/* Committed micro-ops that are neither loads nor stores, by class (a core's
 * uops_by_class, shown with [energy] only). */
enum rp_uop_class { RP_UC_INT, RP_UC_MUL, RP_UC_DIV, RP_UC_FP, RP_UC_SIMD, RP_UC_BRANCH, RP_UC_OTHER, RP_UC_COUNT };

/* Energy profiles, femtojoules per event and per cycle (replay/energy.h). */
enum rp_energy_cache { RP_E_L1I, RP_E_L1D, RP_E_L2, RP_E_L3, RP_E_GPU_L1V, RP_E_GPU_L2, RP_E_GPU_SCALAR,
                       RP_E_CACHE_KINDS };
enum rp_energy_cache_event { RP_E_READ, RP_E_WRITE, RP_E_TAG, RP_E_FILL, RP_E_WRITEBACK, RP_E_CACHE_PASSIVE, RP_E_CACHE_EVENTS };
enum rp_energy_cu_event { RP_E_SALU, RP_E_VALU, RP_E_SMEM, RP_E_VMEM, RP_E_LDS, RP_E_BRANCH, RP_E_CU_OTHER,
                          RP_E_CU_PASSIVE, RP_E_CU_EVENTS };
struct rp_energy_cfg {
    uint64_t enable;
    uint64_t core_class[RP_UC_COUNT], core_load, core_store, core_passive;
    uint64_t cache[RP_E_CACHE_KINDS][RP_E_CACHE_EVENTS];
    uint64_t ring_hop, ring_flit, ring_passive;
    uint64_t dram_idd, dram_activate, dram_read, dram_write, dram_precharge, dram_refresh, dram_passive;
    uint64_t cu[RP_E_CU_EVENTS];
};

struct rp_config {
    /* [cpu] */
    uint64_t cores, frequency;
    uint64_t fetch_width, dispatch_width, issue_width, commit_width;
    uint64_t fetch_queue, fetch_lines, rob_size, iq_size, lsq_size;
    uint64_t alus, mem_ports;
    uint64_t lat_int, lat_mul, lat_div, lat_fp, lat_simd, lat_other;
    uint64_t predictor, predictor_entries, history_bits, predictor_init, mispredict_penalty;
    uint64_t syscall_latency, quantum;
    /* caches */
    struct rp_cache_cfg l1i, l1d, l2, l3;
    uint64_t l3_slices;
    /* [coherence]; gpu.protocol: protocols by id (cgm/coh_protocols.def) */
    uint64_t coherence_protocol, gpu_protocol;
    /* [network] */
    uint64_t net_frequency, net_queue, net_flit_bytes, net_latency;
    /* [memory]: system agents, controllers, physical memory */
    uint64_t sa_latency, mc_queue, mem_controllers, mem_interleave, mem_size, page_size;
    /* [tlb]: one instruction and one data TLB per core */
    uint64_t tlb_sets, tlb_ways, tlb_latency, walk_latency, soft_fault_latency, hard_fault_latency;
    /* [dram]: the DRAM model's own keys (models/dram/dram_config.c) */
    struct cgm_dram_config dram;
    /* [gpu] */
    uint64_t gpu_cus, gpu_frequency;
    uint64_t gpu_memory, gpu_launch_latency, gpu_dispatch_latency;
    uint64_t gpu_coherence, gpu_connection, gpu_link_bytes, gpu_hub_latency, gpu_xbar_bytes;
    /* [gpu.scalar_cache]: the hierarchy's scalar caches */
    uint64_t gpu_scalar_latency, gpu_scalar_share;
    /* [gpu.tlb], [gpu.iommu]: rows of the memory system's, in memsys below */
    uint64_t gpu_l1_virtual; /* [gpu.l1] virtual */
    /* [gpu.l1], [gpu.l2]: the hierarchy's vector L1 (per CU) and L2 banks */
    struct rp_gpu_cache_cfg {
        uint64_t size, ways, latency, mshr, coalescer;
    } gpu_l1, gpu_l2;
    uint64_t gpu_l2_banks;         /* 0: one per four compute units (at least one, a power of two) */
    uint64_t gpu_l2_interleave;    /* bytes per stripe of the banks */
    uint64_t gpu_l2_full_mshr;     /* enum rp_full_mshr */
    uint64_t gpu_l2_mcs;           /* memory controllers per bank; 0: the shared ones (memory.controllers) */
    /* [gpu.l2] victims and the Fetch-and-Replacement Cache (seed 001 Ch. 5-6) */
    uint64_t gpu_l2_victim_policy; /* enum cgm_coh_victim_policy */
    uint64_t gpu_l2_frc_entries, gpu_l2_frc_ways, gpu_l2_frc_latency, gpu_l2_frc_swap_latency;
    /* [gpu.cu]: one Southern Islands compute unit */
    struct rp_cu_cfg {
        uint64_t simds, simd_lanes, wavefronts_per_simd, vgprs_per_simd, sgprs_per_simd;
        uint64_t max_work_groups, lds_size, lds_alloc, lds_banks, lds_latency, lds_queue;
        uint64_t fetch_width, fetch_buffer, fetch_latency, scalar_latency, branch_latency;
        uint64_t vmem_buffer, vmem_requests_per_cycle, coalescer, waitcnt, nonblocking_stores;
    } cu;
    /* [gpu] data movement: the copy protocol (replay/gpu/adsm.h) and how the GPU is attached */
    uint64_t gpu_copy_policy, gpu_copy_block, gpu_fault_latency, gpu_rolling_size, gpu_rolling_growth;
    uint64_t gpu_attach;
    /* [gpu.dram]: a discrete GPU's own memory, the DRAM model's keys as [dram] */
    struct cgm_dram_config gpu_dram;
    /* [pcie]: the discrete GPU's link and DMA engine (include/cgm/xfer.h) */
    uint64_t pcie_lanes, pcie_lane_mbps, pcie_latency, pcie_max_payload, pcie_packet_overhead, pcie_dma_burst;
    /* [gpu.ideal_memory]: the plain timed memory */
    uint64_t ideal_latency, ideal_bytes_per_cycle, ideal_scalar_latency;
    /* [energy], [energy.*]: the energy profiles (replay/energy.c) */
    struct rp_energy_cfg energy;
    /* [memsys], [gpu.tlb], [gpu.iommu]: the memory system's own keys
     * (cgm/memsys_keys.def); only the fields those rows name are set here */
    struct cgm_memsys_config memsys;
};

enum rp_gpu_memory { RP_GPU_MEM_HIERARCHY, RP_GPU_MEM_IDEAL };
enum rp_gpu_coherence { RP_GPU_NONCOHERENT, RP_GPU_COHERENT };
enum rp_gpu_connection { RP_GPU_TO_MC, RP_GPU_TO_L3 };
enum rp_gpu_attach { RP_GPU_INTEGRATED, RP_GPU_DISCRETE };
enum rp_coalescer { RP_COALESCE_INSTRUCTION, RP_COALESCE_L1_MSHR, RP_COALESCE_HARDWARE };
enum rp_waitcnt { RP_WAITCNT_COUNTS, RP_WAITCNT_DRAIN };
enum rp_full_mshr { RP_FULL_MSHR_WAIT, RP_FULL_MSHR_NACK };

/* Built-in defaults: seed 000 Sec. 3.4.1. */
void rp_config_defaults(struct rp_config *c);

/* Reads PATH over C. Errors name the file, line and key. Returns 0 or -1. */
int rp_config_load(struct rp_config *c, const char *path, char *err, size_t errlen);

/* Applies one "section.key=value" override (the section may hold dots:
 * cache.l1d.size=64KiB). Returns 0 or -1. */
int rp_config_set(struct rp_config *c, const char *assignment, char *err, size_t errlen);

/* Cross-key checks (powers of two, geometry that divides). Returns 0 or -1. */
int rp_config_check(const struct rp_config *c, char *err, size_t errlen);

/* Prints every key as INI with its type, unit and range as comments. */
void rp_config_print(const struct rp_config *c, FILE *out);

/* Sets one key from text; SOURCE/LINE only for messages (LINE 0: none). */
int rp_config_apply(struct rp_config *c, const char *section, const char *key, const char *value,
                    const char *source, int line, char *err, size_t errlen);

/* The number SECTION.KEY's TEXT stands for (sizes in bytes, frequencies in
 * Hz), range-checked as rp_config_apply would; refuses keys that take names
 * (enumerations, presets). SOURCE/LINE only for messages. Returns 0 or -1. */
int rp_config_number(const char *section, const char *key, const char *text, uint64_t *value,
                     const char *source, int line, char *err, size_t errlen);

/* Writes VALUE of numeric key SECTION.KEY as --print-config would (64KiB,
 * 2GHz). Returns -1 for an unknown key or one that takes names. */
int rp_config_format(const char *section, const char *key, uint64_t value, char *buf, size_t len);

/* The name the table gives KEY of SECTION: KEY itself, or the key an
 * earlier name (an alias) stands for. */
const char *rp_config_key_name(const char *section, const char *key);

#endif
