/* KnightSim clock domains with ratios that do not divide (4, 1, 2, 1.6, 3.2
 * and 1.5 GHz): the exact time base, cycle counts over a microsecond, the
 * interleaving of all domains against a model that compares times k/f by
 * cross-multiplication (no common time base), wake-ups across domains at the
 * next edge, and refused frequency sets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/knightsim.h"

#define ND 6
static const uint64_t freq[ND] = { 4000000000ull, 1000000000ull, 2000000000ull,
                                   1600000000ull, 3200000000ull, 1500000000ull };
static const char *const dname[ND] = { "cpu", "gpu", "fabric", "dram", "cpu-3g2", "gpu-1g5" };

static ks_engine *make_engine(ks_domain **d)
{
    ks_engine *e = ks_engine_create(NULL);
    assert_non_null(e);
    for (int i = 0; i < ND; i++) {
        d[i] = ks_domain_create(e, dname[i], freq[i]);
        assert_non_null(d[i]);
    }
    return e;
}

static void test_time_base_is_exact(void **state)
{
    (void)state;
    ks_domain *d[ND];
    ks_engine *e = make_engine(d);
    uint64_t hz = ks_tick_hz(e);
    /* 4000 = 2^5 5^3, 1600 = 2^6 5^2, 3200 = 2^7 5^2, 1500 = 2^2 3 5^3 (MHz):
     * the lcm is 2^7 3 5^3 MHz = 48 GHz. */
    assert_int_equal(hz, 48000000000ull);
    static const uint64_t want_period[ND] = { 12, 48, 24, 30, 15, 32 };
    for (int i = 0; i < ND; i++) {
        assert_int_equal(ks_domain_period(d[i]), want_period[i]);
        assert_int_equal(ks_domain_period(d[i]) * freq[i], hz);
    }
    /* The time base is fixed now: no new domains. */
    assert_null(ks_domain_create(e, "late", 800000000ull));
    assert_non_null(strstr(ks_engine_error(e), "late"));
    ks_engine_destroy(e);
}

/* ---- every domain ticking: counts and interleaving ------------------------ */

#define LOG_MAX 20000
static struct entry { int dom; uint64_t cycle; uint64_t tick; } log_[LOG_MAX];
static size_t nlog;
static ks_engine *eng;

static void ticker(void *arg)
{
    int i = (int)(intptr_t)arg;
    for (;;) {
        assert_true(nlog < LOG_MAX);
        log_[nlog].dom = i;
        log_[nlog].cycle = ks_cycle();
        log_[nlog].tick = ks_now(eng);
        nlog++;
        ks_pause(1);
    }
}

/* a/fa < b/fb, exactly, for times of cycle a at fa and cycle b at fb. */
static int cmp_time(uint64_t a, uint64_t fa, uint64_t b, uint64_t fb)
{
    unsigned __int128 l = (unsigned __int128)a * fb, r = (unsigned __int128)b * fa;
    return l < r ? -1 : l > r;
}

static void test_domains_interleave_exactly(void **state)
{
    (void)state;
    ks_domain *d[ND];
    eng = make_engine(d);
    nlog = 0;
    for (int i = 0; i < ND; i++) {
        ks_context_opts o = { .name = dname[i], .domain = d[i] };
        ks_context_create_opts(eng, ticker, (void *)(intptr_t)i, &o);
    }
    /* One microsecond of simulated time. */
    assert_int_equal(ks_run_until(eng, ks_tick_hz(eng) / 1000000), KS_STOP_LIMIT);

    /* Each domain ran f * 1us cycles. */
    uint64_t count[ND] = { 0 };
    for (size_t k = 0; k < nlog; k++)
        count[log_[k].dom]++;
    for (int i = 0; i < ND; i++)
        assert_int_equal(count[i], freq[i] / 1000000);

    /* Model: domain i is due at cycle c[i] (time c[i]/f[i]) with the order of
     * its last pause as tie-break; the least due runs next. */
    uint64_t c[ND], seq[ND], next_seq = ND;
    for (int i = 0; i < ND; i++) {
        c[i] = 0;
        seq[i] = (uint64_t)i;
    }
    for (size_t k = 0; k < nlog; k++) {
        int best = -1;
        for (int i = 0; i < ND; i++) {
            if (best < 0) {
                best = i;
                continue;
            }
            int t = cmp_time(c[i], freq[i], c[best], freq[best]);
            if (t < 0 || (t == 0 && seq[i] < seq[best]))
                best = i;
        }
        if (log_[k].dom != best || log_[k].cycle != c[best])
            fail_msg("event %zu: engine ran %s cycle %llu, model %s cycle %llu", k,
                     dname[log_[k].dom], (unsigned long long)log_[k].cycle, dname[best],
                     (unsigned long long)c[best]);
        /* its tick is its time in units of 1/48 GHz */
        assert_int_equal(log_[k].tick * freq[best], c[best] * 48000000000ull);
        c[best]++;
        seq[best] = next_seq++;
    }
    ks_engine_destroy(eng);
}

/* ---- wake-ups across domains ----------------------------------------------- */

#define WAKES 40
static ks_eventcount wake_ec[2];
static uint64_t woke_cycle[2][WAKES];
static uint64_t sent_cycle[WAKES];

