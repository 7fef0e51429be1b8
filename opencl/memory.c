/* Buffers in the guest's address space, which the GPU shares: a buffer is
 * memory from cgm_gpu_alloc (recorded as a GPU allocation), or the host's
 * own memory for CL_MEM_USE_HOST_PTR (shared memory, no copy). Reads,
 * writes, copies and fills are the driver's DMA copies (recorded as such);
 * a map is the buffer's own address (zero copy). Images and samplers are
 * not supported: the device has none (CL_DEVICE_IMAGE_SUPPORT is false). */
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"

#define MAX_ALLOC (1ull << 30)

typedef void(CL_CALLBACK *mem_fn)(cl_mem, void *);

static cl_int check_flags(cl_mem_flags f, void *host_ptr)
{
    const cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
    const cl_mem_flags host = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
    const cl_mem_flags known = access | host | CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR |
                               CL_MEM_COPY_HOST_PTR;
    /* at most one bit of each group (x & (x - 1): popcount is a libgcc call
     * without -mpopcnt) */
    if ((f & ~known) || ((f & access) & ((f & access) - 1)) ||
        ((f & host) & ((f & host) - 1)) ||
        ((f & CL_MEM_USE_HOST_PTR) && (f & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR))))
        return CL_INVALID_VALUE;
    if (!!host_ptr != !!(f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
        return CL_INVALID_HOST_PTR;
    return CL_SUCCESS;
}

CGM_API cl_mem clCreateBuffer(cl_context c, cl_mem_flags flags, size_t size, void *host_ptr,
                              cl_int *err)
{
    cgm_cl_lock();
    cl_mem m = NULL;
    cl_int e = CL_SUCCESS;
    if (!cgm_cl_valid(c, K_CONTEXT))
        e = CL_INVALID_CONTEXT;
    else if ((e = check_flags(flags, host_ptr)) != CL_SUCCESS)
        ;
    else if (!size || size > MAX_ALLOC)
        e = CL_INVALID_BUFFER_SIZE;
    else if (!(m = cgm_cl_new(sizeof *m, K_MEM)))
        e = CL_OUT_OF_HOST_MEMORY;
    if (m) {
        m->ctx = c;
        m->flags = flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
                       ? flags : flags | CL_MEM_READ_WRITE;
        m->size = size;
        m->host_ptr = flags & CL_MEM_USE_HOST_PTR ? host_ptr : NULL;
        if (flags & CL_MEM_USE_HOST_PTR) {
            m->addr = host_ptr;
        } else if (!(m->addr = cgm_gpu_alloc(size))) {
            cgm_cl_free(m);
            m = NULL;
            e = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        } else {
            m->owns = 1;
            if ((flags & CL_MEM_COPY_HOST_PTR) && cgm_gpu_copy(m->addr, host_ptr, size) < 0) {
                cgm_gpu_free(m->addr);
                cgm_cl_free(m);
                m = NULL;
                e = CL_INVALID_HOST_PTR;
            }
        }
        if (m)
            c->h.refs++;
    }
    cgm_cl_unlock();
    CGM_SET_ERR(err, e);
    return m;
}

CGM_API cl_mem clCreateSubBuffer(cl_mem parent, cl_mem_flags flags, cl_buffer_create_type type,
                                 const void *info, cl_int *err)
{
    cgm_cl_lock();
    cl_mem m = NULL;
    cl_int e = CL_SUCCESS;
    const cl_buffer_region *r = info;
    const cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
    if (!cgm_cl_valid(parent, K_MEM) || parent->parent)
        e = CL_INVALID_MEM_OBJECT;
    else if (type != CL_BUFFER_CREATE_TYPE_REGION || !r ||
             (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)) ||
             check_flags(flags, NULL) != CL_SUCCESS ||
             ((parent->flags & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
             ((parent->flags & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))))
        e = CL_INVALID_VALUE;
    else if (!r->size || r->origin > parent->size || r->size > parent->size - r->origin)
        e = CL_INVALID_BUFFER_SIZE;
    else if (r->origin % 128)    /* CL_DEVICE_MEM_BASE_ADDR_ALIGN */
        e = CL_MISALIGNED_SUB_BUFFER_OFFSET;
    else if (!(m = cgm_cl_new(sizeof *m, K_MEM)))
        e = CL_OUT_OF_HOST_MEMORY;
    if (m) {
        m->ctx = parent->ctx;
        m->flags = (flags & access ? flags : flags | (parent->flags & access)) |
                   (parent->flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR));
        m->size = r->size;
        m->addr = parent->addr + r->origin;
        m->host_ptr = parent->host_ptr ? (char *)parent->host_ptr + r->origin : NULL;
        m->parent = parent;
        m->origin = r->origin;
        parent->h.refs++;
        m->ctx->h.refs++;
    }
    cgm_cl_unlock();
    CGM_SET_ERR(err, e);
    return m;
}

