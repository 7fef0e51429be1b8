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
    cgm_mmu_stats_register(rp_core_tlb(c, false), reg, cgm_stats_object(reg, x, "itlb"));
    cgm_mmu_stats_register(rp_core_tlb(c, true), reg, cgm_stats_object(reg, x, "dtlb"));
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

/* The value at PATH under NODE: a path the registry does not have is
 * recorded in R (rp_stats_write refuses the summary), never read as 0. */
static double num(struct cgm_stats_reader *r, cgm_stat node, const char *path)
{
    return cgm_stats_get(r, node, path);
}

/* A kernel of the program (gpu.by_kernel): its launches added up. */
static void kernel_line(struct cgm_stats_reader *r, cgm_stat k, FILE *out)
{
    const struct cgm_stats *reg = r->s;
    double launches = num(r, k, "launches");
    if (!launches)
        return; /* in a region of interest: none began in it */
    double busy = num(r, k, "busy_cycles"), idle = num(r, k, "idle_cycles"), stall = 0;
    cgm_stat st = cgm_stats_child(reg, k, "stall_cycles");
    for (unsigned i = 0; i < cgm_stats_count(reg, st); i++)
        stall += cgm_stats_value(reg, r->values, cgm_stats_member(reg, st, i));
    double all = busy + stall + idle, pc = all ? 100 / all : 0;
    fprintf(out, "  kernel %s: %.0f launches, %.0f GPU cycles, %.0f wavefront instructions (valu %.0f, salu "
            "%.0f, vmem %.0f, lds %.0f), %.2f wavefronts resident on average; compute units busy %.1f%%, "
            "stalled %.1f%% (memory %.1f%%, barrier %.1f%%), idle %.1f%%",
            cgm_stats_get_label(r, k, "name"), launches, num(r, k, "cycles"),
            num(r, k, "wavefront_instructions"), num(r, k, "instructions_by_unit.valu"),
            num(r, k, "instructions_by_unit.salu"), num(r, k, "instructions_by_unit.vmem"),
            num(r, k, "instructions_by_unit.lds"), num(r, k, "occupancy.average_wavefronts"),
            busy * pc, stall * pc, num(r, k, "stall_cycles.memory_wait") * pc,
            num(r, k, "stall_cycles.barrier") * pc, idle * pc);
    static const char *const caches[] = { "gpu_l1v", "gpu_l2" }, *const shown[] = { "L1", "L2" };
    for (int c = 0; c < 2; c++) {
        cgm_stat x = cgm_stats_child(reg, k, caches[c]);
        if (x >= 0)
            fprintf(out, "; %s %.0f accesses, %.0f misses (%.2f%%)", shown[c], num(r, x, "accesses"),
                    num(r, x, "misses"), 100 * num(r, x, "miss_rate"));
    }
    fprintf(out, "; DRAM %.0f reads, %.0f writes (every source's, while it ran)\n", num(r, k, "dram.reads"),
            num(r, k, "dram.writes"));
}

