// Shared pieces of the asmevo CLI's verbs: argument parsing, error reporting, JSON text helpers, tables.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/support/diag.hpp"

namespace asmevo::cli {

inline constexpr int exit_ok = 0, exit_negative = 1, exit_bad_input = 2, exit_internal = 3;

/// Parsed command line: positional arguments plus `--flag value` / `--flag` options.
struct Args {
  std::vector<std::string> pos;
  std::map<std::string, std::string> opt;                 ///< last value of each option
  std::map<std::string, std::vector<std::string>> multi;  ///< every value of each option, in order
  std::vector<std::string> errors;
};

inline Args parse_args(int argc, char** argv, std::initializer_list<std::string_view> with_value,
                std::initializer_list<std::string_view> flags) {
  Args a;
  for (int i = 2; i < argc; ++i) {
    std::string_view s = argv[i];
    if (s.size() > 1 && s[0] == '-' && !(s.size() > 1 && std::isxdigit(static_cast<unsigned char>(s[1])) && s[1] != '-')) {
      std::string key(s);
      std::string val;
      bool has_eq = false;
      if (auto eq = key.find('='); eq != std::string::npos) {
        val = key.substr(eq + 1);
        key = key.substr(0, eq);
        has_eq = true;
      }
      bool takes = false, known = false;
      for (auto w : with_value) takes = takes || key == w, known = known || key == w;
      for (auto f : flags) known = known || key == f;
      if (!known) { a.errors.push_back("unknown option '" + key + "'"); continue; }
      if (takes && val.empty()) {
        if (has_eq || i + 1 >= argc) { a.errors.push_back("option '" + key + "' needs a value"); continue; }
        val = argv[++i];
      }
      a.opt[key] = takes ? val : "1";
      if (takes) a.multi[key].push_back(val);
    } else {
      a.pos.emplace_back(s);
    }
  }
  return a;
}

inline int usage_error(std::string_view msg) {
  std::cerr << "asmevo: " << msg << "\n(see 'asmevo help')\n";
  return exit_bad_input;
}

inline int report(const Diag& d) {
  std::cerr << d.str() << "\n";
  return d.code == DiagCode::internal ? exit_internal : exit_bad_input;
}

/// The value of option `key` as an integer in [lo, hi] (`dflt` when absent); a usage error (rc set) otherwise.
inline std::optional<std::uint64_t> number_opt(const Args& a, const char* key, std::uint64_t dflt, std::uint64_t lo,
                                        std::uint64_t hi, int& rc) {
  auto it = a.opt.find(key);
  if (it == a.opt.end()) return dflt;
  try {
    std::size_t used = 0;
    const auto v = std::stoull(it->second, &used, 0);
    if (used == it->second.size() && it->second[0] != '-' && v >= lo && v <= hi) return v;
  } catch (...) {
  }
  rc = usage_error(std::string(key) + " takes an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                   "]; got '" + it->second + "'");
  return std::nullopt;
}

inline std::string json_escape(std::string_view s) {
  std::string r;
  for (char c : s) {
    switch (c) {
      case '"': r += "\\\""; break;
      case '\\': r += "\\\\"; break;
      case '\n': r += "\\n"; break;
      case '\t': r += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          r += buf;
        } else {
          r += c;
        }
    }
  }
  return r;
}

/// Rows as a table: every column but the last padded to its widest cell, columns two spaces apart.
inline void print_table(std::ostream& os, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows) {
    width.resize(std::max(width.size(), r.size()));
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) line += c + 1 < r.size() ? r[c] + std::string(width[c] + 2 - r[c].size(), ' ') : r[c];
    line.erase(line.find_last_not_of(' ') + 1);  // an empty last cell leaves no padding behind
    os << line << "\n";
  }
}

/// Bytes as a JSON array of numbers.
inline std::string json_bytes(const std::vector<std::uint8_t>& b) {
  std::string s;
  for (std::size_t i = 0; i < b.size(); ++i) s += (i ? "," : "") + std::to_string(b[i]);
  return s;
}

}  // namespace asmevo::cli
