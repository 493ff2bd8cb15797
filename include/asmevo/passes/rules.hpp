// The rule DSL of the peephole pass: named, directional rewrites of a short chain of instructions in one basic
// block, written with typed op ids (ir/gen/ops.hpp) and checked against the instruction tables at compile time.
//
//   // (x << k) + y -> v_lshl_add_u32 x, k, y: exact, one instruction fewer.
//   constexpr Rule fuse = rule("fuse-shift-add",
//       seq(op(op::v_lshlrev_b32, _t, _k, _x), op(op::v_add_u32, _d, _t, _y).commutative()).where(dead_after(_t)),
//       emit(op::v_lshl_add_u32, _d, _x, _k, _y));
//   constexpr Rule drop = rule("drop-self-move", seq(op(op::v_mov_b32, _x, _x)).where(unchanged(_x)), erase());
//
// A pattern is a chain `seq(op0, op1, ...)`: op0 matches anywhere; op(j+1) must be the FIRST instruction after
// op(j) in the same block that reads op(j)'s destination (its first placeholder), not merely the next
// instruction. Each `op` names an Opcode (`op::v_add_u32`: a misspelt op does not compile; e32 and e64 forms alike;
// SDWA and DPP forms never match) and one placeholder per register-or-constant operand (printed operands of kind
// reg or src), destinations first, in the form's operand order. A placeholder used twice must bind equal operands.
// `.commutative()` also tries an op with its first two sources swapped.
//
// The rewrite replaces the last matched instruction (keeping its id) by the replacement, `emit(op, _x, ...)` (one
// placeholder per register-or-constant operand of the op, in its operand order) or `erase()` (the matched
// instructions are erased), and erases the others; every edit goes through the Rewriter with the rule's name as its
// `why`. The replacement is built from the Opcode and the captured operands as the typed builders build (the first
// form of the op on the program's target, in the assembler's preference order, whose slots accept the captures;
// ir/builder.hpp, match_form), so a rule whose replacement the target cannot encode (a 32-bit literal in a gfx9
// VOP3, two SGPRs over the constant bus, an op the target lacks) simply does not fire there.
//
// What a rule claims and what the engine checks. The rule claims its identity (the replacement computes what the
// last instruction did, given the erased ones): its comment says which, and tests check it on the emulator. The
// engine checks everything that depends on where the instructions are, so a rule is exact on all 64 lanes:
//  - no modifiers: a matched instruction has no neg/abs/sext, clamp, omod, op_sel or hidden operand;
//  - the erased instructions' inputs (registers and implicit ones, exec for a VALU) are not written between them and
//    the last matched instruction, so the replacement, which reads them there, sees the same values and lanes;
//  - captures of the last instruction do not overlap what an erased instruction wrote (its old value is gone);
//  - nothing else reads an erased destination in between, and each is dead after the last matched instruction
//    (declared with `dead_after`, checked lane-exactly below); an erased instruction writes no implicit register;
//  - the replacement writes exactly the registers the last instruction wrote. A rule whose replacement is erase()
//    declares each destination of its last instruction `dead_after` or `unchanged` (its claim: x := x).
// A rule that is malformed is refused: at compile time when the rule is constexpr (the compiler's error names a
// function of detail:: below saying what is wrong, in the context of the rule() call), else by the pass as a Diag.
// Malformed are the shape rules (it removes no instruction, names an unbound or dead placeholder, erases a
// destination it does not declare dead, or chains ops that do not read each other) and the typed ones, read from
// the tables of gfx90a, gfx942 and gfx950 together:
//  - an op (of the pattern or the replacement) has no form with as many register-or-constant operands as it names
//    placeholders (the replacement: among the forms the assembler accepts);
//  - a placeholder bound twice in slots that share no register kind or constant (it can never match);
//  - a replacement operand's register class: the kinds the placeholder can hold where the pattern binds it (the
//    union over targets and forms of its slots, intersected over its bindings) share none with the kinds the
//    replacement's slot accepts (likewise a union), e.g. a VGPR destination put into s_add_u32's SGPR destination;
//  - a destination placeholder (bound only in destination slots) in a source slot of the replacement, or a source
//    placeholder (bound only in source slots) in a destination slot.
// These are necessary, not sufficient: a rule that passes them can still not fire on a target (a 64-bit slot given a
// 32-bit capture: widths are checked when the replacement is built, at run time).
//
// Deadness is lane-exact, not register-exact (analysis/liveness.hpp kills a register on an exec-masked write): a
// VGPR counts as overwritten only by a later full-width VALU write (no SDWA, DPP or partial write) while exec is
// the one the erased instruction ran with. Past an exec write or the block's end it is conservatively live if any
// path reads it at all. Gives up: `v_lshlrev v1 ..; v_add ..v1..; s_mov_b64 exec, -1; v_mov v1, 0; v_add ..v1..`
// does not fuse although the v_mov rewrites every lane the shift wrote. (With `s_mov_b64 exec, s[0:1]` instead it
// must not fuse: lanes outside s[0:1] would still hold the shift's value, and a later wider read sees them.)
//
// Names: `op(...)` is this header's function and `op::v_add_u32` the namespace asmevo::op. Inside namespace
// asmevo::passes (or below) both resolve. Code that brings both asmevo and asmevo::passes in with using-directives
// makes `op(` ambiguous; add `using asmevo::passes::op;` in the scope that writes rules (a using-declaration hides
// the namespace for calls and not for `op::`).
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/liveness.hpp"
#include "asmevo/ir/builder.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/passes/nop_min.hpp"
#include "asmevo/passes/pass.hpp"
#include "asmevo/passes/rewriter.hpp"

