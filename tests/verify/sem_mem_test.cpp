// Tests of the emulator's memory instruction semantics (sem_mem.hpp): loads, stores and atomics of every family
// against host-side models, buffer range checking against a table derived from the ISA text, faults, the flat LDS
// aperture, private (scratch) memory in its swizzled layout through scratch_*, flat and MUBUF with the scratch V#,
// and when a load's destination is written (eager vs adversarial completion).
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "asmevo/emu/sem_mem.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;

using test::run_body;

void set64(Wave& w, unsigned row, unsigned lane, std::uint64_t v) {
  w.v[row][lane] = static_cast<std::uint32_t>(v);
  w.v[row + 1][lane] = static_cast<std::uint32_t>(v >> 32);
}

/// Byte i of the known pattern: a hash of i, so that no two offsets within a region repeat a 4-byte window by
/// construction and an access at a wrong address does not read the expected bytes by accident.
std::uint8_t byte_at(std::size_t i) {
  std::uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;  // splitmix64 finaliser (Steele, Lea, Flood 2014)
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return static_cast<std::uint8_t>(x ^ (x >> 31));
}

/// A region filled with the known byte pattern (byte_at).
Region& patterned(test::Snippet& s, const char* name, std::size_t size) {
  Region& r = s.machine.memory.region(s.machine.memory.map(name, size, true));
  for (std::size_t i = 0; i < size; ++i) r.bytes[i] = static_cast<std::byte>(byte_at(i));
  return r;
}

std::uint32_t le32(const std::vector<std::byte>& b, std::size_t at) {
  std::uint32_t x;
  std::memcpy(&x, b.data() + at, 4);
  return x;
}
std::uint64_t le64(const std::vector<std::byte>& b, std::size_t at) {
  std::uint64_t x;
  std::memcpy(&x, b.data() + at, 8);
  return x;
}
std::uint32_t pattern32(std::size_t at) {
  return byte_at(at) | byte_at(at + 1) << 8 | byte_at(at + 2) << 16 | static_cast<std::uint32_t>(byte_at(at + 3)) << 24;
}

/// The sc0/glc spelling of "return the pre-op value" per target.
const char* rtn(Target t) { return t == Target::gfx90a ? "glc" : "sc0"; }

class MemTargets : public ::testing::TestWithParam<Target> {};
INSTANTIATE_TEST_SUITE_P(Targets, MemTargets, ::testing::Values(Target::gfx90a, Target::gfx942, Target::gfx950),
                         [](const auto& i) { return std::string(to_string(i.param)); });

// ---- global loads -------------------------------------------------------------------------------------------

TEST_P(MemTargets, GlobalLoadsOfEveryWidthAndSign) {
  auto s = test::make_snippet(
      "\tglobal_load_ubyte v2, v[0:1], off offset:1\n"
      "\tglobal_load_sbyte v3, v[0:1], off offset:1\n"
      "\tglobal_load_ushort v4, v[0:1], off offset:2\n"
      "\tglobal_load_sshort v5, v[0:1], off offset:2\n"
      "\tglobal_load_dword v6, v[0:1], off offset:-4\n"
      "\tglobal_load_dwordx2 v[8:9], v[0:1], off offset:8\n"
      "\tglobal_load_dwordx3 v[10:12], v[0:1], off\n"
      "\tglobal_load_dwordx4 v[16:19], v[0:1], off offset:4095\n"
      "\tglobal_load_dword v20, v21, s[4:5] offset:-8\n",
      GetParam());
  ASSERT_TRUE(s);
  Region& r = patterned(*s, "arg0", 8192);
  Wave& w = s->wave();
  w.set_exec(0xffff'ffff'ffff'fff7ull);  // lane 3 off: its registers must stay untouched
  for (unsigned l = 0; l < 64; ++l) {
    set64(w, 0, l, r.base + 16 + 64 * l);
    w.v[21][l] = 100 + 8 * l;
    for (unsigned k = 2; k < 21; ++k) w.v[k][l] = 0xdeadbeef;
  }
  w.set_s64(4, r.base + 40);
  const Stop& st = run_body(*s);
  ASSERT_EQ(st.kind, Stop::Kind::none) << st.message;
  for (unsigned l = 0; l < 64; ++l) {
    if (l == 3) {
      EXPECT_EQ(w.v[6][l], 0xdeadbeefu);
      continue;
    }
    const std::size_t a = 16 + 64 * l;
    EXPECT_EQ(w.v[2][l], byte_at(a + 1));
    EXPECT_EQ(w.v[3][l], static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(byte_at(a + 1)))));
    const std::uint32_t h = byte_at(a + 2) | byte_at(a + 3) << 8;
    EXPECT_EQ(w.v[4][l], h);
    EXPECT_EQ(w.v[5][l], static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(h))));
    EXPECT_EQ(w.v[6][l], pattern32(a - 4));
    EXPECT_EQ(w.v[8][l], pattern32(a + 8));
    EXPECT_EQ(w.v[9][l], pattern32(a + 12));
    for (unsigned k = 0; k < 3; ++k) EXPECT_EQ(w.v[10 + k][l], pattern32(a + 4 * k));
    for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(w.v[16 + k][l], pattern32(a + 4095 + 4 * k)) << "lane " << l;
    EXPECT_EQ(w.v[20][l], pattern32(40 + 100 + 8 * l - 8));
  }
}

TEST_P(MemTargets, D16LoadsKeepTheOtherHalf) {
  auto s = test::make_snippet(
      "\tglobal_load_short_d16 v2, v[0:1], off\n"
      "\tglobal_load_short_d16_hi v3, v[0:1], off\n"
      "\tglobal_load_ubyte_d16 v4, v[0:1], off offset:1\n"
      "\tglobal_load_sbyte_d16_hi v5, v[0:1], off offset:1\n"
      "\tglobal_load_sbyte_d16 v6, v[0:1], off offset:1\n",
      GetParam());
  ASSERT_TRUE(s);
  Region& r = patterned(*s, "arg0", 4096);
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) {
    set64(w, 0, l, r.base + 2 * l);
    for (unsigned k = 2; k <= 6; ++k) w.v[k][l] = 0x1234abcdu;
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const std::uint32_t h = byte_at(2 * l) | byte_at(2 * l + 1) << 8;
    const std::uint32_t b = byte_at(2 * l + 1);
    const std::uint32_t sb16 = static_cast<std::uint16_t>(static_cast<std::int16_t>(static_cast<std::int8_t>(b)));
    EXPECT_EQ(w.v[2][l], 0x12340000u | h);
    EXPECT_EQ(w.v[3][l], (h << 16) | 0xabcdu);
    EXPECT_EQ(w.v[4][l], 0x12340000u | b);
    EXPECT_EQ(w.v[5][l], (sb16 << 16) | 0xabcdu);
    EXPECT_EQ(w.v[6][l], 0x12340000u | sb16);
  }
}

// ---- global stores ------------------------------------------------------------------------------------------

