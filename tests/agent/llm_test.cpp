// agent/llm.hpp: the LLM proposer end to end through libcurl against a scripted OpenAI-compatible server on loopback
// (valid scripts, malformed JSON, invalid edits, slow replies, HTTP 429/500/400, a server echoing the key), plus the
// pieces on their own: JSON extraction from a reply, the prompt's contents, configuration and backoff.
#include "asmevo/agent/llm.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/curl_transport.hpp"
#include "asmevo/ir/parser.hpp"
#include "support/fake_chat_server.hpp"

namespace asmevo::agent {
namespace {

using namespace std::chrono_literals;
using test::FakeChatServer;
using test::RecordedRequest;
using test::ScriptedResponse;

constexpr const char* kKey = "sk-test-4f9a2bSECRETc0ffee";

codeobject::Module module_of(const std::string& text) {
  codeobject::Module m;
  m.target = Target::gfx942;
  auto p = parse_program(text, m.target, "<test>");
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().str());
  if (p) m.program = std::move(*p);
  codeobject::KernelInfo k;
  k.name = "k";
  k.metadata = nlohmann::ordered_json{{".name", "k"}, {".max_flat_workgroup_size", 256}};
  m.kernels.push_back(std::move(k));
  return m;
}

const char* const kProgram =
    "k:\n"
    "  s_load_dwordx2 s[0:1], s[4:5], 0x0\n"           // i0
    "  s_waitcnt lgkmcnt(0)\n"                         // i1
    "  global_load_dword v1, v0, s[0:1]\n"             // i2
    "  global_load_dword v2, v0, s[0:1] offset:4\n"    // i3
    "  s_waitcnt vmcnt(0)\n"                           // i4
    "  v_lshlrev_b32 v3, 2, v1\n"                      // i5
    "  v_add_u32 v4, v3, v2\n"                         // i6
    "  global_store_dword v0, v4, s[0:1]\n"            // i7
    "  s_endpgm\n";                                    // i8

/// The module, a hot window i2..i6 with modeled time, and a request for it.
struct Fixture {
  codeobject::Module module = module_of(kProgram);
  ProposalRequest req;
  Fixture() {
    req.module = &module;
    req.kernel = "k";
    req.parent_cost = 4321;
    req.seed = 7;
    HotSpot hs;
    hs.first = InstId{2};
    hs.last = InstId{6};
    hs.share = 0.625;
    auto add = [&](std::uint32_t id, std::string text, std::uint64_t wait, std::uint64_t dep) {
      HotInst h;
      h.id = InstId{id};
      h.text = std::move(text);
      h.executions = 4;
      h.issue = 16;
      h.stall_waitcnt = wait;
      h.stall_dependency = dep;
      h.stall_resource = 3;
      hs.insts.push_back(std::move(h));
    };
    add(2, "global_load_dword v1, v0, s[0:1]", 0, 0);
    add(3, "global_load_dword v2, v0, s[0:1] offset:4", 0, 0);
    add(4, "s_waitcnt vmcnt(0)", 3200, 0);
    add(5, "v_lshlrev_b32 v3, 2, v1", 0, 12);
    add(6, "v_add_u32 v4, v3, v2", 0, 16);
    req.hot.push_back(std::move(hs));
  }
};

std::string schema_text() {
  std::ifstream in(std::string(ASMEVO_SOURCE_DIR) + "/schema/edit-script.schema.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A config for `server` through which the test sees every backoff instead of waiting it out.
LlmConfig config_for(const FakeChatServer& server, std::vector<std::chrono::milliseconds>& sleeps) {
  LlmConfig c;
  c.url = server.url();
  c.model = "test-model";
  c.api_key = kKey;
  c.key_source = "ASMEVO_LLM_KEY";
  c.timeout = 5000ms;
  c.max_retries = 3;
  c.backoff = 10ms;
  c.max_backoff = 5000ms;
  c.max_repairs = 2;
  c.sleep = [&sleeps](std::chrono::milliseconds d) { sleeps.push_back(d); };
  return c;
}

LlmProposer proposer_for(const FakeChatServer& server, std::vector<std::chrono::milliseconds>& sleeps) {
  return LlmProposer(config_for(server, sleeps), curl_transport(), PromptOptions{schema_text()});
}

const char* const kValidReply =
    "The shift and the add fuse into one instruction.\n"
    "```json\n"
    "{\"comment\": \"fuse the shift into the add\", \"edits\": [\n"
    "  {\"op\": \"replace\", \"at\": \"i6\", \"with\": [\"v_lshl_add_u32 v4, v1, 2, v2\"], \"why\": \"one VALU op\"},\n"
    "  {\"op\": \"delete\", \"at\": \"i5\", \"why\": \"v3 is dead now\"}\n"
    "]}\n"
    "```\n";

/// The last message of a recorded chat request (the feedback, in a repair round).
std::string last_message(const RecordedRequest& r) {
  const auto j = r.json();
  if (!j.is_object() || !j.contains("messages") || j["messages"].empty()) return {};
  return j["messages"].back().value("content", std::string{});
}

// ---- end to end, through libcurl ---------------------------------------------------------------------------------

TEST(LlmProposer, AValidScriptIsAcceptedWithItsTokensAndTheKeyOnlyInTheHeader) {
  FakeChatServer server({ScriptedResponse::chat(kValidReply, std::pair<std::uint64_t, std::uint64_t>{1200, 80})});
  ASSERT_TRUE(server.ok()) << server.error();
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  const Proposal out = p.propose(f.req);
  ASSERT_TRUE(out.script) << out.failure;
  EXPECT_EQ((*out.script)["kernel"], "k");  // filled in from the request
  EXPECT_EQ(out.summary, "fuse the shift into the add");
  EXPECT_EQ(out.tokens.prompt, 1200u);
  EXPECT_EQ(out.tokens.completion, 80u);
  EXPECT_FALSE(out.tokens.estimated);
  EXPECT_EQ(p.client().tokens().total(), 1280u);
  EXPECT_EQ(p.client().requests(), 1u);
  EXPECT_TRUE(sleeps.empty());

  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].path, "/v1/chat/completions");
  EXPECT_EQ(reqs[0].header("Authorization"), std::string("Bearer ") + kKey);
  EXPECT_EQ(reqs[0].header("content-type"), "application/json");
  const auto body = reqs[0].json();
  ASSERT_TRUE(body.is_object()) << reqs[0].body;
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["max_tokens"], 4096);
  EXPECT_TRUE(body["temperature"].is_number());
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][1]["role"], "user");
  EXPECT_EQ(reqs[0].body.find(kKey), std::string::npos);

  // The transcript: system, user, assistant (with its usage); never the key.
  ASSERT_EQ(out.transcript.size(), 3u) << out.transcript.dump(2);
  EXPECT_EQ(out.transcript[2]["role"], "assistant");
  EXPECT_EQ(out.transcript[2]["usage"]["prompt_tokens"], 1200);
  EXPECT_EQ(out.transcript.dump().find(kKey), std::string::npos);
  EXPECT_EQ(out.transcript.dump().find("Bearer"), std::string::npos);

  // The script applies to the module as the search will apply it.
  EXPECT_TRUE(apply_edit_script(f.module, *out.script).ok());
}

