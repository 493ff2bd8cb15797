// Unit tests of ir/parser.hpp: form selection as LLVM's matcher does it (LLVM MC is the oracle for the record
// it picks), literal and constant-bus rules, cache-policy spellings per target, and the diagnostics.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/mc/llvm_mc.hpp"

namespace {

using namespace asmevo;

mc::Context& llvm(Target t) {
  static std::unique_ptr<mc::Context> ctx[3];
  auto& c = ctx[static_cast<int>(t)];
  if (!c) {
    auto r = mc::Context::create(to_string(t));
    if (!r) throw std::runtime_error(r.error().str());
    c = std::move(*r);
  }
  return *c;
}

/// The TableGen record LLVM's assembler picks for `text`, read back through its disassembler.
std::string llvm_record(Target t, const std::string& text) {
  auto b = llvm(t).encode_line(text);
  if (!b) return "<llvm rejects: " + b.error().message + ">";
  auto d = llvm(t).decode_one(*b);
  return d ? d->opcode_name : "<undecodable>";
}

/// Parses `text`, checks the form is the one LLVM picks, and that printing it gives LLVM's bytes.
void expect_form_like_llvm(Target t, const std::string& text, std::string_view variant_suffix) {
  auto in = parse_inst(text, t);
  ASSERT_TRUE(in) << text << ": " << in.error().str();
  EXPECT_EQ(form_name(*in), llvm_record(t, text)) << text;
  EXPECT_NE(form_name(*in).find(variant_suffix), std::string_view::npos) << text << " -> " << form_name(*in);
  auto ours = llvm(t).encode_line(print_inst(*in));
  auto theirs = llvm(t).encode_line(text);
  ASSERT_TRUE(ours && theirs) << text;
  EXPECT_EQ(*ours, *theirs) << text << " printed as " << print_inst(*in);
}

Diag expect_error(Target t, const std::string& text, std::string_view what) {
  auto in = parse_inst(text, t);
  EXPECT_FALSE(in) << "accepted " << text << " as " << (in ? form_name(*in) : "");
  if (in) return {};
  const Diag d = in.error();
  EXPECT_NE(d.message.find(what), std::string::npos) << text << ": " << d.str();
  EXPECT_GE(d.loc.line, 1u) << text;
  EXPECT_GE(d.loc.col, 1u) << text << ": " << d.str();
  EXPECT_FALSE(d.text.empty()) << text;
  return d;
}

TEST(Parser, PicksE32WhenOperandsFit) {
  for (Target t : all_targets) {
    expect_form_like_llvm(t, "v_add_f32 v0, v1, v2", "_e32");
    expect_form_like_llvm(t, "v_add_f32 v0, s1, v2", "_e32");        // src0 may be scalar in e32
    expect_form_like_llvm(t, "v_add_f32 v0, 0x12345678, v2", "_e32");  // literal only in e32
    expect_form_like_llvm(t, "v_cmp_lt_f32 vcc, v1, v2", "_e32");
    expect_form_like_llvm(t, "v_cndmask_b32 v0, v1, v2, vcc", "_e32");
  }
}

TEST(Parser, PicksE64WhenOnlyVop3CanEncodeIt) {
  for (Target t : all_targets) {
    expect_form_like_llvm(t, "v_add_f32 v0, v1, s2", "_e64");      // src1 scalar
    expect_form_like_llvm(t, "v_add_f32 v0, -v1, |v2|", "_e64");   // modifiers (gfx9 has no VOP2 abs)
    expect_form_like_llvm(t, "v_add_f32 v0, v1, v2 clamp", "_e64");
    expect_form_like_llvm(t, "v_add_f32 v0, v1, v2 mul:2", "_e64");
    expect_form_like_llvm(t, "v_add_f32_e64 v0, v1, v2", "_e64");  // forced
    expect_form_like_llvm(t, "v_cmp_lt_f32 s[4:5], v1, v2", "_e64");
    expect_form_like_llvm(t, "v_cndmask_b32 v0, v1, v2, s[4:5]", "_e64");
  }
}

// Found by tests/fuzz/parser_fuzz.cpp: `mul:1` made an omod operand of value 0 that the printed text (which omits
// it) does not give back, so the instruction and its reprint were unequal Insts.
TEST(Parser, OutputModifierOfOneIsNoModifier) {
  for (Target t : all_targets) {
    for (const char* text : {"v_add_f32_e64 v0, -v1, |v2| clamp mul:1", "v_add_f32_e64 v0, v1, v2 div:1"}) {
      auto in = parse_inst(text, t);
      ASSERT_TRUE(in) << text << ": " << in.error().str();
      auto again = parse_inst(print_inst(*in), t);
      ASSERT_TRUE(again) << print_inst(*in) << ": " << again.error().str();
      EXPECT_EQ(*again, *in) << text << " printed as " << print_inst(*in);
      EXPECT_EQ(*llvm(t).encode_line(print_inst(*in)), *llvm(t).encode_line(text)) << text;
    }
    expect_form_like_llvm(t, "v_add_f32 v0, v1, v2 mul:1", "_e64");
  }
}

TEST(Parser, PicksSdwaAndDppFromTheirModifiers) {
  for (Target t : all_targets) {
    expect_form_like_llvm(t, "v_add_f32_sdwa v0, v1, v2 dst_sel:WORD_1", "_sdwa");
    expect_form_like_llvm(t, "v_add_f32 v0, v1, v2 dst_sel:WORD_1 src0_sel:BYTE_0", "_sdwa");
    expect_form_like_llvm(t, "v_mov_b32_sdwa v0, sext(v1) src0_sel:WORD_0", "_sdwa");
    expect_form_like_llvm(t, "v_add_f32_dpp v0, v1, v2 quad_perm:[0,1,2,3]", "_dpp");
    expect_form_like_llvm(t, "v_add_f32 v0, v1, v2 row_shl:1 row_mask:0xa", "_dpp");
  }
}

TEST(Parser, PicksMemoryFormsLikeLlvm) {
  for (Target t : all_targets) {
    expect_form_like_llvm(t, "global_load_dword v1, v[2:3], off offset:-16", "GLOBAL_LOAD_DWORD");
    expect_form_like_llvm(t, "global_load_dword v1, v2, s[4:5] offset:16", "_SADDR");
    expect_form_like_llvm(t, "buffer_load_dword v1, v2, s[4:7], s1 offen offset:4095", "_OFFEN");
    expect_form_like_llvm(t, "ds_read_b64 v[0:1], v2 offset:65535", "DS_READ_B64");
    expect_form_like_llvm(t, "ds_write2_b32 v1, v2, v3 offset0:4 offset1:255", "DS_WRITE2_B32");
    expect_form_like_llvm(t, "s_load_dwordx2 s[0:1], s[2:3], 0x10", "_IMM");
    expect_form_like_llvm(t, "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:1 blgp:2", "MFMA");
  }
}

// SMEM with an SGPR offset and no `offset:` selects the form LLVM picks (llvm-mc-22 -show-inst: *_SGPR_vi), not
// *_SGPR_IMM_gfx9, which has the same bytes (the parser once chose the latter).
TEST(Parser, SmemSgprOffsetFormLikeLlvm) {
  for (Target t : all_targets) expect_form_like_llvm(t, "s_load_dwordx2 s[0:1], s[2:3], s4", "_SGPR_vi");
}

TEST(Parser, LiteralRules) {
  for (Target t : all_targets) {
    // gfx9 has no VOP3 literal (AMDGPUAsmParser::validateVOPLiteral): e64 and VOP3-only take inline constants.
    expect_error(t, "v_add_f32_e64 v0, 0x12345678, v1", "literal");
    expect_error(t, "v_fma_f32 v0, 0x12345678, v1, v2", "literal");
    EXPECT_TRUE(parse_inst("v_fma_f32 v0, 1.0, v1, v2", t));
    EXPECT_TRUE(parse_inst("v_fma_f32 v0, -4.0, 64, -16", t));
    EXPECT_TRUE(parse_inst("v_fma_f32 v0, 0x3f800000, v1, v2", t));  // 1.0 as bits: still inline
    // Literals in e32 src0, and in SALU.
    EXPECT_TRUE(parse_inst("v_mov_b32 v0, 0x12345678", t));
    EXPECT_TRUE(parse_inst("s_mov_b32 s0, 0xdeadbeef", t));
    // The mandatory K of v_fmaak_f32 (gfx940+: FeatureFmaakFmamkF32Insts; gfx90a has none, as in LLVM).
    if (t == Target::gfx90a) {
      expect_error(t, "v_fmaak_f32 v0, v1, v2, 0x41000000", "not supported on gfx90a");
      EXPECT_FALSE(llvm(t).encode_line("v_fmaak_f32 v0, v1, v2, 0x41000000"));
    } else {
      expect_form_like_llvm(t, "v_fmaak_f32 v0, v1, v2, 0x41000000", "FMAAK");
    }
    // SDWA takes no literal.
    expect_error(t, "v_add_f32_sdwa v0, 0x12345678, v1 dst_sel:DWORD", "");
  }
}

TEST(Parser, ConstantBusAllowsOneScalarValue) {
  for (Target t : all_targets) {
    expect_error(t, "v_fma_f32 v0, s0, s1, v2", "constant bus");
    expect_error(t, "v_add_f32_e64 v0, s0, s1", "constant bus");
    expect_error(t, "v_cndmask_b32 v0, s0, v1, s[2:3]", "constant bus");
    EXPECT_TRUE(parse_inst("v_fma_f32 v0, s0, s0, v2", t));   // one SGPR read twice
    EXPECT_TRUE(parse_inst("v_fma_f32 v0, s0, 1.0, v2", t));  // inline constants are free
    EXPECT_TRUE(parse_inst("v_readlane_b32 s0, v1, s2", t));  // the lane select is exempt
    // LLVM agrees.
    EXPECT_FALSE(llvm(t).encode_line("v_fma_f32 v0, s0, s1, v2"));
    EXPECT_TRUE(llvm(t).encode_line("v_fma_f32 v0, s0, s0, v2"));
  }
}

TEST(Parser, CachePolicySpellingsPerTarget) {
  // gfx90a: glc slc scc; gfx940+: sc0 sc1 nt on vector memory, glc on scalar memory.
  auto g = parse_inst("global_load_dword v1, v[2:3], off glc slc", Target::gfx90a);
  ASSERT_TRUE(g) << g.error().str();
  EXPECT_EQ(print_inst(*g), "global_load_dword v1, v[2:3], off glc slc");
  expect_error(Target::gfx90a, "global_load_dword v1, v[2:3], off sc0", "sc0");
  for (Target t : {Target::gfx942, Target::gfx950}) {
    auto s = parse_inst("global_load_dword v1, v[2:3], off sc0 sc1 nt", t);
    ASSERT_TRUE(s) << s.error().str();
    EXPECT_EQ(print_inst(*s), "global_load_dword v1, v[2:3], off sc0 nt sc1");
    EXPECT_TRUE(llvm(t).encode_line(print_inst(*s)));
    expect_error(t, "global_load_dword v1, v[2:3], off glc", "glc");
    auto m = parse_inst("s_load_dword s0, s[0:1], 0x0 glc", t);
    ASSERT_TRUE(m) << m.error().str();
    EXPECT_EQ(print_inst(*m), "s_load_dword s0, s[0:1], 0x0 glc");
  }
  // glc / sc0 selects the returning atomic.
  for (Target t : all_targets) {
    const std::string glc = t == Target::gfx90a ? "glc" : "sc0";
    auto r = parse_inst("global_atomic_add v0, v[2:3], v1, off " + glc, t);
    ASSERT_TRUE(r) << r.error().str();
    EXPECT_TRUE(isa::forms(t)[r->form].has(isa::prop::atomic_ret)) << form_name(*r);
  }
}

TEST(Parser, UnknownMnemonicVersusOtherTarget) {
  auto u = parse_inst("v_frobnicate_b32 v0, v1", Target::gfx942);
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().code, DiagCode::unknown_mnemonic);
  EXPECT_NE(u.error().message.find("unknown instruction 'v_frobnicate_b32'"), std::string::npos) << u.error().str();
  EXPECT_EQ(u.error().loc.col, 1u);
  // A mnemonic gfx950 has and gfx90a lacks, found from the tables rather than hard-coded.
  std::string only950;
  for (const auto& m : isa::mnemonics(Target::gfx950)) {
    if (!isa::find_mnemonic(Target::gfx90a, m.mnemonic).empty()) continue;
    bool matchable = false;
    for (const auto& f : isa::find_mnemonic(Target::gfx950, m.mnemonic)) matchable = matchable || f.has(isa::prop::asm_matchable);
    if (matchable) { only950 = std::string(m.mnemonic); break; }
  }
  ASSERT_FALSE(only950.empty());
  auto n = parse_inst("  " + only950 + " v0, v1", Target::gfx90a);
  ASSERT_FALSE(n) << only950;
  EXPECT_EQ(n.error().code, DiagCode::unsupported);
  EXPECT_NE(n.error().message.find("not supported on gfx90a"), std::string::npos) << n.error().str();
  EXPECT_EQ(n.error().loc.col, 3u);
  // gfx90a's MIMG is gone on gfx940+.
  auto i = parse_inst("image_load v[0:3], v[4:5], s[8:15] dmask:0xf", Target::gfx942);
  ASSERT_FALSE(i);
  EXPECT_EQ(i.error().code, DiagCode::unsupported);
  EXPECT_NE(i.error().message.find("not supported on gfx942"), std::string::npos) << i.error().str();
}

