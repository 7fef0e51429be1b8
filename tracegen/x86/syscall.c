/* The Linux system call layer: the subset static musl and glibc programs
 * use. Files are read through the host; writes go only to stdout, stderr
 * and files under --allow-write directories. Time is virtual (derived from
 * the instruction count) and randomness is seeded, so runs repeat. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cgm/guest.h"
#include "tracegen/gpu/gpu_driver.h"
#include "tracegen/x86/fault.h"
#include "tracegen/x86/flags.h"
#include "tracegen/x86/process.h"
#include "tracegen/x86/sys_thread.h"

#define IO_CHUNK (1u << 20)
/* Virtual time: 1 ns per instruction from 2026-01-01T00:00:00Z. */
#define EPOCH_NS 1767225600000000000ull
#define GUEST_PID 1000

static uint64_t now_ns(const struct x86_process *p)
{
    return EPOCH_NS + p->icount;
}

static int host_fd(const struct x86_process *p, uint64_t gfd)
{
    return gfd < X86_MAX_FDS ? p->fds[gfd] : -1;
}

static long new_guest_fd(struct x86_process *p, int hfd, long lowest)
{
    for (long i = lowest; i < X86_MAX_FDS; i++)
        if (p->fds[i] < 0) {
            p->fds[i] = hfd;
            return i;
        }
    close(hfd);
    return -EMFILE;
}

static long sys_read(struct x86_process *p, uint64_t fd, uint64_t buf, uint64_t n, int pread_,
                     uint64_t off)
{
    int h = host_fd(p, fd);
    if (h < 0)
        return -EBADF;
    if (n > IO_CHUNK)
        n = IO_CHUNK;
    char *tmp = malloc(n ? n : 1);
    if (!tmp)
        return -ENOMEM;
    ssize_t k = pread_ ? pread(h, tmp, n, (off_t)off) : read(h, tmp, n);
    long rc = k < 0 ? -errno : (long)k;
    if (k > 0 && gmem_copy_out(p->mem, buf, tmp, (size_t)k, 0, NULL) < 0)
        rc = -EFAULT;
    free(tmp);
    return rc;
}

static long sys_write(struct x86_process *p, uint64_t fd, uint64_t buf, uint64_t n)
{
    int h = host_fd(p, fd);
    if (h < 0)
        return -EBADF;
    if (n > IO_CHUNK)
        n = IO_CHUNK;
    char *tmp = malloc(n ? n : 1);
    if (!tmp)
        return -ENOMEM;
    long rc;
    if (gmem_copy_in(p->mem, tmp, buf, n, NULL) < 0) {
        rc = -EFAULT;
    } else {
        ssize_t k = write(h, tmp, n);
        rc = k < 0 ? -errno : (long)k;
    }
    free(tmp);
    return rc;
}

static long sys_iov(struct x86_process *p, uint64_t fd, uint64_t iov, uint64_t cnt, int writing)
{
    long total = 0;
    if (cnt > 1024)
        return -EINVAL;
    for (uint64_t i = 0; i < cnt; i++) {
        uint64_t v[2];
        if (gmem_copy_in(p->mem, v, iov + 16 * i, 16, NULL) < 0)
            return total ? total : -EFAULT;
        if (!v[1])
            continue;
        long k = writing ? sys_write(p, fd, v[0], v[1]) : sys_read(p, fd, v[0], v[1], 0, 0);
        if (k < 0)
            return total ? total : k;
        total += k;
        if ((uint64_t)k < v[1])
            break;
    }
    return total;
}