TEST(LlmProposer, MalformedJsonGetsFeedbackNamingTheProblemThenTheFixedReplyIsAccepted) {
  FakeChatServer server({
      ScriptedResponse::chat("```json\n{\"edits\": [\n  {\"op\": \"delete\" \"at\": \"i5\"}\n]}\n```",
                             std::pair<std::uint64_t, std::uint64_t>{900, 30}),
      ScriptedResponse::chat(kValidReply, std::pair<std::uint64_t, std::uint64_t>{1000, 60}),
  });
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  const Proposal out = p.propose(f.req);
  ASSERT_TRUE(out.script) << out.failure;
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  const std::string feedback = last_message(reqs[1]);
  EXPECT_NE(feedback.find("not valid JSON"), std::string::npos) << feedback;
  EXPECT_NE(feedback.find("line 3, column"), std::string::npos) << feedback;  // the missing comma's line in the reply
  // The second request carries the conversation: system, user, the rejected reply, the feedback.
  const auto body = reqs[1].json();
  ASSERT_EQ(body["messages"].size(), 4u);
  EXPECT_EQ(body["messages"][2]["role"], "assistant");
  EXPECT_EQ(body["messages"][3]["role"], "user");
  EXPECT_EQ(out.tokens.prompt, 1900u);
  EXPECT_EQ(out.tokens.completion, 90u);
  EXPECT_EQ(p.client().requests(), 2u);
  EXPECT_TRUE(sleeps.empty());  // a bad reply is not a retry: it is answered at once
}

TEST(LlmProposer, AnUnknownIdAndABadOperandAreReportedWithTheirJsonPointers) {
  FakeChatServer server({
      ScriptedResponse::chat("```json\n{\"edits\": [{\"op\": \"delete\", \"at\": \"i99\"},\n"
                             "  {\"op\": \"replace\", \"at\": \"i6\", \"with\": [\"v_add_u32 v4, v3, s999\"]}]}\n```"),
      ScriptedResponse::chat(kValidReply),
  });
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  const Proposal out = p.propose(f.req);
  ASSERT_TRUE(out.script) << out.failure;
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  const std::string feedback = last_message(reqs[1]);
  EXPECT_NE(feedback.find("/edits/0/at: no instruction i99"), std::string::npos) << feedback;
  EXPECT_NE(feedback.find("/edits/1/with/0:"), std::string::npos) << feedback;
  EXPECT_NE(feedback.find("2 problems"), std::string::npos) << feedback;
}

