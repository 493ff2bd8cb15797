// The asmevo `emulate` verb: run a kernel of a code object on the CPU emulator (DESIGN.md "CLI contract").
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/emu/coverage.hpp"
#include "asmevo/emu/launch.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/support/file.hpp"
#include "asmevo/verify/timed_emulation.hpp"
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

Json timing_json(const model::TimingReport& t) {
  Json j;
  j["modeled"] = true;  // cycles of the cost model (model/params.hpp), not a measurement
  j["target"] = std::string(to_string(t.target));
  j["device"] = t.device;
  j["modeled_us"] = t.modeled_us;
  j["simulated_cycles"] = t.simulated_cycles;
  j["cus"] = t.cus;
  j["cu_share"] = t.cu_share;
  j["modeled_groups"] = t.modeled_groups;
  j["subset"] = t.subset;
  j["waves_per_simd"] = t.waves_per_simd;
  j["groups_per_cu"] = t.groups_per_cu;
  j["occupancy_limiter"] = t.occupancy_limiter;
  j["wave_cycles"] = t.wave_cycles;
  j["drain_cycles"] = t.drain_cycles;
  // The speed-of-light bound for the same CU share: modeled_cycles >= bound_cycles; headroom = modeled / bound.
  j["bound_cycles"] = t.bound.cycles;
  j["bound_kind"] = t.bound.kind;
  j["headroom"] = t.bound.headroom;
  j["bound"] = {{"memory", t.bound.memory}, {"issue", t.bound.issue}, {"latency", t.bound.latency},
                {"launch", t.bound.launch}};
  j["note"] = t.note;
  j["memory"] = {{"l1_lines", t.memory.l1_lines},        {"l2_lines", t.memory.l2_lines},
                 {"mall_lines", t.memory.mall_lines},    {"hbm_lines", t.memory.hbm_lines},
                 {"store_lines", t.memory.store_lines},  {"writeback_lines", t.memory.writeback_lines},
                 {"scalar_hbm_lines", t.memory.scalar_hbm_lines}, {"tlb_misses", t.memory.tlb_misses},
                 {"scalar_hits", t.memory.scalar_hits},  {"scalar_misses", t.memory.scalar_misses},
                 {"busy_cus", t.share.busy_cus},         {"busy_cus_per_l2", t.share.busy_per_l2}};
  Json rows = Json::array();
  for (const auto& r : t.instructions)
    rows.push_back({{"id", "i" + std::to_string(r.id.value)}, {"mnemonic", std::string(r.mnemonic)},
                    {"executions", r.executions}, {"issue", r.issue}, {"stall_waitcnt", r.stall_waitcnt},
                    {"stall_dependency", r.stall_dependency}, {"stall_barrier", r.stall_barrier},
                    {"stall_resource", r.stall_resource}, {"mem_latency", r.mem_latency}});
  j["instructions"] = std::move(rows);
  Json hot = Json::array();
  for (const auto& h : t.hot_windows)
    hot.push_back({{"first", "i" + std::to_string(h.first.value)}, {"last", "i" + std::to_string(h.last.value)},
                   {"cycles", h.cycles}, {"share", h.share}});
  j["hot_windows"] = std::move(hot);
  return j;
}

void print_timing(const model::TimingReport& t) {
  std::cout << "modeled cycles: " << t.modeled_cycles << " (about " << t.modeled_us << " us on " << t.device
            << "; cost model, not a measurement)\n";
  std::cout << "  speed of light: " << t.bound.cycles << " cycles, bound by " << t.bound.kind << " (memory "
            << t.bound.memory << ", issue " << t.bound.issue << ", latency " << t.bound.latency << ", launch "
            << t.bound.launch << "); modeled / bound = " << t.bound.headroom << "\n";
  std::cout << "  " << t.note << "\n";
  std::cout << "  occupancy: " << t.waves_per_simd << " wave(s) per SIMD, " << t.groups_per_cu
            << " workgroup(s) per CU (limited by " << t.occupancy_limiter << ")\n";
  const auto& m = t.memory;
  if (m.l1_lines + m.l2_lines + m.mall_lines + m.hbm_lines + m.store_lines + m.scalar_hits + m.scalar_misses)
    std::cout << "  memory (lines of this CU's loads, by where they were found): L1 " << m.l1_lines << ", L2 "
              << m.l2_lines << ", Infinity Cache " << m.mall_lines << ", HBM " << m.hbm_lines << "; lines stored "
              << m.store_lines << " (" << m.writeback_lines << " written back to HBM); TLB misses " << m.tlb_misses
              << "; scalar L1 " << m.scalar_hits << " hit(s), " << m.scalar_misses << " miss(es), "
              << m.scalar_hbm_lines << " from HBM\n";
  std::vector<const model::InstTiming*> by_stall;
  for (const auto& r : t.instructions)
    if (r.stalls()) by_stall.push_back(&r);
  std::stable_sort(by_stall.begin(), by_stall.end(), [](auto* a, auto* b) { return a->stalls() > b->stalls(); });
  if (by_stall.size() > 10) by_stall.resize(10);
  if (!by_stall.empty()) std::cout << "  top stalls (wave-cycles: waitcnt / dependency / barrier / resource):\n";
  for (const auto* r : by_stall)
    std::cout << "    i" << r->id.value << " " << r->mnemonic << ": " << r->stall_waitcnt << " / " << r->stall_dependency
              << " / " << r->stall_barrier << " / " << r->stall_resource << " (x" << r->executions << ")\n";
  if (!t.hot_windows.empty()) std::cout << "  hot windows:\n";
  for (const auto& h : t.hot_windows)
    std::cout << "    i" << h.first.value << "..i" << h.last.value << ": " << h.cycles << " wave-cycles ("
              << static_cast<int>(100 * h.share + 0.5) << "%)\n";
}

}  // namespace

