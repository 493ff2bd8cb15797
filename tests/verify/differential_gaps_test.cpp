// verify/differential.hpp, the gaps a review found in the gate: K1's static findings are inherited from K0 only at
// the same place (align_sequences against a dynamic-programming LCS; hand-written programs where K1 moves a missing
// wait to another site that prints the same); a kernel the launch file never runs may not change (clang-22's
// multi-kernel examples/kernels/emu_kernels.hip); outputs declared "zeros" start as canaries from the second trial
// on, so a K1 that skips a store of zeros is rejected (Triton vec_add with zero inputs), and a K0 that reads its
// output keeps the declared init.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/differential.hpp"
#include "asmevo/verify/emu_executor.hpp"
#include "support/corpus.hpp"
#include "verify/k1_edit.hpp"
#include "verify/launch_builders.hpp"

namespace {

namespace fs = std::filesystem;
using namespace asmevo;
using verify::DType;
using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;

// ---------------------------------------------------------------------------------------------------------------
// align_sequences (support/text_diff.hpp)
// ---------------------------------------------------------------------------------------------------------------

/// The length of a longest common subsequence by the textbook dynamic program (the oracle).
std::size_t lcs_length(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

/// A common subsequence: pairs strictly increasing on both sides, each joining equal elements.
::testing::AssertionResult is_alignment(const Pairs& p, const std::vector<std::uint32_t>& a,
                                        const std::vector<std::uint32_t>& b) {
  for (std::size_t k = 0; k < p.size(); ++k) {
    const auto [i, j] = p[k];
    if (i >= a.size() || j >= b.size() || a[i] != b[j])
      return ::testing::AssertionFailure() << "pair " << k << " (" << i << ", " << j << ") joins unequal elements";
    if (k > 0 && (i <= p[k - 1].first || j <= p[k - 1].second))
      return ::testing::AssertionFailure() << "pair " << k << " does not increase";
  }
  return ::testing::AssertionSuccess();
}

TEST(Align, InsertionDeletionAndReplacement) {
  // b = a with 9 inserted before a[2], a[4] deleted, a[6] replaced by 8.
  const std::vector<std::uint32_t> a = {1, 2, 3, 4, 5, 6, 7, 1}, b = {1, 2, 9, 3, 4, 6, 8, 1};
  const Pairs want = {{0, 0}, {1, 1}, {2, 3}, {3, 4}, {5, 5}, {7, 7}};
  EXPECT_EQ(align_sequences(a, b), want);
  EXPECT_TRUE(align_sequences(a, {}).empty());
  EXPECT_EQ(align_sequences(a, a).size(), a.size());
}

TEST(Align, LongestWhereNoElementIsUniqueAndValidAlways) {
  std::mt19937 rng(7);
  int optimal_checked = 0;
  for (int round = 0; round < 300; ++round) {
    const std::size_t n = rng() % 60, m = rng() % 60;
    std::vector<std::uint32_t> a(n), b(m);
    const std::uint32_t alphabet = 2 + rng() % 6;
    for (auto& x : a) x = rng() % alphabet;
    for (auto& x : b) x = rng() % alphabet;
    const auto p = align_sequences(a, b);
    ASSERT_TRUE(is_alignment(p, a, b)) << "round " << round;
    // Where no element occurs once on both sides there are no anchors, and the Myers diff is exact.
    bool unique = false;
    for (std::uint32_t v = 0; v < alphabet; ++v)
      unique = unique || (std::count(a.begin(), a.end(), v) == 1 && std::count(b.begin(), b.end(), v) == 1);
    if (unique) continue;
    ++optimal_checked;
    EXPECT_EQ(p.size(), lcs_length(a, b)) << "round " << round;
  }
  EXPECT_GT(optimal_checked, 100);
}

TEST(Align, LargeProgramsAreFastAndBudgetBoundsTheWork) {
  // 15000 "instructions" from a small vocabulary, as a long unrolled kernel is; K1 has 40 scattered edits.
  std::mt19937 rng(3);
  std::vector<std::uint32_t> a(15000);
  for (auto& x : a) x = rng() % 50;
  std::vector<std::uint32_t> b = a;
  for (int e = 0; e < 40; ++e) {
    const std::size_t at = rng() % b.size();
    if (e % 2) b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), 1000 + e);
    else b.erase(b.begin() + static_cast<std::ptrdiff_t>(at));
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto p = align_sequences(a, b);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(is_alignment(p, a, b));
  EXPECT_GE(p.size(), a.size() - 20);  // 20 deletions, at most 20 further elements lost
  EXPECT_LT(s, 0.5);
  // Two unrelated 20000-element sequences: a tight budget leaves them (partly) unmatched, quickly and validly.
  std::vector<std::uint32_t> c(20000), d(20000);
  for (auto& x : c) x = rng() % 4;
  for (auto& x : d) x = rng() % 4;
  const auto t1 = std::chrono::steady_clock::now();
  const auto q = align_sequences(c, d, 100000);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(), 0.5);
  EXPECT_TRUE(is_alignment(q, c, d));
}

// ---------------------------------------------------------------------------------------------------------------
// Static findings: inherited only at the same place
// ---------------------------------------------------------------------------------------------------------------

fs::path triton(const fs::path& dir, const std::string& stem) { return dir / "triton" / (stem + ".gfx942.hsaco"); }

fs::path launch_file(const std::string& stem) {
  return fs::path(ASMEVO_SOURCE_DIR) / "tests" / "data" / "launch" / "triton" / (stem + ".json");
}

