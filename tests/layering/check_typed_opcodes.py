#!/usr/bin/env python3
"""Fails when a library header identifies an instruction by its mnemonic text instead of its op id or properties.

STYLE.md principle 5: code asks what an instruction is through the generated op ids (include/asmevo/ir/gen/ops.hpp)
and property bits, never by comparing mnemonic text. This test reads every library header (include/asmevo/**),
except the text parser and printer (which turn text into ids and back) and the generated tables, and reports:
  * a comparison (== or !=) with a string literal that is an op name or a '_'-aligned piece of one
    ("s_and_b32", "s_cmp_", "_dwordx2");
  * starts_with / ends_with / find / rfind / contains called with such a literal (as a member, or as a free
    function of the mnemonic and the literal);
  * two mnemonics compared with each other (`p.mnemonic() == c.mnemonic()`, `a.mnemonic != b.mnemonic`): the
    same-op test is `op_of(a) == op_of(b)`; and a table searched by mnemonic text (`row.mnemonic == mnemonic`).
A '_'-aligned piece is a substring of some op name that starts at the name's start or at an '_' and ends at the
name's end or just before/at an '_' ("v_cmp", "_load_lds_", "saveexec"). Op names come from ops.hpp itself. A piece
without an '_' ("saveexec", "gws") is reported only where the line reads a mnemonic (a name such as m, mn,
mnemonic, mnem(...)), so that `key == "buffer"` in a JSON reader is not.
Usage: check_typed_opcodes.py [--root REPO] [--self-test]. Prints file:line: text for each and exits 1 if any.
"""
from __future__ import annotations

import argparse
import pathlib
import re
import sys

# The text side of the IR: parser, printer, syntax tables and their helpers; and the generated tables.
EXEMPT = ("ir/parser.hpp", "ir/printer.hpp", "ir/syntax.hpp", "ir/preprocess.hpp", "ir/detail/line_parser.hpp",
          "ir/detail/asm_template.hpp", "ir/gen/")

LITERAL = r'"((?:[^"\\]|\\.)*)"'
SUBJECT = r'([\w.\->\[\]()]+?)'
# (subject, literal) pairs: `subject == "lit"`, `"lit" == subject`, `subject.starts_with("lit")` and the like.
COMPARE_L = re.compile(SUBJECT + r'\s*(?:==|!=)\s*' + LITERAL)
COMPARE_R = re.compile(LITERAL + r'\s*(?:==|!=)\s*' + SUBJECT + r'(?=[\s;),&|?:]|$)')
CALL = re.compile(SUBJECT + r'\.(?:starts_with|ends_with|find|rfind|contains)\(\s*' + LITERAL)
TWO_MNEMONICS = re.compile(r'\bmnemonic(?:\(\))?\s*(?:==|!=|<)\s*[\w.\->\[\]]*\bmnemonic\b')
FREE_CALL = re.compile(r'\b(?:starts_with|ends_with|contains|has_prefix|has_suffix)\(\s*' + SUBJECT + r'\s*,\s*' + LITERAL)
OP_NAME = re.compile(r'^\s*([a-z][a-z0-9_]*)\s*(?:=\s*[0-9]+\s*)?,', re.M)


def op_names(ops_hpp: pathlib.Path) -> list[str]:
    """The enumerators of `enum class Opcode` in the generated ops.hpp (without a keyword's trailing '_')."""
    text = ops_hpp.read_text(encoding="utf-8")
    m = re.search(r'enum class Opcode\s*:\s*[\w:]+\s*\{(.*?)\};', text, re.S)
    if not m:
        raise SystemExit(f"check_typed_opcodes: no `enum class Opcode` in {ops_hpp}")
    names = [n.rstrip("_") for n in OP_NAME.findall(m.group(1) + ",") if n != "invalid"]
    if len(names) < 100:
        raise SystemExit(f"check_typed_opcodes: only {len(names)} ops read from {ops_hpp}")
    return names


