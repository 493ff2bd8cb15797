// verify/hip/executor.hpp: the HIP executor's device-free parts (guard pattern and check, buffer plan, buffer sets
// reused across runs, kernarg plan, median) and its behaviour without a device (open() fails cleanly, silently and
// repeatably); launch/kernargs.hpp's LDS rule and the kernarg comparison that leaves hidden arguments out.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "asmevo/emu/launch.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/verify/hip/executor.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"

using namespace asmevo;
namespace plan = asmevo::hip::plan;
namespace co = asmevo::codeobject;

// The executor is a model of the concept the differential verifier is written against, and cheap to move (between
// calls it owns only its buffer sets, which move with it).
static_assert(verify::Executor<hip::HipExecutor>);
static_assert(std::is_nothrow_move_constructible_v<hip::HipExecutor>);

namespace {

/// True when the HIP runtime here reports at least one device (the no-device tests then skip).
bool have_device() {
  int n = 0;
  return hipGetDeviceCount(&n) == hipSuccess && n > 0;
}

verify::LaunchSpec spec_of(const std::string& json) {
  auto s = verify::parse_launch_spec(json, "<test>", ".");
  EXPECT_TRUE(s) << (s ? "" : s.error().str());
  return s ? *s : verify::LaunchSpec{};
}

std::uint64_t load_le(const std::vector<std::byte>& b, std::uint64_t at, std::uint64_t size) {
  std::uint64_t v = 0;
  for (std::uint64_t i = 0; i < size; ++i) v |= std::uint64_t(std::to_integer<std::uint8_t>(b[at + i])) << (8 * i);
  return v;
}

co::KernelArg arg(std::string kind, std::uint64_t offset, std::uint64_t size) {
  co::KernelArg a;
  a.value_kind = std::move(kind);
  a.offset = offset;
  a.size = size;
  return a;
}

/// Runs `spec` on the emulator and checks that the HIP plan, given the addresses the emulator's buffers had, gives
/// the emulator's kernarg segment byte for byte (DESIGN.md "Verification policy": same kernarg bytes).
void expect_emulator_kernargs(const std::string& file, const verify::LaunchSpec& spec) {
  const auto* obj = emu::test::cached_object(file);
  ASSERT_NE(obj, nullptr);
  auto res = emu::emulate(obj->module, obj->elf, spec);
  ASSERT_TRUE(res) << res.error().str();
  ASSERT_TRUE(res->ok()) << res->stop.message;
  std::vector<std::uint64_t> addrs(spec.args.size(), 0);
  for (const auto& b : res->buffers) addrs.at(b.arg) = b.address;
  auto ks = co::kernels(obj->module.metadata);
  ASSERT_TRUE(ks);
  auto meta = verify::select_kernel(*ks, spec);
  ASSERT_TRUE(meta);
  auto k = plan::kernargs(**meta, spec, addrs);
  ASSERT_TRUE(k) << k.error().str();
  ASSERT_FALSE(res->kernarg.empty());
  EXPECT_EQ(k->bytes, res->kernarg);
}

}  // namespace

// ---- No device ------------------------------------------------------------------------------------------------

TEST(HipExecutor, OpenWithoutDeviceFailsWithTheRuntimesReason) {
  if (have_device()) GTEST_SKIP() << "a HIP device is present; this test is for machines without one";
  // The reason the runtime itself gives, asked directly (DESIGN.md: without an AMD GPU, hipGetDeviceCount returns
  // hipErrorNoDevice).
  int n = 0;
  const hipError_t direct = hipGetDeviceCount(&n);
  ASSERT_NE(direct, hipSuccess);
  const std::string reason = hipGetErrorName(direct);

  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const auto t0 = std::chrono::steady_clock::now();
  auto x = hip::HipExecutor::open();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string out = testing::internal::GetCapturedStdout();

  ASSERT_FALSE(x);
  const Diag& d = x.error();
  // The CLI maps every code but `internal` to exit 2 (tools/asmevo/cli.hpp); a missing device is `unsupported`.
  EXPECT_EQ(d.code, DiagCode::unsupported);
  EXPECT_EQ(d.message.rfind("no HIP device: ", 0), 0u) << d.message;
  EXPECT_NE(d.message.find(reason), std::string::npos) << d.message << " should name " << reason;
  if (!std::filesystem::exists("/dev/kfd")) {
    EXPECT_EQ(reason, "hipErrorNoDevice");
    EXPECT_NE(d.message.find("hipErrorNoDevice"), std::string::npos) << d.message;
  }
  // Nothing of its own on the terminal, and no hang.
  EXPECT_EQ(err, "");
  EXPECT_EQ(out, "");
  EXPECT_LT(seconds, 5.0);
}

