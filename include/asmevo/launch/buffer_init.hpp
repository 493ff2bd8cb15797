// The bytes a launch spec's buffer inits describe (zeros, random draws with specials and ties, iota, fill, file),
// deterministic on every platform, and where the emulator places each buffer per trial. Not here: the spec's data
// types (launch/spec_types.hpp, launch/dtype.hpp) and reading it from JSON (launch/spec_parser.hpp).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "asmevo/launch/dtype.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/float_formats.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::verify {

namespace detail {

/// splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014; constants of
/// Vigna's reference splitmix64.c): a fixed integer recurrence, so a seed gives the same stream on every platform
/// (unlike std::uniform_*_distribution, whose algorithms the standard leaves to each library).
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1): the top 53 bits as a binary fraction.
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  /// Uniform integer in [0, n) without modulo bias (rejection from the largest multiple of n); n == 0 means 2^64.
  std::uint64_t below(std::uint64_t n) {
    if (n == 0) return next();
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
    std::uint64_t x;
    do x = next();
    while (x >= limit);
    return x % n;
  }
};

inline void store_le(std::byte* p, std::uint64_t bits, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) p[i] = static_cast<std::byte>(bits >> (8 * i));
}

}  // namespace detail

/// The special values a random init with "specials" draws from, as bit patterns (zero-extended), each once, in a
/// fixed order. Floats: +0, -0, +inf, -inf, a quiet NaN, the smallest and the largest subnormal, the smallest
/// normal, the largest finite value and its negative, 1, -1, +-L far outside [min, max] (then, where the format has
/// them, the negative subnormals and a signaling NaN: a flushed negative denormal and a quieted sNaN differ from
/// the input only there; then two more NaNs, one with payload 1 and a negative one with every payload bit set, so that
/// two different NaNs meet) with
/// L = 256 * max(|min|, |max|, 1) (rounded to the dtype, at most its largest finite value), which makes exp()
/// over- or underflow in softmax-like code. Encodings a dtype lacks are left out (fnuz: no -0, no inf, NaN = 0x80;
/// OCP E4M3: no inf, NaN = 0x7f). Integers: 0, 1, -1 (signed), the dtype's minimum and maximum.
[[nodiscard]] inline std::vector<std::uint64_t> special_bits(DType t, double min, double max) {
  std::vector<std::uint64_t> out;
  auto add = [&out](std::uint64_t b) {
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  };
  const unsigned width = static_cast<unsigned>(dtype_size(t)) * 8;
  if (!dtype_is_float(t)) {
    const std::uint64_t all = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    add(0);
    add(1);
    if (dtype_is_signed(t)) {
      add(all);                                       // -1
      add(std::uint64_t{1} << (width - 1));           // minimum, 100...0
      add(all >> 1);                                  // maximum, 011...1
    } else {
      add(all);                                       // maximum
    }
    return out;
  }
  const detail::FloatLayout f = detail::float_layout(t);
  const std::uint64_t sign = std::uint64_t{1} << (f.width - 1);
  const std::uint64_t frac = (std::uint64_t{1} << f.frac_bits) - 1;
  const std::uint64_t exp_all = ((std::uint64_t{1} << f.exp_bits) - 1) << f.frac_bits;
  const std::uint64_t bias = (std::uint64_t{1} << (f.exp_bits - 1)) - (f.flavor == detail::FloatLayout::fnuz ? 0 : 1);
  const std::uint64_t one = bias << f.frac_bits;
  std::uint64_t max_finite = 0, qnan = 0;
  switch (f.flavor) {
    case detail::FloatLayout::ieee:  // quiet NaN: the fraction's top bit set (IEEE 754-2019 §6.2.1)
      max_finite = (exp_all - (frac + 1)) | frac, qnan = exp_all | ((frac + 1) >> 1);
      break;
    case detail::FloatLayout::fnuz: max_finite = sign - 1, qnan = sign; break;
    case detail::FloatLayout::fn: max_finite = (exp_all | frac) - 1, qnan = exp_all | frac; break;
  }
  add(0);
  if (f.flavor != detail::FloatLayout::fnuz) add(sign);  // -0
  if (f.flavor == detail::FloatLayout::ieee) add(exp_all), add(sign | exp_all);
  add(qnan);
  add(1);                    // smallest subnormal
  add(frac);                 // largest subnormal
  add(frac + 1);             // smallest normal
  add(max_finite);
  add(sign | max_finite);
  add(one);
  add(sign | one);
  double big = 256 * std::max({std::isfinite(min) ? std::fabs(min) : 0.0, std::isfinite(max) ? std::fabs(max) : 0.0,
                               1.0});
  big = std::min(big, detail::dtype_info(t).max_finite);
  add(detail::round_float_bits(t, big));
  add(detail::round_float_bits(t, -big));
  // Appended, so that the values above keep their indexes in the draw.
  add(sign | 1);             // the negative subnormals
  add(sign | frac);
  if (f.flavor == detail::FloatLayout::ieee) add(exp_all | 1);  // signaling NaN: quiet bit clear, payload 1
  // NaNs with other payloads and the other sign: which operand's NaN an instruction passes on shows only when two
  // different NaNs meet (v_add_f32 a, b with its operands swapped).
  if (f.flavor == detail::FloatLayout::ieee) add(qnan | 1), add(sign | qnan | (frac >> 1));
  if (f.flavor == detail::FloatLayout::fn) add(sign | qnan);
  return out;
}

