// Tests of asmevo::mc::Context (include/asmevo/mc/llvm_mc.hpp) against bytes and text produced by LLVM's own tools.
//
// The outside oracle: every expected byte string and opcode name below was obtained once by running
// Debian's LLVM 22.1.8 tools, and is hard-coded here:
//   llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=<target> -show-encoding   (encodings, printed text)
//   llvm-mc-22 ... -show-inst                                              (opcode record names)
//   llvm-mc-22 ... -filetype=obj  +  llvm-objdump-22 -d --mcpu=<target>   (resolved branch offsets,
//                                       which -show-encoding prints as fixup placeholders "A,A")
//   llvm-mc-22 ... --disassemble                                           (invalid words, branch text)
#include <asmevo/mc/llvm_mc.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using asmevo::DiagCode;
using asmevo::mc::Context;
using Bytes = std::vector<std::uint8_t>;

std::unique_ptr<Context> make(std::string_view mcpu, std::string_view features = {}) {
  auto c = Context::create(mcpu, features);
  if (!c) ADD_FAILURE() << c.error().str();
  return c ? std::move(*c) : nullptr;
}

struct Case {
  std::string_view asm_text;
  Bytes bytes;
  std::string_view printed;  // what llvm-mc -show-encoding prints (and the disassembler must print back)
};

// One instruction per encoding family of gfx9 (VOP1/2/3/3P/C, DPP, SDWA, SOP1/2/C/P, SMEM, FLAT global,
// DS, MUBUF, MAI), plus literals. These encode identically on gfx90a, gfx942 and gfx950 (all GFX9).
const std::vector<Case>& common_cases() {
  static const std::vector<Case> cases = {
      {"v_add_f32 v0, v1, v2", {0x01, 0x05, 0x00, 0x02}, "v_add_f32_e32 v0, v1, v2"},
      // 32-bit literal after the instruction word (src0 = 0xff means "literal follows").
      {"s_mov_b32 s0, 0x12345678", {0xff, 0x00, 0x80, 0xbe, 0x78, 0x56, 0x34, 0x12}, "s_mov_b32 s0, 0x12345678"},
      {"v_add_f32 v0, 0x3e800001, v2", {0xff, 0x04, 0x00, 0x02, 0x01, 0x00, 0x80, 0x3e},
       "v_add_f32_e32 v0, 0x3e800001, v2"},
      // 1.5 is not an inline constant on gfx9 (only 0.5, 1.0, 2.0, 4.0 and 1/(2pi) are): a literal.
      {"v_add_f32 v0, 1.5, v2", {0xff, 0x04, 0x00, 0x02, 0x00, 0x00, 0xc0, 0x3f}, "v_add_f32_e32 v0, 0x3fc00000, v2"},
      // 0.5 is an inline constant (src0 = 240): no literal dword.
      {"v_add_f32 v0, 0.5, v2", {0xf0, 0x04, 0x00, 0x02}, "v_add_f32_e32 v0, 0.5, v2"},
      {"v_fma_f32 v0, v1, -v2, |v3|", {0x00, 0x04, 0xcb, 0xd1, 0x01, 0x05, 0x0e, 0x44}, "v_fma_f32 v0, v1, -v2, |v3|"},
      {"global_load_dwordx4 v[0:3], v[4:5], off offset:16", {0x10, 0x80, 0x5c, 0xdc, 0x04, 0x00, 0x7f, 0x00},
       "global_load_dwordx4 v[0:3], v[4:5], off offset:16"},
      {"s_load_dwordx2 s[2:3], s[0:1], 0x10", {0x80, 0x00, 0x06, 0xc0, 0x10, 0x00, 0x00, 0x00},
       "s_load_dwordx2 s[2:3], s[0:1], 0x10"},
      {"s_waitcnt vmcnt(0) lgkmcnt(0)", {0x70, 0x00, 0x8c, 0xbf}, "s_waitcnt vmcnt(0) lgkmcnt(0)"},
      {"ds_read_b128 v[0:3], v4 offset:16", {0x10, 0x00, 0xfe, 0xd9, 0x04, 0x00, 0x00, 0x00},
       "ds_read_b128 v[0:3], v4 offset:16"},
      {"buffer_load_dword v0, v1, s[4:7], 0 offen", {0x00, 0x10, 0x50, 0xe0, 0x01, 0x00, 0x01, 0x80},
       "buffer_load_dword v0, v1, s[4:7], 0 offen"},
      {"v_cmp_gt_f32 vcc, v0, v1", {0x00, 0x03, 0x88, 0x7c}, "v_cmp_gt_f32_e32 vcc, v0, v1"},
      {"v_pk_fma_f16 v0, v1, v2, v3 op_sel:[1,0,0]", {0x00, 0x48, 0x8e, 0xd3, 0x01, 0x05, 0x0e, 0x1c},
       "v_pk_fma_f16 v0, v1, v2, v3 op_sel:[1,0,0]"},
      {"v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
       {0xfa, 0x02, 0x00, 0x7e, 0x01, 0xb1, 0x00, 0xff},
       "v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf"},
      {"v_add_u32_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD",
       {0xf9, 0x04, 0x00, 0x68, 0x01, 0x05, 0x00, 0x06},
       "v_add_u32_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD"},
      {"s_cselect_b64 s[0:1], -1, 0", {0xc1, 0x80, 0x80, 0x85}, "s_cselect_b64 s[0:1], -1, 0"},
      {"v_accvgpr_write_b32 a0, v1", {0x00, 0x40, 0xd9, 0xd3, 0x01, 0x01, 0x00, 0x18}, "v_accvgpr_write_b32 a0, v1"},
      {"v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]", {0x00, 0x40, 0xb0, 0xd3, 0x02, 0x09, 0x1a, 0x1c},
       "v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]"},
      {"v_lshl_add_u32 v1, v2, 2, v4", {0x01, 0x00, 0xfd, 0xd1, 0x02, 0x05, 0x11, 0x04}, "v_lshl_add_u32 v1, v2, 2, v4"},
      {"s_getpc_b64 s[0:1]", {0x00, 0x1c, 0x80, 0xbe}, "s_getpc_b64 s[0:1]"},
  };
  return cases;
}

