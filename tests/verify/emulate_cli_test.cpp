// `asmevo emulate` as a user runs it (DESIGN.md "CLI contract"): a clean run says ok and exits 0; --json fields;
// --dump writes each buffer argument's bytes (checked against a host reference from inputs this test writes
// itself); a fault exits 1 with the stop; a malformed launch spec or a missing file exits 2 naming what and where;
// --dump never overwrites an input; --coverage lists every mnemonic of the target with a status; --timing reports
// modeled cycles; an edit that breaks a wait-state rule stops with the hazard unless --no-hazards.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/ir/gen/isa_tables.hpp"
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

/// Runs the built CLI with `args`; stderr is folded into `out` unless `stdout_only`.
Run cli(const std::string& args, bool stdout_only = false) {
  const std::string cmd = std::string(ASMEVO_CLI) + " " + args + (stdout_only ? " 2>/dev/null" : "");
  const auto r = asmevo::test::run_command(cmd, !stdout_only);
  return {r.status >= 0 && WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, r.out};
}

fs::path kernels(const std::string& target = "gfx942") {
  return fs::path(ASMEVO_EXAMPLES_DIR) / ("emu_kernels." + target + ".co");
}

std::vector<float> random_floats(std::size_t n, std::uint32_t seed, float lo, float hi) {
  // A small LCG (Numerical Recipes constants): the inputs only need to be fixed and varied, not good randomness.
  std::vector<float> v(n);
  std::uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>(s >> 8) * 0x1p-24f;
  }
  return v;
}

template <class T>
void write_bin(const fs::path& p, const std::vector<T>& v) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}

template <class T>
std::vector<T> read_bin(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<T> v(s.size() / sizeof(T));
  std::memcpy(v.data(), s.data(), v.size() * sizeof(T));
  return v;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class EmulateCli : public ::testing::Test {
 protected:
  fs::path dir;
  static constexpr std::uint32_t n = 1000, len = 1017;  // n not a multiple of the block; buffers longer than n
  static constexpr float a = 2.5f;
  std::vector<float> x, y;

  void SetUp() override {
    ASSERT_TRUE(fs::exists(kernels())) << kernels() << " (built by the example_kernels target)";
    dir = fs::temp_directory_path() / ("asmevo_emucli_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "in");
    x = random_floats(len, 1, -4, 4);
    y = random_floats(len, 2, -4, 4);
    write_bin(dir / "in" / "x.bin", x);
    write_bin(dir / "in" / "y.bin", y);
  }
  void TearDown() override { fs::remove_all(dir); }

  fs::path write(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
    return p;
  }
  /// saxpy over the file inputs (paths relative to the spec's folder, dir/in).
  fs::path saxpy_spec(const std::string& name = "saxpy.json") {
    return write(dir / "in" / name, R"({"kernel": "saxpy", "grid": [4], "block": [256],
      "args": [{"scalar": {"type": "f32", "value": 2.5}},
               {"buffer": {"dtype": "f32", "count": 1017, "init": {"file": "x.bin"}}},
               {"buffer": {"dtype": "f32", "count": 1017, "init": {"file": "y.bin"}}},
               {"scalar": {"type": "i32", "value": 1000}}]})");
  }
  /// collatz writing 1100 results into a 1000-element buffer.
  fs::path oob_spec() {
    return write(dir / "in" / "oob.json", R"({"kernel": "collatz", "grid": [5], "block": [256],
      "args": [{"buffer": {"dtype": "u32", "count": 1100, "init": {"iota": {"start": 1, "step": 1}}}},
               {"buffer": {"dtype": "u32", "count": 1000}},
               {"scalar": {"type": "i32", "value": 1100}},
               {"scalar": {"type": "u32", "value": 100}}]})");
  }
  /// y after saxpy, computed on the host: fma for i < n, unchanged past n.
  std::vector<float> want_y() const {
    auto w = y;
    for (std::uint32_t i = 0; i < n; ++i) w[i] = std::fma(a, x[i], y[i]);
    return w;
  }
};

TEST_F(EmulateCli, CleanRunSaysOk) {
  auto r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(saxpy_spec()));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\nok\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("saxpy: 4 workgroup(s), 16 wave(s)"), std::string::npos) << r.out;
}

