/* Exclusive prefix sum of N unsigned integers: work-groups of 256 scan
 * their elements and write their totals; the totals are scanned the same
 * way, level by level, and added back down. Exact against the CPU.
 * Usage: scan [N]. */
#include "cl_set.h"

enum { GROUP = 256, LEVELS = 4 };

static struct cl_env env;
static cl_kernel kscan, kadd;

static size_t groups_of(size_t n) { return (n + GROUP - 1) / GROUP; }

/* Scans IN (N elements) into OUT, with the level's totals in TOTALS[0] and
 * the levels above in TOTALS[1...]. */
static void scan(cl_mem in, cl_mem out, cl_mem *totals, cl_mem *scanned, cl_uint n)
{
    size_t global = groups_of(n) * GROUP, local = GROUP;
    CL_ARG(kscan, 0, in);
    CL_ARG(kscan, 1, out);
    CL_ARG(kscan, 2, totals[0]);
    CL_ARG(kscan, 3, n);
    cl_arg(kscan, 4, GROUP * 4, NULL);
    cl_run(&env, kscan, 1, &global, &local);
    if (groups_of(n) == 1)
        return;
    scan(totals[0], scanned[0], totals + 1, scanned + 1, (cl_uint)groups_of(n));
    CL_ARG(kadd, 0, out);
    CL_ARG(kadd, 1, scanned[0]);
    CL_ARG(kadd, 2, n);
    cl_run(&env, kadd, 1, &global, &local);
}

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 10000, 1, 1 << 26, 1, 0);
    uint32_t *v = cl_alloc((size_t)n * 4), *got = cl_alloc((size_t)n * 4);
    for (int i = 0; i < n; i++)
        v[i] = cl_urand() & 0xffff;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "scan");
    kscan = cl_kernel_of(prog, "scan_block");
    kadd = cl_kernel_of(prog, "scan_add");
    cgm_roi_begin();
    cl_mem in = cl_buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)n * 4, v);
    cl_mem out = cl_buffer(&env, CL_MEM_READ_WRITE, (size_t)n * 4, NULL);
    cl_mem totals[LEVELS], scanned[LEVELS];
    size_t len = (size_t)n;
    for (int l = 0; l < LEVELS; l++) {
        len = groups_of(len);
        totals[l] = cl_buffer(&env, CL_MEM_READ_WRITE, len * 4, NULL);
        scanned[l] = cl_buffer(&env, CL_MEM_READ_WRITE, len * 4, NULL);
    }
    scan(in, out, totals, scanned, (cl_uint)n);
    cl_read(&env, out, (size_t)n * 4, got);
    cgm_roi_end();
    uint32_t acc = 0;
    int ok = 1;
    for (int i = 0; i < n; i++) {
        if (got[i] != acc) {
            printf("out[%d]: GPU %u, CPU %u\n", i, got[i], acc);
            ok = 0;
            break;
        }
        acc += v[i];
    }
    return cl_finish_exact("prefix sums", got, (size_t)n * 4, ok);
}
