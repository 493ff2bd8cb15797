// The matrix-core semantics: every MFMA and SMFMAC opcode of gfx90a and gfx942 (and gfx950's forms shared with gfx942).
#pragma once

// Layouts. Every operand-to-lane mapping below is the one of AMD's matrix instruction calculator
// (github ROCm/amd_matrix_instruction_calculator, matrix_calculator.py, class InstCalcGfx9, which documents the
// CDNA1-3 register layouts; cited as [CALC] with the function name):
//  - A (M x K per block) and B (K x N per block) inputs [CALC __get_input_reg_lanes, _get_reg_name]: with
//    G = 64 / (M * blocks) lane groups and E = K / G elements per lane, element (i, k) of block b sits in lane
//    b*M + (k / E)*M*blocks + i, at bit offset (k % E) * width in that lane's consecutive registers (f64: a register
//    pair per element). B is the same with N and j.
//  - CBSZ/ABID [CALC _get_cbsz_abid_transformed_block]: block b of the product reads A from block
//    (b >> cbsz << cbsz) + abid.
//  - BLGP [CALC _get_blgp_transformed_lane]: the B value of lane p is read from lane blgp_lane(p). On gfx942 the
//    f64 opcodes use BLGP's three bits as negate flags of A, B and C instead (calculator README "Example of Using
//    the BLGP Modifier to Negate FP64 Input Matrices in the CDNA 3 Architecture"); gfx90a disallows BLGP on f64.
//  - C and D [CALC __get_output_reg_lanes]: with H = 4 rows per register group (1 for f64), R = 64 / N and
//    P = ceil(64 / (M*N/H)) blocks per register, element (i, j) of block b sits in register
//    b*(M*N/64) + (i / (H*R))*H + i % H (f64: that register pair), lane (b % P)*N + ((i / H) % R)*P*N + j.
//  - SMFMAC (gfx942) [CALC _get_reg_lanes 'a'/'k' with sparse=True; README "Example of Printing Compression Index
//    Information for a Sparse Matrix Instruction"]: A holds K/2 stored values per row (2 of every 4), laid out as
//    a dense A of K/2 columns. Stored value c of row i has a 2-bit index in the SrcC (idx) VGPR of the same lane:
//    bits [4*(e/2) + 2*(e%2) + 1 : 4*(e/2) + 2*(e%2)] with e = c % E, shifted up by 8*abid bits (16-bit inputs) or
//    16*abid bits (8-bit inputs) when CBSZ == 0 (CBSZ != 0 ignores ABID); it stands for dense column
//    4*(c/2) + index. D = D + A*B (vdst is also the accumulator).
//
// Numerics (what the emulator models; the matrix core's internal summation order and precision are not documented
// in the ISA guides, so every float form is registered as approximate):
//  - f16, bf16, fp8, bf8 and xf32 products are exact in f32; f32 and f64 products are fused with the add.
//  - Each output starts from C and adds the K products of its block in increasing k order (sparse: in stored
//    order), one round-to-nearest-even per add, in f32 (f64 for the f64 forms).
//  - xf32 operands are rounded to a 10-bit significand (nearest even) before the product (MI300 ISA (CDNA3) §7.1
//    describes XF32 as a reduced-precision f32; its conversion rule is not given).
//  - gfx90a f16/bf16/bf16_1k forms flush denormal inputs and outputs to zero (ROCm MIOpen docs, "MI200 matrix
//    fused multiply-add (MFMA) behavior specifics": "MFMA_F16, MFMA_BF16, and MFMA_BF16_1K flush subnormal
//    input/output data to zero"). All other forms keep denormals; MODE.FP_DENORM is not applied to MFMA.
//  - A NaN result is written as the default NaN (payload propagation is undocumented).
//  - i8: exact, the i32 sums wrap modulo 2^32.
//  - fp8/bf8 inputs are the NUZ formats on gfx942 and OCP E4M3/E5M2 on gfx950 (fp.hpp Fp8).
// The emulator stops (unsupported) when EXEC is not all ones: what the matrix core does with inactive lanes is not
// modeled. CBSZ/ABID/BLGP values the calculator marks as not supported for an opcode stop as illegal.

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "asmevo/verify/emu/fp.hpp"
#include "asmevo/verify/emu/machine.hpp"
#include "asmevo/verify/emu/mfma_info.hpp"

