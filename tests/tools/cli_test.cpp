// The asmevo CLI as a user runs it: exit codes, messages that name what and where, JSON output, and files
// (outputs written whole, inputs never overwritten).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
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
  // `VERB --help` prints that verb's entry of the usage text, not an unknown-option error.
  auto h = run("verify --help");
  EXPECT_EQ(h.code, 0) << h.out;
  EXPECT_NE(h.out.find("verify K0.co K1.co --launch L.json"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("--no-refute"), std::string::npos) << h.out;  // its continuation lines too
  EXPECT_EQ(h.out.find("  fmt "), std::string::npos) << h.out;       // and no other verb
}

}  // namespace

// ---- code objects: inspect, disasm, assemble, roundtrip ---------------------------------------------------------

namespace {

std::string example_object(const char* target) {
  return (fs::path(ASMEVO_EXAMPLES_DIR) / (std::string("vec_add.") + target + ".co")).string();
}

std::string slurp_bin(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_F(Cli, InspectJsonNamesKernelsDescriptorsAndArgs) {
  auto r = run_stdout("inspect " + example_object("gfx942") + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["target"], "gfx942");
  std::set<std::string> names;
  for (const auto& k : j["kernels"]) {
    names.insert(k["name"].get<std::string>());
    EXPECT_TRUE(k["descriptor"].contains("compute_pgm_rsrc1.granulated_workitem_vgpr_count"));
    EXPECT_TRUE(k["metadata"].contains(".args"));
  }
  EXPECT_EQ(names, (std::set<std::string>{"vec_add", "saxpy_fma", "row_sum", "poly_eval"}));
  auto t = run_stdout("inspect " + example_object("gfx942"));
  ASSERT_EQ(t.code, 0);
  EXPECT_NE(t.out.find("kernel vec_add"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("kernarg segment"), std::string::npos) << t.out;
}

TEST_F(Cli, DisasmAssembleRoundtrip) {
  const std::string k0 = example_object("gfx90a");
  const std::string s = (dir / "k.s").string(), k1 = (dir / "k1.co").string();
  auto d = run("disasm " + k0 + " -o " + s);
  ASSERT_EQ(d.code, 0) << d.out;
  const std::string text = slurp(s);
  EXPECT_NE(text.find(".amdhsa_kernel vec_add"), std::string::npos);
  EXPECT_NE(text.find(".amdgpu_metadata"), std::string::npos);
  EXPECT_NE(text.find("; i0"), std::string::npos) << "instructions carry their stable ids";
  auto a = run("assemble " + s + " -o " + k1);
  ASSERT_EQ(a.code, 0) << a.out;
  EXPECT_NE(a.out.find("relinked"), std::string::npos) << a.out;
  // The rebuilt object describes the same kernels as K0 (descriptor fields, metadata), and roundtrips itself.
  auto i0 = run_stdout("inspect " + k0 + " --json"), i1 = run_stdout("inspect " + k1 + " --json");
  ASSERT_EQ(i0.code, 0);
  ASSERT_EQ(i1.code, 0);
  EXPECT_EQ(nlohmann::json::parse(i0.out)["kernels"], nlohmann::json::parse(i1.out)["kernels"]);
  auto rt = run("roundtrip " + k1 + " --json", false);
  ASSERT_EQ(rt.code, 0) << rt.out;
  EXPECT_TRUE(nlohmann::json::parse(rt.out)["identical"].get<bool>());
  auto rt0 = run("roundtrip " + k0);
  EXPECT_EQ(rt0.code, 0) << rt0.out;
  EXPECT_NE(rt0.out.find("roundtrip identical"), std::string::npos);
}

// A mergeable section (flags M, as Triton's `.debug_str` "MS") needs its entry size after the type in `.section`; a
// disassembly without it did not assemble again (seen on a Triton gfx942 object with line info).
TEST_F(Cli, MergeableSectionsKeepTheirEntrySize) {
  const std::string k0 = example_object("gfx942");
  const std::string s = (dir / "k.s").string(), k1 = (dir / "k1.co").string(), s1 = (dir / "k1.s").string();
  ASSERT_EQ(run("disasm " + k0 + " -o " + s).code, 0);
  std::ofstream(s, std::ios::app) << "\n\t.section .debug_str,\"MS\",@progbits,1\n\t.asciz \"asmevo\"\n";
  auto a = run("assemble " + s + " -o " + k1);
  ASSERT_EQ(a.code, 0) << a.out;
  ASSERT_EQ(run("disasm " + k1 + " -o " + s1).code, 0);
  EXPECT_NE(slurp(s1).find(".section .debug_str,\"MS\",@progbits,1"), std::string::npos) << slurp(s1);
  auto rt = run("roundtrip " + k1);
  EXPECT_EQ(rt.code, 0) << rt.out;
  EXPECT_NE(rt.out.find("roundtrip identical"), std::string::npos) << rt.out;
}

TEST_F(Cli, AssembleWithOriginalPatchesInPlaceAndSaysSo) {
  const std::string k0 = example_object("gfx942");
  const std::string s = (dir / "k.s").string(), k1 = (dir / "k1.co").string();
  ASSERT_EQ(run("disasm " + k0 + " -o " + s).code, 0);
  // A size-neutral edit: the first s_endpgm becomes s_nop 7 (both 4 bytes).
  std::string text = slurp(s);
  const auto at = text.find("\ts_endpgm");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 9, "\ts_nop 7");
  write("k.s", text);
  auto a = run("assemble " + s + " -o " + k1 + " --original " + k0 + " --json", false);
  ASSERT_EQ(a.code, 0) << a.out;
  auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["path"], "in-place patch") << a.out;
  const std::string b0 = slurp_bin(k0), b1 = slurp_bin(k1);
  ASSERT_EQ(b0.size(), b1.size());
  std::size_t diff = 0;
  for (std::size_t i = 0; i < b0.size(); ++i) diff += b0[i] != b1[i];
  EXPECT_GE(diff, 1u);
  EXPECT_LE(diff, 4u);
  // Growing the code cannot be patched: the tool relinks and says why.
  text.replace(text.find("\ts_nop 7"), 8, "\ts_nop 7\n\ts_nop 0");
  write("k.s", text);
  auto g = run("assemble " + s + " -o " + k1 + " --original " + k0);
  ASSERT_EQ(g.code, 0) << g.out;
  EXPECT_NE(g.out.find("relinked (no in-place patch"), std::string::npos) << g.out;
}

TEST_F(Cli, AbiChangeIsRefused) {
  const std::string k0 = example_object("gfx942");
  const std::string s = (dir / "k.s").string();
  ASSERT_EQ(run("disasm " + k0 + " -o " + s).code, 0);
  std::string text = slurp(s);
  // Ask the hardware for work-item ids in y and z too (v1, v2): the descriptor agrees with the metadata either
  // way, but what the kernel receives at launch changes.
  const auto at = text.find(".amdhsa_system_vgpr_workitem_id ");
  ASSERT_NE(at, std::string::npos);
  const auto eol = text.find('\n', at);
  text.replace(at, eol - at, ".amdhsa_system_vgpr_workitem_id 2");
  write("k.s", text);
  auto a = run("assemble " + s + " -o " + (dir / "k1.co").string() + " --original " + k0);
  EXPECT_EQ(a.code, 2) << a.out;
  EXPECT_NE(a.out.find("kernel 'vec_add': descriptor"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("workitem id enables changed"), std::string::npos) << a.out;
  EXPECT_FALSE(fs::exists(dir / "k1.co")) << "a refused edit writes no output";
}

TEST_F(Cli, BadCodeObjectsAreNamedNotCrashed) {
  const std::string k0 = slurp_bin(example_object("gfx942"));
  // Truncated in the middle of the section headers, a wrong machine, garbage.
  write("trunc.co", k0.substr(0, k0.size() - 100));
  std::string wrong = k0;
  wrong[18] = 62;  // e_machine = EM_X86_64
  write("wrong.co", wrong);
  write("garbage.co", std::string(300, '\x7f'));
  for (const char* f : {"trunc.co", "wrong.co", "garbage.co"})
    for (const char* verb : {"inspect", "disasm", "roundtrip"}) {
      auto r = run(std::string(verb) + " " + (dir / f).string());
      EXPECT_EQ(r.code, 2) << verb << " " << f << ": " << r.out;
      EXPECT_NE(r.out.find(f), std::string::npos) << "the message names the file: " << r.out;
    }
  EXPECT_NE(run("inspect " + (dir / "wrong.co").string()).out.find("e_machine"), std::string::npos);
  EXPECT_NE(run("inspect " + (dir / "trunc.co").string()).out.find("past"), std::string::npos);
  // The input is never overwritten.
  const std::string k = (dir / "k.co").string();
  write("k.co", k0);
  auto r = run("disasm " + k + " -o " + k);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(slurp_bin(k), k0);
}

TEST_F(Cli, AssembleWithoutTargetDirectiveSaysWhatIsMissing) {
  auto r = run("assemble " + write("t.s", "\t.text\nk:\n\ts_endpgm\n") + " -o " + (dir / "t.co").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(".amdgcn_target"), std::string::npos) << r.out;
}

}  // namespace