CGM_API cl_int clRetainMemObject(cl_mem m)
{
    return cgm_cl_retain(m, K_MEM, CL_INVALID_MEM_OBJECT);
}

CGM_API cl_int clReleaseMemObject(cl_mem m)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_MEM_OBJECT;
    if (cgm_cl_valid(m, K_MEM)) {
        e = CL_SUCCESS;
        if (--m->h.refs == 0) {
            for (struct cl_callback *cb = m->destructors, *next; cb; cb = next) {
                next = cb->next;
                ((mem_fn)cb->fn)(m, cb->user_data);
                free(cb);
            }
            if (m->owns) {
                cgm_cl_gpu_sync();   /* no kernel may still use it */
                cgm_gpu_free(m->addr);
            }
            cl_mem parent = m->parent;
            cl_context c = m->ctx;
            cgm_cl_free(m);
            if (parent)
                clReleaseMemObject(parent);
            clReleaseContext(c);
        }
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clSetMemObjectDestructorCallback(cl_mem m, mem_fn fn, void *user_data)
{
    cgm_cl_lock();
    cl_int e = !cgm_cl_valid(m, K_MEM) ? CL_INVALID_MEM_OBJECT : !fn ? CL_INVALID_VALUE : CL_SUCCESS;
    if (e == CL_SUCCESS) {
        struct cl_callback *cb = calloc(1, sizeof *cb);
        if (!cb) {
            e = CL_OUT_OF_HOST_MEMORY;
        } else {
            cb->fn = (void (*)())fn;
            cb->user_data = user_data;
            cb->next = m->destructors;   /* called in the reverse order of registration */
            m->destructors = cb;
        }
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clGetMemObjectInfo(cl_mem m, cl_mem_info param, size_t size, void *value,
                                  size_t *size_ret)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_MEM_OBJECT;
    if (cgm_cl_valid(m, K_MEM)) {
        cl_mem_object_type t = CL_MEM_OBJECT_BUFFER;
        cl_uint u;
        switch (param) {
        case CL_MEM_TYPE: e = cgm_cl_info(&t, sizeof t, size, value, size_ret); break;
        case CL_MEM_FLAGS: e = cgm_cl_info(&m->flags, sizeof m->flags, size, value, size_ret); break;
        case CL_MEM_SIZE: e = cgm_cl_info(&m->size, sizeof m->size, size, value, size_ret); break;
        case CL_MEM_HOST_PTR:
            e = cgm_cl_info(&m->host_ptr, sizeof m->host_ptr, size, value, size_ret);
            break;
        case CL_MEM_MAP_COUNT:
            u = m->maps;
            e = cgm_cl_info(&u, sizeof u, size, value, size_ret);
            break;
        case CL_MEM_REFERENCE_COUNT:
            u = m->h.refs;
            e = cgm_cl_info(&u, sizeof u, size, value, size_ret);
            break;
        case CL_MEM_CONTEXT: e = cgm_cl_info(&m->ctx, sizeof m->ctx, size, value, size_ret); break;
        case CL_MEM_ASSOCIATED_MEMOBJECT:
            e = cgm_cl_info(&m->parent, sizeof m->parent, size, value, size_ret);
            break;
        case CL_MEM_OFFSET: e = cgm_cl_info(&m->origin, sizeof m->origin, size, value, size_ret); break;
        default: e = CL_INVALID_VALUE;
        }
    }
    cgm_cl_unlock();
    return e;
}

/* The checks every buffer command makes. */
static cl_int check_cmd(cl_command_queue q, cl_mem m, cl_uint n, const cl_event *waits)
{
    if (!cgm_cl_valid(q, K_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    if (!cgm_cl_valid(m, K_MEM))
        return CL_INVALID_MEM_OBJECT;
    if (m->ctx != q->ctx)
        return CL_INVALID_CONTEXT;
    return n || waits ? cgm_cl_check_waits(q, n, waits) : CL_SUCCESS;
}

static cl_int copy_cmd(cl_command_queue q, cl_command_type type, char *dst, const char *src,
                       size_t bytes, cl_bool blocking, cl_uint n, const cl_event *waits,
                       cl_event *event)
{
    /* A non-blocking read or write goes on while the host does (an
     * asynchronous copy); buffer to buffer copies stay the driver's copy. */
    int async = !blocking && (type == CL_COMMAND_READ_BUFFER || type == CL_COMMAND_WRITE_BUFFER);
    struct cl_cmd c = { .op = async ? OP_COPY_ASYNC : OP_COPY, .type = type, .waits = waits, .nwaits = n,
                        .dst = dst, .src = src, .bytes = bytes };
    return cgm_cl_submit(q, &c, blocking, event);
}

/* A read or write a loop makes again and again, checked as the full path
 * checks it and run as queue.c's execute runs it, with no call: a queue
 * and buffer found before, nothing to wait for, no event asked for and no
 * command waiting in the queue. 1 when it ran (*E its result); 0 leaves it
 * to the full path. Under the lock. */
static inline __attribute__((always_inline)) int
fast_copy(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset, size_t size, char *into,
          const char *from, cl_uint n, const cl_event *waits, cl_event *event, cl_int *e)
{
    int read = into != NULL;   /* a read's host memory, or a write's */
    cl_mem_flags refused = read ? CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS
                                : CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
    if (!cgm_cl_known(q, K_QUEUE) || !cgm_cl_known(m, K_MEM) || m->ctx != q->ctx || n || waits ||
        event || q->head || !(into || from) || !size || offset > m->size ||
        size > m->size - offset || (m->flags & refused))
        return 0;
    char *dst = read ? into : m->addr + offset;
    const char *src = read ? m->addr + offset : from;
    long rc = 0;
    /* a blocking copy, and an asynchronous read, need the kernels' results
     * (a blocking one the copies' too); an asynchronous write waits for
     * nothing its wait list does not name */
    if (blocking ? cgm_cl_launches_pending || cgm_cl_copies_pending
                 : read && cgm_cl_launches_pending) {
        cgm_gpu_wait();
        cgm_cl_launches_pending = cgm_cl_copies_pending = 0;
    }
    if (dst != src) {
        if (blocking) {
            rc = cgm_gpu_copy(dst, src, size);
        } else {
            rc = cgm_gpu_copy_async(dst, src, size);
            cgm_cl_copies_pending = rc >= 0;
        }
    }
    *e = rc < 0 ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
    return 1;
}

CGM_API cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset,
                                   size_t size, void *ptr, cl_uint n, const cl_event *waits,
                                   cl_event *event)
{
    cl_int fast;
    if (cgm_cl_trylock()) {
        int done = fast_copy(q, m, blocking, offset, size, ptr, NULL, n, waits, event, &fast);
        cgm_cl_unlock_try();
        if (done)
            return fast;
    }
    cgm_cl_lock();
    cl_int e = check_cmd(q, m, n, waits);
    if (e == CL_SUCCESS && (!ptr || !size || offset > m->size || size > m->size - offset))
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS && (m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)))
        e = CL_INVALID_OPERATION;
    if (e == CL_SUCCESS)
        e = copy_cmd(q, CL_COMMAND_READ_BUFFER, ptr, m->addr + offset, size, blocking, n, waits,
                     event);
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking,
                                    size_t offset, size_t size, const void *ptr, cl_uint n,
                                    const cl_event *waits, cl_event *event)
{
    cl_int fast;
    if (cgm_cl_trylock()) {
        int done = fast_copy(q, m, blocking, offset, size, NULL, ptr, n, waits, event, &fast);
        cgm_cl_unlock_try();
        if (done)
            return fast;
    }
    cgm_cl_lock();
    cl_int e = check_cmd(q, m, n, waits);
    if (e == CL_SUCCESS && (!ptr || !size || offset > m->size || size > m->size - offset))
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS && (m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)))
        e = CL_INVALID_OPERATION;
    if (e == CL_SUCCESS)
        e = copy_cmd(q, CL_COMMAND_WRITE_BUFFER, m->addr + offset, ptr, size, blocking, n, waits,
                     event);
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t src_off,
                                   size_t dst_off, size_t size, cl_uint n, const cl_event *waits,
                                   cl_event *event)
{
    cgm_cl_lock();
    cl_int e = check_cmd(q, src, n, waits);
    if (e == CL_SUCCESS)
        e = check_cmd(q, dst, 0, NULL);
    if (e == CL_SUCCESS && (!size || src_off > src->size || size > src->size - src_off ||
                            dst_off > dst->size || size > dst->size - dst_off))
        e = CL_INVALID_VALUE;
    char *s = e == CL_SUCCESS ? src->addr + src_off : NULL, *d = e == CL_SUCCESS ? dst->addr + dst_off : NULL;
    if (e == CL_SUCCESS && s < d + size && d < s + size)
        e = CL_MEM_COPY_OVERLAP;
    if (e == CL_SUCCESS)
        e = copy_cmd(q, CL_COMMAND_COPY_BUFFER, d, s, size, 0, n, waits, event);
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *pattern,
                                   size_t pattern_size, size_t offset, size_t size, cl_uint n,
                                   const cl_event *waits, cl_event *event)
{
    cgm_cl_lock();
    cl_int e = check_cmd(q, m, n, waits);
    if (e == CL_SUCCESS &&
        (!pattern || !pattern_size || pattern_size > 128 || (pattern_size & (pattern_size - 1)) ||
         offset % pattern_size || size % pattern_size || !size || offset > m->size ||
         size > m->size - offset))
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS) {
        struct cl_cmd c = { .op = OP_FILL, .type = CL_COMMAND_FILL_BUFFER, .waits = waits,
                            .nwaits = n, .dst = m->addr + offset, .bytes = size,
                            .pattern = pattern, .pattern_size = pattern_size };
        e = cgm_cl_submit(q, &c, 0, event);
    }
    cgm_cl_unlock();
    return e;
}

