// A sound equivalence prover for an edited kernel K1 that differs from K0 in one small window of instructions (a
// replaced, deleted, inserted or swapped run inside one basic block), under the facts one launch fixes.
//
// How a proof goes:
//  1. The window: K0 and K1 are compared instruction by instruction (ids and contents) and label by label; what
//     differs must be one run of non-control instructions inside one K0 block (no label or branch in it; an
//     s_waitcnt or s_nop inside is a no-op for values: waits and wait states are the static checkers' business;
//     but a proof refuses a window with an s_waitcnt, whose memory ordering between waves it cannot see).
//     Directives, the descriptor and the metadata must be the same, except the register counts.
//  2. The window alone, from a symbolic state standing for every arrival (K0's known bits there, analysis/
//     known_bits.hpp, as constants; every other bit a variable shared by both sides): if both sides leave every
//     register equal, K1 is equivalent ("same value"), since every later step is the same instruction on the same
//     state.
//  3. Otherwise, lockstep symbolic execution (detail/int_semantics.hpp) of both kernels, first from the kernel entry,
//     then from a block just before the window: the common code runs on both sides, path by path, forking at
//     branches whose condition both sides compute identically (what an arm implies, such as exec = 0 on the taken
//     arm of s_cbranch_execz, is substituted on it) and merging paths where they meet again. Every memory access,
//     store, barrier and message must be the same on both sides (same operand terms on the active lanes, same exec,
//     same order), and so must every branch condition. A path is done at s_endpgm, or where the two states are equal
//     again and the window cannot be reached any more ("same value later", "never observed").
//     Where the terms of a branch condition or of a memory access's operands differ, a SAT query on their circuits
//     (detail/term_sat.hpp; compares are exact circuits here) may still show the values equal (exec narrowed by a
//     compare that a later compare implies); K1 then takes K0's terms for them, which changes no value. The same is
//     tried for the operands of an instruction whose result is opaque (a float conversion of two differently
//     selected but equal values), whose results would otherwise be different values.
//     A third start is tried between the two: the highest dominator of the window with no loop on the way to it
//     (a store epilogue after the main loop), from where the masks and the compares that made them are terms.
//     A loop entered with both sides in the same state and the window outside it is not unrolled but summarised:
//     both sides run it alike, so every register it writes becomes the same fresh symbols (with K0's known bits at
//     the exit) on both sides, and what it does not write keeps its terms.
//  4. Paths that exceed the budget (loops, many branches) are cut, and the registers that still differ there are
//     followed by a taint analysis over the CFG to a fixed point: a difference may only die (be fully overwritten:
//     a VALU write only when exec is known all ones) and must never reach memory, exec, a branch or the window
//     ("dead result").
// Anything not shown is "unproven" with the reason; a proof never rests on testing.
//
// The other direction, refute(): from the window-alone run of step 2, the registers whose terms differ and that are
// live after the window in K0 and in K1 (analysis/liveness.hpp) are searched by SAT (detail/term_sat.hpp) for inputs
// that make them differ: one query per register and lane, over the bits that are exact circuits of the inputs (no
// opaque result in them, so no model rests on an unmodelled value's freedom), every input the same in every lane and
// exec all ones where K0's known bits leave it open (then any exec). A model is re-run through both windows on
// constants, and returned as a Counterexample only if the register then differs with every bit of it a constant.
// What it cannot refute: differences that only opaque results carry (float arithmetic, loads, cross-lane
// operations), values that only inactive lanes carry past a later VALU write (liveness is register-granular), and a
// difference that needs different values in different lanes. What it says is about the window: the inputs are a
// state consistent with K0's known bits at its entry, not one shown reachable, and "live" means read on some path.
//
// Results are modelled as written at issue, which holds when every read and overwrite of a load's destination waits
// for it and every wait state is met: K1 must have no waitcnt or hazard finding (analysis/waitcnt_check.hpp,
// hazard_check.hpp) that K0 does not have, or the proof is refused (wait states are only as complete as the hazard
// checker's rows). Also assumed: the launch facts describe every launch the verdict is for (a launch file with
// several shapes needs a proof per shape), and the kernel has no data races (a load at the same place in the same
// memory order returns the same value on both sides).
#pragma once

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/bit_terms.hpp"
#include "asmevo/analysis/detail/int_semantics.hpp"
#include "asmevo/analysis/detail/term_sat.hpp"
#include "asmevo/analysis/findings.hpp"
#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/analysis/known_bits.hpp"
#include "asmevo/analysis/liveness.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::analysis {

/// The verdict: proven (K1 is equivalent to K0 under the facts) with a one-line reason, or unproven with why.
struct ProofResult {
  bool proven = false;
  std::string reason;
};

/// Limits of the symbolic phase; past them, the taint analysis takes over.
struct ProofBudget {
  std::size_t max_steps = 200000;   ///< instructions executed over all paths (both sides count once); a first
                                    ///< attempt from the kernel entry gets a quarter of it
  std::size_t max_paths = 4096;     ///< paths started
  unsigned max_block_visits = 3;    ///< times one path may enter one block (loop unrolling)
  std::size_t max_window = 16;      ///< instructions in the differing window (each side)
};

/// A concrete input under which K0's and K1's windows leave a register that is live after them different: what
/// EquivalenceProver::refute finds. The window runs from a state that stands for every arrival (K0's known bits at
/// its entry as constants, every other bit free), so the inputs are a state consistent with those known bits, not
/// necessarily one a launch reaches: a refutation says "the edit changes what the window computes, and the
/// difference is read later", not that some launch's output changes.
/// Lanes: the window is analysed lane by lane, and every input has the same value in every lane (a VGPR input is
/// that value in all 64 lanes; exec, an input where K0's known bits leave it open, is all ones when that shows the
/// difference). Values are 32-bit register contents (a 64-bit register is two units, "s4" and "s5").
struct Counterexample {
  struct Input {
    std::string reg;            ///< unit name as detail::unit_name gives it: "v9", "s6", "exec_lo", "scc"
    std::uint32_t value = 0;
    bool known = false;         ///< every bit fixed by K0's known bits at the window (not chosen by the solver)
    /// The value as an f32 ("-126.0", "nan", "1.0e-45"), for convenience.
    [[nodiscard]] std::string f32() const;
  };
  InstId at{};                  ///< K0's first instruction of the window (an insertion: the one it precedes)
  std::string where;            ///< the same as the prover names it: "i138", or "before i12" for an insertion
  std::vector<Input> inputs;    ///< every register either window reads, in the order they are first read
  std::string reg;              ///< the register that differs after the window, live after it in K0 and in K1
  std::uint32_t k0 = 0, k1 = 0;  ///< its value after K0's and after K1's window
  std::optional<unsigned> lane;  ///< for a vector register: the lane shown (any active lane shows the same)
  /// One line in the user's terms: "with s6 = 0xc2fc0000 (-126.0), v9 = 0xc2fc0000 (-126.0), ... in every lane at
  /// i138, K0 leaves s4 = 0x0 and K1 s4 = 0xffffffff".
  [[nodiscard]] std::string text() const;
};

/// The answer of EquivalenceProver::refute: a checked counterexample; or none, because no register live after the
/// window can differ (in the exactly modelled bits, for lane-uniform inputs: see `reason`); or unknown, with why.
struct Refutation {
  enum class Kind : std::uint8_t {
    refuted,  ///< `cex` holds a counterexample, re-evaluated on concrete values before it was returned
    none,     ///< no counterexample exists for the exactly modelled bits (see `reason`): not a proof of equivalence
    unknown,  ///< cannot decide: not one window, a refused instruction, opaque results, the SAT budget ...
  };
  Kind kind = Kind::unknown;
  std::optional<Counterexample> cex;
  std::string reason;
  std::size_t sat_queries = 0;  ///< SAT queries asked (0 when the terms alone decided)
  [[nodiscard]] bool refuted() const noexcept { return kind == Kind::refuted; }
};

namespace detail {

/// An f32 value's shortest round-trip spelling, with ".0" on whole numbers ("-126.0", "0.5", "1e-45", "nan").
[[nodiscard]] inline std::string f32_text(std::uint32_t v) {
  const auto x = std::bit_cast<float>(v);
  if (x != x) return "nan";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  std::string t(buf, r.ptr);
  if (t.find_first_of(".en") == std::string::npos) t += ".0";  // "inf" has an 'n'
  return t;
}

[[nodiscard]] inline std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

/// The descriptor directives that only size the register file (codeobject/descriptor.hpp's `derived` rows:
/// granulated VGPR and SGPR counts, accum_offset) and the metadata keys that repeat those counts (AMDGPUUsage "Code
/// Object V3+ Metadata": .sgpr_count, .vgpr_count, .agpr_count and the spill counts). A K1 that uses another
/// register gets other values from `assemble`; what the registers hold is the same, and the ABI check
/// (codeobject/abi.hpp) and the static checks keep the allocation consistent with the code.
inline constexpr std::string_view register_count_directives[] = {".amdhsa_next_free_vgpr", ".amdhsa_next_free_sgpr",
                                                                 ".amdhsa_accum_offset"};
inline constexpr std::string_view register_count_keys[] = {".sgpr_count:", ".vgpr_count:", ".agpr_count:",
                                                            ".sgpr_spill_count:", ".vgpr_spill_count:"};

/// `fields` without the register-count directives.
[[nodiscard]] inline std::vector<std::pair<std::string, std::string>> without_register_counts(
    const std::vector<std::pair<std::string, std::string>>& fields) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : fields)
    if (std::find(std::begin(register_count_directives), std::end(register_count_directives), f.first) ==
        std::end(register_count_directives))
      out.push_back(f);
  return out;
}

/// Metadata YAML text with the value of every register-count key blanked (the key stays, so the structure compares).
[[nodiscard]] inline std::string without_register_counts(std::string_view yaml) {
  std::string out;
  out.reserve(yaml.size());
  std::size_t i = 0;
  while (i < yaml.size()) {
    std::size_t e = yaml.find('\n', i);
    if (e == std::string_view::npos) e = yaml.size();
    std::string_view line = yaml.substr(i, e - i);
    for (const std::string_view k : register_count_keys)
      if (const std::size_t at = line.find(k); at != std::string_view::npos) {
        line = line.substr(0, at + k.size());
        break;
      }
    out.append(line);
    out.push_back('\n');
    i = e + 1;
  }
  return out;
}

}  // namespace detail

inline std::string Counterexample::Input::f32() const { return detail::f32_text(value); }

inline std::string Counterexample::text() const {
  std::string t = "with ";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Input& in = inputs[i];
    t += (i ? ", " : "") + in.reg + " = " + detail::hex32(in.value);
    // The float spelling only where it reads as a number: a normal f32 (not a mask, a small integer, a NaN).
    const unsigned e = in.value >> 23 & 0xff;
    if (e != 0 && e != 0xff) t += " (" + in.f32() + ")";
  }
  if (inputs.empty()) t += "any registers";
  t += " in every lane at " + where + ", K0 leaves " + reg + " = " + detail::hex32(k0) + " and K1 " + reg + " = " +
       detail::hex32(k1);
  if (lane) t += " (lane " + std::to_string(*lane) + ")";
  return t;
}