namespace asmevo::passes {

/// A placeholder of a rule: one lowercase letter. The operand a pattern binds to `_x` is the one emit() puts where
/// it names `_x`.
struct Var {
  char name = 0;
};

/// The placeholders `_a` .. `_z` (`using namespace asmevo::passes::vars;`).
namespace vars {
inline constexpr Var _a{'a'}, _b{'b'}, _c{'c'}, _d{'d'}, _e{'e'}, _f{'f'}, _g{'g'}, _h{'h'}, _i{'i'}, _j{'j'},
    _k{'k'}, _l{'l'}, _m{'m'}, _n{'n'}, _o{'o'}, _p{'p'}, _q{'q'}, _r{'r'}, _s{'s'}, _t{'t'}, _u{'u'}, _v{'v'},
    _w{'w'}, _x{'x'}, _y{'y'}, _z{'z'};
}  // namespace vars

/// One instruction of a pattern (see the file comment).
struct OpPat {
  static constexpr std::size_t max_vars = 6;
  Opcode opcode = Opcode::invalid;
  std::array<char, max_vars> vars{};
  std::uint8_t n = 0;
  bool commutes = false;

  /// The same op, also matched with its first two sources swapped (an add, an or: either may be the chained value).
  [[nodiscard]] constexpr OpPat commutative() const {
    OpPat o = *this;
    o.commutes = true;
    return o;
  }
};

/// `op(op::v_add_u32, _d, _t, _y)`: the op and one placeholder per register-or-constant operand, destinations first.
template <std::same_as<Var>... V>
[[nodiscard]] constexpr OpPat op(Opcode opcode, V... v) {
  static_assert(sizeof...(V) >= 1 && sizeof...(V) <= OpPat::max_vars, "op(): give 1 to 6 placeholders, destination first");
  OpPat o;
  o.opcode = opcode;
  ((o.vars[o.n++] = v.name), ...);
  return o;
}

/// A condition of a pattern.
struct Cond {
  enum class Kind : std::uint8_t {
    dead_after,  ///< the register of the placeholder is dead after the last matched instruction (lane-exact)
    unchanged,   ///< the rule's claim: the last matched instruction leaves it as it was (a self move)
  };
  Kind kind;
  char var;
};
[[nodiscard]] constexpr Cond dead_after(Var v) { return {Cond::Kind::dead_after, v.name}; }
[[nodiscard]] constexpr Cond unchanged(Var v) { return {Cond::Kind::unchanged, v.name}; }

/// A chain of 1..4 ops in one block, with its conditions.
struct Seq {
  static constexpr std::size_t max_ops = 4, max_conds = 8;
  std::array<OpPat, max_ops> ops{};
  std::uint8_t n = 0;
  std::array<Cond, max_conds> conds{};
  std::uint8_t nconds = 0;

