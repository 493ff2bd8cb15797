// The chat-completions client of the LLM path: its configuration (flags, environment, endpoint URL) and ChatClient,
// which sends chat messages to an OpenAI-compatible server over an injectable HTTP transport (agent/http.hpp; the
// libcurl one is agent/curl_transport.hpp, which this header does not include), retries with backoff and checks the
// reply's shape. Not here: what the messages say (agent/llm_prompt.hpp), reading an edit script out of the model's
// reply (agent/llm_reply.hpp), the proposer (agent/llm.hpp).
//
// The API key is a secret: it goes into the Authorization header and nowhere else. Every text this file produces from
// what it sends or receives (errors, the transcript, the model's reply, feedback) has the key replaced by
// "[redacted]", because a server may echo it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/detail/llm_util.hpp"
#include "asmevo/agent/edit_script.hpp"
#include "asmevo/agent/http.hpp"
#include "asmevo/agent/proposer.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::agent {

// ---- configuration -----------------------------------------------------------------------------------------------

/// How to reach the model and how patiently. Times are wall-clock milliseconds.
struct LlmConfig {
  /// The chat-completions endpoint, or a base URL it is derived from (chat_completions_url): "http://h:8000",
  /// "http://h:8000/v1" and "http://h:8000/v1/chat/completions" all mean the last.
  std::string url;
  std::string model;
  std::string api_key;     ///< sent as `Authorization: Bearer <key>` when non-empty; never printed or logged
  std::string key_source;  ///< where the key came from ("--llm-key", "ASMEVO_LLM_KEY", "OPENAI_API_KEY"), for hints
  std::chrono::milliseconds timeout{120000};  ///< one HTTP exchange, connect to last byte
  unsigned max_retries = 4;                   ///< retries of one chat request after the first try
  std::chrono::milliseconds backoff{1000};    ///< the first retry's delay; each further retry doubles it
  std::chrono::milliseconds max_backoff{60000};  ///< cap of one delay, Retry-After included
  std::uint64_t seed = 0;                        ///< of the backoff jitter (deterministic, like every asmevo choice)
  unsigned max_repairs = 2;  ///< feedback rounds after a rejected reply, per proposal
  double temperature = 0.2;
  unsigned max_tokens = 4096;  ///< of one completion
  /// How the client waits between retries; empty = std::this_thread::sleep_for. Tests record instead of waiting.
  std::function<void(std::chrono::milliseconds)> sleep;
};

/// What the command line gave; anything absent comes from the environment or LlmConfig's defaults.
struct LlmFlags {
  std::optional<std::string> url, model, key;
  std::optional<double> timeout_s;
  std::optional<unsigned> max_retries, max_repairs, max_tokens;
  std::optional<double> temperature;
  std::optional<std::uint64_t> seed;
};

/// Reads one environment variable: a value, or nothing when it is unset or empty.
using EnvGetter = std::function<std::optional<std::string>(const char* name)>;

/// The process environment (std::getenv).
[[nodiscard]] inline std::optional<std::string> process_env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

/// The chat-completions URL `url` stands for. Kept as is: a URL ending in "/chat/completions", or one with a query
/// string. Otherwise trailing slashes go and "/chat/completions" is appended to a URL whose last path segment is a
/// version ("/v1", "/v4"), "/v1/chat/completions" to any other: "http://h:8000" gives
/// "http://h:8000/v1/chat/completions".
[[nodiscard]] inline std::string chat_completions_url(std::string_view url) {
  std::string u(url);
  while (!u.empty() && (u.back() == ' ' || u.back() == '\t' || u.back() == '\n' || u.back() == '\r')) u.pop_back();
  if (u.find('?') != std::string::npos) return u;
  while (!u.empty() && u.back() == '/') u.pop_back();
  if (u.ends_with("/chat/completions")) return u;
  const auto scheme = u.find("://");
  const auto path = u.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (path != std::string::npos) {
    const std::string_view last = std::string_view(u).substr(u.rfind('/') + 1);
    const bool version = last.size() >= 2 && last[0] == 'v' &&
                         std::all_of(last.begin() + 1, last.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (version) return u + "/chat/completions";
  }
  return u + "/v1/chat/completions";
}

/// `text` with every occurrence of `secret` replaced by "[redacted]" (nothing to do for an empty secret).
[[nodiscard]] inline std::string redact(std::string_view text, std::string_view secret) {
  std::string out(text);
  if (secret.empty()) return out;
  constexpr std::string_view mark = "[redacted]";
  for (std::size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at + mark.size()))
    out.replace(at, secret.size(), mark);
  return out;
}

