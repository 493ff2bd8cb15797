// Tests of launch/launch_spec.hpp: parsing, every error path (JSON Pointer, all problems gathered), determinism of
// random inits against an independent splitmix64, and dtype rounding against a brute-force nearest-value oracle.
#include "asmevo/launch/launch_spec.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace asmevo;
using namespace asmevo::verify;

namespace {

Expected<LaunchSpec> parse(const std::string& text, Diags* all = nullptr, const std::string& base = "/tmp") {
  return parse_launch_spec(text, "spec.json", base, all);
}

/// Parses `text`, expects failure, returns the message (and every single problem in `all`).
std::string error_of(const std::string& text, Diags* all = nullptr) {
  auto r = parse(text, all);
  EXPECT_FALSE(r.has_value()) << text;
  if (r) return {};
  return r.error().str();
}

/// A minimal valid spec around one argument list.
std::string with_args(const std::string& args) { return R"({"grid": [1], "args": [)" + args + "]}"; }

std::uint64_t load_le(const std::vector<std::byte>& b, std::size_t at, std::size_t size) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < size; ++i) v |= std::uint64_t(std::to_integer<std::uint8_t>(b[at + i])) << (8 * i);
  return v;
}

// ---- An independent oracle for float formats: decode every bit pattern by the format's definition, then pick
// the nearest to a double, ties to the even pattern (IEEE 754 roundTiesToEven).
struct Format {
  int exp_bits, frac_bits, bias;
  bool ieee_specials;  // all-ones exponent = inf/NaN (f16, bf16, OCP e5m2)
  bool fnuz;           // 0x80 is the only NaN, no -0 (AMD fnuz, LLVM APFloat Float8E*FNUZ)
  bool ocp_e4m3;       // S.1111.111 is NaN, no infinity (OCP OFP8 E4M3)
};

Format format_of(DType t) {
  switch (t) {
    case DType::f16: return {5, 10, 15, true, false, false};
    case DType::bf16: return {8, 7, 127, true, false, false};
    case DType::fp8e4m3fnuz: return {4, 3, 8, false, true, false};
    case DType::fp8e5m2fnuz: return {5, 2, 16, false, true, false};
    case DType::fp8e4m3: return {4, 3, 7, false, false, true};
    case DType::fp8e5m2: return {5, 2, 15, true, false, false};
    default: ADD_FAILURE(); return {};
  }
}

/// Value of a non-negative pattern (no sign bit), or NaN for inf/NaN patterns.
double decode_magnitude(const Format& f, std::uint32_t p) {
  const std::uint32_t e = p >> f.frac_bits, m = p & ((1u << f.frac_bits) - 1);
  const std::uint32_t emax = (1u << f.exp_bits) - 1;
  if (f.ieee_specials && e == emax) return NAN;
  if (f.ocp_e4m3 && e == emax && m == (1u << f.frac_bits) - 1) return NAN;
  if (e == 0) return std::ldexp(double(m), 1 - f.bias - f.frac_bits);
  return std::ldexp(double(m + (1u << f.frac_bits)), int(e) - f.bias - f.frac_bits);
}

double decode(DType t, std::uint32_t bits) {
  const Format f = format_of(t);
  const int w = 1 + f.exp_bits + f.frac_bits;
  const std::uint32_t sign = 1u << (w - 1);
  if (f.fnuz && bits == sign) return NAN;
  const double m = decode_magnitude(f, bits & (sign - 1));
  return (bits & sign) ? -m : m;
}

/// Round-to-nearest-even of a finite double within the format's range, by search over all patterns.
std::uint32_t nearest(DType t, double d) {
  const Format f = format_of(t);
  const int w = 1 + f.exp_bits + f.frac_bits;
  const std::uint32_t sign = 1u << (w - 1);
  const double a = std::fabs(d);
  std::uint32_t best = 0;
  double best_err = INFINITY;
  for (std::uint32_t p = 0; p < sign; ++p) {
    const double v = decode_magnitude(f, p);
    if (std::isnan(v)) continue;
    const double err = std::fabs(v - a);
    if (err < best_err || (err == best_err && (p & 1) == 0)) best = p, best_err = err;
  }
  if (d < 0 || std::signbit(d)) {
    if (f.fnuz && best == 0) return 0;  // fnuz formats have no negative zero
    best |= sign;
  }
  return best;
}

/// An independent splitmix64 (S. Vigna's reference splitmix64.c).
struct RefSplitMix {
  std::uint64_t x;
  std::uint64_t operator()() {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

BufferArg buffer(DType t, std::uint64_t count, Init init) { return BufferArg{t, count, std::move(init)}; }

Init random_init(std::uint64_t seed, double lo, double hi) {
  Init i;
  i.kind = Init::random;
  i.seed = seed, i.min = lo, i.max = hi;
  return i;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Parsing

TEST(LaunchSpec, ParsesTheDesignExample) {
  const std::string text = R"({
    "kernel": "softmax_rows",
    "grid": [128, 1, 1],
    "block": [256, 1, 1],
    "args": [
      {"buffer": {"dtype": "f32", "count": 131072, "init": "zeros"}},
      {"buffer": {"dtype": "f32", "count": 131072, "init": {"random": {"seed": 7, "min": -4.0, "max": 4.0}}}},
      {"scalar": {"type": "i32", "value": 1024}},
      {"scalar": {"type": "f32", "value": 1e-5}},
      {"null": true}
    ],
    "outputs": [0],
    "trials": 3
  })";
  auto s = parse(text);
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(s->kernel, "softmax_rows");
  EXPECT_EQ(s->grid, (std::array<std::uint32_t, 3>{128, 1, 1}));
  ASSERT_TRUE(s->block);
  EXPECT_EQ(*s->block, (std::array<std::uint32_t, 3>{256, 1, 1}));
  ASSERT_EQ(s->args.size(), 5u);
  EXPECT_EQ(s->args[0].kind, ArgSpec::Kind::buffer);
  EXPECT_EQ(s->args[0].buffer.dtype, DType::f32);
  EXPECT_EQ(s->args[0].buffer.count, 131072u);
  EXPECT_EQ(s->args[0].buffer.init.kind, Init::zeros);
  EXPECT_EQ(s->args[1].buffer.init.kind, Init::random);
  EXPECT_EQ(s->args[1].buffer.init.seed, 7u);
  EXPECT_EQ(s->args[1].buffer.init.min, -4.0);
  EXPECT_EQ(s->args[1].buffer.init.max, 4.0);
  EXPECT_EQ(s->args[2].kind, ArgSpec::Kind::scalar);
  EXPECT_EQ(s->args[2].scalar.type, DType::i32);
  EXPECT_EQ(s->args[2].scalar.bits, 1024u);
  EXPECT_EQ(s->args[3].scalar.type, DType::f32);
  EXPECT_EQ(s->args[3].scalar.bits, std::bit_cast<std::uint32_t>(1e-5f));
  EXPECT_EQ(s->args[4].kind, ArgSpec::Kind::null);
  EXPECT_EQ(s->outputs, (std::vector<std::size_t>{0}));
  EXPECT_EQ(s->trials, 3u);
  EXPECT_EQ(s->base_dir, "/tmp");
}

TEST(LaunchSpec, Defaults) {
  auto s = parse(R"({"kernel": "k.kd", "grid": [7], "args": [
      {"buffer": {"dtype": "u8", "count": 4}}, {"scalar": {"type": "u32", "value": 1}},
      {"buffer": {"dtype": "i16", "count": 0, "init": "zeros"}}]})");
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(s->kernel, "k");  // ".kd" is the descriptor symbol's suffix, not part of the kernel's name
  EXPECT_EQ(s->grid, (std::array<std::uint32_t, 3>{7, 1, 1}));
  EXPECT_FALSE(s->block);
  EXPECT_EQ(s->trials, 1u);
  EXPECT_EQ(s->args[0].buffer.init.kind, Init::zeros);
  EXPECT_EQ(s->outputs, (std::vector<std::size_t>{0, 2}));  // absent: every buffer
  auto t = parse(R"({"grid": [2, 3], "args": []})");
  ASSERT_TRUE(t) << t.error().str();
  EXPECT_TRUE(t->kernel.empty());
  EXPECT_EQ(t->grid, (std::array<std::uint32_t, 3>{2, 3, 1}));
}

