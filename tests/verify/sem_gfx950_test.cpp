// Tests of the gfx950 (CDNA4) additions to the emulator's non-MFMA semantics: v_bitop3_b16/b32 against a bit-by-bit
// truth-table lookup, v_cvt_pk_bf16_f32 / v_cvt_pk_f16_f32 against host conversions written here (RNE by distance,
// the host's _Float16), the transposing LDS reads against the lane/element mapping written out from the CDNA4 ISA guide
// (§11.4) and Triton's 16x4 base-unit diagram, and global_load_lds_dword* against the LDS bytes the ISA's address
// formula (§10.3) names. A corpus check confirms every gfx950 corpus use of these opcodes decodes to its handler.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "asmevo/emu/launch.hpp"
#include "asmevo/emu/semantics.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

float bf(u32 b) { return std::bit_cast<float>(b); }
bool isnan32(u32 b) { return (b & 0x7fffffffu) > 0x7f800000u; }

/// Runs `text` on gfx950 after `init` sets registers; expects a clean run.
template <class Init>
std::unique_ptr<emu::test::Snippet> run950(const std::string& text, Init init, u32 mode = 0x3f0) {
  return emu::test::run_clean(text, init, Target::gfx950, mode);
}

/// Random f32 bit patterns weighted toward zeros, denormals, infinities, NaNs, rounding ties and overflow edges.
u32 interesting_f32(std::mt19937& g) {
  static const u32 special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x00408000u, 0x7f800000u,
                                0xff800000u, 0x7fc00000u, 0x7fa00001u, 0xffc12345u, 0x3f808000u, 0x3f818000u,
                                0x7f7fffffu, 0xff7f8000u, 0x477ff000u, 0x33000001u, 0x387fe000u, 0x3f80a000u};
  const u32 r = g();
  switch (r & 7u) {
    case 0: return special[(r >> 3) % std::size(special)];
    case 1: return g() & 0x807fffffu;                  // f32 denormal
    case 2: return (g() & 0x8000ffffu) | 0x38000000u;  // near the f16 denormal range, many ties for bf16
    case 3: return (g() & 0xffff0000u) | 0x8000u;      // an exact bf16 tie
    default: return g();
  }
}

// ---- v_bitop3 --------------------------------------------------------------------------------------------------

/// CDNA4 ISA V_BITOP3_*: "D0[i] = TTBL[{S0[i], S1[i], S2[i]}]", looked up one bit at a time.
u32 bitop3_ref(u32 ttbl, u32 a, u32 b, u32 c, unsigned bits) {
  u32 r = 0;
  for (unsigned i = 0; i < bits; ++i) {
    const unsigned idx = ((a >> i) & 1u) << 2 | ((b >> i) & 1u) << 1 | ((c >> i) & 1u);
    r |= ((ttbl >> idx) & 1u) << i;
  }
  return r;
}

TEST(SemGfx950, Bitop3B32MatchesTheTruthTableForEveryImmediate) {
  const unsigned seed = 950u;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 g(seed);
  for (unsigned t = 0; t < 256; ++t) {
    std::array<u32, 64> a{}, b{}, c{};
    for (unsigned l = 0; l < 64; ++l) { a[l] = g(); b[l] = g(); c[l] = g(); }
    auto s = run950("\tv_bitop3_b32 v3, v0, v1, v2 bitop3:" + std::to_string(t), [&](Wave& w) {
      for (unsigned l = 0; l < 64; ++l) { w.row(0)[l] = a[l]; w.row(1)[l] = b[l]; w.row(2)[l] = c[l]; }
    });
    ASSERT_TRUE(s);
    for (unsigned l = 0; l < 64; ++l)
      ASSERT_EQ(s->wave().row(3)[l], bitop3_ref(t, a[l], b[l], c[l], 32)) << "bitop3:" << t << " lane " << l;
  }
}

