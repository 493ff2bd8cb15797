// Splits one line of AMDGPU assembly into its syntactic parts (asmevo::syntax::Line); no table lookups.
#pragma once

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "asmevo/ir/syntax.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::detail {

inline bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }
inline bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '@';
}
inline std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// Position of the comment marker (`;` or `//`) outside string literals, or npos.
inline std::size_t comment_start(std::string_view s) {
  bool in_str = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_str) {
      if (c == '\\') ++i;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') in_str = true;
    else if (c == ';') return i;
    else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') return i;
  }
  return std::string_view::npos;
}

/// Position of the `"` that opens a string literal the line does not close (before any comment), or npos.
inline std::size_t unclosed_string(std::string_view s) {
  std::size_t open = std::string_view::npos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (open != std::string_view::npos) {
      if (c == '\\') ++i;
      else if (c == '"') open = std::string_view::npos;
      continue;
    }
    if (c == '"') open = i;
    else if (c == ';' || (c == '/' && i + 1 < s.size() && s[i + 1] == '/')) break;
  }
  return open;
}

/// Cursor-based reader of an operand list. Every error names the column and the text at it.
class OperandReader {
 public:
  OperandReader(std::string_view text, std::uint32_t base_col, std::uint32_t line, const std::string& src)
      : s_(text), base_(base_col), line_(line), src_(src) {}

