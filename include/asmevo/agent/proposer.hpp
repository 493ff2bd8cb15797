// What a proposer is asked and what it answers: the one interface behind which the built-in proposer (passes and
// their parameters on the hot windows) and the LLM proposer (an OpenAI-compatible chat model) sit. `asmevo
// optimize` (agent/search.hpp) asks a lineage's proposer for one candidate per attempt; every answer is an edit
// script (schema/edit-script.schema.json) over the parent program's instruction ids, so that both kinds are
// applied, logged, replayed on resume and composed the same way.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/module.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo::analysis {
struct LaunchFacts;  // analysis/known_bits.hpp
}  // namespace asmevo::analysis

namespace asmevo::agent {

/// Tokens a proposer spent (what an OpenAI-compatible server reports as usage; estimated from the text when the
/// server reports none).
struct TokenUsage {
  std::uint64_t prompt = 0, completion = 0;
  bool estimated = false;  ///< some of it counted from text (about 4 characters a token), not reported
  [[nodiscard]] std::uint64_t total() const noexcept { return prompt + completion; }
  TokenUsage& operator+=(const TokenUsage& o) noexcept {
    prompt += o.prompt;
    completion += o.completion;
    estimated = estimated || o.estimated;
    return *this;
  }
};

/// One instruction of a hot window with what the cost model attributes to it (per wave, summed over the modeled
/// waves: model::InstTiming).
struct HotInst {
  InstId id{};
  std::string text;  ///< as printed by ir/printer.hpp, without the id comment
  std::uint64_t executions = 0, issue = 0;
  std::uint64_t stall_waitcnt = 0, stall_dependency = 0, stall_barrier = 0, stall_resource = 0;
};

/// A stretch of code where modeled time concentrates (model::HotWindow), with its instructions.
struct HotSpot {
  InstId first{}, last{};
  double share = 0;  ///< of all attributed wave-cycles
  std::vector<HotInst> insts;
};

/// An earlier attempt of the same lineage, as a proposer sees it (the LLM prompt lists them with why they failed).
struct PastAttempt {
  std::uint64_t index = 0;       ///< attempt number in the run
  nlohmann::json script;         ///< the edit script tried (null when no script came)
  std::string summary;           ///< the proposer's one line
  std::string outcome;           ///< "accepted", "slower", "not_equivalent", "invalid", "no_proposal", "failed"
  std::string reason;            ///< why, in the verifier's or validator's words
  std::optional<double> cycles;  ///< the candidate's modeled cycles (or measured time) when it was timed
};

/// What a proposer is asked for one attempt.
struct ProposalRequest {
  const codeobject::Module* module = nullptr;  ///< the parent (its program's ids address the edits)
  std::string kernel;                          ///< the launched kernel
  bool xnack = true;
  /// Instructions the launch does not exercise (verify::not_exercised): edits there cannot be verified.
  std::shared_ptr<const std::unordered_set<std::uint32_t>> not_exercised;
  /// What each shape of the launch file fixes (passes::PassContext::launches).
  std::shared_ptr<const std::vector<analysis::LaunchFacts>> launches;
  std::vector<HotSpot> hot;       ///< the parent's hot windows, hottest first
  std::size_t focus = 0;          ///< the hot window this attempt should work on (redirection moves it)
  std::string strategy;           ///< the lineage's current strategy (proposer-specific name)
  std::vector<PastAttempt> history;  ///< this lineage's earlier attempts, oldest first
  std::uint64_t seed = 0;         ///< derived from (run seed, lineage, attempt): a proposer's only randomness
  double parent_cost = 0;         ///< the parent's modeled cycles (or measured time)
  /// K0's speed-of-light bound on the timed shape (model::Bound; all zero when the search modeled none): the most any
  /// version can gain is parent_cost / bound_cycles.
  std::uint64_t bound_cycles = 0, bound_memory = 0, bound_issue = 0, bound_latency = 0;
  std::string bound_kind;         ///< which part binds: "memory", "issue", "latency" or "launch"
  std::uint64_t attempt = 0;      ///< this attempt's number in the run
};

/// A proposer's answer. No script (`script` empty) is an attempt that proposed nothing; `failure` says why.
struct Proposal {
  std::optional<nlohmann::json> script;  ///< an edit script over the parent's ids
  std::string summary;                   ///< one line: what it tries
  std::string failure;                   ///< when no script: why (the reply never parsed, the server gave up, ...)
  TokenUsage tokens;
  /// What was exchanged to get it (LLM: each request's messages and each reply, the key never included), kept in
  /// the lineage log so that a resumed run need not ask again.
  nlohmann::json transcript = nlohmann::json::array();
};

/// A proposer: a plain type with a name and `propose`. It never throws; a reply it cannot use is a Proposal with no
/// script and a failure, and the search counts the attempt.
template <class P>
concept Proposer = requires(P& p, const ProposalRequest& r) {
  { p.name() } -> std::convertible_to<std::string_view>;
  { p.propose(r) } -> std::same_as<Proposal>;
};

}  // namespace asmevo::agent
