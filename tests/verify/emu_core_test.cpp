// Tests of the emulator core: decoding, the scheduler (the hold-one-wave schedule too), barriers and stop reasons
// (semantics have their own tests).
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "asmevo/emu/fp.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;

TEST(EmuCore, RunsToEndWithoutStopping) {
  auto s = test::make_snippet("\ts_nop 0\n\ts_nop 1");
  ASSERT_TRUE(s);
  const Stop& st = s->run();
  EXPECT_EQ(st.kind, Stop::Kind::none) << st.message;
}

TEST(EmuCore, UnsupportedInstructionStopsNamingIt) {
  // ds_gws_init (global wave sync) has no semantics: running it must stop, naming the mnemonic, not crash or skip it.
  ASSERT_EQ(find_semantics(op::ds_gws_init), nullptr) << "pick a mnemonic the emulator does not implement";
  auto s = test::make_snippet("\tds_gws_init v0 offset:0 gds", Target::gfx942);
  ASSERT_TRUE(s);
  const Stop& st = s->run();
  EXPECT_EQ(st.kind, Stop::Kind::unsupported);
  EXPECT_NE(st.message.find("ds_gws_init"), std::string::npos) << st.message;
  EXPECT_EQ(st.inst.value, 0u);
}

TEST(EmuCore, DecodeResolvesLabelsAndDefaults) {
  auto s = test::make_snippet("\ts_branch .Lx\n\ts_nop 0\n.Lx:\n\tv_mov_b32_dpp v0, v1 row_shr:1\n"
                                 "\tv_cndmask_b32_e32 v0, v1, v2, vcc\n\tv_pk_add_f16 v0, v1, v2");
  ASSERT_TRUE(s);
  const auto& ops = s->code.ops;
  ASSERT_GE(ops.size(), 6u);
  EXPECT_EQ(ops[0].at(Name::simm16).kind, Slot::Kind::label);
  EXPECT_EQ(ops[0].at(Name::simm16).index, 2u);
  EXPECT_EQ(ops[2].imm(Name::row_mask), 0xfu);
  EXPECT_EQ(ops[2].imm(Name::dpp_ctrl), 0x111u);
  EXPECT_EQ(ops[3].at(Name::src2).kind, Slot::Kind::scalar);
  EXPECT_EQ(ops[3].at(Name::src2).index, sc::vcc);
  EXPECT_EQ(ops[4].imm(Name::op_sel_hi), 7u);
}

}  // namespace

namespace {

using namespace asmevo;
using namespace asmevo::emu;

/// Runs `text` with adversarial completion under `seed`, with s[0:1] pointing at a 256-byte region of known dwords.
std::unique_ptr<test::Snippet> smem_snippet(const std::string& text, std::uint64_t seed) {
  RunOptions o;
  o.seed = seed;
  o.completion = Completion::adversarial;
  auto s = test::make_snippet(text, Target::gfx942, 1, 65536, o);
  if (!s) return s;
  const std::size_t r = s->machine.memory.map("buf", 256, true);
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint32_t v = 1000 + static_cast<std::uint32_t>(i);
    std::memcpy(s->machine.memory.region(r).bytes.data() + 4 * i, &v, 4);
  }
  s->wave().set_s64(0, s->machine.memory.region(r).base);
  return s;
}