TEST(Parser, EveryDiagHasLineAndColumn) {
  const char* bad_lines[] = {
      "v_add_f32 v0, v1",                       // missing operand
      "v_add_f32 v0, v1, v2, v3",               // too many
      "v_add_f32 v0, a1, v2",                   // wrong file
      "v_mov_b32 v256, v0",                     // out of range
      "global_load_dwordx2 v[1:2], v[2:3], off",  // misaligned tuple on gfx90a+
      "s_load_dwordx2 s[1:2], s[2:3], 0",       // misaligned scalar pair
      "v_add_f32 v0, v1, v2 offset:4",          // modifier not accepted
      "ds_read_b32 v0, v1 offset:",             // malformed
      "s_waitcnt vmcnt(64)",                    // out of range count
      "s_waitcnt vmcnt(1",                      // missing ')'
      "v_pk_add_f16 v0, v1, v2 op_sel:[2,0]",   // bit must be 0 or 1
      "v_add_f32 v0, v1, v2 mul:3",             // bad omod
      "v_mov_b32_dpp v0, v1 row_shl:16",        // bad dpp ctrl
      "v_mov_b32_sdwa v0, v1 dst_sel:WORD_2",   // bad sdwa select
      "v_add_f32 v0, , v2",                     // syntax
      "foo bar baz",                            // unknown
  };
  for (Target t : all_targets)
    for (const char* l : bad_lines) {
      auto r = parse_inst(l, t);
      ASSERT_FALSE(r) << to_string(t) << ": accepted " << l;
      const Diag& d = r.error();
      EXPECT_EQ(d.loc.line, 1u) << l;
      EXPECT_GE(d.loc.col, 1u) << l << ": " << d.str();
      EXPECT_LE(d.loc.col, std::string_view(l).size() + 1) << l << ": " << d.str();
      EXPECT_FALSE(d.message.empty()) << l;
      EXPECT_FALSE(llvm(t).encode_line(l)) << "LLVM accepts what asmevo rejects: " << l;
    }
}

