/* Guest memory: see mem.h. */
#include "tracegen/x86/mem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LEVEL_BITS 12
#define LEVEL_SIZE (1u << LEVEL_BITS)
#define LEVEL_MASK (LEVEL_SIZE - 1)
#define LEAF_PAGES ((uint64_t)LEVEL_SIZE)
#define MID_PAGES  ((uint64_t)LEVEL_SIZE << LEVEL_BITS)

/* A leaf entry is the host page address with the permission bits in its
 * low (page offset) bits; 0 is unmapped. Tables count their entries and
 * are freed when the last goes, so they cost in proportion to what is
 * mapped now, not to what was ever mapped. */
struct leaf { uintptr_t e[LEVEL_SIZE]; uint32_t used; };
struct mid  { struct leaf *l[LEVEL_SIZE]; uint32_t used; };

struct gmem {
    struct mid *top[LEVEL_SIZE];
    uint64_t mapped_pages;
    uint64_t usable_pages;       /* mapped with some access: charged in full */
    uint64_t leaves, mids;       /* tables allocated */
    uint64_t limit;              /* bytes (gmem_set_limit) */
    uint64_t generation;
};

static uint64_t page_up(uint64_t v)
{
    return (v + GPAGE_MASK) & ~GPAGE_MASK;
}

struct gmem *gmem_create(void)
{
    struct gmem *m = calloc(1, sizeof(struct gmem));
    if (m)
        m->limit = GMEM_MAPPED_LIMIT;
    return m;
}

void gmem_set_limit(struct gmem *m, uint64_t bytes)
{
    m->limit = bytes;
}

uint64_t gmem_limit(const struct gmem *m)
{
    return m->limit;
}

uint64_t gmem_table_bytes(const struct gmem *m)
{
    return sizeof *m + m->leaves * sizeof(struct leaf) + m->mids * sizeof(struct mid);
}

uint64_t gmem_host_bytes(const struct gmem *m)
{
    return m->usable_pages * GPAGE_SIZE + gmem_table_bytes(m);
}

static int usable(uintptr_t entry)
{
    return (entry & 7) != 0;
}

/* Host pages released together: guest pages whose host pages follow one
 * another are unmapped or advised in one call. */
struct host_run {
    uintptr_t start, end;
    int advice;                  /* -1: munmap; else madvise with it */
};

static void run_flush(struct host_run *r)
{
    if (r->end > r->start) {
        if (r->advice < 0)
            munmap((void *)r->start, r->end - r->start);
        else
            madvise((void *)r->start, r->end - r->start, r->advice);
    }
    r->start = r->end = 0;
}

static void run_add(struct host_run *r, uintptr_t entry)
{
    uintptr_t host = entry & ~(uintptr_t)GPAGE_MASK;
    if (host != r->end)
        run_flush(r);
    if (r->start == r->end)
        r->start = host;
    r->end = host + GPAGE_SIZE;
}

void gmem_destroy(struct gmem *m)
{
    if (!m)
        return;
    struct host_run run = { 0, 0, -1 };
    for (unsigned i = 0; i < LEVEL_SIZE; i++) {
        struct mid *md = m->top[i];
        if (!md)
            continue;
        for (unsigned j = 0; j < LEVEL_SIZE; j++) {
            struct leaf *lf = md->l[j];
            if (!lf)
                continue;
            for (unsigned k = 0; k < LEVEL_SIZE; k++)
                if (lf->e[k])
                    run_add(&run, lf->e[k]);
            free(lf);
        }
        free(md);
    }
    run_flush(&run);
    free(m);
}

static uintptr_t *find(const struct gmem *m, uint64_t pn)
{
    const struct mid *md = m->top[(pn >> (2 * LEVEL_BITS)) & LEVEL_MASK];
    struct leaf *lf = md ? md->l[(pn >> LEVEL_BITS) & LEVEL_MASK] : NULL;
    return lf ? &lf->e[pn & LEVEL_MASK] : NULL;
}