  template <std::same_as<Cond>... C>
  [[nodiscard]] constexpr Seq where(C... c) const {
    static_assert(sizeof...(C) >= 1 && sizeof...(C) <= max_conds, "where(): give 1 to 8 conditions");
    Seq s = *this;
    ((s.nconds < max_conds ? void(s.conds[s.nconds++] = c) : void()), ...);
    return s;
  }
  [[nodiscard]] constexpr bool has(Cond::Kind k, char v) const {
    for (std::size_t i = 0; i < nconds; ++i)
      if (conds[i].kind == k && conds[i].var == v) return true;
    return false;
  }
};

template <std::same_as<OpPat>... O>
[[nodiscard]] constexpr Seq seq(O... ops) {
  static_assert(sizeof...(O) >= 1 && sizeof...(O) <= Seq::max_ops, "seq(): give 1 to 4 ops");
  Seq s;
  ((s.ops[s.n++] = ops), ...);
  return s;
}

/// What a rule puts in place of the last matched instruction: one instruction (emit()) or nothing (erase()).
struct Replacement {
  Opcode opcode = Opcode::invalid;
  std::array<char, OpPat::max_vars> vars{};
  std::uint8_t n = 0;
  bool erases = false;  ///< erase(): the matched instructions are erased
};

/// `emit(op::v_lshl_add_u32, _d, _x, _k, _y)`: the op and one placeholder per register-or-constant operand, in its
/// operand order (destinations first).
template <std::same_as<Var>... V>
[[nodiscard]] constexpr Replacement emit(Opcode opcode, V... v) {
  static_assert(sizeof...(V) >= 1 && sizeof...(V) <= OpPat::max_vars, "emit(): give 1 to 6 placeholders, destination first");
  Replacement r;
  r.opcode = opcode;
  ((r.vars[r.n++] = v.name), ...);
  return r;
}

/// `erase()`: the rule erases every matched instruction (its last one's destinations are dead_after or unchanged).
[[nodiscard]] constexpr Replacement erase() {
  Replacement r;
  r.erases = true;
  return r;
}

/// A named, directional rewrite. `error` is empty for a well-formed rule (see rule()). It holds views: the strings
/// it was made from must outlive it (literals do).
struct Rule {
  std::string_view name;
  Seq pattern;
  Replacement replacement;
  std::string_view error;
};

namespace detail {

// Shape and type errors. They are not constexpr on purpose: a constexpr rule that breaks one fails to compile, and
// the compiler's message names the function below, which says what is wrong.
inline void rule_needs_at_least_one_op_with_placeholders() {}
inline void rule_placeholder_is_malformed() {}
inline void rule_must_remove_an_instruction() {}
inline void rule_op_does_not_read_the_previous_ops_destination() {}
inline void rule_replacement_names_an_unbound_placeholder() {}
inline void rule_erased_destination_must_be_declared_dead_after() {}
inline void rule_replacement_reads_a_dead_placeholder() {}
inline void rule_condition_names_an_unbound_placeholder() {}
inline void rule_op_has_no_form_with_this_many_operands() {}
inline void rule_placeholder_can_never_bind_one_operand_in_all_its_slots() {}
inline void rule_replacement_op_has_no_form_with_this_many_operands() {}
inline void rule_replacement_operand_has_the_wrong_register_class() {}
inline void rule_replacement_puts_a_destination_in_a_source_slot() {}
inline void rule_replacement_puts_a_source_in_a_destination_slot() {}

[[nodiscard]] constexpr bool seq_binds(const Seq& s, char v) {
  for (std::size_t j = 0; j < s.n; ++j)
    for (std::size_t k = 0; k < s.ops[j].n; ++k)
      if (s.ops[j].vars[k] == v) return true;
  return false;
}

/// A form a rule matches or builds: SDWA and DPP forms never are (their selects and lane moves are not modelled).
[[nodiscard]] constexpr bool plain_form(const isa::FormInfo& f) {
  return f.variant != isa::Variant::sdwa && f.variant != isa::Variant::dpp && !f.has(isa::prop::sdwa) &&
         !f.has(isa::prop::dpp);
}

/// An operand a placeholder stands for: printed, register or register-or-constant.
[[nodiscard]] constexpr bool value_slot(const isa::OperandInfo& o) {
  return o.is_printed() && (o.kind == isa::Kind::reg || o.kind == isa::Kind::src);
}

/// What the k-th placeholder of an op can stand for: the reg:: bits (register kinds and constants) and roles of
/// that slot, united over the three targets and over the op's forms with exactly n register-or-constant operands.
struct SlotKinds {
  std::uint32_t regs = 0;
  bool def = false, use = false;
};
struct OpSlots {
  std::array<SlotKinds, OpPat::max_vars> at{};
  bool found = false;  ///< some form has n register-or-constant operands
};

/// The slots of op `o` named by `n` placeholders: in the forms a pattern matches (`built`: the forms the assembler
/// accepts, which a replacement is built from). With `commutes` the first two sources hold either's kinds, as the
/// matcher may swap them.
[[nodiscard]] constexpr OpSlots op_slots(Opcode o, std::size_t n, bool commutes, bool built) {
  OpSlots r;
  for (const Target t : all_targets)
    for (const isa::FormInfo& f : forms_of(t, o)) {
      if (!plain_form(f) || (built && !f.has(isa::prop::asm_matchable))) continue;
      const auto ops = isa::operands(f);
      std::array<std::size_t, OpPat::max_vars> idx{};
      std::size_t m = 0, ndef = 0;
      for (std::size_t k = 0; k < ops.size(); ++k) {
        if (!value_slot(ops[k])) continue;
        if (m < idx.size()) idx[m] = k;
        ++m;
        ndef += ops[k].role == isa::Role::def;
      }
      if (m != n) continue;
      r.found = true;
      auto add = [&](std::size_t k, const isa::OperandInfo& s) {
        r.at[k].regs |= s.regs;
        r.at[k].def = r.at[k].def || s.role == isa::Role::def;
        r.at[k].use = r.at[k].use || s.role == isa::Role::use;
      };
      for (std::size_t k = 0; k < n; ++k) add(k, ops[idx[k]]);
      if (commutes && n >= ndef + 2) {
        add(ndef, ops[idx[ndef + 1]]);
        add(ndef + 1, ops[idx[ndef]]);
      }
    }
  return r;
}

/// The problem of a rule, or empty; `rule_error` is the matching compile-time error function.
[[nodiscard]] constexpr std::string_view rule_problem(const Seq& s, const Replacement& repl, void (*&rule_error)()) {
  auto bad = [&](void (*f)(), std::string_view msg) {
    rule_error = f;
    return msg;
  };
  auto letter = [](char v) { return v >= 'a' && v <= 'z'; };
  if (s.n == 0) return bad(rule_needs_at_least_one_op_with_placeholders, "the pattern has no op");
  for (std::size_t j = 0; j < s.n; ++j) {
    if (s.ops[j].n == 0 || s.ops[j].opcode == Opcode::invalid)
      return bad(rule_needs_at_least_one_op_with_placeholders, "an op needs an opcode and a destination placeholder");
    for (std::size_t k = 0; k < s.ops[j].n; ++k)
      if (!letter(s.ops[j].vars[k])) return bad(rule_placeholder_is_malformed, "a placeholder is one of _a .. _z");
  }
  for (std::size_t k = 0; k < repl.n; ++k)
    if (!letter(repl.vars[k])) return bad(rule_placeholder_is_malformed, "a placeholder is one of _a .. _z");
  if (!repl.erases && s.n < 2)
    return bad(rule_must_remove_an_instruction, "a rule must remove an instruction: one op can only be erased");
  for (std::size_t j = 1; j < s.n; ++j) {
    bool reads = false;
    for (std::size_t k = 1; k < s.ops[j].n; ++k) reads |= s.ops[j].vars[k] == s.ops[j - 1].vars[0];
    if (!reads) return bad(rule_op_does_not_read_the_previous_ops_destination, "each op must read the previous op's destination");
  }
  for (std::size_t c = 0; c < s.nconds; ++c)
    if (!seq_binds(s, s.conds[c].var)) return bad(rule_condition_names_an_unbound_placeholder, "a condition names an unbound placeholder");
  for (std::size_t j = 0; j + 1 < s.n; ++j)
    if (!s.has(Cond::Kind::dead_after, s.ops[j].vars[0]))
      return bad(rule_erased_destination_must_be_declared_dead_after, "the destination of an erased op must be declared dead_after");
  if (repl.erases) {
    const char d = s.ops[s.n - 1].vars[0];
    if (!s.has(Cond::Kind::dead_after, d) && !s.has(Cond::Kind::unchanged, d))
      return bad(rule_erased_destination_must_be_declared_dead_after,
                 "a rule that erases its last op must declare its destination dead_after or unchanged");
  }
  for (std::size_t k = 0; k < repl.n; ++k) {
    if (!seq_binds(s, repl.vars[k]))
      return bad(rule_replacement_names_an_unbound_placeholder, "the replacement names a placeholder the pattern does not bind");
    if (s.has(Cond::Kind::dead_after, repl.vars[k]))
      return bad(rule_replacement_reads_a_dead_placeholder, "the replacement reads a placeholder declared dead_after");
  }
  // Typed: what each placeholder can hold where the pattern binds it (a union over forms and targets, intersected
  // over its bindings), and whether it is bound as a destination, a source or both.
  std::array<SlotKinds, 26> var{};
  std::array<bool, 26> bound{};
  for (std::size_t j = 0; j < s.n; ++j) {
    const OpPat& o = s.ops[j];
    const OpSlots sl = op_slots(o.opcode, o.n, o.commutes, false);
    if (!sl.found)
      return bad(rule_op_has_no_form_with_this_many_operands,
                 "an op names more or fewer placeholders than any of its forms has register-or-constant operands");
    for (std::size_t k = 0; k < o.n; ++k) {
      SlotKinds& v = var[static_cast<std::size_t>(o.vars[k] - 'a')];
      const bool first = !bound[static_cast<std::size_t>(o.vars[k] - 'a')];
      bound[static_cast<std::size_t>(o.vars[k] - 'a')] = true;
      v.regs = first ? sl.at[k].regs : v.regs & sl.at[k].regs;
      v.def = v.def || sl.at[k].def;
      v.use = v.use || sl.at[k].use;
      if (!v.regs)
        return bad(rule_placeholder_can_never_bind_one_operand_in_all_its_slots,
                   "a placeholder is bound in slots that share no register kind or constant: the pattern never matches");
    }
  }
  if (repl.erases) return {};
  const OpSlots rs = op_slots(repl.opcode, repl.n, false, true);
  if (!rs.found)
    return bad(rule_replacement_op_has_no_form_with_this_many_operands,
               "the replacement names more or fewer placeholders than any form of its op has register-or-constant operands");
  for (std::size_t k = 0; k < repl.n; ++k) {
    const SlotKinds& v = var[static_cast<std::size_t>(repl.vars[k] - 'a')];
    if (!(v.regs & rs.at[k].regs))
      return bad(rule_replacement_operand_has_the_wrong_register_class,
                 "a replacement operand's slot accepts no register kind or constant its placeholder can hold");
    if (!((v.def && rs.at[k].def) || (v.use && rs.at[k].use))) {
      if (v.def) return bad(rule_replacement_puts_a_destination_in_a_source_slot, "the replacement puts a destination in a source slot");
      return bad(rule_replacement_puts_a_source_in_a_destination_slot, "the replacement puts a source in a destination slot");
    }
  }
  return {};
}

/// The replacement as written: `emit(v_lshl_add_u32, _d, _x, _k, _y)` or `erase()`.
[[nodiscard]] inline std::string replacement_text(const Replacement& r) {
  if (r.erases) return "erase()";
  std::string s = "emit(" + std::string(op_name(r.opcode));
  for (std::size_t k = 0; k < r.n; ++k) s += std::string(", _") + r.vars[k];
  return s + ")";
}

}  // namespace detail

/// A rule (see the file comment). Constexpr rules are checked at compile time; a rule made at run time carries its
/// problem in `error`, and the pass refuses it with a Diag.
[[nodiscard]] constexpr Rule rule(std::string_view name, Seq pattern, Replacement replacement) {
  void (*rule_error)() = nullptr;
  const std::string_view err = detail::rule_problem(pattern, replacement, rule_error);
  if (std::is_constant_evaluated() && rule_error) rule_error();  // a compile error naming the problem
  return Rule{name, pattern, replacement, err};
}

namespace detail {

namespace au = analysis::detail;
using Units = std::vector<unsigned>;
inline constexpr std::size_t npos = ~std::size_t{0};

struct RW {
  Units rd, wr;
};
[[nodiscard]] inline RW rw_of(const Inst& in) {
  RW r;
  au::unit_rw(in, r.rd, r.wr);
  return r;
}
[[nodiscard]] inline bool overlaps(const Units& a, const Units& b) {
  for (const unsigned x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}
[[nodiscard]] inline bool writes_exec(const RW& r) {
  return std::find(r.wr.begin(), r.wr.end(), au::unit_exec) != r.wr.end() ||
         std::find(r.wr.begin(), r.wr.end(), au::unit_exec + 1) != r.wr.end();
}
/// s_call_b64 or s_swappc_b64.
[[nodiscard]] inline bool is_call(const Inst& in) { return family_of(in) == Family::s_call; }
/// The next instruction item after `i` in the same basic block (ir/blocks.hpp), or npos.
[[nodiscard]] inline std::size_t next_in_block(const Program& p, std::size_t i) {
  if (p.items[i].kind == Item::Kind::inst && ends_block(p.items[i].inst)) return npos;
  for (std::size_t k = i + 1; k < p.items.size(); ++k) {
    if (p.items[k].kind == Item::Kind::label) return npos;
    if (p.items[k].kind == Item::Kind::inst) return k;
  }
  return npos;
}

/// Per Cfg block: the units that some path from its end may read before a full overwrite, where a VGPR or AGPR is
/// never overwritten (an exec-masked write keeps the lanes it does not write; exec is not known across blocks)
/// and a scalar register is by any write. An over-approximation of lane liveness; see the file comment.
[[nodiscard]] inline std::vector<analysis::UnitSet> lane_live_out(const Program& p, const analysis::Cfg& g) {
  const std::size_t n = g.blocks.size();
  std::vector<analysis::UnitSet> gen(n), kill(n), in(n), out(n);
  for (std::size_t b = 0; b < n; ++b)
    for (const std::size_t i : g.blocks[b].insts) {
      const Inst& inst = p.items[i].inst;
      if (is_call(inst)) {
        gen[b] |= ~kill[b];
        continue;
      }
      const RW r = rw_of(inst);
      for (const unsigned u : r.rd)
        if (u < au::num_units && (u >= au::unit_v0 || !kill[b].test(u))) gen[b].set(u);
      for (const unsigned u : r.wr)
        if (u < au::unit_v0) kill[b].set(u);
    }
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = n; k-- > 0;) {
      analysis::UnitSet o;
      for (const std::uint32_t s : g.succ[k]) o |= in[s];
      out[k] = o;
      const analysis::UnitSet ni = gen[k] | (o & ~kill[k]);
      if (ni != in[k]) in[k] = ni, changed = true;
    }
  }
  return out;
}

/// What the matcher needs besides the program: the CFG and lane liveness of the program as it was when they were
/// computed. Stale block live-outs stay safe while rules only fuse within a block (live-ins only shrink).
struct MatchEnv {
  const Program* p;
  const analysis::Cfg* g;
  const std::vector<analysis::UnitSet>* live_out;
  std::uint32_t block;  ///< the block of the first matched instruction
};

/// A match in progress: which item each op matched, and each placeholder's operand, slot and op.
struct Match {
  std::array<std::size_t, Seq::max_ops> items{};
  std::array<Operand, 26> val{};
  std::array<const isa::OperandInfo*, 26> slot{};
  std::array<std::int8_t, 26> bound_at{};  ///< op index, -1 unbound
  std::array<std::uint32_t, Seq::max_ops> def_vars{};  ///< per op: bit v set when placeholder v names a destination
  Match() { bound_at.fill(-1); }
};

/// Binds op `j` of `s` to `in`; the reason it does not fit, or empty.
[[nodiscard]] inline std::string bind(const OpPat& o, std::size_t j, const Inst& in, Match& m, bool swap) {
  if (op_of(in) != o.opcode) return "it is " + std::string(op_name(op_of(in))) + ", not " + std::string(op_name(o.opcode));
  const auto& f = au::form_of(in);
  if (!plain_form(f)) return "SDWA and DPP forms never match";
  const auto ops = isa::operands(f);
  std::vector<std::size_t> slots;
  std::size_t ndef = 0;
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const Operand& v = in.ops[k];
    if (!v.present()) continue;
    if (!value_slot(ops[k])) {
      if (!ops[k].is_printed()) return "it has a hidden operand (" + std::string(ops[k].name) + ")";
      if ((v.kind == Operand::Kind::imm || v.kind == Operand::Kind::list) && v.imm == 0) continue;
      return "it has a modifier (" + std::string(ops[k].name) + ") that changes its meaning";
    }
    if (v.mods) return "operand " + std::string(ops[k].name) + " has a source modifier";
    slots.push_back(k);
    ndef += ops[k].role == isa::Role::def;
  }
  if (slots.size() != o.n)
    return std::string(op_name(o.opcode)) + " here has " + std::to_string(slots.size()) + " register-or-constant operands, the op names " +
           std::to_string(o.n);
  if (swap) {
    if (slots.size() < ndef + 2) return "it has no two sources to swap";
    std::swap(slots[ndef], slots[ndef + 1]);
  }
  for (std::size_t k = 0; k < o.n; ++k) {
    const int v = o.vars[k] - 'a';
    const Operand& val = in.ops[slots[k]];
    if (ops[slots[k]].role == isa::Role::def) m.def_vars[j] |= 1u << v;
    if (m.bound_at[v] >= 0) {
      if (!(m.val[v] == val))
        return "_" + std::string(1, o.vars[k]) + " would be " + asmevo::detail::value_text(val) + " here but is " + asmevo::detail::value_text(m.val[v]);
      continue;
    }
    m.val[v] = val;
    m.slot[v] = &ops[slots[k]];
    m.bound_at[v] = static_cast<std::int8_t>(j);
  }
  return {};
}

