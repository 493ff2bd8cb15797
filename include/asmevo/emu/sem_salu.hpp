// Emulator semantics of the scalar ALU and program control (SOP1/SOP2/SOPK/SOPC/SOPP) of gfx90a/gfx942/gfx950.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "asmevo/emu/machine.hpp"
#include "asmevo/ir/waitcnt.hpp"

// Sources. Opcode descriptions: "AMD Instinct MI300 ISA" (CDNA3) reference guide, chapter "Scalar ALU Operations"
// and the SOP2/SOPK/SOP1/SOPC/SOPP opcode tables ("MI300 ISA <OPCODE>" below); the wording is the same in the MI200
// (CDNA2) guide for gfx90a. Which opcodes write SCC follows LLVM's TableGen records (Defs = [SCC] in
// SOPInstructions.td), which agree with the ISA descriptions.

namespace asmevo::emu {

namespace detail::salu {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

template <typename T>
struct Res {
  T d;
  bool scc;
};

template <typename T>
[[nodiscard]] inline T read(const Wave& w, const Slot& s) noexcept {
  if constexpr (sizeof(T) == 8) return w.scalar64(s);
  else return w.scalar32(s);
}

// ---- generic shapes --------------------------------------------------------------------------------------------

/// SOP2: sdst = F(src0, src1, scc); SCC written when `SetScc`.
template <typename A, typename B, typename D, Res<D> (*F)(A, B, bool), bool SetScc>
inline void sop2(Wave& w, const Op& op) {
  const A a = read<A>(w, op.at(Name::src0));
  const B b = read<B>(w, op.at(Name::src1));
  const Res<D> r = F(a, b, w.scc);
  w.write_scalar(op.at(Name::sdst), r.d);
  if constexpr (SetScc) w.scc = r.scc;
}

/// SOP1: sdst = F(src0, scc).
template <typename A, typename D, Res<D> (*F)(A, bool), bool SetScc>
inline void sop1(Wave& w, const Op& op) {
  const A a = read<A>(w, op.at(Name::src0));
  const Res<D> r = F(a, w.scc);
  w.write_scalar(op.at(Name::sdst), r.d);
  if constexpr (SetScc) w.scc = r.scc;
}

/// SOPC: SCC = F(src0, src1).
template <typename A, typename B, bool (*F)(A, B)>
inline void sopc(Wave& w, const Op& op) {
  w.scc = F(read<A>(w, op.at(Name::src0)), read<B>(w, op.at(Name::src1)));
}

/// SOPK compare: SCC = F(sdst, simm16) with simm16 sign-extended (i32 forms) or zero-extended (u32 forms)
/// (MI300 ISA S_CMPK_*: "SCC = (S0.i == signext(SIMM16))", "SCC = (S0.u == SIMM16)").
template <bool Signed, bool (*F)(u32, u32)>
inline void sopk_cmp(Wave& w, const Op& op) {
  const u32 k16 = static_cast<u32>(op.imm(Name::simm16)) & 0xffffu;
  const u32 k = Signed ? static_cast<u32>(static_cast<i32>(static_cast<std::int16_t>(k16))) : k16;
  w.scc = F(w.scalar32(op.at(Name::sdst)), k);
}

[[nodiscard]] inline u32 simm16_sext(const Op& op) noexcept {
  return static_cast<u32>(static_cast<i32>(static_cast<std::int16_t>(static_cast<std::uint16_t>(op.imm(Name::simm16)))));
}

// ---- arithmetic (MI300 ISA S_ADD_U32 ... S_SUBB_U32) --------------------------------------------------------------

// S_ADD_U32: SCC = unsigned carry-out. S_SUB_U32: SCC = borrow (S1 > S0).
inline Res<u32> add_u32(u32 a, u32 b, bool) { const u64 s = u64{a} + b; return {static_cast<u32>(s), (s >> 32) != 0}; }
inline Res<u32> sub_u32(u32 a, u32 b, bool) { return {a - b, b > a}; }
// S_ADDC_U32: D = S0 + S1 + SCC, SCC = carry-out. S_SUBB_U32: D = S0 - S1 - SCC, SCC = (S1 + SCC > S0).
inline Res<u32> addc_u32(u32 a, u32 b, bool c) { const u64 s = u64{a} + b + c; return {static_cast<u32>(s), (s >> 32) != 0}; }
inline Res<u32> subb_u32(u32 a, u32 b, bool c) { return {a - b - c, u64{b} + c > a}; }
// S_ADD_I32: SCC = signed overflow (S0[31] == S1[31] && S0[31] != D[31]).
inline Res<u32> add_i32(u32 a, u32 b, bool) { const u32 d = a + b; return {d, ((a ^ b) >> 31) == 0 && ((a ^ d) >> 31) != 0}; }
// S_SUB_I32: SCC = signed overflow (S0[31] != S1[31] && S0[31] != D[31]).
inline Res<u32> sub_i32(u32 a, u32 b, bool) { const u32 d = a - b; return {d, ((a ^ b) >> 31) != 0 && ((a ^ d) >> 31) != 0}; }
// S_MIN/S_MAX: SCC = 1 iff S0 is chosen (strict comparison: "D = (S0 < S1) ? S0 : S1").
inline Res<u32> min_i32(u32 a, u32 b, bool) { const bool c = static_cast<i32>(a) < static_cast<i32>(b); return {c ? a : b, c}; }
inline Res<u32> min_u32(u32 a, u32 b, bool) { const bool c = a < b; return {c ? a : b, c}; }
inline Res<u32> max_i32(u32 a, u32 b, bool) { const bool c = static_cast<i32>(a) > static_cast<i32>(b); return {c ? a : b, c}; }
inline Res<u32> max_u32(u32 a, u32 b, bool) { const bool c = a > b; return {c ? a : b, c}; }
// S_MUL_I32: low 32 bits of the product; S_MUL_HI_U32/I32: high 32 bits of the 64-bit product. No SCC.
inline Res<u32> mul_i32(u32 a, u32 b, bool) { return {a * b, false}; }
inline Res<u32> mul_hi_u32(u32 a, u32 b, bool) { return {static_cast<u32>((u64{a} * b) >> 32), false}; }
inline Res<u32> mul_hi_i32(u32 a, u32 b, bool) {
  return {static_cast<u32>(static_cast<u64>(i64{static_cast<i32>(a)} * static_cast<i32>(b)) >> 32), false};
}
// S_ABSDIFF_I32: D = S0 - S1 (32-bit), negated when negative; SCC = D != 0. abs(0x80000000) stays 0x80000000.
inline Res<u32> absdiff_i32(u32 a, u32 b, bool) { const u32 d = a - b; const u32 r = static_cast<i32>(d) < 0 ? 0u - d : d; return {r, r != 0}; }
// S_LSHL{1..4}_ADD_U32: D = (S0 << N) + S1, SCC = unsigned overflow of the sum, computed (as the ISA writes it,
// ">= 0x100000000ULL") on the 64-bit value, so bits shifted out of S0 count as overflow too.
template <unsigned N>
inline Res<u32> lshl_add_u32(u32 a, u32 b, bool) { const u64 s = (u64{a} << N) + b; return {static_cast<u32>(s), s >= (u64{1} << 32)}; }

// ---- bitwise (SCC = result != 0) ----------------------------------------------------------------------------------

template <typename T> inline Res<T> and_(T a, T b, bool) { const T d = a & b; return {d, d != 0}; }
template <typename T> inline Res<T> or_(T a, T b, bool) { const T d = a | b; return {d, d != 0}; }
template <typename T> inline Res<T> xor_(T a, T b, bool) { const T d = a ^ b; return {d, d != 0}; }
template <typename T> inline Res<T> andn2(T a, T b, bool) { const T d = a & ~b; return {d, d != 0}; }
template <typename T> inline Res<T> orn2(T a, T b, bool) { const T d = a | ~b; return {d, d != 0}; }
template <typename T> inline Res<T> nand(T a, T b, bool) { const T d = ~(a & b); return {d, d != 0}; }
template <typename T> inline Res<T> nor(T a, T b, bool) { const T d = ~(a | b); return {d, d != 0}; }
template <typename T> inline Res<T> xnor(T a, T b, bool) { const T d = ~(a ^ b); return {d, d != 0}; }

// Shifts: amount S1[4:0] (32-bit) or S1[5:0] (64-bit); SCC = result != 0 (MI300 ISA S_LSHL_B32 ... S_ASHR_I64).
template <typename T> inline Res<T> lshl(T a, u32 b, bool) { const T d = a << (b & (sizeof(T) * 8 - 1)); return {d, d != 0}; }
template <typename T> inline Res<T> lshr(T a, u32 b, bool) { const T d = a >> (b & (sizeof(T) * 8 - 1)); return {d, d != 0}; }
template <typename T> inline Res<T> ashr(T a, u32 b, bool) {
  using S = std::make_signed_t<T>;
  const T d = static_cast<T>(static_cast<S>(a) >> (b & (sizeof(T) * 8 - 1)));
  return {d, d != 0};
}

// S_BFM_B32/B64: D = ((1 << S0[4:0|5:0]) - 1) << S1[4:0|5:0] (both sources are 32-bit). No SCC.
template <typename T> inline Res<T> bfm(u32 a, u32 b, bool) {
  constexpr unsigned m = sizeof(T) * 8 - 1;
  return {static_cast<T>(((T{1} << (a & m)) - 1) << (b & m)), false};
}

// S_BFE_U32/I32/U64/I64: offset S1[4:0] (S1[5:0] for 64-bit), width S1[22:16]; D = (S0 >> offset) & ((1 << width)
// - 1), sign-extended from `width` bits for the _I forms; SCC = D != 0. A width of at least the operand size keeps
// every bit shifted down (the mask is all ones); width 0 gives 0.
template <typename T, bool Signed>
inline Res<T> bfe(T a, u32 b, bool) {
  constexpr unsigned bits = sizeof(T) * 8;
  using S = std::make_signed_t<T>;
  const unsigned off = b & (bits - 1);
  const unsigned width = (b >> 16) & 0x7f;
  T d;
  if (width == 0) d = 0;
  else if constexpr (Signed) {
    const T x = static_cast<T>(static_cast<S>(a) >> off);
    if (width >= bits) d = x;
    else {
      const unsigned sh = bits - width;
      d = static_cast<T>(static_cast<S>(static_cast<T>(x << sh)) >> sh);
    }
  } else {
    const T x = a >> off;
    d = width >= bits ? x : static_cast<T>(x & ((T{1} << width) - 1));
  }
  return {d, d != 0};
}

// S_CSELECT_B32/B64: D = SCC ? S0 : S1.
template <typename T> inline Res<T> cselect(T a, T b, bool c) { return {c ? a : b, false}; }
// S_PACK_LL/LH/HH_B32_B16: D = {S1.lo|hi, S0.lo|hi}.
inline Res<u32> pack_ll(u32 a, u32 b, bool) { return {(b << 16) | (a & 0xffffu), false}; }
inline Res<u32> pack_lh(u32 a, u32 b, bool) { return {(b & 0xffff0000u) | (a & 0xffffu), false}; }
inline Res<u32> pack_hh(u32 a, u32 b, bool) { return {(b & 0xffff0000u) | (a >> 16), false}; }

// ---- SOP1 -------------------------------------------------------------------------------------------------------

template <typename T> inline Res<T> mov(T a, bool) { return {a, false}; }
template <typename T> inline Res<T> not_(T a, bool) { const T d = ~a; return {d, d != 0}; }
// S_BREV: bit reverse. No SCC.
template <typename T> inline Res<T> brev(T a, bool) {
  T r = 0;
  for (unsigned i = 0; i < sizeof(T) * 8; ++i) r |= static_cast<T>((a >> i) & 1) << (sizeof(T) * 8 - 1 - i);
  return {r, false};
}
// S_BCNT0/1_I32: count of zero/one bits; SCC = D != 0.
template <typename T> inline Res<u32> bcnt0(T a, bool) { const u32 d = static_cast<u32>(std::popcount(static_cast<T>(~a))); return {d, d != 0}; }
template <typename T> inline Res<u32> bcnt1(T a, bool) { const u32 d = static_cast<u32>(std::popcount(a)); return {d, d != 0}; }
// S_FF0/FF1_I32: position of the first 0/1 bit from the LSB, -1 when there is none. No SCC.
template <typename T> inline Res<u32> ff0(T a, bool) { return {static_cast<T>(~a) == 0 ? ~0u : static_cast<u32>(std::countr_one(a)), false}; }
template <typename T> inline Res<u32> ff1(T a, bool) { return {a == 0 ? ~0u : static_cast<u32>(std::countr_zero(a)), false}; }
// S_FLBIT_I32_B32/B64: zeros before the first one counting from the MSB, -1 when S0 == 0.
template <typename T> inline Res<u32> flbit(T a, bool) { return {a == 0 ? ~0u : static_cast<u32>(std::countl_zero(a)), false}; }
// S_FLBIT_I32 / S_FLBIT_I32_I64: bits from the MSB equal to the sign bit before the first opposite bit; -1 when
// every bit is the same (0 or -1).
template <typename T> inline Res<u32> flbit_signed(T a, bool) {
  if (a == 0 || a == static_cast<T>(~T{0})) return {~0u, false};
  const T x = (a >> (sizeof(T) * 8 - 1)) ? static_cast<T>(~a) : a;
  return {static_cast<u32>(std::countl_zero(x)), false};
}
// S_SEXT_I32_I8/I16.
inline Res<u32> sext_i8(u32 a, bool) { return {static_cast<u32>(static_cast<i32>(static_cast<std::int8_t>(a))), false}; }
inline Res<u32> sext_i16(u32 a, bool) { return {static_cast<u32>(static_cast<i32>(static_cast<std::int16_t>(a))), false}; }
// S_ABS_I32: D = |S0| (abs(0x80000000) = 0x80000000); SCC = D != 0.
inline Res<u32> abs_i32(u32 a, bool) { const u32 d = static_cast<i32>(a) < 0 ? 0u - a : a; return {d, d != 0}; }
// S_WQM: D[i] = (S0[(i & ~3) .. (i | 3)] != 0); SCC = D != 0.
template <typename T> inline Res<T> wqm(T a, bool) {
  T d = 0;
  for (unsigned q = 0; q < sizeof(T) * 8; q += 4)
    if ((a >> q) & 0xf) d |= static_cast<T>(T{0xf} << q);
  return {d, d != 0};
}
// S_QUADMASK: D[i] = OR(S0[4i+3 : 4i]); SCC = D != 0.
template <typename T> inline Res<T> quadmask(T a, bool) {
  T d = 0;
  for (unsigned q = 0; q < sizeof(T) * 8 / 4; ++q)
    if ((a >> (4 * q)) & 0xf) d |= T{1} << q;
  return {d, d != 0};
}
// S_BITREPLICATE_B64_B32: D[2i] = D[2i+1] = S0[i] (LLVM SOPInstructions.td; gfx9 SOP1 opcode 0x2d).
inline Res<u64> bitreplicate(u32 a, bool) {
  u64 d = 0;
  for (unsigned i = 0; i < 32; ++i)
    if ((a >> i) & 1) d |= u64{3} << (2 * i);
  return {d, false};
}

// ---- SOPC -------------------------------------------------------------------------------------------------------

inline bool eq_u32(u32 a, u32 b) { return a == b; }
inline bool lg_u32(u32 a, u32 b) { return a != b; }
inline bool gt_u32(u32 a, u32 b) { return a > b; }
inline bool ge_u32(u32 a, u32 b) { return a >= b; }
inline bool lt_u32(u32 a, u32 b) { return a < b; }
inline bool le_u32(u32 a, u32 b) { return a <= b; }
inline bool gt_i32(u32 a, u32 b) { return static_cast<i32>(a) > static_cast<i32>(b); }
inline bool ge_i32(u32 a, u32 b) { return static_cast<i32>(a) >= static_cast<i32>(b); }
inline bool lt_i32(u32 a, u32 b) { return static_cast<i32>(a) < static_cast<i32>(b); }
inline bool le_i32(u32 a, u32 b) { return static_cast<i32>(a) <= static_cast<i32>(b); }
inline bool eq_u64(u64 a, u64 b) { return a == b; }
inline bool lg_u64(u64 a, u64 b) { return a != b; }
// S_BITCMP0/1: SCC = (S0[S1[4:0]] == 0|1) (S1[5:0] for the 64-bit forms).
template <typename T, bool One> inline bool bitcmp(T a, u32 b) { return ((a >> (b & (sizeof(T) * 8 - 1))) & 1) == (One ? 1 : 0); }

// ---- individual handlers --------------------------------------------------------------------------------------

// S_CMOV_B32/B64: if SCC, D = S0.
template <typename T>
inline void s_cmov(Wave& w, const Op& op) {
  if (w.scc) w.write_scalar(op.at(Name::sdst), read<T>(w, op.at(Name::src0)));
}
// S_BITSET0/1_B32/B64: D[S0[4:0|5:0]] = 0|1 (the rest of D is kept). No SCC.
template <typename T, bool One>
inline void s_bitset(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::sdst);
  const unsigned bit = w.scalar32(op.at(Name::src0)) & (sizeof(T) * 8 - 1);
  T v = read<T>(w, d);
  if (One) v |= T{1} << bit; else v &= ~(T{1} << bit);
  w.write_scalar(d, v);
}

// S_*_SAVEEXEC_B64: D = EXEC; EXEC = F(S0, EXEC); SCC = EXEC != 0. S_*_WREXEC_B64 (gfx90a+): EXEC = F(S0, EXEC);
// D = the new EXEC; SCC = EXEC != 0 (MI300 ISA S_ANDN1_WREXEC_B64 / S_ANDN2_WREXEC_B64).
inline u64 ex_and(u64 s, u64 e) { return s & e; }
inline u64 ex_or(u64 s, u64 e) { return s | e; }
inline u64 ex_xor(u64 s, u64 e) { return s ^ e; }
inline u64 ex_andn2(u64 s, u64 e) { return s & ~e; }
inline u64 ex_orn2(u64 s, u64 e) { return s | ~e; }
inline u64 ex_nand(u64 s, u64 e) { return ~(s & e); }
inline u64 ex_nor(u64 s, u64 e) { return ~(s | e); }
inline u64 ex_xnor(u64 s, u64 e) { return ~(s ^ e); }
inline u64 ex_andn1(u64 s, u64 e) { return ~s & e; }
inline u64 ex_orn1(u64 s, u64 e) { return ~s | e; }
template <u64 (*F)(u64, u64), bool WrExec>
inline void s_exec_op(Wave& w, const Op& op) {
  const u64 s0 = w.scalar64(op.at(Name::src0));
  const u64 old = w.exec();
  const u64 n = F(s0, old);
  if (!WrExec) w.write_scalar(op.at(Name::sdst), old);
  w.set_exec(n);
  if (WrExec) w.write_scalar(op.at(Name::sdst), n);
  w.scc = n != 0;
}

// SOPK.
inline void s_movk_i32(Wave& w, const Op& op) { w.write_scalar(op.at(Name::sdst), simm16_sext(op)); }  // D = signext(SIMM16)
inline void s_cmovk_i32(Wave& w, const Op& op) { if (w.scc) w.write_scalar(op.at(Name::sdst), simm16_sext(op)); }
// S_ADDK_I32: D = D + signext(SIMM16); SCC = signed overflow.
inline void s_addk_i32(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::sdst);
  const Res<u32> r = add_i32(w.scalar32(d), simm16_sext(op), false);
  w.write_scalar(d, r.d);
  w.scc = r.scc;
}
// S_MULK_I32: D = D * signext(SIMM16). No SCC.
inline void s_mulk_i32(Wave& w, const Op& op) {
  const Slot& d = op.at(Name::sdst);
  w.write_scalar(d, w.scalar32(d) * simm16_sext(op));
}

