/* Memory system calls: mmap, munmap, mprotect, brk, mremap, madvise over
 * the guest's page-granular address space (mem.h). Anonymous mappings are
 * placed downwards from the top of the mmap area; file mappings are
 * private copies read through the host, but for shared writable ones,
 * which are the file's own pages. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracegen/x86/sys.h"

static uint64_t page_up(uint64_t v)
{
    return (v + GPAGE_MASK) & ~GPAGE_MASK;
}

static int prot_from_linux(uint64_t prot)
{
    return ((prot & 1) ? GPROT_R : 0) | ((prot & 2) ? GPROT_W | GPROT_R : 0) |
           ((prot & 4) ? GPROT_X | GPROT_R : 0);
}

/* Decoded code of a range that is unmapped, reprotected or replaced is
 * stale: drop it. */
static void forget_code(struct x86_process *p, uint64_t addr, uint64_t len)
{
    x86_code_cache_forget(p->code, addr, len);
}

/* A shared writable mapping of a file is the file's own pages (the host
 * maps them shared), which the guest may have only of a file it opened
 * for reading and writing inside the directories --allow-write names, and
 * only where the file has bytes: past its end a page would raise SIGBUS in
 * tracegen itself. Executable ones are not emulated (the file's changes
 * would not reach decoded code). Returns 0, or -errno with the refusal
 * explained on stderr. */
static long shared_writable_ok(struct x86_process *p, uint32_t g, int h, uint64_t len,
                               uint64_t off, uint64_t prot)
{
    int fl = fcntl(h, F_GETFL);
    struct stat st;
    if (fl < 0 || fstat(h, &st) < 0)
        return -EBADF;
    if (!S_ISREG(st.st_mode))
        return -ENODEV;
    if ((fl & O_ACCMODE) != O_RDWR)
        return -EACCES; /* as natively */
    if (!p->fd_confined[g])
        return x86_refuse_write(p, "a shared writable mapping (mmap MAP_SHARED, PROT_WRITE) of "
                                "a file not opened inside an allowed directory");
    const char *why = NULL;
    if (prot & 4)
        why = "is also executable";
    else if (off > (uint64_t)st.st_size || len > (uint64_t)st.st_size - off + GPAGE_MASK)
        why = "reaches past the end of the file (its pages there would raise SIGBUS)";
    if (why) {
        if (!p->opt.quiet)
            fprintf(stderr, "tracegen: refused a shared writable file mapping (mmap MAP_SHARED, "
                    "PROT_WRITE) of %llu bytes at offset %llu of a %llu-byte file: it %s, which "
                    "tracegen does not emulate\n", (unsigned long long)len,
                    (unsigned long long)off, (unsigned long long)st.st_size, why);
        return -EACCES;
    }
    return 0;
}

/* The lowest address a fixed mapping may take (Linux's default
 * vm.mmap_min_addr): page 0 stays unmapped, so null pointers fault. */
#define MMAP_MIN_ADDR 0x10000ull

static long do_mmap(struct x86_process *p, uint64_t addr, uint64_t len, uint64_t prot,
                    uint64_t flags, int64_t fd, uint64_t off)
{
    const uint64_t MAP_FIXED_ = 0x10, MAP_ANON_ = 0x20, MAP_SHARED_ = 0x01,
                   MAP_FIXED_NOREPLACE_ = 0x100000;
    if (!len || (off & GPAGE_MASK))
        return -EINVAL;
    len = page_up(len);
    if (len > (1ull << 40))
        return -ENOMEM;
    int h = -1, shared = 0;
    if (!(flags & MAP_ANON_)) {
        h = x86_host_fd(p, (uint64_t)fd);
        if (h < 0)
            return -EBADF;
        if ((flags & MAP_SHARED_) && (prot & 2)) {
            long ok = shared_writable_ok(p, (uint32_t)fd, h, len, off, prot);
            if (ok < 0)
                return ok;
            shared = 1;
        }
    }
    uint64_t at;
    int fixed = (flags & (MAP_FIXED_ | MAP_FIXED_NOREPLACE_)) != 0;
    if (fixed) {
        if (addr & GPAGE_MASK)
            return -EINVAL;
        if (addr < MMAP_MIN_ADDR)
            return -EPERM;
        if (addr >= GADDR_LIMIT || len > GADDR_LIMIT - addr)
            return -ENOMEM;
        if ((flags & MAP_FIXED_NOREPLACE_) && gmem_page(p->mem, addr, NULL))
            return -EEXIST;
        at = addr;
    } else {
        if (len > p->mmap_top || p->mmap_top - len < p->brk_cur + (1ull << 30))
            return -ENOMEM;
        at = p->mmap_top - len;
    }
    if (shared ? gmem_map_shared_file(p->mem, at, len, prot_from_linux(prot), h, off) < 0
               : gmem_map(p->mem, at, len, prot_from_linux(prot)) < 0)
        return -ENOMEM;
    if (fixed)
        forget_code(p, at, len);
    else
        p->mmap_top = at;
    if (h >= 0 && !shared) {
        char *tmp = malloc(X86_IO_CHUNK);
        if (!tmp)
            return -ENOMEM;
        for (uint64_t done = 0; done < len;) {
            uint64_t n = len - done < X86_IO_CHUNK ? len - done : X86_IO_CHUNK;
            ssize_t k = pread(h, tmp, n, (off_t)(off + done));
            if (k <= 0)
                break;
            gmem_copy_out(p->mem, at + done, tmp, (size_t)k, 1, NULL);
            done += (uint64_t)k;
        }
        free(tmp);
    }
    return (long)at;
}

