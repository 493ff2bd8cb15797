// Cross-lane semantics of the emulator (readlane, mbcnt, DS shuffles, DPP, SDWA) against lane tables derived by
// hand from the ISA text.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <string>

#include "asmevo/emu/sem_lane.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

// Test-only base semantics for the DPP/SDWA wrappers (the VALU table is tested elsewhere): plain moves and adds on
// the active lanes, and a VOPC equality writing 0 for inactive lanes.
void base_mov(Wave& w, const Op& op) {
  alignas(64) u32 t[64];
  const Slot& d = op.at(Name::vdst);
  for (unsigned k = 0; k < (d.dwords ? d.dwords : 1u); ++k) {
    const u32* s = w.lanes(op.at(Name::src0), t, k);
    for (unsigned l = 0; l < 64; ++l)
      if ((w.exec() >> l) & 1) w.row(d.index + k)[l] = s[l];
  }
}
void base_add(Wave& w, const Op& op) {
  alignas(64) u32 t0[64], t1[64];
  const u32* a = w.lanes(op.at(Name::src0), t0);
  const u32* b = w.lanes(op.at(Name::src1), t1);
  for (unsigned l = 0; l < 64; ++l)
    if ((w.exec() >> l) & 1) w.row(op.at(Name::vdst).index)[l] = a[l] + b[l];
}
void base_cmp_eq(Wave& w, const Op& op) {
  alignas(64) u32 t0[64], t1[64];
  const u32* a = w.lanes(op.at(Name::src0), t0);
  const u32* b = w.lanes(op.at(Name::src1), t1);
  u64 m = 0;
  for (unsigned l = 0; l < 64; ++l)
    if (((w.exec() >> l) & 1) && a[l] == b[l]) m |= u64{1} << l;
  w.write_scalar(op.at(Name::sdst), m);
}

/// Parses `text`, then points every DPP/SDWA form at its wrapper over the test base semantics `base`.
std::unique_ptr<test::Snippet> wrapped(const std::string& text, Exec base, Target t = Target::gfx942) {
  auto s = test::make_snippet(text, t);
  if (!s) return s;
  for (Op& op : s->code.ops) {
    if (!op.info) continue;
    if (op.info->variant == isa::Variant::dpp) { op.fn = dpp_exec; op.base = base; }
    if (op.info->variant == isa::Variant::sdwa) { op.fn = sdwa_exec; op.base = base; }
  }
  return s;
}

void fill(Wave& w, unsigned row, u32 base) {
  for (unsigned l = 0; l < 64; ++l) w.row(row)[l] = base + l;
}

// ---- DPP: lane tables written out from the ISA DPP_CTRL descriptions ----------------------------------------------

struct DppCase {
  std::string ctrl;  ///< assembly spelling
  int src[64];       ///< source lane of each lane, -1 when out of range
};

DppCase make_case(std::string ctrl) {
  DppCase c{std::move(ctrl), {}};
  for (int& x : c.src) x = -1;
  return c;
}