[[nodiscard]] inline std::string bind_either(const OpPat& o, std::size_t j, const Inst& in, Match& m) {
  Match keep = m;
  auto why = bind(o, j, in, m, false);
  if (why.empty() || !o.commutes) return why;
  m = keep;
  auto why2 = bind(o, j, in, m, true);
  return why2.empty() ? why2 : why;
}

[[nodiscard]] inline Units units_of_operand(const Operand& o) { return o.is_reg() ? au::units_of(o.reg) : Units{}; }

/// Lane-exact: are `units` (written by an erased instruction under the exec of the first matched one) read on some
/// path after item `last` before being overwritten? `last_writes`: the last matched instruction's writes count (it
/// stays, replaced by an instruction writing the same registers). The reason they are live, or empty.
[[nodiscard]] inline std::string live_after(const MatchEnv& env, std::size_t last, Units units, bool last_writes) {
  const Program& p = *env.p;
  bool exec_same = true;
  auto kills = [&](const Inst& in, const RW& r) {
    const auto& f = au::form_of(in);
    const bool full_vector = f.has(isa::prop::valu) && !f.has(isa::prop::sdwa) && !f.has(isa::prop::dpp) &&
                             f.variant != isa::Variant::sdwa && f.variant != isa::Variant::dpp && !au::partial_def(in);
    std::erase_if(units, [&](unsigned u) {
      if (std::find(r.wr.begin(), r.wr.end(), u) == r.wr.end()) return false;
      return u < au::unit_v0 || (full_vector && exec_same);
    });
  };
  if (last_writes) kills(p.items[last].inst, rw_of(p.items[last].inst));
  for (std::size_t i = next_in_block(p, last); units.size() && i != npos; i = next_in_block(p, i)) {
    const Inst& in = p.items[i].inst;
    if (is_call(in)) return "a call follows, which may read " + au::unit_name(units[0]);
    const RW r = rw_of(in);
    if (overlaps(r.rd, units)) return au::unit_name(units[0]) + " is read later, by '" + print_inst(in) + "'";
    kills(in, r);
    if (writes_exec(r)) exec_same = false;
  }
  for (const unsigned u : units)
    if (u < au::num_units && (*env.live_out)[env.block].test(u))
      return au::unit_name(u) + " may be read after the block (lane-conservative liveness)";
  return {};
}

