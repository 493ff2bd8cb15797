// `asmevo optimize`: the correctness-gated search (agent/search.hpp) from the command line.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/builtin_proposer.hpp"
#include "asmevo/agent/curl_transport.hpp"
#include "asmevo/agent/llm.hpp"
#include "asmevo/agent/report.hpp"
#include "asmevo/agent/search.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/support/file.hpp"
#include "asmevo/support/text_diff.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/emu_executor.hpp"
#include "asmevo/verify/hip/executor.hpp"
#include "cli.hpp"
#include "edit_script_schema.hpp"
#include "verbs.hpp"

namespace asmevo::cli {

namespace {

namespace fs = std::filesystem;

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

/// The progress line: rewritten in place on a terminal, one line per attempt otherwise (a log file stays readable).
void print_progress(const agent::Progress& p, bool tty) {
  std::ostringstream s;
  s << "optimize: attempt " << p.attempts << "/" << p.budget << (p.replayed ? " (replayed from the log)" : "")
    << ", accepted " << p.accepted << ", best " << fixed(p.best_speedup, 3) << "x, tokens " << p.tokens.total()
    << (p.tokens.estimated ? " (some estimated)" : "") << ", " << fixed(p.seconds, 1) << " s";
  if (tty) std::cerr << "\r" << s.str() << "\x1b[K" << std::flush;
  else std::cerr << s.str() << "\n";
}

/// What a search's attempts came to: how many had each outcome, and the first failure's message (a failure is not
/// the candidate's doing: a rebuild or a run that could not be done, where a missing or broken tool shows).
struct AttemptTally {
  std::map<std::string, std::uint64_t> counts;  ///< outcome -> attempts
  std::uint64_t total = 0;
  std::string first_failure;  ///< its message and the first line of what the tool said, without error:/hint: lines
};

AttemptTally tally_attempts(const std::vector<nlohmann::json>& records) {
  AttemptTally t;
  for (const auto& rec : records) {
    const std::string o = rec.value("outcome", std::string("?"));
    ++t.counts[o];
    ++t.total;
    if (o != "failed" || !t.first_failure.empty()) continue;
    // "rebuild: error: ld.lld failed (exit status 127)\n  <what ld.lld printed>\n  hint: …": the message and one line
    // of the tool's own words; Diag::str's "error: " and its hint say nothing here.
    std::istringstream in(rec.value("reason", std::string()));
    std::string line;
    int kept = 0;
    while (kept < 2 && std::getline(in, line)) {
      line.erase(0, line.find_first_not_of(" \t"));
      if (line.empty() || line.starts_with("hint:")) continue;
      for (std::size_t at; (at = line.find("error: ")) != std::string::npos;) line.erase(at, 7);
      t.first_failure += (kept++ ? ": " : "") + line;
    }
    if (t.first_failure.size() > 400) t.first_failure = t.first_failure.substr(0, 400) + "…";
  }
  return t;
}

/// "40 attempts: 30 slower, 8 not equivalent, 2 failed".
std::string tally_text(const AttemptTally& t) {
  static constexpr std::pair<std::string_view, std::string_view> names[] = {
      {"accepted", "accepted"}, {"slower", "slower"},  {"not_equivalent", "not equivalent"},
      {"invalid", "invalid"},   {"unchanged", "changing nothing"}, {"failed", "failed"}, {"no_proposal", "no proposal"}};
  auto counts = t.counts;
  std::string text = std::to_string(t.total) + (t.total == 1 ? " attempt" : " attempts");
  const char* sep = ": ";
  const auto add = [&](const std::string& outcome, std::string_view name) {
    const auto it = counts.find(outcome);
    if (it == counts.end()) return;
    text += sep + std::to_string(it->second) + " " + std::string(name);
    sep = ", ";
    counts.erase(it);
  };
  for (const auto& [outcome, name] : names) add(std::string(outcome), name);
  while (!counts.empty()) add(counts.begin()->first, counts.begin()->first);  // outcomes not named above
  return text;
}

/// Why a search that was not improved wrote nothing, in one sentence.
std::string nothing_faster(const AttemptTally& t) {
  return "no verified candidate was faster than K0 (" + tally_text(t) + ")" +
         (t.first_failure.empty() ? std::string() : "; first failure: " + t.first_failure);
}

/// The launched kernel's code as text (for the diff): the program printed without ids.
std::string program_text(const Program& p) {
  PrintOptions po;
  po.ids = false;
  return print_program(p, po);
}

/// The report's data from the search's result.
agent::ReportData report_data(const agent::SearchResult& r, const std::string& kernel, const std::string& target,
                              const std::string& k0, const std::string& k1, const std::string& executor, bool verified,
                              std::uint64_t seed, const std::string& reverify) {
  agent::ReportData d;
  d.kernel = kernel;
  d.target = target;
  d.k0_path = k0;
  d.k1_path = verified ? k1 : std::string("(not written)");
  d.executor = executor;
  d.modeled = r.modeled;
  d.cost_before = r.cost_before;
  d.cost_after = r.cost_after;
  d.speedup = r.speedup();
  d.verified = verified;
  d.attempts = r.attempts;
  d.accepted = r.accepted;
  d.tokens = r.tokens.total();
  d.seconds = r.seconds;
  d.seed = seed;
  for (const auto& l : r.lineages) {
    agent::ReportLineage rl;
    rl.index = l.index;
    rl.proposer = l.proposer;
    rl.strategy = l.strategy;
    rl.best = l.best;
    d.lineages.push_back(std::move(rl));
  }
  for (const auto& rec : r.records) {
    const auto li = rec.value("lineage", 0u);
    if (li >= d.lineages.size()) continue;
    agent::ReportSeriesPoint pt;
    pt.attempt = rec.value("attempt", std::uint64_t{0});
    if (rec.contains("cost") && rec["cost"].is_number()) pt.cost = rec["cost"].get<double>();
    pt.outcome = rec.value("outcome", std::string());
    pt.summary = rec.value("summary", std::string());
    if (pt.outcome == "accepted")
      d.accepted_steps.push_back({pt.attempt, li, pt.summary, rec.value("parent_cost", 0.0), pt.cost});
    d.lineages[li].attempts.push_back(std::move(pt));
  }
  if (r.improved) d.diff = unified_diff(program_text(r.k0_program), program_text(r.k1_program), k0, k1);
  auto profile = [](const auto& prof, const std::vector<agent::HotSpot>& hot, std::vector<agent::ReportHotInst>& insts,
                    std::vector<agent::ReportHotWindow>& windows) {
    for (const auto& [id, text, cyc] : prof) insts.push_back({id, text, cyc});
    for (const auto& h : hot)
      windows.push_back({"i" + std::to_string(h.first.value), "i" + std::to_string(h.last.value), h.share});
  };
  profile(r.profile_before, r.hot_before, d.insts_before, d.hot_before);
  profile(r.profile_after, r.hot_after, d.insts_after, d.hot_after);
  if (r.bound_before.cycles) {
    d.bound_before = static_cast<double>(r.bound_before.cycles);
    d.profiled_before = static_cast<double>(r.profiled_before);
    d.bound_kind_before = r.bound_before.kind;
  }
  if (r.bound_after.cycles) {
    d.bound_after = static_cast<double>(r.bound_after.cycles);
    d.profiled_after = static_cast<double>(r.profiled_after);
    d.bound_kind_after = r.bound_after.kind;
  }
  if (r.bound_before.cycles)
    d.notes.push_back("The bound is the cost model's speed of light for the same CU share: the largest of the "
                      "compulsory HBM traffic at the CU's bandwidth share, the busiest issue unit, the longest "
                      "dependent chain of one wave alone, and the workgroup launches; modeled cycles are never below "
                      "it.");
  d.notes.push_back("Every accepted candidate verified equivalent to K0 (static checks, then every shape and trial of "
                    "the launch) before it was timed; a candidate that failed was never timed.");
  if (r.modeled)
    d.notes.push_back("Costs are modeled cycles of the emulator's cost model (model/params.hpp), not "
                      "measurements.");
  if (!reverify.empty()) d.notes.push_back("Final re-verification of K1 on fresh schedule seeds: " + reverify);
  d.notes.push_back("Stopped by " + r.stopped_by + ".");
  return d;
}

}  // namespace

int cmd_optimize(int argc, char** argv) {
  auto a = parse_args(argc, argv,
                      {"--launch", "-o", "--budget", "--seed", "--lineages", "--jobs", "--executor", "--log", "--resume", "--report",
                       "--tokens", "--time", "--min-gain", "--stall", "--llm", "--model", "--llm-key", "--llm-timeout"},
                      {"--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.size() != 1)
    return usage_error("optimize takes one code object: asmevo optimize K0.co --launch L.json -o K1.co [--budget N] "
                       "[--seed S] [--executor emu|hip] [--log DIR] [--resume DIR] [--report R.html] [--json]");
  const auto lp = a.opt.find("--launch");
  if (lp == a.opt.end()) return usage_error("optimize needs --launch L.json (DESIGN.md \"Launch spec\")");
  const auto out = a.opt.find("-o");
  if (out == a.opt.end()) return usage_error("optimize needs -o K1.co");
  const bool json = a.opt.count("--json") != 0;
  int rc = 0;
  agent::SearchOptions so;
  auto budget = number_opt(a, "--budget", so.budget, 0, 1u << 24, rc);
  auto seed = number_opt(a, "--seed", so.seed, 0, ~std::uint64_t{0}, rc);
  auto lineages = number_opt(a, "--lineages", so.lineages, 1, 64, rc);
  auto stall = number_opt(a, "--stall", so.stall_after, 1, 1u << 20, rc);
  // Candidates gated at once: every core by default (the result does not depend on it).
  auto jobs = number_opt(a, "--jobs", std::max(1u, std::thread::hardware_concurrency()), 1, 256, rc);
  if (!budget || !seed || !lineages || !stall || !jobs) return rc;
  so.jobs = static_cast<unsigned>(*jobs);
  so.budget = *budget;
  so.seed = *seed;
  so.lineages = static_cast<std::uint32_t>(*lineages);
  so.stall_after = static_cast<std::uint32_t>(*stall);
  if (a.opt.count("--tokens")) {
    auto t = number_opt(a, "--tokens", 0, 1, ~std::uint64_t{0}, rc);
    if (!t) return rc;
    so.token_budget = *t;
  }
  for (const auto& [flag, field] : {std::pair{"--time", &so.wall_seconds}}) {
    if (!a.opt.count(flag)) continue;
    char* end = nullptr;
    const double v = std::strtod(a.opt[flag].c_str(), &end);
    if (!end || *end || !(v > 0)) return usage_error(std::string(flag) + " takes a positive number of seconds; got '" + a.opt[flag] + "'");
    *field = v;
  }
  if (a.opt.count("--min-gain")) {
    char* end = nullptr;
    const double v = std::strtod(a.opt["--min-gain"].c_str(), &end);
    if (!end || *end || !(v >= 0) || v >= 1)
      return usage_error("--min-gain takes a fraction in [0, 1) (0.001 = 0.1%); got '" + a.opt["--min-gain"] + "'");
    so.min_gain = v;
  }
  std::string executor = "emu";
  if (auto e = a.opt.find("--executor"); e != a.opt.end()) executor = e->second;
  if (executor != "emu" && executor != "hip") return usage_error("--executor takes emu or hip; got '" + executor + "'");

  // Outputs may overwrite no input.
  std::vector<std::string> inputs{a.pos[0], lp->second};
  for (const char* flag : {"-o", "--report"})
    if (auto o = a.opt.find(flag); o != a.opt.end())
      for (const auto& in : inputs)
        if (same_file(o->second, in)) return usage_error(std::string(flag) + " '" + o->second + "' would overwrite the input '" + in + "'");
  auto same_path = [](const std::string& x, const std::string& y) {
    std::error_code e1, e2;
    return same_file(x, y) || fs::weakly_canonical(x, e1) == fs::weakly_canonical(y, e2);
  };
  if (a.opt.count("--report") && same_path(a.opt["--report"], out->second))
    return usage_error("--report and -o name the same file");
  {
    // K1's folder must exist before hours of search, not when K1 is written.
    std::error_code ec;
    const fs::path parent = fs::path(out->second).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
      return usage_error("-o '" + out->second + "': no folder '" + parent.string() + "' to write it in");
  }

  // The log: --log DIR starts one (refusing to clobber an existing log), --resume DIR continues one.
  std::optional<fs::path> log_file;
  const bool resuming = a.opt.count("--resume") != 0;
  if (a.opt.count("--log") && resuming && a.opt["--log"] != a.opt["--resume"])
    return usage_error("--log and --resume name different folders; --resume DIR goes on logging in DIR");
  if (resuming) {
    log_file = fs::path(a.opt["--resume"]) / "log.jsonl";
    std::error_code ec;
    if (!fs::exists(*log_file, ec)) return usage_error("--resume " + a.opt["--resume"] + ": no log.jsonl there to resume");
  } else if (a.opt.count("--log")) {
    std::error_code ec;
    fs::create_directories(a.opt["--log"], ec);
    if (ec) return report(Diag{DiagCode::io_error, "--log " + a.opt["--log"] + ": cannot create the folder: " + ec.message()});
    log_file = fs::path(a.opt["--log"]) / "log.jsonl";
    if (fs::exists(*log_file, ec))
      return usage_error("--log " + a.opt["--log"] + " already holds a log; use --resume " + a.opt["--log"] +
                         " to continue it, or another folder");
  }

  if (log_file)
    for (const char* flag : {"-o", "--report"})
      if (auto o = a.opt.find(flag); o != a.opt.end() && same_path(o->second, log_file->string()))
        return usage_error(std::string(flag) + " '" + o->second + "' would overwrite the search's log");
  auto launch_text = read_file(lp->second);
  if (!launch_text) return report(launch_text.error());
  auto shapes = verify::read_launch_file(lp->second);
  if (!shapes) return report(shapes.error());
  auto k0 = verify::load_code_object(a.pos[0]);
  if (!k0) return report(k0.error());

  // Proposers: the built-in one always; with --llm (or ASMEVO_LLM_URL set and --model given) an LLM one too, and
  // the lineages alternate between them (LLM first), so that composition can merge what each found.
  std::vector<agent::ProposerSlot> proposers;
  const bool use_llm = a.opt.count("--llm") != 0;
  if (!use_llm && (a.opt.count("--model") || a.opt.count("--llm-key") || a.opt.count("--llm-timeout")))
    return usage_error("--model, --llm-key and --llm-timeout go with --llm URL");
  if (use_llm) {
    agent::LlmFlags lf;
    lf.url = a.opt["--llm"];
    if (a.opt.count("--model")) lf.model = a.opt["--model"];
    if (a.opt.count("--llm-key")) lf.key = a.opt["--llm-key"];
    if (a.opt.count("--llm-timeout")) {
      char* end = nullptr;
      const double v = std::strtod(a.opt["--llm-timeout"].c_str(), &end);
      if (!end || *end || !(v > 0)) return usage_error("--llm-timeout takes a positive number of seconds");
      lf.timeout_s = v;
    }
    lf.seed = so.seed;
    auto cfg = agent::llm_config(lf);
    if (!cfg) return report(cfg.error());
    agent::PromptOptions po;
    po.schema = std::string(edit_script_schema);
    auto llm = std::make_shared<agent::LlmProposer>(std::move(*cfg), agent::curl_transport(), std::move(po));
    proposers.push_back(agent::slot_of(llm, {"shorten the critical path of the hot window", "hide memory latency",
                                             "remove waits and nops the window does not need"}));
  }
  {
    std::vector<std::string> st;
    for (const auto s : agent::BuiltinProposer::strategies) st.emplace_back(s);
    proposers.push_back(agent::slot_of(std::make_shared<agent::BuiltinProposer>(), st));
  }

  const bool tty = ::isatty(2) != 0;
  auto drive = [&](auto& exec) -> Expected<agent::SearchResult> {
    agent::Search search(*k0, *shapes, exec, proposers, so, *launch_text);
    if (log_file) search.log_to(*log_file);
    if (resuming) {
      auto log = agent::Search<std::remove_reference_t<decltype(exec)>>::read_log(*log_file);
      if (!log) return unexpected(std::move(log).error());
      search.resume_from(std::move(log->first), std::move(log->second));
    }
    search.on_progress([&](const agent::Progress& p) { print_progress(p, tty); });
    auto r = search.run();
    if (tty) std::cerr << "\n";
    return r;
  };
  Expected<agent::SearchResult> res = fail(DiagCode::internal, "no executor ran");
  std::optional<bool> reverified;
  std::string reverify_reason;
  std::optional<Diag> final_error;  // the last check could not run: an internal error, not a "no"
  auto final_check = [&](auto& exec, const agent::SearchResult& r) {
    // The written K1 verified when it was accepted; check it once more with schedule seeds the search did not use.
    auto k1 = verify::code_object_from_bytes(std::vector<std::uint8_t>(r.k1), out->second);
    if (!k1) {  // the search's own bytes do not recover: a broken invariant
      final_error = Diag{DiagCode::internal, {}, {}, "the best candidate does not recover: " + k1.error().str(), {}};
      return;
    }
    verify::VerifyOptions vo = so.verify;
    vo.seed = so.verify.seed + 7919;
    auto v = verify::differential_verify(*k0, *k1, *shapes, exec, vo);
    if (!v) {
      final_error = Diag{DiagCode::internal, {}, {}, "the final verification could not run: " + v.error().str(), {}};
      return;
    }
    reverified = v->verdict == verify::Verdict::equivalent;
    reverify_reason = v->reason;
  };
  if (executor == "emu") {
    verify::EmuExecutor ex;
    res = drive(ex);
    if (res && res->improved) final_check(ex, *res);
  } else {
    auto ex = hip::HipExecutor::open();
    if (!ex) {
      std::cerr << "asmevo: " << ex.error().message << "\n";
      return ex.error().code == DiagCode::internal ? exit_internal : exit_bad_input;
    }
    res = drive(*ex);
    if (res && res->improved) final_check(*ex, *res);
  }
  if (!res) return report(res.error());
  if (final_error) return report(*final_error);  // exit 3, nothing written
  const agent::SearchResult& r = *res;
  const bool verified = r.improved && reverified.value_or(false);
  if (r.improved && verified)
    if (auto w = write_file_atomic(out->second, std::string_view(reinterpret_cast<const char*>(r.k1.data()), r.k1.size())); !w)
      return report(w.error());

  const AttemptTally tally = tally_attempts(r.records);
  if (auto rp = a.opt.find("--report"); rp != a.opt.end()) {
    auto d = report_data(r, (*shapes)[so.timed_shape].kernel, std::string(to_string(k0->module.target)), a.pos[0],
                         out->second, executor, verified, so.seed, reverify_reason);
    d.notes.push_back("What the attempts came to: " + tally_text(tally) +
                      (tally.first_failure.empty() ? std::string(".") : "; the first failure: " + tally.first_failure + "."));
    if (auto w = write_file_atomic(rp->second, agent::render_report(d)); !w) return report(w.error());
  }

  const std::string unit = r.modeled ? "modeled cycles" : "us (measured median)";
  if (json) {
    nlohmann::json j;
    j["kernel"] = (*shapes)[so.timed_shape].kernel;
    j["executor"] = executor;
    j["modeled"] = r.modeled;
    if (r.modeled) {
      j["modeled_cycles_before"] = r.cost_before;
      j["modeled_cycles_after"] = verified ? r.cost_after : r.cost_before;
    } else {
      j["measured_us_before"] = r.cost_before;
      j["measured_us_after"] = verified ? r.cost_after : r.cost_before;
    }
    j["speedup"] = verified ? r.speedup() : 1.0;  // what the written K1 gives (nothing written: 1)
    j["improved"] = r.improved;
    j["verified"] = verified;
    if (r.improved) j["reverify"] = reverify_reason;
    j["output"] = verified ? nlohmann::json(out->second) : nlohmann::json();
    j["attempts"] = r.attempts;
    j["replayed"] = r.replayed;
    j["accepted"] = r.accepted;
    j["tokens"] = {{"prompt", r.tokens.prompt}, {"completion", r.tokens.completion}, {"total", r.tokens.total()},
                   {"estimated", r.tokens.estimated},
                   // Tokens spent per accepted step (compositions included), over the whole run.
                   {"per_verified_improvement", r.accepted && r.tokens.total()
                                                    ? nlohmann::json(static_cast<double>(r.tokens.total()) /
                                                                     static_cast<double>(r.accepted))
                                                    : nlohmann::json()}};
    if (r.modeled && r.bound_before.cycles > 0) {
      // The cost model's speed-of-light bound of K0 and of K1 on the timed shape (the latency part depends on the
      // code, so K1's may differ).
      const auto& b1 = verified ? r.bound_after : r.bound_before;
      j["bound"] = {{"before", {{"cycles", r.bound_before.cycles}, {"kind", r.bound_before.kind},
                                {"memory", r.bound_before.memory}, {"issue", r.bound_before.issue},
                                {"latency", r.bound_before.latency}, {"launch", r.bound_before.launch},
                                {"headroom", r.bound_before.headroom}}},
                    {"after", {{"cycles", b1.cycles}, {"kind", b1.kind}, {"memory", b1.memory}, {"issue", b1.issue},
                               {"latency", b1.latency}, {"launch", b1.launch}, {"headroom", b1.headroom}}}};
    }
    j["seconds"] = r.seconds;
    j["stopped_by"] = r.stopped_by;
    j["seed"] = so.seed;
    nlohmann::json ls = nlohmann::json::array();
    for (const auto& l : r.lineages)
      ls.push_back({{"lineage", l.index}, {"proposer", l.proposer}, {"strategy", l.strategy}, {"cost", l.cost},
                    {"attempts", l.attempts}, {"accepted", l.accepted}});
    j["lineages"] = std::move(ls);
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& rec : r.records)
      if (rec.value("outcome", std::string()) == "accepted")
        steps.push_back({{"attempt", rec["attempt"]}, {"lineage", rec["lineage"]}, {"summary", rec.value("summary", std::string())},
                         {"cost_before", rec.value("parent_cost", 0.0)}, {"cost_after", rec.value("cost", 0.0)}});
    j["accepted_steps"] = std::move(steps);
    // Why nothing was written, in one sentence (optimize-dir's summary shows it).
    j["why_not"] = verified    ? nlohmann::json()
                   : r.improved ? nlohmann::json("the best candidate did not verify again on fresh schedule seeds: " + reverify_reason)
                                : nlohmann::json(nothing_faster(tally));
    // What the attempts came to, by outcome: optimize-dir optimizes a kernel again when some failed (a failure is a
    // tool's, and may be mended before the next run).
    j["outcomes"] = tally.counts;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "optimize: " << (*shapes)[so.timed_shape].kernel << ": " << fixed(r.cost_before, 0) << " -> "
              << fixed(verified ? r.cost_after : r.cost_before, 0) << " " << unit << ", speedup "
              << fixed(verified ? r.speedup() : 1.0, 3) << "x ("
              << r.attempts << " attempts, " << r.accepted << " accepted, " << r.tokens.total() << " tokens, "
              << fixed(r.seconds, 1) << " s, stopped by " << r.stopped_by << ")\n";
    if (r.modeled && r.bound_before.cycles > 0) {
      const auto& b1 = verified ? r.bound_after : r.bound_before;
      std::cout << "optimize: speed-of-light bound (cost model): K0 " << r.bound_before.cycles << " cycles ("
                << r.bound_before.kind << "), K0 at " << fixed(r.bound_before.headroom, 2) << "x it; K1 "
                << b1.cycles << " (" << b1.kind << "), K1 at " << fixed(b1.headroom, 2) << "x it; memory bound "
                << r.bound_before.memory << "\n";
    }
    if (r.accepted && r.tokens.total())
      std::cout << "optimize: " << fixed(static_cast<double>(r.tokens.total()) / static_cast<double>(r.accepted), 0)
                << " tokens per verified improvement\n";
    if (!r.improved) std::cout << "optimize: " << nothing_faster(tally) << "; nothing written\n";
    else if (!verified)
      std::cout << "optimize: the best candidate did not verify again on fresh schedule seeds (" << reverify_reason
                << "); nothing written\n";
    else
      std::cout << "optimize: K1 verified equivalent to K0 on every shape and trial of " << lp->second << "; written to "
                << out->second << "\n";
  }
  return verified ? exit_ok : exit_negative;
}

}  // namespace asmevo::cli
