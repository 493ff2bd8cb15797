#!/usr/bin/env bash
# Installs what asmevo needs, builds it with its tests, and runs the whole test suite (CI calls this).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${ASMEVO_BUILD_DIR:-$here/build}
t0=$SECONDS
bash "$here/scripts/install-deps.sh"
t1=$SECONDS
# Optimised, without debug info: -g slows the compile and link of the template-heavy test TUs, and CI
# never reads it (configure a build of your own with RelWithDebInfo to debug).
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DASMEVO_BUILD_TESTS=ON
t2=$SECONDS
cmake --build "$build" --parallel "$(nproc)"
t3=$SECONDS
# The corpus lives beside the checkout (../shared/corpus) unless ASMEVO_CORPUS_DIR says otherwise.
if [ -z "${ASMEVO_CORPUS_DIR:-}" ] && [ -d "$here/../shared/corpus" ]; then
  export ASMEVO_CORPUS_DIR=$(cd "$here/../shared/corpus" && pwd)
fi
cd "$build"
status=0
ctest --output-on-failure --parallel "$(nproc)" "$@" || status=$?
# Where the time went (CI's budget is 30 minutes on two cores, install included).
echo "test.sh: install $((t1 - t0)) s, configure $((t2 - t1)) s, build $((t3 - t2)) s, tests $((SECONDS - t3)) s;" \
  "total $((SECONDS - t0)) s on $(nproc) cores"
exit $status