// Target-specific: what exists only from some target on, and where the printed spelling differs.
std::vector<Case> target_cases(std::string_view mcpu) {
  const Bytes mfma_32x32x8f16 = {0x00, 0x80, 0xcc, 0xd3, 0x00, 0x05, 0x02, 0x04};
  if (mcpu == "gfx90a")
    return {{"v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]", mfma_32x32x8f16,
             "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]"}};
  std::vector<Case> v = {
      // gfx940+ prints the MFMA with an underscore before the type.
      {"v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]", mfma_32x32x8f16,
       "v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]"},
      {"v_mfma_f32_32x32x16_fp8_fp8 a[0:15], v[0:1], v[2:3], a[0:15]",
       {0x00, 0x80, 0xf7, 0xd3, 0x00, 0x05, 0x02, 0x04}, "v_mfma_f32_32x32x16_fp8_fp8 a[0:15], v[0:1], v[2:3], a[0:15]"},
  };
  if (mcpu == "gfx950")
    v.push_back({"v_mfma_f32_32x32x16_bf16 a[0:15], v[0:3], v[4:7], a[0:15]",
                 {0x00, 0x80, 0xb7, 0xd3, 0x00, 0x09, 0x02, 0x04},
                 "v_mfma_f32_32x32x16_bf16 a[0:15], v[0:3], v[4:7], a[0:15]"});
  return v;
}

class PerTarget : public ::testing::TestWithParam<std::string_view> {};

TEST_P(PerTarget, EncodesLikeLlvmMcShowEncoding) {
  auto c = make(GetParam());
  ASSERT_TRUE(c);
  auto cases = common_cases();
  for (auto& t : target_cases(GetParam())) cases.push_back(t);
  for (const Case& k : cases) {
    auto b = c->encode_line(k.asm_text);
    ASSERT_TRUE(b) << k.asm_text << ": " << b.error().str();
    EXPECT_EQ(*b, k.bytes) << GetParam() << ": " << k.asm_text;
  }
}

