/* Building the system, the guest's address space, events, and running. */
#include "replay/coh_sync.h"
#include "replay/sim.h"
#include "replay/gpu/gpu.h"
#include "replay/windows.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void memsys_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr, uint64_t value,
                        uint64_t cycle)
{
    struct rp_sim *s = ctx;
    (void)op;
    (void)addr;
    (void)value;
    if ((tag & RP_SYNC_TAG) == RP_SYNC_TAG) /* the GPU's copy engine's */
        rp_gpu_sync_done(s->gpu, tag, cycle);
    else
        rp_core_mem_done(s->cores[core], tag, cycle);
}

/* The GPU's part of the memory system (gpu.memory = hierarchy): the seed's
 * GPU caches in the organisation gpu.coherence x gpu.connection, then the
 * [gpu.l1] / [gpu.l2] rows over them. */
static void memsys_gpu_config(const struct rp_config *c, struct cgm_memsys_config *m)
{
    /* a discrete GPU's L2 misses go to its own memory, not the host's L3 */
    bool discrete = c->gpu_attach == RP_GPU_DISCRETE;
    cgm_memsys_default_gpu(m, (unsigned)c->gpu_cus, c->gpu_coherence == RP_GPU_COHERENT,
                           c->gpu_connection == RP_GPU_TO_L3 && !discrete);
    cgm_keys_copy(cgm_memsys_gpu_keys, cgm_memsys_gpu_nkeys, m, &c->memsys);
    if (discrete) {
        m->gpu_dram_on = true;
        m->gpu_dram = c->gpu_dram;
    }
    struct cgm_coh_gpu_config *g = &m->coh.gpu;
    g->protocol = cgm_coh_protocols[c->gpu_protocol];
    if (c->gpu_l2_banks)
        g->banks = (unsigned)c->gpu_l2_banks;
    g->l1_ways = (unsigned)c->gpu_l1.ways;
    g->l1_sets = (unsigned)(c->gpu_l1.size / (c->gpu_l1.ways * 64));
    g->l1_mshr = (unsigned)c->gpu_l1.mshr;
    g->l1_coalesce = (unsigned)c->gpu_l1.coalescer;
    g->l2_ways = (unsigned)c->gpu_l2.ways;
    g->l2_sets = (unsigned)(c->gpu_l2.size / (c->gpu_l2.ways * 64));
    g->l2_mshr = (unsigned)c->gpu_l2.mshr;
    g->l2_coalesce = (unsigned)c->gpu_l2.coalescer;
    m->gpu_l1_latency = (unsigned)c->gpu_l1.latency;
    m->gpu_l2_latency = (unsigned)c->gpu_l2.latency;
    m->gpu_link_bytes = (unsigned)c->gpu_link_bytes;
    m->hub_latency = (unsigned)c->gpu_hub_latency;
    m->gpu_xbar_bytes = (unsigned)c->gpu_xbar_bytes;
    m->gpu_scalar_latency = (unsigned)c->gpu_scalar_latency;
    m->gpu_scalar_share = (unsigned)c->gpu_scalar_share;
    m->gpu_l1_virtual = c->gpu_l1_virtual;
    g->interleave_bits = (unsigned)__builtin_ctzll(c->gpu_l2_interleave / 64);
    m->gpu_l2_nack_when_full = c->gpu_l2_full_mshr == RP_FULL_MSHR_NACK;
    g->l2_victim_policy = c->gpu_l2_victim_policy == 1 ? CGM_COH_VICTIM_SERIALIZED : CGM_COH_VICTIM_EARLY;
    g->l2_frc_entries = (unsigned)c->gpu_l2_frc_entries;
    g->l2_frc_ways = (unsigned)c->gpu_l2_frc_ways;
    m->gpu_l2_frc_latency = (unsigned)c->gpu_l2_frc_latency;
    m->gpu_l2_frc_swap_latency = (unsigned)c->gpu_l2_frc_swap_latency;
    if (c->gpu_l2_mcs) {
        /* k controllers per bank: bank b's blocks are those of controllers
         * b, b + banks, ... (the same stripes), each bank with a hub of its
         * own on the switch of its first controller */
        m->mem_controllers = g->banks * (unsigned)c->gpu_l2_mcs;
        m->mem_interleave = c->gpu_l2_interleave;
        m->gpu_hubs = g->banks;
    }
}

