// Tests for asmevo/ir/preprocess.hpp: every directive on small inline texts (with LLVM MC as the oracle
// where bytes can tell), the error cases, and the MIOpen corpus oracle: preprocess, parse, print and
// re-assemble each kernel, and compare with the bytes LLVM assembles from the original file.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "asmevo/ir/detail/line_parser.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/preprocess.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/mc/llvm_mc.hpp"
#include "support/corpus.hpp"

namespace {

using namespace asmevo;

std::string all_diags(const Diags& d) {
  std::string s;
  for (const auto& x : d) s += x.str() + "\n";
  return s;
}

/// Preprocesses text that must have no problem.
Preprocessed pp_ok(std::string_view text, PreprocessOptions o = {}) {
  auto r = preprocess_all(text, std::move(o));
  EXPECT_TRUE(r.diags.empty()) << all_diags(r.diags);
  return std::move(r.out);
}

/// Preprocesses text that must fail; returns the first problem.
Diag pp_err(std::string_view text, PreprocessOptions o = {}) {
  auto r = preprocess(text, std::move(o));
  EXPECT_FALSE(r.has_value()) << "expected an error";
  if (r) return {};
  return r.error();
}

/// The output lines, trimmed, without blank lines.
std::vector<std::string> lines_of(const Preprocessed& p) {
  std::vector<std::string> v;
  for (const auto& l : p.lines) {
    const std::string_view t = detail::trim(l.text);
    if (!t.empty()) v.emplace_back(t);
  }
  return v;
}

FileReader map_reader(std::map<std::string, std::string> files) {
  return [files = std::move(files)](const std::string& path) -> Expected<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return fail(DiagCode::io_error, "no such file: " + path);
    return it->second;
  };
}

/// The instruction bytes LLVM assembles from `text`, in order; the test fails on an assembly error.
std::vector<std::vector<std::uint8_t>> llvm_bytes(mc::Context& ctx, const std::string& text, const std::string& name) {
  mc::AssembleReport r = ctx.assemble_all(text, name);
  EXPECT_TRUE(r.ok()) << name << ": " << all_diags(r.errors);
  std::vector<std::vector<std::uint8_t>> out;
  for (auto& e : r.instructions) out.push_back(std::move(e.bytes));
  return out;
}

mc::Context& gfx90a() {
  static auto ctx = mc::Context::create("gfx90a");
  EXPECT_TRUE(ctx.has_value());
  return **ctx;
}

/// Differential check: the preprocessed text must assemble to the bytes of the original.
void expect_same_bytes(const std::string& original, PreprocessOptions o = {}) {
  auto p = preprocess(original, std::move(o));
  ASSERT_TRUE(p) << p.error().str();
  const auto want = llvm_bytes(gfx90a(), original, "<original>");
  const auto got = llvm_bytes(gfx90a(), p->text(), "<preprocessed>");
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(got, want) << "preprocessed:\n" << p->text();
}

// ---- .set / .equ / = ---------------------------------------------------------------------------

TEST(Preprocess, SymbolsFoldIntoRegisterIndicesAndConstants) {
  auto p = pp_ok(
      ".set v_a, 12\n"
      ".equ s_ka, 4\n"
      "k = 3\n"
      "  v_add_u32 v[v_a+1], v[v_a], v[v_a + k]  ; note\n"
      "s_load_dwordx2 s[s_ka:s_ka+1], s[0:1], 0+k\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"v_add_u32 v[13], v[12], v[15]  ; note",
                                                   "s_load_dwordx2 s[4:5], s[0:1], 3"}));
  EXPECT_EQ(p.lines[0].text.substr(0, 2), "  ") << "indentation is kept";
  EXPECT_EQ(p.symbols.at("v_a"), 12);
  EXPECT_EQ(p.symbols.at("k"), 3);
}

TEST(Preprocess, KeepDefinitionsEmitsSetLines) {
  PreprocessOptions o;
  o.keep_definitions = true;
  auto p = pp_ok("x = 2\n.set y, x*3\ns_nop y\n", o);
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{".set x, 2", ".set y, 6", "s_nop 6"}));
}

