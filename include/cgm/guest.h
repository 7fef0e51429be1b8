/* cgmtrace guest interface: include in a workload to mark its region of
 * interest and to use the GPU. The calls are system calls with numbers in a range Linux
 * does not use; tracegen records them, a native kernel answers -ENOSYS,
 * so the same binary runs natively unchanged (and can tell where it runs).
 * Header-only; x86-64 only. */
#ifndef CGM_GUEST_H
#define CGM_GUEST_H

#include <stddef.h>

/* Reserved system call numbers: 0x43470000 ("CG") and up. ROI markers take
 * the first two; the GPU driver calls use CGM_SYSCALL_GPU_BASE and up. */
#define CGM_SYSCALL_BASE       0x43470000L
#define CGM_SYSCALL_ROI_BEGIN  (CGM_SYSCALL_BASE + 0)
#define CGM_SYSCALL_ROI_END    (CGM_SYSCALL_BASE + 1)
#define CGM_SYSCALL_GPU_BASE   (CGM_SYSCALL_BASE + 0x100)

static inline long cgm_guest_syscall0(long nr)
{
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
    return ret;
}

/* Marks the start of the region of interest. Returns 0 under tracegen,
 * -ENOSYS (-38) natively. */
static inline long cgm_roi_begin(void)
{
    return cgm_guest_syscall0(CGM_SYSCALL_ROI_BEGIN);
}

/* Marks its end. */
static inline long cgm_roi_end(void)
{
    return cgm_guest_syscall0(CGM_SYSCALL_ROI_END);
}

/* ---- GPU calls (the driver in tracegen/gpu/) -----------------------------
 * Under tracegen a Southern Islands GPU shares the guest's address space;
 * natively every call fails (-ENOSYS, NULL, cgm_gpu_available() == 0).
 * Errors return -errno and tracegen explains them on stderr. */

#define CGM_SYSCALL_GPU_AVAILABLE (CGM_SYSCALL_GPU_BASE + 0)
#define CGM_SYSCALL_GPU_LOAD      (CGM_SYSCALL_GPU_BASE + 1)
#define CGM_SYSCALL_GPU_KERNEL    (CGM_SYSCALL_GPU_BASE + 2)
#define CGM_SYSCALL_GPU_ALLOC     (CGM_SYSCALL_GPU_BASE + 3)
#define CGM_SYSCALL_GPU_FREE      (CGM_SYSCALL_GPU_BASE + 4)
#define CGM_SYSCALL_GPU_COPY      (CGM_SYSCALL_GPU_BASE + 5)
#define CGM_SYSCALL_GPU_LAUNCH    (CGM_SYSCALL_GPU_BASE + 6)
#define CGM_SYSCALL_GPU_WAIT      (CGM_SYSCALL_GPU_BASE + 7)
#define CGM_SYSCALL_GPU_LOAD_BINARY (CGM_SYSCALL_GPU_BASE + 8)
#define CGM_SYSCALL_GPU_BUILD     (CGM_SYSCALL_GPU_BASE + 9)
#define CGM_SYSCALL_GPU_QUERY     (CGM_SYSCALL_GPU_BASE + 10)
#define CGM_SYSCALL_GPU_LAUNCH_ND (CGM_SYSCALL_GPU_BASE + 11)
#define CGM_SYSCALL_GPU_COPY_ASYNC (CGM_SYSCALL_GPU_BASE + 12)
#define CGM_SYSCALL_GPU_COMPILE   (CGM_SYSCALL_GPU_BASE + 13)
#define CGM_SYSCALL_GPU_LINK      (CGM_SYSCALL_GPU_BASE + 14)
#define CGM_SYSCALL_GPU_LAST      CGM_SYSCALL_GPU_LINK

