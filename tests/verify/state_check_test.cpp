// The verifier's state check (verify/differential.hpp state_points / state_difference, emu/watch.hpp): after each
// edited region, the registers both kernels may still read must hold what K0 holds. Shown on Triton corpus kernels
// with edits whose difference the outputs hide (a float sum reordered, a constant that only matters for a zero input) -- the
// output comparison alone accepts them, the state check does not -- and with correct edits it must accept (two
// independent moves swapped, an s_nop inserted, a register renamed); on synthetic logs, how differences, pending
// loads, visit counts and a second run of K0 are judged.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/differential.hpp"
#include "asmevo/verify/emu_executor.hpp"
#include "support/corpus.hpp"
#include "verify/k1_edit.hpp"

namespace {

using namespace asmevo;
using test::edited_k1;

std::filesystem::path launch_file(const std::string& stem) {
  return std::filesystem::path(ASMEVO_SOURCE_DIR) / "tests" / "data" / "launch" / "triton" / (stem + ".json");
}

std::string corpus_file(const std::filesystem::path& dir, const std::string& stem, Target t) {
  return (dir / "triton" / (stem + "." + std::string(to_string(t)) + ".hsaco")).string();
}

/// Replaces the one line of `text` that holds `from` (an instruction and its id comment) by `to`.
void replace_line(std::string& text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  ASSERT_EQ(text.find(from, at + 1), std::string::npos) << "not unique: " << from;
  text.replace(at, from.size(), to);
}

/// Swaps the lines that hold `a` and `b` (whole lines, id comments included).
void swap_lines(std::string& text, const std::string& a, const std::string& b) {
  auto line_of = [&](const std::string& s) {
    const auto at = text.find(s);
    EXPECT_NE(at, std::string::npos) << s;
    const auto begin = text.rfind('\n', at) + 1, end = text.find('\n', at);
    return std::pair(begin, end);
  };
  const auto [a0, a1] = line_of(a);
  const auto [b0, b1] = line_of(b);
  ASSERT_LT(a1, b0);
  const std::string la = text.substr(a0, a1 - a0), lb = text.substr(b0, b1 - b0);
  text.replace(b0, b1 - b0, la);
  text.replace(a0, a1 - a0, lb);
}

struct Verdicts {
  verify::Receipt with, without;
};

/// Verifies `k1` against `k0` on the stem's launch file with the state check and without it.
std::optional<Verdicts> verify_both(const verify::CodeObject& k0, const verify::CodeObject& k1, const std::string& stem) {
  auto shapes = verify::read_launch_file(launch_file(stem));
  EXPECT_TRUE(shapes) << shapes.error().str();
  if (!shapes) return std::nullopt;
  verify::EmuExecutor exec;
  verify::VerifyOptions on, off;
  off.state_check = false;
  auto a = verify::differential_verify(k0, k1, *shapes, exec, on);
  auto b = verify::differential_verify(k0, k1, *shapes, exec, off);
  EXPECT_TRUE(a && b);
  if (!a || !b) return std::nullopt;
  return Verdicts{std::move(*a), std::move(*b)};
}

/// Edits `stem` for `t` and checks that only the state check rejects the result, at instruction `at` (the text "K0 iN
/// / K1 iM") and naming `reg`; returns the receipt with the state check.
std::optional<verify::Receipt> expect_state_rejection(const std::filesystem::path& dir, const std::string& stem,
                                                       Target t, const std::function<void(std::string&)>& edit,
                                                       const std::string& at, const std::string& reg) {
  auto k0 = verify::load_code_object(corpus_file(dir, stem, t));
  EXPECT_TRUE(k0) << k0.error().str();
  if (!k0) return std::nullopt;
  auto k1 = edited_k1(*k0, edit);
  EXPECT_TRUE(k1);
  if (!k1) return std::nullopt;
  auto v = verify_both(*k0, *k1, stem);
  if (!v) return std::nullopt;
  EXPECT_EQ(v->without.verdict, verify::Verdict::equivalent) << v->without.reason;
  EXPECT_EQ(v->with.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(v->with.rejected_by, "state");
  EXPECT_NE(v->with.reason.find(at), std::string::npos) << v->with.reason;
  EXPECT_NE(v->with.reason.find(reg + " differs"), std::string::npos) << v->with.reason;
  EXPECT_EQ(v->with.json["state_check"]["status"], "checked");
  return std::move(v->with);
}

// layer_norm's row sum on gfx90a adds one loaded element after another; swapping two of the additions rounds
// differently in some rows. The f16 outputs hide it on every launch of the launch file; the sum register does not:
// the point is the instruction after the swapped pair, i79, and the register the running sum.
TEST(StateCheck, ReorderedFloatSumIsCaught) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto r = expect_state_rejection(
      dir, "layer_norm_f16", Target::gfx90a,
      [](std::string& t) { swap_lines(t, "v_add_f32_e32 v16, v16, v22", "v_add_f32_e32 v16, v16, v23"); },
      "K0 i79 / K1 i79", "v16");
  EXPECT_TRUE(r);
}

// silu_and_mul on gfx950 computes -x as 0 - x; with the inline constant 16 instead of 0 the subtraction reads the
// bit pattern 0x10, a subnormal, so -x changes only for x = 0 and the output (x * sigmoid(x) * y) does not change.
TEST(StateCheck, SubnormalConstantIsCaughtAtTheNextInstruction) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto r = expect_state_rejection(
      dir, "silu_and_mul_bf16", Target::gfx950,
      [](std::string& t) { replace_line(t, "v_sub_f32_e32 v5, 0, v14", "v_sub_f32_e32 v5, 16, v14"); },
      "K0 i85 / K1 i85", "v5");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->json["state_check"]["points"], 1);
}