TEST(LaunchSpec, DTypeTable) {
  const std::map<std::string, std::size_t> sizes = {
      {"f64", 8}, {"f32", 4}, {"f16", 2}, {"bf16", 2}, {"fp8e4m3fnuz", 1}, {"fp8e5m2fnuz", 1}, {"fp8e4m3", 1},
      {"fp8e5m2", 1}, {"i64", 8}, {"u64", 8}, {"i32", 4}, {"u32", 4}, {"i16", 2}, {"u16", 2}, {"i8", 1}, {"u8", 1}};
  for (const auto& [name, size] : sizes) {
    auto t = parse_dtype(name);
    ASSERT_TRUE(t) << name;
    EXPECT_EQ(dtype_name(*t), name);
    EXPECT_EQ(dtype_size(*t), size) << name;
  }
  EXPECT_FALSE(parse_dtype("f31"));
  EXPECT_FALSE(parse_dtype("F32"));
  EXPECT_FALSE(parse_dtype(""));
}

TEST(LaunchSpec, ScalarEncodings) {
  auto s = parse(with_args(R"(
      {"scalar": {"type": "i32", "value": -1}},
      {"scalar": {"type": "i8", "value": -128}},
      {"scalar": {"type": "u64", "value": 18446744073709551615}},
      {"scalar": {"type": "i64", "value": -9223372036854775808}},
      {"scalar": {"type": "f16", "value": 1.0}},
      {"scalar": {"type": "bf16", "value": -2}},
      {"scalar": {"type": "f64", "value": 0.1}},
      {"scalar": {"type": "f32", "value": "inf"}},
      {"scalar": {"type": "f32", "value": "nan"}},
      {"scalar": {"type": "u16", "value": 65535}},
      {"scalar": {"type": "i32", "value": 1e3}},
      {"scalar": {"type": "f16", "value": 65504}})"));
  ASSERT_TRUE(s) << s.error().str();
  const auto& a = s->args;
  EXPECT_EQ(a[0].scalar.bits, 0xffffffffu);            // two's complement in 32 bits, zero above
  EXPECT_EQ(a[1].scalar.bits, 0x80u);
  EXPECT_EQ(a[2].scalar.bits, ~std::uint64_t{0});
  EXPECT_EQ(a[3].scalar.bits, std::uint64_t{1} << 63);
  EXPECT_EQ(a[4].scalar.bits, 0x3c00u);                // IEEE binary16: 1.0 = 0 01111 0000000000
  EXPECT_EQ(a[5].scalar.bits, 0xc000u);                // bfloat16: -2.0 = 1 10000000 0000000
  EXPECT_EQ(a[6].scalar.bits, std::bit_cast<std::uint64_t>(0.1));
  EXPECT_EQ(a[7].scalar.bits, 0x7f800000u);
  EXPECT_TRUE(std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(a[8].scalar.bits))));
  EXPECT_EQ(a[9].scalar.bits, 0xffffu);
  EXPECT_EQ(a[10].scalar.bits, 1000u);
  EXPECT_EQ(a[11].scalar.bits, 0x7bffu);               // the largest finite binary16
}

// ---------------------------------------------------------------------------------------------------------------
// Errors: each names its field by JSON Pointer and says what would be accepted.

TEST(LaunchSpecErrors, InvalidJsonHasALineAndColumn) {
  auto r = parse("{\n  \"grid\": [1,\n  \"args\" []\n}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, DiagCode::parse_error);
  EXPECT_EQ(r.error().loc.file, "spec.json");
  EXPECT_EQ(r.error().loc.line, 3u);
  EXPECT_GT(r.error().loc.col, 0u);
}

TEST(LaunchSpecErrors, NeverCrashes) {
  // Deep nesting, every prefix and single-byte mutations of a valid spec: each parses or gives a Diag.
  EXPECT_FALSE(parse(std::string(100000, '[') + std::string(100000, ']')));
  const std::string good = R"({"kernel": "k", "grid": [4, 1, 1], "block": [64, 1, 1], "args": [
      {"buffer": {"dtype": "f16", "count": 16, "init": {"random": {"seed": 1, "min": -1, "max": 1}}}},
      {"buffer": {"dtype": "i8", "count": 3, "init": {"iota": {"start": -1, "step": 2}}}},
      {"scalar": {"type": "f32", "value": 0.5}}, {"null": true}], "outputs": [0, 1], "trials": 2})";
  ASSERT_TRUE(parse(good));
  // Every strict prefix is incomplete JSON: each gives a Diag that says what is wrong.
  for (std::size_t n = 0; n < good.size(); ++n) {
    const auto r = parse(good.substr(0, n));
    ASSERT_FALSE(r) << "prefix of " << n << " bytes parsed";
    EXPECT_FALSE(r.error().message.empty()) << "prefix of " << n << " bytes";
  }
  // A single-byte change either still parses or gives a Diag with a message.
  const char subst[] = {'"', '{', '}', '[', ']', ',', ':', '-', '0', '9', 'e', '.', 'x', '\\', '\0', '\xff'};
  std::size_t rejected = 0;
  for (std::size_t i = 0; i < good.size(); ++i)
    for (char c : subst) {
      std::string m = good;
      m[i] = c;
      const auto r = parse(m);
      if (r) continue;
      ++rejected;
      EXPECT_FALSE(r.error().message.empty()) << "byte " << i << " -> " << int(c);
    }
  EXPECT_GT(rejected, good.size());  // most changes break the JSON or the spec
}

TEST(LaunchSpecErrors, UnknownKeysAreTypos) {
  Diags all;
  const auto m = error_of(R"({"grdi": [1], "args": []})", &all);
  EXPECT_NE(m.find("/grdi: unknown key \"grdi\" (did you mean \"grid\"?)"), std::string::npos) << m;
  EXPECT_NE(m.find("/grid: required key is missing"), std::string::npos) << m;
  EXPECT_EQ(all.size(), 2u);
  const auto m2 = error_of(with_args(R"({"buffer": {"dtype": "f32", "cuont": 4}})"));
  EXPECT_NE(m2.find("/args/0/buffer/cuont: unknown key"), std::string::npos) << m2;
  EXPECT_NE(m2.find("did you mean \"count\""), std::string::npos) << m2;
  EXPECT_NE(m2.find("/args/0/buffer/count: required key is missing"), std::string::npos) << m2;
  const auto m3 = error_of(with_args(R"({"bufer": {}})"));
  EXPECT_NE(m3.find("/args/0/bufer: unknown key"), std::string::npos) << m3;
  EXPECT_NE(m3.find("\"buffer\", \"scalar\", \"null\""), std::string::npos) << m3;
}

