// The non-MFMA Triton kernels of the corpus (gfx942, gfx90a and gfx950), run on the emulator on random inputs and several
// shapes, checked against C++ references of MANIFEST.json's definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "asmevo/codeobject/module.hpp"
#include "asmevo/emu/fp.hpp"
#include "asmevo/emu/launch.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"
#include "verify/triton_harness.hpp"

namespace {

using namespace asmevo;
namespace fp = asmevo::emu::fp;

using emu::test::Tol;  // abs + rel * |reference|; NaN only matches NaN. The tolerances per output dtype:
// f32 results: the kernels use v_exp_f32 / v_rsq_f32 (approximate on hardware; the emulator rounds the exact value)
// and reduce in another order than the sequential double reference: 4e-6 relative is ~30 f32 ulps, far below what a
// wrong instruction gives. No absolute slack beyond the f32 denormal range (softmax outputs go down to ~1e-6).
constexpr Tol tol_f32{1e-38, 4e-6};
// f16 / bf16 results are rounded once from f32: a unit in the last place is 2^-11 / 2^-8 relative; allow two ulps
// (the f32 value can sit on the other side of a rounding boundary from the double reference), and an absolute
// two ulps of the smallest subnormal.
constexpr Tol tol_f16{2.0 / 16777216, 2.0 / 2048};
constexpr Tol tol_bf16{1e-38, 2.0 / 256};

using Launch = emu::test::TritonLaunch;

std::optional<Launch> run(const std::string& stem, Target t, const std::string& json, std::uint64_t seed = 1,
                          emu::Completion c = emu::Completion::adversarial) {
  return emu::test::run_triton(stem, t, json, seed, c);
}

/// Compares `n` outputs against `ref(i)`; reports the worst element.
using emu::test::expect_close;

std::string buf(const char* dtype, std::size_t count, int seed, double lo = -4, double hi = 4) {
  return R"({"buffer": {"dtype": ")" + std::string(dtype) + R"(", "count": )" + std::to_string(count) +
         R"(, "init": {"random": {"seed": )" + std::to_string(seed) + R"(, "min": )" + std::to_string(lo) +
         R"(, "max": )" + std::to_string(hi) + "}}}}";
}
using emu::test::zeros;
using emu::test::i32;
std::string f32(double v) { return R"({"scalar": {"type": "f32", "value": )" + std::to_string(v) + "}}"; }
const std::string nulls = R"({"null": true}, {"null": true})";  // Triton's two hidden scratch pointers

class Triton : public ::testing::TestWithParam<Target> {};

TEST_P(Triton, VecAdd) {
  ASMEVO_REQUIRE_CORPUS(dir);
  for (long n : {1024L, 3001L, 70L}) {
    const std::size_t cap = 4096;
    const long groups = (n + 1023) / 1024;
    auto l = run("vec_add_f32", GetParam(),
                 R"({"grid": [)" + std::to_string(groups) + R"(,1,1], "args": [)" + buf("f32", cap, 1) + "," +
                     buf("f32", cap, 2) + "," + zeros("f32", cap) + "," + i32(n) + "," + nulls + "]}");
    if (!l) continue;
    // Exact: one f32 add per element; elements past n stay 0.
    expect_close(*l, 2, cap, {0, 0}, [&](std::size_t i) { return i < static_cast<std::size_t>(n) ? static_cast<double>(l->in(0, i) + l->in(1, i)) : 0.0; },
                 "vec_add n=" + std::to_string(n));
  }
}

TEST_P(Triton, Softmax) {
  ASMEVO_REQUIRE_CORPUS(dir);
  struct Shape { long rows, cols, in_stride, out_stride; };
  for (const Shape s : {Shape{3, 1024, 1024, 1024}, Shape{2, 1000, 1030, 1001}, Shape{2, 17, 40, 17}}) {
    const std::size_t in_n = s.rows * s.in_stride, out_n = s.rows * s.out_stride;
    auto l = run("softmax_f32", GetParam(),
                 R"({"grid": [)" + std::to_string(s.rows) + R"(,1,1], "args": [)" + zeros("f32", out_n) + "," +
                     buf("f32", in_n, 7) + "," + i32(s.in_stride) + "," + i32(s.out_stride) + "," + i32(s.cols) + "," + nulls + "]}",
                 3);
    if (!l) continue;
    std::vector<double> ref(out_n, 0.0);
    for (long r = 0; r < s.rows; ++r) {
      double mx = -INFINITY, sum = 0;
      for (long c = 0; c < s.cols; ++c) mx = std::max(mx, static_cast<double>(l->in(1, r * s.in_stride + c)));
      for (long c = 0; c < s.cols; ++c) sum += std::exp(l->in(1, r * s.in_stride + c) - mx);
      for (long c = 0; c < s.cols; ++c) ref[r * s.out_stride + c] = std::exp(l->in(1, r * s.in_stride + c) - mx) / sum;
    }
    expect_close(*l, 0, out_n, tol_f32, [&](std::size_t i) { return ref[i]; }, "softmax cols=" + std::to_string(s.cols));
  }
}

TEST_P(Triton, RmsNorm) {
  ASMEVO_REQUIRE_CORPUS(dir);
  struct Shape { long rows, cols, stride; };
  for (const Shape s : {Shape{2, 4096, 4096}, Shape{3, 1000, 1024}, Shape{1, 33, 33}}) {
    const std::size_t n = s.rows * s.stride;
    const double eps = 1e-5;
    auto l = run("rms_norm_f16", GetParam(),
                 R"({"grid": [)" + std::to_string(s.rows) + R"(,1,1], "args": [)" + buf("f16", n, 11, -2, 2) + "," +
                     buf("f16", s.cols, 12, -1.5, 1.5) + "," + zeros("f16", n) + "," + i32(s.stride) + "," + i32(s.cols) +
                     "," + f32(eps) + "," + nulls + "]}");
    if (!l) continue;
    std::vector<double> ref(n, 0.0);
    for (long r = 0; r < s.rows; ++r) {
      double ss = 0;
      for (long c = 0; c < s.cols; ++c) ss += static_cast<double>(l->in(0, r * s.stride + c)) * l->in(0, r * s.stride + c);
      const double rs = 1.0 / std::sqrt(ss / s.cols + static_cast<float>(eps));
      for (long c = 0; c < s.cols; ++c) ref[r * s.stride + c] = l->in(0, r * s.stride + c) * rs * l->in(1, c);
    }
    expect_close(*l, 2, n, tol_f16, [&](std::size_t i) { return ref[i]; }, "rms_norm cols=" + std::to_string(s.cols));
  }
}

TEST_P(Triton, SiluAndMul) {
  ASMEVO_REQUIRE_CORPUS(dir);
  struct Shape { long rows, d; };
  for (const Shape s : {Shape{2, 1024}, Shape{3, 1500}, Shape{1, 100}}) {
    const std::size_t in_n = s.rows * 2 * s.d, out_n = s.rows * s.d;
    const long gy = (s.d + 1023) / 1024;
    auto l = run("silu_and_mul_bf16", GetParam(),
                 R"({"grid": [)" + std::to_string(s.rows) + "," + std::to_string(gy) + R"(,1], "args": [)" + buf("bf16", in_n, 5) +
                     "," + zeros("bf16", out_n) + "," + i32(s.d) + "," + nulls + "]}");
    if (!l) continue;
    expect_close(*l, 1, out_n, tol_bf16, [&](std::size_t i) {
      const std::size_t r = i / s.d, j = i % s.d;
      const double a = l->in(0, r * 2 * s.d + j), b = l->in(0, r * 2 * s.d + s.d + j);
      return a / (1.0 + std::exp(-a)) * b;
    }, "silu_and_mul d=" + std::to_string(s.d));
  }
}

TEST_P(Triton, LayerNorm) {
  ASMEVO_REQUIRE_CORPUS(dir);
  struct Shape { long rows, cols, stride; };
  for (const Shape s : {Shape{2, 2048, 2048}, Shape{3, 1000, 1024}, Shape{1, 70, 80}}) {
    const std::size_t n = s.rows * s.stride;
    const double eps = 1e-5;
    auto l = run("layer_norm_f16", GetParam(),
                 R"({"grid": [)" + std::to_string(s.rows) + R"(,1,1], "args": [)" + buf("f16", n, 21, -3, 3) + "," +
                     zeros("f16", n) + "," + buf("f32", s.cols, 22, -1, 1) + "," + buf("f32", s.cols, 23, -0.5, 0.5) + "," +
                     i32(s.stride) + "," + i32(s.cols) + "," + f32(eps) + "," + nulls + "]}");
    if (!l) continue;
    std::vector<double> ref(n, 0.0);
    for (long r = 0; r < s.rows; ++r) {
      double mean = 0, var = 0;
      for (long c = 0; c < s.cols; ++c) mean += l->in(0, r * s.stride + c);
      mean /= s.cols;
      for (long c = 0; c < s.cols; ++c) var += (l->in(0, r * s.stride + c) - mean) * (l->in(0, r * s.stride + c) - mean);
      var /= s.cols;
      const double rs = 1.0 / std::sqrt(var + static_cast<float>(eps));
      for (long c = 0; c < s.cols; ++c)
        ref[r * s.stride + c] = (l->in(0, r * s.stride + c) - mean) * rs * l->in(2, c) + l->in(3, c);
    }
    expect_close(*l, 1, n, tol_f16, [&](std::size_t i) { return ref[i]; }, "layer_norm cols=" + std::to_string(s.cols));
  }
}

TEST_P(Triton, Rope) {
  ASMEVO_REQUIRE_CORPUS(dir);
  struct Shape { long tokens, heads, stride_h; };
  for (const Shape s : {Shape{3, 2, 128}, Shape{2, 3, 160}}) {
    const long stride_t = s.heads * s.stride_h;
    const std::size_t n = s.tokens * stride_t;
    auto l = run("rope_bf16_d128", GetParam(),
                 R"({"grid": [)" + std::to_string(s.tokens) + "," + std::to_string(s.heads) + R"(,1], "args": [)" +
                     buf("bf16", n, 31) + "," + buf("f32", s.tokens * 64, 32, -1, 1) + "," + buf("f32", s.tokens * 64, 33, -1, 1) +
                     "," + i32(stride_t) + "," + i32(s.stride_h) + "," + nulls + "]}");
    if (!l) continue;
    std::vector<double> ref(n);
    for (std::size_t i = 0; i < n; ++i) ref[i] = l->in(0, i);  // untouched elements keep their value
    for (long t = 0; t < s.tokens; ++t)
      for (long h = 0; h < s.heads; ++h)
        for (long d = 0; d < 64; ++d) {
          const std::size_t b = t * stride_t + h * s.stride_h;
          const double x1 = l->in(0, b + d), x2 = l->in(0, b + 64 + d), c = l->in(1, t * 64 + d), sn = l->in(2, t * 64 + d);
          ref[b + d] = x1 * c - x2 * sn;
          ref[b + 64 + d] = x2 * c + x1 * sn;
        }
    expect_close(*l, 0, n, tol_bf16, [&](std::size_t i) { return ref[i]; }, "rope heads=" + std::to_string(s.heads));
  }
}

TEST_P(Triton, Transpose) {
  ASMEVO_REQUIRE_CORPUS(dir);
  struct Shape { long m, n, sxm, sym; };
  for (const Shape s : {Shape{64, 64, 64, 64}, Shape{100, 70, 72, 101}, Shape{5, 130, 130, 5}}) {
    const std::size_t xn = s.m * s.sxm, yn = s.n * s.sym;
    auto l = run("transpose_f32_64", GetParam(),
                 R"({"grid": [)" + std::to_string((s.m + 63) / 64) + "," + std::to_string((s.n + 63) / 64) +
                     R"(,1], "args": [)" + buf("f32", xn, 41) + "," + zeros("f32", yn) + "," + i32(s.m) + "," + i32(s.n) + "," +
                     i32(s.sxm) + "," + i32(s.sym) + "," + nulls + "]}");
    if (!l) continue;
    std::vector<double> ref(yn, 0.0);
    for (long m = 0; m < s.m; ++m)
      for (long n = 0; n < s.n; ++n) ref[n * s.sym + m] = l->in(0, m * s.sxm + n);
    expect_close(*l, 1, yn, {0, 0}, [&](std::size_t i) { return ref[i]; }, "transpose " + std::to_string(s.m) + "x" + std::to_string(s.n));
  }
}

/// A correct kernel gives the same bytes under every legal interleaving and completion order.
TEST_P(Triton, SeedsAgree) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const std::string spec = R"({"grid": [2,1,1], "args": [)" + zeros("f32", 2048) + "," + buf("f32", 2048, 9) + "," + i32(1024) +
                           "," + i32(1024) + "," + i32(999) + "," + nulls + "]}";
  auto a = run("softmax_f32", GetParam(), spec, 1);
  auto b = run("softmax_f32", GetParam(), spec, 12345);
  auto c = run("softmax_f32", GetParam(), spec, 7, emu::Completion::eager);
  if (!a || !b || !c) return;
  EXPECT_EQ(a->result.buffers[0].bytes, b->result.buffers[0].bytes);
  EXPECT_EQ(a->result.buffers[0].bytes, c->result.buffers[0].bytes);
}

INSTANTIATE_TEST_SUITE_P(Targets, Triton, ::testing::Values(Target::gfx942, Target::gfx90a, Target::gfx950),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