TEST_F(EmulateCli, JsonFields) {
  auto r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(saxpy_spec()) + " --json --seed 7", true);
  ASSERT_EQ(r.code, 0) << r.out;
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j.value("kernel", ""), "saxpy");
  EXPECT_EQ(j.value("ok", false), true);
  EXPECT_FALSE(j.contains("stop"));
  EXPECT_EQ(j.value("workgroups", 0), 4);
  EXPECT_EQ(j.value("waves", 0), 16);  // 4 workgroups of 256 work-items = 4 waves each
  EXPECT_GT(j.value("wave_instructions", 0), 16 * 5);
  EXPECT_EQ(j.value("seed", 0), 7);
  EXPECT_EQ(j.value("completion", ""), "adversarial");
  ASSERT_TRUE(j["buffers"].is_array());
  ASSERT_EQ(j["buffers"].size(), 2u);
  EXPECT_EQ(j["buffers"][0].value("arg", 0), 1);
  EXPECT_EQ(j["buffers"][1].value("arg", 0), 2);
  for (const auto& b : j["buffers"]) {
    EXPECT_EQ(b.value("bytes", 0), len * 4);
    EXPECT_GT(b.value("address", std::uint64_t{0}), 0u);
  }
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(saxpy_spec()) + " --json --eager", true);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(Json::parse(r.out, nullptr, false).value("completion", ""), "eager") << r.out;
}

// --timing adds the cost model's report (DESIGN.md CLI contract: `modeled_cycles`), consistent with its own
// per-instruction rows; without it there is none. A grid of more workgroups than the device has CUs costs more.
TEST_F(EmulateCli, TimingReportsModeledCycles) {
  auto r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(saxpy_spec()) + " --json", true);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(Json::parse(r.out, nullptr, false).contains("modeled_cycles")) << r.out;

  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(saxpy_spec()) + " --json --timing --seed 3",
          true);
  ASSERT_EQ(r.code, 0) << r.out;
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_TRUE(j.contains("modeled_cycles")) << r.out;
  const auto cycles = j["modeled_cycles"].get<std::uint64_t>();
  EXPECT_GT(cycles, 0u);
  const Json& t = j["timing"];
  EXPECT_EQ(t.value("modeled", false), true);
  EXPECT_EQ(t.value("target", ""), "gfx942");
  EXPECT_GE(t.value("waves_per_simd", 0), 1);
  ASSERT_TRUE(t["instructions"].is_array());
  ASSERT_FALSE(t["instructions"].empty());
  // Each row's issue and stall cycles add up to the total the report gives; every executed instruction is listed
  // once, and the rows account for at most the launch's wave-instructions (one CU's share is modeled).
  std::uint64_t sum = 0, executions = 0;
  std::set<std::string> ids;
  for (const auto& row : t["instructions"]) {
    sum += row.value("issue", std::uint64_t{0}) + row.value("stall_waitcnt", std::uint64_t{0}) +
           row.value("stall_dependency", std::uint64_t{0}) + row.value("stall_barrier", std::uint64_t{0}) +
           row.value("stall_resource", std::uint64_t{0});
    EXPECT_GE(row.value("issue", std::uint64_t{0}), row.value("executions", std::uint64_t{0})) << row;
    executions += row.value("executions", std::uint64_t{0});
    EXPECT_TRUE(ids.insert(row.value("id", "")).second) << "listed twice: " << row;
  }
  EXPECT_EQ(sum, t.value("wave_cycles", std::uint64_t{0}));
  EXPECT_GT(executions, 0u);
  EXPECT_LE(executions, j.value("wave_instructions", std::uint64_t{0}));
  // Hot windows name executed instructions and their shares add up to at most all of the time.
  double shares = 0;
  ASSERT_TRUE(t["hot_windows"].is_array());
  EXPECT_FALSE(t["hot_windows"].empty());
  for (const auto& h : t["hot_windows"]) {
    EXPECT_TRUE(ids.count(h.value("first", ""))) << h;
    EXPECT_TRUE(ids.count(h.value("last", ""))) << h;
    EXPECT_LE(h.value("cycles", std::uint64_t{0}), sum) << h;
    shares += h.value("share", 0.0);
  }
  EXPECT_LE(shares, 1.0 + 1e-9);

  // The text report says the same number.
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(saxpy_spec()) + " --timing --seed 3");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("modeled cycles: " + std::to_string(cycles) + " "), std::string::npos) << r.out;

  // 4 workgroups put one on each of 4 CUs; 4096 workgroups over 4096 * 256 elements put 14 on every CU of the
  // device (MI300X: 304), more than one CU holds at once: the launch takes longer.
  const auto wide = write(dir / "in" / "wide.json", R"({"kernel": "saxpy", "grid": [4096], "block": [256],
      "args": [{"scalar": {"type": "f32", "value": 2.5}},
               {"buffer": {"dtype": "f32", "count": 1048576, "init": {"random": {"seed": 1, "min": -4, "max": 4}}}},
               {"buffer": {"dtype": "f32", "count": 1048576, "init": {"random": {"seed": 2, "min": -4, "max": 4}}}},
               {"scalar": {"type": "i32", "value": 1048576}}]})");
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(wide) + " --json --timing --seed 3", true);
  ASSERT_EQ(r.code, 0) << r.out;
  const Json w = Json::parse(r.out, nullptr, false);
  EXPECT_EQ(w["timing"].value("cu_share", 0), 14) << r.out.substr(0, 600);
  EXPECT_GT(w.value("modeled_cycles", std::uint64_t{0}), cycles) << r.out.substr(0, 600);
}

