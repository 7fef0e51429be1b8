#!/bin/sh
# make demo: record the bundled workload, inspect it, replay it.
BIN=${1:-bin}
echo "cgmtrace demo: tracegen and replay are not built yet."
"$BIN/tracetool" --help
