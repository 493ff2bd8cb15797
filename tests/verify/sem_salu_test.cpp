// Scalar ALU and program-control semantics of the emulator against host arithmetic written here from the ISA text.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <functional>
#include <iostream>
#include <string>

#include "asmevo/emu/sem_salu.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

/// A parsed and decoded snippet that can be re-run from a fresh wave with new register values.
struct Rig {
  std::unique_ptr<test::Snippet> s;
  explicit Rig(const std::string& text, Target t = Target::gfx942) : s(test::make_snippet(text, t)) {}
  Wave& run(const std::function<void(Wave&)>& setup) {
    Wave& w = s->wave();
    init_wave(w, s->machine, s->group, 0, 0);
    w.set_exec(~0ull);
    w.sgpr_limit = 102;
    s->group.stop = Stop{};
    setup(w);
    const Stop& st = s->run();
    EXPECT_EQ(st.kind, Stop::Kind::none) << st.message;
    return w;
  }
};

u64 pair(const Wave& w, unsigned i) { return w.s[i] | (u64{w.s[i + 1]} << 32); }
void set_pair(Wave& w, unsigned i, u64 v) { w.s[i] = static_cast<u32>(v); w.s[i + 1] = static_cast<u32>(v >> 32); }
bool bit(u64 v, unsigned i) { return (v >> i) & 1; }

struct Expect32 {
  u32 d;
  int scc;  ///< -1: SCC unchanged
};

// Expected results, written from the ISA opcode descriptions (MI300 ISA SOP2 table) with 64-bit host arithmetic.
Expect32 expect_sop2(const std::string& m, u32 a, u32 b, bool c) {
  const i64 sa = static_cast<i32>(a), sb = static_cast<i32>(b);
  if (m == "s_add_u32") return {static_cast<u32>(u64{a} + b), (u64{a} + b) > 0xffffffffull};
  if (m == "s_sub_u32") return {static_cast<u32>(u64{a} - b), b > a};
  if (m == "s_addc_u32") return {static_cast<u32>(u64{a} + b + c), (u64{a} + b + c) > 0xffffffffull};
  if (m == "s_subb_u32") return {static_cast<u32>(u64{a} - b - c), (u64{b} + c) > a};
  if (m == "s_add_i32") { const i64 s = sa + sb; return {static_cast<u32>(s), s != static_cast<i32>(s)}; }
  if (m == "s_sub_i32") { const i64 s = sa - sb; return {static_cast<u32>(s), s != static_cast<i32>(s)}; }
  if (m == "s_min_i32") return {sa < sb ? a : b, sa < sb};
  if (m == "s_min_u32") return {a < b ? a : b, a < b};
  if (m == "s_max_i32") return {sa > sb ? a : b, sa > sb};
  if (m == "s_max_u32") return {a > b ? a : b, a > b};
  if (m == "s_and_b32") return {a & b, (a & b) != 0};
  if (m == "s_or_b32") return {a | b, (a | b) != 0};
  if (m == "s_xor_b32") return {a ^ b, (a ^ b) != 0};
  if (m == "s_andn2_b32") return {a & ~b, (a & ~b) != 0};
  if (m == "s_orn2_b32") return {a | ~b, (a | ~b) != 0};
  if (m == "s_nand_b32") return {~(a & b), ~(a & b) != 0};
  if (m == "s_nor_b32") return {~(a | b), ~(a | b) != 0};
  if (m == "s_xnor_b32") return {~(a ^ b), ~(a ^ b) != 0};
  if (m == "s_lshl_b32") { const u32 d = static_cast<u32>(u64{a} << (b % 32)); return {d, d != 0}; }
  if (m == "s_lshr_b32") { const u32 d = a >> (b % 32); return {d, d != 0}; }
  if (m == "s_ashr_i32") { const u32 d = static_cast<u32>(sa >> (b % 32)); return {d, d != 0}; }
  if (m == "s_mul_i32") return {static_cast<u32>(sa * sb), -1};
  if (m == "s_mul_hi_u32") return {static_cast<u32>((u64{a} * u64{b}) >> 32), -1};
  if (m == "s_mul_hi_i32") return {static_cast<u32>(static_cast<u64>(sa * sb) >> 32), -1};
  if (m == "s_bfm_b32") {
    u32 d = 0;
    for (u32 i = 0; i < (a % 32); ++i)
      if ((b % 32) + i < 32) d |= 1u << ((b % 32) + i);
    return {d, -1};
  }
  if (m == "s_absdiff_i32") { const u32 diff = a - b; const u32 d = static_cast<i32>(diff) < 0 ? ~diff + 1 : diff; return {d, d != 0}; }
  if (m == "s_cselect_b32") return {c ? a : b, -1};
  if (m == "s_pack_ll_b32_b16") return {(a & 0xffff) | ((b & 0xffff) << 16), -1};
  if (m == "s_pack_lh_b32_b16") return {(a & 0xffff) | (b & 0xffff0000u), -1};
  if (m == "s_pack_hh_b32_b16") return {(a >> 16) | (b & 0xffff0000u), -1};
  for (unsigned n = 1; n <= 4; ++n)
    if (m == "s_lshl" + std::to_string(n) + "_add_u32") {
      const u64 s = (u64{a} << n) + b;
      return {static_cast<u32>(s), s > 0xffffffffull};
    }
  if (m == "s_bfe_u32" || m == "s_bfe_i32") {
    const unsigned off = b & 31, width = (b >> 16) & 127;
    const bool sgn = m == "s_bfe_i32";
    // Bit i of the field is bit off+i of S0; above bit 31 it is 0 (unsigned) or S0's sign (signed shift).
    u32 d = 0;
    for (unsigned i = 0; i < 32; ++i) {
      bool v;
      if (i < width) v = off + i < 32 ? bit(a, off + i) : (sgn && bit(a, 31));
      else v = sgn && width > 0 && (off + width - 1 < 32 ? bit(a, off + width - 1) : bit(a, 31));
      if (v) d |= 1u << i;
    }
    return {d, d != 0};
  }
  ADD_FAILURE() << "no expectation for " << m;
  return {0, -1};
}

