// verify/versioning.hpp and differential.hpp's launch-versioning step: a K1 that guards clang-22's vec_add or
// saxpy_fma (examples/kernels/vec_add.hip) on its kernarg n, runs a copy specialized to the launch's value when the
// guard matches and K0's own code otherwise, is accepted; a wrong guard constant, a changed fallback, a copy that
// folds a kernarg the guard does not check, and a guard that clobbers a register K0 reads are each rejected.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "asmevo/ir/printer.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/differential.hpp"
#include "asmevo/verify/emu_executor.hpp"
#include "asmevo/verify/versioning.hpp"
#include "verify/k1_edit.hpp"
#include "verify/launch_builders.hpp"

namespace {

namespace fs = std::filesystem;
using namespace asmevo;
using verify::DType;

using test::buffer;
using test::random_init;
using test::scalar;

/// examples/launch/vec_add.json: c = a + b over n = 1000 of 1024 elements, 4 workgroups of 256.
verify::LaunchSpec vec_add_launch() {
  verify::LaunchSpec s;
  s.kernel = "vec_add";
  s.grid = {4, 1, 1};
  s.block = std::array<std::uint32_t, 3>{256, 1, 1};
  s.args = {buffer(DType::f32, 1024, random_init(1, -4, 4)), buffer(DType::f32, 1024, random_init(2, -4, 4)),
            buffer(DType::f32, 1024, verify::Init{}), scalar(DType::i32, 1000)};
  s.outputs = {2};
  return s;
}

/// saxpy_fma(alpha = 2, x, y, n = 1000): y = alpha * x + y.
verify::LaunchSpec saxpy_launch() {
  verify::LaunchSpec s;
  s.kernel = "saxpy_fma";
  s.grid = {4, 1, 1};
  s.block = std::array<std::uint32_t, 3>{256, 1, 1};
  s.args = {scalar(DType::f32, std::bit_cast<std::uint32_t>(2.0f)), buffer(DType::f32, 1024, random_init(3, -1, 1)),
            buffer(DType::f32, 1024, random_init(4, -1, 1)), scalar(DType::i32, 1000)};
  s.outputs = {2};
  return s;
}

/// How to version one kernel of the printed program by hand, as the `specialize` pass lays it out.
struct Versioned {
  std::string kernel;
  std::vector<std::string> guard;  ///< the guard's instructions; "FALLBACK" stands for the fallback's label
  std::string copy_from, copy_to;  ///< one edit of the copy (the folded constant)
  std::string fallback_from, fallback_to;  ///< an edit of the fallback ("": none)
};

/// Replaces kernel `v.kernel`'s body (the lines between `NAME:` and its `.Lasmevo_end` label) of the printed program
/// with guard, copy (labels renamed, ids dropped) and fallback (K0's body).
void version(std::string& t, const Versioned& v) {
  const std::size_t head = t.find("\n" + v.kernel + ":\n");
  ASSERT_NE(head, std::string::npos) << v.kernel;
  const std::size_t body = head + v.kernel.size() + 3;
  const std::size_t end = t.find("\n.Lasmevo_end", body);
  ASSERT_NE(end, std::string::npos);
  const std::string k0_body = t.substr(body, end + 1 - body);
  std::string copy = std::regex_replace(k0_body, std::regex("\\.L" + v.kernel + "_"), ".Lspec_" + v.kernel + "_");
  copy = std::regex_replace(copy, std::regex(" ; i[0-9]+"), "");
  const std::size_t at = copy.find(v.copy_from);
  ASSERT_NE(at, std::string::npos) << v.copy_from;
  copy.replace(at, v.copy_from.size(), v.copy_to);
  std::string fallback = k0_body;
  if (!v.fallback_from.empty()) {
    const std::size_t f = fallback.find(v.fallback_from);
    ASSERT_NE(f, std::string::npos) << v.fallback_from;
    fallback.replace(f, v.fallback_from.size(), v.fallback_to);
  }
  const std::string fb = ".Lfallback_" + v.kernel;
  std::string guard;
  for (std::string g : v.guard) {
    if (const auto p = g.find("FALLBACK"); p != std::string::npos) g.replace(p, 8, fb);
    guard += "\t" + g + "\n";
  }
  t.replace(body, end + 1 - body, guard + copy + fb + ":\n" + fallback);
}

class Versioning : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path co = fs::path(ASMEVO_EXAMPLES_DIR) / "vec_add.gfx942.co";
    if (!fs::exists(co)) GTEST_SKIP() << co << " was not built (clang-22 missing?)";
    auto k = verify::load_code_object(co);
    ASSERT_TRUE(k) << k.error().str();
    k0 = std::move(*k);
  }

  /// K1 = K0 with `v` applied, verified on `shapes`.
  verify::Receipt verify_versioned(const Versioned& v, const std::vector<verify::LaunchSpec>& shapes) {
    auto k1 = test::edited_k1(k0, [&](std::string& t) { version(t, v); });
    EXPECT_TRUE(k1);
    if (!k1) return {};
    verify::EmuExecutor exec;
    verify::VerifyOptions o;
    o.trials = 1;
    auto r = verify::differential_verify(k0, *k1, shapes, exec, o);
    EXPECT_TRUE(r) << r.error().str();
    return r ? std::move(*r) : verify::Receipt{};
  }

  verify::CodeObject k0;
};