  Expected<void> read(syntax::Line& out) {
    skip_ws();
    while (!eof()) {
      std::vector<syntax::Atom> group;
      if (peek() == ',') return err("missing operand before ','");
      // A group: an operand, then any number of further atoms (e.g. `off`) or named modifiers.
      bool first = true;
      while (!eof() && peek() != ',') {
        if (!first && peek() == '&') {  // `vmcnt(0) & lgkmcnt(0)`: LLVM's s_waitcnt separator
          ++i_;
          skip_ws();
          continue;
        }
        if ((!first && starts_named() && !starts_register()) || (first && starts_named_with_value())) {
          auto n = read_named();
          if (!n) return unexpected(std::move(n).error());
          out.named.push_back(std::move(*n));
        } else {
          auto a = read_atom();
          if (!a) return unexpected(std::move(a).error());
          group.push_back(std::move(*a));
        }
        first = false;
        skip_ws();
      }
      if (!group.empty()) out.groups.push_back(std::move(group));
      if (!eof() && peek() == ',') {
        ++i_;
        skip_ws();
        if (eof()) return err("missing operand after ','");
      }
    }
    return {};
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  bool in_abs_ = false;  ///< inside `|...|`: a '|' closes the bars instead of being OR
  std::uint32_t base_;
  std::uint32_t line_;
  const std::string& src_;

  bool eof() const { return i_ >= s_.size(); }
  char peek(std::size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  void skip_ws() {
    while (!eof() && std::isspace(static_cast<unsigned char>(peek()))) ++i_;
  }
  std::uint32_t col() const { return base_ + static_cast<std::uint32_t>(i_); }
  Unexpected err(std::string msg, std::string hint = {}) const {
    Loc l{{}, line_, col(), {}};
    return fail(DiagCode::parse_error, std::move(msg) + (eof() ? " at end of line" : " at '" + std::string(s_.substr(i_, 16)) + "'"),
                l, src_, std::move(hint));
  }

  std::string_view ident() {
    std::size_t b = i_;
    if (!eof() && is_ident_start(peek())) {
      ++i_;
      while (!eof() && is_ident_char(peek())) ++i_;
    }
    return s_.substr(b, i_ - b);
  }

  /// A register name starts here. LLVM's AMDGPU parser makes the comma between operands optional
  /// (AMDGPUAsmParser::ParseInstruction skips one if present), so `s_lshl_b32 s[4] s[5], 1` is three operands.
  /// Modifier keywords that look like registers are excluded: `scc` (gfx90a cache policy), `a16` (MIMG).
  bool starts_register() {
    const std::size_t save = i_;
    auto id = lower(ident());
    const bool range = peek() == '[' && (id == "v" || id == "s" || id == "a" || id == "acc" || id == "ttmp");
    const bool single = !range && id != "scc" && id != "a16" && peek() != ':' && peek() != '(' && single_reg(id).has_value();
    i_ = save;
    return range || single;
  }

  /// `name:value` (not a register, not an expression): a named modifier even where an operand could start.
  bool starts_named_with_value() const {
    std::size_t j = i_;
    if (j >= s_.size() || !(std::isalpha(static_cast<unsigned char>(s_[j])) || s_[j] == '_')) return false;
    while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_')) ++j;
    return j < s_.size() && s_[j] == ':';
  }

  /// A named modifier starts with a letter and is not followed by an operator that would make it an expression.
  bool starts_named() const {
    if (eof()) return false;
    char c = peek();
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
  }

  Expected<syntax::Named> read_named() {
    syntax::Named n;
    n.col = col();
    std::size_t b = i_;
    auto id = ident();
    n.name = lower(id);
    if (peek() == ':') {
      ++i_;
      if (peek() == '[') {
        ++i_;
        n.kind = syntax::Named::Kind::list;
        const std::size_t list_start = i_;
        while (true) {
          skip_ws();
          if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_') {
            // Symbolic entries (format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]): keep the text.
            while (!eof() && peek() != ']') ++i_;
            if (eof()) return err("missing ']' in the list of '" + n.name + "'");
            ++i_;
            n.kind = syntax::Named::Kind::word;
            n.text = "[" + std::string(s_.substr(list_start, i_ - list_start));
            n.list.clear();
            break;
          }
          auto v = read_int_expr();
          if (!v) return unexpected(std::move(v).error());
          n.list.push_back(*v);
          skip_ws();
          if (peek() == ',') { ++i_; continue; }
          if (peek() == ']') { ++i_; break; }
          return err("expected ',' or ']' in the list of '" + n.name + "'");
        }
      } else if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_') {
        std::size_t vb = i_;
        auto w = ident();
        if (peek() == '(') {  // offset:swizzle(...)
          if (!skip_parens()) return err("unbalanced parentheses in '" + n.name + "'");
          n.kind = syntax::Named::Kind::call;
          n.text = std::string(s_.substr(vb, i_ - vb));
        } else {
          // A symbolic value (`WORD_1`) or, for integer modifiers, a symbol expression.
          n.kind = syntax::Named::Kind::word;
          n.text = std::string(w);
        }
      } else {
        auto v = read_int_expr();
        if (!v) return unexpected(std::move(v).error());
        n.kind = syntax::Named::Kind::integer;
        n.value = *v;
      }
    } else if (peek() == '(') {
      if (!skip_parens()) return err("unbalanced parentheses in '" + n.name + "'");
      n.kind = syntax::Named::Kind::call;
      n.text = std::string(s_.substr(b, i_ - b));
    }
    n.spelling = std::string(s_.substr(b, i_ - b));
    return n;
  }

  bool skip_parens() {
    int depth = 0;
    bool in_str = false;
    while (!eof()) {
      char c = peek();
      ++i_;
      if (in_str) {
        if (c == '\\') ++i_;
        else if (c == '"') in_str = false;
        continue;
      }
      if (c == '"') in_str = true;
      else if (c == '(') ++depth;
      else if (c == ')' && --depth == 0) return true;
    }
    return false;
  }

  // ---- integer constant expressions: | ^ & << >> + - * / % unary - ~ ( ) -------------------
  // Returns the value; fails on a symbol (the caller falls back to a symbolic expression).
  Expected<std::int64_t> read_int_expr() { return bin(0); }