TEST(LaunchSpecErrors, Grid) {
  for (const char* g : {"[-1]", "[0, 1, 1]", "[1.5]", "[\"4\"]", "[1, 1, 1, 1]", "[]", "4", "[4294967296]"}) {
    const auto m = error_of(std::string(R"({"grid": )") + g + R"(, "args": []})");
    EXPECT_NE(m.find("/grid"), std::string::npos) << g << ": " << m;
    EXPECT_NE(m.find("positive integer"), std::string::npos) << g << ": " << m;
  }
  EXPECT_NE(error_of(R"({"grid": [2, -3], "args": []})").find("/grid/1: expected a positive integer"),
            std::string::npos);
  EXPECT_TRUE(parse(R"({"grid": [2.0], "args": []})"));  // a whole number written as a float is an integer
}

TEST(LaunchSpecErrors, Block) {
  EXPECT_NE(error_of(R"({"grid": [1], "block": [1024, 2], "args": []})").find("/block: a workgroup of 2048"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"grid": [1], "block": [0], "args": []})").find("/block/0"), std::string::npos);
  EXPECT_NE(error_of(R"({"grid": [1], "block": [2048], "args": []})").find("/block/0"), std::string::npos);
}

TEST(LaunchSpecErrors, Buffers) {
  struct Case {
    const char* arg;
    const char* pointer;
    const char* says;
  };
  const Case cases[] = {
      {R"({"buffer": {"dtype": "f31", "count": 1}})", "/args/0/buffer/dtype: unknown dtype \"f31\"",
       "one of: f64 f32 f16 bf16 fp8e4m3fnuz"},
      {R"({"buffer": {"dtype": 4, "count": 1}})", "/args/0/buffer/dtype", "one of:"},
      {R"({"buffer": {"dtype": "f32", "count": -1}})", "/args/0/buffer/count", "non-negative integer"},
      {R"({"buffer": {"dtype": "f32", "count": 2.5}})", "/args/0/buffer/count", "non-negative integer"},
      {R"({"buffer": {"dtype": "f32", "count": 4294967297}})", "/args/0/buffer/count", "16 GiB"},
      {R"({"buffer": {"dtype": "u8", "count": 17179869185}})", "/args/0/buffer/count", "16 GiB"},
      {R"({"buffer": {"dtype": "f64", "count": 18446744073709551615}})", "/args/0/buffer/count", "16 GiB"},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": "zero"}})", "/args/0/buffer/init: unknown init \"zero\"",
       "\"zeros\""},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"rand": {}}}})", "/args/0/buffer/init/rand: unknown init",
       "{\"random\""},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"random": {"min": 2, "max": 1}}}})",
       "/args/0/buffer/init/random: min (2) is greater than max (1)", "min <= max"},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"random": {"min": 0}}}})",
       "/args/0/buffer/init/random/max: required key is missing", ""},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"random": {"seed": -1, "min": 0, "max": 1}}}})",
       "/args/0/buffer/init/random/seed", "non-negative integer"},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"random": {"min": 0, "max": 1, "sed": 1}}}})",
       "/args/0/buffer/init/random/sed: unknown key \"sed\" (did you mean \"seed\"?)", ""},
      {R"({"buffer": {"dtype": "i32", "count": 1, "init": {"random": {"min": 0.2, "max": 0.8}}}})",
       "/args/0/buffer/init/random: no integer lies in [min, max]", ""},
      {R"({"buffer": {"dtype": "u8", "count": 1, "init": {"random": {"min": 0, "max": 256}}}})",
       "/args/0/buffer/init/random/max: max is above the range of u8 (255)", ""},
      {R"({"buffer": {"dtype": "f16", "count": 1, "init": {"random": {"min": -1, "max": 1e5}}}})",
       "/args/0/buffer/init/random/max: max lies outside the finite range of f16", "65504"},
      {R"({"buffer": {"dtype": "fp8e4m3fnuz", "count": 1, "init": {"fill": 241}}})",
       "/args/0/buffer/init/fill: the fill value lies outside the finite range of fp8e4m3fnuz", "240"},
      {R"({"buffer": {"dtype": "i32", "count": 1, "init": {"fill": 1.5}}})",
       "/args/0/buffer/init/fill: the fill value must be an integer", ""},
      {R"({"buffer": {"dtype": "i8", "count": 1, "init": {"fill": -129}}})",
       "/args/0/buffer/init/fill: the fill value -129 is outside the range of i8 [-128, 127]", ""},
      {R"({"buffer": {"dtype": "i32", "count": 1, "init": {"fill": "nan"}}})", "/args/0/buffer/init/fill", "number"},
      {R"({"buffer": {"dtype": "u8", "count": 300, "init": {"iota": {"start": 0, "step": 1}}}})",
       "/args/0/buffer/init/iota: the last element (start + (count-1)*step = 299) is outside the range of u8", ""},
      {R"({"buffer": {"dtype": "f16", "count": 3, "init": {"iota": {"start": 65000, "step": 500}}}})",
       "/args/0/buffer/init/iota: the last element", "f16"},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"iota": {"strat": 0}}}})",
       "/args/0/buffer/init/iota/strat: unknown key", "did you mean \"start\""},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"file": "/nonexistent/asmevo/x.bin"}}})",
       "/args/0/buffer/init/file: cannot read '/nonexistent/asmevo/x.bin'", ""},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"file": 3}}})", "/args/0/buffer/init/file", "path"},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"zeros": 1, "fill": 2}}})", "/args/0/buffer/init",
       "object with 2 keys"},
      {R"({"buffer": [1]})", "/args/0/buffer: expected an object", ""},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"random": {"min": 0, "max": 1, "specials": 1.5}}}})",
       "/args/0/buffer/init/random/specials: expected a probability in [0, 1], got 1.5", ""},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"random": {"min": 0, "max": 1, "specials": -0.01}}}})",
       "/args/0/buffer/init/random/specials: expected a probability in [0, 1], got -0.01", ""},
      {R"({"buffer": {"dtype": "i8", "count": 1, "init": {"random": {"min": 0, "max": 1, "specials": "some"}}}})",
       "/args/0/buffer/init/random/specials: expected a probability (a number in [0, 1]), got a string", ""},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"random": {"min": 0, "max": 1, "specials": null}}}})",
       "/args/0/buffer/init/random/specials: expected a probability", "got null"},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"random": {"min": 0, "max": 1, "ties": 0}}}})",
       "/args/0/buffer/init/random/ties: expected the number of distinct values in [1, 1048576], got 0", ""},
      {R"({"buffer": {"dtype": "i32", "count": 1, "init": {"random": {"min": 0, "max": 9, "ties": 2.5}}}})",
       "/args/0/buffer/init/random/ties: expected the number of distinct values", "got"},
      {R"({"buffer": {"dtype": "f32", "count": 1, "init": {"random": {"min": 0, "max": 1, "special": 0.1}}}})",
       "/args/0/buffer/init/random/special: unknown key \"special\" (did you mean \"specials\"?)", ""},
  };
  for (const auto& c : cases) {
    const auto m = error_of(with_args(c.arg));
    EXPECT_NE(m.find(c.pointer), std::string::npos) << c.arg << "\n" << m;
    EXPECT_NE(m.find(c.says), std::string::npos) << c.arg << "\n" << m;
  }
}

