#!/bin/sh
# Five minutes of libFuzzer on the trace reader, seeded with the golden traces.
set -e
make --no-print-directory fuzz >/dev/null
corpus=$(mktemp -d)
cp traces/golden/*.cgt "$corpus"/
build/fuzz/fuzz_trace_reader -max_total_time=${CGM_FUZZ_SECONDS:-300} -max_len=65536 \
    -rss_limit_mb=1024 "$corpus" 2>&1 | tail -n 3
rm -rf "$corpus"
