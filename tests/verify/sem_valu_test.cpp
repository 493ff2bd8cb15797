// Tests of the VALU semantics (sem_valu.hpp): assembly snippets run on the emulator, checked against host IEEE
// arithmetic, host integer arithmetic and hand-derived tables from the MI300 ISA guide.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "asmevo/emu/fp.hpp"
#include "asmevo/emu/sem_valu.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

u32 fb(float f) { return std::bit_cast<u32>(f); }
float bf(u32 b) { return std::bit_cast<float>(b); }
bool isnan32(u32 b) { return (b & 0x7fffffffu) > 0x7f800000u; }

/// Runs `text` with v0..v3 (and more) preset per lane by `init`, returns the snippet after the run.
template <class Init>
std::unique_ptr<test::Snippet> run(std::string_view text, Init init, Target t = Target::gfx942, u32 mode = 0x3f0) {
  return test::run_clean(text, init, t, mode);
}

/// Random f32 bit patterns weighted toward the interesting ones (zeros, denormals, infinities, NaNs, 1.0).
u32 interesting_f32(std::mt19937& g) {
  static const u32 special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x00400000u, 0x7f800000u,
                                0xff800000u, 0x7fc00000u, 0x7fa00001u, 0xffc12345u, 0x3f800000u, 0xbf800000u,
                                0x7f7fffffu, 0xff7fffffu, 0x00800000u, 0x33800000u};
  const u32 r = g();
  if ((r & 7u) == 0) return special[(r >> 3) % 16];
  if ((r & 7u) == 1) return (g() & 0x807fffffu);  // denormal
  return g();
}

/// The NaN rule documented in valu_core.hpp [NAN], written out independently: first NaN among the inputs, quieted,
/// else the default NaN 0xffc00000.
u32 expected_nan(std::initializer_list<u32> in) {
  for (u32 x : in)
    if (isnan32(x)) return x | 0x00400000u;
  return 0xffc00000u;
}
u32 host_result(float r, std::initializer_list<u32> in) { return std::isnan(r) ? expected_nan(in) : fb(r); }
u32 flush32(u32 b) { return (b & 0x7f800000u) == 0 ? (b & 0x80000000u) : b; }

// ---- f32 arithmetic against the host --------------------------------------------------------------------------

struct F32Case {
  const char* text;
  float (*host)(float, float, float);
};

TEST(SemValu, F32ArithmeticMatchesHostIeee) {
  const F32Case cases[] = {
      {"\tv_add_f32_e32 v3, v0, v1", [](float a, float b, float) { return a + b; }},
      {"\tv_sub_f32_e32 v3, v0, v1", [](float a, float b, float) { return a - b; }},
      {"\tv_subrev_f32_e32 v3, v0, v1", [](float a, float b, float) { return b - a; }},
      {"\tv_mul_f32_e32 v3, v0, v1", [](float a, float b, float) { return a * b; }},
      {"\tv_fma_f32 v3, v0, v1, v2", [](float a, float b, float c) { return std::fma(a, b, c); }},
      {"\tv_mov_b32 v3, v2\n\tv_fmac_f32_e32 v3, v0, v1", [](float a, float b, float c) { return std::fma(a, b, c); }},
  };
  std::mt19937 g(12345);
  for (const auto& c : cases) {
    for (u32 mode : {0x3f0u, 0x3c0u}) {  // f32 denormals kept / flushed (MODE.FP_DENORM[5:4])
      u32 in[3][64];
      auto s = run(c.text, [&](Wave& w) {
        for (unsigned l = 0; l < 64; ++l)
          for (unsigned k = 0; k < 3; ++k) w.row(k)[l] = in[k][l] = interesting_f32(g);
      }, Target::gfx942, mode);
      ASSERT_TRUE(s);
      for (unsigned l = 0; l < 64; ++l) {
        const bool fz = mode == 0x3c0u;
        const u32 a = fz ? flush32(in[0][l]) : in[0][l], b = fz ? flush32(in[1][l]) : in[1][l], cc = fz ? flush32(in[2][l]) : in[2][l];
        u32 want = host_result(c.host(bf(a), bf(b), bf(cc)), {a, b, cc});
        if (fz) want = flush32(want);
        ASSERT_EQ(s->wave().row(3)[l], want) << c.text << " mode " << std::hex << mode << " lane " << std::dec << l
                                               << " inputs " << std::hex << in[0][l] << " " << in[1][l] << " " << in[2][l];
      }
    }
  }
}

RC_GTEST_PROP(SemValuProp, F32FmaAndMulMatchHost, ()) {
  const auto seed = *rc::gen::arbitrary<u32>();
  std::mt19937 g(seed);
  u32 in[3][64];
  auto s = run("\tv_fma_f32 v3, v0, -v1, |v2|\n\tv_mul_f32_e64 v4, v0, v1 mul:2", [&](Wave& w) {
    for (unsigned l = 0; l < 64; ++l)
      for (unsigned k = 0; k < 3; ++k) w.row(k)[l] = in[k][l] = interesting_f32(g);
  });
  RC_ASSERT(s != nullptr);
  for (unsigned l = 0; l < 64; ++l) {
    const u32 a = in[0][l], nb = in[1][l] ^ 0x80000000u, ac = in[2][l] & 0x7fffffffu;
    RC_ASSERT(s->wave().row(3)[l] == host_result(std::fma(bf(a), bf(nb), bf(ac)), {a, nb, ac}));
    // omod is ignored while f32 output denormals are enabled (MODE 0x3f0): LLVM SIFoldOperands::isOMod.
    RC_ASSERT(s->wave().row(4)[l] == host_result(bf(a) * bf(in[1][l]), {a, in[1][l]}));
  }
}

