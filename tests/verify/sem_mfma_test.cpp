// Tests of the matrix-core semantics (sem_mfma.hpp): every MFMA/SMFMAC form of gfx90a and gfx942 run on random
// operands and checked against a plain matrix product. The register/lane placement used here is an independent
// transcription of AMD's matrix instruction calculator (github ROCm/amd_matrix_instruction_calculator,
// matrix_calculator.py, InstCalcGfx9: __get_input_reg_lanes, __get_output_reg_lanes, _get_reg_name,
// _get_blgp_transformed_lane, _get_cbsz_abid_transformed_block), written in the calculator's direction
// (matrix element -> register and lane), and the form list is the calculator's dict_insts for cdna2/cdna3.
// gfx950 (CDNA4; the calculator has no CDNA4 table): the forms are LLVM 22's gfx950-only MFMA/SMFMAC opcodes; the
// dense and sparse f16/bf16/i8/fp8 shapes are checked with the same CDNA3 placement rule, the SMFMAC index sets as
// LLVM PR #193541 describes them, and the f8f6f4 forms with a transcription of AMD's CDNA4 matrix-core blog
// (rocm.blogs.amd.com "Matrix Core Programming on AMD CDNA3 and CDNA4 architecture", Figures 9-10 and their
// kernels). The fp8/fp6/fp4/E8M0 decoders below are written here from the OCP MX spec v1.0 and the OCP FP8 spec.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "asmevo/analysis/mfma_info.hpp"
#include "asmevo/emu/fp_mx.hpp"
#include "asmevo/emu/sem_mfma.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

enum class Ty { f32, xf32, f16, bf16, i8, i32, f64, fp8, bf8 };

struct Case {
  Opcode op;
  Target target;
  unsigned m, n, k, blocks;
  Ty a, b, cd;
  bool sparse, blgp, cbsz_abid;
  unsigned cycles;
  [[nodiscard]] std::string mnemonic() const { return std::string(op_name(op)); }
};