/// How far (a multiple of 16 below 256) the emulator moves buffer argument `arg`'s base off 256-byte alignment in
/// trial `trial` (emu::Memory::map_straddling's phase): 0 in trial 0, where every base is as aligned as hipMalloc
/// leaves it (256 bytes, HIP Programming Guide "Memory allocation"); from trial 1 on a nonzero multiple of 16 that
/// varies with the argument and the trial. Triton specializes a pointer on divisibility by 16 and no more
/// (tt.divisibility = 16), and a tensor view can start at any such offset into its allocation, so K0 is correct there
/// too; and a K1 that drops the carry of an address add that a 256-aligned base never produces is caught.
[[nodiscard]] constexpr std::uint64_t buffer_phase(std::uint32_t trial, std::size_t arg) noexcept {
  if (trial == 0) return 0;
  return 16 * (1 + (7 * std::uint64_t{trial} + 3 * std::uint64_t{arg}) % 15);
}

/// Where in buffer argument `arg` the emulator puts the 4 GiB boundary it straddles in trial `trial`, in eighths of
/// the buffer (emu::Memory::map_straddling's `eighths`): the middle (4) in trial 0, from trial 1 on the quarters
/// and then the other eighths, varying with the argument and the trial. A dropped carry into an address's high half
/// shows only in an access past the boundary from a row or tile that starts before it, so the boundary moves across
/// trials: a tiled kernel whose tiles all start on one side of the middle still crosses it somewhere.
[[nodiscard]] constexpr unsigned buffer_split(std::uint32_t trial, std::size_t arg) noexcept {
  constexpr unsigned order[6] = {2, 6, 3, 5, 1, 7};  // quarters first: tiles are often a power of two in size
  if (trial == 0) return 4;
  return order[(trial - 1 + arg) % 6];
}

