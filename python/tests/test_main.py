"""`python -m asmevo_triton capture`: arguments, and running a program (one that launches no Triton kernel) with
its output, exit status and exceptions passed through. Needs no torch, triton or GPU."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1]


def capture(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(PYTHON_DIR), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "asmevo_triton", "capture", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def program(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "prog.py"
    p.write_text(body)
    return p


def summary_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("asmevo_triton: captured")]


def test_missing_separator(tmp_path: Path) -> None:
    r = capture(["--out", str(tmp_path / "o"), "python", "prog.py"], tmp_path)
    assert r.returncode == 2 and "missing '--' before the program" in r.stderr
    r = capture(["--out", str(tmp_path / "o"), "--fast", "--", "python", "prog.py"], tmp_path)
    assert r.returncode == 2 and "unrecognized arguments before '--': --fast" in r.stderr
    r = capture(["--out", str(tmp_path / "o")], tmp_path)
    assert r.returncode == 2 and "missing '--' before the program" in r.stderr


def test_no_program(tmp_path: Path) -> None:
    for words in ([], ["python"], ["python3.11"]):
        r = capture(["--out", str(tmp_path / "o"), "--", *words], tmp_path)
        assert r.returncode == 2 and "no program after '--'" in r.stderr, words
    r = capture(["--out", str(tmp_path / "o"), "--", "python", "missing.py"], tmp_path)
    assert r.returncode == 2 and "program 'missing.py' is not a file" in r.stderr
    r = capture(["--out", str(tmp_path / "o"), "--", "python", "-c", "print(1)"], tmp_path)
    assert r.returncode == 2 and "unsupported interpreter option '-c'" in r.stderr


def test_bad_out_dir(tmp_path: Path) -> None:
    prog = program(tmp_path, "pass\n")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = capture(["--out", str(blocker / "sub"), "--", "python", str(prog)], tmp_path)
    assert r.returncode == 2 and f"--out {blocker / 'sub'}: cannot write there" in r.stderr
    r = capture(["--out", str(blocker), "--", "python", str(prog)], tmp_path)
    assert r.returncode == 2 and "exists and is not a folder" in r.stderr
    r = capture(["--out", str(tmp_path), "--", "python", str(prog)], tmp_path)
    assert r.returncode == 2 and "the folder is not empty" in r.stderr


def test_bad_options(tmp_path: Path) -> None:
    prog = program(tmp_path, "pass\n")
    r = capture(["--out", str(tmp_path / "o"), "--max-per-kernel", "0", "--", "python", str(prog)], tmp_path)
    assert r.returncode == 2 and "expected a positive integer" in r.stderr
    for bad in ("sm_90", "gfx1100"):  # not AMD; an AMD target asmevo does not read (wave32)
        r = capture(["--out", str(tmp_path / "o"), "--amd-target", bad, "--", "python", str(prog)], tmp_path)
        assert r.returncode == 2 and "expected one of asmevo's AMD targets (gfx90a, gfx942, gfx950)" in r.stderr


def test_program_runs_as_main_with_its_arguments(tmp_path: Path) -> None:
    prog = program(tmp_path, "import sys\nprint(__name__, sys.argv[1:], sys.path[0] == %r)\n" % str(tmp_path))
    out = tmp_path / "o"
    r = capture(["--out", str(out), "--", "python", str(prog), "a", "--b"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "__main__ ['a', '--b'] True\n"
    assert len(summary_lines(r.stderr)) == 1
    assert summary_lines(r.stderr)[0] == f"asmevo_triton: captured 0 kernels, 0 launches, 0 not captured, 0.0 MB written to {out}"
    doc = json.loads((out / "capture.json").read_text())
    assert doc["program"] == ["python", str(prog), "a", "--b"] and doc["kernels"] == []


def test_module_form(tmp_path: Path) -> None:
    (tmp_path / "mymod.py").write_text("import sys\nprint(__name__, sys.argv[1:])\n")
    r = capture(["--out", str(tmp_path / "o"), "--", "python", "-m", "mymod", "x"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "__main__ ['x']\n"


def test_exit_status_passes_through(tmp_path: Path) -> None:
    prog = program(tmp_path, "import sys\nprint('before')\nsys.exit(3)\n")
    out = tmp_path / "o"
    r = capture(["--out", str(out), "--", "python", str(prog)], tmp_path)
    assert r.returncode == 3 and r.stdout == "before\n"
    assert (out / "capture.json").is_file() and len(summary_lines(r.stderr)) == 1


def test_exception_passes_through_after_writing(tmp_path: Path) -> None:
    prog = program(tmp_path, "raise ValueError('from the program')\n")
    out = tmp_path / "o"
    r = capture(["--out", str(out), "--", "python", str(prog)], tmp_path)
    assert r.returncode == 1
    assert "ValueError: from the program" in r.stderr and len(summary_lines(r.stderr)) == 1
    assert json.loads((out / "capture.json").read_text())["format"] == "asmevo-triton-capture"


def test_a_manifest_that_cannot_be_written_fails_the_capture(tmp_path: Path) -> None:
    # The program ends normally but leaves no folder to write capture.json in (a file has taken its name).
    out = tmp_path / "o"
    prog = program(tmp_path, f"import shutil\nshutil.rmtree({str(out)!r})\nopen({str(out)!r}, 'w').close()\n")
    r = capture(["--out", str(out), "--", "python", str(prog)], tmp_path)
    assert r.returncode == 2, r.stderr
    assert f"could not write {out / 'capture.json'}" in r.stderr