/* 1 when PATH (resolved) lies under an --allow-write directory. */
static int write_allowed(const struct x86_process *p, int dirfd, const char *path)
{
    char full[2 * PATH_MAX + 2], dir[2 * PATH_MAX + 2], real[PATH_MAX];
    if (path[0] == '/') {
        snprintf(full, sizeof full, "%s", path);
    } else {
        char base[PATH_MAX];
        if (dirfd == AT_FDCWD) {
            if (!getcwd(base, sizeof base))
                return 0;
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
            ssize_t k = readlink(link, base, sizeof base - 1);
            if (k < 0)
                return 0;
            base[k] = 0;
        }
        snprintf(full, sizeof full, "%s/%s", base, path);
    }
    /* resolve the directory part; the file itself may not exist yet */
    snprintf(dir, sizeof dir, "%s", full);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = 0;
    else if (slash)
        *slash = 0;
    if (!realpath(dir, real))
        return 0;
    for (int i = 0; i < p->opt.nallow_write; i++) {
        char allowed[PATH_MAX];
        if (!realpath(p->opt.allow_write[i], allowed))
            continue;
        size_t n = strlen(allowed);
        if (!strncmp(real, allowed, n) && (real[n] == 0 || real[n] == '/'))
            return 1;
    }
    return 0;
}

static long sys_openat(struct x86_process *p, int64_t gdirfd, uint64_t gpath, int flags, int mode)
{
    char path[PATH_MAX];
    if (gmem_read_str(p->mem, path, gpath, sizeof path) < 0)
        return -EFAULT;
    int dirfd = AT_FDCWD;
    if ((int)gdirfd != AT_FDCWD && path[0] != '/') {
        dirfd = host_fd(p, (uint64_t)gdirfd);
        if (dirfd < 0)
            return -EBADF;
    }
    int acc = flags & O_ACCMODE;
    if ((acc != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND))) &&
        !write_allowed(p, dirfd, path))
        return -EACCES;
    int h = openat(dirfd, path, flags | O_CLOEXEC, mode);
    if (h < 0)
        return -errno;
    return new_guest_fd(p, h, 0);
}

static long sys_close(struct x86_process *p, uint64_t fd)
{
    int h = host_fd(p, fd);
    if (h < 0)
        return -EBADF;
    p->fds[fd] = -1;
    if (h > 2)
        close(h);
    return 0;
}

static long copy_stat(struct x86_process *p, int rc, const struct stat *st, uint64_t out)
{
    if (rc < 0)
        return -errno;
    if (gmem_copy_out(p->mem, out, st, sizeof *st, 0, NULL) < 0)
        return -EFAULT;
    return 0;
}

static long sys_fstatat(struct x86_process *p, int64_t gdirfd, uint64_t gpath, uint64_t out,
                        int flags)
{
    char path[PATH_MAX];
    struct stat st;
    if (gmem_read_str(p->mem, path, gpath, sizeof path) < 0)
        return -EFAULT;
    if (path[0] == 0 && (flags & AT_EMPTY_PATH)) {
        int h = host_fd(p, (uint64_t)gdirfd);
        if (h < 0)
            return -EBADF;
        return copy_stat(p, fstat(h, &st), &st, out);
    }
    int dirfd = AT_FDCWD;
    if ((int)gdirfd != AT_FDCWD && path[0] != '/') {
        dirfd = host_fd(p, (uint64_t)gdirfd);
        if (dirfd < 0)
            return -EBADF;
    }
    return copy_stat(p, fstatat(dirfd, path, &st, flags & AT_SYMLINK_NOFOLLOW), &st, out);
}

static uint64_t page_up(uint64_t v)
{
    return (v + GPAGE_MASK) & ~GPAGE_MASK;
}

static int prot_from_linux(uint64_t prot)
{
    return ((prot & 1) ? GPROT_R : 0) | ((prot & 2) ? GPROT_W | GPROT_R : 0) |
           ((prot & 4) ? GPROT_X | GPROT_R : 0);
}

/* Code pages in a range that is unmapped or reprotected: drop decoded code. */
static void forget_code(struct x86_process *p, uint64_t addr, uint64_t len)
{
    for (uint64_t a = addr & ~GPAGE_MASK; a < addr + len; a += GPAGE_SIZE) {
        int prot;
        if (gmem_page(p->mem, a, &prot) && (prot & GPROT_CODE)) {
            x86_code_cache_flush(p->code);
            return;
        }
    }
}