static inline long cgm_guest_syscall6(long nr, long a0, long a1, long a2, long a3, long a4,
                                      long a5)
{
    long ret;
    register long r10 __asm__("r10") = a3;
    register long r8 __asm__("r8") = a4;
    register long r9 __asm__("r9") = a5;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

/* 1 under tracegen, 0 natively. */
static inline int cgm_gpu_available(void)
{
    return cgm_guest_syscall6(CGM_SYSCALL_GPU_AVAILABLE, 0, 0, 0, 0, 0, 0) == 1;
}

/* Loads a code object (a file path as the guest sees it): program handle
 * > 0, or -errno. */
static inline long cgm_gpu_load(const char *code_object)
{
    return cgm_guest_syscall6(CGM_SYSCALL_GPU_LOAD, (long)code_object, 0, 0, 0, 0, 0);
}

/* Kernel handle > 0, or -errno (-ENOENT: no such kernel). */
static inline long cgm_gpu_kernel(long program, const char *name)
{
    return cgm_guest_syscall6(CGM_SYSCALL_GPU_KERNEL, program, (long)name, 0, 0, 0, 0);
}

/* GPU-visible guest memory, zeroed and page aligned; NULL on failure. */
static inline void *cgm_gpu_alloc(size_t bytes)
{
    long r = cgm_guest_syscall6(CGM_SYSCALL_GPU_ALLOC, (long)bytes, 0, 0, 0, 0, 0);
    return r < 0 && r > -4096 ? (void *)0 : (void *)r;
}

/* Frees what cgm_gpu_alloc returned. */
static inline int cgm_gpu_free(void *p)
{
    return (int)cgm_guest_syscall6(CGM_SYSCALL_GPU_FREE, (long)p, 0, 0, 0, 0, 0);
}

/* Copies BYTES (ranges must not overlap); recorded as a DMA copy. */
static inline int cgm_gpu_copy(void *dst, const void *src, size_t bytes)
{
    return (int)cgm_guest_syscall6(CGM_SYSCALL_GPU_COPY, (long)dst, (long)src, (long)bytes,
                                   0, 0, 0);
}

/* As cgm_gpu_copy, but the program does not wait for it: the copy runs
 * on the DMA engine while the CPU and the GPU go on, and is done by the
 * next cgm_gpu_launch (which starts after it) or cgm_gpu_wait. Under
 * tracegen the bytes are copied at once; replay times the overlap. */
static inline int cgm_gpu_copy_async(void *dst, const void *src, size_t bytes)
{
    return (int)cgm_guest_syscall6(CGM_SYSCALL_GPU_COPY_ASYNC, (long)dst, (long)src, (long)bytes,
                                   0, 0, 0);
}

/* Launches KERNEL on a DIMS-dimensional grid of GLOBAL work-items in groups
 * of LOCAL (NULL: the driver picks; GLOBAL must be a multiple of LOCAL).
 * ARGS holds the explicit arguments laid out as the kernarg segment
 * (pointers 8 bytes, scalars their natural size and alignment); the driver
 * appends the hidden arguments. A __local pointer argument's slot holds the
 * number of bytes wanted (as clSetKernelArg(k, i, bytes, NULL)); the driver
 * replaces it with the LDS offset. Asynchronous: results are visible after
 * cgm_gpu_wait(). */
static inline int cgm_gpu_launch(long kernel, unsigned dims, const size_t global[3],
                                 const size_t local[3], const void *args, size_t args_bytes)
{
    return (int)cgm_guest_syscall6(CGM_SYSCALL_GPU_LAUNCH, kernel, (long)dims, (long)global,
                                   (long)local, (long)args, (long)args_bytes);
}

/* Waits for every launched kernel. */
static inline int cgm_gpu_wait(void)
{
    return (int)cgm_guest_syscall6(CGM_SYSCALL_GPU_WAIT, 0, 0, 0, 0, 0, 0);
}

/* ---- calls for an OpenCL platform (opencl/) ------------------------------
 * Programs from memory and from OpenCL C source, what the device and a
 * kernel look like, launches with global offsets. */

/* Loads a code object held in memory (as clCreateProgramWithBinary): program
 * handle > 0, or -errno (-ENOEXEC: the device cannot run it). */
static inline long cgm_gpu_load_binary(const void *image, size_t bytes)
{
    return cgm_guest_syscall6(CGM_SYSCALL_GPU_LOAD_BINARY, (long)image, (long)bytes, 0, 0, 0, 0);
}

/* Compiles OpenCL C SOURCE (BYTES long, NUL not needed) with OPTIONS (a
 * NUL-terminated clBuildProgram option string, or NULL) for the device on
 * the host and loads it: program handle > 0, or -errno (-EINVAL: an option
 * the compiler is not given; -ENOEXEC: the compilation failed or the device
 * cannot run the result). The compiler's messages go to LOG (LOG_CAP bytes,
 * NUL-terminated; may be NULL). Results are cached by source and options. */
static inline long cgm_gpu_build(const char *source, size_t bytes, const char *options,
                                 char *log, size_t log_cap)
{
    return cgm_guest_syscall6(CGM_SYSCALL_GPU_BUILD, (long)source, (long)bytes, (long)options,
                              (long)log, (long)log_cap, 0);
}

/* Separate compilation (clCompileProgram, clLinkProgram). A header that a
 * source includes by NAME (as input_headers name them), and what a
 * compilation takes and gives: its headers and log, and the name of the
 * compiled object, which a link names. */
struct cgm_gpu_header {
    const char *name;              /* relative, no "..": "util.h", "lib/math.h" */
    const char *source;
    unsigned long bytes;
};
enum { CGM_GPU_OBJECT_NAME = 40 };
struct cgm_gpu_compile_io {
    const struct cgm_gpu_header *headers;
    unsigned long nheaders;
    char *log;                     /* the compiler's messages (may be NULL) */
    unsigned long log_cap;
    char object[CGM_GPU_OBJECT_NAME];   /* out: the compiled object's name */
};

/* Compiles SOURCE as cgm_gpu_build does but stops at a relocatable object
 * that the driver keeps (cached by source, headers and options): 0, or
 * -errno as cgm_gpu_build. */
static inline long cgm_gpu_compile(const char *source, size_t bytes, const char *options,
                                   struct cgm_gpu_compile_io *io)
{
    return cgm_guest_syscall6(CGM_SYSCALL_GPU_COMPILE, (long)source, (long)bytes, (long)options,
                              (long)io, 0, 0);
}

/* Links COUNT compiled objects (OBJECTS: their names, CGM_GPU_OBJECT_NAME
 * bytes each) into a program and loads it: program handle > 0, or -errno
 * (-EINVAL: an option the linker is not given, -ENOENT: an object the
 * driver does not have, -ENOEXEC: the link failed, as an undefined
 * function; the linker's messages in LOG). */
static inline long cgm_gpu_link(const char *objects, size_t count, const char *options, char *log,
                                size_t log_cap)
{
    return cgm_guest_syscall6(CGM_SYSCALL_GPU_LINK, (long)objects, (long)count, (long)options,
                              (long)log, (long)log_cap, 0);
}

/* What cgm_gpu_query(WHAT, HANDLE, INDEX, BUF, CAP) describes. It returns
 * the bytes the answer takes (copying at most CAP of them to BUF), or -errno. */
enum cgm_gpu_query_what {
    CGM_GPU_Q_DEVICE = 1,         /* struct cgm_gpu_device_info */
    CGM_GPU_Q_PROGRAM_BINARY = 2, /* HANDLE a program: its code object's bytes */
    CGM_GPU_Q_KERNEL_NAME = 3,    /* HANDLE a program: the name of its kernel INDEX (from 0),
                                     NUL-terminated; -ENOENT past the last */
    CGM_GPU_Q_KERNEL_INFO = 4,    /* HANDLE a kernel: struct cgm_gpu_kernel_info */
    CGM_GPU_Q_KERNEL_ARG = 5,     /* HANDLE a kernel: struct cgm_gpu_kernel_arg of its
                                     explicit argument INDEX (from 0) */
};

struct cgm_gpu_device_info {
    unsigned compute_units;       /* what the device reports; replay decides the real count */
    unsigned wavefront_size;
    unsigned lds_bytes;           /* local memory per work-group */
    unsigned max_workgroup_size;
    unsigned doubles;             /* 1: double precision is emulated */
    unsigned max_args_bytes;      /* explicit kernel argument bytes of a launch */
};

struct cgm_gpu_kernel_info {
    unsigned nargs;               /* explicit arguments */
    unsigned args_bytes;          /* where the explicit arguments end in the kernarg segment */
    unsigned max_workgroup_size;
    unsigned lds_bytes;           /* fixed __local bytes */
    unsigned private_bytes;       /* per work-item */
};

enum cgm_gpu_arg_kind {
    CGM_GPU_ARG_VALUE = 0,        /* by value: scalars, vectors, structs */
    CGM_GPU_ARG_GLOBAL = 1,       /* __global or __constant pointer (a buffer) */
    CGM_GPU_ARG_LOCAL = 2,        /* __local pointer: the slot holds the bytes wanted */
};

struct cgm_gpu_kernel_arg {
    unsigned offset, size;        /* in the kernarg segment */
    unsigned kind;                /* enum cgm_gpu_arg_kind */
    unsigned is_constant;         /* __constant pointer */
    char name[128], type_name[128]; /* from the code object's metadata ("" when absent) */
};

static inline long cgm_gpu_query(unsigned what, long handle, unsigned index, void *buf,
                                 size_t cap)
{
    return cgm_guest_syscall6(CGM_SYSCALL_GPU_QUERY, (long)what, handle, (long)index, (long)buf,
                              (long)cap, 0);
}

/* An NDRange: DIMS (1..3) dimensions, OFFSET added to every global id,
 * LOCAL all 0 to let the driver choose. */
struct cgm_gpu_ndrange {
    unsigned long dims;
    unsigned long offset[3], global[3], local[3];
};

/* cgm_gpu_launch over an NDRange with global offsets. */
static inline int cgm_gpu_launch_nd(long kernel, const struct cgm_gpu_ndrange *nd,
                                    const void *args, size_t args_bytes)
{
    return (int)cgm_guest_syscall6(CGM_SYSCALL_GPU_LAUNCH_ND, kernel, (long)nd, (long)args,
                                   (long)args_bytes, 0, 0);
}

#endif
