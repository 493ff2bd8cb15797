#!/usr/bin/env bash
# Builds the code-object fuzzer (tests/fuzz/codeobject_fuzz.cpp: libFuzzer + ASan + UBSan) and runs it, seeded
# with copies of the corpus code objects, then says how many inputs ran. Not part of CI.
# Usage: scripts/fuzz-codeobject.sh [RUNS] [libFuzzer options...]
#   RUNS defaults to $ASMEVO_FUZZ_RUNS or 1000000; e.g. scripts/fuzz-codeobject.sh 200000 -jobs=1
#   Seeds come from ${ASMEVO_CORPUS_DIR:-../shared/corpus}; everything is written under a fresh temporary folder
#   (never into the repository), which is kept and printed so that crashes can be replayed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-${ASMEVO_FUZZ_RUNS:-1000000}}
[ $# -gt 0 ] && shift
corpus_src=${ASMEVO_CORPUS_DIR:-$here/../shared/corpus}
cxx=${ASMEVO_FUZZ_CXX:-clang++-22}
command -v "$cxx" >/dev/null || { echo "error: $cxx not found (Debian: clang-22, libclang-rt-22-dev)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/asmevo-fuzz.XXXXXX")
mkdir -p "$work/corpus" "$work/artifacts"
# nlohmann/json: its pkg-config file when there is one, else the compiler's default include path (/usr/include).
json_flags=$(pkg-config --cflags nlohmann_json 2>/dev/null || true)

echo "== building $work/codeobject_fuzz"
# shellcheck disable=SC2086
"$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -I "$here/include" $json_flags \
  "$here/tests/fuzz/codeobject_fuzz.cpp" -o "$work/codeobject_fuzz"

seeds=0
if [ -d "$corpus_src" ]; then
  while IFS= read -r -d '' f; do
    rel=${f#"$corpus_src"/}
    cp "$f" "$work/corpus/${rel//\//_}"
    seeds=$((seeds + 1))
  done < <(find "$corpus_src" -type f \( -name '*.co' -o -name '*.hsaco' \) -print0)
fi
echo "== $seeds seed code objects from $corpus_src"
[ "$seeds" -gt 0 ] || echo "warning: no seeds; the fuzzer starts from empty input" >&2

echo "== running $runs inputs (log: $work/fuzz.log)"
status=0
# From inside the work folder: with -jobs=N libFuzzer writes its workers' logs (fuzz-N.log) to the current folder.
(cd "$work" && ./codeobject_fuzz -runs="$runs" -artifact_prefix="$work/artifacts/" -print_final_stats=1 "$@" \
  "$work/corpus") > "$work/fuzz.log" 2>&1 || status=$?
logs=("$work"/fuzz*.log)
tail -n 25 "${logs[@]}"
done_line=$(cat "${logs[@]}" | grep -oE 'Done [0-9]+ runs in [0-9]+ second' | tail -n 1 || true)
ran=$(cat "${logs[@]}" | grep -oE 'stat::number_of_executed_units: *[0-9]+' | grep -oE '[0-9]+$' | tail -n 1 || true)
echo "== ${done_line:-no completion line}; inputs executed: ${ran:-unknown}; exit status $status"
if [ "$status" -ne 0 ] || ls "$work/artifacts/" | grep -q .; then
  echo "== crash or leak inputs in $work/artifacts/ (replay: $work/codeobject_fuzz <file>)"
  exit 1
fi
echo "== no crash; work folder $work"