// Two scalar loads may return in either order (MI300 ISA §4.4), so lgkmcnt(1) guarantees neither: reading the first
// one's result is a violation under every seed, not just under the seeds whose order happens to expose it.
TEST(EmuScoreboard, LgkmcntAboveZeroGuaranteesNoScalarLoad) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    auto s = smem_snippet("\ts_load_dword s4, s[0:1], 0x0\n\ts_load_dword s5, s[0:1], 0x4\n"
                          "\ts_waitcnt lgkmcnt(1)\n\ts_mov_b32 s6, s4", seed);
    ASSERT_TRUE(s);
    const Stop& st = s->run();
    EXPECT_EQ(st.kind, Stop::Kind::waitcnt) << "seed " << seed << ": " << st.message;
    EXPECT_EQ(st.inst.value, 3u) << st.message;
    EXPECT_TRUE(st.has_other);
    EXPECT_EQ(st.other.value, 0u) << st.message;  // the first s_load
  }
  // lgkmcnt(0) makes both safe, under every seed.
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    auto s = smem_snippet("\ts_load_dword s4, s[0:1], 0x0\n\ts_load_dword s5, s[0:1], 0x4\n"
                          "\ts_waitcnt lgkmcnt(1)\n\ts_waitcnt lgkmcnt(0)\n\ts_add_u32 s6, s4, s5", seed);
    ASSERT_TRUE(s);
    const Stop& st = s->run();
    EXPECT_EQ(st.kind, Stop::Kind::none) << st.message;
    EXPECT_EQ(s->wave().s[6], 1000u + 1001u);
  }
}

// vmcnt counts at most 63 operations (the S_WAITCNT field): a load with 63 more VMEM loads issued after it has
// completed, with no s_waitcnt at all (LLVM's code relies on it), and one with 62 after it has not. The same holds
// for LDS loads and lgkmcnt's 15.
TEST(EmuScoreboard, CountersSaturateAtTheirFieldWidth) {
  auto text = [](int loads, bool lds) {
    std::string t = lds ? "\tv_mov_b32 v0, 0\n\tds_read_b32 v1, v0\n" : "\tv_mov_b32 v0, 0\n\tglobal_load_dword v1, v0, s[0:1]\n";
    for (int k = 0; k < loads; ++k)
      t += lds ? "\tds_read_b32 v2, v0 offset:4\n" : "\tglobal_load_dword v2, v0, s[0:1] offset:4\n";
    return t + "\tv_mov_b32 v3, v1";
  };
  for (const bool lds : {false, true}) {
    const int cap = lds ? 15 : 63;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      auto ok = smem_snippet(text(cap, lds), seed);
      ASSERT_TRUE(ok);
      EXPECT_EQ(ok->run().kind, Stop::Kind::none) << (lds ? "lds" : "vmem") << " seed " << seed;
      auto early = smem_snippet(text(cap - 1, lds), seed);
      ASSERT_TRUE(early);
      EXPECT_EQ(early->run().kind, Stop::Kind::waitcnt) << (lds ? "lds" : "vmem") << " seed " << seed;
    }
  }
}

// s_movrels reads an SGPR chosen at run time (base + m0): it is checked against outstanding loads like any operand.
TEST(EmuScoreboard, MovrelsChecksTheRegisterItReads) {
  auto s = smem_snippet("\ts_mov_b32 m0, 2\n\ts_load_dword s6, s[0:1], 0x0\n\ts_movrels_b32 s7, s4", 1);
  ASSERT_TRUE(s);
  const Stop& st = s->run();
  EXPECT_EQ(st.kind, Stop::Kind::waitcnt) << st.message;
  EXPECT_EQ(st.inst.value, 2u);
  EXPECT_NE(st.message.find("s6"), std::string::npos) << st.message;
}

// `bound_ctrl:0` is LLVM's legacy spelling of BOUND_CTRL = 1 on gfx9 (llvm-mc-22 encodes it like bound_ctrl:1): a lane
// whose DPP source is out of range gets 0, not its old value.
TEST(EmuDpp, BoundCtrlZeroSpellingWritesZero) {
  for (const char* spelling : {"bound_ctrl:0", "bound_ctrl:1"}) {
    auto s = test::make_snippet(std::string("\tv_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf ") + spelling);
    ASSERT_TRUE(s);
    for (unsigned l = 0; l < 64; ++l) {
      s->wave().row(0)[l] = 777;
      s->wave().row(1)[l] = 100 + l;
    }
    ASSERT_EQ(s->run().kind, Stop::Kind::none);
    for (unsigned l = 0; l < 64; ++l) {
      const std::uint32_t want = (l % 16 == 0) ? 0u : 100u + l - 1;  // row_shr:1: lane 0 of each row has no source
      EXPECT_EQ(s->wave().row(0)[l], want) << spelling << " lane " << l;
    }
  }
}

