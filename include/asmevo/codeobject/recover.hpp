// Recovery: a code object's ELF read back into a Module, with its text disassembled through LLVM MC into the typed
// IR. Like the rebuild headers (rebuild, program_target, resources_update), it needs the MC bridge; module.hpp does
// not.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/recover_code.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/mc/encode.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::codeobject {

namespace detail {

// ELF constants (System V gABI, "Sections" and "Symbol Table"; llvm/BinaryFormat/ELF.h).
inline constexpr std::uint32_t sht_progbits = 1, sht_nobits = 8;
inline constexpr std::uint64_t shf_write = 1, shf_alloc = 2, shf_execinstr = 4, shf_merge = 0x10, shf_strings = 0x20;
inline constexpr std::uint8_t stt_notype = 0, stt_object = 1, stt_func = 2, stt_section = 3, stt_file = 4;
inline constexpr std::uint8_t stb_local = 0, stb_global = 1, stb_weak = 2;
inline constexpr std::uint8_t stv_default = 0, stv_internal = 1, stv_hidden = 2, stv_protected = 3;
inline constexpr std::uint32_t shn_undef = 0, shn_abs = 0xfff1;

[[nodiscard]] inline Item directive(std::string name, std::string text = {}, std::string comment = {}) {
  Item it;
  it.kind = Item::Kind::directive;
  it.name = std::move(name);
  it.text = std::move(text);
  it.comment = std::move(comment);
  return it;
}
[[nodiscard]] inline Item label(std::string name) {
  Item it;
  it.kind = Item::Kind::label;
  it.name = std::move(name);
  return it;
}
[[nodiscard]] inline Item comment(std::string text) {
  Item it;
  it.kind = Item::Kind::comment;
  it.text = "; " + std::move(text);
  return it;
}
[[nodiscard]] inline Item blank() { return Item{}; }

[[nodiscard]] inline std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

[[nodiscard]] inline int log2_of(std::uint64_t a) {
  int k = 0;
  while (a > 1) a >>= 1, ++k;
  return k;
}

/// `.section` flags string for an allocated data section (GNU as syntax, as LLVM MC reads it).
[[nodiscard]] inline std::string section_flags(std::uint64_t f) {
  std::string s;
  if (f & shf_alloc) s += 'a';
  if (f & shf_write) s += 'w';
  if (f & shf_execinstr) s += 'x';
  if (f & shf_merge) s += 'M';
  if (f & shf_strings) s += 'S';
  return s;
}

/// The `.section` directive's operands for `s`: name, flags, type, and for a mergeable section (M) the entry size,
/// which the assembler requires after the type ("the M flag ... requires an entsize argument", GNU as and LLVM MC's
/// ELF section syntax; e.g. Triton's `.debug_str`, "MS" with entries of 1 byte).
template <class S>
[[nodiscard]] std::string section_operands(const S& s, std::string_view type) {
  std::string r = s.name + ",\"" + section_flags(s.flags) + "\"," + std::string(type);
  if (s.flags & shf_merge) r += "," + std::to_string(s.entsize ? s.entsize : 1);
  return r;
}

/// Data bytes as `.byte` lines of 16, with labels inserted at their offsets.
inline void emit_bytes(std::vector<Item>& out, std::span<const std::uint8_t> bytes, std::uint64_t base,
                       const std::multimap<std::uint64_t, std::string>& labels) {
  auto lab = labels.lower_bound(base);
  std::size_t i = 0;
  while (i < bytes.size()) {
    while (lab != labels.end() && lab->first <= base + i) out.push_back(label(lab->second)), ++lab;
    std::size_t n = std::min<std::size_t>(16, bytes.size() - i);
    if (lab != labels.end() && lab->first < base + i + n) n = static_cast<std::size_t>(lab->first - (base + i));
    std::string t;
    for (std::size_t k = 0; k < n; ++k) t += (k ? "," : "") + hex(bytes[i + k]);
    out.push_back(directive(".byte", t));
    i += n;
  }
  while (lab != labels.end() && lab->first <= base + bytes.size()) out.push_back(label(lab->second)), ++lab;
}

/// Sections the linker makes for every shared object; they are not part of the program.
[[nodiscard]] inline bool linker_made(std::string_view n) {
  for (std::string_view s : {".note", ".dynsym", ".gnu.hash", ".hash", ".dynstr", ".dynamic", ".relro_padding",
                             ".symtab", ".strtab", ".shstrtab", ".comment", ".rela.dyn", ".rel.dyn", ".got",
                             ".got.plt", ".interp", ".eh_frame", ".eh_frame_hdr"})
    if (n == s) return true;
  return n.empty();
}

}  // namespace detail

