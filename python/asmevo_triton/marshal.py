"""Pure conversions from a Triton launch, described with plain values, to asmevo launch specs and capture files.

Nothing here imports torch or triton: hook.py describes each argument with the classes below, so every rule of the
capture format (FORMAT.md) is tested without a GPU.
"""
from __future__ import annotations

import base64
import contextlib
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, Sequence

# Triton's pointer element types (its signature strings without the leading '*') -> asmevo buffer dtypes.
BUFFER_DTYPES: dict[str, str] = {
    "fp64": "f64", "fp32": "f32", "fp16": "f16", "bf16": "bf16",
    "fp8e4b8": "fp8e4m3fnuz", "fp8e5b16": "fp8e5m2fnuz", "fp8e4nv": "fp8e4m3", "fp8e5": "fp8e5m2",
    "i64": "i64", "u64": "u64", "i32": "i32", "u32": "u32", "i16": "i16", "u16": "u16", "i8": "i8", "u8": "u8",
    "u1": "u8", "i1": "u8",  # torch.bool, one byte per element: 'u1' in Triton 3.6, 'i1' before
}

# Triton's by-value types -> asmevo scalar types (the launch spec has no fp8 scalars). A bool is 'u1' in Triton 3.6's
# signatures ('i1' in older ones) and one byte in the AMD kernarg segment.
SCALAR_TYPES: dict[str, str] = {
    "i64": "i64", "u64": "u64", "i32": "i32", "u32": "u32", "i16": "i16", "u16": "u16", "i8": "i8", "u8": "u8",
    "fp64": "f64", "fp32": "f32", "fp16": "f16", "bf16": "bf16", "i1": "u8", "u1": "u8",
}

# asmevo dtype -> (bytes, is_float, is_signed); include/asmevo/launch/dtype.hpp's table.
DTYPES: dict[str, tuple[int, bool, bool]] = {
    "f64": (8, True, True), "f32": (4, True, True), "f16": (2, True, True), "bf16": (2, True, True),
    "fp8e4m3fnuz": (1, True, True), "fp8e5m2fnuz": (1, True, True), "fp8e4m3": (1, True, True),
    "fp8e5m2": (1, True, True), "i64": (8, False, True), "u64": (8, False, False), "i32": (4, False, True),
    "u32": (4, False, False), "i16": (2, False, True), "u16": (2, False, False), "i8": (1, False, True),
    "u8": (1, False, False),
}

# Float scalar types: (largest finite value, smallest magnitude that rounds to infinity). The launch spec refuses a
# finite value above the largest, so values that the device rounds to it are written as it, the rest as "inf".
_FLOAT_LIMITS: dict[str, tuple[float, float]] = {
    "f64": (1.7976931348623157e308, math.inf),
    "f32": (3.4028234663852886e38, 3.4028235677973366e38),   # (2 - 2^-23) 2^127; 2^128 (1 - 2^-25)
    "f16": (65504.0, 65520.0),
    "bf16": (3.3895313892515355e38, 3.3961775292304957e38),  # (2 - 2^-7) 2^127; 2^128 (1 - 2^-9)
}

# Triton's compile stages on AMD, in the order its override applies them; what <HASH>/ holds.
STAGES: tuple[str, ...] = ("ttir", "ttgir", "llir", "amdgcn", "hsaco")

# Triton 3.6 appends two pointers to every AMD kernel (global scratch, profile scratch); used when the kernel's LLVM
# IR is not at hand to count them.
HIDDEN_FALLBACK = 2

FORMAT_NAME = "asmevo-triton-capture"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Buffer:
    """A pointer argument backed by a tensor; the capture holds its bytes from `address` to its storage's end."""
    name: str
    ttype: str     # Triton's signature type, e.g. '*fp32'
    nbytes: int    # bytes from data_ptr to the end of the storage: what data/*.bin hold
    address: int   # data_ptr
    extent: int    # bytes from data_ptr to the end of the tensor's last element (0 for an empty tensor)
    device: str    # 'cuda:0', 'cpu', ...


@dataclass(frozen=True)
class Scalar:
    """A by-value argument."""
    name: str
    ttype: str
    value: Any


@dataclass(frozen=True)
class Opaque:
    """An argument a launch spec cannot express; `what` completes "argument N (name) is ..."."""
    name: str
    ttype: str
    what: str


Arg = Buffer | Scalar | Opaque


def buffer_dtype(ttype: str) -> str | None:
    """asmevo's dtype for a Triton pointer type ('*fp32', or '*kfp32' for a const pointer), or None."""
    if not ttype.startswith("*"):
        return None
    return BUFFER_DTYPES.get(ttype[2:] if ttype.startswith("*k") else ttype[1:])


