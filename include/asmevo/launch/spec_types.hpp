// The launch spec as data (DESIGN.md "Launch spec (JSON)"): one launch of one kernel -- grid, block, arguments,
// buffer inits, outputs, trials, tolerances. Not here: the element types (launch/dtype.hpp), reading a spec from
// JSON (launch/spec_parser.hpp), the bytes a buffer init describes (launch/buffer_init.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "asmevo/launch/dtype.hpp"

namespace asmevo::verify {

/// How a buffer is filled. Only the fields of `kind` are meaningful.
struct Init {
  enum Kind { zeros, random, log_random, iota, fill, file } kind = zeros;
  std::uint64_t seed = 0;            ///< random, log_random: trial t draws from seed + t (modulo 2^64)
  double min = 0, max = 0;           ///< random: the closed range (integers: [ceil(min), floor(max)]);
                                     ///< log_random: the magnitudes, 0 < min <= max
  bool signed_values = true;         ///< log_random: each element's sign is drawn too (else all positive)
  /// random: the probability (0..1) that an element is drawn uniformly from special_bits(dtype, min, max) instead
  /// of from [min, max]; 0 draws exactly what a spec without "specials" draws.
  double specials = 0;
  /// random: when > 0, the number of distinct values: `ties` values are drawn first, then every element takes one
  /// of them uniformly, so that compares, max/min and sorts meet equal values (0: every element drawn anew).
  std::uint32_t ties = 0;
  /// random with specials > 0: when not empty, the bit patterns (zero-extended) an element drawn as a special takes
  /// instead of special_bits()' (the verifier's constants probe: the kernels' own literals and NaNs of several
  /// payloads). Set by the verifier only; a launch file has no key for it.
  std::vector<std::uint64_t> constants;
  double start = 0, step = 0;        ///< iota: element i is start + i * step, computed in double, then rounded
  double value = 0;                  ///< fill
  std::string path;                  ///< file: absolute path (resolved against the spec's folder)
};

struct BufferArg {
  DType dtype = DType::u8;
  std::uint64_t count = 0;           ///< elements
  Init init;
  [[nodiscard]] std::uint64_t bytes() const { return count * dtype_size(dtype); }
};

/// A by-value argument: `bits` holds the value's little-endian bytes in the low dtype_size(type) bytes, zero above
/// (an i32 -1 is 0xffffffff).
struct ScalarArg {
  DType type = DType::i32;           ///< i32, u32, i64, u64, f32, f64, f16, bf16, i16, u16, i8, u8
  std::uint64_t bits = 0;
};

struct ArgSpec {
  // Scoped: unscoped enumerators would clash with the members `buffer` and `scalar`.
  enum class Kind : std::uint8_t { buffer, scalar, null } kind = Kind::null;
  BufferArg buffer;                  ///< kind == buffer
  ScalarArg scalar;                  ///< kind == scalar
};

/// How far a float output may stray from K0's in verification: |k1 - k0| <= abs + rel * |k0| (NaN only matches NaN).
struct Tolerance {
  double abs = 0;
  double rel = 0;
};

struct LaunchSpec {
  std::string kernel;                                   ///< symbol without ".kd"; empty = the object's only kernel
  std::array<std::uint32_t, 3> grid{1, 1, 1};           ///< workgroups per dimension (not work-items), each >= 1
  std::optional<std::array<std::uint32_t, 3>> block;    ///< work-items per workgroup; nullopt = metadata decides
  std::vector<ArgSpec> args;                            ///< one per explicit kernel argument, metadata order
  std::vector<std::size_t> outputs;                     ///< indexes into args, each a buffer; absent = every buffer
  std::uint32_t trials = 1;                             ///< >= 1
  /// Dynamic LDS bytes per workgroup on top of the kernel's fixed group segment (Triton kernels declare all their
  /// shared memory this way, as HIP's `extern __shared__`); nullopt = as much as a workgroup can get (64 KiB in all).
  std::optional<std::uint32_t> dynamic_lds;
  std::string base_dir;                                 ///< the spec's folder (relative file inits resolve here)
  /// Per float dtype (indexed by DType): the tolerance "tolerance" declares for outputs of that dtype; nullopt =
  /// exact (bit patterns equal). Integer dtypes are always exact.
  std::array<std::optional<Tolerance>, dtype_count> tolerance{};
  [[nodiscard]] const std::optional<Tolerance>& tolerance_for(DType t) const {
    return tolerance[static_cast<std::size_t>(t)];
  }
};

/// A buffer larger than this is refused (the emulator holds every buffer in host memory).
inline constexpr std::uint64_t max_buffer_bytes = std::uint64_t{16} << 30;

}  // namespace asmevo::verify
