// Builds a small gfx942 program from scratch with the typed builders and prints it: the usage DESIGN.md sketches.
// (Edits of an existing program go through a passes::Rewriter: asmevo/passes/builder.hpp.)
#include <cstdio>

#include "asmevo/ir/gen/builders_gfx942.hpp"
#include "asmevo/ir/printer.hpp"

int main() {
  using namespace asmevo;
  namespace g = asmevo::gfx942;  // typed builders and registers of one target

  Program kernel;
  kernel.target = Target::gfx942;
  kernel.file = "example.s";

  // Registers are compile-time types: each call below is checked by the compiler (file, width, alignment, index
  // range, constant bus) and returns the Inst it appended (its new id in .id).
  g::Builder b{kernel};
  auto acc = g::v<8, 11>;
  auto addr = g::v<2, 3>;
  b.s_load_dwordx2(g::s<0, 1>, g::s<4, 5>, imm<0>);
  b.s_waitcnt(g::lgkmcnt<0>);
  b.v_mov_b32(g::v<2>, g::s<0>);
  b.v_mov_b32(g::v<3>, g::s<1>);
  b.global_load_dwordx4(acc, addr, g::off, g::offset(16));  // b.global_load_dwordx4(g::v<8, 10>, ...) does not compile
  b.s_waitcnt(g::vmcnt<0>);
  b.v_add_f32(g::v<8>, g::v<8>, g::s<2>);                     // src1 is an SGPR: LLVM's choice, the e64 form
  b.v_mfma_f32_16x16x16_f16(g::a<0, 3>, g::v<8, 9>, g::v<10, 11>, g::a<0, 3>);
  b.s_endpgm();
  if (!b.ok()) {
    std::fprintf(stderr, "%s\n", b.error()->str().c_str());
    return 1;
  }

  // With a run-time register the same call returns Expected<Inst>: the error names the instruction,
  // the operand and the rule.
  Reg dst{RegFile::vgpr, 9, 4};
  auto bad = b.global_load_dwordx4(dst, addr, g::off);
  std::printf("%s", print_program(kernel).c_str());
  if (bad) return 1;  // v[9:12] is misaligned on gfx942
  std::printf("; run-time check: %s\n", bad.error().message.c_str());

  // A builder made without a sink (InstBuilder) only returns each instruction, for Rewriter::insert_before / replace.
  g::InstBuilder mk;
  const Inst nop = mk.s_nop(imm<1>);
  std::printf("; a value: %s\n", print_inst(nop).c_str());
  return mk.ok() ? 0 : 1;
}