/// The configuration the flags and the environment give: the endpoint from --llm or ASMEVO_LLM_URL, the model from
/// --model or ASMEVO_LLM_MODEL, the key from the key flag, ASMEVO_LLM_KEY or else OPENAI_API_KEY (none is fine for a
/// local server). A flag wins over the environment. Errors name the flag and the variable that would supply what
/// is missing; no error contains the key.
[[nodiscard]] inline Expected<LlmConfig> llm_config(const LlmFlags& flags, const EnvGetter& env = process_env) {
  LlmConfig c;
  auto pick = [&](const std::optional<std::string>& flag, const char* var) -> std::optional<std::string> {
    if (flag && !flag->empty()) return flag;
    return env ? env(var) : std::nullopt;
  };
  if (flags.key && !flags.key->empty()) c.api_key = *flags.key, c.key_source = "--llm-key";
  else if (auto k = env ? env("ASMEVO_LLM_KEY") : std::nullopt) c.api_key = *k, c.key_source = "ASMEVO_LLM_KEY";
  else if (auto o = env ? env("OPENAI_API_KEY") : std::nullopt) c.api_key = *o, c.key_source = "OPENAI_API_KEY";
  for (char ch : c.api_key)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
      return fail(DiagCode::usage, "the API key from " + c.key_source + " contains a control character (a newline?)",
                  {}, {}, "set the key without line breaks");
  const auto url = pick(flags.url, "ASMEVO_LLM_URL");
  if (!url)
    return fail(DiagCode::usage, "no chat-completions endpoint given", {}, {},
                "give --llm URL or set ASMEVO_LLM_URL, e.g. http://127.0.0.1:8000/v1");
  if (!url->starts_with("http://") && !url->starts_with("https://"))
    return fail(DiagCode::usage, "expected an http:// or https:// URL for the chat endpoint, found \"" +
                                     printable(redact(*url, c.api_key)) + "\"");
  c.url = chat_completions_url(*url);
  const auto model = pick(flags.model, "ASMEVO_LLM_MODEL");
  if (!model)
    return fail(DiagCode::usage, "no model named", {}, {}, "give --model M or set ASMEVO_LLM_MODEL");
  c.model = *model;
  if (flags.timeout_s) {
    if (!(*flags.timeout_s > 0) || *flags.timeout_s > 86400)
      return fail(DiagCode::usage, "expected a timeout of more than 0 and at most 86400 seconds, found " +
                                       std::to_string(*flags.timeout_s));
    c.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(*flags.timeout_s * 1000)));
  }
  if (flags.temperature) {
    if (!(*flags.temperature >= 0) || *flags.temperature > 2)
      return fail(DiagCode::usage, "expected a temperature in 0..2, found " + std::to_string(*flags.temperature));
    c.temperature = *flags.temperature;
  }
  if (flags.max_retries) c.max_retries = *flags.max_retries;
  if (flags.max_repairs) c.max_repairs = *flags.max_repairs;
  if (flags.max_tokens) {
    if (*flags.max_tokens == 0) return fail(DiagCode::usage, "expected max_tokens of at least 1, found 0");
    c.max_tokens = *flags.max_tokens;
  }
  if (flags.seed) c.seed = *flags.seed;
  return c;
}
// ---- the chat client ---------------------------------------------------------------------------------------------

/// One chat message: role "system", "user" or "assistant", and its text.
struct ChatMessage {
  std::string role, content;
};

/// One completion.
struct ChatReply {
  std::string content;        ///< the first choice's message text, the key redacted
  std::string finish_reason;  ///< "stop", "length", ... ("" when the server gave none)
  TokenUsage usage;           ///< as reported, or estimated (usage.estimated) when the server reported none
  unsigned attempts = 0;      ///< HTTP requests it took: 1 + retries
};

/// The delay before retry `retry` (0 = the first retry): `backoff` doubled per retry, plus up to 25% jitter drawn from
/// (`seed`, `retry`), at most `max_backoff`. A Retry-After the server sent is honoured as the least delay (also
/// capped by `max_backoff`, so that a server cannot park the search for an hour).
[[nodiscard]] inline std::chrono::milliseconds backoff_delay(const LlmConfig& c, unsigned retry, std::uint64_t seed,
                                                             std::optional<double> retry_after_s = std::nullopt) {
  const double cap = static_cast<double>(std::max<std::int64_t>(0, c.max_backoff.count()));
  double d = static_cast<double>(std::max<std::int64_t>(0, c.backoff.count())) * std::ldexp(1.0, std::min(retry, 30u));
  using detail::llm::splitmix64;
  const double u = static_cast<double>(splitmix64(seed ^ splitmix64(retry + 1)) >> 11) * 0x1p-53;  // in [0, 1)
  d = std::min(cap, d * (1.0 + 0.25 * u));
  if (retry_after_s && std::isfinite(*retry_after_s) && *retry_after_s > 0)
    d = std::max(d, std::min(cap, *retry_after_s * 1000.0));
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(d)));
}