TEST_P(MemTargets, GlobalStoresWriteTheSelectedBits) {
  auto s = test::make_snippet(
      "\tglobal_store_byte v[0:1], v2, off\n"
      "\tglobal_store_byte_d16_hi v[0:1], v2, off offset:1\n"
      "\tglobal_store_short v[0:1], v2, off offset:2\n"
      "\tglobal_store_short_d16_hi v[0:1], v2, off offset:4\n"
      "\tglobal_store_dwordx4 v[0:1], v[4:7], off offset:6\n"
      "\tglobal_store_dword v8, v2, s[10:11] offset:22\n",
      GetParam());
  ASSERT_TRUE(s);
  Region& r = s->machine.memory.region(s->machine.memory.map("out", 64 * 32, true));
  Wave& w = s->wave();
  w.set_exec(~0ull & ~(1ull << 40));
  for (unsigned l = 0; l < 64; ++l) {
    set64(w, 0, l, r.base + 32 * l);
    w.v[2][l] = 0xa1b2c3d4u + l;
    for (unsigned k = 0; k < 4; ++k) w.v[4 + k][l] = 0x01010101u * (k + 1) + l;
    w.v[8][l] = 32 * l;
  }
  w.set_s64(10, r.base);
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const std::size_t a = 32 * l;
    if (l == 40) {
      for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(r.bytes[a + i], std::byte{0});
      continue;
    }
    const std::uint32_t d = 0xa1b2c3d4u + l;
    EXPECT_EQ(static_cast<std::uint32_t>(r.bytes[a]), d & 0xff);
    EXPECT_EQ(static_cast<std::uint32_t>(r.bytes[a + 1]), (d >> 16) & 0xff);
    EXPECT_EQ(static_cast<std::uint32_t>(r.bytes[a + 2]) | static_cast<std::uint32_t>(r.bytes[a + 3]) << 8, d & 0xffff);
    EXPECT_EQ(static_cast<std::uint32_t>(r.bytes[a + 4]) | static_cast<std::uint32_t>(r.bytes[a + 5]) << 8, d >> 16);
    for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(le32(r.bytes, a + 6 + 4 * k), 0x01010101u * (k + 1) + l);
    EXPECT_EQ(le32(r.bytes, a + 22), d);
  }
}

// ---- global atomics -----------------------------------------------------------------------------------------

TEST_P(MemTargets, GlobalAtomicsMatchASequentialModel) {
  const Target t = GetParam();
  const std::string R = rtn(t);
  auto s = test::make_snippet(
      "\tglobal_atomic_add v10, v[0:1], v2, off " + R + "\n" +      // per-lane word 0: returns old
      "\tglobal_atomic_sub v[0:1], v2, off offset:4\n" +              // word 1, no return
      "\tglobal_atomic_cmpswap v11, v[0:1], v[2:3], off offset:8 " + R + "\n" +  // word 2: src v2, cmp v3
      "\tglobal_atomic_inc v12, v[0:1], v4, off offset:12 " + R + "\n" +
      "\tglobal_atomic_dec v13, v[0:1], v4, off offset:16 " + R + "\n" +
      "\tglobal_atomic_smax v14, v[0:1], v5, off offset:20 " + R + "\n" +
      "\tglobal_atomic_umin v15, v[0:1], v5, off offset:24 " + R + "\n" +
      "\tglobal_atomic_cmpswap_x2 v[16:17], v[0:1], v[20:23], off offset:32 " + R + "\n" +
      "\tglobal_atomic_add v[6:7], v2, off offset:40\n",            // every lane adds to one shared word
      t);
  ASSERT_TRUE(s);
  Region& r = s->machine.memory.region(s->machine.memory.map("buf", 64 * 64, true));
  Wave& w = s->wave();
  std::vector<std::uint32_t> init(64 * 16);
  for (std::size_t i = 0; i < init.size(); ++i) init[i] = static_cast<std::uint32_t>(i * 2654435761u) % 97;
  std::memcpy(r.bytes.data(), init.data(), init.size() * 4);
  for (unsigned l = 0; l < 64; ++l) {
    set64(w, 0, l, r.base + 64 * l);
    set64(w, 6, l, r.base + 20);  // + offset:40 = word 15 of lane 0's block
    w.v[2][l] = 3 * l + 1;
    w.v[3][l] = (l % 2) ? init[16 * l + 2] : 12345;  // odd lanes compare equal
    w.v[4][l] = 50;
    w.v[5][l] = static_cast<std::uint32_t>(static_cast<std::int32_t>(l) - 32);
    const std::uint64_t old64 = init[16 * l + 8] | static_cast<std::uint64_t>(init[16 * l + 9]) << 32;
    set64(w, 20, l, 0x1111222233334444ull + l);               // src
    set64(w, 22, l, (l % 3) ? old64 : ~old64);                // cmp
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  std::uint32_t shared = init[15];
  for (unsigned l = 0; l < 64; ++l) {
    const std::uint32_t* o = &init[16 * l];
    const std::size_t b = 64 * l;
    EXPECT_EQ(w.v[10][l], o[0]);
    EXPECT_EQ(le32(r.bytes, b), o[0] + 3 * l + 1);
    EXPECT_EQ(le32(r.bytes, b + 4), o[1] - (3 * l + 1));
    EXPECT_EQ(w.v[11][l], o[2]);
    EXPECT_EQ(le32(r.bytes, b + 8), (l % 2) ? 3 * l + 1 : o[2]);
    EXPECT_EQ(w.v[12][l], o[3]);
    EXPECT_EQ(le32(r.bytes, b + 12), o[3] >= 50 ? 0u : o[3] + 1);
    EXPECT_EQ(w.v[13][l], o[4]);
    EXPECT_EQ(le32(r.bytes, b + 16), (o[4] == 0 || o[4] > 50) ? 50u : o[4] - 1);
    const std::int32_t sv = static_cast<std::int32_t>(l) - 32;
    EXPECT_EQ(le32(r.bytes, b + 20), static_cast<std::uint32_t>(std::max<std::int32_t>(static_cast<std::int32_t>(o[5]), sv)));
    EXPECT_EQ(le32(r.bytes, b + 24), std::min<std::uint32_t>(o[6], static_cast<std::uint32_t>(sv)));
    const std::uint64_t old64 = o[8] | static_cast<std::uint64_t>(o[9]) << 32;
    EXPECT_EQ(w.v[16][l] | static_cast<std::uint64_t>(w.v[17][l]) << 32, old64);
    EXPECT_EQ(le64(r.bytes, b + 32), (l % 3) ? 0x1111222233334444ull + l : old64);
    shared += 3 * l + 1;
  }
  // Word 15 of block 0 got every lane's add.
  EXPECT_EQ(le32(r.bytes, 60), shared);
}

TEST_P(MemTargets, GlobalFloatAtomicsRoundToNearestEven) {
  const Target t = GetParam();
  auto s = test::make_snippet(
      "\tglobal_atomic_add_f32 v[0:1], v2, off\n"
      "\tglobal_atomic_pk_add_f16 v[0:1], v3, off offset:4\n"
      "\tglobal_atomic_add_f64 v[0:1], v[4:5], off offset:8\n"
      "\tglobal_atomic_max_f64 v[0:1], v[4:5], off offset:16\n",
      t);
  ASSERT_TRUE(s);
  Region& r = s->machine.memory.region(s->machine.memory.map("buf", 64 * 32, true));
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) {
    set64(w, 0, l, r.base + 32 * l);
    const float a = 1.0f + static_cast<float>(l) / 3.0f, b = 1e-3f * static_cast<float>(l) - 0.01f;
    std::memcpy(&r.bytes[32 * l], &a, 4);
    w.v[2][l] = std::bit_cast<std::uint32_t>(b);
    const std::uint32_t halves = 0x3c00u | 0x4000u << 16;  // 1.0h, 2.0h
    std::memcpy(&r.bytes[32 * l + 4], &halves, 4);
    w.v[3][l] = 0x3555u | 0x3c01u << 16;  // 0.333h, 1.0009765625h
    const double c = 0.1 * l, d = -0.7 + 0.05 * l;
    std::memcpy(&r.bytes[32 * l + 8], &c, 8);
    std::memcpy(&r.bytes[32 * l + 16], &c, 8);
    set64(w, 4, l, std::bit_cast<std::uint64_t>(d));
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const float a = 1.0f + static_cast<float>(l) / 3.0f, b = 1e-3f * static_cast<float>(l) - 0.01f;
    float got;
    std::memcpy(&got, &r.bytes[32 * l], 4);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(a + b));
    // 1.0 + 0.333251953125 = 1.333251953125 -> f16 RNE: 1.3330078125 (0x3d55); 2.0 + 1.0009765625 = 3.0009765625
    // -> ulp at [2,4) is 2^-9, so 3.0009765625 is a tie between 3.0 (0x4200) and 3.001953125: even -> 0x4200.
    EXPECT_EQ(le32(r.bytes, 32 * l + 4), 0x3d55u | 0x4200u << 16);
    const double c = 0.1 * l, d = -0.7 + 0.05 * l;
    EXPECT_EQ(le64(r.bytes, 32 * l + 8), std::bit_cast<std::uint64_t>(c + d));
    EXPECT_EQ(le64(r.bytes, 32 * l + 16), std::bit_cast<std::uint64_t>(c > d ? c : d));
  }
}

