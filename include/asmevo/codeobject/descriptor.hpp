// The 64-byte AMDHSA kernel descriptor (code object v4-v6, gfx90a/gfx942/gfx950): its fields, `.amdhsa_kernel` directives both ways, and a metadata cross-check.
//
// Sources, cited per fact below:
//   [Usage]  llvm/docs/AMDGPUUsage.rst (LLVM 22.1.8): "Code Object V3 Kernel Descriptor", "compute_pgm_rsrc1 for
//            GFX6-GFX12", "compute_pgm_rsrc2 for GFX6-GFX12", "compute_pgm_rsrc3 for GFX90A, GFX942",
//            "AMDHSA Kernel Assembler Directives".
//   [KD.h]   llvm/include/llvm/Support/AMDHSAKernelDescriptor.h: byte offsets, bit shifts and widths.
//   [Parser] llvm/lib/Target/AMDGPU/AsmParser/AMDGPUAsmParser.cpp, ParseDirectiveAMDHSAKernel and
//            calculateGPRBlocks: defaults, range checks, granule arithmetic.
//   [Emit]   llvm/lib/Target/AMDGPU/MCTargetDesc/AMDGPUTargetStreamer.cpp, EmitAmdhsaKernelDescriptor.
//   [KDmc]   llvm/lib/Target/AMDGPU/MCTargetDesc/AMDGPUMCKernelDescriptor.cpp, getDefaultAmdhsaKernelDescriptor.
//   [Base]   llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp: getVGPREncodingGranule (8 with gfx90a-insts),
//            getSGPREncodingGranule (8), getAddressableNumSGPRs (102 on gfx8/gfx9), getNumExtraSGPRs,
//            getMaxNumUserSGPRs (16).
//   [Meta]   llvm/lib/Target/AMDGPU/AMDGPUHSAMetadataStreamer.cpp getHSAKernelProps and AMDGPUAsmPrinter.cpp
//            getSIProgramInfo: what `.sgpr_count`, `.vgpr_count` and `.agpr_count` mean.
#pragma once

#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/ir/program.hpp"
#include "asmevo/ir/target.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::codeobject {

/// Size of a kernel descriptor in bytes ([KD.h] static_assert; [Usage] "Total size 64 bytes").
inline constexpr std::size_t kernel_descriptor_size = 64;

/// What a descriptor field is, for printing, directives and checks.
enum class FieldRole : std::uint8_t {
  value,        ///< written 1:1 by its `.amdhsa_*` directive
  derived,      ///< computed by the assembler from a directive (granulated counts, accum_offset)
  linker,       ///< kernel_code_entry_byte_offset: the assembler/linker computes it from the kernel symbol
  must_be_zero, ///< [Usage] "Must be 0": the CP fills it in (priority, priv, debug_mode, LDS size ...); no directive
  reserved,     ///< [Usage] "Reserved, must be 0"
};

[[nodiscard]] constexpr std::string_view to_string(FieldRole r) noexcept {
  switch (r) {
    case FieldRole::value: return "value";
    case FieldRole::derived: return "derived";
    case FieldRole::linker: return "linker";
    case FieldRole::must_be_zero: return "must be 0";
    case FieldRole::reserved: return "reserved";
  }
  return "?";
}

/// Target bit of FieldInfo::targets.
[[nodiscard]] constexpr std::uint8_t target_bit(Target t) noexcept {
  return static_cast<std::uint8_t>(1u << static_cast<unsigned>(t));
}

/// One field of the descriptor: a bit range inside a little-endian word of `size` bytes at byte `offset`.
struct FieldInfo {
  std::string_view name;       ///< `compute_pgm_rsrc1.float_round_mode_32`
  std::uint8_t offset;         ///< byte offset of the containing word in the descriptor
  std::uint8_t size;           ///< bytes of the containing word (1..8)
  std::uint8_t shift;          ///< first bit inside the word
  std::uint8_t width;          ///< bits (1..64)
  std::uint8_t targets;        ///< target_bit() mask of the targets where the field exists (0: none of asmevo's)
  std::uint8_t min_cov;        ///< first code-object version with the field
  std::uint8_t max_cov;        ///< last code-object version asmevo knows with the field
  FieldRole role;
  std::string_view directive;  ///< the `.amdhsa_*` directive that writes it, or empty
  std::string_view note;       ///< extra facts (units, target differences), may be empty

  [[nodiscard]] constexpr bool exists_on(Target t, int cov) const noexcept {
    return (targets & target_bit(t)) != 0 && cov >= min_cov && cov <= max_cov;
  }
  [[nodiscard]] constexpr std::uint64_t mask() const noexcept {
    return width >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << width) - 1);
  }
};

namespace detail {
inline constexpr std::uint8_t all_t = 0b111;        // gfx90a, gfx942, gfx950
inline constexpr std::uint8_t gfx90a_t = 0b001;     // no architected flat scratch
inline constexpr std::uint8_t arch_fs_t = 0b110;    // gfx942, gfx950: FeatureArchitectedFlatScratch (AMDGPU.td
                                                    // FeatureISAVersion9_4_Common, inherited by 9_5)
inline constexpr std::uint8_t none_t = 0;           // GFX10+ fields, listed so `inspect` can name the bits
using R = FieldRole;
}  // namespace detail