/// `k0` with its program replaced by `text` (vec_add's kernel label, descriptor and ELF are kept).
verify::CodeObject with_program(const verify::CodeObject& k0, const std::string& text) {
  verify::CodeObject c = k0;
  auto p = parse_program(text, k0.module.target, "hand.s");
  EXPECT_TRUE(p) << (p ? "" : p.error().str());
  if (p) c.module.program = std::move(*p);
  return c;
}

std::size_t count_findings(const std::vector<verify::KernelFindings>& f) {
  std::size_t n = 0;
  for (const auto& k : f) n += k.findings.size();
  return n;
}

// The load's value is read before any s_waitcnt at site A (a waitcnt finding: at the v_add, other the load); site B
// prints the same two instructions but waits.
const char* const k0_text = R"(vec_add:
  global_load_dword v1, v0, s[0:1]
  v_add_f32_e32 v4, v1, v1
  s_waitcnt vmcnt(0)
  global_load_dword v1, v0, s[0:1]
  s_waitcnt vmcnt(0)
  v_add_f32_e32 v4, v1, v1
  s_endpgm
)";

class StaticFindings : public ::testing::Test {
 protected:
  void SetUp() override {
    ASMEVO_REQUIRE_CORPUS(dir);
    auto k = verify::load_code_object(triton(dir, "vec_add_f32"));
    ASSERT_TRUE(k) << k.error().str();
    base = std::move(*k);
    k0 = with_program(base, k0_text);
    auto f0 = verify::static_check(k0.module);
    ASSERT_TRUE(f0);
    ASSERT_EQ(count_findings(*f0), 1u);  // the premise: one finding, at site A
    ASSERT_EQ((*f0)[0].findings[0].rule, "waitcnt");
  }
  /// K1's findings that new_static_findings does not inherit from K0.
  std::vector<verify::KernelFindings> fresh(const verify::CodeObject& k1) {
    auto f0 = verify::static_check(k0.module);
    auto f1 = verify::static_check(k1.module);
    EXPECT_TRUE(f0 && f1);
    if (!f0 || !f1) return {};
    return verify::new_static_findings(k0.module, *f0, k1.module, *f1);
  }
  verify::CodeObject base, k0;
};

TEST_F(StaticFindings, TheSameFindingMovedToAnotherSiteIsNew) {
  // Site A fixed, site B broken: K1 has one finding, printed exactly like K0's (rule, v_add, load).
  const auto k1 = with_program(k0, R"(vec_add:
  global_load_dword v1, v0, s[0:1]
  s_waitcnt vmcnt(0)
  v_add_f32_e32 v4, v1, v1
  global_load_dword v1, v0, s[0:1]
  v_add_f32_e32 v4, v1, v1
  s_endpgm
)");
  const auto f = fresh(k1);
  ASSERT_EQ(count_findings(f), 1u);
  // The new one is at site B: the second v_add of K1's program (i4), reading the second load (i3).
  EXPECT_EQ(f[0].findings[0].at.value, 4u);
  EXPECT_EQ(f[0].findings[0].other->value, 3u);

  // Through the gate: rejected by the static stage before anything runs.
  verify::EmuExecutor exec;
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  auto r = verify::differential_verify(k0, k1, *shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r->rejected_by, "static") << r->reason;
  EXPECT_NE(r->reason.find("at i4"), std::string::npos) << r->reason;
  EXPECT_FALSE(r->json.contains("shapes"));
}

TEST_F(StaticFindings, ASecondSiteBesideTheKnownOneIsNew) {
  const auto k1 = with_program(k0, R"(vec_add:
  global_load_dword v1, v0, s[0:1]
  v_add_f32_e32 v4, v1, v1
  s_waitcnt vmcnt(0)
  global_load_dword v1, v0, s[0:1]
  v_add_f32_e32 v4, v1, v1
  s_endpgm
)");
  const auto f = fresh(k1);
  ASSERT_EQ(count_findings(f), 1u);
  EXPECT_EQ(f[0].findings[0].at.value, 4u);
}

TEST_F(StaticFindings, KnownFindingBehindUnrelatedInsertionsIsInherited) {
  // An s_nop at the top and a v_mov between the load and its use: the finding is K0's, at the same place.
  const auto k1 = with_program(k0, R"(vec_add:
  s_nop 0
  global_load_dword v1, v0, s[0:1]
  v_mov_b32_e32 v5, 0
  v_add_f32_e32 v4, v1, v1
  s_waitcnt vmcnt(0)
  global_load_dword v1, v0, s[0:1]
  s_waitcnt vmcnt(0)
  v_add_f32_e32 v4, v1, v1
  s_endpgm
)");
  auto f1 = verify::static_check(k1.module);
  ASSERT_TRUE(f1);
  ASSERT_EQ(count_findings(*f1), 1u);
  EXPECT_TRUE(fresh(k1).empty());
  // The gate gets past the static stage (and stops later: the hand-written K0 does not run on vec_add's launch).
  verify::EmuExecutor exec;
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  verify::VerifyOptions o;
  o.trials = 1;
  o.schedules = 1;
  auto r = verify::differential_verify(k0, k1, *shapes, exec, o);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_NE(r->rejected_by, "static") << r->reason;
  EXPECT_EQ(r->json["static"]["k1_inherited"], 1);
}

