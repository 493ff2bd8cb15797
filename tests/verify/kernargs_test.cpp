// Tests of launch/kernargs.hpp: kernarg segments for the Triton corpus kernels (arguments from MANIFEST.json) and
// for clang-22 kernels with code object v4, v5 and v6 hidden arguments, decoded independently at the offsets the
// metadata gives; block resolution, kernel selection and every mismatch between spec and metadata.
#include "asmevo/launch/kernargs.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "support/corpus.hpp"

namespace fs = std::filesystem;
using namespace asmevo;
using namespace asmevo::verify;
namespace co = asmevo::codeobject;

namespace {

std::vector<co::KernelMeta> kernels_of(const fs::path& p) {
  auto f = co::ElfFile::read(p);
  EXPECT_TRUE(f) << p << ": " << (f ? "" : f.error().str());
  if (!f) return {};
  auto doc = co::read_metadata(*f);
  EXPECT_TRUE(doc) << p;
  if (!doc) return {};
  auto ks = co::kernels(*doc);
  EXPECT_TRUE(ks) << p;
  return ks ? *ks : std::vector<co::KernelMeta>{};
}

std::uint64_t load_le(const std::vector<std::byte>& b, std::uint64_t at, std::uint64_t size) {
  std::uint64_t v = 0;
  for (std::uint64_t i = 0; i < size; ++i) v |= std::uint64_t(std::to_integer<std::uint8_t>(b[at + i])) << (8 * i);
  return v;
}

co::KernelArg arg(std::string kind, std::uint64_t offset, std::uint64_t size, std::string name = {}) {
  co::KernelArg a;
  a.value_kind = std::move(kind);
  a.offset = offset;
  a.size = size;
  a.name = std::move(name);
  return a;
}

/// A hand-made kernel: (float* out, int n) plus every v5 hidden argument at the AMDGPUUsage "Implicit Kernel
/// Arguments" offsets (implicit base 16).
co::KernelMeta synthetic() {
  co::KernelMeta k;
  k.name = "synth";
  k.symbol = "synth.kd";
  k.max_flat_workgroup_size = 256;
  k.kernarg_segment_size = 16 + 256;
  k.args = {arg("global_buffer", 0, 8, "out"), arg("by_value", 8, 4, "n")};
  const std::pair<const char*, std::pair<int, int>> hidden[] = {
      {"hidden_block_count_x", {0, 4}},       {"hidden_block_count_y", {4, 4}},     {"hidden_block_count_z", {8, 4}},
      {"hidden_group_size_x", {12, 2}},       {"hidden_group_size_y", {14, 2}},     {"hidden_group_size_z", {16, 2}},
      {"hidden_remainder_x", {18, 2}},        {"hidden_remainder_y", {20, 2}},      {"hidden_remainder_z", {22, 2}},
      {"hidden_none", {24, 8}},               {"hidden_global_offset_x", {40, 8}},  {"hidden_global_offset_y", {48, 8}},
      {"hidden_global_offset_z", {56, 8}},    {"hidden_grid_dims", {64, 2}},        {"hidden_printf_buffer", {72, 8}},
      {"hidden_hostcall_buffer", {80, 8}},    {"hidden_multigrid_sync_arg", {88, 8}}, {"hidden_heap_v1", {96, 8}},
      {"hidden_default_queue", {104, 8}},     {"hidden_completion_action", {112, 8}},
      {"hidden_dynamic_lds_size", {120, 4}},  {"hidden_private_base", {192, 4}},    {"hidden_shared_base", {196, 4}},
      {"hidden_queue_ptr", {200, 8}}};
  for (const auto& [kind, at] : hidden) k.args.push_back(arg(kind, 16 + at.first, at.second));
  return k;
}

HiddenValues distinct_hidden() {
  HiddenValues h;
  h.hostcall_buffer = 0x1111222233334444;
  h.printf_buffer = 0x5555666677778888;
  h.heap_v1 = 0x0102030405060708;
  h.default_queue = 0x1020304050607080;
  h.completion_action = 0x0a0b0c0d0e0f1011;
  h.multigrid_sync_arg = 0x1213141516171819;
  h.queue_ptr = 0x7fff00001234abcd;
  h.private_base = 0x10000;   // apertures are the upper 32 bits of 64-bit addresses
  h.shared_base = 0x20000;
  h.dynamic_lds_size = 4096;
  return h;
}

/// The value a HIP launch gives each hidden kind (ROCclr VirtualGPU::submitKernelInternal), stated independently
/// of the code under test.
std::uint64_t expected_hidden(const std::string& kind, const LaunchGeometry& g, const HiddenValues& h) {
  static const std::map<std::string, int> dims = {{"x", 0}, {"y", 1}, {"z", 2}};
  auto d = [&](const char* prefix) { return dims.at(kind.substr(std::string(prefix).size())); };
  if (kind.rfind("hidden_block_count_", 0) == 0) return g.grid_groups[d("hidden_block_count_")];
  if (kind.rfind("hidden_group_size_", 0) == 0) return g.block[d("hidden_group_size_")];
  if (kind.rfind("hidden_remainder_", 0) == 0) return 0;
  if (kind.rfind("hidden_global_offset_", 0) == 0) return 0;
  if (kind == "hidden_grid_dims") return 3;
  if (kind == "hidden_printf_buffer") return h.printf_buffer;
  if (kind == "hidden_hostcall_buffer") return h.hostcall_buffer;
  if (kind == "hidden_heap_v1") return h.heap_v1;
  if (kind == "hidden_default_queue") return h.default_queue;
  if (kind == "hidden_completion_action") return h.completion_action;
  if (kind == "hidden_multigrid_sync_arg") return h.multigrid_sync_arg;
  if (kind == "hidden_queue_ptr") return h.queue_ptr;
  if (kind == "hidden_private_base") return h.private_base;
  if (kind == "hidden_shared_base") return h.shared_base;
  if (kind == "hidden_dynamic_lds_size") return h.dynamic_lds_size;
  return 0;  // hidden_none
}

/// Checks every argument's bytes and that nothing else is written; returns the number of hidden arguments seen.
int check_layout(const co::KernelMeta& k, const LaunchSpec& spec, const std::vector<std::uint64_t>& addrs,
                 const LaunchGeometry& g, const HiddenValues& h, const std::vector<std::byte>& bytes) {
  EXPECT_EQ(bytes.size(), k.kernarg_segment_size) << k.name;
  std::vector<bool> covered(bytes.size());
  std::size_t explicit_i = 0;
  int hidden = 0;
  for (const auto& a : k.args) {
    std::uint64_t want = 0;
    if (a.is_hidden()) {
      want = expected_hidden(a.value_kind, g, h);
      ++hidden;
    } else {
      const auto& s = spec.args.at(explicit_i);
      want = s.kind == ArgSpec::Kind::scalar ? s.scalar.bits : addrs.at(explicit_i);
      if (s.kind == ArgSpec::Kind::null) want = 0;
      ++explicit_i;
    }
    if (a.size < 8) want &= (std::uint64_t{1} << (8 * a.size)) - 1;
    EXPECT_EQ(load_le(bytes, a.offset, a.size), want) << k.name << " " << a.value_kind << " at " << a.offset;
    for (std::uint64_t i = 0; i < a.size; ++i) covered[a.offset + i] = true;
  }
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (!covered[i]) EXPECT_EQ(std::to_integer<int>(bytes[i]), 0) << k.name << " byte " << i;
  return hidden;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Triton corpus: the arguments MANIFEST.json lists, then Triton's two trailing scratch pointers (null).

TEST(Kernargs, TritonCorpus) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const fs::path dir = corpus / "triton";
  std::ifstream mf(dir / "MANIFEST.json");
  ASSERT_TRUE(mf) << "no MANIFEST.json in " << dir;
  const auto manifest = nlohmann::json::parse(mf);
  int done = 0;
  for (const auto& entry : manifest.at("kernels")) {
    const std::string name = entry.at("name");
    const fs::path hsaco = dir / (name + ".gfx942.hsaco");
    if (!fs::exists(hsaco)) continue;
    SCOPED_TRACE(name);
    auto ks = kernels_of(hsaco);
    ASSERT_EQ(ks.size(), 1u);
    const auto& k = ks[0];

    // The spec as a user writes it: pointers become buffers, integers and floats scalars.
    std::string args;
    std::vector<std::uint64_t> addrs;
    int i = 0;
    for (const auto& a : entry.at("args")) {
      const std::string s = a;
      const std::string type = s.substr(s.find(':') + 1);
      if (!args.empty()) args += ",\n";
      if (type[0] == '*') {
        args += R"({"buffer": {"dtype": ")" + type.substr(1) + R"(", "count": 64}})";
        // Every byte differs, so a misplaced or shifted pointer shows.
        addrs.push_back(0x00007f0000000000ull + (std::uint64_t(i + 1) << 32) + 0x01020304u * std::uint64_t(i + 1));
      } else if (type == "f32") {
        args += R"({"scalar": {"type": "f32", "value": 1e-5}})";
        addrs.push_back(0);
      } else {
        args += R"({"scalar": {"type": ")" + type + R"(", "value": )" + std::to_string(-1000 * i - 7) + "}}";
        addrs.push_back(0);
      }
      ++i;
    }
    args += R"(, {"null": true}, {"null": true})";
    addrs.push_back(0xdeadbeef);  // an address given for a null argument is not written
    addrs.push_back(0);
    const std::string text = R"({"kernel": ")" + std::string(entry.at("symbol")) + R"(", "grid": [5, 3, 2], "args": [)" +
                             args + "]}";
    auto spec = parse_launch_spec(text, "triton.json", "/tmp");
    ASSERT_TRUE(spec) << spec.error().str() << "\n" << text;

    auto sel = select_kernel(ks, *spec);
    ASSERT_TRUE(sel) << sel.error().str();
    EXPECT_EQ(*sel, &k);
    ASSERT_EQ(k.explicit_args().size(), entry.at("args").size() + 2);

    auto block = resolve_block(*spec, k);
    ASSERT_TRUE(block) << block.error().str();
    // Triton kernels: num_warps=4 -> 256 work-items along x (MANIFEST "about"), the metadata's max flat size.
    EXPECT_EQ(*block, (std::array<std::uint32_t, 3>{256, 1, 1}));
    const LaunchGeometry g{spec->grid, *block};
    const auto h = distinct_hidden();
    auto bytes = layout_kernargs(k, *spec, addrs, g, h);
    ASSERT_TRUE(bytes) << bytes.error().str();
    check_layout(k, *spec, addrs, g, h, *bytes);

    // Decoded independently: each pointer's 8 bytes at its metadata offset, in order, little-endian.
    std::size_t e = 0;
    for (const auto* a : k.explicit_args()) {
      if (a->value_kind == "global_buffer" && e < entry.at("args").size()) {
        std::uint64_t v = 0;
        for (int b = 7; b >= 0; --b) v = (v << 8) | std::to_integer<std::uint8_t>((*bytes)[a->offset + b]);
        EXPECT_EQ(v, addrs[e]);
      }
      ++e;
    }
    ++done;
  }
  EXPECT_GE(done, 10);
}

// ---------------------------------------------------------------------------------------------------------------
// Hidden arguments of kernels compiled by clang-22 for code object v4, v5 and v6.

TEST(Kernargs, HiddenArgumentsOfClangKernels) {
#ifndef ASMEVO_CLANG_EXE
  GTEST_SKIP() << "clang-22 not found at configure time";
#else
  const fs::path dir = fs::temp_directory_path() / ("asmevo_kernargs_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Reading the implicit argument pointer keeps every hidden argument the target has; blockDim and gridDim
  // builtins read the block counts and group sizes.
  std::ofstream(dir / "h.hip") << R"(
#define KERNEL extern "C" __attribute__((global))
KERNEL void hid(unsigned long long* out, double d, short s, char c, long l, int n) {
  const unsigned long long* p = (const unsigned long long*)__builtin_amdgcn_implicitarg_ptr();
  int t = __builtin_amdgcn_workitem_id_x();
  if (t < n) out[t] = p[t] + (unsigned long long)(d + s + c + l) + __builtin_amdgcn_workgroup_size_y();
}
)";
  for (int cov : {4, 5, 6}) {
    SCOPED_TRACE("code object v" + std::to_string(cov));
    const fs::path out = dir / ("h" + std::to_string(cov) + ".co");
    const std::string cmd = std::string("'") + ASMEVO_CLANG_EXE +
                            "' -x hip --offload-arch=gfx942 --cuda-device-only --no-gpu-bundle-output -nogpuinc "
                            "-nogpulib -O3 -mcode-object-version=" + std::to_string(cov) + " -c '" +
                            (dir / "h.hip").string() + "' -o '" + out.string() + "' 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    auto ks = kernels_of(out);
    ASSERT_EQ(ks.size(), 1u);
    const auto& k = ks[0];
    auto spec = parse_launch_spec(R"({"grid": [7, 5, 3], "block": [64, 2, 2], "args": [
        {"buffer": {"dtype": "u64", "count": 256}},
        {"scalar": {"type": "f64", "value": -2.5}},
        {"scalar": {"type": "i16", "value": -3}},
        {"scalar": {"type": "i8", "value": 100}},
        {"scalar": {"type": "i64", "value": -1234567890123}},
        {"scalar": {"type": "i32", "value": 256}}]})",
                                  "h.json", "/tmp");
    ASSERT_TRUE(spec) << spec.error().str();
    auto block = resolve_block(*spec, k);
    ASSERT_TRUE(block) << block.error().str();
    const LaunchGeometry g{spec->grid, *block};
    const auto h = distinct_hidden();
    const std::vector<std::uint64_t> addrs = {0x0000123456789ab0ull, 0, 0, 0, 0, 0};
    auto bytes = layout_kernargs(k, *spec, addrs, g, h);
    ASSERT_TRUE(bytes) << bytes.error().str();
    const int hidden = check_layout(k, *spec, addrs, g, h, *bytes);
    EXPECT_GE(hidden, cov == 4 ? 3 : 10);

    // The explicit arguments, decoded by hand: out at 0, d (f64) at 8, s (i16) at 16, c (i8) at 18, l at 24, n at 32
    // (clang's natural-alignment layout; the metadata says the same).
    std::map<std::string, const co::KernelArg*> by_kind;
    for (const auto& a : k.args) by_kind[a.value_kind] = &a;
    const auto ex = k.explicit_args();
    ASSERT_EQ(ex.size(), 6u);
    EXPECT_EQ(load_le(*bytes, ex[0]->offset, 8), 0x0000123456789ab0ull);
    EXPECT_EQ(std::bit_cast<double>(load_le(*bytes, ex[1]->offset, 8)), -2.5);
    EXPECT_EQ(static_cast<std::int16_t>(load_le(*bytes, ex[2]->offset, 2)), -3);
    EXPECT_EQ(static_cast<std::int8_t>(load_le(*bytes, ex[3]->offset, 1)), 100);
    EXPECT_EQ(static_cast<std::int64_t>(load_le(*bytes, ex[4]->offset, 8)), -1234567890123);
    EXPECT_EQ(load_le(*bytes, ex[5]->offset, 4), 256u);

    if (cov >= 5) {
      // The v5 implicit block, at the AMDGPUUsage "Implicit Kernel Arguments" offsets from its start.
      ASSERT_TRUE(by_kind.count("hidden_block_count_x"));
      const std::uint64_t base = by_kind["hidden_block_count_x"]->offset;
      EXPECT_EQ(load_le(*bytes, base + 0, 4), 7u);
      EXPECT_EQ(load_le(*bytes, base + 4, 4), 5u);
      EXPECT_EQ(load_le(*bytes, base + 8, 4), 3u);
      EXPECT_EQ(load_le(*bytes, base + 12, 2), 64u);
      EXPECT_EQ(load_le(*bytes, base + 14, 2), 2u);
      EXPECT_EQ(load_le(*bytes, base + 16, 2), 2u);
      EXPECT_EQ(load_le(*bytes, base + 18, 6), 0u);   // remainders x, y, z
      EXPECT_EQ(load_le(*bytes, base + 40, 8), 0u);   // global offset x
      EXPECT_EQ(load_le(*bytes, base + 64, 2), 3u);   // grid dims
      EXPECT_EQ(load_le(*bytes, base + 80, 8), h.hostcall_buffer);
      EXPECT_EQ(load_le(*bytes, base + 200, 8), h.queue_ptr);
    }
  }
  fs::remove_all(dir);