TEST(SemValu, SourceModifiersClampAndOmod) {
  // Hand-derived from MI300 ISA §6 VOP3: abs before neg, omod before clamp, clamp to [0,1], DX10 clamp NaN -> 0.
  struct Row { float a, b; float add_negabs_clamp; float mul_omod2_flushmode; };
  const Row rows[] = {
      {2.0f, 3.0f, 1.0f, 12.0f},       // -|2| + 3 = 1 -> clamp 1 ; (2*3)*2 = 12
      {-0.25f, 0.5f, 0.25f, -0.25f},   // -0.25 + 0.5 ; (-0.125)*2
      {5.0f, 1.0f, 0.0f, 10.0f},       // -5 + 1 = -4 -> 0
      {0.5f, 0.75f, 0.25f, 0.75f},
  };
  auto s = run("\tv_add_f32_e64 v2, -|v0|, v1 clamp\n\tv_mul_f32_e64 v3, v0, v1 mul:2\n"
               "\tv_mul_f32_e64 v4, v0, v1 div:2 clamp\n\tv_add_f32_e64 v5, v0, v6 clamp",
               [&](Wave& w) {
                 for (unsigned l = 0; l < 64; ++l) {
                   w.row(0)[l] = fb(rows[l % 4].a);
                   w.row(1)[l] = fb(rows[l % 4].b);
                   w.row(6)[l] = 0x7fc00000u;  // NaN: DX10_CLAMP turns a clamped NaN into 0
                 }
               },
               Target::gfx942, 0x3c0 /* f32 denormals flushed so omod applies */ | 0x000);
  ASSERT_TRUE(s);
  for (unsigned l = 0; l < 64; ++l) {
    const Row& r = rows[l % 4];
    EXPECT_EQ(bf(s->wave().row(2)[l]), r.add_negabs_clamp) << l;
    EXPECT_EQ(bf(s->wave().row(3)[l]), r.mul_omod2_flushmode) << l;
    EXPECT_EQ(bf(s->wave().row(4)[l]), std::clamp(r.a * r.b * 0.5f, 0.0f, 1.0f)) << l;
    EXPECT_EQ(s->wave().row(5)[l], 0u) << l;
  }
}

TEST(SemValu, ExecMasksDestinationLanes) {
  auto s = test::make_snippet("\tv_add_u32_e32 v2, v0, v1");
  ASSERT_TRUE(s);
  for (unsigned l = 0; l < 64; ++l) { s->wave().row(0)[l] = l; s->wave().row(1)[l] = 100; s->wave().row(2)[l] = 7; }
  s->wave().set_exec(0x00ff00ff00ff00ffull);
  ASSERT_EQ(s->run().kind, Stop::Kind::none);
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(s->wave().row(2)[l], ((0x00ff00ff00ff00ffull >> l) & 1) ? l + 100 : 7u) << l;
}

TEST(SemValu, NonNearestRoundModeStopsUnsupported) {
  auto s = test::make_snippet("\tv_add_f32_e32 v2, v0, v1");
  ASSERT_TRUE(s);
  s->wave().mode = 0x3f0 | 0x3;  // f32 round toward zero
  const Stop& st = s->run();
  EXPECT_EQ(st.kind, Stop::Kind::unsupported);
  EXPECT_NE(st.message.find("round"), std::string::npos) << st.message;
}

// ---- integers -------------------------------------------------------------------------------------------------

TEST(SemValu, CarryChainsAdd64AndSub64) {
  std::mt19937_64 g(7);
  u64 a[64], b[64];
  auto s = run("\tv_add_co_u32_e32 v4, vcc, v0, v2\n\tv_addc_co_u32_e32 v5, vcc, v1, v3, vcc\n"
               "\tv_sub_co_u32_e64 v6, s[0:1], v0, v2\n\tv_subb_co_u32_e64 v7, s[2:3], v1, v3, s[0:1]\n"
               "\tv_subrev_co_u32_e32 v8, vcc, v2, v0\n\tv_subbrev_co_u32_e32 v9, vcc, v3, v1, vcc",
               [&](Wave& w) {
                 for (unsigned l = 0; l < 64; ++l) {
                   a[l] = g(); b[l] = l % 3 ? g() : a[l] + (l & 1);  // include equal / off-by-one operands
                   if (l == 5) { a[l] = ~0ull; b[l] = 1; }
                   w.row(0)[l] = static_cast<u32>(a[l]); w.row(1)[l] = static_cast<u32>(a[l] >> 32);
                   w.row(2)[l] = static_cast<u32>(b[l]); w.row(3)[l] = static_cast<u32>(b[l] >> 32);
                 }
               });
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  u64 borrow_hi = 0;
  for (unsigned l = 0; l < 64; ++l) {
    const u64 sum = a[l] + b[l], diff = a[l] - b[l];
    EXPECT_EQ(w.row(4)[l] | static_cast<u64>(w.row(5)[l]) << 32, sum) << l;
    EXPECT_EQ(w.row(6)[l] | static_cast<u64>(w.row(7)[l]) << 32, diff) << l;
    EXPECT_EQ(w.row(8)[l] | static_cast<u64>(w.row(9)[l]) << 32, diff) << l;
    borrow_hi |= static_cast<u64>(b[l] > a[l]) << l;
  }
  EXPECT_EQ(w.s64(2), borrow_hi);
  EXPECT_EQ(w.vcc(), borrow_hi);  // the last subbrev computes the same a - b
}

