// The launch spec (DESIGN.md "Launch spec (JSON)"): one launch of one kernel, parsed and checked with every problem
// reported at once, and the deterministic buffer contents it describes.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/support/diag.hpp"
#include "asmevo/support/file.hpp"
#include "asmevo/support/float_formats.hpp"
#include "asmevo/support/json_pointer.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::verify {

/// Element types of buffers and scalars. The fp8 kinds are the two AMD "fnuz" formats (CDNA3 native: MI300 ISA
/// (CDNA3) §7.2 "FP8 and BF8") and the two OCP OFP8 formats (CDNA4 native).
enum class DType : std::uint8_t {
  f64, f32, f16, bf16, fp8e4m3fnuz, fp8e5m2fnuz, fp8e4m3, fp8e5m2, i64, u64, i32, u32, i16, u16, i8, u8
};

namespace detail {

struct DTypeInfo {
  DType type;
  std::string_view name;
  std::uint8_t size;      ///< bytes
  bool is_float;
  bool is_signed;         ///< integers only
  double max_finite;      ///< floats: the largest finite value; integers: unused
};

// Largest finite values: IEEE 754 binary64/binary32/binary16; bfloat16 (8 exponent bits, 7 fraction bits:
// 0x7f7f = (2 - 2^-7) * 2^127); fp8: OCP "8-bit Floating Point Specification (OFP8)" rev 1.0 table 1 (E4M3 448,
// E5M2 57344) and LLVM APFloat's Float8E4M3FNUZ (240) / Float8E5M2FNUZ (57344) semantics
// (llvm/lib/Support/APFloat.cpp, the formats of the CDNA3 FP8/BF8 instructions).
inline constexpr DTypeInfo dtype_table[] = {
    {DType::f64, "f64", 8, true, true, std::numeric_limits<double>::max()},
    {DType::f32, "f32", 4, true, true, static_cast<double>(std::numeric_limits<float>::max())},
    {DType::f16, "f16", 2, true, true, 65504.0},
    {DType::bf16, "bf16", 2, true, true, 3.3895313892515355e38},
    {DType::fp8e4m3fnuz, "fp8e4m3fnuz", 1, true, true, 240.0},
    {DType::fp8e5m2fnuz, "fp8e5m2fnuz", 1, true, true, 57344.0},
    {DType::fp8e4m3, "fp8e4m3", 1, true, true, 448.0},
    {DType::fp8e5m2, "fp8e5m2", 1, true, true, 57344.0},
    {DType::i64, "i64", 8, false, true, 0},
    {DType::u64, "u64", 8, false, false, 0},
    {DType::i32, "i32", 4, false, true, 0},
    {DType::u32, "u32", 4, false, false, 0},
    {DType::i16, "i16", 2, false, true, 0},
    {DType::u16, "u16", 2, false, false, 0},
    {DType::i8, "i8", 1, false, true, 0},
    {DType::u8, "u8", 1, false, false, 0},
};

[[nodiscard]] constexpr const DTypeInfo& dtype_info(DType t) { return dtype_table[static_cast<std::size_t>(t)]; }

}  // namespace detail

/// Bytes per element.
[[nodiscard]] constexpr std::size_t dtype_size(DType t) { return detail::dtype_info(t).size; }
/// The spelling the launch spec uses ("f32", "fp8e4m3fnuz", ...).
[[nodiscard]] constexpr std::string_view dtype_name(DType t) { return detail::dtype_info(t).name; }
[[nodiscard]] constexpr bool dtype_is_float(DType t) { return detail::dtype_info(t).is_float; }
[[nodiscard]] constexpr bool dtype_is_signed(DType t) { return detail::dtype_info(t).is_signed; }
/// The dtype of that spelling, or nullopt.
[[nodiscard]] constexpr std::optional<DType> parse_dtype(std::string_view s) {
  for (const auto& d : detail::dtype_table)
    if (d.name == s) return d.type;
  return std::nullopt;
}

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

/// Number of dtypes (the size of per-dtype tables).
inline constexpr std::size_t dtype_count = 16;

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

namespace detail {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;
using Json = nlohmann::json;

inline constexpr std::size_t max_spec_depth = 64;

/// Byte offset -> 1-based line and column.
inline void line_col(std::string_view text, std::size_t byte, std::uint32_t& line, std::uint32_t& col) {
  line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, col = 1;
    else ++col;
  }
}

/// Nesting depth of JSON text (brackets outside strings), so that nothing recursive ever sees a deep document.
inline std::size_t json_depth(std::string_view t, std::size_t& where) {
  std::size_t depth = 0, max_depth = 0;
  bool in_str = false, esc = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (in_str) {
      if (esc) esc = false;
      else if (c == '\\') esc = true;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) max_depth = depth, where = i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return max_depth;
}

using ::asmevo::pointer_token;

[[nodiscard]] inline std::string kind_of(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "the integer " + v.dump();
    case Json::value_t::number_float: return "the number " + v.dump();
    default: return "an unknown value";
  }
}

[[nodiscard]] inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// The mathematical integer a JSON number holds (integral floats included), or nullopt.
[[nodiscard]] inline std::optional<i128> integer_of(const Json& v) {
  if (v.is_number_unsigned()) return static_cast<i128>(v.get<std::uint64_t>());
  if (v.is_number_integer()) return static_cast<i128>(v.get<std::int64_t>());
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 0x1p100) return static_cast<i128>(d);
  }
  return std::nullopt;
}

