// Tests of the emulator core: decoding, the scheduler, barriers and stop reasons (semantics have their own tests).
#include <gtest/gtest.h>

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
  // image_sample has no semantics: running it must stop, naming the mnemonic, not crash or skip it.
  auto s = test::make_snippet("\timage_load v[0:3], v[4:7], s[8:15] dmask:0xf unorm", Target::gfx90a);
  ASSERT_TRUE(s);
  const Stop& st = s->run();
  EXPECT_EQ(st.kind, Stop::Kind::unsupported);
  EXPECT_NE(st.message.find("image_load"), std::string::npos) << st.message;
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
