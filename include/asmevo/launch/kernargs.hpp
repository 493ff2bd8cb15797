// The kernarg segment of one launch, laid out from the code object's metadata as the HIP runtime (ROCclr) lays it
// out: explicit arguments from the launch spec, hidden arguments from the launch geometry and the runtime's values;
// the LDS a launch gives each workgroup; and which kernarg bytes two launches must share to be the same launch.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/launch/detail/problems.hpp"
#include "asmevo/launch/dtype.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::verify {

/// What one dispatch looks like: workgroups per dimension and work-items per workgroup.
struct LaunchGeometry {
  std::array<std::uint32_t, 3> grid_groups{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
};

/// Values the runtime provides for hidden arguments (device addresses, apertures, sizes). All zero by default: the
/// emulator provides no printf, hostcall, heap, device queue or multigrid support, so those pointers are null.
struct HiddenValues {
  std::uint64_t hostcall_buffer = 0, printf_buffer = 0, heap_v1 = 0, default_queue = 0, completion_action = 0,
                multigrid_sync_arg = 0, queue_ptr = 0;
  std::uint64_t private_base = 0;  ///< the private aperture's upper 32 bits (amd_queue_t private_segment_aperture_base_hi)
  std::uint64_t shared_base = 0;   ///< the LDS aperture's upper 32 bits (amd_queue_t group_segment_aperture_base_hi)
  std::uint32_t dynamic_lds_size = 0;  ///< bytes of dynamic LDS (hipLaunchKernel's sharedMemBytes)
};

/// The kernel the spec names (its symbol without ".kd", or its ".name"), or the only kernel when the spec names
/// none. The error names /kernel and lists the kernels there are.
[[nodiscard]] inline Expected<const codeobject::KernelMeta*> select_kernel(
    const std::vector<codeobject::KernelMeta>& ks, const LaunchSpec& spec) {
  std::string names;
  for (const auto& k : ks) names += (names.empty() ? "" : ", ") + k.name;
  if (spec.kernel.empty()) {
    if (ks.size() == 1) return &ks.front();
    return fail(DiagCode::usage,
                "/kernel: the code object holds " + std::to_string(ks.size()) + " kernels; the spec must name one", {},
                {}, ks.empty() ? std::string("the code object has no kernels") : "one of: " + names);
  }
  for (const auto& k : ks) {
    std::string_view sym = k.symbol;
    if (sym.ends_with(".kd")) sym.remove_suffix(3);
    if (sym == spec.kernel || k.name == spec.kernel) return &k;
  }
  return fail(DiagCode::usage, "/kernel: no kernel \"" + printable(spec.kernel) + "\" in the code object", {}, {},
              ks.empty() ? std::string("the code object has no kernels") : "one of: " + names);
}

/// Work-items per workgroup: the spec's block, else the metadata's .reqd_workgroup_size, else
/// {.max_flat_workgroup_size, 1, 1} (DESIGN.md "Launch spec"). Checked against the kernel: the product may not
/// exceed .max_flat_workgroup_size (the compiler's register and LDS budget assumes it; AMDGPUUsage "Kernel
/// Metadata Map") nor 1024, a block must equal .reqd_workgroup_size when the kernel has one, and grid * block must
/// fit the dispatch packet's 32-bit grid_size fields (HSA "Kernel Dispatch Packet", hsa_kernel_dispatch_packet_t).
[[nodiscard]] inline Expected<std::array<std::uint32_t, 3>> resolve_block(const LaunchSpec& spec,
                                                                         const codeobject::KernelMeta& meta) {
  auto str3 = [](const auto& a) {
    return "[" + std::to_string(a[0]) + ", " + std::to_string(a[1]) + ", " + std::to_string(a[2]) + "]";
  };
  std::array<std::uint32_t, 3> b{};
  if (spec.block) {
    b = *spec.block;
  } else if (meta.reqd_workgroup_size) {
    for (std::size_t i = 0; i < 3; ++i) {
      const auto v = (*meta.reqd_workgroup_size)[i];
      if (v == 0 || v > 1024)
        return fail(DiagCode::object_error, "kernel " + meta.name + ": .reqd_workgroup_size " +
                                                str3(*meta.reqd_workgroup_size) + " is not a valid workgroup size");
      b[i] = static_cast<std::uint32_t>(v);
    }
  } else {
    if (meta.max_flat_workgroup_size == 0 || meta.max_flat_workgroup_size > 1024)
      return fail(DiagCode::usage,
                  "/block: not given, and kernel " + meta.name + " has no usable .max_flat_workgroup_size (" +
                      std::to_string(meta.max_flat_workgroup_size) + ")",
                  {}, {}, "give \"block\": [x, y, z] in the launch spec");
    b = {static_cast<std::uint32_t>(meta.max_flat_workgroup_size), 1, 1};
  }
  Diags problems;
  auto problem = [&](std::string m, std::string hint = {}) {
    problems.push_back(make_diag(DiagCode::usage, "/block: " + std::move(m), {}, {}, std::move(hint)));
  };
  const std::uint64_t flat = std::uint64_t{b[0]} * b[1] * b[2];
  if (b[0] == 0 || b[1] == 0 || b[2] == 0) problem("every dimension must be at least 1, got " + str3(b));
  if (flat > 1024) problem("a workgroup of " + std::to_string(flat) + " work-items is more than the 1024 gfx9 allows");
  if (meta.max_flat_workgroup_size != 0 && flat > meta.max_flat_workgroup_size)
    problem(str3(b) + " is " + std::to_string(flat) + " work-items, more than kernel " + meta.name +
                "'s .max_flat_workgroup_size " + std::to_string(meta.max_flat_workgroup_size),
            "at most " + std::to_string(meta.max_flat_workgroup_size) + " work-items");
  if (meta.reqd_workgroup_size) {
    const auto& r = *meta.reqd_workgroup_size;
    if (r[0] != b[0] || r[1] != b[1] || r[2] != b[2])
      problem(str3(b) + " differs from kernel " + meta.name + "'s .reqd_workgroup_size " + str3(r),
              "use " + str3(r) + " or leave \"block\" out");
  }
  for (std::size_t i = 0; i < 3; ++i)
    if (std::uint64_t{spec.grid[i]} * b[i] > 0xffffffffull)
      problem("grid[" + std::to_string(i) + "] * block[" + std::to_string(i) + "] = " +
              std::to_string(std::uint64_t{spec.grid[i]} * b[i]) +
              " work-items, more than the dispatch packet's 32-bit grid size holds");
  if (!problems.empty()) return detail::gathered(std::move(problems), nullptr, "launch geometry");
  return b;
}

/// Bytes of LDS one workgroup can have on gfx9 (MI300 ISA (CDNA3) §10 "LDS": 64 KiB per workgroup). The emulator
/// and the HIP executor both size launches with it.
inline constexpr std::uint32_t max_workgroup_lds = 65536;

/// The LDS one workgroup of a launch gets: the kernel's fixed group segment and the launch's dynamic part, which is
/// hipModuleLaunchKernel's sharedMemBytes and the value the runtime writes into hidden_dynamic_lds_size.
struct LdsAllocation {
  std::uint32_t fixed = 0;    ///< .group_segment_fixed_size, at most max_workgroup_lds
  std::uint32_t dynamic = 0;  ///< sharedMemBytes
  [[nodiscard]] constexpr std::uint32_t total() const noexcept { return fixed + dynamic; }
};

/// The LDS a launch of `meta` under `spec` gives each workgroup, the one rule both executors use
/// (emu/launch.hpp emulate(), verify/hip/executor.hpp plan::kernargs):
///  - the spec's "dynamic_lds" when given, capped so that fixed + dynamic <= max_workgroup_lds;
///  - otherwise a kernel that can use dynamic LDS -- a hidden_dynamic_lds_size argument (code object v5+), or no fixed
///    group segment at all (Triton declares all of its shared memory dynamically) -- gets the rest of the 64 KiB;
///  - any other kernel gets exactly its fixed size, so an edit that touches LDS beyond the allocation faults on the
///    emulator as it would misbehave on hardware.
/// The default depends on the kernel's own fixed size: a K1 whose group segment differs from K0's gets another
/// hidden_dynamic_lds_size under the same spec (see launch_kernarg_difference).
[[nodiscard]] inline LdsAllocation lds_allocation(const codeobject::KernelMeta& meta, const LaunchSpec& spec) noexcept {
  LdsAllocation l;
  l.fixed = static_cast<std::uint32_t>(std::min<std::uint64_t>(meta.group_segment_fixed_size, max_workgroup_lds));
  bool may_use_dynamic = l.fixed == 0;
  for (const auto& a : meta.args) may_use_dynamic |= a.value_kind == "hidden_dynamic_lds_size";
  const std::uint32_t total =
      spec.dynamic_lds ? static_cast<std::uint32_t>(
                             std::min<std::uint64_t>(max_workgroup_lds, std::uint64_t{l.fixed} + *spec.dynamic_lds))
      : may_use_dynamic ? max_workgroup_lds
                        : l.fixed;
  l.dynamic = total - l.fixed;
  return l;
}

/// The dynamic part of lds_allocation: sharedMemBytes and the value of hidden_dynamic_lds_size.
[[nodiscard]] inline std::uint32_t dynamic_lds_bytes(const codeobject::KernelMeta& meta, const LaunchSpec& spec) noexcept {
  return lds_allocation(meta, spec).dynamic;
}

namespace detail {

inline void put_le(std::vector<std::byte>& out, std::uint64_t offset, std::uint64_t size, std::uint64_t value) {
  for (std::uint64_t i = 0; i < size; ++i)
    out[offset + i] = i < 8 ? static_cast<std::byte>(value >> (8 * i)) : std::byte{0};
}

/// What a by_value argument of `size` bytes can take, for messages.
inline std::string scalar_types_of_size(std::uint64_t size) {
  std::string s;
  for (const auto& d : dtype_table)
    if (d.size == size && !(d.is_float && d.size == 1)) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

}  // namespace detail

/// The kernarg segment: metadata .kernarg_segment_size bytes (what ROCclr allocates for a dispatch: allocKernArg(
/// KernargSegmentByteSize(), KernargSegmentAlignment()) in VirtualGPU::submitKernelInternal,
/// rocclr/device/rocm/rocvirtual.cpp), every byte no argument writes zero.
///
/// Explicit arguments (value kinds not hidden_*) match spec.args in order: global_buffer takes a buffer (its
/// address from `arg_addresses`) or null (0); by_value takes a scalar of exactly the metadata's size. Hidden
/// arguments are written at their metadata offset with their metadata size, with the values ROCclr writes
/// (rocvirtual.cpp, the switch over KernelParameterDescriptor hidden kinds; kinds and the v5 implicit layout:
/// AMDGPUUsage "Code Object V5 Metadata", table "AMDHSA Code Object V5 Kernel Argument Metadata Map Additions and
/// Changes", and "Implicit Kernel Arguments"):
///   hidden_block_count_x/y/z  workgroups per dimension (ROCclr: global / local)
///   hidden_group_size_x/y/z   work-items per workgroup
///   hidden_remainder_x/y/z    global % local: always 0 here, as the spec's grid counts whole workgroups
///   hidden_global_offset_x/y/z  0 (HIP launches start at the origin; code object v4 has these too)
///   hidden_grid_dims          3: HIP always dispatches a 3-dimensional NDRange (hip_module.cpp,
///                             amd::NDRangeContainer ndrange(3, ...)), and ROCclr writes sizes.dimensions()
///   hidden_printf_buffer, hidden_hostcall_buffer, hidden_heap_v1, hidden_default_queue, hidden_completion_action,
///   hidden_multigrid_sync_arg, hidden_queue_ptr, hidden_private_base, hidden_shared_base, hidden_dynamic_lds_size:
///                             from `hidden`
///   hidden_none and any other hidden kind: left zero.
/// `arg_addresses` has one entry per spec argument (0 for null and scalars). Every mismatch between spec and
/// metadata is reported, each naming /args/N and what the kernel expects.
[[nodiscard]] ASMEVO_OUTLINE Expected<std::vector<std::byte>> layout_kernargs(const codeobject::KernelMeta& meta,
                                                                     const LaunchSpec& spec,
                                                                     std::span<const std::uint64_t> arg_addresses,
                                                                     const LaunchGeometry& geom,
                                                                     const HiddenValues& hidden)
#if ASMEVO_BODY_LAUNCH
{
  if (arg_addresses.size() != spec.args.size())
    return fail(DiagCode::usage, "layout_kernargs: " + std::to_string(arg_addresses.size()) +
                                     " argument addresses for " + std::to_string(spec.args.size()) + " arguments");
  // The segment size comes from a file: refuse absurd sizes rather than allocate them (64 KiB is far above what
  // compilers emit: HIP limits explicit arguments to 4 KiB, and code object v5 adds 256 bytes of implicit ones).
  constexpr std::uint64_t max_kernarg = 64 * 1024;
  if (meta.kernarg_segment_size > max_kernarg)
    return fail(DiagCode::object_error, "kernel " + meta.name + ": .kernarg_segment_size " +
                                            std::to_string(meta.kernarg_segment_size) + " is larger than " +
                                            std::to_string(max_kernarg) + " bytes");
  std::vector<std::byte> out(static_cast<std::size_t>(meta.kernarg_segment_size));
  Diags problems;
  auto problem = [&](DiagCode code, std::string m, std::string hint = {}) {
    problems.push_back(make_diag(code, std::move(m), {}, {}, std::move(hint)));
  };

  // Every argument must lie inside the segment (a malformed object otherwise).
  for (std::size_t i = 0; i < meta.args.size(); ++i) {
    const auto& a = meta.args[i];
    if (a.offset > meta.kernarg_segment_size || a.size > meta.kernarg_segment_size - a.offset)
      problem(DiagCode::object_error, "kernel " + meta.name + ": argument " + std::to_string(i) + " (" +
                                          a.value_kind + ", offset " + std::to_string(a.offset) + ", size " +
                                          std::to_string(a.size) + ") runs past .kernarg_segment_size " +
                                          std::to_string(meta.kernarg_segment_size));
  }
  if (!problems.empty()) return detail::gathered(std::move(problems), nullptr, "kernel arguments");

  const auto explicit_args = meta.explicit_args();
  if (explicit_args.size() != spec.args.size()) {
    std::string list;
    for (const auto* a : explicit_args)
      list += (list.empty() ? "" : ", ") + (a->name.empty() ? std::string("?") : a->name) + ":" + a->value_kind +
              "(" + std::to_string(a->size) + ")";
    problem(DiagCode::usage,
            "/args: kernel " + meta.name + " takes " + std::to_string(explicit_args.size()) +
                " explicit arguments, the spec gives " + std::to_string(spec.args.size()),
            "the kernel's arguments: " + (list.empty() ? std::string("none") : list));
  }
  const std::size_t n = std::min(explicit_args.size(), spec.args.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& m = *explicit_args[i];
    const auto& s = spec.args[i];
    const std::string p = "/args/" + std::to_string(i);
    const std::string who = "the kernel's argument " + std::to_string(i) + (m.name.empty() ? "" : " (" + m.name + ")");
    const char* got = s.kind == ArgSpec::Kind::buffer ? "a buffer" : s.kind == ArgSpec::Kind::scalar ? "a scalar" : "null";
    if (m.value_kind == "global_buffer") {
      if (s.kind == ArgSpec::Kind::scalar) {
        problem(DiagCode::usage, p + ": " + who + " is a global_buffer pointer; the spec gives a scalar",
                "{\"buffer\": {...}} or {\"null\": true}");
        continue;
      }
      detail::put_le(out, m.offset, m.size, s.kind == ArgSpec::Kind::buffer ? arg_addresses[i] : 0);
    } else if (m.value_kind == "by_value") {
      const std::string types = detail::scalar_types_of_size(m.size);
      if (s.kind != ArgSpec::Kind::scalar) {
        problem(DiagCode::usage, p + ": " + who + " is passed by value (" + std::to_string(m.size) +
                                     " bytes); the spec gives " + got,
                types.empty() ? "no launch-spec scalar has that size" : "a scalar of type " + types);
        continue;
      }
      if (dtype_size(s.scalar.type) != m.size) {
        problem(DiagCode::usage, p + "/scalar/type: " + who + " is " + std::to_string(m.size) + " bytes by value; " +
                                     std::string(dtype_name(s.scalar.type)) + " is " +
                                     std::to_string(dtype_size(s.scalar.type)),
                types.empty() ? "no launch-spec scalar has that size" : "one of: " + types);
        continue;
      }
      detail::put_le(out, m.offset, m.size, s.scalar.bits);
    } else {
      // dynamic_shared_pointer, image, sampler, pipe, queue: OpenCL-only kinds HIP never emits.
      problem(DiagCode::unsupported, p + ": " + who + " has value kind " + m.value_kind +
                                         ", which launch specs cannot describe");
    }
  }
  if (!problems.empty()) return detail::gathered(std::move(problems), nullptr, "kernel arguments");

  for (const auto& a : meta.args) {
    if (!a.is_hidden()) continue;
    const std::string_view k = a.value_kind;
    std::uint64_t v = 0;
    auto dim = [&](std::string_view prefix) -> int {
      if (k.size() == prefix.size() + 1 && k.starts_with(prefix)) return k.back() - 'x';
      return -1;
    };
    if (int d = dim("hidden_block_count_"); d >= 0 && d < 3) v = geom.grid_groups[d];
    else if (int d2 = dim("hidden_group_size_"); d2 >= 0 && d2 < 3) v = geom.block[d2];
    else if (dim("hidden_remainder_") >= 0) v = 0;
    else if (dim("hidden_global_offset_") >= 0) v = 0;
    else if (k == "hidden_grid_dims") v = 3;
    else if (k == "hidden_printf_buffer") v = hidden.printf_buffer;
    else if (k == "hidden_hostcall_buffer") v = hidden.hostcall_buffer;
    else if (k == "hidden_heap_v1") v = hidden.heap_v1;
    else if (k == "hidden_default_queue") v = hidden.default_queue;
    else if (k == "hidden_completion_action") v = hidden.completion_action;
    else if (k == "hidden_multigrid_sync_arg") v = hidden.multigrid_sync_arg;
    else if (k == "hidden_queue_ptr") v = hidden.queue_ptr;
    else if (k == "hidden_private_base") v = hidden.private_base;
    else if (k == "hidden_shared_base") v = hidden.shared_base;
    else if (k == "hidden_dynamic_lds_size") v = hidden.dynamic_lds_size;
    // hidden_none and kinds this code does not know: zero (already).
    detail::put_le(out, a.offset, a.size, v);
  }
  return out;
}
#else
;
#endif

/// Where two kernarg segments of kernel `meta` differ, or nullopt when they agree: every byte counts -- explicit
/// arguments, hidden ones, and bytes no argument covers (zero padding, or a size mismatch) -- except those of
/// hidden_dynamic_lds_size. "Same kernarg bytes" in DESIGN.md's verification policy means this: the hidden arguments
/// are the runtime's to write from the launch and from the kernel it launches (ROCclr VirtualGPU::
/// submitKernelInternal, rocclr/device/rocm/rocvirtual.cpp, fills every Hidden* kind itself), and of them only the
/// dynamic LDS size follows the kernel, not the launch (each object's own group segment, lds_allocation); every
/// other one both executors lay out from the launch alone, so a difference there is an executor bug. The message
/// names the first differing argument (index, name, offset, size).
[[nodiscard]] inline std::optional<std::string> kernarg_difference(const codeobject::KernelMeta& meta,
                                                                  std::span<const std::byte> a,
                                                                  std::span<const std::byte> b) {
  if (a.size() != b.size())
    return "the segments are " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + " bytes";
  std::vector<std::uint8_t> masked(a.size(), 0);
  for (const auto& arg : meta.args)
    if (arg.value_kind == "hidden_dynamic_lds_size")
      for (std::uint64_t i = arg.offset; i < arg.offset + arg.size && i < masked.size(); ++i) masked[i] = 1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (masked[i] || a[i] == b[i]) continue;
    std::size_t n = 0;
    for (const auto& arg : meta.args) {
      if (arg.is_hidden()) {
        if (i >= arg.offset && i < arg.offset + arg.size)
          return "hidden argument " + arg.value_kind + " at offset " + std::to_string(arg.offset) + ", " +
                 std::to_string(arg.size) + " bytes, differs at byte " + std::to_string(i);
        continue;
      }
      if (i >= arg.offset && i < arg.offset + arg.size)
        return "explicit argument " + std::to_string(n) + (arg.name.empty() ? "" : " (" + arg.name + ")") + " at offset " +
               std::to_string(arg.offset) + ", " + std::to_string(arg.size) + " bytes, differs at byte " +
               std::to_string(i);
      ++n;
    }
    return "byte " + std::to_string(i) + ", which no argument covers, differs";
  }
  return std::nullopt;
}

/// kernarg_difference for the kernel `spec` launches, from a code object's whole metadata document (K0's
/// codeobject::Module::metadata, which the launch was checked against). When the metadata cannot be read or has no
/// such kernel, every byte counts.
[[nodiscard]] inline std::optional<std::string> launch_kernarg_difference(const codeobject::MetaJson& metadata,
                                                                         const LaunchSpec& spec,
                                                                         std::span<const std::byte> a,
                                                                         std::span<const std::byte> b) {
  auto ks = codeobject::kernels(metadata);
  if (ks) {
    auto k = select_kernel(*ks, spec);
    if (k) return kernarg_difference(**k, a, b);
  }
  codeobject::KernelMeta none;
  return kernarg_difference(none, a, b);
}

}  // namespace asmevo::verify