TEST(SemGfx950, Bitop3B32ConstantAndScalarSourcesAndExec) {
  // The corpus forms: an inline constant and an SGPR among the sources (v_bitop3_b32 v119, v0, 32, v1 bitop3:54).
  auto s = run950("\tv_bitop3_b32 v4, v0, 32, v1 bitop3:54\n\tv_bitop3_b32 v5, v0, v1, s6 bitop3:0x6c\n"
                  "\tv_bitop3_b32 v6, v0, v1, v2",  // no bitop3 operand: the table is 0
                  [](Wave& w) {
                    w.s[6] = 0x0ff0f00fu;
                    w.set_exec(~0ull & ~(1ull << 9) & ~(1ull << 50));
                    for (unsigned l = 0; l < 64; ++l) {
                      w.row(0)[l] = 0x9e3779b9u * (l + 1);
                      w.row(1)[l] = 0x85ebca6bu ^ (l << 7);
                      w.row(2)[l] = 0xffffffffu;
                      w.row(4)[l] = w.row(5)[l] = w.row(6)[l] = 0xdeadbeefu;
                    }
                  });
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) {
    const u32 x = 0x9e3779b9u * (l + 1), y = 0x85ebca6bu ^ (l << 7);
    if (l == 9 || l == 50) {
      EXPECT_EQ(w.row(4)[l], 0xdeadbeefu);
      EXPECT_EQ(w.row(5)[l], 0xdeadbeefu);
      continue;
    }
    EXPECT_EQ(w.row(4)[l], bitop3_ref(54, x, 32, y, 32)) << l;
    EXPECT_EQ(w.row(5)[l], bitop3_ref(0x6c, x, y, 0x0ff0f00fu, 32)) << l;
    EXPECT_EQ(w.row(6)[l], 0u) << l;
  }
  // The ISA's own equivalences: V_XOR3 = 0x96, V_AND_OR = 0xea, V_OR3 = 0xfe.
  EXPECT_EQ(bitop3_ref(0x96, 0xf0f0u, 0xcc00u, 0xaaaau, 16), (0xf0f0u ^ 0xcc00u ^ 0xaaaau));
  EXPECT_EQ(bitop3_ref(0xea, 0xf0f0u, 0xcc00u, 0xaaaau, 16), ((0xf0f0u & 0xcc00u) | 0xaaaau));
}

TEST(SemGfx950, Bitop3B16SelectsHalvesAndWritesOneHalf) {
  const unsigned seed = 16u;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 g(seed);
  struct Form { const char* opsel; unsigned bits; };
  const Form forms[] = {{"", 0}, {" op_sel:[1,0,1,0]", 5}, {" op_sel:[0,1,0,1]", 10}, {" op_sel:[1,1,1,1]", 15}};
  for (unsigned rep = 0; rep < 24; ++rep) {
    const unsigned t = rep == 0 ? 248u : g() & 0xffu;  // 248: the corpus immediate (S0 | (S1 & S2))
    for (const Form& f : forms) {
      std::array<u32, 64> a{}, b{}, c{}, d{};
      for (unsigned l = 0; l < 64; ++l) { a[l] = g(); b[l] = g(); c[l] = g(); d[l] = g(); }
      auto s = run950("\tv_bitop3_b16 v3, v0, v1, v2 bitop3:" + std::to_string(t) + f.opsel, [&](Wave& w) {
        for (unsigned l = 0; l < 64; ++l) { w.row(0)[l] = a[l]; w.row(1)[l] = b[l]; w.row(2)[l] = c[l]; w.row(3)[l] = d[l]; }
      });
      ASSERT_TRUE(s);
      for (unsigned l = 0; l < 64; ++l) {
        const u32 x = (f.bits & 1u) ? a[l] >> 16 : a[l] & 0xffffu;
        const u32 y = (f.bits & 2u) ? b[l] >> 16 : b[l] & 0xffffu;
        const u32 z = (f.bits & 4u) ? c[l] >> 16 : c[l] & 0xffffu;
        const u32 r = bitop3_ref(t, x, y, z, 16);
        const u32 want = (f.bits & 8u) ? ((r << 16) | (d[l] & 0xffffu)) : ((d[l] & 0xffff0000u) | r);
        ASSERT_EQ(s->wave().row(3)[l], want) << "bitop3:" << t << f.opsel << " lane " << l;
      }
    }
  }
}

// ---- v_cvt_pk_bf16_f32 / v_cvt_pk_f16_f32 ---------------------------------------------------------------------

