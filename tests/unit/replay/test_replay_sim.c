/* replay's simulation on synthetic traces written here with the trace
 * writer: L1D misses of a load stream equal an independent LRU model of
 * the same geometry; every recorded instruction retires; statistics repeat
 * byte for byte; threads start at their creation and a wait that no wake
 * satisfies is reported; register folding and branch predictors behave as
 * their definitions say; bad traces give errors naming the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include <cJSON.h>

#include "cgm/events.h"
#include "cgm/trace.h"
#include "cgm/x86rec.h"
#include "replay/bpred.h"
#include "replay/sim.h"
#include "tests/unit/replay_run.h"
#include "tests/unit/temp_file.h"

#define CODE 0x401000ull

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* mov rax, [rax]: each load depends on the one before, so the core
 * issues them in program order and the cache sees the trace's order. */
static const uint8_t MOV_LOAD[] = { 0x48, 0x8b, 0x00 };

static void add_static(struct cgm_writer *w)
{
    struct cgm_x86_static s = { .addr = CODE, .len = 3, .cls = CGM_X86_INT, .nmem = 1,
                                .nsrc = 1, .src = { CGM_X86_REG_RAX },
                                .ndst = 1, .dst = { CGM_X86_REG_RAX } };
    memcpy(s.bytes, MOV_LOAD, 3);
    uint8_t buf[CGM_X86_STATIC_BYTES_MAX];
    uint64_t prev = 0;
    size_t n = cgm_x86_static_encode(buf, &prev, &s);
    assert_int_equal(cgm_writer_add_section(w, 0x7fff0001u, CGM_X86_STATIC_SECTION, buf, n), 0);
}

static void add_load(struct cgm_wstream *st, struct cgm_x86_codec *codec, uint64_t addr)
{
    static uint8_t buf[CGM_X86_RECORD_BYTES_MAX];
    struct cgm_x86_access a = { .addr = addr, .size = 8, .insn = 0, .write = 0 };
    size_t n = cgm_x86_block_encode(codec, buf, CGM_X86_REC_BLOCK, CODE, 1, &a, 1);
    assert_int_equal(cgm_wstream_append(st, buf, n, 1), 0);
}

static void add_event(struct cgm_wstream *st, uint8_t type, uint64_t f0, uint64_t f1, uint64_t f2)
{
    struct cgm_event ev = { .type = type };
    ev.f[0] = f0;
    ev.f[1] = f1;
    ev.f[2] = f2;
    uint8_t buf[CGM_EVENT_BYTES_MAX];
    size_t n = cgm_event_encode(buf, &ev);
    assert_true(n > 0);
    assert_int_equal(cgm_wstream_append(st, buf, n, 0), 0);
}

static struct cgm_wstream *open_thread(struct cgm_writer *w, uint32_t id, uint64_t tid)
{
    struct cgm_stream_info info = { .id = id, .kind = CGM_STREAM_X86_THREAD, .thread_id = tid };
    struct cgm_wstream *s = cgm_writer_open_stream(w, &info);
    assert_non_null(s);
    return s;
}

static void finish(struct cgm_writer *w)
{
    char err[256];
    assert_int_equal(cgm_writer_finalize(w, err, sizeof err), 0);
}

/* A trace of one thread (stream 1, tid 100) over the one-load static
 * table: the stream and its block codec for add_load and add_event. */
struct one_thread {
    struct cgm_writer *w;
    struct cgm_wstream *st;
    struct cgm_x86_codec *codec;
};

static struct one_thread one_thread_open(const char *path)
{
    char err[256];
    struct one_thread t = { .w = cgm_writer_create(path, NULL, err, sizeof err) };
    assert_non_null(t.w);
    add_static(t.w);
    t.st = open_thread(t.w, 1, 100);
    t.codec = calloc(1, sizeof *t.codec);
    assert_non_null(t.codec);
    return t;
}

static void one_thread_close(struct one_thread *t)
{
    free(t->codec);
    finish(t->w);
}

static const char *temp_path(void) { return test_temp_file(NULL); }