namespace detail {

/// A side's symbolic state: the units written since the window, over a shared initial state.
struct SymState {
  const std::vector<Word>* init = nullptr;
  std::unordered_map<std::uint16_t, Word> w;
  std::uint64_t seq_ = 0;
  [[nodiscard]] Word get(unsigned u) const {
    const auto it = w.find(static_cast<std::uint16_t>(u));
    return it != w.end() ? it->second : (*init)[u];
  }
  void set(unsigned u, const Word& v) { w[static_cast<std::uint16_t>(u)] = v; }
  std::uint64_t& seq() { return seq_; }
};

/// The same instruction bit for bit: Inst::operator== compares float operands by value, so 0.0 and -0.0 (and NaNs
/// with different payloads) would count as the same operand.
[[nodiscard]] inline bool same_inst(const Inst& a, const Inst& b) {
  if (!(a == b)) return false;
  for (std::size_t k = 0; k < a.ops.size() && k < b.ops.size(); ++k)
    if (a.ops[k].kind == Operand::Kind::real) {
      std::uint64_t x, y;
      std::memcpy(&x, &a.ops[k].real, 8);
      std::memcpy(&y, &b.ops[k].real, 8);
      if (x != y || a.ops[k].count != b.ops[k].count) return false;
    }
  return true;
}

/// The instruction changes what later instructions do without naming a register: VSKIP (S_SETVSKIP: no vector
/// instruction issues while it is set) or GPR indexing (S_SET_GPR_IDX_ON, or an s_setreg that may write MODE bit 27,
/// GPR_IDX_EN: VALU register operands are offset by M0). Code under either mode is not what its text says.
[[nodiscard]] inline bool changes_issue_mode(const Inst& in) {
  const Opcode o = op_of(in);
  if (o == op::s_setvskip || family_of(o) == Family::s_gpr_idx) return true;
  if (family_of(o) != Family::s_setreg) return false;
  const auto ops = isa::operands(form_of(in));
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    if (ops[k].kind != isa::Kind::hwreg) continue;
    const Operand& o = in.ops[k];
    unsigned id = 0, off = 0, size = 32;
    if (o.kind == Operand::Kind::imm) {
      const auto v = static_cast<std::uint32_t>(o.imm);
      id = v & 0x3f, off = (v >> 6) & 0x1f, size = ((v >> 11) & 0x1f) + 1;
    } else if (o.kind == Operand::Kind::text) {
      // hwreg(NAME[, offset, size]); only MODE (id 1) holds GPR_IDX_EN.
      std::string t = o.text;
      const auto l = t.find('('), r = t.rfind(')');
      if (l == std::string::npos || r == std::string::npos || r < l) return true;
      t = t.substr(l + 1, r - l - 1);
      std::vector<std::string> args;
      std::size_t at = 0;
      for (;;) {
        const auto c = t.find(',', at);
        std::string a = t.substr(at, c == std::string::npos ? std::string::npos : c - at);
        a.erase(0, a.find_first_not_of(" \t"));
        a.erase(a.find_last_not_of(" \t") + 1);
        args.push_back(a);
        if (c == std::string::npos) break;
        at = c + 1;
      }
      if (args.empty()) return true;
      if (args[0] == "HW_REG_MODE" || args[0] == "1") id = 1;
      else if (args[0].rfind("HW_REG_", 0) == 0) id = 0x3f;  // another named register
      else return true;
      if (args.size() == 3) {
        try {
          off = static_cast<unsigned>(std::stoul(args[1], nullptr, 0));
          size = static_cast<unsigned>(std::stoul(args[2], nullptr, 0));
        } catch (...) {
          return true;
        }
      } else if (args.size() != 1) {
        return true;
      }
    } else {
      return true;
    }
    return id == 1 && off <= 27 && off + size > 27;
  }
  return true;
}

/// Units whose terms differ between two states.
inline std::vector<unsigned> diff_units(const SymState& a, const SymState& b) {
  std::set<unsigned> us;
  for (const auto& [u, v] : a.w) us.insert(u);
  for (const auto& [u, v] : b.w) us.insert(u);
  std::vector<unsigned> out;
  for (unsigned u : us)
    if (a.get(u) != b.get(u)) out.push_back(u);
  return out;
}

inline std::string unit_list(const std::vector<unsigned>& us, std::size_t max = 6) {
  std::string s;
  for (std::size_t i = 0; i < us.size() && i < max; ++i) s += (i ? ", " : "") + unit_name(us[i]);
  if (us.size() > max) s += ", ... (" + std::to_string(us.size()) + " registers)";
  return s;
}

/// Known bits of a unit as text ("v4[31:15]=0"), or empty when none are known.
inline std::string known_text(const KbState& s, unsigned u) {
  const int i = kb_index(u);
  if (i < 0) return {};
  const KB& k = s.units[static_cast<std::size_t>(i)];
  if (!k.zero && !k.one) return {};
  if ((k.zero | k.one) == ~0u) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", k.one);
    return unit_name(u) + "=" + buf;
  }
  // The longest run of known bits from the top, else a count.
  unsigned hi = 31;
  const std::uint32_t kn = k.zero | k.one;
  if (kn >> 31 & 1) {
    unsigned lo = 31;
    while (lo > 0 && (kn >> (lo - 1) & 1)) --lo;
    const std::uint32_t mask = (lo == 0 ? ~0u : ~0u << lo);
    const std::uint32_t val = k.one & mask;
    char buf[48];
    if (val == 0) std::snprintf(buf, sizeof buf, "[%u:%u]=0", hi, lo);
    else std::snprintf(buf, sizeof buf, "[%u:%u]=0x%x", hi, lo, val >> lo);
    return unit_name(u) + buf;
  }
  return unit_name(u) + " (" + std::to_string(std::popcount(kn)) + " bits known)";
}

[[nodiscard]] inline bool is_memory_form(const isa::FormInfo& f) {
  using F = isa::Format;
  return f.format == F::FLAT || f.format == F::GLOBAL || f.format == F::SCRATCH || f.format == F::MUBUF ||
         f.format == F::MTBUF || f.format == F::DS || f.format == F::SMEM || f.format == F::MIMG;
}

/// The instruction has an expression operand that is not a branch target (a relocation or label difference, whose
/// value depends on where code is placed).
[[nodiscard]] inline bool has_expr_value(const Inst& in) {
  const auto ops = isa::operands(form_of(in));
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (in.ops[k].kind == Operand::Kind::expr && ops[k].kind != isa::Kind::label) return true;
  return false;
}

/// Destination units of `in` that it overwrites completely in every lane that matters, given whether exec is known
/// to be all ones here: SALU and SMEM results; VALU lane masks of compares and carries and scalar reads of lanes;
/// VGPRs of lane-wise VALU operations and plain loads only under a full exec. Conservative: anything else keeps
/// (possibly) some old bits, e.g. a VALU write under a partial exec, DPP, SDWA, 16-bit results, d16 loads.
inline std::vector<unsigned> full_writes(const Inst& in, bool exec_full) {
  std::vector<unsigned> out;
  const auto& f = form_of(in);
  if (partial_def(in) || side_specific(op_of(in)) || has_expr_value(in) || unmodelable(op_of(in))) return out;
  const auto ops = isa::operands(f);
  const bool salu = f.has(isa::prop::salu) && !is_memory_form(f);
  const bool smem = f.format == isa::Format::SMEM && f.has(isa::prop::load) && !f.has(isa::prop::atomic);
  const OpInfo& info = op_info(in);
  // ds_permute/ds_bpermute/ds_swizzle (Family::ds_lane) move data between lanes: not a lane-wise load.
  const bool vload = is_memory_form(f) && f.format != isa::Format::SMEM && f.has(isa::prop::load) &&
                     !f.has(isa::prop::atomic) && !f.has(isa::prop::store) && info.family != Family::ds_lane;
  const bool valu = f.has(isa::prop::valu);
  const bool lanewise = valu && !cross_lane(in);  // SDWA that keeps old bits is partial_def, refused above
  // Lane masks: compares, carry-outs (v_add_co_u32 ...) and the scalar results of lane reads.
  const bool lane_mask = valu && (one_of(info.family, Family::v_cmp, Family::v_cmpx) || info.has(opflag::co) ||
                                  one_of(op_of(in), op::v_readlane_b32, op::v_readfirstlane_b32));
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    if (ops[k].role != isa::Role::def || !in.ops[k].is_reg()) continue;
    const auto file = in.ops[k].reg.file;
    const bool vreg = file == RegFile::vgpr || file == RegFile::agpr;
    bool full = false;
    if (salu || smem) full = true;
    else if (vreg && (lanewise || vload)) full = exec_full;
    else if (!vreg && lane_mask) full = true;
    if (full) {
      auto us = units_of(in.ops[k].reg);
      out.insert(out.end(), us.begin(), us.end());
    }
  }
  const auto imp = implicit_units(f.implicit_defs);
  if (salu || (valu && lane_mask)) out.insert(out.end(), imp.begin(), imp.end());
  return out;
}

}  // namespace detail

/// Proves K1 equivalent to K0 under one launch. Build once per (K0, facts); prove() per K1.
class EquivalenceProver {
 public:
  /// Runs K0's known-bits analysis. `k0` and `facts` must outlive the prover.
  [[nodiscard]] static Expected<EquivalenceProver> make(const Program& k0, const LaunchFacts& facts,
                                                        ProofBudget budget = {}) {
    auto kb = KnownBits::analyze(k0, facts);
    if (!kb) return unexpected(kb.error());
    EquivalenceProver pv(std::move(*kb), budget);
    pv.k0_findings_ = static_findings(k0, facts.entry);
    return pv;
  }

  /// Proves that `k1` behaves as K0. `site` (optional) is the changed instruction's id, checked against the window.
  [[nodiscard]] ProofResult prove(const Program& k1, std::optional<InstId> site = std::nullopt) const {
    Run r(*this, k1);
    return r.go(site);
  }

  /// Looks for a counterexample to the equivalence of `k1`'s window with K0's: register values at the window's
  /// entry (consistent with K0's known bits there) under which a register live after the window in K0 and in K1
  /// holds different values at its exit. Only exactly modelled bits are searched (integer operations, compares,
  /// f32 compares where MODE keeps input denormals), never an opaque result's freedom, and a model is re-evaluated on
  /// constants before it is returned. `site` as for prove(). Cost: one symbolic run of the window, a liveness
  /// analysis of K0 and K1, and a few small SAT queries (at most 64 per differing vector register, one per lane).
  [[nodiscard]] Refutation refute(const Program& k1, std::optional<InstId> site = std::nullopt) const {
    Run r(*this, k1);
    return r.refute(site);
  }

  [[nodiscard]] const KnownBits& known_bits() const noexcept { return kb_; }

 private:
  EquivalenceProver(KnownBits kb, ProofBudget b) : kb_(std::move(kb)), budget_(b) {}

  /// Waitcnt and hazard findings of the kernel entered at `entry`, as comparable keys (rule, instruction, other).
  static std::set<std::string> static_findings(const Program& p, const std::string& entry) {
    std::set<std::string> out;
    const Cfg g = build_cfg(p);
    const auto e = g.block_named(entry);
    if (!e) return out;
    auto add = [&](const Findings& fs) {
      for (const Finding& f : fs)
        out.insert(f.rule + "@" + std::to_string(f.at.value) + "/" + (f.other ? std::to_string(f.other->value) : "-") +
                   " " + f.message);
    };
    add(check_waitcnt(p, g, *e, p.target));
    add(check_hazards(p, g, *e, p.target));
    return out;
  }

