#!/bin/sh
# Fingerprints of replay's statistics: records the traces listed in
# tests/fingerprints/traces, replays each case of tests/fingerprints/cases
# and compares the SHA-256 of its JSON with tests/fingerprints/expected.
# A change that must leave every statistic as it was (a refactor, a speed-up)
# shows here as a changed case; a change of statistics on purpose refreshes
# the file with --update, which says which cases changed.
#   sh tests/fingerprints/run.sh [--update] [BIN [BUILD]]
# Run from the top of the tree (make fingerprints, make fingerprints-update).
# CGM_FP_ONLY: an extended regular expression; only the cases whose names
# match run. CGM_FP_EXTRA: replay arguments added to every case.
# CGM_FP_OUT: the work folder (default BUILD/fingerprints). The self-test of
# the check uses the three to change some cases' statistics on purpose.
# Exit status: 0 every case as expected (or updated), 1 a case changed or
# failed, 2 bad usage, 3 not comparable (see "inputs" below).
set -u
update=0
if [ "${1:-}" = --update ]; then
    update=1
    shift
fi
BIN=$(cd "${1:-bin}" && pwd) || exit 2
BUILD=$(cd "${2:-build}" && pwd) || exit 2
ROOT=$(pwd)
HERE=$ROOT/tests/fingerprints
[ -f "$HERE/cases" ] || { echo "fingerprints: run from the top of the tree" >&2; exit 2; }
OUT=${CGM_FP_OUT:-$BUILD/fingerprints}
ONLY=${CGM_FP_ONLY:-.}
if [ $update = 1 ] && [ -n "${CGM_FP_ONLY:-}${CGM_FP_EXTRA:-}" ]; then
    echo "fingerprints: --update refreshes every case as configured: unset CGM_FP_ONLY and CGM_FP_EXTRA" >&2
    exit 2
fi
JOBS=${CGM_FP_JOBS:-2}
rm -rf "$OUT"
mkdir -p "$OUT" || exit 1

# The cases to run, and the traces they replay.
grep -v '^#' "$HERE/cases" | grep -v '^ *$' | grep -E "^[^ ]*($ONLY)[^ ]* " > "$OUT/cases.list"
[ -s "$OUT/cases.list" ] || { echo "fingerprints: no case matches '$ONLY'" >&2; exit 2; }
grep -v '^#' "$HERE/traces" | grep -v '^ *$' | while read -r name part cmd; do
    if cut -d' ' -f2 "$OUT/cases.list" | grep -qx "$name"; then
        printf '%s %s %s\n' "$name" "$part" "$cmd"
    fi
done > "$OUT/traces.list"

# The programs the traces come from: the guests and the kernels' code objects,
# built here by Debian's compilers. Fingerprints made from other binaries (a
# compiler of another version) cannot be compared: the check says so (exit 3)
# instead of reporting every case as changed.
inputs=$(grep -v '^#' "$HERE/traces" | grep -v '^ *$' | while read -r name part cmd; do
    case $part in x86) echo "$BUILD/traces/x86/musl/${cmd%% *}" ;; gpu) echo "$BUILD/traces/gpu/${cmd%% *}" ;; esac
