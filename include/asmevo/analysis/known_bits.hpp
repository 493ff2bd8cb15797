// Known bits of every scalar and vector register at every point of a kernel, from what its launch fixes (block and
// grid sizes, scalar arguments, the dispatch packet): a forward dataflow analysis to a fixed point over the CFG.
//
// The facts are per bit: known 0, known 1, bit j of the kernarg segment or dispatch packet address, or unknown.
// Scalar facts hold in every execution that reaches the point; vector facts hold in every lane of every wave (a VALU
// write under an exec mask that is not known to be all ones joins the new value with the old one, since inactive
// lanes keep theirs and may become active again). Instruction semantics: detail/int_semantics.hpp. The analysis is
// path-insensitive (both successors of a branch get the same state) and knows nothing of memory other than the
// launch-fixed kernarg and dispatch-packet bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/int_semantics.hpp"
#include "asmevo/analysis/loops.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::analysis {

/// What a launch fixes about a kernel's initial state, as plain data (verify/launch_facts.hpp builds it from a
/// LaunchSpec and the code object). Anything not listed is unknown.
struct LaunchFacts {
  /// The label waves start at (the kernel symbol, or the label after a kernarg-preload prologue).
  std::string entry;
  std::array<std::uint32_t, 3> grid{1, 1, 1};   ///< workgroups per dimension
  std::array<std::uint32_t, 3> block{1, 1, 1};  ///< work-items per workgroup per dimension

  enum class SgprKind : std::uint8_t {
    value,        ///< the bits in `mask` are those of `value`
    below,        ///< an unsigned value < `value` (workgroup ids)
    kernarg_lo,   ///< low / high half of the kernarg segment address
    kernarg_hi,
    dispatch_lo,  ///< low / high half of the dispatch packet address
    dispatch_hi,
  };
  struct Sgpr {
    std::uint16_t index = 0;
    SgprKind kind = SgprKind::value;
    std::uint64_t value = 0;
    std::uint32_t mask = ~0u;
    std::uint8_t dim = 0;  ///< `below`: the grid dimension (0 x, 1 y, 2 z) whose workgroup id it is
  };
  std::vector<Sgpr> sgprs;  ///< initial SGPRs (s0..s101) with a known content

  /// Kernarg preload (AMDGPUUsage "Preloaded Kernel Arguments"): SGPR `preload_sgpr + k` holds kernarg dword
  /// `preload_dword + k` at wave start, for k < preload_count (0: the kernel preloads nothing).
  std::uint16_t preload_sgpr = 0;
  std::uint32_t preload_dword = 0, preload_count = 0;
  /// Byte offsets in the kernarg segment of hidden_block_count_x/y/z, the grid in workgroups (-1: the metadata
  /// declares none).
  std::array<std::int64_t, 3> block_count_offset{-1, -1, -1};
  FixedBytes kernarg;   ///< the kernarg segment: explicit scalar arguments and hidden sizes fixed, pointers not
  FixedBytes dispatch;  ///< the AQL dispatch packet: workgroup and grid sizes fixed
  /// MODE's f32 fields at wave start, from the kernel descriptor: FLOAT_DENORM_MODE_32 in bits 0-1 (bit 0 keeps
  /// input denormals, bit 1 output ones, as in MODE.FP_DENORM) and IEEE_MODE in bit 2. -1: not known.
  int f32_mode = -1;
};

namespace detail {

/// Compact known bits of one 32-bit unit: bits in `zero`/`one` are constants; bits in `ptr` are bit (half*32 + j)
/// of pointer symbol `sym` (1 kernarg, 2 dispatch); the rest are unknown.
struct KB {
  std::uint32_t zero = 0, one = 0, ptr = 0;
  std::uint8_t sym = 0, half = 0;
  friend bool operator==(const KB&, const KB&) = default;
};

inline constexpr unsigned kb_units = 129 + 256;  // scalar codes, SCC, v0..v255 (AGPRs are not tracked)

[[nodiscard]] constexpr int kb_index(unsigned u) noexcept {
  if (u <= unit_scc) return static_cast<int>(u);
  if (u >= unit_v0 && u < unit_v0 + 256) return static_cast<int>(129 + (u - unit_v0));
  return -1;
}

/// A known-bits state: one KB per tracked unit (bottom = not reached).
struct KbState {
  std::vector<KB> units;
  bool reached = false;
  std::uint64_t seq_ = 0;

  // Evaluator access (int_semantics.hpp), through a BitAlg in known-bits mode and the two pointer symbols.
  BitAlg* A = nullptr;
  std::uint32_t sym[3] = {~0u, ~0u, ~0u};

