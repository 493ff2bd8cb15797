#!/usr/bin/env bash
# Installs what asmevo needs, builds it with its tests, and runs the whole test suite (CI calls this).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${ASMEVO_BUILD_DIR:-$here/build}
bash "$here/scripts/install-deps.sh"
# Optimised, without debug info: -g slows the compile and link of the template-heavy test TUs, and CI
# never reads it (configure a build of your own with RelWithDebInfo to debug).
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DASMEVO_BUILD_TESTS=ON
cmake --build "$build" --parallel "$(nproc)"
# The corpus lives beside the checkout (../shared/corpus) unless ASMEVO_CORPUS_DIR says otherwise.
if [ -z "${ASMEVO_CORPUS_DIR:-}" ] && [ -d "$here/../shared/corpus" ]; then
  export ASMEVO_CORPUS_DIR=$(cd "$here/../shared/corpus" && pwd)
fi
cd "$build"
ctest --output-on-failure --parallel "$(nproc)" "$@"
