// The HIP executor: runs and times one launch of a code object on an AMD GPU through the HIP runtime's module API,
// with guard bytes around every buffer, as a model of verify::Executor.
//
// Needs the asmevo::hip CMake target (HIP headers, libamdhip64, -D__HIP_PLATFORM_AMD__). Everything in
// asmevo::hip::plan (guard pattern, buffer plan, buffer sets over any allocator, kernarg plan, median) works without
// a device and is unit-tested on machines that have none; HipExecutor::open() fails cleanly there
// (DiagCode::unsupported, "no HIP device: ...").
//
// Known limit: a device-side memory fault (a wave touching an unmapped page) is, with ROCm's default settings, fatal
// to the whole process: the HSA runtime prints "Memory access fault by GPU node-N ... Reason: Page not present or
// supervisor privilege." and aborts (e.g. github.com/ROCm/pytorch issue 797) before hipStreamSynchronize can return
// an error. The guard bytes catch the common near-miss (a write just past a buffer) without a fault; a caller that
// must survive wild pointers runs the executor in a child process.
#pragma once

#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/launch/buffer_init.hpp"
#include "asmevo/launch/kernargs.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/verify/executor.hpp"

namespace asmevo::hip {

// ---------------------------------------------------------------------------------------------------------------
// Device-free parts.
// ---------------------------------------------------------------------------------------------------------------
namespace plan {

/// Guard bytes before and after every buffer (one 4 KiB page each side: a write that runs a little past either end
/// lands in them rather than in a neighbouring allocation). 4096 keeps the buffer start as aligned as hipMalloc's
/// own result (at least 256 bytes), so a kernel's alignment assumptions hold.
inline constexpr std::uint64_t guard_bytes = 4096;

/// The guard pattern's byte at offset `i` of an allocation. Position-dependent (never one repeated value), so that
/// a stray write of any constant (0, 0xff, a repeated float) changes at least one byte of every 256-byte run it
/// covers. A byte written with exactly the pattern's value at that position goes unseen: the price of detecting
/// writes after the fact rather than trapping them.
[[nodiscard]] constexpr std::byte guard_byte(std::uint64_t i) noexcept {
  return static_cast<std::byte>(static_cast<std::uint8_t>(0xa5u ^ static_cast<std::uint8_t>(i * 0x3bu) ^
                                                          static_cast<std::uint8_t>(i >> 8)));
}

/// Where one buffer argument lives inside its device allocation: [offset, offset + bytes) is the buffer, the rest
/// of the allocation is guard.
struct BufferPlan {
  std::size_t arg = 0;          ///< explicit argument index (launch spec order)
  std::uint64_t bytes = 0;      ///< the buffer's size (count * dtype size)
  std::uint64_t offset = 0;     ///< buffer start, from the allocation start (= guard_bytes)
  std::uint64_t alloc_bytes = 0;  ///< guard + buffer + guard
};

/// One BufferPlan per buffer argument of `spec`, in argument order. The guard after a buffer starts at its exact
/// end (no rounding), so a write one element past the end hits it. Errors: a buffer larger than
/// verify::max_buffer_bytes, naming /args/N.
[[nodiscard]] inline Expected<std::vector<BufferPlan>> buffers(const verify::LaunchSpec& spec) {
  std::vector<BufferPlan> out;
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    const auto& a = spec.args[i];
    if (a.kind != verify::ArgSpec::Kind::buffer) continue;
    const std::uint64_t esize = verify::dtype_size(a.buffer.dtype);
    if (a.buffer.count > verify::max_buffer_bytes / esize)
      return fail(DiagCode::usage, "/args/" + std::to_string(i) + "/buffer/count: " +
                                       std::to_string(a.buffer.count) + " elements is more than " +
                                       std::to_string(verify::max_buffer_bytes) + " bytes");
    BufferPlan p;
    p.arg = i;
    p.bytes = a.buffer.count * esize;
    p.offset = guard_bytes;
    p.alloc_bytes = guard_bytes + p.bytes + guard_bytes;
    out.push_back(p);
  }
  return out;
}

/// What one set of device allocations for a launch must hold: (argument, allocation bytes) of each buffer argument,
/// in argument order. Launches with equal keys can run on the same allocations.
using BufferSetKey = std::vector<std::pair<std::size_t, std::uint64_t>>;

[[nodiscard]] inline BufferSetKey buffer_set_key(std::span<const BufferPlan> plans) {
  BufferSetKey k;
  for (const auto& p : plans) k.emplace_back(p.arg, p.alloc_bytes);
  return k;
}

/// Something that hands out device memory: `allocate(bytes)` gives an address or a Diag naming the runtime's error,
/// `release(address)` gives it back and cannot fail. HipExecutor's is hipMalloc/hipFree; tests use a fake.
template <class A>
concept DeviceAllocator = requires(A& a, std::uint64_t n) {
  { a.allocate(n) } -> std::same_as<Expected<std::uint64_t>>;
  { a.release(n) } noexcept;
};

/// Device buffers kept across runs, one set per launch shape (BufferSetKey), so that every run of one launch -- K0's
/// and each of K1's -- finds its buffers at the same addresses, and the kernarg bytes, which hold those addresses,
/// are identical (DESIGN.md "Verification policy": K0 and K1 run with the same kernarg bytes; the differential
/// verifier refuses to compare runs whose explicit kernarg bytes differ). Contents are the caller's to refill before
/// each run. At most `capacity` sets are kept: acquiring a new shape beyond that releases the least recently used
/// set first, so a caller that alternates between more shapes than that gets new addresses (the verifier runs K0
/// and then K1 shape by shape, needing one). Move-only; releases everything when destroyed.
template <DeviceAllocator A>
class BufferSets {
 public:
  explicit BufferSets(A alloc = A{}, std::size_t capacity = 4)
      : alloc_(std::move(alloc)), capacity_(std::max<std::size_t>(capacity, 1)) {}
  BufferSets(const BufferSets&) = delete;
  BufferSets& operator=(const BufferSets&) = delete;
  BufferSets(BufferSets&& o) noexcept
      : alloc_(std::move(o.alloc_)), capacity_(o.capacity_), clock_(o.clock_), sets_(std::move(o.sets_)) {
    o.sets_.clear();
  }
  BufferSets& operator=(BufferSets&& o) noexcept {
    if (this != &o) {
      release_all();
      alloc_ = std::move(o.alloc_);
      capacity_ = o.capacity_;
      clock_ = o.clock_;
      sets_ = std::move(o.sets_);
      o.sets_.clear();
    }
    return *this;
  }
  ~BufferSets() { release_all(); }