/// A replacement instruction and the role of the slot each placeholder went to.
struct Built {
  Inst inst;
  std::array<isa::Role, OpPat::max_vars> role{};
};

/// Builds the replacement of a match on target `t` as the typed builders build (asmevo::detail::match_form, the
/// parser's own operand rules): the first form of the op, in the assembler's preference order, whose positional
/// operands are the captures in order (plus the words `off` and `vcc` a form spells) and which accepts them. The
/// reason no form does, or empty.
[[nodiscard]] inline std::string build(Target t, const Replacement& rp, const Match& m, Built& out) {
  namespace ad = asmevo::detail;
  using K = ad::ArgShape::K;
  std::array<ad::RtArg, OpPat::max_vars> caps{};
  std::string text(op_name(rp.opcode));
  for (std::size_t k = 0; k < rp.n; ++k) {
    const Operand& v = m.val[static_cast<std::size_t>(rp.vars[k] - 'a')];
    ad::RtArg& a = caps[k];
    switch (v.kind) {
      case Operand::Kind::reg: a.k = K::reg_rt, a.reg = v.reg; break;
      case Operand::Kind::imm: a.k = K::imm_rt, a.value = v.imm; break;
      case Operand::Kind::real: a.k = K::real_rt, a.real = v.real; break;
      case Operand::Kind::expr: a.k = K::label_rt, a.text = v.text; break;
      default: return "_" + std::string(1, rp.vars[k]) + " holds " + ad::value_text(v) + ", which no operand slot takes";
    }
    text += (k ? ", " : " ") + ad::value_text(v);
  }
  auto invalid = [&](const std::string& why) {
    return "the replacement '" + text + "' is not valid for " + std::string(to_string(t)) + ": " + why;
  };
  const OpForms r = op_forms(t, rp.opcode);
  if (!r.count) return invalid("the target has no " + std::string(op_name(rp.opcode)));
  std::string best = "no form takes " + std::to_string(rp.n) + " register-or-constant operands";
  int best_score = -1;
  std::vector<ad::RtArg> args;
  for (std::size_t fi = r.first; fi < std::size_t{r.first} + r.count; ++fi) {
    const isa::FormInfo& f = isa::forms(t)[fi];
    if (!plain_form(f) || !f.has(isa::prop::asm_matchable)) continue;
    const auto ops = isa::operands(f);
    const ad::PosTemplate pt = ad::positional_template(f);
    std::array<isa::Role, OpPat::max_vars> role{};
    std::size_t k = 0;
    bool fits = true;
    args.clear();
    for (std::size_t j = 0; j < pt.count; ++j) {
      const ad::PosElem& e = pt.elems[j];
      if (e.word) {  // `off` (global/scratch without an SGPR base) or `vcc` (VOP2 carry e32 forms)
        ad::RtArg w;
        w.k = e.text == "off" ? K::off : K::reg_rt;
        w.reg = Reg{RegFile::special, special::vcc_lo, 2};
        args.push_back(w);
        continue;
      }
      // A positional operand no placeholder stands for (an integer, a label), or more value operands than given:
      // the form fits only if the rest is optional.
      if (!value_slot(ops[e.op]) || k == rp.n) {
        fits = j >= pt.required;
        break;
      }
      role[k] = ops[e.op].role;
      args.push_back(caps[k++]);
    }
    if (!fits || k != rp.n) continue;
    auto at = ad::match_form(t, fi, args);
    if (at.ok) {
      out.inst = std::move(at.inst);
      out.role = role;
      return {};
    }
    if (at.score > best_score) {
      best_score = at.score;
      best = at.why;
      if (at.op >= 0 && static_cast<std::size_t>(at.op) < ops.size()) best += " (" + std::string(ops[static_cast<std::size_t>(at.op)].name) + ")";
    }
  }
  return invalid(best);
}