/// Every field of the descriptor for gfx9-family targets, in memory order. Together the entries that exist on
/// one (target, code-object version) cover all 512 bits exactly once. Offsets, shifts and widths are [KD.h];
/// roles, target columns and "Must be 0" are [Usage]; directives are [Parser] / [Usage] directives table.
namespace detail {
inline constexpr FieldInfo field_rows[] = {
      {"group_segment_fixed_size", 0, 4, 0, 32, all_t, 4, 6, R::value, ".amdhsa_group_segment_fixed_size",
       "bytes of LDS per workgroup, not counting dynamic LDS"},
      {"private_segment_fixed_size", 4, 4, 0, 32, all_t, 4, 6, R::value, ".amdhsa_private_segment_fixed_size",
       "bytes of scratch per work-item"},
      {"kernarg_size", 8, 4, 0, 32, all_t, 4, 6, R::value, ".amdhsa_kernarg_size",
       "bytes of the kernarg segment; 0 = unspecified"},
      {"reserved0", 12, 4, 0, 32, all_t, 4, 6, R::reserved, "", ""},
      {"kernel_code_entry_byte_offset", 16, 8, 0, 64, all_t, 4, 6, R::linker, "",
       "signed bytes from the descriptor to the entry; the assembler emits kernel - kernel.kd, the linker resolves it"},
      {"reserved1[0:7]", 24, 8, 0, 64, all_t, 4, 6, R::reserved, "", ""},
      {"reserved1[8:15]", 32, 8, 0, 64, all_t, 4, 6, R::reserved, "", ""},
      {"reserved1[16:19]", 40, 4, 0, 32, all_t, 4, 6, R::reserved, "", ""},
      // compute_pgm_rsrc3, "compute_pgm_rsrc3 for GFX90A, GFX942" (gfx950 has the same layout).
      {"compute_pgm_rsrc3.accum_offset", 44, 4, 0, 6, all_t, 4, 6, R::derived, ".amdhsa_accum_offset",
       "first AccVGPR in the unified VGPR file: (value + 1) * 4"},
      {"compute_pgm_rsrc3.reserved0", 44, 4, 6, 10, all_t, 4, 6, R::reserved, "", ""},
      {"compute_pgm_rsrc3.tg_split", 44, 4, 16, 1, all_t, 4, 6, R::value, ".amdhsa_tg_split",
       "waves of a workgroup may run on different CUs (no LDS, no s_barrier)"},
      {"compute_pgm_rsrc3.reserved1", 44, 4, 17, 15, all_t, 4, 6, R::reserved, "", ""},
      // compute_pgm_rsrc1, "compute_pgm_rsrc1 for GFX6-GFX12".
      {"compute_pgm_rsrc1.granulated_workitem_vgpr_count", 48, 4, 0, 6, all_t, 4, 6, R::derived,
       ".amdhsa_next_free_vgpr", "(value + 1) * 8 VGPRs (arch + acc) allocated; granule 8 with gfx90a-insts"},
      {"compute_pgm_rsrc1.granulated_wavefront_sgpr_count", 48, 4, 6, 4, all_t, 4, 6, R::derived,
       ".amdhsa_next_free_sgpr", "(value + 1) * 8 SGPRs allocated, counting vcc/flat_scratch/xnack_mask"},
      {"compute_pgm_rsrc1.priority", 48, 4, 10, 2, all_t, 4, 6, R::must_be_zero, "", "the CP fills it in"},
      {"compute_pgm_rsrc1.float_round_mode_32", 48, 4, 12, 2, all_t, 4, 6, R::value, ".amdhsa_float_round_mode_32",
       "0 near-even, 1 +inf, 2 -inf, 3 zero"},
      {"compute_pgm_rsrc1.float_round_mode_16_64", 48, 4, 14, 2, all_t, 4, 6, R::value,
       ".amdhsa_float_round_mode_16_64", "0 near-even, 1 +inf, 2 -inf, 3 zero"},
      {"compute_pgm_rsrc1.float_denorm_mode_32", 48, 4, 16, 2, all_t, 4, 6, R::value, ".amdhsa_float_denorm_mode_32",
       "0 flush src+dst, 1 flush dst, 2 flush src, 3 flush none"},
      {"compute_pgm_rsrc1.float_denorm_mode_16_64", 48, 4, 18, 2, all_t, 4, 6, R::value,
       ".amdhsa_float_denorm_mode_16_64", "0 flush src+dst, 1 flush dst, 2 flush src, 3 flush none"},
      {"compute_pgm_rsrc1.priv", 48, 4, 20, 1, all_t, 4, 6, R::must_be_zero, "", "the CP fills it in"},
      {"compute_pgm_rsrc1.enable_dx10_clamp", 48, 4, 21, 1, all_t, 4, 6, R::value, ".amdhsa_dx10_clamp", ""},
      {"compute_pgm_rsrc1.debug_mode", 48, 4, 22, 1, all_t, 4, 6, R::must_be_zero, "", "the CP fills it in"},
      {"compute_pgm_rsrc1.enable_ieee_mode", 48, 4, 23, 1, all_t, 4, 6, R::value, ".amdhsa_ieee_mode", ""},
      {"compute_pgm_rsrc1.bulky", 48, 4, 24, 1, all_t, 4, 6, R::must_be_zero, "", "the CP fills it in"},
      {"compute_pgm_rsrc1.cdbg_user", 48, 4, 25, 1, all_t, 4, 6, R::must_be_zero, "", "the CP fills it in"},
      {"compute_pgm_rsrc1.fp16_ovfl", 48, 4, 26, 1, all_t, 4, 6, R::value, ".amdhsa_fp16_overflow", "GFX9+"},
      {"compute_pgm_rsrc1.reserved1", 48, 4, 27, 1, all_t, 4, 6, R::reserved, "", "FLAT_SCRATCH_IS_NV on GFX125x"},
      {"compute_pgm_rsrc1.reserved2", 48, 4, 28, 1, all_t, 4, 6, R::reserved, "", ""},
      {"compute_pgm_rsrc1.reserved3", 48, 4, 29, 3, all_t, 4, 6, R::reserved, "",
       "GFX6-GFX9; WGP_MODE, MEM_ORDERED, FWD_PROGRESS on GFX10+"},
      {"compute_pgm_rsrc1.wgp_mode", 48, 4, 29, 1, none_t, 4, 6, R::value, ".amdhsa_workgroup_processor_mode",
       "GFX10+ only"},
      {"compute_pgm_rsrc1.mem_ordered", 48, 4, 30, 1, none_t, 4, 6, R::value, ".amdhsa_memory_ordered", "GFX10+ only"},
      {"compute_pgm_rsrc1.fwd_progress", 48, 4, 31, 1, none_t, 4, 6, R::value, ".amdhsa_forward_progress",
       "GFX10+ only"},
      // compute_pgm_rsrc2, "compute_pgm_rsrc2 for GFX6-GFX12".
      {"compute_pgm_rsrc2.enable_private_segment", 52, 4, 0, 1, gfx90a_t, 4, 6, R::value,
       ".amdhsa_system_sgpr_private_segment_wavefront_offset", "scratch wave offset SGPR (no architected flat scratch)"},
      {"compute_pgm_rsrc2.enable_private_segment", 52, 4, 0, 1, arch_fs_t, 4, 6, R::value,
       ".amdhsa_enable_private_segment", "FLAT_SCRATCH set up by the CP (architected flat scratch)"},
      {"compute_pgm_rsrc2.user_sgpr_count", 52, 4, 1, 5, all_t, 4, 6, R::value, ".amdhsa_user_sgpr_count",
       "user SGPRs s0.. the CP initialises; >= the ones enabled in kernel_code_properties + preload length"},
      {"compute_pgm_rsrc2.enable_trap_handler", 52, 4, 6, 1, all_t, 4, 6, R::must_be_zero, "",
       "TRAP_PRESENT: the CP sets it when a trap handler is installed"},
      {"compute_pgm_rsrc2.enable_sgpr_workgroup_id_x", 52, 4, 7, 1, all_t, 4, 6, R::value,
       ".amdhsa_system_sgpr_workgroup_id_x", ""},
      {"compute_pgm_rsrc2.enable_sgpr_workgroup_id_y", 52, 4, 8, 1, all_t, 4, 6, R::value,
       ".amdhsa_system_sgpr_workgroup_id_y", ""},
      {"compute_pgm_rsrc2.enable_sgpr_workgroup_id_z", 52, 4, 9, 1, all_t, 4, 6, R::value,
       ".amdhsa_system_sgpr_workgroup_id_z", ""},
      {"compute_pgm_rsrc2.enable_sgpr_workgroup_info", 52, 4, 10, 1, all_t, 4, 6, R::value,
       ".amdhsa_system_sgpr_workgroup_info", ""},
      {"compute_pgm_rsrc2.enable_vgpr_workitem_id", 52, 4, 11, 2, all_t, 4, 6, R::value,
       ".amdhsa_system_vgpr_workitem_id", "0 x, 1 x+y, 2 x+y+z"},
      {"compute_pgm_rsrc2.enable_exception_address_watch", 52, 4, 13, 1, all_t, 4, 6, R::must_be_zero, "",
       "the CP fills it in"},
      {"compute_pgm_rsrc2.enable_exception_memory", 52, 4, 14, 1, all_t, 4, 6, R::must_be_zero, "",
       "the CP fills it in"},
      {"compute_pgm_rsrc2.granulated_lds_size", 52, 4, 15, 9, all_t, 4, 6, R::must_be_zero, "",
       "the CP uses the dispatch packet's LDS size"},
      {"compute_pgm_rsrc2.enable_exception_ieee_754_fp_invalid_operation", 52, 4, 24, 1, all_t, 4, 6, R::value,
       ".amdhsa_exception_fp_ieee_invalid_op", ""},
      {"compute_pgm_rsrc2.enable_exception_fp_denormal_source", 52, 4, 25, 1, all_t, 4, 6, R::value,
       ".amdhsa_exception_fp_denorm_src", ""},
      {"compute_pgm_rsrc2.enable_exception_ieee_754_fp_division_by_zero", 52, 4, 26, 1, all_t, 4, 6, R::value,
       ".amdhsa_exception_fp_ieee_div_zero", ""},
      {"compute_pgm_rsrc2.enable_exception_ieee_754_fp_overflow", 52, 4, 27, 1, all_t, 4, 6, R::value,
       ".amdhsa_exception_fp_ieee_overflow", ""},
      {"compute_pgm_rsrc2.enable_exception_ieee_754_fp_underflow", 52, 4, 28, 1, all_t, 4, 6, R::value,
       ".amdhsa_exception_fp_ieee_underflow", ""},
      {"compute_pgm_rsrc2.enable_exception_ieee_754_fp_inexact", 52, 4, 29, 1, all_t, 4, 6, R::value,
       ".amdhsa_exception_fp_ieee_inexact", ""},
      {"compute_pgm_rsrc2.enable_exception_int_divide_by_zero", 52, 4, 30, 1, all_t, 4, 6, R::value,
       ".amdhsa_exception_int_div_zero", ""},
      {"compute_pgm_rsrc2.reserved0", 52, 4, 31, 1, all_t, 4, 6, R::reserved, "", ""},
      // kernel_code_properties, "Code Object V3 Kernel Descriptor" bits 448..463.
      {"kernel_code_properties.enable_sgpr_private_segment_buffer", 56, 2, 0, 1, gfx90a_t, 4, 6, R::value,
       ".amdhsa_user_sgpr_private_segment_buffer", "4 user SGPRs"},
      {"kernel_code_properties.enable_sgpr_private_segment_buffer", 56, 2, 0, 1, arch_fs_t, 4, 6, R::must_be_zero, "",
       "not supported with architected flat scratch"},
      {"kernel_code_properties.enable_sgpr_dispatch_ptr", 56, 2, 1, 1, all_t, 4, 6, R::value,
       ".amdhsa_user_sgpr_dispatch_ptr", "2 user SGPRs"},
      {"kernel_code_properties.enable_sgpr_queue_ptr", 56, 2, 2, 1, all_t, 4, 6, R::value,
       ".amdhsa_user_sgpr_queue_ptr", "2 user SGPRs"},
      {"kernel_code_properties.enable_sgpr_kernarg_segment_ptr", 56, 2, 3, 1, all_t, 4, 6, R::value,
       ".amdhsa_user_sgpr_kernarg_segment_ptr", "2 user SGPRs"},
      {"kernel_code_properties.enable_sgpr_dispatch_id", 56, 2, 4, 1, all_t, 4, 6, R::value,
       ".amdhsa_user_sgpr_dispatch_id", "2 user SGPRs"},
      {"kernel_code_properties.enable_sgpr_flat_scratch_init", 56, 2, 5, 1, gfx90a_t, 4, 6, R::value,
       ".amdhsa_user_sgpr_flat_scratch_init", "2 user SGPRs"},
      {"kernel_code_properties.enable_sgpr_flat_scratch_init", 56, 2, 5, 1, arch_fs_t, 4, 6, R::must_be_zero, "",
       "not supported with architected flat scratch"},
      {"kernel_code_properties.enable_sgpr_private_segment_size", 56, 2, 6, 1, all_t, 4, 6, R::value,
       ".amdhsa_user_sgpr_private_segment_size", "1 user SGPR"},
      {"kernel_code_properties.reserved0", 56, 2, 7, 3, all_t, 4, 6, R::reserved, "", ""},
      {"kernel_code_properties.reserved_wavefront_size32", 56, 2, 10, 1, all_t, 4, 6, R::reserved, "",
       "ENABLE_WAVEFRONT_SIZE32 on GFX10+; reserved on GFX6-GFX9"},
      {"kernel_code_properties.enable_wavefront_size32", 56, 2, 10, 1, none_t, 4, 6, R::value,
       ".amdhsa_wavefront_size32", "GFX10+ only"},
      {"kernel_code_properties.uses_dynamic_stack", 56, 2, 11, 1, all_t, 4, 6, R::value, ".amdhsa_uses_dynamic_stack",
       "[Usage]: set only by code object v5+ producers; LLVM's assembler accepts the directive on v4 too"},
      {"kernel_code_properties.reserved1", 56, 2, 12, 4, all_t, 4, 6, R::reserved, "", ""},
      // kernarg_preload ([Usage] bits 464..479; [Parser] hasKernargPreload: FeatureKernargPreload, all three targets).
      {"kernarg_preload.length", 58, 2, 0, 7, all_t, 4, 6, R::value, ".amdhsa_user_sgpr_kernarg_preload_length",
       "kernarg dwords preloaded into user SGPRs (at most 16)"},
      {"kernarg_preload.offset", 58, 2, 7, 9, all_t, 4, 6, R::value, ".amdhsa_user_sgpr_kernarg_preload_offset",
       "first preloaded kernarg dword"},
      {"reserved3", 60, 4, 0, 32, all_t, 4, 6, R::reserved, "", ""},
};
}  // namespace detail
inline constexpr std::span<const FieldInfo> field_table{detail::field_rows};