/* An LRU cache of 64-byte blocks, written for this test. */
static uint64_t lru_misses(const uint64_t *addr, size_t n, unsigned sets, unsigned ways)
{
    uint64_t *tag = calloc((size_t)sets * ways, sizeof *tag), misses = 0; /* block + 1, MRU first */
    for (size_t i = 0; i < n; i++) {
        uint64_t b = addr[i] / 64;
        uint64_t *set = &tag[(b % sets) * ways];
        unsigned w = 0;
        while (w < ways && set[w] != b + 1)
            w++;
        if (w == ways) {
            misses++;
            w = ways - 1;
        }
        memmove(&set[1], &set[0], w * sizeof *set);
        set[0] = b + 1;
    }
    free(tag);
    return misses;
}

static uint64_t l1d_misses(struct rp_sim *s, int core)
{
    const struct cgm_coh_core_stats *cs = cgm_coh_core_stats(cgm_memsys_coh(s->ms), core);
    return cs->misses - cs->fetch_misses;
}

static void test_l1d_misses_match_lru(void **state)
{
    (void)state;
    enum { N = 30000 };
    uint64_t *addr = malloc(N * sizeof *addr);
    /* Blocks spread over pages far apart: a working set larger than 8 KiB
     * and smaller than 64 KiB, with reuse at every distance. */
    for (size_t i = 0; i < N; i++) {
        uint64_t blk = next_rand() % 600;
        addr[i] = 0x10000000ull + (blk / 64) * 0x100000ull + (blk % 64) * 64 + 8 * (next_rand() % 8);
    }
    const char *path = temp_path();
    struct one_thread t = one_thread_open(path);
    for (size_t i = 0; i < N; i++)
        add_load(t.st, t.codec, addr[i]);
    one_thread_close(&t);

    static const unsigned kib[] = { 8, 16, 32, 64 };
    for (int k = 0; k < 4; k++) {
        struct rp_config cfg;
        rp_config_defaults(&cfg);
        cfg.cores = 1;
        cfg.l3_slices = 1;
        /* 32 sets of 64 bytes: the set index lies inside the 4 KiB page
         * offset, so replay's physical page placement keeps the sets. */
        unsigned sets = 32, ways = kib[k] * 1024 / (sets * 64);
        cfg.l1d.size = kib[k] * 1024;
        cfg.l1d.ways = ways;
        struct rp_sim *s = replay_run_checked(path, &cfg);
        /* Every load is its own instruction and nothing else runs. */
        assert_int_equal(rp_core_stats(s->cores[0])->instructions, N);
        /* Each load waits for the one before, so none joins a miss in
         * flight: every miss is a primary miss, as in the LRU model. */
        uint64_t coalesced = cgm_coh_core_stats(cgm_memsys_coh(s->ms), 0)->coalesced;
        assert_int_equal(coalesced, 0);
        assert_int_equal(l1d_misses(s, 0), lru_misses(addr, N, sets, ways));
        rp_sim_destroy(s);
    }
    free(addr);
    unlink(path);
}

/* The data TLB sees the loads in program order: its misses equal an LRU
 * model over page numbers (16 sets x 4 ways), and since each load waits
 * for the one before, every miss adds the walk latency to the run. */
static void test_tlb_walks(void **state)
{
    (void)state;
    enum { N = 4000 };
    uint64_t *addr = malloc(N * sizeof *addr), *pages = malloc(N * sizeof *pages);
    for (size_t i = 0; i < N; i++) {
        addr[i] = 0x50000000ull + (next_rand() % 200) * 4096 + 64 * (next_rand() % 4);
        pages[i] = (addr[i] >> 12) * 64; /* one "block" per page for the LRU model */
    }
    const char *path = temp_path();
    struct one_thread t = one_thread_open(path);
    for (size_t i = 0; i < N; i++)
        add_load(t.st, t.codec, addr[i]);
    one_thread_close(&t);
    uint64_t cycles[2], misses[2];
    for (int k = 0; k < 2; k++) {
        struct rp_config cfg;
        rp_config_defaults(&cfg);
        cfg.cores = 1;
        cfg.walk_latency = k ? 100 : 0;
        struct rp_sim *s = replay_run_checked(path, &cfg);
        cycles[k] = s->end_cycle;
        misses[k] = rp_core_tlb(s->cores[0], true)->st.misses;
        assert_int_equal(rp_core_tlb(s->cores[0], true)->st.translations, N);
        rp_sim_destroy(s);
    }
    assert_int_equal(misses[0], lru_misses(pages, N, 16, 4));
    assert_int_equal(misses[1], misses[0]);
    /* The walk adds to the dependence chain; the memory system's timing
     * shifts a little with the new issue times, so allow 2%. */
    uint64_t expect = misses[1] * 100, got = cycles[1] - cycles[0];
    print_message("tlb: %llu misses, %llu extra cycles\n", (unsigned long long)misses[1],
                  (unsigned long long)got);
    assert_true(got * 100 >= expect * 98 && got * 100 <= expect * 102);
    free(addr);
    free(pages);
    unlink(path);
}

