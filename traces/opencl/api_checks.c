/* The guest OpenCL platform against the OpenCL 1.2 specification: every
 * check compares a call's result with the error code or value the standard
 * prescribes for it (or with the device the platform describes). Prints
 * one line per failed check and, at the end, "N checks, M failed" and PASS
 * or FAIL. Run it under tracegen; natively (another platform) it says SKIP. */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS   /* clGetExtensionFunctionAddress */
#include "cl_common.h"

static int checks, failed;

#define EXPECT(cond, ...)                                          \
    do {                                                           \
        checks++;                                                  \
        if (!(cond)) {                                             \
            failed++;                                              \
            printf("FAIL line %d: ", __LINE__);                    \
            printf(__VA_ARGS__);                                   \
            printf("\n");                                          \
        }                                                          \
    } while (0)
#define EXPECT_ERR(call, want)                                                        \
    do {                                                                              \
        cl_int got_ = (call);                                                         \
        EXPECT(got_ == (want), "%s: %d, the standard says %s (%d)", #call, got_, #want, \
               (int)(want));                                                          \
    } while (0)

static const char *source =
    "typedef struct { int a; float b; int c[2]; } pod;\n"
    "__kernel void ids(__global int *out) {\n"
    "    size_t i = get_global_id(0) - get_global_offset(0);\n"
    "    out[i] = (int)get_global_id(0);\n"
    "}\n"
    "__kernel void ids3(__global int *out) {\n"
    "    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "    size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
    "    out[i] = (int)(get_local_size(0) * get_local_size(1) * get_local_size(2));\n"
    "}\n"
    "__kernel void by_value(__global float *out, pod p, int scale) {\n"
    "    out[0] = (float)(p.a * scale) + p.b + (float)(p.c[0] - p.c[1]);\n"
    "}\n"
    "__kernel void reverse_local(__global const int *in, __global int *out, __local int *tmp) {\n"
    "    size_t l = get_local_id(0), n = get_local_size(0), g = get_group_id(0);\n"
    "    tmp[l] = in[g * n + l];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[g * n + l] = tmp[n - 1 - l];\n"
    "}\n"
    "__kernel void add_one(__global int *v) { v[get_global_id(0)] += ADD; }\n";

static cl_program build(struct cl_env *env, const char *src, const char *options, cl_int *rc)
{
    cl_int e;
    cl_program p = clCreateProgramWithSource(env->ctx, 1, &src, NULL, &e);
    cl_check(e, "clCreateProgramWithSource");
    *rc = clBuildProgram(p, 1, &env->device, options, NULL, NULL);
    return p;
}

static char *build_log(struct cl_env *env, cl_program p)
{
    static char log[1 << 16];
    log[0] = 0;
    clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    return log;
}

static void platform_and_device(struct cl_env *env)
{
    cl_uint n = 0;
    EXPECT_ERR(clGetPlatformIDs(0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetPlatformIDs(0, &env->platform, &n), CL_INVALID_VALUE);
    EXPECT_ERR(clGetPlatformIDs(0, NULL, &n), CL_SUCCESS);
    EXPECT(n == 1, "one platform, not %u", n);
    char s[256];
    size_t len = 0;
    EXPECT_ERR(clGetPlatformInfo(env->platform, CL_PLATFORM_VERSION, 0, NULL, &len), CL_SUCCESS);
    EXPECT_ERR(clGetPlatformInfo(env->platform, CL_PLATFORM_VERSION, len - 1, s, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clGetPlatformInfo(env->platform, CL_PLATFORM_VERSION, sizeof s, s, NULL), CL_SUCCESS);
    EXPECT(!strncmp(s, "OpenCL 1.2 ", 11) && strlen(s) + 1 == len, "version '%s'", s);
    EXPECT_ERR(clGetPlatformInfo(env->platform, 0x7fff, sizeof s, s, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clGetDeviceIDs(env->platform, 0, 1, &env->device, NULL), CL_INVALID_DEVICE_TYPE);
    EXPECT_ERR(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_CPU, 1, &env->device, NULL),
               CL_DEVICE_NOT_FOUND);
    EXPECT_ERR(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_GPU, 1, &env->device, NULL), CL_SUCCESS);
    cl_uint u;
    size_t sz, dims[3];
    cl_ulong ul;
    cl_bool b;
    cl_device_type t;
    clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof t, &t, NULL);
    EXPECT(t == CL_DEVICE_TYPE_GPU, "device type %llu", (unsigned long long)t);
    clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof sz, &sz, NULL);
    EXPECT(sz == 256, "max work-group %zu", sz);
    clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof dims, dims, NULL);
    EXPECT(dims[0] == 256 && dims[2] == 256, "max work-item sizes %zu %zu", dims[0], dims[2]);
    clGetDeviceInfo(env->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ul, &ul, NULL);
    EXPECT(ul == 65536, "local memory %llu", (unsigned long long)ul);
    clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT, sizeof b, &b, NULL);
    EXPECT(b == CL_FALSE, "images %u", b);
    clGetDeviceInfo(env->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof u, &u, NULL);
    EXPECT(u == 8, "compute units %u", u);
    clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof s, s, NULL);
    EXPECT(strstr(s, "cl_khr_fp64") != NULL, "extensions '%s'", s);
    /* handles of another kind: the ICD loader forwards them through their
     * dispatch table (a pointer that is no object at all it would follow,
     * and a platform handle it checks itself) */
    EXPECT_ERR(clGetDeviceInfo((cl_device_id)(void *)env->platform, CL_DEVICE_NAME, sizeof s, s,
                               NULL), CL_INVALID_DEVICE);
    EXPECT_ERR(clGetDeviceInfo(env->device, 0x7fff, sizeof s, s, NULL), CL_INVALID_VALUE);
}

