// Static checks of a recovered module, per kernel: s_waitcnt coverage, hazards, and the ABI (the kernel
// descriptor allocates what the code uses).
//
// ABI rules (only what the code and the descriptor decide on their own; sources as in analysis/resources.hpp):
//   abi:vgpr          the code names ArchVGPRs beyond the descriptor's VGPR allocation ((vgpr_blocks + 1) * 8).
//   abi:agpr          AccVGPRs a0..aN live at accum_offset.. in the unified file (gfx90a+; [Prog] computeAccumOffset):
//                     accum_offset + AGPRs beyond the allocation.
//   abi:accum_offset  the code uses AGPRs and ArchVGPRs at or above accum_offset: both name the same physical
//                     registers.
//   abi:sgpr          s0..sN named beyond the SGPR allocation ((sgpr_blocks + 1) * 8) less the extra SGPRs LLVM
//                     reserves at its top for VCC/FLAT_SCRATCH/XNACK_MASK ([Base] getNumExtraSGPRs, which
//                     codeobject::requirements() applies).
//   abi:scratch       the code uses scratch_* instructions but the descriptor enables no private segment
//                     (compute_pgm_rsrc2.ENABLE_PRIVATE_SEGMENT, AMDGPUUsage "compute_pgm_rsrc2") or gives it no
//                     size (private_segment_fixed_size 0 and no dynamic stack).
// Not checked (not decidable from the code alone): flat_* or buffer accesses that reach scratch through an address,
// and which work-item id components (packed in v0 on gfx90a+) the code extracts.
//
// Undefined state (analysis/undefined_reads.hpp):
//   undef:read  (warning) an instruction reads a register that, on some path from the entry, nothing wrote and the
//               launch does not set (AMDGPUUsage "Initial Kernel Execution State": the user SGPRs the descriptor
//               enables, USER_SGPR_COUNT of them, then the enabled system SGPRs; EXEC; MODE from compute_pgm_rsrc1;
//               v0 with the packed work-item ids; FLAT_SCRATCH on gfx942/gfx950 when the private segment is
//               enabled). On hardware such a register holds what an earlier wave left. A warning, since a kernel
//               may read garbage into lanes or bits it later discards; the differential verifier still rejects a K1
//               that adds one.
//
// Values only the hardware decides (analysis/hardware_values.hpp):
//   hwvalue:address, hwvalue:memory, hwvalue:control  (warnings) a clock (s_memtime, s_memrealtime) or the wave's
//               placement (s_getreg of HW_ID, LDS_ALLOC, XCC_ID ...) reaches an address, stored data, or control
//               flow. The emulator makes such values up (seeded per trial, wave and schedule), so runs alone cannot
//               show what another placement would do; a K1 that adds such a path is rejected.
//
// Control-flow rules (the waitcnt and hazard checks are only as sound as the CFG they walk, analysis/cfg.hpp):
//   cfg:unresolved_branch  (error) a branch reachable from the kernel's entry names a label that starts no block
//                          (analysis::Cfg::unresolved): the checks cannot follow it, and the assembler would refuse
//                          or mis-link it. An edit that breaks control flow is rejected here rather than trusted.
//   cfg:indirect_branch    (warning) a reachable branch without a symbolic target (s_setpc_b64, or a branch whose
//                          target is a number): the CFG assumes it may go to any labelled block, which is sound only
//                          if it lands at a label. Production code has such branches, so it is a warning; the
//                          differential verifier still rejects a K1 that adds one (a finding K0 does not have).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/findings.hpp"
#include "asmevo/analysis/hardware_values.hpp"
#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/analysis/resources.hpp"
#include "asmevo/analysis/undefined_reads.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/recount.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::verify {

/// What the static checks found in one kernel (empty `findings`: clean).
struct KernelFindings {
  std::string kernel;           ///< the kernel symbol
  analysis::Findings findings;  ///< rules "cfg:<what>", "waitcnt", "hazard:<row>", "abi:<what>", "undef:read", "hwvalue:<sink>"
};