/* The GPU's line: its kernels, and its compute units' cycles by kind. */
static void gpu_summary(struct cgm_stats_reader *r, cgm_stat gpu, FILE *out)
{
    const struct cgm_stats *reg = r->s;
    double kcycles = 0, busy = 0, stall = 0, idle = 0, mem = 0, bar = 0, unit = 0;
    int kernels = 0;
    cgm_stat ks = cgm_stats_child(reg, gpu, "kernels"), cus = cgm_stats_child(reg, gpu, "compute_units");
    for (unsigned i = 0; i < cgm_stats_count(reg, ks); i++) {
        double c = num(r, cgm_stats_member(reg, ks, i), "cycles");
        kernels += c > 0; /* in a region of interest: those that ran in it */
        kcycles += c;
    }
    for (unsigned i = 0; i < cgm_stats_count(reg, cus); i++) {
        cgm_stat c = cgm_stats_member(reg, cus, i);
        busy += num(r, c, "busy_cycles");
        stall += num(r, c, "stall_cycles_total");
        idle += num(r, c, "idle_cycles");
        mem += num(r, c, "stall_cycles.memory_wait");
        bar += num(r, c, "stall_cycles.barrier");
        unit += num(r, c, "stall_cycles.unit_busy");
    }
    double all = busy + stall + idle, pc = all ? 100 / all : 0;
    fprintf(out, "  gpu: %.0f wavefront instructions, %d kernels in %.0f GPU cycles; compute units busy "
            "%.1f%%, stalled %.1f%% (memory %.1f%%, barrier %.1f%%, unit busy %.1f%%), idle %.1f%%\n",
            num(r, gpu, "wavefront_instructions"), kernels, kcycles, busy * pc, stall * pc, mem * pc,
            bar * pc, unit * pc, idle * pc);
    fprintf(out, "  gpu operations: %.0f (OPC %.2f per GPU cycle); vector memory instructions' latency mean %.1f, "
            "max %.0f GPU cycles; vector memory buffer full %.1f%% of the compute units' cycles",
            num(r, gpu, "operations"), num(r, gpu, "opc"), num(r, gpu, "vector_memory_latency.mean"),
            num(r, gpu, "vector_memory_latency.max"), 100 * num(r, gpu, "vector_buffer_full_fraction"));
    if (cgm_stats_child(reg, gpu, "mpko") >= 0)
        fprintf(out, "; L2 %.0f misses (MPKO %.2f), %.2f bytes per GPU cycle to and from memory; CU-to-L2 latency "
                "mean %.1f GPU cycles over %.0f requests", num(r, gpu, "l2_misses"), num(r, gpu, "mpko"),
                num(r, gpu, "l2_memory_bytes_per_cycle"), num(r, gpu, "l2_latency.mean"),
                num(r, gpu, "l2_latency.requests"));
    if (cgm_stats_child(reg, gpu, "l2_frc") >= 0)
        fprintf(out, "; FRC served %.1f%% of the misses (%.0f swaps, %.0f hits)",
                100 * num(r, gpu, "l2_frc.served_fraction"), num(r, gpu, "l2_frc.swaps"),
                num(r, gpu, "l2_frc.hits"));
    if (cgm_stats_find(reg, gpu, "l2_miss_latency.evict_cycles") >= 0)
        fprintf(out, "; a miss's parts per fetch: invalidate %.1f, evict %.1f, fetch %.1f GPU cycles",
                num(r, gpu, "l2_miss_latency.invalidate_per_fetch"),
                num(r, gpu, "l2_miss_latency.evict_per_fetch"), num(r, gpu, "l2_miss_latency.fetch_mean"));
    fputc('\n', out);
    cgm_stat by = cgm_stats_child(reg, gpu, "by_kernel");
    for (unsigned i = 0; i < cgm_stats_count(reg, by); i++)
        kernel_line(r, cgm_stats_member(reg, by, i), out);
    const char *org = cgm_stats_label_of(reg, cgm_stats_find(reg, gpu, "memory.organisation"));
    cgm_stat c = cgm_stats_child(reg, gpu, "copies");
    fprintf(out, "  copies (%s): %.0f jobs, %.0f bytes copied, %.0f blocks flushed, %.0f of the jobs implicit "
            "(buffers shared by pointer); the host threads spent %.0f CPU cycles in them\n",
            org ? org : "ideal memory", num(r, c, "jobs"), num(r, c, "bytes_copied"),
            num(r, c, "blocks_flushed"), num(r, c, "implicit"), num(r, c, "system_cycles"));
    cgm_stat b = cgm_stats_child(reg, CGM_STATS_ROOT, "breakdown");
    fprintf(out, "  breakdown: CPU busy %.0f, CPU stall %.0f (CPU cycles, summed over the cores); GPU busy %.0f, "
            "GPU stall %.0f (GPU cycles, summed over the compute units); system %.0f (CPU cycles: system "
            "calls, copies and flushes)\n",
            num(r, b, "cpu_busy"), num(r, b, "cpu_stall"), num(r, b, "gpu_busy"),
            num(r, b, "gpu_stall"), num(r, b, "system"));
}

