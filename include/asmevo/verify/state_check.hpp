// The state check: where K1 is compared with K0 register by register (the first instruction after each edited
// region, the registers both may still read there) and the first difference the emulator's watch logs show. Not
// here: the runs that record the logs (verify/differential.hpp, emu/watch.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/liveness.hpp"
#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/emu/watch.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/verify/code_alignment.hpp"
#include "asmevo/verify/detail/id_text.hpp"

namespace asmevo::verify {

namespace detail {
/// The register units both kernels allocate: s0..s101 up to the smaller SGPR allocation, VCC, M0, EXEC, SCC, MODE,
/// and the arch and acc VGPRs below both allocations (CDNA's unified file: AccVGPRs from accum_offset on; AMDGPUUsage,
/// "compute_pgm_rsrc3 for GFX90A, GFX942"). FLAT_SCRATCH, XNACK_MASK, trap temporaries and codes that name no
/// register are left out: a call makes every unit live, and only registers a kernel owns may be compared.
[[nodiscard]] inline analysis::UnitSet registers_both_allocate(const codeobject::KernelDescriptor& d0,
                                                               const codeobject::KernelDescriptor& d1) {
  namespace ad = analysis::detail;
  analysis::UnitSet u;
  const int sgprs = std::min({102, d0.allocated_sgprs(), d1.allocated_sgprs()});
  for (int i = 0; i < sgprs; ++i) u.set(static_cast<std::size_t>(i));
  for (const unsigned x : {ad::unit_vcc, ad::unit_vcc + 1, ad::unit_m0, ad::unit_exec, ad::unit_exec + 1, ad::unit_scc,
                           ad::unit_mode})
    u.set(x);
  const int total = std::min(d0.allocated_vgprs(), d1.allocated_vgprs());
  const int arch = std::min({256, total, d0.accum_offset(), d1.accum_offset()});
  const int acc = std::clamp(total - std::max(d0.accum_offset(), d1.accum_offset()), 0, 256);
  for (int i = 0; i < arch; ++i) u.set(ad::unit_v0 + static_cast<unsigned>(i));
  for (int i = 0; i < acc; ++i) u.set(ad::unit_a0 + static_cast<unsigned>(i));
  return u;
}
}  // namespace detail

/// Where the state check compares registers: the first instruction of K0 and of K1 after an edited region, and the
/// registers live there in both.
struct StatePoint {
  std::string kernel;
  InstId at0{}, at1{};
  std::vector<std::uint16_t> units;  ///< analysis units (detail/reg_units.hpp), EXEC always among them
};

/// The state points of every launched kernel: its code is aligned as new_static_findings aligns it, and each
/// matched pair that follows an unmatched region (an insertion, deletion or replacement) is a point, except the
/// pairs a moved instruction passes over (it is unmatched on both sides, in two hunks: the pairs between them see
/// it moved on one side only; the pair after the second hunk is the point). At a point, the registers both kernels
/// may still read (analysis::Liveness) must hold what K0 holds, in every lane EXEC enables, at every visit of every wave: an edit whose difference the
/// output rounding or a masked-off store would hide (a reassociated float sum, a changed exp() range step) shows
/// there. The units are those live at the point in K0 and in K1 (a register renamed in K1 is live in neither
/// under its old name at the point, and the outputs still compare its effect), that both kernels allocate
/// (detail::registers_both_allocate), plus EXEC. At most `max` points, the first in program order.
[[nodiscard]] inline std::vector<StatePoint> state_points(const codeobject::Module& m0, const codeobject::Module& m1,
                                                          std::span<const LaunchSpec> shapes, std::size_t max = 512) {
  std::vector<StatePoint> out;
  const auto run = detail::launched_names(m0, shapes);
  if (!run) return out;
  const analysis::Cfg g0 = analysis::build_cfg(m0.program), g1 = analysis::build_cfg(m1.program);
  std::optional<analysis::Liveness> live0, live1;
  std::unordered_map<std::string, std::uint32_t> tokens;
  for (const auto& k : m0.kernels) {
    if (std::find(run->begin(), run->end(), k.name) == run->end()) continue;
    const auto k1 = std::find_if(m1.kernels.begin(), m1.kernels.end(), [&](const auto& x) { return x.name == k.name; });
    if (k1 == m1.kernels.end()) continue;
    const analysis::UnitSet real = detail::registers_both_allocate(k.descriptor, k1->descriptor);
    const auto c0 = detail::kernel_code(m0.program, g0, k.name), c1 = detail::kernel_code(m1.program, g1, k.name);
    const auto t0 = detail::tokens_of(m0.program, c0, tokens), t1 = detail::tokens_of(m1.program, c1, tokens);
    const auto pairs = align_sequences(t0, t1);
    // Per instruction of each side: the index of the first matched pair after it (pairs.size() past the last).
    auto next_pair = [&](bool k1) {
      std::vector<std::size_t> np(k1 ? c1.size() : c0.size(), pairs.size());
      std::size_t n = pairs.size();
      for (std::size_t i = np.size(); i-- > 0;) {
        while (n > 0 && (k1 ? pairs[n - 1].second : pairs[n - 1].first) >= i) --n;
        np[i] = n;
      }
      return np;
    };
    const auto np0 = next_pair(false), np1 = next_pair(true);
    // A moved instruction is unmatched on both sides (deleted in one hunk, inserted in another): the pairs between
    // the two hunks see it done on one side only, so none of them is a point. Each unmatched K0 instruction is
    // paired with the nearest unmatched K1 instruction of the same text (each used once).
    std::vector<std::uint8_t> matched0(c0.size(), 0), matched1(c1.size(), 0), inside(pairs.size() + 1, 0);
    for (const auto& [a, b] : pairs) matched0[a] = matched1[b] = 1;
    std::unordered_map<std::uint32_t, std::vector<std::size_t>> unmatched1;
    for (std::size_t b = 0; b < c1.size(); ++b)
      if (!matched1[b]) unmatched1[t1[b]].push_back(b);
    for (std::size_t a = 0; a < c0.size(); ++a) {
      if (matched0[a]) continue;
      const auto it = unmatched1.find(t0[a]);
      if (it == unmatched1.end() || it->second.empty()) continue;
      auto& cands = it->second;
      std::size_t best = 0;
      for (std::size_t k = 1; k < cands.size(); ++k)
        if (std::llabs(static_cast<long long>(np1[cands[k]]) - static_cast<long long>(np0[a])) <
            std::llabs(static_cast<long long>(np1[cands[best]]) - static_cast<long long>(np0[a])))
          best = k;
      const std::size_t lo = std::min(np0[a], np1[cands[best]]), hi = std::max(np0[a], np1[cands[best]]);
      for (std::size_t n = lo; n < hi; ++n) inside[n] = 1;
      cands.erase(cands.begin() + static_cast<std::ptrdiff_t>(best));
    }
    for (std::size_t n = 0; n < pairs.size() && out.size() < max; ++n) {
      const auto [a, b] = pairs[n];
      const bool after_edit = n == 0 ? (a > 0 || b > 0) : (pairs[n - 1].first + 1 != a || pairs[n - 1].second + 1 != b);
      if (!after_edit || inside[n]) continue;
      if (!live0) live0 = analysis::Liveness::compute(m0.program, g0);
      if (!live1) live1 = analysis::Liveness::compute(m1.program, g1);
      analysis::UnitSet units = live0->live_in(c0[a]) & live1->live_in(c1[b]) & real;
      units.set(analysis::detail::unit_exec).set(analysis::detail::unit_exec + 1);
      StatePoint p{k.name, m0.program.items[c0[a]].inst.id, m1.program.items[c1[b]].inst.id, {}};
      for (unsigned u = 0; u < units.size(); ++u)
        if (units.test(u)) p.units.push_back(static_cast<std::uint16_t>(u));
      out.push_back(std::move(p));
    }
  }
  return out;
}

/// The first difference between what K0's run (`l0`) and K1's (`l1`) recorded at `points`, in the user's terms, or
/// nothing. A unit a load still owed on either side is not compared. A wave that visits a point a different number
/// of times in K0 and K1 (an unrolled or peeled loop) is not compared there: its visits do not correspond. With
/// `again` (a second run of K0 under another schedule), what K0 itself does not reproduce is not compared either:
/// a value an atomic returned, or that depends on which wave ran first, is the schedule's, not the edit's.
[[nodiscard]] inline std::optional<std::string> state_difference(std::span<const StatePoint> points,
                                                                 const emu::WatchLog& l0, const emu::WatchLog& l1,
                                                                 const emu::WatchLog* again = nullptr) {
  auto where = [&](const emu::WatchKey& k) {
    const StatePoint& p = points[k.point];
    return "at K0 " + detail::id_text(p.at0) + " / K1 " + detail::id_text(p.at1) + " (the first instruction after an "
           "edited region of '" + p.kernel + "'), workgroup (" + std::to_string(k.group[0]) + "," +
           std::to_string(k.group[1]) + "," + std::to_string(k.group[2]) + ") wave " + std::to_string(k.wave);
  };
  static const std::vector<emu::WatchVisit> none;
  auto visits_of = [](const emu::WatchLog& l, const emu::WatchKey& k) -> const std::vector<emu::WatchVisit>& {
    const auto it = l.visits.find(k);
    return it == l.visits.end() ? none : it->second;
  };
  std::set<emu::WatchKey> keys;
  for (const auto& [k, v] : l0.visits) keys.insert(k);
  for (const auto& [k, v] : l1.visits) keys.insert(k);
  for (const auto& k : keys) {
    const auto& v0 = visits_of(l0, k);
    const auto& v1 = visits_of(l1, k);
    const auto* vb = again ? &visits_of(*again, k) : nullptr;
    // A log cut short holds a prefix of the visits; otherwise the counts must agree for the visits to correspond.
    if (!l0.truncated && !l1.truncated && v0.size() != v1.size()) continue;
    if (vb && !again->truncated && !l0.truncated && vb->size() != v0.size()) continue;
    const StatePoint& p = points[k.point];
    for (std::size_t n = 0; n < std::min(v0.size(), v1.size()); ++n)
      for (std::size_t u = 0; u < p.units.size() && u < v0[n].values.size() && u < v1[n].values.size(); ++u) {
        if (v0[n].pending[u] || v1[n].pending[u] || v0[n].values[u] == v1[n].values[u]) continue;
        if (vb && (n >= vb->size() || u >= (*vb)[n].values.size() || (*vb)[n].pending[u] ||
                   (*vb)[n].values[u] != v0[n].values[u]))
          continue;
        const unsigned unit = p.units[u];
        const std::string name = analysis::detail::unit_name(unit);
        std::string what;
        if (unit >= emu::watch_unit::v0) {
          what = name + " differs in the lanes EXEC enables";
        } else {
          char buf[64];
          std::snprintf(buf, sizeof buf, ": K0 0x%llx, K1 0x%llx", static_cast<unsigned long long>(v0[n].values[u]),
                        static_cast<unsigned long long>(v1[n].values[u]));
          what = name + buf;
        }
        return where(k) + ", visit " + std::to_string(n + 1) + ": " + what +
               ", and both kernels may still read it (live there)";
      }
  }
  return std::nullopt;
}

}  // namespace asmevo::verify
