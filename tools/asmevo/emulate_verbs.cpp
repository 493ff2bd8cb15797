// The asmevo `emulate` verb: run a kernel of a code object on the CPU emulator (DESIGN.md "CLI contract").
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/support/file.hpp"
#include "asmevo/verify/emu/coverage.hpp"
#include "asmevo/verify/emu/launch.hpp"
#include "asmevo/verify/launch_spec.hpp"
#include "cli.hpp"
#include "loaded.hpp"
#include "verbs.hpp"

namespace asmevo::cli {

namespace {

using Json = nlohmann::ordered_json;

int coverage_report(const Args& a) {
  auto it = a.opt.find("--mcpu");
  if (it == a.opt.end()) return usage_error("emulate --coverage needs --mcpu TARGET (gfx90a, gfx942 or gfx950)");
  const auto t = parse_target(it->second);
  if (!t) return usage_error("unknown --mcpu '" + it->second + "': expected gfx90a, gfx942 or gfx950");
  const auto rows = emu::coverage(*t);
  std::size_t n[3] = {0, 0, 0};
  for (const auto& r : rows) ++n[static_cast<int>(r.status)];
  if (a.opt.count("--json")) {
    Json j;
    j["target"] = std::string(to_string(*t));
    j["exact"] = n[0];
    j["approximate"] = n[1];
    j["unsupported"] = n[2];
    Json list = Json::array();
    for (const auto& r : rows) {
      Json e;
      e["mnemonic"] = std::string(r.mnemonic);
      e["status"] = std::string(emu::to_string(r.status));
      if (!r.note.empty()) e["note"] = std::string(r.note);
      list.push_back(std::move(e));
    }
    j["opcodes"] = std::move(list);
    std::cout << j.dump(1) << "\n";
    return exit_ok;
  }
  for (const auto& r : rows) {
    std::cout << r.mnemonic << std::string(r.mnemonic.size() < 40 ? 40 - r.mnemonic.size() : 1, ' ')
              << emu::to_string(r.status);
    if (!r.note.empty()) std::cout << "  (" << r.note << ")";
    std::cout << "\n";
  }
  std::cout << to_string(*t) << ": " << rows.size() << " mnemonics: " << n[0] << " exact, " << n[1]
            << " approximate, " << n[2] << " unsupported\n";
  return exit_ok;
}

std::optional<std::uint64_t> number(const Args& a, const char* key, std::uint64_t dflt, int& rc) {
  auto it = a.opt.find(key);
  if (it == a.opt.end()) return dflt;
  try {
    std::size_t used = 0;
    const auto v = std::stoull(it->second, &used, 0);
    if (used == it->second.size()) return v;
  } catch (...) {
  }
  rc = usage_error(std::string(key) + " takes a non-negative integer; got '" + it->second + "'");
  return std::nullopt;
}

}  // namespace

int cmd_emulate(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"--launch", "--dump", "--mcpu", "--seed", "--threads", "--trial", "--limit"},
                      {"--json", "--coverage", "--eager", "--no-preload"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.opt.count("--coverage")) {
    if (!a.pos.empty()) return usage_error("emulate --coverage takes no code object");
    return coverage_report(a);
  }
  if (a.pos.size() != 1) return usage_error("emulate takes exactly one code object: asmevo emulate K.co --launch L.json");
  auto lp = a.opt.find("--launch");
  if (lp == a.opt.end()) return usage_error("emulate needs --launch L.json (DESIGN.md \"Launch spec\")");
  int rc = 0;
  emu::EmulateOptions opt;
  auto seed = number(a, "--seed", 1, rc);
  auto threads = number(a, "--threads", 1, rc);
  auto trial = number(a, "--trial", 0, rc);
  auto limit = number(a, "--limit", opt.run.instruction_limit, rc);
  if (!seed || !threads || !trial || !limit) return rc;
  if (*threads == 0 || *threads > 256) return usage_error("--threads takes 1..256");
  opt.run.seed = *seed;
  opt.run.threads = static_cast<unsigned>(*threads);
  opt.run.instruction_limit = *limit;
  opt.trial = static_cast<std::uint32_t>(*trial);
  opt.run.completion = a.opt.count("--eager") ? emu::Completion::eager : emu::Completion::adversarial;
  opt.kernarg_preload = !a.opt.count("--no-preload");

