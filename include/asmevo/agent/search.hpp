// The correctness-gated search behind `asmevo optimize`: from K0 and a launch, find a faster K1 that verifies
// equivalent to K0.
//
// Several lineages start from K0, each with its own proposer (agent/proposer.hpp), strategy and seed. An attempt
// asks one lineage's proposer for an edit script over the lineage's current program, applies it through the
// Rewriter (agent/edit_script.hpp; restricted to code the launch exercises), rebuilds against K0's ELF, and sends
// the candidate through the gate in order: static checks and differential verification against K0 on every shape
// and trial of the launch (verify/differential.hpp), then timing. A candidate that fails is never timed; one that
// verifies is accepted only when faster than its parent by more than the noise (modeled cycles: `min_gain`;
// measured: a median-based margin, faster_than). Every (lineages + 1)-th attempt tries a composition instead: the
// scripts another lineage accepted, re-applied on top of the best lineage, re-verified, kept if faster. A lineage
// that goes `stall_after` attempts without a gain is redirected (next strategy, next hot window). Budgets: attempts,
// tokens, wall time.
//
// Every attempt is one JSON line in the lineage log (SearchLog), written when the attempt ends. A run resumed from
// the log replays the logged attempts without re-running them (accepted scripts are re-applied, which is cheap and
// exact) and goes on from the first attempt the log does not hold; since every decision depends only on the seed and
// on earlier outcomes, the resumed run ends where an uninterrupted one would.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <thread>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/edit_script.hpp"
#include "asmevo/agent/proposer.hpp"
#include "asmevo/analysis/cfg.hpp"
#include "asmevo/codeobject/link.hpp"
#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/emu/launch.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/file.hpp"
#include "asmevo/verify/code_alignment.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/differential.hpp"
#include "asmevo/verify/executor.hpp"
#include "asmevo/verify/static_checks.hpp"
#include "asmevo/verify/timed_emulation.hpp"

namespace asmevo::agent {

/// What the search may spend and how it decides.
struct SearchOptions {
  std::uint64_t seed = 1;
  std::uint64_t budget = 48;                  ///< attempts (proposals and compositions)
  std::uint32_t lineages = 3;
  std::uint32_t stall_after = 6;              ///< attempts without a gain before a lineage is redirected
  double min_gain = 0.001;                    ///< modeled: a candidate must be this fraction faster than its parent
  std::optional<std::uint64_t> token_budget;  ///< stop once the proposers spent this many tokens
  std::optional<double> wall_seconds;         ///< stop starting attempts after this long
  std::size_t timed_shape = 0;                ///< which shape of the launch is timed (the others only verify)
  std::size_t hot_windows = 4;                ///< hot windows a proposer is told about
  verify::VerifyOptions verify;               ///< the gate's options
  /// Candidates gated (verified and timed) at once, on as many threads. The result does not depend on it: the
  /// attempts of one round that work on different lineages are proposed and built in order, gated together, and
  /// settled in order, and no attempt of a round reads what another of the same round changes. Executors that are
  /// not the emulator (a GPU) gate one at a time.
  unsigned jobs = 1;
};

/// A proposer behind a uniform face: the search holds one per kind (built-in, LLM) and assigns them to lineages.
struct ProposerSlot {
  std::string name;
  std::vector<std::string> strategies;  ///< a lineage steps through them when redirected
  std::function<Proposal(const ProposalRequest&)> propose;
};

/// Makes a ProposerSlot from any Proposer (held by shared_ptr: the search may outlive the caller's scope).
template <Proposer P>
[[nodiscard]] ProposerSlot slot_of(std::shared_ptr<P> p, std::vector<std::string> strategies) {
  ProposerSlot s;
  s.name = std::string(p->name());
  s.strategies = std::move(strategies);
  s.propose = [p](const ProposalRequest& r) { return p->propose(r); };
  return s;
}

/// What the search reports while it runs (after every attempt).
struct Progress {
  std::uint64_t attempts = 0, budget = 0, accepted = 0;
  double best_speedup = 1;
  TokenUsage tokens;
  double seconds = 0;
  bool replayed = false;  ///< the attempt came from the log of a resumed run
};

/// One lineage at the end of the search.
struct LineageSummary {
  std::uint32_t index = 0;
  std::string proposer, strategy;
  double cost = 0;
  std::uint64_t attempts = 0, accepted = 0;
  std::vector<std::pair<std::uint64_t, double>> best;  ///< (attempt, cost) each time it improved; first is K0
};

/// What the search found.
struct SearchResult {
  bool modeled = true;                 ///< costs are modeled cycles (emulator), else measured microseconds
  double cost_before = 0, cost_after = 0;
  bool improved = false;               ///< some candidate was accepted
  std::vector<std::uint8_t> k1;        ///< the best candidate's bytes (empty when not improved)
  std::uint32_t best_lineage = 0;
  std::uint64_t attempts = 0, accepted = 0, replayed = 0;
  TokenUsage tokens;
  double seconds = 0;
  std::string stopped_by;              ///< "budget", "tokens", "wall time"
  std::vector<LineageSummary> lineages;
  std::vector<nlohmann::json> records; ///< every attempt's log record, in order
  Program k0_program, k1_program;      ///< for diffs and reports (k1 = k0 when not improved)
  std::vector<HotSpot> hot_before, hot_after;
  /// Every instruction of the launched kernel's profile: (id text, instruction text, attributed wave-cycles).
  std::vector<std::tuple<std::string, std::string, double>> profile_before, profile_after;
  /// The cost model's speed-of-light bound (model::Bound) of K0 and of the best candidate on the timed shape, and the
  /// modeled cycles of the same runs (zero cycles where not computed).
  model::Bound bound_before, bound_after;
  std::uint64_t profiled_before = 0, profiled_after = 0;
  [[nodiscard]] double speedup() const noexcept { return cost_after > 0 ? cost_before / cost_after : 1; }
};

/// A measured candidate is faster than its parent when its median is below the parent's by more than the larger
/// of `min_gain` and twice the relative median absolute deviations of the two sample sets (the noise the runs
/// show); a modeled one when it is below by more than `min_gain`.
[[nodiscard]] inline bool faster_than(const verify::TimeOutcome& cand, const verify::TimeOutcome& parent, double min_gain) {
  if (!(cand.median > 0) || !(parent.median > 0)) return false;
  double margin = min_gain;
  if (!cand.modeled && !parent.modeled) {
    auto rel_mad = [](const verify::TimeOutcome& t) {
      if (t.samples.size() < 2) return 0.0;
      std::vector<double> d;
      for (const double s : t.samples) d.push_back(std::abs(s - t.median));
      std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
      return d[d.size() / 2] / t.median;
    };
    margin = std::max(margin, 2 * (rel_mad(cand) + rel_mad(parent)));
  }
  return cand.median < parent.median * (1 - margin);
}

namespace search_detail {

using Json = nlohmann::json;

/// FNV-1a, 64 bits: identifies K0 and the launch in the log header (not a security measure).
[[nodiscard]] inline std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

/// A seed for (run seed, lineage, attempt): splitmix64 over the three.
[[nodiscard]] inline std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  std::uint64_t z = a + 0x9e3779b97f4a7c15ull * (b + 1) + 0xbf58476d1ce4e5b9ull * (c + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

[[nodiscard]] inline Json tokens_json(const TokenUsage& t) {
  return Json{{"prompt", t.prompt}, {"completion", t.completion}, {"estimated", t.estimated}};
}
[[nodiscard]] inline TokenUsage tokens_of(const Json& j) {
  TokenUsage t;
  if (!j.is_object()) return t;
  t.prompt = j.value("prompt", std::uint64_t{0});
  t.completion = j.value("completion", std::uint64_t{0});
  t.estimated = j.value("estimated", false);
  return t;
}

/// The instruction ids of `p` in item order.
[[nodiscard]] inline std::vector<InstId> inst_ids(const Program& p) {
  std::vector<InstId> out;
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::inst) out.push_back(it.inst.id);
  return out;
}

}  // namespace search_detail

/// The search (see the file comment). `E` is the executor that verifies and times (emulator or HIP device).
template <verify::Executor E>
class Search {
 public:
  using Json = nlohmann::json;