TEST(LaunchSpecErrors, ScalarsNullOutputsTrialsKernel) {
  struct Case {
    std::string spec;
    const char* pointer;
    const char* says;
  };
  const Case cases[] = {
      {with_args(R"({"scalar": {"type": "fp8e4m3", "value": 1}})"), "/args/0/scalar/type: unknown scalar type",
       "i32"},
      {with_args(R"({"scalar": {"type": "i8", "value": 200}})"), "/args/0/scalar/value",
       "an integer of type i8 in [-128, 127], got 200"},
      {with_args(R"({"scalar": {"type": "u32", "value": -1}})"), "/args/0/scalar/value", "[0, 4294967295]"},
      {with_args(R"({"scalar": {"type": "i32", "value": 1.5}})"), "/args/0/scalar/value", "integer of type i32"},
      {with_args(R"({"scalar": {"type": "i32", "value": "7"}})"), "/args/0/scalar/value", "integer of type i32"},
      {with_args(R"({"scalar": {"type": "i32"}})"), "/args/0/scalar/value: required key is missing", ""},
      {with_args(R"({"scalar": {"type": "f16", "value": 70000}})"), "/args/0/scalar/value",
       "outside the finite range of f16"},
      {with_args(R"({"scalar": {"type": "f32", "value": "NaN!"}})"), "/args/0/scalar/value",
       "\"nan\", \"inf\", \"-inf\""},
      {with_args(R"({"null": false})"), "/args/0/null: expected true", ""},
      {with_args(R"({"null": true, "scalar": {}})"), "/args/0: expected one argument", "{\"null\": true}"},
      {with_args(R"(7)"), "/args/0: expected one argument", ""},
      {R"({"grid": [1], "args": {}})", "/args: expected an array", ""},
      {R"({"grid": [1], "args": [{"null": true}, {"scalar": {"type": "i32", "value": 1}}], "outputs": [2]})",
       "/outputs/0: expected an index into /args in [0, 1], got 2", ""},
      {R"({"grid": [1], "args": [{"null": true}, {"scalar": {"type": "i32", "value": 1}}], "outputs": [1]})",
       "/outputs/0: argument 1 is not a buffer", ""},
      {R"({"grid": [1], "args": [{"buffer": {"dtype": "u8", "count": 1}}], "outputs": [0, 0]})",
       "/outputs/1: argument 0 is listed twice", ""},
      {R"({"grid": [1], "args": [], "trials": 0})", "/trials: expected a positive integer", ""},
      {R"({"grid": [1], "args": [], "kernel": 5})", "/kernel: expected the kernel's symbol", ""},
      {R"([1, 2])", "(root): expected a launch spec object", ""},
  };
  for (const auto& c : cases) {
    const auto m = error_of(c.spec);
    EXPECT_NE(m.find(c.pointer), std::string::npos) << c.spec << "\n" << m;
    EXPECT_NE(m.find(c.says), std::string::npos) << c.spec << "\n" << m;
  }
}

TEST(LaunchSpecErrors, EveryProblemInOnePass) {
  Diags all;
  const auto m = error_of(R"({"grid": [0, 1], "blok": [64], "trials": -2, "args": [
      {"buffer": {"dtype": "f31", "count": 4}},
      {"scalar": {"type": "i8", "value": 1000}},
      {"buffer": {"dtype": "f32", "count": 4, "init": {"random": {"min": 3, "max": -3}}}}]})",
                          &all);
  const char* pointers[] = {"/grid/0", "/blok", "/trials", "/args/0/buffer/dtype", "/args/1/scalar/value",
                            "/args/2/buffer/init/random"};
  EXPECT_EQ(all.size(), std::size(pointers)) << m;
  EXPECT_NE(m.find(std::to_string(std::size(pointers)) + " problems in the launch spec"), std::string::npos) << m;
  for (const char* p : pointers) {
    EXPECT_NE(m.find(p), std::string::npos) << p << "\n" << m;
    bool found = false;
    for (const auto& d : all) found = found || d.message.rfind(p, 0) == 0;
    EXPECT_TRUE(found) << p;
  }
  for (const auto& d : all) EXPECT_EQ(d.loc.file, "spec.json");
}

// ---------------------------------------------------------------------------------------------------------------
// Files: relative paths resolve against the spec's folder; a short file is an error.

TEST(LaunchSpec, FileInit) {
  const fs::path dir = fs::temp_directory_path() / ("asmevo_launch_" + std::to_string(::getpid()));
  fs::create_directories(dir / "data");
  std::vector<std::uint8_t> bytes(40);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7 + 1);
  std::ofstream(dir / "data" / "in.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  std::ofstream(dir / "spec.json") << R"({"grid": [1], "args": [
      {"buffer": {"dtype": "u32", "count": 10, "init": {"file": "data/in.bin"}}},
      {"buffer": {"dtype": "u16", "count": 8, "init": {"file": "data/../data/in.bin"}}}]})";
  auto s = read_launch_spec(dir / "spec.json");
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(s->args[0].buffer.init.path, fs::weakly_canonical(dir / "data" / "in.bin").string());
  EXPECT_TRUE(fs::path(s->args[0].buffer.init.path).is_absolute());
  for (int a = 0; a < 2; ++a) {
    auto b = materialize(s->args[a].buffer, 0);
    ASSERT_TRUE(b) << b.error().str();
    ASSERT_EQ(b->size(), a == 0 ? 40u : 16u);
    for (std::size_t i = 0; i < b->size(); ++i) EXPECT_EQ(std::to_integer<std::uint8_t>((*b)[i]), bytes[i]);
    auto b1 = materialize(s->args[a].buffer, 5);  // a file is the same in every trial
    ASSERT_TRUE(b1);
    EXPECT_EQ(*b, *b1);
  }

  // Too short, found while parsing...
  std::ofstream(dir / "short.json") << R"({"grid": [1], "args": [
      {"buffer": {"dtype": "u32", "count": 11, "init": {"file": "data/in.bin"}}}]})";
  auto bad = read_launch_spec(dir / "short.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().str().find("/args/0/buffer/init/file: '"), std::string::npos) << bad.error().str();
  EXPECT_NE(bad.error().str().find("holds 40 bytes, fewer than the buffer's 44"), std::string::npos)
      << bad.error().str();
  // ... and when it shrinks between parsing and materializing.
  fs::resize_file(dir / "data" / "in.bin", 39);
  auto late = materialize(s->args[0].buffer, 0);
  ASSERT_FALSE(late);
  EXPECT_NE(late.error().str().find("holds 39 bytes, fewer than the buffer's 40"), std::string::npos);
  fs::remove(dir / "data" / "in.bin");
  EXPECT_FALSE(materialize(s->args[0].buffer, 0));
  fs::remove_all(dir);

  EXPECT_FALSE(read_launch_spec("/nonexistent/asmevo/spec.json"));
}

// ---------------------------------------------------------------------------------------------------------------
// Contents