/* The memory system for C; with_gpu: the trace has GPU work for the
 * hierarchy (a CPU-only system is built without compute units, so its
 * statistics do not depend on the GPU's keys). */
static void memsys_config(const struct rp_config *c, bool with_gpu, struct cgm_memsys_config *m)
{
    cgm_memsys_default_config(m);
    cgm_keys_copy(cgm_memsys_keys, cgm_memsys_nkeys, m, &c->memsys); /* [memsys] */
    m->cores = (unsigned)c->cores;
    m->slices = (unsigned)c->l3_slices;
    m->coh.l1_ways = (unsigned)c->l1d.ways;
    m->coh.l1_sets = (unsigned)(c->l1d.size / (c->l1d.ways * c->l1d.block));
    m->coh.l1i_ways = (unsigned)c->l1i.ways;
    m->coh.l1i_sets = (unsigned)(c->l1i.size / (c->l1i.ways * c->l1i.block));
    m->coh.l3_ways = (unsigned)c->l3.ways;
    m->coh.l3_sets = (unsigned)(c->l3.size / (c->l3.ways * c->l3.block));
    m->coh.l2_ways = (unsigned)c->l2.ways;
    m->coh.l2_sets = (unsigned)(c->l2.size / (c->l2.ways * c->l2.block));
    m->coh.mshr = (unsigned)c->l2.mshr;
    /* an L1's own MSHR file only below the L2's, which bounds them all */
    m->l1i_mshr = c->l1i.mshr < c->l2.mshr ? (unsigned)c->l1i.mshr : 0;
    m->l1d_mshr = c->l1d.mshr < c->l2.mshr ? (unsigned)c->l1d.mshr : 0;
    m->coh.l3_mshr = (unsigned)c->l3.mshr;
    m->coh.protocol = cgm_coh_protocols[c->coherence_protocol];
    m->l1_latency = (unsigned)c->l1d.latency;
    m->l2_latency = (unsigned)(c->l2.latency - c->l1d.latency);
    m->l3_latency = (unsigned)c->l3.latency;
    m->net.queue_size = (unsigned)c->net_queue;
    m->net.flit_bytes = (unsigned)c->net_flit_bytes;
    m->net.latency = (unsigned)c->net_latency;
    m->sa_latency = (unsigned)c->sa_latency;
    m->mc_queue = (unsigned)c->mc_queue;
    m->mem_controllers = (unsigned)c->mem_controllers;
    m->mem_interleave = c->mem_interleave;
    m->mem_bytes = c->mem_size;
    m->dram = c->dram;
    if (with_gpu)
        memsys_gpu_config(c, m);
}

/* A recording that stopped before the program ended (an unimplemented
 * instruction or system call, a limit, an interruption: tracegen's
 * "stopped" line) times only part of the run: say so. */
static void warn_stopped_program(struct cgm_reader *r, const char *trace)
{
    uint8_t *text;
    size_t len;
    char err[256];
    if (cgm_reader_find_section(r, "program") < 0 ||
        cgm_reader_read_section(r, "program", 1u << 20, &text, &len, err, sizeof err))
        return;
    const char *end = (const char *)text + len;
    for (const char *line = (const char *)text; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = (size_t)((nl ? nl : end) - line);
        if (n > 8 && !memcmp(line, "stopped=", 8))
            fprintf(stderr, "replay: warning: %s: the traced program did not run to its end "
                    "(%.*s); the statistics cover a truncated run\n", trace, (int)(n - 8),
                    line + 8);
        line += n + 1;
    }
    free(text);
}

