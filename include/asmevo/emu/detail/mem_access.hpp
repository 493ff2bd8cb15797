// Shared pieces of the emulator's memory semantics: lane loops, load/store data shapes, and address translation
// with faults for global, flat (aperture-selected) and LDS accesses.
#pragma once

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "asmevo/emu/machine.hpp"

namespace asmevo::emu::detail {

[[nodiscard]] inline std::int64_t sext(std::uint64_t v, unsigned bits) noexcept {
  const unsigned sh = 64 - bits;
  return static_cast<std::int64_t>(v << sh) >> sh;
}

[[nodiscard]] inline std::string hex64(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

/// Stops the run for an access the memory map does not allow, naming the instruction, lane and address.
inline void memory_fault(Wave& w, const Op& op, int lane, std::uint64_t addr, std::uint64_t size, bool write) {
  std::string msg(op.mnemonic());
  msg += lane >= 0 ? ": lane " + std::to_string(lane) + " " : ": ";
  msg += w.machine->memory.describe(addr, size, write);
  w.stop_with(Stop::Kind::fault, op, std::move(msg), lane, addr);
}

/// Stops the run for an LDS access outside the workgroup's allocation. The hardware would return 0 for a read
/// and drop a write (MI300 ISA §11.3: LDS accesses are clamped to the allocation); the emulator fails loudly
/// instead, because a kernel that relies on it is almost always an edit gone wrong.
inline void lds_fault(Wave& w, const Op& op, int lane, std::uint64_t off, std::uint64_t size, bool write) {
  w.stop_with(Stop::Kind::fault, op,
              std::string(op.mnemonic()) + ": lane " + std::to_string(lane) + " " + (write ? "write" : "read") +
                  " of " + std::to_string(size) + " byte(s) at LDS offset " + hex64(off) +
                  " is outside the workgroup's LDS allocation (" + std::to_string(w.group->lds.size()) + " bytes)",
              lane, off);
}

/// Host pointer of `size` bytes at LDS byte offset `off`, or nullptr after stopping the run.
[[nodiscard]] inline std::byte* lds_ptr(Wave& w, const Op& op, unsigned lane, std::uint64_t off, std::uint64_t size, bool write) {
  auto& lds = w.group->lds;
  if (off > lds.size() || size > lds.size() - off) {
    lds_fault(w, op, static_cast<int>(lane), off, size, write);
    return nullptr;
  }
  if (write && off + size > w.group->lds_dirty) w.group->lds_dirty = off + size;
  if (off + size > w.group->lds_extent) w.group->lds_extent = off + size;
  return lds.data() + off;
}

/// Host pointer of a global-memory access, or nullptr after stopping the run with a fault.
[[nodiscard]] inline std::byte* global_ptr(Wave& w, const Op& op, unsigned lane, std::uint64_t addr, std::uint64_t size,
                                           bool write, std::size_t& hint) {
  std::byte* p = w.machine->memory.translate(addr, size, write, hint);
  if (!p) memory_fault(w, op, static_cast<int>(lane), addr, size, write);
  return p;
}

/// The common case of a vector access, translated once: when every lane in `lanes` touches `size` bytes inside one
/// allocation, the host pointer of the lowest address `lo` (lane l's bytes are at the result + (addr[l] - lo));
/// nullptr otherwise, and the caller translates lane by lane, which names the lane that faults.
[[nodiscard]] inline std::byte* span_ptr(Wave& w, const MemOp& m, LaneMask lanes, std::uint64_t size, bool write,
                                         std::uint64_t& lo) noexcept {
  if (!lanes) return nullptr;
  std::uint64_t mn = ~0ull, mx = 0;
  for (LaneMask e = lanes; e; e &= e - 1) {
    const std::uint64_t a = m.addr[static_cast<unsigned>(std::countr_zero(e))];
    mn = a < mn ? a : mn;
    mx = a > mx ? a : mx;
  }
  if (mx + size < mx) return nullptr;
  lo = mn;
  return w.machine->memory.translate(mn, mx + size - mn, write);
}

/// Address segments of the vector memory instructions.
enum class Seg : std::uint8_t { global, flat };

/// Host pointer of a FLAT access: the aperture (high 32 bits of the address) selects LDS (offset = low 32 bits),
/// private memory, or global memory (MI300 ISA §10 "Flat Memory Instructions": apertures from SH_MEM_BASES).
/// Private-aperture lanes are handled by the callers before they get here (sem_mem.hpp, through
/// detail/mem_private.hpp: a lane's private dwords are not contiguous, so there is no single host pointer); a private
/// address reaching this function stops the run as unsupported. `lds` tells the caller which memory answered (float
/// atomics follow different denormal rules there).
[[nodiscard]] inline std::byte* flat_ptr(Wave& w, const Op& op, unsigned lane, std::uint64_t addr, std::uint64_t size,
                                         bool write, std::size_t& hint, bool& lds) {
  const auto hi = static_cast<std::uint32_t>(addr >> 32);
  lds = hi == w.machine->shared_aperture_hi;
  if (lds) return lds_ptr(w, op, lane, addr & 0xffffffffu, size, write);
  if (hi == w.machine->private_aperture_hi) {
    w.stop_with(Stop::Kind::unsupported, op,
                std::string(op.mnemonic()) + ": lane " + std::to_string(lane) + " address " + hex64(addr) +
                    " is in the private (scratch) aperture, which this access path does not handle",
                static_cast<std::int32_t>(lane), addr);
    return nullptr;
  }
  return global_ptr(w, op, lane, addr, size, write, hint);
}

template <Seg S>
[[nodiscard]] inline std::byte* vmem_ptr(Wave& w, const Op& op, unsigned lane, std::uint64_t addr, std::uint64_t size,
                                         bool write, std::size_t& hint, bool& lds) {
  if constexpr (S == Seg::flat) return flat_ptr(w, op, lane, addr, size, write, hint, lds);
  lds = false;
  return global_ptr(w, op, lane, addr, size, write, hint);
}

// ---- data shapes ---------------------------------------------------------------------------------------------

/// What a load reads and how it lands in the destination VGPR(s) (MI300 ISA §9.1.6 "16-bit Memory Operations":
/// D16 writes the low half and D16_HI the high half, keeping the other half; byte/short loads zero- or sign-extend).
/// Multi-dword accesses are copied byte-wise: gfx9 under ROCm runs with SH_MEM_CONFIG.alignment_mode = UNALIGNED
/// (Linux amdkfd kfd_device_queue_manager_v9.c), so the "two LSBs ignored" rule of §9.1.7 (dword alignment mode)
/// does not apply to vector memory.
enum class Ld : std::uint8_t { u8, i8, u16, i16, b32, b64, b96, b128, u8_d16, i8_d16, u8_d16_hi, i8_d16_hi, b16_d16, b16_d16_hi };

[[nodiscard]] constexpr unsigned ld_bytes(Ld k) noexcept {
  switch (k) {
    case Ld::u8: case Ld::i8: case Ld::u8_d16: case Ld::i8_d16: case Ld::u8_d16_hi: case Ld::i8_d16_hi: return 1;
    case Ld::u16: case Ld::i16: case Ld::b16_d16: case Ld::b16_d16_hi: return 2;
    case Ld::b32: return 4;
    case Ld::b64: return 8;
    case Ld::b96: return 12;
    case Ld::b128: return 16;
  }
  return 4;
}
[[nodiscard]] constexpr unsigned ld_dwords(Ld k) noexcept { return ld_bytes(k) <= 4 ? 1 : ld_bytes(k) / 4; }

/// Writes lane `l` of the destination rows from `p` (nullptr: the value 0, e.g. an out-of-range buffer lane).
/// D16 forms read the destination now (at completion), so a later write to its other half is kept.
template <Ld K>
inline void put_load(Wave& w, unsigned row, unsigned l, const std::byte* p) noexcept {
  if constexpr (ld_bytes(K) >= 4) {
    for (unsigned k = 0; k < ld_dwords(K); ++k) {
      std::uint32_t x = 0;
      if (p) std::memcpy(&x, p + 4 * k, 4);
      w.v[row + k][l] = x;
    }
  } else {
    std::uint32_t x = 0;
    if (p) std::memcpy(&x, p, ld_bytes(K));  // little-endian host and device
    std::uint32_t& d = w.v[row][l];
    switch (K) {
      case Ld::u8: case Ld::u16: d = x; break;
      case Ld::i8: d = static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(x))); break;
      case Ld::i16: d = static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(x))); break;
      case Ld::u8_d16: case Ld::b16_d16: d = (d & 0xffff0000u) | x; break;
      case Ld::i8_d16: d = (d & 0xffff0000u) | (static_cast<std::uint32_t>(static_cast<std::int8_t>(x)) & 0xffffu); break;
      case Ld::u8_d16_hi: case Ld::b16_d16_hi: d = (d & 0xffffu) | (x << 16); break;
      case Ld::i8_d16_hi: d = (d & 0xffffu) | (static_cast<std::uint32_t>(static_cast<std::int8_t>(x)) << 16); break;
      default: break;
    }
  }
}

