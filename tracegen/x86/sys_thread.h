/* Thread system calls (clone, exit, exit_group, futex, sched_yield). */
#ifndef TRACEGEN_X86_SYS_THREAD_H
#define TRACEGEN_X86_SYS_THREAD_H

#include <stdint.h>

#include "tracegen/x86/process.h"

/* Bound on the waiters whose wake-up is logged per wake. */
#define MAX_WOKEN_LOG 4096

/* Handles NR when it is a thread call: returns an enum x86_syscall_outcome
 * and sets *RC (unless the thread blocked or ended), or -1 when NR is not
 * a thread call. */
int x86_sys_thread(struct x86_process *p, struct x86_thread *t, uint64_t nr, long *rc);

#endif
