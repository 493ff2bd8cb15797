// Path facts about the scalar registers: a forward dataflow analysis of the 32-bit SGPRs (known bits, and bounded
// differences between two registers) that proves which way an s_cbranch_scc0/scc1 cannot go, on one CFG edge or
// when a join block is entered from one particular predecessor, so that the waitcnt checker can drop paths that no
// execution takes.
//
// Why: hand-scheduled loops unrolled by two leave through one of two exits, and the epilogue picks its code by the
// parity of the trip count (aiter fmha_fwd: `s39 += 32; s_cmp_lt_i32 s39, s38; s_cbranch_scc0 exit` after each half,
// then at the exit `s40 = ((s38 + 31) >> 5) & 1; s_cmp_lt_i32 s40, 1; s_cbranch_scc0 odd`). A path-insensitive
// analysis merges both exits and sees "left after the second half, then took the even branch", which no execution
// does: after the exit test `s39 - 32 < s38 <= s39` and s39 is a known multiple of 32, so (s38 + 31) >> 5 == s39 >> 5.
//
// The domain, per program point (every fact holds in every execution that reaches the point):
//  - known bits of each SGPR s0..s101 (bits known 0, bits known 1); a pseudo register Z is the constant 0;
//  - facts `x - y in [lo, hi]` between two registers (or a register and Z) in one of three readings: the difference
//    of the signed values (in Z), of the unsigned values (in Z), or modulo 2^32. Adding a constant c to x shifts a
//    modular fact exactly; a signed/unsigned fact is shifted exactly when the ranges prove the add does not wrap,
//    and otherwise becomes the hull of the shifted and the wrapped (+-2^32) interval, clipped to the values a
//    difference of two 32-bit numbers can take;
//  - SCC: unknown, a constant, or "the compare <op> of two operands" (kept while neither operand is overwritten), so
//    that a branch on SCC refines the facts of the edge it takes.
// A fact `x - y in [lo, hi]` with hi - lo < 2^32 - 1 also gives known bits (x = y + lo + [0, hi - lo] mod 2^32,
// added bit by bit with a three-valued carry): that is how the parity above becomes known.
//
// Instruction semantics (AMD Instinct MI300 ISA (CDNA3) reference guide, "Scalar ALU Operations" and the SOP1/SOP2/
// SOPK/SOPC opcode tables; the emulator implements the same rows in emu/sem_salu.hpp):
//  - S_ADD_U32 / S_ADD_I32: D = S0 + S1 (mod 2^32); S_SUB_U32 / S_SUB_I32: D = S0 - S1; S_ADDK_I32: D = D +
//    signext(SIMM16); S_MOV_B32: D = S0; S_MOVK_I32: D = signext(SIMM16). The adds write SCC (carry/overflow),
//    which is not modelled (SCC becomes unknown).
//  - S_AND/OR/XOR/ANDN2/ORN2/NAND/NOR/XNOR_B32, S_NOT_B32, S_LSHL_B32, S_LSHR_B32 (D = S0 >> S1[4:0], zeros shifted
//    in), S_ASHR_I32: bitwise, with SCC = (D != 0).
//  - S_CMP_{EQ,LG,GT,GE,LT,LE}_{I32,U32}: SCC = S0 <op> S1, signed for _I32, unsigned for _U32; S_CMPK_*: the same
//    against SIMM16, sign-extended for _I32 and zero-extended for _U32.
//  - S_CSELECT_B32: D = SCC ? S0 : S1. S_CBRANCH_SCC0 / S_CBRANCH_SCC1: jump iff SCC == 0 / 1.
// Every other instruction makes the SGPRs it defines (explicit operands) unknown, and SCC unknown if the generated
// table lists SCC among its implicit definitions (LLVM Defs = [SCC]). A call (s_swappc/s_call), s_movreld (writes
// S[D + M0]), s_trap / s_rfe and the branch-stack forks/join (they write SGPR[CSP*4]) forget everything. An SGPR
// that a memory instruction (an SMEM load) writes is unknown from the load's issue until an `s_waitcnt lgkmcnt(0)`
// (vmcnt(0) for a VMEM-counted one): the load may land at any point in between, and SMEM loads complete out of order
// (MI300 ISA (CDNA3) §4.4 "S_WAITCNT"), so only a wait for zero proves that it has. After a call every SGPR counts as
// such a pending write.
//
// Bounds: at most `max_facts` facts per point (the oldest is dropped: forgetting is always sound), widening after a
// block's entry state changed twice (a moved interval bound goes to its extreme, a known bit above a changed one is
// forgotten), and at most `max_sweeps` passes; if the fixed point is not reached, the analysis proves nothing
// (every edge feasible, no split), which is sound.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/reg.hpp"
#include "asmevo/ir/waitcnt.hpp"

