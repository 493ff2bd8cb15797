// asmevo's in-process bridge to LLVM MC for AMDGPU: assemble text to bytes and disassemble bytes to text.
//
// One mc::Context per (target, features) and per thread: it owns the LLVM objects that do not depend
// on an input (MCRegisterInfo, MCAsmInfo, MCInstrInfo, MCSubtargetInfo, MCInstPrinter, MCDisassembler)
// and builds the per-input ones (MCContext, MCAsmParser, MCCodeEmitter, MCAsmBackend) on each call.
// Nothing here prints: every LLVM diagnostic becomes a Diag. Including this header pulls in LLVM's
// MC headers; link asmevo::mc (see cmake/AsmevoLLVM.cmake).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <llvm/ADT/SmallVector.h>
#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCObjectWriter.h>
#include <llvm/MC/MCParser/MCAsmParser.h>
#include <llvm/MC/MCParser/MCTargetAsmParser.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "asmevo/mc/detail/decoder_guard.hpp"
#include "asmevo/mc/detail/diag_capture.hpp"
#include "asmevo/mc/detail/lex_guard.hpp"
#include "asmevo/mc/detail/llvm_target.hpp"
#include "asmevo/mc/detail/recording_streamer.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::mc {

/// One assembled instruction: its final bytes (fixups resolved) and the 1-based source line it came from.
/// `line` is 0 when the instruction came from a `.macro` / `.rept` expansion, whose text LLVM keeps in
/// a separate buffer with no link back to the invoking line.
struct Encoded {
  std::uint32_t line = 0;
  std::vector<std::uint8_t> bytes;  ///< little-endian; 4 or 8 bytes, 16 for gfx950 v_mfma_scale_* (VOP3PX2)
  std::uint64_t offset = 0;         ///< byte offset in its section after layout (alignment and data included)
};

/// One disassembled instruction.
struct Decoded {
  std::uint64_t offset = 0;  ///< bytes from the start of the input span (the address passed to LLVM is address + offset)
  std::uint32_t size = 0;    ///< bytes consumed
  std::string text;          ///< as `llvm-mc --disassemble` prints it, without the leading tab: "v_add_f32_e32 v0, v1, v2"
  std::string opcode_name;   ///< MCInstrInfo::getName: the TableGen record, e.g. "V_ADD_F32_e32_vi"
};

/// Everything one assembly run produced: the instructions of the lines that had no error, and every error.
struct AssembleReport {
  std::vector<Encoded> instructions;  ///< source order; no entry for a line that has an error
  Diags errors;                       ///< source order (line, column); errors without a line last

  [[nodiscard]] bool ok() const noexcept { return errors.empty(); }

  /// The distinct 1-based lines that have at least one error, ascending (errors without a line are left out).
  [[nodiscard]] std::vector<std::uint32_t> failed_lines() const {
    std::vector<std::uint32_t> lines;
    for (const Diag& d : errors)
      if (d.loc.line != 0) lines.push_back(d.loc.line);
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    return lines;
  }
};

/// LLVM MC for one AMDGPU target. Not thread-safe (one per thread); create() is thread-safe.
class Context {
 public:
  /// Builds the target objects for `amdgcn-amd-amdhsa` with `-mcpu=mcpu` and an optional LLVM features
  /// string ("+xnack", "-sramecc,+xnack"). Fails with DiagCode::usage on a processor or feature LLVM
  /// does not know. The supported targets are gfx90a, gfx942 and gfx950; other GCN processors work as
  /// far as LLVM supports them but are not tested.
  [[nodiscard]] static Expected<std::unique_ptr<Context>> create(std::string_view mcpu, std::string_view features = {}) {
    auto t = detail::make_target_objects(mcpu, features);
    if (!t) return unexpected(std::move(t).error());
    std::unique_ptr<Context> c(new Context(std::move(*t)));
    if (!c->disasm_ || !c->printer_)
      return fail(DiagCode::internal, "LLVM could not create the AMDGPU disassembler or instruction printer", {},
                  std::string(mcpu));
    return c;
  }

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context() = default;