  /// The allocation start of each plan's buffer (plans[i] -> result[i]), the same addresses as the last time a plan
  /// with the same key was acquired while its set was kept. The span stays valid until the next acquire. Errors: an
  /// allocation failed (the message names the argument and the runtime's error); nothing is kept of the new set.
  [[nodiscard]] Expected<std::span<const std::uint64_t>> acquire(std::span<const BufferPlan> plans) {
    BufferSetKey key = buffer_set_key(plans);
    ++clock_;
    for (auto& s : sets_)
      if (s.key == key) {
        s.used = clock_;
        return std::span<const std::uint64_t>(s.addrs);
      }
    if (sets_.size() >= capacity_) {
      auto lru = std::min_element(sets_.begin(), sets_.end(), [](const Set& a, const Set& b) { return a.used < b.used; });
      release_set(*lru);
      sets_.erase(lru);
    }
    Set s{std::move(key), {}, clock_};
    for (const auto& p : plans) {
      auto a = alloc_.allocate(p.alloc_bytes);
      if (!a) {
        release_set(s);
        Diag d = std::move(a).error();
        d.message = "allocating " + std::to_string(p.alloc_bytes) + " bytes for arg " + std::to_string(p.arg) + ": " +
                    d.message;
        return unexpected(std::move(d));
      }
      s.addrs.push_back(*a);
    }
    sets_.push_back(std::move(s));
    return std::span<const std::uint64_t>(sets_.back().addrs);
  }

  [[nodiscard]] std::size_t size() const noexcept { return sets_.size(); }
  [[nodiscard]] const A& allocator() const noexcept { return alloc_; }

 private:
  struct Set {
    BufferSetKey key;
    std::vector<std::uint64_t> addrs;
    std::uint64_t used = 0;
  };
  void release_set(Set& s) noexcept {
    for (const std::uint64_t a : s.addrs) alloc_.release(a);
    s.addrs.clear();
  }
  void release_all() noexcept {
    for (auto& s : sets_) release_set(s);
    sets_.clear();
  }

