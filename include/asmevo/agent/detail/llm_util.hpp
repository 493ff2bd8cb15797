// Small text helpers of the LLM client, prompt and proposer (agent/llm_client.hpp, agent/llm_prompt.hpp,
// agent/llm.hpp): a deterministic hash for jitter, one-line clipping, line:column of an offset, a token estimate, a
// JSON dump that never throws. Nothing that talks to a server or builds a prompt.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace asmevo::agent {

namespace detail::llm {

[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// `s` on one line (line breaks become spaces) and at most `n` bytes, cut at a UTF-8 character boundary, with "..."
/// when cut.
[[nodiscard]] inline std::string clip(std::string_view s, std::size_t n) {
  std::string out;
  out.reserve(std::min(s.size(), n) + 3);
  for (char c : s) out += c == '\n' || c == '\r' ? ' ' : c;
  if (out.size() <= n) return out;
  std::size_t cut = n;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  out.resize(cut);
  return out + "...";
}

/// 1-based line and column of byte `offset` of `text`.
[[nodiscard]] inline std::pair<std::uint32_t, std::uint32_t> line_col(std::string_view text, std::size_t offset) {
  std::uint32_t line = 1, col = 1;
  for (std::size_t k = 0; k < offset && k < text.size(); ++k) {
    if (text[k] == '\n') ++line, col = 1;
    else ++col;
  }
  return {line, col};
}

/// Tokens of `chars` characters of text, at the usual ~4 characters a token of English and code.
[[nodiscard]] constexpr std::uint64_t estimate_tokens(std::size_t chars) noexcept { return (chars + 3) / 4; }

/// JSON text of `j`, invalid UTF-8 replaced (a dump never throws).
[[nodiscard]] inline std::string dump(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace detail::llm

}  // namespace asmevo::agent
