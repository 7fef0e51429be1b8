/* tracegen: runs an x86-64 Linux program (static or dynamically linked)
 * under emulation and records its trace. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cgm/trace.h"
#include "tracegen/gpu/gpu_driver.h"
#include "tracegen/x86/elf_needed.h"
#include "tracegen/x86/fault.h"
#include "tracegen/x86/process.h"
#include "tracegen/x86/recorder.h"

extern char **environ;

static void usage(FILE *out)
{
    fputs("usage: tracegen [options] -o OUT.cgt -- PROGRAM [ARGS...]\n"
          "       tracegen [options] --no-trace -- PROGRAM [ARGS...]\n"
          "\n"
          "Runs an x86-64 Linux program (musl or glibc; static, static PIE or\n"
          "dynamically linked: the host's interpreter and libraries are loaded)\n"
          "under emulation. The guest's stdin, stdout and stderr pass through;\n"
          "tracegen exits with the guest's exit status, with 128+N when the guest\n"
          "died of signal N (a fault, or a signal it sent itself such as abort()'s;\n"
          "the reason is printed on stderr), with 70\n"
          "when the emulator stopped (unimplemented instruction or system call,\n"
          "deadlock, a --max-* limit, the trace cannot be written), with 128+N when\n"
          "tracegen itself was sent signal N (SIGINT, SIGTERM, SIGHUP: the trace is\n"
          "finished first, so it holds the run up to there; a second signal ends\n"
          "tracegen at once) and with 2 on a usage or loading error.\n"
          "\n"
          "options:\n"
          "  -o, --output FILE     write the trace to FILE\n"
          "      --chunk-bytes SIZE\n"
          "                        records per compressed chunk of a stream, in bytes\n"
          "                        before compression (default 256K, 4K to 16M): a\n"
          "                        killed recording loses up to one chunk per thread\n"
          "      --no-trace        emulate only, record nothing\n"
          "      --roi-only        record only inside the guest's region-of-interest\n"
          "                        markers (cgm/guest.h); everything is still emulated\n"
          "      --max-insts N     stop after N guest instructions, each rep-string\n"
          "                        iteration counted (exit status 70)\n"
          "      --max-seconds S   stop after S seconds of wall-clock time (exit status 70)\n"
          "      --max-memory SIZE host memory the guest may use: its accessible pages\n"
          "                        counted in full, page tables, decoded code (default:\n"
          "                        half the host's memory); beyond it mmap and brk fail\n"
          "                        with ENOMEM, or the run stops (exit status 70)\n"
          "      --max-trace-bytes SIZE\n"
          "                        stop once SIZE bytes of records were written (before\n"
          "                        compression, so the file is smaller; exit status 70)\n"
          "      --quantum N       instructions per scheduling slice (default 100000)\n"
          "      --stdin FILE      the guest reads its standard input from FILE\n"
          "      --allow-write DIR the guest may create, write, rename, link, unlink and\n"
          "                        change files under DIR (repeatable; otherwise it\n"
          "                        writes only stdout/stderr). Paths are resolved by the\n"
          "                        kernel beneath DIR: links and \"..\" cannot leave it\n"
          "      --sandbox-walk    confine paths by walking them one component at a time\n"
          "                        (what kernels without openat2 get) instead of openat2\n"
          "      --env NAME=VALUE  set NAME in the guest's environment (repeatable); by\n"
          "                        default the guest's environment is empty, so the trace\n"
          "                        does not depend on (or reveal) the caller's variables\n"
          "      --env-inherit     the guest starts with tracegen's environment (--env\n"
          "                        entries override it): the trace's program section then\n"
          "                        holds every variable of it, tokens and keys included\n"
          "      --env-clear       the guest starts with no environment (the default;\n"
          "                        cancels an earlier --env-inherit)\n"
          "      --opencl-cache DIR\n"
          "                        where compiled OpenCL C programs are kept (default\n"
          "                        $XDG_CACHE_HOME/cgmtrace/opencl, ~/.cache/cgmtrace/opencl)\n"
          "      --compile-kernel FILE.cl\n"
          "                        compile OpenCL C for the GPU into the code object -o\n"
          "                        names (for cgm_gpu_load), with the flags and device\n"
          "                        header clBuildProgram uses; then exit\n"
          "      --kernel-options OPTS\n"
          "                        build options for --compile-kernel (-D, -I, -cl-...)\n"
          "      --opencl-vendors DIR\n"
          "                        the ICD folder given to a program that links libOpenCL\n"
          "                        (default: the guest platform's, found beside tracegen)\n"
          "      --strict          an unsupported system call stops the run instead of\n"
          "                        returning ENOSYS with a warning\n"
          "      --seed N          seed for AT_RANDOM and getrandom (default 0)\n"
          "      --cpu LEVEL       the processor CPUID describes: baseline (SSE2, the\n"
          "                        default), x86-64-v2 (to SSE4.2, POPCNT) or x86-64-v3\n"
          "                        (AVX2, BMI1/2, FMA, F16C, LZCNT, MOVBE) or haswell\n"
          "                        (x86-64-v3 with ERMS, caches and topology as valgrind's\n"
          "                        virtual CPU reports them: for comparisons with valgrind);\n"
          "                        instructions up to x86-64-v3 run whatever CPUID says\n"
          "      --time-start S    the guest's clock starts at S seconds since 1970-01-01\n"
          "                        UTC (default 1767225600, 2026-01-01)\n"
          "      --quiet           no warnings, no progress line\n"
          "      --stats           print on stderr at the end: instructions, rate, the\n"
          "                        count with every rep-string iteration counted (as\n"
          "                        valgrind does) and, when recording, data accesses\n"
          "  -h, --help            this text\n"
          "\n"
          "The guest sees an x86-64 processor of the --cpu level, virtual time\n"
          "derived from its instruction count (1 ns each, from 2026-01-01T00:00:00Z\n"
          "unless --time-start says otherwise) and seeded randomness, so\n"
          "two runs with the same inputs behave the same. A progress line (instructions,\n"
          "rate) is shown on stderr when it is a terminal.\n"
          "\n"
          "The trace holds one stream per guest thread (block records with every memory\n"
          "access, and events: system calls, memory map changes, ROI markers, exit) and\n"
          "the static code table (section x86.static); see include/cgm/x86rec.h.\n"
          "Guest threads (clone with CLONE_VM|CLONE_THREAD, futex) run one at a time\n"
          "under a deterministic round-robin scheduler (--quantum); fork and exec are\n"
          "refused (EPERM).\n"
          "\n"
          "GPU: a guest that includes cgm/guest.h loads Southern Islands (gfx600) code\n"
          "objects and launches kernels through cgm_gpu_load/kernel/alloc/copy/launch/\n"
          "wait; tracegen runs them on its SI emulator over the guest's memory and\n"
          "records one stream per work-group (named after its static table section,\n"
          "si.static.N) and the GPU calls as events in the calling thread's stream.\n"
          "OpenCL: a dynamically linked program that needs libOpenCL gets\n"
          "OCL_ICD_VENDORS in its environment (unless --env sets it), naming the folder\n"
          "of the guest platform (opencl/), so the ICD loader finds exactly that one\n"
          "platform; natively the same binary uses the host's (PoCL). The platform\n"
          "compiles clBuildProgram's OpenCL C with the host's clang (CGM_KERNEL_CLANG\n"
          "in tracegen's environment names another), cached in --opencl-cache.\n"
          "A trace also holds a \"program\" section: argv, working directory, executable,\n"
          "the guest's environment, exit status, instructions.\n",
          out);
}

/* A size: a number with an optional K, M, G or T (powers of 1024). */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || s[0] == '-')
        return -1;
    static const char units[] = "KMGT";
    const char *u = *end ? strchr(units, *end) : NULL;
    if (*end && (!u || end[1]))
        return -1;
    unsigned shift = u ? 10u * (unsigned)(u - units + 1) : 0;
    if (shift && v > (~0ull >> shift))
        return -1;
    *out = v << shift;
    return 0;
}