  [[nodiscard]] const std::string& mcpu() const noexcept { return t_->mcpu; }
  [[nodiscard]] const std::string& features() const noexcept { return t_->features; }

  /// Assembles `text` as `llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=... -filetype=obj` would, and returns
  /// one entry per instruction in source order. Bytes equal what `llvm-mc -show-encoding` prints; where
  /// that shows fixup placeholders (`s_branch label`), they are the resolved bytes of the object file.
  /// A literal naming a symbol not defined in `text` becomes a relocation in LLVM, and its field holds
  /// 0 here; a branch to an undefined label is an error, as in llvm-mc. Directives are accepted as
  /// llvm-mc accepts them and produce no entry (`.include` reads files relative to the working
  /// directory). On error, returns the first error in source order (DiagCode::encode_error, with
  /// file:line:col, the source line and LLVM's message).
  [[nodiscard]] Expected<std::vector<Encoded>> assemble(std::string_view text, std::string_view file_name = "<input>") {
    AssembleReport r = assemble_all(text, file_name);
    if (!r.errors.empty()) return unexpected(std::move(r.errors.front()));
    return std::move(r.instructions);
  }

  /// Like assemble(), but never stops at an error: LLVM's parser recovers at the next statement, and
  /// the report holds every error plus the instructions of every line without one. Never prints, never
  /// throws; garbage text gives errors, not a crash or a hang (see detail/lex_guard.hpp).
  [[nodiscard]] AssembleReport assemble_all(std::string_view text, std::string_view file_name = "<input>") {
    AssembleReport report;
    const detail::TargetObjects& t = *t_;

    // Per-input objects: llvm::MCContext owns symbols and sections, so everything tied to it is rebuilt.
    // `capture` is declared first so that it outlives every LLVM object holding its handlers.
    detail::DiagCapture capture(DiagCode::encode_error);
    llvm::SourceMgr sm;
    const unsigned main_buffer = add_input(sm, capture, text, file_name);
    llvm::MCContext ctx(t.triple, t.mai.get(), t.mri.get(), t.sti.get(), &sm, &t.options);
    capture.attach(sm, ctx);
    const std::unique_ptr<llvm::MCObjectFileInfo> mofi(t.target->createMCObjectFileInfo(ctx, /*PIC=*/false));
    ctx.setObjectFileInfo(mofi.get());

    std::unique_ptr<llvm::MCAsmBackend> mab(t.target->createMCAsmBackend(*t.sti, *t.mri, t.options));
    std::unique_ptr<llvm::MCCodeEmitter> ce(t.target->createMCCodeEmitter(*t.mii, ctx));
    if (!mab || !ce) {
      report.errors.push_back(make_diag(DiagCode::internal, "LLVM could not create the AMDGPU asm backend or code emitter"));
      return report;
    }
    // The object image is never looked at (bytes are read from the fragments), so it goes nowhere.
    llvm::raw_null_ostream null_os;
    std::unique_ptr<llvm::MCObjectWriter> ow = mab->createObjectWriter(null_os);
    detail::RecordingStreamer streamer(ctx, std::move(mab), std::move(ow), std::move(ce));
    // AMDGPUAsmParser calls its target streamer for every .amdgcn_* / .amdhsa_* directive. The null
    // target streamer (AMDGPUTargetStreamer's base behaviour, what `llvm-mc -filetype=null` uses)
    // accepts them all and emits nothing, so kernel descriptors and metadata notes are not built here;
    // instruction bytes do not depend on them. The MCStreamer takes ownership.
    if (t.target->createNullTargetStreamer(streamer) == nullptr) {
      report.errors.push_back(make_diag(DiagCode::internal, "LLVM has no AMDGPU null target streamer"));
      return report;
    }

    const std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(sm, ctx, streamer, *t.mai));
    const std::unique_ptr<llvm::MCTargetAsmParser> tap(t.target->createMCAsmParser(*t.sti, *parser, *t.mii, t.options));
    if (!parser || !tap) {
      report.errors.push_back(make_diag(DiagCode::internal, "LLVM could not create the AMDGPU assembly parser"));
      return report;
    }
    parser->setTargetParser(*tap);
    (void)parser->Run(/*NoInitialTextSection=*/false);
    // AsmParser::Run only finalizes (lays out, applies fixups) when there was no error. Lines that did
    // parse still deserve their resolved bytes, so finish here in that case. Errors of such a forced
    // finish that carry no location are consequences of an error already reported (an undefined
    // directional label `1f` also surfaces as "Undefined temporary symbol .Ltmp0" from the ELF
    // writer) and are dropped; located ones (e.g. "undefined label 'x'" from the branch fixup) stay.
    if (!streamer.finished()) {
      const std::size_t parse_errors = capture.diags().size();
      streamer.finish();
      Diags& d = capture.diags();
      d.erase(std::remove_if(d.begin() + static_cast<std::ptrdiff_t>(parse_errors), d.end(),
                             [](const Diag& x) { return x.loc.line == 0; }),
              d.end());
    }

