// The host-visible ABI of a code object's kernels, and the check that an edited object (K1) keeps K0's.
//
// What the host and the HSA runtime rely on when they launch a kernel: its symbol names, the kernarg layout
// and every argument's metadata, the launch attributes in the metadata, and the descriptor fields that decide
// which registers the hardware initialises (user SGPRs, workgroup/workitem ids, kernarg preload) and how many
// kernarg bytes there are. Resources (registers, LDS, scratch) are not ABI: an edit may change them (rebuild
// recounts registers and refuses scratch use without a private segment; LDS it leaves to the edit).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/compare.hpp"
#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::codeobject {

namespace detail {

/// Metadata keys of a kernel that are ABI (AMDGPUUsage, "Code Object V3+ Metadata", amdhsa.kernels): names,
/// the kernarg segment and its arguments, and launch attributes the runtime reads.
inline constexpr const char* abi_metadata_keys[] = {
    ".name", ".symbol", ".args", ".kernarg_segment_size", ".kernarg_segment_align", ".language",
    ".language_version", ".max_flat_workgroup_size", ".reqd_workgroup_size", ".workgroup_size_hint",
    ".wavefront_size", ".uniform_work_group_size", ".vec_type_hint", ".device_enqueue_symbol", ".kind",
    ".workgroup_processor_mode", ".cluster_dims"};

/// Descriptor bits that are ABI, as (byte offset, width in bytes, mask, name). Layout from AMDGPUUsage
/// "Kernel Descriptor for GFX6-GFX12": kernarg_size at byte 8; compute_pgm_rsrc2 at byte 52 with
/// USER_SGPR_COUNT bits 5:1, ENABLE_TRAP_HANDLER bit 6, ENABLE_SGPR_WORKGROUP_ID_X/Y/Z bits 9:7,
/// ENABLE_SGPR_WORKGROUP_INFO bit 10, ENABLE_VGPR_WORKITEM_ID bits 12:11; kernel_code_properties at byte 56
/// (which user SGPRs are set up, wavefront size 32, dynamic stack); kernarg_preload at byte 58.
struct AbiBits {
  unsigned offset, width;
  std::uint32_t mask;
  const char* what;
};
inline constexpr AbiBits abi_descriptor_bits[] = {
    {8, 4, 0xffffffffu, "kernarg_size"},
    {52, 4, 0x1ffeu, "compute_pgm_rsrc2 user SGPR count, trap handler, workgroup id and workitem id enables"},
    {56, 2, 0xffffu, "kernel_code_properties (user SGPR set-up, wavefront size, dynamic stack)"},
    {58, 2, 0xffffu, "kernarg_preload (length, offset)"},
};

[[nodiscard]] inline std::uint32_t read_bits(const std::vector<std::uint8_t>& b, const AbiBits& f) {
  std::uint32_t v = 0;
  for (unsigned i = 0; i < f.width; ++i) v |= static_cast<std::uint32_t>(b[f.offset + i]) << (8 * i);
  return v & f.mask;
}

}  // namespace detail

