// Recounts the registers each kernel of a program uses and rewrites its `.amdhsa_kernel` block and metadata counts.
//
// Used by rebuild() before assembling: an edit that uses more registers than K0 declared must raise the
// descriptor's granulated counts (or the hardware allocates too few and the extra registers alias another
// wave's), and the metadata counts must follow. Policy (RecountPolicy): by default counts never
// drop below what the program already declares, so an unedited program keeps its exact descriptor.
#pragma once

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/analysis/resources.hpp"
#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/codeobject/program_target.hpp"
#include "asmevo/codeobject/recount.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/mc/llvm_mc.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::codeobject {

namespace detail {

/// True if the code can leave its own instructions for another function (s_swappc_b64 / s_setpc_b64 / s_call_b64).
[[nodiscard]] inline bool calls_out(std::span<const Item> items) {
  for (const auto& it : items) {
    if (it.kind == Item::Kind::inst && (family_of(it.inst) == Family::s_call || op_of(it.inst) == op::s_setpc_b64)) return true;
  }
  return false;
}

[[nodiscard]] inline analysis::RegisterUsage merge(analysis::RegisterUsage a, const analysis::RegisterUsage& b) {
  a.vgprs = std::max(a.vgprs, b.vgprs);
  a.agprs = std::max(a.agprs, b.agprs);
  a.sgprs = std::max(a.sgprs, b.sgprs);
  a.vcc = a.vcc || b.vcc;
  a.flat_scratch = a.flat_scratch || b.flat_scratch;
  a.xnack_mask = a.xnack_mask || b.xnack_mask;
  a.ttmp = a.ttmp || b.ttmp;
  if (!a.indirect && b.indirect) a.first_indirect = b.first_indirect;
  a.indirect = a.indirect || b.indirect;
  return a;
}

/// The registers a kernel's code uses, with every function it may call. Calls on gfx9 are s_swappc_b64 to an
/// address in registers (usually built PC-relatively from the callee's symbol, but it may be loaded from memory),
/// so a kernel that leaves its own code through s_swappc/s_setpc is charged every function of the program (not
/// the other kernels): that can over-count, never under-count. Also returns the first scratch instruction, if any.
[[nodiscard]] inline analysis::RegisterUsage kernel_usage(const Program& p, std::string_view kernel,
                                                          std::optional<InstId>* scratch = nullptr) {
  std::set<std::string, std::less<>> kernels;
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::kernel) kernels.insert(it.kernel.name);
  std::vector<std::string> reached{std::string(kernel)};
  const auto own = analysis::kernel_items(p, kernel);
  if (calls_out(own))
    for (const auto& it : p.items)
      if (it.kind == Item::Kind::directive && it.name == ".type" && it.text.find("@function") != std::string::npos) {
        std::string f = it.text.substr(0, it.text.find(','));
        while (!f.empty() && f.back() == ' ') f.pop_back();
        if (!kernels.count(f)) reached.push_back(std::move(f));
      }
  analysis::RegisterUsage use;
  for (const auto& f : reached) {
    const auto code = analysis::kernel_items(p, f);
    use = merge(use, analysis::scan(code));
    if (scratch != nullptr && !*scratch)
      for (const auto& it : code)
        if (it.kind == Item::Kind::inst && op_info(it.inst).unit == OpUnit::scratch) {
          *scratch = it.inst.id;
          break;
        }
  }
  return use;
}

/// True if the allocation `kd` declares already holds every register `use` names: the hardware gives the wave
/// kd.allocated_vgprs() unified VGPRs (ArchVGPRs from v0, AccVGPRs from accum_offset on gfx90a+) and
/// kd.allocated_sgprs() SGPRs with VCC/FLAT_SCRATCH/XNACK_MASK at the top (CDNA3 ISA guide, "Wave state:
/// VGPRs and AccVGPRs"; AMDGPUBaseInfo getNumExtraSGPRs). Hand-written kernels often declare allocations that
/// do not follow the compiler's rules (aiter's place ArchVGPRs past accum_offset when they use no AGPRs);
/// those are valid and are kept.
[[nodiscard]] inline bool allocation_holds(const KernelDescriptor& kd, const analysis::RegisterUsage& use, Target t, bool xnack) {
  const int accum = kd.accum_offset();
  if (use.agprs > 0 && use.vgprs > accum) return false;  // ArchVGPRs would overlap AccVGPRs
  const int vgprs = std::max(use.vgprs, use.agprs > 0 ? accum + use.agprs : 0);
  if (vgprs > kd.allocated_vgprs()) return false;
  const Requirements need = requirements(use, kd, t, xnack);
  return need.total_sgprs <= kd.allocated_sgprs();
}

}  // namespace detail

/// Recounts every kernel of `p` (see the file comment) and returns what changed, one line each
/// ("kernel k: compute_pgm_rsrc1.granulated_workitem_vgpr_count 3 -> 4"). With keep_at_least_original, a kernel
/// whose declared allocation already holds what its code uses is left exactly as written (descriptor and
/// metadata); otherwise its counts are raised by analysis::recount. A kernel's code includes the functions it
/// calls (detail::kernel_usage says how they are found).
[[nodiscard]] ASMEVO_OUTLINE Expected<std::vector<std::string>> recount_kernels(Program& p, const ProgramTarget& tgt, bool xnack,
                                                                        mc::Context& ctx, RecountPolicy policy)