def pieces(names: list[str]) -> set[str]:
    """Every '_'-aligned substring of every op name (and the name itself)."""
    out: set[str] = set()
    for n in names:
        cuts = [0] + [i for i, c in enumerate(n) if c == "_"] + [len(n)]
        for a in cuts:
            for b in cuts:
                if b <= a:
                    continue
                for lo in ((a, a + 1) if n[a:a + 1] == "_" else (a,)):
                    for hi in ((b, b + 1) if n[b:b + 1] == "_" else (b,)):
                        s = n[lo:hi]
                        if len(s) >= 3 and s.strip("_"):
                            out.add(s)
    # The unit prefixes themselves ("v_", "s_"): `m.starts_with("v_")` is a mnemonic test too.
    out.update(n[:n.index("_") + 1] for n in names if "_" in n)
    return out


# A subject that is a mnemonic: its last component is m, mn, ma, mb or mnemonic (a variable, member or call), or a
# call of mnem(...) / mnemonic_text(...). `m.kind` or `a.mnemonic_text_width` are not.
MNEMONIC_SUBJECT = re.compile(r'(?:^|[.>:])(?:m|mn|ma|mb|mnemonic)(?:\(\))?$|\b(?:mnem|mnemonic_text)\(.*\)$')


def scan(text: str, rel: str, known: set[str]) -> list[str]:
    found = []
    for no, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0]
        for rx, si, li in ((COMPARE_L, 1, 2), (COMPARE_R, 2, 1), (CALL, 1, 2), (FREE_CALL, 1, 2)):
            for m in rx.finditer(code):
                subject, lit = m.group(si), m.group(li)
                if lit in known and ("_" in lit or MNEMONIC_SUBJECT.search(subject)):
                    found.append(f"include/asmevo/{rel}:{no}: \"{lit}\": {line.strip()}")
        if TWO_MNEMONICS.search(code):
            found.append(f"include/asmevo/{rel}:{no}: mnemonic compared with mnemonic: {line.strip()}")
    return found


def check(root: pathlib.Path) -> int:
    inc = root / "include" / "asmevo"
    known = pieces(op_names(inc / "ir" / "gen" / "ops.hpp"))
    found: list[str] = []
    n = 0
    for path in sorted(inc.rglob("*.hpp")):
        rel = path.relative_to(inc).as_posix()
        if rel.startswith(EXEMPT):
            continue
        n += 1
        found += scan(path.read_text(encoding="utf-8"), rel, known)
    for f in found:
        print(f)
    print(f"check_typed_opcodes: {n} headers, {len(found)} mnemonic text test(s)")
    return 1 if found else 0


def self_test() -> int:
    known = pieces(["v_cmp_eq_u32", "s_and_saveexec_b64", "ds_gws_init", "buffer_atomic_swap", "s_buffer_load_dword", "global_load_dwordx2", "global_load_lds_dword", "s_nop"])
    bad = ['if (m == "s_nop") x();', 'm.starts_with("v_cmp")', 'm.ends_with("_dwordx2")',
           'm.find("_load_lds_") != npos', 'm.find("saveexec")', 'f.mnemonic.find("gws")', 'm.starts_with("v_")', 'if (f.mnemonic().starts_with("s_")) x();', 'contains(m, "saveexec")', 'if (p.mnemonic() != c.mnemonic()) x();',
           'return it->mnemonic == mnemonic ? &*it : nullptr;', '"s_nop" != mn', 'mn.starts_with("v_cmp_")']
    good = ['if (name == "offset") x();', 'if (m.kind == "load") x();', 'if (a.kind == "call") return a.mnemonic;', 'if (key == "buffer") x();', 'if (op == "swap") x();', 'op == op::s_nop', 'k.starts_with("amdhsa")', '// m == "s_nop"',
            'f.has(prop::load)']
    missed = [b for b in bad if not scan(b, "x.hpp", known)]
    wrong = [g for g in good if scan(g, "x.hpp", known)]
    if missed or wrong:
        print(f"self-test FAILED: missed {missed}, flagged {wrong}")
        return 1
    print(f"self-test: {len(bad)} mnemonic tests caught, {len(good)} other lines left alone")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parents[2]))
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args(argv)
    return self_test() if args.self_test else check(pathlib.Path(args.root))


if __name__ == "__main__":
    sys.exit(main())
