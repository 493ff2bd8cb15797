// `asmevo triton list` and `asmevo optimize-dir` as a user runs them, on what Triton 3.6 left on disk for two kernels
// (the corpus's triton-cache/: a TRITON_CACHE_DIR and a TRITON_KERNEL_DUMP folder): the listing's targets,
// signatures and paths, bad entries named while the others are still listed; a capture folder built from the dump
// (and the corpus's Triton transpose, which has room to improve) optimized into a Triton override tree whose K1s
// verify, rerun without redoing a kernel, killed midway and resumed to the same bytes, and split into shards that
// merge into the very bytes of a single run; kernels whose attempts a broken linker failed are run again once it is
// mended; usage errors.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/corpus.hpp"
#include "support/process.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using asmevo::test::shell_quote;
using asmevo::test::slurp;

struct CliRun {
  int code = -1;
  std::string out;  ///< stdout, and stderr too when asked for
};

CliRun run(const std::string& args, bool with_stderr = true) {
  const auto r = asmevo::test::run_command(std::string(ASMEVO_CLI) + " " + args + (with_stderr ? "" : " 2>/dev/null"), with_stderr);
  return CliRun{WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1, r.out};
}

/// Every file under `root` by its path relative to it, with its bytes.
std::map<std::string, std::string> tree(const fs::path& root) {
  std::map<std::string, std::string> t;
  if (!fs::exists(root)) return t;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) t[fs::relative(e.path(), root).string()] = slurp(e.path());
  return t;
}

/// Expects two trees to hold the same files with the same bytes, naming each one that differs.
void expect_same_tree(const fs::path& a, const fs::path& b) {
  const auto ta = tree(a), tb = tree(b);
  std::set<std::string> na, nb;
  for (const auto& [k, v] : ta) na.insert(k);
  for (const auto& [k, v] : tb) nb.insert(k);
  EXPECT_FALSE(na.empty()) << a;
  EXPECT_EQ(na, nb);
  for (const auto& [k, v] : ta)
    if (tb.count(k)) EXPECT_TRUE(v == tb.at(k)) << k << " differs between " << a << " and " << b;
}

/// How many times `needle` occurs in `text`.
std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

std::set<std::string> file_names(const fs::path& dir) {
  std::set<std::string> s;
  for (const auto& e : fs::directory_iterator(dir)) s.insert(e.path().filename().string());
  return s;
}

/// Copies a folder of the corpus (read-only) as a writable one.
void copy_writable(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (const auto& e : fs::recursive_directory_iterator(from)) {
    const fs::path t = to / fs::relative(e.path(), from);
    if (e.is_directory()) {
      fs::create_directories(t);
    } else {
      fs::copy_file(e.path(), t);
      fs::permissions(t, fs::perms::owner_write, fs::perm_options::add);
    }
  }
}

/// The hash folder of `root` that holds `file`.
fs::path folder_with(const fs::path& root, const std::string& file) {
  for (const auto& e : fs::directory_iterator(root))
    if (fs::exists(e.path() / file)) return e.path();
  return {};
}

json sig(std::initializer_list<std::pair<const char*, const char*>> params) {
  json j = json::array();
  for (const auto& [n, t] : params) j.push_back({{"name", n}, {"type", t}});
  return j;
}

const json add_kernel_sig = sig({{"x", "!tt.ptr<f32>"}, {"y", "!tt.ptr<f32>"}, {"out", "!tt.ptr<f32>"}, {"n", "i32"}});
const json row_sum_sig = sig({{"x", "!tt.ptr<f32>"}, {"out", "!tt.ptr<f32>"}, {"n_cols", "i32"}, {"stride", "i32"}});

std::map<std::string, json> by_name(const json& listing) {
  std::map<std::string, json> m;
  for (const auto& k : listing["kernels"]) m[k["name"].get<std::string>()] = k;
  return m;
}

class TritonCli : public ::testing::Test {
 protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("asmevo_triton_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  static void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    if (fs::exists(p)) fs::remove(p);
    std::ofstream(p, std::ios::binary) << text;
  }
};

// --- triton list ---------------------------------------------------------------------------------------------------