/// vec_add guarded on n (kernarg 0x18) == 1000: the copy has n folded into the compare with the work-item index.
Versioned vec_add_on_n(std::string constant = "0x3e8") {
  return {"vec_add",
          {"s_load_dword s3, s[0:1], 0x18", "s_waitcnt lgkmcnt(0)", "s_cmp_lg_u32 s3, " + constant,
           "s_cbranch_scc1 FALLBACK"},
          "v_cmp_gt_i32_e32 vcc, s3, v0",
          "v_cmp_gt_i32_e32 vcc, 0x3e8, v0",
          "",
          ""};
}

TEST_F(Versioning, AGuardOnTheLaunchsValueIsAcceptedAndTheReceiptNamesIt) {
  const auto r = verify_versioned(vec_add_on_n(), {vec_add_launch()});
  EXPECT_EQ(r.verdict, verify::Verdict::equivalent) << r.rejected_by << ": " << r.reason;
  ASSERT_TRUE(r.json.contains("versioning")) << r.json.dump(1);
  const auto& v = r.json["versioning"]["vec_add"];
  ASSERT_EQ(v["guard"].size(), 1u) << v.dump();
  EXPECT_EQ(v["guard"][0]["offset"], 0x18);
  EXPECT_EQ(v["guard"][0]["value"], 1000);
  EXPECT_NE(v["fallback"].get<std::string>().find("K0's code, unchanged: 20 instructions in 3 blocks"), std::string::npos)
      << v["fallback"];
  // n is guarded, so only the grid and the block are perturbed: x 4 -> 5 and 3, y and z 1 -> 2, and (no full-wave
  // check) a partial wave, each run and matching.
  ASSERT_EQ(v["perturbations"].size(), 5u) << v.dump(1);
  EXPECT_EQ(v["perturbations"][0]["change"], "grid x is 5 instead of 4");
  EXPECT_EQ(v["perturbations"][1]["change"], "grid x is 3 instead of 4");
  EXPECT_NE(v["perturbations"][4]["change"].get<std::string>().find("(a partial wave)"), std::string::npos) << v.dump(1);
  for (const auto& p : v["perturbations"]) EXPECT_EQ(p["verdict"], "match") << p.dump();
  EXPECT_EQ(v["copy_ran"], true);

  // The guard may also test for equality and branch on its failure (s_cmpk_eq_u32 + s_cbranch_scc0).
  Versioned eq = vec_add_on_n();
  eq.guard = {"s_load_dword s3, s[0:1], 0x18", "s_waitcnt lgkmcnt(0)", "s_cmpk_eq_u32 s3, 0x3e8", "s_cbranch_scc0 FALLBACK"};
  const auto r2 = verify_versioned(eq, {vec_add_launch()});
  EXPECT_EQ(r2.verdict, verify::Verdict::equivalent) << r2.rejected_by << ": " << r2.reason;
  EXPECT_EQ(r2.json["versioning"]["vec_add"]["guard"][0]["value"], 1000);
}

