// The emulator's memory instruction semantics: scalar memory, global/flat, MUBUF buffer, LDS (DS) and cache
// maintenance, each issued as a MemOp whose access happens at completion.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "asmevo/emu/detail/mem_access.hpp"
#include "asmevo/emu/detail/mem_atomic.hpp"
#include "asmevo/emu/detail/mem_private.hpp"
#include "asmevo/emu/machine.hpp"
#include "asmevo/ir/op.hpp"

// Sources cited below:
//  [ISA]  AMD Instinct MI300 ISA (CDNA3): §8 "Scalar Memory Operations", §9.1 "Vector Memory Buffer Instructions"
//         (§9.1.5 "Buffer Addressing" and "Range Checking", §9.1.8 "Buffer Resource"), §9.2 "Float Memory Atomics",
//         §10 "Flat Memory Instructions", §11 "Data Share Operations", and the per-opcode descriptions. The text read
//         was the CDNA4 edition, whose wording of these sections is the same.
//  [MI200] MI200 ISA (CDNA2) for gfx90a-only opcodes (buffer_wbinvl1*, buffer_invl2).
//  [LLVM] LLVM AMDGPU: SIInstrInfo/FLATInstructions.td offsets (13-bit signed global/scratch, 12-bit unsigned flat
//         on gfx9), SMInstructions.td (21-bit signed SMEM offset on gfx9, unsigned for s_buffer_*), and
//         GCNSubtarget::ldsRequiresM0Init (false on gfx9+: DS instructions ignore M0).
//  [Usage] LLVM AMDGPUUsage.rst "Memory Spaces" / Private (the swizzled private layout) and "Flat Scratch" (what
//         FLAT_SCRATCH holds on gfx90a and on the architected-flat-scratch targets); see detail/mem_private.hpp.

namespace asmevo::emu {
namespace detail {

// =============================================================================================================
// Scalar memory (SMEM) — counter lgkm, returns out of order ([ISA] §8.3 "Dependency Checking").
// =============================================================================================================

/// Byte offset of an SMEM access: the immediate (signed 21-bit on gfx9 for non-buffer forms [LLVM]
/// SMInstructions.td; unsigned for s_buffer_*) plus the soffset SGPR/M0 for _SGPR/_SGPR_IMM forms.
[[nodiscard]] inline std::uint64_t smem_offset(const Wave& w, const Op& op, bool buffer) noexcept {
  std::uint64_t off = 0;
  if (op.has(Name::offset)) {
    const std::uint64_t imm = op.imm(Name::offset);
    off += buffer ? (imm & 0x1fffffu) : static_cast<std::uint64_t>(sext(imm, 21));
  }
  if (op.has(Name::soffset)) off += w.scalar32(op.at(Name::soffset));
  return off;
}

/// The lane whose write lands first when the lanes of one store write in turn. Where several lanes of one
/// instruction write the same bytes, the ISA names no winner (nothing in the CDNA3 ISA guide's LDS or global
/// memory chapters orders the lanes of one instruction), so the emulator lets the schedule seed choose: lanes land
/// from this one upward, then wrap around to lane 0, and the last of the colliding lanes in that order wins. A kernel
/// whose result depends on which lane wins then differs between seeds, as it may between devices. Drawn from the
/// seed, the wave and the instruction's id (stable between K0 and K1), so an edit elsewhere does not change it and it
/// uses no generator state (the schedule stays the same). Applied where one instruction's lanes are written in one
/// pass: global stores within one region, buffer stores of up to 4 bytes, ds_write and ds_write2; the other store
/// paths (flat, scratch, wider or swizzled buffer stores, global stores that span regions) write in lane order.
[[nodiscard]] inline unsigned store_first_lane(const Wave& w, const Op& op) noexcept {
  std::uint64_t z = w.machine->options.seed * 0x9e3779b97f4a7c15ull + (std::uint64_t{w.wave_id} << 40) + op.id.value;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;  // splitmix64 finaliser (Steele, Lea, Flood 2014)
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<unsigned>((z ^ (z >> 31)) % wave_lanes);
}

/// Calls f(l) for the lanes of `e` in store order (store_first_lane, then upward with wrap-around).
template <class F>
inline void for_store_lanes(const Wave& w, const Op& op, LaneMask e, F&& f) {
  const unsigned first = store_first_lane(w, op);
  const LaneMask upper = first ? e & (~LaneMask{0} << first) : e;
  for (LaneMask x : {upper, e & ~upper})
    for (; x; x &= x - 1) f(static_cast<unsigned>(std::countr_zero(x)));
}

/// SMEM address: "All components of the address (base, offset, inst_offset, M0) are in bytes, but the two LSBs
/// are ignored and treated as if they were zero" ([ISA] §8.2.1.1 "Scalar Memory Addressing").
[[nodiscard]] inline std::uint64_t smem_addr(const Wave& w, const Op& op) noexcept {
  return (w.s64(op.at(Name::sbase).index) + smem_offset(w, op, false)) & ~3ull;
}

template <unsigned N>
inline void s_load_done(Wave& w, MemOp& m) {
  std::size_t hint = Memory::npos;
  const std::byte* p = w.machine->memory.translate(m.addr[0], 4 * N, false, hint);
  if (!p) { memory_fault(w, *m.op, -1, m.addr[0], 4 * N, false); return; }
  std::memcpy(&w.s[m.dst.first], p, 4 * N);
}

/// s_load_dword{,x2,x4,x8,x16}: N dwords from sbase + offset into sdst.
template <unsigned N>
inline void s_load(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::sdst);
  const std::uint64_t a = smem_addr(w, op);
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm, true);
  m.addr[0] = a;
  m.dst = {false, static_cast<std::uint16_t>(d.index), static_cast<std::uint16_t>(N)};
  m.complete = &s_load_done<N>;
  issue(w);
}

template <unsigned N>
inline void s_buffer_load_done(Wave& w, MemOp& m) {
  std::size_t hint = Memory::npos;
  for (unsigned k = 0; k < N; ++k) {
    std::uint32_t x = 0;
    if (m.aux[1] + 4 * k < m.aux[2]) {
      const std::uint64_t a = m.addr[0] + 4 * k;
      const std::byte* p = w.machine->memory.translate(a, 4, false, hint);
      if (!p) { memory_fault(w, *m.op, -1, a, 4, false); return; }
      std::memcpy(&x, p, 4);
    }
    w.s[m.dst.first + k] = x;
  }
}

/// s_buffer_load_dword*: the buffer constant in 4 SGPRs gives base (48 bits), stride and num_records; "Stride is
/// used only for memory address bounds checking" and "the two LSBs of V#.base and of the final address are
/// ignored" ([ISA] §8.2.1.1 "Reads/Writes/Atomics using Buffer Constant"). A dword whose offset is
/// >= (stride == 0 ? 1 : stride) * num_records is out of range and reads 0. (The CDNA3 pseudo-code's `m_size`
/// line is garbled; this is the rule as the RDNA3 ISA §9.4.1.4 "Scalar Memory" states it, with the same fields.)
template <unsigned N>
inline void s_buffer_load(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::sdst);
  const unsigned r = op.at(Name::sbase).index;
  const std::uint64_t base = (w.s[r] | static_cast<std::uint64_t>(w.s[r + 1] & 0xffffu) << 32) & ~3ull;
  const std::uint64_t stride = (w.s[r + 1] >> 16) & 0x3fffu;
  const std::uint64_t size = (stride == 0 ? 1 : stride) * w.s[r + 2];
  const std::uint64_t off = smem_offset(w, op, true) & ~3ull;
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm, true);
  m.addr[0] = base + off;
  m.aux[1] = off;
  m.aux[2] = size;
  m.dst = {false, static_cast<std::uint16_t>(d.index), static_cast<std::uint16_t>(N)};
  m.complete = &s_buffer_load_done<N>;
  issue(w);
}

template <unsigned N>
inline void s_store_done(Wave& w, MemOp& m) {
  std::size_t hint = Memory::npos;
  std::byte* p = w.machine->memory.translate(m.addr[0], 4 * N, true, hint);
  if (!p) { memory_fault(w, *m.op, -1, m.addr[0], 4 * N, true); return; }
  for (unsigned k = 0; k < N; ++k) std::memcpy(p + 4 * k, &m.data[k][0], 4);
}

/// s_store_dword{,x2,x4}: data captured from sdata at issue.
template <unsigned N>
inline void s_store(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::sdata);
  const std::uint64_t a = smem_addr(w, op);
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm, true);
  m.addr[0] = a;
  for (unsigned k = 0; k < N; ++k) m.data[k][0] = w.s[d.index + k];
  m.complete = &s_store_done<N>;
  issue(w);
}

template <Atom A, unsigned B>
inline void s_atomic_done(Wave& w, MemOp& m) {
  const AtomicGuard guard(*w.machine);  // atomic across host threads too
  std::size_t hint = Memory::npos;
  std::byte* p = w.machine->memory.translate(m.addr[0], B, true, hint);
  if (!p) { memory_fault(w, *m.op, -1, m.addr[0], B, true); return; }
  std::uint64_t old = 0;
  std::memcpy(&old, p, B);
  const std::uint64_t src = data_value<B>(m, 0, 0);
  const std::uint64_t cmp = atom_has_cmp(A) ? data_value<B>(m, B / 4, 0) : 0;
  const std::uint64_t nv = atomic_apply<A, B>(old, src, cmp, AtomFp{});
  std::memcpy(p, &nv, B);
  for (unsigned k = 0; k < m.dst.count; ++k) w.s[m.dst.first + k] = static_cast<std::uint32_t>(old >> (32 * k));
}

/// s_atomic_*: "the same set of memory atomics as the vector memory unit"; GLC=1 (the _RTN forms, which name
/// sdst) returns the pre-op value ([ISA] §8.2.2). cmpswap data is {src, cmp}.
template <Atom A, unsigned B>
inline void s_atomic(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::sdata);
  const std::uint64_t a = smem_addr(w, op);
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm, true);
  m.addr[0] = a;
  for (unsigned k = 0; k < d.dwords && k < m.data.size(); ++k) m.data[k][0] = w.s[d.index + k];
  if (op.has(Name::sdst)) m.dst = {false, static_cast<std::uint16_t>(op.at(Name::sdst).index), static_cast<std::uint16_t>(B / 4)};
  m.complete = &s_atomic_done<A, B>;
  issue(w);
}

inline void s_time_done(Wave& w, MemOp& m) {
  w.s[m.dst.first] = static_cast<std::uint32_t>(m.aux[0]);
  w.s[m.dst.first + 1] = static_cast<std::uint32_t>(m.aux[0] >> 32);
}

/// s_memtime / s_memrealtime read a 64-bit clock ([ISA] §8.2.4, §8.2.5): the shader clock, and a constant 100 MHz
/// "real time" clock. The emulator has no clock, so it makes one up that a kernel cannot tell from a real one by
/// its values alone: each wave's clocks start at seeded values (launch.hpp: they differ between trials, waves and
/// schedules) and every read advances them by a seeded amount, the shader clock by at least one tick (it only
/// rises), the real-time clock by zero or more (two close reads may see the same 100 MHz tick). A kernel whose
/// result depends on a clock's value therefore differs between runs, as on hardware.
template <bool Real>
inline void s_memtime(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::sdst);
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm, true);
  std::uint64_t& c = Real ? w.realtime : w.clock;
  Rng step(c ^ (w.executed * 0x9e3779b97f4a7c15ull));
  c += Real ? step.next() % 64 : 1 + step.next() % 4096;
  m.aux[0] = c;
  m.dst = {false, static_cast<std::uint16_t>(d.index), 2};
  m.complete = &s_time_done;
  issue(w);
}

/// Cache maintenance with no data effect in an emulator without caches: still an outstanding operation on its
/// counter (s_dcache_*: lgkm [ISA] §8.2.3; buffer_wbl2/buffer_inv [ISA] §9.1.10 tables "BUFFER_WBL2",
/// "BUFFER_INV"; buffer_wbinvl1(_vol)/buffer_invl2 [MI200]: vm).
template <MemOp::Counter C>
inline void cache_op(Wave& w, const Op& op) {
  MemOp& m = begin_memop(w, op, C, C == MemOp::Counter::lgkm);
  (void)m;
  issue(w);
}

// =============================================================================================================
// Global and flat — global counts vm; flat counts vm and lgkm and completes out of order ([ISA] §10.2).
// =============================================================================================================

/// Per-lane addresses of a GLOBAL/FLAT instruction ([ISA] §10.4 "Global": VGPR-address + offset, or SGPR-address +
/// 32-bit VGPR-offset + offset). Offsets [LLVM] / [ISA] §10.1 table "Flat, Global and Scratch Microcode Formats":
/// global 13-bit signed; flat 12-bit unsigned ("MSB is ignored").
template <Seg S>
inline void vmem_addresses(const Wave& w, const Op& op, MemOp& m) noexcept {
  const Slot& va = op.at(Name::vaddr);
  const std::uint64_t raw = op.imm(Name::offset);
  const std::uint64_t off = S == Seg::flat ? (raw & 0xfffu) : static_cast<std::uint64_t>(sext(raw, 13));
  const std::uint32_t* lo = w.v[va.index];
  if (op.has(Name::saddr)) {
    const std::uint64_t base = w.scalar64(op.at(Name::saddr)) + off;
    for (unsigned l = 0; l < wave_lanes; ++l) m.addr[l] = base + lo[l];
  } else {
    const std::uint32_t* hi = w.v[va.index + 1];
    for (unsigned l = 0; l < wave_lanes; ++l) m.addr[l] = (lo[l] | static_cast<std::uint64_t>(hi[l]) << 32) + off;
  }
  // A flat lane in the private aperture reaches its wave's private memory through FLAT_SCRATCH, read at issue
  // ([Usage] "Flat Scratch": the FLAT SCRATCH BASE of flat instructions that access the scratch aperture).
  if constexpr (S == Seg::flat) m.aux[3] = w.s64(sc::flat_scratch);
}

/// A flat lane whose address is in the private aperture: the low 32 bits are the lane's private offset, mapped
/// through the wave's private base (FLAT_SCRATCH, captured in m.aux[3]) in the swizzled layout ([Usage] "Memory
/// Spaces" / Private; MI300 ISA §10 "Flat Memory Instructions": the private aperture). Copies `n` bytes between
/// `buf` and the lane's private memory; false after stopping the run.
template <bool Write>
[[nodiscard]] inline bool flat_private(Wave& w, const MemOp& m, unsigned l, unsigned n, std::byte* buf, std::size_t& hint) {
  if (!private_base_ok(w, *m.op, m.aux[3])) return false;
  std::byte* slot = private_slot_ptr(w, m.aux[3], Write, hint);
  return private_copy<Write>(w, *m.op, l, m.aux[3], slot, static_cast<std::int64_t>(m.addr[l] & 0xffffffffu), n, buf, hint);
}
template <Seg S>
[[nodiscard]] inline bool is_private_lane(const Wave& w, const MemOp& m, unsigned l) noexcept {
  if constexpr (S == Seg::flat) return static_cast<std::uint32_t>(m.addr[l] >> 32) == w.machine->private_aperture_hi;
  return false;
}

template <Seg S>
[[nodiscard]] constexpr MemOp::Counter vmem_counter() noexcept {
  return S == Seg::flat ? MemOp::Counter::both : MemOp::Counter::vm;
}

