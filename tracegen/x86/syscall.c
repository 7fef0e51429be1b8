/* The Linux system-call layer: dispatch through the table of
 * syscalls.def, the refusals that keep the guest in its sandbox, and the
 * project's own calls (region of interest, GPU). The calls themselves are
 * in sys_file.c, sys_mem.c, sys_info.c, sys_signal.c and sys_thread.c. */
#include <errno.h>
#include <stdio.h>

#include "cgm/guest.h"
#include "tracegen/gpu/gpu_driver.h"
#include "tracegen/x86/fault.h"
#include "tracegen/x86/sys.h"

struct syscall_entry {
    const char *name;
    x86_sys_fn *fn;              /* NULL: unserved */
};

static const struct syscall_entry table[] = {
#define SYSCALL(nr, name, fn) [nr] = { #name, fn },
#define UNSERVED(nr, name) [nr] = { #name, NULL },
#include "tracegen/x86/syscalls.def"
#undef SYSCALL
#undef UNSERVED
};

#define TABLE_SIZE (sizeof table / sizeof table[0])

const char *x86_syscall_name(uint64_t nr)
{
    return nr < TABLE_SIZE ? table[nr].name : NULL;
}

/* Says WHAT about call NR on stderr, once per call (not with --quiet). */
static void notice(struct x86_process *p, uint64_t nr, const char *what)
{
    if (nr < X86_WARNED_CALLS) {
        if (p->warned[nr / 32] & (1u << (nr % 32)))
            return;
        p->warned[nr / 32] |= 1u << (nr % 32);
    }
    if (p->opt.quiet)
        return;
    const char *name = x86_syscall_name(nr);
    fprintf(stderr, "tracegen: %s%s(%llu) %s\n", name ? name : "system call ", name ? " " : "",
            (unsigned long long)nr, what);
}

/* New processes are outside the sandbox: fork, vfork, execve, execveat. */
long sys_process_refused(struct x86_sys *s)
{
    notice(s->p, s->nr, "refused (EPERM): the guest may not start other processes");
    return -EPERM;
}

/* wait4 and waitid: the guest never has child processes (it may not
 * start any), so there is none to wait for. */
long sys_no_children(struct x86_sys *s)
{
    (void)s;
    return -ECHILD;
}

/* The guest has no network: socket, connect, accept, bind, listen,
 * socketpair. */
long sys_socket_refused(struct x86_sys *s)
{
    notice(s->p, s->nr, "refused (EACCES): the guest has no sockets");
    return -EACCES;
}

/* The project's calls and the unserved ones. */
static long other_call(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    if (s->nr == (uint64_t)CGM_SYSCALL_ROI_BEGIN || s->nr == (uint64_t)CGM_SYSCALL_ROI_END)
        return 0;
    if (gpu_is_syscall(s->nr))
        return gpu_syscall(p, s->t, s->nr, s->a);
    if (p->opt.strict) {
        const char *name = x86_syscall_name(s->nr);
        snprintf(p->message, sizeof p->message, "unsupported system call %s%s(%llu) (--strict)",
                 name ? name : "", name ? " " : "", (unsigned long long)s->nr);
        p->stop_kind = XF_SYSCALL;
        s->outcome = SC_STOP;
        return 0;
    }
    notice(p, s->nr, "is not emulated: returns ENOSYS (warning)");
    return -ENOSYS;
}

int x86_syscall(struct x86_process *p, struct x86_thread *t)
{
    struct x86_cpu *c = &t->cpu;
    struct x86_sys s = {
        .p = p, .t = t, .nr = c->r[R_RAX],
        .a = { c->r[R_RDI], c->r[R_RSI], c->r[R_RDX], c->r[R_R10], c->r[R_R8], c->r[R_R9] },
        .outcome = SC_CONTINUE,
    };
    x86_sys_fn *fn = s.nr < TABLE_SIZE ? table[s.nr].fn : NULL;
    long rc = fn ? fn(&s) : other_call(&s);
    if (s.outcome == SC_RETRY) {
        c->rip -= 2; /* the syscall instruction, again */
        return SC_RETRY;
    }
    /* a thread that blocked gets its result from whoever wakes it */
    if (s.outcome == SC_CONTINUE || (s.outcome == SC_SWITCH && t->state == THREAD_RUNNABLE))
        c->r[R_RAX] = (uint64_t)rc;
    return s.outcome;
}
