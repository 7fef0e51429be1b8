/* Commands and events. A command runs when it reaches the head of its queue
 * and its wait list is complete; everything runs at once unless a user
 * event holds it back. Kernels run inside the driver's launch call; the
 * host learns of their end (the trace's gpu_done and gpu_wait) at the first
 * command that needs their results: a copy, a fill, a map, a finish or a
 * wait for a kernel's event. A non-blocking read or write is the driver's
 * asynchronous copy; the host learns of its end in the same places (a
 * blocking command, a finish, a wait for its event). */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"

static cl_command_queue queues;
/* kernels launched, and asynchronous copies started, that the host has not
 * waited for yet (the trace's next gpu_wait orders them); the fast paths of
 * kernel.c and memory.c use them too */
int cgm_cl_launches_pending;
int cgm_cl_copies_pending;

void cgm_cl_register_queue(cl_command_queue q)
{
    q->next_queue = queues;
    queues = q;
}

void cgm_cl_unregister_queue(cl_command_queue q)
{
    for (cl_command_queue *p = &queues; *p; p = &(*p)->next_queue)
        if (*p == q) {
            *p = q->next_queue;
            return;
        }
}

void cgm_cl_gpu_sync(void)
{
    if (cgm_cl_launches_pending || cgm_cl_copies_pending) {
        cgm_gpu_wait();
        cgm_cl_launches_pending = cgm_cl_copies_pending = 0;
    }
}

/* The kernels' end only (an asynchronous read needs their results, not
 * the end of the copies before it; the one gpu_wait orders those too). */
static void kernels_sync(void)
{
    if (cgm_cl_launches_pending) {
        cgm_gpu_wait();
        cgm_cl_launches_pending = cgm_cl_copies_pending = 0;
    }
}

/* Whether C's wait list names a kernel or copy the host has not waited for. */
static int waits_on_gpu(const struct cl_cmd *c)
{
    for (cl_uint i = 0; i < c->nwaits; i++)
        if (c->waits[i]->launched)
            return 1;
    return 0;
}

cl_event cgm_cl_event_new(cl_context ctx, cl_command_queue q, cl_command_type type)
{
    cl_event ev = cgm_cl_new(sizeof *ev, K_EVENT);
    if (!ev)
        return NULL;
    ev->ctx = ctx;
    ev->queue = q;
    ev->type = type;
    ev->status = q ? CL_QUEUED : CL_SUBMITTED;
    ctx->h.refs++;
    if (q && (q->props & CL_QUEUE_PROFILING_ENABLE))
        ev->times[0] = cgm_cl_now();
    return ev;
}

CGM_API cl_int clReleaseEvent(cl_event ev);

typedef void(CL_CALLBACK *event_fn)(cl_event, cl_int, void *);

void cgm_cl_event_complete(cl_event ev, cl_int status)
{
    ev->status = status;
    /* a callback may release the event: hold it until they all ran */
    ev->h.refs++;
    for (struct cl_callback *cb = ev->callbacks, *next; cb; cb = next) {
        next = cb->next;
        ((event_fn)cb->fn)(ev, status, cb->user_data);
        free(cb);
    }
    ev->callbacks = NULL;
    clReleaseEvent(ev);
}

cl_int cgm_cl_check_waits(cl_command_queue q, cl_uint n, const cl_event *list)
{
    if ((n && !list) || (!n && list))
        return CL_INVALID_EVENT_WAIT_LIST;
    for (cl_uint i = 0; i < n; i++) {
        if (!cgm_cl_valid(list[i], K_EVENT))
            return CL_INVALID_EVENT_WAIT_LIST;
        if (q && list[i]->ctx != q->ctx)
            return CL_INVALID_CONTEXT;
    }
    return CL_SUCCESS;
}

static int runnable(const struct cl_cmd *c)
{
    for (cl_uint i = 0; i < c->nwaits; i++)
        if (c->waits[i]->status > CL_COMPLETE)
            return 0;
    return 1;
}

static int waits_failed(const struct cl_cmd *c)
{
    for (cl_uint i = 0; i < c->nwaits; i++)
        if (c->waits[i]->status < 0)
            return 1;
    return 0;
}

