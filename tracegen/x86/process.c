/* The guest process, its threads and the run loop with a deterministic
 * round-robin scheduler. */
#include "tracegen/x86/process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgm/guest.h"
#include "tracegen/gpu/gpu_driver.h"
#include "tracegen/x86/decode.h"
#include "tracegen/x86/fault.h"
#include "tracegen/x86/interp.h"
#include "tracegen/x86/recorder.h"
#include "tracegen/x86/sandbox.h"
#include "tracegen/x86/signal.h"
#include "tracegen/x86/sys.h"

/* Threads alive at once, at most; an exited thread's slot is reused. */
#define MAX_THREADS 4096

static int add_thread(struct x86_process *p, struct x86_thread *t)
{
    if (p->nthreads == p->threads_cap) {
        size_t cap = p->threads_cap ? 2 * p->threads_cap : 8;
        struct x86_thread **v = realloc(p->threads, cap * sizeof *v);
        if (!v)
            return -1;
        p->threads = v;
        p->threads_cap = cap;
    }
    p->threads[p->nthreads++] = t;
    return 0;
}

struct x86_process *x86_process_create(const struct x86_options *opt, char *err, size_t errlen)
{
    struct x86_process *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->opt = *opt;
    if (!p->opt.quantum)
        p->opt.quantum = 100000;
    for (int i = 0; i < X86_MAX_FDS; i++)
        p->fds[i] = -1;
    p->mem = gmem_create();
    if (p->mem)
        gmem_set_limit(p->mem, opt->max_memory ? opt->max_memory : x86_default_max_memory());
    p->code = p->mem ? x86_code_cache_create(p->mem) : NULL;
    p->main_thread = calloc(1, sizeof *p->main_thread);
    if (!p->mem || !p->code || !p->main_thread || add_thread(p, p->main_thread) < 0) {
        if (p->main_thread && !p->nthreads)
            free(p->main_thread);
        p->main_thread = NULL;
        x86_process_destroy(p);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->sandbox = sandbox_create(opt->allow_write, opt->nallow_write, opt->sandbox_walk, err,
                                errlen);
    if (!p->sandbox) {
        x86_process_destroy(p);
        return NULL;
    }
    p->fds[0] = 0;
    p->fds[1] = 1;
    p->fds[2] = 2;
    if (opt->stdin_path) {
        int fd = open(opt->stdin_path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            snprintf(err, errlen, "--stdin %s: %s", opt->stdin_path, strerror(errno));
            x86_process_destroy(p);
            return NULL;
        }
        p->fds[0] = fd;
    }
    p->rng = opt->seed * 0x9E3779B97F4A7C15ull + 0x1234567887654321ull;
    if (!p->rng)
        p->rng = 1;
    struct x86_thread *t = p->main_thread;
    t->tid = 1000;
    p->next_tid = 1001;
    t->cpu.mem = p->mem;
    t->cpu.code = p->code;
    t->cpu.thread = t;
    x86_fpu_reset(&t->cpu);
    t->cpu.level = (uint8_t)opt->cpu_level;
    x86_tlb_flush(&t->cpu);
    return p;
}

void x86_process_destroy(struct x86_process *p)
{
    if (!p)
        return;
    for (int i = 0; i < X86_MAX_FDS; i++)
        if (p->fds[i] > 2)
            close(p->fds[i]);
    for (int i = 0; i < X86_MAX_TIMERFDS; i++)
        if (p->timerfds[i].used)
            close(p->timerfds[i].hfd);
    for (int i = 0; i < X86_MAX_SIGNALFDS; i++)
        if (p->signalfds[i].used)
            close(p->signalfds[i].hfd);
    gpu_driver_destroy(p->gpu);
    sandbox_destroy(p->sandbox);
    x86_code_cache_destroy(p->code);
    gmem_destroy(p->mem);
    for (size_t i = 0; i < p->nthreads; i++)
        free(p->threads[i]);
    free(p->threads);
    free(p);
}

/* The oldest exited thread's slot (never the main thread's, which the
 * process keeps), or -1. */
static long exited_slot(const struct x86_process *p)
{
    for (size_t i = 1; i < p->nthreads; i++)
        if (p->threads[i]->state == THREAD_EXITED)
            return (long)i;
    return -1;
}

struct x86_thread *x86_thread_create(struct x86_process *p, const struct x86_thread *parent)
{
    long reuse = -1;
    if (p->nthreads >= MAX_THREADS && (reuse = exited_slot(p)) < 0)
        return NULL;
    struct x86_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->cpu = parent->cpu;
    t->cpu.thread = t;
    t->cpu.log = NULL;
    t->cpu.access_ctx = NULL;
    t->tid = p->next_tid++;
    t->state = THREAD_RUNNABLE;
    t->sigmask = parent->sigmask; /* no pending signals, no alternate stack */
    x86_tlb_flush(&t->cpu);
    if (p->rec && !(t->rec = x86_rec_attach(p->rec, &t->cpu, t->tid))) {
        free(t);
        return NULL;
    }
    if (reuse >= 0) {
        free(p->threads[reuse]);
        p->threads[reuse] = t;
    } else if (add_thread(p, t) < 0) {
        if (t->rec)
            x86_rec_detach(t->rec);
        free(t);
        return NULL;
    }
    return t;
}

long x86_futex_wake(struct x86_process *p, uint64_t addr, long n, uint32_t bitset, uint64_t seq)
{
    long woken = 0;
    while (woken < n) {
        struct x86_thread *best = NULL;
        for (size_t i = 0; i < p->nthreads; i++) {
            struct x86_thread *t = p->threads[i];
            if (t->state == THREAD_FUTEX_WAIT && t->futex_addr == addr &&
                (t->futex_bitset & bitset) && (!best || t->wait_order < best->wait_order))
                best = t;
        }
        if (!best)
            break;
        best->state = THREAD_RUNNABLE;
        best->woken_by = seq;
        best->cpu.r[R_RAX] = 0;
        woken++;
    }
    return woken;
}

volatile sig_atomic_t x86_interrupt;

uint64_t x86_default_max_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2
                                           : GMEM_MAPPED_LIMIT;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur / 2 < bytes)
        bytes = rl.rlim_cur / 2;
    return bytes;
}