def scalar_json(arg: Scalar) -> tuple[dict | None, str | None]:
    """The launch spec's {"scalar": ...} for `arg`, or None and why it cannot be written."""
    stype = SCALAR_TYPES.get(arg.ttype)
    if stype is None:
        return None, f"is a scalar of Triton type {arg.ttype}, which the launch spec has no scalar type for"
    size, is_float, signed = DTYPES[stype]
    if is_float:
        try:
            v = float(arg.value)
        except (TypeError, ValueError):
            return None, f"is {arg.value!r}, not a number"
        largest, overflow = _FLOAT_LIMITS[stype]
        value: Any = v
        if math.isnan(v):
            value = "nan"
        elif abs(v) >= overflow:
            value = "inf" if v > 0 else "-inf"
        elif abs(v) > largest:
            value = math.copysign(largest, v)
        return {"scalar": {"type": stype, "value": value}}, None
    try:
        n = int(arg.value)
    except (TypeError, ValueError):
        return None, f"is {arg.value!r}, not an integer"
    lo, hi = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if signed else (0, (1 << (8 * size)) - 1)
    if not lo <= n <= hi:
        return None, f"is {n}, outside the range of {stype}"
    return {"scalar": {"type": stype, "value": n}}, None


def _overlap(a_start: int, a_len: int, b_start: int, b_len: int) -> bool:
    return a_len > 0 and b_len > 0 and a_start < b_start + b_len and b_start < a_start + a_len


def arg_problems(args: Sequence[Arg], launch_device: str, changed: Sequence[bool] | None = None) -> list[str]:
    """Why this launch cannot be written as a launch spec (empty when it can), one reason per problem.

    Each buffer becomes its own allocation, so two arguments may share memory only when the launch spec still
    describes the launch: their own elements must be disjoint, and (with `changed`, known after the launch) the
    launch may not have written the higher one, whose bytes the lower one's capture also holds.
    """
    problems: list[str] = []
    for i, a in enumerate(args):
        who = f"argument {i} ({a.name})"
        if isinstance(a, Opaque):
            problems.append(f"{who} is {a.what}")
        elif isinstance(a, Scalar):
            why = scalar_json(a)[1]
            if why:
                problems.append(f"{who} {why}")
        elif buffer_dtype(a.ttype) is None:
            problems.append(f"{who} has pointer type {a.ttype}, which has no asmevo dtype")
        elif a.device != launch_device:
            where = "a CPU tensor" if a.device == "cpu" else f"on {a.device}"
            problems.append(f"{who} is {where}, the launch ran on {launch_device}")
    buffers = [(i, a) for i, a in enumerate(args) if isinstance(a, Buffer)]
    for (i, a), (j, b) in combinations(buffers, 2):
        if not _overlap(a.address, a.nbytes, b.address, b.nbytes):
            continue
        pair = f"arguments {i} ({a.name}) and {j} ({b.name})"
        if _overlap(a.address, a.extent, b.address, b.extent):
            problems.append(f"{pair} overlap in memory")
            continue
        if changed is None:
            continue
        top = max(a.address, b.address)
        written = [k for k, x in ((i, a), (j, b)) if x.address == top and changed[k]]
        if written:
            problems.append(f"{pair} share one allocation and the launch wrote argument {written[0]}, whose bytes "
                            f"the other argument's capture (data_ptr to the storage's end) also holds")
    return problems


def changed_buffers(pre: Sequence[bytes | None], post: Sequence[bytes | None]) -> list[bool]:
    """Per argument: whether its bytes differ after the launch (None marks an argument that is no buffer)."""
    return [a is not None and b is not None and a != b for a, b in zip(pre, post, strict=True)]


def launch_key(grid: Sequence[int], args: Sequence[Arg]) -> tuple:
    """What makes two launches of one kernel distinct: the grid, the scalar values, the buffers' types and sizes."""
    parts = []
    for a in args:
        if isinstance(a, Buffer):
            parts.append(("buffer", a.ttype, a.nbytes))
        elif isinstance(a, Scalar):
            parts.append(("scalar", a.ttype, repr(a.value)))
        else:
            parts.append(("opaque", a.ttype))
    return tuple(grid3(grid)), tuple(parts)


def grid3(grid: Sequence[int]) -> list[int]:
    """Triton's grid (1 to 3 workgroup counts) as the launch spec's three."""
    dims = [int(g) for g in grid]
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"a grid has 1 to 3 dimensions, got {len(dims)}: {list(grid)}")
    return dims + [1] * (3 - len(dims))