template <Seg S, Ld K>
inline void vload_done(Wave& w, MemOp& m) {
  std::size_t hint = Memory::npos;
  const unsigned row = m.dst.first;
  if constexpr (S == Seg::global) {
    std::uint64_t lo = 0;
    if (const std::byte* base = span_ptr(w, m, m.exec, ld_bytes(K), false, lo)) {
      for (LaneMask e = m.exec; e; e &= e - 1) {
        const unsigned l = static_cast<unsigned>(std::countr_zero(e));
        put_load<K>(w, row, l, base + (m.addr[l] - lo));
      }
      return;
    }
  }
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    if (is_private_lane<S>(w, m, l)) {
      alignas(8) std::byte buf[16];
      if (!flat_private<false>(w, m, l, ld_bytes(K), buf, hint)) return;
      put_load<K>(w, row, l, buf);
      continue;
    }
    bool lds = false;
    const std::byte* p = vmem_ptr<S>(w, *m.op, l, m.addr[l], ld_bytes(K), false, hint, lds);
    if (!p) return;
    put_load<K>(w, row, l, p);
  }
}

/// global_load_* / flat_load_*: lanes in EXEC read at completion into vdst.
template <Seg S, Ld K>
inline void vload(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::vdst);
  MemOp& m = begin_memop(w, op, vmem_counter<S>());
  m.exec = w.exec();
  vmem_addresses<S>(w, op, m);
  m.dst = {true, static_cast<std::uint16_t>(d.index), static_cast<std::uint16_t>(ld_dwords(K))};
  m.complete = &vload_done<S, K>;
  issue(w);
}

template <Seg S, St K>
inline void vstore_done(Wave& w, MemOp& m) {
  std::size_t hint = Memory::npos;
  if constexpr (S == Seg::global) {
    std::uint64_t lo = 0;
    if (std::byte* base = span_ptr(w, m, m.exec, st_bytes(K), true, lo)) {
      for_store_lanes(w, *m.op, m.exec, [&](unsigned l) { put_store<K>(m, l, base + (m.addr[l] - lo)); });
      return;
    }
  }
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    if (is_private_lane<S>(w, m, l)) {
      alignas(8) std::byte buf[16];
      put_store<K>(m, l, buf);
      if (!flat_private<true>(w, m, l, st_bytes(K), buf, hint)) return;
      continue;
    }
    bool lds = false;
    std::byte* p = vmem_ptr<S>(w, *m.op, l, m.addr[l], st_bytes(K), true, hint, lds);
    if (!p) return;
    put_store<K>(m, l, p);
  }
}

/// global_store_* / flat_store_*: the data is read from vdata at issue.
template <Seg S, St K>
inline void vstore(Wave& w, const Op& op) {
  MemOp& m = begin_memop(w, op, vmem_counter<S>());
  m.exec = w.exec();
  vmem_addresses<S>(w, op, m);
  capture(w, op.at(Name::vdata), m, st_dwords(K));
  m.complete = &vstore_done<S, K>;
  issue(w);
}

/// One lane's read-modify-write; returns the pre-op value.
template <Atom A, unsigned B>
inline std::uint64_t rmw(std::byte* p, std::uint64_t src, std::uint64_t cmp, const AtomFp& fpe) noexcept {
  std::uint64_t old = 0;
  std::memcpy(&old, p, B);
  const std::uint64_t nv = atomic_apply<A, B>(old, src, cmp, fpe);
  std::memcpy(p, &nv, B);
  return old;
}

inline void put_return(Wave& w, const MemOp& m, unsigned l, std::uint64_t old) noexcept {
  for (unsigned k = 0; k < m.dst.count; ++k) w.v[m.dst.first + k][l] = static_cast<std::uint32_t>(old >> (32 * k));
}

template <Seg S, Atom A, unsigned B>
inline void vatomic_done(Wave& w, MemOp& m) {
  const AtomicGuard guard(*w.machine);  // atomic across host threads too
  std::size_t hint = Memory::npos;
  const AtomFp l2 = l2_fp(w.machine->target == Target::gfx90a);
  const AtomFp lds_mode = lds_fp(w.mode);
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    const std::uint64_t cmp = atom_has_cmp(A) ? data_value<B>(m, B / 4, l) : 0;
    if (is_private_lane<S>(w, m, l)) {
      // A flat atomic on private memory: read, apply, write back the lane's (swizzled) bytes. Float atomics use
      // the memory (L2) rules, as for global memory.
      alignas(8) std::byte buf[8];
      if (!flat_private<false>(w, m, l, B, buf, hint)) return;
      const std::uint64_t old = rmw<A, B>(buf, data_value<B>(m, 0, l), cmp, l2);
      if (!flat_private<true>(w, m, l, B, buf, hint)) return;
      put_return(w, m, l, old);
      continue;
    }
    bool lds = false;
    std::byte* p = vmem_ptr<S>(w, *m.op, l, m.addr[l], B, true, hint, lds);
    if (!p) return;
    const std::uint64_t old = rmw<A, B>(p, data_value<B>(m, 0, l), cmp, lds ? lds_mode : l2);
    put_return(w, m, l, old);
  }
}

/// global_atomic_* / flat_atomic_*: vdata = {src} or {src, cmp} for cmpswap ([ISA] GLOBAL_ATOMIC_CMPSWAP:
/// "src = DATA[0]; cmp = DATA[1]"); the _RTN forms (sc0/glc set, vdst named) return the pre-op value.
template <Seg S, Atom A, unsigned B>
inline void vatomic(Wave& w, const Op& op) {
  MemOp& m = begin_memop(w, op, vmem_counter<S>());
  m.exec = w.exec();
  vmem_addresses<S>(w, op, m);
  capture(w, op.at(Name::vdata), m, (atom_has_cmp(A) ? 2 : 1) * B / 4);
  if (op.has(Name::vdst)) m.dst = {true, static_cast<std::uint16_t>(op.at(Name::vdst).index), static_cast<std::uint16_t>(B / 4)};
  m.complete = &vatomic_done<S, A, B>;
  issue(w);
}

// =============================================================================================================
// Scratch (private) — FLAT-encoded, counter vm only and in order: a scratch access never touches LDS, so unlike
// flat it does not count lgkm ([LLVM] SIInsertWaitcnts: only FLAT instructions that may access LDS count lgkmcnt;
// the SCRATCH records carry VM_CNT alone).
// =============================================================================================================

/// Per-lane private offsets of a SCRATCH instruction: (vaddr ? VGPR[vaddr] : 0) + (saddr ? SGPR[saddr] : 0) +
/// offset (13-bit signed on gfx9 [LLVM] FLATInstructions.td), covering the forms VADDR (vaddr, off), SADDR
/// (off, saddr), SVS (vaddr, saddr; gfx940+) and ST (off, off; gfx940+) ([ISA] §10.1 "Scratch"). The private base
/// is FLAT_SCRATCH, read at issue: the kernel's prologue sets it on gfx90a (Absolute flat scratch), the hardware
/// at wave launch on gfx942/gfx950 (Architected flat scratch) ([Usage] "Flat Scratch"). m.addr holds the signed
/// offsets (as two's complement), m.aux[3] the base.
inline void scratch_offsets(const Wave& w, const Op& op, MemOp& m) noexcept {
  std::int64_t common = sext(op.imm(Name::offset), 13);
  if (op.has(Name::saddr)) common += static_cast<std::int64_t>(w.scalar32(op.at(Name::saddr)));
  if (op.has(Name::vaddr)) {
    const std::uint32_t* v = w.v[op.at(Name::vaddr).index];
    for (unsigned l = 0; l < wave_lanes; ++l) m.addr[l] = static_cast<std::uint64_t>(common + static_cast<std::int64_t>(v[l]));
  } else {
    for (unsigned l = 0; l < wave_lanes; ++l) m.addr[l] = static_cast<std::uint64_t>(common);
  }
  m.aux[3] = w.s64(sc::flat_scratch);
}

template <Ld K>
inline void scratch_load_done(Wave& w, MemOp& m) {
  std::size_t hint = Memory::npos;
  if (!m.exec) return;
  if (!private_base_ok(w, *m.op, m.aux[3])) return;
  std::byte* slot = private_slot_ptr(w, m.aux[3], false, hint);
  const unsigned row = m.dst.first;
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    alignas(8) std::byte buf[16];
    if (!private_copy<false>(w, *m.op, l, m.aux[3], slot, static_cast<std::int64_t>(m.addr[l]), ld_bytes(K), buf, hint)) return;
    put_load<K>(w, row, l, buf);
  }
}

/// scratch_load_*: lanes in EXEC read their private memory at completion into vdst.
template <Ld K>
inline void scratch_load(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::vdst);
  MemOp& m = begin_memop(w, op, MemOp::Counter::vm);
  m.exec = w.exec();
  scratch_offsets(w, op, m);
  m.dst = {true, static_cast<std::uint16_t>(d.index), static_cast<std::uint16_t>(ld_dwords(K))};
  m.complete = &scratch_load_done<K>;
  issue(w);
}

template <St K>
inline void scratch_store_done(Wave& w, MemOp& m) {
  std::size_t hint = Memory::npos;
  if (!m.exec) return;
  if (!private_base_ok(w, *m.op, m.aux[3])) return;
  std::byte* slot = private_slot_ptr(w, m.aux[3], true, hint);
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    alignas(8) std::byte buf[16];
    put_store<K>(m, l, buf);
    if (!private_copy<true>(w, *m.op, l, m.aux[3], slot, static_cast<std::int64_t>(m.addr[l]), st_bytes(K), buf, hint)) return;
  }
}

/// scratch_store_*: the data is read from vdata at issue.
template <St K>
inline void scratch_store(Wave& w, const Op& op) {
  MemOp& m = begin_memop(w, op, MemOp::Counter::vm);
  m.exec = w.exec();
  scratch_offsets(w, op, m);
  capture(w, op.at(Name::vdata), m, st_dwords(K));
  m.complete = &scratch_store_done<K>;
  issue(w);
}

// =============================================================================================================
// MUBUF buffer instructions — counter vm, in order.
// =============================================================================================================

/// The parts of a buffer resource (V#) the emulator uses ([ISA] §9.1.8 table "Buffer Resource Descriptor").
struct Vsharp {
  std::uint64_t base = 0;         ///< bits 47:0
  std::uint32_t stride = 0;       ///< bits 61:48
  bool swizzle = false;           ///< bit 63 (bit 62, cache swizzle, only picks L1 banks: no data effect)
  std::uint32_t num_records = 0;  ///< bits 95:64
  std::uint32_t dst_sel_x = 0;    ///< bits 98:96
  std::uint32_t num_format = 0;   ///< bits 110:108
  std::uint32_t data_format = 0;  ///< bits 114:111
  std::uint32_t element_size = 0; ///< bits 116:115: 2 << n bytes (swizzled addressing)
  std::uint32_t index_stride = 0; ///< bits 118:117: 8 << n records (swizzled addressing)
  bool add_tid = false;           ///< bit 119
};

[[nodiscard]] inline Vsharp read_vsharp(const Wave& w, const Slot& s) noexcept {
  const std::uint32_t* r = &w.s[s.index];
  Vsharp v;
  v.base = r[0] | static_cast<std::uint64_t>(r[1] & 0xffffu) << 32;
  v.stride = (r[1] >> 16) & 0x3fffu;
  v.swizzle = (r[1] >> 31) & 1;
  v.num_records = r[2];
  v.dst_sel_x = r[3] & 7u;
  v.num_format = (r[3] >> 12) & 7u;
  v.data_format = (r[3] >> 15) & 15u;
  v.element_size = (r[3] >> 19) & 3u;
  v.index_stride = (r[3] >> 21) & 3u;
  v.add_tid = (r[3] >> 23) & 1;
  return v;
}

/// Addressing mode of a MUBUF form (from its record name, found at decode: detail::vmem_addressing).
struct BufMode {
  bool offen = false, idxen = false;
};
[[nodiscard]] inline BufMode buf_mode(const Op& op) noexcept { return {(op.aux & 1u) != 0, (op.aux & 2u) != 0}; }

/// Whether `op` is a load-to-LDS (lds) form: an LLVM record with the LDS-DMA property (BUFFER_LOAD_*_LDS_*).
[[nodiscard]] inline bool is_lds_dma(const Op& op) noexcept { return op.info && op.info->has(isa::prop::lds_dma); }

/// Checks the forms and resource features the emulator does not implement; stops the run and returns false.
/// `lds_ok`: the caller implements the load-to-LDS form of its opcode (buffer loads, see bload_lds).
[[nodiscard]] inline bool buffer_supported(Wave& w, const Op& op, const Vsharp& v, const BufMode& b, bool lds_ok = false) {
  const auto stop = [&](std::string why) {
    w.stop_with(Stop::Kind::unsupported, op, std::string(op.mnemonic()) + ": " + why);
    return false;
  };
  if (!lds_ok && is_lds_dma(op)) return stop("the load-to-LDS (lds) form of this opcode is not implemented");
  if (op.imm(Name::swz)) return stop("the swz bit is not implemented");
  if (v.add_tid && (b.idxen || (v.swizzle && v.index_stride != 3)))
    return stop("an add_tid_enable resource indexed past its index stride (idxen, or index_stride < 64): the "
                "emulator does not model how such a resource's stride combines with the thread id");
  if (v.swizzle || v.add_tid) return true;  // range checked by buffer_addresses_swizzled
  if (b.idxen && v.stride == 0)
    return stop("an index-enabled access to a resource with stride 0: the ISA's range check does not cover it");
  return true;
}

/// Fills per-lane addresses and the in-range lane mask, decided at issue. Address ([ISA] §9.1.5):
/// base + soffset + inst_offset + (idxen ? index * stride : 0) + (offen ? voffset : 0), with
/// vaddr = offset (offen), index (idxen), or {index, offset} (both). Range checking ([ISA] §9.1.5 "Range Checking"):
/// raw buffer (idxen = 0): out of range when inst_offset + voffset >= num_records (soffset is not part of the test),
/// per dword component for dwordx2/x3/x4; structured buffer (idxen = 1, stride != 0): out of range when
/// index >= num_records, for the whole lane. m.aux[0] = base + soffset (raw origin), aux[1] = num_records,
/// aux[2] = 1 for a raw buffer.
inline void buffer_addresses(const Wave& w, const Op& op, const Vsharp& v, const BufMode& b, MemOp& m) noexcept {
  const std::uint64_t origin = v.base + w.scalar32(op.at(Name::soffset));
  const std::uint64_t ioff = op.imm(Name::offset) & 0xfffu;
  const Slot& va = op.at(Name::vaddr);
  LaneMask in = 0;
  if (!b.idxen) {  // raw buffer (the common case): separate loops, the address one vectorises
    const std::uint64_t num = v.num_records;
    if (b.offen) {
      const std::uint32_t* voff = w.v[va.index];
      std::uint32_t most = 0;  // the largest offset decides when every lane is in range (the usual case)
      for (unsigned l = 0; l < wave_lanes; ++l) {
        m.addr[l] = origin + ioff + voff[l];
        most = voff[l] > most ? voff[l] : most;
      }
      if (ioff + most < num) in = ~LaneMask{0};
      else
        for (unsigned l = 0; l < wave_lanes; ++l) in |= static_cast<LaneMask>(ioff + voff[l] < num) << l;
    } else {
      m.addr.fill(origin + ioff);
      in = ioff < num ? ~LaneMask{0} : 0;
    }
  } else {
    const std::uint32_t* idx = w.v[va.index];
    const std::uint32_t* voff = b.offen ? w.v[va.index + 1] : nullptr;
    for (unsigned l = 0; l < wave_lanes; ++l) {
      const std::uint64_t off = ioff + (voff ? voff[l] : 0u);
      m.addr[l] = origin + static_cast<std::uint64_t>(idx[l]) * v.stride + off;
      in |= static_cast<LaneMask>(idx[l] < v.num_records) << l;
    }
  }
  m.mask = in & m.exec;
  m.aux[0] = origin;
  m.aux[1] = v.num_records;
  m.aux[2] = b.idxen ? 0 : 1;
}