// matrix_calculator.py dict_insts['cdna2'] (gfx90a) and ['cdna3'] (gfx942): in_type, in_type_src1, out_type, m, n, k,
// blocks, sparse, blgp, cbsz_abid, cycles.
const Case cases[] = {
    {op::v_mfma_f32_16x16x16bf16_1k, Target::gfx90a, 16, 16, 16, 1, Ty::bf16, Ty::bf16, Ty::f32, false, true, false, 32},
    {op::v_mfma_f32_16x16x16f16, Target::gfx90a, 16, 16, 16, 1, Ty::f16, Ty::f16, Ty::f32, false, true, false, 32},
    {op::v_mfma_f32_16x16x1f32, Target::gfx90a, 16, 16, 1, 4, Ty::f32, Ty::f32, Ty::f32, false, true, true, 32},
    {op::v_mfma_f32_16x16x2bf16, Target::gfx90a, 16, 16, 2, 4, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 32},
    {op::v_mfma_f32_16x16x4bf16_1k, Target::gfx90a, 16, 16, 4, 4, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 32},
    {op::v_mfma_f32_16x16x4f16, Target::gfx90a, 16, 16, 4, 4, Ty::f16, Ty::f16, Ty::f32, false, true, true, 32},
    {op::v_mfma_f32_16x16x4f32, Target::gfx90a, 16, 16, 4, 1, Ty::f32, Ty::f32, Ty::f32, false, true, false, 32},
    {op::v_mfma_f32_16x16x8bf16, Target::gfx90a, 16, 16, 8, 1, Ty::bf16, Ty::bf16, Ty::f32, false, true, false, 32},
    {op::v_mfma_f32_32x32x1f32, Target::gfx90a, 32, 32, 1, 2, Ty::f32, Ty::f32, Ty::f32, false, true, true, 64},
    {op::v_mfma_f32_32x32x2bf16, Target::gfx90a, 32, 32, 2, 2, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 64},
    {op::v_mfma_f32_32x32x2f32, Target::gfx90a, 32, 32, 2, 1, Ty::f32, Ty::f32, Ty::f32, false, true, false, 64},
    {op::v_mfma_f32_32x32x4bf16, Target::gfx90a, 32, 32, 4, 1, Ty::bf16, Ty::bf16, Ty::f32, false, true, false, 64},
    {op::v_mfma_f32_32x32x4bf16_1k, Target::gfx90a, 32, 32, 4, 2, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 64},
    {op::v_mfma_f32_32x32x4f16, Target::gfx90a, 32, 32, 4, 2, Ty::f16, Ty::f16, Ty::f32, false, true, true, 64},
    {op::v_mfma_f32_32x32x8bf16_1k, Target::gfx90a, 32, 32, 8, 1, Ty::bf16, Ty::bf16, Ty::f32, false, true, false, 64},
    {op::v_mfma_f32_32x32x8f16, Target::gfx90a, 32, 32, 8, 1, Ty::f16, Ty::f16, Ty::f32, false, true, false, 64},
    {op::v_mfma_f32_4x4x1f32, Target::gfx90a, 4, 4, 1, 16, Ty::f32, Ty::f32, Ty::f32, false, true, true, 8},
    {op::v_mfma_f32_4x4x2bf16, Target::gfx90a, 4, 4, 2, 16, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 8},
    {op::v_mfma_f32_4x4x4bf16_1k, Target::gfx90a, 4, 4, 4, 16, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 8},
    {op::v_mfma_f32_4x4x4f16, Target::gfx90a, 4, 4, 4, 16, Ty::f16, Ty::f16, Ty::f32, false, true, true, 8},
    {op::v_mfma_f64_16x16x4f64, Target::gfx90a, 16, 16, 4, 1, Ty::f64, Ty::f64, Ty::f64, false, false, false, 32},
    {op::v_mfma_f64_4x4x4f64, Target::gfx90a, 4, 4, 4, 4, Ty::f64, Ty::f64, Ty::f64, false, false, false, 16},
    {op::v_mfma_i32_16x16x16i8, Target::gfx90a, 16, 16, 16, 1, Ty::i8, Ty::i8, Ty::i32, false, true, false, 32},
    {op::v_mfma_i32_16x16x4i8, Target::gfx90a, 16, 16, 4, 4, Ty::i8, Ty::i8, Ty::i32, false, true, true, 32},
    {op::v_mfma_i32_32x32x4i8, Target::gfx90a, 32, 32, 4, 2, Ty::i8, Ty::i8, Ty::i32, false, true, true, 64},
    {op::v_mfma_i32_32x32x8i8, Target::gfx90a, 32, 32, 8, 1, Ty::i8, Ty::i8, Ty::i32, false, true, false, 64},
    {op::v_mfma_i32_4x4x4i8, Target::gfx90a, 4, 4, 4, 16, Ty::i8, Ty::i8, Ty::i32, false, true, true, 8},
    {op::v_mfma_f32_16x16x16_bf16, Target::gfx942, 16, 16, 16, 1, Ty::bf16, Ty::bf16, Ty::f32, false, false, false, 16},
    {op::v_mfma_f32_16x16x16_f16, Target::gfx942, 16, 16, 16, 1, Ty::f16, Ty::f16, Ty::f32, false, false, false, 16},
    {op::v_mfma_f32_16x16x1_4b_f32, Target::gfx942, 16, 16, 1, 4, Ty::f32, Ty::f32, Ty::f32, false, true, true, 32},
    {op::v_mfma_f32_16x16x32_bf8_bf8, Target::gfx942, 16, 16, 32, 1, Ty::bf8, Ty::bf8, Ty::f32, false, false, false, 16},
    {op::v_mfma_f32_16x16x32_bf8_fp8, Target::gfx942, 16, 16, 32, 1, Ty::bf8, Ty::fp8, Ty::f32, false, false, false, 16},
    {op::v_mfma_f32_16x16x32_fp8_bf8, Target::gfx942, 16, 16, 32, 1, Ty::fp8, Ty::bf8, Ty::f32, false, false, false, 16},
    {op::v_mfma_f32_16x16x32_fp8_fp8, Target::gfx942, 16, 16, 32, 1, Ty::fp8, Ty::fp8, Ty::f32, false, false, false, 16},
    {op::v_mfma_f32_16x16x4_4b_bf16, Target::gfx942, 16, 16, 4, 4, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 32},
    {op::v_mfma_f32_16x16x4_4b_f16, Target::gfx942, 16, 16, 4, 4, Ty::f16, Ty::f16, Ty::f32, false, true, true, 32},
    {op::v_mfma_f32_16x16x4_f32, Target::gfx942, 16, 16, 4, 1, Ty::f32, Ty::f32, Ty::f32, false, true, false, 32},
    {op::v_mfma_f32_16x16x8_xf32, Target::gfx942, 16, 16, 8, 1, Ty::xf32, Ty::xf32, Ty::f32, false, false, false, 16},
    {op::v_mfma_f32_32x32x16_bf8_bf8, Target::gfx942, 32, 32, 16, 1, Ty::bf8, Ty::bf8, Ty::f32, false, false, false, 32},
    {op::v_mfma_f32_32x32x16_bf8_fp8, Target::gfx942, 32, 32, 16, 1, Ty::bf8, Ty::fp8, Ty::f32, false, false, false, 32},
    {op::v_mfma_f32_32x32x16_fp8_bf8, Target::gfx942, 32, 32, 16, 1, Ty::fp8, Ty::bf8, Ty::f32, false, false, false, 32},
    {op::v_mfma_f32_32x32x16_fp8_fp8, Target::gfx942, 32, 32, 16, 1, Ty::fp8, Ty::fp8, Ty::f32, false, false, false, 32},
    {op::v_mfma_f32_32x32x1_2b_f32, Target::gfx942, 32, 32, 1, 2, Ty::f32, Ty::f32, Ty::f32, false, true, true, 64},
    {op::v_mfma_f32_32x32x2_f32, Target::gfx942, 32, 32, 2, 1, Ty::f32, Ty::f32, Ty::f32, false, true, false, 64},
    {op::v_mfma_f32_32x32x4_2b_bf16, Target::gfx942, 32, 32, 4, 2, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 64},
    {op::v_mfma_f32_32x32x4_2b_f16, Target::gfx942, 32, 32, 4, 2, Ty::f16, Ty::f16, Ty::f32, false, true, true, 64},
    {op::v_mfma_f32_32x32x4_xf32, Target::gfx942, 32, 32, 4, 1, Ty::xf32, Ty::xf32, Ty::f32, false, false, false, 32},
    {op::v_mfma_f32_32x32x8_bf16, Target::gfx942, 32, 32, 8, 1, Ty::bf16, Ty::bf16, Ty::f32, false, false, false, 32},
    {op::v_mfma_f32_32x32x8_f16, Target::gfx942, 32, 32, 8, 1, Ty::f16, Ty::f16, Ty::f32, false, false, false, 32},
    {op::v_mfma_f32_4x4x1_16b_f32, Target::gfx942, 4, 4, 1, 16, Ty::f32, Ty::f32, Ty::f32, false, true, true, 8},
    {op::v_mfma_f32_4x4x4_16b_bf16, Target::gfx942, 4, 4, 4, 16, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 8},
    {op::v_mfma_f32_4x4x4_16b_f16, Target::gfx942, 4, 4, 4, 16, Ty::f16, Ty::f16, Ty::f32, false, true, true, 8},
    {op::v_mfma_f64_16x16x4_f64, Target::gfx942, 16, 16, 4, 1, Ty::f64, Ty::f64, Ty::f64, false, true, false, 32},
    {op::v_mfma_f64_4x4x4_4b_f64, Target::gfx942, 4, 4, 4, 4, Ty::f64, Ty::f64, Ty::f64, false, true, false, 16},
    {op::v_mfma_i32_16x16x32_i8, Target::gfx942, 16, 16, 32, 1, Ty::i8, Ty::i8, Ty::i32, false, false, false, 16},
    {op::v_mfma_i32_16x16x4_4b_i8, Target::gfx942, 16, 16, 4, 4, Ty::i8, Ty::i8, Ty::i32, false, true, true, 32},
    {op::v_mfma_i32_32x32x16_i8, Target::gfx942, 32, 32, 16, 1, Ty::i8, Ty::i8, Ty::i32, false, false, false, 32},
    {op::v_mfma_i32_32x32x4_2b_i8, Target::gfx942, 32, 32, 4, 2, Ty::i8, Ty::i8, Ty::i32, false, true, true, 64},
    {op::v_mfma_i32_4x4x4_16b_i8, Target::gfx942, 4, 4, 4, 16, Ty::i8, Ty::i8, Ty::i32, false, true, true, 8},
    {op::v_smfmac_f32_16x16x32_bf16, Target::gfx942, 16, 16, 32, 1, Ty::bf16, Ty::bf16, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_16x16x32_f16, Target::gfx942, 16, 16, 32, 1, Ty::f16, Ty::f16, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_16x16x64_bf8_bf8, Target::gfx942, 16, 16, 64, 1, Ty::bf8, Ty::bf8, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_16x16x64_bf8_fp8, Target::gfx942, 16, 16, 64, 1, Ty::bf8, Ty::fp8, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_16x16x64_fp8_bf8, Target::gfx942, 16, 16, 64, 1, Ty::fp8, Ty::bf8, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_16x16x64_fp8_fp8, Target::gfx942, 16, 16, 64, 1, Ty::fp8, Ty::fp8, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_32x32x16_bf16, Target::gfx942, 32, 32, 16, 1, Ty::bf16, Ty::bf16, Ty::f32, true, false, true, 32},
    {op::v_smfmac_f32_32x32x16_f16, Target::gfx942, 32, 32, 16, 1, Ty::f16, Ty::f16, Ty::f32, true, false, true, 32},
    {op::v_smfmac_f32_32x32x32_bf8_bf8, Target::gfx942, 32, 32, 32, 1, Ty::bf8, Ty::bf8, Ty::f32, true, false, true, 32},
    {op::v_smfmac_f32_32x32x32_bf8_fp8, Target::gfx942, 32, 32, 32, 1, Ty::bf8, Ty::fp8, Ty::f32, true, false, true, 32},
    {op::v_smfmac_f32_32x32x32_fp8_bf8, Target::gfx942, 32, 32, 32, 1, Ty::fp8, Ty::bf8, Ty::f32, true, false, true, 32},
    {op::v_smfmac_f32_32x32x32_fp8_fp8, Target::gfx942, 32, 32, 32, 1, Ty::fp8, Ty::fp8, Ty::f32, true, false, true, 32},
    {op::v_smfmac_i32_16x16x64_i8, Target::gfx942, 16, 16, 64, 1, Ty::i8, Ty::i8, Ty::i32, true, false, true, 16},
    {op::v_smfmac_i32_32x32x32_i8, Target::gfx942, 32, 32, 32, 1, Ty::i8, Ty::i8, Ty::i32, true, false, true, 32},
};

