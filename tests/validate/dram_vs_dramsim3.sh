#!/bin/sh
# The DRAM model against DRAMsim3 (tests/validate/dram_vs_dramsim3.py) on
# sequential, random, 2:1 read/write and row-hit-heavy streams, DDR3-1600
# and DDR4-2400, 1 and 2 channels, gaps from saturating to low load.
#
# DRAMsim3 is a reference, never part of the project: DRAMSIM3_GIT names a
# git directory holding its source (github.com/umd-memsys/DRAMsim3); its
# HEAD is extracted and built under build/dramsim3 at validate time. Without
# one the part is skipped. The run's table must equal the committed
# tests/validate/dram_vs_dramsim3.table (which says which runs are within
# the bounds); DRAM_VS_DRAMSIM3_UPDATE=1 rewrites that file instead.
set -u
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}
table=tests/validate/dram_vs_dramsim3.table
if [ -z "${DRAMSIM3_GIT:-}" ] || ! git --git-dir="$DRAMSIM3_GIT" rev-parse -q --verify HEAD >/dev/null 2>&1; then
    echo "dram_vs_dramsim3: skipped: no DRAMsim3 source (set DRAMSIM3_GIT to a git directory of github.com/umd-memsys/DRAMsim3)"
    exit 0
fi
commit=$(git --git-dir="$DRAMSIM3_GIT" rev-parse HEAD)
src=$BUILD/dramsim3
out=$BUILD/validate
mkdir -p "$out" || exit 1
if [ "$(cat "$src/.commit" 2>/dev/null)" != "$commit" ]; then
    rm -rf "$src" && mkdir -p "$src" &&
        git --git-dir="$DRAMSIM3_GIT" archive HEAD | tar -x -C "$src" &&
        make -s -C "$src" -j2 libdramsim3.so >"$out/dramsim3-build.log" 2>&1 ||
        { echo "dram_vs_dramsim3: building DRAMsim3 $commit failed (see $out/dramsim3-build.log): FAIL"; exit 1; }
    echo "$commit" >"$src/.commit"
fi
make -s "$BUILD/lib/libcgmmodels.a" || exit 1
# DRAMsim3's objects, not its shared library: nothing of it is installed.
objs=$(ls "$src"/src/*.o | grep -v -e /main.o -e /cpu.o)
g++ -O2 -std=c++11 -I"$src/src" -I"$src/ext/headers" -I"$src/ext/fmt/include" -DFMT_HEADER_ONLY=1 \
    -o "$out/dramsim3_replay" tests/validate/dramsim3_replay.cc $objs &&
    ${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude $(pkg-config --cflags libcjson) \
        -o "$out/dram_replay" tests/validate/dram_replay.c "$BUILD/lib/libcgmmodels.a" \
        $(pkg-config --libs libcjson) -lm -lpthread ||
    { echo "dram_vs_dramsim3: building the replay drivers failed: FAIL"; exit 1; }
python3 tests/validate/dram_vs_dramsim3.py "$src" "$out/dramsim3_replay" "$out/dram_replay" \
    "$out/dramsim3-work" "$out/dram_vs_dramsim3.table" >"$out/dram_vs_dramsim3.log" 2>&1
rc=$?
if [ $rc -gt 1 ]; then
    cat "$out/dram_vs_dramsim3.log"
    echo "dram_vs_dramsim3: the comparison did not run: FAIL"
    exit 1
fi
tail -n 1 "$out/dram_vs_dramsim3.table"
if [ "${DRAM_VS_DRAMSIM3_UPDATE:-0}" = 1 ]; then
    cp "$out/dram_vs_dramsim3.table" "$table" && echo "dram_vs_dramsim3: $table rewritten"
    exit 0
fi
if ! diff -u "$table" "$out/dram_vs_dramsim3.table"; then
    echo "dram_vs_dramsim3: the comparison differs from $table (DRAM_VS_DRAMSIM3_UPDATE=1 rewrites it): FAIL"
    exit 1
fi
echo "dram_vs_dramsim3: DRAMsim3 $commit: as $table: ok"
