// Tests for asmevo/emu/fp.hpp against independent oracles: host IEEE arithmetic, brute-force nearest-value
// searches over every value of a small format, formulas of the format definitions, and the LLVM division sequences.
#include <asmevo/emu/fp.hpp>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

namespace fp = asmevo::emu::fp;
using fp::Round;

// Property tests are bounded (<= 200 cases) unless RC_PARAMS says otherwise; rapidcheck prints the seed it used.
const bool rc_defaults_installed = [] {
  std::string p = std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "";
  if (p.find("max_success") == std::string::npos) p += " max_success=200";
  setenv("RC_PARAMS", p.c_str(), 1);
  return true;
}();

constexpr std::uint64_t kSeed = 0x5eed'f00d'1234ull;  // bulk sweeps: fixed seed, printed in every failure

std::string hex32(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}
std::string hex64(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%016" PRIx64, v);
  return b;
}

/// Random f32 bit patterns weighted toward the interesting classes: zeros, denormals, near 1, extremes, inf, NaN.
std::uint32_t interesting_f32(std::mt19937_64& g) {
  const std::uint32_t r = static_cast<std::uint32_t>(g());
  const std::uint32_t sign = r & 0x80000000u;
  switch (g() % 10) {
    case 0: return sign | (r & 0x007fffffu);                                  // denormal or zero
    case 1: return sign | (static_cast<std::uint32_t>(g() % 24 + 1) << 23) | (r & 0x7fffffu);  // tiny normal
    case 2: return sign | (static_cast<std::uint32_t>(254 - g() % 24) << 23) | (r & 0x7fffffu);  // huge
    case 3: return sign | 0x7f800000u | ((g() % 3 == 0) ? 0u : (r & 0x7fffffu));  // inf / NaN
    case 4: return sign | (static_cast<std::uint32_t>(127 + static_cast<int>(g() % 9) - 4) << 23) | (r & 0x7fffffu);
    case 5: return sign | (static_cast<std::uint32_t>(127) << 23) | (r & 0xfu);  // near 1
    default: return r;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// f16
// ---------------------------------------------------------------------------------------------------------------

/// All finite f16 values as doubles, ascending, with their bit patterns: the brute-force rounding oracle.
struct F16Table {
  std::vector<double> v;
  std::vector<std::uint16_t> b;
  F16Table() {
    std::vector<std::pair<double, std::uint16_t>> all;
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
      const std::uint32_t e = (h >> 10) & 0x1f;
      if (e == 0x1f) continue;
      if (h == 0x8000) continue;  // -0: same value as +0; sign handled separately
      const double m = h & 0x3ff;
      double val = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024.0 + m, static_cast<int>(e) - 25);
      if (h & 0x8000) val = -val;
      all.emplace_back(val, static_cast<std::uint16_t>(h));
    }
    std::sort(all.begin(), all.end());
    for (auto& [x, h] : all) {
      v.push_back(x);
      b.push_back(h);
    }
  }
};
const F16Table& f16_table() {
  static const F16Table t;
  return t;
}

/// Reference rounding of a finite double to f16 in any mode, by bracketing it between adjacent f16 values.
std::uint16_t ref_to_f16(double x, Round r) {
  const F16Table& t = f16_table();
  const bool neg = std::signbit(x);
  const std::uint16_t sgn = neg ? 0x8000 : 0;
  if (x == 0.0) return sgn;
  const double max = 65504.0;
  // Above the largest finite: IEEE overflow. RNE: inf iff |x| >= max + ulp/2 (= 65520), else max.
  if (std::fabs(x) > max) {
    bool to_inf = false;
    switch (r) {
      case Round::nearest_even: to_inf = std::fabs(x) >= 65520.0; break;
      case Round::toward_zero: to_inf = false; break;
      case Round::plus_inf: to_inf = !neg; break;
      case Round::minus_inf: to_inf = neg; break;
    }
    return static_cast<std::uint16_t>(sgn | (to_inf ? 0x7c00 : 0x7bff));
  }
  const auto it = std::lower_bound(t.v.begin(), t.v.end(), x);
  const std::size_t hi = static_cast<std::size_t>(it - t.v.begin());
  if (hi < t.v.size() && t.v[hi] == x) {
    const std::uint16_t h = t.b[hi];
    return h == 0 ? sgn : h;
  }
  const std::size_t lo = hi - 1;  // t.v[lo] < x < t.v[hi]
  const double dl = x - t.v[lo];
  const double dh = t.v[hi] - x;
  std::size_t pick;
  switch (r) {
    case Round::nearest_even:
      if (dl < dh) pick = lo;
      else if (dh < dl) pick = hi;
      else pick = (t.b[lo] & 1) == 0 ? lo : hi;
      break;
    case Round::toward_zero: pick = x > 0 ? lo : hi; break;
    case Round::plus_inf: pick = hi; break;
    default: pick = lo; break;
  }
  const std::uint16_t h = t.b[pick];
  return h == 0 ? sgn : h;  // a result of zero keeps the sign of x
}

TEST(Fp16, ExhaustiveRoundTripThroughF32) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto hh = static_cast<std::uint16_t>(h);
    const float f = fp::f16_to_f32(hh);
    if (fp::is_nan_f16(hh)) {
      ASSERT_TRUE(std::isnan(f)) << hex32(h);
      ASSERT_TRUE(fp::is_nan_f16(fp::f32_to_f16(f))) << hex32(h);
      continue;
    }
    ASSERT_EQ(fp::f32_to_f16(f), hh) << "f16 " << hex32(h) << " -> f32 " << f;
    for (Round r : {Round::plus_inf, Round::minus_inf, Round::toward_zero})
      ASSERT_EQ(fp::f32_to_f16(f, r), hh) << "exact values round to themselves in every mode: " << hex32(h);
  }
}

TEST(Fp16, DecodeMatchesFormatDefinition) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const std::uint32_t e = (h >> 10) & 0x1f;
    const double m = h & 0x3ff;
    const float f = fp::f16_to_f32(static_cast<std::uint16_t>(h));
    if (e == 0x1f) {
      if (m == 0) {
        ASSERT_TRUE(std::isinf(f));
        ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0);
      } else {
        ASSERT_TRUE(std::isnan(f));
      }
      continue;
    }
    double val = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024.0 + m, static_cast<int>(e) - 25);
    if (h & 0x8000) val = -val;
    ASSERT_EQ(static_cast<double>(f), val) << hex32(h);
    ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << hex32(h);
  }
}

