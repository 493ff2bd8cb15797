// Mutation operators that plant the defects assembly edits cause (a dropped or weakened s_waitcnt, swapped
// dependent instructions, a wrong register, immediate, offset, predicate, exec mask or cache bit, a store past
// the end of its buffer), used to prove that the verification gate catches them (issue 6, "Proof that the gate
// works"; the driver is tools/mutate, the report scripts/mutation-report.sh).
//
// Every operator works on the IR (operands and the generated form table), never on text. For one kernel it lists
// its candidate sites (instruction ids the kernel can execute) and applies one mutation chosen deterministically
// from (site, seed). A mutant is valid only when its changed instruction prints to text that the parser reads back
// as the same instruction (form and operands): the register class, width, alignment and immediate ranges of the
// form are then respected. Anything else is returned as an invalid mutant (counted apart, never run).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/kernel_scope.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/inst_form.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/waitcnt.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::verify {

/// The mutation operators (their names are the class names of the report).
enum class MutOp : std::uint8_t {
  waitcnt_drop,    ///< delete an s_waitcnt that waits for something
  waitcnt_weaken,  ///< raise one waited vmcnt/lgkmcnt count by one
  swap_dependent,  ///< swap two adjacent instructions of one block where one reads or writes what the other writes
  reg_change,      ///< another register of the same file, width and alignment for one register operand
  imm_change,      ///< another value for an inline constant or literal of an ALU instruction
  offset_change,   ///< a memory instruction's immediate offset moved by one or two elements
  cmp_flip,        ///< a v_cmp/v_cmpx/s_cmp/s_cmpk predicate replaced by its negation (same type)
  nop_drop,        ///< an s_nop deleted or its count lowered by one
  exec_change,     ///< an exec-writing SALU instruction: and <-> or family swap, another source, or dropped
  store_oob,       ///< a global/buffer store's offset moved up by its own width (the last lane writes past the end)
  cache_bit,       ///< one cache-policy bit (sc0/sc1/nt, or glc/slc/scc on gfx90a; glc on SMEM) flipped
};

inline constexpr std::array<MutOp, 11> all_mut_ops{
    MutOp::waitcnt_drop, MutOp::waitcnt_weaken, MutOp::swap_dependent, MutOp::reg_change,
    MutOp::imm_change,   MutOp::offset_change,  MutOp::cmp_flip,       MutOp::nop_drop,
    MutOp::exec_change,  MutOp::store_oob,      MutOp::cache_bit};

[[nodiscard]] constexpr std::string_view to_string(MutOp op) noexcept {
  switch (op) {
    case MutOp::waitcnt_drop: return "waitcnt_drop";
    case MutOp::waitcnt_weaken: return "waitcnt_weaken";
    case MutOp::swap_dependent: return "swap_dependent";
    case MutOp::reg_change: return "reg_change";
    case MutOp::imm_change: return "imm_change";
    case MutOp::offset_change: return "offset_change";
    case MutOp::cmp_flip: return "cmp_flip";
    case MutOp::nop_drop: return "nop_drop";
    case MutOp::exec_change: return "exec_change";
    case MutOp::store_oob: return "store_oob";
    case MutOp::cache_bit: return "cache_bit";
  }
  return "?";
}

[[nodiscard]] constexpr std::optional<MutOp> parse_mut_op(std::string_view s) noexcept {
  for (MutOp op : all_mut_ops)
    if (to_string(op) == s) return op;
  return std::nullopt;
}

// The kernel's reachable code (analysis/kernel_scope.hpp): what the mutation operators work on.
using analysis::KernelScope;
using analysis::kernel_scope;

/// One mutant. `program` is the whole mutated program when `valid`; `description` says what changed in one line
/// ("i42 s_waitcnt vmcnt(0) -> vmcnt(1)"), also for an invalid mutant, whose `invalid_reason` says why.
struct Mutant {
  MutOp op = MutOp::waitcnt_drop;
  InstId site{};
  std::string description;
  bool valid = true;
  std::string invalid_reason;
  Program program;
  /// waitcnt_drop/waitcnt_weaken: the wait the instruction at `site` asked for before and after the mutation
  /// (after = no wait at all for a drop), for the driver's redundant-wait proof.
  std::optional<Waitcnt> wait_before, wait_after;
  /// cache_bit: the flipped bit is a cache-policy hint only (NT on gfx940+ vector memory, SLC on gfx90a), which
  /// selects a cache replacement policy and changes no value or visibility (LLVM SIMemoryLegalizer.cpp:
  /// SIGfx940CacheControl and SIGfx90ACacheControl set it only in enableVolatileAndOrNonTemporal for nontemporal
  /// accesses; the scope bits SC0/SC1, GLC and SCC are what the memory model compares).
  bool hint_only = false;
};