TEST(Preprocess, ExpressionsUseGnuPrecedenceAndLlvmValues) {
  // Values as llvm-mc-22 gives them for the same .set lines (see the header comment).
  auto p = pp_ok(
      ".set a, 2+1&1\n.set b, 4|1&2\n.set c, 1 < 2\n.set d, 1 < 2 && 3\n.set e, -8 >> 1\n"
      ".set f, 010\n.set g, 0b101 + 0x10\n.set h, !5 + !0\n.set i, 7 / -2\n.set j, -7 % 3\n"
      ".set k, 2 * 3 << 1\n.set l, 'a'\n.set m, ~0\n");
  EXPECT_EQ(p.symbols.at("a"), 3);
  EXPECT_EQ(p.symbols.at("b"), 0);
  EXPECT_EQ(p.symbols.at("c"), -1);
  EXPECT_EQ(p.symbols.at("d"), 1);
  EXPECT_EQ(p.symbols.at("e"), static_cast<std::int64_t>(0x7ffffffffffffffcULL));
  EXPECT_EQ(p.symbols.at("f"), 8);
  EXPECT_EQ(p.symbols.at("g"), 21);
  EXPECT_EQ(p.symbols.at("h"), 1);
  EXPECT_EQ(p.symbols.at("i"), -3);
  EXPECT_EQ(p.symbols.at("j"), -1);
  EXPECT_EQ(p.symbols.at("k"), 12);
  EXPECT_EQ(p.symbols.at("l"), 97);
  EXPECT_EQ(p.symbols.at("m"), -1);
}

TEST(Preprocess, FoldedOperandsAssembleLikeTheOriginal) {
  expect_same_bytes(
      ".text\n.set a, 2+1&1\n.set n, -5\n.set v_b, 7\n"
      "s_mov_b32 s0, a\n"
      "s_mov_b32 s1, 1+a*2\n"
      "s_add_u32 s2, s3, n\n"
      "s_mov_b32 s4, 100-n\n"
      "v_mov_b32 v[v_b+1], v[v_b]\n"
      "s_waitcnt vmcnt(a) lgkmcnt(a-1)\n"
      "ds_read_b32 v1, v2 offset:a*4\n"
      "buffer_load_dword v[v_b], v[v_b+1], s[4:7], 0 offen offset:v_b*4\n");
}

TEST(Preprocess, RedefinitionTakesTheCurrentValue) {
  auto p = pp_ok(".set x, 1\ns_nop x\n.set x, x+1\ns_nop x\nx = x * 10\ns_nop x\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"s_nop 1", "s_nop 2", "s_nop 20"}));
}

TEST(Preprocess, LabelsAndExternalSymbolsStaySymbolic) {
  auto p = pp_ok(
      ".set four, 4\n"
      "L_top:\n"
      ".set after, L_top + four\n"
      "  s_branch L_top\n"
      "  s_mov_b32 s0, ext_sym\n"
      "  s_mov_b32 s1, ext_sym+four\n"
      "  s_getpc_b64 s[four:four+1]\n"
      "L_x: s_nop four\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"L_top:", ".set after, L_top + 4", "s_branch L_top",
                                                   "s_mov_b32 s0, ext_sym", "s_mov_b32 s1, ext_sym+4",
                                                   "s_getpc_b64 s[4:5]", "L_x: s_nop 4"}));
  EXPECT_EQ(p.symbols.count("after"), 0u) << "a label expression is not a constant";
}

TEST(Preprocess, RegisterNamesAndModifierNamesAreNotSymbols) {
  auto p = pp_ok(".set v1, 7\n.set offset, 9\n.set vcc, 3\nv_mov_b32 v1, v1\nds_read_b32 v1, v2 offset:16\n"
                 "v_cndmask_b32 v0, v1, v2, vcc\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"v_mov_b32 v1, v1", "ds_read_b32 v1, v2 offset:16",
                                                   "v_cndmask_b32 v0, v1, v2, vcc"}));
}

TEST(Preprocess, DefinesActLikeDefsym) {
  PreprocessOptions o;
  o.defines = {{"impl", 1}};
  auto p = pp_ok(".ifndef impl\n.set impl, 0\n.endif\n.if impl == 1\ns_nop 1\n.else\ns_nop 0\n.endif\n", o);
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"s_nop 1"}));
}

TEST(Preprocess, EquivRefusesRedefinition) {
  const Diag d = pp_err(".equiv x, 1\n.equiv x, 2\n");
  EXPECT_EQ(d.loc.line, 2u);
  EXPECT_NE(d.message.find("redefinition of 'x'"), std::string::npos) << d.str();
}

// ---- macros ------------------------------------------------------------------------------------

