// Private (scratch) memory of the emulator: per-wave slots in the hardware's swizzled layout, the private segment
// V# the runtime hands a gfx90a kernel, and per-lane private accesses that fault naming lane, offset and size.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "asmevo/emu/detail/mem_access.hpp"
#include "asmevo/emu/machine.hpp"

// Sources cited below:
//  [Usage] LLVM AMDGPUUsage.rst: "Memory Spaces" / Private (the swizzled mapping: backing address = wave scratch
//          base + (private_address / 4) * wavefront_size * 4 + lane * 4 + private_address % 4), "Initial Kernel
//          Execution State" (Private Segment Buffer, Flat Scratch Init, Private Segment Size, Scratch Wavefront
//          Offset), "Flat Scratch" (gfx90a: Absolute flat scratch; gfx942/gfx950: Architected flat scratch) and
//          "Private Segment Buffer".
//  [ROCR]  ROCR-Runtime AqlQueue::InitScratchSRD / FillBufRsrcWord0..3: the scratch V# (stride 0, swizzle_enable 1,
//          num_records = scratch size, dst_sel XYZW, num_format UINT, data_format 32, element_size 1 (4 bytes),
//          index_stride 3 (64), add_tid_enable 1, type buffer), and the SQ_BUF_RSRC_WORD3 bit layout (dst_sel_x..w
//          bits 11:0, num_format 14:12, data_format 18:15, element_size 20:19, index_stride 22:21,
//          add_tid_enable 23).