  A alloc_;
  std::size_t capacity_ = 4;
  std::uint64_t clock_ = 0;
  std::vector<Set> sets_;
};

/// Fills the guard regions of a host image of one allocation ([0, p.offset) and [p.offset + p.bytes, end)) with the
/// pattern; the buffer bytes are left alone. `alloc` must be p.alloc_bytes long.
inline void fill_guards(std::span<std::byte> alloc, const BufferPlan& p) noexcept {
  for (std::uint64_t i = 0; i < alloc.size(); ++i)
    if (i < p.offset || i >= p.offset + p.bytes) alloc[i] = guard_byte(i);
}

/// The lowest-addressed guard byte of `alloc` that no longer holds the pattern, as an offset from the buffer start
/// (negative: before the buffer; >= p.bytes: after it), or nullopt when every guard byte is intact.
[[nodiscard]] inline std::optional<std::int64_t> find_guard_hit(std::span<const std::byte> alloc,
                                                               const BufferPlan& p) noexcept {
  for (std::uint64_t i = 0; i < alloc.size(); ++i) {
    if (i >= p.offset && i < p.offset + p.bytes) {
      i = p.offset + p.bytes - 1;  // skip the buffer itself
      continue;
    }
    if (alloc[i] != guard_byte(i)) return static_cast<std::int64_t>(i) - static_cast<std::int64_t>(p.offset);
  }
  return std::nullopt;
}

/// What a guard hit means, for RunOutcome::message: "argument 2: a write landed in the guard bytes 5 bytes past the
/// end of its 40-byte buffer (offset 44)" or "... 1 byte before the start of its 40-byte buffer (offset -1)". The
/// count is symmetric: offset -1 is the 1st byte before the start, offset `bytes` the 1st byte past the end.
[[nodiscard]] inline std::string guard_message(const BufferPlan& p, std::int64_t hit) {
  auto bytes = [](std::uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); };
  const auto size = static_cast<std::int64_t>(p.bytes);
  std::string where = hit < 0 ? bytes(static_cast<std::uint64_t>(-hit)) + " before the start"
                              : bytes(static_cast<std::uint64_t>(hit - size + 1)) + " past the end";
  return "argument " + std::to_string(p.arg) + ": a write landed in the guard bytes " + where + " of its " +
         std::to_string(p.bytes) + "-byte buffer (offset " + std::to_string(hit) + ")";
}

/// The kernarg segment and launch values of one launch, given the device address of every argument (0 for
/// scalars and null; a buffer's address is its start, past the guard).
struct KernargPlan {
  std::vector<std::byte> bytes;               ///< .kernarg_segment_size bytes, explicit and hidden arguments
  std::array<std::uint32_t, 3> block{};       ///< work-items per workgroup (spec, else metadata)
  std::uint32_t dynamic_lds = 0;              ///< sharedMemBytes
};

/// The same bytes the emulator lays out for the same addresses: verify::layout_kernargs with the emulator's hidden
/// values (null printf/hostcall/heap/queue pointers, verify::dynamic_lds_bytes). On a device, only the explicit
/// arguments of these bytes reach the kernel; the runtime writes the hidden ones itself (see HipExecutor::run).
[[nodiscard]] inline Expected<KernargPlan> kernargs(const codeobject::KernelMeta& meta, const verify::LaunchSpec& spec,
                                                   std::span<const std::uint64_t> arg_addresses) {
  auto block = verify::resolve_block(spec, meta);
  if (!block) return unexpected(std::move(block).error());
  KernargPlan k;
  k.block = *block;
  k.dynamic_lds = verify::dynamic_lds_bytes(meta, spec);
  verify::HiddenValues hv;
  hv.dynamic_lds_size = k.dynamic_lds;
  auto bytes = verify::layout_kernargs(meta, spec, arg_addresses, verify::LaunchGeometry{spec.grid, *block}, hv);
  if (!bytes) return unexpected(std::move(bytes).error());
  k.bytes = std::move(*bytes);
  return k;
}