/* Checks a rectangle (OpenCL's rules: a pitch of 0 means tightly packed)
 * and fills the command's region and pitches; *SPAN the bytes it reaches. */
static cl_int rect(const size_t origin[3], const size_t region[3], size_t *row, size_t *slice,
                   size_t *base, size_t *span)
{
    if (!origin || !region || !region[0] || !region[1] || !region[2])
        return CL_INVALID_VALUE;
    if (!*row)
        *row = region[0];
    if (!*slice)
        *slice = region[1] * *row;
    if (*row < region[0] || *slice < region[1] * *row || *slice % *row)
        return CL_INVALID_VALUE;
    *base = origin[2] * *slice + origin[1] * *row + origin[0];
    *span = *base + (region[2] - 1) * *slice + (region[1] - 1) * *row + region[0];
    return CL_SUCCESS;
}

static cl_int rect_cmd(cl_command_queue q, cl_command_type type, char *dst, size_t dst_row,
                       size_t dst_slice, const char *src, size_t src_row, size_t src_slice,
                       const size_t region[3], cl_bool blocking, cl_uint n,
                       const cl_event *waits, cl_event *event)
{
    struct cl_cmd c = { .op = OP_RECT, .type = type, .waits = waits, .nwaits = n, .dst = dst,
                        .src = src, .dst_pitch = { dst_row, dst_slice },
                        .src_pitch = { src_row, src_slice } };
    memcpy(c.rect_region, region, sizeof c.rect_region);
    return cgm_cl_submit(q, &c, blocking, event);
}