cl_int cgm_cl_launch_error(long rc)
{
    return rc == -ENOMEM || rc == -E2BIG ? CL_OUT_OF_RESOURCES
         : rc == -EINVAL ? CL_INVALID_WORK_GROUP_SIZE : CL_OUT_OF_RESOURCES;
}

/* The command's work; returns its final status. */
static cl_int execute(const struct cl_cmd *c)
{
    long rc = 0;
    switch (c->op) {
    case OP_COPY:
        cgm_cl_gpu_sync();
        if (c->bytes && c->dst != c->src)
            rc = cgm_gpu_copy(c->dst, c->src, c->bytes);
        return rc < 0 ? CL_OUT_OF_RESOURCES : CL_COMPLETE;
    case OP_COPY_ASYNC:
        /* A read needs the kernels' results; a write waits only for what
         * its wait list names (the program orders a write after a kernel
         * that reads the buffer by an event, or by a blocking call). */
        if (c->type == CL_COMMAND_READ_BUFFER)
            kernels_sync();
        if (waits_on_gpu(c))
            cgm_cl_gpu_sync();
        if (c->bytes && c->dst != c->src) {
            rc = cgm_gpu_copy_async(c->dst, c->src, c->bytes);
            cgm_cl_copies_pending = rc >= 0;
        }
        return rc < 0 ? CL_OUT_OF_RESOURCES : CL_COMPLETE;
    case OP_FILL: {
        cgm_cl_gpu_sync();
        /* the pattern repeated in host memory, then one DMA copy */
        char *tmp = malloc(c->bytes);
        if (!tmp)
            return CL_OUT_OF_HOST_MEMORY;
        memcpy(tmp, c->pattern, c->pattern_size);
        for (size_t done = c->pattern_size; done < c->bytes; done *= 2)   /* doubling */
            memcpy(tmp + done, tmp, done < c->bytes - done ? done : c->bytes - done);
        rc = cgm_gpu_copy(c->dst, tmp, c->bytes);
        free(tmp);
        return rc < 0 ? CL_OUT_OF_RESOURCES : CL_COMPLETE;
    }
    case OP_RECT:
        cgm_cl_gpu_sync();
        for (size_t z = 0; z < c->rect_region[2] && rc >= 0; z++)
            for (size_t y = 0; y < c->rect_region[1] && rc >= 0; y++)
                rc = cgm_gpu_copy(c->dst + z * c->dst_pitch[1] + y * c->dst_pitch[0],
                                  c->src + z * c->src_pitch[1] + y * c->src_pitch[0],
                                  c->rect_region[0]);
        return rc < 0 ? CL_OUT_OF_RESOURCES : CL_COMPLETE;
    case OP_KERNEL:
        rc = cgm_gpu_launch_nd(c->kernel, &c->nd, c->args, c->args_bytes);
        if (rc < 0)
            return cgm_cl_launch_error(rc);
        cgm_cl_launches_pending = 1;
        return CL_COMPLETE;
    case OP_SYNC:   /* a map: the host is to see the buffer */
        cgm_cl_gpu_sync();
        return CL_COMPLETE;
    default:
        return CL_COMPLETE;
    }
}

/* Runs C, completing EV (NULL: nobody holds its event); returns its status. */
static cl_int run(const struct cl_cmd *c, cl_event ev)
{
    int prof = ev && (ev->queue->props & CL_QUEUE_PROFILING_ENABLE);
    if (ev) {
        if (prof)
            ev->times[1] = ev->times[2] = cgm_cl_now();
        ev->status = CL_RUNNING;
    }
    cl_int st = waits_failed(c) ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : execute(c);
    if (ev) {
        if (prof)
            ev->times[3] = cgm_cl_now();
        ev->launched = (c->op == OP_KERNEL || c->op == OP_COPY_ASYNC) && st == CL_COMPLETE;
        cgm_cl_event_complete(ev, st);
    }
    return st;
}