std::vector<DppCase> dpp_cases() {
  std::vector<DppCase> v;
  {  // quad_perm:[3,2,1,0] reverses each group of four.
    auto c = make_case("quad_perm:[3,2,1,0]");
    for (int q = 0; q < 64; q += 4) for (int j = 0; j < 4; ++j) c.src[q + j] = q + 3 - j;
    v.push_back(c);
  }
  {  // quad_perm:[1,1,0,2]
    auto c = make_case("quad_perm:[1,1,0,2]");
    const int sel[4] = {1, 1, 0, 2};
    for (int q = 0; q < 64; q += 4) for (int j = 0; j < 4; ++j) c.src[q + j] = q + sel[j];
    v.push_back(c);
  }
  for (int n : {1, 3, 15}) {
    // row_shl:n — lane r of a row reads lane r + n of the same row; the last n lanes of each row have no source.
    auto shl = make_case("row_shl:" + std::to_string(n));
    // row_shr:n — lane r reads lane r - n; the first n lanes of each row have no source.
    auto shr = make_case("row_shr:" + std::to_string(n));
    // row_ror:n — lane r reads lane (r - n) mod 16 of the same row.
    auto ror = make_case("row_ror:" + std::to_string(n));
    for (int row = 0; row < 4; ++row)
      for (int r = 0; r < 16; ++r) {
        if (r + n <= 15) shl.src[row * 16 + r] = row * 16 + r + n;
        if (r >= n) shr.src[row * 16 + r] = row * 16 + r - n;
        ror.src[row * 16 + r] = row * 16 + (r + 16 - n) % 16;
      }
    v.push_back(shl);
    v.push_back(shr);
    v.push_back(ror);
  }
  {
    auto a = make_case("wave_shl:1"), b = make_case("wave_rol:1"), c = make_case("wave_shr:1"), d = make_case("wave_ror:1");
    for (int l = 0; l < 64; ++l) {
      if (l < 63) a.src[l] = l + 1;
      b.src[l] = l == 63 ? 0 : l + 1;
      if (l > 0) c.src[l] = l - 1;
      d.src[l] = l == 0 ? 63 : l - 1;
    }
    v.push_back(a); v.push_back(b); v.push_back(c); v.push_back(d);
  }
  {
    auto m = make_case("row_mirror"), h = make_case("row_half_mirror");
    for (int l = 0; l < 64; ++l) {
      m.src[l] = (l / 16) * 16 + (15 - l % 16);
      h.src[l] = (l / 8) * 8 + (7 - l % 8);
    }
    v.push_back(m); v.push_back(h);
  }
  {  // row_bcast:15 — rows 1, 2, 3 read lane 15, 31, 47; row_bcast:31 — rows 2 and 3 read lane 31.
    auto b15 = make_case("row_bcast:15"), b31 = make_case("row_bcast:31");
    for (int l = 16; l < 32; ++l) b15.src[l] = 15;
    for (int l = 32; l < 48; ++l) b15.src[l] = 31;
    for (int l = 48; l < 64; ++l) b15.src[l] = 47;
    for (int l = 32; l < 64; ++l) b31.src[l] = 31;
    v.push_back(b15); v.push_back(b31);
  }
  {  // row_newbcast:5 (gfx90a+) — every lane of a row reads lane 5 of that row.
    auto nb = make_case("row_newbcast:5");
    for (int l = 0; l < 64; ++l) nb.src[l] = (l / 16) * 16 + 5;
    v.push_back(nb);
  }
  return v;
}

TEST(SemLane, DppLanePatternsWithMasksAndBoundCtrl) {
  for (const DppCase& c : dpp_cases()) {
    for (int bound : {0, 1}) {
      for (auto [rm, bm] : {std::pair{0xf, 0xf}, std::pair{0xa, 0xf}, std::pair{0xf, 0x6}}) {
        std::string text = "v_mov_b32_dpp v1, v0 " + c.ctrl + " row_mask:" + std::to_string(rm) +
                           " bank_mask:" + std::to_string(bm) + (bound ? " bound_ctrl:1" : "");
        auto s = wrapped(text, base_mov);
        ASSERT_TRUE(s) << text;
        Wave& w = s->wave();
        fill(w, 0, 1000);
        fill(w, 1, 5000);  // vdst's old value
        // Lanes 8 and 40 inactive: they are never written, and a lane whose source is 8 or 40 has no valid source.
        const u64 exec = ~((u64{1} << 8) | (u64{1} << 40));
        w.set_exec(exec);
        const Stop& st = s->run();
        ASSERT_EQ(st.kind, Stop::Kind::none) << text << ": " << st.message;
        for (int l = 0; l < 64; ++l) {
          const bool enabled = ((exec >> l) & 1) && ((rm >> (l / 16)) & 1) && ((bm >> ((l % 16) / 4)) & 1);
          const int sl = c.src[l];
          const bool valid = sl >= 0 && ((exec >> sl) & 1);
          u32 want = 5000 + l;  // not written
          if (enabled && valid) want = 1000 + sl;
          else if (enabled && bound) want = 0;
          EXPECT_EQ(w.row(1)[l], want) << text << " lane " << l;
        }
        EXPECT_EQ(w.exec(), exec) << "EXEC restored";
      }
    }
  }
}

