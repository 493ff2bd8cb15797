"""hook.py's launch path, driven by fakes of torch, a JITFunction and a CompiledKernel (no torch, triton or GPU).

The fakes model only what the hook reads; the real thing is exercised by test_gpu_e2e.py where a GPU exists.
"""
from __future__ import annotations

import inspect
import json
import struct
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from asmevo_triton import amd, hook, marshal
from asmevo_triton.hook import Hook
from asmevo_triton.recorder import Capture
from test_marshal import ADD_KERNEL_LLIR

BASE = 0x7F0000000000
SRC_HASH = "ab" * 32


class FakeTensor:
    """A float32 tensor of `n` elements at byte `offset` of `memory` (one allocation per bytearray)."""

    def __init__(self, memory: bytearray, offset: int, n: int, device: str = "cuda:0") -> None:
        self.memory, self.offset, self.n, self.device = memory, offset, n, device
        self.dtype, self.shape = "torch.float32", (n,)

    def data_ptr(self) -> int:
        return BASE + id(self.memory) % 2**20 * 2**20 + self.offset

    def untyped_storage(self) -> Any:
        return types.SimpleNamespace(nbytes=lambda: len(self.memory))

    def storage_offset(self) -> int:
        return self.offset // 4

    def element_size(self) -> int:
        return 4

    def numel(self) -> int:
        return self.n

    def stride(self) -> tuple[int, ...]:
        return (1,)

    def floats(self) -> list[float]:
        return list(struct.unpack_from(f"<{self.n}f", self.memory, self.offset))


def tensor(values: list[float], device: str = "cuda:0") -> FakeTensor:
    return FakeTensor(bytearray(struct.pack(f"<{len(values)}f", *values)), 0, len(values), device)


