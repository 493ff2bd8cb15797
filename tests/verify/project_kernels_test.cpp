// Tests of the emulator on kernels the project compiles itself with clang-22 (examples/kernels/emu_kernels.hip):
// every kernel, on several shapes (ragged edges included) with seeded random inputs, under adversarial completion
// with several seeds and once eager, against C++ references computed here independently; and the negative cases
// that must stop a run cleanly: a deleted s_waitcnt (waitcnt violation), an out-of-bounds global store and an
// out-of-range LDS store (faults), a register beyond the allocation (illegal), each followed by a clean launch.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/emu/launch.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/waitcnt.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "verify/launch_builders.hpp"

namespace {

namespace fs = std::filesystem;
namespace co = asmevo::codeobject;
namespace emu = asmevo::emu;
namespace verify = asmevo::verify;
using asmevo::InstId;
using asmevo::Item;
using asmevo::Inst;
using asmevo::Operand;
using asmevo::Reg;
using asmevo::RegFile;
using verify::DType;
using u32 = std::uint32_t;

// ---- code objects ------------------------------------------------------------------------------------------

struct Loaded {
  co::ElfFile elf;
  std::unique_ptr<asmevo::mc::Encoder> enc;
  co::Module m;
};

fs::path object_path(const std::string& target) {
  return fs::path(ASMEVO_EXAMPLES_DIR) / ("emu_kernels." + target + ".co");
}

/// The recovered emu_kernels object for `target`, recovered once per process; nullptr (with a failure) when the
/// build did not make it or it does not recover.
const Loaded* load(const std::string& target) {
  static std::map<std::string, std::unique_ptr<Loaded>> cache;
  if (auto it = cache.find(target); it != cache.end()) return it->second.get();
  auto& slot = cache[target];
  const fs::path p = object_path(target);
  auto elf = co::ElfFile::read(p);
  if (!elf) { ADD_FAILURE() << p << ": " << elf.error().str(); return nullptr; }
  auto enc = co::encoder_for(*elf);
  if (!enc) { ADD_FAILURE() << p << ": " << enc.error().str(); return nullptr; }
  auto m = co::recover(*elf, **enc);
  if (!m) { ADD_FAILURE() << p << ": " << m.error().str(); return nullptr; }
  slot = std::make_unique<Loaded>(Loaded{std::move(*elf), std::move(*enc), std::move(*m)});
  return slot.get();
}

/// The targets the build compiled emu_kernels.hip for (gfx90a and gfx942 must be there; gfx950 when clang makes it).
std::vector<std::string> targets() {
  std::vector<std::string> v;
  for (const char* t : {"gfx90a", "gfx942", "gfx950"})
    if (fs::exists(object_path(t))) v.emplace_back(t);
  return v;
}

TEST(ProjectKernels, BuiltForTheTargets) {
  for (const char* t : {"gfx90a", "gfx942"}) EXPECT_TRUE(fs::exists(object_path(t))) << object_path(t);
  for (const auto& t : targets()) {
    const Loaded* l = load(t);
    ASSERT_NE(l, nullptr);
    std::vector<std::string> names;
    for (const auto& k : l->m.kernels) names.push_back(k.name);
    for (const char* k : {"saxpy", "block_sum", "collatz", "find_first", "wave_scan", "wave_max", "int_div", "f16_round",
                          "private_scatter"})
      EXPECT_NE(std::find(names.begin(), names.end(), k), names.end()) << t << " lacks kernel " << k;
  }
}

// ---- launches ----------------------------------------------------------------------------------------------

using asmevo::test::buffer;
using asmevo::test::fill_init;
using asmevo::test::iota_init;
using asmevo::test::random_init;
using asmevo::test::scalar;

verify::ArgSpec i32_arg(std::int32_t v) { return scalar(DType::i32, static_cast<u32>(v)); }
verify::ArgSpec u32_arg(u32 v) { return scalar(DType::u32, v); }
verify::ArgSpec f32_arg(float v) { return scalar(DType::f32, std::bit_cast<u32>(v)); }

verify::LaunchSpec launch_spec(std::string kernel, u32 grid, u32 block, std::vector<verify::ArgSpec> args) {
  verify::LaunchSpec s;
  s.kernel = std::move(kernel);
  s.grid = {grid, 1, 1};
  s.block = std::array<u32, 3>{block, 1, 1};
  s.args = std::move(args);
  return s;
}

u32 groups_for(u32 n, u32 block) { return std::max<u32>(1, (n + block - 1) / block); }

/// How one run completes memory operations.
struct Mode {
  emu::Completion completion;
  std::uint64_t seed;
  unsigned threads = 1;
  [[nodiscard]] std::string name() const {
    return (completion == emu::Completion::eager ? "eager" : "adversarial") + std::string(" seed ") +
           std::to_string(seed) + (threads > 1 ? ", " + std::to_string(threads) + " threads" : "");
  }
};

/// Adversarial completion under three seeds (different wave interleavings, completion orders and workgroup orders
/// must not change a correct kernel's results), eager completion, and workgroups spread over two host threads.
const Mode modes[] = {{emu::Completion::adversarial, 1},
                      {emu::Completion::adversarial, 2},
                      {emu::Completion::adversarial, 0x5eed1234},
                      {emu::Completion::eager, 1},
                      {emu::Completion::adversarial, 7, 2}};

/// The instruction's text, for failure messages.
std::string inst_text(const co::Module& m, InstId id) {
  const Inst* in = m.program.find(id);
  return in ? asmevo::print_inst(*in) : "i" + std::to_string(id.value) + " (not in the program)";
}

/// Runs `spec` on `mod`; fails the test (naming the stopping instruction) when the run does not end cleanly.
std::optional<emu::EmulateResult> run_clean(const Loaded& l, const co::Module& mod, const verify::LaunchSpec& spec,
                                            const Mode& mode, const std::string& what) {
  emu::EmulateOptions opt;
  opt.run.seed = mode.seed;
  opt.run.completion = mode.completion;
  opt.run.threads = mode.threads;
  opt.run.instruction_limit = 1u << 24;
  auto r = emu::emulate(mod, l.elf, spec, opt);
  if (!r) {
    ADD_FAILURE() << what << " [" << mode.name() << "]: " << r.error().str();
    return std::nullopt;
  }
  if (!r->ok()) {
    ADD_FAILURE() << what << " [" << mode.name() << "]: stopped: " << emu::to_string(r->stop.kind) << " at "
                  << inst_text(mod, r->stop.inst) << ": " << r->stop.message;
    return std::nullopt;
  }
  return std::move(*r);
}

/// Argument `arg`'s input bytes (trial 0), as elements of T.
template <class T>
std::vector<T> input(const verify::LaunchSpec& s, std::size_t arg) {
  auto b = verify::materialize(s.args.at(arg).buffer, 0);
  EXPECT_TRUE(b) << (b ? "" : b.error().str());
  if (!b) return {};
  std::vector<T> v(b->size() / sizeof(T));
  std::memcpy(v.data(), b->data(), v.size() * sizeof(T));
  return v;
}

/// Argument `arg`'s buffer after the run, as elements of T.
template <class T>
std::vector<T> output(const emu::EmulateResult& r, std::size_t arg) {
  for (const auto& b : r.buffers)
    if (b.arg == arg) {
      std::vector<T> v(b.bytes.size() / sizeof(T));
      std::memcpy(v.data(), b.bytes.data(), v.size() * sizeof(T));
      return v;
    }
  ADD_FAILURE() << "no buffer for argument " << arg;
  return {};
}

/// Exact comparison (floats by bit pattern); reports the first few differences.
template <class T>
bool same(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  if (got.size() != want.size()) {
    ADD_FAILURE() << what << ": " << got.size() << " elements, expected " << want.size();
    return false;
  }
  int shown = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) == 0) continue;
    ++bad;
    if (shown++ < 5) {
      if constexpr (std::is_floating_point_v<T>)
        ADD_FAILURE() << what << "[" << i << "] = " << got[i] << " (0x" << std::hex
                      << std::bit_cast<std::conditional_t<sizeof(T) == 4, u32, std::uint64_t>>(got[i]) << "), expected "
                      << std::dec << want[i] << " (0x" << std::hex
                      << std::bit_cast<std::conditional_t<sizeof(T) == 4, u32, std::uint64_t>>(want[i]) << std::dec << ")";
      else
        ADD_FAILURE() << what << "[" << i << "] = " << +got[i] << ", expected " << +want[i];
    }
  }
  if (bad) ADD_FAILURE() << what << ": " << bad << " of " << got.size() << " elements differ";
  return bad == 0;
}