uint64_t x86_process_counted(const struct x86_process *p)
{
    uint64_t n = p->icount + p->rep_extra;
    for (size_t i = 0; i < p->nthreads; i++)
        n += p->threads[i]->cpu.rep_extra;
    return n;
}

uint64_t x86_random(struct x86_process *p)
{
    uint64_t x = p->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    p->rng = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Describes a stop other than exit in p->message. */
static void describe_fault(struct x86_process *p, struct x86_thread *t)
{
    struct x86_cpu *c = &t->cpu;
    uint64_t pc = c->cur ? c->cur->next - c->cur->len : c->rip;
    uint8_t bytes[15];
    size_t n = 0;
    while (n < sizeof bytes) {
        int prot;
        uint8_t *pg = gmem_page(p->mem, pc + n, &prot);
        if (!pg)
            break;
        bytes[n] = pg[(pc + n) & GPAGE_MASK];
        n++;
    }
    char line[256];
    if (p->stop_kind == XF_EXEC)
        snprintf(line, sizeof line, "0x%llx", (unsigned long long)c->fault_addr);
    else
        x86_disasm_line(x86_code_cache_capstone(p->code), bytes, n, pc, line, sizeof line);
    switch (p->stop_kind) {
    case XF_READ: case XF_WRITE: case XF_EXEC:
        snprintf(p->message, sizeof p->message,
                 "thread %llu: %s at address 0x%llx by instruction %s",
                 (unsigned long long)t->tid, x86_fault_name(p->stop_kind),
                 (unsigned long long)c->fault_addr, line);
        break;
    default: {
        char note[160] = "";
        if (p->stop_kind == XF_UNIMPL)
            x86_unimplemented_note(x86_code_cache_capstone(p->code), bytes, n, note, sizeof note);
        snprintf(p->message, sizeof p->message, "thread %llu: %s: %s%s",
                 (unsigned long long)t->tid, x86_fault_name(p->stop_kind), line, note);
        break;
    }
    }
}

/* Runs the system call and records what replay needs to know of it. */
static int syscall_and_record(struct x86_process *p, struct x86_thread *t)
{
    struct x86_cpu *c = &t->cpu;
    uint64_t nr = c->r[R_RAX], a0 = c->r[R_RDI], a1 = c->r[R_RSI], a2 = c->r[R_RDX];
    uint64_t a3 = c->r[R_R10], old_brk = p->brk_cur;
    int out = x86_syscall(p, t);
    if (out == SC_RETRY)
        return out; /* nothing happened yet: recorded when it does */
    if (!p->rec || !t->rec)
        return out;
    int64_t rc = (int64_t)c->r[R_RAX];
    if (out == SC_STOP || t->state == THREAD_EXITED) {
        /* exit events are written by the thread-exit path */
        return out;
    }
    if (nr == (uint64_t)CGM_SYSCALL_ROI_BEGIN || nr == (uint64_t)CGM_SYSCALL_ROI_END) {
        x86_rec_roi(t->rec, nr == (uint64_t)CGM_SYSCALL_ROI_BEGIN, ++p->seq);
        return out;
    }
    if (nr == X86_SYS_futex || nr == X86_SYS_clone)
        return out; /* futex and clone events are written where they happen */
    x86_rec_event_fields(t->rec, CGM_EV_SYSCALL, nr, (uint64_t)rc, 0, 0);
    if (rc < 0 && rc > -4096)
        return out;
    switch (nr) {
    case X86_SYS_mmap: x86_rec_event_fields(t->rec, CGM_EV_MMAP, (uint64_t)rc, a1, a2, a3); break;
    case X86_SYS_mprotect: x86_rec_event_fields(t->rec, CGM_EV_MPROTECT, a0, a1, a2, 0); break;
    case X86_SYS_munmap: x86_rec_event_fields(t->rec, CGM_EV_MUNMAP, a0, a1, 0, 0); break;
    case X86_SYS_brk:
        if (p->brk_cur != old_brk)
            x86_rec_event_fields(t->rec, CGM_EV_BRK, old_brk, p->brk_cur, 0, 0);
        break;
    case X86_SYS_mremap:
        x86_rec_event_fields(t->rec, CGM_EV_MUNMAP, a0, a1, 0, 0);
        x86_rec_event_fields(t->rec, CGM_EV_MMAP, (uint64_t)rc, a2, 3, 0x22);
        break;
    default:
        break;
    }
    return out;
}

struct x86_thread *x86_time_out_oldest(struct x86_process *p)
{
    struct x86_thread *timed = NULL;
    for (size_t i = 0; i < p->nthreads; i++) {
        struct x86_thread *t = p->threads[i];
        if (t->state == THREAD_FUTEX_WAIT && t->futex_timed &&
            (!timed || t->wait_order < timed->wait_order))
            timed = t;
    }
    if (timed) {
        timed->state = THREAD_RUNNABLE;
        timed->woken_by = 0;
        timed->cpu.r[R_RAX] = (uint64_t)-110; /* ETIMEDOUT */
    }
    return timed;
}

static int any_runnable(const struct x86_process *p)
{
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i]->state == THREAD_RUNNABLE)
            return 1;
    return 0;
}