TEST(LlmProposer, AnotherKernelOrAnEmptyScriptIsRejectedToo) {
  FakeChatServer server({
      ScriptedResponse::chat("```json\n{\"kernel\": \"other\", \"edits\": []}\n```"),
      ScriptedResponse::chat(kValidReply),
  });
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  const Proposal out = p.propose(f.req);
  ASSERT_TRUE(out.script) << out.failure;
  const std::string feedback = last_message(server.requests().at(1));
  EXPECT_NE(feedback.find("/kernel: expected \"k\""), std::string::npos) << feedback;
  EXPECT_NE(feedback.find("/edits: expected at least one edit"), std::string::npos) << feedback;
}

TEST(LlmProposer, WhenRepairsRunOutTheProposalHasNoScriptAndSaysWhy) {
  FakeChatServer server({
      ScriptedResponse::chat("I would rather not."),
      ScriptedResponse::chat("```json\n{\"edits\": [{\"op\": \"frobnicate\", \"at\": \"i5\"}]}\n```"),
      ScriptedResponse::chat("```json\n{\"edits\": [{\"op\": \"delete\", \"at\": \"i77\"}]}\n```"),
  });
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  const Proposal out = p.propose(f.req);
  EXPECT_FALSE(out.script);
  EXPECT_NE(out.failure.find("no valid edit script in 3 replies"), std::string::npos) << out.failure;
  EXPECT_NE(out.failure.find("/edits/0/at: no instruction i77"), std::string::npos) << out.failure;
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(out.tokens.prompt, 300u);  // three rounds of the scripted usage
  EXPECT_EQ(out.tokens.completion, 60u);
  const std::string first_feedback = last_message(server.requests().at(1));
  EXPECT_NE(first_feedback.find("no JSON found"), std::string::npos) << first_feedback;
  const std::string second_feedback = last_message(server.requests().at(2));
  EXPECT_NE(second_feedback.find("/edits/0/op: unknown op \"frobnicate\""), std::string::npos) << second_feedback;
  // system, user, then (assistant, feedback) twice and the last assistant reply
  EXPECT_EQ(out.transcript.size(), 7u);
}

TEST(LlmProposer, Http429IsRetriedAfterTheRetryAfterTheServerAsks) {
  FakeChatServer server({ScriptedResponse::error(429, "rate limited", "2"), ScriptedResponse::chat(kValidReply)});
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  const Proposal out = p.propose(f.req);
  ASSERT_TRUE(out.script) << out.failure;
  ASSERT_EQ(sleeps.size(), 1u);
  EXPECT_EQ(sleeps[0], 2000ms);  // Retry-After: 2, more than the 10 ms backoff
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(p.client().retries(), 1u);
  EXPECT_EQ(out.tokens.total(), 120u);  // only the answered request has usage
}

TEST(LlmProposer, Http500IsRetriedWithGrowingBackoff) {
  FakeChatServer server({ScriptedResponse::error(500, "boom"), ScriptedResponse::error(503, "busy"),
                         ScriptedResponse::chat(kValidReply)});
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  const Proposal out = p.propose(f.req);
  ASSERT_TRUE(out.script) << out.failure;
  ASSERT_EQ(sleeps.size(), 2u);
  EXPECT_GE(sleeps[0], 10ms);
  EXPECT_LE(sleeps[0], 13ms);  // 10 ms plus at most 25% jitter
  EXPECT_GE(sleeps[1], 20ms);
  EXPECT_LE(sleeps[1], 25ms);
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(out.transcript.back()["requests"], 3);
}

TEST(LlmProposer, Http400IsNotRetriedAndTheFailureNamesTheStatusAndTheServersReason) {
  FakeChatServer server({ScriptedResponse::error(400, "model 'test-model' does not exist"),
                         ScriptedResponse::chat(kValidReply)});
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  const Proposal out = p.propose(f.req);
  EXPECT_FALSE(out.script);
  EXPECT_NE(out.failure.find("HTTP 400"), std::string::npos) << out.failure;
  EXPECT_NE(out.failure.find("model 'test-model' does not exist"), std::string::npos) << out.failure;
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_TRUE(sleeps.empty());
  EXPECT_EQ(p.client().failures(), 1u);
}

TEST(LlmProposer, ServerErrorsUntilRetriesRunOutAreAFailureNotACrash) {
  FakeChatServer server({ScriptedResponse::error(502, "a"), ScriptedResponse::error(502, "b"),
                         ScriptedResponse::error(502, "c"), ScriptedResponse::error(502, "last straw")});
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  const Proposal out = p.propose(f.req);
  EXPECT_FALSE(out.script);
  EXPECT_NE(out.failure.find("no usable answer in 4 attempts"), std::string::npos) << out.failure;
  EXPECT_NE(out.failure.find("HTTP 502: last straw"), std::string::npos) << out.failure;
  EXPECT_EQ(sleeps.size(), 3u);
  EXPECT_EQ(out.tokens.total(), 0u);
}

