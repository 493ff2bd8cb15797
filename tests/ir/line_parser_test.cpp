// Unit tests of ir/detail/line_parser.hpp (detail::parse_line): labels, comments and ids, operands with
// modifiers, named modifiers and lists, constant expressions, and errors that carry line:col and never crash.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "asmevo/ir/detail/line_parser.hpp"

namespace {

using namespace asmevo;
using syntax::Atom;
using syntax::Named;

syntax::Line ok(std::string_view text, std::uint32_t line = 1) {
  auto l = detail::parse_line(text, line);
  EXPECT_TRUE(l) << text << ": " << (l ? "" : l.error().str());
  return l ? *l : syntax::Line{};
}

Diag bad(std::string_view text, std::uint32_t line = 1) {
  auto l = detail::parse_line(text, line);
  EXPECT_FALSE(l) << "accepted: " << text;
  return l ? Diag{} : l.error();
}

const Atom& atom(const syntax::Line& l, std::size_t group, std::size_t k = 0) {
  static const Atom none{};
  if (group >= l.groups.size() || k >= l.groups[group].size()) {
    ADD_FAILURE() << "no atom " << group << "/" << k << " in " << l.source;
    return none;
  }
  return l.groups[group][k];
}

TEST(LineParser, SplitsMnemonicAndOperands) {
  auto l = ok("  v_add_f32 v0, s1, v[2:3]");
  EXPECT_EQ(l.mnemonic, "v_add_f32");
  EXPECT_EQ(l.mnemonic_col, 3u);
  EXPECT_EQ(l.operand_text, "v0, s1, v[2:3]");
  ASSERT_EQ(l.groups.size(), 3u);
  EXPECT_EQ(atom(l, 0).reg, (Reg{RegFile::vgpr, 0, 1}));
  EXPECT_EQ(atom(l, 1).reg, (Reg{RegFile::sgpr, 1, 1}));
  EXPECT_EQ(atom(l, 2).reg, (Reg{RegFile::vgpr, 2, 2}));
  EXPECT_EQ(atom(l, 1).col, 17u);
  EXPECT_EQ(ok("V_ADD_F32 V0, V1, V2").mnemonic, "v_add_f32");  // case-insensitive
}

TEST(LineParser, Labels) {
  auto l = ok("foo:");
  EXPECT_EQ(l.labels, std::vector<std::string>{"foo"});
  EXPECT_TRUE(l.mnemonic.empty());
  auto m = ok(".LBB0_1: bar: s_nop 0");
  EXPECT_EQ(m.labels, (std::vector<std::string>{".LBB0_1", "bar"}));
  EXPECT_EQ(m.mnemonic, "s_nop");
  // `name:value` after a mnemonic is a named modifier, not a label.
  auto n = ok("ds_read_b32 v0, v1 offset:16");
  EXPECT_TRUE(n.labels.empty());
}

TEST(LineParser, CommentsAndIds) {
  auto l = ok("s_nop 0 ; i42");
  ASSERT_TRUE(l.id);
  EXPECT_EQ(*l.id, 42u);
  EXPECT_EQ(l.comment, "");
  auto m = ok("s_nop 0 ; i7 keep this");
  ASSERT_TRUE(m.id);
  EXPECT_EQ(*m.id, 7u);
  EXPECT_EQ(m.comment, "keep this");
  auto n = ok("s_nop 0 // i12x not an id");
  EXPECT_FALSE(n.id);
  EXPECT_EQ(n.comment, "i12x not an id");
  auto o = ok("; whole line");
  EXPECT_TRUE(o.mnemonic.empty());
  EXPECT_EQ(o.comment, "whole line");
  // A ';' inside a string is not a comment.
  auto d = ok(".ascii \"a;b\" ; c");
  EXPECT_EQ(d.directive, ".ascii");
  EXPECT_EQ(d.directive_args, "\"a;b\"");
  EXPECT_EQ(d.comment, "c");
}

// Found by tests/fuzz/parser_fuzz.cpp: `s_nop 0"this` parsed (a symbolic operand `0"this`), and its printed line
// `s_nop 0"this ; i0` did not, its id swallowed by the string.
TEST(LineParser, UnclosedStringIsAnErrorAtItsQuote) {
  for (const auto& [text, col] : {std::pair{"s_nop 0\"this", 8u}, std::pair{".ascii \"abc", 8u},
                                  std::pair{"s_nop foo(\"x) ; i3", 11u}, std::pair{".ascii \"a\\\"", 8u}}) {
    const Diag d = bad(text, 4);
    EXPECT_EQ(d.code, DiagCode::parse_error) << text;
    EXPECT_NE(d.message.find("string literal is not closed"), std::string::npos) << text << ": " << d.str();
    EXPECT_EQ(d.loc.line, 4u) << text;
    EXPECT_EQ(d.loc.col, col) << text << ": " << d.str();
  }
  // Closed strings, and quotes in a comment, are fine.
  EXPECT_EQ(ok(".ascii \"a\\\"b\" ; i\"").directive_args, "\"a\\\"b\"");
  ok("ds_swizzle_b32 v5, v1 offset:swizzle(BITMASK_PERM,\"00p00\")");
  ok("s_nop 0 // a \"quote");
}

TEST(LineParser, Directives) {
  auto l = ok("\t.p2align 8");
  EXPECT_EQ(l.directive, ".p2align");
  EXPECT_EQ(l.directive_args, "8");
  EXPECT_TRUE(l.mnemonic.empty());
  auto k = ok("main: .globl main");
  EXPECT_EQ(k.labels, std::vector<std::string>{"main"});
  EXPECT_EQ(k.directive, ".globl");
}

TEST(LineParser, NamedModifiers) {
  auto l = ok("buffer_load_dword v1, off, s[4:7], s1 offset:4095 glc slc");
  ASSERT_EQ(l.named.size(), 3u);
  EXPECT_EQ(l.named[0].name, "offset");
  EXPECT_EQ(l.named[0].kind, Named::Kind::integer);
  EXPECT_EQ(l.named[0].value, 4095);
  EXPECT_EQ(l.named[1].name, "glc");
  EXPECT_EQ(l.named[1].kind, Named::Kind::flag);
  EXPECT_EQ(l.named[2].spelling, "slc");
  // `off` after a comma is a positional word atom.
  EXPECT_EQ(atom(l, 1).kind, Atom::Kind::word);
  EXPECT_EQ(atom(l, 1).text, "off");

  auto s = ok("v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0");
  ASSERT_EQ(s.named.size(), 3u);
  EXPECT_EQ(s.named[0].kind, Named::Kind::word);
  EXPECT_EQ(s.named[0].text, "WORD_1");
  EXPECT_EQ(s.named[1].text, "UNUSED_PRESERVE");

  auto z = ok("ds_swizzle_b32 v5, v1 offset:swizzle(QUAD_PERM,0,1,2,3)");
  ASSERT_EQ(z.named.size(), 1u);
  EXPECT_EQ(z.named[0].kind, Named::Kind::call);
  EXPECT_EQ(z.named[0].text, "swizzle(QUAD_PERM,0,1,2,3)");

  auto n = ok("global_load_dword v1, v[2:3], off offset:-4096");
  ASSERT_EQ(n.named.size(), 1u);
  EXPECT_EQ(n.named[0].value, -4096);
}

TEST(LineParser, Lists) {
  auto l = ok("v_pk_add_f16 v0, v1, v2 op_sel:[0,1] op_sel_hi:[1, 0] neg_lo:[1,1]");
  ASSERT_EQ(l.named.size(), 3u);
  EXPECT_EQ(l.named[0].kind, Named::Kind::list);
  EXPECT_EQ(l.named[0].list, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(l.named[1].list, (std::vector<std::int64_t>{1, 0}));
  auto q = ok("v_mov_b32_dpp v0, v1 quad_perm:[3,2,1,0] row_mask:0xf");
  EXPECT_EQ(q.named[0].list, (std::vector<std::int64_t>{3, 2, 1, 0}));
  EXPECT_EQ(q.named[1].value, 15);
  // Symbolic list entries are kept as text.
  auto f = ok("tbuffer_load_format_x v1, off, s[4:7], format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT], s0");
  ASSERT_FALSE(f.named.empty());
  EXPECT_EQ(f.named[0].kind, Named::Kind::word);
  EXPECT_EQ(f.named[0].text, "[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]");
}

TEST(LineParser, SourceModifiers) {
  auto l = ok("v_add_f32_e64 v0, -v1, |v2|");
  EXPECT_EQ(atom(l, 1).mods, syntax::mod_neg);
  EXPECT_EQ(atom(l, 1).reg, (Reg{RegFile::vgpr, 1, 1}));
  EXPECT_EQ(atom(l, 2).mods, syntax::mod_abs);
  auto m = ok("v_fma_f32 v0, -|v1|, abs(v2), neg(v3)");
  EXPECT_EQ(atom(m, 1).mods, syntax::mod_neg | syntax::mod_abs);
  EXPECT_EQ(atom(m, 2).mods, syntax::mod_abs);
  EXPECT_EQ(atom(m, 3).mods, syntax::mod_neg);
  auto s = ok("v_add_u32_sdwa v0, sext(v1), v2");
  EXPECT_EQ(atom(s, 1).mods, syntax::mod_sext);
  auto r = ok("v_mul_f32_e64 v0, |-1.0|, -|s[2:3]|");
  EXPECT_EQ(atom(r, 1).kind, Atom::Kind::real);
  EXPECT_EQ(atom(r, 1).real, -1.0);
  EXPECT_EQ(atom(r, 1).mods, syntax::mod_abs);
  EXPECT_EQ(atom(r, 2).mods, syntax::mod_neg | syntax::mod_abs);
  // A '-' directly before a number is part of the number, as LLVM reads it.
  auto n = ok("v_add_f32 v0, -1, v1");
  EXPECT_EQ(atom(n, 1).kind, Atom::Kind::integer);
  EXPECT_EQ(atom(n, 1).value, -1);
  EXPECT_EQ(atom(n, 1).mods, 0);
}

// An integer constant between abs bars parses, with the abs modifier: the constant-expression reader once took the
// closing '|' for a binary OR. llvm-mc-22 -mcpu=gfx942 assembles `v_add_f32_e64 v0, |1|, v1` to
// [0x00,0x01,0x01,0xd1,0x81,0x02,0x02,0x00].
TEST(LineParser, AbsOfIntegerConstant) {
  auto l = ok("v_add_f32_e64 v0, |1|, v1");
  EXPECT_EQ(atom(l, 1).kind, Atom::Kind::integer);
  EXPECT_EQ(atom(l, 1).value, 1);
  EXPECT_EQ(atom(l, 1).mods, syntax::mod_abs);
  auto m = ok("v_add_f32_e64 v0, -|-16|, v1");
  EXPECT_EQ(atom(m, 1).value, -16);
  EXPECT_EQ(atom(m, 1).mods, syntax::mod_neg | syntax::mod_abs);
}

TEST(LineParser, ConstantExpressions) {
  struct Case { const char* text; std::int64_t value; bool hex; };
  for (const Case c : {Case{"1+2*3", 7, false}, Case{"(1<<4)|1", 17, false}, Case{"0x10", 16, true}, Case{"-5", -5, false},
                       Case{"~0", -1, false}, Case{"0b101", 5, false}, Case{"100/7", 14, false}, Case{"100%7", 2, false},
                       Case{"0xff&0x0f", 15, true}, Case{"1 + 2", 3, false}, Case{"2-3-4", -5, false}}) {
    auto l = ok(std::string("s_movk_i32 s0, ") + c.text);
    ASSERT_EQ(l.groups.size(), 2u) << c.text;
    const Atom& a = atom(l, 1);
    EXPECT_EQ(a.kind, Atom::Kind::integer) << c.text;
    EXPECT_EQ(a.value, c.value) << c.text;
    EXPECT_EQ(a.hex, c.hex) << c.text;
  }
}

TEST(LineParser, RealsSymbolsAndCalls) {
  auto l = ok("v_add_f32 v0, 0.5, v1");
  EXPECT_EQ(atom(l, 1).kind, Atom::Kind::real);
  EXPECT_EQ(atom(l, 1).real, 0.5);
  EXPECT_EQ(atom(ok("v_mov_b32 v0, -1e3"), 1).real, -1000.0);
  auto s = ok("s_add_u32 s0, s0, sym@rel32@lo+4");
  EXPECT_EQ(atom(s, 2).kind, Atom::Kind::expr);
  EXPECT_EQ(atom(s, 2).text, "sym@rel32@lo+4");
  auto b = ok("s_branch .LBB0_3");
  EXPECT_EQ(atom(b, 0).kind, Atom::Kind::expr);
  EXPECT_EQ(atom(b, 0).text, ".LBB0_3");
  auto h = ok("s_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 2)");
  EXPECT_EQ(atom(h, 1).kind, Atom::Kind::call);
  EXPECT_EQ(atom(h, 1).text, "hwreg(HW_REG_MODE, 0, 2)");
  auto r = ok("s_mov_b64 s[0:1], exec");
  EXPECT_EQ(atom(r, 1).reg, (Reg{RegFile::special, special::exec_lo, 2}));
  auto a = ok("v_accvgpr_write_b32 acc3, v1");
  EXPECT_EQ(atom(a, 0).reg, (Reg{RegFile::agpr, 3, 1}));
  auto t = ok("s_mov_b32 ttmp[4:5], ttmp9");
  EXPECT_EQ(atom(t, 0).reg, (Reg{RegFile::ttmp, 4, 2}));
}

TEST(LineParser, ErrorsCarryLineAndColumn) {
  struct Case { const char* text; std::uint32_t col; const char* what; };
  for (const Case c : {Case{"v_add_f32 v0, , v1", 15, "missing operand before ','"},
                       Case{"v_add_f32 v0, v1,", 18, "missing operand after ','"},
                       Case{"v_mov_b32 v[3:1], v0", 17, "invalid register range"},
                       Case{"v_mov_b32 v0, abs(v1", 21, "missing ')'"},
                       Case{"v_mov_b32 v0, |v1", 18, "missing closing '|'"},
                       Case{"v_mov_b32 q[0:1], v0", 12, "not a register range"},
                       Case{"v_pk_add_f16 v0, v1, v2 op_sel:[0,1", 36, "expected ',' or ']'"},
                       Case{"  123 v0", 3, "expected an instruction"}}) {
    const Diag d = bad(c.text, 7);
    EXPECT_EQ(d.code, DiagCode::parse_error) << c.text;
    EXPECT_EQ(d.loc.line, 7u) << c.text;
    EXPECT_EQ(d.loc.col, c.col) << c.text << ": " << d.str();
    EXPECT_NE(d.message.find(c.what), std::string::npos) << c.text << ": " << d.message;
    EXPECT_EQ(d.text, c.text);
  }
}

/// Lines that parse, to be mutated by the fuzz loop.
const std::vector<std::string> seed_lines = {
    "v_add_f32 v0, s1, v[2:3]", "buffer_load_dword v1, off, s[4:7], s1 offset:4095 glc slc",
    "v_pk_fma_f16 v0, v1, v2, v3 op_sel:[0,1,1] op_sel_hi:[1,0,1] neg_lo:[1,0,0]",
    "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:2 blgp:3",
    "v_mov_b32_dpp v0, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:1",
    "v_add_u32_sdwa v0, sext(v1), v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0",
    "s_waitcnt vmcnt(0) lgkmcnt(0)", "ds_swizzle_b32 v5, v1 offset:swizzle(QUAD_PERM,0,1,2,3)",
    "lbl: s_cbranch_scc0 .LBB0_3 ; i12 comment", "v_fma_f32 v0, -|v1|, abs(v2), neg(1.0) clamp mul:2",
    "s_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 2)", "s_add_u32 s0, s0, sym@rel32@lo+4",
    "tbuffer_load_format_x v1, off, s[4:7], format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT], s0",
    "global_atomic_add_f32 v[0:1], v2, off offset:-4096 sc0 nt", "s_movk_i32 s0, (1<<4)|~0x3",
};

void expect_no_crash(const std::string& text, std::uint32_t line, std::size_t& failures) {
  auto l = detail::parse_line(text, line);
  if (l) return;
  ++failures;
  const Diag& d = l.error();
  ASSERT_FALSE(d.message.empty()) << "empty message for: " << text;
  ASSERT_EQ(d.loc.line, line) << text;
  ASSERT_GE(d.loc.col, 1u) << text << ": " << d.str();
  ASSERT_LE(d.loc.col, text.size() + 1) << text << ": " << d.str();
}

TEST(LineParser, FuzzRandomBytesNeverCrash) {
  std::mt19937_64 rng(20240611);
  std::size_t failures = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 48, '\0');
    for (auto& c : s) c = static_cast<char>(rng() % 256);
    expect_no_crash(s, 3, failures);
    if (HasFatalFailure()) return;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 20.0) << "parse_line is suspiciously slow on short random lines";
  std::cout << "random bytes: " << failures << " of 20000 rejected, " << secs << " s\n";
}

TEST(LineParser, FuzzMutatedLinesNeverCrash) {
  std::mt19937_64 rng(77);
  const std::string alphabet = " ,:;[]()|-+~*/%<>&^@.$\"_0123456789abcdefvsaxgmtlr\t";
  std::size_t failures = 0, total = 0;
  for (const auto& seed : seed_lines) {
    ASSERT_TRUE(detail::parse_line(seed, 1)) << seed;
    for (int i = 0; i < 1500; ++i) {
      std::string s = seed;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !s.empty(); ++e) {
        const std::size_t at = rng() % s.size();
        switch (rng() % 4) {
          case 0: s.erase(at, 1 + rng() % 3); break;                                     // delete
          case 1: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;            // insert
          case 2: s[at] = alphabet[rng() % alphabet.size()]; break;                     // replace
          case 3: s = s.substr(0, at); break;                                           // truncate
        }
      }
      ++total;
      expect_no_crash(s, 9, failures);
      if (HasFatalFailure()) return;
    }
  }
  std::cout << "mutated lines: " << failures << " of " << total << " rejected\n";
}

}  // namespace
