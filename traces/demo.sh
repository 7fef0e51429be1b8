#!/bin/sh
# make demo: record the bundled workload with tracegen, inspect the trace
# with tracetool, and replay it when replay can.
set -e
BIN=${1:-bin}
GUEST=${2:-build/traces/x86/musl/malloc_qsort}
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

echo "== replay with the built-in configuration"
if "$BIN/replay" -o "$OUT/stats.json" "$TRACE"; then
    echo "statistics in $OUT/stats.json"
else
    echo "replay cannot simulate a trace yet (see its --help); the demo stops here."
fi