/* Read (TO_HOST) or write a rectangle between buffer M and host memory PTR. */
static cl_int host_rect(cl_command_queue q, cl_mem m, int to_host, cl_bool blocking,
                        const size_t *buf_origin, const size_t *host_origin,
                        const size_t *region, size_t buf_row, size_t buf_slice, size_t host_row,
                        size_t host_slice, void *ptr, cl_uint n, const cl_event *waits,
                        cl_event *event)
{
    cgm_cl_lock();
    size_t bbase, bspan, hbase, hspan;
    cl_int e = check_cmd(q, m, n, waits);
    if (e == CL_SUCCESS && !ptr)
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS)
        e = rect(buf_origin, region, &buf_row, &buf_slice, &bbase, &bspan);
    if (e == CL_SUCCESS)
        e = rect(host_origin, region, &host_row, &host_slice, &hbase, &hspan);
    if (e == CL_SUCCESS && bspan > m->size)
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS) {
        char *b = m->addr + bbase, *h = (char *)ptr + hbase;
        e = to_host ? rect_cmd(q, CL_COMMAND_READ_BUFFER_RECT, h, host_row, host_slice, b,
                               buf_row, buf_slice, region, blocking, n, waits, event)
                    : rect_cmd(q, CL_COMMAND_WRITE_BUFFER_RECT, b, buf_row, buf_slice, h,
                               host_row, host_slice, region, blocking, n, waits, event);
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clEnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                       const size_t *buf_origin, const size_t *host_origin,
                                       const size_t *region, size_t buf_row, size_t buf_slice,
                                       size_t host_row, size_t host_slice, void *ptr, cl_uint n,
                                       const cl_event *waits, cl_event *event)
{
    return host_rect(q, m, 1, blocking, buf_origin, host_origin, region, buf_row, buf_slice,
                     host_row, host_slice, ptr, n, waits, event);
}

