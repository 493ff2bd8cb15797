// Builds a few gfx942 instructions with the typed builders and prints the program: the usage DESIGN.md sketches.
#include <cstdio>

#include "asmevo/ir/gen/builders_gfx942.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"

int main() {
  using namespace asmevo;
  namespace g = asmevo::gfx942;  // typed builders and registers of one target

  auto parsed = parse_program("\ts_load_dwordx2 s[0:1], s[4:5], 0x0\n\ts_endpgm\n", Target::gfx942, "example.s");
  if (!parsed) {
    std::fprintf(stderr, "%s\n", parsed.error().str().c_str());
    return 2;
  }
  Program& kernel = *parsed;

  // Insert before the s_endpgm (i1). Registers are compile-time types: each call below is checked by the
  // compiler (file, width, alignment, index range, constant bus) and returns the new InstId.
  g::Builder b{kernel, before(InstId{1})};
  auto acc = g::v<8, 11>;
  auto addr = g::v<2, 3>;
  b.s_waitcnt(g::lgkmcnt<0>);
  b.v_mov_b32(g::v<2>, g::s<0>);
  b.v_mov_b32(g::v<3>, g::s<1>);
  b.global_load_dwordx4(acc, addr, g::off, g::offset(16));  // b.global_load_dwordx4(g::v<8, 10>, ...) does not compile
  b.s_waitcnt(g::vmcnt<0>);
  b.v_add_f32(g::v<8>, g::v<8>, g::s<2>);                     // src1 is an SGPR: LLVM's choice, the e64 form
  b.v_mfma_f32_16x16x16_f16(g::a<0, 3>, g::v<8, 9>, g::v<10, 11>, g::a<0, 3>);
  if (!b.ok()) {
    std::fprintf(stderr, "%s\n", b.error()->str().c_str());
    return 1;
  }

  // With a run-time register the same call returns Expected<InstId>: the error names the instruction,
  // the operand and the rule.
  Reg dst{RegFile::vgpr, 9, 4};
  auto bad = b.global_load_dwordx4(dst, addr, g::off);
  std::printf("%s", print_program(kernel).c_str());
  if (bad) return 1;  // v[9:12] is misaligned on gfx942
  std::printf("; run-time check: %s\n", bad.error().message.c_str());
  return 0;
}