TEST(Preprocess, MacroParametersDefaultsNamedAndVararg) {
  auto p = pp_ok(
      ".macro add3 dst, a, b=1\n"
      "  v_add_u32 v[\\dst], v[\\a], \\b\n"
      ".endm\n"
      ".macro st dst, addr, base, rest:vararg\n"
      "  buffer_store_dword \\dst, \\addr, \\base, \\rest\n"
      ".endm\n"
      ".macro .mdiv s_quot s_numer\n"
      "  s_lshr_b32 s[\\s_quot], s[\\s_numer], 1\n"
      ".endm\n"
      ".set v_x, 10\n"
      "add3 v_x+1, v_x\n"
      "add3 v_x, v_x + 1, 5\n"
      "add3 b=7, a=2, dst=3\n"
      "st v1, v2, s[4:7], 0 offen offset:16\n"
      ".mdiv 4 5\n");
  EXPECT_EQ(lines_of(p),
            (std::vector<std::string>{"v_add_u32 v[11], v[10], 1", "v_add_u32 v[10], v[11], 5", "v_add_u32 v[3], v[2], 7",
                                      "buffer_store_dword v1, v2, s[4:7], 0 offen offset:16",
                                      "s_lshr_b32 s[4], s[5], 1"}));
}

TEST(Preprocess, MacroConcatenationAndCounter) {
  auto p = pp_ok(
      ".macro loop name\n"
      "L_\\name\\()_\\@:\n"
      "  s_branch L_\\name\\()_\\@\n"
      ".endm\n"
      "loop a\nloop b\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"L_a_0:", "s_branch L_a_0", "L_b_1:", "s_branch L_b_1"}));
}

TEST(Preprocess, MacroCounterCountsNestedInstantiationsLikeLlvm) {
  // llvm-mc-22 gives 0, 1, 101, 101, 2 for this text (\@ is replaced when the macro is expanded).
  auto p = pp_ok(".macro foo\n.byte \\@\n.endm\n.macro bar\n.byte \\@\n.rept 2\n.byte 100+\\@\n.endr\n.endm\n"
                 "foo\nbar\nfoo\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{".byte 0", ".byte 1", ".byte 100+1", ".byte 100+1", ".byte 2"}));
}

TEST(Preprocess, MacroArgumentsSplitAtBlanksNotNextToOperators) {
  // The same split as llvm-mc-22: `1 +2 3` is two arguments, `(1 + 2) 5` two, `1+ 2` one.
  auto p = pp_ok(".macro show p, q=9\n.byte \\p, \\q\n.endm\nshow 1 +2 3\nshow (1 + 2) 5\nshow 1+ 2\nshow \"4\"\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{".byte 1+2, 3", ".byte (1 + 2), 5", ".byte 1+2, 9", ".byte 4, 9"}));
}

TEST(Preprocess, MacrosThatCallMacrosAndRedefineOtherMacros) {
  expect_same_bytes(
      ".text\n"
      ".macro inner d, s\n  v_mov_b32 v[\\d], v[\\s]\n.endm\n"
      ".macro outer d, s\n  inner \\d, \\s\n  inner \\d+1, \\s+1\n.endm\n"
      ".macro def_it name\n.macro \\name x\n  s_nop \\x\n.endm\n.endm\n"
      ".set v_q, 20\n"
      "outer v_q, v_q+8\n"
      "def_it mynop\n"
      "mynop 3\n");
}

TEST(Preprocess, MacroNamesAreCaseSensitiveAndMayStartWithADot) {
  auto p = pp_ok(".macro .clr v\n  v_mov_b32 v\\v, 0\n.endm\n.clr 3\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"v_mov_b32 v3, 0"}));
  auto q = preprocess_all(".macro FOO\n s_nop 0\n.endm\nfoo\n", {});
  EXPECT_TRUE(q.diags.empty());
  EXPECT_EQ(lines_of(q.out), (std::vector<std::string>{"foo"})) << "`foo` is not FOO: left to the parser";
}

TEST(Preprocess, UnknownMacroArgumentIsAnErrorAtTheBodyLine) {
  PreprocessOptions o;
  o.file = "k.s";
  const Diag d = pp_err(".macro m a\n  v_mov_b32 v[\\b], 0\n.endm\nm 1\n", o);
  EXPECT_EQ(d.loc.file, "k.s");
  EXPECT_EQ(d.loc.line, 2u);
  EXPECT_EQ(d.loc.col, 15u);
  EXPECT_NE(d.message.find("unknown macro parameter '\\b'"), std::string::npos) << d.str();
  EXPECT_NE(d.hint.find("in macro 'm' at k.s:4"), std::string::npos) << d.str();
  EXPECT_NE(d.hint.find("\\a"), std::string::npos) << "the hint lists the parameters: " << d.str();
}

TEST(Preprocess, MacroArgumentErrors) {
  const std::string defs = ".macro m a:req, b=2\n s_nop \\a+\\b\n.endm\n";
  EXPECT_NE(pp_err(defs + "m b=1\n").message.find("missing value for required parameter 'a'"), std::string::npos);
  EXPECT_NE(pp_err(defs + "m 1, 2, 3\n").message.find("too many arguments"), std::string::npos);
  EXPECT_NE(pp_err(defs + "m c=1\n").message.find("parameter named 'c' does not exist"), std::string::npos);
  EXPECT_NE(pp_err(defs + "m a=1, 2\n").message.find("cannot mix"), std::string::npos);
  EXPECT_NE(pp_err(defs + defs).message.find("already defined"), std::string::npos);
  EXPECT_NE(pp_err(".macro m a:vararg, b\n.endm\n").message.find("should be the last"), std::string::npos);
  EXPECT_NE(pp_err(".macro m a, a\n.endm\n").message.find("multiple parameters named 'a'"), std::string::npos);
  EXPECT_NE(pp_err(".macro m a:opt\n.endm\n").message.find("not a valid parameter qualifier"), std::string::npos);
  EXPECT_NE(pp_err(".endm\n").message.find("without a matching '.macro'"), std::string::npos);
}

TEST(Preprocess, UnterminatedMacroPointsAtItsDefinition) {
  PreprocessOptions o;
  o.file = "u.s";
  const Diag d = pp_err("s_nop 0\n.macro never_ends x\n s_nop \\x\n", o);
  EXPECT_EQ(d.loc.file, "u.s");
  EXPECT_EQ(d.loc.line, 2u);
  EXPECT_EQ(d.loc.col, 1u);
  EXPECT_NE(d.message.find("unterminated '.macro never_ends'"), std::string::npos) << d.str();
}

TEST(Preprocess, RecursionStopsAtTheNestingLimit) {
  const Diag d = pp_err(".macro r n\n s_nop 0\n r \\n+1\n.endm\nr 0\n");
  EXPECT_NE(d.message.find("nested more than 20 levels"), std::string::npos) << d.str();
  // A recursion that stops by itself is fine.
  auto p = pp_ok(".macro down n\n.if \\n\n s_nop \\n\n down \\n-1\n.endif\n.endm\ndown 3\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"s_nop 3", "s_nop 3-1", "s_nop 3-1-1"}));
}

TEST(Preprocess, ExitmAndPurgem) {
  auto p = pp_ok(".macro m n\n s_nop 1\n.if \\n\n.exitm\n.endif\n s_nop 2\n.endm\nm 1\nm 0\n.purgem m\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"s_nop 1", "s_nop 1", "s_nop 2"}));
  EXPECT_NE(pp_err(".purgem nope\n").message.find("not defined"), std::string::npos);
  EXPECT_NE(pp_err(".exitm\n").message.find("outside a macro"), std::string::npos);
}

// ---- loops -------------------------------------------------------------------------------------

TEST(Preprocess, ReptWithACountingSymbolAsMIOpenWritesIt) {
  auto p = pp_ok(
      ".macro .v_clear_nc vid, num\n"
      "    _v = \\vid\n"
      "    .rept \\num\n"
      "        v_mov_b32 v[_v], 0\n"
      "        _v = _v + 1\n"
      "    .endr\n"
      ".endm\n"
      ".set v_c, 4\n"
      ".v_clear_nc v_c+1, 3\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"v_mov_b32 v[5], 0", "v_mov_b32 v[6], 0", "v_mov_b32 v[7], 0"}));
  ASSERT_EQ(p.lines.size(), 3u);
  EXPECT_EQ(p.lines[0].origin.line, 4u) << "the text was written on line 4";
  ASSERT_EQ(p.lines[0].origin.chain.size(), 2u);
  EXPECT_EQ(p.lines[0].origin.chain[0].kind, ExpansionSite::Kind::macro);
  EXPECT_EQ(p.lines[0].origin.chain[0].line, 9u);
  EXPECT_EQ(p.lines[0].origin.chain[1].kind, ExpansionSite::Kind::rept);
  EXPECT_EQ(p.lines[0].origin.str(), "<input>:4, in .rept at <input>:3, in macro '.v_clear_nc' at <input>:9");
}

TEST(Preprocess, NestedReptAndZeroCount) {
  auto p = pp_ok(".rept 2\n.rept 2\ns_nop 1\n.endr\ns_nop 2\n.endr\n.rept 0\ns_nop 9\n.endr\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"s_nop 1", "s_nop 1", "s_nop 2", "s_nop 1", "s_nop 1", "s_nop 2"}));
}

TEST(Preprocess, ReptErrorsAndLimits) {
  EXPECT_NE(pp_err(".rept -1\ns_nop 0\n.endr\n").message.find("negative"), std::string::npos);
  EXPECT_NE(pp_err(".rept 2\ns_nop 0\n").message.find("unterminated '.rept'"), std::string::npos);
  EXPECT_NE(pp_err(".endr\n").message.find("without a matching"), std::string::npos);
  EXPECT_NE(pp_err(".rept undefined_n\ns_nop 0\n.endr\n").message.find("'undefined_n' is not a constant"),
            std::string::npos);
  PreprocessOptions o;
  o.max_lines = 1000;
  const Diag d = pp_err(".rept 1 << 40\ns_nop 0\n.endr\n", o);
  EXPECT_NE(d.message.find("expansion limit"), std::string::npos) << d.str();
  // `\@` is not replaced in a .rept body (as in llvm-mc, which reports an unknown token there).
  EXPECT_NE(pp_err(".rept 1\nL\\@:\n.endr\n").message.find("'\\' outside a macro body"), std::string::npos);
}

// Found by tests/fuzz/parser_fuzz.cpp: a recursive macro whose argument doubles with every level (`\n-! \n` is one
// argument, as an operator next to a blank joins) stays within the nesting and line limits, yet the fuzzer's input of
// this shape ran for minutes on 2^20-token expressions. The bytes processed are bounded too.
TEST(Preprocess, AnArgumentThatDoublesPerLevelHitsTheByteLimit) {
  const std::string text = ".macro down n\n.if \\n\n s_nop 0\n down \\n-! \\n\n.endif\n.endm\ndown 3\n";
  PreprocessOptions o;
  o.max_bytes = 64 << 10;
  const Diag d = pp_err(text, o);
  EXPECT_NE(d.message.find("more than 65536 bytes of statements processed"), std::string::npos) << d.str();
  EXPECT_NE(d.hint.find("max_bytes"), std::string::npos) << d.hint;
  // Under the default limits it stops too (at the nesting limit, after about a million bytes).
  const Diag n = pp_err(text);
  EXPECT_NE(n.message.find("nested more than 20 levels"), std::string::npos) << n.str();
}

TEST(Preprocess, IrpAndIrpc) {
  auto p = pp_ok(".irp r, 1, 2 3\n  v_mov_b32 v\\r, \\r\n.endr\n.irpc c, 45\n  s_nop \\c\n.endr\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"v_mov_b32 v1, 1", "v_mov_b32 v2, 2", "v_mov_b32 v3, 3", "s_nop 4",
                                                   "s_nop 5"}));
  EXPECT_NE(pp_err(".irp r, 1\n s_nop \\q\n.endr\n").message.find("unknown macro parameter '\\q'"), std::string::npos);
}

// ---- conditionals ------------------------------------------------------------------------------

TEST(Preprocess, ConditionalsChooseOneBranch) {
  auto p = pp_ok(
      ".set mode, 2\n"
      ".if mode == 1\n s_nop 1\n.elseif mode == 2\n s_nop 2\n.elseif mode == 2\n s_nop 22\n.else\n s_nop 3\n.endif\n"
      ".ifdef mode\n s_nop 4\n.endif\n"
      ".ifndef nothing\n s_nop 5\n.else\n s_nop 55\n.endif\n"
      ".if 0\n.if undefined_symbol_is_not_evaluated\n s_nop 66\n.endif\n.else\n s_nop 6\n.endif\n"
      ".ifb\n s_nop 7\n.endif\n.ifnb x\n s_nop 8\n.endif\n"
      ".ifc abc, abc\n s_nop 9\n.endif\n.ifnc abc, abd\n s_nop 10\n.endif\n"
      ".ifeq mode - 2\n s_nop 11\n.endif\n.ifgt mode\n s_nop 12\n.endif\n.iflt mode\n s_nop 99\n.endif\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"s_nop 2", "s_nop 4", "s_nop 5", "s_nop 6", "s_nop 7", "s_nop 8",
                                                   "s_nop 9", "s_nop 10", "s_nop 11", "s_nop 12"}));
}

TEST(Preprocess, LabelsCountAsDefinedForIfdef) {
  auto p = pp_ok("here:\n.ifdef here\n s_nop 1\n.endif\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"here:", "s_nop 1"}));
}

TEST(Preprocess, ConditionalErrors) {
  EXPECT_NE(pp_err(".endif\n").message.find("'.endif' without a matching '.if'"), std::string::npos);
  EXPECT_NE(pp_err(".else\n").message.find("'.else' without a matching '.if'"), std::string::npos);
  EXPECT_NE(pp_err(".if 1\n.else\n.else\n.endif\n").message.find("'.else' without"), std::string::npos);
  const Diag u = pp_err("s_nop 0\n.if 1\ns_nop 1\n");
  EXPECT_EQ(u.loc.line, 2u);
  EXPECT_NE(u.message.find("unterminated conditional"), std::string::npos) << u.str();
  const Diag e = pp_err(".if later\n.endif\n");
  EXPECT_EQ(e.loc.col, 5u);
  EXPECT_NE(e.message.find("'later' is not a constant"), std::string::npos) << e.str();
  EXPECT_NE(pp_err(".if 1/0\n.endif\n").message.find("division by zero"), std::string::npos);
  EXPECT_NE(pp_err(".if 1 +\n.endif\n").message.find("expected an expression"), std::string::npos);
  // A conditional opened in a macro must be closed in it.
  EXPECT_NE(pp_err(".macro m\n.if 1\n.endm\nm\n.endif\n").message.find("unterminated conditional"), std::string::npos);
}

// ---- includes ----------------------------------------------------------------------------------

TEST(Preprocess, IncludeSearchesTheNameThenTheFoldersInOrder) {
  PreprocessOptions o;
  o.file = "main.s";
  o.include_dirs = {"inc1", "inc2"};
  o.read_file = map_reader({{"inc2/u.inc", ".macro m\n s_nop 2\n.endm\n.set from_inc, 5\n"},
                            {"inc1/v.inc", "s_nop from_inc\n"},
                            {"w.inc", "s_nop 7\n"},
                            {"inc1/w.inc", "s_nop 8\n"}});
  auto p = pp_ok(".include \"u.inc\"\nm\n.include \"v.inc\"\n.include \"w.inc\"\n", o);
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"s_nop 2", "s_nop 5", "s_nop 7"}));
  const auto& inc = p.lines[1];
  EXPECT_EQ(inc.origin.file, "inc1/v.inc");
  EXPECT_EQ(inc.origin.line, 1u);
  ASSERT_EQ(inc.origin.chain.size(), 1u);
  EXPECT_EQ(inc.origin.chain[0].kind, ExpansionSite::Kind::include);
  EXPECT_EQ(inc.origin.chain[0].file, "main.s");
  EXPECT_EQ(inc.origin.chain[0].line, 3u);
  EXPECT_EQ(p.lines[0].origin.file, "inc2/u.inc") << "a macro body line is where it was written";
}

TEST(Preprocess, IncludeErrors) {
  PreprocessOptions o;
  o.file = "main.s";
  o.include_dirs = {"d"};
  o.read_file = map_reader({{"d/a.inc", ".include \"b.inc\"\n"}, {"d/b.inc", "\n.include \"a.inc\"\n"}});
  const Diag nf = pp_err("s_nop 0\n  .include \"missing.inc\"\n", o);
  EXPECT_EQ(nf.code, DiagCode::io_error);
  EXPECT_EQ(nf.loc.file, "main.s");
  EXPECT_EQ(nf.loc.line, 2u);
  EXPECT_EQ(nf.loc.col, 12u);
  EXPECT_NE(nf.hint.find("'d/missing.inc'"), std::string::npos) << nf.str();
  const Diag cy = pp_err(".include \"a.inc\"\n", o);
  EXPECT_EQ(cy.loc.file, "d/b.inc");
  EXPECT_EQ(cy.loc.line, 2u);
  EXPECT_NE(cy.message.find("include cycle"), std::string::npos) << cy.str();
  EXPECT_NE(pp_err(".include missing.inc\n", o).message.find("quoted file name"), std::string::npos);
}

TEST(Preprocess, BodiesDoNotCrossIncludeBoundaries) {
  PreprocessOptions o;
  o.read_file = map_reader({{"open.inc", ".macro m\n s_nop 0\n"}});
  const Diag d = pp_err(".include \"open.inc\"\n.endm\n", o);
  EXPECT_EQ(d.loc.file, "open.inc");
  EXPECT_NE(d.message.find("unterminated '.macro m'"), std::string::npos) << d.str();
}

// ---- kernels, metadata, comments ---------------------------------------------------------------

TEST(Preprocess, KernelDescriptorValuesAreSubstitutedMetadataIsVerbatim) {
  auto p = pp_ok(
      ".set v_end, 64\n"
      ".amdhsa_kernel k\n"
      "  .amdhsa_next_free_vgpr v_end\n"
      "  .amdhsa_accum_offset v_end / 2\n"
      ".end_amdhsa_kernel\n"
      ".amdgpu_metadata\n"
      "---\n"
      "amdhsa.kernels:\n"
      "  - .name: k  ; v_end \\@ .if 0\n"
      "...\n"
      ".end_amdgpu_metadata\n");
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{".amdhsa_kernel k", ".amdhsa_next_free_vgpr 64",
                                                   ".amdhsa_accum_offset 32", ".end_amdhsa_kernel", ".amdgpu_metadata",
                                                   "---", "amdhsa.kernels:", "- .name: k  ; v_end \\@ .if 0", "...",
                                                   ".end_amdgpu_metadata"}));
  EXPECT_NE(pp_err(".amdgpu_metadata\n---\n").message.find("no '.end_amdgpu_metadata'"), std::string::npos);
}

