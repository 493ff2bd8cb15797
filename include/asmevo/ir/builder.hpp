// Typed instruction builders: choose a form of a mnemonic from its arguments (at compile time when their
// registers are compile-time types, otherwise at run time), and return the instruction, after handing it to the
// builder's sink if it has one (which appends it to a new Program, or inserts it through a Rewriter).
//
// Users include a target's generated builders (asmevo/ir/gen/builders_gfx942.hpp ...), which define the class
// Builder with one one-line function per mnemonic forwarding to BuilderCore::emit, and the register constants of
// the target:
//
//   namespace isa = asmevo::gfx942;
//   isa::Builder b{program};                                        // appends to a new program
//   b.global_load_dwordx4(isa::v<8, 11>, isa::v<2, 3>, isa::off);   // Inst (with its new id); compile-time checks
//   b.v_add_f32(isa::v<0>, some_reg, 2);                            // Expected<Inst>; checked at run time
//   isa::InstBuilder mk;                                            // no sink: values, for Rewriter::replace ...
//   Inst i = mk.v_add_f32(isa::v<0>, isa::v<1>, isa::v<2>);         // Inst; checked at compile time
//
// Inserting into an existing program goes through a Rewriter, so that the change is logged and can be undone:
// a Builder made from a passes::RewriterSink (asmevo/passes/builder.hpp). Code that runs on any target names the op
// by id instead: build_inst<op::s_nop>(t, n) (asmevo/ir/op_builder.hpp).
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "asmevo/ir/detail/operand_check.hpp"
#include "asmevo/ir/gen/form_traits.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/reg.hpp"
#include "asmevo/ir/waitcnt.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo {

/// The id of the Inst a compile-time-checked build returns when the builder is in its failed state (see
/// BuilderCore::ok).
inline constexpr InstId no_inst{0xffffffffu};

/// The form of the Inst a compile-time-checked build returns in the builder's failed state: no
/// form of any target, so the Rewriter refuses the instruction (check_well_formed) rather than insert it. Not
/// printable: check BuilderCore::ok() first.
inline constexpr std::uint16_t no_form = 0xffffu;

// ---------------------------------------------------------------------------------------------------------------
// Argument types (besides RegT, Reg, WaitT, Waitcnt and plain integers / floating-point values)
// ---------------------------------------------------------------------------------------------------------------

namespace detail {
/// A string usable as a template argument: mnemonics and modifier names in the instantiation context.
template <std::size_t N>
struct Name {
  char data[N]{};
  constexpr Name(const char (&s)[N]) noexcept {  // NOLINT: implicit from a string literal by design
    for (std::size_t i = 0; i < N; ++i) data[i] = s[i];
  }
  constexpr explicit Name(std::string_view s) noexcept {
    for (std::size_t i = 0; i + 1 < N && i < s.size(); ++i) data[i] = s[i];
  }
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {data, N - 1}; }
};
}  // namespace detail

/// An integer constant known at compile time: `imm<5>`. Checked against the slot (inline constant or literal).
template <std::int64_t V>
struct ImmT {
  static constexpr std::int64_t value = V;
};
template <std::int64_t V>
inline constexpr ImmT<V> imm{};

/// The word `off` of global/scratch forms without an SGPR base (`global_load_dword v0, v[2:3], off`).
struct OffT {};
inline constexpr OffT off{};

/// A symbolic label or expression (a branch target, a relocated literal), kept as text.
struct Label {
  std::string_view text;
};

/// A named modifier (`offset:16`, `sc0`, `cbsz:1`): its name is in the type, so the builder checks at compile
/// time that the chosen form has it; the value is a run-time integer (1 for a flag).
template <detail::Name N>
struct ModT {
  static constexpr auto name = N;
  std::int64_t value = 1;
};
/// `mod<"offset">(16)`; common modifiers have their own names below (`offset(16)`, `sc0`, `glc` ...).
template <detail::Name N>
struct ModFn {
  [[nodiscard]] constexpr ModT<N> operator()(std::int64_t v) const noexcept { return ModT<N>{v}; }
};
template <detail::Name N>
inline constexpr ModFn<N> mod{};

namespace mods {
inline constexpr ModFn<"offset"> offset{};
inline constexpr ModFn<"offset0"> offset0{};
inline constexpr ModFn<"offset1"> offset1{};
inline constexpr ModFn<"cbsz"> cbsz{};
inline constexpr ModFn<"abid"> abid{};
inline constexpr ModFn<"blgp"> blgp{};
inline constexpr ModFn<"dmask"> dmask{};
inline constexpr ModT<"glc"> glc{};
inline constexpr ModT<"slc"> slc{};
inline constexpr ModT<"scc"> scc_bit{};  ///< gfx90a cache-policy `scc` (named scc_bit: `scc` is the register)
inline constexpr ModT<"sc0"> sc0{};
inline constexpr ModT<"sc1"> sc1{};
inline constexpr ModT<"nt"> nt{};
inline constexpr ModT<"clamp"> clamp{};
inline constexpr ModT<"gds"> gds{};
inline constexpr ModT<"offen"> offen{};  ///< MUBUF keywords: they select the form (vaddr holds an offset / an index)
inline constexpr ModT<"idxen"> idxen{};
inline constexpr ModT<"lds"> lds{};
}  // namespace mods

/// Special registers (the same on every gfx9-family target).
namespace regs {
inline constexpr SpecialT<special::vcc_lo, 2> vcc{};
inline constexpr SpecialT<special::vcc_lo, 1> vcc_lo{};
inline constexpr SpecialT<special::vcc_hi, 1> vcc_hi{};
inline constexpr SpecialT<special::exec_lo, 2> exec{};
inline constexpr SpecialT<special::exec_lo, 1> exec_lo{};
inline constexpr SpecialT<special::exec_hi, 1> exec_hi{};
inline constexpr SpecialT<special::m0, 1> m0{};
inline constexpr SpecialT<special::scc, 1> scc{};
inline constexpr SpecialT<special::flat_scratch_lo, 2> flat_scratch{};
inline constexpr SpecialT<special::flat_scratch_lo, 1> flat_scratch_lo{};
inline constexpr SpecialT<special::flat_scratch_hi, 1> flat_scratch_hi{};
inline constexpr SpecialT<special::xnack_mask_lo, 2> xnack_mask{};
inline constexpr SpecialT<special::src_scc, 1> src_scc{};
inline constexpr SpecialT<special::src_vccz, 1> src_vccz{};
inline constexpr SpecialT<special::src_execz, 1> src_execz{};
inline constexpr SpecialT<special::src_shared_base, 1> src_shared_base{};
inline constexpr SpecialT<special::src_shared_limit, 1> src_shared_limit{};
inline constexpr SpecialT<special::src_private_base, 1> src_private_base{};
inline constexpr SpecialT<special::src_private_limit, 1> src_private_limit{};
inline constexpr SpecialT<special::src_lds_direct, 1> src_lds_direct{};
}  // namespace regs