namespace detail {

/// Index of the first table entry named `name` that exists on one of `target_mask`'s targets. An unknown name
/// gives the one-past-the-end index, so `field_at<field_index("typo")>` does not compile.
[[nodiscard]] constexpr std::size_t field_index(std::string_view name, std::uint8_t target_mask = all_t) {
  for (std::size_t i = 0; i < std::size(field_rows); ++i)
    if (field_rows[i].name == name && (field_rows[i].targets & target_mask) != 0) return i;
  return std::size(field_rows);
}

template <std::size_t I>
inline constexpr const FieldInfo& field_at = field_rows[I];

}  // namespace detail

/// Well-known fields, for code that reads or writes them by meaning. Each is checked at compile time.
namespace field {
#define ASMEVO_KD_FIELD(id, text) \
  inline constexpr const FieldInfo& id = detail::field_at<detail::field_index(text)>;
ASMEVO_KD_FIELD(group_segment_fixed_size, "group_segment_fixed_size")
ASMEVO_KD_FIELD(private_segment_fixed_size, "private_segment_fixed_size")
ASMEVO_KD_FIELD(kernarg_size, "kernarg_size")
ASMEVO_KD_FIELD(kernel_code_entry_byte_offset, "kernel_code_entry_byte_offset")
ASMEVO_KD_FIELD(accum_offset, "compute_pgm_rsrc3.accum_offset")
ASMEVO_KD_FIELD(tg_split, "compute_pgm_rsrc3.tg_split")
ASMEVO_KD_FIELD(priority, "compute_pgm_rsrc1.priority")
ASMEVO_KD_FIELD(float_denorm_mode_32, "compute_pgm_rsrc1.float_denorm_mode_32")
ASMEVO_KD_FIELD(float_denorm_mode_16_64, "compute_pgm_rsrc1.float_denorm_mode_16_64")
ASMEVO_KD_FIELD(dx10_clamp, "compute_pgm_rsrc1.enable_dx10_clamp")
ASMEVO_KD_FIELD(ieee_mode, "compute_pgm_rsrc1.enable_ieee_mode")
ASMEVO_KD_FIELD(vgpr_blocks, "compute_pgm_rsrc1.granulated_workitem_vgpr_count")
ASMEVO_KD_FIELD(sgpr_blocks, "compute_pgm_rsrc1.granulated_wavefront_sgpr_count")
ASMEVO_KD_FIELD(enable_private_segment, "compute_pgm_rsrc2.enable_private_segment")
ASMEVO_KD_FIELD(user_sgpr_count, "compute_pgm_rsrc2.user_sgpr_count")
ASMEVO_KD_FIELD(workgroup_id_x, "compute_pgm_rsrc2.enable_sgpr_workgroup_id_x")
ASMEVO_KD_FIELD(workgroup_id_y, "compute_pgm_rsrc2.enable_sgpr_workgroup_id_y")
ASMEVO_KD_FIELD(workgroup_id_z, "compute_pgm_rsrc2.enable_sgpr_workgroup_id_z")
ASMEVO_KD_FIELD(workgroup_info, "compute_pgm_rsrc2.enable_sgpr_workgroup_info")
ASMEVO_KD_FIELD(vgpr_workitem_id, "compute_pgm_rsrc2.enable_vgpr_workitem_id")
ASMEVO_KD_FIELD(private_segment_buffer, "kernel_code_properties.enable_sgpr_private_segment_buffer")
ASMEVO_KD_FIELD(dispatch_ptr, "kernel_code_properties.enable_sgpr_dispatch_ptr")
ASMEVO_KD_FIELD(queue_ptr, "kernel_code_properties.enable_sgpr_queue_ptr")
ASMEVO_KD_FIELD(kernarg_segment_ptr, "kernel_code_properties.enable_sgpr_kernarg_segment_ptr")
ASMEVO_KD_FIELD(dispatch_id, "kernel_code_properties.enable_sgpr_dispatch_id")
ASMEVO_KD_FIELD(flat_scratch_init, "kernel_code_properties.enable_sgpr_flat_scratch_init")
ASMEVO_KD_FIELD(private_segment_size, "kernel_code_properties.enable_sgpr_private_segment_size")
ASMEVO_KD_FIELD(wavefront_size32_bit, "kernel_code_properties.reserved_wavefront_size32")
ASMEVO_KD_FIELD(uses_dynamic_stack, "kernel_code_properties.uses_dynamic_stack")
ASMEVO_KD_FIELD(preload_length, "kernarg_preload.length")
ASMEVO_KD_FIELD(preload_offset, "kernarg_preload.offset")
#undef ASMEVO_KD_FIELD
}  // namespace field

/// Targets with architected flat scratch (gfx942, gfx950): no private-segment-buffer / flat-scratch-init user
/// SGPRs, `.amdhsa_enable_private_segment`, and FLAT_SCRATCH always counted among the extra SGPRs ([Base]).
[[nodiscard]] constexpr bool has_architected_flat_scratch(Target t) noexcept {
  return (detail::arch_fs_t & target_bit(t)) != 0;
}

/// Granules of the register counts in compute_pgm_rsrc1 ([Base] getVGPREncodingGranule with FeatureGFX90AInsts,
/// getSGPREncodingGranule). AMDGPUUsage's GFX9 SGPR formula (2 * ceil(n/16) - 2) is not what LLVM encodes.
inline constexpr int vgpr_encoding_granule = 8;
inline constexpr int sgpr_encoding_granule = 8;
/// s0..s101 are addressable on gfx8/gfx9 ([Base] getAddressableNumSGPRs); `.amdhsa_next_free_sgpr` may not exceed it.
inline constexpr int max_next_free_sgpr = 102;
/// The unified VGPR file: 512 per lane with gfx90a-insts ([Base] getTotalNumVGPRs / getAddressableNumVGPRs).
inline constexpr int max_total_vgprs = 512;
/// [Base] getMaxNumUserSGPRs (all but gfx1250).
inline constexpr int max_user_sgprs = 16;