struct rp_sim *rp_sim_create(const struct rp_config *cfg, const char *trace, char *err, size_t errlen)
{
    struct rp_sim *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->trace_name = trace;
    if (rp_config_check(cfg, err, errlen))
        goto fail;
    char why[512];
    s->reader = cgm_reader_open(trace, why, sizeof why);
    if (!s->reader) {
        snprintf(err, errlen, "%s", why);
        goto fail;
    }
    if (!cgm_reader_complete(s->reader))
        fprintf(stderr, "replay: warning: %s is incomplete (%s); replaying what it holds\n", trace,
                cgm_reader_damage(s->reader));
    warn_stopped_program(s->reader, trace);
    if (rp_sched_init(&s->sched, s->reader, &s->st, trace, cfg->quantum, err, errlen))
        goto fail;
    if (rp_static_load(&s->st, s->reader, trace, err, errlen))
        goto fail;
    unsigned page_bits = 0;
    while ((1ull << page_bits) < cfg->page_size)
        page_bits++;
    struct cgm_page_table_config ptc = { .page_bits = page_bits, .frames = cfg->mem_size >> page_bits };
    s->pt = cgm_page_table_create(&ptc);
    if (!s->pt) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    s->eng = ks_engine_create(NULL);
    if (!s->eng) {
        snprintf(err, errlen, "cannot create the simulation engine");
        goto fail;
    }
    bool gpu = rp_gpu_in_trace(s->reader);
    struct cgm_memsys_config mc;
    memsys_config(cfg, gpu && cfg->gpu_memory == RP_GPU_MEM_HIERARCHY, &mc);
    struct cgm_memsys_domains dom;
    if (cgm_memsys_domains_create(s->eng, cfg->frequency, cfg->gpu_frequency, cfg->net_frequency, &mc.dram, &dom,
                                  err, errlen) ||
        (mc.gpu_dram_on && cgm_memsys_gpu_dram_domain_create(s->eng, &mc.gpu_dram, &dom, err, errlen)))
        goto fail;
    s->ms = cgm_memsys_create(s->eng, &dom, &mc, memsys_done, s, err, errlen);
    if (!s->ms)
        goto fail;
    s->cores = calloc(cfg->cores, sizeof *s->cores);
    if (!s->cores) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (unsigned i = 0; i < cfg->cores; i++) {
        s->cores[i] = rp_core_create(s, (int)i);
        if (!s->cores[i]) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        char name[32];
        snprintf(name, sizeof name, "core.%u", i);
        ks_context_opts o = { .name = name, .domain = cgm_memsys_cpu_domain(s->ms) };
        if (!ks_context_create_opts(s->eng, rp_core_main, s->cores[i], &o)) {
            snprintf(err, errlen, "%s", ks_engine_error(s->eng));
            goto fail;
        }
    }
    s->cores_active = (unsigned)cfg->cores;
    /* After the cores: in a cycle both run in, cores go first. */
    if (gpu && !(s->gpu = rp_gpu_create(s, dom.gpu, err, errlen)))
        goto fail;
    if (rp_stats_register(s)) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    return s;
fail:
    rp_sim_destroy(s);
    return NULL;
}

/* Lets every context return: KnightSim leaves stale (ASan) stack state
 * behind contexts destroyed while blocked. Cores still waiting (a failed
 * or never started run) see stopping and return; the memory system's
 * contexts end in cgm_memsys_stop, which runs the engine to idle. */
void rp_sim_stop(struct rp_sim *s)
{
    if (!s->eng || !s->ms || s->stopping)
        return;
    s->stopping = true;
    for (unsigned i = 0; s->cores && i < s->cfg.cores; i++)
        if (s->cores[i])
            rp_core_wake(s->cores[i]);
    ks_advance(&s->sched.ec);
    rp_gpu_stop(s->gpu);
    /* A failed run may leave requests in flight, whose packets only the
     * memory system frees: let them complete first (bounded: a request
     * takes far fewer cycles). */
    const ks_domain *cpu = cgm_memsys_cpu_domain(s->ms);
    ks_run_cycles(s->eng, cpu, ks_domain_cycle(cpu) + 1000000);
    cgm_memsys_stop(s->ms);
}

