#!/bin/sh
# GPU workloads (traces/gpu) over every CPU thread count (1, 2, 4), CPU share
# (0..100 %) and mode (copy, share): each run prints PASS under tracegen and
# its trace passes `tracetool verify`; the launch fuzzer survives 20 seeds.  Needs `make gpu-guests`.
cd "$(dirname "$0")/../.." || exit 2
BIN=${CGM_BIN:-bin}
BUILD=${CGM_BUILD:-build}
CGM_BUILD=$BUILD
export CGM_BUILD
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
runs=0
check() {
    runs=$((runs + 1))
    if ! "$BIN/tracegen" --env CGM_KERNELS="$BUILD/kernels" --quiet -o "$tmp/t.cgt" -- "$BUILD/traces/gpu/$@" >"$tmp/out" 2>"$tmp/err" ||
       ! grep -qx PASS "$tmp/out"; then
        echo "FAIL: $*"; cat "$tmp/out" "$tmp/err"; fail=$((fail + 1)); return
    fi
    if ! "$BIN/tracetool" verify "$tmp/t.cgt" >/dev/null 2>"$tmp/err"; then
        echo "FAIL (verify): $*"; cat "$tmp/err"; fail=$((fail + 1))
    fi
}
for w in hotspot backprop lud kmeans nw bfs; do check "$w"; done
for w in collab_backprop collab_matmul collab_edge collab_knn collab_write; do
    for t in 1 2 4; do
        for p in 0 25 50 75 100; do
            for m in copy share; do check "$w" "$t" "$p" "$m"; done
        done
    done
done
# hostile launches: random grids and argument bytes, many seeds
for seed in $(seq 1 20); do check driver_fuzz 1000 "$seed"; done
echo "gpu workloads: $runs runs, $fail failed"
[ "$fail" -eq 0 ]
