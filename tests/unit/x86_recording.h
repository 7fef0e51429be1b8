/* A trace of one musl guest program, recorded by bin/tracegen into a
 * temporary file, for the tests that read x86 traces. Finds the programs
 * through CGM_BIN and CGM_BUILD. Linked into every unit test. */
#ifndef TESTS_UNIT_X86_RECORDING_H
#define TESTS_UNIT_X86_RECORDING_H

struct x86_recording {
    char *guest;        /* $CGM_BUILD/traces/x86/musl/NAME */
    char path[64];      /* the trace file */
    int status;         /* tracegen's exit status, or -1 if it did not exit */
};

/* Runs `tracegen --quiet OPTS... -o PATH -- GUEST` with stdout discarded,
 * GUEST being the musl build of NAME; OPTS ends with NULL. */
void x86_record_guest(struct x86_recording *r, const char *name, const char *const *opts);

/* Deletes the trace file and frees the guest's path. */
void x86_recording_remove(struct x86_recording *r);

#endif
