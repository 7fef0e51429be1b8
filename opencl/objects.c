/* Live objects, the library lock, clGet*Info's copying rules, the clock. */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cl_internal.h"

/* One lock for the library, taken again by a thread that holds it (a
 * callback may call the API): a futex word (0 free, 1 held, 2 held with
 * waiters) and a per-thread depth. Taking and releasing it costs a guest
 * about ten instructions where musl's mutex costs about fifty (its unlock
 * checks the mutex type, robustness and waiters) and a recursive one more.
 * The fast paths are inline (cl_internal.h). */
atomic_int cgm_cl_lock_word;
_Thread_local unsigned cgm_cl_lock_depth;

/* <linux/futex.h>'s values (musl's headers do not carry it) */
enum { FUTEX_WAIT_OP = 0, FUTEX_WAKE_OP = 1, FUTEX_PRIVATE = 128 };

static long futex(atomic_int *word, int op, int val)
{
    return syscall(SYS_futex, word, op | FUTEX_PRIVATE, val, NULL, NULL, 0);
}

void cgm_cl_lock_wait(void)
{
    /* the word was not 0: mark it contended and sleep until it is free */
    while (atomic_exchange(&cgm_cl_lock_word, 2) != 0)
        futex(&cgm_cl_lock_word, FUTEX_WAIT_OP, 2);
}

void cgm_cl_lock_wake(void)
{
    futex(&cgm_cl_lock_word, FUTEX_WAKE_OP, 1);
}

/* An open-addressing set of live objects (pointer -> kind); a removed slot
 * becomes a tombstone until the table is rebuilt. */
#define TOMB ((const void *)1)
static struct slot { const void *p; int kind; } *table;
static size_t cap, used, live;   /* used counts live entries and tombstones */

static size_t slot_of(const void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 20) & (cap - 1);
}

static int grow(void)
{
    struct slot *old = table;
    size_t oldcap = cap;
    /* rebuilt at the same size when tombstones, not live objects, filled it */
    size_t ncap = !cap ? 64 : (live + 1) * 4 > cap ? cap * 2 : cap;
    struct slot *t = calloc(ncap, sizeof *t);
    if (!t)
        return -1;
    table = t;
    cap = ncap;
    used = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].p && old[i].p != TOMB) {
            size_t s = slot_of(old[i].p);
            while (table[s].p)
                s = (s + 1) & (cap - 1);
            table[s] = old[i];
            used++;
        }
    free(old);
    return 0;
}

/* Released objects of each kind, for reuse: an object's memory always
 * holds an object of its kind (its dispatch pointer intact), so a released
 * handle that the ICD loader follows still reaches this library, which
 * finds it is no longer in the table. */
static struct cl_head *free_objects[K_EVENT + 1];

/* Objects are never given back to malloc, so they come from chunks cut in
 * order: a program's first objects would otherwise cost musl's allocator
 * hundreds of guest instructions each (a new size class's first slot). */
enum { CHUNK_BYTES = 16 << 10 };
static char *chunk_next, *chunk_end;

static void *carve(size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t)15;
    if ((size_t)(chunk_end - chunk_next) < bytes) {
        size_t n = bytes > CHUNK_BYTES ? bytes : CHUNK_BYTES;
        char *c = malloc(n);
        if (!c)
            return NULL;
        chunk_next = c;
        chunk_end = c + n;
    }
    void *p = chunk_next;
    chunk_next += bytes;
    return p;
}

void *cgm_cl_new(size_t bytes, int kind)
{
    if ((used + 1) * 2 > cap && grow() < 0)
        return NULL;
    struct cl_head *h = free_objects[kind];
    if (h)
        free_objects[kind] = *(struct cl_head **)(h + 1);
    else if (!(h = carve(bytes)))
        return NULL;
    memset(h, 0, bytes);
    extern const void *cgm_cl_dispatch;
    h->dispatch = cgm_cl_dispatch;
    h->kind = kind;
    h->refs = 1;
    size_t s = slot_of(h);
    while (table[s].p && table[s].p != TOMB)
        s = (s + 1) & (cap - 1);
    if (!table[s].p)
        used++;
    live++;
    table[s].p = h;
    table[s].kind = kind;
    return h;
}

const void *cgm_cl_last_valid[K_EVENT + 1];
struct cgm_cl_seen cgm_cl_seen[CGM_CL_SEEN];

int cgm_cl_valid_lookup(const void *p, int kind)
{
    if (!p)
        return 0;
    if (p == &cgm_cl_platform)
        return kind == K_PLATFORM;
    if (p == &cgm_cl_device)
        return kind == K_DEVICE;
    struct cgm_cl_seen *e = &cgm_cl_seen[cgm_cl_seen_slot(p)];
    if (e->p == p && e->kind == kind) {
        cgm_cl_last_valid[kind] = p;
        return 1;
    }
    if (!cap)
        return 0;
    for (size_t s = slot_of(p); table[s].p; s = (s + 1) & (cap - 1))
        if (table[s].p == p) {
            if (table[s].kind != kind)
                return 0;
            e->p = cgm_cl_last_valid[kind] = p;
            e->kind = kind;
            return 1;
        }
    return 0;
}

int cgm_cl_valid_locked(const void *p, int kind)
{
    cgm_cl_lock();
    int ok = cgm_cl_valid(p, kind);
    cgm_cl_unlock();
    return ok;
}

cl_int cgm_cl_retain(void *p, int kind, cl_int invalid)
{
    cgm_cl_lock();
    cl_int e = cgm_cl_valid(p, kind) ? (((struct cl_head *)p)->refs++, CL_SUCCESS) : invalid;
    cgm_cl_unlock();
    return e;
}

void cgm_cl_free(void *p)
{
    if (!p || !cap)
        return;
    for (size_t s = slot_of(p); table[s].p; s = (s + 1) & (cap - 1))
        if (table[s].p == p) {
            struct cl_head *h = p;
            struct cgm_cl_seen *e = &cgm_cl_seen[cgm_cl_seen_slot(p)];
            if (e->p == p)
                e->p = NULL;
            if (cgm_cl_last_valid[h->kind] == p)
                cgm_cl_last_valid[h->kind] = NULL;
            table[s].p = TOMB;
            table[s].kind = 0;
            live--;
            /* the link overwrites the dead object's fields, never its head */
            h->refs = 0;
            *(struct cl_head **)(h + 1) = free_objects[h->kind];
            free_objects[h->kind] = h;
            return;
        }
}

cl_int cgm_cl_info(const void *value, size_t size, size_t param_value_size, void *param_value,
                   size_t *param_value_size_ret)
{
    if (param_value) {
        if (param_value_size < size)
            return CL_INVALID_VALUE;
        memcpy(param_value, value, size);
    }
    if (param_value_size_ret)
        *param_value_size_ret = size;
    return CL_SUCCESS;
}

cl_int cgm_cl_info_str(const char *s, size_t param_value_size, void *param_value,
                       size_t *param_value_size_ret)
{
    return cgm_cl_info(s, strlen(s) + 1, param_value_size, param_value, param_value_size_ret);
}

cl_ulong cgm_cl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (cl_ulong)ts.tv_sec * 1000000000ull + (cl_ulong)ts.tv_nsec;
}