/// An OpenAI-compatible chat-completions client. It POSTs {"model", "messages", "temperature", "max_tokens"},
/// retries transport failures, HTTP 408, 429 and 5xx with exponential backoff (honouring Retry-After), never other
/// statuses, checks the reply's shape, and counts tokens and requests over its life. Not thread-safe: one per
/// lineage, or a lock around it.
class ChatClient {
 public:
  /// `transport` sends the requests (curl_transport() in the tool, a fake in tests).
  ChatClient(LlmConfig cfg, HttpTransport transport)
      : cfg_(std::move(cfg)), endpoint_(chat_completions_url(cfg_.url)), transport_(std::move(transport)) {}

  /// Asks for one completion of `messages`. `seed` varies the backoff jitter between callers. Errors (io_error for a
  /// server that gave up or a reply of the wrong shape, usage for a request the server refused) name the endpoint,
  /// the status and an excerpt of what came back, never the key.
  [[nodiscard]] Expected<ChatReply> chat(const std::vector<ChatMessage>& messages, std::uint64_t seed = 0) {
    ++chats_;
    nlohmann::json msgs = nlohmann::json::array();
    std::size_t prompt_chars = 0;
    for (const auto& m : messages) {
      msgs.push_back({{"role", m.role}, {"content", m.content}});
      prompt_chars += m.content.size();
    }
    HttpRequest req;
    req.url = endpoint_;
    req.timeout = cfg_.timeout;
    req.body = detail::llm::dump(nlohmann::json{{"model", cfg_.model},
                                           {"messages", std::move(msgs)},
                                           {"temperature", cfg_.temperature},
                                           {"max_tokens", cfg_.max_tokens}});
    req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    if (!cfg_.api_key.empty()) req.headers.emplace_back("Authorization", "Bearer " + cfg_.api_key);

    std::string last;  // why the latest try failed
    const unsigned tries = cfg_.max_retries + 1;
    for (unsigned attempt = 0; attempt < tries; ++attempt) {
      if (attempt > 0) ++retries_;
      ++requests_;
      std::optional<double> retry_after;
      Expected<HttpReply> r = fail(DiagCode::internal, "not sent");
      try {
        r = transport_(req);
      } catch (const std::exception& e) {
        r = fail(DiagCode::io_error, std::string("the transport threw: ") + e.what());
      }
      if (!r) {
        last = redact(r.error().message);
      } else if (r->status >= 200 && r->status < 300) {
        auto parsed = parse_body(r->body, r->status, prompt_chars);
        if (!parsed) {
          ++failures_;
          return unexpected(std::move(parsed).error());
        }
        ChatReply out = std::move(*parsed);
        out.attempts = attempt + 1;
        tokens_ += out.usage;
        return out;
      } else if (r->status == 408 || r->status == 429 || r->status >= 500) {
        last = "HTTP " + std::to_string(r->status) + ": " + excerpt(r->body);
        retry_after = r->retry_after_s;
      } else {
        ++failures_;
        std::string hint;
        if (r->status == 401 || r->status == 403)
          hint = cfg_.api_key.empty() ? "no API key was sent: set ASMEVO_LLM_KEY (or OPENAI_API_KEY)"
                                      : "check the API key (it came from " + cfg_.key_source + ")";
        else if (r->status == 404)
          hint = "check the endpoint (--llm / ASMEVO_LLM_URL) and the model name (--model / ASMEVO_LLM_MODEL)";
        else if (r->status >= 300 && r->status < 400)
          hint = "redirects are not followed (the key must not go to another host): give the final URL";
        return fail(DiagCode::usage,
                    "the chat server at " + redact(endpoint_) + " refused the request with HTTP " +
                        std::to_string(r->status) + " (not retried: only 408, 429 and 5xx are): " + excerpt(r->body),
                    {}, {}, std::move(hint));
      }
      if (attempt + 1 < tries) {
        const auto d = backoff_delay(cfg_, attempt, cfg_.seed ^ detail::llm::splitmix64(seed) ^ chats_, retry_after);
        if (cfg_.sleep) cfg_.sleep(d);
        else std::this_thread::sleep_for(d);
      }
    }
    ++failures_;
    return fail(DiagCode::io_error, "the chat server at " + redact(endpoint_) +
                                        " gave no usable answer in " + std::to_string(tries) +
                                        (tries == 1 ? " attempt" : " attempts") + "; the last: " + last);
  }

  /// `text` with the key redacted.
  [[nodiscard]] std::string redact(std::string_view text) const { return agent::redact(text, cfg_.api_key); }

