// Comparing one buffer of K1 with K0's, element by element, by the policy of DESIGN.md "Verification policy": bit
// patterns, or a declared tolerance for float outputs. Not here: running the kernels (verify/differential.hpp) and
// how a comparison is written into a receipt (verify/receipt.hpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "asmevo/launch/dtype.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/float_formats.hpp"

namespace asmevo::verify {

/// One element of a buffer: its bit pattern (zero-extended) and its value as a double (integers exactly up to 2^53).
struct Element {
  std::uint64_t bits = 0;
  double value = 0;
};

/// Element `i` of little-endian `bytes` holding `t`s. Precondition: (i + 1) * dtype_size(t) <= bytes.size().
[[nodiscard]] inline Element element_at(std::span<const std::byte> bytes, DType t, std::size_t i) {
  const std::size_t n = dtype_size(t);
  Element e;
  for (std::size_t k = 0; k < n; ++k) e.bits |= static_cast<std::uint64_t>(bytes[i * n + k]) << (8 * k);
  switch (t) {
    case DType::f64: e.value = std::bit_cast<double>(e.bits); break;
    case DType::f32: e.value = std::bit_cast<float>(static_cast<std::uint32_t>(e.bits)); break;
    case DType::f16: e.value = floats::f16_to_f32(static_cast<std::uint16_t>(e.bits)); break;
    case DType::bf16: e.value = floats::bf16_to_f32(static_cast<std::uint16_t>(e.bits)); break;
    case DType::fp8e4m3fnuz: case DType::fp8e5m2fnuz: case DType::fp8e4m3: case DType::fp8e5m2:
      e.value = floats::fp8_to_f32(static_cast<std::uint8_t>(e.bits), detail::fp8_kind(t));
      break;
    case DType::i64: e.value = static_cast<double>(static_cast<std::int64_t>(e.bits)); break;
    case DType::i32: e.value = static_cast<std::int32_t>(e.bits); break;
    case DType::i16: e.value = static_cast<std::int16_t>(e.bits); break;
    case DType::i8: e.value = static_cast<std::int8_t>(e.bits); break;
    default: e.value = static_cast<double>(e.bits); break;  // unsigned
  }
  return e;
}

/// The comparison policy for one element (DESIGN.md "Verification policy"): integers compare their bit patterns;
/// floats compare bit patterns too (so -0 and +0 differ, and so do NaNs of another sign or payload: the buffer may
/// hold bit-cast data) unless `tol` is given, then |k1 - k0| <= abs + rel * |k0| (an infinity only matches the same
/// infinity) and a NaN matches any NaN and nothing else.
[[nodiscard]] inline bool elements_match(DType t, const Element& k0, const Element& k1,
                                         const std::optional<Tolerance>& tol) {
  if (!dtype_is_float(t) || !tol) return k0.bits == k1.bits;
  const bool n0 = std::isnan(k0.value), n1 = std::isnan(k1.value);
  if (n0 || n1) return n0 && n1;
  if (std::isinf(k0.value) || std::isinf(k1.value)) return k0.value == k1.value;
  return std::fabs(k1.value - k0.value) <= tol->abs + tol->rel * std::fabs(k0.value);
}

/// One differing element.
struct Mismatch {
  std::size_t index = 0;
  Element k0, k1;
};

/// How one buffer argument of K1 compared with K0's.
struct BufferComparison {
  std::size_t arg = 0;
  DType dtype = DType::u8;
  bool output = false;                 ///< listed in "outputs" (compared by policy), else compared exactly
  std::optional<Tolerance> tolerance;  ///< the tolerance applied (outputs of a float dtype the spec declares)
  std::size_t compared = 0;            ///< elements
  std::size_t differing = 0;
  std::vector<Mismatch> first;         ///< the first few differing elements, in index order
  std::optional<std::int64_t> k0_guard_hit, k1_guard_hit;
  [[nodiscard]] bool ok() const noexcept { return differing == 0 && !k1_guard_hit; }
};

/// How many differing elements a comparison keeps.
inline constexpr std::size_t kept_mismatches = 8;

/// Compares two buffers of `t` element by element (`tol`: see elements_match). The sizes must be equal.
[[nodiscard]] inline BufferComparison compare_buffer(DType t, std::span<const std::byte> k0,
                                                     std::span<const std::byte> k1,
                                                     const std::optional<Tolerance>& tol) {
  BufferComparison c;
  c.dtype = t;
  c.tolerance = tol;
  const std::size_t n = std::min(k0.size(), k1.size()) / dtype_size(t);
  c.compared = n;
  const bool bytewise = !tol && !dtype_is_float(t);
  for (std::size_t i = 0; i < n; ++i) {
    if (bytewise) {
      const std::size_t s = dtype_size(t);
      if (std::memcmp(k0.data() + i * s, k1.data() + i * s, s) == 0) continue;
    }
    const Element a = element_at(k0, t, i), b = element_at(k1, t, i);
    if (elements_match(t, a, b, tol)) continue;
    ++c.differing;
    if (c.first.size() < kept_mismatches) c.first.push_back({i, a, b});
  }
  return c;
}

}  // namespace asmevo::verify