namespace detail {

/// What a register constant whose static_assert already failed turns into: accepted everywhere, so that one
/// mistake gives one message.
struct PoisonReg {};

template <class>
inline constexpr bool always_false = false;

/// Register constant `v<Lo, Hi>` of a target: checks the range once, where the constant is named.
template <Target T, RegFile F, unsigned Lo, unsigned Hi>
[[nodiscard]] consteval auto reg_const() {
  constexpr auto lim = limits(T);
  constexpr unsigned count = F == RegFile::sgpr ? lim.sgprs : F == RegFile::vgpr ? lim.vgprs
                           : F == RegFile::agpr ? lim.agprs : lim.ttmps;
  if constexpr (Hi < Lo) {
    static_assert(Hi >= Lo, "asmevo: register range is reversed: write v<first, last> with first <= last");
    return PoisonReg{};
  } else if constexpr (Hi >= count) {
    static_assert(Hi < count, "asmevo: register index out of range for the target");
    return PoisonReg{};
  } else if constexpr (Hi - Lo + 1 > 32) {
    static_assert(Hi - Lo + 1 <= 32, "asmevo: register range wider than 32 dwords");
    return PoisonReg{};
  } else {
    return RegT<F, Lo, Hi - Lo + 1>{};
  }
}

/// What the builder knows about an argument at compile time.
struct ArgShape {
  enum class K : std::uint8_t {
    invalid,
    reg,       ///< RegT: file, first register and width known
    reg_rt,    ///< Reg
    imm,       ///< ImmT: value known
    imm_rt,    ///< an integer
    real_rt,   ///< a float or double
    label_rt,  ///< Label
    wait,      ///< WaitT: value known (`value` = the encoded simm16)
    wait_rt,   ///< Waitcnt
    off,       ///< OffT
    mod,       ///< ModT: name known
    poison,    ///< PoisonReg
  };
  K k = K::invalid;
  RegFile file = RegFile::vgpr;
  std::uint16_t lo = 0;
  std::uint16_t dwords = 0;
  std::int64_t value = 0;
  std::string_view name;

  [[nodiscard]] constexpr bool runtime() const noexcept {
    return k == K::reg_rt || k == K::imm_rt || k == K::real_rt || k == K::label_rt || k == K::wait_rt;
  }
  [[nodiscard]] constexpr bool positional() const noexcept { return k != K::mod; }
  [[nodiscard]] constexpr bool maybe_vcc() const noexcept {
    return (k == K::reg && file == RegFile::special && lo == special::vcc_lo && dwords == 2) || k == K::reg_rt ||
           k == K::poison;
  }
};

template <class T>
struct is_regt : std::false_type {};
template <RegFile F, unsigned Lo, unsigned D>
struct is_regt<RegT<F, Lo, D>> : std::true_type {};
template <class T>
struct is_immt : std::false_type {};
template <std::int64_t V>
struct is_immt<ImmT<V>> : std::true_type {};
template <class T>
struct is_waitt : std::false_type {};
template <Counter C, unsigned N>
struct is_waitt<WaitT<C, N>> : std::true_type {
  /// The wait, computed from the template arguments only: WaitT<vm, 64> has already failed its own
  /// static_assert, and touching its members would add a second error.
  [[nodiscard]] static constexpr Waitcnt wait(Target t) noexcept {
    Waitcnt w = Waitcnt::none(t);
    w.set(C, N);
    return w;
  }
};
template <class T>
struct is_modt : std::false_type {};
template <Name N>
struct is_modt<ModT<N>> : std::true_type {};

template <Target T, class A>
[[nodiscard]] consteval ArgShape shape_of() {
  using K = ArgShape::K;
  ArgShape s;
  if constexpr (is_regt<A>::value) {
    s.k = K::reg;
    s.file = A::file;
    s.lo = static_cast<std::uint16_t>(A::lo);
    s.dwords = static_cast<std::uint16_t>(A::dwords);
  } else if constexpr (std::is_same_v<A, Reg>) {
    s.k = K::reg_rt;
  } else if constexpr (is_immt<A>::value) {
    s.k = K::imm;
    s.value = A::value;
  } else if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) {
    s.k = K::imm_rt;
  } else if constexpr (std::is_floating_point_v<A>) {
    s.k = K::real_rt;
  } else if constexpr (std::is_same_v<A, Label>) {
    s.k = K::label_rt;
  } else if constexpr (is_waitt<A>::value) {
    s.k = K::wait;
    s.value = encode_waitcnt(T, is_waitt<A>::wait(T));
  } else if constexpr (std::is_same_v<A, Waitcnt>) {
    s.k = K::wait_rt;
  } else if constexpr (std::is_same_v<A, OffT>) {
    s.k = K::off;
  } else if constexpr (is_modt<A>::value) {
    s.k = K::mod;
    s.name = A::name.view();
  } else if constexpr (std::is_same_v<A, PoisonReg>) {
    s.k = K::poison;
  }
  return s;
}

template <Target T, class... A>
inline constexpr std::array<ArgShape, sizeof...(A)> shapes_v{shape_of<T, A>()...};

/// The outcome of checking arguments against one form (or the best failure over all forms).
struct Check {
  Rule rule = Rule::ok;
  int score = -2;        ///< how far the match got: positional arguments accepted (-1 = wrong count)
  int arg = -1;          ///< 0-based argument index of the offending argument, or -1
  int op = -1;           ///< operand index of the slot in the form, or -1
  int form = -1;         ///< index in isa::forms(t) of the form this outcome is about (set by choose)
  bool maybe = false;    ///< passes so far, but a run-time value decides
};

[[nodiscard]] constexpr bool valu_format(isa::Format f) noexcept {
  using F = isa::Format;
  return f == F::VOP1 || f == F::VOP2 || f == F::VOPC || f == F::VOP3 || f == F::VOP3P;
}

