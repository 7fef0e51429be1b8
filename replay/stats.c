/* Statistics: every counter of the cores, the threads and the memory system
 * registered once (cgm/stats.h); a snapshot is the array of their values,
 * the region of interest the difference of two; the JSON and the text
 * summary walk the registry. Only integers are snapshotted, so the output
 * is the same, byte for byte, for the same trace and configuration. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/energy.h"
#include "replay/gpu/gpu.h"
#include "replay/sim.h"

static const char *const stall_names[ST_COUNT] = {
    "frontend_icache", "frontend_itlb", "frontend_branch", "frontend_serialize", "frontend_other",
    "memory", "execute", "syscall", "idle",
};

static void add_tlb(struct cgm_stats *reg, cgm_stat core, const char *name, const struct cgm_mmu *t)
{
    cgm_stat x = cgm_stats_object(reg, core, name);
    cgm_stat_counter(reg, x, "translations", &t->st.translations);
    cgm_stat_counter(reg, x, "hits", &t->st.hits);
    cgm_stat_counter(reg, x, "misses", &t->st.misses);
    cgm_stat_counter(reg, x, "first_touch_faults", &t->st.hard_faults);
    cgm_stat_counter(reg, x, "evictions", &t->st.evictions);
    cgm_stat_counter(reg, x, "shootdowns", &t->st.shootdowns);
}

static void add_core(struct rp_sim *s, cgm_stat cores, unsigned id)
{
    struct cgm_stats *reg = s->stats;
    const struct rp_core *c = s->cores[id];
    const struct rp_core_stats *st = rp_core_stats(c);
    cgm_stat x = cgm_stats_object(reg, cores, NULL);
    cgm_stat_id(reg, x, "id", id);
    cgm_stat insns = cgm_stat_counter(reg, x, "instructions", &st->instructions);
    cgm_stat_counter(reg, x, "uops", &st->uops);
    cgm_stat cycles = cgm_stat_counter(reg, x, "cycles", &s->core_cycles[id]);
    cgm_stat_counter(reg, x, "loads", &st->loads);
    cgm_stat_counter(reg, x, "stores", &st->stores);
    cgm_stat_counter(reg, x, "fetches", &st->fetches);
    cgm_stat_counter(reg, x, "branches", &st->branches);
    cgm_stat_counter(reg, x, "mispredictions", &st->mispredictions);
    cgm_stat_counter(reg, x, "conditional_branches", &st->cond_branches);
    cgm_stat_counter(reg, x, "conditional_mispredictions", &st->cond_mispredictions);
    cgm_stat_counter(reg, x, "syscalls", &st->syscalls);
    cgm_stat_counter(reg, x, "context_switches", &st->context_switches);
    cgm_stat_counter(reg, x, "commit_cycles", &st->commit_cycles);
    if (s->cfg.energy.enable) /* what a core's energy counts */
        cgm_stat_counters(reg, x, "uops_by_class", st->uops_by_class, rp_uop_class_names, RP_UC_COUNT);
    /* One counter each (not cgm_stat_counters) so the text summary finds
     * them by path. */
    cgm_stat stalls = cgm_stats_object(reg, x, "stall_cycles");
    for (int i = 0; i < ST_COUNT; i++)
        cgm_stat_counter(reg, stalls, stall_names[i], &st->stall[i]);
    cgm_stat d = cgm_stats_object(reg, x, "dispatch_stalls");
    cgm_stat_counter(reg, d, "rob_full", &st->rob_full);
    cgm_stat_counter(reg, d, "iq_full", &st->iq_full);
    cgm_stat_counter(reg, d, "lsq_full", &st->lsq_full);
    cgm_stat_counter(reg, x, "memory_refused", &st->mem_refused);
    add_tlb(reg, x, "itlb", rp_core_tlb(c, false));
    add_tlb(reg, x, "dtlb", rp_core_tlb(c, true));
    cgm_stat_ratio(reg, x, "ipc", insns, cycles, 1, 1);
}

