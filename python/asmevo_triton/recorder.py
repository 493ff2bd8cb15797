"""The capture's state and its folder: which kernels and launches were recorded, what could not be and why, and the
files FORMAT.md describes. Pure Python: hook.py hands in plain descriptions (marshal.Buffer, ...) and bytes, so the
decisions (what is distinct, what is an output, what cannot be expressed) are tested without a GPU.
"""
from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

from . import marshal
from .marshal import Arg, Buffer, Opaque, Scalar


@dataclass(frozen=True)
class KernelInfo:
    """What the capture stores once per kernel: its identity, its AMD code object and stage files."""
    name: str                        # the kernel's symbol
    dump_hash: str                   # Triton's dump/override folder name (marshal.dump_hash of ASTSource.hash())
    cache_hash: str                  # Triton's cache key of the code object stored
    num_warps: int
    signature: dict[str, str]        # every parameter -> Triton type ('constexpr' included)
    constexprs: dict[str, Any]
    source: str | None               # "triton" (ran on AMD), "recompiled", or None: no AMD code object
    stages: dict[str, str | bytes]   # marshal.STAGES extension -> text, or bytes for 'hsaco'
    hidden_args: int                 # trailing pointers Triton appended
    warp_size: int = 64              # gfx9: wave64
    shared: int | None = None        # bytes of LDS the AMD code object asks for at launch (Triton's metadata.shared)


def _by_type(a: Arg) -> bool:
    """Whether argument `a` is inexpressible whatever its value (its type), rather than for this launch's values."""
    if isinstance(a, Opaque):
        return True
    if isinstance(a, Scalar):
        return bool(marshal.scalar_json(a)[1])
    return marshal.buffer_dtype(a.ttype) is None


@dataclass
class _Kernel:
    info: KernelInfo
    folder: Path
    keys: set[tuple] = field(default_factory=set)
    specs: list[dict] = field(default_factory=list)
    launches: list[dict] = field(default_factory=list)
    hsaco_sha256: str | None = None