namespace detail {

/// SplitMix64 (Steele, Lea, Flood 2014): a small, fixed, portable generator, so a (site, seed) pair gives the same
/// mutant on every platform.
struct MutRng {
  std::uint64_t s;
  std::uint64_t next() noexcept {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) noexcept { return n ? next() % n : 0; }
};

[[nodiscard]] inline MutRng mut_rng(MutOp op, InstId site, std::uint64_t seed) {
  MutRng r{seed * 0x2545F4914F6CDD1Dull + (static_cast<std::uint64_t>(op) << 40) + site.value};
  r.next();
  return r;
}

using asmevo::form_of;

[[nodiscard]] inline std::ptrdiff_t item_index(const Program& p, InstId id) {
  for (std::size_t i = 0; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::inst && p.items[i].inst.id == id) return static_cast<std::ptrdiff_t>(i);
  return -1;
}

/// Copies printed operands into the unprinted operands tied to them (vdst_in = vdst), as the parser does.
inline void sync_tied(Inst& in) {
  const auto ops = isa::operands(form_of(in));
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (!ops[k].is_printed() && ops[k].tied >= 0 && static_cast<std::size_t>(ops[k].tied) < in.ops.size())
      in.ops[k] = in.ops[static_cast<std::size_t>(ops[k].tied)];
}

/// Why `in` is not a well-formed instruction, or empty: its text must read back as the same form and operands.
[[nodiscard]] inline std::string check_inst(const Inst& in) {
  const std::string text = print_inst(in);
  auto back = parse_inst(text, in.target);
  if (!back) return "'" + text + "' is rejected: " + back.error().message;
  if (back->form != in.form) return "'" + text + "' reads back as another form (" + std::string(form_of(*back).name) + ")";
  if (!(back->ops == in.ops)) return "'" + text + "' reads back with other operands";
  return {};
}

/// A register unit an instruction reads or writes: (file, index); special registers by hardware code.
using Unit = std::pair<std::uint8_t, std::uint16_t>;

inline void add_units(std::set<Unit>& s, const Reg& r) {
  for (unsigned k = 0; k < r.dwords; ++k) s.insert({static_cast<std::uint8_t>(r.file), static_cast<std::uint16_t>(r.index + k)});
}

inline void add_implicit(std::set<Unit>& s, std::uint32_t bits) {
  const auto sp = static_cast<std::uint8_t>(RegFile::special);
  if (bits & isa::reg::vcc) s.insert({sp, special::vcc_lo}), s.insert({sp, special::vcc_hi});
  if (bits & isa::reg::exec) s.insert({sp, special::exec_lo}), s.insert({sp, special::exec_hi});
  if (bits & isa::reg::m0) s.insert({sp, special::m0});
  if (bits & isa::reg::scc) s.insert({sp, special::scc});
  if (bits & isa::reg::mode) s.insert({sp, 0xfff});
  if (bits & isa::reg::flat_scratch) s.insert({sp, special::flat_scratch_lo}), s.insert({sp, special::flat_scratch_hi});
}

/// Registers an instruction reads and writes (explicit operands by role, plus implicit ones from the form).
inline void reads_writes(const Inst& in, std::set<Unit>& rd, std::set<Unit>& wr) {
  const auto& f = form_of(in);
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const Operand& o = in.ops[k];
    if (!o.is_reg()) continue;
    add_units(ops[k].role == isa::Role::def ? wr : rd, o.reg);
  }
  add_implicit(rd, f.implicit_uses);
  add_implicit(wr, f.implicit_defs);
}

[[nodiscard]] inline bool intersects(const std::set<Unit>& a, const std::set<Unit>& b) {
  for (const auto& u : a)
    if (b.count(u)) return true;
  return false;
}

/// Instructions that end a block or order the wave against others: never swapped.
[[nodiscard]] inline bool is_control(const Inst& in) {
  const auto& f = form_of(in);
  return f.has(isa::prop::branch) || f.has(isa::prop::terminator) || f.has(isa::prop::no_fallthrough) ||
         f.has(isa::prop::call) || f.has(isa::prop::return_) || f.has(isa::prop::indirect_branch);
}

[[nodiscard]] inline bool is_waitcnt(const Inst& in) {
  const auto ops = isa::operands(form_of(in));
  return !ops.empty() && ops[0].kind == isa::Kind::waitcnt && !in.ops.empty() && in.ops[0].kind == Operand::Kind::imm;
}