TEST_P(PerTarget, AssemblesAWholeTextWithOneEntryPerInstructionAndItsLine) {
  auto c = make(GetParam());
  ASSERT_TRUE(c);
  std::string text;
  const auto& cases = common_cases();
  for (const Case& k : cases) text += std::string("\t") + std::string(k.asm_text) + "\n\n";  // instructions on odd lines
  auto r = c->assemble(text, "whole.s");
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r->size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ((*r)[i].line, 2 * i + 1);
    EXPECT_EQ((*r)[i].bytes, cases[i].bytes) << cases[i].asm_text;
  }
}

TEST_P(PerTarget, DisassemblyPrintsWhatTheAssemblerPrints) {
  auto c = make(GetParam());
  ASSERT_TRUE(c);
  auto cases = common_cases();
  for (auto& t : target_cases(GetParam())) cases.push_back(t);
  for (const Case& k : cases) {
    auto d = c->decode_one(k.bytes);
    ASSERT_TRUE(d) << k.asm_text << ": " << d.error().str();
    EXPECT_EQ(d->text, k.printed);
    EXPECT_EQ(d->size, k.bytes.size());
    // And the printed text assembles back to the same bytes: the encode/decode identity.
    auto again = c->encode_line(d->text);
    ASSERT_TRUE(again) << d->text << ": " << again.error().str();
    EXPECT_EQ(*again, k.bytes) << d->text;
  }
}

TEST_P(PerTarget, OpcodeNameIsTheTableGenRecord) {
  auto c = make(GetParam());
  ASSERT_TRUE(c);
  // From llvm-mc-22 -show-inst.
  const std::string mfma = GetParam() == "gfx90a" ? "V_MFMA_F32_32X32X8F16_gfx90a_acd" : "V_MFMA_F32_32X32X8F16_gfx940_acd";
  const std::vector<std::pair<std::string_view, std::string>> expect = {
      {"v_add_f32 v0, v1, v2", "V_ADD_F32_e32_vi"},
      {"v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]", mfma},
      {"global_load_dwordx4 v[0:3], v[4:5], off offset:16", "GLOBAL_LOAD_DWORDX4_vi"},
      {"s_mov_b32 s0, 0x12345678", "S_MOV_B32_vi"},
      {"v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]", "V_PK_FMA_F32_vi"},
  };
  for (const auto& [text, name] : expect) {
    auto b = c->encode_line(text);
    ASSERT_TRUE(b) << b.error().str();
    auto d = c->decode_one(*b);
    ASSERT_TRUE(d) << d.error().str();
    EXPECT_EQ(d->opcode_name, name) << text;
  }
}

