#!/usr/bin/env bash
# Installs what asmevo needs, builds the asmevo CLI, and runs the main job on an example kernel that
# the project compiles itself from HIP source with clang-22.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${ASMEVO_BUILD_DIR:-$here/build}
bash "$here/scripts/install-deps.sh"
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" --parallel "$(nproc)" --target asmevo example_kernels
asmevo="$build/tools/asmevo/asmevo"
s="$build/examples/kernels/vec_add.gfx942.s"
echo "== asmevo fmt $s --mcpu gfx942 (first 40 lines)"
"$asmevo" fmt "$s" --mcpu gfx942 -o "$build/vec_add.fmt.s"
head -n 40 "$build/vec_add.fmt.s"
echo "== asmevo encode (bytes per instruction, first 30)"
"$asmevo" encode "$build/vec_add.fmt.s" --mcpu gfx942 | head -n 30
