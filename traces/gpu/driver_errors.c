/* The GPU driver's error paths, as a guest sees them: each bad call returns
 * the documented -errno (tracegen explains it on stderr), a kernel that
 * faults is reported and the driver keeps working.  Prints PASS when every
 * call behaved. */
#include <errno.h>

#include "gpu_common.h"

static int ok = 1;

static void expect(const char *what, long got, long want)
{
    if (got != want) {
        printf("%s: got %ld, want %ld\n", what, got, want);
        ok = 0;
    }
}

int main(void)
{
    gpu_require();
    expect("load of a missing file", cgm_gpu_load("/nonexistent/x.co"), -ENOENT);
    expect("load of a non-ELF file", cgm_gpu_load("/proc/self/status") < 0, 1);
    long k = gpu_get_kernel("write", "write_array");
    expect("kernel of a bad program", cgm_gpu_kernel(999, "write_array"), -EBADF);
    expect("load of an empty path", cgm_gpu_load(""), -ENOENT);
    expect("unknown kernel", cgm_gpu_kernel(1, "nope"), -ENOENT);
    expect("alloc of 0 bytes", cgm_gpu_alloc(0) == NULL, 1);
    int stack_int;
    expect("free of a non-GPU pointer", cgm_gpu_free(&stack_int), -EINVAL);
    int *data = gpu_buffer(4096 * 4);
    expect("copy from unmapped memory", cgm_gpu_copy(data, (void *)0x10, 64), -EFAULT);
    expect("overlapping copy", cgm_gpu_copy(data, data + 1, 64), -EINVAL);

    struct gpu_args a = { .n = 0 };
    arg_ptr(&a, data); arg_int(&a, 0); arg_int(&a, 5);
    size_t g[3] = { 256, 1, 1 }, l[3] = { 64, 1, 1 }, bad[3] = { 100, 1, 1 };
    expect("bad kernel handle", cgm_gpu_launch(12345, 1, g, l, a.b, a.n), -EBADF);
    expect("0 dimensions", cgm_gpu_launch(k, 0, g, l, a.b, a.n), -EINVAL);
    expect("grid not a multiple of the group", cgm_gpu_launch(k, 1, bad, l, a.b, a.n), -EINVAL);
    expect("too many argument bytes", cgm_gpu_launch(k, 1, g, l, a.b, 1 << 20), -EINVAL);
    expect("too few argument bytes", cgm_gpu_launch(k, 1, g, l, a.b, 8), -EINVAL);
    expect("arguments running into the hidden ones",
           cgm_gpu_launch(k, 1, g, l, a.b, 256), -EINVAL);

    /* a kernel storing through an unmapped pointer */
    struct gpu_args f = { .n = 0 };
    arg_ptr(&f, (void *)0x1000); arg_int(&f, 0); arg_int(&f, 5);
    expect("faulting kernel", cgm_gpu_launch(k, 1, g, l, f.b, f.n), -EFAULT);

    /* the driver still works */
    expect("good launch", cgm_gpu_launch(k, 1, g, l, a.b, a.n), 0);
    expect("wait", cgm_gpu_wait(), 0);
    for (int i = 0; i < 256; i++)
        if (data[i] != 5 + i) {
            printf("data[%d] = %d\n", i, data[i]);
            ok = 0;
            break;
        }
    expect("free", cgm_gpu_free(data), 0);
    expect("double free", cgm_gpu_free(data), -EINVAL);
    return gpu_finish(ok);
}