/// Blocks-minus-one encoding of a register count: ceil(max(1, n) / granule) - 1 ([Parser] calculateGPRBlocks).
[[nodiscard]] constexpr int granulated(int n, int granule) noexcept {
  const int m = n < 1 ? 1 : n;
  return (m + granule - 1) / granule - 1;
}

/// SGPRs counted on top of the named ones for VCC, FLAT_SCRATCH and XNACK_MASK ([Base]
/// getNumExtraSGPRs, gfx8/gfx9 branch): 2 for VCC; 4 with XNACK; 6 with FLAT_SCRATCH, which architected flat
/// scratch (gfx942, gfx950) always implies. `xnack` is the target ID's xnack setting being on or "any".
[[nodiscard]] constexpr int extra_sgprs(Target t, bool vcc, bool flat_scratch, bool xnack) noexcept {
  int n = vcc ? 2 : 0;
  if (xnack) n = 4;
  if (flat_scratch || has_architected_flat_scratch(t)) n = 6;
  return n;
}

/// A kernel descriptor: 64 bytes, little-endian. Reads never fail (bytes are checked once, by from_bytes).
struct KernelDescriptor {
  std::array<std::uint8_t, kernel_descriptor_size> bytes{};

  /// The descriptor in `b`, which must be exactly 64 bytes (the `.kd` symbol's size).
  [[nodiscard]] static Expected<KernelDescriptor> from_bytes(std::span<const std::uint8_t> b) {
    if (b.size() != kernel_descriptor_size)
      return fail(DiagCode::object_error,
                  "a kernel descriptor is 64 bytes; got " + std::to_string(b.size()),
                  {}, {}, "pass the 64 bytes at the `<kernel>.kd` symbol");
    KernelDescriptor k;
    for (std::size_t i = 0; i < kernel_descriptor_size; ++i) k.bytes[i] = b[i];
    return k;
  }

  /// The raw bits of `f` (zero-extended).
  [[nodiscard]] constexpr std::uint64_t get(const FieldInfo& f) const noexcept {
    std::uint64_t w = 0;
    for (unsigned i = 0; i < f.size; ++i) w |= std::uint64_t{bytes[f.offset + i]} << (8 * i);
    return (w >> f.shift) & f.mask();
  }
  /// Writes the low `f.width` bits of `v` into `f`, leaving the other bits of the word alone.
  constexpr void set(const FieldInfo& f, std::uint64_t v) noexcept {
    std::uint64_t w = 0;
    for (unsigned i = 0; i < f.size; ++i) w |= std::uint64_t{bytes[f.offset + i]} << (8 * i);
    w = (w & ~(f.mask() << f.shift)) | ((v & f.mask()) << f.shift);
    for (unsigned i = 0; i < f.size; ++i) bytes[f.offset + i] = static_cast<std::uint8_t>(w >> (8 * i));
  }
  [[nodiscard]] constexpr std::uint32_t word32(unsigned offset) const noexcept {
    return static_cast<std::uint32_t>(bytes[offset]) | static_cast<std::uint32_t>(bytes[offset + 1]) << 8 |
           static_cast<std::uint32_t>(bytes[offset + 2]) << 16 | static_cast<std::uint32_t>(bytes[offset + 3]) << 24;
  }

  [[nodiscard]] constexpr std::uint32_t group_segment_fixed_size() const noexcept { return word32(0); }
  [[nodiscard]] constexpr std::uint32_t private_segment_fixed_size() const noexcept { return word32(4); }
  [[nodiscard]] constexpr std::uint32_t kernarg_size() const noexcept { return word32(8); }
  [[nodiscard]] constexpr std::int64_t kernel_code_entry_byte_offset() const noexcept {
    return static_cast<std::int64_t>(get(field::kernel_code_entry_byte_offset));
  }
  [[nodiscard]] constexpr std::uint32_t compute_pgm_rsrc3() const noexcept { return word32(44); }
  [[nodiscard]] constexpr std::uint32_t compute_pgm_rsrc1() const noexcept { return word32(48); }
  [[nodiscard]] constexpr std::uint32_t compute_pgm_rsrc2() const noexcept { return word32(52); }
  [[nodiscard]] constexpr std::uint16_t kernel_code_properties() const noexcept {
    return static_cast<std::uint16_t>(bytes[56] | bytes[57] << 8);
  }
  [[nodiscard]] constexpr std::uint16_t kernarg_preload() const noexcept {
    return static_cast<std::uint16_t>(bytes[58] | bytes[59] << 8);
  }

  /// VGPRs allocated per lane (arch + acc): (granulated count + 1) * 8.
  [[nodiscard]] constexpr int allocated_vgprs() const noexcept {
    return (static_cast<int>(get(field::vgpr_blocks)) + 1) * vgpr_encoding_granule;
  }
  /// SGPRs allocated per wave, including the extra ones for VCC/FLAT_SCRATCH/XNACK_MASK.
  [[nodiscard]] constexpr int allocated_sgprs() const noexcept {
    return (static_cast<int>(get(field::sgpr_blocks)) + 1) * sgpr_encoding_granule;
  }
  /// First AccVGPR in the unified file: (compute_pgm_rsrc3.accum_offset + 1) * 4, in 4..256.
  [[nodiscard]] constexpr int accum_offset() const noexcept {
    return (static_cast<int>(get(field::accum_offset)) + 1) * 4;
  }
  [[nodiscard]] constexpr int user_sgpr_count() const noexcept { return static_cast<int>(get(field::user_sgpr_count)); }
  /// 64 unless the GFX10+ wave32 bit is set (it is reserved on gfx9; fields() reports it).
  [[nodiscard]] constexpr int wavefront_size() const noexcept { return get(field::wavefront_size32_bit) ? 32 : 64; }

  /// User SGPRs implied by the enable bits and the preload length ([Parser]: buffer 4, dispatch/queue/kernarg
  /// ptr, dispatch id and flat scratch init 2 each, private segment size 1, preload length as written).
  [[nodiscard]] constexpr int implied_user_sgprs() const noexcept {
    return 4 * static_cast<int>(get(field::private_segment_buffer)) + 2 * static_cast<int>(get(field::dispatch_ptr)) +
           2 * static_cast<int>(get(field::queue_ptr)) + 2 * static_cast<int>(get(field::kernarg_segment_ptr)) +
           2 * static_cast<int>(get(field::dispatch_id)) + 2 * static_cast<int>(get(field::flat_scratch_init)) +
           static_cast<int>(get(field::private_segment_size)) + static_cast<int>(get(field::preload_length));
  }
  friend constexpr bool operator==(const KernelDescriptor&, const KernelDescriptor&) = default;
};

/// One field's value, for `asmevo inspect`.
struct Field {
  const FieldInfo* info = nullptr;
  std::uint64_t raw = 0;   ///< the bits as stored (entry offset: two's complement of the signed value)
  std::string value;       ///< in the user's terms: "512 VGPRs", "-2816", "256"; else the number
  bool problem = false;    ///< a reserved or must-be-0 field that is not 0
};

/// Every field that exists on (`t`, `cov`), in memory order, including reserved and must-be-0 ones, so nonzero
/// reserved bits are visible (Field::problem). `cov` outside 4..6 is read with the v4-v6 layout (same since v3).
[[nodiscard]] inline std::vector<Field> fields(const KernelDescriptor& kd, Target t, int cov) {
  if (cov < 4) cov = 4;
  if (cov > 6) cov = 6;
  std::vector<Field> out;
  for (const auto& f : field_table) {
    if (!f.exists_on(t, cov)) continue;
    Field x;
    x.info = &f;
    x.raw = kd.get(f);
    x.problem = (f.role == FieldRole::reserved || f.role == FieldRole::must_be_zero) && x.raw != 0;
    if (&f == &field::kernel_code_entry_byte_offset)
      x.value = std::to_string(static_cast<std::int64_t>(x.raw));
    else if (&f == &field::vgpr_blocks)
      x.value = std::to_string(x.raw) + " (" + std::to_string(kd.allocated_vgprs()) + " VGPRs)";
    else if (&f == &field::sgpr_blocks)
      x.value = std::to_string(x.raw) + " (" + std::to_string(kd.allocated_sgprs()) + " SGPRs)";
    else if (&f == &field::accum_offset)
      x.value = std::to_string(x.raw) + " (AccVGPRs start at " + std::to_string(kd.accum_offset()) + ")";
    else
      x.value = std::to_string(x.raw);
    out.push_back(std::move(x));
  }
  return out;
}