// ---- program control --------------------------------------------------------------------------------------------

[[nodiscard]] inline u64 next_pc_address(const Wave& w, const Op& op) noexcept {
  // S_GETPC_B64 / S_SWAPPC_B64 / S_CALL_B64: "D = PC + 4", the byte address of the next instruction (all three are
  // 4-byte encodings).
  return w.machine->code->load_base + op.addr + 4;
}
inline void s_getpc_b64(Wave& w, const Op& op) { w.write_scalar(op.at(Name::sdst), next_pc_address(w, op)); }

[[nodiscard]] inline std::string hex(u64 v) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s = "0x";
  bool started = false;
  for (int sh = 60; sh >= 0; sh -= 4) {
    const unsigned d = (v >> sh) & 0xf;
    if (d || started || sh == 0) { s += digits[d]; started = true; }
  }
  return s;
}

/// Jumps to device byte address `target` (S_SETPC_B64 / S_SWAPPC_B64: "PC = S0.u64"); false (and the wave
/// stopped) when no instruction of the kernel starts there.
inline bool jump_to(Wave& w, const Op& op, u64 target) {
  const std::uint32_t idx = w.machine->code->index_at(target);
  if (idx == ~0u) {
    w.stop_with(Stop::Kind::illegal, op,
                std::string(op.mnemonic()) + " jumps to " + hex(target) + ", where no instruction of the kernel starts",
                -1, target);
    return false;
  }
  w.pc = idx;
  return true;
}
inline void s_setpc_b64(Wave& w, const Op& op) { (void)jump_to(w, op, w.scalar64(op.at(Name::src0))); }
inline void s_swappc_b64(Wave& w, const Op& op) {
  const u64 target = w.scalar64(op.at(Name::src0));  // read before D is written (they may be the same pair)
  w.write_scalar(op.at(Name::sdst), next_pc_address(w, op));
  (void)jump_to(w, op, target);
}
// S_CALL_B64: D = PC + 4; PC = PC + signext(SIMM16 * 4) + 4 (the decoder resolves the target to an Op index).
inline void s_call_b64(Wave& w, const Op& op) {
  w.write_scalar(op.at(Name::sdst), next_pc_address(w, op));
  w.pc = op.at(Name::simm16).index;
}
inline void s_branch(Wave& w, const Op& op) { w.pc = op.at(Name::simm16).index; }
enum class Cond : std::uint8_t { scc0, scc1, vccz, vccnz, execz, execnz, never };
template <Cond C>
inline void s_cbranch(Wave& w, const Op& op) {
  bool take = false;
  if constexpr (C == Cond::scc0) take = !w.scc;
  else if constexpr (C == Cond::scc1) take = w.scc;
  else if constexpr (C == Cond::vccz) take = w.vcc() == 0;
  else if constexpr (C == Cond::vccnz) take = w.vcc() != 0;
  else if constexpr (C == Cond::execz) take = w.exec() == 0;
  else if constexpr (C == Cond::execnz) take = w.exec() != 0;
  if (take) w.pc = op.at(Name::simm16).index;
}

