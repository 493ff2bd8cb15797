// The matrix-core semantics: every MFMA and SMFMAC opcode of gfx90a, gfx942 and gfx950 (v_mfma_ld_scale_b32 aside).
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
// gfx950 (CDNA4). The calculator has no CDNA4 table (its newest README and AGENTS.md cover CDNA1-3), so:
//  - The new dense shapes (16x16x32 and 32x32x16 f16/bf16, 16x16x64 and 32x32x32 i8; 128 bits of A/B per lane)
//    and the new SMFMAC shapes use the rule above unchanged (lane group g holds E consecutive k), as AMD's CDNA4
//    blog (rocm.blogs.amd.com "Matrix Core Programming on AMD CDNA3 and CDNA4 architecture", 2025, by AMD; cited
//    as [BLOG]) draws every 128-bit operand. For the dense forms only the row/column placement is observable: a K
//    order that A and B share changes nothing but the summation order. SMFMAC B operands of 256 bits per lane are
//    read the same way (lane group g holds the dense k that A's lane group g indexes); inferred, not documented in
//    a source stored here.
//  - gfx950 SMFMAC index sets: 2 bits per stored A value, so a lane's set has 2*E bits: 16 bits (ABID 0-1) for the
//    16-bit forms, all 32 bits (ABID 0 only) for the 8-bit forms (LLVM PR #193541 "Correct gfx950 smfmac sparse
//    index verifier", after the CDNA4 ISA layout tables).
//  - v_mfma_[scale_]f32_{16x16x128,32x32x64}_f8f6f4 [BLOG §5.4-5.5, LLVM VOP3PInstructions.td
//    MAIInst_SrcFormats_mc]: CBSZ and BLGP are not broadcast controls but the A and B formats (0 fp8 E4M3, 1 bf8
//    E5M2, 2 fp6 E2M3, 3 bf6 E3M2, 4 fp4 E2M1; fp_mx.hpp), with 8, 6 or 4 registers. Each lane holds 32 elements of
//    row i = lane % M (A) or column j = lane % N (B); lane group g = lane / M. fp4: element e is k = 32*g + e, nibble
//    e (low nibble first) of the 4 registers [BLOG Figure 10 and its kernel]. fp8/bf8: element e is
//    k = (e / 16) * K/2 + 16*g + e % 16, byte e of the 8 registers [BLOG Figure 9 and its kernel: two K/2 halves].
//    fp6/bf6: their register layout is in no source stored here; those formats stop as unsupported.
//  - Scales (v_mfma_scale_*) [BLOG §5.4; LLVM ScaledMAIInst]: scale_src0/scale_src1 are VGPRs of E8M0 bytes; the
//    scale of A row i for K block kb (32 elements) sits in lane kb*M + i, of B column j in lane kb*N + j (one scale
//    per lane: "each thread stores 1 entry from the matrix Ax"), byte op_sel[n] + 2*op_sel_hi[n] of the register
//    (n = 0 for A, 1 for B; LLVM 22 llc maps the intrinsic's byte index 1/2/3 to op_sel / op_sel_hi / both).
//    Constant or SGPR scales stop as unsupported (LLVM ScaledMAIInst: the hardware then reads bits [30:23]).
//    The scales multiply each block's dot product before it is added to the accumulator [BLOG §5.4].
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
//  - fp8/bf8 inputs are the NUZ formats on gfx942 and OCP E4M3/E5M2 on gfx950 (support/float_formats.hpp Fp8).
//  - f8f6f4: per output, each 32-element K block is summed in k order from +0 in f32 (products exact), multiplied
//    by 2^(scale_a + scale_b - 254) with one rounding to f32 (1 for the unscaled forms; a NaN scale makes the block
//    NaN) and added to the accumulator with one f32 RNE rounding, blocks in k order.
// The emulator stops (unsupported) when EXEC is not all ones: what the matrix core does with inactive lanes is not
// modeled. CBSZ/ABID/BLGP values the calculator marks as not supported for an opcode stop as illegal.

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include "asmevo/analysis/mfma_info.hpp"
#include "asmevo/emu/fp_valu.hpp"
#include "asmevo/emu/fp_mx.hpp"
#include "asmevo/emu/machine.hpp"