// ---- faults -------------------------------------------------------------------------------------------------

TEST_P(MemTargets, StorePastTheEndFaultsNamingLaneAndAllocation) {
  auto s = test::make_snippet("\tglobal_store_dword v[0:1], v2, off", GetParam());
  ASSERT_TRUE(s);
  s->machine.memory.map("arg0", 256, true);
  Region& r = s->machine.memory.region(s->machine.memory.map("arg2", 4096, true));
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) set64(w, 0, l, r.base + 4 * l);
  set64(w, 0, 17, r.base + 4096);
  const Stop& st = run_body(*s);
  ASSERT_EQ(st.kind, Stop::Kind::fault);
  EXPECT_EQ(st.lane, 17);
  EXPECT_EQ(st.address, r.base + 4096);
  EXPECT_NE(st.message.find("global_store_dword: lane 17 write of 4 byte(s)"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("past the end of arg2"), std::string::npos) << st.message;
}

TEST_P(MemTargets, LoadFromAGuardOrNowhereFaults) {
  auto s = test::make_snippet("\tglobal_load_dword v2, v[0:1], off", GetParam());
  ASSERT_TRUE(s);
  Region& r = s->machine.memory.region(s->machine.memory.map("arg0", 256, true));
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) set64(w, 0, l, r.base);
  set64(w, 0, 5, r.base - 8);
  const Stop& st = run_body(*s);
  ASSERT_EQ(st.kind, Stop::Kind::fault);
  EXPECT_EQ(st.lane, 5);
  EXPECT_NE(st.message.find("guard 8 byte(s) before arg0"), std::string::npos) << st.message;

  auto s2 = test::make_snippet("\tglobal_load_dword v2, v[0:1], off", GetParam());
  ASSERT_TRUE(s2);
  for (unsigned l = 0; l < 64; ++l) set64(s2->wave(), 0, l, 0x1234);
  const Stop& st2 = run_body(*s2);
  ASSERT_EQ(st2.kind, Stop::Kind::fault);
  EXPECT_EQ(st2.lane, 0);
  EXPECT_NE(st2.message.find("outside every allocation"), std::string::npos) << st2.message;
}

// ---- buffer range checking ----------------------------------------------------------------------------------

/// A raw buffer resource (stride 0) over `base` with `num_records` bytes, 32-bit float format.
void set_vsharp(Wave& w, unsigned sgpr, std::uint64_t base, std::uint32_t stride, std::uint32_t num_records) {
  w.s[sgpr] = static_cast<std::uint32_t>(base);
  w.s[sgpr + 1] = (static_cast<std::uint32_t>(base >> 32) & 0xffffu) | stride << 16;
  w.s[sgpr + 2] = num_records;
  // dst_sel x..w = R,G,B,A (4,5,6,7), num format float (7), data format 32 (4): what LLVM's buffer descriptors use.
  w.s[sgpr + 3] = 4u | 5u << 3 | 6u << 6 | 7u << 9 | 7u << 12 | 4u << 15;
}

TEST_P(MemTargets, RawBufferRangeCheckFollowsTheIsaTable) {
  // MI300 ISA §9.1.5 "Range Checking", raw buffer (idxen = 0): out of range iff inst_offset + voffset >=
  // num_records (soffset excluded); out-of-range reads return 0, out-of-range writes are dropped; dwordx2..x4 are
  // checked per dword. num_records = 20, soffset = 8, inst_offset 0, voffset = 4 * lane: hand-derived table —
  // lanes 0..4 (voffset 0..16) in range, lanes >= 5 read 0. dwordx4 with voffset = 4 * lane: component k in range
  // iff 4*lane + 4*k < 20, so lane 2 gets components 0..2 and lane 3 gets 0..1. (A dword that straddles
  // num_records stops the run: RawBufferDwordStraddlingNumRecordsStops.)
  auto s = test::make_snippet(
      "\tbuffer_load_dword v2, v1, s[8:11], s12 offen\n"
      "\tbuffer_load_dwordx4 v[4:7], v1, s[8:11], s12 offen\n"
      "\tbuffer_load_ubyte v3, v1, s[8:11], s12 offen offset:2\n"
      "\tbuffer_store_dword v20, v1, s[16:19], 0 offen\n",
      GetParam());
  ASSERT_TRUE(s);
  Region& r = patterned(*s, "arg0", 4096);
  Region& out = s->machine.memory.region(s->machine.memory.map("out", 4096, true));
  Wave& w = s->wave();
  set_vsharp(w, 8, r.base, 0, 20);
  w.s[12] = 8;
  set_vsharp(w, 16, out.base, 0, 40);  // stores: lanes 0..9 in range
  for (unsigned l = 0; l < 64; ++l) {
    w.v[1][l] = 4 * l;
    w.v[20][l] = 0xc0de0000u + l;
    w.v[2][l] = w.v[3][l] = 0xdeadbeef;
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(w.v[2][l], l <= 4 ? pattern32(8 + 4 * l) : 0u) << "lane " << l;
    for (unsigned k = 0; k < 4; ++k)
      EXPECT_EQ(w.v[4 + k][l], 4 * l + 4 * k < 20 ? pattern32(8 + 4 * l + 4 * k) : 0u) << "lane " << l << " dword " << k;
    EXPECT_EQ(w.v[3][l], 4 * l + 2 < 20 ? byte_at(8 + 4 * l + 2) : 0u) << "lane " << l;
    EXPECT_EQ(le32(out.bytes, 4 * l), l < 10 ? 0xc0de0000u + l : 0u) << "lane " << l;
  }
}

TEST_P(MemTargets, RawBufferDwordStraddlingNumRecordsStops) {
  // num_records = 18: lane 4's dword at voffset 16 starts in range and ends past it. What hardware does with such a
  // dword is chipset-dependent, so the run stops as unsupported, naming the lane and the bytes -- for a load, a
  // store and a dwordx2 whose second dword straddles; a ushort at 16 (bytes 16..17) is wholly in range and runs.
  for (const char* text : {"\tbuffer_load_dword v2, v1, s[8:11], 0 offen", "\tbuffer_store_dword v2, v1, s[8:11], 0 offen",
                           "\tbuffer_load_dwordx2 v[2:3], v1, s[8:11], 0 offen offset:4"}) {
    auto s = test::make_snippet(text, GetParam());
    ASSERT_TRUE(s);
    Region& r = patterned(*s, "arg0", 4096);
    Wave& w = s->wave();
    set_vsharp(w, 8, r.base, 0, 18);
    for (unsigned l = 0; l < 64; ++l) w.v[1][l] = l < 5 ? 4 * l : 0;  // lanes 5.. repeat lane 0's offset
    const Stop& st = run_body(*s);
    ASSERT_EQ(st.kind, Stop::Kind::unsupported) << text << ": " << st.message;
    // dwordx2 at offset 4 + 4 * lane: lane 2's second dword (16..19) is the first to straddle.
    EXPECT_EQ(st.lane, std::string(text).find("offset:4") == std::string::npos ? 4 : 2) << st.message;
    EXPECT_NE(st.message.find("num_records is 18"), std::string::npos) << st.message;
  }
  auto s = test::make_snippet("\tbuffer_load_ushort v2, v1, s[8:11], 0 offen", GetParam());
  ASSERT_TRUE(s);
  Region& r = patterned(*s, "arg0", 4096);
  Wave& w = s->wave();
  set_vsharp(w, 8, r.base, 0, 18);
  for (unsigned l = 0; l < 64; ++l) w.v[1][l] = 4 * l;
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  EXPECT_EQ(w.v[2][4], pattern32(16) & 0xffffu);
  EXPECT_EQ(w.v[2][5], 0u);
}

