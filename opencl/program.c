/* Programs: from OpenCL C source, compiled by tracegen on the host
 * (cgm_gpu_build: the host's clang for gfx600 with the device header, cached
 * by a hash of source and options), or from a code object
 * (cgm_gpu_load_binary). Separate compilation: clCompileProgram leaves a
 * compiled object in the driver (cgm_gpu_compile; the program holds its
 * name), clLinkProgram links such objects into a new program (cgm_gpu_link). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"

#define LOG_BYTES (64u << 10)

/* An empty log of LOG_BYTES, which the driver fills with a string (always
 * terminated). Not calloc's: musl's calloc reads a fresh block of this size
 * a word at a time, some 16,000 guest instructions a build. */
static char *new_log(void)
{
    char *log = malloc(LOG_BYTES);
    if (log)
        log[0] = 0;
    return log;
}

typedef void(CL_CALLBACK *build_fn)(cl_program, void *);

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

static cl_program new_program(cl_context c)
{
    cl_program p = cgm_cl_new(sizeof *p, K_PROGRAM);
    if (p) {
        p->ctx = c;
        p->status = CL_BUILD_NONE;
        c->h.refs++;
    }
    return p;
}

CGM_API cl_program clCreateProgramWithSource(cl_context c, cl_uint count, const char **strings,
                                             const size_t *lengths, cl_int *err)
{
    cgm_cl_lock();
    cl_program p = NULL;
    cl_int e = cgm_cl_valid(c, K_CONTEXT) ? CL_SUCCESS : CL_INVALID_CONTEXT;
    if (e == CL_SUCCESS && (!count || !strings))
        e = CL_INVALID_VALUE;
    size_t total = 0;
    for (cl_uint i = 0; e == CL_SUCCESS && i < count; i++) {
        if (!strings[i])
            e = CL_INVALID_VALUE;
        else
            total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    }
    if (e == CL_SUCCESS && !(p = new_program(c)))
        e = CL_OUT_OF_HOST_MEMORY;
    if (p && !(p->source = malloc(total + 1))) {
        clReleaseProgram(p);
        p = NULL;
        e = CL_OUT_OF_HOST_MEMORY;
    }
    if (p) {
        size_t at = 0;
        for (cl_uint i = 0; i < count; i++) {
            size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
            memcpy(p->source + at, strings[i], n);
            at += n;
        }
        p->source[at] = 0;
        p->source_len = at;
    }
    cgm_cl_unlock();
    CGM_SET_ERR(err, e);
    return p;
}

CGM_API cl_program clCreateProgramWithBinary(cl_context c, cl_uint ndev, const cl_device_id *devs,
                                             const size_t *lengths, const unsigned char **bins,
                                             cl_int *status, cl_int *err)
{
    cgm_cl_lock();
    cl_program p = NULL;
    cl_int e = cgm_cl_valid(c, K_CONTEXT) ? CL_SUCCESS : CL_INVALID_CONTEXT;
    if (e == CL_SUCCESS && (ndev != 1 || !devs || !lengths || !bins))
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS && devs[0] != &cgm_cl_device)
        e = CL_INVALID_DEVICE;
    if (e == CL_SUCCESS && (!lengths[0] || !bins[0])) {
        e = CL_INVALID_VALUE;
        if (status)
            status[0] = CL_INVALID_VALUE;
    }
    if (e == CL_SUCCESS) {
        long h = cgm_gpu_load_binary(bins[0], lengths[0]);
        if (h < 0) {
            e = h == -ENOMEM ? CL_OUT_OF_RESOURCES : CL_INVALID_BINARY;
            if (status)
                status[0] = CL_INVALID_BINARY;
        } else if (!(p = new_program(c))) {
            e = CL_OUT_OF_HOST_MEMORY;
        } else {
            p->handle = h;
            if (status)
                status[0] = CL_SUCCESS;
        }
    }
    cgm_cl_unlock();
    CGM_SET_ERR(err, e);
    return p;
}

CGM_API cl_program clCreateProgramWithBuiltInKernels(cl_context c, cl_uint ndev,
                                                     const cl_device_id *devs, const char *names,
                                                     cl_int *err)
{
    (void)ndev; (void)devs; (void)names;
    CGM_SET_ERR(err, cgm_cl_valid_locked(c, K_CONTEXT) ? CL_INVALID_VALUE : CL_INVALID_CONTEXT);
    return NULL;   /* the device has no built-in kernels */
}

