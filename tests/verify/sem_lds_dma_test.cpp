// Tests of the MUBUF load-to-LDS forms (buffer_load_{ubyte,sbyte,ushort,sshort,dword,dwordx3,dwordx4} ... lds,
// sem_mem.hpp bload_lds): the LDS bytes each lane writes, computed here from the ISA's address formulas (MI300 ISA
// §9.1.5 buffer addressing and range checking, §9.1.5.2 swizzling, §9.1.9 "Memory Buffer Load to LDS", CDNA4 ISA
// §9.1.9 for gfx950), over a memory pattern that never repeats, with inactive lanes, out-of-range lanes and
// components, M0 bits above the LDS offset field, and the waitcnt violation of an LDS read before vmcnt covers the DMA.
// A corpus check confirms every aiter gfx942/gfx950 use of these forms decodes to its handler as an lds form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "asmevo/emu/sem_mem.hpp"
#include "asmevo/emu/semantics.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

/// Byte i of the source buffers: the low byte of a 64-bit mix of i, so no address's bytes equal another's by design.
std::byte hash_byte(u64 i) {
  u64 z = i + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<std::byte>((z ^ (z >> 31)) & 0xff);
}

Region& hashed(emu::test::Snippet& s, const char* name, std::size_t size, u64 salt) {
  Region& r = s.machine.memory.region(s.machine.memory.map(name, size, true));
  for (std::size_t i = 0; i < size; ++i) r.bytes[i] = hash_byte(i + (salt << 32));
  return r;
}

/// A buffer resource: base, stride, num_records, 32-bit float format (what LLVM's buffer descriptors use), plus the
/// swizzle fields (MI300 ISA §9.1.8 table "Buffer Resource Descriptor": swizzle enable bit 63, element size bits
/// 116:115, index stride bits 118:117).
void set_vsharp(Wave& w, unsigned sgpr, u64 base, u32 stride, u32 num_records, bool swizzle = false, u32 elem = 0,
                u32 istride = 0) {
  w.s[sgpr] = static_cast<u32>(base);
  w.s[sgpr + 1] = (static_cast<u32>(base >> 32) & 0xffffu) | stride << 16 | (swizzle ? 1u << 31 : 0u);
  w.s[sgpr + 2] = num_records;
  w.s[sgpr + 3] = 4u | 5u << 3 | 6u << 6 | 7u << 9 | 7u << 12 | 4u << 15 | elem << 19 | istride << 21;
}

RunOptions adversarial() {
  RunOptions o;
  o.completion = Completion::adversarial;
  return o;
}

struct Form {
  const char* mnemonic;
  unsigned mem_bytes;  ///< bytes fetched per lane
  bool sign;           ///< sbyte/sshort: the LDS dword is sign-extended
  bool gfx950_only;
};
const Form forms[] = {
    {"buffer_load_ubyte", 1, false, false}, {"buffer_load_sbyte", 1, true, false},
    {"buffer_load_ushort", 2, false, false}, {"buffer_load_sshort", 2, true, false},
    {"buffer_load_dword", 4, false, false}, {"buffer_load_dwordx3", 12, false, true},
    {"buffer_load_dwordx4", 16, false, true},
};

/// What one lane writes to LDS, derived from the ISA text independently of the emulator: a narrow load becomes one
/// dword (zero- or sign-extended), lane stride 4; dwordx3/x4 write 12/16 bytes at a 16-byte lane stride (CDNA4 ISA
/// §9.1.9: "TIDinWave * 16", "LOAD_DWORDX3 writes 3 dwords and skips the 4th"). `in(k)`: dword component k in range
/// (out-of-range components read 0: MI300 ISA §9.1.5 "Range Checking", rules 1 and 4).
template <class InRange>
std::vector<std::byte> lane_bytes(const Form& f, const Region& r, u64 off, InRange in) {
  if (f.mem_bytes <= 4) {
    u32 x = 0;
    if (in(0)) {
      for (unsigned b = 0; b < f.mem_bytes; ++b) x |= static_cast<u32>(r.bytes[off + b]) << (8 * b);
      if (f.sign && f.mem_bytes == 1 && (x & 0x80u)) x |= 0xffffff00u;
      if (f.sign && f.mem_bytes == 2 && (x & 0x8000u)) x |= 0xffff0000u;
    }
    std::vector<std::byte> v(4);
    std::memcpy(v.data(), &x, 4);
    return v;
  }
  std::vector<std::byte> v(f.mem_bytes, std::byte{0});
  for (unsigned k = 0; k < f.mem_bytes / 4; ++k)
    if (in(k))
      for (unsigned b = 0; b < 4; ++b) v[4 * k + b] = r.bytes[off + 4 * k + b];
  return v;
}

