// Launch versioning in the differential verifier: recognizes a K1 whose kernel entry starts with a guard comparing
// kernarg dwords with constants, workgroup ids with bounds, or EXEC with all ones (the `specialize` pass's shape), proves statically that the guard's fallback edge
// leads to K0's own code, unchanged, and builds the view of K1 (guard + specialized copy, fallback deleted) that the
// verifier's alignment-based checks compare with K0, plus the perturbed launches that test the copy off its guard.
//
// Shape (labels do not matter: K1 is recovered from bytes and its labels are synthesized):
//   E:  s_load_dword[xN] sA.., s[kp:kp+1], OFF ; s_waitcnt lgkmcnt(0) ; s_cmp_{lg,eq}_{u32,i32} sX, K ;
//       s_cbranch_scc{1,0} F ; ... ; [s_branch X]       -- the guard: acyclic, only such instructions
//       (also s_cmp_ge_u32 sW, B with sW a workgroup id SGPR the guard has not written: the copy runs for ids < B;
//        and s_cmp_{lg,eq}_u64 exec, -1: the copy runs for full waves)
//   C:  the specialized copy (reached when every compare matched)
//   F:  K0's code from E on, instruction for instruction and branch for branch (the fallback)
// Conservative: a K0 whose own entry block looks like a guard (kernarg compares and branches only) makes the guard
// region swallow the fallback's first block, and the K1 is refused; a label in a non-branch operand of the fallback
// (s_add_u32 s0, s0, L@rel32@lo) must keep its name, which recovery may not do; an indirect branch in the fallback
// is refused.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/dependence.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/known_bits.hpp"
#include "asmevo/analysis/liveness.hpp"
#include "asmevo/analysis/loops.hpp"
#include "asmevo/codeobject/compare.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/waitcnt.hpp"
#include "asmevo/launch/kernargs.hpp"
#include "asmevo/launch/dtype.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/linkage.hpp"
#include "asmevo/verify/launch_facts.hpp"

namespace asmevo::verify {

/// One condition the guard checks on the path to the copy. kernarg: the kernarg bytes [offset, offset + 4) hold
/// `value`. wgid: the workgroup id of dimension `dim` (in SGPR `offset`) is below `value`. exec: EXEC is all ones.
struct GuardedDword {
  enum class Kind : std::uint8_t { kernarg, wgid, exec };
  std::uint32_t offset = 0;  ///< kernarg: bytes into the kernarg segment; wgid: the SGPR
  std::uint32_t value = 0;
  Kind kind = Kind::kernarg;
  std::uint8_t dim = 0;
  friend auto operator<=>(const GuardedDword&, const GuardedDword&) = default;
  [[nodiscard]] std::string text(bool negated = false) const {
    char buf[64];
    switch (kind) {
      case Kind::kernarg:
        std::snprintf(buf, sizeof buf, "kernarg 0x%x %s %u", offset, negated ? "!=" : "==", value);
        break;
      case Kind::wgid:
        std::snprintf(buf, sizeof buf, "workgroup id %c (s%u) %s %u", "xyz"[dim % 3], offset, negated ? ">=" : "<", value);
        break;
      case Kind::exec: std::snprintf(buf, sizeof buf, "EXEC %s all ones", negated ? "!=" : "=="); break;
    }
    return buf;
  }
};

/// A versioned kernel of K1, as the static proof found it.
struct VersionedKernel {
  std::string kernel;
  std::size_t shape = 0;                    ///< the first launch spec that runs it
  std::vector<GuardedDword> guard;          ///< checked on every path to the copy, by offset
  InstId copy_first{};                      ///< K1's first instruction of the copy (C)
  std::size_t fallback_insts = 0, fallback_blocks = 0;
  std::unordered_map<std::uint32_t, std::uint32_t> fallback_to_k0;  ///< K1 id -> K0 id, the fallback's instructions
  /// K0's conditional branches whose direction the guard decides (analysis::decided_branch under
  /// analysis::guard_facts): the copy may drop or fix them though no run took their other edge, which no launch the
  /// guard lets into the copy can take.
  std::unordered_set<std::uint32_t> decided0;
  /// K0's instructions in blocks no launch the guard lets into the copy reaches (the decided branches followed only
  /// their way): the copy may drop them though no run executed them.
  std::unordered_set<std::uint32_t> infeasible0;
  /// The instructions of a kernarg-preload prologue before the entry, K0's and K1's ids: proven the same by (f),
  /// their branch to the entry now reaches the guard.
  std::unordered_set<std::uint32_t> prologue0, prologue1;
  [[nodiscard]] bool guards_bytes(std::uint64_t off, std::uint64_t size) const {
    for (std::uint64_t b = off; b < off + size; ++b) {
      bool hit = false;
      for (const auto& g : guard)
        hit = hit || (g.kind == GuardedDword::Kind::kernarg && b >= g.offset && b < g.offset + 4u);
      if (!hit) return false;
    }
    return true;
  }
  /// Whether the guard checks any of the kernarg bytes [off, off+size).
  [[nodiscard]] bool guards_any_byte(std::uint64_t off, std::uint64_t size) const {
    for (const auto& g : guard)
      if (g.kind == GuardedDword::Kind::kernarg && g.offset < off + size && off < g.offset + 4u) return true;
    return false;
  }
  /// Whether the guard checks for full waves.
  [[nodiscard]] bool guards_exec() const {
    for (const auto& g : guard)
      if (g.kind == GuardedDword::Kind::exec) return true;
    return false;
  }
  [[nodiscard]] std::string guard_text() const {
    std::string s;
    for (const auto& g : guard) s += (s.empty() ? "" : ", ") + g.text();
    return s;
  }
};

/// What find_versioning concluded about K1.
struct VersioningAnalysis {
  std::vector<VersionedKernel> kernels;  ///< empty: K1 is not versioned, verify it as any other
  std::string rejection;                 ///< non-empty: a versioned candidate failed the static proof (why)
  std::optional<Program> view;           ///< K1's program without the fallbacks (ids kept), when kernels is non-empty
};

namespace detail {

inline const isa::FormInfo& vform(const Inst& in) { return isa::forms(in.target)[in.form]; }

/// `in` printed without its id, every branch-target label written `<label>`: the block structure is compared apart.
inline std::string vtext(const Inst& in) {
  const auto ops = isa::operands(vform(in));
  Inst copy = in;
  for (std::size_t k = 0; k < ops.size() && k < copy.ops.size(); ++k)
    if (ops[k].kind == isa::Kind::label && copy.ops[k].kind == Operand::Kind::expr) copy.ops[k].text = "<label>";
  return print_inst(copy);
}

inline std::string vid(const Inst& in) { return "i" + std::to_string(in.id.value); }

/// The guard compares: equality or inequality of an SGPR with a constant, setting SCC, as the per-form opcode classes
/// of analysis/loops.hpp (loops_detail::loop_op) name them. `eq`: SCC = (a == b); otherwise SCC = (a != b). `simm16`:
/// the SOPK form, whose 16-bit constant is sign-extended for _i32 and zero-extended for _u32.
struct CompareKind {
  bool eq = true, simm16 = false, sign = false;
  bool ge = false;      ///< s_cmp_ge_u32: SCC = (a >= b), unsigned; `eq` is then false (SCC = 1 is the mismatch)
  bool exec64 = false;  ///< s_cmp_{eq,lg}_u64 on EXEC and a constant
};
inline std::optional<CompareKind> compare_kind(const Inst& in) {
  using analysis::loops_detail::Cond;
  using analysis::loops_detail::Op;
  const auto o = analysis::loops_detail::loop_op(in);
  const bool eq_or_ne = o.cond == Cond::eq || o.cond == Cond::ne;
  if (o.op == Op::cmp64 && eq_or_ne) return CompareKind{o.cond == Cond::eq, false, false, false, true};
  if (o.op != Op::cmp) return std::nullopt;
  if (eq_or_ne) return CompareKind{o.cond == Cond::eq, o.simm16, o.is_signed};
  if (o.cond == Cond::ge && !o.is_signed && !o.simm16) return CompareKind{false, false, false, true, false};
  return std::nullopt;
}

/// s_cbranch_scc0 / s_cbranch_scc1: a conditional direct branch reading SCC, and the value it jumps on (nullopt: not
/// such a branch).
inline std::optional<bool> scc_branch_on(const Inst& in) {
  using analysis::loops_detail::Op;
  const auto op = analysis::loops_detail::loop_op(in).op;
  if (op == Op::cbranch_scc1) return true;
  if (op == Op::cbranch_scc0) return false;
  return std::nullopt;
}

inline bool has_label_operand(const Inst& in) {
  const auto ops = isa::operands(vform(in));
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].kind == isa::Kind::label && in.ops[k].kind == Operand::Kind::expr) return true;
  return false;
}

