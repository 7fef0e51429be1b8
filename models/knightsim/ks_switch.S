/*
 * KnightSim context switch for x86-64 System V.
 *
 * A switched-out context's stack holds, from its saved stack pointer up:
 *   +0  MXCSR (4 bytes), x87 control word (2 bytes), 2 unused bytes
 *   +8  r15, r14, r13, r12, rbx, rbp
 *   +56 return address
 * Only callee-saved state needs keeping: the switch is an ordinary call, so
 * the caller has already given up every caller-saved register. MXCSR and the
 * x87 control word are callee-saved too (rounding mode, exception masks), so a
 * context that changes them does not leak its setting into the others. Unlike
 * the C library's setjmp/longjmp, nothing is pointer-mangled, so the engine can
 * build a fresh context's first frame by hand (ks_stack_initial_sp).
 */

    .text

/* void ks_switch_stack(void **save_sp, void *new_sp) */
    .globl  ks_switch_stack
    .type   ks_switch_stack, @function
    .p2align 4
ks_switch_stack:
    .cfi_startproc
    pushq   %rbp
    pushq   %rbx
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
    subq    $8, %rsp
    stmxcsr (%rsp)
    fnstcw  4(%rsp)
    movl    (%rsp), %eax        /* this context's control words, each read */
    movzwl  4(%rsp), %edx       /* back at its own store's width (forwarded) */
    movq    %rsp, (%rdi)
    movq    %rsi, %rsp
    cmpl    (%rsp), %eax        /* reloading is slow (fldcw): only if they differ */
    jne     1f
    cmpw    4(%rsp), %dx
    jne     1f
2:  addq    $8, %rsp
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %rbx
    popq    %rbp
    ret
1:  ldmxcsr (%rsp)
    fldcw   4(%rsp)
    jmp     2b
    .cfi_endproc
    .size   ks_switch_stack, .-ks_switch_stack

/*
 * First instructions of every context: ks_switch_stack "returns" here with the
 * context pointer in r12 (placed in the first frame) and a 16-byte aligned
 * stack. ks_context_main never returns.
 */
    .globl  ks_context_trampoline
    .type   ks_context_trampoline, @function
    .p2align 4
ks_context_trampoline:
    .cfi_startproc
    .cfi_undefined rip          /* outermost frame: debuggers stop unwinding here */
    xorl    %ebp, %ebp
    movq    %r12, %rdi
    call    ks_context_main
    ud2
    .cfi_endproc
    .size   ks_context_trampoline, .-ks_context_trampoline

    .section .note.GNU-stack,"",@progbits
