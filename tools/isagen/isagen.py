#!/usr/bin/env python3
"""Generates asmevo's per-target instruction tables (include/asmevo/ir/gen/) from LLVM's AMDGPU TableGen records.

Input: the output of `llvm-tblgen-22 --dump-json` on llvm/lib/Target/AMDGPU/AMDGPU.td (see
../../../shared/notes/llvm-tablegen.md for the record layout and the selection rules implemented here).
Output: one constexpr data file per target plus the header that exposes them; deterministic, so a rerun on the
same JSON gives byte-identical files.

Python 3.11 standard library only. Every operand class is mapped through an explicit table below; anything the
tables do not cover stops the run with the record and operand named, so no operand is ever silently dropped.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field

TARGETS = ("gfx90a", "gfx942", "gfx950")
LLVM_VERSION = "22.1.8"
ORIG_TARBALL = "llvm-toolchain-22_22.1.8.orig.tar.xz"
ORIG_SHA256 = "b49b9277aef97616320b2da259e1f8174c65b0ce2fbe2e8629644a97693402fe"

# The note's table (llvm-tablegen.md §6): forms = asm-matchable ∪ decodable reals, distinct mnemonics.
EXPECTED = {"gfx90a": (3529, 1136), "gfx942": (3258, 1152), "gfx950": (3454, 1249)}

# AMDGPU Target's AssemblyParserVariants: the AsmVariantNames the assembler matches against (note §6).
ASM_VARIANTS = {"Default", "VOP3", "SDWA", "SDWA9", "DPP", "VOP3_DPP"}


class GenError(Exception):
    """A record the generator does not know how to map; the message names it."""


def fail(msg: str):
    raise GenError(msg)


# ---------------------------------------------------------------------------------------------------------------
# Record access helpers
# ---------------------------------------------------------------------------------------------------------------

def ref(v):
    """A def reference's name, or the value itself."""
    return v["def"] if isinstance(v, dict) and v.get("kind") == "def" else v


def tsbit(rec, n: int) -> bool:
    """TSFlags bit n. The named fields (IsMAI, VOP3P, ...) are often left 0 on reals while the bit list is copied
    from the pseudo, so bits are the only reliable source (note §4)."""
    b = rec["TSFlags"]
    return n < len(b) and b[n] == 1


# TSFlags bit numbers, from llvm/lib/Target/AMDGPU/SIInstrFormats.td (InstSI: `let TSFlags{N} = ...`).
TS = dict(SALU=0, VALU=1, SOP1=2, SOP2=3, SOPC=4, SOPK=5, SOPP=6, VOP1=7, VOP2=8, VOPC=9, VOP3=10, VOP3P=12,
          VINTRP=13, SDWA=14, DPP=15, TRANS=16, MUBUF=17, MTBUF=18, SMRD=19, MIMG=20, EXP=23, FLAT=24, DS=25,
          VM_CNT=32, EXP_CNT=33, LGKM_CNT=34, FixedSize=40, IsPacked=49, FlatGlobal=51, IsMAI=54, IsDOT=55,
          FlatScratch=56, IsAtomicNoRet=57, IsAtomicRet=58, GWS=62)


class Records:
    def __init__(self, data: dict):
        self.J = data
        self.inst = data["!instanceof"]

    def __getitem__(self, k):
        return self.J[k]

    def __contains__(self, k):
        return k in self.J


# ---------------------------------------------------------------------------------------------------------------
# Targets: features, predicates, HwModes (note §5)
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class Target:
    name: str
    features: set[str]  # SubtargetFeature def names, closed over Implies
    hwmode: str


def feature_closure(R: Records, feats) -> set[str]:
    out, todo = set(), [ref(f) for f in feats]
    while todo:
        f = todo.pop()
        if f not in out:
            out.add(f)
            todo += [ref(x) for x in R[f]["Implies"]]
    return out


def eval_cond(R: Records, d, fs: set[str]) -> bool:
    """Evaluates an AssemblerCondDag (all_of / any_of / not over SubtargetFeature defs)."""
    if d is None:
        return True
    if d.get("kind") == "def":
        return d["def"] in fs
    op = ref(d["operator"])
    args = [eval_cond(R, a[0], fs) for a in d["args"]]
    if op == "all_of":
        return all(args)
    if op == "any_of":
        return any(args)
    if op == "not" and len(args) == 1:
        return not args[0]
    fail(f"unknown AssemblerCondDag operator {op!r}")


def preds_hold(R: Records, preds, fs: set[str]) -> bool:
    """The matcher and the decoder check exactly the Predicates that are AssemblerMatcherPredicates (note §5)."""
    for p in preds or []:
        p = ref(p)
        if R[p].get("AssemblerMatcherPredicate") == 1 and not eval_cond(R, R[p]["AssemblerCondDag"], fs):
            return False
    return True


def make_target(R: Records, name: str) -> Target:
    procs = {R[n]["Name"]: R[n] for n in R.inst["Processor"]}
    fs = feature_closure(R, procs[name]["Features"])
    # A RegClassByHwMode picks its class by the HwMode whose predicates hold; DefaultMode when none does.
    modes = sorted(n for n in R.inst["HwMode"] if n != "DefaultMode" and preds_hold(R, R[n]["Predicates"], fs))
    if len(modes) > 1:
        fail(f"{name}: more than one HwMode applies: {modes}")
    return Target(name, fs, modes[0] if modes else "DefaultMode")


def select_forms(R: Records, t: Target, reals: list[str]) -> dict[str, tuple[bool, bool]]:
    """Record name -> (asm-matchable, decodable) for every real encodable on t (note §6)."""
    # Decoder tables AMDGPUDisassembler::getInstruction tries on a gfx9-family target.
    tables = {"GFX8", "GFX9", "AMDGPU"}
    for feat, table in (("FeatureGFX90AInsts", "GFX90A"), ("FeatureGFX940Insts", "GFX940"),
                        ("FeatureGFX950Insts", "GFX950"), ("FeatureFmaMixInsts", "GFX9_DL")):
        if feat in t.features:
            tables.add(table)
    out = {}
    for n in reals:
        r = R[n]
        if not preds_hold(R, r["Predicates"], t.features):
            continue
        asm = r["AsmVariantName"] in ASM_VARIANTS and bool(r["AsmString"])
        dec = r["DecoderNamespace"] in tables and not r["isAsmParserOnly"]
        if asm or dec:
            out[n] = (asm, dec)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Register classes: evaluate MemberList set algebra to physical registers, then summarise by register file
# ---------------------------------------------------------------------------------------------------------------

# Register-file bits (RegFile in isa_info.hpp; keep in sync: the header is the contract, the generator checks it).
REGFILE = ["sgpr", "vgpr", "agpr", "ttmp", "vcc", "exec", "m0", "flat_scratch", "xnack_mask", "scc", "null",
           "src_shared_base", "src_shared_limit", "src_private_base", "src_private_limit",
           "src_pops_exiting_wave_id", "src_execz", "src_vccz", "src_scc", "lds_direct", "mode",
           "inline_const", "literal"]