    // The lines with an error drop their instructions (e.g. a branch whose fixup overflowed).
    const std::vector<std::uint32_t> bad_lines = lines_with_errors(capture.diags(), file_name);
    report.instructions.reserve(streamer.placed().size());
    for (const detail::RecordingStreamer::Placed& p : streamer.placed()) {
      const std::uint32_t line = main_line_of(sm, main_buffer, p.loc);
      if (line != 0 && std::binary_search(bad_lines.begin(), bad_lines.end(), line)) continue;
      const llvm::ArrayRef<char> bytes = detail::RecordingStreamer::bytes_of(p);
      if (bytes.empty()) {
        capture.diags().push_back(make_diag(DiagCode::internal, "lost track of an instruction's bytes in LLVM's fragments",
                                            Loc{std::string(file_name), line, 0, {}}));
        continue;
      }
      // MCAssembler::getFragmentOffset is the fragment's final offset in its section once layout has run.
      const std::uint64_t off =
          streamer.getAssembler().getFragmentOffset(*p.frag) + (p.in_var ? p.frag->getFixedSize() : p.offset);
      report.instructions.push_back(Encoded{line, std::vector<std::uint8_t>(bytes.begin(), bytes.end()), off});
    }
    // Source order: layout errors (fixups) arrive after all parse errors; the first error a caller
    // sees should be the first in the text. Errors without a line, or from another buffer, go last.
    // (std::sort on (key, index) rather than std::stable_sort, whose libstdc++ 12 implementation
    // trips clang's deprecation warning for get_temporary_buffer.)
    Diags& found = capture.diags();
    const auto key = [&](std::size_t i) {
      const Diag& x = found[i];
      return std::tuple(x.loc.file != file_name || x.loc.line == 0, x.loc.line, x.loc.col, i);
    };
    std::vector<std::size_t> order(found.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    report.errors.reserve(found.size());
    for (std::size_t i : order) report.errors.push_back(std::move(found[i]));
    return report;
  }

  /// Encodes one instruction (labels and directives on the line are allowed, but exactly one
  /// instruction must result). As in `llvm-mc -filetype=obj`, a branch to a label that the line does
  /// not define is an error ("undefined label"); a literal naming an undefined symbol encodes as 0.
  [[nodiscard]] Expected<std::vector<std::uint8_t>> encode_line(std::string_view asm_line) {
    auto r = assemble(asm_line, "<line>");
    if (!r) return unexpected(std::move(r).error());
    if (r->size() != 1)
      return fail(DiagCode::usage,
                  "expected exactly one instruction, got " + std::to_string(r->size()), Loc{"<line>", 1, 0, {}},
                  std::string(asm_line), "pass several instructions to assemble()");
    return std::move(r->front().bytes);
  }