namespace asmevo::analysis {

namespace scalar_detail {

using u32 = std::uint32_t;
using i64 = std::int64_t;

inline constexpr unsigned num_sgprs = 102;                 // s0..s101 on gfx9
inline constexpr std::uint8_t zreg = num_sgprs;            // pseudo register holding 0
inline constexpr unsigned num_regs = num_sgprs + 1;
inline constexpr std::uint8_t no_reg = 0xff;
inline constexpr i64 two32 = i64{1} << 32;
inline constexpr i64 dmax = two32 - 1;  // |x - y| for two 32-bit values read the same way
inline constexpr std::size_t max_facts = 64;
inline constexpr unsigned max_sweeps = 100;
inline constexpr unsigned widen_after = 2;

/// Known bits of one 32-bit value.
struct Bits {
  u32 zero = 0, one = 0;
  [[nodiscard]] bool known() const noexcept { return (zero | one) == ~0u; }
  [[nodiscard]] static Bits konst(u32 v) noexcept { return {~v, v}; }
  friend bool operator==(const Bits&, const Bits&) = default;
};

/// a + b + carry_in (mod 2^32), bit by bit with a three-valued carry: a sum bit is known when its three inputs are;
/// a carry is known when two of the three inputs are known and equal (the majority).
[[nodiscard]] inline Bits kb_add(Bits a, Bits b, int carry_in = 0) {
  Bits r;
  int c = carry_in;  // 0, 1, or -1 (unknown)
  for (unsigned j = 0; j < 32; ++j) {
    const u32 m = 1u << j;
    const int x = a.one & m ? 1 : a.zero & m ? 0 : -1;
    const int y = b.one & m ? 1 : b.zero & m ? 0 : -1;
    if (x >= 0 && y >= 0 && c >= 0) {
      if ((x ^ y ^ c) & 1) r.one |= m;
      else r.zero |= m;
    }
    const int ones = (x == 1) + (y == 1) + (c == 1), zeros = (x == 0) + (y == 0) + (c == 0);
    c = ones >= 2 ? 1 : zeros >= 2 ? 0 : -1;
  }
  return r;
}
[[nodiscard]] inline Bits kb_not(Bits a) noexcept { return {a.one, a.zero}; }
[[nodiscard]] inline Bits kb_sub(Bits a, Bits b) { return kb_add(a, kb_not(b), 1); }  // a + ~b + 1
/// The known bits of every value in [0, w] (w < 2^32): the bits above w's highest bit are 0.
[[nodiscard]] inline Bits kb_upto(i64 w) noexcept {
  const unsigned n = static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(w)));
  return {n >= 32 ? 0u : ~((1u << n) - 1), 0};
}
[[nodiscard]] inline Bits kb_join(Bits a, Bits b) noexcept { return {a.zero & b.zero, a.one & b.one}; }

/// How a fact reads the two registers.
enum class Rd : std::uint8_t { s, u, m };  // signed values, unsigned values, difference modulo 2^32

/// val(x) - val(y) in [lo, hi] under reading `rd` (for Rd::m: (x - y) mod 2^32 is in {lo..hi} mod 2^32, with lo
/// normalized to [0, 2^32) and hi - lo < 2^32 - 1).
struct Fact {
  std::uint8_t x = 0, y = 0;
  Rd rd = Rd::s;
  i64 lo = 0, hi = 0;
  friend bool operator==(const Fact&, const Fact&) = default;
};

enum class Cmp : std::uint8_t { eq, ne, lt, le, gt, ge };

/// An operand of a compare: a tracked register, or a 32-bit constant.
struct Opnd {
  std::uint8_t reg = no_reg;
  u32 k = 0;
  friend bool operator==(const Opnd&, const Opnd&) = default;
};

/// What is known of SCC.
struct Scc {
  enum class K : std::uint8_t { unknown, konst, compare } kind = K::unknown;
  bool value = false;  // K::konst
  Cmp op = Cmp::eq;    // K::compare: SCC = (a op b)
  bool is_signed = false;
  Opnd a, b;
  friend bool operator==(const Scc&, const Scc&) = default;
};

[[nodiscard]] inline i64 sval(u32 v) noexcept { return static_cast<std::int32_t>(v); }
[[nodiscard]] inline i64 interp(u32 v, bool is_signed) noexcept { return is_signed ? sval(v) : i64{v}; }
[[nodiscard]] inline i64 mod32(i64 v) noexcept { return ((v % two32) + two32) % two32; }

[[nodiscard]] inline Cmp negate(Cmp c) noexcept {
  switch (c) {
    case Cmp::eq: return Cmp::ne;
    case Cmp::ne: return Cmp::eq;
    case Cmp::lt: return Cmp::ge;
    case Cmp::le: return Cmp::gt;
    case Cmp::gt: return Cmp::le;
    case Cmp::ge: return Cmp::lt;
  }
  return c;
}
[[nodiscard]] inline Cmp mirror(Cmp c) noexcept {  // a op b  <=>  b mirror(op) a
  switch (c) {
    case Cmp::lt: return Cmp::gt;
    case Cmp::le: return Cmp::ge;
    case Cmp::gt: return Cmp::lt;
    case Cmp::ge: return Cmp::le;
    default: return c;
  }
}
/// The values of d = a - b for which `a op b` holds, within [-dmax, dmax]; nullopt for `ne` (not an interval).
[[nodiscard]] inline std::optional<std::pair<i64, i64>> holds_for(Cmp c) noexcept {
  switch (c) {
    case Cmp::eq: return std::pair{i64{0}, i64{0}};
    case Cmp::ne: return std::nullopt;
    case Cmp::lt: return std::pair{-dmax, i64{-1}};
    case Cmp::le: return std::pair{-dmax, i64{0}};
    case Cmp::gt: return std::pair{i64{1}, dmax};
    case Cmp::ge: return std::pair{i64{0}, dmax};
  }
  return std::nullopt;
}
/// Whether `a op b` holds for every / no difference in [lo, hi].
[[nodiscard]] inline std::optional<bool> decide_on(Cmp c, i64 lo, i64 hi) noexcept {
  if (lo > hi) return std::nullopt;
  switch (c) {
    case Cmp::eq: return lo == 0 && hi == 0 ? std::optional<bool>(true) : (lo > 0 || hi < 0) ? std::optional<bool>(false) : std::nullopt;
    case Cmp::ne: return lo == 0 && hi == 0 ? std::optional<bool>(false) : (lo > 0 || hi < 0) ? std::optional<bool>(true) : std::nullopt;
    case Cmp::lt: return hi < 0 ? std::optional<bool>(true) : lo >= 0 ? std::optional<bool>(false) : std::nullopt;
    case Cmp::le: return hi <= 0 ? std::optional<bool>(true) : lo > 0 ? std::optional<bool>(false) : std::nullopt;
    case Cmp::gt: return lo > 0 ? std::optional<bool>(true) : hi <= 0 ? std::optional<bool>(false) : std::nullopt;
    case Cmp::ge: return lo >= 0 ? std::optional<bool>(true) : hi < 0 ? std::optional<bool>(false) : std::nullopt;
  }
  return std::nullopt;
}

