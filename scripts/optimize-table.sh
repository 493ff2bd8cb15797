#!/usr/bin/env bash
# `asmevo optimize` with the built-in proposer over the corpus sets, on the emulator, with a fixed budget and seed;
# every K1 it wrote is verified again with `asmevo verify` on fresh seeds and more trials over every shape of the
# launch, and for inductor-dev its outputs are compared with the recorded references (`NAME.argN.ref.bin`, the
# corpus README's tolerance: relative 1e-4 plus absolute 1e-5 times the largest finite reference magnitude;
# integers exactly).
# Prints one markdown table per set -- kernel, modeled cycles K0 and K1, speedup, the cost model's speed-of-light
# bound, headroom (modeled / bound) before and after, the transformations accepted, re-verification and the
# reference check -- then per set the geomean speedup, and how many kernels whose K0 headroom exceeds 1.5 improved
# (issue 28, "What it must show"). All cycle figures are modeled by the cost model, not measured.
#
#   scripts/optimize-table.sh [BUILD_DIR]        (default: build/ beside scripts/)
#   env: ASMEVO_CORPUS_DIR (default ../shared/corpus)
#        OPT_TABLE_SETS     (default "inductor-dev:gfx942 inductor-dev:gfx90a triton:gfx942"; a set is
#                            inductor-dev (launch NAME.json beside the kernel) or triton (launch files in
#                            tests/data/launch/triton/))
#        OPT_TABLE_BUDGET (attempts per kernel, 40), OPT_TABLE_SEED (1), OPT_TABLE_JOBS (kernels in parallel, 2;
#        each optimize gates one candidate at a time), OPT_TABLE_TIME (wall-time budget per kernel in seconds, 300),
#        OPT_TABLE_OUT (folder for K1 objects, logs and reports; a temp dir), OPT_TABLE_KERNELS (stems to keep)
#
# Exit: 0 when every written K1 re-verifies and matches its references; 1 when one does not (or optimize fails); 2
# when the tool or the corpus is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
tool=$build/tools/asmevo/asmevo
corpus=${ASMEVO_CORPUS_DIR:-$here/../shared/corpus}
[ -x "$tool" ] || { echo "optimize-table: $tool not found: build the asmevo target first" >&2; exit 2; }
[ -d "$corpus" ] || { echo "optimize-table: no corpus at $corpus (set ASMEVO_CORPUS_DIR)" >&2; exit 2; }
out=${OPT_TABLE_OUT:-$(mktemp -d)}
mkdir -p "$out"
exec python3 - "$tool" "$corpus" "$here/tests/data/launch/triton" "$out" <<'EOF'
import array, concurrent.futures, json, math, os, re, subprocess, sys, tempfile, time
tool, corpus, triton_launches, out = sys.argv[1:5]
budget = os.environ.get("OPT_TABLE_BUDGET", "40")
seed = os.environ.get("OPT_TABLE_SEED", "1")
wall = os.environ.get("OPT_TABLE_TIME", "300")
jobs = int(os.environ.get("OPT_TABLE_JOBS", "2"))
sets = os.environ.get("OPT_TABLE_SETS", "inductor-dev:gfx942 inductor-dev:gfx90a triton:gfx942").split()
only = os.environ.get("OPT_TABLE_KERNELS", "").split()
start = time.time()

def kernels_of(name, target):
    work = []
    if name == "inductor-dev":
        d = os.path.join(corpus, "inductor-dev")
        if not os.path.isdir(d):
            print(f"optimize-table: no {d}", file=sys.stderr)
            sys.exit(2)
        for f in sorted(os.listdir(d)):
            m = re.fullmatch(r"(.+)\." + target + r"\.hsaco", f)
            if (m and os.path.exists(os.path.join(d, m.group(1) + ".json")) and
                    os.path.exists(os.path.join(d, m.group(1) + ".meta.json")) and (not only or m.group(1) in only)):
                work.append((m.group(1), os.path.join(d, f), os.path.join(d, m.group(1) + ".json"),
                             os.path.join(d, m.group(1) + ".meta.json")))
    elif name == "triton":
        for f in sorted(os.listdir(triton_launches)):
            stem = f[:-5]
            co = os.path.join(corpus, "triton", f"{stem}.{target}.hsaco")
            if f.endswith(".json") and os.path.exists(co) and (not only or stem in only):
                work.append((stem, co, os.path.join(triton_launches, f), None))
    else:
        print(f"optimize-table: unknown set '{name}' (inductor-dev or triton)", file=sys.stderr)
        sys.exit(2)
    return work

