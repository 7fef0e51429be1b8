/* Runs a program for the tests, capturing its output, with a time limit
 * (a hang fails the test instead of stalling the run) and optionally a
 * signal sent to it after a while. Linked into every unit test. */
#ifndef TESTS_UNIT_RUN_PROGRAM_H
#define TESTS_UNIT_RUN_PROGRAM_H

struct run_result {
    char *out, *err;        /* stdout and stderr, NUL-terminated (at most 1 MiB each) */
    int status;             /* exit status, 128+N when killed by signal N */
    int timed_out;          /* it ran past the limit and was killed */
    long maxrss_kb;         /* its peak resident memory */
};

struct run_options {
    double timeout;         /* seconds before SIGKILL; 0: 120 */
    double signal_after;    /* seconds before SIGNAL is sent; 0: none */
    int signal;
    const char *stdin_path; /* NULL: /dev/null */
    long file_size_limit;   /* bytes (RLIMIT_FSIZE); 0: none */
    long address_space_limit; /* bytes (RLIMIT_AS, ulimit -v); 0: none */
    const char *stdout_path; /* NULL: captured in out */
};

/* Runs ARGV (argv[0] is a path) as OPT says (NULL: the defaults). */
struct run_result *run_program(char *const argv[], const struct run_options *opt);
void run_result_free(struct run_result *r);

#endif