/// The scalar facts at one program point. `reached` false is bottom (no execution gets here).
struct State {
  bool reached = false;
  std::array<Bits, num_regs> kb{};
  std::vector<Fact> facts;  // oldest first
  Scc scc;
  std::bitset<num_sgprs> pend_lgkm, pend_vm;  // SGPRs a memory load may still write (unknown until waited for)

  State() { kb[zreg] = Bits::konst(0); }

  // ---- ranges and facts -------------------------------------------------------------------------------------
  /// The interval the values of `r` lie in under signed (or unsigned) reading, from its known bits and a fact
  /// relating it to Z.
  [[nodiscard]] std::pair<i64, i64> range(std::uint8_t r, bool is_signed) const {
    const Bits b = kb[r];
    i64 lo, hi;
    if (!is_signed) {
      lo = b.one, hi = ~b.zero;
    } else {
      const u32 rest_lo = b.one & 0x7fffffffu, rest_hi = ~b.zero & 0x7fffffffu;
      lo = (b.zero >> 31 & 1) ? i64{rest_lo} : i64{rest_lo} - (i64{1} << 31);
      hi = (b.one >> 31 & 1) ? i64{rest_hi} - (i64{1} << 31) : i64{rest_hi};
    }
    if (r != zreg)
      if (const auto f = find(r, zreg, is_signed ? Rd::s : Rd::u)) lo = std::max(lo, f->lo), hi = std::min(hi, f->hi);
    return {lo, hi};
  }
  [[nodiscard]] std::pair<i64, i64> range(const Opnd& o, bool is_signed) const {
    if (o.reg == no_reg) return {interp(o.k, is_signed), interp(o.k, is_signed)};
    return range(o.reg, is_signed);
  }

  /// The fact about (x - y) under `rd`, oriented as asked.
  [[nodiscard]] std::optional<Fact> find(std::uint8_t x, std::uint8_t y, Rd rd) const {
    for (const Fact& f : facts) {
      if (f.rd != rd) continue;
      if (f.x == x && f.y == y) return f;
      if (f.x == y && f.y == x) return flip(f);
    }
    return std::nullopt;
  }
  [[nodiscard]] static Fact flip(const Fact& f) {
    Fact g{f.y, f.x, f.rd, -f.hi, -f.lo};
    if (g.rd == Rd::m) normalize_m(g);
    return g;
  }
  static void normalize_m(Fact& f) {
    const i64 lo = mod32(f.lo);
    f.hi += lo - f.lo;
    f.lo = lo;
  }
  /// The values a signed/unsigned difference can take: [-dmax, dmax], or the register's own range against Z.
  [[nodiscard]] static std::pair<i64, i64> domain(const Fact& f) {
    if (f.y == zreg) return f.rd == Rd::s ? std::pair{-(i64{1} << 31), (i64{1} << 31) - 1} : std::pair{i64{0}, dmax};
    if (f.x == zreg) return f.rd == Rd::s ? std::pair{-((i64{1} << 31) - 1), i64{1} << 31} : std::pair{-dmax, i64{0}};
    return {-dmax, dmax};
  }

  /// Adds (intersects) a fact; false when it contradicts what is known (then no execution satisfies both).
  bool add_fact(Fact f) {
    if (f.x == f.y) return f.rd == Rd::m || (f.lo <= 0 && 0 <= f.hi);  // x - x = 0 (a modular one: not checked)
    if (f.x > f.y) f = flip(f);
    if (f.rd == Rd::m) {
      normalize_m(f);
      if (f.hi - f.lo >= dmax) return true;  // every residue: no information
    } else {
      const auto [dlo, dhi] = domain(f);
      f.lo = std::max(f.lo, dlo), f.hi = std::min(f.hi, dhi);
      if (f.lo > f.hi) return false;
      if (f.lo == dlo && f.hi == dhi) return true;
      // Compare with the ranges of the two registers.
      const bool sg = f.rd == Rd::s;
      const auto [xl, xh] = range(f.x, sg);
      const auto [yl, yh] = range(f.y, sg);
      if (f.lo > xh - yl || f.hi < xl - yh) return false;
    }
    for (Fact& g : facts) {
      if (g.x != f.x || g.y != f.y || g.rd != f.rd) continue;
      if (f.rd == Rd::m) {
        if (f.hi - f.lo < g.hi - g.lo) g = f;  // both hold; keep the narrower one
      } else {
        g.lo = std::max(g.lo, f.lo), g.hi = std::min(g.hi, f.hi);
        if (g.lo > g.hi) return false;
      }
      return reduce(g);
    }
    if (facts.size() >= max_facts) facts.erase(facts.begin());
    facts.push_back(f);
    return reduce(f);
  }