TEST(Parser, ProgramDiagsCarryFileLineAndColumn) {
  auto r = parse_program_all("s_nop 0\nv_add_f32 v0, v1\n\nv_bogus v0\ns_endpgm\n", Target::gfx942, "k.s");
  ASSERT_EQ(r.diags.size(), 2u);
  EXPECT_EQ(r.diags[0].loc.file, "k.s");
  EXPECT_EQ(r.diags[0].loc.line, 2u);
  EXPECT_GE(r.diags[0].loc.col, 1u);
  EXPECT_EQ(r.diags[1].loc.line, 4u);
  EXPECT_EQ(r.diags[1].loc.col, 1u);
  EXPECT_EQ(r.program.instruction_count(), 2u);  // the good lines are kept
}

// Found by tests/fuzz/parser_fuzz.cpp: `.amdhsa_kernel~k` was a plain directive, but its printed form
// `.amdhsa_kernel ~k` a descriptor block, so a program and its reprint differed. A block directive is now the whole
// word, as the line reader splits it, wherever it is followed by a character that cannot continue a name.
TEST(Parser, BlockDirectivesAreWholeWords) {
  const std::string text = ".amdhsa_kernel~k\n  .amdhsa_next_free_vgpr 0\n.end_amdhsa_kernel;x\n"
                           ".amdgpu_metadataX\n";
  auto r = parse_program_all(text, Target::gfx942, "k.s");
  ASSERT_TRUE(r.diags.empty()) << r.diags.front().str();
  ASSERT_EQ(r.program.items.size(), 2u);
  EXPECT_EQ(r.program.items[0].kind, Item::Kind::kernel);
  EXPECT_EQ(r.program.items[0].kernel.name, "~k");
  ASSERT_EQ(r.program.items[0].kernel.fields.size(), 1u);
  EXPECT_EQ(r.program.items[1].kind, Item::Kind::directive);  // not the start of a metadata block
  EXPECT_EQ(r.program.items[1].name, ".amdgpu_metadataX");
  const std::string printed = print_program(r.program);
  auto again = parse_program_all(printed, Target::gfx942, "printed.s");
  ASSERT_TRUE(again.diags.empty()) << again.diags.front().str();
  EXPECT_EQ(print_program(again.program), printed);
}

