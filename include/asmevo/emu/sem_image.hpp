// The emulator's formatted memory semantics: gfx90a MIMG image_load/image_store on linear images and the MUBUF
// buffer_load/store_format_xyzw forms, with the texel format conversions and dst_sel swizzle they share.
#pragma once

// Sources (cited below by tag):
//  [ISA2]  AMD Instinct MI200 ISA (CDNA2), "Vector Memory Operations": "Vector Memory Buffer Instructions" (buffer
//          addressing, range checking, the BUFFER_*_FORMAT_* opcodes that take data format, number format and
//          dst_sel from the V#) and "Vector Memory (VM) Image Instructions" ("Image Opcodes with No Sampler":
//          IMAGE_LOAD / IMAGE_STORE, "VGPR Usage", "Image Resource", "Data Types").
//  [T#]    The gfx9 image resource layout, SQ_IMG_RSRC_WORD0..7, as ROCm's own runtime writes it
//          (ROCR-Runtime runtime/hsa-runtime/image/resource_ai.h; image_manager_ai.cpp PopulateImageSrd):
//          w0 BASE_ADDRESS = address bits 39:8, w1[7:0] BASE_ADDRESS_HI (bits 47:40), w1[25:20] DATA_FORMAT,
//          w1[29:26] NUM_FORMAT, w2[13:0] WIDTH-1, w2[27:14] HEIGHT-1, w3[11:0] DST_SEL_X/Y/Z/W (3 bits each),
//          w3[15:12] BASE_LEVEL, w3[19:16] LAST_LEVEL, w3[24:20] SW_MODE, w3[31:28] TYPE, w4[12:0] DEPTH-1 (3D) or
//          last array slice (arrays), w4[28:13] PITCH-1 (elements), w5[12:0] BASE_ARRAY. Enumerations (same
//          header): FMT_* data formats, TYPE_* number formats, SEL_0 = 0, SEL_1 = 1, SEL_X..W = 4..7,
//          SQ_RSRC_IMG_1D = 8, 2D = 9, 3D = 10, 1D_ARRAY = 12, 2D_ARRAY = 13.
//  [Addr]  Linear surface layout: AddrLib Gfx9Lib::HwlComputeSurfaceInfoLinear / ComputeSurfaceLinearPadding
//          (ROCR-Runtime image/addrlib): slice size = pitch * height * bytes per element for 2D/3D/2D-array, and
//          pitch * 1 for 1D/1D-array (one row per slice), mip level 0 at the base.
//  [LLVM]  LLVM AMDGPU MIMGInstructions.td (gfx90a MIMG operands: vdata, vaddr, srsrc, dmask, unorm, cpol,
//          r128/a16, lwe, da, d16; no tfe) and docs/AMDGPU/gfx9_addr_mimg.rst ("Image format and dimensions are
//          encoded in the image resource constant but not in the instruction": the disassembler prints a
//          one-VGPR vaddr, while the hardware reads as many address VGPRs as the resource type needs).
//
// What is modelled, and what stops the run as unsupported with a message naming the field:
//  - Formats: the equal-width DATA_FORMATs 8, 16, 8_8, 32, 16_16, 8_8_8_8, 32_32, 16_16_16_16, 32_32_32,
//    32_32_32_32 with NUM_FORMAT unorm, snorm, uscaled, sscaled (8/16-bit), uint, sint, float (16/32-bit).
//    Packed formats (5_6_5, 10_10_10_2, ...), srgb and the rest are unsupported.
//  - Load conversion to the 32-bit register value: uint zero-extends, sint sign-extends, uscaled/sscaled convert
//    the integer to f32 (exact for <= 16 bits), 16-bit float widens exactly (support/float_formats.hpp f16_to_f32), 32-bit data is
//    not converted ([ISA2] "data in memory that is 32 bits does not undergo any format conversion"). unorm gives
//    u / (2^n - 1), snorm max(s / (2^(n-1) - 1), -1) (the most negative code reads as -1.0, the D3D10 rule the
//    hardware follows): computed as the correctly rounded f32 quotient — the guide does not state the rounding,
//    so these two are APPROXIMATE (hardware may differ in the last bit).
//  - Components the format lacks read as 0 for X, Y, Z and 1 for W ("1" is f32 1.0 for unorm/snorm/scaled/float,
//    integer 1 for uint/sint; the same value SEL_1 gives), then dst_sel picks each returned component from
//    {0, 1, X, Y, Z, W}; dmask keeps the enabled components, packed into consecutive VGPRs.
//  - Store conversion: uint/sint values must fit the component width (a value that does not fit stops as
//    unsupported: the guide does not say whether it is clamped or truncated); unorm/snorm clamp to [0,1]/[-1,1]
//    (NaN -> 0), scale by 2^n-1 / 2^(n-1)-1 and round to nearest even; float -> f16 rounds to nearest even
//    (support/float_formats.hpp f32_to_f16). The rounding of these is not specified by the guide: APPROXIMATE. uscaled/sscaled
//    stores are unsupported. Stores need dst_sel to be the identity on the format's components and (images)
//    dmask to cover them; other swizzles/partial masks are unsupported (the guide does not define them for stores).
//  - Images: linear tiling only (SW_MODE 0); types 1D, 2D, 3D, 1D array, 2D array (cube/MSAA unsupported);
//    BASE_LEVEL 0 (and LAST_LEVEL 0 for arrays and 3D, whose slice size depends on the mip chain); BASE_ARRAY 0;
//    the instruction's `da` must agree with the resource type; `unorm` must be set (integer texel coordinates);
//    d16, lwe and r128/a16 are unsupported. glc/slc only steer caches, which the emulator does not model.
//    Coordinates are unsigned texel indices from vaddr, vaddr+1, vaddr+2 (x; x,y; x,y,z; x,slice; x,y,slice);
//    a lane with a coordinate past its dimension is out of range: its load returns 0 in X, Y, Z and W before
//    dst_sel, its store writes nothing (APPROXIMATE: the guide gives range checking for buffers only; this is
//    what the D3D/Vulkan robust-access rules describe for AMD hardware).
//    Address = base + ((slice * rows + y) * pitch + x) * element bytes, rows = height (2D array, 3D) or 1
//    (1D array) [Addr]. The waitcnt scoreboard sees only the one vaddr VGPR the encoding names (see [LLVM]).
//  - Buffers (*_format_xyzw): addressing and range checking as the plain buffer forms (sem_mem.hpp
//    buffer_addresses); a raw (non-idxen) element partly past num_records, swizzled and add_tid resources are
//    unsupported.

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "asmevo/emu/fp_convert.hpp"
#include "asmevo/emu/sem_mem.hpp"