def random_init(ttype: str, seed: int) -> dict:
    """--no-data's buffer init: uniform in [-1, 1] for floats, [0, 16] for integers ([0, 1] for bools)."""
    dtype = buffer_dtype(ttype)
    if dtype is None:
        raise ValueError(f"no asmevo dtype for Triton type {ttype}")
    if DTYPES[dtype][1]:
        lo, hi = -1, 1
    else:
        lo, hi = 0, (1 if ttype.endswith(("u1", "i1")) else 16)
    return {"random": {"seed": seed, "min": lo, "max": hi}}


def build_launch_spec(kernel: str, grid: Sequence[int], block_x: int, args: Sequence[Arg], hidden: int,
                      outputs: Sequence[int], inits: dict[int, dict], dynamic_lds: int | None = None) -> dict:
    """One launch spec (DESIGN.md "Launch spec"): `inits` gives each buffer's init by argument index.

    `dynamic_lds`: the shared memory the AMD code object asks for at launch (Triton's metadata.shared; Triton
    declares all its LDS as dynamic), so that K0 and K1 run and are timed at the occupancy the program gets; None
    leaves it to asmevo (the whole 64 KiB)."""
    spec_args: list[dict] = []
    for i, a in enumerate(args):
        if isinstance(a, Buffer):
            dtype = buffer_dtype(a.ttype)
            if dtype is None:
                raise ValueError(f"argument {i} ({a.name}): no asmevo dtype for {a.ttype}")
            spec_args.append({"buffer": {"dtype": dtype, "count": a.nbytes // DTYPES[dtype][0], "init": inits[i]}})
        elif isinstance(a, Scalar):
            entry, why = scalar_json(a)
            if entry is None:
                raise ValueError(f"argument {i} ({a.name}) {why}")
            spec_args.append(entry)
        else:
            raise ValueError(f"argument {i} ({a.name}) is {a.what}")
    spec_args += [{"null": True}] * hidden
    spec = {"kernel": kernel, "grid": grid3(grid), "block": [block_x, 1, 1], "args": spec_args}
    # A launch that changed no buffer (its output already held the result) names no output: asmevo then compares
    # every buffer, so that a K1 that drops its stores still fails on it.
    if outputs:
        spec["outputs"] = list(outputs)
    if dynamic_lds is not None:
        spec["dynamic_lds"] = int(dynamic_lds)
    return spec


def dump_hash(hexdigest: str) -> str:
    """Triton's dump and override folder name for ASTSource.hash(): RFC 4648 base32, upper case, no padding."""
    try:
        raw = bytes.fromhex(hexdigest)
    except ValueError:
        raise ValueError(f"not a hex digest: {hexdigest!r}") from None
    return base64.b32encode(raw).decode("ascii").rstrip("=")


def llir_param_count(llir: str, kernel: str) -> int | None:
    """How many parameters `define amdgpu_kernel void @kernel(...)` declares in LLVM IR text, or None if absent.

    Parameters are split at top-level commas only: attributes such as captures(address, provenance) hold commas.
    """
    m = re.search(r'^define\b[^@\n]*@"?' + re.escape(kernel) + r'"?\(', llir, re.MULTILINE)
    if m is None:
        return None
    depth, count, seen = 0, 1, False
    for ch in llir[m.end():]:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            if depth == 0:
                return count if seen else 0
            depth -= 1
        elif ch == "," and depth == 0:
            count += 1
        elif ch == "\n":
            return None
        if not ch.isspace():
            seen = True
    return None


def hidden_arg_count(llir: str | None, kernel: str, explicit: int) -> int:
    """Trailing pointers Triton added to the kernel's `explicit` arguments, counted in its LLVM IR."""
    n = llir_param_count(llir, kernel) if llir else None
    if n is None or n < explicit:
        return HIDDEN_FALLBACK  # no usable IR: Triton 3.6's two (global scratch, profile scratch)
    return n - explicit


def json_safe(value: Any) -> Any:
    """A constexpr's value as JSON: numbers, strings, booleans and null as themselves, anything else by str()."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return str(value)


def json_bytes(obj: Any) -> bytes:
    """JSON as the capture writes it (strict: no NaN literals, which other readers refuse)."""
    return (json.dumps(obj, indent=1, allow_nan=False) + "\n").encode("utf-8")


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once, at import: os.umask can only be read by setting it, which races other threads


def atomic_write(path: Path, data: bytes) -> None:
    """Writes `path` through a temporary file in its folder and os.replace, so no reader sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file 0600; a capture folder is copied to other machines and users, so give it the mode
        # a plain open() would (0666 less the umask), and make the bytes durable before the rename publishes them.
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
