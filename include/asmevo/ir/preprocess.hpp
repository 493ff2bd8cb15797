// Assembly preprocessor: expands .include, .macro, .rept/.irp/.irpc, conditionals and .set/.equ/= symbols
// as LLVM's AsmParser does, so that every output line is a plain instruction, label or directive.
//
// The semantics follow LLVM 22's `llvm/lib/MC/MCParser/AsmParser.cpp` (checked against llvm-mc-22 where
// noted), which follows GNU as:
//  - Expressions use GNU precedence (AsmParser getGNUBinopPrecedence): `||` < `&&` < comparisons < `+ -`
//    < `| ^ &` < `* / % << >>`, all left-associative; a comparison is -1 when true, `&&`/`||`/`!` give 1;
//    `>>` is a logical shift on AMDGPU (AMDGPUMCAsmInfo uses logical shr): `-8 >> 1` is 2^63 - 4.
//  - A `.set` value is folded to a constant when it is absolute (AsmParser::parseExpression), and a
//    constant symbol is inlined where it is used (parsePrimaryExpr), so `_v = _v + 1` in a .rept counts.
//  - Macro names are case-sensitive, directive names are not. `\@` is the number of macro
//    instantiations before this one (not replaced in .rept bodies; replaced, not counted, in .irp).
//  - Macro arguments are separated by commas or by blanks not next to an operator (`a +1` is one
//    argument, `a 1` two); quotes around a non-vararg argument are dropped.
// Constant symbols are substituted into instruction operands and value directives: a whole constant
// expression that names one is folded to a decimal (`v[v_a+1]` -> `v[13]`), any other use of one is
// replaced by its value. Labels and symbols without a constant value stay symbolic.
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "asmevo/ir/detail/line_parser.hpp"
#include "asmevo/ir/reg.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/file.hpp"

namespace asmevo {

/// One step of the chain that produced a line: an `.include`, a macro invocation or a loop directive.
struct ExpansionSite {
  enum class Kind : std::uint8_t { include, macro, rept, irp, irpc };
  Kind kind = Kind::macro;
  std::string name;        ///< the macro name, or the included file as written
  std::string file;        ///< where the directive or invocation is
  std::uint32_t line = 0;  ///< 1-based
};

/// Where an output line came from: the file and line its text was written at (for a macro body line,
/// the line inside the `.macro` definition), and the chain of expansions that brought it out.
struct LineOrigin {
  std::string file;
  std::uint32_t line = 0;               ///< 1-based
  std::vector<ExpansionSite> chain;     ///< outermost first; empty for a line of the main file

  /// "utils.inc:45, in macro '.v_clear_nc' at k.s:300"
  [[nodiscard]] std::string str() const {
    std::string s = file + ":" + std::to_string(line);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      switch (it->kind) {
        case ExpansionSite::Kind::include: s += ", included from "; break;
        case ExpansionSite::Kind::macro: s += ", in macro '" + it->name + "' at "; break;
        case ExpansionSite::Kind::rept: s += ", in .rept at "; break;
        case ExpansionSite::Kind::irp: s += ", in .irp at "; break;
        case ExpansionSite::Kind::irpc: s += ", in .irpc at "; break;
      }
      s += it->file + ":" + std::to_string(it->line);
    }
    return s;
  }
};

/// One line of preprocessed text (no newline).
struct PreprocessedLine {
  std::string text;
  LineOrigin origin;
};

/// The expanded program: instructions, labels and the directives that are not the preprocessor's.
struct Preprocessed {
  std::vector<PreprocessedLine> lines;
  std::map<std::string, std::int64_t, std::less<>> symbols;  ///< final value of every constant symbol

  /// The lines joined with '\n' (and a final '\n'): input for parse_program_all or LLVM MC.
  [[nodiscard]] std::string text() const {
    std::string s;
    for (const auto& l : lines) {
      s += l.text;
      s += '\n';
    }
    return s;
  }
};

/// Reads a file named by a path; fails when it does not exist or cannot be read.
using FileReader = std::function<Expected<std::string>(const std::string& path)>;

/// What preprocess() needs besides the text.
struct PreprocessOptions {
  std::string file = "<input>";            ///< name of the text, for origins and diagnostics
  std::vector<std::string> include_dirs;   ///< `-I` folders, searched in order after the name as written
  FileReader read_file;                    ///< empty: read from the file system
  /// Symbols defined before the first line, like `llvm-mc --defsym name=value`.
  std::vector<std::pair<std::string, std::int64_t>> defines;
  /// Emit `.set name, value` where a constant symbol is (re)defined. Off by default: every use has been
  /// substituted, so the definitions carry no information the output still needs.
  bool keep_definitions = false;
  /// Macro and loop instantiations active at once; LLVM's `-asm-macro-max-nesting-depth` default.
  std::uint32_t max_nesting = 20;
  std::uint32_t max_include_depth = 64;
  /// Statements processed over all expansions; bounds `.rept` counts and runaway recursion.
  std::uint64_t max_lines = 10'000'000;
  /// Bytes of those statements, summed: bounds a recursive macro whose argument grows with every level
  /// (`.macro m n` / `m \n-1 \n` doubles it), which stays within max_nesting and max_lines yet would process
  /// 2^20 times the text.
  std::uint64_t max_bytes = 64ull << 20;  // 64 MiB: over 100 times the largest corpus kernel expanded
};

/// An expansion plus every problem found; the expansion holds what could be expanded.
struct PreprocessResult {
  Preprocessed out;
  Diags diags;
};

namespace detail::pp {

inline bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }
inline bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '@';
}
/// AsmParser.cpp's isIdentifierChar, which delimits `\name` in a macro body (no '@').
inline bool macro_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

/// Register names are never symbols in an operand (LLVM's AMDGPU parser tries registers first).
inline bool is_register_name(std::string_view id) {
  const std::string l = lower(id);
  if (special_by_name(l)) return true;
  for (std::string_view p : {"ttmp", "acc", "v", "s", "a"}) {
    if (l.size() > p.size() && l.compare(0, p.size(), p) == 0 &&
        std::all_of(l.begin() + static_cast<std::ptrdiff_t>(p.size()), l.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
      return true;
  }
  return false;
}

/// One token of an expression or operand text.
struct Tok {
  enum Kind : std::uint8_t { num, ident, op, lparen, rparen, punct, other };
  Kind kind = other;
  std::size_t pos = 0, len = 0;
  std::int64_t value = 0;  ///< for num
  bool space_before = false;
};

/// Splits `s` into tokens. Numbers are LLVM's integer forms (decimal, 0x, 0b, leading-0 octal, 'c');
/// anything else that starts with a digit (`1f`, `1.5`, `1e3`) is `other`.
inline std::vector<Tok> tokenize(std::string_view s) {
  std::vector<Tok> out;
  std::size_t i = 0;
  bool space = false;
  while (i < s.size()) {
    const char c = s[i];
    if (is_space(c)) {
      space = true;
      ++i;
      continue;
    }
    Tok t;
    t.pos = i;
    t.space_before = space;
    space = false;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      if (j < s.size() && s[j] == '.' && j + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[j + 1]))) {
        ++j;
        while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
      }
      const std::string_view w = s.substr(i, j - i);
      int base = 10;
      std::string_view digits = w;
      if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) { base = 16; digits = w.substr(2); }
      else if (w.size() > 2 && w[0] == '0' && (w[1] == 'b' || w[1] == 'B')) { base = 2; digits = w.substr(2); }
      else if (w.size() > 1 && w[0] == '0') { base = 8; digits = w.substr(1); }
      std::uint64_t v = 0;
      const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
      if (ec == std::errc{} && p == digits.data() + digits.size() && !digits.empty()) {
        t.kind = Tok::num;
        t.value = static_cast<std::int64_t>(v);
      }
      t.len = j - i;
      i = j;
    } else if (ident_start(c)) {
      std::size_t j = i + 1;
      while (j < s.size() && ident_char(s[j])) ++j;
      t.kind = Tok::ident;
      t.len = j - i;
      i = j;
    } else if (c == '\'' && i + 2 < s.size() && s[i + 2] == '\'' && s[i + 1] != '\\') {
      t.kind = Tok::num;
      t.value = static_cast<unsigned char>(s[i + 1]);
      t.len = 3;
      i += 3;
    } else if (c == '"') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, s.size());
      t.kind = Tok::other;
      t.len = j - i;
      i = j;
    } else if (c == '(' || c == ')') {
      t.kind = c == '(' ? Tok::lparen : Tok::rparen;
      t.len = 1;
      ++i;
    } else {
      static constexpr std::string_view two[] = {"||", "&&", "==", "!=", "<>", "<=", ">=", "<<", ">>"};
      t.kind = Tok::op;
      t.len = 0;
      for (std::string_view o : two)
        if (s.substr(i, 2) == o) t.len = 2;
      if (t.len == 0) {
        t.len = 1;
        if (std::string_view("+-*/%|&^~!<>").find(c) == std::string_view::npos) t.kind = Tok::punct;
      }
      i += t.len;
    }
    out.push_back(t);
  }
  return out;
}