/// Runs `spec` for every target and mode and calls check(result, what) on each clean run.
template <class Check>
void for_all_runs(const verify::LaunchSpec& spec, const std::string& shape, Check&& check) {
  const auto ts = targets();
  ASSERT_GE(ts.size(), 2u) << "emu_kernels.<target>.co is missing from " << ASMEVO_EXAMPLES_DIR;
  for (const auto& t : ts) {
    const Loaded* l = load(t);
    ASSERT_NE(l, nullptr);
    for (const Mode& mode : modes) {
      const std::string what = spec.kernel + " " + shape + " on " + t + " [" + mode.name() + "]";
      auto r = run_clean(*l, l->m, spec, mode, what);
      if (!r) break;  // the other modes would stop the same way
      check(*r, what);
    }
  }
}

// ---- (1) saxpy ---------------------------------------------------------------------------------------------

// y[i] = fma(a, x[i], y[i]) for i < n; elements past n (the buffers are 17 longer) stay as they were. The kernel
// calls __builtin_fmaf, so the reference is the host's correctly rounded fused multiply-add: compared exactly.
TEST(ProjectKernels, Saxpy) {
  struct Shape { u32 n, block; float a; };
  const Shape shapes[] = {{1000, 256, 2.5f}, {64 * 3 + 1, 64, -0.75f}, {500, 96, 1.0f / 3.0f}, {1500, 1024, 3.0f}, {1, 64, -2.0f}};
  std::uint64_t seed = 11;
  for (const Shape& s : shapes) {
    const u32 len = s.n + 17;
    auto spec = launch_spec("saxpy", groups_for(s.n, s.block), s.block,
                            {f32_arg(s.a), buffer(DType::f32, len, random_init(seed, -4, 4)),
                             buffer(DType::f32, len, random_init(seed + 1, -4, 4)), i32_arg(static_cast<std::int32_t>(s.n))});
    seed += 2;
    const auto x = input<float>(spec, 1);
    auto want = input<float>(spec, 2);
    for (u32 i = 0; i < s.n; ++i) want[i] = std::fma(s.a, x[i], want[i]);
    for_all_runs(spec, "n=" + std::to_string(s.n) + " block=" + std::to_string(s.block),
                 [&](const emu::EmulateResult& r, const std::string& what) {
                   same(output<float>(r, 1), x, what + " x (unchanged)");
                   same(output<float>(r, 2), want, what + " y");
                 });
  }
}

// ---- (2) block_sum -----------------------------------------------------------------------------------------