/// The next instruction after item `i` when only blanks and comments lie between (no label, no directive).
[[nodiscard]] inline std::ptrdiff_t adjacent_next(const Program& p, std::size_t i) {
  for (std::size_t j = i + 1; j < p.items.size(); ++j) {
    const auto k = p.items[j].kind;
    if (k == Item::Kind::inst) return static_cast<std::ptrdiff_t>(j);
    if (k != Item::Kind::blank && k != Item::Kind::comment) return -1;
  }
  return -1;
}

[[nodiscard]] inline bool swappable_pair(const Inst& a, const Inst& b) {
  if (is_control(a) || is_control(b)) return false;
  std::set<Unit> ra, wa, rb, wb;
  reads_writes(a, ra, wa);
  reads_writes(b, rb, wb);
  return intersects(wa, rb) || intersects(wb, ra) || intersects(wa, wb);
}

[[nodiscard]] inline bool is_memory(const isa::FormInfo& f) {
  using F = isa::Format;
  return f.format == F::FLAT || f.format == F::GLOBAL || f.format == F::SCRATCH || f.format == F::MUBUF ||
         f.format == F::MTBUF || f.format == F::DS || f.format == F::SMEM || f.format == F::MIMG;
}

/// Bytes one lane's access moves: from the op for sub-dword forms (byte/short, b8/b16, u8/i16 ...: OpInfo::mem_bytes;
/// d16 formats: 2), else the data register's width. The ISA guides name the access width in the opcode (MI300 ISA
/// §9/§10/§11).
[[nodiscard]] inline unsigned access_bytes(const Inst& in) {
  const OpInfo& i = op_info(in);
  if (i.mem_bytes == 1) return 1;
  if (i.mem_bytes == 2 || i.has(opflag::d16)) return 2;
  const auto ops = isa::operands(form_of(in));
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const auto n = ops[k].name;
    if ((n == "vdata" || n == "vdst" || n == "data0" || n == "sdst" || n == "sdata") && in.ops[k].is_reg())
      return 4u * in.ops[k].reg.dwords;
  }
  return 4;
}

/// The operand index of an immediate memory offset: `offset:` (named), DS `offset0:`/`offset1:`, or SMEM's
/// immediate `offset`. `which` picks among several (DS read2/write2).
[[nodiscard]] inline std::vector<std::size_t> offset_operands(const Inst& in) {
  std::vector<std::size_t> out;
  const auto& f = form_of(in);
  if (!is_memory(f)) return out;
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const auto& op = ops[k];
    const Operand& o = in.ops[k];
    if (o.present() && o.kind != Operand::Kind::imm) continue;  // a symbolic offset stays as it is
    if (op.kind == isa::Kind::named_int && (op.prefix == "offset" || op.prefix == "offset0" || op.prefix == "offset1"))
      out.push_back(k);
    else if (op.kind == isa::Kind::imm && f.format == isa::Format::SMEM && op.name == "offset" && o.present())
      out.push_back(k);
  }
  return out;
}

[[nodiscard]] inline std::optional<std::size_t> cpol_operand(const Inst& in) {
  const auto& f = form_of(in);
  if (!is_memory(f)) return std::nullopt;
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size(); ++k)
    if (ops[k].kind == isa::Kind::cpol || ops[k].kind == isa::Kind::cpol_glc || ops[k].kind == isa::Kind::cpol_noglc)
      return k;
  return std::nullopt;
}

[[nodiscard]] inline bool is_oob_store(const Inst& in) {
  const auto& f = form_of(in);
  using F = isa::Format;
  if (!f.has(isa::prop::store) || f.has(isa::prop::atomic)) return false;
  if (f.format != F::GLOBAL && f.format != F::FLAT && f.format != F::MUBUF && f.format != F::MTBUF) return false;
  for (std::size_t k : offset_operands(in))
    if (isa::operands(f)[k].prefix == "offset") return true;
  return false;
}

