#!/bin/sh
# One trace replayed with L1D sizes 8, 16, 32 and 64 KiB (8 ways; more
# capacity, same block and policy) must give non-increasing L1D misses
# (primary misses: secondary misses join a miss in flight and depend on
# timing, not on capacity).
# With LRU and a fixed number of ways, more sets can still add misses in
# pathological streams, so the ways grow with the size (64 sets x 64 B x
# ways): then each larger cache holds a superset of the smaller one's
# blocks (LRU inclusion property), up to out-of-order timing effects.
set -u
BIN=${CGM_BIN:-bin}
BUILD=${CGM_BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
guest=$BUILD/traces/x86/musl/malloc_qsort
[ -x "$guest" ] || { echo "replay_sweep: $guest missing (make x86-guests)"; exit 1; }
"$BIN/tracegen" -o "$tmp/t.cgt" -- "$guest" >/dev/null 2>&1 || { echo "replay_sweep: tracegen failed"; exit 1; }
prev=""
fail=0
for kib in 8 16 32 64; do
    ways=$((kib * 1024 / (64 * 64)))
    "$BIN/replay" -q --set cpu.cores=1 --set cache.l1d.size=${kib}KiB --set cache.l1d.ways=$ways \
        -o "$tmp/$kib.json" "$tmp/t.cgt" 2>"$tmp/err" || { echo "replay_sweep: replay failed"; cat "$tmp/err"; exit 1; }
    m=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(c['misses'] - c['secondary_misses'] for c in d['caches'] if c['kind']=='l1d'))" "$tmp/$kib.json")
    echo "replay_sweep: L1D ${kib} KiB (${ways} ways): $m primary misses"
    if [ -n "$prev" ] && [ "$m" -gt "$prev" ]; then
        echo "replay_sweep: FAIL: misses grew from $prev to $m"
        fail=1
    fi
    prev=$m
done
exit $fail