/* munmap, brk and mprotect from the trace's events: ROUNDS rounds each
 * touch the PAGES pages of one region and unmap it (the second half of the
 * rounds give the pages back by shrinking the heap instead), with memory.size
 * holding fewer frames than all rounds touch together: the run completes
 * only if unmapped frames are reused. Every page unmapped is counted, every
 * touch after an unmap faults afresh; an mprotect keeps the pages (no fault
 * follows) but drops their TLB entries. */
static void test_unmapped_pages_are_reused(void **state)
{
    (void)state;
    enum { ROUNDS = 12, PAGES = 48 };
    const uint64_t base = 0x60000000ull;
    const char *path = temp_path();
    struct one_thread tr = one_thread_open(path);
    struct cgm_wstream *st = tr.st;
    struct cgm_x86_codec *codec = tr.codec;
    for (int r = 0; r < ROUNDS; r++) {
        for (int p = 0; p < PAGES; p++)
            add_load(st, codec, base + (uint64_t)p * 4096 + 8 * (uint64_t)r);
        if (r == 0) { /* read-only now: the TLB forgets, the pages stay */
            add_event(st, CGM_EV_MPROTECT, base, PAGES * 4096ull, 1);
            for (int p = 0; p < PAGES; p++)
                add_load(st, codec, base + (uint64_t)p * 4096 + 16);
        }
        if (r < ROUNDS / 2)
            add_event(st, CGM_EV_MUNMAP, base, PAGES * 4096ull, 0);
        else /* a heap ending at base + PAGES pages shrinks back to base + 1 byte */
            add_event(st, CGM_EV_BRK, base + PAGES * 4096ull, base + 1, 0);
    }
    one_thread_close(&tr);
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.cores = 1;
    cfg.mem_size = 1u << 20; /* 256 frames: fewer than the 576 pages touched */
    struct rp_sim *s = replay_run_checked(path, &cfg);
    const struct cgm_mmu_stats *t = &rp_core_tlb(s->cores[0], true)->st;
    /* brk keeps the page holding the new end (base + 1): one page fewer. */
    uint64_t unmapped = (ROUNDS / 2) * PAGES + (ROUNDS / 2) * (PAGES - 1);
    assert_int_equal(cgm_page_table_unmapped(s->pt), unmapped);
    /* Faults: every page of round 0, then the pages each unmap took away. */
    assert_int_equal(t->hard_faults, PAGES + unmapped - (PAGES - 1));
    /* The 48 consecutive pages take 3 ways of each of the DTLB's 16 sets, so
     * it holds them all: the mprotect drops PAGES entries, each munmap PAGES,
     * each brk PAGES - 1. */
    assert_int_equal(cfg.tlb_sets, 16);
    assert_int_equal(cfg.tlb_ways, 4);
    assert_int_equal(t->shootdowns, PAGES + (ROUNDS / 2) * PAGES + (ROUNDS / 2) * (PAGES - 1));
    assert_int_equal(t->soft_faults, PAGES); /* after the mprotect: pages kept */
    assert_true(cgm_page_table_mapped(s->pt) <= PAGES);
    rp_sim_destroy(s);
    unlink(path);
}

static char *stats_text(struct rp_sim *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(rp_stats_write(s, f, NULL, false), 0);
    fclose(f);
    return text;
}

