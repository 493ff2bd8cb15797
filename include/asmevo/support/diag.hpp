// Diag and Expected<T>: the one error type of asmevo's public API (no exceptions cross it).
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace asmevo {

/// What kind of problem a Diag reports. Stable: tools map codes to exit statuses.
enum class DiagCode : std::uint8_t {
  parse_error,       ///< text could not be read (syntax)
  unknown_mnemonic,  ///< no instruction of that name on the target
  unsupported,       ///< valid elsewhere, but not on this target / not implemented
  invalid_operand,   ///< operand has the wrong register file, width, alignment or range
  encode_error,      ///< LLVM MC refused or failed to encode
  decode_error,      ///< bytes are not a valid instruction for the target
  io_error,          ///< a file could not be read or written
  usage,             ///< bad command-line or API usage
  object_error,      ///< a code object (ELF, note, descriptor, metadata) is malformed or of an unsupported kind
  abi_error,         ///< an edit would change the host-visible ABI of a kernel (names, kernargs, launch attributes)
  internal,          ///< a broken invariant surfaced as a value
};

[[nodiscard]] constexpr std::string_view to_string(DiagCode c) noexcept {
  switch (c) {
    case DiagCode::parse_error: return "parse error";
    case DiagCode::unknown_mnemonic: return "unknown mnemonic";
    case DiagCode::unsupported: return "unsupported";
    case DiagCode::invalid_operand: return "invalid operand";
    case DiagCode::encode_error: return "encode error";
    case DiagCode::decode_error: return "decode error";
    case DiagCode::io_error: return "I/O error";
    case DiagCode::usage: return "usage";
    case DiagCode::object_error: return "code object error";
    case DiagCode::abi_error: return "ABI change";
    case DiagCode::internal: return "internal error";
  }
  return "error";
}

/// Where a problem is: any of file, 1-based line and column, and a stable instruction id.
struct Loc {
  std::string file;
  std::uint32_t line = 0;  ///< 1-based; 0 = unknown
  std::uint32_t col = 0;   ///< 1-based; 0 = unknown
  std::optional<std::uint32_t> inst_id;
};

/// `t` as one terminal-safe line: control and non-ASCII bytes as \xNN, cut after 200 characters.
[[nodiscard]] inline std::string printable(std::string_view t) {
  std::string r;
  constexpr std::size_t max = 200;
  for (std::size_t i = 0; i < t.size() && r.size() < max; ++i) {
    const auto c = static_cast<unsigned char>(t[i]);
    if (c == '\t' || (c >= 0x20 && c < 0x7f)) {
      r += static_cast<char>(c);
    } else {
      constexpr char hex[] = "0123456789abcdef";
      r += "\\x";
      r += hex[c >> 4];
      r += hex[c & 15];
    }
  }
  if (r.size() >= max) r += "...";
  return r;
}

/// One problem: a code, a location, the offending text, a message in the user's terms, a hint.
struct Diag {
  DiagCode code = DiagCode::internal;
  Loc loc;
  std::string text;     ///< the offending source text (a line, a token, a JSON value)
  std::string message;  ///< what is wrong
  std::string hint;     ///< what would be accepted, when known

  /// "file:line:col: error: message [i42]\n  text\n  hint: ..."
  [[nodiscard]] std::string str() const {
    std::string s;
    if (!loc.file.empty()) s += loc.file + ":";
    if (loc.line) {
      s += std::to_string(loc.line) + ":";
      if (loc.col) s += std::to_string(loc.col) + ":";
    }
    if (!s.empty()) s += " ";
    s += "error: ";
    s += message;
    if (loc.inst_id) s += " [i" + std::to_string(*loc.inst_id) + "]";
    if (!text.empty()) s += "\n  " + printable(text);
    if (!hint.empty()) s += "\n  hint: " + hint;
    return s;
  }
};

/// The single place errors are created: set a breakpoint here to catch every Diag.
[[nodiscard]] inline Diag make_diag(DiagCode code, std::string message, Loc loc = {}, std::string text = {},
                                    std::string hint = {}) {
  return Diag{code, std::move(loc), std::move(text), std::move(message), std::move(hint)};
}

/// Tag type for constructing an Expected in its error state.
struct Unexpected {
  Diag diag;
};
[[nodiscard]] inline Unexpected unexpected(Diag d) { return Unexpected{std::move(d)}; }
[[nodiscard]] inline Unexpected fail(DiagCode code, std::string message, Loc loc = {}, std::string text = {},
                                     std::string hint = {}) {
  return Unexpected{make_diag(code, std::move(message), std::move(loc), std::move(text), std::move(hint))};
}

/// A value or a Diag. Accessing the wrong alternative is a broken invariant (asserts in debug builds).
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T v) : v_(std::in_place_index<0>, std::move(v)) {}  // NOLINT: implicit by design
  Expected(Unexpected u) : v_(std::in_place_index<1>, std::move(u.diag)) {}  // NOLINT

  [[nodiscard]] bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  // Reading the value of an error is a broken invariant: it asserts (and is undefined without assertions);
  // nothing is thrown across the API.
  T& value() & { assert(has_value()); return *std::get_if<0>(&v_); }
  const T& value() const& { assert(has_value()); return *std::get_if<0>(&v_); }
  T&& value() && { assert(has_value()); return std::move(*std::get_if<0>(&v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Diag& error() const& { assert(!has_value()); return *std::get_if<1>(&v_); }
  Diag&& error() && { assert(!has_value()); return std::move(*std::get_if<1>(&v_)); }

 private:
  std::variant<T, Diag> v_;
};

/// Expected<void>: success or a Diag.
template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Unexpected u) : d_(std::move(u.diag)) {}  // NOLINT
  [[nodiscard]] bool has_value() const noexcept { return !d_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }
  const Diag& error() const& { return *d_; }
  Diag&& error() && { return std::move(*d_); }

 private:
  std::optional<Diag> d_;
};

/// Several problems gathered in one pass (validators report all at once).
using Diags = std::vector<Diag>;

}  // namespace asmevo