// S_ENDPGM: "The hardware implicitly executes S_WAITCNT 0 before executing this instruction."
inline void s_endpgm(Wave& w, const Op&) {
  drain(w);
  w.ended = true;
}
// S_BARRIER: the wave waits until every surviving wave of the workgroup arrives (run_workgroup releases it).
inline void s_barrier(Wave& w, const Op&) { w.at_barrier = true; }
// S_WAITCNT: simm16 vmcnt[3:0]+[15:14], expcnt[6:4], lgkmcnt[11:8] (decode_waitcnt). Export counts nothing on
// compute waves, so only vmcnt and lgkmcnt wait.
inline void s_waitcnt(Wave& w, const Op& op) {
  const Waitcnt c = decode_waitcnt(w.machine->target, static_cast<std::uint16_t>(op.imm(Name::simm16)));
  wait_counts(w, c.vm, c.lgkm);
}
inline void s_nop(Wave&, const Op&) {}
// S_TRAP: enters the trap handler; a compute kernel reaches it through abort()/assert (llvm.trap), so the run
// stops as a failure.
inline void s_trap(Wave& w, const Op& op) {
  w.stop_with(Stop::Kind::illegal, op,
              "s_trap " + std::to_string(op.imm(Name::simm16) & 0xff) + ": the kernel trapped (llvm.trap / abort / assert)");
}
// S_MOVRELS: D = SGPR[addr(S0) + M0]; S_MOVRELD: SGPR[addr(D) + M0] = S0 (MI300 ISA S_MOVRELS_B32 ...). An index
// that leaves the SGPRs s0..s101 is reported rather than wrapped into vcc/ttmp.
template <bool Dest, unsigned Dwords>
inline void s_movrel(Wave& w, const Op& op) {
  const Slot& base = op.at(Dest ? Name::sdst : Name::src0);
  if (base.kind != Slot::Kind::scalar || base.index >= 102) {
    w.stop_with(Stop::Kind::illegal, op, std::string(op.mnemonic()) + ": the relative operand must be an SGPR");
    return;
  }
  const u64 idx = u64{base.index} + w.s[sc::m0];
  if (idx + Dwords > 102) {
    w.stop_with(Stop::Kind::illegal, op,
                std::string(op.mnemonic()) + ": s" + std::to_string(base.index) + " + m0 (" + std::to_string(w.s[sc::m0]) +
                    ") = s" + std::to_string(idx) + " is outside the SGPRs s0..s101");
    return;
  }
  // The register chosen at run time is checked against outstanding scalar loads here (the decoder's read/write
  // sets only know the base operand).
  const RegRange dyn{false, static_cast<std::uint16_t>(idx), static_cast<std::uint16_t>(Dwords)};
  if (w.outstanding && !range_ready(w, op, dyn, Dest)) return;
  Slot rel{Slot::Kind::scalar, 0, static_cast<std::uint16_t>(Dwords), static_cast<std::uint32_t>(idx), 0};
  if (Dest) w.write_scalar(rel, Dwords == 2 ? w.scalar64(op.at(Name::src0)) : w.scalar32(op.at(Name::src0)));
  else w.write_scalar(op.at(Name::sdst), Dwords == 2 ? w.s64(rel.index) : w.s[rel.index]);
}

