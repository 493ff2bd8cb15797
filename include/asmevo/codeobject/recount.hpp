// What a kernel descriptor and its metadata must say for the registers a kernel's code uses: requirements in
// LLVM's terms, and the recount that raises (or, on request, recomputes) a descriptor's counts after an edit.
//
// Sources: see analysis/resources.hpp ([RUA], [Prog], [Base], [Meta]).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "asmevo/analysis/resources.hpp"
#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::codeobject {

using analysis::RegisterUsage;

/// What a kernel needs its descriptor to allocate, in the terms LLVM uses ([Prog]).
struct Requirements {
  int arch_vgprs = 0;     ///< ArchVGPRs v0..: the usage (the CP's work-item id goes to v0, inside any allocation)
  int agprs = 0;          ///< AccVGPRs
  int accum_offset = 4;   ///< first AccVGPR in the unified file: alignTo(max(1, arch_vgprs), 4)
  int total_vgprs = 0;    ///< accum_offset + agprs with AGPRs, else arch_vgprs ([Base] getTotalNumVGPRs)
  int next_free_sgpr = 0; ///< SGPRs named; with kernarg preload at least the user SGPR count (the assembler's rule)
  int extra_sgprs = 0;    ///< VCC / FLAT_SCRATCH / XNACK_MASK at the top of the allocation ([Base] getNumExtraSGPRs)
  int total_sgprs = 0;    ///< next_free_sgpr + extra_sgprs (what `.sgpr_count` holds)
  int vgpr_blocks = 0;    ///< compute_pgm_rsrc1.granulated_workitem_vgpr_count for total_vgprs
  int sgpr_blocks = 0;    ///< compute_pgm_rsrc1.granulated_wavefront_sgpr_count for total_sgprs
};

/// The requirements of `use` for a kernel launched as `k0` describes (its user SGPR count when it preloads
/// kernargs, its flat-scratch-init user SGPR, which LLVM counts as a FLAT_SCRATCH use). `xnack`: the target ID's
/// xnack is on or "any" (only matters on gfx90a, where FLAT_SCRATCH is not always reserved).
///
/// Like LLVM, SGPRs the CP initialises but the code never names (an unused workgroup id after the user SGPRs) are
/// not counted: LLVM's NumSGPR is the highest SGPR the code uses ([RUA] MRI.isPhysRegUsed), and the assembler
/// only raises `.amdhsa_next_free_sgpr` to the user SGPR count when kernargs are preloaded ([Parser] in
/// codeobject/descriptor.hpp). A kernel `s_endpgm`-ing with only s[0:1] named gets 8 SGPRs from clang-22 although
/// the CP also writes s2. recount() keeps K0's counts as floors by default, so such layouts never shrink below K0.
[[nodiscard]] inline Requirements requirements(const RegisterUsage& use, const KernelDescriptor& k0,
                                               Target t, bool xnack = true) {
  Requirements r;
  r.arch_vgprs = use.vgprs;
  r.agprs = use.agprs;
  r.accum_offset = (std::max(1, use.vgprs) + 3) / 4 * 4;
  r.total_vgprs = use.agprs ? r.accum_offset + use.agprs : use.vgprs;
  r.next_free_sgpr = use.sgprs;
  if (k0.get(field::preload_length)) r.next_free_sgpr = std::max(r.next_free_sgpr, k0.user_sgpr_count());
  const bool fs_init = !has_architected_flat_scratch(t) && k0.get(field::flat_scratch_init);
  r.extra_sgprs = extra_sgprs(t, use.vcc, use.flat_scratch || fs_init, xnack);
  r.total_sgprs = r.next_free_sgpr + r.extra_sgprs;
  r.vgpr_blocks = granulated(r.total_vgprs, vgpr_encoding_granule);
  r.sgpr_blocks = granulated(r.total_sgprs, sgpr_encoding_granule);
  return r;
}

/// How recount() treats counts the code no longer needs.
enum class RecountPolicy : std::uint8_t {
  keep_at_least_original,  ///< never lower a count below K0's (the default: an edit cannot lose registers K0 had)
  exact,                   ///< recount from the code alone, as a compiler would
};

/// The register counts of a kernel's metadata map (`.vgpr_count`, `.agpr_count`, `.sgpr_count`, [Meta]).
struct MetadataCounts {
  std::optional<int> vgpr_count, agpr_count, sgpr_count;
  friend bool operator==(const MetadataCounts&, const MetadataCounts&) = default;
};

/// One thing recount() changed, for a report: a descriptor field (raw value) or a metadata key.
struct Change {
  std::string field;
  std::int64_t before = 0, after = 0;
};

struct RecountOptions {
  bool xnack = true;                          ///< target ID xnack on or "any"
  std::optional<MetadataCounts> k0_metadata;  ///< K0's metadata counts, kept as floors by keep_at_least_original
};

/// The result of recount(): the descriptor to emit, the metadata counts to write, what changed.
struct Recount {
  KernelDescriptor descriptor;
  Requirements needed;
  MetadataCounts metadata;
  std::vector<Change> changes;
};

