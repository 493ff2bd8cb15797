// libFuzzer target for how agent/llm.hpp turns a chat server's answer into an edit script: any input, taken both as
// the model's reply text (extract_json, then LlmProposer's checks against a small real kernel, with one repair
// round) and as the raw HTTP body of the server's answer (ChatClient's reply checks), must give a script that applies
// or a failure that says why, never a crash or an escaping exception, and the API key must appear in nothing the
// client produces or sends, even when the server echoes it.
// Built and run by scripts/fuzz.sh llm_reply (not part of CI).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "asmevo/agent/llm.hpp"
#include "small_module.hpp"

using namespace asmevo;
using namespace asmevo::agent;

namespace {

// Seeds (scripts/fuzz.sh) hold this key, so that mutations echo it where the client must redact it.
constexpr std::string_view kKey = "sk-fuzz-0123456789SECRET";

bool has_key(std::string_view s) { return s.find(kKey) != std::string_view::npos; }

/// The key in any string of `j` (a transcript: shallow, and cheaper to walk than to dump).
bool json_has_key(const nlohmann::json& j) {
  if (j.is_string()) return has_key(j.get_ref<const std::string&>());
  if (!j.is_structured()) return false;
  for (auto it = j.begin(); it != j.end(); ++it)
    if ((j.is_object() && has_key(it.key())) || json_has_key(*it)) return true;
  return false;
}

LlmConfig config() {
  LlmConfig c;
  c.url = "http://127.0.0.1:9/v1";
  c.model = "fuzz-model";
  c.api_key = std::string(kKey);
  c.key_source = "ASMEVO_LLM_KEY";
  c.max_retries = 0;
  c.max_repairs = 1;
  c.sleep = [](std::chrono::milliseconds) {};
  return c;
}

const ProposalRequest& request() {
  static const ProposalRequest r = [] {
    ProposalRequest q;
    q.module = &fuzz::small_module();
    q.kernel = "k";
    q.seed = 7;
    q.not_exercised = fuzz::small_not_exercised();
    HotSpot hs;
    // A short window keeps the prompt, which every input sends twice, small.
    hs.first = InstId{8};
    hs.last = InstId{10};
    hs.share = 0.75;
    for (std::uint32_t id = 8; id <= 10; ++id) {
      HotInst h;
      h.id = InstId{id};
      h.text = print_inst(*q.module->program.find(InstId{id}));
      h.executions = 4;
      h.issue = 16;
      h.stall_waitcnt = id == 8 ? 3200 : 0;
      hs.insts.push_back(std::move(h));
    }
    q.hot.push_back(std::move(hs));
    return q;
  }();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);

  // The reply text on its own: one JSON value, or a Diag that says what was found.
  if (auto j = extract_json(input); !j && j.error().message.empty()) __builtin_trap();

  // The reply text as a model's answer, through the proposer: a well-formed chat body around it.
  const std::string body = agent::detail::llm::dump(
      nlohmann::json{{"choices", {{{"message", {{"role", "assistant"}, {"content", input}}},
                                   {"finish_reason", "stop"}}}},
                     {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 20}}}});
  bool leaked = false;
  auto transport = [&](const std::string& reply_body) {
    return [&leaked, reply_body](const HttpRequest& req) -> Expected<HttpReply> {
      // The request carries the key in its header only: the conversation (the reply, the feedback) is redacted.
      if (has_key(req.body)) leaked = true;
      return HttpReply{200, reply_body, std::nullopt};
    };
  };
  PromptOptions prompt;
  prompt.context = 2;
  LlmProposer proposer(config(), transport(body), prompt);
  const Proposal p = proposer.propose(request());
  if (leaked || has_key(p.failure) || has_key(p.summary) || json_has_key(p.transcript)) __builtin_trap();
  if (p.script) {
    // An accepted script is one the search can apply, to the kernel asked for, and it changes something.
    if (!p.failure.empty() || !p.script->is_object() || !p.script->contains("kernel") ||
        (*p.script)["kernel"] != "k") __builtin_trap();
    passes::PassContext base;
    base.not_exercised = request().not_exercised;
    const auto r = apply_edit_script(*request().module, *p.script, base);
    if (!r.ok() || r.log.empty()) __builtin_trap();
  } else if (p.failure.empty() || p.failure.starts_with("internal error")) {
    // No script must say why, and an exception is never how bad input is reported.
    __builtin_trap();
  }

  // The input as the server's whole HTTP body: a reply of the right shape, or a Diag naming what is wrong.
  ChatClient client(config(), transport(input));
  auto reply = client.chat({{"user", "hello"}});
  if (leaked) __builtin_trap();
  if (!reply) {
    if (reply.error().message.empty() || has_key(reply.error().message) || has_key(reply.error().hint))
      __builtin_trap();
  } else if (has_key(reply->content) || has_key(reply->finish_reason)) {
    __builtin_trap();
  }
  return 0;
}