TEST(HipExecutor, RepeatedOpenWithoutDeviceGivesTheSameAnswer) {
  if (have_device()) GTEST_SKIP() << "a HIP device is present; this test is for machines without one";
  auto first = hip::HipExecutor::open();
  ASSERT_FALSE(first);
  for (int i = 0; i < 50; ++i) {
    // Any index, including nonsense ones: without a device the answer is "no device", not "bad index".
    for (int dev : {0, 1, 7, -1}) {
      auto again = hip::HipExecutor::open(dev);
      ASSERT_FALSE(again) << "open(" << dev << ") call " << i;
      EXPECT_EQ(again.error().code, DiagCode::unsupported);
      EXPECT_EQ(again.error().message, first.error().message);
    }
  }
}

TEST(HipExecutor, NoDeviceMessageAddsTheStringOnlyWhenItSaysMore) {
  EXPECT_EQ(plan::no_device_message("hipGetDeviceCount", "hipErrorNoDevice", "hipErrorNoDevice"),
            "no HIP device: hipGetDeviceCount returned hipErrorNoDevice");
  EXPECT_EQ(plan::no_device_message("hipGetDeviceCount", "hipErrorNoDevice", "no ROCm-capable device is detected"),
            "no HIP device: hipGetDeviceCount returned hipErrorNoDevice (no ROCm-capable device is detected)");
}

// ---- Guard bytes ----------------------------------------------------------------------------------------------

TEST(HipGuards, FirstChangedByteBeforeOrAfterTheBuffer) {
  // A 10-byte buffer: guard [0, 4096), buffer [4096, 4106), guard [4106, 8202).
  const plan::BufferPlan p{0, 10, 4096, 4096 + 10 + 4096};
  std::vector<std::byte> a(p.alloc_bytes, std::byte{0x77});
  plan::fill_guards(a, p);
  // The buffer itself is left alone; the guards differ from what was there (the pattern is not a constant 0x77).
  for (std::size_t i = 4096; i < 4106; ++i) EXPECT_EQ(a[i], std::byte{0x77}) << i;
  EXPECT_FALSE(plan::find_guard_hit(a, p));

  auto flip = [](std::vector<std::byte> v, std::size_t at) {
    v[at] ^= std::byte{0xff};  // always a change
    return v;
  };
  // Writes inside the buffer are the kernel's business.
  EXPECT_FALSE(plan::find_guard_hit(flip(flip(a, 4096), 4105), p));
  // The byte just before the buffer: offset -1. The first guard byte of the allocation: -4096.
  EXPECT_EQ(plan::find_guard_hit(flip(a, 4095), p), std::optional<std::int64_t>(-1));
  EXPECT_EQ(plan::find_guard_hit(flip(a, 0), p), std::optional<std::int64_t>(-4096));
  // The byte just past the end: offset 10 (= the buffer size). The allocation's last byte: 10 + 4095.
  EXPECT_EQ(plan::find_guard_hit(flip(a, 4106), p), std::optional<std::int64_t>(10));
  EXPECT_EQ(plan::find_guard_hit(flip(a, 8201), p), std::optional<std::int64_t>(4105));
  // Two hits: the lowest address is reported.
  EXPECT_EQ(plan::find_guard_hit(flip(flip(a, 8000), 4100 - 50), p), std::optional<std::int64_t>(-46));
  EXPECT_EQ(plan::find_guard_hit(flip(flip(a, 4200), 4107), p), std::optional<std::int64_t>(11));
}

TEST(HipGuards, MessageSaysWhichSideAndHowFar) {
  const plan::BufferPlan p{2, 40, 4096, 4096 + 40 + 4096};
  EXPECT_EQ(plan::guard_message(p, 40),
            "argument 2: a write landed in the guard bytes 1 byte past the end of its 40-byte buffer (offset 40)");
  EXPECT_EQ(plan::guard_message(p, 44),
            "argument 2: a write landed in the guard bytes 5 bytes past the end of its 40-byte buffer (offset 44)");
  EXPECT_EQ(plan::guard_message(p, -1),
            "argument 2: a write landed in the guard bytes 1 byte before the start of its 40-byte buffer (offset -1)");
}