// Edits that keep every value: two independent moves swapped, an s_nop inserted. Each makes points (the state
// check runs there) and passes.
TEST(StateCheck, CorrectEditsPass) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(corpus_file(dir, "vec_add_f32", Target::gfx942));
  ASSERT_TRUE(k0) << k0.error().str();
  auto swapped = edited_k1(*k0, [](std::string& t) { swap_lines(t, "v_mov_b32_e32 v6, 0", "v_mov_b32_e32 v8, 0"); });
  auto nop = edited_k1(*k0, [](std::string& t) {
    replace_line(t, "v_or_b32_e32 v4, 0x100, v0", "s_nop 0\n\tv_or_b32_e32 v4, 0x100, v0");
  });
  ASSERT_TRUE(swapped && nop);
  for (const auto* k1 : {&*swapped, &*nop}) {
    auto v = verify_both(*k0, *k1, "vec_add_f32");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->with.verdict, verify::Verdict::equivalent) << v->with.rejected_by << ": " << v->with.reason;
    EXPECT_EQ(v->with.json["state_check"]["status"], "checked");
    EXPECT_GE(v->with.json["state_check"]["points"].get<int>(), 1);
  }
}

// A register renamed in K1 (v6 -> v14 at its three instructions, as a register allocator would): K0's v6 is live
// after each edit and K1's v6 never holds the value, but only registers live in both are compared, so it passes.
TEST(StateCheck, RenamedRegisterPasses) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(corpus_file(dir, "vec_add_f32", Target::gfx942));
  ASSERT_TRUE(k0) << k0.error().str();
  auto k1 = edited_k1(*k0, [](std::string& t) {
    replace_line(t, "v_mov_b32_e32 v6, 0", "v_mov_b32_e32 v14, 0");
    replace_line(t, "global_load_dword v6, v[2:3], off offset:1024", "global_load_dword v14, v[2:3], off offset:1024");
    replace_line(t, "v_add_f32_e32 v4, v6, v10", "v_add_f32_e32 v4, v14, v10");
  });
  ASSERT_TRUE(k1);
  auto v = verify_both(*k0, *k1, "vec_add_f32");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->with.verdict, verify::Verdict::equivalent) << v->with.rejected_by << ": " << v->with.reason;
  EXPECT_EQ(v->with.json["state_check"]["status"], "checked");
  EXPECT_GE(v->with.json["state_check"]["points"].get<int>(), 3);
  // The same rename with a reader left behind is caught (by the outputs: v6 is 0 where K0 loaded it).
  auto stale = edited_k1(*k0, [](std::string& t) {
    replace_line(t, "global_load_dword v6, v[2:3], off offset:1024", "global_load_dword v14, v[2:3], off offset:1024");
  });
  ASSERT_TRUE(stale);
  auto w = verify_both(*k0, *stale, "vec_add_f32");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->with.verdict, verify::Verdict::not_equivalent);
}

// A shape that declares a tolerance allows reassociation: the state check is off, and the receipt says why.
TEST(StateCheck, OffWhenAToleranceIsDeclared) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(corpus_file(dir, "layer_norm_f16", Target::gfx90a));
  ASSERT_TRUE(k0) << k0.error().str();
  auto k1 = edited_k1(*k0, [](std::string& t) {
    swap_lines(t, "v_add_f32_e32 v16, v16, v22", "v_add_f32_e32 v16, v16, v23");
  });
  ASSERT_TRUE(k1);
  auto shapes = verify::read_launch_file(launch_file("layer_norm_f16"));
  ASSERT_TRUE(shapes);
  (*shapes)[0].tolerance[static_cast<std::size_t>(verify::DType::f16)] = verify::Tolerance{1e-3, 1e-3};
  verify::EmuExecutor exec;
  auto r = verify::differential_verify(*k0, *k1, *shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::equivalent) << r->reason;
  EXPECT_EQ(r->json["state_check"]["status"].get<std::string>().rfind("off: a shape declares a tolerance", 0), 0u);
}

