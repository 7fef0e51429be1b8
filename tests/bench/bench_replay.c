/* bench-replay: simulated instructions per second of replay with the full
 * hierarchy (out-of-order cores, L1I/L1D, L3 slices with the directory,
 * ring, system agent, DRAM), in process CPU time (the machine is shared).
 *   1 core:  malloc_qsort (one thread) on a one-core system;
 *   4 cores: the four-thread parallel guest (tests/validate) on the default
 *            quad-core system;
 *   GPU:     hotspot without its CPU check (the GPU's work alone) on the
 *            default system (8 compute units): wavefront instructions per
 *            second of the whole replay (its x86 thread included);
 *   collaborative: collab_backprop, CPU threads and GPU work-groups at
 *            once: x86 and wavefront instructions together per second.
 * The compute units' memory is the one gpu.memory selects by default; the
 * GPU caches' protocol gpu.protocol's default, or the one named by
 * CGM_BENCH_GPU_PROTOCOL (to compare protocols: the same runs under each;
 * one without a directory, vips-g, runs the CPU's caches too);
 * CGM_BENCH_GPU_FRC=N gives each L2 bank an N-entry FRC (gpu.l2.frc_entries,
 * to measure what it costs).
 * Baselines measured in the same run: the same traces only decoded (the
 * front end without timing; for the GPU each work-group stream decoded
 * once), and the guests run natively (the slowdown the seed compares with:
 * Multi2Sim's detailed mode is 44000x native). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgm/coh.h"
#include "replay/gpu/gpu.h"
#include "replay/gpu/program.h"
#include "replay/sim.h"

/* hotspot 256 x 256, 8 steps, no CPU check: 1.3 M wavefront instructions
 * beside 1.5 M x86 instructions of setting up. collab_backprop at 50% is
 * mostly x86 work (3 k wavefront instructions). */
#define GPU_WORKLOAD "hotspot 256 8 0"
#define COLLAB_WORKLOAD "collab_backprop 2 50 share"

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int sh(const char *cmd)
{
    int rc = system(cmd);
    return rc;
}

/* Decodes every thread stream without timing; returns instructions. */
static uint64_t decode_only(const char *trace)
{
    char err[600];
    struct cgm_reader *r = cgm_reader_open(trace, err, sizeof err);
    struct rp_static st;
    if (!r || rp_static_load(&st, r, trace, err, sizeof err)) {
        fprintf(stderr, "bench-replay: %s\n", err);
        exit(1);
    }
    uint64_t n = 0;
    struct rp_x86_stream *s = malloc(sizeof *s);
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
        if (cgm_reader_stream(r, i)->info.kind != CGM_STREAM_X86_THREAD)
            continue;
        if (rp_x86_stream_open(s, r, i, &st, trace, err, sizeof err))
            exit(1);
        struct rp_item it;
        for (rp_x86_stream_next(s, &it); it.kind == RP_ITEM_INSN || it.kind == RP_ITEM_EVENT;
             rp_x86_stream_next(s, &it))
            n += it.kind == RP_ITEM_INSN && it.retire;
        rp_x86_stream_close(s);
    }
    free(s);
    rp_static_free(&st);
    cgm_reader_close(r);
    return n;
}

/* Decodes every work-group stream once without timing; returns wavefront
 * instructions. */
static uint64_t decode_gpu_only(const char *trace)
{
    char err[600];
    struct cgm_reader *r = cgm_reader_open(trace, err, sizeof err);
    struct rp_gpu_trace t;
    if (!r || rp_gpu_trace_init(&t, r, trace, err, sizeof err)) {
        fprintf(stderr, "bench-replay: %s\n", err);
        exit(1);
    }
    static struct cgm_si_dyn insts[CGM_SI_RUN_MAX];
    uint64_t n = 0;
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
        const struct cgm_stream_info *info = &cgm_reader_stream(r, i)->info;
        if (info->kind != CGM_STREAM_GPU_WORKGROUP)
            continue;
        const struct rp_si_program *prog = rp_gpu_trace_program(&t, info->name, err, sizeof err);
        struct cgm_si_codec c;
        struct cgm_riter *it = cgm_riter_open(r, i);
        if (!prog || !it || cgm_si_codec_init_like(&c, &prog->proto)) {
            fprintf(stderr, "bench-replay: %s: stream %u cannot be read\n", trace, info->id);
            exit(1);
        }
        const uint8_t *rec;
        size_t len;
        uint8_t type;
        unsigned wave, k;
        while (cgm_riter_next(it, &rec, &len) == 1) {
            if (cgm_si_record_decode(&c, rec, len, &type, &wave, insts, &k)) {
                fprintf(stderr, "bench-replay: %s: stream %u: a malformed record\n", trace, info->id);
                exit(1);
            }
            n += type == CGM_SI_REC_WAVE ? k : 0;
        }
        cgm_riter_close(it);
        cgm_si_codec_free(&c);
    }
    rp_gpu_trace_free(&t);
    cgm_reader_close(r);
    return n;
}