#if defined(__FLT16_MAX__)
TEST(Fp16, F32ToF16MatchesCompilerFloat16) {
  // The compiler's float -> _Float16 conversion rounds to nearest even (soft-fp on x86 without AVX512-FP16).
  std::mt19937_64 g(kSeed);
  int checked = 0;
  auto check = [&](std::uint32_t b) {
    const float f = fp::f32(b);
    if (std::isnan(f)) return;
    const _Float16 h = static_cast<_Float16>(f);
    std::uint16_t hb;
    std::memcpy(&hb, &h, 2);
    ASSERT_EQ(fp::f32_to_f16(f), hb) << "f32 " << hex32(b) << " seed " << kSeed;
    ++checked;
  };
  for (std::uint32_t i = 0; i < 400000; ++i) check(interesting_f32(g));
  // Boundaries: every f16 value, its midpoints with the neighbours and one f32 ulp either side of them.
  for (std::uint32_t h = 0; h < 0x7c00; ++h) {
    const float a = fp::f16_to_f32(static_cast<std::uint16_t>(h));
    const float b = fp::f16_to_f32(static_cast<std::uint16_t>(h + 1));
    const float mid = static_cast<float>((static_cast<double>(a) + b) / 2);  // exact: 12 significant bits
    for (float x : {a, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      check(fp::bits(x));
      check(fp::bits(-x));
    }
  }
  EXPECT_GT(checked, 600000);
}
#endif

TEST(Fp16, F32ToF16AllModesMatchBracketingOracle) {
  std::mt19937_64 g(kSeed + 1);
  for (Round r : {Round::nearest_even, Round::plus_inf, Round::minus_inf, Round::toward_zero}) {
    for (int i = 0; i < 100000; ++i) {
      const std::uint32_t b = interesting_f32(g);
      const float f = fp::f32(b);
      if (std::isnan(f)) {
        EXPECT_TRUE(fp::is_nan_f16(fp::f32_to_f16(f, r)));
        continue;
      }
      std::uint16_t want;
      if (std::isinf(f)) want = std::signbit(f) ? 0xfc00 : 0x7c00;
      else want = ref_to_f16(f, r);
      ASSERT_EQ(fp::f32_to_f16(f, r), want) << "f32 " << hex32(b) << " mode " << int(r) << " seed " << kSeed + 1;
    }
  }
}

TEST(Fp16, F64ToF16RoundsOnceNotTwice) {
  // 1 + 2^-11 + 2^-40: f64 -> f32 loses the 2^-40 and leaves a tie that rounds down to 1.0 in f16; rounding once
  // sees a value above the midpoint and rounds up.
  const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(fp::f32_to_f16(static_cast<float>(x)), 0x3c00);
  EXPECT_EQ(fp::f64_to_f16(x), 0x3c01);
  std::mt19937_64 g(kSeed + 2);
  for (int i = 0; i < 200000; ++i) {
    const double d = std::ldexp(std::uniform_real_distribution<double>(-1.0, 1.0)(g), static_cast<int>(g() % 50) - 30);
    ASSERT_EQ(fp::f64_to_f16(d), ref_to_f16(d, Round::nearest_even)) << hex64(fp::bits64(d)) << " seed " << kSeed + 2;
  }
  EXPECT_EQ(fp::f64_to_f16(1e300), 0x7c00);
  EXPECT_EQ(fp::f64_to_f16(-1e-300), 0x8000);
  EXPECT_TRUE(fp::is_nan_f16(fp::f64_to_f16(std::nan(""))));
}

// The vectorised array conversion the mix ops use, against the same independent reference: random magnitudes
// across the normal, subnormal and overflow ranges, exact halfway points between neighbouring f16 values (both
// parities), the boundary around 65504 / 65520, infinities and NaNs, mixed within one 64-lane array.
TEST(Fp16, F64ToF16LanesMatchesReference) {
  std::mt19937_64 g(kSeed + 3);
  std::size_t bad = 0;
  for (int it = 0; it < 20000; ++it) {
    alignas(64) double in[64];
    for (double& d : in) {
      const double sign = (g() & 1) ? -1.0 : 1.0;
      switch (g() % 6) {
        case 0: d = std::ldexp(std::uniform_real_distribution<double>(0.5, 1.0)(g), static_cast<int>(g() % 48) - 30); break;
        case 1: {  // halfway between f16 codes h and h+1 (normal or subnormal)
          const auto h = static_cast<std::uint16_t>(g() % 0x7bff);
          d = (static_cast<double>(fp::f16_to_f32(h)) + static_cast<double>(fp::f16_to_f32(h + 1))) / 2;
          break;
        }
        case 2: d = 65504.0 + static_cast<double>(g() % 64) / 2; break;  // around the largest finite and overflow
        case 3: d = (g() & 1) ? std::numeric_limits<double>::infinity() : std::nan(""); break;
        case 4: d = static_cast<double>(fp::f16_to_f32(static_cast<std::uint16_t>(g() % 0x7c00))); break;  // exact
        default: d = fp::f64(g()); break;  // any bit pattern
      }
      d *= sign;
    }
    alignas(64) std::uint16_t out[64];
    fp::f64_to_f16_lanes(in, out, 64);
    for (unsigned l = 0; l < 64; ++l) {
      const bool ok = std::isnan(in[l]) ? fp::is_nan_f16(out[l]) : out[l] == ref_to_f16(in[l], Round::nearest_even);
      if (!ok && bad++ < 5)
        ADD_FAILURE() << hex64(fp::bits64(in[l])) << " -> " << hex32(out[l]) << ", want "
                      << hex32(ref_to_f16(in[l], Round::nearest_even)) << " seed " << kSeed + 3;
    }
  }
  EXPECT_EQ(bad, 0u);
}

TEST(Fp16, NanConversionIsQuiet) {
  // A signalling NaN converts to a quiet NaN of the same sign.
  const std::uint16_t h = fp::f32_to_f16(fp::f32(0xff800001u));
  EXPECT_TRUE(fp::is_nan_f16(h));
  EXPECT_FALSE(fp::is_snan_f16(h));
  EXPECT_EQ(h & 0x8000, 0x8000);
}

TEST(Fp16, PkrtzRoundsTowardZero) {
  // 1 + 2^-11 + 2^-12 is above the midpoint: RNE rounds up, RTZ truncates. 70000 overflows: RTZ gives max finite.
  const float x = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -12);
  EXPECT_EQ(fp::f32_to_f16(x), 0x3c01);
  EXPECT_EQ(fp::cvt_pkrtz_f16_f32(x, -70000.0f), 0x3c00u | (0xfbffu << 16));
  EXPECT_EQ(fp::cvt_pkrtz_f16_f32(std::numeric_limits<float>::infinity(), 0.0f), 0x7c00u);
}

// ---------------------------------------------------------------------------------------------------------------
// bf16
// ---------------------------------------------------------------------------------------------------------------

/// bf16 reference by real arithmetic: round |x| to 8 significant bits (or to a multiple of 2^-133 below 2^-126)
/// with nearbyint (the host default mode is round-to-nearest-even).
std::uint16_t ref_bf16(float x) {
  if (x == 0.0f) return static_cast<std::uint16_t>(fp::bits(x) >> 16);
  int e = 0;
  const double m = std::frexp(static_cast<double>(x), &e);  // x = m * 2^e, |m| in [0.5, 1)
  int q = e - 8;                                            // value = r * 2^q with 8 significant bits
  if (q < -133) q = -133;                                   // bf16 denormal spacing 2^-133
  const double r = std::nearbyint(std::ldexp(static_cast<double>(x), -q));
  const double val = std::ldexp(r, q);
  const float fv = static_cast<float>(val);  // exact, or overflows to inf exactly when bf16 overflows
  return static_cast<std::uint16_t>(fp::bits(fv) >> 16);
}