TEST_F(StaticFindings, KernelWideAbiFindingsMatchByMessage) {
  // Both allocate 8 VGPRs (granulated_workitem_vgpr_count 0) and use v0..v9: abi:vgpr in both. K1 inserting an
  // instruction first moves the finding's `at` but not the finding; K1 using v10 too is a worse finding.
  auto shrink = [](verify::CodeObject& c) { c.module.kernels.front().descriptor.set(codeobject::field::vgpr_blocks, 0); };
  const std::string body = "  v_mov_b32_e32 v9, 0\n  s_endpgm\n";
  auto a0 = with_program(k0, "vec_add:\n" + body), a1 = with_program(k0, "vec_add:\n  s_nop 0\n" + body),
       a2 = with_program(k0, "vec_add:\n  v_mov_b32_e32 v10, 0\n" + body);
  shrink(a0), shrink(a1), shrink(a2);
  auto f0 = verify::static_check(a0.module), f1 = verify::static_check(a1.module), f2 = verify::static_check(a2.module);
  ASSERT_TRUE(f0 && f1 && f2);
  ASSERT_EQ(count_findings(*f0), 1u);
  ASSERT_EQ((*f0)[0].findings[0].rule, "abi:vgpr");
  EXPECT_TRUE(verify::new_static_findings(a0.module, *f0, a1.module, *f1).empty());
  const auto worse = verify::new_static_findings(a0.module, *f0, a2.module, *f2);
  ASSERT_EQ(count_findings(worse), 1u);
  EXPECT_EQ(worse[0].findings[0].rule, "abi:vgpr");
}

/// Every aiter object (production assembly, up to ~15k instructions, several kernels per object, with warning
/// findings of their own): K1 = K0 with an `s_nop 0` after every kernel label and before every 997th instruction
/// inherits every finding (an s_nop creates none), the alignment costs well under a second, and every kernel but the
/// launched one counts as changed when it is not launched.
TEST(StaticFindingsCorpus, AiterFindingsSurviveInsertedNopsQuickly) {
  ASMEVO_REQUIRE_CORPUS(dir);
  std::size_t objects = 0, most_insts = 0, k0_findings = 0;
  double slowest = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "aiter-co")) {
    if (e.path().extension() != ".co") continue;
    SCOPED_TRACE(e.path().string());
    auto k0 = verify::load_code_object(e.path());
    ASSERT_TRUE(k0) << k0.error().str();
    ++objects;
    const Program& p0 = k0->module.program;
    most_insts = std::max(most_insts, p0.instruction_count());
    auto nop = parse_program("  s_nop 0\n", p0.target, "nop.s");
    ASSERT_TRUE(nop);
    Program p1 = p0;
    std::vector<Item> items;
    std::size_t n_inst = 0;
    for (const Item& it : p0.items) {
      const bool before = it.kind == Item::Kind::inst && ++n_inst % 997 == 0;
      auto add_nop = [&] {
        Item x = nop->items.front();
        x.inst.id = p1.fresh_id();
        items.push_back(std::move(x));
      };
      if (before) add_nop();
      items.push_back(it);
      bool entry = false;
      for (const auto& k : k0->module.kernels) entry = entry || (it.kind == Item::Kind::label && it.name == k.name);
      if (entry) add_nop();
    }
    p1.items = std::move(items);
    verify::CodeObject k1 = *k0;
    k1.module.program = std::move(p1);
    auto f0 = verify::static_check(k0->module), f1 = verify::static_check(k1.module);
    ASSERT_TRUE(f0 && f1);
    k0_findings += count_findings(*f0);
    const auto t0 = std::chrono::steady_clock::now();
    const auto fresh = verify::new_static_findings(k0->module, *f0, k1.module, *f1);
    const std::vector<verify::LaunchSpec> first{verify::LaunchSpec{.kernel = k0->module.kernels.front().name}};
    const auto changed = verify::unlaunched_changes(k0->module, k1.module, first);
    const auto same = verify::unlaunched_changes(k0->module, k0->module, first);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    slowest = std::max(slowest, s);
    EXPECT_EQ(count_findings(fresh), 0u) << (fresh.empty() ? "" : fresh[0].findings[0].message);
    EXPECT_EQ(changed.size(), k0->module.kernels.size() - 1);
    EXPECT_TRUE(same.empty());
    EXPECT_LT(s, 1.0);
  }
  EXPECT_EQ(objects, 32u);
  EXPECT_GT(k0_findings, 0u) << "the premise: aiter's own warnings give the alignment something to carry";
  std::printf("aiter: %zu objects, largest %zu instructions, %zu K0 findings, slowest alignment + coverage %.3f s\n",
              objects, most_insts, k0_findings, slowest);
}

// ---------------------------------------------------------------------------------------------------------------
// Kernels no launch runs
// ---------------------------------------------------------------------------------------------------------------

using test::edited_k1;
using test::rebuild_as_k1;

/// Inserts `line` right after the label line `label:`.
void insert_after_label(std::string& t, const std::string& label, const std::string& line) {
  const std::size_t at = t.find("\n" + label + ":");
  ASSERT_NE(at, std::string::npos) << label;
  const std::size_t eol = t.find('\n', at + 1);
  t.insert(eol + 1, line + "\n");
}

using test::buffer;
using test::random_init;
using test::scalar;

/// saxpy(a, x, y, n) of emu_kernels.hip: y is read and written, declared zeros.
verify::LaunchSpec saxpy_launch() {
  verify::LaunchSpec s;
  s.kernel = "saxpy";
  s.grid = {4, 1, 1};
  s.block = std::array<std::uint32_t, 3>{256, 1, 1};
  s.args = {scalar(DType::f32, std::bit_cast<std::uint32_t>(1.5f)), buffer(DType::f32, 1000, random_init(1, -1, 1)),
            buffer(DType::f32, 1000, verify::Init{}), scalar(DType::i32, 1000)};
  s.outputs = {2};
  s.trials = 2;
  return s;
}

class Unlaunched : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path co = fs::path(ASMEVO_EXAMPLES_DIR) / "emu_kernels.gfx942.co";
    if (!fs::exists(co)) GTEST_SKIP() << co << " was not built (clang-22 missing?)";
    auto k = verify::load_code_object(co);
    ASSERT_TRUE(k) << k.error().str();
    k0 = std::move(*k);
    ASSERT_GE(k0.module.kernels.size(), 8u);  // the premise: one object, many kernels
  }
  verify::CodeObject k0;
};