// ---- hardware registers (S_GETREG_B32 / S_SETREG_B32 / S_SETREG_IMM32_B32) ---------------------------------------

// HW_REG ids of gfx9 (LLVM SIDefines.h Hwreg::Id): MODE 1, STATUS 2, TRAPSTS 3, HW_ID 4, GPR_ALLOC 5, LDS_ALLOC 6,
// SH_MEM_BASES 15, and on gfx940+ XCC_ID 20 ("GFX940 specific registers"). simm16 = id[5:0] | offset[10:6] |
// (size - 1)[15:11] (MI300 ISA S_GETREG_B32).
namespace hwreg {
inline constexpr unsigned mode = 1, trapsts = 3, hw_id = 4, gpr_alloc = 5, lds_alloc = 6, sh_mem_bases = 15,
                          xcc_id = 20;
}

/// Value of a readable hardware register; false when the emulator does not model it.
inline bool read_hwreg(const Wave& w, unsigned id, u32& v) {
  switch (id) {
    case hwreg::mode: v = w.mode; return true;
    case hwreg::trapsts: v = w.trapsts; return true;
    // Placement the hardware chooses: seeded per wave at launch (launch.hpp hardware_ids), so a kernel whose
    // result depends on where it ran differs between trials, waves and schedules here as on hardware.
    case hwreg::hw_id: v = w.hw_id; return true;
    case hwreg::xcc_id:
      if (w.machine->target == Target::gfx90a) return false;  // no such register before gfx940
      v = w.xcc_id;
      return true;
    case hwreg::gpr_alloc: {
      // GPR_ALLOC: VGPR_BASE[5:0], VGPR_SIZE[13:8] = VGPR granules - 1, SGPR_BASE[21:16], SGPR_SIZE[27:24] = SGPR
      // granules - 1. Granules: 8 VGPRs of the unified file on gfx90a+ (LLVM getVGPRAllocGranule with
      // FeatureGFX90AInsts), 16 SGPRs (LLVM getSGPRAllocGranule for gfx9).
      const u32 vg = std::max<u32>(1, (w.vgpr_limit + w.agpr_limit + 7) / 8) - 1;
      const u32 sg = std::max<u32>(1, (w.sgpr_limit + 16 + 15) / 16) - 1;  // + vcc, flat_scratch, xnack (16 extra)
      v = (vg & 0x3fu) << 8 | (sg & 0xfu) << 24;
      return true;
    }
    case hwreg::lds_alloc: {
      // LDS_ALLOC: LDS_BASE[7:0], LDS_SIZE[20:12] in granules of 128 dwords (512 bytes) on gfx9. The size is the
      // launch's (Machine::lds_alloc_reported); the base, where the CU placed the workgroup, is a seeded choice of
      // the workgroup (Wave::group_seed) within the 64 KiB.
      const u64 bytes = w.machine->lds_alloc_reported;
      const u32 granules = static_cast<u32>((bytes + 511) / 512);
      const u32 room = granules >= 128 ? 0 : 128 - granules;  // 64 KiB = 128 granules
      const u32 base = room ? static_cast<u32>(w.group_seed % (room + 1)) & 0xffu : 0;
      v = base | (granules & 0x1ffu) << 12;
      return true;
    }
    case hwreg::sh_mem_bases: {
      // SH_MEM_BASES: PRIVATE_BASE[15:0], SHARED_BASE[31:16], each the bits 63:48 of its aperture (LLVM
      // SITargetLowering::getSegmentAperture reads the field and shifts it left by 16 into the high dword).
      v = ((w.machine->shared_aperture_hi >> 16) << 16) | ((w.machine->private_aperture_hi >> 16) & 0xffffu);
      return true;
    }
    default: return false;
  }
}