  /// Known bits from a narrow fact: x = y + lo + [0, hi - lo] (mod 2^32), and y = x - that. False on a conflict.
  bool reduce(const Fact& f) {
    if (f.hi - f.lo >= dmax) return true;
    const Bits off = kb_add(Bits::konst(static_cast<u32>(mod32(f.lo))), kb_upto(f.hi - f.lo));
    bool ok = meet(f.x, kb_add(kb[f.y], off));
    const Bits noff = kb_add(Bits::konst(static_cast<u32>(mod32(-f.hi))), kb_upto(f.hi - f.lo));
    ok = meet(f.y, kb_add(kb[f.x], noff)) && ok;
    return ok;
  }
  /// Adds known bits to a register; false when they conflict with the known ones (nothing is changed then).
  bool meet(std::uint8_t r, Bits b) {
    if (r == zreg) return (b.one == 0);
    const Bits n{kb[r].zero | b.zero, kb[r].one | b.one};
    if (n.zero & n.one) return false;
    kb[r] = n;
    return true;
  }

  /// Forgets everything about register r (it is about to be written).
  void kill(std::uint8_t r) {
    if (r == zreg || r == no_reg) return;
    kb[r] = Bits{};
    std::erase_if(facts, [&](const Fact& f) { return f.x == r || f.y == r; });
    if (scc.kind == Scc::K::compare && (scc.a.reg == r || scc.b.reg == r)) scc = Scc{};
  }
  void forget_all() {
    const bool was = reached;
    *this = State{};
    reached = was;
  }
  /// Makes every register with a pending memory write unknown again (after an instruction wrote it).
  void drop_pending() {
    const auto p = pend_lgkm | pend_vm;
    if (p.none()) return;
    for (unsigned r = 0; r < num_sgprs; ++r)
      if (p[r]) kill(static_cast<std::uint8_t>(r));
  }

  // ---- compares ---------------------------------------------------------------------------------------------
  /// `a op b` in every execution reaching this point (true), in none (false), or not known.
  [[nodiscard]] std::optional<bool> decide(Cmp op, bool is_signed, const Opnd& a, const Opnd& b) const {
    if (a.reg != no_reg && a.reg == b.reg) return decide_on(op, 0, 0);
    const Rd rd = is_signed ? Rd::s : Rd::u;
    auto ra = range(a, is_signed), rb = range(b, is_signed);
    i64 lo = ra.first - rb.second, hi = ra.second - rb.first;
    const std::uint8_t x = a.reg == no_reg ? zreg : a.reg, y = b.reg == no_reg ? zreg : b.reg;
    const i64 shift = (a.reg == no_reg ? interp(a.k, is_signed) : 0) - (b.reg == no_reg ? interp(b.k, is_signed) : 0);
    if (x != y)
      if (const auto f = find(x, y, rd)) lo = std::max(lo, f->lo + shift), hi = std::min(hi, f->hi + shift);
    if (const auto r = decide_on(op, lo, hi)) return r;
    if ((op == Cmp::eq || op == Cmp::ne) && x != y)
      if (const auto f = find(x, y, Rd::m)) {
        // (a - b) mod 2^32 is in {f.lo + shift .. f.hi + shift} mod 2^32: equal iff that set is {0}; unequal if it
        // misses 0.
        const i64 l = mod32(f->lo + shift), h = l + (f->hi - f->lo);
        if (l == 0 && h == 0) return op == Cmp::eq;
        if (l != 0 && h < two32) return op == Cmp::ne;
      }
    return std::nullopt;
  }

  /// Restricts the state to the executions where `a op b` is `truth`; false when there are none.
  bool assume(Cmp op, bool is_signed, Opnd a, Opnd b, bool truth) {
    if (!truth) op = negate(op);
    if (const auto d = decide(op, is_signed, a, b)) return *d;
    if (a.reg == no_reg) std::swap(a, b), op = mirror(op);
    if (a.reg == no_reg) return true;  // two constants are decided above
    if (op == Cmp::eq) {
      if (b.reg == no_reg) {
        const Bits kbv = Bits::konst(b.k);
        if (!meet(a.reg, kbv)) return false;
        return add_fact({a.reg, zreg, Rd::s, sval(b.k), sval(b.k)}) && add_fact({a.reg, zreg, Rd::u, b.k, b.k});
      }
      return add_fact({a.reg, b.reg, Rd::s, 0, 0}) && add_fact({a.reg, b.reg, Rd::u, 0, 0}) &&
             add_fact({a.reg, b.reg, Rd::m, 0, 0});
    }
    const auto iv = holds_for(op);
    if (!iv) return true;  // `ne` narrows nothing that an interval can say
    const Rd rd = is_signed ? Rd::s : Rd::u;
    if (b.reg == no_reg) {
      const i64 k = interp(b.k, is_signed);
      return add_fact({a.reg, zreg, rd, iv->first + k, iv->second + k});
    }
    return add_fact({a.reg, b.reg, rd, iv->first, iv->second});
  }

