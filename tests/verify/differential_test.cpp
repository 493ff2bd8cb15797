// verify/differential.hpp, verify/emu_executor.hpp, verify/memory_model.hpp and the launch-file additions of
// launch/launch_spec.hpp: the comparison policy element by element (NaN, signed zeros, the abs/rel boundary); launch
// files with several shapes and per-dtype tolerances; every Triton corpus kernel, recovered and relinked, verifies
// equivalent to its original under tests/data/launch/triton; K1s with one planted defect are rejected by the stage
// that should reject them, and the receipt's first difference equals what this test computes from the inputs. The
// adversarial hold-one-wave schedule: named in the receipt, and what rejects a long-window LDS race that the memory
// model cannot see and a random schedule does not show (a self-contained kernel assembled here).
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "asmevo/codeobject/link.hpp"
#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/mc/llvm_mc.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/differential.hpp"
#include "asmevo/verify/emu_executor.hpp"
#include "support/corpus.hpp"
#include "verify/k1_edit.hpp"

namespace {

using namespace asmevo;
using verify::DType;
using verify::Element;
using verify::Tolerance;

Element f32e(float v) { return {std::bit_cast<std::uint32_t>(v), v}; }
Element f32bits(std::uint32_t b) { return {b, std::bit_cast<float>(b)}; }

// ---------------------------------------------------------------------------------------------------------------
// The comparison policy
// ---------------------------------------------------------------------------------------------------------------

TEST(Policy, NanMatchesOnlyNan) {
  const Element qnan = f32bits(0x7fc00000u), other_nan = f32bits(0xffc00001u);  // different sign and payload
  for (const std::optional<Tolerance>& tol : {std::optional<Tolerance>{}, std::optional<Tolerance>{Tolerance{1e30, 1}}}) {
    EXPECT_TRUE(verify::elements_match(DType::f32, qnan, qnan, tol));
    EXPECT_FALSE(verify::elements_match(DType::f32, qnan, f32e(1.0f), tol));
    EXPECT_FALSE(verify::elements_match(DType::f32, f32e(0.0f), qnan, tol));
  }
  // With a tolerance any NaN matches any NaN; exact means the same bits, so another sign or payload differs.
  EXPECT_TRUE(verify::elements_match(DType::f32, qnan, other_nan, Tolerance{1e30, 1}));
  EXPECT_FALSE(verify::elements_match(DType::f32, qnan, other_nan, std::nullopt));
}

TEST(Policy, SignedZerosDifferWhenExact) {
  EXPECT_FALSE(verify::elements_match(DType::f32, f32e(0.0f), f32e(-0.0f), std::nullopt));
  // |(-0) - (+0)| = 0 <= abs + rel * 0 for any tolerance, even a zero one.
  EXPECT_TRUE(verify::elements_match(DType::f32, f32e(0.0f), f32e(-0.0f), Tolerance{0, 0}));
  // Exact means bit patterns: the same value is the same pattern for every finite non-zero float.
  EXPECT_TRUE(verify::elements_match(DType::f32, f32e(1.5f), f32e(1.5f), std::nullopt));
  EXPECT_FALSE(verify::elements_match(DType::f32, f32e(1.5f), f32e(std::nextafter(1.5f, 2.0f)), std::nullopt));
}

TEST(Policy, AbsRelBoundaryIsInclusiveAndRelativeToK0) {
  // abs 0.5 + rel 0.25 * |100| = 25.5: all exactly representable, so the boundary is exact.
  const Tolerance tol{0.5, 0.25};
  EXPECT_TRUE(verify::elements_match(DType::f32, f32e(100), f32e(125.5f), tol));
  EXPECT_TRUE(verify::elements_match(DType::f32, f32e(100), f32e(74.5f), tol));
  EXPECT_FALSE(verify::elements_match(DType::f32, f32e(100), f32e(std::nextafter(125.5f, 200.0f)), tol));
  EXPECT_FALSE(verify::elements_match(DType::f32, f32e(100), f32e(std::nextafter(74.5f, 0.0f)), tol));
  // Relative to K0's value, not K1's: from K0 = 74.5 the bound is 0.5 + 18.625 = 19.125 < 25.5.
  EXPECT_FALSE(verify::elements_match(DType::f32, f32e(74.5f), f32e(100), tol));
  // Infinities only match themselves, whatever the tolerance.
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(verify::elements_match(DType::f32, f32e(inf), f32e(inf), Tolerance{1e30, 1e30}));
  EXPECT_FALSE(verify::elements_match(DType::f32, f32e(inf), f32e(-inf), Tolerance{1e30, 1e30}));
  EXPECT_FALSE(verify::elements_match(DType::f32, f32e(inf), f32e(3e38f), Tolerance{1e30, 1e30}));
}

TEST(Policy, IntegersAlwaysExact) {
  EXPECT_TRUE(verify::elements_match(DType::i32, {5, 5}, {5, 5}, Tolerance{10, 10}));
  EXPECT_FALSE(verify::elements_match(DType::i32, {5, 5}, {6, 6}, Tolerance{10, 10}));
}

TEST(Policy, ElementDecoding) {
  const std::vector<std::byte> b = {std::byte{0x00}, std::byte{0x3c}, std::byte{0x00}, std::byte{0xc0}};
  EXPECT_EQ(verify::element_at(b, DType::f16, 0).value, 1.0);   // 0x3c00 (IEEE binary16)
  EXPECT_EQ(verify::element_at(b, DType::f16, 1).value, -2.0);  // 0xc000
  EXPECT_EQ(verify::element_at(b, DType::bf16, 1).value, -2.0);  // 0xc000 = top half of f32 0xc0000000
  EXPECT_EQ(verify::element_at(b, DType::i16, 1).value, -16384.0);
  EXPECT_EQ(verify::element_at(b, DType::u16, 1).value, 49152.0);
  EXPECT_EQ(verify::element_at(b, DType::i32, 0).bits, 0xc0003c00u);
}

TEST(Policy, CompareBufferCountsAndKeepsTheFirstEight) {
  std::vector<float> a(100), c(100);
  for (int i = 0; i < 100; ++i) a[i] = c[i] = static_cast<float>(i);
  for (int i = 10; i < 30; ++i) c[i] = -1;  // 20 differ
  auto bytes = [](const std::vector<float>& v) {
    return std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data()), v.size() * 4);
  };
  const auto r = verify::compare_buffer(DType::f32, bytes(a), bytes(c), std::nullopt);
  EXPECT_EQ(r.compared, 100u);
  EXPECT_EQ(r.differing, 20u);
  ASSERT_EQ(r.first.size(), 8u);
  EXPECT_EQ(r.first[0].index, 10u);
  EXPECT_EQ(r.first[0].k0.value, 10.0);
  EXPECT_EQ(r.first[0].k1.value, -1.0);
  EXPECT_EQ(r.first[7].index, 17u);
  // Within abs 100 they all match.
  EXPECT_EQ(verify::compare_buffer(DType::f32, bytes(a), bytes(c), Tolerance{100, 0}).differing, 0u);
}