// partial[g] = the sum of in[g*chunk .. min((g+1)*chunk, n)). Two references:
//  - the kernel's own association order computed on the host in float (each of 256 work-items adds its strided
//    share in index order, then the pairwise tree t += t + w for w = 128 .. 1): IEEE float addition is
//    deterministic, so the emulator must match it bit for bit;
//  - the exact sum in double, within 1e-5 * sum(|x|): the float tree's rounding error is at most about
//    (per-thread terms + 8 tree levels) * 2^-24 * sum(|x|) (< 2e-6 here), so 1e-5 is a safe bound that still
//    catches a lost or doubled element (each is >= 2^-20 * sum(|x|) away for these sizes and ranges).
TEST(ProjectKernels, BlockSumThroughLds) {
  struct Shape { u32 n, chunk; };
  const Shape shapes[] = {{1000, 512}, {10000, 4096}, {100, 256}, {256 * 3, 256}, {5000, 1000}};
  std::uint64_t seed = 21;
  for (const Shape& s : shapes) {
    const u32 groups = groups_for(s.n, s.chunk);
    auto spec = launch_spec("block_sum", groups, 256,
                            {buffer(DType::f32, s.n, random_init(seed++, -1, 1)), buffer(DType::f32, groups),
                             i32_arg(static_cast<std::int32_t>(s.n)), i32_arg(static_cast<std::int32_t>(s.chunk))});
    const auto in = input<float>(spec, 0);
    std::vector<float> tree(groups);
    std::vector<double> exact(groups), mag(groups);
    for (u32 g = 0; g < groups; ++g) {
      const u32 begin = g * s.chunk, end = std::min(begin + s.chunk, s.n);
      float part[256];
      for (u32 t = 0; t < 256; ++t) {
        float acc = 0.f;
        for (u32 i = begin + t; i < end; i += 256) acc += in[i];
        part[t] = acc;
      }
      for (u32 w = 128; w > 0; w >>= 1)
        for (u32 t = 0; t < w; ++t) part[t] = part[t] + part[t + w];
      tree[g] = part[0];
      for (u32 i = begin; i < end; ++i) exact[g] += in[i], mag[g] += std::fabs(in[i]);
    }
    for_all_runs(spec, "n=" + std::to_string(s.n) + " chunk=" + std::to_string(s.chunk),
                 [&](const emu::EmulateResult& r, const std::string& what) {
                   const auto got = output<float>(r, 1);
                   same(got, tree, what + " partial (float tree order)");
                   for (u32 g = 0; g < groups && g < got.size(); ++g)
                     EXPECT_LE(std::fabs(got[g] - exact[g]), 1e-5 * mag[g] + 1e-30) << what << " partial[" << g << "]";
                 });
  }
}

// ---- (3) divergent loops with early exits ------------------------------------------------------------------

u32 collatz_steps(u32 x, u32 cap) {
  u32 k = 0;
  for (; k < cap && x > 1; ++k) x = (x & 1) ? 3 * x + 1 : x / 2;
  return k;
}

// steps[i] = Collatz steps of start[i] to reach 1, capped: lanes of one wave leave the loop at different trip
// counts (starts below 10^5 take up to 350 steps, so a cap of 300 also exercises the capped exit).
TEST(ProjectKernels, CollatzDivergentLoop) {
  struct Shape { u32 n, block, cap; verify::Init init; };
  const Shape shapes[] = {{1000, 256, 300, random_init(31, 0, 100000)},
                          {130, 64, 1000, random_init(32, 1, 5000)},
                          {777, 128, 50, iota_init(0, 3)}};
  for (const Shape& s : shapes) {
    auto spec = launch_spec("collatz", groups_for(s.n, s.block), s.block,
                            {buffer(DType::u32, s.n, s.init), buffer(DType::u32, s.n),
                             i32_arg(static_cast<std::int32_t>(s.n)), u32_arg(s.cap)});
    const auto start = input<u32>(spec, 0);
    std::vector<u32> want(s.n);
    for (u32 i = 0; i < s.n; ++i) want[i] = collatz_steps(start[i], s.cap);
    for_all_runs(spec, "n=" + std::to_string(s.n) + " cap=" + std::to_string(s.cap),
                 [&](const emu::EmulateResult& r, const std::string& what) { same(output<u32>(r, 1), want, what + " steps"); });
  }
}

// where[i] = the first j < m with hay[j] == keys[i], else -1: a loop that loads in divergent control flow and breaks
// out per lane (keys and hay drawn from [0, 300] so that about half the keys are found).
TEST(ProjectKernels, FindFirstEarlyExit) {
  struct Shape { u32 n, block, m; };
  const Shape shapes[] = {{1000, 256, 200}, {65, 64, 1}, {300, 192, 301}, {64, 64, 0}};
  std::uint64_t seed = 41;
  for (const Shape& s : shapes) {
    auto spec = launch_spec("find_first", groups_for(s.n, s.block), s.block,
                            {buffer(DType::i32, s.n, random_init(seed, 0, 300)),
                             buffer(DType::i32, std::max<u32>(s.m, 1), random_init(seed + 1, 0, 300)),
                             buffer(DType::i32, s.n, fill_init(12345)),
                             i32_arg(static_cast<std::int32_t>(s.n)), i32_arg(static_cast<std::int32_t>(s.m))});
    seed += 2;
    const auto keys = input<std::int32_t>(spec, 0);
    const auto hay = input<std::int32_t>(spec, 1);
    std::vector<std::int32_t> want(s.n, -1);
    for (u32 i = 0; i < s.n; ++i)
      for (u32 j = 0; j < s.m; ++j)
        if (hay[j] == keys[i]) { want[i] = static_cast<std::int32_t>(j); break; }
    for_all_runs(spec, "n=" + std::to_string(s.n) + " m=" + std::to_string(s.m),
                 [&](const emu::EmulateResult& r, const std::string& what) {
                   same(output<std::int32_t>(r, 2), want, what + " where");
                 });
  }
}

// ---- (4) cross-lane: DPP scan, ds_bpermute max -------------------------------------------------------------

// out[i] = the inclusive prefix sum (mod 2^32) of in over i's wave of 64 (elements at or past n count 0),
// totals[w] = wave w's sum. Blocks are multiples of 64, so waves are 64 consecutive elements.
TEST(ProjectKernels, WaveScanDpp) {
  struct Shape { u32 n, block; };
  const Shape shapes[] = {{1000, 256}, {64, 64}, {200, 128}, {4096, 256}};
  std::uint64_t seed = 51;
  for (const Shape& s : shapes) {
    const u32 groups = groups_for(s.n, s.block), waves = groups * s.block / 64;
    auto spec = launch_spec("wave_scan", groups, s.block,
                            {buffer(DType::u32, s.n, random_init(seed++, 0, 4294967295.0)), buffer(DType::u32, s.n),
                             buffer(DType::u32, waves), i32_arg(static_cast<std::int32_t>(s.n))});
    const auto in = input<u32>(spec, 0);
    std::vector<u32> want(s.n), totals(waves);
    for (u32 w = 0; w < waves; ++w) {
      u32 acc = 0;
      for (u32 l = 0; l < 64; ++l) {
        const u32 i = w * 64 + l;
        if (i < s.n) acc += in[i], want[i] = acc;
      }
      totals[w] = acc;
    }
    for_all_runs(spec, "n=" + std::to_string(s.n) + " block=" + std::to_string(s.block),
                 [&](const emu::EmulateResult& r, const std::string& what) {
                   same(output<u32>(r, 1), want, what + " out");
                   same(output<u32>(r, 2), totals, what + " totals");
                 });
  }
}

