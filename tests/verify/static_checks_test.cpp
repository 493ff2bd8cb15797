// Tests of verify/static_checks.hpp: every Triton corpus kernel (LLVM output) passes the waitcnt and ABI checks;
// a descriptor whose VGPR (or AGPR, SGPR) allocation is shrunk below what LLVM says the kernel uses (its `.s`
// listing's "; NumVgprs:" comment) is an ABI finding; the aiter corpus has no ABI findings; a branch to a label that
// does not exist is an error finding (cfg:unresolved_branch), an indirect branch a warning.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "asmevo/ir/parser.hpp"
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
    for (const auto& k : *r)
      for (const auto& f : k.findings) EXPECT_FALSE(f.rule.starts_with("cfg:")) << e.path() << ": " << f.message;

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

TEST(StaticChecks, AiterHasNoAbiOrControlFlowFindings) {
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
      // Production code branches only to its own labels, and (in this corpus) never indirectly.
      for (const auto& k : *r)
        for (const auto& f : k.findings) EXPECT_FALSE(f.rule.starts_with("cfg:")) << e.path() << ": " << f.message;
    }
  }
  EXPECT_GT(files, 0u);
}

/// A module holding one hand-written kernel `k` (default descriptor: one VGPR and one SGPR granule, which the
/// snippets stay within).
co::Module module_of(const std::string& text) {
  co::Module m;
  m.target = Target::gfx942;
  m.target_id = "gfx942";
  auto p = parse_program(text, Target::gfx942, "<static_checks_test>");
  EXPECT_TRUE(p.has_value()) << (p ? std::string{} : p.error().message);
  if (p) m.program = std::move(*p);
  co::KernelInfo k;
  k.name = "k";
  m.kernels.push_back(std::move(k));
  return m;
}

std::vector<analysis::Finding> with_rule(const std::vector<verify::KernelFindings>& r, std::string_view rule) {
  std::vector<analysis::Finding> v;
  for (const auto& k : r)
    for (const auto& f : k.findings)
      if (f.rule == rule) v.push_back(f);
  return v;
}

TEST(StaticChecks, BranchToAMissingLabelIsAnError) {
  // i2 branches to .LBB0_7, which the edit renamed away; i3 is where control should have gone.
  const auto m = module_of(R"(k:
  s_mov_b32 s0, 1
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc1 .LBB0_7
  v_mov_b32 v0, 0
.LBB0_2:
  s_endpgm
)");
  auto r = verify::static_check(m);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  const auto v = with_rule(*r, "cfg:unresolved_branch");
  ASSERT_EQ(v.size(), 1u) << all(*r);
  EXPECT_EQ(v[0].at, InstId{2});
  EXPECT_EQ(v[0].severity, analysis::Severity::error);
  EXPECT_NE(v[0].message.find("i2"), std::string::npos) << v[0].message;
  EXPECT_NE(v[0].message.find(".LBB0_7"), std::string::npos) << v[0].message;
  EXPECT_NE(v[0].message.find("kernel 'k'"), std::string::npos) << v[0].message;

  // The same kernel with the label present: no cfg finding.
  auto ok = verify::static_check(module_of(R"(k:
  s_mov_b32 s0, 1
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc1 .LBB0_7
  v_mov_b32 v0, 0
.LBB0_7:
  s_endpgm
)"));
  ASSERT_TRUE(ok.has_value());
  for (const auto& k : *ok)
    for (const auto& f : k.findings) EXPECT_FALSE(f.rule.starts_with("cfg:")) << f.message;
}

TEST(StaticChecks, UnreachableBrokenBranchIsNotTheKernels) {
  // The broken branch sits after s_endpgm, in code `k` never reaches: not this kernel's finding.
  auto r = verify::static_check(module_of(R"(k:
  s_endpgm
  s_branch .Lnowhere
)"));
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(with_rule(*r, "cfg:unresolved_branch").empty()) << all(*r);
}

TEST(StaticChecks, IndirectBranchIsAWarning) {
  auto r = verify::static_check(module_of(R"(k:
  s_getpc_b64 s[0:1]
  s_setpc_b64 s[0:1]
.L1:
  s_endpgm
)"));
  ASSERT_TRUE(r.has_value());
  const auto v = with_rule(*r, "cfg:indirect_branch");
  ASSERT_EQ(v.size(), 1u) << all(*r);
  EXPECT_EQ(v[0].at, InstId{1});
  EXPECT_EQ(v[0].severity, analysis::Severity::warning);
  EXPECT_TRUE(with_rule(*r, "cfg:unresolved_branch").empty());
}

}  // namespace