[[nodiscard]] inline std::string i128_str(i128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  u128 u = neg ? static_cast<u128>(-(v + 1)) + 1 : static_cast<u128>(v);
  std::string s;
  while (u) s += static_cast<char>('0' + static_cast<int>(u % 10)), u /= 10;
  if (neg) s += '-';
  std::reverse(s.begin(), s.end());
  return s;
}

/// The inclusive integer range of an integer dtype.
[[nodiscard]] inline std::pair<i128, i128> int_range(DType t) {
  const unsigned bits = static_cast<unsigned>(dtype_size(t)) * 8;
  if (dtype_is_signed(t)) return {-(i128{1} << (bits - 1)), (i128{1} << (bits - 1)) - 1};
  return {0, (i128{1} << bits) - 1};
}

/// Gathers every problem of a spec with its JSON Pointer.
struct SpecChecker {
  Diags problems;
  std::string file;

  void problem(const std::string& ptr, const std::string& what, const Json* v = nullptr, std::string hint = {}) {
    std::string text;
    if (v) text = v->dump(-1, ' ', false, Json::error_handler_t::replace);
    problems.push_back(make_diag(DiagCode::usage, (ptr.empty() ? std::string("(root)") : ptr) + ": " + what,
                                 Loc{file}, std::move(text), std::move(hint)));
  }

  /// Reports keys of `obj` that are not in `allowed`, suggesting the closest allowed key.
  void only_keys(const Json& obj, const std::string& ptr, std::initializer_list<std::string_view> allowed) {
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string("\"") + std::string(a) + "\"";
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      const std::string& k = it.key();
      if (std::find(allowed.begin(), allowed.end(), std::string_view(k)) != allowed.end()) continue;
      std::string_view best;
      std::size_t best_d = 3;  // suggest only close spellings
      for (auto a : allowed)
        if (const auto d = edit_distance(k, a); d < best_d) best_d = d, best = a;
      std::string what = "unknown key \"" + printable(k) + "\"";
      if (!best.empty()) what += " (did you mean \"" + std::string(best) + "\"?)";
      problem(ptr + "/" + pointer_token(k), what, nullptr, "keys accepted here: " + list);
    }
  }

  /// An integer in [lo, hi]; `what` names what is expected ("a positive integer").
  std::optional<i128> integer(const Json& v, const std::string& ptr, i128 lo, i128 hi, const std::string& what) {
    auto x = integer_of(v);
    if (!x) {
      problem(ptr, "expected " + what + ", got " + kind_of(v), &v);
      return std::nullopt;
    }
    if (*x < lo || *x > hi) {
      problem(ptr, "expected " + what + " in [" + i128_str(lo) + ", " + i128_str(hi) + "], got " + i128_str(*x), &v);
      return std::nullopt;
    }
    return x;
  }

  /// A finite JSON number, or (for floats) the strings "nan", "inf", "-inf" when `allow_special`.
  std::optional<double> number(const Json& v, const std::string& ptr, bool allow_special = false) {
    if (v.is_number()) return v.get<double>();
    if (allow_special && v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (s == "inf" || s == "+inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
    }
    problem(ptr, std::string("expected a number") + (allow_special ? " (or \"nan\", \"inf\", \"-inf\")" : "") +
                     ", got " + kind_of(v),
            &v);
    return std::nullopt;
  }

  const Json* require(const Json& obj, std::string_view key, const std::string& ptr) {
    auto it = obj.find(std::string(key));
    if (it == obj.end()) {
      problem(ptr + "/" + pointer_token(key), "required key is missing");
      return nullptr;
    }
    return &*it;
  }

  static const Json* optional_key(const Json& obj, std::string_view key) {
    auto it = obj.find(std::string(key));
    return it == obj.end() ? nullptr : &*it;
  }

  bool object(const Json& v, const std::string& ptr, const std::string& what) {
    if (v.is_object()) return true;
    problem(ptr, "expected " + what + ", got " + kind_of(v), &v);
    return false;
  }
};

inline std::string dtype_list(bool scalars_only) {
  std::string s;
  for (const auto& d : dtype_table) {
    if (scalars_only && d.is_float && d.size == 1) continue;
    s += (s.empty() ? "" : " ") + std::string(d.name);
  }
  return s;
}

/// Checks that a float value fits the dtype's finite range (infinite values are allowed only where `allow_inf`).
inline void check_float_range(SpecChecker& c, DType t, double v, const std::string& ptr, const Json* j,
                              const std::string& what) {
  if (std::isnan(v) || std::isinf(v)) return;
  if (std::fabs(v) > dtype_info(t).max_finite) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", dtype_info(t).max_finite);
    c.problem(ptr, what + " lies outside the finite range of " + std::string(dtype_name(t)) + " (+-" + buf + ")", j);
  }
}