namespace asmevo::emu {

/// NUM_FORMAT values ([T#] enum type; the V# uses the same codes in 3 bits).
namespace numfmt {
inline constexpr unsigned unorm = 0, snorm = 1, uscaled = 2, sscaled = 3, uint = 4, sint = 5, float_ = 7;
}

/// The layout of one texel/element in memory: `comps` components of `bits` bits each, X first (lowest address,
/// lowest bits), read and written through number format `num`. comps == 0: a format the emulator does not model.
struct TexelFormat {
  std::uint8_t comps = 0;
  std::uint8_t bits = 0;
  std::uint8_t num = 0;
  [[nodiscard]] constexpr unsigned bytes() const noexcept { return comps * bits / 8u; }
  [[nodiscard]] constexpr bool integer() const noexcept { return num == numfmt::uint || num == numfmt::sint; }
};

/// The TexelFormat of DATA_FORMAT `df` with NUM_FORMAT `nf` ([T#] enum FMT: 1 8, 2 16, 3 8_8, 4 32, 5 16_16,
/// 10 8_8_8_8, 11 32_32, 12 16_16_16_16, 13 32_32_32, 14 32_32_32_32), or comps == 0 when not modelled.
[[nodiscard]] constexpr TexelFormat texel_format(unsigned df, unsigned nf) noexcept {
  TexelFormat f;
  switch (df) {
    case 1: f = {1, 8, 0}; break;
    case 2: f = {1, 16, 0}; break;
    case 3: f = {2, 8, 0}; break;
    case 4: f = {1, 32, 0}; break;
    case 5: f = {2, 16, 0}; break;
    case 10: f = {4, 8, 0}; break;
    case 11: f = {2, 32, 0}; break;
    case 12: f = {4, 16, 0}; break;
    case 13: f = {3, 32, 0}; break;
    case 14: f = {4, 32, 0}; break;
    default: return {};
  }
  f.num = static_cast<std::uint8_t>(nf);
  bool ok = false;
  switch (nf) {
    case numfmt::unorm: case numfmt::snorm: case numfmt::uscaled: case numfmt::sscaled: ok = f.bits <= 16; break;
    case numfmt::uint: case numfmt::sint: ok = true; break;
    case numfmt::float_: ok = f.bits >= 16; break;
    default: ok = false;
  }
  return ok ? f : TexelFormat{};
}

/// The register value of "1" for number format `nf` (SEL_1, and the W of a format without W).
[[nodiscard]] constexpr std::uint32_t texel_one(unsigned nf) noexcept {
  return nf == numfmt::uint || nf == numfmt::sint ? 1u : 0x3f800000u;
}

/// Load conversion of one raw component (`bits` wide, zero-extended in `raw`) to its 32-bit register value.
[[nodiscard]] inline std::uint32_t texel_to_reg(std::uint32_t raw, unsigned nbits, unsigned nf) noexcept {
  if (nbits == 32) return raw;  // [ISA2]: 32-bit data is not converted
  const std::int32_t s = static_cast<std::int32_t>(raw << (32 - nbits)) >> (32 - nbits);
  switch (nf) {
    case numfmt::unorm:
      // u / (2^n - 1), correctly rounded: the double quotient cannot lie within double rounding of an f32
      // midpoint (|q - m| >= 2^-25 / (2^n - 1) relative for n <= 16), so rounding it to f32 rounds q once.
      return std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<double>(raw) / static_cast<double>((1u << nbits) - 1u)));
    case numfmt::snorm: {
      const double q = static_cast<double>(s) / static_cast<double>((1u << (nbits - 1)) - 1u);
      return std::bit_cast<std::uint32_t>(static_cast<float>(q < -1.0 ? -1.0 : q));
    }
    case numfmt::uscaled: return std::bit_cast<std::uint32_t>(static_cast<float>(raw));
    case numfmt::sscaled: return std::bit_cast<std::uint32_t>(static_cast<float>(s));
    case numfmt::sint: return static_cast<std::uint32_t>(s);
    case numfmt::float_: return std::bit_cast<std::uint32_t>(fp::f16_to_f32(static_cast<std::uint16_t>(raw)));
    default: return raw;  // uint
  }
}

