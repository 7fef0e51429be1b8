/*
 * First instructions of every context (x86-64 System V). The switch
 * (ks_switch.h) jumps here with the context in rsi and the stack pointer at
 * the 16-byte aligned top of the context's fresh stack; ks_context_main
 * never returns.
 */

    .text

    .globl  ks_context_trampoline
    .type   ks_context_trampoline, @function
    .p2align 4
ks_context_trampoline:
    .cfi_startproc
    .cfi_undefined rip          /* outermost frame: debuggers stop unwinding here */
    xorl    %ebp, %ebp
    movq    %rsi, %rdi
    call    ks_context_main
    ud2
    .cfi_endproc
    .size   ks_context_trampoline, .-ks_context_trampoline

    .section .note.GNU-stack,"",@progbits