RF = {n: 1 << i for i, n in enumerate(REGFILE)}

# Physical registers -> (file, first index, dwords). Register tuples (v[0:1], s[4:7], ...) are classified by the
# AsmName their RegisterTuples record gives them; single registers by AsmName when they are numbered GPRs and by
# record name otherwise (AsmName is ambiguous there: SRC_SHARED_BASE_LO spells itself "src_shared_base" too).
_TUPLE = re.compile(r"^(v|a|s|ttmp)(?:(\d+)|\[(\d+):(\d+)\])$")
_SPECIAL = [  # (record-name regex, file, dwords)
    (r"VCC", "vcc", 2), (r"VCC_(LO|HI)", "vcc", 1), (r"EXEC", "exec", 2), (r"EXEC_(LO|HI)", "exec", 1),
    (r"M0", "m0", 1), (r"FLAT_SCR", "flat_scratch", 2), (r"FLAT_SCR_(LO|HI)", "flat_scratch", 1),
    (r"XNACK_MASK", "xnack_mask", 2), (r"XNACK_MASK_(LO|HI)", "xnack_mask", 1), (r"SCC", "scc", 1),
    (r"SGPR_NULL", "null", 1), (r"SGPR_NULL64", "null", 2), (r"SGPR_NULL128", "null", 4),
    (r"SGPR_NULL256", "null", 8), (r"SGPR_NULL512", "null", 16),
    (r"SRC_SHARED_BASE", "src_shared_base", 2), (r"SRC_SHARED_BASE_LO", "src_shared_base", 1),
    (r"SRC_SHARED_LIMIT", "src_shared_limit", 2), (r"SRC_SHARED_LIMIT_LO", "src_shared_limit", 1),
    (r"SRC_PRIVATE_BASE", "src_private_base", 2), (r"SRC_PRIVATE_BASE_LO", "src_private_base", 1),
    (r"SRC_PRIVATE_LIMIT", "src_private_limit", 2), (r"SRC_PRIVATE_LIMIT_LO", "src_private_limit", 1),
    (r"SRC_POPS_EXITING_WAVE_ID", "src_pops_exiting_wave_id", 1), (r"SRC_EXECZ", "src_execz", 1),
    (r"SRC_VCCZ", "src_vccz", 1), (r"SRC_SCC", "src_scc", 1), (r"LDS_DIRECT", "lds_direct", 1),
    (r"MODE", "mode", 1),
]
_SPECIAL = [(re.compile(f"^(?:{p})$"), f, w) for p, f, w in _SPECIAL]

# Registers that class MemberLists contain but that AMDGPUAsmParser::isRegisterAvailable rejects on every gfx9
# target: TBA/TMA (GFX6-8 only) and SRC_FLAT_SCRATCH_BASE_* (gfx1250); SGPR_NULL_HI has no AsmName at all.
_IGNORED_REGS = re.compile(r"^(T[BM]A|T[BM]A_(LO|HI)|SRC_FLAT_SCRATCH_BASE(_LO|_HI)?|SGPR_NULL_HI)$")


def classify_reg(key: str, asm: str, where: str):
    m = _TUPLE.match(asm)
    if m:
        kind = {"v": "vgpr", "a": "agpr", "s": "sgpr", "ttmp": "ttmp"}[m.group(1)]
        if m.group(2) is not None:
            return kind, int(m.group(2)), 1
        lo, hi = int(m.group(3)), int(m.group(4))
        return kind, lo, hi - lo + 1
    for rx, f, w in _SPECIAL:
        if rx.match(key):
            return f, 0, w
    if _IGNORED_REGS.match(key):
        return None
    fail(f"{where}: register {key} ({asm!r}) has no register-file mapping")


# Register files in a class's membership that the assembler still rejects on the target (checked in C++, not in
# records): `null` needs GFX10 (AMDGPUAsmParser::isRegisterAvailable); lds_direct is refused on gfx90a and later
# (AMDGPUAsmParser::validateLdsDirect: "lds_direct is not supported on this GPU"). Verified with llvm-mc-22.
def unavailable_files(t: "Target") -> int:
    m = 0
    if "FeatureGFX10Insts" not in t.features:
        m |= RF["null"]
    if "FeatureGFX90AInsts" in t.features:
        m |= RF["lds_direct"]
    return m


@dataclass(frozen=True)
class RegSummary:
    mask: int
    bits: int
    valign: int  # dword alignment of VGPR/AGPR tuples
    salign: int  # dword alignment of SGPR/TTMP tuples