int cmd_emulate(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"--launch", "--dump", "--mcpu", "--seed", "--threads", "--trial", "--limit", "--shape"},
                      {"--json", "--coverage", "--eager", "--no-preload", "--no-hazards", "--timing"});
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
  auto shape = number(a, "--shape", 0, rc);
  if (!seed || !threads || !trial || !limit || !shape) return rc;
  if (*threads == 0 || *threads > 256) return usage_error("--threads takes 1..256");
  opt.run.seed = *seed;
  opt.run.threads = static_cast<unsigned>(*threads);
  opt.run.instruction_limit = *limit;
  opt.trial = static_cast<std::uint32_t>(*trial);
  opt.run.completion = a.opt.count("--eager") ? emu::Completion::eager : emu::Completion::adversarial;
  opt.kernarg_preload = !a.opt.count("--no-preload");
  opt.hazards = !a.opt.count("--no-hazards");
  const bool timing = a.opt.count("--timing") > 0;

  // A launch file holds one spec or an array of them (as `verify` reads it); --shape N picks one of an array.
  auto specs = verify::read_launch_file(lp->second);
  if (!specs) return report(specs.error());
  if (specs->size() > 1 && !a.opt.count("--shape"))
    return usage_error(lp->second + " holds " + std::to_string(specs->size()) +
                       " launch specs: pick one with --shape N (0.." + std::to_string(specs->size() - 1) + ")");
  if (*shape >= specs->size())
    return usage_error("--shape " + std::to_string(*shape) + ": " + lp->second + " holds " +
                       std::to_string(specs->size()) + " launch spec(s)");
  std::optional<verify::LaunchSpec> spec = std::move((*specs)[static_cast<std::size_t>(*shape)]);
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

  // --timing: the run traced and modeled (verify/timed_emulation.hpp); otherwise a plain run, with no report.
  auto res = [&]() -> Expected<verify::TimedResult> {
    if (timing) return verify::emulate_timed(loaded->m, loaded->elf, *spec, opt);
    auto r = emu::emulate(loaded->m, loaded->elf, *spec, opt);
    if (!r) return unexpected(r.error());
    verify::TimedResult out;
    static_cast<emu::EmulateResult&>(out) = std::move(*r);
    return out;
  }();
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
      // The other instruction a stop names: the pending load of a waitcnt violation, the producer of a hazard.
      if (res->stop.has_other)
        s[res->stop.kind == emu::Stop::Kind::hazard ? "producer" : "load"] = "i" + std::to_string(res->stop.other.value);
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
    if (res->timing) {
      j["modeled_cycles"] = res->timing->modeled_cycles;
      j["timing"] = timing_json(*res->timing);
    }
    if (!written.empty()) j["dumped"] = written;
    std::cout << j.dump(1) << "\n";
  } else {
    std::cout << res->kernel << ": " << res->workgroups << " workgroup(s), " << res->waves << " wave(s), "
              << res->wave_instructions << " wave-instructions in " << res->seconds << " s ("
              << rate / 1e6 << " M/s), seed " << opt.run.seed << ", "
              << (opt.run.completion == emu::Completion::eager ? "eager" : "adversarial") << " completion\n";
    for (const auto& p : written) std::cout << "wrote " << p << "\n";
    if (res->timing) print_timing(*res->timing);
    if (res->ok()) std::cout << "ok\n";
    else std::cout << "stopped: " << emu::to_string(res->stop.kind) << " at i" << res->stop.inst.value << ": "
                   << res->stop.message << "\n";
  }
  return res->ok() ? exit_ok : exit_negative;
}

}  // namespace asmevo::cli
