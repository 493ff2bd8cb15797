// Rebuilds a loadable code object from a program (a recovered Module's, edited or not, or a parsed `.s`).
//
// Two paths. The relink path assembles the whole program in-process with LLVM MC 22 (descriptors from the
// `.amdhsa_kernel` blocks, the metadata note from the YAML) and links it with ld.lld (link.hpp). The in-place
// patch path, tried first when the original object K0 is given, applies when the edit keeps every K0
// instruction and symbol at its address and changes no descriptor, data, symbol or metadata byte: it then
// writes K0 with only its .text replaced (PC-relative relocations resolved by asmevo against K0's
// addresses), leaving everything else untouched. Before either, register counts are recounted from the code
// (resources_update.hpp), and a kernarg-preload prologue must still end at entry + 256; after
// relinking, the result is read back and checked: descriptors agree with metadata, and, given K0, the host
// ABI is unchanged (abi.hpp) — an edit that changes it is refused.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/abi.hpp"
#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/link.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/program_target.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/codeobject/resources_update.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/mc/encode.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::codeobject {

/// How rebuild() went.
struct RebuildResult {
  enum class Path { relinked, patched };
  std::vector<std::uint8_t> bytes;    ///< the new code object
  Path path = Path::relinked;
  std::string why_relinked;           ///< when K0 was given but the patch path did not apply: the first reason
  std::vector<std::string> changes;   ///< what resource recounting changed ("kernel k: .amdhsa_next_free_vgpr 32 -> 40")
};

[[nodiscard]] constexpr std::string_view to_string(RebuildResult::Path p) noexcept {
  return p == RebuildResult::Path::patched ? "in-place patch" : "relinked";
}

struct RebuildOptions {
  const ElfFile* original = nullptr;  ///< K0: enables the ABI check and the in-place patch path
  const Module* recovered = nullptr;  ///< K0's recovery (instruction addresses by id), for the patch path
  bool allow_patch = true;
  RecountPolicy policy = RecountPolicy::keep_at_least_original;
};