static void contexts_and_queues(struct cl_env *env)
{
    cl_int e;
    EXPECT(clCreateContext(NULL, 0, &env->device, NULL, NULL, &e) == NULL && e == CL_INVALID_VALUE,
           "a context of no device: %d", e);
    cl_device_id bad = (cl_device_id)(void *)env->platform;
    EXPECT(clCreateContext(NULL, 1, &bad, NULL, NULL, &e) == NULL && e == CL_INVALID_DEVICE,
           "a context of a bad device: %d", e);
    cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform, 0 };
    env->ctx = clCreateContext(props, 1, &env->device, NULL, NULL, &e);
    EXPECT(env->ctx && e == CL_SUCCESS, "clCreateContext: %d", e);
    cl_context c2 = clCreateContextFromType(NULL, CL_DEVICE_TYPE_GPU, NULL, NULL, &e);
    EXPECT(c2 && e == CL_SUCCESS, "clCreateContextFromType: %d", e);
    cl_uint refs = 0;
    clRetainContext(c2);
    clGetContextInfo(c2, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL);
    EXPECT(refs == 2, "reference count %u after a retain", refs);
    EXPECT_ERR(clReleaseContext(c2), CL_SUCCESS);
    EXPECT_ERR(clReleaseContext(c2), CL_SUCCESS);
    EXPECT_ERR(clReleaseContext(c2), CL_INVALID_CONTEXT);   /* released: no longer a context */
    EXPECT_ERR(clReleaseContext(NULL), CL_INVALID_CONTEXT);
    EXPECT(clCreateCommandQueue(env->ctx, env->device, 1u << 20, &e) == NULL &&
               e == CL_INVALID_VALUE, "a queue property that does not exist: %d", e);
    cl_command_queue ooo = clCreateCommandQueue(env->ctx, env->device,
                                                CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &e);
    EXPECT(ooo && e == CL_SUCCESS, "an out-of-order queue is accepted: %d", e);
    clReleaseCommandQueue(ooo);
    env->q = clCreateCommandQueue(env->ctx, env->device, CL_QUEUE_PROFILING_ENABLE, &e);
    EXPECT(env->q && e == CL_SUCCESS, "clCreateCommandQueue: %d", e);
    EXPECT_ERR(clFinish((cl_command_queue)(void *)env->ctx), CL_INVALID_COMMAND_QUEUE);
}