  static int prec(std::string_view op) {
    if (op == "|") return 1;
    if (op == "^") return 2;
    if (op == "&") return 3;
    if (op == "<<" || op == ">>") return 4;
    if (op == "+" || op == "-") return 5;
    if (op == "*" || op == "/" || op == "%") return 6;
    return -1;
  }
  std::string_view peek_op() const {
    char c = peek();
    if ((c == '<' && peek(1) == '<') || (c == '>' && peek(1) == '>')) return s_.substr(i_, 2);
    if (c == '|' && in_abs_) return {};
    if (c == '|' || c == '^' || c == '&' || c == '+' || c == '-' || c == '*' || c == '/' || c == '%') return s_.substr(i_, 1);
    return {};
  }
  Expected<std::int64_t> bin(int min_prec) {
    auto lhs = unary();
    if (!lhs) return lhs;
    std::int64_t v = *lhs;
    while (true) {
      std::size_t save = i_;
      skip_ws();
      auto op = peek_op();
      int p = op.empty() ? -1 : prec(op);
      if (p < 0 || p <= min_prec - 1 || p < min_prec) { i_ = save; break; }
      std::string o(op);
      i_ += op.size();
      skip_ws();
      auto rhs = bin(p + 1);
      if (!rhs) return rhs;
      std::int64_t r = *rhs;
      if (o == "|") v |= r;
      else if (o == "^") v ^= r;
      else if (o == "&") v &= r;
      else if (o == "<<") v = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) << (r & 63));
      else if (o == ">>") v >>= (r & 63);
      else if (o == "+") v += r;
      else if (o == "-") v -= r;
      else if (o == "*") v *= r;
      else if (o == "/" || o == "%") {
        if (r == 0) return err("division by zero in constant expression");
        v = o == "/" ? v / r : v % r;
      }
    }
    return v;
  }
  Expected<std::int64_t> unary() {
    skip_ws();
    char c = peek();
    if (c == '-') { ++i_; auto v = unary(); if (!v) return v; return -*v; }
    if (c == '~') { ++i_; auto v = unary(); if (!v) return v; return ~*v; }
    if (c == '+') { ++i_; return unary(); }
    if (c == '(') {
      ++i_;
      auto v = bin(0);
      if (!v) return v;
      skip_ws();
      if (peek() != ')') return err("expected ')'");
      ++i_;
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return number();
    return err("expected a constant");
  }
  Expected<std::int64_t> number() {
    std::size_t b = i_;
    int base = 10;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) { base = 16; i_ += 2; }
    else if (peek() == '0' && (peek(1) == 'b' || peek(1) == 'B') && (peek(2) == '0' || peek(2) == '1')) { base = 2; i_ += 2; }
    std::size_t db = i_;
    while (!eof() && std::isxdigit(static_cast<unsigned char>(peek()))) ++i_;
    if (db == i_) return err("malformed number");
    std::uint64_t u = 0;
    auto [p, ec] = std::from_chars(s_.data() + db, s_.data() + i_, u, base);
    if (ec != std::errc{} || p != s_.data() + i_) { i_ = b; return err("malformed number"); }
    return static_cast<std::int64_t>(u);
  }

  // ---- atoms -----------------------------------------------------------------------------
  bool looks_float(std::size_t at) const {
    // digits '.' digits, or digits 'e' [+-] digits (decimal only)
    std::size_t j = at;
    if (j < s_.size() && s_[j] == '0' && j + 1 < s_.size() && (s_[j + 1] == 'x' || s_[j + 1] == 'X')) return false;
    while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) ++j;
    if (j == at) return false;
    if (j < s_.size() && s_[j] == '.') return true;
    if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
      std::size_t k = j + 1;
      if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
      return k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k]));
    }
    return false;
  }

  Expected<syntax::Atom> read_atom() {
    syntax::Atom a;
    a.col = col();
    std::size_t b = i_;
    // Source modifiers. A '-' directly before a number is a negative constant, as LLVM reads it.
    if (peek() == '-' && !(std::isdigit(static_cast<unsigned char>(peek(1))) )) {
      std::size_t save = i_;
      ++i_;
      skip_ws();
      if (peek() == '|' || std::isalpha(static_cast<unsigned char>(peek())) || peek() == '[') {
        auto in = read_atom();
        if (!in) return in;
        in->mods |= syntax::mod_neg;
        in->col = a.col;
        in->text = std::string(s_.substr(b, i_ - b));
        if (in->kind != syntax::Atom::Kind::reg && in->kind != syntax::Atom::Kind::real &&
            in->kind != syntax::Atom::Kind::integer)
          return err("'-' must modify a register or constant");
        return in;
      }
      i_ = save;
    }
    if (peek() == '|') {
      ++i_;
      skip_ws();
      const bool outer = in_abs_;
      in_abs_ = true;
      auto in = read_atom();
      in_abs_ = outer;
      if (!in) return in;
      skip_ws();
      if (peek() != '|') return err("missing closing '|' of absolute value");
      ++i_;
      in->mods |= syntax::mod_abs;
      in->col = a.col;
      in->text = std::string(s_.substr(b, i_ - b));
      return in;
    }
    for (auto [kw, m] : {std::pair{"abs(", syntax::mod_abs}, {"neg(", syntax::mod_neg}, {"sext(", syntax::mod_sext}}) {
      std::string_view k(kw);
      if (s_.substr(i_, k.size()) == k) {
        i_ += k.size();
        skip_ws();
        auto in = read_atom();
        if (!in) return in;
        skip_ws();
        if (peek() != ')') return err(std::string("missing ')' of ") + std::string(k.substr(0, k.size() - 1)) + "(...)");
        ++i_;
        in->mods |= m;
        in->col = a.col;
        in->text = std::string(s_.substr(b, i_ - b));
        return in;
      }
    }
    // Floating-point literal (optionally negative).
    {
      std::size_t j = i_;
      if (peek() == '-') ++j;
      if (looks_float(j)) {
        const char* first = s_.data() + i_;
        char* endp = nullptr;
        std::string tmp(s_.substr(i_, 64));
        // strtod is locale-dependent; asmevo never changes the C locale (LC_NUMERIC stays "C").
        double d = std::strtod(tmp.c_str(), &endp);
        std::size_t n = static_cast<std::size_t>(endp - tmp.c_str());
        (void)first;
        i_ += n;
        a.kind = syntax::Atom::Kind::real;
        a.real = d;
        a.text = std::string(s_.substr(b, i_ - b));
        return a;
      }
    }
    // Registers.
    if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '.' || peek() == '$') {
      std::size_t ib = i_;
      auto id = ident();
      std::string lid = lower(id);
      if (peek() == '[') {
        auto r = reg_range(lid);
        if (r) {
          a.kind = syntax::Atom::Kind::reg;
          a.reg = *r;
          a.text = std::string(s_.substr(b, i_ - b));
          return a;
        }
        return unexpected(std::move(r).error());
      }
      if (auto r = single_reg(lid)) {
        a.kind = syntax::Atom::Kind::reg;
        a.reg = *r;
        a.text = std::string(s_.substr(b, i_ - b));
        return a;
      }
      if (peek() == '(') {
        if (!skip_parens()) return err("unbalanced parentheses");
        a.kind = syntax::Atom::Kind::call;
        a.text = std::string(s_.substr(ib, i_ - ib));
        return a;
      }
      // A symbol: maybe the start of an expression (`sym+4`, `sym@rel32@lo+4`).
      i_ = ib;
      return symbolic(a, b);
    }
    if (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '-' || peek() == '~' || peek() == '(' || peek() == '+') {
      std::size_t save = i_;
      auto v = read_int_expr();
      // A number that does not read (`0x`, too many digits) or divides by zero is an error, not a symbol.
      if (!v && (v.error().message.rfind("division by zero", 0) == 0 || v.error().message.rfind("malformed number", 0) == 0))
        return unexpected(std::move(v).error());
      if (v && (eof() || peek() == ',' || std::isspace(static_cast<unsigned char>(peek())) || (in_abs_ && peek() == '|'))) {
        a.kind = syntax::Atom::Kind::integer;
        a.value = *v;
        a.text = std::string(s_.substr(b, i_ - b));
        a.hex = a.text.find("0x") != std::string::npos || a.text.find("0X") != std::string::npos;
        return a;
      }
      i_ = save;
      return symbolic(a, b);
    }
    return err("unexpected character in operand");
  }

  /// Reads a symbolic expression up to the end of the group (`,`), at whitespace that is not
  /// inside parentheses and not next to an operator.
  Expected<syntax::Atom> symbolic(syntax::Atom a, std::size_t b) {
    int depth = 0;
    while (!eof()) {
      char c = peek();
      if (c == '(') ++depth;
      else if (c == ')') { if (depth == 0) break; --depth; }
      else if (depth == 0 && c == ',') break;
      else if (depth == 0 && std::isspace(static_cast<unsigned char>(c))) {
        // Continue only if an operator follows or precedes.
        std::size_t j = i_;
        while (j < s_.size() && std::isspace(static_cast<unsigned char>(s_[j]))) ++j;
        char prev = i_ > 0 ? s_[i_ - 1] : '\0';
        bool op_next = j < s_.size() && std::string_view("+-*/|&^<>%").find(s_[j]) != std::string_view::npos;
        bool op_prev = std::string_view("+-*/|&^<>%(").find(prev) != std::string_view::npos;
        if (!op_next && !op_prev) break;
      }
      ++i_;
    }
    if (depth != 0) return err("unbalanced parentheses in expression");
    std::string t;
    for (char c : s_.substr(b, i_ - b))
      if (!std::isspace(static_cast<unsigned char>(c))) t += c;
    if (t.empty()) return err("expected an operand");
    if (std::string_view("+-*/|&^<>%(~").find(t.back()) != std::string_view::npos)
      return err("incomplete expression '" + t + "'");
    bool word = true;
    for (char c : t) word = word && is_ident_char(c);
    a.kind = word && t.find('@') == std::string::npos && t.front() != '.' ? syntax::Atom::Kind::word : syntax::Atom::Kind::expr;
    a.text = t;
    return a;
  }

  std::optional<Reg> single_reg(const std::string& id) {
    if (auto sp = special_by_name(id)) return sp;
    auto try_prefix = [&](std::string_view p, RegFile f) -> std::optional<Reg> {
      if (id.size() > p.size() && id.compare(0, p.size(), p) == 0) {
        std::string_view d(id);
        d.remove_prefix(p.size());
        for (char c : d)
          if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        unsigned n = 0;
        std::from_chars(d.data(), d.data() + d.size(), n);
        if (n > 0xffff) return std::nullopt;
        return Reg{f, static_cast<std::uint16_t>(n), 1};
      }
      return std::nullopt;
    };
    if (auto r = try_prefix("ttmp", RegFile::ttmp)) return r;
    if (auto r = try_prefix("acc", RegFile::agpr)) return r;
    if (auto r = try_prefix("v", RegFile::vgpr)) return r;
    if (auto r = try_prefix("s", RegFile::sgpr)) return r;
    if (auto r = try_prefix("a", RegFile::agpr)) return r;
    return std::nullopt;
  }

  Expected<Reg> reg_range(const std::string& id) {
    RegFile f;
    if (id == "v") f = RegFile::vgpr;
    else if (id == "s") f = RegFile::sgpr;
    else if (id == "a" || id == "acc") f = RegFile::agpr;
    else if (id == "ttmp") f = RegFile::ttmp;
    else return err("'" + id + "[' is not a register range", "write v[lo:hi], s[lo:hi], a[lo:hi] or ttmp[lo:hi]");
    ++i_;  // '['
    skip_ws();
    auto lo = read_int_expr();
    if (!lo) return unexpected(std::move(lo).error());
    std::int64_t hi = *lo;
    skip_ws();
    if (peek() == ':') {
      ++i_;
      skip_ws();
      auto h = read_int_expr();
      if (!h) return unexpected(std::move(h).error());
      hi = *h;
      skip_ws();
    }
    if (peek() != ']') return err("expected ']' to close the register range");
    ++i_;
    if (*lo < 0 || hi < *lo || hi - *lo >= 32 || hi > 0xffff)
      return err("invalid register range " + id + "[" + std::to_string(*lo) + ":" + std::to_string(hi) + "]",
                 "the last register must not be below the first, and a range holds at most 32 registers");
    return Reg{f, static_cast<std::uint16_t>(*lo), static_cast<std::uint16_t>(hi - *lo + 1)};
  }
};

