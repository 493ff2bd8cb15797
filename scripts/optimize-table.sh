#!/usr/bin/env bash
# `asmevo optimize` with the built-in proposer on every Triton corpus kernel for gfx942 that has a launch file
# (tests/data/launch/triton/<stem>.json), on the emulator, with a fixed budget and seed; then every K1 it wrote is
# verified again with `asmevo verify` on fresh seeds and more trials, over every shape of the launch (each launch file
# holds a ragged shape). Prints one markdown table (kernel, modeled cycles K0 -> K1, speedup, attempts, accepted
# edits, re-verification) and the geomean speedup over the kernels (issue 8, "What it must show").
#
#   scripts/optimize-table.sh [BUILD_DIR]        (default: build/ beside scripts/)
#   env: ASMEVO_CORPUS_DIR (default ../shared/corpus), OPT_TABLE_BUDGET (attempts per kernel, 40),
#        OPT_TABLE_SEED (1), OPT_TABLE_JOBS (kernels in parallel, 2), OPT_TABLE_TARGET (gfx942),
#        OPT_TABLE_TIME (wall-time budget per kernel in seconds, 300), OPT_TABLE_OUT (folder for K1 objects, logs
#        and reports; a temp dir), OPT_TABLE_KERNELS (stems, space-separated)
#
# Exit: 0 when every written K1 re-verifies; 1 when one does not (or optimize fails); 2 when the tool, the corpus or
# the launch files are missing.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
tool=$build/tools/asmevo/asmevo
corpus=${ASMEVO_CORPUS_DIR:-$here/../shared/corpus}
launch_dir=$here/tests/data/launch/triton
[ -x "$tool" ] || { echo "optimize-table: $tool not found: build the asmevo target first" >&2; exit 2; }
[ -d "$corpus/triton" ] || { echo "optimize-table: no Triton corpus at $corpus/triton (set ASMEVO_CORPUS_DIR)" >&2; exit 2; }
ls "$launch_dir"/*.json > /dev/null 2>&1 || { echo "optimize-table: no launch files in $launch_dir" >&2; exit 2; }
out=${OPT_TABLE_OUT:-$(mktemp -d)}
mkdir -p "$out"
exec python3 - "$tool" "$corpus/triton" "$launch_dir" "$out" <<'EOF'
import concurrent.futures, json, math, os, subprocess, sys, time
tool, corpus, launch_dir, out = sys.argv[1:5]
budget = os.environ.get("OPT_TABLE_BUDGET", "40")
seed = os.environ.get("OPT_TABLE_SEED", "1")
wall = os.environ.get("OPT_TABLE_TIME", "300")
jobs = int(os.environ.get("OPT_TABLE_JOBS", "2"))
target = os.environ.get("OPT_TABLE_TARGET", "gfx942")
only = os.environ.get("OPT_TABLE_KERNELS", "").split()
start = time.time()

work = []
for f in sorted(os.listdir(launch_dir)):
    if not f.endswith(".json"):
        continue
    stem = f[:-5]
    co = os.path.join(corpus, f"{stem}.{target}.hsaco")
    if os.path.exists(co) and (not only or stem in only):
        work.append((stem, co, os.path.join(launch_dir, f)))

def one(job):
    stem, co, launch = job
    k1 = os.path.join(out, f"{stem}.{target}.k1.co")
    log = os.path.join(out, f"{stem}.{target}.log")
    if os.path.exists(os.path.join(log, "log.jsonl")):
        os.remove(os.path.join(log, "log.jsonl"))
    t = time.time()
    r = subprocess.run([tool, "optimize", co, "--launch", launch, "-o", k1, "--budget", budget, "--seed", seed, "--time", wall,
                        "--log", log, "--report", os.path.join(out, f"{stem}.{target}.html"), "--json"],
                       capture_output=True, text=True)
    row = {"kernel": stem, "seconds": time.time() - t}
    try:
        j = json.loads(r.stdout)
    except Exception:
        row["error"] = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1][:160]
        return row
    row.update(before=j["modeled_cycles_before"], after=j["modeled_cycles_after"], speedup=j["speedup"],
               attempts=j["attempts"], stopped=j["stopped_by"], accepted=j["accepted"], steps=[s["summary"] for s in j["accepted_steps"]],
               verified=j["verified"], improved=j["improved"])
    if j["improved"] and j["verified"]:
        # Fresh schedule seeds and input draws (more trials), every shape of the launch (one is ragged).
        v = subprocess.run([tool, "verify", co, k1, "--launch", launch, "--seed", str(1000 + int(seed)), "--trials", "3",
                            "--schedules", "3", "--json"], capture_output=True, text=True)
        try:
            vj = json.loads(v.stdout)
            row["reverify"] = vj.get("verdict", "?") + ("" if v.returncode == 0 else ": " + vj.get("reason", "")[:120])
        except Exception:
            row["reverify"] = f"verify exit {v.returncode}: " + v.stderr.strip()[:120]
    return row

with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
    rows = list(ex.map(one, work))

print(f"| kernel ({target}) | modeled cycles K0 -> K1 | speedup | attempts (stopped by) | accepted | re-verify (fresh seeds, 3 trials, all shapes) | accepted edits |")
print("|---|---|---:|---:|---:|---|---|")
bad = 0
speedups = []
for r in rows:
    if "error" in r:
        bad += 1
        print(f"| {r['kernel']} | optimize failed: {r['error']} | | | | | |")
        continue
    reverify = r.get("reverify", "n/a (nothing written)")
    if r["improved"] and not reverify.startswith("equivalent"):
        bad += 1
    sp = r["speedup"] if (r["improved"] and reverify.startswith("equivalent")) else 1.0
    speedups.append(sp)
    steps = "; ".join(r["steps"][:4]) + (f" (+{len(r['steps']) - 4} more)" if len(r["steps"]) > 4 else "")
    print(f"| {r['kernel']} | {r['before']:.0f} -> {r['after']:.0f} | {sp:.3f}x | {r['attempts']} ({r['stopped']}) | {r['accepted']} | "
          f"{reverify} | {steps} |")
geo = math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else float("nan")
print()
print(f"kernels: {len(rows)}; improved and re-verified: {sum(1 for r in rows if r.get('improved') and str(r.get('reverify','')).startswith('equivalent'))}; "
      f"geomean speedup (modeled, K0 counted 1.0 where nothing was found): {geo:.4f}x; budget {budget} attempts, seed {seed}; "
      f"at most {wall} s each; {time.time() - start:.0f} s in all")
print(f"K1 objects, logs and HTML reports: {out}")
sys.exit(1 if bad else 0)
EOF
