#!/bin/sh
# make validate: long runs against outside references, too slow for make test.
# Each part adds a script tests/validate/NAME.sh; this runs them all and
# ends with "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 2
passed=0
failed=0
for s in tests/validate/*.sh; do
    [ "$s" = tests/validate/run.sh ] && continue
    [ -e "$s" ] || continue
    echo "== $s"
    if sh "$s"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