def reference_check(k1, launch, meta):
    """K1's outputs against the recorded references, within the corpus README's tolerance."""
    refs = json.load(open(meta)).get("reference", {})
    spec = json.load(open(launch))
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([tool, "emulate", k1, "--launch", launch, "--dump", d], capture_output=True, text=True)
        if r.returncode != 0:
            return "emulate failed: " + (r.stderr.strip().splitlines() or ["?"])[-1][:100]
        for arg, ref_file in refs.items():
            dtype = spec["args"][int(arg)]["buffer"]["dtype"]
            code = {"f32": "f", "f64": "d", "i32": "i", "u32": "I", "i64": "q", "u64": "Q", "i8": "b", "u8": "B",
                    "i16": "h", "u16": "H"}.get(dtype)
            if code is None:
                return f"arg {arg}: dtype {dtype} not compared"
            got, ref = array.array(code), array.array(code)
            got.frombytes(open(os.path.join(d, f"arg{arg}.bin"), "rb").read())
            ref.frombytes(open(os.path.join(os.path.dirname(meta), ref_file), "rb").read())
            if len(got) != len(ref):
                return f"arg {arg}: {len(got)} elements, reference {len(ref)}"
            if code in "fd":
                # |got - ref| <= 1e-4 |ref| + 1e-5 max|ref| (the larger magnitude over finite references); equal
                # values (infinities included) and NaN against NaN match.
                scale = max((abs(x) for x in ref if x == x and abs(x) != float("inf")), default=0.0)
                for k, (a, b) in enumerate(zip(got, ref)):
                    if a == b or (a != a and b != b):
                        continue
                    if not abs(a - b) <= 1e-4 * abs(b) + 1e-5 * scale:
                        return f"arg {arg}[{k}]: {a!r} vs reference {b!r}"
            elif got != ref:
                k = next(i for i, (a, b) in enumerate(zip(got, ref)) if a != b)
                return f"arg {arg}[{k}]: {got[k]} vs reference {ref[k]}"
        return "match" if refs else "no reference"

def one(job, target):
    try:
        return one_unguarded(job, target)
    except Exception as e:  # a missing file or an unexpected output: one error row, not a lost table
        return {"kernel": job[0], "error": f"{type(e).__name__}: {e}"[:160]}