/// Parses one line (no trailing newline) into its syntactic parts.
[[nodiscard]] inline Expected<syntax::Line> parse_line(std::string_view text, std::uint32_t line_no) {
  syntax::Line l;
  l.number = line_no;
  l.source = std::string(text);
  // An unclosed string is an error, as llvm-mc-22 refuses such a line too (`.ascii "abc`: "expected string"): read as
  // an operand, it would swallow the rest of the line, so the `; iN` id appended when the line is printed would not
  // read back.
  if (const auto q = unclosed_string(text); q != std::string_view::npos)
    return fail(DiagCode::parse_error, "string literal is not closed",
                Loc{{}, line_no, static_cast<std::uint32_t>(q + 1), {}}, std::string(text),
                "close it with '\"' on the same line");
  std::string_view s = text;
  if (auto c = comment_start(s); c != std::string_view::npos) {
    std::size_t skip = s[c] == ';' ? 1 : 2;
    l.comment = std::string(trim(s.substr(c + skip)));
    s = s.substr(0, c);
    // A stable id: the comment is `iN` or starts with `iN ` / `iN;`.
    std::string_view cm = l.comment;
    if (cm.size() >= 2 && cm[0] == 'i' && std::isdigit(static_cast<unsigned char>(cm[1]))) {
      std::size_t j = 1;
      while (j < cm.size() && std::isdigit(static_cast<unsigned char>(cm[j]))) ++j;
      std::uint32_t id = 0;
      auto [idp, idec] = std::from_chars(cm.data() + 1, cm.data() + j, id);
      // Ids past 2^31 are not ours (a fresh id must always exist above the largest one).
      if ((j == cm.size() || cm[j] == ' ') && idec == std::errc{} && idp == cm.data() + j && id < 0x80000000u) {
        l.id = id;
        l.comment = std::string(trim(cm.substr(j)));
      }
    }
  }
  std::size_t i = 0;
  auto skip_ws = [&] { while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i; };
  // Labels: `name:` (possibly several, possibly followed by an instruction).
  while (true) {
    skip_ws();
    std::size_t b = i;
    if (i < s.size() && (is_ident_start(s[i]) || std::isdigit(static_cast<unsigned char>(s[i])))) {
      std::size_t j = i;
      while (j < s.size() && is_ident_char(s[j])) ++j;
      if (j < s.size() && s[j] == ':' && (j + 1 == s.size() || std::isspace(static_cast<unsigned char>(s[j + 1])))) {
        l.labels.emplace_back(s.substr(b, j - b));
        i = j + 1;
        continue;
      }
    }
    break;
  }
  skip_ws();
  if (i >= s.size()) return l;
  std::size_t b = i;
  if (!is_ident_start(s[i]))
    return fail(DiagCode::parse_error, "expected an instruction, a directive or a label",
                Loc{{}, line_no, static_cast<std::uint32_t>(i + 1), {}}, std::string(text));
  while (i < s.size() && is_ident_char(s[i])) ++i;
  std::string word(s.substr(b, i - b));
  if (word[0] == '.') {
    l.directive = word;
    l.directive_args = std::string(trim(s.substr(i)));
    return l;
  }
  l.mnemonic = lower(word);
  l.mnemonic_col = static_cast<std::uint32_t>(b + 1);
  skip_ws();
  l.operand_col = static_cast<std::uint32_t>(i + 1);
  l.operand_text = std::string(trim(s.substr(i)));
  OperandReader rd(l.operand_text, l.operand_col, line_no, l.source);
  if (auto r = rd.read(l); !r) return unexpected(std::move(r).error());
  return l;
}

}  // namespace asmevo::detail
