#!/bin/sh
# Dynamically linked programs nobody here wrote, with the host's loader and
# libraries: Debian's sort, gzip and python3. Each one's output and exit
# status equal to the native run (both with an empty environment, so the
# locale is C), its trace passes `tracetool verify`, a second recording is
# byte-identical, and the trace replays.
set -u
BIN=${CGM_BIN:-bin}
ROOT=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# an input for sort and gzip: lines in an order no sort keeps
i=0
while [ $i -lt 3000 ]; do
    echo "$(( (i * 7919) % 3001 )) line $i"
    i=$((i + 1))
done >"$tmp/input"
check() {
    label=$1
    shift
    env -i "$@" >"$tmp/native" 2>/dev/null
    ns=$?
    env -i "$BIN/tracegen" --quiet -o "$tmp/a.cgt" -- "$@" >"$tmp/emu" 2>"$tmp/err"
    es=$?
    # stdout is an input too (its kind sizes buffers): a file again
    env -i "$BIN/tracegen" --quiet -o "$tmp/b.cgt" -- "$@" >"$tmp/emu2" 2>&1
    what=""
    [ "$ns" = "$es" ] || what="$what status $ns/$es;"
    cmp -s "$tmp/native" "$tmp/emu" || what="$what output differs;"
    [ -s "$tmp/native" ] || what="$what no output;"
    "$BIN/tracetool" verify "$tmp/a.cgt" >/dev/null 2>&1 || what="$what verify failed;"
    cmp -s "$tmp/a.cgt" "$tmp/b.cgt" || what="$what traces differ;"
    "$BIN/replay" -q -c "$ROOT/traces/configs/small.ini" -o "$tmp/stats.json" "$tmp/a.cgt" \
        >/dev/null 2>&1 || what="$what replay failed;"
    if [ -n "$what" ]; then
        echo "x86_dynamic $label: FAIL:$what $(head -c 300 "$tmp/err")"
        fail=$((fail + 1))
    else
        echo "x86_dynamic $label: ok ($(wc -c <"$tmp/a.cgt") bytes)"
    fi
}
check sort /usr/bin/sort -n "$tmp/input"
check gzip /usr/bin/gzip -c -6 "$tmp/input"
if [ -x /usr/bin/python3 ]; then
    check python3 /usr/bin/python3 -c 'import json, zlib; d = {str(i): i * i for i in range(2000)}; s = json.dumps(d, sort_keys=True); print(len(s), zlib.crc32(s.encode()), sorted(d)[:5])'
else
    echo "x86_dynamic python3: not installed, skipped"
fi
echo "x86_dynamic: $fail failed"
[ "$fail" -eq 0 ]