TEST_F(Unlaunched, ChangingAKernelNoLaunchRunsIsRejected) {
  auto k1 = edited_k1(k0, [](std::string& t) { insert_after_label(t, "collatz", "  s_nop 0"); });
  ASSERT_TRUE(k1);
  verify::EmuExecutor exec;
  const std::vector<verify::LaunchSpec> shapes = {saxpy_launch()};
  auto r = verify::differential_verify(k0, *k1, shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r->rejected_by, "coverage") << r->reason;
  EXPECT_NE(r->reason.find("kernel 'collatz' changed but no launch"), std::string::npos) << r->reason;
  EXPECT_FALSE(r->json.contains("shapes")) << "rejected before any run";
  ASSERT_EQ(r->json["unlaunched_changes"].size(), 1u);

  // Launching collatz as well moves the question to the runs (a leading s_nop changes no result).
  std::vector<verify::LaunchSpec> both = shapes;
  verify::LaunchSpec c;
  c.kernel = "collatz";
  c.grid = {2, 1, 1};
  c.block = std::array<std::uint32_t, 3>{256, 1, 1};
  c.args = {buffer(DType::u32, 500, random_init(5, 1, 1000)), buffer(DType::u32, 500, verify::Init{}),
            scalar(DType::i32, 500), scalar(DType::u32, 300)};
  c.outputs = {1};
  both.push_back(c);
  auto r2 = verify::differential_verify(k0, *k1, both, exec);
  ASSERT_TRUE(r2) << r2.error().str();
  EXPECT_EQ(r2->verdict, verify::Verdict::equivalent) << r2->rejected_by << ": " << r2->reason;
}

TEST_F(Unlaunched, UnchangedKernelsPassAndTheLaunchedOneRuns) {
  // An edit in the launched kernel only: no coverage question; the runs decide (equivalent: a leading s_nop).
  auto k1 = edited_k1(k0, [](std::string& t) { insert_after_label(t, "saxpy", "  s_nop 0"); });
  ASSERT_TRUE(k1);
  verify::EmuExecutor exec;
  const std::vector<verify::LaunchSpec> shapes = {saxpy_launch()};
  auto r = verify::differential_verify(k0, *k1, shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::equivalent) << r->rejected_by << ": " << r->reason;
  EXPECT_TRUE(r->json["unlaunched_changes"].empty());
  // saxpy reads y: from trial 1 on it reads the canary, the same for K0 and K1.
  EXPECT_EQ(r->json["shapes"][0]["trials"][1]["inputs"][1]["init"], "canary");
}

TEST_F(Unlaunched, MovedBranchTargetWithTheSameInstructionsIsAChange) {
  // The same instruction texts, one branch target label moved: label names alone would not show it.
  std::string text = print_program(k0.module.program);
  const auto c0 = text.find("\ncollatz:");
  ASSERT_NE(c0, std::string::npos);
  // The first branch inside collatz and the label it names.
  const std::size_t br = text.find("s_cbranch_", c0);
  ASSERT_NE(br, std::string::npos);
  const std::size_t sp = text.find(' ', br), eol = text.find_first_of(" ;\n", sp + 1);
  const std::string label = text.substr(sp + 1, eol - sp - 1);
  ASSERT_EQ(label.rfind(".L", 0), 0u) << label;
  auto p0 = parse_program(text, k0.module.target, "k0.s");
  ASSERT_TRUE(p0);
  // Move the label one instruction further: swap its item with the next instruction item.
  Program p = *p0;
  std::size_t li = p.items.size();
  for (std::size_t i = 0; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::label && p.items[i].name == label) li = i;
  ASSERT_LT(li, p.items.size());
  std::size_t ni = li + 1;
  while (ni < p.items.size() && p.items[ni].kind != Item::Kind::inst) ++ni;
  ASSERT_LT(ni, p.items.size());
  std::rotate(p.items.begin() + static_cast<std::ptrdiff_t>(li), p.items.begin() + static_cast<std::ptrdiff_t>(li) + 1,
              p.items.begin() + static_cast<std::ptrdiff_t>(ni) + 1);
  verify::CodeObject k1 = k0;
  k1.module.program = std::move(p);
  const auto changes = verify::unlaunched_changes(k0.module, k1.module, std::vector<verify::LaunchSpec>{saxpy_launch()});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kernel, "collatz");
  // And the unedited program compares equal.
  verify::CodeObject same = k0;
  same.module.program = std::move(*p0);
  EXPECT_TRUE(verify::unlaunched_changes(k0.module, same.module, std::vector<verify::LaunchSpec>{saxpy_launch()}).empty());
}

// ---------------------------------------------------------------------------------------------------------------
// Output canaries
// ---------------------------------------------------------------------------------------------------------------