static long sys_mmap(struct x86_process *p, uint64_t addr, uint64_t len, uint64_t prot,
                     uint64_t flags, int64_t fd, uint64_t off)
{
    const uint64_t MAP_FIXED_ = 0x10, MAP_ANON_ = 0x20, MAP_SHARED_ = 0x01,
                   MAP_FIXED_NOREPLACE_ = 0x100000;
    if (!len || (off & GPAGE_MASK))
        return -EINVAL;
    len = page_up(len);
    if (len > (1ull << 40))
        return -ENOMEM;
    int h = -1;
    if (!(flags & MAP_ANON_)) {
        h = host_fd(p, (uint64_t)fd);
        if (h < 0)
            return -EBADF;
        if ((flags & MAP_SHARED_) && (prot & 2))
            return -EACCES; /* shared writable file mappings are not emulated */
    }
    uint64_t at;
    if (flags & (MAP_FIXED_ | MAP_FIXED_NOREPLACE_)) {
        if (addr & GPAGE_MASK)
            return -EINVAL;
        if ((flags & MAP_FIXED_NOREPLACE_) && gmem_page(p->mem, addr, NULL))
            return -EEXIST;
        at = addr;
        forget_code(p, at, len);
    } else {
        if (p->mmap_top - len < p->brk_cur + (1ull << 30))
            return -ENOMEM;
        p->mmap_top -= len;
        at = p->mmap_top;
    }
    if (gmem_map(p->mem, at, len, prot_from_linux(prot)) < 0)
        return -ENOMEM;
    if (h >= 0) {
        char *tmp = malloc(IO_CHUNK);
        if (!tmp)
            return -ENOMEM;
        for (uint64_t done = 0; done < len;) {
            uint64_t n = len - done < IO_CHUNK ? len - done : IO_CHUNK;
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

static long sys_brk(struct x86_process *p, uint64_t want)
{
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

static long sys_mremap(struct x86_process *p, uint64_t old, uint64_t old_len, uint64_t new_len,
                       uint64_t flags)
{
    const uint64_t MREMAP_MAYMOVE_ = 1;
    if (old & GPAGE_MASK)
        return -EINVAL;
    old_len = page_up(old_len);
    new_len = page_up(new_len);
    if (!new_len || !gmem_is_mapped(p->mem, old, old_len ? old_len : GPAGE_SIZE))
        return -EFAULT;
    int prot;
    gmem_page(p->mem, old, &prot);
    prot &= 7;
    if (new_len <= old_len) {
        gmem_unmap(p->mem, old + new_len, old_len - new_len);
        return (long)old;
    }
    if (!(flags & MREMAP_MAYMOVE_))
        return -ENOMEM;
    long at = sys_mmap(p, 0, new_len, 3, 0x22, -1, 0);
    if (at < 0)
        return at;
    char *tmp = malloc(IO_CHUNK);
    if (!tmp)
        return -ENOMEM;
    for (uint64_t done = 0; done < old_len; done += IO_CHUNK) {
        uint64_t n = old_len - done < IO_CHUNK ? old_len - done : IO_CHUNK;
        gmem_copy_in(p->mem, tmp, old + done, n, NULL);
        gmem_copy_out(p->mem, (uint64_t)at + done, tmp, n, 1, NULL);
    }
    free(tmp);
    gmem_protect(p->mem, (uint64_t)at, new_len, prot);
    forget_code(p, old, old_len);
    gmem_unmap(p->mem, old, old_len);
    return at;
}

static long sys_madvise(struct x86_process *p, uint64_t addr, uint64_t len, uint64_t advice)
{
    const uint64_t MADV_DONTNEED_ = 4;
    if (addr & GPAGE_MASK)
        return -EINVAL;
    if (advice != MADV_DONTNEED_)
        return 0;
    /* private anonymous memory reads back as zeros after DONTNEED */
    for (uint64_t a = addr; a < addr + page_up(len); a += GPAGE_SIZE) {
        int prot;
        uint8_t *pg = gmem_page(p->mem, a, &prot);
        if (!pg)
            return -ENOMEM;
        memset(pg, 0, GPAGE_SIZE);
    }
    return 0;
}

static long sys_uname(struct x86_process *p, uint64_t out)
{
    char u[6][65];
    memset(u, 0, sizeof u);
    strcpy(u[0], "Linux");
    strcpy(u[1], "cgmtrace");
    strcpy(u[2], "6.1.0-cgmtrace");
    strcpy(u[3], "#1 SMP PREEMPT_DYNAMIC");
    strcpy(u[4], "x86_64");
    strcpy(u[5], "(none)");
    return gmem_copy_out(p->mem, out, u, sizeof u, 0, NULL) < 0 ? -EFAULT : 0;
}

static long sys_clock_gettime(struct x86_process *p, uint64_t clk, uint64_t out)
{
    uint64_t ns = now_ns(p);
    if (clk != CLOCK_REALTIME && clk != CLOCK_REALTIME_COARSE)
        ns -= EPOCH_NS;
    int64_t ts[2] = { (int64_t)(ns / 1000000000ull), (int64_t)(ns % 1000000000ull) };
    return gmem_copy_out(p->mem, out, ts, sizeof ts, 0, NULL) < 0 ? -EFAULT : 0;
}

static long sys_getrandom(struct x86_process *p, uint64_t buf, uint64_t n)
{
    if (n > IO_CHUNK)
        n = IO_CHUNK;
    for (uint64_t i = 0; i < n; i += 8) {
        uint64_t r = x86_random(p);
        size_t k = n - i < 8 ? (size_t)(n - i) : 8;
        if (gmem_copy_out(p->mem, buf + i, &r, k, 0, NULL) < 0)
            return -EFAULT;
    }
    return (long)n;
}

static long sys_prlimit(struct x86_process *p, uint64_t pid, uint64_t res, uint64_t newp,
                        uint64_t oldp)
{
    (void)pid;
    (void)newp;
    if (res >= 16)
        return -EINVAL;
    uint64_t lim[2] = { ~0ull, ~0ull };
    if (res == 3) /* RLIMIT_STACK */
        lim[0] = 8ull << 20;
    else if (res == 7) /* RLIMIT_NOFILE */
        lim[0] = lim[1] = X86_MAX_FDS;
    if (oldp && gmem_copy_out(p->mem, oldp, lim, sizeof lim, 0, NULL) < 0)
        return -EFAULT;
    return 0;
}

static long sys_rt_sigaction(struct x86_process *p, uint64_t sig, uint64_t act, uint64_t old,
                             uint64_t size)
{
    if (sig == 0 || sig > 64 || size != 8)
        return -EINVAL;
    if (old && gmem_copy_out(p->mem, old, p->sigactions[sig], 32, 0, NULL) < 0)
        return -EFAULT;
    if (act && gmem_copy_in(p->mem, p->sigactions[sig], act, 32, NULL) < 0)
        return -EFAULT;
    return 0;
}

static long sys_rt_sigprocmask(struct x86_process *p, uint64_t how, uint64_t set, uint64_t old,
                               uint64_t size)
{
    if (size != 8)
        return -EINVAL;
    if (old && gmem_copy_out(p->mem, old, &p->sigmask, 8, 0, NULL) < 0)
        return -EFAULT;
    if (set) {
        uint64_t m;
        if (gmem_copy_in(p->mem, &m, set, 8, NULL) < 0)
            return -EFAULT;
        if (how == 0)
            p->sigmask |= m;
        else if (how == 1)
            p->sigmask &= ~m;
        else if (how == 2)
            p->sigmask = m;
        else
            return -EINVAL;
    }
    return 0;
}

static long sys_ioctl(struct x86_process *p, uint64_t fd, uint64_t req, uint64_t arg)
{
    int h = host_fd(p, fd);
    if (h < 0)
        return -EBADF;
    if (req == TCGETS) {
        struct termios t;
        if (ioctl(h, TCGETS, &t) < 0)
            return -errno;
        return gmem_copy_out(p->mem, arg, &t, sizeof t, 0, NULL) < 0 ? -EFAULT : 0;
    }
    if (req == TIOCGWINSZ) {
        struct winsize w;
        if (ioctl(h, TIOCGWINSZ, &w) < 0)
            return -errno;
        return gmem_copy_out(p->mem, arg, &w, sizeof w, 0, NULL) < 0 ? -EFAULT : 0;
    }
    return -ENOTTY;
}

static long sys_readlinkat(struct x86_process *p, int64_t gdirfd, uint64_t gpath, uint64_t buf,
                           uint64_t n)
{
    char path[PATH_MAX], out[PATH_MAX];
    if (gmem_read_str(p->mem, path, gpath, sizeof path) < 0)
        return -EFAULT;
    ssize_t k;
    if (!strcmp(path, "/proc/self/exe")) {
        k = (ssize_t)strlen(p->exe_path);
        memcpy(out, p->exe_path, (size_t)k);
    } else {
        int dirfd = (int)gdirfd == AT_FDCWD ? AT_FDCWD : host_fd(p, (uint64_t)gdirfd);
        k = readlinkat(dirfd, path, out, sizeof out);
        if (k < 0)
            return -errno;
    }
    if ((uint64_t)k > n)
        k = (ssize_t)n;
    return gmem_copy_out(p->mem, buf, out, (size_t)k, 0, NULL) < 0 ? -EFAULT : (long)k;
}

static long sys_fcntl(struct x86_process *p, uint64_t fd, uint64_t cmd, uint64_t arg)
{
    int h = host_fd(p, fd);
    if (h < 0)
        return -EBADF;
    switch (cmd) {
    case F_DUPFD: case F_DUPFD_CLOEXEC: {
        int n = dup(h);
        if (n < 0)
            return -errno;
        return new_guest_fd(p, n, (long)arg);
    }
    case F_GETFD: case F_SETFD:
        return 0;
    case F_GETFL: {
        int r = fcntl(h, F_GETFL);
        return r < 0 ? -errno : r;
    }
    case F_SETFL:
        return 0;
    default:
        return -EINVAL;
    }
}

static long sys_dup(struct x86_process *p, uint64_t fd, int64_t to)
{
    int h = host_fd(p, fd);
    if (h < 0)
        return -EBADF;
    int n = dup(h);
    if (n < 0)
        return -errno;
    if (to < 0)
        return new_guest_fd(p, n, 0);
    if (to >= X86_MAX_FDS) {
        close(n);
        return -EBADF;
    }
    if (p->fds[to] > 2)
        close(p->fds[to]);
    p->fds[to] = n;
    return to;
}

/* kill/tkill/tgkill aimed at the guest itself: a signal whose default
 * action terminates ends the process as it would natively (abort() relies
 * on this); ignored signals do nothing; handlers are not run (stop). */
static int sys_self_signal(struct x86_process *p, uint64_t sig, long *rc)
{
    if (sig > 64) {
        *rc = -EINVAL;
        return SC_CONTINUE;
    }
    *rc = 0;
    if (sig == 0 || sig == 17 || sig == 18 || sig == 23 || sig == 28 ||
        (sig >= 19 && sig <= 22) || p->sigactions[sig][0] == 1 /* SIG_IGN */)
        return SC_CONTINUE;
    if (p->sigactions[sig][0] != 0) {
        snprintf(p->message, sizeof p->message,
                 "signal %llu sent to itself has a handler; running signal handlers is not "
                 "supported", (unsigned long long)sig);
        p->stop_kind = XF_SYSCALL;
        return SC_STOP;
    }
    snprintf(p->message, sizeof p->message, "signal %llu sent by the guest to itself",
             (unsigned long long)sig);
    p->stop_kind = XF_KILLED;
    p->kill_signal = (int)sig;
    return SC_STOP;
}

static int is_own_tid(const struct x86_process *p, uint64_t tid)
{
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i]->tid == tid && p->threads[i]->state != THREAD_EXITED)
            return 1;
    return 0;
}

static void warn_unknown(struct x86_process *p, uint64_t nr)
{
    if (nr < 256 && (p->warned[nr / 32] & (1u << (nr % 32))))
        return;
    if (nr < 256)
        p->warned[nr / 32] |= 1u << (nr % 32);
    if (!p->opt.quiet)
        fprintf(stderr, "tracegen: warning: unsupported system call %llu returns ENOSYS\n",
                (unsigned long long)nr);
}

int x86_syscall(struct x86_process *p, struct x86_thread *t)
{
    struct x86_cpu *c = &t->cpu;
    uint64_t nr = c->r[R_RAX];
    uint64_t a0 = c->r[R_RDI], a1 = c->r[R_RSI], a2 = c->r[R_RDX];
    uint64_t a3 = c->r[R_R10], a4 = c->r[R_R8], a5 = c->r[R_R9];
    long rc;
    int out = x86_sys_thread(p, t, nr, &rc);
    if (out >= 0) {
        if (out == SC_CONTINUE || (out == SC_SWITCH && t->state == THREAD_RUNNABLE))
            c->r[R_RAX] = (uint64_t)rc;
        return out;
    }
    switch (nr) {
    case 0: rc = sys_read(p, a0, a1, a2, 0, 0); break;
    case 1: rc = sys_write(p, a0, a1, a2); break;
    case 2: rc = sys_openat(p, AT_FDCWD, a0, (int)a1, (int)a2); break;
    case 3: rc = sys_close(p, a0); break;
    case 4: rc = sys_fstatat(p, AT_FDCWD, a0, a1, 0); break;
    case 5: {
        struct stat st;
        int h = host_fd(p, a0);
        rc = h < 0 ? -EBADF : copy_stat(p, fstat(h, &st), &st, a1);
        break;
    }
    case 6: rc = sys_fstatat(p, AT_FDCWD, a0, a1, AT_SYMLINK_NOFOLLOW); break;
    case 8: {
        int h = host_fd(p, a0);
        off_t r = h < 0 ? -1 : lseek(h, (off_t)a1, (int)a2);
        rc = h < 0 ? -EBADF : r < 0 ? -errno : (long)r;
        break;
    }
    case 9: rc = sys_mmap(p, a0, a1, a2, a3, (int64_t)a4, a5); break;
    case 10:
        forget_code(p, a0, a1);
        rc = (a0 & GPAGE_MASK) ? -EINVAL
             : gmem_protect(p->mem, a0, a1, prot_from_linux(a2)) < 0 ? -ENOMEM : 0;
        break;
    case 11:
        if (a0 & GPAGE_MASK) {
            rc = -EINVAL;
        } else {
            forget_code(p, a0, a1);
            gmem_unmap(p->mem, a0, a1);
            rc = 0;
        }
        break;
    case 12: rc = sys_brk(p, a0); break;
    case 13: rc = sys_rt_sigaction(p, a0, a1, a2, a3); break;
    case 14: rc = sys_rt_sigprocmask(p, a0, a1, a2, a3); break;
    case 16: rc = sys_ioctl(p, a0, a1, a2); break;
    case 17: rc = sys_read(p, a0, a1, a2, 1, a3); break;
    case 19: rc = sys_iov(p, a0, a1, a2, 0); break;
    case 20: rc = sys_iov(p, a0, a1, a2, 1); break;
    case 21: case 269: {
        char path[PATH_MAX];
        uint64_t pa = nr == 21 ? a0 : a1;
        if (gmem_read_str(p->mem, path, pa, sizeof path) < 0)
            rc = -EFAULT;
        else
            rc = access(path, (int)(nr == 21 ? a1 : a2) & R_OK) < 0 ? -errno : 0;
        break;
    }
    case 25: rc = sys_mremap(p, a0, a1, a2, a3); break;
    case 28: rc = sys_madvise(p, a0, a1, a2); break;
    case 32: rc = sys_dup(p, a0, -1); break;
    case 33: case 292: rc = a0 == a1 ? (long)a1 : sys_dup(p, a0, (int64_t)a1); break;
    case 35: case 230: rc = 0; break;            /* nanosleep: time is virtual */
    case 39: rc = GUEST_PID; break;              /* getpid */
    case 63: rc = sys_uname(p, a0); break;
    case 72: rc = sys_fcntl(p, a0, a1, a2); break;
    case 79: {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            rc = -errno;
        else if (strlen(cwd) + 1 > a1)
            rc = -ERANGE;
        else
            rc = gmem_copy_out(p->mem, a0, cwd, strlen(cwd) + 1, 0, NULL) < 0 ? -EFAULT
                                                                          : (long)strlen(cwd) + 1;
        break;
    }
    case 89: rc = sys_readlinkat(p, AT_FDCWD, a0, a1, a2); break;
    case 96: {
        uint64_t ns = now_ns(p);
        int64_t tv[2] = { (int64_t)(ns / 1000000000ull), (int64_t)(ns % 1000000000ull / 1000) };
        rc = a0 && gmem_copy_out(p->mem, a0, tv, sizeof tv, 0, NULL) < 0 ? -EFAULT : 0;
        break;
    }
    case 97: rc = sys_prlimit(p, 0, a0, 0, a1); break;
    case 99: {                                   /* sysinfo: a fixed 8 GiB machine */
        /* struct sysinfo: uptime 0, totalram 32, freeram 40, procs 80, mem_unit 104 */
        uint8_t buf[112];
        memset(buf, 0, sizeof buf);
        uint64_t uptime = p->icount / 1000000000ull, total = 8ull << 30, avail = 6ull << 30;
        uint32_t unit = 1;
        uint16_t procs = 1;
        memcpy(buf + 0, &uptime, 8);
        memcpy(buf + 32, &total, 8);
        memcpy(buf + 40, &avail, 8);
        memcpy(buf + 80, &procs, 2);
        memcpy(buf + 104, &unit, 4);
        rc = gmem_copy_out(p->mem, a0, buf, sizeof buf, 0, NULL) < 0 ? -EFAULT : 0;
        break;
    }
    case 102: rc = (long)getuid(); break;
    case 104: rc = (long)getgid(); break;
    case 107: rc = (long)geteuid(); break;
    case 108: rc = (long)getegid(); break;
    case 110: rc = 1; break;                     /* getppid */
    case 131: rc = 0; break;                     /* sigaltstack */
    case 158:                                    /* arch_prctl */
        switch (a0) {
        case 0x1001: c->gs_base = a1; rc = 0; break;
        case 0x1002: c->fs_base = a1; rc = 0; break;
        case 0x1003: rc = gmem_copy_out(p->mem, a1, &c->fs_base, 8, 0, NULL) < 0 ? -EFAULT : 0; break;
        case 0x1004: rc = gmem_copy_out(p->mem, a1, &c->gs_base, 8, 0, NULL) < 0 ? -EFAULT : 0; break;
        default: rc = -EINVAL; break;
        }
        break;
    case 186: rc = (long)t->tid; break;          /* gettid */
    case 201: {
        int64_t s = (int64_t)(now_ns(p) / 1000000000ull);
        rc = a0 && gmem_copy_out(p->mem, a0, &s, 8, 0, NULL) < 0 ? -EFAULT : s;
        break;
    }
    case 204: {                                  /* sched_getaffinity */
        uint64_t mask = 0xf; /* four CPUs, whatever the host has */
        rc = a1 < 8 ? -EINVAL : gmem_copy_out(p->mem, a2, &mask, 8, 0, NULL) < 0 ? -EFAULT : 8;
        break;
    }
    case 217: {                                  /* getdents64 */
        int h = host_fd(p, a0);
        if (h < 0) {
            rc = -EBADF;
            break;
        }
        uint64_t n = a2 > IO_CHUNK ? IO_CHUNK : a2;
        char *tmp = malloc(n ? n : 1);
        long k = tmp ? (long)syscall(217, h, tmp, n) : -1;
        rc = k < 0 ? -errno : gmem_copy_out(p->mem, a1, tmp, (size_t)k, 0, NULL) < 0 ? -EFAULT : k;
        free(tmp);
        break;
    }
    case 218: t->clear_child_tid = a0; rc = (long)t->tid; break;
    case 228: rc = sys_clock_gettime(p, a0, a1); break;
    case 229: {
        int64_t ts[2] = { 0, 1 };
        rc = a1 && gmem_copy_out(p->mem, a1, ts, sizeof ts, 0, NULL) < 0 ? -EFAULT : 0;
        break;
    }
    case 257: rc = sys_openat(p, (int64_t)a0, a1, (int)a2, (int)a3); break;
    case 262: rc = sys_fstatat(p, (int64_t)a0, a1, a2, (int)a3); break;
    case 267: rc = sys_readlinkat(p, (int64_t)a0, a1, a2, a3); break;
    case 273: rc = 0; break;                     /* set_robust_list */
    case 302: rc = sys_prlimit(p, a0, a1, a2, a3); break;
    case 318: rc = sys_getrandom(p, a0, a1); break;
    case 334: rc = -ENOSYS; break;               /* rseq: the C library copes */
    case 62:                                     /* kill: only itself */
        if ((int64_t)a0 != GUEST_PID && a0 != 0) {
            rc = -EPERM;
            break;
        }
        if (sys_self_signal(p, a1, &rc) == SC_STOP)
            return SC_STOP;
        break;
    case 200: case 234: {                        /* tkill, tgkill */
        uint64_t tid = nr == 200 ? a0 : a1, sig = nr == 200 ? a1 : a2;
        if ((nr == 234 && a0 != GUEST_PID) || !is_own_tid(p, tid)) {
            rc = -ESRCH;
            break;
        }
        if (sys_self_signal(p, sig, &rc) == SC_STOP)
            return SC_STOP;
        break;
    }
    case 57: case 58: case 59: case 322:         /* fork/vfork/execve(at): sandbox */
        rc = -EPERM;
        break;
    case 41: case 42: case 43: case 49: case 50: case 53: /* sockets */
        rc = -EACCES;
        break;
    case CGM_SYSCALL_ROI_BEGIN: case CGM_SYSCALL_ROI_END:
        rc = 0;
        break;
    default:
        if (gpu_is_syscall(nr)) {                /* the GPU driver's calls */
            const uint64_t args[6] = { a0, a1, a2, a3, a4, a5 };
            rc = gpu_syscall(p, t, nr, args);
            break;
        }
        if (p->opt.strict) {
            snprintf(p->message, sizeof p->message,
                     "unsupported system call %llu (--strict)", (unsigned long long)nr);
            p->stop_kind = XF_SYSCALL;
            return SC_STOP;
        }
        warn_unknown(p, nr);
        rc = -ENOSYS;
        break;
    }
    c->r[R_RAX] = (uint64_t)rc;
    return SC_CONTINUE;
}
