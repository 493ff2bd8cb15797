// `asmevo emulate` as a user runs it (DESIGN.md "CLI contract"): a clean run says ok and exits 0; --json fields;
// --dump writes each buffer argument's bytes (checked against a host reference from inputs this test writes
// itself); a fault exits 1 with the stop; a malformed launch spec or a missing file exits 2 naming what and where;
// --dump never overwrites an input; --coverage lists every mnemonic of the target with a status.
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
