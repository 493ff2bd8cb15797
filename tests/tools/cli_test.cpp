// The asmevo CLI as a user runs it: exit codes, messages that name what and where, JSON output, and files
// (outputs written whole, inputs never overwritten).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Run {
  int code = -1;
  std::string out;  ///< stdout and stderr together
};

/// Runs the CLI; `with_stderr` folds stderr into the captured output (else it is discarded).
Run run(const std::string& args, bool with_stderr = true) {
  const std::string cmd = std::string(ASMEVO_CLI) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  Run r;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

Run run_stdout(const std::string& args) { return run(args, false); }

class Cli : public ::testing::Test {
 protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("asmevo_cli_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    const auto p = dir / name;
    std::ofstream(p) << text;
    return p.string();
  }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

const char* const kernel = R"(	.text
vec:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	v_add_f32 v0, s1, v2        ; comment kept
	s_cbranch_scc1 vec
	s_endpgm
)";

TEST_F(Cli, FmtPrintsEveryInstructionWithAnId) {
  const auto in = write("k.s", kernel);
  auto r = run_stdout("fmt " + in + " --mcpu gfx942");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("v_add_f32_e32 v0, s1, v2 ; i2 comment kept"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("s_cbranch_scc1 vec ; i3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vec:"), std::string::npos);
}

TEST_F(Cli, FmtOutputIsReadBackWithTheSameIds) {
  const auto in = write("k.s", kernel);
  const auto out = (dir / "k.fmt.s").string();
  ASSERT_EQ(run("fmt " + in + " --mcpu gfx942 -o " + out).code, 0);
  const auto out2 = (dir / "k.fmt2.s").string();
  ASSERT_EQ(run("fmt " + out + " --mcpu gfx942 -o " + out2).code, 0);
  EXPECT_EQ(slurp(out), slurp(out2));  // fmt is idempotent, ids included
}

TEST_F(Cli, FmtRefusesToOverwriteItsInput) {
  const auto in = write("k.s", kernel);
  auto r = run("fmt " + in + " --mcpu gfx942 -o " + in);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("overwrite the input"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(in), kernel);
}

TEST_F(Cli, BadLinesAreAllReportedWithFileLineAndColumn) {
  const auto in = write("bad.s", "\ts_endpgm\n\tv_add_f32 v0, v1\n\tv_bogus v1\n\tglobal_load_dwordx4 v[1:4], v[2:3], off\n");
  auto r = run("fmt " + in + " --mcpu gfx942");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("bad.s:2:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bad.s:3:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown instruction 'v_bogus'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bad.s:4:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("misaligned"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 error(s)"), std::string::npos) << r.out;
}

TEST_F(Cli, MacrosAreExpandedAndErrorsNameTheLineWritten) {
  const auto in = write("mac.s", ".macro add3 d, a\n\tv_add3_u32 \\d, \\a, \\a, \\a\n.endm\n\ts_nop 0\n\tadd3 v1, v2\n\tadd3 v1, q9\n");
  auto r = run("fmt " + in + " --mcpu gfx942");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("mac.s:2:"), std::string::npos) << r.out;           // the macro body line
  EXPECT_NE(r.out.find("in macro 'add3' at"), std::string::npos) << r.out;  // and where it was invoked
  EXPECT_NE(r.out.find("mac.s:6"), std::string::npos) << r.out;
  const auto good = write("good.s", ".macro add3 d, a\n\tv_add3_u32 \\d, \\a, \\a, \\a\n.endm\n\tadd3 v1, v2\n");
  auto ok = run_stdout("fmt " + good + " --mcpu gfx942");
  EXPECT_EQ(ok.code, 0);
  EXPECT_NE(ok.out.find("v_add3_u32 v1, v2, v2, v2 ; i0"), std::string::npos) << ok.out;
}

TEST_F(Cli, UnsupportedOnTargetNamesTheTarget) {
  const auto in = write("k.s", "\tv_mac_f32 v0, v1, v2\n");
  auto r = run("fmt " + in + " --mcpu gfx942");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("not supported on gfx942"), std::string::npos) << r.out;
  EXPECT_EQ(run("fmt " + in + " --mcpu gfx90a").code, 0);
}

TEST_F(Cli, EncodeJsonGivesLlvmBytes) {
  const auto in = write("k.s", kernel);
  auto r = run_stdout("encode " + in + " --mcpu gfx942 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 5u);
  // s_endpgm is 0xbf810000 (llvm-mc-22 -show-encoding: [0x00,0x00,0x81,0xbf]).
  EXPECT_EQ(j[4]["bytes"], (nlohmann::json::array({0x00, 0x00, 0x81, 0xbf})));
  EXPECT_EQ(j[2]["id"], "i2");
  // The branch to `vec` (offset 0) from offset 0x10: (0 - 0x10 - 4) / 4 = -5 = 0xfffb (as llvm-mc-22 encodes it).
  EXPECT_EQ(j[3]["bytes"], (nlohmann::json::array({0xfb, 0xff, 0x85, 0xbf})));
}

TEST_F(Cli, DecodeBytesAndErrors) {
  auto r = run_stdout("decode --mcpu gfx942 0x7e020280");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "v_mov_b32_e32 v1, 0\n");
  auto bad = run("decode --mcpu gfx942 0xffffffff");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("offset 0"), std::string::npos) << bad.out;
  auto junk = run("decode --mcpu gfx942 zz");
  EXPECT_EQ(junk.code, 2);
  EXPECT_NE(junk.out.find("hex"), std::string::npos) << junk.out;
}

TEST_F(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run("").code, 2);
  EXPECT_EQ(run("frobnicate").code, 2);
  const auto in = write("k.s", kernel);
  auto r = run("fmt " + in);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--mcpu"), std::string::npos);
  EXPECT_EQ(run("fmt " + in + " --mcpu gfx1100").code, 2);
  auto missing = run("fmt " + (dir / "nope.s").string() + " --mcpu gfx942");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.out.find("nope.s"), std::string::npos);
  EXPECT_EQ(run("help").code, 0);
}

}  // namespace
