#!/usr/bin/env python3
"""Generates the typed opcode ids and per-op attributes (include/asmevo/ir/gen/ops.hpp) from the generated
per-target tables (include/asmevo/ir/gen/<target>.inc): one `Opcode` per distinct mnemonic of gfx90a, gfx942 and
gfx950, each target's form -> Opcode and Opcode -> forms maps, and one OpInfo per op that decomposes its mnemonic into
typed fields (family, base operation, compare condition, data types, element count, memory bytes, MFMA shape,
flags), so that C++ code never looks at mnemonic text: this script is the one place that does. It also writes
include/asmevo/ir/gen/form_traits.hpp, the few per-form bits that the parser's and the typed builders' operand checks
need (FORM_TRAITS below), so that those headers stay free of the opcode tables.

Reads only the generated .inc headers (not LLVM's JSON), so it runs in well under a second:
    python3 tools/isagen/gen_ops.py            # from the repository root, or
    python3 tools/isagen/gen_ops.py --root /path/to/repo
    python3 tools/isagen/gen_ops.py --check    # exit 1 if either header is out of date (a ctest runs this)
Deterministic: the same .inc files give byte-identical output. Python 3.11 standard library only.

The decomposition is lossless: the script fails if two mnemonics get the same OpInfo, so `find_op(info)` (asmevo/
ir/op.hpp) finds the one op with given attributes (the compare with the negated condition, the dwordx4 sibling of
a dwordx2 load ...). A mnemonic that a new table spells in a way these rules do not know either lands in a
fallback family with its unknown words kept in its base name, or stops the script with a message naming it.
"""
from __future__ import annotations

import argparse
import hashlib
import pathlib
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree (CI and --check run in a checkout)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from inc_tables import CXX_KEYWORDS, IDENT, TARGETS, read_tables  # noqa: E402  (the shared table reader)

OUT = "include/asmevo/ir/gen/ops.hpp"
OUT_TRAITS = "include/asmevo/ir/gen/form_traits.hpp"


# ---- the attribute vocabulary ------------------------------------------------------------------------------------

# OpUnit: the mnemonic's first word.
UNITS = [
    ("s", "scalar: SALU, program control (SOPP) and scalar memory (SMEM)"),
    ("v", "vector ALU (VOP1/2/3/3P/C, MFMA)"),
    ("ds", "LDS/GDS (DS)"),
    ("buffer", "untyped buffer memory (MUBUF)"),
    ("tbuffer", "typed buffer memory (MTBUF)"),
    ("global", "global memory (FLAT encoding, global segment)"),
    ("flat", "flat memory (FLAT encoding, any segment)"),
    ("scratch", "private memory (FLAT encoding, scratch segment)"),
    ("image", "image memory (MIMG)"),
]