TEST(LlmProposer, ASlowReplyTimesOutAndIsRetried) {
  FakeChatServer server({ScriptedResponse::chat(kValidReply).delayed(30000ms), ScriptedResponse::chat(kValidReply)});
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  LlmConfig c = config_for(server, sleeps);
  c.timeout = 1000ms;
  LlmProposer p(c, curl_transport(), PromptOptions{schema_text()});
  const auto t0 = std::chrono::steady_clock::now();
  const Proposal out = p.propose(f.req);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 15000ms);  // did not wait for the slow reply
  ASSERT_TRUE(out.script) << out.failure;
  EXPECT_EQ(sleeps.size(), 1u);
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(p.client().retries(), 1u);
}

TEST(LlmProposer, AServerTooSlowEveryTimeIsAFailureNamingTheTimeout) {
  FakeChatServer server({ScriptedResponse::chat(kValidReply).delayed(30000ms),
                         ScriptedResponse::chat(kValidReply).delayed(30000ms)});
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  LlmConfig c = config_for(server, sleeps);
  c.timeout = 200ms;
  c.max_retries = 1;
  LlmProposer p(c, curl_transport(), PromptOptions{schema_text()});
  const Proposal out = p.propose(f.req);
  EXPECT_FALSE(out.script);
  EXPECT_NE(out.failure.find("timed out"), std::string::npos) << out.failure;
  EXPECT_NE(out.failure.find("2 attempts"), std::string::npos) << out.failure;
}  // the server's destructor ends the delayed replies still pending

TEST(LlmProposer, ARefusedConnectionIsRetriedThenAFailure) {
  std::string url;
  {
    FakeChatServer gone;
    url = gone.url();
  }  // nothing listens on that port any more
  std::vector<std::chrono::milliseconds> sleeps;
  LlmConfig c;
  c.url = url;
  c.model = "m";
  c.max_retries = 2;
  c.backoff = 1ms;
  c.sleep = [&](std::chrono::milliseconds d) { sleeps.push_back(d); };
  Fixture f;
  LlmProposer p(c, curl_transport(), PromptOptions{});
  const Proposal out = p.propose(f.req);
  EXPECT_FALSE(out.script);
  EXPECT_NE(out.failure.find("3 attempts"), std::string::npos) << out.failure;
  EXPECT_EQ(sleeps.size(), 2u);
}

TEST(LlmProposer, AKeyTheServerEchoesIsRedactedEverywhere) {
  // First reply: echoes the Authorization header in a reply that is not JSON; the feedback round then resends it.
  auto echo = ScriptedResponse::from_request([](const RecordedRequest& r) {
    return ScriptedResponse::chat("I saw your header: " + r.header("Authorization").value_or("?") + " -- no JSON");
  });
  FakeChatServer server({echo, ScriptedResponse::chat(std::string("key ") + kKey + "\n" + kValidReply)});
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  const Proposal out = p.propose(f.req);
  ASSERT_TRUE(out.script) << out.failure;
  const std::string t = out.transcript.dump();
  EXPECT_EQ(t.find(kKey), std::string::npos) << t;
  EXPECT_NE(t.find("Bearer [redacted]"), std::string::npos) << t;
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].body.find(kKey), std::string::npos);  // the echoed key is not sent back in the conversation

  // An error body that echoes the key: redacted in the failure too.
  FakeChatServer bad({ScriptedResponse::error(401, std::string("invalid key ") + kKey)});
  auto q = proposer_for(bad, sleeps);
  const Proposal refused = q.propose(f.req);
  EXPECT_FALSE(refused.script);
  EXPECT_NE(refused.failure.find("HTTP 401"), std::string::npos) << refused.failure;
  EXPECT_NE(refused.failure.find("invalid key [redacted]"), std::string::npos) << refused.failure;
  EXPECT_NE(refused.failure.find("ASMEVO_LLM_KEY"), std::string::npos) << refused.failure;  // where the key came from
  EXPECT_EQ(refused.failure.find(kKey), std::string::npos);
  EXPECT_EQ(refused.transcript.dump().find(kKey), std::string::npos);
}

