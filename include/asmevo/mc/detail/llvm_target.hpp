// The LLVM MC objects for one AMDGPU target that do not depend on an MCContext, built once per mc::Context.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Triple.h>

#include "asmevo/support/diag.hpp"

// Declared here rather than through llvm/Support/TargetSelect.h, which declares (and with
// InitializeAll* references) every target of the LLVM build: asmevo only needs AMDGPU, and only the
// MC layers of it (no CodeGen / AsmPrinter), so only these four entry points are linked in.
extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmParser();
void LLVMInitializeAMDGPUDisassembler();
}

namespace asmevo::mc::detail {

/// The one triple asmevo assembles for: HSA code objects for GCN (all supported targets are wave64 gfx9).
inline constexpr std::string_view amdhsa_triple = "amdgcn-amd-amdhsa";

/// Registers the AMDGPU target with LLVM's TargetRegistry exactly once per process, thread-safely.
/// (LLVM's registration itself tolerates repeats, but not concurrent ones.)
inline void initialize_amdgpu_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmParser();
    LLVMInitializeAMDGPUDisassembler();
  });
}

[[nodiscard]] inline llvm::StringRef to_ref(std::string_view s) noexcept { return {s.data(), s.size()}; }

/// MCRegisterInfo, MCAsmInfo, MCInstrInfo and MCSubtargetInfo for one (mcpu, features) pair. None of
/// them refers to an MCContext, so every assemble()/disassemble() call shares them; the parser never
/// mutates the shared MCSubtargetInfo (MCTargetAsmParser::copySTI copies it into the call's MCContext).
struct TargetObjects {
  llvm::Triple triple;
  const llvm::Target* target = nullptr;
  llvm::MCTargetOptions options;
  std::unique_ptr<const llvm::MCRegisterInfo> mri;
  std::unique_ptr<const llvm::MCAsmInfo> mai;
  std::unique_ptr<const llvm::MCInstrInfo> mii;
  std::unique_ptr<const llvm::MCSubtargetInfo> sti;
  std::string mcpu;
  std::string features;
};

/// Checks a SubtargetFeatures string ("+xnack,-sramecc") against the target's feature table before
/// LLVM sees it: MCSubtargetInfo's constructor would print "not a recognized feature" to stderr and
/// carry on, and asmevo never prints.
[[nodiscard]] inline Expected<void> check_features(const llvm::MCSubtargetInfo& generic, std::string_view features) {
  const auto table = generic.getAllProcessorFeatures();
  std::string_view rest = features;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    if (item.front() != '+' && item.front() != '-')
      return fail(DiagCode::usage, "feature '" + std::string(item) + "' must start with '+' or '-'", {},
                  std::string(features), "e.g. \"+xnack\" or \"-sramecc\"");
    const std::string_view name = item.substr(1);
    const bool known = std::any_of(table.begin(), table.end(), [&](const llvm::SubtargetFeatureKV& kv) {
      return std::string_view(kv.Key) == name;
    });
    if (!known)
      return fail(DiagCode::usage, "'" + std::string(name) + "' is not an AMDGPU feature known to LLVM", {},
                  std::string(features), "e.g. xnack, sramecc, wavefrontsize64");
  }
  return {};
}

/// Builds the context-independent objects, or says which argument LLVM would not accept.
[[nodiscard]] inline Expected<std::unique_ptr<TargetObjects>> make_target_objects(std::string_view mcpu,
                                                                                 std::string_view features) {
  initialize_amdgpu_target();
  auto t = std::make_unique<TargetObjects>();
  t->triple = llvm::Triple(to_ref(amdhsa_triple));
  t->mcpu = std::string(mcpu);
  t->features = std::string(features);

  std::string error;
  t->target = llvm::TargetRegistry::lookupTarget(t->triple, error);
  if (t->target == nullptr)
    return fail(DiagCode::internal, "LLVM has no AMDGPU target: " + error, {}, {},
                "asmevo::mc needs an LLVM 22 built with the AMDGPU target");

  t->mri.reset(t->target->createMCRegInfo(t->triple));
  if (!t->mri) return fail(DiagCode::internal, "LLVM could not create MCRegisterInfo for " + t->triple.str());
  t->mai.reset(t->target->createMCAsmInfo(*t->mri, t->triple, t->options));
  if (!t->mai) return fail(DiagCode::internal, "LLVM could not create MCAsmInfo for " + t->triple.str());
  t->mii.reset(t->target->createMCInstrInfo());
  if (!t->mii) return fail(DiagCode::internal, "LLVM could not create MCInstrInfo for " + t->triple.str());

  // Validate the CPU and features on a generic subtarget first: the real one would warn on stderr.
  const std::unique_ptr<const llvm::MCSubtargetInfo> generic(t->target->createMCSubtargetInfo(t->triple, "", ""));
  if (!generic) return fail(DiagCode::internal, "LLVM could not create MCSubtargetInfo for " + t->triple.str());
  if (mcpu.empty() || !generic->isCPUStringValid(to_ref(mcpu)))
    return fail(DiagCode::usage, "'" + std::string(mcpu) + "' is not an AMDGPU processor known to LLVM", {},
                std::string(mcpu), "supported targets: gfx90a, gfx942, gfx950");
  if (auto ok = check_features(*generic, features); !ok) return unexpected(std::move(ok).error());

  t->sti.reset(t->target->createMCSubtargetInfo(t->triple, to_ref(mcpu), to_ref(features)));
  if (!t->sti) return fail(DiagCode::internal, "LLVM could not create MCSubtargetInfo for " + std::string(mcpu));
  return t;
}

}  // namespace asmevo::mc::detail