// ---------------------------------------------------------------------------------------------------------------
// Launch files
// ---------------------------------------------------------------------------------------------------------------

TEST(LaunchFile, ArrayOfShapesWithTolerances) {
  auto f = verify::parse_launch_file(R"([
    {"grid": [2], "args": [{"buffer": {"dtype": "f32", "count": 4}}], "tolerance": {"f32": {"abs": 1e-6, "rel": 0.5}}},
    {"grid": [3, 2], "args": [], "trials": 4, "tolerance": {"bf16": {"rel": 0.25}}}
  ])", "l.json", ".");
  ASSERT_TRUE(f) << f.error().message;
  ASSERT_EQ(f->size(), 2u);
  ASSERT_TRUE((*f)[0].tolerance_for(DType::f32));
  EXPECT_EQ((*f)[0].tolerance_for(DType::f32)->abs, 1e-6);
  EXPECT_EQ((*f)[0].tolerance_for(DType::f32)->rel, 0.5);
  EXPECT_FALSE((*f)[0].tolerance_for(DType::f16));
  EXPECT_EQ((*f)[1].grid[1], 2u);
  EXPECT_EQ((*f)[1].trials, 4u);
  EXPECT_EQ((*f)[1].tolerance_for(DType::bf16)->abs, 0.0);
  // One object is a file of one shape.
  auto one = verify::parse_launch_file(R"({"grid": [1], "args": []})", "o.json", ".");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->size(), 1u);
}

