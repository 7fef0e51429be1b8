#!/bin/sh
# replay on bad input: a missing, corrupt or truncated trace and a bad
# configuration each give a message naming the file and a non-zero exit
# below 128 (no crash).
set -u
BIN=${CGM_BIN:-bin}
BUILD=${CGM_BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# tracegen exits with the guest's status; the trace must verify.
"$BIN/tracegen" -o "$tmp/good.cgt" -- "$BUILD/traces/x86/musl/hello" >/dev/null 2>&1
"$BIN/tracetool" verify "$tmp/good.cgt" >/dev/null 2>&1 || { echo "replay_bad_input: tracegen failed"; exit 1; }
size=$(stat -c %s "$tmp/good.cgt")
head -c $((size / 2)) "$tmp/good.cgt" >"$tmp/truncated.cgt"
cp "$tmp/good.cgt" "$tmp/corrupt.cgt"
# Overwrite 64 bytes in the middle of the file (inside a chunk payload).
printf '%064d' 0 | dd of="$tmp/corrupt.cgt" bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
printf '[cpu]\ncores = 4\nwidht = 2\n' >"$tmp/bad.ini"
printf 'not a trace\n' >"$tmp/text.cgt"
expect() { # name, expected text, command...
    name=$1 text=$2
    shift 2
    "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -ge 128 ] || ! grep -q -- "$text" "$tmp/out"; then
        echo "replay_bad_input: FAIL: $name: exit $rc"
        cat "$tmp/out"
        fail=1
    else
        echo "replay_bad_input: $name: exit $rc: $(grep -- "$text" "$tmp/out" | head -1)"
    fi
}
expect missing "$tmp/none.cgt" "$BIN/replay" -q "$tmp/none.cgt"
expect not-a-trace "$tmp/text.cgt" "$BIN/replay" -q "$tmp/text.cgt"
expect corrupt "corrupt.cgt" "$BIN/replay" -q "$tmp/corrupt.cgt"
expect truncated "truncated.cgt" "$BIN/replay" -q "$tmp/truncated.cgt"
expect bad-config "bad.ini:3" "$BIN/replay" -q -c "$tmp/bad.ini" "$tmp/good.cgt"
expect bad-set "cache.l1d.size" "$BIN/replay" -q --set cache.l1d.size=lots "$tmp/good.cgt"
# The truncated trace replays up to its last whole chunk when asked.
"$BIN/replay" -q --partial "$tmp/truncated.cgt" >/dev/null 2>&1
rc=$?
[ $rc -ge 128 ] && { echo "replay_bad_input: FAIL: --partial crashed ($rc)"; fail=1; }
echo "replay_bad_input: --partial on the truncated trace: exit $rc"
exit $fail