// Branches whose labels are defined earlier and later, with .p2align padding in between (as Triton's
// gfx942 prologue does). Expected words from llvm-mc-22 -filetype=obj + llvm-objdump-22, identical on
// all three targets: s_branch 60 (BF82003C), s_cbranch_scc1 65533 (BF85FFFD), s_cbranch_execz 1 (BF880001).
TEST_P(PerTarget, BranchesForwardAndBackwardAreResolved) {
  auto c = make(GetParam());
  ASSERT_TRUE(c);
  const std::string text =
      "\t.text\n"                                // 1
      "\t.globl\tk\n"                            // 2
      "\t.p2align\t8\n"                          // 3
      "k:\n"                                     // 4
      "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"   // 5
      "\ts_waitcnt lgkmcnt(0)\n"                 // 6
      "\ts_branch .LBB0_0\n"                     // 7  forward, over 0xf0 bytes of padding
      "\t.p2align\t8\n"                          // 8
      ".LBB0_0:\n"                               // 9
      "\ts_mov_b32 s4, 0\n"                      // 10
      ".LBB0_1:\n"                               // 11
      "\ts_add_u32 s4, s4, 1\n"                  // 12
      "\ts_cmp_lt_u32 s4, 16\n"                  // 13
      "\ts_cbranch_scc1 .LBB0_1\n"               // 14 backward
      "\ts_cbranch_execz .LBB0_2\n"              // 15 forward
      "\tv_mov_b32_e32 v0, s4\n"                 // 16
      ".LBB0_2:\n"                               // 17
      "\ts_endpgm\n";                            // 18
  auto r = c->assemble(text, "branches.s");
  ASSERT_TRUE(r) << r.error().str();
  const std::vector<std::pair<std::uint32_t, Bytes>> expect = {
      {5, {0x80, 0x00, 0x06, 0xc0, 0x00, 0x00, 0x00, 0x00}},
      {6, {0x7f, 0xc0, 0x8c, 0xbf}},
      {7, {0x3c, 0x00, 0x82, 0xbf}},
      {10, {0x80, 0x00, 0x84, 0xbe}},
      {12, {0x04, 0x81, 0x04, 0x80}},
      {13, {0x04, 0x90, 0x0a, 0xbf}},
      {14, {0xfd, 0xff, 0x85, 0xbf}},
      {15, {0x01, 0x00, 0x88, 0xbf}},
      {16, {0x04, 0x02, 0x00, 0x7e}},
      {18, {0x00, 0x00, 0x81, 0xbf}},
  };
  ASSERT_EQ(r->size(), expect.size());
  for (std::size_t i = 0; i < expect.size(); ++i) {
    EXPECT_EQ((*r)[i].line, expect[i].first);
    EXPECT_EQ((*r)[i].bytes, expect[i].second) << "line " << expect[i].first;
  }
  // llvm-mc --disassemble prints the raw simm16 of a branch (no symbolizer).
  auto d = c->decode_one((*r)[7].bytes, 0x110);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->text, "s_cbranch_execz 1");
  d = c->decode_one((*r)[6].bytes);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->text, "s_cbranch_scc1 65533");
}

INSTANTIATE_TEST_SUITE_P(Targets, PerTarget, ::testing::Values("gfx90a", "gfx942", "gfx950"),
                         [](const auto& info) { return std::string(info.param); });

TEST(Create, RejectsUnknownProcessorsAndFeaturesWithoutPrinting) {
  auto bad_cpu = Context::create("gfx9999");
  ASSERT_FALSE(bad_cpu);
  EXPECT_EQ(bad_cpu.error().code, DiagCode::usage);
  EXPECT_NE(bad_cpu.error().message.find("gfx9999"), std::string::npos);

  auto bad_feature = Context::create("gfx942", "+nonsense");
  ASSERT_FALSE(bad_feature);
  EXPECT_EQ(bad_feature.error().code, DiagCode::usage);
  EXPECT_NE(bad_feature.error().message.find("nonsense"), std::string::npos);

  auto no_sign = Context::create("gfx942", "xnack");
  ASSERT_FALSE(no_sign);
  EXPECT_EQ(no_sign.error().code, DiagCode::usage);

  auto xnack = Context::create("gfx90a", "+xnack");
  ASSERT_TRUE(xnack) << xnack.error().str();
  EXPECT_EQ((*xnack)->features(), "+xnack");
}

TEST(Assemble, DirectivesProduceNoEntries) {
  auto c = make("gfx942");
  ASSERT_TRUE(c);
  const std::string text =
      "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n"
      "\t.amdhsa_code_object_version 5\n"
      "\t.text\n"
      "\t.set N, 4\n"
      "\t.globl\tf\n"
      "\t.p2align\t8\n"
      "\t.type\tf,@function\n"
      "f:                 ; a label with a comment\n"
      "\ts_mov_b32 s0, N\n"
      "\ts_endpgm\n";
  auto r = c->assemble(text);
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].line, 9u);
  EXPECT_EQ((*r)[0].bytes, (Bytes{0x84, 0x00, 0x80, 0xbe}));  // s_mov_b32 s0, 4 (inline constant)
  EXPECT_EQ((*r)[1].line, 10u);
}