TEST(LaunchFile, ProblemsNamedByPointerIntoTheArray) {
  Diags all;
  auto f = verify::parse_launch_file(R"([
    {"grid": [1], "args": []},
    {"grid": [0], "args": [], "tolerance": {"i32": {"abs": 1}, "f16": {"abs": -1}, "f32": {"abz": 1}}}
  ])", "l.json", ".", &all);
  ASSERT_FALSE(f);
  std::vector<std::string> msgs;
  for (const auto& d : all) msgs.push_back(d.message);
  auto has = [&](const std::string& prefix) {
    for (const auto& m : msgs)
      if (m.rfind(prefix, 0) == 0) return true;
    return false;
  };
  EXPECT_TRUE(has("/1/grid/0: ")) << f.error().message;
  EXPECT_TRUE(has("/1/tolerance/i32: integer outputs are always compared exactly")) << f.error().message;
  EXPECT_TRUE(has("/1/tolerance/f16/abs: ")) << f.error().message;
  EXPECT_TRUE(has("/1/tolerance/f32/abz: unknown key")) << f.error().message;
  EXPECT_FALSE(verify::parse_launch_file("[]", "e.json", "."));
  EXPECT_FALSE(verify::parse_launch_file("[1]", "e.json", "."));
}

// ---------------------------------------------------------------------------------------------------------------
// Triton corpus: round trips verify equivalent; planted defects are rejected
// ---------------------------------------------------------------------------------------------------------------

const char* const triton_stems[] = {
    "vec_add_f32", "softmax_f32", "rms_norm_f16", "silu_and_mul_bf16", "layer_norm_f16", "rope_bf16_d128",
    "transpose_f32_64", "matmul_f16_128x128x32", "matmul_bf16_64x64x64", "attn_fwd_causal_f16_d64",
    "gemm_a8w8_blockscale_fp8"};

std::filesystem::path launch_file(const std::string& stem) {
  return std::filesystem::path(ASMEVO_SOURCE_DIR) / "tests" / "data" / "launch" / "triton" / (stem + ".json");
}

std::string corpus_file(const std::filesystem::path& dir, const std::string& stem, Target t) {
  return (dir / "triton" / (stem + "." + std::string(to_string(t)) + ".hsaco")).string();
}

using test::edited_k1;
using test::rebuild_as_k1;

std::size_t replace_all(std::string& s, const std::string& from, const std::string& to) {
  std::size_t n = 0;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
    ++n;
  }
  return n;
}

class TritonVerify : public ::testing::TestWithParam<Target> {};