/* The entry of page PN, its tables made when missing; NULL when out of memory. */
static uintptr_t *make(struct gmem *m, uint64_t pn)
{
    unsigned a = (unsigned)(pn >> (2 * LEVEL_BITS)) & LEVEL_MASK;
    unsigned b = (unsigned)(pn >> LEVEL_BITS) & LEVEL_MASK;
    struct mid *md = m->top[a];
    if (!md) {
        if (!(md = calloc(1, sizeof *md)))
            return NULL;
        m->top[a] = md;
        m->mids++;
    }
    struct leaf *lf = md->l[b];
    if (!lf) {
        if (!(lf = calloc(1, sizeof *lf))) {
            if (!md->used) {
                free(md);
                m->top[a] = NULL;
                m->mids--;
            }
            return NULL;
        }
        md->l[b] = lf;
        md->used++;
        m->leaves++;
    }
    return &lf->e[pn & LEVEL_MASK];
}

static void set_entry(struct gmem *m, uint64_t pn, uintptr_t *e, uintptr_t v)
{
    struct leaf *lf = m->top[(pn >> (2 * LEVEL_BITS)) & LEVEL_MASK]->l[(pn >> LEVEL_BITS) & LEVEL_MASK];
    lf->used++;
    m->mapped_pages++;
    m->usable_pages += (uint64_t)usable(v);
    *e = v;
}

/* Clears the mapped entry of page PN, freeing tables left empty. */
static void clear_entry(struct gmem *m, uint64_t pn)
{
    unsigned a = (unsigned)(pn >> (2 * LEVEL_BITS)) & LEVEL_MASK;
    unsigned b = (unsigned)(pn >> LEVEL_BITS) & LEVEL_MASK;
    struct mid *md = m->top[a];
    struct leaf *lf = md->l[b];
    uintptr_t *e = &lf->e[pn & LEVEL_MASK];
    m->mapped_pages--;
    m->usable_pages -= (uint64_t)usable(*e);
    *e = 0;
    if (--lf->used)
        return;
    free(lf);
    md->l[b] = NULL;
    m->leaves--;
    if (--md->used)
        return;
    free(md);
    m->top[a] = NULL;
    m->mids--;
}

/* The first mapped page number in [PN, END), or END. Absent tables are
 * skipped whole, so a walk costs what is mapped, not the range's size. */
static uint64_t next_mapped(const struct gmem *m, uint64_t pn, uint64_t end)
{
    while (pn < end) {
        const struct mid *md = m->top[(pn >> (2 * LEVEL_BITS)) & LEVEL_MASK];
        if (!md) {
            pn = (pn | (MID_PAGES - 1)) + 1;
            continue;
        }
        const struct leaf *lf = md->l[(pn >> LEVEL_BITS) & LEVEL_MASK];
        if (!lf) {
            pn = (pn | (LEAF_PAGES - 1)) + 1;
            continue;
        }
        for (unsigned c = (unsigned)(pn & LEVEL_MASK); c < LEVEL_SIZE && pn < end; c++, pn++)
            if (lf->e[c])
                return pn;
    }
    return end;
}

static int range_ok(uint64_t addr, uint64_t len)
{
    return (addr & GPAGE_MASK) == 0 && addr < GADDR_LIMIT &&
           len <= GADDR_LIMIT - addr;
}

void gmem_unmap(struct gmem *m, uint64_t addr, uint64_t len)
{
    addr &= ~GPAGE_MASK;
    if (addr >= GADDR_LIMIT)
        return;
    if (len > GADDR_LIMIT - addr)
        len = GADDR_LIMIT - addr;
    len = page_up(len);
    m->generation++;
    struct host_run run = { 0, 0, -1 };
    uint64_t end = (addr + len) >> GPAGE_SHIFT;
    for (uint64_t pn = next_mapped(m, addr >> GPAGE_SHIFT, end); pn < end;
         pn = next_mapped(m, pn + 1, end)) {
        run_add(&run, *find(m, pn));
        clear_entry(m, pn);
    }
    run_flush(&run);
}