// out[i] = the maximum of in over i's wave (elements past n are -inf and have no output). The maximum is one of
// the inputs, so the comparison is exact.
TEST(ProjectKernels, WaveMaxBpermute) {
  struct Shape { u32 n, block; };
  const Shape shapes[] = {{1000, 128}, {64, 64}, {129, 256}};
  std::uint64_t seed = 61;
  for (const Shape& s : shapes) {
    auto spec = launch_spec("wave_max", groups_for(s.n, s.block), s.block,
                            {buffer(DType::f32, s.n, random_init(seed++, -100, 100)), buffer(DType::f32, s.n),
                             i32_arg(static_cast<std::int32_t>(s.n))});
    const auto in = input<float>(spec, 0);
    std::vector<float> want(s.n);
    for (u32 w = 0; w * 64 < s.n; ++w) {
      float m = -INFINITY;
      for (u32 i = w * 64; i < std::min(s.n, w * 64 + 64); ++i) m = std::max(m, in[i]);
      for (u32 i = w * 64; i < std::min(s.n, w * 64 + 64); ++i) want[i] = m;
    }
    for_all_runs(spec, "n=" + std::to_string(s.n) + " block=" + std::to_string(s.block),
                 [&](const emu::EmulateResult& r, const std::string& what) { same(output<float>(r, 1), want, what + " out"); });
  }
}

// ---- (5) integer division, f16 conversion ------------------------------------------------------------------

// q, r = a / b, a % b as u32; sq, sr the same as i32 (C++ truncating division on the host). Divisors exclude 0
// and 0xffffffff (-1 as i32, whose INT_MIN / -1 overflows).
TEST(ProjectKernels, IntegerDivision) {
  struct Shape { u32 n, block; double bmax; };
  const Shape shapes[] = {{1000, 256, 1000}, {333, 64, 4294967294.0}, {100, 128, 65536}};
  std::uint64_t seed = 71;
  for (const Shape& s : shapes) {
    auto spec = launch_spec("int_div", groups_for(s.n, s.block), s.block,
                            {buffer(DType::u32, s.n, random_init(seed, 0, 4294967295.0)),
                             buffer(DType::u32, s.n, random_init(seed + 1, 1, s.bmax)), buffer(DType::u32, s.n),
                             buffer(DType::u32, s.n), buffer(DType::i32, s.n), buffer(DType::i32, s.n),
                             i32_arg(static_cast<std::int32_t>(s.n))});
    seed += 2;
    const auto a = input<u32>(spec, 0), b = input<u32>(spec, 1);
    std::vector<u32> q(s.n), r(s.n);
    std::vector<std::int32_t> sq(s.n), sr(s.n);
    for (u32 i = 0; i < s.n; ++i) {
      q[i] = a[i] / b[i];
      r[i] = a[i] % b[i];
      const auto x = static_cast<std::int32_t>(a[i]), y = static_cast<std::int32_t>(b[i]);
      sq[i] = x / y;
      sr[i] = x % y;
    }
    for_all_runs(spec, "n=" + std::to_string(s.n) + " b<=" + std::to_string(static_cast<std::uint64_t>(s.bmax)),
                 [&](const emu::EmulateResult& res, const std::string& what) {
                   same(output<u32>(res, 2), q, what + " q");
                   same(output<u32>(res, 3), r, what + " r");
                   same(output<std::int32_t>(res, 4), sq, what + " sq");
                   same(output<std::int32_t>(res, 5), sr, what + " sr");
                 });
  }
}

/// IEEE 754 binary32 -> binary16, round to nearest even, overflow to infinity, subnormals kept (the kernel's
/// FloatMode keeps f16 denormals). Written from the format definitions, independent of the emulator's helpers.
std::uint16_t to_f16(float f) {
  const u32 x = std::bit_cast<u32>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000);
  const u32 exp = (x >> 23) & 0xff, man = x & 0x7fffff;
  if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
  const int e = static_cast<int>(exp) - 127 + 15;  // the binary16 biased exponent
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00);
  u32 m, shift;
  if (e > 0) {
    m = man, shift = 13;  // drop 13 fraction bits; a carry out of the fraction bumps the exponent (to inf at 31)
  } else {
    if (e < -10) return sign;  // below half the smallest subnormal: rounds to zero
    m = man | 0x800000, shift = static_cast<u32>(14 - e);  // value = m * 2^(exp-150) = (m >> (126-exp)) * 2^-24
  }
  const u32 kept = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
  const u32 up = rest > half || (rest == half && (kept & 1));
  const u32 base = e > 0 ? (static_cast<u32>(e) << 10) | kept : kept;
  return static_cast<std::uint16_t>(sign | (base + up));
}

float from_f16(std::uint16_t h) {
  const float s = (h & 0x8000) ? -1.f : 1.f;
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 31) return m ? NAN : s * INFINITY;
  if (e == 0) return s * std::ldexp(static_cast<float>(m), -24);
  return s * std::ldexp(static_cast<float>(1024 + m), e - 25);
}