/// The median of `samples` (the mean of the two middle values for an even count); 0 for none.
[[nodiscard]] inline double median(std::span<const double> samples) {
  if (samples.empty()) return 0;
  std::vector<double> s(samples.begin(), samples.end());
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/// The processor part of a target id: "gfx942:sramecc+:xnack-" -> "gfx942".
[[nodiscard]] constexpr std::string_view processor_of(std::string_view target_id) noexcept {
  return target_id.substr(0, target_id.find(':'));
}

/// "no HIP device: " and the runtime's reason. hipGetErrorName gives the enumerator; hipGetErrorString a sentence,
/// which some runtime versions (5.2 among them) make the same as the name, so it is added only when it differs.
[[nodiscard]] inline std::string no_device_message(std::string_view call, std::string_view name,
                                                   std::string_view text) {
  std::string m = "no HIP device: " + std::string(call) + " returned " + std::string(name);
  if (!text.empty() && text != name) m += " (" + std::string(text) + ")";
  return m;
}

}  // namespace plan

// ---------------------------------------------------------------------------------------------------------------
// The device part.
// ---------------------------------------------------------------------------------------------------------------
namespace detail {

/// "hipMalloc: hipErrorOutOfMemory (out of memory)".
[[nodiscard]] inline std::string hip_error(std::string_view call, hipError_t e) {
  const char* n = hipGetErrorName(e);
  const char* s = hipGetErrorString(e);
  std::string m = std::string(call) + ": " + (n ? n : "hipError?");
  if (s && n && std::string_view(s) != n) m += " (" + std::string(s) + ")";
  return m;
}

// RAII owners: every runtime object is released on every path (the destructors ignore errors: a release that
// fails after a device error has nothing better to do).
struct ModuleFree {
  void operator()(std::remove_pointer_t<hipModule_t>* m) const noexcept { static_cast<void>(hipModuleUnload(m)); }
};
struct StreamFree {
  void operator()(std::remove_pointer_t<hipStream_t>* s) const noexcept { static_cast<void>(hipStreamDestroy(s)); }
};
struct EventFree {
  void operator()(std::remove_pointer_t<hipEvent_t>* e) const noexcept { static_cast<void>(hipEventDestroy(e)); }
};
struct DeviceFree {
  void operator()(void* p) const noexcept { static_cast<void>(hipFree(p)); }
};
using UniqueModule = std::unique_ptr<std::remove_pointer_t<hipModule_t>, ModuleFree>;
using UniqueStream = std::unique_ptr<std::remove_pointer_t<hipStream_t>, StreamFree>;
using UniqueEvent = std::unique_ptr<std::remove_pointer_t<hipEvent_t>, EventFree>;
using UniqueDevicePtr = std::unique_ptr<void, DeviceFree>;

/// hipMalloc / hipFree as a plan::DeviceAllocator (on the current device: HipExecutor sets it before each call).
struct HipAllocator {
  [[nodiscard]] Expected<std::uint64_t> allocate(std::uint64_t bytes) {
    void* d = nullptr;
    if (const hipError_t e = hipMalloc(&d, bytes); e != hipSuccess)
      return fail(DiagCode::unsupported, hip_error("hipMalloc", e));
    return reinterpret_cast<std::uint64_t>(d);
  }
  void release(std::uint64_t a) noexcept { static_cast<void>(hipFree(reinterpret_cast<void*>(a))); }
};

/// A loaded kernel: module, function, kernel metadata.
struct Loaded {
  UniqueModule module;
  hipFunction_t function = nullptr;
  const codeobject::KernelMeta* meta = nullptr;
};

}  // namespace detail