unsigned lane_stride(const Form& f) { return f.mem_bytes <= 4 ? 4 : 16; }

/// Every VGPR row the snippet could touch, to show the lds forms write no VGPR.
std::vector<u32> vgpr_rows(Wave& w, unsigned rows) {
  std::vector<u32> v;
  for (unsigned r = 0; r < rows; ++r) v.insert(v.end(), w.row(r), w.row(r) + 64);
  return v;
}

class LdsDma : public ::testing::TestWithParam<Target> {};
INSTANTIATE_TEST_SUITE_P(Targets, LdsDma, ::testing::Values(Target::gfx90a, Target::gfx942, Target::gfx950),
                         [](const auto& i) { return std::string(to_string(i.param)); });

/// Raw buffer, offen + soffset + instruction offset: the memory address is base + soffset + offset + voffset
/// (MI300 ISA §9.1.5), in range iff offset + voffset (+ 4k for component k) < num_records (soffset excluded); the LDS
/// address is LDS_offset + offset + lane * stride, LDS_offset = M0[15:0] (MI200/MI300 ISA §9.1.9) or M0[17:0] on gfx950
/// (CDNA4 ISA §9.1.9). M0 carries a set bit just above the field, which must be ignored. Lanes are given a shuffled
/// order of 32-byte slots, EXEC has holes, and lanes whose slot is >= 50 are (partly) out of range.
TEST_P(LdsDma, RawBufferWritesTheLdsBytesOfTheAddressFormula) {
  const Target t = GetParam();
  const bool g950 = t == Target::gfx950;
  const u32 field = g950 ? 0x3ffffu : 0xffffu;
  const u32 m0 = g950 ? (0x40000u | 0x12340u) : (0x10000u | 0x2340u);
  const std::size_t lds_size = g950 ? 160 * 1024 : 64 * 1024;
  const u32 soff = 8, ioff = 12, num = ioff + 32 * 50 + 8;
  std::mt19937 g(7);
  for (const Form& f : forms) {
    if (f.gfx950_only && !g950) continue;
    SCOPED_TRACE(f.mnemonic);
    const std::string text = "\ts_mov_b32 m0, " + std::to_string(m0) + "\n\t" + f.mnemonic + " v1, s[8:11], s12 offen offset:" +
                             std::to_string(ioff) + " lds";
    auto s = emu::test::make_snippet(text, t, 1, lds_size, adversarial());
    ASSERT_TRUE(s);
    Region& r = hashed(*s, "src", 4096, 1);
    std::fill(s->group.lds.begin(), s->group.lds.end(), std::byte{0xee});
    Wave& w = s->wave();
    set_vsharp(w, 8, r.base, 0, num);
    w.s[12] = soff;
    std::vector<unsigned> slot(64);
    std::iota(slot.begin(), slot.end(), 0u);
    std::shuffle(slot.begin(), slot.end(), g);
    for (unsigned l = 0; l < 64; ++l) w.row(1)[l] = 32 * slot[l];
    for (unsigned rr = 2; rr < 24; ++rr)
      for (unsigned l = 0; l < 64; ++l) w.row(rr)[l] = 0xa5a50000u + 64 * rr + l;
    const LaneMask exec = ~0ull & ~(1ull << 5) & ~(1ull << 33) & ~(1ull << 63);
    w.set_exec(exec);
    const auto before = vgpr_rows(w, 24);
    ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
    EXPECT_EQ(vgpr_rows(w, 24), before) << "an lds form writes no VGPR";

    const std::size_t lds0 = (m0 & field) + ioff;
    std::vector<std::byte> want(lds_size, std::byte{0xee});
    for (unsigned l = 0; l < 64; ++l) {
      if (!((exec >> l) & 1)) continue;
      const u64 voff = 32 * slot[l];
      const auto v = lane_bytes(f, r, soff + ioff + voff, [&](unsigned k) { return ioff + voff + 4 * k < num; });
      std::copy(v.begin(), v.end(), want.begin() + static_cast<std::ptrdiff_t>(lds0 + lane_stride(f) * l));
    }
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(s->group.lds[i], want[i]) << "LDS byte " << i << " (lane " << (static_cast<long>(i) - static_cast<long>(lds0)) / static_cast<long>(lane_stride(f)) << ")";
  }
}

