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
#define CGM_SYSCALL_GPU_LAST      CGM_SYSCALL_GPU_WAIT

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

#endif
