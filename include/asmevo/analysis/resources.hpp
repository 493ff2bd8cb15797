// Register resources: what a program uses, what its kernel descriptor and metadata must then say, and occupancy.
//
// Sources:
//   [RUA]   llvm/lib/Target/AMDGPU/AMDGPUResourceUsageAnalysis.cpp analyzeResourceUsage: registers count from the
//           highest index used; VCC when vcc_lo/vcc_hi are used; FLAT_SCRATCH only for non-FLAT uses.
//   [Prog]  llvm/lib/Target/AMDGPU/AMDGPUAsmPrinter.cpp getSIProgramInfo / computeAccumOffset: accum_offset =
//           alignTo(max(1, arch VGPRs), 4); NumSGPR = SGPRs + extra SGPRs; NumVGPR = getTotalNumVGPRs.
//   [Base]  llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp: getTotalNumVGPRs(has90AInsts, AGPRs, VGPRs),
//           getNumExtraSGPRs, getMaxWavesPerEU (8 with gfx90a-insts), getNumWavesPerEUWithNumVGPRs
//           (granule 8, 512 VGPRs), getOccupancyWithNumSGPRs (gfx8+ table), getMaxWorkGroupsPerCU, getEUsPerCU (4),
//           getAddressableLocalMemorySize.
//   [Sub]   llvm/lib/Target/AMDGPU/AMDGPUSubtarget.cpp getOccupancyWithWorkGroupSizes and GCNSubtarget.cpp
//           computeOccupancy: the occupancy LLVM prints as "; Occupancy: N" in its assembly output.
//   [Meta]  llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp getHSAKernelProps: `.sgpr_count` = NumSGPR,
//           `.vgpr_count` = NumVGPR, `.agpr_count` = NumAccVGPR.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::analysis {

/// Registers a piece of code names, explicitly or implicitly. Counts are "highest index + 1" (0: none), so a
/// range counts its last register: `v[4:7]` gives vgprs >= 8.
struct RegisterUsage {
  int vgprs = 0;             ///< ArchVGPRs v0..v(N-1)
  int agprs = 0;             ///< AccVGPRs a0..a(N-1)
  int sgprs = 0;             ///< SGPRs s0..s(N-1); vcc, exec, m0, flat_scratch, xnack_mask, ttmp are not SGPRs here
  bool vcc = false;          ///< vcc / vcc_lo / vcc_hi named, or implied (VOPC e32 writes it, v_addc/v_cndmask e32 read it)
  bool flat_scratch = false; ///< flat_scratch named, or implied by a non-FLAT instruction (s_scratch_*)
  bool xnack_mask = false;   ///< xnack_mask named
  bool ttmp = false;         ///< trap temporaries named (only meaningful in a trap handler)
  /// Relative register indexing (s_movrels/s_movreld through m0, s_set_gpr_idx_on/idx for VGPRs): the registers
  /// actually touched are not known statically, so counts from such code are lower bounds.
  bool indirect = false;
  std::optional<InstId> first_indirect;  ///< the first such instruction

  friend bool operator==(const RegisterUsage&, const RegisterUsage&) = default;
};

namespace detail {

/// Relative-indexing instructions of gfx9 (the S_MOVRELS_B32/B64, S_MOVRELD_B32/B64 and S_SET_GPR_IDX_ON/IDX
/// descriptions of the "AMD Instinct MI300 ISA" and "MI200 ISA" reference guides): they read or write s[base + M0],
/// or offset VGPR operands by an index until s_set_gpr_idx_off. The IR's tables have no property for this, hence
/// the mnemonics.
[[nodiscard]] constexpr bool is_relative_indexing(std::string_view mnemonic) noexcept {
  return mnemonic.starts_with("s_movrels") || mnemonic.starts_with("s_movreld") ||
         mnemonic == "s_set_gpr_idx_on" || mnemonic == "s_set_gpr_idx_idx";
}

inline void note_reg(RegisterUsage& u, const Reg& r) {
  const int end = static_cast<int>(r.index) + static_cast<int>(r.dwords);
  switch (r.file) {
    case RegFile::vgpr: u.vgprs = std::max(u.vgprs, end); break;
    case RegFile::agpr: u.agprs = std::max(u.agprs, end); break;
    case RegFile::sgpr: u.sgprs = std::max(u.sgprs, end); break;
    case RegFile::ttmp: u.ttmp = true; break;
    case RegFile::special:
      // A 64-bit pair is named by its low half with dwords = 2: test the codes it covers.
      for (int c = r.index; c < end; ++c) {
        if (c == special::vcc_lo || c == special::vcc_hi) u.vcc = true;
        if (c == special::flat_scratch_lo || c == special::flat_scratch_hi) u.flat_scratch = true;
        if (c == special::xnack_mask_lo || c == special::xnack_mask_hi) u.xnack_mask = true;
      }
      break;
  }
}

}  // namespace detail