namespace detail {

/// AMDGPU relocation types (AMDGPUUsage, "Relocation Records"; llvm/BinaryFormat/ELFRelocs/AMDGPU.def).
inline constexpr std::uint32_t r_amdgpu_abs32_lo = 1, r_amdgpu_abs32_hi = 2, r_amdgpu_abs64 = 3, r_amdgpu_rel32 = 4,
                               r_amdgpu_rel64 = 5, r_amdgpu_abs32 = 6, r_amdgpu_rel32_lo = 10, r_amdgpu_rel32_hi = 11;

inline void put_le(std::vector<std::uint8_t>& b, std::uint64_t at, std::uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

/// The in-place patch: K0 with .text replaced, or the reason it does not apply.
struct PatchAttempt {
  std::optional<std::vector<std::uint8_t>> bytes;
  std::string why_not;
};

[[nodiscard]] inline PatchAttempt try_patch(const ElfFile& k0, const Module& m0, const Program& p, const std::string& text,
                                            mc::Encoder& enc) {
  PatchAttempt r;
  const Section* t0 = k0.find_section(".text");
  if (t0 == nullptr) return {std::nullopt, "K0 has no .text"};
  // 1. Every K0 instruction that is still there keeps its address.
  auto placed = enc.encode_placed(p);
  if (!placed) return {std::nullopt, "cannot encode the program: " + placed.error().message};
  std::size_t k = 0;
  for (const auto& it : p.items) {
    if (it.kind != Item::Kind::inst) continue;
    const std::uint64_t at = t0->addr + (*placed)[k++].offset;
    const auto id = it.inst.id.value;
    if (id < m0.inst_addr.size() && m0.inst_addr[id] != ~std::uint64_t{0} && m0.inst_addr[id] != at)
      return {std::nullopt, "instruction i" + std::to_string(id) + " moves from " + hex64(m0.inst_addr[id]) + " to " + hex64(at)};
  }
  // 2. Assemble; the object's .text must fit K0's, symbols stay, data sections and the note are unchanged.
  auto obj = enc.context().assemble_object(text, p.file);
  if (!obj) return {std::nullopt, "cannot assemble: " + obj.error().message};
  auto o = ElfFile::parse(std::move(*obj), "<rebuilt>");
  if (!o) return {std::nullopt, "cannot read the assembled object: " + o.error().message};
  const Section* t1 = o->find_section(".text");
  if (t1 == nullptr || t1->size > t0->size || t1->size % 4 != 0)
    return {std::nullopt, ".text grows from " + std::to_string(t0->size) + " to " + std::to_string(t1 ? t1->size : 0) + " bytes"};
  for (const auto& s : o->symbols()) {
    if (s.index == 0 || s.name.empty() || s.section_name != ".text" || s.name.starts_with(".L")) continue;
    const Symbol* s0 = k0.find_symbol(s.name);
    if (s0 == nullptr || s0->value != t0->addr + s.value)
      return {std::nullopt, "symbol '" + s.name + "' moves or is new"};
  }
  // The object must say what K0 says about its target and symbols: otherwise the edit is not text-only.
  if (o->e_flags() != k0.e_flags() || o->code_object_version() != k0.code_object_version())
    return {std::nullopt, "the target id or code object version changes"};
  for (const auto& s : o->symbols()) {
    if (s.index == 0 || s.name.empty() || s.name.starts_with(".L") || s.type == stt_section || s.type == stt_file) continue;
    const Symbol* s0 = k0.find_symbol(s.name);
    if (s0 == nullptr) return {std::nullopt, "symbol '" + s.name + "' is new"};
    const Section* home = s.section_name.empty() ? nullptr : k0.find_section(s.section_name);
    const std::uint64_t value = s.shndx == shn_abs ? s.value : home ? home->addr + s.value : ~std::uint64_t{0};
    if (value != s0->value || s.binding != s0->binding || s.type != s0->type || s.visibility != s0->visibility ||
        s.size != s0->size)
      return {std::nullopt, "symbol '" + s.name + "' changes"};
  }
  for (const auto& s0 : k0.symbols())
    if (s0.index != 0 && !s0.name.empty() && s0.name != "_DYNAMIC" && s0.type != stt_section && s0.type != stt_file &&
        o->find_symbol(s0.name) == nullptr)
      return {std::nullopt, "symbol '" + s0.name + "' is gone"};

  // Resolve the object's relocations as the linker would, at K0's addresses (every section the program defines
  // sits at K0's address when nothing moved). Only PC-relative ones: an absolute address in a shared object
  // needs a dynamic relocation, which only the linker can make.
  std::map<std::uint32_t, std::vector<std::uint8_t>> image;  // section index in the object -> resolved bytes
  for (const auto& s : o->sections())
    if (s.index != 0 && (s.flags & shf_alloc)) image[s.index].assign(o->data(s).begin(), o->data(s).end());
  for (const auto& rel : o->relocations()) {
    unsigned width = 0;
    switch (rel.type) {
      case r_amdgpu_rel32: case r_amdgpu_rel32_lo: case r_amdgpu_rel32_hi: width = 4; break;
      case r_amdgpu_rel64: width = 8; break;
      default: return {std::nullopt, "relocation type " + relocation_type_name(rel.type) + " needs the linker"};
    }
    if (rel.target_section >= o->sections().size() || !image.count(rel.target_section))
      return {std::nullopt, "relocation in a section that is not loaded"};
    const Section& in = o->sections()[rel.target_section];
    const Section* in0 = k0.find_section(in.name);
    if (in0 == nullptr) return {std::nullopt, "section " + in.name + " is new"};
    if (rel.symbol_table == 0 || rel.symbol >= o->symbols().size()) return {std::nullopt, "relocation without a symbol"};
    const Symbol& sym = o->symbols()[rel.symbol];
    const Section* home = sym.section_name.empty() ? nullptr : k0.find_section(sym.section_name);
    if (home == nullptr) return {std::nullopt, "relocation against '" + sym.name + "' in a section K0 does not have"};
    const std::uint64_t S = home->addr + sym.value, P = in0->addr + rel.offset;
    const std::uint64_t v = S + static_cast<std::uint64_t>(rel.addend) - P;
    auto& bytes = image[rel.target_section];
    if (rel.offset + width > bytes.size()) return {std::nullopt, "relocation past the end of " + in.name};
    put_le(bytes, rel.offset, rel.type == r_amdgpu_rel32_hi ? v >> 32 : v, width);
  }
  // Every loaded section but .text, resolved, must be K0's byte for byte: descriptors (their entry offsets are
  // relocations), data and layout are unchanged.
  std::vector<std::uint8_t> code;
  for (const auto& s : o->sections()) {
    if (s.index == 0 || !(s.flags & shf_alloc)) continue;
    if (s.name == ".text") {
      code = image[s.index];
      continue;
    }
    const Section* s0 = k0.find_section(s.name);
    if (s0 == nullptr || s0->size != s.size || s0->type != s.type) return {std::nullopt, "section " + s.name + " changes"};
    const auto a = k0.data(*s0);
    const auto& b = image[s.index];
    for (std::size_t i = 0; i < b.size() && i < a.size(); ++i)
      if (a[i] != b[i]) return {std::nullopt, "section " + s.name + " changes at offset " + std::to_string(i)};
  }
  if (code.size() != t1->size) return {std::nullopt, "internal: .text image"};
  auto md0 = read_metadata(k0), md1 = read_metadata(*o);
  if (!md0 || !md1 || canonical(*md0) != canonical(*md1)) return {std::nullopt, "the metadata changes"};
  // Pad with s_nop 0 (0xbf800000, SOPP; what LLVM's AMDGPUAsmBackend::writeNopData fills .text with).
  while (code.size() < t0->size) code.insert(code.end(), {0x00, 0x00, 0x80, 0xbf});
  auto out = replace_section_bytes(k0, ".text", code);
  if (!out) return {std::nullopt, out.error().message};
  r.bytes = std::move(*out);
  return r;
}

/// Firmware that preloads kernargs starts a kernel at entry + 256 (AMDGPUUsage, "Preload Kernel Arguments"), so a
/// recovered kernarg-preload prologue (the `.p2align 8` recovery marks "entry + 256") must still end exactly
/// there: a prologue that grew past 256 bytes would be padded to 512 and preloading firmware would start inside
/// it. Checked on LLVM's layout of the program. Hand-written prologues without recovery's marker are not checked.
[[nodiscard]] inline Expected<void> check_preload_prologues(const Program& p, mc::Encoder& enc) {
  std::vector<std::size_t> markers;
  std::set<std::string> kernels;
  for (std::size_t i = 0; i < p.items.size(); ++i) {
    const Item& it = p.items[i];
    if (it.kind == Item::Kind::directive && it.name == ".p2align" && it.text == "8" &&
        it.comment.find("entry + 256") != std::string::npos)
      markers.push_back(i);
    if (it.kind == Item::Kind::kernel) kernels.insert(it.kernel.name);
  }
  if (markers.empty()) return {};
  auto placed = enc.encode_placed(p);
  if (!placed) return unexpected(std::move(placed).error());
  std::vector<std::uint64_t> offset_of(p.items.size(), ~std::uint64_t{0});  // item -> offset of the next instruction
  std::uint64_t next = ~std::uint64_t{0};
  std::size_t k = placed->size();
  for (std::size_t i = p.items.size(); i-- > 0;) {
    if (p.items[i].kind == Item::Kind::inst) next = (*placed)[--k].offset;
    offset_of[i] = next;
  }
  for (std::size_t m : markers) {
    std::size_t l = m;
    while (l > 0 && !(p.items[l].kind == Item::Kind::label && kernels.count(p.items[l].name))) --l;
    if (!(p.items[l].kind == Item::Kind::label && kernels.count(p.items[l].name))) continue;
    const std::uint64_t entry = offset_of[l], body = offset_of[m];
    if (body - entry != 256)
      return fail(DiagCode::invalid_operand,
                  "kernel '" + p.items[l].name + "': the kernarg-preload prologue now ends " + std::to_string(body - entry) +
                      " bytes after the entry; firmware that preloads kernargs starts at entry + 256",
                  Loc{p.file, p.items[m].line, 0, {}}, {},
                  "keep the prologue (the code before this .p2align 8) within 256 bytes, or edit after it");
  }
  return {};
}

}  // namespace detail

/// Rebuilds a code object from `p` (see the file comment). `enc` must be for the program's target.
[[nodiscard]] ASMEVO_OUTLINE Expected<RebuildResult> rebuild(Program p, mc::Encoder& enc, const RebuildOptions& opt = {})
#if ASMEVO_BODY_CODEOBJECT
{
  RebuildResult res;
  auto tgt = program_target(p);
  if (!tgt) return unexpected(std::move(tgt).error());
  if (enc.target() != p.target || enc.context().features() != llvm_features(tgt->target_id))
    return fail(DiagCode::usage,
                "the encoder is for " + std::string(to_string(enc.target())) + " '" + enc.context().features() +
                    "' but the program's .amdgcn_target is " + tgt->target_id,
                Loc{p.file, 0, 0, {}}, {}, "create it with mc::Encoder::create(target, codeobject::llvm_features(target_id))");

  // Recount resources and refresh descriptors and metadata counts.
  const bool xnack = tgt->target_id.find(":xnack-") == std::string::npos;  // on or "any" (no :xnack±)
  auto changes = recount_kernels(p, *tgt, xnack, enc.context(), opt.policy);
  if (!changes) return unexpected(std::move(changes).error());
  res.changes = std::move(*changes);

  if (auto pro = detail::check_preload_prologues(p, enc); !pro) return unexpected(std::move(pro).error());

  PrintOptions po;
  po.ids = false;
  const std::string text = print_program(p, po);

  if (opt.original != nullptr && opt.recovered != nullptr && opt.allow_patch) {
    auto pa = detail::try_patch(*opt.original, *opt.recovered, p, text, enc);
    if (pa.bytes) {
      res.bytes = std::move(*pa.bytes);
      res.path = RebuildResult::Path::patched;
      return res;
    }
    res.why_relinked = pa.why_not;
  }

  auto obj = enc.context().assemble_object(text, p.file.empty() ? "<program>" : p.file);
  if (!obj) return unexpected(std::move(obj).error());
  auto co = link_shared(*obj);
  if (!co) return unexpected(std::move(co).error());

  // Read the result back: it must be a valid code object whose descriptors agree with its metadata.
  auto k1 = ElfFile::parse(*co, "<rebuilt>");
  if (!k1) {
    Diag d = std::move(k1).error();
    d.code = DiagCode::internal;
    d.message = "the rebuilt object does not read back: " + d.message;
    return unexpected(std::move(d));
  }
  auto md = read_metadata(*k1);
  if (!md) return unexpected(std::move(md).error());
  auto ks = kernels(*md);
  if (!ks) return unexpected(std::move(ks).error());
  const auto t = k1->target();
  Diags bad;
  for (const auto& k : *ks) {
    auto b = detail::descriptor_bytes(*k1, k.symbol);
    if (b.size() != 64) {
      bad.push_back(make_diag(DiagCode::object_error, "kernel '" + k.name + "': no descriptor " + k.symbol + " in the rebuilt object"));
      continue;
    }
    auto kd = KernelDescriptor::from_bytes(b);
    if (!kd || !t) continue;
    for (auto& d : check_against_metadata(*kd, *t, static_cast<int>(k1->code_object_version()), k.raw)) bad.push_back(std::move(d));
  }
  if (opt.original != nullptr)
    for (auto& d : check_abi(*opt.original, *k1)) bad.push_back(std::move(d));
  if (!bad.empty()) {
    Diag first = std::move(bad.front());
    for (std::size_t i = 1; i < bad.size(); ++i) first.message += "; " + bad[i].message;
    if (first.code == DiagCode::abi_error)
      first.hint = "the edit changes what the host sees; asmevo keeps K0's kernel names, kernarg layout and launch attributes";
    first.loc.file = p.file;
    return unexpected(std::move(first));
  }
  res.bytes = std::move(*co);
  return res;
}
#else
;
#endif

}  // namespace asmevo::codeobject