namespace asmevo::emu {

// The MFMA facts live in analysis/ (the hazard rules need them too); the emulator names them emu::.
using analysis::mfma_info;
using analysis::MfmaInfo;
using analysis::MfmaType;

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
  // SMFMAC index sets: 2 bits per stored A value of a lane; gfx942 [CALC get_num_compression_sets]: 4 sets of 8
  // bits (16-bit inputs), 2 of 16 (8-bit); gfx950 (LLVM PR #193541): 2 of 16 bits, 1 of 32.
  constexpr unsigned idx_bits = 2 * EA, idx_sets = 32 / idx_bits;
  if constexpr (G.sparse) {
    ok = blgp == 0 && (cbsz != 0 || abid < idx_sets);
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
    const unsigned shift = cbsz != 0 ? 0 : abid * idx_bits;
    for (unsigned l = 0; l < wave_lanes; ++l) {
      const unsigned grp = l / M, i = l % M;
      for (unsigned e = 0; e < EA; ++e) {
        const unsigned c = grp * EA + e;
        const unsigned sel = (idx[l] >> (shift + 2 * e)) & 3u;  // bits [4*(e/2) + 2*(e%2) + 1 : ...]
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

/// The slot of the form's operand called `name` (the scaled forms' operands that have no canonical Name), or null.
[[nodiscard]] inline const Slot* form_slot(const Op& op, std::string_view name) noexcept {
  if (!op.info) return nullptr;
  const auto infos = isa::operands(*op.info);
  for (std::size_t k = 0; k < infos.size() && k < op.nslots; ++k)
    if (infos[k].name == name) return &op.slots[k];
  return nullptr;
}

/// Raw element `e` (of `bits` = 4, 6 or 8) of a lane's consecutive registers, packed from bit 0 up.
[[nodiscard]] inline unsigned packed_element(const u32* const* r, unsigned lane, unsigned e, unsigned bits) noexcept {
  const unsigned bit = e * bits, d = bit / 32, sh = bit % 32;
  u64 x = r[d][lane] >> sh;
  if (sh + bits > 32) x |= static_cast<u64>(r[d + 1][lane]) << (32 - sh);
  return static_cast<unsigned>(x) & ((1u << bits) - 1u);
}

/// v_mfma_f32_{16x16x128,32x32x64}_f8f6f4 and their v_mfma_scale_ forms (layouts and numerics: file header).
template <unsigned M, unsigned K, bool Scaled>
inline void f8f6f4_exec(Wave& w, const Op& op) {
  constexpr unsigned N = M, G = 64 / M, KB = K / 32, DC = M * N / 64, H = 4, R = 64 / N;
  static_assert(KB == G && G * 32 == K, "one 32-element scale block per lane group");
  if (w.exec() != ~0ull) {
    w.stop_with(Stop::Kind::unsupported, op, std::string(op.mnemonic()) + " with a partial EXEC is not emulated");
    return;
  }
  const unsigned fa = static_cast<unsigned>(op.imm(Name::cbsz)), fb = static_cast<unsigned>(op.imm(Name::blgp));
  if (fa > 4 || fb > 4) {
    w.stop_with(Stop::Kind::illegal, op, std::string(op.mnemonic()) + ": cbsz/blgp " + std::to_string(fa) + "/" +
                                             std::to_string(fb) + " name no f8f6f4 format (0-4)");
    return;
  }
  const auto fmt_a = static_cast<MxFormat>(fa), fmt_b = static_cast<MxFormat>(fb);
  auto is6 = [](MxFormat f) { return f == MxFormat::fp6 || f == MxFormat::bf6; };
  if (is6(fmt_a) || is6(fmt_b)) {
    w.stop_with(Stop::Kind::unsupported, op,
                std::string(op.mnemonic()) + ": fp6/bf6 operands (cbsz/blgp 2 or 3) are not emulated: their register "
                                             "layout is not established from a source (see sem_mfma.hpp)");
    return;
  }
  const unsigned ba = mx_bits(fmt_a), bb = mx_bits(fmt_b);  // 32 elements per lane: `bits` registers
  const Slot& d = op.at(Name::vdst);
  const Slot& sa = op.at(Name::src0);
  const Slot& sb = op.at(Name::src1);
  const Slot& sc = op.at(Name::src2);
  if (!fits(d, DC, false) || !fits(sa, ba, false) || !fits(sb, bb, false) || !fits(sc, DC, true)) {
    w.stop_with(Stop::Kind::illegal, op, std::string(op.mnemonic()) + ": operand registers do not fit the opcode and formats");
    return;
  }
  // Scales: E8M0 exponents per (row, block) and (block, column).
  int ea[M][KB] = {}, eb[KB][N] = {};
  bool nan_a[M][KB] = {}, nan_b[KB][N] = {};
  if constexpr (Scaled) {
    const Slot* s0 = form_slot(op, "scale_src0");
    const Slot* s1 = form_slot(op, "scale_src1");
    const Slot* m0 = form_slot(op, "src0_modifiers");  // op_sel bits
    const Slot* m1 = form_slot(op, "src1_modifiers");  // op_sel_hi bits
    if (!s0 || !s1 || s0->kind != Slot::Kind::vgpr || s1->kind != Slot::Kind::vgpr || s0->index >= agpr_row0 ||
        s1->index >= agpr_row0) {  // VRegSrc_32: architected VGPRs only
      w.stop_with(Stop::Kind::unsupported, op,
                  std::string(op.mnemonic()) + ": scale operands other than VGPRs are not emulated (LLVM "
                                               "ScaledMAIInst: the hardware then reads bits [30:23])");
      return;
    }
    const unsigned lo = m0 ? static_cast<unsigned>(m0->value) : 0u, hi = m1 ? static_cast<unsigned>(m1->value) : 0u;
    const unsigned byte_a = (lo & 1u) | (hi & 1u) << 1, byte_b = (lo >> 1 & 1u) | (hi >> 1 & 1u) << 1;
    const u32* va = w.v[s0->index];
    const u32* vb = w.v[s1->index];
    for (unsigned kb = 0; kb < KB; ++kb) {
      for (unsigned i = 0; i < M; ++i) {
        const E8m0 s = e8m0_decode(static_cast<std::uint8_t>(va[kb * M + i] >> (8 * byte_a)));
        ea[i][kb] = s.exp;
        nan_a[i][kb] = s.nan;
      }
      for (unsigned j = 0; j < N; ++j) {
        const E8m0 s = e8m0_decode(static_cast<std::uint8_t>(vb[kb * N + j] >> (8 * byte_b)));
        eb[kb][j] = s.exp;
        nan_b[kb][j] = s.nan;
      }
    }
  }

  Rows<8> ra, rb;
  Rows<DC> rc;
  for (unsigned r = 0; r < ba; ++r) ra.r[r] = w.lanes(sa, ra.tmp[r], r);
  for (unsigned r = 0; r < bb; ++r) rb.r[r] = w.lanes(sb, rb.tmp[r], r);
  gather_rows(w, sc, rc);

  // Decode A as [row][k], B as [k][column].
  static constexpr auto fp4 = mx_table(MxFormat::fp4);
  auto table = [](MxFormat f) -> const float* {
    if (f == MxFormat::fp8) return fp8_table(Fp8::e4m3).data();
    if (f == MxFormat::bf8) return fp8_table(Fp8::e5m2).data();
    return fp4.data();
  };
  const float* lut_a = table(fmt_a);
  const float* lut_b = table(fmt_b);
  auto kpos = [](unsigned bits, unsigned g, unsigned e) {
    return bits == 8 ? (e / 16) * (K / 2) + 16 * g + e % 16 : 32 * g + e;
  };
  alignas(64) float am[M][K];
  alignas(64) float bm[K][N];
  for (unsigned l = 0; l < wave_lanes; ++l) {
    const unsigned g = l / M, x = l % M;
    for (unsigned e = 0; e < 32; ++e) {
      am[x][kpos(ba, g, e)] = lut_a[packed_element(ra.r.data(), l, e, ba)];
      bm[kpos(bb, g, e)][x] = lut_b[packed_element(rb.r.data(), l, e, bb)];
    }
  }

  auto out_pos = [](unsigned i, unsigned j, unsigned& reg, unsigned& lane) {
    reg = (i / (H * R)) * H + i % H;
    lane = ((i / H) % R) * N + j;
  };
  alignas(64) float acc[M][N];
  for (unsigned i = 0; i < M; ++i)
    for (unsigned j = 0; j < N; ++j) {
      unsigned reg, lane;
      out_pos(i, j, reg, lane);
      acc[i][j] = f32(rc.r[reg][lane]);
    }
  for (unsigned i = 0; i < M; ++i)
    for (unsigned kb = 0; kb < KB; ++kb) {
      alignas(64) float s[N] = {};
      for (unsigned k = kb * 32; k < kb * 32 + 32; ++k) {
        const float a = am[i][k];
        const float* __restrict brow = bm[k];
        for (unsigned j = 0; j < N; ++j) s[j] = s[j] + a * brow[j];  // products exact in f32
      }
      for (unsigned j = 0; j < N; ++j) {
        float blk = s[j];
        if constexpr (Scaled) {
          if (nan_a[i][kb] || nan_b[kb][j]) blk = f32(default_nan_f32);
          else blk = static_cast<float>(std::ldexp(static_cast<double>(blk), ea[i][kb] + eb[kb][j]));
        }
        acc[i][j] = acc[i][j] + blk;
      }
    }
  for (unsigned i = 0; i < M; ++i)
    for (unsigned j = 0; j < N; ++j) {
      unsigned reg, lane;
      out_pos(i, j, reg, lane);
      u32 v = bits(acc[i][j]);
      if (is_nan_f32(v)) v = default_nan_f32;
      w.v[d.index + reg][lane] = v;
    }
}

template <unsigned M, unsigned K, bool Scaled>
inline constexpr Exec f8f6f4 = &f8f6f4_exec<M, K, Scaled>;

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

inline constexpr std::string_view note_f8f6f4 =
    "f8f6f4 (gfx950): per 32-element K block an f32 RNE sum in k order, scaled (E8M0 pair) and added with one f32 "
    "RNE rounding (summation order/precision undocumented); fp6/bf6 formats stop as unsupported (layout unsourced)";
inline constexpr std::string_view note_950 =
    "gfx950 shape: lane layout by the CDNA3 rule (calculator, AMD CDNA4 blog), not from a CDNA4 table; summation "
    "order/precision undocumented: modeled as f32 RNE adds in k order";
inline constexpr std::string_view note_950_i8 = "gfx950 shape: lane layout by the CDNA3 rule (calculator, AMD CDNA4 blog), "
                                                "not from a CDNA4 table; the i32 sums are exact (mod 2^32)";
inline constexpr std::string_view note_950_sparse =
    "gfx950 SMFMAC: index sets per LLVM PR #193541; 256-bit B read by the CDNA3 rule (inferred); products added to D "
    "in stored order with one f32 RNE rounding per add (summation order undocumented)";
inline constexpr std::string_view note_950_sparse_i8 =
    "gfx950 SMFMAC: i32 sums exact, but the 256-bit B operand is read by the CDNA3 rule, an inference no stored "
    "source confirms (index sets per LLVM PR #193541)";

#define ASMEVO_MFMA(name, m, n, k, b, ta, tb, tc, sp, ex, note) \
  Semantics{name, mfma<Geom{m, n, k, b, MT::ta, MT::tb, MT::tc, sp}>, Exactness::ex, note}

// Geometry per opcode: [CALC dict_insts] cdna2 (gfx90a spellings) and cdna3 (gfx942 spellings; gfx950 shares them).
inline constexpr Semantics mfma_table[] = {
    // gfx90a
    ASMEVO_MFMA(op::v_mfma_f32_32x32x1f32, 32, 32, 1, 2, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x1f32, 16, 16, 1, 4, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA(op::v_mfma_f32_4x4x1f32, 4, 4, 1, 16, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x2f32, 32, 32, 2, 1, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x4f32, 16, 16, 4, 1, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x4f16, 32, 32, 4, 2, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x4f16, 16, 16, 4, 4, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_4x4x4f16, 4, 4, 4, 16, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x8f16, 32, 32, 8, 1, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x16f16, 16, 16, 16, 1, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x2bf16, 32, 32, 2, 2, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x2bf16, 16, 16, 2, 4, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_4x4x2bf16, 4, 4, 2, 16, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x4bf16, 32, 32, 4, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x8bf16, 16, 16, 8, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x4bf16_1k, 32, 32, 4, 2, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x4bf16_1k, 16, 16, 4, 4, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_4x4x4bf16_1k, 4, 4, 4, 16, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x8bf16_1k, 32, 32, 8, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x16bf16_1k, 16, 16, 16, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_i32_32x32x4i8, 32, 32, 4, 2, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA(op::v_mfma_i32_16x16x4i8, 16, 16, 4, 4, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA(op::v_mfma_i32_4x4x4i8, 4, 4, 4, 16, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA(op::v_mfma_i32_32x32x8i8, 32, 32, 8, 1, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA(op::v_mfma_i32_16x16x16i8, 16, 16, 16, 1, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA(op::v_mfma_f64_16x16x4f64, 16, 16, 4, 1, f64, f64, f64, false, approximate, note_f64),
    ASMEVO_MFMA(op::v_mfma_f64_4x4x4f64, 4, 4, 4, 4, f64, f64, f64, false, approximate, note_f64),
    // gfx942 (and gfx950)
    ASMEVO_MFMA(op::v_mfma_f32_32x32x1_2b_f32, 32, 32, 1, 2, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x1_4b_f32, 16, 16, 1, 4, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA(op::v_mfma_f32_4x4x1_16b_f32, 4, 4, 1, 16, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x2_f32, 32, 32, 2, 1, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x4_f32, 16, 16, 4, 1, f32, f32, f32, false, approximate, note_f32),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x4_2b_f16, 32, 32, 4, 2, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x4_4b_f16, 16, 16, 4, 4, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_4x4x4_16b_f16, 4, 4, 4, 16, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x8_f16, 32, 32, 8, 1, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x16_f16, 16, 16, 16, 1, f16, f16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x4_2b_bf16, 32, 32, 4, 2, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x4_4b_bf16, 16, 16, 4, 4, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_4x4x4_16b_bf16, 4, 4, 4, 16, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x8_bf16, 32, 32, 8, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x16_bf16, 16, 16, 16, 1, bf16, bf16, f32, false, approximate, note_float),
    ASMEVO_MFMA(op::v_mfma_i32_32x32x4_2b_i8, 32, 32, 4, 2, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA(op::v_mfma_i32_16x16x4_4b_i8, 16, 16, 4, 4, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA(op::v_mfma_i32_4x4x4_16b_i8, 4, 4, 4, 16, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA(op::v_mfma_i32_32x32x16_i8, 32, 32, 16, 1, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA(op::v_mfma_i32_16x16x32_i8, 16, 16, 32, 1, i8, i8, i32, false, exact, {}),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x4_xf32, 32, 32, 4, 1, xf32, xf32, f32, false, approximate, note_xf32),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x8_xf32, 16, 16, 8, 1, xf32, xf32, f32, false, approximate, note_xf32),
    ASMEVO_MFMA(op::v_mfma_f64_16x16x4_f64, 16, 16, 4, 1, f64, f64, f64, false, approximate, note_f64),
    ASMEVO_MFMA(op::v_mfma_f64_4x4x4_4b_f64, 4, 4, 4, 4, f64, f64, f64, false, approximate, note_f64),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x16_fp8_fp8, 32, 32, 16, 1, fp8, fp8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x16_fp8_bf8, 32, 32, 16, 1, fp8, bf8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x16_bf8_fp8, 32, 32, 16, 1, bf8, fp8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x16_bf8_bf8, 32, 32, 16, 1, bf8, bf8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x32_fp8_fp8, 16, 16, 32, 1, fp8, fp8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x32_fp8_bf8, 16, 16, 32, 1, fp8, bf8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x32_bf8_fp8, 16, 16, 32, 1, bf8, fp8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x32_bf8_bf8, 16, 16, 32, 1, bf8, bf8, f32, false, approximate, note_fp8),
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x32_f16, 16, 16, 32, 1, f16, f16, f32, true, approximate, note_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x16_f16, 32, 32, 16, 1, f16, f16, f32, true, approximate, note_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x32_bf16, 16, 16, 32, 1, bf16, bf16, f32, true, approximate, note_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x16_bf16, 32, 32, 16, 1, bf16, bf16, f32, true, approximate, note_sparse),
    ASMEVO_MFMA(op::v_smfmac_i32_16x16x64_i8, 16, 16, 64, 1, i8, i8, i32, true, exact, {}),
    ASMEVO_MFMA(op::v_smfmac_i32_32x32x32_i8, 32, 32, 32, 1, i8, i8, i32, true, exact, {}),
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x64_fp8_fp8, 16, 16, 64, 1, fp8, fp8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x64_fp8_bf8, 16, 16, 64, 1, fp8, bf8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x64_bf8_fp8, 16, 16, 64, 1, bf8, fp8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x64_bf8_bf8, 16, 16, 64, 1, bf8, bf8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x32_fp8_fp8, 32, 32, 32, 1, fp8, fp8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x32_fp8_bf8, 32, 32, 32, 1, fp8, bf8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x32_bf8_fp8, 32, 32, 32, 1, bf8, fp8, f32, true, approximate, note_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x32_bf8_bf8, 32, 32, 32, 1, bf8, bf8, f32, true, approximate, note_sparse),
    // gfx950 only (LLVM 22 VOP3PInstructions.td, HasGFX950Insts): shapes from the mnemonics.
    ASMEVO_MFMA(op::v_mfma_f32_16x16x32_f16, 16, 16, 32, 1, f16, f16, f32, false, approximate, note_950),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x16_f16, 32, 32, 16, 1, f16, f16, f32, false, approximate, note_950),
    ASMEVO_MFMA(op::v_mfma_f32_16x16x32_bf16, 16, 16, 32, 1, bf16, bf16, f32, false, approximate, note_950),
    ASMEVO_MFMA(op::v_mfma_f32_32x32x16_bf16, 32, 32, 16, 1, bf16, bf16, f32, false, approximate, note_950),
    ASMEVO_MFMA(op::v_mfma_i32_16x16x64_i8, 16, 16, 64, 1, i8, i8, i32, false, exact, note_950_i8),
    ASMEVO_MFMA(op::v_mfma_i32_32x32x32_i8, 32, 32, 32, 1, i8, i8, i32, false, exact, note_950_i8),
    Semantics{op::v_mfma_f32_16x16x128_f8f6f4, f8f6f4<16, 128, false>, Exactness::approximate, note_f8f6f4},
    Semantics{op::v_mfma_f32_32x32x64_f8f6f4, f8f6f4<32, 64, false>, Exactness::approximate, note_f8f6f4},
    Semantics{op::v_mfma_scale_f32_16x16x128_f8f6f4, f8f6f4<16, 128, true>, Exactness::approximate, note_f8f6f4},
    Semantics{op::v_mfma_scale_f32_32x32x64_f8f6f4, f8f6f4<32, 64, true>, Exactness::approximate, note_f8f6f4},
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x64_f16, 16, 16, 64, 1, f16, f16, f32, true, approximate, note_950_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x32_f16, 32, 32, 32, 1, f16, f16, f32, true, approximate, note_950_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x64_bf16, 16, 16, 64, 1, bf16, bf16, f32, true, approximate, note_950_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x32_bf16, 32, 32, 32, 1, bf16, bf16, f32, true, approximate, note_950_sparse),
    ASMEVO_MFMA(op::v_smfmac_i32_16x16x128_i8, 16, 16, 128, 1, i8, i8, i32, true, approximate, note_950_sparse_i8),
    ASMEVO_MFMA(op::v_smfmac_i32_32x32x64_i8, 32, 32, 64, 1, i8, i8, i32, true, approximate, note_950_sparse_i8),
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x128_fp8_fp8, 16, 16, 128, 1, fp8, fp8, f32, true, approximate, note_950_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x128_fp8_bf8, 16, 16, 128, 1, fp8, bf8, f32, true, approximate, note_950_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x128_bf8_fp8, 16, 16, 128, 1, bf8, fp8, f32, true, approximate, note_950_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_16x16x128_bf8_bf8, 16, 16, 128, 1, bf8, bf8, f32, true, approximate, note_950_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x64_fp8_fp8, 32, 32, 64, 1, fp8, fp8, f32, true, approximate, note_950_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x64_fp8_bf8, 32, 32, 64, 1, fp8, bf8, f32, true, approximate, note_950_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x64_bf8_fp8, 32, 32, 64, 1, bf8, fp8, f32, true, approximate, note_950_sparse),
    ASMEVO_MFMA(op::v_smfmac_f32_32x32x64_bf8_bf8, 32, 32, 64, 1, bf8, bf8, f32, true, approximate, note_950_sparse),
};

#undef ASMEVO_MFMA

}  // namespace detail::mfma

/// The matrix-core semantics. Not implemented (runs as unsupported): gfx950's v_mfma_ld_scale_b32 on its own — the
/// first half of the 128-bit v_mfma_scale_* encoding (LLVM PR #116723: the VOP3PX encoding "bundles the pre-scale
/// v_mfma_ld_scale_b32"), whose effect as a separate instruction (which later MFMA takes its scales, for how
/// long) no source stored here states.
[[nodiscard]] inline std::span<const Semantics> mfma_semantics() { return detail::mfma::mfma_table; }

}  // namespace asmevo::emu