// Found by tests/fuzz/llm_reply_fuzz.cpp: a 200 whose body is a bare JSON string echoing the key put the key, unredacted,
// into the error ("expected an object with \"choices\", found the string ...").
TEST(ChatClient, ABodyThatIsOnlyTheEchoedKeyIsRedacted) {
  LlmConfig c;
  c.url = "http://127.0.0.1:9";
  c.api_key = kKey;
  c.max_retries = 0;
  ChatClient client(c, [](const HttpRequest&) -> Expected<HttpReply> {
    return HttpReply{200, std::string("\"echo ") + kKey + "\"", std::nullopt};
  });
  auto r = client.chat({{"user", "hello"}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("expected an object with \"choices\""), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("echo [redacted]"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find(kKey), std::string::npos) << r.error().message;
}

TEST(LlmProposer, MissingUsageIsEstimatedAndFlagged) {
  FakeChatServer server({ScriptedResponse::chat(kValidReply, std::nullopt)});
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  const Proposal out = p.propose(f.req);
  ASSERT_TRUE(out.script) << out.failure;
  EXPECT_TRUE(out.tokens.estimated);
  EXPECT_EQ(out.tokens.completion, (std::string(kValidReply).size() + 3) / 4);
  const auto body = server.requests().at(0).json();
  std::size_t chars = 0;
  for (const auto& m : body["messages"]) chars += m["content"].get<std::string>().size();
  EXPECT_EQ(out.tokens.prompt, (chars + 3) / 4);
  EXPECT_TRUE(p.client().tokens().estimated);
}

TEST(LlmProposer, AReplyOfTheWrongShapeIsAPreciseFailure) {
  FakeChatServer server({ScriptedResponse::raw(200, "{\"choices\": []}"),
                         ScriptedResponse::raw(200, "<html>gateway</html>"),
                         ScriptedResponse::raw(200, R"({"choices": [{"message": {"content": null},
                                                         "finish_reason": "length"}]})")});
  std::vector<std::chrono::milliseconds> sleeps;
  Fixture f;
  auto p = proposer_for(server, sleeps);
  Proposal out = p.propose(f.req);
  EXPECT_NE(out.failure.find("/choices: expected a non-empty array, found an array"), std::string::npos)
      << out.failure;
  out = p.propose(f.req);
  EXPECT_NE(out.failure.find("is not JSON: it begins \"<html>gateway</html>\""), std::string::npos) << out.failure;
  out = p.propose(f.req);
  EXPECT_NE(out.failure.find("/choices/0/message/content: expected a string, found null (finish_reason \"length\")"),
            std::string::npos)
      << out.failure;
}

TEST(LlmProposer, ARequestWithoutAModuleIsAFailure) {
  LlmConfig c;
  c.url = "http://127.0.0.1:9";
  c.model = "m";
  LlmProposer p(c, [](const HttpRequest&) -> Expected<HttpReply> { return HttpReply{}; }, PromptOptions{});
  const Proposal out = p.propose(ProposalRequest{});
  EXPECT_FALSE(out.script);
  EXPECT_NE(out.failure.find("no code object"), std::string::npos);
  EXPECT_EQ(p.client().requests(), 0u);
}

TEST(LlmProposer, ATransportThatThrowsIsAFailureNotAnEscapingException) {
  LlmConfig c;
  c.url = "http://127.0.0.1:9";
  c.model = "m";
  c.max_retries = 1;
  c.sleep = [](std::chrono::milliseconds) {};
  LlmProposer p(c, [](const HttpRequest&) -> Expected<HttpReply> { throw std::runtime_error("wire cut"); },
                PromptOptions{});
  Fixture f;
  const Proposal out = p.propose(f.req);
  EXPECT_FALSE(out.script);
  EXPECT_NE(out.failure.find("wire cut"), std::string::npos) << out.failure;
}

// ---- the fake server itself --------------------------------------------------------------------------------------

TEST(FakeChatServer, StopsPromptlyWhileAClientIsMidRequest) {
  const auto t0 = std::chrono::steady_clock::now();
  std::thread slow;
  Expected<HttpReply> slow_reply = fail(DiagCode::internal, "not run");
  {
    FakeChatServer server({ScriptedResponse::chat("x").delayed(60000ms)});
    ASSERT_TRUE(server.ok()) << server.error();
    // A client whose reply is delayed by a minute, still waiting when the server goes away.
    slow = std::thread([&slow_reply, url = server.url()] {
      HttpRequest r;
      r.url = url;
      r.body = "{}";
      r.timeout = 20000ms;
      slow_reply = curl_transport()(r);
    });
    // A client that sent half a request.
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(server.port());
    // (EXPECT, not ASSERT: the thread above must be joined whatever happens.)
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    const std::string partial = "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"model\"";
    EXPECT_GT(::send(fd, partial.data(), partial.size(), MSG_NOSIGNAL), 0);
    // Wait until the delayed request has arrived (the partial one never completes).
    for (int k = 0; k < 500 && server.requests().empty(); ++k) std::this_thread::sleep_for(10ms);
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(server.requests().size(), 1u);
    ::close(fd);
  }
  slow.join();  // the server closed its connection: the client's call ended
  EXPECT_FALSE(slow_reply);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10000ms);  // not the minute of the delayed reply
}