/// An integer init value: integral, within the dtype, and exactly representable as a double.
inline void check_int_value(SpecChecker& c, DType t, double v, const std::string& ptr, const Json* j,
                            const std::string& what) {
  if (!std::isfinite(v) || std::trunc(v) != v) {
    c.problem(ptr, what + " must be an integer for the integer dtype " + std::string(dtype_name(t)), j);
    return;
  }
  if (std::fabs(v) > 0x1p53) {
    c.problem(ptr, what + " is beyond 2^53, where a JSON number is not exact", j, "use a file init for such values");
    return;
  }
  const auto [lo, hi] = int_range(t);
  const auto x = static_cast<i128>(v);
  if (x < lo || x > hi)
    c.problem(ptr, what + " " + i128_str(x) + " is outside the range of " + std::string(dtype_name(t)) + " [" +
                       i128_str(lo) + ", " + i128_str(hi) + "]",
              j);
}

inline Init read_init(SpecChecker& c, const Json& v, const std::string& ptr, std::optional<DType> dt,
                      std::optional<std::uint64_t> count, const std::filesystem::path& base_dir) {
  Init r;
  const std::string forms = "\"zeros\", {\"random\": {\"seed\", \"min\", \"max\", \"specials\", \"ties\"}}, "
                            "{\"log_random\": {\"seed\", \"min\", \"max\", \"signed\"}}, "
                            "{\"iota\": {\"start\", \"step\"}}, "
                            "{\"fill\": value} or {\"file\": \"path\"}";
  if (v.is_string()) {
    if (v.get_ref<const std::string&>() == "zeros") return r;
    c.problem(ptr, "unknown init \"" + printable(v.get_ref<const std::string&>()) + "\"", &v, "one of: " + forms);
    return r;
  }
  if (!v.is_object() || v.size() != 1) {
    c.problem(ptr, "expected an init, got " + (v.is_object() ? "an object with " + std::to_string(v.size()) + " keys"
                                                             : kind_of(v)),
              &v, "one of: " + forms);
    return r;
  }
  const std::string key = v.begin().key();
  const Json& body = v.begin().value();
  const std::string p = ptr + "/" + pointer_token(key);
  if (key == "random") {
    r.kind = Init::random;
    if (!c.object(body, p, "an object {\"seed\", \"min\", \"max\"} (and optionally \"specials\", \"ties\")")) return r;
    c.only_keys(body, p, {"seed", "min", "max", "specials", "ties"});
    if (const Json* t = SpecChecker::optional_key(body, "ties"))
      if (auto x = c.integer(*t, p + "/ties", 1, 1 << 20, "the number of distinct values"))
        r.ties = static_cast<std::uint32_t>(*x);
    if (const Json* sp = SpecChecker::optional_key(body, "specials")) {
      if (!sp->is_number()) {
        c.problem(p + "/specials", "expected a probability (a number in [0, 1]), got " + kind_of(*sp), sp);
      } else if (const double x = sp->get<double>(); !(x >= 0 && x <= 1)) {
        c.problem(p + "/specials", "expected a probability in [0, 1], got " + sp->dump(), sp,
                  "the fraction of elements drawn from the dtype's special values, e.g. 0.05");
      } else {
        r.specials = x;
      }
    }
    if (const Json* s = SpecChecker::optional_key(body, "seed"))
      if (auto x = c.integer(*s, p + "/seed", 0, std::numeric_limits<std::uint64_t>::max(), "a non-negative integer"))
        r.seed = static_cast<std::uint64_t>(*x);
    std::optional<double> lo, hi;
    if (const Json* m = c.require(body, "min", p)) lo = c.number(*m, p + "/min");
    if (const Json* m = c.require(body, "max", p)) hi = c.number(*m, p + "/max");
    if (lo) r.min = *lo;
    if (hi) r.max = *hi;
    if (lo && hi) {
      if (*lo > *hi) {
        c.problem(p, "min (" + body["min"].dump() + ") is greater than max (" + body["max"].dump() + ")", &body,
                  "min <= max");
      } else if (dt && dtype_is_float(*dt)) {
        check_float_range(c, *dt, *lo, p + "/min", &body["min"], "min");
        check_float_range(c, *dt, *hi, p + "/max", &body["max"], "max");
      } else if (dt) {
        // Integers are drawn from [ceil(min), floor(max)], which must be non-empty and inside the dtype.
        const double clo = std::ceil(*lo), fhi = std::floor(*hi);
        const auto [tlo, thi] = int_range(*dt);
        if (clo > fhi) {
          c.problem(p, "no integer lies in [min, max]", &body, "widen the range to include an integer");
        } else {
          if (std::fabs(clo) > 0x1p64 || static_cast<i128>(clo) < tlo)
            c.problem(p + "/min", "min is below the range of " + std::string(dtype_name(*dt)) + " (" + i128_str(tlo) +
                                      ")", &body["min"]);
          if (std::fabs(fhi) > 0x1p64 || static_cast<i128>(fhi) > thi)
            c.problem(p + "/max", "max is above the range of " + std::string(dtype_name(*dt)) + " (" + i128_str(thi) +
                                      ")", &body["max"]);
        }
      }
    }
  } else if (key == "log_random") {
    r.kind = Init::log_random;
    if (!c.object(body, p, "an object {\"seed\", \"min\", \"max\"} (and optionally \"signed\")")) return r;
    c.only_keys(body, p, {"seed", "min", "max", "signed"});
    if (dt && !dtype_is_float(*dt))
      c.problem(p, "log_random draws floats; " + std::string(dtype_name(*dt)) + " is an integer dtype", &body,
                "use random for integers");
    if (const Json* s = SpecChecker::optional_key(body, "seed"))
      if (auto x = c.integer(*s, p + "/seed", 0, std::numeric_limits<std::uint64_t>::max(), "a non-negative integer"))
        r.seed = static_cast<std::uint64_t>(*x);
    if (const Json* sg = SpecChecker::optional_key(body, "signed")) {
      if (!sg->is_boolean()) c.problem(p + "/signed", "expected true or false, got " + kind_of(*sg), sg);
      else r.signed_values = sg->get<bool>();
    }
    std::optional<double> lo, hi;
    if (const Json* m = c.require(body, "min", p)) lo = c.number(*m, p + "/min");
    if (const Json* m = c.require(body, "max", p)) hi = c.number(*m, p + "/max");
    if (lo) r.min = *lo;
    if (hi) r.max = *hi;
    if (lo && !(*lo > 0))
      c.problem(p + "/min", "the smallest magnitude must be positive, got " + body["min"].dump(), &body["min"],
                "e.g. 0.001; signs come from \"signed\"");
    if (lo && hi && *lo > 0 && *lo > *hi)
      c.problem(p, "min (" + body["min"].dump() + ") is greater than max (" + body["max"].dump() + ")", &body,
                "min <= max");
    if (hi && dt && dtype_is_float(*dt)) check_float_range(c, *dt, *hi, p + "/max", &body["max"], "max");
  } else if (key == "iota") {
    r.kind = Init::iota;
    r.step = 1;
    if (!c.object(body, p, "an object {\"start\", \"step\"}")) return r;
    c.only_keys(body, p, {"start", "step"});
    bool ok = true;
    if (const Json* s = SpecChecker::optional_key(body, "start")) {
      auto x = c.number(*s, p + "/start");
      ok = ok && x.has_value();
      if (x) r.start = *x;
    }
    if (const Json* s = SpecChecker::optional_key(body, "step")) {
      auto x = c.number(*s, p + "/step");
      ok = ok && x.has_value();
      if (x) r.step = *x;
    }
    if (ok && dt) {
      // iota is monotonic: the first and the last element bound all of them.
      const std::uint64_t last = count && *count > 0 ? *count - 1 : 0;
      if (dtype_is_float(*dt)) {
        check_float_range(c, *dt, r.start, p + "/start", &body, "start");
        check_float_range(c, *dt, r.start + static_cast<double>(last) * r.step, p, &body,
                          "the last element (start + (count-1)*step)");
      } else {
        check_int_value(c, *dt, r.start, p + "/start", &body, "start");
        check_int_value(c, *dt, r.step, p + "/step", &body, "step");
        if (std::trunc(r.start) == r.start && std::trunc(r.step) == r.step && std::fabs(r.start) <= 0x1p53 &&
            std::fabs(r.step) <= 0x1p53) {
          const i128 end = static_cast<i128>(r.start) + static_cast<i128>(last) * static_cast<i128>(r.step);
          const auto [tlo, thi] = int_range(*dt);
          if (end < tlo || end > thi)
            c.problem(p, "the last element (start + (count-1)*step = " + i128_str(end) + ") is outside the range of " +
                             std::string(dtype_name(*dt)),
                      &body);
        }
      }
    }
  } else if (key == "fill") {
    r.kind = Init::fill;
    const bool is_float = dt && dtype_is_float(*dt);
    if (auto x = c.number(body, p, is_float)) {
      r.value = *x;
      if (dt && is_float) check_float_range(c, *dt, *x, p, &body, "the fill value");
      else if (dt) check_int_value(c, *dt, *x, p, &body, "the fill value");
    }
  } else if (key == "file") {
    r.kind = Init::file;
    if (!body.is_string() || body.get_ref<const std::string&>().empty()) {
      c.problem(p, "expected a file path (a non-empty string), got " + kind_of(body), &body);
      return r;
    }
    std::filesystem::path fp(body.get_ref<const std::string&>());
    if (fp.is_relative()) fp = base_dir / fp;
    std::error_code ec;
    auto abs = std::filesystem::absolute(fp, ec);
    r.path = (ec ? fp : abs).lexically_normal().string();
    // Checked now too, so that the user hears of it with everything else (materialize checks again).
    const auto size = std::filesystem::file_size(r.path, ec);
    if (ec) {
      c.problem(p, "cannot read '" + r.path + "': " + ec.message(), &body);
    } else if (dt && count && size < *count * dtype_size(*dt)) {
      c.problem(p, "'" + r.path + "' holds " + std::to_string(size) + " bytes, fewer than the buffer's " +
                       std::to_string(*count * dtype_size(*dt)) + " (" + std::to_string(*count) + " x " +
                       std::string(dtype_name(*dt)) + ")",
                &body);
    }
  } else {
    c.problem(p, "unknown init \"" + printable(key) + "\"", &v, "one of: " + forms);
  }
  return r;
}

