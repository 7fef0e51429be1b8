/* A guest process: its memory, decoded code, file descriptors, threads and
 * the options that confine it. */
#ifndef TRACEGEN_X86_PROCESS_H
#define TRACEGEN_X86_PROCESS_H

#include <stdint.h>
#include <stdio.h>

#include "tracegen/x86/cpu.h"
#include "tracegen/x86/decode_cache.h"

struct x86_recorder;
struct x86_rec_thread;
struct gpu_driver;
struct sandbox;

#define X86_MAX_FDS 256
#define X86_MAX_WRITE_DIRS 16
#define X86_WARNED_CALLS 512     /* system calls whose notices are given once */
#define X86_TIME_START 1767225600ull /* 2026-01-01T00:00:00Z, --time-start's default */

struct x86_options {
    uint64_t max_insts;          /* 0: no limit; rep-string iterations count */
    uint64_t max_memory;         /* bytes of host memory for the guest; 0: the default */
    uint64_t max_trace_bytes;    /* records written (before compression); 0: no limit */
    double max_seconds;          /* for the message: main.c arms the timer */
    uint64_t quantum;            /* instructions per scheduling slice */
    const char *stdin_path;      /* NULL: inherit */
    const char *allow_write[X86_MAX_WRITE_DIRS];
    int nallow_write;
    int sandbox_walk;            /* confine writes by the walk, not openat2 (tests) */
    int strict;                  /* unknown syscalls stop the run */
    int quiet;                   /* no warnings */
    int progress;                /* progress line on stderr */
    uint64_t seed;               /* AT_RANDOM and getrandom */
    unsigned cpu_level;          /* enum x86_cpu_level: what CPUID reports */
    uint64_t time_start;         /* the virtual clock's start, seconds since 1970 */
    const char *opencl_cache;    /* folder of compiled OpenCL C programs (gpu_build.c) */
};

/* How tracegen serves a guest descriptor whose host one it made. */
enum x86_fd_mode {
    X86_FD_WAITS = 1,            /* the guest expects reads and writes to wait */
    X86_FD_HOST_NB = 2,          /* the host descriptor never blocks: waits are tracegen's,
                                    and the guest's O_NONBLOCK is kept in X86_FD_WAITS */
    X86_FD_INTERNAL = 4,         /* only the guest can make it ready (its pipes, eventfds):
                                    nothing outside will end a wait on it */
    X86_FD_COUNTER = 8,          /* an eventfd or timerfd: 8-byte reads and writes */
    X86_FD_TIMER = 16,           /* a timerfd (fd_object says which) */
    X86_FD_SIGNAL = 32,          /* a signalfd (fd_object says which) */
};

/* What a pending signal's siginfo says: si_code, the sender (pid, and uid
 * in the upper half) or the faulting address, and for a fault the trap
 * number and error code the ucontext holds. A siginfo a guest queued
 * (rt_sigqueueinfo) also has its si_errno and the rest of what the kernel
 * keeps of it (bytes 24 to 47: sigqueue's value, ...). */
struct x86_siginfo {
    int32_t code;
    uint32_t trapno;
    uint64_t value;
    uint64_t err;
    int32_t errno_;
    uint64_t rest[3];
};

/* An interval timer on virtual time (ns); deadline 0: disarmed. */
struct x86_itimer {
    uint64_t deadline, interval;
};

/* A timerfd: the host eventfd its expirations are added to (the guest's
 * descriptors are dups of it) and when it fires next. */
struct x86_timerfd {
    int used;
    int hfd;
    int realtime;                /* CLOCK_REALTIME: absolute times are the epoch's */
    uint64_t deadline, interval;
};

#define X86_MAX_TIMERFDS 64

/* A signalfd: the signals it reads, and the host eventfd tracegen makes
 * readable while one of them is pending (the guest's descriptors are dups
 * of it), so that poll and epoll see it as natively. */
struct x86_signalfd {
    int used;
    int hfd;
    int readable;                /* the eventfd's count is not zero */
    uint64_t mask;
};

#define X86_MAX_SIGNALFDS 64

enum x86_thread_state { THREAD_RUNNABLE, THREAD_FUTEX_WAIT, THREAD_EXITED };

struct x86_thread {
    struct x86_cpu cpu;
    uint64_t tid;
    uint64_t clear_child_tid;
    int state;                   /* enum x86_thread_state */
    uint64_t futex_addr;         /* while waiting */
    uint32_t futex_bitset;
    int futex_timed;             /* the wait has a timeout */
    uint64_t wait_order;         /* FIFO order among waiters */
    uint64_t woken_by;           /* seq of the wake that ended the wait */
    uint64_t wait_deadline;      /* virtual time a retried poll times out; 0: none */
    uint64_t io_done;            /* bytes a waiting pipe write has written so far */
    uint64_t sigmask;            /* blocked signals (bit SIG-1) */
    uint64_t sigpending;         /* sent to this thread, not yet delivered */
    struct x86_siginfo siginfo[65];
    uint64_t ss_sp, ss_size;     /* alternate signal stack; size 0: none */
    int suspended;               /* in sigsuspend, pause or sigtimedwait: SUSPEND_SAVED
                                    comes back, and its signals are taken when the call
                                    runs again */
    uint64_t suspend_saved;
    char name[16];               /* prctl(PR_SET_NAME) */
    int exit_status;
    struct x86_rec_thread *rec;
};