/// f32 -> bf16 by the definition of round to nearest even: the two bf16 values around |x| and the nearer one, ties to
/// the even code; the overflow threshold is the value halfway between the largest bf16 and 2^128 (IEEE 754 §7.4).
/// NaNs are not handled here (see expect_bf16).
u16 bf16_rne_ref(u32 x) {
  const u32 sign = (x >> 16) & 0x8000u;
  const u32 mag = x & 0x7fffffffu;
  if (mag == 0x7f800000u) return static_cast<u16>(sign | 0x7f80u);
  const double v = std::fabs(static_cast<double>(bf(x)));
  const u32 t = mag >> 16;  // the bf16 code at or below |x|
  auto value = [](u32 code) { return code >= 0x7f80u ? std::ldexp(1.0, 128) : static_cast<double>(bf(code << 16)); };
  const double lo = value(t), hi = value(t + 1);
  u32 pick;
  if (v - lo < hi - v) pick = t;
  else if (v - lo > hi - v) pick = t + 1;
  else pick = (t & 1u) ? t + 1 : t;
  return static_cast<u16>(sign | std::min(pick, 0x7f80u));
}

/// Checks one converted bf16 half: a NaN input gives a NaN with the quiet bit set, its sign, and the top payload bits
/// below the quiet bit (IEEE 754 §6.2.3); anything else is bf16_rne_ref of the (possibly flushed) input.
void expect_bf16(u16 got, u32 x, const std::string& what) {
  if (isnan32(x)) {
    EXPECT_EQ(got & 0x7f80u, 0x7f80u) << what;
    EXPECT_NE(got & 0x0040u, 0u) << what << ": quiet bit";
    EXPECT_EQ(got & 0x8000u, (x >> 16) & 0x8000u) << what << ": sign";
    EXPECT_EQ(got & 0x003fu, (x >> 16) & 0x003fu) << what << ": payload";
    return;
  }
  EXPECT_EQ(got, bf16_rne_ref(x)) << what << " input " << std::hex << x;
}

/// f32 -> f16 by the host compiler's _Float16 conversion (libgcc, round to nearest even, denormals, inf on overflow,
/// NaNs quieted keeping sign and top payload bits).
u16 f16_host(u32 x) {
  const volatile float f = bf(x);
  return std::bit_cast<u16>(static_cast<_Float16>(f));
}

u32 flush32(u32 b) { return (b & 0x7f800000u) == 0 ? (b & 0x80000000u) : b; }
u16 flush16(u16 h) { return (h & 0x7c00u) == 0 ? static_cast<u16>(h & 0x8000u) : h; }

TEST(SemGfx950, CvtPkBf16AndF16RoundToNearestEvenOnRandomInputs) {
  const unsigned seed = 615u;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 g(seed);
  for (unsigned rep = 0; rep < 40; ++rep) {
    std::array<u32, 64> a{}, b{};
    for (unsigned l = 0; l < 64; ++l) { a[l] = interesting_f32(g); b[l] = interesting_f32(g); }
    auto s = run950("\tv_cvt_pk_bf16_f32 v2, v0, v1\n\tv_cvt_pk_f16_f32 v3, v0, v1\n"
                    "\tv_cvt_pk_bf16_f32 v4, -v0, |v1|\n\tv_cvt_pk_f16_f32 v5, |v0|, -v1\n"
                    "\tv_cvt_pk_bf16_f32 v6, v0, s8",
                    [&](Wave& w) {
                      w.s[8] = 0x40490fdbu;  // pi
                      for (unsigned l = 0; l < 64; ++l) { w.row(0)[l] = a[l]; w.row(1)[l] = b[l]; }
                    });
    ASSERT_TRUE(s);
    Wave& w = s->wave();
    for (unsigned l = 0; l < 64; ++l) {
      const std::string at = "lane " + std::to_string(l);
      expect_bf16(static_cast<u16>(w.row(2)[l]), a[l], at + " bf16 lo");
      expect_bf16(static_cast<u16>(w.row(2)[l] >> 16), b[l], at + " bf16 hi");
      expect_bf16(static_cast<u16>(w.row(4)[l]), a[l] ^ 0x80000000u, at + " bf16 -S0");
      expect_bf16(static_cast<u16>(w.row(4)[l] >> 16), b[l] & 0x7fffffffu, at + " bf16 |S1|");
      expect_bf16(static_cast<u16>(w.row(6)[l] >> 16), 0x40490fdbu, at + " bf16 sgpr");
      EXPECT_EQ(static_cast<u16>(w.row(3)[l]), f16_host(a[l])) << at << " f16 lo " << std::hex << a[l];
      EXPECT_EQ(static_cast<u16>(w.row(3)[l] >> 16), f16_host(b[l])) << at << " f16 hi " << std::hex << b[l];
      EXPECT_EQ(static_cast<u16>(w.row(5)[l]), f16_host(a[l] & 0x7fffffffu)) << at << " f16 |S0|";
      EXPECT_EQ(static_cast<u16>(w.row(5)[l] >> 16), f16_host(b[l] ^ 0x80000000u)) << at << " f16 -S1";
    }
  }
}