# Family: (name, regex on the mnemonic, doc). The first rule that matches wins; `s_ctrl` is matched by format
# (every form SOPP), not by a regex. Several rules may name one family.
FAMILY_RULES = [
    ("v_cmpx", r"^v_cmpx_", "VALU compare that writes its lane mask to EXEC too (VOPC: and to VCC; VOP3: and to sdst)"),
    ("v_cmp", r"^v_cmp_", "VALU compare that writes a lane mask to VCC (VOPC) or an SGPR pair (VOP3)"),
    ("s_cmpk", r"^s_cmpk_", "SOPK compare of an SGPR with a 16-bit immediate into SCC"),
    ("s_cmp", r"^s_cmp_", "SOPC compare of two scalar sources into SCC"),
    ("s_bitcmp", r"^s_bitcmp[01]_", "SOPC test of one bit into SCC (s_bitcmp0: SCC = bit == 0; s_bitcmp1: bit == 1)"),
    ("s_branch", r"^s_branch$", "unconditional pc-relative branch"),
    ("s_cbranch", r"^s_cbranch_(scc[01]|vccn?z|execn?z)$",
     "pc-relative branch on SCC, VCCZ or EXECZ (which one: the op id)"),
    ("s_cbranch_fork", r"^s_cbranch_(g_fork|i_fork|join)$",
     "legacy fork/join of divergent control flow (writes EXEC and the PC from a stack in SGPRs)"),
    ("s_cbranch_cdbg", r"^s_cbranch_cdbg", "branch on the debugger's conditional-debug bits"),
    ("s_call", r"^s_(call|swappc)_", "call: write the return address to an SGPR pair and jump"),
    ("s_pc", r"^s_[gs]etpc_", "read the PC (s_getpc) or jump to an SGPR pair (s_setpc: indirect jump, return)"),
    ("s_rfe", r"^s_rfe_", "return from the trap handler"),
    ("s_endpgm", r"^s_endpgm", "end of the wave (s_endpgm and its variants)"),
    ("s_waitcnt", r"^s_waitcnt", "wait until memory counters drop to given values"),
    ("s_sendmsg", r"^s_sendmsg", "message to the SPI or host (s_sendmsg, s_sendmsghalt); bumps lgkmcnt"),
    ("s_setreg", r"^s_setreg_", "write a hardware register field (MODE, TRAPSTS ...)"),
    ("s_getreg", r"^s_getreg_", "read a hardware register field"),
    ("s_gpr_idx", r"^s_set_gpr_idx_", "VGPR indexing mode: on, off, index, mode (VALU operands offset by M0)"),
    ("s_movrel", r"^s_movrel[sd]_", "SGPR move with an M0-relative source (movrels) or destination (movreld)"),
    ("s_saveexec", r"^s_[a-z0-9]+_saveexec_",
     "D = EXEC; EXEC = base(S0, EXEC); SCC = EXEC != 0. `base` is the logic op (s_and, s_orn2 ...)"),
    ("s_wrexec", r"^s_[a-z0-9]+_wrexec_", "EXEC = base(S0, EXEC) and D = the new EXEC; `base` is the logic op"),
    ("s_cmov", r"^s_cmovk?_", "conditional move on SCC (the destination keeps its value when SCC = 0)"),
    ("s_dcache", r"^s_dcache_", "scalar data cache invalidate / write-back / discard"),
    ("s_icache", r"^s_icache_", "instruction cache invalidate"),
    ("s_memtime", r"^s_mem(real)?time$", "read a time counter through the scalar memory path (lgkmcnt)"),
    ("s_load", r"^s_load_", "scalar load through the scalar data cache"),
    ("s_store", r"^s_store_", "scalar store"),
    ("s_buffer", r"^s_buffer_", "scalar buffer load, store or atomic (through a buffer resource)"),
    ("s_scratch", r"^s_scratch_", "scalar scratch load or store"),
    ("s_atomic", r"^s_atomic_", "scalar atomic"),
    ("s_atc_probe", r"^s_atc_probe", "address translation probe"),
    ("s_ctrl", None, "other program control and wave state (SOPP): s_nop, s_sleep, s_barrier, s_trap, s_setprio ..."),
    ("s_alu", r"^s_", "other scalar ALU (SOP1, SOP2, SOPK, SOPC)"),
    ("v_alu", r"^v_mfma_ld_scale_", None),  # loads MFMA scale values; not an MFMA (no prop::mfma)
    ("v_mfma", r"^v_mfma_", "matrix fused multiply-add (MFMA); mfma_m/n/k give the shape"),
    ("v_smfmac", r"^v_smfmac_", "sparse-matrix MFMA; mfma_m/n/k give the shape"),
    ("v_dot", r"^v_dot\d", "dot product (v_dotN and the accumulating v_dotNc, which have opflag::accum)"),
    ("v_mix", r"^v_(fma|mad)_mix", "mixed-precision FMA: f16 or f32 sources picked by op_sel, f32 (mix) or f16 "
     "(mixlo, mixhi) result; op_sel_hi defaults to 0, not all ones"),
    ("v_cross_lane", r"^v_(readlane|readfirstlane|writelane|permlane)",
     "moves data between lanes or between a lane and an SGPR"),
    ("v_accvgpr", r"^v_accvgpr_", "AccVGPR read, write or move"),
    ("v_cvt", r"^v_cvt_", "conversion: result `type` from source `src_type`"),
    ("v_pk", r"^v_pk_", "packed math: two 16-bit (or 32-bit) values per operand (opflag::packed)"),
    ("v_alu", r"^v_", "other VALU"),
    ("ds_lane", r"^ds_(permute|bpermute|swizzle)_", "lane shuffle through the LDS crossbar; no LDS access"),
    ("ds_gws", r"^ds_gws_", "global wave sync (GDS semaphores and barriers)"),
    ("ds_append", r"^ds_(append|consume)$", "wave counter in LDS/GDS: add (append) or subtract (consume) a lane count"),
    ("ds", r"^ds_", "LDS/GDS memory access"),
    ("buffer_cache", r"^buffer_(inv|wb|gl)", "vector L1/L2 cache invalidate or write-back (buffer_inv, buffer_wbl2, "
     "buffer_wbinvl1 ...); no data"),
    ("buffer", r"^buffer_", "untyped buffer load, store or atomic"),
    ("tbuffer", r"^tbuffer_", "typed buffer load or store (format operand)"),
    ("global", r"^global_", "global load, store or atomic"),
    ("flat", r"^flat_", "flat load, store or atomic"),
    ("scratch", r"^scratch_", "scratch (private) load or store"),
    ("image", r"^image_", "image load, store, atomic, sample or query"),
]
MEMORY_FAMILIES = {"s_load", "s_store", "s_buffer", "s_scratch", "s_atomic", "ds", "buffer", "tbuffer", "global",
                   "flat", "scratch", "image"}
CMP_FAMILIES = {"v_cmp", "v_cmpx", "s_cmp", "s_cmpk"}
MFMA_FAMILIES = {"v_mfma", "v_smfmac"}