class RegClasses:
    def __init__(self, R: Records):
        self.R = R
        self.cache: dict[str, list] = {}
        self.tuple_names: dict[str, list[str]] = {}

    def members(self, name: str) -> list[tuple[str, str]]:
        """(key, AsmName) of each register of a RegisterClass / RegisterTuples / Register, in TableGen order; the
        key is the record name of a Register and the AsmName of a tuple (tuples have no records of their own)."""
        if name in self.cache:
            return self.cache[name]
        R = self.R
        sc = R[name]["!superclasses"]
        if "RegisterTuples" in sc:
            r = R[name]
            subs = [self.eval_set(d, name) for d in r["SubRegs"]]
            n = min(len(s) for s in subs)
            names = r.get("RegAsmNames") or []
            if len(names) < n:
                fail(f"{name}: RegisterTuples without enough RegAsmNames")
            out = [(x, x) for x in names[:n]]
        elif "RegisterClass" in sc:
            out = self.eval_set(R[name]["MemberList"], name)
        elif "Register" in sc:
            out = [(name, R[name]["AsmName"])]
        else:
            fail(f"{name}: not a register, tuple or register class")
        self.cache[name] = out
        return out

    def eval_set(self, d, where) -> list[tuple[str, str]]:
        """TableGen's register-set algebra (llvm/include/llvm/Target/Target.td, SetTheory)."""
        if isinstance(d, dict) and d.get("kind") == "def":
            return self.members(d["def"])
        if not (isinstance(d, dict) and d.get("kind") == "dag"):
            fail(f"{where}: unexpected register set element {d!r}")
        op = ref(d["operator"])
        a = [x[0] for x in d["args"]]
        if op == "add":
            out, seen = [], set()
            for x in a:
                for m in self.eval_set(x, where):
                    if m not in seen:
                        seen.add(m)
                        out.append(m)
            return out
        if op == "sub":
            base = self.eval_set(a[0], where)
            drop = set().union(*(self.eval_set(x, where) for x in a[1:]))
            return [m for m in base if m not in drop]
        if op == "and":
            base = self.eval_set(a[0], where)
            keep = set(self.eval_set(a[1], where))
            return [m for m in base if m in keep]
        if op == "shl":
            return self.eval_set(a[0], where)[a[1]:]
        if op == "trunc":
            return self.eval_set(a[0], where)[:a[1]]
        if op == "decimate":
            return self.eval_set(a[0], where)[::a[1]]
        if op == "rotl":
            s = self.eval_set(a[0], where)
            k = a[1] % len(s) if s else 0
            return s[k:] + s[:k]
        if op == "rotr":
            s = self.eval_set(a[0], where)
            k = a[1] % len(s) if s else 0
            return s[len(s) - k:] + s[:len(s) - k]
        if op == "sequence":
            fmt, lo, hi = a[0], a[1], a[2]
            step = a[3] if len(a) > 3 else 1
            rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
            out = []
            for i in rng:
                nm = fmt % i if "%" in fmt else fmt
                out += self.members(nm)
            return out
        fail(f"{where}: unknown register set operator {op!r}")

    def summary(self, cls: str, t: Target) -> RegSummary:
        R = self.R
        # The logical width is the one the operand class declares: AV_LdSt_32_Align2 (ds_gws_* data0) is a 32-bit
        # operand that resolves to AV_64_Align2 on gfx90a+ only to force an even register (its printer prints sub0).
        declared = R[cls].get("Size") or 0
        orig = cls
        cls = self.resolve(cls, t)
        mask, widths, vstarts, sstarts = 0, set(), [], []
        for key, asm in self.members(cls):
            c = classify_reg(key, asm, cls)
            if c is None:
                continue
            f, start, w = c
            mask |= RF[f]
            widths.add(w)
            if w > 1 and f in ("vgpr", "agpr"):
                vstarts.append(start)
            if w > 1 and f in ("sgpr", "ttmp"):
                sstarts.append(start)
        size = declared or R[cls].get("Size") or 0
        if not size:
            if len(widths) != 1:
                fail(f"{cls}: Size 0 and members of mixed widths {sorted(widths)}")
            size = 32 * widths.pop()

        def align(starts):
            g = 0
            for s in starts:
                g = math.gcd(g, s)
            return min(g, 4) if starts else 1  # gcd 0 (one tuple at 0) never happens for real classes
        valign = align(vstarts)
        # With FeatureRequiresAlignedVGPRs (gfx90a+) the assembler rejects every odd VGPR/AGPR tuple, even in
        # operands whose class is not an _Align2 one (AMDGPUAsmParser::validateVGPRAlign: "vgpr tuples must be
        # 64 bit aligned"; e.g. the vaddr VReg_64 of tbuffer_load_format_d16_xyzw on gfx90a). Checked with llvm-mc.
        # Classes named `_Align1` (gfx950's ds_read_b96_tr_b6 vdst, AVLdSt_96_Align1) are the deliberate
        # exception: llvm-mc-22 accepts `ds_read_b96_tr_b6 v[1:3], v0` on gfx950.
        if ("FeatureRequiresAlignedVGPRs" in t.features and mask & (RF["vgpr"] | RF["agpr"]) and size >= 64
                and "Align1" not in orig and "Align1" not in cls):
            valign = max(valign, 2)
        return RegSummary(mask & ~unavailable_files(t), size, valign, align(sstarts))

    def resolve(self, cls: str, t: Target) -> str:
        """A RegClassByHwMode (e.g. VReg_64_AlignTarget) stands for one concrete class per HwMode."""
        r = self.R[cls]
        if "RegClassByHwMode" in r["!superclasses"]:
            modes = [ref(m) for m in r["Modes"]]
            objs = [ref(o) for o in r["Objects"]]
            if t.hwmode in modes:
                return objs[modes.index(t.hwmode)]
            return objs[modes.index("DefaultMode")]
        return cls


# ---------------------------------------------------------------------------------------------------------------
# Operand classes
# ---------------------------------------------------------------------------------------------------------------

KINDS = ["reg", "src", "imm", "kimm", "label", "named_int", "flag", "r128_a16", "cpol", "cpol_glc", "cpol_noglc",
         "omod", "bit_array", "blgp", "dpp_ctrl", "sdwa_sel", "sdwa_dst_unused", "format", "hwreg", "sendmsg",
         "swizzle", "waitcnt", "gpr_idx", "endpgm_imm"]

# AsmOperandClass Name -> Kind, for the operand classes that are not registers. The prefix (the keyword the
# assembler expects) is read from the ParserMethod where LLVM spells it there (parseIntWithPrefix("offset", ...)),
# else from this table.
ASM_CLASS_KIND = {
    "Imm": ("imm", ""), "S16Imm": ("imm", ""), "U16Imm": ("imm", ""), "SMEMOffset": ("imm", ""),
    "KImmFP32": ("kimm", ""), "KImmFP16": ("kimm", ""),
    "SOPPBrTarget": ("label", ""),
    "ABID": ("named_int", None), "CBSZ": ("named_int", None), "DMask": ("named_int", None),
    "DppBankMask": ("named_int", None), "DppRowMask": ("named_int", None), "DppBoundCtrl": ("named_int", None),
    "DppFI": ("named_int", None), "Offset": ("named_int", None), "Offset0": ("named_int", None),
    "Offset1": ("named_int", None), "SMEMOffsetMod": ("named_int", None), "BitOp3": ("named_int", None),
    "FlatOffset": ("named_int", "offset"),
    "Clamp": ("flag", None), "D16": ("flag", None), "DA": ("flag", None), "LWE": ("flag", None),
    "UNorm": ("flag", None), "GDS": ("flag", None), "TFE": ("flag", None), "High": ("flag", None),
    "R128A16": ("r128_a16", ""),  # printR128A16 prints "a16" when the target has FeatureR128A16, else "r128"
    "CPol": ("cpol", ""), "CPol_GLC": ("cpol_glc", ""), "CPol_NonGLC": ("cpol_noglc", ""),
    "OModSI": ("omod", ""),
    "OpSel": ("bit_array", None), "OpSelHi": ("bit_array", None), "NegLo": ("bit_array", None),
    "NegHi": ("bit_array", None),
    "BLGP": ("blgp", "blgp"),
    "DPPCtrl": ("dpp_ctrl", ""),
    "SDWADstSel": ("sdwa_sel", None), "SDWASrc0Sel": ("sdwa_sel", None), "SDWASrc1Sel": ("sdwa_sel", None),
    "SDWADstUnused": ("sdwa_dst_unused", "dst_unused"),
    "FORMAT": ("format", "format"),
    "Hwreg": ("hwreg", "hwreg"), "SendMsg": ("sendmsg", "sendmsg"), "Swizzle": ("swizzle", "offset"),
    "SWaitCnt": ("waitcnt", ""), "GPRIdxMode": ("gpr_idx", "gpr_idx"), "Endpgm": ("endpgm_imm", ""),
}

