// `asmevo passes` and `asmevo apply`: list the built-in passes; apply passes or a JSON edit script to a code object
// and rebuild it (or, with --dry-run, print what would change).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/edit_script.hpp"
#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/passes/registry.hpp"
#include "asmevo/support/file.hpp"
#include "asmevo/support/text_diff.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/differential.hpp"
#include "asmevo/verify/emu_executor.hpp"
#include "asmevo/verify/static_checks.hpp"
#include "cli.hpp"
#include "loaded.hpp"
#include "verbs.hpp"

namespace asmevo::cli {

int cmd_passes(int argc, char** argv) {
  auto a = parse_args(argc, argv, {}, {"--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (!a.pos.empty()) return usage_error("passes takes no arguments");
  if (a.opt.count("--json")) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& p : passes::builtin_passes())
      j.push_back({{"name", p.name}, {"summary", p.summary}, {"idempotent", p.idempotent}});
    std::cout << j.dump(2) << "\n";
    return exit_ok;
  }
  std::size_t w = 0;
  for (const auto& p : passes::builtin_passes()) w = std::max(w, p.name.size());
  for (const auto& p : passes::builtin_passes())
    std::cout << p.name << std::string(w + 2 - p.name.size(), ' ') << p.summary << "\n";
  return exit_ok;
}

int cmd_apply(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"-o", "--pass", "--edits", "--kernel", "--launch"}, {"--dry-run", "--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.size() != 1) return usage_error("apply takes exactly one code object");
  const bool by_pass = a.opt.count("--pass") != 0, by_script = a.opt.count("--edits") != 0;
  if (by_pass == by_script) return usage_error("apply needs exactly one of --pass NAMES and --edits E.json");
  const bool dry = a.opt.count("--dry-run") != 0, json = a.opt.count("--json") != 0;
  const auto out = a.opt.find("-o");
  if (!dry && out == a.opt.end()) return usage_error("apply needs -o K1.co (or --dry-run)");
  if (out != a.opt.end() && same_file(out->second, a.pos[0])) return usage_error("-o '" + out->second + "' would overwrite the input");
  if (by_script && out != a.opt.end() && same_file(out->second, a.opt["--edits"]))
    return usage_error("-o '" + out->second + "' would overwrite the edit script");
  int rc = 0;
  auto k0 = load_recovered(a.pos[0], rc);
  if (!k0) return rc;
  const bool xnack = verify::detail::xnack_on_or_any(k0->m.target_id);
  passes::PassContext base;
  base.xnack = xnack;
  // --launch: run K0 as the verifier will (emulator) and keep passes and edits to the code those runs exercise.
  if (auto lp = a.opt.find("--launch"); lp != a.opt.end()) {
    auto shapes = verify::read_launch_file(lp->second);
    if (!shapes) return report(shapes.error());
    auto co = verify::load_code_object(a.pos[0]);
    if (!co) return report(co.error());
    verify::EmuExecutor ex;
    auto ran = verify::exercised_by(*co, *shapes, ex);
    if (!ran) return report(ran.error());
    auto cold = verify::not_exercised(k0->m.program, *ran);
    if (!json)
      std::cerr << "asmevo: the launch exercises " << k0->m.program.instruction_count() - cold.size() << " of "
                << k0->m.program.instruction_count() << " instructions; the rest is left alone\n";
    base.not_exercised = std::make_shared<const std::unordered_set<std::uint32_t>>(std::move(cold));
    std::vector<analysis::LaunchFacts> facts;
    for (const auto& s : *shapes)
      if (auto f = verify::launch_facts(co->module, s)) facts.push_back(std::move(*f));
    base.launches = std::make_shared<const std::vector<analysis::LaunchFacts>>(std::move(facts));
  }

  Program p1;
  std::vector<passes::Edit> log;
  std::vector<passes::PassStats> stats;
  if (by_script) {
    auto text = read_file(a.opt["--edits"]);
    if (!text) return report(text.error());
    auto res = agent::apply_edit_script_text(k0->m, *text, base);
    if (!res.ok()) {
      if (json) {
        nlohmann::json errs = nlohmann::json::array();
        for (const auto& e : res.errors) errs.push_back({{"pointer", e.pointer}, {"message", e.message}});
        std::cout << nlohmann::json{{"applied", false}, {"errors", errs}}.dump(2) << "\n";
      }
      for (const auto& e : res.errors) std::cerr << a.opt["--edits"] << ": error: " << e.str() << "\n";
      std::cerr << "asmevo: " << res.errors.size() << " problem(s) in " << a.opt["--edits"] << "; nothing was applied\n";
      return exit_bad_input;
    }
    p1 = std::move(res.program);
    log = std::move(res.log);
    stats = std::move(res.pass_stats);
  } else {
    auto calls = passes::parse_pass_list(a.opt["--pass"]);
    if (!calls) return report(calls.error());
    p1 = k0->m.program;
    passes::Rewriter rw(p1);
    passes::PassContext ctx = base;
    if (auto k = a.opt.find("--kernel"); k != a.opt.end()) ctx.kernels.push_back(k->second);
    else
      for (const auto& k : k0->m.kernels) ctx.kernels.push_back(k.name);
    auto st = passes::run_pass_list(*calls, rw, ctx);
    if (!st) return report(st.error());
    stats = std::move(*st);
    log = rw.log();
  }

  const auto n0 = k0->m.program.instruction_count(), n1 = p1.instruction_count();
  if (dry) {
    const std::string diff = unified_diff(print_program(k0->m.program), print_program(p1), a.pos[0], a.pos[0] + " (edited)");
    if (json) {
      nlohmann::json j{{"applied", false}, {"dry_run", true}, {"edits", log.size()}, {"instructions_before", n0},
                       {"instructions_after", n1}, {"diff", diff}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << diff;
      std::cerr << "asmevo: dry run: " << log.size() << " edit(s), " << n0 << " -> " << n1 << " instructions; nothing written\n";
    }
    return exit_ok;
  }
  codeobject::RebuildOptions ro;
  ro.original = &k0->elf;
  ro.recovered = &k0->m;
  for (const auto& s : stats)
    if (s.shrinks_resources) ro.policy = codeobject::RecountPolicy::exact;
  auto built = codeobject::rebuild(std::move(p1), *k0->enc, ro);
  if (!built) return report(built.error());
  if (auto w = write_file_atomic(out->second, std::string_view(reinterpret_cast<const char*>(built->bytes.data()), built->bytes.size())); !w)
    return report(w.error());
  if (json) {
    nlohmann::json ps = nlohmann::json::array();
    for (const auto& s : stats) ps.push_back({{"pass", s.pass}, {"edits", s.edits}, {"insts_delta", s.insts_delta}, {"notes", s.notes}});
    std::cout << nlohmann::json{{"applied", true}, {"output", out->second}, {"edits", log.size()}, {"instructions_before", n0},
                                {"instructions_after", n1}, {"passes", ps}, {"path", std::string(codeobject::to_string(built->path))}}
                     .dump(2)
              << "\n";
  } else {
    for (const auto& s : stats) {
      std::cerr << "asmevo: " << s.pass << ": " << s.edits << " edit(s), " << (s.insts_delta >= 0 ? "+" : "") << s.insts_delta
                << " instructions\n";
      for (const auto& n : s.notes) std::cerr << "asmevo:   " << n << "\n";
    }
    std::cerr << "asmevo: " << out->second << ": " << log.size() << " edit(s), " << n0 << " -> " << n1 << " instructions\n";
  }
  return exit_ok;
}

}  // namespace asmevo::cli