// ---- pieces ------------------------------------------------------------------------------------------------------

TEST(ExtractJson, TakesTheJsonFencedBlock) {
  auto j = extract_json("Sure.\n```json\n{\"edits\": []}\n```\nDone.");
  ASSERT_TRUE(j) << j.error().str();
  EXPECT_TRUE((*j)["edits"].is_array());
  // A block of another language is not the answer; the json one is.
  j = extract_json("```asm\ns_nop 0\n```\n```JSON\n{\"a\": 1}\n```");
  ASSERT_TRUE(j) << j.error().str();
  EXPECT_EQ((*j)["a"], 1);
  // A block without a language counts when there is no json block.
  j = extract_json("```\n{\"a\": 2}\n```");
  ASSERT_TRUE(j) << j.error().str();
  EXPECT_EQ((*j)["a"], 2);
}

TEST(ExtractJson, FindsABareObjectIgnoringBracesInStringsAndInProse) {
  auto j = extract_json("Use {op} fields. Here: {\"why\": \"a } and { b\", \"edits\": [{\"op\": \"delete\"}]} ok");
  ASSERT_TRUE(j) << j.error().str();
  EXPECT_EQ((*j)["why"], "a } and { b");
  EXPECT_EQ((*j)["edits"][0]["op"], "delete");
}

TEST(ExtractJson, SaysWhatWasFound) {
  auto j = extract_json("I cannot help with that.");
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().message.find("no JSON found"), std::string::npos);

  j = extract_json("```json\n{\"a\": 1}\n```\nor\n```json\n{\"a\": 2}\n```");
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().message.find("found 2 ```json blocks (at lines 1, 5)"), std::string::npos) << j.error().message;

  j = extract_json("here: {\"edits\": [{\"op\": \"delete\"}");
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().message.find("unbalanced braces: the '{' at line 1, column 7"), std::string::npos)
      << j.error().message;

  j = extract_json("```json\n{\"edits\": [\n");
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().message.find("opened at line 1 is never closed"), std::string::npos) << j.error().message;

  j = extract_json("text\n```json\n{\"a\": 1,\n \"b\": }\n```");
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().message.find("line 4, column"), std::string::npos) << j.error().message;
  EXPECT_NE(j.error().message.find("syntax error"), std::string::npos) << j.error().message;
  EXPECT_EQ(j.error().loc.line, 4u);

  j = extract_json("```python\nprint(1)\n```");
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().message.find("```python"), std::string::npos) << j.error().message;
}

// Found by tests/fuzz/llm_reply_fuzz.cpp: nlohmann reports a number beyond a double as out_of_range, not parse_error,
// and it escaped extract_json (in the proposer it became an "internal error" instead of feedback to the model).
TEST(ExtractJson, ANumberBeyondADoubleIsAnErrorAtItsPlaceNotAnException) {
  auto j = extract_json("```json\n{\"edits\": [\n  {\"op\": \"set_waitcnt\", \"at\": \"i4\", \"vmcnt\": 1e999}]}\n```");
  ASSERT_FALSE(j);
  EXPECT_EQ(j.error().code, DiagCode::parse_error);
  EXPECT_NE(j.error().message.find("number overflow parsing '1e999'"), std::string::npos) << j.error().message;
  EXPECT_EQ(j.error().loc.line, 3u) << j.error().message;
  EXPECT_NE(j.error().hint.find("double"), std::string::npos) << j.error().hint;

  j = extract_json("the script: {\"edits\": [], \"x\": -2e400} as asked");  // a bare object, not a block
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().message.find("the object at line 1, column 13 is not valid JSON"), std::string::npos)
      << j.error().message;
}

