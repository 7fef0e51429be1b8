/* The system-call layer's inside: one call being served, the numbers and
 * handlers of syscalls.def, and what the handlers' files share. */
#ifndef TRACEGEN_X86_SYS_H
#define TRACEGEN_X86_SYS_H

#include <stdint.h>

#include "tracegen/x86/process.h"

/* One system call being served. A handler returns the value for RAX
 * (-errno on failure); one that blocks, switches threads or stops the run
 * says so in OUTCOME, which starts as SC_CONTINUE. */
struct x86_sys {
    struct x86_process *p;
    struct x86_thread *t;
    uint64_t nr;
    uint64_t a[6];               /* rdi rsi rdx r10 r8 r9 */
    int outcome;                 /* enum x86_syscall_outcome */
};

typedef long x86_sys_fn(struct x86_sys *s);

/* X86_SYS_read, X86_SYS_write, ...: every call of syscalls.def. */
enum x86_sysno {
#define SYSCALL(nr, name, fn) X86_SYS_##name = nr,
#define UNSERVED(nr, name) X86_SYS_##name = nr,
#include "tracegen/x86/syscalls.def"
#undef SYSCALL
#undef UNSERVED
};

#define SYSCALL(nr, name, fn) x86_sys_fn fn;
#define UNSERVED(nr, name)
#include "tracegen/x86/syscalls.def"
#undef SYSCALL
#undef UNSERVED

/* The call's name ("prctl"), or NULL for a number Linux does not define. */
const char *x86_syscall_name(uint64_t nr);

/* Largest transfer one read, write or getrandom call makes; the guest's C
 * library loops for more, as it must for any short transfer. */
#define X86_IO_CHUNK (1u << 20)
/* The process id the guest sees. */
#define X86_GUEST_PID 1000

/* The host descriptor behind the guest descriptor in register value REG,
 * or -1. Descriptors are unsigned ints to the kernel: the upper half of the
 * register is ignored and a negative number is a large one. */
static inline int x86_host_fd(const struct x86_process *p, uint64_t reg)
{
    uint32_t gfd = (uint32_t)reg;
    return gfd < X86_MAX_FDS ? p->fds[gfd] : -1;
}

/* Reads the guest's path string at ADDR into PATH (PATH_MAX bytes).
 * Returns 0, -EFAULT or -ENAMETOOLONG. */
long x86_guest_path(const struct x86_process *p, uint64_t addr, char *path);
/* The host directory a guest *at call's DIRFD argument names for PATH:
 * AT_FDCWD for the working directory (and for an absolute PATH, which
 * ignores it), else the host descriptor; -EBADF for a closed one. */
int x86_guest_dirfd(const struct x86_process *p, uint64_t dirfd, const char *path);
/* The guest may not write where it tried: says so on stderr (naming the
 * path, WHY, and the option that permits it) and returns -EACCES. */
long x86_refuse_write(struct x86_process *p, const char *why);
/* Gives host descriptor HFD the lowest free guest descriptor from LOWEST
 * (0 <= LOWEST < X86_MAX_FDS), closing HFD when none is free (-EMFILE). */
long x86_new_guest_fd(struct x86_process *p, int hfd, uint32_t lowest);
/* An internal eventfd-backed guest descriptor (eventfd, timerfd,
 * signalfd): a non-blocking host eventfd counting from INITIAL (EFD_FLAGS:
 * EFD_SEMAPHORE or 0), placed above the standard descriptors, given the
 * lowest free guest descriptor and served with MODE, X86_FD_HOST_NB and
 * X86_FD_INTERNAL, and X86_FD_WAITS unless NONBLOCK. With OWN, tracegen
 * keeps a descriptor of its own to the eventfd in *OWN (the guest's is a
 * dup it may close). Returns the guest descriptor, or -errno with nothing
 * left open. */
long x86_new_eventfd_fd(struct x86_process *p, unsigned initial, int efd_flags, uint8_t mode,
                        int nonblock, int *own);
/* The first of the N slots of the objects of KIND (X86_FD_TIMER,
 * X86_FD_SIGNAL) that no guest descriptor names, or -1. An object whose
 * descriptors were all closed is so freed when its slot is reused. */
int x86_fd_object_slot(const struct x86_process *p, uint8_t kind, int n);
/* Guest descriptor TO (a dup of FROM) is served as FROM is. */
void x86_fd_copy_mode(struct x86_process *p, uint32_t from, uint32_t to);
/* A read or write the guest expected to wait found the host descriptor
 * not ready: waits as poll does for EVENTS. Returns 1 when the descriptor
 * became ready (try again), 0 or -errno, or sets SC_RETRY. */
long x86_wait_fd(struct x86_sys *s, uint64_t fd, short events);

/* read on a signalfd (sys_signalfd.c): the pending signals of its mask
 * as struct signalfd_siginfo records, waiting for one unless the
 * descriptor is non-blocking. */
long x86_signalfd_read(struct x86_sys *s);

/* 1 when another guest thread could run: a call must not block the host
 * for what that thread may provide (it yields with SC_RETRY instead). */
int x86_other_threads_runnable(const struct x86_process *p, const struct x86_thread *t);

/* A write found no reader (EPIPE): the guest is sent SIGPIPE, whose
 * default action ends it; ignored or blocked, the write fails. */
void x86_broken_pipe(struct x86_sys *s);

/* Virtual time now, in nanoseconds since the epoch. */
uint64_t x86_virtual_now_ns(const struct x86_process *p);

#endif