/// A match of `rule` with its first op at item `i0` and the replacement (empty optional: erase), or the reason
/// there is none in `why`.
struct Found {
  Match m;
  std::size_t n = 0;
  std::optional<Inst> replacement;
};

[[nodiscard]] inline std::optional<Found> match_at(const Rule& rule, const MatchEnv& env, std::size_t i0, std::string& why) {
  const Program& p = *env.p;
  const Seq& s = rule.pattern;
  if (!rule.error.empty()) return why = "the rule is malformed: " + std::string(rule.error), std::nullopt;
  if (p.items[i0].kind != Item::Kind::inst) return why = "not an instruction", std::nullopt;
  Found fd;
  Match& m = fd.m;
  fd.n = s.n;
  m.items[0] = i0;
  if (why = bind_either(s.ops[0], 0, p.items[i0].inst, m); !why.empty()) return std::nullopt;
  // Chain: op j is the first later reader of op j-1's destination.
  for (std::size_t j = 1; j < s.n; ++j) {
    const char tv = s.ops[j - 1].vars[0];
    const Units t = units_of_operand(m.val[tv - 'a']);
    if (t.empty()) return why = "_" + std::string(1, tv) + " is not a register", std::nullopt;
    std::size_t i = next_in_block(p, m.items[j - 1]);
    for (; i != npos; i = next_in_block(p, i)) {
      const RW r = rw_of(p.items[i].inst);
      if (overlaps(r.rd, t)) break;
      if (overlaps(r.wr, t)) return why = "_" + std::string(1, tv) + " is overwritten before anything in the block reads it", std::nullopt;
    }
    if (i == npos) return why = "no later instruction of the block reads _" + std::string(1, tv), std::nullopt;
    m.items[j] = i;
    if (auto w = bind_either(s.ops[j], j, p.items[i].inst, m); !w.empty())
      return why = "the first reader of _" + std::string(1, tv) + " ('" + print_inst(p.items[i].inst) + "') does not match: " + w, std::nullopt;
  }
  const std::size_t last = m.items[s.n - 1];
  const bool erase_last = rule.replacement.erases;
  const std::size_t nerased = erase_last ? s.n : s.n - 1;
  auto matched = [&](std::size_t i) { return std::find(m.items.begin(), m.items.begin() + s.n, i) != m.items.begin() + s.n; };
  // Erased instructions: their destinations are declared dead (or unchanged); no implicit writes.
  std::vector<Units> erased_wr(s.n);
  for (std::size_t j = 0; j < nerased; ++j) {
    const Inst& in = p.items[m.items[j]].inst;
    const auto& f = au::form_of(in);
    if (f.implicit_defs) return why = "'" + print_inst(in) + "' writes a register implicitly (vcc, scc, ...)", std::nullopt;
    for (char v = 'a'; v <= 'z'; ++v) {
      if (!(m.def_vars[j] >> (v - 'a') & 1u)) continue;
      if (!s.has(Cond::Kind::dead_after, v) && !s.has(Cond::Kind::unchanged, v))
        return why = "destination _" + std::string(1, v) + " of an erased instruction is not declared dead_after", std::nullopt;
    }
    erased_wr[j] = rw_of(in).wr;
  }
  // Between the matched instructions: the erased ones' inputs are not written, their outputs not read.
  for (std::size_t j = 0; j < nerased && s.n > 1; ++j) {
    const RW ej = rw_of(p.items[m.items[j]].inst);
    for (std::size_t i = next_in_block(p, m.items[j]); i != npos && i < last; i = next_in_block(p, i)) {
      if (matched(i)) continue;
      const RW r = rw_of(p.items[i].inst);
      if (overlaps(r.wr, ej.rd)) {
        const bool ex = writes_exec(r) && overlaps(ej.rd, Units{au::unit_exec, au::unit_exec + 1});
        return why = std::string(ex ? "exec changes" : "a source is written") + " between the matched instructions, by '" +
                     print_inst(p.items[i].inst) + "'",
               std::nullopt;
      }
      if (overlaps(r.rd, erased_wr[j]))
        return why = "'" + print_inst(p.items[i].inst) + "' reads an erased instruction's result in between", std::nullopt;
    }
  }
  // Declared-dead destinations, lane-exact.
  for (std::size_t c = 0; c < s.nconds; ++c) {
    if (s.conds[c].kind != Cond::Kind::dead_after) continue;
    const char v = s.conds[c].var;
    if (auto w = live_after(env, last, units_of_operand(m.val[v - 'a']), !erase_last); !w.empty())
      return why = "_" + std::string(1, v) + " is not dead after the last matched instruction: " + w, std::nullopt;
  }
  if (erase_last) return fd;
  Built b;
  if (why = build(p.target, rule.replacement, m, b); !why.empty()) return std::nullopt;
  // Sources the replacement reads: a value of op j that an erased earlier op wrote no longer exists.
  for (std::size_t k = 0; k < rule.replacement.n; ++k) {
    if (b.role[k] == isa::Role::def) continue;  // written by the replacement, not read
    const int v = rule.replacement.vars[k] - 'a';
    const Units u = units_of_operand(m.val[v]);
    for (int j = 0; j < m.bound_at[v]; ++j)
      if (overlaps(u, erased_wr[static_cast<std::size_t>(j)]))
        return why = "_" + std::string(1, static_cast<char>('a' + v)) + " (" + asmevo::detail::value_text(m.val[v]) +
                     ") is the result of an erased instruction",
               std::nullopt;
  }
  // A float constant means different bits in slots of different types (0.5 in an f16 slot is not 0.5 in f32).
  const Inst& in = b.inst;
  const auto rops = isa::operands(au::form_of(in));
  for (std::size_t k = 0; k < rops.size() && k < in.ops.size(); ++k) {
    if (in.ops[k].kind != Operand::Kind::real) continue;
    for (int v = 0; v < 26; ++v)
      if (m.bound_at[v] >= 0 && m.val[v] == in.ops[k] && m.slot[v]->type != rops[k].type)
        return why = "the float constant " + asmevo::detail::value_text(in.ops[k]) + " would change type", std::nullopt;
  }
  auto sorted = [](Units u) {
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
    return u;
  };
  if (sorted(rw_of(in).wr) != sorted(rw_of(p.items[last].inst).wr))
    return why = "'" + print_inst(in) + "' writes other registers than '" + print_inst(p.items[last].inst) + "'", std::nullopt;
  fd.replacement = std::move(b.inst);
  return fd;
}