void rp_sim_destroy(struct rp_sim *s)
{
    if (!s)
        return;
    rp_sim_stop(s);
    rp_sched_free(&s->sched);
    rp_gpu_destroy(s->gpu);
    if (s->ms)
        cgm_memsys_destroy(s->ms);
    if (s->eng)
        ks_engine_destroy(s->eng);
    for (unsigned i = 0; s->cores && i < s->cfg.cores; i++)
        rp_core_destroy(s->cores[i]);
    free(s->cores);
    if (s->pt)
        cgm_page_table_destroy(s->pt);
    rp_static_free(&s->st);
    if (s->reader)
        cgm_reader_close(s->reader);
    rp_regions_free(&s->regions);
    if (s->kernels_out)
        fclose(s->kernels_out);
    free(s->core_cycles);
    cgm_stats_destroy(s->stats);
    free(s);
}

void rp_sim_fail(struct rp_sim *s, const char *msg)
{
    if (!s->failed)
        snprintf(s->error, sizeof s->error, "%s", msg);
    s->failed = true;
    ks_end(s->eng);
}

static uint64_t now_cycles(struct rp_sim *s)
{
    return ks_domain_cycle(cgm_memsys_cpu_domain(s->ms));
}

/* ---- the guest's address space -------------------------------------- */

/* A page leaves the address space: every core's TLBs and the compute
 * units' drop it (the shootdown the kernel does), its frame goes back to
 * the allocator. */
static void page_unmapped(void *ctx, uint32_t asid, uint64_t vpn, uint64_t pfn)
{
    struct rp_sim *s = ctx;
    (void)pfn;
    for (unsigned i = 0; i < s->cfg.cores; i++)
        rp_core_drop_page(s->cores[i], asid, vpn);
    cgm_memsys_gpu_drop_page(s->ms, asid, vpn);
}

/* Pages [first, last] covering [addr, addr + len). */
static uint64_t page_span(const struct rp_sim *s, uint64_t addr, uint64_t len, uint64_t *first)
{
    unsigned pb = cgm_page_table_page_bits(s->pt);
    uint64_t end = len > UINT64_MAX - addr ? UINT64_MAX : addr + len;
    *first = addr >> pb;
    return len ? ((end - 1) >> pb) - *first + 1 : 0;
}

static void unmap(struct rp_sim *s, uint64_t addr, uint64_t len)
{
    uint64_t vpn, pages = page_span(s, addr, len, &vpn);
    if (cgm_page_table_unmap_range(s->pt, 0, vpn, pages, page_unmapped, s) < 0)
        rp_sim_fail(s, "out of memory freeing guest pages");
}

/* mprotect: the pages stay, their cached translations go. */
static void shoot_down(struct rp_sim *s, uint64_t addr, uint64_t len)
{
    uint64_t vpn, pages = page_span(s, addr, len, &vpn);
    if (pages > 4096) {
        for (unsigned i = 0; i < s->cfg.cores; i++)
            rp_core_drop_pages(s->cores[i]);
        cgm_memsys_gpu_tlb_flush(s->ms);
        return;
    }
    for (uint64_t v = vpn; v < vpn + pages; v++)
        page_unmapped(s, 0, v, 0);
}