  /// The configuration it was made with (the key included: do not print it).
  [[nodiscard]] const LlmConfig& config() const noexcept { return cfg_; }
  /// The chat-completions URL it posts to (chat_completions_url of LlmConfig::url).
  [[nodiscard]] const std::string& endpoint() const noexcept { return endpoint_; }
  /// Tokens of every completion so far.
  [[nodiscard]] const TokenUsage& tokens() const noexcept { return tokens_; }
  /// HTTP requests sent (retries included), retries among them, chat() calls, and chat() calls that failed.
  [[nodiscard]] std::uint64_t requests() const noexcept { return requests_; }
  [[nodiscard]] std::uint64_t retries() const noexcept { return retries_; }
  [[nodiscard]] std::uint64_t chats() const noexcept { return chats_; }
  [[nodiscard]] std::uint64_t failures() const noexcept { return failures_; }

 private:
  /// A server's body as one short printable line, the key redacted: its error.message when it is an OpenAI-style
  /// error object, else its beginning.
  [[nodiscard]] std::string excerpt(std::string_view body) const {
    auto j = nlohmann::json::parse(body, nullptr, false);
    std::string text(body);
    if (!j.is_discarded() && j.is_object() && j.contains("error")) {
      const auto& e = j["error"];
      if (e.is_object() && e.contains("message") && e["message"].is_string()) text = e["message"].get<std::string>();
      else if (e.is_string()) text = e.get<std::string>();
    }
    if (text.empty()) return "(empty body)";
    return printable(redact(text));  // redact before printable cuts, or a cut could leave part of the key
  }

  /// The reply of a 2xx: choices[0].message.content must be a string; usage is taken when well-formed, and a count it
  /// lacks is estimated from `prompt_chars` characters sent or from the content received.
  [[nodiscard]] Expected<ChatReply> parse_body(std::string_view body, long status, std::size_t prompt_chars) const {
    const std::string where = "the chat server's reply (HTTP " + std::to_string(status) + ")";
    auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded())
      return fail(DiagCode::io_error, where + " is not JSON: it begins \"" + excerpt(body) + "\"");
    if (!j.is_object())
      return fail(DiagCode::io_error,
                  where + ": expected an object with \"choices\", found " + redact(detail::type_name(j)));
    if (j.contains("error") && !j.contains("choices"))
      return fail(DiagCode::io_error, where + " is an error: " + excerpt(body));
    if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty())
      return fail(DiagCode::io_error,
                  where + ": /choices: expected a non-empty array, found " +
                      (j.contains("choices") ? redact(detail::type_name(j["choices"])) : std::string("nothing")));
    const auto& c0 = j["choices"][0];
    if (!c0.is_object() || !c0.contains("message") || !c0["message"].is_object())
      return fail(DiagCode::io_error, where + ": /choices/0/message: expected an object, found " +
                                          (c0.is_object() && c0.contains("message")
                                               ? redact(detail::type_name(c0["message"]))
                                               : std::string("nothing")));
    ChatReply out;
    if (c0.contains("finish_reason") && c0["finish_reason"].is_string())
      out.finish_reason = redact(c0["finish_reason"].get<std::string>());
    const auto& msg = c0["message"];
    if (!msg.contains("content") || !msg["content"].is_string()) {
      std::string found = msg.contains("content") ? redact(detail::type_name(msg["content"])) : "nothing";
      if (msg.contains("refusal") && msg["refusal"].is_string())
        found += " (the model refused: " + printable(redact(msg["refusal"].get<std::string>())) + ")";
      if (!out.finish_reason.empty()) found += " (finish_reason \"" + printable(out.finish_reason) + "\")";
      return fail(DiagCode::io_error, where + ": /choices/0/message/content: expected a string, found " + found);
    }
    out.content = redact(msg["content"].get<std::string>());
    bool have_prompt = false, have_completion = false;
    if (j.contains("usage") && j["usage"].is_object()) {
      const auto& u = j["usage"];
      if (u.contains("prompt_tokens") && u["prompt_tokens"].is_number_unsigned())
        out.usage.prompt = u["prompt_tokens"].get<std::uint64_t>(), have_prompt = true;
      if (u.contains("completion_tokens") && u["completion_tokens"].is_number_unsigned())
        out.usage.completion = u["completion_tokens"].get<std::uint64_t>(), have_completion = true;
    }
    if (!have_prompt) out.usage.prompt = detail::llm::estimate_tokens(prompt_chars);
    if (!have_completion) out.usage.completion = detail::llm::estimate_tokens(out.content.size());
    out.usage.estimated = !have_prompt || !have_completion;
    return out;
  }

  LlmConfig cfg_;
  std::string endpoint_;
  HttpTransport transport_;
  TokenUsage tokens_;
  std::uint64_t requests_ = 0, retries_ = 0, chats_ = 0, failures_ = 0;
};

}  // namespace asmevo::agent