// gfx950-only forms with the CDNA3 register rule: shapes from the mnemonics; cycles from AMD's CDNA4 blog table
// (16x16x32 f16/bf16 16, 32x32x16 32) and, for the forms the blog leaves out, LLVM 22 SISchedule.td
// SIDPGFX950FullSpeedModel (V_MFMA_.32_16X16X64 4 passes, V_MFMA_.32_32X32X32_ 8, V_SMFMAC_.32_16X16X 4,
// V_SMFMAC_.32_32X32X 8), times 4 cycles per pass.
const Case cases950[] = {
    {op::v_mfma_f32_16x16x32_f16, Target::gfx950, 16, 16, 32, 1, Ty::f16, Ty::f16, Ty::f32, false, false, false, 16},
    {op::v_mfma_f32_32x32x16_f16, Target::gfx950, 32, 32, 16, 1, Ty::f16, Ty::f16, Ty::f32, false, false, false, 32},
    {op::v_mfma_f32_16x16x32_bf16, Target::gfx950, 16, 16, 32, 1, Ty::bf16, Ty::bf16, Ty::f32, false, false, false, 16},
    {op::v_mfma_f32_32x32x16_bf16, Target::gfx950, 32, 32, 16, 1, Ty::bf16, Ty::bf16, Ty::f32, false, false, false, 32},
    {op::v_mfma_i32_16x16x64_i8, Target::gfx950, 16, 16, 64, 1, Ty::i8, Ty::i8, Ty::i32, false, false, false, 16},
    {op::v_mfma_i32_32x32x32_i8, Target::gfx950, 32, 32, 32, 1, Ty::i8, Ty::i8, Ty::i32, false, false, false, 32},
    {op::v_smfmac_f32_16x16x64_f16, Target::gfx950, 16, 16, 64, 1, Ty::f16, Ty::f16, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_32x32x32_f16, Target::gfx950, 32, 32, 32, 1, Ty::f16, Ty::f16, Ty::f32, true, false, true, 32},
    {op::v_smfmac_f32_16x16x64_bf16, Target::gfx950, 16, 16, 64, 1, Ty::bf16, Ty::bf16, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_32x32x32_bf16, Target::gfx950, 32, 32, 32, 1, Ty::bf16, Ty::bf16, Ty::f32, true, false, true, 32},
    {op::v_smfmac_i32_16x16x128_i8, Target::gfx950, 16, 16, 128, 1, Ty::i8, Ty::i8, Ty::i32, true, false, true, 16},
    {op::v_smfmac_i32_32x32x64_i8, Target::gfx950, 32, 32, 64, 1, Ty::i8, Ty::i8, Ty::i32, true, false, true, 32},
    {op::v_smfmac_f32_16x16x128_fp8_fp8, Target::gfx950, 16, 16, 128, 1, Ty::fp8, Ty::fp8, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_16x16x128_fp8_bf8, Target::gfx950, 16, 16, 128, 1, Ty::fp8, Ty::bf8, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_16x16x128_bf8_fp8, Target::gfx950, 16, 16, 128, 1, Ty::bf8, Ty::fp8, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_16x16x128_bf8_bf8, Target::gfx950, 16, 16, 128, 1, Ty::bf8, Ty::bf8, Ty::f32, true, false, true, 16},
    {op::v_smfmac_f32_32x32x64_fp8_fp8, Target::gfx950, 32, 32, 64, 1, Ty::fp8, Ty::fp8, Ty::f32, true, false, true, 32},
    {op::v_smfmac_f32_32x32x64_fp8_bf8, Target::gfx950, 32, 32, 64, 1, Ty::fp8, Ty::bf8, Ty::f32, true, false, true, 32},
    {op::v_smfmac_f32_32x32x64_bf8_fp8, Target::gfx950, 32, 32, 64, 1, Ty::bf8, Ty::fp8, Ty::f32, true, false, true, 32},
    {op::v_smfmac_f32_32x32x64_bf8_bf8, Target::gfx950, 32, 32, 64, 1, Ty::bf8, Ty::bf8, Ty::f32, true, false, true, 32},
};

unsigned width(Ty t) {
  switch (t) {
    case Ty::f16: case Ty::bf16: return 16;
    case Ty::i8: case Ty::fp8: case Ty::bf8: return 8;
    case Ty::f64: return 64;
    default: return 32;
  }
}

// ---- calculator transcription ----------------------------------------------------------------------------------

/// _get_blgp_transformed_lane, as the calculator writes it.
unsigned calc_blgp(unsigned lane, unsigned blgp) {
  unsigned r = lane;
  if (blgp == 1) r = lane % 32;
  else if (blgp == 2 && lane < 32) r = lane + 32;
  else if (blgp == 3) r = (lane + 16) % 64;
  else if (blgp == 4) r = lane % 16;
  else if (blgp == 5) { if (lane < 16) r = lane + 16; else if (lane >= 48) r = lane - 32; else if (lane >= 32) r = lane - 16; }
  else if (blgp == 6) { if (lane >= 48) r = lane - 16; else if (lane < 16) r = lane + 32; else if (lane < 32) r = lane + 16; }
  else if (blgp == 7) r = lane + (3 - lane / 16) * 16;
  return r;
}
/// _get_cbsz_abid_transformed_block.
unsigned calc_cbsz_block(unsigned block, unsigned cbsz, unsigned abid) {
  const unsigned n = 1u << cbsz;
  return block / n * n + abid;
}
struct Loc {
  unsigned bit;   ///< bit offset in the lane's consecutive registers (register = bit / 32)
  unsigned lane;
};
/// __get_input_reg_lanes + _get_reg_name (non-index): M = outer extent, K = inner extent, i outer, k inner.
Loc calc_input(unsigned M, unsigned K, unsigned B, unsigned i, unsigned k, unsigned b, unsigned W, unsigned blgp) {
  unsigned e = 64 / (M * B);
  e = K / e;
  const unsigned local = k % e;
  unsigned lane = b * M + (k / e) * M * B + i;
  lane = calc_blgp(lane, blgp);
  return {local * W, lane};
}
/// __get_output_reg_lanes.
Loc calc_output(unsigned M, unsigned N, unsigned i, unsigned j, unsigned b, unsigned W) {
  const unsigned mpr = 64 / N, h = W == 64 ? 1 : 4;
  const unsigned bpr = static_cast<unsigned>(std::ceil(64.0 / static_cast<double>(N * M / h)));
  unsigned local = b * (M * N / 64);
  local += i / (h * mpr) * h;
  local += i % h;
  unsigned lane = (b % bpr) * N;
  lane += (i / h) % mpr * bpr * N;
  lane += j;
  return {local * W, lane};
}
/// The compression-index bits of stored value c (0-based along the compressed K) of row i: _get_reg_name with
/// compression_index=True on __get_input_reg_lanes(M, K/2, ...); the second value of a pair uses the upper 2 bits
/// of the nibble (calculator README, sparse example).
Loc calc_index(unsigned M, unsigned K, unsigned i, unsigned c, unsigned W, unsigned cbsz, unsigned abid) {
  const unsigned KA = K / 2;
  unsigned e = 64 / M;
  e = KA / e;
  unsigned regno = c % e;
  const unsigned lane = (c / e) * M + i;
  if (cbsz == 0) regno += 64 * abid / W;
  return {regno / 2 * 4 + (c % 2) * 2, lane};
}
/// gfx950 (LLVM PR #193541, after the CDNA4 ISA tables): a lane's E stored values take 2 bits each, so one index
/// set is 2*E bits wide (16 for the 16-bit forms, ABID 0-1; 32 for the 8-bit forms, one set).
Loc calc_index950(unsigned M, unsigned K, unsigned i, unsigned c, unsigned cbsz, unsigned abid) {
  const unsigned per_lane = K / 2 / (64 / M);
  const unsigned set = cbsz == 0 ? abid : 0;
  return {set * 2 * per_lane + 2 * (c % per_lane), (c / per_lane) * M + i};
}