struct result {
    uint64_t instructions, cycles, wavefront_instructions;
    double cpu;
};

static struct result replay(const char *trace, unsigned cores)
{
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.cores = cores;
    const char *protocol = getenv("CGM_BENCH_GPU_PROTOCOL");
    if (protocol && *protocol) {
        const struct cgm_coh_protocol *p = cgm_coh_protocol_find(protocol);
        if (!p) {
            fprintf(stderr, "bench-replay: CGM_BENCH_GPU_PROTOCOL: no protocol %s\n", protocol);
            exit(1);
        }
        cfg.gpu_protocol = p->id;
        if (p->self_invalidating) /* it keeps no directory: it runs every cache */
            cfg.coherence_protocol = p->id;
    }
    const char *frc = getenv("CGM_BENCH_GPU_FRC");
    if (frc && *frc) {
        char *end;
        unsigned long n = strtoul(frc, &end, 10);
        if (*end || (n && (n < 4 || n > 512 || (n & (n - 1))))) {
            fprintf(stderr, "bench-replay: CGM_BENCH_GPU_FRC: %s is not 0 or a power of two from 4 to 512\n", frc);
            exit(1);
        }
        cfg.gpu_l2_frc_entries = n;
    }
    char err[600];
    double t0 = cpu_seconds();
    struct rp_sim *s = rp_sim_create(&cfg, trace, err, sizeof err);
    if (!s || rp_sim_run(s, false)) {
        fprintf(stderr, "bench-replay: %s\n", s ? s->error : err);
        exit(1);
    }
    struct result r = { 0, s->end_cycle, s->gpu ? rp_gpu_instructions(s->gpu) : 0, 0 };
    for (unsigned i = 0; i < cores; i++)
        r.instructions += rp_core_stats(s->cores[i])->instructions;
    r.cpu = cpu_seconds() - t0;
    rp_sim_destroy(s);
    return r;
}