  KnownBits kb_;
  ProofBudget budget_;
  std::set<std::string> k0_findings_;

  /// One proof attempt.
  class Run {
   public:
    Run(const EquivalenceProver& pv, const Program& k1)
        : P(pv), k0(pv.kb_.program()), k1(k1), g(pv.kb_.cfg()), A(true) {}

    ProofResult go(std::optional<InstId> site) {
      if (auto why = find_window(); !why.empty()) return {false, why};
      if (w0.empty() && w1.empty()) return {true, "identical: K1 has the same instructions and labels as K0"};
      // A wait also orders memory between waves (an lgkmcnt(0) before s_barrier makes this wave's LDS writes
      // visible to the others), which neither the per-wave values below nor the static findings compared further
      // down see: a dropped, weakened or moved s_waitcnt would be "proven" equivalent. So a window with a wait in it
      // is refuted (refute() looks across waits) but never proven; the memory-model check judges it. (Wait states
      // have no such reach: a dropped s_nop is proven when K1 adds no hazard finding.)
      for (std::size_t i : w0)
        if (const Inst& in = k0.items[i].inst; is_wait(in))
          return {false, iid(in) + " (s_waitcnt) is inside the changed code: a wait also orders memory between "
                             "waves, which the memory-model check judges; the prover refutes across a wait but "
                             "proves no window that holds one"};
      for (const Inst* in : w1)
        if (is_wait(*in))
          return {false, "K1's window holds an s_waitcnt: a wait also orders memory between waves, which the "
                         "memory-model check judges; the prover refutes across a wait but proves no window that "
                         "holds one"};
      // VSKIP and GPR indexing change what the instructions after them do; the semantics here read them literally.
      for (const Program* p : {&k0, &k1})
        for (const Item& it : p->items)
          if (it.kind == Item::Kind::inst && detail::changes_issue_mode(it.inst))
            return {false, iid(it.inst) + " (" + std::string(detail::form_of(it.inst).mnemonic) +
                               ") sets VSKIP or GPR indexing, under which instructions are not what they say"};
      if (site) {
        bool hit = false;
        for (std::size_t i : w0) hit |= k0.items[i].inst.id == *site;
        for (const Inst* in : w1) hit |= in->id == *site;
        if (!hit) return {false, "the changed instructions do not include i" + std::to_string(site->value)};
      }
      // Results written at issue: K1 may not read or overwrite a load's destination before its wait, nor issue an
      // instruction closer to its producer than a wait-state rule allows, where K0 does not.
      for (const auto& f : static_findings(k1, P.kb_.facts().entry))
        if (!P.k0_findings_.count(f))
          return {false, "K1 breaks a static rule K0 keeps (" + f.substr(f.find(' ') + 1) + ")"};
      entry_kb = P.kb_.state_before(anchor);
      if (!entry_kb.reached)
        return {true, "unreachable: no path from the kernel entry reaches the changed instructions at " + where()};
      setup_env();
      init = initial_state(entry_kb);
      // The window from a state that stands for every arrival (K0's known bits there; everything else a symbol).
      // Equal afterwards means equal for every arrival with equal states, and so for ever.
      {
        Path g0{wblock, wpos, false, detail::SymState{&init, {}, 0}, detail::SymState{&init, {}, 0}, {}, {}, false};
        if (auto why = run_window(g0); !why.empty()) return {false, why};
        window_diff = detail::diff_units(g0.s0, g0.s1);
        for (std::size_t i : w0) {
          std::vector<unsigned> rd, wr;
          detail::unit_rw(k0.items[i].inst, rd, wr);
          window_reads.insert(window_reads.end(), rd.begin(), rd.end());
        }
        for (const Inst* in : w1) {
          std::vector<unsigned> rd, wr;
          detail::unit_rw(*in, rd, wr);
          window_reads.insert(window_reads.end(), rd.begin(), rd.end());
        }
        window_reach();
        // Equal states are the same values later only where no instruction reads the code's placement or the time
        // (s_getpc, s_memtime, label expressions): the window may have moved the code after it.
        if (window_diff.empty() && !reaches_placement[wblock]) return same_state_result();
      }
      // First from the kernel entry, where every value is a term of what the launch fixes (precise, but the paths to
      // the window may exceed the budget); then from just before the window. Each attempt is a proof on its own.
      std::uint32_t local = wblock;
      for (int k = 0; k < 3; ++k) {
        if (local == P.kb_.entry_block() || g.pred[local].size() != 1) break;
        const auto pr = g.pred[local].front();
        if (pr == local || !P.kb_.block_in(pr).reached) break;
        local = pr;
      }
      ProofResult first{false, ""};
      if (local != P.kb_.entry_block()) {
        first = explore(P.kb_.entry_block(), P.budget_.max_steps / 4);
        if (first.proven) return first;
      }
      // Then from as far up as no loop lies between the start and the window (a store epilogue after the main loop:
      // the masks and the compares that made them are computed on the way, so their relations are in the terms).
      if (const auto far = loop_free_dominator(); far != local && far != P.kb_.entry_block()) {
        auto mid = explore(far, P.budget_.max_steps);
        if (mid.proven) return mid;
      }
      auto second = explore(local, P.budget_.max_steps);
      if (second.proven || first.reason.empty()) return second;
      return {false, second.reason};
    }

    /// EquivalenceProver::refute: the window alone, as in step 2 of go(), then a SAT search for inputs under which
    /// a live register differs, checked on constants.
    Refutation refute(std::optional<InstId> site) {
      using RK = Refutation::Kind;
      auto answer = [&](RK k, std::string why) { return Refutation{k, std::nullopt, std::move(why), sat.queries}; };
      if (auto why = find_window(); !why.empty()) return answer(RK::unknown, why);
      if (w0.empty() && w1.empty()) return answer(RK::none, "identical: K1 has the same instructions and labels as K0");
      for (const Program* p : {&k0, &k1})
        for (const Item& it : p->items)
          if (it.kind == Item::Kind::inst && detail::changes_issue_mode(it.inst))
            return answer(RK::unknown,
                          iid(it.inst) + " (" + std::string(detail::form_of(it.inst).mnemonic) +
                              ") sets VSKIP or GPR indexing, under which instructions are not what they say");
      if (site) {
        bool hit = false;
        for (std::size_t i : w0) hit |= k0.items[i].inst.id == *site;
        for (const Inst* in : w1) hit |= in->id == *site;
        if (!hit) return answer(RK::unknown, "the changed instructions do not include i" + std::to_string(site->value));
      }
      entry_kb = P.kb_.state_before(anchor);
      if (!entry_kb.reached)
        return answer(RK::none,
                      "unreachable: no path from the kernel entry reaches the changed instructions at " + where());
      setup_env();
      init = initial_state(entry_kb);
      Path g0{wblock, wpos, false, detail::SymState{&init, {}, 0}, detail::SymState{&init, {}, 0}, {}, {}, false};
      if (auto why = run_window(g0); !why.empty()) return answer(RK::unknown, why);
      const auto diff = detail::diff_units(g0.s0, g0.s1);
      if (diff.empty()) return answer(RK::none, "K0 and K1 leave every register equal after " + where());

      // Only a register live after the window on both sides can show the difference later (liveness.hpp: read on
      // some path before it is written again; register-granular, so a value that only lanes a VALU write skips
      // carry across it is not searched: conservative, e.g. v6 of a masked v_mov v6 ... store v6 is missed).
      const Liveness live0 = Liveness::compute(k0, g);
      const Cfg g1 = build_cfg(k1);
      const Liveness live1 = Liveness::compute(k1, g1);
      const UnitSet after0 = live_after(k0, live0, k0_next), after1 = live_after(k1, live1, k1_next);
      std::vector<unsigned> cand;
      for (unsigned u : diff)
        if (u < detail::num_units && after0[u] && after1[u]) cand.push_back(u);
      if (cand.empty())
        return answer(RK::none, detail::unit_list(diff) + " may differ after " + where() +
                                    " but none of them is live after it in both K0 and K1");

      std::vector<unsigned> reads;  // the inputs: every unit either window reads, in order
      auto add_reads = [&](const Inst& in) {
        std::vector<unsigned> rd, wr;
        detail::unit_rw(in, rd, wr);
        for (unsigned u : rd)
          if (u < detail::num_units && std::find(reads.begin(), reads.end(), u) == reads.end()) reads.push_back(u);
      };
      for (std::size_t i : w0) add_reads(k0.items[i].inst);
      for (const Inst* in : w1) add_reads(*in);

      // Exec is an input where K0's known bits leave it open; all ones is tried first, for a counterexample that
      // holds in every lane.
      bool exec_open = false;
      for (unsigned h = 0; h < 2; ++h)
        for (Bit b : init[detail::unit_exec + h]) exec_open |= !detail::BitAlg::is_const(b);
      std::unordered_map<Bit, bool> exact_memo;
      std::vector<unsigned> opaque, unconfirmed;
      bool out_of_budget = false, too_large = false;
      for (int attempt = 0; attempt < (exec_open ? 2 : 1); ++attempt) {
        const bool full_exec = exec_open && attempt == 0;
        for (unsigned u : cand) {
          const Word a = g0.s0.get(u), b = g0.s1.get(u);
          std::vector<unsigned> bits;  // bits that differ in their terms and are exact circuits of the inputs
          bool lanes = false;
          for (unsigned j = 0; j < 32; ++j)
            if (a[j] != b[j] && exact(a[j], exact_memo) && exact(b[j], exact_memo)) {
              bits.push_back(j);
              lanes = lanes || A.is_lane(a[j]) || A.is_lane(b[j]);
            }
          if (bits.empty()) {
            if (attempt == 0) opaque.push_back(u);
            continue;
          }
          for (unsigned L = 0; L < (lanes ? 64u : 1u); ++L) {
            if (sat.conflicts >= sat.conflicts_total) {
              out_of_budget = true;
              break;
            }
            const auto model = solve_difference(a, b, bits, lanes ? L : detail::TermCnf::uniform, full_exec,
                                                out_of_budget, too_large);
            if (!model) continue;
            if (auto cex = confirm(u, *model, reads)) {
              Refutation r{RK::refuted, std::move(cex), "", sat.queries};
              r.reason = r.cex->text();
              return r;
            }
            if (std::find(unconfirmed.begin(), unconfirmed.end(), u) == unconfirmed.end()) unconfirmed.push_back(u);
            break;  // another lane of the same terms would fail the same way
          }
        }
      }
      std::string why;
      if (!unconfirmed.empty())
        why = "a model for " + detail::unit_list(unconfirmed) + " did not hold when re-evaluated on its values";
      else if (out_of_budget) why = "the SAT budget ran out";
      else if (too_large) why = "the circuits of " + detail::unit_list(cand) + " outgrew the SAT clause budget";
      if (!why.empty()) return answer(RK::unknown, why);
      if (opaque.size() == cand.size())
        return answer(RK::unknown, detail::unit_list(opaque) + " may differ after " + where() +
                                       " but only through opaque results (float arithmetic, loads ...), whose values "
                                       "are not modelled");
      std::string r = "no inputs consistent with K0's known bits at " + where() + " make " + detail::unit_list(cand) +
                      " differ (in the exactly modelled bits, with every lane alike)";
      if (!opaque.empty()) r += "; " + detail::unit_list(opaque) + " may differ through opaque results";
      return answer(opaque.empty() ? RK::none : RK::unknown, r);
    }