TEST_F(Versioning, AnUnversionedK1ReportsNone) {
  verify::EmuExecutor exec;
  auto r = verify::differential_verify(k0, k0, std::vector{vec_add_launch()}, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::equivalent) << r->reason;
  EXPECT_EQ(r->json["versioning"], "none");
}

TEST_F(Versioning, AWrongGuardConstantIsRejectedTheCopyNeverRan) {
  // n == 999 never holds on the launch (n = 1000): every run takes the fallback, so nothing verified the copy.
  const auto r = verify_versioned(vec_add_on_n("0x3e7"), {vec_add_launch()});
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r.rejected_by, "coverage") << r.reason;
  EXPECT_NE(r.reason.find("the guard (kernarg 0x18 == 999) matched no shape of the launch file: the specialized copy never ran"),
            std::string::npos)
      << r.reason;
}

TEST_F(Versioning, AFallbackThatIsNotK0sCodeIsRejectedWithoutARun) {
  // No run takes the fallback (the guard matches every shape): only the static walk sees the change.
  Versioned v = vec_add_on_n();
  v.fallback_from = "v_add_f32_e32 v2, v6, v7";
  v.fallback_to = "v_sub_f32_e32 v2, v6, v7";
  const auto r = verify_versioned(v, {vec_add_launch()});
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r.rejected_by, "versioning") << r.reason;
  EXPECT_NE(r.reason.find("K1's fallback is not K0's code: at K0 i17 `v_add_f32_e32 v2, v6, v7` K1 has `v_sub_f32_e32 v2, v6, v7`"),
            std::string::npos)
      << r.reason;
  EXPECT_FALSE(r.json.contains("shapes")) << "rejected before any run";

  // A branch of the fallback that goes elsewhere is a change too (same texts, other structure).
  Versioned b = vec_add_on_n();
  b.fallback_from = "s_cbranch_execz .Lvec_add_0";
  b.fallback_to = "s_cbranch_execz .Lspec_vec_add_0";
  const auto rb = verify_versioned(b, {vec_add_launch()});
  EXPECT_EQ(rb.rejected_by, "versioning") << rb.reason;
  EXPECT_NE(rb.reason.find("K1's fallback is not K0's code"), std::string::npos) << rb.reason;
}

TEST_F(Versioning, AGuardWritingARegisterLiveAtTheEntryIsRejected) {
  // s2 holds the workgroup id at wave start, and K0 reads it: the guard may not load n into it.
  Versioned v = vec_add_on_n();
  v.guard = {"s_load_dword s2, s[0:1], 0x18", "s_waitcnt lgkmcnt(0)", "s_cmp_lg_u32 s2, 0x3e8", "s_cbranch_scc1 FALLBACK"};
  const auto r = verify_versioned(v, {vec_add_launch()});
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r.rejected_by, "versioning") << r.reason;
  EXPECT_NE(r.reason.find("writes s2, which K0 reads at its entry before writing it"), std::string::npos) << r.reason;
}

TEST_F(Versioning, AGuardThatComparesBeforeItsLoadArrivesIsRejected) {
  Versioned v = vec_add_on_n();
  v.guard = {"s_load_dword s3, s[0:1], 0x18", "s_cmp_lg_u32 s3, 0x3e8", "s_cbranch_scc1 FALLBACK"};
  const auto r = verify_versioned(v, {vec_add_launch()});
  EXPECT_EQ(r.rejected_by, "versioning") << r.reason;
  EXPECT_NE(r.reason.find("before an s_waitcnt lgkmcnt(0) covers its load"), std::string::npos) << r.reason;
}

