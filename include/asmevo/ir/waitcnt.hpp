// Waitcnt: the s_waitcnt counter state as a value type, with the gfx9 immediate encoding, merge and covers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "asmevo/ir/target.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo {

/// Counters of s_waitcnt on gfx9-family targets.
enum class Counter : std::uint8_t { vm, exp, lgkm };

/// Largest count each counter's field holds on a target ("no wait" for that counter).
[[nodiscard]] constexpr unsigned max_count(Target t, Counter c) noexcept {
  const auto l = limits(t);
  switch (c) {
    case Counter::vm: return (1u << l.vmcnt_bits) - 1;
    case Counter::exp: return (1u << l.expcnt_bits) - 1;
    case Counter::lgkm: return (1u << l.lgkmcnt_bits) - 1;
  }
  return 0;
}

/// A wait on some counters: "wait until at most N operations of this kind are outstanding".
/// "No wait" (every count at its maximum) is the top of the lattice; merge takes the minimum per
/// counter (the stronger wait), as LLVM's SIInsertWaitcnts does with AMDGPU::Waitcnt::combined.
struct Waitcnt {
  std::uint8_t vm = 63;
  std::uint8_t exp = 7;
  std::uint8_t lgkm = 15;

  /// The wait that waits for nothing on target `t`.
  [[nodiscard]] static constexpr Waitcnt none(Target t) noexcept {
    return Waitcnt{static_cast<std::uint8_t>(max_count(t, Counter::vm)),
                   static_cast<std::uint8_t>(max_count(t, Counter::exp)),
                   static_cast<std::uint8_t>(max_count(t, Counter::lgkm))};
  }

  [[nodiscard]] constexpr unsigned get(Counter c) const noexcept {
    return c == Counter::vm ? vm : c == Counter::exp ? exp : lgkm;
  }
  constexpr void set(Counter c, unsigned n) noexcept {
    auto v = static_cast<std::uint8_t>(n);
    (c == Counter::vm ? vm : c == Counter::exp ? exp : lgkm) = v;
  }

  /// Merge: the weakest wait that is at least as strong as both.
  [[nodiscard]] constexpr Waitcnt merge(const Waitcnt& o) const noexcept {
    return Waitcnt{std::min(vm, o.vm), std::min(exp, o.exp), std::min(lgkm, o.lgkm)};
  }
  /// True iff waiting on *this guarantees everything waiting on `o` guarantees.
  [[nodiscard]] constexpr bool covers(const Waitcnt& o) const noexcept {
    return vm <= o.vm && exp <= o.exp && lgkm <= o.lgkm;
  }
  [[nodiscard]] constexpr bool waits_for_nothing(Target t) const noexcept { return *this == none(t); }

  friend constexpr bool operator==(const Waitcnt&, const Waitcnt&) = default;
};

/// Encodes the s_waitcnt simm16 of a gfx9-family target: vmcnt[3:0] in bits 3:0, expcnt in 6:4,
/// lgkmcnt in 11:8, vmcnt[5:4] in bits 15:14 (MI300/MI200 ISA guides, S_WAITCNT; LLVM
/// AMDGPU::encodeWaitcnt for isa version 9). A field that does not wait holds its all-ones maximum;
/// the bits no counter uses (7 and 13:12) stay clear, as in LLVM MC's bytes (`s_waitcnt lgkmcnt(0)`
/// is 0xc07f), since encodeWaitcnt starts from the mask of the defined fields.
[[nodiscard]] constexpr std::uint16_t encode_waitcnt(Target /*t*/, const Waitcnt& w) noexcept {
  unsigned v = 0;
  v |= (w.vm & 0xFu);
  v |= (w.exp & 0x7u) << 4;
  v |= (w.lgkm & 0xFu) << 8;
  v |= ((w.vm >> 4) & 0x3u) << 14;
  return static_cast<std::uint16_t>(v);
}

/// Decodes an s_waitcnt simm16 (inverse of encode_waitcnt on the defined fields).
[[nodiscard]] constexpr Waitcnt decode_waitcnt(Target /*t*/, std::uint16_t imm) noexcept {
  Waitcnt w;
  w.vm = static_cast<std::uint8_t>((imm & 0xFu) | (((imm >> 14) & 0x3u) << 4));
  w.exp = static_cast<std::uint8_t>((imm >> 4) & 0x7u);
  w.lgkm = static_cast<std::uint8_t>((imm >> 8) & 0xFu);
  return w;
}

/// Prints a wait as LLVM's AMDGPUInstPrinter::printWaitFlag does: the counters that wait, in the
/// order vmcnt, expcnt, lgkmcnt, separated by a space; all three if none waits.
[[nodiscard]] inline std::string to_string(Target t, const Waitcnt& w) {
  std::string s;
  auto add = [&](const char* name, unsigned v, unsigned max, bool force) {
    if (v == max && !force) return;
    if (!s.empty()) s += ' ';
    s += name;
    s += '(' + std::to_string(v) + ')';
  };
  const bool all = w.waits_for_nothing(t);
  add("vmcnt", w.vm, max_count(t, Counter::vm), all);
  add("expcnt", w.exp, max_count(t, Counter::exp), all);
  add("lgkmcnt", w.lgkm, max_count(t, Counter::lgkm), all);
  return s;
}

/// Builds a Waitcnt with a run-time check of each count against the target's field width.
[[nodiscard]] inline Expected<Waitcnt> make_waitcnt(Target t, unsigned vm, unsigned exp, unsigned lgkm) {
  const char* names[] = {"vmcnt", "expcnt", "lgkmcnt"};
  const unsigned vals[] = {vm, exp, lgkm};
  const Counter cs[] = {Counter::vm, Counter::exp, Counter::lgkm};
  for (int i = 0; i < 3; ++i)
    if (vals[i] > max_count(t, cs[i]))
      return fail(DiagCode::invalid_operand,
                  std::string(names[i]) + " " + std::to_string(vals[i]) + " is out of range on " +
                      std::string(to_string(t)),
                  {}, {}, "the field holds 0.." + std::to_string(max_count(t, cs[i])));
  return Waitcnt{static_cast<std::uint8_t>(vm), static_cast<std::uint8_t>(exp), static_cast<std::uint8_t>(lgkm)};
}

/// A single-counter wait known at compile time: `vmcnt<0>`, `lgkmcnt<3>`. Counts that do not fit
/// the field of any gfx9-family target fail to compile.
template <Counter C, unsigned N>
struct WaitT {
  static_assert(C != Counter::vm || N <= 63, "s_waitcnt: vmcnt out of range: the gfx9 field holds 0..63");
  static_assert(C != Counter::exp || N <= 7, "s_waitcnt: expcnt out of range: the gfx9 field holds 0..7");
  static_assert(C != Counter::lgkm || N <= 15, "s_waitcnt: lgkmcnt out of range: the gfx9 field holds 0..15");
  [[nodiscard]] constexpr Waitcnt to_waitcnt(Target t) const noexcept {
    Waitcnt w = Waitcnt::none(t);
    w.set(C, N);
    return w;
  }
};

template <unsigned N>
inline constexpr WaitT<Counter::vm, N> vmcnt{};
template <unsigned N>
inline constexpr WaitT<Counter::exp, N> expcnt{};
template <unsigned N>
inline constexpr WaitT<Counter::lgkm, N> lgkmcnt{};

}  // namespace asmevo