TEST(SemGfx950, CvtPkHandPickedEdges) {
  // bf16: 1 + 2^-8 is a tie (to even: 1.0); 1 + 3*2^-8 ties up to 1 + 2^-6; the largest f32 overflows to inf;
  // the smallest f32 denormal rounds to +0 (below half of the smallest bf16 denormal 2^-133). Both ties are exact in
  // f16 (1 + 4*2^-10, 1 + 12*2^-10).
  // f16: 65519.99 rounds down to 65504, 65520 overflows to inf; 2^-25 is a tie between 0 and the smallest denormal.
  struct E { u32 in; u16 bf16; u16 f16; };
  const E cases[] = {{0x3f808000u, 0x3f80u, 0x3c04u}, {0x3f818000u, 0x3f82u, 0x3c0cu}, {0x7f7fffffu, 0x7f80u, 0x7c00u},
                     {0x00000001u, 0x0000u, 0x0000u}, {0x477fefffu, 0x4780u, 0x7bffu}, {0x477ff000u, 0x4780u, 0x7c00u},
                     {0x33000000u, 0x3300u, 0x0000u}, {0x33000001u, 0x3300u, 0x0001u}, {0x80000000u, 0x8000u, 0x8000u},
                     {0xff800000u, 0xff80u, 0xfc00u}};
  auto s = run950("\tv_cvt_pk_bf16_f32 v2, v0, v0\n\tv_cvt_pk_f16_f32 v3, v0, v0", [&](Wave& w) {
    for (unsigned l = 0; l < 64; ++l) w.row(0)[l] = cases[l % std::size(cases)].in;
  });
  ASSERT_TRUE(s);
  for (unsigned l = 0; l < 64; ++l) {
    const E& e = cases[l % std::size(cases)];
    EXPECT_EQ(s->wave().row(2)[l], static_cast<u32>(e.bf16) * 0x10001u) << std::hex << e.in;
    EXPECT_EQ(s->wave().row(3)[l], static_cast<u32>(e.f16) * 0x10001u) << std::hex << e.in;
    EXPECT_EQ(e.bf16, bf16_rne_ref(e.in)) << "the hand table and the reference agree";
    EXPECT_EQ(e.f16, f16_host(e.in)) << "the hand table and the host agree";
  }
}

TEST(SemGfx950, CvtPkIgnoresRoundModeAndFollowsDenormModes) {
  std::mt19937 g(7);
  std::array<u32, 64> a{};
  for (unsigned l = 0; l < 64; ++l) a[l] = l < 32 ? (g() & 0x807fffffu) : interesting_f32(g);  // many f32 denormals
  auto set = [&](Wave& w) { for (unsigned l = 0; l < 64; ++l) w.row(0)[l] = a[l]; };
  const std::string text = "\tv_cvt_pk_bf16_f32 v2, v0, v0\n\tv_cvt_pk_f16_f32 v3, v0, v0";
  // MODE.FP_ROUND = round toward zero for f32 and f16: the conversions still round to nearest even.
  auto rtz = run950(text, set, 0x3f0 | 0xf);
  ASSERT_TRUE(rtz);
  // FP_DENORM f32 = 0 (flush inputs and outputs), f16 kept: an f32 denormal input converts as a signed zero.
  auto ftz = run950(text, set, 0x3c0);
  ASSERT_TRUE(ftz);
  // FP_DENORM f16 = 1 (f16 inputs kept, outputs flushed): f16 denormal results become signed zeros; bf16 unaffected.
  auto f16z = run950(text, set, 0x370);
  ASSERT_TRUE(f16z);
  for (unsigned l = 0; l < 64; ++l) {
    expect_bf16(static_cast<u16>(rtz->wave().row(2)[l]), a[l], "rtz bf16");
    EXPECT_EQ(static_cast<u16>(rtz->wave().row(3)[l]), f16_host(a[l])) << "rtz f16 " << std::hex << a[l];
    expect_bf16(static_cast<u16>(ftz->wave().row(2)[l]), flush32(a[l]), "ftz bf16");
    EXPECT_EQ(static_cast<u16>(ftz->wave().row(3)[l]), f16_host(flush32(a[l]))) << "ftz f16 " << std::hex << a[l];
    expect_bf16(static_cast<u16>(f16z->wave().row(2)[l]), a[l], "f16-flush bf16");
    if (!isnan32(a[l]))
      EXPECT_EQ(static_cast<u16>(f16z->wave().row(3)[l]), flush16(f16_host(a[l]))) << "f16 out flush " << std::hex << a[l];
  }
}