TEST_F(TritonCli, ListsTheCacheFromTritonsMetadata) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const fs::path cache = corpus / "triton-cache" / "cache";
  auto r = run("triton list " + shell_quote(cache) + " --json", false);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = json::parse(r.out);
  EXPECT_TRUE(j["errors"].empty());
  auto k = by_name(j);
  ASSERT_EQ(k.size(), 2u) << r.out;
  for (const auto& [name, expected_sig, shared] : {std::tuple{"add_kernel", add_kernel_sig, 0}, std::tuple{"row_sum", row_sum_sig, 16}}) {
    SCOPED_TRACE(name);
    const json& x = k[name];
    const fs::path folder = folder_with(cache, std::string(name) + ".json");
    EXPECT_EQ(x["from"], "metadata");
    EXPECT_EQ(x["target"], (json{{"backend", "hip"}, {"arch", "gfx942"}, {"warp_size", 64}}));
    EXPECT_EQ(x["num_warps"], 4);
    EXPECT_EQ(x["shared"], shared);  // Triton's "shared": row_sum's reduction asks for 16 bytes at launch
    EXPECT_EQ(x["signature"], expected_sig);
    EXPECT_EQ(x["triton_version"], "3.6.0");
    EXPECT_EQ(x["symbol"], name);
    EXPECT_EQ(x["hash"], folder.filename().string());
    EXPECT_EQ(x["hsaco"], (folder / (std::string(name) + ".hsaco")).string());
  }
  auto t = run("triton list " + shell_quote(cache), false);
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("(x: !tt.ptr<f32>, y: !tt.ptr<f32>, out: !tt.ptr<f32>, n: i32)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("(x: !tt.ptr<f32>, out: !tt.ptr<f32>, n_cols: i32, stride: i32)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("hip gfx942"), std::string::npos) << t.out;
}

TEST_F(TritonCli, ListsTheDumpFromTheCodeObjects) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const fs::path dump = corpus / "triton-cache" / "dump";
  auto r = run("triton list " + shell_quote(dump) + " --json", false);
  ASSERT_EQ(r.code, 0) << r.out;
  auto k = by_name(json::parse(r.out));
  ASSERT_EQ(k.size(), 2u) << r.out;
  for (const auto& [name, expected_sig] : {std::pair{"add_kernel", add_kernel_sig}, std::pair{"row_sum", row_sum_sig}}) {
    SCOPED_TRACE(name);
    const json& x = k[name];
    const fs::path folder = folder_with(dump, std::string(name) + ".hsaco");
    EXPECT_EQ(x["from"], "code object");
    EXPECT_EQ(x["target"], (json{{"backend", "hip"}, {"arch", "gfx942"}, {"warp_size", 64}}));
    EXPECT_EQ(x["num_warps"], 4);
    EXPECT_EQ(x["shared"], 0);  // the fixed group segment (Triton's kernels take their LDS dynamically)
    EXPECT_EQ(x["signature"], expected_sig);
    EXPECT_TRUE(x["triton_version"].is_null());
    EXPECT_EQ(x["symbol"], name);
    EXPECT_EQ(x["hash"], folder.filename().string());
    EXPECT_EQ(x["hsaco"], (folder / (std::string(name) + ".hsaco")).string());
  }
  auto t = run("triton list " + shell_quote(dump), false);
  EXPECT_EQ(t.code, 0);
  EXPECT_NE(t.out.find("no Triton metadata"), std::string::npos) << t.out;  // the footnote on where the facts come from
}

TEST_F(TritonCli, ReadsSignaturesWithAttributesAndLocations) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  // A dump entry whose .ttir declares what Triton writes for specialised arguments: attribute dictionaries (with
  // strings holding commas), an address space, locations by reference and nested.
  const fs::path src = folder_with(corpus / "triton-cache" / "dump", "add_kernel.hsaco");
  const fs::path h = dir / "HASH";
  fs::create_directories(h);
  fs::copy_file(src / "add_kernel.hsaco", h / "add_kernel.hsaco");  // read-only is fine: only read
  write(h / "add_kernel.ttir",
        "#loc2 = loc(\"y\")\nmodule {\n  tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc(\"x_ptr\"),\n"
        "      %y: !tt.ptr<f16, 1> {tt.divisibility = 16 : i32, tt.note = \"a, (b\"} loc(#loc2), %out: tensor<4x!tt.ptr<f32>> loc(\"out\"),\n"
        "      %n: i32 loc(callsite(#loc3 at #loc4))) attributes {noinline = false} {\n    tt.return\n  }\n}\n");
  auto r = run("triton list " + shell_quote(dir) + " --json", false);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(by_name(json::parse(r.out))["add_kernel"]["signature"],
            sig({{"x_ptr", "!tt.ptr<f32>"}, {"y", "!tt.ptr<f16, 1>"}, {"out", "tensor<4x!tt.ptr<f32>>"}, {"n", "i32"}}));
}

