/* replay's per-cache statistics on a read sweep whose expected counts
 * follow from the cache geometry: one core reads BLOCKS new blocks, eight
 * independent 8-byte loads per block, so
 * - the L1D misses every load; the first load of a block is a primary miss
 *   and the seven others join it in flight (secondary misses), as the core
 *   issues them long before a miss to memory returns;
 * - the L2 (8 ways x 512 sets, LRU) receives each block once, and the
 *   code's one line; a set that receives k > 8 blocks evicts k - 8 of them.
 *   Every set is overfull, so the code line adds one eviction wherever it
 *   is placed, and, the oldest in its set, it is evicted (held shared: a
 *   silent eviction). Each evicted data block is unwritten and held
 *   exclusive, so it leaves as a clean eviction (Evict notice), never as a
 *   write-back;
 * - the L1s exchange no coherence messages (they point at their L2); every
 *   message type's sends over all caches equal its receipts and the
 *   system's total, and the L2 sends one request per miss and one Evict
 *   per clean eviction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "cgm/trace.h"
#include "cgm/x86rec.h"
#include "replay/sim.h"
#include "tests/unit/replay_run.h"
#include "tests/unit/temp_file.h"

#define CODE 0x401000ull
#define DATA 0x20000000ull
/* mov rbx, [rcx]: rcx is never written, so the loads are independent. */
static const uint8_t MOV_RBX_RCX[] = { 0x48, 0x8b, 0x19 };

enum { BLOCKS = 6144, L2_SETS = 512, L2_WAYS = 8 };

static const char *sweep_trace(void)
{
    const char *path = test_temp_file(NULL);
    char err[256];
    struct cgm_writer *w = cgm_writer_create(path, NULL, err, sizeof err);
    assert_non_null(w);
    struct cgm_x86_static s = { .addr = CODE, .len = 3, .cls = CGM_X86_INT, .nmem = 1,
                                .nsrc = 1, .src = { CGM_X86_REG_RAX + 1 /* rcx */ },
                                .ndst = 1, .dst = { CGM_X86_REG_RAX + 3 /* rbx */ } };
    memcpy(s.bytes, MOV_RBX_RCX, 3);
    uint8_t buf[CGM_X86_STATIC_BYTES_MAX];
    uint64_t prev = 0;
    size_t n = cgm_x86_static_encode(buf, &prev, &s);
    assert_int_equal(cgm_writer_add_section(w, 0x7fff0001u, CGM_X86_STATIC_SECTION, buf, n), 0);
    struct cgm_stream_info info = { .id = 1, .kind = CGM_STREAM_X86_THREAD, .thread_id = 100 };
    struct cgm_wstream *st = cgm_writer_open_stream(w, &info);
    assert_non_null(st);
    struct cgm_x86_codec codec;
    memset(&codec, 0, sizeof codec);
    static uint8_t rec[CGM_X86_RECORD_BYTES_MAX];
    for (uint64_t b = 0; b < BLOCKS; b++)
        for (uint64_t k = 0; k < 8; k++) {
            struct cgm_x86_access a = { .addr = DATA + 64 * b + 8 * k, .size = 8 };
            n = cgm_x86_block_encode(&codec, rec, CGM_X86_REC_BLOCK, CODE, 1, &a, 1);
            assert_int_equal(cgm_wstream_append(st, rec, n, 1), 0);
        }
    assert_int_equal(cgm_writer_finalize(w, err, sizeof err), 0);
    return path;
}

/* The JSON (TEXT false) or the text summary (TEXT true) of TRACE. */
static char *stats_out(const char *trace, bool text_summary)
{
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.cores = 1;
    assert_int_equal(cfg.l2.size / (cfg.l2.ways * cfg.l2.block), L2_SETS);
    assert_int_equal(cfg.l2.ways, L2_WAYS);
    struct rp_sim *s = replay_run_checked(trace, &cfg);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(rp_stats_write(s, text_summary ? NULL : f, text_summary ? f : NULL, false), 0);
    fclose(f);
    rp_sim_destroy(s);
    return text;
}