// ---- element values ---------------------------------------------------------------------------------------------

double dec_f16(u32 h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}
double dec_fp8(u32 v, bool bf8) {  // NUZ formats of gfx942: e4m3 bias 8, e5m2 bias 16
  const int mb = bf8 ? 2 : 3, bias = bf8 ? 16 : 8;
  const int e = (v & 0x7f) >> mb, m = v & ((1 << mb) - 1);
  const double x = e == 0 ? std::ldexp(m, 1 - bias - mb) : std::ldexp((1 << mb) + m, e - bias - mb);
  return (v & 0x80) ? -x : x;
}
/// OCP 8-bit formats of gfx950 (OCP 8-bit Floating Point Specification v1.0): E4M3 bias 7 (S.1111.111 NaN, no
/// Inf), E5M2 bias 15 (exponent 31 Inf/NaN). Callers keep away from the special codes.
double dec_fp8_ocp(u32 v, bool bf8) {
  const int mb = bf8 ? 2 : 3, bias = bf8 ? 15 : 7;
  const int e = (v & 0x7f) >> mb, m = v & ((1 << mb) - 1);
  const double x = e == 0 ? std::ldexp(m, 1 - bias - mb) : std::ldexp((1 << mb) + m, e - bias - mb);
  return (v & 0x80) ? -x : x;
}
/// OCP MX v1.0 §5.3 small floats: E2M3 (bias 1), E3M2 (bias 3), E2M1 (bias 1); no Inf/NaN; exponent 0 subnormal.
double dec_mx(u32 v, int ebits, int mbits, int bias) {
  const int m = v & ((1 << mbits) - 1), e = (v >> mbits) & ((1 << ebits) - 1);
  const double x = e == 0 ? std::ldexp(m, 1 - bias - mbits) : std::ldexp((1 << mbits) + m, e - bias - mbits);
  return ((v >> (ebits + mbits)) & 1) ? -x : x;
}
bool g_ocp = false;  ///< fp8/bf8 elements are OCP (gfx950) rather than NUZ (gfx942)
/// Value of a raw element as a double (exact for every input type).
double value(Ty t, u64 raw) {
  switch (t) {
    case Ty::f32: case Ty::xf32: return std::bit_cast<float>(static_cast<u32>(raw));
    case Ty::f16: return dec_f16(static_cast<u32>(raw));
    case Ty::bf16: return std::bit_cast<float>(static_cast<u32>(raw) << 16);
    case Ty::fp8: return g_ocp ? dec_fp8_ocp(static_cast<u32>(raw), false) : dec_fp8(static_cast<u32>(raw), false);
    case Ty::bf8: return g_ocp ? dec_fp8_ocp(static_cast<u32>(raw), true) : dec_fp8(static_cast<u32>(raw), true);
    case Ty::f64: return std::bit_cast<double>(raw);
    case Ty::i8: return static_cast<std::int8_t>(raw & 0xff);
    case Ty::i32: return static_cast<std::int32_t>(raw);
  }
  return 0;
}
/// A random finite element of moderate magnitude (sums stay far from overflow).
u64 random_element(Ty t, std::mt19937_64& g) {
  const u64 r = g();
  const u64 s = r & 1;
  switch (t) {
    case Ty::f32: return s << 31 | (120 + (r >> 1) % 15) << 23 | ((r >> 8) & 0x7fffff);
    case Ty::xf32: return s << 31 | (120 + (r >> 1) % 15) << 23 | ((r >> 8) & 0x7fe000);  // exact in xf32
    case Ty::f16: return s << 15 | (10 + (r >> 1) % 10) << 10 | ((r >> 8) & 0x3ff);
    case Ty::bf16: return s << 15 | (120 + (r >> 1) % 15) << 7 | ((r >> 8) & 0x7f);
    case Ty::fp8: return s << 7 | (1 + (r >> 1) % 14) << 3 | ((r >> 8) & 7);  // exponent 15 avoided (OCP NaN)
    case Ty::bf8: return s << 7 | (8 + (r >> 1) % 16) << 2 | ((r >> 8) & 3);
    case Ty::i8: return r & 0xff;
    case Ty::i32: return r & 0xffffffff;
    case Ty::f64: return s << 63 | (1013 + (r >> 1) % 20) << 52 | ((r >> 8) & 0xfffffffffffffull);
  }
  return 0;
}

// ---- registers -------------------------------------------------------------------------------------------------

/// Raw register contents of one operand: dwords x 64 lanes.
struct Regs {
  unsigned dwords = 0;
  std::vector<u32> d;  // [dword][lane]
  u32& at(unsigned r, unsigned l) { return d[r * 64 + l]; }
  u64 get(Loc x, unsigned W) const {
    const unsigned r = x.bit / 32, sh = x.bit % 32;
    if (W == 64) return d[r * 64 + x.lane] | static_cast<u64>(d[(r + 1) * 64 + x.lane]) << 32;
    const u64 mask = W == 32 ? 0xffffffffull : (1ull << W) - 1;
    return (d[r * 64 + x.lane] >> sh) & mask;
  }
  void fill(Ty t, std::mt19937_64& g) {
    const unsigned W = width(t);
    for (unsigned r = 0; r < dwords; r += (W == 64 ? 2 : 1))
      for (unsigned l = 0; l < 64; ++l) {
        if (W == 64) {
          const u64 v = random_element(t, g);
          at(r, l) = static_cast<u32>(v);
          at(r + 1, l) = static_cast<u32>(v >> 32);
        } else {
          u32 v = 0;
          for (unsigned s = 0; s < 32; s += W) v |= static_cast<u32>(random_element(t, g)) << s;
          at(r, l) = v;
        }
      }
  }
};
Regs make_regs(unsigned dwords) { Regs r; r.dwords = dwords; r.d.assign(dwords * 64, 0); return r; }

std::string reg_text(char file, unsigned first, unsigned count) {
  if (count == 1) return std::string(1, file) + std::to_string(first);
  return std::string(1, file) + "[" + std::to_string(first) + ":" + std::to_string(first + count - 1) + "]";
}

struct Variant {
  bool ab_agpr = false;   ///< SrcA/SrcB in AGPRs
  bool cd_agpr = true;    ///< SrcC/vdst in AGPRs
  bool d_is_c = true;     ///< vdst = SrcC
  bool c_zero = false;    ///< SrcC is the inline constant 0
  unsigned cbsz = 0, abid = 0, blgp = 0;
};

constexpr unsigned a_base = 0, b_base = 8, idx_reg = 16, c_base = 32, d_base = 96;