/// The bytes of one buffer (little-endian elements) for trial `trial`. random draws from seed + trial: floats
/// uniformly in [min, max] as doubles, then rounded to the dtype (nearest even); integers uniformly over
/// [ceil(min), floor(max)]. With "specials" p > 0, each element first draws u in [0, 1) from the same stream: when
/// u < p it takes special_bits()[k] (Init::constants[k] where given) with k drawn uniformly, otherwise the draw above. With "ties" k, the draw above
/// is replaced by a copy of one of k values drawn first (the first k draws of the same seed; the choices come from a
/// stream of their own). iota computes start + i*step
/// in double, then rounds; fill rounds its value. file reads the first bytes() bytes of the file (a shorter file is
/// an error). Deterministic on every platform.
[[nodiscard]] ASMEVO_OUTLINE Expected<std::vector<std::byte>> materialize(const BufferArg& b, std::uint32_t trial)
#if ASMEVO_BODY_LAUNCH
{
  using detail::i128;
  // A BufferArg made through the API rather than parse_launch_spec may hold values no dtype can take.
  auto as_int = [](double d) -> std::optional<i128> {
    if (!std::isfinite(d) || std::fabs(d) >= 0x1p100) return std::nullopt;
    return static_cast<i128>(d);
  };
  const std::size_t esize = dtype_size(b.dtype);
  if (b.count > max_buffer_bytes / esize)
    return fail(DiagCode::usage, "a buffer of " + std::to_string(b.count) + " x " + std::string(dtype_name(b.dtype)) +
                                     " is more than the 16 GiB a buffer may hold");
  const std::size_t n = static_cast<std::size_t>(b.count);
  std::vector<std::byte> out(n * esize);
  const bool is_float = dtype_is_float(b.dtype);
  const Init& in = b.init;
  switch (in.kind) {
    case Init::zeros: break;
    case Init::fill: {
      const auto v = as_int(in.value);
      if (!is_float && !v) return fail(DiagCode::usage, "fill: the value is not an integer of any dtype");
      const std::uint64_t bits = is_float ? detail::round_float_bits(b.dtype, in.value) : detail::int_bits(b.dtype, *v);
      for (std::size_t i = 0; i < n; ++i) detail::store_le(out.data() + i * esize, bits, esize);
      break;
    }
    case Init::iota: {
      if (is_float) {
        for (std::size_t i = 0; i < n; ++i)
          detail::store_le(out.data() + i * esize,
                           detail::round_float_bits(b.dtype, in.start + static_cast<double>(i) * in.step), esize);
      } else {
        // Integers are exact (parse_launch_spec keeps start, step and the last element inside the dtype).
        const auto start = as_int(in.start), step = as_int(in.step);
        if (!start || !step || std::fabs(in.start) > 0x1p53 || std::fabs(in.step) > 0x1p53)
          return fail(DiagCode::usage, "iota: start and step must be integers of magnitude at most 2^53");
        for (std::size_t i = 0; i < n; ++i)
          detail::store_le(out.data() + i * esize, detail::int_bits(b.dtype, *start + static_cast<i128>(i) * *step),
                           esize);
      }
      break;
    }
    case Init::random: {
      if (!(in.specials >= 0 && in.specials <= 1))
        return fail(DiagCode::usage, "random init: specials must be a probability in [0, 1]");
      detail::SplitMix64 rng{in.seed + trial};
      const double p = in.specials;
      const std::vector<std::uint64_t> special = p == 0                ? std::vector<std::uint64_t>{}
                                                 : !in.constants.empty() ? in.constants
                                                                         : special_bits(b.dtype, in.min, in.max);
      // p == 0 draws nothing extra, so the bytes are those of a spec without "specials".
      auto take_special = [&](std::size_t i) {
        if (p == 0 || rng.unit() >= p) return false;
        detail::store_le(out.data() + i * esize, special[static_cast<std::size_t>(rng.below(special.size()))], esize);
        return true;
      };
      // With ties, the first `ties` draws below fill a pool (as if the buffer were that long), and every element
      // then copies a pool entry chosen uniformly: equal values, many times over.
      std::vector<std::byte> pool;
      if (in.ties > 0) {
        BufferArg pb = b;
        pb.count = in.ties;
        pb.init.ties = 0;
        pb.init.specials = 0;
        auto pv = materialize(pb, trial);
        if (!pv) return unexpected(pv.error());
        pool = std::move(*pv);
        rng = detail::SplitMix64{~(in.seed + trial)};  // the choices: a stream of their own, not the pool's
        for (std::size_t i = 0; i < n; ++i) {
          if (take_special(i)) continue;
          std::memcpy(out.data() + i * esize, pool.data() + rng.below(in.ties) * esize, esize);
        }
        break;
      }
      if (is_float) {
        for (std::size_t i = 0; i < n; ++i) {
          if (take_special(i)) continue;
          const double u = rng.unit();
          // min*(1-u) + max*u cannot overflow where max - min could (min = -max = DBL_MAX); clamped, since the two
          // products' rounding may step just outside [min, max].
          const double v = std::clamp(in.min * (1.0 - u) + in.max * u, in.min, in.max);
          detail::store_le(out.data() + i * esize, detail::round_float_bits(b.dtype, v), esize);
        }
      } else {
        const auto [tlo, thi] = detail::int_range(b.dtype);
        auto lo = as_int(std::ceil(in.min)), hi = as_int(std::floor(in.max));
        if (!lo || !hi || *lo > *hi || *lo < tlo || *hi > thi)
          return fail(DiagCode::usage, "random init: [min, max] holds no integer, or leaves the range of " +
                                           std::string(dtype_name(b.dtype)));
        const auto span = static_cast<std::uint64_t>(static_cast<detail::u128>(*hi - *lo + 1));  // 0 = 2^64
        for (std::size_t i = 0; i < n; ++i) {
          if (take_special(i)) continue;
          detail::store_le(out.data() + i * esize, detail::int_bits(b.dtype, *lo + static_cast<i128>(rng.below(span))),
                           esize);
        }
      }
      break;
    }
    case Init::log_random: {
      // Log-uniform by binade: the binade [2^(e-1), 2^e) is drawn uniformly from those [min, max] meets, then the
      // value uniformly from its part inside [min, max] (IEEE double arithmetic: the same on every platform). A max
      // that is a power of two opens a binade of its own only when it is also min.
      if (!is_float || !(in.min > 0) || !(in.min <= in.max) || !std::isfinite(in.max))
        return fail(DiagCode::usage, "log_random init: needs a float dtype and 0 < min <= max");
      if (detail::round_float_bits(b.dtype, in.min) == detail::round_float_bits(b.dtype, 0.0))
        return fail(DiagCode::usage, "log_random init: min (" + std::to_string(in.min) + ") rounds to zero in " +
                                         std::string(dtype_name(b.dtype)) + "; give a min the dtype can hold");
      detail::SplitMix64 rng{in.seed + trial};
      int e_lo = 0, e_hi = 0;
      (void)std::frexp(in.min, &e_lo);  // frexp: x = f * 2^e, f in [0.5, 1), so x lies in binade e
      if (std::frexp(in.max, &e_hi) == 0.5 && e_hi > e_lo) --e_hi;
      const auto binades = static_cast<std::uint64_t>(e_hi - e_lo + 1);
      for (std::size_t i = 0; i < n; ++i) {
        const int e = e_lo + static_cast<int>(rng.below(binades));
        const double lo = std::max(std::ldexp(1.0, e - 1), in.min), hi = std::min(std::ldexp(1.0, e), in.max);
        double v = std::min(lo + rng.unit() * (hi - lo), in.max);
        if (in.signed_values && rng.unit() < 0.5) v = -v;
        detail::store_le(out.data() + i * esize, detail::round_float_bits(b.dtype, v), esize);
      }
      break;
    }
    case Init::file: {
      std::ifstream f(in.path, std::ios::binary);
      if (!f)
        return fail(DiagCode::io_error, "cannot open '" + in.path + "': " + std::strerror(errno), Loc{in.path});
      f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size()));
      const auto got = static_cast<std::size_t>(f.gcount());
      if (got < out.size())
        return fail(DiagCode::io_error,
                    "'" + in.path + "' holds " + std::to_string(got) + " bytes, fewer than the buffer's " +
                        std::to_string(out.size()) + " (" + std::to_string(b.count) + " x " +
                        std::string(dtype_name(b.dtype)) + ")",
                    Loc{in.path});
      break;
    }
  }
  return out;
}
#else
;
#endif

}  // namespace asmevo::verify