[[nodiscard]] inline std::string hwreg_name(unsigned id) {
  switch (id) {
    case 1: return "HW_REG_MODE";
    case 2: return "HW_REG_STATUS";
    case 3: return "HW_REG_TRAPSTS";
    case 4: return "HW_REG_HW_ID";
    case 5: return "HW_REG_GPR_ALLOC";
    case 6: return "HW_REG_LDS_ALLOC";
    case 7: return "HW_REG_IB_STS";
    case 15: return "HW_REG_SH_MEM_BASES";
    case 20: return "HW_REG_XCC_ID";
    default: return "hardware register " + std::to_string(id);
  }
}

/// MODE bit 27 is GPR_IDX_EN (MI300 ISA §3.3 "MODE register"); the wave keeps a mirror that step() tests.
inline constexpr u32 mode_gpr_idx_en = 1u << 27;

/// Keeps Wave::vector_mode's gpr_idx bit equal to MODE.GPR_IDX_EN after any MODE write.
inline void sync_gpr_idx(Wave& w) {
  if (w.mode & mode_gpr_idx_en) w.vector_mode |= Wave::gpr_idx_on;
  else w.vector_mode &= static_cast<std::uint8_t>(~Wave::gpr_idx_on);
}

inline void s_getreg_b32(Wave& w, const Op& op) {
  const u32 k = static_cast<u32>(op.imm(Name::simm16));
  const unsigned id = k & 0x3f, off = (k >> 6) & 0x1f, size = ((k >> 11) & 0x1f) + 1;
  u32 v = 0;
  if (!read_hwreg(w, id, v)) {
    w.stop_with(Stop::Kind::unsupported, op, "s_getreg_b32 of " + hwreg_name(id) + " is not emulated");
    return;
  }
  const u32 mask = size >= 32 ? ~0u : (1u << size) - 1;
  w.write_scalar(op.at(Name::sdst), (v >> off) & mask);
}