/// One argument against one positional element, with what is known at compile time.
[[nodiscard]] constexpr Check slot_check(Target t, const isa::FormInfo& f, const PosElem& e, const ArgShape& a) {
  using K = ArgShape::K;
  using IK = isa::Kind;
  Check c;
  auto bad = [&](Rule r) { c.rule = r; return c; };
  if (a.k == K::poison) return c;
  if (e.word) {
    if (e.text == "off") return a.k == K::off ? c : bad(Rule::need_off);
    if (e.text == "vcc") {
      if (a.k == K::reg_rt) { c.maybe = true; return c; }
      return a.maybe_vcc() ? c : bad(Rule::need_vcc);
    }
    return bad(Rule::need_off);  // no other positional words on gfx9 (checked by tests/ir/builder_test.cpp)
  }
  const isa::OperandInfo& op = isa::operands(f)[e.op];
  c.op = e.op;
  if (op.kind == IK::waitcnt) {
    if (a.k == K::wait || a.k == K::wait_rt || a.k == K::imm_rt) { c.maybe = a.k != K::wait; return c; }
    if (a.k == K::imm) return a.value >= -32768 && a.value <= 0xffff ? c : bad(Rule::constant_too_wide);
    return bad(Rule::need_waitcnt);
  }
  if (a.k == K::wait || a.k == K::wait_rt) return bad(Rule::need_waitcnt);
  if (a.k == K::off) return bad(op.kind == IK::reg || op.kind == IK::src ? Rule::need_register : Rule::need_integer);
  switch (op.kind) {
    case IK::reg:
      if (a.k == K::reg) return bad(reg_rule(t, a.file, a.lo, a.dwords, op));
      if (a.k == K::reg_rt) { c.maybe = true; return c; }
      return bad(Rule::need_register);
    case IK::src:
      if (a.k == K::reg) return bad(reg_rule(t, a.file, a.lo, a.dwords, op));
      if (a.k == K::imm) return bad(int_src_rule(f, op, a.value));
      if (!(op.regs & (isa::reg::inline_const | isa::reg::literal)) && a.k != K::reg_rt) return bad(Rule::no_constant);
      if (a.k == K::label_rt && !literal_ok(f, op)) return bad(Rule::no_literal);
      c.maybe = true;
      return c;
    case IK::imm: case IK::endpgm_imm: case IK::label: case IK::hwreg: case IK::sendmsg: case IK::gpr_idx:
      if (a.k == K::imm) return c;
      if (a.k == K::imm_rt || a.k == K::label_rt) { c.maybe = true; return c; }
      return bad(Rule::need_integer);
    case IK::kimm:
      if (a.k == K::imm) return c;
      if (a.k == K::imm_rt || a.k == K::real_rt || a.k == K::label_rt) { c.maybe = true; return c; }
      return bad(Rule::need_integer);
    default:
      return bad(Rule::need_integer);
  }
}

/// Whether a named modifier fits an operand slot (as fill_named in parser.hpp reads `name` / `name:value`).
[[nodiscard]] constexpr bool mod_fits(Target t, const isa::FormInfo& f, const isa::OperandInfo& op,
                                      std::string_view name) noexcept {
  using IK = isa::Kind;
  switch (op.kind) {
    case IK::named_int: case IK::flag: return op.prefix == name;
    case IK::blgp: return name == "blgp";
    case IK::cpol: case IK::cpol_glc: case IK::cpol_noglc:
      return cpol_bit_ce(t, name, f.format == isa::Format::SMEM) != 0;
    default: return false;
  }
}

