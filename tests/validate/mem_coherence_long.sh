#!/bin/sh
# The coherence random testers at five times their nominal length, which
# make test runs 0.3 of: about 55 million requests over the CPU
# configurations under MESI and 55 million under MOESI, 50 million over
# the four CPU-GPU organisations and 10 million with MOESI's cores beside
# the GPU.
cd "$(dirname "$0")/../.." || exit 2
make -s build/tests/models/test_coh_random build/tests/models/test_coh_gpu_random || exit 1
CGM_COH_SCALE=${CGM_COH_SCALE:-5} build/tests/models/test_coh_random || exit 1
CGM_COH_SCALE=${CGM_COH_SCALE:-5} build/tests/models/test_coh_gpu_random
