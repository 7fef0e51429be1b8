#!/bin/sh
# A minute of libFuzzer on the SI record codec and statistics.
set -e
make --no-print-directory fuzz >/dev/null
corpus=$(mktemp -d)
build/fuzz/fuzz_si_record -max_total_time=${CGM_FUZZ_SECONDS:-60} -max_len=65536 \
    -rss_limit_mb=1024 "$corpus" 2>&1 | tail -n 3
rm -rf "$corpus"