  [[nodiscard]] Word get(unsigned u) const {
    Word w;
    const int i = kb_index(u);
    if (i < 0) {
      w.fill(top);
      return w;
    }
    const KB& k = units[static_cast<std::size_t>(i)];
    for (unsigned j = 0; j < 32; ++j) {
      if (k.zero >> j & 1) w[j] = bit0;
      else if (k.one >> j & 1) w[j] = bit1;
      else if (k.ptr >> j & 1) w[j] = A->var(sym[k.sym], k.half * 32u + j);
      else w[j] = top;
    }
    return w;
  }
  void set(unsigned u, const Word& w) {
    const int i = kb_index(u);
    if (i < 0) return;
    KB k;
    for (unsigned j = 0; j < 32; ++j) {
      if (w[j] == bit0) k.zero |= 1u << j;
      else if (w[j] == bit1) k.one |= 1u << j;
      else if (w[j] != top) {
        // A pointer bit stays one only where it is bit j of the same half of one symbol throughout the unit.
        const auto& n = A->node(w[j]);
        if (n.k != BitAlg::K::var) continue;
        std::uint8_t s = 0;
        for (std::uint8_t c = 1; c <= 2; ++c)
          if (n.a == sym[c]) s = c;
        if (!s || n.b % 32 != j || (k.ptr && (k.sym != s || k.half != n.b / 32))) continue;
        k.ptr |= 1u << j;
        k.sym = s;
        k.half = static_cast<std::uint8_t>(n.b / 32);
      }
    }
    units[static_cast<std::size_t>(i)] = k;
  }
  std::uint64_t& seq() { return seq_; }

  /// Merges `o` into this state (per bit: equal facts stay, others become unknown). True when this state changed.
  bool join(const KbState& o) {
    if (!o.reached) return false;
    if (!reached) {
      units = o.units;
      reached = true;
      return true;
    }
    bool changed = false;
    for (std::size_t i = 0; i < units.size(); ++i) {
      KB& a = units[i];
      const KB& b = o.units[i];
      KB r;
      r.zero = a.zero & b.zero;
      r.one = a.one & b.one;
      if (a.sym == b.sym && a.half == b.half) {
        r.ptr = a.ptr & b.ptr;
        r.sym = r.ptr ? a.sym : 0;
        r.half = r.ptr ? a.half : 0;
      }
      if (!(r == a)) {
        a = r;
        changed = true;
      }
    }
    return changed;
  }
};

inline unsigned bit_length(std::uint64_t v) {
  unsigned n = 0;
  while (v) ++n, v >>= 1;
  return n;
}

}  // namespace detail

/// The fixed-point known bits of one kernel of a program under one launch. Keeps pointers to the program and the
/// facts, which must outlive it.
class KnownBits {
 public:
  /// Runs the analysis. Fails when the entry label names no block or the fixed point is not reached.
  [[nodiscard]] static Expected<KnownBits> analyze(const Program& p, const LaunchFacts& facts) {
    KnownBits kb(p, facts);
    if (auto e = kb.run(); !e) return unexpected(e.error());
    return kb;
  }

  [[nodiscard]] const Program& program() const noexcept { return *p_; }
  [[nodiscard]] const Cfg& cfg() const noexcept { return cfg_; }
  [[nodiscard]] std::uint32_t entry_block() const noexcept { return entry_; }
  [[nodiscard]] const LaunchFacts& facts() const noexcept { return *facts_; }

  /// The state before program item `item` (an instruction), or a state with reached = false when no path from the
  /// entry reaches it. The returned state shares this analysis' BitAlg.
  [[nodiscard]] detail::KbState state_before(std::size_t item) const {
    const std::uint32_t b = item < cfg_.block_of.size() ? cfg_.block_of[item] : Cfg::none;
    detail::KbState s = fresh();
    if (b == Cfg::none || !in_[b].reached) return s;
    s = in_[b];
    s.A = &A_;
    for (std::size_t i : cfg_.blocks[b].insts) {
      if (i == item) break;
      (void)detail::step(A_, s, env_, p_->items[i].inst);
    }
    return s;
  }
  /// Block entry state (reached = false when unreachable).
  [[nodiscard]] const detail::KbState& block_in(std::uint32_t b) const { return in_[b]; }

  /// Runs the semantics of one instruction on a state of this analysis.
  void step(detail::KbState& s, const Inst& in) const { (void)detail::step(A_, s, env_, in); }

  /// Exec is all ones in `s`.
  [[nodiscard]] static bool exec_full(const detail::KbState& s) {
    return s.reached && s.units[detail::unit_exec].one == ~0u && s.units[detail::unit_exec + 1].one == ~0u;
  }

  [[nodiscard]] const detail::EvalEnv& env() const noexcept { return env_; }
  [[nodiscard]] detail::BitAlg& alg() const noexcept { return A_; }