const char* const sop2_32_ops[] = {
    "s_add_u32", "s_sub_u32", "s_addc_u32", "s_subb_u32", "s_add_i32", "s_sub_i32", "s_min_i32", "s_min_u32",
    "s_max_i32", "s_max_u32", "s_and_b32", "s_or_b32", "s_xor_b32", "s_andn2_b32", "s_orn2_b32", "s_nand_b32",
    "s_nor_b32", "s_xnor_b32", "s_lshl_b32", "s_lshr_b32", "s_ashr_i32", "s_mul_i32", "s_mul_hi_u32",
    "s_mul_hi_i32", "s_bfm_b32", "s_absdiff_i32", "s_cselect_b32", "s_pack_ll_b32_b16", "s_pack_lh_b32_b16",
    "s_pack_hh_b32_b16", "s_lshl1_add_u32", "s_lshl2_add_u32", "s_lshl3_add_u32", "s_lshl4_add_u32",
    "s_bfe_u32", "s_bfe_i32"};

// Operands weighted toward the edges (0, all ones, sign bit) where carries and overflows happen.
rc::Gen<u32> operand32() {
  return rc::gen::weightedOneOf<u32>({{3, rc::gen::arbitrary<u32>()},
                                      {1, rc::gen::element<u32>(0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu)},
                                      {1, rc::gen::inRange<u32>(0, 64)}});
}

TEST(SemSalu, Sop2_32MatchesHostArithmetic) {
  for (const char* m : sop2_32_ops) {
    Rig rig(std::string(m) + " s2, s0, s1");
    ASSERT_TRUE(rig.s);
    const bool ok = rc::check(std::string(m) + " matches host arithmetic", [&] {
      const u32 a = *operand32();
      u32 b = *operand32();
      if (std::string(m).rfind("s_bfe", 0) == 0)  // offset/width fields plus junk in the ignored bits
        b = *rc::gen::inRange<u32>(0, 32) | (*rc::gen::inRange<u32>(0, 128) << 16) | (*rc::gen::arbitrary<u32>() & 0xff80ffe0u);
      const bool c = *rc::gen::arbitrary<bool>();
      Wave& w = rig.run([&](Wave& w) { w.s[0] = a; w.s[1] = b; w.scc = c; });
      const Expect32 e = expect_sop2(m, a, b, c);
      RC_ASSERT(w.s[2] == e.d);
      RC_ASSERT(w.scc == (e.scc < 0 ? c : e.scc != 0));
    });
    EXPECT_TRUE(ok) << m;
  }
}

