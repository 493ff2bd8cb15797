// Unit tests of ir/reg.hpp: register printing as LLVM spells it, special-register names and aliases, and
// the per-target range/alignment rules of range_problem.
#include <gtest/gtest.h>

#include <string>

#include "asmevo/ir/reg.hpp"

namespace {

using namespace asmevo;

TEST(Reg, PrintsFilesAndRangesAsLlvm) {
  EXPECT_EQ(to_string(Reg{RegFile::vgpr, 1, 1}), "v1");
  EXPECT_EQ(to_string(Reg{RegFile::vgpr, 2, 2}), "v[2:3]");
  EXPECT_EQ(to_string(Reg{RegFile::sgpr, 4, 4}), "s[4:7]");
  EXPECT_EQ(to_string(Reg{RegFile::agpr, 0, 16}), "a[0:15]");
  EXPECT_EQ(to_string(Reg{RegFile::agpr, 255, 1}), "a255");
  EXPECT_EQ(to_string(Reg{RegFile::ttmp, 0, 2}), "ttmp[0:1]");
  EXPECT_EQ(to_string(Reg{RegFile::ttmp, 15, 1}), "ttmp15");
  EXPECT_EQ(to_string(Reg{RegFile::vgpr, 224, 32}), "v[224:255]");
}

TEST(Reg, PrintsSpecialRegistersByName) {
  using namespace special;
  EXPECT_EQ(to_string(Reg{RegFile::special, vcc_lo, 2}), "vcc");
  EXPECT_EQ(to_string(Reg{RegFile::special, vcc_lo, 1}), "vcc_lo");
  EXPECT_EQ(to_string(Reg{RegFile::special, vcc_hi, 1}), "vcc_hi");
  EXPECT_EQ(to_string(Reg{RegFile::special, exec_lo, 2}), "exec");
  EXPECT_EQ(to_string(Reg{RegFile::special, exec_hi, 1}), "exec_hi");
  EXPECT_EQ(to_string(Reg{RegFile::special, m0, 1}), "m0");
  EXPECT_EQ(to_string(Reg{RegFile::special, flat_scratch_lo, 2}), "flat_scratch");
  EXPECT_EQ(to_string(Reg{RegFile::special, xnack_mask_hi, 1}), "xnack_mask_hi");
  EXPECT_EQ(to_string(Reg{RegFile::special, src_scc, 1}), "src_scc");
  EXPECT_EQ(to_string(Reg{RegFile::special, src_lds_direct, 1}), "src_lds_direct");
  EXPECT_EQ(to_string(Reg{RegFile::special, scc, 1}), "scc");
  // A code without a name is still printable (and recognisable as such).
  EXPECT_EQ(to_string(Reg{RegFile::special, 5, 1}), "special(5)");
  EXPECT_EQ(to_string(Reg{RegFile::special, m0, 2}), "special(124)");  // m0 has no 64-bit pair
}

TEST(Reg, SpecialNameOnlyForSpecialRegisters) {
  EXPECT_TRUE(special_name(Reg{RegFile::sgpr, 106, 2}).empty());  // s[106:107] is not vcc
  EXPECT_EQ(special_name(Reg{RegFile::special, special::tba_lo, 2}), "tba");
  EXPECT_EQ(special_name(Reg{RegFile::special, special::tma_hi, 1}), "tma_hi");
}

TEST(Reg, SpecialByNameAcceptsLlvmAliases) {
  using namespace special;
  struct Case { const char* name; std::uint16_t code; std::uint16_t dwords; };
  for (const Case c : {Case{"vcc", vcc_lo, 2}, Case{"vcc_lo", vcc_lo, 1}, Case{"exec", exec_lo, 2}, Case{"m0", m0, 1},
                       Case{"vccz", src_vccz, 1}, Case{"src_vccz", src_vccz, 1}, Case{"execz", src_execz, 1},
                       Case{"shared_base", src_shared_base, 1}, Case{"private_limit", src_private_limit, 1},
                       Case{"pops_exiting_wave_id", src_pops_exiting_wave_id, 1}, Case{"lds_direct", src_lds_direct, 1},
                       Case{"scc", scc, 1}, Case{"src_scc", src_scc, 1}}) {
    auto r = special_by_name(c.name);
    ASSERT_TRUE(r) << c.name;
    EXPECT_EQ(*r, (Reg{RegFile::special, c.code, c.dwords})) << c.name;
  }
  EXPECT_FALSE(special_by_name("v0"));
  EXPECT_FALSE(special_by_name("VCC"));  // the line reader lowercases before looking up
  EXPECT_FALSE(special_by_name("vcc_l"));
  EXPECT_FALSE(special_by_name(""));
}

TEST(Reg, CanonicalSpecialNamesRoundTrip) {
  for (const char* n : {"flat_scratch", "flat_scratch_lo", "xnack_mask", "vcc", "vcc_hi", "tba", "tma_lo", "m0", "exec",
                        "exec_lo", "src_shared_base", "src_shared_limit", "src_private_base", "src_private_limit",
                        "src_pops_exiting_wave_id", "src_vccz", "src_execz", "src_scc", "src_lds_direct", "scc"}) {
    auto r = special_by_name(n);
    ASSERT_TRUE(r) << n;
    EXPECT_EQ(to_string(*r), n);
  }
}

TEST(Reg, RangeProblemAcceptsTheWholeFile) {
  for (Target t : all_targets) {
    EXPECT_TRUE(range_problem(t, RegFile::vgpr, 0, 1).empty());
    EXPECT_TRUE(range_problem(t, RegFile::vgpr, 255, 1).empty());
    EXPECT_TRUE(range_problem(t, RegFile::agpr, 240, 16).empty());
    EXPECT_TRUE(range_problem(t, RegFile::sgpr, 101, 1).empty());   // s0..s101 are addressable
    EXPECT_TRUE(range_problem(t, RegFile::sgpr, 100, 2).empty());
    EXPECT_TRUE(range_problem(t, RegFile::sgpr, 96, 4).empty());
    EXPECT_TRUE(range_problem(t, RegFile::ttmp, 12, 4).empty());
    EXPECT_TRUE(range_problem(t, RegFile::special, 106, 2).empty());
  }
}

TEST(Reg, RangeProblemRejectsOutOfRange) {
  for (Target t : all_targets) {
    EXPECT_EQ(range_problem(t, RegFile::vgpr, 256, 1), "register index out of range for the target");
    EXPECT_FALSE(range_problem(t, RegFile::vgpr, 254, 4).empty());
    EXPECT_FALSE(range_problem(t, RegFile::agpr, 256, 1).empty());
    EXPECT_FALSE(range_problem(t, RegFile::sgpr, 102, 1).empty());
    EXPECT_FALSE(range_problem(t, RegFile::sgpr, 100, 4).empty());
    EXPECT_FALSE(range_problem(t, RegFile::ttmp, 16, 1).empty());
    EXPECT_EQ(range_problem(t, RegFile::vgpr, 0, 0), "register range is empty");
  }
}

TEST(Reg, RangeProblemChecksAlignment) {
  for (Target t : all_targets) {
    // Scalar pairs even, quads and wider aligned to 4 (ISA guide 3.6).
    EXPECT_EQ(range_problem(t, RegFile::sgpr, 1, 2), "misaligned scalar register tuple");
    EXPECT_FALSE(range_problem(t, RegFile::sgpr, 2, 4).empty());
    EXPECT_TRUE(range_problem(t, RegFile::sgpr, 8, 8).empty());
    EXPECT_FALSE(range_problem(t, RegFile::ttmp, 2, 4).empty());
    EXPECT_TRUE(range_problem(t, RegFile::sgpr, 3, 1).empty());
    // gfx90a and later: VGPR/AGPR tuples start at an even register (LLVM validateVGPRAlign).
    EXPECT_FALSE(range_problem(t, RegFile::vgpr, 1, 2).empty());
    EXPECT_FALSE(range_problem(t, RegFile::agpr, 3, 4).empty());
    EXPECT_TRUE(range_problem(t, RegFile::vgpr, 2, 3).empty());
    EXPECT_TRUE(range_problem(t, RegFile::vgpr, 1, 1).empty());
  }
}

TEST(Reg, TypedRangesConvertAndCheckAtCompileTime) {
  constexpr Reg r = RegT<RegFile::vgpr, 4, 2>{};
  static_assert(r == Reg{RegFile::vgpr, 4, 2});
  static_assert(r.last() == 5);
  static_assert(is_reg_type<RegT<RegFile::sgpr, 0, 1>>);
  static_assert(!is_reg_type<Reg>);
  constexpr Reg vcc = SpecialT<special::vcc_lo, 2>{};
  static_assert(special_name(vcc) == "vcc");
  static_assert(range_problem(Target::gfx942, RegFile::vgpr, 4, 2).empty());
  EXPECT_EQ(to_string(r), "v[4:5]");
  EXPECT_EQ(prefix(RegFile::ttmp), "ttmp");
  EXPECT_EQ(prefix(RegFile::special), "");
}

}  // namespace
