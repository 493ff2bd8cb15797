// Byte patterns on which LLVM 22's AMDGPU disassembler crashes, recognised before it sees them.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "asmevo/support/diag.hpp"

namespace asmevo::mc::detail {

/// Why this exists: LLVM 22's AMDGPUDisassembler::tryDecodeInst points MCDisassembler::CommentStream
/// at a local stream while a decoder table runs and sets it to null afterwards; the checks that run
/// after a table matched (a deferred literal that cannot be read or is not unique, an SDWA selector
/// out of range) then report through AMDGPUDisassembler::errOperand, which writes to the null stream
/// and the process dies. `llvm-mc-22 --disassemble` and `llvm-objdump-22 -d` die on the same bytes.
/// No valid GFX9 code reaches those paths except v_madak/madmk_f16 with K = 0xff, so the patterns
/// below are refused up front. They were found by decoding random words (biased toward operand
/// code 255) in forked children, where a fraction of a percent crashed; with this guard that hunt
/// comes back empty on gfx90a, gfx942 and gfx950. It is not a proof that no other pattern crashes.
///
/// GFX9 field layouts (AMD CDNA3 / CDNA2 ISA reference guides, "Microcode Formats"):
///   VOP3/VOP3P (incl. MFMA)  dword0[31:26] = 110100; SRC0/1/2 = dword1[8:0], [17:9], [26:18]
///   MUBUF / MTBUF            dword0[31:26] = 111000 / 111010; SOFFSET = dword1[31:24]
///   VOP1 / VOPC / VOP2       dword0[31:25] = 0111111 / 0111110 / dword0[31] = 0; SRC0 = dword0[8:0]
///   SDWA (SRC0 = 0xf9)       DST_SEL = dword1[10:8] (not VOPC), SRC0_SEL = [18:16], SRC1_SEL = [26:24]
/// Source code 255 means "32-bit literal follows", which GFX9 allows only in 32-bit encodings.
struct DecoderHazard {
  DiagCode code = DiagCode::decode_error;
  std::string why;
};

[[nodiscard]] inline std::uint32_t load_le32(std::span<const std::uint8_t> b, std::size_t at) {
  return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
         std::uint32_t(b[at + 3]) << 24;
}

/// `b` holds at least 8 bytes (the caller pads the end of its input). Empty `why` = safe to decode.
[[nodiscard]] inline DecoderHazard gfx9_decoder_hazard(std::span<const std::uint8_t> b) {
  if (b.size() < 8) return {};
  const std::uint32_t w0 = load_le32(b, 0);
  const std::uint32_t w1 = load_le32(b, 4);
  constexpr std::uint32_t literal = 255;
  const std::uint32_t top6 = w0 >> 26;

  if (top6 == 0b110100) {  // VOP3 / VOP3P: no literal on GFX9
    for (int shift : {0, 9, 18})
      if (((w1 >> shift) & 0x1ff) == literal)
        return {DiagCode::decode_error, "a VOP3 source is the literal code 255, which GFX9 does not allow"};
    return {};
  }
  if (top6 == 0b111000 || top6 == 0b111010) {  // MUBUF / MTBUF
    if ((w1 >> 24) == literal)
      return {DiagCode::decode_error, "SOFFSET is the literal code 255, which a buffer instruction does not allow"};
    return {};
  }
  if ((w0 >> 31) != 0) return {};
  const std::uint32_t top7 = w0 >> 25;
  const bool vopc = top7 == 0b0111110;
  if ((w0 & 0x1ff) == 0xf9) {  // SDWA on VOP1 / VOP2 / VOPC
    const bool bad_sel = (!vopc && ((w1 >> 8) & 7) == 7) || ((w1 >> 16) & 7) == 7 || ((w1 >> 24) & 7) == 7;
    if (bad_sel) return {DiagCode::decode_error, "an SDWA selector is 7, which is not a valid selector"};
    return {};
  }
  const std::uint32_t vop2_op = (w0 >> 25) & 0x3f;
  if (top7 != 0b0111111 && !vopc && (vop2_op == 36 || vop2_op == 37) && w1 == literal)
    return {DiagCode::unsupported,
            "v_madmk_f16/v_madak_f16 with K = 0x00ff is valid, but LLVM 22's disassembler crashes on it"};
  return {};
}

}  // namespace asmevo::mc::detail