done | sort -u; ls "$BUILD"/kernels/*.co 2>/dev/null)
inputs_hash=$(for f in $inputs; do printf '%s %s\n' "${f#"$BUILD"/}" "$(sha256sum < "$f" | cut -c1-64)"; done |
    sha256sum | cut -c1-64)

# Record the traces (two at a time). The guest runs from its own folder under
# a relative name with nothing in its environment but CGM_KERNELS (tracegen
# passes the guest only what --env names), so the recording is the same in
# every checkout and build folder and for every user.
record='name=$1 part=$2; shift 2
case $part in
x86) dir=$BUILD/traces/x86/musl ;;
gpu) dir=$BUILD/traces/gpu ;;
*) echo "unknown part $part" >"$OUT/$name.err"; touch "$OUT/$name.failed"; exit 0 ;;
esac
cd "$dir" && "$BIN/tracegen" --env CGM_KERNELS=../../kernels --quiet -o "$OUT/$name.cgt" -- ./"$@" \
    >"$OUT/$name.out" 2>"$OUT/$name.err" || touch "$OUT/$name.failed"'
export BIN BUILD OUT
tr '\n' '\0' < "$OUT/traces.list" | xargs -0 -n 1 -P "$JOBS" sh -c 'eval "set -- $1"; '"$record" sh
failed=0
while read -r name part cmd; do
    if [ -e "$OUT/$name.failed" ] || [ ! -s "$OUT/$name.cgt" ]; then
        echo "fingerprints: recording $name ($cmd) failed:" >&2
        cat "$OUT/$name.err" >&2
        failed=1
    fi
done < "$OUT/traces.list"
[ $failed = 0 ] || exit 1

# Replay every case: HASH CYCLES per case, in the cases' order. Configuration
# files are named from the top of the tree; replay runs in the traces' folder
# on the trace's bare name, the only path its JSON holds.
play='name=$1 trace=$2; shift 2
set -- $(printf "%s\n" "$@" | sed "s|^traces/|$ROOT/traces/|") ${CGM_FP_EXTRA:-}
cd "$OUT" && "$BIN/replay" -q -o "$name.json" "$@" "$trace.cgt" 2>"$name.replay.err" ||
    { echo "fingerprints: $name: replay failed: $(cat "$name.replay.err")" >&2; exit 0; }
hash=$(sha256sum "$name.json" | cut -c1-64)
cycles=$(sed -n "s/^	\"cycles\":	\\([0-9]*\\),\$/\\1/p" "$name.json")
echo "$name $hash $cycles" > "$name.fp"'
export ROOT
tr '\n' '\0' < "$OUT/cases.list" | xargs -0 -n 1 -P "$JOBS" sh -c 'eval "set -- $1"; '"$play" sh
: > "$OUT/got"
while read -r name trace args; do
    if [ -f "$OUT/$name.fp" ]; then
        cat "$OUT/$name.fp" >> "$OUT/got"
    else
        failed=1
    fi
done < "$OUT/cases.list"
[ $failed = 0 ] || exit 1

# Compare: a case is changed when its hash differs, new when it has none yet.
expected_inputs=$(sed -n 's/^# inputs \([0-9a-f]*\)$/\1/p' "$HERE/expected" 2>/dev/null)
if [ $update = 0 ] && [ -z "${CGM_FP_EXTRA:-}" ] && [ "$expected_inputs" != "$inputs_hash" ]; then
    echo "fingerprints: not comparable: the guests or code objects ($BUILD/traces, $BUILD/kernels) differ from" \
         "those the fingerprints were made from (another compiler, or a workload changed: make fingerprints-update)"
    exit 3
fi
changed=0
while read -r name hash cycles; do
    old=$(grep "^$name " "$HERE/expected" 2>/dev/null)
    if [ -z "$old" ]; then
        echo "fingerprints: $name: new (cycles $cycles)"
        changed=$((changed + 1))
    elif [ "$(echo "$old" | cut -d' ' -f2)" != "$hash" ]; then
        echo "fingerprints: $name: statistics changed (cycles $(echo "$old" | cut -d' ' -f3) -> $cycles)"
        changed=$((changed + 1))
    fi
done < "$OUT/got"
cases=$(wc -l < "$OUT/got")
if [ $update = 1 ]; then
    { echo "# NAME SHA-256-OF-REPLAY-JSON CYCLES; written by make fingerprints-update"
      echo "# inputs $inputs_hash"; cat "$OUT/got"; } \
        > "$HERE/expected"
    echo "fingerprints: $changed of $cases cases changed; tests/fingerprints/expected rewritten"
    exit 0
fi
if [ $changed -gt 0 ]; then
    echo "fingerprints: $changed of $cases cases changed (the JSON of each is in $OUT;" \
         "make fingerprints-update if the change is meant)"
    exit 1
fi
echo "fingerprints: all $cases cases as expected"