TEST_F(Versioning, AGuardLoadStillInFlightWhereTheGuardEndsIsRejected) {
  // The compare reads a loaded dword after the wait, but a second load has no wait before the exits.
  Versioned v = vec_add_on_n();
  v.guard = {"s_load_dword s3, s[0:1], 0x18", "s_waitcnt lgkmcnt(0)", "s_load_dword s8, s[0:1], 0x0",
             "s_cmp_lg_u32 s3, 0x3e8", "s_cbranch_scc1 FALLBACK"};
  const auto r = verify_versioned(v, {vec_add_launch()});
  EXPECT_EQ(r.rejected_by, "versioning") << r.reason;
  EXPECT_NE(r.reason.find("the load of s8 may still be in flight where the guard ends"), std::string::npos) << r.reason;
}

TEST_F(Versioning, ACopyFoldingAKernargTheGuardDoesNotCheckIsRejectedByAPerturbation) {
  // saxpy_fma guarded on n == 1000, but its copy also takes alpha = 2.0 for a constant: the launch file's own runs
  // agree (alpha is 2.0 there), the perturbation alpha = 5 does not.
  const Versioned v{"saxpy_fma",
                    {"s_load_dword s10, s[0:1], 0x18", "s_waitcnt lgkmcnt(0)", "s_cmp_lg_u32 s10, 0x3e8",
                     "s_cbranch_scc1 FALLBACK"},
                    "s_load_dword s2, s[0:1], 0x0",
                    "s_mov_b32 s2, 0x40000000",
                    "",
                    ""};
  const auto r = verify_versioned(v, {saxpy_launch()});
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
  EXPECT_NE(r.reason.find("the specialized copy disagrees with K0 when arg0 (f32) is 5 instead of 2, a value the guard "
                          "does not check: output arg2 (f32) differs"),
            std::string::npos)
      << r.reason;
  ASSERT_TRUE(r.json["versioning"].contains("saxpy_fma")) << r.json["versioning"].dump();

  // The same copy with alpha loaded, as K0 does, passes every perturbation (alpha, the grid and a partial wave).
  Versioned ok = v;
  ok.copy_from = "v_cmp_gt_i32_e32 vcc, s10, v2";
  ok.copy_to = "v_cmp_gt_i32_e32 vcc, 0x3e8, v2";
  const auto r2 = verify_versioned(ok, {saxpy_launch()});
  EXPECT_EQ(r2.verdict, verify::Verdict::equivalent) << r2.rejected_by << ": " << r2.reason;
  const auto& p = r2.json["versioning"]["saxpy_fma"]["perturbations"];
  ASSERT_EQ(p.size(), 6u) << p.dump(1);
  EXPECT_EQ(p[0]["change"], "arg0 (f32) is 5 instead of 2");
}