TEST(SemGfx950, CvtPkUndefinedFormsStop) {
  for (const char* text : {"\tv_cvt_pk_bf16_f32 v2, v0, v1 clamp", "\tv_cvt_pk_f16_f32 v2, v0, v1 mul:2"}) {
    auto s = emu::test::make_snippet(text, Target::gfx950);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->run().kind, Stop::Kind::unsupported) << text;
  }
  // f32 input denormals kept but output denormals flushed: which rule a bf16 denormal result follows is undocumented.
  auto s = emu::test::make_snippet("\tv_cvt_pk_bf16_f32 v2, v0, v1", Target::gfx950);
  ASSERT_TRUE(s);
  s->wave().mode = 0x3d0;
  EXPECT_EQ(s->run().kind, Stop::Kind::unsupported);
}

// ---- ds_read_b64_tr_b16 / _b8 / _b4 -------------------------------------------------------------------------------

/// The transposing read, written out from its description. In each group of 16 lanes the lanes' 64-bit reads are the
/// pieces of a 16-row matrix of B-bit elements with n = 64 / B columns: "each lane (one VGPR) holds [n] consecutive M"
/// values (CDNA4 ISA §11.4), and Triton's diagram for 16-bit elements (LinearLayoutConversions.cpp, the MxK = 16x4
/// "base unit") puts lanes T0..T3 down column K0, T4..T7 down K1, and so on: lane (16 / n) * k + j holds rows
/// n*j .. n*j+n-1 of column k. Result lane i of the group is row i: its element k is the matrix entry (i, k).
std::array<u64, 64> transpose_ref(const std::array<u64, 64>& in, unsigned B) {
  const unsigned n = 64 / B, lanes_per_col = 16 / n;
  const u64 emask = (u64{1} << B) - 1;
  std::array<u64, 64> out{};
  for (unsigned g = 0; g < 4; ++g) {
    std::vector<std::vector<u64>> m(16, std::vector<u64>(n));  // m[row][column]
    for (unsigned k = 0; k < n; ++k)
      for (unsigned j = 0; j < lanes_per_col; ++j) {
        const u64 v = in[16 * g + lanes_per_col * k + j];
        for (unsigned r = 0; r < n; ++r) m[n * j + r][k] = (v >> (B * r)) & emask;
      }
    for (unsigned i = 0; i < 16; ++i) {
      u64 x = 0;
      for (unsigned k = 0; k < n; ++k) x |= m[i][k] << (B * k);
      out[16 * g + i] = x;
    }
  }
  return out;
}

