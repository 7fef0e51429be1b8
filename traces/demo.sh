#!/bin/sh
# make demo: record the bundled workload with tracegen, inspect the trace
# with tracetool, and replay it under two configurations; then record a
# heterogeneous workload (an unmodified OpenCL program) and replay it with a
# non-coherent GPU on the memory controller (NC-MC) and a coherent GPU on
# the L3 (C-L3).
set -e
BIN=${1:-bin}
GUEST=${2:-build/traces/x86/musl/malloc_qsort}
CL_GUEST=${3:-build/traces/opencl/dyn/backprop}
OUT=${CGM_DEMO_OUT:-build/demo}
mkdir -p "$OUT"
TRACE=$OUT/demo.cgt

echo "== native run of $GUEST"
"$GUEST" > "$OUT/native.out"
cat "$OUT/native.out"

echo "== tracegen: emulate and record"
"$BIN/tracegen" --stats -o "$TRACE" -- "$GUEST" > "$OUT/traced.out"
cat "$OUT/traced.out"
if cmp -s "$OUT/native.out" "$OUT/traced.out"; then
    echo "guest output under tracegen equals the native run"
else
    echo "guest output under tracegen DIFFERS from the native run" >&2
    exit 1
fi

echo "== tracetool verify"
"$BIN/tracetool" verify "$TRACE"
echo "== tracetool info"
"$BIN/tracetool" info "$TRACE"
echo "== tracetool stats"
"$BIN/tracetool" stats "$TRACE"
echo "== tracetool dump (first records of the first thread)"
"$BIN/tracetool" dump --count 12 "$TRACE" | head -n 14

echo "== replay under two configurations: the seed's system and a small one"
for cfg in seed small; do
    echo "-- traces/configs/$cfg.ini"
    "$BIN/replay" -c "traces/configs/$cfg.ini" -o "$OUT/stats-$cfg.json" "$TRACE"
done
# The first "cycles" of each file is the whole run's.
big=$(grep -m1 '"cycles"' "$OUT/stats-seed.json" | tr -dc 0-9)
small=$(grep -m1 '"cycles"' "$OUT/stats-small.json" | tr -dc 0-9)
awk -v b="$big" -v s="$small" 'BEGIN { printf "comparison: the small system takes %.2fx the cycles of the seed'"'"'s (%d vs %d)\n", s / b, s, b }'
echo "statistics in $OUT/stats-seed.json and $OUT/stats-small.json"

echo
echo "== heterogeneous: $CL_GUEST, an OpenCL program linked with -lOpenCL"
echo "-- native run (the host's OpenCL platform)"
"$CL_GUEST" > "$OUT/cl-native.out"
cat "$OUT/cl-native.out"
echo "-- tracegen (the guest's OpenCL platform, found with no setup)"
"$BIN/tracegen" -o "$OUT/cl.cgt" -- "$CL_GUEST" > "$OUT/cl-traced.out"
cat "$OUT/cl-traced.out"
if cmp -s "$OUT/cl-native.out" "$OUT/cl-traced.out"; then
    echo "guest output under tracegen equals the native run"
else
    echo "guest output under tracegen DIFFERS from the native run" >&2
    exit 1
fi
"$BIN/tracetool" verify "$OUT/cl.cgt"
# The region of interest (buffers made, kernels, results read back): its
# cycles, kernels, copies and breakdown per organisation.
for org in NC-MC C-L3; do
    case $org in
    NC-MC) set -- noncoherent mc ;;
    C-L3)  set -- coherent l3 ;;
    esac
    echo "-- replay in $org (gpu.coherence = $1, gpu.connection = $2)"
    "$BIN/replay" -c traces/configs/seed.ini --set gpu.coherence="$1" --set gpu.connection="$2" \
        -o "$OUT/cl-$org.json" "$OUT/cl.cgt" > "$OUT/cl-$org.txt"
    sed -n '/^region of interest:/,$p' "$OUT/cl-$org.txt" |
        grep -E '^region of interest:|^  gpu:|^  kernel |^  copies|^  breakdown'
done
nc=$(sed -n 's/^region of interest: \([0-9]*\) cycles.*/\1/p' "$OUT/cl-NC-MC.txt")
c=$(sed -n 's/^region of interest: \([0-9]*\) cycles.*/\1/p' "$OUT/cl-C-L3.txt")
awk -v n="$nc" -v c="$c" 'BEGIN { printf "speedup of C-L3 over NC-MC in the region of interest: %.2fx (%d vs %d cycles)\n", n / c, n, c }'
echo "statistics in $OUT/cl-NC-MC.json and $OUT/cl-C-L3.json"