static void on_signal(int sig)
{
    x86_interrupt = sig;
}

/* The only host memory of tracegen's that is a file's is a guest's shared
 * writable file mapping, which is refused past the file's end: a SIGBUS
 * means the file was truncated under it since (by the guest or another
 * process). The run cannot go on; say why. */
static void on_sigbus(int sig)
{
    static const char msg[] = "tracegen: stopped by SIGBUS: a file the guest maps shared and "
                              "writable (mmap MAP_SHARED, PROT_WRITE) was truncated under the "
                              "mapping, which tracegen does not emulate; the trace is cut\n";
    ssize_t k = write(2, msg, sizeof msg - 1);
    (void)k;
    _exit(128 + sig);
}

/* SIGINT, SIGTERM and SIGHUP ask the emulator to stop and finish the
 * trace; the handler is reset after one, so a second signal ends tracegen
 * at once. No SA_RESTART: a guest blocked in read() is woken (EINTR). The
 * time limit is a SIGALRM. A closed pipe is the guest's business (EPIPE). */
static int install_handlers(double max_seconds)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
        sigaction(SIGHUP, &sa, NULL) || sigaction(SIGALRM, &sa, NULL))
        return -1;
    sa.sa_handler = on_sigbus;
    sa.sa_flags = 0;
    if (sigaction(SIGBUS, &sa, NULL))
        return -1;
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN); /* a file-size limit fails the write (EFBIG) */
    if (max_seconds > 0) {
        struct itimerval it;
        memset(&it, 0, sizeof it);
        it.it_value.tv_sec = (time_t)max_seconds;
        it.it_value.tv_usec = (suseconds_t)((max_seconds - floor(max_seconds)) * 1e6);
        if (!it.it_value.tv_sec && !it.it_value.tv_usec)
            it.it_value.tv_usec = 1;
        if (setitimer(ITIMER_REAL, &it, NULL))
            return -1;
    }
    return 0;
}

