#!/bin/sh
# Builds the Southern Islands disassembler corpus: every mnemonic LLVM's
# AMDGPU assembler knows (taken from libLLVM's own mnemonic strings) is tried
# with a set of operand shapes; every line `llvm-mc -mcpu=tahiti` accepts is
# kept with its encoding.  extra.s adds hand-written lines that cover operand
# encodings (constants, literals, special registers, modifiers, flags).
#
# Left out: the *_pad_s_nop pseudo-instructions (a branch plus an s_nop, two
# instructions), lines whose operand llvm-mc took for a symbol (their
# encoding holds a fixup, not bytes), and the gfx10 *_g16 image opcodes, which llvm-mc 14 encodes
# for tahiti with a stray bit instead of rejecting them.
#
# Output: corpus.txt, one instruction a line: "HEXBYTES<TAB>LLVM TEXT".
# Usage: sh tests/data/si/make_corpus.sh [OUT]   (default: corpus.txt next to itself)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/corpus.txt}
MC=${LLVM_MC:-llvm-mc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

lib=$(ldd "$(command -v "$MC")" | awk '/libLLVM/ {print $3; exit}')
[ -n "$lib" ] || lib=$(ls /usr/lib/x86_64-linux-gnu/libLLVM-*.so* /lib/x86_64-linux-gnu/libLLVM-*.so* 2>/dev/null | head -1)
strings -n 4 "$lib" | tr '\t ' '\n\n' |
  grep -E '^((s|v|ds|buffer|tbuffer|image)_[a-z0-9_]+|exp)$' | LC_ALL=C sort -u > "$tmp/mnemonics"

# Operand shapes per mnemonic prefix.  Wrong shapes are simply rejected.
# MIMG encodings do not hold the address register count, so every image
# shape uses the same four-register address v[4:7].
cat > "$tmp/shapes_s" <<'S'

s5
s[4:5]
s5, s1
s[4:5], s[2:3]
s5, s[2:3]
s[4:5], s2
s5, s1, s2
s[4:5], s[2:3], s[6:7]
s[4:5], s[2:3], s6
s[4:5], s2, s3
s1, s2
s[2:3], s[4:5]
s[2:3], s4
s5, 0x1234
0x1234
4
s5, s[2:3], 0x4
s[4:5], s[2:3], 0x4
s[4:7], s[2:3], 0x4
s[4:11], s[2:3], 0x4
s[4:19], s[2:3], 0x4
s5, s[4:7], 0x4
s[4:5], s[8:11], 0x4
s[4:7], s[8:11], 0x4
s[4:11], s[8:11], 0x4
s[4:19], s[8:11], 0x4
s5, hwreg(HW_REG_MODE)
hwreg(HW_REG_MODE), s5
hwreg(HW_REG_MODE), 0x12
sendmsg(MSG_INTERRUPT)
vmcnt(0)
s[2:3], 4
S
cat > "$tmp/shapes_v" <<'S'

v1, v2
v[2:3], v[4:5]
v1, v[2:3]
v[2:3], v1
v[2:5], v[6:9]
v1, v2, v3
v[2:3], v[4:5], v[6:7]
v[2:3], v[4:5], v6
v[2:3], v4, v5
v1, v[2:3], v4
v1, v2, v3, v4
v[2:3], v[4:5], v[6:7], v[8:9]
v[2:3], v[4:5], v6, v[8:9]
v[2:5], v[6:7], v8, v[10:13]
v1, vcc, v2, v3
v1, vcc, v2, v3, vcc
v1, s[2:3], v2, v3
v1, s[2:3], v2, v3, s[4:5]
v1, v2, v3, vcc
v1, v2, v3, s[4:5]
vcc, v1, v2
vcc, v[2:3], v[4:5]
vcc, v[2:3], v4
s[2:3], v1, v2
s[2:3], v[4:5], v[6:7]
s[2:3], v[4:5], v6
v1, vcc, v2, v3, v4
v[2:3], vcc, v[4:5], v[6:7], v[8:9]
v1, s[2:3], v2, v3, v4
v[2:3], s[4:5], v[4:5], v[6:7], v[8:9]
s1, v2
s1, v2, s3
v1, s2, s3
v1, v2, attr0.x
v1, p10, attr0.x
S
cat > "$tmp/shapes_ds" <<'S'
v1, v2
v1, v2 offset:16
v1, v2, v3
v1, v2, v3 offset:16
v1, v2, v3, v4
v1, v2, v3, v4 offset:16
v1, v[2:3], v[4:5]
v1, v[2:3], v[4:5] offset:16
v[2:3], v1, v[4:5]
v[2:3], v1, v[4:5], v[6:7]
v[2:3], v1, v[4:5] offset:16
v[2:3], v1, v[4:5], v[6:7] offset:16
v1, v2, v3 offset0:1 offset1:2
v1, v[2:3], v[4:5] offset0:1 offset1:2
v1, v2, v3, v4 offset:16
v[2:3], v1, v[4:5], v[6:7] offset:16
v[2:3], v1 offset0:1 offset1:2
v[2:5], v1 offset0:1 offset1:2
v1, v2 offset:16 gds
v1, v[2:3] offset:16
v[2:3], v1 offset:16
v[2:5], v1 offset:16
v1 offset:16
v1
v1, v2 offset:16
offset:16
v[2:3], v1
v1, v2, v3 offset:16
S
cat > "$tmp/shapes_buf" <<'S'
v1, off, s[4:7], s1 offset:16
v1, v2, s[4:7], s1 offen offset:16
v1, v2, s[4:7], s1 idxen offset:16
v1, v[2:3], s[4:7], s1 addr64 offset:16
v[1:2], v[2:3], s[4:7], s1 addr64 offset:16
v[1:3], v[2:3], s[4:7], s1 addr64 offset:16
v[1:4], v[2:3], s[4:7], s1 addr64 offset:16
v1, v[2:3], s[4:7], s1 addr64 offset:16 glc
v[1:2], v[2:3], s[4:7], s1 addr64 offset:16 glc
v1, off, s[4:7], s1 offset:16 lds
v1, off, s[4:7], s1 offset:16 lds
off, s[4:7], s1 offset:16 lds

S
cat > "$tmp/shapes_tbuf" <<'S'
v1, off, s[4:7], s1 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] offset:16
v[1:2], off, s[4:7], s1 format:[BUF_DATA_FORMAT_32_32,BUF_NUM_FORMAT_FLOAT] offset:16
v[1:3], off, s[4:7], s1 format:[BUF_DATA_FORMAT_32_32_32,BUF_NUM_FORMAT_FLOAT] offset:16
v[1:4], off, s[4:7], s1 format:[BUF_DATA_FORMAT_32_32_32_32,BUF_NUM_FORMAT_FLOAT] offset:16
S
cat > "$tmp/shapes_img" <<'S'
v[0:3], v[4:7], s[8:15], s[16:19] dmask:0xf
v[0:3], v[4:7], s[8:15] dmask:0xf unorm
v1, v[4:7], s[8:15], s[16:19] dmask:0x1
v1, v[4:7], s[8:15] dmask:0x1 unorm
v1, v[4:7], s[8:15] dmask:0x1 unorm glc
v[0:1], v[4:7], s[8:15] dmask:0x3 unorm glc
v[0:3], v[4:7], s[8:15] dmask:0xf unorm glc
v[0:3], v[4:7], s[8:15] dmask:0xf
S
printf 'mrt0 v1, v2, v3, v4\nmrt0 v1, v2, v3, v4 done vm\n' > "$tmp/shapes_exp"