/// vec_add with x = y = 0: K0 stores +0 into every out[i], i < n. K1 clears exec right before the store of out[i]
/// (the first of the four per work-item, element i of each 1024-element block; the s_or_b64 after it restores exec
/// from the saved mask), so the store is still there (the memory-model stage counts stores) but writes nothing.
TEST(Canary, SkippedStoreOfZerosIsRejected) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(triton(dir, "vec_add_f32"));
  ASSERT_TRUE(k0);
  auto k1 = edited_k1(*k0, [](std::string& t) {
    const std::size_t store = t.find("\tglobal_store_dword v[0:1], v4, off ;");
    ASSERT_NE(store, std::string::npos);
    t.insert(store, "\ts_mov_b64 exec, 0\n");
  });
  ASSERT_TRUE(k1);
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  for (auto& s : *shapes) s.args[0].buffer.init = s.args[1].buffer.init = verify::Init{};  // zeros
  verify::EmuExecutor exec;
  // With the declared inits both leave zeros: the trial with them (trial 0 of several) sees no difference. A single
  // trial runs with the canary, so one trial already rejects it. (The prover refutes it before any run, EXEC being
  // an output of the window; it is off here, since the runs are what this test is about.)
  verify::VerifyOptions one;
  one.trials = 1;
  one.refute = false;
  auto r1 = verify::differential_verify(*k0, *k1, *shapes, exec, one);
  ASSERT_TRUE(r1) << r1.error().str();
  EXPECT_EQ(r1->verdict, verify::Verdict::not_equivalent) << r1->reason;
  EXPECT_EQ(r1->json["shapes"][0]["trials"][0]["inputs"][2]["init"], "canary");

  // The state check rejects it already in trial 0 (EXEC differs after the inserted instruction); without it, the
  // canary of trial 1 is what shows the skipped store.
  verify::VerifyOptions no_state;
  no_state.state_check = false;
  no_state.refute = false;
  auto r = verify::differential_verify(*k0, *k1, *shapes, exec, no_state);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r->rejected_by, "run");
  // Shape 0 (n = 2048, two workgroups of 256 work-items): out[i] for i % 1024 < 256 is never written by K1.
  const auto& t1 = r->json["shapes"][0]["trials"][1];
  EXPECT_EQ(t1["trial"], 1);
  const nlohmann::ordered_json* out = nullptr;
  for (const auto& b : t1["k1"][0]["buffers"])
    if (b["arg"] == 2) out = &b;
  ASSERT_NE(out, nullptr);
  EXPECT_EQ((*out)["differing"].get<std::size_t>(), 512u);
  const auto& d = (*out)["first_differences"][0];
  EXPECT_EQ(d["index"], 0);
  EXPECT_EQ(d["k0_bits"], "0x00000000");
  EXPECT_NE(d["k1_bits"], "0x00000000");
  // The receipt says which init each buffer started from: the output a canary, the inputs their declared zeros.
  EXPECT_EQ(t1["inputs"][2]["init"], "canary");
  EXPECT_EQ(t1["inputs"][2]["output"], true);
  EXPECT_EQ(t1["inputs"][2]["declared"]["init"], "zeros");
  EXPECT_EQ(t1["inputs"][0]["init"], "zeros");
  // Trial 0 of two keeps the declared init, and K1 passes it: only the canary exposes the skipped store.
  EXPECT_EQ(r->json["shapes"][0]["trials"][0]["inputs"][2]["init"], "zeros");
  for (const auto& b : r->json["shapes"][0]["trials"][0]["k1"][0]["buffers"]) EXPECT_EQ(b["differing"], 0) << b.dump();
}

/// A K0 that reads its output as an offset (vec_add edited to load out[i] and then y at that byte offset before its
/// first store): declared zeros make the offset 0, a canary makes it fault. That trial keeps the declared inits, says
/// so in the receipt, and K0 against itself stays equivalent.
TEST(Canary, K0ThatReadsItsOutputKeepsTheDeclaredInit) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto orig = verify::load_code_object(triton(dir, "vec_add_f32"));
  ASSERT_TRUE(orig);
  auto k0 = edited_k1(*orig, [](std::string& t) {
    const std::size_t store = t.find("\tglobal_store_dword v[0:1], v4, off ;");
    ASSERT_NE(store, std::string::npos);
    // v5 is free here (v[4:5] held y's address); s[4:5] is still y (the s_load_dwordx8 s[4:11] of the prologue).
    t.insert(store, "\tglobal_load_dword v5, v[0:1], off\n\ts_waitcnt vmcnt(0)\n\tglobal_load_dword v5, v5, s[4:5]\n"
                    "\ts_waitcnt vmcnt(0)\n");
  });
  ASSERT_TRUE(k0);
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  verify::EmuExecutor exec;
  auto r = verify::differential_verify(*k0, *k0, *shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::equivalent) << r->rejected_by << ": " << r->reason;
  const auto& t1 = r->json["shapes"][0]["trials"][1];
  ASSERT_TRUE(t1.contains("canary_dropped")) << t1.dump();
  EXPECT_NE(t1["canary_dropped"].get<std::string>().find("fault"), std::string::npos) << t1["canary_dropped"];
  EXPECT_EQ(t1["inputs"][2]["init"], "zeros");
  EXPECT_FALSE(r->json["shapes"][0]["trials"][0].contains("canary_dropped"));
}