TEST(LaunchSpecContents, ZerosFillIota) {
  Init z;
  auto b = materialize(buffer(DType::f64, 9, z), 0);
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, std::vector<std::byte>(72));

  auto s = parse(with_args(R"(
      {"buffer": {"dtype": "f32", "count": 6, "init": {"iota": {"start": 0.5, "step": 0.1}}}},
      {"buffer": {"dtype": "i16", "count": 5, "init": {"iota": {"start": 3, "step": -2}}}},
      {"buffer": {"dtype": "u8", "count": 256, "init": {"iota": {}}}},
      {"buffer": {"dtype": "i64", "count": 3, "init": {"fill": -5}}},
      {"buffer": {"dtype": "f16", "count": 2, "init": {"fill": "-inf"}}},
      {"buffer": {"dtype": "bf16", "count": 1, "init": {"fill": 1.00390625000000093}}},
      {"buffer": {"dtype": "f16", "count": 1, "init": {"fill": 1.00048828125}}},
      {"buffer": {"dtype": "f16", "count": 1, "init": {"fill": 1.00146484375}}})"));
  ASSERT_TRUE(s) << s.error().str();
  auto m = [&](int i) {
    auto r = materialize(s->args[i].buffer, 0);
    EXPECT_TRUE(r) << r.error().str();
    return r ? *r : std::vector<std::byte>{};
  };
  auto f = m(0);
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(load_le(f, 4 * i, 4), std::bit_cast<std::uint32_t>(static_cast<float>(0.5 + double(i) * 0.1)));
  auto h = m(1);
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_EQ(static_cast<std::int16_t>(load_le(h, 2 * i, 2)), 3 - 2 * static_cast<int>(i));
  auto u = m(2);
  for (std::size_t i = 0; i < 256; ++i) EXPECT_EQ(load_le(u, i, 1), i);
  auto l = m(3);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(static_cast<std::int64_t>(load_le(l, 8 * i, 8)), -5);
  auto inf = m(4);
  EXPECT_EQ(load_le(inf, 0, 2), 0xfc00u);  // binary16 -inf
  EXPECT_EQ(load_le(inf, 2, 2), 0xfc00u);
  // 1 + 2^-8 + 2^-50: just above the halfway point between bf16 1.0 and 1 + 2^-7, so it rounds up (0x3f81).
  // Rounding through float first would lose the 2^-50, land on the tie, and round to even (1.0, 0x3f80).
  EXPECT_EQ(load_le(m(5), 0, 2), 0x3f81u);
  // binary16 ties: 1 + 2^-11 lies halfway between 1.0 (0x3c00, even) and 1 + 2^-10 (0x3c01): to even.
  EXPECT_EQ(load_le(m(6), 0, 2), 0x3c00u);
  // 1 + 3 * 2^-11 lies halfway between 0x3c01 and 0x3c02 (even): up.
  EXPECT_EQ(load_le(m(7), 0, 2), 0x3c02u);
}

TEST(LaunchSpecContents, RandomIsSplitMix64) {
  // The published first output of splitmix64 from state 0 (Vigna, splitmix64.c) anchors the oracle.
  RefSplitMix ref0{0};
  EXPECT_EQ(ref0(), 0xe220a8397b1dcdafull);
  // u8 over [0, 255]: each element is the low byte of one draw (rejection happens with probability 2^-56).
  for (std::uint32_t trial : {0u, 1u, 9u}) {
    auto b = materialize(buffer(DType::u8, 64, random_init(1234, 0, 255)), trial);
    ASSERT_TRUE(b);
    RefSplitMix ref{1234 + trial};
    for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(load_le(*b, i, 1), ref() & 0xff) << trial << " " << i;
  }
  // f64 over [min, max]: min*(1-u) + max*u with u the top 53 bits of a draw.
  auto d = materialize(buffer(DType::f64, 32, random_init(99, -3.0, 5.0)), 0);
  ASSERT_TRUE(d);
  RefSplitMix ref{99};
  for (std::size_t i = 0; i < 32; ++i) {
    const double u = double(ref() >> 11) / 9007199254740992.0;
    EXPECT_EQ(load_le(*d, 8 * i, 8), std::bit_cast<std::uint64_t>(-3.0 * (1 - u) + 5.0 * u));
  }
}

TEST(LaunchSpecContents, RandomDeterminism) {
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::fp8e4m3fnuz, DType::i32, DType::u64}) {
    const auto b = buffer(t, 1000, random_init(7, -100, 100.5 + (t == DType::u64 ? 1e6 : 0)));
    BufferArg bu = b;
    if (t == DType::u64) bu.init.min = 0;
    auto x = materialize(bu, 0), y = materialize(bu, 0), z = materialize(bu, 1);
    ASSERT_TRUE(x && y && z);
    EXPECT_EQ(*x, *y) << dtype_name(t);
    EXPECT_NE(*x, *z) << dtype_name(t);
    BufferArg other = bu;
    other.init.seed = 8;
    auto w = materialize(other, 0);
    ASSERT_TRUE(w);
    EXPECT_EQ(*w, *z) << "trial t draws from seed + t";
    other.init.seed = 9;
    EXPECT_NE(*materialize(other, 0), *x);
  }
}

TEST(LaunchSpecContents, RandomIntegersAreUniformOverTheClosedRange) {
  auto b = materialize(buffer(DType::i8, 60000, random_init(3, -2.5, 3.7)), 0);
  ASSERT_TRUE(b);
  std::map<int, int> hist;
  for (std::size_t i = 0; i < b->size(); ++i) ++hist[static_cast<std::int8_t>(load_le(*b, i, 1))];
  ASSERT_EQ(hist.size(), 6u);  // [ceil(-2.5), floor(3.7)] = {-2, ..., 3}
  EXPECT_EQ(hist.begin()->first, -2);
  EXPECT_EQ(hist.rbegin()->first, 3);
  for (auto [v, n] : hist) EXPECT_NEAR(n, 10000, 500) << v;  // ~5 standard deviations
  // Signed and unsigned extremes.
  auto e = materialize(buffer(DType::i64, 2000, random_init(5, -9007199254740992.0, -9007199254740990.0)), 0);
  ASSERT_TRUE(e);
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < 2000; ++i) seen.insert(static_cast<std::int64_t>(load_le(*e, 8 * i, 8)));
  EXPECT_EQ(seen, (std::set<std::int64_t>{-9007199254740992, -9007199254740991, -9007199254740990}));
  auto u = materialize(buffer(DType::u16, 5000, random_init(5, 65530, 65535)), 0);
  ASSERT_TRUE(u);
  for (std::size_t i = 0; i < 5000; ++i) EXPECT_GE(load_le(*u, 2 * i, 2), 65530u);
}

