"""marshal.py: Triton launches described with plain values -> launch specs (no torch, triton or GPU needed)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from asmevo_triton import marshal
from asmevo_triton.marshal import Buffer, Opaque, Scalar

# The kernel line of Triton 3.6's LLVM IR for the corpus's add_kernel (triton-cache/cache/W4SW.../add_kernel.llir).
ADD_KERNEL_DEFINE = (
    "define amdgpu_kernel void @add_kernel(ptr addrspace(1) inreg readonly captures(none) %0, "
    "ptr addrspace(1) inreg readonly captures(none) %1, ptr addrspace(1) inreg writeonly captures(none) %2, "
    "i32 inreg %3, ptr addrspace(1) inreg readnone captures(none) %4, "
    "ptr addrspace(1) inreg readnone captures(none) %5) local_unnamed_addr #0 {")
ADD_KERNEL_LLIR = f"; ModuleID = 'LLVMDialectModule'\n\n{ADD_KERNEL_DEFINE}\n  ret void\n}}\n"

N = 4000


def add_kernel_args(base: int = 0x7F0000000000) -> list[marshal.Arg]:
    """add_kernel(x, y, out, n, BLOCK: constexpr) as the hook describes it: three f32 buffers and n."""
    return [Buffer(name, "*fp32", 4 * N, base + k * 0x10000, 4 * N, "cuda:0") for k, name in enumerate("x y out".split())] \
        + [Scalar("n", "i32", N)]


def corpus_dir() -> Path:
    """ASMEVO_CORPUS_DIR, else ../shared/corpus beside the checkout (as the C++ tests look for it)."""
    d = os.environ.get("ASMEVO_CORPUS_DIR")
    path = Path(d) if d else Path(__file__).resolve().parents[3] / "shared" / "corpus"
    if not path.is_dir():
        pytest.skip(f"no corpus at {path} (set ASMEVO_CORPUS_DIR)")
    return path


def test_add_kernel_launch_spec() -> None:
    args = add_kernel_args()
    hidden = marshal.hidden_arg_count(ADD_KERNEL_LLIR, "add_kernel", len(args))
    inits = {j: {"file": f"data/l0.arg{j}.bin"} for j in range(3)}
    spec = marshal.build_launch_spec("add_kernel", (4,), 4 * 64, args, hidden, [2], inits)
    assert spec == {
        "kernel": "add_kernel",
        "grid": [4, 1, 1],
        "block": [256, 1, 1],
        "args": [
            {"buffer": {"dtype": "f32", "count": N, "init": {"file": "data/l0.arg0.bin"}}},
            {"buffer": {"dtype": "f32", "count": N, "init": {"file": "data/l0.arg1.bin"}}},
            {"buffer": {"dtype": "f32", "count": N, "init": {"file": "data/l0.arg2.bin"}}},
            {"scalar": {"type": "i32", "value": N}},
            {"null": True},
            {"null": True},
        ],
        "outputs": [2],
    }
    assert json.loads(marshal.json_bytes(spec)) == spec


def test_launch_spec_carries_the_kernels_dynamic_lds() -> None:
    """Triton declares all of a kernel's LDS as dynamic: the spec asks for what metadata.shared says, so that K0 and
    K1 run at the program's occupancy (without it asmevo gives the whole 64 KiB)."""
    args = add_kernel_args()
    inits = {j: {"random": {"seed": j, "min": -1.0, "max": 1.0}} for j in range(3)}
    assert marshal.build_launch_spec("row_sum", (1,), 256, args, 2, [2], inits, dynamic_lds=16)["dynamic_lds"] == 16
    assert marshal.build_launch_spec("row_sum", (1,), 256, args, 2, [2], inits, dynamic_lds=0)["dynamic_lds"] == 0
    assert "dynamic_lds" not in marshal.build_launch_spec("row_sum", (1,), 256, args, 2, [2], inits)


