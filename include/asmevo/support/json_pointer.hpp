// JSON Pointer (RFC 6901) helpers for diagnostics that name a field: `/args/3/buffer/dtype`.
#pragma once

#include <string>
#include <string_view>

namespace asmevo {

/// One reference token, escaped as RFC 6901 requires ("~" -> "~0", "/" -> "~1").
[[nodiscard]] inline std::string pointer_token(std::string_view key) {
  std::string s;
  for (char c : key) {
    if (c == '~') s += "~0";
    else if (c == '/') s += "~1";
    else s += c;
  }
  return s;
}

}  // namespace asmevo