TEST(Parser, WaitcntOperandForms) {
  for (Target t : all_targets) {
    for (const char* s : {"s_waitcnt vmcnt(0) lgkmcnt(0)", "s_waitcnt vmcnt(0), lgkmcnt(0)", "s_waitcnt 0x70"}) {
      auto in = parse_inst(s, t);
      ASSERT_TRUE(in) << s << ": " << in.error().str();
      EXPECT_EQ(print_inst(*in), "s_waitcnt vmcnt(0) lgkmcnt(0)") << s;
      EXPECT_EQ(*llvm(t).encode_line(s), *llvm(t).encode_line(print_inst(*in))) << s;
    }
    auto sat = parse_inst("s_waitcnt vmcnt_sat(100)", t);
    ASSERT_TRUE(sat) << sat.error().str();
    EXPECT_EQ(print_inst(*sat), "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)");
  }
}

// `s_waitcnt vmcnt(0) & lgkmcnt(0)` (documented in parse_waitcnt_operand; llvm-mc-22 -> [0x70,0x00,0x8c,0xbf])
// parses: the line reader once stopped at the '&' ("unexpected character in operand").
TEST(Parser, WaitcntAmpersandSeparator) {
  for (Target t : all_targets) {
    auto in = parse_inst("s_waitcnt vmcnt(0) & lgkmcnt(0)", t);
    ASSERT_TRUE(in) << in.error().str();
    EXPECT_EQ(print_inst(*in), "s_waitcnt vmcnt(0) lgkmcnt(0)");
  }
}

}  // namespace