/* Bytes of the leaf and mid tables that mapping [PN, END) would add. */
static uint64_t new_table_bytes(const struct gmem *m, uint64_t pn, uint64_t end)
{
    uint64_t bytes = 0;
    for (uint64_t at = pn & ~(LEAF_PAGES - 1); at < end;) {
        const struct mid *md = m->top[(at >> (2 * LEVEL_BITS)) & LEVEL_MASK];
        uint64_t mid_end = (at | (MID_PAGES - 1)) + 1;
        if (!md) {
            uint64_t stop = mid_end < end ? mid_end : end;
            bytes += sizeof(struct mid) + (stop - at + LEAF_PAGES - 1) / LEAF_PAGES * sizeof(struct leaf);
            at = mid_end;
            continue;
        }
        if (!md->l[(at >> LEVEL_BITS) & LEVEL_MASK])
            bytes += sizeof(struct leaf);
        at += LEAF_PAGES;
    }
    return bytes;
}

/* Usable pages of [PN, END) that are mapped now. */
static uint64_t usable_in(const struct gmem *m, uint64_t pn, uint64_t end)
{
    uint64_t n = 0;
    for (pn = next_mapped(m, pn, end); pn < end; pn = next_mapped(m, pn + 1, end))
        n += (uint64_t)usable(*find(m, pn));
    return n;
}

/* 1 when charging ADD bytes after releasing FREED keeps within the limit. */
static int fits(const struct gmem *m, uint64_t add, uint64_t freed)
{
    uint64_t now = gmem_host_bytes(m) - freed;
    return now <= m->limit && add <= m->limit - now;
}

/* gmem_map, backed by host memory that is FD's bytes from OFF when FD is
 * not -1 (shared), or fresh zeroed memory. */
static int map_backed(struct gmem *m, uint64_t addr, uint64_t len, int prot, int fd,
                      uint64_t off)
{
    if (len > GADDR_LIMIT)
        return -1;
    len = page_up(len);
    if (!len || !range_ok(addr, len))
        return -1;
    uint64_t pn = addr >> GPAGE_SHIFT, end = (addr + len) >> GPAGE_SHIFT;
    uint64_t data = (prot & 7) ? len : 0;
    if (!fits(m, data + new_table_bytes(m, pn, end), usable_in(m, pn, end) * GPAGE_SIZE))
        return -1;
    uint8_t *host = fd < 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                           : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
    if (host == MAP_FAILED)
        return -1;
    uintptr_t bits = (uintptr_t)(prot & 7) | (fd < 0 ? 0 : GPROT_SHARED);
    gmem_unmap(m, addr, len); /* what was there goes once the new memory is had */
    for (uint64_t i = 0; pn + i < end; i++) {
        uintptr_t *e = make(m, pn + i);
        if (!e) {
            munmap(host + i * GPAGE_SIZE, len - i * GPAGE_SIZE);
            return -1;
        }
        set_entry(m, pn + i, e, (uintptr_t)(host + i * GPAGE_SIZE) | bits);
    }
    return 0;
}

int gmem_map(struct gmem *m, uint64_t addr, uint64_t len, int prot)
{
    return map_backed(m, addr, len, prot, -1, 0);
}

int gmem_map_shared_file(struct gmem *m, uint64_t addr, uint64_t len, int prot, int fd,
                         uint64_t off)
{
    return map_backed(m, addr, len, prot, fd, off);
}

int gmem_protect(struct gmem *m, uint64_t addr, uint64_t len, int prot)
{
    if (len > GADDR_LIMIT)
        return -1;
    len = page_up(len);
    if (!range_ok(addr, len) || !gmem_is_mapped(m, addr, len))
        return -1;
    uint64_t pn = addr >> GPAGE_SHIFT, end = (addr + len) >> GPAGE_SHIFT;
    uint64_t now = usable_in(m, pn, end), after = (prot & 7) ? end - pn : 0;
    if (after > now && !fits(m, (after - now) * GPAGE_SIZE, 0))
        return -1;
    m->generation++;
    for (; pn < end; pn++) {
        uintptr_t *e = find(m, pn);
        *e = (*e & ~(uintptr_t)7) | (uintptr_t)(prot & 7);
    }
    m->usable_pages = m->usable_pages - now + after;
    return 0;
}

