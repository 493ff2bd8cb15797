"""End to end on a machine with an NVIDIA GPU, PyTorch and Triton: capture, emulate, optimize, override.

    python python/tests/e2e_amd_roundtrip.py --asmevo PATH/asmevo --work DIR [--arch gfx942] [--budget N]

1. Runs programs/three_kernels.py under `python -m asmevo_triton capture --amd-target ARCH` on the NVIDIA GPU: each
   kernel's launches are recorded with their inputs and what the NVIDIA launch wrote, and the same source is
   compiled for ARCH.
2. Emulates every captured launch of every AMD code object with `asmevo emulate --dump` and compares each output
   with what the NVIDIA launch wrote (Triton's semantics do not depend on the backend): floats within relative
   1e-4 plus 1e-5 of the largest reference magnitude, integers exactly.
3. Runs `asmevo optimize-dir` over the capture folder.
4. Compiles the program for ARCH again with TRITON_KERNEL_OVERRIDE=1 and TRITON_OVERRIDE_DIR=OUT/override (a fresh
   Triton cache, so that nothing comes from the first compile) and checks that every kernel optimize-dir improved
   now compiles to K1's bytes, and every other kernel to K0's.
5. When no kernel improved, step 4 shows only that nothing else changes: then a witness K1 is made for the first
   kernel (K0 with one `s_nop 0` before its `s_endpgm`, through `asmevo disasm` / `assemble --original`, and
   `asmevo verify` must call it equivalent), put in an override tree laid out as optimize-dir lays one out (its
   `.amdgcn` from `asmevo disasm`), and the program compiled once more must load exactly its bytes.

Writes DIR/e2e.json (every number above) and exits 0 only when every check held. Needs numpy (PyTorch brings it).

A GPU machine without LLVM 22 or HIP's packages still runs asmevo: the executable links LLVM MC statically, so the
stripped binary and the shared libraries `ldd` lists for it (all but the C runtime: libc, libm, libdl, libpthread,
librt, the loader, libstdc++, libgcc_s) in one folder, run through a wrapper that sets LD_LIBRARY_PATH to it, are
enough to emulate and verify (about 15 MB as .tar.xz). Rebuilding a code object (optimize, assemble) also needs an
ld.lld: carry Debian's /usr/lib/llvm-22/bin/ld.lld and what `ldd` lists for it (libLLVM.so.22.1 above all) in the
same folder and have the wrapper set ASMEVO_LLD to it (61 MB as .tar.xz in all; 47 MB with libz3 and ICU's data
library, which ld.lld loads but never calls, replaced by empty libraries of the same soname). Without a linker,
optimize and optimize-dir refuse to start and say so. Pass the wrapper as --asmevo.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PACKAGE_ROOT = HERE.parent  # python/, where asmevo_triton lives
PROGRAM = HERE / "programs" / "three_kernels.py"

NUMPY = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "i64": np.int64, "u64": np.uint64,
         "i32": np.int32, "u32": np.uint32, "i16": np.int16, "u16": np.uint16, "i8": np.int8, "u8": np.uint8}


def run(cmd: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, env=env, capture_output=True, text=True)


def capture(out: Path, arch: str, extra_env: dict[str, str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), **extra_env)
    return run([sys.executable, "-m", "asmevo_triton", "capture", "--out", str(out), "--amd-target", arch, "--",
                sys.executable, str(PROGRAM)], env)


def kernels_of(cap: Path) -> list[tuple[str, str]]:
    """(hash, kernel) of every captured kernel with an AMD code object."""
    return sorted((p.parent.name, p.name[: -len(".launch.json")]) for p in cap.glob("*/*.launch.json")
                  if (p.parent / (p.name[: -len(".launch.json")] + ".hsaco")).exists())


def compare(dtype: str, got: bytes, want: bytes) -> tuple[bool, float]:
    """Whether `got` matches `want` (floats within tolerance, the rest exactly) and the largest difference."""
    if dtype not in NUMPY:  # bf16 and fp8: compare bits
        return got == want, 0.0 if got == want else float("inf")
    g = np.frombuffer(got, NUMPY[dtype]).astype(np.float64)
    w = np.frombuffer(want, NUMPY[dtype]).astype(np.float64)
    if g.shape != w.shape:
        return False, float("inf")
    diff = np.abs(g - w)
    worst = float(np.nanmax(diff)) if diff.size else 0.0
    if dtype.startswith("f"):
        scale = float(np.nanmax(np.abs(w))) if w.size else 0.0
        ok = bool(np.all((diff <= 1e-4 * np.abs(w) + 1e-5 * scale) | (np.isnan(g) & np.isnan(w))))
    else:
        ok = bool(np.array_equal(g, w))
    return ok, worst


def emulate_all(asmevo: str, cap: Path, work: Path) -> list[dict]:
    rows = []
    for h, k in kernels_of(cap):
        folder = cap / h
        shapes = json.loads((folder / f"{k}.launch.json").read_text())
        meta = json.loads((folder / f"{k}.capture.json").read_text())
        for i, spec in enumerate(shapes):
            dump = work / "emulate" / h / k / f"l{i}"
            dump.mkdir(parents=True, exist_ok=True)
            r = run([asmevo, "emulate", str(folder / f"{k}.hsaco"), "--launch", str(folder / f"{k}.launch.json"),
                     "--shape", str(i), "--dump", str(dump)])
            row = {"kernel": k, "hash": h, "launch": i, "grid": spec["grid"], "emulate_exit": r.returncode,
                   "outputs": []}
            if r.returncode != 0:
                row["error"] = (r.stderr or r.stdout).strip().splitlines()[-1:]
            refs = meta["launches"][i].get("references", {})
            for arg, ref in sorted(refs.items(), key=lambda kv: int(kv[0])):
                dtype = spec["args"][int(arg)]["buffer"]["dtype"]
                got_path = dump / f"arg{arg}.bin"
                got = got_path.read_bytes() if got_path.exists() else b""
                ok, worst = compare(dtype, got, (folder / ref).read_bytes())
                row["outputs"].append({"arg": int(arg), "dtype": dtype, "matches": ok, "max_abs_diff": worst})
            row["ok"] = r.returncode == 0 and bool(row["outputs"]) and all(o["matches"] for o in row["outputs"])
            rows.append(row)
    return rows


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def witness_override(asmevo: str, cap: Path, work: Path, arch: str) -> dict:
    """Step 5: an equivalent K1 that differs from K0 by one s_nop, in an override tree; is it what Triton loads?"""
    h, k = kernels_of(cap)[0]
    folder, tree = cap / h, work / "witness" / "override" / h
    tree.mkdir(parents=True)
    k0 = folder / f"{k}.hsaco"
    text = run([asmevo, "disasm", str(k0)]).stdout
    lines = text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if line.split(";")[0].strip() == "s_endpgm"), None)
    row: dict = {"kernel": k, "hash": h}
    if at is None:
        return {**row, "ok": False, "why": "no s_endpgm in the disassembly"}
    src = work / "witness" / f"{k}.s"
    src.write_text("".join(lines[:at]) + "\ts_nop 0\n" + "".join(lines[at:]))
    k1 = tree / f"{k}.hsaco"
    r = run([asmevo, "assemble", str(src), "-o", str(k1), "--original", str(k0)])
    if r.returncode != 0:
        return {**row, "ok": False, "why": "assemble: " + " ".join(x.strip() for x in r.stderr.strip().splitlines()[-4:])}
    v = run([asmevo, "verify", str(k0), str(k1), "--launch", str(folder / f"{k}.launch.json")])
    row["verify"] = next((x for x in v.stdout.splitlines() if x.startswith("equivalent")),
                         (v.stdout.strip().splitlines() or [""])[-1])
    (tree / f"{k}.amdgcn").write_text(subprocess.run([asmevo, "disasm", f"{k}.hsaco"], cwd=tree, capture_output=True,
                                                     text=True).stdout)
    for ext in ("ttir", "ttgir", "llir"):
        if (folder / f"{k}.{ext}").exists():
            (tree / f"{k}.{ext}").write_bytes((folder / f"{k}.{ext}").read_bytes())
    again = work / "witness" / "recompiled"
    with tempfile.TemporaryDirectory() as cache:
        r = capture(again, arch, {"TRITON_CACHE_DIR": cache, "TRITON_KERNEL_OVERRIDE": "1",
                                  "TRITON_OVERRIDE_DIR": str(tree.parent)})
    now = again / h / f"{k}.hsaco"
    row.update({"k0_sha256": sha256(k0), "k1_sha256": sha256(k1), "compile_exit": r.returncode,
                "loaded_sha256": sha256(now) if now.exists() else None,
                "stderr_tail": r.stderr.strip().splitlines()[-3:]})
    row["ok"] = v.returncode == 0 and row["loaded_sha256"] == row["k1_sha256"] != row["k0_sha256"]
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--asmevo", required=True, help="the asmevo executable")
    ap.add_argument("--work", required=True, type=Path, help="a new folder for everything this writes")
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--budget", default="60", help="optimize-dir's --budget per kernel")
    ap.add_argument("--jobs", default=str(os.cpu_count() or 1))
    ap.add_argument("--time", help="optimize-dir's --time (seconds per kernel's search)")
    opts = ap.parse_args()
    work: Path = opts.work
    work.mkdir(parents=True, exist_ok=False)
    report: dict = {"arch": opts.arch, "checks": {}}

    def save() -> None:  # after every step, so that a run stopped by a time limit still leaves what it found
        (work / "e2e.json").write_text(json.dumps(report, indent=1))

    cap = work / "capture"
    with tempfile.TemporaryDirectory() as cache:
        r = capture(cap, opts.arch, {"TRITON_CACHE_DIR": cache})
    report["capture"] = {"exit": r.returncode, "stderr_tail": r.stderr.strip().splitlines()[-3:],
                         "stdout": r.stdout.strip().splitlines()}
    manifest = json.loads((cap / "capture.json").read_text()) if (cap / "capture.json").exists() else {}
    report["capture"]["kernels"] = manifest.get("kernels", [])
    report["capture"]["not_captured"] = manifest.get("not_captured", [])
    report["capture"]["bytes_written"] = manifest.get("bytes_written")
    report["checks"]["capture_ran"] = r.returncode == 0 and len(kernels_of(cap)) == 3
    save()

    rows = emulate_all(opts.asmevo, cap, work) if report["checks"]["capture_ran"] else []
    report["emulation"] = rows
    report["checks"]["emulation_matches_nvidia"] = bool(rows) and all(x["ok"] for x in rows)
    save()

    opt = work / "optimized"
    r = run([opts.asmevo, "optimize-dir", str(cap), "-o", str(opt), "--budget", opts.budget, "--seed", "1",
             "--jobs", opts.jobs] + (["--time", opts.time] if opts.time else []))
    report["optimize_dir"] = {"exit": r.returncode, "stdout_tail": r.stdout.strip().splitlines()[-40:],
                              "stderr_tail": r.stderr.strip().splitlines()[-5:]}
    summary = json.loads((opt / "summary.json").read_text()) if (opt / "summary.json").exists() else {"kernels": []}
    report["optimize_dir"]["summary"] = summary
    report["checks"]["optimize_dir_ran"] = r.returncode in (0, 1) and len(summary.get("kernels", [])) == 3
    save()

    # The program compiled for the AMD target again, now with Triton's override pointing at optimize-dir's tree.
    again = work / "recompiled"
    with tempfile.TemporaryDirectory() as cache:
        r = capture(again, opts.arch, {"TRITON_CACHE_DIR": cache, "TRITON_KERNEL_OVERRIDE": "1",
                                       "TRITON_OVERRIDE_DIR": str(opt / "override")})
    picked = []
    for h, k in kernels_of(cap):
        k0, k1, now = cap / h / f"{k}.hsaco", opt / "override" / h / f"{k}.hsaco", again / h / f"{k}.hsaco"
        improved = k1.exists()
        row = {"kernel": k, "hash": h, "improved": improved, "recompiled": now.exists()}
        if now.exists():
            row["recompiled_is"] = ("K1" if improved and sha256(now) == sha256(k1) else
                                    "K0" if sha256(now) == sha256(k0) else "other")
        row["ok"] = now.exists() and row["recompiled_is"] == ("K1" if improved else "K0")
        picked.append(row)
    report["override"] = {"exit": r.returncode, "stderr_tail": r.stderr.strip().splitlines()[-5:], "kernels": picked}
    report["checks"]["override_picks_up_k1"] = r.returncode == 0 and bool(picked) and all(x["ok"] for x in picked)
    report["checks"]["some_kernel_improved"] = any(x["improved"] for x in picked)
    save()
    if not report["checks"]["some_kernel_improved"] and kernels_of(cap):
        report["witness"] = witness_override(opts.asmevo, cap, work, opts.arch)
        report["checks"]["override_loads_a_witness_k1"] = report["witness"].get("ok", False)

    save()
    print(json.dumps(report["checks"], indent=1))
    return 0 if all(v for k, v in report["checks"].items() if k != "some_kernel_improved") else 1


if __name__ == "__main__":
    sys.exit(main())