static char *stats_json(const char *trace) { return stats_out(trace, false); }

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

static const cJSON *cache(const cJSON *root, const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "caches")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
            return c;
    }
    fail_msg("no cache %s", name);
    return NULL;
}

static void test_sweep_counts(void **state)
{
    (void)state;
    const char *trace = sweep_trace();
    char *a = stats_json(trace), *b = stats_json(trace);
    unlink(trace);
    assert_string_equal(a, b); /* byte-identical across runs */
    cJSON *root = cJSON_Parse(a);
    assert_non_null(root);

    const cJSON *l1d = cache(root, "core0.l1d"), *l2 = cache(root, "core0.l2");
    assert_true(num(l1d, "misses") == 8.0 * BLOCKS);
    assert_true(num(l1d, "secondary_misses") == 7.0 * BLOCKS);

    /* Blocks are consecutive, so the sets fill evenly. */
    double per_set = (double)BLOCKS / L2_SETS, evictions = L2_SETS * (per_set - L2_WAYS);
    assert_true(num(l2, "misses") == BLOCKS + 1);
    assert_true(num(l2, "evictions") == evictions + 1);
    assert_true(num(l2, "clean_evictions") == evictions);
    assert_true(num(l2, "writebacks") == 0);

    /* Messages: the L1s point at their L2; the L2 sends one request per
     * miss and one Evict per clean eviction; sends = receipts = totals. */
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(l1d, "coherence_messages_in")->valuestring, "core0.l2");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(cache(root, "core0.l1i"), "coherence_messages_in")->valuestring,
                        "core0.l2");
    const cJSON *l2sent = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(l2, "coherence_messages"), "sent");
    assert_true(num(l2sent, cgm_coh_msg_names[COH_GET]) + num(l2sent, cgm_coh_msg_names[COH_GETS]) +
                    num(l2sent, cgm_coh_msg_names[COH_GETX]) ==
                num(l2, "misses"));
    assert_true(num(l2sent, cgm_coh_msg_names[COH_GETS]) == 1); /* the code line */
    assert_true(num(l2sent, cgm_coh_msg_names[COH_EVICT]) == evictions);
    assert_true(num(l2sent, cgm_coh_msg_names[COH_WB]) == 0);
    const cJSON *totals = cJSON_GetObjectItemCaseSensitive(root, "coherence_messages");
    for (int t = 0; t < COH_NTYPES; t++) {
        if (!(cgm_coh_protocols[0]->messages >> t & 1)) { /* a type mesi never sends is not listed */
            assert_null(cJSON_GetObjectItemCaseSensitive(totals, cgm_coh_msg_names[t]));
            continue;
        }
        double sent = 0, received = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "caches")) {
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(c, "coherence_messages");
            if (!m)
                continue;
            sent += num(cJSON_GetObjectItemCaseSensitive(m, "sent"), cgm_coh_msg_names[t]);
            received += num(cJSON_GetObjectItemCaseSensitive(m, "received"), cgm_coh_msg_names[t]);
        }
        assert_true(sent == received);
        assert_true(sent == num(totals, cgm_coh_msg_names[t]));
    }
    cJSON_Delete(root);
    free(a);
    free(b);
}

/* The text summary shows the same stall cycles as the JSON: the sweep's
 * loads miss to memory, so its core waits for memory. */
static void test_text_summary_matches_json(void **state)
{
    (void)state;
    const char *trace = sweep_trace();
    char *json = stats_json(trace), *text = stats_out(trace, true);
    unlink(trace);
    cJSON *root = cJSON_Parse(json);
    assert_non_null(root);
    const cJSON *core = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "cores"), 0);
    double memory = num(cJSON_GetObjectItemCaseSensitive(core, "stall_cycles"), "memory");
    assert_true(memory > 0);
    const char *at = strstr(text, "stalls: memory ");
    assert_non_null(at);
    assert_true(strtod(at + strlen("stalls: memory "), NULL) == memory);
    cJSON_Delete(root);
    free(json);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_counts),
        cmocka_unit_test(test_text_summary_matches_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