static uint64_t all_instructions(const void *ctx)
{
    const struct rp_sim *s = ctx;
    uint64_t n = 0;
    for (unsigned i = 0; i < s->cfg.cores; i++)
        n += rp_core_stats(s->cores[i])->instructions;
    return n;
}

static uint64_t pages_unmapped(const void *ctx) { return cgm_page_table_unmapped(ctx); }

/* Seed 000's Study 1 breakdown (Fig. 4.6): CPU busy (cycles a core
 * committed), CPU stall (a core held a thread and committed nothing, a
 * system call's trap excepted), both summed over the cores in CPU cycles;
 * GPU busy and stall, summed over the compute units in GPU cycles (a
 * compute unit's idle cycles, with no work-group, are neither); system
 * time in CPU cycles: system calls' traps plus the host threads' copies
 * and flushes between the CPU's and the GPU's memory (replay/gpu/sync.h). */
static uint64_t cpu_busy(const void *ctx)
{
    const struct rp_sim *s = ctx;
    uint64_t n = 0;
    for (unsigned i = 0; i < s->cfg.cores; i++)
        n += rp_core_stats(s->cores[i])->commit_cycles;
    return n;
}

static uint64_t cpu_stall(const void *ctx)
{
    const struct rp_sim *s = ctx;
    uint64_t n = 0;
    for (unsigned i = 0; i < s->cfg.cores; i++)
        for (int c = 0; c < ST_COUNT; c++)
            if (c != ST_IDLE && c != ST_SYSCALL)
                n += rp_core_stats(s->cores[i])->stall[c];
    return n;
}

static uint64_t system_time(const void *ctx)
{
    const struct rp_sim *s = ctx;
    uint64_t n = rp_gpu_system_cycles(s->gpu);
    for (unsigned i = 0; i < s->cfg.cores; i++)
        n += rp_core_stats(s->cores[i])->stall[ST_SYSCALL];
    return n;
}

static uint64_t gpu_busy(const void *ctx) { return rp_gpu_busy_cycles(ctx); }

static uint64_t gpu_stall(const void *ctx) { return rp_gpu_stall_cycles(ctx); }

int rp_stats_register(struct rp_sim *s)
{
    s->core_cycles = calloc(s->cfg.cores, sizeof *s->core_cycles);
    s->stats = cgm_stats_create();
    if (!s->core_cycles || !s->stats)
        return -1;
    struct cgm_stats *reg = s->stats;
    const cgm_stat root = CGM_STATS_ROOT;
    cgm_stat cycles = cgm_stat_counter(reg, root, "cycles", &s->snapshot_cycle);
    cgm_stat cores = cgm_stats_array(reg, root, "cores");
    for (unsigned i = 0; i < s->cfg.cores; i++)
        add_core(s, cores, i);
    cgm_stat insns = cgm_stat_computed(reg, root, "instructions", all_instructions, s);
    if (cgm_memsys_stats_register(s->ms, reg, root))
        return -1;
    /* Pages given back by munmap, brk and MAP_FIXED; their frames are reused. */
    cgm_stat vm = cgm_stats_object(reg, root, "virtual_memory");
    cgm_stat_computed(reg, vm, "pages_unmapped", pages_unmapped, s->pt);
    if (s->gpu && rp_gpu_stats_register(s->gpu, reg, root))
        return -1;
    if (s->gpu) {
        cgm_stat b = cgm_stats_object(reg, root, "breakdown");
        cgm_stat_computed(reg, b, "cpu_busy", cpu_busy, s);
        cgm_stat_computed(reg, b, "cpu_stall", cpu_stall, s);
        cgm_stat_computed(reg, b, "gpu_busy", gpu_busy, s->gpu);
        cgm_stat_computed(reg, b, "gpu_stall", gpu_stall, s->gpu);
        cgm_stat_computed(reg, b, "system", system_time, s);
    }
    cgm_stat th = cgm_stats_array(reg, root, "threads");
    for (size_t i = 0; i < s->sched.nthreads; i++) {
        cgm_stat x = cgm_stats_object(reg, th, NULL);
        cgm_stat_id(reg, x, "tid", s->sched.threads[i].tid);
        cgm_stat_counter(reg, x, "instructions", &s->sched.threads[i].instructions);
    }
    cgm_stat frequency = cgm_stat_constant(reg, root, NULL, (double)s->cfg.frequency);
    cgm_stat seconds = cgm_stat_ratio(reg, root, "seconds", cycles, frequency, 1, 1);
    cgm_stat_ratio(reg, root, "ipc", insns, cycles, 1, 1);
    /* DRAM bandwidth over the whole run (the DRAM model's own is over the
     * span it was busy). */
    cgm_stat dram = cgm_stats_child(reg, root, "dram");
    cgm_stat_ratio(reg, dram, "bandwidth_gbytes_per_s", cgm_stats_child(reg, dram, "bytes"), seconds, 1,
                   1e9);
    cgm_stat gpu_dram = cgm_stats_find(reg, root, "gpu.dram");
    if (gpu_dram >= 0)
        cgm_stat_ratio(reg, gpu_dram, "bandwidth_gbytes_per_s", cgm_stats_child(reg, gpu_dram, "bytes"), seconds,
                       1, 1e9);
    if (s->cfg.energy.enable && rp_energy_register(s, cycles))
        return -1;
    return cgm_stats_failed(reg) ? -1 : 0;
}