  /// `k0`: the original object; `shapes`: the launch (its first kernel is the one optimized); `proposers`: lineage i
  /// uses proposers[i % size]; `launch_text`: the launch file's bytes (identifies the launch in the log).
  Search(const verify::CodeObject& k0, std::vector<verify::LaunchSpec> shapes, E& exec, std::vector<ProposerSlot> proposers,
         SearchOptions opt, std::string launch_text)
      : k0_(k0), shapes_(std::move(shapes)), exec_(exec), proposers_(std::move(proposers)), opt_(std::move(opt)),
        launch_text_(std::move(launch_text)) {}

  /// Log records go to `path` (JSON lines, flushed after each). Null: no log.
  void log_to(std::filesystem::path path) { log_path_ = std::move(path); }
  /// The header and records of an earlier run of the same search (read_log) to replay before going on. run()
  /// refuses a header that differs from this search's (another K0, launch, seed or options).
  void resume_from(Json head, std::vector<Json> records) {
    resume_head_ = std::move(head);
    resume_ = std::move(records);
  }
  /// Called after every attempt.
  void on_progress(std::function<void(const Progress&)> f) { progress_ = std::move(f); }

  /// The log's first line: what identifies this search (resume refuses a log whose header differs).
  [[nodiscard]] Json header() const {
    std::string k0_bytes(reinterpret_cast<const char*>(k0_.elf.bytes().data()), k0_.elf.bytes().size());
    Json names = Json::array();
    for (const auto& p : proposers_) names.push_back(p.name);
    return Json{{"asmevo_optimize_log", 1},
                {"k0_fnv1a", search_detail::fnv1a(k0_bytes)},
                {"launch_fnv1a", search_detail::fnv1a(launch_text_)},
                {"seed", opt_.seed},
                {"lineages", opt_.lineages},
                {"stall_after", opt_.stall_after},
                {"min_gain", opt_.min_gain},
                {"timed_shape", opt_.timed_shape},
                {"executor", std::string(std::string_view(exec_.name()))},
                {"hot_windows", opt_.hot_windows},
                {"verify", {{"schedules", opt_.verify.schedules}, {"static_checks", opt_.verify.static_checks},
                            {"seed", opt_.verify.seed}, {"trials", opt_.verify.trials ? Json(*opt_.verify.trials) : Json()},
                            {"state_check", opt_.verify.state_check}}},
                {"proposers", names}};
  }