TEST(HipGuards, EmptyBufferHasAdjacentGuards) {
  const plan::BufferPlan p{3, 0, 4096, 8192};
  std::vector<std::byte> a(p.alloc_bytes);
  plan::fill_guards(a, p);
  EXPECT_FALSE(plan::find_guard_hit(a, p));
  a[4096] ^= std::byte{1};
  EXPECT_EQ(plan::find_guard_hit(a, p), std::optional<std::int64_t>(0));  // at the end of an empty buffer
}

TEST(HipGuards, StoresOfCommonConstantsIntoTheGuardsAreSeen) {
  // A dword store of 0, -1, 1.0f or 0x80808080 anywhere in either guard changes at least one byte: the pattern
  // never holds four equal bytes in a row.
  const plan::BufferPlan p{0, 64, 4096, 4096 + 64 + 4096};
  std::vector<std::byte> a(p.alloc_bytes);
  plan::fill_guards(a, p);
  for (std::uint32_t c : {0x00000000u, 0xffffffffu, 0x3f800000u, 0x80808080u}) {
    for (std::uint64_t at = 0; at + 4 <= p.alloc_bytes; at += 4) {
      if (at + 4 > p.offset && at < p.offset + p.bytes) continue;
      auto b = a;
      std::memcpy(b.data() + at, &c, 4);
      const auto hit = plan::find_guard_hit(b, p);
      ASSERT_TRUE(hit) << "store of 0x" << std::hex << c << " at " << std::dec << at << " not seen";
      EXPECT_GE(*hit + static_cast<std::int64_t>(p.offset), static_cast<std::int64_t>(at));
      EXPECT_LT(*hit + static_cast<std::int64_t>(p.offset), static_cast<std::int64_t>(at + 4));
    }
  }
}

// ---- Buffer plan ----------------------------------------------------------------------------------------------

TEST(HipPlan, OneAllocationPerBufferArgumentWithGuardsOnBothSides) {
  const auto spec = spec_of(R"({"grid": [1,1,1], "block": [64,1,1], "args": [
      {"buffer": {"dtype": "f32", "count": 10, "init": "zeros"}},
      {"scalar": {"type": "i32", "value": 5}},
      {"null": true},
      {"buffer": {"dtype": "f16", "count": 3, "init": {"fill": 1.0}}}]})");
  auto ps = plan::buffers(spec);
  ASSERT_TRUE(ps) << ps.error().str();
  ASSERT_EQ(ps->size(), 2u);
  EXPECT_EQ((*ps)[0].arg, 0u);
  EXPECT_EQ((*ps)[0].bytes, 40u);   // 10 x 4 bytes
  EXPECT_EQ((*ps)[0].offset, 4096u);
  EXPECT_EQ((*ps)[0].alloc_bytes, 4096u + 40 + 4096);
  EXPECT_EQ((*ps)[1].arg, 3u);
  EXPECT_EQ((*ps)[1].bytes, 6u);    // 3 x 2 bytes
  EXPECT_EQ((*ps)[1].alloc_bytes, 4096u + 6 + 4096);
}

TEST(HipPlan, MedianOfKnownSamples) {
  const std::vector<double> odd{3, 1, 2}, even{4, 1, 3, 2}, one{5}, outlier{1000, 1, 1, 1, 1}, none{};
  EXPECT_EQ(plan::median(odd), 2.0);
  EXPECT_EQ(plan::median(even), 2.5);
  EXPECT_EQ(plan::median(one), 5.0);
  EXPECT_EQ(plan::median(outlier), 1.0);  // one slow launch does not move it
  EXPECT_EQ(plan::median(none), 0.0);
}

TEST(HipPlan, ProcessorOfATargetId) {
  EXPECT_EQ(plan::processor_of("gfx942:sramecc+:xnack-"), "gfx942");
  EXPECT_EQ(plan::processor_of("gfx90a"), "gfx90a");
}

// ---- Kernarg plan ---------------------------------------------------------------------------------------------

