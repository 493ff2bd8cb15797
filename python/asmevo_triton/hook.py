"""The wrapper around triton.runtime.jit.JITFunction.run that captures launches (FORMAT.md).

Only this module and amd.py touch torch and triton, and only once the program launches a kernel. Capturing must not
change what the program computes: every capture step is guarded, and whatever goes wrong becomes a not_captured
entry with a warning, never an exception in the program. Launches themselves always go through Triton unchanged
(a callable grid is wrapped only to see the grid Triton computed).
"""
from __future__ import annotations

import functools
import inspect
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

from . import amd, marshal
from .marshal import Arg, Buffer, Opaque, Scalar
from .recorder import Capture, KernelInfo, LaunchMemo


@dataclass
class _Tensor:
    """A tensor argument as seen before the launch."""
    tensor: Any
    nbytes: int    # data_ptr to the end of its storage
    address: int
    extent: int    # data_ptr to the end of its last element
    device: str


@dataclass
class _Plan:
    values: dict[str, Any]       # every parameter -> its value for this launch (defaults applied)
    spec_key: Hashable
    value_key: Hashable
    snap: bool                   # whether this launch is snapshotted
    tensors: dict[str, _Tensor | str] = field(default_factory=dict)  # name -> tensor, or why it cannot be copied
    pre: dict[str, bytes] = field(default_factory=dict)