RC_GTEST_PROP(SemValuProp, IntegerOpsMatchHost, ()) {
  const auto seed = *rc::gen::arbitrary<u32>();
  std::mt19937 g(seed);
  u32 x[64], y[64], z[64];
  auto s = run("\tv_lshlrev_b32_e32 v3, v0, v1\n\tv_ashrrev_i32_e32 v4, v0, v1\n\tv_mul_hi_i32 v5, v0, v1\n"
               "\tv_mad_u32_u24 v6, v0, v1, v2\n\tv_lshl_add_u32 v7, v0, v1, v2\n\tv_bfe_i32 v8, v0, v1, v2\n"
               "\tv_med3_i32 v9, v0, v1, v2\n\tv_add_u32_e64 v10, v0, v1 clamp\n\tv_perm_b32 v11, v0, v1, v2\n"
               "\tv_mad_u64_u32 v[12:13], s[0:1], v0, v1, v[0:1]\n\tv_alignbit_b32 v14, v0, v1, v2\n"
               "\tv_lshlrev_b64 v[16:17], v2, v[0:1]\n\tv_sub_i32 v18, v0, v1 clamp",
               [&](Wave& w) {
                 for (unsigned l = 0; l < 64; ++l) {
                   w.row(0)[l] = x[l] = g(); w.row(1)[l] = y[l] = g(); w.row(2)[l] = z[l] = g();
                 }
               });
  RC_ASSERT(s != nullptr);
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) {
    RC_ASSERT(w.row(3)[l] == (y[l] << (x[l] & 31)));
    RC_ASSERT(w.row(4)[l] == static_cast<u32>(static_cast<std::int32_t>(y[l]) >> (x[l] & 31)));
    RC_ASSERT(w.row(5)[l] == static_cast<u32>((static_cast<std::int64_t>(static_cast<std::int32_t>(x[l])) * static_cast<std::int32_t>(y[l])) >> 32));
    RC_ASSERT(w.row(6)[l] == (x[l] & 0xffffff) * (y[l] & 0xffffff) + z[l]);
    RC_ASSERT(w.row(7)[l] == (x[l] << (y[l] & 31)) + z[l]);
    {  // bfe_i32: field of width z[4:0] at offset y[4:0], sign-extended; width 0 -> 0
      const unsigned off = y[l] & 31, wd = z[l] & 31;
      std::int64_t f = 0;
      if (wd) { f = (static_cast<std::int64_t>(static_cast<std::int32_t>(x[l])) >> off) & ((1ll << wd) - 1); if (f >> (wd - 1)) f -= 1ll << wd; }
      RC_ASSERT(w.row(8)[l] == static_cast<u32>(f));
    }
    {
      std::int32_t v[3] = {static_cast<std::int32_t>(x[l]), static_cast<std::int32_t>(y[l]), static_cast<std::int32_t>(z[l])};
      std::sort(v, v + 3);
      RC_ASSERT(w.row(9)[l] == static_cast<u32>(v[1]));
    }
    RC_ASSERT(w.row(10)[l] == static_cast<u32>(std::min<u64>(static_cast<u64>(x[l]) + y[l], 0xffffffffu)));
    const u64 x64 = x[l] | static_cast<u64>(y[l]) << 32;
    const u64 mad = static_cast<u64>(x[l]) * y[l] + x64;
    RC_ASSERT((w.row(12)[l] | static_cast<u64>(w.row(13)[l]) << 32) == mad);
    RC_ASSERT(w.row(14)[l] == static_cast<u32>(((static_cast<u64>(x[l]) << 32) | y[l]) >> (z[l] & 31)));
    RC_ASSERT((w.row(16)[l] | static_cast<u64>(w.row(17)[l]) << 32) == (x64 << (z[l] & 63)));
    const std::int64_t d = static_cast<std::int64_t>(static_cast<std::int32_t>(x[l])) - static_cast<std::int32_t>(y[l]);
    RC_ASSERT(w.row(18)[l] == static_cast<u32>(std::clamp<std::int64_t>(d, INT32_MIN, INT32_MAX)));
  }
  // carry out of the 64-bit multiply-add, per lane
  u64 carry = 0;
  for (unsigned l = 0; l < 64; ++l) {
    const unsigned __int128 t = static_cast<unsigned __int128>(static_cast<u64>(x[l]) * y[l]) + (x[l] | static_cast<u64>(y[l]) << 32);
    carry |= static_cast<u64>(t >> 64) << l;
  }
  RC_ASSERT(w.s64(0) == carry);
}