TEST(SemGfx950, TransposeReadsMatchTheGuideMapping) {
  const unsigned seed = 11u;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 g(seed);
  struct Form { const char* mn; unsigned bits; const char* dst; unsigned row; };
  const Form forms[] = {{"ds_read_b64_tr_b16", 16, "v[4:5]", 4}, {"ds_read_b64_tr_b8", 8, "a[2:3]", agpr_row0 + 2},
                        {"ds_read_b64_tr_b4", 4, "v[6:7]", 6}};
  for (const Form& f : forms) {
    for (unsigned rep = 0; rep < 4; ++rep) {
      std::vector<unsigned> slot(512);
      std::iota(slot.begin(), slot.end(), 0u);
      std::shuffle(slot.begin(), slot.end(), g);  // each lane reads its own random 8-byte slot
      std::vector<std::byte> lds(65536);
      for (auto& x : lds) x = static_cast<std::byte>(g());
      auto s = run950(std::string("\t") + f.mn + " " + f.dst + ", v0 offset:1032", [&](Wave& w) {
        std::memcpy(w.group->lds.data(), lds.data(), lds.size());
        for (unsigned l = 0; l < 64; ++l) w.row(0)[l] = 8 * slot[l];
      });
      ASSERT_TRUE(s);
      std::array<u64, 64> in{};
      for (unsigned l = 0; l < 64; ++l) std::memcpy(&in[l], lds.data() + 8 * slot[l] + 1032, 8);
      const auto want = transpose_ref(in, f.bits);
      Wave& w = s->wave();
      for (unsigned l = 0; l < 64; ++l) {
        const u64 got = w.row(f.row)[l] | static_cast<u64>(w.row(f.row + 1)[l]) << 32;
        ASSERT_EQ(got, want[l]) << f.mn << " lane " << l;
      }
    }
  }
  // A spot check of the 16-bit diagram itself: result lane 5 (row 5) takes element 1 of lanes 1, 5, 9, 13.
  std::array<u64, 64> in{};
  for (unsigned l = 0; l < 64; ++l) in[l] = 0x0003'0002'0001'0000ull + 0x0100'0100'0100'0100ull * l;
  const auto out = transpose_ref(in, 16);
  EXPECT_EQ(out[5], 0x0d01'0901'0501'0101ull);
}

TEST(SemGfx950, TransposeReadsNeedFullExecAndAlignment) {
  auto s = emu::test::make_snippet("\tds_read_b64_tr_b16 v[2:3], v0", Target::gfx950);
  ASSERT_TRUE(s);
  s->wave().set_exec(~0ull >> 1);
  EXPECT_EQ(s->run().kind, Stop::Kind::illegal) << "CDNA4 ISA §11.4: EXEC must be all ones";
  auto t = emu::test::make_snippet("\tds_read_b64_tr_b8 v[2:3], v0 offset:4", Target::gfx950);
  ASSERT_TRUE(t);
  for (unsigned l = 0; l < 64; ++l) t->wave().row(0)[l] = 8 * l;
  EXPECT_EQ(t->run().kind, Stop::Kind::illegal) << "the address must be 8-byte aligned";
  EXPECT_EQ(t->group.stop.lane, 0);
}

// ---- global_load_lds_dword* ------------------------------------------------------------------------------------

/// CDNA4 ISA §10.3: LDS_ADDR = LDSbase + M0[17:2] * 4 + INST.OFFSET + ThreadID * (4 for a dword, 16 for dwordx3/x4);
/// the global address is the ordinary global_load one (the same INST.OFFSET added).
TEST(SemGfx950, GlobalLoadLdsWritesTheLdsBytesOfTheAddressFormula) {
  struct Form { const char* text; unsigned bytes, stride; u32 m0; int offset; bool saddr; };
  const Form forms[] = {
      {"\tglobal_load_lds_dwordx4 v[0:1], off offset:16", 16, 16, 0x1003u, 16, false},
      {"\tglobal_load_lds_dwordx4 v2, s[4:5] offset:-16", 16, 16, 0x2000u, -16, true},
      {"\tglobal_load_lds_dwordx3 v[0:1], off offset:4", 12, 16, 0x3002u, 4, false},
      {"\tglobal_load_lds_dword v2, s[4:5] offset:8", 4, 4, 0x40006u, 8, true},  // M0 bit 18 and bits 1:0 ignored
  };
  std::mt19937 g(44);
  for (const Form& f : forms) {
    SCOPED_TRACE(f.text);
    auto s = emu::test::make_snippet(std::string("\ts_mov_b32 m0, ") + std::to_string(f.m0) + "\n" + f.text, Target::gfx950);
    ASSERT_TRUE(s);
    Region& r = s->machine.memory.region(s->machine.memory.map("src", 64 * 64 + 64, true));
    for (std::size_t i = 0; i < r.bytes.size(); ++i) r.bytes[i] = static_cast<std::byte>(g());
    std::fill(s->group.lds.begin(), s->group.lds.end(), std::byte{0xee});
    Wave& w = s->wave();
    const LaneMask exec = ~0ull & ~(1ull << 5) & ~(1ull << 33);
    w.set_exec(exec);
    std::vector<unsigned> slot(64);
    std::iota(slot.begin(), slot.end(), 0u);
    std::shuffle(slot.begin(), slot.end(), g);
    for (unsigned l = 0; l < 64; ++l) {
      const u64 a = r.base + 32 + 64 * slot[l];  // lane l reads its own 64-byte slot
      if (f.saddr) {
        w.row(2)[l] = static_cast<u32>(32 + 64 * slot[l]);
      } else {
        w.row(0)[l] = static_cast<u32>(a);
        w.row(1)[l] = static_cast<u32>(a >> 32);
      }
    }
    w.set_s64(4, r.base);
    ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
    const std::size_t lds0 = (f.m0 & 0x3fffcu) + f.offset;
    std::vector<std::byte> want(s->group.lds.size(), std::byte{0xee});
    for (unsigned l = 0; l < 64; ++l) {
      if (!((exec >> l) & 1u)) continue;
      const std::size_t src = static_cast<std::size_t>(32 + 64 * slot[l] + f.offset);
      for (unsigned b = 0; b < f.bytes; ++b) want[lds0 + f.stride * l + b] = r.bytes[src + b];
    }
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(s->group.lds[i], want[i]) << "LDS byte " << i << " (lane " << (i - lds0) / f.stride << ")";
  }
}

TEST(SemGfx950, GlobalLoadLdsPastTheAllocationFaults) {
  auto s = emu::test::make_snippet("\ts_mov_b32 m0, 0xfff0\n\tglobal_load_lds_dwordx4 v[0:1], off", Target::gfx950, 1, 65536);
  ASSERT_TRUE(s);
  Region& r = s->machine.memory.region(s->machine.memory.map("src", 4096, true));
  for (unsigned l = 0; l < 64; ++l) { s->wave().row(0)[l] = static_cast<u32>(r.base); s->wave().row(1)[l] = static_cast<u32>(r.base >> 32); }
  EXPECT_EQ(s->run().kind, Stop::Kind::fault);
  EXPECT_EQ(s->group.stop.lane, 1) << "lane 0 fits (0xfff0 + 16 = 64 KiB), lane 1 does not";
}

// ---- end to end: a Triton gfx950 kernel whose MFMA operand comes from ds_read_b64_tr_b16 --------------------------

/// matmul_bf16_64x64x64.gfx950 (Triton 3.6) loads one MFMA operand with ds_read_b64_tr_b16 and packs its output with
/// v_cvt_pk_bf16_f32 (and computes addresses with v_bitop3_b32): C = A @ B on random inputs against a double-precision
/// reference. A wrong lane or element order in the transposing read scrambles the product far beyond the bf16
/// tolerance (2 ulps relative, 2^-8 absolute, as in triton_mfma_test.cpp).
TEST(SemGfx950, TritonBf16MatmulThroughTheTransposingReadMatchesAReference) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const auto* obj = emu::test::cached_object((corpus / "triton" / "matmul_bf16_64x64x64.gfx950.hsaco").string());
  ASSERT_TRUE(obj);
  const long M = 128, N = 128, K = 128;
  auto buf = [](const char* dt, long n, int seed) {
    return R"({"buffer": {"dtype": ")" + std::string(dt) + R"(", "count": )" + std::to_string(n) +
           R"(, "init": {"random": {"seed": )" + std::to_string(seed) + R"(, "min": -1, "max": 1}}}})";
  };
  auto i32 = [](long v) { return R"({"scalar": {"type": "i32", "value": )" + std::to_string(v) + "}}"; };
  std::string json = R"({"grid": [2, 2, 1], "args": [)" + buf("bf16", M * K, 3) + "," + buf("bf16", K * N, 4) +
                     R"(, {"buffer": {"dtype": "bf16", "count": )" + std::to_string(M * N) + R"(, "init": "zeros"}})";
  for (long v : {M, N, K, K, 1L, N, 1L, N, 1L}) json += "," + i32(v);
  json += R"(, {"null": true}, {"null": true}]})";
  auto spec = verify::parse_launch_spec(json, "<test>", ".");
  ASSERT_TRUE(spec) << spec.error().message;
  std::vector<std::vector<std::byte>> in;
  for (int a = 0; a < 2; ++a) {
    auto b = verify::materialize(spec->args[a].buffer, 0);
    ASSERT_TRUE(b) << b.error().message;
    in.push_back(std::move(*b));
  }
  emu::EmulateOptions o;
  o.run.completion = emu::Completion::adversarial;
  auto res = emu::emulate(obj->module, obj->elf, *spec, o);
  ASSERT_TRUE(res) << res.error().message;
  ASSERT_TRUE(res->ok()) << emu::to_string(res->stop.kind) << " at i" << res->stop.inst.value << ": " << res->stop.message;
  const std::vector<std::byte>* out = nullptr;
  for (const auto& b : res->buffers)
    if (b.arg == 2) out = &b.bytes;
  ASSERT_NE(out, nullptr);
  auto bf16 = [](const std::vector<std::byte>& v, std::size_t i) {
    u16 h;
    std::memcpy(&h, v.data() + 2 * i, 2);
    return static_cast<double>(bf(static_cast<u32>(h) << 16));
  };
  std::size_t bad = 0;
  for (long m = 0; m < M; ++m)
    for (long n = 0; n < N; ++n) {
      double r = 0;
      for (long k = 0; k < K; ++k) r += bf16(in[0], m * K + k) * bf16(in[1], k * N + n);
      if (std::fabs(bf16(*out, m * N + n) - r) > 1.0 / 256 + std::fabs(r) / 128) ++bad;
    }
  EXPECT_EQ(bad, 0u) << "of " << M * N << " outputs";
}