// --dump writes arg1.bin (x, unchanged) and arg2.bin (y after saxpy); the bytes match the host reference exactly
// (one fused multiply-add per element) under two seeds, eager completion, and every target.
TEST_F(EmulateCli, DumpWritesTheBuffers) {
  const auto want = want_y();
  for (const char* t : {"gfx90a", "gfx942", "gfx950"}) {
    if (!fs::exists(kernels(t))) continue;
    for (const char* flags : {"--seed 1", "--seed 2", "--eager"}) {
      SCOPED_TRACE(std::string(t) + " " + flags);
      const fs::path out = dir / (std::string("out_") + t + flags[2]);
      auto r = cli("emulate " + shell_quote(kernels(t)) + " --launch " + shell_quote(saxpy_spec()) + " --dump " +
                   shell_quote(out) + " " + flags);
      ASSERT_EQ(r.code, 0) << r.out;
      EXPECT_NE(r.out.find("wrote " + (out / "arg2.bin").string()), std::string::npos) << r.out;
      EXPECT_FALSE(fs::exists(out / "arg0.bin"));  // a scalar argument has no buffer
      EXPECT_FALSE(fs::exists(out / "arg3.bin"));
      const auto got_x = read_bin<float>(out / "arg1.bin");
      const auto got_y = read_bin<float>(out / "arg2.bin");
      ASSERT_EQ(got_x.size(), len);
      ASSERT_EQ(got_y.size(), len);
      EXPECT_EQ(std::memcmp(got_x.data(), x.data(), len * 4), 0) << "x changed";
      std::size_t bad = 0;
      for (std::uint32_t i = 0; i < len; ++i)
        if (std::bit_cast<std::uint32_t>(got_y[i]) != std::bit_cast<std::uint32_t>(want[i]) && bad++ < 5)
          ADD_FAILURE() << "y[" << i << "] = " << got_y[i] << ", expected " << want[i];
      EXPECT_EQ(bad, 0u);
    }
  }
}

TEST_F(EmulateCli, FaultExitsOneWithTheStop) {
  auto r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(oob_spec()));
  ASSERT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("stopped: fault at i"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lane "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("arg1"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nok\n"), std::string::npos) << r.out;

  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(oob_spec()) + " --json", true);
  ASSERT_EQ(r.code, 1) << r.out;
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j.value("ok", true), false);
  ASSERT_TRUE(j.contains("stop")) << r.out;
  const auto& s = j["stop"];
  EXPECT_EQ(s.value("kind", ""), "fault");
  EXPECT_EQ(s.value("instruction", "").rfind('i', 0), 0u) << s;
  ASSERT_TRUE(s.contains("lane")) << s;
  ASSERT_TRUE(s.contains("address")) << s;
  // The faulting address is in the guard past arg1 (1000 u32 = 4000 bytes), at the reported lane's element.
  std::uint64_t base = 0;
  for (const auto& b : j["buffers"])
    if (b.value("arg", -1) == 1) base = b.value("address", std::uint64_t{0});
  const std::uint64_t addr = s["address"].get<std::uint64_t>();
  EXPECT_GE(addr, base + 4000) << s;
  EXPECT_LT(addr, base + 4400) << s;
  EXPECT_EQ((addr - base) / 4 % 64, s["lane"].get<std::uint64_t>()) << s;
  EXPECT_NE(s.value("message", "").find("arg1"), std::string::npos) << s;
}