# Source-modifier operands (OPERAND_INPUT_MODS), by AsmOperandClass Name: which modifiers the parser accepts on
# the source that follows. fp = neg/abs (-x, |x|, neg(), abs()); int = sext(); none = the operand only carries
# op_sel bits (printOperand prints nothing for it).
MODS_KIND = {
    "RegOrImmWithFP16InputMods": "fp", "RegOrImmWithFP32InputMods": "fp", "RegOrImmWithFP64InputMods": "fp",
    "SDWAWithFP16InputMods": "fp", "SDWAWithFP32InputMods": "fp", "VRegWithFPInputMods": "fp",
    "PackedFP16InputMods": "fp", "PackedFP32InputMods": "fp",
    "RegOrImmWithInt32InputMods": "int", "RegOrImmWithInt16InputMods": "int", "SDWAWithInt16InputMods": "int",
    "SDWAWithInt32InputMods": "int", "SDWAWithBin32InputMods": "int", "VRegWithIntInputMods": "int",
    "OpSelMods": "none", "PackedInt16InputMods": "none",
}

VALUE_TYPES = ["none", "i16", "f16", "bf16", "v2i16", "v2f16", "v2bf16", "v2f16_splat", "i32", "f32", "v2i32",
               "v2f32", "i64", "f64"]
_OT_TYPE = {"INT16": "i16", "FP16": "f16", "BF16": "bf16", "V2INT16": "v2i16", "V2FP16": "v2f16",
            "V2BF16": "v2bf16", "V2FP16_SPLAT": "v2f16_splat", "INT32": "i32", "FP32": "f32", "V2INT32": "v2i32",
            "V2FP32": "v2f32", "INT64": "i64", "FP64": "f64", "KIMM32": "f32", "KIMM16": "f16"}
_OT_SRC = re.compile(r"^OPERAND_REG_(IMM|INLINE_C|INLINE_AC)_(\w+)$")

_PREFIX_RX = re.compile(r'(?:parseIntWithPrefix|parseNamedBit|parseOperandArrayWithPrefix)\("(\w+)"'
                        r'|parseSDWASel\(Operands, "(\w+)"')


@dataclass
class Operand:
    name: str
    cls: str  # operand record (anonymous ones get their last superclass + class, e.g. VOPDstOperand<VGPR_32>)
    kind: str
    prefix: str = ""
    role: str = "use"
    mods: str = "none"
    vtype: str = "none"
    regs: int = 0
    bits: int = 0
    valign: int = 1
    salign: int = 1
    mc_index: int = 0
    tied: int = -1
    printed: bool = False
    optional: bool = False
    early_clobber: bool = False
    has_mods_operand: bool = False  # LLVM's operand mc_index-1 is this source's modifier word

    def key(self):
        return (self.name, self.cls, self.kind, self.prefix, self.role, self.mods, self.vtype, self.regs, self.bits,
                self.valign, self.salign, self.mc_index, self.tied, self.printed, self.optional, self.early_clobber,
                self.has_mods_operand)


class OperandMapper:
    def __init__(self, R: Records, rc: RegClasses):
        self.R = R
        self.rc = rc

    def display_name(self, rec: str) -> str:
        r = self.R[rec]
        if not r["!anonymous"]:
            return rec
        base = r["!superclasses"][-1]
        inner = ref(r.get("RegClass")) if r.get("RegClass") is not None else ""
        return f"{base}<{inner}>" if inner else base

    def pmc(self, rec: str):
        p = ref(self.R[rec].get("ParserMatchClass"))
        return self.R[p] if p in self.R else None

    def map(self, form: str, opname: str, rec: str, t: Target) -> Operand:
        R = self.R
        r = R[rec]
        sc = r["!superclasses"]
        where = f"{form}: operand ${opname} ({rec})"
        op = Operand(opname, self.display_name(rec), "")
        if "RegisterClass" in sc or "RegClassByHwMode" in sc:
            op.kind = "reg"
            self._regs(op, rec, t)
            return op
        ot = r.get("OperandType") or ""
        if "RegisterOperand" in sc:
            self._regs(op, ref(r["RegClass"]), t)
            m = _OT_SRC.match(ot)
            if m:
                op.kind = "src"
                if m.group(2) not in _OT_TYPE:
                    fail(f"{where}: operand type {ot} has no value-type mapping")
                op.vtype = _OT_TYPE[m.group(2)]
                op.regs |= RF["inline_const"] | (RF["literal"] if m.group(1) == "IMM" else 0)
            elif ot in ("OPERAND_REGISTER", "OPERAND_SDWA_VOPC_DST"):
                op.kind = "reg"
            else:
                fail(f"{where}: register operand type {ot!r} is not mapped")
            return op
        if "Operand" not in sc:
            fail(f"{where}: neither a register class, register operand nor operand")
        p = self.pmc(rec)
        cname = p.get("Name") if p else None
        if ot == "OPERAND_INPUT_MODS":
            if cname not in MODS_KIND:
                fail(f"{where}: input-modifier class {cname!r} is not mapped")
            op.kind = "mods"  # folded into the source that follows by the caller
            op.mods = MODS_KIND[cname]
            return op
        if cname not in ASM_CLASS_KIND:
            fail(f"{where}: AsmOperandClass {cname!r} is not mapped")
        kind, prefix = ASM_CLASS_KIND[cname]
        if prefix is None:
            m = _PREFIX_RX.search(p.get("ParserMethod") or "")
            if not m:
                fail(f"{where}: cannot read the keyword of {cname!r} from its ParserMethod")
            prefix = m.group(1) or m.group(2)
        op.kind, op.prefix = kind, prefix
        op.optional = p.get("IsOptional") == 1
        if kind == "kimm":
            op.vtype = _OT_TYPE[ot.replace("OPERAND_", "")]
            op.regs = RF["literal"]
        return op

    def _regs(self, op: Operand, cls: str, t: Target):
        s = self.rc.summary(cls, t)
        op.regs, op.bits, op.valign, op.salign = s.mask, s.bits, s.valign, s.salign


# ---------------------------------------------------------------------------------------------------------------
# Forms
# ---------------------------------------------------------------------------------------------------------------

FORMATS = ["SOP1", "SOP2", "SOPK", "SOPC", "SOPP", "SMEM", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3P", "VINTRP", "DS",
           "FLAT", "GLOBAL", "SCRATCH", "MUBUF", "MTBUF", "MIMG", "EXP"]
VARIANTS = ["none", "e32", "e64", "sdwa", "dpp"]
# printVOPDst can also print "_e64_dpp" (VOP3 DPP, gfx11+); gfx9 has none, and the generator fails if one shows up.

PROPS = ["salu", "valu", "smem", "vmem", "flat", "ds", "mfma", "dot", "trans", "packed", "load", "store", "atomic",
         "atomic_ret", "atomic_noret", "branch", "cond_branch", "indirect_branch", "terminator", "no_fallthrough",
         "call", "return", "side_effects", "convergent", "sopp", "sdwa", "dpp", "fixed_size", "lds_dma", "gws",
         "has_e32", "asm_matchable", "decodable", "vm_cnt", "exp_cnt", "lgkm_cnt"]
PR = {n: 1 << i for i, n in enumerate(PROPS)}