static void buffers(struct cl_env *env)
{
    cl_int e;
    int host[256];
    EXPECT(!clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, 0, NULL, &e) && e == CL_INVALID_BUFFER_SIZE,
           "size 0: %d", e);
    EXPECT(!clCreateBuffer(env->ctx, CL_MEM_USE_HOST_PTR, 64, NULL, &e) && e == CL_INVALID_HOST_PTR,
           "USE_HOST_PTR without a pointer: %d", e);
    EXPECT(!clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, 64, host, &e) && e == CL_INVALID_HOST_PTR,
           "a pointer without USE/COPY_HOST_PTR: %d", e);
    EXPECT(!clCreateBuffer(env->ctx, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, host, &e) &&
               e == CL_INVALID_VALUE, "USE_HOST_PTR with COPY_HOST_PTR: %d", e);
    EXPECT(!clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL, &e) &&
               e == CL_INVALID_VALUE, "READ_ONLY with WRITE_ONLY: %d", e);
    for (int i = 0; i < 256; i++)
        host[i] = i;
    cl_mem a = cl_buffer(env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host);
    cl_mem b = cl_buffer(env, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, sizeof host, NULL);
    int out[256];
    EXPECT_ERR(clEnqueueReadBuffer(env->q, a, CL_TRUE, 4, sizeof out, out, 0, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueReadBuffer(env->q, a, CL_TRUE, 0, 0, out, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueReadBuffer(env->q, (cl_mem)(void *)env->q, CL_TRUE, 0, 4, out, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clEnqueueCopyBuffer(env->q, a, a, 0, 64, 128, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT_ERR(clEnqueueCopyBuffer(env->q, a, b, 0, 0, sizeof host, 0, NULL, NULL), CL_SUCCESS);
    EXPECT_ERR(clEnqueueReadBuffer(env->q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(!memcmp(out, host, sizeof out), "a copied buffer reads back as the original");
    /* fill: a 8-byte pattern over the middle */
    const int pat[2] = { -1, 7 };
    EXPECT_ERR(clEnqueueFillBuffer(env->q, b, pat, 3, 0, 24, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueFillBuffer(env->q, b, pat, sizeof pat, 64, 512, 0, NULL, NULL), CL_SUCCESS);
    clEnqueueReadBuffer(env->q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    int fill_ok = 1;
    for (int i = 0; i < 256; i++)
        fill_ok &= out[i] == (i >= 16 && i < 144 ? pat[i & 1] : i);
    EXPECT(fill_ok, "a fill writes its pattern over exactly its range");
    /* sub-buffers: views of the parent */
    cl_buffer_region r = { 128, 256 };
    EXPECT(!clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &(cl_buffer_region){ 4, 64 }, &e) &&
               e == CL_MISALIGNED_SUB_BUFFER_OFFSET, "a misaligned sub-buffer: %d", e);
    EXPECT(!clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &(cl_buffer_region){ 0, 2048 }, &e) &&
               e == CL_INVALID_BUFFER_SIZE, "a sub-buffer past the end: %d", e);
    cl_mem sub = clCreateSubBuffer(a, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &e);
    EXPECT(sub && e == CL_SUCCESS, "clCreateSubBuffer: %d", e);
    int seven[4] = { 70, 71, 72, 73 };
    clEnqueueWriteBuffer(env->q, sub, CL_TRUE, 0, sizeof seven, seven, 0, NULL, NULL);
    clEnqueueReadBuffer(env->q, a, CL_TRUE, 128, sizeof seven, out, 0, NULL, NULL);
    EXPECT(!memcmp(out, seven, sizeof seven), "a write through a sub-buffer shows in its parent");
    size_t off = 0;
    clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof off, &off, NULL);
    EXPECT(off == 128, "CL_MEM_OFFSET %zu", off);
    clReleaseMemObject(sub);
    /* map/unmap: the host's stores reach the device and back */
    int *m = clEnqueueMapBuffer(env->q, b, CL_TRUE, CL_MAP_WRITE, 0, sizeof host, 0, NULL, NULL, &e);
    EXPECT(m && e == CL_SUCCESS, "clEnqueueMapBuffer: %d", e);
    if (m)
        for (int i = 0; i < 256; i++)
            m[i] = 1000 + i;
    cl_uint maps = 0;
    clGetMemObjectInfo(b, CL_MEM_MAP_COUNT, sizeof maps, &maps, NULL);
    EXPECT(maps == 1, "map count %u", maps);
    EXPECT_ERR(clEnqueueUnmapMemObject(env->q, b, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueUnmapMemObject(env->q, b, m, 0, NULL, NULL), CL_SUCCESS);
    clEnqueueReadBuffer(env->q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    EXPECT(out[0] == 1000 && out[255] == 1255, "mapped stores read back: %d %d", out[0], out[255]);
    /* a rectangle: 3 rows of 4 ints from a 16-int-wide buffer, from int 34
     * (which, with 35, the sub-buffer's write above made 72 and 73) */
    size_t bo[3] = { 8, 2, 0 }, ho[3] = { 0, 0, 0 }, reg[3] = { 16, 3, 1 };
    int rect[12];
    EXPECT_ERR(clEnqueueReadBufferRect(env->q, a, CL_TRUE, bo, ho, reg, 64, 0, 16, 0, rect, 0, NULL,
                                       NULL), CL_SUCCESS);
    EXPECT(rect[0] == 72 && rect[1] == 73 && rect[3] == 37 && rect[4] == 50 && rect[11] == 69,
           "rectangle read: %d %d %d %d %d", rect[0], rect[1], rect[3], rect[4], rect[11]);
    EXPECT_ERR(clReleaseMemObject(a), CL_SUCCESS);
    EXPECT_ERR(clReleaseMemObject(a), CL_INVALID_MEM_OBJECT);
    clReleaseMemObject(b);
    cl_image_desc desc = { .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 4, .image_height = 4 };
    EXPECT(!clCreateImage(env->ctx, CL_MEM_READ_ONLY, &(cl_image_format){ CL_RGBA, CL_FLOAT }, &desc,
                          NULL, &e) && e == CL_INVALID_OPERATION,
           "an image on a device without images: %d", e);
    EXPECT(!clCreateSampler(env->ctx, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &e) &&
               e == CL_INVALID_OPERATION, "a sampler: %d", e);
}

static void programs_and_kernels(struct cl_env *env)
{
    cl_int e, rc;
    cl_program p = build(env, "__kernel void k(__global int *x) { x[0] = undeclared; }", "", &rc);
    EXPECT_ERR(rc, CL_BUILD_PROGRAM_FAILURE);
    const char *log = build_log(env, p);
    EXPECT(strstr(log, "undeclared") && strstr(log, "error"), "the build log names the error: '%s'",
           log);
    cl_build_status st;
    clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, NULL);
    EXPECT(st == CL_BUILD_ERROR, "build status %d", st);
    EXPECT(!clCreateKernel(p, "k", &e) && e == CL_INVALID_PROGRAM_EXECUTABLE, "kernel of a failed build: %d",
           e);
    clReleaseProgram(p);
    p = build(env, source, "-o /tmp/x", &rc);
    EXPECT_ERR(rc, CL_INVALID_BUILD_OPTIONS);
    EXPECT(strstr(build_log(env, p), "-o") != NULL, "the log names the option: '%s'", build_log(env, p));
    clReleaseProgram(p);
    p = build(env, "__kernel void k(__global int *x) { printf(\"%d\", x[0]); }", "", &rc);
    EXPECT_ERR(rc, CL_BUILD_PROGRAM_FAILURE);
    EXPECT(strstr(build_log(env, p), "printf") != NULL, "the log names printf: '%s'", build_log(env, p));
    clReleaseProgram(p);

    p = build(env, source, "-D ADD=3 -cl-fast-relaxed-math -cl-kernel-arg-info", &rc);
    EXPECT_ERR(rc, CL_SUCCESS);
    size_t nk = 0;
    char names[256];
    clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL);
    clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
    EXPECT(nk == 5 && strstr(names, "reverse_local") && strstr(names, "ids3"), "%zu kernels: %s", nk,
           names);
    EXPECT(!clCreateKernel(p, "nothing", &e) && e == CL_INVALID_KERNEL_NAME, "no such kernel: %d", e);
    cl_kernel ids = cl_kernel_of(p, "ids"), ids3 = cl_kernel_of(p, "ids3");
    cl_kernel byv = cl_kernel_of(p, "by_value"), rev = cl_kernel_of(p, "reverse_local");
    cl_kernel add = cl_kernel_of(p, "add_one");
    cl_mem out = cl_buffer(env, CL_MEM_READ_WRITE, 4096, NULL);
    size_t g = 64, l = 16, off = 1000;
    EXPECT_ERR(clEnqueueNDRangeKernel(env->q, ids, 1, NULL, &g, &l, 0, NULL, NULL),
               CL_INVALID_KERNEL_ARGS);
    EXPECT_ERR(clSetKernelArg(ids, 1, sizeof out, &out), CL_INVALID_ARG_INDEX);
    EXPECT_ERR(clSetKernelArg(ids, 0, 4, &out), CL_INVALID_ARG_SIZE);
    EXPECT_ERR(clSetKernelArg(ids, 0, sizeof out, &p), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clSetKernelArg(ids, 0, sizeof out, &out), CL_SUCCESS);
    EXPECT_ERR(clEnqueueNDRangeKernel(env->q, ids, 0, NULL, &g, &l, 0, NULL, NULL),
               CL_INVALID_WORK_DIMENSION);
    EXPECT_ERR(clEnqueueNDRangeKernel(env->q, ids, 4, NULL, &g, &l, 0, NULL, NULL),
               CL_INVALID_WORK_DIMENSION);
    size_t l3 = 24, l512 = 512, g512 = 512;
    EXPECT_ERR(clEnqueueNDRangeKernel(env->q, ids, 1, NULL, &g, &l3, 0, NULL, NULL),
               CL_INVALID_WORK_GROUP_SIZE);
    EXPECT_ERR(clEnqueueNDRangeKernel(env->q, ids, 1, NULL, &g512, &l512, 0, NULL, NULL),
               CL_INVALID_WORK_ITEM_SIZE);
    EXPECT_ERR(clEnqueueNDRangeKernel(env->q, ids, 1, &off, &g, &l, 0, NULL, NULL), CL_SUCCESS);
    int v[1024];
    clEnqueueReadBuffer(env->q, out, CL_TRUE, 0, 64 * 4, v, 0, NULL, NULL);
    EXPECT(v[0] == 1000 && v[63] == 1063, "global offset 1000: ids %d .. %d", v[0], v[63]);
    /* three dimensions with a NULL local size: the platform picks a size that divides the grid */
    size_t g3[3] = { 8, 4, 6 };
    clSetKernelArg(ids3, 0, sizeof out, &out);
    EXPECT_ERR(clEnqueueNDRangeKernel(env->q, ids3, 3, NULL, g3, NULL, 0, NULL, NULL), CL_SUCCESS);
    clEnqueueReadBuffer(env->q, out, CL_TRUE, 0, 8 * 4 * 6 * 4, v, 0, NULL, NULL);
    EXPECT(v[0] > 1 && v[0] <= 256 && (8 * 4 * 6) % v[0] == 0 && v[191] == v[0],
           "3-D NULL local size: %d work-items per group", v[0]);
    /* by value: a struct and an int */
    struct { cl_int a; cl_float b; cl_int c[2]; } pod = { 3, 0.5f, { 10, 4 } };
    int scale = 5;
    EXPECT_ERR(clSetKernelArg(byv, 1, sizeof pod - 4, &pod), CL_INVALID_ARG_SIZE);
    EXPECT_ERR(clSetKernelArg(byv, 1, sizeof pod, NULL), CL_INVALID_ARG_VALUE);
    clSetKernelArg(byv, 0, sizeof out, &out);
    clSetKernelArg(byv, 1, sizeof pod, &pod);
    clSetKernelArg(byv, 2, sizeof scale, &scale);
    EXPECT_ERR(clEnqueueTask(env->q, byv, 0, NULL, NULL), CL_SUCCESS);
    float f = 0;
    clEnqueueReadBuffer(env->q, out, CL_TRUE, 0, 4, &f, 0, NULL, NULL);
    EXPECT(f == 3 * 5 + 0.5f + 6, "struct by value: %g", (double)f);
    /* __local: its size is the argument's */
    int in[256];
    for (int i = 0; i < 256; i++)
        in[i] = i;
    cl_mem min = cl_buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in);
    EXPECT_ERR(clSetKernelArg(rev, 2, 64 * 4, in), CL_INVALID_ARG_VALUE);
    EXPECT_ERR(clSetKernelArg(rev, 2, 0, NULL), CL_INVALID_ARG_SIZE);
    clSetKernelArg(rev, 0, sizeof min, &min);
    clSetKernelArg(rev, 1, sizeof out, &out);
    clSetKernelArg(rev, 2, 64 * 4, NULL);
    size_t g256 = 256, l64 = 64;
    EXPECT_ERR(clEnqueueNDRangeKernel(env->q, rev, 1, NULL, &g256, &l64, 0, NULL, NULL), CL_SUCCESS);
    clEnqueueReadBuffer(env->q, out, CL_TRUE, 0, sizeof in, v, 0, NULL, NULL);
    EXPECT(v[0] == 63 && v[63] == 0 && v[64] == 127 && v[255] == 192, "__local reversal: %d %d %d %d",
           v[0], v[63], v[64], v[255]);
    cl_ulong lm = 0;
    clGetKernelWorkGroupInfo(rev, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL);
    EXPECT(lm >= 256, "CL_KERNEL_LOCAL_MEM_SIZE %llu with 256 bytes of __local argument",
           (unsigned long long)lm);
    size_t wg = 0;
    clGetKernelWorkGroupInfo(rev, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    EXPECT(wg >= 64 && wg <= 256, "CL_KERNEL_WORK_GROUP_SIZE %zu", wg);
    char argname[64] = "";
    clGetKernelArgInfo(rev, 2, CL_KERNEL_ARG_NAME, sizeof argname, argname, NULL);
    EXPECT(!strcmp(argname, "tmp"), "argument 2 is '%s'", argname);
    /* -D reached the compiler */
    clSetKernelArg(add, 0, sizeof min, &min);
    clEnqueueNDRangeKernel(env->q, add, 1, NULL, &g256, NULL, 0, NULL, NULL);
    clEnqueueReadBuffer(env->q, min, CL_TRUE, 0, sizeof in, v, 0, NULL, NULL);
    EXPECT(v[0] == 3 && v[255] == 258, "-D ADD=3: %d %d", v[0], v[255]);

    /* the binary round trip */
    size_t bsize = 0;
    clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bsize, &bsize, NULL);
    unsigned char *bin = malloc(bsize);
    unsigned char *bins[1] = { bin };
    EXPECT(bin && bsize > 64 && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == 0 &&
               !memcmp(bin, "\177ELF", 4), "CL_PROGRAM_BINARIES gives an ELF code object of %zu bytes",
           bsize);
    cl_int bst;
    const unsigned char *cbins[1] = { bin };
    cl_program pb = clCreateProgramWithBinary(env->ctx, 1, &env->device, &bsize, cbins, &bst, &e);
    EXPECT(pb && e == CL_SUCCESS && bst == CL_SUCCESS, "clCreateProgramWithBinary: %d %d", e, bst);
    EXPECT_ERR(clBuildProgram(pb, 1, &env->device, NULL, NULL, NULL), CL_SUCCESS);
    cl_kernel ids_b = cl_kernel_of(pb, "ids");
    clSetKernelArg(ids_b, 0, sizeof out, &out);
    size_t off5 = 5;
    clEnqueueNDRangeKernel(env->q, ids_b, 1, &off5, &g, NULL, 0, NULL, NULL);
    clEnqueueReadBuffer(env->q, out, CL_TRUE, 0, 4, v, 0, NULL, NULL);
    EXPECT(v[0] == 5, "the kernel from the binary: %d", v[0]);
    bin[1] = 'X';
    EXPECT(!clCreateProgramWithBinary(env->ctx, 1, &env->device, &bsize, cbins, &bst, &e) &&
               e == CL_INVALID_BINARY && bst == CL_INVALID_BINARY, "a damaged binary: %d %d", e, bst);
    free(bin);
    EXPECT_ERR(clBuildProgram(p, 1, &env->device, "", NULL, NULL), CL_INVALID_OPERATION);
    clReleaseKernel(ids_b);
    clReleaseProgram(pb);
    clReleaseKernel(ids);
    clReleaseKernel(ids3);
    clReleaseKernel(byv);
    clReleaseKernel(rev);
    clReleaseKernel(add);
    EXPECT_ERR(clReleaseKernel(add), CL_INVALID_KERNEL);
    clReleaseProgram(p);
    clReleaseMemObject(out);
    clReleaseMemObject(min);
}

static int calls[4], ncalls;
static void CL_CALLBACK on_event(cl_event ev, cl_int status, void *data)
{
    (void)ev;
    if (ncalls < 4)
        calls[ncalls++] = status == CL_COMPLETE ? *(int *)data : -1;
}

static void events(struct cl_env *env)
{
    cl_int e;
    int a[64], b[64];
    for (int i = 0; i < 64; i++)
        a[i] = i * 3, b[i] = 0;
    cl_mem m = cl_buffer(env, CL_MEM_READ_WRITE, sizeof a, NULL);
    cl_event user = clCreateUserEvent(env->ctx, &e);
    EXPECT(user && e == CL_SUCCESS, "clCreateUserEvent: %d", e);
    cl_event w, r;
    /* the write waits for the user event; the read, behind it in order, too */
    EXPECT_ERR(clEnqueueWriteBuffer(env->q, m, CL_FALSE, 0, sizeof a, a, 1, &user, &w), CL_SUCCESS);
    EXPECT_ERR(clEnqueueReadBuffer(env->q, m, CL_FALSE, 0, sizeof b, b, 0, NULL, &r), CL_SUCCESS);
    static int one = 1, two = 2;
    clSetEventCallback(w, CL_COMPLETE, on_event, &one);
    clSetEventCallback(r, CL_COMPLETE, on_event, &two);
    cl_int st = 0;
    clGetEventInfo(w, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    EXPECT(st == CL_SUBMITTED || st == CL_QUEUED, "a held-back write is not running: %d", st);
    EXPECT(b[5] == 0 && ncalls == 0, "nothing ran before the user event");
    EXPECT_ERR(clSetUserEventStatus(w, CL_COMPLETE), CL_INVALID_EVENT);
    EXPECT_ERR(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    EXPECT_ERR(clSetUserEventStatus(user, CL_COMPLETE), CL_INVALID_OPERATION);
    EXPECT_ERR(clWaitForEvents(1, &r), CL_SUCCESS);
    EXPECT(b[5] == 15 && b[63] == 189, "the read after the write: %d %d", b[5], b[63]);
    EXPECT(ncalls == 2 && calls[0] == 1 && calls[1] == 2, "callbacks in completion order: %d %d %d",
           ncalls, calls[0], calls[1]);
    cl_ulong t[4];
    for (int i = 0; i < 4; i++)
        clGetEventProfilingInfo(r, CL_PROFILING_COMMAND_QUEUED + (cl_profiling_info)i, sizeof t[i],
                                &t[i], NULL);
    EXPECT(t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3] && t[0] > 0,
           "profiling times in order: %llu %llu %llu %llu", (unsigned long long)t[0],
           (unsigned long long)t[1], (unsigned long long)t[2], (unsigned long long)t[3]);
    EXPECT_ERR(clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_END, 8, t, NULL),
               CL_PROFILING_INFO_NOT_AVAILABLE);
    cl_uint refs = 0;
    clRetainEvent(r);
    clGetEventInfo(r, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, NULL);
    EXPECT(refs == 2, "event reference count %u after a retain", refs);
    clReleaseEvent(r);
    cl_command_type type = 0;
    clGetEventInfo(r, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL);
    EXPECT(type == CL_COMMAND_READ_BUFFER, "command type %x", type);
    /* a failed wait list fails a blocking command */
    cl_event bad = clCreateUserEvent(env->ctx, &e);
    clSetUserEventStatus(bad, -1234);
    EXPECT_ERR(clEnqueueReadBuffer(env->q, m, CL_TRUE, 0, 4, b, 1, &bad, NULL),
               CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    cl_event mk;
    EXPECT_ERR(clEnqueueMarkerWithWaitList(env->q, 0, NULL, &mk), CL_SUCCESS);
    EXPECT_ERR(clWaitForEvents(1, &mk), CL_SUCCESS);
    EXPECT_ERR(clWaitForEvents(0, NULL), CL_INVALID_VALUE);
    EXPECT_ERR(clEnqueueWriteBuffer(env->q, m, CL_TRUE, 0, 4, a, 1, NULL, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
    EXPECT_ERR(clFlush(env->q), CL_SUCCESS);
    EXPECT_ERR(clFinish(env->q), CL_SUCCESS);
    clReleaseEvent(mk);
    clReleaseEvent(bad);
    clReleaseEvent(w);
    clReleaseEvent(r);
    clReleaseEvent(user);
    EXPECT_ERR(clReleaseEvent(user), CL_INVALID_EVENT);
    clReleaseMemObject(m);
}

/* A kernel held back by a user event runs with the arguments it was
 * enqueued with (the standard: clSetKernelArg after the enqueue does not
 * change it), after the commands before it and before those after it. */
static void held_kernel(struct cl_env *env)
{
    cl_int e, rc;
    cl_program p = build(env, "__kernel void put(__global int *v, int x) { v[get_global_id(0)] = x; }",
                         "", &rc);
    cl_kernel k = cl_kernel_of(p, "put");
    cl_mem m = cl_buffer(env, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL);
    cl_event user = clCreateUserEvent(env->ctx, &e);
    int one = 1, two = 2, got[64] = { 0 };
    size_t g = 64;
    clSetKernelArg(k, 0, sizeof m, &m);
    clSetKernelArg(k, 1, sizeof one, &one);
    EXPECT_ERR(clEnqueueNDRangeKernel(env->q, k, 1, NULL, &g, NULL, 1, &user, NULL), CL_SUCCESS);
    clSetKernelArg(k, 1, sizeof two, &two);    /* changes only the next launch */
    cl_event r;
    EXPECT_ERR(clEnqueueReadBuffer(env->q, m, CL_FALSE, 0, sizeof got, got, 0, NULL, &r), CL_SUCCESS);
    EXPECT(got[0] == 0, "nothing ran while the kernel waited: %d", got[0]);
    clSetUserEventStatus(user, CL_COMPLETE);
    EXPECT_ERR(clWaitForEvents(1, &r), CL_SUCCESS);
    EXPECT(got[0] == 1 && got[63] == 1, "the held kernel ran with its own arguments: %d %d", got[0],
           got[63]);
    EXPECT_ERR(clEnqueueNDRangeKernel(env->q, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
    EXPECT_ERR(clEnqueueReadBuffer(env->q, m, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(got[5] == 2, "the next launch takes the new argument: %d", got[5]);
    clReleaseEvent(r);
    clReleaseEvent(user);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* Linked with libcgmopencl.a (no ICD loader between): handles that are no
 * object at all, or of another kind, are the library's to refuse. */
static void bad_handles(struct cl_env *env)
{
    char junk[64] = "not an object";
    EXPECT_ERR(clGetPlatformInfo((cl_platform_id)(void *)junk, CL_PLATFORM_NAME, 8, junk, NULL),
               CL_INVALID_PLATFORM);
    EXPECT_ERR(clGetPlatformInfo((cl_platform_id)(void *)env->device, CL_PLATFORM_NAME, 8, junk,
                                 NULL), CL_INVALID_PLATFORM);
    EXPECT_ERR(clGetDeviceInfo((cl_device_id)(void *)junk, CL_DEVICE_NAME, 8, junk, NULL),
               CL_INVALID_DEVICE);
    EXPECT_ERR(clRetainContext((cl_context)(void *)junk), CL_INVALID_CONTEXT);
    EXPECT_ERR(clRetainCommandQueue((cl_command_queue)(void *)junk), CL_INVALID_COMMAND_QUEUE);
    EXPECT_ERR(clRetainMemObject((cl_mem)(void *)junk), CL_INVALID_MEM_OBJECT);
    EXPECT_ERR(clRetainProgram((cl_program)(void *)env->q), CL_INVALID_PROGRAM);
    EXPECT_ERR(clRetainKernel((cl_kernel)(void *)junk), CL_INVALID_KERNEL);
    EXPECT_ERR(clRetainEvent((cl_event)(void *)junk), CL_INVALID_EVENT);
    EXPECT_ERR(clReleaseSampler((cl_sampler)(void *)junk), CL_INVALID_SAMPLER);
}

/* clCompileProgram and clLinkProgram: a kernel in one unit calls a function
 * defined in another, both including a header given as input_headers. */
static void separate_compilation(struct cl_env *env)
{
    static const char *header = "#define SCALE 3\nint twice(int x);\n";
    static const char *lib_src = "#include \"util.h\"\nint twice(int x) { return 2 * x; }\n";
    static const char *kern_src =
        "#include \"util.h\"\n"
        "__kernel void tw(__global int *v) { int i = (int)get_global_id(0); v[i] = twice(i) * SCALE; }\n";
    cl_int e;
    cl_program hdr = clCreateProgramWithSource(env->ctx, 1, &header, NULL, &e);
    cl_program lib = clCreateProgramWithSource(env->ctx, 1, &lib_src, NULL, &e);
    cl_program kern = clCreateProgramWithSource(env->ctx, 1, &kern_src, NULL, &e);
    const char *hname = "util.h";
    cl_bool linker = CL_FALSE;
    clGetDeviceInfo(env->device, CL_DEVICE_LINKER_AVAILABLE, sizeof linker, &linker, NULL);
    EXPECT(linker == CL_TRUE, "CL_DEVICE_LINKER_AVAILABLE %u", linker);

    EXPECT_ERR(clCompileProgram(NULL, 1, &env->device, "", 0, NULL, NULL, NULL, NULL),
               CL_INVALID_PROGRAM);
    EXPECT_ERR(clCompileProgram(lib, 1, &env->device, "", 1, NULL, &hname, NULL, NULL),
               CL_INVALID_VALUE);
    EXPECT_ERR(clCompileProgram(lib, 1, &env->device, "-o /tmp/x", 1, &hdr, &hname, NULL, NULL),
               CL_INVALID_COMPILER_OPTIONS);
    EXPECT(strstr(build_log(env, lib), "-o") != NULL, "the log names the option: '%s'",
           build_log(env, lib));
    /* without the header the include fails, and the log says which file */
    EXPECT_ERR(clCompileProgram(kern, 1, &env->device, "", 0, NULL, NULL, NULL, NULL),
               CL_COMPILE_PROGRAM_FAILURE);
    EXPECT(strstr(build_log(env, kern), "util.h") != NULL, "the log names the header: '%s'",
           build_log(env, kern));

    EXPECT_ERR(clCompileProgram(lib, 1, &env->device, "", 1, &hdr, &hname, NULL, NULL), CL_SUCCESS);
    EXPECT_ERR(clCompileProgram(kern, 0, NULL, "-cl-fast-relaxed-math", 1, &hdr, &hname, NULL, NULL),
               CL_SUCCESS);
    cl_program_binary_type bt = 0;
    clGetProgramBuildInfo(kern, env->device, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL);
    EXPECT(bt == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "binary type %u", (unsigned)bt);
    EXPECT(!clCreateKernel(kern, "tw", &e) && e == CL_INVALID_PROGRAM_EXECUTABLE,
           "a kernel of a compiled object: %d", e);

    /* link errors */
    cl_program both[2] = { kern, lib };
    EXPECT(!clLinkProgram(env->ctx, 1, &env->device, "", 0, both, NULL, NULL, &e) &&
               e == CL_INVALID_VALUE, "a link of nothing: %d", e);
    EXPECT(!clLinkProgram(NULL, 1, &env->device, "", 2, both, NULL, NULL, &e) &&
               e == CL_INVALID_CONTEXT, "a link in no context: %d", e);
    EXPECT(!clLinkProgram(env->ctx, 1, &env->device, "", 1, &hdr, NULL, NULL, &e) &&
               e == CL_INVALID_OPERATION, "a link of a program never compiled: %d", e);
    EXPECT(!clLinkProgram(env->ctx, 1, &env->device, "-create-library", 2, both, NULL, NULL, &e) &&
               e == CL_INVALID_LINKER_OPTIONS, "a library: %d", e);
    cl_program alone = clLinkProgram(env->ctx, 1, &env->device, "", 1, &kern, NULL, NULL, &e);
    EXPECT(alone && e == CL_LINK_PROGRAM_FAILURE, "twice() defined nowhere: %p %d", (void *)alone, e);
    if (alone) {
        cl_build_status st = CL_BUILD_NONE;
        clGetProgramBuildInfo(alone, env->device, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, NULL);
        EXPECT(st == CL_BUILD_ERROR && strstr(build_log(env, alone), "twice"),
               "the failed link's status %d and log '%s'", st, build_log(env, alone));
        clReleaseProgram(alone);
    }

    /* the linked program runs */
    cl_program linked = clLinkProgram(env->ctx, 1, &env->device, "", 2, both, NULL, NULL, &e);
    EXPECT(linked && e == CL_SUCCESS, "the link: %d, log '%s'", e, linked ? build_log(env, linked) : "");
    if (linked && e == CL_SUCCESS) {
        cl_kernel k = cl_kernel_of(linked, "tw");
        int out[64];
        cl_mem m = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE, sizeof out, NULL, &e);
        clSetKernelArg(k, 0, sizeof m, &m);
        size_t g = 64;
        EXPECT_ERR(clEnqueueNDRangeKernel(env->q, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
        clEnqueueReadBuffer(env->q, m, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
        int ok = 1;
        for (int i = 0; i < 64; i++)
            ok &= out[i] == 6 * i;
        EXPECT(ok, "twice(i) * SCALE across two units: out[5] = %d, want 30", out[5]);
        clReleaseMemObject(m);
        clReleaseKernel(k);
        clReleaseProgram(linked);
    }
    clReleaseProgram(hdr);
    clReleaseProgram(lib);
    clReleaseProgram(kern);
}

int main(void)
{
    struct cl_env env;
    char name[64] = "";
    if (clGetPlatformIDs(1, &env.platform, NULL) != CL_SUCCESS ||
        clGetPlatformInfo(env.platform, CL_PLATFORM_NAME, sizeof name, name, NULL) != CL_SUCCESS ||
        strcmp(name, "cgmtrace")) {
        puts("SKIP: not the cgmtrace platform (run under tracegen)");
        return 0;
    }
    platform_and_device(&env);
    contexts_and_queues(&env);
    buffers(&env);
    programs_and_kernels(&env);
    separate_compilation(&env);
    events(&env);
    held_kernel(&env);
    if (!clGetExtensionFunctionAddress("clGetICDLoaderInfoOCLICD"))   /* ocl-icd answers it */
        bad_handles(&env);
    clReleaseCommandQueue(env.q);
    EXPECT_ERR(clReleaseContext(env.ctx), CL_SUCCESS);
    printf("%d checks, %d failed\n%s\n", checks, failed, failed ? "FAIL" : "PASS");
    return failed != 0;
}