/// A launch file that holds an array of specs (as every Triton launch file of the tests does, and as `verify`
/// reads them) runs one of them, picked with --shape N; without it the message says how many there are.
TEST_F(EmulateCli, ArrayLaunchFilesPickAShape) {
  std::string one = R"({"kernel": "saxpy", "grid": [4], "block": [256],
      "args": [{"scalar": {"type": "f32", "value": 2.5}},
               {"buffer": {"dtype": "f32", "count": 1017, "init": {"file": "x.bin"}}},
               {"buffer": {"dtype": "f32", "count": 1017, "init": {"file": "y.bin"}}},
               {"scalar": {"type": "i32", "value": 1000}}]})";
  const auto both = write(dir / "in" / "two.json", "[" + one + ", " + one + "]");
  auto r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(both));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("holds 2 launch specs: pick one with --shape N (0..1)"), std::string::npos) << r.out;
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(both) + " --shape 1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\nok\n"), std::string::npos) << r.out;
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(both) + " --shape 2");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--shape 2"), std::string::npos) << r.out;
}

TEST_F(EmulateCli, BadInputExitsTwo) {
  // A malformed launch spec: the message names the JSON pointer of the problem.
  const auto bad = write(dir / "in" / "bad.json", R"({"kernel": "saxpy", "grid": [4],
      "args": [{"scalar": {"type": "f32", "value": 1}}, {"buffer": {"dtype": "f31", "count": 10}},
               {"buffer": {"dtype": "f32", "count": 10}}, {"scalar": {"type": "i32", "value": 10}}]})");
  auto r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(bad));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/args/1/buffer/dtype"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bad.json"), std::string::npos) << r.out;

  const auto broken = write(dir / "in" / "broken.json", "{\"kernel\": \"saxpy\",\n \"grid\": [4,\n}");
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(broken));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("broken.json"), std::string::npos) << r.out;

  // An argument list that does not match the kernel's.
  const auto short_args = write(dir / "in" / "short.json", R"({"kernel": "saxpy", "grid": [1], "args": []})");
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(short_args));
  EXPECT_EQ(r.code, 2) << r.out;

  // A grid of more workgroups than one launch can hold (the product overflows 64 bits): bad input, not a crash.
  const auto huge = write(dir / "in" / "huge.json", R"({"kernel": "saxpy", "grid": [4294967295, 4294967295, 4294967295],
      "block": [1], "args": [{"scalar": {"type": "f32", "value": 1}}, {"buffer": {"dtype": "f32", "count": 10}},
               {"buffer": {"dtype": "f32", "count": 10}}, {"scalar": {"type": "i32", "value": 10}}]})");
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(huge));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("workgroups"), std::string::npos) << r.out;

  // A kernel the object does not hold: the message lists the ones it has.
  const auto nokernel = write(dir / "in" / "nok.json", R"({"kernel": "saxpi", "grid": [1], "args": []})");
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(nokernel));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("saxpi"), std::string::npos) << r.out;

  // Missing files: the code object, the launch spec, a file init.
  r = cli("emulate " + shell_quote(dir / "nope.co") + " --launch " + shell_quote(saxpy_spec()));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("nope.co"), std::string::npos) << r.out;
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(dir / "nope.json"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("nope.json"), std::string::npos) << r.out;
  fs::remove(dir / "in" / "y.bin");
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(saxpy_spec()));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("y.bin"), std::string::npos) << r.out;

  // Usage errors.
  EXPECT_EQ(cli("emulate " + shell_quote(kernels())).code, 2);  // no --launch
  EXPECT_EQ(cli("emulate --launch " + shell_quote(saxpy_spec())).code, 2);  // no code object
}