/// An unconditional direct branch (s_branch): isBranch, isBarrier, a label operand, no call.
inline bool plain_branch(const Inst& in) {
  const auto& f = vform(in);
  return f.has(isa::prop::branch) && f.has(isa::prop::no_fallthrough) && !f.has(isa::prop::indirect_branch) &&
         !f.has(isa::prop::call) && !f.has(isa::prop::cond_branch) && has_label_operand(in);
}

/// s_waitcnt with an immediate: the wait, or nullopt for anything else.
inline std::optional<Waitcnt> wait_of(const Inst& in) {
  const auto ops = isa::operands(vform(in));
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].kind == isa::Kind::waitcnt)
      return in.ops[k].kind == Operand::Kind::imm ? std::optional(decode_waitcnt(in.target, static_cast<std::uint16_t>(in.ops[k].imm)))
                                                   : std::nullopt;
  return std::nullopt;
}

inline bool is_wait(const Inst& in) {
  const auto ops = isa::operands(vform(in));
  for (const auto& o : ops)
    if (o.kind == isa::Kind::waitcnt) return true;
  return false;
}

inline bool smem_load(const Inst& in) {
  const auto& f = vform(in);
  return f.has(isa::prop::smem) && f.has(isa::prop::load) && !f.has(isa::prop::store) && !f.has(isa::prop::atomic);
}

/// What an instruction may be in a guard (the shape only; the proof checks the operands).
inline bool guard_like(const Inst& in) {
  return smem_load(in) || is_wait(in) || compare_kind(in) || scc_branch_on(in) || plain_branch(in);
}

/// An SMEM load's destination, base and immediate offset; nullopt when it has no immediate offset or an SGPR one.
struct SmemLoad {
  Reg dst, base;
  std::uint32_t offset = 0;
};
inline std::optional<SmemLoad> smem_parts(const Inst& in) {
  const auto ops = isa::operands(vform(in));
  SmemLoad s;
  bool dst = false, base = false, off = false;
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const Operand& o = in.ops[k];
    if (o.kind == Operand::Kind::absent) continue;
    if (ops[k].role == isa::Role::def && o.is_reg()) s.dst = o.reg, dst = true;
    else if (ops[k].name == "sbase" && o.is_reg()) s.base = o.reg, base = true;
    else if (ops[k].name == "offset" && o.kind == Operand::Kind::imm) s.offset = static_cast<std::uint32_t>(o.imm), off = true;
    else if (ops[k].name == "soffset" || (ops[k].name == "offset" && o.kind != Operand::Kind::imm)) return std::nullopt;
  }
  if (!dst || !base || !off || s.dst.file != RegFile::sgpr) return std::nullopt;
  return s;
}