#if ASMEVO_BODY_CODEOBJECT
{
  std::vector<std::string> changes;
  std::size_t meta_at = p.items.size();
  for (std::size_t i = 0; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::metadata) meta_at = i;
  // The metadata is read (one LLVM assembly of the block) only when some kernel's counts must change.
  std::optional<nlohmann::ordered_json> md;
  bool md_read = false;
  const auto load_metadata = [&]() -> Expected<void> {
    if (md_read || meta_at == p.items.size()) return {};
    md_read = true;
    auto m = metadata_from_yaml(p.items[meta_at].text, tgt, ctx, Loc{p.file, p.items[meta_at].line, 0, {}});
    if (!m) return unexpected(std::move(m).error());
    md = std::move(*m);
    return {};
  };
  bool md_changed = false;
  for (auto& it : p.items) {
    if (it.kind != Item::Kind::kernel) continue;
    const std::string& name = it.kernel.name;
    auto kd = from_directives(it.kernel, p.target, tgt.code_object_version, xnack);
    if (!kd) {
      Diag d = std::move(kd).error();
      d.loc.file = p.file;
      if (d.loc.line == 0) d.loc.line = it.line;
      return unexpected(std::move(d));
    }
    const auto code = analysis::kernel_items(p, name);
    if (code.empty())
      return fail(DiagCode::parse_error, "kernel '" + name + "' has an .amdhsa_kernel block but no code label '" + name + ":'",
                  Loc{p.file, it.line, 0, {}});
    std::optional<InstId> scratch;
    const analysis::RegisterUsage use = detail::kernel_usage(p, name, &scratch);
    // Scratch needs a private segment: without one the CP sets up no scratch and the access faults or lands
    // elsewhere. LDS is not checked: a kernel may use LDS the launch allocates dynamically.
    if (scratch && kd->private_segment_fixed_size() == 0 && !kd->get(field::uses_dynamic_stack))
      return fail(DiagCode::invalid_operand,
                  "kernel '" + name + "' uses scratch (i" + std::to_string(scratch->value) +
                      ") but its descriptor allocates no private segment",
                  Loc{p.file, it.line, 0, scratch->value}, {},
                  "set .amdhsa_private_segment_fixed_size (and .amdhsa_enable_private_segment) in its .amdhsa_kernel block");
    if (policy == RecountPolicy::keep_at_least_original && detail::allocation_holds(*kd, use, p.target, xnack))
      continue;
    if (auto l = load_metadata(); !l) return unexpected(std::move(l).error());
    // The kernel's metadata map, found by its descriptor symbol.
    nlohmann::ordered_json* km = nullptr;
    if (md && md->contains("amdhsa.kernels") && (*md)["amdhsa.kernels"].is_array())
      for (auto& k : (*md)["amdhsa.kernels"])
        if (k.is_object() && k.contains(".symbol") && k[".symbol"] == name + ".kd") km = &k;
    RecountOptions ro;
    ro.xnack = xnack;
    if (km != nullptr) {
      MetadataCounts mc0;
      const auto get = [&](const char* key) -> std::optional<int> {
        if (km->contains(key) && (*km)[key].is_number_integer()) return (*km)[key].get<int>();
        return std::nullopt;
      };
      mc0.vgpr_count = get(".vgpr_count");
      mc0.agpr_count = get(".agpr_count");
      mc0.sgpr_count = get(".sgpr_count");
      ro.k0_metadata = mc0;
    }
    auto r = recount(*kd, p.target, use, policy, ro);
    if (!r) {
      Diag d = std::move(r).error();
      d.message = "kernel '" + name + "': " + d.message;
      d.loc.file = p.file;
      return unexpected(std::move(d));
    }
    if (r->changes.empty()) continue;
    for (const auto& c : r->changes)
      changes.push_back("kernel " + name + ": " + c.field + " " + std::to_string(c.before) + " -> " + std::to_string(c.after));
    if (r->descriptor.bytes != kd->bytes) {
      DescriptorExtras ex;
      ex.xnack = xnack;
      auto dirs = to_directives(r->descriptor, p.target, tgt.code_object_version, ex);
      if (!dirs) return unexpected(std::move(dirs).error());
      it.kernel.fields = std::move(*dirs);
    }
    if (km != nullptr) {
      const auto put = [&](const char* key, const std::optional<int>& v) {
        if (v && km->contains(key) && (*km)[key] != *v) (*km)[key] = *v, md_changed = true;
        else if (v && !km->contains(key) && std::string_view(key) != ".agpr_count") (*km)[key] = *v, md_changed = true;
      };
      put(".vgpr_count", r->metadata.vgpr_count);
      put(".agpr_count", r->metadata.agpr_count);
      put(".sgpr_count", r->metadata.sgpr_count);
    }
  }
  if (md_changed) {
    p.items[meta_at].text = to_yaml(*md);
    if (!p.items[meta_at].text.empty() && p.items[meta_at].text.back() != '\n') p.items[meta_at].text += '\n';
  }
  return changes;
}
#else
;
#endif

}  // namespace asmevo::codeobject
