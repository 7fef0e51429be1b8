#!/bin/sh
# The SI disassembler corpus against the llvm-mc installed now: regenerate it
# and compare with the committed tests/data/si/corpus.txt (a difference means
# LLVM's assembler changed; rerun make_corpus.sh and test_si_disasm).
set -e
fresh=$(mktemp)
sh tests/data/si/make_corpus.sh "$fresh"
if cmp -s "$fresh" tests/data/si/corpus.txt; then
    echo "corpus matches llvm-mc"
    rm -f "$fresh"
else
    diff tests/data/si/corpus.txt "$fresh" | head -20
    rm -f "$fresh"
    exit 1
fi
