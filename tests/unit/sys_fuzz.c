/* The system-call fuzz driver: see sys_fuzz.h. */
#include "tests/unit/sys_fuzz.h"

#include <elf.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgm/guest.h"
#include "tracegen/x86/process.h"

#define SCRATCH      0x10000000ull  /* guest memory the arguments point into */
#define SCRATCH_SIZE (64u << 10)
#define MAX_CALLS    64
#define TEXT_ADDR    0x401000u

struct sys_fuzz {
    char root[64];          /* holds the image, the canary and the allowed directory */
    char image[96], canary[96], allowed[96];
    char scratch_paths[16][112];
    uint64_t calls;
};

static const char CANARY_TEXT[] = "outside the allowed directory\n";

static int write_file(const char *path, const void *data, size_t n, int mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    int ok = write(fd, data, n) == (ssize_t)n;
    return close(fd) == 0 && ok ? 0 : -1;
}

/* A static ELF whose one segment is an endless loop: the calls are made
 * by the driver, not by guest code. */
static int write_image(const char *path)
{
    static uint8_t image[0x1000 + 16];
    Elf64_Ehdr eh = { .e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                      .e_entry = TEXT_ADDR, .e_phoff = sizeof eh, .e_ehsize = sizeof eh,
                      .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0x1000,
                      .p_vaddr = TEXT_ADDR, .p_paddr = TEXT_ADDR, .p_filesz = 16,
                      .p_memsz = 16, .p_align = 0x1000 };
    memcpy(image, &eh, sizeof eh);
    memcpy(image + sizeof eh, &ph, sizeof ph);
    image[0x1000] = 0xeb; /* jmp . */
    image[0x1001] = 0xfe;
    return write_file(path, image, sizeof image, 0755);
}

struct sys_fuzz *sys_fuzz_open(void)
{
    struct sys_fuzz *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    snprintf(f->root, sizeof f->root, "/tmp/cgm_sysfuzz_XXXXXX");
    if (!mkdtemp(f->root)) {
        free(f);
        return NULL;
    }
    snprintf(f->image, sizeof f->image, "%s/guest", f->root);
    snprintf(f->canary, sizeof f->canary, "%s/canary", f->root);
    snprintf(f->allowed, sizeof f->allowed, "%s/allowed", f->root);
    const char *names[16] = { "", ".", "..", "f", "d/", "../canary", "/dev/null", "/proc/self/mem",
                              "/proc/self/fd/0", "/tmp", "link", "d/../../canary",
                              "/proc/self/root", "/nonexistent", "/etc/hostname", "f2" };
    for (int i = 0; i < 16; i++) {
        int rel = names[i][0] && names[i][0] != '/';
        snprintf(f->scratch_paths[i], sizeof f->scratch_paths[i], "%s%s%s",
                 rel ? f->allowed : "", rel ? "/" : "", names[i]);
    }
    if (write_image(f->image) || write_file(f->canary, CANARY_TEXT, sizeof CANARY_TEXT - 1, 0644) ||
        mkdir(f->allowed, 0755)) {
        sys_fuzz_close(f);
        return NULL;
    }
    return f;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    if (ftw->level > 0)
        remove(path);
    return 0;
}