TEST(SemSalu, Sop2_64MatchesHostArithmetic) {
  const bool ok = rc::check("64-bit SOP2", [] {
    const u64 a = *rc::gen::arbitrary<u64>(), b = *rc::gen::arbitrary<u64>();
    const u32 sh = *rc::gen::arbitrary<u32>();
    const bool c = *rc::gen::arbitrary<bool>();
    struct Case { const char* text; u64 d; int scc; };
    const i64 sa = static_cast<i64>(a);
    const Case cases[] = {
        {"s_and_b64 s[4:5], s[0:1], s[2:3]", a & b, (a & b) != 0},
        {"s_or_b64 s[4:5], s[0:1], s[2:3]", a | b, (a | b) != 0},
        {"s_xor_b64 s[4:5], s[0:1], s[2:3]", a ^ b, (a ^ b) != 0},
        {"s_andn2_b64 s[4:5], s[0:1], s[2:3]", a & ~b, (a & ~b) != 0},
        {"s_orn2_b64 s[4:5], s[0:1], s[2:3]", a | ~b, (a | ~b) != 0},
        {"s_nand_b64 s[4:5], s[0:1], s[2:3]", ~(a & b), ~(a & b) != 0},
        {"s_nor_b64 s[4:5], s[0:1], s[2:3]", ~(a | b), ~(a | b) != 0},
        {"s_xnor_b64 s[4:5], s[0:1], s[2:3]", ~(a ^ b), ~(a ^ b) != 0},
        {"s_cselect_b64 s[4:5], s[0:1], s[2:3]", c ? a : b, -1},
        {"s_lshl_b64 s[4:5], s[0:1], s6", a << (sh % 64), (a << (sh % 64)) != 0},
        {"s_lshr_b64 s[4:5], s[0:1], s6", a >> (sh % 64), (a >> (sh % 64)) != 0},
        {"s_ashr_i64 s[4:5], s[0:1], s6", static_cast<u64>(sa >> (sh % 64)), (sa >> (sh % 64)) != 0},
    };
    for (const Case& k : cases) {
      Rig rig(k.text);
      RC_ASSERT(rig.s != nullptr);
      Wave& w = rig.run([&](Wave& w) { set_pair(w, 0, a); set_pair(w, 2, b); w.s[6] = sh; w.scc = c; });
      RC_ASSERT(pair(w, 4) == k.d);
      RC_ASSERT(w.scc == (k.scc < 0 ? c : k.scc != 0));
    }
  });
  EXPECT_TRUE(ok);
}

TEST(SemSalu, Bfe64AndBfm64) {
  Rig bfe_u("s_bfe_u64 s[4:5], s[0:1], s6"), bfe_i("s_bfe_i64 s[4:5], s[0:1], s6"), bfm("s_bfm_b64 s[4:5], s0, s1");
  const bool ok = rc::check("s_bfe_u64/i64, s_bfm_b64", [&] {
    const u64 a = *rc::gen::arbitrary<u64>();
    const unsigned off = *rc::gen::inRange(0, 64), width = *rc::gen::inRange(0, 128);
    const u32 b = off | width << 16;
    for (bool sgn : {false, true}) {
      Wave& w = (sgn ? bfe_i : bfe_u).run([&](Wave& w) { set_pair(w, 0, a); w.s[6] = b; });
      u64 d = 0;
      for (unsigned i = 0; i < 64; ++i) {
        bool v;
        if (i < width) v = off + i < 64 ? bit(a, off + i) : (sgn && bit(a, 63));
        else v = sgn && width > 0 && (off + width - 1 < 64 ? bit(a, off + width - 1) : bit(a, 63));
        if (v) d |= u64{1} << i;
      }
      RC_ASSERT(pair(w, 4) == d);
      RC_ASSERT(w.scc == (d != 0));
    }
    const u32 s0 = *rc::gen::arbitrary<u32>(), s1 = *rc::gen::arbitrary<u32>();
    Wave& w = bfm.run([&](Wave& w) { w.s[0] = s0; w.s[1] = s1; });
    u64 m = 0;
    for (unsigned i = 0; i < s0 % 64; ++i)
      if (s1 % 64 + i < 64) m |= u64{1} << (s1 % 64 + i);
    RC_ASSERT(pair(w, 4) == m);
  });
  EXPECT_TRUE(ok);
}