/* The guest's environment: a NULL-terminated vector of "NAME=VALUE". */
struct env_list {
    char **v;
    size_t n;
};

/* Sets ENTRY ("NAME=VALUE") in L, replacing an entry of the same name. */
static int env_add(struct env_list *l, char *entry)
{
    size_t name = (size_t)(strchr(entry, '=') - entry);
    for (size_t i = 0; i < l->n; i++)
        if (!strncmp(l->v[i], entry, name + 1)) {
            l->v[i] = entry;
            return 0;
        }
    char **v = realloc(l->v, (l->n + 2) * sizeof *v);
    if (!v)
        return -1;
    v[l->n++] = entry;
    v[l->n] = NULL;
    l->v = v;
    return 0;
}

static int env_merge(struct env_list *l, char **entries)
{
    if (!l->v && !(l->v = calloc(1, sizeof *l->v)))
        return -1;
    for (; entries && *entries; entries++)
        if (strchr(*entries, '=') && env_add(l, *entries) < 0)
            return -1;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

/* Writes S with line breaks as spaces (a value is one line). */
static void put_line_value(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\n' ? ' ' : *s, f);
}

/* The trace's "program" section: what ran, how, and how it ended, as
 * "key=value" lines. Of the host it holds only what the guest saw (working
 * directory, executable path, environment); nothing depends on the time. */
static char *program_info(int gargc, char **gargv, char **envp, const struct x86_process *p,
                          int status, const struct x86_options *opt, int roi_only)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fputs("argv=", f);
    for (int i = 0; i < gargc; i++) {
        put_line_value(f, gargv[i]);
        if (i + 1 < gargc)
            fputc(' ', f);
    }
    /* what else the guest saw of the host, so a recording can be repeated */
    char cwd[4096];
    fputs("\ncwd=", f);
    put_line_value(f, getcwd(cwd, sizeof cwd) ? cwd : "?");
    fputs("\nexe=", f);
    put_line_value(f, p->exe_path);
    for (char **e = envp; *e; e++) {
        fputs("\nenv.", f);
        put_line_value(f, *e);
    }
    fprintf(f, "\nexit_status=%d\n", status);
    if (p->stop_kind != XF_EXIT)
        fprintf(f, "stopped=%s\n", p->message);
    fprintf(f, "instructions=%llu\ninstructions_rep_counted=%llu\n", (unsigned long long)p->icount,
            (unsigned long long)x86_process_counted(p));
    fprintf(f, "time_start=%llu\n", (unsigned long long)opt->time_start);
    fprintf(f, "threads=%zu\nquantum=%llu\nseed=%llu\nroi_only=%d\n",
            (size_t)(p->next_tid - p->main_thread->tid), (unsigned long long)opt->quantum, (unsigned long long)opt->seed, roi_only);
    if (opt->cpu_level != X86_CPU_BASELINE)
        fprintf(f, "cpu=%s\n", opt->cpu_level == X86_CPU_V2   ? "x86-64-v2"
                                : opt->cpu_level == X86_CPU_V3 ? "x86-64-v3"
                                                               : "haswell");
    fputs("recorder=tracegen x86-64\n", f);
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}