static void cpu_sender(void *arg)
{
    (void)arg;
    for (int i = 0; i < WAKES; i++) {
        uint64_t k = 7 * (uint64_t)i + 3 + (uint64_t)(i % 4); /* sparse, uneven */
        ks_pause(k - ks_cycle());
        sent_cycle[i] = ks_cycle();
        ks_advance(&wake_ec[0]);
        ks_advance(&wake_ec[1]);
    }
}

static void slow_receiver(void *arg)
{
    int r = (int)(intptr_t)arg;
    for (uint64_t i = 1; i <= WAKES; i++) {
        ks_await(&wake_ec[r], i);
        woke_cycle[r][i - 1] = ks_cycle();
    }
}

static void test_wake_across_domains_runs_at_next_edge(void **state)
{
    (void)state;
    ks_domain *d[ND];
    eng = make_engine(d);
    ks_ec_init(&wake_ec[0], "to-1g5", 0);
    ks_ec_init(&wake_ec[1], "to-1g6", 0);
    ks_context_opts cpu = { .name = "cpu", .domain = d[0] };
    ks_context_opts g15 = { .name = "r1g5", .domain = d[5] };
    ks_context_opts g16 = { .name = "r1g6", .domain = d[3] };
    ks_context_create_opts(eng, slow_receiver, (void *)(intptr_t)0, &g15);
    ks_context_create_opts(eng, slow_receiver, (void *)(intptr_t)1, &g16);
    ks_context_create_opts(eng, cpu_sender, NULL, &cpu);
    assert_int_equal(ks_run(eng), KS_STOP_IDLE);
    const uint64_t fr[2] = { freq[5], freq[3] };
    int on_edge = 0;
    for (int r = 0; r < 2; r++) {
        for (int i = 0; i < WAKES; i++) {
            /* first receiver cycle whose time is >= the sender's time:
             * ceil(k * fr / fcpu) */
            uint64_t k = sent_cycle[i];
            uint64_t want = (k * fr[r] + freq[0] - 1) / freq[0];
            assert_int_equal(woke_cycle[r][i], want);
            on_edge += (k * fr[r]) % freq[0] == 0;
        }
    }
    assert_true(on_edge > 0); /* some wakes fell exactly on an edge */
    ks_engine_destroy(eng);
}

static void counter(void *arg)
{
    uint64_t *n = arg;
    for (;;) {
        (*n)++;
        ks_pause(3);
    }
}

static void test_run_cycles_of_a_domain(void **state)
{
    (void)state;
    ks_domain *d[ND];
    eng = make_engine(d);
    uint64_t n = 0;
    ks_context_opts o = { .domain = d[4] }; /* 3.2 GHz, period 15 ticks */
    ks_context_create_opts(eng, counter, &n, &o);
    /* Up to GPU cycle 10 = 10 ns = 480 ticks: the 3.2 GHz context pausing 3
     * of its cycles (45 ticks) ran at ticks 0, 45, ..., 450: 11 times. */
    assert_int_equal(ks_run_cycles(eng, d[1], 10), KS_STOP_LIMIT);
    assert_int_equal(ks_now(eng), 480);
    assert_int_equal(ks_domain_cycle(d[1]), 10);
    assert_int_equal(ks_domain_cycle(d[4]), 32);
    assert_int_equal(n, 11);
    ks_engine_destroy(eng);
}

static void gpu_pauses(void *arg)
{
    (void)arg;
    ks_pause(500); /* 24,000 ticks: inside a table sized for 512 GPU cycles */
    ks_pause(700); /* 33,600 ticks: beyond the largest table (32,768 rows) */
}

static void test_table_grows_with_the_time_base(void **state)
{
    (void)state;
    ks_domain *d[ND];
    eng = make_engine(d);
    ks_context_opts o = { .domain = d[1] };
    ks_context_create_opts(eng, gpu_pauses, NULL, &o);
    assert_int_equal(ks_run(eng), KS_STOP_IDLE);
    ks_stats st;
    ks_engine_stats(eng, &st);
    assert_int_equal(st.overflow_pauses, 1);
    assert_int_equal(ks_now(eng), 1200 * 48 + 1);
    ks_engine_destroy(eng);
}

static void test_refused_frequencies(void **state)
{
    (void)state;
    ks_engine *e = ks_engine_create(NULL);
    assert_null(ks_domain_create(e, "zero", 0));
    assert_non_null(strstr(ks_engine_error(e), "zero"));
    /* Two nearby primes: their lcm is about 1e18 Hz. */
    assert_non_null(ks_domain_create(e, "p1", 1000000007ull));
    assert_non_null(ks_domain_create(e, "p2", 1000000009ull));
    assert_int_equal(ks_run(e), KS_STOP_ERROR);
    assert_non_null(strstr(ks_engine_error(e), "exceeds"));
    assert_int_equal(ks_tick_hz(e), 0);
    ks_engine_destroy(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_base_is_exact),
        cmocka_unit_test(test_domains_interleave_exactly),
        cmocka_unit_test(test_wake_across_domains_runs_at_next_edge),
        cmocka_unit_test(test_run_cycles_of_a_domain),
        cmocka_unit_test(test_table_grows_with_the_time_base),
        cmocka_unit_test(test_refused_frequencies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