/// A compare's SGPR and constant (either order), with the constant as the 32-bit value compared. An s_cmp_ge_u32
/// must have the register first (SCC = reg >= constant); an EXEC compare must compare EXEC with -1 (sgpr is then
/// 0xffff).
struct CompareParts {
  std::uint16_t sgpr = 0;
  std::uint32_t value = 0;
  CompareKind kind;
};
inline std::optional<CompareParts> compare_parts(const Inst& in) {
  const auto kind = compare_kind(in);
  if (!kind) return std::nullopt;
  std::optional<std::uint16_t> reg;
  std::optional<std::int64_t> imm;
  if (kind->exec64) {
    bool exec = false, ones = false;
    for (const Operand& o : in.ops) {
      if (o.kind == Operand::Kind::absent) continue;
      if (o.is_reg() && o.reg.file == RegFile::special && o.reg.index == special::exec_lo && o.reg.dwords == 2) exec = true;
      else if (o.kind == Operand::Kind::imm && o.mods == 0 && o.imm == -1) ones = true;
      else return std::nullopt;
    }
    if (!exec || !ones) return std::nullopt;
    return CompareParts{0xffff, ~0u, *kind};
  }
  for (const Operand& o : in.ops) {
    if (o.kind == Operand::Kind::absent) continue;
    if (o.is_reg()) {
      if (reg || o.reg.file != RegFile::sgpr || o.reg.dwords != 1) return std::nullopt;
      if (kind->ge && imm) return std::nullopt;  // `constant >= reg` is another relation
      reg = o.reg.index;
    } else if (o.kind == Operand::Kind::imm && o.mods == 0) {
      if (imm) return std::nullopt;
      imm = o.imm;
    } else {
      return std::nullopt;
    }
  }
  if (!reg || !imm) return std::nullopt;
  CompareParts c{*reg, 0, *kind};
  if (kind->simm16) {
    const auto v16 = static_cast<std::uint16_t>(*imm);
    c.value = kind->sign ? static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(v16))) : v16;
  } else {
    c.value = static_cast<std::uint32_t>(*imm);
  }
  return c;
}

/// The texts of the code from `start` up to (not into) block `stop`, in reverse post-order: a preload prologue.
inline std::optional<std::vector<std::string>> prologue_text(const Program& p, const analysis::Cfg& g,
                                                             std::uint32_t start, std::uint32_t stop) {
  std::vector<std::string> out;
  std::vector<std::uint8_t> seen(g.blocks.size(), 0);
  std::vector<std::uint32_t> work{start};
  while (!work.empty()) {
    const std::uint32_t b = work.back();
    work.pop_back();
    if (b == stop || seen[b]) continue;
    seen[b] = 1;
    if (out.size() > 4096) return std::nullopt;
    for (const std::size_t i : g.blocks[b].insts) out.push_back(vtext(p.items[i].inst));
    for (auto it = g.succ[b].rbegin(); it != g.succ[b].rend(); ++it) work.push_back(*it);
  }
  return out;
}

}  // namespace detail

/// Finds the versioned kernels of K1 (`m1`) among those `shapes` launch, and proves each guard's fallback is K0's
/// (`m0`) code. A kernel is a candidate when its entry block (analysis::LaunchFacts::entry) differs from K0's and
/// the acyclic region of blocks from it that hold guard instructions only (SMEM loads, s_waitcnt, compares of one
/// SGPR with a constant, s_cmp_lg_u64 exec, -1, s_cbranch_scc0/1, s_branch) has a compare and exactly two exits. Each
/// candidate must then show: (a) every equality compare reads an unmodified kernarg dword (loaded from the kernarg
/// pointer at a dword-aligned immediate offset inside the segment with an lgkmcnt(0) wait between, or a preloaded SGPR
/// the guard does not write), every s_cmp_ge_u32 an unmodified workgroup id SGPR, and the 64-bit compare EXEC;
/// (b) every path on which a compare mismatched reaches one exit F and every all-match path the other, C; (c) K1 from
/// F is K0 from its entry, block for block (equal instruction texts, branch targets and fall-through through an
/// injective block map, and no instruction that computes its own address); (d) the guard writes only SGPRs and SCC
/// dead at K0's entry; (e) the code reachable from C never reaches F's or the guard's; (f) a preload prologue before
/// the entry is K0's. The first failure is `rejection`, naming the place.
[[nodiscard]] ASMEVO_OUTLINE VersioningAnalysis find_versioning(const codeobject::Module& m0, const codeobject::Module& m1,
                                                        std::span<const LaunchSpec> shapes)
