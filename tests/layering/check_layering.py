#!/usr/bin/env python3
"""Checks every `#include "asmevo/..."` of the library headers against the module table of DESIGN.md.

A folder may include only itself and the folders listed above it in the table (support, ir, ir/gen, mc, analysis,
codeobject, launch, emu, model, passes, verify, agent), with these narrower rules from the table:
  * model/params.hpp is data: it includes nothing from asmevo but ir/ (and support/);
  * passes/ may include model/params.hpp and nothing else of model/, and nothing of launch/, emu/ or verify/;
  * codeobject/ may include mc/ only from the headers that recover or rebuild code;
  * no library header includes the mutator (verify/mutate.hpp);
  * LLVM headers (<llvm/...>) appear only in mc/;
  * HIP headers (<hip/...>) appear only in verify/hip/;
  * libcurl's headers (<curl/...>) appear only in agent/curl_transport.hpp (the LLM client takes its transport as a
    value: agent/http.hpp);
  * there is no include circle between headers.
Usage: check_layering.py [--root REPO]. Prints every violation (file:line: what and why) and exits 1 if any.
       check_layering.py --self-test: checks a small made-up tree with one violation of each kind is caught.
"""
from __future__ import annotations

import argparse
import pathlib
import re
import sys

# The module table, in order: each folder may include the folders before it (and itself).
ORDER = ["support", "ir", "ir/gen", "mc", "analysis", "codeobject", "launch", "emu", "model", "passes", "verify", "agent"]
# What each folder may include, from DESIGN.md's "may depend on" column (support is everyone's).
ALLOWED = {
    "support": {"support"},
    "ir": {"support", "ir", "ir/gen"},
    "ir/gen": {"support", "ir", "ir/gen"},
    "mc": {"support", "ir", "ir/gen", "mc"},
    "analysis": {"support", "ir", "ir/gen", "analysis"},
    "codeobject": {"support", "ir", "ir/gen", "analysis", "codeobject", "mc"},
    "launch": {"support", "ir", "ir/gen", "codeobject", "launch"},
    "emu": {"support", "ir", "ir/gen", "analysis", "codeobject", "launch", "emu"},
    "model": {"support", "ir", "ir/gen", "analysis", "emu", "model"},
    "passes": {"support", "ir", "ir/gen", "analysis", "passes", "model"},
    "verify": set(ORDER),
    "agent": set(ORDER),
}
# codeobject headers that recover or rebuild code and so may use the LLVM MC bridge: recovery, the rebuild driver, and
# the two steps of the rebuild that read a program with LLVM's assembler (its target and metadata, its registers).
CODEOBJECT_MC = {"codeobject/recover.hpp", "codeobject/recover_code.hpp", "codeobject/rebuild.hpp",
                 "codeobject/program_target.hpp", "codeobject/resources_update.hpp"}
MUTATOR = "verify/mutate.hpp"
# The one header that includes libcurl.
CURL_TRANSPORT = "agent/curl_transport.hpp"

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def module_of(rel: str) -> str:
    """The module-table row of a header path relative to include/asmevo (ir/gen before ir)."""
    if rel.startswith("ir/gen/"):
        return "ir/gen"
    return rel.split("/", 1)[0]


def self_test() -> int:
    """A made-up tree with one violation of each rule: every one must be reported, and nothing else."""
    import contextlib
    import io
    import tempfile
    files = {
        "support/a.hpp": "#include <vector>\n",
        "ir/b.hpp": '#include "asmevo/support/a.hpp"\n#include "asmevo/analysis/c.hpp"\n',       # ir -> analysis
        "analysis/c.hpp": '#include "asmevo/ir/b.hpp"\n',                                       # circle b -> c -> b
        "passes/d.hpp": '#include "asmevo/model/timing.hpp"\n#include "asmevo/model/params.hpp"\n',  # timing: no
        "model/params.hpp": '#include "asmevo/emu/e.hpp"\n',                                    # params is data
        "model/timing.hpp": '#include "asmevo/emu/e.hpp"\n',
        "emu/e.hpp": '#include <llvm/MC/MCInst.h>\n#include "asmevo/launch/f.hpp"\n',          # LLVM outside mc
        "launch/f.hpp": '#include "asmevo/codeobject/g.hpp"\n',
        "codeobject/g.hpp": '#include "asmevo/mc/h.hpp"\n',                                     # mc outside recover
        "mc/h.hpp": "#include <llvm/MC/MCInst.h>\n",
        "verify/mutate.hpp": "",
        "verify/i.hpp": '#include "asmevo/verify/mutate.hpp"\n#include "asmevo/verify/nope.hpp"\n',  # mutator; missing
        "agent/j.hpp": '#include <hip/hip_runtime.h>\n',                                        # HIP outside verify/hip
        "agent/m.hpp": '#include <curl/curl.h>\n',                                              # curl outside transport
        "launch/l.hpp": '#include <asmevo/emu/e.hpp>\n',                                        # angle brackets too
        "extra/k.hpp": "",                                                                       # not in the table
    }
    expect = ["ir/b.hpp:2", "include circle", "passes/d.hpp:1", "model/params.hpp:1", "emu/e.hpp:1",
              "codeobject/g.hpp:1", "verify/i.hpp:1", "verify/i.hpp:2", "agent/j.hpp:1", "extra/k.hpp",
              "launch/l.hpp:1", "agent/m.hpp:1"]
    with tempfile.TemporaryDirectory() as d:
        for rel, text in files.items():
            f = pathlib.Path(d) / "include" / "asmevo" / rel
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(text)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = check(pathlib.Path(d))
    lines = out.getvalue().splitlines()[:-1]
    missing = [e for e in expect if not any(e in line for line in lines)]
    if rc != 1 or missing or len(lines) != len(expect):
        print(f"self-test FAILED: rc {rc}, missing {missing}, reported:\n" + "\n".join(lines))
        return 1
    print(f"self-test: all {len(expect)} planted violations reported")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parents[2]))
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    return check(pathlib.Path(args.root))


