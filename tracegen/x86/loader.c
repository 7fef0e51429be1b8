/* ELF loading (libelf) and the initial process stack: argv, envp and the
 * auxiliary vector, as the Linux kernel lays them out. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
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

static int build_stack(struct x86_process *p, int argc, char **argv, char **envp,
                       uint64_t entry, uint64_t phdr, unsigned phnum, char *err, size_t errlen)
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
    rc |= push_bytes(p, &sp, p->exe_path, strlen(p->exe_path) + 1);
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
        { AT_PHDR_, phdr }, { AT_PHENT_, 56 }, { AT_PHNUM_, phnum }, { AT_PAGESZ_, 4096 },
        { AT_BASE_, 0 }, { AT_FLAGS_, 0 }, { AT_ENTRY_, entry },
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
    c->rip = entry;
    return 0;
}

int x86_load_program(struct x86_process *p, const char *path, int argc, char **argv,
                     char **envp, char *err, size_t errlen)
{
    if (elf_version(EV_CURRENT) == EV_NONE) {
        snprintf(err, errlen, "libelf is unusable: %s", elf_errmsg(-1));
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (!realpath(path, p->exe_path))
        snprintf(p->exe_path, sizeof p->exe_path, "%s", path);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    int rc = -1;
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
        snprintf(err, errlen, "%s: not an ELF file", path);
        goto out;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
        snprintf(err, errlen, "%s: not an x86-64 ELF64 executable (class %d, machine %d)",
                 path, eh.e_ident[EI_CLASS], eh.e_machine);
        goto out;
    }
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
        snprintf(err, errlen, "%s: ELF type %d is not an executable", path, eh.e_type);
        goto out;
    }
    size_t phnum;
    if (elf_getphdrnum(e, &phnum) != 0 || phnum == 0) {
        snprintf(err, errlen, "%s: no program headers", path);
        goto out;
    }
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP) {
            snprintf(err, errlen, "%s: dynamically linked (has an interpreter); tracegen runs "
                     "only static executables for now (link with -static)", path);
            goto out;
        }
    }
    uint64_t total = 0;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (ph.p_memsz > LOAD_LIMIT || (total += ph.p_memsz) > LOAD_LIMIT) {
            snprintf(err, errlen, "%s: program header %zu: loadable segments of more than %llu "
                     "GiB (memory size 0x%llx)", path, i, LOAD_LIMIT >> 30,
                     (unsigned long long)ph.p_memsz);
            goto out;
        }
    }
    uint64_t bias = eh.e_type == ET_DYN ? PIE_BASE : 0;
    uint64_t end = 0, phdr_addr = 0;
    off_t fsize = lseek(fd, 0, SEEK_END);
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph))
            continue;
        if (ph.p_type == PT_PHDR)
            phdr_addr = ph.p_vaddr + bias;
        if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
            continue;
        if (ph.p_filesz > ph.p_memsz || ph.p_offset > (uint64_t)fsize ||
            ph.p_filesz > (uint64_t)fsize - ph.p_offset) {
            snprintf(err, errlen, "%s: program header %zu: segment outside the file "
                     "(offset 0x%llx, size 0x%llx)", path, i,
                     (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz);
            goto out;
        }
        uint64_t va = ph.p_vaddr + bias;
        uint64_t start = va & ~GPAGE_MASK;
        uint64_t stop = (va + ph.p_memsz + GPAGE_MASK) & ~GPAGE_MASK;
        if (va + ph.p_memsz < va || stop > STACK_TOP - STACK_SIZE ||
            map_segment(p, start, stop, elf_prot(ph.p_flags)) < 0) {
            snprintf(err, errlen, "%s: program header %zu: cannot map 0x%llx..0x%llx", path,
                     i, (unsigned long long)start, (unsigned long long)stop);
            goto out;
        }
        if (ph.p_filesz) {
            uint8_t *buf = malloc(ph.p_filesz);
            if (!buf || pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz) {
                free(buf);
                snprintf(err, errlen, "%s: cannot read segment %zu", path, i);
                goto out;
            }
            gmem_copy_out(p->mem, va, buf, ph.p_filesz, 1, NULL);
            free(buf);
        }
        if (!phdr_addr && eh.e_phoff >= ph.p_offset && eh.e_phoff < ph.p_offset + ph.p_filesz)
            phdr_addr = va + (eh.e_phoff - ph.p_offset);
        if (stop > end)
            end = stop;
    }
    if (!end) {
        snprintf(err, errlen, "%s: no loadable segment", path);
        goto out;
    }
    p->brk_start = p->brk_cur = end;
    p->mmap_top = MMAP_TOP;
    rc = build_stack(p, argc, argv, envp, eh.e_entry + bias, phdr_addr, (unsigned)phnum,
                     err, errlen);
out:
    if (e)
        elf_end(e);
    close(fd);
    return rc;
}