namespace asmevo::emu {

namespace detail::mfma {

using namespace fp;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

/// Compile-time geometry of one opcode (the MfmaInfo fields a handler needs).
struct Geom {
  unsigned m, n, k, blocks;
  MfmaType a, b, cd;
  bool sparse;
};

[[nodiscard]] constexpr unsigned width(MfmaType t) noexcept {
  switch (t) {
    case MfmaType::f16: case MfmaType::bf16: return 16;
    case MfmaType::i8: case MfmaType::fp8: case MfmaType::bf8: return 8;
    case MfmaType::f64: return 64;
    default: return 32;
  }
}

/// [CALC _get_blgp_transformed_lane]: the lane whose B value lane `p` uses.
[[nodiscard]] constexpr unsigned blgp_lane(unsigned p, unsigned blgp) noexcept {
  switch (blgp & 7u) {
    case 1: return p & 31u;                        // broadcast lanes 0-31
    case 2: return p | 32u;                        // broadcast lanes 32-63
    case 3: return (p + 16u) & 63u;                // rotate down by 16
    case 4: return p & 15u;                        // broadcast lanes 0-15
    case 5: return 16u + (p & 15u);                // broadcast lanes 16-31
    case 6: return 32u + (p & 15u);                // broadcast lanes 32-47
    case 7: return 48u + (p & 15u);                // broadcast lanes 48-63
    default: return p;
  }
}

/// Registers of one operand: pointers to its rows (or to broadcast copies of a constant/scalar source).
template <unsigned N>
struct Rows {
  std::array<const u32*, N> r{};
  alignas(64) u32 tmp[N == 0 ? 1 : N][wave_lanes];
};

/// Element `e` of a lane's consecutive registers, `W` bits wide.
template <unsigned W, unsigned N>
[[nodiscard]] inline u64 element(const Rows<N>& x, unsigned lane, unsigned e) noexcept {
  if constexpr (W == 64) return x.r[2 * e][lane] | static_cast<u64>(x.r[2 * e + 1][lane]) << 32;
  else if constexpr (W == 32) return x.r[e][lane];
  else if constexpr (W == 16) return (x.r[e / 2][lane] >> (16 * (e % 2))) & 0xffffu;
  else return (x.r[e / 4][lane] >> (8 * (e % 4))) & 0xffu;
}

/// 256-entry fp8 decode tables (fp8_to_f32 is exact; the table only saves its ldexp).
[[nodiscard]] inline const std::array<float, 256>& fp8_table(Fp8 k) noexcept {
  static const auto tables = [] {
    std::array<std::array<float, 256>, 4> t{};
    for (unsigned f = 0; f < 4; ++f)
      for (unsigned v = 0; v < 256; ++v) t[f][v] = fp8_to_f32(static_cast<std::uint8_t>(v), static_cast<Fp8>(f));
    return t;
  }();
  return tables[static_cast<unsigned>(k)];
}

/// Per-execution conversion context.
struct Ctx {
  bool ftz16 = false;  ///< gfx90a f16/bf16 forms: denormal inputs and outputs flushed
  const std::array<float, 256>* fp8a = nullptr;
  const std::array<float, 256>* fp8b = nullptr;
};

/// Converts one raw input element to the product type (float, double or int32).
template <MfmaType T>
[[nodiscard]] inline auto decode(u64 raw, const Ctx& c, const std::array<float, 256>* lut) noexcept {
  if constexpr (T == MfmaType::f32) {
    return f32(static_cast<u32>(raw));
  } else if constexpr (T == MfmaType::xf32) {
    u32 b = static_cast<u32>(raw);
    if ((b & 0x7f800000u) != 0x7f800000u) b = (b + 0xfffu + ((b >> 13) & 1u)) & ~0x1fffu;  // 10-bit significand, RNE
    return f32(b);
  } else if constexpr (T == MfmaType::f16) {
    u32 h = static_cast<u32>(raw);
    if (c.ftz16 && (h & 0x7c00u) == 0) h &= 0x8000u;
    return f16_to_f32(static_cast<std::uint16_t>(h));
  } else if constexpr (T == MfmaType::bf16) {
    u32 h = static_cast<u32>(raw);
    if (c.ftz16 && (h & 0x7f80u) == 0) h &= 0x8000u;
    return bf16_to_f32(static_cast<std::uint16_t>(h));
  } else if constexpr (T == MfmaType::fp8 || T == MfmaType::bf8) {
    return (*lut)[raw & 0xffu];
  } else if constexpr (T == MfmaType::i8) {
    return static_cast<std::int32_t>(static_cast<std::int8_t>(raw & 0xffu));
  } else if constexpr (T == MfmaType::f64) {
    return f64(raw);
  } else {
    return static_cast<std::int32_t>(static_cast<u32>(raw));
  }
}

template <MfmaType CD>
using acc_t = std::conditional_t<CD == MfmaType::f64, double, std::conditional_t<CD == MfmaType::i32, u32, float>>;

/// Reads `n` consecutive dwords of a source operand.
template <unsigned N>
inline void gather_rows(const Wave& w, const Slot& s, Rows<N>& out) noexcept {
  for (unsigned d = 0; d < N; ++d) out.r[d] = w.lanes(s, out.tmp[d], d);
}

[[nodiscard]] inline bool fits(const Slot& s, unsigned dwords, bool allow_const) noexcept {
  if (s.kind == Slot::Kind::vgpr) return s.index + dwords <= temp_row0 && s.dwords >= dwords;
  return allow_const && (s.kind == Slot::Kind::constant || s.kind == Slot::Kind::scalar);
}

template <Geom G>
inline void mfma_exec(Wave& w, const Op& op) {
  constexpr unsigned M = G.m, N = G.n, K = G.k, B = G.blocks;
  constexpr unsigned WA = width(G.a), WB = width(G.b), WC = width(G.cd);
  constexpr unsigned KA = G.sparse ? K / 2 : K;            // stored A columns
  constexpr unsigned EA = KA / (64 / (M * B));             // A elements per lane
  constexpr unsigned EB = K / (64 / (N * B));              // B elements per lane
  constexpr unsigned DA = (EA * WA + 31) / 32, DB = (EB * WB + 31) / 32;
  constexpr unsigned DC = M * N * B * (WC / 32) / 64;      // C/D dwords per lane
  constexpr unsigned H = WC == 64 ? 1 : 4, R = 64 / N;
  constexpr unsigned P = (64 + (M * N / H) - 1) / (M * N / H);
  static_assert(EA >= 1 && EB >= 1 && DC >= 1, "geometry");
  using Acc = acc_t<G.cd>;

  const Target target = w.machine ? w.machine->target : Target::gfx942;
  if (w.exec() != ~0ull) {
    w.stop_with(Stop::Kind::unsupported, op, std::string(op.mnemonic()) + " with a partial EXEC is not emulated");
    return;
  }
  const Slot& d = op.at(Name::vdst);
  const Slot& sa = op.at(Name::src0);
  const Slot& sb = op.at(Name::src1);
  const Slot& sc = G.sparse ? d : op.at(Name::src2);
  // SMFMAC: the index operand must be an architected VGPR (calculator README, sparse example).
  const bool idx_ok = !G.sparse || (op.at(Name::idx).kind == Slot::Kind::vgpr && op.at(Name::idx).index < agpr_row0);
  if (!idx_ok || !fits(d, DC, false) || !fits(sa, DA, true) || !fits(sb, DB, true) || !fits(sc, DC, true)) {
    w.stop_with(Stop::Kind::illegal, op, std::string(op.mnemonic()) + ": operand registers do not fit the opcode");
    return;
  }
  const unsigned cbsz = static_cast<unsigned>(op.imm(Name::cbsz)), abid = static_cast<unsigned>(op.imm(Name::abid));
  unsigned blgp = static_cast<unsigned>(op.imm(Name::blgp));
  unsigned neg = 0;  // bit 0 A, bit 1 B, bit 2 C
  // Which modifiers an opcode takes: [CALC dict_insts 'cbsz_abid'/'blgp'] (multi-block forms and the single-block
  // f32 forms take BLGP; only multi-block forms broadcast with CBSZ/ABID; SMFMAC uses CBSZ/ABID for the index set).
  if constexpr (G.a == MfmaType::f64) {
    if (target != Target::gfx90a) { neg = blgp; blgp = 0; }
  }
  bool ok = true;
  if constexpr (G.sparse) {
    constexpr unsigned sets = WA == 16 ? 4 : 2;  // [CALC get_num_compression_sets]
    ok = blgp == 0 && (cbsz != 0 || abid < sets);
  } else {
    const bool blgp_ok = G.a == MfmaType::f64 ? target != Target::gfx90a
                                               : (B > 1 || G.a == MfmaType::f32 || target == Target::gfx90a);
    const unsigned max_bcast = G.a == MfmaType::f64 ? 1 : B;  // f64: no CBSZ/ABID [CALC dict_insts cbsz_abid]
    ok = (blgp == 0 || blgp_ok) && cbsz < 8 && (1u << cbsz) <= max_bcast && abid < (1u << cbsz);
  }
  if (!ok) {
    w.stop_with(Stop::Kind::illegal, op, std::string(op.mnemonic()) + ": cbsz/abid/blgp value not supported by this opcode");
    return;
  }

  Ctx ctx;
  ctx.ftz16 = target == Target::gfx90a && (G.a == MfmaType::f16 || G.a == MfmaType::bf16);
  const bool ocp = target == Target::gfx950;
  if constexpr (G.a == MfmaType::fp8 || G.a == MfmaType::bf8)
    ctx.fp8a = &fp8_table(G.a == MfmaType::fp8 ? (ocp ? Fp8::e4m3 : Fp8::e4m3fnuz) : (ocp ? Fp8::e5m2 : Fp8::e5m2fnuz));
  if constexpr (G.b == MfmaType::fp8 || G.b == MfmaType::bf8)
    ctx.fp8b = &fp8_table(G.b == MfmaType::fp8 ? (ocp ? Fp8::e4m3 : Fp8::e4m3fnuz) : (ocp ? Fp8::e5m2 : Fp8::e5m2fnuz));

  using In = decltype(decode<G.a>(0, ctx, nullptr));
  // Gather A as [block][row][stored column], B as [block][k][column].
  Rows<DA> ra;
  Rows<DB> rb;
  Rows<DC> rc;
  gather_rows(w, sa, ra);
  gather_rows(w, sb, rb);
  gather_rows(w, sc, rc);
  alignas(64) In am[B][M][KA];
  alignas(64) In bm[B][K][N];
  alignas(64) std::uint8_t kcol[G.sparse ? M : 1][G.sparse ? KA : 1];
  alignas(64) Acc acc[B][M][N];

  for (unsigned l = 0; l < wave_lanes; ++l) {
    const unsigned grp = l / (M * B), blk = (l / M) % B, i = l % M;
    for (unsigned e = 0; e < EA; ++e) am[blk][i][grp * EA + e] = decode<G.a>(element<WA>(ra, l, e), ctx, ctx.fp8a);
  }
  if constexpr (G.sparse) {
    alignas(64) u32 itmp[wave_lanes];
    const u32* idx = w.lanes(op.at(Name::idx), itmp);
    const unsigned shift = cbsz != 0 ? 0 : abid * (WA == 16 ? 8 : 16);
    for (unsigned l = 0; l < wave_lanes; ++l) {
      const unsigned grp = l / M, i = l % M;
      for (unsigned e = 0; e < EA; ++e) {
        const unsigned c = grp * EA + e;
        const unsigned sel = (idx[l] >> (shift + 4 * (e / 2) + 2 * (e % 2))) & 3u;
        kcol[i][c] = static_cast<std::uint8_t>(4 * (c / 2) + sel);
      }
    }
  }
  for (unsigned p = 0; p < wave_lanes; ++p) {
    const unsigned grp = p / (N * B), blk = (p / N) % B, j = p % N;
    const unsigned src = blgp_lane(p, blgp);
    for (unsigned e = 0; e < EB; ++e) bm[blk][grp * EB + e][j] = decode<G.b>(element<WB>(rb, src, e), ctx, ctx.fp8b);
  }
  if constexpr (G.a == MfmaType::f64) {
    if (neg & 1u) for (auto& x : am) for (auto& y : x) for (auto& z : y) z = -z;
    if (neg & 2u) for (auto& x : bm) for (auto& y : x) for (auto& z : y) z = -z;
  }

  // C: the output layout, read.
  auto out_pos = [](unsigned b, unsigned i, unsigned j, unsigned& reg, unsigned& lane) {
    reg = b * (M * N / 64) + (i / (H * R)) * H + i % H;
    lane = (b % P) * N + ((i / H) % R) * P * N + j;
  };
  for (unsigned b = 0; b < B; ++b)
    for (unsigned i = 0; i < M; ++i)
      for (unsigned j = 0; j < N; ++j) {
        unsigned reg, lane;
        out_pos(b, i, j, reg, lane);
        if constexpr (WC == 64) {
          double c = f64(rc.r[2 * reg][lane] | static_cast<u64>(rc.r[2 * reg + 1][lane]) << 32);
          acc[b][i][j] = (neg & 4u) ? -c : c;
        } else if constexpr (G.cd == MfmaType::i32) {
          acc[b][i][j] = rc.r[reg][lane];
        } else {
          float c = f32(rc.r[reg][lane]);
          acc[b][i][j] = ctx.ftz16 ? flush_denorm_f32(c) : c;
        }
      }

  // The products: for each output row, the k loop outside and the column loop inside (each output still adds its
  // products in increasing k order, and the inner loop vectorises).
  for (unsigned b = 0; b < B; ++b) {
    const unsigned ab = G.sparse ? 0 : (b >> cbsz << cbsz) + abid;
    for (unsigned i = 0; i < M; ++i) {
      const In* arow = am[ab][i];
      Acc* __restrict out = acc[b][i];
      for (unsigned c = 0; c < KA; ++c) {
        const In a = arow[c];
        const In* __restrict brow = bm[b][G.sparse ? kcol[i][c] : c];
        if constexpr (G.cd == MfmaType::i32) {
          for (unsigned j = 0; j < N; ++j) out[j] += static_cast<u32>(a * brow[j]);
        } else if constexpr (G.a == MfmaType::f32 || G.a == MfmaType::f64) {
          for (unsigned j = 0; j < N; ++j) out[j] = std::fma(a, brow[j], out[j]);
        } else {
          // Products of f16/bf16/fp8/bf8/xf32 values are exact in f32, so product-then-add is the fused result.
          for (unsigned j = 0; j < N; ++j) out[j] = out[j] + a * brow[j];
        }
      }
    }
  }

  // D: scatter.
  for (unsigned b = 0; b < B; ++b)
    for (unsigned i = 0; i < M; ++i)
      for (unsigned j = 0; j < N; ++j) {
        unsigned reg, lane;
        out_pos(b, i, j, reg, lane);
        if constexpr (WC == 64) {
          u64 v = bits64(acc[b][i][j]);
          if (is_nan_f64(v)) v = default_nan_f64;
          w.v[d.index + 2 * reg][lane] = static_cast<u32>(v);
          w.v[d.index + 2 * reg + 1][lane] = static_cast<u32>(v >> 32);
        } else if constexpr (G.cd == MfmaType::i32) {
          w.v[d.index + reg][lane] = acc[b][i][j];
        } else {
          float r = acc[b][i][j];
          if (ctx.ftz16) r = flush_denorm_f32(r);
          u32 v = bits(r);
          if (is_nan_f32(v)) v = default_nan_f32;
          w.v[d.index + reg][lane] = v;
        }
      }
}

template <Geom G>
inline constexpr Exec mfma = &mfma_exec<G>;

using MT = MfmaType;
inline constexpr std::string_view note_float =
    "matrix-core summation order/precision undocumented: modeled as C plus the products in k order, one f32 RNE "
    "rounding per add (products exact or fused); NaN results are the default NaN";
inline constexpr std::string_view note_f32 =
    "matrix-core summation order undocumented: modeled as fused multiply-adds in k order (one rounding each); NaN "
    "results are the default NaN";
inline constexpr std::string_view note_f64 =
    "DGEMM summation order undocumented: modeled as f64 fused multiply-adds in k order; NaN results are the default NaN";
inline constexpr std::string_view note_xf32 =
    "xf32 input rounding (RNE to a 10-bit significand) and summation order undocumented; see sem_mfma.hpp";
inline constexpr std::string_view note_fp8 =
    "fp8/bf8 (NUZ on gfx942, OCP on gfx950) products exact; summation order/precision undocumented: modeled as f32 "
    "RNE adds in k order";
inline constexpr std::string_view note_sparse =
    "SMFMAC: stored A values times the B rows their indices select, added to D in stored order with one f32 RNE "
    "rounding per add (summation order undocumented)";

#define ASMEVO_MFMA(name, m, n, k, b, ta, tb, tc, sp, ex, note) \
  Semantics{name, mfma<Geom{m, n, k, b, MT::ta, MT::tb, MT::tc, sp}>, Exactness::ex, note}

// Geometry per opcode: [CALC dict_insts] cdna2 (gfx90a spellings) and cdna3 (gfx942 spellings; gfx950 shares them).
inline constexpr Semantics mfma_table[] = {
    // gfx90a
    ASMEVO_MFMA("v_mfma_f32_32x32x1f32", 32, 32, 1, 2, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA("v_mfma_f32_16x16x1f32", 16, 16, 1, 4, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA("v_mfma_f32_4x4x1f32", 4, 4, 1, 16, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA("v_mfma_f32_32x32x2f32", 32, 32, 2, 1, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA("v_mfma_f32_16x16x4f32", 16, 16, 4, 1, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA("v_mfma_f32_32x32x4f16", 32, 32, 4, 2, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_16x16x4f16", 16, 16, 4, 4, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_4x4x4f16", 4, 4, 4, 16, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_32x32x8f16", 32, 32, 8, 1, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_16x16x16f16", 16, 16, 16, 1, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_32x32x2bf16", 32, 32, 2, 2, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_16x16x2bf16", 16, 16, 2, 4, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_4x4x2bf16", 4, 4, 2, 16, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_32x32x4bf16", 32, 32, 4, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_16x16x8bf16", 16, 16, 8, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_32x32x4bf16_1k", 32, 32, 4, 2, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_16x16x4bf16_1k", 16, 16, 4, 4, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_4x4x4bf16_1k", 4, 4, 4, 16, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_32x32x8bf16_1k", 32, 32, 8, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_16x16x16bf16_1k", 16, 16, 16, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_i32_32x32x4i8", 32, 32, 4, 2, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA("v_mfma_i32_16x16x4i8", 16, 16, 4, 4, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA("v_mfma_i32_4x4x4i8", 4, 4, 4, 16, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA("v_mfma_i32_32x32x8i8", 32, 32, 8, 1, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA("v_mfma_i32_16x16x16i8", 16, 16, 16, 1, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA("v_mfma_f64_16x16x4f64", 16, 16, 4, 1, f64, f64, f64, false, approximate, note_f64),
    ASMEVO_MFMA("v_mfma_f64_4x4x4f64", 4, 4, 4, 4, f64, f64, f64, false, approximate, note_f64),
    // gfx942 (and gfx950)
    ASMEVO_MFMA("v_mfma_f32_32x32x1_2b_f32", 32, 32, 1, 2, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA("v_mfma_f32_16x16x1_4b_f32", 16, 16, 1, 4, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA("v_mfma_f32_4x4x1_16b_f32", 4, 4, 1, 16, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA("v_mfma_f32_32x32x2_f32", 32, 32, 2, 1, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA("v_mfma_f32_16x16x4_f32", 16, 16, 4, 1, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA("v_mfma_f32_32x32x4_2b_f16", 32, 32, 4, 2, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_16x16x4_4b_f16", 16, 16, 4, 4, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_4x4x4_16b_f16", 4, 4, 4, 16, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_32x32x8_f16", 32, 32, 8, 1, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_16x16x16_f16", 16, 16, 16, 1, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_32x32x4_2b_bf16", 32, 32, 4, 2, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_16x16x4_4b_bf16", 16, 16, 4, 4, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_4x4x4_16b_bf16", 4, 4, 4, 16, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_32x32x8_bf16", 32, 32, 8, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_f32_16x16x16_bf16", 16, 16, 16, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA("v_mfma_i32_32x32x4_2b_i8", 32, 32, 4, 2, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA("v_mfma_i32_16x16x4_4b_i8", 16, 16, 4, 4, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA("v_mfma_i32_4x4x4_16b_i8", 4, 4, 4, 16, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA("v_mfma_i32_32x32x16_i8", 32, 32, 16, 1, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA("v_mfma_i32_16x16x32_i8", 16, 16, 32, 1, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA("v_mfma_f32_32x32x4_xf32", 32, 32, 4, 1, xf32, xf32, f32, false, approximate, note_xf32),
    ASMEVO_MFMA("v_mfma_f32_16x16x8_xf32", 16, 16, 8, 1, xf32, xf32, f32, false, approximate, note_xf32),
    ASMEVO_MFMA("v_mfma_f64_16x16x4_f64", 16, 16, 4, 1, f64, f64, f64, false, approximate, note_f64),
    ASMEVO_MFMA("v_mfma_f64_4x4x4_4b_f64", 4, 4, 4, 4, f64, f64, f64, false, approximate, note_f64),
    ASMEVO_MFMA("v_mfma_f32_32x32x16_fp8_fp8", 32, 32, 16, 1, fp8, fp8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA("v_mfma_f32_32x32x16_fp8_bf8", 32, 32, 16, 1, fp8, bf8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA("v_mfma_f32_32x32x16_bf8_fp8", 32, 32, 16, 1, bf8, fp8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA("v_mfma_f32_32x32x16_bf8_bf8", 32, 32, 16, 1, bf8, bf8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA("v_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, 1, fp8, fp8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA("v_mfma_f32_16x16x32_fp8_bf8", 16, 16, 32, 1, fp8, bf8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA("v_mfma_f32_16x16x32_bf8_fp8", 16, 16, 32, 1, bf8, fp8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA("v_mfma_f32_16x16x32_bf8_bf8", 16, 16, 32, 1, bf8, bf8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA("v_smfmac_f32_16x16x32_f16", 16, 16, 32, 1, f16, f16, f32, true, approximate, note_sparse),
    ASMEVO_MFMA("v_smfmac_f32_32x32x16_f16", 32, 32, 16, 1, f16, f16, f32, true, approximate, note_sparse),
    ASMEVO_MFMA("v_smfmac_f32_16x16x32_bf16", 16, 16, 32, 1, bf16, bf16, f32, true, approximate, note_sparse),
    ASMEVO_MFMA("v_smfmac_f32_32x32x16_bf16", 32, 32, 16, 1, bf16, bf16, f32, true, approximate, note_sparse),
    ASMEVO_MFMA("v_smfmac_i32_16x16x64_i8", 16, 16, 64, 1, i8, i8, i32, true, exact, {}),
    ASMEVO_MFMA("v_smfmac_i32_32x32x32_i8", 32, 32, 32, 1, i8, i8, i32, true, exact, {}),
    ASMEVO_MFMA("v_smfmac_f32_16x16x64_fp8_fp8", 16, 16, 64, 1, fp8, fp8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA("v_smfmac_f32_16x16x64_fp8_bf8", 16, 16, 64, 1, fp8, bf8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA("v_smfmac_f32_16x16x64_bf8_fp8", 16, 16, 64, 1, bf8, fp8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA("v_smfmac_f32_16x16x64_bf8_bf8", 16, 16, 64, 1, bf8, bf8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA("v_smfmac_f32_32x32x32_fp8_fp8", 32, 32, 32, 1, fp8, fp8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA("v_smfmac_f32_32x32x32_fp8_bf8", 32, 32, 32, 1, fp8, bf8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA("v_smfmac_f32_32x32x32_bf8_fp8", 32, 32, 32, 1, bf8, fp8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA("v_smfmac_f32_32x32x32_bf8_bf8", 32, 32, 32, 1, bf8, bf8, f32, true, approximate, note_sparse),
};

#undef ASMEVO_MFMA

}  // namespace detail::mfma

/// The matrix-core semantics (gfx950-only opcodes — f8f6f4, the new dense/sparse f16/bf16/i8 shapes,
/// v_mfma_ld_scale_b32 — are not implemented and run as unsupported).
[[nodiscard]] inline std::span<const Semantics> mfma_semantics() { return detail::mfma::mfma_table; }

}  // namespace asmevo::emu
