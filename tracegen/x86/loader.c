/* ELF loading (libelf) and the initial process stack: argv, envp and the
 * auxiliary vector, as the Linux kernel lays them out. A dynamically linked
 * program gets its interpreter (PT_INTERP: ld-linux or musl's loader, read
 * from the host) mapped beside it, as the kernel does; the interpreter maps
 * the libraries itself through mmap. No vDSO is offered (no
 * AT_SYSINFO_EHDR), so the C library makes real system calls for the
 * time. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracegen/x86/process.h"

#define STACK_TOP   0x7ffffffff000ull
#define STACK_SIZE  (8ull << 20)
#define PIE_BASE    0x555555554000ull
#define MMAP_TOP    0x7ff000000000ull
/* Loadable memory tracegen accepts from one executable (checked before
 * anything is mapped, so a hostile header cannot make loading crawl). */
#define LOAD_LIMIT  (16ull << 30)

enum { AT_NULL_ = 0, AT_PHDR_ = 3, AT_PHENT_ = 4, AT_PHNUM_ = 5, AT_PAGESZ_ = 6,
       AT_BASE_ = 7, AT_FLAGS_ = 8, AT_ENTRY_ = 9, AT_UID_ = 11, AT_EUID_ = 12,
       AT_GID_ = 13, AT_EGID_ = 14, AT_PLATFORM_ = 15, AT_HWCAP_ = 16, AT_CLKTCK_ = 17,
       AT_SECURE_ = 23, AT_RANDOM_ = 25, AT_HWCAP2_ = 26, AT_EXECFN_ = 31 };

static int map_segment(struct x86_process *p, uint64_t start, uint64_t end, int prot)
{
    /* pages shared with an earlier segment keep their contents */
    for (uint64_t a = start; a < end; a += GPAGE_SIZE) {
        int old;
        if (gmem_page(p->mem, a, &old)) {
            gmem_protect(p->mem, a, GPAGE_SIZE, (old & 7) | prot);
            continue;
        }
        uint64_t run = a;
        while (run < end && !gmem_page(p->mem, run, NULL))
            run += GPAGE_SIZE;
        if (gmem_map(p->mem, a, run - a, prot) < 0)
            return -1;
        a = run - GPAGE_SIZE;
    }
    return 0;
}

static int elf_prot(GElf_Word flags)
{
    return ((flags & PF_R) ? GPROT_R : 0) | ((flags & PF_W) ? GPROT_W : 0) |
           ((flags & PF_X) ? GPROT_X : 0);
}

static int push_bytes(struct x86_process *p, uint64_t *sp, const void *data, size_t n)
{
    *sp -= n;
    return gmem_copy_out(p->mem, *sp, data, n, 1, NULL);
}

static int push_u64(struct x86_process *p, uint64_t *sp, uint64_t v)
{
    return push_bytes(p, sp, &v, 8);
}

/* What the auxiliary vector and the first instruction need of the loaded
 * images. */
struct loaded {
    uint64_t entry;              /* the program's entry (AT_ENTRY) */
    uint64_t phdr;               /* the program's headers in memory (AT_PHDR) */
    unsigned phnum;
    uint64_t interp_base;        /* the interpreter's load bias (AT_BASE), 0: none */
    uint64_t start;              /* where the first instruction is */
};

/* The stack as Linux leaves it: the file name execve was given (AT_EXECFN: as
 * given, not resolved, so a recording does not move with the folder the
 * program sits in), the environment and argument strings, AT_RANDOM's bytes,
 * then argc, argv, envp and the auxiliary vector. */
