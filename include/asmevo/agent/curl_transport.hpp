// The libcurl HTTP transport of the LLM client (agent/llm_client.hpp): the only asmevo header that includes <curl/curl.h>,
// so that code which never talks to a model never needs libcurl (link CURL::libcurl where this is included).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

#include <curl/curl.h>

#include "asmevo/agent/http.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::agent {

namespace detail {

/// The value of a Retry-After header in seconds: delay-seconds or an HTTP-date (RFC 9110 §10.2.3), a date in the
/// past being 0. Nothing for anything else.
[[nodiscard]] inline std::optional<double> parse_retry_after(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
  if (v.empty()) return std::nullopt;
  if (std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (v.size() > 9) return 1e9;  // absurdly long: the caller caps the delay anyway
    double s = 0;
    for (char c : v) s = s * 10 + (c - '0');
    return s;
  }
  const std::string date(v);
  const std::time_t when = curl_getdate(date.c_str(), nullptr);
  if (when == static_cast<std::time_t>(-1)) return std::nullopt;
  return std::max(0.0, std::difftime(when, std::time(nullptr)));
}

/// What libcurl's callbacks fill in during one exchange.
struct CurlExchange {
  std::string body;
  std::size_t limit = 0;  ///< bytes of body accepted
  bool too_big = false;
  std::optional<double> retry_after_s;
};

inline std::size_t curl_on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* x = static_cast<CurlExchange*>(user);
  const std::size_t bytes = size * n;
  if (x->body.size() + bytes > x->limit) {
    x->too_big = true;
    return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
  }
  x->body.append(data, bytes);
  return bytes;
}

inline std::size_t curl_on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* x = static_cast<CurlExchange*>(user);
  const std::string_view line(data, size * n);
  // A new status line (after "100 Continue", say) starts a new header block: forget the previous one's headers.
  if (line.starts_with("HTTP/")) x->retry_after_s.reset();
  constexpr std::string_view name = "retry-after:";
  if (line.size() > name.size()) {
    bool match = true;
    for (std::size_t k = 0; k < name.size() && match; ++k)
      match = std::tolower(static_cast<unsigned char>(line[k])) == name[k];
    if (match) x->retry_after_s = parse_retry_after(line.substr(name.size()));
  }
  return size * n;
}

}  // namespace detail

/// An HttpTransport over libcurl: POSTs `body` with `headers` to `url`, waiting at most `timeout` for the whole
/// exchange. Only http and https are allowed, redirects are not followed (a redirect is the status it is, so that
/// the Authorization header never goes to another host), and no signal is used for timeouts (CURLOPT_NOSIGNAL: safe
/// in threads). A reply body over `max_reply_bytes` is a transport error. Nothing is logged: CURLOPT_VERBOSE stays
/// off, since it would print the Authorization header. libcurl's global state is initialised once, on first use.
[[nodiscard]] inline HttpTransport curl_transport(std::size_t max_reply_bytes = std::size_t{64} << 20) {
  static const CURLcode global = curl_global_init(CURL_GLOBAL_DEFAULT);
  return [max_reply_bytes](const HttpRequest& req) -> Expected<HttpReply> {
    if (global != CURLE_OK)
      return fail(DiagCode::io_error, std::string("libcurl could not be initialised: ") + curl_easy_strerror(global));
    CURL* h = curl_easy_init();
    if (!h) return fail(DiagCode::io_error, "libcurl could not create a handle (curl_easy_init failed)");
    curl_slist* headers = nullptr;
    bool headers_ok = true;
    for (const auto& [k, v] : req.headers) {
      const std::string line = k + ": " + v;
      curl_slist* next = curl_slist_append(headers, line.c_str());
      if (!next) headers_ok = false;
      else headers = next;
    }
    // An empty "Expect:" stops libcurl from waiting for "100 Continue" before sending a large body.
    if (curl_slist* next = curl_slist_append(headers, "Expect:")) headers = next;
    else headers_ok = false;
    if (!headers_ok) {
      curl_slist_free_all(headers);
      curl_easy_cleanup(h);
      return fail(DiagCode::io_error, "libcurl could not build the request headers (out of memory)");
    }
    detail::CurlExchange x;
    x.limit = max_reply_bytes;
    char errbuf[CURL_ERROR_SIZE] = {};
    const long timeout_ms = static_cast<long>(std::max<std::chrono::milliseconds::rep>(1, req.timeout.count()));
    curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // whatever this libcurl can decode
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(h, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &detail::curl_on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &detail::curl_on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
    const CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(h);
    if (rc == CURLE_OPERATION_TIMEDOUT)
      return fail(DiagCode::io_error, "no complete reply within " + std::to_string(timeout_ms) + " ms (timed out)");
    if (x.too_big)
      return fail(DiagCode::io_error, "the reply body exceeds " + std::to_string(max_reply_bytes) + " bytes");
    if (rc != CURLE_OK) {
      std::string msg = std::string("HTTP request failed: ") + curl_easy_strerror(rc);
      if (errbuf[0]) msg += " (" + printable(errbuf) + ")";
      return fail(DiagCode::io_error, std::move(msg));
    }
    HttpReply r;
    r.status = status;
    r.body = std::move(x.body);
    r.retry_after_s = x.retry_after_s;
    return r;
  };
}

}  // namespace asmevo::agent