#endif
}

// ---------------------------------------------------------------------------------------------------------------
// Synthetic metadata: every hidden kind, and every error.

TEST(Kernargs, EveryHiddenKind) {
  const auto k = synthetic();
  auto spec = parse_launch_spec(R"({"grid": [70000, 3, 1], "block": [16, 4, 2],
      "args": [{"buffer": {"dtype": "f32", "count": 8}}, {"scalar": {"type": "u32", "value": 4000000000}}]})", "s.json",
                                "/tmp");
  ASSERT_TRUE(spec) << spec.error().str();
  auto block = resolve_block(*spec, k);
  ASSERT_TRUE(block) << block.error().str();
  const LaunchGeometry g{spec->grid, *block};
  const auto h = distinct_hidden();
  const std::vector<std::uint64_t> addrs = {0xffffa0b0c0d0e0f0ull, 0};
  auto bytes = layout_kernargs(k, *spec, addrs, g, h);
  ASSERT_TRUE(bytes) << bytes.error().str();
  EXPECT_EQ(check_layout(k, *spec, addrs, g, h, *bytes), 24);
  EXPECT_EQ(load_le(*bytes, 16 + 0, 4), 70000u);
  EXPECT_EQ(load_le(*bytes, 16 + 14, 2), 4u);
  EXPECT_EQ(load_le(*bytes, 16 + 120, 4), 4096u);
  EXPECT_EQ(load_le(*bytes, 16 + 192, 4), 0x10000u);
  EXPECT_EQ(load_le(*bytes, 8, 4), 4000000000u);
}