def test_a_launch_that_changed_nothing_compares_every_buffer() -> None:
    """Its output already held the result: no "outputs" key, which asmevo reads as every buffer."""
    args = add_kernel_args()
    inits = {j: {"random": {"seed": j, "min": -1.0, "max": 1.0}} for j in range(3)}
    assert "outputs" not in marshal.build_launch_spec("add_kernel", (1,), 256, args, 2, [], inits)


# Every Triton pointer type the capture maps, written out again here so that a change to the table shows.
BUFFER_CASES = {
    "*fp32": "f32", "*fp16": "f16", "*bf16": "bf16", "*fp64": "f64",
    "*fp8e4nv": "fp8e4m3", "*fp8e5": "fp8e5m2", "*fp8e4b8": "fp8e4m3fnuz", "*fp8e5b16": "fp8e5m2fnuz",
    "*i64": "i64", "*u64": "u64", "*i32": "i32", "*u32": "u32", "*i16": "i16", "*u16": "u16",
    "*i8": "i8", "*u8": "u8", "*u1": "u8", "*i1": "u8",
}
SCALAR_CASES = {
    "i32": "i32", "i64": "i64", "u32": "u32", "u64": "u64", "i16": "i16", "u16": "u16", "i8": "i8", "u8": "u8",
    "fp32": "f32", "fp64": "f64", "fp16": "f16", "bf16": "bf16", "i1": "u8", "u1": "u8",
}


@pytest.mark.parametrize("ttype,dtype", BUFFER_CASES.items())
def test_buffer_dtypes(ttype: str, dtype: str) -> None:
    assert marshal.buffer_dtype(ttype) == dtype
    assert marshal.buffer_dtype("*k" + ttype[1:]) == dtype  # const pointers
    assert dtype in marshal.DTYPES


def test_buffer_dtype_table_is_covered() -> None:
    assert {"*" + t for t in marshal.BUFFER_DTYPES} == set(BUFFER_CASES)
    assert set(marshal.SCALAR_TYPES) == set(SCALAR_CASES)


@pytest.mark.parametrize("ttype,stype", SCALAR_CASES.items())
def test_scalar_types(ttype: str, stype: str) -> None:
    entry, why = marshal.scalar_json(Scalar("s", ttype, 1))
    assert why is None
    assert entry == {"scalar": {"type": stype, "value": 1}}


def test_unknown_types_give_reasons() -> None:
    args = [Buffer("p", "*fp8e4b15", 16, 0x1000, 16, "cuda:0"), Scalar("s", "fp8e5", 0.5), Scalar("t", "u1", True)]
    assert marshal.arg_problems(args, "cuda:0") == [
        "argument 0 (p) has pointer type *fp8e4b15, which has no asmevo dtype",
        "argument 1 (s) is a scalar of Triton type fp8e5, which the launch spec has no scalar type for",
    ]
    assert marshal.buffer_dtype("fp32") is None  # not a pointer


def test_scalar_values() -> None:
    def value(ttype: str, v: object) -> object:
        entry, why = marshal.scalar_json(Scalar("s", ttype, v))
        assert why is None, why
        return entry["scalar"]["value"]

    assert value("u1", True) == 1 and value("u1", False) == 0
    assert value("fp32", 1e-5) == 1e-5
    assert value("fp32", float("nan")) == "nan"
    assert value("fp32", float("-inf")) == "-inf"
    assert value("fp32", 1e39) == "inf"                        # the device's float is infinite
    assert value("fp32", 3.40282350e38) == 3.4028234663852886e38  # rounds to the largest float
    assert value("fp16", 65519.0) == 65504.0 and value("fp16", -65520.0) == "-inf"
    assert value("fp64", 1e300) == 1e300
    assert value("u64", 2**64 - 1) == 2**64 - 1
    assert marshal.scalar_json(Scalar("n", "i32", 2**31))[1] == "is 2147483648, outside the range of i32"
    assert marshal.scalar_json(Scalar("n", "u32", -1))[1] == "is -1, outside the range of u32"