/// Applies a match through the Rewriter: replace the last matched instruction (keeping its id) and erase the others,
/// all or nothing.
inline Expected<void> apply_match(Rewriter& r, const Rule& rule, Found& fd) {
  const Program& p = r.program();
  std::vector<InstId> ids;
  for (std::size_t j = 0; j < fd.n; ++j) ids.push_back(p.items[fd.m.items[j]].inst.id);
  const std::size_t mark = r.log().size();
  const std::string why(rule.name);
  Expected<void> res{};
  if (fd.replacement) res = r.replace(ids.back(), {*fd.replacement}, why);
  for (std::size_t j = fd.replacement ? fd.n - 1 : fd.n; res && j-- > 0;) res = r.erase(ids[j], why);
  if (!res) r.undo(r.log().size() - mark);
  return res;
}

[[nodiscard]] inline Expected<void> check_rules(std::span<const Rule> rules) {
  for (const Rule& ru : rules)
    if (!ru.error.empty())
      return fail(DiagCode::usage, "rule '" + std::string(ru.name) + "': " + std::string(ru.error), {}, replacement_text(ru.replacement));
  return {};
}

}  // namespace detail

/// Why `rule` does not fire with its first op at instruction `first` of `p` (empty: it would fire). For people and
/// tests asking "why did my rule not match here".
[[nodiscard]] inline std::string explain(const Rule& rule, const Program& p, InstId first, const PassContext& c = {}) {
  const auto g = analysis::build_cfg(p);
  std::ptrdiff_t at = -1;
  for (std::size_t i = 0; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::inst && p.items[i].inst.id == first) at = static_cast<std::ptrdiff_t>(i);
  if (at < 0) return "no instruction i" + std::to_string(first.value);
  const auto entries = kernel_entries(p, g, c);
  if (!entries) return entries.error().message;
  const auto reach = reachable_blocks(g, *entries);
  const std::uint32_t b = g.block_of[static_cast<std::size_t>(at)];
  if (b == analysis::Cfg::none || !reach[b]) return "the instruction is in no block a kernel entry reaches";
  const auto live = detail::lane_live_out(p, g);
  std::string why;
  const detail::MatchEnv env{&p, &g, &live, b};
  return detail::match_at(rule, env, static_cast<std::size_t>(at), why) ? std::string{} : why;
}