/// The condition whose compare is the exact complement of a compare with `c`, NaN included: integer lt/ge, gt/le,
/// eq/ne (s_cmp and s_cmpk spell ne `lg`), f/t; float lt/nlt, le/nle, gt/ngt, ge/nge, eq/neq, lg/nlg, o/u, f/tru (the
/// n-forms are true on unordered inputs: MI300 ISA §12.8 "VOPC", V_CMP_NLT_F32 = !(a < b)). CmpCond::none when there
/// is none (class).
[[nodiscard]] inline CmpCond negated_cond(CmpCond c, bool is_float, bool scalar) {
  using C = CmpCond;
  struct P { C a, b; };
  static constexpr P ints[] = {{C::lt, C::ge}, {C::gt, C::le}, {C::eq, C::ne}, {C::f, C::t}};
  static constexpr P sints[] = {{C::lt, C::ge}, {C::gt, C::le}, {C::eq, C::lg}};
  static constexpr P floats[] = {{C::lt, C::nlt}, {C::le, C::nle}, {C::gt, C::ngt}, {C::ge, C::nge},
                                 {C::eq, C::neq}, {C::lg, C::nlg}, {C::o, C::u},    {C::f, C::tru}};
  auto look = [&](const auto& tab) {
    for (const P& x : tab) {
      if (x.a == c) return x.b;
      if (x.b == c) return x.a;
    }
    return C::none;
  };
  if (scalar) return look(sints);
  return is_float ? look(floats) : look(ints);
}

/// The compare (v_cmp, v_cmpx, s_cmp, s_cmpk) with the same operand types as `in`'s and the negated condition:
/// v_cmpx_lt_f32 -> v_cmpx_nlt_f32. Opcode::invalid when `in` is no compare or its condition has no negation.
[[nodiscard]] inline Opcode negated_compare(const Inst& in) {
  OpInfo want = op_info(in);
  if (!one_of(want.family, Family::v_cmp, Family::v_cmpx, Family::s_cmp, Family::s_cmpk)) return Opcode::invalid;
  const bool is_float = one_of(want.type, DataType::f16, DataType::f32, DataType::f64);
  want.cond = negated_cond(want.cond, is_float, want.unit == OpUnit::s);
  return want.cond == CmpCond::none ? Opcode::invalid : find_op(want);
}

/// The form of `to` in the same encoding as `in`'s (format, encoding variant and printed suffix):
/// S_AND_SAVEEXEC_B64_vi -> S_OR_SAVEEXEC_B64_vi, V_CMP_LT_F32_e32_vi -> V_CMP_NLT_F32_e32_vi. nullptr when the
/// target has no such form (or `to` is Opcode::invalid).
[[nodiscard]] inline const isa::FormInfo* sibling_form(const Inst& in, Opcode to) {
  const auto& f = form_of(in);
  for (const auto& g : forms_of(in.target, to))
    if (g.format == f.format && g.variant == f.variant && g.suffix == f.suffix) return &g;
  return nullptr;
}

/// The and/or counterpart of an exec-mask op for exec_change (the and/or family of the exec-mask idioms LLVM emits:
/// SILowerControlFlow uses s_and_saveexec / s_or_b64 exec / s_xor_b64 / s_andn2_b64 exec): the same saveexec or
/// 64-bit SALU op with and <-> or, andn2 <-> orn2, nand <-> nor, xor <-> xnor, andn1 <-> orn1 (s_and_saveexec_b64
/// -> s_or_saveexec_b64, s_xor_b64 -> s_xnor_b64). Opcode::invalid when there is none.
[[nodiscard]] inline Opcode exec_sibling(const Inst& in) {
  OpInfo want = op_info(in);
  if (want.family != Family::s_saveexec && !(want.family == Family::s_alu && want.type == DataType::b64))
    return Opcode::invalid;
  using B = BaseOp;
  static constexpr std::pair<B, B> pairs[] = {
      {B::s_and, B::s_or}, {B::s_andn2, B::s_orn2}, {B::s_nand, B::s_nor}, {B::s_xor, B::s_xnor}, {B::s_andn1, B::s_orn1}};
  for (const auto& [a, b] : pairs)
    if (want.base == a || want.base == b) {
      want.base = want.base == a ? b : a;
      return find_op(want);
    }
  return Opcode::invalid;
}

[[nodiscard]] inline bool is_exec(const Reg& r) {
  return r.file == RegFile::special && (r.index == special::exec_lo || r.index == special::exec_hi);
}

/// SALU instructions that write exec explicitly (sdst exec) or as saveexec.
[[nodiscard]] inline bool writes_exec(const Inst& in) {
  const auto& f = form_of(in);
  if (!f.has(isa::prop::salu)) return false;
  if (family_of(in) == Family::s_saveexec) return true;
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].role == isa::Role::def && in.ops[k].is_reg() && is_exec(in.ops[k].reg)) return true;
  return false;
}

/// Operand indexes that are plain register operands of a numbered file (the candidates of reg_change).
[[nodiscard]] inline std::vector<std::size_t> numbered_reg_operands(const Inst& in) {
  std::vector<std::size_t> out;
  const auto ops = isa::operands(form_of(in));
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const Operand& o = in.ops[k];
    if (!ops[k].is_printed() || !o.is_reg()) continue;
    if (o.reg.file == RegFile::vgpr || o.reg.file == RegFile::sgpr || o.reg.file == RegFile::agpr) out.push_back(k);
  }
  return out;
}

