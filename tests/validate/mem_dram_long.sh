#!/bin/sh
# DRAM: a million random requests per preset and page policy through
# `replay --dram-trace --check`; the timing checker must find nothing and
# every request must be counted.
cd "$(dirname "$0")/../.." || exit 2
make -s bin/replay || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
n=${CGM_DRAM_VALIDATE_REQUESTS:-1000000}
awk -v n="$n" 'BEGIN { srand(7); t = 0;
    for (i = 0; i < n; i++) {
        t += int(rand() * 10);
        if (rand() < 0.7) a = int(rand() * 4096) * 64; else a = int(rand() * 67108864) * 64;
        printf "0x%x %s %d\n", a, (rand() < 0.3 ? "WRITE" : "READ"), t } }' > "$dir/t.trace"
status=0
for preset in DDR3-1600 DDR4-2400 GDDR5; do
    for policy in open closed; do
        printf '[dram]\npreset = %s\npage_policy = %s\n' "$preset" "$policy" > "$dir/c.ini"
        if ! bin/replay --dram-trace "$dir/t.trace" -c "$dir/c.ini" --check -o "$dir/s.json"; then
            echo "FAIL: $preset $policy"
            status=1
            continue
        fi
        total=$(awk -F'[:,]' '/"reads"|"writes"/ { s += $2 } END { print s }' "$dir/s.json")
        if [ "$total" != "$n" ]; then
            echo "FAIL: $preset $policy counted $total of $n requests"
            status=1
        else
            echo "ok: $preset $policy: $(grep -E '"bandwidth_gbps"|"avg_read_latency_cycles"' "$dir/s.json" | tr -d '\t\n')"
        fi
    done
done
exit $status