/// Runs launches on one HIP device. Between calls it holds only the device buffers of run() (plan::BufferSets: one
/// set per launch shape, at most four, reused so that K0's and K1's runs of a launch see the same buffer addresses
/// and so the same kernarg bytes), released when the executor is destroyed; every module, stream, event and timing
/// buffer a call creates is released before it returns, on every path.
class HipExecutor {
 public:
  /// The executor for HIP device `device`. Errors: no usable HIP runtime or device (DiagCode::unsupported, message
  /// "no HIP device: " + the runtime's reason; the CLI exits 2), a device index out of range (DiagCode::usage).
  /// Prints nothing and does not hang without a device (libamdhip64 5.2 without /dev/kfd: hipGetDeviceCount
  /// returns hipErrorNoDevice in well under a millisecond, silently).
  [[nodiscard]] static Expected<HipExecutor> open(int device = 0) {
    int count = 0;
    if (const hipError_t e = hipGetDeviceCount(&count); e != hipSuccess)
      return fail(DiagCode::unsupported, plan::no_device_message("hipGetDeviceCount", hipGetErrorName(e),
                                                                 hipGetErrorString(e)));
    if (count <= 0) return fail(DiagCode::unsupported, "no HIP device: hipGetDeviceCount found 0 devices");
    if (device < 0 || device >= count)
      return fail(DiagCode::usage, "HIP device " + std::to_string(device) + " does not exist (there " +
                                       (count == 1 ? std::string("is 1 device") : "are " + std::to_string(count) + " devices") + ")",
                  {}, {}, "a device index from 0 to " + std::to_string(count - 1));
    if (const hipError_t e = hipSetDevice(device); e != hipSuccess)
      return fail(DiagCode::unsupported, plan::no_device_message("hipSetDevice", hipGetErrorName(e), hipGetErrorString(e)));
    hipDeviceProp_t prop{};
    if (const hipError_t e = hipGetDeviceProperties(&prop, device); e != hipSuccess)
      return fail(DiagCode::unsupported,
                  plan::no_device_message("hipGetDeviceProperties", hipGetErrorName(e), hipGetErrorString(e)));
    HipExecutor x;
    x.device_ = device;
    prop.gcnArchName[sizeof(prop.gcnArchName) - 1] = '\0';
    x.arch_ = prop.gcnArchName;
    x.name_ = "hip:" + std::to_string(device) + " (" + x.arch_ + ")";
    return x;
  }

  /// "hip:<device> (<gcnArchName>)", e.g. "hip:0 (gfx942:sramecc+:xnack-)".
  [[nodiscard]] std::string_view name() const noexcept { return name_; }
  /// The device's target id as the runtime reports it (gcnArchName).
  [[nodiscard]] const std::string& arch() const noexcept { return arch_; }
  [[nodiscard]] int device() const noexcept { return device_; }