class Hook:
    """Installs itself on JITFunction.run and feeds each captured launch to a recorder.Capture."""

    def __init__(self, capture: Capture, amd_target: str | None) -> None:
        self.capture = capture
        self.amd_target = amd_target
        self.memo = LaunchMemo()
        self._lock = threading.RLock()
        self._restore: Callable[[], None] | None = None

    def install(self) -> bool:
        """Wraps JITFunction.run; False (after a warning) when Triton cannot be imported."""
        try:
            from triton.runtime.jit import JITFunction
        except Exception as e:  # noqa: BLE001 - any import failure means there is nothing to hook
            self.capture.warn(f"asmevo_triton: warning: triton could not be imported ({type(e).__name__}: {e}); "
                              "nothing will be captured")
            return False
        original = JITFunction.run
        hook = self

        @functools.wraps(original)
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            return hook.launch(original, self, args, kwargs)

        JITFunction.run = run
        self._restore = lambda: setattr(JITFunction, "run", original)
        return True

    def uninstall(self) -> None:
        if self._restore is not None:
            self._restore()
            self._restore = None

    def launch(self, original: Callable[..., Any], fn: Any, args: tuple, kwargs: dict) -> Any:
        """One call of JITFunction.run: snapshot, launch through Triton, record."""
        if kwargs.get("warmup", False):
            return original(fn, *args, **kwargs)
        fname = getattr(fn, "__name__", "?")
        with self._lock:
            try:
                plan = self._before(fn, args, kwargs)
            except Exception as e:  # noqa: BLE001 - never break the program
                self.capture.note(fname, f"internal error before the launch: {type(e).__name__}: {e}")
                plan = None
        if plan is None:
            return original(fn, *args, **kwargs)
        grids: list[Any] = []
        call_kwargs = kwargs
        grid = kwargs.get("grid")
        if plan.snap and callable(grid):
            def recording_grid(meta: Any) -> Any:
                g = grid(meta)
                grids.append(g)
                return g
            call_kwargs = dict(kwargs, grid=recording_grid)
        kernel = original(fn, *args, **call_kwargs)
        with self._lock:
            try:
                self._after(fn, plan, kernel, grids[-1] if grids else grid)
            except Exception as e:  # noqa: BLE001 - never break the program
                self.capture.note(fname, f"internal error after the launch: {type(e).__name__}: {e}")
        return kernel

    def _before(self, fn: Any, args: tuple, kwargs: dict) -> _Plan | None:
        import torch

        if torch.cuda.is_current_stream_capturing():
            self.capture.note(getattr(fn, "__name__", "?"),
                              "launched while a CUDA graph was being captured, when its buffers cannot be copied")
            return None
        values = _bind(fn, args, kwargs)
        if values is None:
            return None  # Triton will report the bad call
        options = tuple(sorted((k, _hashable(v)) for k, v in kwargs.items()
                               if k not in values and k not in ("grid", "warmup")))
        spec_key, value_key = _keys(fn, values, options)
        plan = _Plan(values, spec_key, value_key, snap=not self.memo.skip(spec_key, value_key, self.capture.full))
        if not plan.snap:
            return plan
        torch.cuda.synchronize()
        for name, v in values.items():
            if isinstance(v, torch.Tensor):
                try:
                    t = _describe(v)
                    plan.pre[name] = _snapshot(t)
                    plan.tensors[name] = t
                except Exception as e:  # noqa: BLE001 - e.g. a tensor without storage
                    plan.tensors[name] = f"a tensor whose bytes cannot be copied ({type(e).__name__}: {e})"
        return plan

    def _after(self, fn: Any, plan: _Plan, kernel: Any, grid: Any) -> None:
        if kernel is None:
            return  # a jit_cache_hook told Triton not to compile or launch
        import torch

        run_hash, name = kernel.metadata.hash, kernel.metadata.name
        guessed = self.memo.learn(plan.spec_key, plan.value_key, run_hash)
        if not plan.snap:
            if not guessed and not self.capture.full(run_hash):
                self.capture.note(name, "one launch was not captured: launches with such arguments had run "
                                        "another kernel, so it was not copied")
            return
        torch.cuda.synchronize()
        args: list[Arg] = []
        pre: list[bytes | None] = []
        post: list[bytes | None] = []
        for pname, ttype in kernel.src.signature.items():
            if ttype == "constexpr":
                continue
            arg = _arg(pname, ttype, plan.values.get(pname), plan.tensors.get(pname))
            args.append(arg)
            if isinstance(arg, Buffer):
                pre.append(plan.pre[pname])
                post.append(_snapshot(plan.tensors[pname]))
            else:
                pre.append(None)
                post.append(None)
        device = f"cuda:{torch.cuda.current_device()}"
        small = [i for i, pname in enumerate(kernel.src.signature)
                 if isinstance(t := plan.tensors.get(pname), _Tensor)
                 and t.tensor.untyped_storage().nbytes() <= amd.MAX_POINTER_RANGE_BYTES]
        self.capture.record(run_hash, name, grid, args, pre, post, device,
                            lambda: self._kernel_info(fn, kernel, len(args), small))

    def _kernel_info(self, fn: Any, kernel: Any, explicit: int, small_pointers: list[int]) -> KernelInfo | None:
        """The kernel's stored form: its own AMD code object, an AMD recompile, or none (noted).

        `small_pointers` (parameter indexes of tensors under 2 GiB) give a recompile the AMD backend's
        specialization of them (amd.amd_attrs)."""
        md, src = kernel.metadata, kernel.src
        name = md.name
        try:
            names = list(src.signature)
            signature = {k: str(v) for k, v in src.signature.items()}
            constexprs = {_path_name(names, path): v for path, v in src.constants.items()}
            backend = getattr(md.target, "backend", "an unknown backend")
            common = {"num_warps": md.num_warps, "signature": signature, "constexprs": constexprs}
            if backend == "hip":
                stages = amd.stage_files(kernel.asm)
                warp = getattr(md, "warp_size", None) or getattr(md.target, "warp_size", amd.AMD_WARP_SIZE)
                return KernelInfo(name=name, dump_hash=marshal.dump_hash(src.hash()), cache_hash=md.hash,
                                  source="triton", stages=stages, warp_size=warp, shared=getattr(md, "shared", None),
                                  hidden_args=marshal.hidden_arg_count(stages.get("llir"), name, explicit), **common)
            if self.amd_target is None:
                self.capture.note(name, f"ran on {backend}; pass --amd-target gfx942 to recompile it for AMD")
                return KernelInfo(name=name, dump_hash=marshal.dump_hash(src.hash()), cache_hash=md.hash,
                                  source=None, stages={}, hidden_args=marshal.HIDDEN_FALLBACK, **common)
            attrs = amd.amd_attrs(src.attrs, small_pointers if amd.buffer_ops_enabled() else [])
            build = amd.amd_compile(fn, src.signature, src.constants, attrs, md.num_warps, self.amd_target)
            return KernelInfo(name=build.name, dump_hash=build.dump_hash, cache_hash=build.cache_hash,
                              source="recompiled", stages=build.stages, warp_size=build.warp_size, shared=build.shared,
                              hidden_args=marshal.hidden_arg_count(build.stages.get("llir"), build.name, explicit),
                              **common)
        except Exception as e:  # noqa: BLE001 - a compile error or a Triton without these attributes
            what = f"the AMD compile for {self.amd_target} failed" if self.amd_target else "reading the kernel failed"
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            self.capture.note(name, f"{what}: {type(e).__name__}: {first}")
            return None