/// Constant operands of an ALU instruction (inline constants, literals, K of v_fmaak, SOPK simm16).
[[nodiscard]] inline std::vector<std::size_t> alu_constant_operands(const Inst& in) {
  std::vector<std::size_t> out;
  const auto& f = form_of(in);
  if (!(f.has(isa::prop::salu) || f.has(isa::prop::valu)) || f.has(isa::prop::sopp)) return out;
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const Operand& o = in.ops[k];
    if (!ops[k].is_printed() || ops[k].role != isa::Role::use) continue;
    if (o.kind != Operand::Kind::imm && o.kind != Operand::Kind::real) continue;
    if (ops[k].kind == isa::Kind::src || ops[k].kind == isa::Kind::kimm ||
        (ops[k].kind == isa::Kind::imm && f.format == isa::Format::SOPK))
      out.push_back(k);
  }
  return out;
}

/// The bits of source operand `src` (0 = src0) that `o` actually reads when the operand is a shift or
/// alignment count, else all ones: two counts equal under this mask are the same instruction, so imm_change never
/// offers one for the other. MI300 ISA (CDNA3) §12-§13 opcode descriptions: 32-bit shifts use S[4:0], 16-bit ones
/// (and packed 16-bit) S[3:0], 64-bit ones S[5:0]; V_LSHL_ADD_U64 shifts by S1[2:0]; V_ALIGNBIT_B32 by S2[4:0],
/// V_ALIGNBYTE_B32 by S2[1:0] bytes; V_BFE_U32/I32 take offset S1[4:0] and width S2[4:0]. (The emulator's semantics
/// in emu/ implement the same masks.)
[[nodiscard]] inline std::uint64_t count_field_mask(Opcode o, std::size_t src) noexcept {
  struct Row {
    Opcode op;
    std::size_t src;
    std::uint64_t mask;
  };
  static constexpr Row rows[] = {
      {op::v_lshlrev_b32, 0, 31},    {op::v_lshrrev_b32, 0, 31},    {op::v_ashrrev_i32, 0, 31},
      {op::v_lshlrev_b16, 0, 15},    {op::v_lshrrev_b16, 0, 15},    {op::v_ashrrev_i16, 0, 15},
      {op::v_pk_lshlrev_b16, 0, 15}, {op::v_pk_lshrrev_b16, 0, 15}, {op::v_pk_ashrrev_i16, 0, 15},
      {op::v_lshlrev_b64, 0, 63},    {op::v_lshrrev_b64, 0, 63},    {op::v_ashrrev_i64, 0, 63},
      {op::s_lshl_b32, 1, 31},       {op::s_lshr_b32, 1, 31},       {op::s_ashr_i32, 1, 31},
      {op::s_lshl_b64, 1, 63},       {op::s_lshr_b64, 1, 63},       {op::s_ashr_i64, 1, 63},
      {op::v_lshl_add_u32, 1, 31},   {op::v_lshl_or_b32, 1, 31},    {op::v_add_lshl_u32, 2, 31},
      {op::v_lshl_add_u64, 1, 7},    {op::v_alignbit_b32, 2, 31},   {op::v_alignbyte_b32, 2, 3},
      {op::v_bfe_u32, 1, 31},        {op::v_bfe_u32, 2, 31},        {op::v_bfe_i32, 1, 31},
      {op::v_bfe_i32, 2, 31},
  };
  for (const Row& r : rows)
    if (r.op == o && r.src == src) return r.mask;
  return ~std::uint64_t{0};
}

[[nodiscard]] inline bool is_site(MutOp op, const Program& p, std::size_t item) {
  const Inst& in = p.items[item].inst;
  switch (op) {
    case MutOp::waitcnt_drop:
      return is_waitcnt(in) && !decode_waitcnt(in.target, static_cast<std::uint16_t>(in.ops[0].imm)).waits_for_nothing(in.target);
    case MutOp::waitcnt_weaken: {
      if (!is_waitcnt(in)) return false;
      const Waitcnt w = decode_waitcnt(in.target, static_cast<std::uint16_t>(in.ops[0].imm));
      return w.vm < max_count(in.target, Counter::vm) || w.lgkm < max_count(in.target, Counter::lgkm);
    }
    case MutOp::swap_dependent: {
      const auto j = adjacent_next(p, item);
      return j >= 0 && swappable_pair(in, p.items[static_cast<std::size_t>(j)].inst);
    }
    case MutOp::reg_change: return !numbered_reg_operands(in).empty();
    case MutOp::imm_change: return !alu_constant_operands(in).empty();
    case MutOp::offset_change: return !offset_operands(in).empty();
    case MutOp::cmp_flip: return sibling_form(in, negated_compare(in)) != nullptr;
    case MutOp::nop_drop: return op_of(in) == op::s_nop;
    case MutOp::exec_change: return writes_exec(in);
    case MutOp::store_oob: return is_oob_store(in);
    case MutOp::cache_bit: return cpol_operand(in).has_value();
  }
  return false;
}

}  // namespace detail

