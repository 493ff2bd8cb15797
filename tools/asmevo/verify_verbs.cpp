// The asmevo `verify` verb: differential verification of an edited code object K1 against K0 (DESIGN.md "CLI
// contract", "Verification policy") on the emulator or a HIP device, with a JSON receipt.
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/support/file.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/differential.hpp"
#include "asmevo/verify/emu_executor.hpp"
#include "asmevo/verify/hip/executor.hpp"
#include "cli.hpp"
#include "verbs.hpp"

namespace asmevo::cli {

namespace {

using Json = nlohmann::ordered_json;

/// The first differences of every differing buffer of the deciding K1 run, one line each (at most 8 per buffer).
void print_differences(const Json& receipt) {
  if (!receipt.contains("shapes")) return;
  for (const auto& s : receipt["shapes"])
    for (const auto& t : s["trials"]) {
      if (!t.contains("k1")) continue;
      for (const auto& k : t["k1"]) {
        if (!k.contains("buffers")) continue;
        for (const auto& b : k["buffers"]) {
          if (b["verdict"] != "differ") continue;
          std::cout << "  arg" << b["arg"].get<std::size_t>() << " (" << b["dtype"].get<std::string>()
                    << (b["output"].get<bool>() ? ", output" : ", not an output") << "): " << b["differing"].dump()
                    << " of " << b["compared"].dump() << " elements differ\n";
          for (const auto& d : b["first_differences"])
            std::cout << "    [" << d["index"].dump() << "] K0 " << (d["k0"].is_string() ? d["k0"].get<std::string>() : d["k0"].dump())
                      << " (" << d["k0_bits"].get<std::string>() << ")  K1 "
                      << (d["k1"].is_string() ? d["k1"].get<std::string>() : d["k1"].dump()) << " ("
                      << d["k1_bits"].get<std::string>() << ")\n";
        }
      }
    }
}

}  // namespace

int cmd_verify(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"--launch", "--executor", "--receipt", "--trials", "--seed", "--schedules", "--limit"},
                      {"--json", "--no-static", "--no-state-check", "--no-probes", "--no-refute", "--require-proof"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.size() != 2)
    return usage_error("verify takes two code objects: asmevo verify K0.co K1.co --launch L.json [--executor emu|hip] "
                       "[--receipt R.json]");
  auto lp = a.opt.find("--launch");
  if (lp == a.opt.end()) return usage_error("verify needs --launch L.json (DESIGN.md \"Launch spec\")");
  int rc = 0;
  verify::VerifyOptions vo;
  verify::EmuExecutorOptions eo;
  auto seed = number_opt(a, "--seed", 1, 0, ~std::uint64_t{0}, rc);
  auto schedules = number_opt(a, "--schedules", vo.schedules, 1, 1000, rc);
  auto limit = number_opt(a, "--limit", eo.instruction_limit, 1, ~std::uint64_t{0}, rc);
  std::optional<std::uint64_t> trials;
  if (a.opt.count("--trials")) {
    trials = number_opt(a, "--trials", 1, 1, 1u << 20, rc);
    if (!trials) return rc;
  }
  if (!seed || !schedules || !limit) return rc;
  vo.seed = *seed;
  vo.schedules = static_cast<std::uint32_t>(*schedules);
  if (trials) vo.trials = static_cast<std::uint32_t>(*trials);
  vo.static_checks = !a.opt.count("--no-static");
  vo.state_check = !a.opt.count("--no-state-check");
  vo.probes = !a.opt.count("--no-probes");
  vo.refute = !a.opt.count("--no-refute");
  vo.require_proof = a.opt.count("--require-proof") > 0;
  eo.instruction_limit = *limit;
  std::string executor = "emu";
  if (auto e = a.opt.find("--executor"); e != a.opt.end()) executor = e->second;
  if (executor != "emu" && executor != "hip")
    return usage_error("--executor takes emu or hip; got '" + executor + "'");

  auto shapes = verify::read_launch_file(lp->second);
  if (!shapes) return report(shapes.error());

  // The receipt may not overwrite any input (checked before anything runs).
  std::string receipt_path;
  if (auto r = a.opt.find("--receipt"); r != a.opt.end()) {
    receipt_path = r->second;
    for (const std::string& in : {a.pos[0], a.pos[1], lp->second})
      if (same_file(receipt_path, in)) return usage_error("--receipt would overwrite the input '" + in + "'");
    for (const auto& s : *shapes)
      for (const auto& arg : s.args)
        if (arg.kind == verify::ArgSpec::Kind::buffer && arg.buffer.init.kind == verify::Init::file &&
            same_file(receipt_path, arg.buffer.init.path))
          return usage_error("--receipt would overwrite the input file '" + arg.buffer.init.path + "'");
  }

  auto k0 = verify::load_code_object(a.pos[0]);
  if (!k0) return report(k0.error());
  auto k1 = verify::load_code_object(a.pos[1]);
  if (!k1) return report(k1.error());

  Expected<verify::Receipt> res = fail(DiagCode::internal, "no executor ran");
  if (executor == "emu") {
    verify::EmuExecutor ex(eo);
    res = verify::differential_verify(*k0, *k1, *shapes, ex, vo);
  } else {
    auto ex = hip::HipExecutor::open();
    if (!ex) {
      std::cerr << "asmevo: " << ex.error().message << "\n";
      return ex.error().code == DiagCode::internal ? exit_internal : exit_bad_input;
    }
    res = verify::differential_verify(*k0, *k1, *shapes, *ex, vo);
  }
  if (!res) return report(res.error());

  if (!receipt_path.empty())
    if (auto w = write_file_atomic(receipt_path, res->json.dump(1) + "\n"); !w) return report(w.error());

  if (a.opt.count("--json")) {
    std::cout << res->json.dump(1) << "\n";
  } else {
    switch (res->verdict) {
      case verify::Verdict::equivalent: std::cout << "equivalent: "; break;
      case verify::Verdict::not_equivalent: std::cout << "not equivalent (" << res->rejected_by << "): "; break;
      case verify::Verdict::k0_failed: std::cout << "K0 failed: "; break;
    }
    std::cout << res->reason << "\n";
    if (res->verdict == verify::Verdict::not_equivalent && res->rejected_by == "run") print_differences(res->json);
    // An "equivalent" the prover could not look at rests on the runs alone: say so, with its reason.
    if (res->verdict == verify::Verdict::equivalent && res->json.contains("refutation"))
      for (const auto& e : res->json["refutation"])
        if (e.value("result", "") == "unknown" || e.value("result", "").starts_with("not tried")) {
          std::cout << "note: the equivalence prover could not check the change ("
                    << e.value("reason", e.value("result", "")) << "); the verdict rests on the runs\n";
          break;
        }
    if (!receipt_path.empty()) std::cout << "receipt: " << receipt_path << "\n";
  }
  switch (res->verdict) {
    case verify::Verdict::equivalent: return exit_ok;
    case verify::Verdict::not_equivalent: return exit_negative;
    case verify::Verdict::k0_failed: return exit_bad_input;
  }
  return exit_internal;
}

}  // namespace asmevo::cli
