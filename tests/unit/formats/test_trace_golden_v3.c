/* The committed version-3 golden trace, traces/golden/v3-gpu-double-buffer.cgt:
 * traces/gpu/double_buffer double 2 64 (two chunks of 64 records, two
 * input buffers of 512 bytes and an output buffer of 256). Read with
 * today's reader, its host thread holds what the program does in order:
 * three allocations; the first chunk's input copied asynchronously into the
 * first buffer before the first launch, the second's into the second buffer
 * after it; each chunk's 256 bytes of distances copied back after its wait.
 * A change to the gpu_copy_async record that this reader cannot read as
 * version 3 fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cgm/events.h"
#include "cgm/trace.h"

#define GOLDEN_REL "traces/golden/v3-gpu-double-buffer.cgt"

static void golden_v3_double_buffer(void **state)
{
    (void)state;
    char path[4096], err[512];
    const char *root = getenv("CGM_ROOT");
    snprintf(path, sizeof path, "%s/%s", root ? root : ".", GOLDEN_REL);
    assert_int_equal(cgm_trace_verify(path, err, sizeof err), 0);
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    if (!r)
        print_error("%s\n", err);
    assert_non_null(r);
    assert_int_equal(cgm_reader_version(r), 3);
    long s = cgm_reader_find_stream(r, 1000);
    assert_true(s >= 0);
    struct cgm_riter *it = cgm_riter_open(r, (size_t)s);
    assert_non_null(it);
    uint64_t alloc[3] = { 0 };
    unsigned nalloc = 0, nasync = 0, ncopy = 0, launches = 0;
    const uint8_t *rec;
    size_t len;
    int more;
    while ((more = cgm_riter_next(it, &rec, &len)) == 1) {
        struct cgm_event ev;
        if (rec[0] < CGM_EV_GPU_LOAD || rec[0] > CGM_EV_GPU_COPY_ASYNC)
            continue; /* the x86 records and the other events */
        assert_int_equal(cgm_event_decode(rec, len, &ev), 0);
        switch (ev.type) {
        case CGM_EV_GPU_ALLOC:
            assert_true(nalloc < 3);
            alloc[nalloc++] = ev.f[CGM_EVF_GPU_ALLOC_ADDR];
            break;
        case CGM_EV_GPU_COPY_ASYNC:
            /* chunk i into input buffer i, before launch i + 1 and after launch i */
            assert_int_equal(ev.f[CGM_EVF_GPU_COPY_ASYNC_DST], alloc[nasync]);
            assert_int_equal(ev.f[CGM_EVF_GPU_COPY_ASYNC_BYTES], 512);
            assert_int_equal(launches, nasync);
            nasync++;
            break;
        case CGM_EV_GPU_COPY:
            assert_int_equal(ev.f[CGM_EVF_GPU_COPY_SRC], alloc[2]);
            assert_int_equal(ev.f[CGM_EVF_GPU_COPY_BYTES], 256);
            ncopy++;
            assert_int_equal(launches, ncopy);
            break;
        case CGM_EV_GPU_LAUNCH:
            launches++;
            break;
        default:
            break;
        }
    }
    assert_int_equal(more, 0);
    assert_int_equal(nalloc, 3);
    assert_int_equal(nasync, 2);
    assert_int_equal(ncopy, 2);
    assert_int_equal(launches, 2);
    cgm_riter_close(it);
    cgm_reader_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(golden_v3_double_buffer) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