/// Store conversion of one 32-bit register value to a raw component `bits` wide. Returns false (and leaves
/// `out`) for a value the emulator does not convert: an integer that does not fit, or a scaled format.
[[nodiscard]] inline bool reg_to_texel(std::uint32_t reg, unsigned nbits, unsigned nf, std::uint32_t& out) noexcept {
  if (nbits == 32) { out = reg; return true; }
  const std::uint32_t mask = (1u << nbits) - 1u;
  switch (nf) {
    case numfmt::uint:
      if (reg > mask) return false;
      out = reg;
      return true;
    case numfmt::sint: {
      const auto v = static_cast<std::int32_t>(reg);
      const std::int32_t lo = -(1 << (nbits - 1)), hi = (1 << (nbits - 1)) - 1;
      if (v < lo || v > hi) return false;
      out = static_cast<std::uint32_t>(v) & mask;
      return true;
    }
    case numfmt::unorm:
    case numfmt::snorm: {
      float f = fp::f32(reg);
      const bool sn = nf == numfmt::snorm;
      if (std::isnan(f)) f = 0.0f;
      const float lo = sn ? -1.0f : 0.0f;
      f = f < lo ? lo : (f > 1.0f ? 1.0f : f);
      const double scale = sn ? static_cast<double>((1u << (nbits - 1)) - 1u) : static_cast<double>(mask);
      // f * scale is exact in double (24 + 16 bits), so nearbyint (round to nearest even) rounds once.
      const auto q = static_cast<std::int32_t>(std::nearbyint(static_cast<double>(f) * scale));
      out = static_cast<std::uint32_t>(q) & mask;
      return true;
    }
    case numfmt::float_:
      out = fp::f32_to_f16(fp::f32(reg));
      return true;
    default: return false;
  }
}

/// Decodes one element at `p` (nullptr: out of range, every component 0 before dst_sel) into the four register
/// values selected by `dst_sel` (12 bits: X in 2:0 ... W in 11:9; codes 0, 1, 4..7 — 2 and 3 are rejected at issue).
inline void decode_texel(const std::byte* p, TexelFormat f, std::uint32_t dst_sel, std::uint32_t out[4]) noexcept {
  std::uint32_t c[8] = {0, texel_one(f.num), 0, 0, 0, 0, 0, 0};  // by SEL code
  if (p) {
    c[7] = texel_one(f.num);  // a format without W reads W as 1
    for (unsigned k = 0; k < f.comps; ++k) {
      std::uint32_t raw = 0;
      std::memcpy(&raw, p + k * (f.bits / 8u), f.bits / 8u);  // little-endian host and device
      c[4 + k] = texel_to_reg(raw, f.bits, f.num);
    }
  }
  for (unsigned i = 0; i < 4; ++i) out[i] = c[(dst_sel >> (3 * i)) & 7u];
}