/// Structured buffer (idxen, stride != 0), the form aiter's gfx942 kernels use: address = base + soffset + offset +
/// index * stride (MI300 ISA §9.1.5); a lane whose index >= num_records is out of range as a whole and writes a zero
/// dword to LDS (reads that go out of range return zero, and §9.1.9.1 applies the buffer rules to these loads).
TEST_P(LdsDma, StructuredBufferOutOfRangeLanesWriteZero) {
  const Target t = GetParam();
  auto s = emu::test::make_snippet("\ts_mov_b32 m0, 0x400\n\tbuffer_load_dword v3, s[8:11], 0 idxen offset:4 lds", t, 1,
                              65536, adversarial());
  ASSERT_TRUE(s);
  Region& r = hashed(*s, "src", 8192, 2);
  std::fill(s->group.lds.begin(), s->group.lds.end(), std::byte{0xee});
  Wave& w = s->wave();
  const u32 stride = 40, num = 45;
  set_vsharp(w, 8, r.base, stride, num);
  for (unsigned l = 0; l < 64; ++l) w.row(3)[l] = (l * 29u) % 64u;  // a permutation of 0..63; 19 of them >= 45
  ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const u32 idx = (l * 29u) % 64u;
    u32 want = 0;
    if (idx < num)
      for (unsigned b = 0; b < 4; ++b) want |= static_cast<u32>(r.bytes[4 + idx * stride + b]) << (8 * b);
    u32 got = 0;
    std::memcpy(&got, &s->group.lds[0x400 + 4 + 4 * l], 4);
    EXPECT_EQ(got, want) << "lane " << l << " index " << idx;
  }
}

/// Swizzled resource (MI300 ISA §9.1.5.2): index_msb = index / index_stride, index_lsb = index % index_stride,
/// offset_msb = offset / element_size, offset_lsb = offset % element_size, buffer_offset = (index_msb * stride +
/// offset_msb * element_size) * index_stride + index_lsb * element_size + offset_lsb; range checked with stride != 0
/// as index >= num_records or offset >= stride. Element size 4 (field 1), index stride 16 (field 1), stride 16.
TEST_P(LdsDma, SwizzledBufferFollowsTheSwizzleFormula) {
  const Target t = GetParam();
  auto s = emu::test::make_snippet("\ts_mov_b32 m0, 0x800\n\tbuffer_load_dword v[4:5], s[8:11], 0 idxen offen lds", t, 1,
                              65536, adversarial());
  ASSERT_TRUE(s);
  Region& r = hashed(*s, "src", 16384, 3);
  std::fill(s->group.lds.begin(), s->group.lds.end(), std::byte{0xee});
  Wave& w = s->wave();
  const u32 stride = 16, num = 60, es = 4, is = 16;
  set_vsharp(w, 8, r.base, stride, num, true, 1, 1);
  for (unsigned l = 0; l < 64; ++l) {
    w.row(4)[l] = (l * 7u) % 64u;  // index
    w.row(5)[l] = 4 * ((l * 3u) % 5u);  // offset 0..16: 16 is >= stride, out of range
  }
  ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const u64 index = (l * 7u) % 64u, off = 4 * ((l * 3u) % 5u);
    const u64 boff = ((index / is) * stride + (off / es) * es) * is + (index % is) * es + off % es;
    u32 want = 0;
    if (index < num && off < stride)
      for (unsigned b = 0; b < 4; ++b) want |= static_cast<u32>(r.bytes[boff + b]) << (8 * b);
    u32 got = 0;
    std::memcpy(&got, &s->group.lds[0x800 + 4 * l], 4);
    EXPECT_EQ(got, want) << "lane " << l << " index " << index << " offset " << off;
  }
}