TEST(Prompt, CarriesTheWindowWithIdsAndStallsTheFactsTheSchemaAndTheHistory) {
  Fixture f;
  for (std::uint64_t k = 1; k <= 12; ++k) {
    PastAttempt a;
    a.index = k;
    a.outcome = k == 12 ? "not_equivalent" : "slower";
    a.summary = "attempt number " + std::to_string(k);
    a.reason = k == 12 ? "K1 stores differ from K0 at 0x1000" : std::string(5000, 'r');
    a.script = nlohmann::json{{"edits", nlohmann::json::array({{{"op", "delete"}, {"at", "i5"}}})}};
    f.req.history.push_back(a);
  }
  const std::string schema = schema_text();
  ASSERT_FALSE(schema.empty());
  const auto msgs = build_prompt(f.req, PromptOptions{schema});
  ASSERT_EQ(msgs.size(), 2u);
  const std::string& sys = msgs[0].content;
  EXPECT_NE(sys.find(schema), std::string::npos);
  EXPECT_NE(sys.find("exactly one JSON edit script in one ```json fenced block"), std::string::npos);
  EXPECT_NE(sys.find("waitcnt-min"), std::string::npos);  // the passes a "pass" edit may run
  const std::string& u = msgs[1].content;
  EXPECT_NE(u.find("Kernel: k (target gfx942)"), std::string::npos) << u;
  EXPECT_NE(u.find("Modeled cycles of the current version: 4321"), std::string::npos) << u;
  EXPECT_NE(u.find("i2..i6, 62.5%"), std::string::npos) << u;
  // The diagnosis of the window (a wait outside any loop: load earlier) and, with no bound given, no bound line.
  EXPECT_NE(u.find("Diagnosis (the cost model's reading of the hot windows"), std::string::npos) << u;
  EXPECT_NE(u.find("wave-cycles waiting on memory: issue loads earlier; try batch-loads"), std::string::npos) << u;
  EXPECT_EQ(u.find("Speed-of-light bound"), std::string::npos) << u;
  f.req.bound_cycles = 2000, f.req.bound_memory = 2000, f.req.bound_issue = 300, f.req.bound_latency = 1500;
  f.req.bound_kind = "memory";
  const std::string ub = build_prompt(f.req, PromptOptions{schema})[1].content;
  EXPECT_NE(ub.find("Speed-of-light bound of the original on this launch (cost model): 2000 cycles, bound by memory "
                    "(memory 2000, issue 300, latency of one wave's longest chain 1500); the current version is at 2.16x "
                    "the bound and 2.16x the memory bound"),
            std::string::npos)
      << ub;
  // The system message shows a transformation called by name.
  EXPECT_NE(sys.find("\"name\": \"unroll\", \"args\": {\"factor\": 4"), std::string::npos) << sys;
  // Window lines: id, text, modeled time.
  EXPECT_NE(u.find("  i4     s_waitcnt vmcnt(0)"), std::string::npos) << u;
  EXPECT_NE(u.find("; exec=4 issue=16 stall: waitcnt=3200 dep=0 barrier=0 resource=3"), std::string::npos) << u;
  EXPECT_NE(u.find("stall: waitcnt=0 dep=16 barrier=0 resource=3"), std::string::npos) << u;
  // Context around it, not in the window.
  const auto ctx_before = u.find("Context before the window");
  const auto window = u.find("The hot window (edit only these)");
  const auto ctx_after = u.find("Context after the window");
  ASSERT_NE(ctx_before, std::string::npos) << u;
  ASSERT_NE(ctx_after, std::string::npos) << u;
  EXPECT_LT(ctx_before, u.find("i0     s_load_dwordx2"));
  EXPECT_LT(u.find("i1     s_waitcnt lgkmcnt(0)"), window);
  EXPECT_GT(u.find("i7     global_store_dword"), ctx_after);
  // ISA facts of each distinct instruction, with their sources.
  EXPECT_NE(u.find("global_load_dword: GLOBAL encoding, 8 bytes"), std::string::npos) << u;
  EXPECT_NE(u.find("increments vmcnt"), std::string::npos) << u;
  EXPECT_NE(u.find("[l2_latency]"), std::string::npos) << u;
  EXPECT_NE(u.find("VALU full rate, 4 cycles [valu]"), std::string::npos) << u;
  EXPECT_NE(u.find("  valu: "), std::string::npos) << u;  // the source of the figure
  EXPECT_NE(u.find("SISchedule.td"), std::string::npos) << u;
  // The history: the last 8 of 12, reasons clipped.
  EXPECT_NE(u.find("the last 8 of 12"), std::string::npos) << u;
  EXPECT_EQ(u.find("attempt 4:"), std::string::npos) << u;
  EXPECT_NE(u.find("attempt 5: slower: attempt number 5"), std::string::npos) << u;
  EXPECT_NE(u.find("attempt 12: not_equivalent: attempt number 12"), std::string::npos) << u;
  EXPECT_NE(u.find("why: K1 stores differ from K0 at 0x1000"), std::string::npos) << u;
  EXPECT_NE(u.find("script: {\"edits\":[{\"at\":\"i5\",\"op\":\"delete\"}]}"), std::string::npos) << u;
  EXPECT_EQ(u.find(std::string(401, 'r')), std::string::npos);
  EXPECT_LT(u.size(), 12000u);  // bounded despite 60 kB of reasons
}

TEST(Prompt, AWindowLongerThanTheLimitIsCutAndSaysSo) {
  Fixture f;
  PromptOptions opt;
  opt.max_window = 2;
  opt.context = 1;
  const std::string u = user_prompt(f.req, opt);
  EXPECT_NE(u.find("i3     global_load_dword v2"), std::string::npos) << u;
  EXPECT_EQ(u.find("i4     s_waitcnt vmcnt(0)"), std::string::npos) << u;
  EXPECT_NE(u.find("... 3 more instructions of the window, not shown"), std::string::npos) << u;
  EXPECT_EQ(u.find("i0     s_load"), std::string::npos) << u;  // one instruction of context only
}