TEST(SemValu, SixteenBitOpsZeroHighHalfAndOpSelSelectsHalves) {
  auto s = run("\tv_add_u16_e32 v2, v0, v1\n\tv_mov_b32 v3, 0xdead0000\n\tv_mac_f16_e32 v3, v0, v1\n"
               "\tv_mov_b32 v4, 0x12345678\n\tv_fma_f16 v4, v0, v1, v5 op_sel:[1,0,0,1]\n"
               "\tv_mad_u16 v6, v0, v1, v5 op_sel:[0,1,0,0]",
               [](Wave& w) {
                 for (unsigned l = 0; l < 64; ++l) {
                   w.row(0)[l] = 0x4000'3c00u;  // hi 2.0, lo 1.0 (f16) / 0x4000, 0x3c00 (u16)
                   w.row(1)[l] = 0x4200'4400u;  // hi 3.0, lo 4.0
                   w.row(5)[l] = 0x0000'3800u;  // lo 0.5
                 }
               });
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(w.row(2)[l], (0x3c00u + 0x4400u) & 0xffffu) << "v_add_u16 zeroes bits 31:16 (GCNSubtarget::zeroesHigh16BitsOfDest)";
    EXPECT_EQ(w.row(3)[l], 0xdead0000u | 0x4400u) << "v_mac_f16: 1.0 * 4.0 + 0 = 4.0 (0x4400), high half kept";
    // op_sel:[1,0,0,1]: S0.hi (2.0) * S1.lo (4.0) + S2.lo (0.5) = 8.5 (f16 0x4840) into bits 31:16, low half kept.
    EXPECT_EQ(w.row(4)[l], 0x4840'5678u) << l;
    EXPECT_EQ(w.row(6)[l], static_cast<u32>(static_cast<u16>(0x3c00u * 0x4200u + 0x3800u))) << l;
  }
}

// ---- compares -----------------------------------------------------------------------------------------------------

TEST(SemValu, CompareFloatUnorderedAndCmpxWritesExec) {
  // MI300 ISA VOPC predicate table: LT is false for unordered operands, NGE true; inactive lanes write 0.
  const float vals[] = {1.0f, 2.0f, NAN, -0.0f};
  auto s = test::make_snippet("\tv_cmp_lt_f32_e32 vcc, v0, v1\n\tv_cmp_nge_f32_e64 s[0:1], v0, v1\n"
                              "\tv_cmp_class_f32_e64 s[2:3], v0, v2\n\tv_cmpx_eq_f32_e64 s[4:5], v0, v1");
  ASSERT_TRUE(s);
  for (unsigned l = 0; l < 64; ++l) {
    s->wave().row(0)[l] = fb(vals[l % 4]);
    s->wave().row(1)[l] = fb(vals[(l / 4) % 4]);
    s->wave().row(2)[l] = (l & 1) ? 0x3u /* NaN */ : 0x60u /* -0, +0 */;
  }
  const LaneMask exec = 0xfffffffffffffff0ull;
  s->wave().set_exec(exec);
  ASSERT_EQ(s->run().kind, Stop::Kind::none);
  LaneMask lt = 0, nge = 0, cls = 0, eq = 0;
  for (unsigned l = 0; l < 64; ++l) {
    const float a = vals[l % 4], b = vals[(l / 4) % 4];
    lt |= static_cast<LaneMask>(a < b) << l;
    nge |= static_cast<LaneMask>(!(a >= b)) << l;
    cls |= static_cast<LaneMask>((l & 1) ? std::isnan(a) : a == 0.0f) << l;
    eq |= static_cast<LaneMask>(a == b) << l;
  }
  EXPECT_EQ(s->wave().vcc(), lt & exec);
  EXPECT_EQ(s->wave().s64(0), nge & exec);
  EXPECT_EQ(s->wave().s64(2), cls & exec);
  EXPECT_EQ(s->wave().s64(4), eq & exec);
  EXPECT_EQ(s->wave().exec(), eq & exec);
}

TEST(SemValu, CompareLogRecordsTheWaveUniformOperand) {
  // RunOptions::log_compares: the SGPR, literal or inline-constant operand of a 32- or 16-bit compare is recorded
  // once (the value the compare tests data against); a VGPR-against-VGPR compare and a 64-bit one record nothing,
  // and nothing is recorded with the option off.
  const char* text =
      "\tv_cmp_eq_u32_e64 s[0:1], s5, v0\n\tv_cmp_lt_f32_e32 vcc, 0x3f9d70a4, v0\n\tv_cmp_eq_u32_e64 s[4:5], s5, v0\n"
      "\tv_cmp_gt_u32_e32 vcc, v0, v1\n\tv_cmp_eq_u16_e64 s[6:7], s8, v0\n\tv_cmp_eq_u64_e64 s[10:11], s[12:13], v[0:1]";
  for (const bool on : {true, false}) {
    auto s = test::make_snippet(text);
    ASSERT_TRUE(s);
    s->machine.options.log_compares = on;
    s->wave().s[5] = 0x4098586eu;
    s->wave().s[8] = 0x1234u;
    s->wave().s[12] = 0xdeadu;
    s->wave().s[13] = 0xbeefu;
    ASSERT_EQ(s->run().kind, Stop::Kind::none);
    if (on) EXPECT_EQ(s->machine.compared, (std::vector<std::uint32_t>{0x4098586eu, 0x3f9d70a4u, 0x1234u}));
    else EXPECT_TRUE(s->machine.compared.empty());
  }
}