while read -r m; do
  case $m in
    s_*) set -- shapes_s "";;
    v_*) set -- shapes_v "_e64";;
    ds_*) set -- shapes_ds "";;
    tbuffer_*) set -- shapes_tbuf "";;
    buffer_*) set -- shapes_buf "";;
    image_*) set -- shapes_img "";;
    exp) set -- shapes_exp "";;
  esac
  for suffix in "" $2; do
    while IFS= read -r ops; do
      printf '%s%s %s\n' "$m" "$suffix" "$ops"
    done < "$tmp/$1"
  done
done < "$tmp/mnemonics" > "$tmp/try.s"
cat "$here/extra.s" >> "$tmp/try.s"

# Rejected lines go to stderr as "FILE:LINE:COL: error"; llvm-mc prints the
# accepted ones in order.  One pass over the whole file keeps this fast.
"$MC" -arch=amdgcn -mcpu=tahiti -show-encoding "$tmp/try.s" \
  > "$tmp/out" 2> "$tmp/err" || true
grep -E '; encoding:' "$tmp/out" |
  sed -E 's/^[[:space:]]+//; s/[[:space:]]*; encoding: \[(.*)\]$/\t\1/' |
  awk -F'\t' '{ gsub(/0x/, "", $2); gsub(/,/, "", $2); print $2 "\t" $1 }' |
  awk -F'\t' '$1 ~ /^[0-9a-f]+$/ && !seen[$1]++' |
  grep -v -E '(_pad_s_nop|_g16) ' > "$out"
echo "corpus: $(wc -l < "$out") encodings of" \
     "$(cut -f2 "$out" | awk '{print $1}' | sed 's/_e32$\|_e64$//' | sort -u | wc -l) mnemonics" \
     "($("$MC" --version | awk '/LLVM version/ {print "LLVM " $NF}'))"