  /// Runs the search. Errors: no ld.lld to link candidates with (codeobject::find_lld; a candidate of K0's size would
  /// not need one, but nearly every edit changes a size), K0 does not run cleanly, the launch does not fit, the log
  /// cannot be written, a resumed log that does not replay (a different K0, launch or options).
  [[nodiscard]] Expected<SearchResult> run() {
    const auto t0 = std::chrono::steady_clock::now();
    SearchResult res;
    if (proposers_.empty()) return fail(DiagCode::usage, "the search needs at least one proposer");
    if (shapes_.empty()) return fail(DiagCode::usage, "the launch has no shape");
    if (opt_.timed_shape >= shapes_.size())
      return fail(DiagCode::usage, "timed shape " + std::to_string(opt_.timed_shape) + " is beyond the launch's " +
                                       std::to_string(shapes_.size()) + " shape(s)");
    if (opt_.lineages == 0) return fail(DiagCode::usage, "the search needs at least one lineage");
    kernel_ = shapes_[opt_.timed_shape].kernel;
    if (kernel_.empty() && k0_.module.kernels.size() == 1) kernel_ = k0_.module.kernels[0].name;
    xnack_ = verify::detail::xnack_on_or_any(k0_.module.target_id);
    auto enc = codeobject::encoder_for(k0_.elf);
    if (!enc) return unexpected(std::move(enc).error());
    enc_ = std::move(*enc);
    // Every candidate that changes a size is linked by ld.lld (codeobject/link.hpp): without one, each would fail to
    // build and the search would end in a "no gain" that does not say why.
    if (auto lld = codeobject::find_lld(); !lld) return unexpected(std::move(lld).error());

    // K0: what the launch exercises, its cost and its profile.
    auto ran = verify::exercised_by(k0_, shapes_, exec_, opt_.verify);
    if (!ran) return unexpected(std::move(ran).error());
    if (ran->known)
      cold_ = std::make_shared<const std::unordered_set<std::uint32_t>>(verify::not_exercised(k0_.module.program, *ran));
    {
      std::vector<analysis::LaunchFacts> facts;
      for (const auto& s : shapes_)
        if (auto f = verify::launch_facts(k0_.module, s)) facts.push_back(std::move(*f));
      launches_ = std::make_shared<const std::vector<analysis::LaunchFacts>>(std::move(facts));
    }
    auto t = exec_.time(k0_, shapes_[opt_.timed_shape], verify::TimeRequest{});
    if (!t) return unexpected(std::move(t).error());
    k0_time_ = *t;
    res.modeled = t->modeled;
    res.cost_before = t->median;
    res.k0_program = k0_.module.program;

    lineages_.clear();
    for (std::uint32_t l = 0; l < opt_.lineages; ++l) {
      Lineage ln;
      ln.index = l;
      ln.proposer = l % proposers_.size();
      const auto& strategies = proposers_[ln.proposer].strategies;
      ln.strategy = strategies.empty() ? 0 : (l / proposers_.size()) % strategies.size();
      ln.module = k0_.module;
      ln.co = std::make_shared<verify::CodeObject>(k0_);
      ln.time = k0_time_;
      ln.best.emplace_back(0, k0_time_.median);
      lineages_.push_back(std::move(ln));
    }
    auto prof = profile(*lineages_[0].co, lineages_[0].module.program, &res.bound_before, &res.profiled_before);
    if (!prof) return unexpected(std::move(prof).error());
    for (auto& ln : lineages_) ln.hot = prof->first, ln.hot_fresh = true;
    res.hot_before = prof->first;
    res.profile_before = prof->second;
    bound0_ = res.bound_before;

    // The log: a header line, then one line per attempt. A resumed log is rewritten first with the records that
    // replay (a line cut short by the kill is gone), so that appending goes on from a whole line.
    const Json head = header();
    if (resume_head_ && *resume_head_ != head) {
      std::string diff;
      for (const auto& [k, v] : head.items())
        if (!resume_head_->contains(k) || (*resume_head_)[k] != v)
          diff += (diff.empty() ? "" : ", ") + k + " (log " + (resume_head_->contains(k) ? (*resume_head_)[k].dump() : "absent") +
                  ", now " + v.dump() + ")";
      return fail(DiagCode::usage, "the log to resume is of another search: " + diff);
    }
    if (log_path_) {
      std::string text = head.dump() + "\n";
      for (const auto& r : resume_) text += r.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
      if (auto w = write_file_atomic(*log_path_, text); !w) return unexpected(std::move(w).error());
    }

    std::uint64_t attempt = 0;
    // Replay.
    for (const auto& rec : resume_) {
      if (auto r = replay(rec, attempt, res); !r) return unexpected(std::move(r).error());
      ++attempt;
      ++res.replayed;
      report_progress(res, t0, true);
    }
    res.stopped_by = "budget";
    // Rounds (plan): the attempts up to the next composition work on distinct lineages, so they are prepared
    // (proposed and built) in order, gated together on up to `jobs` threads, and settled and logged in order; a
    // composition, which reads every lineage, is a wave of its own. An attempt's result is the same in any wave.
    const std::uint64_t L = lineages_.size();
    bool stop = false;
    while (attempt < opt_.budget && !stop) {
      const std::uint64_t slot = attempt % (L + 1);
      // One at a time when gating is serial anyway, so that --time is checked before every attempt.
      const std::uint64_t end = std::min<std::uint64_t>(
          opt_.budget, slot < L && effective_jobs() > 1 ? attempt + (L - slot) : attempt + 1);
      std::vector<Pending> wave;
      for (std::uint64_t a = attempt; a < end; ++a) {
        if (opt_.token_budget && tokens_.total() >= *opt_.token_budget) {
          res.stopped_by = "tokens";
          stop = true;
          break;
        }
        if (opt_.wall_seconds && seconds_since(t0) >= *opt_.wall_seconds) {
          res.stopped_by = "wall time";
          stop = true;
          break;
        }
        wave.push_back(prepare(a));
      }
      gate_all(wave);
      for (auto& pd : wave) {
        Json rec = complete(pd);
        if (log_path_)
          if (auto w = append_line(*log_path_, rec.dump(-1, ' ', false, Json::error_handler_t::replace)); !w)
            return unexpected(std::move(w).error());
        res.records.push_back(std::move(rec));
        report_progress(res, t0, false);
      }
      attempt += wave.size();
    }
    return finish(std::move(res), t0);
  }