bool rp_sim_event(struct rp_sim *s, struct rp_core *c, struct rp_thread *t, const struct cgm_event *ev)
{
    if (s->timeline && ev->type == CGM_EV_SYSCALL)
        rp_timeline_syscall(s->timeline, rp_core_id(c), ev);
    switch (ev->type) {
    case CGM_EV_THREAD_CREATE:
    case CGM_EV_FUTEX_WAKE:
    case CGM_EV_FUTEX_WAIT:
        if (c)
            rp_core_sync(c, ev->type == CGM_EV_THREAD_CREATE ? RP_SYNC_THREAD_CREATE
                            : ev->type == CGM_EV_FUTEX_WAKE  ? RP_SYNC_FUTEX_WAKE
                                                             : RP_SYNC_FUTEX_WAIT);
        return rp_sched_thread_event(&s->sched, t, ev);
    case CGM_EV_MUNMAP:
        unmap(s, ev->f[CGM_EVF_MUNMAP_ADDR], ev->f[CGM_EVF_MUNMAP_LENGTH]);
        return true;
    case CGM_EV_MMAP:
        if (ev->f[CGM_EVF_MMAP_FLAGS] & CGM_MMAP_FIXED) /* replaces what was mapped there */
            unmap(s, ev->f[CGM_EVF_MMAP_ADDR], ev->f[CGM_EVF_MMAP_LENGTH]);
        return true;
    case CGM_EV_MPROTECT:
        shoot_down(s, ev->f[CGM_EVF_MPROTECT_ADDR], ev->f[CGM_EVF_MPROTECT_LENGTH]);
        return true;
    case CGM_EV_BRK: {
        uint64_t old_end = ev->f[CGM_EVF_BRK_OLD_END], new_end = ev->f[CGM_EVF_BRK_NEW_END];
        if (new_end < old_end) { /* the heap shrank */
            unsigned pb = cgm_page_table_page_bits(s->pt);
            uint64_t keep = (new_end + (1ull << pb) - 1) & ~((1ull << pb) - 1);
            if (keep < old_end)
                unmap(s, keep, old_end - keep);
        }
        return true;
    }
    case CGM_EV_ROI_BEGIN:
        rp_regions_begin(s, now_cycles(s));
        return true;
    case CGM_EV_ROI_END:
        rp_regions_end(s, now_cycles(s));
        return true;
    case CGM_EV_GPU_LOAD:
    case CGM_EV_GPU_ALLOC:
    case CGM_EV_GPU_FREE:
    case CGM_EV_GPU_COPY:
    case CGM_EV_GPU_COPY_ASYNC:
    case CGM_EV_GPU_LAUNCH:
    case CGM_EV_GPU_LAUNCH_MEM:
    case CGM_EV_GPU_DONE:
    case CGM_EV_GPU_WAIT:
    case CGM_EV_GPU_MAP:
        return !s->gpu || rp_gpu_event(s->gpu, t, rp_core_id(c), ev);
    default:
        return true;
    }
}

void rp_sim_core_finished(struct rp_sim *s, uint64_t end)
{
    if (end > s->end_cycle)
        s->end_cycle = end;
    if (--s->cores_active == 0 && (!s->gpu || rp_gpu_idle(s->gpu) || s->failed))
        ks_end(s->eng);
}

void rp_sim_gpu_idle(struct rp_sim *s)
{
    if (s->cores_active)
        return;
    /* A kernel nobody waited for ended after the last thread. */
    uint64_t end = now_cycles(s) + 1;
    if (end > s->end_cycle)
        s->end_cycle = end;
    ks_end(s->eng);
}

uint64_t rp_sim_map(struct rp_sim *s, uint64_t addr, uint64_t len)
{
    uint64_t vpn, pages = page_span(s, addr, len, &vpn), pfn, n = 0;
    for (uint64_t v = vpn; v < vpn + pages; v++) {
        if (cgm_page_table_lookup(s->pt, 0, v, &pfn))
            continue;
        if (!cgm_page_table_map(s->pt, 0, v, &pfn)) {
            char msg[sizeof s->error];
            snprintf(msg, sizeof msg, "%.400s: physical memory exhausted by the GPU driver's memory; raise "
                     "memory.size (%llu bytes)", s->trace_name, (unsigned long long)s->cfg.mem_size);
            rp_sim_fail(s, msg);
            break;
        }
        n++;
    }
    return n;
}

void rp_sim_unmap(struct rp_sim *s, uint64_t addr, uint64_t len)
{
    unmap(s, addr, len);
}

/* ---- running ---------------------------------------------------------- */

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t total_instructions(const struct rp_sim *s)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < s->cfg.cores; i++)
        n += rp_core_stats(s->cores[i])->instructions;
    return n;
}

/* A trace cut short (--partial) can leave threads waiting for a creation
 * or a futex wake the cut took: they end where the trace leaves them, and
 * the user is told which, and what of each was not replayed. */