/* Runs Q's waiting commands from the head while they can run. */
static void progress_queue(cl_command_queue q)
{
    while (q->head && runnable(q->head)) {
        struct cl_cmd *c = q->head;
        q->head = c->next;
        if (!q->head)
            q->tail = NULL;
        run(c, c->event);
        for (cl_uint i = 0; i < c->nwaits; i++)
            clReleaseEvent(c->waits[i]);
        clReleaseEvent(c->event);   /* the command's reference */
        free(c);
    }
}

/* A heap copy of C holding its wait list, pattern and arguments. */
static struct cl_cmd *copy_cmd(const struct cl_cmd *c)
{
    size_t w = c->nwaits * sizeof *c->waits;
    struct cl_cmd *d = malloc(sizeof *d + w + c->pattern_size + c->args_bytes);
    if (!d)
        return NULL;
    *d = *c;
    char *extra = (char *)(d + 1);
    memcpy(extra, c->waits, w);
    d->waits = (const cl_event *)(void *)extra;
    for (cl_uint i = 0; i < c->nwaits; i++)
        c->waits[i]->h.refs++;
    if (c->pattern_size) {
        memcpy(extra + w, c->pattern, c->pattern_size);
        d->pattern = extra + w;
    }
    if (c->args_bytes) {
        memcpy(extra + w + c->pattern_size, c->args, c->args_bytes);
        d->args = (const unsigned char *)extra + w + c->pattern_size;
    }
    d->next = NULL;
    return d;
}

void cgm_cl_progress(void)
{
    for (cl_command_queue q = queues; q; q = q->next_queue)
        progress_queue(q);
}

/* Waits until EV is complete (another thread may set a user event). */
static void wait_event(cl_event ev)
{
    while (ev->status > CL_COMPLETE) {
        cgm_cl_progress();
        if (ev->status <= CL_COMPLETE)
            break;
        cgm_cl_unlock();
        sched_yield();
        cgm_cl_lock();
    }
    if (ev->launched)
        cgm_cl_gpu_sync();
}

static cl_int result(cl_int st, int blocking)
{
    /* a command that failed by itself fails its enqueue; one whose wait list
     * failed fails only a blocking enqueue */
    return st < 0 && (blocking || st != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) ? st
                                                                                    : CL_SUCCESS;
}

cl_int cgm_cl_submit(cl_command_queue q, const struct cl_cmd *c, int blocking, cl_event *event_out)
{
    if (!event_out && !c->nwaits && !q->head)   /* the usual case: what run(c, NULL) does */
        return result(execute(c), blocking);
    int now = !q->head && runnable(c);
    cl_event ev = NULL;
    if ((event_out || !now) && !(ev = cgm_cl_event_new(q->ctx, q, c->type)))
        return CL_OUT_OF_HOST_MEMORY;
    if (now) {   /* the usual case: nothing to wait for, no allocation */
        cl_int st = run(c, ev);
        if (event_out)
            *event_out = ev;
        return result(st, blocking);
    }
    struct cl_cmd *d = copy_cmd(c);
    if (!d) {
        clReleaseEvent(ev);
        return CL_OUT_OF_HOST_MEMORY;
    }
    d->event = ev;
    ev->h.refs++;   /* the command's */
    ev->status = CL_SUBMITTED;
    if (q->tail)
        q->tail->next = d;
    else
        q->head = d;
    q->tail = d;
    progress_queue(q);
    if (blocking)
        wait_event(ev);
    cl_int st = result(ev->status, blocking);
    if (event_out)
        *event_out = ev;
    else
        clReleaseEvent(ev);
    return st;
}

cl_int cgm_cl_submit_kernel(cl_command_queue q, long kernel, const struct cgm_gpu_ndrange *nd,
                            const unsigned char *args, size_t args_bytes, cl_uint n,
                            const cl_event *waits, cl_event *event_out)
{
    if (!n && !event_out && !q->head) {   /* what cgm_cl_submit would do, without the record */
        long rc = cgm_gpu_launch_nd(kernel, nd, args, args_bytes);
        if (rc < 0)
            return cgm_cl_launch_error(rc);
        cgm_cl_launches_pending = 1;
        return CL_SUCCESS;
    }
    struct cl_cmd c = { .op = OP_KERNEL, .type = CL_COMMAND_NDRANGE_KERNEL, .waits = waits,
                        .nwaits = n, .kernel = kernel, .nd = *nd, .args = args,
                        .args_bytes = args_bytes };
    return cgm_cl_submit(q, &c, 0, event_out);
}