namespace detail {

/// The ABI findings of one kernel (see the file comment). `items` is the kernel's code; `first` its first
/// instruction's id (where a finding about the whole kernel points).
[[nodiscard]] inline analysis::Findings abi_findings(const codeobject::KernelInfo& k, std::span<const Item> items,
                                                     Target t, bool xnack) {
  analysis::Findings out;
  InstId first{};
  bool have_first = false;
  std::optional<InstId> first_scratch;
  for (const auto& it : items) {
    if (it.kind != Item::Kind::inst) continue;
    if (!have_first) first = it.inst.id, have_first = true;
    const auto forms = isa::forms(it.inst.target);
    if (it.inst.form < forms.size() && forms[it.inst.form].format == isa::Format::SCRATCH && !first_scratch)
      first_scratch = it.inst.id;
  }
  if (!have_first) return out;
  const auto use = analysis::scan(items);
  const auto& kd = k.descriptor;
  const int alloc_v = kd.allocated_vgprs(), accum = kd.accum_offset();
  auto add = [&](std::string rule, std::string msg, InstId at = {}, bool at_given = false) {
    analysis::Finding f;
    f.rule = std::move(rule);
    f.at = at_given ? at : first;
    f.message = "kernel '" + k.name + "': " + std::move(msg);
    out.push_back(std::move(f));
  };
  if (use.vgprs > alloc_v)
    add("abi:vgpr", "the code uses " + std::to_string(use.vgprs) + " VGPRs (v0..v" + std::to_string(use.vgprs - 1) +
                        ") but the descriptor allocates " + std::to_string(alloc_v) + " (granulated_workitem_vgpr_count " +
                        std::to_string(kd.get(codeobject::field::vgpr_blocks)) + ")");
  if (use.agprs > 0 && accum + use.agprs > alloc_v)
    add("abi:agpr", "the code uses " + std::to_string(use.agprs) + " AGPRs, which start at accum_offset " +
                        std::to_string(accum) + ", so it needs " + std::to_string(accum + use.agprs) +
                        " VGPRs; the descriptor allocates " + std::to_string(alloc_v));
  if (use.agprs > 0 && use.vgprs > accum)
    add("abi:accum_offset", "the code uses AGPRs and VGPRs up to v" + std::to_string(use.vgprs - 1) +
                                ", but AGPRs start at accum_offset " + std::to_string(accum) +
                                ": v" + std::to_string(accum) + ".. and a0.. are the same registers");
  const auto need = codeobject::requirements(use, kd, t, xnack);
  if (need.next_free_sgpr + need.extra_sgprs > kd.allocated_sgprs())
    add("abi:sgpr", "the code names " + std::to_string(use.sgprs) + " SGPRs" +
                        (need.extra_sgprs ? " and needs " + std::to_string(need.extra_sgprs) +
                                                " more for VCC/FLAT_SCRATCH/XNACK_MASK"
                                          : std::string{}) +
                        " but the descriptor allocates " + std::to_string(kd.allocated_sgprs()) +
                        " (granulated_wavefront_sgpr_count " + std::to_string(kd.get(codeobject::field::sgpr_blocks)) +
                        ")");
  if (first_scratch) {
    if (!kd.get(codeobject::field::enable_private_segment))
      add("abi:scratch", "the code uses scratch instructions but the descriptor does not enable the private segment "
                         "(enable_private_segment 0)", *first_scratch, true);
    else if (kd.private_segment_fixed_size() == 0 && !kd.get(codeobject::field::uses_dynamic_stack))
      add("abi:scratch", "the code uses scratch instructions but the descriptor's private segment is 0 bytes "
                         "(private_segment_fixed_size 0, no dynamic stack)", *first_scratch, true);
  }
  return out;
}

/// The control-flow findings (see the file comment) of the kernel entered at block `entry` of `g`, in block order.
[[nodiscard]] inline analysis::Findings cfg_findings(const Program& p, const analysis::Cfg& g, std::uint32_t entry,
                                                     std::string_view kernel) {
  analysis::Findings out;
  std::vector<std::uint32_t> blocks = g.reverse_post_order(entry);
  std::sort(blocks.begin(), blocks.end());
  for (const std::uint32_t b : blocks) {
    const Block& blk = g.blocks[b];
    if (blk.insts.empty()) continue;
    const Inst& last = p.items[blk.insts.back()].inst;
    const auto forms = isa::forms(last.target);
    const std::string mnem = last.form < forms.size() ? std::string(forms[last.form].mnemonic) : std::string("?");
    const std::string at = "i" + std::to_string(last.id.value) + " (" + mnem + ")";
    if (blk.target && !g.block_named(*blk.target)) {
      analysis::Finding f;
      f.rule = "cfg:unresolved_branch";
      f.at = last.id;
      f.message = "kernel '" + std::string(kernel) + "': " + at + " branches to '" + *blk.target +
                  "', which is not a label of the program: control flow cannot be followed from here, so the "
                  "waitcnt and hazard checks of the code it reaches are not sound";
      out.push_back(std::move(f));
    } else if (g.indirect[b]) {
      analysis::Finding f;
      f.rule = "cfg:indirect_branch";
      f.severity = analysis::Severity::warning;
      f.at = last.id;
      f.message = "kernel '" + std::string(kernel) + "': " + at +
                  " is an indirect branch (no symbolic target); the checks assume it may reach every labelled "
                  "block, which holds only if it lands on a label";
      out.push_back(std::move(f));
    }
  }
  return out;
}

/// The register units the launch sets before kernel `k` runs (see the file comment, "undef:read").
[[nodiscard]] inline analysis::UnitSet defined_at_entry(const codeobject::KernelDescriptor& kd, Target t) {
  using namespace codeobject;
  namespace ad = analysis::detail;
  analysis::UnitSet d;
  const unsigned user = static_cast<unsigned>(kd.get(field::user_sgpr_count));
  unsigned system = 0;
  for (const auto f : {field::workgroup_id_x, field::workgroup_id_y, field::workgroup_id_z, field::workgroup_info})
    system += kd.get(f) ? 1u : 0u;
  const bool arch_fs = has_architected_flat_scratch(t);
  const bool private_segment = kd.get(field::enable_private_segment) != 0;
  if (private_segment && !arch_fs) ++system;  // the Scratch Wavefront Offset
  for (unsigned s = 0; s < user + system && s <= 101; ++s) d.set(s);
  d.set(ad::unit_exec);
  d.set(ad::unit_exec + 1);
  d.set(ad::unit_mode);
  d.set(ad::unit_v0);  // work-item ids, packed x | y << 10 | z << 20 on gfx90a+ (all of asmevo's targets)
  if (arch_fs && private_segment) {
    d.set(special::flat_scratch_lo);
    d.set(special::flat_scratch_hi);
  }
  return d;
}

/// The target ID's xnack setting is on or "any" (codeobject::requirements counts XNACK_MASK then).
[[nodiscard]] inline bool xnack_on_or_any(std::string_view target_id) {
  return target_id.find("xnack-") == std::string_view::npos;
}

}  // namespace detail