/// Arguments against form `form` of isa::forms(t), with what is known at compile time. Mirrors match_form (run time).
[[nodiscard]] constexpr Check form_check(Target t, std::size_t form, std::span<const ArgShape> args) {
  const isa::FormInfo& f = isa::forms(t)[form];
  const std::uint8_t traits = isa::form_traits(t, form);
  const PosTemplate pt = positional_template(f);
  const auto ops = isa::operands(f);
  std::array<int, 16> pos{};
  int n = 0;
  for (std::size_t i = 0; i < args.size() && n < 16; ++i)
    if (args[i].positional()) pos[static_cast<std::size_t>(n++)] = static_cast<int>(i);
  int start = 0, end = n;
  if (pt.vcc_first && n == pt.count + 1 && args[static_cast<std::size_t>(pos[0])].maybe_vcc()) start = 1;
  if (pt.vcc_last && end - start == pt.count + 1 && args[static_cast<std::size_t>(pos[static_cast<std::size_t>(end - 1)])].maybe_vcc())
    --end;
  Check c;
  c.score = -1;
  const int m = end - start;
  if (m < pt.required || m > pt.count) { c.rule = Rule::operand_count; return c; }
  bool maybe = start == 1 && args[static_cast<std::size_t>(pos[0])].k == ArgShape::K::reg_rt;
  for (int j = 0; j < m; ++j) {
    const int ai = pos[static_cast<std::size_t>(start + j)];
    Check s = slot_check(t, f, pt.elems[static_cast<std::size_t>(j)], args[static_cast<std::size_t>(ai)]);
    if (s.rule != Rule::ok) { s.score = j; s.arg = ai; return s; }
    maybe = maybe || s.maybe;
  }
  c.score = m;
  // Named modifiers: each needs a slot; a returning atomic needs glc/sc0, a non-returning one must not have it.
  int cpol = 0;
  for (std::size_t q = 0; q < pt.keyword_count; ++q) {
    bool given = false;
    for (const auto& a : args) given = given || (!a.positional() && a.name == pt.keywords[q]);
    if (!given) { c.rule = Rule::need_keyword; return c; }
  }
  // A named integer the record does not mark optional must be given (SMEM `_SGPR_IMM` needs offset(...)).
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].kind != isa::Kind::named_int || ops[k].is_optional() || !ops[k].is_printed()) continue;
    bool given = false;
    for (const auto& a : args) given = given || (!a.positional() && a.name == ops[k].prefix);
    if (!given) { c.rule = Rule::need_keyword; c.op = static_cast<int>(k); return c; }
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].positional()) continue;
    bool found = false;
    for (std::size_t q = 0; q < pt.keyword_count; ++q) found = found || args[i].name == pt.keywords[q];
    for (std::size_t k = 0; k < ops.size() && !found; ++k)
      found = is_named_kind(ops[k].kind) && ops[k].is_printed() && mod_fits(t, f, ops[k], args[i].name);
    if (!found) { c.rule = Rule::no_modifier; c.arg = static_cast<int>(i); return c; }
    cpol |= cpol_bit_ce(t, args[i].name, f.format == isa::Format::SMEM);
  }
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].kind == isa::Kind::cpol_glc && !(cpol & 1)) { c.rule = Rule::glc_required; c.op = static_cast<int>(k); return c; }
    if (ops[k].kind == isa::Kind::cpol_noglc && (cpol & 1)) { c.rule = Rule::glc_forbidden; c.op = static_cast<int>(k); return c; }
    // Returning atomics need glc/sc0 even where the table's class is plain cpol (parser.hpp validate_rules).
    if (ops[k].kind == isa::Kind::cpol && f.has(isa::prop::atomic_ret) && f.format != isa::Format::SMEM &&
        f.format != isa::Format::MIMG && !(cpol & 1)) {
      c.rule = Rule::glc_required;
      c.op = static_cast<int>(k);
      return c;
    }
  }
  // Constant bus: distinct scalar registers and literals read by a VALU instruction (as violates_constant_bus,
  // counting only what is known now; run-time values are counted again by the run-time check).
  if (valu_format(f.format) && !(traits & isa::ftrait::const_bus_exempt)) {
    std::array<std::pair<int, int>, 16> seen{};
    std::array<std::int64_t, 16> lits{};
    int nregs = 0, nlits = 0;
    auto add_reg = [&](int file, int idx) {
      for (int q = 0; q < nregs; ++q)
        if (seen[static_cast<std::size_t>(q)].first == file && seen[static_cast<std::size_t>(q)].second == idx) return;
      if (nregs < 16) seen[static_cast<std::size_t>(nregs++)] = {file, idx};
    };
    if (f.implicit_uses & isa::reg::vcc) add_reg(static_cast<int>(RegFile::special), special::vcc_lo);
    for (int j = 0; j < m; ++j) {
      const PosElem& e = pt.elems[static_cast<std::size_t>(j)];
      if (e.word) continue;
      const auto& op = ops[e.op];
      const ArgShape& a = args[static_cast<std::size_t>(pos[static_cast<std::size_t>(start + j)])];
      if (op.role != isa::Role::use) continue;
      if (op.kind != isa::Kind::src && op.kind != isa::Kind::reg && op.kind != isa::Kind::kimm) continue;
      if (a.k == ArgShape::K::reg) {
        if (a.file == RegFile::sgpr || a.file == RegFile::ttmp || (a.file == RegFile::special && a.lo < 128))
          add_reg(static_cast<int>(a.file), a.lo);
      } else if (a.k == ArgShape::K::imm) {
        const std::int64_t v32 = value_bits(op.type) == 32 && a.value >= 0x80000000ll && a.value <= 0xffffffffll
                                     ? a.value - 0x100000000ll
                                     : a.value;
        const bool inl = op.kind != isa::Kind::kimm && (is_inline_int(v32) || is_inline_bits(a.value, value_bits(op.type)));
        if (inl) continue;
        bool dup = false;
        for (int q = 0; q < nlits; ++q) dup = dup || lits[static_cast<std::size_t>(q)] == a.value;
        if (!dup && nlits < 16) lits[static_cast<std::size_t>(nlits++)] = a.value;
      }
    }
    if (nregs + nlits > 1) { c.rule = Rule::constant_bus; return c; }
  }
  // MFMA: with a destination wider than 4 dwords, src2 equals it or does not overlap it (parser.hpp
  // validate_rules, after LLVM's AMDGPUAsmParser::validateMFMA).
  if (f.has(isa::prop::mfma)) {
    const ArgShape* d = nullptr;
    const ArgShape* s2 = nullptr;
    for (int j = 0; j < m; ++j) {
      const PosElem& e = pt.elems[static_cast<std::size_t>(j)];
      if (e.word) continue;
      const ArgShape& a = args[static_cast<std::size_t>(pos[static_cast<std::size_t>(start + j)])];
      if (ops[e.op].name == "vdst") d = &a;
      if (ops[e.op].name == "src2") s2 = &a;
    }
    // The gfx950 f8f6f4 MFMAs (A and B formats chosen by cbsz/blgp) are exempt, as in llvm-mc-22.
    const bool f8f6f4 = (traits & isa::ftrait::mfma_f8f6f4) != 0;
    if (!f8f6f4 && d && s2 && d->k == ArgShape::K::reg && s2->k == ArgShape::K::reg && d->dwords > 4 && d->file == s2->file &&
        !(d->lo == s2->lo && d->dwords == s2->dwords) && d->lo < s2->lo + s2->dwords && s2->lo < d->lo + d->dwords) {
      c.rule = Rule::mfma_overlap;
      return c;
    }
    // gfx950 f8f6f4: cbsz (src0) and blgp (src1) select fp8/bf8 (8 dwords), fp6/bf6 (6) or fp4 (4). Without
    // the modifier the format is fp8 and the tuple must be 8 dwords; a given (run-time) value is checked then.
    if (f8f6f4) {
      bool cbsz = false, blgp = false;
      for (const auto& a : args) {
        cbsz = cbsz || (!a.positional() && a.name == "cbsz");
        blgp = blgp || (!a.positional() && a.name == "blgp");
      }
      for (int j = 0; j < m; ++j) {
        const PosElem& e = pt.elems[static_cast<std::size_t>(j)];
        if (e.word) continue;
        const int ai = pos[static_cast<std::size_t>(start + j)];
        const ArgShape& a = args[static_cast<std::size_t>(ai)];
        const bool fixed = (ops[e.op].name == "src0" && !cbsz) || (ops[e.op].name == "src1" && !blgp);
        if (fixed && a.k == ArgShape::K::reg && a.dwords != 8) {
          c.rule = Rule::f8f6f4_width;
          c.arg = ai;
          c.op = e.op;
          return c;
        }
      }
    }
  }
  c.maybe = maybe;
  return c;
}

/// The forms a call may use: the first that fits (all arguments compile-time), or the candidates a run-time
/// check decides among, or the best failure (furthest match; the first in preference order on a tie).
struct Choice {
  Check failure;             ///< rule != ok when no form fits
  std::uint16_t first = 0;   ///< index of the mnemonic's first form in isa::forms(t)
  std::uint64_t mask = 0;    ///< candidate forms, bit k = first + k
  int chosen = -1;           ///< the form (all arguments compile-time)
  bool found = true;         ///< the mnemonic exists on the target
};