/// A canary materializes for every dtype (its range fits the dtype), differs between trials, and is rarely zero.
TEST(Canary, CanaryInitsDrawPerTrialAndAreRarelyZero) {
  for (DType t : {DType::u8, DType::i8, DType::i16, DType::u32, DType::i32, DType::i64, DType::u64, DType::f32,
                  DType::bf16, DType::fp8e4m3fnuz, DType::fp8e5m2}) {
    verify::BufferArg b;
    b.dtype = t;
    b.count = 4096;
    b.init = verify::canary_init(t, 3);
    auto x = verify::materialize(b, 1), y = verify::materialize(b, 2);
    ASSERT_TRUE(x && y) << verify::dtype_name(t);
    EXPECT_NE(*x, *y) << verify::dtype_name(t);
    // No element is zero-filled in bulk: at most a few elements of 4096 are 0.
    const std::size_t sz = verify::dtype_size(t);
    std::size_t zeros = 0;
    for (std::size_t i = 0; i < b.count; ++i) {
      bool z = true;
      for (std::size_t k = 0; k < sz; ++k) z = z && (*x)[i * sz + k] == std::byte{0};
      zeros += z;
    }
    EXPECT_LT(zeros, 64u) << verify::dtype_name(t);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// LDS beyond what the launch is known to give
// ---------------------------------------------------------------------------------------------------------------

/// transpose_f32_64 declares no fixed group segment (Triton's shared memory is all dynamic) and touches about 16 KiB
/// of LDS. K1 also reads 4 bytes at LDS offset 40000 right before s_endpgm, as `ds_read_b32 v0, v0` with v0 = 40000:
/// K0 reads through v0 at offset 0 after its last s_barrier too (i285, i300), and the memory-model stage compares
/// address operands by name, not value, so it leaves this to the runs. No output changes, and the emulator's default
/// allocation (the rest of the 64 KiB) holds it, yet a launcher passing what K0 needs gives K1 too little.
/// Without "dynamic_lds" it is rejected; with "dynamic_lds": 65536 declared, the allocation is known and it passes.
TEST(Lds, K1PastK0sLdsNeedsADeclaredAllocation) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(triton(dir, "transpose_f32_64"));
  ASSERT_TRUE(k0);
  auto k1 = edited_k1(*k0, [](std::string& t) {
    const std::size_t end = t.rfind("\ts_endpgm");
    ASSERT_NE(end, std::string::npos);
    t.insert(end, "\ts_waitcnt vmcnt(0) lgkmcnt(0)\n\tv_mov_b32 v0, 40000\n\tds_read_b32 v0, v0\n"
                  "\ts_waitcnt lgkmcnt(0)\n");
  });
  ASSERT_TRUE(k1);
  auto shapes = verify::read_launch_file(launch_file("transpose_f32_64"));
  ASSERT_TRUE(shapes);
  verify::EmuExecutor exec;
  auto r = verify::differential_verify(*k0, *k1, *shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent) << r->reason;
  EXPECT_EQ(r->rejected_by, "run");
  EXPECT_NE(r->reason.find("up to byte 40004"), std::string::npos) << r->reason;
  EXPECT_NE(r->reason.find("dynamic_lds"), std::string::npos) << r->reason;

  // K0 against itself never trips it, and neither does K1 once the launch declares the allocation.
  auto same = verify::differential_verify(*k0, *k0, *shapes, exec);
  ASSERT_TRUE(same) << same.error().str();
  EXPECT_EQ(same->verdict, verify::Verdict::equivalent) << same->reason;
  for (auto& s : *shapes) s.dynamic_lds = 65536;
  auto declared = verify::differential_verify(*k0, *k1, *shapes, exec);
  ASSERT_TRUE(declared) << declared.error().str();
  EXPECT_EQ(declared->verdict, verify::Verdict::equivalent) << declared->rejected_by << ": " << declared->reason;
  // And a declared allocation K1 overruns faults on the emulator.
  for (auto& s : *shapes) s.dynamic_lds = 32768;
  auto small = verify::differential_verify(*k0, *k1, *shapes, exec);
  ASSERT_TRUE(small) << small.error().str();
  EXPECT_EQ(small->verdict, verify::Verdict::not_equivalent) << small->reason;
  EXPECT_NE(small->reason.find("outside the workgroup's LDS allocation"), std::string::npos) << small->reason;
}

// ---------------------------------------------------------------------------------------------------------------
// Changes no run executes
// ---------------------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------------------
// Registers the initial state leaves undefined
// ---------------------------------------------------------------------------------------------------------------

/// vec_add's K1 adds s40 to the last element's sum before its store. s40 is no SGPR the initial state sets (user
/// SGPRs s0..s13, the workgroup id in s14), so on hardware it holds garbage; were the emulator to start it at zero, K1
/// would store the same bits as K0 and pass. The static checks name the read (undef:read); with them off, the prover
/// refutes the one-instruction window (s40 = -1); with that off too, s40 starts as garbage (the same for K0 and K1 in
/// one trial): rejected by the runs, at an element of the last quarter of a block.
TEST(UndefinedRegisters, AReadOfAnSgprNothingWroteIsCaught) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(triton(dir, "vec_add_f32"));
  ASSERT_TRUE(k0);
  auto k1 = edited_k1(*k0, [](std::string& t) {
    const std::size_t at = t.rfind("v_add_f32_e32 v4, v7, v11");
    ASSERT_NE(at, std::string::npos);
    const std::size_t eol = t.find('\n', at);
    t.insert(eol + 1, "\tv_add_u32_e32 v4, s40, v4\n");
  });
  ASSERT_TRUE(k1);
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  verify::EmuExecutor exec;
  auto st = verify::differential_verify(*k0, *k1, *shapes, exec);
  ASSERT_TRUE(st) << st.error().str();
  EXPECT_EQ(st->rejected_by, "static") << st->reason;
  EXPECT_NE(st->reason.find("undef:read"), std::string::npos) << st->reason;
  EXPECT_NE(st->reason.find("reads s40"), std::string::npos) << st->reason;
  verify::VerifyOptions o;
  o.static_checks = false;
  auto p = verify::differential_verify(*k0, *k1, *shapes, exec, o);
  ASSERT_TRUE(p) << p.error().str();
  EXPECT_EQ(p->rejected_by, "refuted") << p->reason;
  EXPECT_NE(p->reason.find("s40 = "), std::string::npos) << p->reason;
  o.refute = false;
  auto r = verify::differential_verify(*k0, *k1, *shapes, exec, o);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent) << r->rejected_by << ": " << r->reason;
  EXPECT_EQ(r->rejected_by, "run") << r->reason;
  EXPECT_NE(r->reason.find("first at [768]"), std::string::npos) << r->reason;
}