TEST(Kernargs, Mismatches) {
  const auto k = synthetic();
  const LaunchGeometry g{{1, 1, 1}, {64, 1, 1}};
  auto check = [&](const std::string& args, std::vector<std::uint64_t> addrs, const char* pointer, const char* says) {
    auto spec = parse_launch_spec(R"({"grid": [1], "args": [)" + args + "]}", "m.json", "/tmp");
    ASSERT_TRUE(spec) << spec.error().str();
    auto r = layout_kernargs(k, *spec, addrs, g, {});
    ASSERT_FALSE(r) << args;
    const auto m = r.error().str();
    EXPECT_NE(m.find(pointer), std::string::npos) << args << "\n" << m;
    EXPECT_NE(m.find(says), std::string::npos) << args << "\n" << m;
  };
  check(R"({"null": true})", {0}, "/args: kernel synth takes 2 explicit arguments, the spec gives 1",
        "out:global_buffer(8), n:by_value(4)");
  check(R"({"null": true}, {"null": true}, {"null": true})", {0, 0, 0}, "/args: kernel synth takes 2", "");
  check(R"({"scalar": {"type": "i64", "value": 1}}, {"scalar": {"type": "i32", "value": 1}})", {0, 0},
        "/args/0: the kernel's argument 0 (out) is a global_buffer pointer; the spec gives a scalar",
        "{\"null\": true}");
  check(R"({"null": true}, {"buffer": {"dtype": "i32", "count": 1}})", {0, 8},
        "/args/1: the kernel's argument 1 (n) is passed by value (4 bytes); the spec gives a buffer",
        "a scalar of type f32, i32, u32");
  check(R"({"null": true}, {"scalar": {"type": "i64", "value": 1}})", {0, 0},
        "/args/1/scalar/type: the kernel's argument 1 (n) is 4 bytes by value; i64 is 8", "one of: f32, i32, u32");
  // Both problems in one pass.
  check(R"({"scalar": {"type": "i64", "value": 1}}, {"null": true})", {0, 0}, "2 problems", "/args/1: ");
  // API misuse: one address per argument.
  check(R"({"null": true}, {"scalar": {"type": "i32", "value": 1}})", {0}, "1 argument addresses for 2", "");

  // Metadata that does not fit its own segment, and kinds a launch spec cannot describe.
  auto bad = synthetic();
  bad.args[1].offset = bad.kernarg_segment_size - 2;
  auto spec = parse_launch_spec(R"({"grid": [1], "args": [{"null": true}, {"scalar": {"type": "i32", "value": 1}}]})",
                                "m.json", "/tmp");
  ASSERT_TRUE(spec);
  auto r = layout_kernargs(bad, *spec, std::vector<std::uint64_t>{0, 0}, g, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, DiagCode::object_error);
  EXPECT_NE(r.error().str().find("runs past .kernarg_segment_size 272"), std::string::npos) << r.error().str();
  auto img = synthetic();
  img.args[1].value_kind = "image";
  r = layout_kernargs(img, *spec, std::vector<std::uint64_t>{0, 0}, g, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().str().find("/args/1: the kernel's argument 1 (n) has value kind image"), std::string::npos);
  auto huge = synthetic();
  huge.kernarg_segment_size = std::uint64_t{1} << 40;
  EXPECT_FALSE(layout_kernargs(huge, *spec, std::vector<std::uint64_t>{0, 0}, g, {}));
}