/* Picks the next runnable thread after the current one (round robin).
 * Returns 0, or -1 when none can run (deadlock; p->message says why). */
static int schedule(struct x86_process *p)
{
    size_t next = p->run_next;
    p->run_next = 0;
    if (next && next <= p->nthreads && p->threads[next - 1]->state == THREAD_RUNNABLE) {
        p->cur = next - 1;
        return 0;
    }
    for (size_t k = 1; k <= p->nthreads; k++) {
        size_t i = (p->cur + k) % p->nthreads;
        if (p->threads[i]->state == THREAD_RUNNABLE) {
            p->cur = i;
            return 0;
        }
    }
    /* nothing runnable: a timed wait times out (oldest first), or virtual
     * time jumps to the next timer, whose signal may interrupt a wait */
    if (x86_time_out_oldest(p) || (x86_timers_skip(p) && any_runnable(p))) {
        for (size_t i = 0; i < p->nthreads; i++)
            if (p->threads[i]->state == THREAD_RUNNABLE)
                p->cur = i;
        return 0;
    }
    size_t n = (size_t)snprintf(p->message, sizeof p->message,
                                "deadlock: every thread is blocked:");
    for (size_t i = 0; i < p->nthreads && n < sizeof p->message; i++) {
        struct x86_thread *t = p->threads[i];
        if (t->state == THREAD_FUTEX_WAIT)
            n += (size_t)snprintf(p->message + n, sizeof p->message - n,
                                  " thread %llu waits on futex 0x%llx;",
                                  (unsigned long long)t->tid, (unsigned long long)t->futex_addr);
        else
            n += (size_t)snprintf(p->message + n, sizeof p->message - n, " thread %llu %s;",
                                  (unsigned long long)t->tid,
                                  t->state == THREAD_EXITED ? "exited" : "runnable");
    }
    p->stop_kind = XF_SYSCALL;
    return -1;
}