TEST(ProjectKernels, F16Reference) {  // the host reference itself, against values derived by hand from the format
  EXPECT_EQ(to_f16(1.0f), 0x3c00);
  EXPECT_EQ(to_f16(65504.0f), 0x7bff);
  EXPECT_EQ(to_f16(65519.0f), 0x7bff);   // below the midpoint to 65536
  EXPECT_EQ(to_f16(65520.0f), 0x7c00);   // the midpoint rounds to even: infinity
  EXPECT_EQ(to_f16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(to_f16(std::ldexp(1.0f, -25)), 0x0000);  // tie to even: 0
  EXPECT_EQ(to_f16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(to_f16(std::ldexp(1.5f, -24)), 0x0002);  // tie between 1 and 2: even
  EXPECT_EQ(to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie: even
  EXPECT_EQ(to_f16(1.0f + std::ldexp(3.0f, -11)), 0x3c02);
  EXPECT_EQ(to_f16(-2.0f), 0xc000);
  EXPECT_EQ(from_f16(0x3555), 0x1.554p-2f);
  EXPECT_EQ(from_f16(0x0001), std::ldexp(1.0f, -24));
}

// h[i] = (f16)in[i] (round to nearest even; |x| >= 65520 gives infinity; tiny values give f16 subnormals),
// back[i] = (float)h[i] * 0.5 (exact). Compared bit for bit.
TEST(ProjectKernels, F16Round) {
  struct Shape { u32 n, block; double lo, hi; };
  const Shape shapes[] = {{1000, 256, -70000, 70000}, {300, 64, -1e-4, 1e-4}, {129, 128, -2, 2}};
  std::uint64_t seed = 81;
  for (const Shape& s : shapes) {
    auto spec = launch_spec("f16_round", groups_for(s.n, s.block), s.block,
                            {buffer(DType::f32, s.n, random_init(seed++, s.lo, s.hi)), buffer(DType::f16, s.n),
                             buffer(DType::f32, s.n), i32_arg(static_cast<std::int32_t>(s.n))});
    const auto in = input<float>(spec, 0);
    std::vector<std::uint16_t> h(s.n);
    std::vector<float> back(s.n);
    for (u32 i = 0; i < s.n; ++i) h[i] = to_f16(in[i]), back[i] = from_f16(h[i]) * 0.5f;
    for_all_runs(spec, "n=" + std::to_string(s.n) + " range=" + std::to_string(s.hi),
                 [&](const emu::EmulateResult& r, const std::string& what) {
                   same(output<std::uint16_t>(r, 1), h, what + " h");
                   same(output<float>(r, 2), back, what + " back");
                 });
  }
}

// ---- negative cases ----------------------------------------------------------------------------------------

std::string_view mnemonic(const Inst& in) { return asmevo::isa::forms(in.target)[in.form].mnemonic; }

/// Item indexes [first, last] of kernel `name`'s code: from its label to its s_endpgm.
std::pair<std::size_t, std::size_t> kernel_items(const co::Module& m, const std::string& name) {
  const auto& items = m.program.items;
  std::size_t i = 0;
  while (i < items.size() && !(items[i].kind == Item::Kind::label && items[i].name == name)) ++i;
  std::size_t j = i;
  while (j < items.size() && !(items[j].kind == Item::Kind::inst && mnemonic(items[j].inst) == "s_endpgm")) ++j;
  EXPECT_LT(j, items.size()) << "no code for kernel " << name;
  return {i, j};
}

/// The VGPRs an instruction reads (operands of role use) or writes (role def).
std::vector<Reg> vgprs(const Inst& in, asmevo::isa::Role role) {
  std::vector<Reg> v;
  const auto ops = asmevo::isa::operands(asmevo::isa::forms(in.target)[in.form]);
  for (std::size_t k = 0; k < in.ops.size() && k < ops.size(); ++k)
    if (ops[k].role == role && in.ops[k].kind == Operand::Kind::reg && in.ops[k].reg.file == RegFile::vgpr)
      v.push_back(in.ops[k].reg);
  return v;
}

bool overlap(const Reg& a, const Reg& b) { return a.file == b.file && a.index <= b.last() && b.index <= a.last(); }

bool is_vector_load(std::string_view mn) {
  return mn.starts_with("global_load") || mn.starts_with("buffer_load") || mn.starts_with("flat_load");
}

const verify::LaunchSpec& good_collatz() {
  static const auto s = launch_spec("collatz", 4, 256, {buffer(DType::u32, 1000, random_init(5, 1, 1000)),
                                                        buffer(DType::u32, 1000), i32_arg(1000), u32_arg(400)});
  return s;
}

/// After a stopped run: the same process still runs a launch cleanly and correctly.
void still_runs(const Loaded& l, const std::string& what) {
  const auto& spec = good_collatz();
  auto r = run_clean(l, l.m, spec, modes[0], what + ", then a clean launch");
  if (!r) return;
  const auto start = input<u32>(spec, 0);
  std::vector<u32> want(1000);
  for (u32 i = 0; i < 1000; ++i) want[i] = collatz_steps(start[i], 400);
  same(output<u32>(*r, 1), want, what + ", then collatz steps");
}

emu::EmulateOptions adversarial(std::uint64_t seed) {
  emu::EmulateOptions o;
  o.run.seed = seed;
  o.run.completion = emu::Completion::adversarial;
  o.run.instruction_limit = 1u << 24;
  return o;
}

// ---- (6) private memory -------------------------------------------------------------------------------------

// private_scatter keeps a 96-float array per work-item in private memory (MUBUF through the scratch V# on gfx90a,
// scratch_* on gfx942/gfx950): tmp[k] = in[i + k*n]; for k: p = perm[i + k*n], tmp[p % 96] = fma(tmp[(p >> 8) % 96],
// 0.5, tmp[p % 96]); out[i] = the fold s = fma(s, 0.75, tmp[k]). The host computes the same sequence with std::fma
// (correctly rounded, as v_fma_f32): compared exactly. Shapes with several waves per workgroup and ragged ends, so
// waves of one workgroup (and of the two host threads) must each see their own private memory.
TEST(ProjectKernels, PrivateScatter) {
  struct Shape { u32 n, block; };
  const Shape shapes[] = {{300, 128}, {64, 64}, {1000, 256}, {1, 64}};
  std::uint64_t seed = 91;
  for (const Shape& s : shapes) {
    auto spec = launch_spec("private_scatter", groups_for(s.n, s.block), s.block,
                            {buffer(DType::f32, 96 * s.n, random_init(seed, -2, 2)),
                             buffer(DType::u32, 96 * s.n, random_init(seed + 1, 0, 65535)), buffer(DType::f32, s.n),
                             i32_arg(static_cast<std::int32_t>(s.n))});
    seed += 2;
    const auto in = input<float>(spec, 0);
    const auto perm = input<u32>(spec, 1);
    std::vector<float> want(s.n);
    for (u32 i = 0; i < s.n; ++i) {
      float tmp[96];
      for (u32 k = 0; k < 96; ++k) tmp[k] = in[i + k * s.n];
      for (u32 k = 0; k < 96; ++k) {
        const u32 p = perm[i + k * s.n];
        tmp[p % 96] = std::fma(tmp[(p >> 8) % 96], 0.5f, tmp[p % 96]);
      }
      float acc = 0.f;
      for (u32 k = 0; k < 96; ++k) acc = std::fma(acc, 0.75f, tmp[k]);
      want[i] = acc;
    }
    for_all_runs(spec, "n=" + std::to_string(s.n) + " block=" + std::to_string(s.block),
                 [&](const emu::EmulateResult& r, const std::string& what) { same(output<float>(r, 2), want, what + " out"); });
  }
}

// A private access moved past the private segment: private_scatter's first private store with an immediate offset
// gets offset 4000 (the kernel has 400 bytes per lane). The run stops with a fault at that store naming a lane, the
// private offset and the private size, on every target: through the scratch V# (gfx90a) and through scratch_*
// (gfx942/gfx950).
TEST(ProjectKernelsNegative, PrivateOverrunIsAFault) {
  for (const auto& t : targets()) {
    SCOPED_TRACE(t);
    const Loaded* l = load(t);
    ASSERT_NE(l, nullptr);
    co::Module m = l->m;
    const auto [first, last] = kernel_items(m, "private_scatter");
    Inst* st = nullptr;
    std::size_t k = 0;
    for (std::size_t i = first; i <= last && !st; ++i) {
      if (m.program.items[i].kind != Item::Kind::inst) continue;
      Inst& in = m.program.items[i].inst;
      const auto mn = mnemonic(in);
      if (!mn.starts_with("scratch_store") && !mn.starts_with("buffer_store")) continue;
      const auto ops = asmevo::isa::operands(asmevo::isa::forms(in.target)[in.form]);
      k = 0;
      while (k < ops.size() && ops[k].name != "offset") ++k;
      if (k < in.ops.size()) st = &in;
    }
    ASSERT_NE(st, nullptr) << "private_scatter has no private store with an offset";
    st->ops[k] = Operand::make_imm(4000);
    const InstId id = st->id;
    auto spec = launch_spec("private_scatter", 2, 128, {buffer(DType::f32, 96 * 200, random_init(5, -1, 1)),
                                                        buffer(DType::u32, 96 * 200, random_init(6, 0, 65535)),
                                                        buffer(DType::f32, 200), i32_arg(200)});
    for (const Mode& mode : modes) {
      emu::EmulateOptions o = adversarial(mode.seed);
      o.run.completion = mode.completion;
      o.run.threads = mode.threads;
      auto r = emu::emulate(m, l->elf, spec, o);
      ASSERT_TRUE(r) << r.error().str();
      ASSERT_EQ(r->stop.kind, emu::Stop::Kind::fault) << mode.name() << ": " << r->stop.message;
      EXPECT_EQ(r->stop.inst, id) << r->stop.message;
      ASSERT_GE(r->stop.lane, 0);
      EXPECT_NE(r->stop.message.find("lane " + std::to_string(r->stop.lane)), std::string::npos) << r->stop.message;
      EXPECT_NE(r->stop.message.find("private offset"), std::string::npos) << r->stop.message;
      EXPECT_NE(r->stop.message.find("400 bytes per lane"), std::string::npos) << r->stop.message;
    }
    still_runs(*l, "private overrun on " + t);
  }
}

// Deleting the s_waitcnt that guards the first use of a global load's result: the read is reported as a waitcnt
// violation naming the reading instruction and the load (both ids), under every seed; the process runs on. Three
// kernels: saxpy (vmcnt(0) before an FMA), wave_scan (the wait after a branch joins, before a DPP add) and int_div
// (a partial vmcnt(1) wait: the first of two loads).
TEST(ProjectKernelsNegative, DeletedWaitcntIsAViolation) {
  const verify::LaunchSpec cases[] = {
      launch_spec("saxpy", 4, 256, {f32_arg(2.f), buffer(DType::f32, 1000, random_init(1, -1, 1)),
                                    buffer(DType::f32, 1000, random_init(2, -1, 1)), i32_arg(1000)}),
      launch_spec("wave_scan", 4, 256, {buffer(DType::u32, 1000, random_init(3, 0, 1000)), buffer(DType::u32, 1000),
                                        buffer(DType::u32, 16), i32_arg(1000)}),
      launch_spec("int_div", 4, 256, {buffer(DType::u32, 1000, random_init(4, 0, 1e9)),
                                      buffer(DType::u32, 1000, random_init(5, 1, 1000)), buffer(DType::u32, 1000),
                                      buffer(DType::u32, 1000), buffer(DType::i32, 1000), buffer(DType::i32, 1000),
                                      i32_arg(1000)}),
  };
  for (const auto& t : targets()) {
    const Loaded* l = load(t);
    ASSERT_NE(l, nullptr);
    for (const auto& spec : cases) {
      SCOPED_TRACE(spec.kernel + " on " + t);
      co::Module m = l->m;
      auto& items = m.program.items;
      const auto [first, last] = kernel_items(m, spec.kernel);
      // Walk the kernel: the first s_waitcnt with a vmcnt limit after a vector load is the guard (no vmcnt wait
      // comes before it, so every load so far may still be outstanding without it).
      std::vector<std::pair<InstId, Reg>> pending;
      std::size_t guard = 0;
      for (std::size_t i = first; i <= last && !guard; ++i) {
        if (items[i].kind != Item::Kind::inst) continue;
        const Inst& in = items[i].inst;
        const auto mn = mnemonic(in);
        if (is_vector_load(mn))
          for (const Reg& d : vgprs(in, asmevo::isa::Role::def)) pending.emplace_back(in.id, d);
        if (mn == "s_waitcnt" && !pending.empty() && !in.ops.empty() && in.ops[0].kind == Operand::Kind::imm) {
          const auto w = asmevo::decode_waitcnt(in.target, static_cast<std::uint16_t>(in.ops[0].imm));
          if (w.vm < asmevo::max_count(in.target, asmevo::Counter::vm)) guard = i;
        }
      }
      ASSERT_NE(guard, 0u) << "no s_waitcnt vmcnt after a global load";
      const InstId guard_id = items[guard].inst.id;
      // The first instruction after the guard that reads a load's destination, and the loads it reads.
      InstId reader{};
      std::vector<InstId> read_loads;
      for (std::size_t i = guard + 1; i <= last && read_loads.empty(); ++i) {
        if (items[i].kind != Item::Kind::inst) continue;
        ASSERT_NE(mnemonic(items[i].inst), "s_waitcnt") << "another wait comes before any use";
        for (const Reg& r : vgprs(items[i].inst, asmevo::isa::Role::use))
          for (const auto& [id, d] : pending)
            if (overlap(r, d)) reader = items[i].inst.id, read_loads.push_back(id);
      }
      ASSERT_FALSE(read_loads.empty()) << "no instruction reads the loads' results after " << inst_text(m, guard_id);
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(guard));
      ASSERT_EQ(m.program.find(guard_id), nullptr);

      for (std::uint64_t seed : {1, 2, 3}) {
        auto r = emu::emulate(m, l->elf, spec, adversarial(seed));
        ASSERT_TRUE(r) << r.error().str();
        ASSERT_EQ(r->stop.kind, emu::Stop::Kind::waitcnt)
            << "seed " << seed << ": " << emu::to_string(r->stop.kind) << ": " << r->stop.message;
        EXPECT_EQ(r->stop.inst, reader) << r->stop.message;
        EXPECT_TRUE(r->stop.has_other);
        EXPECT_NE(std::find(read_loads.begin(), read_loads.end(), r->stop.other), read_loads.end()) << r->stop.message;
        EXPECT_NE(r->stop.message.find("i" + std::to_string(reader.value) + " "), std::string::npos) << r->stop.message;
        EXPECT_NE(r->stop.message.find("i" + std::to_string(r->stop.other.value) + " "), std::string::npos)
            << r->stop.message;
      }
      // The unedited kernel under the same launch is clean.
      (void)run_clean(*l, l->m, spec, modes[0], "unedited " + spec.kernel + " on " + t);
    }
    still_runs(*l, "waitcnt violations on " + t);
  }
}

// A store past the end of a buffer: collatz with n = 1100 and a 1000-element steps buffer (the start buffer holds
// 1100, so every load is in bounds). The run stops with a fault naming the store, a lane and its address in the
// guard past arg1; the process then runs another launch cleanly.
TEST(ProjectKernelsNegative, OutOfBoundsStoreIsAFault) {
  for (const auto& t : targets()) {
    SCOPED_TRACE(t);
    const Loaded* l = load(t);
    ASSERT_NE(l, nullptr);
    const auto [first, last] = kernel_items(l->m, "collatz");
    InstId store{};
    bool found = false;
    for (std::size_t i = first; i <= last && !found; ++i)
      if (l->m.program.items[i].kind == Item::Kind::inst && mnemonic(l->m.program.items[i].inst).starts_with("global_store"))
        store = l->m.program.items[i].inst.id, found = true;
    ASSERT_TRUE(found) << "collatz has no global store";
    for (const Mode& mode : modes) {
      auto spec = launch_spec("collatz", 5, 256, {buffer(DType::u32, 1100, random_init(9, 1, 1000)),
                                                  buffer(DType::u32, 1000), i32_arg(1100), u32_arg(100)});
      emu::EmulateOptions o = adversarial(mode.seed);
      o.run.completion = mode.completion;
      o.run.threads = mode.threads;
      auto r = emu::emulate(l->m, l->elf, spec, o);
      ASSERT_TRUE(r) << r.error().str();
      ASSERT_EQ(r->stop.kind, emu::Stop::Kind::fault) << mode.name() << ": " << r->stop.message;
      EXPECT_EQ(r->stop.inst, store) << r->stop.message;
      std::uint64_t base = 0;
      for (const auto& b : r->buffers)
        if (b.arg == 1) base = b.address;
      ASSERT_GE(r->stop.lane, 0);
      ASSERT_LT(r->stop.lane, 64);
      EXPECT_GE(r->stop.address, base + 4000) << r->stop.message;
      EXPECT_LT(r->stop.address, base + 4400) << r->stop.message;
      EXPECT_EQ((r->stop.address - base) / 4 % 64, static_cast<std::uint64_t>(r->stop.lane)) << r->stop.message;
      EXPECT_NE(r->stop.message.find("lane " + std::to_string(r->stop.lane)), std::string::npos) << r->stop.message;
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(r->stop.address));
      EXPECT_NE(r->stop.message.find(hex), std::string::npos) << r->stop.message;
      EXPECT_NE(r->stop.message.find("arg1"), std::string::npos) << r->stop.message;
    }
    still_runs(*l, "out-of-bounds store on " + t);
  }
}

// An LDS store moved out of the workgroup's allocation (block_sum's first ds_write given offset 1024, just past the
// kernel's 1 KiB of LDS): a fault naming the store, a lane and the LDS offset.
TEST(ProjectKernelsNegative, OutOfRangeLdsStoreIsAFault) {
  for (const auto& t : targets()) {
    SCOPED_TRACE(t);
    const Loaded* l = load(t);
    ASSERT_NE(l, nullptr);
    co::Module m = l->m;
    const auto [first, last] = kernel_items(m, "block_sum");
    Inst* w = nullptr;
    for (std::size_t i = first; i <= last && !w; ++i)
      if (m.program.items[i].kind == Item::Kind::inst && mnemonic(m.program.items[i].inst) == "ds_write_b32")
        w = &m.program.items[i].inst;
    ASSERT_NE(w, nullptr) << "block_sum has no ds_write_b32";
    const auto ops = asmevo::isa::operands(asmevo::isa::forms(w->target)[w->form]);
    std::size_t k = 0;
    while (k < ops.size() && ops[k].name != "offset") ++k;
    ASSERT_LT(k, w->ops.size());
    ASSERT_TRUE(w->ops[k].kind == Operand::Kind::absent || w->ops[k].imm == 0) << asmevo::print_inst(*w);
    // block_sum's LDS is 1 KiB (256 floats); offset 1024 puts every lane just past it. Without "dynamic_lds" a
    // kernel with a fixed group segment gets exactly that much, as on hardware.
    w->ops[k] = Operand::make_imm(1024);
    const InstId id = w->id;
    auto spec = launch_spec("block_sum", 2, 256, {buffer(DType::f32, 1000, random_init(3, -1, 1)), buffer(DType::f32, 2),
                                                  i32_arg(1000), i32_arg(512)});
    for (const Mode& mode : modes) {
      emu::EmulateOptions o = adversarial(mode.seed);
      o.run.completion = mode.completion;
      o.run.threads = mode.threads;
      auto r = emu::emulate(m, l->elf, spec, o);
      ASSERT_TRUE(r) << r.error().str();
      ASSERT_EQ(r->stop.kind, emu::Stop::Kind::fault) << mode.name() << ": " << r->stop.message;
      EXPECT_EQ(r->stop.inst, id) << r->stop.message;
      ASSERT_GE(r->stop.lane, 0);
      // Work-item t writes LDS offset 4t + 1024: the reported offset matches the reported lane.
      ASSERT_GE(r->stop.address, 1024u);
      EXPECT_EQ((r->stop.address - 1024) / 4 % 64, static_cast<std::uint64_t>(r->stop.lane)) << r->stop.message;
      EXPECT_NE(r->stop.message.find("LDS"), std::string::npos) << r->stop.message;
      EXPECT_NE(r->stop.message.find("lane " + std::to_string(r->stop.lane)), std::string::npos) << r->stop.message;
    }
    still_runs(*l, "LDS fault on " + t);
  }
}

// Deleting the s_waitcnt lgkmcnt(0) that block_sum's release fence puts before its first s_barrier: no wave reads
// a register early, but other waves may now read LDS before the writes land. Adversarial completion must expose
// that as a waitcnt violation (a wave reads LDS bytes another wave's ds_write has not completed), while eager
// completion (memory without latency) still gets the right sums.
TEST(ProjectKernelsNegative, DeletedBarrierWaitShowsUpInResults) {
  for (const auto& t : targets()) {
    SCOPED_TRACE(t);
    const Loaded* l = load(t);
    ASSERT_NE(l, nullptr);
    co::Module m = l->m;
    auto& items = m.program.items;
    const auto [first, last] = kernel_items(m, "block_sum");
    std::size_t wait = 0;
    for (std::size_t i = first; i <= last && !wait; ++i)
      if (items[i].kind == Item::Kind::inst && mnemonic(items[i].inst) == "s_barrier")
        for (std::size_t j = i; j-- > first;)
          if (items[j].kind == Item::Kind::inst) {
            if (mnemonic(items[j].inst) == "s_waitcnt") wait = j;
            break;
          }
    ASSERT_NE(wait, 0u) << "no s_waitcnt right before block_sum's first s_barrier";
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(wait));
    auto spec = launch_spec("block_sum", 2, 256, {buffer(DType::f32, 1000, random_init(3, -1, 1)), buffer(DType::f32, 2),
                                                  i32_arg(1000), i32_arg(512)});
    const auto in = input<float>(spec, 0);
    std::vector<float> want(2);
    for (u32 g = 0; g < 2; ++g) {
      float part[256];
      for (u32 k = 0; k < 256; ++k) {
        float acc = 0.f;
        for (u32 i = g * 512 + k; i < std::min<u32>(g * 512 + 512, 1000); i += 256) acc += in[i];
        part[k] = acc;
      }
      for (u32 w = 128; w > 0; w >>= 1)
        for (u32 k = 0; k < w; ++k) part[k] = part[k] + part[k + w];
      want[g] = part[0];
    }
    // Adversarial completion holds a wave that leaves the barrier with LDS writes outstanding back, so another wave
    // reads those bytes while they are outstanding: the cross-wave LDS race check (sem_mem.hpp lds_race_ok) stops the
    // run, naming the reading and the writing instruction (before it, this test could only hope for wrong sums).
    for (std::uint64_t seed : {1, 2, 3}) {
      auto r = emu::emulate(m, l->elf, spec, adversarial(seed));
      ASSERT_TRUE(r) << r.error().str();
      ASSERT_EQ(r->stop.kind, emu::Stop::Kind::waitcnt) << r->stop.message;
      EXPECT_NE(r->stop.message.find("LDS bytes"), std::string::npos) << r->stop.message;
      EXPECT_TRUE(r->stop.has_other);
    }
    auto r = run_clean(*l, m, spec, modes[3], "block_sum without its barrier wait, eager");
    if (r) same(output<float>(*r, 1), want, "block_sum without its barrier wait, eager");
  }
}