/* Empties the allowed directory without following links out of it. */
static void clean_allowed(const struct sys_fuzz *f)
{
    chmod(f->allowed, 0755);
    nftw(f->allowed, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void sys_fuzz_close(struct sys_fuzz *f)
{
    if (!f)
        return;
    clean_allowed(f);
    rmdir(f->allowed);
    unlink(f->canary);
    unlink(f->image);
    rmdir(f->root);
    free(f);
}

uint64_t sys_fuzz_calls(const struct sys_fuzz *f)
{
    return f->calls;
}

/* ---- reading the input ---------------------------------------------------- */

struct input {
    const uint8_t *p, *end;
};

static uint8_t byte(struct input *in)
{
    return in->p < in->end ? *in->p++ : 0;
}

static uint64_t raw64(struct input *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)byte(in) << (8 * i);
    return v;
}

/* The calls worth trying most: those tracegen serves, the refused ones, a
 * few it does not serve, and the project's own. */
static const uint64_t CALLS[] = {
    0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 20, 21, 24, 25, 28, 32, 33,
    35, 39, 41, 56, 57, 59, 60, 62, 63, 72, 79, 82, 83, 84, 86, 87, 88, 89, 90, 96, 97, 99,
    101, 102, 131, 158, 186, 200, 201, 202, 204, 217, 218, 228, 229, 230, 231, 234, 257,
    258, 262, 263, 264, 265, 266, 267, 268, 269, 273, 292, 302, 316, 318, 322, 332, 334, 435,
    CGM_SYSCALL_ROI_BEGIN, CGM_SYSCALL_ROI_END, CGM_SYSCALL_GPU_AVAILABLE, CGM_SYSCALL_GPU_LOAD,
    CGM_SYSCALL_GPU_KERNEL, CGM_SYSCALL_GPU_ALLOC, CGM_SYSCALL_GPU_FREE, CGM_SYSCALL_GPU_COPY,
    CGM_SYSCALL_GPU_LAUNCH, CGM_SYSCALL_GPU_WAIT,
};
#define NCALLS (sizeof CALLS / sizeof CALLS[0])

static const uint64_t WIDE[16] = {
    1ull << 63, ~0ull, 1ull << 47, 1ull << 40, 0x7fffffff, 0x80000000, 1ull << 32, 4096,
    1ull << 30, (uint64_t)-4096, 0x7ff000000000ull, 0x401000, 0xffffffff, 1ull << 20,
    (uint64_t)-100 /* AT_FDCWD */, 0x7fffffffffffull,
};

static const uint64_t FLAGS[16] = {
    O_RDONLY, O_WRONLY | O_CREAT, O_RDWR | O_TRUNC, O_WRONLY | O_APPEND, O_DIRECTORY,
    O_PATH, O_WRONLY | O_CREAT | O_EXCL, O_RDWR | O_CREAT | O_NOFOLLOW, O_WRONLY | O_TMPFILE,
    0x22 /* MAP_PRIVATE|MAP_ANONYMOUS */, 0x32 /* ...|MAP_FIXED */, 3 /* PROT_READ|WRITE */,
    7, 0x100 /* AT_SYMLINK_NOFOLLOW */, 0x1000 /* AT_EMPTY_PATH */, 0x200 /* AT_REMOVEDIR */,
};

static uint64_t argument(struct input *in)
{
    uint8_t b = byte(in);
    unsigned k = b >> 4;
    switch (b & 7) {
    case 0: return k;
    case 1: return (uint64_t)-(int64_t)(k + 1);
    case 2: return SCRATCH + 256ull * k;                  /* one of the paths */
    case 3: return SCRATCH + (((uint64_t)byte(in) << 8 | byte(in)) % SCRATCH_SIZE);
    case 4: return WIDE[k];
    case 5: return FLAGS[k];
    case 6: return byte(in);                              /* descriptor-like */
    default: return raw64(in);
    }
}

/* ---- the checks ------------------------------------------------------------ */

static const char *check(const struct sys_fuzz *f, const struct x86_process *p, uint64_t top)
{
    for (int i = 0; i < X86_MAX_FDS; i++)
        if (p->fds[i] < -1 || (p->fds[i] >= 0 && fcntl(p->fds[i], F_GETFD) < 0))
            return "a guest descriptor names no open host descriptor";
    if (p->mmap_top > top || p->mmap_top <= p->brk_cur)
        return "the mmap area's top moved up or below the heap";
    if (gmem_host_bytes(p->mem) > gmem_limit(p->mem))
        return "guest memory passed its limit";
    char text[sizeof CANARY_TEXT + 8];
    int fd = open(f->canary, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text) : -1;
    struct stat st;
    int mode_ok = fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0644 && st.st_nlink == 1;
    if (fd >= 0)
        close(fd);
    if (n != (ssize_t)sizeof CANARY_TEXT - 1 || memcmp(text, CANARY_TEXT, (size_t)n) || !mode_ok)
        return "the canary outside the allowed directory changed";
    return NULL;
}

const char *sys_fuzz_run(struct sys_fuzz *f, const uint8_t *data, size_t size)
{
    struct x86_options opt = { .quantum = 1000, .quiet = 1, .seed = 1, .stdin_path = "/dev/null",
                               .max_memory = 64u << 20 };
    opt.allow_write[opt.nallow_write++] = f->allowed;
    char perr[256];
    struct x86_process *p = x86_process_create(&opt, perr, sizeof perr);
    if (!p)
        return NULL;
    char err[512];
    char *argv[] = { f->image, NULL }, *envp[] = { NULL };
    const char *why = NULL;
    if (x86_load_program(p, f->image, 1, argv, envp, err, sizeof err) < 0 ||
        gmem_map(p->mem, SCRATCH, SCRATCH_SIZE, GPROT_R | GPROT_W) < 0) {
        why = "the guest cannot be set up";
        goto out;
    }
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    p->fds[1] = null;
    p->fds[2] = null >= 0 ? dup(null) : -1;
    for (int i = 0; i < 16; i++)
        gmem_copy_out(p->mem, SCRATCH + 256ull * i, f->scratch_paths[i],
                      strlen(f->scratch_paths[i]) + 1, 1, NULL);
    /* the rest of the scratch memory is the input itself */
    size_t n = size < SCRATCH_SIZE - 4096 ? size : SCRATCH_SIZE - 4096;
    gmem_copy_out(p->mem, SCRATCH + 4096, data, n, 1, NULL);
    uint64_t top = p->mmap_top;
    struct input in = { data, data + size };
    struct x86_thread *t = p->main_thread;
    for (int k = 0; k < MAX_CALLS && in.p < in.end && !why; k++) {
        uint8_t sel = byte(&in);
        uint64_t nr = sel < 2 * NCALLS ? CALLS[sel % NCALLS] : byte(&in) | (uint64_t)byte(&in) << 8;
        struct x86_cpu *c = &t->cpu;
        c->r[R_RAX] = nr;
        const int regs[6] = { R_RDI, R_RSI, R_RDX, R_R10, R_R8, R_R9 };
        for (int i = 0; i < 6; i++)
            c->r[regs[i]] = argument(&in);
        int out = x86_syscall(p, t);
        f->calls++;
        why = check(f, p, top);
        if (out != SC_CONTINUE || t->state != THREAD_RUNNABLE)
            break;
    }
out:
    x86_process_destroy(p);
    clean_allowed(f);
    return why;
}
