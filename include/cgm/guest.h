/* cgmtrace guest interface: include in a workload to mark its region of
 * interest. The markers are system calls with numbers in a range Linux
 * does not use; tracegen records them, a native kernel answers -ENOSYS,
 * so the same binary runs natively unchanged (and can tell where it runs).
 * Header-only; x86-64 only. */
#ifndef CGM_GUEST_H
#define CGM_GUEST_H

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

#endif
