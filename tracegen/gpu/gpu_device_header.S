/* traces/include/cgm_device.h inside tracegen, for the OpenCL C programs it
 * compiles (gpu_build.c): a recording needs no source tree. */
        .section .rodata
        .globl gpu_device_header
        .globl gpu_device_header_end
gpu_device_header:
        .incbin "traces/include/cgm_device.h"
gpu_device_header_end:
        .byte 0
        .section .note.GNU-stack,"",@progbits