int gmem_discard(struct gmem *m, uint64_t addr, uint64_t len)
{
    if (len > GADDR_LIMIT || !range_ok(addr, page_up(len)))
        return -1;
    uint64_t pn = addr >> GPAGE_SHIFT, end = (addr + page_up(len)) >> GPAGE_SHIFT;
    uint64_t pages = 0;
    struct host_run run = { 0, 0, MADV_DONTNEED };
    for (pn = next_mapped(m, pn, end); pn < end; pn = next_mapped(m, pn + 1, end)) {
        run_add(&run, *find(m, pn));
        pages++;
    }
    run_flush(&run);
    return pages == (page_up(len) >> GPAGE_SHIFT) ? 0 : -1;
}

int gmem_is_mapped(const struct gmem *m, uint64_t addr, uint64_t len)
{
    if (addr >= GADDR_LIMIT || len > GADDR_LIMIT - addr)
        return 0;
    uint64_t end = addr + len;
    for (uint64_t a = addr & ~GPAGE_MASK; a < end; a += GPAGE_SIZE) {
        uintptr_t *s = find(m, a >> GPAGE_SHIFT);
        if (!s || !*s)
            return 0;
    }
    return 1;
}

uint8_t *gmem_page(const struct gmem *m, uint64_t addr, int *prot)
{
    if (addr >= GADDR_LIMIT)
        return NULL;
    uintptr_t *s = find(m, addr >> GPAGE_SHIFT);
    if (!s || !*s)
        return NULL;
    if (prot)
        *prot = (int)(*s & GPAGE_MASK);
    return (uint8_t *)(*s & ~(uintptr_t)GPAGE_MASK);
}

void gmem_set_code(struct gmem *m, uint64_t addr, int on)
{
    uintptr_t *s = addr < GADDR_LIMIT ? find(m, addr >> GPAGE_SHIFT) : NULL;
    if (!s || !*s)
        return;
    if (on)
        *s |= GPROT_CODE;
    else
        *s &= ~(uintptr_t)GPROT_CODE;
    m->generation++;
}
int gmem_copy_in(const struct gmem *m, void *dst, uint64_t src, size_t n,
                 uint64_t *fault)
{
    uint8_t *d = dst;
    while (n) {
        int prot;
        uint8_t *p = gmem_page(m, src, &prot);
        if (!p || !(prot & GPROT_R)) {
            if (fault)
                *fault = src;
            return -1;
        }
        size_t off = src & GPAGE_MASK, k = GPAGE_SIZE - off;
        if (k > n)
            k = n;
        memcpy(d, p + off, k);
        d += k;
        src += k;
        n -= k;
    }
    return 0;
}

int gmem_copy_out(struct gmem *m, uint64_t dst, const void *src, size_t n,
                  int force, uint64_t *fault)
{
    const uint8_t *s = src;
    while (n) {
        int prot;
        uint8_t *p = gmem_page(m, dst, &prot);
        if (!p || (!force && !(prot & GPROT_W))) {
            if (fault)
                *fault = dst;
            return -1;
        }
        size_t off = dst & GPAGE_MASK, k = GPAGE_SIZE - off;
        if (k > n)
            k = n;
        memcpy(p + off, s, k);
        s += k;
        dst += k;
        n -= k;
    }
    return 0;
}

long gmem_read_str(const struct gmem *m, char *dst, uint64_t src, size_t max)
{
    for (size_t i = 0; i < max; i++) {
        int prot;
        uint8_t *p = gmem_page(m, src + i, &prot);
        if (!p || !(prot & GPROT_R))
            return -1;
        dst[i] = (char)p[(src + i) & GPAGE_MASK];
        if (!dst[i])
            return (long)i;
    }
    return -1;
}

uint64_t gmem_generation(const struct gmem *m)
{
    return m->generation;
}

const uint64_t *gmem_generation_ptr(const struct gmem *m)
{
    return &m->generation;
}
