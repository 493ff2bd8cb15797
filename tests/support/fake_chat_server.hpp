// A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for tests: it answers each request with the next
// response of its script (a status, a body, a delay, a Retry-After header, or a reply built from the request),
// records every request, and stops promptly when destroyed, even while a client is mid-request or a reply is
// being delayed.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace asmevo::test {

/// One request the server read: request line, headers as sent, and the body (Content-Length bytes).
struct RecordedRequest {
  std::string method, path;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  /// The value of header `name` (case-insensitive), or nothing.
  [[nodiscard]] std::optional<std::string> header(std::string_view name) const {
    for (const auto& [k, v] : headers) {
      if (k.size() != name.size()) continue;
      bool same = true;
      for (std::size_t i = 0; i < k.size() && same; ++i)
        same = std::tolower(static_cast<unsigned char>(k[i])) == std::tolower(static_cast<unsigned char>(name[i]));
      if (same) return v;
    }
    return std::nullopt;
  }
  /// The body as JSON (discarded when it is not JSON).
  [[nodiscard]] nlohmann::json json() const { return nlohmann::json::parse(body, nullptr, false); }
};

/// One scripted answer. With `build` set, the answer is what `build` returns for the request (its own `build` is
/// ignored); the returned response's delay and headers apply.
struct ScriptedResponse {
  int status = 200;
  std::string body;
  std::chrono::milliseconds delay{0};     ///< waited after reading the request, before answering
  std::optional<std::string> retry_after;  ///< sent as a Retry-After header
  std::function<ScriptedResponse(const RecordedRequest&)> build;

  /// A 200 chat completion whose message is `content`, with `usage` {prompt, completion} (none: no usage field).
  [[nodiscard]] static ScriptedResponse chat(const std::string& content,
                                             std::optional<std::pair<std::uint64_t, std::uint64_t>> usage =
                                                 std::pair<std::uint64_t, std::uint64_t>{100, 20}) {
    nlohmann::json j{{"id", "chatcmpl-fake"},
                     {"object", "chat.completion"},
                     {"model", "fake"},
                     {"choices", {{{"index", 0},
                                   {"message", {{"role", "assistant"}, {"content", content}}},
                                   {"finish_reason", "stop"}}}}};
    if (usage)
      j["usage"] = {{"prompt_tokens", usage->first},
                    {"completion_tokens", usage->second},
                    {"total_tokens", usage->first + usage->second}};
    ScriptedResponse r;
    r.body = j.dump();
    return r;
  }
  /// An OpenAI-style error: HTTP `status`, body {"error": {"message": ...}}, and a Retry-After when given.
  [[nodiscard]] static ScriptedResponse error(int status, const std::string& message,
                                              std::optional<std::string> retry_after = std::nullopt) {
    ScriptedResponse r;
    r.status = status;
    r.body = nlohmann::json{{"error", {{"message", message}, {"type", "fake_error"}}}}.dump();
    r.retry_after = std::move(retry_after);
    return r;
  }
  /// HTTP 200 with `body` verbatim.
  [[nodiscard]] static ScriptedResponse raw(int status, std::string body) {
    ScriptedResponse r;
    r.status = status;
    r.body = std::move(body);
    return r;
  }
  /// The answer `f` builds from the request.
  [[nodiscard]] static ScriptedResponse from_request(std::function<ScriptedResponse(const RecordedRequest&)> f) {
    ScriptedResponse r;
    r.build = std::move(f);
    return r;
  }
  /// This response, answered `d` after the request arrived.
  [[nodiscard]] ScriptedResponse delayed(std::chrono::milliseconds d) const {
    ScriptedResponse r = *this;
    r.delay = d;
    return r;
  }
};

