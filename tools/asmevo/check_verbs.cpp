// The asmevo `check` verb: static checks (waitcnt, hazards, ABI) of every kernel of a code object.
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "asmevo/verify/static_checks.hpp"
#include "cli.hpp"
#include "loaded.hpp"
#include "verbs.hpp"

namespace asmevo::cli {

/// `asmevo check K.co [--json]`: prints each kernel's findings; exit 0 when no check found an error (warnings are
/// printed but are not proof of a defect: analysis/findings.hpp), 1 when some did, 2 on bad input (unreadable or
/// unrecoverable object, usage).
int cmd_check(int argc, char** argv) {
  auto a = parse_args(argc, argv, {}, {"--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.size() != 1) return usage_error("check takes exactly one code object");
  int rc = 0;
  auto loaded = load_recovered(a.pos[0], rc);
  if (!loaded) return rc;
  auto r = verify::static_check(loaded->m);
  if (!r) return report(r.error());
  std::size_t total = 0, errors = 0;
  for (const auto& k : *r)
    for (const auto& f : k.findings) ++total, errors += f.severity == analysis::Severity::error;
  if (a.opt.count("--json")) {
    using Json = nlohmann::ordered_json;
    Json out;
    out["file"] = a.pos[0];
    out["target"] = loaded->m.target_id;
    out["findings"] = total;
    out["errors"] = errors;
    Json ks = Json::array();
    for (const auto& k : *r) {
      Json jk;
      jk["kernel"] = k.kernel;
      Json fs = Json::array();
      for (const auto& f : k.findings) {
        Json jf;
        jf["rule"] = f.rule;
        jf["severity"] = f.severity == analysis::Severity::warning ? "warning" : "error";
        jf["at"] = "i" + std::to_string(f.at.value);
        if (f.other) jf["other"] = "i" + std::to_string(f.other->value);
        jf["message"] = f.message;
        fs.push_back(std::move(jf));
      }
      jk["findings"] = std::move(fs);
      ks.push_back(std::move(jk));
    }
    out["kernels"] = std::move(ks);
    std::cout << out.dump(1) << "\n";
  } else {
    for (const auto& k : *r) {
      std::cout << k.kernel << ": " << (k.findings.empty() ? "clean" : std::to_string(k.findings.size()) + " finding(s)")
                << "\n";
      for (const auto& f : k.findings)
        std::cout << "  [" << f.rule << (f.severity == analysis::Severity::warning ? ", warning" : "") << "] "
                  << f.message << "\n";
    }
  }
  return errors == 0 ? exit_ok : exit_negative;
}

}  // namespace asmevo::cli