def inst_field(r, lo: int, hi: int):
    """Inst[hi:lo] when those bits are constants (the opcode/encoding bits), else None."""
    bits = r["Inst"][lo:hi + 1]
    if len(bits) != hi - lo + 1 or not all(x in (0, 1) for x in bits):
        return None
    return sum(x << i for i, x in enumerate(bits))


def form_format(R: Records, n: str) -> str:
    """The hardware encoding of the real record. VALU reals are classified by their encoding bits, because the
    TSFlags copied from the pseudo describe the pseudo (V_READLANE_B32_vi has the VOP2 bit but is a VOP3 word;
    SDWA/DPP reals carry only the SDWA/DPP bit; MFMAs carry VOP3 but are VOP3P words). Encodings from
    SIInstrFormats.td / VOP*Instructions.td (GFX8/GFX9): VOP2 Inst[31]=0; VOP1 Inst[31:25]=0x3F; VOPC
    Inst[31:25]=0x3E (both also have bit 31 clear, so test them first); VOP3 Inst[31:26]=0x34 with VOP3P Inst[31:23]=0x1A7; VINTRP Inst[31:26]=0x35. SDWA/DPP words
    are VOP1/VOP2/VOPC with src0 = 0xF9/0xFA."""
    r = R[n]
    b = lambda k: tsbit(r, TS[k])
    for k in ("DS", "MUBUF", "MTBUF", "MIMG", "EXP"):  # memory first: LDS-DMA buffer loads also carry VALU
        if b(k):
            return k
    if b("SMRD"):
        return "SMEM"
    if b("FLAT"):
        return "GLOBAL" if b("FlatGlobal") else "SCRATCH" if b("FlatScratch") else "FLAT"
    if b("VALU"):
        top7 = inst_field(r, 25, 31)
        top9 = inst_field(r, 23, 31)
        if top7 is None:
            fail(f"{n}: VALU real with non-constant encoding bits Inst[31:25]")
        if top7 == 0x3F:
            return "VOP1"
        if top7 == 0x3E:
            return "VOPC"
        if top7 >> 6 == 0:
            return "VOP2"
        if top7 >> 1 == 0x34:
            return "VOP3P" if top9 == 0x1A7 else "VOP3"
        if top7 >> 1 == 0x35:
            return "VINTRP"
        fail(f"{n}: VALU real with unknown encoding Inst[31:25]={top7:#x}")
    for k in ("SOP1", "SOP2", "SOPK", "SOPC", "SOPP"):
        if b(k):
            return k
    fail(f"{n}: no encoding format bit set in TSFlags")


def form_variant(R: Records, n: str, fmt: str) -> str:
    """How the assembler spells the forced encoding: `_e32`, `_e64`, `_sdwa`, `_dpp` (AMDGPUAsmParser's
    parseMnemonicSuffix / checkTargetMatchPredicate key on these TSFlags)."""
    r = R[n]
    if tsbit(r, TS["SDWA"]):
        return "sdwa"
    if tsbit(r, TS["DPP"]):
        return "dpp"
    if fmt in ("VOP1", "VOP2", "VOPC"):
        return "e32"
    if fmt in ("VOP3", "VOP3P"):
        return "e64"
    return "none"


def printed_suffix(R: Records, n: str, first_printer: str) -> str:
    """The suffix AMDGPUInstPrinter::printVOPDst appends to the mnemonic when it prints operand 0 (the AsmString
    reads `v_add_f32$vdst`): _e64 unless the VOP3 real is IsSingle (getVOP3IsSingle: VOP3InfoTable, FilterClass
    VOP3_Real), _dpp, _sdwa, or _e32 unless the VOP1/VOP2 real is IsSingle."""
    if first_printer != "printVOPDst":
        return "none"
    r = R[n]
    sc = r["!superclasses"]
    single = lambda cls: cls in sc and r.get("IsSingle") == 1
    vop3, dpp = tsbit(r, TS["VOP3"]), tsbit(r, TS["DPP"])
    if vop3 and dpp:
        fail(f"{n}: VOP3 DPP (_e64_dpp) is not expected on gfx9")
    if vop3:
        return "none" if single("VOP3_Real") else "e64"
    if dpp:
        return "dpp"
    if tsbit(r, TS["SDWA"]):
        return "sdwa"
    if (tsbit(r, TS["VOP1"]) and not single("VOP1_Real")) or (tsbit(r, TS["VOP2"]) and not single("VOP2_Real")):
        return "e32"
    return "none"


_SUFFIX_RX = re.compile(r"_(e32|e64|sdwa|dpp)$")
_ASM_OP_RX = re.compile(r"\$(?:\{(\w+)(?::\w+)?\}|(\w+))")


def asm_mnemonic(asm: str) -> str:
    """First word of an AsmString, lowercase, without a forced-encoding suffix (note §6)."""
    return _SUFFIX_RX.sub("", re.split(r"[\s$]", asm.strip(), maxsplit=1)[0].lower())


@dataclass
class Form:
    name: str
    mnemonic: str
    asm: str
    fmt: str
    variant: str
    suffix: str
    size: int
    uses: int
    defs: int
    props: int
    operands: list[Operand] = field(default_factory=list)
    first: int = 0


_IMPLICIT = {"EXEC": "exec", "MODE": "mode", "FLAT_SCR": "flat_scratch", "M0": "m0", "VCC": "vcc", "SCC": "scc"}


def implicit_mask(R: Records, n: str, regs) -> int:
    m = 0
    for x in regs or []:
        x = ref(x)
        if x not in _IMPLICIT:
            fail(f"{n}: implicit register {x} is not mapped")
        m |= RF[_IMPLICIT[x]]
    return m


def flag_value(R: Records, n: str, f: str) -> bool:
    """An Instruction bit; `?` on a real falls back to its codegen pseudo (the real copies nothing the MC layer
    would infer), and unset everywhere means 0, as in the MCInstrDesc."""
    v = R[n].get(f)
    if v is None:
        p = R[n].get("PseudoInstr")
        if p and p in R:
            v = R[p].get(f)
    return v == 1