[[nodiscard]] constexpr Choice choose(Target t, std::string_view mnemonic, isa::Variant forced,
                                      std::span<const ArgShape> args) {
  Choice ch;
  const auto fs = isa::find_mnemonic(t, mnemonic);
  if (fs.empty()) { ch.found = false; ch.failure.rule = Rule::operand_count; return ch; }
  ch.first = static_cast<std::uint16_t>(&fs[0] - isa::forms(t).data());
  bool runtime = false;
  for (const auto& a : args) runtime = runtime || a.runtime();
  for (std::size_t k = 0; k < fs.size() && k < 64; ++k) {
    const auto& f = fs[k];
    if (!f.has(isa::prop::asm_matchable)) continue;
    if (forced != isa::Variant::none && f.variant != forced) continue;
    Check c = form_check(t, ch.first + k, args);
    c.form = static_cast<int>(ch.first + k);
    if (c.rule == Rule::ok) {
      ch.mask |= std::uint64_t{1} << k;
      if (!runtime && ch.chosen < 0) ch.chosen = static_cast<int>(ch.first + k);
    } else if (c.score > ch.failure.score) {
      ch.failure = c;
    }
  }
  if (ch.mask) ch.failure = Check{};
  else if (ch.failure.rule == Rule::ok) ch.failure.rule = Rule::operand_count;  // no form of that variant
  return ch;
}

/// One compile-time message per rule (STYLE.md "check early, report once"): exactly one of these fires. The
/// template arguments name the argument (1-based) and the operand slot; the caller's instantiation context
/// names the instruction (the builder function, e.g. `Builder::global_load_dwordx4`).
template <Rule R, int Argument, Name Operand>
constexpr void operand_error() {
  static_assert(R != Rule::operand_count, "asmevo: no form of this instruction takes this number of operands");
  static_assert(R != Rule::reg_file, "asmevo: no form of this instruction accepts a register of this file here");
  static_assert(R != Rule::reg_width, "asmevo: wrong register width (dwords) for this operand");
  static_assert(R != Rule::misaligned,
                "asmevo: misaligned register tuple (gfx90a/gfx942/gfx950 need an even first register for 64-bit "
                "and wider VGPR/AGPR tuples; SGPR tuples align to 2 or 4)");
  static_assert(R != Rule::out_of_range, "asmevo: register index out of range for the target");
  static_assert(R != Rule::need_register, "asmevo: this operand must be a register");
  static_assert(R != Rule::no_constant, "asmevo: this operand does not accept constants");
  static_assert(R != Rule::no_literal,
                "asmevo: a literal constant is not allowed here (not an inline constant, and gfx9 VOP3 has no literal)");
  static_assert(R != Rule::constant_too_wide, "asmevo: constant does not fit the operand");
  static_assert(R != Rule::need_off, "asmevo: this form needs the word `off` here (pass isa::off)");
  static_assert(R != Rule::need_vcc, "asmevo: this form needs `vcc` here (pass isa::vcc)");
  static_assert(R != Rule::need_integer, "asmevo: this operand must be an integer");
  static_assert(R != Rule::need_waitcnt, "asmevo: a wait count (vmcnt<N>, ...) is only accepted by s_waitcnt");
  static_assert(R != Rule::need_keyword,
                "asmevo: no form of this instruction matches without a keyword (pass offen, idxen, lds or gds)");
  static_assert(R != Rule::no_modifier, "asmevo: no form of this instruction takes this named modifier");
  static_assert(R != Rule::glc_required, "asmevo: a returning atomic needs glc (sc0 on gfx940+)");
  static_assert(R != Rule::glc_forbidden, "asmevo: this form does not return: no glc (sc0 on gfx940+)");
  static_assert(R != Rule::mfma_overlap,
                "asmevo: MFMA src2 must be the same registers as vdst or not overlap them (vdst wider than 4 dwords)");
  static_assert(R != Rule::f8f6f4_width,
                "asmevo: wrong register tuple size for the cbsz/blgp format (fp8/bf8: 8 dwords, fp6/bf6: 6, fp4: 4)");
  static_assert(R != Rule::constant_bus,
                "asmevo: violates the constant bus limit (gfx9 VALU reads at most one SGPR or literal)");
}

/// Operand-slot name for the compile-time message (empty for a word such as `off`).
template <Target T>
[[nodiscard]] consteval std::string_view slot_name(const Choice& c) {
  if (c.failure.op < 0 || c.failure.form < 0 || !c.found) return {};
  const auto& f = isa::forms(T)[static_cast<std::size_t>(c.failure.form)];
  const auto ops = isa::operands(f);
  return static_cast<std::size_t>(c.failure.op) < ops.size() ? ops[static_cast<std::size_t>(c.failure.op)].name
                                                              : std::string_view{};
}

// ------------------------------------------------------------------ run time -----------------------------------

/// An argument's run-time value. Code that builds an op chosen at run time (build_inst in asmevo/ir/op_builder.hpp)
/// makes its arguments with the named constructors.
struct RtArg {
  ArgShape::K k = ArgShape::K::invalid;
  Reg reg{};
  std::int64_t value = 0;
  double real = 0;
  std::string_view text;  ///< Label text, or a modifier's name
  Waitcnt wait{};

  /// A register (Reg).
  [[nodiscard]] static RtArg of(Reg r) noexcept {
    RtArg a;
    a.k = ArgShape::K::reg_rt;
    a.reg = r;
    return a;
  }
  /// An integer (an inline constant or a literal, as the slot takes it).
  [[nodiscard]] static RtArg of(std::int64_t v) noexcept {
    RtArg a;
    a.k = ArgShape::K::imm_rt;
    a.value = v;
    return a;
  }
  /// The word `off` (OffT).
  [[nodiscard]] static RtArg off() noexcept {
    RtArg a;
    a.k = ArgShape::K::off;
    return a;
  }
  /// A named modifier (ModT): `modifier("offset", 16)`, `modifier("sc0")`. `name` must outlive the argument.
  [[nodiscard]] static RtArg modifier(std::string_view name, std::int64_t v = 1) noexcept {
    RtArg a;
    a.k = ArgShape::K::mod;
    a.text = name;
    a.value = v;
    return a;
  }
};

