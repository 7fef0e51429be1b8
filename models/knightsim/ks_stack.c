/*
 * Context stacks: one anonymous mapping each, with an inaccessible guard below
 * the usable part, and a SIGSEGV handler (on an alternate signal stack) that
 * turns a fault in the running context's guard into an error naming the
 * context instead of a silent corruption.
 */
#include "ks_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Under valgrind, a stack switch it does not know about looks like a huge
 * stack allocation and makes every later access "uninitialised". The client
 * requests cost a few instructions when not under valgrind. */
#if defined(CGM_ASAN) && CGM_ASAN
#include <sanitizer/asan_interface.h>
#endif
#if __has_include(<valgrind/valgrind.h>) && !(defined(CGM_ASAN) && CGM_ASAN)
#include <valgrind/valgrind.h>
#define KS_STACK_REGISTER(lo, hi) VALGRIND_STACK_REGISTER(lo, hi)
#define KS_STACK_DEREGISTER(id) VALGRIND_STACK_DEREGISTER(id)
#else
#define KS_STACK_REGISTER(lo, hi) 0u
#define KS_STACK_DEREGISTER(id) ((void)(id))
#endif

/* Larger than one page so that a big frame cannot jump over it unnoticed. */
#define KS_GUARD_BYTES (64u * 1024u)
#define KS_ALTSTACK_BYTES (64u * 1024u)

static size_t page_size(void)
{
    static size_t ps;
    if (!ps)
        ps = (size_t)sysconf(_SC_PAGESIZE);
    return ps;
}

/* Stacks all start at the same offset in a page, so without this the tops of
 * many contexts' stacks would compete for the same few L1 cache sets. Each
 * stack's top is moved down by a different multiple of 5 cache lines (an odd
 * count, so successive stacks go through all 64 line offsets of a page). */
static size_t next_color(void)
{
    static atomic_uint n;
    return (size_t)(atomic_fetch_add_explicit(&n, 1, memory_order_relaxed) % 64u) * 320u % 4096u;
}

bool ks_stack_alloc(ks_stack *st, size_t usable)
{
    size_t ps = page_size();
    usable = (usable + ps - 1) / ps * ps;
    size_t color = next_color();
    size_t total = usable + ps + KS_GUARD_BYTES;
    void *map = mmap(NULL, total, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
        return false;
    if (mprotect(map, KS_GUARD_BYTES, PROT_NONE) != 0) {
        munmap(map, total);
        return false;
    }
    st->map = map;
    st->map_size = total;
    st->lo = (char *)map + KS_GUARD_BYTES;
    st->size = usable + ps - color;
    st->valgrind_id = KS_STACK_REGISTER(st->lo, st->lo + st->size);
#if defined(CGM_ASAN) && CGM_ASAN
    /* The mapping may reuse addresses of an ended context's stack whose frames
     * ASan still has marked (a fiber that ends never unwinds). */
    ASAN_UNPOISON_MEMORY_REGION(st->lo, st->size);
#endif
    return true;
}

void ks_stack_free(ks_stack *st)
{
    if (st->map) {
        KS_STACK_DEREGISTER(st->valgrind_id);
        munmap(st->map, st->map_size);
    }
    memset(st, 0, sizeof *st);
}

/* Where a fresh context's stack pointer starts: 16-byte aligned, as the
 * trampoline's call needs it. */
void *ks_stack_top(const ks_context *ctx)
{
    return (void *)(((uintptr_t)ctx->stack.lo + ctx->stack.size) & ~(uintptr_t)15);
}

static struct sigaction previous_segv, previous_bus;

static void put(const char *s)
{
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r; /* nothing to do about a failed diagnostic write */
}

static void put_u64(uint64_t v)
{
    char buf[24];
    int i = (int)sizeof buf;
    buf[--i] = '\0';
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(buf + i);
}

static void chain(const struct sigaction *prev, int sig, siginfo_t *info, void *uc)
{
    if (prev->sa_flags & SA_SIGINFO) {
        if (prev->sa_sigaction) {
            prev->sa_sigaction(sig, info, uc);
            return;
        }
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
        return;
    }
    /* Default action: returning re-executes the faulting access. */
    signal(sig, SIG_DFL);
}

static void on_fault(int sig, siginfo_t *info, void *uc)
{
    ks_worker *w = ks_tls_worker;
    ks_context *c = w ? w->cur : NULL;
    char *addr = info->si_addr;
    if (c && c->stack.map && addr >= (char *)c->stack.map && addr < c->stack.lo) {
        put("knightsim: stack overflow in context '");
        put(c->name);
        put("' (stack of ");
        put_u64(c->stack.size);
        put(" bytes); create it with a larger stack_size\n");
        signal(sig, SIG_DFL);
        return;
    }
    chain(sig == SIGBUS ? &previous_bus : &previous_segv, sig, info, uc);
}

static bool is_ours(const struct sigaction *sa)
{
    return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_fault;
}

/* Checked at every run, not once: test harnesses and other libraries install
 * their own SIGSEGV handlers in between (we chain to whatever was there). */
static void install_handler(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    struct sigaction sa, cur;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    pthread_mutex_lock(&lock);
    if (sigaction(SIGSEGV, NULL, &cur) == 0 && !is_ours(&cur))
        sigaction(SIGSEGV, &sa, &previous_segv);
    if (sigaction(SIGBUS, NULL, &cur) == 0 && !is_ours(&cur))
        sigaction(SIGBUS, &sa, &previous_bus);
    pthread_mutex_unlock(&lock);
}

static _Thread_local void *altstack_mem;
static _Thread_local bool guard_ready;

/* Called by every thread that runs contexts: the handler must run on a stack
 * other than the overflowed one. */
void ks_overflow_guard_thread(void)
{
    install_handler();
    if (guard_ready)
        return;
    guard_ready = true;
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
        stack_t alt;
        alt.ss_sp = malloc(KS_ALTSTACK_BYTES);
        alt.ss_size = KS_ALTSTACK_BYTES;
        alt.ss_flags = 0;
        if (alt.ss_sp && sigaltstack(&alt, NULL) == 0)
            altstack_mem = alt.ss_sp;
        else
            free(alt.ss_sp);
    }
}

/* For worker threads about to exit: give back the alternate stack. */
void ks_overflow_guard_release(void)
{
    if (altstack_mem) {
        stack_t off;
        memset(&off, 0, sizeof off);
        off.ss_flags = SS_DISABLE;
        sigaltstack(&off, NULL);
        free(altstack_mem);
        altstack_mem = NULL;
    }
    guard_ready = false;
}