uint64_t *rp_stats_snapshot(struct rp_sim *s, uint64_t cycles)
{
    uint64_t *v = malloc((cgm_stats_slots(s->stats) + 1) * sizeof *v);
    if (!v)
        return NULL;
    s->snapshot_cycle = cycles;
    /* A running core has run until now. */
    for (unsigned i = 0; i < s->cfg.cores; i++) {
        s->core_cycles[i] = rp_core_done(s->cores[i]) ? rp_core_stats(s->cores[i])->cycles : cycles;
        rp_core_stats_settle(s->cores[i], cycles);
    }
    if (s->gpu)
        rp_gpu_stats_settle(s->gpu);
    cgm_stats_read(s->stats, v);
    return v;
}

/* The value at PATH under NODE. */
static double num(const struct cgm_stats *reg, const uint64_t *v, cgm_stat node, const char *path)
{
    return cgm_stats_value(reg, v, cgm_stats_find(reg, node, path));
}

/* A kernel of the program (gpu.by_kernel): its launches added up. */
static void kernel_line(const struct cgm_stats *reg, const uint64_t *v, cgm_stat k, FILE *out)
{
    double launches = num(reg, v, k, "launches");
    if (!launches)
        return; /* in a region of interest: none began in it */
    double busy = num(reg, v, k, "busy_cycles"), idle = num(reg, v, k, "idle_cycles"), stall = 0;
    cgm_stat st = cgm_stats_child(reg, k, "stall_cycles");
    for (unsigned i = 0; i < cgm_stats_count(reg, st); i++)
        stall += cgm_stats_value(reg, v, cgm_stats_member(reg, st, i));
    double all = busy + stall + idle, pc = all ? 100 / all : 0;
    fprintf(out, "  kernel %s: %.0f launches, %.0f GPU cycles, %.0f wavefront instructions (valu %.0f, salu "
            "%.0f, vmem %.0f, lds %.0f), %.2f wavefronts resident on average; compute units busy %.1f%%, "
            "stalled %.1f%% (memory %.1f%%, barrier %.1f%%), idle %.1f%%",
            cgm_stats_label_of(reg, cgm_stats_child(reg, k, "name")), launches, num(reg, v, k, "cycles"),
            num(reg, v, k, "wavefront_instructions"), num(reg, v, k, "instructions_by_unit.valu"),
            num(reg, v, k, "instructions_by_unit.salu"), num(reg, v, k, "instructions_by_unit.vmem"),
            num(reg, v, k, "instructions_by_unit.lds"), num(reg, v, k, "occupancy.average_wavefronts"),
            busy * pc, stall * pc, num(reg, v, k, "stall_cycles.memory_wait") * pc,
            num(reg, v, k, "stall_cycles.barrier") * pc, idle * pc);
    static const char *const caches[] = { "gpu_l1v", "gpu_l2" }, *const shown[] = { "L1", "L2" };
    for (int c = 0; c < 2; c++) {
        cgm_stat x = cgm_stats_child(reg, k, caches[c]);
        if (x >= 0)
            fprintf(out, "; %s %.0f accesses, %.0f misses (%.2f%%)", shown[c], num(reg, v, x, "accesses"),
                    num(reg, v, x, "misses"), 100 * num(reg, v, x, "miss_rate"));
    }
    fprintf(out, "; DRAM %.0f reads, %.0f writes (every source's, while it ran)\n", num(reg, v, k, "dram.reads"),
            num(reg, v, k, "dram.writes"));
}