TEST_P(TritonVerify, RoundTripsAreEquivalent) {
  ASMEVO_REQUIRE_CORPUS(dir);
  verify::EmuExecutor exec;
  for (const char* stem : triton_stems) {
    SCOPED_TRACE(stem);
    auto k0 = verify::load_code_object(corpus_file(dir, stem, GetParam()));
    ASSERT_TRUE(k0) << k0.error().str();
    auto k1 = rebuild_as_k1(*k0, k0->module.program, std::string(stem) + ".k1");
    ASSERT_TRUE(k1);
    auto shapes = verify::read_launch_file(launch_file(stem));
    ASSERT_TRUE(shapes) << shapes.error().str();
    ASSERT_GE(shapes->size(), 2u);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = verify::differential_verify(*k0, *k1, *shapes, exec);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(r) << r.error().str();
    EXPECT_EQ(r->verdict, verify::Verdict::equivalent) << r->rejected_by << ": " << r->reason;
    // Every shape and trial ran, K0 once and K1 under two schedules, and compared every buffer; then each shape's
    // probe trials (specials, ties, binades), K1 under one schedule.
    ASSERT_EQ(r->json["shapes"].size(), shapes->size());
    std::size_t probes = 0;
    for (std::size_t i = 0; i < shapes->size(); ++i) {
      const auto& sh = r->json["shapes"][i];
      std::size_t own = 0;
      for (const auto& t : sh["trials"]) {
        if (t.contains("probe")) {
          ++probes;
          if (!t.contains("skipped")) ASSERT_EQ(t["k1"].size(), 1u);
          continue;
        }
        ++own;
        ASSERT_EQ(t["k1"].size(), 2u);
        // The second is the adversarial hold-one-wave schedule, and K0's results do not depend on it: no run was
        // passed over because K0 itself stops or differs under it.
        EXPECT_EQ(t["k1"][1]["schedule"], "hold-one-wave");
        for (const auto& k : t["k1"]) EXPECT_FALSE(k.contains("passed_over")) << k["passed_over"];
      }
      ASSERT_EQ(own, (*shapes)[i].trials);
    }
    EXPECT_EQ(probes, 4 * shapes->size()) << "every shape has float data inputs to probe";
    EXPECT_GT(r->json["probe_trials"].get<std::size_t>(), 0u);
    std::printf("%s %s: %s in %.2f s\n", stem, std::string(to_string(GetParam())).c_str(),
                std::string(verify::to_string(r->verdict)).c_str(), s);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, TritonVerify, ::testing::Values(Target::gfx942, Target::gfx90a, Target::gfx950),
                         [](const auto& info) { return std::string(to_string(info.param)); });

/// vec_add on gfx942 with every v_add_f32 turned into v_sub_f32: out[i] = x[i] - y[i] for i < n.
TEST(Defects, ChangedOperationPointsAtTheFirstDifferingElement) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(corpus_file(dir, "vec_add_f32", Target::gfx942));
  ASSERT_TRUE(k0);
  auto k1 = edited_k1(*k0, [](std::string& t) { EXPECT_EQ(replace_all(t, "v_add_f32", "v_sub_f32"), 4u); });
  ASSERT_TRUE(k1);
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  verify::EmuExecutor exec;
  auto r = verify::differential_verify(*k0, *k1, *shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r->rejected_by, "run");
  // The oracle: the inputs of shape 0, trial 0, drawn here from the spec, added and subtracted in host f32.
  const auto& spec = (*shapes)[0];
  auto x = verify::materialize(spec.args[0].buffer, 0), y = verify::materialize(spec.args[1].buffer, 0);
  ASSERT_TRUE(x && y);
  const std::size_t n = spec.args[0].buffer.count;
  std::size_t first = n, count = 0;
  float want0 = 0, want1 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    float a, b;
    std::memcpy(&a, x->data() + 4 * i, 4);
    std::memcpy(&b, y->data() + 4 * i, 4);
    if (std::bit_cast<std::uint32_t>(a + b) == std::bit_cast<std::uint32_t>(a - b)) continue;
    if (first == n) first = i, want0 = a + b, want1 = a - b;
    ++count;
  }
  ASSERT_LT(first, n);
  const auto& t0 = r->json["shapes"][0]["trials"][0];
  const auto& buffers = t0["k1"][0]["buffers"];
  const nlohmann::ordered_json* out = nullptr;
  for (const auto& b : buffers)
    if (b["arg"] == 2) out = &b;
  ASSERT_NE(out, nullptr);
  EXPECT_EQ((*out)["verdict"], "differ");
  EXPECT_EQ((*out)["differing"].get<std::size_t>(), count);
  EXPECT_EQ((*out)["compared"].get<std::size_t>(), n);
  const auto& d = (*out)["first_differences"][0];
  EXPECT_EQ(d["index"].get<std::size_t>(), first);
  EXPECT_EQ(d["k0"].get<double>(), static_cast<double>(want0));
  EXPECT_EQ(d["k1"].get<double>(), static_cast<double>(want1));
  char bits[16];
  std::snprintf(bits, sizeof bits, "0x%08x", std::bit_cast<std::uint32_t>(want1));
  EXPECT_EQ(d["k1_bits"], bits);
  // The inputs (x, y) were compared too and left alone.
  for (const auto& b : buffers)
    if (b["arg"] != 2) EXPECT_EQ(b["verdict"], "match") << b.dump();
  EXPECT_NE(r->reason.find("[" + std::to_string(first) + "]"), std::string::npos) << r->reason;
  // A K1 that failed is not run further: one K1 run on the first trial of the first shape only.
  EXPECT_EQ(r->json["shapes"].size(), 1u);
  EXPECT_EQ(t0["k1"].size(), 1u);
}

