#!/bin/sh
# make demo: record the bundled workload with tracegen, inspect the trace
# with tracetool, and replay it under two configurations.
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