/// Runs one form with one variant on random operands; returns the number of mismatching output elements.
int run_case(const Case& cs, const Variant& v, u64 seed) {
  std::mt19937_64 g(seed);
  g_ocp = cs.target == Target::gfx950;
  const unsigned M = cs.m, N = cs.n, K = cs.k, B = cs.blocks;
  const unsigned WA = width(cs.a), WB = width(cs.b), WC = width(cs.cd);
  const unsigned KA = cs.sparse ? K / 2 : K;
  const unsigned DA = M * B * KA * WA / 2048, DB = N * B * K * WB / 2048, DC = M * N * B * WC / 2048;
  Regs ra = make_regs(DA), rb = make_regs(DB), rc = make_regs(DC), ri = make_regs(1);
  ra.fill(cs.a, g);
  rb.fill(cs.b, g);
  rc.fill(cs.cd, g);
  if (v.c_zero) std::fill(rc.d.begin(), rc.d.end(), 0u);
  if (cs.sparse)  // every nibble: two distinct ascending column choices (a valid 4:2 pattern)
    for (unsigned l = 0; l < 64; ++l) {
      u32 x = 0;
      for (unsigned s = 0; s < 32; s += 4) {
        const unsigned lo = g() % 3, hi = lo + 1 + g() % (3 - lo);
        x |= (lo | hi << 2) << s;
      }
      ri.at(0, l) = x;
    }

  // The snippet.
  const char ab = v.ab_agpr ? 'a' : 'v', cdf = v.cd_agpr ? 'a' : 'v';
  const unsigned dfirst = v.d_is_c ? c_base : d_base;
  const unsigned cfirst = cs.sparse ? dfirst : c_base;  // SMFMAC accumulates into vdst
  std::string text = std::string("\t") + cs.mnemonic() + " " + reg_text(cdf, dfirst, DC) + ", " +
                     reg_text(ab, a_base, DA) + ", " + reg_text(ab, b_base, DB) + ", ";
  if (cs.sparse) text += reg_text('v', idx_reg, 1);
  else text += v.c_zero ? std::string("0") : reg_text(cdf, cfirst, DC);
  if (v.cbsz) text += " cbsz:" + std::to_string(v.cbsz);
  if (v.abid) text += " abid:" + std::to_string(v.abid);
  if (v.blgp && cs.a == Ty::f64 && cs.target == Target::gfx942)  // gfx942 f64: the BLGP bits spelled neg:[a,b,c]
    text += " neg:[" + std::to_string(v.blgp & 1) + "," + std::to_string((v.blgp >> 1) & 1) + "," +
            std::to_string((v.blgp >> 2) & 1) + "]";
  else if (v.blgp)
    text += " blgp:" + std::to_string(v.blgp);
  auto s = test::make_snippet(text, cs.target);
  if (!s) return -1;
  Wave& w = s->wave();
  auto row = [&](char f, unsigned n) { return (f == 'a' ? agpr_row0 : 0u) + n; };
  for (unsigned r = 0; r < DA; ++r) for (unsigned l = 0; l < 64; ++l) w.v[row(ab, a_base + r)][l] = ra.at(r, l);
  for (unsigned r = 0; r < DB; ++r) for (unsigned l = 0; l < 64; ++l) w.v[row(ab, b_base + r)][l] = rb.at(r, l);
  for (unsigned r = 0; r < DC; ++r) for (unsigned l = 0; l < 64; ++l) w.v[row(cdf, cfirst + r)][l] = rc.at(r, l);
  for (unsigned l = 0; l < 64; ++l) w.v[idx_reg][l] = ri.at(0, l);
  const Stop& st = s->run();
  EXPECT_EQ(st.kind, Stop::Kind::none) << st.message << "\n" << text;
  if (st.kind != Stop::Kind::none) return -1;

  // The reference: D[b] = C[b] + A[cbsz/abid block] * B[b], products added in k order (the model sem_mfma.hpp
  // documents); f64 on gfx942 takes BLGP as negate flags.
  const bool neg_mode = cs.a == Ty::f64 && cs.target == Target::gfx942;
  const unsigned blgp = neg_mode ? 0 : v.blgp, neg = neg_mode ? v.blgp : 0;
  int bad = 0;
  for (unsigned b = 0; b < B; ++b)
    for (unsigned i = 0; i < M; ++i) {
      // Row i of A (dense K columns) for this block.
      std::vector<double> arow(K, 0.0);
      if (cs.sparse) {
        for (unsigned c = 0; c < KA; ++c) {
          const Loc il = cs.target == Target::gfx950 ? calc_index950(M, K, i, c, v.cbsz, v.abid)
                                                     : calc_index(M, K, i, c, WA, v.cbsz, v.abid);
          const unsigned sel = (ri.at(il.bit / 32, il.lane) >> (il.bit % 32)) & 3;
          arow[4 * (c / 2) + sel] = value(cs.a, ra.get(calc_input(M, KA, 1, i, c, 0, WA, 0), WA));
        }
      } else {
        const unsigned ablk = calc_cbsz_block(b, v.cbsz, v.abid);
        for (unsigned k = 0; k < K; ++k) arow[k] = value(cs.a, ra.get(calc_input(M, K, B, i, k, ablk, WA, 0), WA));
      }
      for (unsigned j = 0; j < N; ++j) {
        const Loc o = calc_output(M, N, i, j, b, WC);
        const u64 craw = rc.get(o, WC);
        u64 want = 0;
        if (cs.cd == Ty::i32) {
          u32 acc = static_cast<u32>(craw);
          for (unsigned k = 0; k < K; ++k)
            acc += static_cast<u32>(static_cast<std::int32_t>(arow[k]) *
                                    static_cast<std::int32_t>(value(cs.b, rb.get(calc_input(N, K, B, j, k, b, WB, blgp), WB))));
          want = acc;
        } else if (cs.cd == Ty::f64) {
          double acc = value(Ty::f64, craw);
          if (neg & 4) acc = -acc;
          for (unsigned k = 0; k < K; ++k) {
            double x = arow[k], y = value(cs.b, rb.get(calc_input(N, K, B, j, k, b, WB, blgp), WB));
            if (neg & 1) x = -x;
            if (neg & 2) y = -y;
            acc = std::fma(x, y, acc);
          }
          want = std::bit_cast<u64>(acc);
        } else {
          float acc = std::bit_cast<float>(static_cast<u32>(craw));
          for (unsigned k = 0; k < K; ++k) {
            const double y = value(cs.b, rb.get(calc_input(N, K, B, j, k, b, WB, blgp), WB));
            if (cs.a == Ty::f32) {
              acc = std::fma(static_cast<float>(arow[k]), static_cast<float>(y), acc);
            } else {
              if (cs.sparse && arow[k] == 0.0) continue;  // a column the 4:2 pattern leaves out
              acc = acc + static_cast<float>(arow[k] * y);  // the product is exact in f32 for these inputs
            }
          }
          want = std::bit_cast<u32>(acc);
        }
        const unsigned dreg = row(cdf, dfirst) + o.bit / 32;
        const u64 got = WC == 64 ? (w.v[dreg][o.lane] | static_cast<u64>(w.v[dreg + 1][o.lane]) << 32) : w.v[dreg][o.lane];
        if (got != want) {
          if (bad < 3)
            ADD_FAILURE() << cs.mnemonic() << " block " << b << " D[" << i << "][" << j << "] got 0x" << std::hex << got
                          << " want 0x" << want << std::dec << " (" << text << ", seed " << seed << ")";
          ++bad;
        }
      }
    }
  return bad;
}

std::string target_name(Target t) {
  return t == Target::gfx90a ? "gfx90a" : t == Target::gfx950 ? "gfx950" : "gfx942";
}

TEST(SemMfma, TableMatchesCalculator) {
  for (const Case& c : cases) {
    const MfmaInfo* i = mfma_info(c.op, c.target);
    ASSERT_NE(i, nullptr) << c.mnemonic();
    EXPECT_EQ(i->m, c.m) << c.mnemonic();
    EXPECT_EQ(i->n, c.n) << c.mnemonic();
    EXPECT_EQ(i->k, c.k) << c.mnemonic();
    EXPECT_EQ(i->blocks, c.blocks) << c.mnemonic();
    EXPECT_EQ(i->passes * 4, c.cycles) << c.mnemonic();
    EXPECT_EQ(i->sparse, c.sparse) << c.mnemonic();
    EXPECT_EQ(i->dgemm, c.a == Ty::f64) << c.mnemonic();
  }
  // The gfx942 spellings LLVM keeps from gfx90a name the gfx942 forms (rename aliases).
  const MfmaInfo* x = mfma_info(op::v_mfma_f32_32x32x4bf16, Target::gfx942);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->blocks, 2u);
  EXPECT_EQ(x->k, 4u);
  EXPECT_EQ(mfma_info(op::v_mfma_f32_32x32x8_f16, Target::gfx90a), nullptr);
}

