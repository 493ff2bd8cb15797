// The MFMA Triton kernels of the corpus (matmul f16/bf16, causal attention, fp8 block-scale GEMM) on gfx942, gfx90a
// and gfx950, run on the emulator on random inputs and checked against C++ references of MANIFEST.json's
// definitions. (The gfx950 GEMM reads the same fnuz fp8 inputs and converts them to f16 in software.)
#include <gtest/gtest.h>

#include <algorithm>
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

using emu::test::Tol;
// Tolerances. The kernels accumulate in f32 (MFMA) in an order of their own and round the result once to the
// output type; the references are exact double sums of the same (exactly representable) inputs.
//  - f16 out: 2 f16 ulps relative (2^-10) of the result, plus an absolute 2^-12 for results near zero, where the
//    f32 accumulation error of sums of K products of magnitude <= 1 (~K * 2^-24) and cancellation dominate.
//  - bf16 out: 2 bf16 ulps (2^-7) relative, absolute 2^-8 for near-zero results.
//  - attention (f16 out): P is rounded to f16 before P@V (kernel source: p.to(v.dtype)), an error of up to 2^-11
//    of each weight, and the softmax uses v_exp_f32: absolute 2^-9, relative 2^-9.
constexpr Tol tol_f16{1.0 / 4096, 1.0 / 1024};
constexpr Tol tol_bf16{1.0 / 256, 1.0 / 128};
constexpr Tol tol_attn{1.0 / 512, 1.0 / 512};

using Launch = emu::test::TritonLaunch;

std::optional<Launch> run(const std::string& stem, Target t, const std::string& json, std::uint64_t seed = 1,
                          emu::Completion c = emu::Completion::adversarial) {
  return emu::test::run_triton(stem, t, json, seed, c);
}

using emu::test::expect_close;

std::string buf(const char* dtype, std::size_t count, int seed, double lo = -1, double hi = 1) {
  return R"({"buffer": {"dtype": ")" + std::string(dtype) + R"(", "count": )" + std::to_string(count) +
         R"(, "init": {"random": {"seed": )" + std::to_string(seed) + R"(, "min": )" + std::to_string(lo) +
         R"(, "max": )" + std::to_string(hi) + "}}}}";
}
using emu::test::zeros;
using emu::test::i32;
const std::string nulls = R"({"null": true}, {"null": true})";  // Triton's two hidden scratch pointers

class TritonMfma : public ::testing::TestWithParam<Target> {};