// The specialize pass also bounds the workgroup id (Triton's `pid < N` checks; such kernels cannot read the grid)
// and checks for full waves. Both are guards: accepted with the kernarg guard, named in the receipt, and a partial
// wave is no longer a perturbation (the guard sends it to K0's code). A bound on a register that holds no workgroup id
// is refused.
TEST_F(Versioning, WorkgroupIdAndFullWaveGuardsAreAccepted) {
  Versioned v = vec_add_on_n();
  v.guard.insert(v.guard.end(), {"s_cmp_ge_u32 s2, 4", "s_cbranch_scc1 FALLBACK", "s_cmp_lg_u64 exec, -1",
                                 "s_cbranch_scc1 FALLBACK"});
  const auto r = verify_versioned(v, {vec_add_launch()});
  EXPECT_EQ(r.verdict, verify::Verdict::equivalent) << r.rejected_by << ": " << r.reason;
  const auto& g = r.json["versioning"]["vec_add"]["guard"];
  ASSERT_EQ(g.size(), 3u) << g.dump();
  bool wgid = false, exec = false;
  for (const auto& e : g) {
    wgid = wgid || (e.contains("workgroup_id") && e["workgroup_id"] == "x" && e["below"] == 4 && e["sgpr"] == 2);
    exec = exec || e.contains("exec");
  }
  EXPECT_TRUE(wgid && exec) << g.dump();
  bool wave_fewer = false;
  for (const auto& p : r.json["versioning"]["vec_add"]["perturbations"]) {
    EXPECT_EQ(p["change"].get<std::string>().find("partial wave"), std::string::npos) << p.dump();
    wave_fewer = wave_fewer || p["change"] == "the block's x size is 192 instead of 256 (one wave fewer)";
  }
  EXPECT_TRUE(wave_fewer) << r.json["versioning"].dump();

  Versioned bad = vec_add_on_n();
  bad.guard.insert(bad.guard.end(), {"s_cmp_ge_u32 s3, 4", "s_cbranch_scc1 FALLBACK"});
  const auto rb = verify_versioned(bad, {vec_add_launch()});
  EXPECT_EQ(rb.rejected_by, "versioning") << rb.reason;
  EXPECT_NE(rb.reason.find("which holds no workgroup id there"), std::string::npos) << rb.reason;
}

TEST_F(Versioning, AGuardLoadOffTheDwordGridOrPastTheSegmentIsRejected) {
  Versioned v = vec_add_on_n();
  v.guard[0] = "s_load_dword s3, s[0:1], 0x1a";
  const auto r = verify_versioned(v, {vec_add_launch()});
  EXPECT_EQ(r.rejected_by, "versioning") << r.reason;
  EXPECT_NE(r.reason.find("at an offset that is not a whole dword"), std::string::npos) << r.reason;
  v.guard[0] = "s_load_dword s3, s[0:1], 0x1000";
  const auto r2 = verify_versioned(v, {vec_add_launch()});
  EXPECT_EQ(r2.rejected_by, "versioning") << r2.reason;
  EXPECT_NE(r2.reason.find("past the end of the kernarg segment"), std::string::npos) << r2.reason;
}

TEST_F(Versioning, AFallbackThatComputesItsOwnAddressIsRejected) {
  // K0 with an s_getpc_b64 (into SGPRs nothing reads): the same text in K1's fallback, at another address, computes
  // another value, so the text comparison alone would not prove the fallback K0's.
  auto with_pc = test::edited_k1(k0, [](std::string& t) {
    const auto at = t.find("\nvec_add:\n");
    t.insert(at + 10, "\ts_getpc_b64 s[20:21]\n");
  });
  ASSERT_TRUE(with_pc);
  k0 = std::move(*with_pc);
  const auto r = verify_versioned(vec_add_on_n(), {vec_add_launch()});
  EXPECT_EQ(r.rejected_by, "versioning") << r.reason;
  EXPECT_NE(r.reason.find("computes its own address, which is another in K1's fallback"), std::string::npos) << r.reason;
}

TEST(VersioningAnalysis, ANonVersionedEditIsNoCandidate) {
  const fs::path co = fs::path(ASMEVO_EXAMPLES_DIR) / "vec_add.gfx942.co";
  if (!fs::exists(co)) GTEST_SKIP() << co << " was not built (clang-22 missing?)";
  auto k0 = verify::load_code_object(co);
  ASSERT_TRUE(k0) << k0.error().str();
  // A leading s_nop changes the entry block, but it holds no guard.
  auto k1 = test::edited_k1(*k0, [](std::string& t) {
    const auto at = t.find("\nvec_add:\n");
    t.insert(at + 10, "\ts_nop 0\n");
  });
  ASSERT_TRUE(k1);
  const std::vector shapes{vec_add_launch()};
  const auto a = verify::find_versioning(k0->module, k1->module, shapes);
  EXPECT_TRUE(a.kernels.empty());
  EXPECT_TRUE(a.rejection.empty()) << a.rejection;
  EXPECT_FALSE(a.view);
}

}  // namespace