/// Encodes the X, Y, Z, W register values `in` into an element at `out` (f.bytes() bytes). Returns the index of
/// the first component that cannot be converted, or -1.
[[nodiscard]] inline int encode_texel(const std::uint32_t in[4], TexelFormat f, std::byte* out) noexcept {
  for (unsigned k = 0; k < f.comps; ++k) {
    std::uint32_t raw = 0;
    if (!reg_to_texel(in[k], f.bits, f.num, raw)) return static_cast<int>(k);
    std::memcpy(out + k * (f.bits / 8u), &raw, f.bits / 8u);
  }
  return -1;
}

namespace detail {

[[nodiscard]] inline std::string texel_format_text(unsigned df, unsigned nf) {
  return "data format " + std::to_string(df) + ", number format " + std::to_string(nf);
}

/// Checks dst_sel codes ([T#] SEL: 0, 1, 4..7; 2 and 3 are not defined).
[[nodiscard]] constexpr bool dst_sel_valid(std::uint32_t sel) noexcept {
  for (unsigned i = 0; i < 4; ++i)
    if (((sel >> (3 * i)) & 7u) == 2u || ((sel >> (3 * i)) & 7u) == 3u) return false;
  return true;
}
/// Whether dst_sel is the identity on the format's components (component i selects X + i), as stores require.
[[nodiscard]] constexpr bool dst_sel_identity(std::uint32_t sel, unsigned comps) noexcept {
  for (unsigned i = 0; i < comps; ++i)
    if (((sel >> (3 * i)) & 7u) != 4u + i) return false;
  return true;
}

// ---- MIMG fields -----------------------------------------------------------------------------------------------

/// Op::aux of a MIMG form, packed at decode time from its operands (named by [LLVM] MIMGInstructions.td):
/// bits 3:0 dmask, 4 unorm, 5 da, 6 r128/a16, 7 lwe, 8 tfe, 9 d16.
namespace mimg {
inline constexpr std::uint32_t unorm = 1u << 4, da = 1u << 5, a16 = 1u << 6, lwe = 1u << 7, tfe = 1u << 8, d16 = 1u << 9;
}
[[nodiscard]] inline std::uint32_t mimg_fields(const isa::FormInfo& f, const Op& op) noexcept {
  const auto infos = isa::operands(f);
  std::uint32_t a = 0;
  for (std::size_t k = 0; k < infos.size() && k < op.nslots; ++k) {
    const Slot& s = op.slots[k];
    if (s.kind != Slot::Kind::constant) continue;
    const std::string_view n = infos[k].name;
    const std::uint32_t v = static_cast<std::uint32_t>(s.value);
    if (n == "dmask") a |= v & 15u;
    else if (n == "unorm" && v) a |= mimg::unorm;
    else if (n == "da" && v) a |= mimg::da;
    else if ((n == "r128" || n == "a16") && v) a |= mimg::a16;
    else if (n == "lwe" && v) a |= mimg::lwe;
    else if (n == "tfe" && v) a |= mimg::tfe;
    else if (n == "d16" && v) a |= mimg::d16;
  }
  return a;
}

// ---- the image resource ----------------------------------------------------------------------------------------

/// The fields of a 256-bit T# the emulator uses ([T#]).
struct Tsharp {
  std::uint64_t base = 0;
  std::uint32_t data_format = 0, num_format = 0;
  std::uint32_t width = 0, height = 0, depth = 0, pitch = 0;  ///< sizes (the fields + 1); depth = slices for arrays
  std::uint32_t dst_sel = 0;  ///< 12 bits
  std::uint32_t base_level = 0, last_level = 0, sw_mode = 0, type = 0, base_array = 0;
};

[[nodiscard]] inline Tsharp read_tsharp(const Wave& w, unsigned code) noexcept {
  const std::uint32_t* r = &w.s[code];
  Tsharp t;
  t.base = (static_cast<std::uint64_t>(r[0]) | static_cast<std::uint64_t>(r[1] & 0xffu) << 32) << 8;
  t.data_format = (r[1] >> 20) & 0x3fu;
  t.num_format = (r[1] >> 26) & 0xfu;
  t.width = (r[2] & 0x3fffu) + 1;
  t.height = ((r[2] >> 14) & 0x3fffu) + 1;
  t.dst_sel = r[3] & 0xfffu;
  t.base_level = (r[3] >> 12) & 0xfu;
  t.last_level = (r[3] >> 16) & 0xfu;
  t.sw_mode = (r[3] >> 20) & 0x1fu;
  t.type = (r[3] >> 28) & 0xfu;
  t.depth = (r[4] & 0x1fffu) + 1;
  t.pitch = ((r[4] >> 13) & 0xffffu) + 1;
  t.base_array = r[5] & 0x1fffu;
  return t;
}

inline constexpr std::uint32_t img_1d = 8, img_2d = 9, img_3d = 10, img_1d_array = 12, img_2d_array = 13;

/// Checks the instruction and resource against what is modelled (see the file comment); stops the run and
/// returns an invalid format otherwise. `store`: image_store's extra conditions.
[[nodiscard]] inline TexelFormat image_checks(Wave& w, const Op& op, const Tsharp& t, bool store) {
  auto stop = [&](const std::string& why) {
    w.stop_with(Stop::Kind::unsupported, op, std::string(op.mnemonic()) + ": " + why);
    return TexelFormat{};
  };
  const std::uint32_t a = op.aux;
  const Slot& rs = op.at(Name::srsrc);
  if (rs.kind != Slot::Kind::scalar || rs.dwords < 8) return stop("a 128-bit (r128) image resource is not implemented");
  if (a & (mimg::a16 | mimg::lwe | mimg::tfe | mimg::d16))
    return stop("the d16, a16/r128, lwe and tfe modifiers are not implemented");
  if (!(a & mimg::unorm))
    return stop("normalised coordinates (no `unorm`) are not implemented; image_load/image_store take integer texel "
                "coordinates with `unorm`");
  if ((a & 15u) == 0) return stop("dmask 0 is not implemented");
  if (t.sw_mode != 0)
    return stop("the image resource has swizzle mode " + std::to_string(t.sw_mode) +
                " (tiled); only linear images (SW_MODE 0) are implemented");
  const bool array = t.type == img_1d_array || t.type == img_2d_array;
  if (t.type != img_1d && t.type != img_2d && t.type != img_3d && !array)
    return stop("image resource type " + std::to_string(t.type) +
                " is not implemented (only 1D 8, 2D 9, 3D 10, 1D array 12, 2D array 13)");
  if (array != ((a & mimg::da) != 0))
    return stop(std::string("the instruction's da (") + ((a & mimg::da) ? "1" : "0") +
                ") does not match the resource type " + std::to_string(t.type) + " (the guide leaves this undefined)");
  if (t.base_level != 0 || ((array || t.type == img_3d) && t.last_level != 0))
    return stop("mip levels are not implemented (BASE_LEVEL " + std::to_string(t.base_level) + ", LAST_LEVEL " +
                std::to_string(t.last_level) + ")");
  if (array && t.base_array != 0) return stop("a non-zero BASE_ARRAY is not implemented");
  if (!dst_sel_valid(t.dst_sel)) return stop("the resource's dst_sel uses an undefined code (2 or 3)");
  const TexelFormat f = texel_format(t.data_format, t.num_format);
  if (f.comps == 0) return stop("image format (" + texel_format_text(t.data_format, t.num_format) + ") is not implemented");
  if (store) {
    if (!dst_sel_identity(t.dst_sel, f.comps))
      return stop("a store through a non-identity dst_sel (" + std::to_string(t.dst_sel) +
                  ") is not implemented: the guide does not define how stores use it");
    if ((a & ((1u << f.comps) - 1u)) != ((1u << f.comps) - 1u))
      return stop("a store whose dmask does not cover every component of the format is not implemented");
  }
  const Slot& va = op.at(Name::vaddr);
  if (va.kind != Slot::Kind::vgpr) return stop("vaddr is not a VGPR");
  // The resource type decides how many address VGPRs are read ([LLVM] gfx9_addr_mimg.rst), so they can run past
  // the VGPRs the wave owns although the encoding names one.
  const unsigned ncoord = t.type == img_1d ? 1u : (t.type == img_3d || t.type == img_2d_array ? 3u : 2u);
  if (va.index < agpr_row0 && w.vgpr_limit != 0 && va.index + ncoord > w.vgpr_limit) {
    w.stop_with(Stop::Kind::illegal, op,
                std::string(op.mnemonic()) + ": the resource type " + std::to_string(t.type) + " reads " +
                    std::to_string(ncoord) + " address VGPRs from v" + std::to_string(va.index) +
                    ", past the wave's " + std::to_string(w.vgpr_limit) + " VGPRs");
    return {};
  }
  return f;
}

/// Per-lane addresses and in-range lanes of an image access (see the file comment for the formula).
inline void image_addresses(const Wave& w, const Op& op, const Tsharp& t, TexelFormat f, MemOp& m) noexcept {
  const unsigned row = op.at(Name::vaddr).index;
  const bool has_y = t.type == img_2d || t.type == img_3d || t.type == img_2d_array;
  const bool has_z = t.type == img_3d || t.type == img_1d_array || t.type == img_2d_array;
  const unsigned zrow = row + (has_y ? 2u : 1u);
  const std::uint64_t rows = t.type == img_1d_array ? 1u : t.height;
  const std::uint64_t bpe = f.bytes();
  LaneMask in = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const std::uint32_t x = w.v[row][l];
    const std::uint32_t y = has_y ? w.v[row + 1][l] : 0u;
    const std::uint32_t z = has_z ? w.v[zrow][l] : 0u;
    const bool ok = x < t.width && (!has_y || y < t.height) && (!has_z || z < t.depth);
    in |= static_cast<LaneMask>(ok) << l;
    m.addr[l] = t.base + ((static_cast<std::uint64_t>(z) * rows + y) * t.pitch + x) * bpe;
  }
  m.mask = in & m.exec;
}

