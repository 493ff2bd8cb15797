// Lane functions of the floating-point VALU opcodes (f32, f64, f16 and conversions), for valu_core.hpp's handler.
#pragma once

// Bit-exactness: every f32/f64 operation is one IEEE operation of the host (add, mul, std::fma, sqrt), which rounds
// to nearest even like the hardware (MODE.FP_ROUND = 0, the only mode implemented). f16 operations compute in
// f64, where the exact result of an f16 add/sub/mul is representable (11-bit significands, exponents within
// 2^-24 .. 2^16), and round once to f16; f16 fused multiply-add uses fma_to_f16 (round-to-odd in f64, then f16),
// which is correctly rounded. Host NaN payloads are replaced by the [NAN] rule of valu_core.hpp afterwards.

#include <cmath>
#include <cstdint>
#include <limits>

#include "asmevo/emu/detail/valu_core.hpp"
#include "asmevo/emu/fp_convert.hpp"
#include "asmevo/emu/fp_valu.hpp"

namespace asmevo::emu::detail::valu::ops {

inline float F(u32 x) { return fp::f32(x); }
inline u32 B(float f) { return fp::bits(f); }
inline double D(u64 x) { return fp::f64(x); }
inline u64 B64(double d) { return fp::bits64(d); }
inline double H(u16 h) { return static_cast<double>(fp::f16_to_f32(h)); }
inline u16 H16(double d) { return fp::f64_to_f16(d); }

/// The exact a*b+c of f32-representable a, b, c rounded once to f16: a*b is exact in f64 (48-bit product); the sum
/// is done with TwoSum and rounded to odd, which keeps enough information for a correct second rounding to 11 bits
/// (Boldo & Melquiond, "When double rounding is odd", 2005).
inline u16 fma_to_f16(double a, double b, double c) { return H16(fp::add_round_odd(a * b, c)); }

// ---- f32 arithmetic --------------------------------------------------------------------------------------------
inline u32 add_f32(u32 a, u32 b, u32) { return B(F(a) + F(b)); }
inline u32 sub_f32(u32 a, u32 b, u32) { return B(F(a) - F(b)); }
inline u32 subrev_f32(u32 a, u32 b, u32) { return B(F(b) - F(a)); }
inline u32 mul_f32(u32 a, u32 b, u32) { return B(F(a) * F(b)); }
inline u32 fma_f32(u32 a, u32 b, u32 c) { return B(fp::fma_f32(F(a), F(b), F(c))); }
/// v_mad_f32 / v_mac_f32 / v_madak / v_madmk (gfx90a): multiply rounded, then add rounded (not fused); these
/// opcodes do not support denormals (LLVM SIISelLowering: "v_mad_f32/v_mac_f32 do not support denormals"), so the
/// handler flushes inputs and the result; the product is flushed here.
inline u32 mad_f32(u32 a, u32 b, u32 c) { return B(fp::flush_denorm_f32(F(a) * F(b)) + F(c)); }
/// DX9 multiply: "0.0 * anything = 0.0" even for inf/NaN [ISA V_MUL_LEGACY_F32].
inline u32 mul_legacy_f32(u32 a, u32 b, u32) {
  if ((a & 0x7fffffffu) == 0 || (b & 0x7fffffffu) == 0) return 0;
  return B(F(a) * F(b));
}
inline u32 mad_legacy_f32(u32 a, u32 b, u32 c) { return B(fp::flush_denorm_f32(F(mul_legacy_f32(a, b, 0))) + F(c)); }

template <bool Ieee> inline u32 min_f32(u32 a, u32 b, u32) { return B(fp::min_f32(F(a), F(b), Ieee)); }
template <bool Ieee> inline u32 max_f32(u32 a, u32 b, u32) { return B(fp::max_f32(F(a), F(b), Ieee)); }
template <bool Ieee> inline u32 min3_f32(u32 a, u32 b, u32 c) { return B(fp::min_f32(fp::min_f32(F(a), F(b), Ieee), F(c), Ieee)); }
template <bool Ieee> inline u32 max3_f32(u32 a, u32 b, u32 c) { return B(fp::max_f32(fp::max_f32(F(a), F(b), Ieee), F(c), Ieee)); }
template <bool Ieee> inline u32 med3_f32(u32 a, u32 b, u32 c) { return B(fp::med3_f32(F(a), F(b), F(c), Ieee)); }

inline u32 ldexp_f32(u32 a, u32 b, u32) { return B(fp::ldexp_f32(F(a), static_cast<i32>(b))); }
inline u32 frexp_mant_f32(u32 a, u32, u32) { return B(fp::frexp_mant_f32(F(a))); }
inline u32 frexp_exp_i32_f32(u32 a, u32, u32) { return static_cast<u32>(fp::frexp_exp_f32(F(a))); }
inline u32 fract_f32(u32 a, u32, u32) { return B(fp::fract_f32(F(a))); }
inline u32 floor_f32(u32 a, u32, u32) { return B(std::floor(F(a))); }
inline u32 ceil_f32(u32 a, u32, u32) { return B(std::ceil(F(a))); }
inline u32 trunc_f32(u32 a, u32, u32) { return B(std::trunc(F(a))); }
inline u32 rndne_f32(u32 a, u32, u32) { return B(std::nearbyint(F(a))); }  // host default mode: ties to even
inline u32 sqrt_f32(u32 a, u32, u32) { return B(fp::sqrt_f32(F(a))); }
inline u32 rsq_f32(u32 a, u32, u32) { return B(fp::rsq_f32(F(a))); }
inline u32 rcp_f32(u32 a, u32, u32) { return B(fp::rcp_f32(F(a))); }
inline u32 exp_f32(u32 a, u32, u32) { return B(fp::exp2_f32(F(a))); }
inline u32 log_f32(u32 a, u32, u32) { return B(fp::log2_f32(F(a))); }
inline u32 sin_f32(u32 a, u32, u32) { return B(fp::sin_f32(F(a))); }
inline u32 cos_f32(u32 a, u32, u32) { return B(fp::cos_f32(F(a))); }
inline u32 div_fixup_f32(u32 a, u32 b, u32 c) { return B(fp::div_fixup_f32(F(a), F(b), F(c))); }

// ---- f64 -----------------------------------------------------------------------------------------------------------
inline u64 add_f64(u64 a, u64 b, u64) { return B64(D(a) + D(b)); }
inline u64 mul_f64(u64 a, u64 b, u64) { return B64(D(a) * D(b)); }
inline u64 fma_f64(u64 a, u64 b, u64 c) { return B64(std::fma(D(a), D(b), D(c))); }
template <bool Ieee> inline u64 min_f64(u64 a, u64 b, u64) { return B64(fp::min_f64(D(a), D(b), Ieee)); }
template <bool Ieee> inline u64 max_f64(u64 a, u64 b, u64) { return B64(fp::max_f64(D(a), D(b), Ieee)); }
inline u64 ldexp_f64(u64 a, u32 b, u64) { return B64(fp::ldexp_f64(D(a), static_cast<i32>(b))); }
inline u64 frexp_mant_f64(u64 a, u64, u64) { return B64(fp::frexp_mant_f64(D(a))); }
inline u32 frexp_exp_i32_f64(u64 a, u64, u64) { return static_cast<u32>(fp::frexp_exp_f64(D(a))); }
inline u64 fract_f64(u64 a, u64, u64) { return B64(fp::fract_f64(D(a))); }
inline u64 floor_f64(u64 a, u64, u64) { return B64(std::floor(D(a))); }
inline u64 ceil_f64(u64 a, u64, u64) { return B64(std::ceil(D(a))); }
inline u64 trunc_f64(u64 a, u64, u64) { return B64(std::trunc(D(a))); }
inline u64 rndne_f64(u64 a, u64, u64) { return B64(std::nearbyint(D(a))); }
inline u64 sqrt_f64(u64 a, u64, u64) { return B64(fp::sqrt_f64(D(a))); }
inline u64 rsq_f64(u64 a, u64, u64) { return B64(fp::rsq_f64(D(a))); }
inline u64 rcp_f64(u64 a, u64, u64) { return B64(fp::rcp_f64(D(a))); }
inline u64 div_fixup_f64(u64 a, u64 b, u64 c) { return B64(fp::div_fixup_f64(D(a), D(b), D(c))); }

// ---- f16 -----------------------------------------------------------------------------------------------------------
inline u16 add_f16(u16 a, u16 b, u16) { return H16(H(a) + H(b)); }
inline u16 sub_f16(u16 a, u16 b, u16) { return H16(H(a) - H(b)); }
inline u16 subrev_f16(u16 a, u16 b, u16) { return H16(H(b) - H(a)); }
inline u16 mul_f16(u16 a, u16 b, u16) { return H16(H(a) * H(b)); }
inline u16 fma_f16(u16 a, u16 b, u16 c) { return fma_to_f16(H(a), H(b), H(c)); }
/// v_mad_f16 / v_mac_f16 / v_madak_f16 / v_madmk_f16 and the legacy forms: product rounded to f16, then the sum
/// rounded (an unfused multiply-add, as v_mad_f32) — an ASSUMPTION (the guide gives "S0 * S1 + S2" only); marked
/// approximate in the table.
inline u16 mad_f16(u16 a, u16 b, u16 c) { return H16(H(H16(H(a) * H(b))) + H(c)); }
template <bool Ieee> inline u16 min_f16(u16 a, u16 b, u16) { return fp::min_f16(a, b, Ieee); }
template <bool Ieee> inline u16 max_f16(u16 a, u16 b, u16) { return fp::max_f16(a, b, Ieee); }
template <bool Ieee> inline u16 min3_f16(u16 a, u16 b, u16 c) { return fp::min_f16(fp::min_f16(a, b, Ieee), c, Ieee); }
template <bool Ieee> inline u16 max3_f16(u16 a, u16 b, u16 c) { return fp::max_f16(fp::max_f16(a, b, Ieee), c, Ieee); }
template <bool Ieee> inline u16 med3_f16(u16 a, u16 b, u16 c) { return fp::med3_f16(a, b, c, Ieee); }
/// [ISA V_LDEXP_F16]: the exponent is S1's low 16 bits as a signed integer.
inline u16 ldexp_f16(u16 a, u16 b, u16) { return fp::ldexp_f16(a, static_cast<i16>(b)); }
inline u16 frexp_mant_f16(u16 a, u16, u16) { return fp::frexp_mant_f16(a); }
inline u16 frexp_exp_i16_f16(u16 a, u16, u16) { return static_cast<u16>(fp::frexp_exp_f16(a)); }
inline u16 fract_f16(u16 a, u16, u16) { return fp::fract_f16(a); }
inline u16 floor_f16(u16 a, u16, u16) { return fp::is_nan_f16(a) ? fp::quiet_f16(a) : H16(std::floor(H(a))); }
inline u16 ceil_f16(u16 a, u16, u16) { return fp::is_nan_f16(a) ? fp::quiet_f16(a) : H16(std::ceil(H(a))); }
inline u16 trunc_f16(u16 a, u16, u16) { return fp::is_nan_f16(a) ? fp::quiet_f16(a) : H16(std::trunc(H(a))); }
inline u16 rndne_f16(u16 a, u16, u16) { return fp::is_nan_f16(a) ? fp::quiet_f16(a) : H16(std::nearbyint(H(a))); }
inline u16 sqrt_f16(u16 a, u16, u16) { return fp::sqrt_f16(a); }
inline u16 rsq_f16(u16 a, u16, u16) { return fp::rsq_f16(a); }
inline u16 rcp_f16(u16 a, u16, u16) { return fp::rcp_f16(a); }
inline u16 exp_f16(u16 a, u16, u16) { return fp::exp2_f16(a); }
inline u16 log_f16(u16 a, u16, u16) { return fp::log2_f16(a); }
inline u16 sin_f16(u16 a, u16, u16) { return fp::sin_f16(a); }
inline u16 cos_f16(u16 a, u16, u16) { return fp::cos_f16(a); }
inline u16 div_fixup_f16(u16 a, u16 b, u16 c) { return fp::div_fixup_f16(a, b, c); }

// ---- conversions ----------------------------------------------------------------------------------------------------
inline u32 cvt_f32_i32(u32 a, u32, u32) { return B(static_cast<float>(static_cast<i32>(a))); }  // RNE
inline u32 cvt_f32_u32(u32 a, u32, u32) { return B(static_cast<float>(a)); }
inline u32 cvt_i32_f32(u32 a, u32, u32) { return static_cast<u32>(fp::cvt_i32_f32(F(a))); }
inline u32 cvt_u32_f32(u32 a, u32, u32) { return fp::cvt_u32_f32(F(a)); }
inline u32 cvt_rpi_i32_f32(u32 a, u32, u32) { return static_cast<u32>(fp::cvt_rpi_i32_f32(F(a))); }
inline u32 cvt_flr_i32_f32(u32 a, u32, u32) { return static_cast<u32>(fp::cvt_flr_i32_f32(F(a))); }
inline u64 cvt_f64_i32(u32 a, u32, u32) { return B64(static_cast<double>(static_cast<i32>(a))); }
inline u64 cvt_f64_u32(u32 a, u32, u32) { return B64(static_cast<double>(a)); }
inline u32 cvt_i32_f64(u64 a, u64, u64) { return static_cast<u32>(fp::cvt_i32_f64(D(a))); }
inline u32 cvt_u32_f64(u64 a, u64, u64) { return fp::cvt_u32_f64(D(a)); }
inline u64 cvt_f64_f32(u32 a, u32, u32) { return B64(static_cast<double>(F(a))); }  // exact; NaN quieted by [NAN]
inline u32 cvt_f32_f64(u64 a, u64, u64) { return B(static_cast<float>(D(a))); }     // one RNE rounding
inline u32 cvt_f32_f16(u16 a, u16, u16) {  // exact; a NaN keeps its payload and is quieted
  const u32 r = B(fp::f16_to_f32(a));
  return fp::is_nan_f32(r) ? fp::quiet_f32(r) : r;
}
inline u16 cvt_f16_f32(u32 a, u32, u32) { return fp::f32_to_f16(F(a)); }
inline u16 cvt_f16_u16(u16 a, u16, u16) { return H16(static_cast<double>(a)); }
inline u16 cvt_f16_i16(u16 a, u16, u16) { return H16(static_cast<double>(static_cast<i16>(a))); }
/// [ISA V_CVT_U16_F16 / V_CVT_I16_F16]: truncation with saturation, NaN -> 0 (the 32-bit rule of fp.hpp applied
/// to the 16-bit range).
inline u16 cvt_u16_f16(u16 a, u16, u16) {
  const double x = H(a);
  if (std::isnan(x) || x <= -1.0) return 0;
  return x >= 65535.0 ? u16{0xffff} : static_cast<u16>(x);
}
inline u16 cvt_i16_f16(u16 a, u16, u16) {
  const double x = H(a);
  if (std::isnan(x)) return 0;
  return static_cast<u16>(static_cast<i16>(std::clamp(std::trunc(x), -32768.0, 32767.0)));
}
/// [ISA V_CVT_NORM_I16_F16 / V_CVT_NORM_U16_F16]: f16 to snorm/unorm 16 (the f32 rules of fp.hpp; exact input).
inline u16 cvt_norm_i16_f16(u16 a, u16, u16) { return static_cast<u16>(fp::f32_to_snorm16(fp::f16_to_f32(a))); }
inline u16 cvt_norm_u16_f16(u16 a, u16, u16) { return fp::f32_to_unorm16(fp::f16_to_f32(a)); }
inline u32 cvt_pknorm_i16_f16(u16 a, u16 b, u16) { return static_cast<u32>(cvt_norm_i16_f16(a, 0, 0)) | (static_cast<u32>(cvt_norm_i16_f16(b, 0, 0)) << 16); }
inline u32 cvt_pknorm_u16_f16(u16 a, u16 b, u16) { return static_cast<u32>(cvt_norm_u16_f16(a, 0, 0)) | (static_cast<u32>(cvt_norm_u16_f16(b, 0, 0)) << 16); }
inline u32 cvt_pknorm_i16_f32(u32 a, u32 b, u32) { return fp::cvt_pknorm_i16_f32(F(a), F(b)); }
inline u32 cvt_pknorm_u16_f32(u32 a, u32 b, u32) { return fp::cvt_pknorm_u16_f32(F(a), F(b)); }
inline u32 cvt_pkrtz_f16_f32(u32 a, u32 b, u32) { return fp::cvt_pkrtz_f16_f32(F(a), F(b)); }
inline u32 cvt_pk_u8_f32(u32 a, u32 b, u32 c) { return fp::cvt_pk_u8_f32(F(a), b, c); }
/// [ISA V_PACK_B32_F16]: D = {S1.f16, S0.f16} (source modifiers applied by the handler).
inline u32 pack_b32_f16(u16 a, u16 b, u16) { return static_cast<u32>(a) | (static_cast<u32>(b) << 16); }
template <unsigned N> inline u32 cvt_f32_ubyte(u32 a, u32, u32) { return B(fp::cvt_f32_ubyte(a, N)); }
/// [ISA V_CVT_OFF_F32_I4]: the signed 4-bit S0[3:0] divided by 16 (exact).
inline u32 cvt_off_f32_i4(u32 a, u32, u32) { return B(static_cast<float>(static_cast<i32>((a & 15u) ^ 8u) - 8) / 16.0f); }

}  // namespace asmevo::emu::detail::valu::ops