def test_descriptor_and_foreign_objects_give_reasons() -> None:
    args = add_kernel_args()[:2] + [Opaque("desc", "nvTmaDesc", "a TMA descriptor (nvTmaDesc)")]
    assert marshal.arg_problems(args, "cuda:0") == ["argument 2 (desc) is a TMA descriptor (nvTmaDesc)"]


def test_devices() -> None:
    args = [Buffer("a", "*fp32", 64, 0x1000, 64, "cpu"), Buffer("b", "*fp32", 64, 0x2000, 64, "cuda:1"),
            Buffer("c", "*fp32", 64, 0x3000, 64, "cuda:0")]
    assert marshal.arg_problems(args, "cuda:0") == [
        "argument 0 (a) is a CPU tensor, the launch ran on cuda:0",
        "argument 1 (b) is on cuda:1, the launch ran on cuda:0",
    ]


def test_overlapping_tensors_give_a_reason() -> None:
    # buf[:-1] and buf[1:] of one 4097-float tensor: their elements overlap.
    a = Buffer("x", "*fp32", 4 * 4097, 0x10000, 4 * 4096, "cuda:0")
    b = Buffer("y", "*fp32", 4 * 4096, 0x10004, 4 * 4096, "cuda:0")
    assert marshal.arg_problems([a, b], "cuda:0") == ["arguments 0 (x) and 1 (y) overlap in memory"]
    assert marshal.arg_problems([a, a], "cuda:0") == ["arguments 0 (x) and 1 (x) overlap in memory"]


def test_shared_allocation_with_disjoint_elements() -> None:
    # q = qkv[:64], k = qkv[64:]: q's captured bytes run to the storage's end and so hold k's.
    q = Buffer("q", "*fp32", 512, 0x10000, 256, "cuda:0")
    k = Buffer("k", "*fp32", 256, 0x10100, 256, "cuda:0")
    assert marshal.arg_problems([q, k], "cuda:0") == []
    assert marshal.arg_problems([q, k], "cuda:0", [True, False]) == []  # writing q is replayed faithfully
    assert marshal.arg_problems([q, k], "cuda:0", [True, True]) == [
        "arguments 0 (q) and 1 (k) share one allocation and the launch wrote argument 1, whose bytes the other "
        "argument's capture (data_ptr to the storage's end) also holds"]
    empty = Buffer("e", "*fp32", 0, 0x10000, 0, "cuda:0")
    assert marshal.arg_problems([q, empty], "cuda:0", [True, False]) == []


def test_outputs_are_the_changed_buffers() -> None:
    pre = [b"\x00" * 8, b"\x01" * 8, b"\x02" * 8, None]
    post = [b"\x00" * 8, b"\x01" * 7 + b"\x09", b"\x02" * 8, None]
    assert marshal.changed_buffers(pre, post) == [False, True, False, False]
    with pytest.raises(ValueError):
        marshal.changed_buffers(pre, post[:2])


def test_launch_keys() -> None:
    args = add_kernel_args()
    assert marshal.launch_key((4,), args) == marshal.launch_key([4, 1, 1], add_kernel_args(base=0x100000))
    assert marshal.launch_key((4,), args) != marshal.launch_key((5,), args)
    assert marshal.launch_key((4,), args) != marshal.launch_key((4,), args[:3] + [Scalar("n", "i32", N - 1)])
    bigger = [Buffer("x", "*fp32", 8 * N, 0, 8 * N, "cuda:0")] + args[1:]
    assert marshal.launch_key((4,), args) != marshal.launch_key((4,), bigger)
    as_half = [Buffer("x", "*fp16", 4 * N, 0, 4 * N, "cuda:0")] + args[1:]
    assert marshal.launch_key((4,), args) != marshal.launch_key((4,), as_half)


def test_grid3() -> None:
    assert marshal.grid3((7,)) == [7, 1, 1]
    assert marshal.grid3([2, 3]) == [2, 3, 1]
    with pytest.raises(ValueError, match="1 to 3 dimensions"):
        marshal.grid3((1, 2, 3, 4))