# CmpCond: the condition word of v_cmp/v_cmpx/s_cmp/s_cmpk (SIInstructions.td / VOPCInstructions.td spelling).
CONDS = [
    ("f", "false (always 0)"), ("lt", "<"), ("eq", "=="), ("le", "<="), ("gt", ">"),
    ("lg", "!= (float: ordered and not equal; s_cmp: integer !=)"), ("ge", ">="),
    ("o", "ordered (neither is NaN)"), ("u", "unordered (either is NaN)"), ("nge", "not >="), ("nlg", "not lg"),
    ("ngt", "not >"), ("nle", "not <="), ("neq", "not =="), ("nlt", "not <"), ("tru", "true (float, always 1)"),
    ("ne", "!= (integer v_cmp)"), ("t", "true (integer, always 1)"),
    ("class", "v_cmp_class: the value's IEEE class is in the mask"),
]

# DataType: (name, bits). Memory spellings map onto these (dword -> b32, ubyte -> u8 ...).
TYPES = [
    ("b4", 4), ("b6", 6), ("b8", 8), ("b16", 16), ("b32", 32), ("b64", 64), ("b96", 96), ("b128", 128),
    ("i4", 4), ("i8", 8), ("i16", 16), ("i24", 24), ("i32", 32), ("i64", 64),
    ("u4", 4), ("u8", 8), ("u16", 16), ("u24", 24), ("u32", 32), ("u64", 64),
    ("f16", 16), ("bf16", 16), ("f32", 32), ("f64", 64), ("xf32", 32),
    ("fp4", 4), ("fp6", 6), ("bf6", 6), ("fp8", 8), ("bf8", 8),
    ("f8f6f4", 0),  # gfx950 MFMA: fp8/bf8/fp6/bf6/fp4 chosen by cbsz/blgp (0: no one width)
]
TYPE_BITS = dict(TYPES)
MEM_SPELLINGS = {"dword": "b32", "byte": "b8", "ubyte": "u8", "sbyte": "i8", "short": "b16", "ushort": "u16",
                 "sshort": "i16"}
COMPONENTS = {"x": 1, "xy": 2, "xyz": 3, "xyzw": 4}

# opflag bits: words of the mnemonic that modify the base operation.
FLAGS = [
    ("co", "writes a carry-out lane mask (v_add_co_u32 ...: `_co`)"),
    ("rtn", "returns the pre-op memory value (DS `_rtn`)"),
    ("d16", "moves 16 bits into or out of half a VGPR (`_d16`); the other half is kept"),
    ("d16_hi", "the high half (`_d16_hi`); d16 is set too"),
    ("lds", "LDS DMA: the data goes to (load) or comes from (store) LDS, not VGPRs (`_lds`)"),
    ("st64", "DS two-address op whose offsets count in units of 64 elements (`read2st64` ...)"),
    ("packed", "packed operands (a `pk`/`pack` word: v_pk_*, v_cvt_pk*, ds_pk_*, *_atomic_pk_*)"),
    ("accum", "accumulates into its destination, which is also a source (v_mac, v_fmac, v_pk_fmac, v_dotNc, "
     "v_smfmac: vdst tied to srcC)"),
    ("legacy_name", "gfx908/gfx90a MFMA spelling that gfx940 renamed (type glued to the shape: 32x32x8f16)"),
]
FLAG_BIT = {n: 1 << i for i, (n, _) in enumerate(FLAGS)}

SHAPE_RE = re.compile(r"^(\d+)x(\d+)x(\d+)([a-z][a-z0-9]*)?$")
BLOCKS_RE = re.compile(r"^(\d+)b$")
DWORDX_RE = re.compile(r"^dwordx(\d+)$")


def fail(msg: str):
    print(f"gen_ops.py: {msg}", file=sys.stderr)
    sys.exit(1)


def spelling(name: str) -> str:
    if not IDENT.match(name):
        fail(f"{name!r} is not a C++ identifier; add a spelling rule to gen_ops.py")
    return name + "_" if name in CXX_KEYWORDS else name


def family_of(m: str, sopp_only: bool) -> str:
    for name, rx, _ in FAMILY_RULES:
        if rx is None:
            if sopp_only and m.startswith("s_"):
                return name
            continue
        if re.search(rx, m):
            return name
    fail(f"no family rule matches {m}")