TEST(SemSalu, Sop1MatchesHostArithmetic) {
  const bool ok = rc::check("SOP1", [] {
    const u32 a = *operand32();
    const u64 a64 = *rc::gen::arbitrary<u64>() >> *rc::gen::inRange(0, 64);
    auto pop = [](u64 v) { int n = 0; for (; v; v &= v - 1) ++n; return n; };
    auto first = [](u64 v, unsigned bits, bool one) {
      for (unsigned i = 0; i < bits; ++i) if (bit(v, i) == one) return static_cast<u32>(i);
      return 0xffffffffu;
    };
    auto lead = [](u64 v, unsigned bits) {
      for (unsigned i = 0; i < bits; ++i) if (bit(v, bits - 1 - i)) return static_cast<u32>(i);
      return 0xffffffffu;
    };
    auto lead_sign = [](u64 v, unsigned bits) {
      const bool s = bit(v, bits - 1);
      for (unsigned i = 1; i < bits; ++i) if (bit(v, bits - 1 - i) != s) return static_cast<u32>(i);  // the sign bit itself counts
      return 0xffffffffu;
    };
    u32 brev = 0;
    for (unsigned i = 0; i < 32; ++i) if (bit(a, i)) brev |= 1u << (31 - i);
    u32 wqm = 0, quad = 0;
    for (unsigned i = 0; i < 32; ++i) if ((a >> (i & ~3u)) & 0xf) wqm |= 1u << i;
    for (unsigned q = 0; q < 8; ++q) if ((a >> (4 * q)) & 0xf) quad |= 1u << q;
    u64 rep = 0;
    for (unsigned i = 0; i < 64; ++i) if (bit(a, i / 2)) rep |= u64{1} << i;
    struct Case { const char* text; u64 d; int scc; bool wide_src; bool wide_dst; };
    const Case cases[] = {
        {"s_not_b32 s4, s0", ~a, ~a != 0, false, false},
        {"s_brev_b32 s4, s0", brev, -1, false, false},
        {"s_bcnt0_i32_b32 s4, s0", static_cast<u64>(32 - pop(a)), pop(a) != 32, false, false},
        {"s_bcnt1_i32_b32 s4, s0", static_cast<u64>(pop(a)), pop(a) != 0, false, false},
        {"s_bcnt1_i32_b64 s4, s[2:3]", static_cast<u64>(pop(a64)), pop(a64) != 0, true, false},
        {"s_ff0_i32_b32 s4, s0", first(a, 32, false), -1, false, false},
        {"s_ff1_i32_b32 s4, s0", first(a, 32, true), -1, false, false},
        {"s_ff1_i32_b64 s4, s[2:3]", first(a64, 64, true), -1, true, false},
        {"s_flbit_i32_b32 s4, s0", lead(a, 32), -1, false, false},
        {"s_flbit_i32_b64 s4, s[2:3]", lead(a64, 64), -1, true, false},
        {"s_flbit_i32 s4, s0", lead_sign(a, 32), -1, false, false},
        {"s_sext_i32_i8 s4, s0", static_cast<u32>(static_cast<i32>(static_cast<std::int8_t>(a & 0xff))), -1, false, false},
        {"s_sext_i32_i16 s4, s0", static_cast<u32>(static_cast<i32>(static_cast<std::int16_t>(a & 0xffff))), -1, false, false},
        {"s_abs_i32 s4, s0", static_cast<i32>(a) < 0 ? static_cast<u32>(0u - a) : a, a != 0, false, false},
        {"s_wqm_b32 s4, s0", wqm, wqm != 0, false, false},
        {"s_quadmask_b32 s4, s0", quad, quad != 0, false, false},
        {"s_bitreplicate_b64_b32 s[4:5], s0", rep, -1, false, true},
    };
    const bool c = *rc::gen::arbitrary<bool>();
    for (const Case& k : cases) {
      Rig rig(k.text);
      RC_ASSERT(rig.s != nullptr);
      Wave& w = rig.run([&](Wave& w) { w.s[0] = a; set_pair(w, 2, a64); w.scc = c; w.s[5] = 0x5a5a5a5a; });
      const u64 got = k.wide_dst ? pair(w, 4) : w.s[4];
      RC_ASSERT(got == (k.wide_dst ? k.d : static_cast<u32>(k.d)));
      RC_ASSERT(w.scc == (k.scc < 0 ? c : k.scc != 0));
      if (!k.wide_dst) RC_ASSERT(w.s[5] == 0x5a5a5a5au);  // a 32-bit result writes one SGPR
    }
  });
  EXPECT_TRUE(ok);
}