def build_form(R: Records, om: OperandMapper, t: Target, n: str, asm_ok: bool, dec_ok: bool) -> Form:
    r = R[n]
    asm = r["AsmString"]
    fmt = form_format(R, n)
    variant = form_variant(R, n, fmt)
    outs = [(ref(v), a) for v, a in r["OutOperandList"]["args"]]
    ins = [(ref(v), a) for v, a in r["InOperandList"]["args"]]
    mc = outs + ins
    names = [a for _, a in mc]
    if len(set(names)) != len(names):
        fail(f"{n}: duplicate operand names {names}")

    mapped = []
    for i, (rec, a) in enumerate(mc):
        op = om.map(n, a, rec, t)
        op.role = "def" if i < len(outs) else "use"
        op.mc_index = i
        mapped.append(op)

    # Fold srcN_modifiers + srcN into one assembly operand. The modifier operand always directly precedes its
    # source in LLVM's operand lists. When the AsmString names the modifier operand, its printer prints both and
    # the parser accepts neg/abs/sext on the source; when it names the source itself (VOP3P, MFMA), the modifier
    # bits are only reachable through op_sel/neg_lo/neg_hi, so the source takes no modifiers in the syntax.
    asm_names = {m.group(1) or m.group(2) for m in _ASM_OP_RX.finditer(asm)}
    folded, skip = {}, set()
    for i, op in enumerate(mapped):
        if op.kind == "mods":
            if i + 1 >= len(mapped) or mapped[i + 1].kind == "mods" or op.name != mapped[i + 1].name + "_modifiers":
                fail(f"{n}: modifier operand ${op.name} is not followed by its source")
            src = mapped[i + 1]
            src.has_mods_operand = True
            if op.name in asm_names:
                src.mods = op.mods
            folded[op.name] = i + 1
            skip.add(i)

    printed_order = []
    for m in _ASM_OP_RX.finditer(asm):
        nm = m.group(1) or m.group(2)
        if nm in folded:
            idx = folded[nm]
        elif nm in names:
            idx = names.index(nm)
            if idx in skip:
                fail(f"{n}: ${nm} printed without its source")
        else:
            fail(f"{n}: AsmString names ${nm}, which is not an operand")
        if idx in printed_order:
            fail(f"{n}: ${nm} printed twice")
        printed_order.append(idx)
    order = printed_order + [i for i in range(len(mapped)) if i not in skip and i not in printed_order]
    for i in printed_order:
        mapped[i].printed = True

    # Constraints: "$a = $b" ties, "@earlyclobber $x".
    ties = {}
    for c in (r.get("Constraints") or "").split(","):
        c = c.strip()
        if not c:
            continue
        m = re.fullmatch(r"\$(\w+)\s*=\s*\$(\w+)", c)
        if m:
            ties[m.group(1)] = m.group(2)
            ties[m.group(2)] = m.group(1)
            continue
        m = re.fullmatch(r"@earlyclobber\s+\$(\w+)", c)
        if m:
            mapped[names.index(m.group(1))].early_clobber = True
            continue
        fail(f"{n}: constraint {c!r} is not understood")
    pos = {idx: k for k, idx in enumerate(order)}
    ops = []
    for idx in order:
        op = mapped[idx]
        if op.name in ties:
            op.tied = pos[names.index(ties[op.name])]
        ops.append(op)

    # The operand printed right after the mnemonic, with no space, prints the encoding suffix.
    first_printer = ""
    m = re.match(r"^[\w.]+\$(?:\{)?(\w+)", asm)
    if m and m.group(1) in names:
        first_printer = R[mc[names.index(m.group(1))][0]].get("PrintMethod") or ""
    suffix = printed_suffix(R, n, first_printer)

    b = lambda k: tsbit(r, TS[k])
    props = 0
    setp = lambda k, v: PR[k] if v else 0
    is_branch = flag_value(R, n, "isBranch")
    props |= setp("salu", b("SALU")) | setp("valu", b("VALU")) | setp("smem", b("SMRD"))
    props |= setp("vmem", b("MUBUF") or b("MTBUF") or b("MIMG")) | setp("flat", b("FLAT")) | setp("ds", b("DS"))
    props |= setp("mfma", b("IsMAI")) | setp("dot", b("IsDOT")) | setp("trans", b("TRANS"))
    props |= setp("packed", b("IsPacked")) | setp("sopp", b("SOPP")) | setp("sdwa", b("SDWA")) | setp("dpp", b("DPP"))
    props |= setp("fixed_size", b("FixedSize")) | setp("gws", b("GWS"))
    props |= setp("atomic_ret", b("IsAtomicRet")) | setp("atomic_noret", b("IsAtomicNoRet"))
    props |= setp("atomic", b("IsAtomicRet") or b("IsAtomicNoRet"))
    props |= setp("vm_cnt", b("VM_CNT")) | setp("exp_cnt", b("EXP_CNT")) | setp("lgkm_cnt", b("LGKM_CNT"))
    load, store = flag_value(R, n, "mayLoad"), flag_value(R, n, "mayStore")
    props |= setp("load", load) | setp("store", store)
    props |= setp("branch", is_branch)
    props |= setp("cond_branch", is_branch and not flag_value(R, n, "isBarrier"))
    props |= setp("indirect_branch", flag_value(R, n, "isIndirectBranch"))
    props |= setp("terminator", flag_value(R, n, "isTerminator"))
    props |= setp("no_fallthrough", flag_value(R, n, "isBarrier"))
    props |= setp("call", flag_value(R, n, "isCall")) | setp("return", flag_value(R, n, "isReturn"))
    props |= setp("side_effects", flag_value(R, n, "hasSideEffects"))
    props |= setp("convergent", flag_value(R, n, "isConvergent"))
    # LDS DMA: a buffer/global load that writes LDS instead of VGPRs (mayLoad and mayStore, reads M0, no vdst);
    # SIInstrInfo::isLDSDMA keys on the same shape (MUBUF/FLAT with the lds bit).
    props |= setp("lds_dma", (b("MUBUF") or b("FLAT")) and load and store and not (b("IsAtomicRet") or
                  b("IsAtomicNoRet")) and asm.rstrip().endswith(" lds"))
    props |= setp("asm_matchable", asm_ok) | setp("decodable", dec_ok)

    return Form(n, asm_mnemonic(asm), asm, fmt, variant, suffix, r["Size"],
                implicit_mask(R, n, r["Uses"]), implicit_mask(R, n, r["Defs"]), props, ops)


# ---------------------------------------------------------------------------------------------------------------
# Aliases
# ---------------------------------------------------------------------------------------------------------------

def asm_tail(asm: str) -> str:
    """An AsmString without its mnemonic, whitespace-normalised (to see whether an alias only renames)."""
    s = asm.strip()
    m = re.match(r"^[\w.]+", s)
    return re.sub(r"\s+", " ", s[m.end():] if m else s).strip()


def target_aliases(R: Records, t: Target, forms: dict[str, Form]):
    mnems = {f.mnemonic for f in forms.values()}
    mn = []
    for n in sorted(R.inst.get("MnemonicAlias", [])):
        r = R[n]
        if preds_hold(R, r["Predicates"], t.features):
            mn.append((r["FromMnemonic"].lower(), r["ToMnemonic"].lower(), r["AsmVariantName"] or ""))
    renames, others = [], []
    for n in sorted(R.inst.get("InstAlias", [])):
        r = R[n]
        if not preds_hold(R, r["Predicates"], t.features):
            continue
        if (r.get("AsmVariantName") or "Default") not in ASM_VARIANTS | {""}:
            continue
        res = ref(r["ResultInst"]["operator"])
        asm = r["AsmString"]
        frm = asm_mnemonic(asm)
        target_form = forms.get(res)
        if target_form and asm_tail(asm) == asm_tail(target_form.asm) and frm != target_form.mnemonic:
            renames.append((frm, target_form.mnemonic, res))
        else:
            others.append((asm, res, res in forms))
    # A MnemonicAlias whose predicates hold can still lead nowhere: v_smfmac_f32_16x16x64f16 (isGFX940Plus) names
    # v_smfmac_f32_16x16x64_f16, which only gfx950 has, and llvm-mc rejects it on gfx942. Keep an alias only
    # when its target spelling resolves (directly or through other kept aliases) to a mnemonic of the target.
    known = mnems | {a for a, _, _ in renames}
    kept, changed = [], True
    while changed:
        changed = False
        for a in mn:
            if a not in kept and asm_mnemonic(a[1]) in known:
                kept.append(a)
                known.add(a[0])
                changed = True
    mn = sorted(set(kept))
    renames = sorted(set(renames))
    others = sorted(set(others))
    return mn, renames, others