  /// One launch of `spec` with the inputs of `rr.trial` (rr.schedule_seed and rr.schedule are ignored: the hardware
  /// schedules its waves, so RunOutcome::schedule stays empty and the receipt says the schedule was the hardware's).
  /// Every buffer sits between two guard_bytes regions filled with plan::guard_byte; after the run, a changed guard
  /// byte sets OutBuffer::guard_hit and makes the outcome StopKind::fault. A runtime error from module load to read
  /// back is StopKind::device with the runtime's error name (a device that rejects K1's code is a negative answer,
  /// not bad input). Errors: bad spec or metadata (as layout_kernargs reports them), a code object for another
  /// processor than the device's (DiagCode::unsupported).
  [[nodiscard]] Expected<verify::RunOutcome> run(const verify::CodeObject& co, const verify::LaunchSpec& spec,
                                                 const verify::RunRequest& rr) {
    verify::RunOutcome out;
    auto stopped = [&](std::string msg) {
      out.stop = verify::StopKind::device;
      out.message = std::move(msg);
      out.buffers.clear();
      return Expected<verify::RunOutcome>(std::move(out));
    };
    auto meta = select(co, spec);
    if (!meta) return unexpected(std::move(meta).error());
    auto bplan = plan::buffers(spec);
    if (!bplan) return unexpected(std::move(bplan).error());
    // Inputs first: a bad file init is bad input, reported before the device is touched.
    std::vector<std::vector<std::byte>> images;  // host image of each allocation: guard, input, guard
    for (const auto& p : *bplan) {
      auto in = verify::materialize(spec.args[p.arg].buffer, rr.trial);
      if (!in) return unexpected(std::move(in).error());
      std::vector<std::byte> img(static_cast<std::size_t>(p.alloc_bytes));
      plan::fill_guards(img, p);
      std::memcpy(img.data() + p.offset, in->data(), std::min<std::size_t>(in->size(), p.bytes));
      images.push_back(std::move(img));
    }
    // Layout problems (argument mismatch) are bad input too: check them with placeholder addresses first.
    {
      std::vector<std::uint64_t> fake(spec.args.size(), 0);
      auto k = plan::kernargs(**meta, spec, fake);
      if (!k) return unexpected(std::move(k).error());
    }

    if (const hipError_t e = hipSetDevice(device_); e != hipSuccess) return stopped(detail::hip_error("hipSetDevice", e));
    auto loaded = load(co, **meta);
    if (!loaded) return stopped(std::move(loaded).error().message);

    // The launch shape's buffers: the same allocations every run of this shape used before (contents, guards
    // included, are rewritten here), so the kernarg bytes of K0's and K1's runs are the same.
    auto set = buffers_.acquire(*bplan);
    if (!set) return stopped(std::move(set).error().message);
    const std::vector<std::uint64_t> base(set->begin(), set->end());
    std::vector<std::uint64_t> addr(spec.args.size(), 0);
    for (std::size_t b = 0; b < bplan->size(); ++b) {
      const auto& p = (*bplan)[b];
      void* d = reinterpret_cast<void*>(base[b]);
      if (const hipError_t e = hipMemcpy(d, images[b].data(), p.alloc_bytes, hipMemcpyHostToDevice); e != hipSuccess)
        return stopped(detail::hip_error("hipMemcpy(arg " + std::to_string(p.arg) + " to the device)", e));
      addr[p.arg] = base[b] + p.offset;
    }
    auto k = plan::kernargs(**meta, spec, addr);
    if (!k) return unexpected(std::move(k).error());
    out.kernarg = k->bytes;

    detail::UniqueStream stream;
    {
      hipStream_t s = nullptr;
      if (const hipError_t e = hipStreamCreate(&s); e != hipSuccess) return stopped(detail::hip_error("hipStreamCreate", e));
      stream.reset(s);
    }
    if (const hipError_t e = launch(*loaded, spec, *k, stream.get()); e != hipSuccess)
      return stopped(detail::hip_error("hipModuleLaunchKernel", e));
    // A fault or trap inside the kernel surfaces here (when the runtime does not abort the process first).
    if (const hipError_t e = hipStreamSynchronize(stream.get()); e != hipSuccess)
      return stopped(detail::hip_error("hipStreamSynchronize after the kernel", e));

    for (std::size_t b = 0; b < bplan->size(); ++b) {
      const auto& p = (*bplan)[b];
      if (const hipError_t e = hipMemcpy(images[b].data(), reinterpret_cast<void*>(base[b]), p.alloc_bytes,
                                         hipMemcpyDeviceToHost);
          e != hipSuccess)
        return stopped(detail::hip_error("hipMemcpy(arg " + std::to_string(p.arg) + " from the device)", e));
      verify::OutBuffer ob;
      ob.arg = p.arg;
      ob.bytes.assign(images[b].begin() + static_cast<std::ptrdiff_t>(p.offset),
                      images[b].begin() + static_cast<std::ptrdiff_t>(p.offset + p.bytes));
      ob.guard_hit = plan::find_guard_hit(images[b], p);
      if (ob.guard_hit && out.stop == verify::StopKind::none) {
        out.stop = verify::StopKind::fault;
        out.message = plan::guard_message(p, *ob.guard_hit);
        out.address = addr[p.arg] + static_cast<std::uint64_t>(*ob.guard_hit);
      }
      out.buffers.push_back(std::move(ob));
    }
    return out;
  }