   private:
    using Word = detail::Word;
    using Bit = detail::Bit;

    const EquivalenceProver& P;
    const Program& k0;
    const Program& k1;
    const Cfg& g;
    detail::BitAlg A;
    detail::EvalEnv env0, env1;
    detail::SatBudget sat;             // SAT queries of this proof (detail/term_sat.hpp)
    std::vector<std::uint32_t> idom_;  // dominators(), once computed
    std::vector<std::size_t> rpo_;
    struct Loop {
      bool usable = false;                 // summarisable: no window, no unmodelled instruction
      std::vector<std::uint32_t> exits;    // blocks outside the loop that a loop block branches or falls to
      std::vector<unsigned> written;       // units any instruction of the loop writes
    };
    std::unordered_map<std::uint32_t, Loop> loops_;  // by header, once computed
    std::size_t summaries = 0;
    std::size_t uniform_stores = 0;    // stores shown equal under different non-zero execs

    std::size_t k0_next = ~std::size_t{0};  // K0 item right after the window (label or instruction), if any
    std::size_t k1_next = ~std::size_t{0};  // K1's
    std::vector<std::size_t> w0;       // K0 window items (instructions)
    std::vector<const Inst*> w1;       // K1 window instructions
    std::size_t anchor = 0;            // K0 item the window starts at (the first after it when w0 is empty)
    std::uint32_t wblock = 0;          // K0 block of the window
    std::size_t wpos = 0;              // index of `anchor` in the block's instructions
    detail::KbState entry_kb;
    std::vector<Word> init;            // the state at the window (for its generic run)
    std::vector<Word> init_explore;    // the state where exploration starts
    std::vector<bool> reaches_window;  // per block: a path from it reaches the window block
    std::vector<bool> reaches_placement;  // per block: a path from it reaches a placement-dependent instruction
    std::vector<unsigned> window_diff; // units that differ after the window's generic run
    std::vector<unsigned> window_reads;

    // -- refutation helpers --

    /// Units live right before item `next` (the first item after a window; labels skipped) of `p`; nothing live
    /// when no instruction follows.
    static UnitSet live_after(const Program& p, const Liveness& L, std::size_t next) {
      for (std::size_t i = next; i < p.items.size(); ++i)
        if (p.items[i].kind == Item::Kind::inst) return L.live_in(i);
      return {};
    }

    /// Term t is an exact circuit of the window's inputs: no opaque result (whose value nothing constrains, so a
    /// model may give it any value the hardware would not) and no unknown.
    bool exact(Bit t, std::unordered_map<Bit, bool>& memo) const {
      if (detail::BitAlg::is_const(t)) return true;
      if (auto it = memo.find(t); it != memo.end()) return it->second;
      const auto& n = A.node(t);
      using K = detail::BitAlg::K;
      bool r = false;
      switch (n.k) {
        case K::var: r = true; break;
        case K::not_: r = exact(n.a, memo); break;
        case K::and_: case K::or_: case K::xor_: r = exact(n.a, memo) && exact(n.b, memo); break;
        case K::lane: r = exact(n.a, memo); break;
        case K::mux: {
          r = exact(n.b, memo) && exact(n.c, memo);
          for (Bit x : A.vec_bits(n.a)) r = r && exact(x, memo);
          break;
        }
        default: r = false; break;  // top, proj
      }
      memo.emplace(t, r);
      return r;
    }

    /// A model under which some bit of `bits` differs between words a and b in lane L (TermCnf::uniform for uniform
    /// words), every input having the same value in every lane (and exec all ones where it is open, if `full_exec`):
    /// the values of the variables it sets. Nothing when there is none (or when the budget says so, noted in the
    /// flags).
    std::optional<std::unordered_map<Bit, bool>> solve_difference(const Word& a, const Word& b,
                                                                  const std::vector<unsigned>& bits, unsigned L,
                                                                  bool full_exec, bool& out_of_budget,
                                                                  bool& too_large) {
      detail::Sat S;
      detail::TermCnf cnf(A, S, sat.clauses_per_query);
      std::vector<detail::Sat::Lit> diffs;
      for (unsigned j : bits) {
        detail::Sat::Lit x = 0, y = 0;
        if (!cnf.encode(a[j], L, x) || !cnf.encode(b[j], L, y)) {
          too_large = true;
          return std::nullopt;
        }
        diffs.push_back(cnf.gate_xor(x, y));
      }
      S.add_clause(diffs);
      if (full_exec)
        for (unsigned h = 0; h < 2; ++h)
          for (Bit e : init[detail::unit_exec + h]) {
            if (detail::BitAlg::is_const(e)) continue;
            detail::Sat::Lit l = 0;
            if (!cnf.encode(e, detail::TermCnf::uniform, l)) {
              too_large = true;
              return std::nullopt;
            }
            S.add_clause({l});
          }
      // Lane-uniform inputs: a lane-varying variable encoded in several lanes (a lane mask's bits read lanes 0..63)
      // takes one value in all of them.
      const auto leaves = cnf.variables();
      std::unordered_map<Bit, detail::Sat::Lit> first;
      for (const auto& lf : leaves) {
        const auto [it, fresh] = first.emplace(lf.t, lf.lit);
        if (fresh) continue;
        S.add_clause({detail::Sat::neg(it->second), lf.lit});
        S.add_clause({it->second, detail::Sat::neg(lf.lit)});
      }
      ++sat.queries;
      const auto r = S.solve(sat.conflicts_per_query);
      sat.conflicts += S.conflicts();
      if (r == detail::Sat::Result::unknown) out_of_budget = true;
      if (r != detail::Sat::Result::sat) return std::nullopt;
      std::unordered_map<Bit, bool> m;
      for (const auto& lf : leaves) m[lf.t] = S.model(lf.lit >> 1) != static_cast<bool>(lf.lit & 1);
      return m;
    }

    /// Re-runs both windows on constants, every unit's initial word evaluated under `model` (variables it does not
    /// set are 0; the same value in every lane), and returns the counterexample if unit u then really differs with
    /// every bit of it a constant on both sides (no opaque result in it).
    std::optional<Counterexample> confirm(unsigned u, const std::unordered_map<Bit, bool>& model,
                                          const std::vector<unsigned>& reads) {
      std::vector<Word> cinit(detail::num_units);
      for (unsigned v = 0; v < detail::num_units; ++v)
        for (unsigned j = 0; j < 32; ++j) {
          const Bit t = init[v][j];
          if (detail::BitAlg::is_const(t)) cinit[v][j] = t;
          else if (A.node(t).k == detail::BitAlg::K::var) {
            const auto it = model.find(t);
            cinit[v][j] = it != model.end() && it->second ? detail::bit1 : detail::bit0;
          } else {
            return std::nullopt;  // initial_state makes constants and variables only
          }
        }
      detail::SymState c0{&cinit, {}, 0}, c1{&cinit, {}, 0};
      for (std::size_t i : w0)
        if (detail::step(A, c0, env0, k0.items[i].inst).refused) return std::nullopt;
      for (const Inst* in : w1)
        if (detail::step(A, c1, env1, *in).refused) return std::nullopt;
      // The value of word w in lane L (a uniform constant is the same in every lane), or nothing if a bit is not a
      // constant there.
      auto value = [&](const Word& w, unsigned L) -> std::optional<std::uint32_t> {
        std::uint32_t v = 0;
        for (unsigned j = 0; j < 32; ++j) {
          const Bit x = L < 64 ? A.lane(w[j], L) : w[j];
          if (!detail::BitAlg::is_const(x)) return std::nullopt;
          v |= (x == detail::bit1 ? 1u : 0u) << j;
        }
        return v;
      };
      const Word a = c0.get(u), b = c1.get(u);
      const bool vector = u >= detail::unit_v0;
      std::optional<unsigned> lane;
      std::optional<std::uint32_t> x, y;
      for (unsigned L = 0; L < (vector ? 64u : 1u); ++L) {
        const unsigned at = vector ? L : 64u;
        x = value(a, at), y = value(b, at);
        if (x && y && *x != *y) {
          if (vector) lane = L;
          break;
        }
        x.reset(), y.reset();
      }
      if (!x || !y) return std::nullopt;
      Counterexample c;
      c.at = k0.items[w0.empty() ? anchor : w0.front()].inst.id;
      c.where = where();
      c.reg = detail::unit_name(u);
      c.k0 = *x;
      c.k1 = *y;
      c.lane = lane;
      for (unsigned v : reads) {
        Counterexample::Input in;
        in.reg = detail::unit_name(v);
        const auto val = value(cinit[v], 64u);
        if (!val) return std::nullopt;
        in.value = *val;
        in.known = std::all_of(init[v].begin(), init[v].end(), [](Bit t) { return detail::BitAlg::is_const(t); });
        c.inputs.push_back(std::move(in));
      }
      return c;
    }

    // -- the window --

    [[nodiscard]] std::string iid(const Inst& in) const { return "i" + std::to_string(in.id.value); }
    [[nodiscard]] std::string where() const {
      if (!w0.empty()) return iid(k0.items[w0.front()].inst);
      return "before " + iid(k0.items[anchor].inst);
    }

    static bool is_nop(const Inst& in) { return op_of(in) == op::s_nop; }
    // s_waitcnt: the form whose operand is a waitcnt mask (isa::Kind::waitcnt), as the tables say.
    static bool is_wait(const Inst& in) {
      for (const auto& o : isa::operands(detail::form_of(in)))
        if (o.kind == isa::Kind::waitcnt) return true;
      return false;
    }

