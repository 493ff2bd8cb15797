// Reading a launch spec (DESIGN.md "Launch spec (JSON)") from JSON text or a file, checked with every problem
// reported at once, each at its JSON Pointer. Not here: the spec's data types (launch/spec_types.hpp, launch/dtype.hpp)
// and the bytes a buffer init describes (launch/buffer_init.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/launch/detail/problems.hpp"
#include "asmevo/launch/dtype.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/file.hpp"
#include "asmevo/support/json_pointer.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::verify {

namespace detail {

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

namespace detail {
/// The folder relative file inits of the launch file `p` resolve against: its own (absolute where it can be made so).
[[nodiscard]] inline std::string launch_file_folder(const std::filesystem::path& p) {
  std::error_code ec;
  const auto abs = std::filesystem::absolute(p, ec);
  return (ec ? p : abs).parent_path().string();
}
}  // namespace detail

/// Reads and parses a launch spec file; relative file inits resolve against the file's folder.
[[nodiscard]] inline Expected<LaunchSpec> read_launch_spec(const std::filesystem::path& p,
                                                           Diags* all_problems = nullptr) {
  auto text = read_file(p);
  if (!text) return unexpected(std::move(text).error());
  return parse_launch_spec(*text, p.string(), detail::launch_file_folder(p), all_problems);
}

/// Reads a launch file (one spec or an array of specs); relative file inits resolve against the file's folder.
[[nodiscard]] inline Expected<std::vector<LaunchSpec>> read_launch_file(const std::filesystem::path& p,
                                                                      Diags* all_problems = nullptr) {
  auto text = read_file(p);
  if (!text) return unexpected(std::move(text).error());
  return parse_launch_file(*text, p.string(), detail::launch_file_folder(p), all_problems);
}

}  // namespace asmevo::verify