  /// Times the launch: req.warmup launches, then req.runs launches each between two hipEvents, the median of their
  /// elapsed times in microseconds. req.rotate (at least 1) complete sets of buffer arguments, each filled with
  /// trial 0's inputs and with its own kernarg segment, are used in turn, so consecutive launches do not find their
  /// inputs in cache. No guards and no read back: only a candidate that ran cleanly is timed. Errors: bad input as
  /// for run(), req.runs == 0 (DiagCode::usage), a runtime error (DiagCode::unsupported, naming the call).
  [[nodiscard]] Expected<verify::TimeOutcome> time(const verify::CodeObject& co, const verify::LaunchSpec& spec,
                                                   const verify::TimeRequest& req) {
    if (req.runs == 0) return fail(DiagCode::usage, "time: runs must be at least 1");
    auto bad = [&](std::string m) { return fail(DiagCode::unsupported, "HIP device " + std::to_string(device_) + ": " + m); };
    auto meta = select(co, spec);
    if (!meta) return unexpected(std::move(meta).error());
    auto bplan = plan::buffers(spec);
    if (!bplan) return unexpected(std::move(bplan).error());
    std::vector<std::vector<std::byte>> inputs;
    for (const auto& p : *bplan) {
      auto in = verify::materialize(spec.args[p.arg].buffer, 0);
      if (!in) return unexpected(std::move(in).error());
      inputs.push_back(std::move(*in));
    }
    if (const hipError_t e = hipSetDevice(device_); e != hipSuccess) return bad(detail::hip_error("hipSetDevice", e));
    auto loaded = load(co, **meta);
    if (!loaded) return bad(std::move(loaded).error().message);

    const std::uint32_t sets = std::max<std::uint32_t>(1, req.rotate);
    std::vector<detail::UniqueDevicePtr> allocs;
    std::vector<plan::KernargPlan> kargs;
    for (std::uint32_t s = 0; s < sets; ++s) {
      std::vector<std::uint64_t> addr(spec.args.size(), 0);
      for (std::size_t b = 0; b < bplan->size(); ++b) {
        const auto& p = (*bplan)[b];
        void* d = nullptr;
        // At least one byte: a zero-element buffer still gets a distinct, valid address.
        if (const hipError_t e = hipMalloc(&d, std::max<std::uint64_t>(p.bytes, 1)); e != hipSuccess)
          return bad(detail::hip_error("hipMalloc(" + std::to_string(p.bytes) + " bytes for arg " +
                                           std::to_string(p.arg) + ", buffer set " + std::to_string(s) + ")", e));
        allocs.emplace_back(d);
        if (const hipError_t e = hipMemcpy(d, inputs[b].data(), p.bytes, hipMemcpyHostToDevice); e != hipSuccess)
          return bad(detail::hip_error("hipMemcpy(arg " + std::to_string(p.arg) + " to the device)", e));
        addr[p.arg] = reinterpret_cast<std::uint64_t>(d);
      }
      auto k = plan::kernargs(**meta, spec, addr);
      if (!k) return unexpected(std::move(k).error());
      kargs.push_back(std::move(*k));
    }

    detail::UniqueStream stream;
    detail::UniqueEvent start, stop;
    {
      hipStream_t s = nullptr;
      if (const hipError_t e = hipStreamCreate(&s); e != hipSuccess) return bad(detail::hip_error("hipStreamCreate", e));
      stream.reset(s);
      hipEvent_t a = nullptr, b = nullptr;
      if (const hipError_t e = hipEventCreate(&a); e != hipSuccess) return bad(detail::hip_error("hipEventCreate", e));
      start.reset(a);
      if (const hipError_t e = hipEventCreate(&b); e != hipSuccess) return bad(detail::hip_error("hipEventCreate", e));
      stop.reset(b);
    }
    std::uint64_t n = 0;  // launches so far: buffer set n % sets
    for (std::uint32_t w = 0; w < req.warmup; ++w, ++n)
      if (const hipError_t e = launch(*loaded, spec, kargs[n % sets], stream.get()); e != hipSuccess)
        return bad(detail::hip_error("hipModuleLaunchKernel (warm-up)", e));
    if (const hipError_t e = hipStreamSynchronize(stream.get()); e != hipSuccess)
      return bad(detail::hip_error("hipStreamSynchronize after the warm-up launches", e));

    verify::TimeOutcome t;
    t.modeled = false;
    for (std::uint32_t r = 0; r < req.runs; ++r, ++n) {
      if (const hipError_t e = hipEventRecord(start.get(), stream.get()); e != hipSuccess)
        return bad(detail::hip_error("hipEventRecord", e));
      if (const hipError_t e = launch(*loaded, spec, kargs[n % sets], stream.get()); e != hipSuccess)
        return bad(detail::hip_error("hipModuleLaunchKernel", e));
      if (const hipError_t e = hipEventRecord(stop.get(), stream.get()); e != hipSuccess)
        return bad(detail::hip_error("hipEventRecord", e));
      if (const hipError_t e = hipEventSynchronize(stop.get()); e != hipSuccess)
        return bad(detail::hip_error("hipEventSynchronize", e));
      float ms = 0;
      if (const hipError_t e = hipEventElapsedTime(&ms, start.get(), stop.get()); e != hipSuccess)
        return bad(detail::hip_error("hipEventElapsedTime", e));
      t.samples.push_back(static_cast<double>(ms) * 1000.0);
    }
    t.median = plan::median(t.samples);
    return t;
  }