TEST_P(MemTargets, AddTidReadsItsStrideHighBitsFromTheDataFormat) {
  // ADD_TID_ENABLE without swizzle: index = lane id, and an untyped access takes DATA_FORMAT as STRIDE[17:14] (the
  // gfx9 context-save handler, amdkfd cwsr_trap_handler_gfx9.asm, zeroes it for that reason). word1 stride 4,
  // DATA_FORMAT 1: stride = 4 + (1 << 14), so lane l reads base + l * 16388; num_records 64 bounds the index.
  auto s = test::make_snippet("\tbuffer_load_dword v2, off, s[8:11], 0", GetParam());
  ASSERT_TRUE(s);
  Region& r = patterned(*s, "arg0", 64 * 16388 + 64);
  Wave& w = s->wave();
  set_vsharp(w, 8, r.base, 4, 64);
  w.s[11] = (w.s[11] & ~(15u << 15)) | 1u << 15 | 1u << 23;  // DATA_FORMAT 1, ADD_TID_ENABLE
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(w.v[2][l], pattern32(16388 * l)) << "lane " << l;
}

TEST_P(MemTargets, StructuredBufferChecksTheIndex) {
  // Structured buffer (idxen = 1, stride != 0): out of range iff index >= num_records, the whole lane; address =
  // base + soffset + inst_offset + index * stride + voffset (MI300 ISA §9.1.5).
  auto s = test::make_snippet("\tbuffer_load_dwordx2 v[4:5], v[2:3], s[8:11], 0 idxen offen offset:4", GetParam());
  ASSERT_TRUE(s);
  Region& r = patterned(*s, "arg0", 4096);
  Wave& w = s->wave();
  set_vsharp(w, 8, r.base, 24, 5);
  for (unsigned l = 0; l < 64; ++l) {
    w.v[2][l] = l / 4;  // index
    w.v[3][l] = 4 * (l % 4);
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const std::size_t a = 4 + 24 * (l / 4) + 4 * (l % 4);
    EXPECT_EQ(w.v[4][l], l / 4 < 5 ? pattern32(a) : 0u) << "lane " << l;
    EXPECT_EQ(w.v[5][l], l / 4 < 5 ? pattern32(a + 4) : 0u) << "lane " << l;
  }
}

TEST_P(MemTargets, InRangeBufferAccessOutsideMemoryFaults) {
  auto s = test::make_snippet("\tbuffer_load_dword v2, v1, s[8:11], 0 offen", GetParam());
  ASSERT_TRUE(s);
  Region& r = s->machine.memory.region(s->machine.memory.map("arg0", 64, true));
  Wave& w = s->wave();
  set_vsharp(w, 8, r.base, 0, 1u << 20);  // num_records claims more than the allocation holds
  for (unsigned l = 0; l < 64; ++l) w.v[1][l] = 4 * l;
  const Stop& st = run_body(*s);
  ASSERT_EQ(st.kind, Stop::Kind::fault);
  EXPECT_EQ(st.lane, 16);
  EXPECT_NE(st.message.find("buffer_load_dword: lane 16 read of 4 byte(s)"), std::string::npos) << st.message;
}

TEST_P(MemTargets, BufferAtomicOutOfRangeIsDroppedAndReturnsZero) {
  const std::string R = rtn(GetParam());
  auto s = test::make_snippet("\tbuffer_atomic_add v2, v1, s[8:11], 0 offen " + R, GetParam());
  ASSERT_TRUE(s);
  Region& r = s->machine.memory.region(s->machine.memory.map("arg0", 1024, true));
  for (unsigned i = 0; i < 256; ++i) std::memcpy(&r.bytes[4 * i], &i, 4);
  Wave& w = s->wave();
  set_vsharp(w, 8, r.base, 0, 128);
  for (unsigned l = 0; l < 64; ++l) {
    w.v[1][l] = 4 * l;
    w.v[2][l] = 1000;
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(w.v[2][l], l < 32 ? l : 0u) << "lane " << l;
    EXPECT_EQ(le32(r.bytes, 4 * l), l < 32 ? l + 1000 : l) << "lane " << l;
  }
}

// ---- LDS ----------------------------------------------------------------------------------------------------

