/* cgm_gpu_build: OpenCL C compiled for the device on the host, for a guest
 * that cannot run the compiler itself (no processes under emulation).
 *
 * tracegen runs the same compiler and flags as the Makefile's kernels
 * (clang -target amdgcn-amd-amdhsa -mcpu=tahiti -nogpulib -O2 with the
 * device header cgm_device.h, which tracegen carries inside itself), then
 * ld.lld -shared, and loads the code object as cgm_gpu_load_binary would.
 * Results are cached in --opencl-cache DIR under a hash of the source, the
 * options, the device header and the compiler's identity, so a second
 * recording compiles nothing. Only options that change the compilation are
 * passed on (-D, -U, -I, -w, -Werror, OpenCL's -cl-*); anything else is
 * refused: the guest chooses no output file, plugin or program to run. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "cgm/guest.h"
#include "tracegen/gpu/gpu_driver.h"
#include "tracegen/x86/mem.h"
#include "tracegen/x86/process.h"

extern char **environ;

/* traces/include/cgm_device.h, assembled into tracegen (gpu_device_header.S). */
extern const char gpu_device_header[];
extern const char gpu_device_header_end[];

#define SOURCE_MAX   (16u << 20)
#define OPTIONS_MAX  8192
#define LOG_MAX      (64u << 10)
#define MAX_ARGS     256

/* The OpenCL 1.2 build options clang takes as they are. */
static const char *const cl_options[] = {
    "-cl-single-precision-constant", "-cl-denorms-are-zero", "-cl-opt-disable",
    "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only", "-cl-fast-relaxed-math", "-cl-kernel-arg-info",
    "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-uniform-work-group-size",
    "-cl-std=CL1.0", "-cl-std=CL1.1", "-cl-std=CL1.2", "-w", "-Werror",
};

struct build_args {
    char *buf;                 /* the tokens, NUL-separated */
    char *v[MAX_ARGS];
    int n;
};

/* Splits OPTIONS at blanks ("..." and '...' group) into A; checks each
 * option; on a refused one returns -1 with the reason in WHY. */
static int parse_options(const char *options, struct build_args *a, char *why, size_t whylen)
{
    a->n = 0;
    a->buf = malloc(strlen(options) + 1);
    if (!a->buf) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    char *out = a->buf;
    const char *s = options;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\n')
            s++;
        if (!*s)
            break;
        if (a->n == MAX_ARGS) {
            snprintf(why, whylen, "more than %d build options", MAX_ARGS);
            return -1;
        }
        a->v[a->n++] = out;
        char quote = 0;
        for (; *s && (quote || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
            if (!quote && (*s == '"' || *s == '\''))
                quote = *s;
            else if (quote && *s == quote)
                quote = 0;
            else
                *out++ = *s;
        }
        *out++ = 0;
    }
    for (int i = 0; i < a->n; i++) {
        const char *o = a->v[i];
        int known = 0;
        for (size_t k = 0; k < sizeof cl_options / sizeof *cl_options; k++)
            known |= !strcmp(o, cl_options[k]);
        if (known)
            continue;
        if (!strcmp(o, "-D") || !strcmp(o, "-U") || !strcmp(o, "-I")) {
            if (i + 1 == a->n || a->v[i + 1][0] == '-') {
                snprintf(why, whylen, "build option %s needs a value after it", o);
                return -1;
            }
            i++;
            continue;
        }
        if ((o[0] == '-' && (o[1] == 'D' || o[1] == 'U' || o[1] == 'I')) && o[2])
            continue;
        snprintf(why, whylen, "build option '%s' is not supported (the device compiler takes "
                 "-D, -U, -I, -w, -Werror and the OpenCL -cl-* options)", o);
        return -1;
    }
    return 0;
}

