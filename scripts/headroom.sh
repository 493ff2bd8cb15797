#!/usr/bin/env bash
# K0's headroom per kernel (issue 27): every kernel of the corpus's inductor-dev/ (with its own launch file) and of
# triton/ (with tests/data/launch/triton/<stem>.json, first shape) run on gfx942 through `asmevo emulate --timing`,
# printed as one markdown table: modeled cycles, the speed-of-light bound for the same CU share, what binds it, and
# headroom = modeled / bound. All figures are the cost model's (modeled), not measurements.
#
#   scripts/headroom.sh [BUILD_DIR]          (default: build/ beside scripts/)
#   env: ASMEVO_CORPUS_DIR (default ../shared/corpus), HEADROOM_TARGET (gfx942)
#
# Exit: 0 when every kernel ran and no bound exceeds its modeled cycles; 1 otherwise; 2 when the tool or the corpus
# is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
tool=$build/tools/asmevo/asmevo
corpus=${ASMEVO_CORPUS_DIR:-$here/../shared/corpus}
target=${HEADROOM_TARGET:-gfx942}
[ -x "$tool" ] || { echo "headroom: $tool not found: build the asmevo target first" >&2; exit 2; }
[ -d "$corpus/inductor-dev" ] || { echo "headroom: no corpus at $corpus (set ASMEVO_CORPUS_DIR)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
run() {  # set, name, code object, launch file, extra args
  local set=$1 name=$2 co=$3 launch=$4; shift 4
  if "$tool" emulate "$co" --launch "$launch" --timing --json --eager "$@" > "$out/$set.$name.json" 2> "$out/$set.$name.err"; then
    echo "$set $name ok"
  else
    echo "$set $name failed: $(head -c 300 "$out/$set.$name.err")"
  fi
}
for f in "$corpus"/inductor-dev/*.json; do
  case "$f" in *.meta.json|*/SUMMARY.json) continue ;; esac
  stem=$(basename "$f" .json)
  co="$corpus/inductor-dev/$stem.$target.hsaco"
  [ -f "$co" ] || { echo "inductor-dev $stem skipped: no $stem.$target.hsaco"; continue; }
  run inductor-dev "$stem" "$co" "$f"
done > "$out/status.txt"
for f in "$here"/tests/data/launch/triton/*.json; do
  stem=$(basename "$f" .json)
  co="$corpus/triton/$stem.$target.hsaco"
  [ -f "$co" ] || { echo "triton $stem skipped: no $stem.$target.hsaco"; continue; }
  run triton "$stem" "$co" "$f" --shape 0
done >> "$out/status.txt"
python3 - "$out" "$target" <<'PY' || status=1
import json, os, sys
out, target = sys.argv[1], sys.argv[2]
rows, failed, skipped = [], [], []
for line in open(os.path.join(out, "status.txt")):
    s, name, state = line.split(" ", 2)
    if state.startswith("skipped"):
        skipped.append(f"{s}/{name}: {state.strip()}")
        continue
    if not state.startswith("ok"):
        failed.append(f"{s}/{name}: {state.strip()}")
        continue
    try:
        j = json.load(open(os.path.join(out, f"{s}.{name}.json")))
        t = j["timing"]
        rows.append((s, name, j["modeled_cycles"], t["bound_cycles"], t["bound_kind"], t["headroom"], t["bound"]))
    except (ValueError, KeyError, TypeError) as e:
        failed.append(f"{s}/{name}: the JSON of emulate --timing lacks the timing or bound fields ({e!r})")
rows.sort(key=lambda r: -r[5])
print(f"## K0 headroom on {target} (modeled cycles / speed-of-light bound, cost model)\n")
print("| set | kernel | modeled cycles | bound | bound by | headroom | memory | issue | latency | launch |")
print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|")
bad = 0
for s, name, m, b, k, h, parts in rows:
    flag = "" if b <= m else " **bound > modeled**"
    bad += b > m
    print(f"| {s} | {name} | {m} | {b} | {k} | {h:.2f}{flag} | {parts['memory']} | {parts['issue']} | "
          f"{parts['latency']} | {parts['launch']} |")
hs = sorted(r[5] for r in rows)
if hs:
    med = hs[len(hs) // 2]
    kinds = {}
    for r in rows: kinds[r[4]] = kinds.get(r[4], 0) + 1
    print(f"\n{len(rows)} kernels; headroom median {med:.2f}, min {hs[0]:.2f}, max {hs[-1]:.2f}; bound by " +
          ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) + f"; {bad} with bound > modeled")
# The geomean headroom of a set is the most a search can reach there while K1 keeps K0's own speed of light (its
# compulsory bytes, its busiest unit, its longest dependent chain): the ceiling for a geomean speedup goal.
import math
for s in sorted({r[0] for r in rows}):
    h = [r[5] for r in rows if r[0] == s]
    print(f"{s}: geomean headroom {math.exp(sum(map(math.log, h)) / len(h)):.3f} over {len(h)} kernels, "
          f"{sum(x > 1.5 for x in h)} above 1.5")
for f in skipped: print("skipped:", f)
for f in failed: print("failed:", f)
sys.exit(1 if failed or bad else 0)
PY
exit $status
