/* Contexts (of the one device) and command queues (in order; the
 * out-of-order property is accepted and the commands still run in order). */
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"

typedef void(CL_CALLBACK *notify_fn)(const char *, const void *, size_t, void *);

static cl_int check_props(const cl_context_properties *props, cl_context c)
{
    size_t n = 0;
    for (; props && props[n]; n += 2) {
        if (props[n] != CL_CONTEXT_PLATFORM && props[n] != CL_CONTEXT_INTEROP_USER_SYNC)
            return CL_INVALID_PROPERTY;
        if (props[n] == CL_CONTEXT_PLATFORM && (cl_platform_id)props[n + 1] != &cgm_cl_platform)
            return CL_INVALID_PLATFORM;
        for (size_t i = 0; i < n; i += 2)
            if (props[i] == props[n])
                return CL_INVALID_PROPERTY;
        if (n + 3 > sizeof c->props / sizeof *c->props)
            return CL_INVALID_PROPERTY;
    }
    if (props) {
        memcpy(c->props, props, (n + 1) * sizeof *props);
        c->nprops = n + 1;
    }
    return CL_SUCCESS;
}

static cl_context make_context(const cl_context_properties *props, notify_fn notify,
                               void *user_data, cl_int *err)
{
    cl_context c = cgm_cl_new(sizeof *c, K_CONTEXT);
    if (!c) {
        CGM_SET_ERR(err, CL_OUT_OF_HOST_MEMORY);
        return NULL;
    }
    cl_int e = check_props(props, c);
    if (e != CL_SUCCESS) {
        cgm_cl_free(c);
        CGM_SET_ERR(err, e);
        return NULL;
    }
    c->notify = notify;
    c->notify_data = user_data;
    CGM_SET_ERR(err, CL_SUCCESS);
    return c;
}

CGM_API cl_context clCreateContext(const cl_context_properties *props, cl_uint ndevices,
                                   const cl_device_id *devices, notify_fn notify,
                                   void *user_data, cl_int *err)
{
    if (!ndevices || !devices || (!notify && user_data)) {
        CGM_SET_ERR(err, CL_INVALID_VALUE);
        return NULL;
    }
    for (cl_uint i = 0; i < ndevices; i++)
        if (devices[i] != &cgm_cl_device || !cgm_cl_platform_ready()) {
            CGM_SET_ERR(err, CL_INVALID_DEVICE);
            return NULL;
        }
    cgm_cl_lock();
    cl_context c = make_context(props, notify, user_data, err);
    cgm_cl_unlock();
    return c;
}

CGM_API cl_context clCreateContextFromType(const cl_context_properties *props,
                                           cl_device_type type, notify_fn notify,
                                           void *user_data, cl_int *err)
{
    if (!notify && user_data) {
        CGM_SET_ERR(err, CL_INVALID_VALUE);
        return NULL;
    }
    cl_device_id dev;
    cl_int e = clGetDeviceIDs(&cgm_cl_platform, type, 1, &dev, NULL);
    if (e != CL_SUCCESS) {
        CGM_SET_ERR(err, e);
        return NULL;
    }
    cgm_cl_lock();
    cl_context c = make_context(props, notify, user_data, err);
    cgm_cl_unlock();
    return c;
}

CGM_API cl_int clRetainContext(cl_context c)
{
    return cgm_cl_retain(c, K_CONTEXT, CL_INVALID_CONTEXT);
}