/// Runs every static check on every kernel of `m`, in the module's kernel order: the control-flow rules, the waitcnt
/// check (analysis/waitcnt_check.hpp), the hazard check (analysis/hazard_check.hpp), reads of undefined registers
/// (analysis/undefined_reads.hpp), hardware-decided values reaching memory or control (analysis/hardware_values.hpp),
/// and the ABI rules of the file comment. Fails only when the module cannot be checked at all (a kernel whose entry label is not in the program).
[[nodiscard]] inline Expected<std::vector<KernelFindings>> static_check(const codeobject::Module& m) {
  std::vector<KernelFindings> out;
  const analysis::Cfg g = analysis::build_cfg(m.program);
  const bool xnack = detail::xnack_on_or_any(m.target_id);
  for (const auto& k : m.kernels) {
    const auto entry = g.block_named(k.name);
    if (!entry)
      return fail(DiagCode::object_error, "kernel '" + k.name + "' has no entry label in the program", Loc{m.file, 0, 0, {}});
    KernelFindings kf;
    kf.kernel = k.name;
    kf.findings = detail::cfg_findings(m.program, g, *entry, k.name);
    for (auto& f : analysis::check_waitcnt(m.program, g, *entry, m.target)) kf.findings.push_back(std::move(f));
    for (auto& f : analysis::check_hazards(m.program, g, *entry, m.target, xnack)) kf.findings.push_back(std::move(f));
    for (auto& f : analysis::check_undefined_reads(m.program, g, *entry, detail::defined_at_entry(k.descriptor, m.target), k.name))
      kf.findings.push_back(std::move(f));
    for (auto& f : analysis::check_hardware_values(m.program, g, *entry, k.name)) kf.findings.push_back(std::move(f));
    for (auto& f : detail::abi_findings(k, analysis::kernel_items(m.program, k.name), m.target, xnack))
      kf.findings.push_back(std::move(f));
    out.push_back(std::move(kf));
  }
  return out;
}

}  // namespace asmevo::verify