template <Target T, class A>
[[nodiscard]] RtArg to_rt(const A& a) {
  constexpr ArgShape s = shape_of<T, A>();
  (void)a;  // unused for the types whose value is in the type (OffT, WaitT)
  RtArg r;
  r.k = s.k;
  if constexpr (is_regt<A>::value || std::is_same_v<A, Reg>) r.reg = Reg(a);
  else if constexpr (is_immt<A>::value) r.value = A::value;
  else if constexpr (std::is_integral_v<A>) r.value = static_cast<std::int64_t>(a);
  else if constexpr (std::is_floating_point_v<A>) r.real = static_cast<double>(a);
  else if constexpr (std::is_same_v<A, Label>) r.text = a.text;
  else if constexpr (is_waitt<A>::value) r.wait = is_waitt<A>::wait(T);
  else if constexpr (std::is_same_v<A, Waitcnt>) r.wait = a;
  else if constexpr (is_modt<A>::value) { r.text = A::name.view(); r.value = a.value; }
  return r;
}

[[nodiscard]] inline std::string arg_text(Target t, const RtArg& a) {
  using K = ArgShape::K;
  switch (a.k) {
    case K::reg: case K::reg_rt: return to_string(a.reg);
    case K::imm: case K::imm_rt: return std::to_string(a.value);
    case K::real_rt: return std::to_string(a.real);
    case K::label_rt: return std::string(a.text);
    case K::wait: case K::wait_rt: return to_string(t, a.wait);
    case K::off: return "off";
    case K::mod: return a.value == 1 ? std::string(a.text) : std::string(a.text) + ":" + std::to_string(a.value);
    default: return "?";
  }
}

/// What an operand slot accepts, in the user's terms: "a 4-dword VGPR or AGPR range", "a VGPR, SGPR or constant".
[[nodiscard]] inline std::string describe_slot(const isa::FormInfo& f, const isa::OperandInfo& op) {
  using namespace isa::reg;
  std::string s;
  auto add = [&](const char* n) { s += s.empty() ? n : std::string(", ") + n; };
  if (op.regs & vgpr) add("VGPR");
  if (op.regs & agpr) add("AGPR");
  if (op.regs & sgpr) add("SGPR");
  if (op.regs & ttmp) add("TTMP");
  if (op.regs & vcc) add("vcc");
  if (op.regs & exec) add("exec");
  if (op.regs & m0) add("m0");
  if (op.regs & (inline_const | literal)) add(literal_ok(f, op) ? "constant" : "inline constant");
  if (const auto c = s.rfind(", "); c != std::string::npos) s.replace(c, 2, " or ");
  const unsigned d = op.dwords();
  if (d > 1) return "a " + std::to_string(d) + "-dword " + s + " range";
  return "a " + (s.empty() ? std::string("value") : s);
}

struct RtAttempt {
  bool ok = false;
  int score = -1;
  std::string why;
  int arg = -1;
  int op = -1;
  Inst inst;
};