TEST(SemValu, CmpClassMaskTable) {
  // v_cmp_class_f32 mask bits (MI300 ISA V_CMP_CLASS_F32): 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0,
  // 6 +0, 7 +denormal, 8 +normal, 9 +inf.
  const std::pair<u32, unsigned> table[] = {{0x7fa00000u, 0}, {0x7fc00000u, 1}, {0xff800000u, 2}, {0xbf800000u, 3},
                                            {0x80000001u, 4}, {0x80000000u, 5}, {0x00000000u, 6}, {0x00000010u, 7},
                                            {0x3f800000u, 8}, {0x7f800000u, 9}};
  for (unsigned bit = 0; bit < 10; ++bit) {
    auto s = run("\tv_cmp_class_f32_e32 vcc, v0, v1", [&](Wave& w) {
      for (unsigned l = 0; l < 64; ++l) { w.row(0)[l] = table[l % 10].first; w.row(1)[l] = 1u << bit; }
    });
    ASSERT_TRUE(s);
    for (unsigned l = 0; l < 64; ++l) EXPECT_EQ((s->wave().vcc() >> l) & 1, table[l % 10].second == bit ? 1u : 0u) << bit << " " << l;
  }
}

// ---- packed and mixed precision ---------------------------------------------------------------------------------

u16 h(float f) { return fp::f32_to_f16(f); }

TEST(SemValu, PackedF16OpSelNegAndInlineConstants) {
  auto s = run("\tv_pk_add_f16 v2, v0, v1\n\tv_pk_add_f16 v3, v0, v1 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[0,1]\n"
               "\tv_pk_mul_f16 v4, v0, 2.0 op_sel_hi:[1,0]\n\tv_pk_add_f16 v5, v0, 1.0\n"
               "\tv_pk_add_u16 v6, v0, -1\n\tv_pk_fma_f32 v[8:9], v[0:1], v[0:1], v[10:11] op_sel:[0,1,0] op_sel_hi:[1,0,1]",
               [](Wave& w) {
                 for (unsigned l = 0; l < 64; ++l) {
                   w.row(0)[l] = h(1.5f) | (static_cast<u32>(h(-2.0f)) << 16);
                   w.row(1)[l] = h(0.25f) | (static_cast<u32>(h(8.0f)) << 16);
                   w.row(10)[l] = fb(1.0f); w.row(11)[l] = fb(-3.0f);
                 }
               });
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(w.row(2)[l], h(1.75f) | (static_cast<u32>(h(6.0f)) << 16));
    // lo: S0.hi (-2) + -(S1.lo) (-0.25) = -2.25 ; hi: S0.lo (op_sel_hi[0]=0: 1.5) + S1.hi (8) = 9.5
    EXPECT_EQ(w.row(3)[l], h(-2.25f) | (static_cast<u32>(h(9.5f)) << 16));
    // op_sel_hi[1]=0 splats the f16 constant: both halves times 2
    EXPECT_EQ(w.row(4)[l], h(3.0f) | (static_cast<u32>(h(-4.0f)) << 16));
    // A float inline constant of a packed f16 operand is f16 1.0 in the low half and 0 in the high half
    // (LLVM getInlineEncodingV216); with the default op_sel_hi the high lane adds 0.
    EXPECT_EQ(w.row(5)[l], h(2.5f) | (static_cast<u32>(h(-2.0f)) << 16));
    // -1 is sign-extended to 32 bits: both halves 0xffff.
    EXPECT_EQ(w.row(6)[l], ((h(1.5f) + 0xffffu) & 0xffffu) | (((h(-2.0f) + 0xffffu) & 0xffffu) << 16));
    // pk_fma_f32: lo = S0[0]*S1[1] + S2[0], hi = S0[1]*S1[0] + S2[1] (dword views of the 64-bit sources)
    const float s0lo = bf(w.row(0)[l]), s0hi = bf(w.row(1)[l]);
    EXPECT_EQ(w.row(8)[l], fb(std::fma(s0lo, s0hi, 1.0f)));
    EXPECT_EQ(w.row(9)[l], fb(std::fma(s0hi, s0lo, -3.0f)));
  }
}

