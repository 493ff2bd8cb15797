#!/usr/bin/env bash
# Every built-in pass (and the pipelines listed below) applied to every Triton corpus kernel that has a launch file
# (tests/data/launch/triton/<stem>.json), on gfx90a, gfx942 and gfx950, exactly as a user would: `asmevo apply
# --launch` (changes confined to code the launch exercises), then `asmevo verify K0 K1 --launch` (the full gate:
# ABI, static checks, runs of every shape and trial), then `asmevo emulate --timing` of K0 and K1 on the launch's
# first shape. Prints one markdown table (kernel x pass -> verdict, instruction-count change, modeled-cycle change)
# and, per pass, on how many kernels it lowered modeled cycles while verifying equivalent (issue 7, "What it
# must show").
#
#   scripts/pass-table.sh [BUILD_DIR]            (default: build/ beside scripts/)
#   env: ASMEVO_CORPUS_DIR (default ../shared/corpus), PASS_TABLE_JOBS (parallel jobs, 2),
#        PASS_TABLE_PASSES (comma-separated pass lists separated by spaces; default: every pass, then pipelines),
#        PASS_TABLE_OUT (folder for K1 objects and JSON, a temp dir), PASS_TABLE_UNRESTRICTED=1 (apply without
#        --launch: passes may change code no launch shape runs, which the verifier then refuses as unverified)
#
# Exit: 0 when every applied pass verifies equivalent; 1 when any does not (or fails to apply); 2 when the tool,
# the corpus or the launch files are missing.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
tool=$build/tools/asmevo/asmevo
corpus=${ASMEVO_CORPUS_DIR:-$here/../shared/corpus}
launch_dir=$here/tests/data/launch/triton
[ -x "$tool" ] || { echo "pass-table: $tool not found: build the asmevo target first" >&2; exit 2; }
[ -d "$corpus/triton" ] || { echo "pass-table: no Triton corpus at $corpus/triton (set ASMEVO_CORPUS_DIR)" >&2; exit 2; }
ls "$launch_dir"/*.json > /dev/null 2>&1 || { echo "pass-table: no launch files in $launch_dir" >&2; exit 2; }
out=${PASS_TABLE_OUT:-$(mktemp -d)}
mkdir -p "$out"
if [ -z "${PASS_TABLE_PASSES:-}" ]; then
  PASS_TABLE_PASSES="$("$tool" passes --json | python3 -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)))')"
  PASS_TABLE_PASSES="$PASS_TABLE_PASSES schedule,waitcnt-min,nop-min peephole,dce,schedule,waitcnt-min,nop-min"
fi
exec python3 - "$tool" "$corpus/triton" "$launch_dir" "$out" "${PASS_TABLE_JOBS:-2}" "$PASS_TABLE_PASSES" <<'EOF'
import concurrent.futures, json, os, subprocess, sys, time
tool, corpus, launch_dir, out, jobs, pass_lists = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6].split()
known = {p["name"] for p in json.loads(subprocess.run([tool, "passes", "--json"], capture_output=True, text=True).stdout)}
pass_lists = [pl for pl in pass_lists if all(p in known for p in pl.split(","))]
targets = ["gfx90a", "gfx942", "gfx950"]
start = time.time()

def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr

def cycles(co, spec_file):
    rc, so, se = run([tool, "emulate", co, "--launch", spec_file, "--timing", "--json"])
    if rc != 0:
        return None
    try:
        return json.loads(so)["modeled_cycles"]
    except Exception:
        return None

def first_shape(stem):
    spec = json.load(open(os.path.join(launch_dir, stem + ".json")))
    first = spec[0] if isinstance(spec, list) else spec
    path = os.path.join(out, stem + ".first.json")
    with open(path, "w") as f:
        json.dump(first, f)
    return path

jobs_list = []
for f in sorted(os.listdir(launch_dir)):
    if not f.endswith(".json"):
        continue
    stem = f[:-5]
    for t in targets:
        co = os.path.join(corpus, f"{stem}.{t}.hsaco")
        if os.path.exists(co):
            jobs_list.append((stem, t, co))

base = {}
def baseline(job):
    stem, t, co = job
    return job, cycles(co, first_shape(stem))

with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
    for job, c in ex.map(baseline, jobs_list):
        base[job] = c

def restrict(stem):
    # `apply --launch`: passes change only code K0's runs of the launch exercise (PASS_TABLE_UNRESTRICTED=1: all).
    return [] if os.environ.get("PASS_TABLE_UNRESTRICTED") == "1" else ["--launch", os.path.join(launch_dir, stem + ".json")]

def one(item):
    (stem, t, co), pl = item
    k1 = os.path.join(out, f"{stem}.{t}.{pl.replace(',', '+')}.co")
    rc, so, se = run([tool, "apply", co, "--pass", pl, "-o", k1, "--json"] + restrict(stem))
    row = {"kernel": stem, "target": t, "pass": pl}
    if rc != 0:
        row.update(verdict="apply failed", detail=se.strip().splitlines()[0] if se.strip() else f"exit {rc}")
        return row
    a = json.loads(so)
    row["insts"] = a["instructions_after"] - a["instructions_before"]
    row["edits"] = a["edits"]
    rc, so, se = run([tool, "verify", co, k1, "--launch", os.path.join(launch_dir, stem + ".json"), "--json"])
    try:
        v = json.loads(so)
        row["verdict"] = v.get("verdict", "?")
        if rc != 0:
            row["detail"] = v.get("reason", "")[:160]
            # Refused because no launch shape runs the changed code: unverifiable, not shown wrong.
            if v.get("rejected_by") == "coverage":
                row["verdict"] = "unverified (coverage)"
    except Exception:
        row["verdict"] = f"verify exit {rc}"
        row["detail"] = se.strip()[:160]
    c0, c1 = base[(stem, t, co)], cycles(k1, os.path.join(out, stem + ".first.json"))
    row["cycles0"], row["cycles1"] = c0, c1
    return row

work = [(j, pl) for j in jobs_list for pl in pass_lists]
with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
    rows = list(ex.map(one, work))

print("| kernel | target | pass | verdict | edits | insts | modeled cycles K0 -> K1 | change |")
print("|---|---|---|---|---:|---:|---|---:|")
bad = 0
lowered = {pl: 0 for pl in pass_lists}
for r in rows:
    ok = r.get("verdict") == "equivalent"
    bad += not ok
    c0, c1 = r.get("cycles0"), r.get("cycles1")
    change = f"{(c1 - c0) / c0 * 100:+.2f}%" if c0 and c1 is not None else "n/a"
    if ok and c0 and c1 is not None and c1 < c0:
        lowered[r["pass"]] += 1
    verdict = r.get("verdict", "?") + (f" ({r['detail']})" if r.get("detail") and not ok else "")
    print(f"| {r['kernel']} | {r['target']} | {r['pass']} | {verdict} | {r.get('edits', '')} | "
          f"{r.get('insts', ''):+} | {c0} -> {c1} | {change} |" if isinstance(r.get("insts"), int) else
          f"| {r['kernel']} | {r['target']} | {r['pass']} | {verdict} | | | {c0} -> | |")
n = len(jobs_list)
print()
unverified = sum(r.get("verdict") == "unverified (coverage)" for r in rows)
print(f"kernels (kernel x target): {n}; pass applications: {len(rows)}; not verified equivalent: {bad} "
      f"(of which refused only because no launch shape runs the changed code: {unverified})")
print()
print("| pass | kernels with fewer modeled cycles (verified equivalent) |")
print("|---|---:|")
for pl in pass_lists:
    print(f"| {pl} | {lowered[pl]} / {n} |")
print()
print(f"time: {time.time() - start:.0f} s")
sys.exit(1 if bad else 0)
EOF