/// GNU binary operator precedence as LLVM's AsmParser has it (getGNUBinopPrecedence); 0 = not binary.
inline int binop_prec(std::string_view op) {
  if (op == "||") return 1;
  if (op == "&&") return 2;
  if (op == "==" || op == "!=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=") return 3;
  if (op == "+" || op == "-") return 4;
  if (op == "|" || op == "^" || op == "&") return 5;
  if (op == "*" || op == "/" || op == "%" || op == "<<" || op == ">>") return 6;
  return 0;
}

/// Evaluates `l op r` in 64-bit two's complement as LLVM's MCExpr does; nullopt on division by zero.
inline std::optional<std::int64_t> apply_binop(std::string_view op, std::int64_t l, std::int64_t r) {
  const auto ul = static_cast<std::uint64_t>(l), ur = static_cast<std::uint64_t>(r);
  if (op == "||") return (l != 0 || r != 0) ? 1 : 0;
  if (op == "&&") return (l != 0 && r != 0) ? 1 : 0;
  // Comparisons yield -1 for true (llvm-mc-22: `.set t, 1 <> 2` gives -1).
  if (op == "==") return l == r ? -1 : 0;
  if (op == "!=" || op == "<>") return l != r ? -1 : 0;
  if (op == "<") return l < r ? -1 : 0;
  if (op == "<=") return l <= r ? -1 : 0;
  if (op == ">") return l > r ? -1 : 0;
  if (op == ">=") return l >= r ? -1 : 0;
  if (op == "+") return static_cast<std::int64_t>(ul + ur);
  if (op == "-") return static_cast<std::int64_t>(ul - ur);
  if (op == "|") return l | r;
  if (op == "^") return l ^ r;
  if (op == "&") return l & r;
  if (op == "*") return static_cast<std::int64_t>(ul * ur);
  // Shift counts wrap at 64 as on the x86 hosts LLVM runs on (llvm-mc-22: `1 << 64` gives 1).
  if (op == "<<") return static_cast<std::int64_t>(ul << (ur & 63));
  if (op == ">>") return static_cast<std::int64_t>(ul >> (ur & 63));
  if (op == "/" || op == "%") {
    if (r == 0) return std::nullopt;
    if (r == -1) return op == "/" ? static_cast<std::int64_t>(0 - ul) : 0;
    return op == "/" ? l / r : l % r;
  }
  return std::nullopt;
}

/// Precedence-climbing evaluator over tokens. `lookup(index)` gives a symbol token's constant value or
/// nullopt. In partial mode it stops before the first operator whose right side is not constant and
/// reports the longest constant prefix instead of failing.
template <class Lookup>
class ExprEval {
 public:
  ExprEval(std::string_view s, const std::vector<Tok>& t, Lookup& lookup, bool partial)
      : s_(s), t_(t), lookup_(lookup), partial_(partial) {}

  struct Result {
    bool ok = false;
    std::int64_t value = 0;
    std::size_t end = 0;        ///< one past the last token used
    bool used_symbol = false;
    std::string error;          ///< when !ok
    std::size_t error_tok = 0;
  };

  Result run(std::size_t first) {
    i_ = first;
    Result r;
    std::int64_t v = 0;
    if (binary(1, v)) {
      r.ok = true;
      r.value = v;
    } else {
      r.error = err_;
      r.error_tok = err_tok_;
    }
    r.end = i_;
    r.used_symbol = used_;
    return r;
  }

 private:
  std::string_view s_;
  const std::vector<Tok>& t_;
  Lookup& lookup_;
  bool partial_;
  std::size_t i_ = 0;
  bool used_ = false;
  std::string err_;
  std::size_t err_tok_ = 0;
  int depth_ = 0;

  std::string_view text(std::size_t k) const { return s_.substr(t_[k].pos, t_[k].len); }
  bool fail(std::string m) {
    if (err_.empty()) {
      err_ = std::move(m);
      err_tok_ = i_;
    }
    return false;
  }

  bool binary(int min_prec, std::int64_t& lhs) {
    if (++depth_ > 256) return fail("expression nested too deeply");
    const bool ok = binary_inner(min_prec, lhs);
    --depth_;
    return ok;
  }
  bool binary_inner(int min_prec, std::int64_t& lhs) {
    if (!unary(lhs)) return false;
    while (i_ < t_.size() && t_[i_].kind == Tok::op) {
      const std::string_view op = text(i_);
      const int p = binop_prec(op);
      if (p == 0 || p < min_prec) break;
      const std::size_t save = i_;
      ++i_;
      std::int64_t rhs = 0;
      if (!binary(p + 1, rhs)) {
        if (!partial_) return false;
        i_ = save;
        err_.clear();
        break;
      }
      auto v = apply_binop(op, lhs, rhs);
      if (!v) {
        i_ = save;
        return fail("division by zero");
      }
      lhs = *v;
    }
    return true;
  }

  bool unary(std::int64_t& v) {
    if (i_ >= t_.size()) return fail("expected an expression");
    const Tok& k = t_[i_];
    switch (k.kind) {
      case Tok::num:
        v = k.value;
        ++i_;
        return true;
      case Tok::ident: {
        auto r = lookup_(i_);
        if (!r) return fail("'" + std::string(text(i_)) + "' is not a constant");
        v = *r;
        used_ = true;
        ++i_;
        return true;
      }
      case Tok::lparen: {
        ++i_;
        if (!binary(1, v)) return false;
        if (i_ >= t_.size() || t_[i_].kind != Tok::rparen) return fail("expected ')'");
        ++i_;
        return true;
      }
      case Tok::op: {
        const std::string_view op = text(i_);
        if (op != "-" && op != "+" && op != "~" && op != "!") break;
        if (++depth_ > 256) return fail("expression nested too deeply");
        ++i_;
        const bool ok = unary(v);
        --depth_;
        if (!ok) return false;
        if (op == "-") v = static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(v));
        else if (op == "~") v = ~v;
        else if (op == "!") v = v == 0 ? 1 : 0;
        return true;
      }
      default: break;
    }
    return fail("unexpected '" + std::string(text(i_)) + "' in expression");
  }
};

