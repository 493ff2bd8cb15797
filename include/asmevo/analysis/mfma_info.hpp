// Geometry and issue cost of the matrix-core (MFMA / SMFMAC) opcodes per target, shared by the MFMA semantics,
// the hazard rules and the cost model.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "asmevo/ir/op.hpp"
#include "asmevo/ir/target.hpp"

namespace asmevo::analysis {

/// Element type of an MFMA operand. fp8/bf8 are the target's 8-bit float formats: the NUZ variants (bias 8/16, no
/// infinities, 0x80 is the only NaN) on gfx942, the OCP E4M3/E5M2 formats on gfx950 (AMD matrix instruction
/// calculator dict_math_types 'amd_fp8'/'amd_bf8' for CDNA3). xf32 is an f32 operand the matrix core reads at
/// reduced precision (gfx942 only). f8f6f4 is gfx950's format-selectable input (cbsz/blgp pick the formats).
enum class MfmaType : std::uint8_t { f32, xf32, f16, bf16, i8, i32, f64, fp8, bf8, f8f6f4 };

/// One MFMA or SMFMAC opcode on one target. A block is an independent M x N x K product; `blocks` of them run at
/// once (the 4x4 forms have 16, 2b/4b forms 2 or 4). `passes` is how many 4-cycle passes the matrix pipeline
/// needs (the unit of the MFMA wait-state rules and of the cost model); for gfx950's f8f6f4 forms it is the larger
/// (fp8/bf8) figure and passes_for() gives the one of an instance.
struct MfmaInfo {
  Opcode op = Opcode::invalid;
  unsigned m = 0, n = 0, k = 0;
  unsigned blocks = 1;
  unsigned passes = 0;
  bool dgemm = false;   ///< f64 (DGEMM pipeline)
  bool sparse = false;  ///< SMFMAC (gfx942): A is 2:4 structured-sparse, K counts the dense extent
  std::string_view source;  ///< where the pass count comes from
  MfmaType a = MfmaType::f32, b = MfmaType::f32;  ///< SrcA / SrcB element types
  MfmaType cd = MfmaType::f32;                    ///< SrcC / vdst element type
  /// f8f6f4 forms (gfx950): passes when neither A nor B is an 8-bit format (cbsz > 1 and blgp > 1); `passes` is
  /// then the fp8/bf8 figure, the larger (LLVM SISchedule.td PredIsF8_MFMA_SCALE). 0 for every other opcode.
  unsigned passes_narrow = 0;