TEST(HipKernargs, TritonVecAddAsItsMetadataLaysItOut) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto path = dir / "triton" / "vec_add_f32.gfx942.hsaco";
  auto f = co::ElfFile::read(path);
  ASSERT_TRUE(f) << f.error().str();
  auto doc = co::read_metadata(*f);
  ASSERT_TRUE(doc);
  auto ks = co::kernels(*doc);
  ASSERT_TRUE(ks);
  ASSERT_EQ(ks->size(), 1u);
  // Hand-read from triton/vec_add_f32.gfx942.s (.amdgpu_metadata): x@0, y@8, out@16 (global_buffer, 8 bytes),
  // n@24 (by_value, 4), two Triton scratch pointers @32 and @40 (global_buffer), .kernarg_segment_size 48,
  // .max_flat_workgroup_size 256, .group_segment_fixed_size 0, no hidden arguments.
  const auto spec = spec_of(R"({"grid": [4,1,1], "args": [
      {"buffer": {"dtype": "f32", "count": 1000, "init": "zeros"}},
      {"buffer": {"dtype": "f32", "count": 1000, "init": "zeros"}},
      {"buffer": {"dtype": "f32", "count": 1000, "init": "zeros"}},
      {"scalar": {"type": "i32", "value": -1000}},
      {"null": true}, {"null": true}]})");
  const std::vector<std::uint64_t> addrs{0x7f0000001000ull, 0x7f0000102000ull, 0x7f0000203000ull, 0, 0, 0};
  auto k = plan::kernargs(ks->front(), spec, addrs);
  ASSERT_TRUE(k) << k.error().str();
  ASSERT_EQ(k->bytes.size(), 48u);
  EXPECT_EQ(load_le(k->bytes, 0, 8), 0x7f0000001000ull);
  EXPECT_EQ(load_le(k->bytes, 8, 8), 0x7f0000102000ull);
  EXPECT_EQ(load_le(k->bytes, 16, 8), 0x7f0000203000ull);
  EXPECT_EQ(load_le(k->bytes, 24, 4), 0xfffffc18ull);  // -1000 as i32
  EXPECT_EQ(load_le(k->bytes, 28, 4), 0u);             // padding
  EXPECT_EQ(load_le(k->bytes, 32, 8), 0u);
  EXPECT_EQ(load_le(k->bytes, 40, 8), 0u);
  EXPECT_EQ(k->block, (std::array<std::uint32_t, 3>{256, 1, 1}));
  // No fixed LDS: Triton declares its shared memory dynamically, so the launch asks for the whole 64 KiB.
  EXPECT_EQ(k->dynamic_lds, 65536u);
}

TEST(HipKernargs, HiddenArgumentsAndDynamicLds) {
  // A hand-built code object v5 kernel: one pointer, one i32, then hidden arguments at the v5 implicit offsets
  // (AMDGPUUsage "Code Object V5 Metadata": block_count_x at 0, group_size_x at 12, dynamic_lds_size at 120 of the
  // implicit area, which starts at 16 here) and 1 KiB of fixed LDS.
  co::KernelMeta m;
  m.name = "k";
  m.symbol = "k.kd";
  m.kernarg_segment_size = 16 + 256;
  m.max_flat_workgroup_size = 1024;
  m.group_segment_fixed_size = 1024;
  m.args = {arg("global_buffer", 0, 8), arg("by_value", 8, 4), arg("hidden_block_count_x", 16, 4),
            arg("hidden_group_size_x", 28, 2), arg("hidden_dynamic_lds_size", 136, 4)};
  const std::vector<std::uint64_t> addrs{0x1000, 0};
  const auto base = R"("grid": [7,1,1], "block": [128,1,1], "args": [
      {"buffer": {"dtype": "u8", "count": 1, "init": "zeros"}}, {"scalar": {"type": "u32", "value": 9}}])";

  // No "dynamic_lds": the rest of the 64 KiB: 65536 - 1024.
  auto k = plan::kernargs(m, spec_of(std::string("{") + base + "}"), addrs);
  ASSERT_TRUE(k) << k.error().str();
  EXPECT_EQ(k->dynamic_lds, 64512u);
  EXPECT_EQ(load_le(k->bytes, 0, 8), 0x1000u);
  EXPECT_EQ(load_le(k->bytes, 8, 4), 9u);
  EXPECT_EQ(load_le(k->bytes, 16, 4), 7u);     // workgroups along x
  EXPECT_EQ(load_le(k->bytes, 28, 2), 128u);   // work-items per workgroup along x
  EXPECT_EQ(load_le(k->bytes, 136, 4), 64512u);

  // "dynamic_lds": 4096 asked for, given; 65536 asked for, capped so that fixed + dynamic = 64 KiB.
  k = plan::kernargs(m, spec_of(std::string("{") + base + R"(, "dynamic_lds": 4096})"), addrs);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->dynamic_lds, 4096u);
  EXPECT_EQ(load_le(k->bytes, 136, 4), 4096u);
  k = plan::kernargs(m, spec_of(std::string("{") + base + R"(, "dynamic_lds": 65536})"), addrs);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->dynamic_lds, 64512u);

  // Fixed LDS and no hidden_dynamic_lds_size: the kernel cannot use dynamic LDS, so none is given.
  m.args.pop_back();
  k = plan::kernargs(m, spec_of(std::string("{") + base + "}"), addrs);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->dynamic_lds, 0u);
}

