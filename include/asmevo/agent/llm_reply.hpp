// Reading a model's reply as untrusted input: the one JSON value it holds (its ```json block, else its first balanced
// object that parses), with errors that say what was found and where (line and column of the reply). Not here:
// checking that value as an edit script (agent/edit_script.hpp) and talking to the server (agent/llm_client.hpp).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/detail/llm_util.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::agent {

// ---- reading the reply -------------------------------------------------------------------------------------------

namespace detail::llm {

/// A fenced block of a reply: its info string (lower case), its text and where that text starts.
struct Fence {
  std::string info;
  std::size_t begin = 0, end = 0;  ///< byte range of the content in the reply
  std::uint32_t line = 0;          ///< of the opening fence
  bool closed = false;
};

[[nodiscard]] inline std::vector<Fence> fences(std::string_view text) {
  std::vector<Fence> out;
  std::optional<Fence> open;
  std::uint32_t line = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    ++line;
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, eol - pos);
    const std::size_t next = eol < text.size() ? eol + 1 : eol;
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t' || l.back() == '\r')) l.remove_suffix(1);
    if (l.starts_with("```")) {
      std::string_view rest = l;
      while (!rest.empty() && rest.front() == '`') rest.remove_prefix(1);
      if (open && rest.empty()) {
        open->end = pos;
        open->closed = true;
        out.push_back(std::move(*open));
        open.reset();
      } else if (!open) {
        Fence f;
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        for (char c : rest.substr(0, rest.find(' ')))
          f.info += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        f.begin = next;
        f.line = line;
        open = std::move(f);
      }
    }
    pos = next;
  }
  if (open) {
    open->end = text.size();
    out.push_back(std::move(*open));
  }
  return out;
}

/// Parses `text[begin, end)` as JSON (comments allowed); an error names line and column in `text`.
[[nodiscard]] inline Expected<nlohmann::json> parse_at(std::string_view text, std::size_t begin, std::size_t end,
                                                       const std::string& what) {
  const std::string_view json = text.substr(begin, end - begin);
  auto bad = [&](std::size_t byte, std::string why, std::string hint) -> Expected<nlohmann::json> {
    const auto [line, col] = line_col(text, begin + (byte > 0 ? byte - 1 : 0));
    if (const auto k = why.find("syntax error"); k != std::string::npos) why = why.substr(k);
    else if (const auto c = why.find("] "); c != std::string::npos) why = why.substr(c + 2);
    return fail(DiagCode::parse_error,
                what + " is not valid JSON: line " + std::to_string(line) + ", column " + std::to_string(col) +
                    " of your reply: " + printable(why),
                Loc{"", line, col, std::nullopt}, {}, std::move(hint));
  };
  try {
    return nlohmann::json::parse(json, nullptr, true, true);
  } catch (const nlohmann::json::parse_error& e) {
    return bad(e.byte, e.what(), "send plain JSON: commas between members, keys in double quotes, no trailing commas");
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double's range ("1e999": out_of_range.406), which carries no position: a SAX pass over the
    // same text stops at the same place and says where.
    struct ErrorAt : nlohmann::detail::json_sax_acceptor<nlohmann::json> {
      std::size_t at = 0;
      bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception&) {
        at = pos;
        return false;
      }
    } sax;
    (void)nlohmann::json::sax_parse(json, &sax, nlohmann::json::input_format_t::json, true, true);
    return bad(sax.at, e.what(), "write numbers a double can hold (at most about 1.8e308 in magnitude)");
  }
}

}  // namespace detail::llm

/// The one JSON value of a model's reply: the content of its ```json fenced block (or of its one fenced block without
/// a language when there is no ```json block), else the first balanced {...} of the text (braces inside JSON strings
/// do not count) that parses. Errors say what was found: no JSON at all, several blocks, an unclosed block, an
/// unbalanced brace, a syntax error with its line and column in the reply.
[[nodiscard]] inline Expected<nlohmann::json> extract_json(std::string_view reply) {
  const auto all = detail::llm::fences(reply);
  std::vector<const detail::llm::Fence*> json_blocks, plain_blocks;
  for (const auto& f : all) {
    if (f.info == "json" || f.info == "jsonc") json_blocks.push_back(&f);
    else if (f.info.empty()) plain_blocks.push_back(&f);
  }
  const auto& blocks = json_blocks.empty() ? plain_blocks : json_blocks;
  const std::string kind = json_blocks.empty() ? "```" : "```json";
  if (blocks.size() > 1) {
    std::string lines;
    for (const auto* b : blocks) lines += (lines.empty() ? "" : ", ") + std::to_string(b->line);
    return fail(DiagCode::parse_error,
                "found " + std::to_string(blocks.size()) + " " + kind + " blocks (at lines " + lines +
                    "); expected exactly one, holding the whole edit script",
                Loc{"", blocks[1]->line, 1, std::nullopt});
  }
  if (blocks.size() == 1) {
    const auto& b = *blocks[0];
    if (!b.closed)
      return fail(DiagCode::parse_error,
                  "the " + kind + " block opened at line " + std::to_string(b.line) +
                      " is never closed with ``` (a reply cut off at max_tokens looks like this)",
                  Loc{"", b.line, 1, std::nullopt}, {}, "send a shorter script");
    bool blank = true;
    for (std::size_t k = b.begin; k < b.end && blank; ++k) blank = std::isspace(static_cast<unsigned char>(reply[k]));
    if (blank)
      return fail(DiagCode::parse_error, "the " + kind + " block at line " + std::to_string(b.line) + " is empty",
                  Loc{"", b.line, 1, std::nullopt});
    return detail::llm::parse_at(reply, b.begin, b.end, "the " + kind + " block at line " + std::to_string(b.line));
  }
  // No block: balanced {...} candidates, outside JSON strings, the first that parses.
  std::optional<Expected<nlohmann::json>> first_error;
  constexpr int max_candidates = 16;
  int candidates = 0;
  for (std::size_t start = reply.find('{'); start != std::string_view::npos && candidates < max_candidates;
       start = reply.find('{', start + 1)) {
    int depth = 0;
    bool in_string = false, escape = false;
    std::size_t end = std::string_view::npos;
    for (std::size_t k = start; k < reply.size(); ++k) {
      const char c = reply[k];
      if (in_string) {
        if (escape) escape = false;
        else if (c == '\\') escape = true;
        else if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}' && --depth == 0) {
        end = k + 1;
        break;
      }
    }
    if (end == std::string_view::npos) {
      if (first_error) break;
      const auto [line, col] = detail::llm::line_col(reply, start);
      return fail(DiagCode::parse_error,
                  "unbalanced braces: the '{' at line " + std::to_string(line) + ", column " + std::to_string(col) +
                      " of your reply is never closed" + (in_string ? " (a string in it is never closed either)" : ""),
                  Loc{"", line, col, std::nullopt}, {}, "send the whole script in one ```json block");
    }
    ++candidates;
    const auto [line, col] = detail::llm::line_col(reply, start);
    auto j = detail::llm::parse_at(reply, start, end,
                              "the object at line " + std::to_string(line) + ", column " + std::to_string(col));
    if (j) return j;
    if (!first_error) first_error = std::move(j);
  }
  if (first_error) return std::move(*first_error);
  return fail(DiagCode::parse_error,
              all.empty() ? "no JSON found in your reply" : "no JSON found in your reply (only fenced blocks of "
                                                            "other languages, such as ```" + all[0].info + ")",
              {}, {}, "answer with one ```json fenced block holding the edit script");
}

}  // namespace asmevo::agent