/* One thread of 3000 random loads; the region of interest holds the 1000
 * between its markers. */
static const char *roi_trace(void)
{
    const char *path = temp_path();
    char err[256];
    struct cgm_writer *w = cgm_writer_create(path, NULL, err, sizeof err);
    add_static(w);
    struct cgm_wstream *st = open_thread(w, 1, 100);
    struct cgm_x86_codec *codec = calloc(1, sizeof *codec);
    for (int i = 0; i < 3000; i++) {
        if (i == 1000)
            add_event(st, CGM_EV_ROI_BEGIN, 1, 0, 0);
        if (i == 2000)
            add_event(st, CGM_EV_ROI_END, 2, 0, 0);
        add_load(st, codec, 0x20000000ull + (next_rand() % 4096) * 64);
    }
    free(codec);
    finish(w);
    return path;
}

static void test_repeatable_and_roi(void **state)
{
    (void)state;
    const char *path = roi_trace();
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    struct rp_sim *a = replay_run_checked(path, &cfg), *b = replay_run_checked(path, &cfg);
    char *ta = stats_text(a), *tb = stats_text(b);
    assert_string_equal(ta, tb);
    /* The region holds exactly the 1000 loads between the markers. */
    assert_non_null(strstr(ta, "\"roi\""));
    const char *roi = strstr(ta, "\"roi\"");
    const char *ins = strstr(roi, "\"instructions\":");
    assert_non_null(ins);
    assert_int_equal(strtoull(ins + strlen("\"instructions\":"), NULL, 10), 1000);
    /* --roi: the region alone. */
    char *tr = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&tr, &len);
    assert_int_equal(rp_stats_write(a, f, NULL, true), 0);
    fclose(f);
    assert_null(strstr(tr, "\"roi\""));
    ins = strstr(tr, "\"instructions\":");
    assert_non_null(ins);
    assert_int_equal(strtoull(ins + strlen("\"instructions\":"), NULL, 10), 1000);
    free(tr);
    free(ta);
    free(tb);
    rp_sim_destroy(a);
    rp_sim_destroy(b);
    unlink(path);
}

/* Thread 100 creates 200, then waits for the wake (seq 7) that 200 does
 * after its loads; 300 is created but waits for a wake nobody does. */
/* Within the region, every core's cycles are accounted for: each is a commit
 * cycle or a stall of one kind, also on a core that sleeps across a marker
 * (here the second core, which has no thread at all). */
static void test_roi_accounts_every_cycle(void **state)
{
    (void)state;
    const char *path = roi_trace();
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.cores = 2;
    struct rp_sim *s = replay_run_checked(path, &cfg);
    char *text = stats_text(s);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    const char *parts[] = { NULL, "roi" };
    for (int p = 0; p < 2; p++) {
        const cJSON *top = parts[p] ? cJSON_GetObjectItem(root, parts[p]) : root;
        const cJSON *cores = cJSON_GetObjectItem(top, "cores"), *core;
        assert_int_equal(cJSON_GetArraySize(cores), 2);
        cJSON_ArrayForEach(core, cores) {
            double sum = cJSON_GetObjectItem(core, "commit_cycles")->valuedouble, cycles =
                cJSON_GetObjectItem(core, "cycles")->valuedouble;
            const cJSON *stall;
            cJSON_ArrayForEach(stall, cJSON_GetObjectItem(core, "stall_cycles"))
                sum += stall->valuedouble;
            assert_true(cycles > 1000);
            /* One cycle either way: a marker's cycle is the region's first or last. */
            if (sum < cycles - 1 || sum > cycles + 1)
                fail_msg("%s core %d: %.0f cycles, %.0f accounted", parts[p] ? parts[p] : "run",
                         cJSON_GetObjectItem(core, "id")->valueint, cycles, sum);
        }
    }
    cJSON_Delete(root);
    free(text);
    rp_sim_destroy(s);
    unlink(path);
}

