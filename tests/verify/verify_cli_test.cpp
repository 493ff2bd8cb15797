// `asmevo verify` as a user runs it (DESIGN.md "CLI contract"): exit 0 for an unedited rebuild, 1 for a K1 with a
// changed operation (its first differing element printed) or, with --require-proof, one only the runs accepted, 2 for
// a bad launch file (named by JSON pointer), a K0 that does not run cleanly, a receipt that would overwrite an input,
// or `--executor hip` without a device; the receipt is written as JSON and the inputs stay untouched. K1s are made with the CLI itself (disasm, edit, assemble).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/corpus.hpp"
#include "support/process.hpp"

namespace {

namespace fs = std::filesystem;
using asmevo::test::shell_quote;
using Json = nlohmann::json;

struct Run {
  int code = -1;
  std::string out;
};

Run cli(const std::string& args, bool stdout_only = false) {
  const std::string cmd = std::string(ASMEVO_CLI) + " " + args + (stdout_only ? " 2>/dev/null" : "");
  const auto r = asmevo::test::run_command(cmd, !stdout_only);
  return {r.status >= 0 && WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, r.out};
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

fs::path launch_file() {
  return fs::path(ASMEVO_SOURCE_DIR) / "tests" / "data" / "launch" / "triton" / "vec_add_f32.json";
}

class VerifyCli : public ::testing::Test {
 protected:
  fs::path dir, k0, same, sub;

  void SetUp() override {
    auto corpus = asmevo::test::corpus_dir();
    if (!corpus) GTEST_SKIP() << "corpus not found: set ASMEVO_CORPUS_DIR or place ../shared/corpus";
    k0 = *corpus / "triton" / "vec_add_f32.gfx942.hsaco";
    dir = fs::temp_directory_path() / ("asmevo_verifycli_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    // K1 = K0 disassembled and assembled again; K1' = the same with every v_add_f32 turned into v_sub_f32.
    auto d = cli("disasm " + shell_quote(k0) + " -o " + shell_quote(dir / "k.s"));
    ASSERT_EQ(d.code, 0) << d.out;
    std::string text = slurp(dir / "k.s");
    same = dir / "same.co";
    auto a = cli("assemble " + shell_quote(dir / "k.s") + " -o " + shell_quote(same));
    ASSERT_EQ(a.code, 0) << a.out;
    std::size_t n = 0;
    for (std::size_t at = text.find("v_add_f32"); at != std::string::npos; at = text.find("v_add_f32", at + 1), ++n)
      text.replace(at, 9, "v_sub_f32");
    ASSERT_EQ(n, 4u);
    std::ofstream(dir / "sub.s") << text;
    sub = dir / "sub.co";
    auto b = cli("assemble " + shell_quote(dir / "sub.s") + " -o " + shell_quote(sub));
    ASSERT_EQ(b.code, 0) << b.out;
  }
  void TearDown() override {
    if (!dir.empty()) fs::remove_all(dir);
  }
  std::string verify(const fs::path& k1, const std::string& extra = {}) {
    return "verify " + shell_quote(k0) + " " + shell_quote(k1) + " --launch " + shell_quote(launch_file()) + " " + extra;
  }
};

TEST_F(VerifyCli, UneditedRebuildIsEquivalentAndTheReceiptIsWritten) {
  const std::string before0 = slurp(k0), before1 = slurp(same);
  const fs::path receipt = dir / "r.json";
  auto r = cli(verify(same, "--receipt " + shell_quote(receipt)));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("equivalent: ", 0), 0u) << r.out;
  ASSERT_TRUE(fs::exists(receipt));
  const Json j = Json::parse(slurp(receipt));
  EXPECT_EQ(j["verdict"], "equivalent");
  EXPECT_EQ(j["executor"], "emu");
  EXPECT_EQ(j["kernel"], "vec_add");
  EXPECT_EQ(j["shapes"].size(), 4u);
  EXPECT_EQ(j["shapes"][0]["trials"][1]["inputs"][0]["seed"], 2);  // x of shape 0: seed 1 + trial 1
  EXPECT_EQ(slurp(k0), before0);
  EXPECT_EQ(slurp(same), before1);
}

TEST_F(VerifyCli, ChangedOperationExitsOneWithTheFirstDifference) {
  auto r = cli(verify(sub, "--trials 1"));
  ASSERT_EQ(r.code, 1) << r.out;
  EXPECT_EQ(r.out.rfind("not equivalent (run): ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("output arg2 (f32) differs in"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    [0] K0 "), std::string::npos) << r.out;  // y[0] != 0 for seed 11: index 0 differs
  auto j = cli(verify(sub, "--json --trials 1"), true);
  ASSERT_EQ(j.code, 1) << j.out;
  const Json rec = Json::parse(j.out);
  EXPECT_EQ(rec["verdict"], "not_equivalent");
  EXPECT_EQ(rec["rejected_by"], "run");
}

TEST_F(VerifyCli, ReceiptNeverOverwritesAnInput) {
  const std::string before = slurp(same);
  auto r = cli(verify(same, "--receipt " + shell_quote(same)));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("would overwrite the input"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(same), before);
}

TEST_F(VerifyCli, HipWithoutADeviceExitsTwo) {
  auto r = cli(verify(same, "--executor hip"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("no HIP device: "), std::string::npos) << r.out;
}

TEST_F(VerifyCli, BadLaunchFileNamesThePointer) {
  const fs::path bad = dir / "bad.json";
  std::ofstream(bad) << R"([{"grid": [1], "args": []}, {"grid": [1, -3], "args": []}])";
  auto r = cli("verify " + shell_quote(k0) + " " + shell_quote(same) + " --launch " + shell_quote(bad));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/1/grid/1"), std::string::npos) << r.out;
  auto u = cli("verify " + shell_quote(k0) + " --launch " + shell_quote(launch_file()));
  EXPECT_EQ(u.code, 2) << u.out;
  auto e = cli(verify(same, "--executor cuda"));
  EXPECT_EQ(e.code, 2) << e.out;
}

/// --require-proof: the unedited rebuild is proven (identical code) and still exits 0; a K1 with a dead
/// `v_mov_b32 v20, 0` after the first and the last add passes every run, but its two windows are more than the
/// prover checks, so it exits 1 with rejected_by "unproven", where without the option it is accepted with a note
/// that the verdict rests on the runs.
TEST_F(VerifyCli, RequireProofRejectsWhatOnlyTheRunsAccepted) {
  const fs::path receipt = dir / "p.json";
  auto r = cli(verify(same, "--require-proof --receipt " + shell_quote(receipt)));
  ASSERT_EQ(r.code, 0) << r.out;
  Json j = Json::parse(slurp(receipt));
  EXPECT_EQ(j["prover"], "no counterexample");
  ASSERT_EQ(j["proof"].size(), 4u);
  for (const auto& e : j["proof"]) EXPECT_TRUE(e["proven"].get<bool>()) << e.dump();

  std::string text = slurp(dir / "k.s");
  std::size_t n = 0;
  for (const char* at : {"v_add_f32_e32 v4, v8, v12", "v_add_f32_e32 v4, v7, v11"}) {
    const std::size_t p = text.find(at);
    ASSERT_NE(p, std::string::npos) << at;
    text.insert(text.find('\n', p) + 1, "\tv_mov_b32_e32 v20, 0\n");
    ++n;
  }
  ASSERT_EQ(n, 2u);
  std::ofstream(dir / "dead.s") << text;
  const fs::path dead = dir / "dead.co";
  auto a = cli("assemble " + shell_quote(dir / "dead.s") + " -o " + shell_quote(dead));
  ASSERT_EQ(a.code, 0) << a.out;
  auto plain = cli(verify(dead));
  ASSERT_EQ(plain.code, 0) << plain.out;
  EXPECT_NE(plain.out.find("the verdict rests on the runs"), std::string::npos) << plain.out;
  auto strict = cli(verify(dead, "--require-proof --receipt " + shell_quote(receipt)));
  ASSERT_EQ(strict.code, 1) << strict.out;
  EXPECT_EQ(strict.out.rfind("not equivalent (unproven): ", 0), 0u) << strict.out;
  j = Json::parse(slurp(receipt));
  EXPECT_EQ(j["rejected_by"], "unproven");
  EXPECT_TRUE(j["prover"].get<std::string>().starts_with("could not check")) << j["prover"];
  ASSERT_FALSE(j["proof"].empty());
  EXPECT_FALSE(j["proof"][0]["proven"].get<bool>());
}

TEST_F(VerifyCli, K0ThatFaultsExitsTwo) {
  // x is declared shorter than n: K0's own loads run past it.
  const fs::path lf = dir / "short.json";
  std::ofstream(lf) << R"({"kernel": "vec_add", "grid": [1], "args": [
    {"buffer": {"dtype": "f32", "count": 100}}, {"buffer": {"dtype": "f32", "count": 1000}},
    {"buffer": {"dtype": "f32", "count": 1000}}, {"scalar": {"type": "i32", "value": 1000}},
    {"null": true}, {"null": true}], "outputs": [2]})";
  auto r = cli("verify " + shell_quote(k0) + " " + shell_quote(same) + " --launch " + shell_quote(lf));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("K0 failed: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fault"), std::string::npos) << r.out;
}

}  // namespace