[[nodiscard]] constexpr std::uint64_t pack_format(TexelFormat f, std::uint32_t dst_sel, std::uint32_t dmask) noexcept {
  return f.comps | static_cast<std::uint64_t>(f.bits) << 8 | static_cast<std::uint64_t>(f.num) << 16 |
         static_cast<std::uint64_t>(dst_sel) << 24 | static_cast<std::uint64_t>(dmask) << 40;
}
[[nodiscard]] constexpr TexelFormat unpack_format(std::uint64_t a) noexcept {
  return {static_cast<std::uint8_t>(a & 0xffu), static_cast<std::uint8_t>((a >> 8) & 0xffu),
          static_cast<std::uint8_t>((a >> 16) & 0xffu)};
}

/// Completion of a formatted load: m.aux[0] = pack_format(...); lanes outside m.mask read as out of range.
inline void format_load_done(Wave& w, MemOp& m) {
  const TexelFormat f = unpack_format(m.aux[0]);
  const auto sel = static_cast<std::uint32_t>((m.aux[0] >> 24) & 0xfffu);
  const auto dmask = static_cast<std::uint32_t>((m.aux[0] >> 40) & 15u);
  std::size_t hint = Memory::npos;
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    const std::byte* p = nullptr;
    if ((m.mask >> l) & 1) {
      p = global_ptr(w, *m.op, l, m.addr[l], f.bytes(), false, hint);
      if (!p) return;
    }
    std::uint32_t v[4];
    decode_texel(p, f, sel, v);
    unsigned k = 0;
    for (unsigned i = 0; i < 4; ++i)
      if ((dmask >> i) & 1) w.v[m.dst.first + k++][l] = v[i];
  }
}