TEST_F(TritonCli, BadEntriesAreNamedAndTheOthersStillListed) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  copy_writable(corpus / "triton-cache" / "cache", dir / "cache");
  const fs::path meta = folder_with(dir / "cache", "add_kernel.json") / "add_kernel.json";
  write(meta, "{\"hash\": \"b725\", \"target\": {\"backend\": ");
  auto r = run("triton list " + shell_quote(dir / "cache"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(meta.string() + ": error: Triton's kernel metadata is not valid JSON"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("row_sum"), std::string::npos) << r.out;
  auto j = run("triton list " + shell_quote(dir / "cache") + " --json", false);
  EXPECT_EQ(j.code, 2);
  const auto listing = json::parse(j.out);
  ASSERT_EQ(listing["kernels"].size(), 1u);
  EXPECT_EQ(listing["kernels"][0]["name"], "row_sum");
  ASSERT_EQ(listing["errors"].size(), 1u);
  EXPECT_EQ(listing["errors"][0]["file"], meta.string());

  // A dump whose .hsaco does not load: named, with the reason, and the other kernel listed.
  copy_writable(corpus / "triton-cache" / "dump", dir / "dump");
  const fs::path co = folder_with(dir / "dump", "row_sum.hsaco") / "row_sum.hsaco";
  write(co, slurp(co).substr(0, 100));
  auto d = run("triton list " + shell_quote(dir / "dump"));
  EXPECT_EQ(d.code, 2) << d.out;
  EXPECT_NE(d.out.find(co.string()), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("add_kernel"), std::string::npos) << d.out;

  // Metadata that names another kernel than its file (whose other files are found by that name), and an arch that is
  // neither a name nor a number: named, the other kernel listed.
  const std::string good = slurp(corpus / "triton-cache" / "cache" / fs::relative(meta, dir / "cache"));
  for (const auto& [from, to, says] : {std::tuple{std::string("\"name\": \"add_kernel\""), std::string("\"name\": \"../../x\""),
                                                  std::string("names the kernel '../../x', not the file's 'add_kernel'")},
                                       std::tuple{std::string("\"arch\": \"gfx942\""), std::string("\"arch\": {\"a\": 1}"),
                                                  std::string("has no \"target\" backend and arch")}}) {
    const auto at = good.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    write(meta, std::string(good).replace(at, from.size(), to));
    auto b = run("triton list " + shell_quote(dir / "cache"));
    EXPECT_EQ(b.code, 2) << b.out;
    EXPECT_NE(b.out.find(meta.string() + ": error: Triton's kernel metadata " + says), std::string::npos) << b.out;
    EXPECT_NE(b.out.find("row_sum"), std::string::npos) << b.out;
  }
  // Bytes that are not UTF-8 in a folder name: --json still writes JSON (U+FFFD for them), not an exception.
  fs::rename(meta.parent_path(), dir / "cache" / "AB\xff");
  auto u = run("triton list " + shell_quote(dir / "cache") + " --json", false);
  EXPECT_EQ(u.code, 2) << u.out;
  EXPECT_TRUE(json::accept(u.out)) << u.out;

  auto none = run("triton list " + shell_quote(dir / "missing"));
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.out.find((dir / "missing").string()), std::string::npos) << none.out;
}

// --- optimize-dir --------------------------------------------------------------------------------------------------

/// One kernel of the capture folder a test builds.
struct Captured {
  std::string hash;
  fs::path launch;                ///< its launch file
  std::size_t launches = 0;       ///< shapes in it
  std::set<std::string> stages;   ///< the names of its hash folder's files but the launch file (what the dump holds)
};

/// A capture folder as `python -m asmevo_triton capture --no-data` writes it: per kernel its hash folder with the
/// dump's files and a launch file (an array of shapes). From the corpus's dump, add_kernel and row_sum with two
/// shapes each. Neither has room the built-in proposer can use (the cost model puts both within 5% of their bound,
/// and row_sum's masked loads make its loop several blocks, which software-pipeline leaves alone), so a third kernel
/// that does improve joins them: the corpus's Triton transpose (its .s is the .amdgcn Triton emitted; the other stage
/// files are stand-ins, whose bytes optimize-dir only copies), with the project's launch file for it.
std::map<std::string, Captured> make_capture(const fs::path& corpus, const fs::path& cap) {
  std::map<std::string, Captured> out;
  const auto f32 = [](std::size_t count, json init) { return json{{"buffer", {{"dtype", "f32"}, {"count", count}, {"init", init}}}}; };
  const auto random = [](int seed) { return json{{"random", {{"seed", seed}, {"min", -1.0}, {"max", 1.0}}}}; };
  const auto i32 = [](int v) { return json{{"scalar", {{"type", "i32"}, {"value", v}}}}; };
  const json null = {{"null", true}};  // Triton's two hidden trailing pointers (global and profile scratch)
  const auto add = [&](const std::string& kernel, const fs::path& folder, const json& launch) {
    Captured c{folder.filename().string(), folder / (kernel + ".launch.json"), launch.size(), file_names(folder)};
    std::ofstream(c.launch) << launch.dump(1);
    out[kernel] = std::move(c);
  };
  for (const auto& h : fs::directory_iterator(corpus / "triton-cache" / "dump")) {
    const fs::path to = cap / h.path().filename();
    copy_writable(h.path(), to);
    json l = json::array();
    if (fs::exists(to / "add_kernel.hsaco")) {
      // add_kernel(x, y, out, n): BLOCK_SIZE 1024 (the .ttir's make_range), so ceil(n / 1024) workgroups.
      for (const int n : {3000, 1500})
        l.push_back({{"kernel", "add_kernel"}, {"grid", {(n + 1023) / 1024, 1, 1}}, {"block", {256, 1, 1}},
                     {"args", {f32(n, random(n)), f32(n, random(n + 1)), f32(n, "zeros"), i32(n), null, null}}, {"outputs", {2}}});
      add("add_kernel", to, l);
    } else {
      // row_sum(x, out, n_cols, stride): one workgroup per row, the row read 512 columns at a time.
      for (const auto [rows, cols, stride] : {std::tuple{3, 1500, 1536}, std::tuple{2, 700, 700}})
        l.push_back({{"kernel", "row_sum"}, {"grid", {rows, 1, 1}}, {"block", {256, 1, 1}},
                     {"args", {f32(rows * stride, random(cols)), f32(rows, "zeros"), i32(cols), i32(stride), null, null}},
                     {"outputs", {1}}});
      add("row_sum", to, l);
    }
  }
  const fs::path t = cap / "ZZTRANSPOSESTANDINHASHFORTHECORPUSTRITONKERNELAAAAAA";
  fs::create_directories(t);
  fs::copy_file(corpus / "triton" / "transpose_f32_64.gfx942.hsaco", t / "transpose.hsaco");
  fs::copy_file(corpus / "triton" / "transpose_f32_64.gfx942.s", t / "transpose.amdgcn");
  for (const char* ext : {"ttir", "ttgir", "llir"})
    std::ofstream(t / ("transpose." + std::string(ext))) << "// stand-in for Triton's transpose." << ext << "\n";
  add("transpose", t, json::parse(slurp(fs::path(ASMEVO_SOURCE_DIR) / "tests/data/launch/triton/transpose_f32_64.json")));
  return out;
}