/// S_SETREG_B32 (source in the operand LLVM names sdst) and S_SETREG_IMM32_B32 (source `imm`): writes the low
/// `size` bits of the source into bits [offset+size-1 : offset] of the register. MODE and TRAPSTS are writable;
/// a MODE write (round mode, denormal or IEEE bits) only updates `w.mode`, which the VALU semantics read.
template <Name Src>
inline void s_setreg(Wave& w, const Op& op) {
  const u32 k = static_cast<u32>(op.imm(Name::simm16));
  const unsigned id = k & 0x3f, off = (k >> 6) & 0x1f, size = ((k >> 11) & 0x1f) + 1;
  u32* reg = id == hwreg::mode ? &w.mode : id == hwreg::trapsts ? &w.trapsts : nullptr;
  if (!reg) {
    w.stop_with(Stop::Kind::unsupported, op, std::string(op.mnemonic()) + " to " + hwreg_name(id) + " is not emulated");
    return;
  }
  const u32 field = size >= 32 ? ~0u : (1u << size) - 1;
  const u32 mask = field << off;
  const u32 src = w.scalar32(op.at(Src));
  *reg = (*reg & ~mask) | ((src << off) & mask);
  if (id == hwreg::mode) sync_gpr_idx(w);
}

// ---- GPR indexing and VSKIP (the issue side is machine.hpp detail::step_special) ----------------------------

/// S_SET_GPR_IDX_ON: "MODE.gpr_idx_en = 1; M0[7:0] = S0.u[7:0]; M0[15:12] = SIMM4"; the other bits of M0 are
/// unmodified (MI300 ISA, SOPC opcodes).
inline void s_set_gpr_idx_on(Wave& w, const Op& op) {
  const u32 idx = w.scalar32(op.at(Name::src0)) & 0xffu;
  const u32 mode = static_cast<u32>(op.imm(Name::src1)) & 0xfu;
  w.s[sc::m0] = (w.s[sc::m0] & ~0xf0ffu) | idx | (mode << 12);
  w.mode |= mode_gpr_idx_en;
  sync_gpr_idx(w);
}
/// S_SET_GPR_IDX_OFF: "MODE.gpr_idx_en = 0".
inline void s_set_gpr_idx_off(Wave& w, const Op&) {
  w.mode &= ~mode_gpr_idx_en;
  sync_gpr_idx(w);
}
/// S_SET_GPR_IDX_IDX: "M0[7:0] = S0.u[7:0]", the rest of M0 unmodified.
inline void s_set_gpr_idx_idx(Wave& w, const Op& op) {
  w.s[sc::m0] = (w.s[sc::m0] & ~0xffu) | (w.scalar32(op.at(Name::src0)) & 0xffu);
}
/// S_SET_GPR_IDX_MODE: "M0[15:12] = SIMM4", the rest of M0 unmodified.
inline void s_set_gpr_idx_mode(Wave& w, const Op& op) {
  w.s[sc::m0] = (w.s[sc::m0] & ~0xf000u) | ((static_cast<u32>(op.imm(Name::simm16)) & 0xfu) << 12);
}
/// S_SETVSKIP: "VSKIP = S0.u[S1.u[4:0]]" — while set, vector instructions are not issued (MI300 ISA, SOPC).
inline void s_setvskip(Wave& w, const Op& op) {
  const u32 bit = (w.scalar32(op.at(Name::src0)) >> (w.scalar32(op.at(Name::src1)) & 31u)) & 1u;
  if (bit) w.vector_mode |= Wave::vskip_on;
  else w.vector_mode &= static_cast<std::uint8_t>(~Wave::vskip_on);
}

}  // namespace detail::salu