/// Completion of a formatted store: the element bytes were converted at issue into m.data (byte i of lane l at
/// byte i of the little-endian dwords m.data[0..3][l]); m.aux[0] = element bytes.
inline void format_store_done(Wave& w, MemOp& m) {
  const auto bytes = static_cast<unsigned>(m.aux[0]);
  std::size_t hint = Memory::npos;
  for (LaneMask e = m.mask; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    std::byte* p = global_ptr(w, *m.op, l, m.addr[l], bytes, true, hint);
    if (!p) return;
    std::byte buf[16];
    for (unsigned k = 0; k < 4; ++k) std::memcpy(buf + 4 * k, &m.data[k][l], 4);
    std::memcpy(p, buf, bytes);
  }
}

/// Converts the captured register data of every lane in m.mask (components given by `dmask`, packed from
/// m.data[0]) into element bytes in place. Stops the run (and returns false) on a value that cannot be converted.
[[nodiscard]] inline bool convert_store_data(Wave& w, const Op& op, MemOp& m, TexelFormat f, std::uint32_t dmask) {
  for (LaneMask e = m.mask; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    std::uint32_t in[4] = {0, 0, 0, 0};
    unsigned k = 0;
    for (unsigned i = 0; i < 4; ++i)
      if ((dmask >> i) & 1) in[i] = m.data[k++][l];
    std::byte buf[16] = {};
    const int bad = encode_texel(in, f, buf);
    if (bad >= 0) {
      w.stop_with(Stop::Kind::unsupported, op,
                  std::string(op.mnemonic()) + ": lane " + std::to_string(l) + " stores component " +
                      std::to_string(bad) + " value " + std::to_string(in[bad]) + " (0x" +
                      hex64(in[bad]).substr(2) + ") to a " + std::to_string(f.bits) + "-bit " +
                      (f.num == numfmt::sint ? "sint" : f.num == numfmt::uint ? "uint" : "scaled") +
                      " component: out-of-range integer (or scaled) stores are not implemented (the guide does not "
                      "say whether they clamp or truncate)",
                  static_cast<std::int32_t>(l));
      return false;
    }
    for (unsigned j = 0; j < 4; ++j) std::memcpy(&m.data[j][l], buf + 4 * j, 4);
  }
  return true;
}