TEST(Bf16, MatchesArithmeticReference) {
  std::mt19937_64 g(kSeed + 3);
  for (int i = 0; i < 400000; ++i) {
    const std::uint32_t b = interesting_f32(g);
    const float f = fp::f32(b);
    if (std::isnan(f)) {
      const std::uint16_t h = fp::f32_to_bf16(f);
      ASSERT_TRUE(fp::is_nan_f32(static_cast<std::uint32_t>(h) << 16)) << hex32(b);
      ASSERT_EQ(h & 0x0040, 0x0040) << "quiet";
      ASSERT_EQ(h & 0x8000, (b >> 16) & 0x8000) << "sign kept";
      continue;
    }
    ASSERT_EQ(fp::f32_to_bf16(f), ref_bf16(f)) << hex32(b) << " seed " << kSeed + 3;
  }
  // Ties: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 -> even (1); 1 + 3*2^-8 -> 1 + 2^-6.
  EXPECT_EQ(fp::f32_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(fp::f32_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(fp::f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to inf
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = fp::bf16_to_f32(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(fp::f32_to_bf16(f), h) << "bf16 round trip " << hex32(h);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// fp8
// ---------------------------------------------------------------------------------------------------------------

struct Fp8Def {
  fp::Fp8 k;
  const char* name;
  int ebits, mbits, bias;
  bool fnuz;
  double max_finite;
};
constexpr std::array<Fp8Def, 4> kFp8{{
    {fp::Fp8::e4m3fnuz, "e4m3fnuz", 4, 3, 8, true, 240.0},
    {fp::Fp8::e5m2fnuz, "e5m2fnuz", 5, 2, 16, true, 57344.0},
    {fp::Fp8::e4m3, "e4m3", 4, 3, 7, false, 448.0},
    {fp::Fp8::e5m2, "e5m2", 5, 2, 15, false, 57344.0},
}};

enum class Fp8Kind { finite, nan, inf };
/// Format definition (OCP 8-bit FP spec v1.0; AMD fnuz: 0x80 is NaN, no inf, no -0).
Fp8Kind fp8_kind(const Fp8Def& d, std::uint32_t v, double* val) {
  const std::uint32_t e = (v & 0x7f) >> d.mbits;
  const std::uint32_t m = v & ((1u << d.mbits) - 1);
  const std::uint32_t emax = (1u << d.ebits) - 1;
  if (d.fnuz && v == 0x80) return Fp8Kind::nan;
  if (!d.fnuz && d.ebits == 4 && e == emax && m == (1u << d.mbits) - 1) return Fp8Kind::nan;
  if (!d.fnuz && d.ebits == 5 && e == emax) return m == 0 ? Fp8Kind::inf : Fp8Kind::nan;
  double x = e == 0 ? std::ldexp(static_cast<double>(m), 1 - d.bias - d.mbits)
                    : std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -d.mbits), static_cast<int>(e) - d.bias);
  if (v & 0x80) x = -x;
  *val = x;
  return Fp8Kind::finite;
}

TEST(Fp8, DecodeTablesMatchFormatDefinitions) {
  for (const Fp8Def& d : kFp8) {
    double maxv = 0;
    int nans = 0;
    for (std::uint32_t v = 0; v < 256; ++v) {
      double want = 0;
      const float got = fp::fp8_to_f32(static_cast<std::uint8_t>(v), d.k);
      switch (fp8_kind(d, v, &want)) {
        case Fp8Kind::nan: ++nans; EXPECT_TRUE(std::isnan(got)) << d.name << " " << v; break;
        case Fp8Kind::inf:
          EXPECT_TRUE(std::isinf(got)) << d.name << " " << v;
          EXPECT_EQ(std::signbit(got), (v & 0x80) != 0);
          break;
        case Fp8Kind::finite:
          EXPECT_EQ(static_cast<double>(got), want) << d.name << " " << v;
          if (want == 0) EXPECT_EQ(std::signbit(got), (v & 0x80) != 0) << d.name << " " << v;
          maxv = std::max(maxv, want);
          break;
      }
    }
    EXPECT_EQ(maxv, d.max_finite) << d.name;
    EXPECT_EQ(nans, d.fnuz ? 1 : (d.ebits == 4 ? 2 : 6)) << d.name;
  }
  EXPECT_TRUE(std::isnan(fp::fp8_to_f32(0x80, fp::Fp8::e4m3fnuz)));
  EXPECT_TRUE(std::isnan(fp::fp8_to_f32(0x7f, fp::Fp8::e4m3)));
  EXPECT_TRUE(std::isnan(fp::fp8_to_f32(0xff, fp::Fp8::e4m3)));
  EXPECT_EQ(fp::fp8_to_f32(0x7f, fp::Fp8::e4m3fnuz), 240.0f);
  EXPECT_EQ(fp::fp8_to_f32(0x7e, fp::Fp8::e4m3), 448.0f);
}

TEST(Fp8, EncodeDecodeRoundTripAll256) {
  for (const Fp8Def& d : kFp8) {
    for (std::uint32_t v = 0; v < 256; ++v) {
      const float f = fp::fp8_to_f32(static_cast<std::uint8_t>(v), d.k);
      for (bool sat : {false, true}) {
        const std::uint8_t back = fp::f32_to_fp8(f, d.k, sat);
        double dummy = 0;
        const Fp8Kind kind = fp8_kind(d, v, &dummy);
        if (kind == Fp8Kind::nan) {
          EXPECT_EQ(fp8_kind(d, back, &dummy), Fp8Kind::nan) << d.name << " " << v;
        } else {
          EXPECT_EQ(back, v) << d.name << " " << v << " sat " << sat;
        }
      }
    }
  }
}

/// Brute-force fp8 encoding: nearest finite value (ties to the even code), overflow by the IEEE rule with the format's
/// max as the last finite value, then the documented NaN/inf/saturation outcome.
std::uint8_t ref_fp8(const Fp8Def& d, float x, bool sat) {
  const bool neg = std::signbit(x);
  const std::uint8_t sgn = neg ? 0x80 : 0;
  const std::uint8_t nan = d.fnuz ? 0x80 : static_cast<std::uint8_t>(sgn | 0x7f);
  const bool has_inf = !d.fnuz && d.ebits == 5;
  if (std::isnan(x)) return nan;
  if (std::isinf(x)) return has_inf ? static_cast<std::uint8_t>(sgn | 0x7c) : nan;
  const double a = std::fabs(static_cast<double>(x));
  // Largest finite code and the spacing just above it (as if the exponent range continued).
  std::uint8_t maxc = 0;
  for (std::uint32_t v = 0; v < 0x80; ++v) {
    double val = 0;
    if (fp8_kind(d, v, &val) == Fp8Kind::finite && val == d.max_finite) maxc = static_cast<std::uint8_t>(v);
  }
  const double ulp_top = std::ldexp(1.0, static_cast<int>((maxc >> d.mbits)) - d.bias - d.mbits);
  const double thr = d.max_finite + ulp_top / 2;
  const bool max_even = (maxc & 1) == 0;
  if (a > thr || (a == thr && !max_even)) {
    if (sat) return static_cast<std::uint8_t>(sgn | maxc);
    return has_inf ? static_cast<std::uint8_t>(sgn | 0x7c) : nan;
  }
  std::uint8_t best = 0;
  double bestd = std::numeric_limits<double>::infinity();
  for (std::uint32_t v = 0; v <= maxc; ++v) {
    double val = 0;
    if (fp8_kind(d, v, &val) != Fp8Kind::finite) continue;
    const double dist = std::fabs(a - val);
    if (dist < bestd || (dist == bestd && (v & 1) == 0)) {
      bestd = dist;
      best = static_cast<std::uint8_t>(v);
    }
  }
  if (best == 0) return d.fnuz ? 0 : sgn;
  return static_cast<std::uint8_t>(sgn | best);
}

TEST(Fp8, EncodeMatchesBruteForceNearest) {
  std::mt19937_64 g(kSeed + 4);
  for (const Fp8Def& d : kFp8) {
    auto check = [&](float f, bool sat) {
      ASSERT_EQ(fp::f32_to_fp8(f, d.k, sat), ref_fp8(d, f, sat))
          << d.name << " f32 " << hex32(fp::bits(f)) << " (" << f << ") sat " << sat << " seed " << kSeed + 4;
    };
    for (int i = 0; i < 20000; ++i) {
      const float mag = std::ldexp(std::uniform_real_distribution<float>(1.0f, 2.0f)(g), static_cast<int>(g() % 40) - 24);
      const float f = (g() & 1) ? -mag : mag;
      check(f, (g() & 1) != 0);
    }
    // Every midpoint between adjacent fp8 values, and the values themselves +- one f32 ulp.
    for (std::uint32_t v = 0; v < 0x7f; ++v) {
      const float a = fp::fp8_to_f32(static_cast<std::uint8_t>(v), d.k);
      const float b = fp::fp8_to_f32(static_cast<std::uint8_t>(v + 1), d.k);
      if (std::isnan(a) || std::isnan(b) || std::isinf(b)) continue;
      const float mid = (a + b) / 2;  // exact
      for (float x : {a, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)})
        for (bool sat : {false, true}) {
          check(x, sat);
          check(-x, sat);
        }
    }
    for (float x : {1e30f, -1e30f, 500.0f, 464.0f, 465.0f, 248.0f, 61440.0f, 57344.0f * 1.0625f,
                    std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN(), -0.0f, 1e-30f, -1e-30f})
      for (bool sat : {false, true}) check(x, sat);
  }
  // Spot facts: fnuz has no -0; OCP keeps it; saturation clamps finite overflow but not infinity.
  EXPECT_EQ(fp::f32_to_fp8(-0.0f, fp::Fp8::e4m3fnuz, false), 0x00);
  EXPECT_EQ(fp::f32_to_fp8(-0.0f, fp::Fp8::e4m3, false), 0x80);
  EXPECT_EQ(fp::f32_to_fp8(1000.0f, fp::Fp8::e4m3fnuz, true), 0x7f);
  EXPECT_EQ(fp::f32_to_fp8(1000.0f, fp::Fp8::e4m3fnuz, false), 0x80);
  EXPECT_EQ(fp::f32_to_fp8(-1e6f, fp::Fp8::e5m2, false), 0xfc);
  EXPECT_EQ(fp::f32_to_fp8(-1e6f, fp::Fp8::e5m2, true), 0xfb);
}

// ---------------------------------------------------------------------------------------------------------------
// Division: the LLVM sequences run through the helpers must give the correctly rounded quotient
// ---------------------------------------------------------------------------------------------------------------

/// clang-22 -O3 --offload-arch=gfx942, `o[i] = a[i] / b[i]` on float (f32 denormals on, the HIP default):
///   v_div_scale_f32 v3, s[0:1], v2, v2, v1     ; v1 = a, v2 = b
///   v_rcp_f32_e32 v4, v3
///   v_div_scale_f32 v5, vcc, v1, v2, v1
///   v_fma_f32 v6, -v3, v4, 1.0
///   v_fmac_f32_e32 v4, v6, v4
///   v_mul_f32_e32 v6, v5, v4
///   v_fma_f32 v7, -v3, v6, v5
///   v_fmac_f32_e32 v6, v7, v4
///   v_fma_f32 v3, -v3, v6, v5
///   v_div_fmas_f32 v3, v3, v4, v6
///   v_div_fixup_f32 v1, v3, v2, v1
float llvm_fdiv32(float a, float b) {
  const fp::DivScale den = fp::div_scale_f32(b, b, a);
  float v4 = fp::rcp_f32(den.value);
  const fp::DivScale num = fp::div_scale_f32(a, b, a);
  const float v3 = den.value;
  const float v5 = num.value;
  float v6 = std::fma(-v3, v4, 1.0f);
  v4 = std::fma(v6, v4, v4);
  v6 = v5 * v4;
  const float v7 = std::fma(-v3, v6, v5);
  v6 = std::fma(v7, v4, v6);
  const float e = std::fma(-v3, v6, v5);
  const float q = fp::div_fmas_f32(e, v4, v6, num.vcc);
  return fp::div_fixup_f32(q, b, a);
}

/// The same for double:
///   v_div_scale_f64 v[4:5], s[0:1], b, b, a ; v_rcp_f64 v[6:7], v[4:5] ; v_div_scale_f64 v[8:9], vcc, a, b, a
///   v_fma_f64 t, -d, r, 1.0 ; v_fmac_f64 r, r, t      (twice)
///   v_mul_f64 q, n, r ; v_fma_f64 e, -d, q, n ; v_div_fmas_f64 e, r, q ; v_div_fixup_f64 e', b, a
double llvm_fdiv64(double a, double b) {
  const fp::DivScale64 den = fp::div_scale_f64(b, b, a);
  double r = fp::rcp_f64(den.value);
  const fp::DivScale64 num = fp::div_scale_f64(a, b, a);
  const double d = den.value;
  const double n = num.value;
  double t = std::fma(-d, r, 1.0);
  r = std::fma(r, t, r);
  t = std::fma(-d, r, 1.0);
  r = std::fma(r, t, r);
  const double q = n * r;
  const double e = std::fma(-d, q, n);
  const double s = fp::div_fmas_f64(e, r, q, num.vcc);
  return fp::div_fixup_f64(s, b, a);
}

/// f16 (`_Float16` division), as clang-22 emits it for gfx942:
///   v_cvt_f32_f16 v3, b ; v_cvt_f32_f16 v4, a ; v_rcp_f32 v3, v3 ; v_mul_f32 v4, v4, v3
///   v_fma_mix_f32 v5, -b, v4, a  (f16 operands widened exactly)   ; v_fmac_f32 v4, v5, v3
///   v_fma_mix_f32 v5, -b, v4, a ; v_mul_f32 v3, v5, v3 ; v_and_b32 v3, 0xff800000, v3 ; v_add_f32 v3, v3, v4
///   v_cvt_f16_f32 v3, v3 ; v_div_fixup_f16 v1, v3, b, a
std::uint16_t llvm_fdiv16(std::uint16_t a, std::uint16_t b) {
  const float fb = fp::f16_to_f32(b);
  const float fa = fp::f16_to_f32(a);
  const float r = fp::rcp_f32(fb);
  float q = fa * r;
  float e = std::fma(-fb, q, fa);
  q = std::fma(e, r, q);
  e = std::fma(-fb, q, fa);
  float t = e * r;
  t = fp::f32(fp::bits(t) & 0xff800000u);
  t = t + q;
  return fp::div_fixup_f16(fp::f32_to_f16(t), b, a);
}

bool same_or_both_nan(float x, float y) { return std::isnan(x) ? std::isnan(y) : fp::bits(x) == fp::bits(y); }
bool same_or_both_nan(double x, double y) { return std::isnan(x) ? std::isnan(y) : fp::bits64(x) == fp::bits64(y); }

std::vector<float> edge_floats() {
  std::vector<float> v = {0.0f, 1.0f, 2.0f, 3.0f, 0.1f, 1e-45f, 1e-40f, 1e-38f, 1.1754942e-38f, 1.17549435e-38f,
                          3.4028235e38f, 1.7e38f, 8.5e37f, 1e30f, 1e-30f, 9.2e18f, 1.8e19f, 5.4e-20f,
                          std::ldexp(1.0f, 126), std::ldexp(1.0f, 127), std::ldexp(1.5f, 126), std::ldexp(1.0f, -126),
                          std::ldexp(1.0f, -149), std::ldexp(1.0f, -103), std::ldexp(1.0f, -104), std::ldexp(1.0f, 96),
                          std::ldexp(1.0f, 64), std::ldexp(1.0f, -64), std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(), fp::f32(0x7f800001u), fp::f32(0x007fffffu),
                          fp::f32(0x00800001u), fp::f32(0x7f7ffffeu), fp::f32(0x3f7fffffu), fp::f32(0x3f800001u)};
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  return v;
}

TEST(Division, LlvmF32SequenceIsCorrectlyRoundedOnEdges) {
  const auto v = edge_floats();
  int n = 0;
  for (float a : v)
    for (float b : v) {
      const float want = a / b;
      const float got = llvm_fdiv32(a, b);
      ASSERT_TRUE(same_or_both_nan(want, got))
          << a << " / " << b << " (" << hex32(fp::bits(a)) << " / " << hex32(fp::bits(b)) << "): host "
          << hex32(fp::bits(want)) << ", sequence " << hex32(fp::bits(got));
      ++n;
    }
  EXPECT_GT(n, 5000);
}

TEST(Division, LlvmF32SequenceIsCorrectlyRoundedOnRandomInputs) {
  std::mt19937_64 g(kSeed + 5);
  for (int i = 0; i < 1000000; ++i) {
    const float a = fp::f32(interesting_f32(g));
    const float b = fp::f32(interesting_f32(g));
    const float want = a / b;
    const float got = llvm_fdiv32(a, b);
    ASSERT_TRUE(same_or_both_nan(want, got))
        << hex32(fp::bits(a)) << " / " << hex32(fp::bits(b)) << ": host " << hex32(fp::bits(want)) << ", sequence "
        << hex32(fp::bits(got)) << " seed " << kSeed + 5 << " i " << i;
  }
}

RC_GTEST_PROP(DivisionProps, F32QuotientOfArbitraryBitPatterns, (std::uint32_t ab, std::uint32_t bb)) {
  const float a = fp::f32(ab);
  const float b = fp::f32(bb);
  RC_ASSERT(same_or_both_nan(a / b, llvm_fdiv32(a, b)));
}

TEST(Division, LlvmF64SequenceIsCorrectlyRounded) {
  std::mt19937_64 g(kSeed + 6);
  auto rnd = [&]() -> double {
    const std::uint64_t r = g();
    const std::uint64_t sign = r & 0x8000000000000000ull;
    switch (g() % 8) {
      case 0: return fp::f64(sign | (r & 0x000fffffffffffffull));
      case 1: return fp::f64(sign | ((g() % 60 + 1) << 52) | (r & 0x000fffffffffffffull));
      case 2: return fp::f64(sign | ((2046 - g() % 60) << 52) | (r & 0x000fffffffffffffull));
      case 3: return fp::f64(sign | 0x7ff0000000000000ull | ((g() & 1) ? 0 : (r & 0xfffffffffffffull)));
      default: return fp::f64(r);
    }
  };
  for (int i = 0; i < 500000; ++i) {
    const double a = rnd();
    const double b = rnd();
    const double want = a / b;
    const double got = llvm_fdiv64(a, b);
    ASSERT_TRUE(same_or_both_nan(want, got)) << hex64(fp::bits64(a)) << " / " << hex64(fp::bits64(b)) << ": host "
                                             << hex64(fp::bits64(want)) << ", sequence " << hex64(fp::bits64(got))
                                             << " seed " << kSeed + 6 << " i " << i;
  }
  for (double a : {1.0, std::ldexp(1.0, 1023), std::ldexp(1.0, -1074), std::ldexp(1.0, -1022), 0.0, 3.0})
    for (double b : {3.0, std::ldexp(1.0, 1023), std::ldexp(1.0, -1074), std::ldexp(1.0, -1000), std::ldexp(1.5, 1022)})
      for (double s : {1.0, -1.0})
        EXPECT_TRUE(same_or_both_nan(a * s / b, llvm_fdiv64(a * s, b))) << a * s << " / " << b;
}

TEST(Division, LlvmF16SequenceIsCorrectlyRounded) {
  // Reference: the quotient in f64 (exact to far more than 2*11+2 bits) rounded once to f16.
  std::mt19937_64 g(kSeed + 7);
  auto check = [](std::uint16_t a, std::uint16_t b) {
    const double q = static_cast<double>(fp::f16_to_f32(a)) / static_cast<double>(fp::f16_to_f32(b));
    const std::uint16_t want = fp::f64_to_f16(q);
    const std::uint16_t got = llvm_fdiv16(a, b);
    if (fp::is_nan_f16(want)) ASSERT_TRUE(fp::is_nan_f16(got)) << hex32(a) << " / " << hex32(b);
    else ASSERT_EQ(got, want) << hex32(a) << " / " << hex32(b) << " seed " << kSeed + 7;
  };
  for (int i = 0; i < 1000000; ++i) check(static_cast<std::uint16_t>(g()), static_cast<std::uint16_t>(g()));
  for (std::uint32_t a = 0; a < 0x10000; a += 7) check(static_cast<std::uint16_t>(a), 0x3c00);
  for (std::uint32_t b = 0; b < 0x10000; ++b) check(0x3c00, static_cast<std::uint16_t>(b));
}

TEST(Division, FixupAndScaleSpecialCasesFromTheIsa) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(fp::bits(fp::div_fixup_f32(1.0f, 0.0f, 0.0f)), fp::default_nan_f32);  // 0/0
  EXPECT_EQ(fp::bits(fp::div_fixup_f32(1.0f, inf, -inf)), fp::default_nan_f32);   // inf/inf
  EXPECT_EQ(fp::div_fixup_f32(1.0f, -0.0f, 5.0f), -inf);                           // x/0
  EXPECT_EQ(fp::bits(fp::div_fixup_f32(1.0f, -inf, 5.0f)), 0x80000000u);           // x/inf
  EXPECT_EQ(fp::bits(fp::div_fixup_f32(1.0f, 2.0f, fp::f32(0x7f800001u))), 0x7fc00001u);  // sNaN numerator quieted
  EXPECT_EQ(fp::div_fixup_f32(-3.0f, -2.0f, 6.0f), -3.0f);  // sign from S1 ^ S2, magnitude from S0
  EXPECT_TRUE(std::isnan(fp::div_scale_f32(1.0f, 0.0f, 1.0f).value));
  // Exponent difference >= 96: VCC set, only the denominator is scaled (by 2^64).
  const float n = std::ldexp(1.0f, 100);
  const float d = 1.0f;
  EXPECT_TRUE(fp::div_scale_f32(d, d, n).vcc);
  EXPECT_EQ(fp::div_scale_f32(d, d, n).value, std::ldexp(1.0f, 64));
  EXPECT_EQ(fp::div_scale_f32(n, d, n).value, n);
  EXPECT_EQ(fp::div_fixup_f16(0x3c00, 0x0000, 0x0000), fp::default_nan_f16);
  EXPECT_EQ(fp::div_fixup_f16(0x3c00, 0x8000, 0x3c00), 0xfc00);
}

// ---------------------------------------------------------------------------------------------------------------
// ldexp / frexp / fract / class / min / max / med3
// ---------------------------------------------------------------------------------------------------------------

RC_GTEST_PROP(FrexpLdexp, MatchHostLibrary, (std::uint32_t b, std::int32_t e)) {
  const float x = fp::f32(b);
  if (std::isfinite(x)) {
    int he = 0;
    const float hm = std::frexp(x, &he);
    RC_ASSERT(fp::bits(fp::frexp_mant_f32(x)) == fp::bits(hm));
    RC_ASSERT(fp::frexp_exp_f32(x) == he);
  } else {
    RC_ASSERT(fp::frexp_exp_f32(x) == 0);
    RC_ASSERT(fp::bits(fp::frexp_mant_f32(x)) == b);  // passed through unchanged
  }
  const int small = static_cast<int>(e % 300);
  const float want = std::ldexp(x, small);
  const float got = fp::ldexp_f32(x, small);
  RC_ASSERT(same_or_both_nan(want, got));
  if (std::isnan(x)) RC_ASSERT(!fp::is_snan_f32(fp::bits(got)));
  // Huge exponents saturate to 0 / inf exactly as the true product would.
  if (std::isfinite(x) && x != 0.0f) {
    RC_ASSERT(std::isinf(fp::ldexp_f32(x, std::numeric_limits<std::int32_t>::max())));
    RC_ASSERT(fp::ldexp_f32(x, std::numeric_limits<std::int32_t>::min()) == 0.0f);
  }
}

TEST(FrexpLdexp, DenormalsAndDoubles) {
  for (float x : {1e-45f, -3e-39f, 1e-38f}) {
    int e = 0;
    EXPECT_EQ(fp::frexp_mant_f32(x), std::frexp(x, &e));
    EXPECT_EQ(fp::frexp_exp_f32(x), e);
  }
  EXPECT_EQ(fp::ldexp_f32(1.0f, -149), std::ldexp(1.0f, -149));
  EXPECT_EQ(fp::ldexp_f32(1.5f, -149), std::ldexp(1.0f, -148));  // 1.5 * 2^-149 ties to even -> 2^-148
  EXPECT_EQ(fp::ldexp_f64(1.0, -1074), std::ldexp(1.0, -1074));
  EXPECT_EQ(fp::frexp_exp_f64(std::numeric_limits<double>::infinity()), 0);
  for (std::uint32_t h = 0; h < 0x7c00; ++h) {
    int e = 0;
    const float m = std::frexp(fp::f16_to_f32(static_cast<std::uint16_t>(h)), &e);
    ASSERT_EQ(fp::f16_to_f32(fp::frexp_mant_f16(static_cast<std::uint16_t>(h))), m);
    ASSERT_EQ(fp::frexp_exp_f16(static_cast<std::uint16_t>(h)), e);
    ASSERT_EQ(fp::ldexp_f16(static_cast<std::uint16_t>(h), 3),
              fp::f64_to_f16(std::ldexp(static_cast<double>(fp::f16_to_f32(static_cast<std::uint16_t>(h))), 3)));
  }
}

TEST(Fract, MatchesDefinitionAndClamp) {
  std::mt19937_64 g(kSeed + 8);
  for (int i = 0; i < 200000; ++i) {
    const float x = fp::f32(interesting_f32(g));
    const float r = fp::fract_f32(x);
    if (!std::isfinite(x)) {
      ASSERT_TRUE(std::isnan(r));
      continue;
    }
    // Reference: exact x - floor(x) in double, rounded to float, never 1.0.
    const double exact = static_cast<double>(x) - std::floor(static_cast<double>(x));
    const float want = std::min(static_cast<float>(exact), fp::f32(0x3f7fffffu));
    ASSERT_EQ(fp::bits(r), fp::bits(want)) << hex32(fp::bits(x));
    ASSERT_TRUE(r >= 0.0f && r < 1.0f);
  }
  EXPECT_EQ(fp::fract_f32(-1e-30f), fp::f32(0x3f7fffffu));
  EXPECT_EQ(fp::fract_f32(-1.25f), 0.75f);
  EXPECT_EQ(fp::fract_f64(-0.25), 0.75);
  EXPECT_EQ(fp::fract_f16(0xb400), 0x3a00);  // fract(-0.25) = 0.75
}

TEST(Class, MaskAgreesWithHostClassification) {
  std::mt19937_64 g(kSeed + 9);
  auto expected_bit = [](float x, std::uint32_t b) -> std::uint32_t {
    const bool neg = std::signbit(x);
    switch (std::fpclassify(x)) {
      case FP_NAN: return (b & 0x00400000u) ? 1u << 1 : 1u << 0;
      case FP_INFINITE: return neg ? 1u << 2 : 1u << 9;
      case FP_NORMAL: return neg ? 1u << 3 : 1u << 8;
      case FP_SUBNORMAL: return neg ? 1u << 4 : 1u << 7;
      default: return neg ? 1u << 5 : 1u << 6;
    }
  };
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t b = interesting_f32(g);
    const float x = fp::f32(b);
    const std::uint32_t want = expected_bit(x, b);
    ASSERT_EQ(fp::class_bit_f32(b), want) << hex32(b);
    ASSERT_TRUE(fp::class_f32(x, want));
    ASSERT_FALSE(fp::class_f32(x, 0x3ffu & ~want));
    const double dx = static_cast<double>(x);  // widening keeps the class except denormal -> normal
    if (!std::isnan(x) && std::fpclassify(x) != FP_SUBNORMAL) ASSERT_EQ(fp::class_bit_f64(fp::bits64(dx)), want);
  }
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float x = fp::f16_to_f32(static_cast<std::uint16_t>(h));
    std::uint32_t want;
    const std::uint32_t e = (h >> 10) & 0x1f;
    if (std::isnan(x)) want = (h & 0x200) ? 2u : 1u;
    else if (e == 0 && (h & 0x3ff)) want = (h & 0x8000) ? 1u << 4 : 1u << 7;  // f16 denormal, normal in f32
    else want = expected_bit(x, fp::bits(x));
    ASSERT_EQ(fp::class_bit_f16(static_cast<std::uint16_t>(h)), want) << hex32(h);
  }
  EXPECT_TRUE(fp::class_f64(fp::f64(0x0000000000000001ull), 1u << 7));
  EXPECT_TRUE(fp::class_f64(fp::f64(0xfff0000000000001ull), 1u << 0));
}