/// A raw-buffer access (buffer_addresses) of `bytes` bytes per lane in which some enabled lane has a dword component
/// (or, below 4 bytes, the whole access) that starts before num_records and ends past it: stops the run as
/// unsupported and returns false. The range check tests where each component starts ([ISA] §9.1.5 "Range
/// Checking"), but what hardware does with the bytes of a component that straddles num_records is chipset-dependent
/// (MLIR's AMDGPU dialect, amdgpu.raw_buffer_load: "Partially-out of bounds have chipset-dependent behavior"; LLVM's
/// amdgpu.buffer.oob.mode module flag tells relaxed from strict handling of such accesses), so an edit that moves
/// num_records or an offset onto one cannot be shown safe here.
[[nodiscard]] inline bool buffer_partial_ok(Wave& w, const Op& op, const MemOp& m, unsigned bytes) {
  if (m.aux[2] == 0) return true;  // structured: the whole lane is in or out
  const std::uint64_t num = m.aux[1];
  const unsigned ncomp = bytes <= 4 ? 1 : bytes / 4, csize = bytes < 4 ? bytes : 4;
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    const std::uint64_t off = m.addr[l] - m.aux[0];
    for (unsigned k = 0; k < ncomp; ++k) {
      const std::uint64_t s = off + 4 * k;
      if (s < num && s + csize > num) {
        w.stop_with(Stop::Kind::unsupported, op,
                    std::string(op.mnemonic()) + ": lane " + std::to_string(l) + " accesses bytes " +
                        std::to_string(s) + ".." + std::to_string(s + csize - 1) + " of a buffer whose num_records is " +
                        std::to_string(num) + ": a dword partly out of range, whose handling is chipset-dependent",
                    static_cast<std::int32_t>(l));
        return false;
      }
    }
  }
  return true;
}

/// Whether dword component k of lane l is in range (see buffer_addresses).
[[nodiscard]] inline bool buffer_component_in(const MemOp& m, unsigned l, unsigned k) noexcept {
  if (!((m.mask >> l) & 1)) return false;
  return k == 0 || m.aux[2] == 0 || m.addr[l] - m.aux[0] + 4 * k < m.aux[1];
}

/// Addresses of a resource with swizzle_enable or add_tid_enable, decided at issue ([ISA] §9.1.5 "Buffer
/// Addressing" and "Swizzled Buffer Addressing"):
///   index  = (idxen ? VGPR index : 0) + (add_tid_enable ? lane id : 0)
///   stride = word1 STRIDE, with DATA_FORMAT as bits 17:14 when add_tid_enable
///   offset = (offen ? VGPR offset : 0) + inst_offset
///   swizzled: index_msb = index / index_stride, index_lsb = index % index_stride, offset_msb = offset / element_size,
///             offset_lsb = offset % element_size,
///             buffer_offset = (index_msb * stride + offset_msb * element_size) * index_stride
///                             + index_lsb * element_size + offset_lsb
///   linear:   buffer_offset = offset + index * stride
///   address = base + soffset + buffer_offset.
/// "Swizzled addressing also requires Dword-aligned accesses" ([ISA] §9.1.5): an access must lie inside one
/// element, except dword-aligned multi-dword accesses with 4-byte elements, whose dword k lies element_size *
/// index_stride bytes after dword 0 (component offset + 4k; the private segment's layout, AMDGPUUsage "Memory
/// Spaces"); other shapes stop as unsupported. Range checking per dword component k, on offset_k = offset + 4k
/// ([ISA] §9.1.5 "Range Checking"; soffset is never part of the test): with stride 0 (the raw case, which includes
/// the runtime's scratch V#) out of range when offset_k >= num_records; with stride != 0 out of range when
/// index >= num_records or offset_k >= stride. m.addr = address of component 0, m.mask = lanes in range for
/// component 0, m.aux[0] = byte step between components, m.aux[1..3] = lanes in range for components 1..3.
[[nodiscard]] inline bool buffer_addresses_swizzled(Wave& w, const Op& op, const Vsharp& v, const BufMode& b,
                                                    unsigned bytes, bool write, MemOp& m) {
  const std::uint64_t origin = v.base + w.scalar32(op.at(Name::soffset));
  const std::uint64_t ioff = op.imm(Name::offset) & 0xfffu;
  const Slot& va = op.at(Name::vaddr);
  const std::uint64_t es = 2ull << v.element_size, is = 8ull << v.index_stride;
  // With ADD_TID_ENABLE, an untyped (MUBUF) access reads DATA_FORMAT as STRIDE[17:14] (the gfx9 context-save trap
  // handler, Linux amdkfd cwsr_trap_handler_gfx9.asm, sets DATA_FORMAT 0 for that reason); the format forms stop
  // before they get here (buffer_load_format_x, sem_image.hpp).
  const std::uint64_t stride = v.add_tid ? (v.stride | std::uint64_t{v.data_format} << 14) : v.stride;
  const unsigned ncomp = bytes <= 4 ? 1 : bytes / 4;
  const bool split = v.swizzle && es == 4 && bytes > 4;
  m.aux[0] = v.swizzle ? (split ? es * is : 4) : 4;
  m.aux[1] = m.aux[2] = m.aux[3] = 0;
  LaneMask in0 = 0;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const std::uint64_t index = (b.idxen ? w.v[va.index][l] : 0u) + (v.add_tid ? l : 0u);
    const std::uint64_t off = ioff + (b.offen ? w.v[va.index + (b.idxen ? 1 : 0)][l] : 0u);
    std::uint64_t boff = off + index * stride;
    if (v.swizzle) {
      const std::uint64_t r = off % es;
      if (((m.exec >> l) & 1) && (split ? (off % 4) != 0 : r + bytes > es)) {
        w.stop_with(Stop::Kind::unsupported, op,
                    std::string(op.mnemonic()) + ": lane " + std::to_string(l) + " accesses " + std::to_string(bytes) +
                        " byte(s) at offset " + std::to_string(off) + " of a swizzled buffer with " + std::to_string(es) +
                        "-byte elements, crossing an element (the ISA requires dword-aligned swizzled accesses)",
                    static_cast<std::int32_t>(l));
        return false;
      }
      boff = ((index / is) * stride + (off / es) * es) * is + (index % is) * es + r;
    }
    m.addr[l] = origin + boff;
    // A scratch V# (add_tid): a lane past its private segment is reported in private terms (lane, offset, size).
    if (v.add_tid && ((m.exec >> l) & 1) && !private_lane_ok(w, op, l, m.addr[l] + (ncomp - 1) * m.aux[0], std::min(bytes, 4u), write))
      return false;
    for (unsigned k = 0; k < ncomp; ++k) {
      const std::uint64_t ok_off = off + 4 * k;
      const bool ok = stride == 0 ? ok_off < v.num_records : (index < v.num_records && ok_off < stride);
      if (k == 0) in0 |= static_cast<LaneMask>(ok) << l;
      else m.aux[k] |= static_cast<std::uint64_t>(ok) << l;
    }
  }
  m.mask = in0 & m.exec;
  return true;
}

/// Drops the op most recently begun (an instruction that stopped the run before issuing it).
inline void abandon_memop(Wave& w) {
  w.free_ops.push_back(std::move(w.queue.back()));
  w.queue.pop_back();
}

[[nodiscard]] inline bool swz_component_in(const MemOp& m, unsigned l, unsigned k) noexcept {
  return ((k == 0 ? m.mask : m.aux[k]) >> l) & 1;
}

/// Host pointer of a swizzled/add_tid buffer access: private slots of other waves (and overruns of this wave's) are
/// faults named in private terms (detail/mem_private.hpp); everything else follows the ordinary memory rules.
[[nodiscard]] inline std::byte* swz_ptr(Wave& w, const Op& op, unsigned l, std::uint64_t a, unsigned size, bool write,
                                        std::size_t& hint) {
  if (!private_address_ok(w, op, l, a, size, write)) return nullptr;
  return global_ptr(w, op, l, a, size, write, hint);
}

/// The per-lane part of a buffer load's completion, for plain (Swz = false: component k at +4k, checked by
/// buffer_component_in) and swizzled/add_tid resources (component k at +k * aux[0], checked by swz_component_in);
/// lanes or components out of range read 0.
template <Ld K, bool Swz>
inline void bload_lanes(Wave& w, MemOp& m) {
  std::size_t hint = Memory::npos;
  const unsigned row = m.dst.first;
  auto ptr = [&](unsigned l, std::uint64_t addr, unsigned bytes) -> const std::byte* {
    if constexpr (Swz) return swz_ptr(w, *m.op, l, addr, bytes, false, hint);
    else return global_ptr(w, *m.op, l, addr, bytes, false, hint);
  };
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    if constexpr (ld_bytes(K) <= 4) {
      const std::byte* p = nullptr;
      if ((m.mask >> l) & 1) {
        p = ptr(l, m.addr[l], ld_bytes(K));
        if (!p) return;
      }
      put_load<K>(w, row, l, p);
    } else {
      for (unsigned k = 0; k < ld_dwords(K); ++k) {
        std::uint32_t x = 0;
        if (Swz ? swz_component_in(m, l, k) : buffer_component_in(m, l, k)) {
          const std::byte* p = ptr(l, m.addr[l] + k * (Swz ? m.aux[0] : 4), 4);
          if (!p) return;
          std::memcpy(&x, p, 4);
        }
        w.v[row + k][l] = x;
      }
    }
  }
}

/// The per-lane part of a buffer store's completion (see bload_lanes); out-of-range lanes and components write nothing.
template <St K, bool Swz>
inline void bstore_lanes(Wave& w, MemOp& m) {
  std::size_t hint = Memory::npos;
  auto ptr = [&](unsigned l, std::uint64_t addr, unsigned bytes) -> std::byte* {
    if constexpr (Swz) return swz_ptr(w, *m.op, l, addr, bytes, true, hint);
    else return global_ptr(w, *m.op, l, addr, bytes, true, hint);
  };
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    if constexpr (st_bytes(K) <= 4) {
      if (!((m.mask >> l) & 1)) continue;
      std::byte* p = ptr(l, m.addr[l], st_bytes(K));
      if (!p) return;
      put_store<K>(m, l, p);
    } else {
      for (unsigned k = 0; k < st_dwords(K); ++k) {
        if (!(Swz ? swz_component_in(m, l, k) : buffer_component_in(m, l, k))) continue;
        std::byte* p = ptr(l, m.addr[l] + k * (Swz ? m.aux[0] : 4), 4);
        if (!p) return;
        std::memcpy(p, &m.data[k][l], 4);
      }
    }
  }
}

template <Ld K>
inline void bload_swz_done(Wave& w, MemOp& m) { bload_lanes<K, true>(w, m); }
template <St K>
inline void bstore_swz_done(Wave& w, MemOp& m) { bstore_lanes<K, true>(w, m); }

template <Ld K>
inline void bload_done(Wave& w, MemOp& m) {
  if constexpr (ld_bytes(K) <= 4) {
    std::uint64_t lo = 0;
    if (const std::byte* base = span_ptr(w, m, m.exec & m.mask, ld_bytes(K), false, lo)) {
      if (m.exec == ~LaneMask{0} && m.mask == m.exec) {  // every lane, all in range: no per-lane tests
        for (unsigned l = 0; l < wave_lanes; ++l) put_load<K>(w, m.dst.first, l, base + (m.addr[l] - lo));
        return;
      }
      for (LaneMask e = m.exec; e; e &= e - 1) {
        const unsigned l = static_cast<unsigned>(std::countr_zero(e));
        put_load<K>(w, m.dst.first, l, ((m.mask >> l) & 1) ? base + (m.addr[l] - lo) : nullptr);
      }
      return;
    }
  }
  bload_lanes<K, false>(w, m);  // lane by lane: names the lane that faults
}

// ---- MUBUF load to LDS (the `lds` forms: BUFFER_LOAD_*_LDS_*) ----------------------------------------------------
// Sources: MI200 ISA (CDNA2) and MI300 ISA (CDNA3) §9.1.9 "Memory Buffer Load to LDS" (gfx90a/gfx942: ubyte, sbyte,
// ushort, sshort, dword, format_x), CDNA4 ISA §9.1.9 (gfx950 adds dwordx3 and dwordx4), CDNA3/CDNA4 §10.3
// "Addressing" (the LDS_ADDR formula of the DMA loads), LLVM AMDGPUUsage "AMDGPU DMA Operations" (lane stride) and
// SIInsertWaitcnts (LDS DMA waits on vmcnt). The memory side is an ordinary buffer fetch: address, range checking,
// swizzling and add_tid as for the VGPR form ([ISA] §9.1.9.1: "Memory address clamping follows the same rules as any
// other buffer fetch"); there is no VGPR destination (LLVM AMDGPU syntax docs, gfx9 MUBUF vdst: "If lds is specified,
// this operand is ignored by H/W and data are stored directly into LDS"; LLVM 22's lds forms have no vdata operand).

/// M0 bits that give the LDS byte offset: "LDS_offset = 16-bit unsigned byte offset from M0[15:0]" (MI200 ISA and
/// MI300 ISA §9.1.9) on gfx90a/gfx942; "18-bit unsigned byte offset from M0[17:0]" (CDNA4 ISA §9.1.9) on gfx950. Unlike
/// global_load_lds (M0[17:2] * 4, §10.3) the low two bits are part of the offset.
[[nodiscard]] constexpr std::uint32_t buffer_lds_m0_mask(Target t) noexcept { return t == Target::gfx950 ? 0x3ffffu : 0xffffu; }

/// The LDS side shared by every LDS-DMA load (global_load_lds_* and the buffer lds forms): lane l's `Bytes` go to
/// base + l * stride, stride 4 for data of up to 4 bytes and 16 for 12 or 16 bytes ("+ ThreadID*4" / "+ ThreadID*16",
/// CDNA3/CDNA4 ISA §10.3; "(TIDinWave * 16)" for 3 and 4 dwords, CDNA4 §9.1.9; AMDGPUUsage "AMDGPU DMA Operations").
/// ThreadID is the lane number whether or not neighbouring lanes are in EXEC. Returns the host pointer, or nullptr
/// after stopping the run (outside the workgroup's allocation, lds_ptr).
template <unsigned Bytes>
[[nodiscard]] inline std::byte* lds_dma_dst(Wave& w, const Op& op, unsigned l, std::uint64_t base) {
  constexpr std::uint64_t stride = Bytes <= 4 ? 4 : 16;
  return lds_ptr(w, op, l, base + stride * l, Bytes, true);
}

/// The LDS bytes an outstanding MemOp will write by DMA: lanes `exec`, lane l at base + l * stride, `bytes` each;
/// bytes == 0 when it is not an LDS-DMA load. The buffer forms keep their base in data[0][0] (bload_lds), the
/// global_load_lds forms in aux[0] (global_load_lds).
struct LdsDmaSpan {
  std::uint64_t base = 0;
  unsigned stride = 0, bytes = 0;
};
[[nodiscard]] inline LdsDmaSpan lds_dma_span(const MemOp& m) noexcept {
  if (m.counter != MemOp::Counter::vm || m.dst.count != 0 || !m.op || !m.op->info) return {};
  const OpInfo& i = op_info(m.op->opcode);
  const bool buf = is_lds_dma(*m.op);
  if (!buf && !(i.base == BaseOp::global_load && i.has(opflag::lds))) return {};
  // dwordx4 and dwordx3 move 16 and 12 bytes per lane; every narrower load takes a dword of LDS per lane.
  const unsigned bytes = i.mem_bytes == 16 || i.mem_bytes == 12 ? i.mem_bytes : 4;
  return {buf ? m.data[0][0] : m.aux[0], bytes <= 4 ? 4u : 16u, bytes};
}