inline BufferArg read_buffer(SpecChecker& c, const Json& v, const std::string& p, const std::filesystem::path& base) {
  BufferArg b;
  if (!c.object(v, p, "an object {\"dtype\", \"count\", \"init\"}")) return b;
  c.only_keys(v, p, {"dtype", "count", "init"});
  std::optional<DType> dt;
  if (const Json* d = c.require(v, "dtype", p)) {
    if (d->is_string()) dt = parse_dtype(d->get_ref<const std::string&>());
    if (!dt) c.problem(p + "/dtype", "unknown dtype " + d->dump(), d, "one of: " + dtype_list(false));
  }
  std::optional<std::uint64_t> count;
  if (const Json* n = c.require(v, "count", p)) {
    if (auto x = c.integer(*n, p + "/count", 0, std::numeric_limits<std::uint64_t>::max(), "a non-negative integer")) {
      count = static_cast<std::uint64_t>(*x);
      if (dt && static_cast<i128>(*count) * static_cast<i128>(dtype_size(*dt)) > static_cast<i128>(max_buffer_bytes)) {
        c.problem(p + "/count", std::to_string(*count) + " x " + std::string(dtype_name(*dt)) +
                                    " is more than the 16 GiB a buffer may hold", n);
        count.reset();
      }
    }
  }
  if (dt) b.dtype = *dt;
  if (count) b.count = *count;
  if (const Json* i = SpecChecker::optional_key(v, "init")) b.init = read_init(c, *i, p + "/init", dt, count, base);
  return b;
}