#if ASMEVO_BODY_VERIFY
{
  using analysis::Cfg;
  VersioningAnalysis out;
  const Program& p0 = m0.program;
  const Program& p1 = m1.program;
  std::optional<Cfg> g0, g1;
  std::optional<analysis::Liveness> live0;
  std::set<std::string> seen;
  std::vector<std::size_t> erase;                       // K1 item indexes the view drops
  std::vector<std::pair<std::size_t, std::string>> to_branch;  // K1 items the view turns into s_branch LABEL
  auto reject = [&](const std::string& kernel, const std::string& why) {
    out.rejection = "kernel '" + kernel + "': " + why;
    out.kernels.clear();
    return out;
  };
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const LaunchSpec& spec = shapes[si];
    auto f0 = launch_facts(m0, spec);
    auto f1 = launch_facts(m1, spec);
    if (!f0 || !f1) continue;
    const std::string kname = spec.kernel.empty() && m0.kernels.size() == 1 ? m0.kernels[0].name : spec.kernel;
    if (!seen.insert(f0->entry + "/" + kname).second) continue;
    if (!g0) g0 = analysis::build_cfg(p0);
    if (!g1) g1 = analysis::build_cfg(p1);
    const auto e0 = g0->block_named(f0->entry), e1 = g1->block_named(f1->entry);
    if (!e0 || !e1) continue;
    auto block_text = [](const Program& p, const Block& b) {
      std::vector<std::string> t;
      for (const std::size_t i : b.insts) t.push_back(detail::vtext(p.items[i].inst));
      return t;
    };
    if (block_text(p0, g0->blocks[*e0]) == block_text(p1, g1->blocks[*e1])) continue;  // the entry is K0's

    // The guard region: blocks from E1 holding guard instructions only.
    auto guard_only = [&](std::uint32_t b) {
      const Block& blk = g1->blocks[b];
      if (blk.insts.empty()) return false;
      for (const std::size_t i : blk.insts)
        if (!detail::guard_like(p1.items[i].inst)) return false;
      return true;
    };
    if (!guard_only(*e1)) continue;
    std::set<std::uint32_t> region{*e1}, exits;
    std::vector<std::uint32_t> work{*e1};
    bool has_compare = false;
    while (!work.empty()) {
      const std::uint32_t b = work.back();
      work.pop_back();
      for (const std::size_t i : g1->blocks[b].insts) has_compare = has_compare || detail::compare_kind(p1.items[i].inst);
      for (const std::uint32_t s : g1->succ[b]) {
        if (region.count(s)) continue;
        if (guard_only(s) && region.size() < 64) {
          region.insert(s);
          exits.erase(s);
          work.push_back(s);
        } else {
          exits.insert(s);
        }
      }
    }
    if (!has_compare || exits.size() != 2) continue;
    // One exit must begin as K0's entry does (the fallback): an edit of a K0 whose own entry block compares a
    // kernarg and branches (an early exit on n == 0) leaves K0's successors as exits, and is verified as any edit.
    {
      const Block& k0e = g0->blocks[*e0];
      bool fallback_like = false;
      for (const std::uint32_t x : exits) {
        const Block& b = g1->blocks[x];
        fallback_like = fallback_like || (!k0e.insts.empty() && !b.insts.empty() &&
                                          detail::vtext(p0.items[k0e.insts.front()].inst) ==
                                              detail::vtext(p1.items[b.insts.front()].inst));
      }
      if (!fallback_like) continue;
    }
    const std::string& kernel = kname;

    // (a), (b): every path through the guard, with what each SGPR holds.
    const std::uint16_t none16 = 0xffff;
    std::uint16_t kp = none16;
    for (const auto& s : f1->sgprs)
      if (s.kind == analysis::LaunchFacts::SgprKind::kernarg_lo) kp = s.index;
    struct Held {
      std::int64_t offset = -1;  // kernarg byte offset of the dword, -1: not a kernarg dword
      bool pending = false;      // its load may still be in flight
    };
    struct Path {
      std::uint32_t block;
      std::map<std::uint16_t, Held> sgpr;  // written in the guard (absent: the wave-start value)
      std::optional<std::pair<GuardedDword, bool>> scc;  // the last compare and whether SCC = 1 means "equal"
      std::vector<GuardedDword> matched;
      std::string mismatch;  // the first compare this path took as unequal
      std::vector<std::uint32_t> visited;
    };
    std::vector<Path> paths{{*e1, {}, std::nullopt, {}, {}, {}}};
    std::vector<std::pair<std::uint32_t, Path>> done;  // (exit, path)
    const std::string E = "the guard at '" + f1->entry + "'";
    while (!paths.empty()) {
      Path pa = std::move(paths.back());
      paths.pop_back();
      if (!region.count(pa.block)) {
        for (const auto& [r, h] : pa.sgpr)
          if (h.pending)
            return reject(kernel, E + ": the load of s" + std::to_string(r) +
                                      " may still be in flight where the guard ends (no s_waitcnt lgkmcnt(0) after it)");
        done.emplace_back(pa.block, std::move(pa));
        if (done.size() > 256) return reject(kernel, E + " has too many paths to check");
        continue;
      }
      if (std::find(pa.visited.begin(), pa.visited.end(), pa.block) != pa.visited.end())
        return reject(kernel, E + " loops: a guard must be acyclic");
      pa.visited.push_back(pa.block);
      const Block& blk = g1->blocks[pa.block];
      std::optional<std::uint32_t> taken_to;
      bool taken_on_match = false, conditional = false;
      for (const std::size_t i : blk.insts) {
        const Inst& in = p1.items[i].inst;
        const std::string at = "K1 " + detail::vid(in) + " `" + print_inst(in) + "`";
        if (detail::smem_load(in)) {
          const auto l = detail::smem_parts(in);
          if (!l) return reject(kernel, E + ": " + at + " is not a load at an immediate offset");
          const bool base_intact = !pa.sgpr.count(kp) && !pa.sgpr.count(static_cast<std::uint16_t>(kp + 1));
          if (kp == none16 || l->base.file != RegFile::sgpr || l->base.index != kp || l->base.dwords != 2 || !base_intact)
            return reject(kernel, E + ": " + at + " does not load from the kernarg segment pointer");
          if (l->offset % 4 != 0 || l->offset + 4u * l->dst.dwords > f1->kernarg.bytes.size())
            return reject(kernel, E + ": " + at + " loads " +
                                      (l->offset % 4 != 0 ? std::string("at an offset that is not a whole dword")
                                                          : "past the end of the kernarg segment (" +
                                                                std::to_string(f1->kernarg.bytes.size()) + " bytes)"));
          for (std::uint16_t k = 0; k < l->dst.dwords; ++k)
            pa.sgpr[static_cast<std::uint16_t>(l->dst.index + k)] = Held{static_cast<std::int64_t>(l->offset) + 4 * k, true};
        } else if (detail::is_wait(in)) {
          if (const auto w = detail::wait_of(in); w && w->lgkm == 0)
            for (auto& [r, h] : pa.sgpr) h.pending = false;
        } else if (const auto c = detail::compare_parts(in); c && (c->kind.exec64 || c->kind.ge)) {
          GuardedDword gd;
          if (c->kind.exec64) {
            gd.kind = GuardedDword::Kind::exec;
          } else {
            // A workgroup id SGPR as the wave started (the guard has not written it).
            std::optional<std::uint8_t> dim;
            for (const auto& sg : f1->sgprs)
              if (sg.kind == analysis::LaunchFacts::SgprKind::below && sg.index == c->sgpr) dim = sg.dim;
            if (!dim || pa.sgpr.count(c->sgpr))
              return reject(kernel, E + ": " + at + " bounds s" + std::to_string(c->sgpr) +
                                        ", which holds no workgroup id there");
            gd.kind = GuardedDword::Kind::wgid, gd.offset = c->sgpr, gd.value = c->value, gd.dim = *dim;
          }
          pa.scc = std::pair(gd, c->kind.eq);
        } else if (const auto c = detail::compare_parts(in)) {
          std::int64_t off = -1;
          if (const auto it = pa.sgpr.find(c->sgpr); it != pa.sgpr.end()) {
            if (it->second.pending)
              return reject(kernel, E + ": " + at + " reads s" + std::to_string(c->sgpr) +
                                        " before an s_waitcnt lgkmcnt(0) covers its load");
            off = it->second.offset;
          } else if (f1->preload_count > 0 && c->sgpr >= f1->preload_sgpr && c->sgpr < f1->preload_sgpr + f1->preload_count) {
            off = 4 * (static_cast<std::int64_t>(f1->preload_dword) + (c->sgpr - f1->preload_sgpr));
          }
          if (off < 0)
            return reject(kernel, E + ": " + at + " compares s" + std::to_string(c->sgpr) +
                                      ", which holds no kernarg dword there");
          pa.scc = std::pair(GuardedDword{static_cast<std::uint32_t>(off), c->value}, c->kind.eq);
        } else if (detail::compare_kind(in)) {
          return reject(kernel, E + ": " + at + " does not compare one SGPR with a constant");
        } else if (const auto on = detail::scc_branch_on(in)) {
          if (!pa.scc) return reject(kernel, E + ": " + at + " branches on an SCC no guard compare set");
          conditional = true;
          taken_on_match = *on == pa.scc->second;  // SCC == 1 means "equal" for eq compares
          if (const auto t = blk.target ? g1->block_named(*blk.target) : std::nullopt) taken_to = *t;
          else return reject(kernel, E + ": " + at + " branches to an unknown label");
        } else if (detail::plain_branch(in)) {
          if (const auto t = blk.target ? g1->block_named(*blk.target) : std::nullopt) taken_to = *t;
          else return reject(kernel, E + ": " + at + " branches to an unknown label");
        }
      }
      auto next = [&](std::uint32_t to, bool match_side) {
        Path q = pa;
        q.block = to;
        if (conditional) {
          if (match_side) q.matched.push_back(pa.scc->first);
          else if (q.mismatch.empty()) {
            q.mismatch = pa.scc->first.text(true);
          }
        }
        paths.push_back(std::move(q));
      };
      if (taken_to) next(*taken_to, !conditional || taken_on_match);
      if (blk.falls_through) {
        if (pa.block + 1 >= g1->blocks.size()) return reject(kernel, E + " falls off the end of the code");
        next(pa.block + 1, !conditional || !taken_on_match);
      }
    }
    std::optional<std::uint32_t> F, C;
    std::vector<GuardedDword> guarded;
    bool first_match = true;
    for (const auto& [x, pa] : done) {
      std::optional<std::uint32_t>& side = pa.mismatch.empty() ? C : F;
      if (side && *side != x)
        return reject(kernel, E + ": " + (pa.mismatch.empty() ? std::string("two all-match paths reach different code")
                                                                 : "the mismatch edges (" + pa.mismatch +
                                                                       ") do not all reach one fallback"));
      side = x;
      if (pa.mismatch.empty()) {
        std::vector<GuardedDword> m = pa.matched;
        std::sort(m.begin(), m.end());
        m.erase(std::unique(m.begin(), m.end()), m.end());
        if (first_match) guarded = m;
        else {
          std::vector<GuardedDword> both;
          std::set_intersection(guarded.begin(), guarded.end(), m.begin(), m.end(), std::back_inserter(both));
          guarded = both;
        }
        first_match = false;
      }
    }
    if (!F || !C) return reject(kernel, E + " has no " + std::string(!F ? "mismatch edge (fallback)" : "all-match path (copy)"));
    if (*F == *C) return reject(kernel, E + ": a mismatch and the all-match path reach the same code");
    if (guarded.empty()) return reject(kernel, E + ": the all-match path checks nothing");

    // (c) The fallback is K0's code: K0 from E0 and K1 from F in lockstep.
    const std::uint32_t none = Cfg::none;
    std::vector<std::uint32_t> m01(g0->blocks.size(), none), m10(g1->blocks.size(), none);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs{{*e0, *F}};
    VersionedKernel vk;
    vk.kernel = kernel;
    vk.shape = si;
    vk.guard = guarded;
    const std::string not_k0 = "K1's fallback is not K0's code: ";
    while (!pairs.empty()) {
      const auto [b0, b1] = pairs.back();
      pairs.pop_back();
      if (m01[b0] == b1 && m10[b1] == b0) continue;
      const Block& x0 = g0->blocks[b0];
      const Block& x1 = g1->blocks[b1];
      auto first_of = [&](const Block& b, const Program& p) {
        return b.insts.empty() ? std::string("the end of the code")
                               : detail::vid(p.items[b.insts.front()].inst) + " `" + print_inst(p.items[b.insts.front()].inst) + "`";
      };
      if (m01[b0] != none || m10[b1] != none)
        return reject(kernel, not_k0 + "at K0 " + first_of(x0, p0) + " the branch structure differs (K1's block at " +
                                  first_of(x1, p1) + " corresponds to another K0 block)");
      m01[b0] = b1, m10[b1] = b0;
      ++vk.fallback_blocks;
      if (g0->indirect[b0] || g1->indirect[b1])
        return reject(kernel, not_k0 + "at K0 " + first_of(x0, p0) + " an indirect branch leaves the code the proof covers");
      const std::size_t n = std::max(x0.insts.size(), x1.insts.size());
      for (std::size_t k = 0; k < n; ++k) {
        const Inst* a = k < x0.insts.size() ? &p0.items[x0.insts[k]].inst : nullptr;
        const Inst* b = k < x1.insts.size() ? &p1.items[x1.insts[k]].inst : nullptr;
        if (!a || !b || detail::vtext(*a) != detail::vtext(*b))
          return reject(kernel, not_k0 + "at K0 " + (a ? detail::vid(*a) + " `" + print_inst(*a) + "`" : "the end of a block") +
                                    " K1 has " + (b ? "`" + print_inst(*b) + "` (" + detail::vid(*b) + ")" : "the end of the block"));
        if (analysis::reads_own_address(*a))
          return reject(kernel, not_k0 + "K0's `" + print_inst(*a) + "` (" + detail::vid(*a) +
                                    ") computes its own address, which is another in K1's fallback");
        vk.fallback_to_k0.emplace(b->id.value, a->id.value);
        ++vk.fallback_insts;
      }
      if (x0.target.has_value() != x1.target.has_value() || x0.falls_through != x1.falls_through)
        return reject(kernel, not_k0 + "the block at K0 " + first_of(x0, p0) + " is left differently in K1");
      if (x0.target) {
        const auto t0 = g0->block_named(*x0.target), t1 = g1->block_named(*x1.target);
        if (t0.has_value() != t1.has_value() || (!t0 && *x0.target != *x1.target))
          return reject(kernel, not_k0 + "the branch ending the block at K0 " + first_of(x0, p0) + " goes elsewhere in K1");
        if (t0) pairs.emplace_back(*t0, *t1);
      }
      if (x0.falls_through) {
        const bool in0 = b0 + 1 < g0->blocks.size(), in1 = b1 + 1 < g1->blocks.size();
        if (in0 != in1) return reject(kernel, not_k0 + "the block at K0 " + first_of(x0, p0) + " falls through elsewhere in K1");
        if (in0) pairs.emplace_back(b0 + 1, b1 + 1);
      }
    }

    // (e) The copy never enters the fallback or the guard.
    for (const std::uint32_t b : g1->reverse_post_order(*C))
      if (m10[b] != none || region.count(b)) {
        const Block& blk = g1->blocks[b];
        return reject(kernel, "the specialized copy reaches " + std::string(region.count(b) ? "the guard" : "the fallback") +
                                  (blk.insts.empty() ? std::string() : " at K1 " + detail::vid(p1.items[blk.insts.front()].inst)) +
                                  ": the fallback region is shared");
      }
    for (const std::uint32_t b : region)
      if (m10[b] != none) return reject(kernel, "the fallback reaches back into the guard");
    if (g1->blocks[*C].insts.empty()) return reject(kernel, "the specialized copy is empty");
    vk.copy_first = p1.items[g1->blocks[*C].insts.front()].inst.id;

    // (d) The guard writes only SGPRs and SCC that K0 does not read before writing them.
    if (!live0) live0 = analysis::Liveness::compute(p0, *g0);
    if (g0->blocks[*e0].insts.empty()) return reject(kernel, "K0's entry block is empty");
    const analysis::UnitSet live = live0->live_in(g0->blocks[*e0].insts.front());
    for (const std::uint32_t b : region)
      for (const std::size_t i : g1->blocks[b].insts) {
        const Inst& in = p1.items[i].inst;
        std::vector<unsigned> rd, wr;
        analysis::detail::unit_rw(in, rd, wr);
        for (const unsigned u : wr) {
          const bool scalar = u <= 101 || u == analysis::detail::unit_scc;
          if (!scalar || live.test(u))
            return reject(kernel, E + ": K1 " + detail::vid(in) + " `" + print_inst(in) + "` writes " +
                                      analysis::detail::unit_name(u) +
                                      (scalar ? ", which K0 reads at its entry before writing it" : ", not a scalar register"));
        }
        if (detail::vform(in).has(isa::prop::store) || detail::vform(in).has(isa::prop::atomic))
          return reject(kernel, E + ": K1 " + detail::vid(in) + " writes memory");
      }

    // (f) A preload prologue before the entry is K0's.
    if (f0->entry != kernel || f1->entry != kernel) {
      const auto s0 = g0->block_named(kernel), s1 = g1->block_named(kernel);
      std::optional<std::vector<std::string>> t0, t1;
      if (s0 && s1) t0 = detail::prologue_text(p0, *g0, *s0, *e0), t1 = detail::prologue_text(p1, *g1, *s1, *e1);
      if (!t0 || !t1 || *t0 != *t1) return reject(kernel, "K1's kernarg-preload prologue before '" + f1->entry + "' is not K0's");
    }

    // The view: the fallback's instructions go, and so do the guard's edges to it.
    for (std::uint32_t b = 0; b < m10.size(); ++b)
      if (m10[b] != none)
        for (const std::size_t i : g1->blocks[b].insts) erase.push_back(i);
    // A guard block with no compare whose one successor is F (a lone `s_branch F`) belongs to the mismatch side.
    auto f_only = [&](std::uint32_t b) {
      if (b == *F) return true;
      if (!region.count(b) || g1->succ[b].size() != 1 || g1->succ[b][0] != *F) return false;
      for (const std::size_t i : g1->blocks[b].insts)
        if (detail::compare_kind(p1.items[i].inst) || detail::scc_branch_on(p1.items[i].inst)) return false;
      return true;
    };
    for (const std::uint32_t b : region) {
      const Block& blk = g1->blocks[b];
      if (f_only(b)) {
        for (const std::size_t i : blk.insts) erase.push_back(i);
        continue;
      }
      const std::optional<std::uint32_t> t = blk.target ? g1->block_named(*blk.target) : std::nullopt;
      const bool to_f = t && f_only(*t), falls_f = blk.falls_through && b + 1 < g1->blocks.size() && f_only(b + 1);
      if (to_f && falls_f) return reject(kernel, E + ": the view of K1 cannot be built (a guard block only reaches the fallback)");
      if (to_f) erase.push_back(blk.insts.back());
      if (falls_f) {
        const Inst& last = p1.items[blk.insts.back()].inst;
        if (!t || !detail::scc_branch_on(last))
          return reject(kernel, E + ": the view of K1 cannot be built (the guard falls into the fallback without a branch to the copy)");
        to_branch.emplace_back(blk.insts.back(), *blk.target);
      }
    }
    // What the guard decides of K0's branches, from K0's own code under the guard's facts.
    {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> dw;
      std::vector<std::array<std::uint32_t, 3>> wg;
      bool exec = false;
      for (const auto& gd : vk.guard)
        switch (gd.kind) {
          case GuardedDword::Kind::kernarg:
            if (gd.offset % 4 == 0) dw.emplace_back(gd.offset / 4, gd.value);
            break;
          case GuardedDword::Kind::wgid: wg.push_back({gd.offset, gd.dim, gd.value}); break;
          case GuardedDword::Kind::exec: exec = true; break;
        }
      const analysis::LaunchFacts gf = analysis::guard_facts(*f0, dw, wg, exec);
      if (auto kb = analysis::KnownBits::analyze(p0, gf)) {
        std::unordered_map<std::uint32_t, bool> way;  // block ending in a decided branch -> taken
        for (const std::uint32_t b : g0->reverse_post_order(*e0)) {
          const auto& ins = g0->blocks[b].insts;
          if (ins.empty()) continue;
          auto st = kb->state_before(ins.front());
          for (const std::size_t i : ins) {
            if (const auto t = analysis::decided_branch(st, p0.items[i].inst)) {
              vk.decided0.insert(p0.items[i].inst.id.value);
              if (i == ins.back()) way[b] = *t;
            }
            kb->step(st, p0.items[i].inst);
          }
        }
        // What the guard lets run: from E0, a decided branch followed its way only.
        std::vector<std::uint8_t> live(g0->blocks.size(), 0);
        std::vector<std::uint32_t> work{*e0};
        while (!work.empty()) {
          const std::uint32_t b = work.back();
          work.pop_back();
          if (live[b]) continue;
          live[b] = 1;
          const Block& blk = g0->blocks[b];
          const auto w = way.find(b);
          const auto t = blk.target ? g0->block_named(*blk.target) : std::nullopt;
          if (t && (w == way.end() || w->second)) work.push_back(*t);
          if (blk.falls_through && b + 1 < g0->blocks.size() && (w == way.end() || !w->second)) work.push_back(b + 1);
          if (g0->indirect[b])
            for (const std::uint32_t x : g0->succ[b]) work.push_back(x);
        }
        for (const std::uint32_t b : g0->reverse_post_order(*e0))
          if (!live[b])
            for (const std::size_t i : g0->blocks[b].insts) vk.infeasible0.insert(p0.items[i].inst.id.value);
      }
    }
    if (f0->entry != kernel) {
      auto ids = [](const Program& p, const Cfg& g, std::uint32_t from, std::uint32_t stop, std::unordered_set<std::uint32_t>& out) {
        std::vector<std::uint32_t> work{from};
        std::vector<std::uint8_t> seen(g.blocks.size(), 0);
        while (!work.empty()) {
          const std::uint32_t b = work.back();
          work.pop_back();
          if (b == stop || seen[b]) continue;
          seen[b] = 1;
          for (const std::size_t i : g.blocks[b].insts) out.insert(p.items[i].inst.id.value);
          for (const std::uint32_t x : g.succ[b]) work.push_back(x);
        }
      };
      if (const auto s0 = g0->block_named(kernel)) ids(p0, *g0, *s0, *e0, vk.prologue0);
      if (const auto s1 = g1->block_named(kernel)) ids(p1, *g1, *s1, *e1, vk.prologue1);
    }
    out.kernels.push_back(std::move(vk));
  }
  if (out.kernels.empty()) return out;
  Program v = p1;
  // s_branch LABEL for a guard's conditional branch whose fall-through was the fallback: the form found by its
  // properties (an unconditional direct branch of format SOPP), its one operand the label.
  for (const auto& [i, label] : to_branch) {
    Inst& in = v.items[i].inst;
    const auto forms = isa::forms(in.target);
    std::optional<std::uint16_t> br;
    for (std::size_t f = 0; f < forms.size() && !br; ++f) {
      const auto& fi = forms[f];
      const auto ops = isa::operands(fi);
      if (fi.format == isa::Format::SOPP && fi.has(isa::prop::branch) && fi.has(isa::prop::no_fallthrough) &&
          !fi.has(isa::prop::cond_branch) && !fi.has(isa::prop::indirect_branch) && !fi.has(isa::prop::call) &&
          fi.has(isa::prop::asm_matchable) && fi.implicit_uses == 0 && ops.size() == 1 && ops[0].kind == isa::Kind::label)
        br = static_cast<std::uint16_t>(f);
    }
    if (!br) {
      VersioningAnalysis r;
      r.rejection = "the view of K1 cannot be built: no unconditional branch form on this target";
      return r;
    }
    in.form = *br;
    in.ops = {Operand::make_expr(label)};
  }
  std::sort(erase.begin(), erase.end());
  erase.erase(std::unique(erase.begin(), erase.end()), erase.end());
  std::vector<Item> kept;
  kept.reserve(v.items.size());
  for (std::size_t i = 0; i < v.items.size(); ++i)
    if (!std::binary_search(erase.begin(), erase.end(), i)) kept.push_back(std::move(v.items[i]));
  v.items = std::move(kept);
  out.view = std::move(v);
  return out;
}
#else
;
#endif