/// Code outside every kernel (a callee after kernel k's `.size`) is coverage-checked when a launched kernel calls:
/// unexercised_changes over hand-written modules, with what "ran" given directly.
///  - K1 changes the callee's v_mov_b32: reported under "(code outside every kernel)" unless both sides ran it.
///  - K1 moves the callee's label past its first instruction: the s_add_u32 that names the label in an expression
///    is a change (its target moved) though its text is the same; it is exercised when both sides ran it.
TEST(Unexercised, CalleeCodeIsCheckedWhenALaunchedKernelCalls) {
  const std::string head = "k:\n  s_getpc_b64 s[16:17]\n.Lg:\n  s_add_u32 s16, s16, helper-.Lg\n"
                           "  s_addc_u32 s17, s17, 0\n  s_swappc_b64 s[30:31], s[16:17]\n  s_endpgm\n.Lend:\n"
                           "  .size k, .Lend-k\n";
  auto module = [&](const std::string& callee) {
    codeobject::Module m;
    m.target = Target::gfx942;
    auto p = parse_program(head + callee, m.target, "callee.s");
    EXPECT_TRUE(p) << (p ? "" : p.error().str());
    if (p) m.program = std::move(*p);
    codeobject::KernelInfo k;
    k.name = "k";
    m.kernels.push_back(k);
    return m;
  };
  const codeobject::Module m0 = module("helper:\n  v_mov_b32 v4, 0\n  v_mov_b32 v5, 0\n  s_setpc_b64 s[30:31]\n");
  const codeobject::Module m1 = module("helper:\n  v_mov_b32 v4, 1\n  v_mov_b32 v5, 0\n  s_setpc_b64 s[30:31]\n");
  verify::LaunchSpec launch;
  launch.kernel = "k";
  const std::vector<verify::LaunchSpec> shapes = {launch};
  // Instruction ids in program order: i0 s_getpc, i1 s_add_u32, i2 s_addc, i3 s_swappc, i4 s_endpgm, i5..i7 helper.
  verify::Exercised kernel_only, all;
  for (std::uint32_t i = 0; i < 5; ++i) kernel_only.ran.insert(i);
  for (std::uint32_t i = 0; i < 8; ++i) all.ran.insert(i);
  auto changes = verify::unexercised_changes(m0, m1, shapes, kernel_only, kernel_only);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].kernel, "(code outside every kernel)");
  EXPECT_NE(changes[0].what.find("K1 deletes or changes K0's i5 `v_mov_b32_e32 v4, 0`"), std::string::npos)
      << changes[0].what;
  EXPECT_NE(changes[1].what.find("K1 adds or changes i5 `v_mov_b32_e32 v4, 1`"), std::string::npos) << changes[1].what;
  EXPECT_TRUE(verify::unexercised_changes(m0, m1, shapes, all, all).empty());
  EXPECT_TRUE(verify::unexercised_changes(m0, m0, shapes, kernel_only, kernel_only).empty());

  const codeobject::Module moved = module("  v_mov_b32 v4, 0\nhelper:\n  v_mov_b32 v5, 0\n  s_setpc_b64 s[30:31]\n");
  verify::Exercised no_add = all;
  no_add.ran.erase(1);
  changes = verify::unexercised_changes(m0, moved, shapes, no_add, no_add);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_NE(changes[0].what.find("s_add_u32 s16, s16, helper-.Lg"), std::string::npos) << changes[0].what;
  EXPECT_TRUE(verify::unexercised_changes(m0, moved, shapes, all, all).empty());
  EXPECT_TRUE(verify::unexercised_changes(m0, m0, shapes, no_add, no_add).empty());
}

/// vec_add with a guarded region before its last s_endpgm (s14 holds the workgroup id x: `s_lshl_b32 s0, s14, 10`).
///  - `s_cmp_lg_u32 0, 0`: the branch skips the region on every launch. Neither the v_mov_b32 nor the s_waitcnt in
///    it ever runs, and the inserted branch never falls through: the runs verified none of the three, and the gate
///    rejects K1 ("coverage") naming them.
///  - `s_cmp_eq_u32 0, 0`: the region runs (and is inert), but the branch is never taken: where it would jump is
///    unverified, and a branch whose taken edge no run follows is rejected too.
///  - `s_cmp_eq_u32 s14, 0`: workgroup 0 runs the region, the others jump over it: accepted.
TEST(Unexercised, AChangeNoRunExecutesIsRejected) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(triton(dir, "vec_add_f32"));
  ASSERT_TRUE(k0);
  auto guarded = [&](const std::string& cmp) {
    return edited_k1(*k0, [&](std::string& t) {
      const std::size_t end = t.rfind("\ts_endpgm");
      ASSERT_NE(end, std::string::npos);
      t.insert(end, "\t" + cmp + "\n\ts_cbranch_scc0 .Lasmevo_skip\n\ts_waitcnt vmcnt(0)\n\tv_mov_b32 v4, 0\n"
                    ".Lasmevo_skip:\n");
    });
  };
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  verify::EmuExecutor exec;
  auto never = guarded("s_cmp_lg_u32 0, 0");
  ASSERT_TRUE(never);
  auto r = verify::differential_verify(*k0, *never, *shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent) << r->reason;
  EXPECT_EQ(r->rejected_by, "coverage") << r->reason;
  EXPECT_EQ(r->json["coverage"], "checked");
  ASSERT_EQ(r->json["unexercised_changes"].size(), 3u) << r->json["unexercised_changes"].dump();
  auto what = [](const verify::Receipt& v, std::size_t i) {
    return v.json["unexercised_changes"][i]["what"].get<std::string>();
  };
  EXPECT_NE(what(*r, 0).find("s_cbranch_scc0"), std::string::npos) << what(*r, 0);
  EXPECT_NE(what(*r, 0).find("fell through"), std::string::npos) << what(*r, 0);
  EXPECT_NE(what(*r, 1).find("s_waitcnt vmcnt(0)"), std::string::npos) << what(*r, 1);
  EXPECT_NE(what(*r, 2).find("v_mov_b32_e32 v4, 0"), std::string::npos) << what(*r, 2);
  EXPECT_NE(r->reason.find("s_cbranch_scc0"), std::string::npos) << r->reason;

  auto untaken = guarded("s_cmp_eq_u32 0, 0");
  ASSERT_TRUE(untaken);
  auto u = verify::differential_verify(*k0, *untaken, *shapes, exec);
  ASSERT_TRUE(u) << u.error().str();
  EXPECT_EQ(u->verdict, verify::Verdict::not_equivalent) << u->reason;
  EXPECT_EQ(u->rejected_by, "coverage") << u->reason;
  ASSERT_EQ(u->json["unexercised_changes"].size(), 1u) << u->json["unexercised_changes"].dump();
  EXPECT_NE(what(*u, 0).find("s_cbranch_scc0"), std::string::npos) << what(*u, 0);

  auto both = guarded("s_cmp_eq_u32 s14, 0");
  ASSERT_TRUE(both);
  auto a = verify::differential_verify(*k0, *both, *shapes, exec);
  ASSERT_TRUE(a) << a.error().str();
  EXPECT_EQ(a->verdict, verify::Verdict::equivalent) << a->rejected_by << ": " << a->reason;
  EXPECT_TRUE(a->json["unexercised_changes"].empty()) << a->json["unexercised_changes"].dump();
}

