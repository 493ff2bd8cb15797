// Tests of where a launch puts its buffers (emu/memory.hpp Memory::map_straddling, emu/launch.hpp): every buffer
// argument in 4 GiB windows of its own, straddling a 4 GiB boundary, guards around it, the same addresses (and so the
// same kernarg bytes) on every run and whatever the code's size; and a kernel whose 64-bit address computation
// drops the carry into the high half (v_add_co_u32 without its v_addc_co_u32) faults instead of passing by luck.
#include <gtest/gtest.h>

#include <bit>

#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "asmevo/codeobject/link.hpp"
#include "asmevo/emu/launch.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/mc/llvm_mc.hpp"
#include "asmevo/verify/code_object.hpp"

namespace {

using namespace asmevo;
using u64 = std::uint64_t;

/// out[i] = in[i] for i = workgroup * 64 + lane, with 64-bit addresses computed as base + 4 * i: the low halves with
/// v_add_co_u32, the carry into the high halves with v_addc_co_u32 (what clang emits for a global pointer plus an
/// offset). `carry` false drops the v_addc_co_u32s (the high half stays the base's); `pad` s_nops change the code size.
std::string copy_kernel(bool carry, unsigned pad = 0) {
  std::string body = R"(	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_lshl_b32 s8, s2, 8
	v_lshlrev_b32_e32 v1, 2, v0
	v_add_u32_e32 v1, s8, v1
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v3, s5
	v_add_co_u32_e32 v2, vcc, s4, v1
)";
  // s_nop 1: a VALU-written VCC read as carry-in needs 2 wait states on gfx94x (hazard row valu_sgpr_valu_mask_read).
  if (carry) body += "\ts_nop 1\n\tv_addc_co_u32_e32 v3, vcc, 0, v3, vcc\n";
  body += R"(	global_load_dword v4, v[2:3], off
	v_mov_b32_e32 v7, s7
	v_add_co_u32_e32 v6, vcc, s6, v1
)";
  if (carry) body += "\ts_nop 1\n\tv_addc_co_u32_e32 v7, vcc, 0, v7, vcc\n";
  body += "\ts_waitcnt vmcnt(0)\n\tglobal_store_dword v[6:7], v4, off\n";
  for (unsigned i = 0; i < pad; ++i) body += "\ts_nop 0\n";
  body += "\ts_endpgm\n";
  return R"(	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	k
	.p2align	8
	.type	k,@function
k:
)" + body + R"(.Lk_end:
	.size	k, .Lk_end-k
	.rodata
	.p2align	6
	.amdhsa_kernel k
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_kernarg_size 16
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 8
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 64
    .name:           k
    .private_segment_fixed_size: 0
    .sgpr_count:     16
    .symbol:         k.kd
    .vgpr_count:     8
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
)";
}

std::optional<verify::CodeObject> build(const std::string& text) {
  auto ctx = mc::Context::create("gfx942");
  if (!ctx) { ADD_FAILURE() << ctx.error().str(); return std::nullopt; }
  auto obj = (*ctx)->assemble_object(text, "k.s");
  if (!obj) { ADD_FAILURE() << obj.error().str(); return std::nullopt; }
  auto co = codeobject::link_shared(*obj);
  if (!co) { ADD_FAILURE() << co.error().str(); return std::nullopt; }
  auto k = verify::code_object_from_bytes(std::move(*co), "k.co");
  if (!k) { ADD_FAILURE() << k.error().str(); return std::nullopt; }
  return std::move(*k);
}

/// 64 workgroups of 64 lanes copy 4096 floats (16 KiB) from argument 0 to argument 1.
verify::LaunchSpec copy_spec() {
  auto s = verify::parse_launch_spec(R"({"kernel": "k", "grid": [64, 1, 1], "block": [64, 1, 1], "args": [
      {"buffer": {"dtype": "f32", "count": 4096, "init": {"random": {"seed": 5, "min": -8, "max": 8}}}},
      {"buffer": {"dtype": "f32", "count": 4096, "init": "zeros"}}], "outputs": [1]})",
                                     "<test>", ".");
  EXPECT_TRUE(s) << s.error().str();
  return s ? *s : verify::LaunchSpec{};
}