/// One perturbed launch: shapes[0] of a versioned kernel with one value the guard does not check changed.
struct Perturbation {
  LaunchSpec spec;
  std::string what;  ///< "arg3 (i32) is 999 instead of 1000", "grid x is 3 instead of 4"
};

/// The perturbations of `spec` (the first shape of versioned kernel `vk` of `m`): per explicit scalar argument whose
/// kernarg bytes the guard does not all check, one launch with that value changed (integers v-1, or v+1 when v <= 1;
/// floats 2v+1, or the lowest mantissa bit flipped where that is not finite); per grid dimension whose
/// hidden_block_count dword the guard does not check, one launch with one workgroup more (a copy that assumes the
/// workgroup ids below the grid without a guard bounding them meets an id it did not expect) and, when g > 1, one
/// with one fewer; and, when the guard does not check for full waves, one launch with one work-item fewer in x
/// (a copy that assumes EXEC all ones meets a partial wave), or one wave fewer when it does. At most `max`. A kernel whose metadata cannot be read
/// gives none.
[[nodiscard]] inline std::vector<Perturbation> perturbations(const codeobject::Module& m, const LaunchSpec& spec,
                                                             const VersionedKernel& vk, std::size_t max = 12) {
  std::vector<Perturbation> out;
  auto metas = codeobject::kernels(m.metadata);
  if (!metas) return out;
  auto meta = select_kernel(*metas, spec);
  if (!meta) return out;
  const auto args = (*meta)->explicit_args();
  auto num = [](double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return std::string(buf);
  };
  for (std::size_t a = 0; a < spec.args.size() && a < args.size() && out.size() < max; ++a) {
    // An argument the guard checks in part is left alone: changing it would send the launch to the fallback, which
    // tests nothing of the copy.
    if (spec.args[a].kind != ArgSpec::Kind::scalar || vk.guards_any_byte(args[a]->offset, args[a]->size)) continue;
    const ScalarArg s = spec.args[a].scalar;
    const std::size_t size = dtype_size(s.type);
    const std::uint64_t mask = size >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * size)) - 1;
    std::uint64_t bits = s.bits & mask;
    std::string from, to;
    if (s.type == DType::f32 || s.type == DType::f64) {
      const double v = s.type == DType::f32 ? double(std::bit_cast<float>(static_cast<std::uint32_t>(bits))) : std::bit_cast<double>(bits);
      double w = v * 2 + 1;
      if (s.type == DType::f32) {
        const float wf = static_cast<float>(w);
        bits = std::isfinite(wf) && wf != static_cast<float>(v) ? std::bit_cast<std::uint32_t>(wf) : (bits ^ 1u);
        w = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
      } else {
        bits = std::isfinite(w) && w != v ? std::bit_cast<std::uint64_t>(w) : (bits ^ 1u);
        w = std::bit_cast<double>(bits);
      }
      from = num(v), to = num(w);
    } else if (dtype_is_float(s.type)) {
      from = codeobject::detail::hex64(bits);
      bits ^= 1u;  // the lowest mantissa bit: the exponent, and so finiteness, is kept
      to = codeobject::detail::hex64(bits);
    } else {
      const bool sign = s.type == DType::i8 || s.type == DType::i16 || s.type == DType::i32 || s.type == DType::i64;
      std::int64_t v = static_cast<std::int64_t>(bits);
      if (sign && size < 8 && (bits >> (8 * size - 1)) & 1u) v = static_cast<std::int64_t>(bits | ~mask);
      const bool down = sign ? v > 1 : bits > 1;
      bits = (down ? bits - 1 : bits + 1) & mask;
      std::int64_t w = static_cast<std::int64_t>(bits);
      if (sign && size < 8 && (bits >> (8 * size - 1)) & 1u) w = static_cast<std::int64_t>(bits | ~mask);
      from = sign ? std::to_string(v) : std::to_string(static_cast<std::uint64_t>(v) & mask);
      to = sign ? std::to_string(w) : std::to_string(bits);
    }
    Perturbation p{spec, "arg" + std::to_string(a) + " (" + std::string(dtype_name(s.type)) + ") is " + to +
                             " instead of " + from};
    p.spec.args[a].scalar.bits = bits;
    out.push_back(std::move(p));
  }
  // The grid, through hidden_block_count_x/y/z (launch_facts records where they are).
  auto facts = launch_facts(m, spec);
  for (std::size_t d = 0; d < 3 && out.size() < max; ++d) {
    const std::int64_t off = facts ? facts->block_count_offset[d] : -1;
    if (off >= 0 && vk.guards_bytes(static_cast<std::uint64_t>(off), 4)) continue;
    const std::uint32_t g = spec.grid[d];
    for (const std::uint32_t to : {g + 1, g - 1}) {
      if (to == 0 || out.size() >= max) continue;
      Perturbation p{spec, std::string("grid ") + "xyz"[d] + " is " + std::to_string(to) + " instead of " + std::to_string(g)};
      p.spec.grid[d] = to;
      out.push_back(std::move(p));
    }
  }
  // The block: without a full-wave guard, one work-item fewer in x (a partial wave); with one, one wave fewer, so
  // that the copy runs with full waves but a block size the shapes do not show.
  if (out.size() < max)
    if (auto block = resolve_block(spec, **meta)) {
      const std::uint32_t bx = (*block)[0];
      const std::uint32_t wave = meta.value()->wavefront_size ? meta.value()->wavefront_size : 64u;
      const bool exec = vk.guards_exec();
      if (exec ? bx > wave && bx % wave == 0 : bx > 1) {
        const std::uint32_t to = exec ? bx - wave : bx - 1;
        Perturbation p{spec, "the block's x size is " + std::to_string(to) + " instead of " + std::to_string(bx) +
                                 (exec ? " (one wave fewer)" : " (a partial wave)")};
        p.spec.block = *block;
        (*p.spec.block)[0] = to;
        out.push_back(std::move(p));
      }
    }
  return out;
}

}  // namespace asmevo::verify