// ---- handlers --------------------------------------------------------------------------------------------------

/// image_load (no sampler): the texel at integer coordinates, converted by the T#'s format and dst_sel; dmask picks
/// the returned components (see the file comment for what is modelled).
inline void image_load(Wave& w, const Op& op) {
  const Tsharp t = read_tsharp(w, op.at(Name::srsrc).index);
  const TexelFormat f = image_checks(w, op, t, false);
  if (f.comps == 0) return;
  const std::uint32_t dmask = op.aux & 15u;
  const Slot& d = op.at(Name::vdata);
  MemOp& m = begin_memop(w, op, MemOp::Counter::vm);
  m.exec = w.exec();
  image_addresses(w, op, t, f, m);
  m.aux[0] = pack_format(f, t.dst_sel, dmask);
  m.dst = {true, static_cast<std::uint16_t>(d.index), static_cast<std::uint16_t>(std::popcount(dmask))};
  m.complete = &format_load_done;
  issue(w);
}

/// image_store (no sampler): converts the dmask components from vdata to the T#'s format and writes the texel;
/// out-of-range lanes write nothing.
inline void image_store(Wave& w, const Op& op) {
  const Tsharp t = read_tsharp(w, op.at(Name::srsrc).index);
  const TexelFormat f = image_checks(w, op, t, true);
  if (f.comps == 0) return;
  const std::uint32_t dmask = op.aux & 15u;
  MemOp& m = begin_memop(w, op, MemOp::Counter::vm);
  m.exec = w.exec();
  image_addresses(w, op, t, f, m);
  capture(w, op.at(Name::vdata), m, static_cast<unsigned>(std::popcount(dmask)));
  if (!convert_store_data(w, op, m, f, dmask)) { abandon_memop(w); return; }
  m.aux[0] = f.bytes();
  m.complete = &format_store_done;
  issue(w);
}

/// The V# format checks of buffer_*_format_xyzw; stops and returns an invalid format when not modelled.
[[nodiscard]] inline TexelFormat buffer_format_checks(Wave& w, const Op& op, const Vsharp& v, const BufMode& b, bool store) {
  auto stop = [&](const std::string& why) {
    w.stop_with(Stop::Kind::unsupported, op, std::string(op.mnemonic()) + ": " + why);
    return TexelFormat{};
  };
  if (!buffer_supported(w, op, v, b)) return {};
  if (v.swizzle || v.add_tid) return stop("formatted access to a swizzled or add_tid resource is not implemented");
  if (op.imm(Name::d16)) return stop("d16 is not implemented");
  const TexelFormat f = texel_format(v.data_format, v.num_format);
  if (f.comps == 0) return stop("resource format (" + texel_format_text(v.data_format, v.num_format) + ") is not implemented");
  const Slot& rs = op.at(Name::srsrc);
  const std::uint32_t sel = w.s[rs.index + 3] & 0xfffu;
  if (!dst_sel_valid(sel)) return stop("the resource's dst_sel uses an undefined code (2 or 3)");
  if (store && !dst_sel_identity(sel, f.comps))
    return stop("a store through a non-identity dst_sel (" + std::to_string(sel) +
                ") is not implemented: the guide does not define how stores use it");
  return f;
}