def check(root: pathlib.Path) -> int:
    inc = root / "include" / "asmevo"
    headers = sorted(p for p in inc.rglob("*") if p.suffix in (".hpp", ".inc", ".h"))
    if not headers:
        print(f"check_layering: no headers under {inc}", file=sys.stderr)
        return 2
    errors: list[str] = []
    graph: dict[str, list[str]] = {}
    for path in headers:
        rel = path.relative_to(inc).as_posix()
        mod = module_of(rel)
        if mod not in ALLOWED:
            errors.append(f"include/asmevo/{rel}: folder '{mod}' is not in DESIGN.md's module table")
            continue
        graph[rel] = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            where = f"include/asmevo/{rel}:{n}"
            target = m.group(2)
            if m.group(1) == "<" and not target.startswith("asmevo/"):
                if target.startswith(("llvm/", "llvm-c/")) and mod != "mc":
                    errors.append(f"{where}: <{target}>: LLVM headers belong in mc/ only")
                if target.startswith("hip/") and not rel.startswith("verify/hip/"):
                    errors.append(f"{where}: <{target}>: HIP headers belong in verify/hip/ only")
                if target.startswith("curl/") and rel != CURL_TRANSPORT:
                    errors.append(f"{where}: <{target}>: libcurl belongs in {CURL_TRANSPORT} only")
                continue
            if not target.startswith("asmevo/"):
                continue
            trel = target[len("asmevo/"):]
            if not (inc / trel).is_file():
                errors.append(f'{where}: "{target}" does not exist')
                continue
            graph[rel].append(trel)
            tmod = module_of(trel)
            if tmod not in ALLOWED[mod]:
                errors.append(f'{where}: "{target}": {mod}/ may not include {tmod}/ (DESIGN.md module table)')
            elif rel == "model/params.hpp" and tmod not in ("support", "ir", "ir/gen"):
                errors.append(f'{where}: "{target}": model/params.hpp is data and includes only ir/')
            elif mod == "passes" and tmod == "model" and trel != "model/params.hpp":
                errors.append(f'{where}: "{target}": passes/ may include model/params.hpp only, not the rest of model/')
            elif mod == "codeobject" and tmod == "mc" and rel not in CODEOBJECT_MC:
                errors.append(f'{where}: "{target}": only the recover/rebuild headers of codeobject/ may use mc/')
            if trel == MUTATOR:
                errors.append(f'{where}: "{target}": no library header includes the mutator')
    # Include circles (depth-first search, reporting each back edge's cycle once).
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: set[tuple[str, ...]] = set()

    def visit(h: str) -> None:
        state[h] = 1
        stack.append(h)
        for t in graph.get(h, []):
            if state.get(t) == 1:
                cyc = stack[stack.index(t):]
                k = cyc.index(min(cyc))
                cycles.add(tuple(cyc[k:] + cyc[:k]))
            elif t not in state:
                visit(t)
        stack.pop()
        state[h] = 2

    sys.setrecursionlimit(10000)
    for h in sorted(graph):
        if h not in state:
            visit(h)
    for cyc in sorted(cycles):
        errors.append("include circle: " + " -> ".join(cyc + (cyc[0],)))
    for e in errors:
        print(e)
    print(f"check_layering: {len(headers)} headers, {sum(len(v) for v in graph.values())} asmevo includes, "
          f"{len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
