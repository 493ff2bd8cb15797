// Example: a pipeline of built-in passes composed at compile time (Boost.Hana), run on a kernel's text; prints what
// each pass changed, the program after, and undoes everything through the Rewriter's log.
#include <iostream>

#include <asmevo/ir/parser.hpp>
#include <asmevo/ir/printer.hpp>
#include <asmevo/passes/dce.hpp>
#include <asmevo/passes/nop_min.hpp>
#include <asmevo/passes/pipeline.hpp>
#include <asmevo/passes/waitcnt_min.hpp>

using namespace asmevo;

int main() {
  auto p = parse_program(R"(k:
  global_load_dword v1, v0, s[0:1]
  global_load_dword v2, v0, s[0:1] offset:4
  s_waitcnt vmcnt(0)
  v_add_u32 v3, v1, v1
  v_mov_b32 v5, v3
  s_nop 4
  s_waitcnt vmcnt(0)
  v_add_u32 v3, v3, v2
  global_store_dword v0, v3, s[0:1]
  s_endpgm
)", Target::gfx942);
  if (!p) {
    std::cerr << p.error().str() << "\n";
    return 1;
  }
  const std::string before = print_program(*p);
  constexpr auto pipeline = passes::pipeline(passes::WaitcntMin{}, passes::NopMin{}, passes::Dce{});
  passes::Rewriter r(*p);
  auto stats = pipeline.run_each(r, passes::PassContext{});
  if (!stats) {
    std::cerr << stats.error().str() << "\n";
    return 1;
  }
  for (const auto& s : *stats) std::cout << s.pass << ": " << s.edits << " edit(s), " << s.insts_delta << " instructions\n";
  std::cout << print_program(*p) << "\n";
  for (const auto& e : r.log()) std::cout << to_string(e.op) << " i" << e.at.value << " (" << e.why << ")\n";
  r.undo();
  return print_program(*p) == before ? 0 : 1;  // the log undoes exactly
}
