// Unit tests of ir/printer.hpp: print_program keeps labels, directives, .amdhsa_kernel fields, metadata,
// comments and instruction ids; print_inst spells instructions as LLVM does (checked against LLVM MC).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/mc/llvm_mc.hpp"

namespace {

using namespace asmevo;

const char* const kernel_text = R"(	.text
	.globl	kern                            ; -- Begin function kern
	.p2align	8
	.type	kern,@function
kern:                                   ; @kern
; %bb.0:
	s_load_dwordx2 s[0:1], s[4:5], 0x0 ; i3
	v_mov_b32_e32 v1, 0 ; i7 keep me
	s_waitcnt lgkmcnt(0)
.LBB0_1: ; loop head
	global_store_dword v1, v0, s[0:1] offset:16
	s_cbranch_scc1 .LBB0_1
	s_endpgm

	.amdhsa_kernel kern
		.amdhsa_next_free_vgpr 32 ; trailing comment dropped
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name: kern
    .sgpr_count: 16
...
	.end_amdgpu_metadata
)";

Program parse_ok(std::string_view text, Target t = Target::gfx942) {
  auto r = parse_program_all(text, t, "kern.s");
  for (const auto& d : r.diags) ADD_FAILURE() << d.str();
  return std::move(r.program);
}

bool has_line(const std::string& text, const std::string& line) {
  std::size_t b = 0;
  while (b <= text.size()) {
    std::size_t e = text.find('\n', b);
    if (e == std::string::npos) e = text.size();
    if (text.compare(b, e - b, line) == 0) return true;
    b = e + 1;
  }
  return false;
}

TEST(Printer, ProgramKeepsLabelsDirectivesAndComments) {
  const Program p = parse_ok(kernel_text);
  const std::string out = print_program(p);
  for (const char* l : {"\t.text", "\t.globl kern ; -- Begin function kern", "\t.p2align 8", "\t.type kern,@function",
                        "kern: ; @kern", "; %bb.0:", ".LBB0_1: ; loop head", ""})
    EXPECT_TRUE(has_line(out, l)) << "missing line '" << l << "' in\n" << out;
}

TEST(Printer, ProgramKeepsIdsAndGivesFreshOnes) {
  const Program p = parse_ok(kernel_text);
  const std::string out = print_program(p);
  EXPECT_TRUE(has_line(out, "\ts_load_dwordx2 s[0:1], s[4:5], 0x0 ; i3")) << out;
  EXPECT_TRUE(has_line(out, "\tv_mov_b32_e32 v1, 0 ; i7 keep me")) << out;
  // Instructions without an id get fresh ones above every id in the file, in order.
  EXPECT_TRUE(has_line(out, "\ts_waitcnt lgkmcnt(0) ; i8")) << out;
  EXPECT_TRUE(has_line(out, "\tglobal_store_dword v1, v0, s[0:1] offset:16 ; i9")) << out;
  EXPECT_TRUE(has_line(out, "\ts_endpgm ; i11")) << out;
  EXPECT_EQ(p.next_id, 12u);
  ASSERT_NE(p.find(InstId{7}), nullptr);
  EXPECT_EQ(print_inst(*p.find(InstId{7})), "v_mov_b32_e32 v1, 0");
}

TEST(Printer, ProgramKeepsKernelDescriptorAndMetadata) {
  const Program p = parse_ok(kernel_text);
  const std::string out = print_program(p);
  EXPECT_NE(out.find("\t.amdhsa_kernel kern\n\t\t.amdhsa_next_free_vgpr 32\n\t\t.amdhsa_next_free_sgpr 16\n"
                     "\t\t.amdhsa_accum_offset 4\n\t.end_amdhsa_kernel\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\t.amdgpu_metadata\n---\namdhsa.kernels:\n  - .name: kern\n    .sgpr_count: 16\n...\n"
                     "\t.end_amdgpu_metadata\n"),
            std::string::npos)
      << out;
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::kernel) {
      ASSERT_EQ(it.kernel.fields.size(), 3u);
      EXPECT_EQ(it.kernel.fields[0], (std::pair<std::string, std::string>{".amdhsa_next_free_vgpr", "32"}));
    }
}

TEST(Printer, PrintParseIsIdempotentOnPrograms) {
  const std::string once = print_program(parse_ok(kernel_text));
  const std::string twice = print_program(parse_ok(once));
  EXPECT_EQ(once, twice);
}

// Found by tests/fuzz/parser_fuzz.cpp: a negative immediate written in hex printed as 32-bit hex, which a 16-bit
// SOPK/SOPP operand does not take back (`s_movk_i32 s0, 0xfffffffc`: "immediate does not fit 16 bits").
TEST(Printer, NegativeHexImmediateReadsBack) {
  for (const char* line : {"s_movk_i32 s0, (1<<4)|~0x3", "s_movk_i32 s0, -0x4", "s_cmpk_eq_i32 s1, -0x8000",
                           "s_getreg_b32 s0, -0x1"}) {
    auto in = parse_inst(line, Target::gfx942);
    ASSERT_TRUE(in) << line << ": " << in.error().str();
    const std::string text = print_inst(*in);
    auto again = parse_inst(text, Target::gfx942);
    ASSERT_TRUE(again) << line << " printed as " << text << ": " << again.error().str();
    EXPECT_EQ(*again, *in) << text;
    EXPECT_EQ(print_inst(*again), text);
  }
  EXPECT_EQ(print_inst(*parse_inst("s_movk_i32 s0, -0x4", Target::gfx942)), "s_movk_i32 s0, -4");
  EXPECT_EQ(print_inst(*parse_inst("s_movk_i32 s0, 0xfffc", Target::gfx942)), "s_movk_i32 s0, 0xfffc");
}