/// Every form of `list`, each variant: operands in VGPRs/AGPRs, C = D / C != D / C = 0, and every CBSZ/ABID and
/// BLGP value the calculator allows for the form. Returns the number of runs.
template <std::size_t L>
unsigned run_forms(const Case (&list)[L], u64 base) {
  std::printf("sem_mfma_test seed base 0x%llx\n", static_cast<unsigned long long>(base));
  unsigned idx = 0, runs = 0;
  for (const Case& c : list) {
    ++idx;
    SCOPED_TRACE(std::string(c.mnemonic()) + " on " + target_name(c.target));
    std::vector<Variant> vs;
    vs.push_back({});                                  // A, B VGPR; C = D AGPR
    vs.push_back({true, true, false, false});          // A, B AGPR; D != C, AGPR
    vs.push_back({false, false, false, false});        // C, D VGPR
    if (!c.sparse) vs.push_back({true, false, true, true});  // C = inline 0, D VGPR
    if (c.sparse) {
      // Index sets: gfx942 [CALC get_num_compression_sets] 4 (16-bit) / 2 (8-bit); gfx950 2 / 1 (PR #193541).
      const unsigned sets = c.target == Target::gfx950 ? (width(c.a) == 16 ? 2 : 1) : (width(c.a) == 16 ? 4 : 2);
      for (unsigned a = 0; a < sets; ++a) { Variant v; v.abid = a; vs.push_back(v); }
      Variant v; v.cbsz = 1; v.abid = 1; vs.push_back(v);  // CBSZ != 0: ABID ignored
    } else {
      if (c.cbsz_abid)
        for (unsigned cb = 0; (1u << cb) <= c.blocks; ++cb)
          for (unsigned ab = 0; ab < (1u << cb); ++ab) { Variant v; v.cbsz = cb; v.abid = ab; v.blgp = (cb + ab) % 8; vs.push_back(v); }
      const bool neg_mode = c.a == Ty::f64 && c.target == Target::gfx942;
      if (c.blgp || neg_mode)
        for (unsigned bl = 1; bl < 8; ++bl) { Variant v; v.blgp = bl; v.ab_agpr = bl % 2; vs.push_back(v); }
    }
    unsigned vi = 0;
    for (const Variant& v : vs) {
      const u64 seed = base + idx * 1000 + vi++;
      EXPECT_EQ(run_case(c, v, seed), 0) << c.mnemonic() << " variant " << vi - 1 << " seed " << seed;
      ++runs;
    }
  }
  std::printf("%zu forms, %u form/variant runs checked element by element\n", L, runs);
  return runs;
}

TEST(SemMfma, EveryFormAgainstMatrixProduct) { EXPECT_GT(run_forms(cases, 0x5eed0000ull), 0u); }

/// gfx950's new dense and sparse f16/bf16/i8/fp8 shapes (OCP fp8), same checks.
TEST(SemMfma, Gfx950FormsAgainstMatrixProduct) { EXPECT_GT(run_forms(cases950, 0x5eed9500ull), 0u); }

TEST(SemMfma, Gfx90aHalfFormsFlushDenormals) {
  // MIOpen docs "MI200 matrix fused multiply-add (MFMA) behavior specifics": f16/bf16 MFMA flush subnormal inputs
  // and outputs. A = smallest f16 denormal (0x0001) times B = 2^10 would be 2^-14: flushed it contributes nothing.
  for (Target t : {Target::gfx90a, Target::gfx942}) {
    auto s = test::make_snippet(t == Target::gfx90a ? "\tv_mfma_f32_4x4x4f16 a[0:3], v[0:1], v[2:3], 0"
                                                    : "\tv_mfma_f32_4x4x4_16b_f16 a[0:3], v[0:1], v[2:3], 0", t);
    ASSERT_TRUE(s);
    for (unsigned l = 0; l < 64; ++l) {
      s->wave().v[0][l] = 0x00000001u;  // A: k0 = denormal, k1..3 = 0
      s->wave().v[1][l] = 0;
      s->wave().v[2][l] = 0x00006400u;  // B: k0 = 1024.0
      s->wave().v[3][l] = 0;
    }
    ASSERT_EQ(s->run().kind, Stop::Kind::none);
    const float want = t == Target::gfx90a ? 0.0f : std::ldexp(1.0f, -14);
    EXPECT_EQ(std::bit_cast<float>(s->wave().v[agpr_row0][0]), want) << target_name(t);
  }
}

TEST(SemMfma, PartialExecAndBadModifiersStop) {
  auto s = test::make_snippet("\tv_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]", Target::gfx942);
  ASSERT_TRUE(s);
  s->wave().set_exec(0xffffffffull);
  EXPECT_EQ(s->run().kind, Stop::Kind::unsupported);
  auto s2 = test::make_snippet("\tv_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1", Target::gfx942);
  if (s2) EXPECT_EQ(s2->run().kind, Stop::Kind::illegal);
}

// ---- gfx950 f8f6f4 --------------------------------------------------------------------------------------------

/// CBSZ/BLGP format numbers (LLVM test llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.ll: 0 fp8, 1 bf8, 2 fp6, 3 bf6,
/// 4 fp4) and their element widths.
unsigned fmt_bits(unsigned f) { return f == 4 ? 4 : (f == 2 || f == 3) ? 6 : 8; }
double fmt_value(unsigned f, u32 raw) {
  switch (f) {
    case 0: return dec_fp8_ocp(raw, false);
    case 1: return dec_fp8_ocp(raw, true);
    case 2: return dec_mx(raw, 2, 3, 1);
    case 3: return dec_mx(raw, 3, 2, 3);
    default: return dec_mx(raw, 2, 1, 1);
  }
}
/// A random code of format `f` that is finite (OCP E4M3 S.1111.111 and E5M2 exponent 31 left out).
u32 fmt_random(unsigned f, std::mt19937_64& g) {
  for (;;) {
    const u32 v = static_cast<u32>(g()) & ((1u << fmt_bits(f)) - 1u);
    if (f == 0 && (v & 0x7f) == 0x7f) continue;
    if (f == 1 && ((v >> 2) & 31) == 31) continue;
    return v;
  }
}
/// [BLOG Figures 9-10 and their kernels], written from matrix element to register: A element (i, k) of an
/// M x K f8f6f4 operand (B: column j in place of row i). fp8/bf8: the K/2 halves each spread over the lane groups 16
/// elements at a time, half h in bytes 16h..16h+15; fp4: lane group k/32, nibble k%32.
Loc f8f6f4_input(unsigned M, unsigned K, unsigned i, unsigned k, unsigned bits) {
  if (bits == 8) {
    const unsigned h = k / (K / 2), kk = k % (K / 2);
    return {8 * (16 * h + kk % 16), (kk / 16) * M + i};
  }
  return {bits * (k % 32), (k / 32) * M + i};
}

struct F8f6f4Variant {
  unsigned fa = 0, fb = 0;          ///< formats (cbsz, blgp)
  bool scaled = false;
  unsigned byte_a = 0, byte_b = 0;  ///< scale byte selects (op_sel + 2 * op_sel_hi)
  bool agpr_cd = true;
  bool nan_scale = false;           ///< one E8M0 NaN byte in A's scales
};