static void stop_limit(struct x86_process *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The run ends at a limit of its own (exit status 70). */
static void stop_limit(struct x86_process *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->message, sizeof p->message, fmt, ap);
    va_end(ap);
    p->stop_kind = XF_LIMIT;
}

static void stop_insts(struct x86_process *p)
{
    stop_limit(p, "instruction limit %llu reached (--max-insts; each rep-string iteration "
               "counts)", (unsigned long long)p->opt.max_insts);
}

/* x86_interrupt is set: a time limit or a signal to tracegen itself. */
static void stop_interrupted(struct x86_process *p)
{
    int sig = x86_interrupt;
    if (sig == SIGALRM) {
        stop_limit(p, "time limit of %g s reached (--max-seconds)", p->opt.max_seconds);
        return;
    }
    snprintf(p->message, sizeof p->message, "tracegen was sent signal %d (%s)", sig,
             strsignal(sig));
    p->stop_kind = XF_INTERRUPTED;
    p->kill_signal = sig;
}

static double mib(uint64_t bytes)
{
    return (double)bytes / (1 << 20);
}

/* Checks made between slices. Returns 1 when the run must stop. */
static int limits_reached(struct x86_process *p)
{
    if (x86_interrupt) {
        stop_interrupted(p);
        return 1;
    }
    uint64_t guest = gmem_host_bytes(p->mem), code = x86_code_cache_bytes(p->code);
    uint64_t threads = p->nthreads * sizeof(struct x86_thread);
    if (guest + code + threads > gmem_limit(p->mem)) {
        stop_limit(p, "memory limit of %.0f MiB reached (--max-memory): guest memory and its "
                   "page tables %.1f MiB (tables %.1f MiB), decoded code %.1f MiB, threads "
                   "%.1f MiB", mib(gmem_limit(p->mem)), mib(guest),
                   mib(gmem_table_bytes(p->mem)), mib(code), mib(threads));
        return 1;
    }
    if (p->rec && x86_rec_error(p->rec)) {
        stop_limit(p, "the trace cannot be written: %s", x86_rec_error(p->rec));
        return 1;
    }
    if (p->rec && p->opt.max_trace_bytes && x86_rec_bytes(p->rec) >= p->opt.max_trace_bytes) {
        stop_limit(p, "trace size limit of %llu bytes of records reached (--max-trace-bytes)",
                   (unsigned long long)p->opt.max_trace_bytes);
        return 1;
    }
    return 0;
}

#define LIMITS_EVERY (1ull << 22)

/* Lets the rep-string iterations of the next block count toward
 * --max-insts, so a long one is cut at the limit. */
static void bound_reps(struct x86_process *p, struct x86_cpu *c)
{
    uint64_t n = p->icount + p->rep_extra + c->rep_extra;
    c->rep_bounded = 1;
    c->rep_room = n < p->opt.max_insts ? p->opt.max_insts - n : 0;
}

/* The instruction count at which the running slice ends: after QUANTUM
 * more instructions, or sooner when a timer is due sooner (virtual time
 * counts one nanosecond per instruction), so that its signal is handled at
 * its due time, not at the next slice (at least one block runs). */
static uint64_t slice_stop(const struct x86_process *p, uint64_t quantum_end)
{
    if (!p->timer_next)
        return quantum_end;
    uint64_t now = x86_virtual_now_ns(p);
    uint64_t due = p->timer_next > now ? p->icount + (p->timer_next - now) : p->icount + 1;
    return due < quantum_end ? due : quantum_end;
}

/* Fires the timers that are due while T runs. Returns the thread that
 * takes the first signal they sent (T when it can), or NULL. */
