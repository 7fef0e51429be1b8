#!/bin/sh
# Runs each cmocka test program given as an argument and adds up the results.
# cmocka prints "[       OK ] name" per passing test and "[  FAILED  ] N test(s)"
# in its summary; a program that dies before its summary counts as one failure,
# and so does one that runs longer than CGM_TEST_TIMEOUT seconds (default 600:
# a hang, such as a simulation that never finishes, must not stall the run).
# Ends with the line "N passed, N failed".
passed=0
failed=0
log=$(mktemp)
for t in "$@"; do
    name=$(basename "$t")
    CMOCKA_MESSAGE_OUTPUT=stdout timeout -k 10 "${CGM_TEST_TIMEOUT:-600}" "$t" >"$log" 2>&1
    rc=$?
    cat "$log"
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "test program $name ran longer than ${CGM_TEST_TIMEOUT:-600} s and was stopped"
    fi
    p=$(grep -c '^\[       OK \]' "$log")
    f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$log" | head -n 1)
    [ -n "$f" ] || f=0
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "test program $name exited with status $rc before reporting a failure"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
done
rm -f "$log"
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