static const char *threads_trace(bool broken)
{
    const char *path = temp_path();
    char err[256];
    struct cgm_writer *w = cgm_writer_create(path, NULL, err, sizeof err);
    add_static(w);
    struct cgm_x86_codec *c1 = calloc(1, sizeof *c1), *c2 = calloc(1, sizeof *c2);
    struct cgm_wstream *t1 = open_thread(w, 1, 100), *t2 = open_thread(w, 2, 200);
    for (int i = 0; i < 100; i++)
        add_load(t1, c1, 0x30000000ull + 64 * (uint64_t)i);
    add_event(t1, CGM_EV_THREAD_CREATE, 1, 200, 0);
    add_event(t1, CGM_EV_FUTEX_WAIT, 8, 0x5000, broken ? 99 : 7);
    for (int i = 0; i < 100; i++)
        add_load(t1, c1, 0x30000000ull + 64 * (uint64_t)i);
    for (int i = 0; i < 500; i++)
        add_load(t2, c2, 0x40000000ull + 64 * (uint64_t)i);
    add_event(t2, CGM_EV_FUTEX_WAKE, 7, 0x5000, 1);
    add_event(t2, CGM_EV_THREAD_EXIT, 9, 200, 0);
    free(c1);
    free(c2);
    finish(w);
    return path;
}

static void test_threads(void **state)
{
    (void)state;
    const char *ok = threads_trace(false), *bad = threads_trace(true);
    for (unsigned cores = 1; cores <= 2; cores++) {
        struct rp_config cfg;
        rp_config_defaults(&cfg);
        cfg.cores = cores;
        struct rp_sim *s = replay_run_checked(ok, &cfg);
        assert_int_equal(s->sched.threads[0].instructions, 200);
        assert_int_equal(s->sched.threads[1].instructions, 500);
        uint64_t total = 0;
        for (unsigned c = 0; c < cores; c++)
            total += rp_core_stats(s->cores[c])->instructions;
        assert_int_equal(total, 700);
        if (cores == 2) /* the waiter lets the other core's thread run */
            assert_true(rp_core_stats(s->cores[0])->instructions > 0 &&
                        rp_core_stats(s->cores[1])->instructions > 0);
        rp_sim_destroy(s);
    }
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    char err[600];
    struct rp_sim *s = rp_sim_create(&cfg, bad, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(rp_sim_run(s, false), -1);
    assert_non_null(strstr(s->error, "futex"));
    rp_sim_destroy(s);
    unlink(ok);
    unlink(bad);
}

/* rp_sim_stop (which rp_sim_destroy calls) ends every context: after a
 * finished run (the memory system's contexts still wait for work), after a
 * failed one (a core waits for a wake that never comes) and when the run
 * never started. KnightSim leaves stale stack state behind a context
 * destroyed while blocked. */
static void test_stop_ends_every_context(void **state)
{
    (void)state;
    const char *ok = threads_trace(false), *bad = threads_trace(true);
    const char *traces[3] = { ok, bad, ok };
    for (int k = 0; k < 3; k++) {
        struct rp_config cfg;
        rp_config_defaults(&cfg);
        cfg.cores = 2;
        char err[600];
        struct rp_sim *s = rp_sim_create(&cfg, traces[k], err, sizeof err);
        assert_non_null(s);
        if (k < 2)
            assert_int_equal(rp_sim_run(s, false), k == 0 ? 0 : -1);
        assert_true(ks_engine_contexts(s->eng) > 0);
        rp_sim_stop(s);
        assert_int_equal(ks_engine_contexts(s->eng), 0);
        rp_sim_destroy(s);
    }
    unlink(ok);
    unlink(bad);
}

/* Three threads that never synchronise on one core with a short quantum:
 * they take turns (each turn ends at a quantum, and the waiting threads
 * run), and every instruction retires. A GPU stream is skipped. */
static void test_time_slicing_and_gpu_streams(void **state)
{
    (void)state;
    const char *path = temp_path();
    char err[256];
    struct cgm_writer *w = cgm_writer_create(path, NULL, err, sizeof err);
    add_static(w);
    struct cgm_x86_codec *codec[3];
    struct cgm_wstream *t[3];
    for (int i = 0; i < 3; i++) {
        codec[i] = calloc(1, sizeof *codec[i]);
        t[i] = open_thread(w, (uint32_t)(i + 1), 100 + (uint64_t)i);
    }
    add_event(t[0], CGM_EV_THREAD_CREATE, 1, 101, 0);
    add_event(t[0], CGM_EV_THREAD_CREATE, 2, 102, 0);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3000; k++)
            add_load(t[i], codec[i], 0x60000000ull + 0x100000ull * (uint64_t)i + 64 * (uint64_t)(k % 700));
    struct cgm_stream_info gi = { .id = 9, .kind = CGM_STREAM_GPU_WORKGROUP, .launch_id = 1 };
    struct cgm_wstream *g = cgm_writer_open_stream(w, &gi);
    assert_non_null(g);
    uint8_t junk[4] = { 0x80, 1, 2, 3 };
    assert_int_equal(cgm_wstream_append(g, junk, sizeof junk, 1), 0);
    for (int i = 0; i < 3; i++)
        free(codec[i]);
    finish(w);
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.cores = 1;
    cfg.quantum = 1000;
    struct rp_sim *s = replay_run_checked(path, &cfg);
    for (int i = 0; i < 3; i++)
        assert_int_equal(s->sched.threads[i].instructions, 3000);
    uint64_t turns = rp_core_stats(s->cores[0])->context_switches;
    /* At least one turn per quantum while more than one thread is left. */
    print_message("slicing: %llu turns in %llu cycles\n", (unsigned long long)turns,
                  (unsigned long long)s->end_cycle);
    assert_true(turns >= 6);
    assert_true(turns * cfg.quantum <= s->end_cycle + cfg.quantum);
    rp_sim_destroy(s);
    unlink(path);
}