// An SDWA op whose addend is vdst (v_pk_fmac_f16: src2 tied to vdst; the only such SDWA form on gfx9) adds the old
// vdst, then places the result by dst_sel: WORD_1 takes the low half of the packed result.
TEST(EmuSdwa, MacReadsTheOldDestinationAsAddend) {
  auto s = test::make_snippet("\tv_pk_fmac_f16_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE", Target::gfx90a);
  ASSERT_TRUE(s);
  auto h = [](float f) { return static_cast<std::uint32_t>(fp::f32_to_f16(f)); };  // small exact values only
  for (unsigned l = 0; l < 64; ++l) {
    s->wave().row(0)[l] = h(1.0f + static_cast<float>(l % 4)) | h(3.0f) << 16;
    s->wave().row(1)[l] = h(2.0f) | h(2.0f) << 16;
    s->wave().row(2)[l] = h(0.25f * static_cast<float>(l % 8)) | h(1.0f) << 16;
  }
  const auto old = std::vector<std::uint32_t>(s->wave().row(0), s->wave().row(0) + 64);
  const Stop& st = s->run();
  ASSERT_EQ(st.kind, Stop::Kind::none) << st.message;
  for (unsigned l = 0; l < 64; ++l) {
    const std::uint32_t lo = h(2.0f * 0.25f * static_cast<float>(l % 8) + 1.0f + static_cast<float>(l % 4));  // exact
    EXPECT_EQ(s->wave().row(0)[l], (old[l] & 0xffffu) | lo << 16) << "lane " << l;
  }
}

// v_pk_fmac_f16's VOP3 form accepts abs/neg and omod whose packed meaning the ISA does not define: refused, not guessed.
TEST(EmuValu, PackedFmacModifiersAreRefused) {
  for (const char* text : {"\tv_pk_fmac_f16_e64 v0, -v1, v2", "\tv_pk_fmac_f16_e64 v0, v1, v2 mul:2"}) {
    auto s = test::make_snippet(text, Target::gfx90a);
    ASSERT_TRUE(s) << text;
    const Stop& st = s->run();
    EXPECT_EQ(st.kind, Stop::Kind::unsupported) << text << ": " << st.message;
  }
}

// Code and read-only data of a code-object image: mapped, readable, never writable.
TEST(EmuMemory, ReadOnlyPartOfAWritableRegion) {
  Memory m;
  const std::size_t r = m.map("the code object image", 4096, true);
  m.region(r).read_only_end = 1024;
  const std::uint64_t b = m.region(r).base;
  EXPECT_NE(m.translate(b + 16, 4, false), nullptr);
  EXPECT_EQ(m.translate(b + 16, 4, true), nullptr);
  EXPECT_EQ(m.translate(b + 1022, 4, true), nullptr);
  EXPECT_NE(m.translate(b + 1024, 4, true), nullptr);
  EXPECT_NE(m.describe(b + 16, 4, true).find("read-only"), std::string::npos) << m.describe(b + 16, 4, true);
}

}  // namespace

