/* Questions about the guest's mappings that change nothing: msync (every
 * mapping is private memory of tracegen's, so there is nothing to write
 * back) and mincore (every mapped page is resident). Both answer ENOMEM at
 * the first unmapped page of the range, as Linux does, so their work is
 * bounded by what is mapped. */
#include <errno.h>

#include "tracegen/x86/sys.h"

#define MS_ASYNC_ 1
#define MS_INVALIDATE_ 2
#define MS_SYNC_ 4

/* 0 when every page of [ADDR, ADDR+LEN) is mapped, else -ENOMEM. */
static long all_mapped(const struct x86_process *p, uint64_t addr, uint64_t len)
{
    for (uint64_t off = 0; off < len; off += GPAGE_SIZE)
        if (!gmem_page(p->mem, addr + off, NULL))
            return -ENOMEM;
    return 0;
}

static int bad_range(uint64_t addr, uint64_t len)
{
    return (addr & GPAGE_MASK) || addr >= GADDR_LIMIT || len > GADDR_LIMIT - addr;
}

long sys_msync(struct x86_sys *s)
{
    uint64_t addr = s->a[0], len = s->a[1], flags = s->a[2];
    if (flags & ~(uint64_t)(MS_ASYNC_ | MS_INVALIDATE_ | MS_SYNC_) ||
        (flags & (MS_ASYNC_ | MS_SYNC_)) == (MS_ASYNC_ | MS_SYNC_))
        return -EINVAL;
    len = (len + GPAGE_MASK) & ~(uint64_t)GPAGE_MASK;
    if (bad_range(addr, len))
        return -EINVAL;
    return all_mapped(s->p, addr, len);
}

long sys_mincore(struct x86_sys *s)
{
    uint64_t addr = s->a[0], len = s->a[1], vec = s->a[2];
    len = (len + GPAGE_MASK) & ~(uint64_t)GPAGE_MASK;
    if (bad_range(addr, len))
        return -EINVAL;
    long rc = all_mapped(s->p, addr, len);
    if (rc < 0)
        return rc;
    uint8_t ones[512];
    for (size_t i = 0; i < sizeof ones; i++)
        ones[i] = 1;
    for (uint64_t page = 0, pages = len / GPAGE_SIZE; page < pages; page += sizeof ones) {
        uint64_t n = pages - page < sizeof ones ? pages - page : sizeof ones;
        if (gmem_copy_out(s->p->mem, vec + page, ones, (size_t)n, 0, NULL) < 0)
            return -EFAULT;
    }
    return 0;
}