TEST(SemLane, DppFeedsPermutedSrc0ToVop2) {
  // v_add_u32_dpp v2, v0, v1 row_shr:1 bound_ctrl:1 — src0 is permuted, src1 is read from the lane itself.
  auto s = wrapped("v_add_u32_dpp v2, v0, v1 row_shr:1 bound_ctrl:1", base_add);
  ASSERT_TRUE(s);
  fill(s->wave(), 0, 100);
  fill(s->wave(), 1, 7000);
  ASSERT_EQ(s->run().kind, Stop::Kind::none);
  for (int l = 0; l < 64; ++l) {
    const u32 src0 = (l % 16) == 0 ? 0u : 100u + (l - 1);
    EXPECT_EQ(s->wave().row(2)[l], src0 + 7000 + l) << l;
  }
}

TEST(SemLane, Dpp64BitMovOnGfx942) {
  auto s = wrapped("v_mov_b64_dpp v[2:3], v[0:1] row_newbcast:3", base_mov, Target::gfx942);
  ASSERT_TRUE(s);
  fill(s->wave(), 0, 100);
  fill(s->wave(), 1, 900);
  ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
  for (int l = 0; l < 64; ++l) {
    EXPECT_EQ(s->wave().row(2)[l], 100u + (l / 16) * 16 + 3) << l;
    EXPECT_EQ(s->wave().row(3)[l], 900u + (l / 16) * 16 + 3) << l;
  }
}

// ---- SDWA -------------------------------------------------------------------------------------------------------