/// The candidate sites of `op` in a kernel: the ids of in-scope instructions it can mutate, in program order.
[[nodiscard]] ASMEVO_OUTLINE std::vector<InstId> mutation_sites(MutOp op, const Program& p, const KernelScope& scope)
#if ASMEVO_BODY_VERIFY
{
  std::set<InstId> in_scope(scope.insts.begin(), scope.insts.end());
  std::vector<InstId> out;
  for (std::size_t i = 0; i < p.items.size(); ++i) {
    if (p.items[i].kind != Item::Kind::inst || !in_scope.count(p.items[i].inst.id)) continue;
    if (op == MutOp::swap_dependent) {
      const auto j = detail::adjacent_next(p, i);
      if (j < 0 || !in_scope.count(p.items[static_cast<std::size_t>(j)].inst.id)) continue;
    }
    if (detail::is_site(op, p, i)) out.push_back(p.items[i].inst.id);
  }
  return out;
}
#else
;
#endif

/// Applies `op` at `site` (one of mutation_sites(op, p, scope)), choosing the variant from (site, seed). Fails only
/// on bad input (no instruction `site`, or it is not a site of `op`); a mutation that does not give a well-formed
/// instruction is a Mutant with valid = false.
[[nodiscard]] ASMEVO_OUTLINE Expected<Mutant> mutate(MutOp op, const Program& p, const KernelScope& scope, InstId site,
                                             std::uint64_t seed)
