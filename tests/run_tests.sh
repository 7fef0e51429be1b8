#!/bin/sh
# Runs each cmocka test program given as an argument, and each Python unittest
# module (NAME.py, run by $CGM_PYTHON, verbosely), and adds up the results.
# cmocka prints "[       OK ] name" per passing test and "[  FAILED  ] N test(s)"
# in its summary, unittest "name ... ok", "... FAIL" and "... ERROR" per test;
# a program that dies before its summary counts as one failure,
# and so does one that runs longer than CGM_TEST_TIMEOUT seconds (default 600:
# a hang, such as a simulation that never finishes, must not stall the run).
# CGM_TEST_JOBS programs run at once (default 2: most of the time goes to a
# few long programs, and every test keeps its files under its own process
# id); their outputs are printed in the order given, each when it and every
# program before it have finished. Ends with the line "N passed, N failed".
passed=0
failed=0
jobs=${CGM_TEST_JOBS:-2}
CGM_TEST_OUT=$(mktemp -d)
export CGM_TEST_OUT
trap 'rm -rf "$CGM_TEST_OUT"' EXIT

# Runs program $2 as number $1, leaving its output in N.log and its exit
# status in N.rc (written last: the printer waits for it).
run_one='n=$1; shift
case "$1" in *.py) set -- "${CGM_PYTHON:-python3}" "$1" -v ;; esac
CMOCKA_MESSAGE_OUTPUT=stdout timeout -k 10 "${CGM_TEST_TIMEOUT:-600}" "$@" \
    >"$CGM_TEST_OUT/$n.log" 2>&1
echo $? >"$CGM_TEST_OUT/$n.rc.tmp" && mv "$CGM_TEST_OUT/$n.rc.tmp" "$CGM_TEST_OUT/$n.rc"'

i=0
for t in "$@"; do
    i=$((i + 1))
    printf '%s %s\n' "$i" "$t"
done | xargs -n 2 -P "$jobs" sh -c "$run_one" sh &
runner=$!

i=0
for t in "$@"; do
    i=$((i + 1))
    name=$(basename "$t")
    log="$CGM_TEST_OUT/$i.log"
    while [ ! -f "$CGM_TEST_OUT/$i.rc" ]; do
        if ! kill -0 "$runner" 2>/dev/null && [ ! -f "$CGM_TEST_OUT/$i.rc" ]; then
            echo "test program $name was not run" >"$log"
            echo 127 >"$CGM_TEST_OUT/$i.rc"
        fi
        sleep 0.2
    done
    rc=$(cat "$CGM_TEST_OUT/$i.rc")
    cat "$log"
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "test program $name ran longer than ${CGM_TEST_TIMEOUT:-600} s and was stopped"
    fi
    case "$t" in
    *.py)
        p=$(grep -c ' \.\.\. ok$' "$log")
        f=$(grep -c ' \.\.\. \(FAIL\|ERROR\)$' "$log")
        ;;
    *)
        p=$(grep -c '^\[       OK \]' "$log")
        f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$log" | head -n 1)
        [ -n "$f" ] || f=0
        ;;
    esac
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "test program $name exited with status $rc before reporting a failure"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
done
wait "$runner"
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