/// Matches run-time arguments against one form; fills the instruction. The register and constant rules are
/// parser.hpp's own (fill_value, violates_constant_bus), applied to the argument as if it had been written.
[[nodiscard]] inline RtAttempt match_form(Target t, std::size_t form_index, std::span<const RtArg> args) {
  using K = ArgShape::K;
  RtAttempt at;
  const isa::FormInfo& f = isa::forms(t)[form_index];
  const auto ops = isa::operands(f);
  const PosTemplate pt = positional_template(f);
  at.inst.target = t;
  at.inst.form = static_cast<std::uint16_t>(form_index);
  at.inst.ops.assign(ops.size(), Operand{});
  std::vector<int> pos;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].k != K::mod) pos.push_back(static_cast<int>(i));
  const Reg vcc_reg{RegFile::special, special::vcc_lo, 2};
  auto is_vcc = [&](int i) {
    const auto& a = args[static_cast<std::size_t>(i)];
    return (a.k == K::reg || a.k == K::reg_rt) && a.reg == vcc_reg;
  };
  std::size_t start = 0, end = pos.size();
  if (pt.vcc_first && pos.size() == pt.count + 1u && is_vcc(pos[0])) start = 1;
  if (pt.vcc_last && end - start == pt.count + 1u && is_vcc(pos[end - 1])) --end;
  const std::size_t m = end - start;
  if (m < pt.required || m > pt.count) {
    at.why = "wrong number of operands: this form takes " +
             (pt.required == pt.count ? std::to_string(pt.count)
                                      : std::to_string(pt.required) + ".." + std::to_string(pt.count)) +
             ", got " + std::to_string(m);
    return at;
  }
  at.score = 0;
  for (std::size_t j = 0; j < m; ++j) {
    const int ai = pos[start + j];
    const RtArg& a = args[static_cast<std::size_t>(ai)];
    const PosElem& e = pt.elems[j];
    at.arg = ai;
    if (e.word) {
      const bool fits = e.text == "off" ? a.k == K::off : e.text == "vcc" && is_vcc(ai);
      if (!fits) { at.why = std::string(rule_text(e.text == "vcc" ? Rule::need_vcc : Rule::need_off)); return at; }
      at.score = static_cast<int>(j) + 1;
      continue;
    }
    const isa::OperandInfo& op = ops[e.op];
    at.op = e.op;
    Operand& out = at.inst.ops[e.op];
    if (op.kind == isa::Kind::waitcnt) {
      if (a.k == K::wait || a.k == K::wait_rt) {
        for (Counter cn : {Counter::vm, Counter::exp, Counter::lgkm})
          if (a.wait.get(cn) > max_count(t, cn)) {
            at.why = "wait count out of range on " + std::string(to_string(t)) + " (vmcnt 0.." +
                     std::to_string(max_count(t, Counter::vm)) + ", expcnt 0.." + std::to_string(max_count(t, Counter::exp)) +
                     ", lgkmcnt 0.." + std::to_string(max_count(t, Counter::lgkm)) + ")";
            return at;
          }
        out = Operand::make_imm(encode_waitcnt(t, a.wait));
      } else if (a.k == K::imm || a.k == K::imm_rt) {
        if (a.value < -32768 || a.value > 0xffff) { at.why = "s_waitcnt immediate does not fit 16 bits"; return at; }
        out = Operand::make_imm(a.value & 0xffff);
      } else {
        at.why = "expected a wait count (vmcnt<N>, a Waitcnt) or a 16-bit integer";
        return at;
      }
      at.score = static_cast<int>(j) + 1;
      continue;
    }
    syntax::Atom atom;
    switch (a.k) {
      case K::reg: case K::reg_rt: atom.kind = syntax::Atom::Kind::reg; atom.reg = a.reg; break;
      case K::imm: case K::imm_rt: atom.kind = syntax::Atom::Kind::integer; atom.value = a.value; break;
      case K::real_rt: atom.kind = syntax::Atom::Kind::real; atom.real = a.real; break;
      case K::label_rt: atom.kind = syntax::Atom::Kind::expr; atom.text = std::string(a.text); break;
      case K::wait: case K::wait_rt: at.why = std::string(rule_text(Rule::need_waitcnt)); return at;
      default: at.why = "expected " + describe_slot(f, op); return at;
    }
    atom.text = atom.text.empty() ? arg_text(t, a) : atom.text;
    if (auto why = fill_value(t, f, op, atom, out); !why.empty()) { at.why = why; return at; }
    at.score = static_cast<int>(j) + 1;
  }
  at.arg = -1;
  at.op = -1;
  // Named modifiers.
  std::int64_t cpol = 0;
  for (std::size_t q = 0; q < pt.keyword_count; ++q) {
    bool given = false;
    for (const auto& a : args) given = given || (a.k == K::mod && a.text == pt.keywords[q]);
    if (!given) { at.why = "this form needs '" + std::string(pt.keywords[q]) + "'"; return at; }
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].k != K::mod) continue;
    bool done = false;
    for (std::size_t q = 0; q < pt.keyword_count; ++q) done = done || args[i].text == pt.keywords[q];
    for (std::size_t k = 0; k < ops.size() && !done; ++k) {
      const auto& op = ops[k];
      if (!is_named_kind(op.kind) || !op.is_printed() || !mod_fits(t, f, op, args[i].text)) continue;
      done = true;
      if (op.kind == isa::Kind::cpol || op.kind == isa::Kind::cpol_glc || op.kind == isa::Kind::cpol_noglc) {
        cpol |= cpol_bit_ce(t, args[i].text, f.format == isa::Format::SMEM);
        at.inst.ops[k] = Operand::make_imm(cpol);
      } else {
        at.inst.ops[k] = Operand::make_imm(op.kind == isa::Kind::flag ? 1 : args[i].value);
      }
    }
    if (!done) { at.arg = static_cast<int>(i); at.why = std::string(rule_text(Rule::no_modifier)); return at; }
  }
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].kind == isa::Kind::cpol_glc && !(cpol & 1)) { at.why = std::string(rule_text(Rule::glc_required)); return at; }
    if (ops[k].kind == isa::Kind::cpol_noglc && (cpol & 1)) { at.why = std::string(rule_text(Rule::glc_forbidden)); return at; }
  }
  // Unprinted operands tied to a printed one carry its value (vdst_in = vdst), as the parser does.
  for (std::size_t k = 0; k < ops.size(); ++k)
    if (!ops[k].is_printed() && ops[k].tied >= 0 && static_cast<std::size_t>(ops[k].tied) < ops.size())
      at.inst.ops[k] = at.inst.ops[static_cast<std::size_t>(ops[k].tied)];
  if (violates_constant_bus(f, at.inst)) { at.why = std::string(rule_text(Rule::constant_bus)); return at; }
  // The rules LLVM checks in C++ rather than in its records (offset ranges, MFMA src2 overlap ...): the parser's.
  if (auto why = validate_rules(t, f, at.inst); !why.empty()) { at.why = std::move(why); return at; }
  at.ok = true;
  return at;
}

/// Tries the candidate forms in preference order; the error names the instruction, the operand and the rule.
[[nodiscard]] inline Expected<Inst> match_candidates(Target t, std::string_view mnemonic, std::uint16_t first,
                                                     std::uint64_t mask, std::span<const RtArg> args) {
  RtAttempt best;
  best.score = -2;
  for (std::size_t k = 0; k < 64; ++k) {
    if (!(mask >> k & 1)) continue;
    auto at = match_form(t, first + k, args);
    if (at.ok) return std::move(at.inst);
    if (at.score > best.score) best = std::move(at);
  }
  std::string call(mnemonic);
  for (std::size_t i = 0; i < args.size(); ++i) call += (i ? ", " : " ") + arg_text(t, args[i]);
  std::string msg(mnemonic);
  std::string hint;
  if (best.arg >= 0) {
    msg += ": operand " + std::to_string(best.arg + 1);
    if (best.op >= 0) {
      const auto& bf = isa::forms(t)[best.inst.form];
      const auto& op = isa::operands(bf)[static_cast<std::size_t>(best.op)];
      msg += " (" + std::string(op.name) + ")";
      hint = std::string(op.name) + " takes " + describe_slot(bf, op) + " in " + std::string(bf.name);
    }
    msg += ": " + best.why + "; got " + arg_text(t, args[static_cast<std::size_t>(best.arg)]);
  } else {
    msg += ": " + best.why;
  }
  return fail(DiagCode::invalid_operand, std::move(msg), {}, std::move(call), std::move(hint));
}

/// The value a failed compile-time check returns after its static_assert (the program does not compile; this
/// only gives the function a well-formed return).
[[nodiscard]] inline Unexpected unknown_form(Target t, std::string_view mnemonic) {
  return fail(DiagCode::unknown_mnemonic, "'" + std::string(mnemonic) + "' has no such form on " + std::string(to_string(t)));
}

}  // namespace detail

/// The argument types a builder takes: registers (RegT, Reg), constants (ImmT, integers, floating point, Label),
/// waits (WaitT, Waitcnt), `off`, and named modifiers (ModT).
template <class A, Target T = Target::gfx942>
concept builder_arg = detail::shape_of<T, std::remove_cvref_t<A>>().k != detail::ArgShape::K::invalid;

// ---------------------------------------------------------------------------------------------------------------
// Sinks: where a builder's instructions go
// ---------------------------------------------------------------------------------------------------------------

/// Where a builder puts each instruction it builds, when it does not only hand it back: ProgramSink appends to a new
/// Program; passes::RewriterSink (asmevo/passes/builder.hpp) inserts into an existing one through a Rewriter, so
/// that the edit is logged and can be undone. A builder made without a sink only returns its instructions.
class InstSink {
 public:
  virtual ~InstSink() = default;
  /// The target of the program the sink inserts into; a builder of another target refuses it.
  [[nodiscard]] virtual std::optional<Target> program_target() const = 0;
  /// Inserts `in` and returns the id it was given; an error puts the builder in its failed state.
  [[nodiscard]] virtual Expected<InstId> take(Inst in) = 0;