    std::string find_window() {
      auto seq = [](const Program& p) {
        std::vector<std::size_t> s;
        for (std::size_t i = 0; i < p.items.size(); ++i)
          if (p.items[i].kind == Item::Kind::inst || p.items[i].kind == Item::Kind::label) s.push_back(i);
        return s;
      };
      const auto s0 = seq(k0), s1 = seq(k1);
      // Directives, the kernel descriptor (initial MODE, user SGPR layout) and the metadata are part of the kernel
      // too: only instructions and labels are compared below, so any other difference is refused here, except the
      // register counts (detail::without_register_counts), which `assemble` recomputes for every edit that uses
      // another register.
      {
        auto other = [](const Program& p) {
          std::vector<const Item*> v;
          for (const Item& it : p.items)
            if (it.kind == Item::Kind::directive || it.kind == Item::Kind::kernel || it.kind == Item::Kind::metadata)
              v.push_back(&it);
          return v;
        };
        const auto d0 = other(k0), d1 = other(k1);
        // An alignment directive may differ in its argument: it only pads with s_nop, which computes nothing (wait
        // states are the hazard checker's), and a relinked K1 whose code grew gets another alignment for the
        // padding after its last kernel.
        auto alignment = [](const Item& it) {
          return it.kind == Item::Kind::directive && (it.name == ".p2align" || it.name == ".balign" || it.name == ".align");
        };
        bool same_other = d0.size() == d1.size();
        for (std::size_t i = 0; same_other && i < d0.size(); ++i)
          same_other = d0[i]->kind == d1[i]->kind && d0[i]->name == d1[i]->name &&
                       (d0[i]->kind == Item::Kind::metadata
                            ? detail::without_register_counts(d0[i]->text) == detail::without_register_counts(d1[i]->text)
                            : d0[i]->text == d1[i]->text || alignment(*d0[i])) &&
                       d0[i]->kernel.name == d1[i]->kernel.name &&
                       detail::without_register_counts(d0[i]->kernel.fields) ==
                           detail::without_register_counts(d1[i]->kernel.fields);
        if (!same_other) return "K1 changes a directive, the kernel descriptor or the metadata, not only instructions";
      }
      auto same = [&](std::size_t a, std::size_t b) {
        const Item& x = k0.items[a];
        const Item& y = k1.items[b];
        if (x.kind != y.kind) return false;
        if (x.kind == Item::Kind::label) return x.name == y.name;
        return x.inst.id == y.inst.id && detail::same_inst(x.inst, y.inst);
      };
      std::size_t pre = 0;
      while (pre < s0.size() && pre < s1.size() && same(s0[pre], s1[pre])) ++pre;
      std::size_t suf = 0;
      while (suf < s0.size() - pre && suf < s1.size() - pre && same(s0[s0.size() - 1 - suf], s1[s1.size() - 1 - suf])) ++suf;
      if (pre == s0.size() && pre == s1.size()) return {};
      for (std::size_t i = pre; i < s0.size() - suf; ++i) {
        if (k0.items[s0[i]].kind != Item::Kind::inst) return "the changed code spans a label: K1 differs in more than one place or across blocks, and the prover checks one window inside one block";
        w0.push_back(s0[i]);
      }
      for (std::size_t i = pre; i < s1.size() - suf; ++i) {
        if (k1.items[s1[i]].kind != Item::Kind::inst) return "the changed code spans a label: K1 differs in more than one place or across blocks, and the prover checks one window inside one block";
        // An s_nop K1 has in its window computes nothing: its wait states are the hazard checker's, whose findings
        // K1 may not add. Left out, so that an edit that needs one (a VALU write of VCC read by v_cndmask) is
        // still one window. (K0's window stays contiguous in its block: an s_nop there runs as the no-op it is.)
        if (is_nop(k1.items[s1[i]].inst)) continue;
        w1.push_back(&k1.items[s1[i]].inst);
      }
      if (s0.size() - suf < s0.size()) k0_next = s0[s0.size() - suf];
      if (s1.size() - suf < s1.size()) k1_next = s1[s1.size() - suf];
      if (w0.size() > P.budget_.max_window || w1.size() > P.budget_.max_window)
        return "the change spans more than " + std::to_string(P.budget_.max_window) + " instructions";
      auto refuse_inst = [&](const Inst& in) -> std::string {
        const auto& f = detail::form_of(in);
        if (f.has(isa::prop::branch) || f.has(isa::prop::terminator) || f.has(isa::prop::no_fallthrough) ||
            f.has(isa::prop::call) || f.has(isa::prop::return_))
          return iid(in) + " (" + std::string(f.mnemonic) + ") is control flow";
        return {};
      };
      for (std::size_t i : w0)
        if (auto why = refuse_inst(k0.items[i].inst); !why.empty()) return why;
      for (const Inst* in : w1)
        if (auto why = refuse_inst(*in); !why.empty()) return why;
      if (!w0.empty()) {
        anchor = w0.front();
      } else {
        if (pre >= s0.size() || k0.items[s0[pre]].kind != Item::Kind::inst)
          return "the inserted instructions sit at a block boundary";
        anchor = s0[pre];
      }
      wblock = g.block_of[anchor];
      if (wblock == Cfg::none) return "the change is outside every block";
      const auto& insts = g.blocks[wblock].insts;
      const auto it = std::find(insts.begin(), insts.end(), anchor);
      wpos = static_cast<std::size_t>(it - insts.begin());
      if (wpos + w0.size() > insts.size()) return "the change crosses a block boundary";
      for (std::size_t k = 0; k < w0.size(); ++k)
        if (insts[wpos + k] != w0[k]) return "the change crosses a block boundary";
      return {};
    }

    // -- the shared initial state --

    void setup_env() {
      env0.kernarg = env1.kernarg = &P.kb_.facts().kernarg;
      env0.dispatch = env1.dispatch = &P.kb_.facts().dispatch;
      env0.kernarg_sym = env1.kernarg_sym = A.symbol(false, true);
      env0.dispatch_sym = env1.dispatch_sym = A.symbol(false, true);
      env0.side = 0;
      env1.side = 1;
      env0.f32_mode = env1.f32_mode = f32_mode();
    }

    /// MODE's f32 fields for the whole run (EvalEnv::f32_mode): those the kernel descriptor sets at wave start
    /// (K0's and K1's descriptors are the same: find_window checks), when no instruction of either kernel writes
    /// MODE. -1 otherwise.
    int f32_mode() const {
      for (const Program* p : {&k0, &k1})
        for (const Item& it : p->items)
          if (it.kind == Item::Kind::inst && (detail::form_of(it.inst).implicit_defs & isa::reg::mode)) return -1;
      return P.kb_.facts().f32_mode;
    }

    /// A symbolic state standing for every K0 state that has known bits `kb`: known bits are constants, pointer
    /// bits the launch's pointer symbols, the rest fresh variables.
    std::vector<Word> initial_state(const detail::KbState& kb) {
      std::vector<Word> init(detail::num_units);
      for (unsigned u = 0; u < detail::num_units; ++u) {
        const bool lane = u >= detail::unit_v0;
        const std::uint32_t sym = A.symbol(lane);
        const int i = detail::kb_index(u);
        Word w;
        for (unsigned j = 0; j < 32; ++j) w[j] = A.var(sym, j);
        if (i >= 0) {
          const detail::KB& k = kb.units[static_cast<std::size_t>(i)];
          for (unsigned j = 0; j < 32; ++j) {
            if (k.zero >> j & 1) w[j] = detail::bit0;
            else if (k.one >> j & 1) w[j] = detail::bit1;
            else if (k.ptr >> j & 1) w[j] = A.var(k.sym == 1 ? env0.kernarg_sym : env0.dispatch_sym, k.half * 32u + j);
          }
        }
        if (u == detail::unit_scc)
          for (unsigned j = 1; j < 32; ++j) w[j] = detail::bit0;
        init[u] = w;
      }
      return init;
    }

    /// At the kernel entry, v0 holds the work-item id in X (alone, or packed with Y and Z above bit 9). Work-items
    /// fill waves in order of their flattened id, 64 to a wave (AMDGPUUsage, "Work-Item ID"; gfx9 is wave64), so
    /// when the workgroup's X size is a multiple of 64 a wave holds 64 consecutive X ids that start at a multiple of
    /// 64 in one row: bits 0..5 of v0 are the lane number, and the bits above are the same in every lane of the
    /// wave. Bits the known bits already fix stay as they are.
    void lane_ids(std::vector<Word>& init) {
      if (P.kb_.facts().block[0] % 64 != 0) return;
      Word& v0 = init[detail::unit_v0];
      const auto wave = A.symbol(false);
      for (unsigned j = 0; j < 32; ++j) {
        if (detail::BitAlg::is_const(v0[j])) continue;
        if (j < 6) {
          std::vector<Bit> m(64);
          for (unsigned l = 0; l < 64; ++l) m[l] = (l >> j & 1) ? detail::bit1 : detail::bit0;
          v0[j] = A.mux(A.vec(m), detail::bit1, detail::bit0);
        } else {
          v0[j] = A.var(wave, j);
        }
      }
    }

    /// An instruction whose result depends on where the code is placed or on time (detail::side_specific, label
    /// expressions): different on the two sides even when their states are equal.
    [[nodiscard]] static bool placement_dependent(const Inst& in) {
      return detail::side_specific(op_of(in)) || detail::has_expr_value(in);
    }

    /// reaches_window: blocks from which the window's block can be reached; reaches_placement: blocks from which a
    /// block with a placement-dependent instruction can be reached (there, equal states do not end a path).
    void window_reach() {
      auto backward = [&](std::vector<bool>& r, std::vector<std::uint32_t> work) {
        r.assign(g.blocks.size(), false);
        for (auto b : work) r[b] = true;
        while (!work.empty()) {
          const auto b = work.back();
          work.pop_back();
          for (auto p : g.pred[b])
            if (!r[p]) r[p] = true, work.push_back(p);
        }
      };
      backward(reaches_window, {wblock});
      std::vector<std::uint32_t> placed;
      for (std::uint32_t b = 0; b < g.blocks.size(); ++b)
        for (std::size_t i : g.blocks[b].insts)
          if (placement_dependent(k0.items[i].inst)) {
            placed.push_back(b);
            break;
          }
      backward(reaches_placement, placed);
    }

    /// Immediate dominators of the blocks reachable from the kernel entry (Cooper, Harvey, Kennedy: "A Simple, Fast
    /// Dominance Algorithm"); `none` for the others. Computed once per proof.
    static constexpr std::uint32_t none_block = ~0u;
    const std::vector<std::uint32_t>& dominators() {
      if (!idom_.empty()) return idom_;
      const auto entry = P.kb_.entry_block();
      const std::size_t n = g.blocks.size();
      const auto order = g.reverse_post_order(entry);
      rpo_.assign(n, n);
      for (std::size_t i = 0; i < order.size(); ++i) rpo_[order[i]] = i;
      idom_.assign(n, none_block);
      if (entry >= n) return idom_;
      idom_[entry] = entry;
      auto intersect = [&](std::uint32_t a, std::uint32_t b) {
        while (a != b) {
          while (rpo_[a] > rpo_[b]) a = idom_[a];
          while (rpo_[b] > rpo_[a]) b = idom_[b];
        }
        return a;
      };
      for (bool changed = true; changed;) {
        changed = false;
        for (std::uint32_t b : order) {
          if (b == entry) continue;
          std::uint32_t d = none_block;
          for (std::uint32_t p : g.pred[b])
            if (rpo_[p] < n && idom_[p] != none_block) d = d == none_block ? p : intersect(p, d);
          if (d != idom_[b]) idom_[b] = d, changed = true;
        }
      }
      return idom_;
    }
    [[nodiscard]] bool dominates(std::uint32_t a, std::uint32_t b) {
      const auto& id = dominators();
      if (b >= id.size() || id[b] == none_block || a >= id.size() || id[a] == none_block) return false;
      for (std::uint32_t x = b;; x = id[x]) {
        if (x == a) return true;
        if (id[x] == x) return false;
      }
    }

    /// The natural loop headed by block h (the blocks that reach a back edge's source without passing h, for every
    /// back edge into h), or nullptr when h heads none.
    const Loop* loop_at(std::uint32_t h) {
      if (auto it = loops_.find(h); it != loops_.end()) return it->second.exits.empty() && !it->second.usable ? nullptr : &it->second;
      Loop L;
      std::vector<std::uint8_t> in(g.blocks.size(), 0);
      std::vector<std::uint32_t> work;
      for (std::uint32_t t : g.pred[h])
        if (dominates(h, t) && !in[t]) in[t] = 1, work.push_back(t);
      if (work.empty()) {
        loops_.emplace(h, L);
        return nullptr;
      }
      in[h] = 1;
      while (!work.empty()) {
        const auto b = work.back();
        work.pop_back();
        if (b == h) continue;  // a self loop: the header's other predecessors are outside
        for (auto p : g.pred[b])
          if (!in[p]) in[p] = 1, work.push_back(p);
      }
      L.usable = !in[wblock];
      std::vector<std::uint8_t> wrote(detail::num_units, 0);
      for (std::uint32_t b = 0; b < g.blocks.size(); ++b) {
        if (!in[b]) continue;
        if (g.indirect[b]) L.usable = false;
        for (auto sx : g.succ[b])
          if (!in[sx] && std::find(L.exits.begin(), L.exits.end(), sx) == L.exits.end()) L.exits.push_back(sx);
        for (std::size_t i : g.blocks[b].insts) {
          const Inst& in_ = k0.items[i].inst;
          // Not alike on both sides: unmodelled control, and results that depend on placement or time.
          if (detail::refuses(in_) || detail::unmodelable(op_of(in_)) || placement_dependent(in_))
            L.usable = false;
          std::vector<unsigned> rd, wr;
          detail::unit_rw(in_, rd, wr);
          for (unsigned u : wr) wrote[u] = 1;
          if (detail::form_of(in_).implicit_defs & isa::reg::mode) wrote[detail::unit_mode] = 1;  // s_setreg
        }
      }
      for (unsigned u = 0; u < detail::num_units; ++u)
        if (wrote[u]) L.written.push_back(u);
      auto& ref = loops_.emplace(h, std::move(L)).first->second;
      return &ref;
    }