/// LLVM subtarget features for a target id's feature suffix: "gfx942:sramecc+:xnack-" -> "+sramecc,-xnack"
/// (AMDGPUUsage "Target ID"); empty when the id names none (both "any"). The assembler refuses an
/// `.amdgcn_target` whose features differ from its subtarget's, so recovery and rebuild use these.
[[nodiscard]] inline std::string llvm_features(std::string_view target_id) {
  std::string out;
  std::size_t at = target_id.find(':');
  while (at != std::string_view::npos) {
    const std::size_t next = target_id.find(':', at + 1);
    std::string_view f = target_id.substr(at + 1, next == std::string_view::npos ? std::string_view::npos : next - at - 1);
    if (f.size() > 1 && (f.back() == '+' || f.back() == '-')) {
      if (!out.empty()) out += ',';
      out += f.back();
      out += f.substr(0, f.size() - 1);
    }
    at = next;
  }
  return out;
}

/// An encoder for a code object's processor and features (its e_flags target id).
[[nodiscard]] inline Expected<std::unique_ptr<mc::Encoder>> encoder_for(const ElfFile& elf) {
  const auto t = elf.target();
  if (!t)
    return fail(DiagCode::unsupported,
                "processor " + elf.target_info().processor + " is not supported: asmevo's instruction tables cover gfx90a, gfx942 and gfx950",
                elf.loc());
  return mc::Encoder::create(*t, llvm_features(elf.target_id()));
}