CGM_API cl_int clReleaseContext(cl_context c)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_CONTEXT;
    if (cgm_cl_valid(c, K_CONTEXT)) {
        e = CL_SUCCESS;
        if (--c->h.refs == 0)
            cgm_cl_free(c);
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clGetContextInfo(cl_context c, cl_context_info param, size_t size, void *value,
                                size_t *size_ret)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_CONTEXT;
    if (cgm_cl_valid(c, K_CONTEXT)) {
        cl_uint u;
        cl_device_id dev = &cgm_cl_device;
        switch (param) {
        case CL_CONTEXT_REFERENCE_COUNT:
            u = c->h.refs;
            e = cgm_cl_info(&u, sizeof u, size, value, size_ret);
            break;
        case CL_CONTEXT_NUM_DEVICES:
            u = 1;
            e = cgm_cl_info(&u, sizeof u, size, value, size_ret);
            break;
        case CL_CONTEXT_DEVICES:
            e = cgm_cl_info(&dev, sizeof dev, size, value, size_ret);
            break;
        case CL_CONTEXT_PROPERTIES:
            e = cgm_cl_info(c->props, c->nprops * sizeof *c->props, size, value, size_ret);
            break;
        default: e = CL_INVALID_VALUE;
        }
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_command_queue clCreateCommandQueue(cl_context c, cl_device_id device,
                                              cl_command_queue_properties props, cl_int *err)
{
    cgm_cl_lock();
    cl_command_queue q = NULL;
    cl_int e = CL_SUCCESS;
    if (!cgm_cl_valid(c, K_CONTEXT))
        e = CL_INVALID_CONTEXT;
    else if (device != &cgm_cl_device)
        e = CL_INVALID_DEVICE;
    else if (props & ~(cl_command_queue_properties)(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                    CL_QUEUE_PROFILING_ENABLE))
        e = CL_INVALID_VALUE;
    else if (!(q = cgm_cl_new(sizeof *q, K_QUEUE)))
        e = CL_OUT_OF_HOST_MEMORY;
    if (q) {
        q->ctx = c;
        q->props = props;
        c->h.refs++;
        cgm_cl_register_queue(q);
    }
    cgm_cl_unlock();
    CGM_SET_ERR(err, e);
    return q;
}

CGM_API cl_int clRetainCommandQueue(cl_command_queue q)
{
    return cgm_cl_retain(q, K_QUEUE, CL_INVALID_COMMAND_QUEUE);
}

CGM_API cl_int clFinish(cl_command_queue q);

CGM_API cl_int clReleaseCommandQueue(cl_command_queue q)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_COMMAND_QUEUE;
    if (cgm_cl_valid(q, K_QUEUE)) {
        e = CL_SUCCESS;
        if (q->h.refs == 1)
            clFinish(q);    /* releasing a queue flushes it; its commands end first */
        if (--q->h.refs == 0) {
            cgm_cl_unregister_queue(q);
            cl_context c = q->ctx;
            cgm_cl_free(q);
            clReleaseContext(c);
        }
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param,
                                     size_t size, void *value, size_t *size_ret)
{
    cgm_cl_lock();
    cl_int e = CL_INVALID_COMMAND_QUEUE;
    if (cgm_cl_valid(q, K_QUEUE)) {
        cl_uint u = q->h.refs;
        cl_device_id dev = &cgm_cl_device;
        switch (param) {
        case CL_QUEUE_CONTEXT: e = cgm_cl_info(&q->ctx, sizeof q->ctx, size, value, size_ret); break;
        case CL_QUEUE_DEVICE: e = cgm_cl_info(&dev, sizeof dev, size, value, size_ret); break;
        case CL_QUEUE_REFERENCE_COUNT: e = cgm_cl_info(&u, sizeof u, size, value, size_ret); break;
        case CL_QUEUE_PROPERTIES:
            e = cgm_cl_info(&q->props, sizeof q->props, size, value, size_ret);
            break;
        default: e = CL_INVALID_VALUE;
        }
    }
    cgm_cl_unlock();
    return e;
}

CGM_API cl_int clSetCommandQueueProperty(cl_command_queue q, cl_command_queue_properties props,
                                         cl_bool enable, cl_command_queue_properties *old)
{
    (void)props; (void)enable; (void)old;
    return cgm_cl_valid_locked(q, K_QUEUE) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}