/// double -> float rounding to odd (truncate, then set the last bit when inexact). Rounding that result once more
/// to a format with at most 22 significand bits (bf16, fp8) gives the correctly rounded result of the double,
/// which rounding through a round-to-nearest float would not always (double rounding). (Boldo & Melquiond,
/// "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 2008.)
[[nodiscard]] inline float f64_to_f32_odd(double d) {
  if (std::isnan(d) || std::isinf(d)) return static_cast<float>(d);
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d) || std::isinf(f))
    f = std::nextafter(f, 0.0f);  // toward zero
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) | 1u);
}

[[nodiscard]] inline floats::Fp8 fp8_kind(DType t) {
  switch (t) {
    case DType::fp8e4m3fnuz: return floats::Fp8::e4m3fnuz;
    case DType::fp8e5m2fnuz: return floats::Fp8::e5m2fnuz;
    case DType::fp8e4m3: return floats::Fp8::e4m3;
    default: return floats::Fp8::e5m2;
  }
}

/// The bit pattern of `v` rounded (to nearest, ties to even) to a float dtype, zero-extended.
[[nodiscard]] inline std::uint64_t round_float_bits(DType t, double v) {
  switch (t) {
    case DType::f64: return std::bit_cast<std::uint64_t>(v);
    case DType::f32: return std::bit_cast<std::uint32_t>(static_cast<float>(v));  // IEEE RNE conversion
    case DType::f16: return floats::f64_to_f16(v);
    case DType::bf16: return floats::f32_to_bf16(f64_to_f32_odd(v));
    default: return floats::f32_to_fp8(f64_to_f32_odd(v), fp8_kind(t), /*saturate=*/true);
  }
}

/// The bit pattern of the integer `v` in the dtype's width (two's complement), zero-extended.
[[nodiscard]] inline std::uint64_t int_bits(DType t, i128 v) {
  const unsigned bits = static_cast<unsigned>(dtype_size(t)) * 8;
  const auto u = static_cast<std::uint64_t>(static_cast<u128>(v));
  return bits == 64 ? u : (u & ((std::uint64_t{1} << bits) - 1));
}

inline ScalarArg read_scalar(SpecChecker& c, const Json& v, const std::string& p) {
  ScalarArg s;
  if (!c.object(v, p, "an object {\"type\", \"value\"}")) return s;
  c.only_keys(v, p, {"type", "value"});
  std::optional<DType> t;
  if (const Json* d = c.require(v, "type", p)) {
    if (d->is_string()) t = parse_dtype(d->get_ref<const std::string&>());
    if (t && dtype_is_float(*t) && dtype_size(*t) == 1) t.reset();  // no fp8 scalars
    if (!t) c.problem(p + "/type", "unknown scalar type " + d->dump(), d, "one of: " + dtype_list(true));
  }
  const Json* val = c.require(v, "value", p);
  if (t) s.type = *t;
  if (!t || !val) return s;
  const std::string vp = p + "/value";
  if (dtype_is_float(*t)) {
    if (auto x = c.number(*val, vp, true)) {
      check_float_range(c, *t, *x, vp, val, "the value");
      s.bits = round_float_bits(*t, *x);
    }
  } else {
    const auto [lo, hi] = int_range(*t);
    if (auto x = c.integer(*val, vp, lo, hi, "an integer of type " + std::string(dtype_name(*t))))
      s.bits = int_bits(*t, *x);
  }
  return s;
}

/// Joins gathered problems into the one Diag the API returns; every problem goes to `all` when given.
[[nodiscard]] inline Unexpected gathered(Diags&& problems, Diags* all, const std::string& what) {
  if (all) all->insert(all->end(), problems.begin(), problems.end());
  if (problems.size() == 1) return unexpected(std::move(problems.front()));
  Diag d = problems.front();
  d.message = std::to_string(problems.size()) + " problems in the " + what + ":";
  d.text.clear();
  d.hint.clear();
  for (const auto& p : problems) {
    d.message += "\n  " + p.message;
    if (!p.hint.empty()) d.message += " (" + p.hint + ")";
  }
  return unexpected(std::move(d));
}

}  // namespace detail

