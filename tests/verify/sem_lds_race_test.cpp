// Tests of the emulator's cross-wave LDS race check (sem_mem.hpp lds_race_ok): a wave that reads LDS bytes another
// wave's ds_write has not completed, or overwrites bytes another wave's ds_read has not read, stops with a waitcnt
// violation naming both; with the writer's s_waitcnt lgkmcnt(0) before the s_barrier it runs and reads the other
// wave's data; a wave's own DS operations complete in order (MI300 ISA §4.4); atomics on shared bytes commute. The
// Triton causal-attention kernel with the s_waitcnt lgkmcnt(0) before its first s_barrier deleted now stops.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/emu/launch.hpp"
#include "asmevo/emu/semantics.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/verify/code_object.hpp"
#include "support/corpus.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;
using u32 = std::uint32_t;

RunOptions adversarial(std::uint64_t seed = 1) {
  RunOptions o;
  o.completion = Completion::adversarial;
  o.seed = seed;
  return o;
}

/// The id of the first instruction of the snippet with mnemonic `mn`.
InstId id_of(const emu::test::Snippet& s, std::string_view mn) {
  for (const Op& op : s.code.ops)
    if (op.mnemonic() == mn) return op.id;
  ADD_FAILURE() << "no " << mn << " in the snippet";
  return {};
}

u32 lds_dword(const emu::test::Snippet& s, std::size_t at) {
  u32 x;
  std::memcpy(&x, s.group.lds.data() + at, 4);
  return x;
}

/// Two waves: wave k writes 0x1000 * (k + 1) + lane to its 256 bytes at 0x400 * k, then (after s_barrier) reads the
/// other wave's 256 bytes. The writer's s_waitcnt lgkmcnt(0) before the barrier is what makes its data visible.
std::string write_barrier_read(bool wait, const char* write = "ds_write_b32 v1, v2", const char* read = "ds_read_b32 v3, v4") {
  return std::string("\t") + write + "\n" + (wait ? "\ts_waitcnt lgkmcnt(0)\n" : "") + "\ts_barrier\n\t" + read +
         "\n\ts_waitcnt lgkmcnt(0)";
}
void setup_exchange(emu::test::Snippet& s) {
  for (unsigned k = 0; k < 2; ++k)
    for (unsigned l = 0; l < 64; ++l) {
      s.wave(k).row(1)[l] = 0x400 * k + 4 * l;
      s.wave(k).row(2)[l] = 0x1000 * (k + 1) + l;
      s.wave(k).row(4)[l] = 0x400 * (1 - k) + 4 * l;
    }
}

TEST(LdsRace, WriteBarrierReadWithTheWaitReadsTheOtherWavesData) {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    auto s = emu::test::make_snippet(write_barrier_read(true), Target::gfx942, 2, 65536, adversarial(seed));
    ASSERT_TRUE(s);
    setup_exchange(*s);
    const Stop& st = s->run();
    ASSERT_EQ(st.kind, Stop::Kind::none) << st.message;
    for (unsigned k = 0; k < 2; ++k)
      for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(s->wave(k).row(3)[l], 0x1000 * (2 - k) + l) << "wave " << k << " lane " << l;
  }
}