  // ---- assignments ------------------------------------------------------------------------------------------
  /// d := r + c (mod 2^32), r a tracked register (possibly d itself).
  void assign_add(std::uint8_t d, std::uint8_t r, u32 c) {
    const Bits nb = kb_add(kb[r], Bits::konst(c));
    std::vector<Fact> derived;
    auto shift = [&](Fact f /* oriented (r, w) */) {
      if (f.y == d && d != r) return;  // about d's old value
      const i64 cs = sval(c);
      if (f.rd == Rd::m) {
        derived.push_back({d, f.y, Rd::m, f.lo + cs, f.hi + cs});
        return;
      }
      const bool sg = f.rd == Rd::s;
      const auto [rl, rh] = range(r, sg);
      const i64 ca = sg ? cs : i64{c};
      const i64 vmin = sg ? -(i64{1} << 31) : 0, vmax = sg ? (i64{1} << 31) - 1 : dmax;
      Fact g{d, f.y, f.rd, f.lo + ca, f.hi + ca};
      if (rl + ca >= vmin && rh + ca <= vmax) {
        // no wrap: exact
      } else if (rl + ca > vmax || rh + ca < vmin) {
        const i64 w = rl + ca > vmax ? -two32 : two32;  // always wraps
        g.lo += w, g.hi += w;
      } else if (ca > 0) {
        g.lo -= two32;  // may wrap down by 2^32
      } else {
        g.hi += two32;
      }
      derived.push_back(g);
      derived.push_back({d, f.y, Rd::m, f.lo + cs, f.hi + cs});
    };
    for (const Fact& f : facts) {
      if (f.x == r && f.y != r) shift(f);
      else if (f.y == r && f.x != r) shift(flip(f));
    }
    if (d != r)
      for (const Rd rd : {Rd::s, Rd::u, Rd::m}) shift(Fact{r, r, rd, 0, 0});
    kill(d);
    kb[d] = nb;
    for (const Fact& g : derived)
      if (g.y != d) (void)add_fact(g);  // a conflict would mean the point is unreachable; keeping less is sound
  }
  void assign_bits(std::uint8_t d, Bits b) {
    kill(d);
    kb[d] = b;
  }

  // ---- join -------------------------------------------------------------------------------------------------
  /// Joins `o` into this state (`widen`: bounds that moved go to their extremes); true if this state changed.
  bool join(const State& o, bool widen) {
    if (!o.reached) return false;
    if (!reached) {
      *this = o;
      return true;
    }
    bool changed = false;
    for (unsigned r = 0; r < num_regs; ++r) {
      Bits n = kb_join(kb[r], o.kb[r]);
      if (n == kb[r]) continue;
      if (widen) {
        // Keep only the known bits below the lowest one that changed (a congruence modulo a power of two).
        const u32 lost = (kb[r].zero | kb[r].one) & ~(n.zero | n.one);
        const u32 keep = (lost & (0u - lost)) - 1;
        n.zero &= keep, n.one &= keep;
      }
      kb[r] = n;
      changed = true;
    }
    std::vector<Fact> kept;
    for (const Fact& f : facts) {
      const auto g = o.find(f.x, f.y, f.rd);
      if (!g) {
        changed = true;
        continue;
      }
      Fact h = f;
      if (f.rd == Rd::m) {
        h.lo = std::min(f.lo, g->lo), h.hi = std::max(f.hi, g->hi);
        if (widen && !(h == f)) {
          changed = true;
          continue;
        }
        if (h.hi - h.lo >= dmax) {
          changed = true;
          continue;
        }
      } else {
        const auto [dlo, dhi] = domain(f);
        h.lo = std::min(f.lo, g->lo), h.hi = std::max(f.hi, g->hi);
        if (widen) {
          if (h.lo < f.lo) h.lo = dlo;
          if (h.hi > f.hi) h.hi = dhi;
        }
        if (h.lo <= dlo && h.hi >= dhi) {
          changed = true;
          continue;
        }
      }
      if (!(h == f)) changed = true;
      kept.push_back(h);
    }
    facts = std::move(kept);
    if (!(scc == o.scc)) {
      if (scc.kind != Scc::K::unknown) changed = true;
      scc = Scc{};
    }
    if ((o.pend_lgkm & ~pend_lgkm).any() || (o.pend_vm & ~pend_vm).any()) {
      pend_lgkm |= o.pend_lgkm, pend_vm |= o.pend_vm;
      drop_pending();
      changed = true;
    }
    return changed;
  }
};

/// The simm16 of a SOPK form, sign- or zero-extended.
[[nodiscard]] inline u32 simm16(std::int64_t v, bool sext) noexcept {
  const u32 k = static_cast<u32>(v) & 0xffffu;
  return sext ? static_cast<u32>(static_cast<std::int32_t>(static_cast<std::int16_t>(k))) : k;
}

}  // namespace scalar_detail

/// The scalar facts of one kernel: which CFG edges some execution can take, and which successors of a join block
/// are reachable when it is entered from a given predecessor.
class ScalarValues {
 public:
  using State = scalar_detail::State;

  /// Runs the analysis for the kernel entered at `entry` (all registers unknown there).
  [[nodiscard]] static ScalarValues analyze(const Program& p, const Cfg& g, std::uint32_t entry, Target t) {
    ScalarValues v(p, g, t);
    v.run(entry);
    return v;
  }

  /// False only if no execution takes the edge from block `from` to its successor `to`.
  [[nodiscard]] bool edge_feasible(std::uint32_t from, std::uint32_t to) const {
    if (!ok_ || from >= feasible_.size()) return true;
    const auto& su = g_->succ[from];
    for (std::size_t k = 0; k < su.size(); ++k)
      if (su[k] == to) return feasible_[from][k] != 0;
    return true;
  }