TEST(LaunchSpecContents, RandomFloatsRoundToNearestEven) {
  struct Range {
    DType t;
    double lo, hi;
  };
  const Range ranges[] = {
      {DType::f16, -60000, 60000},    {DType::f16, -1e-4, 1e-4},  // binary16 subnormals lie below 6.1e-5
      {DType::bf16, -1e30, 3e38},     {DType::bf16, -3, 3},        {DType::bf16, -1e-39, 1e-39},
      {DType::fp8e4m3fnuz, -240, 240}, {DType::fp8e4m3fnuz, -0.01, 0.01}, {DType::fp8e5m2fnuz, -57344, 57344},
      {DType::fp8e5m2fnuz, -1e-5, 1e-4}, {DType::fp8e4m3, -448, 448}, {DType::fp8e4m3, -0.02, 0.02},
      {DType::fp8e5m2, -57344, 57344}, {DType::fp8e5m2, -1e-5, 1e-5},
  };
  for (const auto& r : ranges) {
    const std::uint64_t seed = 42;
    auto b = materialize(buffer(r.t, 500, random_init(seed, r.lo, r.hi)), 2);
    ASSERT_TRUE(b) << b.error().str();
    const std::size_t es = dtype_size(r.t);
    RefSplitMix ref{seed + 2};
    const double rlo = decode(r.t, nearest(r.t, r.lo)), rhi = decode(r.t, nearest(r.t, r.hi));
    for (std::size_t i = 0; i < 500; ++i) {
      const double u = double(ref() >> 11) / 9007199254740992.0;
      const double v = std::clamp(r.lo * (1 - u) + r.hi * u, r.lo, r.hi);
      const auto got = static_cast<std::uint32_t>(load_le(*b, es * i, es));
      ASSERT_EQ(got, nearest(r.t, v)) << dtype_name(r.t) << " element " << i << " value " << v;
      const double g = decode(r.t, got);
      EXPECT_GE(g, rlo);
      EXPECT_LE(g, rhi);
    }
  }
  // f32: IEEE conversion of the double draw.
  auto f = materialize(buffer(DType::f32, 300, random_init(1, -1e-40, 1e30)), 0);
  ASSERT_TRUE(f);
  RefSplitMix ref{1};
  for (std::size_t i = 0; i < 300; ++i) {
    const double u = double(ref() >> 11) / 9007199254740992.0;
    const double v = std::clamp(-1e-40 * (1 - u) + 1e30 * u, -1e-40, 1e30);
    EXPECT_EQ(load_le(*f, 4 * i, 4), std::bit_cast<std::uint32_t>(static_cast<float>(v)));
  }
}

TEST(LaunchSpecContents, FillRoundsLikeTheOracle) {
  // Every dtype, values chosen near ties and in the subnormal range.
  const double values[] = {0.0, 1.0, -1.0, 0.1, -0.3, 1.0 / 3, 2.5, 3.5, 100.25, 1e-3, -7e-5, 0.0625, 200, 57000};
  for (DType t : {DType::f16, DType::bf16, DType::fp8e4m3fnuz, DType::fp8e5m2fnuz, DType::fp8e4m3, DType::fp8e5m2}) {
    for (double v : values) {
      if (std::fabs(v) > verify::detail::dtype_info(t).max_finite) continue;
      Init in;
      in.kind = Init::fill;
      in.value = v;
      auto b = materialize(buffer(t, 1, in), 0);
      ASSERT_TRUE(b);
      EXPECT_EQ(load_le(*b, 0, dtype_size(t)), nearest(t, v)) << dtype_name(t) << " " << v;
    }
  }
}

TEST(LaunchSpecContents, RefusesWhatTheParserWouldHaveRefused) {
  // A BufferArg built through the API, not the parser.
  EXPECT_FALSE(materialize(buffer(DType::i32, 4, random_init(0, 0.2, 0.8)), 0));
  EXPECT_FALSE(materialize(buffer(DType::u8, 4, random_init(0, 0, 1e300)), 0));
  EXPECT_FALSE(materialize(buffer(DType::f32, std::uint64_t{1} << 40, Init{}), 0));
  Init nan_fill;
  nan_fill.kind = Init::fill;
  nan_fill.value = NAN;
  EXPECT_FALSE(materialize(buffer(DType::i32, 1, nan_fill), 0));
  auto ok = materialize(buffer(DType::f32, 1, nan_fill), 0);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(load_le(*ok, 0, 4)))));
}

// ---------------------------------------------------------------------------------------------------------------
// "specials": a fraction p of the elements of a random init takes a value from the dtype's special set

namespace {

Init specials_init(std::uint64_t seed, double lo, double hi, double p) {
  Init i = random_init(seed, lo, hi);
  i.specials = p;
  return i;
}

/// The special set of each dtype for a range inside [2, 3] (so L = 256 * 3 = 768), written out by hand from the
/// formats' definitions: IEEE 754-2019 (binary64/32/16), bfloat16 (binary32's top half), OCP OFP8 rev 1.0 table 1
/// (E4M3: bias 7, no inf, NaN 0x7f/0xff, max 0x7e = 448; E5M2: bias 15, inf 0x7c, NaN 0x7d..0x7f, max 0x7b =
/// 57344) and the fnuz formats of Noune et al. (arXiv 2206.02915; bias 8 / 16, 0x80 the only NaN, no -0, no inf).
/// Then the two negative subnormals and, where the format has infinities, the signaling NaN exponent-all-ones | 1;
/// then, for the IEEE-like formats, the quiet NaN with payload 1 and the negative NaN with every payload bit set,
/// and for OCP E4M3 the negative NaN 0xff.
std::set<std::uint64_t> hand_specials(DType t) {
  switch (t) {
    case DType::f64:  // 768 = 1.5 * 2^9: exponent 1023 + 9 = 0x408, fraction 0x8000000000000
      return {0x0ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
              0x1ull, 0x000fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
              0x3ff0000000000000ull, 0xbff0000000000000ull, 0x4088000000000000ull, 0xc088000000000000ull,
              0x8000000000000001ull, 0x800fffffffffffffull, 0x7ff0000000000001ull, 0x7ff8000000000001ull,
              0xffffffffffffffffull};
    case DType::f32:  // 768: exponent 127 + 9 = 0x88
      return {0x0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x1, 0x007fffff, 0x00800000, 0x7f7fffff,
              0xff7fffff, 0x3f800000, 0xbf800000, 0x44400000, 0xc4400000, 0x80000001, 0x807fffff, 0x7f800001,
              0x7fc00001, 0xffffffff};
    case DType::f16:  // 768: exponent 15 + 9 = 24 -> 0x6000 | 0x200
      return {0x0, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x1, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x6200,
              0xe200, 0x8001, 0x83ff, 0x7c01, 0x7e01, 0xffff};
    case DType::bf16:
      return {0x0, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x1, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0x4440,
              0xc440, 0x8001, 0x807f, 0x7f81, 0x7fc1, 0xffff};
    case DType::fp8e4m3fnuz:  // 768 saturates to the largest finite, 240 = 0x7f
      return {0x00, 0x80, 0x01, 0x07, 0x08, 0x7f, 0xff, 0x40, 0xc0, 0x81, 0x87};
    case DType::fp8e5m2fnuz:  // 768 = 1.5 * 2^9: exponent 16 + 9 = 25 -> 0x64 | 0x2
      return {0x00, 0x80, 0x01, 0x03, 0x04, 0x7f, 0xff, 0x40, 0xc0, 0x66, 0xe6, 0x81, 0x83};
    case DType::fp8e4m3:  // 768 saturates to 448 = 0x7e
      return {0x00, 0x80, 0x7f, 0x01, 0x07, 0x08, 0x7e, 0xfe, 0x38, 0xb8, 0x81, 0x87, 0xff};
    case DType::fp8e5m2:  // 768: exponent 15 + 9 = 24 -> 0x60 | 0x2
      return {0x00, 0x80, 0x7c, 0xfc, 0x7e, 0x01, 0x03, 0x04, 0x7b, 0xfb, 0x3c, 0xbc, 0x62, 0xe2, 0x81, 0x83, 0x7d, 0x7f, 0xff};
    case DType::i32: return {0x0, 0x1, 0xffffffff, 0x80000000, 0x7fffffff};
    case DType::u16: return {0x0, 0x1, 0xffff};
    case DType::i64: return {0x0, 0x1, ~0ull, 0x8000000000000000ull, 0x7fffffffffffffffull};
    case DType::i8: return {0x00, 0x01, 0xff, 0x80, 0x7f};
    default: ADD_FAILURE() << "no hand-written set"; return {};
  }
}

/// Whether the pattern is a draw from [2, 3] (a non-special element).
bool in_two_three(DType t, std::uint64_t bits) {
  double v = 0;
  switch (t) {
    case DType::f64: v = std::bit_cast<double>(bits); break;
    case DType::f32: v = std::bit_cast<float>(static_cast<std::uint32_t>(bits)); break;
    case DType::i32: v = static_cast<std::int32_t>(bits); break;
    case DType::i64: v = static_cast<double>(static_cast<std::int64_t>(bits)); break;
    case DType::i8: v = static_cast<std::int8_t>(bits); break;
    case DType::u16: v = static_cast<double>(bits); break;
    default: v = decode(t, static_cast<std::uint32_t>(bits));
  }
  return v >= 2 && v <= 3;
}

const DType special_dtypes[] = {DType::f64,     DType::f32,         DType::f16,         DType::bf16,
                                DType::fp8e4m3fnuz, DType::fp8e5m2fnuz, DType::fp8e4m3, DType::fp8e5m2,
                                DType::i32,     DType::u16,         DType::i64,         DType::i8};

}  // namespace