/// Scans every instruction of `items`: every register operand (defs, uses, tied and unprinted slots) and the
/// form's implicit uses and defs. Conservative where it has to be: defs and uses both count; an implicit
/// FLAT_SCRATCH of FLAT/GLOBAL/SCRATCH instructions is not counted, as LLVM does not count it ([RUA]: "implicit
/// uses of flat_scr on flat instructions" are not needed); relative indexing sets `indirect`.
[[nodiscard]] inline RegisterUsage scan(std::span<const Item> items) {
  RegisterUsage u;
  for (const auto& it : items) {
    if (it.kind != Item::Kind::inst) continue;
    const auto forms = isa::forms(it.inst.target);
    if (it.inst.form >= forms.size()) continue;  // a broken Inst: nothing to learn from it
    const auto& f = forms[it.inst.form];
    for (const auto& op : it.inst.ops)
      if (op.is_reg()) detail::note_reg(u, op.reg);
    const auto implicit = f.implicit_uses | f.implicit_defs;
    if (implicit & isa::reg::vcc) u.vcc = true;
    if (implicit & isa::reg::xnack_mask) u.xnack_mask = true;
    const bool flat_format =
        f.format == isa::Format::FLAT || f.format == isa::Format::GLOBAL || f.format == isa::Format::SCRATCH;
    if ((implicit & isa::reg::flat_scratch) && !flat_format) u.flat_scratch = true;
    if (detail::is_relative_indexing(f.mnemonic)) {
      if (!u.indirect) u.first_indirect = it.inst.id;
      u.indirect = true;
    }
  }
  return u;
}

[[nodiscard]] inline RegisterUsage scan(const Program& p) { return scan(std::span<const Item>(p.items)); }