TEST(Printer, OptionsDropIdsAndComments) {
  const Program p = parse_ok(kernel_text);
  const std::string bare = print_program(p, PrintOptions{false, false});
  EXPECT_EQ(bare.find("; i"), std::string::npos) << bare;
  EXPECT_EQ(bare.find("keep me"), std::string::npos) << bare;
  EXPECT_TRUE(has_line(bare, "\tv_mov_b32_e32 v1, 0")) << bare;
  EXPECT_TRUE(has_line(bare, "kern:")) << bare;
  const std::string comments_only = print_program(p, PrintOptions{false, true});
  EXPECT_TRUE(has_line(comments_only, "\tv_mov_b32_e32 v1, 0 ; keep me")) << comments_only;
}

mc::Context& llvm(Target t) {
  static std::unique_ptr<mc::Context> ctx[3];
  auto& c = ctx[static_cast<int>(t)];
  if (!c) c = std::move(*mc::Context::create(to_string(t)));
  return *c;
}

/// print_inst of the parse of LLVM's own disassembly text is that text, and encodes to the same bytes.
TEST(Printer, PrintsInstructionsAsLlvmDisassemblesThem) {
  const char* lines[] = {
      "v_add_f32_e32 v0, v1, v2",
      "v_cmp_lt_f32_e32 vcc, v1, v2",
      "v_cndmask_b32_e32 v0, v1, v2, vcc",
      "v_add_f32_e64 v0, -v1, |v2| clamp mul:2",
      "v_fma_f32 v0, -|v1|, 0.5, s2 div:2",
      "v_mov_b32_dpp v0, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xa bound_ctrl:1",
      "v_add_f32_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD",
      "v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]",
      "ds_write2_b32 v1, v2, v3 offset0:4 offset1:255",
      "global_load_dwordx4 v[0:3], v[4:5], off offset:-16",
      "s_waitcnt vmcnt(0) lgkmcnt(0)",
      "s_mov_b32 s0, 0x12345678",
      "s_movk_i32 s0, 0x7fff",
      "s_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 2)",
      "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:1 blgp:2",
  };
  for (Target t : all_targets)
    for (const char* l : lines) {
      auto bytes = llvm(t).encode_line(l);
      ASSERT_TRUE(bytes) << to_string(t) << " " << l << ": " << bytes.error().str();
      auto dis = llvm(t).decode_one(*bytes);
      ASSERT_TRUE(dis) << l;
      auto in = parse_inst(dis->text, t);
      ASSERT_TRUE(in) << dis->text << ": " << in.error().str();
      EXPECT_EQ(print_inst(*in), dis->text) << to_string(t);
      EXPECT_EQ(form_name(*in), dis->opcode_name) << dis->text;
      EXPECT_EQ(*llvm(t).encode_line(print_inst(*in)), *bytes) << dis->text;
    }
}

TEST(Printer, CachePolicySpelledForTheTarget) {
  auto g90 = parse_inst("global_load_dword v1, v[2:3], off glc slc", Target::gfx90a);
  ASSERT_TRUE(g90);
  auto g94 = parse_inst("global_load_dword v1, v[2:3], off sc0 nt", Target::gfx942);
  ASSERT_TRUE(g94);
  EXPECT_EQ(print_inst(*g94), "global_load_dword v1, v[2:3], off sc0 nt");
  EXPECT_EQ(print_inst(*g90), "global_load_dword v1, v[2:3], off glc slc");
}

// The e64 form of an operandless VOP1 (v_clrexcp) prints with its suffix, a spelling LLVM reads back to the e64
// bytes: bare `v_clrexcp`, as it once printed, assembles to the e32 encoding.
TEST(Printer, OperandlessE64FormKeepsItsSuffix) {
  for (Target t : all_targets) {
    const auto* f = isa::find_form(t, "V_CLREXCP_e64_vi");
    ASSERT_NE(f, nullptr);
    Inst in;
    in.target = t;
    in.form = static_cast<std::uint16_t>(f - isa::forms(t).data());
    in.ops.assign(f->num_operands, Operand{});
    auto want = llvm(t).encode_line("v_clrexcp_e64");
    ASSERT_TRUE(want);
    EXPECT_EQ(*llvm(t).encode_line(print_inst(in)), *want) << print_inst(in);
  }
}

// neg applied to a constant prints as neg(...), not as a negative constant (as it once did): the two differ in
// their bytes.
// llvm-mc-22 -mcpu=gfx942: `v_add_f32_e64 v0, neg(2.0), v1` -> [0x00,0x00,0x01,0xd1,0xf4,0x02,0x02,0x20] but
// `v_add_f32_e64 v0, -2.0, v1` -> [0x00,0x00,0x01,0xd1,0xf5,0x02,0x02,0x00]; print_inst gives the latter text.
TEST(Printer, NegOfConstantKeepsTheModifier) {
  for (Target t : all_targets) {
    auto in = parse_inst("v_add_f32_e64 v0, neg(2.0), v1", t);
    ASSERT_TRUE(in) << in.error().str();
    EXPECT_EQ(*llvm(t).encode_line(print_inst(*in)), *llvm(t).encode_line("v_add_f32_e64 v0, neg(2.0), v1"))
        << print_inst(*in);
  }
}

}  // namespace