namespace asmevo::emu {

/// Offset of lane `lane`'s private byte `off` from its wave's private base: dwords interleave across the 64 lanes
/// ([Usage] "Memory Spaces", Private). The same layout MUBUF gives with the runtime's scratch V# (element size 4,
/// index stride 64, add_tid: MI300 ISA §9.1.5 "Swizzled Buffer Addressing"), so both views agree byte for byte.
[[nodiscard]] constexpr std::uint64_t private_swizzle(std::uint64_t off, unsigned lane) noexcept {
  return (off / 4) * (wave_lanes * 4) + lane * 4u + (off % 4);
}

/// Maps `slots` private slots of `per_lane` bytes per lane (rounded up to a dword, as CP rounds the dispatch
/// packet's private segment size: [Usage] "Private Segment Size"). Each slot is one region named
/// "private segment slot N" between guards at least as large as the slot, so an overrun of up to a whole slot is
/// reported as a guard hit rather than landing in another wave's memory. Call before any workgroup runs
/// (Memory::map is not thread-safe). Sets m.private_size, m.private_slots, m.private_scratch_base, m.private_guard.
inline void map_private_slots(Machine& m, std::uint64_t per_lane, std::uint32_t slots) {
  m.private_size = (per_lane + 3) & ~std::uint64_t{3};
  m.private_slots.clear();
  if (m.private_size == 0 || slots == 0) return;
  const std::uint64_t bytes = m.private_size * wave_lanes;
  m.private_guard = std::max<std::uint64_t>(Memory::default_guard, (bytes + 4095) & ~std::uint64_t{4095});
  for (std::uint32_t i = 0; i < slots; ++i) {
    const std::size_t r = m.memory.map("private segment slot " + std::to_string(i), bytes, true, m.private_guard);
    m.private_slots.push_back(m.memory.region(r).base);
  }
  m.private_scratch_base = m.private_slots.front();
}

/// Bytes from the scratch base to the end of the last slot (the runtime's num_records for the scratch V#).
[[nodiscard]] inline std::uint64_t private_span(const Machine& m) noexcept {
  return m.private_slots.empty() ? 0 : m.private_slots.back() + m.private_size * wave_lanes - m.private_scratch_base;
}

/// The private segment buffer V# (4 SGPRs) the runtime gives a gfx90a kernel ([ROCR] InitScratchSRD; [Usage]
/// "Private Segment Buffer"): base = the scratch base (the kernel adds its Scratch Wavefront Offset), stride 0,
/// swizzle_enable 1 (word1 bit 31), num_records = the scratch size, word3 = dst_sel X,Y,Z,W (4,5,6,7), num_format
/// UINT (4), data_format 32 (4), element_size 1 (4 bytes), index_stride 3 (64), add_tid_enable 1, type 0 (buffer).
[[nodiscard]] inline std::array<std::uint32_t, 4> private_segment_vsharp(const Machine& m) noexcept {
  const std::uint64_t base = m.private_scratch_base;
  const std::uint64_t span = private_span(m);
  std::array<std::uint32_t, 4> v{};
  v[0] = static_cast<std::uint32_t>(base);
  v[1] = static_cast<std::uint32_t>((base >> 32) & 0xffffu) | (1u << 31);
  v[2] = static_cast<std::uint32_t>(std::min<std::uint64_t>(span, 0xffffffffu));
  v[3] = 4u | 5u << 3 | 6u << 6 | 7u << 9 | 4u << 12 | 4u << 15 | 1u << 19 | 3u << 21 | 1u << 23;
  return v;
}

namespace detail {

/// Stops the run for a private access outside lane `lane`'s private segment.
inline void private_fault(Wave& w, const Op& op, unsigned lane, std::int64_t off, unsigned size, bool write) {
  const std::string at = off < 0 ? "-" + hex64(static_cast<std::uint64_t>(-off)) : hex64(static_cast<std::uint64_t>(off));
  w.stop_with(Stop::Kind::fault, op,
              std::string(op.mnemonic()) + ": lane " + std::to_string(lane) + " " + (write ? "write" : "read") + " of " +
                  std::to_string(size) + " byte(s) at private offset " + at + " is outside its private segment (" +
                  std::to_string(w.machine->private_size) + " bytes per lane)",
              static_cast<std::int32_t>(lane), static_cast<std::uint64_t>(off));
}

/// The slot index holding or guarding device address `a`, or -1 (binary search: slots are mapped in order).
[[nodiscard]] inline int private_slot_near(const Machine& m, std::uint64_t a) noexcept {
  const auto& s = m.private_slots;
  if (s.empty() || a + m.private_guard < s.front()) return -1;
  auto it = std::upper_bound(s.begin(), s.end(), a + m.private_guard);
  const int i = static_cast<int>(it - s.begin()) - 1;
  if (i < 0 || a >= s[static_cast<std::size_t>(i)] + m.private_size * wave_lanes + m.private_guard) return -1;
  return i;
}

/// Whether wave `w` may touch device address `a` as private memory: false (after stopping the run) when `a` lies in
/// or next to another wave's private slot, or past the end of this wave's slot, with a message in private terms
/// (lane, private offset). True for addresses elsewhere (ordinary memory rules apply).
[[nodiscard]] inline bool private_address_ok(Wave& w, const Op& op, unsigned lane, std::uint64_t a, unsigned size, bool write) {
  const Machine& m = *w.machine;
  const auto& pb = w.group->private_base;
  if (w.wave_id < pb.size() && a - pb[w.wave_id] < m.private_size * wave_lanes &&
      a + size <= pb[w.wave_id] + m.private_size * wave_lanes)
    return true;  // the common case: inside this wave's own slot
  const int i = private_slot_near(m, a);
  if (i < 0) return true;
  const std::uint64_t slot = m.private_slots[static_cast<std::size_t>(i)];
  const std::uint64_t bytes = m.private_size * wave_lanes;
  const bool own = w.wave_id < w.group->private_base.size() && w.group->private_base[w.wave_id] == slot;
  if (a >= slot && a + size <= slot + bytes && (own || w.group->private_base.empty())) return true;
  std::string msg = std::string(op.mnemonic()) + ": lane " + std::to_string(lane) + " " + (write ? "write" : "read") +
                    " of " + std::to_string(size) + " byte(s) at " + hex64(a);
  if (a >= slot && a < slot + bytes) {
    const std::uint64_t rel = a - slot;
    msg += " lands in another wave's private memory (lane " + std::to_string((rel % (wave_lanes * 4)) / 4) +
           ", private offset " + hex64((rel / (wave_lanes * 4)) * 4 + rel % 4) + " of private segment slot " +
           std::to_string(i) + ")";
  } else if (a >= slot) {
    const std::uint64_t rel = a - slot;
    msg += " is past the end of private segment slot " + std::to_string(i) + ": private offset " +
           hex64((rel / (wave_lanes * 4)) * 4 + rel % 4) + " of lane " + std::to_string((rel % (wave_lanes * 4)) / 4) +
           " is outside the private segment (" + std::to_string(m.private_size) + " bytes per lane)";
  } else {
    msg += " is " + std::to_string(slot - a) + " byte(s) before private segment slot " + std::to_string(i);
  }
  w.stop_with(Stop::Kind::fault, op, std::move(msg), static_cast<std::int32_t>(lane), a);
  return false;
}

/// For a buffer access through a resource with add_tid_enable (a scratch V#): when `a` is not inside this wave's
/// own private slot but decodes, relative to it, as lane `lane`'s swizzled private offset (a lane writing past its
/// private segment), stops the run with a fault naming the lane, that private offset and the private size. False
/// after stopping; true otherwise (other addresses follow the ordinary rules at completion).
[[nodiscard]] inline bool private_lane_ok(Wave& w, const Op& op, unsigned lane, std::uint64_t a, unsigned size, bool write) {
  const auto& pb = w.group->private_base;
  if (w.wave_id >= pb.size() || pb[w.wave_id] == 0) return true;
  const std::uint64_t own = pb[w.wave_id];
  const std::uint64_t bytes = w.machine->private_size * wave_lanes;
  if (a >= own && a + size <= own + bytes) return true;
  if (a < own) return true;
  const std::uint64_t rel = a - own;
  if ((rel % (wave_lanes * 4)) / 4 != lane) return true;
  private_fault(w, op, lane, static_cast<std::int64_t>((rel / (wave_lanes * 4)) * 4 + rel % 4), size, write);
  return false;
}

/// Host pointer of a private slot starting at device address `base` (the whole slot), or nullptr when `base` is
/// not the start of a mapped slot.
[[nodiscard]] inline std::byte* private_slot_ptr(Wave& w, std::uint64_t base, bool write, std::size_t& hint) noexcept {
  if (w.machine->private_size == 0) return nullptr;
  return w.machine->memory.translate(base, w.machine->private_size * wave_lanes, write, hint);
}

/// Checks that `base` (FLAT_SCRATCH, or the private base an instruction computed) is this wave's own private slot
/// when the launch assigned one; stops the run otherwise (hardware would read or clobber another wave's memory or
/// arbitrary memory: a kernel that never set up FLAT_SCRATCH, or set it wrong).
[[nodiscard]] inline bool private_base_ok(Wave& w, const Op& op, std::uint64_t base) {
  const auto& pb = w.group->private_base;
  if (w.machine->private_size == 0) {
    w.stop_with(Stop::Kind::fault, op,
                std::string(op.mnemonic()) + ": the kernel accesses private memory, but its private segment is 0 "
                                             "bytes per lane (private_segment_fixed_size)");
    return false;
  }
  if (pb.empty() || (w.wave_id < pb.size() && pb[w.wave_id] == base)) return true;
  w.stop_with(Stop::Kind::fault, op,
              std::string(op.mnemonic()) + ": the private base " + hex64(base) +
                  " (FLAT_SCRATCH) is not this wave's private segment (" +
                  hex64(w.wave_id < pb.size() ? pb[w.wave_id] : 0) + "); was FLAT_SCRATCH set up from Flat Scratch "
                                                                       "Init plus the Scratch Wavefront Offset?",
              -1, base);
  return false;
}

/// Copies `n` bytes between `buf` and lane `l`'s private memory at private offset `off`, for a wave whose private
/// base is `base` (`slot`: its host pointer from private_slot_ptr, or nullptr to translate piecewise). Dwords of
/// one lane are 256 bytes apart ([Usage] mapping), so a multi-dword or unaligned access is split at dword
/// boundaries. Returns false after stopping the run.
template <bool Write>
[[nodiscard]] inline bool private_copy(Wave& w, const Op& op, unsigned l, std::uint64_t base, std::byte* slot,
                                       std::int64_t off, unsigned n, std::byte* buf, std::size_t& hint) {
  if (off < 0 || static_cast<std::uint64_t>(off) + n > w.machine->private_size) {
    private_fault(w, op, l, off, n, Write);
    return false;
  }
  std::uint64_t o = static_cast<std::uint64_t>(off);
  while (n) {
    const unsigned in = static_cast<unsigned>(o & 3u);
    const unsigned take = std::min(4u - in, n);
    const std::uint64_t rel = private_swizzle(o, l);
    std::byte* p = slot ? slot + rel : global_ptr(w, op, l, base + rel, take, Write, hint);
    if (!p) return false;
    if constexpr (Write) std::memcpy(p, buf, take);
    else std::memcpy(buf, p, take);
    buf += take;
    o += take;
    n -= take;
  }
  return true;
}

}  // namespace detail
}  // namespace asmevo::emu