/* The GPU's line: its kernels, and its compute units' cycles by kind. */
static void gpu_summary(const struct cgm_stats *reg, const uint64_t *v, cgm_stat gpu, FILE *out)
{
    double kcycles = 0, busy = 0, stall = 0, idle = 0, mem = 0, bar = 0, unit = 0;
    int kernels = 0;
    cgm_stat ks = cgm_stats_child(reg, gpu, "kernels"), cus = cgm_stats_child(reg, gpu, "compute_units");
    for (unsigned i = 0; i < cgm_stats_count(reg, ks); i++) {
        double c = num(reg, v, cgm_stats_member(reg, ks, i), "cycles");
        kernels += c > 0; /* in a region of interest: those that ran in it */
        kcycles += c;
    }
    for (unsigned i = 0; i < cgm_stats_count(reg, cus); i++) {
        cgm_stat c = cgm_stats_member(reg, cus, i);
        busy += num(reg, v, c, "busy_cycles");
        stall += num(reg, v, c, "stall_cycles_total");
        idle += num(reg, v, c, "idle_cycles");
        mem += num(reg, v, c, "stall_cycles.memory_wait");
        bar += num(reg, v, c, "stall_cycles.barrier");
        unit += num(reg, v, c, "stall_cycles.unit_busy");
    }
    double all = busy + stall + idle, pc = all ? 100 / all : 0;
    fprintf(out, "  gpu: %.0f wavefront instructions, %d kernels in %.0f GPU cycles; compute units busy "
            "%.1f%%, stalled %.1f%% (memory %.1f%%, barrier %.1f%%, unit busy %.1f%%), idle %.1f%%\n",
            num(reg, v, gpu, "wavefront_instructions"), kernels, kcycles, busy * pc, stall * pc, mem * pc,
            bar * pc, unit * pc, idle * pc);
    fprintf(out, "  gpu operations: %.0f (OPC %.2f per GPU cycle); vector memory instructions' latency mean %.1f, "
            "max %.0f GPU cycles; vector memory buffer full %.1f%% of the compute units' cycles",
            num(reg, v, gpu, "operations"), num(reg, v, gpu, "opc"), num(reg, v, gpu, "vector_memory_latency.mean"),
            num(reg, v, gpu, "vector_memory_latency.max"), 100 * num(reg, v, gpu, "vector_buffer_full_fraction"));
    if (cgm_stats_child(reg, gpu, "mpko") >= 0)
        fprintf(out, "; L2 %.0f misses (MPKO %.2f), %.2f bytes per GPU cycle to and from memory; CU-to-L2 latency "
                "mean %.1f GPU cycles over %.0f requests", num(reg, v, gpu, "l2_misses"), num(reg, v, gpu, "mpko"),
                num(reg, v, gpu, "l2_memory_bytes_per_cycle"), num(reg, v, gpu, "l2_latency.mean"),
                num(reg, v, gpu, "l2_latency.requests"));
    if (cgm_stats_child(reg, gpu, "l2_frc") >= 0)
        fprintf(out, "; FRC served %.1f%% of the misses (%.0f swaps, %.0f hits)",
                100 * num(reg, v, gpu, "l2_frc.served_fraction"), num(reg, v, gpu, "l2_frc.swaps"),
                num(reg, v, gpu, "l2_frc.hits"));
    if (cgm_stats_find(reg, gpu, "l2_miss_latency.evict_cycles") >= 0)
        fprintf(out, "; a miss's parts per fetch: invalidate %.1f, evict %.1f, fetch %.1f GPU cycles",
                num(reg, v, gpu, "l2_miss_latency.invalidate_per_fetch"),
                num(reg, v, gpu, "l2_miss_latency.evict_per_fetch"), num(reg, v, gpu, "l2_miss_latency.fetch_mean"));
    fputc('\n', out);
    cgm_stat by = cgm_stats_child(reg, gpu, "by_kernel");
    for (unsigned i = 0; i < cgm_stats_count(reg, by); i++)
        kernel_line(reg, v, cgm_stats_member(reg, by, i), out);
    const char *org = cgm_stats_label_of(reg, cgm_stats_find(reg, gpu, "memory.organisation"));
    cgm_stat c = cgm_stats_child(reg, gpu, "copies");
    fprintf(out, "  copies (%s): %.0f jobs, %.0f bytes copied, %.0f blocks flushed, %.0f of the jobs implicit "
            "(buffers shared by pointer); the host threads spent %.0f CPU cycles in them\n",
            org ? org : "ideal memory", num(reg, v, c, "jobs"), num(reg, v, c, "bytes_copied"),
            num(reg, v, c, "blocks_flushed"), num(reg, v, c, "implicit"), num(reg, v, c, "system_cycles"));
    cgm_stat b = cgm_stats_child(reg, CGM_STATS_ROOT, "breakdown");
    fprintf(out, "  breakdown: CPU busy %.0f, CPU stall %.0f (CPU cycles, summed over the cores); GPU busy %.0f, "
            "GPU stall %.0f (GPU cycles, summed over the compute units); system %.0f (CPU cycles: system "
            "calls, copies and flushes)\n",
            num(reg, v, b, "cpu_busy"), num(reg, v, b, "cpu_stall"), num(reg, v, b, "gpu_busy"),
            num(reg, v, b, "gpu_stall"), num(reg, v, b, "system"));
}