    /// The block highest up the dominator tree of the window's block from which no path to the window goes round a
    /// loop (every path from it to the window passes it once; the window's block is not expanded, so a loop through
    /// the window does not count). The window's block itself when its immediate dominator already fails.
    std::uint32_t loop_free_dominator() {
      const auto entry = P.kb_.entry_block();
      const std::size_t n = g.blocks.size();
      constexpr std::uint32_t none = none_block;
      const auto& idom = dominators();
      if (wblock >= n || idom[wblock] == none) return wblock;
      const auto& reaches = reaches_window;  // window_reach() ran before any start is chosen
      // No cycle among the blocks on paths from d to the window (depth-first search with colours).
      auto loop_free = [&](std::uint32_t d) {
        std::vector<std::uint8_t> colour(n, 0);  // 0 unseen, 1 on the stack, 2 done
        std::vector<std::pair<std::uint32_t, std::size_t>> st{{d, 0}};
        colour[d] = 1;
        std::size_t seen = 1;
        while (!st.empty()) {
          auto& [b, k] = st.back();
          if (b == wblock || k >= g.succ[b].size()) {
            colour[b] = 2;
            st.pop_back();
            continue;
          }
          const auto s = g.succ[b][k++];
          if (!reaches[s]) continue;
          if (colour[s] == 1) return false;
          if (colour[s] == 0) {
            if (++seen > 4096) return false;
            colour[s] = 1;
            st.emplace_back(s, 0);
          }
        }
        return true;
      };
      std::uint32_t best = wblock;
      for (std::uint32_t d = idom[wblock]; d != none; d = idom[d]) {
        if (!loop_free(d)) break;
        best = d;
        if (d == entry) break;
      }
      return best;
    }

    // -- lockstep symbolic execution --

    struct Path {
      std::uint32_t block;
      std::size_t pos;
      bool window_done;
      detail::SymState s0, s1;
      std::unordered_map<std::uint32_t, unsigned> visits;
      std::unordered_map<Bit, Bit> facts;  // terms this path's branch conditions fixed (already applied)
      bool saw_window = false;             // the window ran on this path (for the reason text only)
    };
    struct Cut {
      std::uint32_t block;
      std::size_t pos;  // instruction index in the block where the taint analysis takes over
      std::vector<unsigned> diff;
    };

    std::size_t steps = 0, paths = 0, ended = 0, ended_diff = 0, converged = 0, merges = 0, window_runs = 0,
                step_limit = 0;
    std::vector<Cut> cuts;
    std::string last_converge;

    /// A path about to enter loop header h with both sides in the same state, the window outside the loop: both
    /// sides run the same instructions on the same values, so they leave it in the same state. That state is
    /// summarised instead of unrolled: every register the loop writes gets K0's known bits at the exit and fresh
    /// symbols for the rest, the same on both sides, and loads after it are new loads. What the loop does not write
    /// keeps its terms, and with them the relations (masks and the compares that made them) that unrolling to the
    /// visit limit would lose at the cut. Returns the paths at the exits; nothing when h heads no usable loop.
    std::optional<std::vector<Path>> summarise_loop(const Path& q, std::uint32_t h) {
      const Loop* L = loop_at(h);
      if (!L || !L->usable || !detail::diff_units(q.s0, q.s1).empty()) return std::nullopt;
      ++summaries;
      std::vector<Path> out;
      for (std::uint32_t e : L->exits) {
        const detail::KbState& kb = P.kb_.block_in(e);
        if (!kb.reached) continue;
        Path r = q;
        r.block = e;
        r.pos = 0;
        r.window_done = false;
        const std::vector<Word> fresh = initial_state(kb);
        for (unsigned u : L->written) {
          r.s0.set(u, fresh[u]);
          r.s1.set(u, fresh[u]);
        }
        const std::uint64_t seq = std::max(r.s0.seq(), r.s1.seq()) + 1 + (static_cast<std::uint64_t>(summaries) << 40);
        r.s0.seq() = r.s1.seq() = seq;
        out.push_back(std::move(r));
      }
      return out;
    }

    /// Compares the observations of the two sides of one step; empty when equal.
    std::string compare_obs(const std::vector<std::string>& a, const std::vector<std::string>& b, const std::string& at) {
      if (a == b) return {};
      return "a difference reaches memory or a side effect at " + at;
    }

    /// Exec vector `xv` has a set lane in every execution (shown by SAT when not by its terms).
    bool nonzero(std::uint32_t xv) {
      Bit any = detail::bit0;
      for (Bit b : A.vec_bits(xv)) any = A.or_(any, b);
      if (any == detail::bit1) return true;
      const std::vector<Bit> x{any}, one{detail::bit1};
      return detail::equal_in_lanes(A, {}, x, one, sat);
    }

    /// Compares the observations of one step on both sides; empty when equal. A store that every active lane makes
    /// with the same value to the same address (StepOut::UniformStore) is equal on both sides when its operands are
    /// and both execs are provably not zero, whatever the execs are: one lane or many, the memory ends the same.
    std::string compare_step(const detail::StepOut& a, const detail::StepOut& b, const std::string& at) {
      if (a.obs == b.obs) return {};
      auto uniform = [](const detail::StepOut& s, std::size_t i) -> const detail::StepOut::UniformStore* {
        for (const auto& u : s.uniform_stores)
          if (u.index == i) return &u;
        return nullptr;
      };
      if (a.obs.size() == b.obs.size()) {
        bool same = true;
        for (std::size_t i = 0; i < a.obs.size() && same; ++i) {
          if (a.obs[i] == b.obs[i]) continue;
          const auto* ua = uniform(a, i);
          const auto* ub = uniform(b, i);
          same = ua && ub && ua->key == ub->key && nonzero(ua->exec) && nonzero(ub->exec);
        }
        if (same) {
          ++uniform_stores;
          return {};
        }
      }
      return compare_obs(a.obs, b.obs, at);
    }

    /// The registers a branch condition reads.
    static std::vector<unsigned> cond_units(detail::Control::Cond c) {
      using C = detail::Control::Cond;
      if (c == C::scc0 || c == C::scc1) return {detail::unit_scc};
      const unsigned base = (c == C::vccz || c == C::vccnz) ? detail::unit_vcc : detail::unit_exec;
      return {base, base + 1};
    }

    /// Registers a memory instruction reads (exec too for a vector access).
    static std::vector<unsigned> access_reads(const Inst& in) {
      std::vector<unsigned> rd, wr;
      detail::unit_rw(in, rd, wr);
      if (detail::form_of(in).format != isa::Format::SMEM) {
        rd.push_back(detail::unit_exec);
        rd.push_back(detail::unit_exec + 1);
      }
      std::sort(rd.begin(), rd.end());
      rd.erase(std::unique(rd.begin(), rd.end()), rd.end());
      return rd;
    }

    bool reads_differ(const Path& p, const Inst& in) const {
      for (unsigned u : access_reads(in))
        if (p.s0.get(u) != p.s1.get(u)) return true;
      return false;
    }

    /// After a step of `in`: a register it writes differs between the sides and holds an opaque result on either side
    /// (whose identity is its operands' terms, so equal operands with different terms make different results).
    bool opaque_results_differ(const Path& p, const Inst& in) const {
      std::vector<unsigned> rd, wr;
      detail::unit_rw(in, rd, wr);
      for (unsigned u : wr) {
        const Word w0 = p.s0.get(u), w1 = p.s1.get(u);
        if (w0 == w1) continue;
        // A projection, or one written to the active lanes: mux(exec, projection, old).
        auto opaque = [&](Bit b) {
          const auto& n = A.node(b);
          using K = detail::BitAlg::K;
          return n.k == K::proj || (n.k == K::mux && (A.node(n.b).k == K::proj || A.node(n.c).k == K::proj));
        };
        for (unsigned j = 0; j < 32; ++j)
          if (opaque(w0[j]) || opaque(w1[j])) return true;
      }
      return false;
    }

    /// Before a memory access (or an operation with an opaque result): for each register it reads whose terms differ between the sides, shows by SAT that
    /// the values are equal where they matter (exec and scalar operands everywhere, vector operands in the lanes
    /// exec enables) and then gives K1 a term that is K0's there: K0's term for exec and scalars, mux(exec, K0's,
    /// K1's) for vectors. Each replacement is a term equal to the one it replaces, so this only makes equal values
    /// visible to the id comparison of the observations. Returns whether every differing register was aligned.
    bool align_reads(Path& p, const Inst& in) {
      const bool vector = detail::form_of(in).format != isa::Format::SMEM;
      auto exec_of = [&](detail::SymState& s) { return cond_vec(s, detail::Control::Cond::execz); };
      bool all = true;
      const std::vector<Bit> x0 = exec_of(p.s0);
      if (vector && x0 != exec_of(p.s1)) {
        if (!detail::equal_in_lanes(A, {}, x0, exec_of(p.s1), sat)) return false;
        for (unsigned h = 0; h < 2; ++h) p.s1.set(detail::unit_exec + h, p.s0.get(detail::unit_exec + h));
      }
      const auto mask = A.vec(x0);
      for (unsigned u : access_reads(in)) {
        const Word w0 = p.s0.get(u), w1 = p.s1.get(u);
        if (w0 == w1) continue;
        const bool lanes = vector && u >= detail::unit_v0;
        if (!detail::equal_in_lanes(A, lanes ? std::span<const Bit>(x0) : std::span<const Bit>(), w0, w1, sat)) {
          all = false;
          continue;
        }
        Word r = w0;
        if (lanes)
          for (unsigned j = 0; j < 32; ++j) r[j] = A.mux(mask, w0[j], w1[j]);
        p.s1.set(u, r);
      }
      return all;
    }

    /// Runs the window on both sides of path `p`; empty on success.
    std::string run_window(Path& p) {
      std::vector<std::string> o0, o1;
      for (std::size_t i : w0) {
        const Inst& in = k0.items[i].inst;
        auto r = detail::step(A, p.s0, env0, in);
        if (r.refused) return iid(in) + ": " + r.why;
        o0.insert(o0.end(), r.obs.begin(), r.obs.end());
      }
      for (const Inst* in : w1) {
        auto r = detail::step(A, p.s1, env1, *in);
        if (r.refused) return iid(*in) + " (K1): " + r.why;
        o1.insert(o1.end(), r.obs.begin(), r.obs.end());
      }
      if (o0 != o1)
        return "the changed instructions at " + where() + " access memory or have side effects differently (" +
               std::to_string(o0.size()) + " vs " + std::to_string(o1.size()) + " observable effects, not the same)";
      return {};
    }