TEST(Preprocess, BlockCommentsAreRemovedAndLinesKeepTheirNumbers) {
  auto p = pp_ok("/* licence\n * text */\ns_nop 1 /* c */ ; d\n; .if not a directive\n// nor this /*\ns_nop 2\n");
  ASSERT_GE(p.lines.size(), 6u);
  EXPECT_EQ(detail::trim(p.lines[2].text), "s_nop 1         ; d");
  EXPECT_EQ(p.lines[5].origin.line, 6u);
  const Diag d = pp_err("s_nop 0\n  /* never closed\n");
  EXPECT_EQ(d.loc.line, 2u);
  EXPECT_EQ(d.loc.col, 3u);
}

TEST(Preprocess, OtherDirectivesPassThrough) {
  auto p = pp_ok(".text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_endpgm\n");
  EXPECT_EQ(lines_of(p),
            (std::vector<std::string>{".text", ".globl k", ".p2align 8", ".type k,@function", "k:", "s_endpgm"}));
  EXPECT_EQ(pp_err(".altmacro\n").code, DiagCode::unsupported);
  EXPECT_NE(pp_err(".error \"stop here\"\n").message.find("stop here"), std::string::npos);
}

TEST(Preprocess, ErrorsAreGatheredOncePerPlace) {
  auto r = preprocess_all(".macro m\n s_nop \\nope\n.endm\nm\nm\n.endif\n.if x\n.endif\n", {});
  ASSERT_EQ(r.diags.size(), 3u) << all_diags(r.diags);
  EXPECT_EQ(r.diags[0].loc.line, 2u);
  EXPECT_EQ(r.diags[1].loc.line, 6u);
  EXPECT_EQ(r.diags[2].loc.line, 7u);
}