/// One f8f6f4 form on random operands against D = C + sum over 32-element blocks of
/// 2^(scaleA + scaleB - 254) * (the block's products summed in k order in f32), the model sem_mfma.hpp documents.
int run_f8f6f4(unsigned M, const F8f6f4Variant& v, u64 seed) {
  std::mt19937_64 g(seed);
  const unsigned K = M == 16 ? 128 : 64, N = M, KB = K / 32, DC = M * N / 64;
  const unsigned BA = fmt_bits(v.fa), BB = fmt_bits(v.fb);
  // Matrices first, then registers from them (element -> register direction).
  std::vector<u32> A(M * K), B(K * N);
  for (auto& x : A) x = fmt_random(v.fa, g);
  for (auto& x : B) x = fmt_random(v.fb, g);
  Regs ra = make_regs(BA), rb = make_regs(BB), rc = make_regs(DC), sa = make_regs(1), sb = make_regs(1);
  auto put = [](Regs& r, Loc x, unsigned bits, u32 val) {
    for (unsigned b = 0; b < bits; ++b)
      if ((val >> b) & 1) r.at((x.bit + b) / 32, x.lane) |= 1u << ((x.bit + b) % 32);
  };
  for (unsigned i = 0; i < M; ++i)
    for (unsigned k = 0; k < K; ++k) put(ra, f8f6f4_input(M, K, i, k, BA), BA, A[i * K + k]);
  for (unsigned k = 0; k < K; ++k)
    for (unsigned j = 0; j < N; ++j) put(rb, f8f6f4_input(N, K, j, k, BB), BB, B[k * N + j]);
  rc.fill(Ty::f32, g);
  // Scale registers: 4 random E8M0 bytes per lane (near 2^0); the selected byte of lane kb*M + i scales (i, kb).
  for (unsigned l = 0; l < 64; ++l) {
    u32 x = 0, y = 0;
    for (unsigned b = 0; b < 4; ++b) {
      x |= static_cast<u32>(118 + g() % 19) << (8 * b);
      y |= static_cast<u32>(118 + g() % 19) << (8 * b);
    }
    sa.at(0, l) = x;
    sb.at(0, l) = y;
  }
  if (v.nan_scale) sa.at(0, 3) |= 0xffu << (8 * v.byte_a);  // row 3, block 0

  const std::string mn = std::string(v.scaled ? "v_mfma_scale_f32_" : "v_mfma_f32_") +
                         (M == 16 ? "16x16x128_f8f6f4" : "32x32x64_f8f6f4");
  const char cdf = v.agpr_cd ? 'a' : 'v';
  std::string text = "\t" + mn + " " + reg_text(cdf, 32, DC) + ", " + reg_text('v', 0, BA) + ", " +
                     reg_text('v', 8, BB) + ", " + reg_text(cdf, 32, DC);
  if (v.scaled)
    text += ", v20, v21 op_sel:[" + std::to_string(v.byte_a & 1) + "," + std::to_string(v.byte_b & 1) +
            ",0] op_sel_hi:[" + std::to_string(v.byte_a >> 1) + "," + std::to_string(v.byte_b >> 1) + ",0]";
  if (v.fa) text += " cbsz:" + std::to_string(v.fa);
  if (v.fb) text += " blgp:" + std::to_string(v.fb);
  auto s = test::make_snippet(text, Target::gfx950);
  EXPECT_TRUE(s) << text;
  if (!s) return -1;
  Wave& w = s->wave();
  const unsigned crow = (v.agpr_cd ? agpr_row0 : 0u) + 32;
  for (unsigned l = 0; l < 64; ++l) {
    for (unsigned r = 0; r < BA; ++r) w.v[r][l] = ra.at(r, l);
    for (unsigned r = 0; r < BB; ++r) w.v[8 + r][l] = rb.at(r, l);
    for (unsigned r = 0; r < DC; ++r) w.v[crow + r][l] = rc.at(r, l);
    w.v[20][l] = sa.at(0, l);
    w.v[21][l] = sb.at(0, l);
  }
  const Stop& st = s->run();
  EXPECT_EQ(st.kind, Stop::Kind::none) << st.message << "\n" << text;
  if (st.kind != Stop::Kind::none) return -1;

  int bad = 0;
  for (unsigned i = 0; i < M; ++i)
    for (unsigned j = 0; j < N; ++j) {
      const Loc o = calc_output(M, N, i, j, 0, 32);
      float acc = std::bit_cast<float>(static_cast<u32>(rc.get(o, 32)));
      bool nan = false;
      for (unsigned kb = 0; kb < KB; ++kb) {
        float blk = 0.0f;
        for (unsigned k = 32 * kb; k < 32 * kb + 32; ++k)
          blk = blk + static_cast<float>(fmt_value(v.fa, A[i * K + k]) * fmt_value(v.fb, B[k * N + j]));
        if (v.scaled) {
          const unsigned ea = (sa.at(0, kb * M + i) >> (8 * v.byte_a)) & 0xff;
          const unsigned eb = (sb.at(0, kb * N + j) >> (8 * v.byte_b)) & 0xff;
          if (ea == 0xff || eb == 0xff) nan = true;  // E8M0 0xFF is NaN (OCP MX §5.4)
          blk = static_cast<float>(std::ldexp(static_cast<double>(blk), static_cast<int>(ea + eb) - 254));
        }
        acc = acc + blk;
      }
      const u32 want = nan || std::isnan(acc) ? 0xffc00000u : std::bit_cast<u32>(acc);
      const u32 got = w.v[crow + o.bit / 32][o.lane];
      if (got != want) {
        if (bad < 3)
          ADD_FAILURE() << mn << " D[" << i << "][" << j << "] got 0x" << std::hex << got << " want 0x" << want
                        << std::dec << " (" << text << ", seed " << seed << ")";
        ++bad;
      }
    }
  return bad;
}

/// Every pair of the fp8, bf8 and fp4 formats, both shapes, unscaled and scaled (every scale byte select), C/D in
/// AGPRs and VGPRs; one E8M0 NaN.
TEST(SemMfma, F8f6f4AgainstBlockScaledProduct) {
  const u64 base = 0xf8f6f400ull;
  std::printf("sem_mfma_test f8f6f4 seed base 0x%llx\n", static_cast<unsigned long long>(base));
  unsigned runs = 0;
  for (unsigned M : {16u, 32u})
    for (unsigned fa : {0u, 1u, 4u})
      for (unsigned fb : {0u, 1u, 4u})
        for (int scaled = 0; scaled < 2; ++scaled) {
          F8f6f4Variant v;
          v.fa = fa;
          v.fb = fb;
          v.scaled = scaled;
          v.byte_a = (fa + 2 * fb + M) % 4;
          v.byte_b = (fb + 3 * fa + scaled) % 4;
          v.agpr_cd = (fa + fb) % 2 == 0;
          const u64 seed = base + runs;
          EXPECT_EQ(run_f8f6f4(M, v, seed), 0) << "M " << M << " cbsz " << fa << " blgp " << fb << " seed " << seed;
          ++runs;
        }
  for (unsigned ba = 0; ba < 4; ++ba)
    for (unsigned bb = 0; bb < 4; ++bb) {
      F8f6f4Variant v;
      v.scaled = true;
      v.fa = 4;
      v.byte_a = ba;
      v.byte_b = bb;
      EXPECT_EQ(run_f8f6f4(16, v, base + 100 + 4 * ba + bb), 0) << "op_sel bytes " << ba << "," << bb;
      ++runs;
    }
  F8f6f4Variant nan;
  nan.scaled = true;
  nan.nan_scale = true;
  nan.byte_a = 2;
  EXPECT_EQ(run_f8f6f4(32, nan, base + 200), 0) << "E8M0 NaN scale";
  std::printf("%u f8f6f4 runs checked element by element\n", runs + 1);
}

