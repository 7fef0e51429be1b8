#!/bin/sh
# replay's conditional branch predictor against valgrind's cachegrind
# (--branch-sim=yes). Cachegrind simulates 16384 2-bit counters indexed by 7
# bits of global history above 7 bits of the branch address, counters
# starting at 0; replay is run with the same predictor (gselect, 16384
# entries, 7 history bits, initial value 0). Both train on the outcomes in
# program order, so the conditional mispredictions should agree.
# Judged: malloc_qsort within 2%.
#
# Known differences: valgrind's IR turns each iteration of a rep-prefixed
# string instruction into a conditional exit, which cachegrind counts (and
# shifts into its history); the trace records a rep string as one
# instruction. Workloads heavy in rep strings (strings) differ more and are
# reported, not judged.
set -u
BIN=${CGM_BIN:-bin}
BUILD=${CGM_BUILD:-build}
command -v valgrind >/dev/null || { echo "replay_branches: valgrind missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for prog in malloc_qsort strings; do
    guest=$BUILD/traces/x86/musl/$prog
    [ -x "$guest" ] || { echo "replay_branches: $guest missing (make x86-guests)"; fail=1; continue; }
    "$BIN/tracegen" -o "$tmp/$prog.cgt" -- "$guest" >/dev/null 2>&1
    "$BIN/replay" -q --set cpu.cores=1 --set cpu.predictor=gselect --set cpu.predictor_entries=16384 \
        --set cpu.history_bits=7 --set cpu.predictor_init=0 -o "$tmp/$prog.json" "$tmp/$prog.cgt" 2>"$tmp/err" ||
        { echo "replay_branches: replay $prog failed"; cat "$tmp/err"; fail=1; continue; }
    valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes --cachegrind-out-file=/dev/null \
        "$guest" >/dev/null 2>"$tmp/cg.txt" || { echo "replay_branches: cachegrind $prog failed"; fail=1; continue; }
    cg=$(sed -n 's/.*Mispredicts: *[0-9,]* *( *\([0-9,]*\) cond.*/\1/p' "$tmp/cg.txt" | tr -d ,)
    cgb=$(sed -n 's/.*Branches: *[0-9,]* *( *\([0-9,]*\) cond.*/\1/p' "$tmp/cg.txt" | tr -d ,)
    set -- $(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['cores'][0]; print(c['conditional_mispredictions'], c['conditional_branches'])" "$tmp/$prog.json")
    why=""
    [ "$prog" = malloc_qsort ] || why="rep strings"
    verdict=$(python3 "$(dirname "$0")/judge.py" "$cg" "$1" 2 "$why")
    echo "replay_branches: $prog: conditional mispredictions replay $1 of $2, cachegrind $cg of $cgb: $verdict"
    case $verdict in FAIL*) fail=1 ;; esac
done
exit $fail
