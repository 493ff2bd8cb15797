// The inputs the verifier draws beyond the launch file's own: output canaries (an output declared zeros or a fill
// starts as random bytes) and probe trials (float specials, ties, wide magnitudes, the code's own constants). Not
// here: the runs that use them (verify/differential.hpp) and how a buffer init becomes bytes (launch/buffer_init.hpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/launch/buffer_init.hpp"
#include "asmevo/launch/dtype.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/verify/compare.hpp"

namespace asmevo::verify {

// ---------------------------------------------------------------------------------------------------------------
// Output canaries
// ---------------------------------------------------------------------------------------------------------------

/// The init an output buffer of `dtype` (argument `arg`) starts from in canary trials when its declared
/// init is "zeros" or a fill: uniform random over a range every element of the dtype can hold ([-100, 100] for the
/// float dtypes, within even fp8 e4m3's; the whole range for 8- to 32-bit integers; [-2^53, 2^53] or [0, 2^53] for
/// 64-bit ones), drawn from seed + trial like any random init. With a declared zero or constant, a K1 that skips a
/// store of a value equal to it would leave the same bytes as K0; with a canary it leaves random ones.
[[nodiscard]] inline Init canary_init(DType dtype, std::size_t arg) {
  Init in;
  in.kind = Init::random;
  in.seed = detail::SplitMix64{0xca4a11e5ull + arg}.next();
  if (dtype_is_float(dtype)) {
    in.min = -100, in.max = 100;
  } else if (dtype_size(dtype) == 8) {
    in.min = dtype_is_signed(dtype) ? -0x1p53 : 0, in.max = 0x1p53;
  } else {
    const auto [lo, hi] = detail::int_range(dtype);
    in.min = static_cast<double>(lo), in.max = static_cast<double>(hi);
  }
  return in;
}

/// Whether an output declared with `in` gets a canary in canary trials.
[[nodiscard]] inline bool takes_canary(const Init& in) { return in.kind == Init::zeros || in.kind == Init::fill; }

// ---------------------------------------------------------------------------------------------------------------
// Probe trials
// ---------------------------------------------------------------------------------------------------------------

/// An extra trial the verifier runs after a shape's own: the same launch with its data inputs redrawn to expose
/// edits that the launch file's draws never meet (an off-by-one compare, a NaN test on the wrong operand, a
/// tie-break turned around, a scale constant of a rare underflow path).
struct Probe {
  std::string kind;  ///< "specials", "ties", "binades" or "constants"
  LaunchSpec spec;   ///< the shape with the probed inputs
  std::vector<std::size_t> args;  ///< the arguments redrawn
};

namespace detail {

/// The finite range the values of buffer `b` take in trial 0: [min, max] of a random init, +-max of a signed
/// log_random one, else the smallest and largest finite element of its bytes (file, iota). Nullopt when there is
/// no finite element or the bytes cannot be made.
[[nodiscard]] inline std::optional<std::pair<double, double>> value_range(const BufferArg& b) {
  switch (b.init.kind) {
    case Init::random: return std::pair{b.init.min, b.init.max};
    case Init::log_random: return std::pair{b.init.signed_values ? -b.init.max : b.init.min, b.init.max};
    case Init::zeros:
    case Init::fill: return std::nullopt;
    default: break;
  }
  const auto bytes = materialize(b, 0);
  if (!bytes) return std::nullopt;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < b.count; ++i) {
    const double v = element_at(*bytes, b.dtype, i).value;
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!(lo <= hi)) return std::nullopt;
  return std::pair{lo, hi};
}

/// The 32-bit constants K0's and K1's code names: the literals and inline constants of their source operands (an
/// f32 constant as its bits; an f16/bf16 one is left out) and the immediates of SOPK (s_movk_i32, s_cmpk_*),
/// K1's values that K0 lacks first, then K0's that K1 lacks, then the rest, each once, at most `cap`. A compare
/// against one of them (x == 1.23f) is what no uniform draw hits.
[[nodiscard]] inline std::vector<std::uint32_t> code_constants(const Program& p0, const Program& p1,
                                                               std::size_t cap = 32) {
  auto collect = [](const Program& p) {
    std::vector<std::uint32_t> out;
    for (const Item& it : p.items) {
      if (it.kind != Item::Kind::inst) continue;
      const auto& f = isa::forms(it.inst.target)[it.inst.form];
      const auto info = isa::operands(f);
      for (std::size_t i = 0; i < it.inst.ops.size() && i < info.size(); ++i) {
        const Operand& o = it.inst.ops[i];
        const isa::OperandInfo& oi = info[i];
        const bool source = oi.role == isa::Role::use &&
                            (oi.accepts(isa::reg::literal | isa::reg::inline_const) ||
                             (f.format == isa::Format::SOPK && oi.name == "simm16"));
        if (!source) continue;
        if (o.kind == Operand::Kind::imm) out.push_back(static_cast<std::uint32_t>(o.imm));
        else if (o.kind == Operand::Kind::real && (oi.type == isa::ValueType::f32 || oi.type == isa::ValueType::v2f32))
          out.push_back(std::bit_cast<std::uint32_t>(static_cast<float>(o.real)));
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  const auto c0 = collect(p0), c1 = collect(p1);
  auto in = [](const std::vector<std::uint32_t>& v, std::uint32_t x) { return std::binary_search(v.begin(), v.end(), x); };
  std::vector<std::uint32_t> out;
  for (const auto x : c1)
    if (!in(c0, x)) out.push_back(x);
  for (const auto x : c0)
    if (!in(c1, x)) out.push_back(x);
  for (const auto x : c0)
    if (in(c1, x)) out.push_back(x);
  if (out.size() > cap) out.resize(cap);
  return out;
}

/// The bit patterns of dtype `t` that the constants probe draws for buffer values `range` from the code's 32-bit
/// `constants`: each constant and its neighbours (+-1 in the last place for a float, +-1 for an integer) in the
/// dtype's width -- the halves of a 32-bit word for a 16-bit dtype, and the f32 value rounded to it for f16/bf16, the
/// f32 value as an f64 -- then, for float dtypes, four NaNs (two payloads, both signs) given as much weight as all
/// the constants together, so that two different NaNs meet often. Integers stay inside `range` (an index stays an
/// index). Empty when there is nothing to draw.
[[nodiscard]] inline std::vector<std::uint64_t> constant_bits(DType t, std::span<const std::uint32_t> constants,
                                                              std::pair<double, double> range) {
  const bool is_float = dtype_is_float(t);
  const unsigned width = static_cast<unsigned>(dtype_size(t)) * 8;
  const std::uint64_t mask = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  std::vector<std::uint64_t> out;
  auto add = [&](std::uint64_t b) {
    b &= mask;
    if (!is_float) {
      const double v = dtype_is_signed(t) && width < 64 && (b >> (width - 1) & 1)
                           ? static_cast<double>(static_cast<std::int64_t>(b | ~mask))
                           : static_cast<double>(b);
      if (v < range.first || v > range.second) return;
    }
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  };
  auto near = [&](std::uint64_t b) { add(b), add(b + 1), add(b - 1); };
  for (const std::uint32_t c : constants) {
    const auto f = std::bit_cast<float>(c);
    if (width == 32) near(c);
    else if (width == 16) {
      near(c & 0xffffu), near(c >> 16);
      if (is_float && std::isfinite(f)) near(round_float_bits(t, f));
    } else if (width == 64) {
      if (is_float) {
        if (std::isfinite(f)) near(std::bit_cast<std::uint64_t>(static_cast<double>(f)));
      } else {
        near(c), near(static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(c))));
      }
    } else {
      near(c & 0xffu);
    }
  }
  if (is_float) {
    const auto specials = special_bits(t, range.first, range.second);
    std::vector<std::uint64_t> nans;
    for (const std::uint64_t b : specials) {
      // NaN: not equal to itself as the dtype decodes it (the fp8 formats included).
      std::vector<std::byte> e(dtype_size(t));
      detail::store_le(e.data(), b, e.size());
      const double v = element_at(e, t, 0).value;
      if (v != v) nans.push_back(b);
    }
    const std::size_t reps = nans.empty() ? 0 : std::max<std::size_t>(1, out.size() / nans.size());
    for (std::size_t r = 0; r < reps; ++r) out.insert(out.end(), nans.begin(), nans.end());
  }
  return out;
}

}  // namespace detail

/// The probe trials of `spec` (VerifyOptions::probes), in order, each only when it redraws some argument. Only
/// buffers that carry data are redrawn -- float buffers whose init draws or reads values (random, log_random, file,
/// iota), and integer buffers with a random init, kept inside their declared [min, max] so that an index stays an
/// index -- never a scalar (sizes, strides, flags), a zero or filled buffer (an output, or a counter), or an integer
/// buffer read from a file (it may hold indexes). Seeds are fixed, so a probe draws the same inputs every time.
///  - specials: floats uniform over the argument's own range with 5% of elements from special_bits (signed zeros,
///    infinities, NaN, subnormals, the extremes, values far outside the range);
///  - ties: floats and integers drawn from 4 values of the argument's range, so compares, max and argmax tie;
///  - binades: floats log-uniform over every binade from the dtype's smallest normal to a quarter of its largest
///    finite value, both signs (an edit that changes only values above 2^30 or below 2^-30 shows there);
///  - constants: the argument's own range with half the elements from detail::constant_bits of `constants` (the
///    kernels' literals, detail::code_constants, and their neighbours; NaNs of several payloads), so that a compare
///    against a magic number and an edit that passes on the other operand's NaN show; integer buffers only where a
///    constant lies in their range.
/// A shape that declares a tolerance gets only the ties probe: specials and wide magnitudes make a reassociated
/// sum differ by more than any tolerance allows, which says nothing about the edit.
[[nodiscard]] inline std::vector<Probe> probes_of(const LaunchSpec& spec, std::span<const std::uint32_t> constants = {}) {
  bool tolerance = false;
  for (const auto& t : spec.tolerance) tolerance = tolerance || t.has_value();
  // Each buffer's range once: for a file init it means reading the file.
  std::vector<std::optional<std::pair<double, double>>> ranges(spec.args.size());
  for (std::size_t a = 0; a < spec.args.size(); ++a)
    if (spec.args[a].kind == ArgSpec::Kind::buffer &&
        (dtype_is_float(spec.args[a].buffer.dtype) || spec.args[a].buffer.init.kind == Init::random))
      ranges[a] = detail::value_range(spec.args[a].buffer);
  std::vector<Probe> out;
  for (const std::string_view kind : {"specials", "ties", "binades", "constants"}) {
    if (tolerance && kind != "ties") continue;
    Probe p{std::string(kind), spec, {}};
    for (std::size_t a = 0; a < spec.args.size(); ++a) {
      if (spec.args[a].kind != ArgSpec::Kind::buffer) continue;
      BufferArg& b = p.spec.args[a].buffer;
      const bool is_float = dtype_is_float(b.dtype);
      if (!is_float && (b.init.kind != Init::random || (kind != "ties" && kind != "constants"))) continue;
      const auto& range = ranges[a];
      if (!range) continue;
      Init in;
      in.seed = 0x5eed0000ull + 0x100ull * (kind == "specials" ? 1 : kind == "ties" ? 2 : kind == "binades" ? 3 : 4) + a;
      if (kind == "constants") {
        in.kind = Init::random;
        in.min = range->first;
        in.max = range->second;
        in.constants = detail::constant_bits(b.dtype, constants, *range);
        if (in.constants.empty()) continue;
        in.specials = 0.5;
      } else if (kind == "binades") {
        // The smallest normal is 2^(1 - bias) (fnuz formats have a bias one larger: launch/dtype.hpp float_layout).
        const auto f = detail::float_layout(b.dtype);
        const int bias = (1 << (f.exp_bits - 1)) - (f.flavor == detail::FloatLayout::fnuz ? 0 : 1);
        in.kind = Init::log_random;
        in.min = std::ldexp(1.0, 1 - bias);
        in.max = std::max(in.min, detail::dtype_info(b.dtype).max_finite / 4);
        in.signed_values = true;
      } else {
        in.kind = Init::random;
        in.min = range->first;
        in.max = range->second;
        if (kind == "specials") in.specials = 0.05;
        else in.ties = 4;
      }
      b.init = in;
      p.args.push_back(a);
    }
    if (!p.args.empty()) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace asmevo::verify