/// matmul(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn): C = out(A @ B), f32 accumulation, strides in elements.
void matmul_case(const char* stem, const char* dtype, Target t, long bm, long bn, long M, long N, long K, long pad, Tol tol) {
  const long sam = K + pad, sbk = N + pad, scm = N + pad;
  const std::size_t an = M * sam, bnn = K * sbk, cn = M * scm;
  auto l = run(stem, t,
               R"({"grid": [)" + std::to_string(M / bm) + "," + std::to_string(N / bn) + R"(,1], "args": [)" +
                   buf(dtype, an, 3) + "," + buf(dtype, bnn, 4) + "," + zeros(dtype, cn) + "," + i32(M) + "," + i32(N) + "," +
                   i32(K) + "," + i32(sam) + "," + i32(1) + "," + i32(sbk) + "," + i32(1) + "," + i32(scm) + "," + i32(1) +
                   "," + nulls + "]}");
  if (!l) return;
  std::vector<double> ref(cn, 0.0);
  for (long m = 0; m < M; ++m)
    for (long n = 0; n < N; ++n) {
      double s = 0;
      for (long k = 0; k < K; ++k) s += static_cast<double>(l->in(0, m * sam + k)) * l->in(1, k * sbk + n);
      ref[m * scm + n] = s;
    }
  expect_close(*l, 2, cn, tol, [&](std::size_t i) { return ref[i]; },
               std::string(stem) + " " + std::string(to_string(t)) + " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                   std::to_string(K));
}

TEST_P(TritonMfma, MatmulF16) {
  ASMEVO_REQUIRE_CORPUS(dir);
  matmul_case("matmul_f16_128x128x32", "f16", GetParam(), 128, 128, 256, 128, 64, 0, tol_f16);
  matmul_case("matmul_f16_128x128x32", "f16", GetParam(), 128, 128, 128, 256, 96, 8, tol_f16);
}

TEST_P(TritonMfma, MatmulBf16) {
  ASMEVO_REQUIRE_CORPUS(dir);
  matmul_case("matmul_bf16_64x64x64", "bf16", GetParam(), 64, 64, 128, 128, 128, 0, tol_bf16);
  matmul_case("matmul_bf16_64x64x64", "bf16", GetParam(), 64, 64, 64, 192, 64, 4, tol_bf16);
}

TEST_P(TritonMfma, AttnFwdCausal) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const long Z = 1, H = 2, N = 256, D = 64;
  const long sm = D, sh = N * D, sz = H * N * D;
  const std::size_t n = Z * H * N * D;
  auto l = run("attn_fwd_causal_f16_d64", GetParam(),
               R"({"grid": [)" + std::to_string(N / 128) + "," + std::to_string(Z * H) + R"(,1], "args": [)" + buf("f16", n, 51) +
                   "," + buf("f16", n, 52) + "," + buf("f16", n, 53) + "," + zeros("f16", n) + "," + i32(sz) + "," + i32(sh) +
                   "," + i32(sm) + "," + i32(sz) + "," + i32(sh) + "," + i32(sm) + "," + i32(sz) + "," + i32(sh) + "," +
                   i32(sm) + "," + i32(sz) + "," + i32(sh) + "," + i32(sm) + "," + i32(H) + "," + i32(N) + "," + nulls + "]}");
  if (!l) return;
  std::vector<double> ref(n, 0.0);
  for (long zh = 0; zh < Z * H; ++zh) {
    const std::size_t base = zh * N * D;
    for (long i = 0; i < N; ++i) {
      std::vector<double> s(i + 1);
      double mx = -INFINITY;
      for (long j = 0; j <= i; ++j) {  // causal: j > i masked
        double d = 0;
        for (long e = 0; e < D; ++e) d += static_cast<double>(l->in(0, base + i * D + e)) * l->in(1, base + j * D + e);
        s[j] = d * 0.125;
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (long j = 0; j <= i; ++j) sum += (s[j] = std::exp(s[j] - mx));
      for (long e = 0; e < D; ++e) {
        double o = 0;
        for (long j = 0; j <= i; ++j) o += s[j] * l->in(2, base + j * D + e);
        ref[base + i * D + e] = o / sum;
      }
    }
  }
  expect_close(*l, 3, n, tol_attn, [&](std::size_t i) { return ref[i]; },
               "attn_fwd_causal " + std::string(to_string(GetParam())) + " N_CTX=" + std::to_string(N));
}

TEST_P(TritonMfma, GemmA8W8BlockscaleFp8) {
  ASMEVO_REQUIRE_CORPUS(dir);
  // gemm_a8w8_blockscale(a, b, c, a_scale, b_scale, M, N, K, sam, sbn, scm, sas, sbs): A MxK and B NxK row-major
  // fp8 e4m3fnuz; per 128-wide K block kb: acc += (A_blk @ B_blk^T) * a_scale[m*sas + kb] * b_scale[(n/128)*sbs + kb].
  const long M = 64, N = 256, K = 256, kb_n = K / 128;
  const long sam = K, sbn = K, scm = N, sas = kb_n, sbs = kb_n;
  auto l = run("gemm_a8w8_blockscale_fp8", GetParam(),
               R"({"grid": [)" + std::to_string(M / 64) + "," + std::to_string(N / 128) + R"(,1], "args": [)" +
                   buf("fp8e4m3fnuz", M * sam, 61, -4, 4) + "," + buf("fp8e4m3fnuz", N * sbn, 62, -4, 4) + "," +
                   zeros("bf16", M * scm) + "," + buf("f32", M * sas, 63, 0.5, 2) + "," + buf("f32", (N / 128) * sbs, 64, 0.5, 2) +
                   "," + i32(M) + "," + i32(N) + "," + i32(K) + "," + i32(sam) + "," + i32(sbn) + "," + i32(scm) + "," +
                   i32(sas) + "," + i32(sbs) + "," + nulls + "]}");
  if (!l) return;
  std::vector<double> ref(M * scm, 0.0);
  for (long m = 0; m < M; ++m)
    for (long n = 0; n < N; ++n) {
      double acc = 0;
      for (long kb = 0; kb < kb_n; ++kb) {
        double d = 0;
        for (long k = kb * 128; k < kb * 128 + 128; ++k) d += static_cast<double>(l->in(0, m * sam + k)) * l->in(1, n * sbn + k);
        acc += d * l->in(3, m * sas + kb) * l->in(4, (n / 128) * sbs + kb);
      }
      ref[m * scm + n] = acc;
    }
  // Sums of 128 products of magnitude up to 16 reach ~100: the near-zero absolute slack scales with them.
  expect_close(*l, 2, M * scm, Tol{1.0 / 16, 1.0 / 128}, [&](std::size_t i) { return ref[i]; },
               "gemm_a8w8_blockscale " + std::string(to_string(GetParam())));
}

INSTANTIATE_TEST_SUITE_P(Targets, TritonMfma, ::testing::Values(Target::gfx942, Target::gfx90a, Target::gfx950),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
