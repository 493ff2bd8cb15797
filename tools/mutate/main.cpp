// asmevo-mutate: plants mutants (verify/mutate.hpp) in a kernel, rebuilds each as `asmevo assemble` would, runs the
// verification gate (verify/differential.hpp on the emulator) on it, and says for every mutant whether the gate
// caught it, and by what; a survivor is shown equivalent only by a proof (a rebuilt object byte-identical to K0's,
// an s_waitcnt that was already a no-op on every path, a flipped cache hint bit, or analysis/equivalence.hpp's proof
// under the facts of every launch shape), never by "more tests passed": anything else is a MISS. A mutant that does not rebuild (for whatever reason, an ABI refusal included) never
// reaches the gate and counts as invalid, not as caught.
//
//   asmevo-mutate K0.co --launch L.json [--ops a,b,...] [--per-op N] [--seed S] [--trials N] [--schedules N] [--json]
//
// Exit: 0 every valid mutant was caught or proven equivalent; 1 some were missed; 2 bad input (or K0 does not run
// cleanly); 3 internal error.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/equivalence.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/differential.hpp"
#include "asmevo/verify/emu_executor.hpp"
#include "asmevo/verify/launch_facts.hpp"
#include "asmevo/verify/mutate.hpp"

namespace {

using namespace asmevo;
using Json = nlohmann::ordered_json;

constexpr const char* kUsage =
    "usage: asmevo-mutate K0.co --launch L.json [--ops a,b,...] [--per-op N] [--seed S] [--trials N] [--schedules N] "
    "[--site N] [--json]\n"
    "--site N keeps only the mutant drawn at instruction iN (the draw is unchanged, so it is the one a full run makes)\n"
    "operators: waitcnt_drop waitcnt_weaken swap_dependent reg_change imm_change offset_change cmp_flip nop_drop "
    "exec_change store_oob cache_bit\n";

int usage_error(const std::string& msg) {
  std::cerr << "asmevo-mutate: " << msg << "\n" << kUsage;
  return 2;
}

int report(const Diag& d, int rc) {
  std::cerr << "asmevo-mutate: " << (d.loc.file.empty() ? std::string() : d.loc.file + ": ") << d.message << "\n";
  if (!d.hint.empty()) std::cerr << "  hint: " << d.hint << "\n";
  return rc;
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

/// One mutant's fate.
struct Result {
  verify::MutOp op;
  InstId site;
  std::string description;
  std::string outcome;      ///< invalid, caught_<the gate's rejected_by: static, abi, memory_model, coverage, run, state>,
                            ///< survived
  std::string equivalence;  ///< survivors: "identical code" (the whole file), "redundant wait", "cache hint", "miss"
  std::string reason;       ///< why invalid / what caught it
  bool false_rejection = false;  ///< proven equivalent, yet the gate rejected it (a stage without an output witness)
  std::string rejected_by;        ///< the gate stage that rejected it, for a false rejection
  double seconds = 0;
};

/// The rebuilt object is K0's file byte for byte: then nothing about it differs, not its code, descriptors,
/// metadata or data, and the gate has nothing to decide. (Equal .text alone proves less: a mutant can change a
/// descriptor or data section and leave .text alone.)
bool same_file(const codeobject::ElfFile& k0, std::span<const std::uint8_t> k1) {
  const auto b0 = k0.bytes();
  return std::equal(b0.begin(), b0.end(), k1.begin(), k1.end());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> pos;
  std::map<std::string, std::string> opt;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") { json = true; continue; }
    if (a == "-h" || a == "--help") { std::cout << kUsage; return 0; }
    if (a == "--launch" || a == "--ops" || a == "--per-op" || a == "--seed" || a == "--trials" || a == "--schedules" ||
        a == "--site") {
      if (i + 1 >= argc) return usage_error(a + " needs a value");
      opt[a] = argv[++i];
      continue;
    }
    if (a.rfind("--", 0) == 0) return usage_error("unknown option '" + a + "'");
    pos.push_back(a);
  }
  if (pos.size() != 1) return usage_error("expected exactly one code object (K0)");
  if (!opt.count("--launch")) return usage_error("--launch L.json is required");

  std::vector<verify::MutOp> ops(verify::all_mut_ops.begin(), verify::all_mut_ops.end());
  if (auto o = opt.find("--ops"); o != opt.end()) {
    ops.clear();
    std::string_view s = o->second;
    while (!s.empty()) {
      const auto c = s.find(',');
      const auto name = s.substr(0, c);
      auto op = verify::parse_mut_op(name);
      if (!op) return usage_error("--ops: unknown operator '" + std::string(name) + "'");
      ops.push_back(*op);
      s = c == std::string_view::npos ? std::string_view{} : s.substr(c + 1);
    }
  }
  std::uint64_t per_op = 5, seed = 1;
  std::optional<std::uint64_t> only_site;
  if (auto o = opt.find("--site"); o != opt.end()) {
    std::string_view v = o->second;
    if (v.starts_with("i")) v.remove_prefix(1);
    only_site = parse_u64(v);
    if (!only_site) return usage_error("--site: expected an instruction id (N or iN), got '" + o->second + "'");
  }
  verify::VerifyOptions vo;
  if (auto o = opt.find("--per-op"); o != opt.end()) {
    auto v = parse_u64(o->second);
    if (!v) return usage_error("--per-op: expected a count, got '" + o->second + "'");
    per_op = *v;
  }
  if (auto o = opt.find("--seed"); o != opt.end()) {
    auto v = parse_u64(o->second);
    if (!v) return usage_error("--seed: expected an unsigned integer, got '" + o->second + "'");
    seed = *v;
  }
  if (auto o = opt.find("--trials"); o != opt.end()) {
    auto v = parse_u64(o->second);
    if (!v || *v == 0) return usage_error("--trials: expected a positive count, got '" + o->second + "'");
    vo.trials = static_cast<std::uint32_t>(*v);
  }
  if (auto o = opt.find("--schedules"); o != opt.end()) {
    auto v = parse_u64(o->second);
    if (!v || *v == 0) return usage_error("--schedules: expected a positive count, got '" + o->second + "'");
    vo.schedules = static_cast<std::uint32_t>(*v);
  }

  const auto t_start = std::chrono::steady_clock::now();
  auto k0 = verify::load_code_object(pos[0]);
  if (!k0) return report(k0.error(), 2);
  auto shapes = verify::read_launch_file(opt["--launch"]);
  if (!shapes) return report(shapes.error(), 2);
  if (shapes->empty()) return usage_error("the launch file holds no launch spec");
  // The kernel under test: the launch file's (one kernel per file), else the object's only kernel.
  std::string kernel = shapes->front().kernel;
  if (kernel.empty()) {
    if (k0->module.kernels.size() != 1) return usage_error("the launch file names no kernel and K0 has several");
    kernel = k0->module.kernels.front().name;
  }
  auto enc = codeobject::encoder_for(k0->elf);
  if (!enc) return report(enc.error(), 2);
  const Program& p0 = k0->module.program;
  auto scope = verify::kernel_scope(p0, kernel);
  if (!scope) return report(scope.error(), 2);

  // The waitcnt dataflow of K0, for the redundant-wait proof.
  const analysis::Cfg cfg = analysis::build_cfg(p0);
  const auto entry = cfg.block_named(scope->entry);
  const analysis::WaitcntAnalysis wa =
      analysis::analyze_waitcnt(p0, cfg, entry ? *entry : analysis::Cfg::none, p0.target);

  // One equivalence prover per launch shape: a survivor is proven equivalent only when it is proven under the facts
  // of every shape the gate ran. A shape whose facts cannot be derived leaves every survivor unproven.
  std::vector<analysis::LaunchFacts> facts;
  std::vector<analysis::EquivalenceProver> provers;
  std::string prover_off;
  facts.reserve(shapes->size());
  for (const auto& spec : *shapes) {
    auto f = verify::launch_facts(k0->module, spec);
    if (!f) {
      prover_off = "no launch facts: " + f.error().message;
      break;
    }
    facts.push_back(std::move(*f));
  }
  if (prover_off.empty())
    for (const auto& f : facts) {
      auto pv = analysis::EquivalenceProver::make(p0, f);
      if (!pv) {
        prover_off = "no prover: " + pv.error().message;
        break;
      }
      provers.push_back(std::move(*pv));
    }
  auto prove_all = [&](const Program& k1, InstId site) -> analysis::ProofResult {
    if (!prover_off.empty()) return {false, prover_off};
    analysis::ProofResult last;
    for (const auto& pv : provers) {
      last = pv.prove(k1, site);
      if (!last.proven) return last;
    }
    return last;
  };

  verify::EmuExecutor exec;
  std::vector<Result> results;
  int false_rejections = 0;
  for (verify::MutOp op : ops) {
    auto sites = verify::mutation_sites(op, p0, *scope);
    // Draw up to per_op sites without replacement, deterministically from the seed (Fisher-Yates on SplitMix64).
    verify::detail::MutRng rng{seed ^ (0x9E37ull * (static_cast<std::uint64_t>(op) + 1))};
    for (std::size_t i = 0; i + 1 < sites.size(); ++i) std::swap(sites[i], sites[i + rng.below(sites.size() - i) + 0]);
    if (sites.size() > per_op) sites.resize(per_op);
    std::sort(sites.begin(), sites.end());
    if (only_site) std::erase_if(sites, [&](InstId s) { return s.value != *only_site; });
    for (InstId site : sites) {
      const auto t0 = std::chrono::steady_clock::now();
      Result r{op, site, {}, {}, {}, {}, 0};
      auto m = verify::mutate(op, p0, *scope, site, seed);
      if (!m) return report(m.error(), 3);
      r.description = m->description;
      auto done = [&] {
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!json)
          std::cout << verify::to_string(r.op) << "\ti" << r.site.value << "\t" << r.outcome
                    << (r.equivalence.empty() ? "" : " (" + r.equivalence + ")") << "\t" << r.description
                    << (r.reason.empty() ? "" : "\t" + r.reason) << std::endl;
        results.push_back(r);
      };
      if (!m->valid) {
        r.outcome = "invalid";
        r.reason = m->invalid_reason;
        done();
        continue;
      }
      // K1 as `asmevo assemble --original K0` builds it: resources recounted, in-place patch when size-neutral.
      codeobject::RebuildOptions ro;
      ro.original = &k0->elf;
      ro.recovered = &k0->module;
      const Program k1_program = m->program;  // for the equivalence proof, should it survive
      auto rb = codeobject::rebuild(std::move(m->program), **enc, ro);
      if (!rb) {
        // A mutant that cannot be built never reaches the gate, so the gate cannot be credited with it, whatever
        // refused it (an ABI refusal included): it is invalid, with the reason.
        r.outcome = "invalid";
        r.reason = std::string(rb.error().code == DiagCode::abi_error ? "rebuild refuses it (ABI): " : "does not rebuild: ") +
                   rb.error().message;
        done();
        continue;
      }
      if (same_file(k0->elf, rb->bytes)) {
        r.outcome = "survived";
        r.equivalence = "identical code";
        done();
        continue;
      }
      auto k1 = verify::code_object_from_bytes(std::move(rb->bytes), "K1(" + r.description + ")");
      if (!k1) {
        r.outcome = "invalid";
        r.reason = "the rebuilt object does not recover: " + k1.error().message;
        done();
        continue;
      }
      auto rc = verify::differential_verify(*k0, *k1, *shapes, exec, vo);
      if (!rc) return report(rc.error(), 3);
      if (rc->verdict == verify::Verdict::k0_failed) return report(make_diag(DiagCode::usage, "K0 does not run cleanly: " + rc->reason), 2);
      if (rc->verdict == verify::Verdict::not_equivalent) {
        r.outcome = "caught_" + (rc->rejected_by.empty() ? std::string("run") : rc->rejected_by);
        r.reason = rc->reason;
        // Only a run whose outputs differ ("run") and a checked counterexample ("refuted") witness a difference.
        // Every other stage (state, static, memory_model, approximate, coverage, abi) rejects by a rule: a mutant the
        // prover shows equivalent is then a false rejection, counted as proven equivalent, not as caught, so that a
        // rule that rejects more cannot raise the catch rate.
        if (rc->rejected_by != "run" && rc->rejected_by != "refuted" && !rc->rejected_by.empty()) {
          const auto proof = prove_all(k1_program, site);
          if (proof.proven) {
            r.outcome = "survived";
            r.equivalence = "proven";
            r.reason = proof.reason + " (the gate rejects it by its " + rc->rejected_by +
                       " stage: a false rejection)";
            r.false_rejection = true;
            r.rejected_by = rc->rejected_by;
            ++false_rejections;
          }
        }
        done();
        continue;
      }
      r.outcome = "survived";
      // A wait that was already a no-op in K0 on every path (the waitcnt analysis over-approximates what is
      // outstanding) stays a no-op however it is weakened or dropped: K1 then runs K0's instruction stream minus a
      // no-op wait. (The weaker test "every counter is at or below the *new* count" is not a proof: with one load
      // outstanding, vmcnt(0) -> vmcnt(1) passes it yet stops waiting for that load.)
      if ((op == verify::MutOp::waitcnt_drop || op == verify::MutOp::waitcnt_weaken)) {
        const auto item = verify::detail::item_index(p0, site);
        if (item >= 0 && wa.wait_is_redundant(static_cast<std::size_t>(item))) r.equivalence = "redundant wait";
      }
      // A flipped cache-policy hint changes neither values nor visibility (see Mutant::hint_only).
      if (op == verify::MutOp::cache_bit && m->hint_only) r.equivalence = "cache hint";
      if (r.equivalence.empty()) {
        const auto proof = prove_all(k1_program, site);
        r.equivalence = proof.proven ? "proven" : "miss";
        r.reason = proof.reason;
      }
      done();
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();

  // Per-operator counts.
  struct Count {
    int mutants = 0, invalid = 0, identical = 0, redundant = 0, hint = 0, proven = 0, miss = 0;
    std::map<std::string, int> caught;  ///< by outcome ("caught_" + the gate stage that rejected it)
  };
  std::map<std::string, Count> per;
  int misses = 0;
  for (const auto& r : results) {
    Count& c = per[std::string(verify::to_string(r.op))];
    ++c.mutants;
    if (r.outcome == "invalid") ++c.invalid;
    else if (r.outcome.starts_with("caught_")) ++c.caught[r.outcome];  // every stage, refuted and approximate too
    else if (r.equivalence == "identical code") ++c.identical;
    else if (r.equivalence == "redundant wait") ++c.redundant;
    else if (r.equivalence == "cache hint") ++c.hint;
    else if (r.equivalence == "proven") ++c.proven;
    else ++c.miss, ++misses;
  }
  if (json) {
    Json j;
    j["file"] = pos[0];
    j["kernel"] = kernel;
    j["target"] = std::string(to_string(p0.target));
    j["seed"] = seed;
    j["per_op"] = per_op;
    j["seconds"] = seconds;
    Json list = Json::array();
    for (const auto& r : results) {
      Json e;
      e["op"] = std::string(verify::to_string(r.op));
      e["site"] = "i" + std::to_string(r.site.value);
      e["description"] = r.description;
      e["outcome"] = r.outcome;
      if (!r.equivalence.empty()) e["equivalence"] = r.equivalence;
      if (!r.reason.empty()) e["reason"] = r.reason;
      if (r.false_rejection) {
        e["false_rejection"] = true;
        e["rejected_by"] = r.rejected_by;
      }
      e["seconds"] = r.seconds;
      list.push_back(std::move(e));
    }
    j["mutants"] = std::move(list);
    Json sum = Json::object();
    for (const auto& [name, c] : per) {
      Json e = {{"mutants", c.mutants}, {"invalid", c.invalid}, {"equivalent_identical", c.identical},
                {"equivalent_redundant_wait", c.redundant}, {"equivalent_cache_hint", c.hint},
                {"equivalent_proven", c.proven}, {"miss", c.miss}};
      for (const char* stage : {"caught_static", "caught_abi", "caught_memory_model", "caught_coverage", "caught_run",
                                "caught_state", "caught_refuted", "caught_approximate", "caught_float_mode"})
        e[stage] = 0;
      for (const auto& [stage, n] : c.caught) e[stage] = n;
      sum[name] = std::move(e);
    }
    j["summary"] = std::move(sum);
    j["misses"] = misses;
    j["false_rejections"] = false_rejections;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << "# " << pos[0] << " (" << kernel << "): " << results.size() << " mutants, " << misses << " missed, "
              << seconds << " s\n";
  }
  return misses ? 1 : 0;
}