/// gfx950 dwordx4 from a swizzled resource with 16-byte elements (field 3) and index stride 8 (field 0): each lane's
/// 16 bytes are one element; lanes 16 bytes apart in LDS.
TEST(LdsDma950, SwizzledDwordx4) {
  auto s = emu::test::make_snippet("\ts_mov_b32 m0, 0x1000\n\tbuffer_load_dwordx4 v6, s[8:11], 0 idxen lds", Target::gfx950,
                              1, 65536, adversarial());
  ASSERT_TRUE(s);
  Region& r = hashed(*s, "src", 16384, 4);
  Wave& w = s->wave();
  const u32 stride = 32, num = 64, es = 16, is = 8;
  set_vsharp(w, 8, r.base, stride, num, true, 3, 0);
  for (unsigned l = 0; l < 64; ++l) w.row(6)[l] = 63 - l;
  ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    const u64 index = 63 - l;
    const u64 boff = ((index / is) * stride) * is + (index % is) * es;
    for (unsigned b = 0; b < 16; ++b)
      ASSERT_EQ(s->group.lds[0x1000 + 16 * l + b], r.bytes[boff + b]) << "lane " << l << " byte " << b;
  }
}

/// An LDS read of bytes an LDS-DMA load has not yet written (no s_waitcnt vmcnt between them) is a waitcnt
/// violation naming both instructions: LLVM SIInsertWaitcnts makes such a read wait on vmcnt. With the wait, the read
/// returns the loaded dword; a read of other LDS bytes needs no wait.
TEST_P(LdsDma, LdsReadBeforeVmcntDrainsIsAWaitcntViolation) {
  const Target t = GetParam();
  const std::string load = "\ts_mov_b32 m0, 0x100\n\tbuffer_load_dword v1, s[8:11], 0 offen lds\n";
  auto setup = [&](emu::test::Snippet& s) -> Region& {
    Region& r = hashed(s, "src", 4096, 5);
    Wave& w = s.wave();
    set_vsharp(w, 8, r.base, 0, 4096);
    for (unsigned l = 0; l < 64; ++l) {
      w.row(1)[l] = 4 * (63 - l);
      w.row(3)[l] = 0x100 + 4 * ((l + 1) % 64);  // reads lane (l + 1)'s DMA dword
      w.row(4)[l] = 0x2000 + 4 * l;                // bytes no DMA writes
    }
    return r;
  };
  {  // no wait: violation
    auto s = emu::test::make_snippet(load + "\tds_read_b32 v2, v3", t, 1, 65536, adversarial());
    ASSERT_TRUE(s);
    setup(*s);
    const Stop& st = s->run();
    ASSERT_EQ(st.kind, Stop::Kind::waitcnt) << st.message;
    EXPECT_TRUE(st.has_other);
    EXPECT_EQ(st.other.value + 1, st.inst.value) << "the ds_read names the buffer load just before it";
    EXPECT_NE(st.message.find("buffer_load_dword"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find("vmcnt"), std::string::npos) << st.message;
  }
  {  // ds_read2: every lane's accesses miss the DMA block except lane 0's second one (offset1 = 8 dwords = 32 bytes)
    auto s = emu::test::make_snippet(load + "\tds_read2_b32 v[6:7], v4 offset1:8", t, 1, 65536, adversarial());
    ASSERT_TRUE(s);
    setup(*s);
    s->wave().row(4)[0] = 0x100 + 12 - 32;  // first access at 0xec (below the block), second at 0x10c (DMA lane 3)
    const Stop& st = s->run();
    EXPECT_EQ(st.kind, Stop::Kind::waitcnt) << st.message;
    EXPECT_EQ(st.lane, 0);
    EXPECT_EQ(st.address, 0x10cu);
  }
  {  // with the wait: clean, and the read returns the DMA'd dword
    auto s = emu::test::make_snippet(load + "\ts_waitcnt vmcnt(0)\n\tds_read_b32 v2, v3\n\ts_waitcnt lgkmcnt(0)", t, 1, 65536,
                                adversarial());
    ASSERT_TRUE(s);
    Region& r = setup(*s);
    ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
    for (unsigned l = 0; l < 64; ++l) {
      const unsigned src = (l + 1) % 64;  // the lane whose dword v2 of lane l reads
      u32 want = 0;
      for (unsigned b = 0; b < 4; ++b) want |= static_cast<u32>(r.bytes[4 * (63 - src) + b]) << (8 * b);
      EXPECT_EQ(s->wave().row(2)[l], want) << "lane " << l;
    }
  }
  {  // other LDS bytes: no wait needed
    auto s = emu::test::make_snippet(load + "\tds_read_b32 v2, v4\n\ts_waitcnt vmcnt(0) lgkmcnt(0)", t, 1, 65536, adversarial());
    ASSERT_TRUE(s);
    setup(*s);
    EXPECT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
  }
  {  // an inactive DMA lane's slot is not written, so reading it is no violation
    auto s = emu::test::make_snippet(load + "\tds_read_b32 v2, v5\n\ts_waitcnt vmcnt(0) lgkmcnt(0)", t, 1, 65536, adversarial());
    ASSERT_TRUE(s);
    setup(*s);
    for (unsigned l = 0; l < 64; ++l) s->wave().row(5)[l] = 0x100 + 4 * 9;  // DMA lane 9's dword
    s->wave().set_exec(~0ull & ~(1ull << 9));                              // lane 9 takes no part in the DMA
    EXPECT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
  }
}

/// Two waves: each loads its own 256 bytes of LDS by DMA, then reads the other wave's after s_barrier. Without an
/// s_waitcnt vmcnt(0) before the barrier the other wave's DMA may still be in flight: a waitcnt violation.
TEST_P(LdsDma, CrossWaveReadNeedsTheWritersVmcntBeforeTheBarrier) {
  const Target t = GetParam();
  for (bool wait : {false, true}) {
    SCOPED_TRACE(wait ? "with s_waitcnt vmcnt(0)" : "without");
    const std::string text = std::string("\ts_mov_b32 m0, s20\n\tbuffer_load_dword v1, s[8:11], 0 offen lds\n") +
                             (wait ? "\ts_waitcnt vmcnt(0)\n" : "") + "\ts_barrier\n\tds_read_b32 v2, v3\n\ts_waitcnt lgkmcnt(0)";
    auto s = emu::test::make_snippet(text, t, 2, 65536, adversarial());
    ASSERT_TRUE(s);
    Region& r = hashed(*s, "src", 4096, 6);
    for (unsigned k = 0; k < 2; ++k) {
      Wave& w = s->wave(k);
      set_vsharp(w, 8, r.base, 0, 4096);
      w.s[20] = 0x400 * k;
      for (unsigned l = 0; l < 64; ++l) {
        w.row(1)[l] = 256 * k + 4 * l;
        w.row(3)[l] = 0x400 * (1 - k) + 4 * l;
      }
    }
    const Stop& st = s->run();
    if (!wait) {
      EXPECT_EQ(st.kind, Stop::Kind::waitcnt) << st.message;
      continue;
    }
    ASSERT_EQ(st.kind, Stop::Kind::none) << st.message;
    for (unsigned k = 0; k < 2; ++k)
      for (unsigned l = 0; l < 64; ++l) {
        u32 want = 0;
        for (unsigned b = 0; b < 4; ++b) want |= static_cast<u32>(r.bytes[256 * (1 - k) + 4 * l + b]) << (8 * b);
        EXPECT_EQ(s->wave(k).row(2)[l], want) << "wave " << k << " lane " << l;
      }
  }
}

/// An LDS destination that is not dword-aligned stops as unsupported, naming the instruction (the ISA gives the M0
/// offset in bytes but not how a misaligned DMA write lands); so does the one buffer lds form the emulator leaves out
/// (none today besides resource features the VGPR forms also leave out). The rows stay honest in --coverage.
TEST_P(LdsDma, MisalignedLdsDestinationIsUnsupported) {
  auto s = emu::test::make_snippet("\ts_mov_b32 m0, 0x102\n\tbuffer_load_ubyte v1, s[8:11], 0 offen lds", GetParam());
  ASSERT_TRUE(s);
  Region& r = hashed(*s, "src", 4096, 7);
  set_vsharp(s->wave(), 8, r.base, 0, 4096);
  const Stop& st = s->run();
  ASSERT_EQ(st.kind, Stop::Kind::unsupported);
  EXPECT_NE(st.message.find("not dword-aligned"), std::string::npos) << st.message;
  for (const Opcode o : {op::buffer_load_ubyte, op::buffer_load_sbyte, op::buffer_load_ushort, op::buffer_load_sshort,
                         op::buffer_load_dword, op::buffer_load_dwordx3, op::buffer_load_dwordx4, op::buffer_load_format_x}) {
    const Semantics* sem = find_semantics(o);
    ASSERT_NE(sem, nullptr) << op_name(o);
    EXPECT_EQ(sem->exactness, Exactness::exact) << op_name(o);
  }
}

/// buffer_load_format_x ... lds goes through the format check of the VGPR form (32-bit formats only) and then writes
/// the dword like buffer_load_dword ... lds.
TEST_P(LdsDma, FormatXLoadsTheDword) {
  auto s = emu::test::make_snippet("\ts_mov_b32 m0, 0x40\n\tbuffer_load_format_x v1, s[8:11], 0 offen lds", GetParam(), 1,
                              65536, adversarial());
  ASSERT_TRUE(s);
  Region& r = hashed(*s, "src", 4096, 8);
  Wave& w = s->wave();
  set_vsharp(w, 8, r.base, 0, 128);
  for (unsigned l = 0; l < 64; ++l) w.row(1)[l] = 4 * l;
  ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) {
    u32 want = 0;
    if (4 * l < 128)
      for (unsigned b = 0; b < 4; ++b) want |= static_cast<u32>(r.bytes[4 * l + b]) << (8 * b);
    u32 got = 0;
    std::memcpy(&got, &s->group.lds[0x40 + 4 * l], 4);
    EXPECT_EQ(got, want) << "lane " << l;
  }
}

