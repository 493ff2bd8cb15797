// `asmevo optimize` as a user runs it on a kernel the project builds itself: the search finds a verified modeled
// speedup, writes K1 atomically (and never touches K0), prints the JSON fields the CLI contract promises, writes its
// report; a run killed in the middle and resumed from its log ends with the same K1 and the same attempts as an
// uninterrupted run, no attempt repeated; bad usage (and a missing linker) is refused with a message.
#include <gtest/gtest.h>

#include "support/corpus.hpp"

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/fake_chat_server.hpp"
#include "support/process.hpp"

namespace {

namespace fs = std::filesystem;

struct Run {
  int code = -1;
  std::string out;
};

Run run(const std::string& args, bool with_stderr = true) {
  const auto r = asmevo::test::run_command(std::string(ASMEVO_CLI) + " " + args + (with_stderr ? "" : " 2>/dev/null"),
                                           with_stderr);
  return Run{WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, r.out};
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The attempt records of a log (every line after the header), without what depends on the wall clock.
std::vector<nlohmann::json> attempts_of(const fs::path& log) {
  std::vector<nlohmann::json> out;
  std::istringstream in(slurp(log));
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (first) {
      first = false;
      continue;
    }
    auto j = nlohmann::json::parse(line);
    j.erase("seconds");
    out.push_back(std::move(j));
  }
  return out;
}

class OptimizeCli : public ::testing::Test {
 protected:
  fs::path dir;
  // A kernel the project compiles itself (examples/kernels/vec_add.hip, clang-22 -O3), with the README's launch.
  std::string k0 = (fs::path(ASMEVO_EXAMPLES_DIR) / "vec_add.gfx942.co").string();
  std::string launch = std::string(ASMEVO_SOURCE_DIR) + "/examples/launch/vec_add.json";
  std::string common = " --budget 12 --seed 5 --lineages 2";
  void SetUp() override {
    dir = fs::temp_directory_path() / ("asmevo_optimize_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  /// The tests that need a kernel with room to improve: under the calibrated cost model (issue 27) vec_add runs at
  /// 1.04x its speed-of-light bound and no built-in pass makes it faster, while the corpus's Triton transpose
  /// (gfx942, its launch file's four shapes) has verified schedule gains. False when the corpus is absent.
  bool use_kernel_with_headroom() {
    auto corpus = asmevo::test::corpus_dir();
    if (!corpus) return false;
    k0 = (*corpus / "triton" / "transpose_f32_64.gfx942.hsaco").string();
    launch = std::string(ASMEVO_SOURCE_DIR) + "/tests/data/launch/triton/transpose_f32_64.json";
    return fs::exists(k0);
  }
};

TEST_F(OptimizeCli, FindsAVerifiedModeledSpeedupAndWritesK1AndTheReport) {
  if (!use_kernel_with_headroom()) GTEST_SKIP() << "corpus not found: set ASMEVO_CORPUS_DIR or place ../shared/corpus";
  const std::string before = slurp(k0);
  const fs::path k1 = dir / "k1.co", rep = dir / "r.html";
  auto r = run("optimize " + k0 + " --launch " + launch + " -o " + k1.string() + common + " --report " + rep.string() +
                   " --json",
               false);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* f : {"modeled_cycles_before", "modeled_cycles_after", "speedup", "verified", "attempts", "accepted"})
    EXPECT_TRUE(j.contains(f)) << f;
  EXPECT_TRUE(j["verified"].get<bool>());
  EXPECT_LT(j["modeled_cycles_after"].get<double>(), j["modeled_cycles_before"].get<double>());
  EXPECT_GT(j["speedup"].get<double>(), 1.0);
  EXPECT_EQ(j["attempts"].get<int>(), 12);
  EXPECT_EQ(slurp(k0), before);  // K0 untouched
  // The K1 it wrote verifies with the verifier a user runs (fresh seeds), and its modeled cycles are what it said.
  auto v = run("verify " + k0 + " " + k1.string() + " --launch " + launch + " --seed 99");
  EXPECT_EQ(v.code, 0) << v.out;
  auto e = run("emulate " + k1.string() + " --launch " + launch + " --shape 0 --timing --json", false);
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(e.out)["modeled_cycles"].get<double>(), j["modeled_cycles_after"].get<double>());
  const std::string html = slurp(rep);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  // What the attempts came to, the same tally as --json's outcomes.
  std::string tally = "What the attempts came to: 12 attempts: " + std::to_string(j["outcomes"]["accepted"].get<int>()) + " accepted";
  EXPECT_NE(html.find(tally), std::string::npos) << tally;
  EXPECT_NE(html.find("</html>"), std::string::npos);
  // K0 and K1 against the cost model's speed-of-light bound.
  EXPECT_NE(html.find("K0 vs bound"), std::string::npos);
  EXPECT_NE(html.find("K1 vs bound"), std::string::npos);
}

TEST_F(OptimizeCli, KilledAndResumedEndsExactlyLikeAnUninterruptedRun) {
  if (!use_kernel_with_headroom()) GTEST_SKIP() << "corpus not found: set ASMEVO_CORPUS_DIR or place ../shared/corpus";
  // Long enough (a few seconds) that the kill lands in the middle.
  // The uninterrupted run gates one candidate at a time; the killed and the resumed ones two at once (--jobs 2):
  // the logs and K1 must still agree, attempt for attempt and byte for byte.
  const std::string common = " --budget 60 --seed 5 --lineages 3";
  const fs::path whole = dir / "whole", k1a = dir / "a.co";
  auto a = run("optimize " + k0 + " --launch " + launch + " -o " + k1a.string() + common + " --jobs 1 --log " +
                   whole.string() + " --json",
               false);
  ASSERT_EQ(a.code, 0) << a.out;
  // The same run, killed (SIGKILL: no chance to tidy up) once its log holds a few attempts, then resumed.
  const fs::path part = dir / "part", k1b = dir / "b.co";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string cmd = std::string(ASMEVO_CLI) + " optimize " + k0 + " --launch " + launch + " -o " +
                            k1b.string() + common + " --jobs 2 --log " + part.string() + " > /dev/null 2>&1";
    ::execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  std::size_t seen = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(part / "log.jsonl")) {
      const std::string text = slurp(part / "log.jsonl");
      seen = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
      if (seen >= 5) break;  // the header and at least four attempts
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_GE(seen, 5u) << "the run never logged four attempts";
  ASSERT_FALSE(fs::exists(k1b)) << "killed before the end, it must not have written K1";
  const auto logged = attempts_of(part / "log.jsonl").size();
  ASSERT_LT(logged, 60u) << "the kill came too late to interrupt anything";

  auto b = run("optimize " + k0 + " --launch " + launch + " -o " + k1b.string() + common + " --jobs 2 --resume " +
                   part.string() + " --json",
               false);
  ASSERT_EQ(b.code, 0) << b.out;
  const auto jb = nlohmann::json::parse(b.out), ja = nlohmann::json::parse(a.out);
  EXPECT_EQ(jb["replayed"].get<std::size_t>(), logged);  // nothing lost: every logged attempt was replayed
  EXPECT_EQ(slurp(k1a), slurp(k1b));                     // the same K1, byte for byte
  EXPECT_EQ(ja["modeled_cycles_after"], jb["modeled_cycles_after"]);
  // No attempt repeated and none missing: the resumed log is the uninterrupted one.
  const auto la = attempts_of(whole / "log.jsonl"), lb = attempts_of(part / "log.jsonl");
  ASSERT_EQ(la.size(), 60u);
  ASSERT_EQ(lb.size(), 60u);
  std::set<std::uint64_t> numbers;
  for (std::size_t i = 0; i < lb.size(); ++i) {
    EXPECT_TRUE(numbers.insert(lb[i]["attempt"].get<std::uint64_t>()).second) << "attempt repeated: " << lb[i].dump();
    EXPECT_EQ(la[i], lb[i]) << "attempt " << i;
  }
}

TEST_F(OptimizeCli, TheLlmPathEndToEndAgainstAScriptedLoopbackServer) {
  using asmevo::test::FakeChatServer;
  using asmevo::test::ScriptedResponse;
  using asmevo::test::RecordedRequest;
  // The model's replies, in order. Each attempt of the one LLM lineage asks once, plus once per repair round.
  // A script that breaks correctness: the first VALU instruction of the hot window the prompt shows, replaced by a
  // move of a constant into its destination.
  auto breaking = ScriptedResponse::from_request([](const RecordedRequest& rq) {
    const std::string prompt = rq.json()["messages"].back()["content"].get<std::string>();
    std::smatch m;
    std::string edit = R"({"edits": []})";
    if (std::regex_search(prompt, m, std::regex(R"(\b(i[0-9]+)\s+(v_[a-z0-9_]+) (v[0-9]+),)")))
      edit = R"({"edits": [{"op": "replace", "at": ")" + m[1].str() + R"(", "with": ["v_mov_b32 )" + m[3].str() +
             R"(, 12345"]}]})";
    return ScriptedResponse::chat("Here is my edit:\n```json\n" + edit + "\n```", std::pair<std::uint64_t, std::uint64_t>{900, 40});
  });
  FakeChatServer server({
      breaking,                                                   // attempt 0: verifies not equivalent
      ScriptedResponse::chat("```json\n{\"edits\": [{\"op\": \"delete\", \"at\": \"i9999999\"}]}\n```"),  // attempt 1: bad id,
      ScriptedResponse::chat("{\"edits\": [ {\"op\": \"pass\", \"name\": \"schedule\"} "),  // repair 1: not JSON,
      ScriptedResponse::chat("```json\n{\"edits\": [{\"op\": \"pass\", \"name\": \"schedule\", \"args\": {\"window\": 64}}]}\n```"),  // repair 2
      ScriptedResponse::error(429, "slow down", "1"),              // attempt 2: rate limited, retried
      ScriptedResponse::error(500, "upstream broke"),              // then a server error, retried
      ScriptedResponse::chat("```json\n{\"edits\": [{\"op\": \"pass\", \"name\": \"nop-min\"}]}\n```", std::nullopt)
          .delayed(std::chrono::milliseconds(4000)),              // then too slow: the client times out and retries
      ScriptedResponse::chat("```json\n{\"edits\": [{\"op\": \"pass\", \"name\": \"schedule\"}]}\n```"),
      // Spares, should the model be asked again (a valid script that changes nothing gets feedback too).
      ScriptedResponse::chat("```json\n{\"edits\": [{\"op\": \"pass\", \"name\": \"schedule\", \"args\": {\"window\": 8}}]}\n```"),
      ScriptedResponse::chat("```json\n{\"edits\": [{\"op\": \"pass\", \"name\": \"peephole\"}]}\n```"),
  });
  const fs::path k1 = dir / "k1.co", log = dir / "log";
  const std::string secret = "sk-test-secret-0123456789";
  // The key travels in the environment only; three attempts, all by the one (LLM) lineage.
  const auto res = asmevo::test::run_command("ASMEVO_LLM_KEY=" + secret + " " + std::string(ASMEVO_CLI) + " optimize " +
                                                 k0 + " --launch " + launch + " -o " + k1.string() +
                                                 " --budget 3 --lineages 1 --llm " + server.base_url() +
                                                 " --model fake-model --llm-timeout 2 --log " + log.string() + " --json",
                                             true);
  ASSERT_TRUE(WIFEXITED(res.status)) << res.out;  // nothing crashed
  const int code = WEXITSTATUS(res.status);
  EXPECT_TRUE(code == 0 || code == 1) << res.out;
  EXPECT_EQ(res.out.find(secret), std::string::npos) << "the key was printed";
  const std::string log_text = slurp(log / "log.jsonl");
  EXPECT_EQ(log_text.find(secret), std::string::npos) << "the key was logged";
  const auto recs = attempts_of(log / "log.jsonl");
  ASSERT_EQ(recs.size(), 3u) << log_text;
  // Attempt 0: the breaking edit was applied, verified, and rejected by the verifier (never timed).
  EXPECT_EQ(recs[0]["outcome"], "not_equivalent") << recs[0].dump(1);
  EXPECT_FALSE(recs[0].contains("cost"));
  // Attempt 1: an unknown id, then text that is not JSON; each answered with precise feedback, then a valid script.
  const std::string t1 = recs[1]["transcript"].dump();
  EXPECT_NE(t1.find("/edits/0/at"), std::string::npos) << t1;
  EXPECT_NE(t1.find("i9999999"), std::string::npos) << t1;
  EXPECT_TRUE(recs[1].contains("script")) << recs[1].dump(1);
  // Attempt 2: 429 (Retry-After), 500 and a reply slower than the timeout were retried; the fourth try answered.
  EXPECT_NE(recs[2]["transcript"].dump().find("\"requests\":4"), std::string::npos) << recs[2].dump(1);
  const auto reqs = server.requests();
  EXPECT_GE(reqs.size(), 8u);
  for (const auto& q : reqs) {
    EXPECT_EQ(q.path, "/v1/chat/completions");
    EXPECT_EQ(q.header("Authorization").value_or(""), "Bearer " + secret);
    EXPECT_EQ(q.json()["model"], "fake-model");
  }
  // Tokens: every reply's reported usage is counted (900+40 for the first, 100+20 for the others that report it).
  const auto j = nlohmann::json::parse(res.out.substr(res.out.find('{')));
  EXPECT_GE(j["tokens"]["total"].get<std::uint64_t>(), 940u + 3 * 120u) << j.dump(1);
  std::uint64_t logged = 0;
  for (const auto& rec : recs)
    if (rec.contains("tokens")) logged += rec["tokens"]["prompt"].get<std::uint64_t>() + rec["tokens"]["completion"].get<std::uint64_t>();
  EXPECT_EQ(logged, j["tokens"]["total"].get<std::uint64_t>());
}