static double native_seconds(const char *cmd)
{
    double best = 1e9;
    for (int i = 0; i < 5; i++) {
        double t0 = wall_seconds();
        if (sh(cmd) != 0)
            return 0;
        double t = wall_seconds() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

int main(void)
{
    const char *bin = getenv("CGM_BIN"), *root = getenv("CGM_ROOT"), *build = getenv("CGM_BUILD");
    bin = bin ? bin : "bin";
    root = root ? root : ".";
    build = build ? build : "build";
    char dir[] = "/tmp/bench_replay_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char cmd[2048], qs[512], par[512], qs_guest[512], par_guest[512], gpu[512], collab[512];
    snprintf(qs_guest, sizeof qs_guest, "%s/traces/x86/musl/malloc_qsort", build);
    snprintf(par_guest, sizeof par_guest, "%s/par", dir);
    snprintf(qs, sizeof qs, "%s/qs.cgt", dir);
    snprintf(par, sizeof par, "%s/par.cgt", dir);
    snprintf(cmd, sizeof cmd, "musl-gcc -static -O2 -I%s/include -o %s %s/tests/validate/replay_parallel_guest.c -lpthread",
             root, par_guest, root);
    if (sh(cmd)) {
        fprintf(stderr, "bench-replay: cannot build the parallel guest\n");
        return 1;
    }
    snprintf(cmd, sizeof cmd, "%s/tracegen -o %s -- %s > /dev/null", bin, qs, qs_guest);
    sh(cmd); /* exits with the guest's status */
    snprintf(cmd, sizeof cmd, "%s/tracegen -o %s -- %s > /dev/null", bin, par, par_guest);
    sh(cmd);
    snprintf(gpu, sizeof gpu, "%s/gpu.cgt", dir);
    snprintf(collab, sizeof collab, "%s/collab.cgt", dir);
    snprintf(cmd, sizeof cmd, "%s/tracegen --env CGM_KERNELS=%s/kernels --quiet -o %s -- %s/traces/gpu/%s "
             "> /dev/null", bin, build, gpu, build, GPU_WORKLOAD);
    if (sh(cmd)) {
        fprintf(stderr, "bench-replay: cannot record %s\n", GPU_WORKLOAD);
        return 1;
    }
    snprintf(cmd, sizeof cmd, "%s/tracegen --env CGM_KERNELS=%s/kernels --quiet -o %s -- %s/traces/gpu/%s "
             "> /dev/null", bin, build, collab, build, COLLAB_WORKLOAD);
    if (sh(cmd)) {
        fprintf(stderr, "bench-replay: cannot record %s\n", COLLAB_WORKLOAD);
        return 1;
    }

    double t0 = cpu_seconds();
    uint64_t qs_n = decode_only(qs);
    double dec1 = cpu_seconds() - t0;
    t0 = cpu_seconds();
    uint64_t par_n = decode_only(par);
    double dec4 = cpu_seconds() - t0;

    t0 = cpu_seconds();
    uint64_t gpu_n = decode_gpu_only(gpu);
    double decg = cpu_seconds() - t0;

    struct result one = replay(qs, 1), four = replay(par, 4), g = replay(gpu, 4), co = replay(collab, 4);
    if (g.wavefront_instructions != gpu_n) {
        fprintf(stderr, "bench-replay: replay issued %llu wavefront instructions, the trace holds %llu\n",
                (unsigned long long)g.wavefront_instructions, (unsigned long long)gpu_n);
        return 1;
    }
    if (one.instructions != qs_n || four.instructions != par_n) {
        fprintf(stderr, "bench-replay: replay retired %llu/%llu instructions, the traces hold %llu/%llu\n",
                (unsigned long long)one.instructions, (unsigned long long)four.instructions,
                (unsigned long long)qs_n, (unsigned long long)par_n);
        return 1;
    }
    snprintf(cmd, sizeof cmd, "%s > /dev/null", qs_guest);
    double nat1 = native_seconds(cmd);
    snprintf(cmd, sizeof cmd, "%s > /dev/null", par_guest);
    double nat4 = native_seconds(cmd);

    double k1 = (double)one.instructions / one.cpu / 1e3, k4 = (double)four.instructions / four.cpu / 1e3;
    printf("replay, full hierarchy, process CPU time\n");
    printf("  1 core : malloc_qsort  %10llu instructions %10llu cycles  %.2f s  %8.0f KIPS\n",
           (unsigned long long)one.instructions, (unsigned long long)one.cycles, one.cpu, k1);
    printf("  4 cores: parallel x4   %10llu instructions %10llu cycles  %.2f s  %8.0f KIPS\n",
           (unsigned long long)four.instructions, (unsigned long long)four.cycles, four.cpu, k4);
    double wfk = (double)g.wavefront_instructions / g.cpu / 1e3;
    double kco = (double)(co.instructions + co.wavefront_instructions) / co.cpu / 1e3;
    printf("  GPU    : %-13s %10llu wavefront + %llu x86 instructions  %.2f s  %8.0f wavefront KIPS\n",
           GPU_WORKLOAD, (unsigned long long)g.wavefront_instructions, (unsigned long long)g.instructions,
           g.cpu, wfk);
    printf("  collab : %-13s %10llu wavefront + %llu x86 instructions  %.2f s  %8.0f KIPS (both kinds)\n",
           COLLAB_WORKLOAD, (unsigned long long)co.wavefront_instructions, (unsigned long long)co.instructions,
           co.cpu, kco);
    printf("baseline: decoding the GPU trace's work-group streams once without timing: %.0f wavefront KIPS "
           "(timing costs %.1fx)\n", gpu_n / decg / 1e3, g.cpu / decg);
    printf("baseline: decoding the same traces without timing: %.0f and %.0f KIPS "
           "(timing costs %.1fx and %.1fx)\n", qs_n / dec1 / 1e3, par_n / dec4 / 1e3,
           one.cpu / dec1, four.cpu / dec4);
    printf("baseline: native runs (best of 5, wall, includes process start): %.4f s and %.4f s; "
           "replay slowdown %.0fx and %.0fx (Multi2Sim detailed: 44000x)\n",
           nat1, nat4, nat1 > 0 ? one.cpu / nat1 : 0, nat4 > 0 ? four.cpu / nat4 : 0);
    printf("BENCH replay kips_1core=%.0f kips_4core=%.0f decode_ratio_1core=%.1f slowdown_1core=%.0f "
           "slowdown_4core=%.0f wf_kips_gpu=%.0f kips_collab=%.0f\n", k1, k4, one.cpu / dec1,
           nat1 > 0 ? one.cpu / nat1 : 0, nat4 > 0 ? four.cpu / nat4 : 0, wfk, kco);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
    return 0;
}