/* A trace recorded by tracegen from a real guest: every instruction its
 * stream holds retires (the static table and block walk agree with the
 * recorder), and the statistics repeat byte for byte. */
static void test_recorded_guest(void **state)
{
    (void)state;
    const char *bin = getenv("CGM_BIN"), *build = getenv("CGM_BUILD");
    char guest[512], cmd[1200];
    snprintf(guest, sizeof guest, "%s/traces/x86/musl/strings", build ? build : "build");
    if (access(guest, X_OK)) {
        print_message("skipped: %s missing (make x86-guests)\n", guest);
        skip();
    }
    const char *path = temp_path();
    snprintf(cmd, sizeof cmd, "%s/tracegen -o %s -- %s > /dev/null", bin ? bin : "bin", path, guest);
    assert_true(system(cmd) != -1); /* tracegen exits with the guest's status */
    char err[600];
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    assert_non_null(r);
    assert_true(cgm_reader_complete(r));
    uint64_t recorded = 0;
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++)
        if (cgm_reader_stream(r, i)->info.kind == CGM_STREAM_X86_THREAD)
            recorded += cgm_reader_stream(r, i)->totals.instructions;
    cgm_reader_close(r);
    assert_true(recorded > 100000);
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    struct rp_sim *a = replay_run_checked(path, &cfg), *b = replay_run_checked(path, &cfg);
    uint64_t retired = 0;
    for (unsigned c = 0; c < cfg.cores; c++)
        retired += rp_core_stats(a->cores[c])->instructions;
    assert_int_equal(retired, recorded);
    char *ta = stats_text(a), *tb = stats_text(b);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);
    rp_sim_destroy(a);
    rp_sim_destroy(b);
    unlink(path);
}

/* Hostile streams: well-framed records of random content (block records
 * with random fields and accesses, random events, random types) after a
 * valid static table. Replay must finish or stop with a message naming the
 * trace; never crash or hang (the ASan run checks memory safety). */