TEST(SemLane, SdwaSelectsAndDstUnused) {
  const char* sels[] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
  const char* unused[] = {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"};
  const bool ok = rc::check("SDWA v_add_u32 selects", [&] {
    const int s0 = *rc::gen::inRange(0, 7), s1 = *rc::gen::inRange(0, 7), ds = *rc::gen::inRange(0, 7);
    const int un = *rc::gen::inRange(0, 3);
    const bool sext0 = *rc::gen::arbitrary<bool>();
    const u32 a = *rc::gen::arbitrary<u32>(), b = *rc::gen::arbitrary<u32>(), old = *rc::gen::arbitrary<u32>();
    const std::string text = std::string("v_add_u32_sdwa v2, ") + (sext0 ? "sext(v0)" : "v0") + ", v1 dst_sel:" +
                             sels[ds] + " dst_unused:" + unused[un] + " src0_sel:" + sels[s0] + " src1_sel:" + sels[s1];
    auto s = wrapped(text, base_add);
    RC_ASSERT(s != nullptr);
    Wave& w = s->wave();
    for (unsigned l = 0; l < 64; ++l) { w.row(0)[l] = a + l; w.row(1)[l] = b ^ l; w.row(2)[l] = old; }
    w.set_exec(~u64{0} >> 1);  // lane 63 inactive
    RC_ASSERT(s->run().kind == Stop::Kind::none);
    // Byte n = bits 8n+7..8n, word n = bits 16n+15..16n (MI300 ISA SDWA SEL encodings 0..6).
    auto pick = [](u32 v, int sel, bool sx) -> u32 {
      u32 lo, bits;
      if (sel < 4) { lo = 8 * sel; bits = 8; } else if (sel < 6) { lo = 16 * (sel - 4); bits = 16; } else return v;
      u32 x = (v >> lo) & ((1u << bits) - 1);
      if (sx && ((x >> (bits - 1)) & 1)) x |= ~((1u << bits) - 1);
      return x;
    };
    for (unsigned l = 0; l < 64; ++l) {
      const u32 r = pick(a + l, s0, sext0) + pick(b ^ l, s1, false);
      u32 want;
      if (l == 63) want = old;
      else if (ds == 6) want = r;
      else {
        const u32 lo = ds < 4 ? 8 * ds : 16 * (ds - 4), bits = ds < 4 ? 8 : 16;
        const u32 field = r & ((1u << bits) - 1);
        const u32 mask = ((1u << bits) - 1) << lo;
        if (un == 2) want = (old & ~mask) | (field << lo);
        else if (un == 1 && ((field >> (bits - 1)) & 1)) want = (field << lo) | (lo + bits < 32 ? ~0u << (lo + bits) : 0u);
        else want = field << lo;
      }
      RC_ASSERT(w.row(2)[l] == want);
    }
  });
  EXPECT_TRUE(ok);
}

TEST(SemLane, SdwaVopcWritesMask) {
  auto s = wrapped("v_cmp_eq_u32_sdwa vcc, v0, v1 src0_sel:BYTE_1 src1_sel:WORD_0", base_cmp_eq);
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  u64 want = 0;
  for (unsigned l = 0; l < 64; ++l) {
    w.row(0)[l] = (l << 8) | 0xff0000ffu;
    w.row(1)[l] = (l % 3 == 0 ? l : l + 1) | 0xabcd0000u;
    if (l % 3 == 0) want |= u64{1} << l;
  }
  ASSERT_EQ(s->run().kind, Stop::Kind::none);
  EXPECT_EQ(w.vcc(), want);
}

// ---- VOP cross-lane and DS shuffles ----------------------------------------------------------------------------

TEST(SemLane, ReadlaneWritelaneReadfirstlane) {
  auto s = test::make_snippet(
      "v_readlane_b32 s0, v0, s10\n"
      "v_readlane_b32 s1, v0, 64\n"   // lane 64 mod 64 = 0
      "v_writelane_b32 v1, s11, s12\n"
      "v_readfirstlane_b32 s2, v0\n");
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  fill(w, 0, 300);
  fill(w, 1, 0);
  w.s[10] = 64 + 17;
  w.s[11] = 0xdead;
  w.s[12] = 42;
  w.set_exec(u64{0xf0} << 32);  // first active lane 36; readlane/writelane ignore EXEC
  ASSERT_EQ(s->run().kind, Stop::Kind::none);
  EXPECT_EQ(w.s[0], 317u);
  EXPECT_EQ(w.s[1], 300u);
  EXPECT_EQ(w.row(1)[42], 0xdeadu);
  EXPECT_EQ(w.s[2], 336u);
  auto z = test::make_snippet("v_readfirstlane_b32 s2, v0");
  ASSERT_TRUE(z);
  fill(z->wave(), 0, 300);
  z->wave().set_exec(0);  // no active lane: lane 0 (MI300 ISA V_READFIRSTLANE_B32)
  ASSERT_EQ(z->run().kind, Stop::Kind::none);
  EXPECT_EQ(z->wave().s[2], 300u);
}

TEST(SemLane, Mbcnt) {
  const bool ok = rc::check("v_mbcnt_lo/hi count the mask bits below each lane", [] {
    const u64 mask = *rc::gen::arbitrary<u64>();
    const u32 add = *rc::gen::arbitrary<u32>();
    auto s = test::make_snippet("v_mbcnt_lo_u32_b32 v1, s0, v2\nv_mbcnt_hi_u32_b32 v1, s1, v1");
    RC_ASSERT(s != nullptr);
    Wave& w = s->wave();
    w.s[0] = static_cast<u32>(mask);
    w.s[1] = static_cast<u32>(mask >> 32);
    for (unsigned l = 0; l < 64; ++l) w.row(2)[l] = add;
    RC_ASSERT(s->run().kind == Stop::Kind::none);
    for (unsigned l = 0; l < 64; ++l) {
      u32 n = 0;
      for (unsigned i = 0; i < l; ++i) n += (mask >> i) & 1;
      RC_ASSERT(w.row(1)[l] == n + add);
    }
  });
  EXPECT_TRUE(ok);
}

TEST(SemLane, BpermuteAndPermute) {
  const bool ok = rc::check("ds_bpermute/ds_permute", [] {
    u32 addr[64];
    for (auto& a : addr) a = *rc::gen::arbitrary<u32>();
    const u64 exec = *rc::gen::arbitrary<u64>();
    auto s = test::make_snippet("ds_bpermute_b32 v2, v0, v1 offset:8\nds_permute_b32 v3, v0, v1 offset:8\ns_waitcnt lgkmcnt(0)");
    RC_ASSERT(s != nullptr);
    Wave& w = s->wave();
    for (unsigned l = 0; l < 64; ++l) { w.row(0)[l] = addr[l]; w.row(1)[l] = 7000 + l; w.row(2)[l] = 1; w.row(3)[l] = 2; }
    w.set_exec(exec);
    RC_ASSERT(s->run().kind == Stop::Kind::none);
    u32 fwd[64] = {};
    for (unsigned i = 0; i < 64; ++i)  // ascending: the highest source lane wins
      if ((exec >> i) & 1) fwd[((addr[i] + 8) / 4) % 64] = 7000 + i;
    for (unsigned l = 0; l < 64; ++l) {
      const unsigned src = ((addr[l] + 8) / 4) % 64;
      const u32 b = ((exec >> src) & 1) ? 7000 + src : 0;
      RC_ASSERT(w.row(2)[l] == (((exec >> l) & 1) ? b : 1u));
      RC_ASSERT(w.row(3)[l] == (((exec >> l) & 1) ? fwd[l] : 2u));
    }
  });
  EXPECT_TRUE(ok);
}

TEST(SemLane, SwizzleModes) {
  struct Case { const char* offset; int (*src)(int); };
  const Case cases[] = {
      // QUAD_PERM [2,3,0,1]: offset[15] set, lane j of a quad reads lane sel[j] of the quad.
      {"swizzle(QUAD_PERM,2,3,0,1)", [](int l) { const int sel[4] = {2, 3, 0, 1}; return (l & ~3) | sel[l & 3]; }},
      // SWAP,16: exchange the two 16-lane halves of each 32-lane group.
      {"swizzle(SWAP,16)", [](int l) { return l ^ 16; }},
      // REVERSE,8: reverse each group of 8.
      {"swizzle(REVERSE,8)", [](int l) { return (l & ~7) | (7 - (l & 7)); }},
      // BROADCAST,4,1: lane 1 of each group of 4.
      {"swizzle(BROADCAST,4,1)", [](int l) { return (l & ~3) | 1; }},
      // BITMASK_PERM "01pip": and_mask 0b00110 ... written from the bit pattern: bit4 = 0, bit3 = 1, bit2 = p,
      // bit1 = i (inverted), bit0 = p.
      {"swizzle(BITMASK_PERM,\"01pip\")", [](int l) { return (l & 0x20) | 0x8 | (l & 0x4) | ((l & 0x2) ^ 0x2) | (l & 1); }},
  };
  for (const Case& c : cases) {
    auto s = test::make_snippet(std::string("ds_swizzle_b32 v1, v0 offset:") + c.offset + "\ns_waitcnt lgkmcnt(0)");
    ASSERT_TRUE(s) << c.offset;
    Wave& w = s->wave();
    fill(w, 0, 100);
    const u64 exec = ~(u64{1} << 5);
    w.set_exec(exec);
    ASSERT_EQ(s->run().kind, Stop::Kind::none) << c.offset;
    for (int l = 0; l < 64; ++l) {
      if (l == 5) continue;
      const int sl = c.src(l);
      EXPECT_EQ(w.row(1)[l], sl == 5 ? 0u : 100u + sl) << c.offset << " lane " << l;
    }
  }
}

TEST(SemLane, Permlane16And32SwapOnGfx950) {
  auto s = test::make_snippet("v_permlane16_swap_b32 v0, v1\nv_permlane32_swap_b32 v2, v3", Target::gfx950);
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  for (int r = 0; r < 4; ++r) { fill(w, r, 1000 * (r + 1)); }
  ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
  for (int l = 0; l < 64; ++l) {
    const int row = l / 16;
    // permlane16: vdst rows 1,3 <-> src0 rows 0,2.
    EXPECT_EQ(w.row(0)[l], row % 2 ? 2000u + l - 16 : 1000u + l) << l;
    EXPECT_EQ(w.row(1)[l], row % 2 ? 2000u + l : 1000u + l + 16) << l;
    // permlane32: vdst rows 2,3 <-> src0 rows 0,1.
    EXPECT_EQ(w.row(2)[l], row >= 2 ? 4000u + l - 32 : 3000u + l) << l;
    EXPECT_EQ(w.row(3)[l], row >= 2 ? 4000u + l : 3000u + l + 32) << l;
  }
}

}  // namespace
