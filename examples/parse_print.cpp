// Example quoted by README.md: parse one instruction for gfx942 and print it back (errors are values).
#include <iostream>

#include <asmevo/ir/parser.hpp>
#include <asmevo/ir/printer.hpp>

int main() {
  auto inst = asmevo::parse_inst("v_add_f32 v0, s1, v2", asmevo::Target::gfx942);
  if (!inst) {
    std::cerr << inst.error().str() << "\n";
    return 1;
  }
  std::cout << asmevo::print_inst(*inst) << "\n";  // v_add_f32_e32 v0, s1, v2

  auto bad = asmevo::parse_inst("global_load_dwordx4 v[1:4], v[2:3], off", asmevo::Target::gfx942);
  if (bad) return 1;  // v[1:4] is misaligned on gfx942: this must be an error
  std::cout << bad.error().str() << "\n";
  return 0;
}
