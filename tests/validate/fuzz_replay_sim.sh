#!/bin/sh
# An hour (CGM_FUZZ_SECONDS) of libFuzzer on replay's simulation
# (tests/fuzz/fuzz_replay_sim.c), seeded with the streams of the golden
# traces and of small recordings. Fails on a crash, a leak or an input that
# runs for more than 60 seconds; a reproducer is written as
# /tmp/cgm-fuzz-replay-*.
set -u
make --no-print-directory fuzz >/dev/null || exit 1
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
for t in traces/golden/*.cgt; do
    CGM_FUZZ_EXPORT="$t" build/fuzz/fuzz_replay_sim >"$corpus/$(basename "$t").in" 2>/dev/null
done
for w in hello sync_mt; do
    bin/tracegen --quiet --env-clear --chunk-bytes 4K -o "$corpus/$w.cgt" -- \
        build/traces/x86/musl/$w >/dev/null 2>&1
    CGM_FUZZ_EXPORT="$corpus/$w.cgt" build/fuzz/fuzz_replay_sim >"$corpus/$w.in" 2>/dev/null
    rm -f "$corpus/$w.cgt"
done
if ! build/fuzz/fuzz_replay_sim -max_total_time="${CGM_FUZZ_SECONDS:-3600}" -max_len=65536 \
    -timeout=60 -rss_limit_mb=2048 -artifact_prefix=/tmp/cgm-fuzz-replay- "$corpus" \
    >"$corpus/log" 2>&1; then
    echo "fuzz_replay_sim: FAILED"
    tail -n 20 "$corpus/log"
    exit 1
fi
tail -n 1 "$corpus/log"
