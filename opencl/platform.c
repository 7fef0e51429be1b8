/* The platform and its one device: a Southern Islands GPU (gfx600) run by
 * tracegen's emulator. What the device reports comes from the driver
 * (cgm_gpu_query CGM_GPU_Q_DEVICE); the rest is OpenCL 1.2 full profile with
 * what the emulator lacks left out (images, printf). */
#include <string.h>

#include "cl_internal.h"

struct _cl_platform_id cgm_cl_platform = { { NULL, K_PLATFORM, 1 } };
struct _cl_device_id cgm_cl_device = { { NULL, K_DEVICE, 1 }, { 0 } };

#define PLATFORM_NAME    "cgmtrace"
#define PLATFORM_VENDOR  "cgmtrace"
#define PLATFORM_VERSION "OpenCL 1.2 cgmtrace"
#define ICD_SUFFIX       "CGM"
#define DEVICE_NAME      "Southern Islands (gfx600, tracegen)"
#define FP64_EXTENSION "cl_khr_fp64 "
#define DEVICE_EXTENSIONS                                                                      \
    "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics "                  \
    "cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics cl_khr_byte_addressable_store"

int cgm_cl_platform_ready(void)
{
    extern const void *cgm_cl_dispatch;
    static int ready = -1;
    if (ready >= 0)
        return ready;
    cgm_cl_platform.h.dispatch = cgm_cl_dispatch;
    cgm_cl_device.h.dispatch = cgm_cl_dispatch;
    ready = cgm_gpu_available() &&
            cgm_gpu_query(CGM_GPU_Q_DEVICE, 0, 0, &cgm_cl_device.info,
                          sizeof cgm_cl_device.info) == (long)sizeof cgm_cl_device.info;
    return ready;
}

CGM_EXPORT cl_int clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id *platforms,
                                         cl_uint *num_platforms);

CGM_API cl_int clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms,
                                cl_uint *num_platforms)
{
    if ((!num_entries && platforms) || (!platforms && !num_platforms))
        return CL_INVALID_VALUE;
    cgm_cl_lock();
    int ok = cgm_cl_platform_ready();
    cgm_cl_unlock();
    if (num_platforms)
        *num_platforms = ok ? 1 : 0;
    if (!ok)
        return CL_PLATFORM_NOT_FOUND_KHR;
    if (platforms)
        platforms[0] = &cgm_cl_platform;
    return CL_SUCCESS;
}

CGM_EXPORT cl_int clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id *platforms,
                                         cl_uint *num_platforms)
{
    return clGetPlatformIDs(num_entries, platforms, num_platforms);
}

CGM_API cl_int clGetPlatformInfo(cl_platform_id platform, cl_platform_info param,
                                 size_t size, void *value, size_t *size_ret)
{
    if (platform && platform != &cgm_cl_platform)
        return CL_INVALID_PLATFORM;
    switch (param) {
    case CL_PLATFORM_PROFILE: return cgm_cl_info_str("FULL_PROFILE", size, value, size_ret);
    case CL_PLATFORM_VERSION: return cgm_cl_info_str(PLATFORM_VERSION, size, value, size_ret);
    case CL_PLATFORM_NAME: return cgm_cl_info_str(PLATFORM_NAME, size, value, size_ret);
    case CL_PLATFORM_VENDOR: return cgm_cl_info_str(PLATFORM_VENDOR, size, value, size_ret);
    case CL_PLATFORM_EXTENSIONS: return cgm_cl_info_str("cl_khr_icd", size, value, size_ret);
    case CL_PLATFORM_ICD_SUFFIX_KHR: return cgm_cl_info_str(ICD_SUFFIX, size, value, size_ret);
    default: return CL_INVALID_VALUE;
    }
}