def test_random_inits() -> None:
    assert marshal.random_init("*fp32", 7) == {"random": {"seed": 7, "min": -1, "max": 1}}
    assert marshal.random_init("*fp8e4b8", 0) == {"random": {"seed": 0, "min": -1, "max": 1}}
    assert marshal.random_init("*i32", 3) == {"random": {"seed": 3, "min": 0, "max": 16}}
    assert marshal.random_init("*u1", 3) == {"random": {"seed": 3, "min": 0, "max": 1}}
    assert marshal.random_init("*i1", 3) == {"random": {"seed": 3, "min": 0, "max": 1}}


def test_hidden_args_from_llir() -> None:
    assert marshal.llir_param_count(ADD_KERNEL_LLIR, "add_kernel") == 6
    assert marshal.hidden_arg_count(ADD_KERNEL_LLIR, "add_kernel", 4) == 2
    # Commas inside attributes (LLVM 21+ prints captures(address, provenance)) and aggregate types.
    llir = ("define amdgpu_kernel void @k(ptr addrspace(1) captures(address, provenance) %0, {i32, i64} %1, "
            "<2 x float> %2, i32 %3) #0 {\n")
    assert marshal.llir_param_count(llir, "k") == 4
    assert marshal.hidden_arg_count(llir, "k", 3) == 1
    assert marshal.llir_param_count("define amdgpu_kernel void @empty() #0 {\n", "empty") == 0
    assert marshal.llir_param_count(ADD_KERNEL_LLIR, "add") is None  # another kernel's name
    assert marshal.hidden_arg_count(None, "add_kernel", 4) == marshal.HIDDEN_FALLBACK
    assert marshal.hidden_arg_count(ADD_KERNEL_LLIR, "add_kernel", 7) == marshal.HIDDEN_FALLBACK


def test_hidden_args_in_corpus_llir() -> None:
    cache = corpus_dir() / "triton-cache" / "cache"
    counts = {p.stem: marshal.llir_param_count(p.read_text(), p.stem) for p in cache.glob("*/*.llir")}
    assert counts == {"add_kernel": 6, "row_sum": 6}  # add_kernel(x, y, out, n), row_sum(x, out, rows, cols) + 2


def test_dump_hash_of_corpus_cache_folder() -> None:
    folder = corpus_dir() / "triton-cache" / "cache" / "W4SWFVWNUUMYUA4ED77IBFNKHWT7IIBH763TTAULQ4CNAT4VE5VQ"
    meta = json.loads((folder / "add_kernel.json").read_text())
    assert meta["hash"] == "b72562d6cda5198a03841ffe8095aa3da7f42027ffb739828b8704d04f95276b"
    assert marshal.dump_hash(meta["hash"]) == folder.name


def test_dump_hash() -> None:
    h = marshal.dump_hash("00" * 32)
    assert h == "A" * 52
    with pytest.raises(ValueError, match="not a hex digest"):
        marshal.dump_hash("xyz")


def test_json_safe() -> None:
    class Dtype:
        def __str__(self) -> str:
            return "fp16"

    assert marshal.json_safe(128) == 128 and marshal.json_safe(None) is None and marshal.json_safe(True) is True
    assert marshal.json_safe(float("inf")) == "inf"
    assert marshal.json_safe((1, Dtype())) == [1, "fp16"]
    with pytest.raises(ValueError):
        marshal.json_bytes({"x": float("nan")})


def test_atomic_write(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b.json"
    marshal.atomic_write(target, b"one")
    marshal.atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in target.parent.iterdir()] == ["b.json"]  # no temporary file left behind
    assert target.stat().st_mode & 0o777 == 0o666 & ~marshal._UMASK  # as open() would make it, not mkstemp's 0600


def test_atomic_write_failing_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "b.json"
    marshal.atomic_write(target, b"old")

    def refuse(src: str, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(marshal.os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        marshal.atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["b.json"]  # the temporary file is gone too
