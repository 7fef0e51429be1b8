/* Kernels: their arguments laid out as the kernarg segment (the offsets
 * and sizes of the code object's metadata, from the driver), and NDRange
 * launches. A buffer argument's slot holds the buffer's address; a __local
 * one the bytes wanted (the driver turns them into an LDS offset). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"

static cl_kernel make_kernel(cl_program p, const char *name, cl_int *err)
{
    long h = cgm_gpu_kernel(p->handle, name);
    if (h < 0) {
        *err = h == -ENOENT || h == -EFAULT ? CL_INVALID_KERNEL_NAME : CL_OUT_OF_RESOURCES;
        return NULL;
    }
    cl_kernel k = cgm_cl_new(sizeof *k, K_KERNEL);
    if (!k) {
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    k->program = p;
    k->handle = h;
    snprintf(k->name, sizeof k->name, "%s", name);
    /* the arguments' descriptions, the kernarg segment and the set flags in one block */
    if (cgm_gpu_query(CGM_GPU_Q_KERNEL_INFO, h, 0, &k->info, sizeof k->info) >= 0) {
        size_t descs = ((k->info.nargs + 1) * sizeof *k->args + 15) & ~(size_t)15;
        size_t segment = ((size_t)k->info.args_bytes + 15) & ~(size_t)15;
        k->args = calloc(1, descs + segment + 16 + k->info.nargs + 1);
        if (k->args) {
            k->argbuf = (unsigned char *)k->args + descs;
            k->argset = k->argbuf + segment + 16;
        }
    }
    if (!k->args) {
        cgm_cl_free(k);
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    for (unsigned i = 0; i < k->info.nargs; i++)
        if (cgm_gpu_query(CGM_GPU_Q_KERNEL_ARG, h, i, &k->args[i], sizeof k->args[i]) < 0) {
            free(k->args);
            cgm_cl_free(k);
            *err = CL_OUT_OF_RESOURCES;
            return NULL;
        }
    p->h.refs++;
    p->kernels++;
    *err = CL_SUCCESS;
    return k;
}

CGM_API cl_kernel clCreateKernel(cl_program p, const char *name, cl_int *err)
{
    cgm_cl_lock();
    cl_kernel k = NULL;
    cl_int e = cgm_cl_valid(p, K_PROGRAM) ? CL_SUCCESS : CL_INVALID_PROGRAM;
    if (e == CL_SUCCESS && (p->status != CL_BUILD_SUCCESS || !p->handle))
        e = CL_INVALID_PROGRAM_EXECUTABLE;
    if (e == CL_SUCCESS && !name)
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS)
        k = make_kernel(p, name, &e);
    cgm_cl_unlock();
    CGM_SET_ERR(err, e);
    return k;
}

CGM_API cl_int clReleaseKernel(cl_kernel k);

CGM_API cl_int clCreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *kernels,
                                        cl_uint *n_ret)
{
    cgm_cl_lock();
    cl_int e = cgm_cl_valid(p, K_PROGRAM) ? CL_SUCCESS : CL_INVALID_PROGRAM;
    if (e == CL_SUCCESS && (p->status != CL_BUILD_SUCCESS || !p->handle))
        e = CL_INVALID_PROGRAM_EXECUTABLE;
    cl_uint count = 0;
    char name[128];
    while (e == CL_SUCCESS &&
           cgm_gpu_query(CGM_GPU_Q_KERNEL_NAME, p->handle, count, name, sizeof name) > 0)
        count++;
    if (e == CL_SUCCESS && kernels && n < count)
        e = CL_INVALID_VALUE;
    for (cl_uint i = 0; e == CL_SUCCESS && kernels && i < count; i++) {
        cgm_gpu_query(CGM_GPU_Q_KERNEL_NAME, p->handle, i, name, sizeof name);
        kernels[i] = make_kernel(p, name, &e);
        if (e != CL_SUCCESS)
            while (i--)
                clReleaseKernel(kernels[i]);
    }
    if (e == CL_SUCCESS && n_ret)
        *n_ret = count;
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clRetainKernel(cl_kernel k)
{
    return cgm_cl_retain(k, K_KERNEL, CL_INVALID_KERNEL);
}

CGM_API cl_int clReleaseKernel(cl_kernel k)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_KERNEL;
    if (cgm_cl_valid(k, K_KERNEL)) {
        e = CL_SUCCESS;
        if (--k->h.refs == 0) {
            cl_program p = k->program;
            free(k->args);   /* with argbuf and argset */
            cgm_cl_free(k);
            p->kernels--;
            clReleaseProgram(p);
        }
    }
    cgm_cl_unlock();
    return e;
}

