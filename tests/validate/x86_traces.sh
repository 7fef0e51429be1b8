#!/bin/sh
# Every x86 workload (musl and glibc builds, static and dynamically
# linked): output and exit status equal to the native run, the recorded
# trace passes `tracetool verify`, and a second recording is byte-identical
# to the first.
set -u
BIN=${CGM_BIN:-bin}
BUILD=${CGM_BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for guest in "$BUILD"/traces/x86/musl/* "$BUILD"/traces/x86/glibc/* \
             "$BUILD"/traces/x86/musl-dyn/* "$BUILD"/traces/x86/glibc-dyn/*; do
    name=$(basename "$guest")
    case "$name" in edge_cases) continue;; esac
    args=""
    [ "$name" = file_read ] && args=/etc/passwd
    "$guest" $args >"$tmp/native" 2>/dev/null
    ns=$?
    "$BIN/tracegen" --quiet -o "$tmp/a.cgt" -- "$guest" $args >"$tmp/emu" 2>"$tmp/err"
    es=$?
    # stdout is an input too (glibc sizes its buffer from fstat): same kind
    "$BIN/tracegen" --quiet -o "$tmp/b.cgt" -- "$guest" $args >"$tmp/emu2" 2>&1
    what=""
    [ "$ns" = "$es" ] || what="$what status $ns/$es;"
    cmp -s "$tmp/native" "$tmp/emu" || what="$what output differs;"
    "$BIN/tracetool" verify "$tmp/a.cgt" >/dev/null 2>&1 || what="$what verify failed;"
    cmp -s "$tmp/a.cgt" "$tmp/b.cgt" || what="$what traces differ;"
    if [ -n "$what" ]; then
        echo "x86_traces $guest: FAIL:$what"
        fail=$((fail + 1))
    else
        echo "x86_traces $guest: ok ($(wc -c <"$tmp/a.cgt") bytes)"
    fi
done
echo "x86_traces: $fail failed"
[ "$fail" -eq 0 ]