TEST(Assemble, AnInvalidLineIsADiagWithLineColumnAndSourceText) {
  auto c = make("gfx942");
  ASSERT_TRUE(c);
  auto r = c->assemble("s_nop 0\n  v_add_f32 v0, v1\n", "bad.s");
  ASSERT_FALSE(r);
  const asmevo::Diag& d = r.error();
  EXPECT_EQ(d.code, DiagCode::encode_error);
  EXPECT_EQ(d.loc.file, "bad.s");
  EXPECT_EQ(d.loc.line, 2u);
  EXPECT_EQ(d.loc.col, 3u);
  EXPECT_EQ(d.text, "  v_add_f32 v0, v1");
  EXPECT_EQ(d.message, "too few operands for instruction");  // LLVM's words (llvm-mc-22 prints the same)
  EXPECT_EQ(d.str().rfind("bad.s:2:3: error: too few operands", 0), 0u) << d.str();

  // An instruction the target does not have is an error too, on that target only.
  auto g90a = make("gfx90a");
  ASSERT_TRUE(g90a);
  auto mfma = g90a->encode_line("v_mfma_f32_32x32x16_fp8_fp8 a[0:15], v[0:1], v[2:3], a[0:15]");
  ASSERT_FALSE(mfma);
  EXPECT_EQ(mfma.error().message, "instruction not supported on this GPU");
}

TEST(Assemble, GathersEveryErrorAndKeepsTheGoodLines) {
  auto c = make("gfx942");
  ASSERT_TRUE(c);
  const std::string text =
      "s_nop 0\n"                  // 1 ok
      "v_add_f32 v0, v1\n"         // 2 too few operands
      "s_mov_b32 s0, s1\n"         // 3 ok
      "foo_bar v1\n"               // 4 invalid instruction
      "s_branch nowhere\n"         // 5 undefined label (found when fixups are resolved)
      "v_mov_b32 v0, v300\n"       // 6 register out of range
      "back: s_branch back\n";     // 7 ok, branch to itself
  const asmevo::mc::AssembleReport r = c->assemble_all(text, "many.s");
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 4u);
  EXPECT_EQ(r.failed_lines(), (std::vector<std::uint32_t>{2, 4, 5, 6}));
  EXPECT_EQ(r.errors[0].message, "too few operands for instruction");
  EXPECT_EQ(r.errors[1].message, "invalid instruction");
  EXPECT_EQ(r.errors[2].message, "undefined label 'nowhere'");
  for (const auto& e : r.errors) EXPECT_EQ(e.code, DiagCode::encode_error);

  ASSERT_EQ(r.instructions.size(), 3u);
  EXPECT_EQ(r.instructions[0].line, 1u);
  EXPECT_EQ(r.instructions[1].line, 3u);
  EXPECT_EQ(r.instructions[1].bytes, (Bytes{0x01, 0x00, 0x80, 0xbe}));
  EXPECT_EQ(r.instructions[2].line, 7u);
  EXPECT_EQ(r.instructions[2].bytes, (Bytes{0xff, 0xff, 0x82, 0xbf}));  // s_branch -1: to itself

  // assemble() returns the first of them.
  auto first = c->assemble(text, "many.s");
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().loc.line, 2u);
}