namespace {

using namespace asmevo;
using namespace asmevo::emu;

// ---- the hold-one-wave schedule (machine.hpp run_workgroup) ------------------------------------------------------

/// Two waves exchange LDS slots: wave k writes 0x1000 * (k + 1) + lane to its slot (v1), reads the other wave's slot
/// (v4) into v3, and after the s_barrier that protects its slot from reuse, 165 instructions later, overwrites it with
/// 0x7000 + lane (v7). `moved`: the read sits below that barrier (what issue 26 hole 4's adversary did), where it
/// reads the new value if the other wave has already run its 165 instructions.
std::string slot_exchange(bool moved) {
  std::string t = "\tds_write_b32 v1, v2\n\ts_waitcnt lgkmcnt(0)\n\ts_barrier\n";
  const std::string read = "\tds_read_b32 v3, v4\n\ts_waitcnt lgkmcnt(0)\n";
  if (!moved) t += read;
  t += "\ts_barrier\n";
  if (moved) t += read;
  for (int i = 0; i < 165; ++i) t += "\tv_add_u32_e32 v5, 1, v5\n";
  return t + "\tds_write_b32 v1, v7\n\ts_waitcnt lgkmcnt(0)";
}

RunOptions scheduled(Schedule k, std::uint64_t seed) {
  RunOptions o;
  o.completion = Completion::adversarial;
  o.schedule = k;
  o.seed = seed;
  return o;
}

std::unique_ptr<test::Snippet> exchange_snippet(bool moved, RunOptions o) {
  auto s = test::make_snippet(slot_exchange(moved), Target::gfx942, 2, 65536, o);
  if (!s) return s;
  for (unsigned k = 0; k < 2; ++k)
    for (unsigned l = 0; l < 64; ++l) {
      s->wave(k).row(1)[l] = 0x400 * k + 4 * l;
      s->wave(k).row(4)[l] = 0x400 * (1 - k) + 4 * l;
      s->wave(k).row(2)[l] = 0x1000 * (k + 1) + l;
      s->wave(k).row(7)[l] = 0x7000 + l;
    }
  return s;
}

/// Whether some lane of some wave read the other wave's slot after its reuse (or the run stopped on the race).
bool race_seen(test::Snippet& s) {
  if (s.group.stop.kind != Stop::Kind::none) return true;
  for (unsigned k = 0; k < 2; ++k)
    for (unsigned l = 0; l < 64; ++l)
      if (s.wave(k).row(3)[l] != 0x1000 * (2 - k) + l) return true;
  return false;
}

TEST(EmuSchedule, HoldOneWaveExposesALongWindowRaceThatRandomSchedulesMiss) {
  // Random interleavings: the other wave would have to run 165 instructions before this one runs its first.
  int random_seen = 0;
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    auto s = exchange_snippet(true, scheduled(Schedule::random, seed));
    ASSERT_TRUE(s);
    s->run();
    random_seen += race_seen(*s);
  }
  EXPECT_EQ(random_seen, 0) << "random schedules saw the race: the window is not long enough to make the point";
  // Held back at the start of phase 2 (after the second s_barrier), the held wave reads the other wave's slot after
  // it was reused, under every seed: the run ends cleanly (no outstanding access overlaps) with the new value.
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed);
    auto s = exchange_snippet(true, scheduled(Schedule::hold_one_wave, seed));
    ASSERT_TRUE(s);
    ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
    EXPECT_TRUE(race_seen(*s));
    ASSERT_EQ(s->group.holds.size(), 3u);  // phases 0, 1 and 2
    const Hold& h = s->group.holds[2];
    EXPECT_EQ(h.phase, 2u);
    EXPECT_EQ(h.release, Hold::Release::others_waiting);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(s->wave(h.wave).row(3)[l], 0x7000 + l) << "lane " << l;
      EXPECT_EQ(s->wave(1 - h.wave).row(3)[l], 0x1000 * (1 + h.wave) + l) << "lane " << l;
    }
  }
}

TEST(EmuSchedule, HoldOneWaveKeepsACorrectKernelsResults) {
  // With the read above the barrier, every schedule reads the other wave's first value; the held wave differs by seed.
  std::set<std::uint32_t> held;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed);
    auto s = exchange_snippet(false, scheduled(Schedule::hold_one_wave, seed));
    ASSERT_TRUE(s);
    ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
    EXPECT_FALSE(race_seen(*s));
    ASSERT_EQ(s->group.holds.size(), 3u);
    for (const Hold& h : s->group.holds) held.insert(h.wave);
    for (unsigned k = 0; k < 2; ++k) EXPECT_EQ(s->wave(k).row(5)[0], 165u);
  }
  EXPECT_EQ(held.size(), 2u) << "the held wave does not depend on the seed";
}