/// fp6/bf6 operands (no register layout source) stop as unsupported rather than computing a guess; so do scale
/// operands that are not VGPRs, and cbsz/blgp values that name no format are illegal.
TEST(SemMfma, F8f6f4UnsourcedCasesStop) {
  const char* unsupported[] = {
      "\tv_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:5], v[8:15], a[0:3] cbsz:2",
      "\tv_mfma_f32_32x32x64_f8f6f4 a[0:15], v[0:7], v[8:13], a[0:15] blgp:3",
      "\tv_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[0:5], v[8:13], a[0:3], v20, v21 op_sel_hi:[0,0,0] cbsz:2 blgp:2",
  };
  for (const char* text : unsupported) {
    auto s = test::make_snippet(text, Target::gfx950);
    ASSERT_TRUE(s) << text;
    EXPECT_EQ(s->run().kind, Stop::Kind::unsupported) << text;
  }
  // v_mfma_ld_scale_b32 on its own: left unsupported (its effect as a separate instruction has no source here).
  auto ld = test::make_snippet("\tv_mfma_ld_scale_b32 v20, v21", Target::gfx950);
  ASSERT_TRUE(ld);
  EXPECT_EQ(ld->run().kind, Stop::Kind::unsupported);
}

/// fp_mx.hpp's decoders against this file's, for every code, plus OCP MX v1.0 anchor values (§5.3.2 tables: E2M3
/// max 7.5 and min subnormal 0.125; E3M2 max 28 and min subnormal 0.0625; E2M1 max 6 and min subnormal 0.5).
TEST(SemMfma, MxDecodersMatchOcpSpec) {
  for (u32 v = 0; v < 64; ++v) {
    EXPECT_EQ(static_cast<double>(fp::fp6_e2m3_to_f32(v)), dec_mx(v, 2, 3, 1)) << v;
    EXPECT_EQ(static_cast<double>(fp::fp6_e3m2_to_f32(v)), dec_mx(v, 3, 2, 3)) << v;
  }
  for (u32 v = 0; v < 16; ++v) EXPECT_EQ(static_cast<double>(fp::fp4_e2m1_to_f32(v)), dec_mx(v, 2, 1, 1)) << v;
  EXPECT_EQ(dec_mx(0x1f, 2, 3, 1), 7.5);
  EXPECT_EQ(dec_mx(0x01, 2, 3, 1), 0.125);
  EXPECT_EQ(dec_mx(0x1f, 3, 2, 3), 28.0);
  EXPECT_EQ(dec_mx(0x01, 3, 2, 3), 0.0625);
  EXPECT_EQ(dec_mx(0x7, 2, 1, 1), 6.0);
  EXPECT_EQ(dec_mx(0x1, 2, 1, 1), 0.5);
  EXPECT_EQ(dec_mx(0xf, 2, 1, 1), -6.0);
  for (unsigned e = 0; e < 255; ++e) {
    const auto s = fp::e8m0_decode(static_cast<std::uint8_t>(e));
    EXPECT_FALSE(s.nan);
    EXPECT_EQ(std::ldexp(1.0, s.exp), std::ldexp(1.0, static_cast<int>(e) - 127)) << e;
  }
  EXPECT_TRUE(fp::e8m0_decode(0xff).nan);
}

/// gfx950 pass counts: AMD's CDNA4 blog cycle table (16x16x32 f16 16, 32x32x16 f16 32, f8f6f4 16x16x128 16 or 32
/// and 32x32x64 32 or 64 — the larger when A or B is fp8/bf8, f64 16x16x4 64) and, for forms the blog leaves out,
/// LLVM 22's SIDPGFX950FullSpeedModel regexes, at 4 cycles per pass.
TEST(SemMfma, Gfx950PassesFromSources) {
  for (const Case& c : cases950) {
    const MfmaInfo* i = mfma_info(c.op, Target::gfx950);
    ASSERT_NE(i, nullptr) << c.mnemonic();
    EXPECT_EQ(i->passes * 4, c.cycles) << c.mnemonic();
    EXPECT_EQ(i->m, c.m) << c.mnemonic();
    EXPECT_EQ(i->k, c.k) << c.mnemonic();
    EXPECT_EQ(i->sparse, c.sparse) << c.mnemonic();
  }
  struct F { Opcode op; unsigned cbsz, blgp, cycles; };
  const F f8f6f4[] = {
      {op::v_mfma_f32_16x16x128_f8f6f4, 0, 0, 32}, {op::v_mfma_f32_16x16x128_f8f6f4, 4, 1, 32},
      {op::v_mfma_f32_16x16x128_f8f6f4, 4, 4, 16}, {op::v_mfma_f32_16x16x128_f8f6f4, 2, 3, 16},
      {op::v_mfma_scale_f32_16x16x128_f8f6f4, 1, 4, 32}, {op::v_mfma_scale_f32_16x16x128_f8f6f4, 4, 2, 16},
      {op::v_mfma_f32_32x32x64_f8f6f4, 0, 4, 64}, {op::v_mfma_f32_32x32x64_f8f6f4, 4, 4, 32},
      {op::v_mfma_scale_f32_32x32x64_f8f6f4, 1, 1, 64}, {op::v_mfma_scale_f32_32x32x64_f8f6f4, 3, 2, 32},
  };
  for (const F& f : f8f6f4) {
    const MfmaInfo* i = mfma_info(f.op, Target::gfx950);
    ASSERT_NE(i, nullptr) << op_name(f.op);
    EXPECT_EQ(i->passes_for(f.cbsz, f.blgp) * 4, f.cycles) << op_name(f.op) << " cbsz " << f.cbsz << " blgp " << f.blgp;
  }
  EXPECT_EQ(mfma_info(op::v_mfma_f64_16x16x4_f64, Target::gfx950)->passes * 4, 64u);
  EXPECT_EQ(mfma_info(op::v_mfma_f64_16x16x4_f64, Target::gfx942)->passes * 4, 32u);  // calculator cdna3
  EXPECT_EQ(mfma_info(op::v_mfma_f32_32x32x8_f16, Target::gfx950)->passes * 4, 32u);  // blog: 32x32x8 f16 32
  EXPECT_EQ(mfma_info(op::v_mfma_f32_32x32x2_f32, Target::gfx950)->passes * 4, 64u);  // blog: 32x32x2 f32 64
  // Every gfx950 row names its source.
  EXPECT_NE(mfma_info(op::v_mfma_f32_16x16x16_f16, Target::gfx950)->source.find("SIDPGFX950"), std::string_view::npos);
}

/// Informational: emulated MFMA rate (printed, not asserted; the matrix work per instruction is 2K-16K MACs).
TEST(SemMfma, Rate) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "\tv_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]\n";
  for (int i = 0; i < 200; ++i) text += "\tv_mfma_f32_16x16x16_f16 a[16:19], v[0:1], v[2:3], a[16:19]\n";
  double best = 1e9;
  for (int rep = 0; rep < 5; ++rep) {  // best of 5: the machine is shared
    auto s = test::make_snippet(text, Target::gfx942);
    ASSERT_TRUE(s);
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(s->run().kind, Stop::Kind::none);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("400 MFMA wave-instructions (32x32x8, 16x16x16 f16) in %.3f ms: %.0f per second\n", best * 1e3, 400 / best);
}

}  // namespace
