// Uses the installed headers and asmevo::mc: parse, print and encode one instruction.
#include <asmevo/ir/parser.hpp>
#include <asmevo/ir/printer.hpp>
#include <asmevo/mc/encode.hpp>
#include <cstdio>

int main() {
  auto in = asmevo::parse_inst("s_endpgm", asmevo::Target::gfx942);
  if (!in) return 1;
  auto enc = asmevo::mc::Encoder::create(asmevo::Target::gfx942);
  if (!enc) return 2;
  auto bytes = (*enc)->encode(*in);
  if (!bytes || bytes->size() != 4 || (*bytes)[3] != 0xbf) return 3;
  std::printf("%s ok\n", asmevo::print_inst(*in).c_str());
  return 0;
}