RC_GTEST_PROP(SemValuProp, FmaMixMatchesHost, ()) {
  const auto seed = *rc::gen::arbitrary<u32>();
  std::mt19937 g(seed);
  u32 a[64], b[64], c[64];
  auto s = run("\tv_fma_mix_f32 v3, v0, -v1, v2 op_sel:[1,0,0] op_sel_hi:[1,1,0]\n"
               "\tv_mov_b32 v4, v2\n\tv_fma_mixlo_f16 v4, v0, v1, v2 op_sel_hi:[1,1,1]\n"
               // one register as two sources: read alike (converted once), and with other modifiers or halves
               "\tv_fma_mix_f32 v5, v0, v0, v2 op_sel_hi:[1,1,0]\n"
               "\tv_fma_mix_f32 v6, v0, -v0, v2 op_sel_hi:[1,1,0]\n"
               "\tv_fma_mix_f32 v7, v0, v0, v2 op_sel:[0,1,0] op_sel_hi:[1,1,0]\n"
               "\tv_fma_mix_f32 v8, v0, v0, v2 op_sel_hi:[1,0,0]",
               [&](Wave& w) {
                 for (unsigned l = 0; l < 64; ++l) {
                   const float x = std::ldexp(static_cast<float>(static_cast<std::int32_t>(g() % 4000) - 2000), -8);
                   const float y = std::ldexp(static_cast<float>(static_cast<std::int32_t>(g() % 4000) - 2000), -9);
                   w.row(0)[l] = a[l] = static_cast<u32>(h(x)) << 16 | h(y);
                   w.row(1)[l] = b[l] = h(y) | static_cast<u32>(g() & 0x7bff) << 16;
                   w.row(2)[l] = c[l] = fb(std::ldexp(static_cast<float>(g() % 100000), -12));
                 }
               });
  RC_ASSERT(s != nullptr);
  for (unsigned l = 0; l < 64; ++l) {
    const float s0 = fp::f16_to_f32(static_cast<u16>(a[l] >> 16));     // op_sel[0]=1: high half
    const float s1 = -fp::f16_to_f32(static_cast<u16>(b[l]));          // low half, negated
    RC_ASSERT(s->wave().row(3)[l] == fb(std::fma(s0, s1, bf(c[l]))));  // src2 is f32 (op_sel_hi[2]=0)
    // mixlo: all three f16 low halves, exact fma rounded once to f16 (exact in double here: small operands)
    const double e = static_cast<double>(fp::f16_to_f32(static_cast<u16>(a[l]))) * fp::f16_to_f32(static_cast<u16>(b[l])) +
                     fp::f16_to_f32(static_cast<u16>(c[l]));
    RC_ASSERT(s->wave().row(4)[l] == ((c[l] & 0xffff0000u) | fp::f64_to_f16(e)));
    const float lo = fp::f16_to_f32(static_cast<u16>(a[l])), hi = fp::f16_to_f32(static_cast<u16>(a[l] >> 16));
    RC_ASSERT(s->wave().row(5)[l] == fb(std::fma(lo, lo, bf(c[l]))));
    RC_ASSERT(s->wave().row(6)[l] == fb(std::fma(lo, -lo, bf(c[l]))));
    RC_ASSERT(s->wave().row(7)[l] == fb(std::fma(lo, hi, bf(c[l]))));
    RC_ASSERT(s->wave().row(8)[l] == fb(std::fma(lo, bf(a[l]), bf(c[l]))));  // src1 read as the f32 register
  }
}

// ---- division ------------------------------------------------------------------------------------------------------

TEST(SemValu, LlvmF32DivisionSequenceIsCorrectlyRounded) {
  // The sequence clang-22 emits for `a / b` on gfx942 (quoted in fp_test.cpp); v_rcp_f32 is approximate in the
  // emulator, but the Newton steps make the quotient correctly rounded whatever 1-ulp reciprocal it starts from.
  const char* text =
      "\tv_div_scale_f32 v3, s[0:1], v2, v2, v1\n\tv_rcp_f32_e32 v4, v3\n\tv_div_scale_f32 v5, vcc, v1, v2, v1\n"
      "\tv_fma_f32 v6, -v3, v4, 1.0\n\tv_fmac_f32_e32 v4, v6, v4\n\tv_mul_f32_e32 v6, v5, v4\n"
      "\tv_fma_f32 v7, -v3, v6, v5\n\tv_fmac_f32_e32 v6, v7, v4\n\tv_fma_f32 v3, -v3, v6, v5\n"
      "\tv_div_fmas_f32 v3, v3, v4, v6\n\tv_div_fixup_f32 v1, v3, v2, v1";
  std::mt19937 g(99);
  for (int round = 0; round < 20; ++round) {
    float a[64], b[64];
    auto s = run(text, [&](Wave& w) {
      for (unsigned l = 0; l < 64; ++l) {
        // finite operands of any magnitude and sign, denormals included
        a[l] = bf((g() % 0x7f800000u) | (g() & 0x80000000u)); b[l] = bf((g() % 0x7f800000u) | (g() & 0x80000000u));
        if (l == 0) { a[l] = 1.0f; b[l] = 3.0f; }
        if (l == 1) { a[l] = 0.0f; b[l] = 0.0f; }
        if (l == 2) { a[l] = 1e-40f; b[l] = 3e38f; }
        if (l == 3) { a[l] = INFINITY; b[l] = 2.0f; }
        w.row(1)[l] = fb(a[l]); w.row(2)[l] = fb(b[l]);
      }
    });
    ASSERT_TRUE(s);
    for (unsigned l = 0; l < 64; ++l) {
      const float q = a[l] / b[l];
      const u32 got = s->wave().row(1)[l];
      if (std::isnan(q)) EXPECT_TRUE(isnan32(got)) << a[l] << "/" << b[l];
      else EXPECT_EQ(got, fb(q)) << a[l] << " / " << b[l] << " lane " << l;
    }
  }
}

// ---- conversions -------------------------------------------------------------------------------------------------

