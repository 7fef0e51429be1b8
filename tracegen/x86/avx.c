/* VEX instructions without a legacy SSE twin. */
#include <capstone/capstone.h>

#include "tracegen/x86/simd.h"

int x86_avx_exec(struct x86_cpu *c, const struct x86_dinsn *in)
{
    (void)c;
    (void)in;
    return 0;
}
