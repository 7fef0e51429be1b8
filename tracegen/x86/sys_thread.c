/* Thread system calls: clone, exit, futex, sched_yield. Threads run one
 * at a time under the deterministic scheduler (process.c); a futex wait
 * blocks the thread until a wake names it. Every synchronizing event gets
 * the next sequence number, and the recorder writes who woke whom. */
#include <errno.h>
#include <string.h>

#include "tracegen/x86/fault.h"
#include "tracegen/x86/process.h"
#include "tracegen/x86/recorder.h"
#include "tracegen/x86/sys.h"

/* Bound on the waiters whose wake-up is logged per wake. */
#define MAX_WOKEN_LOG 4096

#define CLONE_VM_             0x00000100ull
#define CLONE_THREAD_         0x00010000ull
#define CLONE_SETTLS_         0x00080000ull
#define CLONE_PARENT_SETTID_  0x00100000ull
#define CLONE_CHILD_CLEARTID_ 0x00200000ull
#define CLONE_CHILD_SETTID_   0x01000000ull

static int put_u32(struct x86_process *p, uint64_t addr, uint32_t v)
{
    return gmem_copy_out(p->mem, addr, &v, 4, 0, NULL);
}

/* Wakes N waiters and records the wake and each ended wait. */
static long wake(struct x86_process *p, struct x86_thread *t, uint64_t addr, long n,
                 uint32_t bitset, uint64_t op)
{
    uint64_t seq = ++p->seq;
    size_t before[MAX_WOKEN_LOG];
    size_t nb = 0;
    for (size_t i = 0; i < p->nthreads && nb < MAX_WOKEN_LOG; i++)
        if (p->threads[i]->state == THREAD_FUTEX_WAIT)
            before[nb++] = i;
    long woken = x86_futex_wake(p, addr, n, bitset, seq);
    x86_rec_event_fields(t->rec, CGM_EV_FUTEX_WAKE, seq, addr, (uint64_t)woken, op);
    for (size_t k = 0; k < nb; k++) {
        struct x86_thread *w = p->threads[before[k]];
        if (w->state == THREAD_RUNNABLE && w->woken_by == seq)
            x86_rec_event_fields(w->rec, CGM_EV_FUTEX_WAIT, ++p->seq, addr, seq, 0);
    }
    return woken;
}

long sys_clone(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    struct x86_thread *t = s->t;
    struct x86_cpu *c = &t->cpu;
    uint64_t flags = c->r[R_RDI], stack = c->r[R_RSI], ptid = c->r[R_RDX];
    uint64_t ctid = c->r[R_R10], tls = c->r[R_R8];
    if ((flags & (CLONE_VM_ | CLONE_THREAD_)) != (CLONE_VM_ | CLONE_THREAD_))
        return sys_process_refused(s); /* a new process: outside the sandbox */
    struct x86_thread *child = x86_thread_create(p, t);
    if (!child)
        return -EAGAIN;
    child->cpu.r[R_RAX] = 0;
    if (stack)
        child->cpu.r[R_RSP] = stack;
    if (flags & CLONE_SETTLS_)
        child->cpu.fs_base = tls;
    if ((flags & CLONE_PARENT_SETTID_) && put_u32(p, ptid, (uint32_t)child->tid) < 0)
        return -EFAULT;
    if ((flags & CLONE_CHILD_SETTID_) && put_u32(p, ctid, (uint32_t)child->tid) < 0)
        return -EFAULT;
    if (flags & CLONE_CHILD_CLEARTID_)
        child->clear_child_tid = ctid;
    x86_rec_event_fields(t->rec, CGM_EV_THREAD_CREATE, ++p->seq, child->tid, flags, 0);
    return (long)child->tid;
}

/* The thread T ends with STATUS. Returns SC_STOP when it was the last. */
static int thread_exit(struct x86_process *p, struct x86_thread *t, int status)
{
    if (t->clear_child_tid) {
        put_u32(p, t->clear_child_tid, 0);
        wake(p, t, t->clear_child_tid, 1, ~0u, 1);
    }
    x86_rec_event_fields(t->rec, CGM_EV_THREAD_EXIT, ++p->seq, t->tid, (uint64_t)status, 0);
    if (t->rec)
        x86_rec_detach(t->rec);
    t->rec = NULL;
    t->state = THREAD_EXITED;
    t->exit_status = status;
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i]->state != THREAD_EXITED)
            return SC_SWITCH;
    p->exited = 1;
    p->exit_status = status;
    p->stop_kind = XF_EXIT;
    return SC_STOP;
}

static int wake_op_cmp(uint32_t old, unsigned cmp, uint32_t arg)
{
    switch (cmp) {
    case 0: return old == arg;
    case 1: return old != arg;
    case 2: return (int32_t)old < (int32_t)arg;
    case 3: return (int32_t)old <= (int32_t)arg;
    case 4: return (int32_t)old > (int32_t)arg;
    case 5: return (int32_t)old >= (int32_t)arg;
    default: return 0;
    }
}

