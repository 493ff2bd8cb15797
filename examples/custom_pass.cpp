// Example: a pass written outside the library (under 60 lines). It merges runs of s_nop into one s_nop with the same
// wait states (s_nop N waits N + 1; one s_nop holds at most 16), through the Rewriter, then runs in a pipeline. It
// asks what an instruction is by its op id, and builds the merged s_nop as a value with the typed builders.
#include <iostream>

#include <asmevo/ir/op_builder.hpp>
#include <asmevo/ir/parser.hpp>
#include <asmevo/ir/printer.hpp>
#include <asmevo/passes/nop_min.hpp>
#include <asmevo/passes/pipeline.hpp>

using namespace asmevo;

struct MergeNops {
  static constexpr std::string_view name = "merge-nops";
  static constexpr std::string_view summary = "merge adjacent s_nops into one with the same wait states";

  [[nodiscard]] Expected<passes::PassStats> run(passes::Rewriter& r, const passes::PassContext&) const {
    const Program& p = r.program();
    const Inst* prev = nullptr;  // the s_nop just before, if the previous item is one
    for (std::size_t i = 0; i < p.items.size(); ++i) {
      const Item& it = p.items[i];
      const bool nop = it.kind == Item::Kind::inst && op_of(it.inst) == op::s_nop;
      if (!nop) {
        if (it.kind != Item::Kind::comment && it.kind != Item::Kind::blank) prev = nullptr;
        continue;
      }
      if (prev) {
        const unsigned waits = analysis::hazard_wait_states(*prev, p.target) + analysis::hazard_wait_states(it.inst, p.target);
        if (waits <= 16) {
          const InstId keep = prev->id, gone = it.inst.id;
          auto merged = build_inst<op::s_nop>(p.target, waits - 1);  // Expected<Inst>: the count is a run-time value
          if (!merged) return unexpected(merged.error());
          if (auto e = r.replace(keep, {*merged}, std::string(name)); !e) return unexpected(e.error());
          if (auto e = r.erase(gone, std::string(name)); !e) return unexpected(e.error());
          return run(r, {});  // indexes moved: start again (runs are short)
        }
      }
      prev = &it.inst;
    }
    return passes::PassStats{};
  }
};
static_assert(passes::Pass<MergeNops>);

int main() {
  auto p = parse_program("k:\n  v_cmp_eq_u32 vcc, v0, v1\n  s_nop 0\n  s_nop 1\n  s_nop 2\n  v_readlane_b32 s6, v2, vcc_lo\n"
                         "  s_endpgm\n", Target::gfx942);
  if (!p) return 1;
  passes::Rewriter r(*p);
  auto stats = passes::pipeline(MergeNops{}, passes::NopMin{}).run_each(r, {});
  if (!stats) return std::cerr << stats.error().str() << "\n", 1;
  for (const auto& s : *stats) std::cout << s.pass << ": " << s.edits << " edit(s)\n";
  std::cout << print_program(*p) << "\n";
}