TEST(LaunchSpecSpecials, EveryHandWrittenPatternAppearsAndNothingElse) {
  for (DType t : special_dtypes) {
    const std::size_t es = dtype_size(t);
    auto b = materialize(buffer(t, 6000, specials_init(17, 2, 3, 0.5)), 1);
    ASSERT_TRUE(b) << b.error().str();
    std::set<std::uint64_t> seen;
    for (std::size_t i = 0; i < 6000; ++i)
      if (const auto bits = load_le(*b, es * i, es); !in_two_three(t, bits)) seen.insert(bits);
    // ~3000 specials over at most 19 patterns: each appears ~158 times, missing one has probability < 1e-65.
    EXPECT_EQ(seen, hand_specials(t)) << dtype_name(t);
  }
  // NaN patterns are NaN for the project's own fp8 decoder too, and fnuz 0x80 is not a zero there.
  EXPECT_TRUE(std::isnan(floats::fp8_to_f32(0x80, floats::Fp8::e4m3fnuz)));
  EXPECT_TRUE(std::isnan(floats::fp8_to_f32(0x7f, floats::Fp8::e4m3)));
  EXPECT_EQ(floats::fp8_to_f32(0x7e, floats::Fp8::e4m3), 448.0f);
  EXPECT_EQ(floats::fp8_to_f32(0x7f, floats::Fp8::e4m3fnuz), 240.0f);
}

TEST(LaunchSpecSpecials, FractionIsAboutP) {
  for (double p : {0.05, 0.3}) {
    for (DType t : {DType::f32, DType::f16, DType::fp8e4m3fnuz, DType::i32}) {
      const std::size_t n = 10000, es = dtype_size(t);
      auto b = materialize(buffer(t, n, specials_init(5, 2, 3, p)), 0);
      ASSERT_TRUE(b);
      std::size_t specials = 0;
      for (std::size_t i = 0; i < n; ++i) specials += in_two_three(t, load_le(*b, es * i, es)) ? 0 : 1;
      const double sd = std::sqrt(n * p * (1 - p));  // binomial
      EXPECT_NEAR(double(specials), n * p, 5 * sd) << dtype_name(t) << " p=" << p;
    }
  }
  // p = 1: every element is special; each trial draws a different mix.
  auto all = materialize(buffer(DType::f32, 1000, specials_init(5, 2, 3, 1)), 0);
  auto all1 = materialize(buffer(DType::f32, 1000, specials_init(5, 2, 3, 1)), 1);
  ASSERT_TRUE(all && all1);
  for (std::size_t i = 0; i < 1000; ++i) EXPECT_FALSE(in_two_three(DType::f32, load_le(*all, 4 * i, 4)));
  EXPECT_NE(*all, *all1);
  EXPECT_EQ(*all, *materialize(buffer(DType::f32, 1000, specials_init(5, 2, 3, 1)), 0));
}

TEST(LaunchSpecSpecials, ZeroReproducesTheBytesWithoutSpecials) {
  // The spec with "specials": 0 and the one without it give the splitmix64 draws the oracle computes.
  const std::string without = with_args(
      R"({"buffer": {"dtype": "f32", "count": 64, "init": {"random": {"seed": 7, "min": -4, "max": 4}}}})");
  const std::string zero = with_args(R"({"buffer": {"dtype": "f32", "count": 64, "init": {"random":
      {"seed": 7, "min": -4, "max": 4, "specials": 0}}}})");
  auto a = parse(without), z = parse(zero);
  ASSERT_TRUE(a && z);
  EXPECT_EQ(z->args[0].buffer.init.specials, 0.0);
  for (std::uint32_t trial : {0u, 1u}) {
    auto x = materialize(a->args[0].buffer, trial), y = materialize(z->args[0].buffer, trial);
    ASSERT_TRUE(x && y);
    EXPECT_EQ(*x, *y);
    RefSplitMix ref{7 + trial};
    for (std::size_t i = 0; i < 64; ++i) {
      const double u = double(ref() >> 11) / 9007199254740992.0;
      const double v = std::clamp(-4.0 * (1 - u) + 4.0 * u, -4.0, 4.0);
      EXPECT_EQ(load_le(*y, 4 * i, 4), std::bit_cast<std::uint32_t>(static_cast<float>(v))) << i;
    }
  }
  // Integers too: u8 over [0, 255] is the low byte of each draw.
  auto u = parse(with_args(R"({"buffer": {"dtype": "u8", "count": 32, "init": {"random":
      {"seed": 3, "min": 0, "max": 255, "specials": 0}}}})"));
  ASSERT_TRUE(u);
  auto ub = materialize(u->args[0].buffer, 0);
  ASSERT_TRUE(ub);
  RefSplitMix ref{3};
  for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(load_le(*ub, i, 1), ref() & 0xff);
}

TEST(LaunchSpecSpecials, ParsedAndDrawnPerElement) {
  auto s = parse(with_args(R"({"buffer": {"dtype": "f16", "count": 2000, "init": {"random":
      {"seed": 1, "min": 2, "max": 3, "specials": 0.25}}}})"));
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(s->args[0].buffer.init.specials, 0.25);
  // The decision is the element's first draw (u < p); a special element's second draw picks from the set, so
  // the positions of the specials follow the splitmix64 stream: an element is special exactly when its first
  // draw is below p. Check this on the first elements by replaying the stream (each non-special element uses one
  // more draw, each special one: the set has 19 entries, rejection from 2^64 happens with probability < 2^-59).
  auto b = materialize(s->args[0].buffer, 0);
  ASSERT_TRUE(b);
  RefSplitMix ref{1};
  for (std::size_t i = 0; i < 200; ++i) {
    const double u = double(ref() >> 11) / 9007199254740992.0;
    const std::uint64_t second = ref();
    const auto bits = load_le(*b, 2 * i, 2);
    if (u < 0.25) {
      static const std::uint64_t order[] = {0x0,    0x8000, 0x7c00, 0xfc00, 0x7e00, 0x1,    0x03ff, 0x0400, 0x7bff,
                                            0xfbff, 0x3c00, 0xbc00, 0x6200, 0xe200, 0x8001, 0x83ff, 0x7c01, 0x7e01, 0xffff};
      EXPECT_EQ(bits, order[second % 19]) << i;
    } else {
      const double w = double(second >> 11) / 9007199254740992.0;
      EXPECT_EQ(bits, nearest(DType::f16, std::clamp(2.0 * (1 - w) + 3.0 * w, 2.0, 3.0))) << i;
    }
  }
  EXPECT_FALSE(materialize(buffer(DType::f32, 4, specials_init(0, 0, 1, 1.5)), 0));
  EXPECT_FALSE(materialize(buffer(DType::f32, 4, specials_init(0, 0, 1, NAN)), 0));
}

