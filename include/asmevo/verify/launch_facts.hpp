// The launch facts (analysis/known_bits.hpp) of one launch spec of a recovered code object: what every launch of
// that spec fixes about the kernel's initial state, on the emulator (emu/launch.hpp) and on a HIP device alike.
//
// Fixed: the block and grid sizes; the workgroup-id SGPRs' ranges; the kernarg and dispatch-packet address SGPRs (as
// symbols, not values); the kernarg bytes of explicit scalar and null-pointer arguments and of the hidden sizes
// (block counts, group sizes, remainders, global offsets, grid dimensions); kernarg-preload SGPRs made of such bytes;
// the dispatch packet's workgroup sizes and grid sizes. Not fixed: buffer addresses, every other hidden argument
// (runtime pointers, apertures, dynamic LDS size), padding between arguments, and every other register. Of a buffer
// address only bits 47..63 are fixed (zero).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "asmevo/analysis/kernel_scope.hpp"
#include "asmevo/analysis/known_bits.hpp"
#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/launch/kernargs.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::verify {

/// Facts of `spec` on `m`. `kernarg_preload` as EmulateOptions::kernarg_preload: waves start after a preload
/// prologue with the preload SGPRs filled (AMDGPUUsage "Preloaded Kernel Arguments").
[[nodiscard]] inline Expected<analysis::LaunchFacts> launch_facts(const codeobject::Module& m, const LaunchSpec& spec,
                                                                  bool kernarg_preload = true) {
  using namespace codeobject;
  using analysis::LaunchFacts;
  auto metas = kernels(m.metadata);
  if (!metas) return unexpected(metas.error());
  auto meta = select_kernel(*metas, spec);
  if (!meta) return unexpected(meta.error());
  const KernelInfo* ki = nullptr;
  for (const auto& k : m.kernels)
    if ((*meta)->symbol == k.name + ".kd" || (*meta)->name == k.name) ki = &k;
  if (!ki) return fail(DiagCode::object_error, "no kernel descriptor for kernel '" + (*meta)->name + "'");
  auto block = resolve_block(spec, **meta);
  if (!block) return unexpected(block.error());

  LaunchFacts f;
  f.grid = spec.grid;
  f.block = *block;
  const auto& kd = ki->descriptor;
  const std::uint32_t preload_length = static_cast<std::uint32_t>(kd.get(field::preload_length));
  const std::uint32_t preload_offset = static_cast<std::uint32_t>(kd.get(field::preload_offset));
  const bool preload = kernarg_preload && preload_length > 0;
  auto scope = analysis::kernel_scope(m.program, ki->name, preload);
  if (!scope) return unexpected(scope.error());
  f.entry = scope->entry;
  f.f32_mode = static_cast<int>(kd.get(field::float_denorm_mode_32) | kd.get(field::ieee_mode) << 2);

  // The kernarg segment, laid out as the launchers lay it out, with every buffer address 0 (then marked unknown).
  std::vector<std::uint64_t> addrs(spec.args.size(), 0);
  LaunchGeometry geo{spec.grid, *block};
  auto karg = layout_kernargs(**meta, spec, addrs, geo, HiddenValues{});
  if (!karg) return unexpected(karg.error());
  f.kernarg.bytes.resize(karg->size());
  f.kernarg.known.assign(karg->size(), 0);
  for (std::size_t i = 0; i < karg->size(); ++i) f.kernarg.bytes[i] = static_cast<std::uint8_t>((*karg)[i]);
  auto mark = [&](std::uint64_t off, std::uint64_t size) {
    for (std::uint64_t i = off; i < off + size && i < f.kernarg.known.size(); ++i) f.kernarg.known[i] = 0xff;
  };
  // A buffer's address is below 2^47 (bits 47..63 zero): the emulator places every buffer there (emu/launch.hpp
  // refuses a launch that would not), and on a device hipMalloc returns addresses of the process's user address
  // space, which on x86-64 Linux ends at 2^47 (the kernel's x86_64 memory map, Documentation/arch/x86/x86_64/mm.rst:
  // "0000000000000000 - 00007fffffffffff (=47 bits) user space"; 5-level paging maps above it only on request).
  auto mark_address = [&](std::uint64_t off) {
    if (off + 8 > f.kernarg.known.size()) return;
    f.kernarg.known[off + 5] |= 0x80;
    f.kernarg.known[off + 6] = f.kernarg.known[off + 7] = 0xff;
  };
  {
    std::size_t e = 0;
    for (const auto& a : (*meta)->args) {
      if (!a.is_hidden()) {
        const auto& s = spec.args[e++];
        // Scalars and null pointers are the spec's; a buffer's address is the launcher's.
        if (s.kind != ArgSpec::Kind::buffer) mark(a.offset, a.size);
        else if (a.size == 8) mark_address(a.offset);
        continue;
      }
      const std::string_view k = a.value_kind;
      for (std::size_t d = 0; d < 3; ++d)
        if (k == std::string("hidden_block_count_") + "xyz"[d]) f.block_count_offset[d] = static_cast<std::int64_t>(a.offset);
      if (k.starts_with("hidden_block_count_") || k.starts_with("hidden_group_size_") ||
          k.starts_with("hidden_remainder_") || k.starts_with("hidden_global_offset_") || k == "hidden_grid_dims")
        mark(a.offset, a.size);
    }
  }

  // The dispatch packet (HSA Platform System Architecture spec, hsa_kernel_dispatch_packet_t): workgroup_size_x/y/z
  // (u16 at 4, 6, 8), reserved0 (u16 at 10, must be 0), grid_size_x/y/z (u32 at 12, 16, 20).
  f.dispatch.bytes.assign(64, 0);
  f.dispatch.known.assign(64, 0);
  auto put = [&](std::size_t off, std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      f.dispatch.bytes[off + i] = static_cast<std::uint8_t>(v >> (8 * i));
      f.dispatch.known[off + i] = 0xff;
    }
  };
  for (std::size_t d = 0; d < 3; ++d) {
    put(4 + 2 * d, (*block)[d], 2);
    put(12 + 4 * d, std::uint64_t{spec.grid[d]} * (*block)[d], 4);
  }
  put(10, 0, 2);

  // Initial SGPRs (AMDGPUUsage "Initial Kernel Execution State"): the user SGPRs in the order of their enable bits,
  // then the kernarg preload SGPRs, then from USER_SGPR_COUNT the workgroup ids and the rest.
  unsigned s = 0;
  if (kd.get(field::private_segment_buffer)) s += 4;
  if (kd.get(field::dispatch_ptr)) {
    f.sgprs.push_back({static_cast<std::uint16_t>(s), LaunchFacts::SgprKind::dispatch_lo, 0, ~0u});
    f.sgprs.push_back({static_cast<std::uint16_t>(s + 1), LaunchFacts::SgprKind::dispatch_hi, 0, ~0u});
    s += 2;
  }
  if (kd.get(field::queue_ptr)) s += 2;
  if (kd.get(field::kernarg_segment_ptr)) {
    f.sgprs.push_back({static_cast<std::uint16_t>(s), LaunchFacts::SgprKind::kernarg_lo, 0, ~0u});
    f.sgprs.push_back({static_cast<std::uint16_t>(s + 1), LaunchFacts::SgprKind::kernarg_hi, 0, ~0u});
    s += 2;
  }
  if (kd.get(field::dispatch_id)) s += 2;
  if (!has_architected_flat_scratch(m.target) && kd.get(field::flat_scratch_init)) s += 2;
  if (kd.get(field::private_segment_size)) s += 1;
  if (preload) {
    f.preload_sgpr = static_cast<std::uint16_t>(s);
    f.preload_dword = preload_offset;
    f.preload_count = std::min<std::uint32_t>(preload_length, s < 102 ? 102 - s : 0);
  }
  if (preload)
    for (std::uint32_t k = 0; k < preload_length && s < 102; ++k, ++s) {
      const std::size_t off = (std::size_t{preload_offset} + k) * 4;
      std::uint32_t v = 0, mask = 0;
      for (unsigned by = 0; by < 4; ++by)
        if (off + by < f.kernarg.known.size()) {
          const std::uint32_t known = f.kernarg.known[off + by];  // the bits of this byte the launch fixes
          v |= (std::uint32_t{f.kernarg.bytes[off + by]} & known) << (8 * by);
          mask |= known << (8 * by);
        }
      if (mask) f.sgprs.push_back({static_cast<std::uint16_t>(s), LaunchFacts::SgprKind::value, v, mask});
    }
  s = static_cast<unsigned>(kd.get(field::user_sgpr_count));
  const bool wg[3] = {kd.get(field::workgroup_id_x) != 0, kd.get(field::workgroup_id_y) != 0,
                      kd.get(field::workgroup_id_z) != 0};
  for (std::size_t d = 0; d < 3; ++d)
    if (wg[d]) f.sgprs.push_back({static_cast<std::uint16_t>(s++), LaunchFacts::SgprKind::below, spec.grid[d], ~0u,
                         static_cast<std::uint8_t>(d)});
  return f;
}

}  // namespace asmevo::verify