/// Checks an LDS read at issue against the LDS-DMA loads of the workgroup still outstanding: their LDS writes land
/// only when vmcnt covers them (SIInsertWaitcnts puts an s_waitcnt vmcnt before an LDS read that may alias an LDS
/// DMA store), so a lane of `ds` reading any of those bytes reads data the hardware may not have written yet. That
/// stops the run with a waitcnt violation naming both instructions (true: no overlap). Lane l of `ds` reads `bytes`
/// at ds.addr[l] + offs[h] for each of the `noffs` offsets. Other waves' DMA loads count too: a wave that reads LDS
/// another wave loads needs that wave's s_waitcnt vmcnt before their common s_barrier.
[[nodiscard]] inline bool lds_dma_read_ok(Wave& w, const Op& op, const MemOp& ds, const std::uint64_t* offs, unsigned noffs,
                                          unsigned bytes) {
  std::int64_t ds_lo = 0, ds_hi = -1;  // the bytes the read spans, computed once an LDS-DMA load is outstanding
  for (const auto& wp : w.group->waves) {
    const Wave& o = *wp;
    if (o.vm_count == 0) continue;
    for (const auto& q : o.queue) {
      const LdsDmaSpan s = lds_dma_span(*q);
      if (!s.bytes || !q->exec || !ds.exec) continue;
      if (ds_hi < ds_lo) {
        ds_lo = INT64_MAX;
        ds_hi = INT64_MIN;
        for (LaneMask e = ds.exec; e; e &= e - 1) {
          const unsigned l = static_cast<unsigned>(std::countr_zero(e));
          for (unsigned h = 0; h < noffs; ++h) {
            const std::int64_t a = static_cast<std::int64_t>(ds.addr[l] + offs[h]);
            ds_lo = std::min(ds_lo, a);
            ds_hi = std::max(ds_hi, a + static_cast<std::int64_t>(bytes));
          }
        }
      }
      const std::int64_t lo = static_cast<std::int64_t>(s.base) + s.stride * std::countr_zero(q->exec);
      const std::int64_t hi = static_cast<std::int64_t>(s.base) + s.stride * (63 - std::countl_zero(q->exec)) + s.bytes;
      if (ds_hi <= lo || ds_lo >= hi) continue;  // the usual case: a different LDS buffer
      for (LaneMask e = ds.exec; e; e &= e - 1) {
        const unsigned l = static_cast<unsigned>(std::countr_zero(e));
        for (unsigned h = 0; h < noffs; ++h) {
          const std::int64_t a = static_cast<std::int64_t>(ds.addr[l] + offs[h]);
          if (a + bytes <= lo || a >= hi) continue;
          // lanes j whose slot [base + stride*j, + s.bytes) may meet [a, a + bytes)
          const std::int64_t rel = a - static_cast<std::int64_t>(s.base);
          for (std::int64_t j = std::max<std::int64_t>(0, rel / s.stride - 1); j <= (rel + bytes - 1) / s.stride && j < 64; ++j) {
            const std::int64_t b0 = static_cast<std::int64_t>(s.base) + s.stride * j;
            if (!((q->exec >> j) & 1) || a >= b0 + s.bytes || a + bytes <= b0) continue;
            Stop st;
            st.kind = Stop::Kind::waitcnt;
            st.inst = op.id;
            st.other = q->op->id;
            st.has_other = true;
            st.lane = static_cast<std::int32_t>(l);
            st.address = static_cast<std::uint64_t>(a);
            st.message = "i" + std::to_string(op.id.value) + " (" + std::string(op.mnemonic()) + ") lane " +
                         std::to_string(l) + " reads LDS " + hex64(static_cast<std::uint64_t>(a)) + " while i" +
                         std::to_string(q->op->id.value) + " (" + std::string(q->op->mnemonic()) + ", wave " +
                         std::to_string(o.wave_id) + ") that loads it into LDS is still outstanding: no s_waitcnt " +
                         "vmcnt covers it";
            w.stop_with(std::move(st));
            return false;
          }
        }
      }
    }
  }
  return true;
}

/// [lo, hi) of the LDS bytes a DS MemOp accesses: its lanes in `exec`, each at addr[l] + aux[h] for h < lds_noffs.
[[nodiscard]] inline std::pair<std::uint64_t, std::uint64_t> lds_span(const MemOp& m) noexcept {
  std::uint64_t lo = ~0ull, hi = 0;
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    for (unsigned h = 0; h < m.lds_noffs; ++h) {
      const std::uint64_t a = m.addr[l] + m.aux[h];
      lo = std::min(lo, a);
      hi = std::max(hi, a + m.lds_bytes);
    }
  }
  return {lo, hi};
}

/// The slow part of lds_race_ok: some wave of the workgroup has an LDS access outstanding that could conflict.
[[gnu::noinline]] inline bool lds_race_scan(Wave& w, const Op& op, const MemOp& m) {
  std::uint64_t lo = 1, hi = 0;  // m's span, computed when a candidate shows up
  for (const auto& wp : w.group->waves) {
    const Wave& o = *wp;
    if (&o == &w || o.lgkm_count == 0) continue;  // one wave's DS operations complete in order
    for (const auto& qp : o.queue) {
      const MemOp& q = *qp;
      const bool reads_pending_write = (m.lds & MemOp::lds_read) && (q.lds & MemOp::lds_write);
      const bool overwrites_pending_read = (m.lds & MemOp::lds_write) && (q.lds & MemOp::lds_read);
      if (!reads_pending_write && !overwrites_pending_read) continue;
      if ((m.lds & MemOp::lds_atomic) && (q.lds & MemOp::lds_atomic)) continue;  // atomics on the same bytes commute
      if (!q.exec || !m.exec) continue;
      if (lo > hi) std::tie(lo, hi) = lds_span(m);
      const auto [qlo, qhi] = lds_span(q);
      if (hi <= qlo || lo >= qhi) continue;  // the usual case: another part of LDS
      for (LaneMask e = m.exec; e; e &= e - 1) {
        const unsigned l = static_cast<unsigned>(std::countr_zero(e));
        for (unsigned h = 0; h < m.lds_noffs; ++h) {
          const std::uint64_t a = m.addr[l] + m.aux[h], a_end = a + m.lds_bytes;
          if (a_end <= qlo || a >= qhi) continue;
          for (LaneMask f = q.exec; f; f &= f - 1) {
            const unsigned j = static_cast<unsigned>(std::countr_zero(f));
            for (unsigned k = 0; k < q.lds_noffs; ++k) {
              const std::uint64_t b = q.addr[j] + q.aux[k], b_end = b + q.lds_bytes;
              if (a_end <= b || a >= b_end) continue;
              const std::uint64_t x = std::max(a, b), y = std::min(a_end, b_end);
              Stop st;
              st.kind = Stop::Kind::waitcnt;
              st.inst = op.id;
              st.other = q.op->id;
              st.has_other = true;
              st.lane = static_cast<std::int32_t>(l);
              st.address = x;
              st.message = "i" + std::to_string(op.id.value) + " " + std::string(op.mnemonic()) + " (wave " +
                           std::to_string(w.wave_id) + ", lane " + std::to_string(l) + ") " +
                           (reads_pending_write ? "reads" : "overwrites") + " LDS bytes [" + hex64(x) + ", " +
                           hex64(y) + ") that i" + std::to_string(q.op->id.value) + " " +
                           std::string(q.op->mnemonic()) + " of wave " + std::to_string(o.wave_id) + " has not " +
                           (reads_pending_write ? "completed" : "read yet") + " (wave " + std::to_string(o.wave_id) +
                           " needs an s_waitcnt lgkmcnt before the s_barrier)";
              w.stop_with(std::move(st));
              return false;
            }
          }
        }
      }
    }
  }
  return true;
}

/// Records how DS MemOp `m` (addresses and offsets filled, not yet issued) touches LDS — `kind` is a MemOp::lds_*
/// combination, lane l accesses `bytes` at m.addr[l] + m.aux[h] for h < noffs — and checks it against the DS
/// operations other waves of the workgroup still have outstanding. LDS writes land, and LDS reads sample, only when
/// lgkmcnt covers them; one wave's DS operations complete in order (MI300 ISA §4.4 "S_WAITCNT": LDS instructions
/// return in the order issued), but nothing orders them against another wave's. So a wave that reads bytes another
/// wave's outstanding ds_write (or DS atomic) covers, or writes bytes another wave's outstanding ds_read has not read
/// yet, depends on a timing the ISA does not promise: the writer (reader) needed s_waitcnt lgkmcnt before the
/// s_barrier that orders the two (s_barrier itself waits for nothing: LLVM emits that s_waitcnt itself on targets
/// without the auto-waitcnt-before-barrier feature, which no gfx9 CDNA target has, SIInsertWaitcnts / test
/// waitcnt-before-barrier; AMDGPUUsage memory model: a workgroup-scope release waits lgkmcnt(0) for LDS). That stops
/// the run with a waitcnt violation naming both (false). Two atomics on the same bytes are no conflict, nor are two
/// writes (a race, but not one a waitcnt fixes). Conservative: a spin loop in which one wave polls an LDS flag that
/// another is storing stops here although the hardware would just poll again (no compiled kernel of the corpus does
/// that). Fast path: no DS operation of the conflicting direction outstanding in the workgroup (Workgroup::lds_*).
[[nodiscard]] inline bool lds_race_ok(Wave& w, const Op& op, MemOp& m, std::uint8_t kind, unsigned noffs, unsigned bytes) {
  m.lds = kind;
  m.lds_noffs = static_cast<std::uint8_t>(noffs);
  m.lds_bytes = static_cast<std::uint16_t>(bytes);
  const Workgroup& g = *w.group;
  const std::uint32_t pending = ((kind & MemOp::lds_read) ? g.lds_writes : 0u) | ((kind & MemOp::lds_write) ? g.lds_reads : 0u);
  return pending == 0 || lds_race_scan(w, op, m);
}

/// Bytes one lane writes to LDS. Byte, short and dword loads write one dword each: their lanes are 4 bytes apart
/// (AMDGPUUsage "AMDGPU DMA Operations": "offset by 4 * lane_id bytes for sizes up to 4 bytes") and the value is
/// "extended to 32 bit" (Triton AMD backend TargetInfo::supportsDirectToLdsLoadBitWidth, which keeps 8- and 16-bit
/// DMA loads disabled on CDNA3/CDNA4 for that reason) the way the VGPR form extends it: ubyte/ushort zero-extended,
/// sbyte/sshort sign-extended ([ISA] opcode descriptions of BUFFER_LOAD_UBYTE/SBYTE/USHORT/SSHORT). dwordx3 writes 12
/// bytes at a 16-byte stride ("LOAD_DWORDX3 writes 3 dwords and skips the 4th", CDNA4 ISA §9.1.9), dwordx4 16.
[[nodiscard]] constexpr unsigned lds_dma_bytes(Ld k) noexcept { return ld_bytes(k) <= 4 ? 4 : ld_bytes(k); }
[[nodiscard]] constexpr bool lds_dma_form(Ld k) noexcept {
  return k == Ld::u8 || k == Ld::i8 || k == Ld::u16 || k == Ld::i16 || k == Ld::b32 || k == Ld::b96 || k == Ld::b128;
}

/// The dword a byte/short/dword LDS-DMA lane writes (see lds_dma_bytes); p == nullptr (out of range) gives 0.
template <Ld K>
[[nodiscard]] inline std::uint32_t lds_dma_dword(const std::byte* p) noexcept {
  if (!p) return 0;
  std::uint32_t x = 0;
  std::memcpy(&x, p, ld_bytes(K));  // little-endian host and device
  if constexpr (K == Ld::i8) return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(x)));
  if constexpr (K == Ld::i16) return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(x)));
  return x;
}

/// Completion of a buffer LDS-DMA load: lanes in EXEC fetch like the VGPR form (out-of-range lanes and components
/// read 0, [ISA] §9.1.5 "Range Checking" rules 1 and 4, which §9.1.9.1 applies to these loads) and write the result
/// through lds_dma_dst at the LDS base captured at issue (m.data[0][0]); lanes not in EXEC write nothing ("Set the
/// active-mask to limit buffer reads to those threads that return data to a legal LDS location", §9.1.9.1).
template <Ld K, bool Swz>
inline void bload_lds_done(Wave& w, MemOp& m) {
  constexpr unsigned W = lds_dma_bytes(K);
  std::size_t hint = Memory::npos;
  const std::uint64_t base = m.data[0][0];
  auto ptr = [&](unsigned l, std::uint64_t addr, unsigned bytes) -> const std::byte* {
    if constexpr (Swz) return swz_ptr(w, *m.op, l, addr, bytes, false, hint);
    else return global_ptr(w, *m.op, l, addr, bytes, false, hint);
  };
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    std::uint32_t x[4] = {};
    if constexpr (ld_bytes(K) <= 4) {
      const std::byte* p = nullptr;
      if ((m.mask >> l) & 1) {
        p = ptr(l, m.addr[l], ld_bytes(K));
        if (!p) return;
      }
      x[0] = lds_dma_dword<K>(p);
    } else {
      for (unsigned k = 0; k < ld_dwords(K); ++k) {
        if (!(Swz ? swz_component_in(m, l, k) : buffer_component_in(m, l, k))) continue;
        const std::byte* p = ptr(l, m.addr[l] + k * (Swz ? m.aux[0] : 4), 4);
        if (!p) return;
        std::memcpy(&x[k], p, 4);
      }
    }
    std::byte* d = lds_dma_dst<W>(w, *m.op, l, base);
    if (!d) return;
    std::memcpy(d, x, W);
  }
}

/// buffer_load_{ubyte,sbyte,ushort,sshort,dword,dwordx3,dwordx4} ... lds (and buffer_load_format_x ... lds through
/// buffer_load_format_x): the buffer address of the VGPR form; the LDS destination of lane l is
/// LDS_offset (M0, buffer_lds_m0_mask) + inst_offset + l * stride (the instruction offset is added to both addresses,
/// as in LDS_ADDR = "LDSbase + LDSoffset + INST.OFFSET + ThreadID*4" of CDNA3/CDNA4 §10.3; the aiter gfx942/gfx950
/// kernels rely on it, stepping `offset:` by the padded LDS row with one M0). M0 is read at issue. The write lands at
/// completion and is waited for with vmcnt (LLVM SIInsertWaitcnts: "LDS DMA loads ... On the VMEM side these should
/// use VM_CNT"); an LDS read of those bytes before then is a waitcnt violation (lds_dma_read_ok). A destination that
/// is not dword-aligned stops as unsupported: the ISA gives the offset in bytes but not where such a write lands.
template <Ld K>
inline void bload_lds(Wave& w, const Op& op, const Vsharp& v, const BufMode& b) {
  if constexpr (!lds_dma_form(K)) {
    w.stop_with(Stop::Kind::unsupported, op, std::string(op.mnemonic()) + ": this opcode has no load-to-LDS (lds) form");
  } else {
    const std::uint64_t base =
        (w.s[sc::m0] & buffer_lds_m0_mask(w.machine->target)) + (op.imm(Name::offset) & 0xfffu);
    if (base % 4 != 0) {
      w.stop_with(Stop::Kind::unsupported, op,
                  std::string(op.mnemonic()) + " ... lds: LDS destination " + hex64(base) +
                      " (M0 offset + instruction offset) is not dword-aligned; the ISA does not say where such a "
                      "DMA write lands");
      return;
    }
    MemOp& m = begin_memop(w, op, MemOp::Counter::vm);
    m.exec = w.exec();
    if (v.swizzle || v.add_tid) {
      if (!buffer_addresses_swizzled(w, op, v, b, ld_bytes(K), false, m)) { abandon_memop(w); return; }
      m.complete = &bload_lds_done<K, true>;
    } else {
      buffer_addresses(w, op, v, b, m);
      if (!buffer_partial_ok(w, op, m, ld_bytes(K))) { abandon_memop(w); return; }
      m.complete = &bload_lds_done<K, false>;
    }
    m.data[0][0] = static_cast<std::uint32_t>(base);  // no VGPR destination: m.dst stays empty
    issue(w);
  }
}

