"""`python -m asmevo_triton capture --out DIR [options] -- python program.py ARGS...`

Runs the program in this interpreter (as `python program.py` or `python -m module` would) with the launch hook
installed, then writes DIR/capture.json and one summary line on stderr, also when the program raises or exits;
the program's exit status and exceptions pass through unchanged.
"""
from __future__ import annotations

import argparse
import os
import re
import runpy
import sys
import tempfile
from pathlib import Path

from .hook import Hook
from .recorder import Capture

USAGE = ("python -m asmevo_triton capture --out DIR [--max-per-kernel N] [--no-data] [--seed S] "
         "[--amd-target ARCH] -- python program.py ARGS...")


def _positive(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return n


def _seed(text: str) -> int:
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text}")
    return n


# The targets asmevo reads and rebuilds (all wave64, which amd.py compiles for).
AMD_TARGETS = ("gfx90a", "gfx942", "gfx950")


def _arch(text: str) -> str:
    if text not in AMD_TARGETS:
        raise argparse.ArgumentTypeError(f"expected one of asmevo's AMD targets ({', '.join(AMD_TARGETS)}), got {text!r}")
    return text


def _parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    parser = argparse.ArgumentParser(prog="python -m asmevo_triton",
                                     description="Capture Triton kernel launches for asmevo (see FORMAT.md).")
    sub = parser.add_subparsers(dest="command", required=True, metavar="capture")
    cap = sub.add_parser("capture", usage=USAGE, help="run a program and capture its Triton launches",
                         description="Run a Python program and write its Triton kernels and launches to DIR.")
    cap.add_argument("--out", required=True, type=Path, metavar="DIR", help="the capture folder (new or empty)")
    cap.add_argument("--max-per-kernel", type=_positive, default=4, metavar="N",
                     help="distinct launches recorded per compiled kernel (default 4)")
    cap.add_argument("--no-data", action="store_true",
                     help="write no buffer contents; launch files get seeded random inits")
    cap.add_argument("--seed", type=_seed, default=0, metavar="S", help="base seed of --no-data's inits (default 0)")
    cap.add_argument("--amd-target", type=_arch, metavar="ARCH",
                     help="recompile kernels that ran on another backend for this AMD target (e.g. gfx942)")
    return parser, cap


def _program(cap: argparse.ArgumentParser, words: list[str]) -> tuple[str, str, list[str]]:
    """('path', script, argv) or ('module', name, argv) from the words after '--'."""
    if words and re.fullmatch(r"python[0-9.]*", os.path.basename(words[0])):
        words = words[1:]
    if not words:
        cap.error("no program after '--' (expected: -- python program.py ARGS...)")
    if words[0] == "-m":
        if len(words) < 2:
            cap.error("'-m' after '--' needs a module name")
        return "module", words[1], words[1:]
    if words[0].startswith("-"):
        cap.error(f"unsupported interpreter option {words[0]!r} after '--': give 'python program.py ARGS...' "
                  "or 'python -m module ARGS...'")
    script = words[0]
    if not os.path.isfile(script):
        cap.error(f"program {script!r} is not a file")
    return "path", script, words


def _prepare_out(cap: argparse.ArgumentParser, out: Path) -> None:
    """Creates DIR and checks that it is an empty, writable folder, so a capture never mixes with older files."""
    if out.exists() and not out.is_dir():
        cap.error(f"--out {out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        cap.error(f"--out {out}: the folder is not empty; give a new or empty one")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        cap.error(f"--out {out}: cannot write there: {e.strerror or e}")


def _run(kind: str, target: str, argv: list[str]) -> None:
    """Runs the program as __main__ with its own sys.argv and sys.path[0], as the interpreter would."""
    sys.argv = list(argv)
    if kind == "path":
        sys.path[0] = os.path.dirname(os.path.abspath(target))
        runpy.run_path(target, run_name="__main__")
    else:
        sys.path[0] = os.getcwd()
        runpy.run_module(target, run_name="__main__", alter_sys=True)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ours, words = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, None)
    parser, cap = _parser()
    opts, extra = parser.parse_known_args(ours)
    if words is None:
        cap.error("missing '--' before the program (expected: -- python program.py ARGS...)")
    if extra:
        cap.error(f"unrecognized arguments before '--': {' '.join(extra)}")
    kind, target, program_argv = _program(cap, words)
    _prepare_out(cap, opts.out)
    capture = Capture(opts.out, words, amd_target=opts.amd_target, no_data=opts.no_data, seed=opts.seed,
                      max_per_kernel=opts.max_per_kernel)
    hook = Hook(capture, opts.amd_target)
    hook.install()
    written = False
    try:
        _run(kind, target, program_argv)
    finally:
        hook.uninstall()
        try:
            print(capture.finish(), file=sys.stderr, flush=True)
            written = True
        except Exception as e:  # noqa: BLE001 - the program's own exit or exception must still pass through
            print(f"asmevo_triton: error: could not write {opts.out / 'capture.json'}: {e}", file=sys.stderr)
    # The program ended normally, but the capture folder has no manifest: not a capture to optimize.
    return 0 if written else 2


if __name__ == "__main__":
    sys.exit(main())
