#!/bin/sh
# The differential kernel fuzzer at length: test_si_fuzz (PoCL against the
# SI emulator, bit for bit) on 1000 kernels of each of three seeds other
# than the one make test runs (CGM_SI_FUZZ_KERNELS and CGM_SI_FUZZ_SEEDS
# change that). A mismatch leaves the kernel's source in build/si_fuzz/.
make --no-print-directory build/tests/tracegen/test_si_fuzz kernels >/dev/null || exit 1
keep=$(pwd)/build/si_fuzz
mkdir -p "$keep"
out=$(mktemp)
status=0
for seed in ${CGM_SI_FUZZ_SEEDS:-101 202 303}; do
    if CGM_SI_FUZZ_SEED=$seed CGM_SI_FUZZ_KERNELS=${CGM_SI_FUZZ_KERNELS:-1000} \
        CGM_SI_FUZZ_KEEP="$keep" CMOCKA_MESSAGE_OUTPUT=stdout \
        build/tests/tracegen/test_si_fuzz >"$out" 2>&1; then
        grep 'kernels of seed' "$out"
    else
        grep -E 'kernels of seed|ERROR|seed [0-9]+ kernel' "$out"
        status=1
    fi
done
rm -f "$out"
exit $status