    Bit cond_bit(detail::SymState& s, detail::Control::Cond c) {
      using C = detail::Control::Cond;
      if (c == C::scc0 || c == C::scc1) return s.get(detail::unit_scc)[0];
      const unsigned base = (c == C::vccz || c == C::vccnz) ? detail::unit_vcc : detail::unit_exec;
      Bit any = detail::bit0;
      for (unsigned h = 0; h < 2; ++h)
        for (Bit x : s.get(base + h)) any = A.or_(any, x);
      return any;  // "some bit set"
    }
    std::vector<Bit> cond_vec(detail::SymState& s, detail::Control::Cond c) {
      using C = detail::Control::Cond;
      std::vector<Bit> v;
      if (c == C::scc0 || c == C::scc1) return {s.get(detail::unit_scc)[0]};
      const unsigned base = (c == C::vccz || c == C::vccnz) ? detail::unit_vcc : detail::unit_exec;
      for (unsigned h = 0; h < 2; ++h) {
        const Word w = s.get(base + h);
        v.insert(v.end(), w.begin(), w.end());
      }
      return v;
    }

    /// Explores every path from the entry of block `start`, which every path to the window passes through (the
    /// kernel entry, or a block the window's block is reached from only). Values computed on the way are terms, not
    /// K0's path-insensitive known bits.
    ProofResult explore(std::uint32_t start, std::size_t max_steps) {
      steps = paths = ended = ended_diff = converged = merges = window_runs = 0;
      step_limit = max_steps;
      cuts.clear();
      last_converge.clear();
      init_explore = initial_state(P.kb_.block_in(start));
      if (start == P.kb_.entry_block()) lane_ids(init_explore);
      // Paths wait at join blocks in reverse post-order, so that the paths of an if-region meet at its end and are
      // merged there instead of multiplying.
      std::vector<std::size_t> rank(g.blocks.size(), g.blocks.size());
      {
        const auto order = g.reverse_post_order(start);
        for (std::size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
      }
      std::map<std::pair<std::size_t, std::size_t>, Path> queue;
      std::unordered_map<std::uint32_t, std::pair<std::size_t, std::size_t>> waiting;
      std::size_t serial = 0;
      auto push = [&](Path&& q) {
        if (auto it = waiting.find(q.block); it != waiting.end()) {
          merge(queue.at(it->second), q);
          return;
        }
        const std::pair<std::size_t, std::size_t> key{rank[q.block], serial++};
        waiting.emplace(q.block, key);
        queue.emplace(key, std::move(q));
      };
      Path p0{start, 0, false, detail::SymState{&init_explore, {}, 0}, detail::SymState{&init_explore, {}, 0},
              {}, {}, false};
      p0.visits[start] = 1;
      paths = 1;
      queue.emplace(std::pair<std::size_t, std::size_t>{rank[start], serial++}, std::move(p0));
      while (!queue.empty()) {
        Path p = std::move(queue.begin()->second);
        if (auto it = waiting.find(p.block); it != waiting.end() && it->second == queue.begin()->first)
          waiting.erase(it);
        queue.erase(queue.begin());
        if (p.pos == 0 && !p.window_done) {
          // A (possibly merged) path entering its block: done when both sides agree and the window is behind.
          const auto d = detail::diff_units(p.s0, p.s1);
          if (d.empty() && !reaches_window[p.block] && !reaches_placement[p.block]) {
            note_converged(p);
            continue;
          }
        }
        for (;;) {
          const auto& insts = g.blocks[p.block].insts;
          if (p.block == wblock && p.pos == wpos && !p.window_done) {
            if (auto why = run_window(p); !why.empty()) return {false, why};
            ++window_runs;
            p.window_done = true;
            p.saw_window = true;
            p.pos += w0.size();
            continue;
          }
          std::optional<std::uint32_t> next, alt;  // successor blocks (alt: the arm where the condition is clear)
          detail::Control::Cond cond{};
          if (p.pos >= insts.size()) {
            // Falls into the next block.
            if (!g.blocks[p.block].falls_through || g.succ[p.block].empty()) return {false, "a block ends without a successor"};
            next = p.block + 1;
          } else {
            const Inst& in = k0.items[insts[p.pos]].inst;
            if (++steps > step_limit || detail::refuses(in)) {
              // Out of budget, or not modelled (s_setpc, movrel ...): the taint analysis decides from here.
              cuts.push_back({p.block, p.pos, detail::diff_units(p.s0, p.s1)});
              break;
            }
            // A memory access whose operands have different terms on the two sides may still be the same access:
            // if the observations differ, the step is redone after showing the operands equal (align_reads). So may
            // an operation whose result is opaque (a float conversion of two differently selected but equal values):
            // its results are different opaque values unless its operands are first shown equal.
            std::optional<std::pair<detail::SymState, detail::SymState>> before;
            const bool mem = detail::is_memory_form(detail::form_of(in));
            if (reads_differ(p, in)) before.emplace(p.s0, p.s1);
            auto r0 = detail::step(A, p.s0, env0, in);
            auto r1 = detail::step(A, p.s1, env1, in);
            if (before && !r0.refused && !r1.refused && (mem ? r0.obs != r1.obs : opaque_results_differ(p, in))) {
              p.s0 = std::move(before->first);
              p.s1 = std::move(before->second);
              align_reads(p, in);
              r0 = detail::step(A, p.s0, env0, in);
              r1 = detail::step(A, p.s1, env1, in);
            }
            if (r0.refused || r1.refused) return {false, iid(in) + ": " + (r0.refused ? r0.why : r1.why)};
            if (auto why = compare_step(r0, r1, iid(in) + " (" + print_inst(in) + ")"); !why.empty())
              return {false, why + " (differing: " + detail::unit_list(detail::diff_units(p.s0, p.s1)) + ")"};
            using CK = detail::Control::Kind;
            if (r0.ctl.kind == CK::none) {
              ++p.pos;
              continue;
            }
            if (r0.ctl.kind == CK::endpgm) {
              ++ended;
              if (!detail::diff_units(p.s0, p.s1).empty()) ++ended_diff;
              break;
            }
            const auto target = g.block_named(r0.ctl.label);
            if (!target) return {false, iid(in) + " branches to an unknown label " + r0.ctl.label};
            if (r0.ctl.kind == CK::branch) {
              next = *target;
            } else {
              cond = r0.ctl.cond;
              const auto v0 = cond_vec(p.s0, cond), v1 = cond_vec(p.s1, cond);
              if (v0 != v1) {
                // Different terms may be the same value (a mask narrowed by a compare that a later compare implies).
                if (!detail::equal_in_lanes(A, {}, v0, v1, sat))
                  return {false, "a difference reaches the branch condition of " + iid(in) + " (" + print_inst(in) + ")"};
                for (unsigned u : cond_units(cond)) p.s1.set(u, p.s0.get(u));
              }
              using C = detail::Control::Cond;
              const Bit c = cond_bit(p.s0, cond);  // scc value, or "any bit set"
              // taken when: scc1: c; scc0: !c; vccnz/execnz: c; vccz/execz: !c
              const bool taken_if_set = cond == C::scc1 || cond == C::vccnz || cond == C::execnz;
              const std::uint32_t fall = p.block + 1;
              const bool can_fall = g.blocks[p.block].falls_through && fall < g.blocks.size();
              if (c == detail::bit1 || c == detail::bit0) {
                const bool taken = (c == detail::bit1) == taken_if_set;
                if (taken) next = *target;
                else if (can_fall) next = fall;
                else return {false, "a branch falls off the end of the program"};
              } else {
                // Fork: `next` is the arm where the condition bit is set, `alt` where it is clear.
                const std::uint32_t set_arm = taken_if_set ? *target : fall;
                const std::uint32_t clear_arm = taken_if_set ? fall : *target;
                if (!can_fall) return {false, "a branch falls off the end of the program"};
                next = set_arm;
                alt = clear_arm;
              }
            }
          }
          // Move to the successor(s): false when the path is cut there, or replaced by paths past a loop.
          auto enter = [&](Path& q, std::uint32_t b) -> bool {
            if (q.visits[b] == 0) {
              if (auto past = summarise_loop(q, b)) {
                for (Path& r : *past) {
                  if (++paths > P.budget_.max_paths) {
                    cuts.push_back({r.block, 0, {}});
                    continue;
                  }
                  ++r.visits[r.block];
                  push(std::move(r));
                }
                return false;
              }
            }
            q.block = b;
            q.pos = 0;
            q.window_done = false;
            const unsigned v = ++q.visits[b];
            if (v > P.budget_.max_block_visits || steps > step_limit) {
              cuts.push_back({b, 0, detail::diff_units(q.s0, q.s1)});
              return false;
            }
            return true;
          };
          if (alt) {
            if (++paths > P.budget_.max_paths) {
              cuts.push_back({*alt, 0, detail::diff_units(p.s0, p.s1)});
            } else {
              Path q = p;
              apply_arm(q, cond, false);
              if (enter(q, *alt)) push(std::move(q));
            }
            apply_arm(p, cond, true);
          }
          if (!enter(p, *next)) break;
          if (g.pred[*next].size() > 1 || alt) {
            push(std::move(p));  // a join (or a fork's other arm is queued): wait for the others
            break;
          }
          const auto d = detail::diff_units(p.s0, p.s1);
          if (d.empty() && !reaches_window[p.block] && !reaches_placement[p.block]) {
            note_converged(p);
            break;
          }
        }
      }
      return finish();
    }

    /// Applies what an arm of a branch knows: on the clear arm the condition's bits (SCC, or all of VCC/EXEC) are 0,
    /// on the set arm SCC is 1. The known terms are replaced everywhere in both states (they are equal on both sides:
    /// the branch compared them).
    void apply_arm(Path& q, detail::Control::Cond c, bool set_arm) {
      using C = detail::Control::Cond;
      const bool scc = c == C::scc0 || c == C::scc1;
      if (set_arm && !scc) return;
      detail::BitAlg::Subst sub;
      std::vector<unsigned> units;
      if (scc) {
        units = {detail::unit_scc};
        const Bit b = q.s0.get(detail::unit_scc)[0];
        if (!detail::BitAlg::is_const(b)) sub.map.emplace(b, set_arm ? detail::bit1 : detail::bit0);
      } else {
        const unsigned base = (c == C::vccz || c == C::vccnz) ? detail::unit_vcc : detail::unit_exec;
        units = {base, base + 1};
        for (unsigned u : units)
          for (Bit b : q.s0.get(u))
            if (!detail::BitAlg::is_const(b)) sub.map.emplace(b, detail::bit0);
      }
      if (sub.map.empty()) return;
      for (const auto& [k, v] : sub.map) q.facts[k] = v;
      for (detail::SymState* s : {&q.s0, &q.s1}) {
        for (unsigned u : units) s->set(u, s->get(u));  // make them written, so the rewrite below covers them
        for (auto& [u, w] : s->w)
          for (Bit& b : w) b = A.subst(b, sub);
      }
    }

    void note_converged(const Path& p) {
      ++converged;
      if (p.saw_window && last_converge.empty() && !g.blocks[p.block].insts.empty())
        last_converge = iid(k0.items[g.blocks[p.block].insts.front()].inst);
    }

    /// Merges path q into path p (both at the entry of the same block). Per side and bit: equal values stay; a value
    /// of one path that the other path's facts turn into the other's value holds on both (the facts are true on the
    /// other path); otherwise a fresh opaque value of this merge, the same on both sides exactly when both inputs
    /// are (the two sides take the same path). Facts true on both paths are kept.
    void merge(Path& p, Path& q) {
      ++merges;
      detail::BitAlg::Subst sp, sq;
      sp.map = p.facts;
      sq.map = q.facts;
      std::unordered_map<Bit, Bit> common;
      for (const auto& [k, v] : p.facts)
        if (auto it = q.facts.find(k); it != q.facts.end() && it->second == v) common.emplace(k, v);
      const std::string id = "merge" + std::to_string(merges) + "@" + std::to_string(p.block);
      for (int side = 0; side < 2; ++side) {
        detail::SymState& a = side ? p.s1 : p.s0;
        const detail::SymState& b = side ? q.s1 : q.s0;
        std::set<unsigned> us;
        for (const auto& [u, w] : a.w) us.insert(u);
        for (const auto& [u, w] : b.w) us.insert(u);
        for (unsigned u : us) {
          const Word x = a.get(u), y = b.get(u);
          if (x == y) continue;
          Word r;
          for (unsigned j = 0; j < 32; ++j) {
            if (x[j] == y[j] || A.subst(x[j], sq) == y[j]) r[j] = x[j];
            else if (A.subst(y[j], sp) == x[j]) r[j] = y[j];
            else {
              const auto n = A.opaque(id + ":" + std::to_string(u) + ":" + std::to_string(j) + ":" + std::to_string(x[j]) +
                                          ":" + std::to_string(y[j]),
                                      A.is_lane(x[j]) || A.is_lane(y[j]));
              r[j] = A.proj(n, 0);
            }
          }
          a.set(u, r);
        }
        // A fresh range of memory-operation numbers: loads after the merge are new loads on either path.
        a.seq() = std::max(a.seq(), b.seq_) + 1 + (static_cast<std::uint64_t>(merges) << 32);
      }
      for (const auto& [blk, v] : q.visits) p.visits[blk] = std::max(p.visits[blk], v);
      p.facts = std::move(common);
      p.saw_window = p.saw_window || q.saw_window;
    }

    ProofResult same_state_result() {
      std::string known;
      std::set<unsigned> seen;
      for (unsigned u : window_reads) {
        if (!seen.insert(u).second) continue;
        const auto t = detail::known_text(entry_kb, u);
        if (!t.empty()) known += (known.empty() ? "" : ", ") + t;
      }
      std::string written;
      {
        std::vector<unsigned> wr_all;
        for (std::size_t i : w0) {
          std::vector<unsigned> rd, wr;
          detail::unit_rw(k0.items[i].inst, rd, wr);
          wr_all.insert(wr_all.end(), wr.begin(), wr.end());
        }
        std::sort(wr_all.begin(), wr_all.end());
        wr_all.erase(std::unique(wr_all.begin(), wr_all.end()), wr_all.end());
        written = detail::unit_list(wr_all);
      }
      return {true, "same value: K0 and K1 leave every register equal after " + where() +
                        (written.empty() ? std::string() : " (" + written + ")") +
                        (known.empty() ? std::string() : "; known at entry: " + known)};
    }

    /// " (n lane equalities shown by SAT)" when the proof used any.
    std::string sat_note() const {
      std::string t;
      if (sat.proven) t += "; " + std::to_string(sat.proven) + " equalities of differently computed values shown by SAT";
      if (uniform_stores) t += "; " + std::to_string(uniform_stores) + " uniform stores under different non-zero execs";
      return t;
    }

    ProofResult finish() {
      ProofResult r = finish_paths();
      if (r.proven) r.reason += sat_note();
      return r;
    }

    ProofResult finish_paths() {
      const std::string diff = detail::unit_list(window_diff);
      if (cuts.empty()) {
        if (window_runs == 0)
          return {true, "unreachable under the launch: none of the " + std::to_string(paths) +
                            " paths explored reaches " + where() + " (branch conditions the launch fixes)"};
        if (ended_diff == 0)
          return {true, "same value later: " + diff + " may differ after " + where() + " but K0 and K1 agree again" +
                            (last_converge.empty() ? std::string() : " at " + last_converge) + " on every path (" +
                            std::to_string(paths) + " paths)"};
        return {true, "never observed: " + diff + " may differ after " + where() +
                          " but reach no memory access, store, exec or branch on any of " + std::to_string(paths) +
                          " paths to s_endpgm"};
      }
      auto t = taint();
      if (!t.empty()) return {false, t};
      return {true, "dead result: " + diff + " may differ after " + where() +
                        " and are overwritten before any read on every path (" + std::to_string(paths) +
                        " paths explored, then a taint analysis from " + std::to_string(cuts.size()) + " cut points)"};
    }

    // -- taint analysis over the CFG --

    std::string taint() {
      const std::size_t nb = g.blocks.size();
      std::vector<std::vector<bool>> in(nb);
      std::deque<std::uint32_t> work;
      std::vector<bool> queued(nb, false);
      auto merge = [&](std::uint32_t b, const std::vector<bool>& t) {
        // A block reached for the first time is run even with nothing tainted: the window may lie in it or beyond.
        bool ch = in[b].empty();
        if (ch) in[b].assign(detail::num_units, false);
        for (unsigned u = 0; u < t.size(); ++u)
          if (t[u] && !in[b][u]) in[b][u] = true, ch = true;
        if (ch && !queued[b]) queued[b] = true, work.push_back(b);
      };
      // Cut points inside a block continue from there; the rest of the block is run once for them.
      for (const auto& c : cuts) {
        std::vector<bool> t(detail::num_units, false);
        for (unsigned u : c.diff) t[u] = true;
        if (auto why = run_block(c.block, c.pos, t, merge); !why.empty()) return why;
      }
      std::size_t rounds = 0;
      while (!work.empty()) {
        if (++rounds > 100000) return "the taint analysis did not converge";
        const auto b = work.front();
        work.pop_front();
        queued[b] = false;
        std::vector<bool> t = in[b];
        if (auto why = run_block(b, 0, t, merge); !why.empty()) return why;
      }
      return {};
    }

    /// Runs the taint transfer over block b from instruction `start`, then merges into the successors.
    template <class Merge>
    std::string run_block(std::uint32_t b, std::size_t start, std::vector<bool> t, Merge& merge) {
      detail::KbState kb = P.kb_.block_in(b);
      kb.A = &P.kb_.alg();
      const auto& insts = g.blocks[b].insts;
      auto tainted = [&](const std::vector<unsigned>& us) {
        for (unsigned u : us)
          if (t[u]) return true;
        return false;
      };
      for (std::size_t pos = 0; pos <= insts.size(); ++pos) {
        const bool live = pos >= start;  // before `start` only the known bits advance
        if (live && (t[detail::unit_exec] || t[detail::unit_exec + 1]))
          return "exec may differ (a difference reached exec)";
        if (b == wblock && pos == wpos) {
          if (live) {
            // The changed instructions again: a difference in what they read is refused; what they make differ is
            // added.
            if (tainted(window_reads)) return "a difference reaches the changed instructions again (in a loop)";
            for (unsigned u : window_diff) t[u] = true;
          }
          for (std::size_t i : w0) P.kb_.step(kb, k0.items[i].inst);
          pos += w0.size();
          if (pos > insts.size()) break;
        }
        if (pos == insts.size()) break;
        const Inst& in_ = k0.items[insts[pos]].inst;
        if (live) {
          const auto& f = detail::form_of(in_);
          if (one_of(family_of(in_), Family::s_movrel, Family::s_gpr_idx))
            return iid(in_) + " (" + std::string(f.mnemonic) + ") indexes registers at run time, which is not analysed";
          // A call, an indirect jump or a trap return may go to code the CFG does not connect (a callee, an
          // unlabelled address), and other unmodelled instructions change what follows: a live difference there is
          // not followed.
          if (detail::unmodelable(op_of(in_)) && std::find(t.begin(), t.end(), true) != t.end())
            return "a difference (" + detail::unit_list(units_of_set(t)) + ") is live at " + iid(in_) + " (" +
                   print_inst(in_) + "), where control or state goes where this analysis does not follow";
          std::vector<unsigned> rd, wr;
          detail::unit_rw(in_, rd, wr);
          if (tainted(rd)) {
            const bool sink = detail::is_memory_form(f) || f.has(isa::prop::branch) || f.has(isa::prop::terminator) ||
                              f.format == isa::Format::SOPP || detail::unmodelable(op_of(in_)) ||
                              (f.implicit_defs & (isa::reg::exec | isa::reg::mode)) ||
                              f.has(isa::prop::side_effects) ||
                              std::find(wr.begin(), wr.end(), detail::unit_exec) != wr.end() ||
                              std::find(wr.begin(), wr.end(), detail::unit_exec + 1) != wr.end() ||
                              !(f.has(isa::prop::salu) || f.has(isa::prop::valu));
            if (sink)
              return "a difference (" + tainted_names(t, rd) + ") reaches " + iid(in_) + " (" + print_inst(in_) + ")";
            for (unsigned u : wr) t[u] = true;
          } else if (detail::side_specific(op_of(in_)) || detail::has_expr_value(in_) ||
                     detail::unmodelable(op_of(in_))) {
            for (unsigned u : wr) t[u] = true;  // depends on code placement or time: may differ
          } else {
            for (unsigned u : detail::full_writes(in_, KnownBits::exec_full(kb))) t[u] = false;
          }
        }
        P.kb_.step(kb, in_);
      }
      for (auto s : g.succ[b]) merge(s, t);
      return {};
    }

    static std::vector<unsigned> units_of_set(const std::vector<bool>& t) {
      std::vector<unsigned> v;
      for (unsigned u = 0; u < t.size(); ++u)
        if (t[u]) v.push_back(u);
      return v;
    }
    static std::string tainted_names(const std::vector<bool>& t, const std::vector<unsigned>& rd) {
      std::vector<unsigned> v;
      for (unsigned u : rd)
        if (t[u] && std::find(v.begin(), v.end(), u) == v.end()) v.push_back(u);
      return detail::unit_list(v);
    }
  };
};

/// One-shot form of EquivalenceProver: K0's known bits are computed for this call only.
[[nodiscard]] ASMEVO_OUTLINE ProofResult prove_equivalent(const Program& k0, const Program& k1, std::optional<InstId> site,
                                                  const LaunchFacts& facts, ProofBudget budget = {})
#if ASMEVO_BODY_ANALYSIS
{
  auto pv = EquivalenceProver::make(k0, facts, budget);
  if (!pv) return {false, "no analysis of K0: " + pv.error().message};
  return pv->prove(k1, site);
}
#else
;
#endif

/// One-shot form of EquivalenceProver::refute: K0's known bits are computed for this call only.
[[nodiscard]] ASMEVO_OUTLINE Refutation refute_equivalence(const Program& k0, const Program& k1, std::optional<InstId> site,
                                                   const LaunchFacts& facts, ProofBudget budget = {})
#if ASMEVO_BODY_ANALYSIS
{
  auto pv = EquivalenceProver::make(k0, facts, budget);
  if (!pv) return {Refutation::Kind::unknown, std::nullopt, "no analysis of K0: " + pv.error().message, 0};
  return pv->refute(k1, site);
}
#else
;
#endif

}  // namespace asmevo::analysis