TEST(EmuSchedule, AWaveSpinningOnTheHeldWaveDoesNotHang) {
  // Wave 0 spins (atomic reads, which commute with the atomic add: no LDS race) until wave 1 adds to the flag. When
  // wave 1 is the held one, wave 0 spins without reaching a barrier; after hold_patience instructions wave 1 goes on.
  const char* text =
      "\ts_cmp_eq_u32 s0, 0\n\ts_cbranch_scc0 .Lset\n"
      ".Lspin:\n\tds_add_rtn_u32 v3, v1, v0\n\ts_waitcnt lgkmcnt(0)\n\tv_readfirstlane_b32 s1, v3\n"
      "\ts_cmp_eq_u32 s1, 0\n\ts_cbranch_scc1 .Lspin\n\ts_branch .Ldone\n"
      ".Lset:\n\tds_add_u32 v1, v2\n\ts_waitcnt lgkmcnt(0)\n.Ldone:";
  bool setter_held = false;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    SCOPED_TRACE(seed);
    RunOptions o = scheduled(Schedule::hold_one_wave, seed);
    o.hold_patience = 1000;
    o.instruction_limit = 1'000'000;
    auto s = test::make_snippet(text, Target::gfx942, 2, 65536, o);
    ASSERT_TRUE(s);
    for (unsigned k = 0; k < 2; ++k) {
      s->wave(k).s[0] = k;
      for (unsigned l = 0; l < 64; ++l) s->wave(k).row(2)[l] = 1;
    }
    ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
    EXPECT_EQ(s->wave(0).row(3)[0], 64u);  // every lane of wave 1 added 1
    ASSERT_EQ(s->group.holds.size(), 1u);  // no barrier: one phase
    const Hold& h = s->group.holds[0];
    EXPECT_EQ(h.release, h.wave == 1 ? Hold::Release::patience : Hold::Release::others_waiting);
    setter_held = setter_held || h.wave == 1;
  }
  EXPECT_TRUE(setter_held) << "no seed held the wave that sets the flag";
}

// Register moves between the VGPR and AGPR files, v_swap_b32 and v_nop, under a partial EXEC.
TEST(EmuMoves, AccvgprMovesSwapAndNop) {
  auto s = test::make_snippet("\tv_accvgpr_write_b32 a1, v0\n\tv_accvgpr_mov_b32 a2, a1\n\tv_accvgpr_read_b32 v3, a2\n"
                              "\tv_accvgpr_write_b32 a4, 7\n\tv_swap_b32 v5, v6\n\tv_nop");
  ASSERT_TRUE(s);
  Wave& w = s->wave();
  const LaneMask exec = 0x00ff'0000'ffff'00f0ull;
  w.set_exec(exec);
  for (unsigned l = 0; l < 64; ++l) {
    w.row(0)[l] = 1000 + l;
    w.row(3)[l] = 3;
    w.row(5)[l] = 500 + l;
    w.row(6)[l] = 600 + l;
    w.row(agpr_row0 + 4)[l] = 44;
  }
  ASSERT_EQ(s->run().kind, Stop::Kind::none);
  for (unsigned l = 0; l < 64; ++l) {
    const bool on = (exec >> l) & 1;
    EXPECT_EQ(w.row(agpr_row0 + 2)[l], on ? 1000 + l : 0u) << l;
    EXPECT_EQ(w.row(3)[l], on ? 1000 + l : 3u) << l;
    EXPECT_EQ(w.row(agpr_row0 + 4)[l], on ? 7u : 44u) << l;
    EXPECT_EQ(w.row(5)[l], on ? 600 + l : 500 + l) << l;
    EXPECT_EQ(w.row(6)[l], on ? 500 + l : 600 + l) << l;
  }
}

}  // namespace