/// What a store writes: byte (bits 7:0), byte_d16_hi (bits 23:16), short (15:0), short_d16_hi (31:16), dwords.
enum class St : std::uint8_t { b8, b8_hi, b16, b16_hi, b32, b64, b96, b128 };

[[nodiscard]] constexpr unsigned st_bytes(St k) noexcept {
  switch (k) {
    case St::b8: case St::b8_hi: return 1;
    case St::b16: case St::b16_hi: return 2;
    case St::b32: return 4;
    case St::b64: return 8;
    case St::b96: return 12;
    case St::b128: return 16;
  }
  return 4;
}
[[nodiscard]] constexpr unsigned st_dwords(St k) noexcept { return st_bytes(k) <= 4 ? 1 : st_bytes(k) / 4; }

/// Copies `dwords` dwords of a data operand (all 64 lanes) into m.data[first..].
inline void capture(const Wave& w, const Slot& s, MemOp& m, unsigned dwords, unsigned first = 0) noexcept {
  std::uint32_t tmp[wave_lanes];
  for (unsigned k = 0; k < dwords && first + k < m.data.size(); ++k)
    std::memcpy(m.data[first + k].data(), w.lanes(s, tmp, k), sizeof(std::uint32_t) * wave_lanes);
}

/// Writes lane `l`'s store data for `K` at `p`.
template <St K>
inline void put_store(const MemOp& m, unsigned l, std::byte* p) noexcept {
  if constexpr (st_bytes(K) >= 4) {
    for (unsigned k = 0; k < st_dwords(K); ++k) std::memcpy(p + 4 * k, &m.data[k][l], 4);
  } else {
    const std::uint32_t x = m.data[0][l] >> ((K == St::b8_hi || K == St::b16_hi) ? 16 : 0);
    std::memcpy(p, &x, st_bytes(K));
  }
}

/// 32- or 64-bit value of lane `l` from m.data starting at dword `first`.
template <unsigned Bytes>
[[nodiscard]] inline std::uint64_t data_value(const MemOp& m, unsigned first, unsigned l) noexcept {
  std::uint64_t v = m.data[first][l];
  if constexpr (Bytes == 8) v |= static_cast<std::uint64_t>(m.data[first + 1][l]) << 32;
  return v;
}

}  // namespace asmevo::emu::detail