TEST(SemValu, ConversionsSaturateAndRound) {
  // MI300 ISA V_CVT_I32_F32: truncation, out-of-range saturates, NaN -> 0; V_CVT_F16_F32 RNE; fp8 fnuz on gfx942.
  const float in[] = {1.5f, -2.7f, 3e9f, -3e9f, NAN, 65520.0f, 0.1f, -0.0f};
  auto s = run("\tv_cvt_i32_f32_e32 v1, v0\n\tv_cvt_u32_f32_e32 v2, v0\n\tv_cvt_f16_f32_e32 v3, v0\n"
               "\tv_cvt_pkrtz_f16_f32 v4, v0, v0\n\tv_cvt_f32_i32_e32 v5, v1\n\tv_cvt_f64_f32_e32 v[6:7], v0",
               [&](Wave& w) { for (unsigned l = 0; l < 64; ++l) w.row(0)[l] = fb(in[l % 8]); });
  ASSERT_TRUE(s);
  const std::int32_t i32s[] = {1, -2, INT32_MAX, INT32_MIN, 0, 65520, 0, 0};
  const u32 u32s[] = {1, 0, 3000000000u, 0, 0, 65520, 0, 0};
  const u16 f16s[] = {0x3e00, 0xc166, 0x7c00, 0xfc00, 0, 0x7c00, 0x2e66, 0x8000};  // 65520 rounds to inf (RNE)
  for (unsigned l = 0; l < 64; ++l) {
    Wave& w = s->wave();
    EXPECT_EQ(static_cast<std::int32_t>(w.row(1)[l]), i32s[l % 8]) << l;
    EXPECT_EQ(w.row(2)[l], u32s[l % 8]) << l;
    if (l % 8 != 4) EXPECT_EQ(w.row(3)[l], f16s[l % 8]) << l; else EXPECT_TRUE(fp::is_nan_f16(static_cast<u16>(w.row(3)[l])));
    if (l % 8 == 5) EXPECT_EQ(w.row(4)[l], 0x7bff7bffu) << "round toward zero keeps 65520 finite";
    EXPECT_EQ(w.row(5)[l], fb(static_cast<float>(i32s[l % 8]))) << l;
    if (l % 8 != 4) EXPECT_EQ(w.row(6)[l] | static_cast<u64>(w.row(7)[l]) << 32, std::bit_cast<u64>(static_cast<double>(in[l % 8])));
  }
}

TEST(SemValu, Fp8ConversionsRoundTrip) {
  auto s = run("\tv_cvt_pk_fp8_f32 v1, v0, v2\n\tv_cvt_f32_fp8_e32 v3, v1\n\tv_cvt_pk_f32_fp8_e32 v[4:5], v1",
               [](Wave& w) {
                 for (unsigned l = 0; l < 64; ++l) { w.row(0)[l] = fb(1.0f + l / 8.0f); w.row(2)[l] = fb(-0.5f); w.row(1)[l] = 0xabcd0000u; }
               });
  ASSERT_TRUE(s);
  for (unsigned l = 0; l < 64; ++l) {
    const u32 byte0 = fp::f32_to_fp8(1.0f + l / 8.0f, fp::Fp8::e4m3fnuz, false);
    EXPECT_EQ(s->wave().row(1)[l], 0xabcd0000u | byte0 | (static_cast<u32>(fp::f32_to_fp8(-0.5f, fp::Fp8::e4m3fnuz, false)) << 8));
    EXPECT_EQ(bf(s->wave().row(3)[l]), fp::fp8_to_f32(static_cast<std::uint8_t>(byte0), fp::Fp8::e4m3fnuz));
    EXPECT_EQ(bf(s->wave().row(5)[l]), -0.5f);
  }
}

TEST(SemValu, MinMaxIeeeModeAndCndmask) {
  // MI300 ISA V_MAX_F32: in IEEE mode an sNaN input gives the quieted sNaN; otherwise a NaN loses to the number.
  auto run_mode = [](u32 mode) {
    return run("\tv_max_f32_e32 v2, v0, v1\n\tv_cndmask_b32_e64 v3, v0, -v1, s[0:1]\n\tv_min_f64 v[4:5], v[6:7], v[8:9]",
               [](Wave& w) {
                 for (unsigned l = 0; l < 64; ++l) {
                   w.row(0)[l] = 0x7fa00000u;  // sNaN
                   w.row(1)[l] = fb(2.0f);
                   w.row(6)[l] = 0; w.row(7)[l] = 0x7ff80000u;  // qNaN
                   w.row(8)[l] = 0; w.row(9)[l] = 0xc0000000u;  // -2.0
                 }
                 w.set_s64(0, 0xaaaaaaaaaaaaaaaaull);
               }, Target::gfx942, mode);
  };
  auto ieee = run_mode(0x3f0);
  auto non = run_mode(0x1f0);
  ASSERT_TRUE(ieee && non);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(ieee->wave().row(2)[l], 0x7fe00000u);
    EXPECT_EQ(non->wave().row(2)[l], fb(2.0f));
    EXPECT_EQ(ieee->wave().row(3)[l], (l & 1) ? fb(-2.0f) : 0x7fa00000u) << "cndmask moves bits, neg flips bit 31";
    EXPECT_EQ(non->wave().row(5)[l], 0xc0000000u);
  }
}

TEST(SemValu, IntegerDotProductsMatchHost) {
  std::mt19937 g(3);
  u32 a[64], b[64], c[64];
  auto s = run("\tv_dot4_i32_i8 v3, v0, v1, v2\n\tv_dot8_u32_u4 v4, v0, v1, v2\n\tv_dot2_u32_u16 v5, v0, v1, v2 clamp",
               [&](Wave& w) { for (unsigned l = 0; l < 64; ++l) { w.row(0)[l] = a[l] = g(); w.row(1)[l] = b[l] = g(); w.row(2)[l] = c[l] = g(); } });
  ASSERT_TRUE(s);
  for (unsigned l = 0; l < 64; ++l) {
    std::int64_t d4 = static_cast<std::int32_t>(c[l]);
    for (int k = 0; k < 4; ++k) d4 += static_cast<std::int8_t>(a[l] >> (8 * k)) * static_cast<std::int8_t>(b[l] >> (8 * k));
    u32 d8 = c[l];
    for (int k = 0; k < 8; ++k) d8 += ((a[l] >> (4 * k)) & 15u) * ((b[l] >> (4 * k)) & 15u);
    const u64 d2 = static_cast<u64>(c[l]) + (a[l] & 0xffffu) * (b[l] & 0xffffu) + (a[l] >> 16) * (b[l] >> 16);
    EXPECT_EQ(s->wave().row(3)[l], static_cast<u32>(d4)) << l;
    EXPECT_EQ(s->wave().row(4)[l], d8) << l;
    EXPECT_EQ(s->wave().row(5)[l], static_cast<u32>(std::min<u64>(d2, 0xffffffffu))) << l;
  }
}