// An edit that names a VGPR beyond the kernel's allocation (saxpy's first VALU result moved to v250): the run stops
// with an illegal-instruction report at that instruction, not a crash or a silent read of another wave's registers.
TEST(ProjectKernelsNegative, RegisterBeyondAllocationIsIllegal) {
  for (const auto& t : targets()) {
    SCOPED_TRACE(t);
    const Loaded* l = load(t);
    ASSERT_NE(l, nullptr);
    co::Module m = l->m;
    const auto [first, last] = kernel_items(m, "saxpy");
    Inst* target = nullptr;
    for (std::size_t i = first; i <= last && !target; ++i) {
      if (m.program.items[i].kind != Item::Kind::inst) continue;
      Inst& in = m.program.items[i].inst;
      if (!mnemonic(in).starts_with("v_") || in.ops.empty() || in.ops[0].kind != Operand::Kind::reg ||
          in.ops[0].reg.file != RegFile::vgpr || in.ops[0].reg.dwords != 1)
        continue;
      target = &in;
    }
    ASSERT_NE(target, nullptr);
    target->ops[0].reg.index = 250;
    const InstId id = target->id;
    auto spec = launch_spec("saxpy", 2, 256, {f32_arg(1.f), buffer(DType::f32, 500), buffer(DType::f32, 500), i32_arg(500)});
    auto r = emu::emulate(m, l->elf, spec, adversarial(1));
    ASSERT_TRUE(r) << r.error().str();
    ASSERT_EQ(r->stop.kind, emu::Stop::Kind::illegal) << r->stop.message;
    EXPECT_EQ(r->stop.inst, id) << r->stop.message;
    EXPECT_NE(r->stop.message.find("beyond the kernel's allocation"), std::string::npos) << r->stop.message;
    still_runs(*l, "illegal register on " + t);
  }
}

}  // namespace