  /// The passes of one instance, given its CBSZ and BLGP fields (for the f8f6f4 forms they pick the A and B
  /// formats: 0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4; LLVM SISchedule.td WriteMFMAScale_16X16X128_F8F6F4 and
  /// _32X32X64_, which GCNHazardRecognizer resolves per instruction).
  [[nodiscard]] constexpr unsigned passes_for(unsigned cbsz, unsigned blgp) const noexcept {
    return passes_narrow != 0 && cbsz > 1 && blgp > 1 ? passes_narrow : passes;
  }
};

namespace detail {

// Where the pass counts come from. The calculator lists "cycles" per instruction; a pass is 4 cycles (MI300 ISA
// (CDNA3) §7.1 "passes", LLVM SISchedule.td Write{2,4,8,16}PassMAI).
inline constexpr std::string_view src_calc =
    "AMD matrix instruction calculator (github ROCm/amd_matrix_instruction_calculator, matrix_calculator.py "
    "dict_insts cdna2/cdna3 'cycles') / 4";
/// gfx950 (every row, shared or new): the calculator has no CDNA4 table (its newest README/AGENTS.md cover CDNA1-3
/// only), so the figures are LLVM 22's own gfx950 model, the one its GCNHazardRecognizer reads MFMA pass counts
/// from (getMFMAPipelineWaitStates: the resolved sched class's ReleaseAtCycle). The new-shape figures agree with
/// AMD's CDNA4 matrix-core blog (rocm.blogs.amd.com "Matrix Core Programming on AMD CDNA3 and CDNA4", table of
/// cycles: 16x16x32 f16 16, 32x32x16 f16 32, 16x16x128 f8f6f4 16 or 32, 32x32x64 f8f6f4 32 or 64, f64 16x16x4 64).
inline constexpr std::string_view src_sched950 =
    "LLVM 22 SISchedule.td SIDPGFX950FullSpeedModel InstRW (Write{2,4,8,16}PassMAI, Write{4,16}PassDGEMM; f8f6f4: "
    "WriteMFMAScale_* variant, 8/16 passes when cbsz or blgp selects fp8/bf8, else 4/8)";

struct MfmaRow {
  Opcode op;
  Target target;
  unsigned m, n, k, blocks, passes;
  bool dgemm, sparse;
  MfmaType a, b, cd;
  std::string_view source;
  unsigned passes_narrow = 0;
};

// Every MFMA/SMFMAC op of the generated ISA tables (asmevo::isa::mnemonics), plus, on gfx942/gfx950, the gfx90a
// spellings LLVM still accepts there as rename aliases (v_mfma_f32_32x32x8f16 = v_mfma_f32_32x32x8_f16), which are
// ops of gfx90a. (Aliases that are no op of any target, such as v_smfmac_f32_16x16x32f16, have no row: the parser
// reads them as their canonical op, whose row holds the same figures.) Geometry
// (m, n, k, blocks, types) from the calculator's dict_insts for gfx90a (cdna2) and gfx942 (cdna3); gfx950-only
// forms from their mnemonics (LLVM 22 VOP3PInstructions.td, HasGFX950Insts). Not covered: gfx950's
// v_mfma_ld_scale_b32 (not a matrix product: the scale-load half of the 128-bit v_mfma_scale_* encoding).
// Sorted by (op, target); Opcode values follow mnemonic order.
inline constexpr MfmaRow mfma_rows[] = {
    {op::v_mfma_f32_16x16x128_f8f6f4, Target::gfx950, 16, 16, 128, 1, 8, false, false, MfmaType::f8f6f4, MfmaType::f8f6f4, MfmaType::f32, src_sched950, 4},
    {op::v_mfma_f32_16x16x16_bf16, Target::gfx942, 16, 16, 16, 1, 4, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x16_bf16, Target::gfx950, 16, 16, 16, 1, 4, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x16_f16, Target::gfx942, 16, 16, 16, 1, 4, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x16_f16, Target::gfx950, 16, 16, 16, 1, 4, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x16bf16_1k, Target::gfx90a, 16, 16, 16, 1, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x16bf16_1k, Target::gfx942, 16, 16, 16, 1, 4, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x16bf16_1k, Target::gfx950, 16, 16, 16, 1, 4, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x16f16, Target::gfx90a, 16, 16, 16, 1, 8, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x16f16, Target::gfx942, 16, 16, 16, 1, 4, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x16f16, Target::gfx950, 16, 16, 16, 1, 4, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x1_4b_f32, Target::gfx942, 16, 16, 1, 4, 8, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x1_4b_f32, Target::gfx950, 16, 16, 1, 4, 8, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x1f32, Target::gfx90a, 16, 16, 1, 4, 8, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x1f32, Target::gfx942, 16, 16, 1, 4, 8, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x1f32, Target::gfx950, 16, 16, 1, 4, 8, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x2bf16, Target::gfx90a, 16, 16, 2, 4, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x32_bf16, Target::gfx950, 16, 16, 32, 1, 4, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x32_bf8_bf8, Target::gfx942, 16, 16, 32, 1, 4, false, false, MfmaType::bf8, MfmaType::bf8, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x32_bf8_bf8, Target::gfx950, 16, 16, 32, 1, 4, false, false, MfmaType::bf8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x32_bf8_fp8, Target::gfx942, 16, 16, 32, 1, 4, false, false, MfmaType::bf8, MfmaType::fp8, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x32_bf8_fp8, Target::gfx950, 16, 16, 32, 1, 4, false, false, MfmaType::bf8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x32_f16, Target::gfx950, 16, 16, 32, 1, 4, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x32_fp8_bf8, Target::gfx942, 16, 16, 32, 1, 4, false, false, MfmaType::fp8, MfmaType::bf8, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x32_fp8_bf8, Target::gfx950, 16, 16, 32, 1, 4, false, false, MfmaType::fp8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x32_fp8_fp8, Target::gfx942, 16, 16, 32, 1, 4, false, false, MfmaType::fp8, MfmaType::fp8, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x32_fp8_fp8, Target::gfx950, 16, 16, 32, 1, 4, false, false, MfmaType::fp8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x4_4b_bf16, Target::gfx942, 16, 16, 4, 4, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x4_4b_bf16, Target::gfx950, 16, 16, 4, 4, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x4_4b_f16, Target::gfx942, 16, 16, 4, 4, 8, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x4_4b_f16, Target::gfx950, 16, 16, 4, 4, 8, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x4_f32, Target::gfx942, 16, 16, 4, 1, 8, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x4_f32, Target::gfx950, 16, 16, 4, 1, 8, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x4bf16_1k, Target::gfx90a, 16, 16, 4, 4, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x4bf16_1k, Target::gfx942, 16, 16, 4, 4, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x4bf16_1k, Target::gfx950, 16, 16, 4, 4, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x4f16, Target::gfx90a, 16, 16, 4, 4, 8, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x4f16, Target::gfx942, 16, 16, 4, 4, 8, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x4f16, Target::gfx950, 16, 16, 4, 4, 8, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x4f32, Target::gfx90a, 16, 16, 4, 1, 8, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x4f32, Target::gfx942, 16, 16, 4, 1, 8, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x4f32, Target::gfx950, 16, 16, 4, 1, 8, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_16x16x8_xf32, Target::gfx942, 16, 16, 8, 1, 4, false, false, MfmaType::xf32, MfmaType::xf32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_16x16x8bf16, Target::gfx90a, 16, 16, 8, 1, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x16_bf16, Target::gfx950, 32, 32, 16, 1, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x16_bf8_bf8, Target::gfx942, 32, 32, 16, 1, 8, false, false, MfmaType::bf8, MfmaType::bf8, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x16_bf8_bf8, Target::gfx950, 32, 32, 16, 1, 8, false, false, MfmaType::bf8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x16_bf8_fp8, Target::gfx942, 32, 32, 16, 1, 8, false, false, MfmaType::bf8, MfmaType::fp8, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x16_bf8_fp8, Target::gfx950, 32, 32, 16, 1, 8, false, false, MfmaType::bf8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x16_f16, Target::gfx950, 32, 32, 16, 1, 8, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x16_fp8_bf8, Target::gfx942, 32, 32, 16, 1, 8, false, false, MfmaType::fp8, MfmaType::bf8, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x16_fp8_bf8, Target::gfx950, 32, 32, 16, 1, 8, false, false, MfmaType::fp8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x16_fp8_fp8, Target::gfx942, 32, 32, 16, 1, 8, false, false, MfmaType::fp8, MfmaType::fp8, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x16_fp8_fp8, Target::gfx950, 32, 32, 16, 1, 8, false, false, MfmaType::fp8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x1_2b_f32, Target::gfx942, 32, 32, 1, 2, 16, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x1_2b_f32, Target::gfx950, 32, 32, 1, 2, 16, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x1f32, Target::gfx90a, 32, 32, 1, 2, 16, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x1f32, Target::gfx942, 32, 32, 1, 2, 16, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x1f32, Target::gfx950, 32, 32, 1, 2, 16, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x2_f32, Target::gfx942, 32, 32, 2, 1, 16, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x2_f32, Target::gfx950, 32, 32, 2, 1, 16, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x2bf16, Target::gfx90a, 32, 32, 2, 2, 16, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x2f32, Target::gfx90a, 32, 32, 2, 1, 16, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x2f32, Target::gfx942, 32, 32, 2, 1, 16, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x2f32, Target::gfx950, 32, 32, 2, 1, 16, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x4_2b_bf16, Target::gfx942, 32, 32, 4, 2, 16, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x4_2b_bf16, Target::gfx950, 32, 32, 4, 2, 16, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x4_2b_f16, Target::gfx942, 32, 32, 4, 2, 16, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x4_2b_f16, Target::gfx950, 32, 32, 4, 2, 16, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x4_xf32, Target::gfx942, 32, 32, 4, 1, 8, false, false, MfmaType::xf32, MfmaType::xf32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x4bf16, Target::gfx90a, 32, 32, 4, 1, 16, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x4bf16, Target::gfx942, 32, 32, 4, 2, 16, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x4bf16, Target::gfx950, 32, 32, 4, 2, 16, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x4bf16_1k, Target::gfx90a, 32, 32, 4, 2, 16, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x4bf16_1k, Target::gfx942, 32, 32, 4, 2, 16, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x4bf16_1k, Target::gfx950, 32, 32, 4, 2, 16, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x4f16, Target::gfx90a, 32, 32, 4, 2, 16, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x4f16, Target::gfx942, 32, 32, 4, 2, 16, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x4f16, Target::gfx950, 32, 32, 4, 2, 16, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x64_f8f6f4, Target::gfx950, 32, 32, 64, 1, 16, false, false, MfmaType::f8f6f4, MfmaType::f8f6f4, MfmaType::f32, src_sched950, 8},
    {op::v_mfma_f32_32x32x8_bf16, Target::gfx942, 32, 32, 8, 1, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x8_bf16, Target::gfx950, 32, 32, 8, 1, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x8_f16, Target::gfx942, 32, 32, 8, 1, 8, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x8_f16, Target::gfx950, 32, 32, 8, 1, 8, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x8bf16_1k, Target::gfx90a, 32, 32, 8, 1, 16, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x8bf16_1k, Target::gfx942, 32, 32, 8, 1, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x8bf16_1k, Target::gfx950, 32, 32, 8, 1, 8, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_32x32x8f16, Target::gfx90a, 32, 32, 8, 1, 16, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x8f16, Target::gfx942, 32, 32, 8, 1, 8, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_32x32x8f16, Target::gfx950, 32, 32, 8, 1, 8, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_4x4x1_16b_f32, Target::gfx942, 4, 4, 1, 16, 2, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_4x4x1_16b_f32, Target::gfx950, 4, 4, 1, 16, 2, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_4x4x1f32, Target::gfx90a, 4, 4, 1, 16, 2, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_4x4x1f32, Target::gfx942, 4, 4, 1, 16, 2, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_calc},
    {op::v_mfma_f32_4x4x1f32, Target::gfx950, 4, 4, 1, 16, 2, false, false, MfmaType::f32, MfmaType::f32, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_4x4x2bf16, Target::gfx90a, 4, 4, 2, 16, 2, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_4x4x4_16b_bf16, Target::gfx942, 4, 4, 4, 16, 2, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_4x4x4_16b_bf16, Target::gfx950, 4, 4, 4, 16, 2, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_4x4x4_16b_f16, Target::gfx942, 4, 4, 4, 16, 2, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_4x4x4_16b_f16, Target::gfx950, 4, 4, 4, 16, 2, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_4x4x4bf16_1k, Target::gfx90a, 4, 4, 4, 16, 2, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_4x4x4bf16_1k, Target::gfx942, 4, 4, 4, 16, 2, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_4x4x4bf16_1k, Target::gfx950, 4, 4, 4, 16, 2, false, false, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_mfma_f32_4x4x4f16, Target::gfx90a, 4, 4, 4, 16, 2, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_4x4x4f16, Target::gfx942, 4, 4, 4, 16, 2, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_mfma_f32_4x4x4f16, Target::gfx950, 4, 4, 4, 16, 2, false, false, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_mfma_f64_16x16x4_f64, Target::gfx942, 16, 16, 4, 1, 8, true, false, MfmaType::f64, MfmaType::f64, MfmaType::f64, src_calc},
    {op::v_mfma_f64_16x16x4_f64, Target::gfx950, 16, 16, 4, 1, 16, true, false, MfmaType::f64, MfmaType::f64, MfmaType::f64, src_sched950},
    {op::v_mfma_f64_16x16x4f64, Target::gfx90a, 16, 16, 4, 1, 8, true, false, MfmaType::f64, MfmaType::f64, MfmaType::f64, src_calc},
    {op::v_mfma_f64_16x16x4f64, Target::gfx942, 16, 16, 4, 1, 8, true, false, MfmaType::f64, MfmaType::f64, MfmaType::f64, src_calc},
    {op::v_mfma_f64_16x16x4f64, Target::gfx950, 16, 16, 4, 1, 16, true, false, MfmaType::f64, MfmaType::f64, MfmaType::f64, src_sched950},
    {op::v_mfma_f64_4x4x4_4b_f64, Target::gfx942, 4, 4, 4, 4, 4, true, false, MfmaType::f64, MfmaType::f64, MfmaType::f64, src_calc},
    {op::v_mfma_f64_4x4x4_4b_f64, Target::gfx950, 4, 4, 4, 4, 4, true, false, MfmaType::f64, MfmaType::f64, MfmaType::f64, src_sched950},
    {op::v_mfma_f64_4x4x4f64, Target::gfx90a, 4, 4, 4, 4, 4, true, false, MfmaType::f64, MfmaType::f64, MfmaType::f64, src_calc},
    {op::v_mfma_f64_4x4x4f64, Target::gfx942, 4, 4, 4, 4, 4, true, false, MfmaType::f64, MfmaType::f64, MfmaType::f64, src_calc},
    {op::v_mfma_f64_4x4x4f64, Target::gfx950, 4, 4, 4, 4, 4, true, false, MfmaType::f64, MfmaType::f64, MfmaType::f64, src_sched950},
    {op::v_mfma_i32_16x16x16i8, Target::gfx90a, 16, 16, 16, 1, 8, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_16x16x32_i8, Target::gfx942, 16, 16, 32, 1, 4, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_16x16x32_i8, Target::gfx950, 16, 16, 32, 1, 4, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_mfma_i32_16x16x4_4b_i8, Target::gfx942, 16, 16, 4, 4, 8, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_16x16x4_4b_i8, Target::gfx950, 16, 16, 4, 4, 8, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_mfma_i32_16x16x4i8, Target::gfx90a, 16, 16, 4, 4, 8, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_16x16x4i8, Target::gfx942, 16, 16, 4, 4, 8, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_16x16x4i8, Target::gfx950, 16, 16, 4, 4, 8, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_mfma_i32_16x16x64_i8, Target::gfx950, 16, 16, 64, 1, 4, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_mfma_i32_32x32x16_i8, Target::gfx942, 32, 32, 16, 1, 8, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_32x32x16_i8, Target::gfx950, 32, 32, 16, 1, 8, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_mfma_i32_32x32x32_i8, Target::gfx950, 32, 32, 32, 1, 8, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_mfma_i32_32x32x4_2b_i8, Target::gfx942, 32, 32, 4, 2, 16, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_32x32x4_2b_i8, Target::gfx950, 32, 32, 4, 2, 16, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_mfma_i32_32x32x4i8, Target::gfx90a, 32, 32, 4, 2, 16, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_32x32x4i8, Target::gfx942, 32, 32, 4, 2, 16, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_32x32x4i8, Target::gfx950, 32, 32, 4, 2, 16, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_mfma_i32_32x32x8i8, Target::gfx90a, 32, 32, 8, 1, 16, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_4x4x4_16b_i8, Target::gfx942, 4, 4, 4, 16, 2, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_4x4x4_16b_i8, Target::gfx950, 4, 4, 4, 16, 2, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_mfma_i32_4x4x4i8, Target::gfx90a, 4, 4, 4, 16, 2, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_4x4x4i8, Target::gfx942, 4, 4, 4, 16, 2, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_mfma_i32_4x4x4i8, Target::gfx950, 4, 4, 4, 16, 2, false, false, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_mfma_scale_f32_16x16x128_f8f6f4, Target::gfx950, 16, 16, 128, 1, 8, false, false, MfmaType::f8f6f4, MfmaType::f8f6f4, MfmaType::f32, src_sched950, 4},
    {op::v_mfma_scale_f32_32x32x64_f8f6f4, Target::gfx950, 32, 32, 64, 1, 16, false, false, MfmaType::f8f6f4, MfmaType::f8f6f4, MfmaType::f32, src_sched950, 8},
    {op::v_smfmac_f32_16x16x128_bf8_bf8, Target::gfx950, 16, 16, 128, 1, 4, false, true, MfmaType::bf8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_16x16x128_bf8_fp8, Target::gfx950, 16, 16, 128, 1, 4, false, true, MfmaType::bf8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_16x16x128_fp8_bf8, Target::gfx950, 16, 16, 128, 1, 4, false, true, MfmaType::fp8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_16x16x128_fp8_fp8, Target::gfx950, 16, 16, 128, 1, 4, false, true, MfmaType::fp8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_16x16x32_bf16, Target::gfx942, 16, 16, 32, 1, 4, false, true, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_16x16x32_bf16, Target::gfx950, 16, 16, 32, 1, 4, false, true, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_16x16x32_f16, Target::gfx942, 16, 16, 32, 1, 4, false, true, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_16x16x32_f16, Target::gfx950, 16, 16, 32, 1, 4, false, true, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_16x16x64_bf16, Target::gfx950, 16, 16, 64, 1, 4, false, true, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_16x16x64_bf8_bf8, Target::gfx942, 16, 16, 64, 1, 4, false, true, MfmaType::bf8, MfmaType::bf8, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_16x16x64_bf8_bf8, Target::gfx950, 16, 16, 64, 1, 4, false, true, MfmaType::bf8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_16x16x64_bf8_fp8, Target::gfx942, 16, 16, 64, 1, 4, false, true, MfmaType::bf8, MfmaType::fp8, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_16x16x64_bf8_fp8, Target::gfx950, 16, 16, 64, 1, 4, false, true, MfmaType::bf8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_16x16x64_f16, Target::gfx950, 16, 16, 64, 1, 4, false, true, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_16x16x64_fp8_bf8, Target::gfx942, 16, 16, 64, 1, 4, false, true, MfmaType::fp8, MfmaType::bf8, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_16x16x64_fp8_bf8, Target::gfx950, 16, 16, 64, 1, 4, false, true, MfmaType::fp8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_16x16x64_fp8_fp8, Target::gfx942, 16, 16, 64, 1, 4, false, true, MfmaType::fp8, MfmaType::fp8, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_16x16x64_fp8_fp8, Target::gfx950, 16, 16, 64, 1, 4, false, true, MfmaType::fp8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x16_bf16, Target::gfx942, 32, 32, 16, 1, 8, false, true, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_32x32x16_bf16, Target::gfx950, 32, 32, 16, 1, 8, false, true, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x16_f16, Target::gfx942, 32, 32, 16, 1, 8, false, true, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_32x32x16_f16, Target::gfx950, 32, 32, 16, 1, 8, false, true, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x32_bf16, Target::gfx950, 32, 32, 32, 1, 8, false, true, MfmaType::bf16, MfmaType::bf16, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x32_bf8_bf8, Target::gfx942, 32, 32, 32, 1, 8, false, true, MfmaType::bf8, MfmaType::bf8, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_32x32x32_bf8_bf8, Target::gfx950, 32, 32, 32, 1, 8, false, true, MfmaType::bf8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x32_bf8_fp8, Target::gfx942, 32, 32, 32, 1, 8, false, true, MfmaType::bf8, MfmaType::fp8, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_32x32x32_bf8_fp8, Target::gfx950, 32, 32, 32, 1, 8, false, true, MfmaType::bf8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x32_f16, Target::gfx950, 32, 32, 32, 1, 8, false, true, MfmaType::f16, MfmaType::f16, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x32_fp8_bf8, Target::gfx942, 32, 32, 32, 1, 8, false, true, MfmaType::fp8, MfmaType::bf8, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_32x32x32_fp8_bf8, Target::gfx950, 32, 32, 32, 1, 8, false, true, MfmaType::fp8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x32_fp8_fp8, Target::gfx942, 32, 32, 32, 1, 8, false, true, MfmaType::fp8, MfmaType::fp8, MfmaType::f32, src_calc},
    {op::v_smfmac_f32_32x32x32_fp8_fp8, Target::gfx950, 32, 32, 32, 1, 8, false, true, MfmaType::fp8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x64_bf8_bf8, Target::gfx950, 32, 32, 64, 1, 8, false, true, MfmaType::bf8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x64_bf8_fp8, Target::gfx950, 32, 32, 64, 1, 8, false, true, MfmaType::bf8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x64_fp8_bf8, Target::gfx950, 32, 32, 64, 1, 8, false, true, MfmaType::fp8, MfmaType::bf8, MfmaType::f32, src_sched950},
    {op::v_smfmac_f32_32x32x64_fp8_fp8, Target::gfx950, 32, 32, 64, 1, 8, false, true, MfmaType::fp8, MfmaType::fp8, MfmaType::f32, src_sched950},
    {op::v_smfmac_i32_16x16x128_i8, Target::gfx950, 16, 16, 128, 1, 4, false, true, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_smfmac_i32_16x16x64_i8, Target::gfx942, 16, 16, 64, 1, 4, false, true, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_smfmac_i32_16x16x64_i8, Target::gfx950, 16, 16, 64, 1, 4, false, true, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_smfmac_i32_32x32x32_i8, Target::gfx942, 32, 32, 32, 1, 8, false, true, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_calc},
    {op::v_smfmac_i32_32x32x32_i8, Target::gfx950, 32, 32, 32, 1, 8, false, true, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
    {op::v_smfmac_i32_32x32x64_i8, Target::gfx950, 32, 32, 64, 1, 8, false, true, MfmaType::i8, MfmaType::i8, MfmaType::i32, src_sched950},
};

[[nodiscard]] constexpr bool row_less(const MfmaRow& x, const MfmaRow& y) noexcept {
  return x.op < y.op || (x.op == y.op && static_cast<int>(x.target) < static_cast<int>(y.target));
}

[[nodiscard]] constexpr bool rows_sorted() noexcept {
  for (std::size_t i = 1; i < std::size(mfma_rows); ++i)
    if (!row_less(mfma_rows[i - 1], mfma_rows[i])) return false;
  return true;
}
static_assert(rows_sorted(), "mfma_rows must be sorted by (op, target), each pair once");
static_assert(std::size(mfma_rows) < 0xff, "mfma_row_of stores row + 1 in a byte");

inline constexpr auto mfma_infos = [] {
  std::array<MfmaInfo, std::size(mfma_rows)> out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    const MfmaRow& r = mfma_rows[i];
    out[i] = MfmaInfo{r.op, r.m, r.n, r.k, r.blocks, r.passes, r.dgemm, r.sparse, r.source, r.a, r.b, r.cd,
                      r.passes_narrow};
  }
  return out;
}();

/// The row of each (op, target) plus one, 0 for none: mfma_row_of[Opcode value][Target value].
inline constexpr auto mfma_row_of = [] {
  std::array<std::array<std::uint8_t, all_targets.size()>, num_ops> out{};
  for (std::size_t i = 0; i < std::size(mfma_rows); ++i)
    out[static_cast<std::size_t>(mfma_rows[i].op)][static_cast<std::size_t>(mfma_rows[i].target)] =
        static_cast<std::uint8_t>(i + 1);
  return out;
}();

}  // namespace detail

/// The entry for `o` on `t`, or nullptr when `t` has no such MFMA/SMFMAC opcode. O(1).
[[nodiscard]] constexpr const MfmaInfo* mfma_info(Opcode o, Target t) noexcept {
  const auto i = static_cast<std::size_t>(o), j = static_cast<std::size_t>(t);
  if (i >= num_ops || j >= all_targets.size()) return nullptr;
  const unsigned r = detail::mfma_row_of[i][j];
  return r ? &detail::mfma_infos[r - 1] : nullptr;
}

}  // namespace asmevo::analysis