// The project's row reduction (examples/kernels/row_sum.hip, the README main job's last step): the built-in
// proposer's diagnosis sees the wait inside the counted loop and software-pipelines it (its first suggestion), and
// the result verifies on the launch file's fifteen shapes (rows of 64..71 iterations, and of 1..7, which run the
// trip tests' other side); the JSON gives K0 and K1 against the speed-of-light bound.
TEST_F(OptimizeCli, DiagnosesTheWaitInTheLoopAndPipelinesTheRowReduction) {
  const std::string rk0 = (fs::path(ASMEVO_EXAMPLES_DIR) / "row_sum.gfx942.co").string();
  const std::string rl = std::string(ASMEVO_SOURCE_DIR) + "/examples/launch/row_sum.json";
  const fs::path k1 = dir / "k1.co";
  auto r = run("optimize " + rk0 + " --launch " + rl + " -o " + k1.string() + " --budget 8 --seed 1 --jobs 2 --json", false);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["verified"].get<bool>());
  std::printf("[row_sum optimize] %.0f -> %.0f modeled cycles, %.2fx; bound %s\n", j["modeled_cycles_before"].get<double>(),
              j["modeled_cycles_after"].get<double>(), j["speedup"].get<double>(), j["bound"].dump().c_str());
  EXPECT_GT(j["speedup"].get<double>(), 4.0) << r.out;
  bool pipelined = false;
  for (const auto& st : j["accepted_steps"])
    pipelined |= st["summary"].get<std::string>().find("software-pipeline:depth=") != std::string::npos;
  EXPECT_TRUE(pipelined) << j["accepted_steps"].dump(1);
  ASSERT_TRUE(j.contains("bound")) << r.out;
  EXPECT_GT(j["bound"]["before"]["cycles"].get<double>(), 0);
  EXPECT_LE(j["bound"]["after"]["cycles"].get<double>(), j["modeled_cycles_after"].get<double>());
  EXPECT_GE(j["bound"]["before"]["headroom"].get<double>(), 1.0);
  auto v = run("verify " + rk0 + " " + k1.string() + " --launch " + rl + " --seed 77");
  EXPECT_EQ(v.code, 0) << v.out;
}