TEST(MinMax, NanAndSignedZeroRules) {
  const float snan = fp::f32(0x7f800001u);
  const float qnan = fp::f32(0x7fc00002u);
  for (bool ieee : {false, true}) {
    EXPECT_EQ(fp::min_f32(qnan, 2.0f, ieee), 2.0f);
    EXPECT_EQ(fp::max_f32(3.0f, qnan, ieee), 3.0f);
    EXPECT_EQ(fp::bits(fp::min_f32(0.0f, -0.0f, ieee)), 0x80000000u);
    EXPECT_EQ(fp::bits(fp::min_f32(-0.0f, 0.0f, ieee)), 0x80000000u);
    EXPECT_EQ(fp::bits(fp::max_f32(0.0f, -0.0f, ieee)), 0x00000000u);
    EXPECT_EQ(fp::bits(fp::max_f32(-0.0f, 0.0f, ieee)), 0x00000000u);
    EXPECT_EQ(fp::min_f16(0x0000, 0x8000, ieee), 0x8000);
    EXPECT_EQ(fp::max_f16(0x8000, 0x0000, ieee), 0x0000);
  }
  // IEEE mode: an sNaN operand wins, quieted; IEEE off: it loses like a qNaN.
  EXPECT_EQ(fp::bits(fp::min_f32(snan, 1.0f, true)), 0x7fc00001u);
  EXPECT_EQ(fp::bits(fp::max_f32(1.0f, snan, true)), 0x7fc00001u);
  EXPECT_EQ(fp::min_f32(snan, 1.0f, false), 1.0f);
  EXPECT_EQ(fp::max_f16(0x7c01, 0x3c00, true), 0x7e01);
  EXPECT_EQ(fp::max_f16(0x7c01, 0x3c00, false), 0x3c00);
  EXPECT_EQ(fp::bits64(fp::min_f64(fp::f64(0x7ff0000000000001ull), 1.0, true)), 0x7ff8000000000001ull);
  // Two NaNs, not signalling: S1 comes back.
  EXPECT_EQ(fp::bits(fp::min_f32(qnan, fp::f32(0x7fc00005u), true)), 0x7fc00005u);
}