// state_points on one replaced instruction: one point, at the next instruction, with the registers K0 reads later.
TEST(StateCheck, OnePointAfterOneReplacedInstruction) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(corpus_file(dir, "vec_add_f32", Target::gfx942));
  ASSERT_TRUE(k0) << k0.error().str();
  auto k1 = edited_k1(*k0, [](std::string& t) {
    replace_line(t, "v_or_b32_e32 v4, 0x100, v0", "v_or_b32_e32 v4, 0x101, v0");
  });
  ASSERT_TRUE(k1);
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  const auto pts = verify::state_points(k0->module, k1->module, *shapes);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0].at0.value, 17u);  // v_cmp_gt_i32_e64 s[0:1], s8, v4, right after i16
  EXPECT_EQ(pts[0].at1.value, 17u);
  std::vector<std::string> names;
  for (auto u : pts[0].units) names.push_back(analysis::detail::unit_name(u));
  for (const char* want : {"v4", "s8", "v0", "exec_lo", "exec_hi", "vcc_lo", "v2", "v3"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  // v4 is written by i22 before anything else reads it, but i17 reads it: live. s0 is overwritten by i17 itself.
  EXPECT_EQ(std::find(names.begin(), names.end(), "s0"), names.end());
}

// ---- state_difference on synthetic logs ------------------------------------------------------------------------

emu::WatchVisit visit(std::uint64_t exec, std::vector<std::uint64_t> values, std::vector<std::uint8_t> pending = {}) {
  emu::WatchVisit v;
  v.exec = exec;
  pending.resize(values.size(), 0);
  v.values = std::move(values);
  v.pending = std::move(pending);
  return v;
}

TEST(StateDifference, EqualLogsPassAndPendingUnitsAreNotCompared) {
  const std::vector<verify::StatePoint> pts{{"k", InstId{5}, InstId{6}, {2, 256}}};  // s2, v0
  emu::WatchLog a, b;
  const emu::WatchKey key{0, {1, 0, 0}, 2};
  a.visits[key] = {visit(~0ull, {7, 11}), visit(~0ull, {8, 12})};
  b.visits[key] = {visit(~0ull, {7, 11}), visit(~0ull, {8, 99}, {0, 1})};  // v0 still owed by a load in K1
  EXPECT_FALSE(verify::state_difference(pts, a, b).has_value());
  b.visits[key][1].pending = {0, 0};
  const auto d = verify::state_difference(pts, a, b);
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(d->find("K0 i5 / K1 i6"), std::string::npos) << *d;
  EXPECT_NE(d->find("workgroup (1,0,0) wave 2, visit 2: v0 differs"), std::string::npos) << *d;
}

TEST(StateDifference, ScalarValuesAndVisitCounts) {
  const std::vector<verify::StatePoint> pts{{"k", InstId{5}, InstId{5}, {3}}};  // s3
  emu::WatchLog a, b;
  const emu::WatchKey key{0, {0, 0, 0}, 0};
  a.visits[key] = {visit(1, {0x27000})};
  b.visits[key] = {visit(1, {0x4e000})};
  auto d = verify::state_difference(pts, a, b);
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(d->find("s3: K0 0x27000, K1 0x4e000"), std::string::npos) << *d;
  // Visits that do not correspond (an unrolled loop reaches the point half as often) are not compared.
  b.visits[key] = {visit(1, {0x4e000}), visit(1, {0x4e000})};
  EXPECT_FALSE(verify::state_difference(pts, a, b).has_value());
  b.visits.clear();
  EXPECT_FALSE(verify::state_difference(pts, a, b).has_value());
  // A log cut short holds a prefix of the visits: the visits both recorded are compared.
  b.visits[key] = {visit(1, {0x4e000})};
  a.visits[key].push_back(visit(1, {0x27000}));
  a.truncated = true;
  EXPECT_TRUE(verify::state_difference(pts, a, b).has_value());
}

// With a second run of K0, a value K0 itself does not reproduce (an atomic's return, a race between waves) is the
// schedule's, not the edit's: not compared. What K0 reproduces still is.
TEST(StateDifference, WhatK0DoesNotReproduceIsNotCompared) {
  const std::vector<verify::StatePoint> pts{{"k", InstId{5}, InstId{5}, {3, 4}}};  // s3, s4
  emu::WatchLog a, b, again;
  const emu::WatchKey key{0, {0, 0, 0}, 1};
  a.visits[key] = {visit(1, {10, 20})};
  b.visits[key] = {visit(1, {11, 20})};
  again.visits[key] = {visit(1, {12, 20})};
  EXPECT_TRUE(verify::state_difference(pts, a, b).has_value());
  EXPECT_FALSE(verify::state_difference(pts, a, b, &again).has_value());
  b.visits[key] = {visit(1, {11, 21})};
  const auto d = verify::state_difference(pts, a, b, &again);
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(d->find("s4: K0 0x14, K1 0x15"), std::string::npos) << *d;
  // A second run that reaches the point a different number of times says nothing about the visits there.
  again.visits[key].push_back(visit(1, {10, 20}));
  EXPECT_FALSE(verify::state_difference(pts, a, b, &again).has_value());
}

}  // namespace