TEST(HipKernargs, MismatchIsBadInputNamingTheArgument) {
  co::KernelMeta m;
  m.name = "k";
  m.symbol = "k.kd";
  m.kernarg_segment_size = 8;
  m.max_flat_workgroup_size = 64;
  m.args = {arg("global_buffer", 0, 8)};
  const std::vector<std::uint64_t> addrs{0};
  auto k = plan::kernargs(m, spec_of(R"({"grid": [1,1,1], "args": [{"scalar": {"type": "i32", "value": 1}}]})"), addrs);
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().code, DiagCode::internal);
  EXPECT_NE(k.error().message.find("/args/0"), std::string::npos) << k.error().message;
}

TEST(HipKernargs, SameBytesAsTheEmulatorForTheSameAddresses) {
  ASMEVO_REQUIRE_CORPUS(dir);
  // Triton corpus kernels (explicit arguments only, among them Triton's two scratch pointers).
  struct Case { const char* file; std::string spec; };
  const std::string nulls = R"({"null": true}, {"null": true})";
  const std::vector<Case> cases{
      {"vec_add_f32.gfx942.hsaco", R"({"grid": [2,1,1], "args": [
          {"buffer": {"dtype": "f32", "count": 512, "init": {"iota": {"start": 0, "step": 1}}}},
          {"buffer": {"dtype": "f32", "count": 512, "init": {"fill": 2}}},
          {"buffer": {"dtype": "f32", "count": 512, "init": "zeros"}},
          {"scalar": {"type": "i32", "value": 500}}, )" + nulls + "]}"},
      {"softmax_f32.gfx90a.hsaco", R"({"grid": [2,1,1], "args": [
          {"buffer": {"dtype": "f32", "count": 2048, "init": "zeros"}},
          {"buffer": {"dtype": "f32", "count": 2048, "init": {"random": {"seed": 3, "min": -1, "max": 1}}}},
          {"scalar": {"type": "i32", "value": 1024}}, {"scalar": {"type": "i32", "value": 1024}},
          {"scalar": {"type": "i32", "value": 1024}}, )" + nulls + "]}"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    expect_emulator_kernargs((dir / "triton" / c.file).string(), spec_of(c.spec));
  }
}

#ifdef ASMEVO_EXAMPLES_DIR
TEST(HipKernargs, SameBytesAsTheEmulatorWithHiddenArgumentsAndLds) {
  // The project's clang-22 kernels (examples/kernels/emu_kernels.hip): saxpy has code object v5 hidden arguments
  // (block counts, group sizes, remainders, global offsets, grid dims); block_sum has 1 KiB of fixed LDS and none.
  const std::string file = std::string(ASMEVO_EXAMPLES_DIR) + "/emu_kernels.gfx942.co";
  {
    SCOPED_TRACE("saxpy");
    expect_emulator_kernargs(file, spec_of(R"({"kernel": "saxpy", "grid": [3,1,1], "block": [64,1,1], "args": [
        {"scalar": {"type": "f32", "value": 2.5}},
        {"buffer": {"dtype": "f32", "count": 150, "init": {"iota": {"start": 1, "step": 1}}}},
        {"buffer": {"dtype": "f32", "count": 150, "init": {"fill": 1}}},
        {"scalar": {"type": "i32", "value": 150}}]})"));
  }
  {
    SCOPED_TRACE("block_sum");
    expect_emulator_kernargs(file, spec_of(R"({"kernel": "block_sum", "grid": [2,1,1], "args": [
        {"buffer": {"dtype": "f32", "count": 1000, "init": {"fill": 1}}},
        {"buffer": {"dtype": "f32", "count": 2, "init": "zeros"}},
        {"scalar": {"type": "i32", "value": 1000}}, {"scalar": {"type": "i32", "value": 500}}]})"));
  }
}
#endif

