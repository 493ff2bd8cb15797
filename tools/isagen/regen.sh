#!/usr/bin/env bash
# Regenerates include/asmevo/ir/gen/ from LLVM 22's AMDGPU TableGen records (fetch sources, dump JSON, generate).
# Usage: tools/isagen/regen.sh WORKDIR        (WORKDIR: scratch folder, ~1 GiB; reused if already filled)
# Cost: llvm-tblgen-22 --dump-json takes ~1-2 min and PEAKS AT ~17 GiB RAM (the JSON backend builds the whole
# 468 MiB document in memory). Run it alone on a machine with >= 24 GiB; never in CI, never next to a build.
# isagen.py then needs ~3 GB and ~40 s; gen_builders.py and gen_ops.py (builders, op ids) under a second each.
# Output is deterministic: commit it.
set -euo pipefail
work=${1:?usage: regen.sh WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)

src=$("$here/fetch-llvm-source.sh" "$work" | tail -n1)
json=$work/amdgpu.json
if [ ! -s "$json" ]; then
  (cd "$src" && llvm-tblgen-22 --dump-json -I llvm/include -I llvm/lib/Target/AMDGPU \
      llvm/lib/Target/AMDGPU/AMDGPU.td -o "$json.tmp")
  mv "$json.tmp" "$json"
fi
python3 "$here/isagen.py" --json "$json" --out "$repo/include/asmevo/ir/gen"
# Second stage: headers generated from the tables just written (they read the .inc files only).
python3 "$here/gen_builders.py" --root "$repo"
python3 "$here/gen_ops.py" --root "$repo"