/* ---- the API -------------------------------------------------------------- */

CGM_API cl_int clFlush(cl_command_queue q)
{
    cgm_cl_lock();
    cl_int e = cgm_cl_valid(q, K_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
    if (e == CL_SUCCESS)
        progress_queue(q);
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clFinish(cl_command_queue q)
{
    cgm_cl_lock();
    cl_int e = cgm_cl_valid(q, K_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
    if (e == CL_SUCCESS) {
        while (q->head) {
            cgm_cl_progress();
            if (!q->head)
                break;
            cgm_cl_unlock();
            sched_yield();
            cgm_cl_lock();
        }
        cgm_cl_gpu_sync();
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clWaitForEvents(cl_uint n, const cl_event *list)
{
    cgm_cl_lock();
    cl_int e = !n || !list ? CL_INVALID_VALUE : cgm_cl_check_waits(NULL, n, list);
    if (e == CL_INVALID_EVENT_WAIT_LIST)
        e = CL_INVALID_EVENT;
    for (cl_uint i = 1; e == CL_SUCCESS && i < n; i++)
        if (list[i]->ctx != list[0]->ctx)
            e = CL_INVALID_CONTEXT;
    for (cl_uint i = 0; e == CL_SUCCESS && i < n; i++) {
        wait_event(list[i]);
        if (list[i]->status < 0)
            e = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clGetEventInfo(cl_event ev, cl_event_info param, size_t size, void *value,
                              size_t *size_ret)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_EVENT;
    if (cgm_cl_valid(ev, K_EVENT)) {
        cl_uint u = ev->h.refs;
        cl_int st;
        switch (param) {
        case CL_EVENT_COMMAND_QUEUE:
            e = cgm_cl_info(&ev->queue, sizeof ev->queue, size, value, size_ret);
            break;
        case CL_EVENT_CONTEXT: e = cgm_cl_info(&ev->ctx, sizeof ev->ctx, size, value, size_ret); break;
        case CL_EVENT_COMMAND_TYPE:
            e = cgm_cl_info(&ev->type, sizeof ev->type, size, value, size_ret);
            break;
        case CL_EVENT_COMMAND_EXECUTION_STATUS:
            cgm_cl_progress();
            if (ev->status == CL_COMPLETE && ev->launched)
                cgm_cl_gpu_sync();   /* the host now knows the kernel ended */
            st = ev->status;
            e = cgm_cl_info(&st, sizeof st, size, value, size_ret);
            break;
        case CL_EVENT_REFERENCE_COUNT: e = cgm_cl_info(&u, sizeof u, size, value, size_ret); break;
        default: e = CL_INVALID_VALUE;
        }
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clGetEventProfilingInfo(cl_event ev, cl_profiling_info param, size_t size,
                                       void *value, size_t *size_ret)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_EVENT;
    if (cgm_cl_valid(ev, K_EVENT)) {
        if (!ev->queue || !(ev->queue->props & CL_QUEUE_PROFILING_ENABLE) ||
            ev->status != CL_COMPLETE)
            e = CL_PROFILING_INFO_NOT_AVAILABLE;
        else if (param < CL_PROFILING_COMMAND_QUEUED || param > CL_PROFILING_COMMAND_END)
            e = CL_INVALID_VALUE;
        else
            e = cgm_cl_info(&ev->times[param - CL_PROFILING_COMMAND_QUEUED], sizeof(cl_ulong),
                            size, value, size_ret);
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clRetainEvent(cl_event ev)
{
    return cgm_cl_retain(ev, K_EVENT, CL_INVALID_EVENT);
}

CGM_API cl_int clReleaseEvent(cl_event ev)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_EVENT;
    if (cgm_cl_valid(ev, K_EVENT)) {
        e = CL_SUCCESS;
        if (--ev->h.refs == 0) {
            cl_context c = ev->ctx;
            for (struct cl_callback *cb = ev->callbacks, *next; cb; cb = next) {
                next = cb->next;
                free(cb);
            }
            cgm_cl_free(ev);
            clReleaseContext(c);
        }
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_event clCreateUserEvent(cl_context c, cl_int *err)
{
    cgm_cl_lock();
    cl_event ev = NULL;
    cl_int e = CL_SUCCESS;
    if (!cgm_cl_valid(c, K_CONTEXT))
        e = CL_INVALID_CONTEXT;
    else if (!(ev = cgm_cl_event_new(c, NULL, CL_COMMAND_USER)))
        e = CL_OUT_OF_HOST_MEMORY;
    cgm_cl_unlock();
    CGM_SET_ERR(err, e);
    return ev;
}

CGM_API cl_int clSetUserEventStatus(cl_event ev, cl_int status)
{
    cgm_cl_lock();
    cl_int e = CL_SUCCESS;
    if (!cgm_cl_valid(ev, K_EVENT) || ev->queue)
        e = CL_INVALID_EVENT;
    else if (status > CL_COMPLETE)
        e = CL_INVALID_VALUE;
    else if (ev->status <= CL_COMPLETE)
        e = CL_INVALID_OPERATION;
    if (e == CL_SUCCESS) {
        cgm_cl_event_complete(ev, status);
        cgm_cl_progress();
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clSetEventCallback(cl_event ev, cl_int when, event_fn fn, void *user_data)
{
    cgm_cl_lock();
    cl_int e = CL_SUCCESS;
    if (!cgm_cl_valid(ev, K_EVENT))
        e = CL_INVALID_EVENT;
    else if (!fn || (when != CL_COMPLETE && when != CL_SUBMITTED && when != CL_RUNNING))
        e = CL_INVALID_VALUE;
    if (e == CL_SUCCESS) {
        if (ev->status <= when) {   /* already there: call it now */
            cl_int st = ev->status;
            cgm_cl_unlock();
            fn(ev, st < 0 ? st : when, user_data);
            return CL_SUCCESS;
        }
        struct cl_callback *cb = calloc(1, sizeof *cb);
        if (!cb) {
            e = CL_OUT_OF_HOST_MEMORY;
        } else {
            cb->fn = (void (*)())fn;
            cb->user_data = user_data;
            cb->when = when;
            cb->next = ev->callbacks;
            ev->callbacks = cb;
        }
    }
    cgm_cl_unlock();
    return e;
}

static cl_int marker(cl_command_queue q, cl_command_type type, cl_uint n, const cl_event *waits,
                     cl_event *event)
{
    cgm_cl_lock();
    cl_int e = cgm_cl_valid(q, K_QUEUE) ? cgm_cl_check_waits(q, n, waits)
                                        : CL_INVALID_COMMAND_QUEUE;
    if (e == CL_SUCCESS) {
        struct cl_cmd c = { .op = OP_NONE, .type = type, .waits = waits, .nwaits = n };
        e = cgm_cl_submit(q, &c, 0, event);
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *waits,
                                           cl_event *event)
{
    return marker(q, CL_COMMAND_MARKER, n, waits, event);
}

CGM_API cl_int clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint n, const cl_event *waits,
                                            cl_event *event)
{
    return marker(q, CL_COMMAND_BARRIER, n, waits, event);
}

CGM_API cl_int clEnqueueMarker(cl_command_queue q, cl_event *event)
{
    if (!event)
        return CL_INVALID_VALUE;
    return marker(q, CL_COMMAND_MARKER, 0, NULL, event);
}

CGM_API cl_int clEnqueueBarrier(cl_command_queue q)
{
    return marker(q, CL_COMMAND_BARRIER, 0, NULL, NULL);
}

CGM_API cl_int clEnqueueWaitForEvents(cl_command_queue q, cl_uint n, const cl_event *list)
{
    if (!n || !list)
        return CL_INVALID_VALUE;
    cl_int e = marker(q, CL_COMMAND_MARKER, n, list, NULL);
    return e == CL_INVALID_EVENT_WAIT_LIST ? CL_INVALID_EVENT : e;
}