namespace detail {

/// Reads a "tolerance" object: {"<float dtype>": {"abs": A, "rel": R}, ...}.
inline void read_tolerance(SpecChecker& c, const Json& v, const std::string& p, LaunchSpec& s) {
  if (!c.object(v, p, "an object {\"<float dtype>\": {\"abs\", \"rel\"}}")) return;
  std::string floats;
  for (const auto& d : dtype_table)
    if (d.is_float) floats += (floats.empty() ? "" : " ") + std::string(d.name);
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string kp = p + "/" + pointer_token(it.key());
    const auto dt = parse_dtype(it.key());
    if (!dt) {
      c.problem(kp, "unknown dtype \"" + printable(it.key()) + "\"", nullptr, "one of: " + floats);
      continue;
    }
    if (!dtype_is_float(*dt)) {
      c.problem(kp, "integer outputs are always compared exactly; a tolerance applies to float dtypes only", nullptr,
                "one of: " + floats);
      continue;
    }
    const Json& body = it.value();
    if (!c.object(body, kp, "an object {\"abs\", \"rel\"}")) continue;
    c.only_keys(body, kp, {"abs", "rel"});
    Tolerance tol;
    bool any = false;
    for (const char* key : {"abs", "rel"}) {
      const Json* x = SpecChecker::optional_key(body, key);
      if (!x) continue;
      any = true;
      auto d = c.number(*x, kp + "/" + key);
      if (!d) continue;
      if (!(*d >= 0) || !std::isfinite(*d)) {
        c.problem(kp + "/" + key, "expected a finite non-negative number, got " + kind_of(*x), x);
        continue;
      }
      (std::string_view(key) == "abs" ? tol.abs : tol.rel) = *d;
    }
    if (!any) c.problem(kp, "a tolerance needs \"abs\", \"rel\" or both", &body);
    s.tolerance[static_cast<std::size_t>(*dt)] = tol;
  }
}

/// Checks one launch spec object found at JSON Pointer `pre` ("" for a whole file), gathering every problem in `c`.
inline LaunchSpec check_spec(SpecChecker& c, const Json& doc, const std::string& pre, const std::string& base_dir) {
  LaunchSpec s;
  s.base_dir = base_dir;
  const std::filesystem::path base(s.base_dir);
  if (!doc.is_object()) {
    c.problem(pre, "expected a launch spec object {\"kernel\", \"grid\", \"block\", \"args\", \"outputs\", "
                   "\"trials\"}, got " + kind_of(doc), &doc);
    return s;
  }
  c.only_keys(doc, pre, {"kernel", "grid", "block", "args", "outputs", "trials", "dynamic_lds", "tolerance"});
  if (const Json* k = SpecChecker::optional_key(doc, "kernel")) {
    if (k->is_string() && !k->get_ref<const std::string&>().empty()) {
      s.kernel = k->get<std::string>();
      if (s.kernel.size() > 3 && s.kernel.ends_with(".kd")) s.kernel.resize(s.kernel.size() - 3);
    } else {
      c.problem(pre + "/kernel", "expected the kernel's symbol (a non-empty string), got " + kind_of(*k), k);
    }
  }
  auto dims = [&](const Json& v, const std::string& p, std::uint32_t hi, const std::string& what)
      -> std::optional<std::array<std::uint32_t, 3>> {
    if (!v.is_array() || v.empty() || v.size() > 3) {
      c.problem(p, "expected an array of 1 to 3 positive integers (x, y, z: " + what + "), got " +
                       (v.is_array() ? "an array of " + std::to_string(v.size()) : kind_of(v)),
                &v);
      return std::nullopt;
    }
    std::array<std::uint32_t, 3> r{1, 1, 1};
    bool ok = true;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (auto x = c.integer(v[i], p + "/" + std::to_string(i), 1, hi, "a positive integer"))
        r[i] = static_cast<std::uint32_t>(*x);
      else
        ok = false;
    }
    if (!ok) return std::nullopt;
    return r;
  };
  if (const Json* g = c.require(doc, "grid", pre)) {
    if (auto r = dims(*g, pre + "/grid", std::numeric_limits<std::uint32_t>::max(), "workgroups, not work-items")) s.grid = *r;
  }
  if (const Json* b = SpecChecker::optional_key(doc, "block")) {
    // 1024 work-items per workgroup is the gfx9 limit (AMDGPUUsage: max_flat_workgroup_size at most 1024).
    if (auto r = dims(*b, pre + "/block", 1024, "work-items per workgroup")) {
      if (std::uint64_t{(*r)[0]} * (*r)[1] * (*r)[2] > 1024)
        c.problem(pre + "/block", "a workgroup of " + std::to_string(std::uint64_t{(*r)[0]} * (*r)[1] * (*r)[2]) +
                                " work-items is more than the 1024 gfx9 allows", b);
      else
        s.block = *r;
    }
  }
  if (const Json* a = c.require(doc, "args", pre)) {
    if (!a->is_array()) {
      c.problem(pre + "/args", "expected an array (one entry per explicit kernel argument), got " + kind_of(*a), a);
    } else {
      for (std::size_t i = 0; i < a->size(); ++i) {
        const Json& e = (*a)[i];
        const std::string p = pre + "/args/" + std::to_string(i);
        ArgSpec arg;
        const std::string forms = "{\"buffer\": {...}}, {\"scalar\": {...}} or {\"null\": true}";
        if (!e.is_object() || e.size() != 1) {
          c.problem(p, "expected one argument, got " +
                           (e.is_object() ? "an object with " + std::to_string(e.size()) + " keys" : kind_of(e)),
                    &e, "one of: " + forms);
        } else {
          const std::string key = e.begin().key();
          const Json& body = e.begin().value();
          if (key == "buffer") {
            arg.kind = ArgSpec::Kind::buffer;
            arg.buffer = read_buffer(c, body, p + "/buffer", base);
          } else if (key == "scalar") {
            arg.kind = ArgSpec::Kind::scalar;
            arg.scalar = read_scalar(c, body, p + "/scalar");
          } else if (key == "null") {
            arg.kind = ArgSpec::Kind::null;
            if (!(body.is_boolean() && body.get<bool>()))
              c.problem(p + "/null", "expected true, got " + kind_of(body), &body);
          } else {
            c.only_keys(e, p, {"buffer", "scalar", "null"});
          }
        }
        s.args.push_back(std::move(arg));
      }
    }
  }
  if (const Json* o = SpecChecker::optional_key(doc, "outputs")) {
    if (!o->is_array()) {
      c.problem(pre + "/outputs", "expected an array of argument indexes, got " + kind_of(*o), o);
    } else {
      for (std::size_t i = 0; i < o->size(); ++i) {
        const std::string p = pre + "/outputs/" + std::to_string(i);
        const i128 hi = s.args.empty() ? -1 : static_cast<i128>(s.args.size()) - 1;
        if (s.args.empty()) {
          c.problem(p, "there are no arguments to name", &(*o)[i]);
          continue;
        }
        auto x = c.integer((*o)[i], p, 0, hi, "an index into /args");
        if (!x) continue;
        const auto idx = static_cast<std::size_t>(*x);
        if (s.args[idx].kind != ArgSpec::Kind::buffer)
          c.problem(p, "argument " + std::to_string(idx) + " is not a buffer; only buffers can be outputs", &(*o)[i]);
        else if (std::find(s.outputs.begin(), s.outputs.end(), idx) != s.outputs.end())
          c.problem(p, "argument " + std::to_string(idx) + " is listed twice", &(*o)[i]);
        else
          s.outputs.push_back(idx);
      }
    }
  } else {
    for (std::size_t i = 0; i < s.args.size(); ++i)
      if (s.args[i].kind == ArgSpec::Kind::buffer) s.outputs.push_back(i);
  }
  if (const Json* t = SpecChecker::optional_key(doc, "dynamic_lds")) {
    if (auto x = c.integer(*t, pre + "/dynamic_lds", 0, 65536, "a byte count 0..65536"))
      s.dynamic_lds = static_cast<std::uint32_t>(*x);
  }
  if (const Json* t = SpecChecker::optional_key(doc, "trials")) {
    if (auto x = c.integer(*t, pre + "/trials", 1, std::numeric_limits<std::uint32_t>::max(), "a positive integer"))
      s.trials = static_cast<std::uint32_t>(*x);
  }
  if (const Json* t = SpecChecker::optional_key(doc, "tolerance")) read_tolerance(c, *t, pre + "/tolerance", s);
  return s;
}

