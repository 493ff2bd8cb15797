// Basic blocks: labels start a block; branches and s_endpgm end one, with their target and fall-through.
#include <gtest/gtest.h>

#include "asmevo/ir/blocks.hpp"
#include "asmevo/ir/parser.hpp"

namespace {

using namespace asmevo;

TEST(Blocks, SplitAtLabelsAndBranches) {
  auto p = parse_program(R"(k:
	s_load_dword s3, s[0:1], 0x18
	v_cmp_gt_i32 vcc, s3, v0
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_2
	v_mov_b32 v1, 0
.LBB0_1:
	v_add_u32 v1, 1, v1
	s_cbranch_scc1 .LBB0_1
	s_branch .LBB0_2
.LBB0_2:
	s_endpgm
)",
                         Target::gfx942);
  ASSERT_TRUE(p) << p.error().str();
  const auto bs = basic_blocks(*p);
  ASSERT_EQ(bs.size(), 5u);
  EXPECT_EQ(bs[0].labels, std::vector<std::string>{"k"});
  EXPECT_EQ(bs[0].insts.size(), 4u);
  EXPECT_TRUE(bs[0].ends_in_branch);
  EXPECT_TRUE(bs[0].falls_through);  // conditional
  EXPECT_EQ(bs[0].target, ".LBB0_2");
  EXPECT_TRUE(bs[1].labels.empty());
  EXPECT_EQ(bs[1].insts.size(), 1u);
  EXPECT_FALSE(bs[1].ends_in_branch);
  EXPECT_EQ(bs[2].labels, std::vector<std::string>{".LBB0_1"});
  EXPECT_EQ(bs[2].target, ".LBB0_1");  // loop back edge
  EXPECT_TRUE(bs[2].falls_through);
  EXPECT_EQ(bs[3].insts.size(), 1u);  // s_branch alone
  EXPECT_FALSE(bs[3].falls_through);
  EXPECT_EQ(bs[3].target, ".LBB0_2");
  EXPECT_EQ(bs[4].labels, std::vector<std::string>{".LBB0_2"});
  EXPECT_FALSE(bs[4].falls_through);  // s_endpgm
  EXPECT_FALSE(bs[4].ends_in_branch);
}

TEST(Blocks, EmptyProgramHasNoBlocks) {
  auto p = parse_program("\t.text\n", Target::gfx90a);
  ASSERT_TRUE(p);
  EXPECT_TRUE(basic_blocks(*p).empty());
}

}  // namespace
