/* Guest memory: see mem.h. */
#include "tracegen/x86/mem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LEVEL_BITS 12
#define LEVEL_SIZE (1u << LEVEL_BITS)
#define LEVEL_MASK (LEVEL_SIZE - 1)

/* A leaf entry is the host page address with the permission bits in its
 * low (page offset) bits; 0 is unmapped. */
struct leaf { uintptr_t e[LEVEL_SIZE]; };
struct mid  { struct leaf *l[LEVEL_SIZE]; };

struct gmem {
    struct mid *top[LEVEL_SIZE];
    uint64_t mapped_pages;
    uint64_t generation;
};

struct gmem *gmem_create(void)
{
    return calloc(1, sizeof(struct gmem));
}

void gmem_destroy(struct gmem *m)
{
    if (!m)
        return;
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
                    munmap((void *)(lf->e[k] & ~(uintptr_t)GPAGE_MASK), GPAGE_SIZE);
            free(lf);
        }
        free(md);
    }
    free(m);
}

static uintptr_t *slot(const struct gmem *m, uint64_t pn, int create)
{
    struct gmem *mm = (struct gmem *)m;
    unsigned a = (unsigned)(pn >> (2 * LEVEL_BITS)) & LEVEL_MASK;
    unsigned b = (unsigned)(pn >> LEVEL_BITS) & LEVEL_MASK;
    unsigned c = (unsigned)pn & LEVEL_MASK;
    struct mid *md = mm->top[a];
    if (!md) {
        if (!create || !(md = calloc(1, sizeof *md)))
            return NULL;
        mm->top[a] = md;
    }
    struct leaf *lf = md->l[b];
    if (!lf) {
        if (!create || !(lf = calloc(1, sizeof *lf)))
            return NULL;
        md->l[b] = lf;
    }
    return &lf->e[c];
}

static int range_ok(uint64_t addr, uint64_t len)
{
    return (addr & GPAGE_MASK) == 0 && addr < GADDR_LIMIT &&
           len <= GADDR_LIMIT - addr;
}

void gmem_unmap(struct gmem *m, uint64_t addr, uint64_t len)
{
    addr &= ~GPAGE_MASK;
    len = (len + GPAGE_MASK) & ~GPAGE_MASK;
    if (addr >= GADDR_LIMIT)
        return;
    if (len > GADDR_LIMIT - addr)
        len = GADDR_LIMIT - addr;
    m->generation++;
    for (uint64_t pn = addr >> GPAGE_SHIFT; pn < (addr + len) >> GPAGE_SHIFT; pn++) {
        uintptr_t *s = slot(m, pn, 0);
        if (!s) {
            /* skip the rest of an absent leaf table */
            pn |= LEVEL_MASK;
            continue;
        }
        if (*s) {
            munmap((void *)(*s & ~(uintptr_t)GPAGE_MASK), GPAGE_SIZE);
            *s = 0;
            m->mapped_pages--;
        }
    }
}

int gmem_map(struct gmem *m, uint64_t addr, uint64_t len, int prot)
{
    len = (len + GPAGE_MASK) & ~GPAGE_MASK;
    if (!len || !range_ok(addr, len) || len > GMEM_MAPPED_LIMIT ||
        m->mapped_pages * GPAGE_SIZE > GMEM_MAPPED_LIMIT - len)
        return -1;
    gmem_unmap(m, addr, len);
    uint8_t *host = mmap(NULL, len, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (host == MAP_FAILED)
        return -1;
    uint64_t pages = len >> GPAGE_SHIFT;
    for (uint64_t i = 0; i < pages; i++) {
        uintptr_t *s = slot(m, (addr >> GPAGE_SHIFT) + i, 1);
        if (!s) {
            munmap(host + i * GPAGE_SIZE, (pages - i) * GPAGE_SIZE);
            return -1;
        }
        *s = (uintptr_t)(host + i * GPAGE_SIZE) | (uintptr_t)(prot & 7);
        m->mapped_pages++;
    }
    return 0;
}

int gmem_protect(struct gmem *m, uint64_t addr, uint64_t len, int prot)
{
    len = (len + GPAGE_MASK) & ~GPAGE_MASK;
    if (!range_ok(addr, len) || !gmem_is_mapped(m, addr, len))
        return -1;
    m->generation++;
    for (uint64_t a = addr; a < addr + len; a += GPAGE_SIZE) {
        uintptr_t *s = slot(m, a >> GPAGE_SHIFT, 0);
        *s = (*s & ~(uintptr_t)7) | (uintptr_t)(prot & 7);
    }
    return 0;
}

int gmem_is_mapped(const struct gmem *m, uint64_t addr, uint64_t len)
{
    if (addr >= GADDR_LIMIT || len > GADDR_LIMIT - addr)
        return 0;
    uint64_t end = addr + len;
    for (uint64_t a = addr & ~GPAGE_MASK; a < end; a += GPAGE_SIZE) {
        uintptr_t *s = slot(m, a >> GPAGE_SHIFT, 0);
        if (!s || !*s)
            return 0;
    }
    return 1;
}

uint8_t *gmem_page(const struct gmem *m, uint64_t addr, int *prot)
{
    if (addr >= GADDR_LIMIT)
        return NULL;
    uintptr_t *s = slot(m, addr >> GPAGE_SHIFT, 0);
    if (!s || !*s)
        return NULL;
    if (prot)
        *prot = (int)(*s & GPAGE_MASK);
    return (uint8_t *)(*s & ~(uintptr_t)GPAGE_MASK);
}

void gmem_set_code(struct gmem *m, uint64_t addr, int on)
{
    uintptr_t *s = addr < GADDR_LIMIT ? slot(m, addr >> GPAGE_SHIFT, 0) : NULL;
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

uint64_t gmem_mapped_bytes(const struct gmem *m)
{
    return m->mapped_pages * GPAGE_SIZE;
}

uint64_t gmem_generation(const struct gmem *m)
{
    return m->generation;
}

const uint64_t *gmem_generation_ptr(const struct gmem *m)
{
    return &m->generation;
}