TEST(SemSalu, ComparesAndBitcmp) {
  const char* const ops[] = {"eq_i32", "lg_i32", "gt_i32", "ge_i32", "lt_i32", "le_i32",
                             "eq_u32", "lg_u32", "gt_u32", "ge_u32", "lt_u32", "le_u32"};
  for (const char* o : ops) {
    Rig rig(std::string("s_cmp_") + o + " s0, s1");
    const std::string op(o);
    const bool ok = rc::check(op, [&] {
      const u32 a = *operand32(), b = *rc::gen::oneOf(operand32(), rc::gen::just(a));
      Wave& w = rig.run([&](Wave& w) { w.s[0] = a; w.s[1] = b; w.scc = !w.scc; });
      const bool sg = op.substr(3) == "i32";
      const i64 x = sg ? static_cast<i64>(static_cast<i32>(a)) : static_cast<i64>(a);
      const i64 y = sg ? static_cast<i64>(static_cast<i32>(b)) : static_cast<i64>(b);
      const std::string r = op.substr(0, 2);
      const bool e = r == "eq" ? x == y : r == "lg" ? x != y : r == "gt" ? x > y : r == "ge" ? x >= y : r == "lt" ? x < y : x <= y;
      RC_ASSERT(w.scc == e);
    });
    EXPECT_TRUE(ok) << o;
  }
  Rig eq64("s_cmp_eq_u64 s[0:1], s[2:3]"), lg64("s_cmp_lg_u64 s[0:1], s[2:3]");
  Rig b0("s_bitcmp0_b32 s0, s1"), b1("s_bitcmp1_b64 s[2:3], s1");
  const bool ok = rc::check("64-bit compares and bitcmp", [&] {
    const u64 a = *rc::gen::arbitrary<u64>(), b = *rc::gen::oneOf(rc::gen::arbitrary<u64>(), rc::gen::just(a));
    RC_ASSERT(eq64.run([&](Wave& w) { set_pair(w, 0, a); set_pair(w, 2, b); }).scc == (a == b));
    RC_ASSERT(lg64.run([&](Wave& w) { set_pair(w, 0, a); set_pair(w, 2, b); }).scc == (a != b));
    const u32 x = *rc::gen::arbitrary<u32>(), n = *rc::gen::arbitrary<u32>();
    RC_ASSERT(b0.run([&](Wave& w) { w.s[0] = x; w.s[1] = n; }).scc == !bit(x, n % 32));
    RC_ASSERT(b1.run([&](Wave& w) { set_pair(w, 2, a); w.s[1] = n; }).scc == bit(a, n % 64));
  });
  EXPECT_TRUE(ok);
}

TEST(SemSalu, SopkImmediates) {
  // SIMM16 is sign-extended for the _i32 forms and zero-extended for the _u32 compares (MI300 ISA SOPK table).
  Rig rig(
      "s_movk_i32 s0, 0x8001\n"
      "s_cmpk_lt_i32 s1, 0xffff\n"   // s1 = -2 < -1
      "s_cselect_b32 s2, 1, 0\n"
      "s_cmpk_gt_u32 s1, 0xffff\n"   // 0xfffffffe > 0xffff
      "s_cselect_b32 s3, 1, 0\n"
      "s_addk_i32 s4, 0x7fff\n"
      "s_mulk_i32 s5, 0xfffe\n"
      "s_cmovk_i32 s6, 0x1234\n");
  Wave& w = rig.run([](Wave& w) { w.s[1] = 0xfffffffeu; w.s[4] = 0x7fffffffu; w.s[5] = 7; w.s[6] = 9; });
  EXPECT_EQ(w.s[0], 0xffff8001u);
  EXPECT_EQ(w.s[2], 1u);
  EXPECT_EQ(w.s[3], 1u);
  EXPECT_EQ(w.s[4], 0x7fffffffu + 0x7fffu);  // wraps; SCC (signed overflow) is then consumed by cmovk below
  EXPECT_EQ(w.s[5], static_cast<u32>(-14));
  EXPECT_EQ(w.s[6], 0x1234u);  // s_addk overflowed: SCC = 1
}