// ---- Buffer sets across runs (3b: K0's and K1's runs must see the same addresses) -------------------------------

namespace {

/// Hands out addresses 0x10000, 0x20000, ... and records what is released; fails the allocation numbered `fail_at`.
struct FakeAllocator {
  std::uint64_t next = 0x10000;
  int count = 0, fail_at = -1;
  std::vector<std::uint64_t>* released = nullptr;
  Expected<std::uint64_t> allocate(std::uint64_t bytes) {
    if (count++ == fail_at) return fail(DiagCode::unsupported, "hipMalloc: hipErrorOutOfMemory");
    const std::uint64_t a = next;
    next += (bytes + 0xffff) / 0x10000 * 0x10000 + 0x10000;
    return a;
  }
  void release(std::uint64_t a) noexcept {
    if (released) released->push_back(a);
  }
};

const char* three_buffers = R"({"grid": [4,1,1], "args": [
    {"buffer": {"dtype": "f32", "count": 1000, "init": "zeros"}},
    {"buffer": {"dtype": "f32", "count": 1000, "init": {"random": {"seed": 1, "min": 0, "max": 1}}}},
    {"buffer": {"dtype": "f32", "count": 1000, "init": "zeros"}},
    {"scalar": {"type": "i32", "value": 1000}}, {"null": true}, {"null": true}]})";

}  // namespace

TEST(HipBufferSets, SameShapeSameAddressesSoSameKernargBytes) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto f = co::ElfFile::read(dir / "triton" / "vec_add_f32.gfx942.hsaco");
  ASSERT_TRUE(f);
  auto doc = co::read_metadata(*f);
  ASSERT_TRUE(doc);
  auto ks = co::kernels(*doc);
  ASSERT_TRUE(ks);
  std::vector<std::uint64_t> released;
  FakeAllocator fa;
  fa.released = &released;
  plan::BufferSets<FakeAllocator> sets(fa);
  const auto spec = spec_of(three_buffers);
  auto bp = plan::buffers(spec);
  ASSERT_TRUE(bp);
  // What run() does, twice (K0's run, then K1's): acquire the shape's set, addresses past the guard, kernarg plan.
  auto kernargs_of_one_run = [&]() -> std::vector<std::byte> {
    auto set = sets.acquire(*bp);
    EXPECT_TRUE(set) << set.error().str();
    if (!set) return {};
    std::vector<std::uint64_t> addr(spec.args.size(), 0);
    for (std::size_t b = 0; b < bp->size(); ++b) addr[(*bp)[b].arg] = (*set)[b] + (*bp)[b].offset;
    auto k = plan::kernargs(ks->front(), spec, addr);
    EXPECT_TRUE(k);
    return k ? k->bytes : std::vector<std::byte>{};
  };
  const auto k0 = kernargs_of_one_run();
  const auto k1 = kernargs_of_one_run();
  ASSERT_EQ(k0.size(), 48u);
  EXPECT_EQ(k0, k1);
  // The pointers are the fake allocator's first three addresses, each past its 4 KiB guard.
  EXPECT_EQ(load_le(k0, 0, 8), 0x10000u + plan::guard_bytes);
  EXPECT_EQ(load_le(k0, 8, 8), 0x30000u + plan::guard_bytes);
  EXPECT_EQ(load_le(k0, 16, 8), 0x50000u + plan::guard_bytes);
  EXPECT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets.allocator().count, 3);  // one allocation per buffer, not per run
  EXPECT_TRUE(released.empty());

  // Another input draw of the same shape (other init, same sizes) shares the set; another size does not.
  auto other = spec_of(three_buffers);
  other.args[1].buffer.init.seed = 99;
  auto bp2 = plan::buffers(other);
  ASSERT_TRUE(bp2);
  auto s2 = sets.acquire(*bp2);
  ASSERT_TRUE(s2);
  EXPECT_EQ((*s2)[0], 0x10000u);
  EXPECT_EQ(sets.allocator().count, 3);
  other.args[2].buffer.count = 2000;
  auto bp3 = plan::buffers(other);
  ASSERT_TRUE(bp3);
  auto s3 = sets.acquire(*bp3);
  ASSERT_TRUE(s3);
  EXPECT_NE((*s3)[0], 0x10000u);
  EXPECT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets.allocator().count, 6);
  // Back to the first shape: still kept, same addresses.
  auto s4 = sets.acquire(*bp);
  ASSERT_TRUE(s4);
  EXPECT_EQ((*s4)[0], 0x10000u);
  EXPECT_EQ(sets.allocator().count, 6);
}