RC_GTEST_PROP(MinMaxProps, NumbersMatchHostFminFmax, (std::uint32_t ab, std::uint32_t bb, bool ieee)) {
  const float a = fp::f32(ab);
  const float b = fp::f32(bb);
  RC_PRE(!std::isnan(a) && !std::isnan(b) && !(a == 0.0f && b == 0.0f));
  RC_ASSERT(fp::bits(fp::min_f32(a, b, ieee)) == fp::bits(std::fmin(a, b)));
  RC_ASSERT(fp::bits(fp::max_f32(a, b, ieee)) == fp::bits(std::fmax(a, b)));
  const std::uint16_t ha = fp::f32_to_f16(a);
  const std::uint16_t hb = fp::f32_to_f16(b);
  if (!fp::is_nan_f16(ha) && !fp::is_nan_f16(hb) && ((ha | hb) & 0x7fff) != 0) {
    const float m = std::fmin(fp::f16_to_f32(ha), fp::f16_to_f32(hb));
    RC_ASSERT(fp::f16_to_f32(fp::min_f16(ha, hb, ieee)) == m);
  }
}

RC_GTEST_PROP(MinMaxProps, Med3IsTheMiddleValue, (std::int32_t x, std::int32_t y, std::int32_t z)) {
  // Distinct small integers as floats: the median is unambiguous.
  const float a = static_cast<float>(x % 1000);
  const float b = static_cast<float>(y % 1000);
  const float c = static_cast<float>(z % 1000);
  std::array<float, 3> s{a, b, c};
  std::sort(s.begin(), s.end());
  RC_ASSERT(fp::med3_f32(a, b, c, true) == s[1]);
  RC_ASSERT(fp::f16_to_f32(fp::med3_f16(fp::f32_to_f16(a), fp::f32_to_f16(b), fp::f32_to_f16(c), true)) == s[1]);
}