TEST(SemSalu, SaveexecAndWrexec) {
  const bool ok = rc::check("saveexec", [] {
    const u64 s = *rc::gen::arbitrary<u64>(), e = *rc::gen::oneOf(rc::gen::arbitrary<u64>(), rc::gen::just(u64{0}));
    struct Case { const char* op; u64 exec; bool wr; };
    const Case cases[] = {
        {"s_and_saveexec_b64", s & e, false},  {"s_or_saveexec_b64", s | e, false},
        {"s_xor_saveexec_b64", s ^ e, false},  {"s_andn2_saveexec_b64", s & ~e, false},
        {"s_orn2_saveexec_b64", s | ~e, false}, {"s_nand_saveexec_b64", ~(s & e), false},
        {"s_nor_saveexec_b64", ~(s | e), false}, {"s_xnor_saveexec_b64", ~(s ^ e), false},
        {"s_andn1_saveexec_b64", ~s & e, false}, {"s_orn1_saveexec_b64", ~s | e, false},
        {"s_andn1_wrexec_b64", ~s & e, true},  {"s_andn2_wrexec_b64", s & ~e, true},
    };
    for (const Case& k : cases) {
      Rig rig(std::string(k.op) + " s[4:5], s[0:1]");
      RC_ASSERT(rig.s != nullptr);
      Wave& w = rig.run([&](Wave& w) { set_pair(w, 0, s); w.set_exec(e); });
      RC_ASSERT(w.exec() == k.exec);
      RC_ASSERT(pair(w, 4) == (k.wr ? k.exec : e));
      RC_ASSERT(w.scc == (k.exec != 0));
    }
  });
  EXPECT_TRUE(ok);
}

TEST(SemSalu, LoopWithBranches) {
  // sum = 0; for (i = 0; i < n; ++i) sum += i;  via s_cmp/s_cbranch_scc1 and s_branch.
  Rig rig(
      "s_mov_b32 s2, 0\n"
      "s_mov_b32 s3, 0\n"
      "loop:\n"
      "s_cmp_ge_u32 s3, s0\n"
      "s_cbranch_scc1 done\n"
      "s_add_u32 s2, s2, s3\n"
      "s_add_u32 s3, s3, 1\n"
      "s_branch loop\n"
      "done:\n"
      "s_nop 0\n");
  for (u32 n : {0u, 1u, 5u, 100u}) {
    Wave& w = rig.run([&](Wave& w) { w.s[0] = n; });
    EXPECT_EQ(w.s[2], n * (n - 1) / 2) << n;
    EXPECT_EQ(w.s[3], n);
  }
}

TEST(SemSalu, ConditionalBranchesOnVccAndExec) {
  Rig rig(
      "s_mov_b32 s10, 0\n"
      "s_cbranch_vccz l1\n"
      "s_or_b32 s10, s10, 1\n"
      "l1:\n"
      "s_cbranch_vccnz l2\n"
      "s_or_b32 s10, s10, 2\n"
      "l2:\n"
      "s_cbranch_execz l3\n"
      "s_or_b32 s10, s10, 4\n"
      "l3:\n"
      "s_cbranch_execnz l4\n"
      "s_or_b32 s10, s10, 8\n"
      "l4:\n"
      "s_cbranch_scc0 l5\n"
      "s_or_b32 s10, s10, 16\n"
      "l5:\n"
      "s_nop 0\n");
  // vcc = 0, exec = 0, scc = 0: vccz, execz taken; vccnz, execnz not taken; s_or sets scc = 1 so scc0 not taken.
  Wave& w = rig.run([](Wave& w) { w.set_vcc(0); w.set_exec(0); w.scc = false; });
  EXPECT_EQ(w.s[10], 2u | 8u | 16u);
  Wave& w2 = rig.run([](Wave& w) { w.set_vcc(1ull << 40); w.set_exec(1); w.scc = false; });
  EXPECT_EQ(w2.s[10], 1u | 4u | 16u);
}

TEST(SemSalu, GetpcSetpcSwappcCall) {
  // Addresses: each SOP1/SOPK/SOP2 word is 4 bytes; s_getpc_b64 returns the address of the next instruction.
  Rig rig(
      "s_getpc_b64 s[0:1]\n"          // 0: s[0:1] = base + 4
      "s_add_u32 s2, s0, 16\n"        // 4: target = base + 20 (label `there`)
      "s_addc_u32 s3, s1, 0\n"        // 8
      "s_swappc_b64 s[4:5], s[2:3]\n" // 12: s[4:5] = base + 16
      "s_branch out\n"                // 16: returned here
      "there:\n"
      "s_mov_b32 s6, 7\n"             // 20
      "s_setpc_b64 s[4:5]\n"          // 24: return
      "out:\n"
      "s_call_b64 s[8:9], fn\n"       // 28: s[8:9] = base + 32
      "s_branch end\n"                // 32
      "fn:\n"
      "s_mov_b32 s7, 9\n"             // 36
      "s_setpc_b64 s[8:9]\n"          // 40
      "end:\n"
      "s_nop 0\n");
  Wave& w = rig.run([](Wave&) {});
  const u64 base = rig.s->code.load_base + rig.s->code.ops[0].addr;
  EXPECT_EQ(pair(w, 0), base + 4);
  EXPECT_EQ(pair(w, 4), base + 16);
  EXPECT_EQ(w.s[6], 7u);
  EXPECT_EQ(pair(w, 8), base + 32);
  EXPECT_EQ(w.s[7], 9u);
}