/// Parses JSON text with the depth limit and line:column errors every launch file gets.
[[nodiscard]] inline Expected<Json> parse_spec_json(std::string_view json_text, const std::string& file) {
  std::size_t deep_at = 0;
  if (json_depth(json_text, deep_at) > max_spec_depth) {
    Loc loc{file};
    line_col(json_text, deep_at, loc.line, loc.col);
    return fail(DiagCode::parse_error, "the JSON nests deeper than " + std::to_string(max_spec_depth) + " levels", loc);
  }
  try {
    return Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::parse_error& e) {
    Loc loc{file};
    line_col(json_text, e.byte > 0 ? e.byte - 1 : 0, loc.line, loc.col);
    std::string what = e.what();
    if (auto at = what.find("parse error"); at != std::string::npos) what = what.substr(at);
    return fail(DiagCode::parse_error, "invalid JSON: " + what, loc);
  } catch (const std::exception& e) {
    return fail(DiagCode::parse_error, std::string("invalid JSON: ") + e.what(), Loc{file});
  }
}

}  // namespace detail

/// Parses and checks a launch spec. `file_name` goes into diagnostics; relative file inits resolve against
/// `base_dir`. Every problem is found in one pass; the error names each by JSON Pointer ("/args/3/buffer/dtype:
/// unknown dtype \"f31\"") and says what would be accepted. A spec with several problems gives one Diag listing
/// them all; `all_problems`, when given, receives each as its own Diag. Never throws, whatever the text.
[[nodiscard]] ASMEVO_OUTLINE Expected<LaunchSpec> parse_launch_spec(std::string_view json_text, std::string_view file_name,
                                                            std::string_view base_dir,
                                                            Diags* all_problems = nullptr)
#if ASMEVO_BODY_LAUNCH
{
  const std::string file(file_name);
  auto doc = detail::parse_spec_json(json_text, file);
  if (!doc) return unexpected(std::move(doc).error());
  detail::SpecChecker c;
  c.file = file;
  LaunchSpec s;
  try {
    s = detail::check_spec(c, *doc, "", std::string(base_dir));
  } catch (const std::exception& e) {  // nlohmann only throws on a broken invariant here; keep it a value
    return fail(DiagCode::internal, std::string("launch spec: unexpected JSON error: ") + e.what(), Loc{file});
  }
  if (!c.problems.empty()) return detail::gathered(std::move(c.problems), all_problems, "launch spec");
  return s;
}
#else
;
#endif

