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

#include "support/corpus.hpp"
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

namespace {

/// A launch file for row_sum (examples/kernels/row_sum.hip) with one shape per trip count in `trips` (the loop runs
/// cols / 64 times), `rows` rows each.
std::string row_sum_launch(const std::vector<int>& trips, int rows) {
  nlohmann::json shapes = nlohmann::json::array();
  int seed = 1;
  for (const int n : trips) {
    const int cols = 64 * n;
    shapes.push_back({{"kernel", "row_sum"}, {"grid", {rows, 1, 1}}, {"block", {64, 1, 1}},
                      {"args", {{{"buffer", {{"dtype", "f32"}, {"count", rows * cols},
                                             {"init", {{"random", {{"seed", seed++}, {"min", -1.0}, {"max", 1.0}}}}}}}},
                                {{"buffer", {{"dtype", "f32"}, {"count", rows}, {"init", "zeros"}}}},
                                {{"scalar", {{"type", "i32"}, {"value", cols}}}}}},
                      {"outputs", {1}}});
  }
  return shapes.dump(1);
}

/// `asmevo emulate --timing --json`'s modeled cycles for one shape.
double modeled(const std::string& co, const std::string& launch, int shape) {
  auto e = run("emulate " + co + " --launch " + launch + " --shape " + std::to_string(shape) + " --timing --json", false);
  EXPECT_EQ(e.code, 0) << e.out;
  return e.code == 0 ? nlohmann::json::parse(e.out)["modeled_cycles"].get<double>() : 0.0;
}

}  // namespace

// unroll and batch-loads on the project's row reduction, both targets: every factor verifies against K0 on trip
// counts 1..9 (every remainder of every factor, the unrolled loop's trip tests taken and not), and the row_sum launch
// file of the README's main job shows the modeled gain (the copies' loads in flight together).
TEST_F(ApplyCli, UnrollAndBatchLoadsVerifyOnEveryRemainderAndAreFasterOnTheRowReduction) {
  const fs::path trips = dir / "trips.json";
  std::ofstream(trips) << row_sum_launch({1, 2, 3, 4, 5, 6, 7, 8, 9}, 2);
  const std::string main_launch = std::string(ASMEVO_SOURCE_DIR) + "/examples/launch/row_sum.json";
  for (const char* tgt : {"gfx942", "gfx90a"}) {
    const std::string rk0 = (fs::path(ASMEVO_EXAMPLES_DIR) / ("row_sum." + std::string(tgt) + ".co")).string();
    const double c0 = modeled(rk0, main_launch, 0);
    for (const int f : {2, 3, 4, 8}) {
      SCOPED_TRACE(std::string(tgt) + " factor " + std::to_string(f));
      const std::string k1 = (dir / ("rs" + std::to_string(f) + tgt + ".co")).string();
      auto a = run("apply " + rk0 + " --pass unroll:factor=" + std::to_string(f) + ",batch-loads -o " + k1 + " --json", false);
      ASSERT_EQ(a.code, 0) << a.out;
      const auto j = nlohmann::json::parse(a.out);
      ASSERT_EQ(j["passes"][0]["notes"][0], "unrolled the loop at .Lrow_sum_0 by " + std::to_string(f)) << a.out;
      // K0's loop stays (it runs the remainder); added: k-1 trip tests of 3, k bodies (5 instructions on gfx942, 6 on
      // gfx90a: its 64-bit pointer step is two adds), copy k's compare and branch back, and the branch to the exit.
      const int body = std::string(tgt) == "gfx942" ? 5 : 6;
      EXPECT_EQ(j["instructions_after"].get<int>() - j["instructions_before"].get<int>(), 3 * (f - 1) + body * f + 3) << a.out;
      EXPECT_NE(j["passes"][1]["notes"][0].get<std::string>().find("hoisted " + std::to_string(f - 1) + " load(s)"),
                std::string::npos) << a.out;
      auto v = run("verify " + rk0 + " " + k1 + " --launch " + trips.string());
      EXPECT_EQ(v.code, 0) << v.out;
      EXPECT_NE(v.out.find("equivalent: K1 matches K0 on 9 shape(s)"), std::string::npos) << v.out;
      // The main job's launch file has trip counts 64..71 and 1..7: every remainder of every factor up to 8.
      auto v2 = run("verify " + rk0 + " " + k1 + " --launch " + main_launch);
      EXPECT_EQ(v2.code, 0) << v2.out;
      const double c1 = modeled(k1, main_launch, 0);
      std::printf("[row_sum %s] unroll:factor=%d,batch-loads: %.0f -> %.0f modeled cycles (%.2fx)\n", tgt, f, c0, c1, c0 / c1);
      EXPECT_LT(c1 * 1.5, c0) << "the copies' loads overlap: the 64-iteration loop should be well over 1.5x faster";
    }
  }
  // The gate wants every trip test exercised both ways: one shape whose trip count is a multiple of the factor
  // leaves the remainder paths unrun, and the verifier says so.
  const fs::path one = dir / "one.json";
  std::ofstream(one) << row_sum_launch({8}, 2);
  const std::string rk0 = (fs::path(ASMEVO_EXAMPLES_DIR) / "row_sum.gfx942.co").string();
  const std::string k1 = (dir / "rs4.co").string();
  ASSERT_EQ(run("apply " + rk0 + " --pass unroll:factor=4 -o " + k1).code, 0);
  auto v = run("verify " + rk0 + " " + k1 + " --launch " + one.string());
  EXPECT_NE(v.code, 0) << v.out;
  EXPECT_NE(v.out.find("coverage"), std::string::npos) << v.out;
  // Bad arguments name themselves.
  auto bad = run("apply " + rk0 + " --pass unroll:factor=1 -o " + (dir / "bad.co").string());
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.out.find("'factor' must be 2..16"), std::string::npos) << bad.out;
  auto nol = run("apply " + rk0 + " --pass unroll:loop=.Lnothere -o " + (dir / "bad.co").string());
  EXPECT_NE(nol.code, 0);
  EXPECT_NE(nol.out.find("no single-block loop has header label '.Lnothere'"), std::string::npos) << nol.out;
  EXPECT_FALSE(fs::exists(dir / "bad.co"));
}