// The LLM path calls a transformation by name: the prompt carries the bound and the diagnosis naming the loop,
// the scripted model answers with two pass entries, and the run counts its tokens per verified improvement.
TEST_F(OptimizeCli, TheLlmCallsATransformationByNameFromTheDiagnosis) {
  using asmevo::test::FakeChatServer;
  using asmevo::test::ScriptedResponse;
  using asmevo::test::RecordedRequest;
  std::vector<std::string> prompts;
  std::mutex m;
  auto by_name = ScriptedResponse::from_request([&](const RecordedRequest& rq) {
    const std::string prompt = rq.json()["messages"].back()["content"].get<std::string>();
    {
      std::lock_guard<std::mutex> lk(m);
      prompts.push_back(prompt);
    }
    std::smatch mm;
    std::string loop = ".Lnone";
    if (std::regex_search(prompt, mm, std::regex(R"(counted loop at (\.L[A-Za-z0-9_]+))"))) loop = mm[1].str();
    return ScriptedResponse::chat("```json\n{\"comment\": \"loads in flight\", \"edits\": [{\"op\": \"pass\", \"name\": "
                                  "\"unroll\", \"args\": {\"factor\": 4, \"loop\": \"" + loop + "\"}}, {\"op\": \"pass\", "
                                  "\"name\": \"batch-loads\"}]}\n```",
                                  std::pair<std::uint64_t, std::uint64_t>{1500, 60});
  });
  FakeChatServer server({by_name, by_name});
  const std::string rk0 = (fs::path(ASMEVO_EXAMPLES_DIR) / "row_sum.gfx942.co").string();
  const std::string rl = std::string(ASMEVO_SOURCE_DIR) + "/examples/launch/row_sum.json";
  const fs::path k1 = dir / "k1.co";
  const auto res = asmevo::test::run_command("ASMEVO_LLM_KEY=k " + std::string(ASMEVO_CLI) + " optimize " + rk0 +
                                                 " --launch " + rl + " -o " + k1.string() + " --budget 1 --lineages 1 --llm " +
                                                 server.base_url() + " --model fake-model --json",
                                             false);
  ASSERT_TRUE(WIFEXITED(res.status)) << res.out;
  ASSERT_EQ(WEXITSTATUS(res.status), 0) << res.out;
  ASSERT_FALSE(prompts.empty());
  const std::string& u = prompts.front();
  EXPECT_NE(u.find("Speed-of-light bound of the original on this launch (cost model): "), std::string::npos) << u;
  EXPECT_NE(u.find("Diagnosis (the cost model's reading of the hot windows"), std::string::npos) << u;
  EXPECT_NE(u.find("in the counted loop at .Lrow_sum_0"), std::string::npos) << u;
  const auto j = nlohmann::json::parse(res.out.substr(res.out.find('{')));
  EXPECT_EQ(j["accepted"].get<int>(), 1) << j.dump(1);
  EXPECT_GT(j["speedup"].get<double>(), 2.0) << j.dump(1);
  EXPECT_EQ(j["tokens"]["total"].get<std::uint64_t>(), 1560u);
  EXPECT_DOUBLE_EQ(j["tokens"]["per_verified_improvement"].get<double>(), 1560.0);
}