/// A vector instruction issued with no lane enabled changes nothing, so a run through it does not exercise it: K1
/// adds `v_mov_b32 v4, 0` before vec_add's last s_endpgm with EXEC cleared around it (s[0:1] is dead there), and the
/// gate rejects it naming that instruction; with EXEC left alone the same insertion runs with lanes on and passes.
TEST(Unexercised, AVectorInstructionRunWithNoLaneEnabledIsNotExercised) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(triton(dir, "vec_add_f32"));
  ASSERT_TRUE(k0);
  auto with = [&](const std::string& exec_line) {
    return edited_k1(*k0, [&](std::string& t) {
      const std::size_t end = t.rfind("\ts_endpgm");
      ASSERT_NE(end, std::string::npos);
      t.insert(end, "\ts_mov_b64 s[0:1], exec\n\t" + exec_line + "\n\tv_mov_b32 v4, 0\n\ts_mov_b64 exec, s[0:1]\n");
    });
  };
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  verify::EmuExecutor exec;
  auto off = with("s_mov_b64 exec, 0");
  ASSERT_TRUE(off);
  auto r = verify::differential_verify(*k0, *off, *shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent) << r->reason;
  EXPECT_EQ(r->rejected_by, "coverage") << r->reason;
  ASSERT_EQ(r->json["unexercised_changes"].size(), 1u) << r->json["unexercised_changes"].dump();
  EXPECT_NE(r->reason.find("v_mov_b32_e32 v4, 0"), std::string::npos) << r->reason;
  EXPECT_NE(r->reason.find("with a lane enabled"), std::string::npos) << r->reason;

  auto on = with("s_or_b64 exec, exec, 0");
  ASSERT_TRUE(on);
  auto a = verify::differential_verify(*k0, *on, *shapes, exec);
  ASSERT_TRUE(a) << a.error().str();
  EXPECT_EQ(a->verdict, verify::Verdict::equivalent) << a->rejected_by << ": " << a->reason;
}

/// K0 here is vec_add with a branch that no launch takes (`s_cmp_eq_u32 0, 0; s_cbranch_scc0`) over an inert
/// v_mov_b32 before the last s_endpgm; K1 moves the branch's label above the v_mov_b32. Every instruction is the
/// same and every one runs, but the branch's target moved and no run jumps there: rejected. With a condition some
/// workgroups take (s14, the workgroup id, is 0), both objects' branches are taken and fall through: accepted.
TEST(Unexercised, AMovedTargetNoRunJumpsToIsRejected) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto base = verify::load_code_object(triton(dir, "vec_add_f32"));
  ASSERT_TRUE(base);
  auto variant = [&](const std::string& cmp, bool label_first) {
    return edited_k1(*base, [&](std::string& t) {
      const std::size_t end = t.rfind("\ts_endpgm");
      ASSERT_NE(end, std::string::npos);
      t.insert(end, "\t" + cmp + "\n\ts_cbranch_scc0 .Lasmevo_over\n" +
                        (label_first ? ".Lasmevo_over:\n\tv_mov_b32 v4, 0\n" : "\tv_mov_b32 v4, 0\n.Lasmevo_over:\n"));
    });
  };
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  verify::EmuExecutor exec;
  auto k0 = variant("s_cmp_eq_u32 0, 0", false), k1 = variant("s_cmp_eq_u32 0, 0", true);
  ASSERT_TRUE(k0 && k1);
  auto r = verify::differential_verify(*k0, *k1, *shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent) << r->reason;
  EXPECT_EQ(r->rejected_by, "coverage") << r->reason;
  EXPECT_NE(r->reason.find("s_cbranch_scc0"), std::string::npos) << r->reason;
  EXPECT_NE(r->reason.find("both took"), std::string::npos) << r->reason;

  auto t0 = variant("s_cmp_eq_u32 s14, 0", false), t1 = variant("s_cmp_eq_u32 s14, 0", true);
  ASSERT_TRUE(t0 && t1);
  auto a = verify::differential_verify(*t0, *t1, *shapes, exec);
  ASSERT_TRUE(a) << a.error().str();
  EXPECT_EQ(a->verdict, verify::Verdict::equivalent) << a->rejected_by << ": " << a->reason;
}

}  // namespace