#if ASMEVO_BODY_VERIFY
{
  const std::ptrdiff_t at = detail::item_index(p, site);
  const std::string sid = "i" + std::to_string(site.value);
  if (at < 0) return fail(DiagCode::usage, "no instruction " + sid + " in the program", Loc{p.file, 0, 0, site.value});
  const auto idx = static_cast<std::size_t>(at);
  if (!detail::is_site(op, p, idx))
    return fail(DiagCode::usage, sid + " (" + print_inst(p.items[idx].inst) + ") is not a " + std::string(to_string(op)) + " site",
                Loc{p.file, 0, 0, site.value});
  auto rng = detail::mut_rng(op, site, seed);
  Mutant m;
  m.op = op;
  m.site = site;
  m.program = p;
  Inst& in = m.program.items[idx].inst;
  const Inst orig = in;
  const Target t = in.target;
  const std::string before = print_inst(orig);
  const auto ops = isa::operands(detail::form_of(orig));

  auto erase = [&] {
    m.program.items.erase(m.program.items.begin() + at);
    m.description = sid + " " + before + " -> (deleted)";
  };
  auto invalid = [&](std::string why) {
    if (m.description.empty()) m.description = sid + " " + before + " -> (no valid " + std::string(to_string(op)) + ")";
    m.valid = false;
    m.invalid_reason = std::move(why);
    m.program = Program{};
    return m;
  };
  // Checks the changed instruction and words the description.
  auto finish = [&]() -> Mutant {
    detail::sync_tied(in);
    const std::string after = print_inst(in);
    if (m.description.empty()) m.description = sid + " " + before + " -> " + after;
    if (in == orig) return invalid("the mutation changes nothing");
    if (auto why = detail::check_inst(in); !why.empty()) return invalid(why);
    return m;
  };

  switch (op) {
    case MutOp::waitcnt_drop: {
      m.wait_before = decode_waitcnt(t, static_cast<std::uint16_t>(orig.ops[0].imm));
      m.wait_after = Waitcnt::none(t);
      erase();
      return m;
    }
    case MutOp::waitcnt_weaken: {
      // vmcnt and lgkmcnt only: gfx9 compute code has no expcnt-counted events (LLVM SIInsertWaitcnts counts
      // EXP_CNT for exports, GDS and, before Sea Islands only, VMEM write data: vmemWriteNeedsExpWaitcnt).
      const Waitcnt w = decode_waitcnt(t, static_cast<std::uint16_t>(orig.ops[0].imm));
      std::vector<Counter> cs;
      if (w.vm < max_count(t, Counter::vm)) cs.push_back(Counter::vm);
      if (w.lgkm < max_count(t, Counter::lgkm)) cs.push_back(Counter::lgkm);
      const Counter c = cs[rng.below(cs.size())];
      Waitcnt w2 = w;
      w2.set(c, w.get(c) + 1);
      m.wait_before = w;
      m.wait_after = w2;
      in.ops[0] = Operand::make_imm(encode_waitcnt(t, w2));
      const char* name = c == Counter::vm ? "vmcnt" : "lgkmcnt";
      m.description = sid + " s_waitcnt " + name + "(" + std::to_string(w.get(c)) + ") -> " + name + "(" +
                      std::to_string(w2.get(c)) + ")";
      return finish();
    }
    case MutOp::swap_dependent: {
      const auto j = detail::adjacent_next(p, idx);
      const Inst& next = p.items[static_cast<std::size_t>(j)].inst;
      std::swap(m.program.items[idx].inst, m.program.items[static_cast<std::size_t>(j)].inst);
      m.description = sid + " " + before + " <-> i" + std::to_string(next.id.value) + " " + print_inst(next);
      return m;
    }
    case MutOp::reg_change: {
      const auto cands = detail::numbered_reg_operands(orig);
      const std::size_t k = cands[rng.below(cands.size())];
      const Reg r = orig.ops[k].reg;
      const auto lim = limits(t);
      // Within the kernel's registers 7 times in 8; otherwise anywhere in the file.
      const bool inside = rng.below(8) != 0;
      unsigned bound = r.file == RegFile::sgpr ? (inside ? scope.sgprs : lim.sgprs)
                       : r.file == RegFile::vgpr ? (inside ? scope.vgprs : lim.vgprs)
                                                 : (inside ? scope.agprs : lim.agprs);
      const unsigned align = r.dwords < 2 ? 1
                             : r.file == RegFile::sgpr ? (r.dwords >= 4 ? 4u : 2u)
                                                       : std::max<unsigned>(lim.tuple_align2 ? 2u : 1u, ops[k].valign);
      std::vector<unsigned> choices;
      for (unsigned x = 0; x + r.dwords <= bound; x += align)
        if (x != r.index) choices.push_back(x);
      if (choices.empty()) {
        m.description = sid + " " + before + ": no other " + std::string(prefix(r.file)) + " register of width " +
                        std::to_string(r.dwords) + " fits";
        return invalid("no other register of the same file, width and alignment");
      }
      in.ops[k].reg.index = static_cast<std::uint16_t>(choices[rng.below(choices.size())]);
      return finish();
    }
    case MutOp::imm_change: {
      const auto cands = detail::alu_constant_operands(orig);
      const std::size_t k = cands[rng.below(cands.size())];
      Operand& o = in.ops[k];
      const auto& oi = ops[k];
      const bool literal_ok = (oi.regs & isa::reg::literal) || oi.kind == isa::Kind::kimm || oi.kind == isa::Kind::imm;
      if (o.kind == Operand::Kind::real) {
        static constexpr double inl[] = {0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0};
        std::vector<double> c;
        for (double d : inl)
          if (d != o.real) c.push_back(d);
        if (literal_ok) c.push_back(o.real * 3.0 + 1.0);
        o.real = c[rng.below(c.size())];
      } else {
        const std::int64_t v = o.imm;
        // Which source this operand is (defs come first in the form's operand list), for count_field_mask.
        std::size_t src = 0;
        for (std::size_t i = 0; i < k; ++i)
          if (ops[i].is_printed() && ops[i].role == isa::Role::use) ++src;
        const std::uint64_t field = detail::count_field_mask(op_of(orig), src);
        const auto same_count = [&](std::int64_t d) {
          return (static_cast<std::uint64_t>(d) & field) == (static_cast<std::uint64_t>(v) & field);
        };
        std::vector<std::int64_t> c;
        for (std::int64_t d : {v + 1, v - 1, v == 0 ? 2 : v * 2, v ^ 0x10})
          if (d != v && !same_count(d) && (literal_ok || is_inline_int(d))) c.push_back(d);
        if (c.empty()) return invalid("no other constant fits the operand");
        o.imm = c[rng.below(c.size())];
      }
      return finish();
    }
    case MutOp::offset_change:
    case MutOp::store_oob: {
      auto offs = detail::offset_operands(orig);
      if (op == MutOp::store_oob)
        offs.erase(std::remove_if(offs.begin(), offs.end(), [&](std::size_t k) { return ops[k].prefix != "offset"; }), offs.end());
      const std::size_t k = offs[rng.below(offs.size())];
      Operand& o = in.ops[k];
      const std::int64_t cur = o.present() ? o.imm : 0;
      const bool ds_pair = ops[k].prefix == "offset0" || ops[k].prefix == "offset1";
      // DS read2/write2 offsets count elements (MI300 ISA §11 "DS_READ2_B32: offset0*4"); the rest count bytes.
      const std::int64_t elem = ds_pair ? 1 : detail::access_bytes(orig);
      std::int64_t delta = elem;
      if (op == MutOp::offset_change) {
        delta *= static_cast<std::int64_t>(1 + rng.below(2));
        const bool signed_ok = detail::form_of(orig).format == isa::Format::GLOBAL ||
                               detail::form_of(orig).format == isa::Format::SCRATCH ||
                               detail::form_of(orig).format == isa::Format::SMEM;
        if (rng.below(2) && (cur - delta >= 0 || signed_ok)) delta = -delta;
      }
      o = Operand::make_imm(cur + delta);
      return finish();
    }
    case MutOp::cmp_flip: {
      const auto* g = detail::sibling_form(orig, detail::negated_compare(orig));
      const auto all = isa::forms(t);
      in.form = static_cast<std::uint16_t>(g - all.data());
      if (isa::operands(*g).size() != orig.ops.size()) return invalid("the negated compare has another operand list");
      return finish();
    }
    case MutOp::nop_drop: {
      const std::int64_t n = orig.ops.empty() ? 0 : orig.ops[0].imm;
      if (n > 0 && rng.below(2)) {
        in.ops[0].imm = n - 1;
        return finish();
      }
      erase();
      return m;
    }
    case MutOp::exec_change: {
      // Variants that apply: 0 = and/or family swap, 1 = another 64-bit scalar source, 2 = drop (only when exec is
      // the sole explicit result, e.g. `s_mov_b64 exec, s[0:1]` or the `s_or_b64 exec, exec, s[..]` restore).
      const isa::FormInfo* sf = detail::sibling_form(orig, detail::exec_sibling(orig));
      std::vector<std::size_t> srcs;
      bool only_exec_def = true;
      for (std::size_t k = 0; k < ops.size() && k < orig.ops.size(); ++k) {
        if (!orig.ops[k].is_reg() || !ops[k].is_printed()) continue;
        if (ops[k].role == isa::Role::use && orig.ops[k].reg.dwords == 2 && !detail::is_exec(orig.ops[k].reg)) srcs.push_back(k);
        if (ops[k].role == isa::Role::def && !detail::is_exec(orig.ops[k].reg)) only_exec_def = false;
      }
      std::vector<int> variants;
      if (sf) variants.push_back(0);
      if (!srcs.empty()) variants.push_back(1);
      if (only_exec_def) variants.push_back(2);
      if (variants.empty()) return invalid("no exec_change variant applies");
      const int v = variants[rng.below(variants.size())];
      if (v == 0) {
        in.form = static_cast<std::uint16_t>(sf - isa::forms(t).data());
        return finish();
      }
      if (v == 2) {
        erase();
        return m;
      }
      const std::size_t k = srcs[rng.below(srcs.size())];
      std::vector<Reg> pool{Reg{RegFile::special, special::vcc_lo, 2}};
      for (unsigned x = 0; x + 2 <= scope.sgprs; x += 2) pool.push_back(Reg{RegFile::sgpr, static_cast<std::uint16_t>(x), 2});
      pool.erase(std::remove(pool.begin(), pool.end(), orig.ops[k].reg), pool.end());
      in.ops[k].reg = pool[rng.below(pool.size())];
      return finish();
    }
    case MutOp::cache_bit: {
      const std::size_t k = *detail::cpol_operand(orig);
      const auto& f = detail::form_of(orig);
      std::vector<std::int64_t> bits;
      // Returning atomics must keep glc/sc0 and non-returning ones must not have it (AMDGPUAsmParser
      // validateCoherencyBits), so bit 0 is not flipped on atomics. SMEM has glc only.
      if (!f.has(isa::prop::atomic)) bits.push_back(1);
      if (f.format != isa::Format::SMEM) bits.push_back(2), bits.push_back(16);
      if (bits.empty()) return invalid("no cache-policy bit can flip here");
      const std::int64_t b = bits[rng.below(bits.size())];
      m.hint_only = b == 2 && f.format != isa::Format::SMEM;
      Operand& o = in.ops[k];
      const std::int64_t cur = o.present() ? o.imm : 0;
      const std::int64_t nv = cur ^ b;
      o = nv ? Operand::make_imm(nv) : Operand{};
      return finish();
    }
  }
  return invalid("unknown operator");
}
#else
;
#endif

}  // namespace asmevo::verify