TEST_F(OptimizeCli, AResumedLogIsCheckedNotTrusted) {
  if (!use_kernel_with_headroom()) GTEST_SKIP() << "corpus not found: set ASMEVO_CORPUS_DIR or place ../shared/corpus";
  const fs::path logdir = dir / "log", k1 = dir / "k1.co";
  auto a = run("optimize " + k0 + " --launch " + launch + " -o " + k1.string() + common + " --log " + logdir.string() +
                   " --json",
               false);
  ASSERT_EQ(a.code, 0) << a.out;
  const std::string good = slurp(logdir / "log.jsonl");
  // A record cut short by a kill (no newline) is dropped, and the run goes on from there.
  {
    std::ofstream(logdir / "log.jsonl", std::ios::app) << R"({"attempt": 12, "lineage": 0, "ki)";
    auto r = run("optimize " + k0 + " --launch " + launch + " -o " + k1.string() + " --budget 14 --seed 5 --lineages 2" +
                     " --resume " + logdir.string() + " --json",
                 false);
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)["replayed"].get<int>(), 12);
    EXPECT_EQ(attempts_of(logdir / "log.jsonl").size(), 14u);
  }
  // An accepted record whose cost was edited does not replay: the candidate is verified and timed again.
  std::string edited;
  {
    std::istringstream in(good);
    std::string line;
    bool done = false;
    while (std::getline(in, line)) {
      if (!done && line.find("\"outcome\":\"accepted\"") != std::string::npos) {
        auto j = nlohmann::json::parse(line);
        j["cost"] = j["cost"].get<double>() - 100;
        line = j.dump();
        done = true;
      }
      edited += line + "\n";
    }
    ASSERT_TRUE(done) << good;
  }
  std::ofstream(logdir / "log.jsonl", std::ios::trunc) << edited;
  auto t = run("optimize " + k0 + " --launch " + launch + " -o " + k1.string() + common + " --resume " + logdir.string());
  EXPECT_EQ(t.code, 2) << t.out;
  EXPECT_NE(t.out.find("but it times at"), std::string::npos) << t.out;
}