TEST(Assemble, GarbageTextIsReportedNeverCrashesNorHangs) {
  auto c = make("gfx942");
  ASSERT_TRUE(c);
  // Inputs that make llvm-mc-22 itself spin forever (two lexer errors in the last statement, or an
  // unterminated string): detail/lex_guard.hpp reports them as the lexer's errors instead.
  for (std::string_view text : {std::string_view("s_nop 0 ``"), std::string_view("x\xc3\xa9\n"),
                                std::string_view("s\xe1\""), std::string_view("v_add_f32 v0, v1, v2\n/* open")}) {
    const auto r = c->assemble_all(text);
    EXPECT_FALSE(r.ok()) << text;
  }
  const auto unterminated = c->assemble_all("s_nop 0\n.ascii \"abc\ns_nop 0\n");
  ASSERT_EQ(unterminated.errors.size(), 1u);
  EXPECT_EQ(unterminated.errors[0].message, "unterminated string constant");
  EXPECT_EQ(unterminated.errors[0].loc.line, 2u);
  EXPECT_EQ(unterminated.errors[0].loc.col, 8u);
  ASSERT_EQ(unterminated.instructions.size(), 1u);  // the string swallows the rest, as in llvm-mc

  // Random bytes and random mixes of assembler tokens.
  std::mt19937 rng(2024);
  const std::vector<std::string> toks = {"v_add_f32", "s_mov_b32", "v0", "s[0:1]", ",", " ", "\n", "0x", "1.5", "l:",
                                         "s_branch", ".p2align", ".set", "=", "(", ")", "\"", ";", "1f", "1b", "1:",
                                         "lit(", "v[0:", "]", ".if", ".else", ".endif", "abs(", "|", "\\", "`"};
  for (int i = 0; i < 300; ++i) {
    std::string s;
    const int n = static_cast<int>(rng() % 30);
    for (int j = 0; j < n; ++j) s += rng() % 4 == 0 ? std::string(1, static_cast<char>(rng() % 256)) : toks[rng() % toks.size()];
    const auto r = c->assemble_all(s);
    for (const auto& e : r.errors) EXPECT_FALSE(e.message.empty());
  }
}

TEST(EncodeLine, NeedsExactlyOneInstruction) {
  auto c = make("gfx942");
  ASSERT_TRUE(c);
  auto none = c->encode_line("  ; only a comment");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, DiagCode::usage);
  auto two = c->encode_line("s_nop 0\ns_nop 1");
  ASSERT_FALSE(two);
  EXPECT_EQ(two.error().code, DiagCode::usage);
  auto undefined = c->encode_line("s_branch somewhere");
  ASSERT_FALSE(undefined);
  EXPECT_EQ(undefined.error().code, DiagCode::encode_error);
}

TEST(Disassemble, InvalidWordsAreDecodeErrorsNamingOffsetAndBytes) {
  auto c = make("gfx942");
  ASSERT_TRUE(c);
  // s_nop 0, then 0xff000000, which llvm-mc-22 --disassemble calls "invalid instruction encoding".
  const Bytes bytes = {0x00, 0x00, 0x80, 0xbf, 0x00, 0x00, 0x00, 0xff};
  auto d = c->disassemble(bytes);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code, DiagCode::decode_error);
  EXPECT_NE(d.error().message.find("offset 4"), std::string::npos) << d.error().str();
  EXPECT_EQ(d.error().text, "0x00 0x00 0x00 0xff");

  for (const Bytes& garbage : {Bytes{0xff, 0xff, 0xff, 0xff}, Bytes{0x00, 0x00, 0xbf, 0xbf}, Bytes{0x00, 0x00, 0x00, 0xfc}}) {
    auto one = c->decode_one(garbage);
    ASSERT_FALSE(one);
    EXPECT_EQ(one.error().code, DiagCode::decode_error);
  }
  // Truncated input: fewer than 4 bytes, or s_mov_b32 with a literal operand but no literal dword
  // (llvm-mc-22 --disassemble crashes on the latter; here it is a Diag).
  EXPECT_FALSE(c->decode_one(Bytes{0x00, 0x00}));
  EXPECT_FALSE(c->decode_one(Bytes{}));
  auto cut = c->disassemble(Bytes{0x00, 0x00, 0x80, 0xbf, 0xff, 0x00, 0x80, 0xbe});
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, DiagCode::decode_error);
  EXPECT_NE(cut.error().message.find("truncated instruction at offset 4"), std::string::npos) << cut.error().str();
  EXPECT_EQ(cut.error().text, "0xff 0x00 0x80 0xbe");

  // v_madak_f16 v1, v1, v2, K with K = 0xff: LLVM 22's decoder (and llvm-mc-22 --disassemble) crashes;
  // here it is refused as unsupported. K = 0xfe decodes normally.
  auto madak = c->decode_one(Bytes{0x01, 0x05, 0x02, 0x4a, 0xff, 0x00, 0x00, 0x00});
  ASSERT_FALSE(madak);
  EXPECT_EQ(madak.error().code, DiagCode::unsupported);
  auto madak_fe = c->decode_one(Bytes{0x01, 0x05, 0x02, 0x4a, 0xfe, 0x00, 0x00, 0x00});
  ASSERT_TRUE(madak_fe) << madak_fe.error().str();
  EXPECT_EQ(madak_fe->text, "v_madak_f16 v1, v1, v2, 0xfe");

  // Random bytes: every word either decodes or is a Diag; nothing crashes.
  std::mt19937 rng(7);
  Bytes random(4096);
  for (auto& b : random) b = static_cast<std::uint8_t>(rng());
  for (std::size_t len = 0; len <= 16; ++len)
    for (std::size_t off = 0; off + len <= random.size(); off += 4) {
      auto r = c->decode_one(std::span(random).subspan(off, len));
      if (r) {
        EXPECT_GT(r->size, 0u);
        EXPECT_LE(r->size, len);
      }
    }
}