/// Replaces `/* ... */` comments by blanks (newlines kept, so lines and columns stay), skipping
/// strings and `;` / `//` line comments. Returns false when a comment is not closed.
inline bool blank_block_comments(std::string& s, std::size_t& open_at) {
  bool in_str = false, in_line_comment = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n') {
      in_str = false;
      in_line_comment = false;
      continue;
    }
    if (in_line_comment) continue;
    if (in_str) {
      if (c == '\\') ++i;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') in_str = true;
    else if (c == ';' || (c == '/' && i + 1 < s.size() && s[i + 1] == '/')) in_line_comment = true;
    else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      if (end == std::string::npos) {
        open_at = i;
        return false;
      }
      for (std::size_t k = i; k < end + 2; ++k)
        if (s[k] != '\n') s[k] = ' ';
      i = end + 1;
    }
  }
  return true;
}

struct SrcLine {
  std::string text;
  std::uint32_t file = 0;  ///< index into the preprocessor's file-name table
  std::uint32_t line = 0;
};

struct MacroParam {
  std::string name;
  std::string value;  ///< default
  bool required = false;
  bool vararg = false;
};

struct Macro {
  std::string name;
  std::vector<MacroParam> params;
  std::vector<SrcLine> body;
};

/// Reads macro arguments the way AsmParser::parseMacroArgument does (see the file comment).
class ArgScanner {
 public:
  explicit ArgScanner(std::string_view s, std::size_t i = 0) : s_(s), i_(i) {}
  std::size_t pos() const { return i_; }
  bool eof() const { return i_ >= s_.size(); }
  char peek(std::size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  void skip_ws() {
    while (!eof() && is_space(peek())) ++i_;
  }
  void advance(std::size_t n = 1) { i_ = std::min(i_ + n, s_.size()); }
  std::string_view ident() {
    const std::size_t b = i_;
    if (!eof() && ident_start(peek())) {
      ++i_;
      while (!eof() && ident_char(peek())) ++i_;
    }
    return s_.substr(b, i_ - b);
  }
  std::string_view rest() const { return s_.substr(std::min(i_, s_.size())); }

  /// One argument. Returns false on unbalanced parentheses.
  bool read(bool vararg, std::string& out) {
    out.clear();
    if (vararg) {
      out = std::string(trim(rest()));
      i_ = s_.size();
      return true;
    }
    int level = 0;
    bool last_op = false;
    while (!eof()) {
      const char c = peek();
      if (level == 0) {
        if (c == ',') break;
        if (is_space(c)) {
          skip_ws();
          if (eof()) break;
          // A blank delimits arguments unless an operator is next to it (AsmParser isOperator).
          if (last_op || (is_op_char(peek()) && peek() != ',')) continue;
          break;
        }
      }
      if (c == '"') {
        std::size_t j = i_ + 1;
        while (j < s_.size() && s_[j] != '"') j += s_[j] == '\\' ? 2 : 1;
        out += s_.substr(i_ + 1, std::min(j, s_.size()) - i_ - 1);  // getStringContents: quotes dropped
        i_ = std::min(j + 1, s_.size());
        last_op = false;
        continue;
      }
      if (c == '(') ++level;
      else if (c == ')' && level > 0) --level;
      out += c;
      last_op = is_op_char(c);
      ++i_;
    }
    return level == 0;
  }

 private:
  static bool is_op_char(char c) { return std::string_view("+-~/*=|^&!<>").find(c) != std::string_view::npos; }
  std::string_view s_;
  std::size_t i_;
};

struct CondState {
  bool parent_active = true;
  bool active = true;
  bool taken = false;      ///< some branch of this .if has been active
  bool seen_else = false;
  SrcLine at;
};

inline const std::set<std::string, std::less<>>& value_directives() {
  // Directives whose operands are expressions LLVM evaluates (AsmParser parseDirectiveValue / Align /
  // Fill / Zero / Org); their constant symbols are substituted like an instruction's.
  static const std::set<std::string, std::less<>> s = {
      ".byte", ".short", ".hword", ".value", ".2byte", ".long", ".int", ".4byte", ".word", ".quad", ".8byte",
      ".align", ".balign", ".balignw", ".balignl", ".p2align", ".p2alignw", ".p2alignl", ".fill", ".space",
      ".skip", ".zero", ".org"};
  return s;
}

class Preprocessor {
 public:
  explicit Preprocessor(PreprocessOptions o) : o_(std::move(o)) {
    if (!o_.read_file)
      o_.read_file = [](const std::string& p) -> Expected<std::string> { return asmevo::read_file(p); };
    for (const auto& [n, v] : o_.defines) syms_[n] = Symbol{true, v, {}};
  }

  PreprocessResult run(std::string_view text) {
    Frame root;
    root.kind = ExpansionSite::Kind::include;
    root.path = o_.file;
    if (load(std::string(text), file_id(o_.file), root.lines)) push(std::move(root), std::nullopt);
    loop();
    for (const auto& [n, s] : syms_)
      if (s.constant) r_.out.symbols[n] = s.value;
    return std::move(r_);
  }

 private:
  struct Symbol {
    bool constant = false;
    std::int64_t value = 0;
    std::string expr;  ///< when not constant: the defining expression, re-evaluated at each use
  };
  struct Frame {
    ExpansionSite::Kind kind = ExpansionSite::Kind::include;
    std::vector<SrcLine> lines;
    std::size_t next = 0;
    std::uint64_t repeats_left = 0;  ///< .rept: further passes over `lines`
    std::size_t cond_depth = 0;
    std::string path;                ///< include frames: the file, for cycle detection
  };

  PreprocessOptions o_;
  PreprocessResult r_;
  std::vector<std::string> files_;
  std::vector<Frame> frames_;
  std::vector<ExpansionSite> chain_;
  std::vector<CondState> cond_;
  std::unordered_map<std::string, Symbol> syms_;
  std::unordered_set<std::string> labels_;
  std::unordered_map<std::string, Macro> macros_;
  std::uint64_t processed_ = 0;
  std::uint64_t processed_bytes_ = 0;
  std::uint64_t instantiations_ = 0;  ///< AsmParser::NumOfMacroInstantiations, the value of `\@`
  bool aborted_ = false;
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> reported_;

  // ---- bookkeeping ----------------------------------------------------------------------------
  std::uint32_t file_id(const std::string& f) {
    for (std::size_t i = 0; i < files_.size(); ++i)
      if (files_[i] == f) return static_cast<std::uint32_t>(i);
    files_.push_back(f);
    return static_cast<std::uint32_t>(files_.size() - 1);
  }

  std::string chain_hint() const {
    LineOrigin o;
    o.chain = chain_;
    std::string s = o.str();
    const auto p = s.find(", ");
    return p == std::string::npos ? std::string{} : s.substr(p + 2);
  }