def decompose(m: str, family: str) -> dict:
    """The attributes of mnemonic `m` (see the OpInfo doc comments in the output)."""
    words = m.split("_")
    unit, rest = words[0], words[1:]
    if unit not in dict(UNITS):
        fail(f"{m}: unknown unit {unit!r}")
    memory = family in MEMORY_FAMILIES
    stem, types, flags = [unit], [], 0
    cond, count, shape, blocks = "", 0, (0, 0, 0), 0
    i = 0
    while i < len(rest):
        w = rest[i]
        i += 1
        if family in CMP_FAMILIES and i == 2:  # v_cmp_<cond>_..., s_cmpk_<cond>_...
            if w not in dict(CONDS):
                fail(f"{m}: unknown compare condition {w!r}")
            cond = w
            continue
        if w in TYPE_BITS:
            types.append(w)
            continue
        if memory and w in MEM_SPELLINGS:
            types.append(MEM_SPELLINGS[w])
            continue
        if memory and DWORDX_RE.match(w):
            types.append("b32")
            count = int(DWORDX_RE.match(w).group(1))
            continue
        if memory and w in COMPONENTS and "format" in rest:
            count = COMPONENTS[w]
            continue
        if w == "x2":
            count = 2
            continue
        if family in MFMA_FAMILIES and SHAPE_RE.match(w):
            g = SHAPE_RE.match(w)
            shape = (int(g.group(1)), int(g.group(2)), int(g.group(3)))
            if g.group(4):
                if g.group(4) not in TYPE_BITS:
                    fail(f"{m}: unknown type {g.group(4)!r} glued to the MFMA shape")
                types.append(g.group(4))
                flags |= FLAG_BIT["legacy_name"]
            continue
        if family in MFMA_FAMILIES and BLOCKS_RE.match(w):
            blocks = int(BLOCKS_RE.match(w).group(1))
            continue
        if w == "co":
            flags |= FLAG_BIT["co"]
            continue
        if memory and w == "rtn":
            flags |= FLAG_BIT["rtn"]
            continue
        if memory and w == "d16":
            flags |= FLAG_BIT["d16"]
            if i < len(rest) and rest[i] == "hi":
                flags |= FLAG_BIT["d16_hi"]
                i += 1
            continue
        if memory and w == "lds":
            flags |= FLAG_BIT["lds"]
            continue
        if memory and w.endswith("st64") and len(w) > 4:
            flags |= FLAG_BIT["st64"]
            stem.append(w[:-4])
            continue
        if family in ("s_saveexec", "s_wrexec") and w in ("saveexec", "wrexec"):
            continue
        if w.startswith("pk") or w == "pack":
            flags |= FLAG_BIT["packed"]
        if w in ("mac", "fmac") or re.match(r"^dot\dc$", w):
            flags |= FLAG_BIT["accum"]
        stem.append(w)
    if family == "v_smfmac":
        flags |= FLAG_BIT["accum"]  # SMFMAC's C matrix is its destination (TableGen ties $vdst to $src2)
    if len(types) > 3:
        fail(f"{m}: more than three data types")
    if memory and not types and "atomic" in rest:
        types.append("b32")  # MI300 ISA naming: an atomic without a type is 32-bit; `_x2` is the 64-bit one
    if types and not count:
        count = 2 if (memory and flags & FLAG_BIT["packed"]) else 1
    t0 = types[0] if types else ""
    t1 = types[1] if len(types) > 1 else t0
    t2 = types[2] if len(types) > 2 else t1
    mem_bytes = 0
    if memory and t0 and TYPE_BITS[t0] % 8 == 0:
        mem_bytes = TYPE_BITS[t0] // 8 * count
    return {"unit": unit, "family": family, "base": "_".join(stem), "cond": cond, "type": t0, "src_type": t1,
            "src2_type": t2, "count": count, "mem_bytes": mem_bytes, "shape": shape, "blocks": blocks,
            "flags": flags}


def key(a: dict):
    return (a["family"], a["base"], a["cond"], a["type"], a["src_type"], a["src2_type"], a["count"], a["shape"],
            a["blocks"], a["flags"])


def flag_expr(bits: int) -> str:
    names = [n for n, _ in FLAGS if bits & FLAG_BIT[n]]
    return "|".join("fl::" + n for n in names) if names else "0"