  /// Reads a log written by log_to: its header and its attempt records. A last line cut short (the run was killed
  /// while writing it) is dropped; a malformed line before it is an error naming the line.
  [[nodiscard]] static Expected<std::pair<Json, std::vector<Json>>> read_log(const std::filesystem::path& path) {
    auto text = read_file(path);
    if (!text) return unexpected(std::move(text).error());
    std::vector<Json> recs;
    Json head;
    std::size_t at = 0, line = 0;
    while (at < text->size()) {
      const auto nl = text->find('\n', at);
      ++line;
      if (nl == std::string::npos) break;  // no newline: cut short by a kill
      auto j = Json::parse(std::string_view(*text).substr(at, nl - at), nullptr, false);
      at = nl + 1;
      if (j.is_discarded() || !j.is_object())
        return fail(DiagCode::parse_error, path.string() + ":" + std::to_string(line) + ": not a log record (JSON object)");
      if (line == 1) head = std::move(j);
      else recs.push_back(std::move(j));
    }
    if (!head.is_object() || !head.contains("asmevo_optimize_log"))
      return fail(DiagCode::parse_error, path.string() + ": not an asmevo optimize log (no header line)");
    return std::pair{std::move(head), std::move(recs)};
  }

 private:
  struct Lineage {
    std::uint32_t index = 0;
    std::size_t proposer = 0, strategy = 0, stall = 0;
    std::size_t focus = 0;  ///< redirections so far; the hot window is focus % hot.size()
    codeobject::Module module;                  ///< K0's module with this lineage's program (ids from K0 on)
    std::shared_ptr<verify::CodeObject> co;     ///< the program rebuilt and recovered (what runs and is timed)
    verify::TimeOutcome time;
    std::vector<HotSpot> hot;
    bool hot_fresh = false;                     ///< `hot` describes the current program
    bool exact_recount = false;                 ///< a pass that lowers register counts ran: recount exactly
    std::vector<PastAttempt> history;
    std::vector<Json> accepted;                 ///< the scripts accepted, in order
    std::vector<std::string> origins;           ///< per accepted script: "L<lineage>#<attempt>" that first found it
    std::vector<std::size_t> merged;            ///< per other lineage: how many of its accepted scripts were tried here
    std::vector<std::pair<std::uint64_t, double>> best;
    std::uint64_t attempts = 0, accepts = 0;
  };

  /// A candidate built from a parent lineage.
  struct Candidate {
    codeobject::Module module;
    std::shared_ptr<verify::CodeObject> co;
    bool exact_recount = false;
  };

  [[nodiscard]] static double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  [[nodiscard]] static Expected<void> append_line(const std::filesystem::path& p, const std::string& line) {
    std::ofstream f(p, std::ios::app | std::ios::binary);
    if (!f) return fail(DiagCode::io_error, p.string() + ": cannot append to the log");
    f << line << '\n';
    f.flush();
    if (!f) return fail(DiagCode::io_error, p.string() + ": writing the log failed");
    return {};
  }

  void report_progress(const SearchResult& res, std::chrono::steady_clock::time_point t0, bool replayed) {
    if (!progress_) return;
    Progress p;
    p.attempts = res.records.size();
    p.budget = opt_.budget;
    p.accepted = accepted_;
    p.best_speedup = best_cost() > 0 ? k0_time_.median / best_cost() : 1;
    p.tokens = tokens_;
    p.seconds = seconds_since(t0);
    p.replayed = replayed;
    progress_(p);
  }

  [[nodiscard]] double best_cost() const {
    double b = k0_time_.median;
    for (const auto& l : lineages_) b = std::min(b, l.time.median);
    return b;
  }
  [[nodiscard]] std::uint32_t best_lineage() const {
    std::uint32_t b = 0;
    for (const auto& l : lineages_)
      if (l.time.median < lineages_[b].time.median) b = l.index;
    return b;
  }