/* Not serialised against itself per kernel (OpenCL 1.2 leaves concurrent
 * calls on one kernel undefined), but it takes the lock: a buffer
 * argument is looked up among the live objects, which other threads change. */
static __attribute__((noinline)) cl_int set_arg(cl_kernel k, cl_uint index, size_t size,
                                                const void *value)
{
    cgm_cl_lock();
    cl_int e = cgm_cl_valid(k, K_KERNEL) ? CL_SUCCESS : CL_INVALID_KERNEL;
    if (e == CL_SUCCESS && index >= k->info.nargs)
        e = CL_INVALID_ARG_INDEX;
    if (e == CL_SUCCESS) {
        const struct cgm_gpu_kernel_arg *a = &k->args[index];
        unsigned char *slot = k->argbuf + a->offset;
        uint64_t v = 0;
        switch (a->kind) {
        case CGM_GPU_ARG_LOCAL:
            if (value)
                e = CL_INVALID_ARG_VALUE;
            else if (!size || size > cgm_cl_device.info.lds_bytes)
                e = CL_INVALID_ARG_SIZE;
            else
                v = size;
            break;
        case CGM_GPU_ARG_GLOBAL:
            if (size != sizeof(cl_mem))
                e = CL_INVALID_ARG_SIZE;
            else if (value && *(const cl_mem *)value) {
                cl_mem m = *(const cl_mem *)value;
                if (!cgm_cl_valid(m, K_MEM))
                    e = CL_INVALID_MEM_OBJECT;
                else
                    v = (uint64_t)(uintptr_t)m->addr;
            }
            break;
        default:
            if (!value)
                e = CL_INVALID_ARG_VALUE;
            else if (size != a->size)
                e = CL_INVALID_ARG_SIZE;
            break;
        }
        if (e == CL_SUCCESS) {
            /* straight into the kernarg segment the launch passes; the
             * usual sizes as one store, not a call to memcpy */
            const void *from = a->kind == CGM_GPU_ARG_VALUE ? value : &v;
            size_t bytes = a->kind == CGM_GPU_ARG_VALUE ? a->size : a->size < 8 ? a->size : 8;
            if (bytes == 4)
                memcpy(slot, from, 4);
            else if (bytes == 8)
                memcpy(slot, from, 8);
            else
                memcpy(slot, from, bytes);
            if (!k->argset[index]) {
                k->argset[index] = 1;
                k->nset++;
            }
        }
    }
    cgm_cl_unlock();
    return e;
}

/* The arguments a launch loop sets again and again, checked as set_arg
 * checks them, with no call: a scalar or a pointer-sized value of the
 * argument's size, or a buffer found before, of a kernel found before.
 * Anything else goes to set_arg. */
CGM_API cl_int clSetKernelArg(cl_kernel k, cl_uint index, size_t size, const void *value)
{
    if (!cgm_cl_trylock())
        return set_arg(k, index, size, value);
    if (cgm_cl_known(k, K_KERNEL) && index < k->info.nargs && value) {
        const struct cgm_gpu_kernel_arg *a = &k->args[index];
        unsigned char *slot = k->argbuf + a->offset;
        int done = 1;
        if (a->kind == CGM_GPU_ARG_VALUE && size == a->size && size == 4)
            memcpy(slot, value, 4);
        else if (a->kind == CGM_GPU_ARG_VALUE && size == a->size && size == 8)
            memcpy(slot, value, 8);
        else if (a->kind == CGM_GPU_ARG_GLOBAL && size == sizeof(cl_mem) && a->size == 8 &&
                 cgm_cl_known(*(const cl_mem *)value, K_MEM)) {
            uint64_t v = (uint64_t)(uintptr_t)(*(const cl_mem *)value)->addr;
            memcpy(slot, &v, 8);
        } else
            done = 0;
        if (done) {
            if (!k->argset[index]) {
                k->argset[index] = 1;
                k->nset++;
            }
            cgm_cl_unlock_try();
            return CL_SUCCESS;
        }
    }
    cgm_cl_unlock_try();
    return set_arg(k, index, size, value);
}