/// Recovers an AMDGPU code object into a Module (see the file comment). Fails with DiagCode::object_error on
/// a malformed object or one whose metadata and descriptors disagree (every disagreement is listed), and with
/// DiagCode::unsupported on a processor asmevo's IR does not cover.
[[nodiscard]] ASMEVO_OUTLINE Expected<Module> recover(const ElfFile& elf, mc::Encoder& enc)
#if ASMEVO_BODY_CODEOBJECT
{
  using namespace detail;
  Module m;
  m.file = elf.file_name();
  const auto t = elf.target();
  if (!t)
    return fail(DiagCode::unsupported,
                "cannot recover code for processor " + elf.target_info().processor +
                    ": asmevo's instruction tables cover gfx90a, gfx942 and gfx950",
                Loc{m.file, 0, 0, {}});
  if (*t != enc.target() || enc.context().features() != llvm_features(elf.target_id()))
    return fail(DiagCode::usage, "the encoder is for " + std::string(to_string(enc.target())) + " '" + enc.context().features() +
                                     "' but the object is " + elf.target_id(), Loc{m.file, 0, 0, {}}, {},
                "make it with codeobject::encoder_for(elf)");
  m.target = *t;
  m.target_id = elf.target_id();
  if (!elf.is_shared_object())
    return fail(DiagCode::unsupported, "not a linked code object (e_type " + std::to_string(elf.e_type()) + ")", Loc{m.file, 0, 0, {}}, {},
                "recover works on what the loader loads: link a relocatable object with ld.lld -shared first");
  // Data holding addresses (pointer tables, a global initialised with another's address) is relocated by the
  // loader through dynamic relocations. Recovery prints data as bytes, so it would lose them: refuse instead.
  if (!elf.relocations().empty()) {
    const Relocation& r0 = elf.relocations().front();
    return fail(DiagCode::unsupported,
                "the object has " + std::to_string(elf.relocations().size()) + " dynamic relocation(s) (the first: " +
                    relocation_type_name(r0.type) + " at " + hex(r0.offset) +
                    (r0.symbol_name.empty() ? std::string{} : " against " + r0.symbol_name) +
                    "); data that holds addresses is not recovered yet",
                Loc{m.file, 0, 0, {}});
  }
  m.code_object_version = static_cast<int>(elf.code_object_version());

  // Metadata and the kernels it names.
  auto md = read_metadata(elf);
  if (!md) return unexpected(std::move(md).error());
  m.metadata = std::move(*md);
  auto metas = kernels(m.metadata);
  if (!metas) return unexpected(std::move(metas).error());

  // Symbols: .symtab when present (it has the local ones), else .dynsym.
  std::vector<Symbol> syms = elf.symbols();
  if (syms.empty()) syms = elf.dynamic_symbols();
  const Section* text = elf.find_section(".text");
  if (text == nullptr) return fail(DiagCode::object_error, "the object has no .text section", Loc{m.file, 0, 0, {}});
  m.text_addr = text->addr;
  const auto find_sym = [&](std::string_view name) -> const Symbol* {
    for (const auto& s : syms)
      if (s.name == name && s.shndx != shn_undef) return &s;
    return nullptr;
  };
  const auto section_of = [&](std::uint64_t addr) -> const Section* {
    for (const auto& s : elf.sections())
      if ((s.flags & shf_alloc) && addr >= s.addr && addr < s.addr + s.size) return &s;
    return nullptr;
  };

  // Kernels: a metadata entry, its `.symbol` (NAME.kd) descriptor and the NAME code symbol.
  Diags problems;
  for (std::size_t k = 0; k < metas->size(); ++k) {
    const KernelMeta& km = (*metas)[k];
    const std::string where = "/amdhsa.kernels/" + std::to_string(k);
    std::string kd_name = km.symbol;
    if (kd_name.size() < 4 || kd_name.substr(kd_name.size() - 3) != ".kd") {
      problems.push_back(make_diag(DiagCode::object_error, "metadata " + where + "/.symbol '" + kd_name + "' does not name a kernel descriptor (NAME.kd)", Loc{m.file, 0, 0, {}}));
      continue;
    }
    const std::string name = kd_name.substr(0, kd_name.size() - 3);
    const Symbol* kd = find_sym(kd_name);
    const Symbol* code = find_sym(name);
    if (kd == nullptr) {
      problems.push_back(make_diag(DiagCode::object_error, "metadata " + where + " names kernel '" + name + "' but the object has no symbol '" + kd_name + "'", Loc{m.file, 0, 0, {}}));
      continue;
    }
    const Section* kds = section_of(kd->value);
    if (kds == nullptr || kds->type == sht_nobits || kd->value + 64 > kds->addr + kds->size) {
      problems.push_back(make_diag(DiagCode::object_error, "kernel descriptor '" + kd_name + "' at " + hex(kd->value) + " is not inside a section's bytes", Loc{m.file, 0, 0, {}}));
      continue;
    }
    auto bytes = elf.data(*kds).subspan(static_cast<std::size_t>(kd->value - kds->addr), 64);
    auto desc = KernelDescriptor::from_bytes(bytes);
    if (!desc) { problems.push_back(std::move(desc).error()); continue; }
    // The descriptor's entry offset is relative to the descriptor (AMDGPUUsage, "Kernel Descriptor").
    const std::uint64_t entry = kd->value + static_cast<std::uint64_t>(desc->kernel_code_entry_byte_offset());
    if (code == nullptr || code->value != entry) {
      problems.push_back(make_diag(DiagCode::object_error,
                                   "kernel '" + name + "': the descriptor's entry (" + hex(entry) + ") is not the address of a symbol '" + name + "'" +
                                       (code ? " (it is at " + hex(code->value) + ")" : std::string{}),
                                   Loc{m.file, 0, 0, {}}));
      continue;
    }
    if (entry < text->addr || entry >= text->addr + text->size) {
      problems.push_back(make_diag(DiagCode::object_error, "kernel '" + name + "' starts at " + hex(entry) + ", outside .text", Loc{m.file, 0, 0, {}}));
      continue;
    }
    for (Diag& d : check_against_metadata(*desc, m.target, m.code_object_version, km.raw)) {
      d.loc.file = m.file;
      problems.push_back(std::move(d));
    }
    m.kernels.push_back(KernelInfo{name, entry, kd->value, *desc, km.raw});
  }
  if (!problems.empty()) {
    Diag first = std::move(problems.front());
    if (problems.size() > 1) {
      for (std::size_t i = 1; i < problems.size(); ++i) first.message += "; " + problems[i].message;
      first.hint = std::to_string(problems.size()) + " problems";
    }
    return unexpected(std::move(first));
  }
  std::sort(m.kernels.begin(), m.kernels.end(), [](const KernelInfo& a, const KernelInfo& b) { return a.code_addr < b.code_addr; });

  // Code.
  CodeInput in;
  in.target = m.target;
  in.text = elf.data(*text);
  in.text_addr = text->addr;
  std::set<std::string> kernel_names;
  for (const auto& k : m.kernels) kernel_names.insert(k.name);
  for (const auto& s : syms) {
    if (s.shndx == shn_undef || s.shndx == shn_abs || s.value < text->addr || s.value >= text->addr + text->size) continue;
    if (s.type == stt_section || s.type == stt_file) continue;
    if (s.type == stt_func)
      in.symbols.push_back(CodeSymbol{s.name, s.value, s.size, kernel_names.count(s.name) ? CodeSymbol::Kind::kernel : CodeSymbol::Kind::function});
    else if (s.type == stt_notype && !s.name.empty())
      in.symbols.push_back(CodeSymbol{s.name, s.value, s.size, CodeSymbol::Kind::label});
  }
  for (const auto& s : elf.sections())
    if (s.flags & shf_alloc) in.sections.push_back(SectionSpan{s.name, s.addr, s.size, (s.flags & shf_execinstr) != 0});
  std::map<std::string, std::uint32_t> preload;
  for (const auto& k : m.kernels)
    if (auto n = static_cast<std::uint32_t>(k.descriptor.get(field::preload_length)); n > 0) preload[k.name] = n;
  in.preload_dwords = [&](std::string_view kernel) -> std::optional<std::uint32_t> {
    auto it = preload.find(std::string(kernel));
    if (it == preload.end()) return std::nullopt;
    return it->second;
  };
  auto code = recover_code(in, enc);
  if (!code) {
    auto d = std::move(code).error();
    d.loc.file = m.file;
    return unexpected(std::move(d));
  }
  for (auto& n : code->notes) m.notes.push_back(std::move(n));

  // The program, in the order an assembler needs it.
  Program& p = m.program;
  p.target = m.target;
  p.file = m.file;
  p.next_id = code->next_id;
  auto& items = p.items;
  items.push_back(comment("asmevo disasm of " + (m.file.empty() ? std::string("<memory>") : m.file) + ": " +
                          m.target_id + ", code object v" + std::to_string(m.code_object_version) + ", " +
                          std::to_string(m.kernels.size()) + " kernel(s)"));
  items.push_back(comment("Reassemble with `asmevo assemble THIS.s -o K.co`; `; iN` comments are stable instruction ids."));
  items.push_back(directive(".amdgcn_target", "\"amdgcn-amd-amdhsa--" + m.target_id + "\""));
  items.push_back(directive(".amdhsa_code_object_version", std::to_string(m.code_object_version)));
  items.push_back(directive(".text"));

  const auto visibility = [&](const Symbol& s) {
    if (s.visibility == stv_protected) items.push_back(directive(".protected", s.name));
    if (s.visibility == stv_hidden) items.push_back(directive(".hidden", s.name));
    if (s.visibility == stv_internal) items.push_back(directive(".internal", s.name));
  };
  const auto sym_attrs = [&](const Symbol& s, std::string_view type, bool with_visibility = true) {
    if (s.binding == stb_global) items.push_back(directive(".globl", s.name));
    if (s.binding == stb_weak) items.push_back(directive(".weak", s.name));
    items.push_back(directive(".type", s.name + "," + std::string(type)));
    if (!with_visibility) return;
    if (s.visibility == stv_protected) items.push_back(directive(".protected", s.name));
    if (s.visibility == stv_hidden) items.push_back(directive(".hidden", s.name));
    if (s.visibility == stv_internal) items.push_back(directive(".internal", s.name));
  };
  // Padding between functions that the next function's `.p2align` reproduces exactly: s_nop 0 words only (what
  // LLVM's AMDGPUAsmBackend::writeNopData fills code alignment with), no label, ending where the next region's
  // alignment starts it. Printed as a comment instead of dozens of `s_nop 0` lines; the bytes are the same.
  const auto is_alignment_padding = [&](const CodeRegion& r, const CodeRegion* next) {
    if (!r.symbol.empty() || next == nullptr || next->align <= 1) return false;
    if ((r.addr + next->align - 1) / next->align * next->align != next->addr) return false;
    for (const auto& it : r.items) {
      if (it.kind != Item::Kind::inst || op_of(it.inst) != op::s_nop) return false;
      if (it.inst.ops.empty() || it.inst.ops[0].kind != Operand::Kind::imm || it.inst.ops[0].imm != 0) return false;
    }
    return !r.items.empty();
  };
  for (std::size_t ri = 0; ri < code->regions.size(); ++ri) {
    auto& r = code->regions[ri];
    if (is_alignment_padding(r, ri + 1 < code->regions.size() ? &code->regions[ri + 1] : nullptr)) {
      items.push_back(blank());
      items.push_back(comment(std::to_string(r.size) + " bytes of s_nop 0 at " + hex(r.addr) + ": alignment padding, made by the next .p2align"));
      continue;
    }
    items.push_back(blank());
    const Symbol* s = r.symbol.empty() ? nullptr : find_sym(r.symbol);
    if (r.align > 1) items.push_back(directive(".p2align", std::to_string(log2_of(r.align))));
    if (s != nullptr && (r.kind == CodeSymbol::Kind::kernel || r.kind == CodeSymbol::Kind::function)) {
      // A kernel's visibility is set after its `.amdhsa_kernel` block: LLVM copies the code symbol's visibility
      // to NAME.kd when it emits the descriptor (AMDGPUTargetELFStreamer::EmitAmdhsaKernelDescriptor), and
      // K0's NAME.kd may have another one.
      sym_attrs(*s, "@function", r.kind != CodeSymbol::Kind::kernel);
      if (r.kind == CodeSymbol::Kind::kernel) items.back().comment = "kernel";
      items.push_back(label(r.symbol));
    } else if (!r.symbol.empty()) {
      items.push_back(label(r.symbol));
    }
    // The symbol's size ends at its K0 extent; an end label there keeps `.size` right after edits.
    const std::string end = ".Lasmevo_end_" + std::to_string(ri);
    bool end_placed = s == nullptr || s->size == 0;
    for (std::size_t i = 0; i < r.items.size(); ++i) {
      if (r.items[i].kind == Item::Kind::inst && r.item_addr.size() == r.items.size()) {
        const auto id = r.items[i].inst.id.value;
        if (m.inst_addr.size() <= id) m.inst_addr.resize(id + 1, ~std::uint64_t{0});
        m.inst_addr[id] = r.item_addr[i];
      }
      if (!end_placed && r.item_addr.size() == r.items.size() && r.item_addr[i] >= s->value + s->size &&
          r.items[i].kind == Item::Kind::inst) {
        items.push_back(label(end));
        end_placed = true;
      }
      items.push_back(std::move(r.items[i]));
    }
    if (!end_placed) items.push_back(label(end));
    if (s != nullptr && s->size != 0) items.push_back(directive(".size", s->name + ", " + end + "-" + s->name));
  }

  // Data: every allocated section that is not code and not made by the linker, in address order. In .rodata the
  // kernel descriptors are `.amdhsa_kernel` blocks, in place.
  std::multimap<std::uint64_t, std::string> labels;  // absolute address -> label
  for (const auto& dr : code->data_labels)
    for (const auto& s : elf.sections())
      if (s.name == dr.section) labels.emplace(s.addr + dr.offset, dr.label);
  std::vector<const Section*> data;
  for (const auto& s : elf.sections())
    if ((s.flags & shf_alloc) && !(s.flags & shf_execinstr) && !linker_made(s.name)) data.push_back(&s);
  std::sort(data.begin(), data.end(), [](const Section* a, const Section* b) { return a->addr < b->addr; });
  std::set<std::string> labelled;  // names already emitted as labels (a symbol shares a label's address)
  for (const Section* s : data) {
    items.push_back(blank());
    if (s->name == ".rodata")
      items.push_back(directive(".rodata"));
    else if (s->type == sht_nobits)
      items.push_back(directive(".section", section_operands(*s, "@nobits")));
    else
      items.push_back(directive(".section", section_operands(*s, "@progbits")));
    if (s->addralign > 1) items.push_back(directive(".p2align", std::to_string(log2_of(s->addralign))));
    // Named data symbols of this section become labels with their attributes.
    std::multimap<std::uint64_t, std::string> here;
    for (const auto& [a, n] : labels)
      if (a >= s->addr && a <= s->addr + s->size) here.emplace(a, n);
    std::vector<const Symbol*> objects;
    for (const auto& y : syms)
      if (y.shndx != shn_undef && y.shndx != shn_abs && y.value >= s->addr && y.value < s->addr + std::max<std::uint64_t>(s->size, 1) &&
          (y.type == stt_object || y.type == stt_notype) && !y.name.empty()) {
        bool is_kd = false;
        for (const auto& k : m.kernels) is_kd = is_kd || y.name == k.name + ".kd";
        if (!is_kd) objects.push_back(&y);
      }
    for (const Symbol* y : objects) {
      sym_attrs(*y, y->type == stt_object ? "@object" : "@notype");
      if (y->size != 0) items.push_back(directive(".size", y->name + ", " + std::to_string(y->size)));
      here.emplace(y->value, y->name);
    }
    std::uint64_t at = s->addr;
    const auto bytes = elf.data(*s);
    const auto fill_to = [&](std::uint64_t to) {
      if (to <= at) return;
      if (s->type == sht_nobits) {
        auto lab = here.lower_bound(at);
        while (at < to) {
          std::uint64_t next = to;
          if (lab != here.end() && lab->first < to) next = std::max(at, lab->first);
          while (lab != here.end() && lab->first <= at) items.push_back(label(lab->second)), ++lab;
          if (next > at) items.push_back(directive(".zero", std::to_string(next - at)));
          at = next;
        }
        return;
      }
      emit_bytes(items, bytes.subspan(static_cast<std::size_t>(at - s->addr), static_cast<std::size_t>(to - at)), at, here);
      for (auto it = here.begin(); it != here.end();) it = it->first <= to && it->first >= at ? here.erase(it) : std::next(it);
      at = to;
    };
    for (const auto& k : m.kernels) {
      if (k.descriptor_addr < s->addr || k.descriptor_addr >= s->addr + s->size) continue;
      fill_to(k.descriptor_addr);
      DescriptorExtras extras;
      extras.xnack = elf.target_info().xnack == FeatureSetting::on || elf.target_info().xnack == FeatureSetting::any;
      auto dirs = to_directives(k.descriptor, m.target, m.code_object_version, extras);
      const Symbol* kd = find_sym(k.name + ".kd");
      if (dirs) {
        if (at % 64 != 0) items.push_back(directive(".p2align", "6"));
        Item blk;
        blk.kind = Item::Kind::kernel;
        blk.kernel.name = k.name;
        blk.kernel.fields = std::move(*dirs);
        items.push_back(std::move(blk));
        // The block gave NAME.kd the code symbol's visibility so far (default); now both get K0's.
        if (const Symbol* code = find_sym(k.name)) visibility(*code);
        if (kd != nullptr) visibility(*kd);
      } else {
        // A descriptor LLVM's directives cannot express (e.g. nonzero reserved bits): its bytes, entry offset
        // as a symbol difference so the linker fills it, and a note.
        m.notes.push_back(make_diag(DiagCode::unsupported, "kernel '" + k.name + "': descriptor kept as bytes: " + dirs.error().message, Loc{m.file, 0, 0, {}}));
        if (const Symbol* code = find_sym(k.name)) visibility(*code);
        if (kd != nullptr) sym_attrs(*kd, "@object");
        items.push_back(directive(".size", k.name + ".kd, 64"));
        items.push_back(label(k.name + ".kd"));
        const auto b = k.descriptor.bytes;
        std::string t;
        emit_bytes(items, std::span<const std::uint8_t>(b.data(), 16), 0, {});
        items.push_back(directive(".quad", k.name + "-" + k.name + ".kd"));
        emit_bytes(items, std::span<const std::uint8_t>(b.data() + 24, 40), 0, {});
      }
      at = k.descriptor_addr + 64;
    }
    fill_to(s->addr + s->size);
  }

  // Absolute symbols (LLVM's resource-usage `.set`s, user constants).
  bool any_abs = false;
  for (const auto& y : syms)
    if (y.shndx == shn_abs && !y.name.empty() && y.type != stt_file) {
      if (!any_abs) items.push_back(blank()), any_abs = true;
      if (y.binding == stb_global) items.push_back(directive(".globl", y.name));
      items.push_back(directive(".set", y.name + ", " + std::to_string(static_cast<std::int64_t>(y.value))));
    }

  // Non-allocated sections other than the linker's (e.g. LLVM's empty .AMDGPU.csdata): kept with their bytes.
  for (const auto& s : elf.sections()) {
    if ((s.flags & shf_alloc) || linker_made(s.name) || s.name.starts_with(".rel") || s.type != sht_progbits) continue;
    items.push_back(blank());
    items.push_back(directive(".section", section_operands(s, "@progbits")));
    emit_bytes(items, elf.data(s), 0, {});
  }

  items.push_back(blank());
  Item meta;
  meta.kind = Item::Kind::metadata;
  meta.text = to_yaml(m.metadata);
  if (!meta.text.empty() && meta.text.back() != '\n') meta.text += '\n';
  items.push_back(std::move(meta));
  return m;
}
#else
;
#endif

}  // namespace asmevo::codeobject