/* TITLE names the span the values are of, SPAN in "all the SPAN's cycles". */
static void text_summary(const struct cgm_stats *reg, const uint64_t *v, FILE *out, const char *title,
                         const char *span)
{
    const cgm_stat root = CGM_STATS_ROOT;
    fprintf(out, "%s: %.0f cycles (%.6f s simulated), %.0f instructions, IPC %.3f (every core's "
            "instructions per cycle, summed over the cores)\n", title,
            num(reg, v, root, "cycles"), num(reg, v, root, "seconds"), num(reg, v, root, "instructions"),
            num(reg, v, root, "ipc"));
    cgm_stat cores = cgm_stats_child(reg, root, "cores");
    for (unsigned i = 0; i < cgm_stats_count(reg, cores); i++) {
        cgm_stat c = cgm_stats_member(reg, cores, i);
        if (!num(reg, v, c, "instructions"))
            continue;
        double branches = num(reg, v, c, "branches");
        double frontend = num(reg, v, c, "stall_cycles.frontend_icache") +
                          num(reg, v, c, "stall_cycles.frontend_itlb") +
                          num(reg, v, c, "stall_cycles.frontend_branch") +
                          num(reg, v, c, "stall_cycles.frontend_serialize") +
                          num(reg, v, c, "stall_cycles.frontend_other");
        /* a core that ran out of threads early stopped counting cycles */
        double cycles = num(reg, v, c, "cycles");
        char over[64];
        if (cycles == num(reg, v, root, "cycles"))
            snprintf(over, sizeof over, "over all the %s cycles", span);
        else
            snprintf(over, sizeof over, "over its %.0f cycles", cycles);
        fprintf(out, "  core %.0f: %.0f instructions, IPC %.3f %s, branches %.0f (%.2f%% "
                "mispredicted), stalls: memory %.0f, execute %.0f, front end %.0f (I-cache %.0f, branch %.0f), "
                "syscall %.0f\n",
                num(reg, v, c, "id"), num(reg, v, c, "instructions"), num(reg, v, c, "ipc"), over, branches,
                branches ? 100 * num(reg, v, c, "mispredictions") / branches : 0,
                num(reg, v, c, "stall_cycles.memory"), num(reg, v, c, "stall_cycles.execute"), frontend,
                num(reg, v, c, "stall_cycles.frontend_icache"), num(reg, v, c, "stall_cycles.frontend_branch"),
                num(reg, v, c, "stall_cycles.syscall"));
    }
    static const char *const kinds[] = { "l1i", "l1d", "l2", "l3" };
    cgm_stat caches = cgm_stats_child(reg, root, "caches");
    for (int k = 0; k < 4; k++) {
        double a = 0, m = 0, sec = 0;
        for (unsigned i = 0; i < cgm_stats_count(reg, caches); i++) {
            cgm_stat c = cgm_stats_member(reg, caches, i);
            const char *kind = cgm_stats_label_of(reg, cgm_stats_child(reg, c, "kind"));
            if (kind && !strcmp(kind, kinds[k])) {
                a += num(reg, v, c, "accesses");
                m += num(reg, v, c, "misses");
                sec += num(reg, v, c, "secondary_misses");
            }
        }
        fprintf(out, "  %-3s: %.0f accesses, %.0f misses (%.2f%%)", kinds[k], a, m, a ? 100 * m / a : 0);
        if (sec)
            fprintf(out, ", %.0f of them joined a miss in flight", sec);
        fputc('\n', out);
    }
    cgm_stat d = cgm_stats_child(reg, root, "dram");
    fprintf(out, "  dram: %.0f reads, %.0f writes, row hits %.0f, row misses %.0f, %.3f GB/s\n",
            num(reg, v, d, "reads"), num(reg, v, d, "writes"), num(reg, v, d, "row_hits"),
            num(reg, v, d, "row_misses"), num(reg, v, d, "bandwidth_gbytes_per_s"));
    cgm_stat gd = cgm_stats_find(reg, root, "gpu.dram");
    if (gd >= 0)
        fprintf(out, "  gpu.dram (%s): %.0f reads, %.0f writes, row hits %.0f, row misses %.0f, %.3f GB/s\n",
                cgm_stats_label_of(reg, cgm_stats_child(reg, gd, "preset")), num(reg, v, gd, "reads"),
                num(reg, v, gd, "writes"), num(reg, v, gd, "row_hits"), num(reg, v, gd, "row_misses"),
                num(reg, v, gd, "bandwidth_gbytes_per_s"));
    cgm_stat gpu = cgm_stats_child(reg, root, "gpu");
    if (gpu >= 0)
        gpu_summary(reg, v, gpu, out);
    cgm_stat e = cgm_stats_child(reg, root, "energy");
    if (e >= 0)
        fprintf(out, "  energy: %.3f uJ (cpu %.3f, gpu %.3f, network %.3f, dram %.3f), %.3f W, energy-delay "
                "product %.4g J s\n", num(reg, v, e, "total_fj") / 1e9, num(reg, v, e, "parts.cpu.total_fj") / 1e9,
                num(reg, v, e, "parts.gpu.total_fj") / 1e9, num(reg, v, e, "parts.network.total_fj") / 1e9,
                num(reg, v, e, "parts.dram.total_fj") / 1e9, num(reg, v, e, "power_w"),
                num(reg, v, e, "energy_delay_product_js"));
}

