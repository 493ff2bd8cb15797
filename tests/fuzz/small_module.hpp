// The small real kernel the edit-script and LLM-reply fuzz targets validate scripts against, parsed once, so that
// fuzzed scripts reach id lookup, instruction parsing, the ABI checks, the Rewriter and the passes.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/module.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"

namespace asmevo::fuzz {

/// A loop over global and LDS memory with an MFMA chain, waits, a branch over a block (i17..i18, the block a launch
/// "does not exercise") and scalar bookkeeping: every op of an edit script has something to act on. The ids are the
/// ones a script names (`; iN`), as `asmevo disasm` prints them.
inline constexpr const char* small_kernel_text =
    "k:\n"
    "  s_load_dwordx2 s[0:1], s[4:5], 0x0                 ; i0\n"
    "  s_load_dword s2, s[4:5], 0x8                       ; i1\n"
    "  v_lshlrev_b32 v1, 2, v0                            ; i2\n"
    "  s_mov_b32 s3, 0                                    ; i3\n"
    "  s_waitcnt lgkmcnt(0)                               ; i4\n"
    ".Lloop:\n"
    "  global_load_dword v2, v1, s[0:1]                   ; i5\n"
    "  global_load_dword v3, v1, s[0:1] offset:4          ; i6\n"
    "  ds_read_b32 v4, v1                                 ; i7\n"
    "  s_waitcnt vmcnt(0) lgkmcnt(0)                      ; i8\n"
    "  v_add_f32 v5, v2, v3                               ; i9\n"
    "  v_mul_f32 v6, v5, v4                               ; i10\n"
    "  v_mfma_f32_4x4x1_16b_f32 a[0:3], v2, v3, a[0:3]    ; i11\n"
    "  ds_write_b32 v1, v6                                ; i12\n"
    "  s_add_u32 s3, s3, 1                                ; i13\n"
    "  s_cmp_lt_u32 s3, s2                                ; i14\n"
    "  s_cbranch_scc1 .Lloop                              ; i15\n"
    "  s_cbranch_execz .Ldone                             ; i16\n"
    "  v_accvgpr_read_b32 v7, a0                          ; i17\n"
    "  global_store_dword v1, v7, s[0:1] offset:8         ; i18\n"
    ".Ldone:\n"
    "  s_nop 1                                            ; i19\n"
    "  global_store_dword v1, v6, s[0:1]                  ; i20\n"
    "  s_waitcnt vmcnt(0)                                 ; i21\n"
    "  s_endpgm                                           ; i22\n";

/// The module of small_kernel_text (one kernel "k", 256 work-items at most); aborts if it does not parse, since
/// then every input would only test that.
inline const codeobject::Module& small_module() {
  static const codeobject::Module m = [] {
    codeobject::Module m;
    m.target = Target::gfx942;
    auto p = parse_program(small_kernel_text, m.target, "small.s");
    if (!p) std::abort();
    m.program = std::move(*p);
    codeobject::KernelInfo k;
    k.name = "k";
    k.metadata = nlohmann::ordered_json{{".name", "k"}, {".max_flat_workgroup_size", 256}};
    m.kernels.push_back(std::move(k));
    return m;
  }();
  return m;
}

/// The instructions of small_module() a launch does not exercise: the block the branch at i16 skips.
inline std::shared_ptr<const std::unordered_set<std::uint32_t>> small_not_exercised() {
  static const auto s =
      std::make_shared<const std::unordered_set<std::uint32_t>>(std::unordered_set<std::uint32_t>{17, 18});
  return s;
}

}  // namespace asmevo::fuzz