  /// The hot windows and per-instruction profile of `co` (the emulator's cost model, on the timed shape), with ids
  /// mapped to `prog`'s (the lineage program it was built from: same instructions in the same order).
  [[nodiscard]] Expected<std::pair<std::vector<HotSpot>, std::vector<std::tuple<std::string, std::string, double>>>>
  profile(const verify::CodeObject& co, const Program& prog, model::Bound* bound = nullptr,
          std::uint64_t* modeled = nullptr) const {
    auto r = verify::emulate_timed(co.module, co.elf, shapes_[opt_.timed_shape]);
    if (!r) return unexpected(std::move(r).error());
    if (!r->ok() || !r->timing)
      return fail(DiagCode::usage, co.path + " does not run cleanly on the launch's timed shape: " + r->stop.message);
    if (bound) *bound = r->timing->bound;
    if (modeled) *modeled = r->timing->modeled_cycles;
    // The rebuilt object's instructions, matched to the program's: the same sequence up to what the rebuild adds
    // (alignment padding), matched by text as the verifier aligns code (align_sequences).
    std::vector<InstId> from, to;
    {
      const auto rebuilt = search_detail::inst_ids(co.module.program), source = search_detail::inst_ids(prog);
      std::unordered_map<std::string, std::uint32_t> tok;
      auto tokens = [&](const Program& q) {
        std::vector<std::uint32_t> t;
        for (const auto& it : q.items)
          if (it.kind == Item::Kind::inst)
            t.push_back(tok.emplace(print_inst(it.inst), static_cast<std::uint32_t>(tok.size())).first->second);
        return t;
      };
      const auto ta = tokens(co.module.program), tb = tokens(prog);
      for (const auto& [x, y] : align_sequences(ta, tb)) from.push_back(rebuilt[x]), to.push_back(source[y]);
    }
    std::unordered_map<std::uint32_t, std::size_t> ord;
    for (std::size_t i = 0; i < from.size(); ++i) ord[from[i].value] = i;
    std::unordered_map<std::uint32_t, const model::InstTiming*> timing;
    for (const auto& it : r->timing->instructions) timing[it.id.value] = &it;
    std::vector<HotSpot> hot;
    for (const auto& w : r->timing->hot_windows) {
      if (hot.size() >= opt_.hot_windows) break;
      const auto a = ord.find(w.first.value), b = ord.find(w.last.value);
      if (a == ord.end() || b == ord.end()) continue;
      HotSpot h;
      h.first = to[a->second];
      h.last = to[b->second];
      h.share = w.share;
      for (std::size_t i = a->second; i <= b->second && i < to.size(); ++i) {
        HotInst hi;
        hi.id = to[i];
        if (const Inst* in = prog.find(to[i])) hi.text = print_inst(*in);
        if (const auto t = timing.find(from[i].value); t != timing.end()) {
          hi.executions = t->second->executions;
          hi.issue = t->second->issue;
          hi.stall_waitcnt = t->second->stall_waitcnt;
          hi.stall_dependency = t->second->stall_dependency;
          hi.stall_barrier = t->second->stall_barrier;
          hi.stall_resource = t->second->stall_resource;
        }
        h.insts.push_back(std::move(hi));
      }
      hot.push_back(std::move(h));
    }
    // The profile of the launched kernel's instructions (all of the program's, in order, when it has one kernel).
    std::vector<std::tuple<std::string, std::string, double>> prof;
    const analysis::Cfg g = analysis::build_cfg(prog);
    const auto code = verify::detail::kernel_code(prog, g, kernel_);
    for (const std::size_t item : code) {
      const Inst& in = prog.items[item].inst;
      double cyc = 0;
      for (std::size_t i = 0; i < to.size(); ++i)
        if (to[i] == in.id) {
          if (const auto t = timing.find(from[i].value); t != timing.end()) cyc = static_cast<double>(t->second->total());
          break;
        }
      prof.emplace_back("i" + std::to_string(in.id.value), print_inst(in), cyc);
    }
    return std::pair{std::move(hot), std::move(prof)};
  }

  /// Applies `scripts` in order to `parent`'s program, rebuilds against K0 and recovers the result. The error
  /// message is the outcome's reason ("invalid": the scripts; "failed": the rebuild).
  [[nodiscard]] std::pair<std::string, std::string> build(const Lineage& parent, const std::vector<Json>& scripts,
                                                          Candidate& out) const {
    out.module = parent.module;
    out.exact_recount = parent.exact_recount;
    passes::PassContext base;
    base.xnack = xnack_;
    base.not_exercised = cold_;
    base.launches = launches_;
    std::size_t edits = 0;
    for (std::size_t s = 0; s < scripts.size(); ++s) {
      auto r = apply_edit_script(out.module, scripts[s], base);
      if (!r.ok()) {
        std::string why;
        for (std::size_t e = 0; e < r.errors.size() && e < 6; ++e)
          why += (why.empty() ? "" : "; ") + r.errors[e].str();
        if (r.errors.size() > 6) why += "; (" + std::to_string(r.errors.size() - 6) + " more)";
        return {"invalid", (scripts.size() > 1 ? "script " + std::to_string(s) + ": " : std::string()) + why};
      }
      for (const auto& st : r.pass_stats) out.exact_recount = out.exact_recount || st.shrinks_resources;
      edits += r.log.size();
      out.module.program = std::move(r.program);
    }
    if (edits == 0) return {"unchanged", "the script changes nothing"};
    codeobject::RebuildOptions ro;
    ro.original = &k0_.elf;
    ro.recovered = &k0_.module;
    if (out.exact_recount) ro.policy = codeobject::RecountPolicy::exact;
    auto built = codeobject::rebuild(out.module.program, *enc_, ro);
    if (!built) return {"failed", "rebuild: " + built.error().str()};
    auto co = verify::code_object_from_bytes(std::move(built->bytes), "candidate");
    if (!co) return {"failed", "recovering the rebuilt object: " + co.error().str()};
    out.co = std::make_shared<verify::CodeObject>(std::move(*co));
    return {"", ""};
  }

  /// The gate: verification against K0, then timing. Fills the record's outcome, reason and cost.
  void gate(const Lineage& parent, Candidate& cand, Json& rec, verify::TimeOutcome& time) {
    auto v = verify::differential_verify(k0_, *cand.co, shapes_, exec_, opt_.verify);
    if (!v) {
      rec["outcome"] = "failed";
      rec["reason"] = "verification could not run: " + v.error().str();
      return;
    }
    if (v->verdict != verify::Verdict::equivalent) {
      rec["outcome"] = "not_equivalent";
      rec["reason"] = v->rejected_by + ": " + v->reason;
      return;
    }
    auto t = exec_.time(*cand.co, shapes_[opt_.timed_shape], verify::TimeRequest{});
    if (!t) {
      rec["outcome"] = "failed";
      rec["reason"] = "timing: " + t.error().str();
      return;
    }
    time = *t;
    rec["cost"] = t->median;
    if (!t->modeled) rec["samples"] = t->samples;
    const bool faster = faster_than(*t, parent.time, opt_.min_gain);
    rec["outcome"] = faster ? "accepted" : "slower";
    rec["reason"] = faster ? "verified equivalent and faster" : "verified equivalent, but not faster than its parent by the margin";
  }