TEST(Preprocess, EveryPrefixOfATrickyProgramTerminates) {
  // Unterminated bodies, conditionals, comments and strings at every cut: a Diag or a result, never a hang.
  const std::string prog =
      "/* c */ .set a, 1\n.macro m x, y=\"s\" , z:vararg\n.if \\x\n.rept \\x\n s_nop \\x\\()\\@\n.endr\n.else\n"
      ".irp q, 1 2\n s_nop \\q\n.endr\n.endif\n.endm\nm 2, , a b\nm 0\n.amdgpu_metadata\n- x\n.end_amdgpu_metadata\n";
  PreprocessOptions o;
  o.max_lines = 10000;
  // A cut inside the comment leaves it unterminated, and one after the .macro line and before its .endm leaves the
  // macro unterminated: both must say so.
  const std::size_t comment_end = prog.find("*/") + 2;
  const std::size_t macro_line_end = prog.find('\n', prog.find(".macro"));
  const std::size_t endm_end = prog.find(".endm") + 5;
  for (std::size_t n = 0; n <= prog.size(); ++n) {
    const auto r = preprocess_all(prog.substr(0, n), o);
    for (const Diag& d : r.diags) EXPECT_FALSE(d.message.empty()) << "cut at " << n;
    if (n >= 2 && n < comment_end) {
      ASSERT_FALSE(r.diags.empty()) << "cut at " << n << " inside the comment";
      EXPECT_NE(r.diags[0].message.find("unterminated comment"), std::string::npos) << r.diags[0].str();
    }
    if (n > macro_line_end && n < endm_end) EXPECT_FALSE(r.diags.empty()) << "cut at " << n << " inside the macro";
  }
}