/* A region's one line: where it lies and what ran in it. */
static void region_line(const struct cgm_stats *reg, const struct rp_roi *r, size_t i, FILE *out)
{
    fprintf(out, "region of interest %zu: cycles %llu to %llu (%.0f cycles), %.0f instructions, IPC %.3f\n", i,
            (unsigned long long)r->begin_cycle, (unsigned long long)r->end_cycle,
            num(reg, r->delta, CGM_STATS_ROOT, "cycles"), num(reg, r->delta, CGM_STATS_ROOT, "instructions"),
            num(reg, r->delta, CGM_STATS_ROOT, "ipc"));
}

/* The numbered regions as a JSON array, each the registry's tree with its
 * first and last cycle. */
static cJSON *regions_json(const struct cgm_stats *reg, const struct rp_regions *r)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < rp_regions_numbered(r); i++) {
        cJSON *x = cgm_stats_json(reg, r->numbered[i].delta, CGM_STATS_ROOT);
        if (!x || !cJSON_AddNumberToObject(x, "begin_cycle", (double)r->numbered[i].begin_cycle) ||
            !cJSON_AddNumberToObject(x, "end_cycle", (double)r->numbered[i].end_cycle)) {
            cJSON_Delete(x);
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, x);
    }
    return a;
}

int rp_stats_write(struct rp_sim *s, FILE *json, FILE *text, bool roi_only)
{
    const struct cgm_stats *reg = s->stats;
    const struct rp_regions *r = &s->regions;
    uint64_t *end = rp_stats_snapshot(s, s->end_cycle);
    if (!end)
        return -1;
    /* "roi": the regions added up; "regions": each of them */
    const uint64_t *roi = r->sum;
    if (roi_only && !roi)
        fprintf(stderr, "replay: warning: %s has no region-of-interest markers; reporting the whole run\n",
                s->trace_name);
    int rc = 0;
    if (json) {
        cJSON *whole = cgm_stats_json(reg, end, CGM_STATS_ROOT);
        cJSON *part = roi ? cgm_stats_json(reg, roi, CGM_STATS_ROOT) : NULL;
        cJSON *regions = roi ? regions_json(reg, r) : NULL;
        bool failed = !whole || (roi && (!part || !regions));
        cJSON *shown = whole;
        if (part && roi_only) {
            shown = part;
        } else if (part && whole) {
            cJSON_AddItemToObject(whole, "roi", part);
            part = NULL;
        }
        if (shown && regions) {
            cJSON_AddItemToObject(shown, "regions", regions);
            regions = NULL;
        }
        if (shown)
            cJSON_AddStringToObject(shown, "trace", s->trace_name);
        char *txt = failed ? NULL : cJSON_Print(shown);
        if (!txt || fprintf(json, "%s\n", txt) < 0)
            rc = -1;
        free(txt);
        cJSON_Delete(whole);
        cJSON_Delete(part);
        cJSON_Delete(regions);
    }
    if (text) {
        if (!roi_only || !roi)
            text_summary(reg, end, text, "whole run", "run's");
        if (roi) {
            char title[96];
            snprintf(title, sizeof title, "the %zu regions of interest added up", r->count);
            if (r->count == 1)
                text_summary(reg, roi, text, "region of interest", "region's");
            else
                text_summary(reg, roi, text, title, "regions'");
            for (size_t i = 0; i < rp_regions_numbered(r); i++)
                region_line(reg, &r->numbered[i], i, text);
            if (r->count > rp_regions_numbered(r))
                fprintf(text, "(regions %zu to %zu are in the sum only)\n", rp_regions_numbered(r), r->count - 1);
        }
    }
    free(end);
    return rc;
}

int rp_stats_kernels_out(struct rp_sim *s, const char *path, char *err, size_t errlen)
{
    if (!(s->kernels_out = fopen(path, "w"))) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (s->gpu)
        rp_gpu_kernels_out(s->gpu, s->kernels_out);
    else
        fprintf(stderr, "replay: warning: %s has no GPU work; %s stays empty\n", s->trace_name, path);
    return 0;
}

int rp_stats_kernels_close(struct rp_sim *s)
{
    if (!s->kernels_out)
        return 0;
    bool ok = !s->gpu || rp_gpu_kernels_written(s->gpu);
    if (s->gpu)
        rp_gpu_kernels_out(s->gpu, NULL);
    if (fclose(s->kernels_out))
        ok = false;
    s->kernels_out = NULL;
    return ok ? 0 : -1;
}
