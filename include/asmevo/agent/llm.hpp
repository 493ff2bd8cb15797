// The LLM path of `asmevo optimize`: an OpenAI-compatible chat-completions client over an injectable HTTP transport
// (agent/curl_transport.hpp gives the libcurl one; this header needs no libcurl), the prompt built from a
// ProposalRequest, the model's reply parsed as untrusted input, and LlmProposer, which validates the edit script it
// gets and answers a rejected reply with feedback that names every problem.
//
// The API key is a secret: it goes into the Authorization header and nowhere else. Every text this file produces from
// what it sends or receives (errors, the transcript, the model's reply, feedback) has the key replaced by
// "[redacted]", because a server may echo it.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/diagnosis.hpp"
#include "asmevo/agent/edit_script.hpp"
#include "asmevo/agent/http.hpp"
#include "asmevo/agent/proposer.hpp"
#include "asmevo/analysis/mfma_info.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/model/params.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/linkage.hpp"

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

// ---- small helpers -----------------------------------------------------------------------------------------------

namespace detail::llm {

[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// `s` on one line (line breaks become spaces) and at most `n` bytes, cut at a UTF-8 character boundary, with "..."
/// when cut.
[[nodiscard]] inline std::string clip(std::string_view s, std::size_t n) {
  std::string out;
  out.reserve(std::min(s.size(), n) + 3);
  for (char c : s) out += c == '\n' || c == '\r' ? ' ' : c;
  if (out.size() <= n) return out;
  std::size_t cut = n;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  out.resize(cut);
  return out + "...";
}

/// 1-based line and column of byte `offset` of `text`.
[[nodiscard]] inline std::pair<std::uint32_t, std::uint32_t> line_col(std::string_view text, std::size_t offset) {
  std::uint32_t line = 1, col = 1;
  for (std::size_t k = 0; k < offset && k < text.size(); ++k) {
    if (text[k] == '\n') ++line, col = 1;
    else ++col;
  }
  return {line, col};
}

/// Tokens of `chars` characters of text, at the usual ~4 characters a token of English and code.
[[nodiscard]] constexpr std::uint64_t estimate_tokens(std::size_t chars) noexcept { return (chars + 3) / 4; }

/// JSON text of `j`, invalid UTF-8 replaced (a dump never throws).
[[nodiscard]] inline std::string dump(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace detail::llm

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

// ---- the prompt --------------------------------------------------------------------------------------------------

/// What goes into a prompt besides the request, and how large it may grow.
struct PromptOptions {
  std::string schema;             ///< the edit-script JSON Schema text (schema/edit-script.schema.json), embedded
  std::size_t context = 4;        ///< instructions shown before and after the hot window
  std::size_t max_window = 64;    ///< instructions of the window listed; a longer window is cut (and says so)
  std::size_t max_history = 8;    ///< earlier attempts listed, the latest ones
  std::size_t max_field = 400;    ///< bytes of one attempt's reason or script
};

namespace detail::llm {

[[nodiscard]] constexpr std::string_view format_name(isa::Format f) noexcept {
  constexpr std::array<std::string_view, 20> names{"SOP1", "SOP2", "SOPK", "SOPC",  "SOPP",    "SMEM",  "VOP1",
                                                   "VOP2", "VOPC", "VOP3", "VOP3P", "VINTRP",  "DS",    "FLAT",
                                                   "GLOBAL", "SCRATCH", "MUBUF", "MTBUF", "MIMG", "EXP"};
  static_assert(static_cast<std::size_t>(isa::Format::EXP) + 1 == names.size(), "a Format without a name");
  const auto k = static_cast<std::size_t>(f);
  return k < names.size() ? names[k] : "?";
}

/// The sources of the figures a prompt's ISA facts cite, each once, by name.
struct FactSources {
  std::vector<std::pair<std::string, std::string_view>> list;
  void add(std::string name, std::string_view source) {
    for (const auto& [n, s] : list)
      if (n == name) return;
    list.emplace_back(std::move(name), source);
  }
};

/// One line of what asmevo knows about `in`'s form: its encoding and size (ir/gen tables, from LLVM's AMDGPU target
/// description), the unit and cycle figures the cost model charges it (the classification follows
/// model::detail::op_cost; figures from model::TimingParams and analysis::mfma_info, each cited by name), the waitcnt
/// counters it increments and the implicit registers it reads and writes.
[[nodiscard]] inline std::string isa_fact(const Inst& in, const model::TimingParams& p, FactSources& src) {
  namespace pr = isa::prop;
  const auto& f = isa::forms(in.target)[in.form];
  const std::string_view mn = f.mnemonic;
  const Opcode o = op_of(in);
  auto cyc = [&](std::string_view name, const model::Param& q) {
    src.add(std::string(name), q.source);
    return std::to_string(q.value) + " cycles [" + std::string(name) + "]";
  };
  std::string s = std::string(format_name(f.format)) + " encoding, " + std::to_string(f.size) + " bytes";
  if (o == op::s_nop) {
    s += "; holds the wave for (count & 15) + 1 wait states of " + cyc("wait_state", p.wait_state);
  } else if (o == op::s_sleep) {
    s += "; sleeps count x " + cyc("sleep_unit", p.sleep_unit);
  } else if (o == op::s_waitcnt) {
    s += "; stalls the wave until its outstanding vmcnt / expcnt / lgkmcnt drop to the counts given (a counter not "
         "named is not waited for)";
  } else if (o == op::s_barrier) {
    s += "; waits for every wave of the workgroup, released " + cyc("barrier", p.barrier) + " after the last arrives";
  } else if (o == op::s_endpgm) {
    s += "; ends the wave after its outstanding memory operations";
  } else if (f.has(pr::mfma)) {
    s += "; matrix core (MFMA)";
    if (const auto* m = analysis::mfma_info(o, in.target); m && m->passes) {
      src.add(std::string(mn) + " passes", m->source);
      s += " " + std::to_string(m->m) + "x" + std::to_string(m->n) + "x" + std::to_string(m->k) +
           (m->blocks > 1 ? ", " + std::to_string(m->blocks) + " blocks" : std::string{}) + ", " +
           std::to_string(m->passes) + " passes [" + std::string(mn) + " passes] of " +
           cyc("mfma_pass", p.mfma_pass) + " each; the result is read by a VALU or as srcA/B " +
           cyc("mfma_writeback", p.mfma_writeback) + " after the last pass";
    } else {
      s += "; its pass count is not in asmevo's MFMA table (analysis/mfma_info.hpp): the cost model guesses it";
    }
  } else if (f.has(pr::smem)) {
    s += "; scalar memory: data after " + cyc("smem_latency", p.smem_latency) + " on a scalar-L1 hit, " +
         cyc("smem_miss", p.smem_miss) + " more on a miss";
  } else if (f.has(pr::ds)) {
    s += "; LDS: data after " + cyc("lds_latency", p.lds_latency) + " without bank conflicts (" +
         std::to_string(p.lds_banks.value) + " dword banks [lds_banks]; a conflict serialises)";
    src.add("lds_banks", p.lds_banks.source);
  } else if (f.props & (pr::vmem | pr::flat)) {
    s += "; vector memory: holds the memory pipe " + cyc("vmem_issue", p.vmem_issue);
    if (f.has(pr::load) || f.has(pr::atomic_ret))
      s += "; data after " + cyc("l1_latency", p.l1_latency) + " on an L1 hit, " + cyc("l2_latency", p.l2_latency) +
           " from L2, " + (p.mall_bytes.value ? cyc("mall_latency", p.mall_latency) + " from the Infinity Cache, " : "") +
           cyc("hbm_latency", p.hbm_latency) + " from HBM (a TLB miss adds " + cyc("tlb_miss", p.tlb_miss) + ")";
  } else if (f.has(pr::valu)) {
    const bool f64 = op_info(o).mentions(DataType::f64);
    s += "; VALU ";
    if (f.has(pr::trans))
      s += f64 ? "f64 transcendental, " + cyc("valu_trans_f64", p.valu_trans_f64)
               : "transcendental, " + cyc("valu_trans", p.valu_trans);
    else
      s += f64 ? "f64, " + cyc("valu_f64", p.valu_f64) : "full rate, " + cyc("valu", p.valu);
    s += " per wave64; result usable after at least " + cyc("valu_latency", p.valu_latency);
  } else if (f.has(pr::branch)) {
    s += "; branch: a taken branch costs " + cyc("branch_taken", p.branch_taken) + " more";
  } else if (f.has(pr::salu)) {
    s += "; SALU: result usable after " + cyc("salu", p.salu);
  }
  std::string counters;
  for (const auto& [bit, name] : {std::pair{pr::vm_cnt, "vmcnt"}, std::pair{pr::lgkm_cnt, "lgkmcnt"},
                                  std::pair{pr::exp_cnt, "expcnt"}})
    if (f.props & bit) counters += (counters.empty() ? "" : ", ") + std::string(name);
  if (!counters.empty()) s += "; increments " + counters + " (an s_waitcnt on it waits for the result)";
  auto regs = [](std::uint32_t bits) {
    std::string r;
    for (const auto& [bit, name] : {std::pair{isa::reg::exec, "exec"}, std::pair{isa::reg::vcc, "vcc"},
                                    std::pair{isa::reg::scc, "scc"}, std::pair{isa::reg::m0, "m0"}})
      if (bits & bit) r += (r.empty() ? "" : ", ") + std::string(name);
    return r;
  };
  if (auto u = regs(f.implicit_uses); !u.empty()) s += "; reads " + u;
  if (auto d = regs(f.implicit_defs); !d.empty()) s += "; writes " + d;
  if (f.variant == isa::Variant::e64 && f.has(pr::has_e32)) s += "; a 4-byte e32 form exists for some operands";
  return s;
}

/// The window's lines, the context around it and the instructions in it (for the ISA facts).
struct WindowText {
  std::string before, window, after;
  std::vector<const Inst*> insts;
};

[[nodiscard]] inline std::string stall_note(const HotInst& h) {
  return "; exec=" + std::to_string(h.executions) + " issue=" + std::to_string(h.issue) +
         " stall: waitcnt=" + std::to_string(h.stall_waitcnt) + " dep=" + std::to_string(h.stall_dependency) +
         " barrier=" + std::to_string(h.stall_barrier) + " resource=" + std::to_string(h.stall_resource);
}

[[nodiscard]] inline std::string inst_line(std::string_view id, std::string_view text, const std::string& note) {
  std::string s = "  " + std::string(id);
  s.append(id.size() < 7 ? 7 - id.size() : 1, ' ');
  s += text;
  if (!note.empty()) {
    if (text.size() < 44) s.append(44 - text.size(), ' ');
    s += "  " + note;
  }
  return s + "\n";
}

/// Lists `hs` (or, without one, the program's first instructions) with `opt.context` instructions around it.
[[nodiscard]] inline WindowText window_text(const ProposalRequest& req, const HotSpot* hs, const PromptOptions& opt) {
  WindowText w;
  const Program* prog = req.module ? &req.module->program : nullptr;
  std::unordered_map<std::uint32_t, const HotInst*> timing;
  if (hs)
    for (const auto& h : hs->insts) timing.emplace(h.id.value, &h);
  std::optional<std::size_t> lo, hi;
  if (prog) {
    for (std::size_t k = 0; k < prog->items.size(); ++k) {
      const auto& it = prog->items[k];
      if (it.kind != Item::Kind::inst) continue;
      if (!hs) {
        if (!lo) lo = k;
        hi = k;
      } else {
        if (it.inst.id == hs->first) lo = k;
        if (it.inst.id == hs->last) hi = k;
      }
    }
  }
  auto id_of = [](InstId id) { return "i" + std::to_string(id.value); };
  if (!prog || !lo || !hi || *lo > *hi) {
    // The ids are not in the module's program: list what the hot spot itself carries.
    if (hs) {
      std::size_t n = 0;
      for (const auto& h : hs->insts) {
        if (n++ == opt.max_window) {
          w.window += "  ... " + std::to_string(hs->insts.size() - opt.max_window) + " more instructions\n";
          break;
        }
        w.window += inst_line(id_of(h.id), clip(h.text, 160), stall_note(h));
      }
    }
    return w;
  }
  const auto& items = prog->items;
  std::size_t listed = 0, cut = 0;
  for (std::size_t k = *lo; k <= *hi; ++k) {
    const auto& it = items[k];
    if (it.kind == Item::Kind::label) {
      if (listed < opt.max_window) w.window += it.name + ":\n";
    } else if (it.kind == Item::Kind::inst) {
      if (listed++ >= opt.max_window) {
        ++cut;
        continue;
      }
      const auto t = timing.find(it.inst.id.value);
      w.window += inst_line(id_of(it.inst.id), print_inst(it.inst),
                            t != timing.end() ? stall_note(*t->second) : hs ? "; (no modeled time)" : "");
      w.insts.push_back(&it.inst);
    }
  }
  if (cut) w.window += "  ... " + std::to_string(cut) + " more instructions of the window, not shown\n";
  std::vector<std::string> before;
  std::size_t n = 0;
  for (std::size_t k = *lo; k-- > 0 && n < opt.context;) {
    const auto& it = items[k];
    if (it.kind == Item::Kind::label) before.push_back(it.name + ":\n");
    else if (it.kind == Item::Kind::inst) before.push_back(inst_line(id_of(it.inst.id), print_inst(it.inst), "")), ++n;
  }
  for (auto r = before.rbegin(); r != before.rend(); ++r) w.before += *r;
  n = 0;
  for (std::size_t k = *hi + 1; k < items.size() && n < opt.context; ++k) {
    const auto& it = items[k];
    if (it.kind == Item::Kind::label) w.after += it.name + ":\n";
    else if (it.kind == Item::Kind::inst) w.after += inst_line(id_of(it.inst.id), print_inst(it.inst), ""), ++n;
  }
  return w;
}

[[nodiscard]] inline std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace detail::llm

/// The system message: the model's task, the rules of the answer, the passes a "pass" edit may run and the edit-script
/// schema (`opt.schema`, embedded as given).
[[nodiscard]] inline std::string system_prompt(const PromptOptions& opt) {
  std::string s =
      "You optimize one compiled AMD GPU kernel at the assembly level for asmevo. You propose a JSON edit script over "
      "its instructions; asmevo validates the script, applies it, runs the original and the edited kernel on its "
      "emulator with the same inputs and rejects any difference, then times the edited kernel with its cost model.\n"
      "\n"
      "Rules:\n"
      "1. Answer with exactly one JSON edit script in one ```json fenced block. Put a one-line \"comment\" in the "
      "script saying what you try, and a short \"why\" in each edit.\n"
      "2. Address instructions only by the ids shown as iN (the instruction's stable id, not a line number). An "
      "instruction you insert has no id you can name; an id never changes when other code moves.\n"
      "3. Only edit instructions of the hot window. The context lines before and after it are for reading.\n"
      "4. Keep the kernel's semantics exactly: every value it writes to memory must stay bit-for-bit the same for "
      "every input and launch. Keep every s_waitcnt and s_nop that a later instruction needs to read a result "
      "safely.\n"
      "5. Write instructions in LLVM's AMDGPU assembly syntax for the kernel's target, as in the listing.\n"
      "6. If a reply is rejected you get every problem with the JSON Pointer of its field: send the whole corrected "
      "script again.\n"
      "\n"
      "A \"pass\" edit runs one of asmevo's passes on the kernel:\n";
  for (const auto& p : passes::builtin_passes())
    s += "  " + std::string(p.name) + ": " + std::string(p.summary) + "\n";
  s += "A pass takes its arguments by name in \"args\"; calling a transformation this way costs far fewer tokens than "
       "writing its instructions, and the diagnosis in the request names the ones that fit.\n";
  s += "\nExample answer:\n```json\n{\"comment\": \"wait only for the first load before its use\", \"edits\": [\n"
       "  {\"op\": \"set_waitcnt\", \"at\": \"i9\", \"vmcnt\": 1, \"why\": \"i10 needs only the older load\"}]}\n```\n";
  s += "\nExample answer calling transformations:\n```json\n{\"comment\": \"four loads of the loop in flight\", "
       "\"edits\": [\n  {\"op\": \"pass\", \"name\": \"unroll\", \"args\": {\"factor\": 4, \"loop\": \".LBB0_2\"}, "
       "\"why\": \"the loop waits on its one load\"},\n  {\"op\": \"pass\", \"name\": \"batch-loads\"}]}\n```\n";
  s += "\nThe edit-script format (JSON Schema):\n";
  s += opt.schema.empty() ? std::string("(not provided: use the ops of the example and of the rules above)\n")
                          : opt.schema + (opt.schema.ends_with('\n') ? "" : "\n");
  return s;
}

/// The user message: the kernel and target, the parent's modeled cycles, the focused hot window as lines
/// `iN  <text>  ; exec=.. issue=.. stall: waitcnt=.. dep=.. barrier=.. resource=..` with context around it, the ISA
/// facts of each distinct instruction in it (with the sources of their figures), and the lineage's latest attempts.
/// Its size is bounded by `opt`.
[[nodiscard]] ASMEVO_OUTLINE std::string user_prompt(const ProposalRequest& req, const PromptOptions& opt)
#if ASMEVO_BODY_AGENT
{
  const HotSpot* hs = req.hot.empty() ? nullptr : &req.hot[std::min(req.focus, req.hot.size() - 1)];
  const Target t = req.module ? req.module->target : Target::gfx942;
  std::string s = "Kernel: " + detail::llm::clip(req.kernel, 120) + " (target " + std::string(to_string(t)) + ")\n";
  s += "Modeled cycles of the current version: " + detail::llm::fixed(req.parent_cost, 0) + "\n";
  if (req.bound_cycles > 0)
    s += "Speed-of-light bound of the original on this launch (cost model): " + std::to_string(req.bound_cycles) +
         " cycles, bound by " + detail::llm::clip(req.bound_kind, 20) + " (memory " + std::to_string(req.bound_memory) +
         ", issue " + std::to_string(req.bound_issue) + ", latency of one wave's longest chain " +
         std::to_string(req.bound_latency) + "); the current version is at " +
         detail::llm::fixed(req.parent_cost / static_cast<double>(req.bound_cycles), 2) + "x the bound and " +
         detail::llm::fixed(req.parent_cost / static_cast<double>(std::max<std::uint64_t>(req.bound_memory, 1)), 2) +
         "x the memory bound\n";
  if (!req.strategy.empty()) s += "Strategy of this line of attempts: " + detail::llm::clip(req.strategy, 200) + "\n";
  const auto w = detail::llm::window_text(req, hs, opt);
  if (hs) {
    s += "\nHot window " + std::to_string(std::min(req.focus, req.hot.size() - 1) + 1) + " of " +
         std::to_string(req.hot.size()) + ": i" + std::to_string(hs->first.value) + "..i" +
         std::to_string(hs->last.value) + ", " + detail::llm::fixed(hs->share * 100, 1) +
         "% of the modeled wave-cycles. Per instruction, summed over the modeled waves: exec = executions, issue = "
         "cycles it held the wave, stall = cycles the wave waited before issuing it, by cause (waitcnt: an s_waitcnt "
         "or s_endpgm waiting on memory; dep: a register not yet produced; barrier: s_barrier; resource: a unit "
         "another wave held).\n";
  } else {
    s += "\nNo modeled hot window was given: the kernel's first instructions follow, without timing.\n";
  }
  if (!w.before.empty()) s += "\nContext before the window (do not edit):\n" + w.before;
  s += "\nThe hot window (edit only these):\n" + (w.window.empty() ? std::string("  (no instructions)\n") : w.window);
  if (!w.after.empty()) s += "\nContext after the window (do not edit):\n" + w.after;
  if (req.hot.size() > 1) {
    s += "\nOther hot windows (not this attempt's):";
    for (std::size_t k = 0, shown = 0; k < req.hot.size() && shown < 4; ++k)
      if (&req.hot[k] != hs)
        s += " i" + std::to_string(req.hot[k].first.value) + "..i" + std::to_string(req.hot[k].last.value) + " (" +
             detail::llm::fixed(req.hot[k].share * 100, 1) + "%)", ++shown;
    s += "\n";
  }
  if (req.module && (!req.hot.empty() || req.launches)) {
    std::vector<Diagnosis> ds;
    if (auto l = diagnose_launch(req.module->program, req.kernel, req.launches)) ds.push_back(std::move(*l));
    for (auto& d : diagnose(req.module->program, req.kernel, req.hot)) ds.push_back(std::move(d));
    if (!ds.empty()) {
      s += "\nDiagnosis (the cost model's reading of the hot windows; call a named pass with a \"pass\" edit):\n";
      for (std::size_t k = 0; k < ds.size() && k < 4; ++k) s += "- " + detail::llm::clip(ds[k].text, opt.max_field) + "\n";
    }
  }
  if (!w.insts.empty()) {
    const auto& p = model::timing_params(t);
    detail::llm::FactSources src;
    std::map<std::string, std::string> facts;  // printed mnemonic -> fact, sorted for a stable prompt
    for (const Inst* in : w.insts) {
      auto key = mnemonic_text(*in);
      if (!facts.contains(key)) facts.emplace(std::move(key), detail::llm::isa_fact(*in, p, src));
    }
    s += "\nISA facts of the instructions in the window (asmevo's instruction tables, generated from LLVM's AMDGPU "
         "target description; cycle figures are the cost model's for " + std::string(p.device) +
         ", which times your version):\n";
    for (const auto& [mn, fact] : facts) s += "  " + mn + ": " + fact + "\n";
    if (!src.list.empty()) {
      s += "Where the figures in [brackets] come from:\n";
      for (const auto& [name, from] : src.list) s += "  " + name + ": " + detail::llm::clip(from, 240) + "\n";
    }
  }
  if (!req.history.empty()) {
    const std::size_t n = std::min(req.history.size(), opt.max_history);
    s += "\nEarlier attempts of this line (" +
         (n < req.history.size() ? "the last " + std::to_string(n) + " of " + std::to_string(req.history.size())
                                 : std::string("all ") + std::to_string(n)) +
         ", oldest first); do not repeat a failed one:\n";
    for (std::size_t k = req.history.size() - n; k < req.history.size(); ++k) {
      const auto& a = req.history[k];
      s += "- attempt " + std::to_string(a.index) + ": " + detail::llm::clip(a.outcome, 40);
      if (a.cycles) s += " (modeled cycles " + detail::llm::fixed(*a.cycles, 0) + ")";
      if (!a.summary.empty()) s += ": " + detail::llm::clip(a.summary, 200);
      s += "\n";
      if (!a.reason.empty()) s += "  why: " + detail::llm::clip(a.reason, opt.max_field) + "\n";
      if (!a.script.is_null()) s += "  script: " + detail::llm::clip(detail::llm::dump(a.script), opt.max_field) + "\n";
    }
  }
  s += "\nPropose one edit script that makes the hot window faster without changing what the kernel computes. "
       "Answer with one ```json block.\n";
  return s;
}
#else
;
#endif

/// The first messages of a proposal's conversation: system_prompt and user_prompt.
[[nodiscard]] inline std::vector<ChatMessage> build_prompt(const ProposalRequest& req, const PromptOptions& opt) {
  return {ChatMessage{"system", system_prompt(opt)}, ChatMessage{"user", user_prompt(req, opt)}};
}

// ---- reading the reply -------------------------------------------------------------------------------------------

namespace detail::llm {

/// A fenced block of a reply: its info string (lower case), its text and where that text starts.
struct Fence {
  std::string info;
  std::size_t begin = 0, end = 0;  ///< byte range of the content in the reply
  std::uint32_t line = 0;          ///< of the opening fence
  bool closed = false;
};

[[nodiscard]] inline std::vector<Fence> fences(std::string_view text) {
  std::vector<Fence> out;
  std::optional<Fence> open;
  std::uint32_t line = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    ++line;
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, eol - pos);
    const std::size_t next = eol < text.size() ? eol + 1 : eol;
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t' || l.back() == '\r')) l.remove_suffix(1);
    if (l.starts_with("```")) {
      std::string_view rest = l;
      while (!rest.empty() && rest.front() == '`') rest.remove_prefix(1);
      if (open && rest.empty()) {
        open->end = pos;
        open->closed = true;
        out.push_back(std::move(*open));
        open.reset();
      } else if (!open) {
        Fence f;
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        for (char c : rest.substr(0, rest.find(' ')))
          f.info += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        f.begin = next;
        f.line = line;
        open = std::move(f);
      }
    }
    pos = next;
  }
  if (open) {
    open->end = text.size();
    out.push_back(std::move(*open));
  }
  return out;
}

/// Parses `text[begin, end)` as JSON (comments allowed); an error names line and column in `text`.
[[nodiscard]] inline Expected<nlohmann::json> parse_at(std::string_view text, std::size_t begin, std::size_t end,
                                                       const std::string& what) {
  const std::string_view json = text.substr(begin, end - begin);
  auto bad = [&](std::size_t byte, std::string why, std::string hint) -> Expected<nlohmann::json> {
    const auto [line, col] = line_col(text, begin + (byte > 0 ? byte - 1 : 0));
    if (const auto k = why.find("syntax error"); k != std::string::npos) why = why.substr(k);
    else if (const auto c = why.find("] "); c != std::string::npos) why = why.substr(c + 2);
    return fail(DiagCode::parse_error,
                what + " is not valid JSON: line " + std::to_string(line) + ", column " + std::to_string(col) +
                    " of your reply: " + printable(why),
                Loc{"", line, col, std::nullopt}, {}, std::move(hint));
  };
  try {
    return nlohmann::json::parse(json, nullptr, true, true);
  } catch (const nlohmann::json::parse_error& e) {
    return bad(e.byte, e.what(), "send plain JSON: commas between members, keys in double quotes, no trailing commas");
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double's range ("1e999": out_of_range.406), which carries no position: a SAX pass over the
    // same text stops at the same place and says where.
    struct ErrorAt : nlohmann::detail::json_sax_acceptor<nlohmann::json> {
      std::size_t at = 0;
      bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception&) {
        at = pos;
        return false;
      }
    } sax;
    (void)nlohmann::json::sax_parse(json, &sax, nlohmann::json::input_format_t::json, true, true);
    return bad(sax.at, e.what(), "write numbers a double can hold (at most about 1.8e308 in magnitude)");
  }
}

}  // namespace detail::llm

/// The one JSON value of a model's reply: the content of its ```json fenced block (or of its one fenced block without
/// a language when there is no ```json block), else the first balanced {...} of the text (braces inside JSON strings
/// do not count) that parses. Errors say what was found: no JSON at all, several blocks, an unclosed block, an
/// unbalanced brace, a syntax error with its line and column in the reply.
[[nodiscard]] inline Expected<nlohmann::json> extract_json(std::string_view reply) {
  const auto all = detail::llm::fences(reply);
  std::vector<const detail::llm::Fence*> json_blocks, plain_blocks;
  for (const auto& f : all) {
    if (f.info == "json" || f.info == "jsonc") json_blocks.push_back(&f);
    else if (f.info.empty()) plain_blocks.push_back(&f);
  }
  const auto& blocks = json_blocks.empty() ? plain_blocks : json_blocks;
  const std::string kind = json_blocks.empty() ? "```" : "```json";
  if (blocks.size() > 1) {
    std::string lines;
    for (const auto* b : blocks) lines += (lines.empty() ? "" : ", ") + std::to_string(b->line);
    return fail(DiagCode::parse_error,
                "found " + std::to_string(blocks.size()) + " " + kind + " blocks (at lines " + lines +
                    "); expected exactly one, holding the whole edit script",
                Loc{"", blocks[1]->line, 1, std::nullopt});
  }
  if (blocks.size() == 1) {
    const auto& b = *blocks[0];
    if (!b.closed)
      return fail(DiagCode::parse_error,
                  "the " + kind + " block opened at line " + std::to_string(b.line) +
                      " is never closed with ``` (a reply cut off at max_tokens looks like this)",
                  Loc{"", b.line, 1, std::nullopt}, {}, "send a shorter script");
    bool blank = true;
    for (std::size_t k = b.begin; k < b.end && blank; ++k) blank = std::isspace(static_cast<unsigned char>(reply[k]));
    if (blank)
      return fail(DiagCode::parse_error, "the " + kind + " block at line " + std::to_string(b.line) + " is empty",
                  Loc{"", b.line, 1, std::nullopt});
    return detail::llm::parse_at(reply, b.begin, b.end, "the " + kind + " block at line " + std::to_string(b.line));
  }
  // No block: balanced {...} candidates, outside JSON strings, the first that parses.
  std::optional<Expected<nlohmann::json>> first_error;
  constexpr int max_candidates = 16;
  int candidates = 0;
  for (std::size_t start = reply.find('{'); start != std::string_view::npos && candidates < max_candidates;
       start = reply.find('{', start + 1)) {
    int depth = 0;
    bool in_string = false, escape = false;
    std::size_t end = std::string_view::npos;
    for (std::size_t k = start; k < reply.size(); ++k) {
      const char c = reply[k];
      if (in_string) {
        if (escape) escape = false;
        else if (c == '\\') escape = true;
        else if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}' && --depth == 0) {
        end = k + 1;
        break;
      }
    }
    if (end == std::string_view::npos) {
      if (first_error) break;
      const auto [line, col] = detail::llm::line_col(reply, start);
      return fail(DiagCode::parse_error,
                  "unbalanced braces: the '{' at line " + std::to_string(line) + ", column " + std::to_string(col) +
                      " of your reply is never closed" + (in_string ? " (a string in it is never closed either)" : ""),
                  Loc{"", line, col, std::nullopt}, {}, "send the whole script in one ```json block");
    }
    ++candidates;
    const auto [line, col] = detail::llm::line_col(reply, start);
    auto j = detail::llm::parse_at(reply, start, end,
                              "the object at line " + std::to_string(line) + ", column " + std::to_string(col));
    if (j) return j;
    if (!first_error) first_error = std::move(j);
  }
  if (first_error) return std::move(*first_error);
  return fail(DiagCode::parse_error,
              all.empty() ? "no JSON found in your reply" : "no JSON found in your reply (only fenced blocks of "
                                                            "other languages, such as ```" + all[0].info + ")",
              {}, {}, "answer with one ```json fenced block holding the edit script");
}

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