CGM_API cl_int clRetainProgram(cl_program p)
{
    return cgm_cl_retain(p, K_PROGRAM, CL_INVALID_PROGRAM);
}

CGM_API cl_int clReleaseProgram(cl_program p)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_PROGRAM;
    if (cgm_cl_valid(p, K_PROGRAM)) {
        e = CL_SUCCESS;
        if (--p->h.refs == 0) {
            cl_context c = p->ctx;
            free(p->source);
            free(p->options);
            free(p->log);
            cgm_cl_free(p);     /* the driver keeps loaded code objects to the end */
            clReleaseContext(c);
        }
    }
    cgm_cl_unlock();
    return e;
}

static cl_int check_devices(cl_uint ndev, const cl_device_id *devs)
{
    if (!!ndev != !!devs)
        return CL_INVALID_VALUE;
    for (cl_uint i = 0; i < ndev; i++)
        if (devs[i] != &cgm_cl_device)
            return CL_INVALID_DEVICE;
    return CL_SUCCESS;
}

CGM_API cl_int clBuildProgram(cl_program p, cl_uint ndev, const cl_device_id *devs,
                              const char *options, build_fn notify, void *user_data)
{
    cgm_cl_lock();
    cl_int e = cgm_cl_valid(p, K_PROGRAM) ? check_devices(ndev, devs) : CL_INVALID_PROGRAM;
    if (e == CL_SUCCESS && !notify && user_data)
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS && p->kernels)
        e = CL_INVALID_OPERATION;
    if (e == CL_SUCCESS && p->source) {
        free(p->options);
        free(p->log);
        p->options = dup_str(options ? options : "");
        p->log = new_log();
        if (!p->options || !p->log) {
            e = CL_OUT_OF_HOST_MEMORY;
        } else {
            p->status = CL_BUILD_IN_PROGRESS;
            long h = cgm_gpu_build(p->source, p->source_len, p->options, p->log, LOG_BYTES);
            if (h > 0) {
                p->handle = h;
                p->status = CL_BUILD_SUCCESS;
            } else {
                p->status = CL_BUILD_ERROR;
                e = h == -EINVAL ? CL_INVALID_BUILD_OPTIONS : CL_BUILD_PROGRAM_FAILURE;
                if (!p->log[0])
                    strcpy(p->log, h == -ENOSYS ? "no GPU (run under tracegen)"
                                                : "the build failed");
            }
        }
    } else if (e == CL_SUCCESS) {
        p->status = CL_BUILD_SUCCESS;   /* a binary: loaded when created */
        free(p->options);
        p->options = dup_str(options ? options : "");
    }
    cgm_cl_unlock();
    if (notify && (e == CL_SUCCESS || e == CL_BUILD_PROGRAM_FAILURE))
        notify(p, user_data);
    return e;
}

/* A new build log for P and its options; 0, or -1 when out of memory. */
static int start_build(cl_program p, const char *options)
{
    free(p->options);
    free(p->log);
    p->options = dup_str(options ? options : "");
    p->log = new_log();
    return p->options && p->log ? 0 : -1;
}

CGM_API cl_int clCompileProgram(cl_program p, cl_uint ndev, const cl_device_id *devs,
                                const char *options, cl_uint nheaders, const cl_program *headers,
                                const char **names, build_fn notify, void *user_data)
{
    cgm_cl_lock();
    cl_int e = cgm_cl_valid(p, K_PROGRAM) ? check_devices(ndev, devs) : CL_INVALID_PROGRAM;
    if (e == CL_SUCCESS && ((!notify && user_data) || (nheaders && (!headers || !names)) ||
                            (!nheaders && (headers || names))))
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS && (p->kernels || !p->source))
        e = CL_INVALID_OPERATION;   /* kernels made from it, or not made from source */
    struct cgm_gpu_header *hs = NULL;
    if (e == CL_SUCCESS && nheaders && !(hs = calloc(nheaders, sizeof *hs)))
        e = CL_OUT_OF_HOST_MEMORY;
    for (cl_uint i = 0; e == CL_SUCCESS && i < nheaders; i++) {
        if (!cgm_cl_valid(headers[i], K_PROGRAM) || !headers[i]->source || !names[i])
            e = CL_INVALID_VALUE;
        else
            hs[i] = (struct cgm_gpu_header){ names[i], headers[i]->source,
                                             headers[i]->source_len };
    }
    if (e == CL_SUCCESS && start_build(p, options) < 0)
        e = CL_OUT_OF_HOST_MEMORY;
    if (e == CL_SUCCESS) {
        struct cgm_gpu_compile_io io = { .headers = hs, .nheaders = nheaders, .log = p->log,
                                         .log_cap = LOG_BYTES };
        p->status = CL_BUILD_IN_PROGRESS;
        p->object[0] = 0;
        long rc = cgm_gpu_compile(p->source, p->source_len, p->options, &io);
        if (rc == 0) {
            memcpy(p->object, io.object, sizeof p->object);
            p->status = CL_BUILD_SUCCESS;
        } else {
            p->status = CL_BUILD_ERROR;
            e = rc == -EINVAL ? CL_INVALID_COMPILER_OPTIONS : CL_COMPILE_PROGRAM_FAILURE;
            if (!p->log[0])
                strcpy(p->log, rc == -ENOSYS ? "no GPU (run under tracegen)"
                                             : "the compilation failed");
        }
    }
    free(hs);
    cgm_cl_unlock();
    if (notify && (e == CL_SUCCESS || e == CL_COMPILE_PROGRAM_FAILURE))
        notify(p, user_data);
    return e;
}

