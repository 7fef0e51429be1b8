/* Why the guest stopped running instructions. */
#ifndef TRACEGEN_X86_FAULT_H
#define TRACEGEN_X86_FAULT_H

enum x86_fault {
    XF_NONE,
    XF_READ,      /* read from an unmapped or unreadable address */
    XF_WRITE,     /* write to an unmapped or read-only address */
    XF_EXEC,      /* fetch from a non-executable address */
    XF_DIVIDE,    /* divide by zero or quotient overflow (#DE) */
    XF_UNIMPL,    /* instruction the emulator does not implement */
    XF_ILLEGAL,   /* ud2 or an undecodable instruction */
    XF_EXIT,      /* the guest process exited (not a fault) */
    XF_SYSCALL,   /* stopped by the syscall layer (--strict, sandbox) */
    XF_LIMIT,     /* a limit of the run was reached (--max-insts, --max-seconds, ...) */
    XF_KILLED,    /* a signal's default action ended the process (kill, abort) */
    XF_INTERRUPTED, /* tracegen itself was sent SIGINT, SIGTERM or SIGHUP */
    XF_PROTECTION, /* general protection (#GP): a privileged instruction in user
                      mode, a misaligned operand that must be aligned */
    XF_TRAP,      /* int3, int1 or int N: what it raises depends on its vector */
};

const char *x86_fault_name(int kind);
/* The signal a native run would die of (SIGSEGV, SIGFPE, SIGILL, SIGTRAP),
 * or 0. */
int x86_fault_signal(int kind);

#endif
