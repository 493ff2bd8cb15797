#!/usr/bin/env bash
# Compile time of small translation units that use one part of asmevo each, at -O2 as the build compiles them:
# this checkout against an earlier revision of it (the peer), measured in the same run, as a ratio. Each unit is
# compiled twice and the faster time is kept (the machines are noisy).
#
#   scripts/compile-time.sh [BASE_REV]
#     BASE_REV: the revision to compare with (default: the last one before separate compilation,
#               include/asmevo/support/linkage.hpp, was added)
#   env: CXX (default c++), COMPILE_TIME_REPEAT (2), COMPILE_TIME_UNITS (default "parser builders emulate verify")
#
# Units: the parser alone, the typed builders of one target, a call to the emulator, a call to the differential
# verifier. Columns: the base revision (header-only, the only mode it has), this checkout header-only, and this
# checkout under ASMEVO_SEPARATE_COMPILATION (what the project's own tests and tools build: the heaviest functions
# are declared only, and compiled once in src/separate/).
# Exit: 0 when every unit compiled; 1 otherwise; 2 on bad usage.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cxx=${CXX:-c++}
repeat=${COMPILE_TIME_REPEAT:-2}
units=${COMPILE_TIME_UNITS:-parser builders emulate verify}
cd "$here" || exit 2
if [ $# -ge 1 ]; then
  base=$1
else
  first=$(git log --diff-filter=A --format=%H -- include/asmevo/support/linkage.hpp | tail -1)
  [ -n "$first" ] || { echo "compile-time: no commit adds support/linkage.hpp; name a BASE_REV" >&2; exit 2; }
  base="$first^"
fi
base_sha=$(git rev-parse --verify --quiet "$base^{commit}") || { echo "compile-time: unknown revision '$base'" >&2; exit 2; }
work=$(mktemp -d)
trap 'git -C "$here" worktree remove --force "$work/base" >/dev/null 2>&1; rm -rf "$work"' EXIT
git worktree add --detach "$work/base" "$base_sha" >/dev/null 2>&1 || { echo "compile-time: cannot check out $base" >&2; exit 2; }

cat > "$work/parser.cpp" <<'EOF'
#include "asmevo/ir/parser.hpp"
int main() { return asmevo::parse_program("\ts_endpgm\n", asmevo::Target::gfx942) ? 0 : 1; }
EOF
cat > "$work/builders.cpp" <<'EOF'
#include "asmevo/ir/gen/builders_gfx942.hpp"
int main() {
  namespace g = asmevo::gfx942;
  asmevo::Program p;
  p.target = asmevo::Target::gfx942;
  g::Builder b{p};
  b.v_add_f32(g::v<8>, g::v<8>, g::s<2>);
  b.global_load_dwordx4(g::v<8, 11>, g::v<2, 3>, g::off, g::offset(16));
  return b.ok() ? 0 : 1;
}
EOF
cat > "$work/emulate.cpp" <<'EOF'
// The emulator moved from verify/emu/ to emu/ (issue 29); the base revision may have either.
#if __has_include("asmevo/emu/launch.hpp")
#include "asmevo/emu/launch.hpp"
#else
#include "asmevo/verify/emu/launch.hpp"
#endif
bool run(const asmevo::codeobject::Module& m, const asmevo::codeobject::ElfFile& e, const asmevo::verify::LaunchSpec& s) {
  return asmevo::emu::emulate(m, e, s).has_value();
}
EOF
cat > "$work/verify.cpp" <<'EOF'
#include "asmevo/verify/differential.hpp"
#include "asmevo/verify/emu_executor.hpp"
bool check(const asmevo::verify::CodeObject& k0, const asmevo::verify::CodeObject& k1,
           std::span<const asmevo::verify::LaunchSpec> shapes, asmevo::verify::EmuExecutor& exec) {
  return asmevo::verify::differential_verify(k0, k1, shapes, exec).has_value();
}
EOF

# seconds to compile $2 against the headers under $1 (extra flags after), the fastest of $repeat runs; "failed"
time_of() {
  local root=$1 src=$2; shift 2
  local best=""
  for _ in $(seq "$repeat"); do
    local t0 t1
    t0=$(date +%s.%N)
    if ! "$cxx" -std=c++20 -O2 -DNDEBUG -I"$root/include" -isystem /usr/lib/llvm-22/include "$@" -c "$src" \
        -o "$work/out.o" 2> "$work/err.txt"; then
      echo failed
      sed -n 1,5p "$work/err.txt" >&2
      return
    fi
    t1=$(date +%s.%N)
    best=$(python3 -c "import sys; a=float(sys.argv[1]); b=sys.argv[2]; print(f'{min(a, float(b)) if b else a:.1f}')" \
      "$(python3 -c "print($t1 - $t0)")" "$best")
  done
  echo "$best"
}
ratio() { python3 -c "import sys; a, b = sys.argv[1:]; print(f'{float(b) / float(a):.2f}' if a != 'failed' and b != 'failed' else '-')" "$1" "$2"; }

echo "## Compile time, -O2, seconds (fastest of $repeat; $($cxx --version | head -1))"
echo
echo "base: $(git log -1 --format='%h %s' "$base_sha" | cut -c1-80)"
echo
echo "| unit | base | this, header-only | ratio | this, separate | ratio |"
echo "|---|---:|---:|---:|---:|---:|"
status=0
for unit in $units; do
  [ -f "$work/$unit.cpp" ] || { echo "compile-time: no unit '$unit' (parser, builders, emulate, verify)" >&2; exit 2; }
  b=$(time_of "$work/base" "$work/$unit.cpp")
  h=$(time_of "$here" "$work/$unit.cpp")
  s=$(time_of "$here" "$work/$unit.cpp" -DASMEVO_SEPARATE_COMPILATION)
  for x in "$b" "$h" "$s"; do [ "$x" = failed ] && status=1; done
  echo "| $unit | $b | $h | $(ratio "$b" "$h") | $s | $(ratio "$b" "$s") |"
done
exit $status