TEST(Disassemble, WalksConsecutiveInstructions) {
  auto c = make("gfx942");
  ASSERT_TRUE(c);
  const Bytes bytes = {0x00, 0x00, 0x80, 0xbf,                           // s_nop 0
                       0xff, 0x00, 0x80, 0xbe, 0x78, 0x56, 0x34, 0x12,   // s_mov_b32 s0, 0x12345678
                       0x00, 0x00, 0x81, 0xbf};                          // s_endpgm
  auto d = c->disassemble(bytes, 0x1000);
  ASSERT_TRUE(d) << d.error().str();
  ASSERT_EQ(d->size(), 3u);
  EXPECT_EQ((*d)[0].text, "s_nop 0");
  EXPECT_EQ((*d)[1].offset, 4u);
  EXPECT_EQ((*d)[1].size, 8u);
  EXPECT_EQ((*d)[1].text, "s_mov_b32 s0, 0x12345678");
  EXPECT_EQ((*d)[2].offset, 12u);
  EXPECT_EQ((*d)[2].text, "s_endpgm");
  EXPECT_EQ((*d)[2].opcode_name, "S_ENDPGM_vi");
}

// Real compiler output: every instruction of the Triton kernels assembles, disassembles, and the
// disassembly assembles back to the same bytes. Skipped where the corpus is absent.
TEST(Corpus, TritonKernelsRoundTrip) {
  namespace fs = std::filesystem;
  const char* env = std::getenv("ASMEVO_CORPUS_DIR");
  const fs::path dir = fs::path(env != nullptr ? env : ASMEVO_TEST_DEFAULT_CORPUS) / "triton";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "corpus not found at " << dir << " (set ASMEVO_CORPUS_DIR)";
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".s") continue;
    std::string mcpu;
    for (std::string_view t : {"gfx90a", "gfx942", "gfx950"})
      if (name.find(std::string(".") + std::string(t) + ".") != std::string::npos) mcpu = t;
    if (mcpu.empty()) continue;
    auto c = make(mcpu);
    ASSERT_TRUE(c);
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    auto r = c->assemble(ss.str(), name);
    ASSERT_TRUE(r) << r.error().str();
    ASSERT_FALSE(r->empty()) << name;
    std::string again_text;
    std::vector<std::string> texts;
    for (const auto& e : *r) {
      auto d = c->decode_one(e.bytes);
      ASSERT_TRUE(d) << name << ":" << e.line << ": " << d.error().str();
      ASSERT_EQ(d->size, e.bytes.size()) << name << ":" << e.line;
      again_text += d->text + "\n";
      texts.push_back(d->text);
    }
    auto again = c->assemble(again_text, name + ".disasm");
    ASSERT_TRUE(again) << again.error().str();
    ASSERT_EQ(again->size(), r->size()) << name;
    for (std::size_t i = 0; i < r->size(); ++i)
      ASSERT_EQ((*again)[i].bytes, (*r)[i].bytes) << name << ":" << (*r)[i].line << " disassembled as " << texts[i];
    ++files;
  }
  EXPECT_GT(files, 0u);
}

}  // namespace