/* The default --opencl-cache: $XDG_CACHE_HOME/cgmtrace/opencl, else
 * $HOME/.cache/cgmtrace/opencl, else a folder of the user's under /tmp. */
static void default_opencl_cache(char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(out, len, "%s/cgmtrace/opencl", xdg);
    else if (home && home[0] == '/')
        snprintf(out, len, "%s/.cache/cgmtrace/opencl", home);
    else
        snprintf(out, len, "/tmp/cgmtrace-opencl-%ld", (long)getuid());
}

/* The guest platform's ICD folder beside this tracegen: installed
 * (PREFIX/bin -> PREFIX/lib/cgmtrace/vendors) or in the tree (bin ->
 * build/opencl/vendors, BUILD/bin -> BUILD/opencl/vendors). */
static int find_opencl_vendors(char *out, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = 0;
    static const char *const rel[] = { "../lib/cgmtrace/vendors", "../build/opencl/vendors",
                                       "../opencl/vendors" };
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        char path[4200], real[4096];
        snprintf(path, sizeof path, "%s/%s/cgmtrace.icd", exe, rel[i]);
        if (access(path, R_OK) == 0 && realpath(path, real)) {
            *strrchr(real, '/') = 0;
            snprintf(out, len, "%s", real);
            return 0;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    enum { O_NOTRACE = 256, O_ROI, O_MAX, O_QUANTUM, O_STDIN, O_ALLOW, O_STRICT, O_SEED,
           O_QUIET, O_STATS, O_CPU, O_MAX_SECONDS, O_MAX_MEMORY, O_MAX_TRACE, O_CHUNK, O_WALK,
           O_ENV_CLEAR, O_ENV_INHERIT, O_ENV, O_TIME_START, O_OPENCL_CACHE, O_OPENCL_VENDORS,
           O_COMPILE_KERNEL, O_KERNEL_OPTIONS };
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "no-trace", no_argument, NULL, O_NOTRACE },
        { "roi-only", no_argument, NULL, O_ROI },
        { "max-insts", required_argument, NULL, O_MAX },
        { "max-seconds", required_argument, NULL, O_MAX_SECONDS },
        { "max-memory", required_argument, NULL, O_MAX_MEMORY },
        { "max-trace-bytes", required_argument, NULL, O_MAX_TRACE },
        { "chunk-bytes", required_argument, NULL, O_CHUNK },
        { "quantum", required_argument, NULL, O_QUANTUM },
        { "stdin", required_argument, NULL, O_STDIN },
        { "allow-write", required_argument, NULL, O_ALLOW },
        { "sandbox-walk", no_argument, NULL, O_WALK },
        { "env-clear", no_argument, NULL, O_ENV_CLEAR },
        { "env-inherit", no_argument, NULL, O_ENV_INHERIT },
        { "env", required_argument, NULL, O_ENV },
        { "time-start", required_argument, NULL, O_TIME_START },
        { "opencl-cache", required_argument, NULL, O_OPENCL_CACHE },
        { "opencl-vendors", required_argument, NULL, O_OPENCL_VENDORS },
        { "compile-kernel", required_argument, NULL, O_COMPILE_KERNEL },
        { "kernel-options", required_argument, NULL, O_KERNEL_OPTIONS },
        { "strict", no_argument, NULL, O_STRICT },
        { "seed", required_argument, NULL, O_SEED },
        { "quiet", no_argument, NULL, O_QUIET },
        { "stats", no_argument, NULL, O_STATS },
        { "cpu", required_argument, NULL, O_CPU },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct x86_options opt;
    memset(&opt, 0, sizeof opt);
    const char *output = NULL;
    int no_trace = 0, stats = 0, roi_only = 0, env_inherit = 0, ch;
    struct env_list genv = { NULL, 0 }, env_set = { NULL, 0 };
    uint64_t chunk_bytes = 0;
    int time_start_set = 0;
    char opencl_cache[4096], vendors_env[4200] = "OCL_ICD_VENDORS=";
    const char *opencl_vendors = NULL, *compile_kernel = NULL, *kernel_options = "";
    default_opencl_cache(opencl_cache, sizeof opencl_cache);
    opt.opencl_cache = opencl_cache;
    int status = 2; /* until the guest runs: a usage or setup error */
    opt.progress = isatty(2);
    while ((ch = getopt_long(argc, argv, "+o:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o': output = optarg; break;
        case O_NOTRACE: no_trace = 1; break;
        case O_ROI: roi_only = 1; break;
        case O_MAX:
            if (parse_u64(optarg, &opt.max_insts) < 0) {
                fprintf(stderr, "tracegen: --max-insts: '%s' is not a number\n", optarg);
                goto out;
            }
            break;
        case O_MAX_SECONDS: {
            char *end;
            opt.max_seconds = strtod(optarg, &end);
            if (end == optarg || *end || !(opt.max_seconds > 0) || opt.max_seconds > 1e9) {
                fprintf(stderr, "tracegen: --max-seconds: '%s' is not a positive number of "
                        "seconds\n", optarg);
                goto out;
            }
            break;
        }
        case O_MAX_MEMORY:
            if (parse_size(optarg, &opt.max_memory) < 0 || opt.max_memory < (16u << 20)) {
                fprintf(stderr, "tracegen: --max-memory: '%s' is not a size of at least 16M "
                        "(a number with K, M, G or T)\n", optarg);
                goto out;
            }
            break;
        case O_MAX_TRACE:
            if (parse_size(optarg, &opt.max_trace_bytes) < 0 || !opt.max_trace_bytes) {
                fprintf(stderr, "tracegen: --max-trace-bytes: '%s' is not a positive size "
                        "(a number with K, M, G or T)\n", optarg);
                goto out;
            }
            break;
        case O_CHUNK:
            if (parse_size(optarg, &chunk_bytes) < 0 || chunk_bytes < CGM_CHUNK_MIN ||
                chunk_bytes > CGM_CHUNK_MAX) {
                fprintf(stderr, "tracegen: --chunk-bytes: '%s' is not a size from %uK to %uM\n",
                        optarg, CGM_CHUNK_MIN >> 10, CGM_CHUNK_MAX >> 20);
                goto out;
            }
            break;
        case O_QUANTUM:
            if (parse_u64(optarg, &opt.quantum) < 0 || opt.quantum == 0) {
                fprintf(stderr, "tracegen: --quantum: '%s' is not a positive number\n", optarg);
                goto out;
            }
            break;
        case O_STDIN: opt.stdin_path = optarg; break;
        case O_ALLOW:
            if (opt.nallow_write == X86_MAX_WRITE_DIRS) {
                fprintf(stderr, "tracegen: at most %d --allow-write directories\n",
                        X86_MAX_WRITE_DIRS);
                goto out;
            }
            opt.allow_write[opt.nallow_write++] = optarg;
            break;
        case O_STRICT: opt.strict = 1; break;
        case O_WALK: opt.sandbox_walk = 1; break;
        case O_OPENCL_CACHE: opt.opencl_cache = optarg; break;
        case O_OPENCL_VENDORS: opencl_vendors = optarg; break;
        case O_COMPILE_KERNEL: compile_kernel = optarg; break;
        case O_KERNEL_OPTIONS: kernel_options = optarg; break;
        case O_ENV_CLEAR: env_inherit = 0; break;
        case O_ENV_INHERIT: env_inherit = 1; break;
        case O_TIME_START:
            /* at most the year 2500: the clock counts nanoseconds in 64 bits */
            if (parse_u64(optarg, &opt.time_start) < 0 || opt.time_start > 16725225600ull) {
                fprintf(stderr, "tracegen: --time-start: '%s' is not a number of seconds from "
                        "0 to 16725225600 (the year 2500)\n", optarg);
                goto out;
            }
            time_start_set = 1;
            break;
        case O_ENV:
            if (!strchr(optarg, '=') || optarg[0] == '=') {
                fprintf(stderr, "tracegen: --env: '%s' is not NAME=VALUE\n", optarg);
                goto out;
            }
            if (env_add(&env_set, optarg) < 0)
                goto out;
            break;
        case O_SEED:
            if (parse_u64(optarg, &opt.seed) < 0) {
                fprintf(stderr, "tracegen: --seed: '%s' is not a number\n", optarg);
                goto out;
            }
            break;
        case O_QUIET: opt.quiet = 1; opt.progress = 0; break;
        case O_STATS: stats = 1; break;
        case O_CPU:
            if (!strcmp(optarg, "baseline") || !strcmp(optarg, "x86-64")) {
                opt.cpu_level = X86_CPU_BASELINE;
            } else if (!strcmp(optarg, "x86-64-v2")) {
                opt.cpu_level = X86_CPU_V2;
            } else if (!strcmp(optarg, "x86-64-v3")) {
                opt.cpu_level = X86_CPU_V3;
            } else if (!strcmp(optarg, "haswell")) {
                opt.cpu_level = X86_CPU_HASWELL;
            } else {
                fprintf(stderr, "tracegen: --cpu: '%s' is not baseline, x86-64-v2, "
                        "x86-64-v3 or haswell\n", optarg);
                goto out;
            }
            break;
        case 'h': usage(stdout); status = 0; goto out;
        default: usage(stderr); goto out;
        }
    }
    if (compile_kernel) {
        char why[1024];
        if (!output || optind < argc) {
            fputs("tracegen: --compile-kernel FILE.cl takes -o OUT.co and no program\n", stderr);
            goto out;
        }
        if (gpu_compile_file(compile_kernel, kernel_options, opt.opencl_cache, output, why,
                             sizeof why) < 0) {
            fprintf(stderr, "tracegen: --compile-kernel: %s\n", why);
            status = 1;
            goto out;
        }
        status = 0;
        goto out;
    }
    if (optind >= argc) {
        fputs("tracegen: no program given (tracegen [options] -o OUT.cgt -- PROGRAM [ARGS...])\n",
              stderr);
        goto out;
    }
    if (!output && !no_trace) {
        fputs("tracegen: give -o OUT.cgt, or --no-trace to emulate only\n", stderr);
        goto out;
    }
    if (!time_start_set)
        opt.time_start = X86_TIME_START;
    /* A program that links libOpenCL gets the guest platform (before --env,
     * which may override it). */
    size_t vprefix = strlen(vendors_env);
    char *vendors_entry = NULL;
    if (x86_elf_needs(argv[optind], "libOpenCL.so")) {
        if (opencl_vendors)
            snprintf(vendors_env + vprefix, sizeof vendors_env - vprefix, "%s", opencl_vendors);
        if (opencl_vendors ||
            find_opencl_vendors(vendors_env + vprefix, sizeof vendors_env - vprefix) == 0)
            vendors_entry = vendors_env;
        else if (!opt.quiet)
            fputs("tracegen: warning: the program links libOpenCL but the guest OpenCL platform "
                  "is not beside tracegen (build it with make, or give --opencl-vendors DIR)\n",
                  stderr);
    }
    char *vendors_vec[2] = { vendors_entry, NULL };
    if ((env_inherit && env_merge(&genv, environ) < 0) || env_merge(&genv, vendors_vec) < 0 ||
        env_merge(&genv, env_set.v) < 0) {
        fputs("tracegen: out of memory\n", stderr);
        goto out;
    }
    char err[1024];
    struct x86_process *p = x86_process_create(&opt, err, sizeof err);
    if (!p) {
        fprintf(stderr, "tracegen: cannot set up the guest process: %s\n", err);
        goto out;
    }
    if (x86_load_program(p, argv[optind], argc - optind, argv + optind, genv.v, err,
                         sizeof err) < 0) {
        fprintf(stderr, "tracegen: %s\n", err);
        x86_process_destroy(p);
        goto out;
    }
    if (!no_trace) {
        p->rec = x86_rec_create(output, roi_only, (uint32_t)chunk_bytes, p->code, p->mem, err,
                                sizeof err);
        if (p->rec)
            p->main_thread->rec = x86_rec_attach(p->rec, &p->main_thread->cpu,
                                                 p->main_thread->tid);
        if (!p->rec || !p->main_thread->rec) {
            fprintf(stderr, "tracegen: %s: cannot create the trace: %s\n", output,
                    p->rec ? "cannot open the thread stream" : err);
            x86_process_destroy(p);
            goto out;
        }
    }
    if (install_handlers(opt.max_seconds) < 0) {
        fprintf(stderr, "tracegen: cannot install signal handlers: %s\n", strerror(errno));
        x86_process_destroy(p);
        goto out;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    status = x86_process_run(p);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fflush(stdout);
    if (p->stop_kind == XF_INTERRUPTED) {
        fprintf(stderr, "tracegen: interrupted: %s; the guest was stopped after %llu "
                "instructions%s\n", p->message, (unsigned long long)p->icount,
                p->rec ? " and the trace holds its run up to there" : "");
    } else if (p->stop_kind != XF_EXIT) {
        int sig = x86_process_signal(p);
        if (sig)
            fprintf(stderr, "tracegen: guest died of signal %d (%s): %s\n", sig, strsignal(sig),
                    p->message);
        else
            fprintf(stderr, "tracegen: guest stopped: %s\n", p->message);
    }
    if (stats) {
        double s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
        fprintf(stderr, "tracegen: %llu instructions in %.3f s (%.1f MIPS)\n",
                (unsigned long long)p->icount, s, s > 0 ? p->icount / s / 1e6 : 0.0);
        fprintf(stderr, "tracegen: %llu instructions counting each rep-string iteration\n",
                (unsigned long long)x86_process_counted(p));
        if (p->rec) {
            uint64_t l, st, m;
            x86_rec_counts(p->rec, &l, &st, &m);
            fprintf(stderr, "tracegen: data accesses: %llu loads, %llu stores, %llu modifies\n",
                    (unsigned long long)l, (unsigned long long)st, (unsigned long long)m);
        }
    }
    if (p->rec) {
        char *info = program_info(argc - optind, argv + optind, genv.v, p, status, &p->opt,
                                  roi_only);
        if (!info || x86_rec_program(p->rec, info) != 0)
            fprintf(stderr, "tracegen: %s: cannot record the program information\n", output);
        free(info);
        if (x86_rec_finish(p->rec, err, sizeof err) != 0) {
            fprintf(stderr, "tracegen: %s: finishing the trace failed: %s\n", output, err);
            if (status == 0)
                status = 2;
        }
        p->rec = NULL;
    }
    x86_process_destroy(p);
out:
    free(genv.v);
    free(env_set.v);
    return status;
}