  /// For block `b` entered from its predecessor `from` (both in the CFG): the successors of `b` some such execution
  /// goes to next, as a bit mask over g.succ[b] (bit k: g.succ[b][k]). All bits when nothing is proven, and always
  /// for a block with 64 or more successors.
  [[nodiscard]] std::uint64_t successors_from(std::uint32_t from, std::uint32_t b) const {
    const auto& su = g_->succ[b];
    const std::uint64_t all = su.size() >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << su.size()) - 1;
    if (!ok_ || su.size() >= 64) return all;
    State s = edge_state(from, b);
    if (!s.reached) return 0;
    for (const std::size_t i : g_->blocks[b].insts) step(s, p_->items[i].inst);
    std::uint64_t m = 0;
    for (std::size_t k = 0; k < su.size(); ++k)
      if (refine(s, b, su[k]).reached) m |= std::uint64_t{1} << k;
    return m;
  }

  /// True when the fixed point was reached (otherwise every answer is "feasible").
  [[nodiscard]] bool converged() const noexcept { return ok_; }
  /// The state at the entry of block b (reached false: no execution gets there, or b is not reachable).
  [[nodiscard]] const State& block_in(std::uint32_t b) const { return in_[b]; }
  /// The state on the edge from `from` to `to`: from's exit state, restricted by the branch that picks `to`.
  [[nodiscard]] State edge_state(std::uint32_t from, std::uint32_t to) const {
    State s = in_[from];
    if (!s.reached) return s;
    for (const std::size_t i : g_->blocks[from].insts) step(s, p_->items[i].inst);
    return refine(s, from, to);
  }

  /// Applies one instruction to `s`.
  void step(State& s, const Inst& in) const {
    step_(s, in);
    s.drop_pending();
  }

 private:
  void step_(State& s, const Inst& in) const {
    using namespace scalar_detail;
    const auto forms = isa::forms(t_);
    if (in.form >= forms.size()) {
      s.forget_all();
      return;
    }
    const isa::FormInfo& f = forms[in.form];
    const auto ops = isa::operands(f);
    const Opcode opc = op_of(t_, in.form);
    const OpInfo& info = op_info(opc);
    // s_cbranch_g_fork / i_fork / join keep their branch stack in SGPRs (GCN3/Vega ISA S_CBRANCH_G_FORK: "SGPR[CSP*4]
    // = {...}"), a write LLVM does not list among the instruction's defs (SOPInstructions.td: Defs = [EXEC] only).
    if (f.has(isa::prop::call) || info.base == BaseOp::s_movreld || opc == op::s_trap || info.family == Family::s_rfe ||
        info.family == Family::s_cbranch_fork) {
      s.forget_all();
      if (f.has(isa::prop::call)) s.pend_lgkm.set(), s.pend_vm.set();  // the callee may leave loads outstanding
      return;
    }
    if (opc == op::s_waitcnt) {
      for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
        if (ops[k].kind == isa::Kind::waitcnt && in.ops[k].kind == Operand::Kind::imm) {
          const Waitcnt w = decode_waitcnt(t_, static_cast<std::uint16_t>(in.ops[k].imm));
          if (w.lgkm == 0) s.pend_lgkm.reset();
          if (w.vm == 0) s.pend_vm.reset();
        }
      return;
    }
    if (f.has(isa::prop::smem) || f.has(isa::prop::vm_cnt) || f.has(isa::prop::lgkm_cnt)) {
      // A memory instruction: the SGPRs it writes stay unknown until a wait for zero (see the file comment).
      for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
        const Operand& o = in.ops[k];
        if (ops[k].role != isa::Role::def || !o.is_reg() || o.reg.file != RegFile::sgpr) continue;
        for (unsigned r = o.reg.index; r < o.reg.index + o.reg.dwords && r < num_sgprs; ++r) {
          s.kill(static_cast<std::uint8_t>(r));
          if (f.has(isa::prop::vm_cnt)) s.pend_vm.set(r);
          if (f.has(isa::prop::lgkm_cnt) || f.has(isa::prop::smem) || !f.has(isa::prop::vm_cnt)) s.pend_lgkm.set(r);
        }
      }
      if (f.implicit_defs & isa::reg::scc) s.scc = Scc{};
      return;
    }
    auto idx = [&](std::string_view name) -> int {
      for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
        if (ops[k].name == name) return static_cast<int>(k);
      return -1;
    };
    // A tracked 32-bit SGPR operand, or no_reg.
    auto sreg = [&](int k) -> std::uint8_t {
      if (k < 0) return no_reg;
      const Operand& o = in.ops[static_cast<std::size_t>(k)];
      if (!o.is_reg() || o.reg.file != RegFile::sgpr || o.reg.dwords != 1 || o.reg.index >= num_sgprs ||
          s.pend_lgkm[o.reg.index] || s.pend_vm[o.reg.index])
        return no_reg;
      return static_cast<std::uint8_t>(o.reg.index);
    };
    // A source as (tracked register or no_reg, known bits), and as an Opnd when it is a register or constant.
    struct Src {
      std::uint8_t reg = no_reg;
      Bits kb;
      bool konst = false;
      u32 k = 0;
    };
    auto src = [&](int k) -> Src {
      Src r;
      if (k < 0) return r;
      const Operand& o = in.ops[static_cast<std::size_t>(k)];
      if (o.kind == Operand::Kind::imm && o.mods == 0) {
        r.konst = true, r.k = static_cast<u32>(o.imm), r.kb = Bits::konst(r.k);
        return r;
      }
      r.reg = sreg(k);
      if (r.reg != no_reg) {
        r.kb = s.kb[r.reg];
        if (r.kb.known()) r.konst = true, r.k = r.kb.one;
      }
      return r;
    };
    auto opnd = [](const Src& x) -> std::optional<Opnd> {
      if (x.reg != no_reg) return Opnd{x.reg, 0};
      if (x.konst) return Opnd{no_reg, x.k};
      return std::nullopt;
    };
    // Defaults: every SGPR this instruction defines becomes unknown; SCC too if it is an implicit def.
    auto clobber = [&] {
      for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
        const Operand& o = in.ops[k];
        if (ops[k].role != isa::Role::def || !o.is_reg() || o.reg.file != RegFile::sgpr) continue;
        for (unsigned r = o.reg.index; r < o.reg.index + o.reg.dwords && r < num_sgprs; ++r)
          s.kill(static_cast<std::uint8_t>(r));
      }
      if (f.implicit_defs & isa::reg::scc) s.scc = Scc{};
    };
    const int d_at = idx("sdst");
    const std::uint8_t d = sreg(d_at);
    const bool d_ok = d != no_reg && ops[static_cast<std::size_t>(d_at)].role == isa::Role::def;
    auto set_scc_nonzero = [&] {
      if (d_ok) {
        s.scc = Scc{Scc::K::compare, false, Cmp::ne, false, Opnd{d, 0}, Opnd{no_reg, 0}};
        if (const auto r = s.decide(Cmp::ne, false, Opnd{d, 0}, Opnd{no_reg, 0})) s.scc = Scc{Scc::K::konst, *r};
      } else {
        s.scc = Scc{};
      }
    };

    // ---- compares ---------------------------------------------------------------------------------------------
    auto cmp_of = [](CmpCond c) -> std::optional<Cmp> {
      switch (c) {
        case CmpCond::eq: return Cmp::eq;
        case CmpCond::lg: return Cmp::ne;
        case CmpCond::lt: return Cmp::lt;
        case CmpCond::le: return Cmp::le;
        case CmpCond::gt: return Cmp::gt;
        case CmpCond::ge: return Cmp::ge;
        default: return std::nullopt;
      }
    };
    // 32-bit compares: s_cmp_<cond>_{i32,u32} and s_cmpk_<cond>_{i32,u32}.
    const bool is_cmp = info.family == Family::s_cmp, is_cmpk = info.family == Family::s_cmpk;
    if ((is_cmp || is_cmpk) && one_of(info.type, DataType::i32, DataType::u32)) {
      const auto cmp = cmp_of(info.cond);
      const bool sg = info.type == DataType::i32;
      std::optional<Opnd> a, b;
      if (cmp && is_cmp) {
        a = opnd(src(idx("src0"))), b = opnd(src(idx("src1")));
      } else if (cmp) {
        // s_cmpk_*: the register operand is the first one (LLVM names it sdst although it is read).
        a = opnd(src(0));
        const int ki = idx("simm16");
        if (ki >= 0 && in.ops[static_cast<std::size_t>(ki)].kind == Operand::Kind::imm)
          b = Opnd{no_reg, simm16(in.ops[static_cast<std::size_t>(ki)].imm, sg)};
      }
      if (!cmp || !a || !b) {
        s.scc = Scc{};
        return;
      }
      s.scc = Scc{Scc::K::compare, false, *cmp, sg, *a, *b};
      if (const auto r = s.decide(*cmp, sg, *a, *b)) s.scc = Scc{Scc::K::konst, *r};
      return;
    }

    // ---- moves and adds ---------------------------------------------------------------------------------------
    if (opc == op::s_mov_b32 && d_ok) {
      const Src x = src(idx("src0"));
      if (x.reg != no_reg) s.assign_add(d, x.reg, 0);
      else s.assign_bits(d, x.konst ? x.kb : Bits{});
      return;  // S_MOV_B32 does not write SCC
    }
    if (opc == op::s_movk_i32 && d_ok) {
      const int ki = idx("simm16");
      const bool k_ok = ki >= 0 && in.ops[static_cast<std::size_t>(ki)].kind == Operand::Kind::imm;
      s.assign_bits(d, k_ok ? Bits::konst(simm16(in.ops[static_cast<std::size_t>(ki)].imm, true)) : Bits{});
      return;
    }
    if (opc == op::s_addk_i32 && d_ok) {
      const int ki = idx("simm16");
      if (ki >= 0 && in.ops[static_cast<std::size_t>(ki)].kind == Operand::Kind::imm)
        s.assign_add(d, d, simm16(in.ops[static_cast<std::size_t>(ki)].imm, true));
      else
        s.kill(d);
      s.scc = Scc{};  // signed overflow: not modelled
      return;
    }
    const bool add = one_of(opc, op::s_add_u32, op::s_add_i32), sub = one_of(opc, op::s_sub_u32, op::s_sub_i32);
    if ((add || sub) && d_ok) {
      const Src a = src(idx("src0")), b = src(idx("src1"));
      if (add && a.reg != no_reg && b.konst && b.reg == no_reg) s.assign_add(d, a.reg, b.k);
      else if (add && b.reg != no_reg && a.konst && a.reg == no_reg) s.assign_add(d, b.reg, a.k);
      else if (add && a.reg != no_reg && b.konst) s.assign_add(d, a.reg, b.k);
      else if (add && b.reg != no_reg && a.konst) s.assign_add(d, b.reg, a.k);
      else if (sub && a.reg != no_reg && b.konst) s.assign_add(d, a.reg, 0u - b.k);
      else s.assign_bits(d, add ? scalar_detail::kb_add(a.kb, b.kb) : scalar_detail::kb_sub(a.kb, b.kb));
      s.scc = Scc{};  // carry / overflow: not modelled
      return;
    }

    // ---- bitwise and shifts (SCC = D != 0) ---------------------------------------------------------------------
    if (d_ok && one_of(opc, op::s_and_b32, op::s_or_b32, op::s_xor_b32, op::s_andn2_b32, op::s_orn2_b32,
                       op::s_nand_b32, op::s_nor_b32, op::s_xnor_b32)) {
      const Bits a = src(idx("src0")).kb, b = src(idx("src1")).kb;
      Bits r;
      using B = BaseOp;  // the logic operation, without its width
      const B lo = info.base;
      const Bits bb = one_of(lo, B::s_andn2, B::s_orn2) ? scalar_detail::kb_not(b) : b;
      if (one_of(lo, B::s_and, B::s_andn2, B::s_nand)) r = {a.zero | bb.zero, a.one & bb.one};
      else if (one_of(lo, B::s_or, B::s_orn2, B::s_nor)) r = {a.zero & bb.zero, a.one | bb.one};
      else r = {(a.zero & b.zero) | (a.one & b.one), (a.zero & b.one) | (a.one & b.zero)};  // xor / xnor
      if (one_of(lo, B::s_nand, B::s_nor, B::s_xnor)) r = scalar_detail::kb_not(r);
      s.assign_bits(d, r);
      set_scc_nonzero();
      return;
    }
    if (d_ok && opc == op::s_not_b32) {
      s.assign_bits(d, scalar_detail::kb_not(src(idx("src0")).kb));
      set_scc_nonzero();
      return;
    }
    if (d_ok && one_of(opc, op::s_lshl_b32, op::s_lshr_b32, op::s_ashr_i32)) {
      const Bits a = src(idx("src0")).kb;
      const Src n = src(idx("src1"));
      Bits r;
      if (n.konst) {
        const unsigned sh = n.k & 31u;  // S1[4:0]
        if (opc == op::s_lshl_b32) r = {(a.zero << sh) | ((1u << sh) - 1), a.one << sh};
        else if (opc == op::s_lshr_b32) r = {(a.zero >> sh) | (sh ? ~(~0u >> sh) : 0u), a.one >> sh};
        else
          r = {static_cast<u32>(static_cast<std::int32_t>(a.zero) >> sh),
               static_cast<u32>(static_cast<std::int32_t>(a.one) >> sh)};
      }
      s.assign_bits(d, r);
      set_scc_nonzero();
      return;
    }
    if (d_ok && opc == op::s_cselect_b32) {
      const Src a = src(idx("src0")), b = src(idx("src1"));
      if (s.scc.kind == Scc::K::konst) {
        const Src& c = s.scc.value ? a : b;
        if (c.reg != no_reg) s.assign_add(d, c.reg, 0);
        else s.assign_bits(d, c.konst ? c.kb : Bits{});
      } else {
        s.assign_bits(d, scalar_detail::kb_join(a.kb, b.kb));
      }
      return;  // reads SCC, does not write it
    }
    clobber();
  }

  ScalarValues(const Program& p, const Cfg& g, Target t) : p_(&p), g_(&g), t_(t) {}

  /// `s` (the state at the end of block b) restricted to the executions that go on to successor `to`.
  [[nodiscard]] State refine(State s, std::uint32_t b, std::uint32_t to) const {
    using namespace scalar_detail;
    if (!s.reached) return s;
    const Block& blk = g_->blocks[b];
    if (blk.insts.empty() || !blk.target) return s;
    const Inst& last = p_->items[blk.insts.back()].inst;
    const Opcode o = op_of(t_, last.form);  // Opcode::invalid for a form outside the table
    if (!one_of(o, op::s_cbranch_scc0, op::s_cbranch_scc1)) return s;
    const auto taken = g_->block_named(*blk.target);
    const std::optional<std::uint32_t> fall =
        blk.falls_through && b + 1 < g_->blocks.size() ? std::optional<std::uint32_t>(b + 1) : std::nullopt;
    if (!taken || (fall && *fall == *taken)) return s;  // both ways lead to `to`: nothing to learn
    bool scc;
    if (to == *taken) scc = o == op::s_cbranch_scc1;
    else if (fall && to == *fall) scc = o != op::s_cbranch_scc1;
    else return s;
    bool ok = true;
    if (s.scc.kind == Scc::K::konst) ok = s.scc.value == scc;
    else if (s.scc.kind == Scc::K::compare) ok = s.assume(s.scc.op, s.scc.is_signed, s.scc.a, s.scc.b, scc);
    if (!ok) {
      State none;
      return none;
    }
    s.scc = Scc{Scc::K::konst, scc};
    return s;
  }

  void run(std::uint32_t entry) {
    in_.assign(g_->blocks.size(), State{});
    if (entry >= g_->blocks.size()) return;
    in_[entry].reached = true;
    const auto order = g_->reverse_post_order(entry);
    std::vector<unsigned> updates(g_->blocks.size(), 0);
    std::vector<std::uint8_t> dirty(g_->blocks.size(), 0);
    dirty[entry] = 1;
    for (unsigned sweep = 0; sweep < scalar_detail::max_sweeps; ++sweep) {
      bool changed = false;
      for (const std::uint32_t b : order) {
        if (!dirty[b] || !in_[b].reached) continue;
        dirty[b] = 0;
        State s = in_[b];
        for (const std::size_t i : g_->blocks[b].insts) step(s, p_->items[i].inst);
        for (const std::uint32_t t : g_->succ[b]) {
          const State e = refine(s, b, t);
          if (in_[t].join(e, updates[t] >= scalar_detail::widen_after)) {
            ++updates[t];
            dirty[t] = 1;
            changed = true;
          }
        }
      }
      if (!changed) {
        ok_ = true;
        feasible_.assign(g_->blocks.size(), {});
        for (std::uint32_t b = 0; b < g_->blocks.size(); ++b) {
          feasible_[b].assign(g_->succ[b].size(), 0);
          if (!in_[b].reached) continue;
          State s = in_[b];
          for (const std::size_t i : g_->blocks[b].insts) step(s, p_->items[i].inst);
          for (std::size_t k = 0; k < g_->succ[b].size(); ++k) feasible_[b][k] = refine(s, b, g_->succ[b][k]).reached;
        }
        return;
      }
    }
  }

  const Program* p_;
  const Cfg* g_;
  Target t_;
  std::vector<State> in_;
  std::vector<std::vector<std::uint8_t>> feasible_;  // per block, per successor (g.succ order)
  bool ok_ = false;
};

}  // namespace asmevo::analysis