def _warn(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class Capture:
    """Records launches into `out_dir`, at most `max_per_kernel` distinct ones per compiled kernel.

    Kernels are told apart by the cache hash of the code object that ran (`run_hash`); a kernel's files go under
    its dump hash, the folder name Triton's override reads.
    """

    def __init__(self, out_dir: Path, program: Sequence[str], *, amd_target: str | None = None,
                 no_data: bool = False, seed: int = 0, max_per_kernel: int = 4,
                 warn: Callable[[str], None] = _warn) -> None:
        if max_per_kernel < 1:
            raise ValueError(f"--max-per-kernel must be at least 1, got {max_per_kernel}")
        self.out_dir = Path(out_dir)
        self.program = list(program)
        self.amd_target = amd_target
        self.no_data = no_data
        self.seed = seed
        self.max_per_kernel = max_per_kernel
        self._warn = warn
        self._kernels: dict[str, _Kernel] = {}
        self._rejected: set[str] = set()
        self._not_captured: list[dict[str, str]] = []
        self._ambiguous: list[dict[str, str]] = []  # captured kernels whose dump hash another variant shares
        self._sizes: dict[Path, int] = {}

    def warn(self, line: str) -> None:
        """One warning line on stderr (or wherever the caller's `warn` sends it)."""
        self._warn(line)

    def note(self, kernel: str, reason: str) -> None:
        """Lists `kernel` in not_captured with `reason` (once) and warns on stderr."""
        entry = {"kernel": kernel, "reason": reason}
        if entry not in self._not_captured:
            self._not_captured.append(entry)
            self.warn(f"asmevo_triton: warning: {kernel}: not captured: {reason}")

    def full(self, run_hash: str) -> bool:
        """Whether no further launch of this kernel would be recorded."""
        k = self._kernels.get(run_hash)
        return run_hash in self._rejected or (k is not None and len(k.specs) >= self.max_per_kernel)

    def record(self, run_hash: str, name: str, grid: Sequence[int], args: Sequence[Arg],
               pre: Sequence[bytes | None], post: Sequence[bytes | None], launch_device: str,
               kernel_info: Callable[[], KernelInfo | None]) -> bool:
        """Records one launch, given each argument's bytes before and after it (None for non-buffers).

        `kernel_info` is called on the kernel's first recorded launch only (it may compile for AMD); None from it
        means the kernel cannot be captured, and it has said why through note(). Returns whether it was recorded.
        """
        if self.full(run_hash):
            return False
        if any(int(g) == 0 for g in grid):
            return False  # a launch of no workgroup runs nothing (Triton skips it too)
        changed = marshal.changed_buffers(pre, post)
        problems = marshal.arg_problems(args, launch_device, changed)
        for p in problems:
            self.note(name, p)
        if problems:
            if any(_by_type(a) for a in args):
                # The kernel's signature itself cannot be written (a descriptor, a type without an asmevo dtype):
                # no later launch can be, so none is copied again.
                self._rejected.add(run_hash)
            return False
        key = marshal.launch_key(grid, args)
        k = self._kernels.get(run_hash)
        if k is not None and key in k.keys:
            return False
        if k is None:
            k = self._add_kernel(run_hash, kernel_info)
            if k is None:
                return False
        self._write_launch(k, key, grid, args, pre, post, changed)
        return True

    def _add_kernel(self, run_hash: str, kernel_info: Callable[[], KernelInfo | None]) -> _Kernel | None:
        info = kernel_info()
        if info is None:
            self._rejected.add(run_hash)
            return None
        for other in self._kernels.values():
            if other.info.dump_hash == info.dump_hash and other.info.name == info.name:
                self._rejected.add(run_hash)
                why = (f"another compiled variant (cache hash {other.info.cache_hash}) has the same dump hash "
                       f"{info.dump_hash}: they differ in options such as num_warps or num_stages, which Triton's "
                       f"override folder cannot tell apart")
                self.note(info.name, why)
                # The variant captured first stays in the folder, but an override written for it would be loaded
                # for both: capture.json says so, and asmevo optimize-dir leaves such a kernel out.
                entry = {"kernel": info.name, "hash": info.dump_hash, "reason": why}
                if entry not in self._ambiguous:
                    self._ambiguous.append(entry)
                return None
        k = _Kernel(info, self.out_dir / info.dump_hash)
        for ext in marshal.STAGES:
            content = info.stages.get(ext)
            if content is None:
                continue
            data = content if isinstance(content, bytes) else content.encode("utf-8")
            self._write(k.folder / f"{info.name}.{ext}", data)
            if ext == "hsaco":
                k.hsaco_sha256 = hashlib.sha256(data).hexdigest()
        self._kernels[run_hash] = k
        return k

    def _write_launch(self, k: _Kernel, key: tuple, grid: Sequence[int], args: Sequence[Arg],
                      pre: Sequence[bytes | None], post: Sequence[bytes | None], changed: Sequence[bool]) -> None:
        i = len(k.specs)
        outputs = [j for j, c in enumerate(changed) if c]
        inits: dict[int, dict] = {}
        references: dict[str, str] = {}
        for j, a in enumerate(args):
            if not isinstance(a, Buffer):
                continue
            if self.no_data:
                inits[j] = marshal.random_init(a.ttype, self.seed + j)
                continue
            rel = f"data/l{i}.arg{j}.bin"
            self._write(k.folder / rel, pre[j] or b"")
            inits[j] = {"file": rel}
            if changed[j]:
                ref = f"data/l{i}.arg{j}.ref.bin"
                self._write(k.folder / ref, post[j] or b"")
                references[str(j)] = ref
        info = k.info
        k.specs.append(marshal.build_launch_spec(info.name, grid, info.num_warps * info.warp_size, args,
                                                 info.hidden_args, outputs, inits, dynamic_lds=info.shared))
        k.launches.append({"grid": marshal.grid3(grid), "outputs": outputs, "references": references})
        k.keys.add(key)
        self._write(k.folder / f"{info.name}.launch.json", marshal.json_bytes(k.specs))
        self._write(k.folder / f"{info.name}.capture.json", marshal.json_bytes({
            "kernel": info.name, "hash": info.dump_hash, "cache_hash": info.cache_hash, "num_warps": info.num_warps,
            "signature": info.signature, "constexprs": {n: marshal.json_safe(v) for n, v in info.constexprs.items()},
            "hsaco_sha256": k.hsaco_sha256, "launches": k.launches}))

    def _write(self, path: Path, data: bytes) -> None:
        marshal.atomic_write(path, data)
        self._sizes[path] = len(data)

    def captured(self) -> list[dict]:
        """capture.json's "kernels": those with an AMD code object and at least one launch."""
        return [{"kernel": k.info.name, "hash": k.info.dump_hash, "launches": len(k.specs), "source": k.info.source}
                for k in self._kernels.values() if k.info.source is not None and k.specs]

    def finish(self) -> str:
        """Writes capture.json and returns the one summary line for stderr."""
        kernels = self.captured()
        written = sum(self._sizes.values())
        self._write(self.out_dir / "capture.json", marshal.json_bytes({
            "format": marshal.FORMAT_NAME, "version": marshal.FORMAT_VERSION, "program": self.program,
            "amd_target": self.amd_target, "no_data": self.no_data, "kernels": kernels,
            "not_captured": self._not_captured, "ambiguous": self._ambiguous, "bytes_written": written}))
        launches = sum(k["launches"] for k in kernels)
        return (f"asmevo_triton: captured {len(kernels)} kernel{'s' * (len(kernels) != 1)}, {launches} "
                f"launch{'es' * (launches != 1)}, {len(self._not_captured)} not captured, "
                f"{written / 1e6:.1f} MB written to {self.out_dir}")


class LaunchMemo:
    """Guesses, before a launch, which compiled kernel it will run, so that launches that cannot add anything (their
    kernel is full, or the same arguments were seen) skip the snapshots, two copies of every tensor.

    The hook keys a guess by a specialization key of its own (Triton's is internal); when one key turns out to
    lead to two kernels, it stops guessing for that key, so a wrong guess costs at most the launch it happened on.
    """

    def __init__(self) -> None:
        self._kernel: dict[Hashable, str | None] = {}
        self._seen: set[tuple[str, Hashable]] = set()

    def skip(self, spec_key: Hashable, value_key: Hashable, full: Callable[[str], bool]) -> bool:
        """Whether a launch with these keys can go without snapshots."""
        run_hash = self._kernel.get(spec_key)
        return run_hash is not None and (full(run_hash) or (run_hash, value_key) in self._seen)

    def learn(self, spec_key: Hashable, value_key: Hashable, run_hash: str) -> bool:
        """Notes the kernel a launch ran; returns False when the key had guessed another one."""
        known = self._kernel.get(spec_key, run_hash)
        self._kernel[spec_key] = run_hash if known == run_hash else None
        self._seen.add((run_hash, value_key))
        return known == run_hash
