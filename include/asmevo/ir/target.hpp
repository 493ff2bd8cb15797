// Targets asmevo knows, by LLVM processor name, and the per-target limits the IR checks against.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace asmevo {

/// A gfx9-family wave64 target, named as LLVM names the processor (never a marketing name).
enum class Target : std::uint8_t { gfx90a, gfx942, gfx950 };

inline constexpr std::array<Target, 3> all_targets{Target::gfx90a, Target::gfx942, Target::gfx950};

[[nodiscard]] constexpr std::string_view to_string(Target t) noexcept {
  switch (t) {
    case Target::gfx90a: return "gfx90a";
    case Target::gfx942: return "gfx942";
    case Target::gfx950: return "gfx950";
  }
  return "?";
}

/// Parses an -mcpu name. gfx940/gfx941 are accepted as gfx942: LLVM 22 dropped them and code
/// written for them assembles as gfx942 (same ISA; see shared corpus README).
[[nodiscard]] constexpr std::optional<Target> parse_target(std::string_view s) noexcept {
  if (s == "gfx90a") return Target::gfx90a;
  if (s == "gfx942" || s == "gfx940" || s == "gfx941") return Target::gfx942;
  if (s == "gfx950") return Target::gfx950;
  return std::nullopt;
}

/// Register-file and counter limits of a target.
struct TargetLimits {
  std::uint16_t sgprs;         ///< addressable SGPRs s0..s(N-1) in instructions (not counting vcc etc.)
  std::uint16_t vgprs;         ///< architected VGPRs v0..v(N-1)
  std::uint16_t agprs;         ///< accumulation VGPRs a0..a(N-1)
  std::uint16_t ttmps;         ///< trap temporaries ttmp0..ttmp(N-1)
  bool tuple_align2;           ///< VGPR/AGPR tuples of >= 2 dwords must start at an even register
  std::uint8_t vmcnt_bits;     ///< s_waitcnt vmcnt width (gfx9: 6 bits, split 4 + 2)
  std::uint8_t expcnt_bits;    ///< s_waitcnt expcnt width
  std::uint8_t lgkmcnt_bits;   ///< s_waitcnt lgkmcnt width
  std::uint32_t lds_bytes;     ///< LDS per workgroup
  std::uint32_t private_lane_bytes;  ///< private (scratch) bytes per work-item a dispatch can have
};

/// Limits per target. Sources: AMD "AMD Instinct MI300 ISA" (CDNA3) and "MI200 ISA" (CDNA2)
/// reference guides, sections 3.6 (SGPRs: 102 addressable + VCC), 3.6.4 (unified VGPR file of 512
/// per lane: 256 ArchVGPRs + 256 AccVGPRs), 4.4 (S_WAITCNT: vmcnt 6 bits in simm16[3:0] and
/// simm16[15:14], expcnt simm16[6:4], lgkmcnt simm16[11:8]); the even-alignment rule for 64-bit
/// and wider VGPR/AGPR operands is LLVM's FeatureGFX90AInsts "needs aligned VGPRs"
/// (AMDGPUAsmParser::validateVGPRAlign). LDS: 64 KiB on gfx90a/gfx942, 160 KiB on gfx950
/// (LLVM FeatureAddressableLocalMemorySize163840). Private memory: a wave's scratch is COMPUTE_TMPRING_SIZE.WAVESIZE,
/// a 13-bit count of 1 KiB granules before gfx11, so at most 1024 * 8191 bytes per wave, 131056 per work-item of a
/// wave64 (LLVM GCNSubtarget::getMaxWaveScratchSize; AMDGPUAsmPrinter rejects a larger stack).
[[nodiscard]] constexpr TargetLimits limits(Target t) noexcept {
  const bool g950 = t == Target::gfx950;
  return TargetLimits{102, 256, 256, 16, true, 6, 3, 4, g950 ? 163840u : 65536u, 1024u * 8191u / 64u};
}

}  // namespace asmevo
