#!/usr/bin/env bash
# Checks the generated mnemonic list of one target against llvm-mc-22 (note llvm-tablegen.md §6, sanity check 1).
# Usage: tools/isagen/check_mnemonics.sh TARGET        (gfx90a | gfx942 | gfx950)
# Universe: every mnemonic and alias spelling of all three generated tables. Each is fed to llvm-mc-22 as a bare
# line; it counts as accepted unless the error is "instruction not supported on this GPU" or "invalid
# instruction" (operand errors mean the mnemonic was recognised). Prints both differences; exit 0 iff none.
set -euo pipefail
t=${1:?usage: check_mnemonics.sh TARGET}
here=$(cd "$(dirname "$0")" && pwd)
gen=$here/../../include/asmevo/ir/gen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Spellings of one table (rows start `  {{"name",len}`): mnemonic_table entries, MnemonicAlias `from`, rename InstAlias `from`.
spellings() {
  awk '/mnemonic_table\{\{/ {m=1; next} /mnemonic_alias_table\{\{/ {a=1; next} /rename_alias_table\{\{/ {r=1; next}
       /^\}\};/ {m=a=r=0}
       (m||a||r) && match($0, /^  \{\{"[^"]*"/) {print substr($0, 6, RLENGTH-6)}' "$1"
}
awk '/mnemonic_table\{\{/ {m=1; next} /^\}\};/ {m=0} m && match($0, /^  \{\{"[^"]*"/) {print substr($0, 6, RLENGTH-6)}' \
  "$gen/$t.inc" | sort -u > "$tmp/mnemonics"
spellings "$gen/$t.inc" | sort -u > "$tmp/predicted"
for f in "$gen"/gfx*.inc; do spellings "$f"; done | sort -u > "$tmp/universe"

# llvm-mc reports one error per line, "<stdin>:LINE:COL: error: MESSAGE".
llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu="$t" -filetype=null "$tmp/universe" 2> "$tmp/errors" || true
awk -F: '/error: (instruction not supported on this GPU|invalid instruction)/ {print $2}' "$tmp/errors" \
  | sort -un > "$tmp/rejected_lines"
awk 'NR==FNR {bad[$1]=1; next} !(FNR in bad)' "$tmp/rejected_lines" "$tmp/universe" | sort -u > "$tmp/accepted"

comm -23 "$tmp/accepted" "$tmp/predicted" > "$tmp/missing"   # llvm-mc accepts, tables do not have
comm -13 "$tmp/accepted" "$tmp/predicted" > "$tmp/extra"     # tables have, llvm-mc rejects
echo "$t: universe $(wc -l < "$tmp/universe"), accepted $(wc -l < "$tmp/accepted"), predicted $(wc -l < "$tmp/predicted") ($(wc -l < "$tmp/mnemonics") mnemonics + aliases)"
echo "$t: accepted but not predicted: $(wc -l < "$tmp/missing")"; sed 's/^/  + /' "$tmp/missing"
echo "$t: predicted but rejected: $(wc -l < "$tmp/extra")"; sed 's/^/  - /' "$tmp/extra"
[ ! -s "$tmp/missing" ] && [ ! -s "$tmp/extra" ]