/// Every way `k1` changes the ABI of `k0` (empty = the host sees the same kernels). Each Diag is
/// DiagCode::abi_error and names the kernel and the field, with both values.
[[nodiscard]] ASMEVO_OUTLINE Diags check_abi(const ElfFile& k0, const ElfFile& k1)
#if ASMEVO_BODY_CODEOBJECT
{
  Diags out;
  const auto add = [&](std::string msg) { out.push_back(make_diag(DiagCode::abi_error, std::move(msg), k1.loc())); };
  // The loader checks the target id and code object version before anything else.
  if (k0.e_flags() != k1.e_flags()) add("e_flags changed from " + describe_flags(k0.e_flags()) + " to " + describe_flags(k1.e_flags()));
  if (k0.code_object_version() != k1.code_object_version())
    add("code object version changed from " + std::to_string(k0.code_object_version()) + " to " +
        std::to_string(k1.code_object_version()));
  auto m0 = read_metadata(k0), m1 = read_metadata(k1);
  if (!m0 || !m1) {
    add("cannot compare kernel ABIs: " + (!m0 ? m0.error().message : m1.error().message));
    return out;
  }
  auto ks0 = kernels(*m0), ks1 = kernels(*m1);
  if (!ks0 || !ks1) {
    add("cannot compare kernel ABIs: " + (!ks0 ? ks0.error().message : ks1.error().message));
    return out;
  }
  std::map<std::string, const KernelMeta*> by1;
  for (const auto& k : *ks1) by1[k.name] = &k;
  for (const auto& k : *ks0) {
    auto it = by1.find(k.name);
    if (it == by1.end()) {
      add("kernel '" + k.name + "' is gone");
      continue;
    }
    const KernelMeta& n = *it->second;
    for (const char* key : detail::abi_metadata_keys) {
      const bool h0 = k.raw.contains(key), h1 = n.raw.contains(key);
      if (!h0 && !h1) continue;
      // Argument metadata must stay byte for byte: compare the msgpack encodings, not just the values.
      if (h0 != h1 || nlohmann::ordered_json::to_msgpack(k.raw[key]) != nlohmann::ordered_json::to_msgpack(n.raw[key]))
        add("kernel '" + k.name + "': metadata " + key + " changed from " + (h0 ? k.raw[key].dump() : "(absent)") + " to " +
            (h1 ? n.raw[key].dump() : "(absent)"));
    }
    by1.erase(it);
    const auto d0 = detail::descriptor_bytes(k0, k.symbol), d1 = detail::descriptor_bytes(k1, n.symbol);
    if (d0.size() != 64 || d1.size() != 64) {
      add("kernel '" + k.name + "': descriptor " + k.symbol + " missing");
      continue;
    }
    for (const auto& f : detail::abi_descriptor_bits)
      if (detail::read_bits(d0, f) != detail::read_bits(d1, f))
        add("kernel '" + k.name + "': descriptor " + f.what + " changed from " + detail::hex64(detail::read_bits(d0, f)) + " to " +
            detail::hex64(detail::read_bits(d1, f)));
  }
  for (const auto& [name, k] : by1) add("kernel '" + name + "' is new");
  // Every dynamic symbol stays, with its type, binding and visibility: kernels and their descriptors, and the
  // device globals a host finds by name (hipModuleGetGlobal).
  for (const auto& s0 : k0.dynamic_symbols()) {
    if (s0.index == 0 || s0.name.empty()) continue;
    const Symbol* s1 = nullptr;
    for (const auto& y : k1.dynamic_symbols())
      if (y.name == s0.name) s1 = &y;
    if (s1 == nullptr) add("dynamic symbol '" + s0.name + "' is gone");
    else if (s1->type != s0.type || s1->binding != s0.binding || s1->visibility != s0.visibility)
      add("dynamic symbol '" + s0.name + "' changed type, binding or visibility");
    else if (s0.type == 1 /* STT_OBJECT */ && s1->size != s0.size)
      add("dynamic symbol '" + s0.name + "' changed size from " + std::to_string(s0.size) + " to " + std::to_string(s1->size));
  }
  if (hsa_target(*m0) != hsa_target(*m1)) add("metadata amdhsa.target changed");
  // Kernel symbols must be global and keep their names (the host looks them up by name).
  for (const auto& k : *ks0)
    for (const std::string& sym : {k.name, k.symbol}) {
      const Symbol* a = k0.find_symbol(sym);
      const Symbol* b = k1.find_symbol(sym);
      if (a && !b) add("symbol '" + sym + "' is gone");
      if (a && b && (a->binding != b->binding || a->type != b->type))
        add("symbol '" + sym + "' changed binding or type");
    }
  return out;
}
#else
;
#endif

}  // namespace asmevo::codeobject