static int build_stack(struct x86_process *p, const char *execfn_name, int argc, char **argv,
                       char **envp, const struct loaded *l, char *err, size_t errlen)
{
    if (gmem_map(p->mem, STACK_TOP - STACK_SIZE, STACK_SIZE, GPROT_R | GPROT_W) < 0) {
        snprintf(err, errlen, "cannot map the guest stack");
        return -1;
    }
    uint64_t sp = STACK_TOP;
    int envc = 0;
    while (envp && envp[envc])
        envc++;
    uint64_t *argv_addr = calloc((size_t)argc + 1, 8), *env_addr = calloc((size_t)envc + 1, 8);
    if (!argv_addr || !env_addr) {
        free(argv_addr);
        free(env_addr);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    rc |= push_bytes(p, &sp, execfn_name, strlen(execfn_name) + 1);
    uint64_t execfn = sp;
    for (int i = envc - 1; i >= 0; i--) {
        rc |= push_bytes(p, &sp, envp[i], strlen(envp[i]) + 1);
        env_addr[i] = sp;
    }
    for (int i = argc - 1; i >= 0; i--) {
        rc |= push_bytes(p, &sp, argv[i], strlen(argv[i]) + 1);
        argv_addr[i] = sp;
    }
    rc |= push_bytes(p, &sp, "x86_64", 7);
    uint64_t platform = sp;
    uint64_t rnd[2] = { x86_random(p), x86_random(p) };
    sp &= ~15ull;
    rc |= push_bytes(p, &sp, rnd, 16);
    uint64_t random_addr = sp;

    uint64_t auxv[][2] = {
        { AT_PHDR_, l->phdr }, { AT_PHENT_, 56 }, { AT_PHNUM_, l->phnum },
        { AT_PAGESZ_, 4096 }, { AT_BASE_, l->interp_base }, { AT_FLAGS_, 0 },
        { AT_ENTRY_, l->entry },
        { AT_UID_, (uint64_t)getuid() }, { AT_EUID_, (uint64_t)geteuid() },
        { AT_GID_, (uint64_t)getgid() }, { AT_EGID_, (uint64_t)getegid() },
        { AT_PLATFORM_, platform }, { AT_HWCAP_, 0x078bfbff }, { AT_CLKTCK_, 100 },
        { AT_SECURE_, 0 }, { AT_RANDOM_, random_addr }, { AT_HWCAP2_, 0 },
        { AT_EXECFN_, execfn }, { AT_NULL_, 0 },
    };
    size_t nauxv = sizeof auxv / sizeof auxv[0];
    /* argc, argv[], NULL, envp[], NULL, auxv pairs: keep sp 16-aligned at argc */
    size_t words = 1 + (size_t)argc + 1 + (size_t)envc + 1 + 2 * nauxv;
    sp &= ~15ull;
    if (words & 1)
        sp -= 8;
    for (size_t i = nauxv; i-- > 0;) {
        rc |= push_u64(p, &sp, auxv[i][1]);
        rc |= push_u64(p, &sp, auxv[i][0]);
    }
    rc |= push_u64(p, &sp, 0);
    for (int i = envc - 1; i >= 0; i--)
        rc |= push_u64(p, &sp, env_addr[i]);
    rc |= push_u64(p, &sp, 0);
    for (int i = argc - 1; i >= 0; i--)
        rc |= push_u64(p, &sp, argv_addr[i]);
    rc |= push_u64(p, &sp, (uint64_t)argc);
    free(argv_addr);
    free(env_addr);
    if (rc) {
        snprintf(err, errlen, "arguments and environment do not fit in the guest stack");
        return -1;
    }
    struct x86_cpu *c = &p->main_thread->cpu;
    c->r[R_RSP] = sp;
    c->rip = l->start;
    return 0;
}

/* One ELF file being loaded. */
struct image {
    const char *path;
    int fd;
    Elf *e;
    GElf_Ehdr eh;
    size_t phnum;
    uint64_t lo, hi;             /* the loadable segments' span, unbiased */
};

static void image_close(struct image *im)
{
    if (im->e)
        elf_end(im->e);
    if (im->fd >= 0)
        close(im->fd);
}

/* Opens PATH and checks it is an x86-64 executable or shared object whose
 * loadable segments lie in the file and fit LOAD_LIMIT. */
static int image_open(struct image *im, const char *path, char *err, size_t errlen)
{
    *im = (struct image){ .path = path, .fd = -1 };
    im->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (im->fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    im->e = elf_begin(im->fd, ELF_C_READ, NULL);
    if (!im->e || elf_kind(im->e) != ELF_K_ELF || !gelf_getehdr(im->e, &im->eh)) {
        snprintf(err, errlen, "%s: not an ELF file", path);
        return -1;
    }
    if (im->eh.e_ident[EI_CLASS] != ELFCLASS64 || im->eh.e_machine != EM_X86_64) {
        snprintf(err, errlen, "%s: not an x86-64 ELF64 executable (class %d, machine %d)",
                 path, im->eh.e_ident[EI_CLASS], im->eh.e_machine);
        return -1;
    }
    if (im->eh.e_type != ET_EXEC && im->eh.e_type != ET_DYN) {
        snprintf(err, errlen, "%s: ELF type %d is not an executable", path, im->eh.e_type);
        return -1;
    }
    if (elf_getphdrnum(im->e, &im->phnum) != 0 || im->phnum == 0) {
        snprintf(err, errlen, "%s: no program headers", path);
        return -1;
    }
    off_t fsize = lseek(im->fd, 0, SEEK_END);
    uint64_t total = 0;
    im->lo = UINT64_MAX;
    for (size_t i = 0; i < im->phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(im->e, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_memsz == 0)
            continue;
        if (ph.p_memsz > LOAD_LIMIT || (total += ph.p_memsz) > LOAD_LIMIT) {
            snprintf(err, errlen, "%s: program header %zu: loadable segments of more than %llu "
                     "GiB (memory size 0x%llx)", path, i, LOAD_LIMIT >> 30,
                     (unsigned long long)ph.p_memsz);
            return -1;
        }
        if (ph.p_vaddr >= GADDR_LIMIT) {
            snprintf(err, errlen, "%s: program header %zu: address 0x%llx is beyond the user "
                     "address space", path, i, (unsigned long long)ph.p_vaddr);
            return -1;
        }
        if (ph.p_filesz > ph.p_memsz || ph.p_offset > (uint64_t)fsize ||
            ph.p_filesz > (uint64_t)fsize - ph.p_offset) {
            snprintf(err, errlen, "%s: program header %zu: segment outside the file "
                     "(offset 0x%llx, size 0x%llx)", path, i,
                     (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz);
            return -1;
        }
        if ((ph.p_vaddr & ~GPAGE_MASK) < im->lo)
            im->lo = ph.p_vaddr & ~GPAGE_MASK;
        if (ph.p_vaddr + ph.p_memsz > im->hi)
            im->hi = ph.p_vaddr + ph.p_memsz;
    }
    if (!im->hi) {
        snprintf(err, errlen, "%s: no loadable segment", path);
        return -1;
    }
    im->hi = (im->hi + GPAGE_MASK) & ~GPAGE_MASK;
    return 0;
}

/* The interpreter PT_INTERP names into OUT; 0 when there is none. */
static int image_interp(const struct image *im, char *out, size_t outlen, char *err,
                        size_t errlen)
{
    out[0] = 0;
    for (size_t i = 0; i < im->phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(im->e, (int)i, &ph) || ph.p_type != PT_INTERP)
            continue;
        /* as the kernel reads it: NUL-terminated, the name up to the first NUL */
        if (ph.p_filesz < 2 || ph.p_filesz > outlen ||
            pread(im->fd, out, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz ||
            out[ph.p_filesz - 1] != 0 || !out[0]) {
            snprintf(err, errlen, "%s: program header %zu: the interpreter's name (offset 0x%llx,"
                     " size 0x%llx) is not a path", im->path, i,
                     (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz);
            out[0] = 0;
            return -1;
        }
        return 1;
    }
    return 0;
}

/* Maps the loadable segments of IM at BIAS and copies their file bytes.
 * *PHDR: where the program headers lie in memory (0 if not loaded). */
static int image_map(struct x86_process *p, const struct image *im, uint64_t bias,
                     uint64_t *phdr, char *err, size_t errlen)
{
    *phdr = 0;
    for (size_t i = 0; i < im->phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(im->e, (int)i, &ph))
            continue;
        if (ph.p_type == PT_PHDR)
            *phdr = ph.p_vaddr + bias;
        if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
            continue;
        uint64_t va = ph.p_vaddr + bias;
        uint64_t start = va & ~GPAGE_MASK;
        uint64_t stop = (va + ph.p_memsz + GPAGE_MASK) & ~GPAGE_MASK;
        if (va + ph.p_memsz < va || stop > STACK_TOP - STACK_SIZE ||
            map_segment(p, start, stop, elf_prot(ph.p_flags)) < 0) {
            snprintf(err, errlen, "%s: program header %zu: cannot map 0x%llx..0x%llx", im->path,
                     i, (unsigned long long)start, (unsigned long long)stop);
            return -1;
        }
        if (ph.p_filesz) {
            uint8_t *buf = malloc(ph.p_filesz);
            if (!buf || pread(im->fd, buf, ph.p_filesz, (off_t)ph.p_offset) !=
                            (ssize_t)ph.p_filesz) {
                free(buf);
                snprintf(err, errlen, "%s: cannot read segment %zu", im->path, i);
                return -1;
            }
            gmem_copy_out(p->mem, va, buf, ph.p_filesz, 1, NULL);
            free(buf);
        }
        if (!*phdr && im->eh.e_phoff >= ph.p_offset &&
            im->eh.e_phoff < ph.p_offset + ph.p_filesz)
            *phdr = va + (im->eh.e_phoff - ph.p_offset);
    }
    return 0;
}

/* Loads the interpreter INTERP of a dynamically linked program at the top of
 * the mmap area (where the kernel puts it when address randomisation is
 * off); the area then continues below it. */
static int load_interp(struct x86_process *p, const char *exe, const char *interp,
                       struct loaded *l, char *err, size_t errlen)
{
    struct image im;
    char why[PATH_MAX + 256];
    int rc = -1;
    if (image_open(&im, interp, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s: its interpreter %s", exe, why);
        goto out;
    }
    char nested[8];
    if (im.eh.e_type != ET_DYN || image_interp(&im, nested, sizeof nested, why, sizeof why)) {
        snprintf(err, errlen, "%s: its interpreter %s is not a self-relocating shared object",
                 exe, interp);
        goto out;
    }
    uint64_t span = im.hi - im.lo;
    if (span > p->mmap_top / 2) {
        snprintf(err, errlen, "%s: its interpreter %s spans 0x%llx bytes", exe, interp,
                 (unsigned long long)span);
        goto out;
    }
    uint64_t base = p->mmap_top - span;
    uint64_t phdr;
    if (image_map(p, &im, base - im.lo, &phdr, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s: its interpreter %s", exe, why);
        goto out;
    }
    p->mmap_top = base;
    l->interp_base = base - im.lo;
    l->start = im.eh.e_entry + l->interp_base;
    rc = 0;
out:
    image_close(&im);
    return rc;
}

int x86_load_program(struct x86_process *p, const char *path, int argc, char **argv,
                     char **envp, char *err, size_t errlen)
{
    if (elf_version(EV_CURRENT) == EV_NONE) {
        snprintf(err, errlen, "libelf is unusable: %s", elf_errmsg(-1));
        return -1;
    }
    struct image im;
    struct loaded l = { 0 };
    char interp[PATH_MAX];
    int rc = -1;
    if (image_open(&im, path, err, errlen) < 0 ||
        image_interp(&im, interp, sizeof interp, err, errlen) < 0)
        goto out;
    if (!realpath(path, p->exe_path))
        snprintf(p->exe_path, sizeof p->exe_path, "%s", path);
    uint64_t bias = im.eh.e_type == ET_DYN ? PIE_BASE : 0;
    if (image_map(p, &im, bias, &l.phdr, err, errlen) < 0)
        goto out;
    l.entry = l.start = im.eh.e_entry + bias;
    l.phnum = (unsigned)im.phnum;
    p->brk_start = p->brk_cur = im.hi + bias;
    p->mmap_top = MMAP_TOP;
    if (interp[0] && load_interp(p, path, interp, &l, err, errlen) < 0)
        goto out;
    rc = build_stack(p, path, argc, argv, envp, &l, err, errlen);
out:
    image_close(&im);
    return rc;
}