static struct x86_thread *fire_timers(struct x86_process *p, struct x86_thread *t)
{
    struct x86_thread *taker = x86_timers_fire(p);
    return taker && x86_signals_pending(p, t) ? t : taker;
}

/* THREAD runs next, whatever the round robin says. */
static void run_next(struct x86_process *p, const struct x86_thread *thread)
{
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i] == thread)
            p->run_next = i + 1;
}

/* After thread T's system call: timers that are due fire, and what T may
 * take of the pending signals is delivered before its next instruction
 * (a handler's frame holds the call's result). Returns -1 when a signal
 * ended the process, 1 when T's slice ends for another thread's signal. */
static int after_syscall(struct x86_process *p, struct x86_thread *t)
{
    /* a signal for another thread (T blocks it): that thread runs next,
     * so that its handler starts at the timer's due time */
    struct x86_thread *taker = NULL;
    if (x86_timers_due(p, x86_virtual_now_ns(p)) && (taker = fire_timers(p, t)) && taker != t)
        run_next(p, taker);
    int yield = taker && taker != t;
    if (x86_signals_pending(p, t) && x86_signals_check(p, t) < 0)
        return -1;
    if (t->suspended) { /* sigsuspend returned without a handler to end it */
        t->sigmask = t->suspend_saved;
        t->suspended = 0;
    }
    return yield;
}

/* Runs threads until exit or a stop; faults leave through longjmp. */
static void run_loop(struct x86_process *p, const struct x86_block *volatile *cur_block)
{
    double start = seconds_now(), last_progress = start;
    uint64_t next_check = 1u << 24;
    /* the limits are checked between slices and, for a thread whose slice
     * is long in rep-string iterations, every LIMITS_EVERY of them */
    uint64_t next_limits = LIMITS_EVERY;
    const uint64_t *generation = gmem_generation_ptr(p->mem);
    for (;;) {
        struct x86_thread *t = p->threads[p->cur];
        if (t->state != THREAD_RUNNABLE) {
            if (schedule(p) < 0)
                return;
            continue;
        }
        struct x86_cpu *c = &t->cpu;
        if (x86_timers_due(p, x86_virtual_now_ns(p)))
            x86_timers_fire(p);
        /* a thread in sigsuspend takes its signal when the call runs again */
        if (!t->suspended && x86_signals_pending(p, t) && x86_signals_check(p, t) < 0)
            return;
        uint64_t slice_end = p->icount + p->opt.quantum;
        uint64_t stop = slice_stop(p, slice_end);
        while (p->icount < stop) {
            c->cur = NULL;
            const struct x86_block *b = x86_block_get(c, c->rip);
            /* after decoding, which marks code pages: a write through the
             * TLB must not miss that its page now holds decoded code */
            if (c->tlb_gen != *generation)
                x86_tlb_flush(c);
            *cur_block = b;
            c->icount = p->icount;
            if (p->opt.max_insts)
                bound_reps(p, c);
            if (t->rec)
                x86_rec_block_begin(t->rec, b);
            int r = x86_exec_block(c, b);
            p->icount += b->ninsn;
            if (t->rec)
                x86_rec_block_end(t->rec, b->ninsn);
            if (r == EXEC_SYSCALL) {
                int out = syscall_and_record(p, t);
                if (out == SC_STOP)
                    return;
                if (x86_interrupt) { /* a blocking call returned EINTR */
                    stop_interrupted(p);
                    return;
                }
                int after = 0;
                if (out != SC_RETRY && t->state == THREAD_RUNNABLE &&
                    (after = after_syscall(p, t)) < 0)
                    return;
                if (out == SC_SWITCH || out == SC_RETRY || after || t->state != THREAD_RUNNABLE)
                    break;
                stop = slice_stop(p, slice_end); /* the call may have set a timer */
            }
            uint64_t counted = p->icount + p->rep_extra + c->rep_extra;
            if (p->opt.max_insts && counted >= p->opt.max_insts) {
                stop_insts(p);
                return;
            }
            if (counted >= next_limits) {
                next_limits = counted + LIMITS_EVERY;
                if (limits_reached(p))
                    return;
            }
        }
        p->rep_extra += c->rep_extra;
        c->rep_extra = 0;
        /* a timer due now (the slice ended for it) fires, and the thread
         * that takes its signal runs next: this one when it can */
        struct x86_thread *taker;
        if (t->state == THREAD_RUNNABLE && x86_timers_due(p, x86_virtual_now_ns(p)) &&
            (taker = fire_timers(p, t)))
            run_next(p, taker);
        if (limits_reached(p))
            return;
        if (p->icount >= next_check) {
            next_check = p->icount + (1u << 24);
            if (p->opt.progress) {
                double now = seconds_now();
                if (now - last_progress >= 1.0) {
                    last_progress = now;
                    fprintf(stderr, "\rtracegen: %llu instructions, %.1f MIPS   ",
                            (unsigned long long)p->icount, p->icount / (now - start) / 1e6);
                }
            }
        }
        if (schedule(p) < 0)
            return;
    }
}