TEST(LdsRace, WriteBarrierReadWithoutTheWaitStopsNamingBoth) {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE(seed);
    auto s = emu::test::make_snippet(write_barrier_read(false), Target::gfx942, 2, 65536, adversarial(seed));
    ASSERT_TRUE(s);
    setup_exchange(*s);
    const Stop& st = s->run();
    ASSERT_EQ(st.kind, Stop::Kind::waitcnt) << st.message;
    EXPECT_EQ(st.inst, id_of(*s, "ds_read_b32"));
    ASSERT_TRUE(st.has_other);
    EXPECT_EQ(st.other, id_of(*s, "ds_write_b32"));
    EXPECT_NE(st.message.find("ds_read_b32"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find("reads LDS bytes"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find("ds_write_b32 of wave"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find("s_waitcnt lgkmcnt before the s_barrier"), std::string::npos) << st.message;
    // The first lane of the reader reads the writer's first dword: [0x400 * writer, + 4).
    ASSERT_EQ(st.lane, 0);
    EXPECT_TRUE(st.address == 0 || st.address == 0x400) << st.address;
  }
}

/// Eager completion (memory without latency) has nothing outstanding at the barrier: the same program runs.
TEST(LdsRace, WithoutTheWaitEagerCompletionRuns) {
  auto s = emu::test::make_snippet(write_barrier_read(false), Target::gfx942, 2, 65536, emu::test::eager());
  ASSERT_TRUE(s);
  setup_exchange(*s);
  const Stop& st = s->run();
  ASSERT_EQ(st.kind, Stop::Kind::none) << st.message;
  for (unsigned k = 0; k < 2; ++k)
    for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(s->wave(k).row(3)[l], 0x1000 * (2 - k) + l);
}

/// Wider and paired forms are checked the same way: ds_write_b64 against ds_read2_b32 of the same bytes.
TEST(LdsRace, PairedFormsAreChecked) {
  const char* write = "ds_write_b64 v1, v[6:7]";
  const char* read = "ds_read2_b32 v[8:9], v4 offset1:1";
  for (bool wait : {true, false}) {
    SCOPED_TRACE(wait);
    auto s = emu::test::make_snippet(write_barrier_read(wait, write, read), Target::gfx942, 2, 65536, adversarial());
    ASSERT_TRUE(s);
    for (unsigned k = 0; k < 2; ++k)
      for (unsigned l = 0; l < 64; ++l) {
        s->wave(k).row(1)[l] = 0x800 * k + 8 * l;
        s->wave(k).row(4)[l] = 0x800 * (1 - k) + 8 * l;
        s->wave(k).row(6)[l] = 0x100 * k + l;
        s->wave(k).row(7)[l] = 0x200 * k + l + 7;
      }
    const Stop& st = s->run();
    if (!wait) {
      ASSERT_EQ(st.kind, Stop::Kind::waitcnt) << st.message;
      EXPECT_EQ(st.inst, id_of(*s, "ds_read2_b32"));
      EXPECT_EQ(st.other, id_of(*s, "ds_write_b64"));
      continue;
    }
    ASSERT_EQ(st.kind, Stop::Kind::none) << st.message;
    for (unsigned k = 0; k < 2; ++k)
      for (unsigned l = 0; l < 64; ++l) {
        EXPECT_EQ(s->wave(k).row(8)[l], 0x100 * (1 - k) + l);
        EXPECT_EQ(s->wave(k).row(9)[l], 0x200 * (1 - k) + l + 7);
      }
  }
}

/// A wave reading its own outstanding write is no race: one wave's LDS operations complete in the order issued
/// (MI300 ISA §4.4), so the read returns the written data without any s_waitcnt in between.
TEST(LdsRace, OwnPendingWriteIsReadInOrder) {
  auto s = emu::test::make_snippet("\tds_write_b32 v1, v2\n\tds_read_b32 v3, v1\n\ts_waitcnt lgkmcnt(0)", Target::gfx942, 1,
                                   65536, adversarial());
  ASSERT_TRUE(s);
  for (unsigned l = 0; l < 64; ++l) {
    s->wave().row(1)[l] = 4 * l;
    s->wave().row(2)[l] = 0xabc00 + l;
  }
  ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(s->wave().row(3)[l], 0xabc00 + l);
}

/// Bytes the other wave's pending write does not cover are no race, even when the two spans interleave: wave 0
/// writes the even dwords of [0, 512), wave 1 reads the odd ones (set before the run).
TEST(LdsRace, InterleavedButDisjointBytesRun) {
  auto s = emu::test::make_snippet("\ts_cmp_eq_u32 s0, 0\n\ts_cbranch_scc0 .Lskip\n\tds_write_b32 v1, v2\n.Lskip:\n\ts_barrier\n"
                                   "\tds_read_b32 v3, v4\n\ts_waitcnt lgkmcnt(0)",
                                   Target::gfx942, 2, 65536, adversarial());
  ASSERT_TRUE(s);
  for (unsigned k = 0; k < 2; ++k) {
    s->wave(k).s[0] = k;
    for (unsigned l = 0; l < 64; ++l) {
      s->wave(k).row(1)[l] = 8 * l;
      s->wave(k).row(2)[l] = 0x5000 + l;
      s->wave(k).row(4)[l] = 8 * l + 4;
    }
  }
  for (unsigned l = 0; l < 64; ++l) std::memcpy(s->group.lds.data() + 8 * l + 4, &l, 4);
  const Stop& st = s->run();
  ASSERT_EQ(st.kind, Stop::Kind::none) << st.message;
  for (unsigned k = 0; k < 2; ++k)
    for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(s->wave(k).row(3)[l], l);
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(lds_dword(*s, 8 * l), 0x5000 + l);
}

/// The reverse race: each wave reads the other's bytes, then (after s_barrier) overwrites its own. Without the
/// reader's s_waitcnt lgkmcnt(0) before the barrier, its read may return the new data: a waitcnt violation naming
/// the ds_write and the ds_read. With it, both waves read the old data.
TEST(LdsRace, OverwritingBytesAnotherWaveHasNotReadStops) {
  for (bool wait : {true, false}) {
    SCOPED_TRACE(wait);
    const std::string text = std::string("\tds_read_b32 v3, v4\n") + (wait ? "\ts_waitcnt lgkmcnt(0)\n" : "") +
                             "\ts_barrier\n\tds_write_b32 v1, v2\n\ts_waitcnt lgkmcnt(0)";
    auto s = emu::test::make_snippet(text, Target::gfx942, 2, 65536, adversarial());
    ASSERT_TRUE(s);
    setup_exchange(*s);
    for (unsigned i = 0; i < 0x800; i += 4) {
      const u32 old = 0xc0de0000u + i;
      std::memcpy(s->group.lds.data() + i, &old, 4);
    }
    const Stop& st = s->run();
    if (!wait) {
      ASSERT_EQ(st.kind, Stop::Kind::waitcnt) << st.message;
      EXPECT_EQ(st.inst, id_of(*s, "ds_write_b32"));
      EXPECT_EQ(st.other, id_of(*s, "ds_read_b32"));
      EXPECT_NE(st.message.find("overwrites LDS bytes"), std::string::npos) << st.message;
      EXPECT_NE(st.message.find("has not read yet"), std::string::npos) << st.message;
      continue;
    }
    ASSERT_EQ(st.kind, Stop::Kind::none) << st.message;
    for (unsigned k = 0; k < 2; ++k)
      for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(s->wave(k).row(3)[l], 0xc0de0000u + 0x400 * (1 - k) + 4 * l);
  }
}

/// Atomics of several waves on the same LDS dword need no wait between them (they commute); the sum is complete.
TEST(LdsRace, AtomicsOnSharedBytesRun) {
  auto s = emu::test::make_snippet("\tds_add_u32 v1, v2\n\ts_barrier\n\tds_add_u32 v1, v2\n\ts_waitcnt lgkmcnt(0)",
                                   Target::gfx942, 4, 65536, adversarial());
  ASSERT_TRUE(s);
  for (unsigned k = 0; k < 4; ++k)
    for (unsigned l = 0; l < 64; ++l) {
      s->wave(k).row(1)[l] = 16;
      s->wave(k).row(2)[l] = 1;
    }
  ASSERT_EQ(s->run().kind, Stop::Kind::none) << s->group.stop.message;
  EXPECT_EQ(lds_dword(*s, 16), 2u * 4u * 64u);
}

/// ... but a plain read of bytes another wave's atomic has not completed is a race like any write.
TEST(LdsRace, ReadingBytesOfAPendingAtomicStops) {
  auto s = emu::test::make_snippet("\tds_add_u32 v1, v2\n\ts_barrier\n\tds_read_b32 v3, v1\n\ts_waitcnt lgkmcnt(0)",
                                   Target::gfx942, 2, 65536, adversarial());
  ASSERT_TRUE(s);
  for (unsigned k = 0; k < 2; ++k)
    for (unsigned l = 0; l < 64; ++l) {
      s->wave(k).row(1)[l] = 16;
      s->wave(k).row(2)[l] = 1;
    }
  const Stop& st = s->run();
  ASSERT_EQ(st.kind, Stop::Kind::waitcnt) << st.message;
  EXPECT_EQ(st.inst, id_of(*s, "ds_read_b32"));
  EXPECT_EQ(st.other, id_of(*s, "ds_add_u32"));
}

// ---- Triton corpus -------------------------------------------------------------------------------------------

std::filesystem::path launch_file(const std::string& stem) {
  return std::filesystem::path(ASMEVO_SOURCE_DIR) / "tests" / "data" / "launch" / "triton" / (stem + ".json");
}

/// Runs `co` with the first shape of the attention launch file.
EmulateResult run_attn(const verify::CodeObject& co, Completion c, std::uint64_t seed = 1) {
  auto shapes = verify::read_launch_file(launch_file("attn_fwd_causal_f16_d64"));
  EXPECT_TRUE(shapes) << shapes.error().str();
  if (!shapes) return {};
  EmulateOptions o;
  o.run.completion = c;
  o.run.seed = seed;
  auto r = emulate(co.module, co.elf, shapes->front(), o);
  EXPECT_TRUE(r) << r.error().str();
  return r ? std::move(*r) : EmulateResult{};
}

/// attn_fwd_causal_f16_d64 (gfx942) stores its K tile with 32 ds_write_b16, waits with s_waitcnt lgkmcnt(0) and
/// meets the other waves at s_barrier before they read the tile (the .s of the corpus, lines "ds_write_b16 ...
/// s_waitcnt lgkmcnt(0) / s_barrier"). Deleting that s_waitcnt: adversarial completion stops with the race; eager
/// completion (nothing outstanding) still runs, and K0 runs cleanly either way.
// Lanes of one store instruction that write the same bytes: the ISA names no winner, so the emulator lets the
// schedule seed pick the order the lanes land in (sem_mem.hpp store_first_lane). Every lane writes its id to LDS
// byte 0 and, at an address of its own, 0x100 + its id: the shared dword holds some lane's id, which one changes with
// the seed, and the other dwords are exactly what their lane wrote whatever the order.
TEST(LdsRace, SameAddressLanesOfOneStoreLandInASeedChosenOrder) {
  std::set<u32> winners;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    SCOPED_TRACE(seed);
    auto s = emu::test::make_snippet("\tds_write_b32 v1, v2\n\tds_write_b32 v3, v4\n\ts_waitcnt lgkmcnt(0)", Target::gfx942,
                                     1, 65536, adversarial(seed));
    ASSERT_TRUE(s);
    for (unsigned l = 0; l < 64; ++l) {
      s->wave(0).row(1)[l] = 0;
      s->wave(0).row(2)[l] = l;
      s->wave(0).row(3)[l] = 0x100 + 4 * l;
      s->wave(0).row(4)[l] = 0x100 + l;
    }
    const Stop& st = s->run();
    ASSERT_EQ(st.kind, Stop::Kind::none) << st.message;
    const u32 w = lds_dword(*s, 0);
    EXPECT_LT(w, 64u);
    winners.insert(w);
    for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(lds_dword(*s, 0x100 + 4 * l), 0x100 + l) << "lane " << l;
  }
  EXPECT_GE(winners.size(), 4u) << "the winning lane does not depend on the seed";
}

TEST(LdsRaceCorpus, AttentionWithoutTheWaitBeforeTheFirstBarrierStops) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto file = dir / "triton" / "attn_fwd_causal_f16_d64.gfx942.hsaco";
  auto k0 = verify::load_code_object(file);
  ASSERT_TRUE(k0) << k0.error().str();
  std::string text = print_program(k0->module.program);
  // The s_waitcnt lgkmcnt(0) line directly before the first s_barrier, preceded by a ds_write.
  const std::size_t bar = text.find("\ts_barrier");
  ASSERT_NE(bar, std::string::npos);
  const std::size_t wait_start = text.rfind('\n', bar - 2) + 1;
  const std::string wait_line = text.substr(wait_start, bar - wait_start);
  ASSERT_NE(wait_line.find("s_waitcnt lgkmcnt(0)"), std::string::npos) << wait_line;
  const std::size_t prev_start = text.rfind('\n', wait_start - 2) + 1;
  ASSERT_NE(text.substr(prev_start, wait_start - prev_start).find("ds_write"), std::string::npos);
  text.erase(wait_start, bar - wait_start);

  auto p = parse_program(text, k0->module.target, "k1.s");
  ASSERT_TRUE(p) << p.error().str();
  auto enc = codeobject::encoder_for(k0->elf);
  ASSERT_TRUE(enc) << enc.error().message;
  codeobject::RebuildOptions ro;
  ro.original = &k0->elf;
  ro.recovered = &k0->module;
  ro.allow_patch = false;
  auto built = codeobject::rebuild(std::move(*p), **enc, ro);
  ASSERT_TRUE(built) << built.error().str();
  auto k1 = verify::code_object_from_bytes(std::move(built->bytes), "k1.co");
  ASSERT_TRUE(k1) << k1.error().str();

  for (std::uint64_t seed : {1u, 2u}) {
    const EmulateResult r0 = run_attn(*k0, Completion::adversarial, seed);
    EXPECT_TRUE(r0.ok()) << r0.stop.message;
    const EmulateResult r1 = run_attn(*k1, Completion::adversarial, seed);
    ASSERT_EQ(r1.stop.kind, Stop::Kind::waitcnt) << r1.stop.message;
    EXPECT_NE(r1.stop.message.find("LDS bytes"), std::string::npos) << r1.stop.message;
    EXPECT_NE(r1.stop.message.find("ds_write_b16 of wave"), std::string::npos) << r1.stop.message;
    ASSERT_TRUE(r1.stop.has_other);
    const Inst* writer = k1->module.program.find(r1.stop.other);
    ASSERT_NE(writer, nullptr);
    std::printf("seed %llu: %s\n", static_cast<unsigned long long>(seed), r1.stop.message.c_str());
  }
  const EmulateResult e1 = run_attn(*k1, Completion::eager);
  EXPECT_TRUE(e1.ok()) << e1.stop.message;
}

}  // namespace