/* Returns an enum x86_syscall_outcome and sets *RC unless the thread blocked. */
static int futex(struct x86_process *p, struct x86_thread *t, long *rc)
{
    struct x86_cpu *c = &t->cpu;
    uint64_t addr = c->r[R_RDI], val = c->r[R_RDX], timeout = c->r[R_R10];
    uint64_t addr2 = c->r[R_R8], val3 = c->r[R_R9];
    unsigned cmd = (unsigned)c->r[R_RSI] & 0x7f;
    uint32_t cur;
    switch (cmd) {
    case 0: case 9: { /* WAIT, WAIT_BITSET */
        uint32_t bitset = cmd == 9 ? (uint32_t)val3 : ~0u;
        if (!bitset) {
            *rc = -EINVAL;
            return SC_CONTINUE;
        }
        if (gmem_copy_in(p->mem, &cur, addr, 4, NULL) < 0) {
            *rc = -EFAULT;
            return SC_CONTINUE;
        }
        if (cur != (uint32_t)val) {
            x86_rec_event_fields(t->rec, CGM_EV_FUTEX_WAIT, ++p->seq, addr, 0,
                                 (uint64_t)(int64_t)-EAGAIN);
            *rc = -EAGAIN;
            return SC_CONTINUE;
        }
        t->state = THREAD_FUTEX_WAIT;
        t->futex_addr = addr;
        t->futex_bitset = bitset;
        t->futex_timed = timeout != 0;
        t->wait_order = ++p->wait_counter;
        t->woken_by = 0;
        return SC_SWITCH; /* the waker sets rax */
    }
    case 1: case 10: /* WAKE, WAKE_BITSET */
        *rc = wake(p, t, addr, (long)(val > 0x7fffffff ? 0x7fffffff : val),
                   cmd == 10 ? (uint32_t)val3 : ~0u, cmd);
        return SC_CONTINUE;
    case 3: case 4: { /* REQUEUE, CMP_REQUEUE */
        if (cmd == 4) {
            if (gmem_copy_in(p->mem, &cur, addr, 4, NULL) < 0) {
                *rc = -EFAULT;
                return SC_CONTINUE;
            }
            if (cur != (uint32_t)val3) {
                *rc = -EAGAIN;
                return SC_CONTINUE;
            }
        }
        long woken = wake(p, t, addr, (long)(val & 0x7fffffff), ~0u, cmd);
        long moved = 0, limit = (long)(timeout & 0x7fffffff);
        while (moved < limit) {
            struct x86_thread *best = NULL;
            for (size_t i = 0; i < p->nthreads; i++) {
                struct x86_thread *w = p->threads[i];
                if (w->state == THREAD_FUTEX_WAIT && w->futex_addr == addr &&
                    (!best || w->wait_order < best->wait_order))
                    best = w;
            }
            if (!best)
                break;
            best->futex_addr = addr2;
            moved++;
        }
        *rc = cmd == 4 ? woken + moved : woken;
        return SC_CONTINUE;
    }
    case 5: { /* WAKE_OP */
        unsigned op = (unsigned)(val3 >> 28) & 7, cmp = (unsigned)(val3 >> 24) & 15;
        uint32_t oparg = (uint32_t)(val3 >> 12) & 0xfff, cmparg = (uint32_t)val3 & 0xfff;
        if ((val3 >> 28) & 8)
            oparg = 1u << (oparg & 31);
        uint32_t old, nv;
        if (gmem_copy_in(p->mem, &old, addr2, 4, NULL) < 0) {
            *rc = -EFAULT;
            return SC_CONTINUE;
        }
        switch (op) {
        case 0: nv = oparg; break;
        case 1: nv = old + oparg; break;
        case 2: nv = old | oparg; break;
        case 3: nv = old & ~oparg; break;
        default: nv = old ^ oparg; break;
        }
        if (put_u32(p, addr2, nv) < 0) {
            *rc = -EFAULT;
            return SC_CONTINUE;
        }
        long n = wake(p, t, addr, (long)(val & 0x7fffffff), ~0u, cmd);
        if (wake_op_cmp(old, cmp, cmparg))
            n += wake(p, t, addr2, (long)(timeout & 0x7fffffff), ~0u, cmd);
        *rc = n;
        return SC_CONTINUE;
    }
    default:
        *rc = -ENOSYS;
        return SC_CONTINUE;
    }
}

long sys_futex(struct x86_sys *s)
{
    long rc = 0;
    s->outcome = futex(s->p, s->t, &rc);
    return rc;
}

/* clone3 and rseq: the C libraries fall back to clone, or do without. */
long sys_left_to_libc(struct x86_sys *s)
{
    (void)s;
    return -ENOSYS;
}

long sys_exit(struct x86_sys *s)
{
    s->outcome = thread_exit(s->p, s->t, (int)(s->a[0] & 0xff));
    return 0;
}

long sys_exit_group(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    int status = (int)(s->a[0] & 0xff);
    x86_rec_event_fields(s->t->rec, CGM_EV_THREAD_EXIT, ++p->seq, s->t->tid, (uint64_t)status, 0);
    p->exited = 1;
    p->exit_status = status;
    p->stop_kind = XF_EXIT;
    s->outcome = SC_STOP;
    return 0;
}

long sys_sched_yield(struct x86_sys *s)
{
    s->outcome = SC_SWITCH;
    return 0;
}