def one_unguarded(job, target):
    stem, co, launch, meta = job
    k1 = os.path.join(out, f"{stem}.{target}.k1.co")
    log = os.path.join(out, f"{stem}.{target}.log")
    if os.path.exists(os.path.join(log, "log.jsonl")):
        os.remove(os.path.join(log, "log.jsonl"))
    t = time.time()
    r = subprocess.run([tool, "optimize", co, "--launch", launch, "-o", k1, "--budget", budget, "--seed", seed,
                        "--time", wall, "--jobs", "1", "--log", log,
                        "--report", os.path.join(out, f"{stem}.{target}.html"), "--json"], capture_output=True, text=True)
    row = {"kernel": stem, "seconds": time.time() - t}
    try:
        j = json.loads(r.stdout)
    except Exception:
        row["error"] = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1][:160]
        return row
    b = j.get("bound", {})
    passes = []
    for s in j["accepted_steps"]:
        for name in ("compose", "software-pipeline", "specialize", "unroll", "batch-loads", "schedule", "hoist", "sink", "move", "load-widen", "peephole",
                     "dce", "vgpr-compact", "nop-min", "waitcnt-min"):
            if re.search(r"(^|[^a-z-])" + name + r"($|[^a-z-])", s["summary"]) and name not in passes:
                passes.append(name)
    row.update(before=j["modeled_cycles_before"], after=j["modeled_cycles_after"], speedup=j["speedup"],
               attempts=j["attempts"], stopped=j["stopped_by"], accepted=j["accepted"], passes=passes,
               verified=j["verified"], improved=j["improved"],
               bound=b.get("before", {}).get("cycles"), kind=b.get("before", {}).get("kind", "?"),
               head0=b.get("before", {}).get("headroom"), head1=b.get("after", {}).get("headroom"))
    if j["improved"] and j["verified"]:
        v = subprocess.run([tool, "verify", co, k1, "--launch", launch, "--seed", str(1000 + int(seed)), "--trials", "3",
                            "--schedules", "3", "--json"], capture_output=True, text=True)
        try:
            vj = json.loads(v.stdout)
            row["reverify"] = vj.get("verdict", "?") + ("" if v.returncode == 0 else ": " + vj.get("reason", "")[:120])
        except Exception:
            row["reverify"] = f"verify exit {v.returncode}: " + v.stderr.strip()[:120]
        if meta:
            row["ref"] = reference_check(k1, launch, meta)
    return row

bad = False
for spec in sets:
    if spec.count(":") != 1:
        print(f"optimize-table: a set is NAME:TARGET (inductor-dev:gfx942), got '{spec}'", file=sys.stderr)
        sys.exit(2)
    name, target = spec.split(":")
    work = kernels_of(name, target)
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        rows = list(ex.map(lambda w: one(w, target), work))
    print(f"\n### {name} ({target}), budget {budget}, seed {seed} (modeled cycles: the cost model, not a measurement)\n")
    print("| kernel | K0 cycles | K1 cycles | speedup | bound (kind) | headroom K0 | headroom K1 | accepted | re-verify | references |")
    print("|---|---:|---:|---:|---|---:|---:|---|---|---|")
    logs, ceiling, hot, hot_improved = [], [], 0, 0
    for r in rows:
        if "error" in r:
            print(f"| {r['kernel']} | | | | | | | | optimize failed: {r['error']} | |")
            bad = True
            continue
        f = lambda x, n=2: "" if x is None else f"{x:.{n}f}"
        ok = r["improved"] and r["verified"]
        print(f"| {r['kernel']} | {r['before']:.0f} | {r['after']:.0f} | {r['speedup']:.3f} | {r['bound'] or ''} ({r['kind']}) | "
              f"{f(r['head0'])} | {f(r['head1'])} | {', '.join(r['passes']) or '-'} | {r.get('reverify', '-')} | {r.get('ref', '-')} |")
        logs.append(math.log(r["speedup"]))
        if r["head0"]:
            ceiling.append(math.log(r["head0"]))
        if r["head0"] and r["head0"] > 1.5:
            hot += 1
            hot_improved += ok
        if ok and not r.get("reverify", "").startswith("equivalent"):
            bad = True
        if ok and r.get("ref") not in (None, "match", "no reference"):
            bad = True
    if logs:
        print(f"\n{name} {target}: geomean modeled speedup {math.exp(sum(logs) / len(logs)):.3f}x over {len(logs)} kernels; "
              f"{sum(1 for r in rows if r.get('improved') and r.get('verified'))} improved; "
              f"{hot_improved} of {hot} with K0 headroom above 1.5 improved")
    if ceiling:
        # K0's bound is the speed of light of K0's own work (its compulsory bytes, its busiest unit, its longest
        # dependent chain): a K1 that reached every kernel's bound exactly would give this geomean, and no more
        # unless it shortened the chain or the work itself.
        print(f"{name} {target}: ceiling at K0's bounds: geomean K0 headroom {math.exp(sum(ceiling) / len(ceiling)):.3f}x "
              f"over {len(ceiling)} kernels")
print(f"\n{time.time() - start:.0f} s; outputs in {out}")
sys.exit(1 if bad else 0)
EOF
