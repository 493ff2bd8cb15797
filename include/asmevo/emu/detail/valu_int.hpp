// Lane functions of the integer VALU opcodes (32-, 16- and 64-bit), for the generic handler of valu_core.hpp.
#pragma once

// Semantics follow the per-opcode pseudo-code of the AMD Instinct MI300 ISA (CDNA3) §"Vector ALU instructions"
// (cited [ISA] with the opcode name); the MI200 (CDNA2) guide has the same text for the gfx90a opcodes.

#include <algorithm>
#include <bit>
#include <cstdint>

#include "asmevo/emu/detail/valu_core.hpp"
#include "asmevo/emu/int_ops.hpp"

namespace asmevo::emu::detail::valu::ops {

// ---- 32-bit -----------------------------------------------------------------------------------------------------
inline u32 mov_b32(u32 a, u32, u32) { return a; }
inline u32 not_b32(u32 a, u32, u32) { return ~a; }
inline u32 bfrev_b32(u32 a, u32, u32) { return fp::brev_b32(a); }
inline u32 ffbh_u32(u32 a, u32, u32) { return fp::ffbh_u32(a); }
inline u32 ffbl_b32(u32 a, u32, u32) { return fp::ffbl_b32(a); }
inline u32 ffbh_i32(u32 a, u32, u32) { return fp::ffbh_i32(a); }
inline u32 bcnt_u32_b32(u32 a, u32 b, u32) { return fp::bcnt_u32(a, b); }  // [ISA] popcount(S0) + S1

inline u32 and_b32(u32 a, u32 b, u32) { return a & b; }
inline u32 or_b32(u32 a, u32 b, u32) { return a | b; }
inline u32 xor_b32(u32 a, u32 b, u32) { return a ^ b; }
inline u32 xnor_b32(u32 a, u32 b, u32) { return ~(a ^ b); }
inline u32 add_u32(u32 a, u32 b, u32) { return a + b; }
inline u32 sub_u32(u32 a, u32 b, u32) { return a - b; }
inline u32 subrev_u32(u32 a, u32 b, u32) { return b - a; }
inline u32 add_u32_sat(u32 a, u32 b, u32) { return fp::add_sat_u32(a, b); }
inline u32 sub_u32_sat(u32 a, u32 b, u32) { return fp::sub_sat_u32(a, b); }
inline u32 subrev_u32_sat(u32 a, u32 b, u32) { return fp::sub_sat_u32(b, a); }
inline u32 add_i32_sat(u32 a, u32 b, u32) { return static_cast<u32>(fp::add_sat_i32(static_cast<i32>(a), static_cast<i32>(b))); }
inline u32 sub_i32_sat(u32 a, u32 b, u32) { return static_cast<u32>(fp::sub_sat_i32(static_cast<i32>(a), static_cast<i32>(b))); }

// Shifts: the "rev" forms shift S1 by S0 [ISA V_LSHLREV_B32 "D.u = S1.u << S0[4:0]"].
inline u32 lshlrev_b32(u32 a, u32 b, u32) { return b << (a & 31u); }
inline u32 lshrrev_b32(u32 a, u32 b, u32) { return b >> (a & 31u); }
inline u32 ashrrev_i32(u32 a, u32 b, u32) { return static_cast<u32>(static_cast<i32>(b) >> (a & 31u)); }

inline u32 min_i32(u32 a, u32 b, u32) { return static_cast<u32>(std::min(static_cast<i32>(a), static_cast<i32>(b))); }
inline u32 max_i32(u32 a, u32 b, u32) { return static_cast<u32>(std::max(static_cast<i32>(a), static_cast<i32>(b))); }
inline u32 min_u32(u32 a, u32 b, u32) { return std::min(a, b); }
inline u32 max_u32(u32 a, u32 b, u32) { return std::max(a, b); }
inline u32 min3_i32(u32 a, u32 b, u32 c) { return min_i32(min_i32(a, b, 0), c, 0); }
inline u32 max3_i32(u32 a, u32 b, u32 c) { return max_i32(max_i32(a, b, 0), c, 0); }
inline u32 min3_u32(u32 a, u32 b, u32 c) { return std::min(std::min(a, b), c); }
inline u32 max3_u32(u32 a, u32 b, u32 c) { return std::max(std::max(a, b), c); }
inline u32 med3_i32(u32 a, u32 b, u32 c) {  // [ISA V_MED3_I32]: the middle value
  const i32 x = static_cast<i32>(a), y = static_cast<i32>(b), z = static_cast<i32>(c);
  return static_cast<u32>(std::max(std::min(x, y), std::min(std::max(x, y), z)));
}
inline u32 med3_u32(u32 a, u32 b, u32 c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); }

