/* File-system calls inside an --allow-write directory behave as natively:
 * traces/x86/file_ops.c (mkdir, rename, renameat2, link, linkat, symlink,
 * chmod, fchmod, truncate, ftruncate, fallocate, pwrite, fsync, utimensat,
 * utimes, access, unlink, rmdir, mkfifo, flock and fcntl locks) prints the
 * same results and leaves the same tree natively and under tracegen, built
 * with musl and with glibc, with the paths confined by openat2 and by the
 * walk (--sandbox-walk). */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/run_program.h"

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

static void same_as_native(const char *lib, int walk)
{
    char guest[4096], tracegen[4096], nat_dir[] = "/tmp/cgm_fileops_n_XXXXXX",
         emu_dir[] = "/tmp/cgm_fileops_e_XXXXXX";
    snprintf(guest, sizeof guest, "%s/traces/x86/%s/file_ops", getenv("CGM_BUILD"), lib);
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    assert_non_null(mkdtemp(nat_dir));
    assert_non_null(mkdtemp(emu_dir));
    char *nat[] = { guest, nat_dir, NULL };
    char *emu[] = { tracegen, "--no-trace", "--allow-write", emu_dir, walk ? "--sandbox-walk" : "--quiet",
                    "--", guest, emu_dir, NULL };
    struct run_result *n = run_program(nat, NULL), *e = run_program(emu, NULL);
    assert_int_equal(n->status, 0);
    assert_int_equal(e->status, 0);
    if (strcmp(n->out, e->out))
        print_error("%s%s:\n--- native\n%s--- tracegen\n%s", lib, walk ? " (walk)" : "", n->out,
                    e->out);
    assert_string_equal(n->out, e->out);
    /* the program did what it set out to: the last steps worked */
    assert_non_null(strstr(e->out, "unlinkat d/e as a directory = 0\n"));
    assert_non_null(strstr(e->out, "linkat following s = 0\n"));
    run_result_free(n);
    run_result_free(e);
    nftw(nat_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    nftw(emu_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_musl(void **state) { (void)state; same_as_native("musl", 0); }
static void test_musl_walk(void **state) { (void)state; same_as_native("musl", 1); }
static void test_glibc(void **state) { (void)state; same_as_native("glibc", 0); }
static void test_glibc_walk(void **state) { (void)state; same_as_native("glibc", 1); }

int main(void)
{
    if (!getenv("CGM_BUILD") || !getenv("CGM_BIN"))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_musl),
        cmocka_unit_test(test_musl_walk),
        cmocka_unit_test(test_glibc),
        cmocka_unit_test(test_glibc_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