/// Runs `rules` to a fixed point over the blocks reachable from the kernel entries: each round scans every reachable
/// block backwards and fires the first rule that matches at each instruction. Every firing removes at least one
/// instruction, so it ends. Notes count the firings per rule.
[[nodiscard]] inline Expected<PassStats> run_rules(std::span<const Rule> rules, Rewriter& r, const PassContext& c) {
  if (auto ok = detail::check_rules(rules); !ok) return unexpected(std::move(ok).error());
  PassStats st;
  std::vector<std::size_t> fired(rules.size(), 0);
  std::size_t held = 0;
  const Program& p = r.program();
  const auto hazards0 = detail::hazard_keys(p, c);
  for (bool changed = true; changed;) {
    changed = false;
    const auto g = analysis::build_cfg(p);
    auto entries = kernel_entries(p, g, c);
    if (!entries) return unexpected(std::move(entries).error());
    const auto reach = editable_blocks(p, g, *entries, c);
    const auto live = detail::lane_live_out(p, g);
    // Backwards, so a firing (which changes items at and after the current one) leaves the indices still to visit.
    for (std::size_t b = g.blocks.size(); b-- > 0;) {
      if (!reach[b]) continue;
      const detail::MatchEnv env{&p, &g, &live, static_cast<std::uint32_t>(b)};
      for (std::size_t k = g.blocks[b].insts.size(); k-- > 0;) {
        const std::size_t i = g.blocks[b].insts[k];
        std::string why;
        const Opcode o = op_of(p.items[i].inst);
        for (std::size_t ri = 0; ri < rules.size(); ++ri) {
          if (rules[ri].pattern.ops[0].opcode != o) continue;  // the common case, without building a Match
          auto fd = detail::match_at(rules[ri], env, i, why);
          const std::size_t mark = r.log().size();
          if (!fd || !detail::apply_match(r, rules[ri], *fd)) continue;
          // One instruction fewer shortens the distance between the ones around it: keep the firing only if no
          // hazard's wait states break (the same rule as dce's).
          if (!detail::no_new(hazards0, detail::hazard_keys(p, c))) {
            r.undo(r.log().size() - mark);
            ++held;
            continue;
          }
          ++fired[ri];
          changed = true;
          break;
        }
      }
    }
  }
  for (std::size_t ri = 0; ri < rules.size(); ++ri)
    if (fired[ri]) st.notes.push_back(std::string(rules[ri].name) + ": fired " + std::to_string(fired[ri]) + " time(s)");
  if (held) st.notes.push_back(std::to_string(held) + " match(es) not applied: the shorter code would break a hazard's wait states");
  return st;
}

}  // namespace asmevo::passes