long sys_mmap(struct x86_sys *s)
{
    return do_mmap(s->p, s->a[0], s->a[1], s->a[2], s->a[3], (int64_t)s->a[4], s->a[5]);
}

long sys_mprotect(struct x86_sys *s)
{
    uint64_t addr = s->a[0], len = s->a[1];
    if (addr & GPAGE_MASK)
        return -EINVAL;
    if (gmem_protect(s->p->mem, addr, len, prot_from_linux(s->a[2])) < 0)
        return -ENOMEM;
    forget_code(s->p, addr, len);
    return 0;
}

long sys_munmap(struct x86_sys *s)
{
    uint64_t addr = s->a[0], len = s->a[1];
    if ((addr & GPAGE_MASK) || !len || addr >= GADDR_LIMIT || len > GADDR_LIMIT - addr)
        return -EINVAL;
    forget_code(s->p, addr, len);
    gmem_unmap(s->p->mem, addr, len);
    return 0;
}

long sys_brk(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    uint64_t want = s->a[0];
    if (want < p->brk_start || want > p->brk_start + (1ull << 36))
        return (long)p->brk_cur;
    uint64_t old_end = page_up(p->brk_cur), new_end = page_up(want);
    if (new_end > old_end) {
        for (uint64_t a = old_end; a < new_end; a += GPAGE_SIZE)
            if (gmem_page(p->mem, a, NULL))
                return (long)p->brk_cur; /* would overlap a mapping */
        if (gmem_map(p->mem, old_end, new_end - old_end, GPROT_R | GPROT_W) < 0)
            return (long)p->brk_cur;
    } else if (new_end < old_end) {
        gmem_unmap(p->mem, new_end, old_end - new_end);
    }
    p->brk_cur = want;
    return (long)want;
}

long sys_mremap(struct x86_sys *s)
{
    struct x86_process *p = s->p;
    uint64_t old = s->a[0], old_len = s->a[1], new_len = s->a[2], flags = s->a[3];
    const uint64_t MREMAP_MAYMOVE_ = 1;
    if (old & GPAGE_MASK)
        return -EINVAL;
    old_len = page_up(old_len);
    new_len = page_up(new_len);
    if (!new_len || !gmem_is_mapped(p->mem, old, old_len ? old_len : GPAGE_SIZE))
        return -EFAULT;
    int prot;
    gmem_page(p->mem, old, &prot);
    if (new_len <= old_len) {
        gmem_unmap(p->mem, old + new_len, old_len - new_len);
        return (long)old;
    }
    if (!(flags & MREMAP_MAYMOVE_))
        return -ENOMEM;
    if (prot & GPROT_SHARED) { /* moving would have to map the file again */
        if (!s->p->opt.quiet)
            fprintf(stderr, "tracegen: refused to grow a shared writable file mapping with "
                    "mremap (not emulated)\n");
        return -ENOMEM;
    }
    long at = do_mmap(p, 0, new_len, 3, 0x22, -1, 0);
    if (at < 0)
        return at;
    char *tmp = malloc(X86_IO_CHUNK);
    if (!tmp)
        return -ENOMEM;
    for (uint64_t done = 0; done < old_len; done += X86_IO_CHUNK) {
        uint64_t n = old_len - done < X86_IO_CHUNK ? old_len - done : X86_IO_CHUNK;
        gmem_copy_in(p->mem, tmp, old + done, n, NULL);
        gmem_copy_out(p->mem, (uint64_t)at + done, tmp, n, 1, NULL);
    }
    free(tmp);
    gmem_protect(p->mem, (uint64_t)at, new_len, prot & 7);
    forget_code(p, old, old_len);
    gmem_unmap(p->mem, old, old_len);
    return at;
}

long sys_madvise(struct x86_sys *s)
{
    uint64_t addr = s->a[0], len = s->a[1];
    const uint64_t MADV_DONTNEED_ = 4;
    if (addr & GPAGE_MASK)
        return -EINVAL;
    if (s->a[2] != MADV_DONTNEED_ || !len)
        return 0;
    if (len > GADDR_LIMIT || addr >= GADDR_LIMIT || page_up(len) > GADDR_LIMIT - addr)
        return -EINVAL;
    /* private anonymous memory reads back as zeros after DONTNEED */
    forget_code(s->p, addr, len);
    return gmem_discard(s->p->mem, addr, len) < 0 ? -ENOMEM : 0;
}
