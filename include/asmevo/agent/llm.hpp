// The LLM path of `asmevo optimize`: an OpenAI-compatible chat-completions client over an injectable HTTP transport
// (agent/curl_transport.hpp gives the libcurl one; this header needs no libcurl), the prompt built from a
// ProposalRequest, the model's reply parsed as untrusted input, and LlmProposer, which validates the edit script it
// gets and answers a rejected reply with feedback that names every problem.
//
// The API key is a secret: it goes into the Authorization header and nowhere else. Every text this file produces from
// what it sends or receives (errors, the transcript, the model's reply, feedback) has the key replaced by
// "[redacted]", because a server may echo it.
//
// This header holds LlmProposer; the pieces it uses are headers of their own, all included here:
// agent/llm_client.hpp (configuration and the chat client), agent/llm_prompt.hpp (the prompt) and
// agent/llm_reply.hpp (the JSON of a reply). None needs libcurl.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/detail/llm_util.hpp"
#include "asmevo/agent/edit_script.hpp"
#include "asmevo/agent/llm_client.hpp"
#include "asmevo/agent/llm_prompt.hpp"
#include "asmevo/agent/llm_reply.hpp"
#include "asmevo/agent/proposer.hpp"
#include "asmevo/passes/pass.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::agent {

// ---- the proposer ------------------------------------------------------------------------------------------------

/// The LLM proposer: asks an OpenAI-compatible chat model for an edit script over the request's hot window,
/// validates it (agent/edit_script.hpp) and, when the reply is unusable, tells the model every problem and asks
/// again, up to LlmConfig::max_repairs times. It never throws: a server that gives up or a model that never
/// produces a valid script is a Proposal with no script and a `failure`. Tokens of every round are counted.
class LlmProposer {
 public:
  /// `transport` carries the HTTP requests (curl_transport() in the tool); `prompt` carries the schema text.
  LlmProposer(LlmConfig cfg, HttpTransport transport, PromptOptions prompt)
      : client_(std::move(cfg), std::move(transport)), prompt_(std::move(prompt)) {}

  /// "llm", as logs and reports name the proposer.
  [[nodiscard]] std::string_view name() const noexcept { return "llm"; }

  /// One candidate for `req`. The transcript lists each message sent and each reply (with its usage), and each
  /// failed request's reason; never the key or the headers.
  [[nodiscard]] Proposal propose(const ProposalRequest& req) {
    Proposal out;
    try {
      propose_into(req, out);
    } catch (const std::exception& e) {
      out.script.reset();
      out.failure = "internal error while asking the model: " + client_.redact(e.what());
    } catch (...) {
      out.script.reset();
      out.failure = "internal error while asking the model (a non-standard exception)";
    }
    return out;
  }

  /// The client, with the tokens and requests of every proposal so far.
  [[nodiscard]] const ChatClient& client() const noexcept { return client_; }

 private:
  /// What is wrong with one reply: the feedback for the model and a one-line summary (for Proposal::failure).
  struct Rejection {
    std::string feedback, summary;
  };

  void propose_into(const ProposalRequest& req, Proposal& out) {
    if (!req.module) {
      out.failure = "the request carries no code object to edit (ProposalRequest::module is null)";
      return;
    }
    auto messages = build_prompt(req, prompt_);
    for (auto& m : messages) {
      m.content = client_.redact(m.content);
      out.transcript.push_back({{"role", m.role}, {"content", m.content}});
    }
    passes::PassContext base;
    base.xnack = req.xnack;
    base.not_exercised = req.not_exercised;
    base.launches = req.launches;
    const unsigned rounds = client_.config().max_repairs + 1;
    std::string last;
    for (unsigned round = 0; round < rounds; ++round) {
      auto r = client_.chat(messages, req.seed ^ detail::llm::splitmix64(round));
      if (!r) {
        const std::string why = client_.redact(r.error().message);
        out.transcript.push_back({{"error", why}});
        out.failure = "the chat server gave no usable reply: " + why +
                      (r.error().hint.empty() ? std::string{} : " (" + client_.redact(r.error().hint) + ")");
        return;
      }
      out.tokens += r->usage;
      out.transcript.push_back({{"role", "assistant"},
                                {"content", r->content},
                                {"finish_reason", r->finish_reason},
                                {"usage",
                                 {{"prompt_tokens", r->usage.prompt},
                                  {"completion_tokens", r->usage.completion},
                                  {"estimated", r->usage.estimated}}},
                                {"requests", r->attempts}});
      messages.push_back({"assistant", r->content});
      nlohmann::json script;
      auto problem = check(r->content, req, base, script);
      if (!problem) {
        out.summary = summary_of(script);
        out.script = std::move(script);
        return;
      }
      last = problem->summary;
      if (round + 1 == rounds) break;
      std::string feedback = client_.redact(problem->feedback);
      out.transcript.push_back({{"role", "user"}, {"content", feedback}});
      messages.push_back({"user", std::move(feedback)});
    }
    out.failure = "no valid edit script in " + std::to_string(rounds) + (rounds == 1 ? " reply" : " replies") +
                  " (" + std::to_string(rounds - 1) + " with feedback); the last was rejected: " + last;
  }

