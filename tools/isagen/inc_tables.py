"""What the second-stage generators (gen_builders.py, gen_ops.py) share: the targets, C++ keywords, and a reader of
the per-target tables isagen.py writes (include/asmevo/ir/gen/<target>.inc): their form_table and mnemonic_table
lines, checked against each other. Python 3.11 standard library only."""
from __future__ import annotations

import pathlib
import re
from typing import Callable, NoReturn

TARGETS = ("gfx90a", "gfx942", "gfx950")

CXX_KEYWORDS = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch
template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
wchar_t while xor xor_eq""".split())

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# {{"BUFFER_ATOMIC_ADD_BOTHEN_RTN_gfx90a",35},{"buffer_atomic_add",17},{"...",74},operand_table.data()+0,0,7,F::MUBUF,V::none,...
FORM_RE = re.compile(r'^\s*\{\{"([A-Za-z0-9_]+)",\d+\},\{"([a-z0-9_]+)",\d+\},\{"(?:[^"\\]|\\.)*",\d+\},'
                     r'operand_table\.data\(\)\+\d+,\d+,\d+,F::(\w+),V::(\w+),V::\w+,\d+,[^,]*,[^,]*,(.*)\},\s*$')
MNEMONIC_RE = re.compile(r'^\s*\{\{"([a-z0-9_]+)",\d+\},(\d+),(\d+)\},\s*$')


def read_tables(inc: pathlib.Path, fail: Callable[[str], NoReturn]):
    """The forms of `inc` in table order (dicts: name, mnemonic, format, variant, matchable) and its mnemonic runs
    (mnemonic, first, count), after checking that the runs cover the forms exactly and in order."""
    if not inc.is_file():
        fail(f"{inc}: not found (run from the repository root or pass --root)")
    forms, mnemonics = [], []
    section = None
    for line in inc.read_text().splitlines():
        if "form_table{{" in line:
            section = "forms"
            continue
        if "mnemonic_table{{" in line:
            section = "mnemonics"
            continue
        if line.startswith("}};"):
            section = None
            continue
        if section == "forms":
            m = FORM_RE.match(line)
            if not m:
                fail(f"{inc}: cannot read form line: {line[:120]}")
            forms.append({"name": m.group(1), "mnemonic": m.group(2), "format": m.group(3),
                          "variant": m.group(4), "matchable": "pr::asm_matchable" in m.group(5)})
        elif section == "mnemonics":
            m = MNEMONIC_RE.match(line)
            if not m:
                fail(f"{inc}: cannot read mnemonic line: {line[:120]}")
            mnemonics.append((m.group(1), int(m.group(2)), int(m.group(3))))
    if not forms or not mnemonics:
        fail(f"{inc}: no form_table / mnemonic_table found")
    covered = 0
    for name, first, count in mnemonics:
        if first != covered or any(f["mnemonic"] != name for f in forms[first:first + count]):
            fail(f"{inc}: mnemonic_table entry {name} does not match its forms")
        covered += count
    if covered != len(forms):
        fail(f"{inc}: mnemonic_table does not cover form_table")
    return forms, mnemonics
