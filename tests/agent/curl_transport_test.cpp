// agent/curl_transport.hpp: the libcurl transport against the scripted loopback server: what it sends, statuses and
// bodies as values, Retry-After in both forms, and timeouts and refused connections as transport errors.
#include "asmevo/agent/curl_transport.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <string>

#include "support/fake_chat_server.hpp"

namespace asmevo::agent {
namespace {

using namespace std::chrono_literals;
using test::FakeChatServer;
using test::ScriptedResponse;

HttpRequest request_to(const std::string& url) {
  HttpRequest r;
  r.url = url;
  r.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer sk-x"}};
  r.body = R"({"model": "m", "messages": []})";
  r.timeout = 5000ms;
  return r;
}

TEST(CurlTransport, PostsTheBodyAndHeadersAndReturnsAnyStatusAsAValue) {
  FakeChatServer server({ScriptedResponse::raw(200, "{\"ok\": true}"), ScriptedResponse::error(500, "boom")});
  ASSERT_TRUE(server.ok()) << server.error();
  const auto t = curl_transport();
  auto r = t(request_to(server.url()));
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "{\"ok\": true}");
  EXPECT_FALSE(r->retry_after_s);
  r = t(request_to(server.url()));
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->status, 500);
  EXPECT_NE(r->body.find("boom"), std::string::npos);
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].path, "/v1/chat/completions");
  EXPECT_EQ(reqs[0].body, R"({"model": "m", "messages": []})");
  EXPECT_EQ(reqs[0].header("authorization"), "Bearer sk-x");
  EXPECT_EQ(reqs[0].header("Content-Type"), "application/json");
  EXPECT_FALSE(reqs[0].header("Expect"));  // no 100-continue round trip
}

TEST(CurlTransport, ReadsRetryAfterInSecondsAndAsADate) {
  std::time_t later = std::time(nullptr) + 120;
  char date[64];
  std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", std::gmtime(&later));
  FakeChatServer server({ScriptedResponse::error(429, "slow down", "7"), ScriptedResponse::error(503, "later", date)});
  const auto t = curl_transport();
  auto r = t(request_to(server.url()));
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->status, 429);
  ASSERT_TRUE(r->retry_after_s);
  EXPECT_EQ(*r->retry_after_s, 7.0);
  r = t(request_to(server.url()));
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->status, 503);
  ASSERT_TRUE(r->retry_after_s);
  EXPECT_GT(*r->retry_after_s, 100.0);
  EXPECT_LE(*r->retry_after_s, 120.0);
}

TEST(CurlTransport, RetryAfterValues) {
  EXPECT_EQ(detail::parse_retry_after(" 12\r\n"), 12.0);
  EXPECT_EQ(detail::parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), 0.0);  // in the past
  EXPECT_FALSE(detail::parse_retry_after("soon"));
  EXPECT_FALSE(detail::parse_retry_after(""));
}

TEST(CurlTransport, ATimeoutIsATransportError) {
  FakeChatServer server({ScriptedResponse::raw(200, "{}").delayed(10000ms)});
  auto req = request_to(server.url());
  req.timeout = 200ms;
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = curl_transport()(req);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3000ms);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no complete reply within 200 ms (timed out)"), std::string::npos)
      << r.error().message;
}

TEST(CurlTransport, ARefusedConnectionIsATransportError) {
  std::string url;
  {
    FakeChatServer gone;
    url = gone.url();
  }
  const auto r = curl_transport()(request_to(url));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("HTTP request failed"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find("sk-x"), std::string::npos);
}

TEST(CurlTransport, OnlyHttpAndHttpsAreSpoken) {
  const auto r = curl_transport()(request_to("file:///etc/passwd"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("HTTP request failed"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace asmevo::agent