# ---------------------------------------------------------------------------------------------------------------
# Emission
# ---------------------------------------------------------------------------------------------------------------

def banner(what: str) -> str:
    return (f"// {what}\n"
            f"// GENERATED by tools/isagen/isagen.py from the LLVM {LLVM_VERSION} AMDGPU TableGen records\n"
            f"// (llvm-toolchain-22 1:{LLVM_VERSION} orig tarball {ORIG_TARBALL},\n"
            f"//  sha256 {ORIG_SHA256}).\n"
            f"// Regenerate: tools/isagen/regen.sh WORKDIR   (needs ~17 GiB RAM; never in CI).\n"
            f"// DO NOT EDIT.\n")


def cstr(s: str) -> str:
    """A std::string_view initialiser with an explicit length: `{"v_add_f32",9}`. Without the length, every
    string_view(const char*) runs char_traits::length in the constant evaluator, and the ~4 MB of table text
    exceeds clang's -fconstexpr-steps budget (g++ is more lenient)."""
    if not all(" " <= c <= "~" for c in s):
        fail(f"string {s!r} has characters the generator does not escape")
    esc = s.replace("\\", "\\\\").replace('"', '\\"')
    return '{"' + esc + '",' + str(len(s.encode())) + "}"


def mask_expr(m: int, names: list[str], prefix: str) -> str:
    if not m:
        return "0"
    return "|".join(f"{prefix}{names[i]}" for i in range(len(names)) if m >> i & 1)


# Names that are C++ keywords get a trailing underscore in isa_info.hpp.
CXX_NAME = {"int": "int_", "return": "return_"}

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def emit_target(t: Target, forms: list[Form], ops: list[Operand], mn_alias, renames, others) -> str:
    o = [banner(f"Instruction forms of {t.name} (asm-matchable or decodable real encodings), "
                f"with their operands and aliases."),
         "// Included by include/asmevo/ir/gen/isa_tables.hpp only.\n",
         f"namespace asmevo::isa::{t.name} {{\n",
         "namespace detail_gen {\nusing K = ::asmevo::isa::Kind; using R = ::asmevo::isa::Role;"
         " using M = ::asmevo::isa::Mods; using T = ::asmevo::isa::ValueType;\n"
         "using F = ::asmevo::isa::Format; using V = ::asmevo::isa::Variant;\n"
         "namespace rf = ::asmevo::isa::reg; namespace pr = ::asmevo::isa::prop;\n}  // namespace detail_gen\n",
         "using namespace detail_gen;\n\n"]
    o.append("/// One entry per assembly operand (printed ones in AsmString order, then hidden/tied ones).\n")
    o.append(f"inline constexpr std::array<OperandInfo, {len(ops)}> operand_table{{{{\n")
    for op in ops:
        fl = []
        if op.printed:
            fl.append("OperandInfo::printed")
        if op.optional:
            fl.append("OperandInfo::optional")
        if op.early_clobber:
            fl.append("OperandInfo::early_clobber")
        if op.has_mods_operand:
            fl.append("OperandInfo::mods_operand")
        o.append(f"  {{{cstr(op.name)},{cstr(op.prefix)},{cstr(op.cls)},{op.regs:#x},"
                 f"{op.bits},K::{op.kind},R::{op.role},M::{CXX_NAME.get(op.mods, op.mods)},T::{op.vtype},{op.valign},{op.salign},"
                 f"{op.mc_index},{op.tied},{'|'.join(fl) or '0'}}},\n")
    o.append("}};\n\n")
    o.append("/// Sorted by (mnemonic, e32 < e64 < sdwa < dpp, record name): the order the matcher prefers.\n")
    o.append(f"inline constexpr std::array<FormInfo, {len(forms)}> form_table{{{{\n")
    for f in forms:
        o.append(f"  {{{cstr(f.name)},{cstr(f.mnemonic)},{cstr(f.asm)},operand_table.data()+{f.first},{f.first},"
                 f"{len(f.operands)},F::{f.fmt},"
                 f"V::{f.variant},V::{f.suffix},{f.size},{mask_expr(f.uses, REGFILE, 'rf::')},"
                 f"{mask_expr(f.defs, REGFILE, 'rf::')},{mask_expr(f.props, [CXX_NAME.get(p, p) for p in PROPS], 'pr::')}}},\n")
    o.append("}};\n\n")
    # Mnemonic index.
    idx = []
    for i, f in enumerate(forms):
        if idx and idx[-1][0] == f.mnemonic:
            idx[-1][2] += 1
        else:
            idx.append([f.mnemonic, i, 1])
    o.append("/// Distinct mnemonics, sorted; each names its run of forms in form_table.\n")
    o.append(f"inline constexpr std::array<MnemonicEntry, {len(idx)}> mnemonic_table{{{{\n")
    for m, first, cnt in idx:
        o.append(f"  {{{cstr(m)},{first},{cnt}}},\n")
    o.append("}};\n\n")
    o.append("/// MnemonicAlias records whose predicates hold: `from` is accepted and assembled as `to`.\n")
    o.append(f"inline constexpr std::array<MnemonicAlias, {len(mn_alias)}> mnemonic_alias_table{{{{\n")
    for a, b, v in mn_alias:
        o.append(f"  {{{cstr(a)},{cstr(b)},{cstr(v)}}},\n")
    o.append("}};\n\n")
    o.append("/// InstAlias records that only rename a mnemonic (same operands as the form they produce).\n")
    o.append(f"inline constexpr std::array<RenameAlias, {len(renames)}> rename_alias_table{{{{\n")
    for a, b, res in renames:
        o.append(f"  {{{cstr(a)},{cstr(b)},{cstr(res)}}},\n")
    o.append("}};\n\n")
    o.append("/// Every other InstAlias whose predicates hold: its AsmString and the record it produces.\n")
    o.append(f"inline constexpr std::array<InstAlias, {len(others)}> inst_alias_table{{{{\n")
    for a, res, present in others:
        o.append(f"  {{{cstr(a)},{cstr(res)},{'true' if present else 'false'}}},\n")
    o.append("}};\n\n")
    o.append("/// Index of each form in form_table, named by its LLVM record: form_table[GLOBAL_LOAD_DWORDX4_vi].\n")
    o.append("enum FormIndex : std::uint16_t {\n")
    for i, f in enumerate(forms):
        if not _IDENT.match(f.name):
            fail(f"{f.name}: record name is not a C++ identifier")
        o.append(f"  {f.name} = {i},\n")
    o.append("};\n\n")
    o.append(f"}}  // namespace asmevo::isa::{t.name}\n")
    return "".join(o)


