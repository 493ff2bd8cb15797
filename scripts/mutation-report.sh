#!/usr/bin/env bash
# Mutation report of the verification gate (issue 6, "Proof that the gate works"): runs asmevo-mutate over every
# Triton corpus kernel that has a launch file (tests/data/launch/triton/<stem>.json) for gfx90a, gfx942 and gfx950
# with a fixed seed, and prints one markdown table per operator class: mutants, invalid, caught statically, caught by
# runs (and by the ABI and memory-model checks), proven equivalent, misses, and the catch rate
# caught / (caught + misses); then the totals, every miss with its text, and the run time.
#
#   scripts/mutation-report.sh [BUILD_DIR]        (default: build/ beside scripts/)
#   env: ASMEVO_CORPUS_DIR (default ../shared/corpus), MUTATE_PER_OP (mutants drawn per operator and kernel, 8),
#        MUTATE_SEED (1), MUTATE_JOBS (parallel kernels, 2), MUTATE_OUT (folder for the per-kernel JSON, a temp dir)
#
# Exit: 0 when the catch rate is at least 99% and no waitcnt_* or store_oob mutant is a miss; 1 otherwise; 2 when
# the tool, the corpus or a launch file is missing or a kernel could not be mutated at all.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
tool=$build/tools/mutate/asmevo-mutate
corpus=${ASMEVO_CORPUS_DIR:-$here/../shared/corpus}
per_op=${MUTATE_PER_OP:-8}
seed=${MUTATE_SEED:-1}
jobs=${MUTATE_JOBS:-2}
launch_dir=$here/tests/data/launch/triton