def generate(root: pathlib.Path):
    tables = {}
    for t in TARGETS:
        inc = root / "include/asmevo/ir/gen" / f"{t}.inc"
        tables[t] = (inc, *read_tables(inc, fail))

    # Every op, with whether all of its forms on every target are SOPP (for the s_ctrl family).
    sopp_only: dict[str, bool] = {}
    for t in TARGETS:
        _, forms, mnemonics = tables[t]
        for name, first, count in mnemonics:
            all_sopp = all(f["format"] == "SOPP" for f in forms[first:first + count])
            sopp_only[name] = sopp_only.get(name, True) and all_sopp
    ops = sorted(sopp_only)
    for m in ops:
        spelling(m)
    index = {m: i + 1 for i, m in enumerate(ops)}  # 0 is Opcode::invalid
    info = {m: decompose(m, family_of(m, sopp_only[m])) for m in ops}

    seen = {}
    for m in ops:
        k = key(info[m])
        if k in seen:
            fail(f"{seen[k]} and {m} decompose to the same attributes; extend the rules so they differ")
        seen[k] = m

    families = []
    for name, _, _ in FAMILY_RULES:
        if name not in families and any(info[m]["family"] == name for m in ops):
            families.append(name)
    family_doc = {}
    for name, _, doc in FAMILY_RULES:
        if doc and name not in family_doc:
            family_doc[name] = doc
    bases = sorted({info[m]["base"] for m in ops})
    for b in bases:
        spelling(b)
    used_types = {info[m][f] for m in ops for f in ("type", "src_type", "src2_type")} - {""}
    if used_types - set(TYPE_BITS):
        fail(f"unknown types {sorted(used_types - set(TYPE_BITS))}")

    n = len(ops) + 1
    out = []
    w = out.append
    w("// Typed opcode ids (one Opcode per mnemonic of gfx90a, gfx942 and gfx950) and per-op attributes decoded from the")
    w("// mnemonic once, here, so that code asks an op id or a property and never compares mnemonic text.")
    w("// GENERATED by tools/isagen/gen_ops.py from")
    for t in TARGETS:
        inc = tables[t][0]
        w(f"//   {inc.relative_to(root).as_posix()} (sha256 {hashlib.sha256(inc.read_bytes()).hexdigest()})")
    w("// Regenerate: python3 tools/isagen/gen_ops.py   (reads the generated .inc files only; under a second;")
    w("// tools/isagen/regen.sh runs it after isagen.py). Check: python3 tools/isagen/gen_ops.py --check.")
    w("// DO NOT EDIT. Use it through asmevo/ir/op.hpp (op_of, forms_of, find_op).")
    w("// Opcode values follow mnemonic order and change whenever the tables gain or lose a mnemonic: never store them")
    w("// (files, logs, edit scripts); store op_name(op) and look it up again.")
    w("#pragma once")
    w("")
    w("#include <array>")
    w("#include <cstddef>")
    w("#include <cstdint>")
    w("#include <span>")
    w("#include <string_view>")
    w("")
    w('#include "asmevo/ir/target.hpp"')
    w("")
    w("namespace asmevo {")
    w("")
    w("/// One id per distinct mnemonic of the union of gfx90a, gfx942 and gfx950, in mnemonic order; `invalid` (0) is")
    w("/// no instruction. An op need not exist on every target: see available(). Spelled as the ISA spells it")
    w("/// (`op::v_add_u32`); a mnemonic that is a C++ keyword would get a trailing underscore (none is).")
    w("enum class Opcode : std::uint16_t {")
    w("  invalid = 0,")
    for m in ops:
        w(f"  {spelling(m)},")
    w("};")
    w("")
    w("/// `op::v_add_u32` for `Opcode::v_add_u32`.")
    w("namespace op {")
    w("using enum Opcode;")
    w("}  // namespace op")
    w("")
    w("/// Number of Opcode values, `invalid` included (Opcode values are 0 .. num_ops - 1).")
    w(f"inline constexpr std::size_t num_ops = {n};")
    w("")
    w("/// The mnemonic's first word: which unit or memory path executes it.")
    w("enum class OpUnit : std::uint8_t {")
    w("  none,  ///< Opcode::invalid")
    for name, doc in UNITS:
        w(f"  {spelling(name)},  ///< {doc}")
    w("};")
    w("")
    w("/// An op's family: what kind of instruction it is, one per op, from the mnemonic (rules in gen_ops.py). The")
    w("/// `*_alu`, `s_ctrl` and memory-unit families (`ds`, `global` ...) hold what no narrower family names.")
    w("enum class Family : std::uint8_t {")
    w("  none,  ///< Opcode::invalid")
    for f in families:
        w(f"  {spelling(f)},  ///< {family_doc[f]}")
    w("};")
    w("")
    w("/// The condition of a compare (v_cmp, v_cmpx, s_cmp, s_cmpk), as the mnemonic spells it; `none` otherwise.")
    w("enum class CmpCond : std::uint8_t {")
    w("  none,")
    for name, doc in CONDS:
        w(f"  {spelling(name)},  ///< {doc}")
    w("};")
    w("")
    w("/// A data type word of the mnemonic. Memory spellings are mapped: dword -> b32, ubyte -> u8, sbyte -> i8,")
    w("/// ushort -> u16, sshort -> i16, byte -> b8, short -> b16. bN: untyped, iN: signed, uN: unsigned, fN/bf16:")
    w("/// float; fp8/bf8/fp6/bf6/fp4: OCP 8/6/4-bit floats; xf32: MFMA's reduced-precision f32.")
    w("enum class DataType : std::uint8_t {")
    w("  none,")
    for name, bits in TYPES:
        w(f"  {name},")
    w("};")
    w("")
    w("/// Width of a DataType in bits (0 for none and f8f6f4, whose width cbsz/blgp choose).")
    w("[[nodiscard]] constexpr unsigned bits(DataType t) noexcept {")
    w(f"  constexpr std::array<std::uint8_t, {len(TYPES) + 1}> b{{{{0, {', '.join(str(b) for _, b in TYPES)}}}}};")
    w("  return static_cast<std::size_t>(t) < b.size() ? b[static_cast<std::size_t>(t)] : 0u;")
    w("}")
    w("")
    w("/// An op's base operation: its mnemonic without data types, element counts, compare condition, MFMA shape and")
    w("/// the words opflag names (and without `saveexec`/`wrexec`, whose family says so): s_and_b32, s_and_b64 and")
    w("/// s_and_saveexec_b64 are all `s_and`; global_load_dword, global_load_ubyte_d16_hi and global_load_lds_dwordx4")
    w("/// are all `global_load`; every v_cmp_*_* is `v_cmp`.")
    w("enum class BaseOp : std::uint16_t {")
    w("  none,")
    for b in bases:
        w(f"  {spelling(b)},")
    w("};")
    w("")
    w("/// OpInfo::flags bits: words of the mnemonic that modify the base operation.")
    w("namespace opflag {")
    for name, doc in FLAGS:
        w(f"inline constexpr std::uint16_t {name} = {FLAG_BIT[name]:#x};  ///< {doc}")
    w("}  // namespace opflag")
    w("")
    w("/// What an op's mnemonic says about it. Lossless: no two ops have equal OpInfo (find_op relies on it).")
    w("/// Per-form facts (encoding, operands, TableGen properties) stay in isa::FormInfo.")
    w("struct OpInfo {")
    w("  Family family;")
    w("  OpUnit unit;")
    w("  CmpCond cond;        ///< compare condition (compare families only)")
    w("  DataType type;       ///< first data type: the result type (v_cvt_f32_f16: f32), or the only one")
    w("  DataType src_type;   ///< second data type (v_cvt_f32_f16: f16; MFMA: the A matrix), else type")
    w("  DataType src2_type;  ///< third data type (MFMA B matrix: v_mfma_f32_16x16x32_bf8_fp8: fp8), else src_type")
    w("  std::uint8_t count;  ///< elements of `type` per lane: dwordxN -> N, `_x2` -> 2, packed memory op -> 2,")
    w("                       ///< format xyzw -> 4; 1 for a single typed element; 0 when the mnemonic names none")
    w("  std::uint8_t mem_bytes;  ///< bytes one lane reads or writes at one address (DS read2/write2: at each of")
    w("                           ///< the two); memory ops only; 0 when the mnemonic does not say (format, image)")
    w("  std::uint8_t mfma_m, mfma_n, mfma_k;  ///< MFMA/SMFMAC shape MxNxK (v_mfma_f32_32x32x8_f16: 32, 32, 8); else 0")
    w("  std::uint8_t mfma_blocks;  ///< MFMA `_Nb` block count word (v_mfma_f32_16x16x1_4b_f32: 4); else 0")
    w("  BaseOp base;")
    w("  std::uint16_t flags;  ///< opflag:: bits")
    w("")
    w("  [[nodiscard]] constexpr bool has(std::uint16_t f) const noexcept { return (flags & f) == f; }")
    w("  /// Memory dwords per lane and address, rounded up (global_load_dwordx4: 4; global_load_ubyte: 1).")
    w("  [[nodiscard]] constexpr unsigned mem_dwords() const noexcept { return (mem_bytes + 3u) / 4u; }")
    w("  /// True if any of the mnemonic's data types is `t` (v_cvt_f32_f64 mentions f64).")
    w("  [[nodiscard]] constexpr bool mentions(DataType t) const noexcept {")
    w("    return t != DataType::none && (type == t || src_type == t || src2_type == t);")
    w("  }")
    w("  friend constexpr bool operator==(const OpInfo&, const OpInfo&) = default;")
    w("};")
    w("")
    w("/// A run of forms of one op in a target's form table (isa::forms(t).subspan(first, count)); count 0: absent.")
    w("struct OpForms {")
    w("  std::uint16_t first;")
    w("  std::uint16_t count;")
    w("};")
    w("")
    w("namespace ops_detail {")
    w("using F = Family; using U = OpUnit; using C = CmpCond; using T = DataType; using B = BaseOp;")
    w("namespace fl = opflag;")
    w("")
    w(f"inline constexpr std::array<std::string_view, {n}> op_names{{{{")
    w('  "",')
    for m in ops:
        w(f'  "{m}",')
    w("}};")
    w("")

    def tname(x):
        return "T::" + x if x else "T::none"

    w("// family, unit, cond, type, src_type, src2_type, count, mem_bytes, mfma m, n, k, blocks, base, flags")
    w(f"inline constexpr std::array<OpInfo, {n}> op_infos{{{{")
    w("  {F::none, U::none, C::none, T::none, T::none, T::none, 0, 0, 0, 0, 0, 0, B::none, 0},")
    for m in ops:
        a = info[m]
        w(f"  {{F::{spelling(a['family'])}, U::{spelling(a['unit'])}, C::{spelling(a['cond']) if a['cond'] else 'none'}, "
          f"{tname(a['type'])}, {tname(a['src_type'])}, {tname(a['src2_type'])}, {a['count']}, {a['mem_bytes']}, "
          f"{a['shape'][0]}, {a['shape'][1]}, {a['shape'][2]}, {a['blocks']}, B::{spelling(a['base'])}, "
          f"{flag_expr(a['flags'])}}},  // {m}")
    w("}};")
    w("")
    w(f"inline constexpr std::array<std::string_view, {len(bases) + 1}> base_names{{{{")
    w('  "",')
    for b in bases:
        w(f'  "{b}",')
    w("}};")
    w("")
    w(f"inline constexpr std::array<std::string_view, {len(families) + 1}> family_names{{{{")
    w('  "",')
    for f in families:
        w(f'  "{f}",')
    w("}};")
    w(f"inline constexpr std::array<std::string_view, {len(UNITS) + 1}> unit_names{{{{")
    w('  "", ' + ", ".join(f'"{u}"' for u, _ in UNITS) + ",")
    w("}};")
    w(f"inline constexpr std::array<std::string_view, {len(CONDS) + 1}> cond_names{{{{")
    w('  "", ' + ", ".join(f'"{c}"' for c, _ in CONDS) + ",")
    w("}};")
    w(f"inline constexpr std::array<std::string_view, {len(TYPES) + 1}> type_names{{{{")
    w('  "", ' + ", ".join(f'"{t}"' for t, _ in TYPES) + ",")
    w("}};")
    w("")
    w("template <class E, std::size_t N>")
    w("[[nodiscard]] constexpr std::string_view name_in(const std::array<std::string_view, N>& names, E e) noexcept {")
    w("  const auto i = static_cast<std::size_t>(e);")
    w("  return i < N ? names[i] : std::string_view{};")
    w("}")
    w("}  // namespace ops_detail")
    w("")
    for t in TARGETS:
        _, forms, mnemonics = tables[t]
        w(f"namespace isa::{t} {{")
        w(f"/// Opcode of each form of {t} (index: as in form_table).")
        w(f"inline constexpr std::array<Opcode, {len(forms)}> form_ops{{{{")
        ids = [index[f["mnemonic"]] for f in forms]
        for k in range(0, len(ids), 24):
            w("  " + ",".join(f"Opcode({x})" for x in ids[k:k + 24]) + ",")
        w("}};")
        w(f"/// Forms of each op on {t} (index: Opcode value); count 0 where {t} lacks the op.")
        w(f"inline constexpr std::array<OpForms, {n}> op_forms{{{{")
        runs = {index[name]: (first, count) for name, first, count in mnemonics}
        cells = [runs.get(i, (0, 0)) for i in range(n)]
        for k in range(0, n, 16):
            w("  " + ",".join(f"{{{a},{b}}}" for a, b in cells[k:k + 16]) + ",")
        w("}};")
        w(f"}}  // namespace isa::{t}")
        w("")
    w("/// The mnemonic of `o` (\"\" for Opcode::invalid or a value out of range).")
    w("[[nodiscard]] constexpr std::string_view op_name(Opcode o) noexcept { return ops_detail::name_in(ops_detail::op_names, o); }")
    w("")
    w("/// What the mnemonic of `o` says about it (all zero for Opcode::invalid or a value out of range).")
    w("[[nodiscard]] constexpr const OpInfo& op_info(Opcode o) noexcept {")
    w("  const auto i = static_cast<std::size_t>(o);")
    w("  return ops_detail::op_infos[i < num_ops ? i : 0];")
    w("}")
    w("")
    w("[[nodiscard]] constexpr std::string_view to_string(Family f) noexcept { return ops_detail::name_in(ops_detail::family_names, f); }")
    w("[[nodiscard]] constexpr std::string_view to_string(OpUnit u) noexcept { return ops_detail::name_in(ops_detail::unit_names, u); }")
    w("[[nodiscard]] constexpr std::string_view to_string(CmpCond c) noexcept { return ops_detail::name_in(ops_detail::cond_names, c); }")
    w("[[nodiscard]] constexpr std::string_view to_string(DataType t) noexcept { return ops_detail::name_in(ops_detail::type_names, t); }")
    w("[[nodiscard]] constexpr std::string_view to_string(BaseOp b) noexcept { return ops_detail::name_in(ops_detail::base_names, b); }")
    w("")
    w("/// The Opcode of each form of target `t`, indexed like isa::forms(t).")
    w("[[nodiscard]] constexpr std::span<const Opcode> form_ops(Target t) noexcept {")
    w("  switch (t) {")
    for t in TARGETS:
        w(f"    case Target::{t}: return isa::{t}::form_ops;")
    w("  }")
    w("  return {};")
    w("}")
    w("")
    w("/// Where the forms of `o` are in isa::forms(t); {0, 0} if `t` lacks `o`. O(1).")
    w("[[nodiscard]] constexpr OpForms op_forms(Target t, Opcode o) noexcept {")
    w("  const auto i = static_cast<std::size_t>(o);")
    w("  if (i >= num_ops) return {0, 0};")
    w("  switch (t) {")
    for t in TARGETS:
        w(f"    case Target::{t}: return isa::{t}::op_forms[i];")
    w("  }")
    w("  return {0, 0};")
    w("}")
    w("")
    w("/// True if target `t` has at least one form of `o`.")
    w("[[nodiscard]] constexpr bool available(Target t, Opcode o) noexcept { return op_forms(t, o).count != 0; }")
    w("")
    w("}  // namespace asmevo")
    w("")
    return "\n".join(out), form_traits(root, tables, info), len(ops), len(families), len(bases)