emu::EmulateResult run(const verify::CodeObject& k, const verify::LaunchSpec& spec) {
  auto r = emu::emulate(k.module, k.elf, spec);
  EXPECT_TRUE(r) << r.error().str();
  return r ? std::move(*r) : emu::EmulateResult{};
}

u64 le64(const std::vector<std::byte>& b, std::size_t at) {
  u64 v = 0;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}

TEST(BufferPlacement, EachBufferStraddlesA4GiBBoundaryInWindowsOfItsOwn) {
  auto k = build(copy_kernel(true));
  ASSERT_TRUE(k);
  const auto r = run(*k, copy_spec());
  ASSERT_TRUE(r.ok()) << r.stop.message;
  ASSERT_EQ(r.buffers.size(), 2u);
  std::set<u64> windows;
  for (const auto& b : r.buffers) {
    const u64 lo = b.address, hi = b.address + b.bytes.size();
    SCOPED_TRACE(b.arg);
    EXPECT_NE(lo >> 32, (hi - 1) >> 32) << std::hex << lo << " .. " << hi << " does not cross a 4 GiB boundary";
    EXPECT_EQ(lo % 256, 0u) << "hipMalloc alignment";
    EXPECT_TRUE(windows.insert(lo >> 32).second && windows.insert((hi - 1) >> 32).second)
        << "buffers share a high dword";
    // The kernarg segment holds the buffer's address at the argument's offset (8 * arg here).
    EXPECT_EQ(le64(r.kernarg, 8 * b.arg), b.address);
  }
  // The copy is exact: the carry-propagating kernel is right under the new placement.
  ASSERT_EQ(r.buffers[0].bytes.size(), r.buffers[1].bytes.size());
  auto spec = copy_spec();
  auto in = verify::materialize(spec.args[0].buffer, 0);
  ASSERT_TRUE(in);
  EXPECT_TRUE(std::memcmp(r.buffers[1].bytes.data(), in->data(), in->size()) == 0);
}

TEST(BufferPlacement, AddressesAreTheSameEveryRunAndWhateverTheCodeSize) {
  auto k0 = build(copy_kernel(true));
  auto k1 = build(copy_kernel(true, 300));
  ASSERT_TRUE(k0 && k1);
  const auto spec = copy_spec();
  const auto a = run(*k0, spec), b = run(*k0, spec), c = run(*k1, spec);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.stop.message << b.stop.message << c.stop.message;
  EXPECT_EQ(a.kernarg, b.kernarg);
  EXPECT_EQ(a.kernarg, c.kernarg) << "the kernarg bytes depend on the code size";
  for (std::size_t i = 0; i < a.buffers.size(); ++i) EXPECT_EQ(a.buffers[i].address, c.buffers[i].address);
}

/// Small buffers keep 16-byte alignment and still cross the boundary; buffers of under 32 bytes start at it.
TEST(BufferPlacement, SmallBuffersStraddleToo) {
  for (u64 size : {32ull, 100ull, 511ull, 512ull, 4ull, 0ull}) {
    emu::Memory m;
    const std::size_t r0 = m.map_straddling("a", size, true);
    const std::size_t r1 = m.map_straddling("b", size, true);
    for (std::size_t r : {r0, r1}) {
      const emu::Region& g = m.region(r);
      SCOPED_TRACE(std::to_string(size) + " bytes at " + std::to_string(g.base));
      EXPECT_EQ(g.base % 16, 0u);
      if (size >= 32) EXPECT_NE(g.base >> 32, (g.base + size - 1) >> 32);
      else EXPECT_EQ(g.base % (1ull << 32), 0u);
      // The guards stay unbacked on both sides.
      EXPECT_EQ(m.translate(g.base - 1, 1, false), nullptr);
      EXPECT_EQ(m.translate(g.base + size, 1, false), nullptr);
      EXPECT_NE(m.describe(g.base - 1, 1, false).find("guard"), std::string::npos);
    }
    EXPECT_NE(m.region(r0).base >> 32, m.region(r1).base >> 32);
  }
}