TEST(MinMax, Med3WithNanIsMin3) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(fp::med3_f32(nan, 5.0f, 3.0f, true), 3.0f);
  EXPECT_EQ(fp::med3_f32(4.0f, nan, 3.0f, true), 3.0f);
  EXPECT_EQ(fp::med3_f32(4.0f, 6.0f, nan, true), 4.0f);
}

// ---------------------------------------------------------------------------------------------------------------
// Transcendentals: within 1 ulp of the double-precision library, exact ISA special cases
// ---------------------------------------------------------------------------------------------------------------

/// Distance in ulps between two finite floats of the same sign (or zero).
std::int64_t ulp_diff(float a, float b) {
  auto key = [](float f) {
    const std::int64_t i = static_cast<std::int32_t>(fp::bits(f));
    return i < 0 ? -(i & 0x7fffffff) : i;
  };
  return std::llabs(key(a) - key(b));
}

TEST(Transcendental, IsaFunctionalExamples) {
  auto B = [](float f) { return fp::bits(f); };
  // [ISA] functional examples, verbatim.
  EXPECT_EQ(B(fp::exp2_f32(fp::f32(0xff800000u))), 0x00000000u);
  EXPECT_EQ(B(fp::exp2_f32(fp::f32(0x80000000u))), 0x3f800000u);
  EXPECT_EQ(B(fp::exp2_f32(fp::f32(0x7f800000u))), 0x7f800000u);
  EXPECT_EQ(B(fp::log2_f32(fp::f32(0xff800000u))), 0xffc00000u);
  EXPECT_EQ(B(fp::log2_f32(fp::f32(0xbf800000u))), 0xffc00000u);
  EXPECT_EQ(B(fp::log2_f32(fp::f32(0x80000000u))), 0xff800000u);
  EXPECT_EQ(B(fp::log2_f32(fp::f32(0x00000000u))), 0xff800000u);
  EXPECT_EQ(B(fp::log2_f32(fp::f32(0x3f800000u))), 0x00000000u);
  EXPECT_EQ(B(fp::log2_f32(fp::f32(0x7f800000u))), 0x7f800000u);
  EXPECT_EQ(B(fp::rcp_f32(fp::f32(0xff800000u))), 0x80000000u);
  EXPECT_EQ(B(fp::rcp_f32(fp::f32(0xc0000000u))), 0xbf000000u);
  EXPECT_EQ(B(fp::rcp_f32(fp::f32(0x80000000u))), 0xff800000u);
  EXPECT_EQ(B(fp::rcp_f32(fp::f32(0x00000000u))), 0x7f800000u);
  EXPECT_EQ(B(fp::rcp_f32(fp::f32(0x7f800000u))), 0x00000000u);
  EXPECT_EQ(B(fp::rsq_f32(fp::f32(0xff800000u))), 0xffc00000u);
  EXPECT_EQ(B(fp::rsq_f32(fp::f32(0x80000000u))), 0xff800000u);
  EXPECT_EQ(B(fp::rsq_f32(fp::f32(0x00000000u))), 0x7f800000u);
  EXPECT_EQ(B(fp::rsq_f32(fp::f32(0x40800000u))), 0x3f000000u);
  EXPECT_EQ(B(fp::rsq_f32(fp::f32(0x7f800000u))), 0x00000000u);
  EXPECT_EQ(B(fp::sqrt_f32(fp::f32(0xff800000u))), 0xffc00000u);
  EXPECT_EQ(B(fp::sqrt_f32(fp::f32(0x80000000u))), 0x80000000u);
  EXPECT_EQ(B(fp::sqrt_f32(fp::f32(0x00000000u))), 0x00000000u);
  EXPECT_EQ(B(fp::sqrt_f32(fp::f32(0x40800000u))), 0x40000000u);
  EXPECT_EQ(B(fp::sqrt_f32(fp::f32(0x7f800000u))), 0x7f800000u);
  EXPECT_EQ(B(fp::sin_f32(fp::f32(0xff800000u))), 0xffc00000u);
  EXPECT_EQ(B(fp::sin_f32(fp::f32(0xff7fffffu))), 0x00000000u);
  EXPECT_EQ(B(fp::sin_f32(fp::f32(0x80000000u))), 0x80000000u);
  EXPECT_EQ(B(fp::sin_f32(fp::f32(0x3e800000u))), 0x3f800000u);
  EXPECT_EQ(B(fp::sin_f32(fp::f32(0x7f800000u))), 0xffc00000u);
  EXPECT_EQ(B(fp::cos_f32(fp::f32(0xff800000u))), 0xffc00000u);
  EXPECT_EQ(B(fp::cos_f32(fp::f32(0xff7fffffu))), 0x3f800000u);
  EXPECT_EQ(B(fp::cos_f32(fp::f32(0x80000000u))), 0x3f800000u);
  EXPECT_EQ(B(fp::cos_f32(fp::f32(0x3e800000u))), 0x00000000u);
  EXPECT_EQ(B(fp::cos_f32(fp::f32(0x7f800000u))), 0xffc00000u);
  // f16 examples.
  EXPECT_EQ(fp::rcp_f16(0xfc00), 0x8000);
  EXPECT_EQ(fp::rcp_f16(0xc000), 0xb800);
  EXPECT_EQ(fp::rcp_f16(0x8000), 0xfc00);
  EXPECT_EQ(fp::rcp_f16(0x0000), 0x7c00);
  EXPECT_EQ(fp::rcp_f16(0x7c00), 0x0000);
  EXPECT_EQ(fp::sqrt_f16(0xfc00), 0xfe00);
  EXPECT_EQ(fp::sqrt_f16(0x8000), 0x8000);
  EXPECT_EQ(fp::sqrt_f16(0x4400), 0x4000);
  EXPECT_EQ(fp::rsq_f16(0xfc00), 0xfe00);
  EXPECT_EQ(fp::rsq_f16(0x8000), 0xfc00);
  EXPECT_EQ(fp::rsq_f16(0x4400), 0x3800);
  EXPECT_EQ(fp::rsq_f16(0x7c00), 0x0000);
  EXPECT_EQ(fp::log2_f16(0xfc00), 0xfe00);
  EXPECT_EQ(fp::log2_f16(0xbc00), 0xfe00);
  EXPECT_EQ(fp::log2_f16(0x8000), 0xfc00);
  EXPECT_EQ(fp::log2_f16(0x3c00), 0x0000);
  EXPECT_EQ(fp::log2_f16(0x7c00), 0x7c00);
  EXPECT_EQ(fp::exp2_f16(0xfc00), 0x0000);
  EXPECT_EQ(fp::exp2_f16(0x8000), 0x3c00);
  EXPECT_EQ(fp::exp2_f16(0x7c00), 0x7c00);
  EXPECT_EQ(fp::sin_f16(0xfc00), 0xfe00);
  EXPECT_EQ(fp::sin_f16(0xfbff), 0x0000);
  EXPECT_EQ(fp::sin_f16(0x8000), 0x8000);
  EXPECT_EQ(fp::sin_f16(0x3400), 0x3c00);
  EXPECT_EQ(fp::sin_f16(0x7bff), 0x0000);
  EXPECT_EQ(fp::cos_f16(0xfbff), 0x3c00);
  EXPECT_EQ(fp::cos_f16(0x8000), 0x3c00);
  EXPECT_EQ(fp::cos_f16(0x3400), 0x0000);
  // Denormal flushing of the f32 units [ISA "denormals are flushed"].
  EXPECT_EQ(B(fp::rcp_f32(1e-40f)), 0x7f800000u);         // input flushed to +0
  EXPECT_EQ(B(fp::rcp_f32(std::ldexp(1.0f, 127))), 0u);    // 2^-127 result flushed
  EXPECT_EQ(B(fp::exp2_f32(-130.0f)), 0u);                 // 2^-130 result flushed
  EXPECT_EQ(B(fp::exp2_f32(1e-40f)), 0x3f800000u);         // 2^(denormal -> 0) = 1
  EXPECT_EQ(B(fp::log2_f32(1e-40f)), 0xff800000u);
  EXPECT_EQ(B(fp::sqrt_f32(-1e-40f)), 0x80000000u);
  // NaN inputs come back quieted.
  EXPECT_EQ(B(fp::exp2_f32(fp::f32(0x7f800001u))), 0x7fc00001u);
  EXPECT_EQ(fp::sqrt_f16(0x7c01), 0x7e01);
}

