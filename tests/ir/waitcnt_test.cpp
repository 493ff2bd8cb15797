// Unit tests of ir/waitcnt.hpp: the gfx9 s_waitcnt simm16 encoding against LLVM MC, the merge/covers
// lattice, printing, and make_waitcnt's range errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "asmevo/ir/waitcnt.hpp"

namespace {

using namespace asmevo;

struct Golden {
  const char* text;    // as llvm-mc-22 prints it back
  unsigned vm, exp, lgkm;
  std::uint16_t simm16;
};

// Obtained once with
//   llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -show-encoding
// on the lines `s_waitcnt <text>` (the encoding's low two bytes are the simm16; the output is identical
// for -mcpu=gfx90a and -mcpu=gfx950). `s_waitcnt 0` prints as `vmcnt(0) expcnt(0) lgkmcnt(0)`.
constexpr Golden golden[] = {
    {"vmcnt(0)", 0, 7, 15, 0x0f70},
    {"vmcnt(0) lgkmcnt(0)", 0, 7, 0, 0x0070},
    {"expcnt(2) lgkmcnt(5)", 63, 2, 5, 0xc52f},
    {"vmcnt(17)", 17, 7, 15, 0x4f71},
    {"vmcnt(63) expcnt(7) lgkmcnt(15)", 63, 7, 15, 0xcf7f},
    {"lgkmcnt(0)", 63, 7, 0, 0xc07f},
    {"vmcnt(15) expcnt(0)", 15, 0, 15, 0x0f0f},
    {"vmcnt(0) expcnt(0) lgkmcnt(0)", 0, 0, 0, 0x0000},
    {"vmcnt(62) lgkmcnt(14)", 62, 7, 14, 0xce7e},
};

Waitcnt w_of(const Golden& g) {
  return Waitcnt{static_cast<std::uint8_t>(g.vm), static_cast<std::uint8_t>(g.exp), static_cast<std::uint8_t>(g.lgkm)};
}

TEST(Waitcnt, EncodesAsLlvmMc) {
  for (Target t : all_targets)
    for (const auto& g : golden) EXPECT_EQ(encode_waitcnt(t, w_of(g)), g.simm16) << to_string(t) << " " << g.text;
}

TEST(Waitcnt, DecodesLlvmMcImmediates) {
  for (Target t : all_targets)
    for (const auto& g : golden) EXPECT_EQ(decode_waitcnt(t, g.simm16), w_of(g)) << to_string(t) << " " << g.text;
}

TEST(Waitcnt, PrintsAsLlvmMc) {
  for (Target t : all_targets)
    for (const auto& g : golden) EXPECT_EQ(to_string(t, w_of(g)), g.text) << to_string(t);
}

TEST(Waitcnt, DecodeInvertsEncodeOnEveryCount) {
  for (Target t : all_targets)
    for (unsigned vm = 0; vm <= max_count(t, Counter::vm); ++vm)
      for (unsigned exp = 0; exp <= max_count(t, Counter::exp); ++exp)
        for (unsigned lgkm = 0; lgkm <= max_count(t, Counter::lgkm); ++lgkm) {
          const Waitcnt w{static_cast<std::uint8_t>(vm), static_cast<std::uint8_t>(exp), static_cast<std::uint8_t>(lgkm)};
          ASSERT_EQ(decode_waitcnt(t, encode_waitcnt(t, w)), w) << vm << " " << exp << " " << lgkm;
        }
}

TEST(Waitcnt, FieldWidthsAreGfx9) {
  // MI200/MI300 ISA guides, S_WAITCNT: vmcnt 6 bits, expcnt 3, lgkmcnt 4.
  for (Target t : all_targets) {
    EXPECT_EQ(max_count(t, Counter::vm), 63u);
    EXPECT_EQ(max_count(t, Counter::exp), 7u);
    EXPECT_EQ(max_count(t, Counter::lgkm), 15u);
    EXPECT_TRUE(Waitcnt::none(t).waits_for_nothing(t));
    EXPECT_EQ(encode_waitcnt(t, Waitcnt::none(t)), 0xcf7f);
  }
}

TEST(Waitcnt, GetAndSetAddressOneCounter) {
  Waitcnt w = Waitcnt::none(Target::gfx942);
  w.set(Counter::exp, 3);
  EXPECT_EQ(w.get(Counter::exp), 3u);
  EXPECT_EQ(w.get(Counter::vm), 63u);
  EXPECT_EQ(w.get(Counter::lgkm), 15u);
  EXPECT_FALSE(w.waits_for_nothing(Target::gfx942));
}

/// A spread of waits covering the corners of each field.
std::vector<Waitcnt> sample() {
  std::vector<Waitcnt> out;
  for (std::uint8_t vm : {0, 1, 15, 16, 62, 63})
    for (std::uint8_t exp : {0, 3, 7})
      for (std::uint8_t lgkm : {0, 7, 15}) out.push_back(Waitcnt{vm, exp, lgkm});
  return out;
}

TEST(Waitcnt, MergeIsASemilattice) {
  const auto s = sample();
  const Waitcnt top = Waitcnt::none(Target::gfx942);
  for (const auto& a : s) {
    EXPECT_EQ(a.merge(a), a);      // idempotent
    EXPECT_EQ(a.merge(top), a);    // "no wait" is the identity
    for (const auto& b : s) {
      EXPECT_EQ(a.merge(b), b.merge(a));  // commutative
      for (const auto& c : s) ASSERT_EQ(a.merge(b).merge(c), a.merge(b.merge(c)));  // associative
    }
  }
}

TEST(Waitcnt, CoversIsAPartialOrderAndMergeIsItsJoin) {
  const auto s = sample();
  for (const auto& a : s) {
    EXPECT_TRUE(a.covers(a));
    EXPECT_TRUE(a.covers(Waitcnt::none(Target::gfx90a)));  // everything covers "no wait"
    for (const auto& b : s) {
      if (a.covers(b) && b.covers(a)) EXPECT_EQ(a, b);  // antisymmetric
      const Waitcnt m = a.merge(b);
      EXPECT_TRUE(m.covers(a));
      EXPECT_TRUE(m.covers(b));
      EXPECT_EQ(a.covers(b), a.merge(b) == a);
      for (const auto& c : s) {
        if (a.covers(b) && b.covers(c)) ASSERT_TRUE(a.covers(c));          // transitive
        if (c.covers(a) && c.covers(b)) ASSERT_TRUE(c.covers(m)) << "merge is the weakest common cover";
      }
    }
  }
}

TEST(Waitcnt, MakeWaitcntAcceptsTheFieldRange) {
  for (Target t : all_targets) {
    auto w = make_waitcnt(t, 63, 7, 15);
    ASSERT_TRUE(w) << w.error().str();
    EXPECT_EQ(*w, Waitcnt::none(t));
    auto z = make_waitcnt(t, 0, 0, 0);
    ASSERT_TRUE(z);
    EXPECT_EQ(encode_waitcnt(t, *z), 0);
  }
}

TEST(Waitcnt, MakeWaitcntNamesTheCounterTargetAndRange) {
  struct Case { unsigned vm, exp, lgkm; const char* counter; const char* range; };
  for (const Case c : {Case{64, 0, 0, "vmcnt", "0..63"}, Case{0, 8, 0, "expcnt", "0..7"}, Case{0, 0, 16, "lgkmcnt", "0..15"},
                       Case{1000, 0, 0, "vmcnt", "0..63"}}) {
    auto w = make_waitcnt(Target::gfx950, c.vm, c.exp, c.lgkm);
    ASSERT_FALSE(w) << c.counter;
    const Diag& d = w.error();
    EXPECT_EQ(d.code, DiagCode::invalid_operand);
    EXPECT_NE(d.message.find(c.counter), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("gfx950"), std::string::npos) << d.message;
    EXPECT_NE(d.hint.find(c.range), std::string::npos) << d.hint;
  }
}

TEST(Waitcnt, CompileTimeWaitsSetOneCounter) {
  static_assert(vmcnt<0>.to_waitcnt(Target::gfx942) == Waitcnt{0, 7, 15});
  static_assert(lgkmcnt<3>.to_waitcnt(Target::gfx90a) == Waitcnt{63, 7, 3});
  static_assert(expcnt<7>.to_waitcnt(Target::gfx950).waits_for_nothing(Target::gfx950));
  static_assert(encode_waitcnt(Target::gfx942, vmcnt<0>.to_waitcnt(Target::gfx942)) == 0x0f70);
  SUCCEED();
}

}  // namespace