 private:
  HipExecutor() = default;

  /// The kernel's metadata, checked against the device's processor.
  [[nodiscard]] Expected<const codeobject::KernelMeta*> select(const verify::CodeObject& co,
                                                              const verify::LaunchSpec& spec) {
    if (!co.module.target_id.empty() && !arch_.empty() &&
        plan::processor_of(co.module.target_id) != plan::processor_of(arch_))
      return fail(DiagCode::unsupported, co.path + ": the code object is for " + co.module.target_id + ", HIP device " +
                                             std::to_string(device_) + " is " + arch_);
    auto ks = codeobject::kernels(co.module.metadata);
    if (!ks) return unexpected(std::move(ks).error());
    metas_ = std::move(*ks);
    return verify::select_kernel(metas_, spec);
  }

  /// hipModuleLoadData of the ELF as it is, and the kernel's function (its symbol without ".kd").
  [[nodiscard]] static Expected<detail::Loaded> load(const verify::CodeObject& co, const codeobject::KernelMeta& meta) {
    detail::Loaded l;
    l.meta = &meta;
    hipModule_t m = nullptr;
    if (const hipError_t e = hipModuleLoadData(&m, co.elf.bytes().data()); e != hipSuccess)
      return fail(DiagCode::unsupported, detail::hip_error("hipModuleLoadData(" + co.path + ")", e));
    l.module.reset(m);
    std::string sym = meta.symbol.empty() ? meta.name : meta.symbol;
    if (sym.ends_with(".kd")) sym.resize(sym.size() - 3);
    if (const hipError_t e = hipModuleGetFunction(&l.function, m, sym.c_str()); e != hipSuccess)
      return fail(DiagCode::unsupported, detail::hip_error("hipModuleGetFunction(" + sym + ")", e));
    return l;
  }

  /// One launch. The whole kernarg segment goes through `extra` (HIP_LAUNCH_PARAM_BUFFER_POINTER/SIZE); the
  /// runtime copies from it only the explicit arguments, each at its metadata offset and size, and writes every
  /// hidden argument itself from the launch (grid, block, sharedMemBytes -> hidden_dynamic_lds_size) and its own
  /// printf/hostcall/heap/queue objects. Source: ROCm/clr hipamd/src/hip_module.cpp ihipLaunchKernelCommand (the
  /// loop over signature().numParameters(), explicit only, reading kernargs + desc.offset_; the same in
  /// KernelParameters::captureAndSet, rocclr/platform/kernel.cpp) and rocclr/device/rocm/rocvirtual.cpp
  /// VirtualGPU::submitKernelInternal (the loop from numParameters() to numParametersAll() writing the
  /// Hidden* kinds). So the kernel sees our explicit bytes and the runtime's hidden ones; the kernarg bytes recorded
  /// in RunOutcome are the emulator-equivalent layout, whose hidden pointers the runtime replaces with its own.
  [[nodiscard]] static hipError_t launch(const detail::Loaded& l, const verify::LaunchSpec& spec,
                                         const plan::KernargPlan& k, hipStream_t stream) {
    // The runtime reads the buffer during the call (it captures the arguments before returning), but it is not
    // written to, so a const_cast of our copy is safe.
    void* buf = const_cast<std::byte*>(k.bytes.data());
    std::size_t size = k.bytes.size();
    void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, buf, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
    return hipModuleLaunchKernel(l.function, spec.grid[0], spec.grid[1], spec.grid[2], k.block[0], k.block[1],
                                 k.block[2], k.dynamic_lds, stream, nullptr, extra);
  }

  int device_ = 0;
  std::string arch_;
  std::string name_;
  plan::BufferSets<detail::HipAllocator> buffers_;  ///< run()'s device buffers, by launch shape
  std::vector<codeobject::KernelMeta> metas_;  ///< of the last code object run (select_kernel points into it)
};

static_assert(verify::Executor<HipExecutor>);

}  // namespace asmevo::hip
