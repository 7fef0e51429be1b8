#!/bin/sh
# x86 validation against valgrind's lackey: dynamic instruction counts
# (every rep-string iteration counted, as valgrind counts them: tracegen
# --stats prints that figure) of musl and glibc programs, tracegen vs
# lackey, and data-access counts of the musl ones (--trace-mem=yes).
#
# Same processor on both sides: valgrind's virtual CPU is a Haswell
# (AVX2, BMI2, ERMS, its caches), so glibc programs run under
# `tracegen --cpu haswell`, which answers CPUID as valgrind does in what
# decides glibc's choices (string functions, copy thresholds). Under the
# default CPUID glibc picks other routines than under valgrind (sort -n
# +3.9%, zstd +5.2% before); musl does not look at CPUID.
#
# Known differences, each explained:
# - valgrind hands the guest a different environment, auxiliary vector
#   (4 more entries), string alignment on the stack and, for dynamic
#   programs, its preload library and a vDSO, so start-up differs by some
#   tens of thousands of instructions at most: programs under a million
#   instructions (file_read) are reported, not judged;
# - valgrind emulates x87 long double with 64-bit precision, so printf of
#   long doubles takes other paths (printf_float is reported, not judged);
# - valgrind's brk and mmap placement differ, which changes the allocator's
#   work slightly (malloc_qsort, -0.3%);
# - lackey counts a `test; je T` that follows a `jne T` as executed when the
#   jne is taken (it is not: the native run never reaches it, as gdb's
#   breakpoint counts show). zstd's match finders have that shape in their
#   repcode checks (ZSTD_compressBlock_doubleFast: natively 1047 passes of
#   one such pair on a 100 kB input, lackey 46936), so lackey over-counts
#   zstd by about 1.3%: zstd is reported, not judged, and the loop in
#   lackey_branch_pair.c, 4 instructions an iteration natively, shows the
#   over-count (lackey 6) on its own.
# Judged: total instructions within 0.5% for programs of a million
# instructions or more, printf_float and zstd excepted.
set -u
BIN=${CGM_BIN:-bin}
BUILD=${CGM_BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v valgrind >/dev/null || { echo "x86_lackey: valgrind missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# "PCT VERDICT" for tracegen count $1 vs lackey count $2; $3: 1 when judged
verdict() {
    awk -v a="$1" -v b="$2" -v j="$3" 'BEGIN{ if (a == "" || b == "" || b == 0) { print "? FAIL"; exit }
        d=(a-b)/b*100; m=(d<0)?-d:d; printf "%+.3f%% %s", d, (j && b>=1000000 ? (m<=0.5 ? "ok" : "FAIL") : "reported")}'
}

# tracegen's count with every rep-string iteration, from its --stats
tracegen_count() {
    sed -n 's/^tracegen: \([0-9]*\) instructions counting.*/\1/p' "$1"
}

for prog in strings malloc_qsort file_read printf_float; do
    guest=$BUILD/traces/x86/musl/$prog
    args=""
    [ "$prog" = file_read ] && args=/etc/passwd
    valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/lk" "$guest" $args >/dev/null 2>&1
    set -- $(awk '/^I/{i++} /^ L/{l++} /^ S/{s++} /^ M/{m++} END{print i+0, l+0, s+0, m+0}' "$tmp/lk")
    li=$1 ll=$2 ls=$3 lm=$4
    "$BIN/tracegen" --quiet --stats -o "$tmp/t.cgt" -- "$guest" $args >/dev/null 2>"$tmp/st"
    ti=$(tracegen_count "$tmp/st")
    set -- $(sed -n 's/^tracegen: data accesses: \([0-9]*\) loads, \([0-9]*\) stores, \([0-9]*\) modifies/\1 \2 \3/p' "$tmp/st")
    tl=$1 ts=$2 tm=$3
    judged=1
    [ "$prog" = printf_float ] && judged=0
    v=$(verdict "$ti" "$li" $judged)
    echo "x86_lackey musl $prog: instructions tracegen=$ti lackey=$li diff=$v;" \
         "loads $tl/$ll stores $ts/$ls modifies $tm/$lm (tracegen/lackey)"
    case "$v" in *FAIL*) fail=$((fail + 1));; esac
done

# NAME JUDGED PROGRAM ARGS...: instruction counts of a glibc program,
# tracegen --cpu haswell vs lackey's basic counts
glibc_compare() {
    name=$1 judged=$2
    shift 2
    valgrind --tool=lackey --log-file="$tmp/lk" "$@" >/dev/null 2>&1
    li=$(sed -n 's/.*guest instrs: *\([0-9,]*\)$/\1/p' "$tmp/lk" | tr -d , | tail -1)
    "$BIN/tracegen" --quiet --no-trace --stats --cpu haswell -- "$@" >/dev/null 2>"$tmp/st"
    ti=$(tracegen_count "$tmp/st")
    v=$(verdict "$ti" "$li" "$judged")
    echo "x86_lackey glibc $name: instructions tracegen=$ti lackey=$li diff=$v"
    case "$v" in *FAIL*) fail=$((fail + 1));; esac
}

for build in glibc glibc-dyn; do
    for prog in strings malloc_qsort; do
        glibc_compare "$build/$prog" 1 "$BUILD/traces/x86/$build/$prog"
    done
done
awk 'BEGIN{srand(7); for (i = 0; i < 20000; i++) printf "%d\n", int(rand() * 1000000)}' \
    >"$tmp/numbers"
if [ -x /bin/busybox ]; then
    glibc_compare "busybox sort -n" 1 /bin/busybox sort -n "$tmp/numbers"
else
    echo "x86_lackey: /bin/busybox missing"; fail=$((fail + 1))
fi
if command -v zstd >/dev/null; then
    cat "$ROOT"/tracegen/x86/*.c "$BUILD/traces/x86/glibc/strings" | head -c 300000 >"$tmp/zin"
    glibc_compare "zstd -3" 0 "$(command -v zstd)" -q -c -3 "$tmp/zin"
fi
gcc -O1 -static -o "$tmp/pair" "$ROOT/tests/validate/lackey_branch_pair.c" &&
    glibc_compare "lackey_branch_pair (4 instructions an iteration natively)" 0 "$tmp/pair" 1000000

echo "x86_lackey: $fail failed"
[ "$fail" -eq 0 ]