TEST(LlmConfig, ComesFromFlagsThenTheEnvironment) {
  std::map<std::string, std::string> env{{"ASMEVO_LLM_URL", "http://h:8000/v1/"}, {"ASMEVO_LLM_MODEL", "qwen"},
                                         {"OPENAI_API_KEY", "sk-openai"}};
  EnvGetter get = [&](const char* n) -> std::optional<std::string> {
    auto it = env.find(n);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  auto c = llm_config({}, get);
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->url, "http://h:8000/v1/chat/completions");
  EXPECT_EQ(c->model, "qwen");
  EXPECT_EQ(c->api_key, "sk-openai");
  EXPECT_EQ(c->key_source, "OPENAI_API_KEY");
  env["ASMEVO_LLM_KEY"] = "sk-asmevo";
  c = llm_config({}, get);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->api_key, "sk-asmevo");
  LlmFlags flags;
  flags.url = "https://api.example.com";
  flags.model = "gpt";
  flags.key = "sk-flag";
  flags.timeout_s = 1.5;
  c = llm_config(flags, get);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->url, "https://api.example.com/v1/chat/completions");
  EXPECT_EQ(c->model, "gpt");
  EXPECT_EQ(c->api_key, "sk-flag");
  EXPECT_EQ(c->timeout, 1500ms);
}

TEST(LlmConfig, ErrorsNameWhatIsMissingAndNeverTheKey) {
  std::map<std::string, std::string> env{{"ASMEVO_LLM_KEY", "sk-hidden"}};
  EnvGetter get = [&](const char* n) -> std::optional<std::string> {
    auto it = env.find(n);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  auto c = llm_config({}, get);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().str().find("ASMEVO_LLM_URL"), std::string::npos) << c.error().str();
  env["ASMEVO_LLM_URL"] = "ftp://h/sk-hidden";
  c = llm_config({}, get);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("expected an http:// or https:// URL"), std::string::npos);
  EXPECT_EQ(c.error().str().find("sk-hidden"), std::string::npos) << c.error().str();
  env["ASMEVO_LLM_URL"] = "http://h";
  c = llm_config({}, get);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().str().find("ASMEVO_LLM_MODEL"), std::string::npos) << c.error().str();
  env["ASMEVO_LLM_MODEL"] = "m";
  env["ASMEVO_LLM_KEY"] = "sk-\nbad";
  c = llm_config({}, get);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("control character"), std::string::npos);
  EXPECT_EQ(c.error().str().find("bad"), std::string::npos);
}

TEST(LlmConfig, EndpointUrls) {
  EXPECT_EQ(chat_completions_url("http://h:1"), "http://h:1/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://h:1/"), "http://h:1/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://h:1/v1"), "http://h:1/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("https://h/api/v4/"), "https://h/api/v4/chat/completions");
  EXPECT_EQ(chat_completions_url("http://h:1/v1/chat/completions"), "http://h:1/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://h/openai"), "http://h/openai/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://h/x?api-version=1"), "http://h/x?api-version=1");
}

TEST(Backoff, GrowsIsDeterministicCappedAndHonoursRetryAfter) {
  LlmConfig c;
  c.backoff = 100ms;
  c.max_backoff = 1000ms;
  const auto d0 = backoff_delay(c, 0, 42), d1 = backoff_delay(c, 1, 42), d2 = backoff_delay(c, 2, 42);
  EXPECT_EQ(d0, backoff_delay(c, 0, 42));  // same seed, same delay
  EXPECT_GE(d0, 100ms);
  EXPECT_LE(d0, 125ms);
  EXPECT_GE(d1, 200ms);
  EXPECT_LE(d1, 250ms);
  EXPECT_GE(d2, 400ms);
  EXPECT_LE(d2, 500ms);
  EXPECT_EQ(backoff_delay(c, 10, 42), 1000ms);
  EXPECT_EQ(backoff_delay(c, 0, 42, 0.5), 500ms);
  EXPECT_EQ(backoff_delay(c, 0, 42, 3600.0), 1000ms);  // capped
  bool differs = false;
  for (std::uint64_t s = 0; s < 16 && !differs; ++s) differs = backoff_delay(c, 0, s) != d0;
  EXPECT_TRUE(differs);  // jitter depends on the seed
}

TEST(Redact, ReplacesEveryOccurrence) {
  EXPECT_EQ(redact("a KEY b KEYKEY", "KEY"), "a [redacted] b [redacted][redacted]");
  EXPECT_EQ(redact("nothing", ""), "nothing");
}

}  // namespace
}  // namespace asmevo::agent