/// The server. Each connection is served by its own thread (a delayed reply does not hold up the next request) and
/// closed after one response (Connection: close). When the script runs out it answers 500 "no scripted response".
class FakeChatServer {
 public:
  explicit FakeChatServer(std::vector<ScriptedResponse> script = {}) : queue_(script.begin(), script.end()) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) {
      error_ = std::string("socket: ") + std::strerror(errno);
      return;
    }
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;  // the OS picks a free port
    socklen_t len = sizeof a;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      error_ = std::string("bind/listen on 127.0.0.1: ") + std::strerror(errno);
      ::close(listen_fd_);
      listen_fd_ = -1;
      return;
    }
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  ~FakeChatServer() {
    {
      std::lock_guard lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (acceptor_.joinable()) acceptor_.join();
    std::vector<std::thread> workers;
    {
      std::lock_guard lk(mu_);
      workers.swap(workers_);
    }
    for (auto& w : workers) w.join();
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }

  FakeChatServer(const FakeChatServer&) = delete;
  FakeChatServer& operator=(const FakeChatServer&) = delete;

  /// Whether it listens; error() says why not.
  [[nodiscard]] bool ok() const noexcept { return listen_fd_ >= 0; }
  [[nodiscard]] const std::string& error() const noexcept { return error_; }
  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  /// "http://127.0.0.1:<port>"
  [[nodiscard]] std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  /// The chat-completions endpoint of an OpenAI-compatible server.
  [[nodiscard]] std::string url() const { return base_url() + "/v1/chat/completions"; }

  /// Appends a response to the script.
  void push(ScriptedResponse r) {
    std::lock_guard lk(mu_);
    queue_.push_back(std::move(r));
  }
  /// Every request read so far, in arrival order (a request is recorded before its reply is delayed).
  [[nodiscard]] std::vector<RecordedRequest> requests() const {
    std::lock_guard lk(mu_);
    return requests_;
  }
  /// Responses of the script not used yet.
  [[nodiscard]] std::size_t remaining() const {
    std::lock_guard lk(mu_);
    return queue_.size();
  }

 private:
  static constexpr int poll_ms = 20;

  [[nodiscard]] bool stopping() {
    std::lock_guard lk(mu_);
    return stop_;
  }

  void accept_loop() {
    while (!stopping()) {
      pollfd p{listen_fd_, POLLIN, 0};
      const int n = ::poll(&p, 1, poll_ms);
      if (n <= 0 || !(p.revents & POLLIN)) continue;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      std::lock_guard lk(mu_);
      if (stop_) {
        ::close(fd);
        break;
      }
      workers_.emplace_back([this, fd] {
        serve(fd);
        ::close(fd);
      });
    }
  }

  /// Reads more bytes into `buf`; false on end of stream, error, stop, or no byte within `budget`.
  bool read_some(int fd, std::string& buf, std::chrono::steady_clock::time_point deadline) {
    while (!stopping() && std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      const int n = ::poll(&p, 1, poll_ms);
      if (n < 0 && errno != EINTR) return false;
      if (n <= 0) continue;
      char chunk[4096];
      const ssize_t got = ::recv(fd, chunk, sizeof chunk, 0);
      if (got <= 0) return false;
      buf.append(chunk, static_cast<std::size_t>(got));
      return true;
    }
    return false;
  }

  void send_all(int fd, std::string_view data) {
    while (!data.empty() && !stopping()) {
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, poll_ms) <= 0) continue;
      const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return;  // the client went away (timed out): nothing to do
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  void serve(int fd) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::string buf;
    std::size_t head_end = std::string::npos;
    while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (buf.size() > (1u << 20) || !read_some(fd, buf, deadline)) return;
    }
    RecordedRequest req;
    std::size_t content_length = 0;
    {
      const std::string_view head(buf.data(), head_end);
      std::size_t eol = head.find("\r\n");
      const std::string_view first = head.substr(0, eol);
      const auto sp1 = first.find(' '), sp2 = first.rfind(' ');
      if (sp1 == std::string_view::npos || sp2 <= sp1) return;
      req.method = std::string(first.substr(0, sp1));
      req.path = std::string(first.substr(sp1 + 1, sp2 - sp1 - 1));
      while (eol != std::string_view::npos && eol < head.size()) {
        const std::size_t start = eol + 2;
        const std::size_t next = head.find("\r\n", start);
        const std::string_view line = head.substr(start, next == std::string_view::npos ? head.npos : next - start);
        eol = next;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        req.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
      }
      if (auto cl = req.header("Content-Length")) content_length = std::strtoull(cl->c_str(), nullptr, 10);
    }
    if (auto ex = req.header("Expect"); ex && ex->find("100-continue") != std::string::npos)
      send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n");
    buf.erase(0, head_end + 4);
    while (buf.size() < content_length)
      if (content_length > (64u << 20) || !read_some(fd, buf, deadline)) return;
    req.body = buf.substr(0, content_length);

    ScriptedResponse resp;
    {
      std::lock_guard lk(mu_);
      requests_.push_back(req);
      if (queue_.empty()) {
        resp = ScriptedResponse::error(500, "fake server: no scripted response left");
      } else {
        resp = std::move(queue_.front());
        queue_.pop_front();
      }
    }
    if (resp.build) {
      const auto delay = resp.delay;
      resp = resp.build(req);
      if (resp.delay.count() == 0) resp.delay = delay;
    }
    if (resp.delay.count() > 0) {
      std::unique_lock lk(mu_);
      if (cv_.wait_for(lk, resp.delay, [this] { return stop_; })) return;
    }
    std::string out = "HTTP/1.1 " + std::to_string(resp.status) + " " + reason(resp.status) + "\r\n";
    out += "Content-Type: application/json\r\n";
    out += "Content-Length: " + std::to_string(resp.body.size()) + "\r\n";
    out += "Connection: close\r\n";
    if (resp.retry_after) out += "Retry-After: " + *resp.retry_after + "\r\n";
    out += "\r\n" + resp.body;
    send_all(fd, out);
    ::shutdown(fd, SHUT_WR);
  }

  [[nodiscard]] static std::string reason(int status) {
    switch (status) {
      case 200: return "OK";
      case 400: return "Bad Request";
      case 401: return "Unauthorized";
      case 404: return "Not Found";
      case 408: return "Request Timeout";
      case 429: return "Too Many Requests";
      case 500: return "Internal Server Error";
      case 502: return "Bad Gateway";
      case 503: return "Service Unavailable";
      default: return "Status";
    }
  }

  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::string error_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::deque<ScriptedResponse> queue_;
  std::vector<RecordedRequest> requests_;
  std::vector<std::thread> workers_;
  std::thread acceptor_;
};

}  // namespace asmevo::test