  /// Nothing when `reply` holds a usable script (left in `script`, its "kernel" set); else the rejection.
  [[nodiscard]] std::optional<Rejection> check(const std::string& reply, const ProposalRequest& req,
                                               const passes::PassContext& base, nlohmann::json& script) const {
    constexpr std::string_view again = "Send the whole corrected edit script again, in one ```json fenced block.";
    auto j = extract_json(reply);
    if (!j) {
      const auto& d = j.error();
      return Rejection{"Your reply was rejected: " + d.message + "." +
                           (d.hint.empty() ? std::string{} : " Hint: " + d.hint + ".") + "\n" + std::string(again),
                       d.message};
    }
    script = std::move(*j);
    std::vector<ScriptError> errors;
    if (script.is_object()) {
      if (!script.contains("kernel")) {
        if (!req.kernel.empty()) script["kernel"] = req.kernel;
      } else if (!req.kernel.empty() && script["kernel"].is_string() &&
                 script["kernel"].get<std::string>() != req.kernel) {
        errors.push_back({"/kernel", "expected \"" + req.kernel + "\" (the kernel being optimized) or no \"kernel\" "
                                     "field, found \"" + printable(script["kernel"].get<std::string>()) + "\""});
      }
      if (script.contains("edits") && script["edits"].is_array() && script["edits"].empty())
        errors.push_back({"/edits", "expected at least one edit; an empty list changes nothing"});
    }
    if (errors.empty()) {
      const auto res = apply_edit_script(*req.module, script, base);
      errors = res.errors;
      if (res.ok() && res.log.empty())
        errors.push_back({"/edits", "the script applies but changes nothing (each pass it runs found nothing to "
                                    "do): propose an edit that changes the hot window"});
    }
    if (errors.empty()) return std::nullopt;
    constexpr std::size_t max_listed = 24;
    std::string fb = "Your edit script was rejected and nothing was applied. " + std::to_string(errors.size()) +
                     (errors.size() == 1 ? " problem" : " problems") +
                     " (JSON Pointer of the field: what is wrong):\n";
    for (std::size_t k = 0; k < errors.size() && k < max_listed; ++k) fb += "- " + errors[k].str() + "\n";
    if (errors.size() > max_listed) fb += "- ... and " + std::to_string(errors.size() - max_listed) + " more\n";
    fb += std::string(again);
    std::string summary = errors[0].str();
    if (errors.size() > 1) summary += " (and " + std::to_string(errors.size() - 1) + " more)";
    return Rejection{std::move(fb), std::move(summary)};
  }

  /// One line saying what `script` tries: its "comment", else its first edit's "why", else its ops.
  [[nodiscard]] std::string summary_of(const nlohmann::json& script) const {
    if (script.contains("comment") && script["comment"].is_string() && !script["comment"].get<std::string>().empty())
      return detail::llm::clip(client_.redact(script["comment"].get<std::string>()), 200);
    const auto& edits = script["edits"];
    if (!edits.empty() && edits[0].is_object() && edits[0].contains("why") && edits[0]["why"].is_string())
      return detail::llm::clip(client_.redact(edits[0]["why"].get<std::string>()), 200);
    std::string ops;
    for (const auto& e : edits)
      if (e.contains("op") && e["op"].is_string()) ops += (ops.empty() ? "" : ", ") + e["op"].get<std::string>();
    return detail::llm::clip(std::to_string(edits.size()) + (edits.size() == 1 ? " edit: " : " edits: ") + ops, 200);
  }

  ChatClient client_;
  PromptOptions prompt_;
};

static_assert(Proposer<LlmProposer>);

}  // namespace asmevo::agent