// --dump into the folder that holds an input (a file init named arg1.bin, the launch spec, the code object) is
// refused with exit 2 and the input is left byte for byte as it was.
TEST_F(EmulateCli, DumpNeverOverwritesAnInput) {
  // A file init named like the dump of argument 1.
  fs::copy_file(dir / "in" / "x.bin", dir / "in" / "arg1.bin");
  const auto spec = write(dir / "in" / "s.json", R"({"kernel": "saxpy", "grid": [4], "block": [256],
      "args": [{"scalar": {"type": "f32", "value": 2.5}},
               {"buffer": {"dtype": "f32", "count": 1017, "init": {"file": "arg1.bin"}}},
               {"buffer": {"dtype": "f32", "count": 1017, "init": {"file": "y.bin"}}},
               {"scalar": {"type": "i32", "value": 1000}}]})");
  const std::string before = slurp(dir / "in" / "arg1.bin");
  auto r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(spec) + " --dump " + shell_quote(dir / "in"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("overwrite"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(dir / "in" / "arg1.bin"), before);
  // Refused before the run: not even the other buffers' dumps were written.
  EXPECT_FALSE(fs::exists(dir / "in" / "arg2.bin"));

  // The launch spec itself named arg2.bin.
  fs::create_directories(dir / "s2");
  fs::copy_file(saxpy_spec(), dir / "s2" / "arg2.bin");
  fs::copy_file(dir / "in" / "x.bin", dir / "s2" / "x.bin");
  fs::copy_file(dir / "in" / "y.bin", dir / "s2" / "y.bin");
  const std::string spec_text = slurp(dir / "s2" / "arg2.bin");
  r = cli("emulate " + shell_quote(kernels()) + " --launch " + shell_quote(dir / "s2" / "arg2.bin") + " --dump " +
          shell_quote(dir / "s2"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(slurp(dir / "s2" / "arg2.bin"), spec_text);

  // The code object named arg2.bin.
  fs::create_directories(dir / "k");
  fs::copy_file(kernels(), dir / "k" / "arg2.bin");
  const std::string ko = slurp(dir / "k" / "arg2.bin");
  r = cli("emulate " + shell_quote(dir / "k" / "arg2.bin") + " --launch " + shell_quote(saxpy_spec()) + " --dump " +
          shell_quote(dir / "k"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(slurp(dir / "k" / "arg2.bin"), ko);
}

// The user's loop: disassemble a Triton MFMA kernel (the fp8 block-scale GEMM), delete the s_nop that pads the last
// MFMA results before their first v_accvgpr_read, reassemble against the original, and emulate. The hazard check stops it (exit 1, the rule and
// both instructions named); --no-hazards runs the same object to the end.
TEST(EmulateCliHazards, DeletedNopStopsAndNoHazardsRunsIt) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const fs::path k0 = corpus / "triton" / "gemm_a8w8_blockscale_fp8.gfx942.hsaco";
  const fs::path dir = fs::temp_directory_path() / ("asmevo_emucli_hz_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto r = cli("disasm " + shell_quote(k0) + " -o " + shell_quote(dir / "k.s"));
  ASSERT_EQ(r.code, 0) << r.out;
  std::istringstream in(slurp(dir / "k.s"));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  auto starts = [](const std::string& l, std::string_view m) {
    const auto b = l.find_first_not_of(" \t");
    return b != std::string::npos && l.compare(b, m.size(), m) == 0;
  };
  std::size_t nop = 0;
  while (nop + 1 < lines.size() && !(starts(lines[nop], "s_nop") && starts(lines[nop + 1], "v_accvgpr_read_b32"))) ++nop;
  ASSERT_LT(nop + 1, lines.size()) << "no s_nop right before a v_accvgpr_read_b32 in " << k0;
  lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(nop));
  {
    std::ofstream out(dir / "k1.s");
    for (const auto& l : lines) out << l << "\n";
  }
  r = cli("assemble " + shell_quote(dir / "k1.s") + " -o " + shell_quote(dir / "k1.co") + " --original " +
          shell_quote(k0));
  ASSERT_EQ(r.code, 0) << r.out;

  // M = 64, N = K = 256: fp8 A and B, f32 block scales (K / 128 = 2 per row of A and per 128 columns of B),
  // bf16 C; then the sizes and strides and Triton's two null pointers.
  auto fp8 = [](int count, int seed) {
    return R"({"buffer": {"dtype": "fp8e4m3fnuz", "count": )" + std::to_string(count) +
           R"(, "init": {"random": {"seed": )" + std::to_string(seed) + R"(, "min": -4, "max": 4}}}})";
  };
  auto scales = [](int count, int seed) {
    return R"({"buffer": {"dtype": "f32", "count": )" + std::to_string(count) + R"(, "init": {"random": {"seed": )" +
           std::to_string(seed) + R"(, "min": 0.5, "max": 2}}}})";
  };
  auto i32 = [](int v) { return R"({"scalar": {"type": "i32", "value": )" + std::to_string(v) + "}}"; };
  std::ofstream(dir / "launch.json") << R"({"grid": [1, 2], "args": [)" + fp8(64 * 256, 1) + "," + fp8(256 * 256, 2) +
                                            R"(, {"buffer": {"dtype": "bf16", "count": 16384, "init": "zeros"}},)" +
                                            scales(128, 3) + "," + scales(4, 4) + "," + i32(64) + "," + i32(256) + "," +
                                            i32(256) + "," + i32(256) + "," + i32(256) + "," + i32(256) + "," + i32(2) +
                                            "," + i32(2) + R"(, {"null": true}, {"null": true}]})";
  const std::string launch = " --launch " + shell_quote(dir / "launch.json");
  r = cli("emulate " + shell_quote(k0) + launch + " --json", true);
  EXPECT_EQ(r.code, 0) << "the kernel as compiled is clean: " << r.out.substr(0, 1000);

  r = cli("emulate " + shell_quote(dir / "k1.co") + launch + " --json", true);
  ASSERT_EQ(r.code, 1) << r.out.substr(0, 1000);
  const Json j = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out.substr(0, 1000);
  ASSERT_TRUE(j.contains("stop")) << r.out.substr(0, 1000);
  const auto& s = j["stop"];
  EXPECT_EQ(s.value("kind", ""), "hazard violation") << s;
  // The stop names the consumer and its producer as instruction ids, the message names them too.
  const std::string cons = s.value("instruction", ""), prod = s.value("producer", "");
  ASSERT_EQ(cons.rfind('i', 0), 0u) << s;
  ASSERT_EQ(prod.rfind('i', 0), 0u) << s;
  const std::string msg = s.value("message", "");
  EXPECT_NE(msg.find("xdl_write_valu_mem_read"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(v_accvgpr_read_b32)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(v_mfma_f32_32x32x16_fp8_fp8"), std::string::npos) << msg;
  EXPECT_EQ(msg.rfind(cons + " (", 0), 0u) << msg;
  EXPECT_NE(msg.find(" after " + prod + " ("), std::string::npos) << msg;

  r = cli("emulate " + shell_quote(dir / "k1.co") + launch + " --json --no-hazards", true);
  EXPECT_EQ(r.code, 0) << r.out.substr(0, 1000);
  fs::remove_all(dir);
}

TEST(EmulateCliCoverage, ListsEveryMnemonicWithAStatus) {
  for (const char* t : {"gfx942", "gfx90a", "gfx950"}) {
    SCOPED_TRACE(t);
    auto r = cli(std::string("emulate --coverage --mcpu ") + t + " --json", true);
    ASSERT_EQ(r.code, 0) << r.out.substr(0, 2000);
    Json j = Json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out.substr(0, 2000);
    EXPECT_EQ(j.value("target", ""), t);
    ASSERT_TRUE(j["opcodes"].is_array());
    std::size_t counts[3] = {0, 0, 0};
    std::set<std::string> listed;
    for (const auto& e : j["opcodes"]) {
      const std::string st = e.value("status", "");
      if (st == "exact") ++counts[0];
      else if (st == "approximate") {
        ++counts[1];
        EXPECT_FALSE(e.value("note", "").empty()) << "an approximate opcode says what differs: " << e;
      }
      else if (st == "unsupported") ++counts[2];
      else ADD_FAILURE() << "status '" << st << "' of " << e;
      EXPECT_TRUE(listed.insert(e.value("mnemonic", "")).second) << "listed twice: " << e;
    }
    EXPECT_EQ(counts[0], j.value("exact", std::size_t{0}));
    EXPECT_EQ(counts[1], j.value("approximate", std::size_t{0}));
    EXPECT_EQ(counts[2], j.value("unsupported", std::size_t{0}));
    EXPECT_EQ(counts[0] + counts[1] + counts[2], j["opcodes"].size());
    // Every mnemonic of the target's instruction table (LLVM's records), no more.
    const auto target = std::string(t) == "gfx942" ? asmevo::Target::gfx942
                        : std::string(t) == "gfx90a" ? asmevo::Target::gfx90a : asmevo::Target::gfx950;
    std::set<std::string> table;
    for (const auto& m : asmevo::isa::mnemonics(target)) table.emplace(m.mnemonic);
    EXPECT_EQ(listed, table);
    // What the project's own kernels use is listed.
    for (const char* m : {"s_waitcnt", "global_load_dword", "v_fmac_f32", "ds_bpermute_b32", "s_barrier", "s_endpgm"})
      EXPECT_TRUE(listed.count(m)) << m;
  }
  auto r = cli("emulate --coverage --mcpu gfx942");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("gfx942: "), std::string::npos);
  EXPECT_NE(r.out.find(" mnemonics: "), std::string::npos);
  EXPECT_EQ(cli("emulate --coverage").code, 2);                   // no --mcpu
  EXPECT_EQ(cli("emulate --coverage --mcpu gfx1100").code, 2);    // not a target of asmevo
}

}  // namespace