TEST_P(MemTargets, LdsReadsWritesAndPairs) {
  auto s = test::make_snippet(
      "\tds_write_b32 v1, v2 offset:8\n"
      "\tds_write2_b32 v1, v2, v3 offset0:4 offset1:5\n"          // bytes +16 and +20
      "\tds_write2st64_b64 v1, v[4:5], v[6:7] offset0:1 offset1:2\n"  // bytes +512 and +1024
      "\tds_write_b16_d16_hi v1, v2 offset:30\n"
      "\tds_read_b32 v10, v1 offset:8\n"
      "\tds_read2_b32 v[12:13], v1 offset0:4 offset1:5\n"
      "\tds_read2st64_b64 v[16:19], v1 offset0:1 offset1:2\n"
      "\tds_read_u16_d16_hi v11, v1 offset:30\n"
      "\tds_read_i8 v14, v1 offset:31\n",
      GetParam(), 1, 4096 * 64);
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) {
    w.v[1][l] = 2048 * l;
    w.v[2][l] = 0x80110000u + l;
    w.v[3][l] = 0x3300u + l;
    set64(w, 4, l, 0x4444'0000'0000'0000ull + l);
    set64(w, 6, l, 0x6666'0000'0000'0000ull + l);
    w.v[11][l] = 0xffff5555u;
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  const auto& lds = s->group.lds;
  for (unsigned l = 0; l < 64; ++l) {
    const std::size_t a = 2048 * l;
    EXPECT_EQ(le32(lds, a + 8), 0x80110000u + l);
    EXPECT_EQ(w.v[10][l], 0x80110000u + l);
    EXPECT_EQ(w.v[12][l], 0x80110000u + l);
    EXPECT_EQ(w.v[13][l], 0x3300u + l);
    EXPECT_EQ(le64(lds, a + 512), 0x4444'0000'0000'0000ull + l);
    EXPECT_EQ(le64(lds, a + 1024), 0x6666'0000'0000'0000ull + l);
    EXPECT_EQ(w.v[16][l] | static_cast<std::uint64_t>(w.v[17][l]) << 32, 0x4444'0000'0000'0000ull + l);
    EXPECT_EQ(w.v[18][l] | static_cast<std::uint64_t>(w.v[19][l]) << 32, 0x6666'0000'0000'0000ull + l);
    EXPECT_EQ(w.v[11][l], 0x80115555u);  // high half 0x8011 from memory, low half kept
    EXPECT_EQ(w.v[14][l], 0xffffff80u);  // byte 31 = 0x80, sign-extended
  }
}

TEST_P(MemTargets, LdsAtomicsMatchTheIsaPseudoCode) {
  auto s = test::make_snippet(
      "\tds_add_rtn_u32 v10, v1, v2\n"
      "\tds_cmpst_rtn_b32 v11, v1, v3, v2 offset:4\n"  // data0 = cmp, data1 = new value
      "\tds_mskor_rtn_b32 v12, v1, v4, v5 offset:8\n"
      "\tds_rsub_u32 v1, v2 offset:12\n"
      "\tds_max_rtn_i64 v[14:15], v1, v[6:7] offset:16\n"
      "\tds_add_rtn_f32 v13, v1, v8 offset:24\n"
      "\tds_wrxchg2_rtn_b32 v[16:17], v1, v2, v3 offset0:8 offset1:9\n",
      GetParam());
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  auto& lds = s->group.lds;
  std::vector<std::uint32_t> init(64 * 10);
  for (std::size_t i = 0; i < init.size(); ++i) init[i] = static_cast<std::uint32_t>(i * 0x9e3779b9u);
  for (unsigned l = 0; l < 64; ++l) {
    const float f = 0.5f * static_cast<float>(l) - 3.0f;
    init[10 * l + 6] = std::bit_cast<std::uint32_t>(f);
  }
  std::memcpy(lds.data(), init.data(), init.size() * 4);
  for (unsigned l = 0; l < 64; ++l) {
    w.v[1][l] = 40 * l;
    w.v[2][l] = 7 * l + 3;
    w.v[3][l] = (l % 2) ? init[10 * l + 1] : ~init[10 * l + 1];
    w.v[4][l] = 0x0000ffffu;
    w.v[5][l] = 0x00000a0au + l;
    set64(w, 6, l, static_cast<std::uint64_t>(static_cast<std::int64_t>(l) * 0x1'0000'0000ll - 0x20'0000'0000ll));
    w.v[8][l] = std::bit_cast<std::uint32_t>(0.1f * static_cast<float>(l));
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const std::uint32_t* o = &init[10 * l];
    const std::size_t a = 40 * l;
    EXPECT_EQ(w.v[10][l], o[0]);
    EXPECT_EQ(le32(lds, a), o[0] + 7 * l + 3);
    EXPECT_EQ(w.v[11][l], o[1]);
    EXPECT_EQ(le32(lds, a + 4), (l % 2) ? 7 * l + 3 : o[1]);
    EXPECT_EQ(w.v[12][l], o[2]);
    EXPECT_EQ(le32(lds, a + 8), (o[2] & ~0x0000ffffu) | (0x0a0au + l));
    EXPECT_EQ(le32(lds, a + 12), 7 * l + 3 - o[3]);
    const std::int64_t old64 = static_cast<std::int64_t>(o[4] | static_cast<std::uint64_t>(o[5]) << 32);
    const std::int64_t src64 = static_cast<std::int64_t>(l) * 0x1'0000'0000ll - 0x20'0000'0000ll;
    EXPECT_EQ(static_cast<std::int64_t>(w.v[14][l] | static_cast<std::uint64_t>(w.v[15][l]) << 32), old64);
    EXPECT_EQ(static_cast<std::int64_t>(le64(lds, a + 16)), std::max(old64, src64));
    const float f = 0.5f * static_cast<float>(l) - 3.0f;
    EXPECT_EQ(w.v[13][l], std::bit_cast<std::uint32_t>(f));
    EXPECT_EQ(le32(lds, a + 24), std::bit_cast<std::uint32_t>(f + 0.1f * static_cast<float>(l)));
    // wrxchg2: offsets 8 and 9 dwords -> bytes 32 and 36.
    EXPECT_EQ(w.v[16][l], o[8]);
    EXPECT_EQ(w.v[17][l], o[9]);
    EXPECT_EQ(le32(lds, a + 32), 7 * l + 3);
    EXPECT_EQ(le32(lds, a + 36), w.v[3][l]);
  }
}

TEST_P(MemTargets, LdsOutsideTheAllocationFaults) {
  auto s = test::make_snippet("\tds_read_b64 v[2:3], v1 offset:4", GetParam(), 1, 1024);
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) w.v[1][l] = 8 * l;
  w.v[1][9] = 1020 - 4;  // bytes 1020..1027: runs past the 1024-byte allocation
  const Stop& st = run_body(*s);
  ASSERT_EQ(st.kind, Stop::Kind::fault);
  EXPECT_EQ(st.lane, 9);
  EXPECT_EQ(st.address, 1020u);
  EXPECT_NE(st.message.find("ds_read_b64: lane 9 read of 8 byte(s) at LDS offset 0x3fc"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("1024 bytes"), std::string::npos) << st.message;
}

// ---- flat ---------------------------------------------------------------------------------------------------

TEST_P(MemTargets, FlatSelectsLdsByAperture) {
  auto s = test::make_snippet(
      "\tflat_store_dword v[0:1], v2 offset:4\n"
      "\tflat_load_dword v3, v[0:1] offset:4\n"
      "\tflat_atomic_add v4, v[0:1], v2 offset:4 " + std::string(rtn(GetParam())),
      GetParam());
  ASSERT_TRUE(s);
  Region& r = s->machine.memory.region(s->machine.memory.map("arg0", 1024, true));
  Wave& w = s->wave();
  const std::uint64_t lds_base = static_cast<std::uint64_t>(s->machine.shared_aperture_hi) << 32;
  for (unsigned l = 0; l < 64; ++l) {
    set64(w, 0, l, (l % 2 ? lds_base : r.base) + 8 * l);  // odd lanes: LDS, even lanes: global
    w.v[2][l] = 0x5000u + l;
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const auto& mem = l % 2 ? s->group.lds : r.bytes;
    EXPECT_EQ(w.v[3][l], 0x5000u + l);
    EXPECT_EQ(w.v[4][l], 0x5000u + l);
    EXPECT_EQ(le32(mem, 8 * l + 4), 2 * (0x5000u + l));
    const auto& other = l % 2 ? r.bytes : s->group.lds;
    EXPECT_EQ(le32(other, 8 * l + 4), 0u);
  }
}

// ---- private (scratch) memory -------------------------------------------------------------------------------

/// Where lane `lane`'s private byte `off` lives in its wave's slot, written out from AMDGPUUsage "Memory Spaces" /
/// Private: wave base + (off / 4) * 64 * 4 + lane * 4 + off % 4 (independent of the emulator's own helper).
std::uint64_t usage_private(std::uint64_t off, unsigned lane) { return (off / 4) * 256 + lane * 4 + off % 4; }

/// One private slot of `per_lane` bytes per lane for wave 0, with FLAT_SCRATCH pointing at it (what a gfx942 wave
/// starts with, and what a gfx90a prologue computes). Returns the slot's region.
Region& private_slot(test::Snippet& s, std::uint64_t per_lane) {
  map_private_slots(s.machine, per_lane, 1);
  s.group.private_base = {s.machine.private_slots[0]};
  s.wave().set_s64(sc::flat_scratch, s.machine.private_slots[0]);
  for (std::size_t i = 0; i < s.machine.memory.regions().size(); ++i)
    if (s.machine.memory.region(i).base == s.machine.private_slots[0]) return s.machine.memory.region(i);
  ADD_FAILURE() << "no private slot region";
  return s.machine.memory.region(0);
}

/// The runtime's scratch V# written out by hand from ROCR-Runtime InitScratchSRD and the SQ_BUF_RSRC_WORD1/3 bit
/// layout: stride 0, swizzle_enable (word1 bit 31), num_records, dst_sel X,Y,Z,W, num_format UINT (4) bits 14:12,
/// data_format 32 (4) bits 18:15, element_size 1 (4 bytes) bits 20:19, index_stride 3 (64) bits 22:21,
/// add_tid_enable bit 23.
void set_scratch_vsharp(Wave& w, unsigned sgpr, std::uint64_t base, std::uint32_t num_records) {
  w.s[sgpr] = static_cast<std::uint32_t>(base);
  w.s[sgpr + 1] = (static_cast<std::uint32_t>(base >> 32) & 0xffffu) | 0x80000000u;
  w.s[sgpr + 2] = num_records;
  w.s[sgpr + 3] = 0x00ea4facu;  // 4 | 5<<3 | 6<<6 | 7<<9 | 4<<12 | 4<<15 | 1<<19 | 3<<21 | 1<<23
}

TEST(SemMemPrivate, RuntimeVsharpMatchesTheHandWrittenOne) {
  Machine m;
  map_private_slots(m, 100, 3);
  EXPECT_EQ(m.private_size, 100u);
  ASSERT_EQ(m.private_slots.size(), 3u);
  const auto v = private_segment_vsharp(m);
  EXPECT_EQ(v[0], static_cast<std::uint32_t>(m.private_slots[0]));
  EXPECT_EQ(v[1], (static_cast<std::uint32_t>(m.private_slots[0] >> 32) & 0xffffu) | 0x80000000u);
  EXPECT_EQ(v[2], m.private_slots[2] + 100 * 64 - m.private_slots[0]);
  EXPECT_EQ(v[3], 0x00ea4facu);
  Machine r;
  map_private_slots(r, 13, 1);
  EXPECT_EQ(r.private_size, 16u) << "CP rounds the private segment size up to a dword";
}

TEST_P(MemTargets, SwizzledScratchVsharpFollowsTheUsageLayout) {
  // MUBUF through the runtime's scratch V# (element size 4, index stride 64, add_tid, stride 0): MI300 ISA §9.1.5
  // "Swizzled Buffer Addressing" with index = lane, offset = voffset + inst_offset gives
  // (offset / 4) * 4 * 64 + lane * 4 + offset % 4 = the AMDGPUUsage private layout. Hand table for offset =
  // 8 + 4 * (lane % 16) and soffset 32: lane 0 -> 32 + 512; lane 5 -> 32 + 7*256 + 20 = 32 + 1812;
  // lane 63 -> 32 + 17*256 + 252 = 32 + 4604. dwordx2 components lie 256 bytes apart.
  auto s = test::make_snippet(
      "\tbuffer_store_dword v2, v1, s[8:11], s12 offen offset:8\n"
      "\tbuffer_store_dwordx2 v[4:5], v1, s[8:11], s12 offen offset:1024\n"
      "\tbuffer_load_dword v6, v1, s[8:11], s12 offen offset:8\n",
      GetParam());
  ASSERT_TRUE(s);
  Region& r = s->machine.memory.region(s->machine.memory.map("scratch", 64 * 1200, true));
  Wave& w = s->wave();
  set_scratch_vsharp(w, 8, r.base, 0x100000);
  w.s[12] = 32;
  for (unsigned l = 0; l < 64; ++l) {
    w.v[1][l] = 4 * (l % 16);
    w.v[2][l] = 0x1000 + l;
    w.v[4][l] = 0x2000 + l;
    w.v[5][l] = 0x3000 + l;
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  EXPECT_EQ(le32(r.bytes, 32 + 512), 0x1000u);
  EXPECT_EQ(le32(r.bytes, 32 + 1812), 0x1005u);
  EXPECT_EQ(le32(r.bytes, 32 + 4604), 0x103fu);
  for (unsigned l = 0; l < 64; ++l) {
    const std::uint64_t o = 8 + 4 * (l % 16), o2 = 1024 + 4 * (l % 16);
    EXPECT_EQ(le32(r.bytes, 32 + usage_private(o, l)), 0x1000u + l) << "lane " << l;
    EXPECT_EQ(le32(r.bytes, 32 + usage_private(o2, l)), 0x2000u + l) << "lane " << l;
    EXPECT_EQ(le32(r.bytes, 32 + usage_private(o2 + 4, l)), 0x3000u + l) << "lane " << l;
    EXPECT_EQ(w.v[6][l], 0x1000u + l) << "lane " << l;
  }
}

TEST_P(MemTargets, SwizzledStructuredBufferFollowsTheIsaFormula) {
  // Swizzle without add_tid: element_size 8 (field 2), index_stride 16 (field 1), stride 32, idxen + offen, index =
  // lane, offset = 4 * (lane % 8). buffer_offset = ((index/16)*32 + (offset/8)*8) * 16 + (index%16)*8 + offset%8.
  // Hand table: lane 0 -> 0; lane 3 (offset 12) -> (0 + 8)*16 + 24 + 4 = 156; lane 17 (offset 4) ->
  // (32 + 0)*16 + 8 + 4 = 524; lane 63 (offset 28) -> (96 + 24)*16 + 120 + 4 = 2044. Range (stride != 0): out of
  // range iff index >= num_records (60: lanes 60..63 dropped) or offset >= stride.
  auto s = test::make_snippet("\tbuffer_store_dword v4, v[2:3], s[8:11], 0 idxen offen\n", GetParam());
  ASSERT_TRUE(s);
  Region& r = s->machine.memory.region(s->machine.memory.map("swz", 4096, true));
  Wave& w = s->wave();
  w.s[8] = static_cast<std::uint32_t>(r.base);
  w.s[9] = (static_cast<std::uint32_t>(r.base >> 32) & 0xffffu) | 32u << 16 | 0x80000000u;
  w.s[10] = 60;
  w.s[11] = 4u | 5u << 3 | 6u << 6 | 7u << 9 | 4u << 12 | 4u << 15 | 2u << 19 | 1u << 21;
  for (unsigned l = 0; l < 64; ++l) {
    w.v[2][l] = l;
    w.v[3][l] = 4 * (l % 8);
    w.v[4][l] = 0x5000 + l;
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  EXPECT_EQ(le32(r.bytes, 0), 0x5000u);
  EXPECT_EQ(le32(r.bytes, 156), 0x5003u);
  EXPECT_EQ(le32(r.bytes, 524), 0x5011u);
  EXPECT_EQ(le32(r.bytes, 2044), 0u) << "lane 63: index 63 >= num_records 60 is out of range";
  for (unsigned l = 0; l < 60; ++l) {
    const unsigned off = 4 * (l % 8);
    EXPECT_EQ(le32(r.bytes, ((l / 16) * 32 + (off / 8) * 8) * 16 + (l % 16) * 8 + off % 8), 0x5000u + l) << "lane " << l;
  }
}

TEST_P(MemTargets, ScratchFormsAndMubufSeeTheSamePrivateBytes) {
  // Every scratch address form of the target: VADDR (vaddr + offset), SADDR (saddr + offset) and, on gfx940+,
  // SVS (vaddr + saddr + offset) and ST (offset only), each storing to the lane's private offset; the bytes land
  // where AMDGPUUsage's layout puts them, and MUBUF through the scratch V# reads them back identically.
  const bool g940 = GetParam() != Target::gfx90a;
  std::string text =
      "\tscratch_store_dword v1, v2, off offset:4\n"
      "\tscratch_store_dword off, v3, s4 offset:8\n"
      "\tscratch_store_dwordx2 v1, v[6:7], off offset:40\n"
      "\tscratch_store_short v1, v2, off offset:50\n"
      "\tscratch_store_byte_d16_hi v1, v2, off offset:55\n";
  if (g940) text += "\tscratch_store_dword v1, v4, s4 offset:-4\n\tscratch_store_dword off, v5, off offset:32\n";
  text +=
      "\tscratch_load_dword v10, v1, off offset:4\n"
      "\tscratch_load_dwordx2 v[12:13], v1, off offset:40\n"
      "\tscratch_load_short_d16_hi v14, v1, off offset:50\n"
      "\tscratch_load_sbyte v15, v1, off offset:55\n"
      "\tbuffer_load_dword v16, v1, s[8:11], 0 offen offset:4\n"
      "\tbuffer_load_dwordx2 v[18:19], v1, s[8:11], 0 offen offset:40\n";
  auto s = test::make_snippet(text, GetParam());
  ASSERT_TRUE(s);
  Region& r = private_slot(*s, 64);
  Wave& w = s->wave();
  set_scratch_vsharp(w, 8, r.base, 0x100000);
  w.s[4] = 12;  // saddr
  for (unsigned l = 0; l < 64; ++l) {
    w.v[1][l] = 0;
    w.v[2][l] = 0xa1b2c3d4u ^ l;
    w.v[3][l] = 0x3000 + l;
    w.v[4][l] = 0x4000 + l;
    w.v[5][l] = 0x5000 + l;
    w.v[6][l] = 0x6000 + l;
    w.v[7][l] = 0x7000 + l;
    w.v[14][l] = 0x0000beefu;
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(le32(r.bytes, usage_private(4, l)), 0xa1b2c3d4u ^ l) << "lane " << l;
    EXPECT_EQ(le32(r.bytes, usage_private(20, l)), 0x3000u + l) << "lane " << l;  // saddr 12 + 8
    EXPECT_EQ(le32(r.bytes, usage_private(40, l)), 0x6000u + l) << "lane " << l;
    EXPECT_EQ(le32(r.bytes, usage_private(44, l)), 0x7000u + l) << "lane " << l;
    const std::uint32_t v2 = 0xa1b2c3d4u ^ l;
    EXPECT_EQ(static_cast<std::uint8_t>(r.bytes[usage_private(50, l)]), v2 & 0xff) << "lane " << l;
    EXPECT_EQ(static_cast<std::uint8_t>(r.bytes[usage_private(51, l)]), (v2 >> 8) & 0xff) << "lane " << l;
    EXPECT_EQ(static_cast<std::uint8_t>(r.bytes[usage_private(55, l)]), (v2 >> 16) & 0xff) << "lane " << l;
    if (g940) {
      EXPECT_EQ(le32(r.bytes, usage_private(8, l)), 0x4000u + l) << "lane " << l;  // 0 + 12 - 4
      EXPECT_EQ(le32(r.bytes, usage_private(32, l)), 0x5000u + l) << "lane " << l;
    }
    EXPECT_EQ(w.v[10][l], v2) << "lane " << l;
    EXPECT_EQ(w.v[12][l], 0x6000u + l) << "lane " << l;
    EXPECT_EQ(w.v[13][l], 0x7000u + l) << "lane " << l;
    EXPECT_EQ(w.v[14][l], (v2 & 0xffffu) << 16 | 0xbeefu) << "lane " << l;
    EXPECT_EQ(w.v[15][l], static_cast<std::uint32_t>(static_cast<std::int8_t>((v2 >> 16) & 0xff))) << "lane " << l;
    EXPECT_EQ(w.v[16][l], v2) << "lane " << l;
    EXPECT_EQ(w.v[18][l], 0x6000u + l) << "lane " << l;
    EXPECT_EQ(w.v[19][l], 0x7000u + l) << "lane " << l;
  }
}

TEST_P(MemTargets, UnalignedScratchDwordSplitsAtTheDwordBoundary) {
  // A dword at private offset 6: bytes 6,7 are the high half of the lane's dword 1 and bytes 8,9 the low half of its
  // dword 2, 256 bytes further (AMDGPUUsage: private_address % 4 picks the byte within the lane's dword).
  auto s = test::make_snippet("\tscratch_store_dword v1, v2, off offset:6\n\tscratch_load_dword v3, v1, off offset:6\n", GetParam());
  ASSERT_TRUE(s);
  Region& r = private_slot(*s, 16);
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) w.v[2][l] = 0x11223344u + l;
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const std::uint32_t v = 0x11223344u + l;
    EXPECT_EQ(static_cast<std::uint8_t>(r.bytes[256 + 4 * l + 2]), v & 0xff) << "lane " << l;
    EXPECT_EQ(static_cast<std::uint8_t>(r.bytes[256 + 4 * l + 3]), (v >> 8) & 0xff) << "lane " << l;
    EXPECT_EQ(static_cast<std::uint8_t>(r.bytes[512 + 4 * l + 0]), (v >> 16) & 0xff) << "lane " << l;
    EXPECT_EQ(static_cast<std::uint8_t>(r.bytes[512 + 4 * l + 1]), v >> 24) << "lane " << l;
    EXPECT_EQ(w.v[3][l], v) << "lane " << l;
  }
}

TEST_P(MemTargets, FlatToThePrivateApertureUsesTheSameLayout) {
  // flat_* with address {aperture_hi, private offset}: the private aperture (MI300 ISA §10) maps through
  // FLAT_SCRATCH into the same swizzled layout; the aperture's high half is what s_mov_b64 of src_private_base
  // yields in its high dword (LLVM getSegmentAperture). A flat atomic on private memory returns the old value.
  auto s = test::make_snippet(
      "\ts_mov_b64 s[0:1], src_private_base\n"
      "\tv_mov_b32 v1, s1\n"
      "\tflat_store_dwordx2 v[0:1], v[2:3] offset:8\n"
      "\tflat_load_dword v4, v[0:1] offset:12\n"
      "\tflat_atomic_add v5, v[0:1], v6 offset:8 " + std::string(rtn(GetParam())) + "\n",
      GetParam());
  ASSERT_TRUE(s);
  Region& r = private_slot(*s, 32);
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) {
    w.v[0][l] = 4 * (l % 4);
    w.v[2][l] = 0x100 + l;
    w.v[3][l] = 0x200 + l;
    w.v[6][l] = 5;
  }
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const unsigned o = 4 * (l % 4);
    EXPECT_EQ(le32(r.bytes, usage_private(o + 8, l)), 0x105u + l) << "lane " << l;
    EXPECT_EQ(le32(r.bytes, usage_private(o + 12, l)), 0x200u + l) << "lane " << l;
    EXPECT_EQ(w.v[4][l], 0x200u + l) << "lane " << l;
    EXPECT_EQ(w.v[5][l], 0x100u + l) << "lane " << l;
  }
}

TEST_P(MemTargets, PrivateOverrunFaultsNamingLaneOffsetAndSize) {
  {
    auto s = test::make_snippet("\tscratch_load_dword v2, v1, off offset:4\n", GetParam());
    ASSERT_TRUE(s);
    private_slot(*s, 64);
    Wave& w = s->wave();
    w.v[1][7] = 60;  // lane 7 reads private bytes 64..67 of a 64-byte segment
    const Stop& st = run_body(*s);
    ASSERT_EQ(st.kind, Stop::Kind::fault) << st.message;
    EXPECT_EQ(st.lane, 7);
    EXPECT_NE(st.message.find("lane 7"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find("private offset 0x40"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find("64 bytes per lane"), std::string::npos) << st.message;
  }
  {
    auto s = test::make_snippet("\tscratch_store_dword off, v2, s4 offset:-8\n", GetParam());
    ASSERT_TRUE(s);
    private_slot(*s, 64);
    s->wave().s[4] = 4;  // 4 - 8 = -4
    const Stop& st = run_body(*s);
    ASSERT_EQ(st.kind, Stop::Kind::fault) << st.message;
    EXPECT_NE(st.message.find("private offset -0x4"), std::string::npos) << st.message;
  }
  {
    // Through the scratch V#: lane 9 stores at private offset 64 of a 64-byte segment.
    auto s = test::make_snippet("\tbuffer_store_dword v2, v1, s[8:11], 0 offen\n", GetParam());
    ASSERT_TRUE(s);
    Region& r = private_slot(*s, 64);
    Wave& w = s->wave();
    set_scratch_vsharp(w, 8, r.base, 0x100000);
    w.v[1][9] = 64;
    const Stop& st = run_body(*s);
    ASSERT_EQ(st.kind, Stop::Kind::fault) << st.message;
    EXPECT_EQ(st.lane, 9);
    EXPECT_NE(st.message.find("private offset 0x40"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find("64 bytes per lane"), std::string::npos) << st.message;
  }
  {
    // FLAT_SCRATCH not pointing at the wave's slot (a gfx90a prologue that never set it up).
    auto s = test::make_snippet("\tscratch_load_dword v2, v1, off\n", GetParam());
    ASSERT_TRUE(s);
    private_slot(*s, 64);
    s->wave().set_s64(sc::flat_scratch, 0);
    const Stop& st = run_body(*s);
    ASSERT_EQ(st.kind, Stop::Kind::fault) << st.message;
    EXPECT_NE(st.message.find("FLAT_SCRATCH"), std::string::npos) << st.message;
  }
  {
    // No private memory at all.
    auto s = test::make_snippet("\tflat_load_dword v3, v[0:1]", GetParam());
    ASSERT_TRUE(s);
    Wave& w = s->wave();
    for (unsigned l = 0; l < 64; ++l) set64(w, 0, l, static_cast<std::uint64_t>(s->machine.private_aperture_hi) << 32);
    const Stop& st = run_body(*s);
    EXPECT_EQ(st.kind, Stop::Kind::fault) << st.message;
    EXPECT_NE(st.message.find("private segment is 0 bytes"), std::string::npos) << st.message;
  }
}

TEST_P(MemTargets, ScratchCountsVmcntOnly) {
  // Scratch never touches LDS: it is waited for with vmcnt, not lgkmcnt (LLVM SIInsertWaitcnts; the SCRATCH
  // records carry VM_CNT only). Under adversarial completion lgkmcnt(0) leaves the load outstanding, so reading its
  // destination is a waitcnt violation; vmcnt(0) covers it.
  RunOptions adv;
  adv.completion = Completion::adversarial;
  for (const char* wait : {"lgkmcnt(0)", "vmcnt(0)"}) {
    auto s = test::make_snippet(std::string("\tscratch_load_dword v2, v1, off\n\ts_waitcnt ") + wait + "\n\tv_mov_b32 v3, v2\n",
                                GetParam(), 1, 1024, adv);
    ASSERT_TRUE(s);
    private_slot(*s, 16);
    const Stop& st = run_body(*s);
    if (std::string(wait) == "vmcnt(0)") EXPECT_EQ(st.kind, Stop::Kind::none) << st.message;
    else EXPECT_EQ(st.kind, Stop::Kind::waitcnt) << st.message;
  }
}

// ---- scalar memory ------------------------------------------------------------------------------------------

TEST_P(MemTargets, ScalarLoadsStoresAndBufferLoads) {
  auto s = test::make_snippet(
      "\ts_load_dwordx4 s[4:7], s[0:1], 0x10\n"
      "\ts_load_dword s8, s[0:1], s2\n"
      "\ts_load_dwordx2 s[10:11], s[0:1], 0x23\n"         // the two LSBs are ignored: reads at 0x20
      "\ts_buffer_load_dwordx4 s[12:15], s[16:19], 0x8\n"  // num_records 16: dwords at 16, 20 are out of range
      "\ts_store_dword s20, s[0:1], 0x100\n",
      GetParam());
  ASSERT_TRUE(s);
  Region& r = patterned(*s, "arg0", 1024);
  Wave& w = s->wave();
  w.set_s64(0, r.base);
  w.s[2] = 0x44;
  set_vsharp(w, 16, r.base, 0, 16);
  w.s[20] = 0xfeedf00d;
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(w.s[4 + k], pattern32(0x10 + 4 * k));
  EXPECT_EQ(w.s[8], pattern32(0x44));
  EXPECT_EQ(w.s[10], pattern32(0x20));
  EXPECT_EQ(w.s[11], pattern32(0x24));
  EXPECT_EQ(w.s[12], pattern32(8));
  EXPECT_EQ(w.s[13], pattern32(12));
  EXPECT_EQ(w.s[14], 0u);
  EXPECT_EQ(w.s[15], 0u);
  EXPECT_EQ(le32(r.bytes, 0x100), 0xfeedf00du);
}

TEST_P(MemTargets, ScalarAtomicReturnsThePreOpValue) {
  auto s = test::make_snippet(
      "\ts_atomic_add s4, s[0:1], 0x8 glc\n"
      "\ts_atomic_cmpswap_x2 s[8:11], s[0:1], 0x10 glc\n",
      GetParam());
  ASSERT_TRUE(s);
  Region& r = s->machine.memory.region(s->machine.memory.map("arg0", 64, true));
  std::uint32_t w0 = 41;
  std::uint64_t q = 0x1234'5678'9abc'def0ull;
  std::memcpy(&r.bytes[8], &w0, 4);
  std::memcpy(&r.bytes[16], &q, 8);
  Wave& w = s->wave();
  w.set_s64(0, r.base);
  w.s[4] = 1;
  w.set_s64(8, 0xaaaa'bbbb'cccc'ddddull);  // src
  w.set_s64(10, q);                        // cmp: equal, so it swaps
  ASSERT_EQ(run_body(*s).kind, Stop::Kind::none) << s->group.stop.message;
  EXPECT_EQ(w.s[4], 41u);
  EXPECT_EQ(le32(r.bytes, 8), 42u);
  EXPECT_EQ(w.s64(8), q);
  EXPECT_EQ(le64(r.bytes, 16), 0xaaaa'bbbb'cccc'ddddull);
}

// ---- completion timing --------------------------------------------------------------------------------------

TEST_P(MemTargets, AdversarialLoadWritesItsDestinationOnlyAtCompletion) {
  RunOptions adv;
  adv.completion = Completion::adversarial;
  auto s = test::make_snippet("\tglobal_load_short_d16 v2, v[0:1], off\n\tds_read_b32 v3, v4", GetParam(), 1, 1024, adv);
  ASSERT_TRUE(s);
  Region& r = patterned(*s, "arg0", 256);
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) {
    set64(w, 0, l, r.base + 2 * l);
    w.v[2][l] = 0x11110000u;
    w.v[3][l] = 7;
    w.v[4][l] = 0;
  }
  std::uint32_t lds0 = 0xabcdef01u;
  std::memcpy(s->group.lds.data(), &lds0, 4);
  step(w);
  step(w);
  EXPECT_EQ(w.outstanding, 2u);
  EXPECT_EQ(w.v[2][5], 0x11110000u) << "a load must not write its destination at issue in adversarial mode";
  EXPECT_EQ(w.v[3][5], 7u);
  // The other half of a d16 destination is read at completion: a change made before then survives.
  for (unsigned l = 0; l < 64; ++l) w.v[2][l] = 0x22220000u;
  wait_counts(w, 63, 0);  // lgkm only: the LDS read completes, the global load stays outstanding
  EXPECT_EQ(w.v[3][5], 0xabcdef01u);
  EXPECT_EQ(w.v[2][5], 0x22220000u);
  wait_counts(w, 0, 0);
  EXPECT_EQ(w.outstanding, 0u);
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(w.v[2][l], 0x22220000u | byte_at(2 * l) | byte_at(2 * l + 1) << 8);
}

TEST_P(MemTargets, EagerLoadWritesItsDestinationAtIssue) {
  auto s = test::make_snippet("\tglobal_load_dword v2, v[0:1], off", GetParam());
  ASSERT_TRUE(s);
  Region& r = patterned(*s, "arg0", 256);
  Wave& w = s->wave();
  for (unsigned l = 0; l < 64; ++l) set64(w, 0, l, r.base);
  step(w);
  EXPECT_EQ(w.outstanding, 0u);
  EXPECT_EQ(w.v[2][63], pattern32(0));
}

TEST(SemMem, EveryMemoryMnemonicOfTheTablesExistsOnSomeTarget) {
  // The compiler rejects a key that is no op; this guards against Opcode::invalid or an op no target has a form of.
  for (const Semantics& e : mem_semantics()) {
    bool found = false;
    for (Target t : {Target::gfx90a, Target::gfx942, Target::gfx950}) found = found || available(t, e.op);
    EXPECT_TRUE(found) << op_name(e.op);
  }
}

}  // namespace