static void test_hostile_records(void **state)
{
    (void)state;
    static uint8_t rec[CGM_X86_RECORD_BYTES_MAX];
    for (int round = 0; round < 60; round++) {
        const char *path = temp_path();
        char err[600];
        struct cgm_writer *w = cgm_writer_create(path, NULL, err, sizeof err);
        add_static(w);
        struct cgm_wstream *st = open_thread(w, 1, 100);
        struct cgm_x86_codec *codec = calloc(1, sizeof *codec);
        for (int k = 0; k < 40; k++) {
            size_t n;
            switch (next_rand() % 4) {
            case 0: { /* a block record with random fields, often at the known code */
                struct cgm_x86_access acc[8];
                uint32_t na = (uint32_t)(next_rand() % 8);
                for (uint32_t a = 0; a < na; a++)
                    acc[a] = (struct cgm_x86_access){ .addr = next_rand() >> (next_rand() % 64),
                                                      .size = (uint32_t)(1 + next_rand() % 600),
                                                      .insn = (uint8_t)(next_rand() % 70),
                                                      .write = (uint8_t)(next_rand() & 1) };
                uint64_t start = next_rand() % 3 ? CODE : next_rand();
                n = cgm_x86_block_encode(codec, rec, next_rand() % 2 ? CGM_X86_REC_BLOCK : CGM_X86_REC_PARTIAL,
                                         start, (uint32_t)(next_rand() % 3), acc, na);
                break;
            }
            case 1: { /* an event with random fields */
                struct cgm_event ev = { .type = (uint8_t)(1 + next_rand() % 0x21) };
                for (int f = 0; f < CGM_EVENT_FIELDS_MAX; f++)
                    ev.f[f] = next_rand() % 4 ? next_rand() % 16 : next_rand();
                n = cgm_event_encode(rec, &ev);
                if (!n) {
                    rec[0] = 0x05;
                    n = 1;
                }
                break;
            }
            default: /* random bytes */
                n = 1 + next_rand() % 40;
                for (size_t b = 0; b < n; b++)
                    rec[b] = (uint8_t)next_rand();
                if (next_rand() % 2)
                    rec[0] = (uint8_t)(0x40 + next_rand() % 2);
            }
            assert_int_equal(cgm_wstream_append(st, rec, n, 0), 0);
        }
        free(codec);
        finish(w);
        struct rp_config cfg;
        rp_config_defaults(&cfg);
        cfg.cores = 1 + (unsigned)(round % 2);
        struct rp_sim *s = rp_sim_create(&cfg, path, err, sizeof err);
        assert_non_null(s);
        if (rp_sim_run(s, false))
            assert_non_null(strstr(s->error, path));
        rp_sim_destroy(s);
        unlink(path);
    }
}

