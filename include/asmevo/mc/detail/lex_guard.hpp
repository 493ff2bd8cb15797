// Finds the tokens LLVM's assembly lexer rejects, so they can be reported and blanked before the AMDGPU parser sees them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCParser/AsmLexer.h>

#include "asmevo/support/diag.hpp"

namespace asmevo::mc::detail {

/// Why this exists: LLVM 22's AMDGPUAsmParser::ParseInstruction recovers from a bad operand with
/// `while (!trySkipToken(AsmToken::EndOfStatement)) lex();`, which spins forever once the lexer is
/// at Eof. A statement is normally closed by EndOfStatement, but AsmToken::Error tokens break that:
/// an unterminated string swallows the rest of the input, and two invalid characters in the last
/// statement (`s_nop 0 ``` then EOF, or `xé`) leave no EndOfStatement either. `llvm-mc-22` hangs on
/// such files too. The lexer is context-free, so one pass of llvm::AsmLexer (configured from the
/// same MCAsmInfo as the parser's) finds exactly the Error tokens the parser would meet; the caller
/// reports them with the lexer's own message and hands LLVM a copy where those tokens are blank.
struct LexError {
  std::size_t begin = 0;  ///< byte offset of the bad token in the text
  std::size_t end = 0;    ///< byte offset just past it (the end of the text for an unterminated string or comment)
  std::string message;    ///< AsmLexer's message, e.g. "invalid character in input"
};

/// `text` must be followed by a readable byte (LLVM's MemoryBuffers are NUL-terminated): AsmLexer peeks one past.
[[nodiscard]] inline std::vector<LexError> find_lex_errors(const llvm::MCAsmInfo& mai, std::string_view text) {
  std::vector<LexError> errors;
  llvm::AsmLexer lexer(mai);
  lexer.setBuffer(llvm::StringRef(text.data(), text.size()));
  for (std::size_t guard = 0; guard <= text.size() + 1; ++guard) {  // every token consumes >= 1 byte or ends
    const llvm::AsmToken& tok = lexer.Lex();
    if (tok.is(llvm::AsmToken::Eof)) break;
    if (!tok.is(llvm::AsmToken::Error)) continue;
    const char* const base = text.data();
    const char* const err_at = lexer.getErrLoc().isValid() ? lexer.getErrLoc().getPointer() : tok.getString().begin();
    const auto begin = static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(err_at - base, 0, std::ptrdiff_t(text.size())));
    const auto end = static_cast<std::size_t>(
        std::clamp<std::ptrdiff_t>(tok.getString().end() - base, std::ptrdiff_t(begin), std::ptrdiff_t(text.size())));
    errors.push_back(LexError{begin, end, lexer.getErr()});
  }
  return errors;
}

/// Turns lexer errors into Diags (file:line:col, the source line) and blanks, in `text`, the bytes of
/// every bad token (spaces; newlines stay, so no line or column moves). Only the token is blanked,
/// not its line: a string that spans lines must keep its closing quote, or blanking would create an
/// unterminated string. `text` is the caller's writable copy of the input (LLVM's MemoryBuffer).
[[nodiscard]] inline Diags report_and_blank(std::span<char> text, const std::vector<LexError>& errors,
                                            std::string_view file_name, DiagCode code) {
  Diags diags;
  if (errors.empty()) return diags;
  std::vector<std::size_t> line_starts{0};  // only built on this (rare) path
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts.push_back(i + 1);
  const auto line_index = [&](std::size_t pos) {
    return static_cast<std::size_t>(std::upper_bound(line_starts.begin(), line_starts.end(), pos) - line_starts.begin()) - 1;
  };
  const auto line_end = [&](std::size_t idx) {
    return idx + 1 < line_starts.size() ? line_starts[idx + 1] - 1 : text.size();
  };
  // Report first, from the text as it is, then blank.
  for (const LexError& e : errors) {
    const std::size_t li = line_index(e.begin);
    std::string line_text(text.data() + line_starts[li], line_end(li) - line_starts[li]);
    while (!line_text.empty() && (line_text.back() == '\r' || line_text.back() == '\0')) line_text.pop_back();
    diags.push_back(make_diag(code, e.message,
                              Loc{std::string(file_name), static_cast<std::uint32_t>(li + 1),
                                  static_cast<std::uint32_t>(e.begin - line_starts[li] + 1), {}},
                              std::move(line_text)));
  }
  for (const LexError& e : errors)
    for (std::size_t i = e.begin; i < std::max(e.end, e.begin + 1) && i < text.size(); ++i)
      if (text[i] != '\n') text[i] = ' ';
  return diags;
}

/// Lexes and blanks until the lexer finds nothing more (blanking a token can change how the text
/// around it lexes). Each round blanks at least one byte that was not blank, so this ends; the
/// round limit only bounds pathological inputs, after which the whole text is blanked.
[[nodiscard]] inline Diags neutralize_lex_errors(const llvm::MCAsmInfo& mai, std::span<char> text,
                                                 std::string_view file_name, DiagCode code) {
  Diags all;
  for (int round = 0; round < 16; ++round) {
    const std::vector<LexError> errors = find_lex_errors(mai, std::string_view(text.data(), text.size()));
    if (errors.empty()) return all;
    Diags d = report_and_blank(text, errors, file_name, code);
    all.insert(all.end(), std::make_move_iterator(d.begin()), std::make_move_iterator(d.end()));
  }
  for (char& c : text)  // still erroring: give LLVM an empty text rather than risk its error paths
    if (c != '\n') c = ' ';
  return all;
}

}  // namespace asmevo::mc::detail