// ---- corpus oracle -----------------------------------------------------------------------------

/// `.include "x"` lines replaced by the file's text: exactly what the assembler does with them.
std::string inline_includes(const std::string& text, const std::filesystem::path& dir, int depth = 0) {
  static const std::regex inc(R"re(^\s*\.include\s+"([^"]+)"\s*$)re");
  std::string out;
  for (const auto& l : test::split_lines(text)) {
    std::smatch m;
    if (depth < 8 && std::regex_match(l, m, inc)) out += inline_includes(test::slurp(dir / m[1].str()), dir, depth + 1);
    else out += l;
    out += '\n';
  }
  return out;
}

TEST(PreprocessCorpus, MIOpenKernelsReassembleToLlvmBytes) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const auto root = corpus / "miopen-igemm-asm";
  const auto files = test::files_with_ext(root, ".s");
  if (files.empty()) GTEST_SKIP() << "no miopen-igemm-asm kernels under " << root;
  std::size_t total_insts = 0, total_files_equal = 0;
  for (const auto& f : files) {
    const std::string rel = std::filesystem::relative(f, root).string();
    SCOPED_TRACE(rel);
    const bool is90a = rel.rfind("gfx90a", 0) == 0;
    const Target target = is90a ? Target::gfx90a : Target::gfx942;
    auto ctx = mc::Context::create(is90a ? "gfx90a" : "gfx942");
    ASSERT_TRUE(ctx) << ctx.error().str();

    const std::string original = test::slurp(f);
    PreprocessOptions o;
    o.file = f.string();
    o.include_dirs = {f.parent_path().string()};
    auto pp = preprocess(original, o);
    ASSERT_TRUE(pp) << pp.error().str();

    // Every instruction line must parse; the printed instruction replaces it, everything else stays.
    std::string printed;
    std::size_t insts = 0, bad = 0;
    bool in_metadata = false;  // YAML between .amdgpu_metadata and .end_amdgpu_metadata is not assembly
    for (const auto& l : pp->lines) {
      const std::string_view t = detail::trim(l.text);
      if (t.rfind(".amdgpu_metadata", 0) == 0) in_metadata = true;
      if (in_metadata) {
        in_metadata = t.rfind(".end_amdgpu_metadata", 0) != 0;
        printed += l.text + "\n";
        continue;
      }
      auto syn = detail::parse_line(l.text, l.origin.line);
      if (!syn || syn->mnemonic.empty()) {
        EXPECT_TRUE(syn.has_value()) << l.origin.str() << ": " << syn.error().str();
        printed += l.text + "\n";
        continue;
      }
      auto in = parse_inst(l.text, target);
      ++insts;
      if (!in) {
        ++bad;
        ADD_FAILURE() << l.origin.str() << ": " << in.error().str();
        printed += l.text + "\n";
        continue;
      }
      for (const auto& lab : syn->labels) printed += lab + ":\n";
      printed += "  " + print_inst(*in) + "\n";
    }
    const auto want = llvm_bytes(**ctx, inline_includes(original, f.parent_path()), rel + " (original)");
    const auto got = llvm_bytes(**ctx, printed, rel + " (preprocessed, parsed, printed)");
    std::size_t first_diff = 0;
    while (first_diff < want.size() && first_diff < got.size() && want[first_diff] == got[first_diff]) ++first_diff;
    const bool equal = want == got;
    total_insts += insts;
    total_files_equal += equal;
    std::printf("[ preprocess ] %s: %s, %zu instruction lines parsed (%zu failed); "
                "LLVM %zu / ours %zu instructions, bytes %s\n",
                rel.c_str(), is90a ? "gfx90a" : "gfx942", insts, bad, want.size(), got.size(),
                equal ? "identical" : "DIFFER");
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(got.size(), want.size());
    EXPECT_TRUE(equal) << "first difference at instruction " << first_diff;
  }
  std::printf("[ preprocess ] %zu files, %zu instruction lines, %zu files byte-identical\n", files.size(), total_insts,
              total_files_equal);
  EXPECT_EQ(total_files_equal, files.size());
}

}  // namespace
