// An MCELFStreamer that remembers where each instruction's bytes land, so they can be read back after layout.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCAssembler.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCELFStreamer.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCObjectWriter.h>
#include <llvm/MC/MCSection.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Support/SMLoc.h>

namespace asmevo::mc::detail {

/// Why an object streamer rather than a bare MCStreamer that calls MCCodeEmitter itself: the bytes
/// of `s_branch label` (fixup_si_sopp_br), of `.p2align` padding and of symbol-valued literals are
/// only known after MCAssembler::layout() has placed every fragment and applied every fixup
/// (AMDGPUAsmBackend::applyFixup). Letting LLVM's own assembler do that gives exactly the bytes of
/// `llvm-mc -filetype=obj`, with no fixup logic of ours to keep in sync with LLVM.
///
/// This is the streamer AMDGPU itself uses (createAMDGPUELFStreamer makes a plain MCELFStreamer),
/// plus a record of (fragment, offset, size) per instruction. In LLVM 22 an instruction is appended
/// to the fixed part of the current MCFragment (MCObjectStreamer::emitInstToData), or, when the
/// backend may relax it, becomes the variable tail of that fragment (emitInstToFragment; on AMDGPU
/// only for the gfx10.1 offset-0x3f branch bug, never for gfx9). Fixups are applied in place into
/// those contents by MCAssembler::layout(), so reading them after finish() yields the final bytes.
class RecordingStreamer final : public llvm::MCELFStreamer {
 public:
  /// Where one instruction's bytes live.
  struct Placed {
    const llvm::MCFragment* frag = nullptr;
    std::uint32_t offset = 0;  ///< byte offset in frag's fixed part (0 when in_var)
    std::uint32_t size = 0;    ///< bytes
    bool in_var = false;       ///< the instruction is frag's variable (relaxable) tail
    llvm::SMLoc loc;           ///< the instruction's source location (MCInst::getLoc, set by the AMDGPU parser)
  };

  RecordingStreamer(llvm::MCContext& ctx, std::unique_ptr<llvm::MCAsmBackend> mab,
                    std::unique_ptr<llvm::MCObjectWriter> ow, std::unique_ptr<llvm::MCCodeEmitter> ce)
      : llvm::MCELFStreamer(ctx, std::move(mab), std::move(ow), std::move(ce)) {}

  void emitInstruction(const llvm::MCInst& inst, const llvm::MCSubtargetInfo& sti) override {
    const llvm::MCFragment* before = getCurrentFragment();
    const std::size_t before_fixed = before != nullptr ? before->getFixedSize() : 0;
    const std::size_t before_var = before != nullptr ? before->getVarSize() : 0;
    llvm::MCELFStreamer::emitInstruction(inst, sti);
    const llvm::MCFragment* after = getCurrentFragment();

    Placed p;
    p.loc = inst.getLoc();
    if (after == before && after != nullptr) {
      p.frag = after;  // appended to the fixed part of the same fragment
      p.offset = static_cast<std::uint32_t>(before_fixed);
      p.size = static_cast<std::uint32_t>(after->getFixedSize() - before_fixed);
    } else if (before != nullptr && before->getVarSize() != before_var) {
      p.frag = before;  // became the relaxable tail; a fresh fragment follows
      p.in_var = true;
      p.size = static_cast<std::uint32_t>(before->getVarSize());
    } else if (after != nullptr) {
      p.frag = after;  // no headroom left: a fresh fragment was started for this instruction
      p.offset = 0;
      p.size = static_cast<std::uint32_t>(after->getFixedSize());
    }
    placed_.push_back(p);
  }

  /// Whether MCStreamer::finish() has run: MCAssembler::Finish() laid out the sections and applied fixups.
  [[nodiscard]] bool finished() { return getAssembler().hasFinalLayout(); }
  [[nodiscard]] const std::vector<Placed>& placed() const noexcept { return placed_; }

  /// The final bytes of one instruction; empty if the record is inconsistent (a broken invariant
  /// the caller reports as an internal Diag rather than reading out of bounds).
  [[nodiscard]] static llvm::ArrayRef<char> bytes_of(const Placed& p) {
    if (p.frag == nullptr || p.size == 0) return {};
    const llvm::ArrayRef<char> all = p.in_var ? p.frag->getVarContents() : p.frag->getContents();
    if (std::size_t{p.offset} + p.size > all.size()) return {};
    return all.slice(p.offset, p.size);
  }

 private:
  std::vector<Placed> placed_;
};

}  // namespace asmevo::mc::detail
