"""End-to-end captures of tests/programs/three_kernels.py; they need torch, triton and a GPU, and skip without."""
from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
PROGRAM = PYTHON_DIR / "tests" / "programs" / "three_kernels.py"
KERNELS = {"add_kernel", "softmax_kernel", "layernorm_kernel"}


def _gpu_reason() -> str | None:
    try:
        import torch
        importlib.import_module("triton")
    except Exception as e:  # noqa: BLE001 - any import failure means no GPU tests
        return f"needs torch and triton ({type(e).__name__}: {e})"
    if not torch.cuda.is_available():
        return "needs a GPU that torch can use"
    return None


_REASON = _gpu_reason()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(PYTHON_DIR), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _capture(tmp_path: Path, *options: str, program_args: tuple[str, ...] = ()) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path / "cap"
    r = _run(["-m", "asmevo_triton", "capture", "--out", str(out), *options, "--", "python", str(PROGRAM),
              *program_args], tmp_path)
    assert r.returncode == 0, r.stderr
    return out, r


def _ran_on_amd() -> bool:
    import torch
    return torch.version.hip is not None


def _kernel_folders(out: Path) -> dict[str, Path]:
    """kernel name -> its HASH folder, found through the launch files."""
    return {p.name.removesuffix(".launch.json"): p.parent for p in out.glob("*/*.launch.json")}


def test_capture_keeps_output_and_writes_three_kernels(tmp_path: Path) -> None:
    plain = _run([str(PROGRAM)], tmp_path)
    assert plain.returncode == 0, plain.stderr
    out, cap = _capture(tmp_path)
    assert cap.stdout == plain.stdout
    summary = [line for line in cap.stderr.splitlines() if line.startswith("asmevo_triton: captured")]
    assert len(summary) == 1 and cap.stderr.rstrip().endswith(summary[0])

    doc = json.loads((out / "capture.json").read_text())
    assert doc["format"] == "asmevo-triton-capture" and doc["version"] == 1 and doc["no_data"] is False
    folders = _kernel_folders(out)
    assert set(folders) == KERNELS
    for name, folder in folders.items():
        assert len(folder.name) == 52
        specs = json.loads((folder / f"{name}.launch.json").read_text())
        info = json.loads((folder / f"{name}.capture.json").read_text())
        assert len(specs) == len(info["launches"]) == (2 if name == "add_kernel" else 1)
        explicit = [n for n, t in info["signature"].items() if t != "constexpr"]
        for spec, launch in zip(specs, info["launches"]):
            assert spec["kernel"] == name and spec["block"] == [info["num_warps"] * 64, 1, 1]
            assert spec["args"][len(explicit):] == [{"null": True}] * (len(spec["args"]) - len(explicit))
            assert spec["outputs"] == launch["outputs"] and launch["outputs"], spec
            for j, arg in enumerate(spec["args"][:len(explicit)]):
                if "buffer" in arg:
                    assert (folder / arg["buffer"]["init"]["file"]).is_file()
            for j, ref in launch["references"].items():
                assert (folder / ref).stat().st_size == (folder / spec["args"][int(j)]["buffer"]["init"]["file"]).stat().st_size
    if _ran_on_amd():
        assert {k["kernel"] for k in doc["kernels"]} == KERNELS
        assert all(k["source"] == "triton" for k in doc["kernels"])
    else:
        assert doc["kernels"] == []
        assert {e["kernel"] for e in doc["not_captured"]} == KERNELS
        assert all("pass --amd-target gfx942" in e["reason"] for e in doc["not_captured"])


def test_amd_target_stores_code_objects_and_references(tmp_path: Path) -> None:
    out, _ = _capture(tmp_path, "--amd-target", "gfx942")
    doc = json.loads((out / "capture.json").read_text())
    assert doc["amd_target"] == "gfx942"
    assert {k["kernel"] for k in doc["kernels"]} == KERNELS, doc["not_captured"]
    for k in doc["kernels"]:
        folder = out / k["hash"]
        hsaco = (folder / f"{k['kernel']}.hsaco").read_bytes()
        assert hsaco[:4] == b"\x7fELF"
        for ext in ("ttir", "ttgir", "llir", "amdgcn"):
            assert (folder / f"{k['kernel']}.{ext}").is_file()
        info = json.loads((folder / f"{k['kernel']}.capture.json").read_text())
        assert info["hsaco_sha256"] == hashlib.sha256(hsaco).hexdigest()
        assert all(launch["references"] for launch in info["launches"])
        specs = json.loads((folder / f"{k['kernel']}.launch.json").read_text())
        assert all(spec["args"][-2:] == [{"null": True}] * 2 for spec in specs)


def test_overlapping_views_are_listed_not_captured(tmp_path: Path) -> None:
    plain = _run([str(PROGRAM), "--overlap"], tmp_path)
    out, cap = _capture(tmp_path, "--no-data", program_args=("--overlap",))
    assert cap.stdout == plain.stdout
    doc = json.loads((out / "capture.json").read_text())
    reasons = [e["reason"] for e in doc["not_captured"] if e["kernel"] == "add_kernel"]
    assert any("arguments 0 (x_ptr) and 1 (y_ptr) overlap in memory" in r for r in reasons), doc["not_captured"]
    assert not list(out.glob("*/data"))  # --no-data: no buffer contents at all