/// buffer_load_*: destination vdata (or LDS, for the lds forms: bload_lds).
template <Ld K>
inline void bload(Wave& w, const Op& op) {
  const Vsharp v = read_vsharp(w, op.at(Name::srsrc));
  const BufMode b = buf_mode(op);
  const bool lds = is_lds_dma(op);
  if (!buffer_supported(w, op, v, b, lds)) return;
  if (lds) { bload_lds<K>(w, op, v, b); return; }
  const Slot& d = op.at(Name::vdata);
  MemOp& m = begin_memop(w, op, MemOp::Counter::vm);
  m.exec = w.exec();
  if (v.swizzle || v.add_tid) {
    if (!buffer_addresses_swizzled(w, op, v, b, ld_bytes(K), false, m)) { abandon_memop(w); return; }
    m.complete = &bload_swz_done<K>;
  } else {
    buffer_addresses(w, op, v, b, m);
    if (!buffer_partial_ok(w, op, m, ld_bytes(K))) { abandon_memop(w); return; }
    m.complete = &bload_done<K>;
  }
  m.dst = {true, static_cast<std::uint16_t>(d.index), static_cast<std::uint16_t>(ld_dwords(K))};
  issue(w);
}

/// buffer_load_format_x: the resource's format decides the conversion ([ISA] §9.1.4 table "Buffer Instructions":
/// BUFFER_LOAD_FORMAT_* take data format, number format and dst_sel from the resource). Implemented for the
/// 32-bit data format (4) with uint/sint/float number formats (4, 5, 7), which are not converted ("Memory reads
/// of data in memory that is 32 or 64 bits do not undergo any format conversion", §9.1.3), and dst_sel_x = R (4).
inline void buffer_load_format_x(Wave& w, const Op& op) {
  const Vsharp v = read_vsharp(w, op.at(Name::srsrc));
  const bool ok = v.data_format == 4 && (v.num_format == 4 || v.num_format == 5 || v.num_format == 7) && v.dst_sel_x == 4;
  if (v.add_tid) {
    w.stop_with(Stop::Kind::unsupported, op,
                "buffer_load_format_x: an add_tid_enable resource: how a format access combines the thread id with "
                "its stride is not implemented");
    return;
  }
  if (!ok) {
    w.stop_with(Stop::Kind::unsupported, op,
                "buffer_load_format_x: resource format (data format " + std::to_string(v.data_format) + ", number format " +
                    std::to_string(v.num_format) + ", dst_sel_x " + std::to_string(v.dst_sel_x) +
                    ") is not implemented; only 32-bit uint/sint/float with dst_sel_x = X are");
    return;
  }
  bload<Ld::b32>(w, op);
}

template <St K>
inline void bstore_done(Wave& w, MemOp& m) {
  if constexpr (st_bytes(K) <= 4) {
    std::uint64_t lo = 0;
    if (std::byte* base = span_ptr(w, m, m.mask, st_bytes(K), true, lo)) {
      for_store_lanes(w, *m.op, m.mask, [&](unsigned l) { put_store<K>(m, l, base + (m.addr[l] - lo)); });
      return;
    }
  }
  bstore_lanes<K, false>(w, m);
}

/// buffer_store_*: data from vdata at issue; out-of-range lanes/components write nothing.
template <St K>
inline void bstore(Wave& w, const Op& op) {
  const Vsharp v = read_vsharp(w, op.at(Name::srsrc));
  const BufMode b = buf_mode(op);
  if (!buffer_supported(w, op, v, b)) return;
  MemOp& m = begin_memop(w, op, MemOp::Counter::vm);
  m.exec = w.exec();
  if (v.swizzle || v.add_tid) {
    if (!buffer_addresses_swizzled(w, op, v, b, st_bytes(K), true, m)) { abandon_memop(w); return; }
    m.complete = &bstore_swz_done<K>;
  } else {
    buffer_addresses(w, op, v, b, m);
    if (!buffer_partial_ok(w, op, m, st_bytes(K))) { abandon_memop(w); return; }
    m.complete = &bstore_done<K>;
  }
  capture(w, op.at(Name::vdata), m, st_dwords(K));
  issue(w);
}

template <Atom A, unsigned B>
inline void batomic_done(Wave& w, MemOp& m) {
  const AtomicGuard guard(*w.machine);  // atomic across host threads too
  std::size_t hint = Memory::npos;
  const AtomFp l2 = l2_fp(w.machine->target == Target::gfx90a);
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    std::uint64_t old = 0;  // an out-of-range atomic is dropped and returns 0
    if ((m.mask >> l) & 1) {
      std::byte* p = global_ptr(w, *m.op, l, m.addr[l], B, true, hint);
      if (!p) return;
      const std::uint64_t cmp = atom_has_cmp(A) ? data_value<B>(m, B / 4, l) : 0;
      old = rmw<A, B>(p, data_value<B>(m, 0, l), cmp, l2);
    }
    put_return(w, m, l, old);
  }
}

/// A swizzled/add_tid buffer atomic: in range only when every dword is (all or nothing, [ISA] §9.1.5 note 3); a
/// 64-bit atomic on 4-byte elements reads, applies and writes back its two dwords, which lie aux[0] bytes apart.
template <Atom A, unsigned B>
inline void batomic_swz_done(Wave& w, MemOp& m) {
  const AtomicGuard guard(*w.machine);  // atomic across host threads too
  std::size_t hint = Memory::npos;
  const AtomFp l2 = l2_fp(w.machine->target == Target::gfx90a);
  const LaneMask in = B == 8 ? (m.mask & m.aux[1]) : m.mask;
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    std::uint64_t old = 0;  // an out-of-range atomic is dropped and returns 0
    if ((in >> l) & 1) {
      const std::uint64_t cmp = atom_has_cmp(A) ? data_value<B>(m, B / 4, l) : 0;
      if (B == 4 || m.aux[0] == 4) {
        std::byte* p = swz_ptr(w, *m.op, l, m.addr[l], B, true, hint);
        if (!p) return;
        old = rmw<A, B>(p, data_value<B>(m, 0, l), cmp, l2);
      } else {
        std::byte* p0 = swz_ptr(w, *m.op, l, m.addr[l], 4, true, hint);
        std::byte* p1 = p0 ? swz_ptr(w, *m.op, l, m.addr[l] + m.aux[0], 4, true, hint) : nullptr;
        if (!p1) return;
        alignas(8) std::byte buf[8];
        std::memcpy(buf, p0, 4);
        std::memcpy(buf + 4, p1, 4);
        old = rmw<A, B>(buf, data_value<B>(m, 0, l), cmp, l2);
        std::memcpy(p0, buf, 4);
        std::memcpy(p1, buf + 4, 4);
      }
    }
    put_return(w, m, l, old);
  }
}

/// buffer_atomic_*: vdata = {src} or {src, cmp}; with glc/sc0 the pre-op value returns to vdata ([ISA] §9.1.3
/// "Atomics with Return"). Atomics are range-checked all or nothing (§9.1.5 note 3).
template <Atom A, unsigned B>
inline void batomic(Wave& w, const Op& op) {
  const Vsharp v = read_vsharp(w, op.at(Name::srsrc));
  const BufMode b = buf_mode(op);
  if (!buffer_supported(w, op, v, b)) return;
  const Slot& d = op.at(Name::vdata);
  MemOp& m = begin_memop(w, op, MemOp::Counter::vm);
  m.exec = w.exec();
  if (v.swizzle || v.add_tid) {
    if (!buffer_addresses_swizzled(w, op, v, b, B, true, m)) { abandon_memop(w); return; }
    capture(w, d, m, (atom_has_cmp(A) ? 2 : 1) * B / 4);
    if (op.imm(Name::cpol) & 1) m.dst = {true, static_cast<std::uint16_t>(d.index), static_cast<std::uint16_t>(B / 4)};
    m.complete = &batomic_swz_done<A, B>;
    issue(w);
    return;
  }
  buffer_addresses(w, op, v, b, m);
  if (!buffer_partial_ok(w, op, m, B)) { abandon_memop(w); return; }
  capture(w, d, m, (atom_has_cmp(A) ? 2 : 1) * B / 4);
  if (op.imm(Name::cpol) & 1) m.dst = {true, static_cast<std::uint16_t>(d.index), static_cast<std::uint16_t>(B / 4)};
  m.complete = &batomic_done<A, B>;
  issue(w);
}

// =============================================================================================================
// LDS (DS) — counter lgkm, in order. Address = VGPR[addr] + offset; gfx9 DS does not use M0 ([LLVM]
// GCNSubtarget::ldsRequiresM0Init is false from gfx9 on; the ISA text still describes M0 clamping).
// =============================================================================================================

[[nodiscard]] inline bool ds_supported(Wave& w, const Op& op) {
  if (!op.imm(Name::gds)) return true;
  w.stop_with(Stop::Kind::unsupported, op, std::string(op.mnemonic()) + ": GDS is not implemented");
  return false;
}

/// Per-lane byte offsets VGPR[addr] (the instruction offsets are added per access).
inline void ds_addresses(const Wave& w, const Op& op, MemOp& m) noexcept {
  const std::uint32_t* a = w.v[op.at(Name::addr).index];
  for (unsigned l = 0; l < wave_lanes; ++l) m.addr[l] = a[l];
}

template <Ld K>
inline void ds_read_done(Wave& w, MemOp& m) {
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    const std::byte* p = lds_ptr(w, *m.op, l, m.addr[l] + m.aux[0], ld_bytes(K), false);
    if (!p) return;
    put_load<K>(w, m.dst.first, l, p);
  }
}

/// ds_read_{b32,b64,b96,b128,u8,i8,u16,i16} and the d16 forms: one access at addr + offset (16-bit unsigned:
/// "LDS_Addr = LDS_BASE + VGPR[ADDR] + {InstrOffset1,InstrOffset0}", [ISA] §11.3.1). Unaligned accesses are
/// copied byte-wise (gfx90a+ run LDS in unaligned access mode).
template <Ld K>
inline void ds_read(Wave& w, const Op& op) {
  if (!ds_supported(w, op)) return;
  const Slot& d = op.at(Name::vdst);
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm);
  m.exec = w.exec();
  ds_addresses(w, op, m);
  m.aux[0] = op.imm(Name::offset) & 0xffffu;
  if (!lds_dma_read_ok(w, op, m, &m.aux[0], 1, ld_bytes(K)) || !lds_race_ok(w, op, m, MemOp::lds_read, 1, ld_bytes(K))) {
    abandon_memop(w);
    return;
  }
  m.dst = {true, static_cast<std::uint16_t>(d.index), static_cast<std::uint16_t>(ld_dwords(K))};
  m.complete = &ds_read_done<K>;
  issue(w);
}

template <St K>
inline void ds_write_done(Wave& w, MemOp& m) {
  // Every lane's address is checked first, in lane order (a fault names the lowest such lane), then the lanes write
  // in store order (for_store_lanes).
  std::byte* p[wave_lanes];
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    if (!(p[l] = lds_ptr(w, *m.op, l, m.addr[l] + m.aux[0], st_bytes(K), true))) return;
  }
  for_store_lanes(w, *m.op, m.exec, [&](unsigned l) { put_store<K>(m, l, p[l]); });
}

/// ds_write_{b8,b16,b32,b64,b96,b128} and b8/b16_d16_hi: data0 at addr + offset.
template <St K>
inline void ds_write(Wave& w, const Op& op) {
  if (!ds_supported(w, op)) return;
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm);
  m.exec = w.exec();
  ds_addresses(w, op, m);
  m.aux[0] = op.imm(Name::offset) & 0xffffu;
  if (!lds_race_ok(w, op, m, MemOp::lds_write, 1, st_bytes(K))) { abandon_memop(w); return; }
  capture(w, op.at(Name::data0), m, st_dwords(K));
  m.complete = &ds_write_done<K>;
  issue(w);
}

/// Byte offsets of the two accesses of read2/write2/wrxchg2: "InstrOffsetN * ADJ", ADJ = element size, and
/// "offset *= 64" for the ST64 forms ([ISA] §11.3.1 and table "LDS Indexed Load/Store").
template <unsigned B, bool St64>
inline void ds_offsets2(const Op& op, MemOp& m) noexcept {
  const std::uint64_t scale = B * (St64 ? 64 : 1);
  m.aux[0] = (op.imm(Name::offset0) & 0xffu) * scale;
  m.aux[1] = (op.imm(Name::offset1) & 0xffu) * scale;
}

template <unsigned B>
inline void ds_read2_done(Wave& w, MemOp& m) {
  constexpr unsigned n = B / 4;
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    for (unsigned h = 0; h < 2; ++h) {
      const std::byte* p = lds_ptr(w, *m.op, l, m.addr[l] + m.aux[h], B, false);
      if (!p) return;
      for (unsigned k = 0; k < n; ++k) std::memcpy(&w.v[m.dst.first + h * n + k][l], p + 4 * k, 4);
    }
  }
}

/// ds_read2{,st64}_{b32,b64}: two elements into vdst[0..n-1] and vdst[n..2n-1].
template <unsigned B, bool St64>
inline void ds_read2(Wave& w, const Op& op) {
  if (!ds_supported(w, op)) return;
  const Slot& d = op.at(Name::vdst);
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm);
  m.exec = w.exec();
  ds_addresses(w, op, m);
  ds_offsets2<B, St64>(op, m);
  if (!lds_dma_read_ok(w, op, m, &m.aux[0], 2, B) || !lds_race_ok(w, op, m, MemOp::lds_read, 2, B)) { abandon_memop(w); return; }
  m.dst = {true, static_cast<std::uint16_t>(d.index), static_cast<std::uint16_t>(2 * B / 4)};
  m.complete = &ds_read2_done<B>;
  issue(w);
}

template <unsigned B>
inline void ds_write2_done(Wave& w, MemOp& m) {
  constexpr unsigned n = B / 4;
  std::byte* p[2][wave_lanes];  // checked in lane order, written in store order (as ds_write_done)
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    for (unsigned h = 0; h < 2; ++h)
      if (!(p[h][l] = lds_ptr(w, *m.op, l, m.addr[l] + m.aux[h], B, true))) return;
  }
  // Within a lane data0 lands before data1 (both halves of a lane to the same bytes leave data1).
  for_store_lanes(w, *m.op, m.exec, [&](unsigned l) {
    for (unsigned h = 0; h < 2; ++h)
      for (unsigned k = 0; k < n; ++k) std::memcpy(p[h][l] + 4 * k, &m.data[h * n + k][l], 4);
  });
}

/// ds_write2{,st64}_{b32,b64}: data0 to the first address, data1 to the second.
template <unsigned B, bool St64>
inline void ds_write2(Wave& w, const Op& op) {
  if (!ds_supported(w, op)) return;
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm);
  m.exec = w.exec();
  ds_addresses(w, op, m);
  ds_offsets2<B, St64>(op, m);
  if (!lds_race_ok(w, op, m, MemOp::lds_write, 2, B)) { abandon_memop(w); return; }
  capture(w, op.at(Name::data0), m, B / 4, 0);
  capture(w, op.at(Name::data1), m, B / 4, B / 4);
  m.complete = &ds_write2_done<B>;
  issue(w);
}

