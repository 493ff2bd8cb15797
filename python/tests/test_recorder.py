"""recorder.py: the capture folder written from fake launches (no torch, triton or GPU needed)."""
from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

import pytest

from asmevo_triton import marshal
from asmevo_triton.marshal import Buffer, Scalar
from asmevo_triton.recorder import Capture, KernelInfo, LaunchMemo
from test_marshal import ADD_KERNEL_LLIR

DUMP = marshal.dump_hash("ab" * 32)
HSACO = b"\x7fELF fake code object"


def info(name: str = "add_kernel", dump: str = DUMP, cache: str = "c0", source: str | None = "triton") -> KernelInfo:
    stages: dict[str, str | bytes] = {"ttir": "ttir text", "llir": ADD_KERNEL_LLIR, "hsaco": HSACO} if source else {}
    return KernelInfo(name=name, dump_hash=dump, cache_hash=cache, num_warps=4,
                      signature={"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                      constexprs={"BLOCK": 1024}, source=source, stages=stages,
                      hidden_args=marshal.hidden_arg_count(stages.get("llir"), name, 4))  # type: ignore[arg-type]


class FakeLaunch:
    """add_kernel(x, y, out, n) on n floats: x = 1.0s, y = 2.0s, out written with 3.0s."""

    def __init__(self, n: int = 8, base: int = 0x10000) -> None:
        self.n = n
        self.args = [Buffer(name, "*fp32", 4 * n, base + k * 0x1000, 4 * n, "cuda:0")
                     for k, name in enumerate(("x", "y", "out"))] + [Scalar("n", "i32", n)]
        ones, twos, zeros, threes = (struct.pack("<f", v) * n for v in (1.0, 2.0, 0.0, 3.0))
        self.pre = [ones, twos, zeros, None]
        self.post = [ones, twos, threes, None]

    def record(self, cap: Capture, grid: tuple = (1,), run_hash: str = "r0", kinfo=info) -> bool:
        return cap.record(run_hash, "add_kernel", grid, self.args, self.pre, self.post, "cuda:0", kinfo)


def new_capture(tmp_path: Path, warnings: list[str] | None = None, **kw) -> Capture:
    sink = warnings if warnings is not None else []
    return Capture(tmp_path / "cap", ["python", "prog.py"], warn=sink.append, **kw)


def read(path: Path) -> object:
    return json.loads(path.read_text())


def test_one_launch_writes_the_folder(tmp_path: Path) -> None:
    cap = new_capture(tmp_path)
    launch = FakeLaunch()
    assert launch.record(cap, grid=(3,))
    line = cap.finish()
    folder = tmp_path / "cap" / DUMP
    assert sorted(p.name for p in folder.iterdir()) == [
        "add_kernel.capture.json", "add_kernel.hsaco", "add_kernel.launch.json", "add_kernel.llir",
        "add_kernel.ttir", "data"]
    assert (folder / "add_kernel.hsaco").read_bytes() == HSACO
    assert read(folder / "add_kernel.launch.json") == [{
        "kernel": "add_kernel", "grid": [3, 1, 1], "block": [256, 1, 1],
        "args": [{"buffer": {"dtype": "f32", "count": 8, "init": {"file": f"data/l0.arg{j}.bin"}}} for j in range(3)]
        + [{"scalar": {"type": "i32", "value": 8}}, {"null": True}, {"null": True}],
        "outputs": [2]}]
    for j in range(3):
        assert (folder / f"data/l0.arg{j}.bin").read_bytes() == launch.pre[j]
    assert (folder / "data/l0.arg2.ref.bin").read_bytes() == launch.post[2]
    assert not (folder / "data/l0.arg0.ref.bin").exists()
    assert read(folder / "add_kernel.capture.json") == {
        "kernel": "add_kernel", "hash": DUMP, "cache_hash": "c0", "num_warps": 4,
        "signature": {"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        "constexprs": {"BLOCK": 1024}, "hsaco_sha256": hashlib.sha256(HSACO).hexdigest(),
        "launches": [{"grid": [3, 1, 1], "outputs": [2], "references": {"2": "data/l0.arg2.ref.bin"}}]}
    doc = read(tmp_path / "cap" / "capture.json")
    files = [p for p in (tmp_path / "cap").rglob("*") if p.is_file() and p.name != "capture.json"]
    assert doc == {"format": "asmevo-triton-capture", "version": 1, "program": ["python", "prog.py"],
                   "amd_target": None, "no_data": False,
                   "kernels": [{"kernel": "add_kernel", "hash": DUMP, "launches": 1, "source": "triton"}],
                   "not_captured": [], "ambiguous": [], "bytes_written": sum(p.stat().st_size for p in files)}
    assert line == f"asmevo_triton: captured 1 kernel, 1 launch, 0 not captured, 0.0 MB written to {tmp_path / 'cap'}"


def test_distinct_launches_up_to_max_per_kernel(tmp_path: Path) -> None:
    cap = new_capture(tmp_path, max_per_kernel=2)
    calls: list[int] = []

    def counted() -> KernelInfo:
        calls.append(1)
        return info()

    assert FakeLaunch().record(cap, grid=(1,), kinfo=counted)
    assert not FakeLaunch().record(cap, grid=(1,), kinfo=counted)           # the same launch again
    assert not FakeLaunch(base=0x90000).record(cap, grid=(1,), kinfo=counted)  # other addresses only
    assert not cap.full("r0")
    assert FakeLaunch(n=16).record(cap, grid=(2,), kinfo=counted)
    assert cap.full("r0")
    assert not FakeLaunch(n=32).record(cap, grid=(4,), kinfo=counted)       # distinct, but the kernel is full
    assert FakeLaunch(n=32).record(cap, grid=(4,), run_hash="r1", kinfo=lambda: info(dump=marshal.dump_hash("cd" * 32), cache="c1"))
    assert calls == [1]  # kernel_info is asked once per kernel
    cap.finish()
    folder = tmp_path / "cap" / DUMP
    specs = read(folder / "add_kernel.launch.json")
    assert [s["grid"] for s in specs] == [[1, 1, 1], [2, 1, 1]]
    assert specs[1]["args"][0]["buffer"]["init"] == {"file": "data/l1.arg0.bin"}
    assert [k["launches"] for k in read(tmp_path / "cap" / "capture.json")["kernels"]] == [2, 1]


def test_no_data(tmp_path: Path) -> None:
    cap = new_capture(tmp_path, no_data=True, seed=11)
    assert FakeLaunch().record(cap)
    assert FakeLaunch(n=16).record(cap, grid=(2,))
    cap.finish()
    folder = tmp_path / "cap" / DUMP
    assert not (folder / "data").exists()
    specs = read(folder / "add_kernel.launch.json")
    assert [a["buffer"] for a in specs[1]["args"][:3]] == [
        {"dtype": "f32", "count": 16, "init": {"random": {"seed": 11 + j, "min": -1, "max": 1}}} for j in range(3)]
    assert specs[1]["args"][3] == {"scalar": {"type": "i32", "value": 16}}
    assert [s["outputs"] for s in specs] == [[2], [2]]
    launches = read(folder / "add_kernel.capture.json")["launches"]
    assert [launch["references"] for launch in launches] == [{}, {}]
    assert read(tmp_path / "cap" / "capture.json")["no_data"] is True


def test_an_argument_that_cannot_be_captured(tmp_path: Path) -> None:
    warnings: list[str] = []
    cap = new_capture(tmp_path, warnings)
    launch = FakeLaunch()
    launch.args[1] = Buffer("y", "*fp32", 32, launch.args[0].address + 4, 32, "cuda:0")  # overlaps x
    assert not launch.record(cap, kinfo=lambda: pytest.fail("no kernel info for a launch that is not recorded"))
    assert not launch.record(cap)
    line = cap.finish()
    doc = read(tmp_path / "cap" / "capture.json")
    assert doc["kernels"] == []
    assert doc["not_captured"] == [{"kernel": "add_kernel", "reason": "arguments 0 (x) and 1 (y) overlap in memory"}]
    assert warnings == ["asmevo_triton: warning: add_kernel: not captured: arguments 0 (x) and 1 (y) overlap in memory"]
    assert not (tmp_path / "cap" / DUMP).exists()
    assert ", 1 not captured," in line


def test_a_kernel_whose_signature_cannot_be_captured_is_not_copied_again(tmp_path: Path) -> None:
    """A descriptor argument makes every launch of the kernel inexpressible: after the first, none is looked at."""
    cap = new_capture(tmp_path)
    launch = FakeLaunch()
    launch.args[1] = marshal.Opaque("y", "nvTmaDesc", "a TMA descriptor (nvTmaDesc)")
    assert not launch.record(cap)
    assert cap.full("r0")
    # An overlap is a matter of this launch's addresses: a later launch may still be captured.
    other = FakeLaunch()
    other.args[1] = Buffer("y", "*fp32", 32, other.args[0].address + 4, 32, "cuda:0")
    assert not other.record(cap, run_hash="r1")
    assert not cap.full("r1")


def test_a_kernel_without_info_is_not_retried(tmp_path: Path) -> None:
    cap = new_capture(tmp_path)
    calls: list[int] = []

    def failing() -> None:
        calls.append(1)
        cap.note("add_kernel", "the AMD compile for gfx942 failed: RuntimeError: boom")

    assert not FakeLaunch().record(cap, kinfo=failing)
    assert cap.full("r0")
    assert not FakeLaunch(n=16).record(cap, kinfo=failing)
    assert calls == [1]


def test_same_dump_hash_for_two_variants(tmp_path: Path) -> None:
    cap = new_capture(tmp_path)
    assert FakeLaunch().record(cap, run_hash="r0", kinfo=lambda: info(cache="c0"))
    assert not FakeLaunch().record(cap, run_hash="r8", kinfo=lambda: info(cache="c8"))
    assert cap.full("r8")
    (entry,) = read_not_captured(cap, tmp_path)
    assert entry["kernel"] == "add_kernel" and f"same dump hash {DUMP}" in entry["reason"]
    # The first variant stays captured, but capture.json marks its hash ambiguous for optimize-dir.
    (amb,) = read(tmp_path / "cap" / "capture.json")["ambiguous"]  # type: ignore[index]
    assert amb["kernel"] == "add_kernel" and amb["hash"] == DUMP


def read_not_captured(cap: Capture, tmp_path: Path) -> list[dict]:
    cap.finish()
    return read(tmp_path / "cap" / "capture.json")["not_captured"]  # type: ignore[index]


def test_a_kernel_without_amd_code_object(tmp_path: Path) -> None:
    cap = new_capture(tmp_path)

    def cuda_kernel() -> KernelInfo:
        cap.note("add_kernel", "ran on cuda; pass --amd-target gfx942 to recompile it for AMD")
        return info(source=None)

    assert FakeLaunch().record(cap, kinfo=cuda_kernel)
    line = cap.finish()
    folder = tmp_path / "cap" / DUMP
    assert sorted(p.name for p in folder.iterdir()) == ["add_kernel.capture.json", "add_kernel.launch.json", "data"]
    assert read(folder / "add_kernel.launch.json")[0]["args"][-2:] == [{"null": True}] * 2  # the fallback
    assert read(folder / "add_kernel.capture.json")["hsaco_sha256"] is None
    doc = read(tmp_path / "cap" / "capture.json")
    assert doc["kernels"] == [] and len(doc["not_captured"]) == 1
    assert line.startswith("asmevo_triton: captured 0 kernels, 0 launches, 1 not captured,")


def test_empty_grid_is_not_recorded(tmp_path: Path) -> None:
    cap = new_capture(tmp_path)
    assert not FakeLaunch().record(cap, grid=(0, 4))
    assert FakeLaunch().record(cap, grid=(1, 4))


def test_max_per_kernel_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--max-per-kernel"):
        new_capture(tmp_path, max_per_kernel=0)


def test_launch_memo() -> None:
    memo = LaunchMemo()
    full: set[str] = set()
    assert not memo.skip("spec", "v1", full.__contains__)   # nothing known yet
    assert memo.learn("spec", "v1", "r0")
    assert memo.skip("spec", "v1", full.__contains__)       # the same arguments again
    assert not memo.skip("spec", "v2", full.__contains__)   # new values for a kernel that is not full
    full.add("r0")
    assert memo.skip("spec", "v2", full.__contains__)       # the kernel is full
    assert not memo.learn("spec", "v2", "r1")               # the key led to another kernel
    assert not memo.skip("spec", "v1", full.__contains__)   # so it guesses no more
    assert not memo.learn("spec", "v3", "r0")