// software-pipeline on the project's row reduction, both targets: every depth verifies against K0 on trip counts
// 1..16 (loops shorter than the depth run K0's loop, the others leave through every drain), and on the main job's
// launch file it is measured beside unroll + batch-loads of the same factor (both keep that many loads in flight;
// the pipeline never drains them between groups).
TEST_F(ApplyCli, SoftwarePipelineVerifiesOnEveryTripCountAndKeepsTheRowReductionsLoadsInFlight) {
  const fs::path trips = dir / "trips16.json";
  std::ofstream(trips) << row_sum_launch({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 2);
  const std::string main_launch = std::string(ASMEVO_SOURCE_DIR) + "/examples/launch/row_sum.json";
  std::printf("[row_sum] modeled cycles, main launch shape 0\n%-8s %5s %9s %10s %7s %13s %7s\n", "target", "depth", "K0",
              "pipeline", "ratio", "unroll+batch", "ratio");
  for (const char* tgt : {"gfx942", "gfx90a"}) {
    const std::string rk0 = (fs::path(ASMEVO_EXAMPLES_DIR) / ("row_sum." + std::string(tgt) + ".co")).string();
    const double c0 = modeled(rk0, main_launch, 0);
    for (const int d : {2, 4, 8}) {
      SCOPED_TRACE(std::string(tgt) + " depth " + std::to_string(d));
      const std::string k1 = (dir / ("sp" + std::to_string(d) + tgt + ".co")).string();
      auto a = run("apply " + rk0 + " --pass software-pipeline:depth=" + std::to_string(d) + " -o " + k1 + " --json", false);
      ASSERT_EQ(a.code, 0) << a.out;
      const auto j = nlohmann::json::parse(a.out);
      ASSERT_EQ(j["passes"][0]["notes"][0].get<std::string>().rfind("pipelined the loop at .Lrow_sum_0 to depth " +
                                                                     std::to_string(d), 0), 0u) << a.out;
      auto v = run("verify " + rk0 + " " + k1 + " --launch " + trips.string());
      EXPECT_EQ(v.code, 0) << v.out;
      EXPECT_NE(v.out.find("equivalent: K1 matches K0 on 16 shape(s)"), std::string::npos) << v.out;
      const std::string u1 = (dir / ("ub" + std::to_string(d) + tgt + ".co")).string();
      ASSERT_EQ(run("apply " + rk0 + " --pass unroll:factor=" + std::to_string(d) + ",batch-loads -o " + u1).code, 0);
      const double c1 = modeled(k1, main_launch, 0), cu = modeled(u1, main_launch, 0);
      std::printf("%-8s %5d %9.0f %10.0f %6.2fx %13.0f %6.2fx\n", tgt, d, c0, c1, c0 / c1, cu, c0 / cu);
      if (d >= 4) EXPECT_LT(c1 * 1.5, c0) << "depth " << d << " keeps that many loads in flight: well over 1.5x";
    }
  }
}

// An edit script may bring control flow of its own (insert_code): a region with a fresh label is applied and
// verifies; one that reuses a label is rejected with its pointer and writes nothing.
TEST_F(ApplyCli, EditScriptInsertCodeAddsARegionAndRejectsAReusedLabel) {
  const std::string rk0 = (fs::path(ASMEVO_EXAMPLES_DIR) / "row_sum.gfx942.co").string();
  auto dis = run("disasm " + rk0, false);
  ASSERT_EQ(dis.code, 0);
  // The loop's first instruction follows its label.
  const std::regex loop_head("\n\\.Lrow_sum_0:\n[^\n]*; (i[0-9]+)\n");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dis.out, m, loop_head)) << dis.out;
  const std::string at = m[1];
  const fs::path good = dir / "good.json", bad = dir / "bad.json";
  std::ofstream(good) << R"({"kernel": "row_sum", "edits": [{"op": "insert_code", "at": ")" << at
                      << R"(", "code": [".Lmine:", "s_nop 0", "s_branch .Lrow_sum_0"]}]})";
  std::ofstream(bad) << R"({"kernel": "row_sum", "edits": [{"op": "insert_code", "at": ")" << at
                     << R"(", "code": [".Lrow_sum_0:", "s_nop 0"]}]})";
  const std::string k1 = (dir / "good.co").string(), k2 = (dir / "bad.co").string();
  auto a = run("apply " + rk0 + " --edits " + good.string() + " -o " + k1);
  ASSERT_EQ(a.code, 0) << a.out;
  const std::string main_launch = std::string(ASMEVO_SOURCE_DIR) + "/examples/launch/row_sum.json";
  auto v = run("verify " + rk0 + " " + k1 + " --launch " + main_launch);
  EXPECT_EQ(v.code, 0) << v.out;
  auto b = run("apply " + rk0 + " --edits " + bad.string() + " -o " + k2);
  EXPECT_EQ(b.code, 2) << b.out;
  EXPECT_NE(b.out.find("/edits/0: insert_code i"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("label '.Lrow_sum_0' is not new"), std::string::npos) << b.out;
  EXPECT_FALSE(fs::exists(k2));
}