def _bind(fn: Any, args: tuple, kwargs: dict) -> dict[str, Any] | None:
    """Every parameter's value for this call, defaults applied (what Triton's binder computes), or None."""
    sig = getattr(fn, "signature", None)
    if not isinstance(sig, inspect.Signature):
        sig = inspect.signature(fn.fn)
    try:
        bound = sig.bind(*args, **{k: v for k, v in kwargs.items() if k in sig.parameters})
    except TypeError:
        return None
    bound.apply_defaults()
    return dict(bound.arguments)


def _hashable(v: Any) -> Hashable:
    try:
        hash(v)
        return type(v).__name__, v
    except TypeError:
        return type(v).__name__, repr(v)


def _keys(fn: Any, values: dict[str, Any], options: tuple) -> tuple[Hashable, Hashable]:
    """(specialization key, value key) of a launch for LaunchMemo.

    The specialization key holds what Triton specializes a kernel on (constexpr values, int == 1, divisibility by
    16, integer width, pointer alignment, dtypes, options); the value key holds every value, tensors by dtype, size
    and device.
    """
    import torch

    constexprs = {p.name for p in getattr(fn, "params", ()) if getattr(p, "is_constexpr", False)}
    spec: list[Hashable] = []
    value: list[Hashable] = []
    for name, v in values.items():
        if isinstance(v, torch.Tensor):
            nbytes = _storage_bytes(v)
            spec.append(("tensor", str(v.dtype), v.data_ptr() % 16 == 0, nbytes < 2**31, str(v.device)))
            value.append(("tensor", str(v.dtype), nbytes, str(v.device)))
        elif name in constexprs:
            spec.append(_hashable(v))
            value.append(_hashable(v))
        elif isinstance(v, bool):
            spec.append(("bool",))
            value.append(("bool", v))
        elif isinstance(v, int):
            spec.append(("int", v == 1, v % 16 == 0, -2**31 <= v < 2**31, v >= 2**63))
            value.append(("int", v))
        elif isinstance(v, float):
            spec.append(("float",))
            value.append(("float", repr(v)))
        else:
            spec.append(_hashable(v))
            value.append(_hashable(v))
    return (id(fn), options, tuple(spec)), (id(fn), options, tuple(value))


def _storage_bytes(t: Any) -> int:
    return max(t.untyped_storage().nbytes() - t.storage_offset() * t.element_size(), 0)


def _describe(t: Any) -> _Tensor:
    size = t.element_size()
    extent = 0 if t.numel() == 0 else (1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))) * size
    return _Tensor(t, _storage_bytes(t), t.data_ptr(), extent, str(t.device))


def _snapshot(t: _Tensor) -> bytes:
    """The tensor's bytes from data_ptr to its storage's end, copied to the host."""
    import torch

    if t.nbytes == 0:
        return b""
    x = t.tensor
    flat = torch.empty(0, dtype=torch.uint8, device=x.device)
    flat.set_(x.untyped_storage(), x.storage_offset() * x.element_size(), (t.nbytes,), (1,))
    host = flat.cpu()
    try:
        return host.numpy().tobytes()
    except Exception:  # noqa: BLE001 - torch without numpy
        return bytes(host.tolist())


def _arg(name: str, ttype: Any, value: Any, tensor: _Tensor | str | None) -> Arg:
    """One non-constexpr parameter as marshal describes it."""
    if not isinstance(ttype, str):
        return Opaque(name, str(ttype), f"a tuple ({ttype}), which the launch spec cannot express")
    if ttype == "nvTmaDesc" or ttype.startswith("tensordesc"):
        return Opaque(name, ttype, f"a TMA descriptor ({ttype})")
    if ttype.startswith("*"):
        if isinstance(tensor, _Tensor):
            return Buffer(name, ttype, tensor.nbytes, tensor.address, tensor.extent, tensor.device)
        if isinstance(tensor, str):
            return Opaque(name, ttype, tensor)
        return Opaque(name, ttype, f"a {type(value).__name__} (not a torch tensor), whose memory cannot be copied")
    return Scalar(name, ttype, value)


def _path_name(names: list[str], path: Any) -> str:
    """A constexpr's name from Triton's path tuple: (2,) -> names[2], (2, 0) -> 'names[2][0]'."""
    path = tuple(path) if isinstance(path, (tuple, list)) else (path,)
    head = path[0]
    base = names[head] if isinstance(head, int) and 0 <= head < len(names) else str(head)
    return base + "".join(f"[{p}]" for p in path[1:])
