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
co="$build/examples/kernels/vec_add.gfx942.co"
echo "== asmevo inspect $co (first 40 lines)"
"$asmevo" inspect "$co" > "$build/vec_add.inspect.txt"
sed -n '1,40p' "$build/vec_add.inspect.txt"
echo "== asmevo disasm $co -o $build/vec_add.recovered.s (first 60 lines)"
"$asmevo" disasm "$co" -o "$build/vec_add.recovered.s"
sed -n '1,60p' "$build/vec_add.recovered.s"
echo "== asmevo assemble $build/vec_add.recovered.s -o $build/vec_add.rebuilt.co --original $co"
"$asmevo" assemble "$build/vec_add.recovered.s" -o "$build/vec_add.rebuilt.co" --original "$co"
echo "== asmevo roundtrip $co"
"$asmevo" roundtrip "$co"
s="$build/examples/kernels/vec_add.gfx942.s"
echo "== asmevo fmt $s --mcpu gfx942 (first 40 lines of $build/vec_add.fmt.s)"
"$asmevo" fmt "$s" --mcpu gfx942 -o "$build/vec_add.fmt.s"
sed -n '1,40p' "$build/vec_add.fmt.s"
echo "== asmevo encode (bytes per instruction, first 30 of $build/vec_add.encode.txt)"
# Written to a file first: piping into head would end the encoder with SIGPIPE under pipefail.
"$asmevo" encode "$build/vec_add.fmt.s" --mcpu gfx942 > "$build/vec_add.encode.txt"
sed -n '1,30p' "$build/vec_add.encode.txt"
echo "== $(grep -c ' ; i' "$build/vec_add.encode.txt") instructions encoded through LLVM MC 22"
launch="$here/examples/launch/vec_add.json"
echo "== asmevo emulate $co --launch $launch --dump $build/vec_add.emu (the CPU emulator, adversarial memory timing)"
"$asmevo" emulate "$co" --launch "$launch" --dump "$build/vec_add.emu"
echo "== the first 8 results (c = a + b) as the emulator wrote them to $build/vec_add.emu/arg2.bin"
od -A d -t f4 -N 32 "$build/vec_add.emu/arg2.bin"
echo "== asmevo emulate --coverage --mcpu gfx942 (summary)"
"$asmevo" emulate --coverage --mcpu gfx942 > "$build/coverage.gfx942.txt"
tail -n 1 "$build/coverage.gfx942.txt"
echo "== asmevo optimize $co --launch $launch (built-in proposer, emulator: a search gated by differential verification)"
"$asmevo" optimize "$co" --launch "$launch" -o "$build/vec_add.k1.co" --budget 24 --seed 1 \
  --report "$build/vec_add.optimize.html" --json > "$build/vec_add.optimize.json" || true
python3 - "$build/vec_add.optimize.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
state = "verified equivalent to K0" if j["verified"] else "nothing verified was faster"
print(f"verified modeled speedup: {j['speedup']:.4f}x ({j['modeled_cycles_before']:.0f} -> "
      f"{j['modeled_cycles_after']:.0f} modeled cycles; {j['attempts']} attempts, {j['accepted']} accepted; {state})")
PY
echo "== report: $build/vec_add.optimize.html"

# The last step shows what asmevo is for: a row reduction of the project's own (examples/kernels/row_sum.hip, built
# by clang-22 -O3) keeps one load in flight per wave in its counted loop; the built-in proposer reads the cost
# model's hot windows, sees the wait inside the loop and software-pipelines it (eight iterations' loads in flight),
# and the gate verifies K1 on the launch file's fifteen shapes (trip counts 64..71: every remainder of a depth up to
# 8; and 1..7, the rows too short for the pipeline, which run K0's loop) before it is kept.
rco="$build/examples/kernels/row_sum.gfx942.co"
rlaunch="$here/examples/launch/row_sum.json"
# Unlike vec_add's step, this one is meant to find a gain: if nothing verified is faster, optimize exits 1 and the
# main job stops here, loudly.
echo "== asmevo optimize $rco --launch $rlaunch (a row reduction: one wave per row, one load in flight)"
"$asmevo" optimize "$rco" --launch "$rlaunch" -o "$build/row_sum.k1.co" --budget 24 --seed 1 \
  --report "$build/row_sum.optimize.html" --json > "$build/row_sum.optimize.json"
"$asmevo" emulate "$rco" --launch "$rlaunch" --shape 0 --timing --json > "$build/row_sum.k0.timing.json"
"$asmevo" emulate "$build/row_sum.k1.co" --launch "$rlaunch" --shape 0 --timing --json > "$build/row_sum.k1.timing.json"
python3 - "$build/row_sum.optimize.json" "$build/row_sum.k0.timing.json" "$build/row_sum.k1.timing.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for s in j["accepted_steps"]:
    print(f"accepted: {s['summary']} ({s['cost_before']:.0f} -> {s['cost_after']:.0f} modeled cycles)")
state = "verified equivalent to K0" if j["verified"] else "nothing verified was faster"
print(f"verified modeled speedup: {j['speedup']:.2f}x ({j['modeled_cycles_before']:.0f} -> "
      f"{j['modeled_cycles_after']:.0f} modeled cycles; {state})")
for name, f in (("K0", sys.argv[2]), ("K1", sys.argv[3])):
    e = json.load(open(f))
    t, c = e["timing"], e["modeled_cycles"]
    print(f"{name}: {c} modeled cycles; speed-of-light bound {t['bound_cycles']} cycles ({t['bound_kind']}: "
          f"memory {t['bound']['memory']}, issue {t['bound']['issue']}, latency {t['bound']['latency']}), "
          f"modeled / bound {c / t['bound_cycles']:.2f}, modeled / memory bound {c / t['bound']['memory']:.2f}")
PY
echo "== report: $build/row_sum.optimize.html"