/// Buffers sit high, as hipMalloc's do (0x7f.. on Linux): the high dword of every byte of the first buffers has at
/// least 12 of its 15 bits (47-bit user space) set, and an address with any one of bits 32..46 flipped -- a V#
/// base_hi ANDed with the wrong mask, say -- lies outside every region, not in another buffer. Other regions
/// (kernarg, code) stay below them.
TEST(BufferPlacement, BuffersSitHighSoAFlippedHighBitFaults) {
  emu::Memory m;
  const std::size_t low = m.map("kernarg", 256, false);
  std::vector<std::size_t> bufs;
  for (u64 size : {4096ull, 1ull << 20, 100ull, 3ull << 20}) bufs.push_back(m.map_straddling("buf", size, true));
  const std::size_t after = m.map("code", 4096, false);
  for (const std::size_t r : bufs) {
    const emu::Region& g = m.region(r);
    SCOPED_TRACE(std::to_string(g.base));
    for (const u64 a : {g.base, g.base + g.size - 1}) {
      EXPECT_LT(a, 1ull << 47);
      EXPECT_GE(std::popcount(a >> 32), 12) << std::hex << a;
      ASSERT_NE(m.translate(a, 1, false), nullptr);
      for (unsigned b = 32; b < 47; ++b) EXPECT_EQ(m.translate(a ^ (1ull << b), 1, false), nullptr) << "bit " << b;
    }
    EXPECT_GT(g.base, m.region(low).base + m.region(low).size);
    EXPECT_GT(g.base, m.region(after).base + m.region(after).size);
  }
}

/// From trial 1 on the boundary moves (verify::buffer_phase, buffer_split): off 256-byte alignment by a nonzero
/// multiple of 16, and to another eighth of the buffer, differing between arguments and trials, so that a dropped
/// carry shows in rows and tiles away from the middle too. Trial 0 keeps hipMalloc's 256-byte alignment and the
/// middle. Here for a 16 KiB buffer: the bytes below the boundary are eighths/8 of it plus the phase.
TEST(BufferPlacement, LaterTrialsMoveTheBoundary) {
  constexpr u64 size = 16384;
  std::set<unsigned> splits;
  for (std::uint32_t trial = 0; trial < 7; ++trial)
    for (std::size_t arg = 0; arg < 3; ++arg) {
      SCOPED_TRACE("trial " + std::to_string(trial) + " arg " + std::to_string(arg));
      const u64 phase = verify::buffer_phase(trial, arg);
      const unsigned split = verify::buffer_split(trial, arg);
      emu::Memory m;
      const emu::Region& g = m.region(m.map_straddling("a", size, true, emu::Memory::default_guard, phase, split));
      const u64 below = (1ull << 32) - (g.base & 0xffffffffull);
      EXPECT_EQ(below, size / 8 * split + phase);
      if (trial == 0) {
        EXPECT_EQ(split, 4u);
        EXPECT_EQ(g.base % 256, 0u);
      } else {
        EXPECT_EQ(g.base % 16, 0u);
        EXPECT_NE(g.base % 256, 0u);
        if (arg == 0) splits.insert(split);
      }
    }
  EXPECT_EQ(splits, (std::set<unsigned>{1, 2, 3, 5, 6, 7})) << "trials 1..6 do not visit every other eighth";
}

/// The same kernel without the v_addc_co_u32s: lanes whose low half wraps keep the base's high dword and so land
/// 4 GiB below their element, outside every allocation. Under a placement that kept every buffer below a boundary
/// this edit computed the same addresses and passed.
TEST(BufferPlacement, DroppedCarryIntoTheHighHalfFaults) {
  auto k = build(copy_kernel(false));
  ASSERT_TRUE(k);
  const auto r = run(*k, copy_spec());
  ASSERT_EQ(r.stop.kind, emu::Stop::Kind::fault) << r.stop.message;
  EXPECT_NE(r.stop.message.find("global_load_dword"), std::string::npos) << r.stop.message;
  // The faulting address is an element's true address minus 4 GiB.
  bool matches = false;
  for (const auto& b : r.buffers)
    if (r.stop.address + (1ull << 32) >= b.address && r.stop.address + (1ull << 32) < b.address + b.bytes.size()) matches = true;
  EXPECT_TRUE(matches) << std::hex << r.stop.address;
}

}  // namespace
