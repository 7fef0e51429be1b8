#!/bin/sh
# The coherence random tester at five times its make-test length (about 55
# million requests over the default and the small configurations).
cd "$(dirname "$0")/../.." || exit 2
make -s build/tests/models/test_coh_random || exit 1
CGM_COH_SCALE=${CGM_COH_SCALE:-5} build/tests/models/test_coh_random