TEST(SemSalu, SetpcToNowhereStops) {
  auto s = test::make_snippet("s_getpc_b64 s[0:1]\ns_add_u32 s0, s0, 2\ns_setpc_b64 s[0:1]");
  ASSERT_TRUE(s);
  const Stop& st = s->run();
  EXPECT_EQ(st.kind, Stop::Kind::illegal);
  EXPECT_NE(st.message.find("no instruction"), std::string::npos) << st.message;
}

TEST(SemSalu, TrapStops) {
  auto s = test::make_snippet("s_trap 2");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->run().kind, Stop::Kind::illegal);
}

TEST(SemSalu, GetregSetregMode) {
  // hwreg(HW_REG_MODE, 0, 4) is the round-mode field (MI300 ISA MODE register: FP_ROUND bits 3:0).
  Rig rig(
      "s_getreg_b32 s0, hwreg(HW_REG_MODE, 4, 4)\n"
      "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 0xffffffff\n"
      "s_mov_b32 s1, 0\n"
      "s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s1\n"
      "s_getreg_b32 s2, hwreg(HW_REG_MODE)\n");
  Wave& w = rig.run([](Wave& w) { w.mode = 0x3f0; });
  EXPECT_EQ(w.s[0], 0xfu);           // denormal bits 7:4 were set
  EXPECT_EQ(w.mode, 0x303u);         // round bits 1:0 set, denormal bits cleared
  EXPECT_EQ(w.s[2], 0x303u);
}

// GPR indexing, written from the MI300 ISA: s_set_gpr_idx_on sets MODE.GPR_IDX_EN (bit 27), M0[7:0] = index and
// M0[15:12] = which VALU operands are offset (bit 12 src0, 13 src1, 14 src2, 15 vdst); other M0 bits are kept.
TEST(SemSalu, GprIndexingOffsetsTheSelectedVgprOperands) {
  Rig rig(
      "s_set_gpr_idx_on s4, gpr_idx(SRC0,DST)\n"
      "s_getreg_b32 s8, hwreg(HW_REG_MODE, 27, 1)\n"
      "s_mov_b32 s9, m0\n"
      "v_mov_b32_e32 v1, v2\n"            // v4 = v5
      "v_add_u32_e32 v10, v11, v20\n"     // v13 = v14 + v20 (src1 not selected)
      "s_set_gpr_idx_idx s5\n"             // index 1
      "s_set_gpr_idx_mode gpr_idx(SRC1)\n" // only src1 now
      "v_add_u32_e32 v30, v11, v20\n"     // v30 = v11 + v21
      "s_set_gpr_idx_off\n"
      "s_getreg_b32 s10, hwreg(HW_REG_MODE, 27, 1)\n"
      "v_mov_b32_e32 v31, v2\n");        // not indexed
  Wave& w = rig.run([](Wave& w) {
    w.vgpr_limit = 64;
    w.s[4] = 0x1203;  // only bits 7:0 are the index: 3
    w.s[5] = 0x101;   // index 1
    w.s[sc::m0] = 0xabcd0000u;
    for (unsigned r = 0; r < 32; ++r)
      for (unsigned l = 0; l < 64; ++l) w.row(r)[l] = 1000 * r + l;
  });
  EXPECT_EQ(w.s[8], 1u);
  EXPECT_EQ(w.s[9], 0xabcd9003u);  // M0[15:12] = 0b1001 (SRC0, DST), M0[7:0] = 3, bits 31:16 kept
  EXPECT_EQ(w.s[10], 0u);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(w.row(4)[l], 5000u + l);
    EXPECT_EQ(w.row(1)[l], 1000u + l);  // untouched
    EXPECT_EQ(w.row(13)[l], (14000u + l) + (20000u + l));
    EXPECT_EQ(w.row(10)[l], 10000u + l);
    EXPECT_EQ(w.row(30)[l], (11000u + l) + (21000u + l));
    EXPECT_EQ(w.row(31)[l], 2000u + l);
  }
}