/// What to_directives needs beyond the descriptor: what the code uses (so the written `.amdhsa_next_free_*`
/// are the real numbers when they fit the granule) and the target ID's xnack setting.
struct DescriptorExtras {
  std::optional<int> next_free_vgpr;        ///< VGPRs the code needs (unified numbering: accum_offset + AGPRs)
  std::optional<int> next_free_sgpr;        ///< s0..s(N-1) the code needs (without vcc etc.)
  std::optional<bool> reserve_vcc;          ///< the code uses VCC (default: 1, LLVM's default)
  std::optional<bool> reserve_flat_scratch; ///< gfx90a only: the code uses FLAT_SCRATCH (default: 1, LLVM's default)
  /// The target ID's xnack is on or "any" (e_flags); written as `.amdhsa_reserve_xnack_mask`, which the assembler
  /// requires to match its target ID. Absent: the directive is left out and "any" is assumed (LLVM's default
  /// for a target ID without `:xnack±`), which only matters on gfx90a.
  std::optional<bool> xnack;
};

namespace detail {

inline std::string field_list_problem(const KernelDescriptor& kd, Target t, int cov) {
  std::string bad;
  for (const auto& f : field_table) {
    if (!f.exists_on(t, cov)) continue;
    if (f.role != FieldRole::reserved && f.role != FieldRole::must_be_zero) continue;
    if (const auto v = kd.get(f); v != 0) {
      if (!bad.empty()) bad += ", ";
      bad += std::string(f.name) + " = " + std::to_string(v) +
             (f.role == FieldRole::reserved ? " (reserved)" : " (must be 0, no directive)");
    }
  }
  return bad;
}

/// Largest n in [lo, hi] (or `want` when it is in range) such that pred(n); nullopt if none.
template <class Pred>
[[nodiscard]] std::optional<int> choose(int lo, int hi, std::optional<int> want, Pred pred) {
  if (want && *want >= lo && *want <= hi && pred(*want)) return *want;
  for (int n = hi; n >= lo; --n)
    if (pred(n)) return n;
  return std::nullopt;
}

}  // namespace detail