  /// After an attempt on lineage `l`: its history, stall count and redirection; on acceptance, its new state.
  void settle(Lineage& l, const Json& rec, std::optional<Candidate> cand, const verify::TimeOutcome& time,
              const std::vector<Json>& scripts, const std::vector<std::string>& origins = {}) {
    ++l.attempts;
    PastAttempt pa;
    pa.index = rec.value("attempt", std::uint64_t{0});
    pa.script = rec.contains("script") ? rec["script"] : Json();
    pa.summary = rec.value("summary", std::string());
    pa.outcome = rec.value("outcome", std::string());
    pa.reason = rec.value("reason", std::string());
    if (rec.contains("cost") && rec["cost"].is_number()) pa.cycles = rec["cost"].get<double>();
    const bool accepted = pa.outcome == "accepted" && cand;
    const std::uint64_t index = pa.index;
    l.history.push_back(std::move(pa));
    if (l.history.size() > 32) l.history.erase(l.history.begin());
    if (accepted) {
      l.module = std::move(cand->module);
      l.co = std::move(cand->co);
      l.exact_recount = cand->exact_recount;
      l.time = time;
      l.hot_fresh = false;
      for (std::size_t k = 0; k < scripts.size(); ++k) {
        l.accepted.push_back(scripts[k]);
        l.origins.push_back(k < origins.size() ? origins[k]
                                               : "L" + std::to_string(l.index) + "#" + std::to_string(index));
      }
      l.best.emplace_back(index + 1, time.median);
      l.stall = 0;
      ++l.accepts;
      ++accepted_;
    } else if (++l.stall >= opt_.stall_after) {
      const auto& strategies = proposers_[l.proposer].strategies;
      if (!strategies.empty()) l.strategy = (l.strategy + 1) % strategies.size();
      ++l.focus;  // taken modulo the hot windows when used: a replayed lineage may not have profiled its program
      l.stall = 0;
    }
  }

  /// Which lineage attempt `a` belongs to and whether it is a composition (see the file comment). For a
  /// composition, `from` is the lineage whose accepted scripts are tried on top of the returned (best) one.
  [[nodiscard]] std::pair<std::uint32_t, std::optional<std::uint32_t>> plan(std::uint64_t a) const {
    const std::uint64_t L = lineages_.size(), slot = a % (L + 1);
    if (slot < L) return {static_cast<std::uint32_t>(slot), std::nullopt};
    if (L > 1) {
      const std::uint32_t b = best_lineage();
      const Lineage& best = lineages_[b];
      std::optional<std::uint32_t> from;
      for (const auto& o : lineages_) {
        if (o.index == b) continue;
        if (!compose_scripts(best, o).first.empty() && (!from || o.time.median < lineages_[*from].time.median))
          from = o.index;
      }
      if (from) return {b, from};
    }
    return {static_cast<std::uint32_t>((a / (L + 1)) % L), std::nullopt};
  }

  /// The scripts `from` accepted that `into` has not tried yet, with their origins; a script `into` already holds
  /// (it came from `into` itself, or from a third lineage both merged) is left out.
  [[nodiscard]] std::pair<std::vector<Json>, std::vector<std::string>> compose_scripts(const Lineage& into,
                                                                                       const Lineage& from) const {
    const std::size_t tried = from.index < into.merged.size() ? into.merged[from.index] : 0;
    std::pair<std::vector<Json>, std::vector<std::string>> out;
    for (std::size_t k = tried; k < from.accepted.size(); ++k) {
      if (std::find(into.origins.begin(), into.origins.end(), from.origins[k]) != into.origins.end()) continue;
      out.first.push_back(from.accepted[k]);
      out.second.push_back(from.origins[k]);
    }
    return out;
  }
  void mark_merged(Lineage& into, const Lineage& from) {
    if (into.merged.size() < lineages_.size()) into.merged.resize(lineages_.size(), 0);
    into.merged[from.index] = from.accepted.size();
  }

  /// Whether lineage `l` tried `script` since its program last changed.
  [[nodiscard]] static bool tried_here(const Lineage& l, const Json& script) {
    for (auto it = l.history.rbegin(); it != l.history.rend(); ++it) {
      if (it->outcome == "accepted") break;
      if (it->script == script) return true;
    }
    return false;
  }

  [[nodiscard]] Expected<void> refresh_hot(Lineage& l) {
    if (l.hot_fresh) return {};
    auto p = profile(*l.co, l.module.program);
    if (!p) return unexpected(std::move(p).error());
    l.hot = std::move(p->first);
    l.hot_fresh = true;
    return {};
  }

  /// One attempt between its proposal and its settling.
  struct Pending {
    std::uint32_t li = 0;
    Json rec;
    std::vector<Json> scripts;
    std::vector<std::string> origins;
    Candidate cand;
    bool gate = false;  ///< built: the gate decides
    verify::TimeOutcome time;
    std::chrono::steady_clock::time_point t0;
  };