@pytest.fixture
def fake_torch(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    cuda = types.SimpleNamespace(is_current_stream_capturing=lambda: False, synchronize=lambda: None,
                                 current_device=lambda: 0)
    torch = types.SimpleNamespace(Tensor=FakeTensor, cuda=cuda)
    monkeypatch.setitem(sys.modules, "torch", torch)
    snapshots: list[str] = []

    def snapshot(t: hook._Tensor) -> bytes:
        snapshots.append(t.tensor.dtype)
        return bytes(t.tensor.memory[t.tensor.offset:])

    monkeypatch.setattr(hook, "_snapshot", snapshot)
    return types.SimpleNamespace(snapshots=snapshots)


def add_kernel(x, y, out, n, BLOCK):  # noqa: ANN001, N803 - the kernel's Python signature
    """Stands for the @triton.jit function: the hook binds its signature (BLOCK is a constexpr)."""


class FakeJIT:
    """What the hook reads of a JITFunction: __name__, signature, params."""

    def __init__(self) -> None:
        self.__name__ = "add_kernel"
        self.signature = inspect.signature(add_kernel)
        self.params = [types.SimpleNamespace(name=p, is_constexpr=p == "BLOCK") for p in self.signature.parameters]


JIT = FakeJIT()


def fake_kernel(backend: str = "hip", signature: dict | None = None) -> Any:
    target = types.SimpleNamespace(backend=backend, arch="gfx942" if backend == "hip" else 90,
                                   warp_size=64 if backend == "hip" else 32)
    md = types.SimpleNamespace(name="add_kernel", hash=f"cache-{backend}", num_warps=4, target=target,
                               warp_size=target.warp_size)
    src = types.SimpleNamespace(
        signature=signature or {"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        constants={(4,): 1024}, attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]],
                                       (2,): [["tt.divisibility", 16]], (3,): []}, hash=lambda: SRC_HASH)
    asm = {"ttir": "ttir", "llir": ADD_KERNEL_LLIR, "amdgcn": "s_endpgm", "hsaco": b"\x7fELF"} if backend == "hip" \
        else {"ptx": "ptx", "cubin": b"cubin"}
    return types.SimpleNamespace(metadata=md, src=src, asm=asm)


class FakeRun:
    """JITFunction.run as the hook calls it: resolves a callable grid, adds x and y into out, returns the kernel."""

    def __init__(self, kernel: Any) -> None:
        self.kernel, self.grids = kernel, []

    def __call__(self, fn: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        x, y, out, n = args
        if not warmup:
            self.grids.append(grid({"x": x, "n": n, **kwargs}) if callable(grid) else grid)
            summed = [a + b for a, b in zip(x.floats(), y.floats())]
            struct.pack_into(f"<{n}f", out.memory, out.offset, *summed)
        return self.kernel


def new_hook(tmp_path: Path, amd_target: str | None = None, **kw: Any) -> tuple[Hook, Capture, list[str]]:
    warnings: list[str] = []
    cap = Capture(tmp_path / "cap", ["python", "p.py"], amd_target=amd_target, warn=warnings.append, **kw)
    return Hook(cap, amd_target), cap, warnings


def launch(h: Hook, run: FakeRun, x: FakeTensor, y: FakeTensor, out: FakeTensor, n: int, grid: Any = None) -> Any:
    grid = grid if grid is not None else (lambda meta: ((meta["n"] + meta["BLOCK"] - 1) // meta["BLOCK"],))
    return h.launch(run, JIT, (x, y, out, n), {"grid": grid, "warmup": False, "BLOCK": 1024, "num_warps": 4})


def test_a_launch_on_amd_is_recorded(tmp_path: Path, fake_torch: Any) -> None:
    h, cap, warnings = new_hook(tmp_path)
    run = FakeRun(fake_kernel())
    x, y, out = tensor([1.0] * 8), tensor([2.0] * 8), tensor([0.0] * 8)
    assert launch(h, run, x, y, out, 8) is run.kernel
    assert out.floats() == [3.0] * 8 and run.grids == [(1,)]
    assert cap.finish().startswith("asmevo_triton: captured 1 kernel, 1 launch, 0 not captured,")
    folder = tmp_path / "cap" / marshal.dump_hash(SRC_HASH)
    spec = json.loads((folder / "add_kernel.launch.json").read_text())[0]
    assert spec["grid"] == [1, 1, 1] and spec["block"] == [256, 1, 1] and spec["outputs"] == [2]
    assert spec["args"][3:] == [{"scalar": {"type": "i32", "value": 8}}, {"null": True}, {"null": True}]
    assert (folder / "data/l0.arg2.ref.bin").read_bytes() == struct.pack("<8f", *[3.0] * 8)
    info = json.loads((folder / "add_kernel.capture.json").read_text())
    assert info["constexprs"] == {"BLOCK": 1024} and info["cache_hash"] == "cache-hip"
    assert json.loads((tmp_path / "cap" / "capture.json").read_text())["kernels"][0]["source"] == "triton"
    assert warnings == []


def test_repeated_launches_are_not_copied_again(tmp_path: Path, fake_torch: Any) -> None:
    h, cap, _ = new_hook(tmp_path, max_per_kernel=2)
    run = FakeRun(fake_kernel())
    x, y, out = tensor([1.0] * 8), tensor([2.0] * 8), tensor([0.0] * 8)
    for _ in range(3):
        launch(h, run, x, y, out, 8)
    assert len(fake_torch.snapshots) == 6  # x, y, out before and after the first launch only
    launch(h, run, tensor([1.0] * 16), tensor([1.0] * 16), tensor([0.0] * 16), 16)
    assert len(fake_torch.snapshots) == 12
    assert cap.full("cache-hip")
    launch(h, run, tensor([1.0] * 32), tensor([1.0] * 32), tensor([0.0] * 32), 32)  # full: no copies at all
    assert len(fake_torch.snapshots) == 12
    assert len(run.grids) == 5


def test_warmup_passes_through(tmp_path: Path, fake_torch: Any) -> None:
    h, cap, _ = new_hook(tmp_path)
    run = FakeRun(fake_kernel())
    x = tensor([1.0])
    assert h.launch(run, JIT, (x, x, x, 1), {"grid": (1,), "warmup": True}) is run.kernel
    assert run.grids == [] and fake_torch.snapshots == []


def test_a_cuda_run_without_amd_target(tmp_path: Path, fake_torch: Any) -> None:
    h, cap, warnings = new_hook(tmp_path)
    launch(h, FakeRun(fake_kernel("cuda")), tensor([1.0] * 8), tensor([2.0] * 8), tensor([0.0] * 8), 8)
    cap.finish()
    doc = json.loads((tmp_path / "cap" / "capture.json").read_text())
    assert doc["kernels"] == []
    assert doc["not_captured"] == [{"kernel": "add_kernel",
                                    "reason": "ran on cuda; pass --amd-target gfx942 to recompile it for AMD"}]
    folder = tmp_path / "cap" / marshal.dump_hash(SRC_HASH)
    assert (folder / "add_kernel.launch.json").is_file() and not (folder / "add_kernel.hsaco").exists()
    assert len(warnings) == 1


def test_a_cuda_run_recompiled_for_amd(tmp_path: Path, fake_torch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple] = []

    def compile_for_amd(jitfn, signature, constants, attrs, num_warps, arch) -> amd.AmdBuild:  # noqa: ANN001
        asked.append((signature["n"], constants, attrs, num_warps, arch))
        return amd.AmdBuild(name="add_kernel", dump_hash=marshal.dump_hash(SRC_HASH), cache_hash="cache-amd",
                            stages={"llir": ADD_KERNEL_LLIR, "hsaco": b"\x7fELF amd"}, warp_size=64)

    monkeypatch.setattr(amd, "amd_compile", compile_for_amd)
    monkeypatch.setattr(amd, "buffer_ops_enabled", lambda: True)
    h, cap, warnings = new_hook(tmp_path, amd_target="gfx942")
    run = FakeRun(fake_kernel("cuda"))
    launch(h, run, tensor([1.0] * 8), tensor([2.0] * 8), tensor([0.0] * 8), 8)
    launch(h, run, tensor([1.0] * 64), tensor([2.0] * 64), tensor([0.0] * 64), 64, grid=(2,))
    cap.finish()
    divisible, small = ["tt.divisibility", 16], ["tt.pointer_range", 32]
    amd_attrs = {(0,): [divisible, small], (1,): [divisible, small], (2,): [divisible, small], (3,): []}
    assert asked == [("i32", {(4,): 1024}, amd_attrs, 4, "gfx942")]  # once per kernel, as an AMD run specializes
    doc = json.loads((tmp_path / "cap" / "capture.json").read_text())
    assert doc["kernels"] == [{"kernel": "add_kernel", "hash": marshal.dump_hash(SRC_HASH), "launches": 2,
                               "source": "recompiled"}]
    folder = tmp_path / "cap" / marshal.dump_hash(SRC_HASH)
    specs = json.loads((folder / "add_kernel.launch.json").read_text())
    assert [s["block"] for s in specs] == [[256, 1, 1]] * 2  # wave64 on AMD, whatever the capturing GPU had
    assert [s["grid"] for s in specs] == [[1, 1, 1], [2, 1, 1]]
    assert json.loads((folder / "add_kernel.capture.json").read_text())["cache_hash"] == "cache-amd"
    assert warnings == []


def test_a_failed_amd_compile_is_listed(tmp_path: Path, fake_torch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(*args: Any) -> amd.AmdBuild:
        raise RuntimeError("no AMD backend\nmore detail")

    monkeypatch.setattr(amd, "amd_compile", failing)
    h, cap, _ = new_hook(tmp_path, amd_target="gfx942")
    run = FakeRun(fake_kernel("cuda"))
    out = tensor([0.0] * 8)
    launch(h, run, tensor([1.0] * 8), tensor([2.0] * 8), out, 8)
    assert out.floats() == [3.0] * 8  # the program's launch happened all the same
    cap.finish()
    doc = json.loads((tmp_path / "cap" / "capture.json").read_text())
    assert doc["not_captured"] == [{"kernel": "add_kernel", "reason": "the AMD compile for gfx942 failed: "
                                                                      "RuntimeError: no AMD backend"}]


def test_arguments_that_cannot_be_expressed(tmp_path: Path, fake_torch: Any) -> None:
    h, cap, _ = new_hook(tmp_path)
    run = FakeRun(fake_kernel(signature={"x": "*fp32", "y": "tensordesc<fp32[64]>", "out": "*fp32", "n": "i32",
                                         "BLOCK": "constexpr"}))
    launch(h, run, tensor([1.0] * 8), tensor([2.0] * 8), tensor([0.0] * 8), 8)
    cpu = FakeRun(fake_kernel())
    cpu.kernel.metadata.hash = "cache-plain"  # another compiled kernel: the first one's signature is rejected for good
    launch(h, cpu, tensor([1.0] * 8, device="cpu"), tensor([2.0] * 8), tensor([0.0] * 8), 8)
    cap.finish()
    reasons = [e["reason"] for e in json.loads((tmp_path / "cap" / "capture.json").read_text())["not_captured"]]
    assert reasons == ["argument 1 (y) is a TMA descriptor (tensordesc<fp32[64]>)",
                       "argument 0 (x) is a CPU tensor, the launch ran on cuda:0"]


def test_an_internal_error_never_reaches_the_program(tmp_path: Path, fake_torch: Any) -> None:
    h, cap, _ = new_hook(tmp_path)
    kernel = fake_kernel()
    del kernel.src  # a Triton whose CompiledKernel lacks .src
    run = FakeRun(kernel)
    assert launch(h, run, tensor([1.0] * 8), tensor([2.0] * 8), tensor([0.0] * 8), 8) is kernel
    cap.finish()
    (entry,) = json.loads((tmp_path / "cap" / "capture.json").read_text())["not_captured"]
    assert entry["kernel"] == "add_kernel" and entry["reason"].startswith("internal error after the launch: "
                                                                          "AttributeError")


def test_arg_and_path_name() -> None:
    assert hook._arg("d", "nvTmaDesc", object(), None).what == "a TMA descriptor (nvTmaDesc)"
    assert hook._arg("t", ("*fp32", "i32"), (1, 2), None).what.startswith("a tuple")
    assert hook._arg("p", "*fp32", types.SimpleNamespace(), None).what == \
        "a SimpleNamespace (not a torch tensor), whose memory cannot be copied"
    assert hook._arg("n", "i32", 5, None) == marshal.Scalar("n", "i32", 5)
    assert hook._path_name(["a", "b"], (1,)) == "b"
    assert hook._path_name(["a", "b"], (0, 2)) == "a[2]"


def test_amd_attrs() -> None:
    attrs = {(0,): [["tt.divisibility", 16]], (1,): [], (3,): [["tt.divisibility", 16]]}
    assert amd.amd_attrs(attrs, [0, 1, 2]) == {(0,): [["tt.divisibility", 16], ["tt.pointer_range", 32]],
                                               (1,): [["tt.pointer_range", 32]], (3,): [["tt.divisibility", 16]]}
    assert attrs[(0,)] == [["tt.divisibility", 16]]  # the run's own attrs are left alone
    assert amd.amd_attrs(attrs, []) == attrs