/// The scalar ALU and program-control semantics. Mnemonics absent from this table (s_sethalt, s_setkill,
/// s_sendmsg, s_cbranch_g_fork/i_fork/join, s_rfe_*, s_endpgm_saved, ...)
/// decode to a handler that stops the run as unsupported.
[[nodiscard]] inline std::span<const Semantics> salu_semantics() {
  using namespace detail::salu;
  static constexpr Semantics table[] = {
      // SOP2
      {op::s_add_u32, sop2<u32, u32, u32, add_u32, true>},
      {op::s_sub_u32, sop2<u32, u32, u32, sub_u32, true>},
      {op::s_add_i32, sop2<u32, u32, u32, add_i32, true>},
      {op::s_sub_i32, sop2<u32, u32, u32, sub_i32, true>},
      {op::s_addc_u32, sop2<u32, u32, u32, addc_u32, true>},
      {op::s_subb_u32, sop2<u32, u32, u32, subb_u32, true>},
      {op::s_min_i32, sop2<u32, u32, u32, min_i32, true>},
      {op::s_min_u32, sop2<u32, u32, u32, min_u32, true>},
      {op::s_max_i32, sop2<u32, u32, u32, max_i32, true>},
      {op::s_max_u32, sop2<u32, u32, u32, max_u32, true>},
      {op::s_cselect_b32, sop2<u32, u32, u32, cselect<u32>, false>},
      {op::s_cselect_b64, sop2<u64, u64, u64, cselect<u64>, false>},
      {op::s_and_b32, sop2<u32, u32, u32, and_<u32>, true>},
      {op::s_and_b64, sop2<u64, u64, u64, and_<u64>, true>},
      {op::s_or_b32, sop2<u32, u32, u32, or_<u32>, true>},
      {op::s_or_b64, sop2<u64, u64, u64, or_<u64>, true>},
      {op::s_xor_b32, sop2<u32, u32, u32, xor_<u32>, true>},
      {op::s_xor_b64, sop2<u64, u64, u64, xor_<u64>, true>},
      {op::s_andn2_b32, sop2<u32, u32, u32, andn2<u32>, true>},
      {op::s_andn2_b64, sop2<u64, u64, u64, andn2<u64>, true>},
      {op::s_orn2_b32, sop2<u32, u32, u32, orn2<u32>, true>},
      {op::s_orn2_b64, sop2<u64, u64, u64, orn2<u64>, true>},
      {op::s_nand_b32, sop2<u32, u32, u32, nand<u32>, true>},
      {op::s_nand_b64, sop2<u64, u64, u64, nand<u64>, true>},
      {op::s_nor_b32, sop2<u32, u32, u32, nor<u32>, true>},
      {op::s_nor_b64, sop2<u64, u64, u64, nor<u64>, true>},
      {op::s_xnor_b32, sop2<u32, u32, u32, xnor<u32>, true>},
      {op::s_xnor_b64, sop2<u64, u64, u64, xnor<u64>, true>},
      {op::s_lshl_b32, sop2<u32, u32, u32, lshl<u32>, true>},
      {op::s_lshl_b64, sop2<u64, u32, u64, lshl<u64>, true>},
      {op::s_lshr_b32, sop2<u32, u32, u32, lshr<u32>, true>},
      {op::s_lshr_b64, sop2<u64, u32, u64, lshr<u64>, true>},
      {op::s_ashr_i32, sop2<u32, u32, u32, ashr<u32>, true>},
      {op::s_ashr_i64, sop2<u64, u32, u64, ashr<u64>, true>},
      {op::s_bfm_b32, sop2<u32, u32, u32, bfm<u32>, false>},
      {op::s_bfm_b64, sop2<u32, u32, u64, bfm<u64>, false>},
      {op::s_mul_i32, sop2<u32, u32, u32, mul_i32, false>},
      {op::s_mul_hi_u32, sop2<u32, u32, u32, mul_hi_u32, false>},
      {op::s_mul_hi_i32, sop2<u32, u32, u32, mul_hi_i32, false>},
      {op::s_bfe_u32, sop2<u32, u32, u32, bfe<u32, false>, true>},
      {op::s_bfe_i32, sop2<u32, u32, u32, bfe<u32, true>, true>},
      {op::s_bfe_u64, sop2<u64, u32, u64, bfe<u64, false>, true>},
      {op::s_bfe_i64, sop2<u64, u32, u64, bfe<u64, true>, true>},
      {op::s_absdiff_i32, sop2<u32, u32, u32, absdiff_i32, true>},
      {op::s_lshl1_add_u32, sop2<u32, u32, u32, lshl_add_u32<1>, true>},
      {op::s_lshl2_add_u32, sop2<u32, u32, u32, lshl_add_u32<2>, true>},
      {op::s_lshl3_add_u32, sop2<u32, u32, u32, lshl_add_u32<3>, true>},
      {op::s_lshl4_add_u32, sop2<u32, u32, u32, lshl_add_u32<4>, true>},
      {op::s_pack_ll_b32_b16, sop2<u32, u32, u32, pack_ll, false>},
      {op::s_pack_lh_b32_b16, sop2<u32, u32, u32, pack_lh, false>},
      {op::s_pack_hh_b32_b16, sop2<u32, u32, u32, pack_hh, false>},
      // SOP1
      {op::s_mov_b32, sop1<u32, u32, mov<u32>, false>},
      {op::s_mov_b64, sop1<u64, u64, mov<u64>, false>},
      {op::s_cmov_b32, s_cmov<u32>},
      {op::s_cmov_b64, s_cmov<u64>},
      {op::s_not_b32, sop1<u32, u32, not_<u32>, true>},
      {op::s_not_b64, sop1<u64, u64, not_<u64>, true>},
      {op::s_wqm_b32, sop1<u32, u32, wqm<u32>, true>},
      {op::s_wqm_b64, sop1<u64, u64, wqm<u64>, true>},
      {op::s_brev_b32, sop1<u32, u32, brev<u32>, false>},
      {op::s_brev_b64, sop1<u64, u64, brev<u64>, false>},
      {op::s_bcnt0_i32_b32, sop1<u32, u32, bcnt0<u32>, true>},
      {op::s_bcnt0_i32_b64, sop1<u64, u32, bcnt0<u64>, true>},
      {op::s_bcnt1_i32_b32, sop1<u32, u32, bcnt1<u32>, true>},
      {op::s_bcnt1_i32_b64, sop1<u64, u32, bcnt1<u64>, true>},
      {op::s_ff0_i32_b32, sop1<u32, u32, ff0<u32>, false>},
      {op::s_ff0_i32_b64, sop1<u64, u32, ff0<u64>, false>},
      {op::s_ff1_i32_b32, sop1<u32, u32, ff1<u32>, false>},
      {op::s_ff1_i32_b64, sop1<u64, u32, ff1<u64>, false>},
      {op::s_flbit_i32_b32, sop1<u32, u32, flbit<u32>, false>},
      {op::s_flbit_i32_b64, sop1<u64, u32, flbit<u64>, false>},
      {op::s_flbit_i32, sop1<u32, u32, flbit_signed<u32>, false>},
      {op::s_flbit_i32_i64, sop1<u64, u32, flbit_signed<u64>, false>},
      {op::s_sext_i32_i8, sop1<u32, u32, sext_i8, false>},
      {op::s_sext_i32_i16, sop1<u32, u32, sext_i16, false>},
      {op::s_bitset0_b32, s_bitset<u32, false>},
      {op::s_bitset0_b64, s_bitset<u64, false>},
      {op::s_bitset1_b32, s_bitset<u32, true>},
      {op::s_bitset1_b64, s_bitset<u64, true>},
      {op::s_abs_i32, sop1<u32, u32, abs_i32, true>},
      {op::s_quadmask_b32, sop1<u32, u32, quadmask<u32>, true>},
      {op::s_quadmask_b64, sop1<u64, u64, quadmask<u64>, true>},
      {op::s_bitreplicate_b64_b32, sop1<u32, u64, bitreplicate, false>},
      {op::s_and_saveexec_b64, s_exec_op<ex_and, false>},
      {op::s_or_saveexec_b64, s_exec_op<ex_or, false>},
      {op::s_xor_saveexec_b64, s_exec_op<ex_xor, false>},
      {op::s_andn2_saveexec_b64, s_exec_op<ex_andn2, false>},
      {op::s_orn2_saveexec_b64, s_exec_op<ex_orn2, false>},
      {op::s_nand_saveexec_b64, s_exec_op<ex_nand, false>},
      {op::s_nor_saveexec_b64, s_exec_op<ex_nor, false>},
      {op::s_xnor_saveexec_b64, s_exec_op<ex_xnor, false>},
      {op::s_andn1_saveexec_b64, s_exec_op<ex_andn1, false>},
      {op::s_orn1_saveexec_b64, s_exec_op<ex_orn1, false>},
      {op::s_andn1_wrexec_b64, s_exec_op<ex_andn1, true>},
      {op::s_andn2_wrexec_b64, s_exec_op<ex_andn2, true>},
      {op::s_movrels_b32, s_movrel<false, 1>},
      {op::s_movrels_b64, s_movrel<false, 2>},
      {op::s_movreld_b32, s_movrel<true, 1>},
      {op::s_movreld_b64, s_movrel<true, 2>},
      {op::s_getpc_b64, s_getpc_b64},
      {op::s_setpc_b64, s_setpc_b64},
      {op::s_swappc_b64, s_swappc_b64},
      // SOPC
      {op::s_cmp_eq_i32, sopc<u32, u32, eq_u32>},
      {op::s_cmp_lg_i32, sopc<u32, u32, lg_u32>},
      {op::s_cmp_gt_i32, sopc<u32, u32, gt_i32>},
      {op::s_cmp_ge_i32, sopc<u32, u32, ge_i32>},
      {op::s_cmp_lt_i32, sopc<u32, u32, lt_i32>},
      {op::s_cmp_le_i32, sopc<u32, u32, le_i32>},
      {op::s_cmp_eq_u32, sopc<u32, u32, eq_u32>},
      {op::s_cmp_lg_u32, sopc<u32, u32, lg_u32>},
      {op::s_cmp_gt_u32, sopc<u32, u32, gt_u32>},
      {op::s_cmp_ge_u32, sopc<u32, u32, ge_u32>},
      {op::s_cmp_lt_u32, sopc<u32, u32, lt_u32>},
      {op::s_cmp_le_u32, sopc<u32, u32, le_u32>},
      {op::s_cmp_eq_u64, sopc<u64, u64, eq_u64>},
      {op::s_cmp_lg_u64, sopc<u64, u64, lg_u64>},
      {op::s_bitcmp0_b32, sopc<u32, u32, bitcmp<u32, false>>},
      {op::s_bitcmp1_b32, sopc<u32, u32, bitcmp<u32, true>>},
      {op::s_bitcmp0_b64, sopc<u64, u32, bitcmp<u64, false>>},
      {op::s_bitcmp1_b64, sopc<u64, u32, bitcmp<u64, true>>},
      // SOPK
      {op::s_movk_i32, s_movk_i32},
      {op::s_cmovk_i32, s_cmovk_i32},
      {op::s_cmpk_eq_i32, sopk_cmp<true, eq_u32>},
      {op::s_cmpk_lg_i32, sopk_cmp<true, lg_u32>},
      {op::s_cmpk_gt_i32, sopk_cmp<true, gt_i32>},
      {op::s_cmpk_ge_i32, sopk_cmp<true, ge_i32>},
      {op::s_cmpk_lt_i32, sopk_cmp<true, lt_i32>},
      {op::s_cmpk_le_i32, sopk_cmp<true, le_i32>},
      {op::s_cmpk_eq_u32, sopk_cmp<false, eq_u32>},
      {op::s_cmpk_lg_u32, sopk_cmp<false, lg_u32>},
      {op::s_cmpk_gt_u32, sopk_cmp<false, gt_u32>},
      {op::s_cmpk_ge_u32, sopk_cmp<false, ge_u32>},
      {op::s_cmpk_lt_u32, sopk_cmp<false, lt_u32>},
      {op::s_cmpk_le_u32, sopk_cmp<false, le_u32>},
      {op::s_addk_i32, s_addk_i32},
      {op::s_mulk_i32, s_mulk_i32},
      {op::s_getreg_b32, s_getreg_b32},
      {op::s_setreg_b32, s_setreg<Name::sdst>},
      {op::s_setreg_imm32_b32, s_setreg<Name::imm>},
      {op::s_call_b64, s_call_b64},
      // SOPP
      {op::s_nop, s_nop},
      {op::s_set_gpr_idx_idx, s_set_gpr_idx_idx},
      {op::s_set_gpr_idx_mode, s_set_gpr_idx_mode},
      {op::s_set_gpr_idx_off, s_set_gpr_idx_off},
      {op::s_set_gpr_idx_on, s_set_gpr_idx_on},
      {op::s_setvskip, s_setvskip},
      {op::s_endpgm, s_endpgm},
      {op::s_branch, s_branch},
      {op::s_cbranch_scc0, s_cbranch<Cond::scc0>},
      {op::s_cbranch_scc1, s_cbranch<Cond::scc1>},
      {op::s_cbranch_vccz, s_cbranch<Cond::vccz>},
      {op::s_cbranch_vccnz, s_cbranch<Cond::vccnz>},
      {op::s_cbranch_execz, s_cbranch<Cond::execz>},
      {op::s_cbranch_execnz, s_cbranch<Cond::execnz>},
      // S_CBRANCH_CDBG*: taken only when the debugger sets the conditional-debug bits; never without one.
      {op::s_cbranch_cdbgsys, s_cbranch<Cond::never>},
      {op::s_cbranch_cdbguser, s_cbranch<Cond::never>},
      {op::s_cbranch_cdbgsys_or_user, s_cbranch<Cond::never>},
      {op::s_cbranch_cdbgsys_and_user, s_cbranch<Cond::never>},
      {op::s_barrier, s_barrier},
      {op::s_waitcnt, s_waitcnt},
      // Scheduling hints and performance/trace counters: no architectural effect.
      {op::s_sleep, s_nop},
      {op::s_setprio, s_nop},
      {op::s_wakeup, s_nop},
      {op::s_icache_inv, s_nop},
      {op::s_incperflevel, s_nop},
      {op::s_decperflevel, s_nop},
      {op::s_ttracedata, s_nop},
      // S_SET_GPR_IDX_OFF clears MODE.gpr_idx_en; the emulator never enables it (s_set_gpr_idx_on is unsupported).
      {op::s_set_gpr_idx_off, s_nop},
      {op::s_trap, s_trap},
  };
  return table;
}

}  // namespace asmevo::emu