inline u32 mul_lo_u32(u32 a, u32 b, u32) { return a * b; }
inline u32 mul_hi_u32(u32 a, u32 b, u32) { return fp::mul_hi_u32(a, b); }
inline u32 mul_hi_i32(u32 a, u32 b, u32) { return static_cast<u32>(fp::mul_hi_i32(static_cast<i32>(a), static_cast<i32>(b))); }
// 24-bit multiplies [ISA V_MUL_U32_U24 "S0.u[23:0] * S1.u[23:0]", V_MUL_HI_U32_U24 bits 47:32 of the product,
// V_MUL_I32_I24 / V_MUL_HI_I32_I24 on the sign-extended 24-bit fields].
inline i64 s24(u32 x) { return static_cast<i64>(static_cast<i32>(x << 8) >> 8); }
inline u32 mul_u32_u24(u32 a, u32 b, u32) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline u32 mul_hi_u32_u24(u32 a, u32 b, u32) { return static_cast<u32>((static_cast<u64>(a & 0xffffffu) * (b & 0xffffffu)) >> 32); }
inline u32 mul_i32_i24(u32 a, u32 b, u32) { return static_cast<u32>(s24(a) * s24(b)); }
inline u32 mul_hi_i32_i24(u32 a, u32 b, u32) { return static_cast<u32>(static_cast<u64>(s24(a) * s24(b)) >> 32); }
inline u32 mad_u32_u24(u32 a, u32 b, u32 c) { return mul_u32_u24(a, b, 0) + c; }
inline u32 mad_i32_i24(u32 a, u32 b, u32 c) { return mul_i32_i24(a, b, 0) + c; }

inline u32 lshl_add_u32(u32 a, u32 b, u32 c) { return (a << (b & 31u)) + c; }   // [ISA V_LSHL_ADD_U32]
inline u32 add_lshl_u32(u32 a, u32 b, u32 c) { return (a + b) << (c & 31u); }   // [ISA V_ADD_LSHL_U32]
inline u32 add3_u32(u32 a, u32 b, u32 c) { return a + b + c; }
inline u32 xad_u32(u32 a, u32 b, u32 c) { return (a ^ b) + c; }                  // [ISA V_XAD_U32]
inline u32 or3_b32(u32 a, u32 b, u32 c) { return a | b | c; }
inline u32 and_or_b32(u32 a, u32 b, u32 c) { return (a & b) | c; }
inline u32 lshl_or_b32(u32 a, u32 b, u32 c) { return (a << (b & 31u)) | c; }
inline u32 bfe_u32(u32 a, u32 b, u32 c) { return fp::bfe_u32(a, b, c); }
inline u32 bfe_i32(u32 a, u32 b, u32 c) { return static_cast<u32>(fp::bfe_i32(a, b, c)); }
inline u32 bfi_b32(u32 a, u32 b, u32 c) { return fp::bfi_b32(a, b, c); }
inline u32 bfm_b32(u32 a, u32 b, u32) { return fp::bfm_b32(a, b); }
inline u32 alignbit_b32(u32 a, u32 b, u32 c) { return fp::alignbit_b32(a, b, c); }
inline u32 alignbyte_b32(u32 a, u32 b, u32 c) { return fp::alignbyte_b32(a, b, c); }
inline u32 perm_b32(u32 a, u32 b, u32 c) { return fp::perm_b32(a, b, c); }
inline u32 sad_u8(u32 a, u32 b, u32 c) { return fp::sad_u8(a, b, c); }
inline u32 sad_hi_u8(u32 a, u32 b, u32 c) { return fp::sad_hi_u8(a, b, c); }
inline u32 sad_u16(u32 a, u32 b, u32 c) { return fp::sad_u16(a, b, c); }
inline u32 sad_u32(u32 a, u32 b, u32 c) { return fp::sad_u32(a, b, c); }
inline u32 msad_u8(u32 a, u32 b, u32 c) { return fp::msad_u8(a, b, c); }
inline u32 lerp_u8(u32 a, u32 b, u32 c) { return fp::lerp_u8(a, b, c); }

/// [ISA V_CVT_PK_I16_I32 / V_CVT_PK_U16_U32]: two 32-bit integers to a packed pair with saturation (S0 low, S1 high).
inline u32 cvt_pk_i16_i32(u32 a, u32 b, u32) {
  auto s = [](u32 x) { return static_cast<u32>(static_cast<u16>(std::clamp<i32>(static_cast<i32>(x), -32768, 32767))); };
  return s(a) | (s(b) << 16);
}
inline u32 cvt_pk_u16_u32(u32 a, u32 b, u32) { return std::min(a, 0xffffu) | (std::min(b, 0xffffu) << 16); }
/// [ISA V_SAT_PK_U8_I16]: each signed 16-bit half of S0 saturated to an unsigned byte; D = {0, byte(hi), byte(lo)}.
inline u32 sat_pk_u8_i16(u32 a, u32, u32) {
  auto s = [](u32 h) { return static_cast<u32>(std::clamp<i32>(static_cast<i16>(static_cast<u16>(h)), 0, 255)); };
  return s(a) | (s(a >> 16) << 8);
}

