// `asmevo passes` and `asmevo apply` as a user runs them: every pass applied to the project's own kernels rebuilds and
// verifies equivalent with `asmevo verify`; a bad edit script is rejected whole, with pointers, and writes nothing;
// --dry-run prints a diff; inputs are never overwritten.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/process.hpp"

namespace {

namespace fs = std::filesystem;

struct Run {
  int code = -1;
  std::string out;
};

/// Runs the CLI (tests/support/process.hpp); `with_stderr` folds standard error into the output.
Run run(const std::string& args, bool with_stderr = true) {
  const auto r = asmevo::test::run_command(std::string(ASMEVO_CLI) + " " + args + (with_stderr ? "" : " 2>/dev/null"), with_stderr);
  return Run{WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, r.out};
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ApplyCli : public ::testing::Test {
 protected:
  fs::path dir;
  std::string k0 = (fs::path(ASMEVO_EXAMPLES_DIR) / "vec_add.gfx942.co").string();
  std::string launch = std::string(ASMEVO_SOURCE_DIR) + "/examples/launch/vec_add.json";
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("asmevo_apply_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(ApplyCli, PassesListsEveryPassWithOneLine) {
  auto r = run("passes", false);
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* p : {"waitcnt-min", "nop-min", "hazard-fix", "dce", "vgpr-compact", "load-widen"})
    EXPECT_NE(r.out.find(std::string(p) + "  "), std::string::npos) << p << "\n" << r.out;
  auto j = run("passes --json", false);
  ASSERT_EQ(j.code, 0);
  EXPECT_GE(nlohmann::json::parse(j.out).size(), 6u);
}

TEST_F(ApplyCli, EveryPassRebuildsAndVerifiesEquivalentOnTheProjectKernels) {
  auto list = nlohmann::json::parse(run("passes --json", false).out);
  for (const auto& p : list) {
    const std::string name = p["name"];
    const std::string k1 = (dir / (name + ".co")).string();
    // The launch file runs vec_add only, so only vec_add is transformed (verify refuses a K1 whose other kernels
    // changed without a launch that runs them).
    auto a = run("apply " + k0 + " --pass " + name + " --kernel vec_add -o " + k1 + " --json", false);
    ASSERT_EQ(a.code, 0) << name << ": " << a.out;
    const auto j = nlohmann::json::parse(a.out);
    EXPECT_TRUE(j["applied"].get<bool>());
    EXPECT_LE(j["instructions_after"].get<int>() - j["instructions_before"].get<int>(), name == "hazard-fix" ? 1000 : 0) << name;
    auto v = run("verify " + k0 + " " + k1 + " --launch " + launch);
    EXPECT_EQ(v.code, 0) << name << ": " << v.out;
    EXPECT_NE(v.out.find("equivalent"), std::string::npos) << v.out;
  }
}

TEST_F(ApplyCli, WithTheLaunchEveryPassKeepsToExercisedCodeAndVerifies) {
  // No --kernel: the launch runs vec_add only, so --launch keeps each pass off the other kernels' code (which the
  // verifier would refuse as unexercised) and every K1 verifies.
  auto list = nlohmann::json::parse(run("passes --json", false).out);
  for (const auto& p : list) {
    const std::string name = p["name"];
    const std::string k1 = (dir / (name + ".co")).string();
    auto a = run("apply " + k0 + " --pass " + name + " --launch " + launch + " -o " + k1);
    ASSERT_EQ(a.code, 0) << name << ": " << a.out;
    EXPECT_NE(a.out.find("the launch exercises "), std::string::npos) << a.out;
    auto v = run("verify " + k0 + " " + k1 + " --launch " + launch);
    EXPECT_EQ(v.code, 0) << name << ": " << v.out;
  }
  // An edit of a kernel the launch does not run is refused with its pointer; nothing is written.
  auto dis = run("disasm " + k0, false);
  std::string other;
  const std::regex label_then_id("\n([A-Za-z_][A-Za-z0-9_]*):\n[^\n]*; (i[0-9]+)\n");
  for (std::sregex_iterator it(dis.out.begin(), dis.out.end(), label_then_id), end; it != end; ++it)
    if ((*it)[1] != "vec_add" && (*it)[1].str().find("vec_add") == std::string::npos) other = (*it)[2];
  ASSERT_FALSE(other.empty()) << "the project's object should hold a kernel besides vec_add";
  const fs::path script = dir / "cold.json", k1 = dir / "cold.co";
  std::ofstream(script) << R"({"edits": [{"op": "insert_before", "at": ")" << other << R"(", "insts": ["s_nop 0"]}]})";
  auto r = run("apply " + k0 + " --edits " + script.string() + " --launch " + launch + " -o " + k1.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/edits/0/at: " + other + " lies in code the launch does not exercise"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(k1));
}

TEST_F(ApplyCli, BadScriptIsRejectedWholeWithPointersAndWritesNothing) {
  const fs::path script = dir / "e.json", k1 = dir / "k1.co";
  std::ofstream(script) << R"({"edits": [{"op": "delete", "at": "i0"}, {"op": "explode", "at": "i1"},
                                         {"op": "replace", "at": "i2", "with": ["v_add_u32 v1"]}]})";
  const std::string before = slurp(k0);
  auto r = run("apply " + k0 + " --edits " + script.string() + " -o " + k1.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/edits/1/op: unknown op \"explode\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/edits/2/with/0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nothing was applied"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(k1));
  EXPECT_EQ(slurp(k0), before);
  std::ofstream(script) << "{\"edits\": [";
  auto bad_json = run("apply " + k0 + " --edits " + script.string() + " -o " + k1.string());
  EXPECT_EQ(bad_json.code, 2);
  EXPECT_NE(bad_json.out.find("not valid JSON"), std::string::npos) << bad_json.out;
}

TEST_F(ApplyCli, DryRunPrintsTheDiffAndWritesNothing) {
  // An extra s_nop before the first instruction of the first kernel: a one-line insertion in the diff.
  auto dis = run("disasm " + k0, false);
  ASSERT_EQ(dis.code, 0);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dis.out, m, std::regex("\nvec_add:\n[^\n]*; (i[0-9]+)\n"))) << dis.out.substr(0, 2000);
  const std::string id = m[1];
  const fs::path script = dir / "e.json";
  std::ofstream(script) << R"({"kernel": "vec_add", "edits": [{"op": "insert_before", "at": ")" << id
                        << R"(", "insts": ["s_nop 2"]}]})";
  auto r = run("apply " + k0 + " --edits " + script.string() + " --dry-run", false);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\n+\ts_nop 2 ; i"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("@@ -"), std::string::npos) << r.out;
  EXPECT_EQ(fs::directory_iterator(dir) == fs::directory_iterator(), false);  // only the script is there
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);
}

TEST_F(ApplyCli, UsageErrorsNameTheProblem) {
  EXPECT_EQ(run("apply " + k0 + " -o " + (dir / "x.co").string()).code, 2);
  EXPECT_EQ(run("apply " + k0 + " --pass dce --edits e.json -o x.co").code, 2);
  auto same = run("apply " + k0 + " --pass dce -o " + k0);
  EXPECT_EQ(same.code, 2);
  EXPECT_NE(same.out.find("would overwrite the input"), std::string::npos) << same.out;
  auto unknown = run("apply " + k0 + " --pass frob -o " + (dir / "x.co").string());
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.out.find("unknown pass 'frob'"), std::string::npos) << unknown.out;
}

}  // namespace