CGM_API cl_program clLinkProgram(cl_context c, cl_uint ndev, const cl_device_id *devs,
                                 const char *options, cl_uint nprog, const cl_program *progs,
                                 build_fn notify, void *user_data, cl_int *err)
{
    cgm_cl_lock();
    cl_program p = NULL;
    cl_int e = cgm_cl_valid(c, K_CONTEXT) ? check_devices(ndev, devs) : CL_INVALID_CONTEXT;
    if (e == CL_SUCCESS && (!nprog || !progs || (!notify && user_data)))
        e = CL_INVALID_VALUE;
    for (cl_uint i = 0; e == CL_SUCCESS && i < nprog; i++)
        if (!cgm_cl_valid(progs[i], K_PROGRAM))
            e = CL_INVALID_PROGRAM;
        else if (!progs[i]->object[0] || progs[i]->status != CL_BUILD_SUCCESS)
            e = CL_INVALID_OPERATION;   /* not a compiled object */
    char *objects = NULL;
    if (e == CL_SUCCESS && (!(objects = malloc((size_t)nprog * CGM_GPU_OBJECT_NAME)) ||
                            !(p = new_program(c)) || start_build(p, options) < 0))
        e = CL_OUT_OF_HOST_MEMORY;
    if (e == CL_SUCCESS) {
        for (cl_uint i = 0; i < nprog; i++)
            memcpy(objects + (size_t)i * CGM_GPU_OBJECT_NAME, progs[i]->object,
                   CGM_GPU_OBJECT_NAME);
        p->status = CL_BUILD_IN_PROGRESS;
        long h = cgm_gpu_link(objects, nprog, p->options, p->log, LOG_BYTES);
        if (h > 0) {
            p->handle = h;
            p->status = CL_BUILD_SUCCESS;
        } else {
            p->status = CL_BUILD_ERROR;
            e = h == -EINVAL ? CL_INVALID_LINKER_OPTIONS : CL_LINK_PROGRAM_FAILURE;
            if (!p->log[0])
                strcpy(p->log, h == -ENOSYS ? "no GPU (run under tracegen)" : "the link failed");
        }
    }
    free(objects);
    /* a failed link still gives a program, whose log says why; bad options do not */
    if (p && e != CL_SUCCESS && e != CL_LINK_PROGRAM_FAILURE) {
        clReleaseProgram(p);
        p = NULL;
    }
    cgm_cl_unlock();
    if (notify && p)
        notify(p, user_data);
    CGM_SET_ERR(err, e);
    return p;
}

/* The kernel names of P, separated by ';' (NULL when out of memory). */
static char *kernel_names(cl_program p, size_t *count)
{
    size_t cap = 256, len = 0;
    char *s = malloc(cap);
    *count = 0;
    for (unsigned i = 0; s; i++) {
        char name[128];
        long n = cgm_gpu_query(CGM_GPU_Q_KERNEL_NAME, p->handle, i, name, sizeof name);
        if (n < 0)
            break;
        if (len + (size_t)n + 2 > cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) {
                free(s);
                return NULL;
            }
            s = t;
        }
        len += (size_t)sprintf(s + len, "%s%s", i ? ";" : "", name);
        ++*count;
    }
    if (s)
        s[len] = 0;
    return s;
}