// ---- 16-bit -------------------------------------------------------------------------------------------------------
inline u16 add_u16(u16 a, u16 b, u16) { return static_cast<u16>(a + b); }
inline u16 sub_u16(u16 a, u16 b, u16) { return static_cast<u16>(a - b); }
inline u16 subrev_u16(u16 a, u16 b, u16) { return static_cast<u16>(b - a); }
inline u16 add_u16_sat(u16 a, u16 b, u16) { return fp::add_sat_u16(a, b); }
inline u16 sub_u16_sat(u16 a, u16 b, u16) { return fp::sub_sat_u16(a, b); }
inline u16 subrev_u16_sat(u16 a, u16 b, u16) { return fp::sub_sat_u16(b, a); }
inline u16 add_i16_sat(u16 a, u16 b, u16) { return static_cast<u16>(fp::add_sat_i16(static_cast<i16>(a), static_cast<i16>(b))); }
inline u16 sub_i16_sat(u16 a, u16 b, u16) { return static_cast<u16>(fp::sub_sat_i16(static_cast<i16>(a), static_cast<i16>(b))); }
inline u16 mul_lo_u16(u16 a, u16 b, u16) { return static_cast<u16>(static_cast<u32>(a) * b); }
inline u16 lshlrev_b16(u16 a, u16 b, u16) { return static_cast<u16>(b << (a & 15u)); }
inline u16 lshrrev_b16(u16 a, u16 b, u16) { return static_cast<u16>(b >> (a & 15u)); }
inline u16 ashrrev_i16(u16 a, u16 b, u16) { return static_cast<u16>(static_cast<i16>(b) >> (a & 15u)); }
inline u16 min_i16(u16 a, u16 b, u16) { return static_cast<u16>(std::min(static_cast<i16>(a), static_cast<i16>(b))); }
inline u16 max_i16(u16 a, u16 b, u16) { return static_cast<u16>(std::max(static_cast<i16>(a), static_cast<i16>(b))); }
inline u16 min_u16(u16 a, u16 b, u16) { return std::min(a, b); }
inline u16 max_u16(u16 a, u16 b, u16) { return std::max(a, b); }
inline u16 min3_i16(u16 a, u16 b, u16 c) { return min_i16(min_i16(a, b, 0), c, 0); }
inline u16 max3_i16(u16 a, u16 b, u16 c) { return max_i16(max_i16(a, b, 0), c, 0); }
inline u16 min3_u16(u16 a, u16 b, u16 c) { return std::min(std::min(a, b), c); }
inline u16 max3_u16(u16 a, u16 b, u16 c) { return std::max(std::max(a, b), c); }
inline u16 med3_i16(u16 a, u16 b, u16 c) {
  const i16 x = static_cast<i16>(a), y = static_cast<i16>(b), z = static_cast<i16>(c);
  return static_cast<u16>(std::max(std::min(x, y), std::min(std::max(x, y), z)));
}
inline u16 med3_u16(u16 a, u16 b, u16 c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); }
inline u16 mad_u16(u16 a, u16 b, u16 c) { return static_cast<u16>(static_cast<u32>(a) * b + c); }
inline u16 mad_i16(u16 a, u16 b, u16 c) { return mad_u16(a, b, c); }  // same low 16 bits
inline u16 mad_u16_sat(u16 a, u16 b, u16 c) {
  return static_cast<u16>(std::min<u64>(static_cast<u64>(a) * b + c, 0xffffu));
}
inline u16 mad_i16_sat(u16 a, u16 b, u16 c) {
  const i32 r = static_cast<i32>(static_cast<i16>(a)) * static_cast<i16>(b) + static_cast<i16>(c);
  return static_cast<u16>(std::clamp<i32>(r, -32768, 32767));
}
// 16x16 -> 32 multiply-add [ISA V_MAD_U32_U16 "S0.u16 * S1.u16 + S2.u32"].
inline u32 mad_u32_u16(u16 a, u16 b, u32 c) { return static_cast<u32>(a) * b + c; }
inline u32 mad_i32_i16(u16 a, u16 b, u32 c) {
  return static_cast<u32>(static_cast<i32>(static_cast<i16>(a)) * static_cast<i16>(b)) + c;
}

// ---- 64-bit -------------------------------------------------------------------------------------------------------
inline u64 mov_b64(u64 a, u64, u64) { return a; }
inline u64 lshlrev_b64(u32 a, u64 b, u64) { return b << (a & 63u); }  // [ISA V_LSHLREV_B64 "S1.u64 << S0[5:0]"]
inline u64 lshrrev_b64(u32 a, u64 b, u64) { return b >> (a & 63u); }
inline u64 ashrrev_i64(u32 a, u64 b, u64) { return static_cast<u64>(static_cast<i64>(b) >> (a & 63u)); }
/// [ISA V_LSHL_ADD_U64 (gfx940+) "D.u64 = (S0.u64 << S1.u[2:0]) + S2.u64"].
inline u64 lshl_add_u64(u64 a, u32 b, u64 c) { return (a << (b & 7u)) + c; }

}  // namespace asmevo::emu::detail::valu::ops