/// "ties": k values drawn first (the same values a plain random init of k elements draws for that seed), then every
/// element a copy of one of them, so compares meet equal values; all k appear in a long buffer.
TEST(LaunchSpecTies, EveryElementIsOneOfTheFirstKDraws) {
  auto s = parse(with_args(R"({"buffer": {"dtype": "f32", "count": 1000, "init": {"random":
      {"seed": 5, "min": -2, "max": 2, "ties": 4}}}})"));
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(s->args[0].buffer.init.ties, 4u);
  auto b = materialize(s->args[0].buffer, 3);
  ASSERT_TRUE(b);
  auto plain = s->args[0].buffer;
  plain.count = 4;
  plain.init.ties = 0;
  auto pool = materialize(plain, 3);
  ASSERT_TRUE(pool);
  std::set<std::uint64_t> want, seen;
  for (std::size_t i = 0; i < 4; ++i) want.insert(load_le(*pool, 4 * i, 4));
  for (std::size_t i = 0; i < 1000; ++i) seen.insert(load_le(*b, 4 * i, 4));
  EXPECT_EQ(seen, want);
}

namespace {

// log_random: magnitudes log-uniform by binade in [min, max], signs drawn, the same bytes for a seed; replayed here
// from the splitmix64 stream (binade, then significand, then sign) and rounded by the test's own oracle.
TEST(LaunchSpecLogRandom, ReplaysTheStreamAndCoversEveryBinade) {
  auto s = parse(with_args(R"({"buffer": {"dtype": "f32", "count": 4000, "init": {"log_random":
      {"seed": 9, "min": 0.001, "max": 1000}}}})"));
  ASSERT_TRUE(s) << s.error().str();
  const Init& in = s->args[0].buffer.init;
  EXPECT_EQ(in.kind, Init::log_random);
  EXPECT_TRUE(in.signed_values);
  auto b = materialize(s->args[0].buffer, 2);  // trial 2 draws from seed 11
  ASSERT_TRUE(b);
  RefSplitMix ref{11};
  auto unit = [&] { return double(ref() >> 11) / 9007199254740992.0; };
  // 0.001 is in [2^-10, 2^-9) and 1000 in [2^9, 2^10): 20 binades, the first and last cut by min and max.
  std::set<int> binades;
  int negative = 0;
  for (std::size_t i = 0; i < 4000; ++i) {
    const std::uint64_t k = ref() % 20;  // below(20): rejection from 2^64 is below 2^-59 likely
    const double lo = std::max(std::ldexp(1.0, -10 + static_cast<int>(k)), 0.001);
    const double hi = std::min(std::ldexp(1.0, -9 + static_cast<int>(k)), 1000.0);
    double v = std::min(lo + unit() * (hi - lo), 1000.0);
    if (unit() < 0.5) v = -v;
    const auto bits = static_cast<std::uint32_t>(load_le(*b, 4 * i, 4));
    ASSERT_EQ(bits, std::bit_cast<std::uint32_t>(static_cast<float>(v))) << i;
    const float f = std::bit_cast<float>(bits);
    EXPECT_GE(std::fabs(f), 0.001f);
    EXPECT_LE(std::fabs(f), 1000.0f);
    binades.insert(std::ilogb(f));
    negative += f < 0;
  }
  EXPECT_EQ(binades.size(), 20u);
  EXPECT_GT(negative, 1800);
  EXPECT_LT(negative, 2200);
}

// The distribution itself, by counting: unsigned, every value in [0.5, 4], each binade gets a third of them, and a
// max that is a power of two is not a pile (only bf16 rounding from just below reaches 4.0 exactly).
TEST(LaunchSpecLogRandom, BinadesAreEvenAndMaxIsNoPile) {
  auto s = parse(with_args(R"({"buffer": {"dtype": "bf16", "count": 6000, "init": {"log_random":
      {"seed": 3, "min": 0.5, "max": 4, "signed": false}}}})"));
  ASSERT_TRUE(s) << s.error().str();
  auto b = materialize(s->args[0].buffer, 0);
  ASSERT_TRUE(b);
  int in_binade[3] = {0, 0, 0}, at_max = 0;
  for (std::size_t i = 0; i < 6000; ++i) {
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(load_le(*b, 2 * i, 2)) << 16);
    if (f == 4.0f) ++at_max;
    else if (f >= 0.5f && f < 4.0f) ++in_binade[f < 1 ? 0 : f < 2 ? 1 : 2];
  }
  for (const int c : in_binade) {
    EXPECT_GT(c, 1800);  // 2000 expected; binomial sd ~37
    EXPECT_LT(c, 2200);
  }
  EXPECT_LT(at_max, 60);  // rounding up from [3.984375, 4): ~1/128 of the top binade, ~16 expected
  EXPECT_EQ(in_binade[0] + in_binade[1] + in_binade[2] + at_max, 6000);
  // A min below the dtype's smallest subnormal would draw zeros: refused where the values are made.
  auto tiny = parse(with_args(R"({"buffer": {"dtype": "fp8e4m3fnuz", "count": 4, "init": {"log_random":
      {"min": 1e-6, "max": 1}}}})"));
  ASSERT_TRUE(tiny) << tiny.error().str();
  auto z = materialize(tiny->args[0].buffer, 0);
  ASSERT_FALSE(z);
  EXPECT_NE(z.error().message.find("rounds to zero in fp8e4m3fnuz"), std::string::npos) << z.error().message;
}

TEST(LaunchSpecLogRandom, Errors) {
  EXPECT_NE(error_of(with_args(R"({"buffer": {"dtype": "i32", "count": 1, "init": {"log_random":
      {"min": 1, "max": 2}}}})")).find("/args/0/buffer/init/log_random: log_random draws floats"), std::string::npos);
  EXPECT_NE(error_of(with_args(R"({"buffer": {"dtype": "f32", "count": 1, "init": {"log_random":
      {"min": 0, "max": 2}}}})")).find("/args/0/buffer/init/log_random/min: the smallest magnitude must be positive"),
            std::string::npos);
  EXPECT_NE(error_of(with_args(R"({"buffer": {"dtype": "f32", "count": 1, "init": {"log_random":
      {"min": 3, "max": 2}}}})")).find("/args/0/buffer/init/log_random: min (3) is greater than max (2)"),
            std::string::npos);
  EXPECT_NE(error_of(with_args(R"({"buffer": {"dtype": "f16", "count": 1, "init": {"log_random":
      {"min": 1, "max": 1e6}}}})")).find("/args/0/buffer/init/log_random/max"), std::string::npos);
  EXPECT_NE(error_of(with_args(R"({"buffer": {"dtype": "f32", "count": 1, "init": {"log_random":
      {"min": 1, "max": 2, "signed": 1}}}})")).find("/args/0/buffer/init/log_random/signed: expected true or false"),
            std::string::npos);
}

}  // namespace
