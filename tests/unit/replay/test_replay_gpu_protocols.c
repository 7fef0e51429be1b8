/* One GPU trace replays under each GPU protocol (gpu.protocol), with
 * results that differ in the direction the protocols say. Under si the
 * vector L1 writes every store through to its L2 bank as one WriteDiff
 * (its bytes; the bank acknowledges each with a Diff_Ack) and allocates
 * no line for it, so its write traffic is the store count, a store never
 * hits, and no L1 asks for an exclusive copy (no GetX); the bank does not
 * track the L1s' copies, so it sends them no invalidation or forward.
 * mesi's statistics are the fingerprints' (make fingerprints). An invalidation of the L1
 * (buffer_wbinvl1) takes the L1's sets in cycles under si and is free
 * under mesi. Under nmoesi (a GPU not coherent with the CPU) a store never
 * asks for ownership: the vector L1s send Get only, never GetX (mesi's
 * write-allocate L1 sends GetX for every store miss), and every
 * write-back carries at least one store (a block is written back at most
 * once for each time it was written since it was last clean). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgm/coh.h"
#include "tests/unit/gpu_recording.h"
#include "tests/unit/replay_run.h"

/* The sum of FIELD over the vector L1s (a path below each L1's object). */
static double l1_sum(const cJSON *j, const char *field)
{
    double sum = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "caches")) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "kind");
        if (cJSON_IsString(k) && !strcmp(k->valuestring, "gpu_l1v"))
            sum += gpu_stat(c, field);
    }
    return sum;
}

static cJSON *replay_under(const char *trace, const char *protocol, uint64_t coherence)
{
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    const struct cgm_coh_protocol *p = cgm_coh_protocol_find(protocol);
    assert_non_null(p);
    cfg.gpu_protocol = p->id;
    cfg.gpu_coherence = coherence;
    /* C-L3, or NC-MC (the GPU's own memory path) */
    cfg.gpu_connection = coherence == RP_GPU_COHERENT ? RP_GPU_TO_L3 : RP_GPU_TO_MC;
    return gpu_replay_stats(trace, &cfg);
}

static void test_si_against_mesi(void **state)
{
    (void)state;
    for (size_t i = 0; i < GPU_NWORK; i++)
        for (unsigned coh = 0; coh < 2; coh++) {
            uint64_t coherence = coh ? RP_GPU_COHERENT : RP_GPU_NONCOHERENT;
            uint64_t recorded = gpu_recorded_instructions(gpu_traces[i]);
            cJSON *mesi = replay_under(gpu_traces[i], "mesi", coherence);
            cJSON *si = replay_under(gpu_traces[i], "si", coherence);
            assert_int_equal(gpu_stat(si, "gpu.wavefront_instructions"), recorded);
            double stores = l1_sum(si, "stores"), loads = l1_sum(si, "loads"), hits = l1_sum(si, "hits");
            /* the same requests reach the L1s */
            assert_int_equal(stores, l1_sum(mesi, "stores"));
            assert_int_equal(loads, l1_sum(mesi, "loads"));
            /* write through, no write allocation, no grant asked for */
            assert_int_equal(l1_sum(si, "writebacks"), stores);
            assert_int_equal(l1_sum(si, "coherence_messages.sent.WriteDiff"), stores);
            assert_int_equal(l1_sum(si, "coherence_messages.received.Diff_Ack"), stores);
            assert_int_equal(l1_sum(si, "coherence_messages.sent.GetX"), 0);
            assert_true(l1_sum(mesi, "coherence_messages.sent.GetX") > 0 || stores == 0);
            /* non-inclusive bank: nothing taken back from the L1s */
            assert_int_equal(l1_sum(si, "coherence_messages.received.Inval"), 0);
            assert_int_equal(l1_sum(si, "coherence_messages.received.GetFwd"), 0);
            assert_int_equal(l1_sum(si, "coherence_messages.received.GetXFwd"), 0);
            /* every load that missed got its block as a PutS */
            assert_int_equal(l1_sum(si, "coherence_messages.received.PutS"),
                             l1_sum(si, "coherence_messages.sent.Get"));
            assert_true(hits <= loads);
            printf("%s (%s): L1 hits mesi %.0f si %.0f, L1 write-backs mesi %.0f si %.0f (stores %.0f), GPU "
                   "kernel cycles mesi %.0f si %.0f\n", gpu_workloads[i], coh ? "C-L3" : "NC-MC",
                   l1_sum(mesi, "hits"), hits, l1_sum(mesi, "writebacks"), l1_sum(si, "writebacks"), stores,
                   gpu_kernel_cycles(mesi), gpu_kernel_cycles(si));
            cJSON_Delete(mesi);
            cJSON_Delete(si);
        }
}

