"""Compiling a Triton kernel for an AMD target from any machine (the --amd-target path of a non-AMD run).

triton.compile reads TRITON_KERNEL_OVERRIDE / TRITON_OVERRIDE_DIR itself, so under an override tree the code object
returned here is the overriding one: the capture records its sha256.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from . import marshal

# Triton compiles gfx9 kernels for wave64.
AMD_WARP_SIZE = 64

# Triton's AMD backend (3.6: HIPBackend.get_tensor_specialization) marks a pointer whose tensor's storage holds at
# most 2^31 - 1 bytes with this attribute when AMDGCN_USE_BUFFER_OPS is on (its default), and then emits buffer
# loads and stores; a run on another backend does not. The attribute is part of ASTSource.hash(), so a recompile
# needs it to produce the code, and the dump hash, that an AMD run of the program would.
POINTER_RANGE_ATTR = ("tt.pointer_range", 32)
MAX_POINTER_RANGE_BYTES = 2**31 - 1


@dataclass(frozen=True)
class AmdBuild:
    """An AMD compile's results, in the terms the capture stores."""
    name: str                        # the kernel's symbol
    dump_hash: str                   # the dump/override folder name of this compile's ASTSource
    cache_hash: str                  # Triton's cache key of the code object
    stages: dict[str, str | bytes]   # marshal.STAGES extension -> text ('hsaco': bytes)
    warp_size: int
    shared: int | None = None        # LDS bytes the code object asks for at launch (metadata.shared)


def stage_files(asm: Any) -> dict[str, str | bytes]:
    """The stage outputs of a compiled kernel's `.asm` that the capture stores."""
    return {ext: asm[ext] for ext in marshal.STAGES if ext in asm}


def amd_attrs(attrs: dict, small_pointers: Iterable[int]) -> dict:
    """The attrs an AMD run would have from a non-AMD run's `attrs` (path tuple -> [[name, value], ...]), given the
    parameter indexes of the pointers whose tensor's storage is small enough for buffer operations.

    Only parameters that have an entry are specialized (one marked do_not_specialize has none, on any backend).
    """
    out = {k: [list(a) for a in v] for k, v in attrs.items()}
    for i in small_pointers:
        entry = out.get((i,))
        if entry is not None and list(POINTER_RANGE_ATTR) not in entry:
            entry.append(list(POINTER_RANGE_ATTR))
    return out


def buffer_ops_enabled() -> bool:
    """Whether Triton's AMD backend would specialize pointers for buffer operations (AMDGCN_USE_BUFFER_OPS)."""
    try:
        from triton import knobs
        return bool(knobs.amd.use_buffer_ops)
    except Exception:  # noqa: BLE001 - a Triton without the knob has no such specialization
        return False


def amd_compile(jitfn: Any, signature: dict, constants: dict, attrs: dict, num_warps: int, arch: str) -> AmdBuild:
    """Compiles `jitfn` as specialized by a launch (its ASTSource's signature, constants and attrs) for `arch`."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    src = ASTSource(jitfn, dict(signature), constexprs=dict(constants), attrs=dict(attrs))
    kernel = triton.compile(src, target=GPUTarget("hip", arch, AMD_WARP_SIZE), options={"num_warps": num_warps})
    stages = stage_files(kernel.asm)
    if "hsaco" not in stages:
        raise RuntimeError(f"Triton's compile for {arch} produced no hsaco (stages: {sorted(kernel.asm)})")
    return AmdBuild(name=kernel.metadata.name, dump_hash=marshal.dump_hash(src.hash()), cache_hash=kernel.metadata.hash,
                    stages=stages, warp_size=AMD_WARP_SIZE, shared=getattr(kernel.metadata, "shared", None))