TEST(Transcendental, WithinOneUlpOfDoublePrecision) {
  std::mt19937_64 g(kSeed + 10);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int i = 0; i < 200000; ++i) {
    const float x = u(g) * std::ldexp(1.0f, static_cast<int>(g() % 20) - 5);
    const double dx = x;
    const float ax = std::fabs(x) + std::ldexp(1.0f, -100);
    // The f32 unit flushes denormal results [ISA V_EXP_F32 "denormals are flushed"]: so does the reference.
    ASSERT_LE(ulp_diff(fp::exp2_f32(x), fp::flush_denorm_f32(static_cast<float>(std::exp2(dx)))), 1) << x;
    ASSERT_LE(ulp_diff(fp::log2_f32(ax), static_cast<float>(std::log2(static_cast<double>(ax)))), 1) << ax;
    ASSERT_LE(ulp_diff(fp::rcp_f32(x), static_cast<float>(1.0 / dx)), 1) << x;
    ASSERT_LE(ulp_diff(fp::rsq_f32(ax), static_cast<float>(1.0 / std::sqrt(static_cast<double>(ax)))), 1) << ax;
    ASSERT_LE(ulp_diff(fp::sqrt_f32(ax), static_cast<float>(std::sqrt(static_cast<double>(ax)))), 1) << ax;
    // sin/cos in revolutions: compare with the double library on 2*pi*x for moderate x (absolute error, as both
    // are reduced differently near zeros of the function).
    if (std::fabs(x) < 64.0f) {
      const double two_pi = 6.283185307179586476925286766559;
      ASSERT_NEAR(fp::sin_f32(x), std::sin(two_pi * dx), 2e-7 + 1e-15 * std::fabs(dx)) << x;
      ASSERT_NEAR(fp::cos_f32(x), std::cos(two_pi * dx), 2e-7 + 1e-15 * std::fabs(dx)) << x;
    }
  }
  EXPECT_EQ(fp::sqrt_f64(2.0), std::sqrt(2.0));
  EXPECT_EQ(fp::rcp_f64(3.0), 1.0 / 3.0);
  EXPECT_TRUE(std::isnan(fp::rsq_f64(-1.0)));
  EXPECT_EQ(fp::rsq_f64(-0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(fp::rcp_f64(std::ldexp(1.0, -1030)), std::ldexp(1.0, 1030));  // f64 keeps denormals
}

// ---------------------------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------------------------

RC_GTEST_PROP(Convert, FloatToIntSaturates, (std::uint32_t b)) {
  const float x = fp::f32(b);
  const double d = x;
  std::int64_t wi;
  std::int64_t wu;
  if (std::isnan(x)) {
    wi = 0;
    wu = 0;
  } else {
    const double t = std::trunc(d);
    wi = static_cast<std::int64_t>(std::clamp(t, -2147483648.0, 2147483647.0));
    wu = static_cast<std::int64_t>(std::clamp(t, 0.0, 4294967295.0));
  }
  RC_ASSERT(fp::cvt_i32_f32(x) == wi);
  RC_ASSERT(fp::cvt_u32_f32(x) == static_cast<std::uint64_t>(wu));
  RC_ASSERT(fp::cvt_i32_f64(d) == wi);
  RC_ASSERT(fp::cvt_u32_f64(d) == static_cast<std::uint64_t>(wu));
  if (!std::isnan(x)) {
    RC_ASSERT(fp::cvt_flr_i32_f32(x) == static_cast<std::int64_t>(std::clamp(std::floor(d), -2147483648.0, 2147483647.0)));
    const double rp = std::floor(static_cast<double>(x + 0.5f));
    RC_ASSERT(fp::cvt_rpi_i32_f32(x) == static_cast<std::int64_t>(std::clamp(rp, -2147483648.0, 2147483647.0)));
  }
}

TEST(Convert, EdgeValues) {
  EXPECT_EQ(fp::cvt_i32_f32(std::numeric_limits<float>::infinity()), INT32_MAX);
  EXPECT_EQ(fp::cvt_i32_f32(-std::numeric_limits<float>::infinity()), INT32_MIN);
  EXPECT_EQ(fp::cvt_i32_f32(std::numeric_limits<float>::quiet_NaN()), 0);
  EXPECT_EQ(fp::cvt_i32_f32(-2.9f), -2);
  EXPECT_EQ(fp::cvt_u32_f32(-0.9f), 0u);
  EXPECT_EQ(fp::cvt_u32_f32(-5.0f), 0u);
  EXPECT_EQ(fp::cvt_u32_f32(4294967296.0f), 0xffffffffu);
  EXPECT_EQ(fp::cvt_i32_f64(-2147483648.9), INT32_MIN);
  EXPECT_EQ(fp::cvt_i32_f64(2147483647.9), INT32_MAX);
  EXPECT_EQ(fp::cvt_rpi_i32_f32(-2.5f), -2);  // floor(-2.5 + 0.5)
  EXPECT_EQ(fp::cvt_rpi_i32_f32(2.5f), 3);
  EXPECT_EQ(fp::cvt_flr_i32_f32(-0.5f), -1);
  EXPECT_EQ(fp::cvt_pk_u8_f32(300.0f, 1, 0xaabbccddu), 0xaabbffddu);
  EXPECT_EQ(fp::cvt_pk_u8_f32(-3.0f, 3, 0xaabbccddu), 0x00bbccddu);
  EXPECT_EQ(fp::cvt_pk_u8_f32(2.5f, 0, 0), 2u);
  EXPECT_EQ(fp::cvt_pknorm_i16_f32(-2.0f, 0.5f), 0x8001u | (16384u << 16));  // -1 -> -32767, 0.5*32767 = 16383.5 -> 16384
  EXPECT_EQ(fp::cvt_pknorm_u16_f32(1.5f, std::numeric_limits<float>::quiet_NaN()), 0xffffu);
  EXPECT_EQ(fp::cvt_f32_ubyte(0x11223344u, 2), 34.0f);
  EXPECT_EQ(fp::f32_to_f16_clamp(3.0f), 0x3c00);
  EXPECT_EQ(fp::f32_to_f16_clamp(-3.0f), 0x0000);
  EXPECT_EQ(fp::f32_to_f16_clamp(std::numeric_limits<float>::quiet_NaN()), 0x0000);
  EXPECT_EQ(fp::clamp01_f32(0.25f), 0.25f);
  EXPECT_EQ(fp::flush_denorm_f32(-1e-40f), -0.0f);
  EXPECT_TRUE(std::signbit(fp::flush_denorm_f32(-1e-40f)));
  EXPECT_EQ(fp::flush_denorm_f16(0x83ff), 0x8000);
  EXPECT_EQ(fp::flush_denorm_f16(0x0400), 0x0400);
}

// ---------------------------------------------------------------------------------------------------------------
// Integer helpers against the ISA pseudo-code written out literally (loops, 64-bit arithmetic)
// ---------------------------------------------------------------------------------------------------------------

RC_GTEST_PROP(Integer, MatchLiteralPseudoCode, (std::uint32_t a, std::uint32_t b, std::uint32_t c)) {
  // Saturating arithmetic, by 64-bit arithmetic and clamping.
  RC_ASSERT(fp::add_sat_u32(a, b) == std::min<std::uint64_t>(std::uint64_t{a} + b, 0xffffffffu));
  RC_ASSERT(fp::sub_sat_u32(a, b) == (a >= b ? a - b : 0u));
  const auto ia = static_cast<std::int32_t>(a);
  const auto ib = static_cast<std::int32_t>(b);
  RC_ASSERT(fp::add_sat_i32(ia, ib) == std::clamp<std::int64_t>(std::int64_t{ia} + ib, INT32_MIN, INT32_MAX));
  RC_ASSERT(fp::sub_sat_i32(ia, ib) == std::clamp<std::int64_t>(std::int64_t{ia} - ib, INT32_MIN, INT32_MAX));
  const auto ha = static_cast<std::uint16_t>(a);
  const auto hb = static_cast<std::uint16_t>(b);
  RC_ASSERT(fp::add_sat_u16(ha, hb) == std::min(ha + hb, 0xffff));
  RC_ASSERT(fp::sub_sat_u16(ha, hb) == std::max(ha - hb, 0));
  const auto sa = static_cast<std::int16_t>(a);
  const auto sb = static_cast<std::int16_t>(b);
  RC_ASSERT(fp::add_sat_i16(sa, sb) == std::clamp(sa + sb, -32768, 32767));
  RC_ASSERT(fp::sub_sat_i16(sa, sb) == std::clamp(sa - sb, -32768, 32767));
  // mul_hi via 128-bit products.
  RC_ASSERT(fp::mul_hi_u32(a, b) == static_cast<std::uint32_t>((static_cast<unsigned __int128>(a) * b) >> 32));
  RC_ASSERT(fp::mul_hi_i32(ia, ib) == static_cast<std::int32_t>((static_cast<__int128>(ia) * ib) >> 32));
  // bfe: bit loop.
  const std::uint32_t off = b & 31u;
  const std::uint32_t w = c & 31u;
  std::uint32_t field = 0;
  for (std::uint32_t i = 0; i < w; ++i)
    if (off + i < 32 && ((a >> (off + i)) & 1u)) field |= 1u << i;
  RC_ASSERT(fp::bfe_u32(a, b, c) == field);
  // bfe_i32: the arithmetic shift fills bits past 31 with the sign of a.
  std::uint32_t sfield = 0;
  for (std::uint32_t i = 0; i < w; ++i) {
    const std::uint32_t pos = off + i;
    const std::uint32_t bit = pos < 32 ? (a >> pos) & 1u : a >> 31;
    sfield |= bit << i;
  }
  std::int64_t sval = sfield;
  if (w > 0 && ((sfield >> (w - 1)) & 1u)) sval -= std::int64_t{1} << w;
  RC_ASSERT(fp::bfe_i32(a, b, c) == (w == 0 ? 0 : sval));
  // alignbit / alignbyte on a 64-bit value.
  const std::uint64_t cat = (std::uint64_t{a} << 32) | b;
  RC_ASSERT(fp::alignbit_b32(a, b, c) == static_cast<std::uint32_t>(cat >> (c & 31u)));
  RC_ASSERT(fp::alignbyte_b32(a, b, c) == static_cast<std::uint32_t>(cat >> (8 * (c & 3u))));
  RC_ASSERT(fp::bfi_b32(a, b, c) == ((a & b) | (~a & c)));
  // SAD family, byte loops.
  std::uint32_t sad = c;
  std::uint32_t msad = c;
  for (int i = 0; i < 4; ++i) {
    const int x = (a >> (8 * i)) & 0xff;
    const int y = (b >> (8 * i)) & 0xff;
    sad += static_cast<std::uint32_t>(std::abs(x - y));
    if (y != 0) msad += static_cast<std::uint32_t>(std::abs(x - y));
  }
  RC_ASSERT(fp::sad_u8(a, b, c) == sad);
  RC_ASSERT(fp::msad_u8(a, b, c) == msad);
  RC_ASSERT(fp::sad_hi_u8(a, b, c) == ((sad - c) << 16) + c);
  RC_ASSERT(fp::sad_u16(a, b, c) == c + static_cast<std::uint32_t>(std::abs(int(a & 0xffff) - int(b & 0xffff))) +
                                        static_cast<std::uint32_t>(std::abs(int(a >> 16) - int(b >> 16))));
  RC_ASSERT(fp::sad_u32(a, b, c) == (a > b ? a - b : b - a) + c);
  // ffbh / ffbl / ffbh_i32: the ISA's search loops.
  std::uint32_t hi = 0xffffffffu, lo = 0xffffffffu, hs = 0xffffffffu;
  for (std::uint32_t i = 0; i < 32; ++i)
    if ((a >> (31 - i)) & 1u) { hi = i; break; }
  for (std::uint32_t i = 0; i < 32; ++i)
    if ((a >> i) & 1u) { lo = i; break; }
  for (std::uint32_t i = 1; i < 32; ++i)
    if (((a >> (31 - i)) & 1u) != (a >> 31)) { hs = i; break; }
  RC_ASSERT(fp::ffbh_u32(a) == hi);
  RC_ASSERT(fp::ffbl_b32(a) == lo);
  RC_ASSERT(fp::ffbh_i32(a) == hs);
  std::uint32_t pop = 0, rev = 0;
  for (std::uint32_t i = 0; i < 32; ++i) {
    pop += (a >> i) & 1u;
    rev |= ((a >> i) & 1u) << (31 - i);
  }
  RC_ASSERT(fp::bcnt_u32(a, b) == pop + b);
  RC_ASSERT(fp::brev_b32(a) == rev);
  // perm: byte table of the ISA's BYTE_PERMUTE.
  std::uint8_t in[8];
  for (int i = 0; i < 8; ++i) in[i] = static_cast<std::uint8_t>(cat >> (8 * i));
  std::uint32_t perm = 0;
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t s = (c >> (8 * i)) & 0xff;
    std::uint8_t r;
    if (s >= 13) r = 0xff;
    else if (s == 12) r = 0;
    else if (s == 11) r = (in[7] & 0x80) ? 0xff : 0;
    else if (s == 10) r = (in[5] & 0x80) ? 0xff : 0;
    else if (s == 9) r = (in[3] & 0x80) ? 0xff : 0;
    else if (s == 8) r = (in[1] & 0x80) ? 0xff : 0;
    else r = in[s];
    perm |= std::uint32_t{r} << (8 * i);
  }
  RC_ASSERT(fp::perm_b32(a, b, c) == perm);
}