  auto spec = verify::read_launch_spec(lp->second);
  if (!spec) return report(spec.error());
  auto loaded = load_recovered(a.pos[0], rc);
  if (!loaded) return rc;

  // --dump writes DIR/arg<N>.bin for every buffer argument; none of them may be an input (checked before the run,
  // so a refused dump writes nothing).
  std::filesystem::path dump;
  if (auto d = a.opt.find("--dump"); d != a.opt.end()) dump = d->second;
  auto dump_path = [&](std::size_t arg) { return (dump / ("arg" + std::to_string(arg) + ".bin")).string(); };
  if (!dump.empty())
    for (std::size_t i = 0; i < spec->args.size(); ++i) {
      if (spec->args[i].kind != verify::ArgSpec::Kind::buffer) continue;
      const auto path = dump_path(i);
      for (const std::string& in : {a.pos[0], lp->second})
        if (same_file(path, in)) return usage_error("--dump would overwrite the input '" + in + "'");
      for (const auto& arg : spec->args)
        if (arg.kind == verify::ArgSpec::Kind::buffer && arg.buffer.init.kind == verify::Init::file &&
            same_file(path, arg.buffer.init.path))
          return usage_error("--dump would overwrite the input file '" + arg.buffer.init.path + "'");
    }

  auto res = emu::emulate(loaded->m, loaded->elf, *spec, opt);
  if (!res) return report(res.error());

  std::vector<std::string> written;
  if (!dump.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dump, ec);
    if (ec) return report(make_diag(DiagCode::io_error, "cannot create --dump folder '" + dump.string() + "': " + ec.message()));
    for (const auto& b : res->buffers) {
      const auto path = dump_path(b.arg);
      std::string bytes(reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size());
      if (auto w = write_file_atomic(path, bytes); !w) return report(w.error());
      written.push_back(path);
    }
  }

  const double rate = res->seconds > 0 ? static_cast<double>(res->wave_instructions) / res->seconds : 0;
  if (a.opt.count("--json")) {
    Json j;
    j["kernel"] = res->kernel;
    j["ok"] = res->ok();
    if (!res->ok()) {
      Json s;
      s["kind"] = std::string(emu::to_string(res->stop.kind));
      s["instruction"] = "i" + std::to_string(res->stop.inst.value);
      if (res->stop.has_other) s["load"] = "i" + std::to_string(res->stop.other.value);
      if (res->stop.lane >= 0) s["lane"] = res->stop.lane;
      if (res->stop.address) s["address"] = res->stop.address;
      s["message"] = res->stop.message;
      j["stop"] = std::move(s);
    }
    j["workgroups"] = res->workgroups;
    j["waves"] = res->waves;
    j["wave_instructions"] = res->wave_instructions;
    j["seconds"] = res->seconds;
    j["seed"] = opt.run.seed;
    j["completion"] = opt.run.completion == emu::Completion::eager ? "eager" : "adversarial";
    Json bufs = Json::array();
    for (const auto& b : res->buffers) bufs.push_back({{"arg", b.arg}, {"address", b.address}, {"bytes", b.bytes.size()}});
    j["buffers"] = std::move(bufs);
    if (!written.empty()) j["dumped"] = written;
    std::cout << j.dump(1) << "\n";
  } else {
    std::cout << res->kernel << ": " << res->workgroups << " workgroup(s), " << res->waves << " wave(s), "
              << res->wave_instructions << " wave-instructions in " << res->seconds << " s ("
              << rate / 1e6 << " M/s), seed " << opt.run.seed << ", "
              << (opt.run.completion == emu::Completion::eager ? "eager" : "adversarial") << " completion\n";
    for (const auto& p : written) std::cout << "wrote " << p << "\n";
    if (res->ok()) std::cout << "ok\n";
    else std::cout << "stopped: " << emu::to_string(res->stop.kind) << " at i" << res->stop.inst.value << ": "
                   << res->stop.message << "\n";
  }
  return res->ok() ? exit_ok : exit_negative;
}

}  // namespace asmevo::cli