CGM_API cl_int clEnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                        const size_t *buf_origin, const size_t *host_origin,
                                        const size_t *region, size_t buf_row, size_t buf_slice,
                                        size_t host_row, size_t host_slice, const void *ptr,
                                        cl_uint n, const cl_event *waits, cl_event *event)
{
    return host_rect(q, m, 0, blocking, buf_origin, host_origin, region, buf_row, buf_slice,
                     host_row, host_slice, (void *)(uintptr_t)ptr, n, waits, event);
}

CGM_API cl_int clEnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst,
                                       const size_t *src_origin, const size_t *dst_origin,
                                       const size_t *region, size_t src_row, size_t src_slice,
                                       size_t dst_row, size_t dst_slice, cl_uint n,
                                       const cl_event *waits, cl_event *event)
{
    cgm_cl_lock();
    size_t sbase, sspan, dbase, dspan;
    cl_int e = check_cmd(q, src, n, waits);
    if (e == CL_SUCCESS)
        e = check_cmd(q, dst, 0, NULL);
    if (e == CL_SUCCESS)
        e = rect(src_origin, region, &src_row, &src_slice, &sbase, &sspan);
    if (e == CL_SUCCESS)
        e = rect(dst_origin, region, &dst_row, &dst_slice, &dbase, &dspan);
    if (e == CL_SUCCESS && (sspan > src->size || dspan > dst->size))
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS && src->addr + sbase < dst->addr + dspan &&
        dst->addr + dbase < src->addr + sspan)
        e = CL_MEM_COPY_OVERLAP;
    if (e == CL_SUCCESS)
        e = rect_cmd(q, CL_COMMAND_COPY_BUFFER_RECT, dst->addr + dbase, dst_row, dst_slice,
                     src->addr + sbase, src_row, src_slice, region, 0, n, waits, event);
    cgm_cl_unlock();
    return e;
}

CGM_API void *clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blocking,
                                 cl_map_flags flags, size_t offset, size_t size, cl_uint n,
                                 const cl_event *waits, cl_event *event, cl_int *err)
{
    cgm_cl_lock();
    void *p = NULL;
    cl_int e = check_cmd(q, m, n, waits);
    const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    if (e == CL_SUCCESS && (!size || offset > m->size || size > m->size - offset ||
                            (flags & ~known) ||
                            ((flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
                             (flags & (CL_MAP_READ | CL_MAP_WRITE)))))
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS && (m->flags & CL_MEM_HOST_NO_ACCESS))
        e = CL_INVALID_OPERATION;
    if (e == CL_SUCCESS) {
        struct cl_cmd c = { .op = OP_SYNC, .type = CL_COMMAND_MAP_BUFFER, .waits = waits,
                            .nwaits = n };
        e = cgm_cl_submit(q, &c, blocking, event);
        if (e == CL_SUCCESS) {
            p = m->addr + offset;
            m->maps++;
        }
    }
    cgm_cl_unlock();
    CGM_SET_ERR(err, e);
    return p;
}

CGM_API cl_int clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *mapped, cl_uint n,
                                       const cl_event *waits, cl_event *event)
{
    cgm_cl_lock();
    cl_int e = check_cmd(q, m, n, waits);
    if (e == CL_SUCCESS &&
        (!m->maps || (char *)mapped < m->addr || (char *)mapped >= m->addr + m->size))
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS) {
        struct cl_cmd c = { .op = OP_NONE, .type = CL_COMMAND_UNMAP_MEM_OBJECT, .waits = waits,
                            .nwaits = n };
        m->maps--;
        e = cgm_cl_submit(q, &c, 0, event);
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clEnqueueMigrateMemObjects(cl_command_queue q, cl_uint nmem, const cl_mem *mems,
                                          cl_mem_migration_flags flags, cl_uint n,
                                          const cl_event *waits, cl_event *event)
{
    cgm_cl_lock();
    cl_int e = cgm_cl_valid(q, K_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
    if (e == CL_SUCCESS && (!nmem || !mems ||
                            (flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST |
                                        CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))))
        e = CL_INVALID_VALUE;
    for (cl_uint i = 0; e == CL_SUCCESS && i < nmem; i++)
        e = check_cmd(q, mems[i], 0, NULL);
    if (e == CL_SUCCESS)
        e = cgm_cl_check_waits(q, n, waits);
    if (e == CL_SUCCESS) {   /* one address space: nothing moves */
        struct cl_cmd c = { .op = OP_NONE, .type = CL_COMMAND_MIGRATE_MEM_OBJECTS, .waits = waits,
                            .nwaits = n };
        e = cgm_cl_submit(q, &c, 0, event);
    }
    cgm_cl_unlock();
    return e;
}