// ---- coverage and corpus -----------------------------------------------------------------------------------------

TEST(SemGfx950, TheNewOpcodesAreRegistered) {
  const std::pair<Opcode, Exactness> want[] = {
      {op::v_bitop3_b32, Exactness::exact},       {op::v_bitop3_b16, Exactness::approximate},
      {op::v_cvt_pk_bf16_f32, Exactness::exact},  {op::v_cvt_pk_f16_f32, Exactness::exact},
      {op::ds_read_b64_tr_b16, Exactness::exact}, {op::ds_read_b64_tr_b8, Exactness::exact},
      {op::ds_read_b64_tr_b4, Exactness::approximate}, {op::global_load_lds_dwordx4, Exactness::exact},
      {op::global_load_lds_dwordx3, Exactness::exact}, {op::global_load_lds_dword, Exactness::exact}};
  for (const auto& [o, ex] : want) {
    const std::string_view mn = op_name(o);
    const Semantics* s = find_semantics(o);
    ASSERT_NE(s, nullptr) << mn;
    EXPECT_EQ(s->exactness, ex) << mn;
    if (ex == Exactness::approximate) EXPECT_FALSE(s->note.empty()) << mn << ": an approximation says what it gives up";
  }
}

TEST(SemGfx950, EveryCorpusUseDecodesToItsHandler) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  std::vector<std::filesystem::path> files;
  for (const auto& p : asmevo::test::code_objects(corpus / "triton"))
    if (p.filename().string().find(".gfx950.") != std::string::npos) files.push_back(p);
  for (const auto& p : asmevo::test::code_objects(corpus / "aiter-co" / "gfx950")) files.push_back(p);
  ASSERT_FALSE(files.empty());
  const Opcode names[] = {op::v_bitop3_b16,       op::v_bitop3_b32,      op::v_cvt_pk_bf16_f32, op::v_cvt_pk_f16_f32,
                          op::ds_read_b64_tr_b16, op::ds_read_b64_tr_b8, op::ds_read_b64_tr_b4, op::global_load_lds_dwordx4};
  std::map<Opcode, unsigned> seen;
  for (const auto& file : files) {
    auto obj = emu::test::recover_object(file.string());
    ASSERT_TRUE(obj) << file;
    auto code = emu::test::decode_object(*obj);
    ASSERT_TRUE(code) << file;
    for (const Op& op : code->ops) {
      const Opcode o = op.opcode;
      const std::string mn(op.mnemonic());
      if (std::find(std::begin(names), std::end(names), o) == std::end(names)) continue;
      ++seen[o];
      const Semantics* sem = find_semantics(o);
      ASSERT_NE(sem, nullptr) << mn;
      EXPECT_EQ(op.fn, sem->fn) << file.filename() << " " << mn << " i" << op.id.value << " does not reach its handler";
      if (one_of(o, op::v_bitop3_b16, op::v_bitop3_b32)) EXPECT_NE(op.aux, 0u) << "the corpus immediates are non-zero (bitop3 kept in Op::aux)";
    }
  }
  for (const Opcode n : names) EXPECT_GT(seen[n], 0u) << op_name(n) << " no longer appears in the gfx950 corpus";
}

}  // namespace