 protected:
  InstSink() = default;
  InstSink(const InstSink&) = default;
  InstSink& operator=(const InstSink&) = default;
};

/// Appends each instruction, with a fresh id, to a Program: for building a new program from scratch. An edit of an
/// existing program goes through a Rewriter instead (passes::RewriterSink), which logs it and can undo it.
class ProgramSink final : public InstSink {
 public:
  explicit ProgramSink(Program& p) noexcept : p_(&p) {}

  [[nodiscard]] std::optional<Target> program_target() const override { return p_->target; }
  [[nodiscard]] Expected<InstId> take(Inst in) override {
    in.id = p_->fresh_id();
    Item it;
    it.kind = Item::Kind::inst;
    it.inst = std::move(in);
    p_->items.push_back(std::move(it));
    return p_->items.back().inst.id;
  }

 private:
  Program* p_;
};

/// The target-independent part of a target's builders (asmevo::gfx942::Builder ...): the sink, the failed state,
/// and emit(), which every generated mnemonic function forwards to. The generated classes are not templates (one
/// class per target, whatever the sink), which keeps a translation unit that includes them cheap.
///
/// A call returns the instruction it built, as a value: with its new id when a sink inserted it (`b.s_nop(imm<0>).id`),
/// with id 0 from a builder made without a sink (for Rewriter::insert_before / insert_after / replace). A call whose
/// arguments are all compile-time (RegT, ImmT, WaitT, off, modifiers) picks its form in a constant expression and
/// returns an Inst; a mistake is one static_assert. A call with any run-time value (Reg, an integer, Waitcnt ...)
/// checks what it can at compile time and returns Expected<Inst>.
///
/// Failed state: if the sink's program is for another target, or the sink refuses an instruction (an insertion
/// anchor that is not, or no longer, in the program), or a compile-time call breaks a rule that depends on run-time
/// values (a modifier's value such as offset(5000), or a rule LLVM checks in C++), the builder records a Diag
/// (error()) and builds nothing more: compile-time calls return failed_inst() (form no_form, id no_inst) and
/// run-time calls return that Diag. Check ok() once after a sequence of compile-time calls.
template <Target T>
class BuilderCore {
 public:
  /// Returns each instruction as a value only.
  BuilderCore() = default;
  /// Appends each instruction to `p`, a new program of target T.
  explicit BuilderCore(Program& p) : own_(std::in_place, p) { check_target(); }
  /// Hands each instruction to `s` (passes::RewriterSink ...), which must outlive the builder.
  explicit BuilderCore(InstSink& s) : ext_(&s) { check_target(); }

  [[nodiscard]] static constexpr Target target() noexcept { return T; }
  [[nodiscard]] bool ok() const noexcept { return !err_.has_value(); }
  /// The Diag that put the builder in its failed state; nullptr if ok().
  [[nodiscard]] const Diag* error() const noexcept { return err_ ? &*err_ : nullptr; }
  /// What a compile-time-checked call returns in the failed state: no form of any target (the Rewriter refuses it
  /// rather than insert it) and no id.
  [[nodiscard]] static Inst failed_inst() {
    Inst in;
    in.target = T;
    in.form = no_form;
    in.id = no_inst;
    return in;
  }

 protected:
  /// The one generic helper behind every mnemonic function (`b.v_add_f32(...)` is `emit<"v_add_f32">(...)`).
  template <detail::Name M, isa::Variant V = isa::Variant::none, class... A>
  auto emit(const A&... a) {
    constexpr bool runtime = (detail::shape_of<T, A>().runtime() || ...);
    constexpr detail::Choice c = detail::choose(T, M.view(), V, std::span<const detail::ArgShape>(detail::shapes_v<T, A...>));
    using Result = std::conditional_t<runtime, Expected<Inst>, Inst>;
    if constexpr (c.failure.rule != detail::Rule::ok) {
      constexpr std::string_view op = detail::slot_name<T>(c);
      detail::operand_error<c.failure.rule, c.failure.arg + 1, detail::Name<op.size() + 1>(op)>();
      if constexpr (runtime) return Result(detail::unknown_form(T, M.view()));
      else return failed_inst();
    } else {
      if (err_) {
        if constexpr (runtime) return Result(unexpected(*err_));
        else return failed_inst();
      }
      const std::array<detail::RtArg, sizeof...(A)> rt{detail::to_rt<T>(a)...};
      const std::uint64_t mask = c.chosen >= 0 ? std::uint64_t{1} << (c.chosen - c.first) : c.mask;
      auto in = detail::match_candidates(T, M.view(), c.first, mask, rt);
      if constexpr (runtime) {
        if (!in) return Result(unexpected(std::move(in).error()));
        return Result(put(std::move(*in)));
      } else {
        // The compile-time choice settles registers, constants and the form. What it cannot see is checked
        // here: modifier values (offset:N ranges) and the rules LLVM checks in C++ (validate_rules, e.g. gds
        // on a target without it). A violation puts the builder in its failed state.
        if (!in) {
          err_ = std::move(in).error();
          return failed_inst();
        }
        auto v = put(std::move(*in));
        return v ? std::move(*v) : failed_inst();
      }
    }
  }

 private:
  [[nodiscard]] InstSink* sink() noexcept { return own_ ? static_cast<InstSink*>(&*own_) : ext_; }

  void check_target() {
    if (const auto t = sink()->program_target(); t && *t != T)
      err_ = make_diag(DiagCode::usage, "a " + std::string(to_string(T)) + " builder cannot insert into a " +
                                            std::string(to_string(*t)) + " program");
  }

  /// Hands `in` to the sink, if any; a refusal puts the builder in its failed state.
  Expected<Inst> put(Inst in) {
    InstSink* s = sink();
    if (!s) return in;
    Inst kept = in;
    auto id = s->take(std::move(in));
    if (!id) {
      err_ = id.error();
      return unexpected(std::move(id).error());
    }
    kept.id = *id;
    return kept;
  }

  std::optional<ProgramSink> own_;  // the sink made from a Program&
  InstSink* ext_ = nullptr;         // a sink given by the caller
  std::optional<Diag> err_;
};

}  // namespace asmevo
