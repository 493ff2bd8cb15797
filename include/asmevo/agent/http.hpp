// The HTTP exchange the LLM client (agent/llm.hpp) needs, as plain values and one function type, so that the client
// is tested against any transport and only agent/curl_transport.hpp sees libcurl.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "asmevo/support/diag.hpp"

namespace asmevo::agent {

/// One HTTP POST. `headers` may hold a secret (the Authorization header): a transport never logs or prints them.
struct HttpRequest {
  std::string url;                                           ///< absolute http:// or https:// URL
  std::vector<std::pair<std::string, std::string>> headers;  ///< (name, value), sent in this order
  std::string body;                                          ///< sent as is (the caller sets Content-Type)
  std::chrono::milliseconds timeout{120000};                 ///< the whole exchange, connect to last byte
};

/// The server's answer, whatever its status: deciding what a status means is the caller's job.
struct HttpReply {
  long status = 0;  ///< HTTP status code of the final response
  std::string body;
  std::optional<double> retry_after_s;  ///< the Retry-After header in seconds (a date is turned into a delay)
};

/// Sends one request. An error (a Diag, never an exception) is a transport failure: no HTTP answer at all because
/// the connection was refused or reset, the name did not resolve, or the timeout passed. Any HTTP status, 500
/// included, is a value.
using HttpTransport = std::function<Expected<HttpReply>(const HttpRequest&)>;

}  // namespace asmevo::agent