/// vec_add on gfx942 with the last store (element i + 768) sent to y instead of out: y, not an output, is written.
TEST(Defects, WriteToANonOutputBufferIsCaught) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(corpus_file(dir, "vec_add_f32", Target::gfx942));
  ASSERT_TRUE(k0);
  // The out address of the fourth element: v[0:1] = (i + 768) * 4 + out (s[6:7]); y is s[4:5].
  auto k1 = edited_k1(*k0, [](std::string& t) {
    EXPECT_EQ(replace_all(t, "v_lshl_add_u64 v[0:1], v[2:3], 2, s[6:7]", "v_lshl_add_u64 v[0:1], v[2:3], 2, s[4:5]"), 1u);
  });
  ASSERT_TRUE(k1);
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  verify::EmuExecutor exec;
  // One changed operand: the prover would refute it before the runs; this test is about what the runs report.
  verify::VerifyOptions o;
  o.refute = false;
  auto r = verify::differential_verify(*k0, *k1, *shapes, exec, o);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent);
  const auto& spec = (*shapes)[0];
  auto x = verify::materialize(spec.args[0].buffer, 0), y = verify::materialize(spec.args[1].buffer, 0);
  ASSERT_TRUE(x && y);
  // Oracle: y[i] becomes x[i] + y[i] for i in [768 + 1024 g, 1024 (g + 1)) of every workgroup g, i < n.
  const std::size_t n = spec.args[0].buffer.count;
  std::size_t first = n, count = 0;
  float old_y = 0, new_y = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 1024 < 768) continue;
    float a, b;
    std::memcpy(&a, x->data() + 4 * i, 4);
    std::memcpy(&b, y->data() + 4 * i, 4);
    if (std::bit_cast<std::uint32_t>(a + b) == std::bit_cast<std::uint32_t>(b)) continue;
    if (first == n) first = i, old_y = b, new_y = a + b;
    ++count;
  }
  ASSERT_LT(first, n);
  const nlohmann::ordered_json* yb = nullptr;
  for (const auto& b : r->json["shapes"][0]["trials"][0]["k1"][0]["buffers"])
    if (b["arg"] == 1) yb = &b;
  ASSERT_NE(yb, nullptr);
  EXPECT_EQ((*yb)["output"], false);
  EXPECT_EQ((*yb)["verdict"], "differ");
  EXPECT_EQ((*yb)["tolerance"], "exact");
  EXPECT_EQ((*yb)["differing"].get<std::size_t>(), count);
  EXPECT_EQ((*yb)["first_differences"][0]["index"].get<std::size_t>(), first);
  EXPECT_EQ((*yb)["first_differences"][0]["k0"].get<double>(), static_cast<double>(old_y));
  EXPECT_EQ((*yb)["first_differences"][0]["k1"].get<double>(), static_cast<double>(new_y));
}

/// Cache-policy bits: sc1 on a store changes its scope (rejected before any run); nt is a hint (accepted).
TEST(Defects, ScopeBitsAreRejectedHintsAreNot) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(corpus_file(dir, "vec_add_f32", Target::gfx942));
  ASSERT_TRUE(k0);
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  verify::EmuExecutor exec;
  auto with_sc1 = edited_k1(*k0, [](std::string& t) {
    EXPECT_EQ(replace_all(t, "global_store_dword v[0:1], v4, off offset:1024", "global_store_dword v[0:1], v4, off offset:1024 sc1"), 1u);
  });
  ASSERT_TRUE(with_sc1);
  auto r = verify::differential_verify(*k0, *with_sc1, *shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r->rejected_by, "memory_model");
  EXPECT_NE(r->reason.find("store global sc1 4B"), std::string::npos) << r->reason;
  EXPECT_FALSE(r->json.contains("shapes")) << "rejected before any run";

  auto with_nt = edited_k1(*k0, [](std::string& t) {
    EXPECT_EQ(replace_all(t, "global_store_dword v[0:1], v4, off offset:1024", "global_store_dword v[0:1], v4, off offset:1024 nt"), 1u);
  });
  ASSERT_TRUE(with_nt);
  auto r2 = verify::differential_verify(*k0, *with_nt, *shapes, exec);
  ASSERT_TRUE(r2) << r2.error().str();
  EXPECT_EQ(r2->verdict, verify::Verdict::equivalent) << r2->rejected_by << ": " << r2->reason;
}

