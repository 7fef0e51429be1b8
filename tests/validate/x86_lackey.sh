#!/bin/sh
# x86 validation against valgrind's lackey: dynamic instruction counts and
# data-access counts of the single-thread musl workloads, tracegen vs
# lackey --trace-mem=yes. tracegen is asked (--stats) for its count with
# every rep-string iteration counted, as valgrind counts them.
#
# Known differences, each explained:
# - valgrind hands the guest a different environment, auxiliary vector
#   (4 more entries) and string alignment on the stack, so C library
#   start-up (the auxv loop, strlen's alignment prologue) differs by some
#   tens to hundreds of instructions (checked instruction by instruction
#   against lackey's I lines on a small program): small programs such as
#   file_read are reported, not judged;
# - valgrind emulates x87 long double with 64-bit precision, so printf of
#   long doubles takes other paths (printf_float is reported, not judged);
# - valgrind's brk and mmap placement differ, which changes the allocator's
#   work slightly (malloc_qsort).
# Judged: total instructions within 0.5% for programs of a million
# instructions or more (start-up is then negligible), printf_float excepted.
set -u
BIN=${CGM_BIN:-bin}
BUILD=${CGM_BUILD:-build}
command -v valgrind >/dev/null || { echo "x86_lackey: valgrind missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for prog in strings malloc_qsort file_read printf_float; do
    guest=$BUILD/traces/x86/musl/$prog
    args=""
    [ "$prog" = file_read ] && args=/etc/passwd
    valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/lk" "$guest" $args >/dev/null 2>&1
    set -- $(awk '/^I/{i++} /^ L/{l++} /^ S/{s++} /^ M/{m++} END{print i+0, l+0, s+0, m+0}' "$tmp/lk")
    li=$1 ll=$2 ls=$3 lm=$4
    "$BIN/tracegen" --quiet --stats -o "$tmp/t.cgt" -- "$guest" $args >/dev/null 2>"$tmp/st"
    ti=$(sed -n 's/^tracegen: \([0-9]*\) instructions counting.*/\1/p' "$tmp/st")
    set -- $(sed -n 's/^tracegen: data accesses: \([0-9]*\) loads, \([0-9]*\) stores, \([0-9]*\) modifies/\1 \2 \3/p' "$tmp/st")
    tl=$1 ts=$2 tm=$3
    verdict=$(awk -v a="$ti" -v b="$li" -v p="$prog" 'BEGIN{d=(a-b)/b*100; if(d<0)d=-d;
        j=(p!="printf_float" && b>=1000000); printf "%.3f%% %s", d, (j ? (d<=0.5 ? "ok" : "FAIL") : "reported")}')
    echo "x86_lackey $prog: instructions tracegen=$ti lackey=$li diff=$verdict;" \
         "loads $tl/$ll stores $ts/$ls modifies $tm/$lm (tracegen/lackey)"
    case "$verdict" in *FAIL*) fail=$((fail + 1));; esac
done
echo "x86_lackey: $fail failed"
[ "$fail" -eq 0 ]