/* What the run loop does after a system call. SC_RETRY: the call would
 * block on something another guest thread may provide; the thread yields
 * and runs the syscall instruction again when its turn comes. */
enum x86_syscall_outcome { SC_CONTINUE, SC_STOP, SC_SWITCH, SC_RETRY };

struct x86_process {
    struct x86_options opt;
    struct gmem *mem;
    struct x86_code_cache *code;
    struct x86_thread *main_thread;
    struct x86_thread **threads;  /* by creation order; main thread first */
    size_t nthreads, threads_cap;
    size_t cur;                   /* index of the running thread */
    size_t run_next;              /* index + 1 of the thread to run next (0: round robin) */
    uint64_t next_tid;
    uint64_t wait_counter;
    uint64_t seq;                 /* last number given to a synchronizing event */
    struct x86_recorder *rec;    /* NULL: --no-trace */
    struct gpu_driver *gpu;      /* GPU calls (tracegen/gpu), made at the first one */
    char exe_path[4096];

    uint64_t brk_start, brk_cur;
    uint64_t mmap_top;           /* next anonymous mapping ends here */

    struct sandbox *sandbox;     /* where the guest may write */
    int fds[X86_MAX_FDS];        /* guest fd -> host fd, -1 when closed */
    uint8_t fd_confined[X86_MAX_FDS]; /* opened through the sandbox: its file lies in
                                         an allowed directory */
    uint8_t fd_mode[X86_MAX_FDS];     /* enum x86_fd_mode bits */
    uint8_t fd_object[X86_MAX_FDS];   /* X86_FD_TIMER: index into timerfds,
                                         X86_FD_SIGNAL: into signalfds */
    struct x86_timerfd timerfds[X86_MAX_TIMERFDS];
    struct x86_signalfd signalfds[X86_MAX_SIGNALFDS];
    uint64_t rng;                /* xorshift state for getrandom */
    uint64_t sigactions[65][4];  /* handler, flags, restorer, mask (the kernel's layout) */
    uint64_t sigpending;         /* sent to the process, not yet taken by a thread */
    struct x86_siginfo siginfo[65];
    struct x86_itimer itimer[3]; /* ITIMER_REAL, _VIRTUAL, _PROF */
    uint64_t timer_next;         /* earliest deadline of these and the timerfds; 0: none */
    uint64_t idle_ns;            /* virtual time that passed with no thread running
                                    (jumps to a timer's deadline) */

    int exited;
    int exit_status;
    int stop_kind;               /* enum x86_fault when the run stopped */
    int kill_signal;             /* XF_KILLED: the signal */
    uint64_t stop_addr;
    uint64_t icount;             /* retired instructions, all threads */
    uint64_t rep_extra;          /* rep-string iterations beyond the first, collected
                                    from the threads at the end of their slices */
    uint32_t warned[X86_WARNED_CALLS / 32]; /* calls already reported (bitmap) */
    unsigned refusals;           /* writes refused so far (the first are reported) */
    char message[512];           /* why the run stopped, for the user */
};

/* NULL with ERR when the options cannot be met (--stdin unreadable, an
 * --allow-write directory missing) or memory is short. */
struct x86_process *x86_process_create(const struct x86_options *opt, char *err, size_t errlen);
void x86_process_destroy(struct x86_process *p);

/* Loads PATH and builds the initial stack. Returns 0, or -1 with ERR. */
int x86_load_program(struct x86_process *p, const char *path, int argc, char **argv,
                     char **envp, char *err, size_t errlen);

/* Runs until the guest exits or stops. Returns the status tracegen exits
 * with: the guest's exit status, 128+signal when it died of a fault. */
int x86_process_run(struct x86_process *p);

/* Creates a thread as a copy of PARENT's registers (clone). NULL when out
 * of memory. */
struct x86_thread *x86_thread_create(struct x86_process *p, const struct x86_thread *parent);

/* Wakes up to N threads waiting on futex ADDR whose bitset meets BITSET,
 * oldest first, recording SEQ as what woke them. Returns how many. */
long x86_futex_wake(struct x86_process *p, uint64_t addr, long n, uint32_t bitset, uint64_t seq);

/* Ends the oldest timed futex wait with ETIMEDOUT (what happens next in
 * virtual time when no thread can run). Returns that thread, or NULL. */
struct x86_thread *x86_time_out_oldest(struct x86_process *p);

/* Instructions retired so far with every rep-string iteration counted
 * (as valgrind counts them): what --max-insts bounds. */
uint64_t x86_process_counted(const struct x86_process *p);

/* The default of --max-memory: half the host's memory, and at most half
 * of the address-space limit (ulimit -v) so that tracegen keeps room for
 * its own allocations. */
uint64_t x86_default_max_memory(void);

/* The signal the guest died of (fault or kill) or that interrupted
 * tracegen, or 0. */
int x86_process_signal(const struct x86_process *p);

/* Deterministic pseudo-random numbers (xorshift64*, seeded by --seed). */
uint64_t x86_random(struct x86_process *p);

/* Handles the system call of thread T (registers per the Linux ABI).
 * Returns an enum x86_syscall_outcome. */
int x86_syscall(struct x86_process *p, struct x86_thread *t);

#endif
