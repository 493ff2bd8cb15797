// Register resources: what a program uses, and the occupancy a register and LDS budget allows.
// (What a kernel descriptor must then say is codeobject/recount.hpp: analysis/ depends on the IR only.)
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

#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/target.hpp"
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
/// or offset VGPR operands by an index until s_set_gpr_idx_off. The form tables have no property for this, hence
/// the op ids. (v_movrel* do not exist on gfx90a/gfx942/gfx950.)
[[nodiscard]] constexpr bool is_relative_indexing(Opcode o) noexcept {
  return family_of(o) == Family::s_movrel || one_of(o, op::s_set_gpr_idx_on, op::s_set_gpr_idx_idx);
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
    if (detail::is_relative_indexing(op_of(it.inst))) {
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

}  // namespace asmevo::analysis