TEST_F(OptimizeCli, BadUsageIsRefusedWithAMessage) {
  auto same = run("optimize " + k0 + " --launch " + launch + " -o " + k0);
  EXPECT_EQ(same.code, 2);
  EXPECT_NE(same.out.find("would overwrite the input"), std::string::npos) << same.out;
  // No AMD GPU here (nor on many users' machines): the HIP executor says so, exit 2, and nothing is written.
  auto hip = run("optimize " + k0 + " --launch " + launch + " -o " + (dir / "h.co").string() + " --executor hip");
  EXPECT_TRUE(hip.code == 0 || hip.code == 1 || hip.code == 2) << hip.out;  // a device runs it; none: exit 2
  if (hip.code == 2) {
    EXPECT_NE(hip.out.find("asmevo: "), std::string::npos) << hip.out;
    EXPECT_FALSE(fs::exists(dir / "h.co"));
  }
  // Without a linker every candidate that changes a size would fail to build, and the search would end in a "no gain"
  // that hides why (as it did on a GPU host without lld): refused before the search, naming the linker, nothing written.
  // A name of nothing and a folder (executable, but no linker) alike.
  for (const fs::path& lld : {dir / "no-ld.lld", dir}) {
    const auto no_lld = asmevo::test::run_command("ASMEVO_LLD=" + lld.string() + " " + std::string(ASMEVO_CLI) + " optimize " +
                                                      k0 + " --launch " + launch + " -o " + (dir / "l.co").string(),
                                                  true);
    EXPECT_TRUE(WIFEXITED(no_lld.status) && WEXITSTATUS(no_lld.status) == 2) << no_lld.out;
    EXPECT_NE(no_lld.out.find("ASMEVO_LLD names a file that is not executable"), std::string::npos) << no_lld.out;
    EXPECT_EQ(no_lld.out.find("attempt"), std::string::npos) << "the search started: " << no_lld.out;
    EXPECT_FALSE(fs::exists(dir / "l.co"));
  }
  // A linker that is there but fails every link: the search runs, nothing is written, and the "why not" says what
  // the attempts came to and names the first failure.
  const auto bad_lld = asmevo::test::run_command("ASMEVO_LLD=/bin/false " + std::string(ASMEVO_CLI) + " optimize " + k0 +
                                                     " --launch " + launch + " -o " + (dir / "l.co").string() +
                                                     " --budget 6 --seed 1 --json 2>/dev/null",
                                                 false);
  ASSERT_TRUE(WIFEXITED(bad_lld.status) && WEXITSTATUS(bad_lld.status) == 1) << bad_lld.out;
  const auto bj = nlohmann::json::parse(bad_lld.out);
  const auto why = bj.value("why_not", std::string());
  EXPECT_EQ(why.rfind("no verified candidate was faster than K0 (6 attempts: ", 0), 0u) << why;
  EXPECT_NE(why.find(" failed); first failure: rebuild: ld.lld failed (exit status 1)"), std::string::npos) << why;
  std::uint64_t tallied = 0;
  for (const auto& [outcome, n] : bj["outcomes"].items()) tallied += n.get<std::uint64_t>();
  EXPECT_EQ(tallied, 6u) << bj["outcomes"].dump();
  EXPECT_GE(bj["outcomes"].value("failed", 0u), 1u) << bj["outcomes"].dump();
  EXPECT_FALSE(fs::exists(dir / "l.co"));
  auto no_launch = run("optimize " + k0 + " -o " + (dir / "x.co").string());
  EXPECT_EQ(no_launch.code, 2);
  EXPECT_NE(no_launch.out.find("--launch"), std::string::npos) << no_launch.out;
  auto no_log = run("optimize " + k0 + " --launch " + launch + " -o " + (dir / "x.co").string() + " --resume " +
                    (dir / "nothing").string());
  EXPECT_EQ(no_log.code, 2);
  EXPECT_NE(no_log.out.find("no log.jsonl there"), std::string::npos) << no_log.out;
  // A log of another search (another seed) is not resumed.
  const fs::path logdir = dir / "log";
  ASSERT_EQ(run("optimize " + k0 + " --launch " + launch + " -o " + (dir / "y.co").string() +
                " --budget 2 --seed 1 --log " + logdir.string()).code == 2,
            false);
  auto other = run("optimize " + k0 + " --launch " + launch + " -o " + (dir / "y.co").string() +
                   " --budget 2 --seed 2 --resume " + logdir.string());
  EXPECT_EQ(other.code, 2) << other.out;
  EXPECT_NE(other.out.find("another search: seed"), std::string::npos) << other.out;
  auto again = run("optimize " + k0 + " --launch " + launch + " -o " + (dir / "y.co").string() + " --log " + logdir.string());
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.out.find("already holds a log"), std::string::npos) << again.out;
}

}  // namespace