TEST(HipBufferSets, LeastRecentlyUsedSetIsReleasedBeyondCapacity) {
  std::vector<std::uint64_t> released;
  FakeAllocator fa;
  fa.released = &released;
  {
    plan::BufferSets<FakeAllocator> sets(fa, 2);
    auto shape = [](std::uint64_t bytes) { return std::vector<plan::BufferPlan>{{0, bytes, 4096, bytes + 8192}}; };
    const auto a = shape(16), b = shape(32), c = shape(64);
    const std::uint64_t first_a = (*sets.acquire(a))[0];
    ASSERT_TRUE(sets.acquire(b));
    ASSERT_TRUE(sets.acquire(a));   // a is now the most recently used
    ASSERT_TRUE(sets.acquire(c));   // evicts b, not a
    EXPECT_EQ(sets.size(), 2u);
    ASSERT_EQ(released.size(), 1u);
    EXPECT_EQ(released[0], 0x30000u);  // b's allocation (a's took 0x10000 and the 64 KiB after it)
    EXPECT_EQ((*sets.acquire(a))[0], first_a);
    // Moving the sets moves ownership: nothing is released twice.
    plan::BufferSets<FakeAllocator> moved(std::move(sets));
    EXPECT_EQ(moved.size(), 2u);
    EXPECT_EQ(released.size(), 1u);
  }
  // Destroyed: a's and c's allocations are released too, each once.
  ASSERT_EQ(released.size(), 3u);
  std::map<std::uint64_t, int> times;
  for (auto r : released) ++times[r];
  for (const auto& [addr, n] : times) EXPECT_EQ(n, 1) << addr;
}

TEST(HipBufferSets, FailedAllocationKeepsNothingAndNamesTheArgument) {
  std::vector<std::uint64_t> released;
  FakeAllocator fa;
  fa.released = &released;
  fa.fail_at = 1;  // the second buffer's allocation fails
  plan::BufferSets<FakeAllocator> sets(fa);
  const auto spec = spec_of(three_buffers);
  auto bp = plan::buffers(spec);
  ASSERT_TRUE(bp);
  auto s = sets.acquire(*bp);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("arg 1"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("hipErrorOutOfMemory"), std::string::npos) << s.error().message;
  EXPECT_EQ(sets.size(), 0u);
  ASSERT_EQ(released.size(), 1u);  // the first buffer's allocation went back
  EXPECT_EQ(released[0], 0x10000u);
}

// ---- The LDS rule and the kernarg comparison (3c, item 5) -------------------------------------------------------

TEST(HipKernargs, LdsAllocationIsTheEmulatorsRule) {
  co::KernelMeta m;
  m.name = "k";
  m.max_flat_workgroup_size = 64;
  // No fixed LDS (Triton): the whole 64 KiB is dynamic; a spec's "dynamic_lds" is taken as given.
  auto l = verify::lds_allocation(m, spec_of(R"({"grid": [1,1,1], "args": []})"));
  EXPECT_EQ(l.fixed, 0u);
  EXPECT_EQ(l.dynamic, 65536u);
  l = verify::lds_allocation(m, spec_of(R"({"grid": [1,1,1], "args": [], "dynamic_lds": 1000})"));
  EXPECT_EQ(l.dynamic, 1000u);
  EXPECT_EQ(l.total(), 1000u);
  // 3 KiB fixed, no hidden_dynamic_lds_size: exactly the fixed size; with the hidden argument, the rest of 64 KiB.
  m.group_segment_fixed_size = 3072;
  l = verify::lds_allocation(m, spec_of(R"({"grid": [1,1,1], "args": []})"));
  EXPECT_EQ(l.fixed, 3072u);
  EXPECT_EQ(l.dynamic, 0u);
  m.args = {arg("hidden_dynamic_lds_size", 0, 4)};
  l = verify::lds_allocation(m, spec_of(R"({"grid": [1,1,1], "args": []})"));
  EXPECT_EQ(l.dynamic, 65536u - 3072u);
  EXPECT_EQ(verify::dynamic_lds_bytes(m, spec_of(R"({"grid": [1,1,1], "args": []})")), 65536u - 3072u);
}