/// The body of an `.amdhsa_kernel NAME` … `.end_amdhsa_kernel` block (pairs as in KernelBlock::fields) that LLVM MC
/// 22 assembles back into exactly these 64 bytes, except kernel_code_entry_byte_offset: that one is not a
/// directive (the assembler emits `kernel - kernel.kd` and the linker resolves it), so it is left out and the
/// caller that needs the exact entry (in-place patching) compares it itself.
///
/// Every directive valid on the target is written. `.amdhsa_next_free_vgpr`, `.amdhsa_next_free_sgpr`,
/// `.amdhsa_reserve_*` and `.amdhsa_accum_offset` are chosen so that the assembler's granule arithmetic gives the
/// input's granulated counts: the `extras` values when they do, else the largest counts that fit (the whole
/// allocation, so edited code may use every register the descriptor grants).
///
/// Fails, naming every field, when the bytes cannot be written as directives: nonzero reserved or must-be-0 bits
/// (priority, priv, debug_mode, bulky, cdbg_user, trap handler, exception watch/memory, granulated LDS size), a
/// user SGPR count below what the enable bits imply, a preload longer than 16 dwords or past the kernarg size,
/// an accum_offset beyond the VGPR allocation, or an SGPR count no `.amdhsa_next_free_sgpr` <= 102 reaches.
/// The caller then keeps the raw bytes.
[[nodiscard]] inline Expected<std::vector<std::pair<std::string, std::string>>> to_directives(
    const KernelDescriptor& kd, Target t, int cov, const DescriptorExtras& extras = {}) {
  if (cov < 4 || cov > 6)
    return fail(DiagCode::unsupported, "code object version " + std::to_string(cov) + " is not supported",
                {}, {}, "asmevo reads code object v4, v5 and v6");
  std::vector<std::string> problems;
  if (auto bad = detail::field_list_problem(kd, t, cov); !bad.empty()) problems.push_back(bad);

  const bool arch_fs = has_architected_flat_scratch(t);
  const int usgpr = kd.user_sgpr_count();
  const int implied = kd.implied_user_sgprs();
  if (usgpr < implied)
    problems.push_back("compute_pgm_rsrc2.user_sgpr_count = " + std::to_string(usgpr) +
                       " is below the " + std::to_string(implied) + " user SGPRs the enable bits and preload imply");
  const auto plen = static_cast<int>(kd.get(field::preload_length));
  const auto poff = static_cast<int>(kd.get(field::preload_offset));
  if (plen > max_user_sgprs)
    problems.push_back("kernarg_preload.length = " + std::to_string(plen) + " exceeds " +
                       std::to_string(max_user_sgprs) + " user SGPRs");
  if (plen && kd.kernarg_size() && std::uint64_t(plen + poff) * 4 > kd.kernarg_size())
    problems.push_back("kernarg_preload length + offset (" + std::to_string(plen + poff) +
                       " dwords) exceeds kernarg_size " + std::to_string(kd.kernarg_size()));

  // VGPRs: blocks = ceil(max(1, N) / 8) - 1, and (gfx90a+) accum <= alignTo(max(1, N), 4) ([Parser]).
  const int vblocks = static_cast<int>(kd.get(field::vgpr_blocks));
  const int accum = kd.accum_offset();
  const auto nfv = detail::choose(0, max_total_vgprs, extras.next_free_vgpr, [&](int n) {
    const int m = n < 1 ? 1 : n;
    return granulated(n, vgpr_encoding_granule) == vblocks && accum <= (m + 3) / 4 * 4;
  });
  if (!nfv)
    problems.push_back("compute_pgm_rsrc3.accum_offset (AccVGPRs at " + std::to_string(accum) +
                       ") lies beyond the " + std::to_string(kd.allocated_vgprs()) + " VGPRs allocated");

  // SGPRs: blocks = ceil(max(1, max(N, preload ? user : 0) + extra) / 8) - 1, N <= 102 ([Parser]).
  const bool xnack = extras.xnack.value_or(true);
  const bool vcc = extras.reserve_vcc.value_or(true);
  const bool flat = arch_fs ? false : extras.reserve_flat_scratch.value_or(true);
  const int extra = extra_sgprs(t, vcc, flat, xnack);
  const int sblocks = static_cast<int>(kd.get(field::sgpr_blocks));
  const auto nfs = detail::choose(0, max_next_free_sgpr, extras.next_free_sgpr, [&](int n) {
    const int eff = plen ? (n > usgpr ? n : usgpr) : n;
    return granulated(eff + extra, sgpr_encoding_granule) == sblocks;
  });
  if (!nfs)
    problems.push_back("compute_pgm_rsrc1.granulated_wavefront_sgpr_count = " + std::to_string(sblocks) +
                       " is reached by no .amdhsa_next_free_sgpr in 0..102 with " + std::to_string(extra) +
                       " extra SGPRs" + (plen ? " and " + std::to_string(usgpr) + " user SGPRs" : std::string()));
  if (!problems.empty()) {
    std::string msg = "the kernel descriptor cannot be written as .amdhsa directives: ";
    for (std::size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
    return fail(DiagCode::unsupported, std::move(msg), {}, {}, "keep the descriptor's raw bytes");
  }

  std::vector<std::pair<std::string, std::string>> out;
  auto put = [&](std::string_view d, std::uint64_t v) { out.emplace_back(std::string(d), std::to_string(v)); };
  // Same order as LLVM's printer ([Emit] AMDGPUTargetAsmStreamer::EmitAmdhsaKernelDescriptor).
  put(".amdhsa_group_segment_fixed_size", kd.group_segment_fixed_size());
  put(".amdhsa_private_segment_fixed_size", kd.private_segment_fixed_size());
  put(".amdhsa_kernarg_size", kd.kernarg_size());
  put(".amdhsa_user_sgpr_count", static_cast<std::uint64_t>(usgpr));
  if (!arch_fs) put(".amdhsa_user_sgpr_private_segment_buffer", kd.get(field::private_segment_buffer));
  put(".amdhsa_user_sgpr_dispatch_ptr", kd.get(field::dispatch_ptr));
  put(".amdhsa_user_sgpr_queue_ptr", kd.get(field::queue_ptr));
  put(".amdhsa_user_sgpr_kernarg_segment_ptr", kd.get(field::kernarg_segment_ptr));
  put(".amdhsa_user_sgpr_dispatch_id", kd.get(field::dispatch_id));
  if (!arch_fs) put(".amdhsa_user_sgpr_flat_scratch_init", kd.get(field::flat_scratch_init));
  put(".amdhsa_user_sgpr_kernarg_preload_length", static_cast<std::uint64_t>(plen));
  put(".amdhsa_user_sgpr_kernarg_preload_offset", static_cast<std::uint64_t>(poff));
  put(".amdhsa_user_sgpr_private_segment_size", kd.get(field::private_segment_size));
  put(".amdhsa_uses_dynamic_stack", kd.get(field::uses_dynamic_stack));
  put(arch_fs ? ".amdhsa_enable_private_segment" : ".amdhsa_system_sgpr_private_segment_wavefront_offset",
      kd.get(field::enable_private_segment));
  put(".amdhsa_system_sgpr_workgroup_id_x", kd.get(field::workgroup_id_x));
  put(".amdhsa_system_sgpr_workgroup_id_y", kd.get(field::workgroup_id_y));
  put(".amdhsa_system_sgpr_workgroup_id_z", kd.get(field::workgroup_id_z));
  put(".amdhsa_system_sgpr_workgroup_info", kd.get(field::workgroup_info));
  put(".amdhsa_system_vgpr_workitem_id", kd.get(field::vgpr_workitem_id));
  put(".amdhsa_next_free_vgpr", static_cast<std::uint64_t>(*nfv));
  put(".amdhsa_next_free_sgpr", static_cast<std::uint64_t>(*nfs));
  put(".amdhsa_accum_offset", static_cast<std::uint64_t>(accum));
  put(".amdhsa_reserve_vcc", vcc);
  if (!arch_fs) put(".amdhsa_reserve_flat_scratch", flat);
  if (extras.xnack) put(".amdhsa_reserve_xnack_mask", *extras.xnack);
  // The remaining value fields, in memory order, straight from the table.
  for (const auto& f : field_table) {
    if (!f.exists_on(t, cov) || f.role != FieldRole::value || (f.offset != 44 && f.offset != 48 && f.offset != 52))
      continue;
    if (&f == &field::user_sgpr_count || f.name == field::enable_private_segment.name ||
        &f == &field::workgroup_id_x || &f == &field::workgroup_id_y || &f == &field::workgroup_id_z ||
        &f == &field::workgroup_info || &f == &field::vgpr_workitem_id)
      continue;
    put(f.directive, kd.get(f));
  }
  return out;
}

namespace detail {

/// Evaluates an absolute expression as LLVM's assembler reads `.amdhsa_*` values: integers (decimal, 0x hex,
/// 0b binary, 0-prefixed octal), unary - ~ + !, binary * / % << >> & | ^ + -, parentheses. Symbols are not known.
class ExprEval {
 public:
  explicit ExprEval(std::string_view s) : s_(s) {}
  [[nodiscard]] std::optional<std::int64_t> run() {
    auto v = parse_or();
    skip();
    if (!v || i_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  bool eat(std::string_view tok) {
    skip();
    if (s_.substr(i_, tok.size()) != tok) return false;
    // `<` must not match `<<` and so on.
    if ((tok == "|" || tok == "&") && i_ + 1 < s_.size() && s_[i_ + 1] == tok[0]) return false;
    i_ += tok.size();
    return true;
  }
  std::optional<std::int64_t> parse_or() {
    auto l = parse_xor();
    while (l && eat("|")) { auto r = parse_xor(); if (!r) return r; *l |= *r; }
    return l;
  }
  std::optional<std::int64_t> parse_xor() {
    auto l = parse_and();
    while (l && eat("^")) { auto r = parse_and(); if (!r) return r; *l ^= *r; }
    return l;
  }
  std::optional<std::int64_t> parse_and() {
    auto l = parse_shift();
    while (l && eat("&")) { auto r = parse_shift(); if (!r) return r; *l &= *r; }
    return l;
  }
  std::optional<std::int64_t> parse_shift() {
    auto l = parse_add();
    while (l) {
      if (eat("<<")) {
        auto r = parse_add();
        if (!r || *r < 0 || *r > 63) return std::nullopt;
        *l = static_cast<std::int64_t>(static_cast<std::uint64_t>(*l) << *r);
      } else if (eat(">>")) {
        auto r = parse_add();
        if (!r || *r < 0 || *r > 63) return std::nullopt;
        *l >>= *r;
      } else {
        break;
      }
    }
    return l;
  }
  std::optional<std::int64_t> parse_add() {
    auto l = parse_mul();
    while (l) {
      if (eat("+")) { auto r = parse_mul(); if (!r) return r; *l += *r; }
      else if (eat("-")) { auto r = parse_mul(); if (!r) return r; *l -= *r; }
      else break;
    }
    return l;
  }
  std::optional<std::int64_t> parse_mul() {
    auto l = parse_unary();
    while (l) {
      if (eat("*")) { auto r = parse_unary(); if (!r) return r; *l *= *r; }
      else if (eat("/")) { auto r = parse_unary(); if (!r || *r == 0) return std::nullopt; *l /= *r; }
      else if (eat("%")) { auto r = parse_unary(); if (!r || *r == 0) return std::nullopt; *l %= *r; }
      else break;
    }
    return l;
  }
  std::optional<std::int64_t> parse_unary() {
    if (eat("-")) { auto v = parse_unary(); if (v) *v = -*v; return v; }
    if (eat("~")) { auto v = parse_unary(); if (v) *v = ~*v; return v; }
    if (eat("!")) { auto v = parse_unary(); if (v) *v = *v == 0; return v; }
    if (eat("+")) return parse_unary();
    if (eat("(")) {
      auto v = parse_or();
      if (!v || !eat(")")) return std::nullopt;
      return v;
    }
    return parse_number();
  }
  std::optional<std::int64_t> parse_number() {
    skip();
    if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') return std::nullopt;
    unsigned base = 10;
    if (s_[i_] == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X')) { base = 16; i_ += 2; }
    else if (s_[i_] == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'b' || s_[i_ + 1] == 'B')) { base = 2; i_ += 2; }
    else if (s_[i_] == '0' && i_ + 1 < s_.size() && s_[i_ + 1] >= '0' && s_[i_ + 1] <= '7') { base = 8; ++i_; }
    std::uint64_t v = 0;
    bool any = false;
    for (; i_ < s_.size(); ++i_) {
      const char c = s_[i_];
      unsigned d;
      if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
      else break;
      if (d >= base) return std::nullopt;
      if (v > (~std::uint64_t{0} - d) / base) return std::nullopt;  // overflow
      v = v * base + d;
      any = true;
    }
    if (!any && base != 8) return std::nullopt;
    if (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.'))
      return std::nullopt;  // a symbol such as 1f or 0x10abcg
    return static_cast<std::int64_t>(v);
  }
};

/// Directives LLVM 22 knows that do not exist on gfx9 wave64 targets, with its error text ([Parser]).
struct ForeignDirective {
  std::string_view name, message;
};
inline constexpr ForeignDirective foreign_directives[] = {
    {".amdhsa_wavefront_size32", "directive requires gfx10+"},
    {".amdhsa_workgroup_processor_mode", "directive unsupported on this target (needs WGP mode, gfx10+)"},
    {".amdhsa_memory_ordered", "directive requires gfx10+"},
    {".amdhsa_forward_progress", "directive requires gfx10+"},
    {".amdhsa_shared_vgpr_count", "directive requires gfx10 or gfx11"},
    {".amdhsa_inst_pref_size", "directive requires gfx11+"},
    {".amdhsa_round_robin_scheduling", "directive requires gfx12+"},
    {".amdhsa_named_barrier_count", "directive requires gfx1250+"},
};

}  // namespace detail

/// Evaluates an `.amdhsa_kernel` block as LLVM 22's assembler does ([Parser] ParseDirectiveAMDHSAKernel): the
/// defaults of [KDmc] (float_denorm_mode_16_64 = 3, dx10_clamp = 1, ieee_mode = 1, workgroup_id_x = 1), the
/// implied user SGPR count, the granule arithmetic, and its errors: unknown, repeated, out-of-range or
/// target-invalid directives, a missing `.amdhsa_next_free_vgpr` / `.amdhsa_next_free_sgpr` /
/// `.amdhsa_accum_offset`, a user SGPR count below the implied one, a preload past the kernarg size.
/// The first problem is returned (as the assembler stops at it), naming the kernel and the directive.
/// kernel_code_entry_byte_offset stays 0: the linker fills it. `xnack` is the target ID's xnack being on or "any"
/// (the default when the target ID has no `:xnack±`); `.amdhsa_reserve_xnack_mask` must agree with it.
/// Values are absolute integer expressions; symbolic ones (a compiler's `max(totalnumvgprs(...))`) are refused.
[[nodiscard]] inline Expected<KernelDescriptor> from_directives(const KernelBlock& block, Target t, int cov,
                                                               bool xnack = true) {
  const std::string where = "kernel '" + block.name + "': ";
  if (cov < 4 || cov > 6)
    return fail(DiagCode::unsupported, where + "code object version " + std::to_string(cov) + " is not supported",
                {}, {}, "asmevo reads code object v4, v5 and v6");
  const bool arch_fs = has_architected_flat_scratch(t);
  KernelDescriptor kd;
  // [KDmc] getDefaultAmdhsaKernelDescriptor for gfx9 (FeatureTgSplit is off unless the target ID says tgsplit).
  kd.set(field::float_denorm_mode_16_64, 3);
  kd.set(field::dx10_clamp, 1);
  kd.set(field::ieee_mode, 1);
  kd.set(field::workgroup_id_x, 1);

  std::vector<std::string> seen;
  std::optional<std::int64_t> next_free_vgpr, next_free_sgpr, accum, explicit_usgpr;
  std::int64_t reserve_vcc = 1, reserve_flat = 1;
  int implied_usgpr = 0;
  std::int64_t preload_length = 0, preload_offset = 0;

  auto err = [&](const std::string& directive, const std::string& value, std::string msg) {
    return fail(DiagCode::parse_error, where + directive + ": " + std::move(msg), {}, directive + " " + value);
  };
  auto out_of_range = [&](const std::string& d, const std::string& v) { return err(d, v, "value out of range"); };

  for (const auto& [name, text] : block.fields) {
    if (name.rfind(".amdhsa_", 0) != 0) return err(name, text, "unknown .amdhsa_kernel directive");
    for (const auto& s : seen)
      if (s == name) return err(name, text, ".amdhsa_ directives cannot be repeated");
    seen.push_back(name);
    for (const auto& fd : detail::foreign_directives)
      if (fd.name == name) return err(name, text, std::string(fd.message) + " (target is " + std::string(to_string(t)) + ")");

    const auto ev = detail::ExprEval(text).run();
    if (!ev)
      return err(name, text, "value is not an absolute integer expression asmevo can evaluate");
    if (*ev < 0) return out_of_range(name, text);
    const auto val = static_cast<std::uint64_t>(*ev);
    auto set_bits = [&](const FieldInfo& f) -> Expected<void> {
      if (val > f.mask()) return out_of_range(name, text);
      kd.set(f, val);
      return {};
    };
    auto arch_fs_error = [&]() {
      return err(name, text, "directive is not supported with architected flat scratch (target is " +
                                 std::string(to_string(t)) + ")");
    };

    if (name == ".amdhsa_group_segment_fixed_size" || name == ".amdhsa_private_segment_fixed_size" ||
        name == ".amdhsa_kernarg_size") {
      const auto& f = name == ".amdhsa_kernarg_size" ? field::kernarg_size
                      : name == ".amdhsa_group_segment_fixed_size" ? field::group_segment_fixed_size
                                                                   : field::private_segment_fixed_size;
      if (auto r = set_bits(f); !r) return unexpected(std::move(r).error());
    } else if (name == ".amdhsa_user_sgpr_count") {
      explicit_usgpr = *ev;
    } else if (name == ".amdhsa_user_sgpr_private_segment_buffer" || name == ".amdhsa_user_sgpr_flat_scratch_init") {
      if (arch_fs) return arch_fs_error();
      const bool psb = name == ".amdhsa_user_sgpr_private_segment_buffer";
      if (auto r = set_bits(psb ? field::private_segment_buffer : field::flat_scratch_init); !r)
        return unexpected(std::move(r).error());
      if (val) implied_usgpr += psb ? 4 : 2;
    } else if (name == ".amdhsa_user_sgpr_kernarg_preload_length") {
      if (val > static_cast<std::uint64_t>(max_user_sgprs)) return out_of_range(name, text);
      if (auto r = set_bits(field::preload_length); !r) return unexpected(std::move(r).error());
      implied_usgpr += static_cast<int>(val);
      preload_length = *ev;
    } else if (name == ".amdhsa_user_sgpr_kernarg_preload_offset") {
      if (val >= 1024) return out_of_range(name, text);
      if (auto r = set_bits(field::preload_offset); !r) return unexpected(std::move(r).error());
      preload_offset = *ev;
    } else if (name == ".amdhsa_user_sgpr_dispatch_ptr" || name == ".amdhsa_user_sgpr_queue_ptr" ||
               name == ".amdhsa_user_sgpr_kernarg_segment_ptr" || name == ".amdhsa_user_sgpr_dispatch_id") {
      const auto& f = name == ".amdhsa_user_sgpr_dispatch_ptr"          ? field::dispatch_ptr
                      : name == ".amdhsa_user_sgpr_queue_ptr"           ? field::queue_ptr
                      : name == ".amdhsa_user_sgpr_kernarg_segment_ptr" ? field::kernarg_segment_ptr
                                                                        : field::dispatch_id;
      if (auto r = set_bits(f); !r) return unexpected(std::move(r).error());
      if (val) implied_usgpr += 2;
    } else if (name == ".amdhsa_user_sgpr_private_segment_size") {
      if (auto r = set_bits(field::private_segment_size); !r) return unexpected(std::move(r).error());
      if (val) implied_usgpr += 1;
    } else if (name == ".amdhsa_system_sgpr_private_segment_wavefront_offset") {
      if (arch_fs) return arch_fs_error();
      if (auto r = set_bits(field::enable_private_segment); !r) return unexpected(std::move(r).error());
    } else if (name == ".amdhsa_enable_private_segment") {
      if (!arch_fs)
        return err(name, text, "directive is not supported without architected flat scratch (target is " +
                                   std::string(to_string(t)) + ")");
      if (auto r = set_bits(field::enable_private_segment); !r) return unexpected(std::move(r).error());
    } else if (name == ".amdhsa_next_free_vgpr") {
      next_free_vgpr = *ev;
    } else if (name == ".amdhsa_next_free_sgpr") {
      next_free_sgpr = *ev;
    } else if (name == ".amdhsa_accum_offset") {
      accum = *ev;
    } else if (name == ".amdhsa_reserve_vcc") {
      if (val > 1) return out_of_range(name, text);
      reserve_vcc = *ev;
    } else if (name == ".amdhsa_reserve_flat_scratch") {
      if (arch_fs) return arch_fs_error();
      if (val > 1) return out_of_range(name, text);
      reserve_flat = *ev;
    } else if (name == ".amdhsa_reserve_xnack_mask") {
      if (val > 1) return out_of_range(name, text);
      if ((val != 0) != xnack) return err(name, text, ".amdhsa_reserve_xnack_mask does not match target id");
    } else {
      // Plain value fields: one table entry carries the directive on this target.
      const FieldInfo* f = nullptr;
      for (const auto& e : field_table)
        if (e.directive == name && e.role == FieldRole::value && e.exists_on(t, cov)) f = &e;
      if (!f) return err(name, text, "unknown .amdhsa_kernel directive");
      if (auto r = set_bits(*f); !r) return unexpected(std::move(r).error());
    }
  }

  auto missing = [&](std::string_view d) {
    return fail(DiagCode::parse_error, where + std::string(d) + " directive is required", {}, block.name);
  };
  if (!next_free_vgpr) return missing(".amdhsa_next_free_vgpr");
  if (!next_free_sgpr) return missing(".amdhsa_next_free_sgpr");
  const std::int64_t usgpr = explicit_usgpr.value_or(implied_usgpr);

  // SGPRs ([Parser] calculateGPRBlocks, gfx8/gfx9 without the SGPR init bug).
  std::int64_t nfs = *next_free_sgpr;
  if (preload_length && usgpr > nfs) nfs = usgpr;
  const std::string nfs_text = std::to_string(*next_free_sgpr);
  if (nfs > max_next_free_sgpr) return out_of_range(".amdhsa_next_free_sgpr", nfs_text);
  const int extra = extra_sgprs(t, reserve_vcc != 0, !arch_fs && reserve_flat != 0, xnack);
  const int sblocks = granulated(static_cast<int>(nfs) + extra, sgpr_encoding_granule);
  // VGPRs.
  if (*next_free_vgpr > max_total_vgprs)
    return out_of_range(".amdhsa_next_free_vgpr", std::to_string(*next_free_vgpr));
  const int vblocks = granulated(static_cast<int>(*next_free_vgpr), vgpr_encoding_granule);
  kd.set(field::vgpr_blocks, static_cast<std::uint64_t>(vblocks));
  if (sblocks > static_cast<int>(field::sgpr_blocks.mask())) return out_of_range(".amdhsa_next_free_sgpr", nfs_text);
  kd.set(field::sgpr_blocks, static_cast<std::uint64_t>(sblocks));

  if (explicit_usgpr && implied_usgpr > *explicit_usgpr)
    return fail(DiagCode::parse_error,
                where + ".amdhsa_user_sgpr_count " + std::to_string(*explicit_usgpr) + " is smaller than the " +
                    std::to_string(implied_usgpr) + " user SGPRs the enabled user SGPRs imply",
                {}, ".amdhsa_user_sgpr_count " + std::to_string(*explicit_usgpr));
  if (usgpr > static_cast<std::int64_t>(field::user_sgpr_count.mask()))
    return fail(DiagCode::parse_error, where + "too many user SGPRs enabled (" + std::to_string(usgpr) + ")", {},
                block.name);
  kd.set(field::user_sgpr_count, static_cast<std::uint64_t>(usgpr));
  if (preload_length && kd.kernarg_size() &&
      static_cast<std::uint64_t>(preload_length + preload_offset) * 4 > kd.kernarg_size())
    return fail(DiagCode::parse_error,
                where + "kernarg preload length + offset is larger than the kernarg segment size", {},
                ".amdhsa_user_sgpr_kernarg_preload_length " + std::to_string(preload_length));

  // accum_offset is required with gfx90a-insts (all asmevo targets).
  if (!accum) return missing(".amdhsa_accum_offset");
  const std::string accum_text = ".amdhsa_accum_offset " + std::to_string(*accum);
  if (*accum < 4 || *accum > 256 || (*accum & 3))
    return fail(DiagCode::parse_error, where + "accum_offset should be in range [4..256] in increments of 4", {},
                accum_text);
  const std::int64_t nfv1 = *next_free_vgpr < 1 ? 1 : *next_free_vgpr;
  if (*accum > (nfv1 + 3) / 4 * 4)
    return fail(DiagCode::parse_error, where + "accum_offset exceeds total VGPR allocation", {}, accum_text);
  kd.set(field::accum_offset, static_cast<std::uint64_t>(*accum / 4 - 1));
  return kd;
}

namespace detail {

[[nodiscard]] inline std::optional<std::uint64_t> meta_uint(const nlohmann::ordered_json& m, std::string_view key,
                                                            const std::string& kernel, Diags& out) {
  const auto it = m.find(key);
  if (it == m.end()) return std::nullopt;
  if (!it->is_number_integer() || (!it->is_number_unsigned() && it->get<std::int64_t>() < 0)) {
    out.push_back(make_diag(DiagCode::object_error,
                            "kernel '" + kernel + "': metadata " + std::string(key) + " is not a non-negative integer",
                            {}, it->dump()));
    return std::nullopt;
  }
  return it->get<std::uint64_t>();
}

}  // namespace detail

/// Checks a descriptor against its kernel's map in the metadata's `amdhsa.kernels` (keys `.name`,
/// `.kernarg_segment_size`, `.group_segment_fixed_size`, `.private_segment_fixed_size`, `.wavefront_size`,
/// `.uses_dynamic_stack`, `.sgpr_count`, `.vgpr_count`, `.agpr_count`). One Diag per disagreement, each naming the
/// kernel, the field and both values; all are gathered. Absent keys are not checked. The rules:
///  - kernarg size, LDS and scratch sizes equal (a descriptor kernarg_size of 0 means "unspecified" [Usage]);
///  - wavefront size 64 unless the descriptor's wave32 bit is set; `.uses_dynamic_stack` equals its bit;
///  - `.sgpr_count` (LLVM: highest SGPR + 1 plus the VCC/FLAT_SCRATCH/XNACK extras [Meta]) fits the SGPR
///    allocation, `.vgpr_count` (LLVM: alignTo(arch, 4) + AGPRs when there are AGPRs, else arch) fits the VGPR
///    allocation, and with `.agpr_count` > 0: accum_offset + AGPRs fit the allocation and the arch VGPRs
///    (`.vgpr_count - .agpr_count`) fit below accum_offset.
/// The descriptor may allocate more than the metadata counts (LLVM pads for waves-per-EU; hand-written aiter
/// metadata gives totals). With `.agpr_count` 0 or absent `.vgpr_count` is read as a total, because hand-written
/// metadata (aiter's) puts the unified count there.
[[nodiscard]] inline Diags check_against_metadata(const KernelDescriptor& kd, Target t, int cov,
                                                  const nlohmann::ordered_json& kernel_map) {
  (void)t;
  Diags out;
  if (!kernel_map.is_object()) {
    out.push_back(make_diag(DiagCode::object_error, "kernel metadata is not a map", {}, kernel_map.dump()));
    return out;
  }
  std::string name = "?";
  if (auto it = kernel_map.find(".name"); it != kernel_map.end() && it->is_string()) name = it->get<std::string>();
  auto disagree = [&](std::string_view what, std::string_view key, std::uint64_t d, std::uint64_t m,
                      std::string_view rule = "") {
    std::string msg = "kernel '" + name + "': descriptor " + std::string(what) + " is " + std::to_string(d) +
                      " but metadata " + std::string(key) + " is " + std::to_string(m);
    if (!rule.empty()) msg += " (" + std::string(rule) + ")";
    out.push_back(make_diag(DiagCode::object_error, std::move(msg), {}, std::string(key)));
  };
  if (auto v = detail::meta_uint(kernel_map, ".kernarg_segment_size", name, out); v && kd.kernarg_size() != 0 &&
                                                                                  *v != kd.kernarg_size())
    disagree("kernarg_size", ".kernarg_segment_size", kd.kernarg_size(), *v);
  if (auto v = detail::meta_uint(kernel_map, ".group_segment_fixed_size", name, out);
      v && *v != kd.group_segment_fixed_size())
    disagree("group_segment_fixed_size", ".group_segment_fixed_size", kd.group_segment_fixed_size(), *v);
  if (auto v = detail::meta_uint(kernel_map, ".private_segment_fixed_size", name, out);
      v && *v != kd.private_segment_fixed_size())
    disagree("private_segment_fixed_size", ".private_segment_fixed_size", kd.private_segment_fixed_size(), *v);
  if (auto v = detail::meta_uint(kernel_map, ".wavefront_size", name, out);
      v && *v != static_cast<std::uint64_t>(kd.wavefront_size()))
    disagree("wavefront size", ".wavefront_size", static_cast<std::uint64_t>(kd.wavefront_size()), *v);
  if (auto it = kernel_map.find(".uses_dynamic_stack"); it != kernel_map.end() && cov >= 5) {
    if (!it->is_boolean())
      out.push_back(make_diag(DiagCode::object_error,
                              "kernel '" + name + "': metadata .uses_dynamic_stack is not a boolean", {}, it->dump()));
    else if (it->get<bool>() != (kd.get(field::uses_dynamic_stack) != 0))
      disagree("kernel_code_properties.uses_dynamic_stack", ".uses_dynamic_stack", kd.get(field::uses_dynamic_stack),
               it->get<bool>() ? 1 : 0);
  }
  const auto sgprs = static_cast<std::uint64_t>(kd.allocated_sgprs());
  const auto vgprs = static_cast<std::uint64_t>(kd.allocated_vgprs());
  const auto accum = static_cast<std::uint64_t>(kd.accum_offset());
  if (auto v = detail::meta_uint(kernel_map, ".sgpr_count", name, out); v && *v > sgprs)
    disagree("SGPR allocation (granulated_wavefront_sgpr_count)", ".sgpr_count", sgprs, *v,
             "the code uses more SGPRs than the descriptor allocates");
  const auto vcount = detail::meta_uint(kernel_map, ".vgpr_count", name, out);
  if (vcount && *vcount > vgprs)
    disagree("VGPR allocation (granulated_workitem_vgpr_count)", ".vgpr_count", vgprs, *vcount,
             "the code uses more VGPRs than the descriptor allocates");
  if (auto a = detail::meta_uint(kernel_map, ".agpr_count", name, out); a && *a > 0) {
    if (accum + *a > vgprs)
      disagree("VGPR allocation (granulated_workitem_vgpr_count)", ".agpr_count", vgprs, *a,
               "AccVGPRs from accum_offset " + std::to_string(accum) + " on do not fit");
    if (vcount && *vcount >= *a && *vcount - *a > accum)
      disagree("compute_pgm_rsrc3.accum_offset", ".vgpr_count - .agpr_count", accum, *vcount - *a,
               "arch VGPRs overlap the AccVGPRs");
  }
  return out;
}

}  // namespace asmevo::codeobject
