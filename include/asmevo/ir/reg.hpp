// Registers: run-time register ranges (Reg) and compile-time typed ranges (RegT) whose file and width are in the type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "asmevo/ir/target.hpp"

namespace asmevo {

/// Register files. `special` registers are named by their hardware scalar-source operand code.
enum class RegFile : std::uint8_t { sgpr, vgpr, agpr, ttmp, special };

[[nodiscard]] constexpr std::string_view prefix(RegFile f) noexcept {
  switch (f) {
    case RegFile::sgpr: return "s";
    case RegFile::vgpr: return "v";
    case RegFile::agpr: return "a";
    case RegFile::ttmp: return "ttmp";
    case RegFile::special: return "";
  }
  return "?";
}

/// Hardware scalar-source codes of special registers (SSRC0/SRC0 operand encoding table,
/// "AMD Instinct MI300 ISA" section 3.6 / the SSRC table of chapter 12; same numbers in the MI200
/// guide). 64-bit pairs are named by their low half's code with dwords = 2.
namespace special {
inline constexpr std::uint16_t flat_scratch_lo = 102, flat_scratch_hi = 103;
inline constexpr std::uint16_t xnack_mask_lo = 104, xnack_mask_hi = 105;
inline constexpr std::uint16_t vcc_lo = 106, vcc_hi = 107;
inline constexpr std::uint16_t tba_lo = 108, tba_hi = 109, tma_lo = 110, tma_hi = 111;
inline constexpr std::uint16_t m0 = 124;
inline constexpr std::uint16_t exec_lo = 126, exec_hi = 127;
inline constexpr std::uint16_t src_shared_base = 235, src_shared_limit = 236;
inline constexpr std::uint16_t src_private_base = 237, src_private_limit = 238;
inline constexpr std::uint16_t src_pops_exiting_wave_id = 239;
inline constexpr std::uint16_t src_vccz = 251, src_execz = 252, src_scc = 253, src_lds_direct = 254;
/// SCC has no source code of its own (it is read through src_scc); 0x3fe is outside the 9-bit space.
inline constexpr std::uint16_t scc = 0x3fe;
}  // namespace special

/// A run-time register range: `file`, first register `index`, and `dwords` consecutive registers.
/// Special registers use RegFile::special with `index` = hardware code (see namespace special).
struct Reg {
  RegFile file = RegFile::vgpr;
  std::uint16_t index = 0;
  std::uint16_t dwords = 1;