TEST(SemValu, InlineConstantBitsPerOperandType) {
  // LLVM AMDGPUBaseInfo getInlineEncodingV216: integer inline constants are sign-extended 32-bit values; float ones
  // are f16 in the low half for f16 operands and the f32 value for integer 16-bit operands.
  auto bits = [](Operand o, isa::ValueType t) { auto c = constant_bits(o, t); return c ? c->bits : ~0ull; };
  EXPECT_EQ(bits(Operand::make_imm(-1), isa::ValueType::v2i16), 0xffffffffull);
  EXPECT_EQ(bits(Operand::make_imm(5), isa::ValueType::v2f16), 5ull);
  EXPECT_EQ(bits(Operand::make_real(1.0), isa::ValueType::v2f16), 0x3c00ull);
  EXPECT_EQ(bits(Operand::make_real(1.0), isa::ValueType::v2i16), 0x3f800000ull);
  EXPECT_EQ(bits(Operand::make_real(-2.0), isa::ValueType::f64), std::bit_cast<u64>(-2.0));
  EXPECT_EQ(bits(Operand::make_imm(-16), isa::ValueType::i64), ~15ull);
  EXPECT_EQ(bits(Operand::make_real(0.5), isa::ValueType::v2f32), 0x3f000000ull);
}

// ---- performance (a measurement, printed; the bound is loose so a loaded CI machine does not fail it) ------------

TEST(SemValu, F32AddThroughput) {
  auto s = test::make_snippet("\tv_add_f32_e32 v2, v0, v1");
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  const Op& op = s->code.ops[0];
  const int n = 200000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) op.fn(w, op);
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
  std::printf("v_add_f32 (64 lanes, no modifiers): %.1f ns per wave-instruction\n", ns);
  EXPECT_LT(ns, 2000.0);
}

}  // namespace

#if defined(__FLT16_MAX__) && defined(__SIZEOF_FLOAT128__)
namespace {
// The f16 result of the mix ops' fused multiply-add (ops::fma_to_f16: f64 fast path, round-to-odd at halfway points)
// against the exact value a*b+c in binary128 (exact for f32 inputs whose exponents are within the 113-bit reach)
// rounded once to f16 by the compiler's own conversion.
TEST(SemValu, FmaToF16IsCorrectlyRounded) {
  asmevo::emu::Rng rng(0x13198a2e03707344ull);  // the emulator's own splitmix64: a fixed stream on every platform
  auto next = [&] { return rng.next(); };
  auto small = [&](int lo, int hi) {  // a float with a short significand and an exponent in [lo, hi]
    const float m = 1.0f + static_cast<float>(next() % 2048) / 2048.0f;
    return std::ldexp((next() & 1) ? -m : m, lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)));
  };
  std::size_t bad = 0;
  for (int i = 0; i < 300000; ++i) {
    float a = small(-12, 6), b = small(-12, 6);
    // c within a few binades of a*b, or an f16 value to which a*b adds exactly half an f16 ulp (nudged by one f32
    // ulp either way, or not): the halfway cases where rounding twice would go wrong.
    float c = (i % 2) ? small(-20, 12) : static_cast<float>(static_cast<_Float16>(small(-10, 10)));
    if (i % 3 == 0) {
      int e = 0;
      (void)std::frexp(c, &e);  // c = m * 2^e, m in [0.5, 1): its f16 ulp is 2^(e - 11)
      // half an f16 ulp of c, times (1 + 2^-23)(1 - 2^-23) = 1 - 2^-46: 2^-46 relative below the halfway point,
      // which an f64 sum cannot hold (see FpFma in fp_test.cpp); sometimes exactly halfway.
      a = std::ldexp((c < 0 ? -1.0f : 1.0f) * (1.0f + 0x1p-23f), e - 12);
      b = (next() % 4) ? 1.0f - 0x1p-23f : 1.0f;
    }
    const __float128 exact = static_cast<__float128>(a) * static_cast<__float128>(b) + static_cast<__float128>(c);
    const _Float16 want = static_cast<_Float16>(exact);
    const std::uint16_t got = asmevo::emu::detail::valu::ops::fma_to_f16(a, b, c);
    if (std::bit_cast<std::uint16_t>(want) != got && bad++ < 5)
      ADD_FAILURE() << "fma_to_f16(" << a << ", " << b << ", " << c << ") = 0x" << std::hex << got << ", exact rounds to 0x"
                    << std::bit_cast<std::uint16_t>(want);
  }
  EXPECT_EQ(bad, 0u);
}
}  // namespace
#endif