# Per-form bits that the operand checks of the parser and of the typed builders need, so that neither has to include
# ops.hpp (the builders' compile time; issue 29) nor read a mnemonic. Each is a fact about the op, taken from info[].
FORM_TRAITS = [
    ("const_bus_exempt", lambda a: a["base"] in ("v_readlane", "v_writelane"),
     "v_readlane_b32/v_writelane_b32: the lane select does not count against the constant bus limit "
     "(SIInstrInfo::verifyInstruction)"),
    ("mfma_f8f6f4", lambda a: a["family"] == "v_mfma" and a["src_type"] == "f8f6f4",
     "gfx950 MFMA whose A/B formats cbsz/blgp choose: tuple sizes follow the format, and the src2/vdst overlap rule "
     "does not apply (as in llvm-mc-22)"),
]


def form_traits(root: pathlib.Path, tables: dict, info: dict) -> str:
    out = []
    w = out.append
    w("// Per-form traits that the operand checks need (asmevo/ir/parser.hpp, asmevo/ir/builder.hpp), one byte per form,")
    w("// indexed like isa::forms(t). Cheap to include: it does not pull in the opcode tables (asmevo/ir/gen/ops.hpp).")
    w("// GENERATED by tools/isagen/gen_ops.py (FORM_TRAITS) from")
    for t in TARGETS:
        inc = tables[t][0]
        w(f"//   {inc.relative_to(root).as_posix()} (sha256 {hashlib.sha256(inc.read_bytes()).hexdigest()})")
    w("// Regenerate: python3 tools/isagen/gen_ops.py (writes ops.hpp too). Check: python3 tools/isagen/gen_ops.py --check.")
    w("// DO NOT EDIT.")
    w("#pragma once")
    w("")
    w("#include <array>")
    w("#include <cstddef>")
    w("#include <cstdint>")
    w("")
    w('#include "asmevo/ir/target.hpp"')
    w("")
    w("namespace asmevo::isa {")
    w("")
    w("namespace ftrait {")
    for bit, (name, _, doc) in enumerate(FORM_TRAITS):
        w(f"inline constexpr std::uint8_t {name} = 0x{1 << bit:x};  ///< {doc}")
    w("}  // namespace ftrait")
    w("")
    for t in TARGETS:
        _, forms, _ = tables[t]
        bits = []
        for f in forms:
            a = info[f["mnemonic"]]
            bits.append(sum(1 << b for b, (_, pred, _) in enumerate(FORM_TRAITS) if pred(a)))
        w(f"namespace {t} {{")
        w(f"inline constexpr std::array<std::uint8_t, {len(forms)}> form_trait_table{{{{")
        for k in range(0, len(bits), 48):
            w("  " + ",".join(str(x) for x in bits[k:k + 48]) + ",")
        w("}};")
        w(f"}}  // namespace {t}")
        w("")
    w("/// The ftrait:: bits of form `form` of target `t` (0 when out of range). O(1).")
    w("[[nodiscard]] constexpr std::uint8_t form_traits(Target t, std::size_t form) noexcept {")
    w("  switch (t) {")
    for t in TARGETS:
        w(f"    case Target::{t}: return form < {t}::form_trait_table.size() ? {t}::form_trait_table[form] : 0;")
    w("  }")
    w("  return 0;")
    w("}")
    w("")
    w("}  // namespace asmevo::isa")
    w("")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parents[2], type=pathlib.Path,
                    help="repository root (default: two levels above this script)")
    ap.add_argument("--check", action="store_true", help="exit 1 if the generated header is out of date")
    args = ap.parse_args()
    root = args.root.resolve()
    text, traits, nops, nfam, nbase = generate(root)
    outputs = [(OUT, text), (OUT_TRAITS, traits)]
    if args.check:
        stale = [rel for rel, body in outputs if not (root / rel).exists() or (root / rel).read_text() != body]
        for rel in stale:
            print(f"out of date: {rel}")
        return 1 if stale else 0
    for rel, body in outputs:
        if (root / rel).exists() and (root / rel).read_text() == body:
            continue  # unchanged: keep its timestamp, so that a build does not recompile every includer
        tmp = root / (rel + ".tmp")
        tmp.write_text(body)
        tmp.replace(root / rel)
    print(f"wrote {OUT} ({nops} ops, {nfam} families, {nbase} base operations) and {OUT_TRAITS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