  [[nodiscard]] constexpr std::uint16_t last() const noexcept {
    return static_cast<std::uint16_t>(index + dwords - 1);
  }
  friend constexpr bool operator==(const Reg&, const Reg&) = default;
};

/// Name of a special register as LLVM prints it, or empty if `r` is not one.
[[nodiscard]] constexpr std::string_view special_name(const Reg& r) noexcept {
  using namespace special;
  if (r.file != RegFile::special) return {};
  if (r.dwords == 2) {
    switch (r.index) {
      case flat_scratch_lo: return "flat_scratch";
      case xnack_mask_lo: return "xnack_mask";
      case vcc_lo: return "vcc";
      case tba_lo: return "tba";
      case tma_lo: return "tma";
      case exec_lo: return "exec";
      case src_shared_base: return "src_shared_base";
      case src_shared_limit: return "src_shared_limit";
      case src_private_base: return "src_private_base";
      case src_private_limit: return "src_private_limit";
      default: return {};
    }
  }
  if (r.dwords != 1) return {};
  switch (r.index) {
    case flat_scratch_lo: return "flat_scratch_lo";
    case flat_scratch_hi: return "flat_scratch_hi";
    case xnack_mask_lo: return "xnack_mask_lo";
    case xnack_mask_hi: return "xnack_mask_hi";
    case vcc_lo: return "vcc_lo";
    case vcc_hi: return "vcc_hi";
    case tba_lo: return "tba_lo";
    case tba_hi: return "tba_hi";
    case tma_lo: return "tma_lo";
    case tma_hi: return "tma_hi";
    case m0: return "m0";
    case exec_lo: return "exec_lo";
    case exec_hi: return "exec_hi";
    case src_shared_base: return "src_shared_base";
    case src_shared_limit: return "src_shared_limit";
    case src_private_base: return "src_private_base";
    case src_private_limit: return "src_private_limit";
    case src_pops_exiting_wave_id: return "src_pops_exiting_wave_id";
    case src_vccz: return "src_vccz";
    case src_execz: return "src_execz";
    case src_scc: return "src_scc";
    case src_lds_direct: return "src_lds_direct";
    case scc: return "scc";
    default: return {};
  }
}

/// Looks up a special register by any of the spellings LLVM accepts (`vcc`, `src_vccz`, `vccz`, …).
[[nodiscard]] constexpr std::optional<Reg> special_by_name(std::string_view n) noexcept {
  struct Alias {
    std::string_view name;
    std::uint16_t code;
    std::uint16_t dwords;
  };
  using namespace special;
  constexpr Alias table[] = {
      {"flat_scratch", flat_scratch_lo, 2}, {"flat_scratch_lo", flat_scratch_lo, 1},
      {"flat_scratch_hi", flat_scratch_hi, 1}, {"xnack_mask", xnack_mask_lo, 2},
      {"xnack_mask_lo", xnack_mask_lo, 1}, {"xnack_mask_hi", xnack_mask_hi, 1},
      {"vcc", vcc_lo, 2}, {"vcc_lo", vcc_lo, 1}, {"vcc_hi", vcc_hi, 1},
      {"tba", tba_lo, 2}, {"tba_lo", tba_lo, 1}, {"tba_hi", tba_hi, 1},
      {"tma", tma_lo, 2}, {"tma_lo", tma_lo, 1}, {"tma_hi", tma_hi, 1},
      {"m0", m0, 1}, {"exec", exec_lo, 2}, {"exec_lo", exec_lo, 1}, {"exec_hi", exec_hi, 1},
      {"src_shared_base", src_shared_base, 1}, {"shared_base", src_shared_base, 1},
      {"src_shared_limit", src_shared_limit, 1}, {"shared_limit", src_shared_limit, 1},
      {"src_private_base", src_private_base, 1}, {"private_base", src_private_base, 1},
      {"src_private_limit", src_private_limit, 1}, {"private_limit", src_private_limit, 1},
      {"src_pops_exiting_wave_id", src_pops_exiting_wave_id, 1},
      {"pops_exiting_wave_id", src_pops_exiting_wave_id, 1},
      {"src_vccz", src_vccz, 1}, {"vccz", src_vccz, 1}, {"src_execz", src_execz, 1},
      {"execz", src_execz, 1}, {"src_scc", src_scc, 1}, {"scc", scc, 1},
      {"src_lds_direct", src_lds_direct, 1}, {"lds_direct", src_lds_direct, 1},
  };
  for (const auto& a : table)
    if (a.name == n) return Reg{RegFile::special, a.code, a.dwords};
  return std::nullopt;
}

/// Why a register range is not valid on a target (empty string_view = valid).
[[nodiscard]] constexpr std::string_view range_problem(Target t, RegFile f, unsigned lo, unsigned dwords) noexcept {
  const auto lim = limits(t);
  if (dwords == 0) return "register range is empty";
  unsigned count = 0;
  switch (f) {
    case RegFile::sgpr: count = lim.sgprs; break;
    case RegFile::vgpr: count = lim.vgprs; break;
    case RegFile::agpr: count = lim.agprs; break;
    case RegFile::ttmp: count = lim.ttmps; break;
    case RegFile::special: return {};
  }
  if (lo + dwords > count) return "register index out of range for the target";
  // SGPR and TTMP tuples are aligned by their size up to 4 dwords (ISA guide 3.6: "64-bit SGPR
  // pairs must be even-aligned; quads aligned to 4"). VGPR/AGPR tuples on gfx90a+ must be even.
  if ((f == RegFile::sgpr || f == RegFile::ttmp) && dwords >= 2) {
    const unsigned a = dwords >= 4 ? 4 : 2;
    if (lo % a != 0) return "misaligned scalar register tuple";
  }
  if ((f == RegFile::vgpr || f == RegFile::agpr) && dwords >= 2 && lim.tuple_align2 && lo % 2 != 0)
    return "misaligned register tuple: the target needs an even first register";
  return {};
}

/// Prints a register as LLVM does: `v1`, `v[2:3]`, `s[4:7]`, `ttmp[0:1]`, `vcc`, `exec_lo`.
[[nodiscard]] inline std::string to_string(const Reg& r) {
  if (r.file == RegFile::special) {
    auto n = special_name(r);
    return n.empty() ? "special(" + std::to_string(r.index) + ")" : std::string(n);
  }
  std::string s(prefix(r.file));
  if (r.dwords == 1) return s + std::to_string(r.index);
  return s + "[" + std::to_string(r.index) + ":" + std::to_string(r.last()) + "]";
}

/// A register range whose file, first index and width are compile-time constants.
/// The width is part of the type, so builders check file, width and alignment with static_assert.
template <RegFile F, unsigned Lo, unsigned Dwords>
struct RegT {
  static constexpr RegFile file = F;
  static constexpr unsigned lo = Lo;
  static constexpr unsigned dwords = Dwords;
  static_assert(Dwords >= 1 && Dwords <= 32, "register range: width must be 1..32 dwords");
  constexpr operator Reg() const noexcept {  // NOLINT: a typed range is a Reg
    return Reg{F, static_cast<std::uint16_t>(Lo), static_cast<std::uint16_t>(Dwords)};
  }
};

/// A special register known at compile time (`vcc`, `exec`, `m0` …), by hardware code.
template <std::uint16_t Code, unsigned Dwords>
using SpecialT = RegT<RegFile::special, Code, Dwords>;

template <class T>
inline constexpr bool is_reg_type = false;
template <RegFile F, unsigned Lo, unsigned D>
inline constexpr bool is_reg_type<RegT<F, Lo, D>> = true;

}  // namespace asmevo