int x86_process_run(struct x86_process *p)
{
    jmp_buf jb;
    /* Written in run_loop and read after a fault's longjmp: volatile, or its
     * value there is indeterminate (C11 7.13.2.1) and depends on inlining. */
    const struct x86_block *volatile cur_block = NULL;

    for (size_t i = 0; i < p->nthreads; i++)
        p->threads[i]->cpu.fault_jmp = &jb;
    p->main_thread->state = THREAD_RUNNABLE;
    if (p->rec && !p->main_thread->rec)
        p->main_thread->rec = x86_rec_attach(p->rec, &p->main_thread->cpu, p->main_thread->tid);
    for (;;) {
        if (!setjmp(jb)) {
            run_loop(p, &cur_block);
            break;
        }
        struct x86_thread *t = p->threads[p->cur];
        struct x86_cpu *c = &t->cpu;
        /* instructions of the block before the faulting one retired, and
         * a trapping one (int3) too */
        if (cur_block && c->cur) {
            int trap_retires = 0;
            if (c->fault_kind == XF_TRAP)
                x86_int_vector(p, c->cur->next - c->cur->len, c->cur->len, &trap_retires);
            uint32_t retired = (uint32_t)(c->cur - cur_block->insn) + (uint32_t)trap_retires;
            p->icount += retired;
            if (t->rec)
                x86_rec_block_end(t->rec, retired);
        }
        if (c->restart_at && c->cur == c->restart_at) {
            /* a store changed the code of the running block: run on from
             * the next instruction, decoded again */
            c->rip = c->cur->next - c->cur->len;
            c->restart_at = NULL;
            continue;
        }
        if (c->fault_kind == XF_TRAP && c->cur) {
            /* int3, int1, int N: Linux's signal for the vector */
            int kind, r = x86_signal_int(p, t, c->cur->next - c->cur->len, c->cur->len, &kind);
            if (r == 0)
                continue;
            if (r < 0)
                break;
            c->fault_kind = kind;
        } else if (x86_fault_signal(c->fault_kind)) {
            /* the guest's handler runs on the faulting instruction */
            uint64_t pc = c->cur ? c->cur->next - c->cur->len : c->rip;
            int r = x86_signal_fault(p, t, c->fault_kind, c->fault_addr, pc);
            if (r == 0)
                continue;
            if (r < 0)
                break;
        }
        p->stop_addr = c->fault_addr;
        if (c->fault_kind == XF_LIMIT) {
            stop_insts(p);
        } else if (c->fault_kind == XF_INTERRUPTED) {
            stop_interrupted(p);
        } else {
            p->stop_kind = c->fault_kind;
            describe_fault(p, t);
        }
        break;
    }
    for (size_t i = 0; i < p->nthreads; i++) {
        p->rep_extra += p->threads[i]->cpu.rep_extra;
        p->threads[i]->cpu.rep_extra = 0;
    }
    if (p->opt.progress && p->icount >= (1u << 24))
        fputs("\n", stderr);
    if (p->stop_kind == XF_EXIT)
        return p->exit_status;
    int sig = x86_process_signal(p);
    return sig ? 128 + sig : 70;
}

int x86_process_signal(const struct x86_process *p)
{
    return p->stop_kind == XF_KILLED || p->stop_kind == XF_INTERRUPTED
               ? p->kill_signal : x86_fault_signal(p->stop_kind);
}