template <unsigned B>
inline void ds_wrxchg2_done(Wave& w, MemOp& m) {
  constexpr unsigned n = B / 4;
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    for (unsigned h = 0; h < 2; ++h) {
      std::byte* p = lds_ptr(w, *m.op, l, m.addr[l] + m.aux[h], B, true);
      if (!p) return;
      const std::uint64_t old = rmw<Atom::swap, B>(p, data_value<B>(m, h * n, l), 0, AtomFp{});
      for (unsigned k = 0; k < n; ++k) w.v[m.dst.first + h * n + k][l] = static_cast<std::uint32_t>(old >> (32 * k));
    }
  }
}

/// ds_wrxchg2{,st64}_rtn_{b32,b64}: exchanges data0/data1 with the two elements, returning the old ones.
template <unsigned B, bool St64>
inline void ds_wrxchg2(Wave& w, const Op& op) {
  if (!ds_supported(w, op)) return;
  const Slot& d = op.at(Name::vdst);
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm);
  m.exec = w.exec();
  ds_addresses(w, op, m);
  ds_offsets2<B, St64>(op, m);
  if (!lds_race_ok(w, op, m, MemOp::lds_read | MemOp::lds_write | MemOp::lds_atomic, 2, B)) { abandon_memop(w); return; }
  capture(w, op.at(Name::data0), m, B / 4, 0);
  capture(w, op.at(Name::data1), m, B / 4, B / 4);
  m.dst = {true, static_cast<std::uint16_t>(d.index), static_cast<std::uint16_t>(2 * B / 4)};
  m.complete = &ds_wrxchg2_done<B>;
  issue(w);
}

template <Atom A, unsigned B>
inline void ds_atomic_done(Wave& w, MemOp& m) {
  const AtomFp fpe = lds_fp(w.mode);
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    std::byte* p = lds_ptr(w, *m.op, l, m.addr[l] + m.aux[0], B, true);
    if (!p) return;
    const std::uint64_t cmp = atom_has_cmp(A) ? data_value<B>(m, B / 4, l) : 0;
    const std::uint64_t old = rmw<A, B>(p, data_value<B>(m, 0, l), cmp, fpe);
    put_return(w, m, l, old);
  }
}

/// DS atomics ([ISA] §11.3.1 "LDS Atomic Ops" and the DS_* opcode descriptions): data0 is DATA, data1 is DATA2.
/// The compare-store forms take the compare value in data0 and the new value in data1 ("the order of src and cmp
/// are the opposite of the BUFFER_ATOMIC_CMPSWAP opcode", DS_CMPST_B32); they are swapped at issue into the
/// {src, cmp} layout the kernels use. The _rtn forms return the pre-op value to vdst.
template <Atom A, unsigned B, bool CmpFirst = false>
inline void ds_atomic(Wave& w, const Op& op) {
  if (!ds_supported(w, op)) return;
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm);
  m.exec = w.exec();
  ds_addresses(w, op, m);
  m.aux[0] = op.imm(Name::offset) & 0xffffu;
  if (!lds_race_ok(w, op, m, MemOp::lds_read | MemOp::lds_write | MemOp::lds_atomic, 1, B)) { abandon_memop(w); return; }
  if constexpr (atom_has_cmp(A)) {
    capture(w, op.at(CmpFirst ? Name::data1 : Name::data0), m, B / 4, 0);
    capture(w, op.at(CmpFirst ? Name::data0 : Name::data1), m, B / 4, B / 4);
  } else {
    capture(w, op.at(Name::data0), m, B / 4, 0);
  }
  if (op.has(Name::vdst)) m.dst = {true, static_cast<std::uint16_t>(op.at(Name::vdst).index), static_cast<std::uint16_t>(B / 4)};
  m.complete = &ds_atomic_done<A, B>;
  issue(w);
}

/// ds_nop: an LDS operation that does nothing.
inline void ds_nop(Wave& w, const Op& op) {
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm);
  (void)m;
  issue(w);
}

// =============================================================================================================
// gfx950: transposing LDS reads (ds_read_b64_tr_b*) and direct-to-LDS global loads (global_load_lds_dword*).
// =============================================================================================================

/// Lane mapping of the transposing reads, for B-bit elements (n = 64 / B of them in a lane's 64 bits). The 64 lanes
/// work as four independent groups of 16. Each lane reads 64 bits at its own address: n consecutive rows (M) of one
/// column (K) ("Each lane (one VGPR) holds 4 consecutive M or N values", CDNA4 ISA §11.4 "MFMA Transpose Load from LDS",
/// DS_READ_B64_TR_B16), and the group's 16 x n block is returned transposed, so result lane i of a group holds n
/// consecutive K values of column i ("The first loads K=0..3 and K=8..11", "(0..7, 16..23, ...)", "(0..15, 32..47)"
/// for B = 16, 8, 4). Which source lane holds which part of the block is not tabled in the ISA guide; it is taken
/// from the layout Triton's AMD backend compiles gfx950 kernels against (LinearLayoutConversions.cpp
/// chooseLLDsReadB64TrLayout: for 16-bit elements lane 4k + j reads rows 4j..4j+3 of column K = k, and result lane i
/// holds K = 0..3 of row i; the general rule rotates the first log2(n) register bases with the 4 lane bases, which for
/// 8-bit elements makes lane 2k + j read rows 8j..8j+7 of K = k). So element e of result lane i (group-relative) is
/// element i % n of source lane e * (16 / n) + i / n. For B = 4 the same rule gives a plain 16 x 16 nibble transpose
/// (source lane k holds rows 0..15 of K = k); no public source states that case, so its table entry is approximate.
template <unsigned B>
inline void ds_read_tr_done(Wave& w, MemOp& m) {
  constexpr unsigned n = 64 / B, per_k = 16 / n;
  constexpr std::uint64_t emask = B == 64 ? ~0ull : (std::uint64_t{1} << B) - 1;
  std::uint64_t src[wave_lanes];
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const std::byte* p = lds_ptr(w, *m.op, l, m.addr[l], 8, false);
    if (!p) return;
    std::memcpy(&src[l], p, 8);
  }
  std::uint32_t* lo = w.v[m.dst.first];
  std::uint32_t* hi = w.v[m.dst.first + 1];
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const unsigned g = l & ~15u, i = l & 15u;
    const std::uint64_t* s = src + g + i / n;
    const unsigned sh = (i % n) * B;
    std::uint64_t x = 0;
    for (unsigned e = 0; e < n; ++e) x |= ((s[e * per_k] >> sh) & emask) << (e * B);
    lo[l] = static_cast<std::uint32_t>(x);
    hi[l] = static_cast<std::uint32_t>(x >> 32);
  }
}

/// ds_read_b64_tr_b16 / _b8 / _b4 (gfx950): 64 bits a lane at ADDR + offset, returned transposed (see above). CDNA4
/// ISA §11.4: "Prior to executing, EXEC must be all 1's" and "The LDS address must be aligned to the data size";
/// a run that breaks either stops as illegal (the hardware result is undefined), naming the lane.
template <unsigned B>
inline void ds_read_tr(Wave& w, const Op& op) {
  if (!ds_supported(w, op)) return;
  if (w.exec() != ~LaneMask{0}) {
    w.stop_with(Stop::Kind::illegal, op,
                std::string(op.mnemonic()) + ": EXEC is " + hex64(w.exec()) +
                    "; the transposing LDS reads require EXEC to be all ones (CDNA4 ISA §11.4)");
    return;
  }
  const std::uint32_t* a = w.v[op.at(Name::addr).index];
  const std::uint64_t off = op.imm(Name::offset) & 0xffffu;
  for (unsigned l = 0; l < wave_lanes; ++l) {
    if (((a[l] + off) & 7u) == 0) continue;
    w.stop_with(Stop::Kind::illegal, op,
                std::string(op.mnemonic()) + ": lane " + std::to_string(l) + " LDS address " + hex64(a[l] + off) +
                    " is not 8-byte aligned, which the transposing LDS reads require (CDNA4 ISA §11.4)",
                static_cast<std::int32_t>(l), a[l] + off);
    return;
  }
  const Slot& d = op.at(Name::vdst);
  MemOp& m = begin_memop(w, op, MemOp::Counter::lgkm);
  m.exec = w.exec();
  for (unsigned l = 0; l < wave_lanes; ++l) m.addr[l] = a[l] + off;
  static constexpr std::uint64_t no_offset = 0;
  m.aux[0] = 0;  // the offset is in addr already
  if (!lds_dma_read_ok(w, op, m, &no_offset, 1, 8) || !lds_race_ok(w, op, m, MemOp::lds_read, 1, 8)) { abandon_memop(w); return; }
  m.dst = {true, static_cast<std::uint16_t>(d.index), 2};
  m.complete = &ds_read_tr_done<B>;
  issue(w);
}

template <unsigned Bytes>
inline void global_load_lds_done(Wave& w, MemOp& m) {
  std::size_t hint = Memory::npos;
  for (LaneMask e = m.exec; e; e &= e - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(e));
    const std::byte* src = global_ptr(w, *m.op, l, m.addr[l], Bytes, false, hint);
    if (!src) return;
    std::byte* dst = lds_dma_dst<Bytes>(w, *m.op, l, m.aux[0]);  // the LDS side shared with the buffer lds forms
    if (!dst) return;
    std::memcpy(dst, src, Bytes);
  }
}

/// global_load_lds_dword / _dwordx3 / _dwordx4 (gfx942: dword; gfx950: all three): each lane in EXEC reads Bytes at
/// its global address (the global_load addressing of vmem_addresses) and writes them to LDS, not to VGPRs, at
/// "LDS_ADDR = LDSbase(hw alloc) + LDSoffset(M0[17:2] * 4) + INST.OFFSET + ThreadID*4" (DWORDX1) or
/// "... + ThreadID*16" (DWORDX4) (CDNA4 ISA §10.3 "Addressing"; the lane stride is 16 for dwordx3 too: LLVM
/// AMDGPUUsage "AMDGPU DMA Operations": "offset by 4 * lane_id bytes for sizes up to 4 bytes, and by 16 * lane_id
/// bytes for larger sizes", with the instruction offset "applied to both global and LDS address"). ThreadID is the
/// lane number whether or not neighbouring lanes are in EXEC. M0 is read at issue. The LDS write lands at completion
/// and is waited for with vmcnt (LLVM SIInsertWaitcnts: "LDS DMA loads ... On the VMEM side these should use
/// VM_CNT"). The byte and short forms (whose LDS data width the ISA text does not settle) are not implemented.
template <unsigned Bytes>
inline void global_load_lds(Wave& w, const Op& op) {
  MemOp& m = begin_memop(w, op, MemOp::Counter::vm);
  m.exec = w.exec();
  vmem_addresses<Seg::global>(w, op, m);
  const std::int64_t lds = static_cast<std::int64_t>(w.s[sc::m0] & 0x3fffcu) + sext(op.imm(Name::offset), 13);
  m.aux[0] = static_cast<std::uint64_t>(lds);  // a negative address faults in lds_ptr as a huge offset
  m.complete = &global_load_lds_done<Bytes>;
  issue(w);
}

// =============================================================================================================
// The table.
// =============================================================================================================

inline constexpr Exactness mem_exact = Exactness::exact;
using MemCounter = MemOp::Counter;