def emit_tables_header() -> str:
    o = [banner("Per-target instruction tables (gfx90a, gfx942, gfx950) and their accessors."),
         "#pragma once\n\n#include <array>\n#include <cstdint>\n#include <span>\n#include <string_view>\n\n"
         "#include \"asmevo/ir/isa_info.hpp\"\n\n"]
    for t in TARGETS:
        o.append(f"#include \"asmevo/ir/gen/{t}.inc\"\n")
    o.append("\nnamespace asmevo::isa {\n\n")
    o.append("/// All forms of a target, sorted by (mnemonic, e32 < e64 < sdwa < dpp, record name).\n")
    o.append("[[nodiscard]] constexpr std::span<const FormInfo> forms(Target t) noexcept {\n  switch (t) {\n")
    for t in TARGETS:
        o.append(f"    case Target::{t}: return {t}::form_table;\n")
    o.append("  }\n  return {};\n}\n\n")
    for fn, tab, typ, doc in (("all_operands", "operand_table", "OperandInfo", "The target's operand array."),
                              ("mnemonics", "mnemonic_table", "MnemonicEntry", "Sorted distinct mnemonics."),
                              ("mnemonic_aliases", "mnemonic_alias_table", "MnemonicAlias",
                               "MnemonicAlias records (from -> to), sorted by `from`."),
                              ("rename_aliases", "rename_alias_table", "RenameAlias",
                               "InstAliases that only rename a mnemonic, sorted by `from`."),
                              ("inst_aliases", "inst_alias_table", "InstAlias",
                               "Other InstAliases (AsmString and resulting record).")):
        o.append(f"/// {doc}\n[[nodiscard]] constexpr std::span<const {typ}> {fn}(Target t) noexcept {{\n"
                 "  switch (t) {\n")
        for t in TARGETS:
            o.append(f"    case Target::{t}: return {t}::{tab};\n")
        o.append("  }\n  return {};\n}\n\n")
    o.append("""/// All forms of `mnemonic` (lowercase, no _e32/_e64/_sdwa/_dpp suffix), in matcher preference order; empty
/// when the target has no such mnemonic (aliases are not resolved here; see mnemonic_aliases/rename_aliases).
[[nodiscard]] constexpr std::span<const FormInfo> find_mnemonic(Target t, std::string_view mnemonic) noexcept {
  const auto idx = mnemonics(t);
  std::size_t lo = 0, hi = idx.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (idx[mid].mnemonic < mnemonic) lo = mid + 1; else hi = mid;
  }
  if (lo == idx.size() || idx[lo].mnemonic != mnemonic) return {};
  return forms(t).subspan(idx[lo].first, idx[lo].count);
}

/// The form with LLVM record name `name`, or nullptr. Linear in the mnemonic's forms when the name's mnemonic
/// is known; otherwise a scan of all forms (a few thousand): fine at run time, prefer the FormIndex enums
/// (gfx942::V_ADD_F32_e32_vi) in compile-time code.
[[nodiscard]] constexpr const FormInfo* find_form(Target t, std::string_view name) noexcept {
  for (const FormInfo& f : forms(t))
    if (f.name == name) return &f;
  return nullptr;
}

""")
    o.append("}  // namespace asmevo::isa\n")
    return "".join(o)


# ---------------------------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------------------------

VARIANT_RANK = {"none": 0, "e32": 1, "e64": 2, "sdwa": 3, "dpp": 4}


def generate(R: Records, out_dir: str):
    reals = sorted(n for n in R.inst["Instruction"]
                   if n in R and R[n].get("Namespace") == "AMDGPU" and R[n]["isPseudo"] == 0
                   and R[n]["isCodeGenOnly"] == 0)
    rc = RegClasses(R)
    om = OperandMapper(R, rc)
    files = {}
    mismatch = False
    for tn in TARGETS:
        t = make_target(R, tn)
        sel = select_forms(R, t, reals)
        forms = {n: build_form(R, om, t, n, a, d) for n, (a, d) in sorted(sel.items())}
        # has_e32: the mnemonic also has a 32-bit VOP encoding on this target, so `_e64` is a real choice.
        e32 = {f.mnemonic for f in forms.values() if f.variant == "e32"}
        for f in forms.values():
            if f.mnemonic in e32:
                f.props |= PR["has_e32"]
        order = sorted(forms.values(), key=lambda f: (f.mnemonic, VARIANT_RANK[f.variant], f.name))
        # Operand storage: identical operand lists share one run of the array.
        ops, runs = [], {}
        for f in order:
            key = tuple(op.key() for op in f.operands)
            if key not in runs:
                runs[key] = len(ops)
                ops += f.operands
            f.first = runs[key]
        mn, renames, others = target_aliases(R, t, forms)
        files[f"{tn}.inc"] = emit_target(t, order, ops, mn, renames, others)
        n_mn = len({f.mnemonic for f in order})
        alias_only = ({a for a, _, _ in mn} | {a for a, _, _ in renames}) - {f.mnemonic for f in order}
        exp = EXPECTED[tn]
        ok = (len(order), n_mn) == exp
        mismatch |= not ok
        print(f"isagen: {tn}: hwmode {t.hwmode}, {len(order)} forms ({sum(1 for f in order if f.props & PR['asm_matchable'])}"
              f" asm-matchable, {sum(1 for f in order if f.props & PR['decodable'])} decodable), {n_mn} mnemonics, "
              f"{len(ops)} operand slots; {len(mn)} mnemonic aliases, {len(renames)} rename InstAliases, "
              f"{len(others)} other InstAliases, {len(alias_only)} alias-only spellings; "
              f"note §6 expects {exp[0]} / {exp[1]}: {'match' if ok else 'MISMATCH'}", file=sys.stderr)
    files["isa_tables.hpp"] = emit_tables_header()
    os.makedirs(out_dir, exist_ok=True)
    for name, text in sorted(files.items()):
        path = os.path.join(out_dir, name)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        print(f"isagen: wrote {path} ({len(text.encode()):,} bytes)", file=sys.stderr)
    return 1 if mismatch else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", required=True, help="llvm-tblgen-22 --dump-json output for AMDGPU.td")
    ap.add_argument("--out", required=True, help="output folder (include/asmevo/ir/gen)")
    a = ap.parse_args(argv)
    gc.disable()  # the JSON is ~130k records; the collector only slows json.load down (15 s -> 27 s)
    with open(a.json, encoding="utf-8") as fh:
        data = json.load(fh)
    try:
        return generate(Records(data), a.out)
    except GenError as e:
        print(f"isagen: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