/* TITLE names the span the values are of, SPAN in "all the SPAN's cycles". */
static void text_summary(struct cgm_stats_reader *r, FILE *out, const char *title,
                         const char *span)
{
    const struct cgm_stats *reg = r->s;
    const cgm_stat root = CGM_STATS_ROOT;
    fprintf(out, "%s: %.0f cycles (%.6f s simulated), %.0f instructions, IPC %.3f (every core's "
            "instructions per cycle, summed over the cores)\n", title,
            num(r, root, "cycles"), num(r, root, "seconds"), num(r, root, "instructions"),
            num(r, root, "ipc"));
    cgm_stat cores = cgm_stats_child(reg, root, "cores");
    for (unsigned i = 0; i < cgm_stats_count(reg, cores); i++) {
        cgm_stat c = cgm_stats_member(reg, cores, i);
        if (!num(r, c, "instructions"))
            continue;
        double branches = num(r, c, "branches");
        double frontend = num(r, c, "stall_cycles.frontend_icache") +
                          num(r, c, "stall_cycles.frontend_itlb") +
                          num(r, c, "stall_cycles.frontend_branch") +
                          num(r, c, "stall_cycles.frontend_serialize") +
                          num(r, c, "stall_cycles.frontend_other");
        /* a core that ran out of threads early stopped counting cycles */
        double cycles = num(r, c, "cycles");
        char over[64];
        if (cycles == num(r, root, "cycles"))
            snprintf(over, sizeof over, "over all the %s cycles", span);
        else
            snprintf(over, sizeof over, "over its %.0f cycles", cycles);
        fprintf(out, "  core %.0f: %.0f instructions, IPC %.3f %s, branches %.0f (%.2f%% "
                "mispredicted), stalls: memory %.0f, execute %.0f, front end %.0f (I-cache %.0f, branch %.0f), "
                "syscall %.0f\n",
                num(r, c, "id"), num(r, c, "instructions"), num(r, c, "ipc"), over, branches,
                branches ? 100 * num(r, c, "mispredictions") / branches : 0,
                num(r, c, "stall_cycles.memory"), num(r, c, "stall_cycles.execute"), frontend,
                num(r, c, "stall_cycles.frontend_icache"), num(r, c, "stall_cycles.frontend_branch"),
                num(r, c, "stall_cycles.syscall"));
    }
    static const char *const kinds[] = { "l1i", "l1d", "l2", "l3" };
    cgm_stat caches = cgm_stats_child(reg, root, "caches");
    for (int k = 0; k < 4; k++) {
        double a = 0, m = 0, sec = 0;
        for (unsigned i = 0; i < cgm_stats_count(reg, caches); i++) {
            cgm_stat c = cgm_stats_member(reg, caches, i);
            const char *kind = cgm_stats_get_label(r, c, "kind");
            if (kind && !strcmp(kind, kinds[k])) {
                a += num(r, c, "accesses");
                m += num(r, c, "misses");
                if (cgm_stats_child(reg, c, "secondary_misses") >= 0) /* the data caches' only */
                    sec += num(r, c, "secondary_misses");
            }
        }
        fprintf(out, "  %-3s: %.0f accesses, %.0f misses (%.2f%%)", kinds[k], a, m, a ? 100 * m / a : 0);
        if (sec)
            fprintf(out, ", %.0f of them joined a miss in flight", sec);
        fputc('\n', out);
    }
    cgm_stat d = cgm_stats_child(reg, root, "dram");
    fprintf(out, "  dram: %.0f reads, %.0f writes, row hits %.0f, row misses %.0f, %.3f GB/s\n",
            num(r, d, "reads"), num(r, d, "writes"), num(r, d, "row_hits"),
            num(r, d, "row_misses"), num(r, d, "bandwidth_gbytes_per_s"));
    cgm_stat gd = cgm_stats_find(reg, root, "gpu.dram");
    if (gd >= 0)
        fprintf(out, "  gpu.dram (%s): %.0f reads, %.0f writes, row hits %.0f, row misses %.0f, %.3f GB/s\n",
                cgm_stats_get_label(r, gd, "preset"), num(r, gd, "reads"),
                num(r, gd, "writes"), num(r, gd, "row_hits"), num(r, gd, "row_misses"),
                num(r, gd, "bandwidth_gbytes_per_s"));
    cgm_stat gpu = cgm_stats_child(reg, root, "gpu");
    if (gpu >= 0)
        gpu_summary(r, gpu, out);
    cgm_stat e = cgm_stats_child(reg, root, "energy");
    if (e >= 0)
        fprintf(out, "  energy: %.3f uJ (cpu %.3f, gpu %.3f, network %.3f, dram %.3f), %.3f W, energy-delay "
                "product %.4g J s\n", num(r, e, "total_fj") / 1e9, num(r, e, "parts.cpu.total_fj") / 1e9,
                num(r, e, "parts.gpu.total_fj") / 1e9, num(r, e, "parts.network.total_fj") / 1e9,
                num(r, e, "parts.dram.total_fj") / 1e9, num(r, e, "power_w"),
                num(r, e, "energy_delay_product_js"));
}