/// A deleted s_waitcnt before a use of the loaded value: caught before any run (static checks) when they are on,
/// by the emulator's adversarial completion order when they are off.
TEST(Defects, DroppedWaitcntIsCaught) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(corpus_file(dir, "vec_add_f32", Target::gfx942));
  ASSERT_TRUE(k0);
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  auto k1 = edited_k1(*k0, [](std::string& t) {
    // The s_waitcnt vmcnt(0) in front of the first v_add_f32 (the instruction line right before it).
    const std::size_t add = t.find("v_add_f32");
    ASSERT_NE(add, std::string::npos);
    const std::size_t line = t.rfind('\n', add);
    const std::size_t prev = t.rfind('\n', line - 1);
    ASSERT_NE(t.substr(prev, line - prev).find("s_waitcnt vmcnt(0)"), std::string::npos) << t.substr(prev, line - prev);
    t.erase(prev, line - prev);
  });
  ASSERT_TRUE(k1);
  verify::EmuExecutor exec;
  auto r = verify::differential_verify(*k0, *k1, *shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r->rejected_by, "static") << r->reason;
  verify::VerifyOptions no_static;
  no_static.static_checks = false;
  auto r2 = verify::differential_verify(*k0, *k1, *shapes, exec, no_static);
  ASSERT_TRUE(r2) << r2.error().str();
  EXPECT_EQ(r2->verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r2->rejected_by, "run");
  EXPECT_NE(r2->reason.find("waitcnt"), std::string::npos) << r2->reason;
}

/// K0 that does not run cleanly (its launch reads past a buffer) gives k0_failed, whatever K1 is.
TEST(Defects, K0FailingIsNotAVerdictOnK1) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(corpus_file(dir, "vec_add_f32", Target::gfx942));
  ASSERT_TRUE(k0);
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  // n says 2048 but x holds 1000 elements: the loads past x fault.
  (*shapes)[0].args[0].buffer.count = 1000;
  verify::EmuExecutor exec;
  auto r = verify::differential_verify(*k0, *k0, *shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::k0_failed);
  EXPECT_NE(r->reason.find("fault"), std::string::npos) << r->reason;
}

// ---------------------------------------------------------------------------------------------------------------
// The adversarial schedule
// ---------------------------------------------------------------------------------------------------------------

/// Two waves (one workgroup of 128 lanes) exchange LDS slots. Each lane writes 0x1000 + tid to its slot in region 1
/// (bytes [0, 512)) and 0x2000 + tid in region 2 ([512, 1024)); after s_barrier it reads the other wave's region-1
/// slot (v4 = its slot ^ 0x100) into v3; after a second s_barrier it advances v4 to region 2, reads that slot into
/// v6, runs 160 instructions and reuses its own region-1 slot for 0x3000 + tid. out[2 tid] = v3, out[2 tid + 1] = v6.
/// `moved`: the first read sits below the second barrier, before v4 advances. The memory model lets it through (K0
/// reads `addr=v4` + [0, 4) in that segment too: register names, not values, are compared, memory_model.hpp "Not
/// seen"), and the read returns the reused slot's 0x3000 + tid only if the other wave ran 160 instructions before
/// this wave ran one.
std::string slot_exchange_kernel(bool moved) {
  std::string body = R"(	s_load_dwordx2 s[4:5], s[0:1], 0x0
	v_lshlrev_b32_e32 v1, 2, v0
	v_xor_b32_e32 v4, 0x100, v1
	v_add_u32_e32 v2, 0x1000, v0
	v_add_u32_e32 v8, 0x200, v1
	v_add_u32_e32 v9, 0x2000, v0
	v_add_u32_e32 v7, 0x3000, v0
	ds_write_b32 v1, v2
	ds_write_b32 v8, v9
	s_waitcnt lgkmcnt(0)
	s_barrier
)";
  if (!moved) body += "\tds_read_b32 v3, v4\n\ts_waitcnt lgkmcnt(0)\n";
  body += "\ts_barrier\n";
  if (moved) body += "\tds_read_b32 v3, v4\n";
  body += "\tv_add_u32_e32 v4, 0x200, v4\n\tds_read_b32 v6, v4\n\ts_waitcnt lgkmcnt(0)\n";
  for (int i = 0; i < 160; ++i) body += "\tv_add_u32_e32 v10, 1, v10\n";
  body += "\tds_write_b32 v1, v7\n\tv_lshlrev_b32_e32 v11, 3, v0\n\ts_waitcnt lgkmcnt(0)\n"
          "\tglobal_store_dword v11, v3, s[4:5]\n\tglobal_store_dword v11, v6, s[4:5] offset:4\n\ts_endpgm\n";
  return R"(	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	k
	.p2align	8
	.type	k,@function