  /// Attempt `a` up to its gate: plan, compose or propose, build. Reads and changes only its lineage (and, for a
  /// composition, reads the others).
  [[nodiscard]] Pending prepare(std::uint64_t a) {
    Pending pd;
    pd.t0 = std::chrono::steady_clock::now();
    const auto [li, from] = plan(a);
    pd.li = li;
    Lineage& l = lineages_[li];
    Json& rec = pd.rec;
    rec = Json{{"attempt", a}, {"lineage", li}};
    std::vector<Json>& scripts = pd.scripts;
    std::vector<std::string>& origins = pd.origins;
    Candidate& cand = pd.cand;
    std::pair<std::string, std::string> built;
    if (from) {
      rec["kind"] = "compose";
      rec["from"] = *from;
      std::tie(scripts, origins) = compose_scripts(l, lineages_[*from]);
      rec["script"] = Json{{"compose", scripts}};
      rec["origins"] = origins;
      rec["summary"] = "compose: lineage " + std::to_string(*from) + "'s " + std::to_string(scripts.size()) +
                       " accepted script(s) on top of lineage " + std::to_string(li);
      mark_merged(l, lineages_[*from]);
      built = build(l, scripts, cand);
    } else {
      rec["kind"] = "propose";
      const ProposerSlot& ps = proposers_[l.proposer];
      rec["proposer"] = ps.name;
      if (auto h = refresh_hot(l); !h) {
        rec["outcome"] = "failed";
        rec["reason"] = "profiling the parent: " + h.error().str();
        return pd;
      }
      ProposalRequest rq;
      rq.module = &l.module;
      rq.kernel = kernel_;
      rq.xnack = xnack_;
      rq.not_exercised = cold_;
      rq.launches = launches_;
      rq.hot = l.hot;
      rq.focus = l.hot.empty() ? 0 : l.focus % l.hot.size();
      rq.strategy = ps.strategies.empty() ? std::string() : ps.strategies[l.strategy];
      rq.history = l.history;
      rq.seed = search_detail::mix(opt_.seed, li, a);
      rq.parent_cost = l.time.median;
      if (k0_time_.modeled) {  // the bound is in modeled cycles: beside measured time it would mean nothing
        rq.bound_cycles = bound0_.cycles, rq.bound_memory = bound0_.memory;
        rq.bound_issue = bound0_.issue, rq.bound_latency = bound0_.latency;
        rq.bound_kind = bound0_.kind;
      }
      rq.attempt = a;
      rec["strategy"] = rq.strategy;
      rec["focus"] = rq.focus < rq.hot.size() ? Json{{"first", "i" + std::to_string(rq.hot[rq.focus].first.value)},
                                                      {"last", "i" + std::to_string(rq.hot[rq.focus].last.value)}}
                                              : Json();
      // A script this lineage already tried on its current program, or one that changes nothing, costs no
      // verification and no attempt: the proposer is asked again (the next seed) up to five more times, its tokens
      // counted each time.
      Proposal p;
      TokenUsage asked;
      std::vector<Json> seen;
      std::string why_not, summary;
      bool have = false;
      for (int k = 0; k < 6; ++k) {
        if (k) rq.seed = search_detail::mix(rq.seed, li, a + 1);
        p = ps.propose(rq);
        asked += p.tokens;
        rec["asked"] = k + 1;
        if (!p.script) {
          why_not = p.failure;
          break;
        }
        if (tried_here(l, *p.script) || std::find(seen.begin(), seen.end(), *p.script) != seen.end()) {
          why_not = "every proposal was one this lineage already tried on its current program";
          continue;
        }
        seen.push_back(*p.script);
        summary = p.summary;
        built = build(l, {*p.script}, cand);
        have = true;
        if (built.first != "unchanged") break;
      }
      tokens_ += asked;
      rec["tokens"] = search_detail::tokens_json(asked);
      rec["summary"] = have ? summary : p.summary;
      if (!p.transcript.empty()) rec["transcript"] = p.transcript;
      if (!have) {
        rec["outcome"] = "no_proposal";
        rec["reason"] = why_not;
        return pd;
      }
      rec["script"] = seen.back();
      scripts.push_back(seen.back());
    }
    rec["parent_cost"] = l.time.median;
    if (!built.first.empty()) {
      rec["outcome"] = built.first;
      rec["reason"] = built.second;
    } else {
      pd.gate = true;
    }
    return pd;
  }

  /// Candidates gated at once: opt_.jobs on the emulator, one on any other executor (a GPU measures one at a time).
  [[nodiscard]] unsigned effective_jobs() const noexcept {
    if constexpr (requires { requires E::emulated_semantics; }) return std::max(1u, opt_.jobs);
    return 1;
  }