TEST(Integer, IsaFunctionalExamples) {
  EXPECT_EQ(fp::ffbh_u32(0x00000000u), 0xffffffffu);
  EXPECT_EQ(fp::ffbh_u32(0x800000ffu), 0u);
  EXPECT_EQ(fp::ffbh_u32(0x100000ffu), 3u);
  EXPECT_EQ(fp::ffbh_u32(0x0000ffffu), 16u);
  EXPECT_EQ(fp::ffbh_u32(0x00000001u), 31u);
  EXPECT_EQ(fp::ffbl_b32(0xff000008u), 3u);
  EXPECT_EQ(fp::ffbl_b32(0x80000000u), 31u);
  EXPECT_EQ(fp::ffbh_i32(0x00000000u), 0xffffffffu);
  EXPECT_EQ(fp::ffbh_i32(0x40000000u), 1u);
  EXPECT_EQ(fp::ffbh_i32(0x80000000u), 1u);
  EXPECT_EQ(fp::ffbh_i32(0x0fffffffu), 4u);
  EXPECT_EQ(fp::ffbh_i32(0xffff0000u), 16u);
  EXPECT_EQ(fp::ffbh_i32(0xfffffffeu), 31u);
  EXPECT_EQ(fp::ffbh_i32(0xffffffffu), 0xffffffffu);
  EXPECT_EQ(fp::perm_b32(0x11223344u, 0x55667788u, 0x0c0c0c0cu), 0u);
  EXPECT_EQ(fp::perm_b32(0x11223344u, 0x55667788u, 0x0d0e0f10u), 0xffffffffu);
  EXPECT_EQ(fp::perm_b32(0x11223344u, 0x55667788u, 0x07060100u), 0x11227788u);
  EXPECT_EQ(fp::bfe_i32(0x000000f0u, 4, 4), -1);
  EXPECT_EQ(fp::bfe_u32(0xdeadbeefu, 36, 8), 0xeeu);  // offset taken mod 32
  EXPECT_EQ(fp::lerp_u8(0x01020304u, 0x01020304u, 0x01010101u), 0x01020304u);
  EXPECT_EQ(fp::bfm_b32(4, 8), 0xf00u);
}

}  // namespace

namespace {

// fp::fma_f32 (no libm call: an f64 fast path, round-to-odd when the f64 sum sits on an f32 halfway point) and its
// branch-free form fma_f32_odd (always round-to-odd) against the host's fused multiply-add, on random bit patterns
// weighted toward sums that land on or next to halfway points.
TEST(FpFma, F32MatchesHostFmaIncludingHalfwayCases) {
  std::uint64_t state = 0x243f6a8885a308d3ull;
  auto next = [&] {
    state += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::size_t bad = 0;
  for (int i = 0; i < 400000; ++i) {
    float a = std::bit_cast<float>(static_cast<std::uint32_t>(next()));
    float b = std::bit_cast<float>(static_cast<std::uint32_t>(next()));
    float c = std::bit_cast<float>(static_cast<std::uint32_t>(next()));
    if (i % 3 == 1) {  // a*b a few bits below c's last place: the sum is near an f32 halfway point
      a = std::ldexp(1.0f + static_cast<float>(next() % 4096) / 4096.0f, -12);
      b = std::ldexp(1.0f + static_cast<float>(next() % 4096) / 4096.0f, -12);
      c = 1.0f + static_cast<float>(next() % 1024) * 0x1p-23f;
    } else if (i % 3 == 2) {
      // a*b = 2^-24 (1 - 2^-46): the exact sum lies 2^-70 below the halfway point c + 2^-24, closer than f64 can
      // hold, so a sum rounded to f64 first lands on the halfway point; with c's last bit odd, ties-to-even then
      // rounds the wrong way. Also the exact halfway point itself, and both signs.
      const float sgn = (next() & 1) ? 1.0f : -1.0f;
      a = sgn * 0x1p-24f * (1.0f + 0x1p-23f);
      b = (next() % 4) ? 1.0f - 0x1p-23f : 1.0f;
      c = sgn * ((next() & 1) ? 1.0f + 0x1p-23f : 1.0f + 0x1p-22f);
    }
    const float want = std::fma(a, b, c);
    for (const float got : {asmevo::emu::fp::fma_f32(a, b, c), asmevo::emu::fp::fma_f32_odd(a, b, c)}) {
      const bool same = std::bit_cast<std::uint32_t>(want) == std::bit_cast<std::uint32_t>(got) || (std::isnan(want) && std::isnan(got));
      if (!same && bad++ < 5)
        ADD_FAILURE() << std::hexfloat << "fma(" << a << ", " << b << ", " << c << ") = " << want << ", got " << got;
    }
  }
  EXPECT_EQ(bad, 0u);
}

}  // namespace