TEST(SemSalu, GprIndexingBeyondTheAllocationStops) {
  auto s = test::make_snippet("s_set_gpr_idx_on s4, gpr_idx(DST)\nv_mov_b32_e32 v60, 0", Target::gfx942);
  ASSERT_TRUE(s);
  s->wave().vgpr_limit = 64;
  s->wave().s[4] = 4;  // v64: one past the allocation
  const Stop& st = s->run();
  EXPECT_EQ(st.kind, Stop::Kind::illegal) << st.message;
  EXPECT_NE(st.message.find("GPR indexing"), std::string::npos) << st.message;
}

// S_SETVSKIP: VSKIP = S0[S1[4:0]]; while set no vector instruction issues, scalar ones do (MI300 ISA SOPC).
TEST(SemSalu, SetvskipSkipsVectorInstructionsOnly) {
  Rig rig(
      "s_setvskip s6, 1\n"           // bit 1 of 2: set
      "v_mov_b32_e32 v40, 7\n"
      "v_add_u32_e32 v41, v41, v41\n"
      "s_mov_b32 s7, 9\n"
      "s_setvskip s6, 0\n"           // bit 0 of 2: clear
      "v_mov_b32_e32 v42, 8\n");
  Wave& w = rig.run([](Wave& w) {
    w.s[6] = 2;
    for (unsigned l = 0; l < 64; ++l) { w.row(40)[l] = 1; w.row(41)[l] = 3; }
  });
  EXPECT_EQ(w.s[7], 9u);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(w.row(40)[l], 1u);
    EXPECT_EQ(w.row(41)[l], 3u);
    EXPECT_EQ(w.row(42)[l], 8u);
  }
}

TEST(SemSalu, MovrelsMovreld) {
  Rig rig("s_movrels_b32 s20, s4\ns_movreld_b32 s8, s21\ns_movrels_b64 s[22:23], s[0:1]");
  Wave& w = rig.run([](Wave& w) {
    w.s[sc::m0] = 2;
    for (unsigned i = 0; i < 8; ++i) w.s[i] = 100 + i;
    w.s[21] = 55;
  });
  EXPECT_EQ(w.s[20], 106u);  // s[4 + 2]
  EXPECT_EQ(w.s[10], 55u);   // s[8 + 2] = s21
  EXPECT_EQ(pair(w, 22), (u64{103} << 32) | 102u);
}

TEST(SemSalu, WaitcntCompletesDsAndReadBeforeWaitStops) {
  // ds_swizzle counts in lgkmcnt: read before s_waitcnt lgkmcnt(0) is a waitcnt violation under adversarial
  // completion; with the wait the value arrives.
  RunOptions adv;
  adv.completion = Completion::adversarial;
  auto bad = test::make_snippet("ds_swizzle_b32 v1, v0 offset:0x8000\nv_readfirstlane_b32 s0, v1", Target::gfx942, 1, 65536, adv);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->run().kind, Stop::Kind::waitcnt);
  auto good = test::make_snippet("ds_swizzle_b32 v1, v0 offset:0x8000\ns_waitcnt lgkmcnt(0)\nv_readfirstlane_b32 s0, v1",
                                 Target::gfx942, 1, 65536, adv);
  ASSERT_TRUE(good);
  for (unsigned l = 0; l < 64; ++l) good->wave().row(0)[l] = 1000 + l;
  const Stop& st = good->run();
  EXPECT_EQ(st.kind, Stop::Kind::none) << st.message;
  EXPECT_EQ(good->wave().s[0], 1000u);  // quad_perm [0,0,0,0]: lane 0 reads lane 0
}

TEST(SemSalu, EveryScalarMnemonicIsCoveredOrReportedUnsupported) {
  // Each SOP* form either has semantics or decodes to an unsupported stop: never a crash. Lists what is missing.
  std::string missing;
  const auto forms = isa::forms(Target::gfx942);
  for (std::size_t i = 0; i < forms.size(); ++i) {
    const auto& f = forms[i];
    if (f.format != isa::Format::SOP1 && f.format != isa::Format::SOP2 && f.format != isa::Format::SOPK &&
        f.format != isa::Format::SOPC && f.format != isa::Format::SOPP)
      continue;
    if (!find_semantics(op_of(Target::gfx942, i))) missing += std::string(f.mnemonic) + " ";
  }
  // The known-unsupported set: trap-handler, graphics, debugger and GPR-indexing instructions.
  for (const char* m : {"s_add_u32", "s_waitcnt", "s_endpgm", "s_getreg_b32", "s_cbranch_execz", "s_call_b64"})
    EXPECT_EQ(missing.find(std::string(m) + " "), std::string::npos) << m;
  std::cout << "[ info ] SALU mnemonics without semantics (stop as unsupported): " << missing << "\n";
}

}  // namespace