/* A region's one line: where it lies and what ran in it. */
static void region_line(struct cgm_stats_reader *rd, const struct rp_roi *r, size_t i, FILE *out)
{
    fprintf(out, "region of interest %zu: cycles %llu to %llu (%.0f cycles), %.0f instructions, IPC %.3f\n", i,
            (unsigned long long)r->begin_cycle, (unsigned long long)r->end_cycle,
            num(rd, CGM_STATS_ROOT, "cycles"), num(rd, CGM_STATS_ROOT, "instructions"),
            num(rd, CGM_STATS_ROOT, "ipc"));
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
    char why[256];
    if (text && rp_stats_text(reg, end, r, roi_only, text, why, sizeof why)) {
        fprintf(stderr, "replay: %s\n", why);
        rc = -1;
    }
    free(end);
    return rc;
}

int rp_stats_text(const struct cgm_stats *reg, const uint64_t *end, const struct rp_regions *r, bool roi_only,
                  FILE *text, char *err, size_t errlen)
{
    /* Written to memory first: a summary that asks for a statistic the
     * registry does not have is refused whole, naming it. */
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) {
        snprintf(err, errlen, "the text summary: out of memory");
        return -1;
    }
    const uint64_t *roi = r->sum;
    struct cgm_stats_reader whole = { .s = reg, .values = end }, part = { .s = reg, .values = roi };
    if (!roi_only || !roi)
        text_summary(&whole, out, "whole run", "run's");
    if (roi) {
        char title[96];
        snprintf(title, sizeof title, "the %zu regions of interest added up", r->count);
        if (r->count == 1)
            text_summary(&part, out, "region of interest", "region's");
        else
            text_summary(&part, out, title, "regions'");
        for (size_t i = 0; i < rp_regions_numbered(r); i++) {
            struct cgm_stats_reader one = { .s = reg, .values = r->numbered[i].delta };
            region_line(&one, &r->numbered[i], i, out);
            if (one.missing[0] && !part.missing[0])
                memcpy(part.missing, one.missing, sizeof part.missing);
        }
        if (r->count > rp_regions_numbered(r))
            fprintf(out, "(regions %zu to %zu are in the sum only)\n", rp_regions_numbered(r), r->count - 1);
    }
    bool failed = fclose(out) != 0;
    const char *missing = whole.missing[0] ? whole.missing : part.missing;
    if (missing[0])
        snprintf(err, errlen, "the text summary asks for statistic %s, which the statistics do not have",
                 missing);
    else if (failed || fwrite(buf, 1, len, text) != len) {
        snprintf(err, errlen, "the text summary could not be written");
        failed = true;
    }
    failed = failed || missing[0];
    free(buf);
    return failed ? -1 : 0;
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