  /// Assembles `text` into a relocatable ELF object, as `llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=...
  /// -filetype=obj` writes it: with AMDGPU's ELF target streamer, so `.amdhsa_kernel` blocks become kernel
  /// descriptors in .rodata, `.amdgpu_metadata` becomes the NT_AMDGPU_METADATA note and e_flags say the
  /// target. The text should set `.amdhsa_code_object_version` (LLVM's default otherwise). Returns the
  /// object's bytes, or every error (source order) with file:line:col; never prints.
  [[nodiscard]] Expected<std::vector<std::uint8_t>> assemble_object(std::string_view text,
                                                                    std::string_view file_name = "<input>") {
    const detail::TargetObjects& t = *t_;
    detail::DiagCapture capture(DiagCode::encode_error);
    llvm::SourceMgr sm;
    (void)add_input(sm, capture, text, file_name);
    llvm::MCContext ctx(t.triple, t.mai.get(), t.mri.get(), t.sti.get(), &sm, &t.options);
    capture.attach(sm, ctx);
    const std::unique_ptr<llvm::MCObjectFileInfo> mofi(t.target->createMCObjectFileInfo(ctx, /*PIC=*/false));
    ctx.setObjectFileInfo(mofi.get());
    std::unique_ptr<llvm::MCAsmBackend> mab(t.target->createMCAsmBackend(*t.sti, *t.mri, t.options));
    std::unique_ptr<llvm::MCCodeEmitter> ce(t.target->createMCCodeEmitter(*t.mii, ctx));
    if (!mab || !ce) return fail(DiagCode::internal, "LLVM could not create the AMDGPU asm backend or code emitter");
    llvm::SmallVector<char, 0> image;
    llvm::raw_svector_ostream os(image);
    std::unique_ptr<llvm::MCObjectWriter> ow = mab->createObjectWriter(os);
    // createMCObjectStreamer also creates AMDGPU's ELF target streamer (descriptors, notes, e_flags).
    const std::unique_ptr<llvm::MCStreamer> streamer(
        t.target->createMCObjectStreamer(t.triple, ctx, std::move(mab), std::move(ow), std::move(ce), *t.sti));
    if (!streamer) return fail(DiagCode::internal, "LLVM could not create the AMDGPU object streamer");
    const std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(sm, ctx, *streamer, *t.mai));
    const std::unique_ptr<llvm::MCTargetAsmParser> tap(t.target->createMCAsmParser(*t.sti, *parser, *t.mii, t.options));
    if (!parser || !tap) return fail(DiagCode::internal, "LLVM could not create the AMDGPU assembly parser");
    parser->setTargetParser(*tap);
    const bool failed = parser->Run(/*NoInitialTextSection=*/false);
    Diags& found = capture.diags();
    if (failed || !found.empty()) {
      if (found.empty()) return fail(DiagCode::encode_error, "LLVM's assembler failed without a message", Loc{std::string(file_name), 0, 0, {}});
      std::stable_sort(found.begin(), found.end(), [&](const Diag& a, const Diag& b) {
        return std::tuple(a.loc.line == 0, a.loc.line, a.loc.col) < std::tuple(b.loc.line == 0, b.loc.line, b.loc.col);
      });
      Diag first = std::move(found.front());
      if (found.size() > 1) first.hint += (first.hint.empty() ? "" : "; ") + std::to_string(found.size() - 1) + " more error(s) follow";
      return unexpected(std::move(first));
    }
    return std::vector<std::uint8_t>(image.begin(), image.end());
  }

  /// Decodes the instruction at the start of `bytes`, located at `address` (which only affects how
  /// LLVM prints PC-relative operands; AMDGPU prints branch offsets as raw simm16 by default, like
  /// `llvm-mc --disassemble`). Fails with DiagCode::decode_error naming the offset and the bytes.
  [[nodiscard]] Expected<Decoded> decode_one(std::span<const std::uint8_t> bytes, std::uint64_t address = 0) {
    return decode_at(bytes, 0, address);
  }

  /// Decodes all of `bytes` (e.g. a .text section) as consecutive instructions; stops at the first
  /// word that is not a valid instruction for the target and returns that error.
  [[nodiscard]] Expected<std::vector<Decoded>> disassemble(std::span<const std::uint8_t> bytes, std::uint64_t address = 0) {
    std::vector<Decoded> out;
    out.reserve(bytes.size() / 6);
    for (std::uint64_t offset = 0; offset < bytes.size();) {
      auto d = decode_at(bytes, offset, address);
      if (!d) return unexpected(std::move(d).error());
      offset += d->size;
      out.push_back(std::move(*d));
    }
    return out;
  }

 private:
  explicit Context(std::unique_ptr<detail::TargetObjects> t)
      : t_(std::move(t)),
        // The disassembler's own MCContext lives as long as this Context: AMDGPUDisassembler keeps a
        // reference and creates a few constant symbols in it once.
        dis_ctx_(std::make_unique<llvm::MCContext>(t_->triple, t_->mai.get(), t_->mri.get(), t_->sti.get(), nullptr,
                                                   &t_->options)),
        disasm_(t_->target->createMCDisassembler(*t_->sti, *dis_ctx_)),
        printer_(t_->target->createMCInstPrinter(t_->triple, t_->mai->getAssemblerDialect(), *t_->mai, *t_->mii,
                                                 *t_->mri)) {
    dis_ctx_->setDiagnosticHandler([](const llvm::SMDiagnostic&, bool, const llvm::SourceMgr&,
                                      std::vector<const llvm::MDNode*>&) {});  // never print
    // AMDGPUDisassembler writes operand errors ("cannot read literal, inst bytes left 0") through
    // MCDisassembler::CommentStream, which is null unless set (llvm-mc points it at its own comment
    // stream); writing through null crashes. Discard them: decode_at reports the failure itself.
    if (disasm_) disasm_->CommentStream = &llvm::nulls();
  }

  /// Adds `text` to `sm` as the main buffer, the way every assembly run here needs it, and returns its id.
  /// A copy: AsmLexer reads up to a terminating NUL that a string_view does not promise, and tokens the
  /// lexer rejects are blanked in it (detail/lex_guard.hpp says why); their lines report errors through
  /// `capture`. Blank lines are appended as a second guard against the AMDGPU parser's spin at Eof; they
  /// move no line or column.
  unsigned add_input(llvm::SourceMgr& sm, detail::DiagCapture& capture, std::string_view text, std::string_view file_name) {
    constexpr std::string_view trailer = "\n\n\n\n";
    std::unique_ptr<llvm::WritableMemoryBuffer> buffer =
        llvm::WritableMemoryBuffer::getNewUninitMemBuffer(text.size() + trailer.size(), detail::to_ref(file_name));
    std::copy(text.begin(), text.end(), buffer->getBufferStart());  // getNewUninitMemBuffer NUL-terminates
    std::copy(trailer.begin(), trailer.end(), buffer->getBufferStart() + text.size());
    Diags lex_diags = detail::neutralize_lex_errors(
        *t_->mai, std::span<char>(buffer->getBufferStart(), buffer->getBufferSize()), file_name, DiagCode::encode_error);
    capture.diags() = std::move(lex_diags);
    return sm.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  }

  /// 1-based line in the main buffer of `loc`, following `.include` chains; 0 when unknown.
  static std::uint32_t main_line_of(const llvm::SourceMgr& sm, unsigned main_buffer, llvm::SMLoc loc) {
    for (int depth = 0; loc.isValid() && depth < 64; ++depth) {
      const unsigned buf = sm.FindBufferContainingLoc(loc);
      if (buf == 0) return 0;
      if (buf == main_buffer) return sm.FindLineNumber(loc, buf);
      loc = sm.getParentIncludeLoc(buf);  // invalid for macro / .rept instantiations
    }
    return 0;
  }

  static std::vector<std::uint32_t> lines_with_errors(const Diags& diags, std::string_view file_name) {
    std::vector<std::uint32_t> lines;
    for (const Diag& d : diags)
      if (d.loc.line != 0 && d.loc.file == file_name) lines.push_back(d.loc.line);
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  static std::string hex_bytes(std::span<const std::uint8_t> b) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (i != 0) s += ' ';
      s += "0x";
      s += digits[b[i] >> 4];
      s += digits[b[i] & 15];
    }
    return s;
  }

  Expected<Decoded> decode_at(std::span<const std::uint8_t> all, std::uint64_t offset, std::uint64_t address) {
    const std::span<const std::uint8_t> rest = all.subspan(offset);
    if (rest.empty()) return fail(DiagCode::decode_error, "no bytes to decode at offset " + std::to_string(offset));
    // LLVM 22's AMDGPUDisassembler crashes (in its "cannot read literal" operand-error path, while
    // printing a Twine) when an instruction's literal dword is cut off by the end of the input;
    // llvm-mc-22 --disassemble crashes on `0xff,0x00,0x80,0xbe` too. So near the end, decode from a
    // zero-padded copy: the longest AMDGPU instruction is 20 bytes (AMDGPUMCAsmInfo::getMaxInstLength:
    // NSA images on GFX10+; 16 on gfx950, VOP3PX2), and what an instruction decodes to cannot depend on the bytes after it (that is how a
    // stream is disassembled), so the padding changes nothing but turns the truncation into
    // `size > rest.size()`, reported below.
    constexpr std::size_t max_inst_bytes = 32;
    std::array<std::uint8_t, max_inst_bytes> padded{};
    llvm::ArrayRef<std::uint8_t> input(rest.data(), rest.size());
    if (rest.size() < max_inst_bytes) {
      std::copy(rest.begin(), rest.end(), padded.begin());
      input = llvm::ArrayRef<std::uint8_t>(padded.data(), padded.size());
    }
    if (guard_gfx9_) {
      const detail::DecoderHazard h = detail::gfx9_decoder_hazard(std::span<const std::uint8_t>(input.data(), input.size()));
      if (!h.why.empty())
        return fail(h.code, "cannot decode the instruction at offset " + std::to_string(offset) + ": " + h.why, {},
                    hex_bytes(rest.first(std::min<std::size_t>(rest.size(), 8))),
                    "checked before LLVM: its AMDGPU disassembler crashes on these bytes (llvm-mc-22 too)");
    }
    llvm::MCInst inst;
    std::uint64_t size = 0;
    // SoftFail ("potentially undefined encoding") still decodes to an instruction, as in llvm-mc.
    const auto status = disasm_->getInstruction(inst, size, input, address + offset, llvm::nulls());
    if (status != llvm::MCDisassembler::Fail && size > rest.size()) {
      return fail(DiagCode::decode_error,
                  "truncated instruction at offset " + std::to_string(offset) + ": it needs " + std::to_string(size) +
                      " bytes, " + std::to_string(rest.size()) + " left",
                  {}, hex_bytes(rest));
    }
    if (status == llvm::MCDisassembler::Fail || size == 0) {
      // AMDGPU instructions are made of dwords: show the dword LLVM refused (or what is left of it).
      const std::size_t shown = std::min<std::size_t>(rest.size(), 4);
      std::string where = "offset " + std::to_string(offset);
      if (address != 0) where += " (address " + std::to_string(address + offset) + ")";
      return fail(DiagCode::decode_error, "invalid instruction encoding for " + t_->mcpu + " at " + where, {},
                  hex_bytes(rest.first(shown)));
    }
    Decoded d;
    d.offset = offset;
    d.size = static_cast<std::uint32_t>(size);
    {
      llvm::raw_string_ostream os(d.text);
      printer_->printInst(&inst, address + offset, /*Annot=*/"", *t_->sti, os);
    }
    // MCInstPrinter writes the mnemonic after a tab, as it would inside an assembly listing.
    const auto first = d.text.find_first_not_of(" \t");
    d.text.erase(0, first == std::string::npos ? d.text.size() : first);
    while (!d.text.empty() && (d.text.back() == ' ' || d.text.back() == '\t' || d.text.back() == '\n')) d.text.pop_back();
    d.opcode_name = t_->mii->getName(inst.getOpcode()).str();
    return d;
  }

  std::unique_ptr<detail::TargetObjects> t_;
  std::unique_ptr<llvm::MCContext> dis_ctx_;
  std::unique_ptr<llvm::MCDisassembler> disasm_;
  std::unique_ptr<llvm::MCInstPrinter> printer_;
  bool guard_gfx9_ = t_->mcpu.starts_with("gfx9");  ///< detail/decoder_guard.hpp knows GFX9 layouts only
};

}  // namespace asmevo::mc