inline constexpr Semantics mem_table[] = {
    // ---- SMEM ----
    {op::s_load_dword, s_load<1>, mem_exact},
    {op::s_load_dwordx2, s_load<2>, mem_exact},
    {op::s_load_dwordx4, s_load<4>, mem_exact},
    {op::s_load_dwordx8, s_load<8>, mem_exact},
    {op::s_load_dwordx16, s_load<16>, mem_exact},
    {op::s_buffer_load_dword, s_buffer_load<1>, mem_exact},
    {op::s_buffer_load_dwordx2, s_buffer_load<2>, mem_exact},
    {op::s_buffer_load_dwordx4, s_buffer_load<4>, mem_exact},
    {op::s_buffer_load_dwordx8, s_buffer_load<8>, mem_exact},
    {op::s_buffer_load_dwordx16, s_buffer_load<16>, mem_exact},
    {op::s_store_dword, s_store<1>, mem_exact},
    {op::s_store_dwordx2, s_store<2>, mem_exact},
    {op::s_store_dwordx4, s_store<4>, mem_exact},
    {op::s_atomic_swap, s_atomic<Atom::swap, 4>, mem_exact},
    {op::s_atomic_cmpswap, s_atomic<Atom::cmpswap, 4>, mem_exact},
    {op::s_atomic_add, s_atomic<Atom::add, 4>, mem_exact},
    {op::s_atomic_sub, s_atomic<Atom::sub, 4>, mem_exact},
    {op::s_atomic_smin, s_atomic<Atom::smin, 4>, mem_exact},
    {op::s_atomic_umin, s_atomic<Atom::umin, 4>, mem_exact},
    {op::s_atomic_smax, s_atomic<Atom::smax, 4>, mem_exact},
    {op::s_atomic_umax, s_atomic<Atom::umax, 4>, mem_exact},
    {op::s_atomic_and, s_atomic<Atom::and_, 4>, mem_exact},
    {op::s_atomic_or, s_atomic<Atom::or_, 4>, mem_exact},
    {op::s_atomic_xor, s_atomic<Atom::xor_, 4>, mem_exact},
    {op::s_atomic_inc, s_atomic<Atom::inc, 4>, mem_exact},
    {op::s_atomic_dec, s_atomic<Atom::dec, 4>, mem_exact},
    {op::s_atomic_swap_x2, s_atomic<Atom::swap, 8>, mem_exact},
    {op::s_atomic_cmpswap_x2, s_atomic<Atom::cmpswap, 8>, mem_exact},
    {op::s_atomic_add_x2, s_atomic<Atom::add, 8>, mem_exact},
    {op::s_atomic_sub_x2, s_atomic<Atom::sub, 8>, mem_exact},
    {op::s_atomic_smin_x2, s_atomic<Atom::smin, 8>, mem_exact},
    {op::s_atomic_umin_x2, s_atomic<Atom::umin, 8>, mem_exact},
    {op::s_atomic_smax_x2, s_atomic<Atom::smax, 8>, mem_exact},
    {op::s_atomic_umax_x2, s_atomic<Atom::umax, 8>, mem_exact},
    {op::s_atomic_and_x2, s_atomic<Atom::and_, 8>, mem_exact},
    {op::s_atomic_or_x2, s_atomic<Atom::or_, 8>, mem_exact},
    {op::s_atomic_xor_x2, s_atomic<Atom::xor_, 8>, mem_exact},
    {op::s_atomic_inc_x2, s_atomic<Atom::inc, 8>, mem_exact},
    {op::s_atomic_dec_x2, s_atomic<Atom::dec, 8>, mem_exact},
    {op::s_memtime, s_memtime<false>, Exactness::approximate,
     "a made-up shader clock: seeded per trial, wave and schedule, rising by a seeded step at each read"},
    {op::s_memrealtime, s_memtime<true>, Exactness::approximate,
     "a made-up 100 MHz clock: seeded per trial, wave and schedule, never falling between reads"},
    {op::s_dcache_inv, cache_op<MemCounter::lgkm>, mem_exact},
    {op::s_dcache_inv_vol, cache_op<MemCounter::lgkm>, mem_exact},
    {op::s_dcache_wb, cache_op<MemCounter::lgkm>, mem_exact},
    {op::s_dcache_wb_vol, cache_op<MemCounter::lgkm>, mem_exact},
    {op::s_dcache_discard, cache_op<MemCounter::lgkm>, mem_exact},
    {op::s_dcache_discard_x2, cache_op<MemCounter::lgkm>, mem_exact},

    // ---- cache maintenance (vector) ----
    {op::buffer_wbl2, cache_op<MemCounter::vm>, mem_exact},
    {op::buffer_inv, cache_op<MemCounter::vm>, mem_exact},
    {op::buffer_wbinvl1, cache_op<MemCounter::vm>, mem_exact},
    {op::buffer_wbinvl1_vol, cache_op<MemCounter::vm>, mem_exact},
    {op::buffer_invl2, cache_op<MemCounter::vm>, mem_exact},

    // ---- GLOBAL ----
    {op::global_load_ubyte, vload<Seg::global, Ld::u8>, mem_exact},
    {op::global_load_sbyte, vload<Seg::global, Ld::i8>, mem_exact},
    {op::global_load_ushort, vload<Seg::global, Ld::u16>, mem_exact},
    {op::global_load_sshort, vload<Seg::global, Ld::i16>, mem_exact},
    {op::global_load_dword, vload<Seg::global, Ld::b32>, mem_exact},
    {op::global_load_dwordx2, vload<Seg::global, Ld::b64>, mem_exact},
    {op::global_load_dwordx3, vload<Seg::global, Ld::b96>, mem_exact},
    {op::global_load_dwordx4, vload<Seg::global, Ld::b128>, mem_exact},
    {op::global_load_ubyte_d16, vload<Seg::global, Ld::u8_d16>, mem_exact},
    {op::global_load_ubyte_d16_hi, vload<Seg::global, Ld::u8_d16_hi>, mem_exact},
    {op::global_load_sbyte_d16, vload<Seg::global, Ld::i8_d16>, mem_exact},
    {op::global_load_sbyte_d16_hi, vload<Seg::global, Ld::i8_d16_hi>, mem_exact},
    {op::global_load_short_d16, vload<Seg::global, Ld::b16_d16>, mem_exact},
    {op::global_load_short_d16_hi, vload<Seg::global, Ld::b16_d16_hi>, mem_exact},
    {op::global_load_lds_dword, global_load_lds<4>, mem_exact},
    {op::global_load_lds_dwordx3, global_load_lds<12>, mem_exact},
    {op::global_load_lds_dwordx4, global_load_lds<16>, mem_exact},
    {op::global_store_byte, vstore<Seg::global, St::b8>, mem_exact},
    {op::global_store_byte_d16_hi, vstore<Seg::global, St::b8_hi>, mem_exact},
    {op::global_store_short, vstore<Seg::global, St::b16>, mem_exact},
    {op::global_store_short_d16_hi, vstore<Seg::global, St::b16_hi>, mem_exact},
    {op::global_store_dword, vstore<Seg::global, St::b32>, mem_exact},
    {op::global_store_dwordx2, vstore<Seg::global, St::b64>, mem_exact},
    {op::global_store_dwordx3, vstore<Seg::global, St::b96>, mem_exact},
    {op::global_store_dwordx4, vstore<Seg::global, St::b128>, mem_exact},
    {op::global_atomic_swap, vatomic<Seg::global, Atom::swap, 4>, mem_exact},
    {op::global_atomic_cmpswap, vatomic<Seg::global, Atom::cmpswap, 4>, mem_exact},
    {op::global_atomic_add, vatomic<Seg::global, Atom::add, 4>, mem_exact},
    {op::global_atomic_sub, vatomic<Seg::global, Atom::sub, 4>, mem_exact},
    {op::global_atomic_smin, vatomic<Seg::global, Atom::smin, 4>, mem_exact},
    {op::global_atomic_umin, vatomic<Seg::global, Atom::umin, 4>, mem_exact},
    {op::global_atomic_smax, vatomic<Seg::global, Atom::smax, 4>, mem_exact},
    {op::global_atomic_umax, vatomic<Seg::global, Atom::umax, 4>, mem_exact},
    {op::global_atomic_and, vatomic<Seg::global, Atom::and_, 4>, mem_exact},
    {op::global_atomic_or, vatomic<Seg::global, Atom::or_, 4>, mem_exact},
    {op::global_atomic_xor, vatomic<Seg::global, Atom::xor_, 4>, mem_exact},
    {op::global_atomic_inc, vatomic<Seg::global, Atom::inc, 4>, mem_exact},
    {op::global_atomic_dec, vatomic<Seg::global, Atom::dec, 4>, mem_exact},
    {op::global_atomic_swap_x2, vatomic<Seg::global, Atom::swap, 8>, mem_exact},
    {op::global_atomic_cmpswap_x2, vatomic<Seg::global, Atom::cmpswap, 8>, mem_exact},
    {op::global_atomic_add_x2, vatomic<Seg::global, Atom::add, 8>, mem_exact},
    {op::global_atomic_sub_x2, vatomic<Seg::global, Atom::sub, 8>, mem_exact},
    {op::global_atomic_smin_x2, vatomic<Seg::global, Atom::smin, 8>, mem_exact},
    {op::global_atomic_umin_x2, vatomic<Seg::global, Atom::umin, 8>, mem_exact},
    {op::global_atomic_smax_x2, vatomic<Seg::global, Atom::smax, 8>, mem_exact},
    {op::global_atomic_umax_x2, vatomic<Seg::global, Atom::umax, 8>, mem_exact},
    {op::global_atomic_and_x2, vatomic<Seg::global, Atom::and_, 8>, mem_exact},
    {op::global_atomic_or_x2, vatomic<Seg::global, Atom::or_, 8>, mem_exact},
    {op::global_atomic_xor_x2, vatomic<Seg::global, Atom::xor_, 8>, mem_exact},
    {op::global_atomic_inc_x2, vatomic<Seg::global, Atom::inc, 8>, mem_exact},
    {op::global_atomic_dec_x2, vatomic<Seg::global, Atom::dec, 8>, mem_exact},
    {op::global_atomic_add_f32, vatomic<Seg::global, Atom::add_f32, 4>, mem_exact},
    {op::global_atomic_pk_add_f16, vatomic<Seg::global, Atom::pk_add_f16, 4>, mem_exact},
    {op::global_atomic_pk_add_bf16, vatomic<Seg::global, Atom::pk_add_bf16, 4>, mem_exact},
    {op::global_atomic_add_f64, vatomic<Seg::global, Atom::add_f64, 8>, mem_exact},
    {op::global_atomic_min_f64, vatomic<Seg::global, Atom::min_f64, 8>, mem_exact},
    {op::global_atomic_max_f64, vatomic<Seg::global, Atom::max_f64, 8>, mem_exact},

    // ---- FLAT ----
    {op::flat_load_ubyte, vload<Seg::flat, Ld::u8>, mem_exact},
    {op::flat_load_sbyte, vload<Seg::flat, Ld::i8>, mem_exact},
    {op::flat_load_ushort, vload<Seg::flat, Ld::u16>, mem_exact},
    {op::flat_load_sshort, vload<Seg::flat, Ld::i16>, mem_exact},
    {op::flat_load_dword, vload<Seg::flat, Ld::b32>, mem_exact},
    {op::flat_load_dwordx2, vload<Seg::flat, Ld::b64>, mem_exact},
    {op::flat_load_dwordx3, vload<Seg::flat, Ld::b96>, mem_exact},
    {op::flat_load_dwordx4, vload<Seg::flat, Ld::b128>, mem_exact},
    {op::flat_load_ubyte_d16, vload<Seg::flat, Ld::u8_d16>, mem_exact},
    {op::flat_load_ubyte_d16_hi, vload<Seg::flat, Ld::u8_d16_hi>, mem_exact},
    {op::flat_load_sbyte_d16, vload<Seg::flat, Ld::i8_d16>, mem_exact},
    {op::flat_load_sbyte_d16_hi, vload<Seg::flat, Ld::i8_d16_hi>, mem_exact},
    {op::flat_load_short_d16, vload<Seg::flat, Ld::b16_d16>, mem_exact},
    {op::flat_load_short_d16_hi, vload<Seg::flat, Ld::b16_d16_hi>, mem_exact},
    {op::flat_store_byte, vstore<Seg::flat, St::b8>, mem_exact},
    {op::flat_store_byte_d16_hi, vstore<Seg::flat, St::b8_hi>, mem_exact},
    {op::flat_store_short, vstore<Seg::flat, St::b16>, mem_exact},
    {op::flat_store_short_d16_hi, vstore<Seg::flat, St::b16_hi>, mem_exact},
    {op::flat_store_dword, vstore<Seg::flat, St::b32>, mem_exact},
    {op::flat_store_dwordx2, vstore<Seg::flat, St::b64>, mem_exact},
    {op::flat_store_dwordx3, vstore<Seg::flat, St::b96>, mem_exact},
    {op::flat_store_dwordx4, vstore<Seg::flat, St::b128>, mem_exact},
    {op::flat_atomic_swap, vatomic<Seg::flat, Atom::swap, 4>, mem_exact},
    {op::flat_atomic_cmpswap, vatomic<Seg::flat, Atom::cmpswap, 4>, mem_exact},
    {op::flat_atomic_add, vatomic<Seg::flat, Atom::add, 4>, mem_exact},
    {op::flat_atomic_sub, vatomic<Seg::flat, Atom::sub, 4>, mem_exact},
    {op::flat_atomic_smin, vatomic<Seg::flat, Atom::smin, 4>, mem_exact},
    {op::flat_atomic_umin, vatomic<Seg::flat, Atom::umin, 4>, mem_exact},
    {op::flat_atomic_smax, vatomic<Seg::flat, Atom::smax, 4>, mem_exact},
    {op::flat_atomic_umax, vatomic<Seg::flat, Atom::umax, 4>, mem_exact},
    {op::flat_atomic_and, vatomic<Seg::flat, Atom::and_, 4>, mem_exact},
    {op::flat_atomic_or, vatomic<Seg::flat, Atom::or_, 4>, mem_exact},
    {op::flat_atomic_xor, vatomic<Seg::flat, Atom::xor_, 4>, mem_exact},
    {op::flat_atomic_inc, vatomic<Seg::flat, Atom::inc, 4>, mem_exact},
    {op::flat_atomic_dec, vatomic<Seg::flat, Atom::dec, 4>, mem_exact},
    {op::flat_atomic_swap_x2, vatomic<Seg::flat, Atom::swap, 8>, mem_exact},
    {op::flat_atomic_cmpswap_x2, vatomic<Seg::flat, Atom::cmpswap, 8>, mem_exact},
    {op::flat_atomic_add_x2, vatomic<Seg::flat, Atom::add, 8>, mem_exact},
    {op::flat_atomic_sub_x2, vatomic<Seg::flat, Atom::sub, 8>, mem_exact},
    {op::flat_atomic_smin_x2, vatomic<Seg::flat, Atom::smin, 8>, mem_exact},
    {op::flat_atomic_umin_x2, vatomic<Seg::flat, Atom::umin, 8>, mem_exact},
    {op::flat_atomic_smax_x2, vatomic<Seg::flat, Atom::smax, 8>, mem_exact},
    {op::flat_atomic_umax_x2, vatomic<Seg::flat, Atom::umax, 8>, mem_exact},
    {op::flat_atomic_and_x2, vatomic<Seg::flat, Atom::and_, 8>, mem_exact},
    {op::flat_atomic_or_x2, vatomic<Seg::flat, Atom::or_, 8>, mem_exact},
    {op::flat_atomic_xor_x2, vatomic<Seg::flat, Atom::xor_, 8>, mem_exact},
    {op::flat_atomic_inc_x2, vatomic<Seg::flat, Atom::inc, 8>, mem_exact},
    {op::flat_atomic_dec_x2, vatomic<Seg::flat, Atom::dec, 8>, mem_exact},
    {op::flat_atomic_add_f32, vatomic<Seg::flat, Atom::add_f32, 4>, mem_exact},
    {op::flat_atomic_pk_add_f16, vatomic<Seg::flat, Atom::pk_add_f16, 4>, mem_exact},
    {op::flat_atomic_pk_add_bf16, vatomic<Seg::flat, Atom::pk_add_bf16, 4>, mem_exact},
    {op::flat_atomic_add_f64, vatomic<Seg::flat, Atom::add_f64, 8>, mem_exact},
    {op::flat_atomic_min_f64, vatomic<Seg::flat, Atom::min_f64, 8>, mem_exact},
    {op::flat_atomic_max_f64, vatomic<Seg::flat, Atom::max_f64, 8>, mem_exact},

    // ---- SCRATCH (private memory; all address forms: VADDR, SADDR, SVS, ST) ----
    {op::scratch_load_ubyte, scratch_load<Ld::u8>, mem_exact},
    {op::scratch_load_sbyte, scratch_load<Ld::i8>, mem_exact},
    {op::scratch_load_ushort, scratch_load<Ld::u16>, mem_exact},
    {op::scratch_load_sshort, scratch_load<Ld::i16>, mem_exact},
    {op::scratch_load_dword, scratch_load<Ld::b32>, mem_exact},
    {op::scratch_load_dwordx2, scratch_load<Ld::b64>, mem_exact},
    {op::scratch_load_dwordx3, scratch_load<Ld::b96>, mem_exact},
    {op::scratch_load_dwordx4, scratch_load<Ld::b128>, mem_exact},
    {op::scratch_load_ubyte_d16, scratch_load<Ld::u8_d16>, mem_exact},
    {op::scratch_load_ubyte_d16_hi, scratch_load<Ld::u8_d16_hi>, mem_exact},
    {op::scratch_load_sbyte_d16, scratch_load<Ld::i8_d16>, mem_exact},
    {op::scratch_load_sbyte_d16_hi, scratch_load<Ld::i8_d16_hi>, mem_exact},
    {op::scratch_load_short_d16, scratch_load<Ld::b16_d16>, mem_exact},
    {op::scratch_load_short_d16_hi, scratch_load<Ld::b16_d16_hi>, mem_exact},
    {op::scratch_store_byte, scratch_store<St::b8>, mem_exact},
    {op::scratch_store_byte_d16_hi, scratch_store<St::b8_hi>, mem_exact},
    {op::scratch_store_short, scratch_store<St::b16>, mem_exact},
    {op::scratch_store_short_d16_hi, scratch_store<St::b16_hi>, mem_exact},
    {op::scratch_store_dword, scratch_store<St::b32>, mem_exact},
    {op::scratch_store_dwordx2, scratch_store<St::b64>, mem_exact},
    {op::scratch_store_dwordx3, scratch_store<St::b96>, mem_exact},
    {op::scratch_store_dwordx4, scratch_store<St::b128>, mem_exact},

    // ---- MUBUF ----
    {op::buffer_load_ubyte, bload<Ld::u8>, mem_exact},
    {op::buffer_load_sbyte, bload<Ld::i8>, mem_exact},
    {op::buffer_load_ushort, bload<Ld::u16>, mem_exact},
    {op::buffer_load_sshort, bload<Ld::i16>, mem_exact},
    {op::buffer_load_dword, bload<Ld::b32>, mem_exact},
    {op::buffer_load_dwordx2, bload<Ld::b64>, mem_exact},
    {op::buffer_load_dwordx3, bload<Ld::b96>, mem_exact},
    {op::buffer_load_dwordx4, bload<Ld::b128>, mem_exact},
    {op::buffer_load_ubyte_d16, bload<Ld::u8_d16>, mem_exact},
    {op::buffer_load_ubyte_d16_hi, bload<Ld::u8_d16_hi>, mem_exact},
    {op::buffer_load_sbyte_d16, bload<Ld::i8_d16>, mem_exact},
    {op::buffer_load_sbyte_d16_hi, bload<Ld::i8_d16_hi>, mem_exact},
    {op::buffer_load_short_d16, bload<Ld::b16_d16>, mem_exact},
    {op::buffer_load_short_d16_hi, bload<Ld::b16_d16_hi>, mem_exact},
    {op::buffer_load_format_x, buffer_load_format_x, mem_exact},
    {op::buffer_store_byte, bstore<St::b8>, mem_exact},
    {op::buffer_store_byte_d16_hi, bstore<St::b8_hi>, mem_exact},
    {op::buffer_store_short, bstore<St::b16>, mem_exact},
    {op::buffer_store_short_d16_hi, bstore<St::b16_hi>, mem_exact},
    {op::buffer_store_dword, bstore<St::b32>, mem_exact},
    {op::buffer_store_dwordx2, bstore<St::b64>, mem_exact},
    {op::buffer_store_dwordx3, bstore<St::b96>, mem_exact},
    {op::buffer_store_dwordx4, bstore<St::b128>, mem_exact},
    {op::buffer_atomic_swap, batomic<Atom::swap, 4>, mem_exact},
    {op::buffer_atomic_cmpswap, batomic<Atom::cmpswap, 4>, mem_exact},
    {op::buffer_atomic_add, batomic<Atom::add, 4>, mem_exact},
    {op::buffer_atomic_sub, batomic<Atom::sub, 4>, mem_exact},
    {op::buffer_atomic_smin, batomic<Atom::smin, 4>, mem_exact},
    {op::buffer_atomic_umin, batomic<Atom::umin, 4>, mem_exact},
    {op::buffer_atomic_smax, batomic<Atom::smax, 4>, mem_exact},
    {op::buffer_atomic_umax, batomic<Atom::umax, 4>, mem_exact},
    {op::buffer_atomic_and, batomic<Atom::and_, 4>, mem_exact},
    {op::buffer_atomic_or, batomic<Atom::or_, 4>, mem_exact},
    {op::buffer_atomic_xor, batomic<Atom::xor_, 4>, mem_exact},
    {op::buffer_atomic_inc, batomic<Atom::inc, 4>, mem_exact},
    {op::buffer_atomic_dec, batomic<Atom::dec, 4>, mem_exact},
    {op::buffer_atomic_swap_x2, batomic<Atom::swap, 8>, mem_exact},
    {op::buffer_atomic_cmpswap_x2, batomic<Atom::cmpswap, 8>, mem_exact},
    {op::buffer_atomic_add_x2, batomic<Atom::add, 8>, mem_exact},
    {op::buffer_atomic_sub_x2, batomic<Atom::sub, 8>, mem_exact},
    {op::buffer_atomic_smin_x2, batomic<Atom::smin, 8>, mem_exact},
    {op::buffer_atomic_umin_x2, batomic<Atom::umin, 8>, mem_exact},
    {op::buffer_atomic_smax_x2, batomic<Atom::smax, 8>, mem_exact},
    {op::buffer_atomic_umax_x2, batomic<Atom::umax, 8>, mem_exact},
    {op::buffer_atomic_and_x2, batomic<Atom::and_, 8>, mem_exact},
    {op::buffer_atomic_or_x2, batomic<Atom::or_, 8>, mem_exact},
    {op::buffer_atomic_xor_x2, batomic<Atom::xor_, 8>, mem_exact},
    {op::buffer_atomic_inc_x2, batomic<Atom::inc, 8>, mem_exact},
    {op::buffer_atomic_dec_x2, batomic<Atom::dec, 8>, mem_exact},
    {op::buffer_atomic_add_f32, batomic<Atom::add_f32, 4>, mem_exact},
    {op::buffer_atomic_pk_add_f16, batomic<Atom::pk_add_f16, 4>, mem_exact},
    {op::buffer_atomic_pk_add_bf16, batomic<Atom::pk_add_bf16, 4>, mem_exact},
    {op::buffer_atomic_add_f64, batomic<Atom::add_f64, 8>, mem_exact},
    {op::buffer_atomic_min_f64, batomic<Atom::min_f64, 8>, mem_exact},
    {op::buffer_atomic_max_f64, batomic<Atom::max_f64, 8>, mem_exact},

    // ---- DS ----
    {op::ds_nop, ds_nop, mem_exact},
    {op::ds_read_u8, ds_read<Ld::u8>, mem_exact},
    {op::ds_read_i8, ds_read<Ld::i8>, mem_exact},
    {op::ds_read_u16, ds_read<Ld::u16>, mem_exact},
    {op::ds_read_i16, ds_read<Ld::i16>, mem_exact},
    {op::ds_read_b32, ds_read<Ld::b32>, mem_exact},
    {op::ds_read_b64, ds_read<Ld::b64>, mem_exact},
    {op::ds_read_b96, ds_read<Ld::b96>, mem_exact},
    {op::ds_read_b128, ds_read<Ld::b128>, mem_exact},
    {op::ds_read_u8_d16, ds_read<Ld::u8_d16>, mem_exact},
    {op::ds_read_u8_d16_hi, ds_read<Ld::u8_d16_hi>, mem_exact},
    {op::ds_read_i8_d16, ds_read<Ld::i8_d16>, mem_exact},
    {op::ds_read_i8_d16_hi, ds_read<Ld::i8_d16_hi>, mem_exact},
    {op::ds_read_u16_d16, ds_read<Ld::b16_d16>, mem_exact},
    {op::ds_read_u16_d16_hi, ds_read<Ld::b16_d16_hi>, mem_exact},
    {op::ds_read_b64_tr_b16, ds_read_tr<16>, mem_exact},
    {op::ds_read_b64_tr_b8, ds_read_tr<8>, mem_exact},
    {op::ds_read_b64_tr_b4, ds_read_tr<4>, Exactness::approximate,
     "lane order of the 4-bit transpose inferred from the 16- and 8-bit forms (source lane k holds column K = k); no public table states it"},
    {op::ds_write_b8, ds_write<St::b8>, mem_exact},
    {op::ds_write_b8_d16_hi, ds_write<St::b8_hi>, mem_exact},
    {op::ds_write_b16, ds_write<St::b16>, mem_exact},
    {op::ds_write_b16_d16_hi, ds_write<St::b16_hi>, mem_exact},
    {op::ds_write_b32, ds_write<St::b32>, mem_exact},
    {op::ds_write_b64, ds_write<St::b64>, mem_exact},
    {op::ds_write_b96, ds_write<St::b96>, mem_exact},
    {op::ds_write_b128, ds_write<St::b128>, mem_exact},
    {op::ds_read2_b32, ds_read2<4, false>, mem_exact},
    {op::ds_read2_b64, ds_read2<8, false>, mem_exact},
    {op::ds_read2st64_b32, ds_read2<4, true>, mem_exact},
    {op::ds_read2st64_b64, ds_read2<8, true>, mem_exact},
    {op::ds_write2_b32, ds_write2<4, false>, mem_exact},
    {op::ds_write2_b64, ds_write2<8, false>, mem_exact},
    {op::ds_write2st64_b32, ds_write2<4, true>, mem_exact},
    {op::ds_write2st64_b64, ds_write2<8, true>, mem_exact},
    {op::ds_wrxchg2_rtn_b32, ds_wrxchg2<4, false>, mem_exact},
    {op::ds_wrxchg2_rtn_b64, ds_wrxchg2<8, false>, mem_exact},
    {op::ds_wrxchg2st64_rtn_b32, ds_wrxchg2<4, true>, mem_exact},
    {op::ds_wrxchg2st64_rtn_b64, ds_wrxchg2<8, true>, mem_exact},
    {op::ds_add_u32, ds_atomic<Atom::add, 4>, mem_exact},
    {op::ds_sub_u32, ds_atomic<Atom::sub, 4>, mem_exact},
    {op::ds_rsub_u32, ds_atomic<Atom::rsub, 4>, mem_exact},
    {op::ds_inc_u32, ds_atomic<Atom::inc, 4>, mem_exact},
    {op::ds_dec_u32, ds_atomic<Atom::dec, 4>, mem_exact},
    {op::ds_min_i32, ds_atomic<Atom::smin, 4>, mem_exact},
    {op::ds_max_i32, ds_atomic<Atom::smax, 4>, mem_exact},
    {op::ds_min_u32, ds_atomic<Atom::umin, 4>, mem_exact},
    {op::ds_max_u32, ds_atomic<Atom::umax, 4>, mem_exact},
    {op::ds_and_b32, ds_atomic<Atom::and_, 4>, mem_exact},
    {op::ds_or_b32, ds_atomic<Atom::or_, 4>, mem_exact},
    {op::ds_xor_b32, ds_atomic<Atom::xor_, 4>, mem_exact},
    {op::ds_mskor_b32, ds_atomic<Atom::mskor, 4>, mem_exact},
    {op::ds_cmpst_b32, ds_atomic<Atom::cmpswap, 4, true>, mem_exact},
    {op::ds_cmpst_f32, ds_atomic<Atom::cmpst_f32, 4, true>, mem_exact},
    {op::ds_min_f32, ds_atomic<Atom::min_f32, 4>, mem_exact},
    {op::ds_max_f32, ds_atomic<Atom::max_f32, 4>, mem_exact},
    {op::ds_add_f32, ds_atomic<Atom::add_f32, 4>, mem_exact},
    {op::ds_pk_add_f16, ds_atomic<Atom::pk_add_f16, 4>, mem_exact},
    {op::ds_pk_add_bf16, ds_atomic<Atom::pk_add_bf16, 4>, mem_exact},
    {op::ds_add_rtn_u32, ds_atomic<Atom::add, 4>, mem_exact},
    {op::ds_sub_rtn_u32, ds_atomic<Atom::sub, 4>, mem_exact},
    {op::ds_rsub_rtn_u32, ds_atomic<Atom::rsub, 4>, mem_exact},
    {op::ds_inc_rtn_u32, ds_atomic<Atom::inc, 4>, mem_exact},
    {op::ds_dec_rtn_u32, ds_atomic<Atom::dec, 4>, mem_exact},
    {op::ds_min_rtn_i32, ds_atomic<Atom::smin, 4>, mem_exact},
    {op::ds_max_rtn_i32, ds_atomic<Atom::smax, 4>, mem_exact},
    {op::ds_min_rtn_u32, ds_atomic<Atom::umin, 4>, mem_exact},
    {op::ds_max_rtn_u32, ds_atomic<Atom::umax, 4>, mem_exact},
    {op::ds_and_rtn_b32, ds_atomic<Atom::and_, 4>, mem_exact},
    {op::ds_or_rtn_b32, ds_atomic<Atom::or_, 4>, mem_exact},
    {op::ds_xor_rtn_b32, ds_atomic<Atom::xor_, 4>, mem_exact},
    {op::ds_mskor_rtn_b32, ds_atomic<Atom::mskor, 4>, mem_exact},
    {op::ds_wrxchg_rtn_b32, ds_atomic<Atom::swap, 4>, mem_exact},
    {op::ds_cmpst_rtn_b32, ds_atomic<Atom::cmpswap, 4, true>, mem_exact},
    {op::ds_cmpst_rtn_f32, ds_atomic<Atom::cmpst_f32, 4, true>, mem_exact},
    {op::ds_min_rtn_f32, ds_atomic<Atom::min_f32, 4>, mem_exact},
    {op::ds_max_rtn_f32, ds_atomic<Atom::max_f32, 4>, mem_exact},
    {op::ds_wrap_rtn_b32, ds_atomic<Atom::wrap, 4>, mem_exact},
    {op::ds_add_rtn_f32, ds_atomic<Atom::add_f32, 4>, mem_exact},
    {op::ds_pk_add_rtn_f16, ds_atomic<Atom::pk_add_f16, 4>, mem_exact},
    {op::ds_pk_add_rtn_bf16, ds_atomic<Atom::pk_add_bf16, 4>, mem_exact},
    {op::ds_add_u64, ds_atomic<Atom::add, 8>, mem_exact},
    {op::ds_sub_u64, ds_atomic<Atom::sub, 8>, mem_exact},
    {op::ds_rsub_u64, ds_atomic<Atom::rsub, 8>, mem_exact},
    {op::ds_inc_u64, ds_atomic<Atom::inc, 8>, mem_exact},
    {op::ds_dec_u64, ds_atomic<Atom::dec, 8>, mem_exact},
    {op::ds_min_i64, ds_atomic<Atom::smin, 8>, mem_exact},
    {op::ds_max_i64, ds_atomic<Atom::smax, 8>, mem_exact},
    {op::ds_min_u64, ds_atomic<Atom::umin, 8>, mem_exact},
    {op::ds_max_u64, ds_atomic<Atom::umax, 8>, mem_exact},
    {op::ds_and_b64, ds_atomic<Atom::and_, 8>, mem_exact},
    {op::ds_or_b64, ds_atomic<Atom::or_, 8>, mem_exact},
    {op::ds_xor_b64, ds_atomic<Atom::xor_, 8>, mem_exact},
    {op::ds_mskor_b64, ds_atomic<Atom::mskor, 8>, mem_exact},
    {op::ds_cmpst_b64, ds_atomic<Atom::cmpswap, 8, true>, mem_exact},
    {op::ds_cmpst_f64, ds_atomic<Atom::cmpst_f64, 8, true>, mem_exact},
    {op::ds_min_f64, ds_atomic<Atom::min_f64, 8>, mem_exact},
    {op::ds_max_f64, ds_atomic<Atom::max_f64, 8>, mem_exact},
    {op::ds_add_f64, ds_atomic<Atom::add_f64, 8>, mem_exact},
    {op::ds_add_rtn_u64, ds_atomic<Atom::add, 8>, mem_exact},
    {op::ds_sub_rtn_u64, ds_atomic<Atom::sub, 8>, mem_exact},
    {op::ds_rsub_rtn_u64, ds_atomic<Atom::rsub, 8>, mem_exact},
    {op::ds_inc_rtn_u64, ds_atomic<Atom::inc, 8>, mem_exact},
    {op::ds_dec_rtn_u64, ds_atomic<Atom::dec, 8>, mem_exact},
    {op::ds_min_rtn_i64, ds_atomic<Atom::smin, 8>, mem_exact},
    {op::ds_max_rtn_i64, ds_atomic<Atom::smax, 8>, mem_exact},
    {op::ds_min_rtn_u64, ds_atomic<Atom::umin, 8>, mem_exact},
    {op::ds_max_rtn_u64, ds_atomic<Atom::umax, 8>, mem_exact},
    {op::ds_and_rtn_b64, ds_atomic<Atom::and_, 8>, mem_exact},
    {op::ds_or_rtn_b64, ds_atomic<Atom::or_, 8>, mem_exact},
    {op::ds_xor_rtn_b64, ds_atomic<Atom::xor_, 8>, mem_exact},
    {op::ds_mskor_rtn_b64, ds_atomic<Atom::mskor, 8>, mem_exact},
    {op::ds_wrxchg_rtn_b64, ds_atomic<Atom::swap, 8>, mem_exact},
    {op::ds_cmpst_rtn_b64, ds_atomic<Atom::cmpswap, 8, true>, mem_exact},
    {op::ds_cmpst_rtn_f64, ds_atomic<Atom::cmpst_f64, 8, true>, mem_exact},
    {op::ds_min_rtn_f64, ds_atomic<Atom::min_f64, 8>, mem_exact},
    {op::ds_max_rtn_f64, ds_atomic<Atom::max_f64, 8>, mem_exact},
    {op::ds_add_rtn_f64, ds_atomic<Atom::add_f64, 8>, mem_exact},
};

}  // namespace detail

/// The memory instructions' semantics (see the table above for the list; scratch_load_lds_*, s_scratch_*, s_buffer_atomic_*,
/// tbuffer_*, the other buffer format ops, the byte/short global_load_lds_* forms,
/// ds_read_addtid/ds_write_addtid, ds_read_b96_tr_b6, ds_condxchg32, GWS and ds_append/consume are not implemented
/// and stop the run as unsupported).
[[nodiscard]] inline std::span<const Semantics> mem_semantics() { return detail::mem_table; }

}  // namespace asmevo::emu
