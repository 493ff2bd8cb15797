// Launches of the Triton corpus kernels for the emulator tests: the launch spec parsed, the inputs drawn as the
// launcher draws them (so references can read them), the kernel run, and element access by the argument's dtype.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "asmevo/emu/fp.hpp"
#include "asmevo/emu/launch.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"

namespace asmevo::emu::test {

/// Element `i` of a buffer of `t`, as a float (fp8: the fnuz E4M3 format the corpus GEMM takes).
inline float triton_elem(const std::vector<std::byte>& b, verify::DType t, std::size_t i) {
  switch (t) {
    case verify::DType::f32: { float f; std::memcpy(&f, b.data() + 4 * i, 4); return f; }
    case verify::DType::f16: { std::uint16_t h; std::memcpy(&h, b.data() + 2 * i, 2); return fp::f16_to_f32(h); }
    case verify::DType::bf16: { std::uint16_t h; std::memcpy(&h, b.data() + 2 * i, 2); return fp::bf16_to_f32(h); }
    case verify::DType::fp8e4m3fnuz: return fp::fp8_to_f32(static_cast<std::uint8_t>(b[i]), fp::Fp8::e4m3fnuz);
    default: ADD_FAILURE() << "unexpected dtype"; return 0;
  }
}

/// One launch: the spec, the inputs as the launcher drew them (per argument; empty for scalars), and the result.
struct TritonLaunch {
  verify::LaunchSpec spec;
  std::vector<std::vector<std::byte>> inputs;
  EmulateResult result;
  [[nodiscard]] float in(std::size_t arg, std::size_t i) const {
    return triton_elem(inputs[arg], spec.args[arg].buffer.dtype, i);
  }
  [[nodiscard]] float out(std::size_t arg, std::size_t i) const {
    for (const auto& b : result.buffers)
      if (b.arg == arg) return triton_elem(b.bytes, spec.args[arg].buffer.dtype, i);
    ADD_FAILURE() << "no buffer for arg " << arg;
    return 0;
  }
};

/// The corpus file of Triton kernel `stem` built for `t`.
inline std::string triton_file(const std::string& stem, Target t) {
  return (*asmevo::test::corpus_dir() / "triton" / (stem + "." + std::string(to_string(t)) + ".hsaco")).string();
}

/// Runs Triton kernel `stem` on `t` with launch spec `json`; a failure or a stop fails the calling test and
/// gives nullopt.
inline std::optional<TritonLaunch> run_triton(const std::string& stem, Target t, const std::string& json,
                                              std::uint64_t seed = 1, Completion c = Completion::adversarial) {
  const RecoveredObject* l = cached_object(triton_file(stem, t));
  if (!l) return std::nullopt;
  auto spec = verify::parse_launch_spec(json, "<test>", ".");
  if (!spec) { ADD_FAILURE() << spec.error().message; return std::nullopt; }
  TritonLaunch r;
  r.spec = *spec;
  for (const auto& a : spec->args) {
    if (a.kind != verify::ArgSpec::Kind::buffer) { r.inputs.emplace_back(); continue; }
    auto b = verify::materialize(a.buffer, 0);
    if (!b) { ADD_FAILURE() << b.error().message; return std::nullopt; }
    r.inputs.push_back(std::move(*b));
  }
  EmulateOptions o;
  o.run.seed = seed;
  o.run.completion = c;
  auto res = emulate(l->module, l->elf, *spec, o);
  if (!res) { ADD_FAILURE() << res.error().message; return std::nullopt; }
  EXPECT_TRUE(res->ok()) << stem << " on " << to_string(t) << " stopped: " << to_string(res->stop.kind) << " at i"
                         << res->stop.inst.value << ": " << res->stop.message;
  if (!res->ok()) return std::nullopt;
  r.result = std::move(*res);
  return r;
}

/// Floats compare within abs + rel * |reference|; NaN only matches NaN.
struct Tol {
  double abs, rel;
};

/// Compares `n` outputs of argument `arg` against `ref(i)`: a failure names how many are outside `tol` and the
/// worst element; the largest absolute error is printed either way.
template <class Ref>
void expect_close(const TritonLaunch& l, std::size_t arg, std::size_t n, Tol tol, Ref ref, const std::string& what) {
  std::size_t bad = 0, worst = 0;
  double worst_err = 0, max_err = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = ref(i);
    const double g = l.out(arg, i);
    const double err = std::fabs(g - r);
    if (err > max_err) max_err = err;
    const bool ok = (std::isnan(r) && std::isnan(g)) || err <= tol.abs + tol.rel * std::fabs(r);
    if (!ok) { ++bad; if (err > worst_err || std::isnan(err)) { worst_err = err; worst = i; } }
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << n << " outside tolerance; worst at " << worst << ": got "
                     << l.out(arg, worst) << ", reference " << ref(worst);
  std::printf("%s: %zu elements, max abs error %.3g\n", what.c_str(), n, max_err);
}

/// Launch-spec JSON pieces: a zero-filled buffer and an i32 scalar.
inline std::string zeros(const char* dtype, std::size_t count) {
  return R"({"buffer": {"dtype": ")" + std::string(dtype) + R"(", "count": )" + std::to_string(count) +
         R"(, "init": "zeros"}})";
}
inline std::string i32(long v) { return R"({"scalar": {"type": "i32", "value": )" + std::to_string(v) + "}}"; }

}  // namespace asmevo::emu::test
