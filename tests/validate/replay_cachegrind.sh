#!/bin/sh
# replay's L1D against valgrind's cachegrind: single-thread musl workloads
# replayed on one core with a 32 KiB 8-way 64-byte L1D, cachegrind run with
# --D1=32768,8,64. Judged: L1D misses within 2% of cachegrind's D1 misses
# (D1mr + D1mw) for workloads with at least 10,000 D1 misses. Replay's
# misses here are primary misses: its "misses" less "secondary_misses",
# the misses that joined a miss to the same block already in flight (the
# MSHR coalesced them); cachegrind's zero-latency cache counts those as
# hits, as the block has been requested already.
#
# The remaining difference, explained:
# - the guest's environment, auxiliary vector, brk and mmap placement differ
#   under valgrind (see x86_lackey.sh), so the access streams differ a little;
# - replay's L1 sets come from physical addresses (pages placed on first
#   touch); with 64 sets of 64 bytes the set index is inside the 4 KiB page
#   offset, so placement does not change which set a block maps to;
# - an access that straddles two blocks is one reference in cachegrind and
#   two in replay;
# - replay issues loads out of order and stores early, so the LRU order of
#   nearby accesses can differ from program order;
# - replay's L1 is kept inclusive by the L3 (back-invalidations) and a
#   written-back block found in the write-back queue counts as a hit.
set -u
BIN=${CGM_BIN:-bin}
BUILD=${CGM_BUILD:-build}
command -v valgrind >/dev/null || { echo "replay_cachegrind: valgrind missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for prog in malloc_qsort strings; do
    guest=$BUILD/traces/x86/musl/$prog
    [ -x "$guest" ] || { echo "replay_cachegrind: $guest missing (make x86-guests)"; fail=1; continue; }
    "$BIN/tracegen" -o "$tmp/$prog.cgt" -- "$guest" >/dev/null 2>"$tmp/err" ||
        { echo "replay_cachegrind: tracegen $prog failed"; cat "$tmp/err"; fail=1; continue; }
    "$BIN/replay" -q --set cpu.cores=1 --set cache.l1d.size=32KiB --set cache.l1d.ways=8 \
        -o "$tmp/$prog.json" "$tmp/$prog.cgt" 2>"$tmp/err" ||
        { echo "replay_cachegrind: replay $prog failed"; cat "$tmp/err"; fail=1; continue; }
    valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --I1=32768,8,64 --LL=8388608,16,64 \
        --cachegrind-out-file="$tmp/cg.out" "$guest" >/dev/null 2>"$tmp/cg.txt" ||
        { echo "replay_cachegrind: cachegrind $prog failed"; fail=1; continue; }
    cg=$(sed -n 's/.*D1  misses: *\([0-9,]*\).*/\1/p' "$tmp/cg.txt" | tr -d ,)
    rp=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(c['misses'] - c['secondary_misses'] for c in d['caches'] if c['kind']=='l1d'))" "$tmp/$prog.json")
    why=""
    [ "$cg" -lt 10000 ] && why="fewer than 10000 misses"
    verdict=$(python3 "$(dirname "$0")/judge.py" "$cg" "$rp" 2 "$why")
    echo "replay_cachegrind: $prog: replay L1D primary misses $rp, cachegrind D1 misses $cg: $verdict"
    case $verdict in FAIL*) fail=1 ;; esac
done
exit $fail
