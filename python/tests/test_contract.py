"""The capture folder's contract with asmevo: a folder written by recorder.Capture, read by the asmevo CLI.

A launch of the corpus's Triton add_kernel (its gfx942 code object and stage files from Triton's dump) is recorded
as the hook records one, with inputs and the output a GPU would have written; then `asmevo emulate` runs the
captured launch file and must write exactly those output bytes, and `asmevo optimize-dir` must read the folder.
Needs the asmevo executable (ASMEVO_CLI, which CTest sets) and the corpus.
"""
from __future__ import annotations

import json
import os
import random
import struct
import subprocess
from pathlib import Path

import pytest

from asmevo_triton import marshal
from asmevo_triton.marshal import Buffer, Scalar
from asmevo_triton.recorder import Capture, KernelInfo
from test_marshal import corpus_dir

N = 3000  # three workgroups of add_kernel's BLOCK 1024, the last one masked


def asmevo() -> str:
    cli = os.environ.get("ASMEVO_CLI")
    if not cli or not Path(cli).exists():
        pytest.skip("ASMEVO_CLI does not name the asmevo executable (CTest sets it)")
    return cli


def add_kernel_from_dump() -> tuple[Path, dict[str, str | bytes]]:
    folders = [p.parent for p in (corpus_dir() / "triton-cache" / "dump").glob("*/add_kernel.hsaco")]
    assert len(folders) == 1, folders
    folder = folders[0]
    stages: dict[str, str | bytes] = {ext: (folder / f"add_kernel.{ext}").read_text()
                                      for ext in ("ttir", "ttgir", "llir", "amdgcn")}
    stages["hsaco"] = (folder / "add_kernel.hsaco").read_bytes()
    return folder, stages


def f32(values: list[float]) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def test_a_recorded_launch_runs_in_asmevo_as_the_gpu_ran_it(tmp_path: Path) -> None:
    cli = asmevo()
    folder, stages = add_kernel_from_dump()
    info = KernelInfo(name="add_kernel", dump_hash=folder.name, cache_hash="corpus", num_warps=4,
                      signature={"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                      constexprs={"BLOCK": 1024}, source="triton", stages=stages, shared=0,
                      hidden_args=marshal.hidden_arg_count(str(stages["llir"]), "add_kernel", 4))
    assert info.hidden_args == 2
    rng = random.Random(7)
    x = [rng.uniform(-4, 4) for _ in range(N)]
    y = [rng.uniform(-4, 4) for _ in range(N)]
    xb, yb = f32(x), f32(y)
    xs, ys = struct.unpack(f"<{N}f", xb), struct.unpack(f"<{N}f", yb)
    want = f32([a + b for a, b in zip(xs, ys)])  # f32 + f32 rounded once to f32, as the GPU adds
    args = [Buffer(name, "*fp32", 4 * N, 0x100000 * (k + 1), 4 * N, "cuda:0") for k, name in enumerate(("x", "y", "out"))]
    args.append(Scalar("n", "i32", N))
    cap = Capture(tmp_path / "cap", ["python", "prog.py"], warn=lambda line: None)
    assert cap.record("r0", "add_kernel", (3,), args, [xb, yb, bytes(4 * N), None], [xb, yb, want, None], "cuda:0",
                      lambda: info)
    cap.finish()

    here = tmp_path / "cap" / folder.name
    launch = here / "add_kernel.launch.json"
    (spec,) = json.loads(launch.read_text())
    assert spec["args"][4:] == [{"null": True}, {"null": True}] and spec["outputs"] == [2]
    assert spec["dynamic_lds"] == 0 and spec["block"] == [256, 1, 1] and spec["grid"] == [3, 1, 1]
    dump = tmp_path / "emulated"
    r = subprocess.run([cli, "emulate", str(here / "add_kernel.hsaco"), "--launch", str(launch), "--dump", str(dump)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (dump / "arg2.bin").read_bytes() == want
    assert (dump / "arg2.bin").read_bytes() == (here / "data" / "l0.arg2.ref.bin").read_bytes()

    out = tmp_path / "opt"
    r = subprocess.run([cli, "optimize-dir", str(tmp_path / "cap"), "-o", str(out), "--budget", "4", "--seed", "1",
                        "--jobs", "1"], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    (row,) = json.loads((out / "summary.json").read_text())["kernels"]
    assert row["kernel"] == "add_kernel" and row["hash"] == folder.name and row["launches"] == 1
    assert row["status"] in ("improved", "unchanged"), row
