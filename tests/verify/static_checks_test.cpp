// Tests of verify/static_checks.hpp: every Triton corpus kernel (LLVM output) passes the waitcnt and ABI checks;
// a descriptor whose VGPR (or AGPR, SGPR) allocation is shrunk below what LLVM says the kernel uses (its `.s`
// listing's "; NumVgprs:" comment) is an ABI finding; the aiter corpus has no ABI findings.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "asmevo/verify/static_checks.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"

namespace {

namespace fs = std::filesystem;
using namespace asmevo;
namespace co = asmevo::codeobject;

std::string all(const std::vector<verify::KernelFindings>& r) {
  std::string s;
  for (const auto& k : r)
    for (const auto& f : k.findings) s += k.kernel + ": [" + f.rule + "] " + f.message + "\n";
  return s;
}

/// Findings whose rule is "waitcnt" or starts with "abi:" (the hazard rules are another header's).
std::size_t count_rules(const std::vector<verify::KernelFindings>& r, bool abi) {
  std::size_t n = 0;
  for (const auto& k : r)
    for (const auto& f : k.findings) n += abi ? f.rule.starts_with("abi:") : f.rule == "waitcnt";
  return n;
}

/// LLVM's "; NumVgprs: N" for the kernel in its `.s` listing.
int llvm_num_vgprs(const fs::path& s) {
  std::smatch m;
  const std::string text = test::slurp(s);
  if (!std::regex_search(text, m, std::regex(R"(; NumVgprs: (\d+))"))) return -1;
  return std::stoi(m[1].str());
}

TEST(StaticChecks, TritonKernelsAreCleanAndShrinkingVgprsIsAnAbiFinding) {
  ASMEVO_REQUIRE_CORPUS(dir);
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir / "triton")) {
    if (e.path().extension() != ".hsaco") continue;
    ++n;
    auto obj = emu::test::recover_object(e.path().string());
    ASSERT_NE(obj, nullptr) << e.path();
    auto r = verify::static_check(obj->module);
    ASSERT_TRUE(r.has_value()) << r.error().message;
    ASSERT_EQ(r->size(), obj->module.kernels.size());
    EXPECT_EQ(count_rules(*r, false), 0u) << e.path() << "\n" << all(*r);
    EXPECT_EQ(count_rules(*r, true), 0u) << e.path() << "\n" << all(*r);

    // Shrink the VGPR allocation one granule below what LLVM counted.
    fs::path s = e.path();
    s.replace_extension(".s");
    const int used = llvm_num_vgprs(s);
    ASSERT_GT(used, 0) << s;
    if (used <= 8) continue;  // one granule: nothing to shrink to
    auto& kd = obj->module.kernels.front().descriptor;
    const int blocks = (used + 7) / 8 - 2;  // allocates (blocks + 1) * 8 < used
    kd.set(co::field::vgpr_blocks, static_cast<std::uint64_t>(blocks));
    // A kernel with AGPRs keeps them above accum_offset: shrinking the total may hit abi:agpr instead.
    auto r2 = verify::static_check(obj->module);
    ASSERT_TRUE(r2.has_value());
    const auto& f = r2->front().findings;
    const bool abi_v = std::any_of(f.begin(), f.end(), [](const analysis::Finding& x) {
      return x.rule == "abi:vgpr" || x.rule == "abi:agpr";
    });
    EXPECT_TRUE(abi_v) << e.path() << " with " << (blocks + 1) * 8 << " VGPRs allocated for " << used << "\n" << all(*r2);
  }
  EXPECT_EQ(n, 33u);
}

TEST(StaticChecks, VgprFindingNamesTheCounts) {
  ASMEVO_REQUIRE_CORPUS(dir);
  // layer_norm_f16.gfx942: LLVM's listing says how many VGPRs it uses; allocate 8.
  const fs::path base = dir / "triton" / "layer_norm_f16.gfx942";
  auto obj = emu::test::recover_object(base.string() + ".hsaco");
  ASSERT_NE(obj, nullptr);
  const int used = llvm_num_vgprs(base.string() + ".s");
  ASSERT_GT(used, 8);
  obj->module.kernels.front().descriptor.set(co::field::vgpr_blocks, 0);
  auto r = verify::static_check(obj->module);
  ASSERT_TRUE(r.has_value());
  std::vector<analysis::Finding> v;
  for (const auto& f : r->front().findings)
    if (f.rule == "abi:vgpr") v.push_back(f);
  ASSERT_EQ(v.size(), 1u) << all(*r);
  EXPECT_NE(v[0].message.find("uses " + std::to_string(used) + " VGPRs"), std::string::npos) << v[0].message;
  EXPECT_NE(v[0].message.find("allocates 8"), std::string::npos) << v[0].message;
}

TEST(StaticChecks, ShrinkingSgprsIsAnAbiFinding) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto obj = emu::test::recover_object((dir / "triton" / "layer_norm_f16.gfx942.hsaco").string());
  ASSERT_NE(obj, nullptr);
  // The listing's kernel names SGPRs beyond s7 (it loads its kernargs into s[2:..]); one granule (8) cannot hold them
  // plus the 6 extra SGPRs gfx942 reserves for VCC/FLAT_SCRATCH/XNACK_MASK.
  obj->module.kernels.front().descriptor.set(co::field::sgpr_blocks, 0);
  auto r = verify::static_check(obj->module);
  ASSERT_TRUE(r.has_value());
  const auto& f = r->front().findings;
  EXPECT_TRUE(std::any_of(f.begin(), f.end(), [](const analysis::Finding& x) { return x.rule == "abi:sgpr"; }))
      << all(*r);
}

TEST(StaticChecks, AiterHasNoAbiFindings) {
  ASMEVO_REQUIRE_CORPUS(dir);
  std::size_t files = 0;
  for (const char* t : {"gfx942", "gfx950"}) {
    const fs::path d = dir / "aiter-co" / t;
    if (!fs::is_directory(d)) continue;
    for (const auto& e : fs::recursive_directory_iterator(d)) {
      if (!e.is_regular_file() || e.path().extension() != ".co") continue;
      auto obj = emu::test::recover_object(e.path().string());
      ASSERT_NE(obj, nullptr) << e.path();
      ++files;
      auto r = verify::static_check(obj->module);
      ASSERT_TRUE(r.has_value()) << e.path() << ": " << r.error().message;
      EXPECT_EQ(count_rules(*r, true), 0u) << e.path() << "\n" << all(*r);
    }
  }
  EXPECT_GT(files, 0u);
}

}  // namespace