  KnownBits(KnownBits&& o) noexcept
      : p_(o.p_), facts_(o.facts_), cfg_(std::move(o.cfg_)), entry_(o.entry_), A_(std::move(o.A_)), env_(o.env_),
        in_(std::move(o.in_)) {
    for (auto& s : in_) s.A = &A_;
  }
  KnownBits& operator=(KnownBits&&) = delete;

 private:
  KnownBits(const Program& p, const LaunchFacts& f) : p_(&p), facts_(&f), cfg_(build_cfg(p)), A_(false) {
    env_.kernarg = &f.kernarg;
    env_.dispatch = &f.dispatch;
    env_.kernarg_sym = A_.symbol(false, true);
    env_.dispatch_sym = A_.symbol(false, true);
    env_.side = 0;
  }

  [[nodiscard]] detail::KbState fresh() const {
    detail::KbState s;
    s.units.assign(detail::kb_units, detail::KB{});
    s.A = &A_;
    s.sym[1] = env_.kernarg_sym;
    s.sym[2] = env_.dispatch_sym;
    return s;
  }

  /// The state waves start in (AMDGPUUsage "Initial Kernel Execution State").
  [[nodiscard]] detail::KbState initial() const {
    using namespace detail;
    KbState s = fresh();
    s.reached = true;
    for (const auto& g : facts_->sgprs) {
      if (g.index > 101) continue;
      KB& k = s.units[g.index];
      switch (g.kind) {
        case LaunchFacts::SgprKind::value:
          k.one = static_cast<std::uint32_t>(g.value) & g.mask;
          k.zero = ~static_cast<std::uint32_t>(g.value) & g.mask;
          break;
        case LaunchFacts::SgprKind::below: {
          const unsigned n = g.value ? bit_length(g.value - 1) : 0;
          k.zero = n >= 32 ? 0 : ~((1u << n) - 1);
          break;
        }
        case LaunchFacts::SgprKind::kernarg_lo:
        case LaunchFacts::SgprKind::kernarg_hi:
          k.ptr = ~0u, k.sym = 1, k.half = g.kind == LaunchFacts::SgprKind::kernarg_hi;
          break;
        case LaunchFacts::SgprKind::dispatch_lo:
        case LaunchFacts::SgprKind::dispatch_hi:
          k.ptr = ~0u, k.sym = 2, k.half = g.kind == LaunchFacts::SgprKind::dispatch_hi;
          break;
      }
    }
    // EXEC: wave w of a workgroup of N work-items has lanes 0 .. min(64, N - 64w) - 1 active, so lanes below the
    // smallest such count (N mod 64, or 64) are active in every wave; the others are unknown.
    const std::uint64_t items = std::uint64_t{facts_->block[0]} * facts_->block[1] * facts_->block[2];
    const unsigned min_live = items == 0 ? 0 : (items % 64 == 0 ? 64u : static_cast<unsigned>(items % 64));
    for (unsigned h = 0; h < 2; ++h) {
      KB& e = s.units[unit_exec + h];
      for (unsigned j = 0; j < 32; ++j)
        if (h * 32 + j < min_live) e.one |= 1u << j;
    }
    // v0: work-item ids packed as x | y << 10 | z << 20, each below its block dimension (AMDGPUUsage "VGPR
    // work-item ID", packed on gfx90a and later). Known in every lane only when every wave is full: lanes of a
    // partial wave beyond its work-items hold no defined id and may be made active by a kernel that sets exec.
    if (items % 64 == 0) {
      KB& v = s.units[static_cast<std::size_t>(kb_index(unit_v0))];
      std::uint32_t maybe = 0;
      for (unsigned d = 0; d < 3; ++d) {
        const unsigned n = facts_->block[d] ? bit_length(facts_->block[d] - 1) : 0;
        if (n > 10) return s;  // not a packed id (block dims are at most 1024)
        maybe |= ((1u << n) - 1) << (10 * d);
      }
      v.zero = ~maybe;
    }
    return s;
  }

  Expected<void> run() {
    const auto e = cfg_.block_named(facts_->entry);
    if (!e) return fail(DiagCode::usage, "known bits: no block starts at the entry label '" + facts_->entry + "'");
    entry_ = *e;
    in_.assign(cfg_.blocks.size(), fresh());
    in_[entry_] = initial();
    const auto order = cfg_.reverse_post_order(entry_);
    for (int sweep = 0; sweep < 200; ++sweep) {
      bool changed = false;
      for (std::uint32_t b : order) {
        if (!in_[b].reached) continue;
        detail::KbState s = in_[b];
        s.A = &A_;
        for (std::size_t i : cfg_.blocks[b].insts) (void)detail::step(A_, s, env_, p_->items[i].inst);
        for (std::uint32_t t : cfg_.succ[b]) changed |= in_[t].join(s);
      }
      if (!changed) return {};
    }
    return fail(DiagCode::internal, "known bits: no fixed point after 200 sweeps");
  }