static void test_bad_traces(void **state)
{
    (void)state;
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    char err[600];
    assert_null(rp_sim_create(&cfg, "/nonexistent/x.cgt", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/x.cgt"));
    const char *junk = temp_path();
    FILE *f = fopen(junk, "w");
    fputs("this is not a trace\n", f);
    fclose(f);
    assert_null(rp_sim_create(&cfg, junk, err, sizeof err));
    assert_non_null(strstr(err, junk));
    /* A trace without the static table. */
    const char *nostatic = temp_path();
    struct cgm_writer *w = cgm_writer_create(nostatic, NULL, err, sizeof err);
    struct cgm_wstream *st = open_thread(w, 1, 100);
    struct cgm_x86_codec *codec = calloc(1, sizeof *codec);
    add_load(st, codec, 0x1000);
    free(codec);
    finish(w);
    assert_null(rp_sim_create(&cfg, nostatic, err, sizeof err));
    assert_non_null(strstr(err, "x86.static"));
    unlink(junk);
    unlink(nostatic);
}

static void test_register_folding(void **state)
{
    (void)state;
    /* the x87 stack slots and status word are one register */
    for (unsigned i = 1; i < 8; i++)
        assert_int_equal(rp_canonical_reg(CGM_X86_REG_ST0 + i), rp_canonical_reg(CGM_X86_REG_ST0));
    assert_int_equal(rp_canonical_reg(CGM_X86_REG_FPU), rp_canonical_reg(CGM_X86_REG_ST0));
    /* the PC is none; out-of-range registers from a hostile trace are none */
    assert_int_equal(rp_canonical_reg(CGM_X86_REG_RIP), RP_NO_REG);
    assert_int_equal(rp_canonical_reg(200), RP_NO_REG);
    /* the rest stay apart */
    for (unsigned a = 0; a < CGM_X86_REG_ST0; a++)
        for (unsigned b = a + 1; b < CGM_X86_REG_COUNT; b++)
            if (b != CGM_X86_REG_RIP)
                assert_int_not_equal(rp_canonical_reg(a), rp_canonical_reg(b));
    for (unsigned r = CGM_X86_REG_FLAGS; r < CGM_X86_REG_COUNT; r++)
        assert_true(r == CGM_X86_REG_FPU || r == CGM_X86_REG_RIP || rp_canonical_reg(r) < RP_REGS_MAX);
}

static void test_predictors(void **state)
{
    (void)state;
    for (int g = 0; g < 2; g++) {
        struct rp_bpred b;
        assert_int_equal(rp_bpred_init(&b, g ? RP_GSHARE : RP_BIMODAL, 1024, 8, 1), 0);
        /* Counters start weakly not-taken: an always-taken branch is
         * mispredicted once, then learnt. */
        int wrong = 0;
        for (int i = 0; i < 100; i++)
            wrong += !rp_bpred_cond(&b, 0x401234, true);
        assert_int_equal(wrong, g ? 9 : 1); /* gshare: one per new history value until it fills */
        rp_bpred_free(&b);
    }
    /* Alternating outcomes: a bimodal counter is wrong at least half the
     * time; gshare separates the two histories and stops missing. */
    struct rp_bpred bi, gs;
    rp_bpred_init(&bi, RP_BIMODAL, 1024, 8, 1);
    rp_bpred_init(&gs, RP_GSHARE, 1024, 8, 1);
    int wrong_bi = 0, wrong_gs = 0;
    for (int i = 0; i < 1000; i++) {
        bool t = i & 1;
        bool okb = rp_bpred_cond(&bi, 0x401000, t), okg = rp_bpred_cond(&gs, 0x401000, t);
        if (i >= 100) {
            wrong_bi += !okb;
            wrong_gs += !okg;
        }
    }
    assert_true(wrong_bi >= 450);
    assert_int_equal(wrong_gs, 0);
    rp_bpred_free(&bi);
    rp_bpred_free(&gs);
    /* gselect with 7 history bits over 7 address bits, counters from 0:
     * the predictor cachegrind describes, modelled here on its own. */
    struct rp_bpred gsel;
    assert_int_equal(rp_bpred_init(&gsel, RP_GSELECT, 16384, 7, 0), 0);
    static uint8_t model[16384];
    memset(model, 0, sizeof model);
    unsigned hist = 0;
    int wrong_model = 0, wrong_gsel = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t pc = 0x400000 + (next_rand() % 300) * 3;
        bool taken = (pc / 3) % 5 == 0 ? (next_rand() % 4 != 0) : ((pc / 3) % 2 == 0);
        unsigned idx = ((hist & 127u) << 7) | (unsigned)(pc & 127u);
        bool predicted = model[idx] >= 2;
        wrong_model += predicted != taken;
        if (taken && model[idx] < 3)
            model[idx]++;
        if (!taken && model[idx] > 0)
            model[idx]--;
        hist = (hist << 1) | taken;
        wrong_gsel += !rp_bpred_cond(&gsel, pc, taken);
    }
    assert_int_equal(wrong_gsel, wrong_model);
    rp_bpred_free(&gsel);
    /* The return stack pairs calls and returns. */
    struct rp_bpred r;
    rp_bpred_init(&r, RP_BIMODAL, 64, 0, 1);
    rp_bpred_call(&r, 0x1000);
    rp_bpred_call(&r, 0x2000);
    assert_true(rp_bpred_ret(&r, 0x2000));
    assert_true(rp_bpred_ret(&r, 0x1000));
    assert_false(rp_bpred_ret(&r, 0x3000));
    rp_bpred_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_l1d_misses_match_lru),
        cmocka_unit_test(test_tlb_walks),
        cmocka_unit_test(test_unmapped_pages_are_reused),
        cmocka_unit_test(test_repeatable_and_roi),
        cmocka_unit_test(test_roi_accounts_every_cycle),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_stop_ends_every_context),
        cmocka_unit_test(test_time_slicing_and_gpu_streams),
        cmocka_unit_test(test_recorded_guest),
        cmocka_unit_test(test_hostile_records),
        cmocka_unit_test(test_bad_traces),
        cmocka_unit_test(test_register_folding),
        cmocka_unit_test(test_predictors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