  void error(const SrcLine& at, std::uint32_t col, std::string msg, std::string hint = {},
             DiagCode code = DiagCode::parse_error) {
    // One report per place: a bad line in a macro body would otherwise repeat per expansion, and a
    // bad `\name` would be reported again as a stray backslash.
    if (!reported_.insert({at.file, at.line, col}).second) return;
    if (const std::string c = chain_hint(); !c.empty()) hint = hint.empty() ? c : hint + "; " + c;
    r_.diags.push_back(make_diag(code, std::move(msg), Loc{files_[at.file], at.line, col, {}}, at.text, std::move(hint)));
  }
  static std::uint32_t col_of(const SrcLine& l, std::string_view part) {
    if (part.data() >= l.text.data() && part.data() <= l.text.data() + l.text.size())
      return static_cast<std::uint32_t>(part.data() - l.text.data()) + 1;
    return 0;
  }

  bool load(std::string text, std::uint32_t fid, std::vector<SrcLine>& out) {
    std::size_t open_at = 0;
    const bool closed = blank_block_comments(text, open_at);
    std::uint32_t no = 0;
    for (std::size_t b = 0; b <= text.size();) {
      std::size_t e = text.find('\n', b);
      if (e == std::string::npos) e = text.size();
      std::string ln = text.substr(b, e - b);
      if (!ln.empty() && ln.back() == '\r') ln.pop_back();
      ++no;
      if (!(e == text.size() && ln.empty())) out.push_back(SrcLine{std::move(ln), fid, no});
      b = e + 1;
    }
    if (!closed) {
      const auto line = static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(open_at), '\n') + 1);
      const std::size_t bol = text.rfind('\n', open_at);
      const auto col = static_cast<std::uint32_t>(open_at - (bol == std::string::npos ? 0 : bol + 1) + 1);
      SrcLine at{line <= out.size() ? out[line - 1].text : std::string{}, fid, line};
      error(at, col, "unterminated comment: '/*' has no '*/'");
      return false;
    }
    return true;
  }

  void push(Frame f, std::optional<ExpansionSite> site) {
    f.cond_depth = cond_.size();
    frames_.push_back(std::move(f));
    if (site) chain_.push_back(std::move(*site));
  }

  void pop() {
    Frame& f = frames_.back();
    while (cond_.size() > f.cond_depth) {
      error(cond_.back().at, 1, "unterminated conditional: no '.endif' before the end of this " +
                                    std::string(f.kind == ExpansionSite::Kind::include ? "file" : "expansion"));
      cond_.pop_back();
    }
    frames_.pop_back();
    if (!chain_.empty() && chain_.size() >= frames_.size()) chain_.pop_back();
  }

  std::size_t nesting() const {
    std::size_t n = 0;
    for (const auto& f : frames_) n += f.kind != ExpansionSite::Kind::include;
    return n;
  }

  bool active() const { return cond_.empty() || cond_.back().active; }

  void emit(std::string text, const SrcLine& at) {
    r_.out.lines.push_back(PreprocessedLine{std::move(text), LineOrigin{files_[at.file], at.line, chain_}});
  }

  // ---- symbols --------------------------------------------------------------------------------
  std::optional<std::int64_t> symbol_value(const std::string& name, int depth = 0) {
    auto it = syms_.find(name);
    if (it == syms_.end()) return std::nullopt;
    if (it->second.constant) return it->second.value;
    if (depth > 32) return std::nullopt;
    // A definition that was not constant when made (`.set a, b` before b): LLVM evaluates it when used.
    const std::string expr = it->second.expr;
    const auto toks = tokenize(expr);
    auto look = [&](std::size_t k) { return symbol_value(expr.substr(toks[k].pos, toks[k].len), depth + 1); };
    ExprEval<decltype(look)> ev(expr, toks, look, false);
    auto r = ev.run(0);
    if (!r.ok || r.end != toks.size()) return std::nullopt;
    return r.value;
  }

  /// Evaluates a whole absolute expression (`.if`, `.set`, `.rept`); on failure reports and returns nullopt.
  std::optional<std::int64_t> eval(std::string_view expr, const SrcLine& at, std::string_view what,
                                   bool* not_constant = nullptr) {
    const bool report = not_constant == nullptr;
    const auto toks = tokenize(expr);
    if (toks.empty()) {
      if (report) error(at, col_of(at, expr), "expected an expression after " + std::string(what));
      return std::nullopt;
    }
    auto look = [&](std::size_t k) { return symbol_value(std::string(expr.substr(toks[k].pos, toks[k].len))); };
    ExprEval<decltype(look)> ev(expr, toks, look, false);
    auto r = ev.run(0);
    if (r.ok && r.end != toks.size()) {
      r.ok = false;
      r.error = "unexpected '" + std::string(expr.substr(toks[r.end].pos, toks[r.end].len)) + "' in expression";
      r.error_tok = r.end;
    }
    if (!r.ok && report) {
      const std::size_t off = r.error_tok < toks.size() ? toks[r.error_tok].pos : expr.size();
      error(at, col_of(at, expr.substr(off)), r.error + " in " + std::string(what),
            "an absolute expression of integers and .set/.equ symbols is needed here; labels and undefined "
            "symbols have no value yet");
    }
    if (!r.ok && not_constant) {
      *not_constant = r.error.find("is not a constant") != std::string::npos;
      if (!*not_constant)
        error(at, col_of(at, expr.substr(r.error_tok < toks.size() ? toks[r.error_tok].pos : expr.size())),
              r.error + " in " + std::string(what));
    }
    if (!r.ok) return std::nullopt;
    return r.value;
  }

  /// Substitutes constant symbols in operand text (tokens at or after `from`): a constant expression that
  /// names a symbol and stands alone between separators is folded; any other constant symbol is
  /// replaced by its value, in parentheses when negative.
  std::string substitute(std::string_view code, std::size_t from) {
    const auto toks = tokenize(code);
    std::vector<int> depth(toks.size() + 1, 0);
    for (std::size_t k = 0, d = 0; k < toks.size(); ++k) {
      depth[k] = static_cast<int>(d);
      const char c = code[toks[k].pos];
      if (toks[k].kind == Tok::punct && c == '[') ++d;
      else if (toks[k].kind == Tok::punct && c == ']' && d > 0) --d;
    }
    auto look = [&](std::size_t k) -> std::optional<std::int64_t> {
      const Tok& t = toks[k];
      const std::string_view id = code.substr(t.pos, t.len);
      if (k + 1 < toks.size() && !toks[k + 1].space_before) {
        const char n = code[toks[k + 1].pos];
        if (toks[k + 1].kind == Tok::lparen || (toks[k + 1].kind == Tok::punct && n == '[')) return std::nullopt;
        if (n == ':' && depth[k] == 0) return std::nullopt;  // `offset:` names a modifier
      }
      if (is_register_name(id)) return std::nullopt;
      return symbol_value(std::string(id));
    };
    auto sep = [&](std::size_t k) {
      if (toks[k].kind != Tok::punct) return false;
      const char c = code[toks[k].pos];
      return c == ',' || c == '[' || c == ']' || c == ':';
    };
    std::string out;
    std::size_t copied = 0;
    std::size_t k = 0;
    while (k < toks.size() && toks[k].pos < from) ++k;
    const std::size_t first = k;
    while (k < toks.size()) {
      const Tok& t = toks[k];
      const bool starts = t.kind == Tok::num || t.kind == Tok::ident || t.kind == Tok::lparen ||
                          (t.kind == Tok::op && std::string_view("-+~!").find(code[t.pos]) != std::string_view::npos && t.len == 1);
      const bool clean_before = k == first || sep(k - 1) || toks[k - 1].kind == Tok::lparen;
      if (starts && clean_before) {
        ExprEval<decltype(look)> ev(code, toks, look, true);
        auto r = ev.run(k);
        const bool clean_after = r.end >= toks.size() || sep(r.end) || toks[r.end].kind == Tok::rparen ||
                                 (toks[r.end].space_before && toks[r.end].kind != Tok::op);
        if (r.ok && r.used_symbol && r.end > k && clean_after) {
          out.append(code.substr(copied, t.pos - copied));
          out += std::to_string(r.value);
          copied = toks[r.end - 1].pos + toks[r.end - 1].len;
          k = r.end;
          continue;
        }
      }
      if (t.kind == Tok::ident) {
        if (auto v = look(k)) {
          out.append(code.substr(copied, t.pos - copied));
          out += *v < 0 ? "(" + std::to_string(*v) + ")" : std::to_string(*v);
          copied = t.pos + t.len;
        }
      }
      ++k;
    }
    out.append(code.substr(copied));
    return out;
  }

  /// Position of a `\` outside strings, or npos.
  static std::size_t stray_backslash(std::string_view s) {
    bool in_str = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (in_str) {
        if (s[i] == '\\') ++i;
        else if (s[i] == '"') in_str = false;
      } else if (s[i] == '"') {
        in_str = true;
      } else if (s[i] == '\\') {
        return i;
      }
    }
    return std::string_view::npos;
  }

  // ---- the statement loop ---------------------------------------------------------------------
  void loop() {
    while (!frames_.empty() && !aborted_) {
      Frame& f = frames_.back();
      if (f.next == f.lines.size()) {
        if (f.repeats_left > 0 && !f.lines.empty()) {
          --f.repeats_left;
          f.next = 0;
          continue;
        }
        pop();
        continue;
      }
      if (++processed_ > o_.max_lines) {
        error(f.lines[f.next], 1,
              "expansion limit reached: more than " + std::to_string(o_.max_lines) + " lines processed",
              "a .rept count or a recursive macro that does not stop? raise PreprocessOptions::max_lines if the "
              "program is really that large");
        aborted_ = true;
        return;
      }
      if ((processed_bytes_ += f.lines[f.next].text.size() + 1) > o_.max_bytes) {
        error(f.lines[f.next], 1,
              "expansion limit reached: more than " + std::to_string(o_.max_bytes) + " bytes of statements processed",
              "a recursive macro whose arguments grow with every level? raise PreprocessOptions::max_bytes if the "
              "program is really that large");
        aborted_ = true;
        return;
      }
      const SrcLine ln = f.lines[f.next++];
      statement(ln);
    }
  }

  static std::string lower_word(std::string_view w) { return lower(w); }

  void statement(const SrcLine& ln) {
    const std::string_view text = ln.text;
    const std::size_t cpos = comment_start(text);
    const std::string_view code = cpos == std::string_view::npos ? text : text.substr(0, cpos);
    const std::string_view tr = trim(code);
    if (tr.empty() || tr.front() == '#') {
      if (active()) emit(ln.text, ln);
      return;
    }
    // Labels: `name:` followed by a blank or the end, as asmevo's line reader takes them.
    std::size_t i = static_cast<std::size_t>(tr.data() - text.data());
    std::vector<std::string_view> labels;
    while (true) {
      std::size_t j = i;
      while (j < code.size() && is_space(code[j])) ++j;
      std::size_t k = j;
      if (k < code.size() && (ident_start(code[k]) || std::isdigit(static_cast<unsigned char>(code[k])))) {
        while (k < code.size() && ident_char(code[k])) ++k;
        if (k < code.size() && code[k] == ':' && (k + 1 == code.size() || is_space(code[k + 1]))) {
          labels.push_back(code.substr(j, k - j));
          i = k + 1;
          continue;
        }
      }
      i = j;
      break;
    }
    ArgScanner sc(code, i);
    const std::string word(sc.ident());
    const std::string dir = lower_word(word);
    const std::string_view rest = trim(sc.rest());

    if (is_conditional(dir)) {
      conditional(dir, rest, ln);
      return;
    }
    if (!active()) return;
    for (auto l : labels) labels_.insert(std::string(l));
    if (word.empty() && i >= code.size()) {  // labels only
      emit(ln.text, ln);
      return;
    }
    auto emit_labels = [&] {
      if (!labels.empty()) emit(std::string(code.substr(0, i)), ln);
    };
    // `name = expr` (AsmParser: an identifier followed by '=').
    {
      ArgScanner a(code, i);
      const std::string_view name = a.ident();
      a.skip_ws();
      if (!name.empty() && a.peek() == '=' && a.peek(1) != '=') {
        emit_labels();
        a.advance();
        assign(std::string(name), trim(a.rest()), ln, false);
        return;
      }
    }
    if (word.empty()) {
      error(ln, static_cast<std::uint32_t>(i + 1), "expected an instruction, a directive or a label");
      return;
    }
    if (auto m = macros_.find(word); m != macros_.end()) {
      emit_labels();
      invoke(m->second, rest, ln);
      return;
    }
    if (word.front() == '.') {
      emit_labels();
      directive(dir, rest, code, i, sc.pos(), cpos, ln, labels.empty());
      return;
    }
    // An instruction.
    std::string out = substitute(code, sc.pos());
    if (cpos != std::string_view::npos) out += text.substr(cpos);
    if (const auto b = stray_backslash(out); b != std::string::npos)
      error(ln, static_cast<std::uint32_t>(b + 1), "'\\' outside a macro body",
            "'\\name' and '\\@' are only replaced inside .macro (and '\\name' inside .irp) bodies");
    emit(std::move(out), ln);
  }

  // ---- conditionals ---------------------------------------------------------------------------
  static bool is_conditional(std::string_view d) {
    static const std::set<std::string, std::less<>> s = {
        ".if", ".ifeq", ".ifne", ".ifge", ".ifgt", ".ifle", ".iflt", ".ifdef", ".ifndef", ".ifnotdef", ".ifb",
        ".ifnb", ".ifc", ".ifnc", ".ifeqs", ".ifnes", ".elseif", ".else", ".endif"};
    return s.count(d) != 0;
  }

  static bool split_comma(std::string_view s, std::string_view& a, std::string_view& b) {
    bool in_str = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '"') in_str = !in_str;
      else if (s[i] == ',' && !in_str) {
        a = trim(s.substr(0, i));
        b = trim(s.substr(i + 1));
        return true;
      }
    }
    return false;
  }

  std::optional<bool> condition(std::string_view d, std::string_view rest, const SrcLine& ln) {
    if (d == ".ifdef" || d == ".ifndef" || d == ".ifnotdef") {
      ArgScanner a(rest);
      const std::string name(a.ident());
      a.skip_ws();
      if (name.empty() || !a.eof()) {
        error(ln, col_of(ln, rest), "expected a symbol name after '" + std::string(d) + "'");
        return std::nullopt;
      }
      const bool defined = syms_.count(name) != 0 || labels_.count(name) != 0;
      return d == ".ifdef" ? defined : !defined;
    }
    if (d == ".ifb") return rest.empty();
    if (d == ".ifnb") return !rest.empty();
    if (d == ".ifc" || d == ".ifnc" || d == ".ifeqs" || d == ".ifnes") {
      std::string_view a, b;
      if (!split_comma(rest, a, b)) {
        error(ln, col_of(ln, rest), "expected two comma-separated strings after '" + std::string(d) + "'");
        return std::nullopt;
      }
      if (d == ".ifeqs" || d == ".ifnes") {
        auto quoted = [](std::string_view s) { return s.size() >= 2 && s.front() == '"' && s.back() == '"'; };
        if (!quoted(a) || !quoted(b)) {
          error(ln, col_of(ln, rest), "expected quoted strings after '" + std::string(d) + "'");
          return std::nullopt;
        }
      }
      const bool eq = a == b;
      return (d == ".ifc" || d == ".ifeqs") ? eq : !eq;
    }
    auto v = eval(rest, ln, "'" + std::string(d) + "'");
    if (!v) return std::nullopt;
    if (d == ".if" || d == ".ifne" || d == ".elseif") return *v != 0;
    if (d == ".ifeq") return *v == 0;
    if (d == ".ifge") return *v >= 0;
    if (d == ".ifgt") return *v > 0;
    if (d == ".ifle") return *v <= 0;
    return *v < 0;  // .iflt
  }

  void conditional(std::string_view d, std::string_view rest, const SrcLine& ln) {
    const bool here = active();
    if (d == ".else" || d == ".elseif") {
      if (cond_.size() <= frames_.back().cond_depth || cond_.back().seen_else) {
        error(ln, 1, "'" + std::string(d) + "' without a matching '.if'");
        return;
      }
      CondState& c = cond_.back();
      if (d == ".else") {
        c.seen_else = true;
        c.active = c.parent_active && !c.taken;
        c.taken = c.taken || c.active;
        return;
      }
      bool on = false;
      if (c.parent_active && !c.taken) {
        auto v = condition(d, rest, ln);
        on = v.value_or(false);
      }
      c.active = on;
      c.taken = c.taken || on;
      return;
    }
    if (d == ".endif") {
      if (cond_.size() <= frames_.back().cond_depth) {
        error(ln, 1, "'.endif' without a matching '.if'");
        return;
      }
      cond_.pop_back();
      return;
    }
    CondState c;
    c.parent_active = here;
    c.at = ln;
    if (here) {
      auto v = condition(d, rest, ln);
      c.active = v.value_or(false);
    } else {
      c.active = false;  // AsmParser does not evaluate conditions inside a skipped block
    }
    c.taken = c.active;
    cond_.push_back(std::move(c));
  }

  // ---- assignments ----------------------------------------------------------------------------
  void assign(std::string name, std::string_view expr, const SrcLine& ln, bool equiv) {
    if (name.empty()) {
      error(ln, col_of(ln, expr), "expected a symbol name");
      return;
    }
    if (equiv && (syms_.count(name) || labels_.count(name))) {
      error(ln, col_of(ln, expr), "redefinition of '" + name + "' by '.equiv'", "use .set to redefine a symbol");
      return;
    }
    if (labels_.count(name)) {
      error(ln, col_of(ln, expr), "'" + name + "' is a label and cannot be assigned a value");
      return;
    }
    if (trim(expr).empty()) {
      error(ln, col_of(ln, expr), "expected an expression for '" + name + "'");
      return;
    }
    bool not_constant = false;
    if (auto v = eval(expr, ln, "the value of '" + name + "'", &not_constant)) {
      syms_[name] = Symbol{true, *v, {}};
      if (o_.keep_definitions) emit(".set " + name + ", " + std::to_string(*v), ln);
      return;
    }
    if (!not_constant) return;  // malformed: reported
    // Not absolute now (a label, or a symbol defined later): stays symbolic and is passed on to the output.
    syms_[name] = Symbol{false, 0, std::string(expr)};
    emit(".set " + name + ", " + substitute(expr, 0), ln);
  }

  // ---- directives -----------------------------------------------------------------------------
  void directive(const std::string& d, std::string_view rest, std::string_view code, std::size_t start,
                 std::size_t after, std::size_t cpos, const SrcLine& ln, bool no_labels) {
    if (d == ".macro") return define_macro(rest, ln);
    if (d == ".endm" || d == ".endmacro")
      return error(ln, col_of(ln, code.substr(after - d.size())), "'" + d + "' without a matching '.macro'");
    if (d == ".rept" || d == ".rep") return rept(rest, ln);
    if (d == ".irp" || d == ".irpc") return irp(d == ".irpc", rest, ln);
    if (d == ".endr") return error(ln, col_of(ln, code.substr(after - d.size())), "'.endr' without a matching '.rept', '.irp' or '.irpc'");
    if (d == ".exitm") return exitm(ln);
    if (d == ".purgem") {
      const std::string name(trim(rest));
      if (macros_.erase(name) == 0) error(ln, col_of(ln, rest), "macro '" + name + "' is not defined");
      return;
    }
    if (d == ".include") return include(rest, ln);
    if (d == ".set" || d == ".equ" || d == ".equiv") {
      std::string_view a, b;
      if (!split_comma(rest, a, b)) return error(ln, col_of(ln, rest), "expected 'name, expression' after '" + d + "'");
      return assign(std::string(a), b, ln, d == ".equiv");
    }
    if (d == ".altmacro" || d == ".noaltmacro")
      return error(ln, col_of(ln, code.substr(after - d.size())), "'" + d + "' is not supported by asmevo's preprocessor",
                   "write the macros without alternate-macro syntax", DiagCode::unsupported);
    if (d == ".error" || d == ".err")
      return error(ln, col_of(ln, code.substr(after - d.size())),
                   d == ".err" ? std::string(".err encountered") : "error: " + std::string(rest));
    if (d == ".amdgpu_metadata" || d == ".amd_amdgpu_hsa_metadata" || d == ".amdgpu_pal_metadata")
      return raw_block(d, ln);
    const std::string_view text = ln.text;
    std::string out;
    if (value_directives().count(d) || (d.rfind(".amdhsa_", 0) == 0 && d != ".amdhsa_kernel"))
      out = substitute(code, after);
    else
      out = std::string(code);
    if (!no_labels) out.erase(0, start);  // the labels went out on their own line; the prefix is unchanged
    if (cpos != std::string_view::npos) out += text.substr(cpos);
    if (const auto b = stray_backslash(out); b != std::string::npos)
      error(ln, static_cast<std::uint32_t>(b + 1), "'\\' outside a macro body",
            "'\\name' and '\\@' are only replaced inside .macro (and '\\name' inside .irp) bodies");
    emit(std::move(out), ln);
  }

  /// `.amdgpu_metadata` … `.end_amdgpu_metadata`: AMDGPUAsmParser reads the YAML raw, so it is copied.
  void raw_block(const std::string& d, const SrcLine& ln) {
    const std::string end = ".end_" + d.substr(1);
    emit(ln.text, ln);
    Frame& f = frames_.back();
    while (f.next < f.lines.size()) {
      const SrcLine l = f.lines[f.next++];
      emit(l.text, l);
      if (lower(trim(l.text)).rfind(end, 0) == 0) return;
    }
    error(ln, 1, "'" + d + "' has no '" + end + "'");
  }

  /// First word of a line, lower-case ("" if none).
  static std::string first_word(std::string_view s) {
    ArgScanner a(s);
    a.skip_ws();
    return lower(a.ident());
  }

  /// Collects the lines of the current frame up to the matching end directive; LLVM reads a body only
  /// from the buffer it starts in, so a body never spans an include or a macro boundary.
  std::optional<std::vector<SrcLine>> collect(bool is_macro, const SrcLine& start, std::string_view what) {
    Frame& f = frames_.back();
    std::vector<SrcLine> body;
    int depth = 0;
    while (f.next < f.lines.size()) {
      const SrcLine& l = f.lines[f.next++];
      ++processed_;
      const std::string w = first_word(l.text);
      if (is_macro) {
        if (w == ".endm" || w == ".endmacro") {
          if (depth == 0) return body;
          --depth;
        } else if (w == ".macro") {
          ++depth;
        }
      } else {
        if (w == ".endr") {
          if (depth == 0) return body;
          --depth;
        } else if (w == ".rept" || w == ".rep" || w == ".irp" || w == ".irpc") {
          ++depth;
        }
      }
      body.push_back(l);
    }
    error(start, 1, std::string("unterminated ") + std::string(what) + ": no matching '" +
                        (is_macro ? ".endm" : ".endr") + "' before the end of the " +
                        (f.kind == ExpansionSite::Kind::include ? "file" : "expansion"));
    return std::nullopt;
  }

  void define_macro(std::string_view rest, const SrcLine& ln) {
    ArgScanner a(rest);
    a.skip_ws();
    Macro m;
    m.name = std::string(a.ident());
    auto body = collect(true, ln, "'.macro " + m.name + "'");
    if (m.name.empty()) return error(ln, col_of(ln, rest), "expected a macro name after '.macro'");
    a.skip_ws();
    if (a.peek() == ',') {
      a.advance();
      a.skip_ws();
    }
    while (!a.eof()) {
      const std::uint32_t col = col_of(ln, a.rest());
      if (!m.params.empty() && m.params.back().vararg)
        return error(ln, col, "vararg parameter '" + m.params.back().name + "' should be the last parameter");
      MacroParam p;
      p.name = std::string(a.ident());
      if (p.name.empty()) return error(ln, col, "expected a parameter name in '.macro " + m.name + "'");
      for (const auto& q : m.params)
        if (q.name == p.name)
          return error(ln, col, "macro '" + m.name + "' has multiple parameters named '" + p.name + "'");
      a.skip_ws();
      if (a.peek() == ':') {
        a.advance();
        a.skip_ws();
        const std::string q(a.ident());
        if (q == "req") p.required = true;
        else if (q == "vararg") p.vararg = true;
        else return error(ln, col, "'" + q + "' is not a valid parameter qualifier for '" + p.name + "'", "use :req or :vararg");
        a.skip_ws();
      }
      if (a.peek() == '=') {
        a.advance();
        a.skip_ws();
        if (!a.read(false, p.value)) return error(ln, col, "unbalanced parentheses in the default of '" + p.name + "'");
        a.skip_ws();
      }
      m.params.push_back(std::move(p));
      if (a.peek() == ',') {
        a.advance();
        a.skip_ws();
      }
    }
    if (!body) return;
    if (macros_.count(m.name)) return error(ln, col_of(ln, rest), "macro '" + m.name + "' is already defined", "use .purgem first");
    m.body = std::move(*body);
    macros_[m.name] = std::move(m);
  }

  /// Parses invocation arguments (AsmParser::parseMacroArguments). nullopt after reporting an error.
  std::optional<std::vector<std::string>> macro_args(const Macro& m, std::string_view rest, const SrcLine& ln) {
    const std::size_t n = m.params.size();
    std::vector<std::string> args(n);
    std::vector<bool> given(n, false);
    ArgScanner a(rest);
    a.skip_ws();
    bool named = false;
    for (std::size_t index = 0; !a.eof(); ++index) {
      const std::uint32_t col = col_of(ln, a.rest());
      std::size_t pi = index;
      {
        ArgScanner probe(rest, a.pos());
        const std::string_view id = probe.ident();
        probe.skip_ws();
        if (!id.empty() && probe.peek() == '=' && probe.peek(1) != '=') {
          auto it = std::find_if(m.params.begin(), m.params.end(), [&](const MacroParam& p) { return p.name == id; });
          if (it == m.params.end()) {
            error(ln, col, "parameter named '" + std::string(id) + "' does not exist for macro '" + m.name + "'");
            return std::nullopt;
          }
          pi = static_cast<std::size_t>(it - m.params.begin());
          probe.advance();
          probe.skip_ws();
          a = probe;
          named = true;
        } else if (named) {
          error(ln, col, "cannot mix positional and keyword arguments");
          return std::nullopt;
        }
      }
      if (pi >= n) {
        error(ln, col, "too many arguments for macro '" + m.name + "' (it takes " + std::to_string(n) + ")");
        return std::nullopt;
      }
      std::string v;
      if (!a.read(m.params[pi].vararg, v)) {
        error(ln, col, "unbalanced parentheses in macro argument");
        return std::nullopt;
      }
      if (!v.empty()) {
        args[pi] = std::move(v);
        given[pi] = true;
      }
      a.skip_ws();
      if (a.peek() == ',') {
        a.advance();
        a.skip_ws();
      }
    }
    bool ok = true;
    for (std::size_t k = 0; k < n; ++k) {
      if (given[k]) continue;
      if (m.params[k].required) {
        error(ln, col_of(ln, rest), "missing value for required parameter '" + m.params[k].name + "' in macro '" + m.name + "'");
        ok = false;
      }
      args[k] = m.params[k].value;
    }
    if (!ok) return std::nullopt;
    return args;
  }

  /// AsmParser::expandMacro on each body line: `\name` -> argument, `\()` -> nothing, `\@` -> counter.
  /// An unknown `\name` outside strings and outside nested .macro definitions is an error.
  std::vector<SrcLine> expand(const std::vector<SrcLine>& body, const std::vector<MacroParam>& params,
                              const std::vector<std::string>& args, bool at, std::string_view what,
                              bool report_unknown) {
    std::vector<SrcLine> out;
    out.reserve(body.size());
    int nested = 0;
    for (const SrcLine& l : body) {
      const std::string w = first_word(l.text);
      if (w == ".endm" || w == ".endmacro") nested = std::max(0, nested - 1);
      std::string s;
      const std::string& b = l.text;
      bool in_str = false;
      for (std::size_t p = 0; p < b.size();) {
        const char c = b[p];
        if (c == '"') in_str = !in_str;
        if (c != '\\' || p + 1 >= b.size()) {
          s += c;
          ++p;
          continue;
        }
        if (at && b[p + 1] == '@') {
          s += std::to_string(instantiations_);
          p += 2;
          continue;
        }
        std::size_t q = p + 1;
        while (q < b.size() && macro_name_char(b[q])) ++q;
        const std::string_view name(b.data() + p + 1, q - p - 1);
        auto it = std::find_if(params.begin(), params.end(), [&](const MacroParam& x) { return x.name == name; });
        if (it != params.end()) {
          s += args[static_cast<std::size_t>(it - params.begin())];
          p = q;
        } else if (b[p + 1] == '(' && p + 2 < b.size() && b[p + 2] == ')') {
          p += 3;
        } else {
          if (report_unknown && !in_str && nested == 0 && !name.empty()) {
            std::string names;
            for (const auto& x : params) names += (names.empty() ? "" : ", ") + ("\\" + x.name);
            error(l, static_cast<std::uint32_t>(p + 1),
                  "unknown macro parameter '\\" + std::string(name) + "' in " + std::string(what),
                  params.empty() ? std::string("it takes no parameters") : "its parameters are " + names);
          }
          s += '\\';
          s += name;
          p = std::max(q, p + 1);
        }
      }
      if (w == ".macro") ++nested;
      out.push_back(SrcLine{std::move(s), l.file, l.line});
    }
    return out;
  }

  bool nesting_ok(const SrcLine& ln) {
    if (nesting() < o_.max_nesting) return true;
    error(ln, 1,
          "macros cannot be nested more than " + std::to_string(o_.max_nesting) + " levels deep",
          "a macro that invokes itself without a stopping .if? raise PreprocessOptions::max_nesting if the "
          "nesting is intended");
    return false;
  }

  void invoke(const Macro& m, std::string_view rest, const SrcLine& ln) {
    if (!nesting_ok(ln)) return;
    auto args = macro_args(m, rest, ln);
    if (!args) return;
    Frame f;
    f.kind = ExpansionSite::Kind::macro;
    // The site goes on the chain first so that errors in the expansion name the invocation.
    chain_.push_back(ExpansionSite{ExpansionSite::Kind::macro, m.name, files_[ln.file], ln.line});
    f.lines = expand(m.body, m.params, *args, true, "macro '" + m.name + "'", true);
    chain_.pop_back();
    ++instantiations_;
    push(std::move(f), ExpansionSite{ExpansionSite::Kind::macro, m.name, files_[ln.file], ln.line});
  }

  void rept(std::string_view rest, const SrcLine& ln) {
    auto body = collect(false, ln, "'.rept'");
    auto count = eval(rest, ln, "'.rept' count");
    if (!body || !count) return;
    if (*count < 0) return error(ln, col_of(ln, rest), "count is negative in '.rept'");
    if (*count == 0 || body->empty() || !nesting_ok(ln)) return;
    Frame f;
    f.kind = ExpansionSite::Kind::rept;
    f.lines = expand(*body, {}, {}, false, "'.rept'", false);
    f.repeats_left = static_cast<std::uint64_t>(*count) - 1;
    push(std::move(f), ExpansionSite{ExpansionSite::Kind::rept, ".rept", files_[ln.file], ln.line});
  }

  void irp(bool chars, std::string_view rest, const SrcLine& ln) {
    const std::string_view what = chars ? ".irpc" : ".irp";
    auto body = collect(false, ln, "'" + std::string(what) + "'");
    ArgScanner a(rest);
    a.skip_ws();
    MacroParam p;
    p.name = std::string(a.ident());
    a.skip_ws();
    if (p.name.empty() || a.peek() != ',')
      return error(ln, col_of(ln, rest), "expected 'name, values' after '" + std::string(what) + "'");
    a.advance();
    a.skip_ws();
    std::vector<std::string> values;
    while (!a.eof()) {
      std::string v;
      if (!a.read(false, v)) return error(ln, col_of(ln, rest), "unbalanced parentheses in '" + std::string(what) + "'");
      if (!v.empty()) values.push_back(std::move(v));
      a.skip_ws();
      if (a.peek() == ',') {
        a.advance();
        a.skip_ws();
      }
    }
    if (chars) {
      // AsmParser::parseDirectiveIrpc: exactly one argument, one expansion per character.
      if (values.size() > 1) return error(ln, col_of(ln, rest), "'.irpc' takes one string of characters");
      std::vector<std::string> cs;
      if (!values.empty())
        for (char c : values.front()) cs.emplace_back(1, c);
      values = std::move(cs);
    }
    if (!body || values.empty() || !nesting_ok(ln)) return;
    Frame f;
    f.kind = chars ? ExpansionSite::Kind::irpc : ExpansionSite::Kind::irp;
    ExpansionSite site{f.kind, std::string(what), files_[ln.file], ln.line};
    chain_.push_back(site);
    for (const auto& v : values) {
      auto part = expand(*body, {p}, {v}, true, "'" + std::string(what) + "'", true);
      f.lines.insert(f.lines.end(), part.begin(), part.end());
    }
    chain_.pop_back();
    push(std::move(f), std::move(site));
  }

  void exitm(const SrcLine& ln) {
    auto it = std::find_if(frames_.rbegin(), frames_.rend(), [](const Frame& f) { return f.kind == ExpansionSite::Kind::macro; });
    if (it == frames_.rend()) return error(ln, 1, "'.exitm' outside a macro");
    const std::size_t keep = static_cast<std::size_t>(frames_.rend() - it) - 1;  // index of the macro frame
    // Conditionals opened inside the macro end with it (AsmParser::parseDirectiveExitMacro).
    cond_.resize(std::min(cond_.size(), frames_[keep].cond_depth));
    while (frames_.size() > keep) {
      frames_.back().cond_depth = cond_.size();
      pop();
    }
  }

  void include(std::string_view rest, const SrcLine& ln) {
    const std::string_view r = trim(rest);
    if (r.size() < 2 || r.front() != '"' || r.back() != '"')
      return error(ln, col_of(ln, rest), "expected a quoted file name after '.include'");
    const std::string name(r.substr(1, r.size() - 2));
    std::size_t depth = 0;
    for (const auto& f : frames_) depth += f.kind == ExpansionSite::Kind::include;
    if (depth >= o_.max_include_depth)
      return error(ln, col_of(ln, rest), "includes nested more than " + std::to_string(o_.max_include_depth) + " deep");
    // SourceMgr::OpenIncludeFile: the name as written, then each include folder in order.
    std::vector<std::string> tried;
    tried.push_back(name);
    if (!std::filesystem::path(name).is_absolute())
      for (const auto& d : o_.include_dirs) tried.push_back((std::filesystem::path(d) / name).string());
    for (const auto& path : tried) {
      auto text = o_.read_file(path);
      if (!text) continue;
      const std::string key = std::filesystem::path(path).lexically_normal().string();
      for (const auto& f : frames_) {
        if (f.kind == ExpansionSite::Kind::include && std::filesystem::path(f.path).lexically_normal().string() == key)
          return error(ln, col_of(ln, rest), "include cycle: '" + path + "' is already being read",
                       "an included file includes itself, directly or through others", DiagCode::io_error);
      }
      Frame f;
      f.kind = ExpansionSite::Kind::include;
      f.path = path;
      chain_.push_back(ExpansionSite{ExpansionSite::Kind::include, name, files_[ln.file], ln.line});
      const bool ok = load(std::move(*text), file_id(path), f.lines);
      chain_.pop_back();
      if (ok) push(std::move(f), ExpansionSite{ExpansionSite::Kind::include, name, files_[ln.file], ln.line});
      return;
    }
    std::string hint = "searched";
    for (const auto& t : tried) hint += " '" + t + "'";
    error(ln, col_of(ln, rest), "include file '" + name + "' not found", hint, DiagCode::io_error);
  }
};

}  // namespace detail::pp

/// Expands `text` completely and gathers every problem (one per place) instead of stopping at the first.
/// Never throws and always terminates: nesting, include depth and the number of processed lines are
/// bounded by `opts`.
[[nodiscard]] inline PreprocessResult preprocess_all(std::string_view text, PreprocessOptions opts) {
  detail::pp::Preprocessor p(std::move(opts));
  return p.run(text);
}

/// Expands `text`; fails with the first problem (file:line:col, the offending line, and the chain of
/// macro invocations and includes in the hint).
[[nodiscard]] inline Expected<Preprocessed> preprocess(std::string_view text, PreprocessOptions opts) {
  PreprocessResult r = preprocess_all(text, std::move(opts));
  if (!r.diags.empty()) return unexpected(std::move(r.diags.front()));
  return std::move(r.out);
}

}  // namespace asmevo