  const Program* p_;
  const LaunchFacts* facts_;
  Cfg cfg_;
  std::uint32_t entry_ = 0;
  mutable detail::BitAlg A_;
  detail::EvalEnv env_;
  std::vector<detail::KbState> in_;
};

/// A known 32-bit value of unit `u` in state `s` (every bit known, no pointer bits), or nullopt.
[[nodiscard]] inline std::optional<std::uint32_t> known_value(const detail::KbState& s, unsigned u) {
  const int k = detail::kb_index(u);
  if (!s.reached || k < 0) return std::nullopt;
  const detail::KB& b = s.units[static_cast<std::size_t>(k)];
  if (b.ptr != 0 || (b.zero | b.one) != ~0u) return std::nullopt;
  return b.one;
}

/// Whether the conditional branch `in` is taken in state `s`, when the known bits decide it: s_cbranch_scc0/scc1 on
/// a known SCC. nullopt for any other instruction (s_cbranch_vccz/vccnz included) or an open outcome.
[[nodiscard]] inline std::optional<bool> decided_branch(const detail::KbState& s, const Inst& in) {
  if (!s.reached) return std::nullopt;
  const auto op = loops_detail::loop_op(in).op;
  if (op == loops_detail::Op::cbranch_scc0 || op == loops_detail::Op::cbranch_scc1) {
    const detail::KB& b = s.units[static_cast<std::size_t>(detail::kb_index(detail::unit_scc))];
    if (!((b.zero | b.one) & 1u)) return std::nullopt;
    return ((b.one & 1u) != 0) == (op == loops_detail::Op::cbranch_scc1);
  }
  // s_cbranch_vccz/vccnz read the VCCZ bit, not VCC: on GFX9 a write of VCC_LO or VCC_HI alone does not update it
  // (LLVM GCNSubtarget::partialVCCWritesUpdateVCCZ, true from GFX10 on), so a VCC known in full does not decide them.
  return std::nullopt;
}

/// What a launch guard establishes (passes/specialize.hpp writes such guards, verify/versioning.hpp proves them), as
/// the facts of the code behind it: of `f` (one shape's facts) only the kernarg pointer and dispatch pointer SGPRs,
/// the kernarg dwords `dwords` (dword index, value; and the preload SGPRs holding them), the workgroup id SGPRs
/// `wgids` (SGPR, grid dimension, bound) below their bounds, and EXEC all ones when `full_waves` -- expressed as a
/// block of {1024, 1024, 1024}, which says only that and that each packed work-item id is below 1024, as on any
/// launch. Without it the block is {1, 1, 1}: lane 0 is all of EXEC known to be on, the work-item ids are unknown.
[[nodiscard]] inline LaunchFacts guard_facts(const LaunchFacts& f,
                                             const std::vector<std::pair<std::uint32_t, std::uint32_t>>& dwords,
                                             const std::vector<std::array<std::uint32_t, 3>>& wgids, bool full_waves) {
  LaunchFacts cf;
  cf.entry = f.entry;
  cf.grid = {1, 1, 1};
  cf.block = full_waves ? std::array<std::uint32_t, 3>{1024, 1024, 1024} : std::array<std::uint32_t, 3>{1, 1, 1};
  cf.f32_mode = f.f32_mode;
  cf.preload_sgpr = f.preload_sgpr, cf.preload_dword = f.preload_dword, cf.preload_count = f.preload_count;
  cf.block_count_offset = f.block_count_offset;
  cf.kernarg.bytes = f.kernarg.bytes;
  cf.kernarg.known.assign(f.kernarg.known.size(), 0);
  cf.dispatch.bytes.assign(64, 0);
  cf.dispatch.known.assign(64, 0);
  for (const auto& sg : f.sgprs)
    if (sg.kind != LaunchFacts::SgprKind::value && sg.kind != LaunchFacts::SgprKind::below) cf.sgprs.push_back(sg);
  for (const auto& [d, v] : dwords) {
    for (unsigned by = 0; by < 4; ++by)
      if (4 * std::size_t{d} + by < cf.kernarg.bytes.size()) {
        cf.kernarg.known[4 * d + by] = 0xff;
        cf.kernarg.bytes[4 * d + by] = static_cast<std::uint8_t>(v >> (8 * by));
      }
    if (d >= f.preload_dword && d < f.preload_dword + f.preload_count)
      cf.sgprs.push_back({static_cast<std::uint16_t>(f.preload_sgpr + (d - f.preload_dword)), LaunchFacts::SgprKind::value,
                          v, ~0u});
  }
  for (const auto& w : wgids)
    cf.sgprs.push_back({static_cast<std::uint16_t>(w[0]), LaunchFacts::SgprKind::below, w[2], ~0u,
                        static_cast<std::uint8_t>(w[1])});
  return cf;
}

}  // namespace asmevo::analysis