static int mkdirs(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *c = path + 1; *c; c++)
        if (*c == '/') {
            *c = 0;
            if (mkdir(path, 0755) < 0 && errno != EEXIST)
                return -1;
            *c = '/';
        }
    return mkdir(path, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static int write_file(const char *path, const void *data, size_t len)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, len, f) == len;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) < 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static char *read_whole(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = 0;
    *len = n;
    return buf;
}

/* Runs ARGV with stdin from IN (or /dev/null) and stdout and stderr
 * appended to LOG; returns its exit status, or -1 when it could not run. */
static int run(char *const argv[], const char *in, const char *log)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, in ? in : "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const char *clang_path(void)
{
    const char *c = getenv("CGM_KERNEL_CLANG");
    return c && *c ? c : "clang";
}

/* The cache key: everything the code object depends on but included headers
 * named by -I (as other OpenCL implementations' caches). */
static void cache_key(const char *src, size_t len, const struct build_args *a, const void *extra,
                      size_t extra_len, char key[33])
{
    XXH3_state_t *st = XXH3_createState();
    XXH3_128bits_reset(st);
    static const char tag[] = "cgmtrace opencl 1: -x cl -target amdgcn-amd-amdhsa -mcpu=tahiti "
                              "-nogpulib -O2; ld.lld -shared";
    XXH3_128bits_update(st, tag, sizeof tag);
    const char *clang = clang_path();
    XXH3_128bits_update(st, clang, strlen(clang) + 1);
    struct stat sb;
    char id[64];
    char found[4200];
    /* the compiler's identity: size and time of the file PATH finds */
    const char *path = getenv("PATH");
    int n = snprintf(id, sizeof id, "none");
    for (const char *d = strchr(clang, '/') ? "" : (path ? path : "/usr/bin"); d;) {
        const char *e = strchr(d, ':');
        int dl = e ? (int)(e - d) : (int)strlen(d);
        snprintf(found, sizeof found, "%.*s%s%s", dl, d, dl ? "/" : "", clang);
        if (stat(found, &sb) == 0) {
            n = snprintf(id, sizeof id, "%lld %lld", (long long)sb.st_size,
                         (long long)sb.st_mtime);
            break;
        }
        d = e ? e + 1 : NULL;
    }
    XXH3_128bits_update(st, id, (size_t)n + 1);
    XXH3_128bits_update(st, gpu_device_header, (size_t)(gpu_device_header_end - gpu_device_header));
    for (int i = 0; i < a->n; i++)
        XXH3_128bits_update(st, a->v[i], strlen(a->v[i]) + 1);
    XXH3_128bits_update(st, src, len);
    if (extra_len)   /* a compiled object's headers, or a link's objects */
        XXH3_128bits_update(st, extra, extra_len);
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    snprintf(key, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}

/* Compiles SRC into DIR/KEY.co (OBJECT_ONLY: the relocatable DIR/KEY.obj)
 * unless it is there; the compiler's messages in DIR/KEY.log. INC_DIR, when
 * not NULL, is searched for included headers first. Returns 0, 1 when the
 * compilation failed, -1 when the compiler could not be run (WHY says). */
static int compile(const char *dir, const char *key, const char *src, size_t len,
                   const struct build_args *a, const char *inc_dir, int object_only, char *why,
                   size_t whylen)
{
    char co[4200], log[4200], obj[4200], in[4200], hdr[4200], inc[4200];
    snprintf(co, sizeof co, "%s/%s.%s", dir, key, object_only ? "obj" : "co");
    if (access(co, R_OK) == 0)
        return 0;
    if (mkdirs(dir) < 0) {
        snprintf(why, whylen, "cannot create the cache folder %.900s: %s (--opencl-cache)", dir,
                 strerror(errno));
        return -1;
    }
    size_t hlen = (size_t)(gpu_device_header_end - gpu_device_header);
    snprintf(hdr, sizeof hdr, "%s/cgm_device-%016llx.h", dir,
             (unsigned long long)XXH3_64bits(gpu_device_header, hlen));
    long pid = (long)getpid();
    snprintf(log, sizeof log, "%s/%s.log", dir, key);
    snprintf(obj, sizeof obj, "%s/%s.o.%ld", dir, key, pid);
    snprintf(in, sizeof in, "%s/%s.cl.%ld", dir, key, pid);
    if ((access(hdr, R_OK) < 0 && write_file(hdr, gpu_device_header, hlen) < 0) ||
        write_file(in, src, len) < 0) {
        snprintf(why, whylen, "cannot write into the cache folder %.900s: %s (--opencl-cache)", dir,
                 strerror(errno));
        return -1;
    }
    unlink(log);
    char *argv[MAX_ARGS + 20];
    int n = 0;
    argv[n++] = (char *)clang_path();
    char *fixed[] = { "-x", "cl", "-target", "amdgcn-amd-amdhsa", "-mcpu=tahiti", "-nogpulib",
                      "-O2", "-include", hdr };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        argv[n++] = fixed[i];
    if (inc_dir) {
        snprintf(inc, sizeof inc, "-I%s", inc_dir);
        argv[n++] = inc;
    }
    for (int i = 0; i < a->n; i++)
        argv[n++] = a->v[i];
    char *tail[] = { "-c", "-", "-o", obj };
    for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
        argv[n++] = tail[i];
    argv[n] = NULL;
    int rc = run(argv, in, log);
    unlink(in);
    if (rc == 0 && object_only) {
        if (rename(obj, co) < 0)
            rc = -1;
    } else if (rc == 0) {
        char cotmp[4300];
        snprintf(cotmp, sizeof cotmp, "%s.%ld", co, pid);
        char *link[] = { "ld.lld", "-shared", obj, "-o", cotmp, NULL };
        rc = run(link, NULL, log);
        if (rc == 0 && rename(cotmp, co) < 0)
            rc = -1;
        unlink(cotmp);
    }
    unlink(obj);
    if (rc < 0) {
        snprintf(why, whylen, "cannot run %s or ld.lld (CGM_KERNEL_CLANG names the compiler)",
                 clang_path());
        return -1;
    }
    return rc ? 1 : 0;
}

/* Copies TEXT into the guest's log buffer (NUL-terminated, cut to CAP). */
static void put_log(struct x86_process *p, uint64_t buf, uint64_t cap, const char *text)
{
    if (!buf || !cap)
        return;
    size_t n = strlen(text);
    if (n > cap - 1)
        n = (size_t)cap - 1;
    if (gmem_copy_out(p->mem, buf, text, n, 0, NULL) == 0)
        gmem_copy_out(p->mem, buf + n, "", 1, 0, NULL);
}

/* Loads code object CO (a build's or a link's, LABEL and KEY name it in
 * messages); the guest's log gets the loader's refusal, else MSGS (the
 * compiler's or linker's messages, may be NULL). Program handle or -errno. */
static long load_compiled(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
                          const char *co, const char *label, const char *key, uint64_t log_addr,
                          uint64_t log_cap, const char *msgs)
{
    size_t n = 0;
    char name[96], why[1024] = "";
    uint8_t *bin = (uint8_t *)read_whole(co, GPU_MAX_BINARY_BYTES, &n);
    snprintf(name, sizeof name, "<%s %.16s>", label, key);
    long h = bin ? gpu_load_image(p, t, d, name, bin, n, why, sizeof why) : -EIO;
    put_log(p, log_addr, log_cap, h < 0 ? (bin ? why : "cannot read the compiled program")
                                        : msgs ? msgs : "");
    return h;
}

long gpu_build(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
               const uint64_t a[6])
{
    uint64_t src_addr = a[0], len = a[1], opt_addr = a[2], log_addr = a[3], log_cap = a[4];
    char options[OPTIONS_MAX] = "", why[1024] = "";
    if (!len || len > SOURCE_MAX) {
        fprintf(stderr, "tracegen: gpu: build: source of %llu bytes, 1 to %u MiB\n",
                (unsigned long long)len, SOURCE_MAX >> 20);
        return -EINVAL;
    }
    if (opt_addr && gmem_read_str(p->mem, options, opt_addr, sizeof options) < 0) {
        fprintf(stderr, "tracegen: gpu: build: bad options pointer 0x%llx (or longer than %d)\n",
                (unsigned long long)opt_addr, OPTIONS_MAX - 1);
        return -EFAULT;
    }
    long rc0;
    char *src = (char *)gpu_copy_in_new(p, src_addr, len, "build: the source", &rc0);
    if (!src)
        return rc0;
    struct build_args args;
    if (parse_options(options, &args, why, sizeof why) < 0) {
        free(args.buf);
        free(src);
        put_log(p, log_addr, log_cap, why);
        return -EINVAL;
    }
    char key[33], dir[4096];
    cache_key(src, len, &args, NULL, 0, key);
    snprintf(dir, sizeof dir, "%s", p->opt.opencl_cache ? p->opt.opencl_cache : "/tmp");
    int rc = compile(dir, key, src, len, &args, NULL, 0, why, sizeof why);
    free(args.buf);
    free(src);
    char path[4200];
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s.log", dir, key);
    char *log = rc >= 0 ? read_whole(path, LOG_MAX, &n) : NULL;
    if (rc != 0) {
        put_log(p, log_addr, log_cap, rc < 0 ? why : log ? log : "the compiler failed");
        if (rc < 0)
            fprintf(stderr, "tracegen: gpu: build: %s\n", why);
        free(log);
        return -ENOEXEC;
    }
    snprintf(path, sizeof path, "%s/%s.co", dir, key);
    long h = load_compiled(p, t, d, path, "OpenCL C program", key, log_addr, log_cap, log);
    free(log);
    return h;
}

int gpu_compile_file(const char *cl_path, const char *options, const char *cache_dir,
                     const char *out, char *why, size_t whylen)
{
    size_t len;
    char *text = read_whole(cl_path, SOURCE_MAX, &len);
    /* a line marker first, so the compiler's messages name the file */
    size_t mark = strlen(cl_path) + 16;
    char *src = text ? malloc(mark + len + 1) : NULL;
    if (!src) {
        snprintf(why, whylen, "%s: %s", cl_path, strerror(errno));
        free(text);
        return -1;
    }
    len = (size_t)snprintf(src, mark + len + 1, "# 1 \"%s\"\n%s", cl_path, text);
    free(text);
    /* quoted includes are found beside the source, as a compiler given the file finds them */
    char dir_opt[4200], *slash = strrchr(cl_path, '/');
    snprintf(dir_opt, sizeof dir_opt, "%s -I%.*s", options ? options : "",
             slash ? (int)(slash - cl_path) : 1, slash ? cl_path : ".");
    struct build_args args;
    int rc = parse_options(dir_opt, &args, why, whylen);
    char key[33], co[4200], log[4200];
    if (rc == 0) {
        cache_key(src, len, &args, NULL, 0, key);
        rc = compile(cache_dir, key, src, len, &args, NULL, 0, why, whylen);
    }
    free(args.buf);
    free(src);
    if (rc < 0)
        return -1;
    snprintf(log, sizeof log, "%s/%s.log", cache_dir, key);
    size_t n = 0;
    char *msgs = read_whole(log, LOG_MAX, &n);
    if (msgs && n)
        fputs(msgs, stderr);   /* the compiler's warnings, or its errors */
    free(msgs);
    if (rc) {
        snprintf(why, whylen, "%s: the compilation failed", cl_path);
        return -1;
    }
    snprintf(co, sizeof co, "%s/%s.co", cache_dir, key);
    char *bin = read_whole(co, GPU_MAX_BINARY_BYTES, &n);
    if (!bin || write_file(out, bin, n) < 0) {
        snprintf(why, whylen, "%s: %s", out, strerror(errno));
        free(bin);
        return -1;
    }
    free(bin);
    return 0;
}

/* ---- separate compilation: cgm_gpu_compile and cgm_gpu_link ---------------
 * A compiled object is clang's relocatable output, kept in the cache folder
 * as KEY.obj; the guest holds only its name (the key). A link runs
 * ld.lld -shared --no-undefined over the named objects (a function a unit
 * calls but no unit defines fails the link) into KEY.co, cached under the
 * objects' names and the options. */

#define MAX_HEADERS 64
#define MAX_OBJECTS 64

/* NAME is a relative path with no "." or ".." component. */
static int header_name_ok(const char *name)
{
    if (!name[0] || name[0] == '/')
        return 0;
    for (const char *c = name; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (!n || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        c += n + (e ? 1 : 0);
        if (e && !*c)
            return 0;
    }
    return 1;
}

/* Writes the headers (NAMES[i], TEXTS[i], LENS[i]) under DIR. */
static int write_headers(const char *dir, int n, char names[][256], char **texts,
                         const uint64_t *lens)
{
    for (int i = 0; i < n; i++) {
        char path[4600];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *slash = strrchr(path, '/');
        *slash = 0;
        if (mkdirs(path) < 0)
            return -1;
        *slash = '/';
        if (write_file(path, texts[i], (size_t)lens[i]) < 0)
            return -1;
    }
    return 0;
}

long gpu_compile(struct x86_process *p, const uint64_t a[6])
{
    uint64_t src_addr = a[0], len = a[1], opt_addr = a[2], io_addr = a[3];
    struct cgm_gpu_compile_io io;
    char options[OPTIONS_MAX] = "", why[1024] = "";
    if (!len || len > SOURCE_MAX) {
        fprintf(stderr, "tracegen: gpu: compile: source of %llu bytes, 1 to %u MiB\n",
                (unsigned long long)len, SOURCE_MAX >> 20);
        return -EINVAL;
    }
    if (gmem_copy_in(p->mem, &io, io_addr, sizeof io, NULL) < 0 ||
        (opt_addr && gmem_read_str(p->mem, options, opt_addr, sizeof options) < 0)) {
        fprintf(stderr, "tracegen: gpu: compile: bad pointer to the options or the call's "
                "struct cgm_gpu_compile_io\n");
        return -EFAULT;
    }
    if (io.nheaders > MAX_HEADERS) {
        snprintf(why, sizeof why, "%lu headers, at most %d", io.nheaders, MAX_HEADERS);
        put_log(p, (uint64_t)(uintptr_t)io.log, io.log_cap, why);
        return -EINVAL;
    }
    long rc0 = 0, rc = 0;
    char names[MAX_HEADERS][256];
    char *texts[MAX_HEADERS] = { 0 };
    uint64_t lens[MAX_HEADERS] = { 0 };
    int nh = 0;
    XXH3_state_t *st = XXH3_createState();   /* the headers, for the key */
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, "compile", 8);
    for (; nh < (int)io.nheaders && rc == 0; nh++) {
        struct cgm_gpu_header h;
        if (gmem_copy_in(p->mem, &h, (uint64_t)(uintptr_t)(io.headers + nh), sizeof h, NULL) < 0 ||
            gmem_read_str(p->mem, names[nh], (uint64_t)(uintptr_t)h.name, sizeof names[nh]) < 0 ||
            h.bytes > SOURCE_MAX) {
            fprintf(stderr, "tracegen: gpu: compile: bad header %d\n", nh);
            rc = -EFAULT;
            break;
        }
        if (!header_name_ok(names[nh])) {
            snprintf(why, sizeof why, "header name '%.200s' is not a relative path without . "
                     "or .. components", names[nh]);
            rc = -EINVAL;
            break;
        }
        lens[nh] = h.bytes;
        texts[nh] = h.bytes ? (char *)gpu_copy_in_new(p, (uint64_t)(uintptr_t)h.source, h.bytes,
                                                      "compile: a header", &rc0)
                            : calloc(1, 1);
        if (!texts[nh]) {
            rc = rc0 ? rc0 : -ENOMEM;
            break;
        }
        XXH3_128bits_update(st, names[nh], strlen(names[nh]) + 1);
        XXH3_128bits_update(st, &lens[nh], sizeof lens[nh]);
        XXH3_128bits_update(st, texts[nh], (size_t)lens[nh]);
    }
    XXH128_hash_t hh = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    char *src = rc == 0 ? (char *)gpu_copy_in_new(p, src_addr, len, "compile: the source", &rc0)
                        : NULL;
    if (rc == 0 && !src)
        rc = rc0;
    struct build_args args = { 0 };
    if (rc == 0 && parse_options(options, &args, why, sizeof why) < 0)
        rc = -EINVAL;
    char key[33], dir[4096], inc[4200], path[4200];
    snprintf(dir, sizeof dir, "%s", p->opt.opencl_cache ? p->opt.opencl_cache : "/tmp");
    int built = -1;
    if (rc == 0) {
        cache_key(src, len, &args, &hh, sizeof hh, key);
        snprintf(inc, sizeof inc, "%s/%s.h", dir, key);
        snprintf(path, sizeof path, "%s/%s.obj", dir, key);
        if (access(path, R_OK) != 0 && nh && (mkdirs(inc) < 0 ||
                                               write_headers(inc, nh, names, texts, lens) < 0)) {
            snprintf(why, sizeof why, "cannot write the headers into %.900s: %s (--opencl-cache)",
                     inc, strerror(errno));
            built = -1;
        } else {
            built = compile(dir, key, src, len, &args, nh ? inc : NULL, 1, why, sizeof why);
        }
        if (built < 0)
            fprintf(stderr, "tracegen: gpu: compile: %s\n", why);
    }
    free(args.buf);
    free(src);
    for (int i = 0; i < MAX_HEADERS; i++)
        free(texts[i]);
    if (rc < 0) {
        put_log(p, (uint64_t)(uintptr_t)io.log, io.log_cap, why);
        return rc;
    }
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s.log", dir, key);
    char *log = built >= 0 ? read_whole(path, LOG_MAX, &n) : NULL;
    put_log(p, (uint64_t)(uintptr_t)io.log, io.log_cap,
            built < 0 ? why : log ? log : built ? "the compiler failed" : "");
    free(log);
    if (built != 0)
        return -ENOEXEC;
    char name[CGM_GPU_OBJECT_NAME] = { 0 };
    memcpy(name, key, 33);
    if (gmem_copy_out(p->mem, io_addr + offsetof(struct cgm_gpu_compile_io, object), name,
                      sizeof name, 0, NULL) < 0)
        return -EFAULT;
    return 0;
}

/* The link options OpenCL 1.2 defines; the math ones change nothing here,
 * since the objects are already compiled. -create-library is refused: the
 * device loads only executables. */
static const char *const link_options[] = {
    "-enable-link-options", "-cl-denorms-are-zero", "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations", "-cl-finite-math-only", "-cl-fast-relaxed-math",
};

long gpu_link(struct x86_process *p, struct x86_thread *t, struct gpu_driver *d,
              const uint64_t a[6])
{
    uint64_t names_addr = a[0], count = a[1], opt_addr = a[2], log_addr = a[3], log_cap = a[4];
    char options[OPTIONS_MAX] = "", why[1024] = "";
    char names[MAX_OBJECTS][CGM_GPU_OBJECT_NAME];
    if (!count || count > MAX_OBJECTS) {
        snprintf(why, sizeof why, "a link of %llu objects, 1 to %d",
                 (unsigned long long)count, MAX_OBJECTS);
        put_log(p, log_addr, log_cap, why);
        return -EINVAL;
    }
    if (gmem_copy_in(p->mem, names, names_addr, count * CGM_GPU_OBJECT_NAME, NULL) < 0 ||
        (opt_addr && gmem_read_str(p->mem, options, opt_addr, sizeof options) < 0)) {
        fprintf(stderr, "tracegen: gpu: link: bad pointer to the objects or the options\n");
        return -EFAULT;
    }
    struct build_args args = { 0 };
    if (parse_options(options, &args, why, sizeof why) < 0) {
        free(args.buf);
        snprintf(why, sizeof why, "link options '%.900s' are not supported", options);
        put_log(p, log_addr, log_cap, why);
        return -EINVAL;
    }
    for (int i = 0; i < args.n; i++) {
        int known = 0;
        for (size_t k = 0; k < sizeof link_options / sizeof *link_options; k++)
            known |= !strcmp(args.v[i], link_options[k]);
        if (!known) {
            snprintf(why, sizeof why, "link option '%.200s' is not supported (the linker takes "
                     "-enable-link-options and the OpenCL -cl-* math options)", args.v[i]);
            free(args.buf);
            put_log(p, log_addr, log_cap, why);
            return -EINVAL;
        }
    }
    char dir[4096], (*objs)[4200] = malloc(count * sizeof *objs);
    snprintf(dir, sizeof dir, "%s", p->opt.opencl_cache ? p->opt.opencl_cache : "/tmp");
    if (!objs) {
        free(args.buf);
        return -ENOMEM;
    }
    for (uint64_t i = 0; i < count; i++) {
        names[i][CGM_GPU_OBJECT_NAME - 1] = 0;
        int hex = strlen(names[i]) == 32;
        for (int c = 0; hex && c < 32; c++)
            hex = strchr("0123456789abcdef", names[i][c]) != NULL;
        snprintf(objs[i], sizeof objs[i], "%s/%s.obj", dir, hex ? names[i] : "?");
        if (!hex || access(objs[i], R_OK) != 0) {
            snprintf(why, sizeof why, "object %llu is no compiled object of this driver",
                     (unsigned long long)i);
            free(args.buf);
            free(objs);
            put_log(p, log_addr, log_cap, why);
            return -ENOENT;
        }
    }
    char key[33], co[4200], log[4200];
    cache_key("link", 5, &args, names, count * CGM_GPU_OBJECT_NAME, key);
    free(args.buf);
    snprintf(co, sizeof co, "%s/%s.co", dir, key);
    snprintf(log, sizeof log, "%s/%s.log", dir, key);
    int rc = 0;
    if (access(co, R_OK) != 0) {
        char cotmp[4300];
        snprintf(cotmp, sizeof cotmp, "%s.%ld", co, (long)getpid());
        char *argv[MAX_OBJECTS + 8];
        int n = 0;
        argv[n++] = "ld.lld";
        argv[n++] = "-shared";
        argv[n++] = "--no-undefined";
        for (uint64_t i = 0; i < count; i++)
            argv[n++] = objs[i];
        argv[n++] = "-o";
        argv[n++] = cotmp;
        argv[n] = NULL;
        unlink(log);
        rc = run(argv, NULL, log);
        if (rc == 0 && rename(cotmp, co) < 0)
            rc = -1;
        unlink(cotmp);
    }
    free(objs);
    if (rc < 0) {
        snprintf(why, sizeof why, "cannot run ld.lld");
        fprintf(stderr, "tracegen: gpu: link: %s\n", why);
        put_log(p, log_addr, log_cap, why);
        return -ENOEXEC;
    }
    size_t n = 0;
    char *msgs = read_whole(log, LOG_MAX, &n);
    if (rc != 0) {
        put_log(p, log_addr, log_cap, msgs ? msgs : "the link failed");
        free(msgs);
        return -ENOEXEC;
    }
    long h = load_compiled(p, t, d, co, "OpenCL C linked program", key, log_addr, log_cap, msgs);
    free(msgs);
    return h;
}
