/* Images and samplers: the device has none (CL_DEVICE_IMAGE_SUPPORT is
 * false), so creating one is CL_INVALID_OPERATION, as the standard says for
 * a context without image support, and no image handle can be valid. A
 * kernel that uses images fails to build (tracegen's loader names the
 * image function or argument). */
#include "cl_internal.h"

CGM_API cl_mem clCreateImage(cl_context c, cl_mem_flags flags, const cl_image_format *format,
                             const cl_image_desc *desc, void *host_ptr, cl_int *err)
{
    (void)flags; (void)format; (void)desc; (void)host_ptr;
    CGM_SET_ERR(err, cgm_cl_valid_locked(c, K_CONTEXT) ? CL_INVALID_OPERATION : CL_INVALID_CONTEXT);
    return NULL;
}

CGM_API cl_mem clCreateImage2D(cl_context c, cl_mem_flags flags, const cl_image_format *format,
                               size_t w, size_t h, size_t pitch, void *host_ptr, cl_int *err)
{
    (void)w; (void)h; (void)pitch;
    return clCreateImage(c, flags, format, NULL, host_ptr, err);
}

CGM_API cl_mem clCreateImage3D(cl_context c, cl_mem_flags flags, const cl_image_format *format,
                               size_t w, size_t h, size_t d, size_t row, size_t slice,
                               void *host_ptr, cl_int *err)
{
    (void)w; (void)h; (void)d; (void)row; (void)slice;
    return clCreateImage(c, flags, format, NULL, host_ptr, err);
}

CGM_API cl_int clGetSupportedImageFormats(cl_context c, cl_mem_flags flags,
                                          cl_mem_object_type type, cl_uint n,
                                          cl_image_format *formats, cl_uint *n_ret)
{
    (void)flags; (void)type; (void)n; (void)formats;
    if (!cgm_cl_valid_locked(c, K_CONTEXT))
        return CL_INVALID_CONTEXT;
    if (n_ret)
        *n_ret = 0;
    return CL_SUCCESS;
}

CGM_API cl_int clGetImageInfo(cl_mem image, cl_image_info param, size_t size, void *value,
                              size_t *size_ret)
{
    (void)image; (void)param; (void)size; (void)value; (void)size_ret;
    return CL_INVALID_MEM_OBJECT;
}

/* Every image command: Q checked, then no image can be valid. */
static cl_int no_image(cl_command_queue q)
{
    return cgm_cl_valid_locked(q, K_QUEUE) ? CL_INVALID_MEM_OBJECT : CL_INVALID_COMMAND_QUEUE;
}

CGM_API cl_int clEnqueueReadImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                  const size_t *origin, const size_t *region, size_t row,
                                  size_t slice, void *ptr, cl_uint n, const cl_event *waits,
                                  cl_event *event)
{
    (void)image; (void)blocking; (void)origin; (void)region; (void)row; (void)slice; (void)ptr;
    (void)n; (void)waits; (void)event;
    return no_image(q);
}

CGM_API cl_int clEnqueueWriteImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                   const size_t *origin, const size_t *region, size_t row,
                                   size_t slice, const void *ptr, cl_uint n,
                                   const cl_event *waits, cl_event *event)
{
    (void)image; (void)blocking; (void)origin; (void)region; (void)row; (void)slice; (void)ptr;
    (void)n; (void)waits; (void)event;
    return no_image(q);
}

CGM_API cl_int clEnqueueCopyImage(cl_command_queue q, cl_mem src, cl_mem dst,
                                  const size_t *src_origin, const size_t *dst_origin,
                                  const size_t *region, cl_uint n, const cl_event *waits,
                                  cl_event *event)
{
    (void)src; (void)dst; (void)src_origin; (void)dst_origin; (void)region; (void)n; (void)waits;
    (void)event;
    return no_image(q);
}

CGM_API cl_int clEnqueueFillImage(cl_command_queue q, cl_mem image, const void *color,
                                  const size_t *origin, const size_t *region, cl_uint n,
                                  const cl_event *waits, cl_event *event)
{
    (void)image; (void)color; (void)origin; (void)region; (void)n; (void)waits; (void)event;
    return no_image(q);
}

CGM_API cl_int clEnqueueCopyImageToBuffer(cl_command_queue q, cl_mem src, cl_mem dst,
                                          const size_t *origin, const size_t *region,
                                          size_t offset, cl_uint n, const cl_event *waits,
                                          cl_event *event)
{
    (void)src; (void)dst; (void)origin; (void)region; (void)offset; (void)n; (void)waits;
    (void)event;
    return no_image(q);
}

CGM_API cl_int clEnqueueCopyBufferToImage(cl_command_queue q, cl_mem src, cl_mem dst,
                                          size_t offset, const size_t *origin,
                                          const size_t *region, cl_uint n,
                                          const cl_event *waits, cl_event *event)
{
    (void)src; (void)dst; (void)offset; (void)origin; (void)region; (void)n; (void)waits;
    (void)event;
    return no_image(q);
}

CGM_API void *clEnqueueMapImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                cl_map_flags flags, const size_t *origin, const size_t *region,
                                size_t *row, size_t *slice, cl_uint n, const cl_event *waits,
                                cl_event *event, cl_int *err)
{
    (void)image; (void)blocking; (void)flags; (void)origin; (void)region; (void)row;
    (void)slice; (void)n; (void)waits; (void)event;
    CGM_SET_ERR(err, no_image(q));
    return NULL;
}

CGM_API cl_sampler clCreateSampler(cl_context c, cl_bool normalized, cl_addressing_mode am,
                                   cl_filter_mode fm, cl_int *err)
{
    (void)normalized; (void)am; (void)fm;
    CGM_SET_ERR(err, cgm_cl_valid_locked(c, K_CONTEXT) ? CL_INVALID_OPERATION : CL_INVALID_CONTEXT);
    return NULL;
}

CGM_API cl_int clRetainSampler(cl_sampler s)
{
    (void)s;
    return CL_INVALID_SAMPLER;
}

CGM_API cl_int clReleaseSampler(cl_sampler s)
{
    (void)s;
    return CL_INVALID_SAMPLER;
}

CGM_API cl_int clGetSamplerInfo(cl_sampler s, cl_sampler_info param, size_t size, void *value,
                                size_t *size_ret)
{
    (void)s; (void)param; (void)size; (void)value; (void)size_ret;
    return CL_INVALID_SAMPLER;
}