TEST(Kernargs, ResolveBlock) {
  auto spec_of = [](const std::string& extra) {
    auto s = parse_launch_spec(R"({"grid": [4, 1, 1], "args": [])" + extra + "}", "b.json", "/tmp");
    EXPECT_TRUE(s) << s.error().str();
    return *s;
  };
  auto k = synthetic();  // max flat 256, no reqd size
  EXPECT_EQ(*resolve_block(spec_of(""), k), (std::array<std::uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(*resolve_block(spec_of(R"(, "block": [16, 8, 2])"), k), (std::array<std::uint32_t, 3>{16, 8, 2}));
  auto over = resolve_block(spec_of(R"(, "block": [512])"), k);
  ASSERT_FALSE(over);
  EXPECT_NE(over.error().str().find("/block: [512, 1, 1] is 512 work-items, more than kernel synth's "
                                    ".max_flat_workgroup_size 256"),
            std::string::npos)
      << over.error().str();

  k.reqd_workgroup_size = std::array<std::uint64_t, 3>{32, 2, 1};
  EXPECT_EQ(*resolve_block(spec_of(""), k), (std::array<std::uint32_t, 3>{32, 2, 1}));
  EXPECT_EQ(*resolve_block(spec_of(R"(, "block": [32, 2, 1])"), k), (std::array<std::uint32_t, 3>{32, 2, 1}));
  auto differs = resolve_block(spec_of(R"(, "block": [64])"), k);
  ASSERT_FALSE(differs);
  EXPECT_NE(differs.error().str().find("differs from kernel synth's .reqd_workgroup_size [32, 2, 1]"),
            std::string::npos);

  auto none = synthetic();
  none.max_flat_workgroup_size = 0;
  auto no = resolve_block(spec_of(""), none);
  ASSERT_FALSE(no);
  EXPECT_NE(no.error().str().find("/block: not given"), std::string::npos);

  auto big = spec_of(R"(, "block": [256])");
  big.grid = {16777216, 1, 1};  // 2^24 groups of 256: 2^32 work-items, one more than the packet holds
  auto wide = resolve_block(big, synthetic());
  ASSERT_FALSE(wide);
  EXPECT_NE(wide.error().str().find("grid[0] * block[0] = 4294967296"), std::string::npos) << wide.error().str();
}

TEST(Kernargs, SelectKernel) {
  auto a = synthetic();
  auto b = synthetic();
  b.name = "other";
  b.symbol = "_Z5otherv.kd";
  const std::vector<co::KernelMeta> ks = {a, b};
  LaunchSpec s;
  s.kernel = "_Z5otherv";
  EXPECT_EQ((*select_kernel(ks, s))->name, "other");
  s.kernel = "other";
  EXPECT_EQ((*select_kernel(ks, s))->name, "other");
  s.kernel = "synth";
  EXPECT_EQ((*select_kernel(ks, s))->name, "synth");
  s.kernel = "nope";
  auto r = select_kernel(ks, s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().str().find("/kernel: no kernel \"nope\""), std::string::npos);
  EXPECT_NE(r.error().str().find("one of: synth, other"), std::string::npos);
  s.kernel.clear();
  EXPECT_FALSE(select_kernel(ks, s));
  EXPECT_EQ((*select_kernel(std::vector<co::KernelMeta>{a}, s))->name, "synth");
}
