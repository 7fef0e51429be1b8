#!/bin/sh
# A parallel workload (four threads of equal work, recorded once) replayed
# on 1, 2 and 4 cores: the simulated time must drop at each step, every
# recorded instruction must retire, and with 4 cores each core runs one of
# the four threads. The threads' work is marked as the region of interest:
# the region must hold most of the instructions, and fewer than the run.
set -u
BIN=${CGM_BIN:-bin}
ROOT=${CGM_ROOT:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v musl-gcc >/dev/null || { echo "replay_parallel: musl-gcc missing"; exit 1; }
musl-gcc -static -O2 -I"$ROOT/include" -o "$tmp/par" "$ROOT/tests/validate/replay_parallel_guest.c" -lpthread ||
    { echo "replay_parallel: cannot build the guest"; exit 1; }
"$BIN/tracegen" -o "$tmp/par.cgt" -- "$tmp/par" >/dev/null 2>&1
"$BIN/tracetool" verify "$tmp/par.cgt" >/dev/null 2>&1 || { echo "replay_parallel: tracegen failed"; exit 1; }
fail=0
prev=""
for cores in 1 2 4; do
    "$BIN/replay" -q --set cpu.cores=$cores -o "$tmp/$cores.json" "$tmp/par.cgt" 2>"$tmp/err" ||
        { echo "replay_parallel: replay failed"; cat "$tmp/err"; exit 1; }
    line=$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
busy = sum(1 for c in d['cores'] if c['instructions'] > 0)
roi = d['roi']['instructions'] if 'roi' in d else 0
print(d['cycles'], d['instructions'], busy, roi)
" "$tmp/$cores.json")
    set -- $line
    echo "replay_parallel: $cores cores: $1 cycles, $2 instructions, $3 cores busy, $4 in the region of interest"
    if [ "$4" -le $(($2 / 2)) ] || [ "$4" -ge "$2" ]; then
        echo "replay_parallel: FAIL: region of interest of $4 instructions out of $2"
        fail=1
    fi
    [ "$3" -eq "$cores" ] || { echo "replay_parallel: FAIL: expected $cores busy cores"; fail=1; }
    if [ -n "$prev" ] && [ "$1" -ge "$prev" ]; then
        echo "replay_parallel: FAIL: simulated time did not drop ($prev -> $1)"
        fail=1
    fi
    prev=$1
done
exit $fail
