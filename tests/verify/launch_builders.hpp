// Test support: launch-spec arguments and buffer initialisers built in code, as a launch file would declare them.
#pragma once

#include <cstdint>
#include <utility>

#include "asmevo/launch/launch_spec.hpp"

namespace asmevo::test {

inline verify::Init random_init(std::uint64_t seed, double lo, double hi) {
  verify::Init i;
  i.kind = verify::Init::random;
  i.seed = seed;
  i.min = lo;
  i.max = hi;
  return i;
}

inline verify::Init iota_init(double start, double step) {
  verify::Init i;
  i.kind = verify::Init::iota;
  i.start = start;
  i.step = step;
  return i;
}

inline verify::Init fill_init(double v) {
  verify::Init i;
  i.kind = verify::Init::fill;
  i.value = v;
  return i;
}

/// A buffer argument of `count` elements of `t` (zeros unless `init` says otherwise).
inline verify::ArgSpec buffer(verify::DType t, std::uint64_t count, verify::Init init = {}) {
  verify::ArgSpec a;
  a.kind = verify::ArgSpec::Kind::buffer;
  a.buffer.dtype = t;
  a.buffer.count = count;
  a.buffer.init = std::move(init);
  return a;
}

/// A scalar argument of type `t` whose bits are `bits`.
inline verify::ArgSpec scalar(verify::DType t, std::uint64_t bits) {
  verify::ArgSpec a;
  a.kind = verify::ArgSpec::Kind::scalar;
  a.scalar.type = t;
  a.scalar.bits = bits;
  return a;
}

}  // namespace asmevo::test
