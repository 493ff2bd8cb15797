// No pass adds a static finding on real code: every registered pass, with its default arguments, runs on every kernel
// of every corpus code object (Triton, inductor-dev, the Triton cache, aiter, the Debian blit kernels; gfx90a, gfx942,
// gfx950), and afterwards the waitcnt checker and the hazard checker report nothing they did not report before.
// Findings are compared as (rule, instruction id, other instruction id): ids survive edits, so a finding that moves
// with its instructions is the same finding, and one a pass creates is new.
//
// The random-program side of the same property is pass_properties_test.cpp (its generator emits VALU -> DPP pairs
// whose wait states are s_nops, waits for nothing or unrelated VALUs, which a pass must not take away).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/passes/registry.hpp"
#include "asmevo/verify/static_checks.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"

namespace {

using namespace asmevo;
namespace fs = std::filesystem;

using Key = std::tuple<std::string, std::uint32_t, std::uint32_t>;

/// (rule, at, other) of every waitcnt and hazard finding of the kernels `c` names.
std::set<Key> finding_keys(const Program& p, const passes::PassContext& c, std::string& err) {
  std::set<Key> out;
  const analysis::Cfg g = analysis::build_cfg(p);
  auto entries = passes::kernel_entries(p, g, c);
  if (!entries) {
    err = entries.error().message;
    return out;
  }
  for (const auto e : *entries) {
    for (const auto& f : analysis::check_waitcnt(p, g, e, p.target)) out.emplace(f.rule, f.at.value, f.other ? f.other->value : ~0u);
    for (const auto& f : analysis::check_hazards(p, g, e, p.target, c.xnack))
      out.emplace(f.rule, f.at.value, f.other ? f.other->value : ~0u);
  }
  return out;
}

/// Every corpus code object asmevo targets (gfx908 ones are refused by recovery, and left out by name).
std::vector<fs::path> corpus_objects(const fs::path& corpus) {
  std::vector<fs::path> out;
  for (const char* dir : {"triton", "inductor-dev", "triton-cache", "aiter-co", "debian-rocr-blit-co"})
    for (const auto& f : test::code_objects(corpus / dir))
      if (f.filename().string().find("gfx908") == std::string::npos) out.push_back(f);
  return out;
}

class PassFindings : public ::testing::TestWithParam<std::string> {};

TEST_P(PassFindings, AddsNoWaitcntOrHazardFindingOnAnyCorpusKernel) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const passes::PassInfo* pass = passes::find_pass(GetParam());
  ASSERT_NE(pass, nullptr) << GetParam();
  const auto objects = corpus_objects(corpus);
  ASSERT_GE(objects.size(), 150u) << "corpus code objects found";
  std::size_t kernels = 0, edited = 0;
  for (const auto& file : objects) {
    SCOPED_TRACE(fs::relative(file, corpus).string());
    const auto* obj = emu::test::cached_object(file.string());
    ASSERT_NE(obj, nullptr);
    const codeobject::Module& m = obj->module;
    for (const auto& k : m.kernels) {
      SCOPED_TRACE(k.name);
      passes::PassContext c;
      c.kernels = {k.name};
      c.xnack = verify::detail::xnack_on_or_any(m.target_id);
      std::string err;
      const auto before = finding_keys(m.program, c, err);
      ASSERT_TRUE(err.empty()) << err;
      Program p = m.program;
      passes::Rewriter rw(p);
      auto st = pass->run(rw, c);
      ASSERT_TRUE(st) << st.error().str();
      ++kernels;
      if (rw.log().empty()) continue;
      ++edited;
      const auto after = finding_keys(p, c, err);
      ASSERT_TRUE(err.empty()) << err;
      for (const auto& key : after)
        EXPECT_TRUE(before.contains(key)) << pass->name << " added " << std::get<0>(key) << " at i" << std::get<1>(key)
                                          << (std::get<2>(key) != ~0u ? " (other i" + std::to_string(std::get<2>(key)) + ")"
                                                                      : std::string());
    }
  }
  EXPECT_GT(kernels, objects.size() - 1) << "every object has a kernel and each ran";
  std::printf("[ findings ] %s: %zu kernels of %zu objects, %zu edited, no finding added\n",
              std::string(pass->name).c_str(), kernels, objects.size(), edited);
}

std::vector<std::string> pass_names() {
  std::vector<std::string> v;
  for (const auto& p : passes::builtin_passes()) v.emplace_back(p.name);
  return v;
}

INSTANTIATE_TEST_SUITE_P(EveryPass, PassFindings, ::testing::ValuesIn(pass_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string s = i.param;
                           for (char& ch : s)
                             if (ch == '-') ch = '_';
                           return s;
                         });

}  // namespace