CGM_API cl_int clGetDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint num_entries,
                              cl_device_id *devices, cl_uint *num_devices)
{
    if (platform && platform != &cgm_cl_platform)
        return CL_INVALID_PLATFORM;
    const cl_device_type known = CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                 CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM |
                                 CL_DEVICE_TYPE_DEFAULT;
    if (type != CL_DEVICE_TYPE_ALL && (!type || (type & ~known)))
        return CL_INVALID_DEVICE_TYPE;
    if ((!num_entries && devices) || (!devices && !num_devices))
        return CL_INVALID_VALUE;
    cgm_cl_lock();
    int ok = cgm_cl_platform_ready();
    cgm_cl_unlock();
    int match = ok && (type == CL_DEVICE_TYPE_ALL || (type & (CL_DEVICE_TYPE_GPU |
                                                               CL_DEVICE_TYPE_DEFAULT)));
    if (num_devices)
        *num_devices = match ? 1 : 0;
    if (!match)
        return CL_DEVICE_NOT_FOUND;
    if (devices)
        devices[0] = &cgm_cl_device;
    return CL_SUCCESS;
}

CGM_API cl_int clGetDeviceInfo(cl_device_id device, cl_device_info param, size_t size,
                               void *value, size_t *size_ret)
{
    if (device != &cgm_cl_device || !cgm_cl_platform_ready())
        return CL_INVALID_DEVICE;
    const struct cgm_gpu_device_info *d = &cgm_cl_device.info;
    cl_uint u;
    cl_ulong ul;
    size_t sz, dims[3];
    cl_bool b;
    cl_device_fp_config fp;
#define U(v) (u = (cl_uint)(v), cgm_cl_info(&u, sizeof u, size, value, size_ret))
#define UL(v) (ul = (cl_ulong)(v), cgm_cl_info(&ul, sizeof ul, size, value, size_ret))
#define SZ(v) (sz = (size_t)(v), cgm_cl_info(&sz, sizeof sz, size, value, size_ret))
#define B(v) (b = (v) ? CL_TRUE : CL_FALSE, cgm_cl_info(&b, sizeof b, size, value, size_ret))
#define S(v) cgm_cl_info_str(v, size, value, size_ret)
    switch (param) {
    case CL_DEVICE_TYPE: { cl_device_type t = CL_DEVICE_TYPE_GPU;
        return cgm_cl_info(&t, sizeof t, size, value, size_ret); }
    case CL_DEVICE_VENDOR_ID: return U(0x1002);
    case CL_DEVICE_MAX_COMPUTE_UNITS: return U(d->compute_units);
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: return U(3);
    case CL_DEVICE_MAX_WORK_ITEM_SIZES:
        dims[0] = dims[1] = dims[2] = d->max_workgroup_size;
        return cgm_cl_info(dims, sizeof dims, size, value, size_ret);
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: return SZ(d->max_workgroup_size);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR: case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR: return U(4);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT: case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT: return U(2);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT: case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG: case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT: case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE: case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
        return U(param == CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE ||
                 param == CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE ? (d->doubles ? 1 : 0) : 1);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF: case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: return U(0);
    case CL_DEVICE_MAX_CLOCK_FREQUENCY: return U(925);     /* MHz, a Radeon HD 7970's */
    case CL_DEVICE_ADDRESS_BITS: return U(64);
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: return UL(1ull << 30);
    case CL_DEVICE_GLOBAL_MEM_SIZE: return UL(4ull << 30);
    case CL_DEVICE_IMAGE_SUPPORT: return B(0);
    case CL_DEVICE_MAX_READ_IMAGE_ARGS: case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
    case CL_DEVICE_MAX_SAMPLERS: return U(0);
    case CL_DEVICE_IMAGE2D_MAX_WIDTH: case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_WIDTH: case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH: case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: return SZ(0);
    case CL_DEVICE_MAX_PARAMETER_SIZE: return SZ(d->max_args_bytes);
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: return U(1024);   /* bits: 128 bytes */
    case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: return U(128);
    case CL_DEVICE_SINGLE_FP_CONFIG:
        fp = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA;
        return cgm_cl_info(&fp, sizeof fp, size, value, size_ret);
    case CL_DEVICE_DOUBLE_FP_CONFIG:
        fp = d->doubles ? CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                              CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_FMA : 0;
        return cgm_cl_info(&fp, sizeof fp, size, value, size_ret);
    case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE: { cl_device_mem_cache_type t = CL_READ_WRITE_CACHE;
        return cgm_cl_info(&t, sizeof t, size, value, size_ret); }
    case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: return U(64);
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: return UL(16 << 10);
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: return UL(64 << 10);
    case CL_DEVICE_MAX_CONSTANT_ARGS: return U(8);
    case CL_DEVICE_LOCAL_MEM_TYPE: { cl_device_local_mem_type t = CL_LOCAL;
        return cgm_cl_info(&t, sizeof t, size, value, size_ret); }
    case CL_DEVICE_LOCAL_MEM_SIZE: return UL(d->lds_bytes);
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT: return B(0);
    case CL_DEVICE_HOST_UNIFIED_MEMORY: return B(1);      /* one address space (HSA) */
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION: return SZ(1);
    case CL_DEVICE_ENDIAN_LITTLE: case CL_DEVICE_AVAILABLE: case CL_DEVICE_COMPILER_AVAILABLE:
    case CL_DEVICE_LINKER_AVAILABLE:
        return B(1);
    case CL_DEVICE_EXECUTION_CAPABILITIES: { cl_device_exec_capabilities c = CL_EXEC_KERNEL;
        return cgm_cl_info(&c, sizeof c, size, value, size_ret); }
    case CL_DEVICE_QUEUE_PROPERTIES: { cl_command_queue_properties p =
            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
        return cgm_cl_info(&p, sizeof p, size, value, size_ret); }
    case CL_DEVICE_PLATFORM: { cl_platform_id p = &cgm_cl_platform;
        return cgm_cl_info(&p, sizeof p, size, value, size_ret); }
    case CL_DEVICE_NAME: return S(DEVICE_NAME);
    case CL_DEVICE_VENDOR: return S("cgmtrace");
    case CL_DRIVER_VERSION: return S("1.0");
    case CL_DEVICE_PROFILE: return S("FULL_PROFILE");
    case CL_DEVICE_VERSION: return S("OpenCL 1.2 cgmtrace");
    case CL_DEVICE_OPENCL_C_VERSION: return S("OpenCL C 1.2 ");
    case CL_DEVICE_EXTENSIONS: return S(d->doubles ? FP64_EXTENSION DEVICE_EXTENSIONS : DEVICE_EXTENSIONS);
    case CL_DEVICE_BUILT_IN_KERNELS: return S("");
    case CL_DEVICE_PRINTF_BUFFER_SIZE: return SZ(0);
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: return B(1);
    case CL_DEVICE_PARENT_DEVICE: { cl_device_id p = NULL;
        return cgm_cl_info(&p, sizeof p, size, value, size_ret); }
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: return U(0);
    case CL_DEVICE_PARTITION_PROPERTIES: case CL_DEVICE_PARTITION_TYPE: {
        cl_device_partition_property p = 0;
        return cgm_cl_info(&p, sizeof p, size, value, size_ret); }
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN: { cl_device_affinity_domain a = 0;
        return cgm_cl_info(&a, sizeof a, size, value, size_ret); }
    case CL_DEVICE_REFERENCE_COUNT: return U(1);
    case CL_DEVICE_WAVEFRONT_WIDTH_AMD: return U(d->wavefront_size);
    default: return CL_INVALID_VALUE;
    }
#undef U
#undef UL
#undef SZ
#undef B
#undef S
}

CGM_API cl_int clRetainDevice(cl_device_id device)
{
    return device == &cgm_cl_device ? CL_SUCCESS : CL_INVALID_DEVICE;
}

CGM_API cl_int clReleaseDevice(cl_device_id device)
{
    return device == &cgm_cl_device ? CL_SUCCESS : CL_INVALID_DEVICE;
}

CGM_API cl_int clCreateSubDevices(cl_device_id device, const cl_device_partition_property *props,
                                  cl_uint n, cl_device_id *out, cl_uint *n_ret)
{
    (void)props; (void)n; (void)out; (void)n_ret;
    return device == &cgm_cl_device ? CL_INVALID_VALUE : CL_INVALID_DEVICE;
}

CGM_API cl_int clUnloadCompiler(void)
{
    return CL_SUCCESS;
}

CGM_API cl_int clUnloadPlatformCompiler(cl_platform_id platform)
{
    return platform == &cgm_cl_platform ? CL_SUCCESS : CL_INVALID_PLATFORM;
}