k:
)" + body + R"(.Lk_end:
	.size	k, .Lk_end-k
	.rodata
	.p2align	6
	.amdhsa_kernel k
		.amdhsa_group_segment_fixed_size 1024
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 8
		.amdhsa_next_free_vgpr 12
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 12
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 1024
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 128
    .name:           k
    .private_segment_fixed_size: 0
    .sgpr_count:     8
    .symbol:         k.kd
    .vgpr_count:     12
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
)";
}

std::optional<verify::CodeObject> assemble(const std::string& text, const std::string& name) {
  auto ctx = mc::Context::create("gfx942");
  if (!ctx) { ADD_FAILURE() << ctx.error().str(); return std::nullopt; }
  auto obj = (*ctx)->assemble_object(text, name + ".s");
  if (!obj) { ADD_FAILURE() << obj.error().str(); return std::nullopt; }
  auto co = codeobject::link_shared(*obj);
  if (!co) { ADD_FAILURE() << co.error().str(); return std::nullopt; }
  auto k = verify::code_object_from_bytes(std::move(*co), name + ".co");
  if (!k) { ADD_FAILURE() << k.error().str(); return std::nullopt; }
  return std::move(*k);
}

std::vector<verify::LaunchSpec> slot_exchange_launch() {
  auto s = verify::parse_launch_spec(R"({"kernel": "k", "grid": [1, 1, 1], "block": [128, 1, 1], "args": [
      {"buffer": {"dtype": "u32", "count": 256, "init": "zeros"}}], "outputs": [0], "trials": 1})",
                                     "<test>", ".");
  EXPECT_TRUE(s) << s.error().str();
  return s ? std::vector<verify::LaunchSpec>{*s} : std::vector<verify::LaunchSpec>{};
}

TEST(AdversarialSchedule, TheReceiptNamesIt) {
  auto k0 = assemble(slot_exchange_kernel(false), "k0");
  ASSERT_TRUE(k0);
  auto k1 = rebuild_as_k1(*k0, k0->module.program, "k1");
  ASSERT_TRUE(k1);
  const auto shapes = slot_exchange_launch();
  ASSERT_EQ(shapes.size(), 1u);
  verify::EmuExecutor exec;
  auto r = verify::differential_verify(*k0, *k1, shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::equivalent) << r->rejected_by << ": " << r->reason;
  EXPECT_NE(r->reason.find("the last holding one wave back"), std::string::npos) << r->reason;
  EXPECT_EQ(r->json["options"]["adversarial_schedule"], "hold-one-wave: the last K1 schedule of each trial");
  const auto& t0 = r->json["shapes"][0]["trials"][0];
  EXPECT_EQ(t0["k0"]["schedule"], "random");
  ASSERT_EQ(t0["k1"].size(), 2u);
  EXPECT_EQ(t0["k1"][0]["schedule"], "random");
  EXPECT_FALSE(t0["k1"][0].contains("held_waves"));
  const auto& adv = t0["k1"][1];
  EXPECT_EQ(adv["schedule"], "hold-one-wave");
  // One hold per barrier phase of workgroup (0,0,0): before, between and after the two s_barriers.
  ASSERT_TRUE(adv.contains("held_waves")) << adv.dump();
  EXPECT_EQ(adv["held_waves"]["holds"], 3u);
  ASSERT_EQ(adv["held_waves"]["first"].size(), 3u);
  for (std::uint32_t p = 0; p < 3; ++p) {
    const auto& h = adv["held_waves"]["first"][p];
    EXPECT_EQ(h["phase"], p);
    EXPECT_LT(h["wave"].get<std::uint32_t>(), 2u);
    EXPECT_EQ(h["released"], "the other waves reached the barrier or ended");
  }
  // With one schedule per trial, K1's one run keeps the random schedule.
  verify::VerifyOptions one;
  one.schedules = 1;
  auto r1 = verify::differential_verify(*k0, *k1, shapes, exec, one);
  ASSERT_TRUE(r1) << r1.error().str();
  EXPECT_EQ(r1->json["shapes"][0]["trials"][0]["k1"][0]["schedule"], "random");
  EXPECT_EQ(r1->json["options"]["adversarial_schedule"],
            "off: with one schedule per trial K1 runs under a random schedule only");
}