/// Updates K0's descriptor for the edited code's register usage: granulated VGPR count from ArchVGPRs + AGPRs with
/// accum_offset, granulated SGPR count with the extra SGPRs, and the metadata counts as LLVM defines them
/// ([Meta]: `.sgpr_count` = SGPRs + extras, `.vgpr_count` = accum_offset + AGPRs with AGPRs else ArchVGPRs,
/// `.agpr_count` = AGPRs). Nothing else in the descriptor changes.
///
/// Errors: more than 512 VGPRs + AGPRs, more than 256 of either, more than 102 SGPRs (s0..s101) — the target has
/// no more; and `exact` on code with relative register indexing, whose register count is unknown.
[[nodiscard]] inline Expected<Recount> recount(const KernelDescriptor& k0, Target t,
                                               const RegisterUsage& use,
                                               RecountPolicy policy = RecountPolicy::keep_at_least_original,
                                               const RecountOptions& opt = {}) {
  namespace co = codeobject;
  const auto lim = limits(t);
  const Requirements need = requirements(use, k0, t, opt.xnack);
  const std::string tn(to_string(t));
  if (use.vgprs > lim.vgprs || use.agprs > lim.agprs)
    return fail(DiagCode::unsupported,
                "the code names " + std::to_string(use.vgprs) + " VGPRs and " + std::to_string(use.agprs) +
                    " AGPRs; " + tn + " has " + std::to_string(lim.vgprs) + " of each");
  if (need.total_vgprs > co::max_total_vgprs)
    return fail(DiagCode::unsupported,
                "the code needs " + std::to_string(need.total_vgprs) + " VGPRs (AccVGPRs from " +
                    std::to_string(need.accum_offset) + " + " + std::to_string(need.agprs) + " AGPRs); " + tn +
                    " has " + std::to_string(co::max_total_vgprs));
  if (need.next_free_sgpr > co::max_next_free_sgpr)
    return fail(DiagCode::unsupported,
                "the code needs " + std::to_string(need.next_free_sgpr) + " SGPRs; " + tn + " addresses s0..s" +
                    std::to_string(co::max_next_free_sgpr - 1));
  if (policy == RecountPolicy::exact && use.indirect)
    return fail(DiagCode::unsupported,
                "the code indexes registers relative to M0 (s_movrels/s_movreld/s_set_gpr_idx_on), so the registers "
                "it touches are not known; an exact recount would be a guess",
                Loc{{}, 0, 0, use.first_indirect ? std::optional<std::uint32_t>(use.first_indirect->value) : std::nullopt},
                {}, "use RecountPolicy::keep_at_least_original");

  Recount r;
  r.needed = need;
  r.descriptor = k0;
  const bool keep = policy == RecountPolicy::keep_at_least_original;
  int accum = need.accum_offset;
  int vblocks = need.vgpr_blocks;
  int sblocks = need.sgpr_blocks;
  if (keep) {
    accum = std::max(accum, k0.accum_offset());
    const int total = need.agprs ? accum + need.agprs : need.total_vgprs;
    vblocks = std::max(static_cast<int>(k0.get(co::field::vgpr_blocks)), co::granulated(total, co::vgpr_encoding_granule));
    sblocks = std::max(static_cast<int>(k0.get(co::field::sgpr_blocks)), sblocks);
  }
  // accum <= 256 and AGPRs <= 256 (checked above), so accum + AGPRs always fits the 512 of the unified file.
  auto set = [&](const co::FieldInfo& f, std::int64_t v) {
    const auto before = static_cast<std::int64_t>(r.descriptor.get(f));
    if (before != v) r.changes.push_back(Change{std::string(f.name), before, v});
    r.descriptor.set(f, static_cast<std::uint64_t>(v));
  };
  set(co::field::vgpr_blocks, vblocks);
  set(co::field::sgpr_blocks, sblocks);
  set(co::field::accum_offset, accum / 4 - 1);

  MetadataCounts m;
  m.sgpr_count = need.total_sgprs;
  m.vgpr_count = need.agprs ? accum + need.agprs : need.arch_vgprs;
  m.agpr_count = need.agprs;
  if (keep && opt.k0_metadata) {
    const auto& o = *opt.k0_metadata;
    if (o.sgpr_count) m.sgpr_count = std::max(*m.sgpr_count, *o.sgpr_count);
    if (o.vgpr_count) m.vgpr_count = std::max(*m.vgpr_count, *o.vgpr_count);
    if (o.agpr_count) m.agpr_count = std::max(*m.agpr_count, *o.agpr_count);
  }
  if (opt.k0_metadata) {
    const auto& o = *opt.k0_metadata;
    auto note = [&](const char* key, const std::optional<int>& before, const std::optional<int>& after) {
      if (before && after && *before != *after) r.changes.push_back(Change{key, *before, *after});
    };
    note(".sgpr_count", o.sgpr_count, m.sgpr_count);
    note(".vgpr_count", o.vgpr_count, m.vgpr_count);
    note(".agpr_count", o.agpr_count, m.agpr_count);
  }
  r.metadata = m;
  return r;
}

/// The occupancy a descriptor's allocation allows (its granulated counts and LDS), for `workgroup_size`.
[[nodiscard]] inline int waves_per_simd(Target t, const KernelDescriptor& kd, std::uint32_t workgroup_size) {
  return analysis::waves_per_simd(t, kd.allocated_vgprs(), 0, kd.allocated_sgprs(), kd.group_segment_fixed_size(),
                        workgroup_size);
}

}  // namespace asmevo::codeobject