/// Parses a launch file: one launch spec object, or a JSON array of them (the shapes a kernel is verified on, each
/// checked as parse_launch_spec checks one; problems are named by pointers into the array, "/1/grid/0").
[[nodiscard]] inline Expected<std::vector<LaunchSpec>> parse_launch_file(std::string_view json_text,
                                                                       std::string_view file_name,
                                                                       std::string_view base_dir,
                                                                       Diags* all_problems = nullptr) {
  const std::string file(file_name);
  auto doc = detail::parse_spec_json(json_text, file);
  if (!doc) return unexpected(std::move(doc).error());
  detail::SpecChecker c;
  c.file = file;
  std::vector<LaunchSpec> out;
  try {
    if (doc->is_array()) {
      if (doc->empty()) c.problem("", "expected at least one launch spec in the array", &*doc);
      for (std::size_t i = 0; i < doc->size(); ++i)
        out.push_back(detail::check_spec(c, (*doc)[i], "/" + std::to_string(i), std::string(base_dir)));
    } else {
      out.push_back(detail::check_spec(c, *doc, "", std::string(base_dir)));
    }
  } catch (const std::exception& e) {
    return fail(DiagCode::internal, std::string("launch file: unexpected JSON error: ") + e.what(), Loc{file});
  }
  if (!c.problems.empty()) return detail::gathered(std::move(c.problems), all_problems, "launch file");
  return out;
}

/// Reads and parses a launch spec file; relative file inits resolve against the file's folder.
[[nodiscard]] inline Expected<LaunchSpec> read_launch_spec(const std::filesystem::path& p,
                                                           Diags* all_problems = nullptr) {
  auto text = read_file(p);
  if (!text) return unexpected(std::move(text).error());
  std::error_code ec;
  auto abs = std::filesystem::absolute(p, ec);
  const auto dir = (ec ? p : abs).parent_path();
  return parse_launch_spec(*text, p.string(), dir.string(), all_problems);
}

/// Reads a launch file (one spec or an array of specs); relative file inits resolve against the file's folder.
[[nodiscard]] inline Expected<std::vector<LaunchSpec>> read_launch_file(const std::filesystem::path& p,
                                                                      Diags* all_problems = nullptr) {
  auto text = read_file(p);
  if (!text) return unexpected(std::move(text).error());
  std::error_code ec;
  auto abs = std::filesystem::absolute(p, ec);
  const auto dir = (ec ? p : abs).parent_path();
  return parse_launch_file(*text, p.string(), dir.string(), all_problems);
}

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

/// Bit layout of a float dtype: the fields of the encodings special_bits() builds.
struct FloatLayout {
  unsigned width, exp_bits, frac_bits;
  enum Flavor : std::uint8_t {
    ieee,  ///< IEEE 754 interchange layout: bias 2^(e-1)-1, all-ones exponent = inf (fraction 0) or NaN
    fnuz,  ///< "finite, NaN = unsigned zero": bias 2^(e-1), no inf, no -0; the -0 code 0x80 is the only NaN
    fn,    ///< "finite, NaN": bias 2^(e-1)-1, no inf; S.1111.111 is NaN (OCP E4M3)
  } flavor;
};

// IEEE 754-2019 §3.6 table 3.5 (binary64/32/16); bfloat16 is binary32's sign and exponent with 7 fraction bits.
// fp8: OCP "8-bit Floating Point Specification (OFP8)" rev 1.0, its E4M3/E5M2 encoding table: E5M2 is IEEE-like
// (bias 15, inf S.11111.00, NaN S.11111.{01,10,11}); E4M3 has bias 7, no infinities, NaN S.1111.111 only, and
// max S.1111.110 = 448.
// fnuz: Noune et al., "8-bit Numerical Formats for Deep Neural Networks" (arXiv 2206.02915), as LLVM APFloat's
// Float8E4M3FNUZ / Float8E5M2FNUZ (llvm/include/llvm/ADT/APFloat.h: "bias 8 / 16", "no infinity, no negative
// zero, NaN = 0x80") and AMD's CDNA3 FP8/BF8 (MI300 ISA §7.2), which emu/fp.hpp's fp8_format agrees with.
[[nodiscard]] constexpr FloatLayout float_layout(DType t) {
  switch (t) {
    case DType::f64: return {64, 11, 52, FloatLayout::ieee};
    case DType::f32: return {32, 8, 23, FloatLayout::ieee};
    case DType::f16: return {16, 5, 10, FloatLayout::ieee};
    case DType::bf16: return {16, 8, 7, FloatLayout::ieee};
    case DType::fp8e4m3fnuz: return {8, 4, 3, FloatLayout::fnuz};
    case DType::fp8e5m2fnuz: return {8, 5, 2, FloatLayout::fnuz};
    case DType::fp8e4m3: return {8, 4, 3, FloatLayout::fn};
    default: return {8, 5, 2, FloatLayout::ieee};  // fp8e5m2
  }
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
