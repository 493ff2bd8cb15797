// Turns LLVM's SourceMgr / MCContext diagnostics into asmevo Diags instead of letting LLVM print them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <llvm/MC/MCContext.h>
#include <llvm/Support/SourceMgr.h>

#include "asmevo/support/diag.hpp"

namespace asmevo::mc::detail {

/// Collects every error LLVM reports while assembling one text, in report order. Two channels reach
/// it: llvm::SourceMgr's diag handler (AsmParser / AMDGPUAsmParser errors) and MCContext's diagnostic
/// handler (MCContext::reportError, e.g. a fixup out of range during layout). Without both handlers
/// LLVM writes to stderr. Warnings, notes and remarks are dropped: asmevo reports errors only.
class DiagCapture {
 public:
  explicit DiagCapture(DiagCode code) : code_(code) {}

  /// Hooks this capture into `sm` and `ctx`; both must not outlive *this.
  void attach(llvm::SourceMgr& sm, llvm::MCContext& ctx) {
    sm.setDiagHandler(&DiagCapture::on_source_mgr, this);
    ctx.setDiagnosticHandler([this](const llvm::SMDiagnostic& d, bool, const llvm::SourceMgr&,
                                    std::vector<const llvm::MDNode*>&) { add(d); });
  }

  void add(const llvm::SMDiagnostic& d) {
    if (d.getKind() != llvm::SourceMgr::DK_Error) return;
    Loc loc;
    loc.file = d.getFilename().str();
    loc.line = d.getLineNo() > 0 ? static_cast<std::uint32_t>(d.getLineNo()) : 0;
    loc.col = d.getColumnNo() >= 0 && loc.line != 0 ? static_cast<std::uint32_t>(d.getColumnNo()) + 1 : 0;
    diags_.push_back(make_diag(code_, d.getMessage().str(), std::move(loc), d.getLineContents().str()));
  }

  [[nodiscard]] Diags& diags() noexcept { return diags_; }

 private:
  static void on_source_mgr(const llvm::SMDiagnostic& d, void* self) { static_cast<DiagCapture*>(self)->add(d); }

  DiagCode code_;
  Diags diags_;
};

}  // namespace asmevo::mc::detail