TEST(HipKernargs, OnlyTheDynamicLdsSizeIsNotPartOfTheLaunchIdentity) {
  // K0 and K1 of one kernel with a hidden_dynamic_lds_size argument; K1's fixed LDS is 1 KiB larger. Under one spec
  // (no "dynamic_lds") each gets the rest of 64 KiB, so the hidden value differs (64512 vs 63488) while every
  // explicit byte is the same: the same launch.
  co::KernelMeta k0;
  k0.name = "k";
  k0.symbol = "k.kd";
  k0.kernarg_segment_size = 16 + 256;
  k0.max_flat_workgroup_size = 1024;
  k0.group_segment_fixed_size = 1024;
  k0.args = {arg("global_buffer", 0, 8), arg("by_value", 8, 4), arg("hidden_block_count_x", 16, 4),
             arg("hidden_dynamic_lds_size", 136, 4)};
  k0.args[0].name = "out";
  co::KernelMeta k1 = k0;
  k1.group_segment_fixed_size = 2048;
  const auto spec = spec_of(R"({"grid": [7,1,1], "block": [128,1,1], "args": [
      {"buffer": {"dtype": "u8", "count": 1, "init": "zeros"}}, {"scalar": {"type": "u32", "value": 9}}]})");
  const std::vector<std::uint64_t> addrs{0x1000, 0};
  auto b0 = plan::kernargs(k0, spec, addrs);
  auto b1 = plan::kernargs(k1, spec, addrs);
  ASSERT_TRUE(b0 && b1);
  EXPECT_EQ(load_le(b0->bytes, 136, 4), 64512u);
  EXPECT_EQ(load_le(b1->bytes, 136, 4), 63488u);
  EXPECT_NE(b0->bytes, b1->bytes);
  EXPECT_EQ(verify::kernarg_difference(k0, b0->bytes, b1->bytes), std::nullopt);
  // An explicit byte that differs is named: argument 0 ("out"), offset 0, byte 2.
  auto b2 = b1->bytes;
  b2[2] = std::byte{0x7f};
  const auto why = verify::kernarg_difference(k0, b0->bytes, b2);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("explicit argument 0 (out)"), std::string::npos) << *why;
  EXPECT_NE(why->find("byte 2"), std::string::npos) << *why;
  // Padding between arguments (bytes 12..15) is the caller's too.
  auto b3 = b0->bytes;
  b3[13] = std::byte{1};
  const auto pad = verify::kernarg_difference(k0, b0->bytes, b3);
  ASSERT_TRUE(pad.has_value());
  EXPECT_NE(pad->find("byte 13"), std::string::npos) << *pad;
  // A different size is a difference.
  EXPECT_TRUE(verify::kernarg_difference(k0, b0->bytes, std::span(b0->bytes).first(100)).has_value());
  // Every other hidden argument follows the launch alone, so it must agree: hidden_block_count_x (offset 16) named.
  auto b4 = b0->bytes;
  b4[16] = std::byte{8};
  const auto hid = verify::kernarg_difference(k0, b0->bytes, b4);
  ASSERT_TRUE(hid.has_value());
  EXPECT_NE(hid->find("hidden argument hidden_block_count_x at offset 16"), std::string::npos) << *hid;
}

TEST(HipKernargs, LaunchKernargDifferenceReadsTheMetadataDocument) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto f = co::ElfFile::read(dir / "triton" / "vec_add_f32.gfx942.hsaco");
  ASSERT_TRUE(f);
  auto doc = co::read_metadata(*f);
  ASSERT_TRUE(doc);
  auto ks = co::kernels(*doc);
  ASSERT_TRUE(ks);
  const auto spec = spec_of(three_buffers);
  const std::vector<std::uint64_t> addrs{0x1000, 0x2000, 0x3000, 0, 0, 0};
  auto k = plan::kernargs(ks->front(), spec, addrs);
  ASSERT_TRUE(k);
  EXPECT_EQ(verify::launch_kernarg_difference(*doc, spec, k->bytes, k->bytes), std::nullopt);
  auto other = k->bytes;
  other[24] = std::byte{0};  // n (by_value, offset 24): vec_add has no hidden arguments, so every byte counts
  const auto why = verify::launch_kernarg_difference(*doc, spec, k->bytes, other);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("explicit argument 3"), std::string::npos) << *why;
  EXPECT_NE(why->find("offset 24"), std::string::npos) << *why;
}
