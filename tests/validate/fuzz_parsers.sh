#!/bin/sh
# libFuzzer on replay's configuration parser, on the DRAM trace reader, on
# tracegen's emulator running arbitrary machine code and on its system-call
# layer with arbitrary arguments, CGM_FUZZ_SECONDS each
# (default 120), seeded with the bundled configurations, a few trace lines
# and a few instruction sequences. Fails on a crash, a leak or a timeout (an
# input that runs for more than 10 seconds); the last lines of each run are
# shown, a reproducer is written as /tmp/cgm-fuzz-crash-* (or -timeout-*).
set -u
make --no-print-directory fuzz >/dev/null || exit 1
secs=${CGM_FUZZ_SECONDS:-120}
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
mkdir -p "$seeds/cfg" "$seeds/dram" "$seeds/x86" "$seeds/sys"
cp traces/configs/*.ini "$seeds/cfg"/
printf '0x1000 READ 10\n0x2000 WRITE 20\n0x1040 READ 30\n' >"$seeds/dram/a.trace"
printf '# comment\n40 read 0\n0x7fffffc0 WRITE 1000000\n' >"$seeds/dram/b.trace"
# exit(0); a loop of loads, stores and a divide; SSE arithmetic then exit
printf '\270\074\000\000\000\061\377\017\005' >"$seeds/x86/exit"
printf '\110\215\005\371\377\377\377\110\213\030\110\211\030\110\367\361\353\360' >"$seeds/x86/loop"
printf '\146\017\357\300\362\017\130\300\362\017\131\300\270\074\000\000\000\017\005' >"$seeds/x86/sse"
fail=0
run() {
    name=$1
    shift
    if ! "build/fuzz/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
        -artifact_prefix=/tmp/cgm-fuzz- "$@" >"$seeds/$name.log" 2>&1; then
        fail=1
        echo "fuzz_parsers: $name FAILED"
    fi
    tail -n 1 "$seeds/$name.log"
}
run fuzz_replay_config -max_len=4096 "$seeds/cfg"
run fuzz_dram_trace -max_len=2048 "$seeds/dram"
run fuzz_x86_guest -max_len=4096 "$seeds/x86"
run fuzz_x86_syscalls -max_len=1024 "$seeds/sys"
exit $fail