TEST(AdversarialSchedule, RejectsALongWindowRaceTheRandomScheduleMisses) {
  auto k0 = assemble(slot_exchange_kernel(false), "k0");
  auto k1 = assemble(slot_exchange_kernel(true), "k1");
  ASSERT_TRUE(k0 && k1);
  const auto shapes = slot_exchange_launch();
  ASSERT_EQ(shapes.size(), 1u);
  // The memory model compares register names, and K0 reads addr=v4 + [0, 4) below the second barrier too.
  EXPECT_TRUE(verify::compare_memory_model(k0->module.program, k1->module.program).empty());
  verify::EmuExecutor exec;
  // One random schedule does not show it: the other wave would have to run 160 instructions first.
  verify::VerifyOptions one;
  one.schedules = 1;
  auto r1 = verify::differential_verify(*k0, *k1, shapes, exec, one);
  ASSERT_TRUE(r1) << r1.error().str();
  EXPECT_EQ(r1->verdict, verify::Verdict::equivalent) << r1->rejected_by << ": " << r1->reason;
  // The default two schedules end with hold-one-wave: the wave held after the second barrier reads the other wave's
  // slot after its reuse, 0x3000 + tid instead of 0x1000 + tid.
  auto r = verify::differential_verify(*k0, *k1, shapes, exec);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r->rejected_by, "run");
  EXPECT_NE(r->reason.find("(hold-one-wave)"), std::string::npos) << r->reason;
  const auto& runs = r->json["shapes"][0]["trials"][0]["k1"];
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1]["schedule"], "hold-one-wave");
  EXPECT_FALSE(runs[1].contains("passed_over")) << runs[1].dump();
  // The held wave of phase 2 is the one whose lanes read the reused slot: out[2 tid] = 0x3000 + (tid ^ 64).
  const std::uint32_t held = runs[1]["held_waves"]["first"][2]["wave"].get<std::uint32_t>();
  const nlohmann::ordered_json* out = nullptr;
  for (const auto& b : runs[1]["buffers"])
    if (b["arg"] == 0) out = &b;
  ASSERT_NE(out, nullptr);
  EXPECT_EQ((*out)["differing"].get<std::size_t>(), 64u);
  const auto& first = (*out)["first_differences"][0];
  const std::uint32_t tid = 64 * held;
  EXPECT_EQ(first["index"].get<std::size_t>(), 2u * tid);
  EXPECT_EQ(first["k0"].get<double>(), 0x1000 + (tid ^ 64));
  EXPECT_EQ(first["k1"].get<double>(), 0x3000 + (tid ^ 64));
}

TEST(AdversarialSchedule, ADeviceSaysTheHardwareSchedules) {
  // An executor that cannot choose the schedule leaves RunOutcome::schedule empty; the receipt says so.
  verify::RunOutcome device_run;
  const auto j = verify::detail::schedule_json(verify::RunRequest{0, 5, nullptr, verify::ScheduleKind::hold_one_wave},
                                              &device_run);
  EXPECT_EQ(j["schedule"], "hardware");
  EXPECT_EQ(j["schedule_requested"], "hold-one-wave");
  EXPECT_FALSE(j.contains("held_waves"));
}

/// The executor satisfies the concept and hands back the kernarg bytes, every buffer and modeled timing.
TEST(EmuExecutor, RunAndTime) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(corpus_file(dir, "vec_add_f32", Target::gfx942));
  ASSERT_TRUE(k0);
  auto shapes = verify::read_launch_file(launch_file("vec_add_f32"));
  ASSERT_TRUE(shapes);
  verify::EmuExecutor exec;
  EXPECT_EQ(exec.name(), "emu");
  auto o = exec.run(*k0, (*shapes)[1], verify::RunRequest{1, 3});
  ASSERT_TRUE(o) << o.error().str();
  EXPECT_TRUE(o->ok()) << o->message;
  ASSERT_EQ(o->buffers.size(), 3u);
  // Kernarg: x, y, out pointers then n = 1000 at byte 24 (MANIFEST.json argument order; AMDGPUUsage kernarg layout).
  ASSERT_GE(o->kernarg.size(), 28u);
  std::int32_t n = 0;
  std::memcpy(&n, o->kernarg.data() + 24, 4);
  EXPECT_EQ(n, 1000);
  std::uint64_t xp = 0;
  std::memcpy(&xp, o->kernarg.data(), 8);
  EXPECT_NE(xp, 0u);
  auto t = exec.time(*k0, (*shapes)[0], {});
  ASSERT_TRUE(t) << t.error().str();
  EXPECT_TRUE(t->modeled);
  EXPECT_GT(t->median, 0);
}

}  // namespace