// specialize on the corpus, as a user runs it (issue 28: it fires on the level-2 convolution epilogues and on the
// reductions): each kernel is versioned on its launch file -- the workgroup ids below the grid (Triton's `pid < N`
// checks; these kernels have no hidden arguments, so the grid itself cannot be read) and full waves -- and the K1
// verifies: the verifier proves the fallback is K0's code and runs the copy on the launch and on perturbed launches.
// The modeled cycles before and after are printed (the gate, not this test, decides whether a version is kept).
TEST_F(ApplyCli, SpecializeVersionsTheConvolutionEpiloguesAndTheReductionsAndTheyVerify) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const fs::path dir_id = corpus / "inductor-dev";
  for (const char* k : {"L2_conv_mish_mish.k1", "L2_conv_relu_hardswish.k1", "L1_log_softmax.k0", "L1_mse_loss.k0",
                        "L1_l1norm.k0"}) {
    SCOPED_TRACE(k);
    const std::string co = (dir_id / (std::string(k) + ".gfx942.hsaco")).string();
    const std::string launch = (dir_id / (std::string(k) + ".json")).string();
    const std::string k1 = (dir / (std::string(k) + ".co")).string();
    auto a = run("apply " + co + " --pass specialize --launch " + launch + " -o " + k1 + " --json", false);
    ASSERT_EQ(a.code, 0) << a.out;
    const auto j = nlohmann::json::parse(a.out);
    const std::string note = j["passes"][0]["notes"][0];
    EXPECT_EQ(note.find("specialized "), 0u) << note;
    EXPECT_NE(note.find("workgroup id"), std::string::npos) << note;
    const fs::path receipt = dir / (std::string(k) + ".receipt.json");
    auto v = run("verify " + co + " " + k1 + " --launch " + launch + " --receipt " + receipt.string());
    EXPECT_EQ(v.code, 0) << v.out;
    const auto r = nlohmann::json::parse(slurp(receipt));
    ASSERT_TRUE(r["versioning"].is_object()) << r["versioning"].dump();
    const auto& vk = r["versioning"].begin().value();
    EXPECT_EQ(vk["fallback"].get<std::string>().find("K0's code, unchanged"), 0u) << vk.dump();
    EXPECT_EQ(vk["copy_ran"], true) << vk.dump();
    EXPECT_FALSE(vk["perturbations"].empty()) << vk.dump();
    std::printf("[specialize %s] %s; modeled cycles %.0f -> %.0f\n", k, note.c_str(), modeled(co, launch, 0),
                modeled(k1, launch, 0));
  }
  // The convolution's other kernels: k0 folds too little to pay for its guard, and says so.
  auto a = run("apply " + (dir_id / "L2_conv_mish_mish.k0.gfx942.hsaco").string() + " --pass specialize --launch " +
                   (dir_id / "L2_conv_mish_mish.k0.json").string() + " -o " + (dir / "k0.co").string() + " --json",
               false);
  ASSERT_EQ(a.code, 0) << a.out;
  EXPECT_NE(nlohmann::json::parse(a.out)["passes"][0]["notes"][0].get<std::string>().find("saves less than its guard costs"),
            std::string::npos) << a.out;
}