CGM_API cl_int clGetKernelInfo(cl_kernel k, cl_kernel_info param, size_t size, void *value,
                               size_t *size_ret)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_KERNEL;
    if (cgm_cl_valid(k, K_KERNEL)) {
        cl_uint u;
        switch (param) {
        case CL_KERNEL_FUNCTION_NAME: e = cgm_cl_info_str(k->name, size, value, size_ret); break;
        case CL_KERNEL_NUM_ARGS:
            u = k->info.nargs;
            e = cgm_cl_info(&u, sizeof u, size, value, size_ret);
            break;
        case CL_KERNEL_REFERENCE_COUNT:
            u = k->h.refs;
            e = cgm_cl_info(&u, sizeof u, size, value, size_ret);
            break;
        case CL_KERNEL_CONTEXT:
            e = cgm_cl_info(&k->program->ctx, sizeof k->program->ctx, size, value, size_ret);
            break;
        case CL_KERNEL_PROGRAM:
            e = cgm_cl_info(&k->program, sizeof k->program, size, value, size_ret);
            break;
        case CL_KERNEL_ATTRIBUTES: e = cgm_cl_info_str("", size, value, size_ret); break;
        default: e = CL_INVALID_VALUE;
        }
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id dev,
                                        cl_kernel_work_group_info param, size_t size,
                                        void *value, size_t *size_ret)
{
    cgm_cl_lock();
    cl_int e = !cgm_cl_valid(k, K_KERNEL) ? CL_INVALID_KERNEL
             : dev && dev != &cgm_cl_device ? CL_INVALID_DEVICE : CL_SUCCESS;
    if (e == CL_SUCCESS) {
        size_t sz, dims[3] = { 0, 0, 0 };
        cl_ulong ul;
        switch (param) {
        case CL_KERNEL_WORK_GROUP_SIZE:
            sz = k->info.max_workgroup_size;
            e = cgm_cl_info(&sz, sizeof sz, size, value, size_ret);
            break;
        case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
            e = cgm_cl_info(dims, sizeof dims, size, value, size_ret);
            break;
        case CL_KERNEL_LOCAL_MEM_SIZE:
            ul = k->info.lds_bytes;
            for (unsigned i = 0; i < k->info.nargs; i++)
                if (k->args[i].kind == CGM_GPU_ARG_LOCAL && k->argset[i]) {
                    uint32_t want;
                    memcpy(&want, k->argbuf + k->args[i].offset, 4);
                    ul += want;
                }
            e = cgm_cl_info(&ul, sizeof ul, size, value, size_ret);
            break;
        case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
            sz = cgm_cl_device.info.wavefront_size;
            e = cgm_cl_info(&sz, sizeof sz, size, value, size_ret);
            break;
        case CL_KERNEL_PRIVATE_MEM_SIZE:
            ul = k->info.private_bytes;
            e = cgm_cl_info(&ul, sizeof ul, size, value, size_ret);
            break;
        case CL_KERNEL_GLOBAL_WORK_SIZE: e = CL_INVALID_VALUE; break;   /* built-in kernels only */
        default: e = CL_INVALID_VALUE;
        }
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clGetKernelArgInfo(cl_kernel k, cl_uint index, cl_kernel_arg_info param,
                                  size_t size, void *value, size_t *size_ret)
{
    cgm_cl_lock();
    cl_int e = !cgm_cl_valid(k, K_KERNEL) ? CL_INVALID_KERNEL
             : index >= k->info.nargs ? CL_INVALID_ARG_INDEX : CL_SUCCESS;
    if (e == CL_SUCCESS) {
        const struct cgm_gpu_kernel_arg *a = &k->args[index];
        cl_kernel_arg_address_qualifier aq = a->kind == CGM_GPU_ARG_LOCAL ? CL_KERNEL_ARG_ADDRESS_LOCAL
                                           : a->is_constant ? CL_KERNEL_ARG_ADDRESS_CONSTANT
                                           : a->kind == CGM_GPU_ARG_GLOBAL ? CL_KERNEL_ARG_ADDRESS_GLOBAL
                                           : CL_KERNEL_ARG_ADDRESS_PRIVATE;
        cl_kernel_arg_access_qualifier acc = CL_KERNEL_ARG_ACCESS_NONE;
        cl_kernel_arg_type_qualifier tq = CL_KERNEL_ARG_TYPE_NONE;
        switch (param) {
        case CL_KERNEL_ARG_ADDRESS_QUALIFIER: e = cgm_cl_info(&aq, sizeof aq, size, value, size_ret); break;
        case CL_KERNEL_ARG_ACCESS_QUALIFIER: e = cgm_cl_info(&acc, sizeof acc, size, value, size_ret); break;
        case CL_KERNEL_ARG_TYPE_QUALIFIER: e = cgm_cl_info(&tq, sizeof tq, size, value, size_ret); break;
        case CL_KERNEL_ARG_TYPE_NAME:
        case CL_KERNEL_ARG_NAME: {
            const char *s = param == CL_KERNEL_ARG_NAME ? a->name : a->type_name;
            e = s[0] ? cgm_cl_info_str(s, size, value, size_ret) : CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
            break;
        }
        default: e = CL_INVALID_VALUE;
        }
    }
    cgm_cl_unlock();
    return e;
}

/* The largest divisor of G not above LIMIT. */
static size_t divisor_up_to(size_t g, size_t limit)
{
    for (size_t l = limit < g ? limit : g; l > 1; l--)
        if (g % l == 0)
            return l;
    return 1;
}

/* A work-group size for a NULL local size, as GPU drivers choose: a
 * wavefront-friendly shape that divides the grid (256 work-items in one
 * dimension, 16 x 16 in two, 8 x 8 x 4 in three), within the kernel's limit. */
static void choose_local(cl_uint dims, const size_t *global, size_t max, size_t local[3])
{
    static const size_t shape[3][3] = { { 256, 1, 1 }, { 16, 16, 1 }, { 8, 8, 4 } };
    size_t left = max;
    for (cl_uint i = 0; i < 3; i++) {
        size_t lim = i < dims ? shape[dims - 1][i] : 1;
        local[i] = i < dims ? divisor_up_to(global[i], lim < left ? lim : left) : 1;
        left /= local[i];
    }
}

static __attribute__((noinline)) cl_int
enqueue_ndrange(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
                const size_t *global, const size_t *local, cl_uint n, const cl_event *waits,
                cl_event *event)
{
    cgm_cl_lock();
    cl_int e = !cgm_cl_valid(q, K_QUEUE) ? CL_INVALID_COMMAND_QUEUE
             : !cgm_cl_valid(k, K_KERNEL) ? CL_INVALID_KERNEL
             : k->program->ctx != q->ctx ? CL_INVALID_CONTEXT
             : dims < 1 || dims > 3 ? CL_INVALID_WORK_DIMENSION
             : !global ? CL_INVALID_GLOBAL_WORK_SIZE
             : k->nset != k->info.nargs ? CL_INVALID_KERNEL_ARGS : CL_SUCCESS;
    struct cgm_gpu_ndrange nd = { .dims = dims };   /* unused dimensions 0, as the driver's */
    size_t items = 1, max = e == CL_SUCCESS ? k->info.max_workgroup_size : 0;
    for (cl_uint i = 0; e == CL_SUCCESS && i < dims; i++) {
        if (!global[i] || global[i] > 0xffffffffu)
            e = CL_INVALID_GLOBAL_WORK_SIZE;
        else if (offset && offset[i] > 0xffffffffu - global[i])
            e = CL_INVALID_GLOBAL_OFFSET;
        else if (local && (!local[i] || local[i] > cgm_cl_device.info.max_workgroup_size))
            e = CL_INVALID_WORK_ITEM_SIZE;
        else if (local && global[i] % local[i])
            e = CL_INVALID_WORK_GROUP_SIZE;
        if (local && e == CL_SUCCESS)
            items *= local[i];
        nd.global[i] = global[i];
        nd.offset[i] = offset ? offset[i] : 0;
        nd.local[i] = local ? local[i] : 1;
    }
    if (e == CL_SUCCESS && local && items > max)
        e = CL_INVALID_WORK_GROUP_SIZE;
    if (e == CL_SUCCESS && (n || waits))
        e = cgm_cl_check_waits(q, n, waits);
    if (e == CL_SUCCESS) {
        if (!local) {
            size_t l[3];
            choose_local(dims, global, max, l);
            for (cl_uint i = 0; i < dims; i++)
                nd.local[i] = l[i];
        }
        e = cgm_cl_submit_kernel(q, k->handle, &nd, k->argbuf, k->info.args_bytes, n, waits,
                                 event);
    }
    cgm_cl_unlock();
    return e;
}

/* Dimension I of the fast path's launch, checked as enqueue_ndrange checks
 * it, into ND (unrolled: a loop over the dimensions keeps more values live
 * than the registers hold). */
static inline __attribute__((always_inline)) int
fast_dim(struct cgm_gpu_ndrange *nd, unsigned i, const size_t *offset, const size_t *global,
         const size_t *local, size_t *items)
{
    size_t g = global[i], l = local[i], o = offset ? offset[i] : 0;
    if (g - 1 >= 0xffffffffu || o > 0xffffffffu - g ||
        l - 1 >= cgm_cl_device.info.max_workgroup_size || g % l)
        return 0;
    *items *= l;
    nd->global[i] = g;
    nd->offset[i] = o;
    nd->local[i] = l;
    return 1;
}

/* Dimension I is the one ND holds. */
static inline __attribute__((always_inline)) int
same_dim(const struct cgm_gpu_ndrange *nd, unsigned i, const size_t *offset, const size_t *global,
         const size_t *local)
{
    return global[i] == nd->global[i] && local[i] == nd->local[i] &&
           (offset ? offset[i] : 0) == nd->offset[i];
}

/* The launch a loop makes again and again, checked as enqueue_ndrange
 * checks it, straight to the driver with no call: a queue and a kernel
 * found before, a local size, nothing to wait for, no event asked for and
 * no command waiting in the queue. The kernel keeps the last NDRange it
 * checked (what is checked depends only on the kernel and the device), so
 * a launch with the same one compares it and passes it on. Anything else
 * (and every error) goes to enqueue_ndrange. */
CGM_API cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims,
                                      const size_t *offset, const size_t *global,
                                      const size_t *local, cl_uint n, const cl_event *waits,
                                      cl_event *event)
{
    if (!cgm_cl_trylock())
        return enqueue_ndrange(q, k, dims, offset, global, local, n, waits, event);
    if (cgm_cl_known(q, K_QUEUE) && cgm_cl_known(k, K_KERNEL) &&
        !n && !waits && !event && !q->head && k->program->ctx == q->ctx && global && local &&
        k->nset == k->info.nargs) {
        struct cgm_gpu_ndrange *nd = &k->last_nd;
        int same = dims - 1 < 3 && dims == nd->dims && same_dim(nd, 0, offset, global, local) &&
                   (dims < 2 || same_dim(nd, 1, offset, global, local)) &&
                   (dims < 3 || same_dim(nd, 2, offset, global, local));
        if (!same && dims - 1 < 3) {
            struct cgm_gpu_ndrange c = { .dims = dims };
            size_t items = 1;
            if (fast_dim(&c, 0, offset, global, local, &items) &&
                (dims < 2 || fast_dim(&c, 1, offset, global, local, &items)) &&
                (dims < 3 || fast_dim(&c, 2, offset, global, local, &items)) &&
                items <= k->info.max_workgroup_size) {
                *nd = c;
                same = 1;
            }
        }
        if (same) {
            long rc = cgm_gpu_launch_nd(k->handle, nd, k->argbuf, k->info.args_bytes);
            if (rc >= 0) {
                cgm_cl_launches_pending = 1;
                cgm_cl_unlock_try();
                return CL_SUCCESS;
            }
            cgm_cl_unlock_try();
            return cgm_cl_launch_error(rc);
        }
    }
    cgm_cl_unlock_try();
    return enqueue_ndrange(q, k, dims, offset, global, local, n, waits, event);
}

CGM_API cl_int clEnqueueTask(cl_command_queue q, cl_kernel k, cl_uint n, const cl_event *waits,
                             cl_event *event)
{
    static const size_t one[1] = { 1 };
    return clEnqueueNDRangeKernel(q, k, 1, NULL, one, one, n, waits, event);
}

CGM_API cl_int clEnqueueNativeKernel(cl_command_queue q, void(CL_CALLBACK *fn)(void *),
                                     void *args, size_t cb_args, cl_uint nmem,
                                     const cl_mem *mems, const void **locs, cl_uint n,
                                     const cl_event *waits, cl_event *event)
{
    (void)fn; (void)args; (void)cb_args; (void)nmem; (void)mems; (void)locs; (void)n;
    (void)waits; (void)event;
    /* CL_DEVICE_EXECUTION_CAPABILITIES has no CL_EXEC_NATIVE_KERNEL */
    return cgm_cl_valid_locked(q, K_QUEUE) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}