TEST_F(TritonCli, OptimizeDirWritesAVerifiedOverrideTreeResumesAndShardsAlike) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const fs::path cap = dir / "capture", dump = corpus / "triton-cache" / "dump";
  const auto kernels = make_capture(corpus, cap);
  ASSERT_EQ(kernels.size(), 3u);
  for (const char* k : {"add_kernel", "row_sum"})  // the dump's kernels come with the dump's own files
    EXPECT_EQ(kernels.at(k).stages, file_names(dump / kernels.at(k).hash));
  const std::string search = " --budget 12 --seed 3 --jobs 2";
  const auto capture_before = tree(cap);

  // One process over every kernel.
  const fs::path out = dir / "out";
  auto r = run("optimize-dir " + shell_quote(cap) + " -o " + shell_quote(out) + search);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("K0 -> K1 (modeled cycles)"), std::string::npos) << r.out;
  const std::string summary = slurp(out / "summary.json");
  const auto s = json::parse(summary);
  ASSERT_EQ(s["kernels"].size(), 3u) << summary;
  EXPECT_TRUE(s["shard"].is_null());
  int improved = 0;
  for (const auto& k : s["kernels"]) {
    const std::string kernel = k["kernel"].get<std::string>(), hash = k["hash"].get<std::string>();
    SCOPED_TRACE(kernel);
    const Captured& c = kernels.at(kernel);
    EXPECT_EQ(hash, c.hash);
    EXPECT_EQ(k["launches"], c.launches);
    EXPECT_NE(k["status"], "failed") << k.dump();
    const fs::path o = out / "override" / hash, k0 = cap / hash / (kernel + ".hsaco");
    if (k["status"] != "improved") {
      EXPECT_FALSE(fs::exists(o)) << "no override for a kernel that did not improve";
      // Why not: what the search's 12 attempts came to.
      EXPECT_EQ(k["why_not"].get<std::string>().rfind("no verified candidate was faster than K0 (12 attempts: ", 0), 0u) << k.dump();
      continue;
    }
    ++improved;
    EXPECT_GT(k["speedup"].get<double>(), 1.0);
    EXPECT_LT(k["cost_after"].get<double>(), k["cost_before"].get<double>());
    EXPECT_EQ(file_names(o), c.stages);  // the dump's file names: Triton's override reads them
    EXPECT_NE(slurp(o / (kernel + ".hsaco")), slurp(k0));
    EXPECT_EQ(slurp(o / (kernel + ".ttgir")), slurp(cap / hash / (kernel + ".ttgir")));
    EXPECT_NE(slurp(o / (kernel + ".amdgcn")), slurp(cap / hash / (kernel + ".amdgcn")));  // K1's, not K0's
    // What `asmevo disasm` prints for the .hsaco beside it (its header names the file as given, here its bare name).
    const auto disasm = asmevo::test::run_command("cd " + shell_quote(o) + " && " + ASMEVO_CLI + " disasm " + kernel + ".hsaco");
    EXPECT_EQ(slurp(o / (kernel + ".amdgcn")), disasm.out);
    auto v = run("verify " + shell_quote(k0) + " " + shell_quote(o / (kernel + ".hsaco")) + " --launch " + shell_quote(c.launch));
    EXPECT_EQ(v.code, 0) << v.out;
  }
  ASSERT_GE(improved, 1) << "no kernel improved: the test checks nothing\n" << r.out;
  EXPECT_TRUE(tree(cap) == capture_before) << "optimize-dir wrote into the capture folder";

  // Run again: every kernel is skipped, and the summary is the same.
  auto again = run("optimize-dir " + shell_quote(cap) + " -o " + shell_quote(out) + search);
  EXPECT_EQ(again.code, 0) << again.out;
  EXPECT_EQ(occurrences(again.out, "skipped"), 3u) << again.out;
  EXPECT_EQ(slurp(out / "summary.json"), summary);

  // Killed midway with SIGKILL to its whole process group (as `kill -9 -PGID` or a cancelled Slurm job kills it: no
  // chance to tidy up), one kernel at a time: once two kernels are settled and the third one's search has accepted a
  // candidate. The same command again settles the first two from their result.json, resumes the third from its log
  // (replaying the accepted attempt: rebuilt, verified and timed again), and writes the uninterrupted run's override
  // tree and summary rows, byte for byte.
  {
    // --jobs 1 takes the kernels in the summary's order; the last one's search is the one cut, and it must be one that
    // improves, so that its log holds an accepted attempt to replay.
    const json& last = s["kernels"].back();
    ASSERT_EQ(last["status"], "improved") << last.dump();
    const fs::path killed = dir / "killed";
    const fs::path last_work = killed / "work" / last["hash"].get<std::string>() / last["kernel"].get<std::string>();
    const std::vector<std::string> args{ASMEVO_CLI, "optimize-dir", cap.string(), "-o", killed.string(),
                                        "--budget", "12", "--seed", "3", "--jobs", "1"};
    std::vector<char*> argv;
    for (const auto& x : args) argv.push_back(const_cast<char*>(x.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::setpgid(0, 0);
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // both sides, so that the group exists before the kill whichever runs first
    const auto settled = [&] {
      std::size_t n = 0;
      for (const auto& k : s["kernels"])
        n += fs::exists(killed / "work" / k["hash"].get<std::string>() / k["kernel"].get<std::string>() / "result.json");
      return n;
    };
    std::size_t logged = 0;  // whole attempt records in the last kernel's log when it was killed
    bool accepted = false;
    for (const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
         !accepted && std::chrono::steady_clock::now() < deadline && !fs::exists(killed / "summary.json");
         std::this_thread::sleep_for(std::chrono::milliseconds(1))) {
      std::error_code ec;
      if (!fs::exists(last_work / "log" / "log.jsonl", ec)) continue;
      const std::string text = slurp(last_work / "log" / "log.jsonl");
      logged = 0;
      bool header = true;
      for (std::size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
        if (std::exchange(header, false)) continue;
        ++logged;
        const auto rec = json::parse(text.substr(at, nl - at), nullptr, false);
        accepted = accepted || (rec.is_object() && rec.value("outcome", std::string()) == "accepted");
      }
    }
    ::kill(-pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before the kill: nothing was interrupted";
    ASSERT_TRUE(accepted) << "the last kernel's search never logged an accepted attempt (" << logged << " attempts)";
    ASSERT_EQ(settled(), 2u) << "the kill was to land in the last kernel's search";
    ASSERT_FALSE(fs::exists(killed / "summary.json"));
    // The optimize child inherits OUT's lock and lets go of it only when it is gone, which a SIGKILL does not make
    // immediate: wait for the lock, as a user's rerun would have to.
    {
      const int fd = ::open((killed / ".lock").c_str(), O_RDWR);
      ASSERT_GE(fd, 0);
      bool free = false;
      for (const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
           !(free = ::flock(fd, LOCK_EX | LOCK_NB) == 0) && std::chrono::steady_clock::now() < deadline;)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ::close(fd);
      ASSERT_TRUE(free) << "the killed run's children still hold " << killed / ".lock";
    }

    auto resumed = run("optimize-dir " + shell_quote(cap) + " -o " + shell_quote(killed) + " --budget 12 --seed 3 --jobs 1");
    ASSERT_EQ(resumed.code, 0) << resumed.out;
    EXPECT_EQ(occurrences(resumed.out, "skipped (done in an earlier run"), 2u) << resumed.out;
    const auto replayed = json::parse(slurp(last_work / "optimize.json"))["replayed"].get<std::size_t>();
    std::printf("[   NOTE   ] killed with %zu attempts of the last kernel logged; resumed, it replayed %zu of 12\n", logged,
                replayed);
    EXPECT_GE(replayed, logged) << "the resumed search did not replay its log";
    EXPECT_LT(replayed, 12u) << "nothing was left to search after the kill";
    expect_same_tree(killed / "override", out / "override");
    EXPECT_EQ(json::parse(slurp(killed / "summary.json"))["kernels"], s["kernels"]);
  }

  // Two shards, each in its own process at once, merged: the same override tree, byte for byte, and the same rows.
  // The shards are started by GNU parallel, as a user fans them out over cores or hosts (scripts/install-deps.sh
  // installs it); where it is missing, by two threads of this test, and the test says so.
  if (asmevo::test::run_command("command -v parallel >/dev/null").status == 0) {
    // parallel's exit status counts the jobs that did not exit 0; a shard without an improved kernel exits 1, so
    // the shards' own summaries (below: no kernel failed) say whether they worked.
    const auto p = asmevo::test::run_command("parallel --will-cite " + std::string(ASMEVO_CLI) + " optimize-dir " +
                                                 shell_quote(cap) + " -o " + shell_quote(dir.string() + "/shard{}") +
                                                 search + " --shard {}/2 ::: 0 1",
                                             true);
    ASSERT_TRUE(WIFEXITED(p.status)) << p.out;
  } else {
    std::printf("[   NOTE   ] GNU parallel is not installed: the two shards run from two threads of this test\n");
    std::vector<CliRun> shards(2);
    std::vector<std::thread> ts;
    for (int i = 0; i < 2; ++i)
      ts.emplace_back([&, i] {
        shards[i] = run("optimize-dir " + shell_quote(cap) + " -o " + shell_quote(dir / ("shard" + std::to_string(i))) + search +
                        " --shard " + std::to_string(i) + "/2");
      });
    for (auto& t : ts) t.join();
    for (const auto& sh : shards) EXPECT_NE(sh.code, 2) << sh.out;
  }
  for (int i = 0; i < 2; ++i) {
    const auto ss = json::parse(slurp(dir / ("shard" + std::to_string(i)) / "summary.json"));
    EXPECT_EQ(ss["shard"], (json{{"index", i}, {"count", 2}}));
    EXPECT_EQ(ss["kernels"].size(), i == 0 ? 2u : 1u);  // kernels 0 and 2 of the sorted list, then kernel 1
    for (const auto& k : ss["kernels"]) EXPECT_NE(k["status"], "failed") << k.dump();
  }
  // One shard alone is not the whole: the merge says which shard is missing.
  auto partial = run("optimize-dir --merge " + shell_quote(dir / "shard0") + " -o " + shell_quote(dir / "partial"));
  EXPECT_EQ(partial.code, 2) << partial.out;
  EXPECT_NE(partial.out.find("shard(s) 1/2 missing"), std::string::npos) << partial.out;
  const fs::path merged = dir / "merged";
  auto m = run("optimize-dir --merge " + shell_quote(dir / "shard0") + " " + shell_quote(dir / "shard1") + " -o " + shell_quote(merged));
  ASSERT_EQ(m.code, 0) << m.out;
  expect_same_tree(merged / "override", out / "override");
  EXPECT_EQ(json::parse(slurp(merged / "summary.json"))["kernels"], s["kernels"]);
  for (const auto& k : s["kernels"])
    EXPECT_TRUE(fs::exists(merged / "work" / k["hash"].get<std::string>() / k["kernel"].get<std::string>() / "result.json"));

  // A merge of outputs that disagree on a kernel's K1 names both.
  json first;
  for (const auto& k : s["kernels"])
    if (k["status"] == "improved") first = k;
  const std::string hash = first["hash"].get<std::string>(), name = first["kernel"].get<std::string>() + ".hsaco";
  const fs::path other = fs::exists(dir / "shard0" / "override" / hash / name) ? dir / "shard0" : dir / "shard1";
  const fs::path changed = other / "override" / hash / name;
  write(changed, slurp(changed) + "x");
  auto clash = run("optimize-dir --merge " + shell_quote(other) + " " + shell_quote(out) + " -o " + shell_quote(dir / "clash"));
  EXPECT_EQ(clash.code, 2) << clash.out;
  EXPECT_NE(clash.out.find("different K1 bytes"), std::string::npos) << clash.out;
  EXPECT_NE(clash.out.find(changed.string()), std::string::npos) << clash.out;
  EXPECT_NE(clash.out.find((out / "override" / hash / name).string()), std::string::npos) << clash.out;

  // A result.json whose names are not the folders it lies in is refused: no path outside OUT from a file's contents.
  const fs::path evil = dir / "evil";
  fs::copy(out, evil, fs::copy_options::recursive);
  const fs::path rj = evil / "work" / hash / first["kernel"].get<std::string>() / "result.json";
  auto forged = json::parse(slurp(rj));
  forged["hash"] = "../../escaped";
  write(rj, forged.dump());
  auto esc = run("optimize-dir --merge " + shell_quote(evil) + " -o " + shell_quote(dir / "escaped_out"));
  EXPECT_EQ(esc.code, 2) << esc.out;
  EXPECT_NE(esc.out.find("not the folders it lies in"), std::string::npos) << esc.out;
  EXPECT_FALSE(fs::exists(dir / "escaped"));

  // Run again with other search flags: every earlier result is stale (written for other flags), so every kernel is
  // optimized again rather than skipped.
  auto reflagged = run("optimize-dir " + shell_quote(cap) + " -o " + shell_quote(out) + " --budget 6 --seed 4 --jobs 2");
  EXPECT_NE(reflagged.code, 2) << reflagged.out;
  EXPECT_EQ(occurrences(reflagged.out, "written for another K0"), 3u) << reflagged.out;
  EXPECT_EQ(reflagged.out.find("skipped (done in an earlier run"), std::string::npos) << reflagged.out;
  // Every kernel that did not improve this time has no override folder, whatever the earlier run wrote.
  for (const auto& k : json::parse(slurp(out / "summary.json"))["kernels"])
    if (k["status"] != "improved") EXPECT_FALSE(fs::exists(out / "override" / k["hash"].get<std::string>())) << k.dump();

  // A new capture rewrites a kernel's data files under the same launch file: that kernel's result is stale too, the
  // others are kept.
  write(cap / kernels.at("add_kernel").hash / "data" / "l0.arg0.bin", std::string(64, '\x01'));
  auto recaptured = run("optimize-dir " + shell_quote(cap) + " -o " + shell_quote(out) + " --budget 6 --seed 4 --jobs 2");
  EXPECT_NE(recaptured.code, 2) << recaptured.out;
  EXPECT_EQ(occurrences(recaptured.out, "written for another K0, launch file, data"), 1u) << recaptured.out;
  EXPECT_EQ(occurrences(recaptured.out, "skipped (done in an earlier run"), 2u) << recaptured.out;
}

TEST_F(TritonCli, OptimizeDirRunsAgainWhatAToolFailed) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const fs::path cap = dir / "capture", out = dir / "out";
  make_capture(corpus, cap);
  const std::string cmd = " optimize-dir " + shell_quote(cap) + " -o " + shell_quote(out) + " --budget 4 --seed 3 --jobs 2";
  // A linker that is there but fails every link (a broken install): nothing improves, and each row says what the
  // attempts came to and what failed first.
  const auto broken = asmevo::test::run_command("ASMEVO_LLD=/bin/false " + std::string(ASMEVO_CLI) + cmd, true);
  EXPECT_TRUE(WIFEXITED(broken.status) && WEXITSTATUS(broken.status) == 1) << broken.out;
  const auto s = json::parse(slurp(out / "summary.json"));
  ASSERT_EQ(s["kernels"].size(), 3u);
  std::size_t with_failures = 0;
  for (const auto& k : s["kernels"]) {
    EXPECT_EQ(k["status"], "unchanged") << k.dump();
    const std::string why = k["why_not"].get<std::string>();
    EXPECT_EQ(why.rfind("no verified candidate was faster than K0 (4 attempts: ", 0), 0u) << why;
    if (k.value("failed_attempts", 0u) == 0) continue;
    ++with_failures;
    EXPECT_NE(why.find(" failed); first failure: rebuild: ld.lld failed (exit status 1)"), std::string::npos) << why;
  }
  ASSERT_GE(with_failures, 1u) << "no attempt needed the linker: the test checks nothing\n" << broken.out;
  EXPECT_EQ(occurrences(broken.out, "attempt(s) failed"), with_failures) << broken.out;  // the progress lines say it
  EXPECT_TRUE(tree(out / "override").empty());

  // Mended (the linker found as usual), the same command runs those kernels again instead of keeping the result.
  auto mended = run(cmd);
  EXPECT_NE(mended.code, 2) << mended.out;
  EXPECT_EQ(occurrences(mended.out, "some attempts failed in the earlier run"), with_failures) << mended.out;
  EXPECT_EQ(occurrences(mended.out, "skipped (done in an earlier run"), 3u - with_failures) << mended.out;
  for (const auto& k : json::parse(slurp(out / "summary.json"))["kernels"])
    EXPECT_EQ(k.value("failed_attempts", 0u), 0u) << k.dump();
}

TEST_F(TritonCli, OptimizeDirRefusesBadUsage) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const fs::path cap = dir / "capture";
  make_capture(corpus, cap);
  const auto refused = [](const std::string& args, const std::string& says) {
    auto r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(says), std::string::npos) << args << "\n" << r.out;
  };
  const std::string c = shell_quote(cap), o = " -o " + shell_quote(dir / "out");
  refused("optimize-dir " + shell_quote(dir / "missing") + o, "no capture folder");
  fs::create_directories(dir / "empty" / "HASH");
  refused("optimize-dir " + shell_quote(dir / "empty") + o, "holds no kernel to optimize");
  write(dir / "nohsaco" / "HASH" / "k.launch.json", "[]");  // a kernel captured without an AMD code object
  refused("optimize-dir " + shell_quote(dir / "nohsaco") + o, "k.launch.json: no k.hsaco beside it");
  // Names that are not a dump hash and an identifier are left out: the paths built from them must stay in OUT.
  write(dir / "odd" / "not-a-hash" / "k.launch.json", "[]");
  write(dir / "odd" / "not-a-hash" / "k.hsaco", "x");
  refused("optimize-dir " + shell_quote(dir / "odd") + o, "not a Triton dump hash folder and kernel name");
  // A kernel that capture.json lists as ambiguous (another variant has its dump hash) gets no override: left out.
  write(dir / "amb" / "HASH" / "k.launch.json", "[]");
  write(dir / "amb" / "HASH" / "k.hsaco", "x");
  write(dir / "amb" / "capture.json", R"({"ambiguous": [{"kernel": "k", "hash": "HASH", "reason": "num_warps"}]})");
  refused("optimize-dir " + shell_quote(dir / "amb") + o, "lists it as ambiguous");
  // A capture.json that cannot be read would lose that list: an error naming it, not a silent empty list.
  write(dir / "amb" / "capture.json", R"({"ambiguous": [{"kernel": "k", "hash": )");
  refused("optimize-dir " + shell_quote(dir / "amb") + o, (dir / "amb" / "capture.json").string() + ": error: not a capture manifest");
  write(dir / "amb" / "capture.json", R"({"ambiguous": [{"kernel": "k"}]})");
  refused("optimize-dir " + shell_quote(dir / "amb") + o, "an \"ambiguous\" entry without its \"hash\" and \"kernel\" strings");
  refused("optimize-dir " + c, "needs -o OUT");
  {
    // Without a linker every child's search would fail to build its candidates: said once, before any kernel starts.
    const auto r = asmevo::test::run_command("ASMEVO_LLD=" + shell_quote(dir / "no-ld.lld") + " " + ASMEVO_CLI +
                                                 " optimize-dir " + c + o, true);
    EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2) << r.out;
    EXPECT_NE(r.out.find("ASMEVO_LLD names a file that is not executable"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir / "out"));
  }
  {
    // Another run holds OUT (its lock): refused, nothing started.
    fs::create_directories(dir / "busy");
    const int fd = ::open((dir / "busy" / ".lock").c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0);
    refused("optimize-dir " + c + " -o " + shell_quote(dir / "busy"), "is in use by another optimize-dir run");
    ::close(fd);
    EXPECT_FALSE(fs::exists(dir / "busy" / "summary.json"));
  }
  {
    // The capture folder inside OUT (say `optimize-dir OUT/work -o OUT`): refused, and not one of its files touched.
    const fs::path outer = dir / "outer";
    copy_writable(cap, outer / "override");
    const auto before = tree(outer);
    refused("optimize-dir " + shell_quote(outer / "override") + " -o " + shell_quote(outer), "is inside -o");
    EXPECT_TRUE(tree(outer) == before);
  }
  {
    // --merge of outputs whose summary.json or result.json this tool did not write: named, never a crash or a hang.
    const auto output = [&](const std::string& name, const std::string& summary) {
      write(dir / name / "summary.json", summary);
      return " " + shell_quote(dir / name);
    };
    const std::string head = R"({"format": "asmevo-optimize-dir", "executor": "emu", )";
    refused("optimize-dir --merge" + output("m_format", R"({"format": 1, "executor": "emu"})") + o, "not an optimize-dir output");
    refused("optimize-dir --merge" + output("m_shards", head + R"("dir": "c", "shard": {"index": 0, "count": 100000000000}})") + o,
            "is not I/N with 0 <= I < N");
    refused("optimize-dir --merge" + output("m_index", head + R"("dir": "c", "shard": {"index": 2, "count": 2}})") + o,
            "is not I/N with 0 <= I < N");
    refused("optimize-dir --merge" + output("m_shard", head + R"("dir": "c", "shard": "0/2"})") + o, "neither null nor");
    refused("optimize-dir --merge" + output("m_dir1", head + R"("dir": "c1", "shard": null})") + output("m_dir2", head + R"("dir": "c2", "shard": null})") + o,
            "outputs of different folders do not merge");
    const std::string bad = output("m_result", head + R"("dir": "c", "shard": null})");
    write(dir / "m_result" / "work" / "AAAA" / "k" / "result.json",
          R"({"kernel": "k", "hash": "AAAA", "launches": 1, "status": "improved", "verified": true, "why_not": null,
              "cost_before": 10, "cost_after": null, "speedup": null, "exit_code": 0})");
    refused("optimize-dir --merge" + bad + o, "not a result optimize-dir wrote");
    EXPECT_FALSE(fs::exists(dir / "out"));
  }
  refused("optimize-dir " + c + " -o " + shell_quote(cap / "out"), "inside the capture folder");
  refused("optimize-dir " + c + " -o " + shell_quote(cap), "inside the capture folder");
  EXPECT_FALSE(fs::exists(cap / "out"));
  for (const char* bad : {"2/2", "1/0", "x/2", "1"}) refused("optimize-dir " + c + o + " --shard " + bad, "--shard takes I/N");
  refused("optimize-dir " + c + o + " --executor gpu", "--executor takes emu or hip");
  refused("optimize-dir " + c + o + " --jobs 0", "--jobs takes an integer");
  refused("optimize-dir --merge " + c + o, "not an optimize-dir output");
  refused("optimize-dir --merge " + c + " -o " + c, "is one of the outputs to merge");
  refused("optimize-dir --merge " + c, "needs -o OUT");
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