[ -x "$tool" ] || { echo "mutation-report: $tool not found: build the asmevo-mutate target first" >&2; exit 2; }
[ -d "$corpus/triton" ] || { echo "mutation-report: no Triton corpus at $corpus/triton (set ASMEVO_CORPUS_DIR)" >&2; exit 2; }
ls "$launch_dir"/*.json > /dev/null 2>&1 || { echo "mutation-report: no launch files in $launch_dir" >&2; exit 2; }
out=${MUTATE_OUT:-$(mktemp -d)}
mkdir -p "$out"

start=$(date +%s)
# One job per (stem, target): its JSON result, or an error file when the tool fails (exit 2/3).
for f in "$launch_dir"/*.json; do
  stem=$(basename "$f" .json)
  for t in gfx90a gfx942 gfx950; do
    echo "$stem $t"
  done
done | xargs -P "$jobs" -L 1 bash -c '
  stem=$0; t=$1
  co="'"$corpus"'/triton/$stem.$t.hsaco"
  res="'"$out"'/$stem.$t.json"
  if [ ! -f "$co" ]; then echo "missing $co" > "$res.err"; exit 0; fi
  "'"$tool"'" "$co" --launch "'"$launch_dir"'/$stem.json" --per-op "'"$per_op"'" --seed "'"$seed"'" --json > "$res" 2> "$res.stderr"
  rc=$?
  if [ $rc -ge 2 ]; then echo "asmevo-mutate exited $rc: $(head -c 600 "$res.stderr")" > "$res.err"; fi
  exit 0'
end=$(date +%s)

python3 - "$out" "$((end - start))" "$per_op" "$seed" <<'EOF'
import collections, json, os, sys
out, seconds, per_op, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ops = ["waitcnt_drop", "waitcnt_weaken", "swap_dependent", "reg_change", "imm_change", "offset_change", "cmp_flip",
       "nop_drop", "exec_change", "store_oob", "cache_bit"]
cols = ["mutants", "invalid", "caught_static", "caught_run", "caught_refuted", "caught_state", "caught_abi",
        "caught_memory_model", "caught_approximate", "caught_float_mode", "caught_coverage", "equivalent", "miss"]
tot = {op: dict.fromkeys(cols, 0) for op in ops}
errors, misses, kernels, mutant_seconds = [], [], 0, 0.0
false_rejections = []  # proven equivalent, yet a gate stage without an output witness rejects them
kinds, proofs = collections.Counter(), []
for name in sorted(os.listdir(out)):
    path = os.path.join(out, name)
    if name.endswith(".err"):
        errors.append(name[:-4] + ": " + open(path).read().strip())
        continue
    if not name.endswith(".json"):
        continue
    try:
        j = json.load(open(path))
    except Exception as e:
        if not os.path.exists(path + ".err"):
            errors.append(name + ": unreadable result (" + str(e) + ")")
        continue
    kernels += 1
    for m in j["mutants"]:
        c = tot[m["op"]]
        c["mutants"] += 1
        mutant_seconds += m.get("seconds", 0)
        o = m["outcome"]
        if o == "survived":
            if m.get("equivalence") == "miss":
                c["miss"] += 1
                misses.append((m["op"], name[:-5], m["site"], m["description"]))
            else:
                c["equivalent"] += 1
                kind = m.get("equivalence", "?")
                if kind == "proven":  # by the prover's kind of proof, "same value", "never observed", ...
                    kind = "proven (" + m.get("reason", "").split(":")[0] + ")"
                kinds[kind] += 1
                if m.get("equivalence") == "proven":
                    proofs.append((m["op"], name[:-5], m["description"], m.get("reason", "")))
                if m.get("false_rejection"):
                    false_rejections.append((m.get("rejected_by", "state"), m["op"], name[:-5], m["description"]))
        elif o in c:
            c[o] += 1
        else:
            errors.append("%s: %s %s: unknown outcome %r" % (name[:-5], m["op"], m["site"], o))

def caught(c):
    return sum(c[k] for k in cols if k.startswith("caught_"))

def rate(c):
    d = caught(c) + c["miss"]
    return "n/a" if d == 0 else "%.1f%%" % (100.0 * caught(c) / d)

print("# Mutation report: Triton corpus, seed %s, up to %s mutants per operator and kernel\n" % (seed, per_op))
print("%d kernel objects, %d s wall time (%.0f s in mutants)\n" % (kernels, seconds, mutant_seconds))
for op in ops:
    c = tot[op]
    print("### %s\n" % op)
    print("| mutants | invalid | caught static | caught by runs | refuted | caught by state | caught abi | caught memory model | approximate | float mode | caught coverage | proven equivalent | misses | catch rate |")
    print("|" + "---:|" * (len(cols) + 1))
    print("| " + " | ".join(str(c[k]) for k in cols) + " | %s |\n" % rate(c))
T = {k: sum(tot[op][k] for op in ops) for k in cols}
print("### Totals\n")
print("| operator | mutants | invalid | caught static | caught by runs | refuted | caught by state | caught abi | caught memory model | approximate | float mode | caught coverage | proven equivalent | misses | catch rate |")
print("|---|" + "---:|" * (len(cols) + 1))
for op in ops + ["**total**"]:
    c = T if op == "**total**" else tot[op]
    print("| %s | " % op + " | ".join(str(c[k]) for k in cols) + " | %s |" % rate(c))
print()
if kinds:
    print("Proven equivalent, by proof: " + ", ".join("%s %d" % (k, n) for k, n in sorted(kinds.items())) + "\n")
print("\"Caught by runs\" and \"refuted\" have a witness: outputs that differ, or a counterexample checked at the edited "
      "window. Every other stage rejects by a rule without one (\"caught by state\": the outputs matched, but registers "
      "both kernels may still read held other values after the edit). When the prover shows such a mutant equivalent, "
      "it is counted as proven equivalent, not caught: %d such false rejection(s) (%s)%s\n" % (len(false_rejections),
      ", ".join("%s %d" % kv for kv in sorted(collections.Counter(f[0] for f in false_rejections).items())) or "none",
      "".join("\n- %s: %s  %s  %s" % f for f in false_rejections)))
dd = caught(T) + T["miss"]
if dd:
    print("Without the state check (its catches counted as misses): %.1f%% caught; with it: %.1f%%.\n" %
          (100.0 * (caught(T) - T["caught_state"]) / dd, 100.0 * caught(T) / dd))
if misses:
    print("### Misses (%d)\n" % len(misses))
    for op, k, site, d in misses:
        print("- %s  %s  %s" % (op, k, d))
    print()
if proofs:
    print("### Proven equivalent by analysis/equivalence.hpp (%d)\n" % len(proofs))
    print("Each proof holds under the facts every launch of the launch file fixes (grid, block, scalar arguments), "
          "as the gate's verdicts do; \"unreachable under the launch\" means no launch of the file runs the "
          "mutated code.\n")
    for op, k, d, why in proofs:
        print("- %s  %s  %s: %s" % (op, k, d, why))
    print()
if errors:
    print("### Errors (%d)\n" % len(errors))
    for e in errors:
        print("- " + e)
    print()
bad_class = [m for m in misses if m[0].startswith("waitcnt_") or m[0] == "store_oob"]
d = caught(T) + T["miss"]
r = 1.0 if d == 0 else caught(T) / d
ok = r >= 0.99 and not bad_class and not errors
print("Bar (>= 99%% caught, no waitcnt_* or store_oob miss): %s (catch rate %.2f%%, %d miss(es) in those classes%s)" %
      ("MET" if ok else "NOT MET", 100 * r, len(bad_class), ", %d error(s)" % len(errors) if errors else ""))
sys.exit(0 if ok else (2 if errors and kernels == 0 else 1))
EOF
