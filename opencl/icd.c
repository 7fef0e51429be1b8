/* The ICD dispatch table the ocl-icd loader calls through (every object's
 * first field points at it), the extension-function lookup the loader uses
 * to find clIcdGetPlatformIDsKHR, and clCreateCommandQueueWithProperties for
 * programs built against newer headers. Entries of interop extensions the
 * platform does not report (GL, D3D, DX9, EGL) and of OpenCL 2.x stay empty:
 * the platform says OpenCL 1.2 and lists no such extension. */
#define CL_TARGET_OPENCL_VERSION 300
#include "cl_internal.h"

#include <CL/cl_icd.h>
#include <string.h>

CGM_API cl_command_queue clCreateCommandQueueWithProperties(cl_context c, cl_device_id device,
                                                            const cl_queue_properties *props,
                                                            cl_int *err)
{
    cl_command_queue_properties qp = 0;
    for (size_t i = 0; props && props[i]; i += 2) {
        if (props[i] != CL_QUEUE_PROPERTIES) {
            CGM_SET_ERR(err, CL_INVALID_VALUE);
            return NULL;
        }
        qp = (cl_command_queue_properties)props[i + 1];
    }
    return clCreateCommandQueue(c, device, qp, err);
}

CGM_EXPORT void *clGetExtensionFunctionAddress(const char *name);

CGM_EXPORT void *clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                          const char *name)
{
    return platform == &cgm_cl_platform ? clGetExtensionFunctionAddress(name) : NULL;
}

#if defined(CGM_OPENCL_ICD)
static const struct _cl_icd_dispatch table = {
#define E(f) .f = f,
    E(clGetPlatformIDs) E(clGetPlatformInfo) E(clGetDeviceIDs) E(clGetDeviceInfo)
    E(clCreateContext) E(clCreateContextFromType) E(clRetainContext) E(clReleaseContext)
    E(clGetContextInfo) E(clCreateCommandQueue) E(clRetainCommandQueue)
    E(clReleaseCommandQueue) E(clGetCommandQueueInfo) E(clSetCommandQueueProperty)
    E(clCreateBuffer) E(clCreateImage2D) E(clCreateImage3D) E(clRetainMemObject)
    E(clReleaseMemObject) E(clGetSupportedImageFormats) E(clGetMemObjectInfo)
    E(clGetImageInfo) E(clCreateSampler) E(clRetainSampler) E(clReleaseSampler)
    E(clGetSamplerInfo) E(clCreateProgramWithSource) E(clCreateProgramWithBinary)
    E(clRetainProgram) E(clReleaseProgram) E(clBuildProgram) E(clUnloadCompiler)
    E(clGetProgramInfo) E(clGetProgramBuildInfo) E(clCreateKernel) E(clCreateKernelsInProgram)
    E(clRetainKernel) E(clReleaseKernel) E(clSetKernelArg) E(clGetKernelInfo)
    E(clGetKernelWorkGroupInfo) E(clWaitForEvents) E(clGetEventInfo) E(clRetainEvent)
    E(clReleaseEvent) E(clGetEventProfilingInfo) E(clFlush) E(clFinish)
    E(clEnqueueReadBuffer) E(clEnqueueWriteBuffer) E(clEnqueueCopyBuffer)
    E(clEnqueueReadImage) E(clEnqueueWriteImage) E(clEnqueueCopyImage)
    E(clEnqueueCopyImageToBuffer) E(clEnqueueCopyBufferToImage) E(clEnqueueMapBuffer)
    E(clEnqueueMapImage) E(clEnqueueUnmapMemObject) E(clEnqueueNDRangeKernel)
    E(clEnqueueTask) E(clEnqueueNativeKernel) E(clEnqueueMarker) E(clEnqueueWaitForEvents)
    E(clEnqueueBarrier) E(clGetExtensionFunctionAddress)
    E(clSetEventCallback) E(clCreateSubBuffer) E(clSetMemObjectDestructorCallback)
    E(clCreateUserEvent) E(clSetUserEventStatus) E(clEnqueueReadBufferRect)
    E(clEnqueueWriteBufferRect) E(clEnqueueCopyBufferRect)
    E(clCreateSubDevices) E(clRetainDevice) E(clReleaseDevice) E(clCreateImage)
    E(clCreateProgramWithBuiltInKernels) E(clCompileProgram) E(clLinkProgram)
    E(clUnloadPlatformCompiler) E(clGetKernelArgInfo) E(clEnqueueFillBuffer)
    E(clEnqueueFillImage) E(clEnqueueMigrateMemObjects) E(clEnqueueMarkerWithWaitList)
    E(clEnqueueBarrierWithWaitList) E(clGetExtensionFunctionAddressForPlatform)
    E(clCreateCommandQueueWithProperties)
#undef E
};
const void *cgm_cl_dispatch = &table;
#else
const void *cgm_cl_dispatch = NULL;
#endif

CGM_EXPORT void *clGetExtensionFunctionAddress(const char *name)
{
    /* the loader's entry points: it asks for clGetPlatformInfo this way too,
     * to read the platform's ICD suffix before it trusts the dispatch table */
    if (name && !strcmp(name, "clIcdGetPlatformIDsKHR"))
        return (void *)clIcdGetPlatformIDsKHR;
    if (name && !strcmp(name, "clGetPlatformInfo"))
        return (void *)clGetPlatformInfo;
    return NULL;
}