CGM_API cl_int clGetProgramInfo(cl_program p, cl_program_info param, size_t size, void *value,
                                size_t *size_ret)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_PROGRAM;
    if (cgm_cl_valid(p, K_PROGRAM)) {
        cl_uint u;
        cl_device_id dev = &cgm_cl_device;
        size_t n, count;
        char *names;
        switch (param) {
        case CL_PROGRAM_REFERENCE_COUNT:
            u = p->h.refs;
            e = cgm_cl_info(&u, sizeof u, size, value, size_ret);
            break;
        case CL_PROGRAM_CONTEXT: e = cgm_cl_info(&p->ctx, sizeof p->ctx, size, value, size_ret); break;
        case CL_PROGRAM_NUM_DEVICES:
            u = 1;
            e = cgm_cl_info(&u, sizeof u, size, value, size_ret);
            break;
        case CL_PROGRAM_DEVICES: e = cgm_cl_info(&dev, sizeof dev, size, value, size_ret); break;
        case CL_PROGRAM_SOURCE:
            e = cgm_cl_info_str(p->source ? p->source : "", size, value, size_ret);
            break;
        case CL_PROGRAM_BINARY_SIZES: {
            long len = p->handle ? cgm_gpu_query(CGM_GPU_Q_PROGRAM_BINARY, p->handle, 0, NULL, 0) : 0;
            n = len > 0 ? (size_t)len : 0;
            e = cgm_cl_info(&n, sizeof n, size, value, size_ret);
            break;
        }
        case CL_PROGRAM_BINARIES:
            e = CL_SUCCESS;
            if (value) {
                unsigned char *const *bins = value;
                if (size < sizeof *bins)
                    e = CL_INVALID_VALUE;
                else if (bins[0] && p->handle &&
                         cgm_gpu_query(CGM_GPU_Q_PROGRAM_BINARY, p->handle, 0, bins[0],
                                       (size_t)cgm_gpu_query(CGM_GPU_Q_PROGRAM_BINARY,
                                                             p->handle, 0, NULL, 0)) < 0)
                    e = CL_INVALID_VALUE;
            }
            if (size_ret)
                *size_ret = sizeof(unsigned char *);
            break;
        case CL_PROGRAM_NUM_KERNELS:
        case CL_PROGRAM_KERNEL_NAMES:
            if (p->status != CL_BUILD_SUCCESS || !p->handle) {
                e = CL_INVALID_PROGRAM_EXECUTABLE;
                break;
            }
            if (!(names = kernel_names(p, &count))) {
                e = CL_OUT_OF_HOST_MEMORY;
                break;
            }
            e = param == CL_PROGRAM_KERNEL_NAMES ? cgm_cl_info_str(names, size, value, size_ret)
                                                 : cgm_cl_info(&count, sizeof count, size, value,
                                                               size_ret);
            free(names);
            break;
        default: e = CL_INVALID_VALUE;
        }
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clGetProgramBuildInfo(cl_program p, cl_device_id dev, cl_program_build_info param,
                                     size_t size, void *value, size_t *size_ret)
{
    cgm_cl_lock();
    cl_int e = !cgm_cl_valid(p, K_PROGRAM) ? CL_INVALID_PROGRAM
             : dev != &cgm_cl_device ? CL_INVALID_DEVICE : CL_SUCCESS;
    if (e == CL_SUCCESS) {
        cl_program_binary_type t = p->handle ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE
                                 : p->object[0] && p->status == CL_BUILD_SUCCESS
                                     ? CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
                                 : p->status == CL_BUILD_SUCCESS ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE
                                                                 : CL_PROGRAM_BINARY_TYPE_NONE;
        switch (param) {
        case CL_PROGRAM_BUILD_STATUS:
            e = cgm_cl_info(&p->status, sizeof p->status, size, value, size_ret);
            break;
        case CL_PROGRAM_BUILD_OPTIONS:
            e = cgm_cl_info_str(p->options ? p->options : "", size, value, size_ret);
            break;
        case CL_PROGRAM_BUILD_LOG: e = cgm_cl_info_str(p->log ? p->log : "", size, value, size_ret); break;
        case CL_PROGRAM_BINARY_TYPE: e = cgm_cl_info(&t, sizeof t, size, value, size_ret); break;
        default: e = CL_INVALID_VALUE;
        }
    }
    cgm_cl_unlock();
    return e;
}