static void end_cut_threads(struct rp_sim *s)
{
    for (size_t i = 0; i < s->sched.nthreads; i++) {
        const struct rp_thread *t = &s->sched.threads[i];
        uint64_t held = cgm_reader_stream(s->reader, t->stream_index)->totals.instructions;
        if (t->state == TH_WAITING_CREATE)
            fprintf(stderr, "replay: warning: %s: thread %llu not replayed: the event creating it "
                    "was cut off (%llu instructions of its stream dropped)\n", s->trace_name,
                    (unsigned long long)t->tid, (unsigned long long)held);
        else if (t->state == TH_BLOCKED)
            fprintf(stderr, "replay: warning: %s: thread %llu ended early: the futex wake it waits "
                    "for (event %llu) was cut off (%llu of the %llu instructions of its stream "
                    "replayed)\n", s->trace_name, (unsigned long long)t->tid,
                    (unsigned long long)t->blocked_on, (unsigned long long)t->instructions,
                    (unsigned long long)held);
    }
}

int rp_sim_run(struct rp_sim *s, bool progress)
{
    uint64_t expected = 0;
    for (size_t i = 0; i < s->sched.nthreads; i++)
        expected += cgm_reader_stream(s->reader, s->sched.threads[i].stream_index)->totals.instructions;
    const ks_domain *cpu = cgm_memsys_cpu_domain(s->ms);
    double start = seconds(), last = start;
    uint64_t cycle = 0;
    ks_stop stop;
    do {
        /* in steps of a million cycles, stopping at each window's end */
        uint64_t to = rp_timeline_stop_at(s->timeline, rp_windows_stop_at(s->windows, cycle + 1000000));
        stop = ks_run_cycles(s->eng, cpu, to);
        if (stop == KS_STOP_LIMIT && rp_windows_reached(s->windows, s, to)) {
            snprintf(s->error, sizeof s->error, "%s: writing the window statistics failed", s->trace_name);
            return -1;
        }
        if (stop == KS_STOP_LIMIT)
            rp_timeline_reached(s->timeline, s, to);
        if (to < cycle + 1000000)
            continue;
        cycle = to;
        if (stop == KS_STOP_LIMIT && s->gpu && rp_gpu_stuck(s->gpu, s->error, sizeof s->error)) {
            s->failed = true;
            break;
        }
        double t = seconds();
        if (progress && t - last >= 0.5) {
            last = t;
            uint64_t n = total_instructions(s);
            double rate = (double)n / (t - start);
            double left = rate > 0 && expected > n ? (double)(expected - n) / rate : 0;
            fprintf(stderr, "\rreplay: %llu instructions, %llu cycles, %.0f KIPS, about %.0f s left   ",
                    (unsigned long long)n, (unsigned long long)ks_domain_cycle(cpu), rate / 1000, left);
        }
    } while (stop == KS_STOP_LIMIT);
    if (progress)
        fputs("\n", stderr);
    if (stop == KS_STOP_ERROR) {
        snprintf(s->error, sizeof s->error, "simulation engine: %s", ks_engine_error(s->eng));
        return -1;
    }
    if (s->failed) /* s->error says why */
        return -1;
    const char *gpu_error = s->gpu ? cgm_memsys_gpu_error(s->ms) : "";
    if (gpu_error[0]) {
        snprintf(s->error, sizeof s->error, "%.200s: the GPU's memory: %.200s", s->trace_name,
                 gpu_error);
        return -1;
    }
    if (!rp_sched_all_done(&s->sched) && !cgm_reader_complete(s->reader)) {
        end_cut_threads(s);
    } else if (!rp_sched_all_done(&s->sched)) {
        size_t blocked = 0, uncreated = 0, gpu = 0;
        for (size_t i = 0; i < s->sched.nthreads; i++) {
            blocked += s->sched.threads[i].state == TH_BLOCKED;
            uncreated += s->sched.threads[i].state == TH_WAITING_CREATE;
            gpu += s->sched.threads[i].state == TH_WAITING_GPU;
        }
        snprintf(s->error, sizeof s->error, "%s: %zu threads could not finish (%zu waiting for a futex wake, "
                 "%zu never created, %zu waiting for a kernel): the trace's synchronisation is inconsistent",
                 s->trace_name, s->sched.threads_left, blocked, uncreated, gpu);
        return -1;
    }
    rp_regions_end(s, s->end_cycle); /* a region still open ends with the run */
    return 0;
}