/// A raw (non-idxen) formatted element must lie wholly inside or wholly outside num_records; a straddling one
/// stops the run (the per-component range check of formatted elements is not modelled).
[[nodiscard]] inline bool buffer_format_range(Wave& w, const Op& op, const BufMode& b, TexelFormat f, MemOp& m) {
  if (b.idxen) return true;
  for (LaneMask e = m.mask; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    const std::uint64_t off = m.addr[l] - m.aux[0];
    if (off + f.bytes() > m.aux[1]) {
      w.stop_with(Stop::Kind::unsupported, op,
                  std::string(op.mnemonic()) + ": lane " + std::to_string(l) + "'s " + std::to_string(f.bytes()) +
                      "-byte element at offset " + std::to_string(off) + " straddles num_records " +
                      std::to_string(m.aux[1]) + "; partial range checking of formatted elements is not implemented",
                  static_cast<std::int32_t>(l));
      return false;
    }
  }
  return true;
}

/// buffer_load_format_xyzw: the element at the buffer address, converted by the V#'s data/number format and
/// dst_sel ([ISA2] BUFFER_LOAD_FORMAT_XYZW); out-of-range lanes return 0 in every component before dst_sel.
inline void buffer_load_format_xyzw(Wave& w, const Op& op) {
  const Vsharp v = read_vsharp(w, op.at(Name::srsrc));
  const BufMode b = buf_mode(op);
  const TexelFormat f = buffer_format_checks(w, op, v, b, false);
  if (f.comps == 0) return;
  const Slot& d = op.at(Name::vdata);
  MemOp& m = begin_memop(w, op, MemOp::Counter::vm);
  m.exec = w.exec();
  buffer_addresses(w, op, v, b, m);
  if (!buffer_format_range(w, op, b, f, m)) { abandon_memop(w); return; }
  m.aux[0] = pack_format(f, w.s[op.at(Name::srsrc).index + 3] & 0xfffu, 15u);
  m.dst = {true, static_cast<std::uint16_t>(d.index), 4};
  m.complete = &format_load_done;
  issue(w);
}

/// buffer_store_format_xyzw: converts vdata's X, Y, Z, W to the V#'s format and writes the element ([ISA2]
/// BUFFER_STORE_FORMAT_XYZW); out-of-range lanes write nothing.
inline void buffer_store_format_xyzw(Wave& w, const Op& op) {
  const Vsharp v = read_vsharp(w, op.at(Name::srsrc));
  const BufMode b = buf_mode(op);
  const TexelFormat f = buffer_format_checks(w, op, v, b, true);
  if (f.comps == 0) return;
  MemOp& m = begin_memop(w, op, MemOp::Counter::vm);
  m.exec = w.exec();
  buffer_addresses(w, op, v, b, m);
  if (!buffer_format_range(w, op, b, f, m)) { abandon_memop(w); return; }
  capture(w, op.at(Name::vdata), m, 4);
  if (!convert_store_data(w, op, m, f, 15u)) { abandon_memop(w); return; }
  m.aux[0] = f.bytes();
  m.complete = &format_store_done;
  issue(w);
}

inline constexpr std::string_view format_load_note =
    "unorm/snorm -> f32 is the correctly rounded quotient (the guide does not state the rounding); out-of-range image "
    "texels read as 0 (assumed: the guide states range checking for buffers only); other conversions exact";
inline constexpr std::string_view format_store_note =
    "f32 -> unorm/snorm/f16 round to nearest even (the guide does not state the rounding); integer and 32-bit "
    "formats exact; out-of-range image texels are not written (assumed)";

inline constexpr Semantics image_table[] = {
    {op::image_load, image_load, Exactness::approximate, format_load_note},
    {op::image_store, image_store, Exactness::approximate, format_store_note},
    {op::buffer_load_format_xyzw, buffer_load_format_xyzw, Exactness::approximate,
     "unorm/snorm -> f32 is the correctly rounded quotient (the guide does not state the rounding); other conversions exact"},
    {op::buffer_store_format_xyzw, buffer_store_format_xyzw, Exactness::approximate,
     "f32 -> unorm/snorm/f16 round to nearest even (the guide does not state the rounding); integer and 32-bit formats exact"},
};

}  // namespace detail

/// The formatted memory instructions: image_load, image_store (linear gfx90a images) and
/// buffer_load/store_format_xyzw.
[[nodiscard]] inline std::span<const Semantics> image_semantics() noexcept { return detail::image_table; }

}  // namespace asmevo::emu