static void test_nmoesi_against_mesi(void **state)
{
    (void)state;
    double n_stores = 0;
    for (size_t i = 0; i < GPU_NWORK; i++) {
        uint64_t recorded = gpu_recorded_instructions(gpu_traces[i]);
        cJSON *mesi = replay_under(gpu_traces[i], "mesi", RP_GPU_NONCOHERENT);
        cJSON *nm = replay_under(gpu_traces[i], "nmoesi", RP_GPU_NONCOHERENT);
        assert_int_equal(gpu_stat(nm, "gpu.wavefront_instructions"), recorded);
        double stores = l1_sum(nm, "stores"), loads = l1_sum(nm, "loads");
        assert_int_equal(stores, l1_sum(mesi, "stores"));
        assert_int_equal(loads, l1_sum(mesi, "loads"));
        /* no ownership asked: Get only */
        assert_int_equal(l1_sum(nm, "coherence_messages.sent.GetX"), 0);
        assert_true(l1_sum(nm, "coherence_messages.sent.Get") >= l1_sum(nm, "misses"));
        if (stores > 0)
            assert_true(l1_sum(mesi, "coherence_messages.sent.GetX") > 0);
        assert_true(l1_sum(nm, "writebacks") <= stores);
        assert_true(l1_sum(nm, "hits") <= loads + stores);
        n_stores += stores;
        printf("%s: L1 hits mesi %.0f nmoesi %.0f, L1 write-backs mesi %.0f nmoesi %.0f (stores %.0f), GetX mesi "
               "%.0f, GPU kernel cycles mesi %.0f nmoesi %.0f\n", gpu_workloads[i], l1_sum(mesi, "hits"),
               l1_sum(nm, "hits"), l1_sum(mesi, "writebacks"), l1_sum(nm, "writebacks"), stores,
               l1_sum(mesi, "coherence_messages.sent.GetX"), gpu_kernel_cycles(mesi), gpu_kernel_cycles(nm));
        cJSON_Delete(mesi);
        cJSON_Delete(nm);
    }
    assert_true(n_stores > 0);
}

/* One wavefront waits for each of 16 buffer_wbinvl1 in turn (micro.cl's
 * wbinvl1_16): under si the kernel takes at least 16 times the L1's sets,
 * and at most that more than under mesi, where its time does not depend on
 * the L1's size. */
static void test_wbinvl1_takes_the_sets(void **state)
{
    (void)state;
    char trace[64];
    gpu_record(trace, "kernels/test", "gpu_micro wbinvl1_16 64 64");
    double mesi_cycles = 0;
    static const uint64_t sizes[] = { 16384, 65536 };
    for (size_t i = 0; i < 2; i++)
        for (unsigned si = 0; si < 2; si++) {
            struct rp_config cfg;
            rp_config_defaults(&cfg);
            cfg.gpu_l1.size = sizes[i];
            cfg.gpu_protocol = si ? cgm_coh_protocol_find("si")->id : 0;
            cJSON *j = gpu_replay_stats(trace, &cfg);
            double cycles = gpu_stat(j, "gpu.kernels.0.cycles"), sets = (double)sizes[i] / (double)(cfg.gpu_l1.ways * 64);
            cJSON_Delete(j);
            printf("L1 of %.0f sets, %s: %.0f cycles\n", sets, si ? "si" : "mesi", cycles);
            if (!si) {
                assert_true(cycles < 16 * sets);
                if (i)
                    assert_int_equal(cycles, mesi_cycles);
                mesi_cycles = cycles;
            } else {
                assert_true(cycles >= 16 * sets);
                assert_true(cycles - mesi_cycles <= 16 * sets);
            }
        }
    unlink(trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_si_against_mesi),
        cmocka_unit_test(test_wbinvl1_takes_the_sets),
        cmocka_unit_test(test_nmoesi_against_mesi),
    };
    return cmocka_run_group_tests(tests, gpu_record_workloads, gpu_remove_workloads);
}