  /// Gates the built candidates of a wave, on up to effective_jobs() threads. An exception in a worker is carried
  /// out and rethrown here, after every thread has joined, as the sequential path would throw it.
  void gate_all(std::vector<Pending>& wave) {
    std::vector<Pending*> todo;
    for (auto& pd : wave)
      if (pd.gate) todo.push_back(&pd);
    const unsigned jobs = static_cast<unsigned>(std::min<std::size_t>(effective_jobs(), todo.size()));
    if (jobs <= 1) {
      for (auto* pd : todo) gate(lineages_[pd->li], pd->cand, pd->rec, pd->time);
      return;
    }
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(todo.size());
    auto work = [&] {
      for (std::size_t k; (k = next.fetch_add(1)) < todo.size();) {
        try {
          gate(lineages_[todo[k]->li], todo[k]->cand, todo[k]->rec, todo[k]->time);
        } catch (...) {
          errors[k] = std::current_exception();
        }
      }
    };
    std::vector<std::thread> pool;
    try {
      for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(work);  // this thread is the last worker
    } catch (const std::system_error&) {
      // No more threads: the ones started and this one share what is left.
    }
    work();
    for (auto& th : pool) th.join();
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

  /// Settles a prepared (and gated) attempt on its lineage and returns its log record.
  [[nodiscard]] Json complete(Pending& pd) {
    Lineage& l = lineages_[pd.li];
    pd.rec["seconds"] = seconds_since(pd.t0);
    const bool ok = pd.rec.value("outcome", std::string()) == "accepted";
    settle(l, pd.rec, ok ? std::optional<Candidate>(std::move(pd.cand)) : std::nullopt, pd.time, pd.scripts, pd.origins);
    return std::move(pd.rec);
  }

  /// One attempt from the log: its outcome is taken as logged; an accepted one is rebuilt (not re-verified).
  [[nodiscard]] Expected<void> replay(const Json& rec, std::uint64_t a, SearchResult& res) {
    for (const char* key : {"attempt", "lineage"})
      if (!rec.contains(key) || !rec[key].is_number_unsigned())
        return fail(DiagCode::parse_error, "the log's record " + std::to_string(a) + " has no unsigned \"" + key + "\"");
    for (const char* key : {"kind", "outcome"})
      if (!rec.contains(key) || !rec[key].is_string())
        return fail(DiagCode::parse_error, "the log's record " + std::to_string(a) + " has no string \"" + key + "\"");
    if (rec.contains("tokens") && (!rec["tokens"].is_object() || !rec["tokens"].value("prompt", Json(0)).is_number_unsigned() ||
                                   !rec["tokens"].value("completion", Json(0)).is_number_unsigned()))
      return fail(DiagCode::parse_error, "the log's record " + std::to_string(a) + " has malformed \"tokens\"");
    if (rec.value("attempt", ~std::uint64_t{0}) != a)
      return fail(DiagCode::parse_error, "the log's attempt " + std::to_string(a) + " is out of order");
    const auto [li, from] = plan(a);
    if (rec.value("lineage", ~0u) != li || rec.value("kind", std::string()) != (from ? "compose" : "propose"))
      return fail(DiagCode::parse_error, "the log's attempt " + std::to_string(a) +
                                             " does not match this search's plan (different options or code?)");
    Lineage& l = lineages_[li];
    std::vector<Json> scripts;
    std::vector<std::string> origins;
    if (from) {
      std::tie(scripts, origins) = compose_scripts(l, lineages_[*from]);
      mark_merged(l, lineages_[*from]);
    } else if (rec.contains("script") && !rec["script"].is_null()) {
      scripts.push_back(rec["script"]);
    }
    tokens_ += search_detail::tokens_of(rec.value("tokens", Json()));
    std::optional<Candidate> cand;
    verify::TimeOutcome time;
    if (rec.value("outcome", std::string()) == "accepted") {
      Candidate c;
      auto [outcome, reason] = build(l, scripts, c);
      if (!outcome.empty())
        return fail(DiagCode::parse_error, "the log's accepted attempt " + std::to_string(a) + " does not rebuild: " + reason);
      // An accepted record is checked again, not trusted: verified against K0, and timed (a modeled cost must
      // come out as logged; a measured one is re-measured), so that an edited log cannot smuggle in a candidate.
      Json check{{"attempt", a}};
      gate(l, c, check, time);
      if (check.value("outcome", std::string()) == "not_equivalent" || check.value("outcome", std::string()) == "failed")
        return fail(DiagCode::parse_error, "the log's accepted attempt " + std::to_string(a) + " does not verify again: " +
                                               check.value("reason", std::string()));
      const auto* logged = rec.contains("cost") && rec["cost"].is_number() ? &rec["cost"] : nullptr;
      if (!logged || (time.modeled && time.median != logged->get<double>()))
        return fail(DiagCode::parse_error, "the log's accepted attempt " + std::to_string(a) + " logged cost " +
                                               (logged ? logged->dump() : std::string("none")) + ", but it times at " +
                                               std::to_string(time.median));
      cand = std::move(c);
    }
    settle(l, rec, std::move(cand), time, scripts, origins);
    res.records.push_back(rec);
    return {};
  }

  [[nodiscard]] Expected<SearchResult> finish(SearchResult res, std::chrono::steady_clock::time_point t0) {
    res.attempts = res.records.size();
    res.accepted = accepted_;
    res.tokens = tokens_;
    const std::uint32_t b = best_lineage();
    res.best_lineage = b;
    Lineage& best = lineages_[b];
    res.cost_after = best.time.median;
    res.improved = best.accepts > 0 && best.time.median < k0_time_.median;
    if (res.improved) {
      res.k1.assign(best.co->elf.bytes().begin(), best.co->elf.bytes().end());
      res.k1_program = best.module.program;
      best.hot_fresh = false;
      auto p = profile(*best.co, best.module.program, &res.bound_after, &res.profiled_after);
      if (p) res.hot_after = std::move(p->first), res.profile_after = std::move(p->second);
    } else {
      // K1 is K0: it stands where K0 stands against the bound.
      res.cost_after = res.cost_before;
      res.k1_program = res.k0_program;
      res.bound_after = res.bound_before;
      res.profiled_after = res.profiled_before;
    }
    for (const auto& l : lineages_) {
      LineageSummary s;
      s.index = l.index;
      s.proposer = proposers_[l.proposer].name;
      const auto& st = proposers_[l.proposer].strategies;
      s.strategy = st.empty() ? std::string() : st[l.strategy];
      s.cost = l.time.median;
      s.attempts = l.attempts;
      s.accepted = l.accepts;
      s.best = l.best;
      res.lineages.push_back(std::move(s));
    }
    res.seconds = seconds_since(t0);
    return res;
  }

  const verify::CodeObject& k0_;
  std::vector<verify::LaunchSpec> shapes_;
  E& exec_;
  std::vector<ProposerSlot> proposers_;
  SearchOptions opt_;
  std::string launch_text_;
  std::optional<std::filesystem::path> log_path_;
  std::optional<Json> resume_head_;
  std::vector<Json> resume_;
  std::function<void(const Progress&)> progress_;

  std::string kernel_;
  bool xnack_ = true;
  std::unique_ptr<mc::Encoder> enc_;
  std::shared_ptr<const std::unordered_set<std::uint32_t>> cold_;
  std::shared_ptr<const std::vector<analysis::LaunchFacts>> launches_;  ///< per shape, for passes that version
  verify::TimeOutcome k0_time_;
  std::vector<Lineage> lineages_;
  model::Bound bound0_;  ///< K0's speed-of-light bound on the timed shape (what proposers are told)
  TokenUsage tokens_;
  std::uint64_t accepted_ = 0;
};

}  // namespace asmevo::agent