/// The aiter kernels (gfx942 and gfx950) use buffer_load_dword ... lds and, on gfx950, buffer_load_dwordx4 ... lds
/// hundreds of times: every use decodes to its mnemonic's handler, as an lds form (Op::info carries the LDS-DMA
/// property that sends bload to bload_lds).
TEST(LdsDmaCorpus, EveryAiterUseDecodesToTheLdsForm) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  std::map<std::string, unsigned> seen;
  for (const char* t : {"gfx942", "gfx950"}) {
    for (const auto& file : asmevo::test::code_objects(corpus / "aiter-co" / t)) {
      auto obj = emu::test::recover_object(file.string());
      ASSERT_TRUE(obj) << file;
      auto code = emu::test::decode_object(*obj);
      ASSERT_TRUE(code) << file;
      for (const Op& op : code->ops) {
        if (!op.info || !op.info->has(isa::prop::lds_dma)) continue;
        const std::string mn(op.mnemonic());
        ++seen[std::string(t) + " " + mn];
        const Semantics* sem = find_semantics(op.opcode);
        ASSERT_NE(sem, nullptr) << mn;
        EXPECT_EQ(op.fn, sem->fn) << file.filename() << " " << mn << " i" << op.id.value << " does not reach its handler";
        EXPECT_TRUE(emu::detail::is_lds_dma(op));
      }
    }
  }
  EXPECT_GT(seen["gfx942 buffer_load_dword"], 0u);
  EXPECT_GT(seen["gfx950 buffer_load_dword"], 0u);
  EXPECT_GT(seen["gfx950 buffer_load_dwordx4"], 0u);
  for (const auto& [k, n] : seen) std::printf("  %s ... lds: %u uses\n", k.c_str(), n);
}

}  // namespace