/// The items of kernel `name` in a program holding several functions: from the label `name:` up to its
/// `.size name, …` directive, the next `.amdhsa_kernel` block's entry label, or the end. Empty if no such label.
[[nodiscard]] inline std::span<const Item> kernel_items(const Program& p, std::string_view name) {
  std::vector<std::string_view> entries;
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::kernel) entries.emplace_back(it.kernel.name);
  const auto n = p.items.size();
  std::size_t b = n;
  for (std::size_t i = 0; i < n; ++i)
    if (p.items[i].kind == Item::Kind::label && p.items[i].name == name) { b = i + 1; break; }
  if (b == n) return {};
  std::size_t e = b;
  for (; e < n; ++e) {
    const auto& it = p.items[e];
    if (it.kind == Item::Kind::directive && it.name == ".size") {
      const auto comma = it.text.find(',');
      std::string_view first(it.text);
      first = first.substr(0, comma);
      while (!first.empty() && (first.back() == ' ' || first.back() == '\t')) first.remove_suffix(1);
      while (!first.empty() && (first.front() == ' ' || first.front() == '\t')) first.remove_prefix(1);
      if (first == name) break;
    }
    if (it.kind == Item::Kind::label && it.name != name &&
        std::find(entries.begin(), entries.end(), it.name) != entries.end())
      break;
  }
  return std::span<const Item>(p.items).subspan(b, e - b);
}

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
[[nodiscard]] inline Requirements requirements(const RegisterUsage& use, const codeobject::KernelDescriptor& k0,
                                               Target t, bool xnack = true) {
  Requirements r;
  r.arch_vgprs = use.vgprs;
  r.agprs = use.agprs;
  r.accum_offset = (std::max(1, use.vgprs) + 3) / 4 * 4;
  r.total_vgprs = use.agprs ? r.accum_offset + use.agprs : use.vgprs;
  r.next_free_sgpr = use.sgprs;
  if (k0.get(codeobject::field::preload_length)) r.next_free_sgpr = std::max(r.next_free_sgpr, k0.user_sgpr_count());
  const bool fs_init = !codeobject::has_architected_flat_scratch(t) && k0.get(codeobject::field::flat_scratch_init);
  r.extra_sgprs = codeobject::extra_sgprs(t, use.vcc, use.flat_scratch || fs_init, xnack);
  r.total_sgprs = r.next_free_sgpr + r.extra_sgprs;
  r.vgpr_blocks = codeobject::granulated(r.total_vgprs, codeobject::vgpr_encoding_granule);
  r.sgpr_blocks = codeobject::granulated(r.total_sgprs, codeobject::sgpr_encoding_granule);
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
  codeobject::KernelDescriptor descriptor;
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
[[nodiscard]] inline Expected<Recount> recount(const codeobject::KernelDescriptor& k0, Target t,
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

/// Waves per SIMD (LLVM's "Occupancy [waves/SIMD]") of a kernel with `vgprs` ArchVGPRs, `agprs` AccVGPRs,
/// `sgprs` SGPRs in total (with the VCC/FLAT_SCRATCH/XNACK extras), `lds_bytes` of LDS per workgroup and
/// `workgroup_size` work-items, on gfx90a/gfx942/gfx950. As [Sub] computeOccupancy for one workgroup size:
///  - at most 8 waves per SIMD ([Base] getMaxWavesPerEU with gfx90a-insts), 4 SIMDs per CU ([Base] getEUsPerCU);
///  - VGPRs: 512 per lane, allocated in granules of 8 ([Base] getNumWavesPerEUWithNumVGPRs): min(8, 512 / alignTo(
///    total, 8)), where total = alignTo(vgprs, 4) + agprs with AGPRs, else vgprs ([Base] getTotalNumVGPRs);
///  - SGPRs: <= 80 -> 10, <= 88 -> 9, <= 100 -> 8, else 7 ([Base] getOccupancyWithNumSGPRs, gfx8+);
///  - workgroups per CU: min(LDS per CU / max(lds, 1), 32 / waves per group (16 at most, 32 for 1-wave groups)),
///    then ceil(waves per CU / 4), clamped to 1..8 ([Sub] getOccupancyWithWorkGroupSizes; like LLVM it ignores the
///    LDS allocation granule, so it can be optimistic by one group when LDS is just below a fraction of the CU's).
/// Returns 0 when the kernel cannot be launched at all: more than 512 VGPRs, LDS beyond the CU's (64 KiB; 160 KiB on
/// gfx950), a workgroup of 0 or more than 1024 work-items.
[[nodiscard]] inline int waves_per_simd(Target t, int vgprs, int agprs, int sgprs, std::uint32_t lds_bytes,
                                        std::uint32_t workgroup_size) {
  constexpr int max_waves = 8, simds = 4, wave = 64, granule = 8, total_file = 512;
  const std::uint32_t lds_cu = limits(t).lds_bytes;
  const int total = agprs > 0 ? (std::max(vgprs, 0) + 3) / 4 * 4 + agprs : std::max(vgprs, 0);
  if (total > total_file || lds_bytes > lds_cu || workgroup_size == 0 || workgroup_size > 1024) return 0;
  const int by_vgpr = total < granule ? max_waves
                                      : std::min(std::max(total_file / ((total + granule - 1) / granule * granule), 1),
                                                 max_waves);
  const int by_sgpr = std::min(max_waves, sgprs <= 80 ? 10 : sgprs <= 88 ? 9 : sgprs <= 100 ? 8 : 7);
  const auto waves_per_group = static_cast<int>((workgroup_size + wave - 1) / wave);
  const int groups_by_lds = static_cast<int>(lds_cu / std::max<std::uint32_t>(lds_bytes, 1));
  const int groups_by_slots = waves_per_group == 1 ? max_waves * simds : std::min(max_waves * simds / waves_per_group, 16);
  const int waves_per_cu = waves_per_group * std::min(groups_by_lds, groups_by_slots);
  const int by_groups = std::clamp((waves_per_cu + simds - 1) / simds, 1, max_waves);
  return std::min({by_groups, by_vgpr, by_sgpr});
}

/// The occupancy a descriptor's allocation allows (its granulated counts and LDS), for `workgroup_size`.
[[nodiscard]] inline int waves_per_simd(Target t, const codeobject::KernelDescriptor& kd, std::uint32_t workgroup_size) {
  return waves_per_simd(t, kd.allocated_vgprs(), 0, kd.allocated_sgprs(), kd.group_segment_fixed_size(),
                        workgroup_size);
}

}  // namespace asmevo::analysis
